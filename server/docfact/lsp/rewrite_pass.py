"""Verified rewrites in the editor: "Describe more abstractly" (SONAR-guided, offered only
when Correctness holds and Abstraction rises) and "Rewrite this sentence" (offered only
when the model judge finds the correction consistent on all four criteria).

Finding them costs model calls and sandbox runs, so it is a background pass started from a
code action; the verified rewrites it finds are then offered as code actions with exact
edits, kept with the text of the unit they were made for.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from lsprotocol import types

from ..cache import Cache
from ..sonar_ssc import more_abstract, scorable
from .background import BackgroundPass

if TYPE_CHECKING:
    from ..analysis import UnitAnalysis
    from ..config import Settings
    from ..llm.client import LlmClient
    from ..sonar.rewrite import Rewrite
    from .state import DocumentState

ABSTRACT = "abstract"  # the kind of a whole-description rewrite; else a sentence's text


class EditorRewriter(BackgroundPass[[str, str | None, str]]):
    title = "docfact: verified rewrites"

    async def work(
        self, uri: str, symbol: str, sentence: str | None = None, reason: str = ""
    ) -> str | None:
        server = self.server
        state = await server.current_state(uri)
        if state is None:
            return None
        report = next((r for r in state.analysis.units if r.symbol == symbol), None)
        if report is None or not scorable(report):
            return None
        settings = server.state.settings_for(server.path_of(uri))
        problem = self.blocked(settings.llm)
        if problem is not None:
            return problem
        client = server.judge.client(settings.llm)
        if client is None:  # the model was removed from the settings since the run began
            return None
        offers: Sequence[Rewrite | str]
        unit = report.unit
        unit_text = state.analysis.text[unit.span.start : unit.span.end]
        key = (symbol, sentence or ABSTRACT)
        cache = Cache(Path(settings.cache_dir) if settings.cache_dir else None)
        # Asked again after none was verified: new candidates, not the cached verdict.
        retry = server.state.rewrites(uri, key, unit_text) == []
        if sentence is None:  # verified by SONAR's runs
            await self.check_sandbox()
        before = replace(client.stats)
        try:
            if sentence is None:
                offers, note = await self._abstract(
                    state, report, settings, client, None if retry else cache
                )
            else:
                offers, note = await self._sentence(
                    state, report, sentence, reason, settings, client, None if retry else cache
                )
        finally:
            cache.close()
            self.tell_calls(client, settings.llm, before)
        server.state.set_rewrites(uri, key, unit_text, offers)
        server.window_show_message(
            types.ShowMessageParams(type=types.MessageType.Info, message=note)
        )
        return None

    async def _abstract(
        self,
        state: DocumentState,
        report: UnitAnalysis,
        settings: Settings,
        client: LlmClient,
        cache: Cache | None,
    ) -> tuple[list[Rewrite], str]:
        scored = state.scored.get(report.symbol)
        offers, note = await more_abstract(
            state.analysis, report, client, settings, cache, scored.sonar if scored else None
        )
        return offers, f"{note}: see the code actions on its docstring" if offers else note

    async def _sentence(
        self,
        state: DocumentState,
        report: UnitAnalysis,
        sentence: str,
        reason: str,
        settings: Settings,
        client: LlmClient,
        cache: Cache | None,
    ) -> tuple[list[str], str]:
        from ..sonar.rewrite import sentence_rewrite

        evidence = self.server.state.evidence(report.symbol)
        fixed = await sentence_rewrite(
            report, state.analysis.text, evidence, sentence, reason, client, settings.llm, cache
        )
        if fixed is None:
            return (
                [],
                "docfact: no correction of that sentence was found consistent by the model judge",
            )
        return [
            fixed
        ], "docfact: a correction checked by the model judge: see the code actions on the sentence"
