"""Data-driven power-aware scheduling on the PuPPET net: the window
knapsack, the learner fed by samples, the deadlock rule, a time-varying
cap, the naive baseline, and a real trace against the paper's ranges."""

import math
from dataclasses import replace
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from modules.batch_scheduling import SchedulingConfig
from modules.job import Job
from modules.power_steps import power_at
from modules.power_learning import LearnerConfig, PowerLearner
from modules.power_cap_schedule import PowerCapSchedule
from modules.window_scheduling import WindowConfig, fill_window
from nets.data_driven import (DataDrivenConfig, build_net, capping_success_rate, compare,
                              monthly_metrics, simulate)

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "swf"


def config(nodes, cap, method="knapsack", idle=0.0, peak=100.0, oracle=True,
           trigger="event", window=WindowConfig(), **options):
    cap = cap if isinstance(cap, PowerCapSchedule) else PowerCapSchedule.constant(cap)
    return DataDrivenConfig(nodes, method=method, cap=cap, window=window,
                            scheduling=SchedulingConfig(trigger=trigger),
                            learner=LearnerConfig(max_node_watts=peak, oracle=oracle),
                            node_watts=peak, idle_fraction=idle, **options)


def job(id, st, rt, js, jp, user=None, group=None):
    return Job(id, float(st), float(rt), js, float(rt), jp=float(jp),
               user=id if user is None else user, group=id if group is None else group)


def starts(result):
    return dict(zip(result.jobs["job_id"], result.jobs["start"]))


def power_now(result, at):
    return float(power_at(result.run.power_times, result.run.power_watts, at))


# -- section IV-A, on the net -------------------------------------------------

# A node stands for a rack; (racks, kW per rack).
MOTIVATING = [job(0, 0, 3600, 3, 180e3), job(1, 0, 3600, 1, 50e3),
              job(2, 0, 3600, 5, 150e3), job(3, 0, 3600, 4, 160e3)]


def learned(jobs, config):
    """A learner that has seen each job's power before (constant samples)."""
    learner = PowerLearner(config.learner)
    for j in jobs:
        learner = learner.with_history(j, [j.jp / j.js] * 20)
    return learner


@pytest.mark.parametrize("oracle", [True, False])
def test_motivating_example_knapsack_runs_j1_j2_where_fcfs_runs_j0_j1(oracle):
    knapsack = config(6, 230e3, peak=100e3, oracle=oracle, trigger="timestamp")
    result = simulate(MOTIVATING, knapsack, learner=learned(MOTIVATING, knapsack))
    # J1 + J2: 6 racks, 200 kW.  At 3600 J3 (4 racks) beats J0 (3); J0 last.
    assert starts(result) == {0: 7200, 1: 0, 2: 0, 3: 3600}
    assert power_now(result, 0) == 200e3
    assert set(result.jobs["source"]) == {"job"}
    # A window of one job is the conventional one-by-one FCFS: J0, J1.
    fcfs = replace(knapsack, window=WindowConfig(size=1))
    result = simulate(MOTIVATING, fcfs, learner=learned(MOTIVATING, fcfs))
    assert starts(result) == {0: 0, 1: 0, 2: 3600, 3: 7200}
    assert power_now(result, 0) == 230e3


def test_eq2_solver_on_the_net_takes_fewer_nodes():
    jobs = [job(1, 0, 100, 3, 5e3), job(2, 0, 100, 2, 5e3), job(3, 0, 100, 2, 5e3)]
    exact = config(4, 10e3, peak=10e3, trigger="timestamp")
    assert starts(simulate(jobs, exact)) == {1: 100, 2: 0, 3: 0}
    eq2 = replace(exact, window=WindowConfig(solver="eq2"))
    assert starts(simulate(jobs, eq2)) == {1: 0, 2: 100, 3: 100}


# -- learning through samples -------------------------------------------------

def test_samples_teach_the_learner_and_the_next_runs_use_it():
    jobs = [job(i, 0, 7200, 1024, 60e3, user=1, group=1) for i in range(3)]
    setup = config(3072, 150e3, peak=100e3 / 1024, oracle=False)
    result = simulate(jobs, setup)
    assert starts(result) == {0: 0, 1: 7200, 2: 7200}
    assert list(result.jobs["source"]) == ["max", "job", "job"]
    estimate = result.jobs["estimate_w"][1]
    assert 60e3 < estimate < 60e3 * 1.1  # the 95th percentile of noisy samples
    # A sample every 4 minutes of each 2-hour run: 30 per job, all learned.
    assert result.metrics["power_samples"] == 90
    history = result.learner.jobs[(1, -1, 1024)]
    assert history.summary.n == 90
    assert history.summary.mean == pytest.approx(60e3 / 1024, rel=0.01)
    rate = result.learning_rate
    assert rate["cumulative_known"].iloc[-1] == pytest.approx(2 / 3)


