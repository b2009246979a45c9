"""The litellm door, against a real HTTP server: retries, timeouts, the breaker, secrets."""

import asyncio
import base64
import time

import pytest
from llm_helpers import KEY_ENV

from docfact.config import LlmSettings
from docfact.llm import LlmClient, LlmError, ModelUnavailable, client_for

MESSAGES = [{"role": "user", "content": "Say hello."}]


def fast_client(settings, **options) -> LlmClient:
    options.setdefault("backoff_base_s", 0.01)
    return LlmClient(settings, **options)


async def test_a_call_sends_the_key_from_the_environment_and_counts_usage(
    server, llm_settings, secret
):
    client = fast_client(llm_settings())
    completion = await client.complete(MESSAGES, max_tokens=10)
    assert completion.text.startswith("I cannot tell")  # the server's answer to an unknown prompt
    assert completion.prompt_tokens > 0 and completion.completion_tokens > 0
    assert completion.cost is None  # the test model has no price
    request = server.requests[0]
    assert request.headers["authorization"] == f"Bearer {secret}"
    assert request.body["temperature"] == 0.1 and request.body["top_p"] == 0.9
    assert request.body["max_tokens"] == 10
    assert client.stats.calls == 1 and client.stats.failures == 0
    assert client.stats.prompt_tokens == completion.prompt_tokens


async def test_cost_comes_from_the_local_price_map_for_a_known_model(server, llm_settings):
    client = fast_client(llm_settings(model="openai/gpt-4o-mini"))
    completion = await client.complete(MESSAGES)
    assert completion.cost is not None and completion.cost > 0
    assert client.stats.cost == pytest.approx(completion.cost)


async def test_several_samples_come_back_as_choices(server, llm_settings):
    completion = await fast_client(llm_settings()).complete(MESSAGES, n=3)
    assert len(completion.choices) == 3
    assert server.requests[0].body["n"] == 3


async def test_429_with_retry_after_then_500_are_retried_until_success(server, llm_settings):
    server.inject("429", "500")
    client = fast_client(llm_settings())
    started = time.monotonic()
    completion = await client.complete(MESSAGES)
    assert completion.text
    assert len(server.requests) == 3
    assert client.stats.retries == 2 and client.stats.failures == 0
    assert time.monotonic() - started >= 0.9  # Retry-After: 1 was honoured


async def test_a_hang_past_the_timeout_is_retried(server, llm_settings):
    server.inject("hang")
    client = fast_client(llm_settings(timeout_s=0.5))
    completion = await client.complete(MESSAGES)
    assert completion.text and len(server.requests) == 2


async def test_retries_are_bounded(server, llm_settings):
    server.inject("500", always=True)
    client = fast_client(llm_settings(max_retries=2))
    with pytest.raises(LlmError, match="InternalServerError"):
        await client.complete(MESSAGES)
    assert len(server.requests) == 3
    assert client.stats.failures == 1


async def test_an_auth_error_is_not_retried_and_never_shows_the_key(
    server, llm_settings, secret, debug_log
):
    server.inject("echo_key_401")  # the server repeats the key in its error message
    client = fast_client(llm_settings())
    with pytest.raises(LlmError) as raised:
        await client.complete(MESSAGES)
    assert len(server.requests) == 1
    assert secret not in str(raised.value) and "[redacted]" in str(raised.value)
    assert raised.value.__cause__ is None and raised.value.__context__ is None
    assert secret not in debug_log.text
    assert secret not in repr(client)


async def test_the_key_is_redacted_in_any_encoding_the_server_echoes(
    server, llm_settings, secret, debug_log
):
    """URL-encoded, inside a base64 Authorization value, or a 13-character piece of it."""
    server.inject("echo_key_encoded_401")
    client = fast_client(llm_settings())
    with pytest.raises(LlmError) as raised:
        await client.complete(MESSAGES)
    message = str(raised.value)
    assert "invalid key [redacted]" in message and "starts [redacted]..." in message
    assert secret not in message and secret[:12] not in message
    encoded = base64.b64encode(f"user:{secret}".encode()).decode()
    assert encoded[8:20] not in message  # no 12 characters of the key's base64 form
    assert secret[:12] not in debug_log.text and encoded[8:20] not in debug_log.text


