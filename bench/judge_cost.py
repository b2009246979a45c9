"""Cost of the ReFEree judge: the batched protocol against the paper's, on stdlib docstrings.

Takes real documented functions and methods of this Python's standard library (a few per
file, tests skipped), analyses them with docfact's engine, and judges them through the
real client against the scripted OpenAI-compatible server of tests/llm (started
in-process, on 127.0.0.1). Token counts are the usage that server reports: one token per
four characters of every message and of the response schema, the usual rule of thumb for
BPE tokenizers, fair when comparing two protocols on the same text. Cost is those tokens
at the list price of a small hosted model, from litellm's local price map.

Evidence is the 1-hop neighbourhood from docfact's project graph, built over the files the
docstrings come from; both protocols get the same blocks.

Runs, each with its own empty cache unless said:
  (a) batched, votes 1;      (b) batched again, same cache (must make 0 calls);
  (c) paper, votes 1;        (d) batched, votes 3, a server that ignores ``n``.

Targets: batched <= 1 call per docstring x votes; batched prompt tokens <= 35% of paper's;
a second run makes 0 calls. Exit status 1 when a target is missed.

Usage: .venv/bin/python bench/judge_cost.py [--docstrings N] [--per-file K]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import sysconfig
import tempfile
from dataclasses import dataclass, replace
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests" / "llm"))  # the scripted server

from scripted_server import ScriptedServer  # noqa: E402

from docfact.analysis import UnitAnalysis  # noqa: E402
from docfact.cache import Cache  # noqa: E402
from docfact.config import LlmSettings, Settings  # noqa: E402
from docfact.engine import analyze, facts_of  # noqa: E402
from docfact.graph.build import ProjectGraph  # noqa: E402
from docfact.llm import LlmClient, judge_units  # noqa: E402
from docfact.model import Evidence  # noqa: E402
from docfact.source.files import iter_python_files, module_name_for  # noqa: E402

RESULTS = HERE / "results"
KEY_ENV = "DOCFACT_BENCH_FAKE_KEY"
PRICED_MODEL = "openai/gpt-4o-mini"  # only its name and price are used: the server is scripted
SKIPPED_DIRS = {"test", "tests", "idle_test", "site-packages"}


@dataclass
class Sample:
    """The judged units of one file."""

    text: str
    reports: list[UnitAnalysis]
    evidence: dict[str, tuple[Evidence, ...]]  # symbol -> blocks


@dataclass
class Run:
    name: str
    docstrings: int
    sentence_counts: list[int]  # per docstring
    requests: int
    max_calls_per_docstring: int
    prompt_tokens: list[int]  # per docstring
    missing: int
    cost: float | None  # USD at the model's list price, from litellm's local price map


def collect(root: Path, wanted: int, per_file: int) -> list[Sample]:
    samples, project, total = [], ProjectGraph(), 0
    for path in sorted(iter_python_files(root)):
        if total >= wanted:
            break
        if SKIPPED_DIRS & set(path.relative_to(root).parts):
            continue
        text = path.read_text(encoding="utf-8", errors="replace")
        analysis = analyze(text, str(path), module_name_for(path), Settings())
        project.set_file(facts_of(analysis, is_package=path.name == "__init__.py"))
        chosen = [
            r for r in analysis.units if r.unit.kind in ("function", "method") and r.segments
        ][: min(per_file, wanted - total)]
        if chosen:
            samples.append(Sample(text, chosen, {}))
            total += len(chosen)
    for sample in samples:  # once every file is in the graph
        sample.evidence = {r.symbol: tuple(project.evidence(r.symbol)) for r in sample.reports}
    return samples


async def judge_all(
    name: str, samples: list[Sample], server: ScriptedServer, settings: LlmSettings, cache: Cache
) -> Run:
    """Judge every docstring, one at a time, so each one's tokens can be told apart."""
    client = LlmClient(settings)
    requests_before = len(server.requests)
    results, tokens = [], []
    for sample in samples:
        for report in sample.reports:
            before = server.prompt_tokens
            results += await judge_units(
                [report],
                sample.text,
                lambda r, evidence=sample.evidence: evidence[r.symbol],
                settings,
                cache,
                client,
            )
            tokens.append(server.prompt_tokens - before)
    return Run(
        name=name,
        docstrings=len(results),
        sentence_counts=[len(r.segments) for r in results],
        requests=len(server.requests) - requests_before,
        max_calls_per_docstring=max(r.calls for r in results),
        prompt_tokens=tokens,
        missing=sum(r.missing for r in results),
        cost=client.stats.cost,
    )


