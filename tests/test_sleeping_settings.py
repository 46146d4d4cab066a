"""Sleeping nodes' settings of the wrong kind are refused where they are
given, naming them: each was an AttributeError or a TypeError of the run,
or was taken (``enabled="no"`` is true in Python)."""

from __future__ import annotations

import math
import re

import pytest

from modules.energy_saving.policy import EnergySavingPolicy, GroupThresholds
from modules.job import Job
from modules.node_power import NodePower
from modules.resilience import FaultTolerance
from nets import energy_saving, topper
from nets.energy_saving import EnergySavingConfig, SleepingNodes
from nets.puppet import PuppetConfig
from nets.topper import TopperConfig

JOBS = [Job(1, 0, 100, 1, 100, jp=100.0)]
MACHINE = PuppetConfig(4, node_watts=100)
TOPPER = TopperConfig(MACHINE, FaultTolerance(unit_nodes=1))


@pytest.mark.parametrize("run", [
    lambda sleeping: topper.simulate(JOBS, TOPPER, sleeping=sleeping),
    lambda sleeping: energy_saving.simulate_puppet(JOBS, MACHINE, sleeping),
    lambda sleeping: energy_saving.simulate_topper(JOBS, TOPPER, sleeping),
], ids=["topper", "simulate_puppet", "simulate_topper"])
@pytest.mark.parametrize("sleeping, fix", [
    (5, "SleepingNodes() for the paper's policy"),
    (True, "SleepingNodes() for the paper's policy"),
    (EnergySavingPolicy(), "SleepingNodes(EnergySavingPolicy("),
])
def test_sleeping_of_another_kind_is_refused_saying_what_to_give(run, sleeping, fix):
    """It was "'int' object has no attribute 'scheduler'" (or 'monitor')."""
    with pytest.raises(ValueError, match=re.escape(f"sleeping must be a SleepingNodes "
                                                   f"(nets.energy_saving) or None, not "
                                                   f"{sleeping!r}: give {fix}")):
        run(sleeping)


@pytest.mark.parametrize("make, message", [
    (lambda: SleepingNodes(policy=5), "policy must be an EnergySavingPolicy, not 5"),
    (lambda: SleepingNodes(node=5), "node must be a NodePower, not 5"),
    (lambda: EnergySavingConfig(4, policy=5), "policy must be an EnergySavingPolicy, not 5"),
    (lambda: EnergySavingConfig(4, node="150"), "node must be a NodePower, not '150'"),
    (lambda: EnergySavingPolicy(period_s="60"), "period_s must be positive, not '60'"),
    (lambda: EnergySavingPolicy(idle_threshold_s=math.nan),
     "idle_threshold_s must be >= 0 s, not nan"),
    (lambda: EnergySavingPolicy(initially_on=2.5), "initially_on must be a whole number"),
    (lambda: EnergySavingPolicy(enabled="no"), "enabled must be True or False, not 'no'"),
    (lambda: EnergySavingPolicy(wait_smoothing="0.2"), "wait_smoothing must be within"),
    (lambda: EnergySavingPolicy(groups={1: 600}), "each of groups (group id -> thresholds) "
                                                  "must be GroupThresholds"),
    (lambda: GroupThresholds(max_wait_s="1h"), "max_wait_s must be >= 0 s, not '1h'"),
    (lambda: NodePower(idle_w="150"), "node power: idle_w must be >= 0 and finite, not '150'"),
    (lambda: NodePower(loaded_w=math.inf), "loaded_w must be >= 0 and finite, not inf"),
    (lambda: NodePower(power_on_s=math.inf), "power_on_s must be positive and finite, not inf"),
    (lambda: GroupThresholds(max_queued=2.5), "max_queued must be a whole number"),
    (lambda: energy_saving.simulate_puppet(JOBS, MACHINE, scheduling="fcfs"),
     "scheduling must be a SchedulingConfig, a FifoQueues or None, not 'fcfs'"),
])
def test_a_sleeping_setting_of_the_wrong_kind_is_refused_naming_it(make, message):
    with pytest.raises(ValueError, match=re.escape(message)):
        make()


def test_sleeping_nodes_of_the_right_kinds_run():
    result = energy_saving.simulate_topper(JOBS, TOPPER, SleepingNodes(
        EnergySavingPolicy(idle_threshold_s=600, groups={1: GroupThresholds(max_queued=2)})))
    assert list(result.jobs["job_id"]) == [1]
