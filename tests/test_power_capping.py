"""Power capping on the PuPPET net: BLOCK, WAIT and DVFS, by hand and on
real traces."""

import math
import re
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from modules.cpu_scaling import CpuScaling, even_levels
from modules.job import Job
from modules.power_capping import PowerCap
from nets.puppet import PuppetConfig, simulate

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "swf"


def run(jobs, cap, nodes=4, node_watts=100.0, idle_fraction=0.0, **options):
    return simulate(jobs, PuppetConfig(nodes, node_watts=node_watts,
                                       idle_fraction=idle_fraction, cap=cap, **options))


def starts(result):
    return dict(zip(result.jobs["job_id"], result.jobs["start"]))


def ends(result):
    return dict(zip(result.jobs["job_id"], result.jobs["end"]))


# Job 1 draws 250 W until 100; job 2 (100 W) would break the 300 W cap;
# job 3 (40 W) would not.
CAPPED = [Job(1, 0, 100, 1, 100, jp=250.0), Job(2, 1, 50, 1, 50, jp=100.0),
          Job(3, 2, 10, 1, 10, jp=40.0)]


def test_block_holds_the_head_and_everything_behind_it():
    assert starts(run(CAPPED, PowerCap.block(300.0))) == {1: 0, 2: 100, 3: 100}


def test_wait_parks_the_head_and_lets_a_smaller_job_pass():
    assert starts(run(CAPPED, PowerCap.wait(300.0))) == {1: 0, 2: 100, 3: 2}


def test_a_job_that_waited_longer_than_w_blocks_its_successors():
    jobs = CAPPED + [Job(4, 60, 10, 1, 10, jp=10.0)]
    assert starts(run(jobs, PowerCap.wait(300.0)))[4] == 60  # w = 500 min
    blocked = run(jobs, PowerCap.wait(300.0, w_minutes=50 / 60))  # job 2 waits 59 s > 50
    assert starts(blocked) == {1: 0, 2: 100, 3: 2, 4: 100}


def test_a_full_wait_queue_holds_the_next_job():
    jobs = CAPPED + [Job(5, 3, 10, 1, 10, jp=100.0)]
    # l = 1: job 2 waits, job 5 finds the wait queue full and is held until
    # power frees at 100, where the waiting job 2 goes first.
    result = run(jobs, PowerCap.wait(300.0, l=1))
    assert starts(result) == {1: 0, 2: 100, 3: 2, 5: 100}
    assert starts(run(jobs, PowerCap.wait(300.0, l=2)))[5] == 100  # waits in the queue
    assert run(jobs, PowerCap.wait(300.0)).metrics["power_peak_w"] <= 300


# Job 2 (500 W, 300 W even at the lowest DVFS level) breaks a 250 W cap alone.
OVER_CAP_ALONE = [Job(1, 0, 10, 1, 10, jp=50.0), Job(2, 1, 10, 4, 10, jp=500.0),
                  Job(3, 2, 10, 1, 10, jp=50.0)]
CAPS = {"block": PowerCap.block(250.0), "wait": PowerCap.wait(250.0),
        "dvfs": CpuScaling(250.0)}


@pytest.mark.parametrize("method", CAPS)
def test_by_default_a_job_alone_over_the_cap_is_rejected_and_the_cap_holds(method):
    result = run(OVER_CAP_ALONE, CAPS[method])
    assert starts(result) == {1: 0, 3: 2}
    assert max(result.power_watts) <= 250.0
    assert result.rejected.to_dict("records") == [
        {"job_id": 2, "submit": 1.0, "nodes": 4, "power": 500.0,
         "reason": "power alone above the cap"}]
    assert result.metrics["rejected_jobs"] == 1 and result.metrics["complete"]


@pytest.mark.parametrize("method, expected", [
    ("block", {1: 0, 2: 10, 3: 20}), ("wait", {1: 0, 2: 10, 3: 20}),
    ("dvfs", {1: 0, 2: 10, 3: 10 + 10 / 0.5 ** 0.5})])
