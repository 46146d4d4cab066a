"""WFP scores are the paper's formula to the last bit, and the EASY pass
under WFP equals the textbook pass on random queues: the whole queue
sorted by descending score (ties in arrival order), jobs started in that
order while they fit, then backfilled behind the head's reservation.
Small sets of sizes, times and walltimes make equal scores common, so the
tie rule is exercised."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from modules.easy import easy_pass_on_nodes, wfp_scores
from modules.job import Job

MACHINE = 16


def textbook_pass(queue, running, free, now, estimate, exponent):
    """EASY written plainly: score, full stable sort, start, shadow, backfill."""
    def score(job):
        queued = int(now - job.st) if estimate == "mixed" else now - job.st
        return job.js * (queued / (job.rt if estimate == "actual" else job.wt)) ** exponent

    order = sorted(queue, key=score, reverse=True)  # stable: ties keep arrival order
    started = []
    position = 0
    while position < len(order) and order[position].js <= free:
        started.append(order[position])
        free -= order[position].js
        position += 1
    if position < len(order):
        head = order[position]
        plan = [(max(end, now), nodes) for end, nodes in running.values()]
        plan += [(now + (job.rt if estimate == "actual" else job.wt), job.js) for job in started]
        available, shadow_time = free, None
        for end, nodes in sorted(plan):
            if shadow_time is not None and end != shadow_time:
                break
            available += nodes
            if shadow_time is None and available >= head.js:
                shadow_time = end
        extra = available - head.js
        for job in order[position + 1:]:
            runtime = job.wt if estimate == "requested" else job.rt
            ends_in_time = now + runtime <= shadow_time
            if job.js <= free and (ends_in_time or job.js <= extra):
                started.append(job)
                free -= job.js
                if not ends_in_time:
                    extra -= job.js
    return started, tuple(job for job in queue if job not in started)


@st.composite
def passes(draw):
    sizes = st.sampled_from([1, 2, 3, 4, 8, MACHINE])
    queue = tuple(Job(i, draw(st.sampled_from([0, 10, 20, 30.5])),
                      draw(st.sampled_from([50, 100, 200])), draw(sizes),
                      draw(st.sampled_from([100, 200, 400])))
                  for i in range(draw(st.integers(1, 40))))
    busy = draw(st.lists(st.tuples(st.sampled_from([35.0, 60.0, 100.0, 300.0]),
                                   st.integers(1, 6)), max_size=4))
    running, used = {}, 0
    for key, (end, nodes) in enumerate(busy):
        if used + nodes <= MACHINE:
            running[100 + key] = (end, nodes)
            used += nodes
    return (queue, running, MACHINE - used, draw(st.sampled_from([40.0, 41.5, 90.0, 250.0])),
            draw(st.sampled_from(["requested", "actual", "mixed"])),
            draw(st.sampled_from([1, 2, 3, 0.5, 2.5])))


@settings(max_examples=600, deadline=None)
@given(passes())
def test_the_wfp_pass_starts_and_leaves_what_the_textbook_pass_does(case):
    queue, running, free, now, estimate, exponent = case
    started, waiting = easy_pass_on_nodes(queue, running, free, now, policy="wfp",
                                          estimate=estimate, wfp_exponent=exponent)
    expected_started, expected_waiting = textbook_pass(queue, running, free, now, estimate,
                                                       exponent)
    assert [job.id for job in started] == [job.id for job in expected_started]
    assert [job.id for job in waiting] == [job.id for job in expected_waiting]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.floats(0, 1e6), st.floats(1, 1e5), st.integers(1, 10_000),
                          st.floats(1, 1e5)), min_size=1, max_size=20),
       st.floats(0, 1e6), st.sampled_from(["requested", "actual", "mixed"]),
       st.sampled_from([1, 2, 3, 0.5, 2.5, 3.0]))
def test_wfp_scores_are_the_papers_formula_to_the_last_bit(fields, after, estimate, exponent):
    queue = [Job(i, submit, runtime, size, walltime)
             for i, (submit, runtime, size, walltime) in enumerate(fields)]
    now = max(job.st for job in queue) + after
    for job, score in zip(queue, wfp_scores(queue, now, estimate, exponent)):
        queued = int(now - job.st) if estimate == "mixed" else now - job.st
        plan = job.rt if estimate == "actual" else job.wt
        assert score == job.js * (queued / plan) ** exponent  # exact: no tolerance
