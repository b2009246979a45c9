"""Code regenerated from a docstring: the context the generator sees, the prompt, and the
function read back out of the model's answer."""

from __future__ import annotations

import ast
import copy
import functools
import io
import re
import textwrap
import tokenize
from collections.abc import Iterable
from dataclasses import dataclass
from string import Template

from ..llm.client import LlmClient, LlmError
from ..prompt_files import prompt_digest, prompt_text

PROMPT_FILES = ("regenerate_v1.txt", "compress_v1.txt")
MAX_TOKENS = 2048  # a function and a few helpers
_FENCE = re.compile(r"```[ \t]*([\w+-]*)[^\n]*\n(.*?)(?:```|\Z)", re.DOTALL)
_THINKING = re.compile(r"<think>.*?</think>", re.DOTALL | re.IGNORECASE)
_CODE_START = re.compile(r"^(?:import |from |def |async def |class |@)", re.MULTILINE)


@dataclass(frozen=True)
class Regeneration:
    """One answer of the generator."""

    code: str | None  # the whole program (imports, helpers, the function); None if unusable
    stub: bool = False  # the function has no real body (pass, ..., bare raise/return)
    problem: str | None = None  # why ``code`` is None
    stub_kind: str = ""  # what the stub's body is: "pass", "raise NotImplementedError", ...

    @property
    def usable_code(self) -> str | None:
        """The program, unless there is none or it is a stub."""
        return None if self.stub else self.code


@dataclass(frozen=True)
class Generations:
    items: tuple[Regeneration, ...]
    calls: int  # model calls made
    error: str | None = None  # the failure that cost samples (then len(items) < n)


# --- prompts ----------------------------------------------------------------------------


@functools.cache
def load_prompt(name: str) -> tuple[str, Template]:
    """The ``[system]`` text and the ``[user]`` template of a prompt file."""
    system, user = prompt_text("docfact.sonar", f"prompts/{name}").split("[user]\n", 1)
    return system.removeprefix("[system]\n").strip(), Template(user.rstrip("\n"))


def prompt_version() -> str:
    """Digest of every SONAR prompt: part of each cache key."""
    return prompt_digest("docfact.sonar", tuple(f"prompts/{name}" for name in PROMPT_FILES))


def messages(prompt: str, **fields: str) -> list[dict[str, str]]:
    system, user = load_prompt(prompt)
    return [
        {"role": "system", "content": system},
        {"role": "user", "content": user.substitute(**fields)},
    ]


# --- context ----------------------------------------------------------------------------


