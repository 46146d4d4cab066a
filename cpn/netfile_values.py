"""The vocabulary of data files (``netfile.py``): keys and tokens (their
colours are written as ``colour_text.py`` says, as in PNML).

A token is written as its TOML value and read back by its place's colour:
numbers, strings and booleans as themselves, tuples as arrays, mappings as
tables (or arrays of ``[key, value]`` pairs when keys are not strings),
records as tables of their fields.  Saving checks that what it writes reads
back as the same value (:func:`equivalent`), so nothing changes on the way.
"""

from __future__ import annotations

import math
import typing
from typing import Any

from .colour_text import ANY, ColourSpec, is_record
from .colours import FrozenDict

FORMAT = 1
NET_KEYS = ("name", "constants", "functions", "places", "transitions", "substitutions")
TOP_KEYS = ("format", "colours", "definitions", "modules") + NET_KEYS
PLACE_KEYS = ("colour", "initial", "timed", "fusion", "port")
TRANSITION_KEYS = ("guard", "delay", "priority", "code", "inputs", "outputs")
SUBSTITUTION_KEYS = ("module", "sockets")


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
