"""The PuPPET net: hand-checked schedules, invariants, and agreement with
the independent reference scheduler (tests/reference_easy.py)."""

import itertools
import random
import re
from pathlib import Path

import numpy as np
import pytest
from peak_memory import traced_peak

import reference_easy
from cpn import NetError
from modules.batch_scheduling import SchedulingConfig
from modules.job import Job
from modules.power_steps import energy_exact
from modules.power_capping import PowerCap
from nets.puppet import PuppetConfig, build_net, simulate
from nets.puppet_results import job_records

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "swf"


def run(jobs, nodes, **scheduling):
    config = PuppetConfig(nodes, node_watts=100.0, scheduling=SchedulingConfig(**scheduling))
    return simulate(jobs, config)


def starts(result):
    return dict(zip(result.jobs["job_id"], result.jobs["start"]))


def issue_case(runtime_of_job_3):
    return [Job(1, 0, 100, 3, 100), Job(2, 1, 100, 4, 100),
            Job(3, 2, runtime_of_job_3, 1, 1000)]


@pytest.mark.parametrize("trigger", ["event", "timestamp"])
@pytest.mark.parametrize("estimate", ["requested", "actual"])
def test_a_long_backfill_candidate_does_not_delay_the_head(trigger, estimate):
    result = run(issue_case(1000), 4, estimate=estimate, trigger=trigger)
    assert starts(result) == {1: 0.0, 2: 100.0, 3: 200.0}


def test_actual_estimates_backfill_a_short_job_requested_ones_do_not():
    assert starts(run(issue_case(50), 4, estimate="actual")) == {1: 0, 2: 100, 3: 2}
    assert starts(run(issue_case(50), 4, estimate="requested")) == {1: 0, 2: 100, 3: 200}


def test_shadow_time_tie_counts_every_job_ending_then():
    # 4 nodes; jobs 1-3 take one node each at t=0; the head (job 4, 3 nodes)
    # waits. Job 3 runs to 500, so at the shadow time 100 only jobs 1 and 2
    # end: 1 + 2 = 3 nodes, no extra, and job 5 (1 node, 1000 s) must wait.
    jobs = [Job(1, 0, 100, 1, 100), Job(2, 0, 100, 1, 100), Job(3, 0, 500, 1, 500),
            Job(4, 1, 100, 3, 100), Job(5, 2, 1000, 1, 1000)]
    assert starts(run(jobs, 4)) == {1: 0, 2: 0, 3: 0, 4: 100, 5: 200}
    # When job 3 also ends at 100, the head's need is met by the second job
    # ending then, but the third one ending at that instant counts too: one
    # extra node, which job 5 may use now however long it runs.
    jobs[2] = Job(3, 0, 100, 1, 100)
    assert starts(run(jobs, 4)) == {1: 0, 2: 0, 3: 0, 4: 100, 5: 2}


def test_wfp_prefers_large_old_jobs():
    # At t=100 (job 1 ends): scores js*(wait/wt)^3: job 2: 1*(99/100)^3, job 3: 4*(98/100)^3.
    jobs = [Job(1, 0, 100, 4, 100), Job(2, 1, 100, 1, 100), Job(3, 2, 100, 4, 100)]
    assert starts(run(jobs, 4, policy="wfp", backfill=False)) == {1: 0, 3: 100, 2: 200}
    assert starts(run(jobs, 4, policy="fcfs", backfill=False)) == {1: 0, 2: 100, 3: 200}


def test_energy_is_the_integral_of_power_and_matches_the_jobs():
    jobs = [Job(1, 0, 100, 2, 100, jp=500.0), Job(2, 50, 100, 4, 100, jp=1000.0)]
    result = simulate(jobs, PuppetConfig(4, node_watts=200.0, idle_fraction=0.25))
    # An idle node draws 50 W.  Job 2 needs all 4 nodes: it waits for job 1.
    # [0, 100): job 1 (500 W) + 2 idle nodes (100 W); [100, 200): job 2 alone.
    assert starts(result) == {1: 0, 2: 100}
    expected = (500 + 100) * 100 + 1000 * 100
    assert result.metrics["energy_j"] == pytest.approx(expected)
    assert energy_exact(result.power_times, result.power_watts, result.end) == pytest.approx(expected)


