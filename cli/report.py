"""What ``cpn run`` prints when a run is over: its metrics as a table
grouped by topic, with units (:func:`metric_rows`), and what an
interrupted run wrote (:func:`interruption_summary`)."""

from __future__ import annotations

from pathlib import Path
from typing import Callable

from .quantities import (format_duration, format_energy, format_makespan, format_power,
                         format_relative, format_step, significant)

#: Keys of metrics.json that say how a run was set up, not how it went.
INTERNAL_METRICS = frozenset({"config", "capping", "energy_saving", "energy_mwh", "makespan",
                              "series_start_s", "series_end_s", "bsld_threshold_s",
                              "energy_kwh", "machine_nodes", "trace", "complete",
                              "size_unit"})


def _count(value) -> str:
    return f"{value:,}"


def _percent(value) -> str:
    return f"{100 * value:.1f} %"


def _node_hours(seconds) -> str:
    return f"{seconds / 3600:,.0f}"


#: The metrics shown by name, in order: ``(group, key, label, format)``.  A
#: label may depend on the metrics (a callable); a format that returns
#: None leaves the row out.
NAMED_METRICS: tuple[tuple[str, str, str | Callable[[dict], str],
                           Callable[..., str | None]], ...] = (
    ("jobs", "jobs", "finished", _count),
    ("jobs", "rejected_jobs", "rejected (see rejected.csv)", _count),
    ("jobs", "overrun_jobs", "ran past their requested time", _count),
    ("jobs", "past_request_jobs", "outlasted their request as simulated",
     lambda v: _count(v) if v else None),
    # Only a stopped run has unfinished jobs; its console says so too.
    ("jobs", "unfinished_jobs", "unfinished (see unfinished.csv)",
     lambda v: _count(v) if v else None),
    ("scheduling", "utilization", "utilization", _percent),
    ("scheduling", "wait_mean_s", "wait, mean", format_duration),
    ("scheduling", "wait_median_s", "wait, median", format_duration),
    ("scheduling", "wait_p90_s", "wait, 90th percentile", format_duration),
    ("scheduling", "wait_p99_s", "wait, 99th percentile", format_duration),
    ("scheduling", "wait_max_s", "wait, max", format_duration),
    ("scheduling", "bounded_slowdown_mean",
     lambda metrics: f"bounded slowdown, mean ({metrics.get('bsld_threshold_s', 10.0):g} s)",
     lambda v: f"{v:,.2f}"),
    ("scheduling", "makespan_s", "makespan", format_makespan),
    ("energy and power", "energy_j", "energy", format_energy),
    ("energy and power", "power_mean_w", "power, mean", format_power),
    ("energy and power", "power_peak_w", "power, peak", format_power),
    ("energy and power", "cap_w",
     lambda metrics: f"power cap ({metrics.get('capping', 'none')})", format_power),
    ("energy and power", "uncapped_peak_w", "peak of the uncapped run", format_power),
    ("energy and power", "jobs_over_cap_alone", "jobs over the cap alone", _count),
    ("energy and power", "time_above_cap_s", "time above the cap", format_duration),
    ("energy and power", "cap_excess_max_w", "most above the cap",
     lambda v: format_power(v) if v else None),
    ("energy and power", "edp_j_s", "EDP (energy × makespan)", lambda v: f"{v:.3e} J·s"),
    ("sleeping nodes", "shutdowns", "shutdowns", _count),
    ("sleeping nodes", "power_ons", "boots", _count),
    ("sleeping nodes", "max_active_nodes", "most nodes on at once", _count),
    ("sleeping nodes", "active_node_s", "node-hours on", _node_hours),
    ("sleeping nodes", "inactive_node_s", "node-hours asleep", _node_hours),
    ("sleeping nodes", "energy_accounting_mwh", "energy by node states",
     lambda v: format_energy(v * 3.6e9)),
    ("failures (TOPPER)", "failures", "failures", _count),
    ("failures (TOPPER)", "lost_node_hours", "lost node-hours", significant),
    ("failures (TOPPER)", "system_efficiency", "system efficiency", _percent),
    ("failures (TOPPER)", "partially_replicated_jobs", "jobs partially replicated", _count),
)

ENERGY_STEPS = "fixed-step energy vs exact (PuPPET §4)"


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
    steps = sorted((step, key) for key in metrics if (step := _step_seconds(key)) is not None)
    known = INTERNAL_METRICS | {key for _, key, _, _ in NAMED_METRICS} | {
        key for _, key in steps}
    return (_named_rows(metrics) + _energy_step_rows(metrics, steps)
            + [("other", key, _by_unit(key, value)) for key, value in metrics.items()
               if key not in known and value is not None
               and not isinstance(value, (dict, list, tuple))])


def _named_rows(metrics: dict) -> list[tuple[str, str, str]]:
    """The rows of :data:`NAMED_METRICS` whose metric is there."""
    rows = []
    for group, key, label, show in NAMED_METRICS:
        value = metrics.get(key)
        text = None if value is None else show(value)
        if text is not None:
            rows.append((group, label(metrics) if callable(label) else label, text))
    return rows


def _energy_step_rows(metrics: dict, steps: list[tuple[float, str]]
                      ) -> list[tuple[str, str, str]]:
    """Each fixed-step estimate as its difference from the exact energy
    (as energy when there is no exact energy to compare with)."""
    exact = metrics.get("energy_j")
    return [(ENERGY_STEPS, f"{format_step(step)} step",
             format_relative(metrics[key], exact) if exact else format_energy(metrics[key]))
            for step, key in steps]


def _step_seconds(key: str) -> float | None:
    """``energy_step_900s_j`` -> 900.0; None for any other key."""
    if key.startswith("energy_step_") and key.endswith("s_j"):
        try:
            return float(key[len("energy_step_"):-len("s_j")])
        except ValueError:
            return None
    return None


def _by_unit(key: str, value) -> str:
    """A metric this module does not name, shown by its unit suffix."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return str(value)
    if key.endswith("_s"):
        return format_duration(value)
    if key.endswith("_j"):
        return format_energy(value)
    if key.endswith("_w"):
        return format_power(value)
    if isinstance(value, int):
        return f"{value:,}"
    return f"{value:,.4g}"


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
