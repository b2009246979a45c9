"""A small inventory package whose docstrings have drifted from the code.

docfact's demo checks this folder: every function here has one docstring mistake of the
kind a rename or refactoring leaves behind.
"""
