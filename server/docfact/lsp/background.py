"""Model-backed work in the editor: one cancellable task per document, with work-done
progress that always ends.

Server-to-client requests (progress creation) stay outside the cancellable task: pygls
2.1.1 crashes on the reply to a request whose awaiting task was cancelled.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib.util
import logging
import os
import sys
import threading
import time
from abc import ABC, abstractmethod
from collections.abc import Awaitable, Callable
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Generic, ParamSpec, Protocol
from urllib.parse import urlsplit

from lsprotocol import types

from ..model_layers import sonar_runs, ssc_runs

if TYPE_CHECKING:
    from pygls.progress import Progress

    from ..config import LlmSettings, Settings, SscSettings
    from ..llm.client import LlmClient, UsageStats
    from .protocol import DocfactProtocol
    from .state import DocumentState, Workspace

log = logging.getLogger("docfact")
P = ParamSpec("P")  # what a pass's ``work`` takes after the document's uri


class Clients(Protocol):
    """The editor's model clients, one per model settings (the judge pass keeps them)."""

    def client(self, llm: LlmSettings) -> LlmClient | None: ...

    def finished(self) -> None: ...


class Host(Protocol):
    """What the passes use of the language server (``server.DocfactServer``)."""

    @property
    def state(self) -> Workspace: ...
    @property
    def judge(self) -> Clients: ...
    @property
    def protocol(self) -> DocfactProtocol: ...
    @property
    def client_capabilities(self) -> types.ClientCapabilities: ...
    @property
    def work_done_progress(self) -> Progress: ...

    # What keeps the model features from working now, by cause ("set-up", "answer",
    # "sandbox"): told once in a window message, kept for the status item until it goes.
    model_problems: dict[str, str]

    def path_of(self, uri: str) -> str: ...

    def current_state(self, uri: str) -> Awaitable[DocumentState | None]: ...

    def republish(self, uri: str) -> None: ...

    def warn_once(self, message: str) -> None: ...

    def window_show_message(self, params: types.ShowMessageParams) -> None: ...


class BackgroundPass(ABC, Generic[P]):
    """Subclasses name the pass (``title``) and do its work in ``work(uri, *args)``."""

    title = "docfact"

    def __init__(self, server: Host) -> None:
        self.server = server
        self._tasks: dict[str, asyncio.Task] = {}
        self._tokens: dict[str, str] = {}  # uri -> the progress token of its current run
        self._progress = 0

    def cancel(self, uri: str) -> None:
        task = self._tasks.pop(uri, None)
        if task is not None and not task.done():
            task.cancel()

    def cancel_progress(self, token: types.ProgressToken) -> None:
        """The user cancelled the run shown by the progress ``token`` (its Cancel button)."""
        for uri, mine in list(self._tokens.items()):
            if mine == token:
                self.cancel(uri)

    async def run(self, uri: str, *args: P.args, **kwargs: P.kwargs) -> None:
        """Run the pass for the document's current version; a newer run cancels this one."""
        token = await self._begin_progress(uri)
        self.cancel(uri)
        task = asyncio.ensure_future(self.work(uri, *args, **kwargs))
        self._tasks[uri] = task
        if token is not None:
            self._tokens[uri] = token
        outcome: str | None = None
        try:
            outcome = await task
        except asyncio.CancelledError:
            pass  # a newer version arrived: its own run does the work
        except Exception as error:
            log.exception("%s failed; deterministic diagnostics are unaffected", self.title)
            outcome = f"failed: {type(error).__name__} (see the docfact log)"
        finally:
            if self._tasks.get(uri) is task:
                del self._tasks[uri]
            if token is not None:
                if self._tokens.get(uri) == token:
                    del self._tokens[uri]
                self.server.work_done_progress.end(
                    token, types.WorkDoneProgressEnd(message=outcome)
                )
            self.finished()

    @abstractmethod
    async def work(self, uri: str, *args: P.args, **kwargs: P.kwargs) -> str | None:
        """The pass's work for the document ``uri``; what it returns ends its progress
        (why it did nothing, when it could not)."""

    def blocked(self, llm: LlmSettings) -> str | None:
        """Why the configured model cannot be used (told once per cause, logged each
        time), or None."""
        problem = model_problem(llm)
        if problem is not None:
            log.warning("%s: %s", self.title, problem)
        self.tell("set-up", problem)
        return problem

    def tell(self, cause: str, problem: str | None) -> None:
        """A ``problem`` (None: none) of the model features: told once with a window
        message, and kept for the status item (``docfact/status``) until its ``cause`` goes."""
        if problem is None:
            self.server.model_problems.pop(cause, None)
        else:
            self.server.model_problems[cause] = problem
            self.server.warn_once(problem)

    def tell_calls(self, client: LlmClient, llm: LlmSettings, before: UsageStats) -> None:
        """After a run's model calls (``before``: the client's counts when it began): calls
        that failed are told once per model and address (each failure and why, and the
        breaker's pauses, are in the log); a run whose calls all answered clears it."""
        client.take_notice()  # the breaker's opening: logged by the client, told below
        if client.stats.failures > before.failures:
            self.tell("answer", unanswered(llm))
        elif client.stats.calls > before.calls:
            self.tell("answer", None)

    def finished(self) -> None:
        """Called after every run, whatever its outcome: the status item is told the model
        calls and the problems as they are now, not at the next run of another pass."""
        self.server.judge.finished()

    async def check_sandbox(self) -> None:
        """Tell (once) or clear the missing sandbox that SONAR's runs need; the first check
        runs a program, so it is made off the event loop."""
        from ..sonar.sandbox import unavailable

        no_sandbox = await asyncio.to_thread(unavailable)
        self.tell(
            "sandbox",
            f"{no_sandbox}: SONAR Correctness and Conciseness are not measured"
            if no_sandbox
            else None,
        )

    def say_progress(self, uri: str, message: str) -> None:
        """A line of progress for the run of ``uri`` (when the client shows progress)."""
        token = self._tokens.get(uri)
        if token is not None:
            self.server.work_done_progress.report(
                token, types.WorkDoneProgressReport(message=message)
            )

    async def _begin_progress(self, uri: str) -> str | None:
        window = self.server.client_capabilities.window
        if not (window and window.work_done_progress):
            return None
        self._progress += 1
        token = f"docfact-{type(self).__name__.lower()}-{self._progress}"
        try:
            await self.server.work_done_progress.create_async(token)
        except Exception:
            return None
        self.server.work_done_progress.begin(
            token,
            types.WorkDoneProgressBegin(
                title=self.title, message=Path(self.server.path_of(uri)).name, cancellable=True
            ),
        )
        return token


