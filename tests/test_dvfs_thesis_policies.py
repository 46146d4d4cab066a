"""The DVFS thesis' policies on the PuPPET net: a hand-built 3-job case
each (gears and start times worked out on paper), the exact chunk solver
against enumeration, and invariants on a random workload."""

import itertools
import math
import random

import numpy as np
import pytest

from modules.dvfs_thesis.chunk_solver import Capacity, Option, best_gears
from modules.dvfs_thesis.gears import CpuPowerModel
from modules.dvfs_thesis.profiles import JobProfile, draw_profiles
from modules.job import Job
from nets.dvfs_thesis import (BsldDrivenConfig, EasyConfig, MaxJobPerfConfig, PbGuidedConfig,
                              ThesisConfig, UpasConfig, busy_power, simulate)

POWER = CpuPowerModel(nominal_cpu_watts=100.0, idle="zero")
CPU_BOUND = JobProfile(1.0, 1.0)  # beta = 1: time scales as 1/f


def run(jobs, cpus, policy, profiles=None):
    profiles = profiles or {job.id: CPU_BOUND for job in jobs}
    result = simulate(jobs, ThesisConfig(cpus, policy, POWER), profiles)
    frame = result.jobs.set_index("job_id")
    return result, frame


def job(id, st, rt, js, wt=None):
    return Job(id, float(st), float(rt), js, float(rt if wt is None else wt))


def gears_and_starts(frame):
    return list(frame["frequency_ghz"]), list(frame["start"].round(3))


def test_easy_baseline_backfills_at_the_nominal_gear():
    jobs = [job(1, 0, 100, 3), job(2, 1, 100, 4), job(3, 2, 50, 1)]
    result, frame = run(jobs, 4, EasyConfig())
    # job 2 holds the reservation at 100; job 3 ends by then and backfills
    assert gears_and_starts(frame) == ([2.3, 2.3, 2.3], [0.0, 100.0, 2.0])
    assert list(frame["runtime"]) == [100.0, 100.0, 50.0]


def test_upas_gear_follows_previous_interval_utilization():
    jobs = [job(1, 0, 150, 6), job(2, 150, 100, 2), job(3, 210, 100, 4)]
    result, frame = run(jobs, 10, UpasConfig(interval_s=100.0, wq_threshold=0))
    # [0,100): no previous interval -> nominal for job 1.
    # [0,100) used 6/10 = 0.6 -> job 2 (arrives 150) at f_upper = 2.0 GHz.
    # [100,200): job 1 6x50 + job 2 2x50 = 400 of 1000 -> job 3 at f_lower 1.4 GHz.
    assert gears_and_starts(frame) == ([2.3, 2.0, 1.4], [0.0, 150.0, 210.0])
    assert frame.loc[2, "runtime"] == pytest.approx(100 * 2.3 / 2.0)
    assert frame.loc[3, "runtime"] == pytest.approx(100 * 2.3 / 1.4)


def test_upas_wait_queue_threshold_keeps_the_nominal_gear():
    jobs = [job(1, 0, 150, 10), job(2, 150, 100, 2), job(3, 160, 100, 2)]
    _, frame = run(jobs, 10, UpasConfig(interval_s=100.0, wq_threshold=0))
    # U of [0,100) is 1.0: job 2 nominal; job 3 arrives with job 2 waiting
    assert list(frame["frequency_ghz"]) == [2.3, 2.3, 2.3]
    _, frame = run(jobs[:1] + [job(2, 250, 100, 2), job(3, 250, 100, 2)], 10,
                   UpasConfig(interval_s=100.0, wq_threshold=0))
    assert list(frame["frequency_ghz"]) == [2.3, 2.0, 2.0]  # U[100,200) = 50/100 -> 0.5


