"""The EASY pass does no work when nothing can start (nor scans a queue it
has seen for its smallest job), and orders WFP queues exactly as sorting
by each job's score would."""

from __future__ import annotations

import random

import pytest

import modules.easy as easy
from modules.easy import easy_pass_on_nodes, order_queue, wfp_score
from modules.job import Job


def test_a_pass_where_no_job_fits_neither_orders_the_queue_nor_plans_a_shadow(monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError("the pass ordered a queue in which nothing fits")

    monkeypatch.setattr(easy, "order_queue", refuse)
    monkeypatch.setattr(easy, "shadow", refuse)
    queue = (Job(1, 0, 100, 3, 200), Job(2, 5, 100, 4, 200))
    started, waiting = easy_pass_on_nodes(queue, {7: (50.0, 8)}, 2, 10.0, policy="wfp")
    assert started == [] and waiting is queue


def test_wfp_order_is_the_stable_sort_by_descending_score_ties_in_arrival_order():
    rng = random.Random(3)
    queue = tuple(Job(i, rng.choice([0, 10, 20]), 50, rng.choice([1, 2, 4]),
                      rng.choice([100, 200])) for i in range(200))
    for estimate in ("requested", "actual", "mixed"):
        expected = sorted(queue, key=lambda job: -wfp_score(job, 1000.5, estimate))
        assert order_queue(queue, "wfp", 1000.5, estimate) == expected
    assert wfp_score(queue[0], 1000.5, "mixed") == queue[0].js * (int(1000.5 - queue[0].st)
                                                                  / queue[0].wt) ** 3


def test_backfilling_stops_once_no_queued_job_fits_and_keeps_the_same_starts():
    # head (8 nodes) blocked until 100; two 1-node jobs fill the two free nodes
    queue = (Job(1, 0, 500, 8, 500), Job(2, 0, 10, 1, 10), Job(3, 0, 10, 1, 10),
             Job(4, 0, 10, 1, 10))
    started, waiting = easy_pass_on_nodes(queue, {9: (100.0, 6)}, 2, 0.0)
    assert [job.id for job in started] == [2, 3]
    assert [job.id for job in waiting] == [1, 4]


def test_a_wfp_pass_starts_in_score_order_and_leaves_the_rest_in_arrival_order():
    # scores at 100: job 1 0.004, job 2 2, job 3 0.375, job 4 64; job 3 then
    # waits for 3 nodes (shadow at 200) and job 1 (4 nodes) cannot backfill
    queue = (Job(1, 0, 10, 4, 1000), Job(2, 0, 10, 2, 100), Job(3, 50, 10, 3, 100),
             Job(4, 60, 10, 1, 10))
    started, waiting = easy_pass_on_nodes(queue, {9: (200.0, 4)}, 4, 100.0, policy="wfp")
    assert [job.id for job in started] == [4, 2]
    assert waiting == (queue[0], queue[2])


def test_a_pass_after_a_job_end_or_a_submission_does_not_scan_the_queue_for_its_smallest_job(
        monkeypatch):
    sizes_read = []
    monkeypatch.setattr(easy, "_size", lambda job: sizes_read.append(job.id) or job.js)
    queue = tuple(Job(i, 0, 100, 4, 100) for i in range(1, 6))
    running = {9: (50.0, 8)}
    assert easy_pass_on_nodes(queue, running, 2, 10.0) == ([], queue)  # scanned once
    sizes_read.clear()
    assert easy_pass_on_nodes(queue, running, 3, 20.0) == ([], queue)  # a job ended
    grown = queue + (Job(6, 20, 10, 2, 10),)
    started, waiting = easy_pass_on_nodes(grown, running, 3, 20.0)  # a job was submitted
    assert [job.id for job in started] == [6] and waiting == queue
    assert sizes_read == []


def test_a_queue_as_long_as_the_last_one_plus_one_but_with_other_jobs_is_scanned_again():
    blocked = (Job(1, 0, 100, 4, 100), Job(2, 0, 100, 4, 100))
    assert easy_pass_on_nodes(blocked, {9: (50.0, 8)}, 1, 0.0) == ([], blocked)
    other = (Job(3, 0, 100, 4, 100), Job(4, 0, 10, 1, 10), Job(5, 0, 100, 4, 100))
    started, waiting = easy_pass_on_nodes(other, {9: (50.0, 8)}, 1, 0.0)
    assert [job.id for job in started] == [4] and [job.id for job in waiting] == [3, 5]



def test_a_queue_given_as_a_list_that_changed_since_the_last_pass_is_scanned_again():
    queue = [Job(1, 0, 100, 4, 100), Job(2, 0, 100, 4, 100)]
    assert easy_pass_on_nodes(queue, {9: (50.0, 8)}, 1, 0.0)[0] == []
    queue[1] = Job(3, 0, 10, 1, 10)
    assert [job.id for job in easy_pass_on_nodes(queue, {9: (50.0, 8)}, 1, 0.0)[0]] == [3]


def test_a_pass_after_one_that_started_jobs_does_not_scan_the_queue_it_left(monkeypatch):
    sizes_read = []
    monkeypatch.setattr(easy, "_size", lambda job: sizes_read.append(job.id) or job.js)
    queue = tuple(Job(i, 0, 100, size, 100) for i, size in enumerate([2, 4, 4, 4, 3], 1))
    started, waiting = easy_pass_on_nodes(queue, {9: (50.0, 8)}, 2, 10.0)
    assert [job.id for job in started] == [1]
    sizes_read.clear()
    # a job ended: the queue left is seen again, with 3 free nodes for the 3-node job
    started, waiting = easy_pass_on_nodes(waiting, {9: (50.0, 8)}, 3, 20.0)
    assert [job.id for job in started] == [5] and [job.id for job in waiting] == [2, 3, 4]
    assert sizes_read == []


def test_once_every_job_of_the_smallest_size_started_the_next_size_is_the_smallest():
    queue = tuple(Job(i, 0, 100, size, 100) for i, size in enumerate([4, 1, 3, 1, 2], 1))
    running = {9: (50.0, 8)}
    started, waiting = easy_pass_on_nodes(queue, running, 2, 0.0)  # both 1-node jobs
    assert [job.id for job in started] == [2, 4]
    assert easy_pass_on_nodes(waiting, running, 1, 1.0) == ([], waiting)  # none of 1 left
    started, left = easy_pass_on_nodes(waiting, running, 2, 2.0)
    assert [job.id for job in started] == [5] and [job.id for job in left] == [1, 3]


def test_a_queue_with_held_jobs_put_back_is_not_scanned_and_knows_their_sizes(monkeypatch):
    """Under a power cap the jobs a pass started may be held and put back
    (``requeue``): the next pass sees that queue without a scan, and the
    sizes of the jobs put back count, the smallest among them too."""
    from modules.power_capping import requeue

    sizes_read = []
    monkeypatch.setattr(easy, "_size", lambda job: sizes_read.append(job.id) or job.js)
    queue = tuple(Job(i, i, 100, size, 100) for i, size in enumerate([1, 4, 4, 3], 1))
    running = {9: (50.0, 8)}
    started, waiting = easy_pass_on_nodes(queue, running, 1, 10.0)
    assert [job.id for job in started] == [1]
    sizes_read.clear()
    back = requeue(waiting, started)  # over the cap: job 1 is held
    assert [job.id for job in back] == [1, 2, 3, 4]
    assert easy_pass_on_nodes(back, running, 1, 20.0)[0] == started  # 1 node is still enough
    assert sizes_read == []


@pytest.mark.parametrize("options", [{"policy": "fcfz"}, {"policy": "FCFS"},
                                     {"estimate": "requsted"}])
def test_a_policy_or_estimate_of_no_known_name_is_refused(options):
    # a net file's typo of "fcfs" ordered the queue by WFP, one of
    # "requested" planned with the walltime, without a word
    with pytest.raises(ValueError, match="the policy is one of fcfs, wfp and the estimate one "
                                         "of requested, actual, mixed"):
        easy_pass_on_nodes((Job(1, 0, 10, 1, 10),), {}, 4, 0.0, **options)
    with pytest.raises(ValueError, match="an estimate mode is 'requested', 'actual' or "
                                         "'mixed', not 'requsted'"):
        Job(1, 0, 10, 1, 20).estimate("requsted")
    with pytest.raises(ValueError, match="the policy is one of fcfs, wfp"):
        order_queue((Job(1, 0, 10, 1, 10),), "fifo", 0.0, "requested")
