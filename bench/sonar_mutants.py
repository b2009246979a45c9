"""Does SONAR Correctness mean something on real code? Three kinds of regeneration, scored
the way ``docfact check --sonar`` scores them (``sonar_ssc.score_units``: the real sandbox,
the function run in its own module, a real SQLite cache, litellm) against a scripted
OpenAI-compatible model on 127.0.0.1 that writes, for each documented function or method
(told apart by the qualified name the prompt carries):

* faithful: the function's own code (its docstring left out): should score >= 0.99;
* raising: the same signature, a body that always raises RuntimeError: must never score
  high (issue 25: <= 2 % at >= 0.95);
* mutant: the function with one operator changed (a flipped comparison, ``+``/``-``
  swapped, an integer constant + 1; one site drawn per function with a fixed seed):
  should score < 0.99 (>= 85 % where the inputs are not vacuous), with DF304's
  counterexample naming a real difference.

Modules of the running Python's standard library are copied into a temporary project
(package ``stdcopy``), and real projects of the corpus (``--projects``, with their tests,
whose calls are inputs) into temporary folders, at run time, and removed afterwards;
nothing of them is kept. Printed per package (a stdlib module, or a project).

Usage: .venv/bin/python bench/sonar_mutants.py [--modules textwrap shlex ...]
           [--projects more-itertools cachetools ...] [--cases 100] [--limit N] [--seed 0]
"""

from __future__ import annotations

import argparse
import ast
import asyncio
import os
import random
import re
import shutil
import sys
import time
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent / "tests" / "llm"))

from scripted_server import ScriptedServer  # noqa: E402
from sonar_in_module import (  # noqa: E402
    WRONG_BODY,
    copied_project,
    copy_modules,
    regeneration_asked,
    scripted_settings,
    units_of,
    wrong_code,
)

from docfact.cache import Cache  # noqa: E402
from docfact.llm.client import LlmClient  # noqa: E402
from docfact.sonar_ssc import score_findings, score_units  # noqa: E402

MODULES = ("textwrap", "shlex", "colorsys", "fractions", "calendar", "html")
# real projects, read-only; copied at run time, never kept (DOCFACT_CORPUS names another
# folder of checkouts)
CORPUS = Path(os.environ.get("DOCFACT_CORPUS") or "/work/corpus")
if not CORPUS.is_dir() and Path("/work/corpus-git").is_dir():
    CORPUS = Path("/work/corpus-git")
PROJECTS = {  # corpus project -> its package folder
    "more-itertools": "more_itertools",
    "cachetools": "src/cachetools",
    "humanize": "src/humanize",
    "sortedcontainers": "src/sortedcontainers",
    "tinydb": "tinydb",
    "arrow": "arrow",
    # held out: never looked at while SONAR's inputs and comparison were tuned
    "marshmallow": "src/marshmallow",
}
MODES = ("faithful", "raising", "mutant")
RAISING_BODY = "    raise RuntimeError('docfact: always raises')\n"
FLIPPED = {
    ast.Lt: ast.GtE,
    ast.GtE: ast.Lt,
    ast.Gt: ast.LtE,
    ast.LtE: ast.Gt,
    ast.Eq: ast.NotEq,
    ast.NotEq: ast.Eq,
}


def raising_code(faithful: str) -> str:
    return wrong_code(faithful).removesuffix(WRONG_BODY) + RAISING_BODY


def mutant_code(faithful: str, rng: random.Random) -> str | None:
    """The function with one operator changed, or None when it has none to change."""
    tree = ast.parse(faithful)
    sites: list[tuple[str, ast.AST, int]] = []
    for node in ast.walk(tree.body[0]):
        if isinstance(node, ast.Compare):
            sites += [("compare", node, i) for i, op in enumerate(node.ops) if type(op) in FLIPPED]
        elif isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub)):
            sites.append(("plus_minus", node, 0))
        elif (
            isinstance(node, ast.Constant)
            and isinstance(node.value, int)
            and not isinstance(node.value, bool)
        ):
            sites.append(("constant", node, 0))
    if not sites:
        return None
    kind, node, index = rng.choice(sites)
    if kind == "compare":
        assert isinstance(node, ast.Compare)
        node.ops[index] = FLIPPED[type(node.ops[index])]()
    elif kind == "plus_minus":
        assert isinstance(node, ast.BinOp)
        node.op = ast.Sub() if isinstance(node.op, ast.Add) else ast.Add()
    else:
        assert isinstance(node, ast.Constant)
        node.value += 1
    return ast.unparse(tree) + "\n"


