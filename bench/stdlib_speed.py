"""Speed and memory of `docfact check` on the standard library, next to pydoclint.

Runs, in this order and on the same files:

  (a) docfact cold: a fresh, empty --cache-dir in a temporary folder;
  (b) docfact warm: the same cache dir again, nothing changed;
  (c) pydoclint --style google (otherwise its defaults), given the exact list of files
      docfact checks (docfact skips site-packages, venv, build, ... by default).

Wall time is measured around each subprocess. Peak memory is measured by polling
/proc every 100 ms for the whole process tree (docfact, its forkserver and its worker
processes): the peak of the summed RSS (an upper bound: shared pages count once per
process), the peak of the summed PSS (shared pages split between processes, the
"true" total) and the largest single process. psutil is not installed, and
getrusage(RUSAGE_CHILDREN) would only see the largest single child (workers are
grandchildren, reaped by the forkserver, so they are not even counted there).

With --repeat N every run is repeated N times (each cold run with a fresh cache) and
the median wall time and the largest peak are reported.

Usage: .venv/bin/python bench/stdlib_speed.py [--root PATH] [--repeat N]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import sysconfig
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
BIN = Path(sys.executable).parent
DOCFACT = BIN / "docfact"
PYDOCLINT = BIN / "pydoclint"
RESULTS = HERE / "results"
GIB = 1024**3
MAX_ARGS_BYTES = 1_000_000  # split pydoclint's file list beyond this (ARG_MAX is ~2 MB)


# --- memory of a process tree ------------------------------------------------------


def _children_map() -> dict[int, list[int]]:
    """Parent pid -> child pids, for every process visible in /proc."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as handle:
                stat = handle.read()
        except OSError:
            continue
        # The command name may hold spaces and parentheses: fields follow the last ")".
        ppid = int(stat[stat.rindex(b")") + 2 :].split()[1])
        children.setdefault(ppid, []).append(int(entry))
    return children


def _tree(root: int) -> list[int]:
    children = _children_map()
    found, stack = [], [root]
    while stack:
        pid = stack.pop()
        found.append(pid)
        stack.extend(children.get(pid, ()))
    return found


def _rss_pss(pid: int) -> tuple[int, int]:
    """(RSS, PSS) of one process in bytes; (0, 0) once it has exited."""
    try:
        with open(f"/proc/{pid}/smaps_rollup") as handle:
            values = {}
            for line in handle:
                key, _, rest = line.partition(":")
                if key in ("Rss", "Pss"):
                    values[key] = int(rest.split()[0]) * 1024  # reported in kB
        return values["Rss"], values["Pss"]
    except (OSError, KeyError, ValueError):
        return 0, 0


@dataclass
class Peak:
    rss_sum: int = 0
    pss_sum: int = 0
    single: int = 0
    processes: int = 0


class TreeMemoryPoller(threading.Thread):
    """Polls the memory of ``pid`` and all its descendants until stopped."""

    def __init__(self, pid: int, interval: float = 0.1):
        super().__init__(daemon=True)
        self.pid, self.interval = pid, interval
        self.peak = Peak()
        self._done = threading.Event()

    def run(self) -> None:
        while not self._done.is_set():
            self.sample()
            self._done.wait(self.interval)

    def sample(self) -> None:
        pids = _tree(self.pid)
        sizes = [_rss_pss(pid) for pid in pids]
        peak = self.peak
        peak.rss_sum = max(peak.rss_sum, sum(r for r, _ in sizes))
        peak.pss_sum = max(peak.pss_sum, sum(p for _, p in sizes))
        peak.single = max(peak.single, max((r for r, _ in sizes), default=0))
        peak.processes = max(peak.processes, sum(1 for r, _ in sizes if r))

    def stop(self) -> Peak:
        self._done.set()
        self.join()
        return self.peak


# --- timed runs ----------------------------------------------------------------------


@dataclass
class Run:
    name: str
    seconds: float
    peak: Peak
    returncode: int
    stdout: str


def timed(name: str, command: list[str], cwd: Path) -> Run:
    """Run ``command``, measuring wall time and the peak memory of its process tree."""
    start = time.perf_counter()
    process = subprocess.Popen(
        command, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True
    )
    poller = TreeMemoryPoller(process.pid)
    poller.start()
    stdout, _ = process.communicate()
    seconds = time.perf_counter() - start
    return Run(name, seconds, poller.stop(), process.returncode, stdout)


def timed_chunks(name: str, base: list[str], files: list[str], cwd: Path) -> Run:
    """Like ``timed``, splitting a long file list over several invocations."""
    chunks, chunk, size = [], [], 0
    for path in files:
        if chunk and size + len(path) + 1 > MAX_ARGS_BYTES:
            chunks.append(chunk)
            chunk, size = [], 0
        chunk.append(path)
        size += len(path) + 1
    chunks.append(chunk)
    runs = [timed(name, base + part, cwd) for part in chunks]
    return Run(
        name,
        sum(r.seconds for r in runs),
        _max_peak(runs),
        max(r.returncode for r in runs),
        "".join(r.stdout for r in runs),
    )


