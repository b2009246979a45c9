"""SONAR and SSC scores in the editor: on command (``docfact.score``) or on save, as
configured, in the background, cancellable, with progress, cached like the judge.

SONAR and SSC score the asked-for function (or every documented function of the
document); SSC's High/Low threshold comes from the project's calibration set in the cache,
which the command line and the editor share. Scores are kept with the text of the unit
they describe, so they survive edits elsewhere in the document and hover shows them at once.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from ..cache import Cache
from ..model_layers import sonar_runs, ssc_runs
from ..sonar_ssc import scorable, score_units
from .background import BackgroundPass


class EditorScorer(BackgroundPass[[str | None, str]]):
    title = "docfact: SONAR and SSC scores"

    def wanted(self, uri: str, trigger: str) -> bool:
        """Whether scores should be computed for ``uri`` on ``trigger`` ("onSave", "manual")."""
        settings = self.server.state.settings_for(self.server.path_of(uri))
        return sonar_runs(settings, trigger) or ssc_runs(settings, trigger)

    async def work(
        self, uri: str, symbol: str | None = None, trigger: str = "manual"
    ) -> str | None:
        server = self.server
        state = await server.current_state(uri)
        if state is None:
            return None
        settings = server.state.settings_for(server.path_of(uri))
        documented = [(state.analysis, r) for r in state.analysis.units if scorable(r)]
        wanted = [(a, r) for a, r in documented if symbol is None or r.symbol == symbol]
        if not wanted:
            return "no documented function to score here"
        problem = self.blocked(settings.llm)
        if problem is not None:
            return problem
        sonar, ssc = sonar_runs(settings, trigger), ssc_runs(settings, trigger)
        client = server.judge.client(settings.llm)
        if client is None:  # the model was removed from the settings since the run began
            return None
        if sonar:
            await self.check_sandbox()
        cache = Cache(Path(settings.cache_dir) if settings.cache_dir else None)
        before = replace(client.stats)
        try:
            scores = {}
            if sonar:
                self.say_progress(uri, f"SONAR: {len(wanted)} function(s)")
                scores = await score_units(wanted, settings, cache, client, sonar=True, ssc=False)
            if ssc:  # tau from the project's calibration set: only these functions are sampled
                self.say_progress(uri, f"SSC: {len(wanted)} function(s)")
                understood = await score_units(
                    wanted, settings, cache, client, sonar=False, ssc=True
                )
                for name, found in understood.items():
                    if name in scores:
                        found.sonar = scores[name].sonar
                    scores[name] = found
        finally:
            cache.close()
            self.tell_calls(client, settings.llm, before)
        text = state.analysis.text
        server.state.set_scores(
            uri,
            {
                report.symbol: (
                    text[report.unit.span.start : report.unit.span.end],
                    scores[report.symbol],
                )
                for _, report in documented
                if report.symbol in scores
            },
        )
        server.republish(uri)
        return f"{len(scores)} function(s) scored"
