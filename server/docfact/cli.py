"""docfact's command line: check | report | score | rewrite | serve | cache."""

from __future__ import annotations

import argparse
import gc
import json
import logging
import sys
from pathlib import Path
from typing import TYPE_CHECKING, NoReturn

from . import __version__
from .baseline import BaselineError
from .child_pythons import keep_repositories_off_their_paths
from .config import (
    STYLES,
    ConfigError,
    Settings,
    load_settings,
    trusted_keys,
    user_config_path,
)
from .model import SEVERITIES
from .terminal import PrintableFormatter, printable

if TYPE_CHECKING:
    from .cache import Cache
    from .gitdiff import ChangedUnits
    from .runner import ModelPasses, RunResult

EXIT_OK, EXIT_FINDINGS, EXIT_USAGE = 0, 1, 2
_HOW_TO_SET_A_MODEL = (
    "pass --llm-model, set llm.model in your own config file, or pass --trust-project to take "
    "it from the project's pyproject.toml"
)


class _Parser(argparse.ArgumentParser):
    """argparse that reports a usage error as one line and exit status 2."""

    def error(self, message: str) -> NoReturn:
        self.exit(EXIT_USAGE, f"docfact: error: {message} (see `docfact {self._sub} --help`)\n")

    @property
    def _sub(self) -> str:
        return self.prog.split()[-1] if " " in self.prog else ""


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="docfact", description="Which sentences of your docstrings are not true of the code."
    )
    parser.add_argument("--version", action="version", version=f"docfact {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)

    check = commands.add_parser("check", help="check files or folders and print findings")
    _add_run_options(check)
    check.add_argument("--format", choices=("text", "json", "sarif"), default="text")
    check.add_argument(
        "--fail-on",
        choices=(*SEVERITIES, "never"),
        help="exit 1 when a finding is at or above this severity (default: warning)",
    )
    fixing = check.add_argument_group("fixes")
    fixing.add_argument(
        "--fix",
        action="store_true",
        help="apply the safe fixes to the files and report what remains",
    )
    fixing.add_argument(
        "--unsafe-fixes",
        action="store_true",
        help="with --fix, apply the unsafe fixes too (read them: they may pick the wrong word)",
    )
    adopt = check.add_argument_group("report only some findings (for CI and pre-commit)")
    adopt.add_argument(
        "--baseline",
        type=Path,
        metavar="FILE",
        help="report only findings not in FILE; when FILE does not exist, write "
        "the current findings to it (delete it to refresh)",
    )
    adopt.add_argument(
        "--diff",
        metavar="REF",
        help="report only findings in code changed since the git revision REF: "
        "docstrings edited, or functions edited while their docstring was not",
    )

    report = commands.add_parser("report", help="check files or folders and write an HTML report")
    _add_run_options(report)
    report.add_argument(
        "-o", "--output", type=Path, required=True, metavar="FILE", help="the HTML file to write"
    )
    report.set_defaults(fail_on=None)  # a report never fails on findings

    score = commands.add_parser(
        "score", help="one function's scores: ReFEree, SONAR and model understandability (SSC)"
    )
    _add_function_options(score)
    score.add_argument("--format", choices=("text", "json"), default="text")

    rewrite = commands.add_parser(
        "rewrite",
        help="a more abstract description of one function, kept only when SONAR verifies it",
        description="Ask the model for more abstract descriptions of one function and keep "
        "the best one whose docstring still makes code that behaves like the function (run in "
        "the sandbox) and reads more abstractly (SONAR Correctness not lower, Abstraction "
        "higher); print it as a unified diff. The docstring's sections stay as written.",
        epilog="exit status: 0 a verified rewrite was printed (and, with --apply, written); "
        "1 none was kept (the reason is said), or --apply could not write it; "
        "2 a usage or configuration error (no model configured, no such function)",
    )
    _add_function_options(rewrite)
    rewrite.add_argument(
        "--apply",
        action="store_true",
        help="write the rewrite into the file (only inside the docstring, checked as --fix is)",
    )

    serve = commands.add_parser("serve", help="run the language server")
    serve.add_argument("--stdio", action="store_true", help="talk over stdin/stdout (default)")
    serve.add_argument(
        "--tcp", metavar="HOST:PORT", type=_address, help="listen on a TCP address instead"
    )
    serve.add_argument(
        "-v",
        "--verbose",
        action="store_true",
        help="log more: every document checked, and with --log-file every LSP message",
    )
    serve.add_argument(
        "--log-file", type=Path, metavar="PATH", help="also write the server's log to this file"
    )

    cache = commands.add_parser("cache", help="inspect or clear the results cache")
    cache.add_argument("action", choices=("clear", "path"))
    cache.add_argument("--cache-dir")
    return parser


def _add_run_options(parser: argparse.ArgumentParser) -> None:
    """What to check and how: the options `check` and `report` share."""
    parser.add_argument("paths", nargs="+", type=Path, metavar="PATH")
    parser.add_argument(
        "--select", type=_code_list, help="rule codes or prefixes to enable (DF5, ALL)"
    )
    parser.add_argument("--ignore", type=_code_list, help="rule codes or prefixes to disable")
    parser.add_argument(
        "--preview",
        action="store_true",
        default=None,
        help="also run the preview rules (not yet proven on projects no one tuned them on)",
    )
    parser.add_argument("--docstring-style", choices=STYLES)
    parser.add_argument("--cache-dir", help="where results are cached (default: the user cache)")
    parser.add_argument("--no-cache", action="store_true", help="neither read nor write the cache")
    parser.add_argument("--jobs", type=int, help="worker processes (default: one per core)")
    parser.add_argument("--config", type=Path, help="a pyproject.toml to read [tool.docfact] from")
    _add_trust_option(parser)
    _add_model_options(parser)
    scores = parser.add_argument_group("scores (need a model; cached)")
    scores.add_argument(
        "--sonar",
        action="store_true",
        help="SONAR's Correctness, Abstraction, Conciseness and Fluency of every "
        "documented function (up to 13 model calls each; code runs in a sandbox)",
    )
    scores.add_argument(
        "--ssc",
        action="store_true",
        help="how well the model understands each function (semantic "
        "self-consistency, calibrated over the checked functions)",
    )


def _add_function_options(parser: argparse.ArgumentParser) -> None:
    """One function and how to reach the model: the options `score` and `rewrite` share."""
    parser.add_argument(
        "target",
        metavar="FILE::QUALNAME",
        type=_target,
        help="a file and a documented function in it, e.g. shop/cart.py::Cart.add",
    )
    parser.add_argument("--config", type=Path, help="a pyproject.toml to read [tool.docfact] from")
    _add_trust_option(parser)
    parser.add_argument("--cache-dir", help="where results are cached (default: the user cache)")
    parser.add_argument("--no-cache", action="store_true", help="neither read nor write the cache")
    _add_model_options(parser)
    parser.set_defaults(
        select=None,
        ignore=None,
        preview=None,
        fail_on=None,
        docstring_style=None,
        jobs=None,
        sonar=False,
        ssc=False,
    )


def _add_trust_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--trust-project",
        action="store_true",
        help="also take from the project's pyproject.toml the settings that choose where code "
        f"is sent or what runs ({', '.join(trusted_keys())}); without it they come only from "
        f"flags and your own {user_config_path()}",
    )


