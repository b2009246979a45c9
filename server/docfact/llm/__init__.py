"""Model-backed judgements: the litellm door (client) and ReFEree's judge.

Nothing here imports litellm until a call is made, and no client exists without a
configured model, so nothing is sent anywhere unless the user asked for it.
"""

from __future__ import annotations

from ..config import LlmSettings
from .client import Completion, LlmClient, LlmError, ModelUnavailable, UsageStats
from .judge import Agreement, JudgeResult, SegmentVerdict, judge_unit, judge_units


def client_for(settings: LlmSettings) -> LlmClient | None:
    """A client for the configured model, or None when no model is configured."""
    return LlmClient(settings) if settings.model else None


__all__ = [
    "Agreement",
    "Completion",
    "JudgeResult",
    "LlmClient",
    "LlmError",
    "ModelUnavailable",
    "SegmentVerdict",
    "UsageStats",
    "client_for",
    "judge_unit",
    "judge_units",
]
