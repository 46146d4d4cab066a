"""``cpn validate``: a model's schedule against the one its trace logged.

Runs the scheduling model (``cpn run``'s trace and scheduling options) on
an SWF trace and measures the simulated schedule against the one the trace
records (``modules.validation``): a table in the terminal, and in ``--out``
``validation.json``, per-job and per-period CSV files and three figures.
"""

from __future__ import annotations

import json
from dataclasses import asdict
from datetime import datetime, timezone
from pathlib import Path

from .quantities import format_duration
from .scheduling import (add_scheduling_arguments, describe_overruns, overruns,
                         scheduling_config)
from .mira import (add_mira_arguments, is_cobalt, mira_config, note_replayed_overruns,
                   note_undefined_blocks, refuse_mira_options_without_cobalt, replayed_ids)
from .values import non_negative_int
from .output_dir import writable_directory
from .workload import add_trace_arguments, read_trace, refuse_nothing_to_run


#: How the table names a period's utilization.
PERIOD_ADJECTIVES = {"day": "daily", "week": "weekly"}


#: The spans utilization is compared over (``modules.validation.PERIODS``,
#: not imported here: the parser must not load pandas).
PERIODS = ("day", "week")


def add_validate_parser(subparsers) -> None:
    parser = subparsers.add_parser(
        "validate", help="measure the model's schedule against the one a trace logged",
        description="Simulate an SWF trace's jobs with the scheduling model and compare the "
                    "schedule with the one the trace logged (its wait field): start errors, "
                    "waits, bounded slowdown, utilization per day or week, queue length; say "
                    "where the log itself exceeds the machine and which logged jobs the model "
                    "refused.  Prints a table and writes DIR/validation.json, CSV files and "
                    "plots.")
    add_trace_arguments(parser, required=True)
    add_scheduling_arguments(parser)
    add_mira_arguments(parser)
    parser.add_argument("--period", choices=PERIODS, default="day",
                        help="compare utilization per day (default) or per week")
    parser.add_argument("--seed", type=non_negative_int, default=0,
                        help="seed of the simulator's choice among simultaneous events "
                             "(default 0)")
    parser.add_argument("--out", type=Path, default=Path("validation"), metavar="DIR",
                        help="output directory (default validation)")
    parser.add_argument("--no-plots", action="store_true", help="write no PNG figures")
    parser.set_defaults(func=command_validate)


def command_validate(args) -> int:
    from modules.validation import check_logged_schedule, validate

    from rich.console import Console

    from modules.run_files import json_safe
    from nets.puppet import PuppetConfig, simulate

    writable_directory(args.out, "--out")
    console = Console()
    workload = read_trace(args)
    refuse_nothing_to_run(workload)
    refuse_mira_options_without_cobalt(args, workload)
    try:
        check_logged_schedule(workload.log)
    except ValueError as error:
        raise type(error)(f"{workload.path}: {error}") from None
    console.print(workload.summary())
    overran = overruns(workload.jobs, replayed_ids(workload))
    if overran:
        console.print(describe_overruns(overran, args.overrun))
    note_replayed_overruns(console, workload)
    scheduling = scheduling_config(args, "wfp" if is_cobalt(workload) else "fcfs")
    config = PuppetConfig(machine_nodes=workload.machine_nodes, scheduling=scheduling)
    model = {**asdict(scheduling), "machine": workload.machine_nodes, "overrun_jobs": overran}
    if is_cobalt(workload):
        runs = validate_mira_ladder(console, args, workload, config)
        if runs is None:
            return 130
        report, model["mira"] = runs[-1][1], runs[-1][0]
    else:
        with console.status(f"simulating {len(workload.jobs):,} jobs") as status:
            def progress(now: float, done: int) -> None:
                status.update(f"simulating {len(workload.jobs):,} jobs: day "
                              f"{now / 86_400:,.1f}, {done:,} done")
            result = simulate(workload.jobs, config, seed=args.seed,
                              time_offset=workload.time_offset, progress=progress)
        if result.interrupted:
            console.print("[yellow]interrupted: no report[/]")
            return 130
        report = validate(result.jobs, workload.log, workload.rejected,
                          workload.machine_nodes, args.period)
        runs = None
    summary = {"trace": str(workload.path), "unit": workload.unit_name, "model": model,
               **report.summary, "verdict": verdict(report.summary)}
    if runs is not None:
        summary["ladder"] = [{"model": name, **ladder_row(run.summary)} for name, run in runs]
    written = write_report(args.out, report, summary, workload.unit_name,
                           plots=not args.no_plots)
    (args.out / "validation.json").write_text(
        json.dumps(json_safe(summary), indent=2, sort_keys=True, allow_nan=False) + "\n")
    print_report(console, summary, clock(workload))
    if runs is not None:
        print_ladder(console, summary)
    console.print(f"results in {args.out}/: validation.json, "
                  f"{', '.join(sorted(path.name for path in written))}")
    return 0


