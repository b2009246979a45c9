"""Sandbox time of SONAR's FuncSim: one sandbox run per (original, candidates) batch.

For a few typical functions (numbers, strings, lists, dicts, a raising one), runs FuncSim
with 200 cases against 1 candidate (Correctness) and against 3 candidates (Conciseness's
batch), and prints per function the sandbox wall time (start-up included, as
``Outcome.seconds`` reports it), the time inside the child, and the cases tried. Target:
<= 2 s per function for 200 cases. Also prints the bare start-up cost (a run with a
zero-parameter function, one case).

Usage: .venv/bin/python bench/sonar_speed.py [--cases N] [--repeat N]
"""

from __future__ import annotations

import argparse
import statistics
import time

from docfact.sonar import sandbox
from docfact.sonar.funcsim import funcsim

FUNCTIONS = {
    "arithmetic": (
        "def f(x: float, y: float) -> float:\n    return (x * y) / (abs(y) + 1)\n",
        "def f(x, y):\n    return x * y / (1 + abs(y))\n",
    ),
    "strings": (
        "def f(text: str, width: int = 8) -> list[str]:\n"
        "    return [text[i:i + width] for i in range(0, len(text), max(width, 1))]\n",
        "def f(text, width=8):\n    step = max(width, 1)\n"
        "    return [text[i:i + step] for i in range(0, len(text), step)]\n",
    ),
    "lists": (
        "def f(xs: list[int]) -> list[int]:\n    return sorted(set(xs))\n",
        "def f(xs):\n    out = []\n    for x in sorted(xs):\n        if x not in out:\n"
        "            out.append(x)\n    return out\n",
    ),
    "dicts": (
        "def f(counts: dict[str, int], floor=0):\n"
        "    return {k: v for k, v in counts.items() if v > floor}\n",
        "def f(counts, floor=0):\n"
        "    return dict((k, v) for k, v in counts.items() if v > floor)\n",
    ),
    "raising": (
        "def f(n: int) -> int:\n    if n < 0:\n        raise ValueError(n)\n"
        "    total = 1\n    for i in range(2, n + 1):\n        total *= i\n    return total\n",
        "import math\ndef f(n):\n    return math.factorial(n)\n",
    ),
}


def measure(original: str, candidates: list[str], cases: int, repeat: int):
    walls, insides, tried = [], [], 0
    for _ in range(repeat):
        started = time.monotonic()
        run = funcsim(original, candidates, "f", cases=cases)
        walls.append(time.monotonic() - started)
        insides.append(run.seconds)
        tried = run.cases
        if run.error:
            raise SystemExit(f"FuncSim failed: {run.error}")
    return statistics.median(walls), statistics.median(insides), tried


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=200)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    print(
        f"sandbox: {sandbox.unavailable() or 'bubblewrap'}; cases: {args.cases}; "
        f"median of {args.repeat} runs"
    )
    wall, inside, _ = measure(
        "def f():\n    return 1\n", ["def f():\n    return 1\n"], 1, args.repeat
    )
    print(f"{'start-up (1 case)':<22} {wall:6.2f} s wall   {inside:6.2f} s sandbox")
    print(f"{'function':<12} {'candidates':>10} {'cases':>6} {'wall s':>8} {'sandbox s':>10}")
    worst = 0.0
    for name, (original, candidate) in FUNCTIONS.items():
        for count in (1, 3):
            wall, inside, tried = measure(original, [candidate] * count, args.cases, args.repeat)
            worst = max(worst, inside)
            print(f"{name:<12} {count:>10} {tried:>6} {wall:8.2f} {inside:10.2f}")
    verdict = "within" if worst <= 2.0 else "over"
    print(f"slowest sandbox run: {worst:.2f} s ({verdict} the 2 s target)")


if __name__ == "__main__":
    main()
