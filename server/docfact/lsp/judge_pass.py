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

from ..cache import Cache
from ..config import LlmSettings
from ..engine import resolve
from ..model_layers import judge_runs
from .background import BackgroundPass, Host

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
        before = replace(client.stats)
        try:
            results = await judge_units(
                reports, state.analysis.text, server.state.evidence_for, settings.llm, cache, client
            )
        finally:
            cache.close()
            self.tell_calls(client, settings.llm, before)
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
        """Calls in flight and spent tokens, and what keeps the model features from
        working (``problems``), for the editor's status item."""
        clients = [c for c in self._clients.values() if c is not None]
        status: dict[str, int | list[str]] = {
            "inFlight": sum(c.in_flight for c in clients),
            "calls": sum(c.stats.calls for c in clients),
            "promptTokens": sum(c.stats.prompt_tokens for c in clients),
            "completionTokens": sum(c.stats.completion_tokens for c in clients),
            "failures": sum(c.stats.failures for c in clients),
            "problems": list(self.server.model_problems.values()),
        }
        self.server.protocol.notify(STATUS_NOTIFICATION, status)
