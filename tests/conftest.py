import os

import pytest


@pytest.fixture(autouse=True)
def _isolated_cache(tmp_path_factory, monkeypatch):
    """No test reads or writes the user's real docfact cache."""
    monkeypatch.setenv("DOCFACT_CACHE_DIR", str(tmp_path_factory.mktemp("docfact-cache")))
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