def validate_mira_ladder(console, args, workload, puppet):
    """``[(model, Validation)]`` of node-count EASY and the Mira model with
    each part asked for added in turn (``nets.mira.ladder``); None when
    Ctrl-C stopped a run."""
    from modules.validation import validate
    from nets.mira import ladder, simulate

    runs = []
    full = mira_config(args, puppet)
    note_undefined_blocks(console, args, workload, full)
    for config in ladder(full):
        name = config.describe()
        with console.status(f"simulating {len(workload.jobs):,} jobs: {name}") as status:
            def progress(now: float, done: int) -> None:
                status.update(f"simulating {len(workload.jobs):,} jobs: {name}, day "
                              f"{now / 86_400:,.1f}, {done:,} done")
            result = simulate(workload, config, seed=args.seed, progress=progress)
        if result.interrupted:
            console.print("[yellow]interrupted: no report[/]")
            return None
        runs.append((name, validate(result.jobs, workload.log, workload.rejected,
                                    workload.machine_nodes, args.period,
                                    window=workload.window_on_trace_clock(),
                                    replayed=workload.replayed,
                                    failed_runs=result.metrics.get("failed_runs", ()))))
    return runs


def ladder_row(summary: dict) -> dict:
    """The numbers the ladder table shows of one validation."""
    return {"wait_mean": summary["wait_s"]["mean"],
            "wait_mean_in_window": summary["wait_s_in_window"]["mean"],
            "wait_median": summary["wait_s"]["median"],
            "utilization_rms": summary["utilization"]["rms_difference"],
            "start_error_mean_abs_s": summary["start_error"]["mean_abs_s"]}


def print_ladder(console, summary: dict) -> None:
    """What each part of the Mira model buys: one row per model."""
    from rich.table import Table

    def error(values: dict) -> str:
        return ("n/a" if values["relative_error"] is None
                else f"{format_duration(values['simulated'])} ({100 * values['relative_error']:+.1f} %)")

    first = summary["ladder"][0]
    every = PERIOD_ADJECTIVES[summary["utilization"]["period"]]
    table = Table(title=f"{Path(summary['trace']).name}: the Mira model part by part "
                        f"(logged: mean wait {format_duration(first['wait_mean']['logged'])}, "
                        f"{format_duration(first['wait_mean_in_window']['logged'])} over jobs "
                        f"submitted in the window; median "
                        f"{format_duration(first['wait_median']['logged'])})")
    for column in ("model", "mean wait", "mean wait, in window", "median wait",
                   f"{every} utilization RMS", "mean |start error|"):
        table.add_column(column, justify="left" if column == "model" else "right")
    for row in summary["ladder"]:
        table.add_row(row["model"], error(row["wait_mean"]), error(row["wait_mean_in_window"]),
                      error(row["wait_median"]), f"{100 * row['utilization_rms']:.1f} points",
                      format_duration(row["start_error_mean_abs_s"]))
    console.print(table)


def write_report(out: Path, report, summary: dict, unit: str, plots: bool) -> list[Path]:
    """The CSV files and figures of ``report``; their paths."""
    from modules.validation_plots import plot_queue, plot_utilization, plot_waits

    out.mkdir(parents=True, exist_ok=True)
    frames = {"jobs.csv": report.jobs, "utilization.csv": report.utilization,
              "queue.csv": report.queue, "refused.csv": report.refused,
              "over_machine.csv": report.over_machine}
    for name, frame in frames.items():
        frame.to_csv(out / name, index=False)
    written = [out / name for name in frames]
    if plots:
        utilization = summary["utilization"]
        written += [
            plot_utilization(report.utilization, out / "utilization.png",
                             period=utilization["period"],
                             rms=utilization["rms_difference"],
                             title=f"Utilization of {summary['machine']:,} {unit}"),
            plot_queue(report.queue, out / "queue.png", bin_s=summary["queue_length"]["bin_s"]),
            plot_waits(report.jobs, out / "waits.png")]
    return written


def clock(workload):
    """Trace time -> a date, when the header gives the trace's Unix epoch
    (``UnixStartTime``); else the seconds themselves."""
    from modules.swf_header import header_number

    epoch = header_number(workload.header, "UnixStartTime")
    if epoch is None:
        return lambda seconds: f"{seconds:,.0f} s"
    return lambda seconds: datetime.fromtimestamp(epoch + seconds, timezone.utc).strftime(
        "%Y-%m-%d %H:%M UTC")


def verdict(summary: dict) -> str:
    """The finding a reader must not miss: how far the mean wait is off."""
    wait = summary["wait_s"]["mean"]
    if wait["relative_error"] is None:
        return (f"no job waited in the log; the simulated mean wait is "
                f"{format_duration(wait['simulated'])}")
    direction = "below" if wait["relative_error"] < 0 else "above"
    return (f"the simulated mean wait is {100 * abs(wait['relative_error']):.0f} % {direction} "
            f"the logged one ({format_duration(wait['simulated'])} against "
            f"{format_duration(wait['logged'])})")


