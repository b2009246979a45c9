"""Offline Fluency against word salad: for each docstring description of the Python files
under a folder, the real description and the same words shuffled are both scored with
docfact's Fluency (``sonar.fluency.fluency``, no model configured: the Kneser-Ney prose
model). A pair is won when the real one scores strictly higher; ties count as lost.

The default folder is docfact's own source, which the prose model was not trained on (it
reads the standard library and the installed packages). Target (issue 15): >= 200 pairs,
>= 95 % won.

Usage: .venv/bin/python bench/fluency_pairs.py [FOLDER] [--min-words 5] [--seed 0]
"""

from __future__ import annotations

import argparse
import ast
import random
import statistics
import sys
from pathlib import Path

from docfact.sonar.fluency import fluency
from docfact.sonar.prose_lm import description, tokens

DEFAULT = Path(__file__).resolve().parents[1] / "server" / "docfact"


def descriptions(folder: Path, min_words: int) -> list[str]:
    found = []
    for path in sorted(folder.rglob("*.py")):
        try:
            tree = ast.parse(path.read_text(encoding="utf-8"))
        except (SyntaxError, ValueError, OSError):
            continue
        for node in ast.walk(tree):
            if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
                text = description(ast.get_docstring(node) or "")
                if len(set(tokens(text))) >= min_words:
                    found.append(text)
    return list(dict.fromkeys(found))


def shuffled(text: str, rng: random.Random) -> str:
    """The same words in another order (one that does not read as a section heading, a
    field or a doctest, which would leave no prose to score)."""
    words = text.split()
    for _ in range(100):
        order = words[:]
        rng.shuffle(order)
        salad = " ".join(order)
        if order != words and description(salad) == salad:
            return salad
    return " ".join(reversed(words))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("folder", nargs="?", type=Path, default=DEFAULT)
    parser.add_argument(
        "--min-words", type=int, default=5, help="distinct tokens a description needs"
    )
    parser.add_argument("--seed", type=int, default=0)
    arguments = parser.parse_args()
    rng = random.Random(arguments.seed)
    texts = descriptions(arguments.folder, arguments.min_words)
    won, real_scores, salad_scores = 0, [], []
    for text in texts:
        real, _ = fluency(text)
        salad, _ = fluency(shuffled(text, rng))
        real_scores.append(real)
        salad_scores.append(salad)
        won += real > salad
    print(
        f"{len(texts)} pairs from {arguments.folder}: the real description scores higher in "
        f"{won} ({won / len(texts):.1%}; target >= 95 % of >= 200 pairs)"
    )
    print(
        f"median fluency: real {statistics.median(real_scores):.2f}, "
        f"shuffled {statistics.median(salad_scores):.2f}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
