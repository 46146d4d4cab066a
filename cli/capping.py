"""Turning command-line options into a power cap (PuPPET section 3.2, 3.3).

An operator asks "what if we cap at 60 %?" or "at 40 MW?": ``--cap``
takes either, as ``60%`` (of the peak power of the same run uncapped, as
the paper's 70 % of January's peak) or as a power with its unit
(``40MW``, ``45720kW``, ``3000W``); a bare number is refused, since
``0.7`` and ``70`` would each be read wrongly by someone.  ``cpn sweep``
takes a comma list of the same forms.  ``--capping`` chooses how the cap
is kept: power-aware allocation (``block``, ``wait``) or ``dvfs``.
"""

from __future__ import annotations

import argparse
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from modules.dvfs_bounds import LOWEST_LEVEL, MAX_BETA, MAX_LATENCY, MAX_LEVELS

from .choices import DVFS_ADMISSIONS, OVER_CAP, OWN_MONTH
from .quantities import format_power
from .values import Remembered, add_option, choice, comma_list, given, non_negative_float, \
    non_negative_int, positive_float, positive_int, refuse_unread, within

if TYPE_CHECKING:  # the capping modules build nets: imported when a cap is built
    from modules.cpu_scaling import CpuScaling
    from modules.power_capping import PowerCap
    from nets.puppet import PuppetConfig

CAPPINGS = ("none", "block", "wait", "dvfs")
#: What to do with a job whose power alone exceeds the cap, as typed
#: (``PuppetConfig.over_cap``'s values, with a hyphen).
OVER_CAP_CHOICES = tuple(choice.replace("_", "-") for choice in OVER_CAP)
#: The paper's cap when a method is chosen without one: 70 % of the peak.
DEFAULT_CAP = "70%"
#: How a cap is written, for the help and the errors.
CAP_FORMS = "a share of the uncapped run's peak (70%) or a power (45720kW, 45.72MW, 3000W)"
#: The units a power cap is written in, as SI writes them: a prefix's case
#: is its meaning (``mW`` is a milliwatt, no cap for a machine), so
#: ``200000mW`` is refused rather than read as 200,000 MW.
_UNITS = {"W": 1.0, "kW": 1e3, "MW": 1e6, "GW": 1e9}
_CAP = re.compile(r"^\s*([0-9.eE+-]+)\s*(%|[A-Za-z]+)?\s*$")


@dataclass(frozen=True)
class CapSpec:
    """A cap as the user wrote it: a fraction of the uncapped peak, or watts."""

    fraction: float | None = None
    watts: float | None = None

    def resolve(self, uncapped_peak: float | None) -> float:
        if self.watts is not None:
            return self.watts
        if uncapped_peak is None:
            raise ValueError(f"a cap of {self} needs the uncapped run's peak power")
        return self.fraction * uncapped_peak

    def __str__(self) -> str:
        return f"{100 * self.fraction:g} %" if self.fraction is not None else f"{self.watts:g} W"


def parse_cap(text: str) -> CapSpec:
    """``"60%"`` -> 60 % of the uncapped peak; ``"40MW"``, ``"3000W"`` -> watts."""
    match = _CAP.match(text)
    try:
        value = float(match.group(1)) if match else None
    except ValueError:
        value = None
    if value is None:
        raise argparse.ArgumentTypeError(f"{text!r} is not a cap: write {CAP_FORMS}")
    unit = match.group(2)
    if unit is None:
        raise argparse.ArgumentTypeError(f"{text!r} has no unit: write {CAP_FORMS}")
    if unit == "%":
        if not 0 < value <= 100:
            raise argparse.ArgumentTypeError(f"a cap share must lie in (0, 100] %, not {text}")
        return CapSpec(fraction=value / 100)
    if unit not in _UNITS:
        raise argparse.ArgumentTypeError(
            f"{text!r}: the unit {unit} is none of {', '.join(_UNITS)} (SI prefixes are "
            "case-sensitive: m is milli, M mega)")
    if not 0 < value < float("inf"):
        raise argparse.ArgumentTypeError(f"a power cap must be positive, not {text}")
    return CapSpec(watts=value * _UNITS[unit])


def cap_month(text: str) -> int | str:
    """``--cap-month``: the month whose uncapped peak a share cap refers to
    (default 0, the paper's January), or ``own`` for each month's own."""
    if text == OWN_MONTH:
        return text
    try:
        return non_negative_int(text)
    except argparse.ArgumentTypeError:
        raise argparse.ArgumentTypeError(f"{text!r} is neither a month (0, 1, ...) nor "
                                         f"{OWN_MONTH}") from None


