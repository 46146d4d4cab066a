"""What a run is given as jobs: a frequency rate out of range is refused
before the run, naming the job."""

from __future__ import annotations

import math

import numpy as np
import pytest

from modules.job import Job
from modules.resilience import FaultTolerance
from nets import puppet, topper
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
