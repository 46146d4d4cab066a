"""Quantities as a person reads them on the console: waits in h/min/s,
energy in MWh, power in MW (smaller units only for a small run), a
fixed step as ``15 min``.  metrics.json keeps raw SI units; this is only
how they are shown."""

from __future__ import annotations

import math


def format_duration(seconds: float) -> str:
    """``12.5 s``, ``4 min 05 s``, ``3 h 12 min``: a wait read at a glance."""
    if seconds != seconds:  # NaN
        return "n/a"
    if abs(seconds) < 60:
        return f"{seconds:.1f} s"
    whole = int(round(seconds))
    hours, rest = divmod(whole, 3600)
    minutes, secs = divmod(rest, 60)
    if hours:
        return f"{hours:,} h {minutes:02d} min"
    return f"{minutes} min {secs:02d} s"


def format_step(seconds: float) -> str:
    """A fixed step as people say it: ``1 min``, ``15 min``, ``1 h``, ``90 s``."""
    if seconds % 3600 == 0:
        return f"{seconds / 3600:g} h"
    if seconds % 60 == 0:
        return f"{seconds / 60:g} min"
    return f"{seconds:g} s"


def significant(value: float) -> str:
    """Four significant digits, without scientific notation (``1,987``,
    ``2.619``, ``0.4120``)."""
    if value == 0 or not math.isfinite(value):
        return f"{value:g}"
    decimals = max(0, 3 - int(math.floor(math.log10(abs(value)))))
    return f"{value:,.{decimals}f}"


def format_energy(joules: float) -> str:
    """In MWh, the unit of a machine's daily energy; kWh or Wh for a small run."""
    for scale, unit in ((3.6e9, "MWh"), (3.6e6, "kWh")):
        if abs(joules) >= scale:
            return f"{significant(joules / scale)} {unit}"
    return f"{significant(joules / 3600)} Wh"


def format_power(watts: float) -> str:
    """In MW, the unit of a machine's power (and of a power cap); kW or W below."""
    for scale, unit in ((1e6, "MW"), (1e3, "kW")):
        if abs(watts) >= scale:
            return f"{significant(watts / scale)} {unit}"
    return f"{significant(watts)} W"


def format_makespan(seconds: float) -> str:
    """In days from a day up, else as a duration."""
    return f"{seconds / 86_400:,.2f} days" if seconds >= 86_400 else format_duration(seconds)


def format_relative(estimate: float, exact: float) -> str:
    """The signed difference of ``estimate`` from ``exact`` in %."""
    percent = 100 * (estimate - exact) / exact
    if percent == 0:
        return "0 %"
    if abs(percent) < 0.01:
        return f"{percent:+.1e} %"
    return f"{percent:+.2f} %"
