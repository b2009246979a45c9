"""Keeping the API key out of every message: servers echo it in many encodings.

A 401 body may repeat the key raw, URL-encoded (``sk-very%2Fsecret%2B123%3D%3D``),
JSON-escaped, or base64-encoded (an Authorization header echoed back), whole or in part.
Every encoded form is cut into windows of ``FRAGMENT`` characters, and any window found in
a message is redacted, so a prefix or a piece of the key is caught as well as the whole.
"""

from __future__ import annotations

import base64
import json
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
    forms = {
        secret,
        quote(secret, safe=""),
        quote_plus(secret),
        quote(secret, safe="").lower(),
        escaped,
        escaped.replace("/", "\\/"),
    }  # JSON may escape "/" too
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
