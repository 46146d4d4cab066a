"""The DVFS thesis' models (chapter 3): gear table, power and time at a
gear, per-job profiles (drawn and read), predicted BSLD, the metrics and the
trace portion."""

import gzip
import math
import re

import numpy as np
import pandas as pd
import pytest

from modules.dvfs_thesis.gears import TABLE_3_2, CpuPowerModel
from modules.dvfs_thesis.metrics import thesis_metrics
from modules.dvfs_thesis.plan import Planner
from modules.dvfs_thesis.profiles import (JobProfile, draw_profiles, read_profiles,
                                          write_profiles)
from modules.job import Job
from nets.dvfs_thesis import thesis_portion

MODEL = CpuPowerModel(nominal_cpu_watts=1.0)
FREQUENCIES = [gear.frequency_ghz for gear in TABLE_3_2]


def test_table_3_2_normalized_power_of_sequential_code():
    norm = [round(MODEL.sequential_watts(gear), 2) for gear in range(6)]
    assert norm == [0.31, 0.40, 0.51, 0.65, 0.81, 1.0]
    assert MODEL.alpha * 1.5 == pytest.approx(0.3)  # 30 % static at the nominal gear


def test_activity_eq_3_8_and_3_11():
    a_comp, a_comm = MODEL.a_comp, MODEL.a_comm
    assert a_comp / a_comm == pytest.approx(1.9)
    # eq. 3.8 at the nominal gear
    assert MODEL.activity(5, 0.5, 0.4) == pytest.approx(0.5 * a_comp + 0.5 * a_comm)
    # eq. 3.11 at 0.8 GHz, p = 0.5, beta_comp = 0.8 (beta = 0.4): stretch 0.75
    stretch = 0.4 * (2.3 / 0.8 - 1)
    assert stretch == pytest.approx(0.75)
    expected = (0.75 * a_comp + 0.5 * a_comp + 0.5 * a_comm) / 1.75
    assert MODEL.activity(0, 0.5, 0.4) == pytest.approx(expected)
    # computation takes a larger share at lower gears: activity rises
    activities = [MODEL.activity(g, 0.5, 0.4) for g in range(6)]
    assert activities == sorted(activities, reverse=True)
    # sequential code (p = 1) keeps A_comp at every gear
    assert all(MODEL.activity(g, 1.0, 0.7) == pytest.approx(a_comp) for g in range(6))


def test_job_power_eq_3_12_and_idle_scenarios():
    watts = MODEL.job_watts(8, 0, 0.5, 0.4)
    assert watts == pytest.approx(8 * (MODEL.alpha * 1.0 + MODEL.activity(0, 0.5, 0.4) * 0.8))
    assert CpuPowerModel(idle="zero").idle_cpu_watts == 0.0
    idle = CpuPowerModel(nominal_cpu_watts=1.0).idle_cpu_watts
    assert idle == pytest.approx(MODEL.alpha + MODEL.a_comm * 0.8)
    with pytest.raises(ValueError, match="idle"):
        CpuPowerModel(idle="off")


@pytest.mark.parametrize("gear, frequency", list(enumerate(FREQUENCIES)))
def test_runtime_at_each_gear_eq_3_1(gear, frequency):
    beta = 0.6 * 0.7
    assert 1000 * MODEL.coef(gear, beta) == pytest.approx(1000 * (beta * (2.3 / frequency - 1) + 1))
    assert MODEL.gear_of(MODEL.relative(gear)) == gear


def test_predicted_bsld_eq_4_3():
    job = Job(1, st=100.0, rt=500.0, js=4, wt=1000.0)
    oracle = Planner(MODEL, {1: JobProfile(0.5, 0.8)}, beta="oracle")
    one = Planner(MODEL, {1: JobProfile(0.5, 0.8)}, beta="one")
    # wait 200 s, requested 1000 s at 1.4 GHz
    assert oracle.predicted_bsld(job, 2, 300.0) == pytest.approx(
        (200 + 1000 * (0.4 * (2.3 / 1.4 - 1) + 1)) / 1000)
    assert one.predicted_bsld(job, 2, 300.0) == pytest.approx((200 + 1000 * 2.3 / 1.4) / 1000)
    short = job._replace(wt=60.0)  # below the 600 s threshold: bounded at 1
    assert one.predicted_bsld(short, 5, 100.0) == 1.0


