"""Turning command-line options into a workload with job power."""

from __future__ import annotations

from dataclasses import replace

from modules.power_profile import assign_constant_power, assign_csv_power, assign_rack_power
from modules.swf import Workload, read_swf


def load_workload(args) -> Workload:
    """The trace named by ``--trace`` (or the built-in synthetic month),
    with each job's power set as ``--power`` says."""
    if args.trace is None:
        from modules.synthetic import synthetic_month
        workload = starting_at_zero(synthetic_month(seed=args.seed))
        if args.power == "drawn":
            return workload  # the synthetic month comes with drawn powers
    else:
        workload = read_swf(args.trace, machine_nodes=args.machine_nodes,
                            procs_per_node=args.procs_per_node,
                            allocation_unit=args.allocation_unit)
        _refuse_nothing_to_run(workload)
    if args.power == "constant":
        jobs = assign_constant_power(workload.jobs, args.node_watts)
    elif args.power == "csv":
        if args.power_csv is None:
            raise ValueError("--power csv needs --power-csv FILE (columns job_id,power)")
        jobs = assign_csv_power(workload.jobs, args.power_csv)
    else:
        jobs = assign_rack_power(workload.jobs, seed=args.seed)
    return replace(workload, jobs=jobs)


def _refuse_nothing_to_run(workload: Workload) -> None:
    """Stop before any output is written when the trace leaves no job to
    simulate: an output directory of empty results would look like a run."""
    if workload.jobs:
        return
    if not workload.jobs_read:
        raise ValueError(f"{workload.path}: the trace has no jobs (no job line after "
                         "its header), nothing to simulate")
    reasons = ", ".join(f"{reason}: {count:,}"
                        for reason, count in workload.rejection_counts().items())
    raise ValueError(f"{workload.path}: none of the trace's {workload.jobs_read:,} jobs "
                     f"can run ({reasons}), nothing to simulate")


def starting_at_zero(workload: Workload) -> Workload:
    """The workload with its first submit at the clock's zero, where a run
    and its power series begin, as ``read_swf`` shifts a trace (the shift
    joins ``time_offset``, so the times shown stay the workload's own)."""
    first = min((job.st for job in workload.jobs), default=0.0)
    if not first:
        return workload
    return replace(workload, jobs=[job._replace(st=job.st - first) for job in workload.jobs],
                   time_offset=workload.time_offset + first)
