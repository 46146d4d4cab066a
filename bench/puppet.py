"""Benchmark: the PuPPET net and ``cpn run`` against a hand-written EASY loop.

    python bench/puppet.py               # the speed goals on 20,000 synthetic jobs, 64 nodes
    python bench/puppet.py --million     # also 1,000,000 jobs under WFP (a minute or more)
    python bench/puppet.py --curie       # also a 20,000-job prefix of CEA-Curie (if present)
    python bench/puppet.py --profile wfp --cap 70% --capping dvfs   # cProfile of one cpn run
    python bench/puppet.py --cases wfp wfp-sleeping  # only these cpn run cases and their goals
    python bench/puppet.py --instructions  # the cases' instruction counts (valgrind), not CPU

The workload is ``bench/small_machine.py``'s seeded trace.  The floor is
``tests/reference_easy.py``, a plain event loop with EASY that shares no
code with the net, run on the same jobs in this process.  Every figure is
the median of ``--repeat`` runs, ours and the floor's alike, in CPU
seconds (``time.process_time`` here, the child's user + system time for
``cpn run``): the machine is shared, and CPU time is what the other
processes disturb least.  The ``cpn run`` cases run in rounds, each
round every case once, and a ratio to plain wfp is the median of the
ratios within a round: the machine's speed drifts between rounds (by a
quarter, some evenings), less within one.  Each line reads::

    GOAL: FIGURE (target TARGET) met|MISSED

and every run checks its schedule: the uncapped ones against the
reference (every job's start), every ``cpn run`` against the digest of
its ``jobs.csv`` recorded in :data:`SCHEDULES` (a capped run has no
independent reference; the digest says it did not change).

A case's ratio to plain wfp mixes two costs: the model's machinery and
its workload.  A cap or checkpoints make jobs last longer, so more wait
and each pass orders a longer queue; a cap also rejects the jobs it could
never hold, so fewer run.  Under each such ratio a line gives the
workload's part alone: the floor on the jobs as they ran in that case
against the floor on all of them as submitted.

CPU time on a shared machine drifts by 10-15 % between runs, more than
many changes are worth.  ``--instructions`` counts instead the machine
instructions of each ``cpn run`` case under valgrind's callgrind (with a
fixed hash seed, so a repeat gives the same count to within about 1 %):
slower (minutes a case, run side by side on every core), but the same on
a busy machine as on a quiet one.
"""

from __future__ import annotations

import argparse
import concurrent.futures as futures
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests"), str(ROOT / "bench")]

import reference_easy  # noqa: E402  (tests/reference_easy.py, the floor and the oracle)
from child_process import (callgrind_instructions, child_cpu, cpn_command,  # noqa: E402
                           cpn_run, durations_of, schedule_digest, waits_of)
from small_machine import NODES, write_trace  # noqa: E402

JOBS = 20_000
MILLION = 1_000_000
CURIE = ROOT.parent / "shared" / "data" / "swf" / "CEA-Curie-2011-2.1-cln.swf.gz"

#: ``cpn run`` cases on the 20,000-job trace: name -> extra flags.
RUNS = {
    "wfp": ["--policy", "wfp"],
    "fcfs": ["--policy", "fcfs"],
    "wfp-dvfs-70%": ["--policy", "wfp", "--cap", "70%", "--capping", "dvfs"],
    "wfp-wait-70%": ["--policy", "wfp", "--cap", "70%", "--capping", "wait"],
    "wfp-block-70%": ["--policy", "wfp", "--cap", "70%", "--capping", "block"],
    "wfp-topper": ["--policy", "wfp", "--resilience", "checkpoint"],
    "wfp-sleeping": ["--policy", "wfp", "--sleep-after", "1800"],
}
#: The goals on a case's cost against plain wfp's: case -> the most it may be.
RATIO_TARGETS = {"wfp-dvfs-70%": 1.5, "wfp-wait-70%": 1.5, "wfp-block-70%": 1.5,
                 "wfp-topper": 1.3, "wfp-sleeping": 1.3}
