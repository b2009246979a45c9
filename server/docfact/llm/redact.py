r"""Keeping the API key out of every message: servers echo it in many encodings.

A 401 body may repeat the key raw, URL-encoded once or twice (``sk-very%2Fsecret``,
``sk-very%252Fsecret``), JSON-escaped, escaped as in source code (``\x73\x6b``,
``\u0073``), as HTML entities (``&#115;``, ``&#x73;``, ``&sol;``), or base64-encoded (an
Authorization header echoed back), whole or in part. Escapes are looked for on every
character and on the punctuation only (``sk-very&#47;secret``).
Every encoded form is cut into windows of ``FRAGMENT`` characters, and any window found in
a message is redacted, so a prefix or a piece of the key is caught as well as the whole.
"""

from __future__ import annotations

import base64
import html.entities
import json
import re
from collections.abc import Callable
from urllib.parse import quote, quote_plus

FRAGMENT = 12  # characters of a key's encoded form that are enough to redact
MARK = "[redacted]"


def redact(message: str, secret: str | None) -> str:
    """``message`` with every part that shows ``secret`` replaced by ``[redacted]``."""
    if not secret:
        return message
    windows = _windows(secret)
    hidden = bytearray(len(message))
    for start in range(len(message)):
        for size in windows:
            if message[start : start + size] in windows[size]:
                hidden[start : start + size] = b"\1" * size
    if not any(hidden):
        return message
    parts, at = [], 0
    while at < len(message):
        if hidden[at]:
            while at < len(message) and hidden[at]:
                at += 1
            parts.append(MARK)
        else:
            end = hidden.find(b"\1", at)
            end = len(message) if end < 0 else end
            parts.append(message[at:end])
            at = end
    return "".join(parts)


def _windows(secret: str) -> dict[int, set[str]]:
    """The pieces to look for, by length: windows of every encoded form (a form shorter
    than a window is looked for whole)."""
    found: dict[int, set[str]] = {}
    for form in _encodings(secret):
        size = min(FRAGMENT, len(form))
        found.setdefault(size, set()).update(
            form[i : i + size] for i in range(len(form) - size + 1)
        )
    return found


def _encodings(secret: str) -> set[str]:
    raw = secret.encode("utf-8")
    escaped = json.dumps(secret)[1:-1]
    once = _with_lower_hex({quote(secret, safe=""), quote_plus(secret)})
    forms = {
        secret,
        *once,
        *_with_lower_hex({quote(form, safe="") for form in once}),  # encoded twice
        escaped,
        escaped.replace("/", "\\/"),  # JSON may escape "/" too
    }
    for escape in _ESCAPES:
        forms.add("".join(map(escape, secret)))
        for kept in (str.isalnum, _UNRESERVED.fullmatch):  # escapes of punctuation only
            forms.add("".join(c if kept(c) else escape(c) for c in secret))
    # base64 depends on where the key starts within the encoded bytes ("Bearer <key>",
    # "user:<key>"): for each alignment keep the characters no neighbour changes.
    for offset in range(3):
        encoded = base64.b64encode(b"\0" * offset + raw + b"\0\0").decode("ascii")
        start = (offset * 4 + 2) // 3
        end = ((offset + len(raw)) * 4) // 3
        for alphabet in (encoded, encoded.replace("+", "-").replace("/", "_")):
            if end - start >= 4:
                forms.add(alphabet[start:end])
    return {form for form in forms if form}


_PERCENT = re.compile(r"%(?:25)?[0-9A-F]{2}")
_UNRESERVED = re.compile(r"[A-Za-z0-9_.~-]")


def _with_lower_hex(forms: set[str]) -> set[str]:
    """URL-encoded ``forms`` as they are and with lower-case hex digits (``%2f``)."""
    return forms | {_PERCENT.sub(lambda m: m.group().lower(), form) for form in forms}


# One name per character, the one servers write: the shortest, lower case first
# ("&sol;" for "/", "&amp;" for "&").
_ENTITY_NAMES = {
    character: name
    for name, character in sorted(
        html.entities.html5.items(),
        key=lambda item: (len(item[0]), item[0] != item[0].lower(), item[0]),
        reverse=True,
    )
    if len(character) == 1 and name.endswith(";")
}


def _source_escape(digits: str) -> Callable[[str], str]:
    """``\\x2f`` (``\\u2019`` past one byte), hex digits in the case of ``digits``."""

    def escape(character: str) -> str:
        code = ord(character)
        return f"\\x{code:02{digits}}" if code < 0x100 else f"\\u{code:04{digits}}"

    return escape


def _named_entity(character: str) -> str:
    name = _ENTITY_NAMES.get(character)
    return f"&{name}" if name else f"&#{ord(character)};"


_ESCAPES: tuple[Callable[[str], str], ...] = (
    _source_escape("x"),
    _source_escape("X"),
    lambda c: f"\\u{ord(c):04x}",
    lambda c: f"\\u{ord(c):04X}",
    lambda c: f"&#{ord(c)};",
    lambda c: f"&#x{ord(c):x};",
    lambda c: f"&#x{ord(c):X};",
    _named_entity,
)
