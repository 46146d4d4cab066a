"""The EnergySaving cluster policy: its decisions as plain functions, the
module on the PuPPET net by hand, invariants on random traces, and the
NASA-iPSC run next to the paper's Table 1."""

import random
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

from modules.batch_scheduling import SchedulingConfig
from modules.easy import easy_pass_on_nodes
from modules.energy_saving.decisions import (decide, nodes_to_power_off, nodes_to_power_on,
                                             urgent_jobs)
from modules.energy_saving.idle_pool import (IdlePool, follow, idle_added, idle_since_before,
                                             merge_before, take_oldest, take_recent)
from modules.energy_saving.policy import EnergySavingPolicy, GroupThresholds
from modules.energy_saving.scheduling import (BOOTING, FifoQueues, fifo_per_queue,
                                              with_booting_nodes)
from modules.job import Job
from modules.node_power import dhms
from modules.power_capping import PowerCap
from modules.swf import read_swf
from nets.energy_saving import EnergySavingConfig, simulate
from nets.puppet import simulate as puppet_simulate

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "swf"
POLICY = EnergySavingPolicy(idle_threshold_s=300)


def starts(result):
    return dict(zip(result.jobs["job_id"], result.jobs["start"]))


def off_follows_threshold(result, threshold):
    """Every shutdown in the timeline comes right after an idle interval of
    at least ``threshold``: never from a loaded node, never early."""
    timeline = result.timeline
    before = timeline.groupby("node").shift()
    off = timeline["state"] == "powering_off"
    previous = before[off]
    return bool((previous["state"] == "idle").all()
                and ((previous["end"] - previous["start"]) >= threshold).all())


# -- the idle pool and the decisions -----------------------------------------
def test_idle_pool_takes_recent_for_jobs_and_oldest_for_shutdowns():
    pool = idle_added(idle_added(IdlePool(0, ()), 2, 0.0), 3, 50.0)
    assert pool == IdlePool(5, ((0.0, 2), (50.0, 3)))
    assert idle_added(pool, 1, 50.0) == IdlePool(6, ((0.0, 2), (50.0, 4)))
    assert take_recent(pool, 4) == IdlePool(1, ((0.0, 1),))
    assert take_oldest(pool, 3) == IdlePool(2, ((50.0, 2),))
    assert take_oldest(pool, 2) == IdlePool(3, ((50.0, 3),))
    assert idle_since_before(pool, 49.0) == 2 and idle_since_before(pool, 50.0) == 5
    merged = merge_before(idle_added(pool, 1, 80.0), 60.0)
    assert merged == IdlePool(6, ((0.0, 5), (80.0, 1)))
    assert follow(pool, 7, 90.0) == IdlePool(7, ((0.0, 2), (50.0, 3), (90.0, 2)))
    assert follow(pool, 1, 90.0) == IdlePool(1, ((0.0, 1),))


def job(i, st, js, user=1, group=1, rt=100.0):
    return Job(i, st, rt, js, rt, user=user, group=group)


def test_power_on_for_a_job_larger_than_the_powered_on_nodes():
    queue = (job(1, 0, 2), job(2, 0, 6))
    # 4 nodes on (2 idle, 2 loaded), 8 in standby: job 2 lacks 2.
    assert nodes_to_power_on(10, queue, 2, 0, 4, 8, POLICY) == (2, (2,), ("lacking",))
    assert nodes_to_power_on(10, queue, 2, 0, 6, 8, POLICY)[0] == 0  # it will fit later
    assert nodes_to_power_on(10, queue, 2, 0, 4, 1, POLICY)[0] == 1  # only 1 in standby
    assert nodes_to_power_on(10, (), 2, 0, 4, 8, POLICY)[0] == 0


