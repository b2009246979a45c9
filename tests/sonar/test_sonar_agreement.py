"""bench/sonar_agreement.py offline: the harness against the scripted model server and the
real sandbox, on rows whose outcome the script decides in advance."""

import asyncio
import csv
import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from llm_helpers import KEY_ENV, SECRET

from docfact.sonar import fluency as fluency_module

ROOT = Path(__file__).resolve().parents[2]
BENCH = ROOT / "bench" / "sonar_agreement.py"


def _load_bench():
    spec = importlib.util.spec_from_file_location("sonar_agreement", BENCH)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


sa = _load_bench()

SCALE = (
    "def scale(values: list[int], factor: int) -> list[int]:\n"
    "    return [v * factor for v in values]\n"
)
SCALE_WRONG = "def scale(values, factor):\n    return [v + factor for v in values]\n"
# a helper and an import beside the function the summaries are about
NORM = (
    "import math\n\n\ndef _square(x: float) -> float:\n    return x * x\n\n\n"
    "def norm(xs: list[float]) -> float:\n    return math.sqrt(sum(_square(x) for x in xs))\n"
)
NORM_WRONG = "def norm(xs):\n    return sum(xs)\n"
VOWELS = (
    "def count_vowels(text: str) -> int:\n"
    '    return sum(1 for ch in text.lower() if ch in "aeiou")\n'
)
VOWELS_OTHERS = [  # the same behaviour written differently: a diverse pool
    "def count_vowels(text):\n    n = 0\n    for c in text:\n        if c.lower() in 'aeiou':\n"
    "            n += 1\n    return n\n",
    "import re\n\ndef count_vowels(text):\n"
    "    return len(re.findall('[aeiou]', text, flags=re.I))\n",
]
CLAMP = (
    "def clamp(value: int, low: int = 0, high: int = 10) -> int:\n"
    "    return max(low, min(value, high))\n"
)

# (dimension, code, summary A, summary B, human preference)
ROWS = [
    ("correctness", SCALE, "Multiply each value by factor.", "Add factor to each value.", "A"),
    (
        "correctness",
        NORM,
        "Return the Euclidean norm of `norm`'s xs.",
        "Return the sum of xs.",
        "B",
    ),
    ("correctness", SCALE, "Skipped by --limit 2.", "Also skipped.", "A"),
    ("abstraction", VOWELS, "Count the vowels in text.", "Loop over text, add 1 per vowel.", "A"),
    ("abstraction", CLAMP, "Clamp value into [low, high].", "Something unreadable.", "B"),
    (
        "conciseness",
        SCALE,
        "Scale values by factor.",
        "This function takes a list of values and multiplies every value by the factor.",
        "A",
    ),
    ("conciseness", VOWELS, "Count vowels, any case.", "Number of vowels in text.", "B"),
]
# What the scripted model writes from each summary
PROGRAMS = {
    "Multiply each value by factor.": [SCALE],
    "Add factor to each value.": [SCALE_WRONG],
    "Return the Euclidean norm of `norm`'s xs.": [NORM],
    "Return the sum of xs.": [NORM_WRONG],
    "Count the vowels in text.": [VOWELS, *VOWELS_OTHERS],
    "Loop over text, add 1 per vowel.": [VOWELS],
    "Clamp value into [low, high].": [CLAMP],
    # "Something unreadable." gets no code: its scores cannot be measured
    "Scale values by factor.": [SCALE],
    "This function takes a list of values and multiplies every value by the factor.": [SCALE],
    "Scale values.": [SCALE],  # the compression of the long one keeps its behaviour
    "Count vowels, any case.": [VOWELS],
    "Number of vowels in text.": [VOWELS],
}
COMPRESSIONS = {
    "This function takes a list of values and multiplies every value by the factor.": [
        "Scale values."
    ]
}


@pytest.fixture(autouse=True)
def quick_fluency(monkeypatch):
    """Fluency is not part of the agreement, and its model is slow to build: a stand-in."""
    monkeypatch.setattr(
        fluency_module, "fluency", lambda text, model=None: (0.5, "stand-in fluency")
    )


@pytest.fixture
def data(tmp_path):
    path = tmp_path / "groundtruth.csv"
    with open(path, "w", newline="", encoding="utf-8") as handle:
        out = csv.writer(handle)
        out.writerow(
            ["id_a", "id_b", "dimension", "code", "summary_a", "summary_b", "ground_truth"]
        )
        for i, (dimension, code, a, b, truth) in enumerate(ROWS):
            out.writerow([f"row{i}_a", f"row{i}_b", dimension, code, a, b, truth])
    return path


def _argv(server, data, tmp_path, *more):
    return [
        "--model",
        "openai/test-model",
        "--api-base",
        server.base_url,
        "--api-key-env",
        KEY_ENV,
        "--data",
        str(data),
        "--limit",
        "2",
        "--samples",
        "3",
        "--compressions",
        "1",
        "--fuzz-cases",
        "30",
        "--time-limit",
        "5",
        "--cache-dir",
        str(tmp_path / "cache"),
        "--output",
        str(tmp_path / "results" / "sonar_agreement.txt"),
        "--quiet",
        *more,
    ]


def _line(report: str, name: str) -> list[str]:
    return next(line for line in report.splitlines() if line.startswith(f"{name} ")).split()


