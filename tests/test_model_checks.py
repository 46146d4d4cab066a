"""Properties of the PuPPET and TOPPER models, checked on every
interleaving of small configurations (``nets/checking.py``): the power cap
under WAIT, BLOCK and DVFS, EASY's reservation, FCFS order, every job
finishing under each policy (TOPPER with a failure during a checkpoint,
the job kept or requeued), and a broken backfill rule caught with a
counterexample that replays in the stepper."""

from __future__ import annotations

from dataclasses import replace

import pytest

from cpn.query import after, always, changes, reachable, stable, token, where
from cpn.statespace import state_space
from cpn.trace import replay
from modules.batch_scheduling import SchedulingConfig
from modules.cpu_scaling import CpuScaling
from modules.power_capping import PowerCap
from modules.properties import (all_finished, power_within, reservation, reservation_kept,
                                started_in_order)
from nets import checking
from nets.checking import CAP_WATTS, CAPPED_JOBS, EASY_JOBS, MACHINE


def explored(net):
    space = state_space(net, max_states=5_000, time_limit=20)
    assert space.complete, space.stopped
    return space


def check_liveness(space, jobs):
    """Every queued job runs, every run ends with all jobs finished, and the
    only dead markings are those."""
    for name, query in checking.liveness(jobs).items():
        assert query.check(space).holds is True, name
    assert always(where(lambda m: True, "true")).check(space).holds
    for dead in space.dead_markings:
        assert all_finished(len(jobs)).holds(space.marking(dead))


def last_firing(path):
    return [f for f in path.firings if f.transition is not None][-1]


# -- the power cap: WAIT and BLOCK -------------------------------------------------------
@pytest.mark.parametrize("cap", [PowerCap.block(CAP_WATTS), PowerCap.wait(CAP_WATTS, l=2)],
                         ids=["BLOCK", "WAIT"])
def test_the_cap_holds_when_jobs_over_it_alone_are_rejected(cap):
    config = replace(MACHINE, cap=cap, over_cap="reject")
    space = explored(checking.puppet_net(CAPPED_JOBS, config))
    assert always(power_within(CAP_WATTS)).check(space).holds is True
    waited = reachable(where(lambda m: m["Allocation/WaitQueue"][0] != (), "a job waits"))
    assert waited.check(space).holds is (cap.wait_queue_length > 0)
    check_liveness(space, CAPPED_JOBS[:3])  # job 4 was rejected


@pytest.mark.parametrize("cap", [PowerCap.block(CAP_WATTS), PowerCap.wait(CAP_WATTS, l=2)],
                         ids=["BLOCK", "WAIT"])
def test_running_jobs_over_the_cap_alone_breaks_it(cap):
    config = replace(MACHINE, cap=cap, over_cap="run_alone")
    space = explored(checking.puppet_net(CAPPED_JOBS, config))
    verdict = always(power_within(CAP_WATTS)).check(space)
    assert verdict.holds is False
    path = verdict.counterexample
    started = last_firing(path)
    assert started.transition == "Allocation/Allocate"
    assert dict(started.values)["sel"][0].id == 4 and started.time == 150.0
    assert path.end["Power"] == [400.0] and path.end["RuntimeInfo"][0].keys() == {4}
    check_liveness(space, CAPPED_JOBS)


# -- DVFS -----------------------------------------------------------------------------
def test_dvfs_holds_the_cap_at_every_frequency_change():
    space = explored(checking.puppet_net(CAPPED_JOBS, replace(MACHINE,
                                                              cap=CpuScaling(CAP_WATTS))))
    cap = power_within(CAP_WATTS)
    assert always(changes(token("dvfs_level")).implies(after(cap))).check(space).holds
    assert always(stable.implies(cap)).check(space).holds is True
    levels = {space.marking(n)["dvfs_level"][0] for n in space.graph}
    assert levels == {1.0, 0.8}  # 0.8 holds jobs 1 and 3 together under the cap
    # Within an instant, a job starts at full speed and Rescale, of low
    # priority, lowers the level once the instant's events are in: the
    # Power place reads over the cap for no time at all.
    transient = always(cap).check(space)
    assert transient.holds is False
    assert last_firing(transient.path).transition == "Allocation/Allocate"
    assert transient.path.end["dvfs_level"] == [1.0]
    check_liveness(space, CAPPED_JOBS)