def test_bsld_driven_takes_the_lowest_gear_under_the_threshold():
    jobs = [job(1, 0, 1000, 3), job(2, 100, 1000, 4), job(3, 200, 1000, 1)]
    _, frame = run(jobs, 4, BsldDrivenConfig(bsld_threshold=2.0))
    # job 1: Coef(0.8)=2.875, Coef(1.1)=2.09 >= 2; Coef(1.4)=1.64 < 2 -> 1.4 GHz.
    # job 2 reserves at job 1's planned end 1642.86.  Job 3 backfills: at 0.8,
    # 1.1 and 1.4 GHz it would end after that; at 1.7 GHz by 1552.9, BSLD 1.35.
    # job 2 starts at 1642.86 with BSLD (1542.86 + 1150) / 1000 > 2 at 2.0: nominal.
    end_1 = 1000 * 2.3 / 1.4
    assert gears_and_starts(frame) == ([1.4, 2.3, 1.7], [0.0, round(end_1, 3), 200.0])


def test_bsld_driven_wait_queue_threshold():
    jobs = [job(1, 0, 1000, 4), job(2, 1, 10_000, 4), job(3, 2, 100, 4)]
    # job 1 alone: 2.875 < 3 at 0.8 GHz.  Job 2 starts at 2875 s: at 1.1 GHz
    # (2874 + 20,909) / 10,000 = 2.38 < 3, unless job 3 waiting forbids scaling
    _, frame = run(jobs, 4, BsldDrivenConfig(bsld_threshold=3.0, wq_threshold=0))
    assert list(frame["frequency_ghz"]) == [0.8, 2.3, 2.3]
    _, frame = run(jobs, 4, BsldDrivenConfig(bsld_threshold=3.0, wq_threshold=None))
    assert list(frame["frequency_ghz"]) == [0.8, 1.1, 2.3]


def test_power_constrained_easy_holds_the_budget():
    # budget 50 % of 4 CPUs x 100 W = 200 W: two nominal CPUs
    jobs = [job(1, 0, 100, 2), job(2, 1, 100, 1), job(3, 2, 50, 1)]
    result, frame = run(jobs, 4, EasyConfig(budget_fraction=0.5))
    # job 2 would reach 300 W: reservation at 100; job 3 cannot backfill (power)
    assert gears_and_starts(frame) == ([2.3] * 3, [0.0, 100.0, 100.0])
    assert result.metrics["busy_power_peak_w"] <= 200.0 + 1e-9


@pytest.mark.parametrize("rule, start", [("unchecked", 0.0), ("alone", 100.0)])
def test_a_job_over_the_budget_alone(rule, start):
    jobs = [job(1, 0, 100, 1), job(2, 1, 100, 3)]
    _, frame = run(jobs, 4, EasyConfig(budget_fraction=0.5, oversized=rule))
    assert frame.loc[2, "start"] == start + (1.0 if rule == "unchecked" else 0.0)


@pytest.mark.parametrize("policy", [EasyConfig(budget_fraction=0.5),
                                    PbGuidedConfig(bsld_lower=1.5, budget_fraction=0.5)])
def test_a_job_of_no_cpus_never_waits_for_power(policy):
    # Budget 200 W.  Job 1 (3 CPUs, 300 W: over the budget alone) runs from 0
    # to 100 s.  Job 2 is one of Atlas' 852 lines of no processors: drawing
    # nothing, it cannot break the budget, so it starts at its arrival (the
    # old rule held it until job 1 ended).  Job 3 (1 CPU) waits for power.
    jobs = [job(1, 0, 100, 3), job(2, 10, 0, 0, wt=60), job(3, 20, 50, 1)]
    _, frame = run(jobs, 4, policy)
    assert list(frame["start"]) == [0.0, 10.0, 100.0]


def test_pb_guided_scales_as_power_rises():
    # budget 500 W; P_lower 300 W, P_upper 450 W; BSLD_lower 1.5, upper 3
    jobs = [job(1, 0, 1000, 2), job(2, 10, 1000, 2), job(3, 20, 1000, 4)]
    result, frame = run(jobs, 10, PbGuidedConfig(bsld_lower=1.5, budget_fraction=0.5))
    # job 1: every reduced gear keeps power under 300 W: threshold 0 -> nominal.
    # job 2: 200 W + 2 CPUs: below 300 W up to 1.1 GHz; at 1.4 GHz 302.6 W and
    #   BSLD 1.64 >= 1.5; at 1.7 GHz 329.8 W and BSLD 1.35 < 1.5 -> 1.7 GHz.
    # job 3: 329.8 W + 4 CPUs at 0.8 GHz = 453 W >= 450: threshold 3 > 2.875.
    assert gears_and_starts(frame) == ([2.3, 1.7, 0.8], [0.0, 10.0, 20.0])
    assert result.metrics["busy_power_peak_w"] <= 500.0


