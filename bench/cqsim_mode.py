"""Benchmark: CQSim's EASY on the net against the independent reference, on
every job of every whole trace in ../shared/data.

    python bench/cqsim_mode.py                 # the four traces, FCFS and WFP
    python bench/cqsim_mode.py --denser 4      # also with submit times divided by 4
    python bench/cqsim_mode.py --trace theta_2022.swf

For each trace (read as CQSim would: ``tests/real_traces.AS_CQSIM``) and
policy it runs ``nets.puppet.simulate`` with ``estimate="mixed"`` and
``overrun="clamp"``, and ``tests/reference_cqsim.py`` on the trace as the
reference reads it itself, and prints one line::

    TRACE POLICY jobs=N identical=N net_s=T reference_s=R requested=P% actual=Q%

``identical`` counts the jobs with the same start and end in both;
``requested`` and ``actual`` are the shares of jobs that the net's other
estimate modes (with overruns kept, as before CQSim's mode existed) start
when CQSim's rule does.  Times are CPU seconds (``time.process_time``).
Without the data the benchmark says so and exits 0.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

import reference_cqsim  # noqa: E402  (tests/reference_cqsim.py, the oracle)
from real_traces import AS_CQSIM, SWF_DIR  # noqa: E402
from modules.batch_scheduling import SchedulingConfig  # noqa: E402
from modules.swf import read_swf  # noqa: E402
from nets.puppet import PuppetConfig, simulate  # noqa: E402


def schedule(jobs, machine: int, time_offset: float, **scheduling) -> dict:
    config = PuppetConfig(machine, scheduling=SchedulingConfig(**scheduling))
    result = simulate(jobs, config, time_offset=time_offset)
    return {row.job_id: (row.start, row.end) for row in result.jobs.itertuples()}


def timed(function):
    began = time.process_time()
    return function(), time.process_time() - began


def same_starts(one: dict, other: dict) -> float:
    return sum(one[job][0] == other.get(job, (None,))[0] for job in one) / len(one)


def compare(name: str, policy: str, denser: float) -> bool:
    options = AS_CQSIM[name]
    workload = read_swf(SWF_DIR / name, **options)
    offset = workload.time_offset
    jobs = [job._replace(st=job.st / denser) for job in workload.jobs]
    reference_jobs, machine = reference_cqsim.read_trace(
        SWF_DIR / name, procs_per_node=workload.procs_per_node,
        unknown_walltime=options["unknown_walltime"])
    reference_jobs = [job._replace(st=(job.st - offset) / denser) for job in reference_jobs]
    net, net_s = timed(lambda: schedule(jobs, machine, 0.0, policy=policy, estimate="mixed",
                                        overrun="clamp"))
    expected, reference_s = timed(lambda: reference_cqsim.simulate(reference_jobs, machine,
                                                                   policy))
    identical = sum(net.get(job) == interval for job, interval in expected.items())
    others = {estimate: same_starts(expected, schedule(jobs, machine, 0.0, policy=policy,
                                                       estimate=estimate, overrun="keep"))
              for estimate in ("requested", "actual")}
    label = name if denser == 1 else f"{name} (x{denser:g} denser)"
    print(f"{label} {policy} jobs={len(expected):,} identical={identical:,} "
          f"net_s={net_s:.1f} reference_s={reference_s:.1f} "
          f"requested={100 * others['requested']:.1f}% actual={100 * others['actual']:.1f}%",
          flush=True)
    return identical == len(expected) == len(net)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trace", action="append", choices=sorted(AS_CQSIM),
                        help="a trace of ../shared/data/swf (default: all four)")
    parser.add_argument("--denser", type=float, action="append", default=[],
                        help="also run with submit times divided by this (load x this)")
    args = parser.parse_args()
    if not SWF_DIR.exists():
        print(f"{SWF_DIR} not present: nothing to compare")
        return 0
    agree = True
    for name in args.trace or sorted(AS_CQSIM):
        for denser in [1.0, *args.denser]:
            for policy in ("fcfs", "wfp"):
                agree &= compare(name, policy, denser)
    print("every job identical" if agree else "DIFFERENCES: see the lines above")
    return 0 if agree else 1


if __name__ == "__main__":
    sys.exit(main())
