"""The judge protocols of docs/protocol.md: the messages sent and how answers are read.

The prompt texts are versioned files next to this module; their digest is part of every
cache key, so editing a prompt invalidates the answers it produced.
"""

from __future__ import annotations

import functools
import itertools
import json
import re
from dataclasses import dataclass
from string import Template

from ...model import Evidence, Segment
from ...prompt_files import prompt_digest as digest_of
from ...prompt_files import prompt_text

CRITERIA = ("name", "type", "function", "context")
PROMPT_FILES = (
    "criteria_v1.txt",
    "judge_input_v2.txt",
    "judge_paper_v2.txt",
    "judge_batched_v2.txt",
)
PAPER_MAX_TOKENS = 5  # room for "1" and a stray space or newline
MAX_CODE_CHARS = 12_000  # a long class or module is cut, not sent whole

_VERDICT_SCHEMA = {"type": "integer", "enum": [0, 1]}
BATCHED_RESPONSE_FORMAT = {
    "type": "json_schema",
    "json_schema": {
        "name": "referee_verdicts",
        "strict": True,
        "schema": {
            "type": "object",
            "properties": {
                "segments": {
                    "type": "array",
                    "items": {
                        "type": "object",
                        "properties": {
                            "id": {"type": "string"},
                            **{criterion: _VERDICT_SCHEMA for criterion in CRITERIA},
                            "reason": {"type": "string"},
                        },
                        "required": ["id", *CRITERIA, "reason"],
                        "additionalProperties": False,
                    },
                }
            },
            "required": ["segments"],
            "additionalProperties": False,
        },
    },
}

_ENTRY_LABELS = {
    "param": "Parameter",
    "returns": "Returns",
    "yields": "Yields",
    "raises": "Raises",
    "attribute": "Attribute",
}


@dataclass(frozen=True)
class Criterion:
    key: str
    title: str  # "Name inconsistency"
    definition: str  # one line
    steps: tuple[str, ...]  # three evaluation steps


@dataclass(frozen=True)
class JudgeInput:
    """Everything the model sees of one unit."""

    code: str  # the unit's code, its docstring cut out
    evidence: tuple[Evidence, ...]
    sentences: tuple[str, ...]  # one line each, as shown to the model
    language: str = "Python"  # or "Java"


@dataclass(frozen=True)
class Answer:
    """One sample's verdicts on one sentence: criterion -> 1, 0 or None (no verdict)."""

    verdicts: dict[str, int | None]
    reason: str = ""


NO_ANSWER = Answer({criterion: None for criterion in CRITERIA})


def _text(name: str) -> str:
    return prompt_text(__package__, name)


def prompt_digest() -> str:
    """A hash of every prompt text, for cache keys."""
    return digest_of(__package__, PROMPT_FILES)


@functools.cache
def criteria() -> dict[str, Criterion]:
    """The four criteria, from ``criteria_v1.txt`` (``## key | Title``, definition, steps)."""
    found = {}
    for block in re.split(r"^## ", _text("criteria_v1.txt"), flags=re.MULTILINE)[1:]:
        heading, definition, *steps = [line for line in block.splitlines() if line.strip()]
        key, title = (part.strip() for part in heading.split("|"))
        found[key] = Criterion(key, title, definition.strip(), tuple(s.strip() for s in steps))
    return found


def shown_sentence(segment: Segment) -> str:
    """The segment on one line; an entry's description keeps its label ("Parameter `x`: ...")."""
    text = " ".join(segment.text.split())
    entry = segment.entry
    if entry is None:
        return text
    label = _ENTRY_LABELS.get(entry.kind) or entry.section or "Entry"
    if entry.name is not None:
        label += f" `{entry.name.text}`"
    if entry.type is not None:
        label += f" ({' '.join(entry.type.text.split())})"
    return f"{label}: {text}"


def _input_message(judged: JudgeInput) -> str:
    blocks = [
        f"### {e.symbol} ({e.path}:{e.line})\n{e.text.strip()}"
        for e in judged.evidence
        if e.text.strip()
    ]
    return (
        Template(_text("judge_input_v2.txt"))
        .substitute(
            code=judged.code, context="\n\n".join(blocks) or "(none)", fence=judged.language.lower()
        )
        .strip()
    )


