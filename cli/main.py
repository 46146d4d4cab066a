"""``cpn``: the command line, a thin shell over the Python API.

``cpn run`` simulates a workload on the PuPPET model and writes per-job
records, metrics and plots; ``cpn step`` / ``cpn replay`` walk through any
net interactively; ``cpn check`` checks properties on its state space; ``cpn sweep`` runs a grid of experiments; ``cpn study``
runs one of the papers' studies.  Everything here is also reachable from
Python (``nets.puppet.simulate``, ``studies.sweep.run_sweep``,
``studies.study.run_study``), which is what a notebook uses.
"""

from __future__ import annotations

import argparse
import importlib
import math
import os
import sys
import warnings
from pathlib import Path

from .capping import (add_capping_arguments, build_cap, cap_spec, capping_method,
                      note_a_cap_that_never_binds, refuse_cap_below_idle, refuse_unread_options)
from .flags import CommandParser, in_flags, negative_values_attached, parse_command_line
from .output_dir import writable_directory
from .quantities import format_power
from .report import interruption_summary, print_metrics
from .resilience import (add_resilience_arguments, check_failure_options,
                         describe_partial_replication, describe_topper, topper_config)
from .scheduling import (add_scheduling_arguments, describe_overruns, describe_past_request,
                         overruns, past_request, scheduling_config)
from .sleeping import add_sleeping_arguments, check_sleeping_options, sleeping_nodes
from .values import existing_file, fraction, non_negative_int, positive_float
from .version import VersionAction
from .mira import add_mira_arguments
from .workload import add_trace_arguments, check_power_options


def add_run_parser(subparsers) -> None:
    run = subparsers.add_parser(
        "run", help="simulate a workload on the PuPPET model (TOPPER with --resilience)",
        description="Simulate a workload (an SWF trace, or by default a seeded synthetic "
                    "month on a Mira-like machine) on the PuPPET net, optionally under a "
                    "power cap and, with --resilience, with failures (TOPPER); print the "
                    "metrics and write DIR/jobs.csv, DIR/metrics.json, DIR/power.csv and "
                    "plots.")
    add_trace_arguments(run)
    add_mira_arguments(run)
    add_scheduling_arguments(run)
    run.add_argument("--power", choices=("drawn", "constant", "csv"), default="drawn",
                     help="job power: drawn per user/group from Mira's per-rack "
                          "distribution (default), a constant per node, or a CSV "
                          "(job_id,power)")
    run.add_argument("--power-csv", type=existing_file,
                     help="CSV of job_id,power (watts), read with --power csv")
    run.add_argument("--node-watts", type=positive_float, default=65_760 / 1024,
                     help="a node's power at full speed (W; default Mira's 64.2); drawn "
                          "job powers are Mira's spread scaled to it")
    run.add_argument("--idle-fraction", type=fraction, default=0.3,
                     help="an idle node's share of its full power (default 0.3)")
    run.add_argument("--energy-steps", default="60,300,900,1800,3600",
                     help="fixed-step energy estimates to report, in seconds (comma list; "
                          "default 60,300,900,1800,3600; '' for none)")
    run.add_argument("--seed", type=non_negative_int, default=0,
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
    a boot order for nodes that never sleep, --alpha without DVFS, a power
    CSV that --power does not read)."""
    refuse_unread_options(args, [capping_method(args)])
    check_failure_options(args, [capping_method(args)])
    check_sleeping_options(args)
    check_power_options(args)


#: What ``cpn --help`` says first (the docstring's first line is markup).
DESCRIPTION = ("Timed coloured Petri nets, and the PuPPET and TOPPER models of HPC "
               "machines: scheduling, power capping, failures and energy.")

#: The commands besides ``run``, in the order ``cpn --help`` lists them:
#: their names, and the module and function that add their parsers.
OTHER_COMMANDS = ((("step", "replay"), "step", "add_step_parsers"),
                  (("sweep",), "sweep", "add_sweep_parser"),
                  (("study",), "study", "add_study_parser"),
                  (("validate",), "validate", "add_validate_parser"),
                  (("check",), "check", "add_check_parser"))


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The parser of ``cpn``: of every command, or of ``command`` alone when
    it names one (so that a run imports none of the other commands' modules
    and builds none of their options)."""
    known = {"run", *(name for names, _, _ in OTHER_COMMANDS for name in names)}
    parser = CommandParser(prog="cpn", description=DESCRIPTION)
    parser.add_argument("--version", action=VersionAction, help="print the version and stop")
    subparsers = parser.add_subparsers(dest="command", required=True, metavar="COMMAND",
                                       help="run COMMAND --help for its options")
    if command not in known or command == "run":
        add_run_parser(subparsers)
    for names, module, adder in OTHER_COMMANDS:
        if command not in known or command in names:
            getattr(importlib.import_module(f"{__package__}.{module}"), adder)(subparsers)
    for command_parser in subparsers.choices.values():
        command_parser.set_defaults(command_parser=command_parser)  # for in_flags
    return parser


