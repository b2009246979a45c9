"""The SSC prompts (versioned text files in ``prompts/``) and how answers are read.

Each file holds a system message, a line ``---``, and a user message template. Their
digest is part of every cache key, so editing a prompt invalidates what it produced.
"""

from __future__ import annotations

import re
from string import Template

from ..prompt_files import prompt_digest as digest_of
from ..prompt_files import prompt_text

PROMPT_FILES = ("summary_v1.txt", "judge_v1.txt")
SUMMARY_MAX_TOKENS = 160  # one or two sentences, with room for a verbose model
JUDGE_MAX_TOKENS = 8  # "Correct" or "Incorrect" and a stray mark
MAX_SUMMARY_CHARS = 2000
_NEGATIONS = {"not", "t", "never"}  # "not correct", "isn't correct"


def _text(name: str) -> str:
    return prompt_text(__package__, f"prompts/{name}")


def prompt_digest() -> str:
    return digest_of(__package__, tuple(f"prompts/{name}" for name in PROMPT_FILES))


def _messages(name: str, **values: str) -> list[dict[str, str]]:
    system, user = _text(name).split("\n---\n", 1)
    return [
        {"role": "system", "content": system.strip()},
        {"role": "user", "content": Template(user).safe_substitute(values).strip()},
    ]


def summary_messages(code: str) -> list[dict[str, str]]:
    return _messages("summary_v1.txt", code=code)


def judge_messages(code: str, summary: str) -> list[dict[str, str]]:
    return _messages("judge_v1.txt", code=code, summary=summary)


def clean_summary(text: str) -> str:
    """The summary on one line, without fences, quotes or a "Summary:" label ("" if none)."""
    text = re.sub(r"```\w*", " ", text or "")
    text = " ".join(text.split())
    text = re.sub(
        r"^(?:\*\*)?(?:intent|summary)(?:\*\*)?\s*:\s*(?:\*\*)?", "", text, flags=re.IGNORECASE
    )
    return text.strip(" \"'`*")[:MAX_SUMMARY_CHARS]


def parse_judgement(text: str) -> bool | None:
    """True for Correct, False for Incorrect (or "not correct"); None when the answer says
    neither or both."""
    words = re.findall(r"[a-z]+", (text or "").lower())
    verdicts = set()
    for n, word in enumerate(words):
        if word == "incorrect" or (word == "correct" and n and words[n - 1] in _NEGATIONS):
            verdicts.add(False)
        elif word == "correct":
            verdicts.add(True)
    return verdicts.pop() if len(verdicts) == 1 else None