class Writer:
    """The scripted model: this mode's program for the function the prompt names."""

    def __init__(self) -> None:
        # (qualname, docstring) -> mode -> code
        self.programs: dict[tuple[str, str], dict[str, str | None]] = {}
        self.mode = "faithful"

    def __call__(self, body: dict, sample: int) -> str | None:
        asked = regeneration_asked(body)
        if isinstance(asked, tuple):
            user, docstring = asked
            named = re.match(r"Function: (\S+)", user)
            key = (named.group(1) if named else "", docstring)
            code = self.programs.get(key, {}).get(self.mode)
            return f"```python\n{code}```" if code else "I cannot write that."
        return asked


async def score_all(units, writer: Writer, server: ScriptedServer, cache_dir: Path, cases: int):
    settings = scripted_settings(server, cases)
    results = {}
    for mode in MODES:
        writer.mode = mode
        chosen = [(a, r) for a, r, _ in units if writer.programs[_key(r)].get(mode)]
        cache = Cache(cache_dir / mode)
        began = time.monotonic()
        scored = await score_units(
            chosen, settings, cache, LlmClient(settings.llm), sonar=True, ssc=False
        )
        cache.close()
        results[mode] = (scored, time.monotonic() - began)
    # Again, all from the cache: what a second `check --sonar` of the project costs.
    writer.mode = "faithful"
    cache = Cache(cache_dir / "faithful")
    began = time.monotonic()
    every = [(a, r) for a, r, _ in units]
    again = await score_units(
        every, settings, cache, LlmClient(settings.llm), sonar=True, ssc=False
    )
    cache.close()
    results["cached"] = (again, time.monotonic() - began)
    return results


def _key(unit_report) -> tuple[str, str]:
    return unit_report.unit.qualname, unit_report.docstring.text.value


def _executed(measure) -> bool:
    return measure.value is not None and not measure.approximate


def changed_line(programs: dict[str, str | None]) -> str:
    """The faithful line the mutant changed, and how: "a < b -> a >= b"."""
    before = ast.unparse(ast.parse(programs["faithful"] or "")).splitlines()
    after = (programs["mutant"] or "").splitlines()
    pair = next(((b.strip(), a.strip()) for b, a in zip(before, after) if b != a), ("", ""))
    if len(pair[0]) > 70:  # a long line: around where the two differ
        start = max(0, next((i for i, (x, y) in enumerate(zip(*pair)) if x != y), 0) - 30)
        pair = (f"...{pair[0][start : start + 60]}...", f"...{pair[1][start : start + 60]}...")
    return f"{pair[0]} -> {pair[1]}"


def report(units, labels: dict[str, str], results, programs, analysis_s: float) -> str:
    by_module: dict[str, Counter] = {}
    reasons: Counter[str] = Counter()
    rows: list[str] = []
    for _analysis, unit_report, _ in units:
        symbol = unit_report.symbol
        counts = by_module.setdefault(labels[symbol], Counter())
        good = results["faithful"][0][symbol].sonar.correctness
        counts["functions"] += 1
        counts["faithful >= .99"] += _executed(good) and good.value >= 0.99
        if not _executed(good):
            reasons[re.sub(r"'[^']*'|\"[^\"]*\"|\d+", "…", good.how)[:140]] += 1
            rows.append(f"  faithful not executed: {symbol}: {good.how[:300]}")
        elif good.value < 0.99:
            rows.append(f"  faithful below 0.99: {symbol}: {good.value:.2f} {good.how[:200]}")
        raising = results["raising"][0][symbol].sonar.correctness
        counts["raising >= .95"] += raising.value is not None and raising.value >= 0.95
        counts["raising 1.0"] += raising.value == 1.0
        if raising.value is not None and raising.value >= 0.95:
            rows.append(f"  raising scores {raising.value:.2f}: {symbol}: {raising.how}")
        mutant_scores = results["mutant"][0].get(symbol)
        if mutant_scores is None:
            continue
        counts["mutants"] += 1
        mutant = mutant_scores.sonar.correctness
        if not (_executed(good) and good.value >= 0.99 and _executed(mutant)):
            continue  # the inputs say nothing here: vacuous, or not executed
        counts["mutants measured"] += 1
        counts["mutants caught"] += mutant.value < 0.99
        counts["DF304"] += any(
            f.code == "DF304" for f in score_findings(unit_report, mutant_scores)
        )
        if mutant.value >= 0.99:
            change = changed_line(programs[_key(unit_report)])
            rows.append(f"  mutant missed: {symbol}: {change}: {mutant.how}")
    columns = (
        "functions",
        "faithful >= .99",
        "raising >= .95",
        "raising 1.0",
        "mutants",
        "mutants measured",
        "mutants caught",
        "DF304",
    )
    lines = [f"{'package':16} " + " ".join(f"{c:>16}" for c in columns)]
    totals: Counter = Counter()
    for name, counts in sorted(by_module.items()):
        totals.update(counts)
        lines.append(f"{name:16} " + " ".join(f"{counts[c]:16}" for c in columns))
    lines.append(f"{'all':16} " + " ".join(f"{totals[c]:16}" for c in columns))

    def share(part: str, whole: str) -> str:
        return f"{totals[part] / totals[whole]:.1%}" if totals[whole] else "n/a"

    lines.append(
        f"\nfaithful executed and >= 0.99: {share('faithful >= .99', 'functions')}"
        " (target >= 80 %);"
        f" always raising >= 0.95: {share('raising >= .95', 'functions')} (target <= 2 %),"
        f" at 1.0: {totals['raising 1.0']};"
        f" mutants caught (< 0.99) where measured: {share('mutants caught', 'mutants measured')}"
        f" (target >= 85 %), of all mutants: {share('mutants caught', 'mutants')};"
        f" DF304 on measured mutants: {share('DF304', 'mutants measured')}"
    )
    lines.append("time: " + ", ".join(f"{m} {results[m][1]:.0f} s" for m in MODES))
    again = results["cached"][0]
    missed = [symbol for symbol, scores in again.items() if not scores.sonar.cache_hit]
    lines.append(
        f"a fully cached pass: {results['cached'][1]:.1f} s, besides the analysis without a"
        f" model: {analysis_s:.1f} s; measured again (not kept): {len(missed)} of {len(again)}"
    )
    rows += [f"  not kept: {s}: {again[s].sonar.correctness.how[:200]}" for s in missed]
    if reasons:
        lines.append("faithful not executed, by reason:")
        lines += [f"  {count:3}  {why}" for why, count in reasons.most_common(15)]
    return "\n".join(lines + rows)


