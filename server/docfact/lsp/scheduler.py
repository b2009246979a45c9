"""Per-document scheduling: debounce edits, cancel stale work, keep the newest only."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable

log = logging.getLogger(__name__)


class Scheduler:
    """Runs at most one pending job per key; a newer request cancels the older one."""

    def __init__(self) -> None:
        self._tasks: dict[str, asyncio.Task] = {}

    def schedule(self, key: str, delay_s: float, job: Callable[[], Awaitable[None]]) -> None:
        self.cancel(key)
        self._tasks[key] = asyncio.ensure_future(self._run(key, delay_s, job))

    async def _run(self, key: str, delay_s: float, job: Callable[[], Awaitable[None]]) -> None:
        try:
            if delay_s > 0:
                await asyncio.sleep(delay_s)
            await job()
        except asyncio.CancelledError:
            pass
        except Exception:  # a failing job must not take the server down
            log.exception("scheduled work for %s failed", key)
        finally:
            if self._tasks.get(key) is asyncio.current_task():
                del self._tasks[key]

    def cancel(self, key: str) -> None:
        task = self._tasks.pop(key, None)
        if task is not None and not task.done():
            task.cancel()

    def pending(self) -> int:
        return len(self._tasks)