#: The schedule each run gave when this benchmark was written: 12 hex
#: digits of the SHA-256 of its jobs.csv's (job_id, start, end) rows.
SCHEDULES = {
    "wfp": "60c2425806a8", "fcfs": "d9bc042f5e4b", "wfp-dvfs-70%": "fa87bf145e55",
    "wfp-wait-70%": "422f580591db", "wfp-block-70%": "319f231cbba0",
    "wfp-topper": "b0cd6ab31627", "wfp-sleeping": "60c2425806a8",
}


# -- measuring ---------------------------------------------------------------

def median_cpu(function, repeat: int):
    """``(median CPU seconds over repeat runs, last result)``."""
    times, result = [], None
    for _ in range(repeat):
        began = time.process_time()
        result = function()
        times.append(time.process_time() - began)
    return statistics.median(times), result


def reference_waits(jobs, policy: str) -> dict[int, float]:
    starts = reference_easy.simulate(jobs, NODES, policy, "requested")
    return {job.id: round(starts[job.id] - job.st, 3) for job in jobs}


class Report:
    """The lines printed, and whether every schedule was the expected one."""

    def __init__(self):
        self.schedules_ok = True

    def goal(self, name: str, figure: float, target: float, unit: str = "") -> None:
        verdict = "met" if figure <= target else "MISSED"
        print(f"{name}: {figure:.2f}{unit} (target <= {target:g}{unit}) {verdict}", flush=True)

    def info(self, text: str) -> None:
        print(f"  {text}", flush=True)

    def check(self, what: str, agree: bool) -> None:
        self.schedules_ok &= agree
        if not agree:
            print(f"  SCHEDULE CHANGED: {what}", flush=True)


# -- the cases -----------------------------------------------------------------

def simulation_time(report: Report, jobs, repeat: int) -> dict[str, float]:
    """The net against the floor in one process, simulation alone."""
    from modules.batch_scheduling import SchedulingConfig
    from nets.puppet import PuppetConfig, simulate

    floors = {}
    for policy in ("fcfs", "wfp"):
        config = PuppetConfig(NODES, scheduling=SchedulingConfig(policy, "requested"))
        ours, result = median_cpu(lambda: simulate(jobs, config), repeat)
        floor, starts = median_cpu(
            lambda: reference_easy.simulate(jobs, NODES, policy, "requested"), repeat)
        floors[policy] = floor
        ours_starts = dict(zip(result.jobs["job_id"].tolist(), result.jobs["start"].tolist()))
        report.check(f"simulate {policy} against the reference", ours_starts == starts)
        report.goal(f"{policy} simulation / hand-written floor", ours / floor, 1.0, "x")
        report.info(f"simulate {ours:.2f} s, floor {floor:.2f} s")
    return floors


def command_runs(report: Report, trace: Path, jobs, repeat: int, work: Path,
                 cases: list[str]) -> dict[str, list[float]]:
    """The ``cpn run`` cases named, CPU seconds of each in ``repeat`` rounds
    that run every case in turn (a drift of the machine's speed between
    rounds touches every case alike); the capped ones with the uncapped
    peak cached by an untimed first run."""
    waits = {policy: reference_waits(jobs, policy) for policy in ("fcfs", "wfp")}
    cache = work / "cache"
    capped = [name for name in cases if "--cap" in RUNS[name]]
    if capped:
        cpn_run(trace, [*RUNS[capped[0]], "--no-plots"], work / "warm", cache)
    rounds: dict[str, list[float]] = {name: [] for name in cases}
    for _ in range(repeat):
        for name in cases:
            rounds[name].append(cpn_run(trace, [*RUNS[name], "--no-plots"], work / name,
                                        cache)[0])
    for name in cases:
        digest = check_schedule(report, name, work / name)
        if name in waits:
            report.check(f"{name} against the reference",
                         waits_of(work / name / "jobs.csv") == waits[name])
        report.info(f"cpn run {name}: {statistics.median(rounds[name]):.2f} s (digest {digest})")
    return rounds


