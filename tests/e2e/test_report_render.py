"""The HTML report as a browser draws it: headless Chromium screenshots the page (it must
not be blank) and dumps the DOM (every function's row must be there).

Chromium is Debian's ``chromium`` (``apt-get install -y chromium``) or ``DOCFACT_CHROMIUM``;
without one the tests are skipped. ``DOCFACT_REPORT_SCREENSHOT=PATH`` keeps the screenshot
of the scored report there (how docs/report-example.png is made).
"""

from __future__ import annotations

import json
import os
import random
import re
import shutil
import struct
import subprocess
import sys
import zlib
from pathlib import Path

import pytest

from docfact.report import render

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
CHROMIUM = os.environ.get("DOCFACT_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
pytestmark = pytest.mark.skipif(
    not os.access(CHROMIUM, os.X_OK),
    reason="Chromium is not installed: `apt-get install -y chromium`, or set DOCFACT_CHROMIUM",
)

# A shop package: a few docstrings that are wrong (the real checks find them), many right.
CART = '''\
"""The shopping cart."""


def add_item(cart, item, quantity=1):
    """Add ``quantity`` of ``item`` to the cart.

    Args:
        cart: The cart.
        item: The item.
        qty: How many.
    """
    cart[item] = cart.get(item, 0) + quantity


def total(cart, prices: dict) -> float:
    """The total price of the cart.

    Args:
        cart: The cart.
        prices (list): The price <script>alert("docstring")</script> of each item.

    Returns:
        int: The sum.
    """
    return float(sum(prices[item] * n for item, n in cart.items()))
'''
HELPER = '''

def {name}(value: int) -> int:
    """Return ``value`` {verb}.

    Args:
        value: The number.
    """
    return value
'''
VERBS = ("doubled", "halved", "rounded", "clamped", "checked", "scaled", "shifted", "negated")


def make_shop(root: Path) -> list[str]:
    """The fixture project; returns the qualified name of every documented function."""
    package = root / "shop"
    package.mkdir()
    (package / "__init__.py").write_text('"""A shop."""\n')
    (package / "cart.py").write_text(CART)
    symbols = ["shop.cart.add_item", "shop.cart.total"]
    for module in ("tax", "stock", "ship"):
        names = [f"{module}_{verb}" for verb in VERBS]
        (package / f"{module}.py").write_text(
            f'"""{module}."""\n'
            + "".join(HELPER.format(name=name, verb=verb) for name, verb in zip(names, VERBS))
        )
        symbols += [f"shop.{module}.{name}" for name in names]
    return symbols


def fake_scores(symbols: list[str], seed: int = 7) -> list[dict]:
    """Plausible scores: most docstrings good, a tail of poor ones, SSC against tau 0.55."""
    chance = random.Random(seed)
    scores = []
    for symbol in symbols:
        module = symbol.split(".")[1]
        ssc = round(chance.betavariate(4, 2), 3)
        scores.append(
            {
                "symbol": symbol,
                "path": f"shop/{module}.py",
                "referee": round(chance.betavariate(5, 1.5), 3),
                "sonar": {
                    dimension: round(chance.betavariate(a, 2), 3)
                    for dimension, a in (
                        ("correctness", 6),
                        ("abstraction", 3),
                        ("conciseness", 4),
                        ("fluency", 8),
                    )
                },
                "ssc": {
                    "value": ssc,
                    "label": "high" if ssc >= 0.55 else "low",
                    "tau": 0.45,
                    "threshold": 0.55,
                    "k": 5,
                },
            }
        )
    return scores


def docfact(*args, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "docfact", *map(str, args)],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
    )


