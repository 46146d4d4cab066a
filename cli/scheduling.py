"""Turning command-line options into batch scheduling: the policy, what it
plans with, and what becomes of a job that runs past its request.

Shared by ``cpn run`` and ``cpn validate``, so that a schedule measured
against a trace's log is the one ``cpn run`` would simulate.  On the command
line a job that overruns its requested walltime is killed at it by default
(``--overrun clamp``), as Slurm, Cobalt and CQSim do; the Python API keeps
``SchedulingConfig(overrun="keep")`` unless asked, so existing studies
give the results they gave.
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from modules.easy import ESTIMATES, POLICIES

from .choices import OVERRUNS

if TYPE_CHECKING:  # the scheduling module builds nets: imported when a run is configured
    from modules.batch_scheduling import SchedulingConfig

#: How ``cpn`` tells what became of the jobs that overran, by ``--overrun``.
OVERRUN_OUTCOMES = {"clamp": "killed at their limit", "keep": "kept running to their end"}


def add_scheduling_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--policy", choices=POLICIES,
                        help="batch scheduling policy: first come first served, or WFP's "
                             "priority of waiting and large jobs (default fcfs; wfp on a "
                             "Cobalt log, as Mira ran)")
    parser.add_argument("--estimate", choices=ESTIMATES, default="requested",
                        help="runtime the scheduler plans with: the requested walltime "
                             "(what a real scheduler knows), the actual runtime, or mixed: "
                             "CQSim's rule, running jobs end at their request but a backfill "
                             "candidate is judged by its actual runtime (default requested)")
    parser.add_argument("--overrun", choices=OVERRUNS, default="clamp",
                        help="a job that runs past its requested walltime: clamp (killed "
                             "at its limit, as Slurm, Cobalt and CQSim do; default) or keep "
                             "(runs to the end its trace gives)")
    parser.add_argument("--trigger", choices=("event", "timestamp"), default="event",
                        help="schedule after every submit/finish (PuPPET, CQSim; default) "
                             "or once per instant")
    parser.add_argument("--no-backfill", action="store_true", help="strict queue order")


def scheduling_config(args, default_policy: str = "fcfs") -> SchedulingConfig:
    """The ``SchedulingConfig`` the options ask for; ``default_policy``
    when ``--policy`` is not given."""
    from modules.batch_scheduling import SchedulingConfig

    return SchedulingConfig(args.policy or default_policy, args.estimate, args.trigger,
                            not args.no_backfill,
                            args.overrun)


def overruns(jobs, replayed: frozenset[int] = frozenset()) -> int:
    """How many jobs the model schedules run longer than they requested
    (a job a Cobalt log replays runs its logged time: nothing kills it)."""
    return sum(job.rt > job.wt for job in jobs if job.id not in replayed)


def past_request(jobs_table, replayed: frozenset[int] = frozenset()) -> int:
    """How many jobs the run kept longer than they requested, those a
    Cobalt log replays as logged apart.  Under ``--overrun clamp`` these
    are the jobs the model itself slowed (DVFS) or lengthened (checkpoints,
    restarts): it lets them finish, as the papers do, since the trace's
    limit was asked of the job as it ran there."""
    import numpy as np

    from modules.tables import columns_of

    jobs = columns_of(jobs_table)
    if not len(jobs.get("end", ())):
        return 0
    held = jobs["end"] - jobs["start"]
    scheduled = ~np.isin(jobs["job_id"], list(replayed))
    return int(((held > jobs["requested"] * (1 + 1e-9) + 1e-6) & scheduled).sum())


def describe_past_request(count: int, overrun: str) -> str | None:
    """The line of a clamped run whose model made jobs outlast their
    request (None when none did, or when --overrun keep lets every job)."""
    from modules.words import counted

    if not count or overrun != "clamp":
        return None
    them, they = ("it", "it runs") if count == 1 else ("them", "they run")
    return (f"{counted(count, 'job')} ran past the requested time because the model slowed or "
            f"lengthened {them} (DVFS, checkpoints, restarts): {they} to the end, as in the "
            "papers; --overrun clamp kills only the trace's own overruns")


def describe_overruns(count: int, overrun: str) -> str:
    """One line on the jobs that ran past their request, and their fate."""
    from modules.words import counted

    return (f"{counted(count, 'job')} ran past their requested time: {OVERRUN_OUTCOMES[overrun]} "
            f"(--overrun {overrun})")
