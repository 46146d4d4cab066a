"""A scheduling policy of one's own, plugged into PuPPET: its answer is
checked where it enters the net, so a mistake in it is an error naming it,
not a machine over-allocated or a run that never ends."""

from __future__ import annotations

import pytest

from cpn.errors import BindingError
from modules.batch_scheduling import SchedulingConfig, batch_scheduling, checked_answer
from modules.job import Job
from nets.puppet import PuppetConfig, build_net, run_model

JOBS = [Job(1, 0, 100, 2, 200), Job(2, 0, 50, 3, 100), Job(3, 10, 50, 1, 100)]
CONFIG = PuppetConfig(machine_nodes=4, node_watts=100.0,
                      scheduling=SchedulingConfig(trigger="timestamp"))


def with_policy(schedule):
    net = build_net(CONFIG)
    net.replace_module("Scheduler", batch_scheduling(CONFIG.scheduling, schedule=schedule))
    return net


def everything_now(queue, running, free, now):
    """Ignores ``free``: 2 + 3 nodes on a 4-node machine."""
    return list(queue), ()


def started_and_kept(queue, running, free, now):
    """Starts the head but leaves it queued too: it started again and again."""
    return queue[:1], queue


def test_a_policy_that_ignores_free_nodes_is_refused_naming_what_it_did():
    with pytest.raises(BindingError, match=r"the policy started jobs of 5 nodes together "
                                           r"\(1, 2\) with 4 free"):
        run_model(with_policy(everything_now), JOBS, CONFIG)


def test_a_policy_that_keeps_a_started_job_queued_is_refused():
    with pytest.raises(BindingError, match=r"each queued job once, started or waiting: "
                                           r"jobs \[1\] came back more often than queued"):
        run_model(with_policy(started_and_kept), JOBS, CONFIG)


def largest_first(queue, running, free, now):
    """Largest job first, while jobs fit."""
    started = []
    for job in sorted(queue, key=lambda job: -job.js):
        if job.js <= free:
            started.append(job)
            free -= job.js
    return started, [job for job in queue if job not in started]  # a list is taken too


def test_a_sound_policy_runs_as_it_says():
    result, _ = run_model(with_policy(largest_first), JOBS, CONFIG)
    assert dict(zip(result.jobs["job_id"], result.jobs["start"])) == {1: 50.0, 2: 0.0, 3: 10.0}


def test_the_answer_names_lost_jobs():
    queue = tuple(JOBS)
    with pytest.raises(ValueError, match=r"jobs \[3\] were lost"):
        checked_answer((queue[:1], queue[1:2]), queue, 4)
    assert checked_answer(([queue[0]], queue[1:]), queue, 2) == (queue[:1], queue[1:])


def shortest_first(queue, now):
    """Positions of ``queue`` by requested walltime, then arrival."""
    return sorted(range(len(queue)), key=lambda at: (queue[at].wt, at))


def test_easy_backfills_behind_an_order_of_ones_own():
    """Hand-checked on 4 nodes: job 1 (3 nodes) runs 0-100; jobs 2 (2 nodes,
    500 s), 3 (2 nodes, 50 s) and 4 (1 node, 200 s) arrive at 1 with one
    node free.  Shortest first puts job 3 at the head: blocked, reserved at
    100 with 2 nodes left over, so job 4 backfills at 1; job 3 starts at 100
    and job 2 when it ends, at 150.  FCFS heads with job 2 instead: it
    starts at 100, and job 3 waits for job 4's end at 201."""
    from functools import partial

    from modules.easy import easy_pass_on_nodes

    jobs = [Job(1, 0, 100, 3, 100), Job(2, 1, 500, 2, 500), Job(3, 1, 50, 2, 50),
            Job(4, 1, 200, 1, 200)]
    sjf = with_policy(partial(easy_pass_on_nodes, order=shortest_first))
    result, _ = run_model(sjf, jobs, CONFIG)
    assert dict(zip(result.jobs["job_id"], result.jobs["start"])) == {
        1: 0.0, 2: 150.0, 3: 100.0, 4: 1.0}
    fcfs, _ = run_model(build_net(CONFIG), jobs, CONFIG)
    assert dict(zip(fcfs.jobs["job_id"], fcfs.jobs["start"])) == {
        1: 0.0, 2: 100.0, 3: 201.0, 4: 1.0}