def test_run_alone_starts_a_job_over_the_cap_when_nothing_else_runs(method, expected):
    """The former rule: the machine drains for job 2, which holds job 3
    behind it, and the cap breaks while it runs (DVFS runs it at the lowest
    level, 256 W)."""
    result = run(OVER_CAP_ALONE, CAPS[method], over_cap="run_alone")
    assert starts(result) == pytest.approx(expected)
    assert max(result.power_watts) > 250.0
    assert len(result.rejected) == 0 and result.metrics["rejected_jobs"] == 0


def test_an_unknown_over_cap_rule_is_refused():
    with pytest.raises(ValueError, match="over_cap must be one of .'reject', 'run_alone'.,"
                                         " not 'alone'"):
        PuppetConfig(4, over_cap="alone")


def test_dvfs_lowers_the_level_just_enough_and_moves_ends_by_the_formula():
    jobs = [Job(1, 0, 100, 2, 100, jp=200.0), Job(2, 10, 100, 2, 100, jp=200.0)]
    result = run(jobs, CpuScaling(300.0))
    # Both jobs: 400 W x (0.35 + 0.65 f^2) <= 300 first holds at f = 0.7.
    slow = 0.7 ** 0.5
    end_1 = 10 + 90 / slow  # job 1 did 10 s at full speed
    # Job 2 did (end_1 - 10) * slow of work by then, and finishes at full speed.
    end_2 = end_1 + (100 - (end_1 - 10) * slow)
    assert ends(result) == pytest.approx({1: end_1, 2: end_2})
    scale = 0.35 + 0.65 * 0.49
    energy = 200 * 10 + 400 * scale * (end_1 - 10) + 200 * (end_2 - end_1)
    assert result.metrics["energy_j"] == pytest.approx(energy)
    assert result.metrics["power_peak_w"] == pytest.approx(400 * scale)


def test_dvfs_latency_and_admission():
    jobs = [Job(1, 0, 100, 2, 100, jp=200.0), Job(2, 10, 100, 2, 100, jp=200.0)]
    late = run(jobs, CpuScaling(300.0, latency=2.0))
    assert ends(late)[1] == pytest.approx(10 + 2 + 90 / 0.7 ** 0.5)
    # At 0.5 the two jobs still draw 400 x 0.5125 = 205 W: a 200 W cap holds job 2.
    assert starts(run(jobs, CpuScaling(200.0))) == {1: 0, 2: 100}


def test_a_second_level_change_within_the_latency_adds_no_work():
    # At 50 the level falls to 0.9: job 1, 50 s of work left, resumes at 55.
    # At 52 it falls to 0.7 before job 1 resumed: still 50 s left, resumed at
    # 57.  The paused seconds counted as negative work done (120.16).
    jobs = [Job(1, 0, 100, 2, 100, jp=200.0), Job(2, 50, 1000, 1, 1000, jp=100.0),
            Job(3, 52, 1000, 1, 1000, jp=100.0)]
    result = run(jobs, CpuScaling(300.0, latency=5.0), idle_fraction=0.3)
    assert ends(result)[1] == pytest.approx(57 + 50 / 0.7 ** 0.5)


def test_idle_nodes_count_against_the_cap_under_dvfs():
    """The paper's *Power* is the whole system's: two idle nodes at 25 W
    beside job 1 (200 W at full speed) leave it 150 W of a 200 W cap, so
    0.35 + 0.65 f^2 <= 0.75 first holds at f = 0.7 (not at 1.0, as the
    jobs' power alone would allow)."""
    result = run([Job(1, 0, 100, 2, 100, jp=200.0)], CpuScaling(200.0), idle_fraction=0.25)
    assert ends(result) == pytest.approx({1: 100 / 0.7 ** 0.5})
    assert max(result.power_watts) == pytest.approx(50 + 200 * (0.35 + 0.65 * 0.49))