def test_a_running_estimate_that_falls_frees_power_for_a_waiting_job():
    per_rack = 60e3
    jobs = [job(1, 0, 4800, 512, per_rack / 2, user=2, group=7),  # B: 20 samples, then ends
            job(2, 100, 36000, 1024, per_rack, user=1, group=7),  # A: same project
            job(3, 200, 3600, 1024, per_rack, user=3, group=9)]  # C: waits
    setup = config(3072, 170e3, peak=100e3 / 1024, oracle=False)
    result = simulate(jobs, setup)
    # Unknown, A and C are planned at 100 kW a rack: 200 kW > 170.  B's 20
    # samples make project 7 known when B ends (4800); A's 20th sample
    # (grid 480 ... 5040) then agrees with it: A falls to ~62 kW, C starts.
    assert starts(result) == {1: 0, 2: 100, 3: 5040}
    change = result.profile_changes.iloc[0]
    assert (change.time, change.job_id, change.source, change.samples) == (5040, 2, "project", 20)
    assert 60.0 * 1024 < change.watts_per_node * 1024 < 66.0 * 1024


def test_runs_are_reproducible_and_noise_comes_from_the_seed():
    jobs = [job(i, 100 * i, 3000 + 500 * i, 1024 * (1 + i % 2), 60e3 * (1 + i % 2),
                user=i % 3, group=i % 2) for i in range(12)]
    setup = config(4096, 250e3, peak=100e3 / 1024, oracle=False)
    first, again = simulate(jobs, setup, seed=3), simulate(jobs, setup, seed=3)
    pd.testing.assert_frame_equal(first.jobs, again.jobs)
    assert first.learner.jobs.keys() == again.learner.jobs.keys()
    values = lambda r: [h.values for h in r.learner.jobs.values()]  # noqa: E731
    assert values(first) == values(again)
    assert values(simulate(jobs, setup, seed=4)) != values(first)


# -- the cap ------------------------------------------------------------------

def test_with_true_powers_the_cap_holds_at_every_instant_idle_power_included():
    rng = np.random.default_rng(8)
    jobs = [job(i, float(t), float(rng.integers(60, 4000)), int(rng.integers(1, 9)),
                0.0) for i, t in enumerate(np.sort(rng.uniform(0, 20_000, 150)))]
    jobs = [j._replace(jp=j.js * float(rng.uniform(55, 95))) for j in jobs]
    setup = config(16, 1000.0, idle=0.3, peak=100.0)  # idle: 30 W a node, 480 W in all
    result = simulate(jobs, setup)
    assert len(result.jobs) == 150 and result.metrics["deadlock_starts"] == 0
    assert max(result.run.power_watts) <= 1000.0 + 1e-6
    assert max(result.run.power_watts) > 950.0  # the cap binds
    assert result.metrics["capping_success_rate"] == 1.0
    uncapped = simulate(jobs, setup.with_method("uncapped"))
    assert uncapped.metrics["capping_success_rate"] < 1.0


def test_time_varying_cap_starts_jobs_when_it_rises_and_counts_intervals_over_it():
    cap = PowerCapSchedule.of((0, 150), (1000, 350), (2000, 150))
    jobs = [job(1, 0, 3000, 1, 100), job(2, 10, 500, 2, 200),
            job(3, 1600, 1000, 1, 100), job(4, 2100, 100, 1, 100)]
    result = simulate(jobs, config(4, cap))
    assert starts(result) == {1: 0, 2: 1000, 3: 1600, 4: 3000}
    # Lowering the cap at 2000 stops nothing: 200 W run until 2600 over 150.
    metrics = result.metrics
    assert metrics["cap_exceeded_s"] == 600 and metrics["max_excess_w"] == 50
    assert metrics["scheduling_intervals"] == 13  # 3100 s in 4-minute intervals
    assert metrics["intervals_over_cap"] == 3  # [1920, 2160), [2160, 2400), [2400, 2640)
    assert metrics["capping_success_rate"] == pytest.approx(10 / 13)


