"""What a study reads off a run's power series: the daily profile and the cap's excess.

The series is a step function: ``watts[i]`` from ``times[i]`` to the next
time (the last until ``end``).  Both measures integrate it exactly, between
events, rather than sampling it.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from modules.power_steps import cap_excess


def hourly_profile(times, watts, end: float, day_offset: float = 0.0,
                   until: float | None = None) -> np.ndarray:
    """Mean power in each hour of the (local) day, over ``[times[0], until)``.

    ``day_offset`` is the time of day (s) at simulation time 0.  An hour
    that the span never covers is NaN.  This is Fig. 16's curve for one run.
    """
    t = np.asarray(times, dtype=float)
    w = np.asarray(watts, dtype=float)
    until = end if until is None else min(until, end)
    keep = t < until
    t, w = t[keep], w[keep]
    if t.size == 0:
        return np.full(24, np.nan)
    durations = np.diff(t, append=until)
    cumulative = np.concatenate(([0.0], np.cumsum(w * durations)))

    def energy(x):
        i = np.clip(np.searchsorted(t, x, side="right") - 1, 0, t.size - 1)
        return cumulative[i] + w[i] * (x - t[i])

    first = t[0] - ((t[0] + day_offset) % 3600.0)
    edges = np.arange(first, until + 3600.0, 3600.0)
    edges = np.clip(edges, t[0], until)
    joules = np.diff(energy(edges))
    seconds = np.diff(edges)
    hours = (((edges[:-1] + day_offset) // 3600.0) % 24).astype(int)
    hour_joules = np.bincount(hours, joules, minlength=24)
    hour_seconds = np.bincount(hours, seconds, minlength=24)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(hour_seconds > 0, hour_joules / hour_seconds, np.nan)


def power_measures(result, day_offset: float, cap_watts: float | None,
                   until: float | None) -> dict[str, Any]:
    """A run's time above the cap (``cap_exceeded_s``, ``cap_excess_max_w``)
    and its mean power in each local hour of the day (``power_hour_00_w``
    ...), over the series up to ``until``."""
    exceeded_s, excess_w = (cap_excess(result.power_times, result.power_watts, result.end,
                                       cap_watts)
                            if len(result.jobs) else (0.0, 0.0))
    profile = (hourly_profile(result.power_times, result.power_watts, result.end,
                              day_offset, until)
               if len(result.power_times) else np.full(24, np.nan))
    return {"cap_exceeded_s": exceeded_s, "cap_excess_max_w": excess_w,
            **{f"power_hour_{hour:02d}_w": float(value) for hour, value in enumerate(profile)}}
