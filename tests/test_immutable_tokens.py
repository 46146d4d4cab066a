"""Every token is immutable and hashable, so markings can be compared,
stored in a state space, exported and undone.

``cpn.colours.FrozenDict`` on its own; the colour of every place of every
net the project builds; every token of every marking a short run of each
net reaches; the state spaces of the PuPPET net (with and without a WAIT
cap) and of the TOPPER net (failures kept or requeued), and their export
to SNAKES.
"""

import copy
import dataclasses
import pickle
from collections import Counter
from dataclasses import replace

import pytest

from cpn import Simulator, TimedToken, timed
from cpn.colours import FrozenDict
from cpn.monitors import FiringCounter
from cpn.snakes_bridge import to_pnml, to_snakes
from cpn.statespace import state_space
from modules.cpu_scaling import CpuScaling
from modules.dvfs_thesis.gears import CpuPowerModel
from modules.dvfs_thesis.profiles import JobProfile
from modules.energy_saving.policy import EnergySavingPolicy, GroupThresholds
from modules.job import Job
from modules.power_cap_schedule import PowerCapSchedule
from modules.power_capping import PowerCap
from modules.power_learning import LearnerConfig, PowerLearner, RunningEstimates
from modules.resilience import FaultTolerance
from nets import data_driven, dvfs_thesis, energy_saving, puppet, topper


# -- FrozenDict ------------------------------------------------------------------
def test_a_frozen_dict_refuses_every_change():
    running = FrozenDict({1: (100.0, 4)})
    changes = [lambda d: d.__setitem__(2, (0.0, 1)), lambda d: d.__delitem__(1),
               lambda d: d.update({2: (0.0, 1)}), lambda d: d.pop(1), lambda d: d.popitem(),
               lambda d: d.setdefault(2, (0.0, 1)), lambda d: d.clear()]
    for change in changes:
        with pytest.raises(TypeError, match="a FrozenDict cannot change: build a new one "
                                            r"with \| or without\(\)"):
            change(running)
    assert running == {1: (100.0, 4)}


def test_a_frozen_dict_makes_new_ones_and_keeps_its_order():
    running = FrozenDict({1: (100.0, 4), 2: (50.0, 1)})
    more = running | {3: (70.0, 2), 1: (90.0, 4)}
    assert type(more) is FrozenDict and list(more.items()) == [
        (1, (90.0, 4)), (2, (50.0, 1)), (3, (70.0, 2))]
    fewer = more.without(1)
    assert type(fewer) is FrozenDict and list(fewer) == [2, 3]
    assert more.without(7) is more and running == {1: (100.0, 4), 2: (50.0, 1)}
    grown = running
    grown |= {4: (1.0, 1)}  # rebinds, as += does on a tuple
    assert list(grown) == [1, 2, 4] and list(running) == [1, 2]
    assert running.copy() is running and FrozenDict.fromkeys([1, 2], 0) == {1: 0, 2: 0}


def test_equal_frozen_dicts_hash_alike_and_survive_copies():
    first = FrozenDict({1: (100.0, 4), 2: (50.0, 1)})
    second = FrozenDict({2: (50.0, 1)}) | {1: (100.0, 4)}
    assert first == second and hash(first) == hash(second)
    assert len({first, second, FrozenDict()}) == 2
    for twin in (copy.copy(first), copy.deepcopy(first), pickle.loads(pickle.dumps(first))):
        assert type(twin) is FrozenDict and twin == first and hash(twin) == hash(first)
    with pytest.raises(TypeError, match="unhashable type: 'list'"):
        hash(FrozenDict({1: [100.0, 4]}))


def test_learners_and_estimates_compare_by_what_they_know():
    config = LearnerConfig(min_samples=2, window=10)
    job = Job(1, 0, 600, 4, 600, jp=240.0, user=1, group=7)
    learned = PowerLearner(config).with_history(job, [60.0, 61.0])
    again = PowerLearner(config).with_history(job, [60.0, 61.0])
    assert learned == again and hash(learned) == hash(again)
    assert learned != PowerLearner(config)
    assert isinstance(learned.jobs, FrozenDict) and isinstance(learned.projects, FrozenDict)
    estimates = RunningEstimates().started(job, 60.0, "job")
    assert estimates == RunningEstimates({1: (60.0, "job", 4)}, 240.0)
    assert hash(estimates) == hash(RunningEstimates({1: (60.0, "job", 4)}, 240.0))


