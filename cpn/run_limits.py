"""What a run is told to stop at, checked before it starts.

The hot loop compares the clock with ``until_time`` and the count of steps
with a limit on every turn, and checks neither: NaN, which no time passes,
would be ignored, a negative ``max_steps`` would stop a run before its
first firing as if it had done them, and an int ``until_time`` would
become the clock where a run stops, a float everywhere else.
"""

from __future__ import annotations

import math
import numbers
import sys
from typing import Any

from .net import NEVER


def stop_time(until_time: Any) -> float:
    """``until_time`` as a float on the clock (``NEVER`` for None).

    >>> stop_time(6), stop_time(None)
    (6.0, inf)
    """
    if until_time is None:
        return NEVER
    if (isinstance(until_time, bool) or not isinstance(until_time, numbers.Real)
            or math.isnan(until_time)):
        raise ValueError(f"until_time must be a time on the clock (a number), "
                         f"not {until_time!r}")
    return float(until_time)


def step_limit(steps: int, max_steps: Any) -> int:
    """The count of steps at which a run of ``max_steps`` firings from
    ``steps`` stops (no limit for None)."""
    if max_steps is None:
        return sys.maxsize
    whole = type(max_steps) is int or (  # an int first: step() is one run of 1 step
        isinstance(max_steps, numbers.Integral) and not isinstance(max_steps, bool))
    if not whole or max_steps < 0:
        raise ValueError(f"max_steps must be a whole number of firings, 0 or more, "
                         f"not {max_steps!r}")
    return steps + int(max_steps)


def checked_seed(seed: Any) -> int | None:
    """A simulator's ``seed`` as a Python int, or None (unseeded): a string
    seeded a run without a word, numpy's integers failed in ``random``."""
    if seed is None:
        return None
    if not (isinstance(seed, numbers.Integral) and not isinstance(seed, bool) and seed >= 0):
        raise ValueError(f"seed must be a whole number >= 0 or None, not {seed!r}")
    return int(seed)
