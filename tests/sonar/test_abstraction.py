from collections import Counter

import pytest

from docfact.sonar.abstraction import (
    abstraction,
    graph_edges,
    jaccard,
    lexical_similarity,
    pair_similarity,
    structural_similarity,
    token_bigrams,
)

WITH_TEMP = "def f(x):\n    y = x + 1\n    return y\n"
DIRECT = 'def f(x):\n    """Add one."""\n    return x + 1  # the answer\n'
CONTEXT = "def f(x):"


def test_multiset_jaccard():
    assert jaccard(Counter("aab"), Counter("abc")) == pytest.approx(
        2 / 4
    )  # min a1 b1; max a2 b1 c1
    assert jaccard(Counter(), Counter()) == 1.0
    assert jaccard(Counter("a"), Counter()) == 0.0


def test_graph_edges_of_a_tiny_program_listed_by_hand():
    assert graph_edges(WITH_TEMP) == Counter(
        {
            # syntax
            ("Module", "syntax", "FunctionDef"): 1,
            ("FunctionDef", "syntax", "arguments"): 1,
            ("arguments", "syntax", "arg"): 1,
            ("FunctionDef", "syntax", "Assign"): 1,
            ("FunctionDef", "syntax", "Return"): 1,
            ("Assign", "syntax", "Name"): 1,
            ("Assign", "syntax", "BinOp"): 1,
            ("BinOp", "syntax", "Name"): 1,
            ("BinOp", "syntax", "Add"): 1,
            ("BinOp", "syntax", "Constant"): 1,
            ("Return", "syntax", "Name"): 1,
            # control flow
            ("Assign", "flow", "Return"): 1,
            # data dependence: x from the parameter to the assignment, y from it to the return
            ("arg", "data", "Assign"): 1,
            ("Assign", "data", "Return"): 1,
        }
    )


def test_docstrings_and_comments_are_not_structure():
    assert graph_edges(DIRECT) == graph_edges("def f(x):\n    return x + 1\n")


def test_loop_flow_and_data_edges():
    edges = graph_edges("def f(xs):\n    t = 0\n    for x in xs:\n        t += x\n    return t\n")
    flow = {e for e in edges if e[1] in ("flow", "branch", "loop")}
    assert flow == {
        ("Assign", "flow", "For"),
        ("For", "branch", "AugAssign"),
        ("AugAssign", "loop", "For"),
        ("For", "branch", "Return"),
    }
    data = {e for e in edges if e[1] == "data"}
    assert data == {
        ("arg", "data", "For"),
        ("For", "data", "AugAssign"),
        ("Assign", "data", "AugAssign"),
        ("AugAssign", "data", "AugAssign"),
        ("Assign", "data", "Return"),
        ("AugAssign", "data", "Return"),
    }


def test_token_bigrams_drop_docstrings_comments_keywords_and_context_names():
    # WITH_TEMP keeps ( ) : y = + 1 y   (def, return are keywords; f, x are in the context)
    assert token_bigrams(WITH_TEMP, CONTEXT) == Counter(
        {
            ("(", ")"): 1,
            (")", ":"): 1,
            (":", "y"): 1,
            ("y", "="): 1,
            ("=", "+"): 1,
            ("+", "1"): 1,
            ("1", "y"): 1,
        }
    )
    # DIRECT keeps ( ) : + 1
    assert token_bigrams(DIRECT, CONTEXT) == Counter(
        {("(", ")"): 1, (")", ":"): 1, (":", "+"): 1, ("+", "1"): 1}
    )


def test_pair_similarity_computed_by_hand():
    # structural: 14 edges and 9 edges, 7 shared -> 7 / 16
    assert structural_similarity(WITH_TEMP, DIRECT) == pytest.approx(7 / 16)
    # lexical: 7 bigrams and 4 bigrams, 3 shared -> 3 / 8
    assert lexical_similarity(WITH_TEMP, DIRECT, CONTEXT) == pytest.approx(3 / 8)
    assert pair_similarity(WITH_TEMP, DIRECT, CONTEXT) == pytest.approx(0.5 * 7 / 16 + 0.5 * 3 / 8)
    assert pair_similarity(WITH_TEMP, WITH_TEMP, CONTEXT) == 1.0


def test_abstraction_is_one_minus_the_mean_pair_similarity():
    third = "def f(x):\n    return sum([x, 1])\n"
    pairs = [
        pair_similarity(a, b, CONTEXT)
        for a, b in [(WITH_TEMP, DIRECT), (WITH_TEMP, third), (DIRECT, third)]
    ]
    measure = abstraction([WITH_TEMP, DIRECT, third], CONTEXT, "from 1 model x 3 samples")
    assert measure.value == pytest.approx(1 - sum(pairs) / 3)
    assert measure.how == "3 programs from 1 model x 3 samples, 3 pairs" and not measure.approximate
    assert abstraction([WITH_TEMP, WITH_TEMP], CONTEXT, "").value == 0.0


def test_abstraction_needs_two_programs():
    measure = abstraction([WITH_TEMP], CONTEXT, "from 1 model x 9 samples")
    assert measure.value is None and measure.how.startswith("not measurable: 1 usable program")
