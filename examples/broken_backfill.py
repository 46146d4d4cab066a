"""A backfill rule that forgets the head job's reservation, caught by a
state space check.

    cpn check examples/broken_backfill.py --save out/
    cpn replay examples/broken_backfill.py out/reservation.jsonl --step

The scheduler starts every job that fits the free nodes, in queue order
(``nets.checking.backfill_ignoring_shadow``): on EASY's textbook case job
3 (1 node, 1,000 s) starts beside job 1 and pushes job 2's start from 100
to 1,002.  ``cpn check`` finds the step that delays the reservation, and
the saved counterexample replays in the stepper.  Run as a script, it
prints the same from Python.
"""

from cpn.query import always
from cpn.statespace import state_space
from modules.properties import reservation_kept
from nets.checking import EASY_JOBS, broken_easy_net, liveness

net = broken_easy_net()

QUERIES = {"reservation": always(reservation_kept()), **liveness(EASY_JOBS)}


if __name__ == "__main__":
    space = state_space(net)
    verdict = QUERIES["reservation"].check(space)
    print(verdict)
    print(verdict.counterexample.timeline())