def chromium(page: Path, profile: Path, *mode: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [
            CHROMIUM,
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--no-first-run",
            f"--user-data-dir={profile}",
            "--window-size=1280,2000",
            *mode,
            page.as_uri(),
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )


def png_pixels(data: bytes) -> tuple[int, int, set[bytes]]:
    """Width, height and the distinct colours (every 4th pixel) of an 8-bit RGB(A) PNG."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    position, compressed = 8, []
    while position < len(data):
        length, kind = struct.unpack(">I4s", data[position : position + 8])
        body = data[position + 8 : position + 8 + length]
        if kind == b"IHDR":
            width, height, depth, colour = struct.unpack(">IIBB", body[:10])
            assert depth == 8 and colour in (2, 6), "only 8-bit RGB and RGBA are decoded"
        elif kind == b"IDAT":
            compressed.append(body)
        position += 12 + length
    channels = 3 if colour == 2 else 4
    raw, stride = zlib.decompress(b"".join(compressed)), width * channels
    previous, colours = bytearray(stride), set()
    for y in range(height):
        start = y * (stride + 1)
        kind, row = raw[start], bytearray(raw[start + 1 : start + 1 + stride])
        _unfilter(kind, row, previous, channels)
        colours.update(bytes(row[i : i + 3]) for i in range(0, stride, channels * 4))
        previous = row
    return width, height, colours


def _unfilter(kind: int, row: bytearray, previous: bytearray, channels: int) -> None:
    """Undo one PNG row filter in place (PNG spec, section 9)."""
    for i in range(len(row)):
        left = row[i - channels] if i >= channels else 0
        up = previous[i]
        if kind == 1:
            row[i] = (row[i] + left) & 0xFF
        elif kind == 2:
            row[i] = (row[i] + up) & 0xFF
        elif kind == 3:
            row[i] = (row[i] + ((left + up) >> 1)) & 0xFF
        elif kind == 4:
            corner = previous[i - channels] if i >= channels else 0
            guess = left + up - corner
            near = min(
                (abs(guess - left), 0, left),
                (abs(guess - up), 1, up),
                (abs(guess - corner), 2, corner),
            )
            row[i] = (row[i] + near[2]) & 0xFF


def screenshot_and_dom(page: Path, tmp_path: Path) -> tuple[Path, str]:
    shot = tmp_path / "page.png"
    done = chromium(page, tmp_path / "profile", f"--screenshot={shot}")
    assert shot.is_file(), done.stderr[-2000:]
    dom = chromium(page, tmp_path / "profile", "--dump-dom")
    assert dom.returncode == 0, dom.stderr[-2000:]
    return shot, dom.stdout


def assert_not_blank(shot: Path) -> set[bytes]:
    width, height, colours = png_pixels(shot.read_bytes())
    assert (width, height) == (1280, 2000)
    assert len(colours) > 50, f"the page looks blank: {len(colours)} colours"
    return colours


def test_scored_report_draws_its_plots_and_rows(tmp_path):
    symbols = make_shop(tmp_path)
    done = docfact("check", "shop", "--format", "json", "--no-cache", cwd=tmp_path)
    assert done.returncode == 1, done.stderr
    report = json.loads(done.stdout)
    assert {d["symbol"] for d in report["diagnostics"]} >= {"shop.cart.add_item", "shop.cart.total"}
    report["scores"] = fake_scores(symbols)
    page = tmp_path / "report.html"
    page.write_text(
        render(report, project="shop", output_dir=tmp_path, cwd=tmp_path), encoding="utf-8"
    )
    shot, dom = screenshot_and_dom(page, tmp_path)
    colours = assert_not_blank(shot)
    assert bytes((0x2F, 0x6F, 0xBF)) in colours, "no plot bar in the accent colour was drawn"
    if os.environ.get("DOCFACT_REPORT_SCREENSHOT"):
        shutil.copyfile(shot, os.environ["DOCFACT_REPORT_SCREENSHOT"])
    assert dom.count("<tbody data-symbol=") == len(symbols)
    for symbol in symbols:
        assert f"<code>{symbol}</code>" in dom
    assert '&lt;script&gt;alert("docstring")&lt;/script&gt;' in dom and "<script>alert" not in dom
    assert "1 − τ = 0.55" in dom and 'aria-label="SSC of 26 functions"' in dom
    assert '<span id="page-info" class="num" aria-live="polite">1–26 of 26</span>' in dom


def test_cli_report_of_the_examples(tmp_path):
    page = tmp_path / "examples.html"
    done = docfact("report", "inventory", "-o", page, "--no-cache", cwd=EXAMPLES)
    assert done.returncode == 0, done.stderr
    shot, dom = screenshot_and_dom(page, tmp_path)
    assert_not_blank(shot)
    check = json.loads(
        docfact("check", "inventory", "--format", "json", "--no-cache", cwd=EXAMPLES).stdout
    )
    symbols = {d["symbol"] for d in check["diagnostics"]}
    assert dom.count("<tbody data-symbol=") == len(symbols)
    for symbol in symbols:
        assert f"<code>{symbol}</code>" in dom
    assert "SSC not computed: run with --ssc and a configured model." in dom


# Clicks and typing, scripted after the page's own script has run.
INTERACT = """<script>
const ssc = document.querySelector('th button[data-key="ssc"]');
ssc.click(); ssc.click();
const filter = document.getElementById("filter");
filter.value = "m1.";
filter.dispatchEvent(new Event("input"));
</script>"""


def test_sorting_filtering_and_pages_in_the_browser(tmp_path):
    scores = [
        {
            "symbol": f"pkg.m{i % 3}.f{i}",
            "path": f"pkg/m{i % 3}.py",
            "line": i + 1,
            "referee": None,
            "sonar": None,
            "ssc": None
            if i % 10 == 0
            else {
                "value": (i * 37 % 100) / 100,
                "label": "high",
                "tau": 0.5,
                "threshold": 0.5,
                "k": 5,
            },
        }
        for i in range(150)
    ]
    report = {
        "version": "0",
        "files_checked": 3,
        "units_checked": 150,
        "diagnostics": [],
        "scores": scores,
    }
    html = render(report, project="pkg", output_dir=tmp_path, cwd=tmp_path)
    page = tmp_path / "sorted.html"
    page.write_text(html.replace("</body>", INTERACT + "</body>"), encoding="utf-8")
    dom = chromium(page, tmp_path / "profile", "--dump-dom").stdout
    bodies = re.findall(
        r'<tbody data-symbol="([^"]+)"[^>]*data-ssc="([^"]*)"[^>]*?( hidden="")?>', dom
    )
    visible = [(symbol, value) for symbol, value, hidden in bodies if not hidden]
    assert len(bodies) == 150 and len(visible) == 50  # one page of the 50 in module m1
    assert all(".m1." in symbol for symbol, _ in visible)
    values = [float(value) for _, value in visible if value]
    assert values == sorted(values, reverse=True) and values  # descending after two clicks
    assert [value for _, value in visible][-5:] == [""] * 5  # no score: last either way
    assert 'aria-sort="descending"' in dom and "1–50 of 50" in dom
