"""The DVFS thesis on LLNL-Atlas (jobs 10K-15K on 9,216 CPUs, Table 3.4).
The tests skip when ../shared/data is absent."""

import sys
from pathlib import Path

import numpy as np
import pytest

from modules.dvfs_thesis.profiles import draw_profiles
from nets.dvfs_thesis import (BsldDrivenConfig, EasyConfig, MaxJobPerfConfig, PbGuidedConfig,
                              ThesisConfig,
                              UpasConfig, busy_power, simulate, thesis_portion)

ATLAS = (Path(__file__).resolve().parents[1].parent / "shared" / "data" / "swf"
         / "LLNL-Atlas-2006-2.1-cln.swf")
needs_atlas = pytest.mark.skipif(not ATLAS.exists(), reason="LLNL-Atlas trace not available")


@pytest.fixture(scope="module")
def atlas():
    jobs = thesis_portion(ATLAS, 9216)
    return jobs, draw_profiles(jobs, seed=0)


def raw_portion_means(path, first=10_001, last=15_000) -> dict[int, float]:
    """Means of SWF fields 5 (allocated CPUs), 9 (requested time) and 4 (run
    time) over the job lines numbered first..last, -1 read as 0: a plain
    split of the text, independent of the project's readers."""
    rows = [line.split() for line in path.read_text().splitlines()
            if line.strip() and not line.lstrip().startswith(";")]
    portion = [row for row in rows if first <= int(row[0]) <= last]
    return {field: sum(max(float(row[field - 1]), 0.0) for row in portion) / len(portion)
            for field in (5, 9, 4)}


@needs_atlas
def test_the_portion_keeps_every_line_as_table_3_3_shows(atlas):
    jobs, _ = atlas
    assert len(jobs) == 5000  # jobs 10001-15000, cancelled ones included
    raw = raw_portion_means(ATLAS)
    # Table 3.3, LLNL-Atlas portion: 539.45 CPUs, 19,343 s requested, 1,523 s
    # run.  We are within 0.05 %; tolerance 0.1 %: the thesis' boundary is
    # not exact to the line -- adding job 10000 (5,001 lines) gives 539.62,
    # 19,343.5 and 1,523.4, its requested and run times to the printed digit
    # -- and one line more or less moves each average by 0.02-0.03 %.  A
    # wrong reading falls far outside:
    # requested processors (field 8) average 535.82 (-0.7 %), and leaving out
    # the cancelled lines gives 650.6 CPUs (+21 %).
    assert raw[5] == pytest.approx(539.45, rel=1e-3)
    assert raw[9] == pytest.approx(19_343, rel=1e-3)
    assert raw[4] == pytest.approx(1_523, rel=1e-3)
    # what we simulate is that portion
    assert sum(job.js for job in jobs) / len(jobs) == pytest.approx(raw[5], abs=1e-9)
    assert sum(job.rt for job in jobs) / len(jobs) == pytest.approx(raw[4], abs=1e-9)


@pytest.fixture(scope="module")
def easy(atlas):
    """EASY without DVFS nor budget: the baseline every chapter normalises to."""
    jobs, profiles = atlas
    return simulate(jobs, ThesisConfig(9216, EasyConfig()), profiles)