# -- every net of the project, with a few jobs --------------------------------------
JOBS = [Job(1, 0, 100, 2, 120, jp=200.0, user=1, group=1),
        Job(2, 5, 60, 2, 80, jp=200.0, user=2, group=1),
        Job(3, 10, 50, 1, 50, jp=100.0, user=1, group=2),
        Job(4, 20, 80, 4, 100, jp=400.0, user=3, group=2),
        Job(5, 30, 40, 1, 60, jp=100.0, user=1, group=1),
        Job(6, 30, 30, 2, 30, jp=200.0, user=2, group=2)]
MACHINE = puppet.PuppetConfig(4, node_watts=100.0)  # idle 120 W, all busy 400 W
FAILURES = FaultTolerance(unit_nodes=1, recovery=10.0, checkpoint_small=5.0)
FAILURE_TRACE = {0: [40.0, 150.0], 1: [15.0]}
THESIS_POWER = CpuPowerModel(nominal_cpu_watts=100.0, idle="zero")
PROFILES = {job.id: JobProfile(1.0, 1.0) for job in JOBS}


def topper_config(on_failure="keep", cap=PowerCap()):
    return topper.TopperConfig(replace(MACHINE, cap=cap),
                               replace(FAILURES, on_failure=on_failure),
                               failure_trace=FAILURE_TRACE)


DATA_DRIVEN = data_driven.DataDrivenConfig(
    4, cap=PowerCapSchedule.of((0, 500.0), (50, 350.0)), node_watts=100.0,
    learner=LearnerConfig(period=10.0, min_samples=2, window=5, max_node_watts=150.0))
NAIVE = replace(DATA_DRIVEN, method="naive", cap=PowerCapSchedule.constant(400.0))
SLEEPING = energy_saving.EnergySavingConfig(4, policy=EnergySavingPolicy(
    period_s=10.0, idle_threshold_s=20.0, thresholds=GroupThresholds(min_wait_s=30.0)))
UPAS = dvfs_thesis.ThesisConfig(4, dvfs_thesis.UpasConfig(interval_s=50.0), THESIS_POWER)
MAX_JOB_PERF = dvfs_thesis.ThesisConfig(4, dvfs_thesis.MaxJobPerfConfig(budget_fraction=0.8),
                                        THESIS_POWER)


def puppet_model(config):
    def run(monitor):
        puppet.run_model(puppet.build_net(config), JOBS, config, monitors=[monitor])
    return puppet.build_net(config), run


#: name -> (the net, a run of it watched by a monitor, transitions that
#: must fire for the run to have used the places these tests are about)
MODELS = {
    "puppet": (*puppet_model(MACHINE), ["Allocation/Allocate", "Finish"]),
    # job 4 (400 W) breaks the 300 W cap alone: it runs alone, draining the machine
    "puppet-wait": (*puppet_model(replace(MACHINE, cap=PowerCap.wait(300.0, l=2, w_minutes=1),
                                          over_cap="run_alone")),
                    ["Allocation/Wait", "Allocation/AllocateW"]),
    "puppet-block": (*puppet_model(replace(MACHINE, cap=PowerCap.block(300.0),
                                           over_cap="run_alone")),
                     ["Allocation/Hold"]),
    "puppet-dvfs": (*puppet_model(replace(MACHINE, cap=CpuScaling(300.0))),
                    ["Allocation/Rescale", "Allocation/Discard"]),
    "topper-keep": (topper.build_net(JOBS, topper_config())[0],
                    lambda m: topper.simulate(JOBS, topper_config(), monitors=[m]),
                    ["FaultTolerance/Fail", "FaultTolerance/Rollback"]),
    "topper-requeue": (topper.build_net(JOBS, topper_config("requeue"))[0],
                       lambda m: topper.simulate(JOBS, topper_config("requeue"), monitors=[m]),
                       ["FaultTolerance/Requeue", "Resubmit"]),
    "topper-dvfs": (topper.build_net(JOBS, topper_config(cap=CpuScaling(300.0)))[0],
                    lambda m: topper.simulate(JOBS, topper_config(cap=CpuScaling(300.0)),
                                              monitors=[m]),
                    ["FaultTolerance/Retime", "FaultTolerance/Discard"]),
    "data-driven": (data_driven.build_net(DATA_DRIVEN),
                    lambda m: data_driven.simulate(JOBS, DATA_DRIVEN, monitors=[m]),
                    ["Allocation/Learn", "Scheduler/ChangeCap"]),
    "data-driven-naive": (data_driven.build_net(NAIVE),
                          lambda m: data_driven.simulate(JOBS, NAIVE, monitors=[m]),
                          ["Allocation/Hold"]),
    "energy-saving": (energy_saving.build_net(SLEEPING.puppet, SLEEPING.sleeping, JOBS),
                      lambda m: energy_saving.simulate(JOBS, SLEEPING, monitors=[m]),
                      ["EnergySaving/Halted", "EnergySaving/Booted", "EnergySaving/Observe"]),
    "thesis-upas": (dvfs_thesis.build_net(UPAS, PROFILES, JOBS),
                    lambda m: dvfs_thesis.simulate(JOBS, UPAS, PROFILES, monitors=[m]),
                    ["Allocation/Allocate"]),
    "thesis-max-job-perf": (dvfs_thesis.build_net(MAX_JOB_PERF, PROFILES, JOBS),
                            lambda m: dvfs_thesis.simulate(JOBS, MAX_JOB_PERF, PROFILES,
                                                           monitors=[m]),
                            ["Allocation/Allocate"]),
}


