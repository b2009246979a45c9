"""Agreement of docfact's SONAR scorers with human pairwise preferences (SONAR's RQ1).

Each row of the ground truth holds a function, two summaries of it, a dimension
(correctness, abstraction or conciseness) and the summary annotators judged better on it.
Both summaries are scored with docfact's own scorer (``sonar.score.sonar_scores``, the
call ``sonar_ssc._sonar`` makes on a unit: real model, real sandbox, real cache). A row
agrees when the preferred summary scores strictly higher on the row's dimension; ties and
rows where a score could not be measured are counted apart, never as agreement.

Agreement % = agreeing rows / measured rows (ties included in the denominator); the
"of all" column divides by every row, unmeasurable ones included, as the paper's
percentage of pairs does. Printed next to the paper's numbers (SONAR 96/87/87 %,
LLM-only scorers 51-60/76-77/62-79 %).

The code of a row is a standalone module. The scored function is the one the summaries
name, else the one no other function calls, else the first. When the module holds more
than imports and that function (helpers, constants, classes), the whole module is the
unit's source, so the original runs with what it needs, as SONAR's reference code runs it.

Needs a model (litellm string); every result is cached in docfact's cache, so a rerun
makes no model call. Results also go to bench/results/sonar_agreement.txt.

Usage: .venv/bin/python bench/sonar_agreement.py --model openai/gpt-4o-mini \
           --api-key-env OPENAI_API_KEY [--limit N] [--dimension correctness] [--jobs 2]
"""

from __future__ import annotations

import argparse
import ast
import asyncio
import csv
import math
import os
import re
import sys
import time
from collections.abc import Awaitable, Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from docfact.cache import Cache
from docfact.config import LlmSettings, SonarSettings
from docfact.llm.client import LlmClient
from docfact.sonar.regenerate import build_context
from docfact.sonar.score import sonar_scores

HERE = Path(__file__).resolve().parent
DEFAULT_DATA = Path(
    os.environ.get("DOCFACT_SONAR_RQ1", "/work/shared/data/sonar-rq1-groundtruth.csv")
)
DEFAULT_OUTPUT = HERE / "results" / "sonar_agreement.txt"
DIMENSIONS = ("correctness", "abstraction", "conciseness")
PAPER_SONAR = {
    "correctness": "96 %",
    "abstraction": "87 %",
    "conciseness": "87 %",
    "overall": "90 %",
}
PAPER_LLM_ONLY = {
    "correctness": "51-60 %",
    "abstraction": "76-77 %",
    "conciseness": "62-79 %",
    "overall": "<= 72 %",
}
AGREE, DISAGREE, TIE, UNMEASURABLE = "agree", "disagree", "tie", "unmeasurable"
TIE_TOLERANCE = 1e-9  # scores closer than this are the same score
USAGE = """\
sonar_agreement: no model configured. SONAR regenerates code from each summary with a model,
so this benchmark needs one (a litellm model string), for example:

  .venv/bin/python bench/sonar_agreement.py --model openai/gpt-4o-mini --api-key-env OPENAI_API_KEY
  .venv/bin/python bench/sonar_agreement.py --model ollama_chat/qwen2.5-coder:7b \\
      --api-base http://localhost:11434

Try a few rows first (--limit 2); results are cached (--cache-dir), so reruns are cheap."""


# --- rows and the function they are about ----------------------------------------------


@dataclass(frozen=True)
class Row:
    id_a: str
    id_b: str
    dimension: str
    code: str
    summary_a: str
    summary_b: str
    ground_truth: str  # "A" or "B"


@dataclass(frozen=True)
class Subject:
    """What ``sonar_scores`` needs of a row's code."""

    function: str
    unit_source: str
    context: str


def load_rows(path: Path) -> list[Row]:
    with open(path, newline="", encoding="utf-8") as handle:
        return [
            Row(
                r["id_a"],
                r["id_b"],
                r["dimension"].strip(),
                r["code"],
                r["summary_a"].strip(),
                r["summary_b"].strip(),
                r["ground_truth"].strip().upper(),
            )
            for r in csv.DictReader(handle)
        ]


def select_rows(rows: Iterable[Row], dimensions: Sequence[str], limit: int | None) -> list[Row]:
    """The rows of ``dimensions``, at most ``limit`` of each, in file order."""
    taken: dict[str, int] = {}
    chosen = []
    for row in rows:
        if row.dimension in dimensions and (limit is None or taken.get(row.dimension, 0) < limit):
            taken[row.dimension] = taken.get(row.dimension, 0) + 1
            chosen.append(row)
    return chosen


