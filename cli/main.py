"""``cpn``: the command line, a thin shell over the Python API.

``cpn run`` simulates a workload on the PuPPET model and writes per-job
records, metrics and plots; ``cpn step`` / ``cpn replay`` walk through any
net interactively.  Everything here is also reachable from Python
(``nets.puppet.simulate``), which is what a notebook or a sweep uses.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from modules.batch_scheduling import SchedulingConfig
from modules.easy import ESTIMATES, POLICIES


def _positive_float(text: str) -> float:
    value = float(text)
    if value <= 0:
        raise argparse.ArgumentTypeError(f"must be positive, not {text}")
    return value


def _fraction(text: str) -> float:
    value = float(text)
    if not 0 <= value <= 1:
        raise argparse.ArgumentTypeError(f"must be within [0, 1], not {text}")
    return value


def add_run_parser(subparsers) -> None:
    run = subparsers.add_parser(
        "run", help="simulate a workload on the PuPPET model",
        description="Simulate a workload (an SWF trace, or by default a seeded synthetic "
                    "month on a Mira-like machine) on the PuPPET net; print the metrics and "
                    "write DIR/jobs.csv, DIR/metrics.json, DIR/power.csv and plots.")
    run.add_argument("--trace", type=Path, help="SWF trace (.swf or .swf.gz); default: "
                     "the built-in synthetic Mira month")
    run.add_argument("--machine-nodes", type=int, help="machine size in nodes "
                     "(default: the trace header's MaxNodes)")
    run.add_argument("--procs-per-node", type=int,
                     help="processors per node (default: MaxProcs/MaxNodes, else 1)")
    run.add_argument("--allocation-unit", type=int, default=1,
                     help="round job sizes up to this many nodes (512: Blue Gene midplanes)")
    run.add_argument("--policy", choices=POLICIES, default="fcfs")
    run.add_argument("--estimate", choices=ESTIMATES, default="requested",
                     help="runtime the scheduler plans with: the requested walltime "
                          "(what a real scheduler knows) or the actual runtime")
    run.add_argument("--trigger", choices=("event", "timestamp"), default="event",
                     help="schedule after every submit/finish (PuPPET) or once per instant")
    run.add_argument("--no-backfill", action="store_true", help="strict queue order")
    run.add_argument("--power", choices=("drawn", "constant", "csv"), default="drawn",
                     help="job power: drawn per user/group from Mira's per-rack "
                          "distribution, a constant per node, or a CSV (job_id,power)")
    run.add_argument("--power-csv", type=Path, help="CSV of job_id,power (watts)")
    run.add_argument("--node-watts", type=_positive_float, default=65_760 / 1024,
                     help="a node's power at full speed (W; default Mira's 64.2)")
    run.add_argument("--idle-fraction", type=_fraction, default=0.3,
                     help="an idle node's share of its full power (default 0.3)")
    run.add_argument("--energy-steps", default="60,300,900,1800,3600",
                     help="fixed-step energy estimates to report, in seconds (comma list)")
    run.add_argument("--seed", type=int, default=0)
    run.add_argument("--out", type=Path, default=Path("out"), help="output directory")
    run.add_argument("--no-plots", action="store_true")
    run.set_defaults(func=command_run)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="cpn", description=__doc__.splitlines()[0])
    subparsers = parser.add_subparsers(dest="command", required=True)
    add_run_parser(subparsers)
    try:
        from .step import add_step_parsers
    except ImportError:  # the stepper is optional on minimal installs
        pass
    else:
        add_step_parsers(subparsers)
    args = parser.parse_args(argv)
    try:
        return args.func(args) or 0
    except (ValueError, OSError) as error:
        print(f"cpn {args.command}: error: {error}", file=sys.stderr)
        return 2


def command_run(args) -> int:
    from rich.console import Console
    from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

    from modules.metrics import write_results
    from nets.puppet import PuppetConfig, simulate

    from .workload import load_workload

    console = Console()
    workload = load_workload(args)
    console.print(workload.summary())
    try:
        steps = [float(s) for s in args.energy_steps.split(",") if s.strip()]
    except ValueError:
        raise ValueError(f"--energy-steps must be seconds separated by commas, "
                         f"not {args.energy_steps!r}") from None
    config = PuppetConfig(
        machine_nodes=workload.machine_nodes, node_watts=args.node_watts,
        idle_fraction=args.idle_fraction,
        scheduling=SchedulingConfig(args.policy, args.estimate, args.trigger,
                                    not args.no_backfill))
    horizon = max((job.st + job.rt for job in workload.jobs), default=1.0)
    columns = (TextColumn("simulated"), BarColumn(), TextColumn("day {task.fields[day]:.1f}"),
               TextColumn("{task.fields[done]} jobs done"), TimeElapsedColumn())
    with Progress(*columns, console=console, transient=True) as bar:
        task = bar.add_task("run", total=horizon, day=0.0, done=0)

        def progress(now: float, done: int) -> None:
            bar.update(task, completed=min(now, horizon), day=now / 86400, done=done)

        result = simulate(workload.jobs, config, seed=args.seed, energy_steps=steps,
                          time_offset=workload.time_offset, progress=progress)
    result.metrics["rejected_jobs"] = len(workload.rejected)
    result.metrics["trace"] = str(workload.path) if workload.path else "synthetic"
    paths = write_results(args.out, result.jobs, result.metrics, result.power_times,
                          result.power_watts, end=result.end)
    workload.rejected.to_csv(args.out / "rejected.csv", index=False)
    if not args.no_plots and len(result.jobs):
        from modules.metrics import daily_energy
        from modules.plots import plot_daily_energy, plot_power
        plot_daily_energy(daily_energy(result.power_times, result.power_watts, result.end),
                          args.out / "daily_energy.png")
        plot_power(result.power_times, result.power_watts, args.out / "power.png")
    print_metrics(console, result.metrics)
    if result.interrupted:
        console.print(f"[yellow]interrupted: {len(result.jobs)} finished jobs written[/]")
    console.print(f"results in {args.out}/: {', '.join(sorted(p.name for p in paths.values()))}")
    return 130 if result.interrupted else 0


def print_metrics(console, metrics: dict) -> None:
    from rich.table import Table

    table = Table(title="PuPPET run")
    table.add_column("metric")
    table.add_column("value", justify="right")
    for key, value in metrics.items():
        if isinstance(value, dict):
            continue
        text = f"{value:,.4g}" if isinstance(value, float) else str(value)
        table.add_row(key, text)
    console.print(table)


if __name__ == "__main__":
    sys.exit(main())
