"""Sleeping nodes on TOPPER and on the DVFS thesis policies: the same
energy-saving module as on PuPPET (``nets.energy_saving``), by hand on tiny
traces, against the PuPPET run, and invariants on random traces."""

import math
import random

import numpy as np
import pandas as pd
import pytest

from modules.cpu_scaling import CpuScaling
from modules.energy_saving.decisions import decide
from modules.energy_saving.idle_pool import IdlePool
from modules.energy_saving.policy import EnergySavingPolicy
from modules.job import Job
from modules.node_power import WH, NodePower
from modules.resilience import FaultTolerance
from nets.dvfs_thesis import (BsldDrivenConfig, CpuPowerModel, EasyConfig, JobProfile,
                              MaxJobPerfConfig, ThesisConfig)
from nets.dvfs_thesis import simulate as thesis_simulate
from nets.energy_saving import (EnergySavingConfig, SleepingNodes, simulate, simulate_thesis,
                                simulate_topper)
from nets.puppet import PuppetConfig
from nets.topper import TopperConfig
from nets.topper import simulate as topper_simulate

NEVER = math.inf


def starts(result):
    return dict(zip(result.jobs["job_id"], result.jobs["start"]))


def job(i, st, js, rt=100.0, **fields):
    return Job(i, st, rt, js, rt, jp=230.0 * js, **fields)


def topper(nodes, unit_nodes, mttf=NEVER, **resilience):
    puppet = PuppetConfig(nodes, node_watts=230.0, idle_fraction=150 / 230)
    return TopperConfig(puppet, FaultTolerance(unit_nodes=unit_nodes, unit_mttf=mttf,
                                               **resilience))


def sleeping(**policy):
    return SleepingNodes(EnergySavingPolicy(**policy))


def off_follows_threshold(result, threshold):
    """Every shutdown comes right after an idle interval of at least
    ``threshold``: never from a loaded (or assigned) node, never early."""
    timeline = result.timeline
    previous = timeline.groupby("node").shift()[timeline["state"] == "powering_off"]
    return bool((previous["state"] == "idle").all()
                and ((previous["end"] - previous["start"]) >= threshold).all())


def energy_is_the_accounting(result):
    """The Power place's integral is residency x power per state plus a
    charge per transition, loaded nodes at their jobs' power -- but for
    transitions still under way at the end, which the accounting charges
    in full."""
    gap = (result.metrics["energy_accounting_mwh"] - result.metrics["energy_mwh"]) * 1e6
    timeline, end = result.timeline, result.ledger.closed_at
    underway = timeline[(timeline["end"] == end)
                        & timeline["state"].isin(["powering_on", "powering_off"])]
    node = result.metrics["config"]["energy_saving"]["node"]
    most = len(underway) * max(node["power_on_wh"], node["power_off_wh"])
    return -1e-6 <= gap <= most + 1e-6 and (len(underway) > 0 or abs(gap) < 1e-6)


# -- whole units ---------------------------------------------------------------
def test_decisions_come_in_whole_units():
    policy = EnergySavingPolicy(idle_threshold_s=300)
    pool = IdlePool(8, ((0.0, 6), (500.0, 2)))
    # 6 nodes idle past the threshold: one whole 4-node unit goes.
    assert decide(600, (), 8, pool, 0, (), 0, {}, 8, policy, unit_nodes=4).power_off == 4
    assert decide(600, (), 8, pool, 0, (), 0, {}, 8, policy).power_off == 6
    # A job lacking 1 node boots a whole unit, at most the units in standby.
    queue = (job(1, 0, 12),)
    assert decide(600, queue, 0, IdlePool(0, ()), 8, (), 0, {}, 16, policy,
                  unit_nodes=4).power_on == 4
    assert decide(600, (job(1, 0, 15),), 0, IdlePool(0, ()), 4, (), 0, {}, 16, policy,
                  unit_nodes=4).power_on == 4


