"""``cpn``: the command line, a thin shell over the Python API.

``cpn run`` simulates a workload on the PuPPET model and writes per-job
records, metrics and plots; ``cpn step`` / ``cpn replay`` walk through any
net interactively; ``cpn sweep`` runs a grid of experiments.  Everything
here is also reachable from Python (``nets.puppet.simulate``,
``nets.sweep.run_sweep``), which is what a notebook uses.
"""

from __future__ import annotations

import argparse
import math
import re
import sys
from pathlib import Path

from .capping import (OVER_CAP_REASON, add_capping_arguments, build_cap, cap_spec,
                      capping_method, over_cap_alone)
from .resilience import (add_resilience_arguments, check_failure_options, describe_topper,
                         topper_config)
from .scheduling import add_scheduling_arguments, describe_overruns, overruns, scheduling_config
from .sleeping import add_sleeping_arguments, check_sleeping_options, sleeping_nodes
from .values import fraction, integer, positive_float
from .workload import add_trace_arguments


def add_run_parser(subparsers) -> None:
    run = subparsers.add_parser(
        "run", help="simulate a workload on the PuPPET model (TOPPER with --resilience)",
        description="Simulate a workload (an SWF trace, or by default a seeded synthetic "
                    "month on a Mira-like machine) on the PuPPET net, optionally under a "
                    "power cap and, with --resilience, with failures (TOPPER); print the "
                    "metrics and write DIR/jobs.csv, DIR/metrics.json, DIR/power.csv and "
                    "plots.")
    add_trace_arguments(run)
    add_scheduling_arguments(run)
    run.add_argument("--power", choices=("drawn", "constant", "csv"), default="drawn",
                     help="job power: drawn per user/group from Mira's per-rack "
                          "distribution, a constant per node, or a CSV (job_id,power)")
    run.add_argument("--power-csv", type=Path, help="CSV of job_id,power (watts)")
    run.add_argument("--node-watts", type=positive_float, default=65_760 / 1024,
                     help="a node's power at full speed (W; default Mira's 64.2)")
    run.add_argument("--idle-fraction", type=fraction, default=0.3,
                     help="an idle node's share of its full power (default 0.3)")
    run.add_argument("--energy-steps", default="60,300,900,1800,3600",
                     help="fixed-step energy estimates to report, in seconds (comma list)")
    run.add_argument("--seed", type=integer, default=0,
                     help="seed of the drawn job powers, the synthetic month, the "
                          "simulator's choices and the failures (default 0)")
    run.add_argument("--out", type=Path, default=Path("out"), metavar="DIR",
                     help="output directory (default out)")
    run.add_argument("--no-plots", action="store_true",
                     help="write no PNG figures (faster)")
    add_capping_arguments(run)
    add_resilience_arguments(run)
    add_sleeping_arguments(run)
    run.set_defaults(func=command_run, check=check_run_options)


def check_run_options(args) -> None:
    """Refuse, before anything is read or run, options that mean nothing
    together (a cap with --capping none, failure options without failures,
    a boot order for nodes that never sleep)."""
    capping_method(args)
    check_failure_options(args)
    check_sleeping_options(args)


def version() -> str:
    """The installed package's version (``cpn --version``)."""
    from importlib.metadata import PackageNotFoundError
    from importlib.metadata import version as installed
    try:
        return installed("cpn")
    except PackageNotFoundError:  # run from a checkout that was never installed
        return "unknown (not installed)"


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="cpn", description=__doc__.splitlines()[0])
    parser.add_argument("--version", action="version", version=f"%(prog)s {version()}",
                        help="print the version and stop")
    subparsers = parser.add_subparsers(dest="command", required=True, metavar="COMMAND",
                                       help="run COMMAND --help for its options")
    add_run_parser(subparsers)
    from .step import add_step_parsers
    add_step_parsers(subparsers)
    from .sweep import add_sweep_parser
    add_sweep_parser(subparsers)
    from .validate import add_validate_parser
    add_validate_parser(subparsers)
    for command in subparsers.choices.values():
        command.set_defaults(command_parser=command)  # for in_flags
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        if hasattr(args, "check"):
            args.check(args)
        return args.func(args) or 0
    except (ValueError, OSError) as error:
        message = in_flags(str(error), args.command_parser)
        print(f"cpn {args.command}: error: {message}", file=sys.stderr)
        return 2


