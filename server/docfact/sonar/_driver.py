"""Differential testing, run inside the sandbox as __main__ (funcsim.py sends this file's
text to the sandbox; nothing imports it).

stdin: JSON {"nonce", "function", "original": program or null, "candidates": [program, ...],
"params": [{"name", "keyword", "optional", "spec", "hint"}], "varargs": spec of each extra
positional argument or null, "varkw": [names to pass through **kwargs], "constants": {"str",
"int": the original's literals, "patterns": {"names", "regex"}: what may name or be a
regular expression it matches with, "lines": whether it works line by line, "numerals":
whether it reads numbers from text (``shapes.py``)}, "cases"
(wanted where the original returns), "case_s", "budget_s", "home": null or {"name", "path",
"text", "is_package", "import_root", "qualname", "calls": [argument lists as source text],
"instances": [expressions], "load_s"}, "support_path": [folders to import hypothesis from
when the interpreter has none]}.
stdout, in two phases, each a line "SONAR-FUNCSIM " + nonce + " " + kind + " " + JSON:
1. kind "original", written before any candidate is compiled: {"error", "stage",
   "environment" (true when what failed is this environment's, not the function's: a
   dependency not installed, hypothesis missing), "cases", "seen_calls", "out_of_time",
   "records": [{"show": the call, "o": the original's outcome}]} (outcomes: ``_call``;
   "k" "unsteady" when a second call gave another outcome);
2. kind "candidates": {"results": [{"problem", "outs": [outcome or null per record]}]}.
The parent (``outcomes.py``) compares them; nothing here judges. Code under test runs in
this process and could dig the nonce out of its frames and print any line: a candidate can
only say what it returned (what behaving that way would give), never what the original
did, which the parent has already read from the first line. The nonce is the parent's,
new each run, and read before any code runs, so that lines printed by chance are ignored.

Without ``home`` the original is a program of its own. With it, the function's real module
is imported (from ``text``, the source as docfact read it, under its own name and file, so
its package and relative imports work), the original is the module's function (or the
method of its class), and each candidate program runs in a copy of the module's namespace,
so it sees the module's helpers, constants and classes as the original does. Methods are
called on an instance built per call from the first of ``instances`` that works (the way
the project's doctests and tests build one), else the class called with no argument.
``calls`` are argument lists seen at the function's call sites and doctest examples,
evaluated in the module's namespace; they are tried before the generated inputs.

Candidates are called only on the cases where the original returned (``outcomes.py``
says why the others are not counted). What a call prints is part of its outcome, and a
function that returns None is judged by its arguments after the call (in-place work).
A candidate that cannot be loaded has a ``problem`` and no outcomes.
"""

import __future__

import ast
import copy
import functools
import hashlib
import importlib
import importlib.util
import itertools
import json
import numbers
import os
import random
import re
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
_shapes: dict = {}  # strategies for the shapes the body asks for (see _shape_strategies)
_namespace: dict = {}  # the function's module, where "types" and "attrs" specs are resolved
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
    # Kept only here (no global, not in the request the rest reads). Lines with it are
    # written in two phases: the original's outcomes before any candidate is even
    # compiled, then the candidates'. The parent compares; code in this process can add
    # lines of its own, but not unsay the original's, which were out before it existed.
    nonce = request.pop("nonce")
    out = sys.stdout
    sys.stdout = sys.stderr = _sink
    signal.signal(signal.SIGALRM, _on_alarm)

    def say(kind, payload):
        out.write("\n" + MARKER + nonce + " " + kind + " " + json.dumps(payload) + "\n")
        out.flush()

    run(request, say)


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


