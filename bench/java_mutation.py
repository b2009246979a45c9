"""Recall and precision of docfact on Java, measured by mutating the JDK's own Javadoc.

Corpus: the top-level packages java.lang, java.util and java.io of java.base, from the
src.zip of a JDK on this machine (the first that exists of --src-zip, then
/usr/lib/jvm/*/lib/src.zip); the benchmark says so and stops when there is none. The
files are copied into a temporary folder, which docfact checks as one project.

Recall. Documented methods are found with tree-sitter queries of this script's own (not
docfact's extractor). Four kinds of mutation inject one error into one method's Javadoc,
always without moving a line:

  param_renamed     a ``@param name`` renamed to a name no parameter has   -> DF101
  return_on_void    ``@return the result`` on a void method                 -> DF207
  throws_checked    ``@throws java.io.IOException`` on a method whose
                    throws clause does not declare it                      -> DF303
  throws_unchecked  ``@throws IllegalStateException`` on a method that
                    neither throws, declares nor mentions it               -> DF303

The tags are written over a blank comment line (the one before the first block tag, or
the last one when there are no tags). throws_unchecked is reported apart from the overall
recall: docfact says nothing, on purpose, when a method calls anything outside the
project or on a value of unknown type, since any JDK method may throw an unchecked
exception. A mutation is detected when a finding of the expected code starts on the
mutated line; mutations on a line where the unmutated corpus already has a finding are
not counted. Mutations of different methods are independent, so one docfact run checks
a whole round of them (at most one per method per round).

Precision. The findings of the unmutated run, per 100 Javadoc comments (docfact's
units_checked), each listed in the report for review.

Usage: .venv/bin/python bench/java_mutation.py [--per-kind N] [--seed S] [--src-zip PATH]
The full report goes to bench/results/java_mutation.txt (and .json).
"""

from __future__ import annotations

import argparse
import glob
import json
import random
import re
import subprocess
import sys
import tempfile
import time
import zipfile
from collections import Counter, defaultdict
from dataclasses import dataclass
from pathlib import Path

import tree_sitter
import tree_sitter_java

HERE = Path(__file__).resolve().parent
RESULTS = HERE / "results"
DEFAULT_ZIP = "/usr/lib/jvm/java-17-openjdk-amd64/lib/src.zip"
PACKAGES = ("java.base/java/lang/", "java.base/java/util/", "java.base/java/io/")
KINDS = {
    "param_renamed": "DF101",
    "return_on_void": "DF207",
    "throws_checked": "DF303",
    "throws_unchecked": "DF303",
}
INFORMATIONAL = frozenset({"throws_unchecked"})
TARGET_RECALL = 0.9
TARGET_PER_100 = 1.0
_BLANK = re.compile(r"^([ \t]*\*)[ \t]*$")
_TAG_LINE = re.compile(r"^[ \t]*\*?[ \t]*@(\w+)(?:[ \t]+(<?\w+>?))?")


@dataclass(frozen=True)
class Method:
    rel: str
    name: str
    parameters: frozenset[str]
    returns_void: bool
    has_throws_clause: bool
    text: str  # the declaration, body included
    comment_lines: tuple[tuple[int, str], ...]  # (1-based line, text) of its Javadoc


@dataclass(frozen=True)
class Mutation:
    kind: str
    rel: str
    method: str
    line: int  # 1-based
    new_text: str


def find_src_zip(requested: str | None) -> Path | None:
    candidates = [requested] if requested else []
    candidates += [DEFAULT_ZIP, *sorted(glob.glob("/usr/lib/jvm/*/lib/src.zip"))]
    return next((Path(c) for c in candidates if c and Path(c).is_file()), None)


def extract(src_zip: Path, folder: Path) -> list[str]:
    """The corpus's .java files, written under ``folder``; their relative paths."""
    found = []
    with zipfile.ZipFile(src_zip) as archive:
        for name in archive.namelist():
            package = next((p for p in PACKAGES if name.startswith(p)), None)
            if package and name.endswith(".java") and "/" not in name[len(package) :]:
                target = folder / name
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(archive.read(name))
                found.append(name)
    return sorted(found)


def documented_methods(folder: Path, rels: list[str]) -> list[Method]:
    language = tree_sitter.Language(tree_sitter_java.language())
    parser = tree_sitter.Parser(language)
    query = tree_sitter.Query(language, "(method_declaration) @m (constructor_declaration) @m")
    methods = []
    for rel in rels:
        data = (folder / rel).read_bytes()
        lines = data.decode("utf-8", "replace").split("\n")
        tree = parser.parse(data)
        for node in tree_sitter.QueryCursor(query).captures(tree.root_node).get("m", ()):
            comment = node.prev_sibling
            if (
                comment is None
                or comment.type != "block_comment"
                or not comment.text.startswith(b"/**")
            ):
                continue
            name = node.child_by_field_name("name")
            params = node.child_by_field_name("parameters")
            names = {
                n.text.decode()
                for p in (params.named_children if params else ())
                for n in [p.child_by_field_name("name") or _declarator_name(p)]
                if n is not None
            }
            returns = node.child_by_field_name("type")
            first, last = comment.start_point[0], comment.end_point[0]
            methods.append(
                Method(
                    rel=rel,
                    name=name.text.decode() if name else "?",
                    parameters=frozenset(names),
                    returns_void=returns is not None and returns.type == "void_type",
                    has_throws_clause=any(c.type == "throws" for c in node.children),
                    text=node.text.decode("utf-8", "replace"),
                    comment_lines=tuple((k + 1, lines[k]) for k in range(first, last + 1)),
                )
            )
    return methods


