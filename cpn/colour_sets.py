"""Colour sets: what a place's colour may be, and the test its tokens pass.

A colour is written as Python writes a type, and a token belongs to it as
a value belongs to that annotation:

- ``None`` or ``typing.Any``: any (hashable) token;
- a type (``int``, a named tuple, a frozen dataclass): its instances,
  but for ``True`` and ``False`` in ``int`` (see :func:`refuses_bools`);
- a union, ``int | None``, ``typing.Optional[int]``, ``typing.Union[...]``
  or a tuple ``(int, str)``: a token of any member (a place keeps it as
  the tuple of its members, as a data file's ``"int | None"`` gives it);
- ``tuple[int, ...]`` (any length, ``()`` too), ``tuple[int, str]`` (that
  length), ``tuple[()]``, ``frozenset[Job]``, ``FrozenDict[str, int]``:
  the container, and each element (a token costs a test per element);
- ``typing.Literal["on", "off"]``: those values (CPN Tools' enumerated
  colour sets); a ``typing.NewType``: its supertype's tokens;
- any other callable: a predicate, whose truth is the answer.

Anything else (``list[int]``, a ``TypeVar``, a string) is refused when the
place is declared, not found out when the first token is tested.

>>> accepts(tuple[int, ...], ()), accepts(tuple[int, str], ("a", 3))
(True, False)
>>> colour_name(declared(int | None, "place 'P'"))
'int | None'
"""

from __future__ import annotations

import types
import typing
from typing import Any, Callable

from .colours import FrozenDict
from .errors import NetError

Colour = type | tuple | Callable[[Any], bool] | None

#: What the engine tests a token with: ``isinstance`` against a type or a
#: tuple of types, a predicate, or nothing (None: any token).
Test = type | tuple | Callable[[Any], bool] | None

_CONTAINERS = (tuple, frozenset, FrozenDict)
_MUTABLE = {list: "tuple", set: "frozenset", dict: "FrozenDict"}
_TESTS: dict = {}  # colour -> its test, built once


def declared(colour: Any, where: str) -> Colour:
    """``colour`` as a place keeps it (a union as the tuple of its
    members), or a ``NetError`` naming ``where`` when it is none of the
    colours this file lists."""
    if colour is None or colour is typing.Any:
        return None
    if _is_predicate(colour):
        return colour
    _checked(colour, where)
    if _is_union(colour):
        return tuple(dict.fromkeys(_flat_members(colour)))
    return _bare(colour)


def _checked(colour: Any, where: str) -> None:
    """Refuse ``colour`` as a member of a union or an element of a
    container (where ``None`` is ``NoneType``, as in annotations) unless
    it, and all it holds, is a type or a form this file reads."""
    origin, arguments = typing.get_origin(colour), _arguments(colour)
    if colour is None or colour is typing.Any or isinstance(colour, type):
        return
    if isinstance(colour, typing.NewType):
        _checked(colour.__supertype__, where)
    elif _is_union(colour):
        for member in _members(colour):
            _checked(member, where)
    elif origin is typing.Literal:
        return
    elif origin in _CONTAINERS and arguments is not None:
        wanted = {frozenset: 1, FrozenDict: 2}.get(origin, len(arguments))
        if len(arguments) != wanted:
            example = "frozenset[int]" if origin is frozenset else "FrozenDict[str, int]"
            raise NetError(f"{where}: {colour_name(colour)} has {len(arguments)} colours in "
                           f"its brackets, not {wanted} (e.g. {example})")
        variadic = origin is tuple and len(arguments) == 2 and arguments[1] is Ellipsis
        for argument in arguments[:1] if variadic else arguments:
            _checked(argument, where)
    elif origin not in _CONTAINERS:
        raise NetError(f"{where}: {_refusal(colour)}")