def test_topper_units_sleep_and_boot_whole():
    # Two 4-node units. Job 1 (1 node: one unit) runs 0-100; the other unit,
    # idle since 0, goes at the tick 300, job 1's at 420 (idle since 100).
    # Job 2 (6 nodes: two units) arrives at 2000: the tick at 2040 boots
    # both units, and it starts 555 s later.
    jobs = [job(1, 0, 1), job(2, 2000, 6)]
    result = simulate_topper(jobs, topper(8, 4), sleeping(idle_threshold_s=300))
    assert [(d.time, d.power_off, d.power_on) for d in result.decisions] == [
        (300, 4, 0), (420, 4, 0), (2040, 0, 8)]
    assert starts(result) == {1: 0, 2: 2040 + 555}
    assert list(result.jobs["nodes"]) == [4, 8]  # whole units
    assert result.metrics["shutdowns"] == 8 and result.metrics["failures"] == 0
    # 4 nodes loaded 100 s, then idle 300 or 320 s; 8 loaded 100 s at the end.
    node = NodePower()
    by_hand = (4 * 100 * 230 + 4 * 300 * 150 + 4 * 320 * 150 + 8 * 100 * 230) / WH \
        + 8 * (node.power_off_wh + node.power_on_wh) \
        + node.standby_w * (4 * (2040 - 780) + 4 * (2040 - 900)) / WH
    assert result.metrics["energy_mwh"] * 1e6 == pytest.approx(by_hand)
    assert result.metrics["energy_accounting_mwh"] * 1e6 == pytest.approx(by_hand)


def test_a_topper_job_starts_exactly_power_on_s_after_the_decision():
    # One 4-node unit on, one in standby: job 1 (5 nodes: both units)
    # arrives at 30, the tick at 60 boots the sleeping unit, it starts at 615.
    result = simulate_topper([job(1, 30, 5)], topper(8, 4),
                             sleeping(idle_threshold_s=300, initially_on=4))
    boot = result.decisions[0]
    assert (boot.time, boot.power_on, boot.jobs) == (60, 4, (1,))
    assert starts(result) == {1: 60 + 555} and len(result.decisions) == 1
    assert list(result.nodes["power_ons"]) == [0] * 4 + [1] * 4


def test_units_refuse_a_partial_start():
    with pytest.raises(ValueError, match="whole 4-node units"):
        simulate_topper([job(1, 0, 1)], topper(8, 4), sleeping(initially_on=2))


def test_dvfs_keeps_the_cap_with_nodes_asleep_and_powering_off():
    """DVFS chooses its level from the Power place, which knows what sleeping
    and switching nodes draw.  Job 1 (2 of 4 nodes) runs below nominal under
    600 W beside two idle nodes; when they power off (81 W each) it may speed
    up only as far as the cap allows; job 2 (3 nodes) starts on booted nodes
    beside one in standby."""
    jobs = [Job(1, 0, 5000, 2, 5000, jp=460.0), Job(2, 6000, 3000, 3, 3000, jp=690.0)]
    config = EnergySavingConfig(4, policy=EnergySavingPolicy(idle_threshold_s=300),
                                cap=CpuScaling(600.0))
    result = simulate(jobs, config)
    assert max(result.power_watts) <= 600.0 + 1e-9
    assert result.metrics["shutdowns"] == 4 and result.metrics["power_ons"] == 3
    # Job 1 runs at the fastest level whose power fits beside what the two
    # other nodes draw: idle (150 W) at first, powering off (81 W) from 300.
    node, power = config.node, config.puppet.power
    at = dict(zip(result.power_times, result.power_watts))
    powering_off_w = node.power_off_wh * 3600 / node.power_off_s

    def fastest(others_w):
        return max(power.scale(f) for f in CpuScaling(600.0).levels
                   if 460 * power.scale(f) + others_w <= 600)

    assert (at[0.0] - 2 * node.idle_w) / 460 == pytest.approx(fastest(2 * node.idle_w))
    assert (at[300.0] - 2 * powering_off_w) / 460 == pytest.approx(fastest(2 * powering_off_w))
    assert fastest(2 * powering_off_w) > fastest(2 * node.idle_w)
    assert starts(result)[2] == 6000 + node.power_on_s