def test_pb_guided_reservation_and_a_job_over_the_budget():
    # 4 CPUs, budget 200 W: P_lower 120 W, P_upper 180 W.  Job 1 (2 CPUs):
    # below 120 W up to 1.4 GHz; 129.8 W at 1.7 GHz, BSLD 1.35 < 1.5 -> 1.7 GHz.
    # Job 2 (3 CPUs, 300 W nominal: over the budget alone) reserves job 1's
    # planned end 135.3 s and runs there at the nominal gear.
    jobs = [job(1, 0, 100, 2), job(2, 1, 100, 3)]
    _, frame = run(jobs, 4, PbGuidedConfig(bsld_lower=1.5, budget_fraction=0.5))
    assert gears_and_starts(frame) == ([1.7, 2.3], [0.0, round(100 * 2.3 / 1.7, 3)])


def test_max_job_perf_shares_power_by_optimisation():
    # 10 CPUs, budget 500 W
    jobs = [job(1, 0, 100, 6), job(2, 1, 100, 4), job(3, 2, 100, 4)]
    result, frame = run(jobs, 10, MaxJobPerfConfig(budget_fraction=0.5))
    # job 1 at arrival: 600 W nominal > 500; 2.0 GHz 486 W -> 2.0 GHz, ends 115.
    # jobs 2, 3 at arrival: 14 W left, not even the lowest gear.
    # at 115: maximise 114 P(f2) + 113 P(f3) with 4 (P(f2) + P(f3)) <= 500:
    # 2.0 + 1.1 GHz gives 13,754 W s, better than 1.7 + 1.4 or 2.3 alone.
    assert gears_and_starts(frame) == ([2.0, 2.0, 1.1], [0.0, 115.0, 115.0])
    assert result.metrics["busy_power_peak_w"] <= 500.0


def test_max_job_perf_reservation_protects_a_large_job():
    # 10 CPUs, budget 1000 W (no power limit in effect).  Job 2 (8 CPUs) gets a
    # reservation at job 1's planned end 100; job 3 (long) may not take its CPUs.
    jobs = [job(1, 0, 100, 4), job(2, 1, 100, 8), job(3, 2, 1000, 4), job(4, 3, 50, 2)]
    _, frame = run(jobs, 10, MaxJobPerfConfig(budget_fraction=1.0))
    assert frame.loc[2, "start"] == 100.0
    assert frame.loc[4, "start"] == 3.0  # ends by the reservation: starts at arrival
    assert frame.loc[3, "start"] >= 200.0
    _, free = run(jobs, 10, MaxJobPerfConfig(budget_fraction=1.0, reservations="none"))
    assert free.loc[3, "start"] == 2.0 and free.loc[2, "start"] > 100.0


def test_chunk_solver_is_exact():
    rng = random.Random(7)
    for _ in range(40):
        jobs = []
        for _ in range(rng.randint(1, 5)):
            cpus, wait = rng.randint(1, 6), rng.uniform(0, 100)
            jobs.append((cpus, [Option(g, w * wait, cpus * w, rng.random() < 0.5)
                                for g, w in enumerate((31, 40, 51, 65, 81, 100))]))
        capacity = Capacity(rng.randint(0, 12), rng.uniform(0, 900),
                            rng.randint(0, 12), rng.uniform(0, 900))
        best = best_gears(jobs, capacity)

        def value(assignment):
            left, total = capacity, 0.0
            for (cpus, options), gear in zip(jobs, assignment):
                if gear is None:
                    continue
                left = left.take(cpus, options[gear])
                if left is None:
                    return -1.0
                total += options[gear].value
            return total
        brute = max(value(a) for a in itertools.product(
            [None, *range(6)], repeat=len(jobs)))
        assert value(best) == pytest.approx(brute)