def immutable_colour(colour) -> bool:
    """Whether every token of ``colour`` is immutable and hashable: a type
    (or a tuple of types) that hashes, is no mutable container and, if a
    dataclass, is frozen.  ``object`` or a predicate says nothing."""
    types = colour if isinstance(colour, tuple) else (colour,)
    return all(isinstance(kind, type) and kind is not object and kind.__hash__ is not None
               and (not issubclass(kind, (list, dict, set, bytearray))
                    or issubclass(kind, FrozenDict))
               and (not dataclasses.is_dataclass(kind) or kind.__dataclass_params__.frozen)
               for kind in types)


@pytest.mark.parametrize("name", MODELS)
def test_every_place_has_an_immutable_colour(name):
    net = MODELS[name][0]
    mutable = {place.path: place.place.colour_name for place in net.flatten().places
               if not immutable_colour(place.place.colour)}
    assert mutable == {}


class HashEveryToken(FiringCounter):
    """After every firing, every token of the marking hashes, and equals a
    deep copy of itself with the same hash: a token hashed by identity
    (an ``eq=False`` dataclass) hashes too, yet two equal markings holding
    it would never compare equal."""

    def __init__(self):
        super().__init__()
        self.unhashable: dict[str, str] = {}
        self.mappings = 0  # non-empty FrozenDicts met: the containers were used
        self.finished = 0

    def fired(self, sim, transition, values):
        marking = sim.marking
        for path in marking:
            for token in marking[path]:
                try:
                    twin = copy.deepcopy(token)
                    if twin != token or hash(twin) != hash(token):
                        raise TypeError("equal copies differ or hash differently")
                except TypeError as error:
                    self.unhashable[path] = f"{type(token).__name__}: {error}"
                self.mappings += isinstance(token, FrozenDict) and bool(token)
        self.finished = len(marking["Finished"])
        return super().fired(sim, transition, values)


@pytest.mark.parametrize("name", MODELS)
def test_every_token_of_every_marking_reached_is_hashable(name):
    _, run, must_fire = MODELS[name]
    monitor = HashEveryToken()
    run(monitor)
    assert monitor.unhashable == {}
    assert monitor.finished == len(JOBS)
    assert monitor.mappings > 0
    assert [path for path in must_fire if not monitor.counts.get(path)] == []


# -- state spaces and export ------------------------------------------------------
#: Four jobs on a 4-node machine at 100 W a node (idle 30 W).  Uncapped,
#: job 3 backfills at 2; under a 350 W WAIT cap it would raise power to
#: 400 W next to job 1, so it waits until job 1 ends.  Job 4 needs the
#: whole machine, and alone exceeds the cap: it runs when nothing else does.
SMALL = [Job(1, 0, 100, 3, 100, jp=300.0), Job(2, 1, 50, 2, 60, jp=200.0),
         Job(3, 2, 30, 1, 40, jp=100.0), Job(4, 2, 80, 4, 80, jp=400.0)]