def function_node(
    source: str, name: str | None = None
) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
    """The function called ``name`` (the first function if None), top level first, then in
    classes; None when ``source`` does not parse or has no such function."""
    try:
        tree = ast.parse(textwrap.dedent(source))
    except (SyntaxError, ValueError):
        return None
    found = [n for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
    found += [
        n
        for c in tree.body
        if isinstance(c, ast.ClassDef)
        for n in c.body
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
    ]
    return next((n for n in found if name is None or n.name == name), None)


def import_line(local: str, target: str) -> str:
    """The import statement that binds ``local`` to ``target`` (as in ``Module.imports``)."""
    dots = len(target) - len(target.lstrip("."))
    rest = target[dots:]
    if not dots and local == target:
        return f"import {target}"
    if "." not in rest:
        if dots:
            return f"from {'.' * dots} import {rest}" + (f" as {local}" if local != rest else "")
        return f"import {target} as {local}"
    head, tail = rest.rsplit(".", 1)
    return f"from {'.' * dots}{head} import {tail}" + (f" as {local}" if local != tail else "")


def build_context(unit_source: str, imports: Iterable[tuple[str, str]]) -> str | None:
    """SONAR's context c: the imports the function uses, then its signature line.

    ``imports`` are the module's (local name, dotted target) pairs (``Module.imports``);
    only those whose local name appears in the function are kept. None when the function's
    source does not parse.
    """
    node = function_node(unit_source)
    if node is None:
        return None
    used = {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}
    lines = sorted({import_line(local, target) for local, target in imports if local in used})
    return "\n".join([*lines, signature_text(textwrap.dedent(unit_source), node)])


def signature_text(source: str, node: ast.FunctionDef | ast.AsyncFunctionDef) -> str:
    """The signature as written in ``source`` (from ``def`` to the colon that ends it), so
    that code regenerated from it can repeat it exactly; re-rendered from the tree when
    the text cannot be read that way."""
    lines = source.splitlines(keepends=True)
    start = sum(map(len, lines[: node.lineno - 1])) + node.col_offset
    depth = 0
    try:
        for token in tokenize.generate_tokens(io.StringIO(source[start:]).readline):
            if token.type == tokenize.OP and token.string in "([{":
                depth += 1
            elif token.type == tokenize.OP and token.string in ")]}":
                depth -= 1
            elif token.type == tokenize.OP and token.string == ":" and depth == 0:
                head = source[start:].splitlines(keepends=True)[: token.end[0]]
                text = "".join(head[:-1]) + head[-1][: token.end[1]]
                return text
    except (tokenize.TokenError, IndentationError, SyntaxError):
        pass
    bare = copy.copy(node)
    bare.body, bare.decorator_list = [ast.Pass()], []
    return ast.unparse(bare).rsplit("\n", 1)[0]


def context_function(context: str) -> str | None:
    """The name of the function whose signature ``context`` ends with."""
    node = function_node(context + "\n    ...")
    return node.name if node else None


def context_imports(context: str) -> str:
    """The import lines of ``context`` (everything before the signature)."""
    return "\n".join(line for line in context.splitlines() if line.startswith(("import ", "from ")))


# --- reading answers --------------------------------------------------------------------


def extract(answer: str, function: str) -> Regeneration:
    """The program in ``answer`` (fenced or bare) that defines ``function``."""
    answer = _THINKING.sub("", answer)
    candidates = [
        body
        for lang, body in _FENCE.findall(answer)
        if lang.lower() in ("", "python", "py", "python3")
    ]
    start = _CODE_START.search(answer)
    if start:
        candidates.append(answer[start.start() :])
    for candidate in candidates:
        code = _parsable_prefix(textwrap.dedent(candidate).strip("\n"))
        if not code:
            continue
        node = function_node(code, function)
        if node is not None:
            body = stub_body(node)
            return Regeneration(code + "\n", stub=body is not None, stub_kind=body or "")
    return Regeneration(None, problem=f"the answer holds no function {function}")


def _parsable_prefix(code: str, max_trims: int = 20) -> str | None:
    """``code``, or it cut before trailing lines of prose that keep it from parsing."""
    lines = code.splitlines()
    for _ in range(max_trims):
        if not lines:
            return None
        text = "\n".join(lines)
        try:
            ast.parse(text)
            return text
        except (SyntaxError, ValueError):
            lines.pop()
    return None


def is_stub(node: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """True when the body does nothing: only a docstring, pass, ..., a bare raise or
    ``raise NotImplementedError``, a bare ``return`` or ``return None``."""
    return stub_body(node) is not None


def stub_body(node: ast.FunctionDef | ast.AsyncFunctionDef) -> str | None:
    """The body of a function that does nothing, as written ("pass", "raise
    NotImplementedError", ...); None when the function does something."""
    body = node.body
    if (
        body
        and isinstance(body[0], ast.Expr)
        and isinstance(body[0].value, ast.Constant)
        and isinstance(body[0].value.value, str)
    ):
        body = body[1:]
    if not all(_does_nothing(statement) for statement in body):
        return None
    return "; ".join(ast.unparse(statement) for statement in body) or "only a docstring"


def _does_nothing(statement: ast.stmt) -> bool:
    if isinstance(statement, ast.Pass):
        return True
    if isinstance(statement, ast.Expr):
        return isinstance(statement.value, ast.Constant) and statement.value.value is Ellipsis
    if isinstance(statement, ast.Return):
        return statement.value is None or (
            isinstance(statement.value, ast.Constant) and statement.value.value is None
        )
    if isinstance(statement, ast.Raise):
        exc = statement.exc
        if isinstance(exc, ast.Call):
            exc = exc.func
        return exc is None or (isinstance(exc, ast.Name) and exc.id == "NotImplementedError")
    return False


# --- generating ---------------------------------------------------------------------------


async def sample(
    client: LlmClient,
    prompt_messages: list[dict[str, str]],
    n: int,
    temperature: float,
    max_tokens: int,
) -> tuple[list[str], int, str | None]:
    """``n`` answer texts asked in one call (``n=``); a server that returns fewer is asked
    again for the rest, at most ``n`` calls in all. Returns (texts, calls, error)."""
    texts: list[str] = []
    calls = 0
    while len(texts) < n and calls < n:
        calls += 1
        try:
            completion = await client.complete(
                prompt_messages, n=n - len(texts), temperature=temperature, max_tokens=max_tokens
            )
        except LlmError as failure:
            return texts, calls, str(failure)
        texts.extend(completion.choices[: n - len(texts)])
    error = None if len(texts) == n else f"the model gave {len(texts)} of {n} answers"
    return texts, calls, error


async def regenerate(
    docstring: str,
    context: str,
    client: LlmClient,
    n: int = 1,
    temperature: float = 0.0,
    qualname: str | None = None,
) -> Generations:
    """``n`` programs written by ``client``'s model from ``docstring`` and ``context``.
    ``qualname`` ("Class.method") is named in the prompt, so methods of two classes that
    share a docstring and a signature are two questions, not one."""
    function = context_function(context)
    if function is None:
        return Generations((), 0, "the context has no function signature")
    prompt_messages = messages(
        "regenerate_v1.txt", docstring=docstring, context=context, qualname=qualname or function
    )
    texts, calls, error = await sample(client, prompt_messages, n, temperature, MAX_TOKENS)
    return Generations(tuple(extract(text, function) for text in texts), calls, error)
