"""A malformed or poisoned SSC entry in a real SQLite cache file is a miss, never a
traceback: every stored value (summaries, similarities, judge votes, the project's
calibration set) is overwritten in the file with a value of the wrong shape, and the next
run asks the model again and gets the labels of a clean run."""

import json
import sqlite3

import pytest
from test_ssc import client, functions, server, summary_requests  # noqa: F401 (fixtures)

from docfact.cache import Cache
from docfact.config import SscSettings
from docfact.understand import ssc

POISONS = {
    # k texts that are no texts; votes that are no votes
    "numbers": [1, 2, 3, 4],
    # similarities of no shape, and a calibration alpha no float can hold
    "shapes": {"pairwise": 1, "docstring": "x"},
    "ragged": {"pairwise": [[1.0] * 4, [1.0] * 4, [1.0], [1.0] * 4], "docstring": None},
    "nested votes": [[[True]], [[False]], [["x"]], [[None]]],
}


def poison(folder, value, where: str = "%") -> int:
    """Every entry of the cache file at ``folder`` whose value is like ``where`` replaced
    by ``value``; how many."""
    with sqlite3.connect(folder / "results.sqlite3") as db:
        text = json.dumps(value)
        return db.execute(
            "UPDATE results SET value=?, size=? WHERE value LIKE ?", (text, len(text), where)
        ).rowcount


@pytest.mark.parametrize("name", POISONS)
async def test_a_poisoned_entry_is_a_miss(name, server, client, minilm, tmp_path):  # noqa: F811
    project = functions(["ok0", "ok1", "ok2", "chaos1"])
    settings = SscSettings(enabled=True, k=4, epsilon=0.35, judge_votes=1)
    clean = await ssc.understand_project(
        project, client, settings, Cache(tmp_path), minilm, judge_client=client, project="p"
    )
    asked = len(summary_requests(server))
    # summaries and votes of each function, two similarities (ok0-2 agree), the calibration
    assert poison(tmp_path, POISONS[name]) == 4 + 4 + 2 + 1

    again = await ssc.understand_project(
        project, client, settings, Cache(tmp_path), minilm, judge_client=client, project="p"
    )

    assert again.errors == {} and again.calls_saved == 0
    assert len(summary_requests(server)) == 2 * asked  # every summary asked again
    labels = {s: f.label for s, f in clean.p1.functions.items()}
    assert {s: f.label for s, f in again.p1.functions.items()} == labels
    assert {s: j.share for s, j in again.p3.items()} == {s: j.share for s, j in clean.p3.items()}


async def test_a_calibration_alpha_no_float_holds_is_left_out(server, client, minilm, tmp_path):  # noqa: F811
    """The project's calibration set, its summaries and similarities intact: an alpha of
    4,000 digits (an int to JSON; float() of it raised OverflowError) is not kept."""
    project = functions(["ok0", "ok1", "ok2", "chaos1"])
    settings = SscSettings(enabled=True, k=4, epsilon=0.35)
    clean = await ssc.understand_project(
        project, client, settings, Cache(tmp_path), minilm, project="p"
    )
    huge = {name: {"p1": 10**4000, "p2": 10**4000} for name in ("ok0", "ok1", "ok2", "chaos1")}
    assert poison(tmp_path, huge, '{"ok0":%') == 1

    again = await ssc.understand_project(
        project, client, settings, Cache(tmp_path), minilm, project="p"
    )

    assert again.errors == {} and again.calls_saved == 4
    assert again.p1 == clean.p1 and again.p2 == clean.p2
