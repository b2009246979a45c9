"""Deterministic checks, one module per rule family; ``registry.RULES`` is the table of
every rule (check functions are imported when first asked for)."""

from .registry import RULES, Rule, enabled_codes

__all__ = ["RULES", "Rule", "enabled_codes"]