def copy_project(name: str, root: Path) -> tuple[list[Path], Path]:
    """The corpus project ``name`` copied to ``root`` (readable by the sandbox's user, which
    the corpus is not), with the version file its build would write: its package's module
    files, and the folder they are imported from."""
    source = CORPUS / name
    shutil.copytree(source, root, ignore=shutil.ignore_patterns(".git", "docs", "__pycache__"))
    for folder, _, _ in os.walk(root):
        os.chmod(folder, 0o755)
    package = root / PROJECTS[name]
    for line in (root / "pyproject.toml").read_text().splitlines():
        # a version file the build backend (hatch-vcs, setuptools-scm) writes on install
        written = re.fullmatch(r'\s*[\w.-]*version[-_]file\s*=\s*"([^"]+)"\s*', line)
        if written and not (root / written[1]).exists():
            (root / written[1]).write_text('__version__ = version = "0"\n')
    return sorted(package.rglob("*.py")), package.parent


def sampled(units: list, limit: int | None, rng: random.Random) -> list:
    """``limit`` of ``units`` drawn at random (all of them without a limit), in their order."""
    if limit is None or limit >= len(units):
        return units
    return [units[i] for i in sorted(rng.sample(range(len(units)), limit))]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--modules", nargs="*", default=list(MODULES))
    parser.add_argument(
        "--projects", nargs="*", default=[], choices=sorted(PROJECTS), help="corpus projects"
    )
    parser.add_argument("--cases", type=int, default=100, help="generated inputs per comparison")
    parser.add_argument("--limit", type=int, help="score N functions per package, drawn at random")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--only",
        nargs="*",
        help="score only the functions whose symbol contains one of these (the mutants are"
        " drawn as in the whole run, so a miss can be looked at again alone)",
    )
    arguments = parser.parse_args()
    rng = random.Random(arguments.seed)
    with copied_project(arguments.modules) as (work, root):
        began = time.monotonic()
        units, labels = [], {}
        if arguments.modules:
            found = units_of(copy_modules(arguments.modules, root), root)
            for unit in found:
                labels[unit[1].symbol] = unit[0].module_name.split(".")[1]
            units += sampled(found, arguments.limit, rng)
        for name in arguments.projects:
            found = units_of(*copy_project(name, work / "projects" / name))
            labels.update((unit[1].symbol, name) for unit in found)
            units += sampled(found, arguments.limit, rng)
        analysis_s = time.monotonic() - began
        writer = Writer()
        for _analysis, unit_report, faithful in units:
            writer.programs[_key(unit_report)] = {
                "faithful": faithful,
                "raising": raising_code(faithful),
                "mutant": mutant_code(faithful, rng),
            }
        if arguments.only:
            units = [u for u in units if any(part in u[1].symbol for part in arguments.only)]
        with ScriptedServer(responder=writer) as server:
            results = asyncio.run(score_all(units, writer, server, work / "cache", arguments.cases))
        print(report(units, labels, results, writer.programs, analysis_s))
    return 0


if __name__ == "__main__":
    sys.exit(main())
