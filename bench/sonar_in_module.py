"""SONAR Correctness on real functions: how often it is executed (not approximated), and
whether it tells a faithful regeneration from a wrong one.

Real modules of the running Python's standard library (textwrap, shlex, html, json) are
copied into a temporary project (package ``stdcopy``), and every documented function and
method is scored the way ``docfact check --sonar`` scores it (``sonar_ssc.score_units``: the
real sandbox, the function run in its own module, a real SQLite cache, litellm) against a
scripted OpenAI-compatible model on 127.0.0.1 that writes, for each docstring:

* faithful: the function's own code (its docstring left out): Correctness should be 1.0;
* wrong: the same signature with a body that returns a constant: Correctness should be
  low, and DF304 should fire.

Printed per module: documented functions, executed (FuncSim, not approximate), faithful
ones at 1.0, wrong ones with DF304, and the reasons of the rest. Targets (issue 15):
executed >= 80 %, faithful 1.0, wrong -> DF304.

Usage: .venv/bin/python bench/sonar_in_module.py [--modules textwrap shlex html json]
           [--cases 100] [--limit N]
"""

from __future__ import annotations

import argparse
import ast
import asyncio
import contextlib
import os
import re
import shutil
import sys
import sysconfig
import tempfile
import textwrap
import time
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests" / "llm"))

from scripted_server import ScriptedServer  # noqa: E402

from docfact.cache import Cache  # noqa: E402
from docfact.config import LlmSettings, Settings, SonarSettings  # noqa: E402
from docfact.engine import analyze  # noqa: E402
from docfact.llm.client import LlmClient  # noqa: E402
from docfact.sonar_ssc import scorable, score_findings, score_units  # noqa: E402

MODULES = ("textwrap", "shlex", "html", "json")
KEY_ENV = "DOCFACT_BENCH_KEY"
WRONG_BODY = "    return 'docfact: not what the function does'\n"


def copy_modules(names: list[str], root: Path) -> list[Path]:
    """The stdlib modules ``names`` copied into ``root/stdcopy``; their .py files."""
    stdlib = Path(sysconfig.get_paths()["stdlib"])
    package = root / "stdcopy"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (root / "pyproject.toml").write_text("[project]\nname = 'stdcopy'\n")
    files = []
    for name in names:
        if (stdlib / name).is_dir():
            shutil.copytree(
                stdlib / name, package / name, ignore=shutil.ignore_patterns("__pycache__")
            )
            files += sorted((package / name).glob("*.py"))
        else:
            shutil.copy(stdlib / f"{name}.py", package / f"{name}.py")
            files.append(package / f"{name}.py")
    for folder, _, _ in os.walk(root):  # readable by the sandbox's user
        os.chmod(folder, 0o755)
    return files


def code_without_docstring(text: str, node: ast.FunctionDef) -> str:
    """The function as written, dedented, its docstring left out: a faithful regeneration."""
    lines = text.splitlines(keepends=True)
    body = lines[node.lineno - 1 : node.end_lineno]  # from the def: the context has no decorators
    code = textwrap.dedent("".join(body))
    doc = node.body[0]
    if (
        isinstance(doc, ast.Expr)
        and isinstance(doc.value, ast.Constant)
        and isinstance(doc.value.value, str)
    ):
        start, end = doc.lineno - node.lineno, doc.end_lineno - node.lineno
        kept = code.splitlines(keepends=True)
        if len(node.body) == 1:  # nothing but the docstring: keep a body
            kept[start : end + 1] = [
                " " * (len(kept[start]) - len(kept[start].lstrip())) + "pass\n"
            ]
        else:
            del kept[start : end + 1]
        code = "".join(kept)
    return code


def wrong_code(faithful: str) -> str:
    """The same signature, a body that ignores the inputs."""
    tree = ast.parse(faithful)
    node = tree.body[0]
    signature_end = node.body[0].lineno - 1  # lines of the signature
    lines = faithful.splitlines(keepends=True)
    head = "".join(lines[:signature_end]) if signature_end else lines[0].split(":", 1)[0] + ":\n"
    return head + WRONG_BODY


class Writer:
    """The scripted model: the faithful or the wrong program for each (docstring, signature)."""

    def __init__(self):
        self.programs: dict[tuple[str, str], str] = {}
        self.mode = "faithful"

    def __call__(self, body: dict, sample: int) -> str | None:
        asked = regeneration_asked(body)
        if isinstance(asked, tuple):
            user, docstring = asked
            context = user.split("```python\n", 1)[1].rsplit("\n```", 1)[0]
            faithful = next(
                (
                    code
                    for (doc, name), code in self.programs.items()
                    if doc == docstring and name == _name(context)
                ),
                None,
            )
            if faithful is None:
                return "I cannot write that."
            return f"```python\n{faithful if self.mode == 'faithful' else wrong_code(faithful)}```"
        return asked


def regeneration_asked(body: dict) -> tuple[str, str] | str | None:
    """(the prompt, the docstring) when the model is asked to regenerate a function; the
    docstring itself when asked to shorten it (no shorter one: Conciseness regenerates
    nothing); else None."""
    system, user = body["messages"][0]["content"], body["messages"][-1]["content"]
    if system.startswith("You shorten"):
        return user
    if system.startswith("You are a Python programmer"):
        return user, user.split("Docstring:\n", 1)[1].split("\n\nSignature and imports:", 1)[0]
    return None


def _name(signature: str) -> str:
    found = re.search(r"def\s+(\w+)", signature)
    return found.group(1) if found else ""


