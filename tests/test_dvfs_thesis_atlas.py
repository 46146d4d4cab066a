"""The DVFS thesis on LLNL-Atlas (jobs 10K-15K on 9,216 CPUs, Table 3.4).
The tests skip when ../shared/data is absent."""

from pathlib import Path

import pytest

from modules.dvfs_thesis.profiles import draw_profiles
from nets.dvfs_thesis import (EasyConfig, MaxJobPerfConfig, ThesisConfig, busy_power,
                              simulate, thesis_portion)

ATLAS = (Path(__file__).resolve().parents[1].parent / "shared" / "data" / "swf"
         / "LLNL-Atlas-2006-2.1-cln.swf")
needs_atlas = pytest.mark.skipif(not ATLAS.exists(), reason="LLNL-Atlas trace not available")


@pytest.fixture(scope="module")
def atlas():
    jobs = thesis_portion(ATLAS, 9216)
    return jobs, draw_profiles(jobs, seed=0)


@needs_atlas
def test_easy_baseline_next_to_table_3_5(atlas):
    jobs, profiles = atlas
    assert len(jobs) == 3480  # 1,520 of the 5,000 were cancelled or ran 0 s
    metrics = simulate(jobs, ThesisConfig(9216, EasyConfig()), profiles).metrics
    # Table 3.5, Atlas: average BSLD 1.08, utilization 75.25 %, load requested
    # 0.94.  We measure 1.19, 75.3 % and 0.94: BSLD is higher, in part because
    # the 1,520 jobs left out (no runtime: BSLD about 1) lowered the thesis' mean
    assert 1.0 <= metrics["bsld"] <= 1.25
    assert metrics["utilization"] == pytest.approx(0.7525, abs=0.01)
    assert metrics["load_requested"] == pytest.approx(0.94, abs=0.03)
    assert metrics["frequency_mean_ghz"] == pytest.approx(2.3)
    assert metrics["unfinished_jobs"] == 0


@needs_atlas
def test_max_job_perf_under_budget_beats_power_constrained_easy(atlas):
    jobs, profiles = atlas
    easy = simulate(jobs, ThesisConfig(9216, EasyConfig(budget_fraction=0.7)), profiles)
    best = simulate(jobs, ThesisConfig(9216, MaxJobPerfConfig()), profiles)
    _, watts = busy_power(best.jobs)
    assert watts.max() <= 0.7 * 9216 * 100.0 + 1e-6
    assert best.metrics["bsld"] < easy.metrics["bsld"]  # Table 5.5's direction
    assert best.metrics["frequency_mean_ghz"] < 2.3
