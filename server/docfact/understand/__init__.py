"""How well a model understands a function: semantic self-consistency (P1), similarity to
the docstring (P2) and judged correctness of the model's summaries (P3)."""
