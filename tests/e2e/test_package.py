"""docfact's wheel and sdist, built with `python -m build` and installed into a fresh
environment: the installed `docfact` checks the examples as the repository does.

The fresh environment sees the test environment's packages (a .pth file) for docfact's
dependencies, so nothing but the build backend comes from the package index; docfact
itself comes only from the wheel."""

import json
import os
import subprocess
import sys
import sysconfig
import tarfile
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "server"))
from docfact import __version__  # noqa: E402


def run(*args, **kwargs):
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    return subprocess.run(
        [str(a) for a in args], capture_output=True, text=True, timeout=600, env=env, **kwargs
    )


def test_wheel_and_sdist_build_and_the_wheel_installs(tmp_path):
    dist = tmp_path / "dist"
    source = tmp_path / "source"  # a clean copy: the build writes next to the sources
    exported = subprocess.run(
        f"git -C {ROOT} ls-files -z | tar -C {ROOT} --null -T - -cf - "
        f"| (mkdir -p {source} && tar -C {source} -xf -)",
        shell=True,
        capture_output=True,
        text=True,
    )
    assert exported.returncode == 0, exported.stderr
    built = run(sys.executable, "-m", "build", "--outdir", dist, source)
    assert built.returncode == 0, built.stdout[-2000:] + built.stderr[-2000:]
    wheel = dist / f"docfact-{__version__}-py3-none-any.whl"
    sdist = dist / f"docfact-{__version__}.tar.gz"
    assert wheel.is_file() and sdist.is_file(), sorted(p.name for p in dist.iterdir())
    packaged = zipfile.ZipFile(wheel).namelist()
    for data in (
        "docfact/source/jdk_api.txt",
        "docfact/llm/prompts/judge_batched_v2.txt",
        "docfact/py.typed",
    ):
        assert data in packaged
    with tarfile.open(sdist) as archive:
        assert f"docfact-{__version__}/server/docfact/cli.py" in archive.getnames()

    venv = tmp_path / "venv"
    assert run(sys.executable, "-m", "venv", venv).returncode == 0
    python = venv / "bin" / "python"
    site = run(
        python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"
    ).stdout.strip()
    Path(site, "test-dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    installed = run(
        python, "-m", "pip", "install", "--quiet", "--no-deps", "--ignore-installed", wheel
    )
    assert installed.returncode == 0, installed.stderr
    where = run(python, "-c", "import docfact; print(docfact.__file__)").stdout.strip()
    assert where.startswith(site), where

    docfact = venv / "bin" / "docfact"
    assert run(docfact, "--version").stdout.strip() == f"docfact {__version__}"
    examples = tmp_path / "examples"
    subprocess.run(["cp", "-r", str(ROOT / "examples"), str(examples)], check=True)
    from_wheel = run(docfact, "check", ".", "--no-cache", "--format", "json", cwd=examples)
    from_repo = subprocess.run(
        [sys.executable, "-m", "docfact", "check", ".", "--no-cache", "--format", "json"],
        cwd=examples,
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT / "server")},
        timeout=300,
    )
    assert from_wheel.returncode == 1, from_wheel.stderr
    found = json.loads(from_wheel.stdout)["diagnostics"]
    assert any(d["path"].endswith(".java") for d in found)  # the JDK's names came with the wheel
    assert found == json.loads(from_repo.stdout)["diagnostics"]
