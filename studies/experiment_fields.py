"""What the fields of an :class:`studies.experiment.Experiment` may hold.

The closed sets of choices (capping methods, power options, and those of
the modules a run uses) and the range of each number, checked when an
experiment is declared so that a bad value fails there, naming the field,
rather than deep inside a run.
"""

from __future__ import annotations

import math
import os
from typing import TYPE_CHECKING, Any, Iterable

from modules.batch_scheduling import OVERRUNS, P_SCHEDULE
from modules.cpu_scaling import ADMISSIONS, CpuScaling
from modules.easy import ESTIMATES, POLICIES
from modules.power_capping import OVER_CAP
from modules.resilience import METHODS, ON_FAILURE

if TYPE_CHECKING:
    from .experiment import Experiment

#: Capping methods: none, power-aware allocation (BLOCK, WAIT; section 3.2),
#: CPU scaling (DVFS; section 3.3).
CAPPINGS = ("none", "block", "wait", "dvfs")
POWER_OPTIONS = ("drawn", "constant")
#: The ``trace`` of a run on the built-in Mira-like workload.
SYNTHETIC = "synthetic"
#: What a job's size counts (``modules.swf.SIZE_UNITS``, not imported here:
#: declaring an experiment loads no numpy).
SIZE_UNITS = ("nodes", "procs")
#: Mira's whole-machine MTTF: a rack's 92.9 days (``FaultTolerance``) over
#: its 48 racks.  TOPPER runs on other machines fail as often by default.
MIRA_SYSTEM_MTTF_HOURS = 46.45  # 92.9 * 24 / 48
#: TOPPER's defaults (section 5) for the fields of a run with failures;
#: each applies only where its comment says.
TOPPER_DEFAULTS = {
    "on_failure": "keep",
    "system_mttf_hours": MIRA_SYSTEM_MTTF_HOURS,
    "checkpoint_scale": 1.0,  # with checkpoints (checkpoint, replication)
    "redundancy": 2.0,  # replication
    "gamma": 0.3,  # replication
    "dvfs_failure_multiplier": 1.0,  # DVFS capping
}


def settle_resilience(exp: "Experiment", put) -> None:
    """TOPPER fields: cleared without failures or where they cannot act,
    the paper's defaults where they can and were not given; a fixed
    checkpoint interval has no default (None: Daly's interval)."""
    method = exp.resilience
    checkpoints = method in ("checkpoint", "replication")
    applies = {
        "on_failure": method is not None,
        "system_mttf_hours": method is not None,
        "checkpoint_scale": checkpoints,
        "redundancy": method == "replication",
        "gamma": method == "replication",
        "dvfs_failure_multiplier": method is not None and exp.capping == "dvfs",
    }
    for name, default in TOPPER_DEFAULTS.items():
        if not applies[name]:
            put(name, None)
        elif getattr(exp, name) is None:
            put(name, default)
    if not checkpoints:
        put("checkpoint_interval_minutes", None)
    if method is None:
        put("unit_nodes", None)


def check_choices(exp: "Experiment") -> None:
    """Each field with a closed set of values holds one of them."""
    if isinstance(exp.backfill, str) or exp.backfill not in (True, False):  # bool("false")
        raise ValueError(f"backfill must be true or false, not {exp.backfill!r}")
    for name, allowed in (("policy", POLICIES), ("estimate", ESTIMATES),
                          ("trigger", tuple(P_SCHEDULE)), ("capping", CAPPINGS),
                          ("power", POWER_OPTIONS)):
        if getattr(exp, name) not in allowed:
            raise ValueError(f"{name} must be one of {allowed}, not {getattr(exp, name)!r}")
    for name, allowed in (("resilience", METHODS), ("on_failure", ON_FAILURE),
                          ("over_cap", OVER_CAP), ("dvfs_admission", ADMISSIONS),
                          ("overrun", OVERRUNS), ("size_unit", SIZE_UNITS)):
        value = getattr(exp, name)
        if value is not None and value not in allowed:
            raise ValueError(f"{name} must be one of {allowed} (or None), not {value!r}")


#: Number fields that cannot be None: None stands for "not given" only in
#: a field with nothing to fall back on (a TypeError of a comparison, or a
#: run seeded by no seed).
REQUIRED = ("allocation_unit", "idle_fraction", "node_watts", "seed")


def check_kinds(exp: "Experiment") -> None:
    """The fields the conversions of ``Experiment.__post_init__`` would
    misread: a trace that is no path (a TypeError of ``os.fspath``), a
    required number left None."""
    if not isinstance(exp.trace, (str, os.PathLike)):
        raise ValueError(f"trace must be an SWF file's path or {SYNTHETIC!r}, not {exp.trace!r}")
    for name in REQUIRED:
        if getattr(exp, name) is None:
            raise ValueError(f"{name} must be a number, not None")


def sorted_levels(levels: Any) -> tuple[float, ...] | None:
    """Frequency levels as numbers, highest first (None: the default ones);
    a number was "'int' object is not iterable", a string read as its
    characters ("could not convert string to float: ','")."""
    if levels is None:
        return None
    if isinstance(levels, (str, bytes)) or not isinstance(levels, Iterable):
        raise ValueError(f"levels must be a list of frequency levels, fractions of nominal "
                         f"([1.0, 0.8]), not {levels!r}")
    return tuple(sorted((field_number("levels", level) for level in levels), reverse=True))


