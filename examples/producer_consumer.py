"""A timed producer/consumer with a bounded buffer, built step by step.

The textbook net: a producer makes an item every 2 time units, a consumer
takes 3 time units per item, and a buffer holds at most ``CAPACITY`` items
(the free slots are tokens of their own, so a full buffer blocks the
producer).  Since the consumer is slower, the buffer fills up.

Run it (``python examples/producer_consumer.py``) to step it by hand from
Python, run it to the end, draw it and explore its state space; or step
it yourself in a terminal::

    cpn step examples/producer_consumer.py
"""

from __future__ import annotations

from pathlib import Path

from cpn import Net, Simulator, timed

ITEMS = 4  # how many items the producer makes (finite, so the state space is)
CAPACITY = 2  # buffer slots
PRODUCE_TIME = 2
CONSUME_TIME = 3


def build_net() -> Net:
    # A net is a declaration: places, transitions, arcs with inscriptions as
    # text.  ``env`` holds the constants the inscriptions may read.
    net = Net("producer_consumer", env={"ITEMS": ITEMS})

    # The producer's state is the number of the next item.  The place is
    # timed: its token becomes available when the producer is free again.
    net.place("Producer", int, initial=[1], timed=True)
    # Items waiting in the buffer (untimed: available at once).
    net.place("Buffer", int)
    # One token per free slot: producing takes one, consuming gives it back.
    net.place("Free", str, initial=["slot"] * CAPACITY)
    # The consumer, free from time 0; busy (its token in the future) while
    # it consumes.
    net.place("Consumer", str, initial=[timed("idle", 0)], timed=True)
    # What has been consumed, to check the run.
    net.place("Consumed", int)

    # Produce item n while items remain and a slot is free; the producer is
    # busy for PRODUCE_TIME (the ``@+`` on its output arc).
    net.transition("Produce", guard="n <= ITEMS")
    net.arc("Producer", "Produce", "n")
    net.arc("Free", "Produce", "'slot'")
    net.arc("Produce", "Buffer", "n")
    net.arc("Produce", "Producer", f"n + 1@+{PRODUCE_TIME}")

    # Consume any item of the buffer (a multiset: every item is a binding),
    # freeing its slot now and the consumer CONSUME_TIME later.
    net.transition("Consume")
    net.arc("Buffer", "Consume", "x")
    net.arc("Consumer", "Consume", "c")
    net.arc("Consume", "Free", "'slot'")
    net.arc("Consume", "Consumer", f"c@+{CONSUME_TIME}")
    net.arc("Consume", "Consumed", "x")
    return net


net = build_net()  # what `cpn step examples/producer_consumer.py` loads


def step_by_hand() -> None:
    print("== stepping by hand")
    sim = Simulator(net, seed=1)
    for binding in sim.enabled():  # only Produce n=1: the buffer is empty
        print("enabled:", binding)
    sim.fire(sim.enabled()[0])
    print("after firing:")
    print(sim.marking)
    print("enabled now:", [str(b) for b in sim.enabled()])
    sim.undo()  # back to the initial marking
    print("after undo, Buffer =", sim.tokens("Buffer"), "Producer =", sim.tokens("Producer"))
    sim.fire()  # no argument: the binding an automatic run would choose
    print("fired again; the producer is busy until", sim.next_event_time())


def run_to_the_end() -> Simulator:
    print("\n== running to the end")
    sim = Simulator(net, seed=1)
    while (binding := sim.step()) is not None:
        print(f"  t={sim.now:>4g}  {binding}   buffer={sorted(sim.tokens('Buffer'))}")
    print(f"dead at time {sim.now:g} after {sim.steps} firings; consumed "
          f"{sorted(sim.tokens('Consumed'))}")
    return sim


def draw_it() -> None:
    from cpn.drawing import DrawingError, draw

    sim = Simulator(net, seed=1)
    sim.run(max_steps=6)  # the buffer is full; Consume is enabled (drawn green)
    out = Path(__file__).resolve().parent / "out"
    try:
        path = draw(net, out / "producer_consumer.png", marking=sim)
        draw(net, out / "producer_consumer.svg", marking=sim)
    except DrawingError as error:  # Graphviz's dot is not installed
        print(f"\n(not drawn: {error})")
        return
    print(f"\n== drawn (marking at time {sim.now:g}) to {path}")


def explore_state_space() -> None:
    from cpn.statespace import state_space

    print("\n== state space (timed: states keep tokens' times relative to the clock)")
    space = state_space(net, timed=True)
    print(f"states: {space.graph.number_of_nodes()}, edges: "
          f"{space.graph.number_of_edges()}, complete: {space.complete}")
    dead = space.dead_markings
    print(f"dead markings: {len(dead)}")
    for node in dead:
        marking = space.graph.nodes[node]["marking"]
        print(f"  consumed {sorted(marking['Consumed'])}, buffer {marking['Buffer']}")
    print(f"Buffer bound: {space.place_bound('Buffer')} (capacity {CAPACITY}); "
          f"bounded by {CAPACITY}: {space.is_bounded('Buffer', CAPACITY)}")


if __name__ == "__main__":
    step_by_hand()
    run_to_the_end()
    draw_it()
    explore_state_space()