def in_flags(message: str, parser: argparse.ArgumentParser) -> str:
    """``message`` with the Python parameters it names put as the flags that
    set them (``pass machine_nodes`` -> ``pass --machine-nodes``): the API
    below speaks of parameters, a user of the command line typed flags."""
    flags: dict[str, str] = {}
    for action in parser._actions:
        if "_" in action.dest and action.option_strings:
            flags.setdefault(action.dest, action.option_strings[0])
    if not flags:
        return message
    names = "|".join(sorted(map(re.escape, flags), key=len, reverse=True))
    return re.sub(rf"(?<![\w./-])({names})(?![\w/-])",
                  lambda match: flags[match.group(1)], message)


def command_run(args) -> int:
    from dataclasses import replace

    from rich.console import Console

    from modules.metrics import time_above, write_results
    from nets.puppet import PuppetConfig, ctrl_c_requests

    from .workload import load_workload

    console = Console()
    workload = load_workload(args)
    try:
        steps = [float(s) for s in args.energy_steps.split(",") if s.strip()]
    except ValueError:
        raise ValueError(f"--energy-steps must be seconds separated by commas, "
                         f"not {args.energy_steps!r}") from None
    config = PuppetConfig(
        machine_nodes=workload.machine_nodes, node_watts=args.node_watts,
        idle_fraction=args.idle_fraction, scheduling=scheduling_config(args))
    method, spec = capping_method(args), cap_spec(args)
    model = topper_config(args, config, workload.time_offset)
    if model is not None:
        console.print(describe_topper(args, model))
    capping: dict = {}
    overran = overruns(workload.jobs)
    with ctrl_c_requests() as ctrl_c:  # from here on, Ctrl-C stops the run cleanly
        console.print(workload.summary())
        if overran:
            console.print(describe_overruns(overran, args.overrun))
        if spec is not None:
            peak = None
            if spec.fraction is not None:
                uncapped = _simulate(console, "uncapped run (for the cap)", workload, config,
                                     model, args, stop=ctrl_c)
                if uncapped.interrupted:
                    console.print("[yellow]interrupted before the capped run started[/]")
                    return 130
                peak = uncapped.metrics["power_peak_w"]
            cap_watts = spec.resolve(peak)
            config = replace(config, cap=build_cap(args, cap_watts),
                             **({"alpha": args.alpha} if method == "dvfs" else {}))
            capping = {"capping": method, "cap_w": cap_watts, "uncapped_peak_w": peak}
            console.print(f"capping: {method} at {format_power(cap_watts)}"
                          + (f" ({spec} of the uncapped peak {format_power(peak)})"
                             if peak is not None else ""))
            over = over_cap_alone(config, workload.jobs)
            capping["jobs_over_cap_alone"] = len(over)
            if over and args.over_cap == "reject":
                workload = workload.reject((job.id for job in over), OVER_CAP_REASON)
                console.print(f"rejected {len(over):,} jobs whose power alone is above the cap")
        result = _simulate(console, "simulated", workload, config, model, args, steps,
                           stop=ctrl_c)
    if capping and len(result.jobs):
        capping["time_above_cap_s"] = time_above(result.power_times, result.power_watts,
                                                 result.end, config.cap_watts * (1 + 1e-9))
    result.metrics.update({key: value for key, value in capping.items() if value is not None})
    result.metrics["rejected_jobs"] = len(workload.rejected)
    result.metrics["overrun_jobs"] = overran
    result.metrics["size_unit"] = workload.size_unit
    result.metrics["trace"] = str(workload.path) if workload.path else "synthetic"
    paths = write_results(args.out, result.jobs, result.metrics, result.power_times,
                          result.power_watts, end=result.end, unfinished=result.unfinished)
    written = [*paths.values(), args.out / "rejected.csv"]
    workload.rejected.to_csv(written[-1], index=False)
    if not args.no_plots and len(result.jobs):
        from modules.metrics import daily_energy
        from modules.plots import plot_daily_energy, plot_power
        written.append(plot_daily_energy(
            daily_energy(result.power_times, result.power_watts, result.end),
            args.out / "daily_energy.png"))
        written.append(plot_power(result.power_times, result.power_watts,
                                  args.out / "power.png", cap=capping.get("cap_w")))
    print_metrics(console, result.metrics)
    if result.interrupted:
        console.print(f"[yellow]{interruption_summary(result)}[/]")
    console.print(f"results in {args.out}/: {', '.join(sorted(p.name for p in written))}")
    return 130 if result.interrupted else 0


