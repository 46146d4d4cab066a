"""The built-in net of ``cpn step puppet``: PuPPET with three jobs already
submitted, small enough to follow firing by firing.

The jobs are the hand-checked EASY case of the PuPPET tests, on a 4-node
machine: job 1 (3 nodes, 100 s) arrives at 0, job 2 (4 nodes, 100 s) at 1
and job 3 (1 node, asks 1,000 s) at 2.  Job 3 would fit beside job 1 but
must not delay job 2's reservation, so EASY starts them at 0, 100 and 200.
A node draws 100 W busy and 30 W idle, under WAIT capping at 400 W: the
full machine (job 2) reaches the cap exactly, and every start passes
through the allocation module's power rules.

:data:`BREAKPOINTS` are the moments a newcomer wants to stop at, offered
by name in the browser (``cpn step puppet --web``).
"""

from __future__ import annotations

from cpn import Net, timed
from modules.batch_scheduling import batch_scheduling
from modules.job import Job
from modules.power_capping import PowerCap

from .puppet import PuppetConfig, compose

NODE_WATTS = 100.0
JOBS = (Job(1, 0, 100, 3, 100, jp=3 * NODE_WATTS),
        Job(2, 1, 100, 4, 100, jp=4 * NODE_WATTS),
        Job(3, 2, 1000, 1, 1000, jp=NODE_WATTS))
CONFIG = PuppetConfig(machine_nodes=4, node_watts=NODE_WATTS, cap=PowerCap.wait(400.0))


def build_net() -> Net:
    """PuPPET on :data:`CONFIG`, with :data:`JOBS` waiting in
    *Scheduler/User* until their submit times."""
    scheduler = batch_scheduling(CONFIG.scheduling)
    scheduler.places["User"].initial = [timed(job, job.st) for job in JOBS]
    return compose("PuPPET", CONFIG, started="Running", ended="Running", scheduler=scheduler)


#: Named place predicates (place path, test of its token values) the
#: stepping page offers as breakpoints.
BREAKPOINTS = {
    "the machine is full": ("Nodes", lambda free: free == [0]),
    "power reaches the cap": ("Power", lambda watts: watts[0] >= CONFIG.cap.cap_watts),
    "a job has finished": ("Finished", lambda finished: bool(finished)),
}