def test_dvfs_admitting_on_nodes_starts_every_job_and_lets_the_cap_break():
    """The paper's net: job 2 starts at 10 beside job 1 and both run at the
    lowest level, 0.5, drawing 400 x 0.5125 = 205 W > 200 W until job 1
    ends at 10 + 90 / 0.5^0.5; then job 2 alone runs at full speed."""
    jobs = [Job(1, 0, 100, 2, 100, jp=200.0), Job(2, 10, 100, 2, 100, jp=200.0)]
    result = run(jobs, CpuScaling(200.0, admission="nodes"))
    slow = 0.5 ** 0.5
    end_1 = 10 + 90 / slow
    assert starts(result) == {1: 0, 2: 10}
    assert ends(result) == pytest.approx({1: end_1, 2: end_1 + 100 - (end_1 - 10) * slow})
    assert max(result.power_watts) == pytest.approx(205.0)
    with pytest.raises(ValueError, match="admission must be one of .'lowest', 'nodes'., "
                                         "not 'any'"):
        CpuScaling(200.0, admission="any")


def test_levels_and_bad_parameters():
    assert even_levels(6) == (1.0, 0.9, 0.8, 0.7, 0.6, 0.5)
    with pytest.raises(ValueError, match="power cap must be positive"):
        PowerCap(-5)
    with pytest.raises(ValueError, match="wait queue length"):
        PowerCap(100, wait_queue_length=-1)
    with pytest.raises(ValueError, match="frequency levels"):
        CpuScaling(100, levels=(1.0, 1.5))
    # The command line's bounds hold for the Python API too: beyond them a
    # run divided by zero (0.5 ** 1e5) or never ended.
    with pytest.raises(ValueError, match=r"each within \[0.1, 1\]"):
        CpuScaling(100, levels=(1.0, 0.05))
    with pytest.raises(ValueError, match="1 to 100"):
        CpuScaling(100, levels=even_levels(101))
    with pytest.raises(ValueError, match=r"beta must be within \[0, 2\], not 100000.0"):
        CpuScaling(100, beta=1e5)
    with pytest.raises(ValueError, match=r"latency must be within \[0, 3600\] s, not 1e\+30"):
        CpuScaling(100, latency=1e30)


def real_jobs(count):
    path = DATA / "LLNL-Atlas-2006-2.1-cln.swf"
    if not path.exists():
        pytest.skip("no ../shared data")
    from modules.power_profile import assign_rack_power
    from modules.swf import read_swf
    workload = read_swf(path, procs_per_node=8)
    jobs = assign_rack_power(workload.jobs[:count], seed=1)
    return jobs, workload.machine_nodes


def energy_from_records(result, nodes, node_watts, idle_fraction):
    """Energy recomputed from the per-job records alone."""
    frame = result.jobs
    span = result.end - result.power_times[0]
    busy_node_seconds = float((frame["nodes"] * (frame["end"] - frame["start"])).sum())
    job_energy = float((frame["power"] * (frame["end"] - frame["start"])).sum())
    return job_energy + node_watts * idle_fraction * (nodes * span - busy_node_seconds)


@pytest.mark.parametrize("cap_kind", ["block", "wait", "dvfs"])
def test_real_trace_stays_under_the_cap_and_loses_no_job(cap_kind):
    jobs, nodes = real_jobs(3000)
    node_watts = 65_760 / 1024
    uncapped = simulate(jobs, PuppetConfig(nodes, node_watts=node_watts))
    cap_watts = 0.7 * uncapped.metrics["power_peak_w"]
    cap = {"block": PowerCap.block(cap_watts), "wait": PowerCap.wait(cap_watts),
           "dvfs": CpuScaling(cap_watts)}[cap_kind]
    result = simulate(jobs, PuppetConfig(nodes, node_watts=node_watts, cap=cap))
    kept = sorted([*result.jobs["job_id"], *result.rejected["job_id"]])
    assert kept == sorted(job.id for job in jobs)
    assert np.array(result.power_watts).max() <= cap_watts * (1 + 1e-12)
    jobs = [job for job in jobs if job.id not in set(result.rejected["job_id"])]
    if cap_kind != "dvfs":  # a job's power is constant: records give the energy
        expected = energy_from_records(result, nodes, node_watts, 0.3)
        assert result.metrics["energy_j"] == pytest.approx(expected, rel=1e-9)
        assert np.allclose(result.jobs["end"] - result.jobs["start"],
                           [j.rt for j in sorted(jobs, key=lambda j: j.id)])
    else:  # slowed jobs take longer, never shorter
        runtime = dict(zip(result.jobs["job_id"], result.jobs["end"] - result.jobs["start"]))
        assert all(runtime[j.id] >= j.rt - 1e-6 for j in jobs)
        assert all(runtime[j.id] <= j.rt / 0.5 ** 0.5 + 1e-6 for j in jobs)
    assert math.isfinite(result.metrics["energy_j"])