def field_number(name: str, value: Any) -> float:
    """``value`` of field ``name`` as a float, refused with the field's name
    if it is none or NaN (which slipped through every range check and then
    stood for "not given"); infinities are left to the fields' own checks
    (``check_values``), which say what an infinite value would mean."""
    try:
        number = None if isinstance(value, bool) else float(value)
    except (TypeError, ValueError):
        number = None
    if number is None or math.isnan(number):
        raise ValueError(f"{name} must be a number, not {value!r}")
    return number


#: The number fields no run can take infinite (those still set once the
#: fields are settled; system_mttf_hours says what infinity would mean).
FINITE = ("cap_watts", "w_minutes", "alpha", "beta", "latency", "node_watts", "core_share",
          "checkpoint_scale", "redundancy", "gamma", "dvfs_failure_multiplier")


def check_values(exp: "Experiment") -> None:
    """Each number lies in its range (once the fields are settled)."""
    if exp.trace == SYNTHETIC and (exp.procs_per_node is not None
                                   or exp.machine_nodes is not None
                                   or exp.allocation_unit != 1 or exp.size_unit is not None):
        raise ValueError("the synthetic workload has its own machine: procs_per_node, "
                         "machine_nodes, allocation_unit and size_unit apply to SWF traces "
                         "only")
    if exp.size_unit == "procs" and exp.procs_per_node not in (None, 1):
        raise ValueError(f"procs_per_node={exp.procs_per_node} means nothing with "
                         'size_unit="procs": sizes count processors')
    for name in ("month", "cap_month", "seed"):
        value = getattr(exp, name)
        if isinstance(value, int) and value < 0:
            raise ValueError(f"{name} must be >= 0, not {value}")
    for name in ("procs_per_node", "allocation_unit", "machine_nodes"):
        if getattr(exp, name) is not None and getattr(exp, name) < 1:
            raise ValueError(f"{name} must be at least 1, not {getattr(exp, name)}")
    if exp.cap_fraction is not None and not 0 < exp.cap_fraction <= 1:
        raise ValueError(f"cap_fraction must lie in (0, 1], not {exp.cap_fraction}")
    if exp.cap_watts is not None and not (exp.cap_watts > 0 and math.isfinite(exp.cap_watts)):
        raise ValueError(f"cap_watts must be positive and finite, not {exp.cap_watts}")
    if not 0 <= exp.idle_fraction <= 1:
        raise ValueError(f"idle_fraction must lie in [0, 1], not {exp.idle_fraction}")
    if exp.node_watts <= 0:
        raise ValueError(f"node_watts must be positive, not {exp.node_watts}")
    if exp.levels == ():  # it stood for the default levels
        raise ValueError("levels must name at least one frequency level")
    if exp.l is not None and exp.l < 0:
        raise ValueError(f"the wait queue length l must be >= 0, not {exp.l}")
    if exp.w_minutes is not None and exp.w_minutes < 0:
        raise ValueError(f"the maximum wait w must be >= 0 minutes, not {exp.w_minutes}")
    if exp.alpha is not None and exp.alpha <= 0:
        raise ValueError(f"alpha must be positive, not {exp.alpha}")
    if exp.capping == "dvfs":
        CpuScaling(1.0, **({"levels": exp.levels} if exp.levels else {}),
                   beta=exp.beta, latency=exp.latency)  # validates
    _check_resilience(exp)
    for name in FINITE:
        value = getattr(exp, name)
        if value is not None and not math.isfinite(value):
            raise ValueError(f"{name} must be finite, not {value}")


def _check_resilience(exp: "Experiment") -> None:
    if exp.resilience is not None and exp.latency:  # else refused by the run, in a worker
        raise ValueError(f"latency={exp.latency:g} (seconds lost at a DVFS change of level) is "
                         f"not modelled with resilience={exp.resilience!r}: TOPPER changes a "
                         "level at no cost")
    if exp.redundancy is not None and not exp.redundancy >= 1:
        raise ValueError(f"the redundancy degree r must be >= 1, not {exp.redundancy}")
    if exp.gamma is not None and not 0 <= exp.gamma <= 1:
        raise ValueError(f"gamma (the communication share) must be within [0, 1], not "
                         f"{exp.gamma}")
    if exp.checkpoint_scale is not None and not exp.checkpoint_scale >= 0:
        raise ValueError(f"checkpoint_scale must be >= 0, not {exp.checkpoint_scale}")
    if exp.system_mttf_hours is not None and not (
            exp.system_mttf_hours > 0 and math.isfinite(exp.system_mttf_hours)):
        raise ValueError(f"system_mttf_hours must be positive and finite (no failures: "
                         f"resilience=None), not {exp.system_mttf_hours}")
    if exp.dvfs_failure_multiplier is not None and not exp.dvfs_failure_multiplier > 0:
        raise ValueError(f"dvfs_failure_multiplier must be positive, not "
                         f"{exp.dvfs_failure_multiplier}")
    if exp.unit_nodes is not None and exp.unit_nodes < 1:
        raise ValueError(f"unit_nodes must be at least 1, not {exp.unit_nodes}")
    for name in ("walltime_scale", "size_scale", "checkpoint_interval_minutes"):
        value = getattr(exp, name)
        if value is not None and not (value > 0 and math.isfinite(value)):
            raise ValueError(f"{name} must be positive and finite, not {value}")
