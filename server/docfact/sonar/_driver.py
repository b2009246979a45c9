"""Differential testing, run inside the sandbox as __main__ (funcsim.py sends this file's
text to the sandbox; nothing imports it).

stdin: JSON {"nonce", "function", "original": program or null, "candidates": [program, ...],
"params": [{"name", "keyword", "optional", "spec", "hint"}], "varargs": spec of each extra
positional argument or null, "varkw": [names to pass through **kwargs], "constants": {"str",
"int": the original's literals}, "cases" (wanted where the original returns), "case_s",
"budget_s",
"home": null or {"name", "path", "text", "is_package", "import_root", "qualname",
"calls": [argument lists as source text], "instances": [expressions], "load_s"},
"support_path": [folders to import hypothesis from when the interpreter has none]}.
stdout: a line "SONAR-FUNCSIM " + nonce + " " + one JSON object {"error", "stage",
"environment" (true when what failed is this environment's, not the function's: a
dependency not installed, hypothesis missing), "cases", "seconds", "results": [{"matches",
"counted", "discarded", "raised", "raised_example", "counterexample", "problem"}]}, one
result per candidate. The nonce is the parent's, new
each run, and read before any code under test runs: that code can print lines that look
like the summary, but not with the nonce (it would have to dig it out of the driver's
frames, an attack on docfact itself rather than a lucky print).

Without ``home`` the original is a program of its own. With it, the function's real module
is imported (from ``text``, the source as docfact read it, under its own name and file, so
its package and relative imports work), the original is the module's function (or the
method of its class), and each candidate program runs in a copy of the module's namespace,
so it sees the module's helpers, constants and classes as the original does. Methods are
called on an instance built per call from the first of ``instances`` that works (the way
the project's doctests and tests build one), else the class called with no argument.
``calls`` are argument lists seen at the function's call sites and doctest examples,
evaluated in the module's namespace; they are tried before the generated inputs.

SONAR's rules: floats equal within relative tolerance 1e-9, NaN equals NaN, infinities
exactly; the original returns and the candidate raises -> mismatch. A case where the
original raises is not counted (``raised``, with the first such error): generated inputs
often make it raise on every case, and "both raise" would give a body that always raises
a perfect score. Only the cases where the original returns are ``counted``. A case where the
original runs out of time, or gives another result when called again (it reads the clock,
a counter, ...), is discarded too (it says nothing about the behaviour). What the original
prints is part of its result (a candidate that prints where it prints nothing is not
faulted), and a function that returns None is judged by its
arguments after the call (in-place work). Objects without their own equality compare by
their attributes. A candidate that cannot be loaded has a ``problem`` and no cases.
"""

import __future__

import ast
import copy
import functools
import importlib
import importlib.util
import itertools
import json
import math
import numbers
import os
import random
import reprlib
import signal
import string
import sys
import time
import warnings


class CaseTimeout(BaseException):
    """Raised by the alarm; a BaseException so ``except Exception`` in the code under test
    does not swallow it (the alarm repeats in case it is swallowed anyway)."""


class Enough(Exception):
    """Raised to end the drawing of inputs: enough cases, or the time is up."""


GIVE_UP = 3
TRIES_PER_CASE = 4
NO_HYPOTHESIS = "no generated inputs: hypothesis cannot be imported here"
ENVIRONMENT_ERRORS = ("ModuleNotFoundError", "ImportError", "it took")
_OMIT = object()  # an argument left out of a case
_ANNOTATIONS = __future__.annotations
ANY = {"t": "any"}
_constants: dict = {"str": [], "int": []}  # the original's literals (see _generate)
MARKER = "SONAR-FUNCSIM "
_armed = False
_short = reprlib.Repr()
_short.maxstring, _short.maxother, _short.maxlist, _short.maxdict = 40, 40, 6, 6


def _on_alarm(signum, frame):
    if _armed:
        raise CaseTimeout()


class _Sink:
    """Where the code under test prints: kept per call (it is part of the result)."""

    def __init__(self):
        self.parts = []

    def write(self, text):
        if sum(map(len, self.parts)) < 100_000:
            self.parts.append(str(text))
        return len(text)

    def flush(self):
        pass

    def take(self):
        text = "".join(self.parts)
        self.parts = []
        return text


_sink = _Sink()


