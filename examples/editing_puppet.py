"""Changing PuPPET without touching its source: three edits of the built net.

``nets.puppet.build_net`` builds the paper's net; a study changes one
thing and keeps the rest.  Each function here returns an edited copy:

- :func:`with_wfp_exponent`: WFP's score is ``size x (wait / walltime)^3``;
  the exponent is an argument of the scheduler's policy function, which
  the module's environment binds (``Scheduler/schedule``): rebind it.
- :func:`with_finish_priority`: *Finish* ends jobs at priority 500, after
  *Schedule* (300), so a scheduling pass runs between two jobs ending at
  the same instant; at 200 every end of an instant comes first.
- :func:`with_wait_instead_of_block`: BLOCK and WAIT are two allocation
  modules on the same sockets: replace one by the other.

Run ``python examples/editing_puppet.py``: each edit's schedule beside the
paper's, ``cpn.diff`` of the nets, and the WFP edit made again in a data
file instead of Python.
"""

from __future__ import annotations

import tempfile
from functools import partial
from pathlib import Path

import cpn
from cpn import Net
from modules.allocation import power_allocation
from modules.batch_scheduling import SchedulingConfig
from modules.job import Job
from modules.power_capping import PowerCap
from nets.puppet import FUNCTIONS, PuppetConfig, build_net, run_model

NODE_WATTS = 100.0


def with_wfp_exponent(net: Net, exponent: float) -> Net:
    """A copy of ``net`` whose WFP score raises the wait ratio to ``exponent``."""
    edited = net.copy()
    schedule = edited.substitutions["Scheduler"].module.env["schedule"]
    edited.set_env("Scheduler/schedule", partial(schedule, wfp_exponent=exponent))
    return edited


def with_finish_priority(net: Net, priority: int) -> Net:
    """A copy of ``net`` whose *Finish* fires at ``priority``."""
    edited = net.copy()
    edited.set_priority("Finish", priority)
    return edited


def with_wait_instead_of_block(net: Net, config: PuppetConfig, l: int = 10,
                               w_minutes: float = 500) -> Net:
    """A copy of ``net`` (built with BLOCK) allocating with WAIT at the same cap."""
    edited = net.copy()
    wait = PowerCap.wait(config.cap_watts, l=l, w_minutes=w_minutes)
    edited.replace_module("Allocation", power_allocation(config.power, wait,
                                                         config.scheduling.estimate))
    return edited


# Small workloads on a 4-node machine where each edit moves jobs.
WFP_JOBS = (Job(1, 0, 100, 4, 100), Job(2, 0, 50, 1, 50), Job(3, 40, 100, 4, 100))
WFP_CONFIG = PuppetConfig(4, NODE_WATTS, scheduling=SchedulingConfig(policy="wfp"))
FINISH_JOBS = (Job(1, 0, 100, 2, 1000), Job(2, 0, 100, 2, 1000), Job(3, 1, 100, 4, 100),
               Job(4, 2, 50, 2, 50))
FINISH_CONFIG = PuppetConfig(4, NODE_WATTS)
CAP_JOBS = (Job(1, 0, 100, 2, 100, jp=200.0), Job(2, 1, 100, 1, 100, jp=200.0),
            Job(3, 2, 10, 1, 10, jp=50.0))
CAP_CONFIG = PuppetConfig(4, NODE_WATTS, cap=PowerCap.block(300.0))


def starts(net: Net, jobs, config: PuppetConfig) -> dict[int, float]:
    """Job id -> start time of a run of ``net``."""
    result, _ = run_model(net, list(jobs), config)
    return dict(zip(result.jobs["job_id"], result.jobs["start"]))


def main() -> None:
    cases = [
        ("WFP exponent 3 -> 1", WFP_JOBS, WFP_CONFIG,
         lambda net: with_wfp_exponent(net, 1)),
        ("Finish priority 500 -> 200", FINISH_JOBS, FINISH_CONFIG,
         lambda net: with_finish_priority(net, 200)),
        ("BLOCK -> WAIT", CAP_JOBS, CAP_CONFIG,
         lambda net: with_wait_instead_of_block(net, CAP_CONFIG)),
    ]
    for title, jobs, config, edit in cases:
        paper = build_net(config)
        edited = edit(paper)
        print(f"== {title}")
        print(f"   starts, paper's net: {starts(paper, jobs, config)}")
        print(f"   starts, edited net:  {starts(edited, jobs, config)}")
        print("   " + str(cpn.diff(paper, edited)).replace("\n", "\n   "))

    print("== the WFP edit in a data file")
    with tempfile.TemporaryDirectory() as directory:
        path = Path(directory) / "puppet.toml"
        build_net(WFP_CONFIG).save(path, FUNCTIONS)
        text = path.read_text()
        path.write_text(text.replace("backfill=True)", "backfill=True, wfp_exponent=1)"))
        edited = cpn.load(path, functions=FUNCTIONS)
        print(f"   starts, edited file: {starts(edited, WFP_JOBS, WFP_CONFIG)}")


if __name__ == "__main__":
    main()