def test_choosing_a_dvfs_level_sums_the_running_jobs_power_once():
    """A level is chosen at every search of Rescale: its running jobs'
    power is summed once, not once per level tried."""
    from modules.cpu_scaling import ScalingRules
    from modules.power import PowerModel

    reads = []

    class Counted:
        def __init__(self, watts):
            self.watts = watts

        @property
        def jp(self):
            reads.append(self)
            return self.watts

    rules = ScalingRules(PowerModel(100.0, 0.5), CpuScaling(150.0))
    progress = {i: (Counted(100.0), 50.0, 0.0) for i in range(3)}
    running = {i: (50.0, 1) for i in range(3)}
    # 350 W at full speed, 203.75 W at the lowest level: none gets under 150 W
    assert rules.level(progress, running, 350.0, 1.0) == 0.5
    assert len(reads) == 3
    assert rules.watts_at([progress[0]], 350.0, 1.0, 0.5) == 350.0 + 100.0 * (
        rules.power.scale(0.5) - 1.0)


def test_block_leaves_out_the_transitions_of_waiting():
    """BLOCK is WAIT with room for no job: its wait queue stays empty, so
    *Wait* and *Allocate W* could never fire and are left out, and no guard
    reads the clock (a tick of it searches nothing of allocation again)."""
    from nets.puppet import build_net

    def allocation(cap):
        flat = build_net(PuppetConfig(4, cap=cap)).flatten()
        return {t.path.removeprefix("Allocation/"): t for t in flat.transitions
                if t.path.startswith("Allocation/")}

    assert set(allocation(PowerCap.block(300.0))) == {"Allocate", "Hold"}
    assert set(allocation(PowerCap.wait(300.0, l=1))) == {"Allocate", "Hold", "Wait",
                                                         "AllocateW"}
    assert not any("now" in t.guard for t in allocation(PowerCap.block(300.0)).values())
    assert starts(run(CAPPED, PowerCap(300.0, wait_queue_length=0))) == {1: 0, 2: 100, 3: 100}


def job_counting_power_reads():
    """A job type whose power (100 W) logs each read by the job's id, and
    the log: how a test sees that a guard's question was answered once."""
    reads = []

    class Counted(Job):
        @property
        def jp(self):
            reads.append(self.id)
            return 100.0

    return Counted, reads


def test_allocate_and_hold_asking_whether_the_head_fits_work_once():
    """Under BLOCK and WAIT the guards of *Allocate* and *Hold* both ask
    whether the head job fits the power left: the second question of the
    same tokens reuses the answer; other watts or another job do not."""
    from modules.power import PowerModel
    from modules.power_capping import AllocationRules

    Counted, reads = job_counting_power_reads()
    rules = AllocationRules(PowerModel(100.0, 0.0), PowerCap.block(250.0))
    head, running = Counted(9, 0.0, 10, 1, 10), {1: (10.0, 1)}
    some, more = 100.0, 200.0
    assert rules.fits(head, some, running) and rules.fits(head, some, running)
    assert reads == [9]  # once, not once per guard
    assert not rules.fits(head, more, running)  # 300 W over 250 W: asked again
    assert rules.fits(head, more, {})  # nothing else runs: it may start
    assert reads == [9, 9, 9]


