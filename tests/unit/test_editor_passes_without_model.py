"""The editor's model passes, started while a model was configured, end quietly when the
settings no longer name one by the time they run (no client: nothing to ask)."""

import asyncio

import pytest

from docfact.lsp.judge_pass import EditorJudge
from docfact.lsp.rewrite_pass import EditorRewriter
from docfact.lsp.score_pass import EditorScorer
from docfact.lsp.state import Workspace

SOURCE = '''
def add(a: int, b: int) -> int:
    """Return the sum of a and b."""
    return a + b
'''


class Host:
    """The language server as the passes see it, with one open document."""

    def __init__(self, tmp_path):
        self.path = str(tmp_path / "arith.py")
        self.uri = (tmp_path / "arith.py").as_uri()
        self.state = Workspace()
        self.state.opened(self.uri)
        self.analysis = self.state.analyze(self.uri, self.path, SOURCE, 1)
        self.judge = EditorJudge(self)
        self.republished = []
        self.model_problems = {}

    def path_of(self, uri):
        return self.path

    async def current_state(self, uri):
        return self.analysis

    def republish(self, uri):
        self.republished.append(uri)

    def warn_once(self, message):
        raise AssertionError(message)

    def window_show_message(self, params):
        raise AssertionError(params.message)


@pytest.mark.parametrize(
    ("make", "args"),
    [
        (EditorJudge, ()),
        (EditorScorer, ("arith.add", "manual")),
        (EditorRewriter, ("arith.add", None, "")),
    ],
)
def test_a_pass_without_a_model_does_nothing(tmp_path, monkeypatch, make, args):
    monkeypatch.setenv("DOCFACT_CACHE_DIR", str(tmp_path / "cache"))
    host = Host(tmp_path)
    asyncio.run(make(host).work(host.uri, *args))
    assert host.analysis.judged == {} and host.analysis.scored == {}
