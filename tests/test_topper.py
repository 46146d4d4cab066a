"""TOPPER: resilience formulas by hand, scripted failures, replication
against Monte Carlo, simulated failures against Daly's expected time,
reduction to PuPPET, invariants on a real trace."""

import math
import re
import warnings
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from cpn.monitors import FiringLog
from modules.job import Job
from modules.resilience import (FaultTolerance, checkpoint_overhead, daly_interval,
                                expected_stretch, replica_counts, replicated_failure_rate,
                                replicated_survival, replication_overhead)
from nets.puppet import PuppetConfig
from nets.puppet import simulate as puppet_simulate
from nets.topper import TopperConfig, build_net, simulate

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "swf"


def test_daly_interval_by_hand():
    # O_c = 600 s, lambda = 5e-5 /s: x = 0.015,
    # sqrt(2 * 600 / 5e-5) = 4898.979..., bracket 1 + sqrt(x)/3 + x/9 = 1.0424916...
    assert daly_interval(600, 5e-5) == pytest.approx(4898.9795 * 1.0424916 - 600, rel=1e-6)
    assert daly_interval(600, 0) == math.inf
    assert daly_interval(3000, 1 / 1000) == 1000  # O_c >= 2M: the interval is M


def test_checkpoint_and_replication_overheads_by_hand():
    assert checkpoint_overhead(10_000, 2_000, 600) == 3_000  # eq. 3: 5 checkpoints
    assert checkpoint_overhead(10_000, math.inf, 600) == 0
    # eq. 4: 3,000 + 10,000 * 0.3 * (2 - 1)
    assert replication_overhead(10_000, 2_000, 600, 2, 0.3) == 6_000


def test_replica_counts_partial_replication():
    assert replica_counts(4, 1.5) == [2, 2, 1, 1]
    assert replica_counts(4, 2.5) == [3, 3, 2, 2]
    assert replica_counts(3, 1.0) == [1, 1, 1]


def test_replicated_failure_rate_against_monte_carlo():
    draw = np.random.default_rng(7)
    replicas, rate, horizon, samples = [2, 2, 1, 1], 1 / 1000, 500.0, 200_000
    lifetimes = draw.exponential(1 / rate, size=(samples, sum(replicas)))
    dead = lifetimes <= horizon
    groups = np.split(dead, np.cumsum(replicas)[:-1], axis=1)
    failed = np.any([group.all(axis=1) for group in groups], axis=0)
    estimate = 1 - failed.mean()
    sigma = math.sqrt(estimate * (1 - estimate) / samples)
    assert abs(replicated_survival(horizon, rate, replicas) - estimate) < 4 * sigma
    # Without replication the rate is the sum of the units' rates.
    assert replicated_failure_rate(horizon, rate, [1, 1, 1]) == pytest.approx(3 * rate)
    # Over a short run (lambda t = 0.05), double replication of 3 processes
    # fails about 20 times less often than 3 plain units.
    assert replicated_failure_rate(50.0, rate, [2, 2, 2]) < 3 * rate / 10


def test_expected_stretch_by_hand():
    # Without checkpoints a job of M seconds restarts from its beginning at
    # each failure: M (e - 1) in all, the classic result.
    assert expected_stretch(1 / 1000, math.inf, 0, 0, 1000) == pytest.approx(math.e - 1)
    # Free checkpoints lose nothing: only the recoveries, each begun again
    # when a failure interrupts it.
    assert expected_stretch(1 / 1000, 0, 0, 780, 100) == pytest.approx(math.exp(0.78))
    # A unit MTTF of 0.1 day on 48 racks (M = 180 s, tau = M) against a 1,200 s
    # checkpoint and a 780 s recovery: e^(780/180) (e^(1380/180) - 1).
    assert expected_stretch(1 / 180, 180, 1200, 780, 3600) == pytest.approx(
        math.exp(780 / 180) * math.expm1(1380 / 180))
    assert expected_stretch(1 / 36, 36, 1200, 780, 3600) > 1e24
    assert expected_stretch(1 / 1e-3, 1e-3, 1e6, 0, 1) == math.inf  # no overflow
    assert expected_stretch(0, math.inf, 600, 780, 3600) == 1.0  # never fails