POLICIES = [EasyConfig(), UpasConfig(interval_s=300.0), BsldDrivenConfig(3.0),
            EasyConfig(budget_fraction=0.6, oversized="alone"),
            PbGuidedConfig(bsld_lower=1.2, budget_fraction=0.6, oversized="alone"),
            MaxJobPerfConfig(budget_fraction=0.6),
            MaxJobPerfConfig(budget_fraction=0.6, reservations="time", wait_time_limit=2000.0)]


@pytest.mark.parametrize("policy", POLICIES, ids=lambda p: type(p).__name__)
def test_invariants_on_a_random_workload(policy):
    rng = np.random.default_rng(11)
    jobs, now = [], 0.0
    for i in range(150):
        now += float(rng.exponential(60))
        rt = float(rng.integers(10, 3000))
        jobs.append(Job(i, now, rt, int(rng.choice([1, 2, 4, 8, 16, 40])),
                        rt * float(rng.uniform(0.5, 3))))  # some outlive their request
    profiles = draw_profiles(jobs, seed=1)
    result = simulate(jobs, ThesisConfig(64, policy, POWER), profiles)
    frame = result.jobs
    assert sorted(frame["job_id"]) == list(range(150))  # each job ran, once
    assert (frame["start"] >= frame["submit"] - 1e-9).all()
    expected = frame["runtime_nominal"] * (frame["beta"] * (2.3 / frame["frequency_ghz"] - 1) + 1)
    assert np.allclose(frame["runtime"], expected)
    events = sorted([(e, -c) for e, c in zip(frame["end"], frame["cpus"])]
                    + [(s, c) for s, c in zip(frame["start"], frame["cpus"])])
    assert max(itertools.accumulate(c for _, c in events)) <= 64  # never over-allocated
    budget = result.metrics["budget_w"]
    if math.isfinite(budget):
        times, watts = busy_power(frame)
        if isinstance(policy, MaxJobPerfConfig):
            assert watts.max() <= budget + 1e-6  # never exceeded
        else:  # exceeded only by a job over the budget alone, running alone
            oversized = frame[frame["cpus"] * 100.0 > budget]
            for t, w in zip(times, watts):
                if w > budget + 1e-6:
                    alone = frame[(frame["start"] <= t) & (frame["end"] > t)]
                    assert len(alone) == 1 and alone.index[0] in oversized.index
    assert result.metrics["unfinished_jobs"] == 0


def test_the_scheduler_plans_with_beta_one_or_the_jobs_own():
    jobs = [job(1, 0, 1000, 2)]
    memory_bound = {1: JobProfile(0.2, 0.5)}  # beta 0.1
    # its own beta: Coef(0.8 GHz) = 0.1 (2.3 / 0.8 - 1) + 1 = 1.1875 < 1.5
    _, frame = run(jobs, 4, BsldDrivenConfig(1.5, beta="oracle"), memory_bound)
    assert list(frame["frequency_ghz"]) == [0.8]
    assert frame.loc[1, "runtime"] == pytest.approx(1187.5)
    # beta = 1: 2.875, 2.09, 1.64 >= 1.5; 1.35 at 1.7 GHz; it still runs with beta 0.1
    _, frame = run(jobs, 4, BsldDrivenConfig(1.5, beta="one"), memory_bound)
    assert list(frame["frequency_ghz"]) == [1.7]
    assert frame.loc[1, "runtime"] == pytest.approx(1000 * (0.1 * (2.3 / 1.7 - 1) + 1))


@pytest.mark.parametrize("idle", ["zero", "lowest_gear"])
def test_the_nets_power_place_integrates_to_the_metrics_energy(idle):
    jobs = [job(1, 0, 1000, 2), job(2, 10, 500, 1), job(3, 20, 800, 3)]
    profiles = {1: JobProfile(0.5, 0.8), 2: JobProfile(1.0, 0.4), 3: JobProfile(0.3, 0.9)}
    config = ThesisConfig(4, BsldDrivenConfig(3.0), CpuPowerModel(idle=idle))
    metrics = simulate(jobs, config, profiles).metrics
    expected = metrics["energy_computational_j" if idle == "zero" else "energy_total_j"]
    assert metrics["energy_system_j"] == pytest.approx(expected)
