"""Settings: defaults < the user's config file < pyproject ``[tool.docfact]`` < editor
settings < CLI flags.

A repository's ``pyproject.toml`` is untrusted input: the settings that decide where text
goes or what runs (``Spec.trusted``) are taken from it only when the user trusts that
repository (``--trust-project``, VS Code's workspace trust); otherwise they come from the
user's own config file (``~/.config/docfact/config.toml``, the schema of ``[tool.docfact]``),
flags and editor settings only, and what was left out is said once.

One typed, fully defaulted model. Keys are snake_case inside; ``pyproject.toml`` may use
kebab-case (as ruff does) and editors camelCase. Unknown keys are rejected by name.
Every setting is declared once, with how it is read (``setting``: its kind, the values it
may take, and whether the editor shows it); the VS Code extension's list of settings is
tested against these declarations.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any, NamedTuple, TypeVar

import platformdirs

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on Python 3.10 only
    import tomli as tomllib

from .model import SEVERITIES
from .source.files import MOST_WILDCARDS, SkippedFile, read_regular, too_costly

STYLES = ("auto", "google", "numpy", "sphinx", "epytext", "plain")
PROTOCOLS = ("batched", "paper")
RUN_MODES = ("onSave", "onType", "manual")


class ConfigError(ValueError):
    """A configuration value docfact cannot use; the message says which and why."""


# How a value is read, by kind: "bool", "int", "number", "fraction" (strictly between 0
# and 1), "text" (a string; "" is unset), "path", "texts" (a list of strings), "env_name"
# (the name of an environment variable), "choice", "codes" (rule codes or prefixes),
# "patterns" (gitignore-style), "file_codes" (glob = [codes]), "severities" (code =
# severity), "table" (a nested table of settings).
KINDS = (
    "bool",
    "int",
    "number",
    "fraction",
    "text",
    "path",
    "texts",
    "env_name",
    "choice",
    "codes",
    "patterns",
    "file_codes",
    "severities",
    "table",
)


@dataclass(frozen=True)
class Spec:
    """How one setting is read."""

    kind: str
    choices: tuple[str, ...] = ()  # kind "choice": the values it may take
    least: int | float = 0  # kinds "int" and "number": the smallest value allowed
    most: int | float | None = None  # kinds "int" and "number": the largest value allowed
    optional: bool = False  # None (null) is a value: "not set"
    editor: bool = False  # the VS Code extension shows it and passes it on
    why: str = ""  # said after the rule a value broke
    # It decides where code or text is sent, or what runs: a repository's file may set it
    # only when the user trusts the repository (a table: every key in it).
    trusted: bool = False


def setting(default: Any, kind: str, **spec: Any) -> Any:
    """A settings field: its default and how it is read (see ``Spec``)."""
    return field(default=default, metadata={"spec": Spec(kind, **spec)})


_T = TypeVar("_T", bound="_Table")


class _Table:
    """A table of settings: the top level, or ``[tool.docfact.llm]`` and the others."""

    def with_overrides(self: _T, raw: Any, origin: str, table: str = "") -> _T:
        """These settings with the keys of ``raw`` applied (validated)."""
        if not isinstance(raw, dict):
            raise ConfigError(f"{origin}: {table or 'the settings'} must be a table of settings")
        specs = {f.name: f.metadata["spec"] for f in fields(self)}  # type: ignore[arg-type]
        unknown = sorted(k for k in raw if _snake(k) not in specs)
        if unknown:
            what = f"{table} setting(s)" if table else "setting(s)"
            raise ConfigError(f"{origin}: unknown {what}: {', '.join(unknown)}")
        changes = {}
        for key, value in raw.items():
            name = _snake(key)
            path = f"{table}.{name}" if table else name
            if specs[name].kind == "table":  # merged over its current settings
                changes[name] = getattr(self, name).with_overrides(value, origin, path)
            else:
                changes[name] = _read(specs[name], value, f"{origin}: {path}")
        return replace(self, **changes)  # type: ignore[type-var]

    def untrusted_part(self, raw: Any, table: str = "") -> tuple[Any, list[str]]:
        """``raw`` without the settings only a trusted source may choose, and the dotted
        names of those it held (unknown keys and bad shapes are left to ``with_overrides``)."""
        if not isinstance(raw, dict):
            return raw, []
        specs = {f.name: f.metadata["spec"] for f in fields(self)}  # type: ignore[arg-type]
        kept, dropped = {}, []
        for key, value in raw.items():
            name = _snake(key)
            spec = specs.get(name)
            path = f"{table}.{name}" if table else name
            if spec is not None and spec.trusted:
                inner = value if isinstance(value, dict) and spec.kind == "table" else {}
                dropped += [f"{path}.{_snake(k)}" for k in inner] or [path]
            elif spec is not None and spec.kind == "table":
                kept[key], inner_dropped = getattr(self, name).untrusted_part(value, path)
                dropped += inner_dropped
            else:
                kept[key] = value
        return kept, dropped


def _read(spec: Spec, value: Any, where: str) -> Any:
    """``value`` as the setting ``spec`` describes reads it, or ConfigError naming ``where``."""
    if value is None and spec.optional:
        return None
    return _READERS[spec.kind](spec, value, where)


def _why(spec: Spec) -> str:
    return f" ({spec.why})" if spec.why else ""


def _bool(spec: Spec, value: Any, where: str) -> bool:
    if not isinstance(value, bool):
        raise ConfigError(f"{where} must be true or false")
    return value


def _int(spec: Spec, value: Any, where: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < spec.least:
        rule = "a non-negative integer" if spec.least == 0 else f"an integer >= {spec.least}"
        raise ConfigError(f"{where} must be {rule}{_why(spec)}")
    return _at_most(spec, value, where)


def _number(spec: Spec, value: Any, where: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value < spec.least:
        raise ConfigError(f"{where} must be a non-negative number")
    return float(_at_most(spec, value, where))


def _at_most(spec: Spec, value: int | float, where: str) -> Any:
    if spec.most is not None and value > spec.most:
        raise ConfigError(f"{where} must be at most {spec.most}, not {value}")
    return value


def _fraction(spec: Spec, value: Any, where: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 < value < 1:
        raise ConfigError(f"{where} must be between 0 and 1")
    return float(value)


def _text(spec: Spec, value: Any, where: str) -> str | None:
    if not isinstance(value, str):
        raise ConfigError(f"{where} must be a string")
    return value or None


def _path(spec: Spec, value: Any, where: str) -> str:
    if not isinstance(value, str):
        raise ConfigError(f"{where} must be a path")
    return value


def _texts(spec: Spec, value: Any, where: str, what: str = "a list of strings") -> tuple[str, ...]:
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, (list, tuple)) or not all(isinstance(v, str) for v in value):
        raise ConfigError(f"{where} must be {what}")
    return tuple(value)


def _env_name(spec: Spec, value: Any, where: str) -> str | None:
    value = _text(spec, value, where)
    if value and not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", value):
        raise ConfigError(f"{where} must be the name of an environment variable, not a key")
    return value


def _choice(spec: Spec, value: Any, where: str) -> str:
    if value not in spec.choices:
        raise ConfigError(f"{where}: {value!r} is not one of {', '.join(spec.choices)}")
    return value


def _codes(spec: Spec, value: Any, where: str) -> tuple[str, ...]:
    codes = tuple(
        v.strip().upper() for v in _texts(spec, value, where, "a list of rule codes") if v.strip()
    )
    bad = [c for c in codes if c != "ALL" and not re.fullmatch(r"DF\d{0,3}", c)]
    if bad:
        raise ConfigError(f"{where}: not a docfact rule code or prefix: {', '.join(bad)}")
    return codes


def _patterns(spec: Spec, value: Any, where: str) -> tuple[str, ...]:
    patterns = _texts(spec, value, where, "a list of path patterns")
    import pathspec  # only where there are patterns to check

    for pattern in patterns:
        try:
            pathspec.PathSpec.from_lines("gitignore", [pattern])
        except ValueError as error:
            raise ConfigError(
                f"{where}: {pattern!r} is not a gitignore-style pattern ({error})"
            ) from None
        if too_costly(pattern):
            raise ConfigError(
                f"{where}: {pattern!r} has over {MOST_WILDCARDS} wildcards, too costly to match"
            )
    return patterns


def _file_codes(spec: Spec, value: Any, where: str) -> tuple[tuple[str, tuple[str, ...]], ...]:
    if not isinstance(value, dict):
        raise ConfigError(f"{where} must be a table of pattern = [codes]")
    return tuple((str(k), _codes(spec, v, f"{where}.{k}")) for k, v in value.items())


def _severities(spec: Spec, value: Any, where: str) -> tuple[tuple[str, str], ...]:
    if not isinstance(value, dict):
        raise ConfigError(f"{where} must be a table of code = severity")
    pairs = []
    for code, level in value.items():
        if level not in SEVERITIES:
            raise ConfigError(f"{where}.{code}: {level!r} is not one of {', '.join(SEVERITIES)}")
        pairs.append((_codes(spec, code, where)[0], level))
    return tuple(pairs)


_READERS: dict[str, Callable[[Spec, Any, str], Any]] = {
    "bool": _bool,
    "int": _int,
    "number": _number,
    "fraction": _fraction,
    "text": _text,
    "path": _path,
    "texts": _texts,
    "env_name": _env_name,
    "choice": _choice,
    "codes": _codes,
    "patterns": _patterns,
    "file_codes": _file_codes,
    "severities": _severities,
}


@dataclass(frozen=True)
class LlmSettings(_Table):
    """``[tool.docfact.llm]``: the model that judges sentences (none by default)."""

    # a litellm model string, e.g. "openai/gpt-4o-mini"
    model: str | None = setting(None, "text", optional=True, editor=True)
    api_base: str | None = setting(None, "text", optional=True, editor=True)
    # the NAME of the variable holding the key, never the key
    api_key_env: str | None = setting(None, "env_name", optional=True, editor=True)
    temperature: float = setting(0.1, "number", most=2, editor=True)
    top_p: float = setting(0.9, "number", most=1, editor=True)
    timeout_s: float = setting(60.0, "number", most=600, editor=True)
    max_retries: int = setting(3, "int", most=10, editor=True)
    max_concurrency: int = setting(4, "int", least=1, most=32, editor=True)
    votes: int = setting(1, "int", least=1, most=9, editor=True)
    # "batched" (one call per docstring) or "paper" (ReFEree's)
    protocol: str = setting("batched", "choice", choices=PROTOCOLS, editor=True)
    run: str = setting("onSave", "choice", choices=RUN_MODES, editor=True)


@dataclass(frozen=True)
class SonarSettings(_Table):
    """``[tool.docfact.sonar]``: SONAR's four scores, by regenerating code from the docstring
    (needs a model; runs on demand or on save, never on every keystroke)."""

    # up to 13 model calls per function: opt in (or `check --sonar`)
    enabled: bool = setting(False, "bool", editor=True)
    # in the editor: "onSave", or "manual" (the docfact.score command)
    run: str = setting("manual", "choice", choices=("onSave", "manual"), editor=True)
    # litellm models of the Abstraction pool; () = llm.model
    generators: tuple[str, ...] = setting((), "texts", trusted=True, editor=True)
    # programs in the Abstraction pool, shared by the generators (paper 3 x 3)
    samples: int = setting(9, "int", least=1, most=27, editor=True)
    compressions: int = setting(3, "int", least=1, most=9, editor=True)
    # differential-testing inputs per comparison
    fuzz_cases: int = setting(200, "int", least=1, most=5000, editor=True)
    time_limit_s: float = setting(10.0, "number", most=300, editor=True)  # sandbox, per comparison
    # a local causal LM folder; default GPT-2 if cached, else n-grams
    fluency_model: str | None = setting(None, "text", optional=True, trusted=True, editor=True)
    # The project's interpreter, which runs its functions in their modules; default the
    # project's .venv (venv, env) when it has one, else docfact's own.
    python: str | None = setting(None, "text", optional=True, trusted=True)


@dataclass(frozen=True)
class SscSettings(_Table):
    """``[tool.docfact.ssc]``: semantic self-consistency, how well a model understands a
    function (needs a model)."""

    enabled: bool = setting(False, "bool", editor=True)  # (or `check --ssc`)
    # in the editor: "onSave", or "manual" (the docfact.score command)
    run: str = setting("manual", "choice", choices=("onSave", "manual"), editor=True)
    # sampled summaries per function (the paper: 50)
    k: int = setting(8, "int", least=2, most=50, why="SSC compares summaries in pairs", editor=True)
    temperature: float = setting(0.8, "number", most=2, editor=True)
    # conformal miscoverage: tau is the (1 - epsilon) quantile
    epsilon: float = setting(0.1, "fraction", editor=True)
    # a local encoder folder; default the packaged MiniLM
    encoder: str | None = setting(None, "text", optional=True, trusted=True, editor=True)
    # hidden layer of the encoder; None = its default
    encoder_layer: int | None = setting(None, "int", least=1, most=100, optional=True, editor=True)
    idf: bool = setting(False, "bool", editor=True)  # idf-weighted BERTScore
    # P3: judgements per summary, majority vote
    judge_votes: int = setting(3, "int", least=1, most=9, editor=True)


_LLM, _SONAR, _SSC = LlmSettings(), SonarSettings(), SscSettings()


@dataclass(frozen=True)
class Settings(_Table):
    # code prefixes to enable beyond the defaults ("ALL" for all)
    select: tuple[str, ...] = setting((), "codes", editor=True)
    ignore: tuple[str, ...] = setting((), "codes", editor=True)  # code prefixes to disable
    # rules not yet proven on unseen projects (checks/registry.py's ``preview``)
    preview: bool = setting(False, "bool", editor=True)
    # (glob, codes)
    per_file_ignores: tuple[tuple[str, tuple[str, ...]], ...] = setting((), "file_codes")
    # gitignore-style patterns, on top of .gitignore
    exclude: tuple[str, ...] = setting((), "patterns")
    docstring_style: str = setting("auto", "choice", choices=STYLES, editor=True)
    fail_on: str = setting("warning", "choice", choices=(*SEVERITIES, "never"))
    # (code, severity) overrides
    severity: tuple[tuple[str, str], ...] = setting((), "severities", editor=True)
    max_file_bytes: int = setting(2_000_000, "int", most=20_000_000)
    cache_dir: str | None = setting(None, "path", optional=True, trusted=True, editor=True)
    jobs: int = setting(0, "int", most=64)  # worker processes of `check`; 0 = one per core
    # Editor only:
    # quiet time after an edit before the document is re-checked
    debounce_ms: int = setting(250, "int", most=60_000, editor=True)
    # keep reporting closed files of the workspace
    workspace_diagnostics: bool = setting(False, "bool", editor=True)
    # Nested tables (frozen, so one default instance is shared safely):
    llm: LlmSettings = setting(_LLM, "table", trusted=True, editor=True)  # noqa: RUF009
    sonar: SonarSettings = setting(_SONAR, "table", editor=True)  # noqa: RUF009
    ssc: SscSettings = setting(_SSC, "table", editor=True)  # noqa: RUF009


def _snake(key: str) -> str:
    key = key.replace("-", "_")
    return re.sub(r"(?<=[a-z0-9])([A-Z])", lambda m: "_" + m.group(1).lower(), key)


def find_pyproject(start: Path) -> Path | None:
    """The nearest pyproject.toml at or above ``start`` that has a [tool.docfact] table."""
    start = start.resolve()
    for folder in [start, *start.parents] if start.is_dir() else start.parents:
        candidate = folder / "pyproject.toml"
        if candidate.is_file() and _docfact_table(candidate) is not None:
            return candidate
    return None


def _docfact_table(path: Path) -> dict | None:
    tool = _toml(path).get("tool")
    table = tool.get("docfact") if isinstance(tool, dict) else None  # `tool = "x"`: not ours
    return table if isinstance(table, dict) else None


MAX_CONFIG_BYTES = 1 << 20


def _toml(path: Path) -> dict:
    try:
        # A repository's file: a link to /proc/kmsg blocked for ever, and a file may be huge.
        return tomllib.loads(read_regular(path, MAX_CONFIG_BYTES, limit="").decode("utf-8"))
    except tomllib.TOMLDecodeError as error:
        raise ConfigError(f"{path}: not valid TOML: {error}") from None
    except RecursionError:  # tomllib parses nested arrays and tables by recursion
        raise ConfigError(f"{path}: not read: nested too deeply") from None
    except SkippedFile as error:
        raise ConfigError(f"{path}: not read: {error}") from None
    except UnicodeDecodeError as error:
        raise ConfigError(
            f"{path}: not valid UTF-8 (byte {error.start}), as TOML must be"
        ) from None


def user_config_path() -> Path:
    """The user's own config file: the schema of ``[tool.docfact]``, at its top level."""
    return Path(platformdirs.user_config_dir("docfact")) / "config.toml"