def test_jobs_over_the_cap_alone_are_rejected_by_default_and_the_cap_holds():
    jobs = [job(1, 0, 1000, 1, 100), job(2, 1, 100, 2, 200), job(3, 2, 100, 2, 200)]
    for method in ("knapsack", "naive"):
        result = simulate(jobs, config(4, 150, method=method, window=WindowConfig(size=2)))
        assert starts(result) == {1: 0}
        assert list(result.rejected["job_id"]) == [2, 3]
        assert set(result.rejected["reason"]) == {"power alone above the cap"}
        assert result.metrics["rejected_jobs"] == 2 and result.metrics["cap_exceeded_s"] == 0
    # Uncapped runs every job.
    assert len(simulate(jobs, config(4, 150, method="uncapped")).rejected) == 0


def test_deadlock_the_first_job_of_a_full_window_runs_over_the_cap_under_the_papers_rule():
    jobs = [job(1, 0, 1000, 1, 100), job(2, 1, 100, 2, 200), job(3, 2, 100, 2, 200)]
    run_first = config(4, 150, window=WindowConfig(size=2), over_cap="run")
    result = simulate(jobs, run_first)
    # J2 alone breaks the cap: it waits until J3 fills the window, then runs;
    # J3 waits for an idle machine.
    assert starts(result) == {1: 0, 2: 2, 3: 1000}
    assert list(result.jobs["deadlock"]) == [False, True, True]
    assert result.metrics["deadlock_starts"] == 2 and result.metrics["cap_exceeded_s"] == 200
    # The alternative: wait for the cap to rise, for ever if it does not.
    wait = replace(run_first, window=WindowConfig(size=2, deadlock="wait"))
    stuck = simulate(jobs, wait)
    assert stuck.unfinished == [2, 3] and stuck.metrics["unfinished_jobs"] == 2
    assert stuck.metrics["capping_success_rate"] == 1.0
    raised = replace(wait, cap=PowerCapSchedule.of((0, 150), (5000, 300)))
    assert starts(simulate(jobs, raised)) == {1: 0, 2: 5000, 3: 5100}


def test_a_job_believed_over_the_cap_alone_waits_for_an_idle_machine_so_the_cap_holds():
    # J2 is unknown: planned at the 100 W peak, 200 W alone > 150.  Its true
    # 120 W fits alone, but not beside J1's 60 W.
    jobs = [job(1, 0, 1000, 1, 60), job(2, 1, 100, 2, 120)]
    holding = config(4, 150, oracle=False, window=WindowConfig(size=1))
    result = simulate(jobs, holding)
    assert starts(result) == {1: 0, 2: 1000} and list(result.jobs["deadlock"]) == [False, True]
    assert result.metrics["cap_exceeded_s"] == 0 and len(result.rejected) == 0
    # The paper's rule runs it at once: 180 W for 100 s.
    paper = simulate(jobs, replace(holding, over_cap="run"))
    assert starts(paper) == {1: 0, 2: 1}
    assert paper.metrics["cap_exceeded_s"] == 100 and paper.metrics["max_excess_w"] == 30


def test_a_knapsack_budgeted_on_measured_power_starts_what_the_estimates_hold_back():
    # Both jobs are unknown, so planned at the 100 W peak; each draws 40 W.
    # By estimates (eq. 2) J1 leaves 150 - 100 = 50 W, too little for J2,
    # which waits for J1's end (4 samples of J1 are under the 20 a new
    # estimate needs); by measured power J1 leaves 150 - 40 = 110 W.
    jobs = [job(1, 0, 1000, 1, 40), job(2, 1, 100, 1, 40)]
    by_estimates = config(4, 150, oracle=False)
    assert starts(simulate(jobs, by_estimates)) == {1: 0, 2: 1000}
    measured = simulate(jobs, replace(by_estimates, window=WindowConfig(budget="measured")))
    assert starts(measured) == {1: 0, 2: 1}
    assert list(measured.jobs["estimate_w"]) == [100, 100]  # still planned by estimates
    assert measured.metrics["cap_exceeded_s"] == 0


