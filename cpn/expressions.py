"""The expression language of nets read from files, both ways.

A net written in Python runs whatever Python its inscriptions hold: its
author wrote them.  A net read from a file (a data file, ``netfile.py``, or
PNML, ``pnml.py``) was written by someone else, and opening it must not run
their code.  Its guards, inscriptions, delays and code segments are
therefore Python restricted to an allow-list, checked on the syntax tree
before anything is compiled:

- names: variables (bound by arcs or a code segment), the net's
  environment (the file's constants and the functions of the registry the
  reader passes), ``now``, ``rng``, ``Delayed`` and the builtins of
  :data:`SAFE_BUILTINS`; never a name starting with ``_`` (the engine's own);
- constants, arithmetic, comparisons, boolean logic, ``a if c else b``,
  tuples, lists, sets and dicts, subscripts and slices;
- calls, and attribute access on tokens and functions, except dunders and
  the attributes of :data:`REFUSED_ATTRIBUTES` (``str.format`` reads any
  attribute; frames and generators lead to every global);
- in code segments, assignments to names.

Lambdas, comprehensions, f-strings, ``:=``, ``await``, imports and every
other statement are refused, and so are comments (the compiler pastes
inscription text into generated code, where a comment would swallow what
follows).  This keeps a file from reaching outside the net; it is not a
resource sandbox (a file may still describe a net that runs for ever).

The other way, :func:`describe` writes a Python value as an expression of
this language over a registry of names: what a data file stores for a
net's functions (``PowerModel(node_watts=100.0).busy_delta``), and what
``cpn.diff`` prints.

>>> refused(ast.parse("x.__class__", mode="eval"), set())
("'.__class__'", 'dunder attributes reach the interpreter')
>>> describe(functools.partial(max, 3, default=0), {"max": max})
'partial(max, 3, default=0)'
"""

from __future__ import annotations

import ast
import builtins
import dataclasses
import functools
import inspect
import io
import math
import tokenize
from typing import Any, Iterator, Mapping

from .colours import FrozenDict
from .errors import NetError
from .inscription import CodeSegment, check_expression, parse_terms
from .net import Delayed
from .syntax_trees import compile_expression

#: Builtins a net read from a file may use: functions of values that reach
#: nothing outside them.
SAFE_BUILTINS = frozenset({
    "abs", "all", "any", "bool", "chr", "dict", "divmod", "enumerate", "filter",
    "float", "frozenset", "int", "isinstance", "len", "list", "map", "max", "min",
    "ord", "pow", "range", "repr", "reversed", "round", "set", "sorted", "str",
    "sum", "tuple", "zip",
})
_BUILTINS = frozenset(dir(builtins))

#: Attributes refused although not dunders: string formatting (which reads
#: any attribute, ``"{0.__class__}".format(x)``), the frames and code of
#: functions, generators and tracebacks (which lead to every global), raw
#: memory (numpy's ``ctypes``) and writing files (numpy's ``tofile``, ``dump``).
REFUSED_ATTRIBUTES = frozenset({
    "format", "format_map", "mro",
    "f_back", "f_builtins", "f_code", "f_globals", "f_locals", "f_trace",
    "gi_frame", "gi_code", "gi_yieldfrom", "cr_frame", "cr_code", "cr_await",
    "ag_frame", "ag_code", "ag_await", "tb_frame", "tb_next",
    "func_globals", "func_code", "func_closure", "im_func", "im_self", "im_class",
    "ctypes", "cffi", "tofile", "dump",
})

def checked_partial(function: Any, /, *args: Any, **keywords: Any) -> functools.partial:
    """``functools.partial`` whose arguments are checked against the
    function's signature at once: a misspelt keyword in a data file is
    refused when the file loads, not by the net's first firing."""
    try:
        signature = inspect.signature(function)
    except (TypeError, ValueError):  # a builtin without a signature: nothing to check
        signature = None
    if signature is not None:
        try:
            signature.bind_partial(*args, **keywords)
        except TypeError as error:
            name = getattr(function, "__name__", type(function).__name__)
            raise TypeError(f"{name}() {error}") from None
    return functools.partial(function, *args, **keywords)


