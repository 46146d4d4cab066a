"""Firings per second of our engine, of SNAKES and of SimPN on the same nets.

Run ``python bench/engine.py``; it prints one line per net::

    NAME firings=K firings_per_s=N snakes_firings_per_s=M ratio=R simpn_firings_per_s=S

(R = ours / SNAKES), and under the nets that have a speed goal a line::

    GOAL: ours / TARGET firings per CPU second = X (target >= 1) met|MISSED

``--profile`` adds a cProfile of our engine on the
first two nets (to stderr), ``--quick`` shortens every measurement.

What is timed, in CPU seconds (``time.process_time``: the machine may be
shared), the median of ``--repeat`` runs on every side:

- ours: ``Simulator.run(max_steps=K)`` on a simulator built beforehand
  (compiling a net is a one-off cost, not a per-firing one);
- SNAKES: what a simulator on top of SNAKES has to do per firing: compute
  ``t.modes()`` (transitions in declaration order, until one has a mode)
  and fire the first mode.  SNAKES has no time, so it runs the untimed view
  of each net (``cpn.snakes_bridge.to_snakes``).  It is far slower, so it
  runs under a budget of a few seconds; K is then the number of firings
  its slowest run managed.  On the jobs net, where the first firings (the
  whole queue waiting) cost the most, every side is timed over those same
  first K firings from the same initial marking; on the loops, where every
  firing costs the same, ours and SimPN's run the full count;
- SimPN (when installed: ``pip install simpn``): ``SimProblem.step()``,
  which finds the bindings and fires one, on the timed net.

Nets:

- ``one_token_loop``: timed place P with one token, ``P -x-> T -x+1@+1-> P``;
- ``loop_1000_tokens``: the same loop, untimed, with 1,000 tokens in P;
- ``jobs_on_nodes``: 1,000 jobs of random size 1-64 on 64 nodes: Queue
  (job tuples ``(id, size, runtime)``), Free (one int: free nodes), Running
  (timed), Done; Start takes a job that fits (guard ``size <= free``),
  Finish gives its nodes back ``runtime`` later.  2,000 firings at most.
"""

from __future__ import annotations

import argparse
import cProfile
import gc
import io
import pstats
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from cpn import Net, Simulator  # noqa: E402
from cpn.snakes_bridge import to_snakes  # noqa: E402

JOBS, NODES = 1000, 64


# -- the nets ------------------------------------------------------------------

def one_token_loop(timed: bool = True) -> Net:
    net = Net("one_token_loop")
    net.place("P", int, initial=[0], timed=timed)
    net.transition("T")
    net.arc("P", "T", "x")
    net.arc("T", "P", "x + 1@+1" if timed else "x + 1")
    return net


def loop_1000_tokens(timed: bool = False) -> Net:
    net = Net("loop_1000_tokens")
    net.place("P", int, initial=range(1000))
    net.transition("T")
    net.arc("P", "T", "x")
    net.arc("T", "P", "x + 1")
    return net


def jobs(seed: int = 1) -> list[tuple[int, int, int]]:
    rng = random.Random(seed)
    return [(i, rng.randint(1, NODES), rng.randint(1, 100)) for i in range(JOBS)]


def jobs_on_nodes(timed: bool = True) -> Net:
    net = Net("jobs_on_nodes")
    net.place("Queue", tuple, initial=jobs())
    net.place("Free", int, initial=[NODES])
    net.place("Running", tuple, timed=timed)
    net.place("Done", int)
    net.transition("Start", guard="size <= free")
    net.arc("Queue", "Start", "(job, size, runtime)")
    net.arc("Free", "Start", "free")
    net.arc("Start", "Running", "(job, size, runtime)@+runtime" if timed
            else "(job, size, runtime)")
    net.arc("Start", "Free", "free - size")
    net.transition("Finish")
    net.arc("Running", "Finish", "(job, size, runtime)")
    net.arc("Free", "Finish", "free")
    net.arc("Finish", "Done", "job")
    net.arc("Finish", "Free", "free + size")
    return net


# -- measuring -------------------------------------------------------------------

def ours(make, steps: int, repeat: int) -> float:
    """Firings per CPU second of ``Simulator.run``, the median of
    ``repeat`` runs on fresh simulators (the net compiled once, as the
    simulator caches it)."""
    flat = make().flatten()
    rates = []
    for _ in range(repeat):
        sim = Simulator(flat, seed=0, order="declared")
        gc.collect()
        start = time.process_time()
        result = sim.run(max_steps=steps)
        rates.append(result.steps / (time.process_time() - start))
    return statistics.median(rates)


