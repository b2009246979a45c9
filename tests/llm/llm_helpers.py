"""Helpers shared by the model tests (fixtures live in conftest.py)."""

import os
import sqlite3
import subprocess
import sys

from docfact.analysis import FileAnalysis
from docfact.config import Settings
from docfact.engine import analyze
from docfact.sonar.fluency import prose_model_path

SECRET = "sk-docfact-FAKE-5ecret-4711"
KEY_ENV = "DOCFACT_TEST_LLM_KEY"


def docfact_with_model(
    tmp_path,
    server,
    command: str,
    *arguments: str,
    timeout: int = 600,
    python_flags: tuple[str, ...] = (),
    **env: str,
) -> subprocess.CompletedProcess:
    """Runs the real CLI (`python PYTHON_FLAGS -m docfact COMMAND ... ARGUMENTS`) against a
    scripted model server, with the key in the environment, a cache under tmp_path and no
    model download; the key must never be printed and nothing may crash."""
    cache = tmp_path / "cache"
    session_model = prose_model_path()  # this test's link to the session's (tests/conftest.py)
    own_model = cache / session_model.name
    cache.mkdir(exist_ok=True)
    if session_model.is_file() and not own_model.exists():
        os.link(session_model, own_model)  # the fluency model is trained once per session
    environment = {
        **os.environ,
        KEY_ENV: SECRET,
        "DOCFACT_CACHE_DIR": str(cache),
        "HF_HUB_OFFLINE": "1",
        **env,
    }
    model = [
        "--llm-model",
        "openai/test-model",
        "--llm-api-base",
        server.base_url,
        "--llm-api-key-env",
        KEY_ENV,
    ]
    done = subprocess.run(
        [sys.executable, *python_flags, "-m", "docfact", command, *model, *arguments],
        capture_output=True,
        text=True,
        env=environment,
        timeout=timeout,
    )
    assert "Traceback" not in done.stderr, done.stderr
    assert SECRET not in done.stdout + done.stderr
    if own_model.is_file() and not session_model.exists():
        os.link(own_model, session_model)  # trained by this run: shared from now on
    return done


def analyze_text(
    text: str, module_name: str = "sample", settings: Settings | None = None
) -> FileAnalysis:
    return analyze(text, f"{module_name}.py", module_name, settings or Settings())


def cached_rows(cache) -> int:
    """Rows in the cache's SQLite file, read directly."""
    with sqlite3.connect(cache.path) as db:
        return db.execute("SELECT count(*) FROM results").fetchone()[0]


# --- a model that writes code and summaries, for SONAR and SSC end to end ---------------

SCATTERED_SUMMARIES = [
    "Parse a configuration file into sections.",
    "Send reminders to overdue customers.",
    "Draw a histogram of the sales.",
    "Translate the greeting into French.",
]


def arithmetic_responder(body: dict, sample: int) -> str | None:
    """Answers SONAR's and SSC's prompts about two-argument integer functions: code written
    from "the larger of a and b" takes the max, from anything else the sum; compressions
    change nothing; summaries agree, except for code that takes the min (the model cannot
    make up its mind about it); the P3 judge says Correct. Judge prompts fall through to
    the scripted server's own rules."""
    import re

    system, user = body["messages"][0]["content"], body["messages"][-1]["content"]
    if system.startswith("You are a Python programmer"):
        name = re.search(r"def (\w+)\(", user.split("Signature and imports:", 1)[1]).group(1)
        operation = "max(a, b)" if "larger" in user else "a + b"
        return f"```python\ndef {name}(a: int, b: int) -> int:\n    return {operation}\n```"
    if system.startswith("You shorten"):
        return user
    if "Correct or Incorrect" in user:
        return "Correct"
    if system.startswith("You are an expert programmer. You read code"):
        if "min(a, b)" in user:
            return SCATTERED_SUMMARIES[sample % len(SCATTERED_SUMMARIES)]
        return "Add two numbers and return their sum."
    return None
