"""Simulator.undo takes back the last recorded change and only it: a change
made without an undo point is never taken back with an older one."""

import pytest

from cpn import BindingError, Net, Simulator


def tick(env=None, output="x + 1@+2"):
    """One token counting up, each firing 2 time units after the last."""
    net = Net("tick", env=env or {})
    net.place("P", int, initial=[0], timed=True)
    net.transition("T")
    net.arc("P", "T", "x")
    net.arc("T", "P", output)
    return net


def state(sim):
    return sim.now, sim.steps, sim.marking["P"]


def test_undo_after_steps_does_not_take_back_the_steps_and_the_fire_before_them():
    sim = Simulator(tick())
    sim.fire()
    sim.step()
    sim.step()
    assert state(sim) == (4.0, 3, [3])
    assert not sim.undo()  # it used to go back to time 0, three firings gone
    assert state(sim) == (4.0, 3, [3])


def test_undo_after_a_run_without_history_takes_nothing_back():
    sim = Simulator(tick())
    sim.fire()
    sim.run(max_steps=5)
    assert state(sim) == (10.0, 6, [6])
    assert not sim.undo()  # it used to go back to time 0, six firings gone
    assert state(sim) == (10.0, 6, [6])


def test_undo_takes_back_one_fire_at_a_time():
    sim = Simulator(tick(output="x + 1"))
    sim.fire()
    sim.fire()
    assert state(sim) == (0.0, 2, [2])
    assert sim.undo() and state(sim) == (0.0, 1, [1])
    assert sim.undo() and state(sim) == (0.0, 0, [0])
    assert not sim.undo() and state(sim) == (0.0, 0, [0])


def test_fires_after_a_run_without_history_are_undone_back_to_the_run():
    sim = Simulator(tick(output="x + 1"))
    sim.fire()
    sim.run(max_steps=2)
    sim.fire()
    assert sim.undo() and state(sim) == (0.0, 3, [3])
    assert not sim.undo()


def test_with_history_undo_takes_back_the_whole_run_then_the_fire_before_it():
    sim = Simulator(tick(), history=True)
    sim.fire()
    sim.run(max_steps=5)
    assert sim.undo() and state(sim) == (0.0, 1, [1])
    assert sim.undo() and state(sim) == (0.0, 0, [0])
    assert not sim.undo()


def test_with_history_each_step_and_advance_is_an_undo_point():
    sim = Simulator(tick(), history=True)
    sim.fire()
    sim.step()
    assert sim.advance() and state(sim) == (4.0, 2, [2])
    assert sim.undo() and state(sim) == (2.0, 2, [2])
    assert sim.undo() and state(sim) == (0.0, 1, [1])
    assert sim.undo() and state(sim) == (0.0, 0, [0])
    assert not sim.undo()


def test_a_clock_advance_without_history_drops_the_undo_points():
    sim = Simulator(tick())
    sim.fire()
    assert sim.advance() and state(sim) == (2.0, 1, [1])
    assert not sim.undo()
    assert state(sim) == (2.0, 1, [1])


def test_a_fire_that_is_not_undoable_drops_the_undo_points():
    sim = Simulator(tick(output="x + 1"))
    sim.fire()
    sim.fire(undoable=False)  # as a replay fires
    assert not sim.undo() and state(sim) == (0.0, 2, [2])


def test_restoring_a_checkpoint_drops_the_undo_points_of_the_state_left():
    sim = Simulator(tick(output="x + 1"))
    start = sim.checkpoint()
    sim.fire()
    sim.fire()
    sim.restore(start)
    assert not sim.undo() and state(sim) == (0.0, 0, [0])
    sim.fire()
    sim.restore(sim.checkpoint())  # the same state: nothing changed
    assert sim.undo() and state(sim) == (0.0, 0, [0])


def test_what_changes_nothing_keeps_the_undo_points():
    net = Net("once")
    net.place("P", int, initial=[0])
    net.transition("T", guard="x < 1")
    net.arc("P", "T", "x")
    net.arc("T", "P", "x + 1")
    sim = Simulator(net)
    sim.fire()
    assert sim.step() is None and sim.run().steps == 1 and not sim.advance()
    assert sim.enabled() == [] and sim.marking["P"] == [1]
    assert sim.undo() and sim.marking["P"] == [0] and sim.steps == 0


def test_a_run_that_fails_part_way_without_history_drops_the_undo_points():
    sim = Simulator(tick(env={"check": lambda x: 1 // (3 - x)}, output="x + 1 + 0 * check(x)@+2"))
    sim.fire()
    with pytest.raises(BindingError, match="x=3"):
        sim.run()
    assert state(sim) == (6.0, 3, [3])
    assert not sim.undo() and state(sim) == (6.0, 3, [3])
