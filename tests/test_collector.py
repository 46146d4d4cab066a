"""A long run pauses Python's cyclic garbage collector, and gives it back
as it found it."""

import gc

import pytest

from cpn import Net, Simulator, timed
from cpn.collector import cyclic_gc_paused
from cpn.monitors import Monitor
from modules.job import Job
from nets.puppet import PuppetConfig, run_model, build_net


@pytest.fixture
def collector_on():
    was = gc.isenabled()
    gc.enable()
    yield
    if not was:
        gc.disable()


def test_the_collector_is_paused_inside_and_enabled_again_after(collector_on):
    with cyclic_gc_paused():
        assert not gc.isenabled()
    assert gc.isenabled()


def test_a_caller_that_paused_the_collector_finds_it_still_paused(collector_on):
    gc.disable()
    with cyclic_gc_paused():
        pass
    assert not gc.isenabled()


def test_an_error_inside_still_gives_the_collector_back(collector_on):
    with pytest.raises(ValueError):
        with cyclic_gc_paused():
            raise ValueError("inside")
    assert gc.isenabled()


class CollectorWatch(Monitor):
    """Notes, at every move of the clock, whether the collector runs."""

    transitions = ()

    def __init__(self):
        self.seen = []

    def advanced(self, sim, old, new):
        self.seen.append(gc.isenabled())


def test_a_puppet_run_fires_with_the_collector_paused(collector_on):
    jobs = [Job(1, 0, 100, 3, 100), Job(2, 1, 100, 4, 100), Job(3, 2, 1000, 1, 1000)]
    config = PuppetConfig(machine_nodes=4, node_watts=100)
    watch = CollectorWatch()
    result, _ = run_model(build_net(config), jobs, config, monitors=[watch])
    assert list(result.jobs["start"]) == [0.0, 100.0, 200.0]
    assert watch.seen and not any(watch.seen)
    assert gc.isenabled()


def test_a_simulator_loads_its_initial_marking_with_the_collector_paused(collector_on):
    states = []

    def integer(value):  # a colour that notes whether the collector runs as it checks
        states.append(gc.isenabled())
        return isinstance(value, int)

    net = Net("load")
    net.place("P", integer, timed=True, initial=[timed(n, float(n)) for n in range(100)])
    flat = net.flatten()
    states.clear()  # checked as declared and as flattened too
    Simulator(flat)
    assert len(states) == 100 and not any(states)
    assert gc.isenabled()
