"""Python syntax trees, made and read one thread at a time.

Inscriptions are parsed into Python's ``ast`` and some are compiled from
it.  CPython 3.11 counts how deep it is in such a conversion once per
interpreter, not per thread, and raises ``SystemError: AST constructor
recursion depth mismatch`` when two threads building nets at once (a Dask
worker's runs, a web server's steppers) interleave inside one: each
conversion here holds one lock.  It is taken when a net is built or
compiled, never while it runs.
"""

from __future__ import annotations

import ast
import threading
from types import CodeType
from typing import Any

_CONVERTING = threading.RLock()  # re-entrant: a conversion inside another cannot lock itself out


def parse(text: str, mode: str = "exec") -> ast.AST:
    """``ast.parse(text, mode=mode)``."""
    with _CONVERTING:
        return ast.parse(text, mode=mode)


def literal(text: str) -> Any:
    """``ast.literal_eval(text)``: ``ValueError`` and the like if it is not one."""
    with _CONVERTING:
        return ast.literal_eval(text)


def is_literal(text: str) -> bool:
    """Whether ``text`` is a Python literal (``True``, ``()``, ``0``)."""
    try:
        literal(text.strip())
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return False
    return True


def compile_expression(tree: ast.expr, filename: str) -> CodeType:
    """The code of the expression ``tree``, to ``eval``."""
    with _CONVERTING:
        return compile(ast.Expression(tree), filename, "eval")