#: The BLAS libraries numpy may load (OpenBLAS, MKL) start a thread per
#: core, which then spin after each call: a simulation's arrays are small,
#: so those threads only burn CPU (a tenth of a second a run here) and, in
#: a sweep, crowd the cores its workers use.  A value the user set stands.
ONE_BLAS_THREAD = {"OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}


def main(argv: list[str] | None = None) -> int:
    for variable, value in ONE_BLAS_THREAD.items():
        os.environ.setdefault(variable, value)  # before numpy loads, and for sweep workers
    argv = sys.argv[1:] if argv is None else argv
    parser = build_parser(argv[0] if argv else None)
    args = parse_command_line(parser, negative_values_attached(argv, parser))
    try:
        with warnings.catch_warnings():
            warnings.showwarning = _one_line_warnings(args.command)
            if hasattr(args, "check"):
                args.check(args)
            return args.func(args) or 0
    except (ValueError, OSError) as error:
        message = in_flags(str(error), args.command_parser)
        print(f"cpn {args.command}: error: {message}", file=sys.stderr)
        return 2


def _one_line_warnings(command: str):
    """A warning of the model's (a run that may take very long, say) is
    said as errors are, in one line, when it is given: Python's own form
    names a source line, which speaks to programmers."""
    def show(message, category, filename, lineno, file=None, line=None):
        print(f"cpn {command}: warning: {message}", file=sys.stderr, flush=True)
    return show


def command_run(args) -> int:
    """``cpn run``: read the workload, run it (twice when a cap is a share of
    the uncapped peak), write the results and print the metrics."""
    from rich.console import Console

    from cpn.interrupts import ctrl_c_requests

    from .mira import (is_cobalt, note_replayed_overruns, refuse_mira_options_without_cobalt,
                       replayed_ids)
    from .workload import load_workload, refuse_nothing_to_run

    writable_directory(args.out, "--out")
    console = Console()
    workload = load_workload(args)
    refuse_mira_options_without_cobalt(args, workload)
    steps = energy_steps(args.energy_steps)
    config = puppet_config(args, workload.machine_nodes,
                           default_policy="wfp" if is_cobalt(workload) else "fcfs")
    model = topper_config(args, config, workload.time_offset)
    if is_cobalt(workload):
        refuse_other_models_on_mira(args, model)
    if model is not None:
        console.print(describe_topper(args, model))
    overran = overruns(workload.jobs, replayed_ids(workload))
    with ctrl_c_requests() as ctrl_c:  # from here on, Ctrl-C stops the run cleanly
        console.print(workload.summary())
        if overran:
            console.print(describe_overruns(overran, args.overrun))
        note_replayed_overruns(console, workload)
        capped = _capped(console, args, workload, config, model, stop=ctrl_c)
        if capped is None:
            console.print("[yellow]interrupted before the capped run started[/]")
            return 130
        workload, config, capping = capped
        refuse_nothing_to_run(workload)  # the cap may have refused every job
        result = _simulate(console, "simulated", workload, config, model, args, steps,
                           stop=ctrl_c)
    _add_run_metrics(result, workload, config, capping)
    result.metrics["overrun_jobs"] = overran
    for said in (describe_partial_replication(result.metrics, model),
                 describe_past_request(result.metrics["past_request_jobs"], args.overrun)):
        if said:
            console.print(f"[yellow]{said}[/]", highlight=False)
    written = _write_results(args, result, workload)
    print_metrics(console, result.metrics)
    written += _write_plots(args, result, capping.get("cap_w"))  # after the table: slowest
    if result.interrupted:
        console.print(f"[yellow]{interruption_summary(result)}[/]")
    console.print(f"results in {args.out}/: {', '.join(sorted(p.name for p in written))}")
    return 130 if result.interrupted else 0


def energy_steps(text: str) -> list[float]:
    """``--energy-steps``: seconds separated by commas (none: no estimates)."""
    if not text.strip():
        return []
    try:
        steps = [float(s) for s in text.split(",") if s.strip()]
    except ValueError:
        steps = []
    if not steps or not all(0 < step < math.inf for step in steps):
        raise ValueError(f"--energy-steps must be positive seconds separated by commas, "
                         f"not {text!r}")
    return steps


def puppet_config(args, machine_nodes: int, default_policy: str = "fcfs"):
    """The uncapped PuPPET configuration the options describe
    (``default_policy`` without ``--policy``)."""
    from nets.puppet import PuppetConfig

    return PuppetConfig(
        machine_nodes=machine_nodes, node_watts=args.node_watts,
        idle_fraction=args.idle_fraction,
        scheduling=scheduling_config(args, default_policy))


def _capped(console, args, workload, config, model, stop):
    """``(workload, config, capping)`` under the cap the options ask for:
    the cap resolved (a share of the peak of an uncapped run first), the
    jobs over the cap alone counted (and rejected with ``--over-cap
    reject``), and what ``capping`` adds to the metrics.  Unchanged and
    ``{}`` without a cap; None when Ctrl-C stopped the uncapped run."""
    from dataclasses import replace

    from modules.power_capping import OVER_CAP_REASON

    method, spec = capping_method(args), cap_spec(args)
    if spec is None:
        return workload, config, {}
    peak = None
    if spec.fraction is not None:
        peak = _uncapped_peak(console, args, workload, config, model, stop)
        if peak is None:
            return None
    cap_watts = spec.resolve(peak)
    share = "" if peak is None else f"{spec} of the uncapped peak {format_power(peak)}"
    refuse_cap_below_idle(cap_watts, share, config)
    config = replace(config, cap=build_cap(args, cap_watts), over_cap=args.over_cap,
                     **({"alpha": args.alpha} if method == "dvfs" else {}))
    capping = {"capping": method, "cap_w": cap_watts, "uncapped_peak_w": peak}
    console.print(f"capping: {method} at {format_power(cap_watts)}"
                  + (f" ({share})" if share else ""))
    if peak is None:
        note_a_cap_that_never_binds(console, args, cap_watts)
    over = config.over_cap_alone(workload.jobs)
    capping["jobs_over_cap_alone"] = len(over)
    if over and config.over_cap == "reject":
        workload = workload.reject((job.id for job in over), OVER_CAP_REASON)
        console.print(f"rejected {len(over):,} jobs whose power alone is above the cap")
    return workload, config, capping


def _uncapped_peak(console, args, workload, config, model, stop) -> float | None:
    """The peak of the uncapped run the options describe: remembered from an
    earlier run (``cli/uncapped_peak.py``), else simulated and remembered;
    None when Ctrl-C stopped it."""
    from .uncapped_peak import cached_peak, peak_key, remember_peak

    key = peak_key(args)
    peak = cached_peak(key)
    if peak is not None:
        console.print(f"uncapped peak {format_power(peak)}: remembered from an earlier run")
        return peak
    uncapped = _simulate(console, "uncapped run (for the cap)", workload, config,
                         model, args, stop=stop)
    if uncapped.interrupted:
        return None
    remember_peak(key, uncapped.metrics["power_peak_w"])
    return uncapped.metrics["power_peak_w"]


def _add_run_metrics(result, workload, config, capping: dict) -> None:
    """What the command line knows of the run beyond the model: the cap
    (and how long power was above it), the rejected jobs, the jobs that
    outlasted their request as simulated, the trace."""
    from modules.tables import row_count, stored

    from .mira import replayed_ids
    if capping and row_count(stored(result, "jobs")):  # the model's, under cpn run's name
        capping["time_above_cap_s"] = result.metrics.pop("cap_exceeded_s")
    result.metrics.update({key: value for key, value in capping.items() if value is not None})
    result.metrics["rejected_jobs"] = row_count(stored(workload, "rejected"))
    result.metrics["past_request_jobs"] = past_request(stored(result, "jobs"),
                                                       replayed_ids(workload))
    result.metrics["size_unit"] = workload.size_unit
    result.metrics["trace"] = str(workload.path) if workload.path else "synthetic"


def _write_results(args, result, workload) -> list[Path]:
    """jobs.csv, metrics.json, power.csv, unfinished.csv and rejected.csv in
    ``--out``; the paths written."""
    from modules.run_files import write_csv, write_results
    from modules.tables import stored  # the tables as the run made them: no pandas

    paths = write_results(args.out, stored(result, "jobs"), result.metrics, result.power_times,
                          result.power_watts, end=result.end,
                          unfinished=stored(result, "unfinished"))
    written = [*paths.values(), args.out / "rejected.csv"]
    write_csv(stored(workload, "rejected"), written[-1])
    return written


#: The plots ``cpn run`` draws in ``--out``.
PLOT_FILES = ("daily_energy.png", "power.png")


def _write_plots(args, result, cap_watts: float | None) -> list[Path]:
    """The plots of daily energy and system power, unless ``--no-plots``
    (or no job ran): those of an earlier run in ``--out`` are then removed,
    lest they be read as this run's.  Drawing them costs more than a small
    run: the table is printed first."""
    from modules.tables import row_count, stored

    if args.no_plots or not row_count(stored(result, "jobs")):
        for name in PLOT_FILES:
            (args.out / name).unlink(missing_ok=True)
        return []
    from modules.plots import plot_daily_energy, plot_power
    from modules.power_steps import daily_energy_columns
    days = daily_energy_columns(result.power_times, result.power_watts, result.end)
    daily, power = (args.out / name for name in PLOT_FILES)
    return [plot_daily_energy(days, daily),
            plot_power(result.power_times, result.power_watts, power, cap=cap_watts)]


def _simulate(console, label: str, workload, config, model, args, steps=(), stop=None):
    """One run with a progress bar (simulated days): of the PuPPET net for
    ``config``, or of TOPPER when ``model`` (its TopperConfig) is given;
    ``stop()`` turning true stops it (``nets.puppet.run_model``)."""
    from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

    from .mira import is_cobalt, mira_config, note_undefined_blocks

    horizon = max((job.st + job.rt for job in workload.jobs), default=1.0)
    columns = (TextColumn(label), BarColumn(), TextColumn("day {task.fields[day]:.1f}"),
               TextColumn("{task.fields[done]} jobs done"), TimeElapsedColumn())
    with Progress(*columns, console=console, transient=True) as bar:
        task = bar.add_task("run", total=horizon, day=0.0, done=0)

        def progress(now: float, done: int) -> None:
            bar.update(task, completed=min(now, horizon), day=now / 86400, done=done)

        if is_cobalt(workload):
            from nets.mira import simulate
            mira = mira_config(args, config)
            note_undefined_blocks(console, args, workload, mira)
            return simulate(workload, mira, seed=args.seed, energy_steps=steps,
                            progress=progress, stop=stop)
        options = dict(seed=args.seed, energy_steps=steps, time_offset=workload.time_offset,
                       progress=progress, stop=stop)
        return _run_model(workload.jobs, config, model, sleeping_nodes(args), options)


def refuse_other_models_on_mira(args, model) -> None:
    """The Mira model (a Cobalt log) has no power cap, failure model or
    sleeping nodes yet: refuse the options that ask for them."""
    asked = [what for what, given in (("fault tolerance (--resilience)", model is not None),
                                      ("power cap (--cap)", cap_spec(args) is not None),
                                      ("sleeping nodes", sleeping_nodes(args) is not None))
             if given]
    if asked:
        raise ValueError(f"a Cobalt log runs on the Mira model, which has no {asked[0]} yet")


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


if __name__ == "__main__":
    sys.exit(main())