def run(request, say):
    """Phase one (the original on every drawn case, said at once), then phase two (each
    candidate on the cases where the original returned)."""
    started = time.monotonic()
    function, case_s = request["function"], request["case_s"]
    home = request.get("home")
    base = target = None
    if home:
        module = _timed(lambda: _import_home(home), home["load_s"])
        if isinstance(module, str):
            why = f"the module {home['name']} could not be imported: {module}"
            return say("original", _failed(why, "module", module.startswith(ENVIRONMENT_ERRORS)))
        base = module.__dict__
        _namespace.update(base=base, name=home["name"], text=home["text"])
        target = _target(module, home, case_s)
        if isinstance(target, str):
            return say("original", _failed(target, "function"))
    if request["original"] is None:
        original = target
    else:
        original = _load(request["original"], function, case_s, base, target)
        if isinstance(original, str):
            why = f"the original could not be loaded: {original}"
            return say(
                "original", _failed(why, "original", original.startswith(ENVIRONMENT_ERRORS))
            )
    # The original's share of the time: it is called twice per case, each candidate once.
    share = 2 / (2 + len(request["candidates"]))
    summary, cases = _original_phase(request, original, home, base, started, share)
    say("original", summary)
    returned = [record["o"]["k"] == "returned" for record in summary["records"]]
    del summary  # the original's outcomes are out; no candidate can find them in here
    deadline = started + request["budget_s"]
    say("candidates", _candidate_phase(request, base, target, cases, returned, deadline))


def _original_phase(request, original, home, base, started, share):
    """The original's outcome on each drawn case (its summary), and the cases themselves,
    untouched (each call works on a copy)."""
    case_s = request["case_s"]
    deadline = time.monotonic() + request["budget_s"] * share  # loading is not counted
    records, cases = [], []
    seen = {"returned": 0, "timeouts": 0}

    def one_case(case):
        if seen["returned"] >= request["cases"]:
            raise Enough()  # enough cases where the original returned: no more are drawn
        if time.monotonic() > deadline or seen["timeouts"] >= GIVE_UP:
            seen["out_of_time"] = True  # the cases tried are fewer than asked for
            raise Enough()
        args, kwargs, instance = case
        if instance is None and original.bind == "instance" and original.make is None:
            return  # no instance drawn for this case (its class would not build)
        if instance is not None:
            try:  # each call gets its own copy of the instance
                copy.deepcopy(instance)
            except Exception:
                instance = None
        expected = _call(original, args, kwargs, instance, case_s)
        seen["timeouts"] += expected["k"] == "timeout"
        if expected["k"] != "timeout":
            again = _call(original, args, kwargs, instance, case_s)
            # (raising twice is steady whatever the message: it may name an address)
            keys = ("k",) if expected["k"] == "raised" else ("k", "v", "p")
            if any(again[key] != expected[key] for key in keys):
                expected = {"k": "unsteady", "v": "", "p": "", "d": ""}  # not a behaviour
        seen["returned"] += expected["k"] == "returned"
        records.append({"show": _show_call(args, kwargs, instance), "o": expected})
        cases.append((args, kwargs, instance))

    calls = _seen_calls(home, base, case_s) if home else []
    try:
        for case in calls:
            one_case(case)
        error = _generate(request, one_case, original if home else None)
    except Enough:
        error = None
    if seen["timeouts"] >= GIVE_UP:
        error = f"the original ran out of time on {GIVE_UP} inputs"
    summary = {
        "error": error,
        "stage": None,
        "environment": bool(error and error.startswith(NO_HYPOTHESIS)),
        "cases": len(records),
        "seen_calls": len(calls),
        "out_of_time": seen.get("out_of_time", False),
        "records": records,
    }
    return summary, cases


