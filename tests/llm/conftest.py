import logging

import pytest
from llm_helpers import KEY_ENV, SECRET
from scripted_server import ScriptedServer

from docfact.config import LlmSettings


@pytest.fixture
def server():
    with ScriptedServer() as scripted:
        yield scripted


@pytest.fixture
def secret(monkeypatch):
    monkeypatch.setenv(KEY_ENV, SECRET)
    return SECRET


@pytest.fixture
def llm_settings(server, secret):
    """Settings for the scripted server: short timeouts, so faults cost little time."""

    def make(**changes) -> LlmSettings:
        values = dict(
            model="openai/test-model",
            api_base=server.base_url,
            api_key_env=KEY_ENV,
            timeout_s=2.0,
            max_retries=2,
        )
        values.update(changes)
        return LlmSettings(**values)

    return make


@pytest.fixture
def debug_log(caplog):
    """Every log record at DEBUG, docfact's, litellm's and the HTTP stack's alike."""
    caplog.set_level(logging.DEBUG)
    for name in ("openai", "httpx", "httpcore", "aiohttp"):
        caplog.set_level(logging.DEBUG, logger=name)
    return caplog
