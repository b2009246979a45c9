"""The 32 MiB cap on a model's answer holds on every road litellm takes to a model: the
OpenAI SDK, litellm's own HTTP handler (Anthropic's and Gemini's native APIs), an HTTP
proxy from the environment, and a compressed answer that decodes to far more than
arrives. The scripted server floods every request (128 MiB, 4 times the cap); the call
fails in one line, is not asked again, and the server stops being read at the cap."""

from __future__ import annotations

import pytest
from llm_helpers import docfact_with_model
from scripted_server import ENDLESS_BYTES

from docfact.llm import LlmClient, LlmError

MESSAGES = [{"role": "user", "content": "Say hello."}]
OVER_THE_CAP = "the answer is over the 33,554,432 bytes docfact reads"


async def failure_of(settings) -> str:
    with pytest.raises(LlmError) as failed:
        await LlmClient(settings, backoff_base_s=0.01).complete(MESSAGES, max_tokens=10)
    return str(failed.value)


@pytest.mark.parametrize(
    "model",
    ["openai/test-model", "anthropic/claude-3-5-sonnet-20241022", "gemini/gemini-2.0-flash"],
)
async def test_an_endless_answer_stops_at_the_cap_on_every_provider_road(
    server, llm_settings, model
):
    server.flood = "endless"
    api_base = server.base_url.removesuffix("/v1")
    message = await failure_of(llm_settings(model=model, api_base=api_base, timeout_s=60))
    assert message == OVER_THE_CAP
    assert len(server.requests) == 1  # not asked again: it would send as much again
    assert server.streamed_bytes < 64 << 20, f"{server.streamed_bytes:,} bytes sent"


@pytest.mark.parametrize("model", ["openai/test-model", "anthropic/claude-3-5-sonnet-20241022"])
def test_an_answer_through_a_proxy_from_the_environment_is_capped(tmp_path, server, model):
    """httpx gives proxied requests a transport of their own, past the client's; the proxy
    is read from the environment when docfact starts, so this runs the real CLI."""
    (tmp_path / "shop.py").write_text('def restock(item):\n    """Add stock."""\n    return item\n')
    server.flood = "endless"
    proxy = server.base_url.removesuffix("/v1")
    done = docfact_with_model(
        tmp_path,
        server,
        "check",
        str(tmp_path / "shop.py"),
        *("--llm-model", model, "--llm-api-base", "http://model.invalid/v1"),
        timeout=300,
        HTTP_PROXY=proxy,
        http_proxy=proxy,
        NO_PROXY="",
        no_proxy="",
    )
    assert done.returncode == 0, done.stderr
    [request] = server.requests
    assert request.path.startswith("http://model.invalid/")  # it came as to a proxy
    assert done.stderr.strip().endswith(f"call failed: {OVER_THE_CAP}"), done.stderr
    assert server.streamed_bytes < 64 << 20, f"{server.streamed_bytes:,} bytes sent"


@pytest.mark.parametrize("model", ["openai/test-model", "anthropic/claude-3-5-sonnet-20241022"])
async def test_a_compressed_answer_is_refused_unread(server, llm_settings, model):
    """A gzip body of 130 KB decodes to 128 MiB: the cap counts what arrives, so a
    compressed answer is refused (docfact asks for none)."""
    server.flood = "gzip"
    api_base = server.base_url.removesuffix("/v1")
    message = await failure_of(llm_settings(model=model, api_base=api_base, timeout_s=60))
    assert message == "the answer is compressed (gzip), which docfact does not read"
    assert server.requests[0].headers["accept-encoding"] == "identity"
    assert ENDLESS_BYTES > 32 << 20


@pytest.mark.parametrize("model", ["aiohttp_openai/test-model", "sagemaker/endpoint"])
async def test_a_provider_that_reads_past_the_cap_is_refused_before_sending(
    server, llm_settings, model
):
    message = await failure_of(llm_settings(model=model))
    assert message.startswith(f"model provider {model.split('/')[0]} reads answers outside")
    assert server.requests == []


@pytest.mark.parametrize("model", ["vertex_ai/chat-bison", "vertex_ai/text-bison@002"])
async def test_vertex_ai_before_gemini_is_refused_before_sending(server, llm_settings, model):
    """litellm reaches Vertex AI's models before Gemini through Google's SDK (gRPC or
    requests), which reads the answer whole, past the cap. Without that SDK installed
    (as here) litellm failed on its import instead; with it, the answer was uncapped."""
    message = await failure_of(llm_settings(model=model, api_base=server.base_url))
    assert message.startswith(f"model {model} is reached through Google's Vertex AI SDK"), message
    assert server.requests == []


async def test_petals_without_an_api_base_is_refused_before_sending(llm_settings):
    """Without an api_base litellm's petals provider joins a swarm through the petals SDK
    (libp2p), past the cap; with one it posts through httpx, under it."""
    from docfact.llm.capped_http import uncapped_provider

    message = await failure_of(llm_settings(model="petals/bigscience/bloom", api_base=None))
    assert message.startswith("model provider petals without an api_base reaches"), message
    assert uncapped_provider("petals/bigscience/bloom", "http://127.0.0.1:1/") is None


def test_vertex_ai_s_httpx_routes_are_not_refused():
    """Gemini, the partner models (Claude, Llama) and the Model Garden's OpenAI-compatible
    models go through httpx, under the cap; a bare endpoint number goes through the SDK,
    unless an api_base sends it to the Gemini route."""
    from docfact.llm.capped_http import uncapped_provider

    for model in ("vertex_ai/gemini-2.0-flash", "vertex_ai/claude-3-5-sonnet@20240620"):
        assert uncapped_provider(model) is None, model
    assert uncapped_provider("vertex_ai/openai/gpt-oss-120b-maas") is None
    assert uncapped_provider("vertex_ai/1234567890")
    assert uncapped_provider("vertex_ai/1234567890", "https://10.0.0.8") is None