def test_drawn_profiles_follow_section_3_2_1_and_table_3_1():
    jobs = [Job(i, 0, 1, js, 1) for i, js in enumerate([1, 8, 32, 256, 2048] * 4000)]
    profiles = draw_profiles(jobs, seed=3)
    assert profiles == draw_profiles(jobs, seed=3)
    assert profiles != draw_profiles(jobs, seed=4)
    beta_comp = np.array([p.beta_comp for p in profiles.values()])
    assert ((beta_comp >= 0.2) & (beta_comp <= 1.0)).all()
    shares = [((beta_comp >= low) & (beta_comp < high)).mean()
              for low, high in ((0.2, 0.4), (0.4, 0.8), (0.8, 1.01))]
    assert shares == pytest.approx([3 / 20, 1 / 2, 7 / 20], abs=0.015)
    by_size = {}
    for job in jobs:
        by_size.setdefault(job.js, []).append(profiles[job.id].p)
    assert set(by_size[1]) == {1.0}
    for size, (low, high) in {8: (0.6, 0.95), 32: (0.5, 0.9), 256: (0.2, 0.9),
                              2048: (0.1, 0.8)}.items():
        values = np.array(by_size[size])
        assert low <= values.min() and values.max() <= high
    # p of 2,048-CPU jobs: U(0.1,0.5), U(0.5,0.7), U(0.7,0.8) with 1/3 each
    values = np.array(by_size[2048])
    assert (values < 0.5).mean() == pytest.approx(1 / 3, abs=0.04)


def test_profiles_file_round_trip_and_errors(tmp_path):
    profiles = {3: JobProfile(0.25, 0.5), 1: JobProfile(1.0, 0.9)}
    path = tmp_path / "profiles.csv"
    write_profiles(profiles, path)
    assert read_profiles(path) == profiles
    cases = {
        "job_id,p,beta_comp\n1,0.5,0.5\n2,abc,0.5\n": r"line 3, field p: 'abc' is not a valid float",
        "job_id,p,beta_comp\n1,1.5,0.5\n": r"line 2, field p: must lie in \[0, 1\]",
        "job_id,p\n1,0.5\n": r"line 1: the header",
        "job_id,p,beta_comp\n1,0.5\n": r"line 2: expected 3 fields",
        "job_id,p,beta_comp\nx,0.5,0.5\n": r"line 2, field job_id",
        "job_id,p,beta_comp\n1,0.5,0.5\n1,0.5,0.5\n": r"line 3, field job_id: job 1 appears twice",
        "job_id,p,beta_comp\n1,0.5,nan\n": r"field beta_comp: 'nan' is not finite",
    }
    for text, message in cases.items():
        path.write_text(text)
        with pytest.raises(ValueError, match=message) as error:
            read_profiles(path)
        assert str(path) in str(error.value)


def test_metrics_by_hand():
    model = CpuPowerModel(nominal_cpu_watts=10.0)
    frame = pd.DataFrame({
        "submit": [0.0, 0.0], "start": [0.0, 1000.0], "end": [2000.0, 1300.0],
        "cpus": [2, 1], "runtime_nominal": [1000.0, 300.0], "requested": [1000.0, 300.0],
        "frequency_ghz": [1.15, 2.3], "watts": [10.0, 10.0]})
    m = thesis_metrics(frame, machine_cpus=4, power=model)
    # job 1: ran twice its nominal time, no wait: eq 3.15 gives 2, eq 3.14 gives 1
    # job 2: waited 1000 s, 300 s run: (1000 + 300) / 600
    assert m["bsld"] == pytest.approx((2 + 1300 / 600) / 2)
    assert m["bsld_eq_3_14"] == pytest.approx((1 + 1300 / 600) / 2)
    assert m["slowdown"] == pytest.approx((1 + 1300 / 300) / 2)
    assert m["utilization"] == pytest.approx((2 * 2000 + 300) / (4 * 2000))
    assert m["load_requested"] == pytest.approx((2 * 2000 + 1 * 1300) / (4 * 2000))
    assert (m["wait_mean_s"], m["wait_max_s"], m["wait_std_s"]) == (500.0, 1000.0, 500.0)
    assert m["frequency_mean_ghz"] == pytest.approx((1.15 * 4000 + 2.3 * 300) / 4300)
    assert m["frequency_job_mean_ghz"] == pytest.approx((1.15 + 2.3) / 2)  # per job
    assert m["energy_computational_j"] == pytest.approx(10 * 2000 + 10 * 300)
    idle = model.cpu_watts(0, model.a_comm) * (4 * 2000 - 4300)
    assert m["energy_total_j"] == pytest.approx(23000 + idle)
    assert m["energy_bsld"] == pytest.approx(m["energy_total_j"] * m["bsld"])
    assert not math.isnan(m["wait_p95_s"])


# -- the thesis' trace portion ----------------------------------------------------
PORTION = """\
; MaxProcs: 16
1 100 -1 50 4 -1 -1 4 60 -1 1 1 1 1 1 -1 -1 -1
2 110 -1 -1 -1 -1 -1 -1 600 -1 5 1 1 1 1 -1 -1 -1
3 120 -1 0 8 -1 -1 8 -1 -1 0 1 1 1 1 -1 -1 -1
4 130 -1 70 -1 -1 -1 2 -1 -1 1 1 1 1 1 -1 -1 -1
5 140 -1 10 32 -1 -1 32 20 -1 1 1 1 1 1 -1 -1 -1
"""