def check_schedule(report: Report, name: str, out: Path) -> str:
    """The digest of case ``name``'s jobs.csv in ``out``, checked against
    the one recorded for it (:data:`SCHEDULES`)."""
    digest, expected = schedule_digest(out / "jobs.csv"), SCHEDULES[name]
    report.check(f"{name}: jobs.csv digest {digest}, expected {expected}", digest == expected)
    return digest


def jobs_as_run(jobs, jobs_csv: Path) -> list:
    """The jobs of ``jobs`` that ran in the run that wrote ``jobs_csv``
    (a cap may leave some out), each lasting as long as it ran there
    (slowed by DVFS, stretched by checkpoints and restarts), its requested
    time scaled alike."""
    lasted = durations_of(jobs_csv)
    return [job._replace(rt=lasted[job.id],
                         wt=max(lasted[job.id], job.wt * lasted[job.id] / job.rt if job.rt
                                else job.wt))
            for job in jobs if job.id in lasted]


def workload_ratio(jobs, name: str, work: Path, repeat: int) -> tuple[float, int]:
    """What case ``name``'s workload alone costs: the floor (plain EASY
    under WFP, no cap, no failures) on the jobs as they ran in that case,
    against the floor on the jobs as submitted.  A cap or checkpoints make
    jobs last longer, so more of them wait and each pass orders a longer
    queue; this ratio is that cost, which any simulator of the case pays,
    and what the case's own ratio to plain wfp should be read against.
    Also how many jobs ran (a cap rejects those it could never hold)."""
    def floor(these):
        return median_cpu(lambda: reference_easy.simulate(these, NODES, "wfp", "requested"),
                          repeat)[0]
    ran = jobs_as_run(jobs, work / name / "jobs.csv")
    return floor(ran) / floor(jobs), len(ran)


def command_goals(report: Report, rounds: dict[str, list[float]], trace: Path,
                  work: Path, jobs, repeat: int) -> None:
    """The goals of the cases run: times are medians over the rounds, a
    ratio to plain wfp the median of the ratios within each round."""
    for capping in ("dvfs", "wait", "block"):
        name = f"wfp-{capping}-70%"
        if name in rounds:
            report.goal(f"cpn run {name}", statistics.median(rounds[name]), 2.0, " s")
    if "wfp-dvfs-70%" in rounds:
        cold, _ = cpn_run(trace, [*RUNS["wfp-dvfs-70%"], "--no-plots"], work / "cold",
                          work / "empty-cache")
        report.info(f"wfp-dvfs-70% with no cached peak (runs the uncapped run too): "
                    f"{cold:.2f} s")
    plain = rounds.get("wfp")
    for name, target in RATIO_TARGETS.items():
        if name in rounds and plain:
            ratio = statistics.median(case / base for case, base in zip(rounds[name], plain))
            report.goal(f"cpn run {name} / plain wfp", ratio, target, "x")
            workload, ran = workload_ratio(jobs, name, work, repeat)
            report.info(f"its workload alone: the floor on its {ran:,} jobs as they ran, "
                        f"against all {len(jobs):,} as submitted: {workload:.2f}x")