def model_problem(llm: LlmSettings) -> str | None:
    """What keeps the configured model from being used, said so a person can act on it;
    None when nothing does (or no model is configured). The key's value is never shown."""
    if not llm.model:
        return None
    if llm.api_key_env and not os.environ.get(llm.api_key_env):
        return (
            f"the model {llm.model} needs the environment variable {llm.api_key_env}, which is "
            "not set where the editor started docfact: set it, then restart the editor"
        )
    if importlib.util.find_spec("litellm") is None:
        return (
            "litellm, which the model features need, is not installed in docfact's "
            f"environment: run {sys.executable} -m pip install litellm==1.110.2 "
            "(the README says more), then restart the server"
        )
    return None


def unanswered(llm: LlmSettings) -> str:
    """What to tell a person whose model calls failed (once per model and address): what
    was asked where, and where the reason is. The address is shown without credentials."""
    where = ""
    if llm.api_base:
        address = urlsplit(llm.api_base)
        where = f" at {address.scheme}://{address.hostname or ''}"
        with contextlib.suppress(ValueError):  # a port that is not a number: left out
            where += f":{address.port}" if address.port else ""
    return (
        f"the model {llm.model} did not answer{where}: check that its server runs and "
        "llm.api_base, llm.model and the key's variable are right (the docfact log says why)"
    )


def warm_up_models(settings_list: list[Settings]) -> threading.Thread | None:
    """When a model is configured, import litellm in a thread now, and load what the
    passes that run on save need (the SSC encoder, the fluency model), so that the first
    save answers in seconds, not after the imports (litellm alone takes seconds, torch
    more). Nothing is loaded without a model, and nothing a save does not use."""
    wanted = [s for s in settings_list if s.llm.model]
    if not wanted:
        return None
    steps: list[tuple[str, Callable[[], None]]] = [("litellm", _litellm)]
    for s in {
        (s.ssc.encoder, s.ssc.encoder_layer): s for s in wanted if ssc_runs(s, "onSave")
    }.values():
        steps.append((f"encoder {s.ssc.encoder or 'MiniLM'}", partial(_encoder, s.ssc)))
    for s in {s.sonar.fluency_model: s for s in wanted if sonar_runs(s, "onSave")}.values():
        steps.append(("fluency model", partial(_fluency, s.sonar.fluency_model)))

    def work() -> None:
        began = time.monotonic()
        for name, step in steps:
            try:
                step()
            except Exception as error:  # the pass that needs it will say why
                log.warning("warming up the %s failed: %s", name, error)
        log.info(
            "models warmed up in %.1f s (%s)",
            time.monotonic() - began,
            ", ".join(name for name, _ in steps),
        )

    thread = threading.Thread(target=work, name="docfact-warm-models", daemon=True)
    thread.start()
    return thread


def _litellm() -> None:
    from ..llm.client import _import_litellm

    _import_litellm()


def _encoder(ssc: SscSettings) -> None:
    from ..understand.bertscore import load_encoder

    load_encoder(ssc.encoder, ssc.encoder_layer)


def _fluency(model: str | None) -> None:
    from ..sonar.fluency import preload

    preload(model)