def module_imports(tree: ast.Module) -> list[tuple[str, str]]:
    """(local name, dotted target) of every import, in the shape of docfact's Module.imports."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                root = alias.name.split(".")[0]
                found.append((alias.asname, alias.name) if alias.asname else (root, root))
        elif isinstance(node, ast.ImportFrom):
            prefix = "." * node.level + (node.module or "")
            for alias in node.names:
                if alias.name == "*":  # binds nothing that can be named
                    continue
                target = (
                    prefix + alias.name
                    if prefix.endswith(".") or not prefix
                    else f"{prefix}.{alias.name}"
                )
                found.append((alias.asname or alias.name, target))
    return found


def _names_used(node: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}


def choose_function(tree: ast.Module, summaries: Sequence[str]):
    """The top-level function the summaries describe: one they name that no other function
    calls, else any uncalled one, else one they name, else the first; None without any."""
    defs = [n for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
    text = "\n".join(summaries)
    named = [d for d in defs if re.search(rf"(?<![\w.]){re.escape(d.name)}(?!\w)", text)]
    entries = [
        d for d in defs if not any(d.name in _names_used(other) for other in defs if other is not d)
    ]
    for group in ([d for d in named if d in entries], entries, named, defs):
        if group:
            return group[0]
    return None


def subject_of(code: str, summaries: Sequence[str]) -> Subject | str:
    """The row's function ready for ``sonar_scores``, or why it cannot be scored."""
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError) as error:
        return f"the code does not parse ({error})"
    node = choose_function(tree, summaries)
    if node is None:
        return "the code has no top-level function"
    lines = code.splitlines()
    first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
    source = "\n".join(lines[first - 1 : node.end_lineno]) + "\n"
    context = build_context(source, module_imports(tree))
    if context is None:
        return f"the source of {node.name} does not parse"
    # Helpers, constants or classes beside the function: the original needs them to run.
    others = [
        n for n in tree.body if n is not node and not isinstance(n, (ast.Import, ast.ImportFrom))
    ]
    return Subject(node.name, code if others else source, context)


# --- scoring a row -----------------------------------------------------------------------


# (subject, summary) -> a result with one Measure per dimension (sonar.score.SonarResult)
Scorer = Callable[[Subject, str], Awaitable[object]]


@dataclass(frozen=True)
class Outcome:
    row: Row
    verdict: str  # AGREE, DISAGREE, TIE or UNMEASURABLE
    score_a: float | None = None
    score_b: float | None = None
    approximate: bool = False  # a score is a proxy (structural similarity, not executed)
    note: str = ""  # why it is not measurable


def verdict(score_a: float | None, score_b: float | None, ground_truth: str) -> str:
    if score_a is None or score_b is None:
        return UNMEASURABLE
    if math.isclose(score_a, score_b, rel_tol=0.0, abs_tol=TIE_TOLERANCE):
        return TIE
    return AGREE if (score_a > score_b) == (ground_truth == "A") else DISAGREE


async def score_row(row: Row, scorer: Scorer) -> Outcome:
    """Both summaries of ``row`` scored on its dimension, and whether that ranks them as
    the annotators did. A failure of one row is that row's outcome, not the run's end."""
    subject = subject_of(row.code, (row.summary_a, row.summary_b))
    if isinstance(subject, str):
        return Outcome(row, UNMEASURABLE, note=subject)
    try:
        results = await asyncio.gather(
            scorer(subject, row.summary_a), scorer(subject, row.summary_b)
        )
    except Exception as error:  # an unexpected failure: report it with the row
        return Outcome(row, UNMEASURABLE, note=f"{type(error).__name__}: {error}")
    a, b = (getattr(result, row.dimension) for result in results)
    notes = [f"{side}: {m.how}" for side, m in (("A", a), ("B", b)) if m.value is None]
    return Outcome(
        row,
        verdict(a.value, b.value, row.ground_truth),
        a.value,
        b.value,
        a.approximate or b.approximate,
        "; ".join(notes),
    )


async def agreement(
    rows: Sequence[Row], scorer: Scorer, progress: Callable[[int, Outcome], None] | None = None
) -> list[Outcome]:
    """The outcome of every row, in the order of ``rows``."""

    async def one(index: int, row: Row) -> Outcome:
        outcome = await score_row(row, scorer)
        if progress is not None:
            progress(index, outcome)
        return outcome

    return list(await asyncio.gather(*(one(i, row) for i, row in enumerate(rows))))