@pytest.mark.parametrize(
    "shown",
    [
        "sk-very%2Fsecret%2B123%3D%3D",
        "sk-very%2fsecret%2b123%3d%3d",
        "sk-very/secret+123==",
        "sk-very\\/secret+123==",
        "c2stdmVyeS9zZWNyZXQrMTIzPT0=",
        "sk-very/secr",
        "sk-very%252Fsecret%252B123%253D%253D",  # URL-encoded twice
        "sk-very%252fsecret%252b123%253d%253d",
        "".join(f"\\x{ord(c):02x}" for c in "sk-very/secret+123=="),
        "".join(f"\\u{ord(c):04X}" for c in "sk-very/secret+123=="),
        "sk-very\\x2fsecret\\x2b123\\x3d\\x3d",
        "".join(f"&#{ord(c)};" for c in "sk-very/secret+123=="),
        "".join(f"&#x{ord(c):x};" for c in "sk-very/secret+123=="),
        "sk-very&#47;secret&#43;123&#61;&#61;",
        "sk-very&sol;secret&plus;123&equals;&equals;",
    ],
)
def test_redaction_covers_every_form_of_the_key(shown):
    from docfact.llm.redact import redact

    redacted = redact(f"401: {shown} was refused", "sk-very/secret+123==")
    assert redacted.startswith("401: [redacted]") and redacted.endswith(" was refused")
    assert not any(shown[i : i + 8] in redacted for i in range(len(shown) - 7))


async def test_a_missing_key_variable_is_said_and_nothing_is_sent(
    server, llm_settings, monkeypatch
):
    monkeypatch.delenv(KEY_ENV)
    with pytest.raises(LlmError, match=KEY_ENV):
        await fast_client(llm_settings()).complete(MESSAGES)
    assert server.requests == []


async def test_the_breaker_stops_calling_and_tells_once(server, llm_settings):
    server.inject("500", always=True)
    client = fast_client(llm_settings(max_retries=0), breaker_threshold=3, breaker_cooldown_s=60)
    for _ in range(3):
        with pytest.raises(LlmError):
            await client.complete(MESSAGES)
    with pytest.raises(ModelUnavailable, match="unavailable"):
        await client.complete(MESSAGES)
    assert len(server.requests) == 3
    notice = client.take_notice()
    assert notice and "3 times in a row" in notice
    assert client.take_notice() is None


async def test_the_breaker_closes_after_the_cool_down(server, llm_settings):
    server.inject("500", "500")
    client = fast_client(llm_settings(max_retries=0), breaker_threshold=2, breaker_cooldown_s=0.2)
    for _ in range(2):
        with pytest.raises(LlmError):
            await client.complete(MESSAGES)
    with pytest.raises(ModelUnavailable):
        await client.complete(MESSAGES)
    await asyncio.sleep(0.25)
    assert (await client.complete(MESSAGES)).text


async def test_retries_stop_when_the_breaker_opens(server, llm_settings):
    server.inject("500", always=True)
    client = fast_client(llm_settings(max_retries=10), breaker_threshold=3, breaker_cooldown_s=60)
    with pytest.raises(ModelUnavailable):
        await client.complete(MESSAGES)
    assert len(server.requests) == 3


async def test_concurrency_is_bounded(server, llm_settings):
    server.delay_s = 0.2
    client = fast_client(llm_settings(max_concurrency=2))
    await asyncio.gather(*(client.complete(MESSAGES) for _ in range(6)))
    assert server.peak_in_flight == 2


async def test_cancelling_a_call_abandons_the_request(server, llm_settings):
    server.inject("hang")
    client = fast_client(llm_settings(timeout_s=30))
    task = asyncio.create_task(client.complete(MESSAGES))
    while not server.requests:
        await asyncio.sleep(0.01)
    started = time.monotonic()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert time.monotonic() - started < 1
    assert client.in_flight == 0


def test_no_model_no_client(server):
    assert client_for(LlmSettings(api_base=server.base_url)) is None
    with pytest.raises(ValueError):
        LlmClient(LlmSettings())
    assert server.requests == []
