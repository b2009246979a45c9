"""The model judge in the editor: when it runs, and its status.

The judge runs per ``llm.run`` (on save by default, never on every keystroke unless asked)
as a background pass that a newer version of the document cancels. Verdicts are kept with
the text of the unit they judge: typing elsewhere moves them along, typing in the unit
drops them until the next run (the hover says it is pending).
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from lsprotocol import types

from ..cache import Cache
from ..config import LlmSettings
from ..engine import resolve
from ..model_layers import judge_runs
from .background import BackgroundPass, Host, unanswered

if TYPE_CHECKING:
    from ..llm.client import LlmClient  # litellm is imported with the first client

STATUS_NOTIFICATION = "docfact/status"


class EditorJudge(BackgroundPass[[]]):
    title = "docfact: model judge"

    def __init__(self, server: Host) -> None:
        super().__init__(server)
        self._clients: dict[LlmSettings, LlmClient | None] = {}

    def wanted(self, uri: str, trigger: str) -> bool:
        """Whether the judge should run for ``uri`` on ``trigger`` ("onSave", "onType")."""
        return judge_runs(self.server.state.settings_for(self.server.path_of(uri)), trigger)

    async def work(self, uri: str) -> str | None:
        from ..llm import judge_units  # litellm loads on the first judgement, not at start-up

        server = self.server
        state = await server.current_state(uri)
        if state is None:
            return None
        settings = server.state.settings_for(server.path_of(uri))
        problem = self.blocked(settings.llm)
        if problem is not None:
            return problem
        client = self.client(settings.llm)
        if client is None:  # the model was removed from the settings since the run began
            return None
        project = server.state.project
        reports = [
            replace(report, findings=resolve(report.findings, project))
            for report in state.analysis.units
        ]
        cache = Cache(Path(settings.cache_dir) if settings.cache_dir else None)
        failed_before = client.stats.failures
        try:
            results = await judge_units(
                reports, state.analysis.text, server.state.evidence_for, settings.llm, cache, client
            )
        finally:
            cache.close()
        notice = client.take_notice()
        if notice:
            server.window_show_message(
                types.ShowMessageParams(
                    type=types.MessageType.Warning, message=f"docfact: {notice}"
                )
            )
        elif client.stats.failures > failed_before:
            server.warn_once(unanswered(settings.llm))  # each failure and why: in the log
        # Kept with the text of each unit judged: if the document changed while the model
        # answered, the units it left as they were still get their verdicts.
        server.state.set_judgement(uri, state, results)
        server.republish(uri)
        return None

    def client(self, llm: LlmSettings) -> LlmClient | None:
        from ..llm import client_for

        if llm not in self._clients:
            self._clients[llm] = client_for(llm)
        return self._clients[llm]

    def finished(self) -> None:
        """Calls in flight and spent tokens, for the editor's status item."""
        totals = {
            "inFlight": 0,
            "calls": 0,
            "promptTokens": 0,
            "completionTokens": 0,
            "failures": 0,
        }
        for client in filter(None, self._clients.values()):
            totals["inFlight"] += client.in_flight
            totals["calls"] += client.stats.calls
            totals["promptTokens"] += client.stats.prompt_tokens
            totals["completionTokens"] += client.stats.completion_tokens
            totals["failures"] += client.stats.failures
        self.server.protocol.notify(STATUS_NOTIFICATION, totals)