def _add_model_options(parser: argparse.ArgumentParser) -> None:
    model = parser.add_argument_group(
        "model judge (ReFEree C1-C4; nothing is sent unless a model is set by --llm-model, "
        "your own config file, or the pyproject.toml of a project you trust: --trust-project)"
    )
    model.add_argument("--llm-model", help="a litellm model string, e.g. openai/gpt-4o-mini")
    model.add_argument("--llm-api-base", help="the model server's URL")
    model.add_argument("--llm-api-key-env", help="NAME of the environment variable holding the key")
    model.add_argument("--llm-protocol", choices=("batched", "paper"))
    model.add_argument("--llm-votes", type=int, help="samples per judgement (majority vote)")


def _address(text: str) -> tuple[str, int]:
    host, _, port = text.rpartition(":")
    if not port.isdigit() or int(port) > 65535:
        raise argparse.ArgumentTypeError(f"{text!r} is not HOST:PORT")
    return host or "127.0.0.1", int(port)


def _target(text: str) -> tuple[Path, str]:
    path, separator, qualname = text.rpartition("::")
    if not separator or not path or not qualname:
        raise argparse.ArgumentTypeError(
            f"{text!r} is not FILE::QUALNAME (e.g. shop/cart.py::Cart.add)"
        )
    return Path(path), qualname


