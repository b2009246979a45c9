"""Content-addressed results store: SQLite in WAL mode, safe for several processes.

Values are JSON. A corrupt file is moved aside and rebuilt; a failing cache never fails
a check, it only makes it slower, and an entry that cannot be read is a miss.

Entries are bound to this machine: every key is stored as an HMAC under a random secret kept
in the user's cache folder (mode 0600), so a cache folder that came with a repository (or
from another machine) holds no entry this machine will ever read: the cache holds results,
never instructions (docs/security.md).
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import hmac
import json
import logging
import os
import secrets
import sqlite3
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import platformdirs

from . import __version__

log = logging.getLogger(__name__)

_SCHEMA = """
CREATE TABLE IF NOT EXISTS results (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL,
    size INTEGER NOT NULL,
    used REAL NOT NULL
)
"""
_COLUMNS = ("key", "value", "size", "used")


def default_cache_dir() -> Path:
    override = os.environ.get("DOCFACT_CACHE_DIR")
    return Path(override) if override else Path(platformdirs.user_cache_dir("docfact"))


_KEY_BYTES = 32


def machine_key() -> bytes:
    """This machine's cache secret: read from the user's cache folder, or made there first
    (private to the user). When it cannot be kept, one for this process only: its cache
    entries are then never read again, which costs time and nothing else."""
    return _key_in(default_cache_dir())


@functools.cache
def _key_in(folder: Path) -> bytes:
    path = folder / "machine.key"
    try:
        return _read_key(path) or _make_key(path)
    except OSError as error:
        log.warning(
            "cannot keep the cache's key in %s (%s); cached results last this run only",
            path,
            error.strerror or error,
        )
        return secrets.token_bytes(_KEY_BYTES)


def _read_key(path: Path) -> bytes | None:
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return None
    if len(data) != _KEY_BYTES:
        raise OSError(f"{path} is not a key of {_KEY_BYTES} bytes")
    return data


def _make_key(path: Path) -> bytes:
    """A new key written to a private temporary file and linked into place: a process
    that finds the file finds it whole, and of two processes racing the first one wins."""
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}")
    handle = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(secrets.token_bytes(_KEY_BYTES))
        with contextlib.suppress(FileExistsError):
            os.link(temporary, path)
    finally:
        temporary.unlink(missing_ok=True)
    return _read_key(path) or b""


def cache_key(*parts: Any) -> str:
    """A key over everything a result depends on, docfact's version included."""
    digest = hashlib.sha256(__version__.encode())
    for part in parts:
        data = (
            part
            if isinstance(part, bytes)
            else json.dumps(part, sort_keys=True, default=str).encode()
        )
        digest.update(len(data).to_bytes(8, "little"))
        digest.update(data)
    return digest.hexdigest()