def test_the_portion_keeps_cancelled_lines_as_jobs_of_nothing(tmp_path):
    path = tmp_path / "portion.swf"
    path.write_text(PORTION)
    # job 2 was cancelled before it started (-1 run time, -1 processors), job 3
    # ran 0 s: both kept, as the thesis' averages show; job 4 asks for its
    # requested processors (allocated unknown) and plans with its runtime
    assert thesis_portion(path, 16, 1, 4) == [
        Job(1, 0.0, 50.0, 4, 60.0), Job(2, 10.0, 0.0, 0, 600.0), Job(3, 20.0, 0.0, 8, 0.0),
        Job(4, 30.0, 70.0, 2, 70.0)]
    with pytest.raises(ValueError, match=f"^{re.escape(str(path))}:6: field 5 \\(allocated "
                                         "processors\\): job 5 needs 32 CPUs, more than the "
                                         "machine's 16$"):
        thesis_portion(path, 16, 1, 5)
    with pytest.raises(ValueError, match=f"^{re.escape(str(path))}:5: field 8 \\(requested "
                                         "processors\\): job 4 needs 2 CPUs, more than the "
                                         "machine's 1$"):
        thesis_portion(path, 1, 4, 4)
    with pytest.raises(ValueError, match=f"^{re.escape(str(path))}: no job numbered 7..9$"):
        thesis_portion(path, 16, 7, 9)


@pytest.mark.parametrize("name, packed", [("plain.swf.gz", False), ("packed.swf", True)])
def test_the_portion_tells_gzip_by_its_bytes_not_its_name(tmp_path, name, packed):
    # pandas went by the name: BadGzipFile on a plain trace named .gz, and
    # "Usecols do not match columns" on a gzip trace named .swf
    path = tmp_path / name
    path.write_bytes(gzip.compress(PORTION.encode()) if packed else PORTION.encode())
    (tmp_path / "portion.swf").write_text(PORTION)
    assert thesis_portion(path, 16, 1, 4) == thesis_portion(tmp_path / "portion.swf", 16, 1, 4)
    with pytest.raises(ValueError, match=f"^{re.escape(str(path))}:6: field 5 "):
        thesis_portion(path, 16, 1, 5)


@pytest.mark.parametrize("profile", [JobProfile(2, 1), JobProfile(float("nan"), 1),
                                     JobProfile(0.5, -0.1)])
def test_a_profile_of_no_share_is_refused_and_jobs_may_come_from_a_generator(profile):
    # p = 2 ran at 133 W a CPU, above the sequential maximum of 100 W; NaN
    # failed deep in a firing; a generator was used up by the profile check
    from nets.dvfs_thesis import ThesisConfig, simulate
    with pytest.raises(ValueError, match=r"job 1's DVFS profile .*: p and beta_comp are "
                                         r"shares within \[0, 1\]"):
        simulate([Job(1, 0, 10, 1, 10)], ThesisConfig(4), {1: profile})
    ran = simulate((job for job in [Job(1, 0, 10, 1, 10)]), ThesisConfig(4),
                   {1: JobProfile(0.5, 0.5)})
    assert len(ran.jobs) == 1


def test_a_run_of_jobs_that_all_leave_at_once_has_no_rates_not_a_crash():
    # runtime 0 (the thesis keeps such jobs): a ZeroDivisionError of the makespan
    import warnings

    from nets.dvfs_thesis import ThesisConfig, simulate
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)  # no mean of nothing either
        metrics = simulate([Job(1, 0, 0, 2, 50)], ThesisConfig(4), {1: JobProfile(1, 1)}).metrics
    assert metrics["makespan_s"] == 0 and metrics["jobs"] == 1
    assert all(math.isnan(metrics[key]) for key in ("utilization", "slowdown",
                                                    "frequency_mean_ghz"))


@pytest.mark.parametrize("fields, message", [
    (dict(machine_cpus="4"), "machine_cpus must be a positive whole number of CPUs, not '4'"),
    (dict(machine_cpus=4.5), "machine_cpus must be a positive whole number of CPUs, not 4.5"),
    (dict(machine_cpus=True), "machine_cpus must be a positive whole number of CPUs, not True"),
    (dict(machine_cpus=0), "machine_cpus must be a positive whole number of CPUs, not 0"),
    (dict(machine_cpus=4, policy="upas"), "policy must be a policy's configuration "
                                          "(EasyConfig, UpasConfig,"),
    (dict(machine_cpus=4, power=5), "power must be a CpuPowerModel, not 5"),
])
def test_a_thesis_config_refuses_fields_of_the_wrong_kind_naming_them(fields, message):
    """machine_cpus="4" was "'<=' not supported between instances of 'str' and
    'int'", 4.5 CPUs a run of a half CPU, a policy named by a string an
    AttributeError while the net was built."""
    from nets.dvfs_thesis import ThesisConfig
    with pytest.raises(ValueError, match=re.escape(message)):
        ThesisConfig(**fields)
    assert type(ThesisConfig(np.int64(4)).machine_cpus) is int
