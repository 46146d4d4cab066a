"""What a run is given as jobs: a frequency rate out of range, or no jobs
at all, is refused before the run, naming what is wrong."""

from __future__ import annotations

import math

import numpy as np
import pytest

from modules.cpu_scaling import CpuScaling
from modules.job import Job
from modules.resilience import FaultTolerance
from nets import data_driven, dvfs_thesis, energy_saving, puppet, topper
from nets.puppet import PuppetConfig
from nets.topper import TopperConfig

MACHINE = PuppetConfig(4, node_watts=100)
TOPPER = TopperConfig(MACHINE, FaultTolerance(unit_nodes=1))


@pytest.mark.parametrize("pf, shown", [
    (0.0, "0.0"),  # TOPPER: a ZeroDivisionError of a firing; PuPPET: no core power
    (-1.0, "-1.0"),  # power below idle
    (2.0, "2.0"),  # four times the core power, as no level of CpuScaling can
    (math.nan, "nan"),  # "times and watts must be finite", after the run
    ("1", "'1'"),  # a TypeError of a firing
    (None, "None"),
])
@pytest.mark.parametrize("simulate, config", [(puppet.simulate, MACHINE),
                                              (topper.simulate, TOPPER)],
                         ids=["puppet", "topper"])
def test_a_frequency_rate_out_of_range_is_refused_naming_the_job(simulate, config, pf, shown):
    jobs = [Job(1, 0, 100, 1, 100, jp=100.0), Job(2, 0, 100, 1, 100, jp=100.0, pf=pf)]
    with pytest.raises(ValueError, match=rf"job 2: pf must be within \[0.1, 1\] \(of nominal\), "
                                         rf"not {shown}"):
        simulate(jobs, config)


def test_a_frequency_rate_within_range_runs_and_numpys_becomes_pythons():
    jobs = [Job(1, 0, 100, 1, 100, jp=100.0, pf=np.float64(0.5)),
            Job(2, 0, 100, 1, 100, jp=100.0, pf=1)]
    result = topper.simulate(jobs, TOPPER)
    assert list(result.jobs["job_id"]) == [1, 2]


@pytest.mark.parametrize("run", [
    lambda: puppet.simulate([], MACHINE),
    lambda: puppet.simulate(iter(()), PuppetConfig(4, cap=CpuScaling(1000.0))),
    lambda: topper.simulate([], TOPPER),
    lambda: energy_saving.simulate([], energy_saving.EnergySavingConfig(2)),
    lambda: dvfs_thesis.simulate([], dvfs_thesis.ThesisConfig(4), {}),
    lambda: data_driven.simulate([], data_driven.DataDrivenConfig(4)),
], ids=["puppet", "dvfs", "topper", "energy_saving", "dvfs_thesis", "data_driven"])
def test_no_jobs_are_refused_not_run_as_a_complete_empty_result(run):
    """As ``cpn run`` refuses a trace without jobs: the result had no rows
    and said ``complete``, which reads as a run.  (A data-driven run whose
    cap rejects every job still gives its result: the study reads it.)"""
    with pytest.raises(ValueError, match="no jobs to simulate: the list of jobs is empty"):
        run()