def _candidate_phase(request, base, target, cases, returned, deadline):
    """Each candidate's outcome on the cases where the original returned (``returned``,
    per case; None elsewhere, and where the time ran out), or why it could not be loaded."""
    case_s = request["case_s"]
    results: list = []
    for program in request["candidates"]:
        candidate = _load(program, request["function"], case_s, base, target)
        if isinstance(candidate, str):
            results.append({"problem": f"the code could not be loaded: {candidate}", "outs": []})
            continue
        outs: list = []
        timeouts = 0
        for counted, (args, kwargs, instance) in zip(returned, cases):
            if not counted or time.monotonic() > deadline:
                outs.append(None)
            elif timeouts >= GIVE_UP:  # each try would cost a whole case limit
                outs.append({"k": "timeout", "v": "", "p": "", "d": "ran out of time"})
            else:
                outs.append(_call(candidate, args, kwargs, instance, case_s))
                timeouts += outs[-1]["k"] == "timeout"
        results.append({"problem": None, "outs": outs})
    return {"results": results}


def _failed(error, stage, environment=False):
    """A run that could not start; ``environment``: for something this environment lacks
    (a dependency not installed here, a slow machine), which may be there next time."""
    return {"error": error, "stage": stage, "environment": environment, "cases": 0, "records": []}


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
    _shape_strategies(original, st)
    hints = _hints(original) if original is not None else {}
    if original is not None:  # the module's own types are built from the same leaves as the rest
        st.register_type_strategy(str, _strategy({"t": "str"}, st))
        st.register_type_strategy(int, _strategy({"t": "int"}, st))
        st.register_type_strategy(bytes, _strategy({"t": "bytes"}, st))
        _register_near_now(st)

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
        _instances(
            original,
            (request.get("home") or {}).get("init_params") or [],
            st,
            (request.get("home") or {}).get("state") or [],
        ),
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
        try:
            one_case(case)
        except Enough:
            stopped.append(True)
            raise

    stopped: list = []
    try:
        differential()
    except Enough:
        return None
    except Exception as error:  # hypothesis gave up (or our comparison broke): say so
        if stopped:  # hypothesis reports the case that stopped it, and its repr() raised
            return None
        return f"input generation stopped: {type(error).__name__}: {error}"[:300]
    return None


def _instances(callee, params, st, state=()):
    """Instances a method is called on: built the way the project builds one (None: made
    per call by the first recipe; the other recipes too), and drawn from the class's
    constructor with generated arguments (the ``__init__``'s parameter specs ``params``)
    and its annotations, so that a method without arguments is tried on many states, and
    states the project's own recipes never reach are tried too. One that fails to build
    is None (made per call, or the case is skipped when no recipe builds one). ``state``:
    [attribute, value] pairs the method compares with (``self.debug >= 1``), set on some
    of them, a state the constructor may never reach."""
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
        {  # one with a default left out at times, as in the cases: its default works
            p["name"]: st.one_of(st.just(_OMIT), _strategy(p["spec"], st))
            if p.get("optional")
            else _strategy(p["spec"], st)
            for p in params
            if p["keyword"]
        }
    ).map(lambda drawn: {name: value for name, value in drawn.items() if value is not _OMIT})
    drawn = st.builds(build, positional, keyword)
    items = st.lists(st.tuples(st.integers(-50, 50), st.integers(-50, 50)), max_size=6)
    choices = [drawn, st.builds(filled, drawn, items)]
    if callee.make is not None:
        choices.insert(0, st.none())
    if callee.recipes:
        recipe = st.sampled_from(callee.recipes).map(made)
        choices += [recipe, st.builds(filled, recipe, items)]
    built = _from_type(owner, st)
    choices += [built] if built is not None else []
    plain = st.one_of(*choices)
    if not state:
        return plain
    # Half the instances in one of those states, each built (not None, made per call,
    # which would lose the state): a state is one of many, and reached only here.
    built_ones = st.one_of(*(c for c in choices if c is not choices[0] or callee.make is None))
    return _either(st, st.builds(_in_state, built_ones, st.sampled_from(state)), plain)


def _either(st, first, second):
    """``first`` or ``second``, each half the time (``one_of`` would weigh each of their own
    alternatives alike)."""
    return st.booleans().flatmap(lambda chosen: first if chosen else second)