def test_the_simulated_failures_take_as_long_as_dalys_expected_time():
    """Daly's expected time of a run (k segments of tau + delta, each begun
    again from its checkpoint after a failure and a recovery that a failure
    begins again too) is exact for the module's model, an independent
    reference for it.  400 jobs run one after another on one node: each
    one's time from start to end is a sample (failures are memoryless).
    The tolerance is four standard errors of the sample mean."""
    mttf, settings = 7200.0, FaultTolerance(unit_nodes=1, unit_mttf=7200.0)
    tau = daly_interval(settings.checkpoint_small, 1 / mttf)
    work = 4 * tau
    jobs = [Job(i, 0, work, 1, work) for i in range(1, 401)]
    result = simulate(jobs, TopperConfig(PuppetConfig(1, node_watts=100), settings), seed=3)
    took = (result.jobs["end"] - result.jobs["start"]).to_numpy()
    expected = work * expected_stretch(1 / mttf, tau, settings.checkpoint_small,
                                       settings.recovery, work)
    assert expected == pytest.approx(4 * mttf * math.exp(780 / mttf)
                                     * math.expm1((tau + 600) / mttf))
    assert abs(took.mean() - expected) < 4 * took.std(ddof=1) / math.sqrt(len(took))
    assert took.mean() / work > 1.5  # failures matter here: about 1.73 times the work


def test_a_run_whose_jobs_would_take_ages_under_its_failures_is_warned_of():
    from nets.topper import SlowRunWarning

    job = Job(1, 0, 3600, 1024, 3600)
    config = TopperConfig(PuppetConfig(1024, node_watts=100),
                          FaultTolerance(unit_mttf=180.0))  # against a 600 s checkpoint
    with pytest.warns(SlowRunWarning, match=r"job 1 \(1,024 nodes, 1.00 h of work\) is "
                                            r"expected to take [\d,]+ times as long"):
        build_net([job], config)
    with warnings.catch_warnings():
        warnings.simplefilter("error", SlowRunWarning)
        build_net([job], replace(config, resilience=FaultTolerance(unit_mttf=30 * 86400.0)))
        build_net([job], replace(config, failure_trace={0: [100.0]}))  # no rate to judge


def one_rack(runtime, mttf, failures, **settings):
    job = Job(1, 0, runtime, 1024, runtime)
    config = TopperConfig(PuppetConfig(1024, node_watts=100, idle_fraction=0),
                          FaultTolerance(unit_mttf=mttf, **settings),
                          failure_trace={0: failures})
    return simulate([job], config)


def test_a_failure_before_any_checkpoint_loses_everything_and_pays_recovery():
    result = one_rack(10_000, 1e6, [5_000])
    interval = daly_interval(600, 1e-6)  # ~34,242 s: longer than the job
    end = 5_000 + 780 + 10_000 + 10_000 / interval * 600
    assert result.jobs["end"][0] == pytest.approx(end)
    assert result.metrics["failures"] == 1
    assert result.metrics["lost_node_hours"] == pytest.approx(5_000 * 1024 / 3600)


def test_a_failure_loses_only_the_work_since_the_last_checkpoint():
    result = one_rack(20_000, 20_000, [12_000])
    interval = daly_interval(600, 1 / 20_000)  # 4,507.15 s
    period = interval + 600
    saved = 2 * interval  # two checkpoints done by 12,000 s
    lost = 12_000 - 2 * period
    left = 20_000 - saved
    end = 12_000 + 780 + left + left / interval * 600
    assert result.jobs["end"][0] == pytest.approx(end)
    assert result.metrics["lost_node_hours"] == pytest.approx(lost * 1024 / 3600)
    assert result.jobs["start"][0] == 0


