"""What counts as a number among the models' settings and a job's fields:
a real number (numpy's too), never a bool, which Python counts as an int
(``True`` nodes, ``False`` watts).  numpy's bool is no number already."""

from __future__ import annotations

import math
from numbers import Integral, Real
from typing import Any


def is_number(value: Any) -> bool:
    return isinstance(value, Real) and not isinstance(value, bool)


def is_whole_number(value: Any) -> bool:
    return isinstance(value, Integral) and not isinstance(value, bool)


def checked_run_options(energy_steps: Any, time_offset: Any, chunk: Any,
                        progress: Any, stop: Any) -> tuple[float, ...]:
    """The options of a PuPPET run, checked before it starts, naming the
    option: a step of 0 or a time offset of nan failed only once the whole
    run was done, a chunk of nan deep in the simulator; ``energy_steps`` as
    a tuple (one number is taken for a list of one)."""
    steps = (energy_steps,) if is_number(energy_steps) else tuple(energy_steps)
    for step in steps:
        if not (is_number(step) and 0 < step < math.inf):
            raise ValueError(f"energy_steps must be positive finite seconds, not {step!r}")
    if not (is_number(time_offset) and math.isfinite(time_offset)):
        raise ValueError(f"time_offset must be finite seconds, not {time_offset!r}")
    if not (is_number(chunk) and chunk > 0):
        raise ValueError(f"chunk must be positive seconds, not {chunk!r}")
    for name, function in (("progress", progress), ("stop", stop)):
        if function is not None and not callable(function):
            raise ValueError(f"{name} must be a function or None, not {function!r}")
    return steps