def test_an_estimate_below_the_true_power_still_takes_power_over_the_cap():
    # J2 is new; its project is known at 50 W a node, J2 draws 90.  Planned
    # at 100 W beside J1's 100 W it fits the 200 W cap; 280 W run instead.
    # Neither job breaks the cap alone, so neither is rejected.
    jobs = [job(1, 0, 1000, 1, 100), job(2, 10, 500, 2, 180, user=2, group=7)]
    setup = config(4, 200, oracle=False)
    learner = PowerLearner(setup.learner).with_history(jobs[0], [100.0] * 20)
    learner = learner.with_history(job(99, 0, 1, 2, 100, user=99, group=7), [50.0] * 20)
    result = simulate(jobs, setup, learner=learner)
    assert starts(result) == {1: 0, 2: 10} and list(result.jobs["source"]) == ["job", "project"]
    assert result.metrics["max_excess_w"] == 80 and result.metrics["cap_exceeded_s"] == 500
    assert result.metrics["underestimated_starts"] == 1
    assert len(result.rejected) == 0


def test_naive_capping_assumes_peak_power_and_blocks_the_queue():
    jobs = [job(1, 0, 100, 1, 50), job(2, 1, 100, 2, 100), job(3, 2, 10, 1, 50)]
    naive = simulate(jobs, config(4, 220, method="naive"))
    # J2 at peak: 50 W measured + 200 W > 220: held, and J3 behind it.
    assert starts(naive) == {1: 0, 2: 100, 3: 100}
    assert naive.metrics["capping_success_rate"] == 1.0
    # Knowing nothing either, the knapsack passes J2 and runs J3.
    knapsack = simulate(jobs, config(4, 220, oracle=False))
    assert starts(knapsack) == {1: 0, 2: 100, 3: 2}
    assert starts(simulate(jobs, config(4, 220, method="uncapped"))) == {1: 0, 2: 1, 3: 2}
    # Skipping: J2 goes back to the queue alone, J3 (selected with it) runs.
    skip = simulate(jobs, config(4, 220, method="naive", naive="skip"))
    assert starts(skip) == {1: 0, 2: 100, 3: 2}
    # A job that at peak breaks the cap alone (300 W > 220) but truly fits
    # (150 W) runs once nothing else does: the cap holds.  Under the
    # paper's rule it runs at once, and 100 + 150 W break the cap.
    big = [job(1, 0, 100, 1, 100), job(2, 1, 100, 3, 150)]
    holding = simulate(big, config(4, 220, method="naive"))
    assert starts(holding) == {1: 0, 2: 100} and holding.metrics["cap_exceeded_s"] == 0
    assert list(holding.jobs["deadlock"]) == [False, True]
    assert holding.metrics["deadlock_starts"] == 1
    paper = simulate(big, config(4, 220, method="naive", over_cap="run"))
    assert starts(paper) == {1: 0, 2: 1} and paper.metrics["max_excess_w"] == 30


def test_capping_success_rate_by_hand():
    times, watts = [0, 100, 300], [50.0, 200.0, 80.0]
    constant = PowerCapSchedule.constant(150.0)
    assert capping_success_rate(times, watts, 480, constant, 120) == 0.25
    raised = PowerCapSchedule.of((0, 150.0), (240, 250.0))
    details = capping_success_rate(times, watts, 480, raised, 120, details=True)
    assert details["capping_success_rate"] == 0.5
    assert details["cap_exceeded_s"] == 140.0 and details["max_excess_w"] == 50.0
    assert capping_success_rate(times, watts, 480, PowerCapSchedule(), 120) == 1.0


def test_monthly_metrics_by_hand():
    frame = pd.DataFrame({"job_id": [1, 2], "submit": [0.0, 100.0], "start": [0.0, 150.0],
                          "end": [100.0, 250.0], "nodes": [2, 4]})
    months = monthly_metrics(frame, machine_nodes=4, month=200.0)
    assert list(months["jobs"]) == [2, 0]
    assert months["wait_mean_s"][0] == 25.0 and math.isnan(months["wait_mean_s"][1])
    assert list(months["utilization"]) == [(200 + 200) / 800, 200 / 800]


def test_window_is_sticky_and_filled_in_policy_order():
    a, b, c = (Job(i, 0.0, 100.0, n, 100.0) for i, n in ((1, 1), (2, 1), (3, 8)))
    # WFP favours the large job C (same age, same walltime): it enters first.
    window, queue = fill_window((), (a, b, c), 2, "wfp", 50.0, "requested")
    assert window == (c, a) and queue == (b,)
    window, queue = fill_window((a,), (b, c), 2, "fcfs", 50.0, "requested")
    assert window == (a, b) and queue == (c,)
    assert fill_window((a, b), (c,), 2, "wfp", 1e6, "requested") == ((a, b), (c,))


