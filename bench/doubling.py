"""Hostile sizes: does analysis time grow near-linearly when an input doubles?

Each case builds a Python or Java text whose size grows with N (a sentence with N
backquoted names, N stale names, a Javadoc comment with N @param lines, a function with
N parameters, a chain of N calls, a 2 MB file of ordinary code, N dotted names sharing
their parts, N names in one sentence that tells history) and times ``engine.analyze`` at
N, 2N, 4N, ... The targets: time grows by at most 2.5x per doubling up to the largest size,
and any Python file of at most 2 MB is analysed in at most 10 s (issue 18); 8,000
backquoted names in one docstring in at most 5 s, 4,000 stale names in at most 3 s
(issue 23: they took 106-125 s and 28 s).

Usage: .venv/bin/python bench/doubling.py [--case NAME ...] [--steps K]
"""

from __future__ import annotations

import argparse
import gc
import sys
import time
from pathlib import Path

sys.setrecursionlimit(10_000)

from docfact.config import Settings  # noqa: E402
from docfact.engine import analyze  # noqa: E402

TARGET_GROWTH = 2.5
TARGET_2MB_S = 10.0
# (case, size) -> the most seconds it may take
DEADLINES = {("backquoted_references", 8000): 5.0, ("stale_names", 4000): 3.0}


def backquoted_references(n: int) -> tuple[str, str]:
    names = " ".join(f"`name{i}`" for i in range(n))
    return "m.py", f'def f(name0):\n    """Use {names}."""\n'


def stale_names(n: int) -> tuple[str, str]:
    lines = "\n".join(f"    Calls `helpr{i}()` first." for i in range(n))
    defs = "".join(f"def helper{i}():\n    pass\n" for i in range(n))
    return "m.py", f'{defs}def f():\n    """Do it.\n\n{lines}\n    """\n'


def dotted_names(n: int) -> tuple[str, str]:
    """Each name also the tail of a dotted name, and the head of another."""
    names = " ".join(f"`lib.part{i}` and `part{i}.attr`" for i in range(n // 2))
    return "m.py", f'def f():\n    """Use {names}."""\n'


def history_sentence(n: int) -> tuple[str, str]:
    """One sentence of N names that tells history ("instead of") near its end."""
    names = ", ".join(f"`old{i}`" for i in range(n))
    return "m.py", f'def f():\n    """Calls {names} instead of `new`."""\n'


def javadoc_params(n: int) -> tuple[str, str]:
    params = "\n".join(f"   * @param p{i} the value {i}" for i in range(n))
    return "A.java", f"class A {{\n  /**\n   * Do it.\n{params}\n   */\n  void f(int p0) {{}}\n}}\n"


def many_parameters(n: int) -> tuple[str, str]:
    params = ", ".join(f"p{i}: int" for i in range(n))
    entries = "\n".join(f"        p{i} (str): value {i}." for i in range(n))
    return "m.py", f'def f({params}):\n    """Do it.\n\n    Args:\n{entries}\n    """\n'


def call_chain(n: int) -> tuple[str, str]:
    return "m.py", f'def f():\n    """Call `x`."""\n    return x{"()" * n}\n'


def ordinary_code(n: int) -> tuple[str, str]:
    """n functions of ordinary documented code (2 MB is about 12,000 of them)."""
    unit = '''
def restock_{i}(item: str, amount: int = 1) -> int:
    """Add ``amount`` units of ``item`` to the stock.

    Args:
        item: The item's name.
        amount: How many units to add.

    Returns:
        int: The new count.
    """
    count = STOCK.get(item, 0) + amount
    STOCK[item] = count
    return count
'''
    return "m.py", "STOCK = {}\n" + "".join(unit.format(i=i) for i in range(n))


CASES = {
    "backquoted_references": (backquoted_references, 500),
    "stale_names": (stale_names, 500),
    "dotted_names": (dotted_names, 500),
    "history_sentence": (history_sentence, 500),
    "javadoc_params": (javadoc_params, 1000),
    "many_parameters": (many_parameters, 500),
    "call_chain": (call_chain, 12_500),
    "ordinary_code": (ordinary_code, 1500),
}


def timed(build, n: int) -> tuple[float, int]:
    path, text = build(n)
    started = time.perf_counter()
    analyze(text, path, Path(path).stem, Settings())
    return time.perf_counter() - started, len(text.encode())


def main(argv: list[str] | None = None) -> int:
    gc.disable()  # as `docfact check` analyses files (cli.py and its workers disable it)
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--case", action="append", choices=sorted(CASES))
    parser.add_argument("--steps", type=int, default=4, help="doublings after the first size")
    args = parser.parse_args(argv)
    failed = False
    for name in args.case or CASES:
        build, start = CASES[name]
        times = []
        for step in range(args.steps + 1):
            n = start << step
            seconds, size = timed(build, n)
            growth = seconds / times[-1][1] if times else None
            times.append((n, seconds))
            verdict = ""
            if growth is not None and times[-2][1] >= 0.05:  # below that, noise decides
                verdict = "ok" if growth <= TARGET_GROWTH else "TOO FAST A GROWTH"
                failed |= growth > TARGET_GROWTH
            if name == "ordinary_code" and size <= 2 << 20 and seconds > TARGET_2MB_S:
                verdict += " OVER 10 s"
                failed = True
            deadline = DEADLINES.get((name, n))
            if deadline is not None and seconds > deadline:
                verdict += f" OVER {deadline:g} s"
                failed = True
            print(
                f"{name:<24} n={n:<8} {size / 1024:9.0f} KiB {seconds:8.3f} s"
                + (f"  x{growth:.2f} {verdict}" if growth is not None else ""),
                flush=True,
            )
    print("PASS" if not failed else "FAIL")
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