#: The states of unfinished.csv and how the console says them.
UNFINISHED_STATES = (("running", "running"), ("queued", "queued"),
                     ("unsubmitted", "not yet submitted"))


def interruption_summary(result) -> str:
    """What an interrupted run wrote: when it stopped (on the trace's
    clock), the finished jobs and the unfinished ones by state."""
    states = result.unfinished["state"].value_counts()
    unfinished = ", ".join(f"{states[state]:,} {label}" for state, label in UNFINISHED_STATES
                           if states.get(state, 0))
    return (f"interrupted at {result.end:,.0f} s on the trace's clock: "
            f"{len(result.jobs):,} finished jobs in jobs.csv, {len(result.unfinished):,} "
            f"unfinished in unfinished.csv" + (f" ({unfinished})" if unfinished else ""))


def _simulate(console, label: str, workload, config, model, args, steps=(), stop=None):
    """One run with a progress bar (simulated days): of the PuPPET net for
    ``config``, or of TOPPER when ``model`` (its TopperConfig) is given;
    ``stop()`` turning true stops it (``nets.puppet.run_model``)."""
    from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

    horizon = max((job.st + job.rt for job in workload.jobs), default=1.0)
    columns = (TextColumn(label), BarColumn(), TextColumn("day {task.fields[day]:.1f}"),
               TextColumn("{task.fields[done]} jobs done"), TimeElapsedColumn())
    with Progress(*columns, console=console, transient=True) as bar:
        task = bar.add_task("run", total=horizon, day=0.0, done=0)

        def progress(now: float, done: int) -> None:
            bar.update(task, completed=min(now, horizon), day=now / 86400, done=done)

        options = dict(seed=args.seed, energy_steps=steps, time_offset=workload.time_offset,
                       progress=progress, stop=stop)
        return _run_model(workload.jobs, config, model, sleeping_nodes(args), options)


def _run_model(jobs, config, model, sleeping, options):
    """PuPPET, or TOPPER when ``model`` is given, with nodes that sleep when
    ``sleeping`` is given; a PuppetResult either way (with sleeping nodes,
    its metrics are those of ``nets.energy_saving``)."""
    from dataclasses import replace

    if sleeping is None:
        if model is None:
            from nets.puppet import simulate
            return simulate(jobs, config, **options)
        from nets.topper import simulate
        return simulate(jobs, replace(model, puppet=config), **options)
    from nets.energy_saving import simulate_puppet, simulate_topper
    if model is None:
        saved = simulate_puppet(jobs, config, sleeping, **options)
    else:
        saved = simulate_topper(jobs, replace(model, puppet=config), sleeping, **options)
    saved.model.metrics = saved.metrics
    return saved.model


#: Keys of metrics.json that say how a run was set up, not how it went.
INTERNAL_METRICS = frozenset({"config", "capping", "energy_saving", "energy_mwh", "makespan", "series_start_s", "series_end_s", "bsld_threshold_s",
                              "energy_kwh", "machine_nodes", "trace", "complete",
                              "size_unit"})


def format_duration(seconds: float) -> str:
    """``12.5 s``, ``4 min 05 s``, ``3 h 12 min``: a wait read at a glance."""
    if seconds != seconds:  # NaN
        return "n/a"
    if abs(seconds) < 60:
        return f"{seconds:.1f} s"
    whole = int(round(seconds))
    hours, rest = divmod(whole, 3600)
    minutes, secs = divmod(rest, 60)
    if hours:
        return f"{hours:,} h {minutes:02d} min"
    return f"{minutes} min {secs:02d} s"


