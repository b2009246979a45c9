"""Text for a terminal: what a repository or a model wrote is shown, never acted on."""

from __future__ import annotations

import logging
import re

# What a terminal acts on instead of showing: C0 and C1 controls (escape sequences, a
# carriage return or newline that forges a line) and the bidirectional overrides that
# reorder what is shown. A model's reason, an exception's text and a file's name may
# hold any of them.
_CONTROL = re.compile(r"[\x00-\x08\x0a-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def printable(text: str) -> str:
    """``text`` with every control character shown as its escape (``\\x1b``), on one line."""
    return _CONTROL.sub(lambda m: m.group().encode("unicode_escape").decode("ascii"), text)


class PrintableFormatter(logging.Formatter):
    """Log lines for a terminal: one line each, control characters escaped."""

    def format(self, record: logging.LogRecord) -> str:
        return printable(super().format(record))
