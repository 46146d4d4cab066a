"""The fields of a page's request, checked before anything uses them.

JSON gives any field any type: a list where a name is expected, text
where a number is.  Each check here returns the value as the session
needs it, or raises a :class:`SessionError` naming the field and saying
what it got, shortened (a field may hold a long list or a 4000-digit
number).
"""

from __future__ import annotations

import math
import reprlib
from typing import Any

from .errors import SessionError

_SHORT = reprlib.Repr()
_SHORT.maxstring = _SHORT.maxother = 60


def shown(value: Any) -> str:
    """``value`` as Python would write it, cut in the middle when long."""
    return _SHORT.repr(value)


def whole(value: Any, field: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise SessionError(f"{field}: expected a whole number, not {shown(value)}")
    return value


def number(value: Any, field: str) -> float:
    """A finite number: JSON's reader takes NaN, Infinity, 1e400 (as
    inf) and whole numbers of 400 digits, which are no float."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise SessionError(f"{field}: expected a number, not {shown(value)}")
    try:
        finite = float(value)
    except OverflowError:
        finite = math.inf
    if not math.isfinite(finite):
        raise SessionError(f"{field}: expected a finite number, not {shown(value)}")
    return finite


def name(value: Any, field: str, what: str) -> str:
    """A name the page chose from a list (a place, a transition, ...);
    ``what`` says what it names, for the error."""
    if not isinstance(value, str):
        raise SessionError(f"{field}: expected {what} (text), not {shown(value)}")
    return value