def batched_messages(judged: JudgeInput) -> list[dict[str, str]]:
    """One request for every sentence and criterion of a unit."""
    listed = "\n".join(f"- {c.key} ({c.title}): {c.definition}" for c in criteria().values())
    system = (
        Template(_text("judge_batched_v2.txt"))
        .substitute(criteria=listed, language=judged.language)
        .strip()
    )
    sentences = "\n".join(f"[S{i}] {s}" for i, s in enumerate(judged.sentences, 1))
    return [
        {"role": "system", "content": system},
        {"role": "user", "content": f"{_input_message(judged)}\n\nSentences:\n{sentences}"},
    ]


def batched_max_tokens(sentence_count: int) -> int:
    return 64 + 96 * sentence_count  # verdicts plus a short reason per sentence


def paper_messages(judged: JudgeInput, sentence: int, criterion: str) -> list[dict[str, str]]:
    """ReFEree's request for one (sentence, criterion); the sentence is the last message."""
    c = criteria()[criterion]
    steps = "\n".join(c.steps)
    system = (
        Template(_text("judge_paper_v2.txt"))
        .substitute(title=c.title, definition=c.definition, steps=steps, language=judged.language)
        .strip()
    )
    return [
        {"role": "system", "content": system},
        {"role": "user", "content": _input_message(judged)},
        {"role": "user", "content": judged.sentences[sentence]},
    ]


def parse_paper(text: str) -> int | None:
    """1 or 0 when the answer holds exactly one number and it is 1 or 0; else None."""
    numbers = re.findall(r"\d+(?:\.\d+)?", text)
    return int(numbers[0]) if numbers in (["0"], ["1"]) else None


def parse_batched(text: str, sentence_count: int) -> list[Answer]:
    """One Answer per sentence; anything missing, misnamed or malformed is no verdict."""
    answers = [NO_ANSWER] * sentence_count
    items = _segments_of(_find_json(text))
    seen: set[int] = set()
    for item in items:
        if not isinstance(item, dict):
            continue
        index = _sentence_index(item.get("id"))
        if index is None or not 0 <= index < sentence_count or index in seen:
            continue
        seen.add(index)
        reason = item.get("reason")
        answers[index] = Answer(
            {criterion: _verdict(item.get(criterion)) for criterion in CRITERIA},
            _one_line(reason) if isinstance(reason, str) else "",
        )
    return answers


MAX_REASON_CHARS = 500  # a reason is one line of a finding
# Where a JSON value may start, tried in order: an answer in prose has its JSON among its
# first brackets, and an answer of nested brackets would be read again from each.
_JSON_STARTS_TRIED = 100


def _one_line(reason: str) -> str:
    reason = " ".join(reason[: MAX_REASON_CHARS * 4].split())
    return reason if len(reason) <= MAX_REASON_CHARS else reason[: MAX_REASON_CHARS - 3] + "..."


def _find_json(text: str) -> object:
    """The first JSON value in ``text`` that holds segments, tolerating prose and fences.
    A value nested too deep to read (RecursionError) is no value."""
    try:
        return json.loads(text)
    except (ValueError, RecursionError):
        pass
    decoder = json.JSONDecoder()
    for match in itertools.islice(re.finditer(r"[{\[]", text), _JSON_STARTS_TRIED):
        try:
            value, _ = decoder.raw_decode(text, match.start())
        except (ValueError, RecursionError):
            continue
        if _segments_of(value):
            return value
    return None


def _segments_of(value: object) -> list[object]:
    if isinstance(value, dict):
        value = value.get("segments")
    return value if isinstance(value, list) else []


def _sentence_index(ident: object) -> int | None:
    if isinstance(ident, int) and not isinstance(ident, bool):
        return ident - 1
    match = (
        re.fullmatch(r"\[?\s*S(\d+)\s*\]?", ident.strip(), re.IGNORECASE)
        if isinstance(ident, str)
        else None
    )
    return int(match.group(1)) - 1 if match else None


def _verdict(value: object) -> int | None:
    if isinstance(value, str):
        value = value.strip()
        return int(value) if value in ("0", "1") else None
    if isinstance(value, int) and not isinstance(value, bool) and value in (0, 1):
        return value
    return None