async def measure(samples: list[Sample], folder: Path) -> list[Run]:
    os.environ[KEY_ENV] = "sk-bench-not-a-real-key"
    runs = []
    with ScriptedServer() as server:
        base = LlmSettings(
            model=PRICED_MODEL,
            api_base=server.base_url,
            api_key_env=KEY_ENV,
            timeout_s=30,
            max_concurrency=16,
        )
        batched = replace(base, protocol="batched")
        paper = replace(base, protocol="paper")
        cache = Cache(folder / "batched")
        runs.append(await judge_all("batched", samples, server, batched, cache))
        runs.append(await judge_all("batched, second run", samples, server, batched, cache))
        runs.append(await judge_all("paper", samples, server, paper, Cache(folder / "paper")))
    with ScriptedServer(honour_n=False) as server:
        voting = replace(batched, api_base=server.base_url, votes=3)
        runs.append(
            await judge_all(
                "batched, votes 3, n ignored", samples, server, voting, Cache(folder / "votes")
            )
        )
    return runs


def report(runs: list[Run]) -> tuple[str, bool]:
    batched, second, paper, voting = runs
    lines = [
        f"{'run':<30} {'docstrings':>10} {'sentences':>9} {'requests':>8} {'req/doc':>7} "
        f"{'max/doc':>7} {'prompt tok':>10} {'tok/doc':>7} {'missing':>7} {'$/doc':>9}"
    ]
    for run in runs:
        total = sum(run.prompt_tokens)
        lines.append(
            f"{run.name:<30} {run.docstrings:>10} {sum(run.sentence_counts):>9} {run.requests:>8} "
            f"{run.requests / run.docstrings:>7.2f} {run.max_calls_per_docstring:>7} "
            f"{total:>10} {total / run.docstrings:>7.0f} {run.missing:>7} "
            f"{(run.cost or 0) / run.docstrings:>9.6f}"
        )
    ratio = sum(batched.prompt_tokens) / sum(paper.prompt_tokens)
    per_docstring = sorted(b / p for b, p in zip(batched.prompt_tokens, paper.prompt_tokens))
    one_sentence = [
        b / p
        for b, p, r in zip(batched.prompt_tokens, paper.prompt_tokens, paper.sentence_counts)
        if r == 1
    ]
    lines += [
        "",
        "batched / paper prompt tokens per docstring: "
        f"median {statistics.median(per_docstring):.1%}, worst {per_docstring[-1]:.1%}; "
        f"one-sentence docstrings ({len(one_sentence)}): "
        f"median {statistics.median(one_sentence) if one_sentence else float('nan'):.1%}",
        f"$/doc at the list price of {PRICED_MODEL}, for the tokens the scripted server counted",
    ]
    targets = [
        (
            f"batched calls per docstring <= 1 x votes (max {batched.max_calls_per_docstring}, "
            f"with votes 3: max {voting.max_calls_per_docstring})",
            batched.max_calls_per_docstring <= 1 and voting.max_calls_per_docstring <= 3,
        ),
        (f"batched prompt tokens = {ratio:.1%} of paper's (target <= 35%)", ratio <= 0.35),
        (f"second run makes 0 calls ({second.requests})", second.requests == 0),
        (
            f"every run answered every verdict (missing {sum(r.missing for r in runs)})",
            all(r.missing == 0 for r in runs),
        ),
    ]
    lines.append("")
    lines += [f"{'PASS' if ok else 'FAIL'}  {what}" for what, ok in targets]
    return "\n".join(lines), all(ok for _, ok in targets)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--root",
        type=Path,
        default=Path(sysconfig.get_paths()["stdlib"]),
        help="tree to take docstrings from (default: this Python's standard library)",
    )
    parser.add_argument("--docstrings", type=int, default=250, help="how many docstrings to judge")
    parser.add_argument("--per-file", type=int, default=3, help="at most this many per file")
    arguments = parser.parse_args(argv)
    samples = collect(arguments.root.resolve(), arguments.docstrings, arguments.per_file)
    with tempfile.TemporaryDirectory(prefix="docfact-judge-cost-") as folder:
        runs = asyncio.run(measure(samples, Path(folder)))
    text, ok = report(runs)
    print(text)
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "judge_cost.txt").write_text(text + "\n")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