#: ``--cap-month``'s help.
CAP_MONTH_HELP = ("the month whose uncapped peak a share cap refers to in every month "
                  f"(default 0: the paper took January's), or {OWN_MONTH} for each month's own")


def _watts(text: str) -> CapSpec:
    """A cap in watts without a unit: the former ``--cap-watts`` of ``cpn sweep``."""
    return CapSpec(watts=positive_float(text))


def _over_cap(text: str) -> str:
    """``reject`` or ``run-alone``, as ``PuppetConfig.over_cap`` spells it."""
    return choice(OVER_CAP_CHOICES)(text).replace("-", "_")




def _levels(text: str) -> tuple[float, ...]:
    """``"6"`` -> six levels evenly from 100 % to 50 %; ``"1,0.8,0.6"`` as
    given, and so a lone fraction (``"0.8"``: one level)."""
    from modules.cpu_scaling import even_levels

    parts = text.split(",")
    counted = len(parts) == 1 and "." not in text
    count = positive_int(text) if counted else len(parts)
    if count > MAX_LEVELS:
        raise argparse.ArgumentTypeError(f"at most {MAX_LEVELS} levels, not {count}")
    if counted:
        return even_levels(count)
    return tuple(within(LOWEST_LEVEL, 1)(part) for part in parts)


def add_capping_arguments(parser: argparse.ArgumentParser, *, axis: bool = False):
    """The capping options of ``cpn run``, or with ``axis`` of ``cpn sweep``
    (each a comma list; the options an experiment cannot vary are left out);
    returns their group, for a command's own additions."""
    group = parser.add_argument_group(
        "power capping" + (" (comma lists)" if axis else ""),
        "keep system power under a cap (PuPPET sections 3.2, 3.3)")
    add_option(group, "--capping", choice(CAPPINGS), axis=axis,
               metavar="{" + ",".join(CAPPINGS) + "}",
               help="how the cap is kept: power-aware allocation (block, wait) or CPU "
                    "scaling (dvfs); default: none, or wait when --cap is given")
    # argparse expands help with %: double the signs of "70%"
    forms, default = CAP_FORMS.replace("%", "%%"), DEFAULT_CAP.replace("%", "%%")
    if axis:
        group.add_argument("--cap", type=comma_list(parse_cap), action="extend",
                           metavar="CAPS", help=f"caps, each {forms}; a share runs the "
                           f"uncapped twin first; default {default}")
        group.add_argument("--cap-watts", type=comma_list(_watts), action="extend", dest="cap",
                           help=argparse.SUPPRESS)
    else:
        group.add_argument("--cap", type=parse_cap, metavar="CAP",
                           help=f"{forms}; a share runs the uncapped run first; "
                                f"default {default} when --capping is given")
    add_option(group, "--wait-queue", non_negative_int, axis=axis, default=10, metavar="L",
               aliases=("--l",), help="WAIT: how many jobs may wait for power at once "
                                      "(the paper's l; default 10)")
    add_option(group, "--max-wait", non_negative_float, axis=axis, default=500.0,
               metavar="MINUTES", aliases=("--w",),
               help="WAIT: minutes a job may wait for power before it blocks the jobs "
                    "behind it (the paper's w; default 500)")
    add_option(group, "--alpha", positive_float, axis=axis, default=2.0,
               help="DVFS: a core's power scales as f^alpha (default 2)")
    add_option(group, "--beta", within(0, MAX_BETA), axis=axis, default=0.5,
               help="DVFS: a job's runtime scales as 1/f^beta, beta within [0, 2] (0: "
                    "frequency-blind, 1: compute-bound; PuPPET Fig. 12 goes to 2; "
                    "default 0.5)")
    add_option(group, "--over-cap", _over_cap, axis=axis, default="reject",
               metavar="{" + ",".join(OVER_CAP_CHOICES) + "}",
               help="a job whose power alone exceeds the cap: reject it (listed in "
                    "rejected.csv; default: the cap holds), or run it when nothing else "
                    "runs (run-alone: the cap breaks meanwhile)")
    add_option(group, "--dvfs-admission", choice(DVFS_ADMISSIONS), axis=axis, default="lowest",
               metavar="{" + ",".join(DVFS_ADMISSIONS) + "}",
               help="DVFS: start a job when the cap would hold with every job at the "
                    "lowest level (lowest, default: the cap always holds), or as soon as "
                    "it has nodes, as the paper's net does (nodes: the cap holds only "
                    "while the lowest level suffices; docs/findings.md)")
    if axis:
        return group
    group.add_argument("--levels", type=_levels, default="6", action=Remembered,
                       help="DVFS frequency levels: a count (evenly 100%%..50%%, default 6) "
                            "or a comma list of fractions of nominal, each within [0.1, 1]; "
                            f"at most {MAX_LEVELS}")
    group.add_argument("--dvfs-latency", type=within(0, MAX_LATENCY), default=0.0,
                       metavar="SECONDS", action=Remembered,
                       help="DVFS: seconds lost at each change of level, within [0, 3600] "
                            "(default 0)")
    return group