def instruction_counts(report: Report, trace: Path, work: Path, cases: list[str]) -> None:
    """Each case's instructions (callgrind), the capped ones with the
    uncapped peak cached by a first, plain run (which also checks the
    schedules); the ratios of the goals that have one, on instructions."""
    if shutil.which("valgrind") is None:
        report.info("skipped the instruction counts: valgrind is not installed")
        return
    cache = work / "cache"
    for name in cases:
        cpn_run(trace, [*RUNS[name], "--no-plots"], work / name, cache)
        check_schedule(report, name, work / name)
    environment = {**os.environ, "XDG_CACHE_HOME": str(cache), "PYTHONHASHSEED": "0"}
    counts = {}
    with futures.ThreadPoolExecutor(os.cpu_count() or 1) as pool:
        counted = {name: pool.submit(callgrind_instructions, [
            sys.executable, "-m", "cli.main", "run", "--trace", str(trace),
            "--out", str(work / f"{name}-counted"), *RUNS[name], "--no-plots"], environment)
            for name in cases}
        for name, future in counted.items():
            counts[name] = future.result()
            report.info(f"instructions, cpn run {name}: {counts[name] / 1e9:.2f} G")
    plain = counts.get("wfp")
    for name, target in RATIO_TARGETS.items():
        if name in counts and plain:
            report.goal(f"cpn run {name} / plain wfp, in instructions",
                        counts[name] / plain, target, "x")


def fixed_cost(report: Report, work: Path, repeat: int) -> None:
    """``cpn run`` on ten jobs: what a run costs besides simulating.

    The goal's figure is a run up to its results: its files written and its
    table printed.  That is the whole of a ``--no-plots`` run, and the part
    of a default run before its plots, which are drawn after the table; the
    plots' own cost is printed beside it.  It is measured as an installed
    package runs, with the modules' bytecode compiled once by a first run;
    the same runs in the environment as it is are printed too (where it sets
    ``PYTHONDONTWRITEBYTECODE``, they compile our modules at each start)."""
    tiny = write_trace(work / "ten.swf", 10)
    bytecode, cache = work / "bytecode", work / "c"

    def median_run(flags, compiled):
        return statistics.median(cpn_run(tiny, flags, work / "ten", cache,
                                         bytecode if compiled else None)[0]
                                 for _ in range(repeat))

    def median_help(compiled):
        return statistics.median(cpn_command(["--help"], cache,
                                             bytecode if compiled else None)[0]
                                 for _ in range(repeat))

    cpn_run(tiny, [], work / "ten", cache, bytecode)  # compiles the bytecode, plots included
    results, plots = median_run(["--no-plots"], True), median_run([], True)
    cold_results, cold_plots = median_run(["--no-plots"], False), median_run([], False)
    help_cost, cold_help = median_help(True), median_help(False)
    numpy = statistics.median(child_cpu([sys.executable, "-c", "import numpy"])
                              for _ in range(repeat))
    pandas = statistics.median(child_cpu([sys.executable, "-c", "import numpy, pandas"])
                               for _ in range(repeat))
    report.goal("fixed cost of a cpn run up to its results (10 jobs, --no-plots)", results,
                0.3, " s")
    report.info(f"the default run, plots drawn after the table: {plots:.2f} s "
                f"(the plots {plots - results:.2f} s)")
    report.info(f"in this environment as it is ({_bytecode_setting()}): "
                f"--no-plots {cold_results:.2f} s, default {cold_plots:.2f} s, "
                f"cpn --help {cold_help:.2f} s")
    report.goal("cpn --help", help_cost, 0.15, " s")
    report.info(f"Python importing numpy alone {numpy:.2f} s, numpy and pandas {pandas:.2f} s")


def _bytecode_setting() -> str:
    value = os.environ.get("PYTHONDONTWRITEBYTECODE")
    return f"PYTHONDONTWRITEBYTECODE={value}" if value else "bytecode written"


def million(report: Report, work: Path) -> None:
    trace = write_trace(work / "million.swf", MILLION)
    cpu, rss_kb = cpn_run(trace, ["--policy", "wfp", "--no-plots"], work / "million",
                          work / "c")
    report.goal("1,000,000 jobs wfp, cpn run", cpu, 60, " s")
    report.goal("1,000,000 jobs wfp, peak memory", rss_kb / 1e6, 1.0, " GB")