def _in_state(instance, pair):
    """``instance`` with one attribute set (None when it cannot be: no instance drawn,
    slots, a read-only property)."""
    if instance is None:
        return None
    try:
        setattr(instance, pair[0], ast.literal_eval(pair[1]))
    except Exception:
        return None
    return instance


def _hints(callee):
    """The resolved annotations of the original (those of its module's own types too, and
    those naming what the module imports only for type checkers)."""
    import typing

    try:
        return typing.get_type_hints(callee.function)
    except Exception:
        pass
    try:
        found = typing.get_type_hints(callee.function, globalns=_checking_namespace())
    except Exception:
        return {}
    # A bare ``Sequence`` says less than how the body uses the value (``sum(numbers)``):
    # that is left to the static spec, as it was without these imports.
    return {
        name: hint
        for name, hint in found.items()
        if typing.get_args(hint) or getattr(hint, "__module__", "") not in BARE_GENERIC
    }


BARE_GENERIC = ("collections.abc", "typing", "builtins")


def _checking_namespace():
    """The module's namespace with what it imports under ``if TYPE_CHECKING:`` (``import
    datetime as dt``, for ``value: dt.date``) imported too, once; a copy, the module's own
    is left as it is."""
    if "checking" in _namespace:
        return _namespace["checking"]
    namespace = dict(_namespace.get("base") or {})
    try:
        tree = ast.parse(_namespace.get("text") or "")
    except (SyntaxError, ValueError):
        tree = ast.Module(body=[], type_ignores=[])
    for node in tree.body:
        if not isinstance(node, ast.If):
            continue
        test = node.test
        if (getattr(test, "id", None) or getattr(test, "attr", None)) != "TYPE_CHECKING":
            continue
        for statement in node.body:
            if isinstance(statement, (ast.Import, ast.ImportFrom)):
                imports = ast.Module(body=[statement], type_ignores=[])
                code = compile(imports, "<type checking>", "exec")
                _timed(functools.partial(exec, code, namespace), 2.0)
    _namespace["checking"] = namespace
    return namespace


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
    if "text" in _shapes:  # text of the shapes the body looks for, half the time
        text = _either(st, _shapes["text"], text)
    lengths = [n for n in _constants["int"] if 0 < n <= MAX_RUN]
    if lengths:  # ``width=70``, ``len(x) > 10``: as long as a limit, and one more or less
        size = st.sampled_from(lengths)
        text = st.one_of(text, st.builds(str.__mul__, st.sampled_from(RUN_CHARACTERS), size))
    # Finite numbers nine times in ten: unbounded floats are mostly NaN, infinities and
    # extremes, which swallow the differences a body makes on ordinary numbers.
    floats = st.integers(0, 9).flatmap(lambda n: st.floats() if n == 0 else st.floats(-1e9, 1e9))
    if _constants["int"]:  # ``size >= 1024`` on a float: 1023.0, 1024.0, 1025.0 too
        floats = st.one_of(floats, st.sampled_from(_constants["int"]).map(float))
    leaves = {
        "int": ints,
        "float": floats,
        "number": st.one_of(ints, floats),
        "bool": st.booleans(),
        "str": text,
        "bytes": st.binary(max_size=12),
        "none": st.none(),
        "sized": st.one_of(st.lists(ints, max_size=8), text),
        # half of them answering numbers: callbacks that give times, sizes and keys do
        "callable": _either(st, st.just(_sum_of_numbers), st.sampled_from(CALLABLES)),
        "shaped": _shapes.get("text", text),
        "any": st.one_of(
            ints, text, st.none(), st.booleans(), st.floats(), st.lists(ints, max_size=5)
        ),
    }
    if kind in leaves:
        return leaves[kind]
    if kind == "types":
        return st.one_of(*(_of_type(source, st) for source in spec["src"]))
    if kind == "attrs":
        return _with_attributes(spec["names"], st)
    if kind == "literal":
        return st.just(ast.literal_eval(spec["src"]))
    if kind == "choice":
        return st.sampled_from(ast.literal_eval(spec["src"]))
    if kind == "one_of":
        return st.one_of(*(_strategy(part, st) for part in spec["of"]))
    if kind == "half":
        return _either(st, *(_strategy(part, st) for part in spec["of"]))
    if kind == "list":
        items = st.lists(_strategy(spec["of"], st), max_size=8)
        if lengths:
            long = size.flatmap(
                lambda n: st.lists(_strategy(spec["of"], st), min_size=n, max_size=n)
            )
            items = st.one_of(items, long)
        return items
    if kind == "set":
        return st.sets(_strategy(spec["of"], st), max_size=8)
    if kind == "tuple" and "items" in spec:
        return st.tuples(*(_strategy(part, st) for part in spec["items"]))
    if kind == "tuple":
        return st.lists(_strategy(spec["of"], st), max_size=8).map(tuple)
    if kind == "dict":
        return st.dictionaries(_strategy(spec["k"], st), _strategy(spec["v"], st), max_size=6)
    raise ValueError(f"unknown input spec {kind!r}")