@needs_atlas
def test_easy_baseline_against_table_3_5(atlas, easy):
    jobs, _ = atlas
    result = easy
    metrics = result.metrics
    # Table 3.5, Atlas: utilization 75.25 %, load requested 0.94 (printed to
    # 2 decimals: +-0.005; utilization to within 0.05 points, a fraction of
    # one 5,000-CPU hour over the 23-day makespan).
    assert metrics["utilization"] == pytest.approx(0.7525, abs=5e-4)
    assert metrics["load_requested"] == pytest.approx(0.94, abs=0.005)
    assert metrics["frequency_mean_ghz"] == pytest.approx(2.3)
    assert metrics["unfinished_jobs"] == 0
    # Average BSLD: the thesis 1.08, we 1.135 -- DIFFERS by 0.055, a gap the
    # waits of a dozen jobs make.  Only 68 of the 5,000 jobs wait at all (the
    # others have BSLD exactly 1), so the mean is the excess of those few,
    # divided by 5,000; the 12 largest excesses (jobs 10860-10921, a burst of
    # 8,000-8,192-CPU jobs of 1-655 s waiting about 4 hours for the machine
    # to empty) sum to the gap.  They queue behind jobs 10829-10842, 14 lines
    # of one second each allocated 2,048 CPUs for 5,260 s; read at their
    # requested processors the mean BSLD is 1.072, but utilization and load
    # requested leave Table 3.5's (docs/findings.md).  The tolerance is the
    # shown gap: 0.06.
    assert metrics["bsld"] == pytest.approx(1.08, abs=0.06)
    frame = result.jobs
    wait = frame["start"] - frame["submit"]
    bsld = np.maximum((wait + frame["runtime"]) / np.maximum(600.0, frame["runtime"]), 1.0)
    worst = bsld.sort_values(ascending=False).index[:12]
    assert (bsld[worst] - 1).sum() >= (metrics["bsld"] - 1.08) * len(jobs)
    assert (frame.loc[worst, "cpus"] >= 8000).all()
    block = frame[frame["job_id"].between(10829, 10842)]
    assert block["submit"].nunique() == 1 and (block["cpus"] == 2048).all()
    # the burst arrives while the block runs, and starts only after its last wave
    assert frame.loc[worst, "submit"].min() < block["end"].max() <= frame.loc[worst, "start"].min()
    assert (wait > 0).sum() < 0.015 * len(jobs)


@needs_atlas
def test_upas_against_section_4_2(atlas, easy):
    jobs, profiles = atlas
    upas = simulate(jobs, ThesisConfig(9216, UpasConfig(wq_threshold=None)), profiles).metrics
    saved = 1 - upas["energy_total_j"] / easy.metrics["energy_total_j"]
    # Section 4.2: Atlas saves 10 % of CPU energy (idle CPUs at the lowest
    # gear, WQ_threshold NO).  The saving depends on the jobs' drawn p and
    # beta (section 3.2.1; the thesis' draw is not published): profile seeds
    # 0-4 give 8.6, 11.1, 11.5, 9.3 and 10.6 % (mean 10.2 %), so the draw
    # alone moves it by 1.5 points either way: the tolerance.
    assert saved == pytest.approx(0.10, abs=0.015)
    # "the mean job BSLD was never penalized more than 50 %" (x1.17-1.36 over
    # the same seeds; x1.33 with seed 0)
    assert 1 < upas["bsld"] / easy.metrics["bsld"] <= 1.5


@needs_atlas
def test_bsld_driven_against_section_4_3(atlas, easy):
    jobs, profiles = atlas

    def run(bsld_threshold):
        config = BsldDrivenConfig(bsld_threshold=bsld_threshold, wq_threshold=None)
        metrics = simulate(jobs, ThesisConfig(9216, config), profiles).metrics
        return (1 - metrics["energy_total_j"] / easy.metrics["energy_total_j"],
                metrics["bsld"] / easy.metrics["bsld"])

    (saved_2, _), (saved_3, penalty_3) = run(2), run(3)
    # Section 4.3: BSLD-driven saves "up to 26 %", over 20 % on Atlas, more
    # than UPAS (10 %).  Ours is best at (2, NO): 19.6 %.  The saving depends
    # on the drawn profiles: seeds 0-4 give 19.6-24.3 % there (mean 21.0 %,
    # docs/findings.md), seed 0 the lowest, 1.4 points under the mean: the
    # tolerance below the thesis' 20 %.
    assert saved_2 > 0.20 - 0.015
    assert saved_3 > 0.10
    # Its most aggressive corner (3, NO) costs the most: mean BSLD "even 15
    # times higher"; ours x13.1, held to within a third of x15 (the thesis'
    # figure gives no finer reading).
    assert 10 < penalty_3 < 20


