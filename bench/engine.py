"""Firings per second of our engine and of SNAKES on the same nets.

Run ``python bench/engine.py``; it prints one line per net::

    NAME firings_per_s=N snakes_firings_per_s=M ratio=R

(R = ours / SNAKES).  ``--profile`` adds a cProfile of our engine on the
first two nets (to stderr), ``--quick`` shortens every measurement.

What is timed:

- ours: ``Simulator.run(max_steps=...)`` on a simulator built beforehand
  (compiling a net is a one-off cost, not a per-firing one);
- SNAKES: what a simulator on top of SNAKES has to do per firing: compute
  ``t.modes()`` (transitions in declaration order, until one has a mode)
  and fire the first mode.  SNAKES has no time, so it runs the untimed view
  of each net (``cpn.snakes_bridge.to_snakes``); it is timed over a budget
  of a few seconds rather than a fixed number of firings.

Nets:

- ``one_token_loop``: timed place P with one token, ``P -x-> T -x+1@+1-> P``;
- ``loop_1000_tokens``: the same loop, untimed, with 1,000 tokens in P;
- ``jobs_on_nodes``: 1,000 jobs of random size 1-64 on 64 nodes: Queue
  (job tuples ``(id, size, runtime)``), Free (one int: free nodes), Running
  (timed), Done; Start takes a job that fits (guard ``size <= free``),
  Finish gives its nodes back ``runtime`` later.  2,000 firings per run.
"""

from __future__ import annotations

import argparse
import cProfile
import gc
import io
import pstats
import random
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

def ours(make, steps: int, budget: float) -> float:
    """Firings per second of ``Simulator.run``, best of repeated runs on
    fresh simulators (the net compiled once, as the simulator caches it)."""
    flat = make().flatten()
    best, spent = 0.0, 0.0
    while spent < budget or best == 0.0:
        sim = Simulator(flat, seed=0)
        gc.collect()
        start = time.perf_counter()
        result = sim.run(max_steps=steps)
        elapsed = time.perf_counter() - start
        spent += elapsed
        best = max(best, result.steps / elapsed)
    return best


def snakes(make, budget: float, max_steps: int | None = None) -> float:
    """Firings per second of a modes-then-fire loop over SNAKES."""
    net = to_snakes(make(timed=False), warn=False)
    transitions = [net.transition(t.path) for t in make(timed=False).flatten().transitions]
    fired = 0
    gc.collect()
    start = time.perf_counter()
    elapsed = 0.0
    while elapsed < budget and (max_steps is None or fired < max_steps):
        for t in transitions:
            modes = t.modes()
            if modes:
                t.fire(modes[0])
                fired += 1
                break
        else:
            break  # dead
        elapsed = time.perf_counter() - start
    return fired / elapsed


def profile(make, steps: int, limit: int = 15) -> str:
    sim = Simulator(make(), seed=0)
    profiler = cProfile.Profile()
    profiler.enable()
    sim.run(max_steps=steps)
    profiler.disable()
    out = io.StringIO()
    pstats.Stats(profiler, stream=out).sort_stats("tottime").print_stats(limit)
    return out.getvalue()


BENCHES = [
    # name, net factory, our steps per run, SNAKES firing cap
    ("one_token_loop", one_token_loop, 200_000, None),
    ("loop_1000_tokens", loop_1000_tokens, 200_000, None),
    ("jobs_on_nodes", jobs_on_nodes, 2 * JOBS, 2 * JOBS),
]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="short measurements")
    parser.add_argument("--profile", action="store_true",
                        help="cProfile our engine on the first two nets (to stderr)")
    args = parser.parse_args(argv)
    budget = 0.3 if args.quick else 2.0
    for name, make, steps, cap in BENCHES:
        if args.quick:
            steps = min(steps, 20_000)
        mine = ours(make, steps, budget)
        theirs = snakes(make, budget, cap)
        print(f"{name} firings_per_s={mine:.0f} snakes_firings_per_s={theirs:.0f} "
              f"ratio={mine / theirs:.1f}", flush=True)
    if args.profile:
        for name, make, steps, _ in BENCHES[:2]:
            print(f"--- cProfile: {name}, {steps} firings ---", file=sys.stderr)
            print(profile(make, steps), file=sys.stderr)


if __name__ == "__main__":
    main()
