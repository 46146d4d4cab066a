"""The vocabulary of data files (``netfile.py``): keys, colours and tokens.

A token is written as its TOML value and read back by its place's colour:
numbers, strings and booleans as themselves, tuples as arrays, mappings as
tables (or arrays of ``[key, value]`` pairs when keys are not strings),
records as tables of their fields.  Saving checks that what it writes reads
back as the same value (:func:`equivalent`), so nothing changes on the way.
"""

from __future__ import annotations

import ast
import math
import typing
from dataclasses import dataclass
from typing import Any, Callable

from .colour_sets import declared
from .colours import FrozenDict
from .net import Place

FORMAT = 1
SCALARS: dict[str, type] = {"int": int, "float": float, "str": str, "bool": bool,
                            "tuple": tuple, "FrozenDict": FrozenDict, "dict": dict}
NET_KEYS = ("name", "constants", "functions", "places", "transitions", "substitutions")
TOP_KEYS = ("format", "colours", "definitions", "modules") + NET_KEYS
PLACE_KEYS = ("colour", "initial", "timed", "fusion", "port")
TRANSITION_KEYS = ("guard", "delay", "priority", "code", "inputs", "outputs")
SUBSTITUTION_KEYS = ("module", "sockets")


# -- colours -------------------------------------------------------------------
@dataclass
class ColourSpec:
    """A colour as a file writes it (``text``) and as a place holds it
    (``colour``); ``fields`` for a record."""

    text: str
    colour: Any
    record: type | None = None
    fields: dict[str, "ColourSpec"] | None = None

    def accepts(self, value: Any) -> bool:
        """Whether ``value`` is of this colour; a predicate of the registry
        that fails says no (``ValueError`` with its reason)."""
        try:
            return Place("", self.colour).accepts(value)
        except Exception as error:  # noqa: BLE001 - the registry's predicate failed
            raise ValueError(f"colour {self.text} cannot tell whether {value!r} is one of "
                             f"its tokens: {type(error).__name__}: {error}") from None


ANY = ColourSpec("any", None)


def parsed_colour(text: str, named: Callable[[str], ColourSpec | None]) -> ColourSpec:
    """The colour a file writes as ``text``: ``any``, a name (``named``
    finds a built-in, a record or a registry's; None if none), a union of
    colours (``int | None``), or a tuple or FrozenDict of colours
    (``tuple[Job, ...]``, ``FrozenDict[str, int]``) as Python writes it
    (and ``colour_sets.py`` reads it); ``ValueError`` says why not."""
    try:
        tree = ast.parse(text.strip(), mode="eval").body
    except SyntaxError:
        tree = None
    if isinstance(tree, ast.Name):
        return ANY if tree.id == "any" else _named(tree.id, named)
    return ColourSpec(text, declared(_colour_value(tree, named, text), f"colour {text!r}"))


def _named(name: str, named: Callable[[str], ColourSpec | None]) -> ColourSpec:
    spec = named(name)
    if spec is None:
        raise ValueError(f"unknown colour {name!r} (built in: {', '.join(SCALARS)}, None, "
                         "any; or a record of [colours], or a type of the registry)")
    return spec


def _colour_value(tree: ast.expr | None, named: Callable[[str], ColourSpec | None],
                  text: str) -> Any:
    """The Python colour of the expression ``tree`` of :func:`parsed_colour`."""
    if isinstance(tree, ast.Name):
        return typing.Any if tree.id == "any" else _named(tree.id, named).colour
    if isinstance(tree, ast.Constant) and tree.value is None:
        return type(None)
    if isinstance(tree, ast.BinOp) and isinstance(tree.op, ast.BitOr):
        return typing.Union[_colour_value(tree.left, named, text),
                            _colour_value(tree.right, named, text)]
    if isinstance(tree, ast.Subscript):
        items = tree.slice.elts if isinstance(tree.slice, ast.Tuple) else [tree.slice]
        arguments = tuple(Ellipsis if isinstance(item, ast.Constant) and item.value is ...
                          else _colour_value(item, named, text) for item in items)
        try:
            return _colour_value(tree.value, named, text)[arguments]
        except TypeError:
            raise ValueError(f"colour {text!r}: {ast.unparse(tree.value)} takes no colours "
                             "in brackets (tuple and FrozenDict do)") from None
    raise ValueError(f"cannot read colour {text!r}: a colour is a name, names joined with "
                     "'|', or tuple[...] or FrozenDict[...] of colours")