@needs_atlas
def test_max_job_perf_under_budget_beats_power_constrained_easy(atlas):
    jobs, profiles = atlas
    easy = simulate(jobs, ThesisConfig(9216, EasyConfig(budget_fraction=0.7)), profiles)
    best = simulate(jobs, ThesisConfig(9216, MaxJobPerfConfig()), profiles)
    _, watts = busy_power(best.jobs)
    assert watts.max() <= 0.7 * 9216 * 100.0 + 1e-6
    assert best.metrics["bsld"] < easy.metrics["bsld"]  # Table 5.5's direction
    # Table 5.5's base, 14.57: DIFFERS, ours 6.23.  Jobs over the budget alone
    # (177 here) may break it, but the thesis does not say when they start:
    # as soon as their CPUs are free (ours) gives less than the thesis, only
    # on an empty machine (oversized="alone") 64.1, more (docs/findings.md (d)).
    assert easy.metrics["bsld"] < 14.57
    assert best.metrics["frequency_mean_ghz"] < 2.3


@needs_atlas
def test_pb_guided_against_table_5_4(atlas, easy):
    jobs, profiles = atlas

    def run(**options):
        config = PbGuidedConfig(bsld_lower=easy.metrics["bsld"], **options)
        return simulate(jobs, ThesisConfig(9216, config), profiles)

    result, beta = run(), run(beta="oracle").metrics
    no_beta, frame = result.metrics, result.jobs
    # Table 5.4, Atlas, no beta: BSLD 4.39, wait 2,606 s.  Ours 4.53 and
    # 2,751 s; 4.99 and 3,051 s while the 852 lines of no CPUs waited for
    # power like any job (docs/findings.md (e)).  Within 4 %: the profile
    # draw alone moves BSLD by 10 % and the wait by 18 % (seeds 0-4: 4.52-4.98,
    # 2,633-3,121 s).
    assert no_beta["bsld"] == pytest.approx(4.39, rel=0.04)
    assert no_beta["wait_mean_s"] == pytest.approx(2606, rel=0.06)
    lines = frame[frame["cpus"] == 0]
    assert len(lines) == 852 and (lines["start"] == lines["submit"]).all()
    # Its "mean job ... frequency", 1.68 GHz, lies between ours over all jobs
    # (1.627: the 852 lines of no CPUs take gears too, mostly the lowest)
    # and over the jobs that have CPUs (1.725).
    with_cpus = no_beta["frequency_job_mean_cpus_ghz"]
    assert with_cpus == frame.loc[frame["cpus"] > 0, "frequency_ghz"].mean()
    assert no_beta["frequency_job_mean_ghz"] < 1.68 < with_cpus
    assert no_beta["frequency_mean_ghz"] == pytest.approx(2.19, abs=0.005)  # per busy CPU
    # Beta = 1 overestimates the slowdown, so knowing beta scales more
    # (Table 5.4's direction: 1.68 -> 1.66 GHz) and changes BSLD little.
    assert beta["frequency_job_mean_ghz"] < no_beta["frequency_job_mean_ghz"]
    assert beta["bsld"] == pytest.approx(no_beta["bsld"], rel=0.15)
    # Scaling further does not bring the thesis' lower BSLD: forced down to
    # Table 5.3's 2.05 GHz per busy CPU (frequency scaling from 30 % of the
    # budget, aggressive from 60 %), BSLD and wait rise (5.38 and 3,537 s).
    forced = run(p_lower=0.3, p_upper=0.6).metrics
    assert forced["frequency_mean_ghz"] == pytest.approx(2.05, abs=0.01)
    assert forced["bsld"] > no_beta["bsld"] and forced["wait_mean_s"] > no_beta["wait_mean_s"]