def _refusal(colour: Any) -> str:
    """Why ``colour`` is no colour, in a user's words."""
    origin = typing.get_origin(colour)
    if origin in _MUTABLE:
        return (f"{colour_name(colour)}: its tokens could change, and a marking holds "
                f"immutable ones: use {_MUTABLE[origin]}[...]")
    if origin is not None:
        return (f"{colour_name(colour)}: the engine reads the brackets of tuple, frozenset "
                f"and FrozenDict colours only: use {colour_name(origin)} (its contents "
                "unchecked) or a predicate")
    if _is_predicate(colour):
        return (f"a predicate ({colour_name(colour)}) is a colour on its own, not a member "
                "of a union or what a tuple, frozenset or FrozenDict colour holds")
    if colour is Ellipsis:
        return "'...' stands second in a tuple of any length, as in tuple[int, ...]"
    shown = f"the string {colour!r}" if isinstance(colour, str) else repr(colour)
    return ("a colour is a type, a union of types (int | None), a tuple, frozenset or "
            f"FrozenDict of them (tuple[int, ...]), or a predicate (callable), not {shown}")


def _is_predicate(colour: Any) -> bool:
    """A callable that is neither a type nor a form of ``typing`` (a
    ``tuple[int]`` or a ``Literal`` is callable too)."""
    return (callable(colour) and not isinstance(colour, type)
            and type(colour).__module__ not in ("typing", "types"))


def _is_union(colour: Any) -> bool:
    return (isinstance(colour, (tuple, types.UnionType))
            or typing.get_origin(colour) is typing.Union)


def _members(colour: Any) -> tuple:
    return colour if isinstance(colour, tuple) else typing.get_args(colour)


def _flat_members(colour: Any) -> list:
    """A union's members, unions within it opened, ``None`` as ``NoneType``."""
    found = []
    for member in _members(colour):
        found += (_flat_members(member) if _is_union(member)
                  else [type(None) if member is None else _bare(member)])
    return found


def _arguments(colour: Any) -> tuple | None:
    """What a parameterised container holds, None for a bare one
    (``typing.Tuple``, whose ``get_args`` is that of ``tuple[()]``)."""
    return typing.get_args(colour) if hasattr(colour, "__args__") else None


def _bare(colour: Any) -> Any:
    """``typing.Tuple``, ``typing.FrozenSet`` as the types they stand for."""
    origin = typing.get_origin(colour)
    return origin if origin in _CONTAINERS and _arguments(colour) is None else colour


# -- testing tokens --------------------------------------------------------------
def membership(colour: Colour) -> Test:
    """The test of the tokens of ``colour`` (see :data:`Test`): a type or
    a union of types stays one (``isinstance``, in C); the others become
    a predicate, built once per colour."""
    try:
        return _TESTS[colour]
    except KeyError:
        test = _TESTS[colour] = _test(colour)
        return test
    except TypeError:  # an unhashable predicate
        return colour


def accepts(colour: Colour, token: Any) -> bool:
    test = membership(colour)
    if test is None:
        return True
    if isinstance(test, (type, tuple)):
        return isinstance(token, test) and not (type(token) is bool and refuses_bools(test))
    return bool(test(token))


def refuses_bools(test: Test) -> bool:
    """Whether the type test ``test`` (a type or a tuple of types) lets
    ``True`` and ``False`` through ``isinstance`` while its colour holds
    none: ``bool`` is a subclass of ``int`` in Python, but an ``int``
    colour, like CPN Tools' INT, holds integers only (``int | bool`` or
    ``object`` hold both)."""
    kinds = test if isinstance(test, tuple) else (test,)
    admitting = [kind for kind in kinds if isinstance(kind, type) and issubclass(bool, kind)]
    return admitting == [int]


def bool_hint(colour: Colour, token: Any) -> str:
    """What a refusal of ``token`` adds when it is a bool that ``colour``
    would hold were it an int (Python users expect True to be one)."""
    test = membership(colour)
    if type(token) is bool and isinstance(test, (type, tuple)) and refuses_bools(test):
        return (" (True and False are no ints in a colour set, as in CPN Tools: int(...) "
                "makes one an int; a colour int | bool holds both)")
    return ""


