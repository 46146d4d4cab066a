"""The dynamic learner (data-driven scheduling, section V): the pooled
t-test against scipy, and the learner's fallbacks on hand-made histories."""

import math

import numpy as np
import pandas as pd
import pytest

from modules.job import Job
from modules.power_learning import (History, LearnerConfig, PowerLearner, RunningEstimates,
                                    learning_rate)
from modules.power_samples import NoisyProfile, RunSamples, SampleTable
from modules.t_test import Significance, pooled_t_test, student_t_pvalue, t_critical, t_test

stats = pytest.importorskip("scipy.stats")  # the reference only; not a runtime dependency


# -- the t-test ---------------------------------------------------------------

@pytest.mark.parametrize("sizes, shift, scale", [
    ((20, 20), 0.0, 1.0), ((20, 100), 0.5, 1.0), ((25, 40), 3.0, 2.0),
    ((3, 2), 1.0, 1.0), ((500, 30), 0.1, 0.5), ((1000, 5000), 0.02, 1.0),
])
def test_t_test_matches_scipy(sizes, shift, scale):
    rng = np.random.default_rng(sum(sizes))
    a = rng.normal(60.0, 2.0, sizes[0])
    b = rng.normal(60.0 + shift, 2.0 * scale, sizes[1])
    reference = stats.ttest_ind(a, b, equal_var=True)
    t, p = t_test(a, b)
    assert t == pytest.approx(reference.statistic, rel=1e-10)
    assert p == pytest.approx(reference.pvalue, rel=1e-8, abs=1e-300)


def test_t_distribution_tail_and_quantile_match_scipy():
    for df in (1, 2, 5, 19, 38, 100, 1_000, 100_000):
        for t in (0.0, 0.3, 1.0, 2.0, 2.6, 3.5, 8.0, 40.0):
            assert student_t_pvalue(t, df) == pytest.approx(2 * stats.t.sf(t, df),
                                                            rel=1e-9, abs=1e-300)
        for alpha in (0.01, 0.05):
            assert t_critical(alpha, df) == pytest.approx(stats.t.ppf(1 - alpha / 2, df),
                                                          rel=1e-9)
    assert student_t_pvalue(math.inf, 10) == 0.0
    assert student_t_pvalue(-2.0, 10) == student_t_pvalue(2.0, 10)


def test_fast_significance_decides_as_the_p_value():
    rng = np.random.default_rng(5)
    significance = Significance(0.01, min_df=38)
    for _ in range(600):
        n1, n2 = (int(n) for n in rng.integers(20, 200, 2))
        a = RunSamples()
        for value in rng.normal(60, 2, n1):
            a = a.add(float(value), 10_000)
        b_values = rng.normal(60 + rng.uniform(-1.5, 1.5), 2, n2)
        b = History.of(b_values, np.mean).summary
        _, p = pooled_t_test(*a.summary, *b)
        assert significance.differ(a.summary, b) == (p < 0.01)


def test_degenerate_t_tests():
    assert pooled_t_test(3, 5.0, 0.0, 4, 5.0, 0.0) == (0.0, 1.0)
    t, p = pooled_t_test(3, 6.0, 0.0, 4, 5.0, 0.0)
    assert t == math.inf and p == 0.0
    with pytest.raises(ValueError):
        pooled_t_test(1, 1.0, 0.0, 1, 1.0, 0.0)


def test_run_samples_keep_welford_statistics_and_a_sliding_window():
    values = np.random.default_rng(2).normal(65, 3, 57)
    run = RunSamples()
    for value in values:
        run = run.add(float(value), 10)
    assert run.n == 57
    assert run.mean == pytest.approx(values.mean())
    assert run.summary.variance == pytest.approx(values.var(ddof=1))
    assert run.recent == tuple(values[-10:])


# -- the learner --------------------------------------------------------------

CONFIG = LearnerConfig(min_samples=20, window=100)
PEAK = CONFIG.max_node_watts


def job(id=1, user=1, executable=10, js=1024, group=7, jp=0.0):
    return Job(id, 0.0, 3600.0, js, 3600.0, jp=jp, user=user, group=group,
               executable=executable)


def constant_run(value, count, noise=0.0, seed=0):
    rng = np.random.default_rng(seed)
    run = RunSamples()
    for _ in range(count):
        run = run.add(value * (1 + noise * rng.standard_normal()), 100)
    return run


