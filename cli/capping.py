"""Turning command-line options into a power cap (PuPPET section 3.2, 3.3).

An operator asks "what if we cap at 60 %?" or "at 40 MW?": ``--cap``
takes either, as ``60%`` (of the peak power of the same run uncapped, as
the paper's 70 % of January's peak) or as watts with an optional unit
(``40MW``, ``45720kW``, ``4.5e7``).  ``--capping`` chooses how the cap is
kept: power-aware allocation (``block``, ``wait``) or ``dvfs``.
"""

from __future__ import annotations

import argparse
import re
from dataclasses import dataclass

from modules.cpu_scaling import CpuScaling, even_levels
from modules.power_capping import PowerCap

CAPPINGS = ("none", "block", "wait", "dvfs")
#: What to do with a job whose power alone exceeds the cap.
OVER_CAP = ("alone", "reject")
OVER_CAP_REASON = "power alone above the cap"
#: The paper's cap when a method is chosen without one: 70 % of the peak.
DEFAULT_CAP = "70%"
_UNITS = {"": 1.0, "w": 1.0, "kw": 1e3, "mw": 1e6, "gw": 1e9}
_CAP = re.compile(r"^\s*([0-9.eE+-]+)\s*(%|[kKmMgG]?[wW])?\s*$")


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
    """``"60%"`` -> 60 % of the uncapped peak; ``"40MW"``, ``"4e7"`` -> watts."""
    match = _CAP.match(text)
    try:
        value = float(match.group(1)) if match else None
    except ValueError:
        value = None
    if value is None:
        raise argparse.ArgumentTypeError(
            f"{text!r} is not a cap: write a share of the uncapped peak (60%) "
            "or a power (40MW, 45720kW, 4.5e7)")
    unit = (match.group(2) or "").lower()
    if unit == "%":
        if not 0 < value <= 100:
            raise argparse.ArgumentTypeError(f"a cap share must lie in (0, 100] %, not {text}")
        return CapSpec(fraction=value / 100)
    if value <= 0:
        raise argparse.ArgumentTypeError(f"a power cap must be positive, not {text}")
    return CapSpec(watts=value * _UNITS[unit])


def _levels(text: str) -> tuple[float, ...]:
    """``"6"`` -> six levels evenly from 100 % to 50 %; ``"1,0.8,0.6"`` as given."""
    try:
        if "," not in text:
            return even_levels(int(text))
        return tuple(float(part) for part in text.split(","))
    except ValueError as error:
        raise argparse.ArgumentTypeError(f"--levels: {error}") from None


def add_capping_arguments(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group(
        "power capping", "keep system power under a cap (PuPPET sections 3.2, 3.3)")
    group.add_argument("--capping", choices=CAPPINGS,
                       help="power-aware allocation (block, wait) or CPU scaling (dvfs); "
                            "default: none, or wait when --cap is given")
    group.add_argument("--cap", type=parse_cap,
                       help="60%% (of the uncapped run's peak: runs it first) or a power "
                            f"(40MW, 45720kW, 4.5e7 W); default {DEFAULT_CAP}% when --capping "
                            "is given")
    group.add_argument("--wait-queue", type=int, default=10, metavar="L",
                       help="WAIT: jobs that may wait for power at once (l, default 10)")
    group.add_argument("--max-wait", type=float, default=500.0, metavar="MINUTES",
                       help="WAIT: a job waiting longer blocks its successors (w, default 500)")
    group.add_argument("--alpha", type=float, default=2.0,
                       help="DVFS: core power scales as f^alpha (default 2)")
    group.add_argument("--beta", type=float, default=0.5,
                       help="DVFS: runtime scales as 1/f^beta (default 0.5)")
    group.add_argument("--levels", type=_levels, default=even_levels(),
                       help="DVFS frequency levels: a count (evenly 100%%..50%%, default 6) "
                            "or a comma list of fractions of nominal")
    group.add_argument("--over-cap", choices=OVER_CAP, default="alone",
                       help="a job whose power alone exceeds the cap: run it when nothing "
                            "else runs (default), or reject it (listed in rejected.csv)")
    group.add_argument("--dvfs-latency", type=float, default=0.0, metavar="SECONDS",
                       help="DVFS: time lost at each change of level (default 0)")


def capping_method(args) -> str:
    """The method the options ask for; a cap without a method means WAIT."""
    if args.capping is None:
        return "none" if args.cap is None else "wait"
    if args.capping == "none" and args.cap is not None:
        raise ValueError(f"--cap {args.cap} was given with --capping none: "
                         "choose block, wait or dvfs")
    return args.capping


def cap_spec(args) -> CapSpec | None:
    """What to cap at, or None when not capping."""
    if capping_method(args) == "none":
        return None
    return args.cap if args.cap is not None else parse_cap(DEFAULT_CAP)


def build_cap(args, cap_watts: float | None) -> PowerCap | CpuScaling:
    """The capping module's configuration for ``cap_watts``."""
    method = capping_method(args)
    if method == "none":
        return PowerCap()
    if method == "block":
        return PowerCap.block(cap_watts)
    if method == "wait":
        return PowerCap.wait(cap_watts, l=args.wait_queue, w_minutes=args.max_wait)
    return CpuScaling(cap_watts, levels=args.levels, beta=args.beta, latency=args.dvfs_latency)


def over_cap_alone(config, jobs) -> list:
    """Jobs that exceed ``config``'s cap even on an otherwise idle machine
    (at the lowest frequency level under DVFS): the cap cannot hold while
    they run, so they either run alone or are rejected (``--over-cap``)."""
    lowest = min(config.cap.levels) if isinstance(config.cap, CpuScaling) else 1.0
    floor = config.power.idle_system(config.machine_nodes)
    return [job for job in jobs
            if floor + config.power.busy_delta(job._replace(pf=lowest)) > config.cap_watts]