def main():
    request = json.loads(sys.stdin.read())
    # Kept only here (no global, not in the request the rest reads): the code under test
    # can print a summary line of its own and exit, but not one that carries the nonce.
    nonce = request.pop("nonce")
    started = time.monotonic()
    out = sys.stdout
    sys.stdout = sys.stderr = _sink
    signal.signal(signal.SIGALRM, _on_alarm)
    summary = run(request, started)
    summary["seconds"] = round(time.monotonic() - started, 3)
    out.write("\n" + MARKER + nonce + " " + json.dumps(summary) + "\n")
    out.flush()


class Callee:
    """A function and what goes before its arguments: nothing, an instance of ``owner``
    (the case's own, or one built per call the way the project builds one), or the class
    ``owner`` itself."""

    def __init__(self, function, bind=None, owner=None, make=None, recipes=()):
        self.function, self.bind, self.owner, self.make = function, bind, owner, make
        self.recipes = recipes  # every recipe that builds an instance (``make`` the first)

    def __call__(self, args, kwargs, instance=None):
        if self.bind == "instance":
            args = (self.make() if instance is None else instance,) + tuple(args)
        elif self.bind == "class":
            args = (self.owner,) + tuple(args)
        return self.function(*args, **kwargs), args


def run(request, started):
    function, case_s = request["function"], request["case_s"]
    home = request.get("home")
    base = None
    if home:
        module = _timed(lambda: _import_home(home), home["load_s"])
        if isinstance(module, str):
            why = f"the module {home['name']} could not be imported: {module}"
            return _failed(why, "module", module.startswith(ENVIRONMENT_ERRORS))
        base = module.__dict__
        target = _target(module, home, case_s)
        if isinstance(target, str):
            return _failed(target, "function")
    if request["original"] is None:
        original = target
    else:
        original = _load(request["original"], function, case_s, base, target if home else None)
        if isinstance(original, str):
            why = f"the original could not be loaded: {original}"
            return _failed(why, "original", original.startswith(ENVIRONMENT_ERRORS))
    candidates = [
        _load(program, function, case_s, base, target if home else None)
        for program in request["candidates"]
    ]
    tallies = [
        {
            "matches": 0,
            "counted": 0,
            "discarded": 0,
            "raised": 0,
            "raised_example": None,
            "counterexample": None,
            "problem": f"the code could not be loaded: {c}" if isinstance(c, str) else None,
        }
        for c in candidates
    ]
    deadline = time.monotonic() + request["budget_s"]  # loading is not counted
    seen = {"cases": 0, "returned": 0}
    # A function that ran out of time GIVE_UP times is not called again (each try costs
    # a whole case limit): a candidate keeps "running out of time", the original ends the run.
    timeouts = [0] * (len(candidates) + 1)

    def one_case(case):
        if seen["returned"] >= request["cases"]:
            raise Enough()  # enough cases where the original returned: no more are drawn
        if time.monotonic() > deadline or timeouts[0] >= GIVE_UP:
            seen["out_of_time"] = True  # the cases tried are fewer than asked for
            raise Enough()
        args, kwargs, instance = case
        if instance is None and original.bind == "instance" and original.make is None:
            return  # no instance drawn for this case (its class would not build)
        seen["cases"] += 1
        if instance is not None:
            try:  # each call gets its own copy of the instance
                copy.deepcopy(instance)
            except Exception:
                instance = None
        expected = _call(original, args, kwargs, instance, case_s)
        timeouts[0] += expected[0] == "timeout"
        if expected[0] != "timeout" and not _same_outcome(
            expected, _call(original, args, kwargs, instance, case_s)
        ):
            expected = ("unsteady", "")  # another answer to the same call: not a behaviour
        seen["returned"] += expected[0] == "returned"
        for index, (candidate, tally) in enumerate(zip(candidates, tallies), start=1):
            if isinstance(candidate, str):
                continue
            if timeouts[index] >= GIVE_UP:
                actual = ("timeout", "", "")
            else:
                actual = _call(candidate, args, kwargs, instance, case_s)
                timeouts[index] += actual[0] == "timeout"
            _tally(tally, expected, actual, _show_call(args, kwargs, instance))

    calls = _seen_calls(home, base, case_s) if home else []
    try:
        for case in calls:
            one_case(case)
        error = _generate(request, one_case, original if home else None)
    except Enough:
        error = None
    if timeouts[0] >= GIVE_UP:
        error = f"the original ran out of time on {GIVE_UP} inputs"
    return {
        "error": error,
        "stage": None,
        "environment": bool(error and error.startswith(NO_HYPOTHESIS)),
        "cases": seen["cases"],
        "seen_calls": len(calls),
        "out_of_time": seen.get("out_of_time", False),
        "results": tallies,
    }


