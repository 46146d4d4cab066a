"""``cpn sweep``: run a grid of PuPPET, TOPPER or DVFS thesis runs, resumably, in parallel.

A thin shell over :mod:`studies.sweep`: the grid comes from comma lists
(``--policy fcfs,wfp --capping none,block,wait,dvfs --cap 80%,60%,40MW``,
the options of ``cpn run`` under the same names, each taking a list;
with ``--model thesis``, ``--policy easy,upas --option wq_threshold=0,4,none``)
or a JSON file (``--grid FILE``, see :func:`studies.grids.grid_from_json`);
each run is stored as ``OUT/<key>.json`` and the whole as
``OUT/results.csv``.  ``cpn sweep --collect OUT`` only rebuilds the table.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from modules.dvfs_thesis.gears import IDLE_SCENARIOS
from modules.easy import ESTIMATES, POLICIES
from modules.resilience import system_mttf_hours
from modules.words import counted

from .capping import (CAP_MONTH_HELP, DEFAULT_CAP, CapSpec, add_capping_arguments, cap_month,
                      capping_methods, parse_cap, refuse_unread_options)
from .choices import MODELS, OVERRUNS, POWER_OPTIONS, THESIS_POLICIES
from .flags import flag
from .output_dir import writable_directory
from .resilience import (add_resilience_arguments, check_failure_options, describe_failures,
                         unit_nodes)
from .values import (Remembered, add_option, choice, comma_list, existing_file, fraction, given,
                     integer, job_numbers, non_negative_int, positive_float, positive_int,
                     trace_or_synthetic)
from .workload import SIZE_UNITS

#: Options of PuPPET and TOPPER runs only (``--model puppet``), by argparse name.
PUPPET_OPTIONS = ("month", "procs_per_node", "size_unit", "allocation_unit", "machine_nodes",
                  "power", "seed", "estimate", "capping", "cap", "cap_month", "wait_queue",
                  "max_wait", "alpha", "beta", "idle_fraction", "walltime_scale", "size_scale",
                  "resilience", "on_failure", "unit_nodes", "mttf_days", "system_mttf_hours",
                  "checkpoint_scale", "checkpoint_interval", "redundancy", "gamma",
                  "dvfs_failure_multiplier", "over_cap", "dvfs_admission", "overrun")
#: Options of DVFS thesis runs only (``--model thesis``); None when not given.
THESIS_OPTIONS = ("cpus", "jobs", "profile_seed", "profiles", "idle", "option")
#: Experiment fields that TOPPER's options set, when given, by argparse name.
FAILURE_AXES = {"on_failure": "on_failure", "checkpoint_scale": "checkpoint_scale",
                "checkpoint_interval": "checkpoint_interval_minutes", "redundancy": "redundancy",
                "gamma": "gamma", "dvfs_failure_multiplier": "dvfs_failure_multiplier"}


def parse_months(text: str):
    """``studies.workloads.parse_months``, imported only when a sweep is
    parsed; a bad list is refused with what a list is."""
    from studies.workloads import parse_months as parse

    try:
        return parse(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"months are a list (0,1,2 or 0-3), 'all' or 'none', not {text!r}") from None


def _default_trace(model: str) -> str | Path:
    """The trace a sweep runs when none is given: LLNL-Atlas for the DVFS
    thesis, else the synthetic month."""
    if model != "thesis":
        return "synthetic"
    from studies.workloads import ATLAS

    return ATLAS


def _option_axis(text: str) -> tuple[str, list]:
    """``NAME=V1,V2,...`` with each value a number, true, false, none or a word.

    >>> _option_axis("wq_threshold=0,4,none")
    ('wq_threshold', [0, 4, None])
    """
    name, equals, values = text.partition("=")
    if not equals or not name.strip() or not values.strip():
        raise argparse.ArgumentTypeError(f"an option axis is NAME=V1,V2,... not {text!r}")
    return name.strip(), [_value(item.strip()) for item in values.split(",") if item.strip()]


def _value(text: str):
    words = {"none": None, "null": None, "true": True, "false": False}
    if text.lower() in words:
        return words[text.lower()]
    for convert in (int, float):
        try:
            return convert(text)
        except ValueError:
            pass
    return text


def add_sweep_parser(subparsers) -> None:
    sweep = subparsers.add_parser(
        "sweep", help="run a grid of experiments (policy x capping x cap x alpha x ...)",
        description="Run every combination of the given values on the PuPPET model (or the "
                    "DVFS thesis' policies: --model thesis), on local processes or a Dask "
                    "cluster; store each run as OUT/<key>.json (a restarted sweep skips "
                    "those) and all of them as OUT/results.csv, with metrics normalised "
                    "(*_norm) to the uncapped run of the same policy (thesis: to EASY "
                    "without DVFS or budget).  The options mean what they mean in cpn run; "
                    "here each takes a comma list.",
        epilog="Examples: cpn sweep --trace "
               "../shared/data/swf/LLNL-Atlas-2006-2.1-cln.swf --month 0-3 --policy fcfs,wfp "
               "--capping block,wait --cap 80%,60%,40MW --out runs;  cpn sweep --model thesis "
               "--policy easy,pb_guided,max_job_perf --option budget_fraction=0.8,0.7,0.6 "
               "--out thesis_runs (LLNL-Atlas jobs 10001-15000 on 9,216 CPUs)")
    sweep.add_argument("--out", type=Path, default=Path("sweep"), metavar="DIR",
                       help="results directory (default sweep)")
    sweep.add_argument("--collect", type=Path, metavar="DIR",
                       help="only gather DIR's results into DIR/results.csv: the rows of "
                            "the grid given with it (--grid or grid options) first, in its "
                            "order, the others sorted by their fields")
    sweep.add_argument("--grid", type=existing_file, metavar="FILE",
                       help="JSON grid ({model, base, grid, experiments}); the workload and "
                            "grid options below then belong in the file; its runs kill a job "
                            "at its requested walltime, as --overrun clamp, unless it says "
                            "\"overrun\": \"keep\"")
    sweep.add_argument("--model", choices=MODELS, default="puppet",
                       help="puppet (default; TOPPER with --resilience) or thesis (the "
                            "DVFS thesis' policies, docs/dvfs_thesis.md)")
    _add_workload_options(sweep.add_argument_group("workload"))
    _add_model_options(sweep.add_argument_group("model (comma lists)"))
    capping = add_capping_arguments(sweep, axis=True)
    capping.add_argument("--cap-month", type=cap_month, metavar="MONTH", help=CAP_MONTH_HELP)
    add_resilience_arguments(sweep, axis=True)
    _add_thesis_options(sweep.add_argument_group(
        "the DVFS thesis (--model thesis; the thesis' portion of LLNL-Atlas by default)"))
    _add_execution_options(sweep.add_argument_group("execution"))
    sweep.set_defaults(func=command_sweep,
                       puppet_defaults={name: sweep.get_default(name) for name in PUPPET_OPTIONS})


def _add_workload_options(workload) -> None:
    workload.add_argument("--trace", type=trace_or_synthetic,
                          help="SWF trace, or 'synthetic' (default; thesis: "
                                          "LLNL-Atlas from ../shared/data)")
    workload.add_argument("--month", type=parse_months, default="none", action=Remembered,
                          help="30-day windows of the trace: a list (0,1,2 or 0-3), 'all', "
                               "or 'none' for the whole trace (default)")
    workload.add_argument("--procs-per-node", type=positive_int, metavar="PROCS",
                          help="processors per node (default: MaxProcs/MaxNodes, else 1)")
    workload.add_argument("--unit", choices=SIZE_UNITS, dest="size_unit",
                          help="what a job's size counts: nodes (default), or procs for a "
                               "machine whose processors are not a whole number of nodes, "
                               "as in cpn run (options that count nodes then count processors)")
    workload.add_argument("--allocation-unit", type=positive_int, default=1, metavar="NODES",
                          action=Remembered,
                          help="round job sizes up to this many nodes (default 1)")
    workload.add_argument("--machine-nodes", type=positive_int, metavar="NODES",
                          help="machine size in nodes (default: the trace header's MaxNodes)")
    add_option(workload, "--power", choice(POWER_OPTIONS), axis=True, default="drawn",
               metavar="{" + ",".join(POWER_OPTIONS) + "}",
               help="job power: drawn per user/group from Mira's per-rack distribution "
                    "(default), or a constant per node")
    add_option(workload, "--seed", non_negative_int, axis=True, default=0,
               help="seeds of the drawn job powers, the synthetic month, the simulator's "
                    "choices and the failures (default 0)")


def _add_model_options(model) -> None:
    model.add_argument("--policy", type=comma_list(choice(POLICIES + THESIS_POLICIES)),
                       help=f"PuPPET: {', '.join(POLICIES)} (default fcfs); thesis: "
                            f"{', '.join(THESIS_POLICIES)} (default easy)")
    add_option(model, "--estimate", choice(ESTIMATES), axis=True, default="requested",
               metavar="{" + ",".join(ESTIMATES) + "}",
               help="runtime the scheduler plans with (default requested)")
    add_option(model, "--overrun", choice(OVERRUNS), axis=True, default="clamp",
               metavar="{" + ",".join(OVERRUNS) + "}",
               help="a job past its requested walltime: clamp (killed at its limit, as "
                    "cpn run does; default) or keep (runs to its logged end, as the "
                    "studies' Python API does)")
    add_option(model, "--idle-fraction", fraction, axis=True, default=0.3,
               help="an idle node's share of its full power (default 0.3)")
    add_option(model, "--walltime-scale", positive_float, axis=True,
               help="multiply every job's runtime and walltime (TOPPER Fig. 16)")
    add_option(model, "--size-scale", positive_float, axis=True,
               help="multiply every job's nodes and power (TOPPER Fig. 17)")


def _add_thesis_options(thesis) -> None:
    thesis.add_argument("--cpus", type=positive_int, help="machine CPUs (default 9216)")
    thesis.add_argument("--jobs", type=job_numbers, metavar="FIRST-LAST",
                        help="job numbers of the trace (default 10001-15000, Table 3.4)")
    thesis.add_argument("--profile-seed", type=comma_list(integer),
                        help="seeds of the per-job p and beta draw (default 0)")
    thesis.add_argument("--profiles", help="CSV job_id,p,beta_comp instead of the draw")
    thesis.add_argument("--idle", type=comma_list(choice(IDLE_SCENARIOS)),
                        help="idle CPUs at the lowest gear (default) or drawing zero")
    thesis.add_argument("--option", type=_option_axis, action="append", metavar="NAME=VALUES",
                        help="a policy option and its values, e.g. wq_threshold=0,4,16,none "
                             "or budget_fraction=0.8,0.7; repeat for more axes; options of "
                             "another policy are ignored")


def _add_execution_options(run) -> None:
    run.add_argument("--workers", type=positive_int,
                     help="local worker processes (default: all cores)")
    run.add_argument("--scheduler", metavar="ADDRESS",
                     help="run on this Dask scheduler (tcp://host:8786) instead")
    run.add_argument("--dry-run", action="store_true", help="list the runs and stop")
    run.add_argument("--no-progress", action="store_true", help="show no progress bar")


def puppet_options_given(args) -> list[str]:
    """The options of PuPPET and TOPPER runs that the command line sets:
    typed (even with their default value) or away from their default."""
    return [name for name, default in args.puppet_defaults.items()
            if given(args, name) or getattr(args, name) != default]


def grid_options_given(args) -> list[str]:
    """The grid options (not ``--grid``) the command line sets."""
    return puppet_options_given(args) + [name for name in ("trace", "policy", *THESIS_OPTIONS)
                    if getattr(args, name) is not None]


def experiments_from_args(args, console=None):
    """The runs the options ask for; ``console`` is told which units fail."""
    from studies.experiment import Experiment
    from studies.grids import grid, grid_from_json, unique
    from studies.workloads import trace_months, trace_shape

    if args.grid is not None:
        given = grid_options_given(args)
        if given:
            raise ValueError(f"{flag(given[0])} cannot be combined with --grid: "
                             "put it in the grid file")
        # the file's PuPPET runs kill overruns as the flags do (--overrun's default)
        overrun, = args.puppet_defaults["overrun"]
        return grid_from_json(args.grid, defaults={"puppet": {"overrun": overrun}})
    if args.model == "thesis":
        return thesis_runs_from_args(args)
    given = [name for name in THESIS_OPTIONS if getattr(args, name) is not None]
    if given:
        raise ValueError(f"{flag(given[0])} applies to --model thesis only")
    methods = capping_methods(args.capping, args.cap)
    check_failure_options(args, methods)
    refuse_unread_options(args, methods)
    caps = args.cap or [parse_cap(DEFAULT_CAP)]
    if args.cap_month is not None and (set(methods) == {"none"}
                                       or all(cap.fraction is None for cap in caps)):
        raise ValueError("--cap-month needs a cap given as a share of the peak (--cap 70%)")
    base = Experiment(trace=args.trace or "synthetic", procs_per_node=args.procs_per_node,
                      allocation_unit=args.allocation_unit, machine_nodes=args.machine_nodes,
                      size_unit=args.size_unit)
    months = args.month
    if months == "all":
        months = list(range(trace_months(*trace_shape(base))))
    elif months == "none":
        months = [None]
    axes = {"month": months, "policy": args.policy or ["fcfs"], "estimate": args.estimate,
            "capping": methods, "l": args.wait_queue, "w_minutes": args.max_wait,
            "alpha": args.alpha, "beta": args.beta, "idle_fraction": args.idle_fraction,
            "power": args.power, "seed": args.seed, "over_cap": args.over_cap,
            "dvfs_admission": args.dvfs_admission, "overrun": args.overrun}
    for name in ("walltime_scale", "size_scale"):
        if getattr(args, name) is not None:
            axes[name] = getattr(args, name)
    if args.resilience is not None:
        axes.update(_failure_axes(args, base, console))
    return unique(run for cap in caps
                  for run in grid(base, **axes, **_cap_axes(cap, args.cap_month)))


def _cap_axes(cap: CapSpec, cap_month: int | None) -> dict[str, list]:
    """The Experiment fields of one cap: a share (of ``cap_month``'s peak) or watts."""
    if cap.fraction is not None:
        return {"cap_fraction": [cap.fraction], "cap_month": [cap_month]}
    return {"cap_watts": [cap.watts]}


def _failure_axes(args, base, console) -> dict[str, list]:
    """The Experiment fields of the failure options, on ``base``'s machine."""
    from studies.workloads import trace_window

    machine = base.machine_nodes or trace_window(base).machine_nodes
    unit = unit_nodes(args, machine)
    if console is not None:
        console.print(describe_failures(args, machine, unit))
    axes = {"resilience": args.resilience}
    axes.update({field: getattr(args, name) for name, field in FAILURE_AXES.items()
                 if getattr(args, name) is not None})
    if args.unit_nodes is not None:
        axes["unit_nodes"] = [args.unit_nodes]
    if args.mttf_days is not None:
        units = machine // unit
        axes["system_mttf_hours"] = [system_mttf_hours(days, units) for days in args.mttf_days]
    elif args.system_mttf_hours is not None:
        axes["system_mttf_hours"] = args.system_mttf_hours
    return axes


def thesis_runs_from_args(args):
    """The thesis grid: policies x profile seeds x idle scenarios x options."""
    from studies.grids import grid
    from studies.thesis_run import ThesisRun
    from studies.workloads import ATLAS

    puppet_options = puppet_options_given(args)
    if puppet_options:
        raise ValueError(f"{flag(puppet_options[0])} applies to --model puppet only")
    first, last = args.jobs or (10_001, 15_000)
    base = ThesisRun(args.trace or ATLAS, machine_cpus=args.cpus or 9216, first_job=first,
                     last_job=last, profiles=args.profiles)
    axes = {"policy": args.policy or ["easy"], "profile_seed": args.profile_seed or [0],
            "idle": args.idle or ["lowest_gear"]}
    for name, values in args.option or []:
        if name in axes:
            raise ValueError(f"--option {name} given twice (or use --{name.replace('_', '-')})")
        axes[name] = values
    return grid(base, **axes)


def command_sweep(args) -> int:
    from rich.console import Console

    from studies.grids import plan
    from studies.results import collect
    from studies.sweep import dask_client, run_sweep
    from studies.workloads import refuse_cobalt_log

    console = Console()
    if args.collect is not None:
        declared = (args.grid is not None or args.model != "puppet"
                    or bool(grid_options_given(args)))
        frame = collect(args.collect, runs=experiments_from_args(args) if declared else None)
        if frame.empty:
            raise ValueError(f"no results in {args.collect}")
        console.print(f"{len(frame)} results gathered in {args.collect / 'results.csv'}")
        gathered = set(frame["key"])
        skipped = sorted(path.name for path in args.collect.glob("*.json")
                         if not path.name.startswith(".") and path.stem not in gathered)
        if skipped:  # cut short, or not a result: said, not dropped in silence
            console.print(f"[yellow]skipped {len(skipped)} file(s) that hold no result: "
                          f"{', '.join(skipped[:5])}{' ...' if len(skipped) > 5 else ''}[/]")
        return 0
    trace = args.trace or _default_trace(args.model)
    if trace != "synthetic" and args.grid is None:
        if not Path(trace).exists():
            raise ValueError(f"no trace at {trace}")
        refuse_cobalt_log(trace)
    experiments = experiments_from_args(args, console)
    writable_directory(args.out, "--out")
    runs = plan(experiments)
    console.print(f"{counted(len(experiments), 'experiment')}, {counted(len(runs), 'run')} "
                  f"with their baselines and prerequisites; results in {args.out}/")
    if args.dry_run:
        for run in runs:
            console.print(f"  {run.key()}  {run.label()}")
        return 0
    client = dask_client(args.scheduler) if args.scheduler else None
    try:
        summary = run_sweep(experiments, args.out, workers=args.workers, client=client,
                            progress=not args.no_progress)
    finally:
        if client is not None:
            client.close()
    console.print(f"{len(summary.ran)} runs done, {len(summary.skipped)} already there, "
                  f"{len(summary.failed)} failed")
    if summary.outdated_note():
        console.print(summary.outdated_note())
    for key, error in summary.failed.items():
        console.print(f"[red]  {key}: {error}[/]")
    if summary.results_csv is not None:
        console.print(f"table: {summary.results_csv}")
        _say_left_out(console, summary.results_csv)
    if summary.interrupted:
        console.print("[yellow]interrupted: finished runs are kept; run the same command "
                      "again to do the rest[/]")
        return 130
    return 1 if summary.failed else 0


def _say_left_out(console, results_csv) -> None:
    """Jobs some runs left out (over the power cap alone, or lines the trace
    reader rejected: a job larger than the machine, a repeated id) never
    ran: say so, as cpn run lists them; and jobs that ran with fewer
    replicas than --redundancy, as cpn run says."""
    import pandas as pd

    from studies.results import left_out_note, partial_replication_note

    results = pd.read_csv(results_csv)
    note = left_out_note(results)
    if note:
        console.print(f"[yellow]{note} (cpn run lists the jobs)[/]", highlight=False)
    partial = partial_replication_note(results)
    if partial:
        console.print(f"[yellow]{partial}[/]", highlight=False)


def main(argv=None) -> int:  # pragma: no cover - convenience
    from .main import main as cpn_main
    return cpn_main(["sweep", *(argv if argv is not None else sys.argv[1:])])
