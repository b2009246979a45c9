"""`docfact rewrite FILE::QUALNAME` end to end: the real CLI, litellm, the sandbox and a
scripted model server on 127.0.0.1 whose pool of rewrites is tests/llm/rewrite_pool.py's
(the editor's "Describe more abstractly" is tested with the same pool)."""

import os
import subprocess
import sys

from llm_helpers import docfact_with_model
from rewrite_pool import ABSTRACT, DETAILED, LOSSY, SECTIONS, answer_sonar
from scripted_server import ScriptedServer

SOURCE = f'''\
def clamp(value: int, low: int = 0, high: int = 10) -> int:
    """{DETAILED}{SECTIONS}"""
    return max(low, min(value, high))
'''
# Few samples and inputs: the pool is scripted, more would only cost time.
CONFIG = "[tool.docfact.sonar]\nsamples = 3\ncompressions = 1\nfuzz_cases = 50\n"


def _project(tmp_path):
    (tmp_path / "pyproject.toml").write_text(CONFIG)
    path = tmp_path / "bounds.py"
    path.write_text(SOURCE)
    return path


def test_the_verified_rewrite_is_printed_as_a_diff_and_applied_once(tmp_path):
    path = _project(tmp_path)
    target = f"{path}::clamp"
    with ScriptedServer(responder=answer_sonar) as server:
        shown = docfact_with_model(tmp_path, server, "rewrite", target)
        assert path.read_text() == SOURCE  # printed, not written
        asked = len(server.requests)
        applied = docfact_with_model(tmp_path, server, "rewrite", "--apply", target)
        assert len(server.requests) == asked  # the verified result came from the cache
    assert shown.returncode == 0, shown.stderr
    assert f'-    """{DETAILED}\n' in shown.stdout and f'+    """{ABSTRACT}\n' in shown.stdout
    assert shown.stdout.startswith(f"--- a/{path.as_posix()}\n+++ b/{path.as_posix()}\n")
    assert LOSSY not in shown.stdout  # it forgets the upper bound: not kept
    assert "1 verified rewrite(s) of `clamp`'s description" in shown.stderr
    assert "Correctness 1.00 → 1.00" in shown.stderr
    assert applied.returncode == 0, applied.stderr
    assert applied.stdout == shown.stdout
    assert "wrote the rewrite of clamp into" in applied.stderr
    # Only the description changed, once; the sections stay byte for byte.
    assert path.read_text() == SOURCE.replace(DETAILED, ABSTRACT)


def test_when_none_is_kept_it_says_why_and_leaves_the_file_alone(tmp_path):
    """Every candidate loses behaviour: nothing printed, nothing written, exit status 1."""

    def only_lossy(body: dict, sample: int) -> str | None:
        if body["messages"][0]["content"].startswith("You improve the description"):
            return [LOSSY, LOSSY + " Otherwise value."][sample % 2]
        return answer_sonar(body, sample)

    path = _project(tmp_path)
    with ScriptedServer(responder=only_lossy) as server:
        done = docfact_with_model(tmp_path, server, "rewrite", "--apply", f"{path}::clamp")
    assert done.returncode == 1, done.stderr
    assert done.stdout == ""
    assert (
        "none of 2 rewrites of `clamp` kept its behaviour and read more abstractly" in done.stderr
    )
    assert path.read_text() == SOURCE


def test_without_a_model_or_a_function_it_is_a_usage_error(tmp_path):
    path = _project(tmp_path)
    environment = {**os.environ, "DOCFACT_CACHE_DIR": str(tmp_path / "cache")}

    def rewrite(*arguments):
        return subprocess.run(
            [sys.executable, "-m", "docfact", "rewrite", *arguments],
            capture_output=True,
            text=True,
            timeout=120,
            env=environment,
        )

    unset = rewrite(f"{path}::clamp")
    assert unset.returncode == 2 and "rewrite needs a model" in unset.stderr
    nowhere = rewrite("--llm-model", "openai/test-model", f"{path}::nowhere")
    assert nowhere.returncode == 2
    assert "has no documented Python function nowhere (documented: clamp)" in nowhere.stderr
    assert path.read_text() == SOURCE