def _test(colour: Any) -> Test:
    if colour is None or colour is typing.Any:
        return None
    colour = _bare(colour)
    if isinstance(colour, type) or _is_predicate(colour):
        return colour
    if isinstance(colour, typing.NewType):
        return _test(colour.__supertype__)
    if _is_union(colour):
        tests = [_test(member) for member in _flat_members(colour)]
        if None in tests:
            return None
        if all(isinstance(test, type) for test in tests):
            return tuple(tests)
        either = [_predicate(test) for test in tests]
        return lambda token: any(test(token) for test in either)
    origin, arguments = typing.get_origin(colour), typing.get_args(colour)
    if origin is typing.Literal:
        return lambda token: any(token == value and type(token) is type(value)
                                 for value in arguments)
    if origin not in _CONTAINERS:
        raise NetError(_refusal(colour))
    elements = [_predicate(_test(type(None) if argument is None else argument))
                for argument in arguments if argument is not Ellipsis]
    return _container(origin, elements, Ellipsis in arguments)


def _container(origin: type, elements: list[Callable], variadic: bool) -> Callable:
    """The predicate of a container of ``elements`` (one per position of a
    fixed tuple, else the element's, or the key's and the value's)."""
    if origin is FrozenDict:
        key, value = elements
        return lambda token: (isinstance(token, FrozenDict)
                              and all(key(k) and value(v) for k, v in token.items()))
    if origin is frozenset or variadic:
        element, = elements
        return lambda token: isinstance(token, origin) and all(map(element, token))
    length = len(elements)
    return lambda token: (isinstance(token, tuple) and len(token) == length
                          and all(test(item) for test, item in zip(elements, token)))


def _predicate(test: Test) -> Callable[[Any], bool]:
    if test is None:
        return lambda token: True
    if isinstance(test, (type, tuple)) and refuses_bools(test):
        return lambda token: isinstance(token, test) and type(token) is not bool
    if isinstance(test, (type, tuple)):
        return lambda token: isinstance(token, test)
    return test


def instance_types(colour: Colour) -> tuple[type, ...] | None:
    """The types every token of ``colour`` is an instance of; None when
    they are not known (any token, a predicate's)."""
    if colour is None or colour is typing.Any or _is_predicate(colour):
        return None
    colour = _bare(colour)
    if isinstance(colour, type):
        return (colour,)
    if isinstance(colour, typing.NewType):
        return instance_types(colour.__supertype__)
    if _is_union(colour):
        kinds = [instance_types(member) for member in _flat_members(colour)]
        return None if None in kinds else tuple(kind for each in kinds for kind in each)
    if typing.get_origin(colour) is typing.Literal:
        return tuple({type(value): None for value in typing.get_args(colour)})
    return (typing.get_origin(colour),)


def colour_name(colour: Any) -> str:
    """How a message writes ``colour``: as Python would, without ``typing.``."""
    if colour is None:
        return "any"
    return _name(colour)


def _name(colour: Any) -> str:
    """:func:`colour_name` of a colour, a union's member or what a
    container holds, where ``None`` stands for ``NoneType``."""
    if colour is None or colour is type(None):
        return "None"
    if colour is Ellipsis:
        return "..."
    if isinstance(colour, type) or _is_predicate(colour) or isinstance(colour, typing.NewType):
        return getattr(colour, "__name__", repr(colour))
    if _is_union(colour):
        return " | ".join(map(_name, _members(colour)))
    origin, arguments = typing.get_origin(colour), _arguments(colour)
    if origin is None:
        return getattr(colour, "__name__", repr(colour))
    if origin is typing.Literal:
        return f"Literal[{', '.join(map(repr, arguments))}]"
    shown = "()" if arguments == () else ", ".join(map(_name, arguments or ()))
    return _name(origin) + (f"[{shown}]" if arguments is not None else "")