def test_an_unknown_job_is_planned_at_the_machine_maximum():
    learner = PowerLearner(CONFIG)
    assert learner.estimate(job()) == (PEAK, "max")
    assert PEAK * 1024 == pytest.approx(100_000.0)  # Mira: 4.8 MW / 48 racks


def test_queued_job_uses_its_own_profile_then_its_projects_then_the_maximum():
    values = np.linspace(60.0, 70.0, 30)  # p95 = 69.5
    mine = job(user=1)
    colleague = job(user=2)  # same project (group 7), another user
    stranger = job(user=3, group=8)
    learner = PowerLearner(CONFIG).with_history(mine, values)
    assert learner.estimate(mine) == (pytest.approx(69.5), "job")
    assert learner.estimate(colleague) == (pytest.approx(69.5), "project")
    assert learner.estimate(stranger) == (PEAK, "max")
    assert learner.estimate(job(user=-1, group=-1))[1] == "max"  # no project


def test_a_profile_needs_min_samples_to_be_known():
    mine = job(user=1)
    learner = PowerLearner(CONFIG).with_history(mine, [60.0] * 19)
    assert learner.estimate(mine) == (PEAK, "max")
    learner = learner.with_history(mine, [60.0])  # a second short run: 20 in all
    assert learner.estimate(mine) == (60.0, "job")
    # The project's window fills alone, from its jobs' runs.
    assert learner.estimate(job(user=2)) == (60.0, "project")


def test_identity_key_options():
    small, large = job(js=512), job(js=2048)
    default = PowerLearner(CONFIG).with_history(small, [60.0] * 20, project=False)
    assert default.estimate(large)[1] == "max"  # user + executable + size
    pooled = PowerLearner(LearnerConfig(key="user")).with_history(small, [60.0] * 20,
                                                                   project=False)
    assert pooled.estimate(large) == (60.0, "job")
    assert pooled.estimate(job(user=2))[1] == "max"
    with pytest.raises(ValueError, match="key must be one of"):
        LearnerConfig(key="nonsense")


@pytest.mark.parametrize("statistic, expected", [
    ("p95", 95.05), ("p99", 99.01), ("max", 100.0), ("mean", 50.5)])
def test_high_statistic_options(statistic, expected):
    learner = PowerLearner(LearnerConfig(statistic=statistic))
    learner = learner.with_history(job(), np.arange(1.0, 101.0))
    assert learner.estimate(job())[0] == pytest.approx(expected)


def test_the_window_slides_over_the_latest_samples():
    config = LearnerConfig(window=30, min_samples=20)
    learner = PowerLearner(config).with_history(job(), [100.0] * 30)
    assert learner.estimate(job())[0] == 100.0
    learner = learner.with_history(job(), [60.0] * 25)
    assert learner.jobs[(1, 10, 1024)].values == (100.0,) * 5 + (60.0,) * 25
    assert learner.estimate(job())[0] == 100.0  # p95 of a window still holding 5 x 100
    learner = learner.with_history(job(), [60.0] * 5)
    assert learner.estimate(job())[0] == 60.0


def test_running_job_keeps_its_profile_when_the_t_test_finds_no_difference():
    history = np.random.default_rng(1).normal(60.0, 1.0, 100)
    learner = PowerLearner(CONFIG).with_history(job(), history)
    assert learner.decide(job(), constant_run(60.0, 19, noise=0.02)) is None  # too few
    decision = learner.decide(job(), constant_run(60.0, 20, noise=0.02, seed=3))
    assert decision == (learner.jobs[(1, 10, 1024)].profile, "job")


def test_running_job_that_differs_from_its_history_takes_the_projects_or_the_maximum():
    rng = np.random.default_rng(1)
    me, colleague = job(user=1), job(user=2)
    learner = (PowerLearner(CONFIG).with_history(me, rng.normal(60.0, 1.0, 100), project=False)
               .with_history(colleague, np.linspace(60.0, 80.0, 100)))
    mine, project = learner.jobs[(1, 10, 1024)].profile, learner.projects[7].profile
    assert learner.decide(me, constant_run(60.0, 20, noise=0.01)) == (mine, "job")
    # Unlike my runs (60 W) but like my project's (60 to 80 W, mean 70 W).
    assert learner.decide(me, constant_run(70.0, 20, noise=0.05)) == (project, "project")
    # Unlike both: neither is representative, assume the maximum.
    assert learner.decide(me, constant_run(95.0, 20, noise=0.01)) == (PEAK, "max")


