"""The DVFS rules equal their formulas written plainly, to the last bit.

``ScalingRules`` computes each level's change of scale once, sums the
running jobs' power inline and makes moved jobs directly: the plain
versions below sum in *Progress* order and call ``PowerModel.scale`` and
``under_cap`` each time, as PuPPET section 3.3 reads.  System powers are
drawn right at a level's threshold (within a few ulps of where the cap
holds), so a sum in another order, or a subtraction done the other way
round, would change a decision or a watt."""

from __future__ import annotations

import math

from hypothesis import assume, given, settings
from hypothesis import strategies as st

from cpn import Delayed
from modules.cpu_scaling import CpuScaling, ScalingRules
from modules.job import Job
from modules.power import PowerModel, under_cap


def plain_busy(progress, running):
    return sum([job.jp for job_id, (job, _, _) in progress.items() if job_id in running])


def plain_level(rules, progress, running, watts, current):
    busy, power = plain_busy(progress, running), rules.power
    for frequency in rules.scaling.levels:
        if under_cap(watts + busy * (power.scale(frequency) - power.scale(current)),
                     rules.scaling.cap_watts):
            return frequency
    return rules.scaling.levels[-1]


def plain_admits(rules, job, progress, running, watts, current):
    if not running or rules.scaling.admission == "nodes":
        return True
    lowest, power = rules.scaling.levels[-1], rules.power
    at_lowest = watts + plain_busy(progress, running) * (power.scale(lowest)
                                                         - power.scale(current))
    return under_cap(at_lowest + power.busy_delta_at(job, lowest), rules.scaling.cap_watts)


def plain_rescale(rules, progress, running, watts, old, new, now, estimate):
    scaling, power = rules.scaling, rules.power
    progress_now, running_now, tokens = {}, dict(running), []
    for job_id, (job, work, since) in progress.items():
        if job_id not in running:
            continue
        left = max(work - (now - since) * old ** scaling.beta, 0.0)
        moved = job._replace(pf=new, version=job.version + 1)
        progress_now[job_id] = (moved, left, now + scaling.latency)
        tokens.append(Delayed(moved, scaling.latency + scaling.duration(left, new)))
        planned_left = max(job.estimate(estimate) - (job.rt - left), 0.0)
        running_now[job_id] = (now + scaling.latency + scaling.duration(planned_left, new),
                               job.js)
    busy = sum(job.jp for job, _, _ in progress_now.values())
    return (watts + busy * (power.scale(new) - power.scale(old)), progress_now, running_now,
            tokens)


def same_bits(a, b):
    return type(a) is type(b) and (a.hex() == b.hex() if isinstance(a, float) else a == b)


#: Job powers to the milliwatt: decimals, whose sums round (hypothesis'
#: own floats favour round numbers, which add exactly in any order).
WATTS = st.integers(1_000, 50_000_000).map(lambda milliwatts: milliwatts / 1000)


@st.composite
def situations(draw):
    """Rules, a Progress and Runtime Info of a few jobs, a current level
    (sometimes none of the configured ones) and the system power at which
    a level just holds the cap."""
    levels = draw(st.lists(st.floats(0.1, 1.0), min_size=1, max_size=6, unique=True))
    count = draw(st.integers(0, 8))
    jobs = [Job(i, 0.0, draw(st.floats(1.0, 1e4)), draw(st.integers(1, 64)),
                draw(st.floats(1.0, 2e4)), jp=draw(WATTS),
                pf=draw(st.sampled_from(levels)), version=draw(st.integers(0, 3)))
            for i in draw(st.permutations(range(count)))]
    progress = {job.id: (job, draw(st.floats(0.0, job.rt)), draw(st.floats(0.0, 100.0)))
                for job in jobs}
    running = {job.id: (500.0, job.js) for job in jobs if draw(st.booleans())}
    # A cap of the order of the running jobs' power: a last bit of their
    # sum shows in the sums compared with it.
    cap = draw(st.floats(0.05, 1.0)) * max(plain_busy(progress, running), 100.0)
    power = PowerModel(draw(st.floats(50.0, 500.0)), draw(st.floats(0.0, 1.0)),
                       draw(st.floats(0.0, 1.0)), draw(st.floats(0.5, 3.0)))
    scaling = CpuScaling(cap, levels=tuple(levels), beta=draw(st.floats(0.0, 1.5)),
                         latency=draw(st.sampled_from([0.0, 3.0])),
                         admission=draw(st.sampled_from(["lowest", "lowest", "nodes"])))
    rules = ScalingRules(power, scaling)
    current = draw(st.sampled_from(levels) | st.floats(0.05, 1.0))
    target = draw(st.sampled_from(scaling.levels))
    step = power.scale(target) - power.scale(current)
    watts = scaling.cap_watts * (1 + 1e-9) - plain_busy(progress, running) * step
    return rules, progress, running, watts, current


def nudged(watts, ulps=4):
    """``watts`` and the floats up to ``ulps`` either side of it."""
    below, above = [watts], [watts]
    for _ in range(ulps):
        below.append(math.nextafter(below[-1], -math.inf))
        above.append(math.nextafter(above[-1], math.inf))
    return below[::-1] + above[1:]


@settings(max_examples=400, deadline=None)
@given(situations(), st.floats(1.0, 5e4), st.integers(1, 64))
def test_level_and_admission_are_the_plain_formulas(situation, head_watts, head_nodes):
    rules, progress, running, threshold, current = situation
    head = Job(99, 0.0, 10.0, head_nodes, 10.0, jp=head_watts)
    for watts in nudged(threshold):
        assert same_bits(rules.level(progress, running, watts, current),
                         plain_level(rules, progress, running, watts, current))
    power, lowest = rules.power, rules.scaling.levels[-1]
    admitted = (rules.scaling.cap_watts * (1 + 1e-9) - power.busy_delta_at(head, lowest)
                - plain_busy(progress, running) * (power.scale(lowest) - power.scale(current)))
    for watts in nudged(threshold) + nudged(admitted):
        assert rules.admits(head, progress, running, watts, current) is \
            plain_admits(rules, head, progress, running, watts, current)


@settings(max_examples=300, deadline=None)
@given(situations(), st.floats(100.0, 200.0), st.sampled_from(["requested", "actual"]))
def test_a_change_of_level_is_the_plain_rescale(situation, now, estimate):
    rules, progress, running, watts, current = situation
    new = plain_level(rules, progress, running, watts, current)
    assume(new != current)
    got = rules.rescale(progress, running, watts, current, new, now, estimate)
    want = plain_rescale(rules, progress, running, watts, current, new, now, estimate)
    assert same_bits(got[0], want[0])
    assert list(got[1].items()) == list(want[1].items())  # same entries, same order
    assert all(type(moved) is Job for moved, _, _ in got[1].values())
    assert got[2] == want[2]
    assert [(type(t), t.value, t.delay.hex()) for t in got[3]] == \
        [(type(t), t.value, t.delay.hex()) for t in want[3]]