def capping_methods(chosen: list[str] | None, caps: list[CapSpec] | None) -> list[str]:
    """The methods asked for (``--capping``; None when not given) beside
    the ``caps`` asked for: a cap without a method means WAIT, and a cap
    with no method but none is refused rather than ignored."""
    if chosen is None:
        return ["none"] if caps is None else ["wait"]
    if caps is not None and set(chosen) == {"none"}:
        raise ValueError(f"--cap {', '.join(map(str, caps))} was given with --capping none: "
                         "choose block, wait or dvfs")
    return chosen


#: The capping options only some methods read, by argparse name.
METHOD_OPTIONS = {"wait_queue": ("wait",), "max_wait": ("wait",), "alpha": ("dvfs",),
                  "beta": ("dvfs",), "levels": ("dvfs",), "dvfs_latency": ("dvfs",),
                  "dvfs_admission": ("dvfs",), "over_cap": ("block", "wait", "dvfs")}


def refuse_unread_options(args, methods: list[str]) -> None:
    """Refuse an option given that none of ``methods`` reads (``--alpha 3``,
    or ``--alpha 2`` its default, with ``--capping wait``), and ``--max-wait``
    where every wait queue is 0 (BLOCK): it would be dropped without a word,
    and the user would read results it did not shape.  A sweep whose wait
    queues are 0 and more takes it: its runs of 0 record no w."""
    refuse_unread([action.dest for action in args.command_parser._actions
                   if given(args, action.dest)], METHOD_OPTIONS, methods, "--capping")
    lengths = args.wait_queue if isinstance(args.wait_queue, list) else [args.wait_queue]
    if given(args, "max_wait") and not any(lengths):  # every WAIT run is BLOCK
        raise ValueError(f"--max-wait applies to --capping wait with --wait-queue 1 or more "
                         f"only: with --wait-queue {lengths[0]} no job waits (BLOCK), so "
                         f"the maximum wait is never read")


def capping_method(args) -> str:
    """``cpn run``'s one method (see :func:`capping_methods`)."""
    return capping_methods(None if args.capping is None else [args.capping],
                           None if args.cap is None else [args.cap])[0]


def cap_spec(args) -> CapSpec | None:
    """What to cap at, or None when not capping."""
    if capping_method(args) == "none":
        return None
    return args.cap if args.cap is not None else parse_cap(DEFAULT_CAP)


def build_cap(args, cap_watts: float | None) -> PowerCap | CpuScaling:
    """The capping module's configuration for ``cap_watts``."""
    from modules.cpu_scaling import CpuScaling
    from modules.power_capping import PowerCap

    method = capping_method(args)
    if method == "none":
        return PowerCap()
    if method == "block":
        return PowerCap.block(cap_watts)
    if method == "wait":
        return PowerCap.wait(cap_watts, l=args.wait_queue, w_minutes=args.max_wait)
    return CpuScaling(cap_watts, levels=args.levels, beta=args.beta, latency=args.dvfs_latency,
                      admission=args.dvfs_admission)


def refuse_cap_below_idle(cap_watts: float, share: str, config: PuppetConfig) -> None:
    """A cap under what the idle machine draws lets no job start: every
    job would be refused as over the cap alone, which blames the jobs for
    what the cap does.  ``share`` says what a share cap was taken of."""
    idle = config.power.idle_system(config.machine_nodes)
    if cap_watts < idle:
        raise ValueError(
            f"--cap: the cap ({format_power(cap_watts)}{', ' + share if share else ''}) is "
            f"below the idle machine's {format_power(idle)} ({config.machine_nodes:,} nodes "
            f"at {format_power(config.power.idle_node_watts)} each): no job could start")


def note_a_cap_that_never_binds(console, args, cap_watts: float) -> None:
    """Say so when a power cap is above the uncapped peak remembered from
    an earlier run (``cli/uncapped_peak.py``): such a cap never binds, and
    the run is the uncapped one.  Without a remembered peak nothing is said:
    finding it would cost an uncapped run."""
    from .uncapped_peak import cached_peak, peak_key

    peak = cached_peak(peak_key(args))
    if peak is not None and cap_watts >= peak:
        console.print(f"[yellow]the cap will never bind: the uncapped peak is "
                      f"{format_power(peak)} (found by an earlier run)[/]")