def _failed(error, stage, environment=False):
    """A run that could not start; ``environment``: for something this environment lacks
    (a dependency not installed here, a slow machine), which may be there next time."""
    return {"error": error, "stage": stage, "environment": environment, "cases": 0, "results": []}


def _timed(work, seconds):
    """``work()`` under the alarm; its result, or what went wrong as text."""
    global _armed
    try:
        _armed = True
        signal.setitimer(signal.ITIMER_REAL, seconds, 0.05)
        try:
            return work()
        finally:
            _armed = False
            signal.setitimer(signal.ITIMER_REAL, 0)
    except CaseTimeout:
        return f"it took over {seconds:g} s"
    except BaseException as error:
        return f"{type(error).__name__}: {error}"[:300]


# --- the function's own module ---------------------------------------------------------


def _import_home(home):
    """The module, made from the text docfact read, as an import of its file would."""
    sys.path.insert(0, home["import_root"])
    name = home["name"]
    parent = name.rpartition(".")[0]
    if parent:
        importlib.import_module(parent)
    places = [os.path.dirname(home["path"])] if home["is_package"] else None
    spec = importlib.util.spec_from_file_location(
        name, home["path"], submodule_search_locations=places
    )
    if spec is None:
        raise ImportError(f"no way to import {home['path']} as a module")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    exec(compile(home["text"], home["path"], "exec"), module.__dict__)
    return module


def _target(module, home, case_s):
    """The function to test as a Callee, or why it cannot be had."""
    owner, found = None, module
    path = home["qualname"].split(".")
    for part in path:
        owner = found
        if isinstance(found, type):
            raw = found.__dict__.get(part)
            if raw is None:  # a ``__private`` method is stored under its mangled name
                raw = found.__dict__.get(_mangled(part, found.__name__))
        else:
            raw = getattr(found, part, None)
        if raw is None:
            return (
                f"{home['qualname']} is not in its module as imported here (defined inside a"
                " function, or under a condition that did not hold)"
            )
        found = raw
    if not isinstance(owner, type):
        return Callee(found) if callable(found) else f"{home['qualname']} is not a function"
    if isinstance(found, staticmethod):  # __new__ is one, and takes its class first
        return Callee(found.__func__, "class" if path[-1] == "__new__" else None, owner)
    if isinstance(found, classmethod):
        return Callee(found.__func__, "class", owner)
    if isinstance(found, property):  # measured through its getter
        found = found.fget
    if not callable(found):
        return f"{home['qualname']} is not a function"
    makers = _instance_makers(owner, home, case_s)
    if isinstance(makers, str):
        return makers
    return Callee(found, "instance", owner, makers[0] if makers else None, makers)


def _mangled(name, owner):
    """The name ``name`` is stored under in class ``owner`` (``__x`` -> ``_Owner__x``)."""
    if name.startswith("__") and not name.endswith("__") and owner.strip("_"):
        return f"_{owner.lstrip('_')}{name}"
    return name


def _instance_makers(owner, home, case_s):
    """Functions that each build a fresh instance of ``owner`` per call, one per recipe
    that builds one (none: drawn per case from the ``__init__``'s parameters), or why no
    instance can be had."""
    namespace = sys.modules[home["name"]].__dict__
    recipes = list(home["instances"]) + [owner.__name__ + "()"]
    problems, makers = [], []
    for recipe in recipes:
        try:
            code = compile(recipe, "<instance>", "eval")
        except SyntaxError:
            continue
        build = _evaluation(code, namespace)
        built = _timed(build, case_s * 5)
        if isinstance(built, owner):
            if home["qualname"].endswith(".__init__"):
                return [lambda: owner.__new__(owner)]
            makers.append(build)
        else:
            why = built if isinstance(built, str) else type(built).__name__
            problems.append(f"{recipe}: {why}")
    if makers or home.get("init_params") is not None:
        return makers
    return f"no instance of {owner.__name__} could be built ({'; '.join(problems)[:200]})"


