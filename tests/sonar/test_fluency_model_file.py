"""`sonar.fluency_model` pointing at a pickle or at garbage: one clear reason, no traceback,
and nothing in the pickle runs (the weights must be safetensors)."""

import pickle
import subprocess

import pytest

from docfact.sonar.fluency import _causal_lm

REASON = "not a causal language model folder with safetensors weights"


class _Payload:
    """Unpickled, it would create the file ``marker``."""

    def __init__(self, marker):
        self.marker = marker

    def __reduce__(self):
        return (subprocess.call, (["touch", str(self.marker)],))


@pytest.fixture
def pickled_model(tmp_path):
    folder = tmp_path / "model"
    folder.mkdir()
    (folder / "config.json").write_text('{"model_type": "gpt2"}')
    (folder / "pytorch_model.bin").write_bytes(pickle.dumps(_Payload(tmp_path / "PWNED")))
    return folder


def test_a_pickled_model_is_refused_with_one_reason(pickled_model, tmp_path):
    pytest.importorskip("transformers")
    reason = _causal_lm(str(pickled_model))
    assert isinstance(reason, str) and reason.startswith(REASON)
    assert not (tmp_path / "PWNED").exists()


@pytest.mark.parametrize("content", [b"\x80\x04garbage", b"", b"{not json"])
def test_a_file_of_garbage_is_refused_with_one_reason(tmp_path, content):
    pytest.importorskip("transformers")
    path = tmp_path / "weights.pkl"
    path.write_bytes(content)
    reason = _causal_lm(str(path))
    assert isinstance(reason, str) and reason.startswith(REASON)
