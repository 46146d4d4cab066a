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


def test_a_sound_policy_runs_as_it_says():
    def largest_first(queue, running, free, now):
        started = []
        for job in sorted(queue, key=lambda job: -job.js):
            if job.js <= free:
                started.append(job)
                free -= job.js
        return started, [job for job in queue if job not in started]  # a list is taken too

    result, _ = run_model(with_policy(largest_first), JOBS, CONFIG)
    assert dict(zip(result.jobs["job_id"], result.jobs["start"])) == {1: 50.0, 2: 0.0, 3: 10.0}


def test_the_answer_names_lost_jobs():
    queue = tuple(JOBS)
    with pytest.raises(ValueError, match=r"jobs \[3\] were lost"):
        checked_answer((queue[:1], queue[1:2]), queue, 4)
    assert checked_answer(([queue[0]], queue[1:]), queue, 2) == (queue[:1], queue[1:])
