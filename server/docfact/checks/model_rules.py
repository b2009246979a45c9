"""Rules whose findings come from the model judge (``llm/judge.py``), not from a check
function. They are registered so that select, ignore, severities and docs cover them."""

from .registry import RULES, Rule

_MODEL_RULES = (
    ("DF104", "model-name-inconsistency", "name", "information",
     "The model judges that a name in the sentence does not match the code."),
    ("DF206", "model-type-inconsistency", "type", "information",
     "The model judges that a type in the sentence does not match the code."),
    ("DF301", "model-functionality-inconsistency", "function", "warning",
     "The model judges that the sentence describes behaviour the code does not have."),
    ("DF401", "model-irrelevant-context", "context", "warning",
     "The model judges the sentence irrelevant, over-general or invented."),
)

for code, name, criterion, severity, summary in _MODEL_RULES:
    RULES[code] = Rule(code, name, criterion, severity, True, None, summary)
