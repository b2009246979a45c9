"""Names a Python docstring may mention without the project defining them (Java's are in
jdk.py): builtins, keywords, the standard library's modules and typing's common names."""

import builtins
import keyword
import sys

UNIVERSAL_NAMES = frozenset(
    [
        *dir(builtins),
        *keyword.kwlist,
        *sys.stdlib_module_names,
        "self",
        "cls",
        "typing",
        "Optional",
        "Union",
        "Any",
        "Callable",
        "Iterable",
        "Iterator",
        "Sequence",
        "Mapping",
        "List",
        "Dict",
        "Tuple",
        "Set",
        "Generator",
        "Awaitable",
        "Coroutine",
        "TypeVar",
        "Protocol",
        "Literal",
    ]
)
