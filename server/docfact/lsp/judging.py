"""The model judge in the editor: when it runs, cancellation, progress and status.

The judge runs per ``llm.run`` (on save by default, never on every keystroke unless asked)
in a task of its own that a newer version of the document cancels. Server-to-client
requests (progress creation) stay outside that cancellable task: pygls 2.1.1 crashes on
the reply to a request whose awaiting task was cancelled.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import replace
from pathlib import Path

from lsprotocol import types

from ..cache import Cache
from ..config import LlmSettings
from ..engine import resolve

log = logging.getLogger("docfact")
STATUS_NOTIFICATION = "docfact/status"


class EditorJudge:
    def __init__(self, server) -> None:
        self.server = server
        self._tasks: dict[str, asyncio.Task] = {}
        self._clients: dict[LlmSettings, object] = {}
        self._progress = 0

    def wanted(self, uri: str, trigger: str) -> bool:
        """Whether the judge should run for ``uri`` on ``trigger`` ("onSave", "onType")."""
        llm = self.server.state.settings_for(self.server.path_of(uri)).llm
        return bool(llm.model) and (llm.run == trigger or trigger == "manual")

    def cancel(self, uri: str) -> None:
        task = self._tasks.pop(uri, None)
        if task is not None and not task.done():
            task.cancel()

    async def run(self, uri: str) -> None:
        """Judge the document's current version, with work-done progress that always ends."""
        token = await self._begin_progress(uri)
        self.cancel(uri)
        task = asyncio.ensure_future(self._judge(uri))
        self._tasks[uri] = task
        try:
            await task
        except asyncio.CancelledError:
            pass  # a newer version arrived: its own run will judge it
        except Exception:
            log.exception("the model judge failed; deterministic diagnostics are unaffected")
        finally:
            if self._tasks.get(uri) is task:
                del self._tasks[uri]
            if token is not None:
                self.server.work_done_progress.end(token, types.WorkDoneProgressEnd())
            self._status()

    async def _judge(self, uri: str) -> None:
        from ..llm import judge_units  # litellm loads on the first judgement, not at start-up

        server = self.server
        state = await server.current_state(uri)
        if state is None:
            return
        settings = server.state.settings_for(server.path_of(uri))
        client = self._client(settings.llm)
        project = server.state.project
        reports = [replace(report, findings=resolve(report.findings, project))
                   for report in state.analysis.units]
        cache = Cache(Path(settings.cache_dir) if settings.cache_dir else None)
        try:
            results = await judge_units(reports, state.analysis.text, server.state.evidence_for,
                                        settings.llm, cache, client)
        finally:
            cache.close()
        notice = client.take_notice()
        if notice:
            server.window_show_message(types.ShowMessageParams(
                type=types.MessageType.Warning, message=f"docfact: {notice}"))
        if server.document(uri).version != state.version:
            return  # the text changed while the model answered
        server.state.set_judgement(uri, state.version, results)
        server.republish(uri)

    def _client(self, llm: LlmSettings):
        from ..llm import client_for

        if llm not in self._clients:
            self._clients[llm] = client_for(llm)
        return self._clients[llm]

    async def _begin_progress(self, uri: str):
        window = self.server.client_capabilities.window
        if not (window and window.work_done_progress):
            return None
        self._progress += 1
        token = f"docfact-judge-{self._progress}"
        try:
            await self.server.work_done_progress.create_async(token)
        except Exception:
            return None
        self.server.work_done_progress.begin(token, types.WorkDoneProgressBegin(
            title="docfact: model judge", message=Path(self.server.path_of(uri)).name,
            cancellable=False))
        return token

    def _status(self) -> None:
        """Calls in flight and spent tokens, for the editor's status item."""
        totals = {"inFlight": 0, "calls": 0, "promptTokens": 0, "completionTokens": 0,
                  "failures": 0}
        for client in self._clients.values():
            totals["inFlight"] += client.in_flight
            totals["calls"] += client.stats.calls
            totals["promptTokens"] += client.stats.prompt_tokens
            totals["completionTokens"] += client.stats.completion_tokens
            totals["failures"] += client.stats.failures
        self.server.protocol.notify(STATUS_NOTIFICATION, totals)