def format_step(seconds: float) -> str:
    """A fixed step as people say it: ``1 min``, ``15 min``, ``1 h``, ``90 s``."""
    if seconds % 3600 == 0:
        return f"{seconds / 3600:g} h"
    if seconds % 60 == 0:
        return f"{seconds / 60:g} min"
    return f"{seconds:g} s"


def _significant(value: float) -> str:
    """Four significant digits, without scientific notation (``1,987``,
    ``2.619``, ``0.4120``)."""
    if value == 0 or not math.isfinite(value):
        return f"{value:g}"
    decimals = max(0, 3 - int(math.floor(math.log10(abs(value)))))
    return f"{value:,.{decimals}f}"


def format_energy(joules: float) -> str:
    """In MWh, the unit of a machine's daily energy; kWh or Wh for a small run."""
    for scale, unit in ((3.6e9, "MWh"), (3.6e6, "kWh")):
        if abs(joules) >= scale:
            return f"{_significant(joules / scale)} {unit}"
    return f"{_significant(joules / 3600)} Wh"


def format_power(watts: float) -> str:
    """In MW, the unit of a machine's power (and of a power cap); kW or W below."""
    for scale, unit in ((1e6, "MW"), (1e3, "kW")):
        if abs(watts) >= scale:
            return f"{_significant(watts / scale)} {unit}"
    return f"{_significant(watts)} W"


def format_makespan(seconds: float) -> str:
    """In days from a day up, else as a duration."""
    return f"{seconds / 86_400:,.2f} days" if seconds >= 86_400 else format_duration(seconds)


def format_relative(estimate: float, exact: float) -> str:
    """The signed difference of ``estimate`` from ``exact`` in %."""
    percent = 100 * (estimate - exact) / exact
    if percent == 0:
        return "0 %"
    if abs(percent) < 0.01:
        return f"{percent:+.1e} %"
    return f"{percent:+.2f} %"


def _step_seconds(key: str) -> float | None:
    """``energy_step_900s_j`` -> 900.0; None for any other key."""
    if key.startswith("energy_step_") and key.endswith("s_j"):
        try:
            return float(key[len("energy_step_"):-len("s_j")])
        except ValueError:
            return None
    return None