def test_agreement_on_scripted_rows(server, writer, data, tmp_path, monkeypatch, capsys):
    monkeypatch.setenv(KEY_ENV, SECRET)
    writer.programs.update(PROGRAMS)
    writer.compressions.update(COMPRESSIONS)
    args = sa.parser().parse_args(_argv(server, data, tmp_path))
    outcomes, report = asyncio.run(sa.run(args))

    verdicts = [(o.row.id_a, o.verdict) for o in outcomes]
    assert verdicts == [
        ("row0_a", "agree"),  # A regenerates the function, B a wrong one; humans prefer A
        ("row1_a", "disagree"),  # the same, but humans prefer B
        ("row3_a", "agree"),  # A's programs differ from each other, B's are all the same
        ("row4_a", "unmeasurable"),  # no code from B
        ("row5_a", "agree"),  # B can be cut to a sixth of its length, A not at all
        ("row6_a", "tie"),  # neither can be shortened
    ]
    by_id = {o.row.id_a: o for o in outcomes}
    assert by_id["row0_a"].score_a == 1.0 and by_id["row0_a"].score_b < 0.5
    # the helper came along: the function ran (FuncSim), not compared structurally; the sum
    # agrees with the norm on the short lists drawn often ([], [3.0]), so B scores about half
    assert by_id["row1_a"].score_a == 1.0 > by_id["row1_a"].score_b
    assert not any(o.approximate for o in outcomes)
    assert by_id["row3_a"].score_a > 0.0 == by_id["row3_a"].score_b
    assert by_id["row4_a"].score_b is None and "B: not measurable" in by_id["row4_a"].note
    assert by_id["row5_a"].score_a == 1.0
    assert by_id["row5_a"].score_b == pytest.approx(len("Scale values.") / len(ROWS[5][3]))
    assert by_id["row6_a"].score_a == by_id["row6_a"].score_b == 1.0

    # dimension rows measured agree agreement of-all ties not-meas approx SONAR LLM-only
    assert _line(report, "correctness")[:10] == [
        "correctness",
        "2",
        "2",
        "1",
        "50.0",
        "%",
        "50.0",
        "%",
        "0",
        "0",
    ]
    assert _line(report, "abstraction")[:10] == [
        "abstraction",
        "2",
        "1",
        "1",
        "100.0",
        "%",
        "50.0",
        "%",
        "0",
        "1",
    ]
    assert _line(report, "conciseness")[:10] == [
        "conciseness",
        "2",
        "2",
        "1",
        "50.0",
        "%",
        "50.0",
        "%",
        "1",
        "0",
    ]
    assert _line(report, "overall")[:4] == ["overall", "6", "5", "3"]
    assert "96 %" in " ".join(_line(report, "correctness")) and "51-60 %" in report
    first_calls = int(re.search(r"(\d+) model calls", report)[1])
    assert first_calls == len(server.requests) > 0

    # The command line: same table, written to the results file; the cache makes it free
    # (the unmeasurable summary, which the code caused, is cached like any result).
    assert sa.main(_argv(server, data, tmp_path)) == 0
    printed = capsys.readouterr().out
    again = int(re.search(r"(\d+) model calls", printed)[1])
    assert again == 0 < first_calls
    assert _line(printed, "overall")[:4] == ["overall", "6", "5", "3"]
    written = (tmp_path / "results" / "sonar_agreement.txt").read_text()
    assert (
        "rows:" in written and "unmeasurable" in written and _line(written, "conciseness")[9] == "0"
    )


def test_subject_finds_the_function_its_helpers_and_imports():
    subject = sa.subject_of(NORM, ["Computes the norm with `norm`."])
    assert subject.function == "norm"
    assert subject.context == "import math\ndef norm(xs: list[float]) -> float:"
    assert subject.unit_source == NORM  # the helper must come along to run
    alone = sa.subject_of("import os\n\n" + SCALE, ["Scales."])
    assert (
        alone.function == "scale"
        and alone.unit_source == SCALE
        and alone.context.startswith("def ")
    )
    # no summary names it: the function nothing else calls
    assert sa.subject_of(NORM, ["Some summary."]).function == "norm"
    assert sa.subject_of("x = 1\n", ["?"]) == "the code has no top-level function"
    assert sa.subject_of("def (:\n", ["?"]).startswith("the code does not parse")


def test_verdicts():
    assert sa.verdict(0.9, 0.2, "A") == "agree"
    assert sa.verdict(0.9, 0.2, "B") == "disagree"
    assert sa.verdict(0.5, 0.5 + 1e-12, "A") == "tie"
    assert sa.verdict(None, 0.2, "A") == "unmeasurable"


def test_without_a_model_it_says_how_to_run_and_exits_2(tmp_path):
    env = {**os.environ, "LITELLM_LOCAL_MODEL_COST_MAP": "True"}
    done = subprocess.run(
        [sys.executable, str(BENCH), "--output", str(tmp_path / "out.txt")],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=ROOT,
        env=env,
    )
    assert done.returncode == 2
    assert "no model configured" in done.stderr and "--model" in done.stderr
    assert "Traceback" not in done.stderr and done.stdout == ""
    assert not (tmp_path / "out.txt").exists()
