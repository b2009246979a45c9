"""Java types as the type rules know them: the Python type each declared Java type
promises, where there is one (``boolean`` -> ``bool``, ``List<T>`` -> ``list``)."""

from __future__ import annotations

import re

_PYTHON_TYPES = {
    **dict.fromkeys(("boolean", "Boolean"), "bool"),
    **dict.fromkeys(
        ("byte", "short", "int", "long", "Byte", "Short", "Integer", "Long", "BigInteger"), "int"
    ),
    **dict.fromkeys(("float", "double", "Float", "Double"), "float"),
    "String": "str",
    **dict.fromkeys(("List", "ArrayList", "LinkedList"), "list"),
    **dict.fromkeys(
        ("Set", "HashSet", "TreeSet", "LinkedHashSet", "SortedSet", "NavigableSet"), "set"
    ),
    **dict.fromkeys(
        ("Map", "HashMap", "TreeMap", "LinkedHashMap", "SortedMap", "NavigableMap"), "dict"
    ),
    "Iterator": "Iterator",
    "void": "None",
}
_BASE = re.compile(r"\s*(?:java\.(?:lang|util)\.)?([A-Za-z_]\w*)\s*(<.*>)?\s*$", re.DOTALL)


def as_python_annotation(java_type: str) -> str | None:
    """The Python annotation for a declared Java type, or None when the type rules have
    nothing to say about it (arrays, type variables, the project's own classes)."""
    match = _BASE.match(java_type)
    return _PYTHON_TYPES.get(match.group(1)) if match else None
