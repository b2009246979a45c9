"""SONAR's four scores of a docstring (Correctness, Abstraction, Conciseness, Fluency),
measured by regenerating code from it; ``sandbox`` is the only module that executes code."""
