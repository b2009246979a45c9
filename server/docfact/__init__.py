"""docfact: tells which sentences of a docstring are not true of the code."""

__version__ = "0.2.0"
