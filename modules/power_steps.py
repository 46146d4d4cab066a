"""The system power as a step function: its energy, peaks, samples and bins.

A power series is piecewise constant, given as two arrays ``times``
(non-decreasing, seconds) and ``watts``, plus the time ``end`` at which the
series stops.  ``watts[i]`` holds on ``[times[i], times[i+1])`` and the last
value holds on ``[times[-1], end)``.  Several entries may share a time
(several changes at one instant): the last one wins, the earlier ones last
zero seconds and so count for nothing.  Entries after ``end`` are ignored.
This is exactly what a monitor that logs the place ``Power`` at each firing
produces, and equally what a measured power trace gives.

Energy is the integral of that step function (:func:`energy_exact`).  The
PuPPET paper (section 4, Table 2) instead sampled the place ``Power`` every
simulation time step and counted the sample for the whole step
(:func:`energy_fixed_step`); comparing the two per day
(:func:`daily_energy_errors`, :func:`max_daily_energy_error`) reproduces the
paper's accuracy study.

Everything is vectorised with numpy: a series of millions of changes
integrates in milliseconds.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Sequence

import numpy as np

from .power import cap_limit
from .values import is_number

if TYPE_CHECKING:
    import pandas as pd

JOULES_PER_KWH = 3.6e6
SECONDS_PER_DAY = 86400.0



def _step_series(times, watts, end) -> tuple[np.ndarray, np.ndarray, float]:
    """Validate a power series; return float arrays with times clipped to ``end``.

    Fails loudly on what would otherwise integrate to a silently wrong number:
    mismatched lengths, an empty series, decreasing or non-finite times, or an
    ``end`` before the first time.
    """
    t = np.asarray(times, dtype=float)
    w = np.asarray(watts, dtype=float)
    if t.ndim != 1 or w.ndim != 1:
        raise ValueError("times and watts must be one-dimensional")
    if t.shape != w.shape:
        raise ValueError(f"times and watts differ in length: {t.size} != {w.size}")
    if t.size == 0:
        raise ValueError("the power series is empty")
    if not (np.all(np.isfinite(t)) and np.all(np.isfinite(w))):
        raise ValueError("times and watts must be finite")
    if t.size > 1 and np.any(t[1:] < t[:-1]):
        i = int(np.argmax(t[1:] < t[:-1]))
        raise ValueError(f"times must be non-decreasing: times[{i + 1}]={t[i + 1]} < times[{i}]={t[i]}")
    end = float(end)
    if not math.isfinite(end) or end < t[0]:
        raise ValueError(f"end={end} must be finite and not before the first time {t[0]}")
    return np.minimum(t, end), w, end


def _durations(t: np.ndarray, end: float) -> np.ndarray:
    """How long each entry holds (zero for entries overridden at the same instant)."""
    return np.diff(t, append=end)


def power_at(times, watts, at):
    """Value of the series at time(s) ``at``, after all changes at that instant.

    The series is right-continuous: at a time where it changes, the new value
    (the last entry with that time) is returned.  ``at`` before the first time
    is an error; ``at`` past the last change returns the last value.

    >>> power_at([0, 10, 10], [1.0, 5.0, 7.0], [0, 9.5, 10, 99])
    array([1., 1., 7., 7.])
    """
    t = np.asarray(times, dtype=float)
    w = np.asarray(watts, dtype=float)
    x = np.asarray(at, dtype=float)
    index = np.searchsorted(t, x, side="right") - 1
    if np.any(index < 0):
        raise ValueError(f"time before the start of the series ({t[0]})")
    return w[index]


def collapse_step_series(times, watts, end=None) -> tuple[np.ndarray, np.ndarray]:
    """The shortest series describing the same step function.

    Keeps the last entry of each instant, drops entries at or after ``end``
    (they hold for zero seconds) and merges consecutive equal values.  Useful
    before exporting or plotting a long monitor log; integrals are unchanged.

    >>> collapse_step_series([0, 5, 5, 8, 9], [1.0, 2.0, 1.0, 1.0, 3.0])
    (array([0., 9.]), array([1., 3.]))
    """
    t = np.asarray(times, dtype=float)
    w = np.asarray(watts, dtype=float)
    if end is not None:
        t, w, end = _step_series(t, w, end)
    if t.size == 0:
        return t, w
    last_of_instant = np.append(t[1:] != t[:-1], True)
    t, w = t[last_of_instant], w[last_of_instant]
    if end is not None and t.size > 1:
        before_end = t < end
        before_end[0] = True  # the value at the start, even for a zero-length series
        t, w = t[before_end], w[before_end]
    changed = np.insert(w[1:] != w[:-1], 0, True)
    return t[changed], w[changed]


def _cumulative_energy(t: np.ndarray, w: np.ndarray, end: float, at) -> np.ndarray:
    """Energy in joules from the first time to each time in ``at`` (clipped to the span)."""
    cumulative = np.concatenate(([0.0], np.cumsum(w * _durations(t, end))))
    x = np.clip(np.asarray(at, dtype=float), t[0], end)
    index = np.searchsorted(t, x, side="right") - 1
    return cumulative[index] + w[index] * (x - t[index])


# --------------------------------------------------------------------------
# Energy


def energy_exact(times, watts, end) -> float:
    """Energy in joules: the exact integral of the step series over ``[times[0], end)``.

    This is what an event-driven simulation knows without approximation:
    power is constant between events, so energy is the sum of
    ``watts[i] * (times[i+1] - times[i])``.

    >>> energy_exact([0, 10, 30], [100.0, 300.0, 200.0], end=60)
    13000.0
    """
    t, w, end = _step_series(times, watts, end)
    return _energy(w, _durations(t, end))


def _energy(watts: np.ndarray, durations: np.ndarray) -> float:
    """The sum of ``watts * durations``, correctly rounded (``math.fsum``):
    the same bits on every machine.  ``np.dot`` hands it to BLAS, whose
    threads, vector width and fused multiply-adds change the last bits with
    the machine (one run gave other bits on one BLAS thread than on two)."""
    return math.fsum((watts * durations).tolist())


def sample_fixed_step(times, watts, end, step) -> tuple[np.ndarray, np.ndarray]:
    """The series as a fixed-step simulation sees it: sampled at ``t_k = t0 + k*step < end``.

    Returns the sample times and the value at each (after all changes at
    that instant); empty arrays when ``end == t0``.  Each sample stands for
    the step ``[t_k, t_k + step)``: the PuPPET paper's estimate.
    """
    t, w, end = _step_series(times, watts, end)
    step = _positive_step(step)
    count = int(math.ceil((end - t[0]) / step))
    sample_times = t[0] + np.arange(count, dtype=float) * step
    sample_times = sample_times[sample_times < end]
    return sample_times, power_at(t, w, sample_times)


def energy_fixed_step(times, watts, end, step) -> float:
    """Energy in joules as the PuPPET paper estimates it with a fixed time step.

    Section 4: "The energy consumption within the time step [t, t+1] is
    approximated as the number of tokens in the place *Power* at time t."
    So the estimate is the sum over ``t_k = t0 + k*step < end`` of
    ``value(t_k) * step``, where ``value(t_k)`` is the power after all
    changes at ``t_k``.  A spike shorter than the step is missed when no
    sample falls inside it, and counted for a whole step when one does.

    Every sample counts a whole step, the last one too, even where it
    reaches past ``end`` (as a fixed-step simulation that stops at the first
    step boundary after ``end`` would, and as ``cpn.monitors.PlaceIntegral``
    with ``step`` does).  When ``step`` divides every change time and
    ``end`` (relative to ``t0``), the estimate equals the exact energy.
    Each value counts once per sample falling in its interval: the samples
    are counted, not listed (a long run sampled every minute has tens of
    millions of them).

    >>> energy_fixed_step([0, 25, 30], [100.0, 1000.0, 100.0], end=60, step=10)
    6000.0
    """
    t, w, end = _step_series(times, watts, end)
    step = _positive_step(step)
    count = int(math.ceil((end - t[0]) / step))
    first = _first_sample_from(np.append(t, end), t[0], step, count)
    return float((w * np.diff(first)).sum() * step)


def _positive_step(step) -> float:
    step = float(step)
    if not (math.isfinite(step) and step > 0):
        raise ValueError(f"step must be positive, got {step}")
    return step


def _first_sample_from(x: np.ndarray, t0: float, step: float, count: int) -> np.ndarray:
    """For each time in ``x``, the index of the first of the ``count``
    samples ``t0 + k*step`` at or after it, each sample time computed as
    :func:`sample_fixed_step` computes it (so rounding puts every sample on
    the same side of a change)."""
    k = np.maximum(np.ceil((x - t0) / step), 0.0)
    k -= (k > 0) & (t0 + (k - 1) * step >= x)
    k += t0 + k * step < x
    return np.minimum(k, count).astype(np.int64)


def daily_energy(times, watts, end, day: float = SECONDS_PER_DAY, step=None) -> pd.DataFrame:
    """Energy of each day, as a frame with columns ``day, start, kwh, hours``
    (:func:`daily_energy_columns`)."""
    import pandas as pd  # only the frames need it (a run's plots do not)

    return pd.DataFrame(daily_energy_columns(times, watts, end, day, step))


def daily_energy_columns(times, watts, end, day: float = SECONDS_PER_DAY,
                         step=None) -> dict[str, np.ndarray]:
    """Energy of each day, as columns ``day, start, kwh, hours``.

    Days are counted from the first time of the series (day 0 starts at
    ``times[0]``), each ``day`` seconds long; the last day may be partial.
    ``start`` is the day's start in seconds; ``hours`` how much of the day
    the series covers (``day`` in hours, but for a partial last day, whose
    lower energy is then not read as a quieter day).  An interval that crosses a day
    boundary is split between the two days.  Exact by default; with ``step``
    the paper's fixed-step estimate (:func:`energy_fixed_step`) of each day,
    as plotted in Fig. 9 (daily energy, model versus measurement).

    With ``step``, each sample holds for its whole step; a step that
    crosses a day boundary is split between the days, and the part of the
    last step past ``end`` counts in the last day, so the days add up to
    :func:`energy_fixed_step`.  When ``step`` divides ``day`` (all of Table
    2's steps divide a day) each step lies within the day of its sample, as
    in the paper.
    """
    t, w, end = _step_series(times, watts, end)
    day = float(day)
    if not (math.isfinite(day) and day > 0):
        raise ValueError(f"day must be positive, got {day}")
    span = end - t[0]
    days = int(math.ceil(span / day))
    seconds = np.full(days, day)
    if days:
        seconds[-1] = span - (days - 1) * day
    series_end = end
    if step is not None and days:
        t0 = t[0]
        t, w = sample_fixed_step(t, w, end, step)
        series_end = t0 + t.size * float(step)
    edges = t[0] + np.arange(days + 1, dtype=float) * day
    if days:
        edges[-1] = series_end
    joules = np.diff(_cumulative_energy(t, w, series_end, edges))
    return {"day": np.arange(days), "start": edges[:-1], "kwh": joules / JOULES_PER_KWH,
            "hours": seconds / 3600}


def daily_energy_errors(times, watts, end, step, day: float = SECONDS_PER_DAY) -> pd.DataFrame:
    """Per-day exact and fixed-step energy and the relative error of the estimate.

    Columns ``day, start, exact_kwh, estimate_kwh, relative_error`` where
    ``relative_error = |estimate - exact| / exact``.  A day with no energy has
    error 0 if the estimate is also 0, else infinity.  This is the comparison
    behind Fig. 9 and Table 2 of section 4.
    """
    import pandas as pd  # only the frames need it (a run's metrics do not)

    exact = daily_energy(times, watts, end, day=day)
    estimate = daily_energy(times, watts, end, day=day, step=step)
    difference = np.abs(estimate["kwh"].to_numpy() - exact["kwh"].to_numpy())
    with np.errstate(divide="ignore", invalid="ignore"):
        error = np.where(difference == 0, 0.0, difference / exact["kwh"].to_numpy())
    return pd.DataFrame(
        {
            "day": exact["day"],
            "start": exact["start"],
            "exact_kwh": exact["kwh"],
            "estimate_kwh": estimate["kwh"],
            "relative_error": error,
        }
    )


def max_daily_energy_error(times, watts, end, step, day: float = SECONDS_PER_DAY) -> float:
    """Table 2's "maximum energy error": the worst day's relative error of the fixed-step estimate.

    Returns a fraction (0.0384 for the paper's 3.84 % at a 1 min step).  A
    series shorter than a day is one (partial) day.
    """
    errors = daily_energy_errors(times, watts, end, step, day=day)["relative_error"]
    return float(errors.max()) if len(errors) else 0.0


def binned_power(times, watts, end, width: float) -> pd.DataFrame:
    """Mean, minimum and maximum power in consecutive bins of ``width``
    seconds, as a frame (:func:`binned_power_columns`)."""
    import pandas as pd  # only the frames need it (a run's plots do not)

    return pd.DataFrame(binned_power_columns(times, watts, end, width))


def binned_power_columns(times, watts, end, width: float) -> dict[str, np.ndarray]:
    """Mean, minimum and maximum power in consecutive bins of ``width`` seconds.

    Columns ``start, mean, min, max`` (seconds, watts).  The mean is
    time-weighted (bin energy / bin length); minimum and maximum are over
    the values that hold for a positive time inside the bin, so a peak is
    never smoothed away.  Bins start at the first time; the last may be
    partial.  Used to draw long series and to check a power cap.
    """
    t, w, end = _step_series(times, watts, end)
    width = float(width)
    if not (math.isfinite(width) and width > 0):
        raise ValueError(f"width must be positive, got {width}")
    if end == t[0]:
        value = power_at(t, w, t[0])
        return {name: np.array([number], dtype=float)
                for name, number in (("start", t[0]), ("mean", value), ("min", value),
                                     ("max", value))}
    t, w = collapse_step_series(t, w, end)
    starts = t[0] + np.arange(math.ceil((end - t[0]) / width), dtype=float) * width
    # Rounding can put the last start on (or past) the end: such a bin would be empty.
    edges = np.append(starts[starts < end], end)
    mean = np.diff(_cumulative_energy(t, w, end, edges)) / np.diff(edges)
    # Segment in force at each bin's start, and the last segment starting before its end.
    first = np.searchsorted(t, edges[:-1], side="right") - 1
    last = np.searchsorted(t, edges[1:], side="left") - 1
    peak = np.maximum(np.maximum.reduceat(w, first), w[last])
    low = np.minimum(np.minimum.reduceat(w, first), w[last])
    return {"start": edges[:-1], "mean": mean, "min": low, "max": peak}


def power_metrics(times, watts, end) -> dict[str, float]:
    """The power half of :func:`modules.metrics.summary_metrics`: ``energy_j``,
    ``energy_kwh``, ``power_mean_w``, ``power_peak_w`` (the highest value that
    holds for a positive time), ``series_start_s`` and ``series_end_s``."""
    t, w, end = _step_series(times, watts, end)
    durations = _durations(t, end)
    energy = _energy(w, durations)
    span = end - float(t[0])
    held = durations > 0
    peak = float(w[held].max()) if held.any() else float(power_at(t, w, t[0]))
    return {
        "energy_j": energy,
        "energy_kwh": energy / JOULES_PER_KWH,
        "power_mean_w": energy / span if span > 0 else peak,
        "power_peak_w": peak,
        "series_start_s": float(t[0]),
        "series_end_s": end,
    }


def cap_excess(times, watts, end: float,
               cap_watts: float | Sequence[tuple[float, float]] | None) -> tuple[float, float]:
    """Seconds the power series spends above the cap (beyond the tolerance
    of ``cap_limit``), and by how much at most (W); none without a cap:
    what an operator checks first, non-zero only when a job alone needs
    more (``over_cap="run_alone"``) or a policy of one's own broke it.  A
    cap that changes in time is given as its steps, ``(time, watts)``
    pairs on the series' clock, each holding until the next.

    >>> cap_excess([0, 10, 30], [100.0, 300.0, 200.0], end=60, cap_watts=250)
    (20.0, 50.0)
    >>> cap_excess([0, 10, 30], [100.0, 300.0, 200.0], end=60, cap_watts=[(0, 250), (20, 150)])
    (50.0, 150.0)
    """
    if cap_watts is None or is_number(cap_watts) and not math.isfinite(cap_watts):
        return 0.0, 0.0
    steps = [(-math.inf, cap_watts)] if is_number(cap_watts) else cap_watts
    t, w, end = _step_series(times, watts, end)
    starts = np.array([at for at, _ in steps], dtype=float)
    caps = np.array([cap for _, cap in steps], dtype=float)
    grid = np.union1d(t, starts[(starts > t[0]) & (starts < end)])  # cut where the cap changes
    power = power_at(t, w, grid)
    cap = caps[np.maximum(np.searchsorted(starts, grid, side="right") - 1, 0)]
    durations = _durations(grid, end)
    over = (power > cap_limit(cap)) & (durations > 0)
    return float(durations[over].sum()), float((power[over] - cap[over]).max(initial=0.0))
