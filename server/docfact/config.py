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


@dataclass(frozen=True)
class LlmSettings:
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

    def with_overrides(self, raw: Any, origin: str) -> "LlmSettings":
        if not isinstance(raw, dict):
            raise ConfigError(f"{origin}: llm must be a table of model settings")
        known = {f.name: f for f in fields(self)}
        unknown = sorted(k for k in raw if _snake(k) not in known)
        if unknown:
            raise ConfigError(f"{origin}: unknown llm setting(s): {', '.join(unknown)}")
        changes = {}
        for key, value in raw.items():
            name = _snake(key)
            changes[name] = _validate_llm(name, value, getattr(self, name), f"{origin}: llm.{name}")
        return replace(self, **changes)


def _validate_llm(name: str, value: Any, default: Any, where: str) -> Any:
    choices = {"protocol": PROTOCOLS, "run": RUN_MODES}.get(name)
    if choices is not None:
        if value not in choices:
            raise ConfigError(f"{where}: {value!r} is not one of {', '.join(choices)}")
        return value
    if default is None or isinstance(default, str):
        if value is not None and not isinstance(value, str):
            raise ConfigError(f"{where} must be a string")
        if name == "api_key_env" and value and not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", value):
            raise ConfigError(f"{where} must be the name of an environment variable, not a key")
        return value or None
    if isinstance(default, float):
        if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
            raise ConfigError(f"{where} must be a non-negative number")
        return float(value)
    if isinstance(value, bool) or not isinstance(value, int) or value < (1 if name != "max_retries" else 0):
        raise ConfigError(f"{where} must be a positive integer")
    return value


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
            if name == "llm":  # a nested table: merged over the current model settings
                changes[name] = self.llm.with_overrides(value, origin)
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
    table = document.get("tool", {}).get("docfact")
    return table if isinstance(table, dict) else None


def load_settings(start: Path, base: Settings | None = None) -> tuple[Settings, Path | None]:
    """Settings from the pyproject.toml governing ``start``, and the folder it is in."""
    settings = base or Settings()
    pyproject = find_pyproject(start)
    if pyproject is None:
        return settings, None
    return settings.with_overrides(_docfact_table(pyproject), str(pyproject)), pyproject.parent
