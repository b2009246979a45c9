"""`docfact report`: one self-contained HTML page of a run (inline CSS, SVG and a small
script; nothing loaded from elsewhere), built from the JSON contract of
`docfact check --format json` so that the page and the JSON never disagree."""

from __future__ import annotations

import json
import os
from datetime import datetime, timezone
from html import escape
from pathlib import Path
from typing import TYPE_CHECKING

from . import data, page
from .style import CSS, SCRIPT

if TYPE_CHECKING:
    from ..runner import RunResult

MAX_ROWS = 2000  # beyond this the page gets slow to open; the JSON has every function
PAGE_SIZE = 50


def write(result: RunResult, path: Path, *, project: str) -> None:
    """Write the report of ``result`` to ``path``."""
    from ..output import to_json

    html = render(json.loads(to_json(result)), project=project, output_dir=path.resolve().parent)
    # A lone surrogate (from a ``\\ud800`` escape in a docstring) is written as its escape.
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(html.encode("utf-8", "backslashreplace"))


def render(
    report: dict,
    *,
    project: str,
    output_dir: Path,
    cwd: Path | None = None,
    generated: datetime | None = None,
    max_rows: int = MAX_ROWS,
) -> str:
    """The page for ``report`` (the JSON contract); links to sources are relative to
    ``output_dir``, and the report's paths are relative to ``cwd`` (default: the current)."""
    items = data.functions(report)
    shown = data.capped(items, max_rows)
    when = (generated or datetime.now(timezone.utc)).strftime("%Y-%m-%d %H:%M UTC")
    return "".join(
        [
            '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">',
            '<meta name="viewport" content="width=device-width, initial-scale=1">',
            f"<title>docfact report: {escape(project)}</title><style>{CSS}</style></head><body>",
            page.header(report, items, project, when),
            page.plots(report, items),
            page.table(
                shown, len(items), PAGE_SIZE, os.fspath(output_dir), os.fspath(cwd or Path.cwd())
            ),
            f"</main><footer>docfact {escape(str(report.get('version', '?')))}: which sentences "
            f"of your docstrings are not true of the code.</footer><script>{SCRIPT}</script>",
            "</body></html>\n",
        ]
    )
