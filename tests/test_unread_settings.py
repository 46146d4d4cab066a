"""Settings that the rest of a configuration makes meaningless are refused
where they are given, naming both, as ``cpn run`` refuses its flags; a
setting left at its default never is."""

from __future__ import annotations

import math
import re

import pytest

from modules.cpu_scaling import CpuScaling
from modules.energy_saving.policy import EnergySavingPolicy
from modules.power_capping import PowerCap
from modules.resilience import FaultTolerance
from nets.puppet import PuppetConfig
from nets.topper import TopperConfig
from studies.experiment import Experiment

MACHINE = PuppetConfig(4, node_watts=100)
NODES = FaultTolerance(unit_nodes=1)


@pytest.mark.parametrize("settings, message", [
    (dict(redundancy=3), 'redundancy=3 means nothing with method="checkpoint": only '
                         'method="replication" runs replicas'),
    (dict(method="none", communication=0.5), 'communication=0.5 means nothing with '
                                              'method="none"'),
    (dict(method="none", checkpoint_scale=2), 'checkpoint_scale=2 means nothing with '
                                              'method="none": it takes no checkpoints'),
    (dict(method="none", checkpoint_small=60.0), "checkpoint_small=60.0 means nothing"),
])
def test_a_fault_tolerance_setting_its_method_never_reads_is_refused(settings, message):
    """Each was taken and dropped: the run was that of the defaults."""
    with pytest.raises(ValueError, match=re.escape(message)):
        FaultTolerance(**settings)


def test_fault_tolerance_settings_at_their_defaults_or_read_are_taken():
    assert FaultTolerance(redundancy=2.0, communication=0.3).degree == 1.0
    assert FaultTolerance(method="none", checkpoint_scale=1.0).checkpoints is False
    assert FaultTolerance(method="replication", redundancy=3).degree == 3


@pytest.mark.parametrize("settings, message", [
    (dict(failure_multiplier=2, failure_trace={0: [5.0]}),
     "failure_multiplier=2 scales the rate of drawn failures: those replayed from "
     "failure_trace have none"),
    (dict(dvfs_failure_multiplier=2, failure_trace={0: [5.0]}),
     "dvfs_failure_multiplier=2 scales the rate of drawn failures"),
    (dict(dvfs_failure_multiplier=3), "dvfs_failure_multiplier=3 applies under DVFS only"),
])
def test_a_failure_multiplier_with_no_rate_to_scale_is_refused(settings, message):
    with pytest.raises(ValueError, match=re.escape(message)):
        TopperConfig(MACHINE, NODES, **settings)


def test_a_dvfs_failure_multiplier_under_dvfs_and_a_trace_alone_are_taken():
    dvfs = PuppetConfig(4, node_watts=100, cap=CpuScaling(350.0))
    assert TopperConfig(dvfs, NODES, dvfs_failure_multiplier=2).dvfs_failure_multiplier == 2
    assert TopperConfig(MACHINE, NODES, failure_multiplier=1.0, failure_trace={0: [5.0]})


def test_a_dvfs_latency_under_fault_tolerance_is_refused_by_the_configuration():
    """It was refused only once a run built its net."""
    slow = PuppetConfig(4, node_watts=100, cap=CpuScaling(350.0, latency=5))
    with pytest.raises(ValueError, match=r"a DVFS latency \(5 s\) is not modelled under fault "
                                         "tolerance"):
        TopperConfig(slow, NODES)


def test_the_no_cap_sentinel_takes_the_settings_a_loop_over_caps_gives_it():
    """``inf`` is the baseline of a loop over caps (``for cap in (inf, 0.8 * peak, ...):
    PowerCap.wait(cap, l=5)``): its l, w and over_cap would never act, but
    refusing them would break that loop at its first value."""
    for cap in (PowerCap.block(math.inf), PowerCap.wait(math.inf, l=5, w_minutes=1)):
        assert PuppetConfig(4, cap=cap, over_cap="run_alone").cap_watts == math.inf


def test_an_experiment_with_a_dvfs_latency_and_failures_is_refused_where_declared():
    """It was refused by the run, in a sweep's worker."""
    with pytest.raises(ValueError, match="latency=5 .* is not modelled with "
                                         "resilience='checkpoint'"):
        Experiment(capping="dvfs", latency=5, resilience="checkpoint")
    assert Experiment(capping="wait", latency=5, resilience="checkpoint").latency is None


def test_nodes_initially_off_under_a_disabled_policy_are_refused():
    """Every node was on from the start: initially_on was dropped."""
    with pytest.raises(ValueError, match="initially_on=2 means nothing with enabled=False"):
        EnergySavingPolicy(enabled=False, initially_on=2)
    assert EnergySavingPolicy(initially_on=2, enabled=True).initially_on == 2
