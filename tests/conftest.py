import os

import pytest
from hypothesis import settings

# Shared CI machines are slow in bursts: a property's time is not what it tests.
settings.register_profile("docfact", deadline=None, print_blob=True)
settings.load_profile("docfact")


@pytest.fixture(autouse=True)
def _isolated_cache(tmp_path_factory, monkeypatch):
    """No test reads or writes the user's real docfact cache."""
    monkeypatch.setenv("DOCFACT_CACHE_DIR", str(tmp_path_factory.mktemp("docfact-cache")))
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