def test_free_checkpoints_are_taken_continuously_and_lose_nothing():
    # O_c = 0: Daly's interval is 0, the run is not stretched, and a
    # failure loses no work: only the recovery is paid.
    assert daly_interval(0, 1e-6) == 0
    assert checkpoint_overhead(10_000, 0, 0) == 0
    result = one_rack(10_000, 1e6, [5_000], checkpoint_scale=0)
    assert result.jobs["requested"][0] == 10_000
    assert result.jobs["end"][0] == 5_000 + 780 + 5_000
    assert result.metrics["failures"] == 1
    assert result.metrics["lost_node_hours"] == 0


def test_a_job_that_outlives_its_units_many_times_has_a_finite_failure_rate():
    # exp(-lambda t) underflows next to 1 (survival 0): the rate was
    # infinite, Daly's interval 0, and planning divided by zero.
    assert replicated_failure_rate(1e8, 1e-5, [1, 1]) == pytest.approx(2e-5)
    # the replicated process survives twice as likely: ln 2 less over the run
    assert replicated_failure_rate(1e8, 1e-5, [2, 1]) == pytest.approx(2e-5 - math.log(2) / 1e8)
    near = replicated_failure_rate(1e6, 1e-5, [2, 1])  # survival still representable
    assert replicated_failure_rate(1.0001e6, 1e-5, [2, 1]) == pytest.approx(near, rel=1e-3)
    result = one_rack(50_000, 1_000, [10_000])
    assert result.metrics["failures"] == 1
    assert math.isfinite(result.jobs["end"][0])


def test_without_failures_topper_is_puppet():
    draw = np.random.default_rng(3)
    jobs, t = [], 0.0
    for i in range(200):
        t += float(draw.integers(0, 3000))
        nodes = int(draw.integers(1, 5)) * 1024
        runtime = float(draw.integers(600, 30_000))
        jobs.append(Job(i, t, runtime, nodes, runtime * 1.5, jp=nodes * 60.0))
    machine = PuppetConfig(8192, node_watts=60)
    plain = puppet_simulate(jobs, machine)
    resilient = simulate(jobs, TopperConfig(machine, FaultTolerance(unit_mttf=math.inf)))
    assert list(resilient.jobs["start"]) == list(plain.jobs["start"])
    assert list(resilient.jobs["end"]) == list(plain.jobs["end"])
    assert resilient.metrics["energy_j"] == plain.metrics["energy_j"]
    assert resilient.metrics["failures"] == 0


def test_replication_occupies_r_times_the_units_and_stretches_the_run():
    job = Job(1, 0, 1000, 2048, 1000, jp=2048 * 50.0)
    config = TopperConfig(PuppetConfig(4096, node_watts=50, idle_fraction=0),
                          FaultTolerance(unit_mttf=math.inf, method="replication",
                                         redundancy=2, communication=0.3))
    result = simulate([job], config)
    assert result.jobs["nodes"][0] == 4096
    assert result.jobs["end"][0] == pytest.approx(1000 * 1.3)
    assert result.metrics["system_efficiency"] == pytest.approx(2048 * 1000 / (4096 * 1300))
    # a job too large for two replicas gets those that fit: none here
    whole = simulate([job._replace(js=4096, jp=4096 * 50.0)], config)
    assert whole.jobs["nodes"][0] == 4096 and whole.jobs["end"][0] == 1000
    assert (result.metrics["partially_replicated_jobs"],
            whole.metrics["partially_replicated_jobs"]) == (0, 1)  # and says so
    with pytest.raises(ValueError, match="once rounded to 1024-node units"):
        simulate([job._replace(js=4097)], config)


def test_bad_settings_are_refused():
    with pytest.raises(ValueError, match="method must be"):
        FaultTolerance(method="prayer")
    with pytest.raises(ValueError, match="not a whole number of 1024-node units"):
        TopperConfig(PuppetConfig(1000), FaultTolerance())