def test_configuration_errors():
    with pytest.raises(ValueError, match="starts at time 0"):
        PowerCapSchedule.of((10, 5.0))
    with pytest.raises(ValueError, match="increase"):
        PowerCapSchedule.of((0, 5.0), (10, 6.0), (10, 7.0))
    with pytest.raises(ValueError, match="positive"):
        PowerCapSchedule.constant(0.0)
    with pytest.raises(ValueError, match="solver"):
        WindowConfig(solver="greedy")
    with pytest.raises(ValueError, match="deadlock"):
        WindowConfig(deadlock="never")
    with pytest.raises(ValueError, match=r"budget must be one of \('estimates', 'measured'\), "
                                         r"not 'peak'"):
        WindowConfig(budget="peak")
    with pytest.raises(ValueError, match="method"):
        DataDrivenConfig(4, method="dvfs")
    with pytest.raises(ValueError, match=r"over_cap must be one of \('reject', 'run'\), "
                                         r"not 'run_alone'"):
        DataDrivenConfig(4, over_cap="run_alone")
    for method in ("knapsack", "naive", "uncapped"):  # each builds and joins compose's ports
        assert build_net(config(4, 100.0, method=method)).substitutions


# -- a real trace against the paper -------------------------------------------

PAPER = {"csr": "> 99 %", "wait_fcfs": "42-188 %", "wait_wfp": "36-177 %",
         "utilization_fcfs": "3-21 %", "utilization_wfp": "8-21 %"}


def curie_jobs(count):
    path = DATA / "CEA-Curie-2011-2.1-cln.swf.gz"
    if not path.exists():
        pytest.skip("no ../shared data")
    from modules.power_profile import assign_rack_power
    from modules.swf import read_swf
    workload = read_swf(path, procs_per_node=16)
    start = 3 * 30 * 86_400.0  # the fourth month: loaded (offered load 0.73)
    jobs = [j._replace(st=j.st - start) for j in workload.jobs if j.st >= start][:count]
    return assign_rack_power(jobs, seed=0), workload.machine_nodes


def test_real_trace_knapsack_against_naive_capping_at_62_5_percent_of_peak():
    jobs, nodes = curie_jobs(3000)
    setup = DataDrivenConfig(nodes)
    setup = replace(setup, cap=PowerCapSchedule.constant(0.625 * setup.peak_watts))
    frame, results = compare(jobs, setup)
    print(f"\nCEA-Curie, first {len(jobs)} jobs of its fourth month, cap 62.5 % of peak, FCFS")
    print(frame[["capping_success_rate", "utilization", "wait_mean_s", "utilization_change",
                 "wait_change", "deadlock_starts"]].to_string())
    print(f"knapsack over naive: wait {frame.attrs['wait_improvement']:+.0%} "
          f"(paper {PAPER['wait_fcfs']}), utilization "
          f"{frame.attrs['utilization_improvement']:+.0%} (paper {PAPER['utilization_fcfs']}); "
          f"capping success rate {frame.loc['knapsack', 'capping_success_rate']:.2%} "
          f"(paper {PAPER['csr']})")
    assert (frame["unfinished_jobs"] == 0).all()
    for result in results.values():
        assert sorted(result.jobs["job_id"]) == sorted(j.id for j in jobs)
    knapsack, naive, uncapped = (frame.loc[m] for m in ("knapsack", "naive", "uncapped"))
    assert uncapped.capping_success_rate < 0.99  # the cap binds
    assert knapsack.capping_success_rate > 0.99 and naive.capping_success_rate > 0.99
    assert knapsack.utilization > naive.utilization
    assert knapsack.wait_mean_s < naive.wait_mean_s
    assert results["knapsack"].metrics["learning_rate"] > 0.5


def test_a_cap_place_in_an_allocation_module_of_ones_own_needs_no_trigger_of_its_own():
    """``allocation_ports`` gives no *Trigger*; ``add_power_cap`` needed one
    ("arc Trigger -> ChangeCap ...: no place or transition named 'Trigger'")."""
    from cpn import Net
    from modules.allocation import allocation_ports
    from modules.batch_scheduling import TRIGGER_FUSION
    from modules.power_cap_schedule import add_power_cap
    from nets.puppet import PuppetConfig, build_net as puppet_net

    module = Net("OwnAllocation")
    allocation_ports(module)
    add_power_cap(module, PowerCapSchedule.of((0, 300.0), (50, 200.0)))
    assert module.places["Trigger"].fusion == TRIGGER_FUSION
    puppet_net(PuppetConfig(4, 100.0)).replace_module("Allocation", module)  # a valid net
