"""Small PuPPET and TOPPER configurations whose state spaces are checked.

A handful of jobs on a 4-node machine at 100 W a node (30 W idle, so the
idle machine draws 120 W): small enough that every interleaving is
explored in a fraction of a second, chosen so that each property has
something to decide.  ``tests/test_model_checks.py`` checks them, and
``docs/verification.md`` walks through them.  As a NET for ``cpn check``
this module is the EASY configuration (:func:`build_net`) with its
:data:`QUERIES`.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Sequence

from cpn import Net, timed
from cpn.query import always, eventually, leads_to
from modules.batch_scheduling import SchedulingConfig, batch_scheduling
from modules.easy import order_queue
from modules.job import Job
from modules.power_capping import PowerCap
from modules.properties import (all_finished, queued, reservation_kept, running,
                                started_in_order)
from modules.resilience import FaultTolerance

from . import puppet, topper

NODE_WATTS = 100.0
MACHINE = puppet.PuppetConfig(4, node_watts=NODE_WATTS)

#: EASY's textbook case.  Job 2 needs the whole machine and gets a
#: reservation at 100, when job 1 ends; job 3 fits beside job 1 but would
#: run past 100, so it must wait; job 4, submitted at the same instant,
#: ends by 100 and backfills.
EASY_JOBS = (Job(1, 0, 100, 3, 100, jp=300.0), Job(2, 1, 100, 4, 100, jp=400.0),
             Job(3, 2, 1000, 1, 1000, jp=100.0), Job(4, 2, 50, 1, 60, jp=100.0))

#: Under a 350 W cap: job 1 alone draws 330 W, so job 3 beside it would
#: reach 400 W and must wait (WAIT) or be held (BLOCK); job 4 draws 400 W
#: on its own, over the cap even alone.
CAP_WATTS = 350.0
CAPPED_JOBS = (Job(1, 0, 100, 3, 100, jp=300.0), Job(2, 1, 50, 2, 60, jp=200.0),
               Job(3, 2, 30, 1, 40, jp=100.0), Job(4, 2, 80, 4, 80, jp=400.0))

#: TOPPER: units of one node, checkpoints of 5 s every ~41.5 s of work for
#: job 1 (Daly's interval for a 400 s unit MTTF); unit 0 fails at 44 s,
#: in the middle of job 1's first checkpoint, which is then lost.
FAULTS = FaultTolerance(unit_nodes=1, unit_mttf=400.0, recovery=10.0, checkpoint_small=5.0)
FAILURE_DURING_CHECKPOINT = {0: [44.0]}
TOPPER_JOBS = (Job(1, 0, 100, 2, 130, jp=200.0), Job(2, 1, 50, 1, 80, jp=100.0),
               Job(3, 2, 30, 4, 40, jp=400.0))


def with_jobs(net: Net, jobs: Sequence[Job]) -> Net:
    """``net`` with ``jobs`` waiting in *Scheduler/User* until submitted."""
    net.set_initial("Scheduler/User", [timed(job, job.st) for job in jobs])
    return net


def puppet_net(jobs: Sequence[Job], config: puppet.PuppetConfig = MACHINE,
               scheduler: Net | None = None) -> Net:
    """PuPPET for ``config`` with ``jobs`` (those the configuration rejects,
    over the cap alone, left out as a run leaves them out)."""
    rejected = {job.id for job in config.rejected_jobs(jobs)}
    net = puppet.compose("PuPPET", config, started="Running", ended="Running",
                         scheduler=scheduler)
    return with_jobs(net, [job for job in jobs if job.id not in rejected])


def topper_net(jobs: Sequence[Job] = TOPPER_JOBS, on_failure: str = "keep",
               failures=FAILURE_DURING_CHECKPOINT) -> tuple[Net, list[Job]]:
    """TOPPER with the failure trace ``failures``; also the jobs as its
    scheduler sees them."""
    config = topper.TopperConfig(MACHINE, replace(FAULTS, on_failure=on_failure),
                                 failure_trace=failures)
    net, scheduled = topper.build_net(list(jobs), config)
    return with_jobs(net, scheduled), scheduled


def backfill_ignoring_shadow(queue, running, free, now, policy="fcfs",
                             estimate="requested"):
    """A deliberately broken EASY: the head starts if it fits, and then any
    job that fits the free nodes starts too, whatever the head's
    reservation (the shadow time is never computed)."""
    started = []
    for job in order_queue(queue, policy, now, estimate):
        if job.js <= free:
            started.append(job)
            free -= job.js
    chosen = {job.id for job in started}
    return started, tuple(job for job in queue if job.id not in chosen)


def broken_easy_net(jobs: Sequence[Job] = EASY_JOBS) -> Net:
    return puppet_net(jobs, scheduler=batch_scheduling(
        SchedulingConfig(), schedule=backfill_ignoring_shadow))


def liveness(jobs: Sequence[Job]) -> dict:
    """Every job that is queued eventually runs, and every run ends with
    every job finished."""
    queries = {f"job {job.id} runs": leads_to(queued(job.id), running(job.id)) for job in jobs}
    queries["all finish"] = eventually(all_finished(len(jobs)))
    return queries


def build_net() -> Net:
    """EASY on :data:`EASY_JOBS` (``cpn check nets.checking``)."""
    return puppet_net(EASY_JOBS, replace(MACHINE, scheduling=SchedulingConfig()))


def capped_net() -> Net:
    """WAIT (room for two jobs) under :data:`CAP_WATTS` on :data:`CAPPED_JOBS`;
    job 4, over the cap alone, is left out: three jobs finish."""
    return puppet_net(CAPPED_JOBS, replace(MACHINE, cap=PowerCap.wait(CAP_WATTS, l=2)))


QUERIES = {"reservation": always(reservation_kept()),
           "in order": always(started_in_order(EASY_JOBS)), **liveness(EASY_JOBS)}