def units_of(files: list[Path], import_root: Path):
    """(analysis, report, faithful code) of every documented function and method of the
    module files ``files``, named as imported from ``import_root``."""
    found = []
    for path in files:
        text = path.read_text()
        parts = path.relative_to(import_root).with_suffix("").parts
        module = ".".join(parts).removesuffix(".__init__")
        analysis = analyze(text, str(path), module, Settings())
        tree = ast.parse(text)
        nodes = {}
        for node in ast.walk(tree):
            if isinstance(node, ast.ClassDef):
                for child in node.body:
                    if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                        nodes[f"{node.name}.{child.name}"] = child
        for node in tree.body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                nodes[node.name] = node
        for report in analysis.units:
            node = nodes.get(report.unit.qualname)
            if scorable(report) and node is not None:
                found.append((analysis, report, code_without_docstring(text, node)))
    return found


def scripted_settings(server: ScriptedServer, cases: int) -> Settings:
    """Settings that reach the scripted model: one sample, one compression."""
    os.environ[KEY_ENV] = "scripted"  # the scripted server takes any key; litellm wants one
    llm = LlmSettings(
        model="openai/scripted",
        api_base=server.base_url,
        api_key_env=KEY_ENV,
        timeout_s=30,
        max_retries=1,
    )
    return Settings(
        llm=llm, sonar=SonarSettings(enabled=True, samples=1, compressions=1, fuzz_cases=cases)
    )


async def score_all(units, writer: Writer, server: ScriptedServer, cache_dir: Path, cases: int):
    for _analysis, report, faithful in units:
        writer.programs[(report.unit.docstring.value, report.unit.name)] = faithful
    settings = scripted_settings(server, cases)
    llm = settings.llm
    results = {}
    for mode in ("faithful", "wrong"):
        writer.mode = mode
        cache = Cache(cache_dir / mode)
        began = time.monotonic()
        scored = await score_units(
            [(a, r) for a, r, _ in units], settings, cache, LlmClient(llm), sonar=True, ssc=False
        )
        cache.close()
        results[mode] = (scored, time.monotonic() - began)
    return results


def report_table(units, results) -> str:
    faithful, faithful_s = results["faithful"]
    wrong, wrong_s = results["wrong"]
    rows = []
    reasons: Counter[str] = Counter()
    totals = Counter()
    by_module: dict[str, Counter] = {}
    for analysis, report, _ in units:
        name = analysis.module_name.split(".")[1]
        counts = by_module.setdefault(name, Counter())
        good = faithful[report.symbol].sonar.correctness
        bad_scores = wrong[report.symbol]
        bad = bad_scores.sonar.correctness
        executed = good.value is not None and not good.approximate
        counts["functions"] += 1
        counts["executed"] += executed
        counts["exact"] += executed and good.value == 1.0
        wrong_executed = bad.value is not None and not bad.approximate
        counts["wrong executed"] += wrong_executed
        counts["DF304"] += any(f.code == "DF304" for f in score_findings(report, bad_scores))
        if not executed:
            reasons[_reason(good.how)] += 1
        elif good.value != 1.0:
            rows.append(f"  not 1.0: {report.symbol}: {good.value:.3f} {good.how}")
        if wrong_executed and not any(
            f.code == "DF304" for f in score_findings(report, bad_scores)
        ):
            rows.append(f"  wrong without DF304: {report.symbol}: {bad.value:.3f} {bad.how}")
        if executed != wrong_executed:
            rows.append(f"  executed only in one mode: {report.symbol}: {good.how} / {bad.how}")
    lines = [
        f"{'module':10} {'functions':>9} {'executed':>9} {'faithful 1.0':>13} "
        f"{'wrong executed':>15} {'wrong DF304':>12}"
    ]
    for name, counts in sorted(by_module.items()):
        totals.update(counts)
        lines.append(_row(name, counts))
    lines.append(_row("all", totals))
    share = totals["executed"] / totals["functions"] if totals["functions"] else 0.0
    exact = totals["exact"] / totals["executed"] if totals["executed"] else 0.0
    caught = totals["DF304"] / totals["wrong executed"] if totals["wrong executed"] else 0.0
    lines.append(
        f"\nexecuted {share:.1%} of documented functions (target >= 80 %); faithful 1.0 in "
        f"{exact:.1%} of executed; wrong -> DF304 in {caught:.1%} of executed"
    )
    lines.append(f"time: faithful pass {faithful_s:.0f} s, wrong pass {wrong_s:.0f} s")
    if reasons:
        lines.append("not executed, by reason:")
        lines += [f"  {count:3}  {why}" for why, count in reasons.most_common()]
    return "\n".join(lines + rows)


def _row(name: str, counts: Counter) -> str:
    return (
        f"{name:10} {counts['functions']:9} {counts['executed']:9} {counts['exact']:13} "
        f"{counts['wrong executed']:15} {counts['DF304']:12}"
    )


def _reason(how: str) -> str:
    """The reason, with the names and values that make each one unique left out."""
    reason = re.sub(r"'[^']*'|\"[^\"]*\"|\d+", "…", how)
    return reason[:150]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--modules", nargs="+", default=list(MODULES))
    parser.add_argument("--cases", type=int, default=100, help="generated inputs per comparison")
    parser.add_argument("--limit", type=int, help="score only the first N functions")
    arguments = parser.parse_args()
    with copied_project(arguments.modules) as (work, root):
        units = units_of(copy_modules(arguments.modules, root), root)[: arguments.limit]
        writer = Writer()
        with ScriptedServer(responder=writer) as server:
            results = asyncio.run(score_all(units, writer, server, work / "cache", arguments.cases))
        print(report_table(units, results))
    return 0


@contextlib.contextmanager
def copied_project(modules: list[str]):
    """(a temporary folder, the project root in it), removed afterwards whatever happens."""
    work = Path(tempfile.mkdtemp(prefix="docfact-sonar-bench-"))
    try:
        os.chmod(work, 0o755)
        yield work, work / "project"
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