def _sum_of_numbers(*args):
    """The sum of the numbers among ``args``: a callback whose answer is a number (a cache's
    time to use, ``ttu(key, value, now)``: later than now for positive keys and values)."""
    return sum(a for a in args if isinstance(a, (int, float)) and not isinstance(a, bool))


# What a parameter the body calls is given (besides what else it may be): functions of one
# argument or any, total on the probes a returned function is compared by.
CALLABLES = (_sum_of_numbers, repr, str, bool, type, lambda *args: args)
MAX_PATTERNS = 8
INDENTS = ("", " ", "  ", "    ", "\t", " \t")
DIGITS = re.compile(r"\\d|0-9")  # a pattern that matches digits: the text holds numbers


def _shape_strategies(callee, st):
    """The strategies for the shapes ``shapes.py`` found the body asking for, in ``_shapes``:
    text its regular expressions match (search semantics: with text around it), lines
    sharing an indentation (made of that text when there is some), numbers written as
    text."""
    _shapes.clear()
    compiled = _patterns(_constants.get("patterns") or {}, callee)
    drawn = []
    for pattern in compiled:
        try:
            strategy = st.from_regex(pattern, alphabet=ALPHABET)
            strategy.validate()  # a pattern needing characters outside the alphabet fails here
        except Exception:
            continue
        drawn.append(strategy)
    shaped = [st.one_of(*drawn)] if drawn else []
    if _constants.get("lines") or any(p.flags & re.MULTILINE for p in compiled):
        # lines sharing an indentation, some with more of their own, some blank
        line = shaped[0] if shaped else st.text(ALPHABET, max_size=12)
        own = st.tuples(st.sampled_from(INDENTS), st.one_of(line, st.just("")))
        shaped.append(
            st.builds(
                lambda margin, rows: "\n".join(margin + indent + row for indent, row in rows),
                st.sampled_from(INDENTS[1:]),
                st.lists(own, min_size=1, max_size=5),
            )
        )
    if _constants.get("numerals") or any(DIGITS.search(p.pattern) for p in compiled):
        shaped.append(_numerals(st))
    if shaped:
        _shapes["text"] = st.one_of(*shaped)


def _numerals(st):
    """Numbers written as text: integers, decimals, exponents (``1.5e3``, ``-2E-2``),
    ratios (``3/4``), with signs, underscores and surrounding space."""
    digits = st.integers(0, 10**6).map(str)
    sign = st.sampled_from(("", "-", "+"))
    power = st.one_of(st.sampled_from((1, 2, 3, 6, 21)), st.integers(0, 30))
    exponent = st.builds("{}{}{}".format, st.sampled_from("eE"), sign, power)
    decimal = st.builds("{}.{}".format, digits, digits)
    mantissa = st.one_of(digits, decimal, digits.map(lambda d: "." + d))
    number = st.builds("{}{}{}".format, sign, mantissa, st.one_of(st.just(""), exponent))
    ratio = st.builds("{}{}/{}".format, sign, digits, digits)
    grouped = st.integers(1000, 10**9).map(lambda n: f"{n:_}")
    floats = st.floats(allow_nan=False, allow_infinity=False).map(repr)
    spaced = st.builds("{}{}{}".format, st.sampled_from(("", " ", "\t")), number, st.just(" "))
    return st.one_of(number, ratio, grouped, floats, spaced)