def test_a_window_whose_jobs_queued_before_it_spans_the_run_not_their_queueing():
    """A log's window (Mira's) starts with jobs queued long before the
    clock's zero: their waits count from their submit, but the makespan,
    like the energy, spans the run (from 0): a job queued an hour early
    made it 3,700 s and utilization 2 %."""
    jobs = [Job(1, -3600, 100, 2, 200, jp=200.0), Job(2, 0, 50, 2, 100, jp=200.0)]
    result = simulate(jobs, PuppetConfig(4, node_watts=100.0, idle_fraction=0.0))
    assert starts(result) == {1: 0, 2: 0}
    metrics = result.metrics
    assert metrics["makespan_s"] == 100.0 and metrics["series_start_s"] == 0.0
    assert metrics["utilization"] == pytest.approx((2 * 100 + 2 * 50) / (4 * 100))
    assert metrics["wait_mean_s"] == 1800.0
    assert metrics["energy_j"] == 400 * 50 + 200 * 50
    assert metrics["edp_j_s"] == metrics["energy_j"] * 100.0


def test_fixed_step_estimates_sample_the_power_place():
    jobs = [Job(1, 30, 60, 4, 60, jp=1000.0)]
    result = simulate(jobs, PuppetConfig(4, node_watts=100.0, idle_fraction=0.0),
                      energy_steps=[60, 45])
    # power 1000 W on [30, 90); samples at 0 and 60 (step 60) -> one hit;
    # samples at 0, 45 (step 45) -> one hit of 45 s.
    assert result.energy_step == {60: 60_000.0, 45: 45_000.0}
    assert result.metrics["energy_j"] == 60_000.0


def test_times_are_reported_as_in_the_trace():
    jobs = [Job(1, 0, 10, 1, 10)]
    result = simulate(jobs, PuppetConfig(1), time_offset=1_000_000)
    row = result.jobs.iloc[0]
    assert (row.submit, row.start, row.end) == (1_000_000, 1_000_000, 1_000_010)


def test_jobs_larger_than_the_machine_are_refused_loudly():
    with pytest.raises(ValueError, match=re.escape(
            "job 1: js must be a whole number of nodes within [0, 4], not 5")):
        simulate([Job(1, 0, 10, 5, 10)], PuppetConfig(4))


def test_a_capped_run_reports_how_long_and_how_far_it_broke_the_cap():
    # the README and power_capping.py said the run's metrics report it under
    # over_cap="run_alone"; only the studies' records did
    from modules.power_capping import PowerCap
    jobs = [Job(1, 0, 100, 2, 100, 200.0), Job(2, 1, 100, 4, 100, 400.0)]
    alone = simulate(jobs, PuppetConfig(4, node_watts=100, cap=PowerCap.block(300),
                                        over_cap="run_alone"))
    # job 2 (400 W) runs alone from 100 to 200, 100 W over the 300 W cap
    assert (alone.metrics["cap_exceeded_s"], alone.metrics["cap_excess_max_w"]) == (100, 100)
    held = simulate(jobs[:1], PuppetConfig(4, node_watts=100, cap=PowerCap.block(300)))
    assert (held.metrics["cap_exceeded_s"], held.metrics["cap_excess_max_w"]) == (0, 0)
    assert "cap_exceeded_s" not in simulate(jobs, PuppetConfig(4)).metrics  # no cap


def test_a_cap_that_every_job_breaks_alone_is_refused_not_run_as_nothing():
    # The run "succeeded" with rejected_jobs=2 and no other metric
    from modules.power_capping import PowerCap
    jobs = [Job(1, 0, 100, 2, 100, 200.0), Job(2, 1, 100, 4, 100, 400.0)]
    with pytest.raises(ValueError, match=re.escape(
            "every one of the 2 jobs draws more than the power cap of 50 W alone (the idle "
            "machine draws 120 W): nothing would run")):
        simulate(jobs, PuppetConfig(4, node_watts=100, cap=PowerCap.block(50)))


@pytest.mark.parametrize("settings, refused", [
    ({"cap": 300}, "cap must be a PowerCap (BLOCK, WAIT) or a CpuScaling (DVFS), not 300"),
    ({"scheduling": "wfp"}, "scheduling must be a SchedulingConfig, not 'wfp'"),
])
def test_a_cap_or_scheduling_of_the_wrong_kind_is_refused_where_it_is_given(settings, refused):
    # it failed at the run, with an AttributeError from deep inside
    with pytest.raises(ValueError, match=re.escape(refused)):
        PuppetConfig(4, **settings)