def metric_rows(metrics: dict) -> list[tuple[str, str, str]]:
    """``(group, label, text)`` for each metric worth showing, with units.

    metrics.json keeps raw SI units (seconds, joules, watts); this is only
    how they are shown: utilization in %, waits in h/min/s, makespan in
    days, energy in MWh and power in MW (kWh, kW... for a small run), EDP
    in J·s (scientific), and the fixed-step energy estimates as their
    relative difference from the exact energy.  Set-up
    keys (:data:`INTERNAL_METRICS`) and nested values are left out; a key
    this function does not know is shown under "other", by its unit suffix.
    """
    rows: list[tuple[str, str, str]] = []
    known: set[str] = set(INTERNAL_METRICS)

    def add(group: str, key: str, label: str, show) -> None:
        known.add(key)
        value = metrics.get(key)
        if value is not None:
            rows.append((group, label, show(value)))

    add("jobs", "jobs", "finished", lambda v: f"{v:,}")
    add("jobs", "rejected_jobs", "rejected (see rejected.csv)", lambda v: f"{v:,}")
    add("jobs", "overrun_jobs", "ran past their requested time", lambda v: f"{v:,}")
    if metrics.get("unfinished_jobs"):  # a stopped run; its console says so
        add("jobs", "unfinished_jobs", "unfinished (see unfinished.csv)", lambda v: f"{v:,}")
    known.add("unfinished_jobs")
    add("scheduling", "utilization", "utilization", lambda v: f"{100 * v:.1f} %")
    for key, label in (("wait_mean_s", "wait, mean"), ("wait_median_s", "wait, median"),
                       ("wait_p90_s", "wait, 90th percentile"),
                       ("wait_p99_s", "wait, 99th percentile"), ("wait_max_s", "wait, max")):
        add("scheduling", key, label, format_duration)
    threshold = metrics.get("bsld_threshold_s", 10.0)
    add("scheduling", "bounded_slowdown_mean",
        f"bounded slowdown, mean ({threshold:g} s)", lambda v: f"{v:,.2f}")
    add("scheduling", "makespan_s", "makespan", format_makespan)
    add("energy and power", "energy_j", "energy", format_energy)
    add("energy and power", "power_mean_w", "power, mean", format_power)
    add("energy and power", "power_peak_w", "power, peak", format_power)
    add("energy and power", "cap_w", f"power cap ({metrics.get('capping', 'none')})",
        format_power)
    add("energy and power", "uncapped_peak_w", "peak of the uncapped run", format_power)
    add("energy and power", "jobs_over_cap_alone", "jobs over the cap alone",
        lambda v: f"{v:,}")
    add("energy and power", "time_above_cap_s", "time above the cap", format_duration)
    add("energy and power", "edp_j_s", "EDP (energy × makespan)", lambda v: f"{v:.3e} J·s")
    node_hours = lambda v: f"{v / 3600:,.0f}"  # noqa: E731
    add("sleeping nodes", "shutdowns", "shutdowns", lambda v: f"{v:,}")
    add("sleeping nodes", "power_ons", "boots", lambda v: f"{v:,}")
    add("sleeping nodes", "max_active_nodes", "most nodes on at once", lambda v: f"{v:,}")
    add("sleeping nodes", "active_node_s", "node-hours on", node_hours)
    add("sleeping nodes", "inactive_node_s", "node-hours asleep", node_hours)
    add("sleeping nodes", "energy_accounting_mwh", "energy by node states",
        lambda v: format_energy(v * 3.6e9))
    add("failures (TOPPER)", "failures", "failures", lambda v: f"{v:,}")
    add("failures (TOPPER)", "lost_node_hours", "lost node-hours", _significant)
    add("failures (TOPPER)", "system_efficiency", "system efficiency",
        lambda v: f"{100 * v:.1f} %")

    exact = metrics.get("energy_j")
    steps = sorted((step, key) for key in metrics
                   if (step := _step_seconds(key)) is not None)
    for step, key in steps:
        known.add(key)
        estimate = metrics[key]
        if exact:
            text = format_relative(estimate, exact)
        else:
            text = format_energy(estimate)
        rows.append(("fixed-step energy vs exact (PuPPET §4)",
                     f"{format_step(step)} step", text))

    for key, value in metrics.items():
        if key in known or isinstance(value, (dict, list, tuple)) or value is None:
            continue
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            text = str(value)
        elif key.endswith("_s"):
            text = format_duration(value)
        elif key.endswith("_j"):
            text = format_energy(value)
        elif key.endswith("_w"):
            text = format_power(value)
        elif isinstance(value, int):
            text = f"{value:,}"
        else:
            text = f"{value:,.4g}"
        rows.append(("other", key, text))
    return rows


def print_metrics(console, metrics: dict) -> None:
    """The metrics as a table grouped by topic, with units (see :func:`metric_rows`)."""
    from rich.markup import escape
    from rich.table import Table

    title = "TOPPER run" if "failures" in metrics else "PuPPET run"
    if metrics.get("trace"):
        title += f": {Path(str(metrics['trace'])).name}"
    if metrics.get("machine_nodes"):
        unit = "processors" if metrics.get("size_unit") == "procs" else "nodes"
        title += f" on {metrics['machine_nodes']:,} {unit}"
    table = Table(title=escape(title))
    table.add_column("metric")
    table.add_column("value", justify="right")
    previous = None
    for group, label, text in metric_rows(metrics):
        if group != previous:
            if previous is not None:
                table.add_section()
            table.add_row(f"[bold]{group}[/]", "")
            previous = group
        table.add_row(f"  {escape(label)}", escape(text))
    console.print(table)


if __name__ == "__main__":
    sys.exit(main())