def snakes(make, budget: float, max_steps: int, repeat: int) -> tuple[float, int]:
    """``(median firings per CPU second, fewest firings of a run)`` of a
    modes-then-fire loop over SNAKES, each run stopped after ``max_steps``
    firings or ``budget`` CPU seconds."""
    rates, counts = [], []
    for _ in range(repeat):
        net = to_snakes(make(timed=False), warn=False)
        transitions = [net.transition(t.path) for t in make(timed=False).flatten().transitions]
        fired = 0
        gc.collect()
        start = time.process_time()
        while fired < max_steps and time.process_time() - start < budget:
            for t in transitions:
                modes = t.modes()
                if modes:
                    t.fire(modes[0])
                    fired += 1
                    break
            else:
                break  # dead
        rates.append(fired / (time.process_time() - start))
        counts.append(fired)
    return statistics.median(rates), min(counts)


def simpn(name: str, steps: int, repeat: int) -> float | None:
    """Firings per CPU second of SimPN's ``step()`` on the same net (None
    when SimPN is not installed)."""
    try:
        from simpn.simulator import SimProblem, SimToken
    except ImportError:
        return None
    rates = []
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 10 * JOBS))  # its search recurses per token
    for _ in range(repeat):
        problem = SIMPN_NETS[name](SimProblem(debugging=False), SimToken)
        gc.collect()
        start = time.process_time()
        fired = 0
        while fired < steps and problem.step() is not None:
            fired += 1
        rates.append(fired / (time.process_time() - start))
    return statistics.median(rates)


def simpn_one_token_loop(problem, token):
    place = problem.add_var("P")
    place.put(0)
    problem.add_event([place], [place], lambda x: [token(x + 1, delay=1)], name="T")
    return problem


def simpn_loop_1000_tokens(problem, token):
    place = problem.add_var("P")
    for value in range(1000):
        place.put(value)
    problem.add_event([place], [place], lambda x: [token(x + 1)], name="T")
    return problem


def simpn_jobs_on_nodes(problem, token):
    queue, free = problem.add_var("Queue"), problem.add_var("Free")
    running, done = problem.add_var("Running"), problem.add_var("Done")
    for job in jobs():
        queue.put(job)
    free.put(NODES)
    problem.add_event([queue, free], [running, free],
                      lambda job, nodes: [token(job, delay=job[2]), token(nodes - job[1])],
                      name="Start", guard=lambda job, nodes: job[1] <= nodes)
    problem.add_event([running, free], [done, free],
                      lambda job, nodes: [token(job[0]), token(nodes + job[1])], name="Finish")
    return problem


SIMPN_NETS = {"one_token_loop": simpn_one_token_loop,
              "loop_1000_tokens": simpn_loop_1000_tokens,
              "jobs_on_nodes": simpn_jobs_on_nodes}


def profile(make, steps: int, limit: int = 15) -> str:
    sim = Simulator(make(), seed=0)
    profiler = cProfile.Profile()
    profiler.enable()
    sim.run(max_steps=steps)
    profiler.disable()
    out = io.StringIO()
    pstats.Stats(profiler, stream=out).sort_stats("tottime").print_stats(limit)
    return out.getvalue()


#: The engine's speed goals, firings per CPU second: a firing of the timed
#: loop is the engine's own cost (one search, one firing, one clock advance);
#: the jobs net adds guarded searches through a long queue.
GOALS = {"one_token_loop": 1_000_000, "jobs_on_nodes": 100_000}

BENCHES = [
    # name, net factory, firings per run, SNAKES firing cap (None: firings cost alike)
    ("one_token_loop", one_token_loop, 200_000, None),
    ("loop_1000_tokens", loop_1000_tokens, 200_000, None),
    ("jobs_on_nodes", jobs_on_nodes, 2 * JOBS, 2 * JOBS),
]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="short measurements")
    parser.add_argument("--repeat", type=int, default=3, help="runs of each side (median kept)")
    parser.add_argument("--profile", action="store_true",
                        help="cProfile our engine on the first two nets (to stderr)")
    args = parser.parse_args(argv)
    budget = 0.3 if args.quick else 2.0
    for name, make, steps, cap in BENCHES:
        if args.quick:
            steps = min(steps, 20_000)
        theirs, fired = snakes(make, budget, min(steps, cap or steps), args.repeat)
        if cap is None:  # every firing costs the same: ours and SimPN's run longer
            fired = steps
        mine = ours(make, fired, args.repeat)
        other = simpn(name, fired, args.repeat)
        print(f"{name} firings={fired} firings_per_s={mine:.0f} snakes_firings_per_s={theirs:.0f} "
              f"ratio={mine / theirs:.1f} simpn_firings_per_s="
              f"{'not installed' if other is None else f'{other:.0f}'}", flush=True)
        if name in GOALS:
            ratio = mine / GOALS[name]
            print(f"  GOAL: ours / {GOALS[name]:,} firings per CPU second = {ratio:.2f} "
                  f"(target >= 1) {'met' if ratio >= 1 else 'MISSED'}", flush=True)
    if args.profile:
        for name, make, steps, _ in BENCHES[:2]:
            print(f"--- cProfile: {name}, {steps} firings ---", file=sys.stderr)
            print(profile(make, steps), file=sys.stderr)


if __name__ == "__main__":
    main()