def _patterns(sources, callee):
    """The compiled text patterns among the names the body reads (module globals, its
    class's attributes) and the pattern text it gives to ``re``; at most ``MAX_PATTERNS``."""
    base = _namespace.get("base") or {}
    owner = getattr(callee, "owner", None)
    found = []
    for name in sources.get("names", ()):
        value = base.get(name)
        if value is None and isinstance(owner, type):
            value = next((c.__dict__[name] for c in owner.__mro__ if name in c.__dict__), None)
        if isinstance(value, re.Pattern) and isinstance(value.pattern, str) and value not in found:
            found.append(value)
    for text in sources.get("regex", ()):
        try:
            found.append(re.compile(text))
        except (re.error, TypeError, ValueError, RecursionError):
            continue
    return found[:MAX_PATTERNS]


MAX_RUN = 400  # the longest text or list made as long as one of the body's numbers
RUN_CHARACTERS = ("a", "x", "-", "0")
NEAR_NOW_DAYS = (0, 1, -1, 2, -2, 7, -7, 30, -30, 200, -200, 400, -400)


def _register_near_now(st):
    """Dates, datetimes and timedeltas near now as well as anywhere: what a function
    relative to today (``naturalday``: tomorrow, yesterday) branches on is never reached by
    a date drawn from ten thousand years."""
    import datetime as dt

    days = st.sampled_from(NEAR_NOW_DAYS)
    seconds = st.one_of(st.integers(0, 86_399), st.sampled_from((0, 1, 59, 60, 3599, 3600)))
    delta = st.builds(lambda d, s: dt.timedelta(days=d, seconds=s), days, seconds)
    st.register_type_strategy(dt.timedelta, st.one_of(st.timedeltas(), delta))
    st.register_type_strategy(
        dt.date, st.one_of(st.dates(), days.map(lambda d: dt.date.today() + dt.timedelta(d)))
    )
    now = st.builds(lambda d: dt.datetime.now().replace(microsecond=0) + d, delta)
    st.register_type_strategy(dt.datetime, st.one_of(st.datetimes(), now))


def _of_type(source, st):
    """Values of the type ``source`` names in the function's module (an ``isinstance``
    test in the body), or nothing when it names none hypothesis can build."""
    if _namespace.get("base") is None:
        return st.nothing()
    try:
        kind = eval(source, dict(_checking_namespace()))
    except Exception:
        return st.nothing()
    if not isinstance(kind, type):
        return st.nothing()
    if kind.__module__ == _namespace.get("name"):
        own = _instances_of(kind, (), st)
        if own is not None:
            return own
    found = _from_type(kind, st)
    return found if found is not None else st.nothing()


def _with_attributes(names, st):
    """Instances of the module's own classes that have every attribute in ``names`` (what
    the body reads from the parameter), built from small integers; nothing when none has."""
    base, module = _namespace.get("base"), _namespace.get("name")
    if base is None:
        return st.nothing()
    found = []
    for value in list(base.values()):
        if isinstance(value, type) and value.__module__ == module:
            built = _instances_of(value, names, st)
            if built is not None:
                found.append(built)
    return st.one_of(*found) if found else st.nothing()


