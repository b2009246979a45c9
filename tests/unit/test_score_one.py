"""`score_one` (what `docfact score` runs) refuses clearly when no model is configured."""

import pytest

from docfact.config import Settings
from docfact.graph.build import ProjectGraph
from docfact.model_passes import ScoreError, score_one
from docfact.runner import FileJob

SOURCE = b'''
def add(a: int, b: int) -> int:
    """Return the sum of a and b."""
    return a + b
'''


def test_without_a_model_scoring_is_a_score_error():
    job = FileJob("arith.py", "arith.py", "arith", SOURCE)
    with pytest.raises(ScoreError, match="needs a model"):
        score_one(job, "add", ProjectGraph(), Settings(), None)
