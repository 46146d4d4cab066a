"""Turning command-line options into TOPPER's failures and resilience.

Without ``--resilience`` nothing fails and a run is PuPPET (and the
failure options are refused: they would mean nothing).  With it, compute
units fail (drawn, or replayed from ``--failure-trace``) and jobs protect
themselves by checkpoint/restart, by replication, or not at all
(``restart``: a failure loses everything since the job started).  ``cpn
run`` and ``cpn sweep`` share these options, their defaults (those of
:class:`studies.experiment.Experiment`) and their checks.
"""

from __future__ import annotations

import argparse

from modules.resilience import ON_FAILURE, RACK_NODES, FaultTolerance, default_unit_nodes

from .choices import FAILURE_FORMATS, MIRA_SYSTEM_MTTF_HOURS
from .values import add_option, at_least, choice, existing_file, fraction, \
    non_negative_float, positive_float, positive_int, refuse_unread

#: The command line's names for the methods (FaultTolerance.method).
RESILIENCE = {"checkpoint": "checkpoint", "replication": "replication", "restart": "none"}
#: Options that act only with failures, by their argparse names.
FAILURE_OPTIONS = ("on_failure", "unit_nodes", "mttf_days", "system_mttf_hours",
                   "checkpoint_scale", "checkpoint_interval", "redundancy", "gamma",
                   "dvfs_failure_multiplier", "failure_trace", "failure_format",
                   "failure_multiplier", "recovery")
DAY = 86_400.0
#: Failure options only some methods read (FaultTolerance.method), by
#: argparse name: replication checkpoints too (eq. 4).
METHOD_OPTIONS = {"checkpoint_scale": ("checkpoint", "replication"),
                  "checkpoint_interval": ("checkpoint", "replication"),
                  "redundancy": ("replication",), "gamma": ("replication",)}
#: Options that scale drawn failure rates: a replayed trace has none.
RATE_MULTIPLIERS = ("failure_multiplier", "dvfs_failure_multiplier")


def resilience_method(text: str) -> str:
    """``checkpoint``, ``replication`` or ``restart`` -> the method's name."""
    if text == "none":
        raise argparse.ArgumentTypeError(
            "'none' is ambiguous: write restart (units fail; a failed job starts again "
            "from scratch) or leave --resilience out (nothing fails)")
    if text not in RESILIENCE:
        raise argparse.ArgumentTypeError(f"{text!r} is not one of {', '.join(RESILIENCE)}")
    return RESILIENCE[text]


