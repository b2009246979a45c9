"""The one door to a model: litellm, imported lazily, with retries, a circuit breaker and
usage accounting.

The API key is read from the environment at call time and never kept, logged or shown:
every message that leaves this module is scrubbed of it.
"""

from __future__ import annotations

import asyncio
import email.utils
import functools
import logging
import os
import random
import time
from dataclasses import dataclass
from types import ModuleType
from typing import TYPE_CHECKING, Any

from ..config import LlmSettings
from .redact import redact

if TYPE_CHECKING:
    from litellm import ModelResponse

log = logging.getLogger(__name__)

BREAKER_THRESHOLD = 5  # consecutive failed attempts that open the circuit
BREAKER_COOLDOWN_S = 30.0
BACKOFF_BASE_S = 0.5
BACKOFF_CAP_S = 20.0
RETRY_AFTER_CAP_S = 60.0  # a server asking for longer is treated as unavailable for now
# An answer longer than this is refused, not read: every prompt asks for far less.
MAX_ANSWER_CHARS = 1_000_000
_RETRYABLE_STATUS = frozenset({408, 409, 425, 429})
_LITELLM_LOGGERS = ("LiteLLM", "LiteLLM Proxy", "LiteLLM Router", "litellm")


class LlmError(Exception):
    """A model call failed; the message is safe to show (it never holds the key)."""


class ModelUnavailable(LlmError):
    """The circuit breaker is open: calls are refused until the cool-down ends."""


@dataclass(frozen=True)
class Completion:
    choices: tuple[str, ...]  # one text per sample (``n``); a server may return fewer
    prompt_tokens: int
    completion_tokens: int
    cost: float | None  # USD from litellm's local price map; None for unknown models

    @property
    def text(self) -> str:
        return self.choices[0] if self.choices else ""


@dataclass
class UsageStats:
    calls: int = 0  # requests sent to the model, retries included
    failures: int = 0  # complete() calls that ended in an error
    retries: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost: float | None = None  # None until some call has a known price


@functools.cache
def _import_litellm() -> ModuleType:
    """litellm, quiet: local price map, no telemetry, no callbacks, no debug printing.

    The import takes seconds: call it through ``_litellm`` so it runs off the event loop.
    """
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    import litellm

    if hasattr(litellm, "telemetry"):
        litellm.telemetry = False
    litellm.suppress_debug_info = True
    litellm.set_verbose = False
    litellm.success_callback = []
    litellm.failure_callback = []
    litellm.callbacks = []
    for name in _LITELLM_LOGGERS:
        logging.getLogger(name).setLevel(logging.WARNING)
    from .capped_http import capped_client, install_cap

    # Every answer is read only up to MAX_ANSWER_BYTES, whatever road litellm takes (it
    # would read gigabytes whole before MAX_ANSWER_CHARS applies).
    install_cap()
    litellm.aclient_session = capped_client()
    return litellm


async def _litellm() -> ModuleType:
    if _import_litellm.cache_info().currsize:
        return _import_litellm()
    return await asyncio.to_thread(_import_litellm)


