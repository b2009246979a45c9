import pytest

from docfact.sonar.regenerate import (
    build_context,
    context_function,
    context_imports,
    extract,
    function_node,
    import_line,
    is_stub,
    regenerate,
)
from docfact.source.python import parse_module

MODULE = '''\
import os
import numpy as np
from collections import Counter as Tally
from os.path import join
from .sibling import helper

def count_words(text: str, *, top: int = 3) -> list[tuple[str, int]]:
    """Count words."""
    words = np.array(text.split())
    return Tally(words).most_common(top)
'''


def test_context_is_the_signature_and_the_imports_the_function_uses():
    module = parse_module(MODULE)
    unit = next(u for u in module.units if u.name == "count_words")
    source = MODULE[unit.span.start : unit.span.end]
    context = build_context(source, module.imports)
    assert context == (
        "from collections import Counter as Tally\n"
        "import numpy as np\n"
        "def count_words(text: str, *, top: int = 3) -> list[tuple[str, int]]:"
    )
    assert context_function(context) == "count_words"
    assert (
        context_imports(context) == "from collections import Counter as Tally\nimport numpy as np"
    )


def test_the_signature_is_kept_as_written():
    source = 'def f(a: str = "",\n      b=(1, 2)) -> dict[str, int]:  # note\n    return {a: b}\n'
    assert build_context(source, []) == 'def f(a: str = "",\n      b=(1, 2)) -> dict[str, int]:'
    assert build_context("@cache\ndef g(x): return x\n", []) == "def g(x):"


def test_method_context_keeps_self_and_unparsable_source_gives_none():
    assert (
        build_context("    def area(self, scale=1):\n        return self.w * scale\n", [])
        == "def area(self, scale=1):"
    )
    assert build_context("def broken(:\n", []) is None


@pytest.mark.parametrize(
    "local, target, line",
    [
        ("os", "os", "import os"),
        ("np", "numpy", "import numpy as np"),
        ("join", "os.path.join", "from os.path import join"),
        ("Tally", "collections.Counter", "from collections import Counter as Tally"),
        ("helper", ".sibling.helper", "from .sibling import helper"),
        ("pkg", "..pkg", "from .. import pkg"),
    ],
)
def test_import_lines_rebuilt_from_module_imports(local, target, line):
    assert import_line(local, target) == line


def test_extract_fenced_code_after_prose():
    answer = (
        "Here you go:\n```python\nimport math\n\n"
        "def area(r):\n    return math.pi * r * r\n```\nEnjoy."
    )
    found = extract(answer, "area")
    assert found.code == "import math\n\ndef area(r):\n    return math.pi * r * r\n"
    assert found.usable_code == found.code and not found.stub


def test_extract_bare_code_with_trailing_prose_and_thinking():
    answer = (
        "<think>def area(r): pass</think>Sure.\n"
        "def area(r):\n    return 3 * r\nThis returns three r."
    )
    assert extract(answer, "area").code == "def area(r):\n    return 3 * r\n"


def test_extract_picks_the_fence_that_defines_the_function():
    answer = "```python\ndef helper():\n    return 1\n```\n```py\ndef area(r):\n    return r\n```"
    assert "def area" in extract(answer, "area").code


def test_extract_without_the_function_is_unusable():
    found = extract("```python\ndef other(x):\n    return x\n```", "area")
    assert found.code is None and found.usable_code is None and "area" in found.problem


@pytest.mark.parametrize(
    "body, stub",
    [
        ("pass", True),
        ("...", True),
        ('"""Only a docstring."""', True),
        ("raise", True),
        ("raise NotImplementedError('later')", True),
        ("return", True),
        ("return None", True),
        ('"""Doc."""\n    pass', True),
        ("return 0", False),
        ("raise ValueError('bad')", False),
        ("x = 1\n    pass", False),
    ],
)
def test_stub_bodies(body, stub):
    assert is_stub(function_node(f"def f(x):\n    {body}\n", "f")) is stub


async def test_regenerate_asks_for_all_samples_in_one_call(server, writer, client):
    writer.programs["Double it."] = [
        "def twice(x):\n    return 2 * x\n",
        "def twice(x):\n    pass\n",
    ]
    found = await regenerate(
        "Double it.", "def twice(x: int) -> int:", client, n=3, temperature=0.8
    )
    assert found.calls == 1 and found.error is None and len(server.requests) == 1
    assert [g.stub for g in found.items] == [False, True, True]
    body = server.requests[0].body
    assert body["n"] == 3 and body["temperature"] == 0.8
    system, user = body["messages"][0]["content"], body["messages"][1]["content"]
    assert "Follow every detail the docstring states" in system and "choose freely" in system
    assert "Output only Python code" in system
    assert "Double it." in user and "def twice(x: int) -> int:" in user


async def test_regenerate_tops_up_when_the_server_ignores_n(server, writer, client):
    server.honour_n = False
    writer.programs["Double it."] = ["def twice(x):\n    return 2 * x\n"]
    found = await regenerate("Double it.", "def twice(x):", client, n=3, temperature=0.8)
    assert found.calls == 3 and len(found.items) == 3 and found.error is None


async def test_regenerate_reports_a_failed_call(server, client):
    server.inject("500", always=True)
    found = await regenerate("Double it.", "def twice(x):", client, n=2)
    assert found.items == () and found.error