#: Names the functions of a data file may use besides the registry: fixing
#: arguments, and the engine's own immutable colours.
DEFINITION_NAMES = {"partial": checked_partial, "FrozenDict": FrozenDict,
                    "Delayed": Delayed}

_EXPRESSION_NODES = (
    ast.Expression, ast.Name, ast.Constant, ast.Tuple, ast.List, ast.Set, ast.Dict,
    ast.BinOp, ast.UnaryOp, ast.BoolOp, ast.Compare, ast.IfExp, ast.Call, ast.keyword,
    ast.Attribute, ast.Subscript, ast.Slice, ast.Starred,
    ast.operator, ast.unaryop, ast.boolop, ast.cmpop, ast.Load, ast.Store,
)
_STATEMENT_NODES = (ast.Module, ast.Assign, ast.AugAssign)
_WHAT = {ast.Lambda: "a lambda", ast.ListComp: "a comprehension",
         ast.SetComp: "a comprehension", ast.DictComp: "a comprehension",
         ast.GeneratorExp: "a generator expression", ast.JoinedStr: "an f-string",
         ast.NamedExpr: "':='", ast.Await: "'await'", ast.Yield: "'yield'",
         ast.YieldFrom: "'yield from'", ast.Import: "an import",
         ast.ImportFrom: "an import"}
#: ``2 ** 10`` is an expression; ``9 ** 9 ** 9`` would hang the reader when
#: the compiler evaluates a constant arc.
MAX_CONSTANT_EXPONENT = 1024


class ExpressionError(NetError):
    """Text of a net read from a file that the expression language refuses."""


def refused(tree: ast.AST, names: set[str]) -> tuple[str, str] | None:
    """The first piece of ``tree`` outside the language, and why; None if
    it is all allowed.  ``names`` are the net's environment (they may
    shadow builtins)."""
    for node in ast.walk(tree):
        if not isinstance(node, _EXPRESSION_NODES + _STATEMENT_NODES):
            what = _WHAT.get(type(node), f"'{type(node).__name__}'")
            return what, "a net read from a file defines no functions and runs no " \
                         "statements but assignments (name a function in its registry)"
        if isinstance(node, ast.Name):
            if node.id.startswith("_"):
                return repr(node.id), "names starting with '_' are the engine's"
            if node.id in _BUILTINS and node.id not in SAFE_BUILTINS | names:
                return repr(node.id), ("a builtin outside "
                                       "cpn.expressions.SAFE_BUILTINS")
        elif isinstance(node, ast.Attribute):
            if node.attr.startswith("__"):
                return repr("." + node.attr), "dunder attributes reach the interpreter"
            if node.attr in REFUSED_ATTRIBUTES:
                return repr("." + node.attr), "it reaches outside the net " \
                                              "(cpn.expressions.REFUSED_ATTRIBUTES)"
            if isinstance(node.ctx, ast.Store):
                return repr("." + node.attr), "a code segment assigns names only"
        elif isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Store):
            return "an assignment to an item", "a code segment assigns names only"
        elif isinstance(node, ast.keyword) and node.arg and node.arg.startswith("__"):
            return repr(node.arg), "dunder names reach the interpreter"
        elif (isinstance(node, (ast.BinOp, ast.AugAssign))
              and isinstance(node.op, (ast.Pow, ast.LShift))
              and _too_big(node.right if isinstance(node, ast.BinOp) else node.value)):
            return "a power tower", (f"exponents and shifts are constants up to "
                                     f"{MAX_CONSTANT_EXPONENT} or variables")
    return None


def _too_big(exponent: ast.expr) -> bool:
    if isinstance(exponent, ast.UnaryOp):
        exponent = exponent.operand
    if isinstance(exponent, ast.Constant):
        return not isinstance(exponent.value, (int, float)) or \
            abs(exponent.value) > MAX_CONSTANT_EXPONENT
    return isinstance(exponent, ast.BinOp) and isinstance(exponent.op, (ast.Pow, ast.LShift))


def _has_comment(text: str) -> bool:
    try:
        return any(token.type == tokenize.COMMENT
                   for token in tokenize.generate_tokens(io.StringIO(text).readline))
    except (tokenize.TokenError, SyntaxError):
        return False  # unbalanced text: the parser refuses it


