"""A repository's pyproject.toml may not send its reader's code or secrets anywhere: the real
CLI against the scripted model server on 127.0.0.1, configured only by the repository."""

import json
import os
import subprocess
import sys

from llm_helpers import KEY_ENV, SECRET

from docfact.config import user_config_path

SOURCE = '''\
def restock(item, amount):
    """Add stock to an item.

    It also sends an email WRONGFUNC to the warehouse.
    """
    item.quantity += amount
    return item
'''

PYPROJECT = """\
[tool.docfact]
cache-dir = ".dfcache"

[tool.docfact.llm]
model = "openai/test-model"
api-base = "{base}"
api-key-env = "{key_env}"
max-retries = 0
"""


def repository(tmp_path, server):
    folder = tmp_path / "cloned"
    folder.mkdir()
    (folder / "shop.py").write_text(SOURCE)
    (folder / "pyproject.toml").write_text(PYPROJECT.format(base=server.base_url, key_env=KEY_ENV))
    return folder


def docfact(*arguments, cwd):
    done = subprocess.run(
        [sys.executable, "-m", "docfact", *arguments],
        capture_output=True,
        text=True,
        cwd=cwd,
        env={**os.environ, KEY_ENV: SECRET},
        timeout=300,
    )
    assert "Traceback" not in done.stderr, done.stderr
    assert SECRET not in done.stdout + done.stderr
    return done


def warnings_about_trust(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if "may not choose where code is sent" in line]


def test_a_plain_check_of_a_repository_that_configures_a_model_sends_nothing(tmp_path, server):
    folder = repository(tmp_path, server)
    done = docfact("check", ".", "--format", "json", cwd=folder)
    assert server.requests == []
    assert "llm" not in json.loads(done.stdout)  # no model pass ran
    [warning] = warnings_about_trust(done.stderr)
    assert warning.startswith("docfact: warning: ignored cache_dir, llm.model, llm.api_base,")
    assert "pass --trust-project if you trust this repository" in warning
    assert not (folder / ".dfcache").exists()  # nor does it choose where the cache is


def test_said_once_even_when_fix_checks_twice(tmp_path, server):
    folder = repository(tmp_path, server)
    (folder / "shop.py").write_text(
        SOURCE.replace("warehouse.\n", "warehouse.\n\n    Args:\n        ammount: How many.\n")
    )
    done = docfact("check", ".", "--fix", cwd=folder)
    assert "docfact: applied 1 fixes to 1 files" in done.stderr, done.stderr
    assert len(warnings_about_trust(done.stderr)) == 1
    assert server.requests == []


def test_with_trust_the_repository_configures_the_model(tmp_path, server):
    folder = repository(tmp_path, server)
    done = docfact("check", ".", "--format", "json", "--trust-project", cwd=folder)
    assert warnings_about_trust(done.stderr) == []
    [request] = server.requests
    assert request.headers["authorization"] == f"Bearer {SECRET}"
    report = json.loads(done.stdout)
    assert report["llm"]["calls"] == 1
    assert "DF301" in {d["code"] for d in report["diagnostics"]}
    assert (folder / ".dfcache" / "results.sqlite3").is_file()


def test_the_users_own_config_file_is_trusted(tmp_path, server):
    folder = tmp_path / "cloned"
    folder.mkdir()
    (folder / "shop.py").write_text(SOURCE)
    user_config_path().parent.mkdir(parents=True, exist_ok=True)
    user_config_path().write_text(
        PYPROJECT.format(base=server.base_url, key_env=KEY_ENV)
        .replace("[tool.docfact.llm]", "[llm]")
        .replace("[tool.docfact]\n", "")
        .replace('cache-dir = ".dfcache"\n', "")
    )
    done = docfact("check", ".", "--format", "json", cwd=folder)
    assert warnings_about_trust(done.stderr) == []
    assert len(server.requests) == 1


def test_sonar_without_a_trusted_model_says_how_to_get_one(tmp_path, server):
    folder = repository(tmp_path, server)
    done = docfact("check", ".", "--sonar", cwd=folder)
    assert done.returncode == 2
    assert "--sonar need a model: pass --llm-model, set llm.model in your own config" in (
        done.stderr
    )
    assert len(warnings_about_trust(done.stderr)) == 1 and server.requests == []


def test_check_help_tells_the_truth(tmp_path):
    done = docfact("check", "--help", cwd=tmp_path)
    text = " ".join(done.stdout.split())
    assert "nothing is sent without --llm-model" not in text
    assert "--trust-project" in text
    assert "the pyproject.toml of a project you trust" in text
    assert "llm.*, sonar.generators, sonar.fluency_model, sonar.python, ssc.encoder" in text