def test_first_run_of_a_job_is_compared_with_its_project():
    rng = np.random.default_rng(4)
    learner = PowerLearner(CONFIG).with_history(job(user=2), rng.normal(60.0, 2.0, 100))
    newcomer = job(user=1)
    profile = learner.projects[7].profile
    assert learner.decide(newcomer, constant_run(60.0, 20, noise=0.03)) == (profile, "project")
    assert learner.decide(newcomer, constant_run(75.0, 20, noise=0.03)) == (PEAK, "max")
    # With no project at all there is nothing to compare with: the maximum.
    assert PowerLearner(CONFIG).decide(newcomer, constant_run(60.0, 30)) == (PEAK, "max")


def test_commit_returns_a_new_learner_and_leaves_the_old_one():
    learner = PowerLearner(CONFIG)
    learned = learner.commit(job(), constant_run(60.0, 25))
    assert learner.jobs == {} and learner.projects == {}
    assert learned.estimate(job()) == (60.0, "job")
    assert learned.commit(job(), RunSamples()) is learned  # no samples, no change


def test_oracle_knows_every_job_and_never_changes_its_mind():
    learner = PowerLearner(LearnerConfig(oracle=True))
    assert learner.estimate(job(jp=61_440.0)) == (60.0, "job")
    assert learner.decide(job(jp=61_440.0), constant_run(90.0, 50)) is None


def test_running_estimates_keep_p_used():
    a, b = job(id=1, js=2), job(id=2, js=3)
    estimates = RunningEstimates().started(a, 10.0, "max").started(b, 5.0, "job")
    assert estimates.total == 35.0
    estimates = estimates.changed(1, 4.0, "project")
    assert estimates.total == 23.0 and estimates.by_id[1] == (4.0, "project", 2)
    pruned = estimates.pruned({2: (100.0, 3)})
    assert pruned.total == 15.0 and set(pruned.by_id) == {2}
    assert pruned.pruned({2: (100.0, 3)}) is pruned


# -- samples ------------------------------------------------------------------

def test_noisy_profile_draws_around_the_jobs_power_per_node():
    rng = np.random.default_rng(0)
    worker = job(js=1024, jp=65_536.0)
    values = [NoisyProfile(0.03).value(worker, k, rng) for k in range(4000)]
    assert np.mean(values) == pytest.approx(64.0, rel=0.005)
    assert np.std(values) == pytest.approx(64.0 * 0.03, rel=0.05)
    assert NoisyProfile(0.0).value(worker, 0, rng) == 64.0
    with pytest.raises(ValueError):
        NoisyProfile(-1)


def test_sample_table_replays_measured_samples_in_time_order():
    frame = pd.DataFrame({"job_id": [5, 5, 6, 5], "time": [480, 240, 0, 720],
                          "watts": [2048.0, 1024.0, 10.0, 4096.0]})
    table = SampleTable.read(frame)
    worker = job(id=5, js=1024)
    assert [table.value(worker, k, None) for k in range(4)] == [1.0, 2.0, 4.0, None]
    assert table.value(job(id=99), 0, None) is None
    with pytest.raises(ValueError, match="job_id and watts"):
        SampleTable.read(pd.DataFrame({"job_id": [1]}))
    with pytest.raises(ValueError, match=">= 0"):
        SampleTable.read(pd.DataFrame({"job_id": [1], "watts": [-3.0]}))


def test_learning_rate_per_day_and_so_far():
    decisions = pd.DataFrame({"time": [10.0, 20.0, 86_500.0, 86_600.0, 3 * 86_400.0],
                              "source": ["max", "project", "job", "job", "max"]})
    rate = learning_rate(decisions)
    assert list(rate["day"]) == [0, 1, 2, 3]
    assert list(rate["jobs"]) == [2, 2, 0, 1]
    assert list(rate["known"][:2]) == [0.5, 1.0] and math.isnan(rate["known"][2])
    assert list(rate["own"][:2]) == [0.0, 1.0]
    assert list(rate["cumulative_known"]) == [0.5, 0.75, 0.75, 0.6]
    assert list(rate["cumulative_own"]) == [0.0, 0.5, 0.5, 0.4]
    assert len(learning_rate(pd.DataFrame(columns=["time", "source"]))) == 0


def test_configuration_is_validated():
    with pytest.raises(ValueError, match="min_samples"):
        LearnerConfig(min_samples=1)
    with pytest.raises(ValueError, match="window"):
        LearnerConfig(window=10)
    with pytest.raises(ValueError, match="alpha"):
        LearnerConfig(alpha=1.5)
    with pytest.raises(ValueError, match="project"):
        LearnerConfig(project="team")