# -- TOPPER without failures is PuPPET -------------------------------------------
def random_jobs(seed, count=60, nodes=16, gap=900.0):
    rng = random.Random(seed)
    jobs, clock = [], 0.0
    for i in range(count):
        clock += rng.expovariate(1 / gap) * (8 if rng.random() < 0.1 else 1)
        runtime = float(rng.randint(30, 5000))
        size = rng.randint(1, nodes)
        jobs.append(Job(i, round(clock), runtime, size, runtime * rng.uniform(1, 2),
                        jp=230.0 * size, user=rng.randint(1, 4), group=rng.randint(1, 2)))
    return jobs


@pytest.mark.parametrize("seed", [1, 2])
def test_topper_without_failures_on_single_node_units_is_the_puppet_run(seed):
    jobs = random_jobs(seed)
    config = EnergySavingConfig(16, policy=EnergySavingPolicy(idle_threshold_s=600))
    puppet = simulate(jobs, config)
    result = simulate_topper(jobs, topper(16, 1), config.sleeping)
    columns = ["job_id", "start", "end", "nodes"]
    pd.testing.assert_frame_equal(result.jobs[columns], puppet.jobs[columns])
    assert result.metrics["shutdowns"] == puppet.metrics["shutdowns"] > 0
    assert [d.time for d in result.decisions] == [d.time for d in puppet.decisions]
    for key in ("energy_mwh", "energy_accounting_mwh", "makespan_s", "active_node_s"):
        assert result.metrics[key] == pytest.approx(puppet.metrics[key], rel=1e-12), key


@pytest.mark.parametrize("on_failure", ["keep", "requeue"])
def test_topper_always_on_is_topper_unchanged(on_failure):
    jobs = random_jobs(3, count=40)
    config = topper(16, 4, mttf=0.5 * 86400, on_failure=on_failure)
    plain = topper_simulate(jobs, config, seed=2)
    result = simulate_topper(jobs, config, sleeping(enabled=False), seed=2)
    pd.testing.assert_frame_equal(result.jobs, plain.jobs)
    assert result.metrics["failures"] == plain.metrics["failures"] > 0
    for key in ("energy_j", "utilization", "system_efficiency", "lost_node_hours"):
        assert result.metrics[key] == pytest.approx(plain.metrics[key]), key
    assert energy_is_the_accounting(result) and result.metrics["shutdowns"] == 0


@pytest.mark.parametrize("on_failure", ["keep", "requeue"])
def test_topper_with_failures_keeps_every_invariant(on_failure):
    jobs = random_jobs(4, count=50, gap=3000)  # whole units fill the machine: arrive slower
    config = topper(16, 4, mttf=6 * 3600, on_failure=on_failure)
    result = simulate_topper(jobs, config, sleeping(idle_threshold_s=600), seed=1)
    frame = result.jobs
    assert sorted(frame["job_id"]) == [j.id for j in jobs]  # every job once
    assert (frame["start"] >= frame["submit"]).all()
    assert result.metrics["failures"] > 0
    assert result.metrics["shutdowns"] > 0 and result.metrics["power_ons"] > 0
    assert all(d.power_on % 4 == 0 and d.power_off % 4 == 0 for d in result.decisions)
    assert off_follows_threshold(result, 600)  # never switched off while assigned
    end = result.ledger.closed_at
    assert end == frame["end"].max()
    timeline = result.timeline
    assert (timeline["end"] - timeline["start"]).sum() == pytest.approx(16 * end)
    assert energy_is_the_accounting(result)  # a requeued job's failed runs too


# -- the DVFS thesis: a CPU sleeps ----------------------------------------------------
NOMINAL = {i: JobProfile(1.0, 1.0) for i in range(1, 3)}  # 100 W per CPU at 2.3 GHz