@pytest.mark.parametrize("settings, refused", [
    ({"cap_watts": "300"}, "the power cap must be positive watts, not '300'"),
    ({"cap_watts": 300, "wait_queue_length": 2.5},
     "the wait queue length l must be a whole number >= 0, not 2.5"),
    ({"cap_watts": 300, "wait_queue_length": True},
     "the wait queue length l must be a whole number >= 0, not True"),
])
def test_a_power_cap_of_no_number_is_refused(settings, refused):
    from modules.power_capping import PowerCap
    with pytest.raises(ValueError, match=re.escape(refused)):
        PowerCap(**settings)


def test_jobs_of_numpy_numbers_run_as_jobs_of_python_numbers():
    # A DataFrame's rows give np.int64 sizes and np.float32 times: refused
    # as "not a whole number of nodes, not np.int64(2)"
    import numpy as np
    plain = simulate([Job(1, 0, 100.5, 2, 200.0, 200.0)], PuppetConfig(4))
    typed = simulate([Job(np.int64(1), np.float64(0), np.float32(100.5), np.int64(2),
                          np.float32(200), np.float64(200))], PuppetConfig(4))
    assert typed.jobs.equals(plain.jobs) and typed.metrics == plain.metrics


@pytest.mark.parametrize("settings, refused", [
    ({"machine_nodes": "4"}, "machine size must be a positive whole number of nodes, not '4'"),
    ({"machine_nodes": 4.5}, "machine size must be a positive whole number of nodes, not 4.5"),
    ({"machine_nodes": True}, "machine size must be a positive whole number of nodes, not True"),
    ({"machine_nodes": 4, "node_watts": "100"}, "node_watts must be a number, not '100'"),
])
def test_a_machine_of_no_whole_size_or_no_number_of_watts_is_refused(settings, refused):
    # a string compared with 0 raised a TypeError; 4.5 nodes ran
    with pytest.raises(ValueError, match=re.escape(refused)):
        PuppetConfig(**settings)


@pytest.mark.parametrize("jobs, refused", [
    ([Job(1, 0, 100, -2, 200)], "job 1: js must be a whole number of nodes within [0, 4], "
                                "not -2"),  # utilization -0.5
    ([Job(1, 0, 100, 2, 200, -1000.0)], "job 1: jp must be a finite number >= 0, not -1000.0"),
    ([Job(1, 0, float("nan"), 2, 200)], "job 1: rt must be a finite number >= 0, not nan"),
    ([Job(1, 0, 100, 2.5, 200)], "job 1: js must be a whole number of nodes"),
    ([Job(1, 0, 100, 2, "200")], "job 1: wt must be a finite number >= 0, not '200'"),
    ([Job(1, 0, 100, 2, 200), Job(1, 5, 100, 2, 200)], "job ids must be unique: 1 is given "
                                                       "twice"),  # two rows of job 1
    ([(1, 0, 100, 2, 200)], "jobs must be Job records (modules.job.Job), not tuple"),
    # None ran, then failed as the results were sorted; 1.5 ran
    ([Job(None, 0, 100, 2, 200)], "job ids must be whole numbers, not None"),
    ([Job(1, 0, 100, 2, 200), Job(1.5, 0, 100, 2, 200)], "job ids must be whole numbers, "
                                                          "not 1.5"),
    # WFP divided by it during the run
    ([Job(1, 0, 100, 2, 0)], "job 1: wt (the requested walltime) must be > 0 for a job "
                             "that runs, not 0"),
])
def test_jobs_the_python_api_is_given_are_checked(jobs, refused):
    with pytest.raises(ValueError, match=re.escape(refused)):
        simulate(jobs, PuppetConfig(4))


def test_numpy_job_ids_become_python_ints():
    import numpy as np
    result = simulate([Job(np.int64(7), 0, 100, 2, 200)], PuppetConfig(4))
    assert list(result.jobs["job_id"]) == [7]


def test_jobs_may_come_from_a_generator():
    # The size check used the generator up: an empty result, marked complete.
    jobs = [Job(1, 0, 100, 2, 200, 100.0), Job(2, 10, 50, 4, 100, 200.0)]
    result = simulate((job for job in jobs), PuppetConfig(4))
    assert result.metrics["jobs"] == 2 and list(result.jobs["job_id"]) == [1, 2]


