"""What counts as a number among the models' settings and a job's fields:
a real number (numpy's too), never a bool, which Python counts as an int
(``True`` nodes, ``False`` watts).  numpy's bool is no number already."""

from __future__ import annotations

from numbers import Integral, Real
from typing import Any


def is_number(value: Any) -> bool:
    return isinstance(value, Real) and not isinstance(value, bool)


def is_whole_number(value: Any) -> bool:
    return isinstance(value, Integral) and not isinstance(value, bool)
