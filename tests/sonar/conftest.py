import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent.parent / "llm"))

from llm_helpers import KEY_ENV, SECRET
from scripted_server import ScriptedServer

from docfact.config import LlmSettings
from docfact.llm.client import LlmClient
from docfact.sonar import fluency as fluency_module


class CodeWriter:
    """Answers SONAR's prompts: code for a docstring, compressions of a docstring.

    ``programs`` maps a docstring to the programs written from it: the first answers every
    request at temperature 0 (Correctness, whatever order concurrent requests arrive in),
    sampled requests get them by sample number, the last repeated. ``compressions`` maps a
    docstring to the texts the compressor returns, one per sample.
    """

    def __init__(self):
        self.programs: dict[str, list[str]] = {}
        self.compressions: dict[str, list[str]] = {}
        self.seen: list[str] = []  # "regenerate" / "compress", per answered choice

    def __call__(self, body: dict, sample: int) -> str | None:
        system = body["messages"][0]["content"]
        user = body["messages"][-1]["content"]
        if system.startswith("You shorten"):
            self.seen.append("compress")
            texts = self.compressions.get(user, [user])
            return texts[min(sample, len(texts) - 1)]
        if system.startswith("You are a Python programmer"):
            self.seen.append("regenerate")
            docstring = user.split("Docstring:\n", 1)[1].split("\n\nSignature and imports:", 1)[0]
            programs = self.programs.get(docstring, ["I cannot write that."])
            if body.get("temperature") == 0:
                return programs[0]
            return programs[min(sample, len(programs) - 1)]
        return None


@pytest.fixture
def writer():
    return CodeWriter()


@pytest.fixture
def server(writer):
    with ScriptedServer(responder=writer) as scripted:
        yield scripted


@pytest.fixture
def client(server, monkeypatch):
    monkeypatch.setenv(KEY_ENV, SECRET)
    settings = LlmSettings(
        model="openai/test-model",
        api_base=server.base_url,
        api_key_env=KEY_ENV,
        timeout_s=5.0,
        max_retries=1,
    )
    return LlmClient(settings, backoff_base_s=0.01)


@pytest.fixture
def quick_fluency(monkeypatch):
    """The fluency model is another module's business (and slow to train): a stand-in."""
    monkeypatch.setattr(
        fluency_module, "fluency", lambda text, model=None: (0.5, "stand-in fluency")
    )
