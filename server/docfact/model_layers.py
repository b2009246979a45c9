"""When each model layer runs, decided in one place for the command line and the editor:
ReFEree's judge, SONAR and SSC. Every one needs a configured model. A trigger is "check"
(`docfact check`), "onSave" or "onType" (the editor), or "manual" (asked for: `docfact
score`, the editor's commands), which runs a layer whatever its settings say."""

from __future__ import annotations

from .config import Settings, SonarSettings, SscSettings

TRIGGERS = ("check", "onSave", "onType", "manual")


def judge_runs(settings: Settings, trigger: str) -> bool:
    """The judge: on every `check` with a model, in the editor when ``llm.run`` says."""
    return bool(settings.llm.model) and trigger in ("check", "manual", settings.llm.run)


def sonar_runs(settings: Settings, trigger: str) -> bool:
    """SONAR: when enabled, on `check` or when ``sonar.run`` says; always when asked for."""
    return _score_runs(settings, settings.sonar, trigger)


def ssc_runs(settings: Settings, trigger: str) -> bool:
    """SSC: when enabled, on `check` or when ``ssc.run`` says; always when asked for."""
    return _score_runs(settings, settings.ssc, trigger)


def _score_runs(settings: Settings, table: SonarSettings | SscSettings, trigger: str) -> bool:
    return bool(settings.llm.model) and (
        trigger == "manual" or (table.enabled and trigger in ("check", table.run))
    )