def _declarator_name(parameter):
    declarator = next(
        (c for c in parameter.named_children if c.type == "variable_declarator"), None
    )
    return declarator.child_by_field_name("name") if declarator is not None else None


def mutations_of(method: Method) -> list[Mutation]:
    """Every mutation that applies to ``method`` (at most one per kind)."""
    found = []
    tags = [
        (line, m.group(1), m.group(2))
        for line, text in method.comment_lines[1:]
        if (m := _TAG_LINE.match(text))
    ]
    params = [
        (line, name)
        for line, tag, name in tags
        if tag == "param" and name and name in method.parameters
    ]
    if params:
        line, name = params[0]
        text = dict(method.comment_lines)[line]
        renamed = next(
            n for n in (name + "s", name + "Value", name + "Old") if n not in method.parameters
        )
        found.append(
            Mutation(
                "param_renamed",
                method.rel,
                method.name,
                line,
                re.sub(rf"(@param\s+){re.escape(name)}\b", rf"\g<1>{renamed}", text, count=1),
            )
        )
    slot = _blank_slot(method, tags)
    if slot is None:
        return found
    line, prefix = slot
    documented = {tag for _, tag, _ in tags}
    mentioned_exceptions = {
        name for _, tag, name in tags if tag in ("throws", "exception") and name
    }
    if method.returns_void and "return" not in documented:
        found.append(
            Mutation(
                "return_on_void", method.rel, method.name, line, f"{prefix} @return the result"
            )
        )
    if not method.has_throws_clause and "IOException" not in mentioned_exceptions:
        found.append(
            Mutation(
                "throws_checked",
                method.rel,
                method.name,
                line,
                f"{prefix} @throws java.io.IOException if an I/O error occurs",
            )
        )
    body = method.text[method.text.find("{") :] if "{" in method.text else ""
    if (
        body
        and not re.search(r"IllegalStateException|RuntimeException|Exception\b", body)
        and not method.has_throws_clause
    ):
        found.append(
            Mutation(
                "throws_unchecked",
                method.rel,
                method.name,
                line,
                f"{prefix} @throws IllegalStateException if the state is invalid",
            )
        )
    return found


def _blank_slot(method: Method, tags) -> tuple[int, str] | None:
    """(line, "   *") of the blank comment line to write a tag over: the one just
    before the first block tag, else the last one; None when there is none (or it may
    lie inside a <pre> block)."""
    comment = "\n".join(text for _, text in method.comment_lines)
    if "<pre" in comment or "{@snippet" in comment:
        return None
    blanks = [
        (line, m.group(1)) for line, text in method.comment_lines[1:-1] if (m := _BLANK.match(text))
    ]
    if not blanks:
        return None
    if tags:
        before = [b for b in blanks if b[0] < tags[0][0]]
        return before[-1] if before else None
    return blanks[-1]


def run_docfact(folder: Path) -> dict:
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "docfact",
            "check",
            str(folder),
            "--format",
            "json",
            "--no-cache",
            "--jobs",
            "2",
        ],
        capture_output=True,
        text=True,
        timeout=3600,
    )
    if done.returncode not in (0, 1):
        raise SystemExit(f"docfact failed ({done.returncode}): {done.stderr[-2000:]}")
    return json.loads(done.stdout)


def findings_by_line(report: dict, folder: Path) -> dict[tuple[str, int], set[str]]:
    found: dict[tuple[str, int], set[str]] = defaultdict(set)
    for item in report["diagnostics"]:
        rel = Path(item["path"]).resolve().relative_to(folder.resolve()).as_posix()
        found[(rel, item["start"]["line"])].add(item["code"])
    return found


def rounds_of(chosen: list[Mutation]) -> list[list[Mutation]]:
    """Groups with at most one mutation per method (and per line)."""
    rounds: list[list[Mutation]] = []
    used: list[set] = []
    for mutation in chosen:
        keys = {(mutation.rel, mutation.method), (mutation.rel, mutation.line)}
        for group, taken in zip(rounds, used):
            if not keys & taken:
                group.append(mutation)
                taken |= keys
                break
        else:
            rounds.append([mutation])
            used.append(set(keys))
    return rounds


