"""Checking, when a net is built, the names its inscriptions use.

Inscriptions call helpers through the net's ``env`` (``rules.assign(job)``,
``config.cap``).  A misspelt attribute (``rules.asign``) would otherwise
pass every build-time check and fail at the first firing, maybe hours into
a run.  Where the answer is static -- a module, a class, or an instance
whose attributes are already there -- the chain is followed now; where it
is not (a property, a slot, an object computing its attributes with
``__getattr__``), the check stops and the firing will tell.
"""

from __future__ import annotations

import ast
import inspect
from types import ModuleType
from typing import Any, Iterator, Mapping

_MISSING = object()


def attribute_chains(tree: ast.AST) -> Iterator[tuple[str, list[str]]]:
    """``(root name, [attribute, ...])`` for each ``a.b.c`` read in ``tree``,
    outermost chains only."""
    inner = {id(node.value) for node in ast.walk(tree) if isinstance(node, ast.Attribute)}
    for node in ast.walk(tree):
        if not isinstance(node, ast.Attribute) or id(node) in inner:
            continue
        attributes = []
        while isinstance(node, ast.Attribute):
            attributes.append(node.attr)
            node = node.value
        if isinstance(node, ast.Name):
            yield node.id, attributes[::-1]


def _computes_attributes(obj: Any) -> bool:
    """Whether ``obj`` may have attributes no static lookup finds."""
    kind = type(obj)
    if isinstance(obj, ModuleType):
        return "__getattr__" in vars(obj)  # PEP 562
    if inspect.getattr_static(kind, "__getattr__", _MISSING) is not _MISSING:
        return True
    return inspect.getattr_static(kind, "__getattribute__") not in (
        object.__getattribute__, type.__getattribute__)


def missing_attribute(obj: Any, attributes: list[str]) -> int | None:
    """The position in ``attributes`` of the first one that ``obj`` (then
    each attribute found) statically lacks, or None."""
    for position, name in enumerate(attributes):
        value = inspect.getattr_static(obj, name, _MISSING)
        if value is _MISSING:
            return None if _computes_attributes(obj) else position
        if hasattr(type(value), "__get__"):
            return None  # a method, a property, a slot: only a call tells what follows
        obj = value
    return None


def unknown_attribute(tree: ast.AST, env: Mapping[str, Any], names: set[str]) -> str | None:
    """A message for the first attribute chain in ``tree`` rooted at one of
    ``names`` (the env names the text reads) that cannot resolve, or None."""
    for root, attributes in attribute_chains(tree):
        if root not in names:
            continue
        position = missing_attribute(env[root], attributes)
        if position is not None:
            owner = ".".join([root, *attributes[:position]])
            return f"'{owner}' has no attribute '{attributes[position]}'"
    return None


def unbound_names(text: str, tree: ast.AST, unknown: set[str]) -> str:
    """What is wrong with the ``unknown`` names of an inscription: a name
    it calls is a function the environment lacks, any other a variable
    nothing binds."""
    called = {node.func.id for node in ast.walk(tree)
              if isinstance(node, ast.Call) and isinstance(node.func, ast.Name)}
    functions = sorted(unknown & called)
    if functions:
        return (f"{'functions' if len(functions) > 1 else 'function'} "
                f"{', '.join(map(repr, functions))} in {text!r} "
                f"{'are' if len(functions) > 1 else 'is'} not in the environment (give "
                f"{'them' if len(functions) > 1 else 'it'} in the net's env)")
    names = sorted(unknown)
    return (f"{'variables' if len(names) > 1 else 'variable'} {', '.join(map(repr, names))} "
            f"in {text!r} {'are' if len(names) > 1 else 'is'} never bound (not on an input "
            "arc, not set by the code segment, not in the environment)")