def _instances_of(kind, names, st):
    """A strategy of instances of ``kind`` made from 2, 1 or no small integers (the most
    arguments that build one having the attributes ``names``: ``Fraction(6, 4)``, not only
    ``Fraction()``), or None."""
    small = st.integers(-12, 12)
    for arity in (2, 1, 0):
        arguments = (3, 6)[:arity] if arity < 2 else (6, 4)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            sample = _timed(functools.partial(kind, *arguments), 1.0)
        if isinstance(sample, kind) and _has_all(sample, names):

            def build(drawn, kind=kind):
                try:
                    return kind(*drawn)
                except Exception:
                    return None

            return st.tuples(*([small] * arity)).map(build)
    return None


def _has_all(instance, names):
    """Whether ``instance`` has every attribute ``names`` (a property that raises
    something else than AttributeError, a timer that is no function, counts as not)."""
    for name in names:
        try:
            getattr(instance, name)
        except BaseException:
            return False
    return True


def _call(callee, args, kwargs, instance, case_s):
    """The outcome of one call, as the parent compares it: {"k": "returned" | "raised" |
    "timeout", "v": the value as a tree (``_tree``) or the error, "p": what it printed,
    "d": how it reads}."""
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
            # A function that returns None did its work on its arguments (its instance too).
            if value is None:
                tree = [AFTER, _tree(list(args)), _tree(kwargs)]
                shown = f"None, arguments after: {_show_call(args, kwargs)}"
            else:
                tree, shown = _tree(value), _short.repr(value)
            tree = _bounded(tree)
        finally:
            _armed = False
            signal.setitimer(signal.ITIMER_REAL, 0)
    except CaseTimeout:
        return {"k": "timeout", "v": "", "p": "", "d": "ran out of time"}
    except BaseException as error:
        printed = _printed(_sink.take())
        said = f", printed {_short.repr(printed)}" if printed else ""
        detail = f"{type(error).__name__}: {error}"[:300]
        return {"k": "raised", "v": detail, "p": printed, "d": f"raised {detail}{said}"[:200]}
    printed = _printed(_sink.take())
    said = f", printed {_short.repr(printed)}" if printed else ""
    return {"k": "returned", "v": tree, "p": printed, "d": f"returned {shown}{said}"[:200]}


AFTER = "<None; arguments after>"
TREE_CHARS = 4000  # a longer tree is sent as its hash
PRINTED_CHARS = 1000
PROBES = ((), (0,), (1,), (-1,), (2.5,), ("a",), ("",), ([1, 2],), (None,), (0, 1))
_ADDRESS = re.compile(r" at 0x[0-9a-fA-F]+")


def _printed(text):
    """What a call printed, cut (with the hash of the whole, so a longer text still differs)."""
    if len(text) <= PRINTED_CHARS:
        return text
    return text[:PRINTED_CHARS] + "... #" + hashlib.sha256(text.encode()).hexdigest()[:16]


def _bounded(tree):
    """``tree``, or its hash when it is long (a line holds every case's outcome)."""
    text = json.dumps(tree)
    return tree if len(text) <= TREE_CHARS else ["h", hashlib.sha256(text.encode()).hexdigest()]


def _materialise(value):
    """Generators and iterators become ("<iterator>", items) so they can be compared."""
    if hasattr(value, "__next__") and hasattr(value, "__iter__"):
        return ("<iterator>", list(itertools.islice(value, 10_000)))
    return value


