"""``cpn sweep``: run a grid of PuPPET, TOPPER or DVFS thesis runs, resumably, in parallel.

A thin shell over :mod:`studies.sweep`: the grid comes from comma lists
(``--policy fcfs,wfp --capping none,block,wait,dvfs --cap 0.8,0.6,0.4``;
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
from studies.grids import MODELS
from studies.thesis_run import POLICIES as THESIS_POLICIES
from studies.workloads import ATLAS, parse_months

from .values import job_numbers

#: Options of PuPPET and TOPPER runs only (``--model puppet``).
PUPPET_OPTIONS = ("month", "procs_per_node", "allocation_unit", "machine_nodes", "power",
                  "seed", "estimate", "capping", "cap", "cap_watts", "cap_month", "l", "w",
                  "alpha", "beta", "idle_fraction", "walltime_scale", "size_scale",
                  "resilience", "on_failure", "unit_nodes", "system_mttf_hours",
                  "checkpoint_scale", "redundancy", "gamma", "dvfs_failure_multiplier")
#: Options of DVFS thesis runs only (``--model thesis``); None when not given.
THESIS_OPTIONS = ("cpus", "jobs", "profile_seed", "profiles", "idle", "option")


def _list(convert):
    def parse(text: str):
        try:
            return [convert(item.strip()) for item in text.split(",") if item.strip()]
        except ValueError as error:
            raise argparse.ArgumentTypeError(str(error)) from None
    return parse


def _choices(allowed):
    def check(item: str) -> str:
        if item not in allowed:
            raise ValueError(f"{item!r} is not one of {', '.join(allowed)}")
        return item
    return check


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
    from modules.resilience import METHODS, ON_FAILURE
    from studies.experiment import CAPPINGS, POWER_OPTIONS

    sweep = subparsers.add_parser(
        "sweep", help="run a grid of experiments (policy x capping x cap x alpha x ...)",
        description="Run every combination of the given values on the PuPPET model (or the "
                    "DVFS thesis' policies: --model thesis), on local processes or a Dask "
                    "cluster; store each run as OUT/<key>.json (a restarted sweep skips "
                    "those) and all of them as OUT/results.csv, with metrics normalised "
                    "(*_norm) to the uncapped run of the same policy (thesis: to EASY "
                    "without DVFS or budget).",
        epilog="Lists are comma-separated.  Examples: cpn sweep --trace "
               "../shared/data/swf/LLNL-Atlas-2006-2.1-cln.swf --month 0-3 --policy fcfs,wfp "
               "--capping block,wait --cap 0.7 --out runs;  cpn sweep --model thesis "
               "--policy easy,pb_guided,max_job_perf --option budget_fraction=0.8,0.7,0.6 "
               "--out thesis_runs (LLNL-Atlas jobs 10001-15000 on 9,216 CPUs)")
    sweep.add_argument("--out", type=Path, default=Path("sweep"), help="results directory")
    sweep.add_argument("--collect", type=Path, metavar="DIR",
                       help="only gather DIR's results into DIR/results.csv: the rows of "
                            "the grid given with it (--grid or grid options) first, in its "
                            "order, the others sorted by their fields")
    sweep.add_argument("--grid", type=Path, metavar="FILE",
                       help="JSON grid ({model, base, grid, experiments}); the workload and "
                            "grid options below then belong in the file")
    sweep.add_argument("--model", choices=tuple(MODELS), default="puppet",
                       help="puppet (default; TOPPER with --resilience) or thesis (the "
                            "DVFS thesis' policies, docs/dvfs_thesis.md)")
    workload = sweep.add_argument_group("workload")
    workload.add_argument("--trace", help="SWF trace, or 'synthetic' (default; thesis: "
                                          "LLNL-Atlas from ../shared/data)")
    workload.add_argument("--month", type=parse_months, default="none",
                          help="30-day windows of the trace: a list (0,1,2 or 0-3), 'all', "
                               "or 'none' for the whole trace (default)")
    workload.add_argument("--procs-per-node", type=int)
    workload.add_argument("--allocation-unit", type=int, default=1)
    workload.add_argument("--machine-nodes", type=int)
    workload.add_argument("--power", type=_list(_choices(POWER_OPTIONS)), default=["drawn"])
    workload.add_argument("--seed", type=_list(int), default=[0])
    model = sweep.add_argument_group("model (comma lists)")
    model.add_argument("--policy", type=_list(_choices(POLICIES + THESIS_POLICIES)),
                       help=f"PuPPET: {', '.join(POLICIES)} (default fcfs); thesis: "
                            f"{', '.join(THESIS_POLICIES)} (default easy)")
    model.add_argument("--estimate", type=_list(_choices(ESTIMATES)), default=["requested"])
    model.add_argument("--capping", type=_list(_choices(CAPPINGS)), default=["none"])
    model.add_argument("--cap", type=_list(float), metavar="FRACTIONS",
                       help="caps as fractions of the uncapped run's peak (default 0.7)")
    model.add_argument("--cap-watts", type=_list(float), metavar="WATTS",
                       help="caps in watts (instead of --cap)")
    model.add_argument("--cap-month", type=int,
                       help="take the peak of this month's uncapped run as the reference "
                            "of --cap for every month (the paper: January)")
    model.add_argument("--l", type=_list(int), default=[10], help="WAIT: wait queue length")
    model.add_argument("--w", type=_list(float), default=[500.0],
                       help="WAIT: maximum wait, minutes")
    model.add_argument("--alpha", type=_list(float), default=[2.0], help="DVFS: P ~ f^alpha")
    model.add_argument("--beta", type=_list(float), default=[0.5], help="DVFS: t ~ 1/f^beta")
    model.add_argument("--idle-fraction", type=_list(float), default=[0.3])
    model.add_argument("--walltime-scale", type=_list(float),
                       help="multiply every job's runtime and walltime (TOPPER Fig. 16)")
    model.add_argument("--size-scale", type=_list(float),
                       help="multiply every job's nodes and power (TOPPER Fig. 17)")
    topper = sweep.add_argument_group(
        "failures and resilience (TOPPER; comma lists; default: no failures)")
    topper.add_argument("--resilience", type=_list(_choices(METHODS)),
                        help="checkpoint, replication, or none (restart from scratch)")
    topper.add_argument("--on-failure", type=_list(_choices(ON_FAILURE)),
                        help="a failed job keeps its units (default) or is requeued")
    topper.add_argument("--unit-nodes", type=int,
                        help="nodes per compute unit (default: 1,024-node racks on a "
                             "machine made of them, else single nodes)")
    topper.add_argument("--system-mttf-hours", type=_list(float),
                        help="the whole machine's mean time to failure (default: Mira's "
                             "46.45 h)")
    topper.add_argument("--checkpoint-scale", type=_list(float), help="scale O_c (Fig. 12)")
    topper.add_argument("--redundancy", type=_list(float), help="replication degree r")
    topper.add_argument("--gamma", type=_list(float),
                        help="replication's communication/computation ratio")
    topper.add_argument("--dvfs-failure-multiplier", type=_list(float),
                        help="failure rate multiplier below nominal frequency under DVFS")
    thesis = sweep.add_argument_group(
        "the DVFS thesis (--model thesis; the thesis' portion of LLNL-Atlas by default)")
    thesis.add_argument("--cpus", type=int, help="machine CPUs (default 9216)")
    thesis.add_argument("--jobs", type=job_numbers, metavar="FIRST-LAST",
                        help="job numbers of the trace (default 10001-15000, Table 3.4)")
    thesis.add_argument("--profile-seed", type=_list(int),
                        help="seeds of the per-job p and beta draw (default 0)")
    thesis.add_argument("--profiles", help="CSV job_id,p,beta_comp instead of the draw")
    thesis.add_argument("--idle", type=_list(_choices(IDLE_SCENARIOS)),
                        help="idle CPUs at the lowest gear (default) or drawing zero")
    thesis.add_argument("--option", type=_option_axis, action="append", metavar="NAME=VALUES",
                        help="a policy option and its values, e.g. wq_threshold=0,4,16,none "
                             "or budget_fraction=0.8,0.7; repeat for more axes; options of "
                             "another policy are ignored")
    run = sweep.add_argument_group("execution")
    run.add_argument("--workers", type=int, help="local worker processes (default: all cores)")
    run.add_argument("--scheduler", metavar="ADDRESS",
                     help="run on this Dask scheduler (tcp://host:8786) instead")
    run.add_argument("--dry-run", action="store_true", help="list the runs and stop")
    run.add_argument("--no-progress", action="store_true")
    sweep.set_defaults(func=command_sweep,
                       puppet_defaults={name: sweep.get_default(name) for name in PUPPET_OPTIONS})


def grid_options_given(args) -> list[str]:
    """The grid options (not ``--grid``) the command line sets."""
    given = [name for name, default in args.puppet_defaults.items()
             if getattr(args, name) != default]
    return given + [name for name in ("trace", "policy", *THESIS_OPTIONS)
                    if getattr(args, name) is not None]


def experiments_from_args(args):
    from studies.experiment import Experiment
    from studies.grids import grid, grid_from_json
    from studies.workloads import trace_months

    if args.grid is not None:
        given = grid_options_given(args)
        if given:
            raise ValueError(f"--{given[0].replace('_', '-')} cannot be combined with --grid: "
                             "put it in the grid file")
        return grid_from_json(args.grid)
    if args.model == "thesis":
        return thesis_runs_from_args(args)
    given = [name for name in THESIS_OPTIONS if getattr(args, name) is not None]
    if given:
        raise ValueError(f"--{given[0].replace('_', '-')} applies to --model thesis only")
    if args.cap is not None and args.cap_watts is not None:
        raise ValueError("give --cap (fractions) or --cap-watts, not both")
    base = Experiment(trace=args.trace or "synthetic", procs_per_node=args.procs_per_node,
                      allocation_unit=args.allocation_unit, machine_nodes=args.machine_nodes)
    months = args.month
    if months == "all":
        months = list(range(trace_months(base.trace, args.procs_per_node,
                                         args.allocation_unit, args.machine_nodes)))
    elif months == "none":
        months = [None]
    axes = {"month": months, "policy": args.policy or ["fcfs"], "estimate": args.estimate,
            "capping": args.capping, "l": args.l, "w_minutes": args.w, "alpha": args.alpha,
            "beta": args.beta, "idle_fraction": args.idle_fraction, "power": args.power,
            "seed": args.seed}
    resilience = ("on_failure", "system_mttf_hours", "checkpoint_scale", "redundancy",
                  "gamma", "dvfs_failure_multiplier", "unit_nodes")
    if args.resilience is None and any(getattr(args, name) is not None for name in resilience):
        raise ValueError("the failure options need --resilience (checkpoint, replication "
                         "or none)")
    for name in ("walltime_scale", "size_scale", "resilience", *resilience):
        value = getattr(args, name)
        if value is not None:
            axes[name] = value if isinstance(value, list) else [value]
    if args.cap_watts is not None:
        axes["cap_watts"] = args.cap_watts
    else:
        axes["cap_fraction"] = args.cap or [0.7]
        axes["cap_month"] = [args.cap_month]
    return grid(base, **axes)


def thesis_runs_from_args(args):
    """The thesis grid: policies x profile seeds x idle scenarios x options."""
    from studies.grids import grid
    from studies.thesis_run import ThesisRun

    given = [name for name, default in args.puppet_defaults.items()
             if getattr(args, name) != default]
    if given:
        raise ValueError(f"--{given[0].replace('_', '-')} applies to --model puppet only")
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

    console = Console()
    if args.collect is not None:
        declared = (args.grid is not None or args.model != "puppet"
                    or bool(grid_options_given(args)))
        frame = collect(args.collect, runs=experiments_from_args(args) if declared else None)
        if frame.empty:
            raise ValueError(f"no results in {args.collect}")
        console.print(f"{len(frame)} results gathered in {args.collect / 'results.csv'}")
        return 0
    trace = args.trace or (ATLAS if args.model == "thesis" else "synthetic")
    if trace != "synthetic" and not Path(trace).exists() and args.grid is None:
        raise ValueError(f"no trace at {trace}")
    experiments = experiments_from_args(args)
    runs = plan(experiments)
    console.print(f"{len(experiments)} experiments, {len(runs)} runs with their baselines "
                  f"and prerequisites; results in {args.out}/")
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
    for key, error in summary.failed.items():
        console.print(f"[red]  {key}: {error}[/]")
    if summary.results_csv is not None:
        console.print(f"table: {summary.results_csv}")
    if summary.interrupted:
        console.print("[yellow]interrupted: finished runs are kept; run the same command "
                      "again to do the rest[/]")
        return 130
    return 1 if summary.failed else 0


def main(argv=None) -> int:  # pragma: no cover - convenience
    from .main import main as cpn_main
    return cpn_main(["sweep", *(argv if argv is not None else sys.argv[1:])])