def apply(folder: Path, mutations: list[Mutation]) -> dict[str, str]:
    """Write the mutations; the original text of every file touched."""
    originals: dict[str, str] = {}
    by_file = defaultdict(list)
    for mutation in mutations:
        by_file[mutation.rel].append(mutation)
    for rel, items in by_file.items():
        path = folder / rel
        originals[rel] = text = path.read_text(encoding="utf-8")
        lines = text.split("\n")
        for mutation in items:
            lines[mutation.line - 1] = mutation.new_text
        path.write_text("\n".join(lines), encoding="utf-8")
    return originals


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--per-kind", type=int, default=300)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--src-zip")
    args = parser.parse_args()
    src_zip = find_src_zip(args.src_zip)
    if src_zip is None:
        print(
            "java_mutation: no JDK src.zip found (tried --src-zip, "
            f"{DEFAULT_ZIP}, /usr/lib/jvm/*/lib/src.zip); skipped."
        )
        return 0
    started = time.time()
    with tempfile.TemporaryDirectory(prefix="docfact-java-") as tmp:
        folder = Path(tmp)
        rels = extract(src_zip, folder)
        methods = documented_methods(folder, rels)
        clean = run_docfact(folder)
        clean_lines = findings_by_line(clean, folder)
        rng = random.Random(args.seed)
        candidates = defaultdict(list)
        for method in methods:
            for mutation in mutations_of(method):
                if not clean_lines.get((mutation.rel, mutation.line)):
                    candidates[mutation.kind].append(mutation)
        chosen = [
            m
            for kind in KINDS
            for m in rng.sample(candidates[kind], min(args.per_kind, len(candidates[kind])))
        ]
        outcomes: dict[str, list[tuple[Mutation, bool]]] = defaultdict(list)
        for group in rounds_of(chosen):
            originals = apply(folder, group)
            found = findings_by_line(run_docfact(folder), folder)
            for mutation in group:
                outcomes[mutation.kind].append(
                    (mutation, KINDS[mutation.kind] in found.get((mutation.rel, mutation.line), ()))
                )
            for rel, text in originals.items():
                (folder / rel).write_text(text, encoding="utf-8")
        report = summarize(src_zip, rels, methods, clean, outcomes, time.time() - started)
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "java_mutation.txt").write_text(report["text"], encoding="utf-8")
    (RESULTS / "java_mutation.json").write_text(
        json.dumps(report["data"], indent=2), encoding="utf-8"
    )
    print(report["summary"])
    return 0


def summarize(src_zip, rels, methods, clean, outcomes, seconds) -> dict:
    per_kind = {}
    for kind in KINDS:
        results = outcomes.get(kind, [])
        detected = sum(ok for _, ok in results)
        per_kind[kind] = {
            "mutations": len(results),
            "detected": detected,
            "recall": detected / len(results) if results else None,
        }
    counted = [
        ok for kind, results in outcomes.items() if kind not in INFORMATIONAL for _, ok in results
    ]
    recall = sum(counted) / len(counted) if counted else 0.0
    units = clean["units_checked"]
    per_100 = 100 * len(clean["diagnostics"]) / units if units else 0.0
    lines = [
        f"docfact on the JDK's Javadoc ({src_zip}): {len(rels)} files, {len(methods)} documented "
        f"methods, {units} Javadoc comments checked, {seconds:.0f} s",
        "",
    ]
    for kind, data in per_kind.items():
        note = "  (informational: not in the overall recall)" if kind in INFORMATIONAL else ""
        shown = f"{data['recall']:.3f}" if data["recall"] is not None else "n/a"
        found = f"{data['detected']:4}/{data['mutations']:<4}"
        lines.append(f"{kind:18} {KINDS[kind]}  {found} recall {shown}{note}")
    every = [ok for results in outcomes.values() for _, ok in results]
    summary = (
        f"recall {recall:.3f} (target >= {TARGET_RECALL}) over {len(counted)} mutations "
        f"({sum(every) / len(every) if every else 0:.3f} with throws_unchecked); "
        f"{per_100:.2f} findings per 100 clean Javadoc comments (target <= {TARGET_PER_100})"
    )
    lines += ["", summary, "", "Findings on the unmutated corpus:"]
    codes = Counter(item["code"] for item in clean["diagnostics"])
    lines.append("  " + ", ".join(f"{code}: {count}" for code, count in sorted(codes.items())))
    for item in clean["diagnostics"]:
        lines.append(
            f"  {Path(item['path']).name}:{item['start']['line']} {item['code']} {item['message']}"
        )
    missed = [(kind, m) for kind, results in outcomes.items() for m, ok in results if not ok]
    lines += ["", f"Missed mutations ({len(missed)}):"]
    lines += [f"  {kind} {m.rel}:{m.line} {m.method}: {m.new_text.strip()}" for kind, m in missed]
    data = {
        "src_zip": str(src_zip),
        "files": len(rels),
        "methods": len(methods),
        "units_checked": units,
        "per_kind": per_kind,
        "recall": recall,
        "recall_with_informational": sum(every) / len(every) if every else None,
        "findings_per_100": per_100,
        "clean_findings": dict(codes),
    }
    return {
        "text": "\n".join(lines) + "\n",
        "data": data,
        "summary": "\n".join(lines[: len(per_kind) + 4]),
    }


if __name__ == "__main__":
    sys.exit(main())
