"""A place's colour as text, and back: what the net data files
(``cpn.netfile``) and PNML (``cpn.pnml``) write, so that both read one
colour the same way.

The text is the colour as Python writes it: ``any``, ``None``, a built-in
colour (:data:`SCALARS`), a name, colours joined by ``|``, or
``tuple[...]`` / ``frozenset[...]`` / ``FrozenDict[...]`` of colours.  A
name stands for what the format binds it to (a data file's records and
registry, PNML's ``env``): each format says, through a function given
here, which names it writes and what a name it reads stands for.

>>> written_colour(int | None, lambda colour: None).text
'int | None'
>>> parsed_colour("tuple[int, ...]", lambda name: None).colour
tuple[int, ...]
"""

from __future__ import annotations

import ast
import types
import typing
from dataclasses import dataclass
from typing import Any, Callable

from .colour_sets import colour_name, declared
from .colours import FrozenDict
from .net import Place

#: The colours every file may name without declaring them.
SCALARS: dict[str, type] = {"int": int, "float": float, "str": str, "bool": bool,
                            "tuple": tuple, "frozenset": frozenset,
                            "FrozenDict": FrozenDict, "dict": dict}
_CONTAINERS = (tuple, frozenset, FrozenDict)


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


def is_record(kind: Any) -> bool:
    """A named tuple's type (whose fields a data file declares)."""
    return isinstance(kind, type) and issubclass(kind, tuple) and hasattr(kind, "_fields")


# -- writing ---------------------------------------------------------------------
class UnnamedColour(ValueError):
    """A colour, or a part of one, that the format has no name for; the
    format's writer says how to give it one."""

    def __init__(self, colour: Any):
        super().__init__(colour_name(colour))
        self.colour = colour


def written_colour(colour: Any, named: Callable[[Any], ColourSpec | None]) -> ColourSpec:
    """``colour`` as :func:`parsed_colour` reads it back: built-in colours
    by their names, unions and parameterised containers made of the texts
    of their parts, and any other colour as ``named`` gives it (None: it
    has no name, :class:`UnnamedColour`).  ``named`` is asked first about
    a container, so that a name given to ``tuple[Job, ...]`` is kept."""
    if colour is None or colour is typing.Any:
        return ANY
    if colour is type(None):
        return ColourSpec("None", colour)
    if isinstance(colour, (tuple, types.UnionType)) or (typing.get_origin(colour)
                                                         is typing.Union):
        colour = declared(colour, "colour")  # the tuple of its members
        specs = [written_colour(kind, named) for kind in colour]
        return ColourSpec(" | ".join(spec.text for spec in specs), colour)
    for name, kind in SCALARS.items():
        if colour is kind:
            return ColourSpec(name, colour)
    spec = named(colour)
    if spec is not None:
        return spec
    if typing.get_origin(colour) in _CONTAINERS:
        shown = ["..." if argument is Ellipsis else written_colour(
            type(None) if argument is None else argument, named).text
            for argument in typing.get_args(colour)]
        origin = written_colour(typing.get_origin(colour), named).text
        return ColourSpec(f"{origin}[{', '.join(shown) or '()'}]", colour)
    raise UnnamedColour(colour)


# -- reading ---------------------------------------------------------------------
def parsed_colour(text: str, named: Callable[[str], ColourSpec | None]) -> ColourSpec:
    """The colour a file writes as ``text``: ``any``, a built-in colour, a
    name (``named`` finds a record, a type or a predicate; None if none),
    a union of colours (``int | None``), or a tuple, frozenset or
    FrozenDict of colours (``tuple[Job, ...]``, ``FrozenDict[str, int]``)
    as Python writes it (and ``colour_sets.py`` reads it); ``ValueError``
    says why not."""
    try:
        tree = ast.parse(text.strip(), mode="eval").body
    except SyntaxError:
        tree = None
    if isinstance(tree, ast.Name):
        return ANY if tree.id == "any" else _named(tree.id, named)
    return ColourSpec(text, declared(_colour_value(tree, named, text), f"colour {text!r}"))


def _named(name: str, named: Callable[[str], ColourSpec | None]) -> ColourSpec:
    spec = ColourSpec(name, SCALARS[name]) if name in SCALARS else named(name)
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
                             "in brackets (tuple, frozenset and FrozenDict do)") from None
    raise ValueError(f"cannot read colour {text!r}: a colour is a name, names joined with "
                     "'|', or tuple[...], frozenset[...] or FrozenDict[...] of colours")
