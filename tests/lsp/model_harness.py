"""The editor against a scripted model: the server's options for it and the scripted
OpenAI-compatible server on 127.0.0.1 (tests/llm/scripted_server.py)."""

from __future__ import annotations

import sys
from pathlib import Path

from lsp_harness import FAST

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "llm"))
from llm_helpers import KEY_ENV, SECRET
from scripted_server import ScriptedServer

__all__ = ["KEY_ENV", "MODEL_WAIT", "SECRET", "ScriptedServer", "model_options"]

# How long a test waits for a model's findings: the first loads litellm, which takes
# seconds, and much longer on a busy shared machine. A passing test never waits this long.
MODEL_WAIT = 90.0


def model_options(server: ScriptedServer, *, sonar: dict | None = None, **llm) -> dict:
    """initializationOptions with the scripted model configured (10 s timeout unless
    ``llm`` says otherwise) and, when given, SONAR's settings."""
    options = {
        **FAST["docfact"],
        "llm": {
            "model": "openai/test-model",
            "apiBase": server.base_url,
            "apiKeyEnv": KEY_ENV,
            "timeoutS": 10,
            **llm,
        },
    }
    if sonar is not None:
        options["sonar"] = sonar
    return {"docfact": options}