def _max_peak(runs: list[Run]) -> Peak:
    return Peak(*(max(getattr(r.peak, f) for r in runs) for f in vars(Peak())))


def docfact_files(root: Path) -> list[str]:
    """The files `docfact check root` checks (its own discovery, so the sets match)."""
    from docfact.source.files import iter_python_files

    return [str(path) for path in iter_python_files(root)]


def docfact_summary(run: Run) -> str:
    import json

    try:
        data = json.loads(run.stdout)
    except ValueError:
        return f"exit {run.returncode}, no JSON output"
    return (
        f"{data['files_checked']} files, {data['units_checked']} docstrings, "
        f"{len(data['diagnostics'])} findings, exit {run.returncode}"
    )


# --- report ----------------------------------------------------------------------------


def _mib(size: int) -> str:
    return f"{size / 2**20:7.0f} MiB"


def report(root: Path, files: list[str], cold: Run, warm: Run, pydoclint: Run) -> str:
    lines = [
        f"tree: {root} ({len(files)} files; {os.cpu_count()} CPUs; "
        f"Python {sys.version.split()[0]})",
        f"docfact cold: {docfact_summary(cold)}",
        f"docfact warm: {docfact_summary(warm)}",
        f"pydoclint:    exit {pydoclint.returncode}",
        "",
        f"{'run':<14}{'wall':>9}  {'peak RSS (sum)':>15}{'peak PSS (sum)':>16}"
        f"{'largest proc':>14}{'procs':>7}",
    ]
    for run in (cold, warm, pydoclint):
        p = run.peak
        lines.append(
            f"{run.name:<14}{run.seconds:8.2f}s  {_mib(p.rss_sum):>15}"
            f"{_mib(p.pss_sum):>16}{_mib(p.single):>14}{p.processes:>7}"
        )
    cold_vs_pydoclint = cold.seconds / pydoclint.seconds
    speedup = cold.seconds / warm.seconds
    peak = max(cold.peak.rss_sum, warm.peak.rss_sum)
    verdict = lambda ok: "PASS" if ok else "FAIL"  # noqa: E731
    lines += [
        "",
        f"cold / pydoclint = {cold_vs_pydoclint:5.2f}   target <= 1.00   "
        f"{verdict(cold_vs_pydoclint <= 1)}",
        f"cold / warm      = {speedup:5.1f}x  target >= 10x     {verdict(speedup >= 10)}",
        f"docfact peak RSS = {peak / GIB:5.2f} GiB target < 1 GiB  {verdict(peak < GIB)}"
        f"   (summed over the process tree; PSS sum "
        f"{max(cold.peak.pss_sum, warm.peak.pss_sum) / GIB:.2f} GiB)",
    ]
    return "\n".join(lines)


def median_run(runs: list[Run]) -> Run:
    """The run of median wall time, with the largest peaks of all runs."""
    middle = sorted(runs, key=lambda r: r.seconds)[len(runs) // 2]
    return Run(middle.name, middle.seconds, _max_peak(runs), middle.returncode, middle.stdout)


def measure(root: Path, files: list[str]) -> tuple[Run, Run, Run]:
    """One cold, one warm docfact run and one pydoclint run, in a fresh temporary folder."""
    with tempfile.TemporaryDirectory(prefix="docfact-bench-") as tmp:
        workdir = Path(tmp)  # no pyproject.toml here: both tools run with their defaults
        cache = workdir / "cache"
        docfact = [str(DOCFACT), "check", str(root), "--format", "json", "--cache-dir", str(cache)]
        cold = timed("docfact cold", docfact, workdir)
        warm = timed("docfact warm", docfact, workdir)
        pydoclint = timed_chunks(
            "pydoclint", [str(PYDOCLINT), "--style", "google", "-q"], files, workdir
        )
    return cold, warm, pydoclint


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--root",
        type=Path,
        default=Path(sysconfig.get_paths()["stdlib"]),
        help="tree to check (default: this Python's standard library)",
    )
    parser.add_argument("--repeat", type=int, default=1, help="repeat every run N times")
    arguments = parser.parse_args(argv)
    root = arguments.root.resolve()
    files = docfact_files(root)
    rounds = [measure(root, files) for _ in range(max(1, arguments.repeat))]
    cold, warm, pydoclint = (median_run(list(runs)) for runs in zip(*rounds))
    text = report(root, files, cold, warm, pydoclint)
    print(text)
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "stdlib_speed.txt").write_text(text + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