def _evaluation(code, namespace):
    """A function that evaluates ``code`` in a fresh copy of ``namespace`` at each call."""
    return lambda: eval(code, dict(namespace))


def _seen_calls(home, namespace, case_s):
    """The argument lists of the call sites and doctests, evaluated in the module."""
    found = []
    scope = dict(namespace)
    scope["_docfact_arguments"] = lambda *args, **kwargs: (args, kwargs)
    for text in home["calls"]:
        try:
            code = compile("_docfact_arguments" + text, "<call>", "eval")
        except SyntaxError:
            continue
        case = _timed(functools.partial(eval, code, scope), case_s * 5)
        if isinstance(case, tuple):
            try:
                copy.deepcopy(case)
            except Exception:
                continue
            found.append((*case, None))
    return found


def _load(program, function, case_s, base=None, like=None):
    """The function ``program`` defines (run in a copy of ``base``, the module's namespace,
    when there is one) called the way ``like`` is, or why it could not be had.

    The method of a class written as a function of its own is compiled inside a class of
    the same name, as it would be in the class: its ``__private`` names are mangled the
    same way, and ``super()`` finds the real class."""
    namespace = dict(base) if base is not None else {"__name__": "__sonar__"}
    namespace["__builtins__"] = __builtins__
    try:
        tree = ast.parse(program)
    except SyntaxError as error:
        return f"SyntaxError: {error}"
    owner = like.owner if like is not None else None
    wrapped = owner is not None and _wrap_in_class(tree, function, owner.__name__)
    if owner is not None and wrapped:  # its body (``default=__marker``) reads the class's
        prefix = f"_{owner.__name__.lstrip('_')}__"
        for name, value in vars(owner).items():
            if name.startswith(prefix):
                namespace.setdefault(name, value)
    # Under the module's ``from __future__ import annotations`` the names its annotations
    # use may exist only for type checkers (``if TYPE_CHECKING:``): compiled the same way.
    flags = _ANNOTATIONS.compiler_flag if namespace.get("annotations") is _ANNOTATIONS else 0
    loaded = _timed(
        lambda: exec(compile(tree, "<program>", "exec", flags=flags, dont_inherit=True), namespace),
        case_s * 5,
    )
    if isinstance(loaded, str):
        return "loading timed out" if loaded.startswith("it took") else loaded
    if owner is not None and wrapped:
        member = namespace.pop(owner.__name__).__dict__.get(_mangled(function, owner.__name__))
        found = _as_member_of(member, owner)
        if base is not None and owner.__name__ in base:
            namespace[owner.__name__] = base[owner.__name__]
    else:
        found = _defined(tree, function, namespace)
    if not callable(found):
        return f"no function {function}"
    if like is None:
        return Callee(found)
    return Callee(found, like.bind, like.owner, like.make, like.recipes)


def _wrap_in_class(tree, function, name):
    """Put the top-level definition of ``function`` in a class called ``name``; whether
    there was one."""
    for index, node in enumerate(tree.body):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == function:
            holder = ast.ClassDef(name=name, bases=[], keywords=[], body=[node], decorator_list=[])
            if sys.version_info >= (3, 12):
                holder.type_params = []  # compile() needs it from 3.12 on
            tree.body[index] = ast.copy_location(holder, node)
            ast.fix_missing_locations(tree)
            return True
    return False


def _as_member_of(member, owner):
    """``member`` (a function compiled in a stand-in class) with its ``__class__`` cell,
    which ``super()`` reads, pointing at the real class."""
    import types

    if isinstance(member, (staticmethod, classmethod)):
        member = member.__func__
    if isinstance(member, property):
        member = member.fget
    if not isinstance(member, types.FunctionType) or "__class__" not in member.__code__.co_freevars:
        return member
    cells = tuple(
        types.CellType(owner) if name == "__class__" else cell
        for name, cell in zip(member.__code__.co_freevars, member.__closure__ or ())
    )
    rebuilt = types.FunctionType(
        member.__code__, member.__globals__, member.__name__, member.__defaults__, cells
    )
    rebuilt.__kwdefaults__ = member.__kwdefaults__
    return rebuilt