class Cache:
    """A key-value store of JSON results with a size cap and least-recently-used eviction."""

    def __init__(self, folder: Path | None = None, max_bytes: int = 512 * 1024 * 1024):
        self.folder = Path(folder) if folder else default_cache_dir()
        self.path = self.folder / "results.sqlite3"
        self.max_bytes = max_bytes
        self._db: sqlite3.Connection | None = None
        self.disabled_reason: str | None = None

    def _connect(self) -> sqlite3.Connection | None:
        if self._db is not None or self.disabled_reason:
            return self._db
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            self._db = self._open()
        except sqlite3.DatabaseError as error:
            self._db = self._recover(error)
        except OSError as error:
            self._disable(f"cannot use cache folder {self.folder}: {error.strerror or error}")
        return self._db

    def _open(self) -> sqlite3.Connection:
        db = sqlite3.connect(self.path, timeout=10, isolation_level=None)
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("PRAGMA synchronous=NORMAL")
        db.execute(_SCHEMA)
        columns = [row[1] for row in db.execute("PRAGMA table_info(results)")]
        if columns != list(_COLUMNS):  # another version's file, or not ours: rebuilt
            db.close()
            raise sqlite3.DatabaseError(f"a results table with columns {columns}")
        db.execute("SELECT count(*) FROM results").fetchone()
        return db

    def _recover(self, error: Exception) -> sqlite3.Connection | None:
        aside = self.path.with_name(f"{self.path.name}.corrupt-{int(time.time())}")
        log.warning("cache %s is unreadable (%s); moved to %s and rebuilt", self.path, error, aside)
        try:
            self.path.replace(aside)
            for suffix in ("-wal", "-shm"):
                Path(str(self.path) + suffix).unlink(missing_ok=True)
            return self._open()
        except (OSError, sqlite3.DatabaseError) as second:
            self._disable(f"cache {self.path} could not be rebuilt: {second}")
            return None

    def _disable(self, reason: str) -> None:
        self.disabled_reason = reason
        log.warning("%s; continuing without a cache", reason)

    def get_many(
        self, keys: Iterable[str], valid: Callable[[Any], bool] | None = None
    ) -> dict[str, Any]:
        """The stored values of ``keys``; one for which ``valid(value)`` is false (a value
        of another shape, written by another version or damaged) is a miss."""
        wanted = {_bound(key): key for key in keys}
        db = self._connect()
        if db is None or not wanted:
            return {}
        found: dict[str, Any] = {}
        stored = list(wanted)
        try:
            now = time.time()
            for start in range(0, len(stored), 500):
                chunk = stored[start : start + 500]
                marks = ",".join("?" * len(chunk))
                rows = db.execute(f"SELECT key, value FROM results WHERE key IN ({marks})", chunk)
                for key, text in rows:
                    value = _readable(text, valid)
                    if value is not None:
                        found[wanted[key]] = value
                # Recency for the least-recently-used eviction.
                db.execute(f"UPDATE results SET used=? WHERE key IN ({marks})", [now, *chunk])
        except sqlite3.DatabaseError as error:
            log.warning("cache read failed (%s); results will be recomputed", error)
            return {}
        return found

    def get(self, key: str, valid: Callable[[Any], bool] | None = None) -> Any | None:
        return self.get_many([key], valid).get(key)

    def put_many(self, items: dict[str, Any]) -> None:
        db = self._connect()
        if db is None or not items:
            return
        now = time.time()
        rows = []
        for key, value in items.items():
            text = json.dumps(value, separators=(",", ":"))
            rows.append((_bound(key), text, len(text), now))
        try:
            db.execute("BEGIN IMMEDIATE")
            db.executemany("INSERT OR REPLACE INTO results VALUES (?, ?, ?, ?)", rows)
            self._evict(db)
            db.execute("COMMIT")
        except sqlite3.DatabaseError as error:
            log.warning("cache write failed (%s); results were not stored", error)
            with contextlib.suppress(sqlite3.DatabaseError):
                db.execute("ROLLBACK")

    def put(self, key: str, value: Any) -> None:
        self.put_many({key: value})

    def _evict(self, db: sqlite3.Connection) -> None:
        total = db.execute("SELECT coalesce(sum(size), 0) FROM results").fetchone()[0]
        if total <= self.max_bytes:
            return
        excess = total - int(self.max_bytes * 0.9)
        doomed, freed = [], 0
        for key, size in db.execute("SELECT key, size FROM results ORDER BY used"):
            doomed.append((key,))
            freed += size
            if freed >= excess:
                break
        db.executemany("DELETE FROM results WHERE key=?", doomed)

    def clear(self) -> int:
        db = self._connect()
        if db is None:
            return 0
        count = db.execute("SELECT count(*) FROM results").fetchone()[0]
        db.execute("DELETE FROM results")
        db.execute("VACUUM")
        return count

    def close(self) -> None:
        if self._db is not None:
            self._db.close()
            self._db = None


def _bound(key: str) -> str:
    """The key as stored: bound to this machine's secret."""
    return hmac.new(machine_key(), key.encode(), hashlib.sha256).hexdigest()


def _readable(text: Any, valid: Callable[[Any], bool] | None) -> Any | None:
    """A stored value, or None when it cannot be read: not JSON, nested past the parser's
    depth, or of a shape ``valid`` refuses or cannot even look at (a damaged entry is a
    miss, never an error)."""
    try:
        value = json.loads(text)
        return value if valid is None or valid(value) else None
    except (ValueError, TypeError, KeyError, IndexError, AttributeError, RecursionError) as error:
        log.info("cache entry unreadable (%s); recomputed", type(error).__name__)
        return None