def test_power_on_for_long_group_waits_and_long_user_queues():
    policy = EnergySavingPolicy(thresholds=GroupThresholds(max_wait_s=600, max_queued=2),
                                groups={2: GroupThresholds(max_wait_s=60)})
    queue = (job(1, 0, 3, user=1, group=1), job(2, 500, 1, user=2, group=2),
             job(3, 900, 1, user=3, group=1))
    # At 1000 group 1 waited (1000 + 100) / 2 = 550 s on average, group 2 500 s > 60.
    assert urgent_jobs(1000, queue, policy) == {2: "group wait"}
    assert urgent_jobs(1300, queue, policy) == {1: "group wait", 2: "group wait"}
    # Served in queue order from 1 idle node: job 1 lacks 2, job 2 lacks 1.
    assert nodes_to_power_on(1300, queue, 1, 0, 8, 8, policy) == (3, (1, 2), ("group wait",))
    assert nodes_to_power_on(1300, queue, 1, 2, 8, 8, policy)[0] == 1  # 2 already booting
    many = tuple(job(i, 990, 1, user=7) for i in range(10, 13))
    assert urgent_jobs(1000, many, policy) == {10: "user queue"}  # 3 queued > 2
    assert nodes_to_power_on(1000, many, 0, 0, 8, 8, policy) == (1, (10,), ("user queue",))


def test_with_no_idle_node_a_tick_switches_nothing_off_without_reading_the_queue():
    class Unreadable:
        @property
        def js(self):
            raise AssertionError("the queue was summed though no node is idle")

    assert nodes_to_power_off(500, (Unreadable(),) * 3, IdlePool(0, ()), {}, POLICY) == (0, ())
    assert nodes_to_power_off(500, (Unreadable(),), IdlePool(1, ((0.0, 1),)), {}, POLICY,
                              unit_nodes=2) == (0, ())


def test_power_off_spares_what_the_queue_needs():
    pool = IdlePool(5, ((0.0, 2), (200.0, 3)))
    assert nodes_to_power_off(400, (), pool, {}, POLICY) == (2, ("idle",))  # idle >= 300
    assert nodes_to_power_off(500, (), pool, {}, POLICY) == (5, ("idle",))
    # Queued jobs asking for 4 nodes keep 4 of the 5 idle ones on.
    assert nodes_to_power_off(500, (job(1, 0, 4),), pool, {}, POLICY) == (1, ("idle",))
    assert nodes_to_power_off(500, (job(1, 0, 9),), pool, {}, POLICY) == (0, ())
    quick = EnergySavingPolicy(idle_threshold_s=300,
                               thresholds=GroupThresholds(min_wait_s=60))
    # Group 1's started jobs waited 10 s on average: one more node goes, LRU.
    assert nodes_to_power_off(400, (), pool, {1: 10.0, 2: 90.0}, quick) == \
        (3, ("idle", "short waits"))


def test_decide_boots_or_switches_off_never_both():
    pool = IdlePool(2, ((0.0, 2),))
    booting = decide(1000, (job(1, 0, 4),), 2, pool, 6, (), 0, {}, 8, POLICY)
    assert (booting.power_on, booting.power_off, booting.jobs) == (2, 0, (1,))
    quiet = decide(1000, (), 2, pool, 6, (), 0, {}, 8, POLICY)
    assert (quiet.power_on, quiet.power_off) == (0, 2)
    off = EnergySavingPolicy(enabled=False)
    assert decide(1000, (), 2, pool, 6, (), 0, {}, 8, off).power_off == 0


def test_policy_validation():
    with pytest.raises(ValueError, match="period"):
        EnergySavingPolicy(period_s=0)
    with pytest.raises(ValueError, match="power_on_order"):
        EnergySavingPolicy(power_on_order="random")
    with pytest.raises(ValueError, match="queue"):
        FifoQueues(queue="partition")
    with pytest.raises(ValueError, match="initially_on"):
        EnergySavingConfig(4, policy=EnergySavingPolicy(initially_on=5))


# -- the paper's scheduler ---------------------------------------------------
def random_queue(rng, n):
    return tuple(Job(i, float(i), rng.randint(1, 50), rng.randint(1, 8), 60.0,
                     group=rng.randint(1, 2)) for i in range(n))


def test_fifo_with_one_queue_is_fcfs_without_backfilling():
    rng = random.Random(3)
    for _ in range(200):
        queue, free = random_queue(rng, rng.randint(0, 8)), rng.randint(0, 12)
        running = {100: (50.0, 4)}
        assert fifo_per_queue(queue, running, free, 0.0) == \
            easy_pass_on_nodes(queue, running, free, 0.0, backfill=False)


