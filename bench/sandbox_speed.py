"""What one sandbox run costs.

Measures the median and the slowest of N runs of:

  (a) ``pass``: the sandbox's own start-up and clean-up (temporary folder, bwrap, the
      first stage: watcher fork, drop, limits; the second stage's interpreter and audit
      hook), next to a bare ``python -c pass``;
  (b) ``import hypothesis``: what a differential-testing batch pays before its first case;
  (c) a batch like funcsim's: one function, 200 cases drawn with a fixed seed, compared
      with a second implementation, JSON on stdout; the target is <= 2 s per function;
  (d) ``pass`` under a project's own interpreter (a venv made here): its environment's
      mounts and start-up (the first stage execs it once unprivileged and limited);
  (e) importing a module of a private project (a 0700 folder of 0600 files, 200 modules):
      as root, the view the jail reads it through (copies of its private files).

Usage: .venv/bin/python bench/sandbox_speed.py [--repeat N]
Writes the table to bench/results/sandbox_speed.txt as well.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "server"))

from docfact.sonar import sandbox  # noqa: E402

RESULTS = HERE / "results"
TARGET_S = 2.0
BATCH = '''
import json, math, random
def original(xs, k):
    """The k largest values, largest first."""
    return sorted(xs, reverse=True)[:k]
def candidate(xs, k):
    return list(reversed(sorted(xs)))[:k]
matches = cases = 0
for case in range(200):
    random.seed(case)
    xs = [random.uniform(-1e6, 1e6) for _ in range(random.randint(0, 30))]
    k = random.randint(-2, 10)
    try:
        expected = original(xs, k)
    except Exception as error:
        expected = type(error)
    try:
        got = candidate(xs, k)
    except Exception as error:
        got = type(error)
    cases += 1
    matches += got == expected or (isinstance(got, list) and len(got) == len(expected)
                                   and all(math.isclose(a, b, rel_tol=1e-9)
                                           for a, b in zip(got, expected)))
print(json.dumps({"cases": cases, "matches": matches}))
'''
PROGRAMS = {
    "pass": "pass",
    "import hypothesis": "import hypothesis, hypothesis.strategies",
    "200-case batch": "import hypothesis\n" + BATCH,
}


def bare_python(repeat: int) -> list[float]:
    """Seconds of ``python -c pass`` with no sandbox at all (the floor)."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        subprocess.run([sys.executable, "-s", "-B", "-c", "pass"], check=True)
        times.append(time.perf_counter() - start)
    return times


def sandboxed(
    program: str, repeat: int, python: str | None = None, read_paths: tuple[str, ...] = ()
) -> list[float]:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        outcome = sandbox.run_python(program, python=python, read_paths=read_paths)
        times.append(time.perf_counter() - start)
        if outcome.state != "ok":
            raise SystemExit(f"{outcome.state}: {outcome.detail}\n{outcome.stderr}")
    return times


def project_venv(folder: Path) -> str:
    """A venv of docfact's base interpreter in ``folder``; its python."""
    real = os.path.realpath(sys.executable)
    subprocess.run([real, "-m", "venv", "--without-pip", str(folder / ".venv")], check=True)
    return str(folder / ".venv" / "bin" / "python")


def private_project(folder: Path, modules: int = 200) -> str:
    """A package of ``modules`` modules in a 0700 folder, every file 0600."""
    package = folder / "shop"
    package.mkdir()
    (package / "__init__.py").write_text("")
    for number in range(modules):
        (package / f"m{number}.py").write_text(f"VALUE = {number}\n" + "# padding\n" * 50)
    for path in [package, *package.iterdir()]:
        path.chmod(0o700 if path.is_dir() else 0o600)
    folder.chmod(0o700)
    return f"import sys\nsys.path.insert(0, {str(folder)!r})\nimport shop.m199\n"


def row(label: str, times: list[float]) -> str:
    return f"{label:<36} {statistics.median(times) * 1000:9.1f} {max(times) * 1000:9.1f}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=10)
    args = parser.parse_args(argv)
    if sandbox.unavailable():
        raise SystemExit(sandbox.unavailable())
    lines = [
        f"sandbox speed, {args.repeat} runs each (ms)",
        f"{'':<36} {'median':>9} {'slowest':>9}",
    ]
    bare = bare_python(args.repeat)
    lines.append(row("python -c pass (no sandbox)", bare))
    medians = {}
    for name, program in PROGRAMS.items():
        times = sandboxed(program, args.repeat)
        medians[name] = statistics.median(times)
        lines.append(row(f"bubblewrap: {name}", times))
    with tempfile.TemporaryDirectory() as venv_home, tempfile.TemporaryDirectory() as private:
        python = project_venv(Path(venv_home))
        times = sandboxed("pass", args.repeat, python=python, read_paths=(venv_home,))
        lines.append(row("bubblewrap: pass, a project's venv", times))
        program = private_project(Path(private))
        times = sandboxed(program, args.repeat, read_paths=(private,))
        lines.append(row("bubblewrap: import, private project", times))
        shutil.rmtree(private, ignore_errors=True)
    batch = medians["200-case batch"]
    verdict = "meets" if batch <= TARGET_S else "misses"
    overhead = medians["pass"] - statistics.median(bare)
    lines.append(
        f"overhead over bare python {overhead * 1000:.1f} ms (run of 'pass'); "
        f"200-case batch {batch:.2f} s, {verdict} the {TARGET_S:g} s target"
    )
    text = "\n".join(lines)
    print(text)
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "sandbox_speed.txt").write_text(text + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
