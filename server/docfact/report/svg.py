"""The report's plots as inline SVG strings: histograms and horizontal bar charts.

Colours come from CSS classes of the page (``bar``, ``axis``, ``marker``, ``label``), so
one drawing serves both the light and the dark scheme. Every string is escaped here."""

from __future__ import annotations

from collections.abc import Sequence
from html import escape

_FONT_WIDTH = 6.6  # px per character at the page's 12px plot font, to truncate labels


def histogram(
    values: list[float],
    *,
    title: str,
    bins: int = 10,
    width: int = 360,
    height: int = 170,
    marker: tuple[float, str] | None = None,
) -> str:
    """Counts of ``values`` in ``bins`` equal bins over [0, 1] (widened to fit the data);
    ``marker`` draws a dashed vertical line at a value, with its label, and the bins below
    it in the ``low`` colour."""
    low = min(0.0, *values) if values else 0.0
    high = max(1.0, *values) if values else 1.0
    counts = [0] * bins
    for value in values:
        counts[min(bins - 1, int((value - low) / (high - low) * bins))] += 1
    left, right, top, bottom = 34, 10, 18, 24
    plot_w, plot_h = width - left - right, height - top - bottom
    tallest = max(counts) or 1
    step = plot_w / bins

    def x(value: float) -> float:
        return left + (value - low) / (high - low) * plot_w

    parts = []
    for index, n in enumerate(counts):
        bar_h = plot_h * n / tallest
        start = low + index * (high - low) / bins
        below = marker is not None and start + (high - low) / bins / 2 < marker[0]
        parts.append(
            f'<rect class="bar{" low" if below else ""}" x="{left + index * step + 1:.1f}" '
            f'y="{top + plot_h - bar_h:.1f}" '
            f'width="{step - 2:.1f}" height="{bar_h:.1f}"><title>{n} in '
            f"[{start:.2f}, {start + (high - low) / bins:.2f})</title></rect>"
        )
    parts.append(
        f'<line class="axis" x1="{left}" y1="{top + plot_h}" x2="{left + plot_w}" '
        f'y2="{top + plot_h}"/>'
    )
    for tick in (low, (low + high) / 2, high):
        parts.append(
            f'<text class="label" x="{x(tick):.1f}" y="{height - 8}" '
            f'text-anchor="middle">{_number(tick)}</text>'
        )
    parts.append(
        f'<text class="label" x="{left - 6}" y="{top + 4}" text-anchor="end">{tallest}</text>'
    )
    parts.append(
        f'<text class="label" x="{left - 6}" y="{top + plot_h}" text-anchor="end">0</text>'
    )
    if marker is not None:
        at, label = marker
        parts.append(
            f'<line class="marker" x1="{x(at):.1f}" y1="{top - 4}" x2="{x(at):.1f}" '
            f'y2="{top + plot_h}"/>'
        )
        anchor = "end" if x(at) > left + plot_w * 0.7 else "start"
        shift = -4 if anchor == "end" else 4
        parts.append(
            f'<text class="label marker-label" x="{x(at) + shift:.1f}" y="{top + 6}" '
            f'text-anchor="{anchor}">{escape(label)}</text>'
        )
    return _svg(title, width, height, parts)


def hbars(
    items: Sequence[tuple[str, float, str]],
    *,
    title: str,
    width: int = 640,
    label_width: int = 340,
    scale: float | None = None,
    digits: int = 0,
    marker: tuple[float, str] | None = None,
) -> str:
    """One horizontal bar per ``(label, value, tooltip)``; labels get at most
    ``label_width`` pixels (less when they are short) and are truncated to fit; bars are
    drawn against ``scale`` (default: the largest value); ``marker`` as in ``histogram``."""
    row, top = 22, 18 if marker else 4
    height = top + 4 + row * len(items)
    scale = scale or max((value for _, value, _ in items), default=1.0) or 1.0
    longest = max((len(label) for label, _, _ in items), default=0)
    label_width = min(label_width, int(longest * _FONT_WIDTH) + 12)
    bar_space = width - label_width - 50
    most = int(label_width / _FONT_WIDTH) - 1
    parts = []
    if marker is not None:
        at = label_width + bar_space * marker[0] / scale
        parts.append(
            f'<line class="marker" x1="{at:.1f}" y1="2" x2="{at:.1f}" y2="{height}"/>'
            f'<text class="label marker-label" x="{at + 4:.1f}" y="12">'
            f"{escape(marker[1])}</text>"
        )
    for index, (label, value, tooltip) in enumerate(items):
        y = top + index * row
        text = label if len(label) <= most else label[: most - 1] + "…"
        bar_w = max(1.0, bar_space * value / scale)
        shown = f"{value:.{digits}f}"
        parts.append(
            f"<g><title>{escape(tooltip)}</title>"
            f'<text class="label" x="{label_width - 6}" y="{y + 15}" text-anchor="end">'
            f"{escape(text)}</text>"
            f'<rect class="bar{" low" if marker and value < marker[0] else ""}" '
            f'x="{label_width}" y="{y + 4}" width="{bar_w:.1f}" height="{row - 8}"/>'
            f'<text class="label value" x="{label_width + bar_w + 5:.1f}" y="{y + 15}">'
            f"{shown}</text>"
            f"</g>"
        )
    return _svg(title, width, height, parts)


def _svg(title: str, width: int, height: int, parts: list[str]) -> str:
    return (
        f'<svg class="plot" role="img" aria-label="{escape(title)}" width="{width}" '
        f'height="{height}" viewBox="0 0 {width} {height}" xmlns="http://www.w3.org/2000/svg">'
        f"<title>{escape(title)}</title>{''.join(parts)}</svg>"
    )


def _number(value: float) -> str:
    return f"{value:.1f}".rstrip("0").rstrip(".") if value != int(value) else str(int(value))