def _defined(tree, function, namespace):
    """``function`` as the program defines it: at its top level, else in one of its classes."""
    if any(
        isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.name == function
        for n in tree.body
    ):
        return namespace.get(function)
    for node in tree.body:
        if isinstance(node, ast.ClassDef) and isinstance(namespace.get(node.name), type):
            member = namespace[node.name].__dict__.get(function)
            if isinstance(member, (staticmethod, classmethod)):
                member = member.__func__
            if callable(member):
                return member
    return None


def _import_hypothesis(support_path):
    """hypothesis, from the interpreter's own packages or else from docfact's (looked up
    only for this import, so the code under test sees its own environment)."""
    try:
        import hypothesis
    except ImportError:
        sys.path.extend(support_path)
        try:
            import hypothesis  # noqa: F401
        finally:
            for folder in support_path:
                sys.path.remove(folder)


def _generate(request, one_case, original):
    """Feed ``one_case`` inputs drawn by hypothesis with a fixed seed; an error message or None."""
    try:
        _import_hypothesis(request.get("support_path", []))
        import hypothesis.core
        from hypothesis import HealthCheck, Phase, given, settings
        from hypothesis import strategies as st
    except Exception as error:
        why = f"{type(error).__name__}: {error}"
        return f"{NO_HYPOTHESIS} ({why})"[:300]

    # Hypothesis registers its own Random on first use, checking it with
    # gc.get_referrers, an object walk the sandbox refuses; with derandomize it never
    # draws from that Random, so one made here spares the check.
    if getattr(hypothesis.core.threadlocal, "_hypothesis_global_random", True) is None:
        hypothesis.core.threadlocal._hypothesis_global_random = random.Random(0)

    _constants.update(request.get("constants") or {})
    hints = _hints(original) if original is not None else {}
    if original is not None:  # the module's own types are built from the same leaves as the rest
        st.register_type_strategy(str, _strategy({"t": "str"}, st))
        st.register_type_strategy(int, _strategy({"t": "int"}, st))
        st.register_type_strategy(bytes, _strategy({"t": "bytes"}, st))

    def strategy(param):
        static = _strategy(param["spec"], st)
        if param.get("hint") and param["name"] in hints:
            typed = _from_type(hints[param["name"]], st)
            if typed is not None:
                return typed
        return static

    positional = st.tuples(*(strategy(p) for p in request["params"] if not p["keyword"]))
    if request.get("varargs"):  # ``*args``: a few more positional arguments
        more = st.lists(_strategy(request["varargs"], st), max_size=4)
        positional = st.tuples(positional, more).map(lambda drawn: drawn[0] + tuple(drawn[1]))
    keyword = {
        # one with a default is left out at times: its default is behaviour too
        p["name"]: st.one_of(st.just(_OMIT), strategy(p)) if p.get("optional") else strategy(p)
        for p in request["params"]
        if p["keyword"]
    }
    keywords = st.fixed_dictionaries(keyword)
    if request.get("varkw"):  # ``**kwargs``: a few of the names it reads, or any
        extra = st.dictionaries(st.sampled_from(request["varkw"]), _strategy(ANY, st), max_size=3)
        keywords = st.tuples(keywords, extra).map(lambda drawn: {**drawn[1], **drawn[0]})
    cases = st.tuples(
        positional,
        keywords.map(
            lambda drawn: {name: value for name, value in drawn.items() if value is not _OMIT}
        ),
        _instances(original, (request.get("home") or {}).get("init_params") or [], st),
    )

    # Only cases where the original returns are counted: drawn until there are ``cases``
    # of them (inputs that make it raise are cheap), or four times as many were tried.
    @settings(
        max_examples=request["cases"] * TRIES_PER_CASE,
        database=None,
        deadline=None,
        derandomize=True,
        phases=[Phase.generate],
        suppress_health_check=list(HealthCheck),
        print_blob=False,
    )
    @given(cases)
    def differential(case):
        one_case(case)

    try:
        differential()
    except Enough:
        return None
    except Exception as error:  # hypothesis gave up (or our comparison broke): say so
        return f"input generation stopped: {type(error).__name__}: {error}"[:300]
    return None