def test_fifo_per_queue_blocks_only_the_queue_of_a_job_that_does_not_fit():
    queue = (job(1, 0, 4, group=1), job(2, 1, 1, group=1), job(3, 2, 1, group=2),
             job(4, 3, 1, group=2))
    started, left = fifo_per_queue(queue, {}, 3, 5.0, lambda j: j.group)
    assert [j.id for j in started] == [3, 4] and [j.id for j in left] == [1, 2]
    # On the net: job 2 (group 1) waits behind job 1, group 2's job 3 does not.
    jobs = [job(1, 0, 2, group=1, rt=100), job(2, 1, 3, group=1, rt=100),
            job(3, 2, 1, group=1, rt=10), job(4, 3, 1, group=2, rt=10)]
    on = EnergySavingPolicy(enabled=False)
    single = simulate(jobs, EnergySavingConfig(4, policy=on, scheduling=FifoQueues()))
    grouped = simulate(jobs, EnergySavingConfig(4, policy=on,
                                                scheduling=FifoQueues(queue="group")))
    assert starts(single) == {1: 0, 2: 100, 3: 100, 4: 110}
    assert starts(grouped) == {1: 0, 2: 100, 3: 100, 4: 3}


def test_easy_plans_with_the_nodes_that_will_boot():
    queue = (job(1, 0, 6, rt=100), job(2, 0, 1, rt=100))
    running = with_booting_nodes(queue, {7: (500.0, 2)}, 1, 10.0, 615.0)
    assert running[BOOTING] == (625.0, 3)  # 6 - (1 idle + 2 loaded)
    started, _ = easy_pass_on_nodes(queue, running, 1, 10.0)
    assert [j.id for j in started] == [2]  # ends at 110, before the head's shadow
    assert with_booting_nodes(queue, {7: (500.0, 5)}, 1, 10.0, 615.0) == {7: (500.0, 5)}


def test_with_every_node_on_the_scheduler_does_not_read_the_queue():
    """No job is larger than the machine: with none of its nodes asleep,
    no queued job can lack nodes, and the whole queue is not read for it."""

    class Unread(tuple):
        def __iter__(self):
            raise AssertionError("the queue was read")

    queue = Unread((job(1, 0, 6), job(2, 0, 1)))
    running = {7: (500.0, 5)}
    assert with_booting_nodes(queue, running, 3, 10.0, 615.0, machine_nodes=8) is running
    with pytest.raises(AssertionError, match="the queue was read"):  # one node asleep
        with_booting_nodes(queue, running, 2, 10.0, 615.0, machine_nodes=8)


# -- the module on the net, by hand ----------------------------------------------
def test_a_job_starts_exactly_555_s_after_the_power_on_decision():
    # Three nodes, one on. Job 1 (3 nodes) arrives at 30: the tick at 60
    # boots two. The idle node passes the 300 s threshold while they boot
    # but is assigned to job 1, so it stays on.
    config = EnergySavingConfig(3, policy=EnergySavingPolicy(idle_threshold_s=300,
                                                             initially_on=1))
    result = simulate([job(1, 30, 3, rt=100)], config)
    boot = result.decisions[0]
    assert (boot.time, boot.power_on, boot.jobs, boot.reasons) == (60, 2, (1,), ("lacking",))
    assert starts(result) == {1: 60 + 555}
    assert len(result.decisions) == 1  # no shutdown before the job ran
    assert result.metrics["makespan_s"] == 615 + 100 - 30
    nodes = result.nodes
    assert list(nodes["power_ons"]) == [0, 1, 1] and nodes["shutdowns"].sum() == 0
    assert nodes.loc[0, "idle_s"] == 615 and list(nodes["loaded_s"]) == [100] * 3


def test_idle_nodes_go_off_after_the_threshold_and_never_while_assigned():
    jobs = [job(1, 0, 1, rt=1000), job(2, 0, 1, rt=100), job(3, 2000, 3, rt=100)]
    result = simulate(jobs, EnergySavingConfig(3, policy=POLICY))
    # Node idle since 0 goes at the tick 300; job 2's node (idle since 100)
    # at 420; job 1's at 1320, never while it ran (until 1000).
    offs = [(d.time, d.power_off) for d in result.decisions if d.power_off]
    assert offs == [(300, 1), (420, 1), (1320, 1)]
    on = [d for d in result.decisions if d.power_on]
    assert [(d.time, d.power_on) for d in on] == [(2040, 3)]
    assert starts(result)[3] == 2040 + 555
    assert off_follows_threshold(result, 300)
    loaded = result.timeline[result.timeline["state"] == "loaded"]
    assert loaded["end"].max() == 2695 and result.metrics["shutdowns"] == 3