def add_resilience_arguments(parser: argparse.ArgumentParser, *, axis: bool = False) -> None:
    """The failure options of ``cpn run``, or with ``axis`` of ``cpn sweep``
    (comma lists; a failure trace, uniform rate multiplier and recovery
    time are not fields of an experiment, so they are left out)."""
    defaults = FaultTolerance()
    group = parser.add_argument_group(
        "failures and resilience (TOPPER" + ("; comma lists" if axis else "") + ")",
        "compute units fail; jobs checkpoint, replicate, or restart from scratch")
    add_option(group, "--resilience", resilience_method, axis=axis,
               metavar="{" + ",".join(RESILIENCE) + "}",
               help="turn failures on, with this protection: checkpoint/restart, "
                    "replication, or none (restart: a failed job starts again from "
                    "scratch); default: nothing fails")
    add_option(group, "--on-failure", choice(ON_FAILURE), axis=axis,
               metavar="{" + ",".join(ON_FAILURE) + "}",
               help=f"a failed job keeps its units and rolls back at once, or is requeued "
                    f"(default {defaults.on_failure})")
    group.add_argument("--unit-nodes", type=positive_int, metavar="NODES",
                       help="nodes per compute unit, the unit of failure and allocation "
                            f"(default: {RACK_NODES:,}-node racks on a machine made of them, "
                            "else single nodes)")
    add_option(group, "--mttf-days", positive_float, axis=axis, metavar="DAYS",
               help="a unit's mean time to failure, in days (default: the machine fails "
                    f"every {MIRA_SYSTEM_MTTF_HOURS:g} h, as Mira, whose "
                    f"{RACK_NODES:,}-node racks fail every {defaults.unit_mttf / DAY:g} days)")
    # The former spelling of the failure rate, for the whole machine.
    add_option(group, "--system-mttf-hours", positive_float, axis=axis, help=argparse.SUPPRESS)
    add_option(group, "--checkpoint-scale", non_negative_float, axis=axis,
               help="scale the checkpoint overheads O_c (600 s / 1,200 s; TOPPER Fig. 12; "
                    f"default {defaults.checkpoint_scale:g})")
    add_option(group, "--checkpoint-interval", positive_float, axis=axis, metavar="MINUTES",
               help="checkpoint every MINUTES of compute, as a site's policy does "
                    "(default: Daly's optimal interval for each job, TOPPER eq. 2)")
    add_option(group, "--redundancy", at_least(1), axis=axis,
               help=f"replication degree r (default {defaults.redundancy:g}; fractional: "
                    "partial replication)")
    add_option(group, "--gamma", fraction, axis=axis,
               help="replication's communication share: the fraction of a job's time "
                    "spent communicating, within [0, 1] (eq. 4 adds rt * gamma * (r - 1); "
                    f"TOPPER Fig. 14: 0.1-0.7; default {defaults.communication:g})")
    add_option(group, "--dvfs-failure-multiplier", positive_float, axis=axis,
               help="scale failure rates while DVFS runs below nominal frequency "
                    "(2: DVFS-double; default 1)")
    if axis:
        return
    group.add_argument("--failure-trace", type=existing_file,
                       help="replay failures from a CSV (time,unit; times on the trace's "
                            "clock) or from Mira's RAS log (.cor, from its first rack "
                            "failure; 48 units) instead of drawing them")
    group.add_argument("--failure-format", choices=FAILURE_FORMATS,
                       help="format of --failure-trace (default: told by its content)")
    group.add_argument("--failure-multiplier", type=positive_float,
                       help="scale every unit's failure rate (default 1)")
    group.add_argument("--recovery", type=non_negative_float, metavar="SECONDS",
                       help=f"restart cost after a failure, in seconds "
                            f"(default {defaults.recovery:g})")


def check_one_failure_rate(args) -> None:
    """Refuse a unit's MTTF and the machine's together: they say one thing."""
    if args.mttf_days is not None and args.system_mttf_hours is not None:
        raise ValueError("give --mttf-days (a unit's) or --system-mttf-hours (the "
                         "machine's), not both")


def check_failure_options(args, cappings: list[str]) -> None:
    """Refuse failure options without failures, options that none of the
    chosen methods (or ``cappings``) reads, and two failure rates."""
    check_one_failure_rate(args)
    given = [name for name in FAILURE_OPTIONS if getattr(args, name, None) is not None]
    if args.resilience is None:
        if given:
            raise ValueError(f"{_flag(given[0])} needs --resilience "
                             f"({', '.join(RESILIENCE)}): without it nothing fails")
        return
    methods = args.resilience if isinstance(args.resilience, list) else [args.resilience]
    typed = {method: text for text, method in RESILIENCE.items()}  # restart for none
    refuse_unread(given, METHOD_OPTIONS, methods, "--resilience", spell=typed.__getitem__)
    if getattr(args, "dvfs_latency", 0):  # nets.topper refused it, once the trace was read
        raise ValueError("--dvfs-latency is not modelled under --resilience: TOPPER changes "
                         "a level at no cost")
    if "dvfs_failure_multiplier" in given and "dvfs" not in cappings:
        raise ValueError("--dvfs-failure-multiplier applies to --capping dvfs only: it scales "
                         "failure rates while DVFS runs below nominal frequency")
    _check_failure_trace_options(args, given)


def _check_failure_trace_options(args, given: list[str]) -> None:
    """A failure format needs a failure trace; a rate multiplier needs drawn failures."""
    if "failure_format" in given and "failure_trace" not in given:
        raise ValueError("--failure-format applies to --failure-trace only: without it "
                         "failures are drawn")
    multiplied = [name for name in RATE_MULTIPLIERS if name in given]
    if multiplied and "failure_trace" in given:
        raise ValueError(f"{_flag(multiplied[0])} scales the rate of drawn failures: those "
                         "replayed from --failure-trace have none")


def _flag(name: str) -> str:
    return "--" + name.replace("_", "-")


