"""Helpers shared by the model tests (fixtures live in conftest.py)."""

import sqlite3

from docfact.config import Settings
from docfact.engine import FileAnalysis, analyze

SECRET = "sk-docfact-FAKE-5ecret-4711"
KEY_ENV = "DOCFACT_TEST_LLM_KEY"


def analyze_text(text: str, module_name: str = "sample") -> FileAnalysis:
    return analyze(text, f"{module_name}.py", module_name, Settings())


def cached_rows(cache) -> int:
    """Rows in the cache's SQLite file, read directly."""
    with sqlite3.connect(cache.path) as db:
        return db.execute("SELECT count(*) FROM results").fetchone()[0]