def submitted(jobs):
    return {"Scheduler/User": [timed(job, job.st) for job in jobs]}


@pytest.mark.parametrize("cap, job_3", [(PowerCap(), (2.0, 32.0)),
                                        (PowerCap.wait(350.0, l=2), (100.0, 130.0))])
def test_puppet_state_space_ends_with_every_job_finished(cap, job_3):
    net = puppet.build_net(puppet.PuppetConfig(4, node_watts=100.0, cap=cap))
    space = state_space(net, timed=True, marking=submitted(SMALL))
    assert space.complete
    [dead] = space.dead_markings
    finished = space.graph.nodes[dead]["marking"]["Finished"]
    assert sorted((job.id, job.et, end) for job, end in finished) == [
        (1, 0.0, 100.0), (2, 100.0, 150.0), (3, *job_3), (4, 150.0, 230.0)]
    waited = any(marking.get("Allocation/WaitQueue", [()])[0]
                 for _, marking in space.graph.nodes(data="marking"))
    assert waited == (cap.cap_watts == 350.0)


@pytest.mark.parametrize("on_failure", ["keep", "requeue"])
def test_topper_state_space_ends_with_every_job_finished(on_failure):
    # Unit 0 fails at 40 under job 1, which lost its 40 s on 2 units (no
    # checkpoint yet) and pays 10 s of recovery, in place or after requeueing.
    config = topper.TopperConfig(puppet.PuppetConfig(4, node_watts=100.0),
                                 replace(FAILURES, on_failure=on_failure),
                                 failure_trace={0: [40.0]})
    jobs = [Job(1, 0, 100, 2, 100, jp=200.0), Job(2, 1, 50, 1, 60, jp=100.0),
            Job(3, 2, 30, 1, 40, jp=100.0), Job(4, 2, 80, 4, 80, jp=400.0)]
    net, scheduled = topper.build_net(jobs, config)
    space = state_space(net, timed=True, marking=submitted(scheduled))
    assert space.complete
    [dead] = space.dead_markings
    marking = space.graph.nodes[dead]["marking"]
    ends = {job.id: end for job, end in marking["Finished"]}
    run = topper.simulate(jobs, config)
    assert ends == dict(zip(run.jobs["job_id"], run.jobs["end"]))
    assert ends[1] == pytest.approx(150.0, abs=0.1) and ends[3] == pytest.approx(32.0, abs=0.1)
    [failure] = marking["FaultTolerance/Failures"]
    assert (failure.time, failure.job_id, failure.lost_node_seconds) == (40.0, 1, 80.0)


@pytest.mark.parametrize("name", ["puppet", "puppet-wait", "topper-keep", "topper-requeue"])
def test_the_nets_export_to_snakes_with_their_places(name):
    net = MODELS[name][0]
    exported = to_snakes(net, warn=False)
    assert {place.name for place in exported.place()} == {
        place.path for place in net.flatten().places}
    assert "Scheduler/Schedule" in to_pnml(net)


def test_snakes_fires_the_puppet_net_as_we_do_at_time_zero():
    """Jobs all submitted at 0: our firings up to the first advance of the
    clock, replayed in SNAKES (code segments included), reach our marking."""
    jobs = [job._replace(st=0) for job in JOBS[:4]]
    net = puppet.build_net(MACHINE)
    exported = to_snakes(net, warn=False)
    for job in jobs:
        exported.place("Scheduler/User").add([job])
    sim = Simulator(net, marking={"Scheduler/User": [timed(job, 0) for job in jobs]})
    fired = 0
    while enabled := sim.enabled():
        binding = sim.fire(enabled[0])
        transition = exported.transition(binding.transition)
        [mode] = [mode for mode in transition.modes() if mode.dict() == dict(binding.values)]
        transition.fire(mode)
        fired += 1
    assert fired >= 2 * len(jobs)  # each job submitted and started
    ours = {path: Counter(token.value if isinstance(token, TimedToken) else token
                          for token in sim.tokens(path)) for path in sim.marking}
    theirs = {place.name: Counter(place.tokens) for place in exported.place()}
    assert theirs == ours