def test_a_failure_trace_that_could_never_be_felt_is_refused_or_warned_of():
    machine = PuppetConfig(4096, node_watts=60)  # four 1024-node units
    with pytest.raises(ValueError, match=r"names 1 units .* \(0 to 3\) do not include; "
                                         r"first: \[4\]"):
        TopperConfig(machine, FaultTolerance(), failure_trace={0: [10.0], 4: [20.0]})
    with pytest.raises(ValueError, match="unit 1 fails at nan, which is not a time"):
        TopperConfig(machine, FaultTolerance(), failure_trace={1: [float("nan")]})
    with pytest.raises(ValueError, match="unit 1 fails at '5'"):
        TopperConfig(machine, FaultTolerance(), failure_trace={1: ["5"]})
    with pytest.warns(UserWarning, match="2 failures of the failure trace are before time 0"):
        config = TopperConfig(machine, FaultTolerance(),
                              failure_trace={0: [-5.0, 100.0], 3: [-1.0]})
    # felt as if absent: the job on unit 0 fails at 100 s and only then
    job = Job(1, 0, 1000, 1024, 2000, jp=1024 * 50.0)
    assert simulate([job], config).metrics["failures"] == 1


def test_a_job_of_no_nodes_takes_no_unit_and_never_fails():
    # a bare ZeroDivisionError while planning (its power per node)
    config = TopperConfig(PuppetConfig(4, node_watts=100),
                          FaultTolerance(unit_nodes=1, unit_mttf=1000.0))
    result = simulate([Job(1, 0, 0, 0, 0, 0.0), Job(2, 0, 100, 2, 150, 200.0)], config)
    assert list(result.jobs["nodes"]) == [0, 2] and result.jobs["end"][0] == 0
    with pytest.raises(ValueError, match=r"unit 0 fails at 5.0: give its failure times as a "
                                         r"list, e.g. \[5.0\]"):
        TopperConfig(config.puppet, config.resilience, failure_trace={0: 5.0})


def test_real_trace_invariants_under_failures():
    path = DATA / "LLNL-Atlas-2006-2.1-cln.swf"
    if not path.exists():
        pytest.skip("no ../shared data")
    from modules.power_profile import assign_rack_power
    from modules.swf import read_swf
    workload = read_swf(path, procs_per_node=8)  # 1,152 nodes
    jobs = assign_rack_power(workload.jobs[:2000], seed=2)
    settings = FaultTolerance(unit_nodes=8, unit_mttf=20 * 86400)
    config = TopperConfig(PuppetConfig(workload.machine_nodes), settings)
    log = FiringLog("FaultTolerance/Assign", "FaultTolerance/Done",
                    fields={"id": lambda v: v.get("job", v.get("execution") and
                                                   v["execution"].job).id})
    result = simulate(jobs, config, monitors=[log])
    frame = result.jobs
    assert sorted(frame["job_id"]) == sorted(job.id for job in jobs)  # each exactly once
    assert result.metrics["failures"] > 0
    useful = sum(job.js * job.rt for job in jobs)
    span = result.metrics["makespan_s"] * workload.machine_nodes
    assert result.metrics["system_efficiency"] == pytest.approx(useful / span)
    runtime = dict(zip(frame["job_id"], frame["end"] - frame["start"]))
    assert all(runtime[job.id] >= job.rt - 1e-6 for job in jobs)


def contended_jobs(count=150, seed=5):
    draw = np.random.default_rng(seed)
    jobs, t = [], 0.0
    for i in range(count):
        t += float(draw.integers(0, 3000))
        nodes = int(draw.integers(1, 5)) * 1024
        runtime = float(draw.integers(600, 40_000))
        jobs.append(Job(i, t, runtime, nodes, runtime * 1.5,
                        jp=nodes * float(draw.integers(40, 80))))
    return jobs


def test_with_dvfs_and_no_failures_topper_is_puppet_with_dvfs():
    from modules.cpu_scaling import CpuScaling
    jobs = contended_jobs()
    machine = PuppetConfig(8192, node_watts=60, cap=CpuScaling(8192 * 60 * 0.7))
    plain = puppet_simulate(jobs, machine)
    resilient = simulate(jobs, TopperConfig(machine, FaultTolerance(unit_mttf=math.inf)))
    assert np.allclose(resilient.jobs["end"], plain.jobs["end"])
    assert resilient.metrics["energy_j"] == pytest.approx(plain.metrics["energy_j"])
    with pytest.raises(ValueError, match="latency"):
        simulate(jobs, TopperConfig(PuppetConfig(8192, cap=CpuScaling(1e6, latency=1)),
                                    FaultTolerance()))


