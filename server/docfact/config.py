"""Settings: defaults < pyproject ``[tool.docfact]`` < editor settings < CLI flags.

One typed, fully defaulted model. Keys are snake_case inside; ``pyproject.toml`` may use
kebab-case (as ruff does) and editors camelCase. Unknown keys are rejected by name.
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on Python 3.10 only
    import tomli as tomllib

from .model import SEVERITIES

STYLES = ("auto", "google", "numpy", "sphinx", "epytext", "plain")


class ConfigError(ValueError):
    """A configuration value docfact cannot use; the message says which and why."""


PROTOCOLS = ("batched", "paper")
RUN_MODES = ("onSave", "onType", "manual")


class _Table:
    """A nested settings table (``[tool.docfact.llm]``, ...), validated field by field by
    the type of its default; ``_choices`` and ``_optional`` refine that."""

    _choices: dict[str, tuple[str, ...]] = {}
    _optional: dict[str, type] = {}  # fields whose default is None: the type they take

    def with_overrides(self, raw: Any, origin: str, table: str):
        if not isinstance(raw, dict):
            raise ConfigError(f"{origin}: {table} must be a table of settings")
        known = {f.name for f in fields(self)}
        unknown = sorted(k for k in raw if _snake(k) not in known)
        if unknown:
            raise ConfigError(f"{origin}: unknown {table} setting(s): {', '.join(unknown)}")
        changes = {}
        for key, value in raw.items():
            name = _snake(key)
            changes[name] = self._checked(name, value, f"{origin}: {table}.{name}")
        return replace(self, **changes)

    def _checked(self, name: str, value: Any, where: str) -> Any:
        default = getattr(self, name)
        if name in self._choices:
            if value not in self._choices[name]:
                raise ConfigError(f"{where}: {value!r} is not one of {', '.join(self._choices[name])}")
            return value
        kind = self._optional.get(name) or type(default)
        if value is None and name in self._optional:
            return None
        if kind is bool:
            if not isinstance(value, bool):
                raise ConfigError(f"{where} must be true or false")
            return value
        if kind is str:
            if not isinstance(value, str):
                raise ConfigError(f"{where} must be a string")
            return value or None
        if kind is tuple:
            if isinstance(value, str):
                value = [value]
            if not isinstance(value, (list, tuple)) or not all(isinstance(v, str) for v in value):
                raise ConfigError(f"{where} must be a list of strings")
            return tuple(value)
        if kind is float:
            if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
                raise ConfigError(f"{where} must be a non-negative number")
            return float(value)
        if isinstance(value, bool) or not isinstance(value, int) or value < self._least(name):
            raise ConfigError(f"{where} must be an integer >= {self._least(name)}")
        return value

    def _least(self, name: str) -> int:
        return 1


@dataclass(frozen=True)
class LlmSettings(_Table):
    """``[tool.docfact.llm]``: the model that judges sentences (none by default)."""

    model: str | None = None  # a litellm model string, e.g. "openai/gpt-4o-mini"
    api_base: str | None = None
    api_key_env: str | None = None  # the NAME of the variable holding the key, never the key
    temperature: float = 0.1
    top_p: float = 0.9
    timeout_s: float = 60.0
    max_retries: int = 3
    max_concurrency: int = 4
    votes: int = 1
    protocol: str = "batched"  # "batched" (one call per docstring) or "paper" (ReFEree's)
    run: str = "onSave"

    _choices = {"protocol": PROTOCOLS, "run": RUN_MODES}
    _optional = {"model": str, "api_base": str, "api_key_env": str}

    def _checked(self, name: str, value: Any, where: str) -> Any:
        value = super()._checked(name, value, where)
        if name == "api_key_env" and value and not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", value):
            raise ConfigError(f"{where} must be the name of an environment variable, not a key")
        return value

    def _least(self, name: str) -> int:
        return 0 if name == "max_retries" else 1


@dataclass(frozen=True)
class SonarSettings(_Table):
    """``[tool.docfact.sonar]``: SONAR's four scores, by regenerating code from the docstring
    (needs a model; runs on demand or on save, never on every keystroke)."""

    enabled: bool = False  # up to 13 model calls per function: opt in (or `check --sonar`)
    run: str = "manual"  # in the editor: "onSave", or "manual" (the docfact.score command)
    generators: tuple[str, ...] = ()  # litellm models of the Abstraction pool; () = llm.model
    samples: int = 9  # programs in the Abstraction pool, shared by the generators (paper 3 x 3)
    compressions: int = 3
    fuzz_cases: int = 200  # differential-testing inputs per comparison
    time_limit_s: float = 10.0  # sandbox wall clock per comparison
    fluency_model: str | None = None  # a local causal LM folder; default GPT-2 if cached, else n-grams
    # The project's interpreter, which runs its functions in their modules; default the
    # project's .venv (venv, env) when it has one, else docfact's own.
    python: str | None = None

    _choices = {"run": ("onSave", "manual")}
    _optional = {"fluency_model": str, "python": str}


@dataclass(frozen=True)
class SscSettings(_Table):
    """``[tool.docfact.ssc]``: semantic self-consistency, how well a model understands a
    function (needs a model)."""

    enabled: bool = False  # (or `check --ssc`)
    run: str = "manual"  # in the editor: "onSave", or "manual" (the docfact.score command)
    k: int = 8  # sampled summaries per function (the paper: 50)
    temperature: float = 0.8
    epsilon: float = 0.1  # conformal miscoverage: tau is the (1 - epsilon) quantile
    encoder: str | None = None  # a local encoder folder; default the packaged MiniLM
    encoder_layer: int | None = None  # hidden layer of the encoder; None = its default
    idf: bool = False  # idf-weighted BERTScore
    judge_votes: int = 3  # P3: judgements per summary, majority vote

    _choices = {"run": ("onSave", "manual")}
    _optional = {"encoder": str, "encoder_layer": int}

    def _checked(self, name: str, value: Any, where: str) -> Any:
        value = super()._checked(name, value, where)
        if name == "k" and value < 2:
            raise ConfigError(f"{where} must be at least 2 (SSC compares summaries in pairs)")
        if name == "epsilon" and not 0 < value < 1:
            raise ConfigError(f"{where} must be between 0 and 1")
        return value


_TABLES = ("llm", "sonar", "ssc")


@dataclass(frozen=True)
class Settings:
    select: tuple[str, ...] = ()  # code prefixes to enable beyond the defaults ("ALL" for all)
    ignore: tuple[str, ...] = ()  # code prefixes to disable
    per_file_ignores: tuple[tuple[str, tuple[str, ...]], ...] = ()  # (glob, codes)
    exclude: tuple[str, ...] = ()  # gitignore-style patterns, on top of .gitignore
    docstring_style: str = "auto"
    fail_on: str = "warning"
    severity: tuple[tuple[str, str], ...] = ()  # (code, severity) overrides
    max_file_bytes: int = 2_000_000
    cache_dir: str | None = None
    jobs: int = 0  # worker processes for `docfact check`; 0 = one per core
    # Editor only:
    debounce_ms: int = 250  # quiet time after an edit before the document is re-checked
    workspace_diagnostics: bool = False  # keep reporting closed files of the workspace
    llm: LlmSettings = LlmSettings()
    sonar: SonarSettings = SonarSettings()
    ssc: SscSettings = SscSettings()

    def with_overrides(self, raw: dict[str, Any], origin: str) -> "Settings":
        """These settings with the keys of ``raw`` applied (validated)."""
        known = {f.name for f in fields(self)}
        changes: dict[str, Any] = {}
        unknown = []
        for key, value in raw.items():
            name = _snake(key)
            if name not in known:
                unknown.append(key)
                continue
            if name in _TABLES:  # a nested table: merged over its current settings
                changes[name] = getattr(self, name).with_overrides(value, origin, name)
            else:
                changes[name] = _validate(name, value, origin)
        if unknown:
            raise ConfigError(f"{origin}: unknown setting(s): {', '.join(sorted(unknown))}")
        return replace(self, **changes)


def _snake(key: str) -> str:
    key = key.replace("-", "_")
    return re.sub(r"(?<=[a-z0-9])([A-Z])", lambda m: "_" + m.group(1).lower(), key)


def _codes(value: Any, what: str) -> tuple[str, ...]:
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, (list, tuple)) or not all(isinstance(v, str) for v in value):
        raise ConfigError(f"{what} must be a list of rule codes")
    codes = tuple(v.strip().upper() for v in value if v.strip())
    bad = [c for c in codes if c != "ALL" and not re.fullmatch(r"DF\d{0,3}", c)]
    if bad:
        raise ConfigError(f"{what}: not a docfact rule code or prefix: {', '.join(bad)}")
    return codes


def _validate(name: str, value: Any, origin: str) -> Any:
    where = f"{origin}: {name}"
    if name in ("select", "ignore"):
        return _codes(value, where)
    if name == "exclude":
        if isinstance(value, str):
            value = [value]
        if not isinstance(value, (list, tuple)) or not all(isinstance(v, str) for v in value):
            raise ConfigError(f"{where} must be a list of path patterns")
        import pathspec  # only where there are patterns to check

        for pattern in value:
            try:
                pathspec.PathSpec.from_lines("gitignore", [pattern])
            except ValueError as error:
                raise ConfigError(f"{where}: {pattern!r} is not a gitignore-style pattern ({error})") from None
        return tuple(value)
    if name == "per_file_ignores":
        if not isinstance(value, dict):
            raise ConfigError(f"{where} must be a table of pattern = [codes]")
        return tuple((str(k), _codes(v, f"{where}.{k}")) for k, v in value.items())
    if name == "severity":
        if not isinstance(value, dict):
            raise ConfigError(f"{where} must be a table of code = severity")
        pairs = []
        for code, level in value.items():
            if level not in SEVERITIES:
                raise ConfigError(f"{where}.{code}: {level!r} is not one of {', '.join(SEVERITIES)}")
            pairs.append((_codes(code, where)[0], level))
        return tuple(pairs)
    if name == "docstring_style":
        if value not in STYLES:
            raise ConfigError(f"{where}: {value!r} is not one of {', '.join(STYLES)}")
        return value
    if name == "fail_on":
        if value not in SEVERITIES and value != "never":
            raise ConfigError(f"{where}: {value!r} is not one of {', '.join(SEVERITIES)}, never")
        return value
    if name == "workspace_diagnostics":
        if not isinstance(value, bool):
            raise ConfigError(f"{where} must be true or false")
        return value
    if name in ("max_file_bytes", "jobs", "debounce_ms"):
        if not isinstance(value, int) or isinstance(value, bool) or value < 0:
            raise ConfigError(f"{where} must be a non-negative integer")
        return value
    if name == "cache_dir":
        if value is not None and not isinstance(value, str):
            raise ConfigError(f"{where} must be a path")
        return value
    raise AssertionError(name)  # every field of Settings is validated above


def find_pyproject(start: Path) -> Path | None:
    """The nearest pyproject.toml at or above ``start`` that has a [tool.docfact] table."""
    start = start.resolve()
    for folder in [start, *start.parents] if start.is_dir() else start.parents:
        candidate = folder / "pyproject.toml"
        if candidate.is_file() and _docfact_table(candidate) is not None:
            return candidate
    return None


def _docfact_table(path: Path) -> dict | None:
    try:
        with path.open("rb") as handle:
            document = tomllib.load(handle)
    except tomllib.TOMLDecodeError as error:
        raise ConfigError(f"{path}: not valid TOML: {error}") from None
    except OSError as error:
        raise ConfigError(f"{path}: cannot be read: {error.strerror}") from None
    except UnicodeDecodeError as error:
        raise ConfigError(f"{path}: not valid UTF-8 (byte {error.start}), as TOML must be") from None
    tool = document.get("tool")
    table = tool.get("docfact") if isinstance(tool, dict) else None  # `tool = "x"`: not ours
    return table if isinstance(table, dict) else None


def load_settings(start: Path, base: Settings | None = None) -> tuple[Settings, Path | None]:
    """Settings from the pyproject.toml governing ``start``, and the folder it is in."""
    settings = base or Settings()
    pyproject = find_pyproject(start)
    if pyproject is None:
        return settings, None
    return settings.with_overrides(_docfact_table(pyproject), str(pyproject)), pyproject.parent