def _instances(callee, params, st):
    """Instances a method is called on: built the way the project builds one (None: made
    per call by the first recipe; the other recipes too), and drawn from the class's
    constructor with generated arguments (the ``__init__``'s parameter specs ``params``)
    and its annotations, so that a method without arguments is tried on many states, and
    states the project's own recipes never reach are tried too. One that fails to build
    is None (made per call, or the case is skipped when no recipe builds one)."""
    if callee is None or callee.bind != "instance" or callee.function.__name__ == "__init__":
        return st.none()
    owner = callee.owner

    def build(args, kwargs):
        try:
            return owner(*args, **kwargs)
        except Exception:
            return None

    def made(recipe):
        try:
            return recipe()
        except Exception:
            return None

    def filled(instance, items):
        """A container the way a caller fills one (``c[k] = v``, ``c.add(x)``): a cache
        or a sorted list is empty as built, and most of its methods then only raise."""
        if instance is None:
            return None
        try:
            for key, value in items:
                if hasattr(instance, "__setitem__") and not isinstance(instance, (list, tuple)):
                    instance[key] = value
                elif hasattr(instance, "add"):
                    instance.add(key)
                elif hasattr(instance, "append"):
                    instance.append(key)
        except Exception:
            pass  # the state it reached is a state too
        return instance

    positional = st.tuples(*(_strategy(p["spec"], st) for p in params if not p["keyword"]))
    keyword = st.fixed_dictionaries(
        {p["name"]: _strategy(p["spec"], st) for p in params if p["keyword"]}
    )
    drawn = st.builds(build, positional, keyword)
    items = st.lists(st.tuples(st.integers(-50, 50), st.integers(-50, 50)), max_size=6)
    choices = [drawn, st.builds(filled, drawn, items)]
    if callee.make is not None:
        choices.insert(0, st.none())
    if callee.recipes:
        recipe = st.sampled_from(callee.recipes).map(made)
        choices += [recipe, st.builds(filled, recipe, items)]
    built = _from_type(owner, st)
    return st.one_of(*choices, *([built] if built is not None else []))


def _hints(callee):
    """The resolved annotations of the original (those of its module's own types too)."""
    import typing

    try:
        return typing.get_type_hints(callee.function)
    except Exception:
        return {}


def _from_type(hint, st):
    """hypothesis's strategy for a resolved annotation, when it can draw from it."""
    try:
        strategy = st.from_type(hint)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            strategy.example()
        return strategy
    except Exception:
        return None


# A fixed alphabet: any other text strategy makes hypothesis build its Unicode tables,
# a second per run in a fresh sandbox. Letters, digits, punctuation, space and a few
# characters beyond ASCII.
ALPHABET = string.ascii_letters + string.digits + string.punctuation + " \t\n" + "éßÅ中ж\u200b😀"


def _strategy(spec, st):
    kind = spec["t"]
    ints = st.integers(-1000, 1000)
    # short text, and at times a longer one (a width of 70 or a line's end matters then)
    text = st.one_of(st.text(ALPHABET, max_size=12), st.text(ALPHABET, min_size=30, max_size=160))
    if _constants["int"]:  # the body's own numbers and their neighbours
        ints = st.one_of(ints, st.sampled_from(_constants["int"]))
    if _constants["str"]:  # text made of the body's own literals among other characters
        pieces = st.one_of(st.sampled_from(_constants["str"]), st.text(ALPHABET, max_size=4))
        text = st.one_of(text, st.lists(pieces, max_size=10).map("".join))
    leaves = {
        "int": ints,
        "float": st.floats(),
        "number": st.one_of(ints, st.floats()),
        "bool": st.booleans(),
        "str": text,
        "bytes": st.binary(max_size=12),
        "none": st.none(),
        "sized": st.one_of(st.lists(ints, max_size=8), text),
        "any": st.one_of(
            ints, text, st.none(), st.booleans(), st.floats(), st.lists(ints, max_size=5)
        ),
    }
    if kind in leaves:
        return leaves[kind]
    if kind == "literal":
        return st.just(ast.literal_eval(spec["src"]))
    if kind == "choice":
        return st.sampled_from(ast.literal_eval(spec["src"]))
    if kind == "one_of":
        return st.one_of(*(_strategy(part, st) for part in spec["of"]))
    if kind == "list":
        return st.lists(_strategy(spec["of"], st), max_size=8)
    if kind == "set":
        return st.sets(_strategy(spec["of"], st), max_size=8)
    if kind == "tuple" and "items" in spec:
        return st.tuples(*(_strategy(part, st) for part in spec["items"]))
    if kind == "tuple":
        return st.lists(_strategy(spec["of"], st), max_size=8).map(tuple)
    if kind == "dict":
        return st.dictionaries(_strategy(spec["k"], st), _strategy(spec["v"], st), max_size=6)
    raise ValueError(f"unknown input spec {kind!r}")


