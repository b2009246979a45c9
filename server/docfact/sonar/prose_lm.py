"""A language model of English technical prose: an interpolated Kneser-Ney trigram model
(Chen and Goodman's formulation, one absolute discount per order estimated from the
counts, D = n1 / (n1 + 2 n2)) of the descriptions in docstrings.

Tokens are lower-cased words and punctuation; what is not English is one token per kind,
so the model learns where such things stand in a sentence, not their spelling: inline code
(```x```, ````x````) is ``<code>``, an identifier (``snake_case``, ``dotted.name``,
``camelCase``, ``call()``) is ``<name>``, a number ``<num>``. Words seen once in training
become ``<unk>``, so the model has a probability for words it has never seen.

Trained on the prose of the descriptions (the text before a docstring's first section,
without doctests, literal blocks and indented lines) of the docstrings of the running
Python's standard library and of the installed packages, read statically with ``ast``.
Fluency is measured by SLOR (Pauls and Klein 2012; Kann et al. 2018), the mean per token
of ln p_LM(w | u v) - ln p_unigram(w): the log-probability the model gives the text's word
order beyond what its words' frequencies alone give. Perplexity alone mostly measures
vocabulary: "Count every unit in stock." is as improbable as a word salad of the same rare
words, while SLOR ranks it far above the salad.

Training runs in a process of its own (``python -m docfact.sonar.prose_lm OUT``): it
parses many thousands of files, and CPython 3.11's ast module must not parse in two
threads of one process at once.
"""

from __future__ import annotations

import ast
import gzip
import json
import math
import random
import re
import site
import sys
import sysconfig
from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

VERSION = 3  # bump when the corpus, tokens or model change: a stored model is rebuilt
START, END, UNKNOWN = "<s>", "</s>", "<unk>"
HELD_OUT = 0.1
MAX_PACKAGE_FILES = 4000  # of the installed packages' files read (the stdlib is read whole)
_TOKEN = re.compile(
    r"``.+?``|`[^`\n]+`|[A-Za-z_][\w.]*\w(?:\(\))?|[A-Za-z]|\d+(?:[.,]\d+)*|[^\w\s]"
)
_INNER_CAPITAL = re.compile(r"[a-z][A-Z]")
_SKIPPED_DIRS = {"test", "tests", "testing", "idlelib", "__pycache__", "_vendor", "vendor"}
_SECTION = re.compile(
    r"^\s*(?:(?:args|arguments|parameters|params|returns?|yields?|raises?|exceptions?|"
    r"attributes|examples?|notes?|see also|references|warns?|warnings|todo|keyword args|"
    r"other parameters|methods)\s*:?\s*$|:[a-z]+[^:]*:|@[a-z]+|[-=~]{3,}\s*$)",
    re.IGNORECASE,
)


def tokens(text: str) -> list[str]:
    """The model's tokens of a piece of prose."""
    found = []
    for token in _TOKEN.findall(text):
        if token.startswith("`"):
            found.append("<code>")
        elif token[0].isdigit():
            found.append("<num>")
        elif token[0].isalpha() or token[0] == "_":
            word = token.rstrip(".")
            if "_" in word or "." in word or word.endswith("()") or _INNER_CAPITAL.search(word):
                found.append("<name>")
            else:
                found.append(word.lower())
            if word != token:
                found.append(".")
        else:
            found.append(token)
    return found


def description(docstring: str) -> str:
    """The description's prose: the paragraphs before the first section, without
    doctests, literal blocks and indented lines (a cleaned docstring, as ``inspect``
    cleans it)."""
    kept: list[str] = []
    literal = example = False
    for line in docstring.expandtabs().splitlines():
        if _SECTION.match(line):
            break
        stripped = line.strip()
        if literal:  # a literal block lasts while its lines are indented or blank
            if stripped and not line[:1].isspace():
                literal = False
                kept.append("")  # the block ended a paragraph
            else:
                continue
        if stripped.startswith(">>>"):
            example = True  # a doctest, and its output up to a blank line
        elif not stripped:
            example = False
        if example or stripped.startswith("...") or line[:1].isspace():
            continue
        kept.append(line)
        if stripped.endswith("::"):
            literal = True
            kept[-1] = line.rstrip()[:-1]  # "Example::" introduces code: keep "Example:"
    return "\n".join(kept).strip()


# --- the model ---------------------------------------------------------------------------


