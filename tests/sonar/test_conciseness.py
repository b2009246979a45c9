"""Conciseness with the scripted model server and the real sandbox."""

import pytest

from docfact.sonar.conciseness import clean_compression, conciseness

DOCSTRING = "Return the sum of the two given integers a and b, added together, as an integer value."
CONTEXT = "def add(a: int, b: int) -> int:"
REFERENCE = "def add(a, b):\n    return a + b\n"


async def test_the_shortest_preserving_compression_sets_n(server, writer, client):
    writer.compressions[DOCSTRING] = ["Return a-b.", "Sum of a and b.", DOCSTRING]
    writer.programs["Return a-b."] = ["def add(a, b):\n    return a - b\n"]  # shortest, wrong
    writer.programs["Sum of a and b."] = ["```python\ndef add(a, b):\n    return b + a\n```"]
    result = await conciseness(DOCSTRING, CONTEXT, "add", REFERENCE, client, n=3, cases=50)
    ratio = 1 - len("Sum of a and b.") / len(DOCSTRING)
    assert result.measure.value == pytest.approx(1 - ratio)
    assert result.compression == "Sum of a and b."
    assert result.complete and not result.measure.approximate
    assert "3 compressions" in result.measure.how and "FuncSim over" in result.measure.how
    # one call for the three compressions, one regeneration per shorter compression: the
    # unchanged one is not regenerated (its ratio is 0 whatever it yields)
    assert result.calls == 3 and len(server.requests) == 3
    assert server.requests[0].body["n"] == 3
    assert writer.seen.count("regenerate") == 2


async def test_none_preserving_gives_one(server, writer, client):
    writer.compressions[DOCSTRING] = ["Return a-b.", "Return a*b."]
    writer.programs["Return a-b."] = ["def add(a, b):\n    return a - b\n"]
    writer.programs["Return a*b."] = ["def add(a, b):\n    pass\n"]  # a stub preserves nothing
    result = await conciseness(DOCSTRING, CONTEXT, "add", REFERENCE, client, n=2, cases=50)
    assert result.measure.value == 1.0 and result.compression is None
    assert "none preserves" in result.measure.how


async def test_an_incompressible_docstring_costs_one_call(server, writer, client):
    result = await conciseness("Add.", CONTEXT, "add", REFERENCE, client, n=3)  # echoed back
    assert result.measure.value == 1.0 and result.calls == 1 and result.complete


async def test_a_reference_that_cannot_run_is_compared_structurally(server, writer, client):
    reference = "def add(a, b):\n    print(a + b)\n"
    writer.compressions[DOCSTRING] = ["Print a+b."]
    writer.programs["Print a+b."] = ["def add(a, b):\n    print(a + b)\n"]
    result = await conciseness(DOCSTRING, CONTEXT, "add", reference, client, n=1)
    assert result.measure.approximate and "does I/O (print)" in result.measure.how
    assert result.compression == "Print a+b."  # identical code: similarity 1.0


async def test_a_failed_compression_call_is_not_complete(server, client):
    server.inject("500", always=True)
    result = await conciseness(DOCSTRING, CONTEXT, "add", REFERENCE, client, n=3)
    assert not result.complete


@pytest.mark.parametrize(
    "answer, text",
    [
        ('"""Add a and b."""', "Add a and b."),
        ("```\nAdd a and b.\n```", "Add a and b."),
        ("  Add a and b.\n", "Add a and b."),
    ],
)
def test_compressions_lose_their_wrapping(answer, text):
    assert clean_compression(answer) == text