def test_held_jobs_go_back_by_arrival_then_id():
    from modules.power_capping import requeue

    queue = (Job(3, 5.0, 1, 1, 1), Job(1, 5.0, 1, 1, 1), Job(2, 1.0, 1, 1, 1))
    assert [job.id for job in requeue(queue, [Job(0, 5.0, 1, 1, 1)])] == [2, 0, 1, 3]
    # ids against arrival: the arrival decides, the id only between equal arrivals
    queue = (Job(1, 9.0, 1, 1, 1), Job(7, 2.0, 1, 1, 1), Job(4, 2.0, 1, 1, 1))
    assert [job.id for job in requeue(queue, (Job(5, 0.5, 1, 1, 1),))] == [5, 4, 7, 1]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.sampled_from([0.0, 1.0, 2.0]), st.sampled_from([1, 2, 4])),
                min_size=1, max_size=12),
       st.integers(0, 6), st.integers(0, 6), st.booleans(), st.sampled_from(["fcfs", "wfp"]))
def test_jobs_held_after_a_pass_go_back_as_a_sort_would_put_them(jobs, free, keep, shuffle,
                                                                 policy):
    """What a pass started and the cap held goes back where sorting by
    (arrival, id) puts it, whether or not the queue the pass saw was in
    that order (only then is the sort skipped), whichever order the pass
    took its jobs in."""
    from modules.easy import easy_pass_on_nodes
    from modules.power_capping import requeue

    queue = [Job(i, arrival, 10, size, 10) for i, (arrival, size) in enumerate(jobs)]
    queue = tuple(reversed(queue) if shuffle else sorted(queue, key=lambda j: (j.st, j.id)))
    running = {100: (50.0, 6 - free)} if free < 6 else {}  # a machine of 6 nodes
    started, waiting = easy_pass_on_nodes(queue, running, free, 5.0, policy=policy)
    held = tuple(started[min(keep, len(started)):])
    assert requeue(waiting, held) == tuple(sorted(waiting + held, key=lambda j: (j.st, j.id)))


def test_a_pass_whose_jobs_are_all_held_leaves_the_queue_it_saw():
    """Under a cap most passes pick jobs the cap then holds: putting them all
    back gives the very queue the pass saw, so the next pass need not count
    its sizes again."""
    from modules.easy import easy_pass_on_nodes
    from modules.power_capping import requeue

    queue = tuple(Job(i, float(i), 10, 1 + i % 3, 10) for i in range(8))
    started, waiting = easy_pass_on_nodes(queue, {}, 4, 20.0, policy="wfp")
    assert started and requeue(waiting, tuple(started)) is queue


def test_dvfs_progress_forgets_ended_jobs_without_a_change_of_level():
    """Under a cap that never binds the level never changes; *Progress*
    still drops the jobs that ended when the next one starts, or every
    level search would read all the jobs of the run."""
    from nets.puppet import build_net, run_model

    jobs = [Job(i, 10.0 * i, 5, 1, 5, jp=100.0) for i in range(50)]
    config = PuppetConfig(4, node_watts=100.0, idle_fraction=0.0, cap=CpuScaling(1000.0))
    result, sim = run_model(build_net(config), jobs, config)
    assert starts(result) == {i: 10.0 * i for i in range(50)}
    assert list(sim.tokens("Allocation/Progress")[0]) == [49]


def test_a_jobs_power_at_a_frequency_without_making_the_job():
    from modules.power import PowerModel

    power = PowerModel(100.0, 0.3)
    for job in (Job(1, 0, 10, 3, 10, jp=250.0), Job(2, 0, 10, 1, 10, jp=40.0, pf=0.7)):
        for frequency in (1.0, 0.9, 0.5):
            assert power.busy_delta_at(job, frequency) == power.busy_delta(
                job._replace(pf=frequency))
    assert power.busy_delta_at(Job(3, 0, 10, 2, 10, jp=200.0), 0.5) == \
        200.0 * (0.35 + 0.65 * 0.25) - 2 * 30.0