def test_dvfs_failure_multiplier_means_more_failures_and_more_wait():
    from modules.cpu_scaling import CpuScaling
    jobs = contended_jobs()
    machine = PuppetConfig(8192, node_watts=60, cap=CpuScaling(8192 * 60 * 0.7))
    runs = [simulate(jobs, TopperConfig(machine, FaultTolerance(unit_mttf=30 * 86400),
                                        dvfs_failure_multiplier=m)) for m in (1, 3)]
    assert runs[1].metrics["failures"] > runs[0].metrics["failures"]
    assert runs[1].metrics["makespan_s"] >= runs[0].metrics["makespan_s"]


def test_an_execution_fails_when_its_first_process_loses_every_replica():
    from modules.fault_plans import Plan
    from modules.fault_tolerance import Execution

    job = Job(1, 0, 100, 4, 100)
    units = ((0, 50.0), (1, 20.0), (2, 90.0), (3, 70.0))
    # no replication: each unit is a process, the first failure ends the run
    assert Execution(job, Plan((1, 1, 1, 1), 100, math.inf, 0), 100, 0, units).failure() == 20.0
    # two replicas of each of two processes: a process dies with its last replica
    assert Execution(job, Plan((2, 2), 100, math.inf, 0), 100, 0, units).failure() == 50.0
    assert Execution(job, Plan((1, 3), 100, math.inf, 0), 100, 0, units).failure() == 50.0
    assert Execution(job, Plan((3, 1), 100, math.inf, 0), 100, 0, units).failure() == 70.0


def test_planning_a_workload_works_out_each_job_size_once(monkeypatch):
    """What depends on a job's size (replicas, stretch, checkpoint cost) is
    computed once per size; the plans are those of one job at a time."""
    import modules.fault_plans as fault_plans

    settings = FaultTolerance(method="replication", unit_nodes=2)
    jobs = [Job(i, 0, 100 * i, 1 + i % 3, 150 * i, jp=10.0) for i in range(1, 10)]
    one_by_one = [fault_plans.plan_job(job, settings, 8) for job in jobs]
    counted = []
    original = fault_plans.replica_counts
    monkeypatch.setattr(fault_plans, "replica_counts",
                        lambda *args: counted.append(args) or original(*args))
    assert fault_plans.plan_jobs(jobs, settings, 8) == one_by_one
    assert len(counted) == 3  # sizes 1, 2 and 3


def test_fail_and_done_guards_work_out_an_execution_once(monkeypatch):
    """*Fail*'s and *Done*'s guards ask in turn whether the same token
    fails before it completes: its failure time is worked out once."""
    from modules.fault_plans import Plan
    from modules.fault_tolerance import Execution, FailureSource, FaultRules

    calls = []
    original = Execution.failure
    monkeypatch.setattr(Execution, "failure", lambda self: calls.append(self) or original(self))
    rules = FaultRules({}, FailureSource(1e6))
    plan = Plan((1, 1), 100.0, math.inf, 0.0)
    job = Job(1, 0, 100, 2, 100)
    failing = Execution(job, plan, 100.0, 0.0, ((0, 50.0), (1, 500.0)))
    completing = Execution(job, plan, 100.0, 0.0, ((0, 150.0), (1, 500.0)))
    assert rules.failed(failing) and rules.failed(failing)
    assert len(calls) == 1
    assert not rules.failed(completing) and rules.failed(failing)  # other tokens: anew
    assert len(calls) == 3