def test_bad_configuration_is_refused():
    with pytest.raises(ValueError, match="policy must be one of"):
        SchedulingConfig(policy="sjf")
    with pytest.raises(ValueError, match="idle fraction"):
        PuppetConfig(4, idle_fraction=1.5)
    # The machine's power overflowed to infinity, found only when the run's
    # energy was summed at its end.
    with pytest.raises(ValueError, match="node_watts 1e\\+308 on 16 nodes is no finite power"):
        PuppetConfig(16, node_watts=1e308)


def test_the_net_is_hierarchical_with_paths():
    sim_net = build_net(PuppetConfig(8)).flatten()
    paths = {t.path for t in sim_net.transitions}
    assert paths == {"Scheduler/Submit", "Scheduler/Schedule", "Allocation/Allocate", "Finish"}
    capped = build_net(PuppetConfig(8, cap=PowerCap(1000.0))).flatten()
    assert {t.path for t in capped.transitions} - paths == {
        "Allocation/Wait", "Allocation/Hold", "Allocation/AllocateW"}
    assert {"Queuing", "Running", "Power", "RuntimeInfo", "Nodes"} <= {p.path for p in sim_net.places}


def random_jobs(seed, n=300, nodes=16):
    draw = np.random.default_rng(seed)
    t, jobs = 0, []
    for i in range(n):
        t += int(draw.integers(0, 30))
        rt = int(draw.integers(1, 300))
        jobs.append(Job(i, float(t), float(rt), int(draw.integers(1, nodes + 1)),
                        float(rt + draw.integers(0, 300))))
    return jobs


CONFIGS = list(itertools.product(["fcfs", "wfp"], ["requested", "actual"], [True, False],
                                 ["event", "timestamp"]))


@pytest.mark.parametrize("policy, estimate, backfill, trigger", CONFIGS)
def test_same_starts_as_the_reference_on_contended_random_workloads(policy, estimate,
                                                                     backfill, trigger):
    for seed in range(3):
        jobs = random_jobs(seed)
        ours = starts(run(jobs, 16, policy=policy, estimate=estimate, backfill=backfill,
                          trigger=trigger))
        reference = reference_easy.simulate(jobs, 16, policy, estimate, backfill, trigger)
        assert ours == reference


def check_invariants(jobs, result, nodes):
    frame = result.jobs
    by_id = {job.id: job for job in jobs}
    assert sorted(frame["job_id"]) == sorted(by_id)  # every job ran, exactly once
    assert (frame["start"] >= frame["submit"]).all()
    assert np.allclose(frame["end"] - frame["start"], [by_id[i].rt for i in frame["job_id"]])
    events = sorted([(s, n) for s, n in zip(frame["start"], frame["nodes"])]
                    + [(e, -n) for e, n in zip(frame["end"], frame["nodes"])],
                    key=lambda event: (event[0], event[1]))
    busy = 0
    for _, change in events:
        busy += change
        assert 0 <= busy <= nodes


def trace(name, **options):
    path = DATA / name
    if not path.exists():
        pytest.skip(f"{path} is not here (no ../shared)")
    from modules.swf import read_swf
    return read_swf(path, **options)


@pytest.mark.parametrize("policy", ["fcfs", "wfp"])
@pytest.mark.parametrize("estimate", ["requested", "actual"])
def test_real_trace_matches_the_reference_and_keeps_invariants(policy, estimate):
    workload = trace("LLNL-Atlas-2006-2.1-cln.swf", procs_per_node=8)
    jobs = workload.jobs[:8000]
    result = run(jobs, workload.machine_nodes, policy=policy, estimate=estimate)
    check_invariants(jobs, result, workload.machine_nodes)
    reference = reference_easy.simulate(jobs, workload.machine_nodes, policy, estimate)
    assert starts(result) == reference


def test_real_trace_with_unlimited_nodes_has_no_wait():
    workload = trace("NASA-iPSC-1993-3.1-cln.swf")
    jobs = workload.jobs[:3000]
    result = run(jobs, sum(job.js for job in jobs))
    assert (result.jobs["start"] == result.jobs["submit"]).all()


def test_fcfs_without_backfilling_never_starts_out_of_order():
    workload = trace("NASA-iPSC-1993-3.1-cln.swf")
    jobs = workload.jobs[:5000]
    result = run(jobs, workload.machine_nodes, backfill=False)
    ordered = result.jobs.sort_values(["submit", "job_id"])
    assert ordered["start"].is_monotonic_increasing
    check_invariants(jobs, result, workload.machine_nodes)