def _code_list(text: str) -> list[str]:
    return [part.strip() for part in text.split(",") if part.strip()]


def main(argv: list[str] | None = None) -> int:
    # The Pythons docfact starts (its worker pool's forkserver, the parser-crash probe) run
    # `python -c`, which puts the working folder first on the import path: in a checked
    # repository its multiprocessing.py ran as the user.
    keep_repositories_off_their_paths()
    arguments = build_parser().parse_args(argv)
    terminal = logging.StreamHandler()
    terminal.setFormatter(PrintableFormatter("docfact: %(message)s"))
    logging.basicConfig(level=logging.WARNING, handlers=[terminal])
    try:
        if arguments.command == "check":
            return _check(arguments)
        if arguments.command == "report":
            return _report(arguments)
        if arguments.command == "serve":
            return _serve(arguments)
        if arguments.command == "score":
            return _score(arguments)
        if arguments.command == "rewrite":
            return _rewrite(arguments)
        return _cache(arguments)
    except ConfigError as error:
        print(printable(f"docfact: configuration error: {error}"), file=sys.stderr)
        return EXIT_USAGE
    except BaselineError as error:
        print(printable(f"docfact: error: {error}"), file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print("docfact: interrupted", file=sys.stderr)
        return 130


def _settings(arguments: argparse.Namespace) -> tuple[Settings, Path | None]:
    """The run's settings; what an untrusted project's file may not choose is said once."""
    if arguments.config is not None:
        if not arguments.config.is_file():
            raise ConfigError(f"--config {arguments.config}: no such file")
        start = arguments.config
    else:
        start = arguments.paths[0] if arguments.paths[0].exists() else Path.cwd()
    settings, root, untrusted = load_settings(start, trusted=arguments.trust_project)
    if untrusted is not None:
        how = "pass --trust-project if you trust this repository"
        print(printable(f"docfact: warning: {untrusted.message(how)}"), file=sys.stderr)
    flags = {
        "select": arguments.select,
        "ignore": arguments.ignore,
        "preview": arguments.preview,
        "fail_on": arguments.fail_on,
        "docstring_style": arguments.docstring_style,
        "cache_dir": arguments.cache_dir,
        "jobs": arguments.jobs,
    }
    overrides = {key: value for key, value in flags.items() if value is not None}
    model = {
        "model": arguments.llm_model,
        "api_base": arguments.llm_api_base,
        "api_key_env": arguments.llm_api_key_env,
        "protocol": arguments.llm_protocol,
        "votes": arguments.llm_votes,
    }
    model = {key: value for key, value in model.items() if value is not None}
    if model:
        overrides["llm"] = model
    for table in ("sonar", "ssc"):
        if getattr(arguments, table, False):
            overrides[table] = {"enabled": True}
    settings = settings.with_overrides(overrides, "command line")
    asked = [f"--{table}" for table in ("sonar", "ssc") if getattr(arguments, table, False)]
    if asked and not settings.llm.model:
        raise ConfigError(f"{' and '.join(asked)} need a model: {_HOW_TO_SET_A_MODEL}")
    return settings, root


def _warn_without_sandbox() -> None:
    """SONAR runs code only in the sandbox: say at once when there is none."""
    from .sonar.sandbox import unavailable

    if unavailable():
        print(
            f"docfact: warning: {unavailable()}: SONAR Correctness and Conciseness are "
            "not measured",
            file=sys.stderr,
        )


def _run(arguments: argparse.Namespace, settings: Settings, root: Path | None) -> RunResult:
    """The run behind `check` and `report`: cache, and every file checked."""
    from .cache import Cache
    from .runner import check_paths

    if settings.sonar.enabled and settings.llm.model:
        _warn_without_sandbox()
    cache_dir = Path(settings.cache_dir) if settings.cache_dir else None
    cache = None if arguments.no_cache else Cache(cache_dir)
    # A short-lived process that loads millions of small objects (every file's cached
    # facts): the cyclic garbage collector would only re-scan them, again and again.
    gc.disable()
    result = check_paths(
        arguments.paths,
        settings,
        root,
        cache,
        progress=sys.stderr.isatty(),
        model_passes=_model_passes(settings, cache),
    )
    gc.freeze()  # what exists now lives until exit: no collection should walk it
    gc.enable()
    for path, reason in result.skipped:
        print(printable(f"docfact: skipped {path}: {reason}"), file=sys.stderr)
    return result


def _model_passes(settings: Settings, cache: Cache | None) -> ModelPasses | None:
    """The model passes of `check` when a model is configured (litellm and the judge load
    only then), else None."""
    from .model_layers import judge_runs

    if not judge_runs(settings, "check"):
        return None
    from .model_passes import model_passes

    return lambda outcomes, project, result: model_passes(
        outcomes, project, settings, cache, result
    )


def _check(arguments: argparse.Namespace) -> int:
    from . import output
    from .gitdiff import ChangedUnits, DiffError

    if arguments.unsafe_fixes and not arguments.fix:
        print("docfact: error: --unsafe-fixes goes with --fix", file=sys.stderr)
        return EXIT_USAGE
    try:  # before the run: a wrong REF or a folder outside git is said at once
        changed = ChangedUnits(arguments.diff, arguments.paths[0]) if arguments.diff else None
    except DiffError as error:
        print(printable(f"docfact: error: {error}"), file=sys.stderr)
        return EXIT_USAGE
    settings, root = _settings(arguments)
    result = _reported(arguments, settings, root, changed)
    if arguments.fix and _fixed(result, arguments.unsafe_fixes):
        result = _reported(arguments, settings, root, changed)  # what remains, where it now is
    render = {"json": output.to_json, "sarif": output.to_sarif, "text": output.to_text}
    _write(render[arguments.format](result) + "\n")
    missing = [p for p in arguments.paths if not p.exists()]
    if missing:
        return EXIT_USAGE
    return EXIT_FINDINGS if output.exceeds(result, settings.fail_on) else EXIT_OK


def _reported(
    arguments: argparse.Namespace,
    settings: Settings,
    root: Path | None,
    changed: ChangedUnits | None,
) -> RunResult:
    """The run, narrowed to the findings the baseline and --diff let through."""
    result = _run(arguments, settings, root)
    if arguments.baseline is not None:
        result.diagnostics = _not_in_baseline(arguments.baseline, result.diagnostics)
    if changed is not None:
        result.diagnostics = changed.keep(result.diagnostics)
    return result


def _fixed(result: RunResult, unsafe: bool) -> bool:
    """Apply the fixes and say what changed (on stderr: stdout keeps the report's
    format); whether any file was rewritten."""
    from .fixes import apply_fixes

    outcome = apply_fixes(result.diagnostics, result.checked, unsafe)
    for d in outcome.applied:
        print(
            printable(
                f"docfact: fixed {d['path']}:{d['start']['line']}:{d['start']['column']}: "
                f"{d['code']} {d['fix']['title']}"
            ),
            file=sys.stderr,
        )
    for reason in outcome.not_applied:
        print(printable(f"docfact: {reason}"), file=sys.stderr)
    summary = f"docfact: applied {len(outcome.applied)} fixes to {outcome.files} files"
    if outcome.unsafe_left:
        summary += f"; {outcome.unsafe_left} unsafe fixes not applied (--unsafe-fixes applies them)"
    print(summary, file=sys.stderr)
    return outcome.files > 0


def _not_in_baseline(path: Path, diagnostics: list[dict]) -> list[dict]:
    """The findings not in the baseline ``path``; when it does not exist, it is written
    with every finding, and none is new."""
    from . import baseline

    if not path.exists():
        baseline.write(path, diagnostics)
        print(f"docfact: wrote {len(diagnostics)} findings to the baseline {path}", file=sys.stderr)
        return []
    new = baseline.new_findings(diagnostics, baseline.read(path))
    known = len(diagnostics) - len(new)
    if known:
        print(f"docfact: {known} findings of the baseline {path} not shown", file=sys.stderr)
    return new


def _report(arguments: argparse.Namespace) -> int:
    from . import report

    missing = [p for p in arguments.paths if not p.exists()]
    for path in missing:
        print(f"docfact: error: {path}: no such file or directory", file=sys.stderr)
    if missing:
        return EXIT_USAGE
    result = _run(arguments, *_settings(arguments))
    try:
        report.write(result, arguments.output, project=arguments.paths[0].resolve().name)
    except OSError as error:
        print(
            f"docfact: cannot write {arguments.output}: {error.strerror or error}", file=sys.stderr
        )
        return EXIT_USAGE
    print(f"docfact: wrote {arguments.output}", file=sys.stderr)
    return EXIT_OK


def _one_function(arguments: argparse.Namespace) -> tuple[Settings, Path | None, Cache | None]:
    """`score` and `rewrite`: the settings, which must name a model, and the cache. The
    sandbox's absence is said at once."""
    from .cache import Cache

    arguments.paths = [arguments.target[0]]
    settings, root = _settings(arguments)
    if not settings.llm.model:
        raise ConfigError(f"{arguments.command} needs a model: {_HOW_TO_SET_A_MODEL}")
    _warn_without_sandbox()
    cache_dir = Path(settings.cache_dir) if settings.cache_dir else None
    return settings, root, None if arguments.no_cache else Cache(cache_dir)


def _score(arguments: argparse.Namespace) -> int:
    from . import output
    from .model_passes import ScoreError, score_one
    from .runner import file_outcomes, project_graph

    path, qualname = arguments.target
    if not path.is_file():
        print(f"docfact: error: {path}: no such file", file=sys.stderr)
        return EXIT_USAGE
    settings, root, cache = _one_function(arguments)
    # The judge's evidence comes from the project the file belongs to.
    outcomes = file_outcomes([root or path.parent], settings, root, cache)
    job = next((job for job, _ in outcomes if Path(job.display).resolve() == path.resolve()), None)
    if job is None:
        outcomes += file_outcomes([path], settings, root, cache)
        job = outcomes[-1][0]
    try:
        entry = score_one(job, qualname, project_graph(outcomes), settings, cache)
    except ScoreError as error:
        print(printable(f"docfact: error: {error}"), file=sys.stderr)
        return EXIT_USAGE
    _write(
        (json.dumps(entry, indent=2) if arguments.format == "json" else output.score_card(entry))
        + "\n"
    )
    return EXIT_OK


def _rewrite(arguments: argparse.Namespace) -> int:
    """`docfact rewrite FILE::QUALNAME [--apply]`: the editor's "Describe more abstractly",
    verified the same way (``sonar_ssc.more_abstract``), printed as a diff and, when asked,
    written as `--fix` writes."""
    import asyncio
    import difflib

    from .engine import analyze
    from .fixes import Changed, NotWritten, write_edits
    from .llm import client_for
    from .runner import relative_to_root
    from .sonar_ssc import more_abstract, rewrite_edit, scorable
    from .source.files import SkippedFile, decode_source, module_name_for, read_regular

    path, qualname = arguments.target
    if not path.is_file():
        print(f"docfact: error: {path}: no such file", file=sys.stderr)
        return EXIT_USAGE
    settings, root, cache = _one_function(arguments)
    try:
        data = read_regular(path, settings.max_file_bytes, ())
        text = decode_source(data)
    except (OSError, SkippedFile) as error:
        reason = error.strerror if isinstance(error, OSError) and error.strerror else error
        print(printable(f"docfact: error: {path}: {reason}"), file=sys.stderr)
        return EXIT_USAGE
    relative = relative_to_root(path.absolute(), root)
    analysis = analyze(text, str(path), module_name_for(path, {}), settings, relative)
    documented = [r for r in analysis.units if scorable(r) and path.suffix != ".java"]
    report = next((r for r in documented if qualname in (r.unit.qualname, r.symbol)), None)
    if report is None:
        names = ", ".join(r.unit.qualname for r in documented) or "none"
        print(
            printable(
                f"docfact: error: {path} has no documented Python function {qualname} "
                f"(documented: {names})"
            ),
            file=sys.stderr,
        )
        return EXIT_USAGE
    client = client_for(settings.llm)
    assert client is not None  # _one_function made sure a model is configured
    try:
        rewrites, note = asyncio.run(more_abstract(analysis, report, client, settings, cache))
    finally:
        if cache is not None:
            cache.close()
    if not rewrites:
        print(printable(note), file=sys.stderr)
        return EXIT_FINDINGS
    best = rewrites[0]
    print(printable(f"{note}; the best: {best.title}"), file=sys.stderr)
    start, end, replacement = rewrite_edit(text, report, best)
    after = text[:start] + replacement + text[end:]
    diff = difflib.unified_diff(
        text.splitlines(keepends=True),
        after.splitlines(keepends=True),
        f"a/{path.as_posix()}",
        f"b/{path.as_posix()}",
    )
    _write("".join(printable(line.rstrip("\r\n")) + "\n" for line in diff))
    if not arguments.apply:
        return EXIT_OK
    try:
        write_edits(path, data, [(start, end, replacement)])
    except Changed:
        print(f"docfact: {path} changed since it was read: not written", file=sys.stderr)
        return EXIT_FINDINGS
    except NotWritten as refused:
        print(printable(f"docfact: {path}: the rewrite not written: {refused}"), file=sys.stderr)
        return EXIT_FINDINGS
    except OSError as error:
        print(f"docfact: {path}: cannot be written: {error.strerror or error}", file=sys.stderr)
        return EXIT_FINDINGS
    print(f"docfact: wrote the rewrite of {report.unit.qualname} into {path}", file=sys.stderr)
    return EXIT_OK


def _write(text: str) -> None:
    """Write to stdout as UTF-8; a lone surrogate (from a ``\\ud800`` escape in a
    docstring) is written as its escape, never an encoding error."""
    sys.stdout.flush()
    sys.stdout.buffer.write(text.encode("utf-8", "backslashreplace"))
    sys.stdout.buffer.flush()


def _serve(arguments: argparse.Namespace) -> int:
    from .lsp.server import serve

    if arguments.log_file is not None:
        try:
            arguments.log_file.open("a", encoding="utf-8").close()
        except OSError as error:
            print(
                f"docfact: error: --log-file {arguments.log_file}: {error.strerror or error}",
                file=sys.stderr,
            )
            return EXIT_USAGE
    return serve(tcp=arguments.tcp, verbose=arguments.verbose, log_file=arguments.log_file)


def _cache(arguments: argparse.Namespace) -> int:
    from .cache import Cache

    cache = Cache(arguments.cache_dir and Path(arguments.cache_dir))
    if arguments.action == "path":
        print(cache.path)
    else:
        print(f"docfact: removed {cache.clear()} cached results from {cache.path}")
    return EXIT_OK


if __name__ == "__main__":
    sys.exit(main())
