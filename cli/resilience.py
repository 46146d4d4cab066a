"""Turning command-line options into TOPPER's failures and resilience.

Without ``--resilience`` nothing fails and ``cpn run`` is PuPPET.  With
it, compute units fail (drawn, or replayed from ``--failure-trace``) and
jobs protect themselves by checkpoint/restart, by replication, or not at
all (``restart``: a failure loses everything since the job started).
"""

from __future__ import annotations

import argparse

from modules.failure_logs import FAILURE_FORMATS
from modules.resilience import ON_FAILURE, FaultTolerance

from .values import positive_float

#: The command line's names for FaultTolerance.method.
RESILIENCE = {"checkpoint": "checkpoint", "replication": "replication", "restart": "none"}
DAY = 86_400.0


def add_resilience_arguments(parser: argparse.ArgumentParser) -> None:
    defaults = FaultTolerance()
    group = parser.add_argument_group(
        "failures and resilience (TOPPER)",
        "compute units fail; jobs checkpoint, replicate, or restart from scratch")
    group.add_argument("--resilience", choices=tuple(RESILIENCE),
                       help="turn failures on, with this protection (default: no failures)")
    group.add_argument("--unit-nodes", type=int, default=defaults.unit_nodes,
                       help="nodes per compute unit, the unit of failure and allocation "
                            f"(default {defaults.unit_nodes}: a Blue Gene/Q rack)")
    group.add_argument("--mttf-days", type=positive_float, default=defaults.unit_mttf / DAY,
                       help="a unit's mean time to failure in days "
                            f"(default {defaults.unit_mttf / DAY:g}: Mira's racks)")
    group.add_argument("--failure-trace", help="replay failures from a CSV (time,unit; "
                                               "times on the trace's clock) or from Mira's "
                                               "RAS log (.cor, from its first rack failure; "
                                               "48 units) instead of drawing them")
    group.add_argument("--failure-format", choices=FAILURE_FORMATS,
                       help="format of --failure-trace (default: told by its content)")
    group.add_argument("--failure-multiplier", type=positive_float, default=1.0,
                       help="scale every unit's failure rate (default 1)")
    group.add_argument("--dvfs-failure-multiplier", type=positive_float, default=1.0,
                       help="scale it while DVFS runs below nominal (2: DVFS-double)")
    group.add_argument("--on-failure", choices=ON_FAILURE, default=defaults.on_failure,
                       help="a failed job keeps its units and rolls back at once, or is "
                            "requeued (default keep)")
    group.add_argument("--redundancy", type=float, default=defaults.redundancy,
                       help=f"replication degree r (default {defaults.redundancy:g}; "
                            "fractional: partial replication)")
    group.add_argument("--gamma", type=float, default=defaults.communication,
                       help="replication's communication overhead "
                            f"(default {defaults.communication:g})")
    group.add_argument("--checkpoint-scale", type=positive_float, default=defaults.checkpoint_scale,
                       help="scale the checkpoint overheads (600 s / 1,200 s; default 1)")
    group.add_argument("--recovery", type=float, default=defaults.recovery,
                       help=f"restart cost after a failure in seconds "
                            f"(default {defaults.recovery:g})")


def topper_config(args, puppet, time_offset: float = 0.0, report=print):
    """The TOPPER configuration the options ask for, or None for PuPPET.
    A CSV failure trace is on the trace's clock, which the run shifts by
    ``time_offset`` (the workload's first submit time); ``report`` is
    given a line saying what the failure trace replays."""
    if args.resilience is None:
        if args.failure_trace is not None:
            raise ValueError("--failure-trace needs --resilience "
                             f"({', '.join(RESILIENCE)}): failures are off without it")
        return None
    from modules.failure_logs import read_failure_trace
    from nets.topper import TopperConfig

    settings = FaultTolerance(
        unit_nodes=args.unit_nodes, unit_mttf=args.mttf_days * DAY,
        method=RESILIENCE[args.resilience], checkpoint_scale=args.checkpoint_scale,
        recovery=args.recovery, redundancy=args.redundancy, communication=args.gamma,
        on_failure=args.on_failure)
    if puppet.machine_nodes % settings.unit_nodes:
        raise ValueError(f"the machine's {puppet.machine_nodes:,} nodes are not a whole "
                         f"number of {settings.unit_nodes:,}-node units: pass --unit-nodes "
                         "(1 for node failures)")
    failures = None
    if args.failure_trace is not None:
        replayed = read_failure_trace(args.failure_trace,
                                      puppet.machine_nodes // settings.unit_nodes,
                                      time_offset, args.failure_format)
        report(replayed.summary())
        failures = replayed.failures
    return TopperConfig(puppet, settings, failure_multiplier=args.failure_multiplier,
                        dvfs_failure_multiplier=args.dvfs_failure_multiplier,
                        failure_trace=failures)