def check_text(text: str, kind: str, names: set[str]) -> None:
    """Refuse ``text`` unless it is a ``kind`` (``"guard"``, ``"delay"``,
    ``"inscription"``, ``"code"`` or ``"expression"``) of the language;
    :class:`ExpressionError` says what and why, quoting the text."""
    try:
        parts = _parts(text, kind)
    except SyntaxError as error:
        raise ExpressionError(f"{text!r} is not {_KIND[kind]} "
                              f"({error.msg})") from None
    for part, tree in parts:
        bad = refused(tree, names)
        if bad:
            raise ExpressionError(f"{bad[0]} in {text!r} is refused: {bad[1]}")
        if _has_comment(part):
            raise ExpressionError(f"{text!r} holds a comment: {_KIND[kind]} read "
                                  "from a file is code alone")


_KIND = {"guard": "a Python expression", "delay": "a Python expression",
         "expression": "a Python expression", "inscription": "an arc inscription",
         "code": "a code segment of assignments"}


def _parts(text: str, kind: str) -> list[tuple[str, ast.AST]]:
    """The Python texts in ``text`` (an inscription has several) and their trees."""
    if kind == "inscription":
        return [(part, check_expression(part)) for term in parse_terms(text)
                for part in (term.expr, term.multiplicity, term.delay)
                if isinstance(part, str)]
    if kind == "code":
        segment = CodeSegment(text)
        segment.check()
        return [(text, segment.tree)]
    if kind not in _KIND:
        raise ValueError(f"unknown kind of text {kind!r}")
    return [(text, check_expression(text))]


def text_trees(text: str, kind: str) -> list[ast.AST]:
    """The syntax trees of ``text``, a ``kind`` of text as for
    :func:`check_text` (an inscription's: its terms, counts and delays)."""
    return [tree for _, tree in _parts(text, kind)]


def evaluate(text: str, namespace: Mapping[str, Any]) -> Any:
    """The value of an expression of the language (checked here) over
    ``namespace`` and :data:`SAFE_BUILTINS` alone."""
    names = set(namespace)
    check_text(text, "expression", names)
    scope = {"__builtins__": {name: getattr(builtins, name) for name in SAFE_BUILTINS},
             **namespace}
    return eval(compile_expression(check_expression(text), "<net file>"), scope)


# -- values as text -----------------------------------------------------------
def literal(value: Any) -> str:
    """Python text for a plain value (numbers, strings, booleans, None and
    tuples, lists, sets and dicts of them): its ``repr``, but for the
    floats that have none (``inf``, ``nan``), also inside containers."""
    if isinstance(value, float) and not math.isfinite(value):
        return f"float('{value}')"
    if isinstance(value, tuple) and type(value) is tuple:
        return f"({', '.join(map(literal, value))}{',' if len(value) == 1 else ''})"
    if isinstance(value, list):
        return f"[{', '.join(map(literal, value))}]"
    if isinstance(value, (set, frozenset)):
        items = ", ".join(map(literal, value))
        if isinstance(value, frozenset):
            return f"frozenset({{{items}}})" if value else "frozenset()"
        return f"{{{items}}}" if value else "set()"
    if isinstance(value, FrozenDict):
        return f"FrozenDict({literal(dict(value))})"
    if isinstance(value, dict):
        return f"{{{', '.join(f'{literal(k)}: {literal(v)}' for k, v in value.items())}}}"
    return repr(value)


def is_plain(value: Any) -> bool:
    """A value :func:`literal` writes exactly."""
    if value is None or type(value) in (bool, int, float, str):
        return True
    if type(value) in (tuple, list, set, frozenset):
        return all(is_plain(item) for item in value)
    if type(value) in (dict, FrozenDict):
        return all(is_plain(k) and is_plain(v) for k, v in value.items())
    return False


class DescribeError(NetError):
    """A value that cannot be written as an expression over the registry."""