def test_dvfs_guards_asking_twice_of_the_same_tokens_work_once():
    """*Allocate*'s and *Hold*'s guards both ask whether the head may start,
    *Rescale*'s guard and code both ask the level: the second question of
    the same tokens reuses the answer; other watts or another job do not."""
    from modules.cpu_scaling import ScalingRules
    from modules.power import PowerModel

    Counted, reads = job_counting_power_reads()
    rules = ScalingRules(PowerModel(100.0, 0.0), CpuScaling(250.0))
    head = Counted(9, 0.0, 10, 1, 10)
    progress = {1: (Job(1, 0.0, 10, 1, 10, jp=100.0), 10.0, 0.0)}
    running = {1: (10.0, 1)}
    # 100 W running + 100 W at the lowest level (0.5: 0.35 + 0.65 * 0.25 of it)
    assert rules.admits(head, progress, running, 100.0, 1.0)
    assert rules.admits(head, progress, running, 100.0, 1.0)
    assert reads == [9]  # once, not once per guard
    assert not rules.admits(head, progress, running, 300.0, 1.0)  # other watts: asked again
    assert reads == [9, 9]
    # the level: 100 W fits at full speed, 300 W needs the lowest level
    assert rules.level(progress, running, 100.0, 1.0) == 1.0
    assert rules.level(progress, running, 300.0, 1.0) == 0.5
    assert rules.level(progress, running, 100.0, 1.0) == 1.0


def test_a_change_of_level_reissues_each_job_as_replace_would():
    from modules.cpu_scaling import ScalingRules
    from modules.power import PowerModel

    rules = ScalingRules(PowerModel(100.0, 0.0), CpuScaling(250.0, beta=0.5, latency=2.0))
    job = Job(1, 0.0, 100, 2, 150, jp=200.0, user=3, group=4, executable=5, version=2)
    progress = {1: (job, 100.0, 0.0)}
    _, moved_progress, moved_running, tokens = rules.rescale(
        progress, {1: (150.0, 2)}, 200.0, 1.0, 0.64, 36.0, "requested")
    moved = job._replace(pf=0.64, version=3)
    assert moved_progress[1] == (moved, 64.0, 38.0) and type(moved_progress[1][0]) is Job
    assert tokens[0].value == moved and tokens[0].delay == 2.0 + 64.0 / 0.8
    assert moved_running[1] == (38.0 + (150.0 - 36.0) / 0.8, 2)  # the walltime left, slowed


@pytest.mark.parametrize("settings, message", [
    (dict(cap_watts="5000"), "cap_watts must be a number, not '5000'"),
    (dict(cap_watts=True), "cap_watts must be a number, not True"),  # was a cap of 1 W
    (dict(beta=None), "beta must be a number, not None"),
    (dict(latency="0"), "latency must be a number, not '0'"),
    (dict(levels=0.5), "frequency levels must be numbers, e.g. (1.0, 0.5), not 0.5"),
    (dict(levels=("1", "0.5")), "frequency levels must be numbers"),
])
def test_dvfs_settings_of_no_number_are_refused_naming_them(settings, message):
    """Each was a TypeError of a comparison naming no setting."""
    with pytest.raises(ValueError, match=re.escape(message)):
        CpuScaling(**{"cap_watts": 5000, **settings})
    assert CpuScaling(5000, levels=(f for f in (0.5, 1.0))).levels == (1.0, 0.5)


@pytest.mark.parametrize("minutes", ["5", None])
def test_a_wait_of_no_number_of_minutes_is_refused_naming_w(minutes):
    # a TypeError of its * 60 naming no setting
    with pytest.raises(ValueError, match=re.escape(
            f"the maximum wait w must be a number of minutes, not {minutes!r}")):
        PowerCap.wait(5000, w_minutes=minutes)