def test_short_waits_switch_off_one_node_per_tick():
    policy = EnergySavingPolicy(idle_threshold_s=1e9,
                                thresholds=GroupThresholds(min_wait_s=60))
    result = simulate([job(1, 0, 1, rt=500)], EnergySavingConfig(4, policy=policy))
    assert [(d.time, d.power_off, d.reasons) for d in result.decisions] == [
        (0, 1, ("short waits",)), (60, 1, ("short waits",)), (120, 1, ("short waits",))]


def test_always_on_is_puppet_unchanged():
    rng = random.Random(5)
    jobs = [Job(i, float(rng.randint(0, 20_000)), float(rng.randint(10, 4000)),
                rng.randint(1, 16), 4000.0, jp=0.0) for i in range(60)]
    config = EnergySavingConfig(16).always_on()
    result = simulate(jobs, config)
    reference = puppet_simulate([j._replace(jp=230.0 * j.js) for j in jobs], config.puppet)
    pd.testing.assert_frame_equal(result.jobs, reference.jobs)
    assert result.metrics["energy_j"] == pytest.approx(reference.metrics["energy_j"])
    assert result.metrics["shutdowns"] == 0
    assert np.allclose(result.nodes["active_s"], result.jobs["end"].max())
    assert result.metrics["energy_accounting_mwh"] == pytest.approx(result.metrics["energy_mwh"])


def random_jobs(seed, count=80, nodes=16):
    rng = random.Random(seed)
    jobs, clock = [], 0.0
    for i in range(count):
        clock += rng.expovariate(1 / 900) * (8 if rng.random() < 0.1 else 1)
        runtime = float(rng.randint(30, 5000))
        jobs.append(Job(i, round(clock), runtime, rng.randint(1, nodes),
                        runtime * rng.uniform(1, 2), user=rng.randint(1, 4),
                        group=rng.randint(1, 2)))
    return jobs


@pytest.mark.parametrize("seed", [1, 2, 3])
@pytest.mark.parametrize("scheduling", [SchedulingConfig(), SchedulingConfig(policy="wfp"),
                                        FifoQueues(queue="group")])
def test_random_traces_keep_every_invariant(seed, scheduling):
    jobs = random_jobs(seed)
    config = EnergySavingConfig(16, scheduling=scheduling,
                                policy=EnergySavingPolicy(idle_threshold_s=600))
    result = simulate(jobs, config)
    frame = result.jobs
    assert sorted(frame["job_id"]) == [j.id for j in jobs]
    assert np.allclose(frame["end"] - frame["start"], [j.rt for j in jobs])
    assert (frame["start"] >= frame["submit"]).all()
    assert off_follows_threshold(result, 600)
    end = result.ledger.closed_at
    assert end == frame["end"].max()
    timeline = result.timeline
    assert (timeline["end"] - timeline["start"]).sum() == pytest.approx(16 * end)
    loaded = timeline[timeline["state"] == "loaded"]
    assert (loaded["end"] - loaded["start"]).sum() == pytest.approx(
        (frame["nodes"] * frame["runtime"]).sum())
    # The Power place's integral is the accounting, but for transitions
    # still under way at the end (charged in full by the accounting).
    underway = timeline[(timeline["end"] == end)
                        & timeline["state"].isin(["powering_on", "powering_off"])]
    gap = result.metrics["energy_accounting_mwh"] - result.metrics["energy_mwh"]
    assert -1e-9 <= gap * 1e6 <= len(underway) * 13.71 + 1e-6
    if underway.empty:
        assert gap == pytest.approx(0, abs=1e-12)
    # Every boot decision served a job that had to wait for it.
    for decision in (d for d in result.decisions if d.power_on):
        assert decision.jobs


def test_power_on_order_changes_names_only():
    jobs = random_jobs(4, count=120)
    policy = EnergySavingPolicy(idle_threshold_s=600)
    by_name = simulate(jobs, EnergySavingConfig(16, policy=policy))
    by_wear = simulate(jobs, EnergySavingConfig(
        16, policy=EnergySavingPolicy(idle_threshold_s=600, power_on_order="wear")))
    pd.testing.assert_frame_equal(by_name.jobs, by_wear.jobs)
    assert by_name.metrics["energy_j"] == by_wear.metrics["energy_j"]
    assert by_name.metrics["shutdowns"] == by_wear.metrics["shutdowns"]
    spread = lambda r: r.nodes["shutdowns"].max() - r.nodes["shutdowns"].min()  # noqa: E731
    assert spread(by_wear) <= spread(by_name)