def unit_nodes(args, machine_nodes: int) -> int:
    """``--unit-nodes``, else the machine's default unit; whole units must
    make the machine."""
    unit = args.unit_nodes or default_unit_nodes(machine_nodes)
    if machine_nodes % unit:
        raise ValueError(f"the machine's {machine_nodes:,} nodes are not a whole number of "
                         f"{unit:,}-node units: pass --unit-nodes (1 for node failures)")
    return unit


def describe_failures(args, machine_nodes: int, unit: int,
                      unit_mttf: float | None = None) -> str:
    """One line saying which units fail (and whether by default) and, given
    a unit's MTTF in seconds, how often."""
    units = machine_nodes // unit
    node = "processor" if getattr(args, "size_unit", None) == "procs" else "node"  # --unit
    text = (f"failures: {units:,} unit{'s' if units > 1 else ''} of {unit:,} "
            f"{node}{'s' if unit > 1 else ''}")
    if args.unit_nodes is None:
        text += (f" (by default {RACK_NODES:,}-{node} racks on a machine made of them, else "
                 f"single {node}s; --unit-nodes to choose)")
    if unit_mttf is not None:
        text += (f", each failing every {unit_mttf / DAY:,.4g} days on average (the machine "
                 f"every {unit_mttf / units / 3600:,.4g} h)")
    return text


def describe_topper(args, model) -> str:
    """:func:`describe_failures` of ``cpn run``'s TOPPER configuration, and
    a fixed checkpoint interval.  A replayed failure trace gives the
    failures; the MTTF still plans the checkpoints (Daly's interval), which
    is said, so that --mttf-days beside a trace is not taken for ignored."""
    drawn, settings = model.failure_trace is None, model.resilience
    text = describe_failures(args, model.puppet.machine_nodes, settings.unit_nodes,
                             settings.unit_mttf if drawn else None)
    if settings.checkpoint_interval is not None:
        text += f"; checkpoints every {settings.checkpoint_interval / 60:,.4g} min"
    elif not drawn and settings.checkpoints:
        text += (f"; checkpoints at Daly's interval for a unit MTTF of "
                 f"{settings.unit_mttf / DAY:,.4g} days")
    return text


def describe_partial_replication(metrics: dict, model) -> str | None:
    """The line saying how many jobs were too large for r full replicas on
    the machine and ran with the replicas that fit (``plan_job``): their
    degree is not the --redundancy asked for.  None when there were none."""
    from modules.words import counted

    count = metrics.get("partially_replicated_jobs")
    if not count:
        return None
    return (f"{counted(count, 'job')} too large for "
            f"{model.resilience.redundancy:g} full replicas on the machine's "
            f"{model.units:,} units ran with partial replication, the replicas that fit "
            "(partially_replicated_jobs in metrics.json)")


def topper_config(args, puppet, time_offset: float = 0.0, report=print):
    """The TOPPER configuration the options ask for, or None for PuPPET.
    A failure trace is on the trace's clock, which the run shifts by
    ``time_offset`` (the workload's first submit time); ``report`` is
    given a line saying what the failure trace replays; the options have
    passed :func:`check_failure_options`."""
    if args.resilience is None:
        return None
    from modules.failure_logs import read_failure_trace
    from nets.topper import TopperConfig

    unit = unit_nodes(args, puppet.machine_nodes)
    units = puppet.machine_nodes // unit
    if args.mttf_days is not None:
        unit_mttf = args.mttf_days * DAY
    else:
        unit_mttf = (args.system_mttf_hours or MIRA_SYSTEM_MTTF_HOURS) * 3600 * units
    interval = args.checkpoint_interval  # minutes
    given = {name: value for name, value in (
        ("checkpoint_scale", args.checkpoint_scale), ("recovery", args.recovery),
        ("redundancy", args.redundancy), ("communication", args.gamma),
        ("on_failure", args.on_failure),
        ("checkpoint_interval", None if interval is None else interval * 60)) if value is not None}
    settings = FaultTolerance(unit_nodes=unit, unit_mttf=unit_mttf, method=args.resilience,
                              **given)
    trace = None
    if args.failure_trace is not None:
        replayed = read_failure_trace(args.failure_trace, units, time_offset,
                                      args.failure_format)
        report(replayed.summary())
        trace = replayed.felt
    return TopperConfig(puppet, settings, failure_multiplier=args.failure_multiplier or 1.0,
                        dvfs_failure_multiplier=args.dvfs_failure_multiplier or 1.0,
                        failure_trace=trace)
