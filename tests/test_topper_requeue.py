"""TOPPER's two answers to a failure: keep the units and roll back in
place, or release them and go back to the queue.  Scripted failures with
times checked by hand, then invariants on a prefix of a real trace."""

import math
from pathlib import Path

import numpy as np
import pytest

from cpn.monitors import FiringCounter, Monitor, PlaceIntegral
from modules.job import Job
from modules.resilience import FaultTolerance, daly_interval
from nets.puppet import PuppetConfig
from nets.topper import TopperConfig, simulate

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "swf"
WATTS = 100.0  # per node; idle nodes draw nothing, so energy counts busy node-seconds


def rack_job(job_id, submit, runtime, racks):
    return Job(job_id, submit, runtime, 1024 * racks, runtime, jp=1024 * racks * WATTS)


def two_racks(on_failure, failures, mttf=math.inf):
    config = TopperConfig(PuppetConfig(2048, node_watts=WATTS, idle_fraction=0),
                          FaultTolerance(unit_mttf=mttf, on_failure=on_failure),
                          failure_trace=failures)
    # Job 1 holds rack 0 until 4,000; job 2 needs both racks and waits; job 3
    # is backfilled on rack 1 at 20 (it ends by 3,020 < 4,000).  Rack 1 fails
    # at 2,000.  With an infinite MTTF jobs never checkpoint: all is lost.
    jobs = [rack_job(1, 0, 4000, 1), rack_job(2, 10, 1000, 2), rack_job(3, 20, 3000, 1)]
    return simulate(jobs, config)


def test_a_failed_job_that_keeps_its_units_resumes_in_place():
    jobs = two_racks("keep", {1: [2000.0]}).jobs.set_index("job_id")
    assert jobs.loc[3, "start"] == 20 and jobs.loc[3, "end"] == 2000 + 780 + 3000
    assert jobs.loc[2, "start"] == 5780  # it waited for job 3's rack
    assert "requeues" not in jobs


def test_a_requeued_job_lets_an_earlier_job_go_first_and_restarts_after_recovery():
    result = two_racks("requeue", {1: [2000.0]})
    jobs = result.jobs.set_index("job_id")
    # At 2,000 job 3 leaves rack 1 and queues behind job 2 (submitted earlier),
    # which starts when job 1 ends; job 3 restarts at 5,000 with the whole
    # run to do again after the 780 s recovery.
    assert list(jobs["start"]) == [0, 4000, 5000]
    assert list(jobs["end"]) == [4000, 5000, 5000 + 780 + 3000]
    assert list(jobs["first_start"]) == [0, 4000, 20]
    assert list(jobs["requeues"]) == [0, 0, 1]
    metrics = result.metrics
    assert (metrics["failures"], metrics["requeues"]) == (1, 1)
    assert metrics["lost_node_hours"] == pytest.approx(1980 * 1024 / 3600)
    busy = 1024 * 4000 + 2048 * 1000 + 1024 * 1980 + 1024 * (780 + 3000)
    assert metrics["energy_j"] == pytest.approx(busy * WATTS)  # power followed the nodes
    assert metrics["utilization"] == pytest.approx(busy / (2048 * 8780))
    useful = 1024 * 4000 + 2048 * 1000 + 1024 * 3000
    assert metrics["system_efficiency"] == pytest.approx(useful / (2048 * 8780))


def test_a_requeued_job_resumes_from_its_last_checkpoint():
    # One rack, one job (as tests/test_topper.py): two checkpoints are done
    # by 12,000 s, when the rack fails.  Requeued, the job is first in the
    # queue again, restarts at once, and ends when the kept one would.
    runtime, mttf = 20_000, 20_000
    interval = daly_interval(600, 1 / mttf)
    saved = 2 * interval
    left = runtime - saved
    end = 12_000 + 780 + left + left / interval * 600
    for on_failure, start in (("keep", 0), ("requeue", 12_000)):
        config = TopperConfig(PuppetConfig(1024, node_watts=WATTS, idle_fraction=0),
                              FaultTolerance(unit_mttf=mttf, on_failure=on_failure),
                              failure_trace={0: [12_000]})
        result = simulate([rack_job(1, 0, runtime, 1)], config)
        assert result.jobs["start"][0] == start
        assert result.jobs["end"][0] == pytest.approx(end)
        lost = 12_000 - 2 * (interval + 600)
        assert result.metrics["lost_node_hours"] == pytest.approx(lost * 1024 / 3600)


def test_a_requeued_job_failing_during_its_recovery_loses_nothing_more():
    config = TopperConfig(PuppetConfig(1024, node_watts=WATTS, idle_fraction=0),
                          FaultTolerance(unit_mttf=math.inf, on_failure="requeue"),
                          failure_trace={0: [1000.0, 1500.0]})
    result = simulate([rack_job(1, 0, 3000, 1)], config)
    # fails at 1,000 (all 1,000 s lost), restarts at once, fails again
    # within its recovery at 1,500 (nothing more lost), restarts: 1,500 + 780 + 3,000
    assert result.jobs["end"][0] == 1500 + 780 + 3000
    assert result.jobs["requeues"][0] == 2
    assert result.metrics["lost_node_hours"] == pytest.approx(1000 * 1024 / 3600)