def sonar_scorer(client: LlmClient, settings: SonarSettings, cache, jobs: int) -> Scorer:
    """docfact's scorer, at most ``jobs`` summaries at once (sandbox runs are CPU-bound);
    a summary met again (rows share pairs across dimensions) is scored once."""
    limit = asyncio.Semaphore(max(1, jobs))
    running: dict[tuple[str, ...], asyncio.Task] = {}

    async def measured(subject: Subject, summary: str):
        async with limit:
            return await sonar_scores(
                subject.unit_source,
                subject.function,
                summary,
                subject.context,
                client,
                settings,
                cache,
            )

    async def score(subject: Subject, summary: str):
        key = (subject.unit_source, subject.function, subject.context, summary)
        if key not in running:
            running[key] = asyncio.ensure_future(measured(subject, summary))
        return await running[key]

    return score


# --- counting and the report -------------------------------------------------------------


@dataclass
class Tally:
    rows: int = 0
    agree: int = 0
    disagree: int = 0
    ties: int = 0
    unmeasurable: int = 0
    approximate: int = 0  # measured rows where a score was a proxy

    @property
    def measured(self) -> int:
        return self.agree + self.disagree + self.ties

    def add(self, outcome: Outcome) -> None:
        self.rows += 1
        if outcome.verdict == AGREE:
            self.agree += 1
        elif outcome.verdict == DISAGREE:
            self.disagree += 1
        elif outcome.verdict == TIE:
            self.ties += 1
        else:
            self.unmeasurable += 1
        if outcome.verdict != UNMEASURABLE and outcome.approximate:
            self.approximate += 1


def tally(outcomes: Iterable[Outcome]) -> dict[str, Tally]:
    """Counts per dimension (in DIMENSIONS order, those present) and "overall"."""
    found: dict[str, Tally] = {}
    overall = Tally()
    for outcome in outcomes:
        found.setdefault(outcome.row.dimension, Tally()).add(outcome)
        overall.add(outcome)
    ordered = {d: found[d] for d in DIMENSIONS if d in found}
    ordered.update({d: t for d, t in found.items() if d not in ordered})
    ordered["overall"] = overall
    return ordered


def _percent(part: int, whole: int) -> str:
    return f"{100 * part / whole:.1f} %" if whole else "-"


def table(tallies: dict[str, Tally]) -> str:
    head = (
        f"{'dimension':<12} {'rows':>5} {'measured':>8} {'agree':>6} {'agreement':>9} "
        f"{'of all':>7} {'ties':>5} {'not meas.':>9} {'approx':>6}   {'SONAR paper':>11} "
        f"{'LLM-only paper':>14}"
    )
    lines = [head, "-" * len(head)]
    for name, t in tallies.items():
        lines.append(
            f"{name:<12} {t.rows:>5} {t.measured:>8} {t.agree:>6} "
            f"{_percent(t.agree, t.measured):>9} {_percent(t.agree, t.rows):>7} {t.ties:>5} "
            f"{t.unmeasurable:>9} {t.approximate:>6}   {PAPER_SONAR.get(name, '-'):>11} "
            f"{PAPER_LLM_ONLY.get(name, '-'):>14}"
        )
    lines.append(
        "agreement = agree / measured (ties count as not agreeing); of all = agree / rows; "
        "approx = measured rows with a proxy score"
    )
    return "\n".join(lines)


def _value(score: float | None) -> str:
    return "-" if score is None else f"{score:.3f}"


def row_line(outcome: Outcome) -> str:
    row = outcome.row
    line = (
        f"{row.dimension:<12} {outcome.verdict:<12} A={_value(outcome.score_a):<6} "
        f"B={_value(outcome.score_b):<6} human={row.ground_truth} "
        f"{'approx ' if outcome.approximate else ''}{row.id_a} vs {row.id_b}"
    )
    return f"{line}  ({outcome.note})" if outcome.note else line