def test_energy_saving_under_a_power_cap():
    jobs = random_jobs(6, count=60)
    cap = 16 * 230 * 0.7
    config = EnergySavingConfig(16, cap=PowerCap.wait(cap),
                                policy=EnergySavingPolicy(idle_threshold_s=600))
    result = simulate(jobs, config)
    # Jobs over the cap alone (on a machine of idle nodes) are rejected.
    rejected = result.metrics["rejected_jobs"]
    assert rejected > 0 and len(result.jobs) + rejected == len(jobs)
    assert max(result.power_watts) <= cap + 1e-6
    assert result.metrics["shutdowns"] > 0


# -- NASA-iPSC against Table 1 -----------------------------------------------------
NASA = DATA / "NASA-iPSC-1993-3.1-cln.swf"
needs_nasa = pytest.mark.skipif(not NASA.exists(), reason="no ../shared data")
PAPER = {"always on": (dhms(92, 0, 3, 43), 52.93), "energy saving": (dhms(92, 0, 12, 59), 38.73)}
PAPER_RATIO = 0.73  # "the energy consumption of this alternative is only 0.73x"
PREFIX_DAYS = 30


@pytest.fixture(scope="module")
def nasa():
    return read_swf(NASA)


@needs_nasa
def test_nasa_ipsc_always_on_reproduces_table_1(nasa):
    always = simulate(nasa.jobs, EnergySavingConfig(nasa.machine_nodes, timeline=False).always_on())
    # The paper prints the makespan to the second and the energy to 0.01 MWh:
    # we match it within that printing (92 d 0 h 3 m 42 s, 52.933 MWh).
    assert always.metrics["makespan_s"] == pytest.approx(PAPER["always on"][0], abs=1)
    assert always.metrics["energy_mwh"] == pytest.approx(PAPER["always on"][1], abs=0.005)
    assert always.metrics["shutdowns"] == 0


@pytest.fixture(scope="module")
def nasa_prefix(nasa):
    """The jobs submitted in the trace's first 30 days (5,887 of 18,066) and
    their always-on energy (a full energy-saving run takes about 2 s of CPU)."""
    jobs = [job for job in nasa.jobs if job.st < PREFIX_DAYS * 86400]
    config = EnergySavingConfig(nasa.machine_nodes, timeline=False)
    return jobs, config, simulate(jobs, config.always_on())


@needs_nasa
@pytest.mark.parametrize("idle_threshold_s, saves_more_than_paper", [(3600, True), (7200, False)],
                         ids=["1h", "2h"])
def test_nasa_ipsc_saving_brackets_table_1(nasa_prefix, idle_threshold_s, saves_more_than_paper):
    """Table 1 with energy saving: 0.73x the energy.  DIFFERS with our default
    idle threshold (30 min: 0.675x on the whole trace); the paper does not
    publish its threshold, and the saving falls as it grows: on the whole
    trace 0.711x at 1 h and 0.762x at 2 h bracket the paper's 0.73x
    (docs/findings.md).  The prefix is less loaded (42 % against 47 %
    utilization), so it saves a little more at each threshold (0.688x,
    0.752x), but the same two thresholds bracket 0.73x: the finding holds
    on it."""
    jobs, config, always = nasa_prefix
    policy = EnergySavingPolicy(idle_threshold_s=idle_threshold_s)
    saving = simulate(jobs, EnergySavingConfig(config.machine_nodes, timeline=False, policy=policy))
    ratio = saving.metrics["energy_mwh"] / always.metrics["energy_mwh"]
    assert (ratio < PAPER_RATIO) == saves_more_than_paper
    assert saving.metrics["energy_accounting_mwh"] == pytest.approx(
        saving.metrics["energy_mwh"], rel=1e-4)
    assert saving.metrics["max_active_nodes"] == 128  # 128-node jobs exist
    # Table 1's makespan grows by 556 s (x1.000069): the last job waits for
    # one boot (555 s).  Ours too, decided at a tick (601 s here and 599 s on
    # the whole trace), a node possibly still powering off first.
    delay = saving.metrics["makespan_s"] - always.metrics["makespan_s"]
    assert 555 <= delay <= 555 + policy.period_s + config.node.power_off_s


