"""Why MaxJobPerf's large jobs starve on LLNL-Atlas without reservations
(thesis section 5.3, Table 5.5), when the thesis' did not.

Without reservations the thesis' longest wait is 13.52 h (mean BSLD 2.11);
ours is 35 h (3.25).  This script runs MaxJobPerf at a 70 % budget without
and with size-based reservations, takes the job that waits longest without
them, and lists its *overtakers*: jobs submitted after it that start before
it, so large that the longest-waiting job cannot run beside them, and run
more than ``OVERTAKER_S`` (10 h).  The longest-waiting jobs are a burst of
8,096-8,192-CPU jobs whose first waits 6.6 h anyway, for an 8,320-CPU job
running when it arrives; an overtaker holding the CPUs it needs 10 h more
takes the burst past the thesis' 13.52 h.  Then the script runs both
rules again on the portion without the overtakers: how much of the gap
they make.

    python examples/thesis_starvation.py [--trace FILE.swf] [--profile-seed N]
                                         [--chunk-size N]
"""

from __future__ import annotations

import argparse
from pathlib import Path

import pandas as pd

from cli.values import existing_file
from modules.dvfs_thesis.profiles import draw_profiles
from nets.dvfs_thesis import MaxJobPerfConfig, ThesisConfig, simulate, thesis_portion

ATLAS = Path(__file__).resolve().parents[1].parent / "shared/data/swf/LLNL-Atlas-2006-2.1-cln.swf"
CPUS = 9216
OVERTAKER_S = 10 * 3600  # with the burst's 6.6 h, past Table 5.5's noRes 13.52 h
RULES = {"noRes": "none", "Res": "size"}


def run(jobs, profiles, reservations: str, chunk_size: int = 7) -> tuple[pd.DataFrame, float]:
    """One MaxJobPerf run at 70 %: its jobs, with their waits, and its
    mean BSLD."""
    config = MaxJobPerfConfig(reservations=reservations, chunk_size=chunk_size)
    result = simulate(jobs, ThesisConfig(CPUS, config), profiles)
    frame = result.jobs.set_index("job_id")
    return frame.assign(wait=frame["start"] - frame["submit"]), result.metrics["bsld"]


def overtakers(frame: pd.DataFrame) -> pd.DataFrame:
    """Jobs submitted after the longest-waiting one, started before it, too
    large for it to run beside them, and running more than ``OVERTAKER_S``."""
    last = frame.loc[frame["wait"].idxmax()]
    ahead = frame[(frame["submit"] > last["submit"]) & (frame["start"] < last["start"])
                  & (frame["cpus"] > CPUS - last["cpus"])]
    return ahead[ahead["end"] - ahead["start"] > OVERTAKER_S]


def summary(frame: pd.DataFrame, bsld: float) -> dict:
    """Mean BSLD, mean and longest wait, and who waits longest."""
    return {"bsld": bsld, "wait_mean_min": frame["wait"].mean() / 60,
            "wait_max_h": frame["wait"].max() / 3600, "longest": int(frame["wait"].idxmax())}


def starvation_table(trace: Path = ATLAS, profile_seed: int = 0, chunk_size: int = 7):
    """The overtakers of the noRes run, and each rule's BSLD and waits with
    and without them."""
    jobs = thesis_portion(trace, CPUS)
    profiles = draw_profiles(jobs, seed=profile_seed)
    nores = run(jobs, profiles, "none", chunk_size)
    ahead = overtakers(nores[0])
    rows = []
    for kept, portion in (("all jobs", jobs),
                          ("without overtakers", [j for j in jobs if j.id not in ahead.index])):
        for name, rule in RULES.items():
            done = nores if (kept, name) == ("all jobs", "noRes") else run(portion, profiles, rule,
                                                                         chunk_size)
            rows.append({"jobs": kept, "rule": name, **summary(*done)})
    columns = ["submit", "start", "end", "cpus", "requested", "frequency_ghz"]
    return ahead[columns].assign(hours=(ahead["end"] - ahead["start"]) / 3600), pd.DataFrame(rows)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--trace", type=existing_file, default=str(ATLAS))
    parser.add_argument("--profile-seed", type=int, default=0)
    parser.add_argument("--chunk-size", type=int, default=7, help="WQChunkSize (thesis: 7)")
    args = parser.parse_args(argv)
    ahead, table = starvation_table(args.trace, args.profile_seed, args.chunk_size)
    longest = table.loc[(table["jobs"] == "all jobs") & (table["rule"] == "noRes"),
                        "longest"].iloc[0]
    with pd.option_context("display.width", 200, "display.float_format", "{:.2f}".format):
        print(f"overtakers of job {longest}, the longest-waiting without reservations "
              f"(submitted after it, started before it, run over {OVERTAKER_S // 3600} h):")
        print(ahead.to_string())
        print()
        print("MaxJobPerf at 70 %, without (noRes) and with (Res) size-based reservations; "
              "waits in minutes (mean) and hours (max):")
        print(table.to_string(index=False))


if __name__ == "__main__":
    main()
