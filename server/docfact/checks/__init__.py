"""Deterministic checks. Importing this package registers every rule in ``RULES``."""

from . import attributes, doctests, function, links, model_rules, names, project_rules, structure, throws, types, xrefs  # noqa: F401  (registration by import)
from .registry import RULES, Rule, enabled_codes

__all__ = ["RULES", "Rule", "enabled_codes"]