def test_ticks_that_would_decide_nothing_are_skipped():
    """Ten idle days between two jobs: the tick fires for the decisions
    (two switch-offs, a boot) and around them, not every minute; the
    decisions fall on the minutes they would every minute."""
    from cpn.monitors import FiringCounter

    counter = FiringCounter("EnergySaving/Tick")
    config = EnergySavingConfig(2, policy=EnergySavingPolicy(idle_threshold_s=600))
    result = simulate([job(1, 0, 1, rt=100), job(2, 864_000, 2, rt=100)], config,
                      monitors=[counter])
    decisions = [(d.time, d.power_on, d.power_off) for d in result.decisions]
    # node 2 idle since 0 goes at 600, node 1 (idle since 100) at 720; job 2
    # arrives on a minute and the tick of that instant boots both
    assert decisions == [(600, 0, 1), (720, 0, 1), (864_000, 2, 0)]
    assert starts(result) == {1: 0, 2: 864_000 + 555}
    assert counter.counts["EnergySaving/Tick"] < 30  # 14,400 minutes


def test_the_tick_sleeps_until_the_clock_could_change_a_decision():
    from modules.energy_saving.decisions import quiet_until

    policy = EnergySavingPolicy(idle_threshold_s=600,
                                thresholds=GroupThresholds(max_wait_s=3600))
    queue = (job(1, 100, 1), job(2, 300, 1))
    pool = IdlePool(3, ((0.0, 1), (500.0, 2)))
    # at 700: the batch idle since 500 passes the threshold at 1100; the
    # group's mean wait (submits average 200) passes an hour at 3800
    assert quiet_until(700.0, queue, pool, 1, policy) == 1100.0
    assert quiet_until(1200.0, queue, IdlePool(0, ()), 1, policy) == 3800.0
    assert quiet_until(1200.0, queue, IdlePool(0, ()), 0, policy) == float("inf")  # no standby
    assert quiet_until(5000.0, queue, IdlePool(0, ()), 1, policy) == float("inf")  # urgent already


def test_a_blocked_machine_wakes_no_tick():
    """A backlog on an always-busy machine: nothing in standby, the queue
    asking for every idle node.  Arrivals, starts and ends change no
    decision there, so neither *Wake* nor *Tick* fires for them (each
    fired at every one of them before), and the schedule is EASY's."""
    from cpn.monitors import FiringCounter

    counter = FiringCounter("EnergySaving/Wake", "EnergySaving/Tick", "EnergySaving/Drop")
    jobs = [job(i, 10 * i, 2, rt=1000.0) for i in range(1, 31)]
    config = EnergySavingConfig(2, policy=EnergySavingPolicy(idle_threshold_s=600))
    result = simulate(jobs, config, monitors=[counter])
    assert starts(result) == {i: 10 + 1000.0 * (i - 1) for i in range(1, 31)}
    assert result.decisions == []
    # the first tick (at 0: nothing queued, both nodes idle, a tick put
    # at 540 for the switch-off due at 600); the wake when job 1 starts at
    # 10, which drops that tick; then the machine stays blocked until the
    # last job ends and the tick wakes once more, to stop
    assert counter.counts == {"EnergySaving/Tick": 1, "EnergySaving/Wake": 2,
                              "EnergySaving/Drop": 1}


def test_idle_nodes_the_queue_claims_never_wake_the_tick():
    from modules.energy_saving.decisions import quiet_until

    policy = EnergySavingPolicy(idle_threshold_s=600)
    pool = IdlePool(3, ((0.0, 1), (500.0, 2)))
    # a 3-node job waits for a fourth: the idle three are never switched off
    assert quiet_until(700.0, (job(1, 100, 4),), pool, 0, policy) == float("inf")
    # in units of 2 nodes, a 2-node job leaves one idle node: not a unit
    assert quiet_until(700.0, (job(1, 100, 2),), pool, 0, policy, unit_nodes=2) == float("inf")
    assert quiet_until(700.0, (job(1, 100, 1),), pool, 0, policy, unit_nodes=2) == 1100.0


