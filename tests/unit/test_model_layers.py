"""When each model layer runs, for `docfact check` and the editor alike."""

import pytest

from docfact.config import Settings
from docfact.model_layers import judge_runs, sonar_runs, ssc_runs

MODEL = {"llm": {"model": "openai/m"}}


def settings(**raw) -> Settings:
    return Settings().with_overrides(raw, "test")


@pytest.mark.parametrize("trigger", ["check", "onSave", "onType", "manual"])
def test_nothing_runs_without_a_model(trigger):
    plain = settings(sonar={"enabled": True}, ssc={"enabled": True})
    runs = [judge_runs(plain, trigger), sonar_runs(plain, trigger), ssc_runs(plain, trigger)]
    assert runs == [False, False, False]


def test_the_judge_runs_on_check_when_asked_and_when_llm_run_says():
    on_save = settings(**MODEL)
    assert [judge_runs(on_save, t) for t in ("check", "onSave", "onType", "manual")] == [
        True,
        True,
        False,
        True,
    ]
    on_type = settings(llm={"model": "openai/m", "run": "onType"})
    assert [judge_runs(on_type, t) for t in ("onSave", "onType")] == [False, True]


def test_scores_run_when_enabled_on_check_or_their_run_and_always_when_asked():
    off = settings(**MODEL)
    assert [sonar_runs(off, t) for t in ("check", "onSave", "manual")] == [False, False, True]
    sonar = settings(**MODEL, sonar={"enabled": True})
    assert [sonar_runs(sonar, t) for t in ("check", "onSave", "manual")] == [True, False, True]
    assert not ssc_runs(sonar, "check")
    on_save = settings(**MODEL, ssc={"enabled": True, "run": "onSave"})
    assert [ssc_runs(on_save, t) for t in ("check", "onSave", "onType")] == [True, True, False]