def user_settings() -> Settings:
    """The defaults with the user's config file applied (every key: the user is trusted)."""
    path = user_config_path()
    if not path.is_file():
        return Settings()
    return Settings().with_overrides(_toml(path), str(path))


def trusted_keys() -> list[str]:
    """The settings a repository's file may choose only when trusted, dotted (``llm.*``:
    the whole table)."""
    found = []
    defaults = Settings()
    for setting in fields(Settings):
        spec = setting.metadata["spec"]
        if spec.trusted:
            found.append(f"{setting.name}.*" if spec.kind == "table" else setting.name)
        elif spec.kind == "table":
            table = getattr(defaults, setting.name)
            found += [
                f"{setting.name}.{f.name}" for f in fields(table) if f.metadata["spec"].trusted
            ]
    return found


@dataclass(frozen=True)
class Untrusted:
    """Settings of a repository's file left out because the repository is not trusted."""

    path: Path  # the pyproject.toml
    keys: tuple[str, ...]  # dotted names, as written there (snake_case)

    def message(self, how_to_trust: str) -> str:
        return (
            f"ignored {', '.join(self.keys)} from {self.path}: a repository's files may not "
            f"choose where code is sent or what runs; {how_to_trust}, or set them in "
            f"{user_config_path()}"
        )


class Loaded(NamedTuple):
    settings: Settings
    root: Path | None  # the folder of the pyproject.toml read, if any
    untrusted: Untrusted | None  # what was left out of it (not trusted), if anything


def load_settings(start: Path, trusted: bool = False, base: Settings | None = None) -> Loaded:
    """Settings from the user's config file (or ``base``) and the pyproject.toml governing
    ``start``; without ``trusted``, that file's trusted-only settings are left out."""
    settings = base or user_settings()
    pyproject = find_pyproject(start)
    if pyproject is None:
        return Loaded(settings, None, None)
    raw = _docfact_table(pyproject)
    untrusted = None
    if not trusted:
        raw, dropped = settings.untrusted_part(raw)
        untrusted = Untrusted(pyproject, tuple(dropped)) if dropped else None
    return Loaded(settings.with_overrides(raw, str(pyproject)), pyproject.parent, untrusted)
