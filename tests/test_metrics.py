"""Metrics over flat records: energy integrals, the paper's fixed-step estimate,
daily energy, scheduling metrics and result files.  Expected numbers are
worked out by hand in the comments."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from peak_memory import traced_peak
from hypothesis import given, settings
from hypothesis import strategies as st

from modules.metrics import job_frame, summary_metrics
from modules.power_steps import (JOULES_PER_KWH, binned_power, collapse_step_series, daily_energy,
                                 daily_energy_errors, energy_exact, energy_fixed_step,
                                 max_daily_energy_error, power_at, power_metrics)
from modules.run_files import power_series_frame, write_results

DAY = 86400.0

# A 100 W base load with a 1000 W spike on [25, 30), ending at 60.
# Exact: 100*25 + 1000*5 + 100*30 = 10500 J.
SPIKE = ([0.0, 25.0, 30.0], [100.0, 1000.0, 100.0], 60.0)


# ---------------------------------------------------------------- exact energy


def test_exact_energy_of_three_steps():
    # 100 W for 10 s + 300 W for 20 s + 200 W for 30 s = 1000 + 6000 + 6000
    assert energy_exact([0, 10, 30], [100, 300, 200], end=60) == 13000.0


def test_exact_energy_is_the_correctly_rounded_sum_on_every_machine():
    """One 1e16 W second, then 100,000 seconds at 1 W: 1e16 + 1e5 J, a float.
    Added in order, each watt-second is lost against 1e16; BLAS's dot
    product (its threads and vector lanes) keeps some of them, how many
    depending on the machine; the exact energy and the metrics keep all."""
    watts = [1e16] + [1.0] * 100_000
    times = list(range(len(watts)))
    exact = 10**16 + 100_000
    assert energy_exact(times, watts, end=len(watts)) == exact
    assert power_metrics(times, watts, len(watts))["energy_j"] == exact


def test_exact_energy_ignores_entries_after_end_and_shifted_start():
    # From t0 = 1000: 50 W for 20 s, then 70 W for 5 s until end = 1025.
    assert energy_exact([1000, 1020, 1030], [50, 70, 999], end=1025) == 50 * 20 + 70 * 5


def test_exact_energy_rejects_malformed_series():
    with pytest.raises(ValueError, match="non-decreasing"):
        energy_exact([0, 10, 5], [1, 1, 1], end=20)
    with pytest.raises(ValueError, match="differ in length"):
        energy_exact([0, 10], [1], end=20)
    with pytest.raises(ValueError, match="before the first time"):
        energy_exact([10, 20], [1, 1], end=5)
    with pytest.raises(ValueError, match="empty"):
        energy_exact([], [], end=5)


# ---------------------------------------------------------- fixed-step estimate


def test_fixed_step_misses_a_short_spike():
    # Samples at 0, 10, 20, 30, 40, 50 all read 100 W (at 30 the spike has
    # just ended): 6 * 100 * 10 = 6000 J, missing the spike's 4500 J.
    assert energy_fixed_step(*SPIKE, step=10) == 6000.0


def test_fixed_step_catches_a_spike_and_overcounts_it():
    # step 15: samples at 0, 15, 30, 45 all read 100 W -> 6000 J (missed).
    assert energy_fixed_step(*SPIKE, step=15) == 6000.0
    # step 25: samples at 0 (100 W), 25 (1000 W), 50 (100 W), each for a
    # whole step, the last one reaching past end = 60:
    # 100*25 + 1000*25 + 100*25 = 30000 J; the spike counts for 25 s, not 5 s.
    assert energy_fixed_step(*SPIKE, step=25) == 30000.0
    # step 20 over [0, 60): samples at 0, 20, 40 read 100 W -> 6000 J.
    assert energy_fixed_step(*SPIKE, step=20) == 6000.0


def test_fixed_step_that_divides_all_changes_is_exact():
    # step 5 samples 0, 5, ..., 55: the 1000 W sample at 25 covers [25, 30).
    assert energy_fixed_step(*SPIKE, step=5) == 10500.0
    assert energy_exact(*SPIKE) == 10500.0


def test_fixed_step_paper_example():
    # Section 4: 600 (W) in Power at the 5th minute, 1 min step ->
    # 600/1000 * 1/60 kWh = 0.01 kWh for that step.
    joules = energy_fixed_step([0, 300, 360], [0.0, 600.0, 0.0], end=360, step=60)
    assert joules / JOULES_PER_KWH == pytest.approx(0.01)


# ------------------------------------------------- several changes at one instant


def test_several_changes_at_one_instant_last_wins():
    times = [0, 10, 10, 10, 20]
    watts = [100, 500, 0, 300, 200]
    # 100*10 + 300*10 + 200*10: the 500 W and 0 W entries last zero seconds.
    assert energy_exact(times, watts, end=30) == 6000.0
    assert power_at(times, watts, 10) == 300.0
    assert list(power_at(times, watts, [0, 9.99, 10, 25])) == [100.0, 100.0, 300.0, 200.0]
    # Samples at 0, 10, 20 read 100, 300, 200.
    assert energy_fixed_step(times, watts, end=30, step=10) == 6000.0
    # Collapsed: one entry per instant.
    t, w = collapse_step_series(times, watts, end=30)
    assert list(t) == [0, 10, 20] and list(w) == [100, 300, 200]
    # The overridden 500 W is not a peak.
    jobs = pd.DataFrame({"job_id": [1], "submit": [0], "start": [0], "end": [30], "nodes": [1]})
    assert summary_metrics(jobs, times, watts, 30, machine_nodes=1)["power_peak_w"] == 300.0


# ----------------------------------------------------------------- daily energy


def test_daily_energy_splits_an_interval_at_the_day_boundary():
    # Series starts at t0 = 1000 (days counted from there, boundary at 87400):
    # 1000 W on [1000, 81000), 2000 W on [81000, 91000), 500 W on [91000, 101000).
    times, watts, end = [1000, 81000, 91000], [1000, 2000, 500], 101000
    daily = daily_energy(times, watts, end)
    assert list(daily["day"]) == [0, 1]
    assert list(daily["start"]) == [1000, 1000 + DAY]
    # Day 0: 1000*80000 + 2000*6400 = 92.8 MJ; day 1: 2000*3600 + 500*10000 = 12.2 MJ.
    assert daily["kwh"].tolist() == pytest.approx([92.8e6 / 3.6e6, 12.2e6 / 3.6e6])
    # Fixed step of 20000 s: samples at +0..+80000 read 1000, 1000, 1000,
    # 1000, 2000; the last holds to the end and is split at the boundary:
    # day 0 = 80 MJ + 2000*6400 = 92.8 MJ (exact), day 1 = 2000*13600 = 27.2 MJ.
    estimate = daily_energy(times, watts, end, step=20000)
    assert estimate["kwh"].tolist() == pytest.approx([92.8e6 / 3.6e6, 27.2e6 / 3.6e6])
    errors = daily_energy_errors(times, watts, end, step=20000)
    assert errors["relative_error"].tolist() == pytest.approx([0.0, 15 / 12.2])
    assert max_daily_energy_error(times, watts, end, step=20000) == pytest.approx(15 / 12.2)
    # A step that divides every change time is exact every day.
    assert max_daily_energy_error(times, watts, end, step=1000) == pytest.approx(0.0, abs=1e-12)


def test_daily_fixed_step_splits_steps_and_keeps_the_overhang():
    # 10 s days over [0, 25) with step 15: samples at 0 (100 W) and 15 (1000 W),
    # held on [0, 15) and [15, 30).  Day 0 [0,10): 1000 J; day 1 [10,20):
    # 100*5 + 1000*5 = 5500 J; day 2 [20,25) plus the overhang to 30: 10000 J.
    daily = daily_energy([0, 12], [100.0, 1000.0], 25, day=10, step=15)
    assert (daily["kwh"] * JOULES_PER_KWH).tolist() == pytest.approx([1000, 5500, 10000])
    assert energy_fixed_step([0, 12], [100.0, 1000.0], 25, step=15) == 16500.0


def test_daily_energy_with_custom_day_length():
    # 10 s "days" over [0, 25): 3 W throughout -> 30, 30, 15 J.
    daily = daily_energy([0], [3.0], 25, day=10)
    assert (daily["kwh"] * JOULES_PER_KWH).tolist() == pytest.approx([30, 30, 15])


# ---------------------------------------------------------------- binned power


def test_binned_power_keeps_short_peaks():
    # Bins of 20 s over [0, 60): [0,20) all 100 W; [20,40) 100 W for 5 s,
    # 1000 W for 5 s, 100 W for 10 s -> mean 325 W, max 1000; [40,60) 100 W.
    bins = binned_power(*SPIKE, width=20)
    assert bins["start"].tolist() == [0, 20, 40]
    assert bins["mean"].tolist() == pytest.approx([100, 325, 100])
    assert bins["max"].tolist() == [100, 1000, 100]
    assert bins["min"].tolist() == [100, 100, 100]


def test_binned_power_segment_starting_on_a_bin_edge():
    # 5 W on [0, 10), 7 W on [10, 20): the 7 W segment does not reach bin 0.
    bins = binned_power([0, 10], [5.0, 7.0], 20, width=10)
    assert bins["max"].tolist() == [5, 7] and bins["min"].tolist() == [5, 7]


def test_binned_power_has_no_empty_last_bin_when_rounding_reaches_the_end():
    # 32 bins of 0.1 s from t0: t0 + 32 * 0.1 rounds to the end itself, so
    # a 33rd bin would start at the end, with no length and a mean of NaN.
    start = 788723351.1355132
    end = start + 3.200000047683716
    bins = binned_power([start, start + 0.05], [1.0, 2.0], end, width=0.1)
    assert len(bins) == 32 and bins["mean"].notna().all()
    assert bins["start"].iloc[-1] < end


# ------------------------------------------------------------ summary metrics


def three_jobs() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "job_id": [1, 2, 3],
            "submit": [0.0, 10.0, 20.0],
            "start": [0.0, 50.0, 100.0],
            "end": [100.0, 250.0, 105.0],
            "nodes": [4, 6, 2],
            "power": [400.0, 600.0, 200.0],
        }
    )


# 400 W on [0, 50), 1000 on [50, 100), 800 on [100, 105), 600 on [105, 250).
POWER = ([0.0, 50.0, 100.0, 105.0], [400.0, 1000.0, 800.0, 600.0], 250.0)


def test_summary_metrics_by_hand():
    m = summary_metrics(three_jobs(), *POWER, machine_nodes=10)
    assert m["jobs"] == 3
    # makespan: last end 250 - first submit 0.
    assert m["makespan_s"] == 250.0
    # node-seconds 4*100 + 6*200 + 2*5 = 1610 over 10 nodes * 250 s.
    assert m["utilization"] == pytest.approx(0.644)
    # waits 0, 40, 80: p90 at rank 1.8 -> 40 + 0.8*40; p99 at rank 1.98.
    assert m["wait_mean_s"] == pytest.approx(40.0)
    assert m["wait_median_s"] == pytest.approx(40.0)
    assert m["wait_p90_s"] == pytest.approx(72.0)
    assert m["wait_p99_s"] == pytest.approx(79.2)
    assert m["wait_max_s"] == 80.0
    # bounded slowdowns: max(1, 100/100) = 1; 240/200 = 1.2; (80+5)/max(5, 10) = 8.5.
    assert m["bounded_slowdown_mean"] == pytest.approx((1 + 1.2 + 8.5) / 3)
    # energy 400*50 + 1000*50 + 800*5 + 600*145 = 161000 J.
    assert m["energy_j"] == pytest.approx(161000.0)
    assert m["energy_kwh"] == pytest.approx(161000.0 / 3.6e6)
    assert m["power_mean_w"] == pytest.approx(644.0)
    assert m["power_peak_w"] == 1000.0
    assert m["edp_j_s"] == pytest.approx(161000.0 * 250.0)
    assert (m["series_start_s"], m["series_end_s"]) == (0.0, 250.0)


def test_bounded_slowdown_threshold_changes_short_jobs_only():
    m = summary_metrics(three_jobs(), *POWER, machine_nodes=10, bsld_threshold=1.0)
    # job 3 now: (80 + 5) / 5 = 17.
    assert m["bounded_slowdown_mean"] == pytest.approx((1 + 1.2 + 17) / 3)


def test_summary_metrics_rejects_inconsistent_jobs():
    jobs = three_jobs()
    jobs.loc[1, "start"] = 5.0  # starts before its submission at 10
    with pytest.raises(ValueError, match="job_id \\[2\\]"):
        summary_metrics(jobs, *POWER, machine_nodes=10)
    with pytest.raises(ValueError, match="lack columns"):
        summary_metrics(three_jobs().drop(columns="nodes"), *POWER, machine_nodes=10)


# ---------------------------------------------------------------- result files


def test_write_results_files(tmp_path):
    jobs = three_jobs()[["power", "nodes", "end", "start", "submit", "job_id"]]  # scrambled order
    m = summary_metrics(jobs, *POWER, machine_nodes=10)
    times = [0.0, 50.0, 50.0, 100.0, 105.0]
    watts = [400.0, 0.0, 1000.0, 800.0, 600.0]
    paths = write_results(tmp_path / "run", jobs, m, times, watts)

    written = pd.read_csv(paths["jobs.csv"])
    assert list(written.columns[:5]) == ["job_id", "submit", "start", "end", "nodes"]
    assert written["job_id"].tolist() == [1, 2, 3]
    assert written["wait"].tolist() == [0, 40, 80]
    assert written["runtime"].tolist() == [100, 200, 5]

    loaded = json.loads(paths["metrics.json"].read_text())
    assert loaded["jobs"] == 3 and loaded["energy_j"] == pytest.approx(161000.0)
    assert set(loaded) == set(m)

    power = pd.read_csv(paths["power.csv"])
    assert list(power.columns) == ["time", "watts"]
    # The overridden 0 W at t=50 is collapsed away.
    assert power["time"].tolist() == [0, 50, 100, 105]
    assert power["watts"].tolist() == [400, 1000, 800, 600]
    assert energy_exact(power["time"], power["watts"], loaded["series_end_s"]) == pytest.approx(161000.0)

    if "jobs.parquet" in paths:
        assert pd.read_parquet(paths["jobs.parquet"])["nodes"].tolist() == [4, 6, 2]


def test_metrics_json_turns_nan_into_null(tmp_path):
    paths = write_results(tmp_path, three_jobs(), {"x": float("nan"), "n": np.int64(3)}, [0], [1])
    assert json.loads(paths["metrics.json"].read_text()) == {"n": 3, "x": None}


def test_power_series_frame_keeps_raw_entries_on_request():
    frame = power_series_frame([0, 5, 5], [1, 2, 3], collapse=False)
    assert frame["watts"].tolist() == [1, 2, 3]
    assert power_series_frame([0, 5, 5, 8], [1, 2, 3, 3])["time"].tolist() == [0, 5]


# ---------------------------------------------------------------------- plots


def test_plots_write_images(tmp_path):
    from modules import plots

    daily = daily_energy([0, 80000, 90000], [1e6, 2e6, 5e5], 3 * DAY)
    estimate = daily_energy([0, 80000, 90000], [1e6, 2e6, 5e5], 3 * DAY, step=3600)
    out = plots.plot_daily_energy(estimate, tmp_path / "daily.png", reference_df=daily)
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    short = plots.plot_power([0, 3600, 7200], [2e7, 5e7, 3e7], tmp_path / "power.png", cap=4.5e7, end=10000)
    assert short.stat().st_size > 1000
    n = plots.MAX_DRAWN_STEPS + 10  # long series: drawn as per-bin envelopes
    long = plots.plot_power(np.arange(n) * 60.0, np.resize([1e7, 3e7], n), tmp_path / "long.png")
    assert long.stat().st_size > 1000


# ----------------------------------------------------------------- properties


@st.composite
def step_series_on_a_grid(draw):
    """A step series whose change times and end are multiples of ``step`` from t0."""
    step = draw(st.sampled_from([1.0, 7.0, 60.0, 900.0]))
    t0 = draw(st.integers(-1000, 1000)) * step
    gaps = draw(st.lists(st.integers(0, 50), min_size=0, max_size=40))  # 0: same instant
    times = t0 + np.concatenate(([0], np.cumsum(gaps))) * step
    watts = draw(st.lists(st.floats(0, 1e7, allow_nan=False), min_size=len(times), max_size=len(times)))
    end = times[-1] + draw(st.integers(0, 50)) * step
    return times, np.array(watts), end, step


@settings(max_examples=100, deadline=None)
@given(step_series_on_a_grid())
def test_fixed_step_dividing_all_changes_equals_exact(series):
    times, watts, end, step = series
    exact = energy_exact(times, watts, end)
    assert energy_fixed_step(times, watts, end, step) == pytest.approx(exact, rel=1e-9, abs=1e-6)
    # And exact energy equals the sum of value times duration computed naively.
    naive = sum(
        w * (min(t_next, end) - t) for t, w, t_next in zip(times, watts, list(times[1:]) + [end])
    )
    assert exact == pytest.approx(naive, rel=1e-9, abs=1e-6)


@settings(max_examples=100, deadline=None)
@given(step_series_on_a_grid(), st.floats(0.5, 50_000))
def test_daily_energies_sum_to_the_total(series, day):
    times, watts, end, step = series
    total_kwh = energy_exact(times, watts, end) / JOULES_PER_KWH
    daily = daily_energy(times, watts, end, day=day)
    assert daily["kwh"].sum() == pytest.approx(total_kwh, rel=1e-9, abs=1e-9)
    assert len(daily) == int(np.ceil((end - times[0]) / day))
    estimated = daily_energy(times, watts, end, day=day, step=step * 3)
    assert estimated["kwh"].sum() == pytest.approx(
        energy_fixed_step(times, watts, end, step * 3) / JOULES_PER_KWH, rel=1e-9, abs=1e-9
    )


def test_the_fixed_step_estimate_counts_samples_without_listing_them():
    # a trillion one-second samples: listing them would take terabytes
    assert energy_fixed_step([0.0, 5e11], [1.0, 2.0], end=1e12, step=1.0) == 1.5e12
    # a change exactly on a sample boundary counts from that sample on
    assert energy_fixed_step([0.0, 0.3], [1.0, 2.0], end=1.0, step=0.1) == pytest.approx(
        (3 * 1.0 + 7 * 2.0) * 0.1)


def test_job_frame_shares_the_records_columns_and_leaves_them_as_they_were():
    """The frame with ``runtime`` and ``wait`` is built twice at the end of
    a run (metrics, jobs.csv), where its memory peaks: it adds two 8-byte
    columns a job (32 B a job allows their temporaries too), it does not
    copy the eight it is given (128 B a job before)."""
    count = 50_000
    ids = np.arange(1, count + 1)
    records = pd.DataFrame({"job_id": ids, "submit": ids * 10.0, "start": ids * 10.0 + 5,
                            "end": ids * 10.0 + 50, "nodes": ids % 64 + 1,
                            "power": ids * 2.0, "requested": np.full(count, 100.0),
                            "runtime": np.full(count, 30.0)}, copy=False)
    frame, peak = traced_peak(lambda: job_frame(records))
    assert peak / count <= 32
    assert frame["runtime"].tolist()[:2] == [45.0, 45.0]  # end - start, not the nominal 30
    assert frame["wait"].tolist()[:2] == [5.0, 5.0]
    assert records["runtime"].tolist()[:2] == [30.0, 30.0]
    assert "wait" not in records
