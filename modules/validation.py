"""How far a simulated schedule is from the one its trace logged.

Every SWF trace with a wait field records a real schedule: a job submitted
at ``submit`` waited ``wait`` seconds and ran ``runtime`` seconds on its
nodes.  A user who models their machine first wants to know how close the
model comes to what happened.  :func:`validate` compares, job by job and
over time:

- each job's simulated start with its logged one (start error: mean,
  median, percentiles of its size, the mean signed error, and the share of
  jobs within a minute and within an hour);
- the distribution of waits and of bounded slowdowns (mean, median, 90th
  percentile), simulated against logged, with the relative error;
- utilization per day (or week), simulated against logged, and the root
  mean square of the difference.  Over the whole trace the two are nearly
  equal whatever the model does (the same jobs do the same work; only the
  ends of the span differ), so the whole-trace figure proves nothing and is
  given only with that warning;
- queue length over time (jobs submitted and not yet started).

It also says where the logged schedule itself breaks the stated machine
(more nodes busy than the machine has, as on several public traces), and
which jobs the log ran that the model refused (too large for the machine,
say).  Jobs whose wait is unknown (``-1``) are left out and counted (a job
whose submit time is unknown has no logged start either, and the reader
rejects it); a trace whose waits are all unknown has no logged schedule
(:class:`NoLoggedSchedule`).

All times are on the trace's clock (seconds); sizes in the workload's unit.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from .metrics import bounded_slowdown
from .power_steps import SECONDS_PER_DAY, binned_power

#: Lengths of the periods utilization is compared over.
PERIODS = {"day": SECONDS_PER_DAY, "week": 7 * SECONDS_PER_DAY}
#: Start errors a user reads at a glance: within a minute, within an hour.
TOLERANCES = {"within_1_min": 60.0, "within_1_h": 3600.0}
#: Columns of :attr:`Validation.jobs`, one row per job both schedules ran.
JOB_COLUMNS = ("job_id", "submit", "nodes", "logged_start", "simulated_start", "start_error",
               "logged_wait", "simulated_wait", "logged_runtime", "simulated_runtime")
#: The two schedules, in the order reports show them.
SIDES = ("logged", "simulated")
WHOLE_TRACE_NOTE = ("over the whole trace both utilizations are set by the work the jobs "
                    "offer and the span they cover, whatever the schedule: they prove nothing; "
                    "compare them per period")


class NoLoggedSchedule(ValueError):
    """The trace records no wait for any job: there is nothing to compare."""


@dataclass
class Validation:
    """A simulated schedule measured against the logged one.

    ``summary`` holds the numbers (plain values, ready for JSON); the
    frames hold what the plots and CSV files show: ``jobs`` (per job,
    :data:`JOB_COLUMNS`), ``utilization`` (per period: ``start, logged,
    simulated``), ``queue`` (mean queue length per bin: ``start, logged,
    simulated``), ``refused`` (jobs the log ran that the model did not:
    ``job_id, line, reason, nodes, submit, wait, runtime``) and
    ``over_machine`` (intervals when the logged schedule used more than
    the machine: ``start, end, peak``).
    """

    summary: dict
    jobs: pd.DataFrame
    utilization: pd.DataFrame
    queue: pd.DataFrame
    refused: pd.DataFrame
    over_machine: pd.DataFrame = field(
        default_factory=lambda: pd.DataFrame(columns=["start", "end", "peak"]))


def ran_in_log(log: pd.DataFrame) -> pd.DataFrame:
    """The jobs the log ran, with a known start (submit and wait not -1):
    ``job_id, submit, start, end, nodes`` (``log`` as
    :attr:`modules.workload.Workload.log`)."""
    ran = log[(log["runtime"] > 0) & (log["wait"] >= 0) & (log["submit"] != -1)
              & (log["nodes"] > 0)]
    start = ran["submit"] + ran["wait"]
    return pd.DataFrame({"job_id": ran["job_id"], "submit": ran["submit"], "start": start,
                         "end": start + ran["runtime"], "nodes": ran["nodes"]}
                        ).reset_index(drop=True)


def check_logged_schedule(log: pd.DataFrame) -> None:
    """Refuse a log that says of no job when it started (NASA's and Atlas'
    archive versions: their wait field is -1 throughout)."""
    if not (log["wait"] >= 0).any():
        raise NoLoggedSchedule("no logged schedule: field 3 (wait time) is unknown (-1) on "
                               "every job line, so the trace does not say when its jobs "
                               "started; there is nothing to validate against")
    if ran_in_log(log).empty:
        raise NoLoggedSchedule("no logged schedule: no job with a known wait ran (run time "
                               "> 0)")


def step_series(starts, ends, amounts) -> tuple[np.ndarray, np.ndarray]:
    """The sum of ``amounts`` over the intervals ``[start, end)``, as a step
    series ``(times, values)`` with one entry per instant (all changes of
    the instant applied): busy nodes from jobs' runs, queue length from
    their waits."""
    amounts = np.asarray(amounts, dtype=float)
    times = np.concatenate([np.asarray(starts, dtype=float), np.asarray(ends, dtype=float)])
    order = np.argsort(times, kind="stable")
    times = times[order]
    values = np.cumsum(np.concatenate([amounts, -amounts])[order])
    last_of_instant = np.append(times[1:] != times[:-1], True)
    return times[last_of_instant], values[last_of_instant]


def binned_mean(starts, ends, amounts, origin: float, end: float, width: float) -> np.ndarray:
    """Time-weighted mean of :func:`step_series` over consecutive bins of
    ``width`` seconds from ``origin`` (the last bin ends at ``end``)."""
    times, values = step_series(starts, ends, amounts)
    times = np.insert(times, 0, origin)  # nothing before the first change
    values = np.insert(values, 0, 0.0)
    return binned_power(times, values, end, width)["mean"].to_numpy()


def compare(logged, simulated) -> dict:
    """``{"logged", "simulated", "relative_error"}``: the relative error is
    (simulated - logged) / logged, None where the logged value is 0."""
    logged, simulated = float(logged), float(simulated)
    error = (simulated - logged) / logged if logged else None
    return {"logged": logged, "simulated": simulated, "relative_error": error}


def distribution(logged: np.ndarray, simulated: np.ndarray) -> dict:
    """Mean, median and 90th percentile of both, compared."""
    return {"mean": compare(logged.mean(), simulated.mean()),
            "median": compare(np.median(logged), np.median(simulated)),
            "p90": compare(np.percentile(logged, 90), np.percentile(simulated, 90))}


def start_error_summary(error: np.ndarray) -> dict:
    """Start errors (simulated minus logged start, seconds) in a few numbers."""
    size = np.abs(error)
    median, p90, p99 = np.percentile(size, [50, 90, 99])
    return {"mean_abs_s": float(size.mean()), "median_abs_s": float(median),
            "p90_abs_s": float(p90), "p99_abs_s": float(p99), "max_abs_s": float(size.max()),
            "mean_signed_s": float(error.mean()),
            **{name: float((size <= seconds).mean()) for name, seconds in TOLERANCES.items()}}


def over_machine(logged: pd.DataFrame, machine: int) -> pd.DataFrame:
    """The intervals in which the logged schedule kept more than ``machine``
    nodes busy: ``start, end, peak``."""
    times, busy = step_series(logged["start"], logged["end"], logged["nodes"])
    above = busy > machine  # never at the last change, where every job has ended
    if not above.any():
        return pd.DataFrame(columns=["start", "end", "peak"])
    ends = np.append(times[1:], times[-1])
    # a run of consecutive entries above the machine is one interval
    first = np.flatnonzero(above & ~np.insert(above[:-1], 0, False))
    last = np.flatnonzero(above & ~np.append(above[1:], False))
    peaks = [busy[a:b + 1].max() for a, b in zip(first, last)]
    return pd.DataFrame({"start": times[first], "end": ends[last], "peak": peaks})


def over_machine_summary(intervals: pd.DataFrame, machine: int, span: float) -> dict | None:
    """When and by how much the log exceeds the machine, or None."""
    if intervals.empty:
        return None
    worst = intervals.loc[intervals["peak"].idxmax()]
    seconds = float((intervals["end"] - intervals["start"]).sum())
    return {"machine": int(machine), "peak": int(worst["peak"]),
            "peak_at": float(worst["start"]), "excess": int(worst["peak"] - machine),
            "intervals": int(len(intervals)), "seconds_above": seconds,
            "share_of_time": seconds / span if span > 0 else None,
            "first": float(intervals["start"].min()), "last": float(intervals["end"].max())}


def validate(simulated: pd.DataFrame, log: pd.DataFrame, rejected: pd.DataFrame,
             machine: int, period: str = "day", bsld_threshold: float = 10.0,
             window: tuple[float, float] | None = None, replayed=(),
             failed_runs=()) -> Validation:
    """Measure ``simulated`` (job records on the trace's clock: ``job_id,
    submit, start, end, nodes``) against the schedule of ``log``
    (:attr:`modules.workload.Workload.log`) on a machine of ``machine`` nodes.
    ``rejected`` (the workload's) says why the model refused the jobs the
    log ran but the simulation did not.  Both schedules are counted with
    the job sizes the model gave the jobs.

    A log of a window of a machine's life (a Cobalt log) gives ``window =
    (opens, closes)``: utilization is compared over it alone (the log lacks
    the jobs submitted after it), and the waits of the jobs submitted in it
    are summarized apart (``wait_s_in_window``).  Jobs ``replayed`` at their
    logged start count in utilization, not in waits and start errors (the
    model did not schedule them); ``failed_runs`` (``(start, end, nodes)``)
    are simulated runs a failure cut short: busy in the simulation only."""
    if period not in PERIODS:
        raise ValueError(f"period must be one of {tuple(PERIODS)}, not {period!r}")
    check_logged_schedule(log)
    logged = ran_in_log(log)
    every_job, jobs, (origin, end) = compared_jobs(simulated, logged, window, replayed)
    span = end - origin
    utilization, utilization_numbers = utilization_summary(every_job, machine, origin, end,
                                                           period, failed_runs)
    queue_width = 3600.0 * max(1, math.ceil(span / 1500 / 3600))  # whole hours, <= 1,500 bins
    queue = queue_lengths(jobs, origin, end, queue_width)
    refused = _refused(log, logged, simulated, rejected)
    intervals = over_machine(logged, machine)
    slowdown = [bounded_slowdown(jobs[f"{side}_wait"], jobs[f"{side}_runtime"], bsld_threshold)
                for side in SIDES]
    summary = {
        "machine": int(machine),
        "jobs": {"compared": int(len(jobs)), "simulated": int(len(simulated)),
                 "ran_in_log": int(len(logged)),
                 "unknown_wait": int(simulated["job_id"].isin(
                     log.loc[log["wait"] < 0, "job_id"]).sum()),
                 "refused_by_model": int(len(refused)),
                 "refused_by_reason": {str(reason): int(count) for reason, count in
                                       refused["reason"].value_counts().items()}},
        "start_error": start_error_summary(jobs["start_error"].to_numpy()),
        "wait_s": distribution(*(jobs[f"{side}_wait"].to_numpy() for side in SIDES)),
        "bounded_slowdown": distribution(*slowdown),
        "bsld_threshold_s": float(bsld_threshold),
        "utilization": utilization_numbers,
        # the time-mean number of waiting jobs is their total wait over the span
        "queue_length": {"mean": compare(*(jobs[f"{side}_wait"].sum() / span
                                           for side in SIDES)),
                         "bin_s": queue_width},
        "over_machine": over_machine_summary(intervals, machine, span),
        "span": {"start": origin, "end": end},
    }
    if len(replayed):
        summary["jobs"]["replayed"] = int(len(every_job) - len(jobs))
    if window is not None:
        summary["wait_s_in_window"] = waits_from(jobs, origin)
    return Validation(summary, jobs, utilization, queue, refused, intervals)


def compared_jobs(simulated: pd.DataFrame, logged: pd.DataFrame,
                  window: tuple[float, float] | None, replayed
                  ) -> tuple[pd.DataFrame, pd.DataFrame, tuple[float, float]]:
    """Every job both schedules ran (:func:`job_comparison`), those the
    model scheduled (not ``replayed``), and the span compared: ``window``,
    or from the first submit to the last end."""
    every_job = job_comparison(simulated, logged)
    jobs = every_job[~every_job["job_id"].isin(set(replayed))].reset_index(drop=True)
    if jobs.empty:
        raise NoLoggedSchedule("every job both schedules ran was replayed at its logged "
                               "start: there is nothing to compare")
    if window is not None:
        return every_job, jobs, (float(window[0]), float(window[1]))
    end = max((every_job[f"{side}_start"] + every_job[f"{side}_runtime"]).max()
              for side in SIDES)
    return every_job, jobs, (float(every_job["submit"].min()), float(end))


def simulated_only(runs) -> pd.DataFrame:
    """Runs ``(start, end, nodes)`` of the simulation alone, as rows of
    :func:`job_comparison` that are busy on the simulated side only."""
    frame = pd.DataFrame(list(runs), columns=["start", "end", "nodes"], dtype=float)
    return pd.DataFrame({"nodes": frame["nodes"], "logged_start": frame["start"],
                         "logged_runtime": 0.0, "simulated_start": frame["start"],
                         "simulated_runtime": frame["end"] - frame["start"]})


def waits_from(jobs: pd.DataFrame, origin: float) -> dict:
    """The wait distributions of the jobs submitted from ``origin`` on."""
    inside = jobs[jobs["submit"] >= origin]
    return {"jobs": int(len(inside)),
            **distribution(*(inside[f"{side}_wait"].to_numpy() for side in SIDES))}


def utilization_summary(jobs: pd.DataFrame, machine: int, origin: float, end: float,
                        period: str, failed_runs=()) -> tuple[pd.DataFrame, dict]:
    """Utilization per period from ``origin`` to ``end`` (:func:`per_period`)
    and its numbers: the root mean square and largest difference, and the
    whole span's (busy node-seconds inside it over the machine's); the
    ``failed_runs`` busy the simulated side too."""
    width = PERIODS[period]
    if len(failed_runs):
        jobs = pd.concat([jobs, simulated_only(failed_runs)], ignore_index=True)
    utilization = per_period(jobs, machine, origin, end, width)
    difference = (utilization["simulated"] - utilization["logged"]).to_numpy()
    whole = []
    for side in SIDES:
        start = jobs[f"{side}_start"]
        inside = (np.clip(start + jobs[f"{side}_runtime"], origin, end)
                  - np.clip(start, origin, end))
        whole.append(float((jobs["nodes"] * inside).sum()) / (machine * (end - origin)))
    return utilization, {
        "period": period, "period_s": width, "periods": int(len(utilization)),
        "rms_difference": float(np.sqrt(np.mean(difference ** 2))),
        "max_abs_difference": float(np.abs(difference).max()),
        "whole_trace": {**compare(*whole), "note": WHOLE_TRACE_NOTE}}


def job_comparison(simulated: pd.DataFrame, logged: pd.DataFrame) -> pd.DataFrame:
    """One row per job both schedules ran (:data:`JOB_COLUMNS`)."""
    both = simulated.merge(logged, on="job_id", suffixes=("_simulated", "_logged"))
    if both.empty:
        raise NoLoggedSchedule("no job both ran in the log (with a known wait) and in the "
                               "simulation: there is nothing to compare")
    return pd.DataFrame({
        "job_id": both["job_id"], "submit": both["submit_logged"],
        "nodes": both["nodes_simulated"],
        "logged_start": both["start_logged"], "simulated_start": both["start_simulated"],
        "start_error": both["start_simulated"] - both["start_logged"],
        "logged_wait": both["start_logged"] - both["submit_logged"],
        "simulated_wait": both["start_simulated"] - both["submit_simulated"],
        "logged_runtime": both["end_logged"] - both["start_logged"],
        "simulated_runtime": both["end_simulated"] - both["start_simulated"]})


def per_period(jobs: pd.DataFrame, machine: int, origin: float, end: float,
               width: float) -> pd.DataFrame:
    """Utilization of each period of ``width`` seconds from ``origin``:
    ``start, logged, simulated`` (busy node-seconds over the period's; the
    part of a run before ``origin`` does not count)."""
    busy = {side: binned_mean(np.clip(jobs[f"{side}_start"], origin, None),
                              np.clip(jobs[f"{side}_start"] + jobs[f"{side}_runtime"], origin,
                                      None),
                              jobs["nodes"], origin, end, width) / machine for side in SIDES}
    return pd.DataFrame({"start": origin + np.arange(len(busy["logged"])) * width, **busy})


def queue_lengths(jobs: pd.DataFrame, origin: float, end: float, width: float) -> pd.DataFrame:
    """Mean number of jobs waiting in each bin of ``width`` seconds from
    ``origin``: ``start, logged, simulated``."""
    waiting = {side: binned_mean(np.clip(jobs["submit"], origin, None),
                                 np.clip(jobs[f"{side}_start"], origin, None),
                                 np.ones(len(jobs)), origin, end, width) for side in SIDES}
    return pd.DataFrame({"start": origin + np.arange(len(waiting["logged"])) * width, **waiting})


def _refused(log: pd.DataFrame, logged: pd.DataFrame, simulated: pd.DataFrame,
             rejected: pd.DataFrame) -> pd.DataFrame:
    """The jobs the log ran that the simulation did not, with the model's
    reason: ``job_id, line, reason, nodes, submit, wait, runtime``."""
    missing = log[log["job_id"].isin(logged["job_id"]) & ~log["job_id"].isin(simulated["job_id"])]
    reasons = rejected.drop_duplicates("job_id").set_index("job_id")["reason"]
    frame = missing.assign(reason=missing["job_id"].map(reasons).fillna("not simulated"))
    return frame[["job_id", "line", "reason", "nodes", "submit", "wait", "runtime"]
                 ].reset_index(drop=True)