def test_thesis_cpus_boot_for_a_job():
    # Four CPUs, two on. Job 1 (2 CPUs) runs 0-1000; its CPUs, idle since
    # 1000, go at the tick 1620 (600 s threshold). Job 2 (4 CPUs) arrives at
    # 3000: the tick then boots all four, and it starts 555 s later.
    jobs = [Job(1, 0, 1000, 2, 1000), Job(2, 3000, 1000, 4, 1000)]
    config = ThesisConfig(4, EasyConfig())
    result = simulate_thesis(jobs, config, NOMINAL,
                             sleeping(idle_threshold_s=600, initially_on=2))
    assert [(d.time, d.power_off, d.power_on) for d in result.decisions] == [
        (1620, 2, 0), (3000, 0, 4)]
    assert starts(result) == {1: 0, 2: 3555}
    assert list(result.jobs["watts"]) == pytest.approx([200, 400])
    # The paper's node scaled to an idle CPU (25.7 W at the lowest gear).
    idle = config.power.idle_cpu_watts
    node = NodePower().scaled(idle, 100.0)
    assert idle == pytest.approx(25.7, abs=0.01) and node.standby_w == pytest.approx(2 * idle / 150)
    assert node.break_even_s == pytest.approx(NodePower().break_even_s)  # 582 s, as the paper's
    by_hand = ((200 + 400) * 1000 + 2 * 620 * idle
               + node.standby_w * (2 * 3000 + 2 * (3000 - 2100))) / WH \
        + 2 * node.power_off_wh + 4 * node.power_on_wh
    assert result.metrics["energy_mwh"] * 1e6 == pytest.approx(by_hand)
    assert result.metrics["energy_accounting_mwh"] * 1e6 == pytest.approx(by_hand)
    # Always on, job 2 starts on arrival.
    assert list(thesis_simulate(jobs, config, NOMINAL).jobs["start"]) == [0, 3000]


def test_thesis_sleeping_needs_idle_power():
    jobs = [Job(1, 0, 1000, 2, 1000)]
    with pytest.raises(ValueError, match="'zero' idle scenario"):
        simulate_thesis(jobs, ThesisConfig(4, power=CpuPowerModel(idle="zero")), NOMINAL)
    with pytest.raises(ValueError, match="idle at 150 W"):
        simulate_thesis(jobs, ThesisConfig(4), NOMINAL,
                        SleepingNodes(node=NodePower()))


def thesis_jobs(seed, count=40, cpus=16):
    rng = random.Random(seed)
    jobs, profiles, clock = [], {}, 0.0
    for i in range(count):
        clock += rng.expovariate(1 / 900) * (8 if rng.random() < 0.1 else 1)
        runtime = float(rng.randint(30, 5000))
        jobs.append(Job(i, round(clock), runtime, rng.randint(1, cpus),
                        runtime * rng.uniform(1, 2)))
        profiles[i] = JobProfile(rng.uniform(0.5, 1.0), rng.uniform(0.3, 1.0))
    return jobs, profiles


@pytest.mark.parametrize("policy", [EasyConfig(budget_fraction=0.7), BsldDrivenConfig(),
                                    MaxJobPerfConfig()])
def test_thesis_policies_keep_every_invariant(policy):
    jobs, profiles = thesis_jobs(5)
    result = simulate_thesis(jobs, ThesisConfig(16, policy), profiles,
                             sleeping(idle_threshold_s=600))
    frame = result.jobs
    assert sorted(frame["job_id"]) == [j.id for j in jobs]
    assert result.metrics["unfinished_jobs"] == 0 and (frame["start"] >= frame["submit"]).all()
    assert result.metrics["shutdowns"] > 0 and result.metrics["power_ons"] > 0
    assert off_follows_threshold(result, 600)
    end = result.ledger.closed_at
    assert (result.timeline["end"] - result.timeline["start"]).sum() == pytest.approx(16 * end)
    assert energy_is_the_accounting(result)
    assert np.isfinite(result.metrics["bsld"])


def test_sleeping_nodes_take_jobs_from_a_generator_and_refuse_an_empty_list():
    # a generator: "object of type 'generator' has no len()"; no job: a
    # ValueError from formatting a NaN makespan, then a "complete" empty result
    from nets.energy_saving import EnergySavingConfig, SleepingNodes, simulate, simulate_puppet
    from nets.puppet import PuppetConfig
    jobs = [Job(1, 0, 100, 2, 150, 200.0)]
    listed = simulate_puppet(jobs, PuppetConfig(4), SleepingNodes())
    generated = simulate_puppet((job for job in jobs), PuppetConfig(4), SleepingNodes())
    assert generated.jobs.equals(listed.jobs)
    with pytest.raises(ValueError, match="no jobs to simulate"):
        simulate([], EnergySavingConfig(2))
