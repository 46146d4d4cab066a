"""Fig. 2 of the PuPPET paper: three jobs on a 6-node system, as a Petri net
and as a coloured Petri net, built with the engine alone (not ``nets/``).

The paper (section 2.1) compares two models of the same system:

* the Petri net (left): each job is a token of its own place, and the
  number of nodes it requests is the *weight* of the arc from ``Nodes`` to
  its transition, so the net needs one place and one transition per job;
* the coloured Petri net (right): the jobs are tokens of one place,
  distinguished by their colour, a value (1), (2), (3); one transition
  serves them all, and ``@+`` gives a running job its duration.

The paper's text does not give the figure's sizes and runtimes, so this
example picks its own (``JOBS`` below), and adds arrival times so that the
first-come-first-served order is part of the net rather than a tie broken
by the engine.  In the coloured net the free nodes are one integer token,
as PuPPET's models keep them (an input arc's multiplicity must be a
constant here, as in CPN Tools, so ``job.js`\\`()`` is not allowed).

Run ``python examples/puppet_fig2.py``, or step the coloured net with
``cpn step examples/puppet_fig2.py``.
"""

from __future__ import annotations

from typing import NamedTuple

from cpn import Net, Simulator, timed
from cpn.monitors import FiringLog
from cpn.statespace import state_space

NODES = 6


class Job(NamedTuple):
    id: int
    js: int  # size: nodes requested
    rt: int  # runtime
    st: int  # arrival (submit) time


JOBS = [Job(1, js=2, rt=5, st=0), Job(2, js=4, rt=6, st=1), Job(3, js=3, rt=3, st=2)]

# Worked out by hand: job 1 takes 2 nodes at 0, job 2 the other 4 at 1;
# job 3 (3 nodes) waits: at 5 only job 1's 2 nodes are free, at 7 all 6 are.
EXPECTED = {1: (0, 5), 2: (1, 7), 3: (7, 10)}


def petri_net() -> Net:
    """The left model: one place and one transition per job; the arc
    weights from Nodes are the jobs' sizes (``2`()``: two plain tokens)."""
    net = Net("fig2_petri_net")
    net.place("Nodes", initial=[()] * NODES)
    net.place("Done")
    for job in JOBS:
        net.place(f"Job{job.id}", initial=[()])
        net.place(f"Running{job.id}")
        net.transition(f"Start{job.id}")
        net.transition(f"End{job.id}")
        net.arc(f"Job{job.id}", f"Start{job.id}", "()")
        net.arc("Nodes", f"Start{job.id}", f"{job.js}`()")
        net.arc(f"Start{job.id}", f"Running{job.id}", "()")
        net.arc(f"Running{job.id}", f"End{job.id}", "()")
        net.arc(f"End{job.id}", "Nodes", f"{job.js}`()")
        net.arc(f"End{job.id}", "Done", "()")
    return net


def coloured_net() -> Net:
    """The right model: one Queue of coloured job tokens, one Start and one
    End for every job; the Running token is delayed by the job's runtime."""
    net = Net("fig2_coloured")
    # Each job waits in the queue from its arrival time.
    net.place("Queue", Job, initial=[timed(job, job.st) for job in JOBS], timed=True)
    net.place("Nodes", int, initial=[NODES])  # free nodes
    net.place("Running", Job, timed=True)
    net.place("Done", tuple)  # (job id, end time)

    net.transition("Start", guard="job.js <= free")
    net.arc("Queue", "Start", "job")
    net.arc("Nodes", "Start", "free")
    net.arc("Start", "Nodes", "free - job.js")
    net.arc("Start", "Running", "job@+job.rt")

    net.transition("End")
    net.arc("Running", "End", "job")
    net.arc("Nodes", "End", "free")
    net.arc("End", "Nodes", "free + job.js")
    net.arc("End", "Done", "(job.id, now)")
    return net


net = coloured_net()  # what `cpn step examples/puppet_fig2.py` loads


def schedule(seed: int = 0) -> dict[int, tuple[float, float]]:
    """Run the coloured net; each job's (start, end)."""
    sim = Simulator(coloured_net(), seed=seed)
    log = sim.add_monitor(FiringLog("Start", "End"))
    result = sim.run()
    print(f"run: {result.reason.value} at time {result.time:g} after {result.steps} "
          "firings")
    starts = {r["job"].id: r["time"] for r in log.records if r["transition"] == "Start"}
    ends = {r["job"].id: r["time"] for r in log.records if r["transition"] == "End"}
    print(f"{'job':>3} {'nodes':>5} {'runtime':>7} {'arrival':>7} {'start':>5} "
          f"{'end':>5} {'wait':>5}")
    for job in JOBS:
        start, end = starts[job.id], ends[job.id]
        print(f"{job.id:>3} {job.js:>5} {job.rt:>7} {job.st:>7} {start:>5g} {end:>5g} "
              f"{start - job.st:>5g}")
    return {job: (starts[job], ends[job]) for job in starts}


if __name__ == "__main__":
    print("== the coloured net (right of Fig. 2), run to the end")
    result = schedule()
    assert result == EXPECTED, result

    print("\n== the Petri net (left of Fig. 2): untimed, so it has orders, not a "
          "schedule")
    space = state_space(petri_net())
    dead = space.dead_markings
    print(f"{space.graph.number_of_nodes()} reachable markings; {len(dead)} dead, "
          f"with {len(space.graph.nodes[dead[0]]['marking']['Done'])} jobs done")
    most = max(NODES - len(m["Nodes"]) for _, m in space.graph.nodes(data="marking"))
    print(f"at most {most} of the {NODES} nodes busy at once")