@needs_atlas
def test_max_job_perf_reservations_on_atlas():
    """docs/findings.md (f): size-based reservations are made often, as the
    thesis says, but on our runs they help the jobs over half the machine
    and cost the others little."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "examples"))
    from thesis_reservations import reservations_table
    table = reservations_table(ATLAS)
    no, size = table.loc["noRes"], table.loc["50%"]
    # 182 of the 194 jobs over half the machine get a reservation, held at
    # 40 % of the scheduler's passes: "made too often", as the thesis says
    assert size["large_jobs"] == 194
    assert size["reserved_jobs"] > 0.9 * size["large_jobs"]
    assert size["passes_reserved"] > 0.35
    # without them those jobs starve (35.2 h, the thesis' noRes 13.52 h) ...
    assert no["large_wait_max_h"] > 30 > 13.52
    # ... reservations shorten their waits (8.7 -> 7.5 h) and lower the mean
    # BSLD (3.25 -> 3.05), the thesis' opposite (2.11 -> 5.46); the other
    # jobs' share of the mean BSLD rises by 0.02
    assert size["large_wait_mean_h"] < no["large_wait_mean_h"]
    assert size["bsld"] < no["bsld"]
    assert abs(size["bsld_excess_other"] - no["bsld_excess_other"]) < 0.05


@needs_atlas
def test_two_overtakers_make_the_large_jobs_starve_without_reservations():
    """docs/findings.md (f): without reservations our burst of 8,096-8,192-CPU
    jobs waits 35 h because two long jobs submitted after it start before
    it; without those two the thesis' noRes run comes back."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "examples"))
    from thesis_starvation import starvation_table
    ahead, table = starvation_table(ATLAS)
    # 14240 (4,096 CPUs) and 14245 (2,048), 14.3 h and 17.3 h at 1.7 GHz:
    # no 8,096-CPU job fits beside either (the same two for profile seeds 0-4)
    assert list(ahead.index) == [14240, 14245]
    assert (ahead["hours"] > 14).all()
    runs = table.set_index(["jobs", "rule"])
    all_no, all_res = runs.loc[("all jobs", "noRes")], runs.loc[("all jobs", "Res")]
    no, res = runs.loc[("without overtakers", "noRes")], runs.loc[("without overtakers", "Res")]
    assert all_no["longest"] == 14223 and all_no["wait_max_h"] > 2 * 13.52  # starving
    assert all_res["bsld"] < all_no["bsld"]  # reservations help: not the thesis' direction
    # without the two: the longest wait 14.5 h against Table 5.5's 13.52 (within
    # 10 %), no longer one of the burst's, and reservations cost (the thesis'
    # direction, 2.11 -> 5.46; for profile seeds 0-4 alike)
    assert no["wait_max_h"] == pytest.approx(13.52, rel=0.1) and no["longest"] != 14223
    assert no["bsld"] < res["bsld"]
    # mean BSLD 2.50 against the thesis' 2.11 (3.25 with them): the profile
    # draw alone moves it from 1.99 to 2.83 (seeds 0-4)
    assert abs(no["bsld"] - 2.11) < 0.4 < abs(all_no["bsld"] - 2.11)


@needs_atlas
def test_counting_running_jobs_at_their_maximum_reverses_reservations(atlas):
    """docs/findings.md (f): of the readings tried, counting running jobs at
    their maximum power comes nearest to Table 5.5, and still starves."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "examples"))
    from thesis_readings import readings_table
    table = readings_table(ATLAS, readings=("text", "running at max"))
    bsld = table.set_index(["reading", "policy"])["bsld"]
    jobs, profiles = atlas  # the text reading is the model itself
    plain = simulate(jobs, ThesisConfig(9216, MaxJobPerfConfig()), profiles).metrics
    assert bsld["text", "MaxJobPerf Res"] == plain["bsld"]
    assert bsld["text", "MaxJobPerf Res"] < bsld["text", "MaxJobPerf noRes"]
    # Table 5.5: base 14.57, noRes 2.11, Res 5.46 -- reservations harmful
    assert bsld["running at max", "MaxJobPerf Res"] > bsld["running at max", "MaxJobPerf noRes"]
    assert bsld["text", "EASY 70%"] < bsld["running at max", "EASY 70%"] < 14.57
    longest = table.set_index(["reading", "policy"])["wait_max_h"]
    assert longest["running at max", "MaxJobPerf noRes"] > 2 * 13.52  # still starving