def test_a_net_error_names_the_place():
    with pytest.raises(NetError, match="unknown place 'Nowhere'"):
        from cpn import Simulator
        Simulator(build_net(PuppetConfig(4)), marking={"Nowhere": []})


def test_a_job_entering_a_place_is_the_job_with_that_time_and_nothing_else_changed():
    job = Job(1, 0.0, 5.0, 2, 6.0, 3.0, et=1.0, pf=0.8, user=4, version=2)
    assert job.entered(7.5) == job._replace(et=7.5) and type(job.entered(7.5)) is Job


def test_job_records_in_id_order_within_little_more_memory_than_the_table():
    """The per-job table is built at the end of a run, when the run's memory
    peaks: its eight 8-byte columns take 64 B a job, and building it may
    take at most 48 B a job more (a column's values, its array and the
    sort order at once), not the copies of a list per column and of a
    sorted frame (216 B a job before)."""
    count = 50_000
    ids = list(range(1, count + 1))
    random.Random(1).shuffle(ids)
    finished = [(Job(i, float(i), 100.0, 1 + i % 64, 200.0, 5.0 * i, et=i + 3.0), i + 103.0)
                for i in ids]
    job_records(finished[:1], 10.0)  # imports pandas: run alone, the test counted its import
    records, peak = traced_peak(lambda: job_records(finished, 10.0))
    assert peak / count <= 64 + 48
    assert records["job_id"].tolist() == list(range(1, count + 1))
    row = records.iloc[6].to_dict()
    assert row == {"job_id": 7, "submit": 17.0, "start": 20.0, "end": 120.0, "nodes": 8,
                   "power": 35.0, "requested": 200.0, "runtime": 100.0}


@pytest.mark.parametrize("alpha", [float("nan"), float("inf")])
def test_an_alpha_of_no_finite_number_is_refused(alpha):
    # nan ran DVFS as "every job draws more than the power cap alone"; inf ran
    with pytest.raises(ValueError, match=f"alpha must be positive and finite, not {alpha}"):
        PuppetConfig(4, alpha=alpha)


@pytest.mark.parametrize("backfill", ["no", "false", None, 0])
def test_a_backfill_of_no_bool_is_refused(backfill):
    # "no" is true in Python: it backfilled
    with pytest.raises(ValueError, match=re.escape(
            f"scheduling backfill must be True or False, not {backfill!r}")):
        SchedulingConfig(backfill=backfill)
    assert SchedulingConfig(backfill=np.False_).backfill is False  # a DataFrame's cell


def test_a_machine_size_of_numpy_runs_as_a_python_int():
    # a ColourError from the net: "place 'Nodes': initial token np.int64(4) is not of colour int"
    config = PuppetConfig(np.int64(4))
    assert type(config.machine_nodes) is int
    assert simulate([Job(1, 0, 100, 2, 200, 100.0)], config).metrics["complete"]


@pytest.mark.parametrize("options, refused", [
    (dict(energy_steps=[0]), "energy_steps must be positive finite seconds, not 0"),
    (dict(energy_steps=["60"]), "energy_steps must be positive finite seconds, not '60'"),
    (dict(time_offset=float("nan")), "time_offset must be finite seconds, not nan"),
    (dict(time_offset=None), "time_offset must be finite seconds, not None"),
    (dict(chunk=float("nan")), "chunk must be positive seconds, not nan"),
    (dict(chunk=0), "chunk must be positive seconds, not 0"),
    (dict(progress=5), "progress must be a function or None, not 5"),
    (dict(stop=5), "stop must be a function or None, not 5"),
])
def test_run_options_are_checked_before_the_run(options, refused):
    # a step of 0 or an offset of nan failed once the whole run was done, deep inside
    with pytest.raises(ValueError, match=re.escape(refused)):
        simulate([Job(1, 0, 100, 2, 200, 100.0)], PuppetConfig(4), **options)


def test_a_config_of_the_wrong_kind_is_refused_by_simulate():
    jobs = [Job(1, 0, 100, 2, 200, 100.0)]
    with pytest.raises(ValueError, match="config must be a PuppetConfig, not list"):
        simulate(PuppetConfig(4), jobs)  # the arguments swapped: an AttributeError
    assert simulate(jobs, PuppetConfig(4), energy_steps=60).metrics["energy_step_60s_j"] > 0
