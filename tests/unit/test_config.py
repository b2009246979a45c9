"""Nested settings tables: [tool.docfact.llm], [tool.docfact.sonar], [tool.docfact.ssc]."""

import pytest

from docfact.config import ConfigError, Settings, load_settings


def test_tables_take_kebab_and_camel_keys_and_keep_the_other_defaults():
    settings = Settings().with_overrides(
        {
            "sonar": {"fuzz-cases": 50, "generators": ["openai/a", "openai/b"]},
            "ssc": {"encoderLayer": 9, "k": 4},
        },
        "test",
    )
    assert settings.sonar.fuzz_cases == 50
    assert settings.sonar.generators == ("openai/a", "openai/b")
    assert settings.sonar.compressions == 3 and settings.sonar.samples == 9
    assert (settings.ssc.k, settings.ssc.encoder_layer, settings.ssc.epsilon) == (4, 9, 0.1)


def test_a_later_layer_merges_over_an_earlier_one():
    first = Settings().with_overrides({"ssc": {"k": 4}}, "pyproject")
    second = first.with_overrides({"ssc": {"idf": True}}, "editor settings")
    assert (second.ssc.k, second.ssc.idf) == (4, True)


@pytest.mark.parametrize(
    "raw, message",
    [
        ({"sonar": {"bogus": 1}}, "unknown sonar setting(s): bogus"),
        ({"sonar": {"enabled": "yes"}}, "sonar.enabled must be true or false"),
        ({"sonar": {"samples": 0}}, "sonar.samples must be an integer >= 1"),
        ({"sonar": {"run": "onType"}}, "'onType' is not one of onSave, manual"),
        ({"sonar": {"generators": [1]}}, "sonar.generators must be a list of strings"),
        ({"sonar": "on"}, "sonar must be a table of settings"),
        ({"ssc": {"k": 1}}, "ssc.k must be an integer >= 2 (SSC compares summaries in pairs)"),
        ({"ssc": {"epsilon": 1.5}}, "ssc.epsilon must be between 0 and 1"),
        ({"ssc": {"encoder_layer": "nine"}}, "ssc.encoder_layer must be an integer"),
        ({"llm": {"api_key_env": "sk-live-123"}}, "must be the name of an environment variable"),
        ({"llm": {"protocol": "fast"}}, "'fast' is not one of batched, paper"),
    ],
)
def test_bad_values_are_named_in_the_message(raw, message):
    with pytest.raises(ConfigError, match=message.replace("(", r"\(").replace(")", r"\)")):
        Settings().with_overrides(raw, "pyproject.toml")


def test_optional_fields_accept_null_and_retries_may_be_zero():
    settings = Settings().with_overrides(
        {"llm": {"max_retries": 0}, "ssc": {"encoder_layer": None}}, "t"
    )
    assert settings.llm.max_retries == 0 and settings.ssc.encoder_layer is None


def test_pyproject_tables(tmp_path):
    (tmp_path / "pyproject.toml").write_text(
        "[tool.docfact.sonar]\nenabled = true\ncompressions = 5\n\n[tool.docfact.ssc]\nk = 6\n"
    )
    settings, root = load_settings(tmp_path)
    assert root == tmp_path
    assert settings.sonar.enabled and settings.sonar.compressions == 5 and settings.ssc.k == 6