def is_record(kind: Any) -> bool:
    return isinstance(kind, type) and issubclass(kind, tuple) and hasattr(kind, "_fields")


# -- tokens --------------------------------------------------------------------
def decode(value: Any, spec: ColourSpec, field: bool = False) -> Any:
    """A token of colour ``spec`` from its TOML value; ``ValueError`` says
    what does not fit.  A record's ``float`` field also takes an integer
    (as Python's own annotations do); a place's colour is the engine's
    check, exactly."""
    if spec.record is not None:
        if not isinstance(value, dict):
            raise ValueError(f"a {spec.text} record is a table of its fields, "
                             f"not {value!r}")
        unknown = [key for key in value if key not in spec.fields]
        if unknown:
            raise ValueError(f"record {spec.text} has no field {', '.join(unknown)} "
                             f"(its fields: {', '.join(spec.fields)})")
        try:
            return spec.record(**{key: decode(item, spec.fields[key], field=True)
                                  for key, item in value.items()})
        except ValueError:
            raise
        except Exception as error:  # noqa: BLE001 - a registry type refused its fields
            raise ValueError(f"record {spec.text}: {error}") from None
    if (typing.get_origin(spec.colour) or spec.colour) is FrozenDict and isinstance(value, list):
        if not all(isinstance(pair, list) and len(pair) == 2 for pair in value):
            raise ValueError("a FrozenDict is a table, or an array of [key, value] pairs")
        return FrozenDict((plain(k), plain(v)) for k, v in value)
    token = plain(value)
    if field and spec.colour is float and type(token) is int:
        return token
    if not spec.accepts(token):
        raise ValueError(f"{token!r} is not of colour {spec.text}")
    return token


def plain(value: Any) -> Any:
    """A TOML value as a token: arrays are tuples, tables ``FrozenDict``."""
    if isinstance(value, list):
        return tuple(plain(item) for item in value)
    if isinstance(value, dict):
        return FrozenDict((key, plain(item)) for key, item in value.items())
    if type(value) in (bool, int, float, str):
        return value
    raise ValueError(f"{value!r} is a {type(value).__name__}: tokens and constants are "
                     "numbers, strings, booleans, arrays and tables")


def encode(value: Any, spec: ColourSpec) -> Any:
    """The TOML value of a token (the inverse of :func:`decode`)."""
    if spec.record is not None and is_record(type(value)):
        return {key: encode(getattr(value, key), spec.fields[key]) for key in spec.fields}
    if value is None:
        raise ValueError("None has no TOML form")
    if type(value) in (bool, int, float, str):
        return value
    if type(value) in (tuple, list):
        return [encode(item, ANY) for item in value]
    if type(value) in (dict, FrozenDict):
        if all(isinstance(key, str) for key in value):
            return {key: encode(item, ANY) for key, item in value.items()}
        return [[encode(key, ANY), encode(item, ANY)] for key, item in value.items()]
    raise ValueError(f"{value!r} is a {type(value).__name__}, which a data file holds only "
                     "as a place's record tokens")


def equivalent(a: Any, b: Any) -> bool:
    """Equal values of types of the same names, all the way down: a token
    read back is the token written."""
    if type(a).__name__ != type(b).__name__:
        return False
    if isinstance(a, (tuple, list)):
        return len(a) == len(b) and all(equivalent(x, y) for x, y in zip(a, b))
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(equivalent(a[k], b[k]) for k in a)
    return a == b or (isinstance(a, float) and math.isnan(a) and math.isnan(b))