# --- command line ------------------------------------------------------------------------


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--model", help="litellm model string (the generator and compressor)")
    p.add_argument("--api-base", help="the server's base URL, for a local or proxy server")
    p.add_argument("--api-key-env", help="NAME of the environment variable holding the API key")
    p.add_argument(
        "--generator",
        action="append",
        default=[],
        help="a model of the Abstraction pool (repeat; default: --model only)",
    )
    p.add_argument(
        "--dimension",
        action="append",
        choices=DIMENSIONS,
        help="only this dimension (repeat for several; default all)",
    )
    p.add_argument("--limit", type=int, help="at most N rows per dimension")
    defaults = SonarSettings()
    p.add_argument("--samples", type=int, default=defaults.samples, help="Abstraction pool size")
    p.add_argument("--compressions", type=int, default=defaults.compressions)
    p.add_argument("--fuzz-cases", type=int, default=defaults.fuzz_cases)
    p.add_argument(
        "--time-limit",
        type=float,
        default=defaults.time_limit_s,
        help="sandbox seconds per comparison",
    )
    p.add_argument("--cache-dir", type=Path, help="docfact cache folder (default docfact's own)")
    p.add_argument("--jobs", type=int, default=2, help="summaries scored at once")
    p.add_argument("--data", type=Path, default=DEFAULT_DATA, help="the ground-truth CSV")
    p.add_argument(
        "--output", type=Path, default=DEFAULT_OUTPUT, help="where the report is written"
    )
    p.add_argument("--quiet", action="store_true", help="no per-row progress on stderr")
    return p


def _usage_error(args) -> str | None:
    """Why the run cannot start, or None."""
    if not args.model:
        return USAGE
    if args.api_key_env and not os.environ.get(args.api_key_env):
        return f"sonar_agreement: --api-key-env names {args.api_key_env}, which is not set"
    if not args.data.is_file():
        return f"sonar_agreement: no ground truth at {args.data} (give --data PATH)"
    if (args.limit is not None and args.limit < 1) or args.jobs < 1 or args.samples < 1:
        return "sonar_agreement: --limit, --jobs and --samples must be at least 1"
    return None


def _settings(args) -> tuple[LlmSettings, SonarSettings]:
    llm = LlmSettings(
        model=args.model,
        api_base=args.api_base,
        api_key_env=args.api_key_env,
        max_concurrency=max(4, 2 * args.jobs),
    )
    sonar = SonarSettings(
        enabled=True,
        generators=tuple(args.generator),
        samples=args.samples,
        compressions=args.compressions,
        fuzz_cases=args.fuzz_cases,
        time_limit_s=args.time_limit,
    )
    return llm, sonar


def _progress(total: int, quiet: bool) -> Callable[[int, Outcome], None]:
    done = 0

    def show(index: int, outcome: Outcome) -> None:
        nonlocal done
        done += 1
        if not quiet:
            print(f"[{done}/{total}] {row_line(outcome)}", file=sys.stderr, flush=True)

    return show


async def run(args) -> tuple[list[Outcome], str]:
    """(outcomes, the report text) for the parsed command line."""
    rows = select_rows(load_rows(args.data), args.dimension or DIMENSIONS, args.limit)
    llm, sonar = _settings(args)
    client = LlmClient(llm)
    cache = Cache(args.cache_dir) if args.cache_dir else Cache()
    started = time.monotonic()
    outcomes = await agreement(
        rows, sonar_scorer(client, sonar, cache, args.jobs), _progress(len(rows), args.quiet)
    )
    stats = client.stats
    cost = f", ${stats.cost:.4f}" if stats.cost is not None else ""
    header = [
        f"SONAR agreement with human pairwise preferences ({args.data.name}, {len(rows)} rows)",
        f"model {llm.model}"
        + (f" at {llm.api_base}" if llm.api_base else "")
        + f"; pool {', '.join(sonar.generators or (llm.model,))}; samples {sonar.samples}, "
        f"compressions {sonar.compressions}, fuzz cases {sonar.fuzz_cases}",
        f"{time.monotonic() - started:.0f} s; {stats.calls} model calls "
        f"({stats.failures} failed{cost}); cache {cache.folder}",
    ]
    report = "\n".join([*header, "", table(tally(outcomes))])
    return outcomes, report


def write_results(path: Path, report: str, outcomes: Sequence[Outcome]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(
        "\n".join([report, "", "rows:", *map(row_line, outcomes)]) + "\n", encoding="utf-8"
    )


def main(argv: Sequence[str] | None = None) -> int:
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    args = parser().parse_args(argv)
    problem = _usage_error(args)
    if problem:
        print(problem, file=sys.stderr)
        return 2
    outcomes, report = asyncio.run(run(args))
    print(report)
    write_results(args.output, report, outcomes)
    print(f"\nwritten to {args.output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