def _tree(value, depth=0):
    """``value`` as plain JSON that the parent compares by SONAR's rules (outcomes.py).
    Objects without their own equality are their class and attributes; those with it, what
    they pickle to (``__reduce_ex__``: their constructor's arguments and state), else
    their text without addresses; a function returned (depth <= 1) is what it returns on
    a few fixed inputs, so functions that build functions are measured too."""
    if depth > 40:
        return ["deep"]
    if value is None or isinstance(value, bool):
        return ["b", value]
    if _is_number(value):
        if isinstance(value, numbers.Integral):
            return ["i", hex(int(value))]  # hex: no limit on the digits of a str()
        if isinstance(value, numbers.Rational):  # exactly, as it holds them (-4/4 is not -1/1)
            return ["q", hex(int(value.numerator)), hex(int(value.denominator))]
        if isinstance(value, numbers.Real):
            return ["f", repr(float(value))]
        number = complex(value)
        return ["c", repr(number.real), repr(number.imag)]
    kind = _type_name(type(value))
    if isinstance(value, str):
        return ["s", value]
    if isinstance(value, (bytes, bytearray)):
        return ["y", kind, bytes(value).hex()]
    if isinstance(value, (list, tuple)):
        return ["l", kind, [_tree(item, depth + 1) for item in value[:10_000]]]
    if isinstance(value, dict):
        pairs = [
            [_tree(k, depth + 1), _tree(v, depth + 1)] for k, v in list(value.items())[:10_000]
        ]
        return ["d", kind, sorted(pairs, key=lambda pair: json.dumps(pair[0]))]
    if isinstance(value, (set, frozenset)):
        items = [_tree(item, depth + 1) for item in list(value)[:10_000]]
        return ["set", kind, sorted(items, key=json.dumps)]
    if isinstance(value, type):
        return ["t", _type_name(value)]
    if hasattr(value, "shape") and hasattr(value, "dtype") and hasattr(value, "tolist"):
        return ["l", kind, [_tree(list(value.shape)), _tree(value.tolist(), depth + 1)]]
    if callable(value):
        if depth > 1:
            return ["t", _type_name(value)]
        probes = [_probe(value, args, depth) for args in PROBES]
        return ["fn", probes + _own_attributes(value, depth)]
    # (mypy reads ``type(value).__eq__`` as the metaclass's bound method: it is the class's.)
    if type(value).__eq__ is object.__eq__:  # type: ignore[comparison-overlap]
        return ["o", kind, _tree(_state(value), depth + 1)]
    try:
        reduced = value.__reduce_ex__(4)
        if isinstance(reduced, tuple) and len(reduced) >= 2:
            parts = [reduced[1], *(reduced[2:3] or [None])]
            for extra in reduced[3:5]:  # list items, dict items
                parts.append(list(itertools.islice(extra, 10_000)) if extra is not None else None)
            return ["e", kind, _tree(parts, depth + 1)]
    except Exception:
        pass
    return ["r", kind, _ADDRESS.sub("", repr(value))[:2000]]


def _probe(function, args, depth):
    """What ``function`` does on ``args``: ["ret", tree] or ["exc", the error's type]."""
    try:
        return ["ret", _tree(_materialise(function(*copy.deepcopy(args))), depth + 1)]
    except CaseTimeout:
        raise
    except BaseException as error:
        return ["exc", type(error).__name__]


MAX_ATTRIBUTES = 8


def _own_attributes(function, depth):
    """What a returned function carries besides its behaviour, after the probes: its own
    public attributes (``wrapper.cache_info()``, ``wrapper.cache_parameters()``: the size
    a caching decorator was given shows only there), each called when it can be with no
    argument, or plain values (numbers, text): ["attr", name, ["ret", tree] or ["exc",
    type]] each. A reset (a name with "clear") is called last, so it does not hide what
    the others report."""
    own = getattr(function, "__dict__", None)
    if not isinstance(own, dict):
        return []
    names = sorted((n for n in own if not n.startswith("_")), key=lambda n: ("clear" in n, n))
    found = []
    for name in names[:MAX_ATTRIBUTES]:
        value = own[name]
        if callable(value):
            found.append(["attr", name, _probe(value, (), depth)])
        elif value is None or isinstance(value, (bool, int, float, str)):
            found.append(["attr", name, ["ret", _tree(value, depth + 1)]])
        # (not the structures it keeps, ``wrapper.cache``: a linked list's every path)
    return found


def _type_name(kind):
    return f"{getattr(kind, '__module__', '?')}.{getattr(kind, '__qualname__', '?')}"


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


if __name__ == "__main__":
    main()