@dataclass
class KneserNey:
    """Interpolated Kneser-Ney trigram probabilities from stored counts."""

    frequencies: dict[str, int]  # token (unknown words as <unk>, ends included) -> count
    trigrams: dict[tuple[str, str], dict[str, int]]  # (u, v) -> w -> c(u v w)
    continuations: dict[str, dict[str, int]]  # v -> w -> N1+(. v w)
    unigrams: dict[str, int]  # w -> N1+(. w)
    discounts: tuple[float, float, float]  # unigram, bigram, trigram

    def __post_init__(self) -> None:
        self.vocabulary = set(self.frequencies)
        self._tokens = sum(self.frequencies.values())
        self._context3 = {ctx: (sum(ws.values()), len(ws)) for ctx, ws in self.trigrams.items()}
        self._context2 = {v: (sum(ws.values()), len(ws)) for v, ws in self.continuations.items()}
        self._types = sum(self.unigrams.values())

    def probability(self, u: str, v: str, w: str) -> float:
        d1, d2, d3 = self.discounts
        seen = self.unigrams.get(w, 0)
        p = (max(seen - d1, 0.0) + d1 * len(self.unigrams) / len(self.vocabulary)) / self._types
        total, kinds = self._context2.get(v, (0, 0))
        if total:
            p = (max(self.continuations[v].get(w, 0) - d2, 0.0) + d2 * kinds * p) / total
        total, kinds = self._context3.get((u, v), (0, 0))
        if total:
            p = (max(self.trigrams[u, v].get(w, 0) - d3, 0.0) + d3 * kinds * p) / total
        return p

    def known(self, sequence: list[str]) -> list[str]:
        return [t if t in self.vocabulary else UNKNOWN for t in sequence]

    def perplexity(self, sequence: list[str]) -> float:
        """Of the tokens and the end of the text, after two start tokens."""
        return math.exp(-math.fsum(self._logs(sequence)[0]) / (len(sequence) + 1))

    def slor(self, sequence: list[str]) -> tuple[float, float]:
        """(SLOR, perplexity) of the tokens and the end of the text."""
        model, unigram = self._logs(sequence)
        count = len(model)
        return (math.fsum(model) - math.fsum(unigram)) / count, math.exp(-math.fsum(model) / count)

    def _logs(self, sequence: list[str]) -> tuple[list[float], list[float]]:
        padded = [START, START, *self.known(sequence), END]
        model = [math.log(self.probability(*padded[i - 2 : i + 1])) for i in range(2, len(padded))]
        unigram = [math.log((self.frequencies.get(w) or 1) / self._tokens) for w in padded[2:]]
        return model, unigram


def train(paragraphs: list[list[str]]) -> KneserNey:
    counts = Counter(t for p in paragraphs for t in p)
    vocabulary = {t for t, c in counts.items() if c > 1}
    frequencies: Counter = Counter({UNKNOWN: 0})
    trigrams: dict[tuple[str, str], Counter] = defaultdict(Counter)
    for paragraph in paragraphs:
        padded = [START, START, *(t if t in vocabulary else UNKNOWN for t in paragraph), END]
        frequencies.update(padded[2:])
        for i in range(2, len(padded)):
            trigrams[padded[i - 2], padded[i - 1]][padded[i]] += 1
    continuations: dict[str, Counter] = defaultdict(Counter)
    for (_, v), words in trigrams.items():
        for w in words:
            continuations[v][w] += 1
    unigrams: Counter = Counter()
    for words in continuations.values():
        for w in words:
            unigrams[w] += 1
    discounts = (
        _discount(unigrams.values()),
        _discount(c for ws in continuations.values() for c in ws.values()),
        _discount(c for ws in trigrams.values() for c in ws.values()),
    )
    return KneserNey(
        dict(frequencies),
        {k: dict(v) for k, v in trigrams.items()},
        {k: dict(v) for k, v in continuations.items()},
        dict(unigrams),
        discounts,
    )


def _discount(counts: Iterable[int]) -> float:
    histogram = Counter(c for c in counts if c <= 2)
    n1, n2 = histogram[1], histogram[2]
    return n1 / (n1 + 2 * n2) if n1 else 0.75