def curie(report: Report, repeat: int) -> None:
    """The net and the floor on a real trace's prefix (Curie's 5,544 nodes)."""
    from modules.batch_scheduling import SchedulingConfig
    from modules.power_profile import assign_rack_power
    from modules.swf import read_swf
    from nets.puppet import PuppetConfig, simulate

    if not CURIE.exists():
        report.info(f"skipped Curie: {CURIE} is not here")
        return
    workload = read_swf(CURIE, procs_per_node=16)
    jobs = assign_rack_power(workload.jobs, seed=0)[:JOBS]
    for policy in ("fcfs", "wfp"):
        config = PuppetConfig(workload.machine_nodes,
                              scheduling=SchedulingConfig(policy, "requested"))
        ours, result = median_cpu(lambda: simulate(jobs, config), repeat)
        floor, starts = median_cpu(lambda: reference_easy.simulate(
            jobs, workload.machine_nodes, policy, "requested"), repeat)
        report.check(f"curie {policy}", dict(zip(result.jobs["job_id"].tolist(),
                                                   result.jobs["start"].tolist())) == starts)
        report.goal(f"curie-20k {policy} simulation / floor", ours / floor, 1.0, "x")


def profile(trace: Path, flags: list[str], top: int) -> None:
    import cProfile
    import pstats

    from cli.main import main as cpn

    with tempfile.TemporaryDirectory() as out:
        profiler = cProfile.Profile()
        profiler.runcall(cpn, ["run", "--trace", str(trace), "--out", out, "--no-plots",
                               *flags])
    stats = pstats.Stats(profiler, stream=sys.stdout).strip_dirs()
    stats.sort_stats("tottime").print_stats(top)
    stats.sort_stats("cumulative").print_stats(top)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3, help="runs of each case (median kept)")
    parser.add_argument("--million", action="store_true", help="also 1,000,000 jobs")
    parser.add_argument("--curie", action="store_true", help="also CEA-Curie's first 20,000")
    parser.add_argument("--profile", nargs=argparse.REMAINDER, metavar="CPN_RUN_FLAGS",
                        help="cProfile one cpn run on the trace instead")
    parser.add_argument("--top", type=int, default=30, help="functions shown by --profile")
    parser.add_argument("--cases", nargs="+", choices=list(RUNS), metavar="CASE",
                        help=f"only these cpn run cases (of {', '.join(RUNS)}) and their "
                             "goals, without the simulation and fixed-cost figures"
                             .replace("%", "%%"))  # argparse formats a help with %
    parser.add_argument("--instructions", action="store_true",
                        help="count the cpn run cases' instructions under valgrind "
                             "instead of timing them (minutes a case)")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as directory:
        work = Path(directory)
        trace = write_trace(work / "jobs.swf", JOBS)
        if args.profile is not None:
            profile(trace, args.profile, args.top)
            return 0
        from modules.swf import read_swf
        jobs = read_swf(trace).jobs
        report = Report()
        if args.instructions:
            print(f"# {JOBS:,} synthetic jobs on {NODES} nodes; instructions (callgrind)",
                  flush=True)
            instruction_counts(report, trace, work, args.cases or list(RUNS))
            print(f"# schedules: {'all as expected' if report.schedules_ok else 'CHANGED'}")
            return 0 if report.schedules_ok else 1
        print(f"# {JOBS:,} synthetic jobs on {NODES} nodes; CPU seconds, median of "
              f"{args.repeat}", flush=True)
        if args.cases is None:
            simulation_time(report, jobs, args.repeat)
        rounds = command_runs(report, trace, jobs, args.repeat, work, args.cases or list(RUNS))
        command_goals(report, rounds, trace, work, jobs, args.repeat)
        if args.cases is None:
            fixed_cost(report, work, args.repeat)
        if args.million:
            million(report, work)
        if args.curie:
            curie(report, args.repeat)
        print(f"# schedules: {'all as expected' if report.schedules_ok else 'CHANGED'}")
    return 0 if report.schedules_ok else 1


if __name__ == "__main__":
    sys.exit(main())
