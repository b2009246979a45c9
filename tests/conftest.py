import os

import pytest
from hypothesis import settings

# Shared CI machines are slow in bursts: a property's time is not what it tests.
settings.register_profile("docfact", deadline=None, print_blob=True)
settings.load_profile("docfact")


@pytest.fixture(autouse=True)
def _isolated_cache(tmp_path_factory, monkeypatch):
    """No test reads or writes the user's real docfact cache. The offline fluency model
    (trained into the cache folder, ~35 s of CPU) is trained once per session and linked
    into each test's folder: every CLI or server a test starts would train it again."""
    cache = tmp_path_factory.mktemp("docfact-cache")
    monkeypatch.setenv("DOCFACT_CACHE_DIR", str(cache))
    # ... nor the user's own config file (~/.config/docfact/config.toml).
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path_factory.mktemp("config-home")))
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    from docfact.sonar.fluency import prose_model_path

    mine = prose_model_path()
    shared = tmp_path_factory.getbasetemp() / "shared-fluency" / mine.name
    if shared.exists():
        os.link(shared, mine)  # training replaces the file, never writes through the link
    yield
    if not shared.exists() and mine.is_file():
        shared.parent.mkdir(exist_ok=True)
        os.link(mine, shared)