def test_on_failure_is_validated():
    with pytest.raises(ValueError, match="on_failure must be one of"):
        FaultTolerance(on_failure="retry")
    with pytest.raises(ValueError, match="redundancy degree r must be >= 1"):
        FaultTolerance(method="replication", redundancy=0.5)
    for gamma in (-0.1, 1e10):  # 1e10 stretched a replicated job 1e10 times
        with pytest.raises(ValueError, match=r"gamma must be within \[0, 1\]"):
            FaultTolerance(communication=gamma)


class UnitLedger(Monitor):
    """After every firing of the fault tolerance module: each unit is
    either free or held by exactly one running job: its latest execution
    (*Current*, under DVFS) or, without DVFS, which leaves no superseded
    execution in *Running*, its execution there or in *Failed Jobs*
    between a failure and what follows."""

    def __init__(self, units: int):
        self.transitions = None
        self.expected = list(range(units))
        self.checked = 0

    def fired(self, sim, transition, values):
        if not sim.transitions[transition].path.startswith("FaultTolerance/"):
            return False
        try:
            executions = list(sim.tokens("FaultTolerance/Current")[0].values())
        except KeyError:  # no DVFS
            executions = sim.tokens("Running") + sim.tokens("FaultTolerance/FailedJobs")
        held = [unit for execution in executions for unit, _ in execution.units]
        free = [unit for unit, _ in sim.tokens("FaultTolerance/Units")[0]]
        assert sorted(held + free) == self.expected, f"units double-booked at {sim.now}"
        self.checked += 1
        return False


@pytest.mark.parametrize("on_failure", ["keep", "requeue"])
def test_real_trace_invariants_under_failures(on_failure):
    path = DATA / "LLNL-Atlas-2006-2.1-cln.swf"
    if not path.exists():
        pytest.skip("no ../shared data")
    from modules.power_profile import assign_rack_power
    from modules.swf import read_swf
    workload = read_swf(path, procs_per_node=8)  # 1,152 nodes
    jobs = assign_rack_power(workload.jobs[:5000], seed=2)
    settings = FaultTolerance(unit_nodes=8, unit_mttf=10 * 86400, on_failure=on_failure)
    config = TopperConfig(PuppetConfig(workload.machine_nodes), settings)
    ledger = UnitLedger(config.units)
    recover = "FaultTolerance/" + ("Requeue" if on_failure == "requeue" else "Rollback")
    counter = FiringCounter("FaultTolerance/Assign", "FaultTolerance/Done",
                            "FaultTolerance/Fail", recover)
    result = simulate(jobs, config, monitors=[ledger, counter])
    frame, metrics = result.jobs, result.metrics
    # every job completes exactly once
    assert sorted(frame["job_id"]) == sorted(job.id for job in jobs)
    assert counter.counts["FaultTolerance/Done"] == len(jobs)
    # failures happened, each counted once; requeued jobs started once more each
    failures = counter.counts["FaultTolerance/Fail"]
    assert failures > 20 and metrics["failures"] == failures
    assert counter.counts[recover] == failures  # each failure rolls back once
    restarts = failures if on_failure == "requeue" else 0
    assert counter.counts["FaultTolerance/Assign"] == len(jobs) + restarts
    assert ledger.checked > 2 * len(jobs)
    # useful node-hours are the trace's work, whatever the failures cost
    useful = sum(job.js * job.rt for job in jobs)
    span = metrics["makespan_s"] * workload.machine_nodes
    assert metrics["system_efficiency"] == pytest.approx(useful / span)
    assert 0 < metrics["system_efficiency"] < metrics["utilization"] <= 1
    # each job ran at least its work after it first started; a requeued job
    # paid the recovery of its last restart too
    first = frame["first_start"] if on_failure == "requeue" else frame["start"]
    requeues = frame["requeues"] if on_failure == "requeue" else 0 * frame["start"]
    work = frame["job_id"].map({job.id: job.rt for job in jobs})
    assert (frame["end"] - first >= work + 780 * (requeues > 0) - 1e-6).all()
    assert (first <= frame["start"]).all() and requeues.sum() == restarts
    # lost work is part of the busy node-hours beyond the useful ones
    busy = metrics["utilization"] * span
    assert 0 < metrics["lost_node_hours"] * 3600 <= busy - (frame["nodes"] * work).sum()


def test_requeue_under_dvfs_keeps_every_invariant():
    from modules.cpu_scaling import CpuScaling
    draw = np.random.default_rng(5)
    jobs, t = [], 0.0
    for i in range(150):
        t += float(draw.integers(0, 3000))
        racks, runtime = int(draw.integers(1, 5)), float(draw.integers(600, 40_000))
        jobs.append(Job(i, t, runtime, 1024 * racks, runtime * 1.5,
                        jp=1024 * racks * float(draw.integers(40, 80))))
    machine = PuppetConfig(8192, node_watts=60, cap=CpuScaling(8192 * 60 * 0.7))
    config = TopperConfig(machine, FaultTolerance(unit_mttf=10 * 86400, on_failure="requeue"),
                          dvfs_failure_multiplier=3)
    ledger = UnitLedger(config.units)
    power = PlaceIntegral("Power", lambda tokens: tokens[0], record=True)  # the whole run
    result = simulate(jobs, config, monitors=[ledger, power])
    frame = result.jobs
    assert sorted(frame["job_id"]) == list(range(150))
    assert result.metrics["requeues"] == result.metrics["failures"] > 5
    assert frame["requeues"].sum() == result.metrics["requeues"]
    assert (frame["first_start"] <= frame["start"]).all()
    assert power.values[-1] == pytest.approx(8192 * 60 * 0.3)  # all idle at the end