class LlmClient:
    """Async chat completions for one configured model (create it only when
    ``settings.model`` is set: without a model nothing is ever sent)."""

    def __init__(
        self,
        settings: LlmSettings,
        *,
        breaker_threshold: int = BREAKER_THRESHOLD,
        breaker_cooldown_s: float = BREAKER_COOLDOWN_S,
        backoff_base_s: float = BACKOFF_BASE_S,
    ):
        if not settings.model:
            raise ValueError("LlmClient needs settings.model")
        self.model: str = settings.model
        self.settings = settings
        self.stats = UsageStats()
        self.in_flight = 0
        self._semaphore = asyncio.Semaphore(settings.max_concurrency)
        self._breaker_threshold = breaker_threshold
        self._breaker_cooldown_s = breaker_cooldown_s
        self._backoff_base_s = backoff_base_s
        self._consecutive_failures = 0
        self._open_until = 0.0
        self._notice: str | None = None

    def __repr__(self) -> str:
        return f"LlmClient(model={self.settings.model!r}, api_base={self.settings.api_base!r})"

    def take_notice(self) -> str | None:
        """The message to show the user when the breaker opened, once per opening."""
        notice, self._notice = self._notice, None
        return notice

    async def complete(
        self,
        messages: list[dict[str, str]],
        *,
        response_format: dict | None = None,
        max_tokens: int | None = None,
        temperature: float | None = None,
        n: int = 1,
    ) -> Completion:
        """One chat completion with ``n`` samples; raises LlmError when it cannot be had."""
        async with self._semaphore:
            self.in_flight += 1
            try:
                return await self._complete_with_retries(
                    messages, response_format, max_tokens, temperature, n
                )
            except ModelUnavailable:
                self.stats.failures += 1  # refused while the breaker is open: said when it opened
                raise
            except LlmError as failure:
                self.stats.failures += 1
                log.warning("model %s: call failed: %s", self.settings.model, failure)
                raise
            finally:
                self.in_flight -= 1

    async def _complete_with_retries(
        self,
        messages: list[dict[str, str]],
        response_format: dict | None,
        max_tokens: int | None,
        temperature: float | None,
        n: int,
    ) -> Completion:
        attempt = 0
        while True:
            self._check_breaker()
            outcome = await self._attempt(messages, response_format, max_tokens, temperature, n)
            if isinstance(outcome, Completion):
                self._consecutive_failures = 0
                return outcome
            message, retryable, retry_after = outcome
            self._record_failure(message)
            if not retryable or attempt >= self.settings.max_retries:
                raise LlmError(message)
            if retry_after is not None and retry_after > RETRY_AFTER_CAP_S:
                raise LlmError(f"{message} (the server asks to wait {retry_after:.0f} s)")
            delay = retry_after if retry_after is not None else self._backoff(attempt)
            log.debug("model call failed (%s); retry %d in %.2f s", message, attempt + 1, delay)
            self.stats.retries += 1
            attempt += 1
            await asyncio.sleep(delay)

    async def _attempt(
        self,
        messages: list[dict[str, str]],
        response_format: dict | None,
        max_tokens: int | None,
        temperature: float | None,
        n: int,
    ) -> Completion | tuple[str, bool, float | None]:
        """A Completion, or (scrubbed message, retryable, Retry-After seconds or None)."""
        settings = self.settings
        secret = os.environ.get(settings.api_key_env) if settings.api_key_env else None
        if settings.api_key_env and not secret:
            return f"environment variable {settings.api_key_env} is not set", False, None
        try:
            litellm = await _litellm()
        except ImportError:
            return "litellm is not installed (pip install litellm==1.110.2)", False, None
        from .capped_http import uncapped_provider

        refusal = uncapped_provider(self.model, settings.api_base)
        if refusal is not None:
            return refusal, False, None
        request: dict[str, Any] = {
            "model": settings.model,
            "messages": messages,
            "temperature": settings.temperature if temperature is None else temperature,
            "top_p": settings.top_p,
            "timeout": settings.timeout_s,
            "num_retries": 0,  # retries are ours, with backoff and a breaker
            "max_retries": 0,
            "drop_params": True,  # a parameter the provider lacks is dropped, not an error
        }
        for key, value in (
            ("api_base", settings.api_base),
            ("api_key", secret),
            ("response_format", response_format),
            ("max_tokens", max_tokens),
        ):
            if value is not None:
                request[key] = value
        if n > 1:
            request["n"] = n
        self.stats.calls += 1
        try:
            response = await asyncio.wait_for(litellm.acompletion(**request), settings.timeout_s)
        except asyncio.TimeoutError:
            return f"no answer within {settings.timeout_s:g} s", True, None
        except Exception as error:  # litellm maps every provider error onto its own types
            from .capped_http import too_large

            oversized = too_large(error)
            if oversized is not None:  # asked again, it would send as much again
                return str(oversized), False, None
            return _describe(error, secret), _is_retryable(error), _retry_after(error)
        completion = self._account(litellm, response)
        longest = max(map(len, completion.choices), default=0)
        if longest > MAX_ANSWER_CHARS:
            return (
                f"the answer has {longest:,} characters, over the {MAX_ANSWER_CHARS:,} "
                "docfact reads",
                False,
                None,
            )
        return completion

    def _account(self, litellm: ModuleType, response: ModelResponse) -> Completion:
        usage = getattr(response, "usage", None)
        prompt_tokens = getattr(usage, "prompt_tokens", 0) or 0
        completion_tokens = getattr(usage, "completion_tokens", 0) or 0
        try:
            cost = float(litellm.completion_cost(completion_response=response))
        except Exception:  # an unknown model has no price: cost stays unknown
            cost = None
        stats = self.stats
        stats.prompt_tokens += prompt_tokens
        stats.completion_tokens += completion_tokens
        if cost is not None:
            stats.cost = (stats.cost or 0.0) + cost
        choices = tuple((choice.message.content or "") for choice in response.choices)
        log.debug(
            "model %s: %d prompt + %d completion tokens",
            self.settings.model,
            prompt_tokens,
            completion_tokens,
        )
        return Completion(choices, prompt_tokens, completion_tokens, cost)

    def _backoff(self, attempt: int) -> float:
        """Exponential backoff with full jitter."""
        return random.uniform(0, min(BACKOFF_CAP_S, self._backoff_base_s * 2**attempt))

    def _check_breaker(self) -> None:
        remaining = self._open_until - time.monotonic()
        if remaining > 0:
            raise ModelUnavailable(
                f"model {self.settings.model} is unavailable; calls resume in {remaining:.0f} s"
            )

    def _record_failure(self, message: str) -> None:
        self._consecutive_failures += 1
        if self._consecutive_failures < self._breaker_threshold:
            return
        self._open_until = time.monotonic() + self._breaker_cooldown_s
        # After the cool-down one more failure reopens the circuit at once.
        self._consecutive_failures = self._breaker_threshold - 1
        self._notice = (
            f"model {self.settings.model} failed {self._breaker_threshold} times in a row "
            f"({message}); model checks pause for {self._breaker_cooldown_s:g} s"
        )
        log.warning("%s", self._notice)


def _describe(error: Exception, secret: str | None) -> str:
    message = redact(f"{type(error).__name__}: {error}".strip(), secret)
    message = " ".join(message.split())
    return message if len(message) <= 300 else message[:297] + "..."


def _is_retryable(error: Exception) -> bool:
    status = getattr(error, "status_code", None)
    if isinstance(status, int) and (status in _RETRYABLE_STATUS or status >= 500):
        return True
    # Timeouts and refused or dropped connections, whatever library raised them.
    names = {cls.__name__ for cls in type(error).__mro__}
    return bool(
        names
        & {
            "Timeout",
            "APITimeoutError",
            "APIConnectionError",
            "ConnectError",
            "TimeoutError",
            "ConnectionError",
        }
    )


def _retry_after(error: Exception) -> float | None:
    """Seconds from a Retry-After header (delta or HTTP date), if the error carries one."""
    headers = getattr(error, "litellm_response_headers", None)
    if headers is None:
        headers = getattr(getattr(error, "response", None), "headers", None)
    value = {k.lower(): v for k, v in headers.items()}.get("retry-after") if headers else None
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())