def print_report(console, summary: dict, when) -> None:
    from modules.validation import WHOLE_TRACE_NOTE

    """The table and the findings of a validation."""
    from rich.markup import escape
    from rich.table import Table

    unit = summary["unit"]
    model = summary["model"]
    table = Table(title=escape(
        f"{Path(summary['trace']).name} on {model['machine']:,} {unit}: "
        f"{model['policy']}, estimate {model['estimate']}, overrun {model['overrun']}"))
    for column in ("", "logged", "simulated", "difference"):
        table.add_column(column, justify="left" if not column else "right")

    def compared(label: str, values: dict, show) -> None:
        error = values["relative_error"]
        table.add_row(label, show(values["logged"]), show(values["simulated"]),
                      "n/a" if error is None else f"{100 * error:+.1f} %")

    for key, label in (("mean", "wait, mean"), ("median", "wait, median"),
                       ("p90", "wait, 90th percentile")):
        compared(label, summary["wait_s"][key], format_duration)
    for key, label in (("mean", "mean"), ("median", "median"), ("p90", "90th percentile")):
        compared(f"bounded slowdown, {label}", summary["bounded_slowdown"][key],
                 lambda value: f"{value:,.2f}")
    compared("queue length, mean (jobs)", summary["queue_length"]["mean"],
             lambda value: f"{value:,.1f}")
    utilization = summary["utilization"]
    every = PERIOD_ADJECTIVES[utilization["period"]]
    table.add_row(f"{every} utilization, RMS diff.", "", "",
                  f"{100 * utilization['rms_difference']:.1f} points")
    table.add_row(f"{every} utilization, largest diff.", "", "",
                  f"{100 * utilization['max_abs_difference']:.1f} points")
    compared("utilization, whole trace (*)", utilization["whole_trace"],
             lambda value: f"{100 * value:.1f} %")
    table.add_section()
    table.add_row("[bold]start, simulated - logged[/]", "", "", "")
    errors = summary["start_error"]
    for key, label in (("mean_abs_s", "mean |error|"), ("median_abs_s", "median |error|"),
                       ("p90_abs_s", "90th percentile |error|"),
                       ("p99_abs_s", "99th percentile |error|"),
                       ("mean_signed_s", "mean error (+: later)")):
        table.add_row(f"  {label}", "", "", signed_duration(errors[key]))
    for key, label in (("within_1_min", "within 1 min"), ("within_1_h", "within 1 h")):
        table.add_row(f"  jobs {label}", "", "", f"{100 * errors[key]:.1f} %")
    console.print(table)
    console.print(f"bounded slowdown with a {summary['bsld_threshold_s']:g} s threshold; "
                  f"(*) {WHOLE_TRACE_NOTE}")
    for line in findings(summary, when):
        console.print(escape(line), style="bold" if line[0].isupper() else None)


def findings(summary: dict, when) -> list[str]:
    """What the table alone would not say: the verdict, the jobs left out,
    where the log breaks the machine."""
    jobs, unit = summary["jobs"], summary["unit"]
    lines = [summary["verdict"][0].upper() + summary["verdict"][1:] + "."]
    replayed = jobs.get("replayed", 0)  # a Cobalt log's, started as logged: nothing to compare
    lines.append(f"compared {jobs['compared']:,} jobs: all the log ran with a known start "
                 f"({jobs['ran_in_log']:,}) that the model ran too"
                 + (f", less the {replayed:,} replayed as logged" if replayed else ""))
    if jobs["unknown_wait"]:
        lines.append(f"{jobs['unknown_wait']:,} simulated jobs have no logged wait (-1) and "
                     "are left out")
    if jobs["refused_by_model"]:
        reasons = ", ".join(f"{reason}: {count:,}"
                            for reason, count in jobs["refused_by_reason"].items())
        lines.append(f"The model refused {jobs['refused_by_model']:,} jobs the log ran "
                     f"({reasons}; see refused.csv): --oversized clip runs the oversized ones "
                     "on the whole machine, or choose a larger --machine-nodes")
    over = summary["over_machine"]
    if over:
        lines.append(
            f"The logged schedule exceeds the machine of {over['machine']:,} {unit}: up to "
            f"{over['peak']:,} (+{over['excess']:,}) at {when(over['peak_at'])}, "
            f"{format_duration(over['seconds_above'])} in all over {over['intervals']:,} "
            f"intervals from {when(over['first'])} to {when(over['last'])} (over_machine.csv); "
            f"--machine-nodes {over['peak']} models a machine the log fits on")
    return lines


def signed_duration(seconds: float) -> str:
    """A duration that may be negative (a job started early): ``-3 h 05 min``."""
    return ("-" if seconds < 0 else "") + format_duration(abs(seconds))
