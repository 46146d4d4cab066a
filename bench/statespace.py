"""States per second of our timed state spaces, next to SNAKES' state
graph of the same nets' untimed view.

Run ``python bench/statespace.py``; one line per configuration::

    NAME states=N arcs=A seconds=S states_per_s=R snakes_states=M snakes_states_per_s=Q

Ours is the timed state space (``cpn.statespace.state_space``: markings
with the clock and token timestamps, every tie explored).  SNAKES has no
time: it builds ``snakes.nets.StateGraph`` of ``cpn.snakes_bridge.to_snakes``
(every job available from the start, so many more interleavings), within
the same state budget; ``snakes_states`` ends in ``+`` when the budget
stopped it, and is ``-`` when SNAKES cannot run the net.

Configurations: PuPPET (EASY, uncapped) with the first 3, 4 and 5 jobs of
a small workload on an 8-node machine; PuPPET under WAIT capping with 5
jobs; the 5 jobs all submitted at time 0 (every order of their
submissions is explored).  ``--quick`` runs the smallest only.
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from cpn.snakes_bridge import to_snakes  # noqa: E402
from cpn.statespace import state_space  # noqa: E402
from modules.job import Job  # noqa: E402
from modules.power_capping import PowerCap  # noqa: E402
from nets.checking import puppet_net  # noqa: E402
from nets.puppet import PuppetConfig  # noqa: E402

BUDGET = 200_000  # states, ours and SNAKES'
MACHINE = PuppetConfig(8, node_watts=100.0)
JOBS = (Job(1, 0, 100, 5, 120, jp=500.0), Job(2, 0, 60, 4, 80, jp=400.0),
        Job(3, 10, 50, 2, 50, jp=200.0), Job(4, 10, 80, 8, 100, jp=800.0),
        Job(5, 20, 40, 1, 60, jp=100.0))


def ours(net) -> tuple[int, int, float]:
    start = time.perf_counter()
    space = state_space(net, max_states=BUDGET, time_limit=120)
    return space.states, space.arcs, time.perf_counter() - start


def snakes(net) -> tuple[str, float]:
    import snakes.nets as sn

    try:
        exported = to_snakes(net, warn=False)
        start = time.perf_counter()
        graph = sn.StateGraph(exported)
        count = 0
        for _ in graph:
            count += 1
            if count >= BUDGET:
                return f"{count}+", time.perf_counter() - start
        return str(count), time.perf_counter() - start
    except Exception as error:  # noqa: BLE001 - SNAKES' limits, reported
        print(f"  SNAKES failed: {type(error).__name__}: {error}", file=sys.stderr)
        return "-", 0.0


def configurations(quick: bool):
    sizes = (3,) if quick else (3, 4, 5)
    for size in sizes:
        yield f"puppet_easy_{size}_jobs", puppet_net(JOBS[:size], MACHINE)
    if not quick:
        capped = replace(MACHINE, cap=PowerCap.wait(600.0, l=2))
        yield "puppet_wait_5_jobs", puppet_net(JOBS, capped)
        at_once = [job._replace(st=0) for job in JOBS]
        yield "puppet_easy_5_jobs_at_once", puppet_net(at_once, MACHINE)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    for name, net in configurations(args.quick):
        states, arcs, seconds = ours(net)
        theirs, their_seconds = snakes(net)
        rate = f"{int(theirs.rstrip('+')) / their_seconds:.0f}" if their_seconds else "-"
        print(f"{name} states={states} arcs={arcs} seconds={seconds:.2f} "
              f"states_per_s={states / seconds:.0f} snakes_states={theirs} "
              f"snakes_states_per_s={rate}", flush=True)


if __name__ == "__main__":
    main()
