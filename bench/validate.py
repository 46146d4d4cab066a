"""Benchmark: the model's schedule against the logged one on every trace in
../shared/data, FCFS and WFP, planning with requested walltimes and with
CQSim's rule (``cpn validate``'s numbers, through the Python API).

    python bench/validate.py
    python bench/validate.py --trace theta_2022.swf --period week

Prints one line per run::

    TRACE POLICY ESTIMATE jobs=N wait_logged=W wait_simulated=S wait_error=E%
        utilization_rms=R points within_1h=H% seconds=T

and, for a trace that logs no waits (NASA, Atlas), why it cannot be
validated.  Overruns are killed at their limit, as ``cpn validate`` does by
default.  Without the data the benchmark says so and exits 0.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

from real_traces import SWF_DIR  # noqa: E402
from modules.batch_scheduling import SchedulingConfig  # noqa: E402
from modules.swf import read_swf  # noqa: E402
from modules.validation import NoLoggedSchedule, check_logged_schedule, validate  # noqa: E402
from nets.puppet import PuppetConfig, simulate  # noqa: E402

#: How each trace is read: Curie's processors are not a whole number of nodes.
TRACES = {"NASA-iPSC-1993-3.1-cln.swf": {}, "LLNL-Atlas-2006-2.1-cln.swf": {},
          "theta_2022.swf": {}, "CEA-Curie-2011-2.1-cln.swf.gz": {"size_unit": "procs"}}


def run(workload, policy: str, estimate: str, period: str) -> str:
    began = time.perf_counter()
    config = PuppetConfig(workload.machine_nodes, scheduling=SchedulingConfig(
        policy=policy, estimate=estimate, overrun="clamp"))
    result = simulate(workload.jobs, config, time_offset=workload.time_offset)
    summary = validate(result.jobs, workload.log, workload.rejected, workload.machine_nodes,
                       period).summary
    wait = summary["wait_s"]["mean"]
    return (f"jobs={summary['jobs']['compared']:,} wait_logged={wait['logged'] / 3600:,.2f}h "
            f"wait_simulated={wait['simulated'] / 3600:,.2f}h "
            f"wait_error={100 * wait['relative_error']:+.1f}% "
            f"utilization_rms={100 * summary['utilization']['rms_difference']:.1f}points "
            f"within_1h={100 * summary['start_error']['within_1_h']:.1f}% "
            f"seconds={time.perf_counter() - began:.0f}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trace", action="append", choices=sorted(TRACES),
                        help="a trace of ../shared/data/swf (default: all four)")
    parser.add_argument("--period", choices=("day", "week"), default="day")
    args = parser.parse_args()
    if not SWF_DIR.exists():
        print(f"{SWF_DIR} not present: nothing to validate")
        return 0
    for name in args.trace or sorted(TRACES):
        workload = read_swf(SWF_DIR / name, **TRACES[name])
        try:
            check_logged_schedule(workload.log)
        except NoLoggedSchedule as error:
            print(f"{name}: {error}", flush=True)
            continue
        for policy in ("fcfs", "wfp"):
            for estimate in ("requested", "mixed"):
                print(f"{name} {policy} {estimate} "
                      f"{run(workload, policy, estimate, args.period)}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