def describe(value: Any, registry: Mapping[str, Any] | None = None,
             shared: Mapping[str, Any] | None = None) -> str:
    """``value`` as an expression of the language that builds it again from
    ``registry`` (and :data:`DEFINITION_NAMES`): a registry entry by its
    name, a value of ``shared`` (equal to it) by its name, a plain value,
    ``partial(f, ...)``, ``obj.method``, or a dataclass or named tuple as
    its constructor call.  Without a registry, a readable description:
    unknown functions and types by their names."""
    strict = registry is not None
    known = {**DEFINITION_NAMES, **(registry or {})}
    for name, entry in known.items():
        if entry is value or (inspect.ismethod(value) and entry == value):
            return name
    for name, entry in (shared or {}).items():
        if same(entry, value):
            return name

    def inner(part: Any) -> str:
        return describe(part, registry, shared)
    if is_plain(value):
        return literal(value)
    if isinstance(value, functools.partial):
        parts = [inner(value.func)] + [inner(arg) for arg in value.args]
        parts += [f"{key}={inner(arg)}" for key, arg in value.keywords.items()]
        return f"partial({', '.join(parts)})"
    if inspect.ismethod(value) and not value.__name__.startswith("_"):
        return f"{inner(value.__self__)}.{value.__name__}"
    fields = _constructor_fields(value)
    if fields is not None:
        kind = type(value)
        if strict and not any(entry is kind for entry in known.values()):
            raise DescribeError(f"{_short(value)} is an instance of {kind.__name__}, which "
                                f"the registry does not name: add {kind.__name__!r} to it")
        name = next((n for n, entry in known.items() if entry is kind), kind.__name__)
        arguments = ", ".join(f"{field}={inner(getattr(value, field))}" for field in fields)
        return f"{name}({arguments})"
    if not strict:
        return getattr(value, "__qualname__", None) or _short(value)
    what = getattr(value, "__qualname__", None) or _short(value)
    if getattr(value, "__name__", None) == "<lambda>":
        raise DescribeError("a lambda has no name to write: define it as a function "
                            "and add it to the registry")
    if not (inspect.isroutine(value) or isinstance(value, type) or inspect.ismodule(value)):
        kind = type(value).__name__
        raise DescribeError(f"{what} is an instance of {kind}, which is neither a dataclass "
                            f"nor a named tuple, so its fields cannot be written: make {kind} "
                            "a frozen dataclass (and name it in the registry), or add this "
                            "object to the registry")
    raise DescribeError(f"{what} is not in the registry: add it (by the name the "
                        "file should use)")


def parts(value: Any) -> Iterator[Any]:
    """The objects ``value`` is built from, itself first, all the way down:
    the instance of a method, a partial's function and arguments, the
    fields of a dataclass or named tuple."""
    yield value
    if isinstance(value, functools.partial):
        for part in (value.func, *value.args, *value.keywords.values()):
            yield from parts(part)
    elif inspect.ismethod(value):
        yield from parts(value.__self__)
    elif not is_plain(value) and _constructor_fields(value) is not None:
        for field in _constructor_fields(value):
            yield from parts(getattr(value, field))


def _constructor_fields(value: Any) -> list[str] | None:
    """The fields that rebuild a dataclass or named tuple instance."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return [f.name for f in dataclasses.fields(value) if f.init]
    if isinstance(value, tuple) and hasattr(type(value), "_fields"):
        return list(type(value)._fields)
    return None


def _short(value: Any, limit: int = 60) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[:limit - 1] + "…"


def same(a: Any, b: Any) -> bool:
    """Equal values, and partials of equal functions and arguments (which
    ``==`` tells apart by identity alone)."""
    if isinstance(a, functools.partial) and isinstance(b, functools.partial):
        return (same(a.func, b.func) and len(a.args) == len(b.args)
                and all(same(x, y) for x, y in zip(a.args, b.args))
                and a.keywords.keys() == b.keywords.keys()
                and all(same(a.keywords[k], b.keywords[k]) for k in a.keywords))
    if a is b:
        return True
    if inspect.ismethod(a) and inspect.ismethod(b):  # == compares __self__ by identity
        return same(a.__func__, b.__func__) and same(a.__self__, b.__self__)
    try:
        return bool(a == b) and type(a) is type(b)
    except Exception:  # noqa: BLE001 - values that cannot say (arrays) differ
        return False