@dataclass
class ProseModel:
    """The model and its anchors, SLORs measured on a held-out tenth of the corpus:
    ``fluent``, the 90th percentile of real descriptions (prose as fluent as the best tenth
    of real docstrings scores 1), ``salad``, the 90th percentile of the same descriptions
    with their words shuffled (nine word salads in ten score 0)."""

    lm: KneserNey
    fluent: float
    salad: float
    paragraphs: int  # trained on

    def score(self, sequence: list[str]) -> tuple[float, float, float]:
        """(fluency in [0, 1], SLOR, perplexity)."""
        slor, perplexity = self.lm.slor(sequence)
        value = (
            (slor - self.salad) / (self.fluent - self.salad) if self.fluent > self.salad else 0.0
        )
        return min(1.0, max(0.0, value)), slor, perplexity


def build(paragraphs: list[list[str]], seed: int = 0) -> ProseModel:
    """Trained on nine tenths of ``paragraphs``, anchored on the rest."""
    shuffled = paragraphs[:]
    random.Random(seed).shuffle(shuffled)
    cut = max(1, int(len(shuffled) * HELD_OUT))
    held, rest = shuffled[:cut], shuffled[cut:]
    lm = train(rest)
    rng = random.Random(seed + 1)
    real = sorted(lm.slor(p)[0] for p in held)
    salad = sorted(lm.slor(rng.sample(p, len(p)))[0] for p in held)
    tenth = len(held) * 9 // 10
    return ProseModel(
        lm, real[min(tenth, len(real) - 1)], salad[min(tenth, len(salad) - 1)], len(rest)
    )


def to_json(model: ProseModel) -> dict:
    lm = model.lm
    return {
        "version": VERSION,
        "fluent": model.fluent,
        "salad": model.salad,
        "paragraphs": model.paragraphs,
        "frequencies": lm.frequencies,
        "discounts": list(lm.discounts),
        "trigrams": [[u, v, w, c] for (u, v), ws in lm.trigrams.items() for w, c in ws.items()],
    }


def from_json(data: dict) -> ProseModel:
    if data.get("version") != VERSION:
        raise ValueError("a model of another version")
    trigrams: dict[tuple[str, str], dict[str, int]] = defaultdict(dict)
    for u, v, w, c in data["trigrams"]:
        trigrams[u, v][w] = c
    continuations: dict[str, Counter] = defaultdict(Counter)
    for (_, v), words in trigrams.items():
        for w in words:
            continuations[v][w] += 1
    unigrams: Counter = Counter(w for words in continuations.values() for w in words)
    lm = KneserNey(
        dict(data["frequencies"]),
        dict(trigrams),
        {k: dict(v) for k, v in continuations.items()},
        dict(unigrams),
        tuple(data["discounts"]),
    )
    return ProseModel(lm, float(data["fluent"]), float(data["salad"]), int(data["paragraphs"]))


# --- the corpus ----------------------------------------------------------------------------


def corpus_roots() -> list[Path]:
    """The standard library, then the folders of the installed packages."""
    roots = [Path(sysconfig.get_paths()["stdlib"])]
    for folder in [*site.getsitepackages(), sysconfig.get_paths()["purelib"]]:
        path = Path(folder)
        if path.is_dir() and path not in roots:
            roots.append(path)
    return roots


def corpus_paragraphs(roots: list[Path] | None = None) -> list[list[str]]:
    """Distinct description paragraphs of the docstrings under ``roots``, as tokens."""
    seen: set[tuple[str, ...]] = set()
    for index, root in enumerate(roots or corpus_roots()):
        files = sorted(
            p
            for p in root.rglob("*.py")
            if not _SKIPPED_DIRS.intersection(p.relative_to(root).parts[:-1])
            and (index or "site-packages" not in p.relative_to(root).parts)
        )
        for path in files if index == 0 else files[:MAX_PACKAGE_FILES]:
            try:
                tree = ast.parse(path.read_bytes())
            except (SyntaxError, ValueError, OSError, RecursionError, MemoryError):
                continue
            for node in ast.walk(tree):
                if isinstance(
                    node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)
                ):
                    text = description(ast.get_docstring(node) or "")
                    for paragraph in re.split(r"\n\s*\n", text):
                        found = tuple(tokens(paragraph))
                        if len(found) >= 3:
                            seen.add(found)
    return [list(p) for p in sorted(seen)]


def main() -> int:
    """Train on the corpus and write the model to the gzipped JSON file argv[1]."""
    out = Path(sys.argv[1])
    model = build(corpus_paragraphs())
    partial = out.with_name(out.name + ".tmp")
    with gzip.open(partial, "wt", encoding="utf-8") as stream:
        json.dump(to_json(model), stream, separators=(",", ":"))
    partial.replace(out)  # atomic: a reader never sees half a file
    return 0


if __name__ == "__main__":
    sys.exit(main())
