"""``cpn study NAME``: run one of the papers' studies; ``cpn study --list`` names them.

A thin shell over :func:`studies.study.run_study`: every option is a field
of :class:`~studies.study.StudyOptions`, left ``None`` (the study's
default) unless given, and an option the study does not use is refused.
Runs are kept in ``--results`` (by default one directory per paper, so
that the paper's studies share the runs they have in common).
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import fields
from pathlib import Path

from modules.resilience import ON_FAILURE

from .capping import CAP_MONTH_HELP, cap_month, parse_cap
from .choices import MIRA_SYSTEM_MTTF_HOURS
from .flags import flag
from .output_dir import writable_directory
from .resilience import check_one_failure_rate
from .choices import DATA_DRIVEN_OVER_CAP, KNAPSACK_BUDGETS
from .values import job_numbers, non_negative_int, positive_float, positive_int, \
    trace_or_synthetic
from .workload import SIZE_UNITS


def _items(text: str) -> list[str]:
    return [item.strip() for item in text.split(",") if item.strip()]


def _months(text: str):
    from studies.workloads import parse_months
    try:
        return parse_months(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"months are a list (0,1,2 or 0-3), 'all' or 'none', not {text!r}") from None


def _seeds(text: str) -> list[int]:
    from studies.workloads import parse_months

    try:
        seeds = parse_months(text)
    except ValueError:
        seeds = None
    if not isinstance(seeds, list) or not seeds:
        raise argparse.ArgumentTypeError(f"seeds are a list (0,1,2 or 0-4), not {text!r}")
    return seeds


def _share(text: str) -> float:
    """A study's cap: a share of the uncapped peak, written as ``cpn run``
    and ``cpn sweep`` write it (``70%``)."""
    cap = parse_cap(text)
    if cap.fraction is None:
        raise argparse.ArgumentTypeError(
            f"a study's cap is a share of the uncapped peak (e.g. 70%), not {text}")
    return cap.fraction


def add_study_parser(subparsers) -> None:
    study = subparsers.add_parser(
        "study", help="run one of the papers' studies (cpn study --list)",
        description="Run a study of the PuPPET, TOPPER or data-driven paper or of the DVFS "
                    "thesis: its "
                    "runs (resumable, in parallel, shared through --results), then "
                    "OUT/NAME.csv, OUT/NAME.png and OUT/NAME_checks.txt, the paper's "
                    "findings as PASS/DIFFERS checks on what was measured.  A study "
                    "refuses the options it does not use.",
        epilog="Examples: cpn study fig11 --trace synthetic --months 0;  cpn study "
               "topper_fig13 --seeds 0-4;  cpn study thesis_pb_guided --jobs 10001-10600")
    study.add_argument("name", nargs="?", help="the study (see --list)")
    study.add_argument("--list", action="store_true", help="list the studies and stop")
    _add_workload_options(study.add_argument_group("workload"))
    _add_run_options(study.add_argument_group("runs (PuPPET, TOPPER, data-driven)"))
    _add_execution_options(study.add_argument_group("execution"))
    study.set_defaults(func=command_study)


def _add_workload_options(workload) -> None:
    workload.add_argument("--trace", type=trace_or_synthetic,
                          help="SWF trace, or 'synthetic' (PuPPET, TOPPER: the "
                          "synthetic Mira-like months; thesis: LLNL-Atlas)")
    workload.add_argument("--months", type=_months,
                          help="30-day windows: 0,1,2 or 0-3, 'all', or 'none' for the whole "
                               "trace (default: 0-3 of a trace; 0-1 of the synthetic months, "
                               "at Mira's January and March loads)")
    workload.add_argument("--procs-per-node", type=positive_int, metavar="PROCS",
                          help="processors per node (default: MaxProcs/MaxNodes, else 1)")
    workload.add_argument("--unit", choices=SIZE_UNITS, dest="size_unit",
                          help="what a job's size counts: nodes (default), or procs for a "
                               "machine whose processors are not a whole number of nodes, "
                               "as in cpn run (PuPPET, TOPPER)")
    workload.add_argument("--allocation-unit", type=positive_int, metavar="NODES",
                          help="round job sizes up to this many nodes (default 1)")
    workload.add_argument("--machine-nodes", type=positive_int, metavar="NODES",
                          help="machine size in nodes (default: the trace header's MaxNodes)")
    workload.add_argument("--cpus", type=positive_int, help="thesis: machine CPUs (default 9216)")
    workload.add_argument("--jobs", type=job_numbers, metavar="FIRST-LAST",
                          help="thesis: job numbers of the trace (default 10001-15000)")
    workload.add_argument("--profile-seed", type=non_negative_int,
                          help="thesis: seed of the per-job p and beta draw (default 0)")
    workload.add_argument("--profiles", help="thesis: CSV job_id,p,beta_comp instead of "
                                             "the draw")


def _add_run_options(runs) -> None:
    runs.add_argument("--policies", type=_items, help="e.g. fcfs,wfp (default: the paper's)")
    runs.add_argument("--values", type=_items,
                      help="PuPPET: the values of the parameter the figure varies")
    runs.add_argument("--seeds", type=_seeds, help="seeds, e.g. 0-4: TOPPER's bars are "
                      "means over them; PuPPET takes one (default 0)")
    runs.add_argument("--cap", type=_share, metavar="SHARE",
                      help="cap as a share of the uncapped peak, where the figure does "
                           "not vary it (default 70%%)")
    runs.add_argument("--cap-month", type=cap_month, help=CAP_MONTH_HELP)
    runs.add_argument("--unit-nodes", type=positive_int, metavar="NODES",
                      help="TOPPER: nodes per compute unit (default: 1,024-node racks on a "
                           "machine made of them, else single nodes)")
    runs.add_argument("--mttf-days", type=positive_float, metavar="DAYS",
                      help="TOPPER: a unit's mean time to failure, in days, as in cpn run "
                           "and cpn sweep (default: the machine fails every "
                           f"{MIRA_SYSTEM_MTTF_HOURS:g} h, as Mira)")
    # The former spelling of the failure rate, for the whole machine.
    runs.add_argument("--system-mttf-hours", type=positive_float, help=argparse.SUPPRESS)
    runs.add_argument("--on-failure", choices=ON_FAILURE,
                      help="TOPPER: a failed job keeps its units (default) or is requeued")
    runs.add_argument("--checkpoint-interval", type=positive_float, metavar="MINUTES",
                      dest="checkpoint_interval_minutes",
                      help="TOPPER: checkpoint every MINUTES of compute, as in cpn run "
                           "(default: each job's Daly interval)")
    runs.add_argument("--over-cap", choices=DATA_DRIVEN_OVER_CAP,
                      help="data-driven: jobs whose power alone breaks the cap are "
                           "rejected, the cap holds (reject, the default), or run when "
                           "the scheduler has no other option, breaking it (run: the "
                           "paper's rule)")
    runs.add_argument("--knapsack-budget", choices=KNAPSACK_BUDGETS,
                      help="data-driven: the knapsack fits the cap minus the running "
                           "jobs' estimates (estimates, the default: the paper's eq. 2) "
                           "or minus the measured system power (measured)")


def _add_execution_options(execution) -> None:
    execution.add_argument("--out", type=Path, help="where the study's files go "
                                                    "(default out/NAME)")
    execution.add_argument("--results", type=Path,
                           help="directory of the runs, shared between studies (default: "
                                "out/runs, out/topper_runs, out/data_driven_runs or "
                                "out/thesis_runs)")
    execution.add_argument("--workers", type=positive_int, help="local worker processes (default: "
                                                       "all cores)")
    execution.add_argument("--scheduler", metavar="ADDRESS",
                           help="run on this Dask scheduler (tcp://host:8786) instead")
    execution.add_argument("--no-progress", action="store_true",
                           help="do not show the progress bar")


def command_study(args) -> int:
    from studies.registry import find_study
    from studies.study import StudyOptions, check_options, run_study
    from studies.sweep import dask_client

    if args.list:
        print("\n".join(study_list()))
        return 0
    if args.name is None:
        raise ValueError("name a study (cpn study --list shows them)")
    study = find_study(args.name)
    check_one_failure_rate(args)
    options = StudyOptions(**{f.name: getattr(args, f.name) for f in fields(StudyOptions)})
    check_options(study, options, spell=flag)
    out = writable_directory(args.out or Path("out") / study.name, "--out")
    results = writable_directory(args.results or Path(study.design.results), "--results")
    client = dask_client(args.scheduler) if args.scheduler else None
    try:
        outcome = run_study(study, options, out=out, results=results,
                            workers=args.workers, client=client,
                            progress=not args.no_progress)
    except KeyboardInterrupt:
        print("interrupted: finished runs are kept; run the same command again to go on",
              file=sys.stderr)
        return 130
    except RuntimeError as error:  # runs failed: each is kept apart, the others stored
        print(f"cpn study: error: {error}", file=sys.stderr)
        return 1
    finally:
        if client is not None:
            client.close()
    print("\n".join(outcome.report()))
    return 0


def study_list() -> list[str]:
    """One line per study: name, paper, figure, title."""
    from studies.registry import STUDIES

    rows = [("name", "paper", "figure", "title")]
    rows += [(study.name, study.paper, study.figure, study.title) for study in STUDIES.values()]
    widths = [max(len(row[column]) for row in rows) for column in range(3)]
    return ["  ".join(cell.ljust(width) for cell, width in zip(row, widths)) + "  " + row[3]
            for row in rows]


def main(argv: list[str] | None = None) -> int:
    """``cpn study`` with ``argv`` (default: the command line's arguments)."""
    from .main import main as cpn_main
    return cpn_main(["study", *(argv if argv is not None else sys.argv[1:])])