def test_assign_redraws_only_the_units_that_failed_while_idle():
    from modules.fault_plans import Plan
    from modules.fault_tolerance import FailureSource, FaultRules

    trace = {0: [10.0, 300.0], 1: [400.0]}
    rules = FaultRules({1: Plan((1, 1), 100.0, math.inf, 0.0)}, FailureSource(1e6, trace=trace))
    job = Job(1, 0, 100, 2, 100)
    free = ((0, 10.0), (1, 400.0), (2, 900.0))
    execution, rest = rules.assign(job, free, 50.0, None, {}, 0.0)
    assert execution.units == ((0, 300.0), (1, 400.0)) and rest == ((2, 900.0),)
    execution, rest = rules.assign(job, ((1, 400.0), (2, 900.0)), 50.0, None, {}, 0.0)
    assert execution.units == ((1, 400.0), (2, 900.0)) and rest == ()



def test_discard_and_current_exist_only_where_retime_supersedes_tokens():
    """Only *Retime* (under DVFS) leaves superseded executions in *Running*
    and reads *Current*: without it the module has no *Discard*, which
    every token's arrival would search for nothing, and no *Current*,
    which every start and end would copy for no reader."""
    from modules.cpu_scaling import CpuScaling
    from modules.power_capping import PowerCap
    from nets.topper import build_net

    def paths(cap=PowerCap()):
        net, _ = build_net(contended_jobs(5), TopperConfig(PuppetConfig(8192, cap=cap),
                                                           FaultTolerance()))
        flat = net.flatten()
        return {node.path for node in [*flat.transitions, *flat.places]
                if node.path.startswith("FaultTolerance/")}

    assert paths() == {f"FaultTolerance/{name}" for name in (
        "Assign", "Fail", "Rollback", "Done", "Units", "FailedJobs", "Failures")}
    assert paths(CpuScaling(8192 * 60 * 0.7)) == paths() | {
        f"FaultTolerance/{name}" for name in ("Discard", "Retime", "Current", "Applied")}


@pytest.mark.parametrize("settings, message", [
    (dict(unit_nodes="1024"), "unit_nodes must be a whole number of nodes, not '1024'"),
    (dict(large_job_nodes="x"), "large_job_nodes must be a whole number"),  # was met mid-run
    (dict(unit_mttf=None), "unit_mttf must be a number, not None"),
    (dict(recovery=math.inf), "recovery must be >= 0 and finite"),  # the run never ended
    (dict(checkpoint_small=math.inf), "checkpoint_small must be >= 0 and finite"),
    (dict(redundancy=math.inf), "redundancy degree r must be >= 1 and finite"),
    (dict(communication="0.3"), "communication must be a number, not '0.3'"),
    (dict(checkpoint_interval="1800"), "checkpoint_interval must be positive and finite"),
])
def test_fault_tolerance_settings_of_no_number_are_refused_naming_them(settings, message):
    """Each was a TypeError of a comparison, a wt of inf blamed on job 0, or a run
    without end."""
    with pytest.raises(ValueError, match=re.escape(message)):
        FaultTolerance(**settings)


def test_topper_config_parts_and_multipliers_are_checked_where_given():
    machine = PuppetConfig(4096, node_watts=60)
    with pytest.raises(ValueError, match="puppet must be a PuppetConfig"):
        TopperConfig(FaultTolerance(), machine)
    with pytest.raises(ValueError, match="resilience must be a FaultTolerance, not None"):
        TopperConfig(machine, None)
    for multiplier in (math.inf, "2", None):  # inf drew failures without end
        with pytest.raises(ValueError, match="failure multipliers must be positive and finite"):
            TopperConfig(machine, FaultTolerance(), failure_multiplier=multiplier)
    with pytest.raises(ValueError, match=r"maps each unit to its failure times"):
        TopperConfig(machine, FaultTolerance(), failure_trace=[5.0])


def test_topper_simulate_refuses_a_puppet_config_and_a_step_of_zero():
    config = TopperConfig(PuppetConfig(4, node_watts=100), FaultTolerance(unit_nodes=1))
    jobs = [Job(1, 0, 100, 2, 150, 200.0)]
    with pytest.raises(ValueError, match="config must be a TopperConfig, not PuppetConfig"):
        simulate(jobs, config.puppet)  # an AttributeError of building the net
    with pytest.raises(ValueError, match="energy_steps must be positive finite seconds, not 0"):
        simulate(jobs, config, energy_steps=[0])  # once the run was done
