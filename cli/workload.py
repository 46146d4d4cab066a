"""Turning command-line options into a workload with job power."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from .values import Remembered, existing_file, positive_int

if TYPE_CHECKING:  # the commands import them: the parsers alone need no pandas
    from modules.workload import Workload

#: What a job's size counts (``modules.workload.SIZE_UNITS``, not imported here:
#: the parsers must not load pandas).
SIZE_UNITS = ("nodes", "procs")
#: Formats ``--trace`` may be in.
TRACE_FORMATS = ("auto", "swf", "cobalt")


def add_trace_arguments(parser: argparse.ArgumentParser, required: bool = False) -> None:
    """The trace and how its jobs map onto the machine (``read_swf``)."""
    parser.add_argument("--trace", type=existing_file, required=required,
                        help="SWF trace (.swf or .swf.gz) or Cobalt accounting log (Mira's)"
                             + ("" if required else
                                "; default: the built-in synthetic Mira month"))
    parser.add_argument("--format", choices=TRACE_FORMATS, default="auto", dest="trace_format",
                        help="the trace's format: detected from its first line (default), "
                             "or swf, or cobalt")
    parser.add_argument("--machine-nodes", type=positive_int, metavar="NODES",
                        help="machine size in nodes (processors with --unit procs; default: "
                             "the trace header's MaxNodes, or MaxProcs; on a Cobalt log "
                             "Mira's 49,152, which must be the nodes of --blocks)")
    # the SWF reader's own options: refused on a Cobalt log when given, even
    # with their defaults (Remembered; cli.mira.refuse_swf_options_on_cobalt)
    parser.add_argument("--procs-per-node", type=positive_int, metavar="PROCS",
                        action=Remembered,
                        help="processors per node (default: MaxProcs/MaxNodes, else 1)")
    parser.add_argument("--unit", choices=SIZE_UNITS, default="nodes", dest="size_unit",
                        action=Remembered,
                        help="what a job's size counts: nodes, or procs for a machine whose "
                             "processors are not a whole number of nodes (the machine is "
                             "then MaxProcs processors, and every option that counts nodes "
                             "counts processors)")
    parser.add_argument("--allocation-unit", type=positive_int, default=1, metavar="NODES",
                        action=Remembered,
                        help="round job sizes up to this many nodes (512: Blue Gene "
                             "midplanes; default 1)")
    parser.add_argument("--unknown-walltime", choices=("runtime", "reject"),
                        default="runtime", action=Remembered,
                        help="a job whose requested time is unknown (-1): plan with its "
                             "run time (default), or reject it as CQSim does")
    parser.add_argument("--oversized", choices=("reject", "clip"), default="reject",
                        action=Remembered,
                        help="a job larger than the machine: reject it (default), or run "
                             "it on the whole machine")


def read_trace(args) -> Workload:
    """The trace named by ``--trace``, read as the options say: a Cobalt
    log (``--format cobalt``, or detected) or SWF."""
    from modules.cobalt_log import MIRA_NODES, is_cobalt_log, read_cobalt_log
    from modules.swf import read_swf

    from .mira import refuse_swf_options_on_cobalt

    trace_format = getattr(args, "trace_format", "auto")
    if trace_format == "cobalt" or (trace_format == "auto" and is_cobalt_log(args.trace)):
        refuse_swf_options_on_cobalt(args)
        return read_cobalt_log(args.trace, machine_nodes=args.machine_nodes or MIRA_NODES)
    return read_swf(args.trace, machine_nodes=args.machine_nodes,
                    procs_per_node=args.procs_per_node, allocation_unit=args.allocation_unit,
                    size_unit=args.size_unit, unknown_walltime=args.unknown_walltime,
                    oversized=args.oversized)


def load_workload(args) -> Workload:
    """The trace named by ``--trace`` (or the built-in synthetic month),
    with each job's power set as ``--power`` says, without the schedule the
    trace records (``log``): a run never reads it (a Cobalt log's replay
    reads ``CobaltWorkload.starts``), and it would hold 48 MB a million jobs
    through the run (``cpn validate`` reads it)."""
    from modules.power_profile import (assign_constant_power, assign_csv_power,
                                       assign_rack_power, scaled_to_node)
    from modules.tables import Columns, replace  # passes the tables on unread: no pandas
    from modules.workload import LOG_COLUMNS

    if args.trace is None:
        from modules.synthetic import synthetic_month
        workload = synthetic_month(seed=args.seed).starting_at_zero()
        if args.power == "drawn":  # the synthetic month comes with drawn powers
            return replace(workload, jobs=scaled_to_node(workload.jobs, args.node_watts))
    else:
        workload = replace(read_trace(args), log=Columns.from_rows([], LOG_COLUMNS))
        refuse_nothing_to_run(workload)
    if args.power == "constant":
        jobs = assign_constant_power(workload.jobs, args.node_watts)
    elif args.power == "csv":  # with --power-csv (cpn run's checks)
        jobs = assign_csv_power(workload.jobs, args.power_csv)
    else:
        jobs = scaled_to_node(assign_rack_power(workload.jobs, seed=args.seed), args.node_watts)
    return replace(workload, jobs=jobs)


def refuse_nothing_to_run(workload: Workload) -> None:
    """Stop before any output is written when the trace, or the run's cap,
    leaves no job to simulate: an output directory of empty results would
    look like a run."""
    if workload.jobs:
        return
    if not workload.jobs_read:
        raise ValueError(f"{workload.path}: the trace has no jobs (no job line after "
                         "its header), nothing to simulate")
    reasons = ", ".join(f"{reason}: {count:,}"
                        for reason, count in workload.rejection_counts().items())
    whose = f"{workload.path}: none of the trace's" if workload.path else "none of the"
    raise ValueError(f"{whose} {workload.jobs_read:,} jobs can run ({reasons}), nothing "
                     "to simulate")


def check_power_options(args) -> None:
    """``--power csv`` reads ``--power-csv``, which nothing else reads."""
    if args.power == "csv" and args.power_csv is None:
        raise ValueError("--power csv needs --power-csv FILE (columns job_id,power)")
    if args.power != "csv" and args.power_csv is not None:
        raise ValueError(f"--power-csv applies to --power csv only, not to {args.power}")
