"""File events from the client, coalesced and applied in bounded batches off the event loop.

Installing a package into a workspace's ``.venv`` sends thousands of events at once. The
handler only records them (one dict entry per path, the newest event wins); a task sorts
them in a worker thread, a batch at a time, so edits, hovers and the model's passes keep
being answered meanwhile; what follows (re-checking the open documents) happens once.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from pathlib import Path

log = logging.getLogger("docfact")
BATCH = 200  # events per trip to the worker thread


class WatchedFiles:
    """``apply(batch)`` runs in a worker thread and says whether anything it was given
    changed what the server knows; ``settled()`` runs on the loop after a burst that did."""

    def __init__(
        self,
        apply: Callable[[list[tuple[Path, bool]]], bool],
        settled: Callable[[], None],
        ready: Callable[[], Awaitable[None]],
    ) -> None:
        self._apply = apply
        self._settled = settled
        self._ready = ready  # awaited first: the start-up indexing
        self._pending: dict[Path, bool] = {}  # path -> deleted
        self._task: asyncio.Task | None = None

    def add(self, changes: list[tuple[Path, bool]]) -> None:
        for path, deleted in changes:
            self._pending.pop(path, None)  # re-inserted: the newest event orders it
            self._pending[path] = deleted
        if self._task is None or self._task.done():
            self._task = asyncio.ensure_future(self._drain())

    def pending(self) -> int:
        return len(self._pending)

    async def _drain(self) -> None:
        await self._ready()
        changed = False
        while self._pending:
            paths = list(self._pending)[:BATCH]
            batch = [(path, self._pending.pop(path)) for path in paths]
            try:
                changed |= await asyncio.to_thread(self._apply, batch)
            except Exception:  # one bad batch must not stop the events after it
                log.exception("applying %d file events failed", len(batch))
        if changed:
            self._settled()