def _call(callee, args, kwargs, instance, case_s):
    """(kind, detail, printed): ("returned", value, ...) | ("raised", description, ...) |
    ("timeout", "", "")."""
    global _armed
    args, kwargs, instance = copy.deepcopy((args, kwargs, instance))
    random.seed(0)
    if "numpy" in sys.modules:
        sys.modules["numpy"].random.seed(0)
    _sink.take()
    try:
        _armed = True
        signal.setitimer(signal.ITIMER_REAL, case_s, 0.05)
        try:
            value, args = callee(args, kwargs, instance)
            value = _materialise(value)
        finally:
            _armed = False
            signal.setitimer(signal.ITIMER_REAL, 0)
    except CaseTimeout:
        return ("timeout", "", "")
    except BaseException as error:
        return ("raised", f"{type(error).__name__}: {error}", _sink.take())
    # A function that returns None did its work on its arguments (its instance included).
    if value is None:
        value = ("<None; arguments after>", args, kwargs)
    return ("returned", value, _sink.take())


def _same_outcome(a, b):
    if a[0] != b[0] or a[0] == "timeout":
        return False
    return a[0] == "raised" or (_same(a[1], b[1]) and a[2] == b[2])


def _materialise(value):
    """Generators and iterators become ("<iterator>", items) so they can be compared."""
    if hasattr(value, "__next__") and hasattr(value, "__iter__"):
        return ("<iterator>", list(itertools.islice(value, 10_000)))
    return value


def _tally(tally, expected, actual, shown):
    if expected[0] in ("timeout", "unsteady"):
        tally["discarded"] += 1
        return
    if expected[0] == "raised":
        tally["raised"] += 1
        if tally["raised_example"] is None:
            tally["raised_example"] = f"{shown}: {expected[1]}"[:200]
        return
    tally["counted"] += 1
    if (
        actual[0] == "returned"
        and _same(expected[1], actual[1])
        and (not expected[2] or expected[2] == actual[2])
    ):
        tally["matches"] += 1
    elif tally["counterexample"] is None:
        original, candidate = _describe(expected), _describe(actual)
        if actual[0] == "returned" and original == candidate:  # shortened alike: say where
            where, ours, theirs = _first_difference(expected[1], actual[1])
            if where is not None:
                original += f", {where} is {ours}"
                candidate += f", {where} is {theirs}"
            elif expected[2] != actual[2]:
                original += f", printed {_short.repr(expected[2][-60:])}"
                candidate += f", printed {_short.repr(actual[2][-60:])}"
        tally["counterexample"] = {"input": shown, "original": original, "candidate": candidate}


def _first_difference(a, b, where="value", depth=0):
    """(where, a's part, b's part) of the first place the values differ, shortened; the
    parts differ as text whenever they can (the whole values may print alike when cut)."""
    if depth < 20 and type(a) is type(b) and isinstance(a, (list, tuple)):
        for index, (x, y) in enumerate(zip(a, b)):
            if not _same(x, y):
                return _first_difference(x, y, f"{where}[{index}]", depth + 1)
        if len(a) != len(b):
            return f"len({where})", str(len(a)), str(len(b))
        return None, "", ""
    if depth < 20 and type(a) is type(b) and isinstance(a, dict):
        for key in a:
            if key not in b:
                return f"{where}[{_short.repr(key)}]", _short.repr(a[key]), "missing"
            if not _same(a[key], b[key]):
                return _first_difference(a[key], b[key], f"{where}[{_short.repr(key)}]", depth + 1)
        extra = next((key for key in b if key not in a), None)
        if extra is not None:
            return f"{where}[{_short.repr(extra)}]", "missing", _short.repr(b[extra])
        return None, "", ""
    if (
        depth < 20
        and _same_class(type(a), type(b))
        and type(a).__eq__ is object.__eq__  # type: ignore[comparison-overlap]
        and not callable(a)
        and not _is_number(a)
    ):
        return _first_difference(_state(a), _state(b), where, depth + 1)
    ours, theirs = _short.repr(a), _short.repr(b)
    if ours == theirs:
        ours, theirs = repr(a)[:60], repr(b)[:60]
    if ours == theirs:
        ours, theirs = f"{ours} ({type(a).__name__})", f"{theirs} ({type(b).__name__})"
    return where, ours, theirs