def test_a_sleeping_tick_says_it_has_no_clock_token():
    """After a tick that decided nothing and has nothing to wait for, no
    *Clock* token waits, and *Tick Clock* says so: *Tick* is ruled out
    without looking at *Clock* (its guard's first test)."""
    from modules.energy_saving.decisions import Decision
    from modules.energy_saving.tick_clock import TickClock, after_tick

    clock = TickClock(3, 0.0)
    asleep, tokens = after_tick(clock, Decision(60.0), 60.0, 60.0, ("seen",), float("inf"))
    assert tokens == [] and not asleep.armed
    waiting, tokens = after_tick(clock, Decision(60.0), 60.0, 60.0, ("seen",), 600.0)
    assert [token.value for token in tokens] == [3] and waiting.armed


@given(st.integers(0, 10**9), st.integers(1, 3600), st.floats(-5.0, 1000.0), st.booleans())
def test_the_grid_jump_lands_where_adding_a_period_at_a_time_does(start, period, periods,
                                                                  reach):
    """On a grid of whole seconds the jump gives the very float the loop
    it replaced gives (the ticks, and so the decisions, are unchanged)."""
    from modules.energy_saving.tick_clock import on_grid

    limit = start + periods * period
    at, reach = float(start), float(period) if reach else 0.0
    while at + reach < limit:
        at += period
    assert on_grid(float(start), float(period), limit, reach) == at


def test_nodes_idle_for_decades_cost_no_tick_each():
    # Sleeping after 10^12 s idle: the tick's next instant on the grid was
    # found a period at a time, 1.7 * 10^10 additions.
    policy = EnergySavingPolicy(idle_threshold_s=1e12)
    result = simulate([job(1, 0, 2, rt=100)], EnergySavingConfig(4, policy=policy))
    assert result.metrics["shutdowns"] == 0 and list(result.jobs["end"]) == [100.0]


def test_blocked_means_no_decision_whatever_the_clock():
    from modules.energy_saving.tick_clock import blocked

    pool = IdlePool(2, ((0.0, 2),))
    queue = (job(1, 0, 3),)  # asks for all 2 idle nodes (and one more)
    running = {7: (500.0, 2)}
    assert blocked(queue, pool, 0, running)
    assert not blocked(queue, pool, 1, running)  # a standby node could boot for it
    assert not blocked((job(1, 0, 1),), pool, 0, running)  # one idle node to spare
    assert blocked((job(1, 0, 1),), pool, 0, running, unit_nodes=2)  # but not a unit
    assert not blocked(queue, pool, 0, {})  # nothing runs: the tick may stop
    assert not blocked(queue, pool, 0, running, (job(2, 0, 1),))  # the tick waits for Selected


def test_the_ledger_monitor_follows_runtime_info_whatever_changed_at_once():
    """*Sync* usually sees one job start or end, the new job last in
    *Runtime Info*; the monitor also follows one started elsewhere in it,
    and several changes at once."""
    from types import SimpleNamespace

    from cpn.colours import FrozenDict
    from modules.energy_saving.ledger_monitor import LedgerMonitor
    from modules.node_ledger import NodeLedger

    monitor = LedgerMonitor(NodeLedger(8))
    monitor._finished = []
    sim = monitor.sim = SimpleNamespace(now=0.0)
    steps = [({1: (9.0, 2)}, 0.0), ({1: (9.0, 2), 2: (9.0, 3)}, 1.0),  # one, last
             ({3: (9.0, 1), 1: (9.0, 2), 2: (9.0, 3)}, 2.0),  # one, first
             ({2: (9.0, 3), 4: (9.0, 1), 5: (9.0, 2)}, 3.0),  # two ended, two started
             ({5: (9.0, 2)}, 4.0)]  # two ended
    for running, now in steps:
        monitor._running, sim.now = [FrozenDict(running)], now
        monitor._synced(0, ())
        ledger = monitor.ledger
        assert {job: len(nodes) for job, nodes in ledger.running.items()} == {
            job: size for job, (_, size) in running.items()}
        assert ledger.job_started_at == {job: started for job, started in
                                         {1: 0.0, 2: 1.0, 3: 2.0, 4: 3.0, 5: 3.0}.items()
                                         if job in running}
    assert ledger.job_node_s == {1: 2 * 3.0, 3: 1 * 1.0, 2: 3 * 3.0, 4: 1 * 1.0}
    assert len(ledger.idle) == 8 - 2