# -- EASY and FCFS ------------------------------------------------------------------------
def test_easy_never_delays_the_head_jobs_reservation():
    space = explored(checking.build_net())
    assert always(reservation_kept()).check(space).holds is True
    # job 4 backfilled beside job 1, job 3 did not: job 2 starts at 100
    [dead] = space.dead_markings
    starts = {job.id: job.et for job, _ in space.marking(dead)["Finished"]}
    assert starts == {1: 0.0, 2: 100.0, 3: 200.0, 4: 2.0}
    assert always(started_in_order(EASY_JOBS)).check(space).holds is False
    check_liveness(space, EASY_JOBS)


def test_fcfs_without_backfill_starts_jobs_in_order():
    config = replace(MACHINE, scheduling=SchedulingConfig(backfill=False))
    space = explored(checking.puppet_net(EASY_JOBS, config))
    assert always(started_in_order(EASY_JOBS)).check(space).holds is True
    assert always(reservation_kept()).check(space).holds is True
    check_liveness(space, EASY_JOBS)


def test_a_backfill_that_ignores_the_shadow_time_is_caught(tmp_path):
    net = checking.broken_easy_net()
    verdict = always(reservation_kept()).check(explored(net))
    assert verdict.holds is False
    path = verdict.counterexample
    culprit = last_firing(path)
    assert culprit.transition == "Scheduler/Schedule" and culprit.time == 2.0
    assert reservation(path.markings[-2]) == (2, 100.0)
    assert reservation(path.end) == (2, 1002.0)  # job 3 took a node until 1002
    trace = tmp_path / "broken.jsonl"
    path.save(trace, net="broken EASY")
    replayed = replay(checking.broken_easy_net(), trace)
    assert replayed.marking.freeze(with_time=True) == path.end.freeze(with_time=True)
    assert "Scheduler/Schedule<queue=(Job(id=2" in path.timeline(width=200)


# -- TOPPER: a failure during a checkpoint ---------------------------------------------
@pytest.mark.parametrize("on_failure", ["keep", "requeue"])
def test_topper_finishes_every_job_after_a_failure_during_a_checkpoint(on_failure):
    net, scheduled = checking.topper_net(on_failure=on_failure)
    space = explored(net)
    check_liveness(space, scheduled)
    [dead] = space.dead_markings
    [failure] = space.marking(dead)["FaultTolerance/Failures"]
    # job 1 (2 units) was writing its first checkpoint, after 41.45 s of
    # work: that work is lost (41.45 s on 2 nodes)
    assert (failure.time, failure.job_id) == (44.0, 1)
    assert failure.lost_node_seconds == pytest.approx(82.9, abs=0.01)
    ends = {job.id: end for job, end in space.marking(dead)["Finished"]}
    assert ends[1] == pytest.approx(166.06, abs=0.01)


def test_the_documented_own_property_fails_where_easy_protects_the_reservation():
    """docs/verification.md: no queued job waits while it fits the free
    nodes, in the states that last; EASY breaks it at 52 on purpose."""
    def no_idle_room(marking):
        queue, free = marking["Queuing"][0], marking["Nodes"][0]
        return not any(job.js <= free for job in queue)

    query = always(stable.implies(where(no_idle_room, "no queued job fits")))
    verdict = query.check(explored(checking.build_net()))
    assert str(verdict) == ("always stable implies (no queued job fits): FAILS: state 19, "
                            "after 12 firings, at time 52")
    assert [job.id for job in verdict.path.end["Queuing"][0]] == [2, 3]