def _same(a, b, depth=0):
    """SONAR's equality: floats within relative tolerance 1e-9, NaN == NaN, infinities exact."""
    try:
        if _is_number(a) and _is_number(b):
            if isinstance(a, numbers.Integral) and isinstance(b, numbers.Integral):
                return a == b
            if not (isinstance(a, numbers.Real) and isinstance(b, numbers.Real)):
                return _same(complex(a).real, complex(b).real) and _same(
                    complex(a).imag, complex(b).imag
                )
            x, y = float(a), float(b)
            if math.isnan(x) or math.isnan(y):
                return math.isnan(x) and math.isnan(y)
            if math.isinf(x) or math.isinf(y):
                return x == y
            return math.isclose(x, y, rel_tol=1e-9, abs_tol=0.0)
        if depth < 100 and type(a) is type(b) and isinstance(a, (list, tuple)):
            return len(a) == len(b) and all(_same(x, y, depth + 1) for x, y in zip(a, b))
        if depth < 100 and type(a) is type(b) and isinstance(a, dict):
            return a.keys() == b.keys() and all(_same(a[k], b[k], depth + 1) for k in a)
        # (mypy reads ``type(a).__eq__`` as the metaclass's bound method: it is the class's.)
        if (
            depth < 100
            and _same_class(type(a), type(b))
            and type(a).__eq__ is object.__eq__  # type: ignore[comparison-overlap]
            and not callable(a)
        ):
            return _same(_state(a), _state(b), depth + 1)  # no equality of its own: by value
        if hasattr(a, "shape") and hasattr(a, "dtype") and "numpy" in sys.modules:
            numpy = sys.modules["numpy"]
            a, b = numpy.asarray(a), numpy.asarray(b)
            if a.shape != b.shape:
                return False
            if a.dtype.kind in "fc" or b.dtype.kind in "fc":
                return bool(numpy.allclose(a, b, rtol=1e-9, atol=0.0, equal_nan=True))
            return bool(numpy.array_equal(a, b))
        return bool(a == b)
    except Exception:
        return False


def _same_class(a, b):
    """The same class, or classes of the same name in the same module (each program that
    defines a class of its own makes another class object)."""
    return a is b or (a.__qualname__ == b.__qualname__ and a.__module__ == b.__module__)


def _state(value):
    """An object's attributes (its ``__dict__`` and slots), as a dict."""
    state = dict(getattr(value, "__dict__", None) or {})
    for cls in type(value).__mro__:
        slots = getattr(cls, "__slots__", ())
        for name in (slots,) if isinstance(slots, str) else slots:
            if name not in ("__dict__", "__weakref__") and hasattr(value, name):
                state[name] = getattr(value, name)
    return state


def _is_number(value):
    return isinstance(value, numbers.Number) and not isinstance(value, bool)


def _show_call(args, kwargs, instance=None):
    parts = [_short.repr(a) for a in args] + [f"{k}={_short.repr(v)}" for k, v in kwargs.items()]
    text = "(" + ", ".join(parts) + ")"
    if instance is not None:
        state = ", ".join(f"{k}={_short.repr(v)}" for k, v in list(_state(instance).items())[:6])
        text += f" on {type(instance).__name__}({state})"
    return text if len(text) <= 200 else text[:197] + "..."


def _describe(outcome):
    kind, detail, printed = outcome
    said = f", printed {_short.repr(printed)}" if printed else ""
    if kind == "timeout":
        return "ran out of time"
    if kind == "raised":
        return f"raised {detail}{said}"[:200]
    if isinstance(detail, tuple) and detail and detail[0] == "<None; arguments after>":
        return f"returned None{said}, arguments after: {_show_call(detail[1], detail[2])}"[:200]
    return f"returned {_short.repr(detail)}{said}"[:200]


if __name__ == "__main__":
    main()
