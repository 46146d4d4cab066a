"""The synthetic Mira-like month: a pure function of the seed, sizes in
midplanes, walltimes from Mira's menus, the target offered load, the daily
cycle and per-owner power.  Expected values are worked out by hand in the
comments; tests/test_synthetic_calibration.py checks the constants against
Mira's logs."""

from __future__ import annotations

import math
import re

import pandas as pd
import pytest

from modules.synthetic import (MIRA_LARGE_WALLTIMES, MIRA_SIZE_SHARES, MIRA_SMALL_WALLTIMES,
                               SyntheticConfig, synthetic_month)
from modules.workload import Workload
from studies.experiment import Experiment
from studies.workloads import prepare_workload

MONTH = 30 * 86_400.0
MIRA_NODES = 49_152


@pytest.fixture(scope="module")
def months():
    return {seed: synthetic_month(seed) for seed in range(5)}


def frame_of(months):
    return pd.concat([wl.frame() for wl in months.values()], ignore_index=True)


def test_reproducible_per_seed(months):
    again = synthetic_month(3)
    assert again.jobs == months[3].jobs  # every field, powers included
    assert again.header == months[3].header


def test_different_across_seeds(months):
    assert months[0].jobs != months[1].jobs
    assert len({len(wl.jobs) for wl in months.values()}) > 1
    assert months[0].jobs[0].st != months[1].jobs[0].st


def test_is_a_workload_of_the_machine(months):
    wl = months[0]
    assert isinstance(wl, Workload)
    assert wl.machine_nodes == MIRA_NODES and wl.allocation_unit == 512
    assert len(wl.rejected) == 0 and list(wl.rejected.columns) == ["job_id", "line", "reason"]
    assert wl.header["MaxNodes"] == "49152" and wl.header["Seed"] == "0"
    assert f"{len(wl.jobs):,} jobs read" in wl.summary()


def test_sizes_within_machine_in_midplanes(months):
    sizes = frame_of(months)["js"]
    assert set(sizes // 512) == set(MIRA_SIZE_SHARES)  # 1 to 96 midplanes, as logged
    assert (sizes % 512 == 0).all() and sizes.max() == MIRA_NODES
    # one midplane in the logged share, 0.4104; about 20,000 jobs: sd 0.0035
    assert (sizes == 512).mean() == pytest.approx(0.4104, abs=0.015)


def test_offered_load_in_target_range(months):
    for wl in months.values():
        work = sum(j.js * j.rt for j in wl.jobs)  # node-seconds
        load = work / (MIRA_NODES * MONTH)
        # within one job of January's 0.81: the largest is a machine-day, 1/30 of it
        assert load == pytest.approx(0.81, abs=1 / 30)
        assert wl.offered_load(span=MONTH) == pytest.approx(load)


def test_load_follows_the_config():
    wl = synthetic_month(1, SyntheticConfig(load=0.5))
    load = sum(j.js * j.rt for j in wl.jobs) / (MIRA_NODES * MONTH)
    assert load == pytest.approx(0.5, abs=1 / 30)
    # ~0.5/0.81 = 0.62 of the jobs of the default month
    assert 0.5 < len(wl.jobs) / len(synthetic_month(1).jobs) < 0.75


def test_a_study_month_has_its_window_load():
    """Month 0 is January's draw (as ``cpn run``), month 1 a draw at March's load."""
    prepared = prepare_workload(Experiment(month=0))
    january = prepared.jobs
    march = prepare_workload(Experiment(month=1)).jobs
    assert list(january) == synthetic_month(0).starting_at_zero().jobs
    for jobs, load in ((january, 0.81), (march, 1.05)):
        assert sum(j.js * j.rt for j in jobs) / (MIRA_NODES * MONTH) == \
            pytest.approx(load, abs=1 / 30)


def test_a_study_month_starts_at_its_first_submit_as_cpn_run():
    """Its power series, energy and EDP then span what ``cpn run``'s do
    (which shifts the month alike): the month's first job comes 1,600 s
    after its midnight, idle time no run counted in either."""
    drawn = synthetic_month(0).jobs
    prepared = prepare_workload(Experiment(month=0))
    first = drawn[0].st
    assert first > 0 and prepared.jobs[0].st == 0.0
    assert [j.st for j in prepared.jobs] == [j.st - first for j in drawn]
    assert prepared.day_offset == first  # hours of the day stay the month's own


def test_times_and_walltimes(months):
    for wl in months.values():
        submits = [j.st for j in wl.jobs]
        assert submits == sorted(submits) and 0 <= submits[0] and submits[-1] < MONTH
        assert submits == [int(t) for t in submits]  # whole seconds
        assert [j.id for j in wl.jobs] == list(range(1, len(wl.jobs) + 1))
    f = frame_of(months)
    large = f.js >= 8 * 512
    assert set(f.wt[~large]) == set(MIRA_SMALL_WALLTIMES)
    assert set(f.wt[large]) == set(MIRA_LARGE_WALLTIMES)
    assert (f.rt >= 1).all() and (f.rt <= f.wt).all() and (f.rt == f.rt.round()).all()
    # 3 of 20 quantiles of the ratio are 1: 15 % of jobs run their whole walltime
    assert (f.rt == f.wt).mean() == pytest.approx(0.15, abs=0.02)
    # capability jobs ask for longer: median 5 h against 1.5 h, the menus'
    # (and the logs') medians: 471 and 519 per mille lie at or below them
    assert (f.wt[large].median(), f.wt[~large].median()) == (18_000, 5_400)


def test_daily_cycle(months):
    hours = (frame_of(months)["st"] % 86_400) // 3600
    afternoon = hours.between(12, 15).sum()  # 12:00-16:00
    night = hours.between(0, 3).sum()  # 00:00-04:00
    # the hour shares: (53 + 61 + 62 + 66) / (28 + 31 + 28 + 21) = 2.24
    assert afternoon / night == pytest.approx(242 / 108, rel=0.08)


def test_days_need_not_be_whole():
    week = synthetic_month(2, SyntheticConfig(days=6.5, load=0.5))
    assert max(j.st for j in week.jobs) < 6.5 * 86_400
    assert max(j.st for j in week.jobs) > 6 * 86_400  # the half day has arrivals


def test_power_shared_by_owner_and_within_table_bounds(months):
    f = frame_of({0: months[0]})
    per_rack = f.jp / f.js * 1024  # watts per rack
    assert per_rack.between(36_480, 160_600).all()
    spread = per_rack.groupby([f.user, f.group]).agg(lambda s: s.max() - s.min())
    assert spread.max() == pytest.approx(0.0, abs=1e-6)
    assert per_rack.groupby([f.user, f.group]).first().nunique() == len(spread) > 20
    # mean over owners near Table I's 65.76 kW
    assert per_rack.groupby([f.user, f.group]).first().mean() == pytest.approx(65_760, abs=3_000)


@pytest.mark.parametrize("fields, message", [
    ({"machine_nodes": 1000}, "machine_nodes must be a multiple of allocation_unit"),
    ({"load": 0}, "days and load must be positive"),
    ({"size_shares": ((1, -1.0), (2, 2.0))},
     "size_shares must be non-negative weights with a positive sum, got {1: -1.0, 2: 2.0}"),
    ({"size_shares": ((0.5, 1.0),)}, "size_shares are of whole allocation units, got [0.5]"),
    ({"large_walltimes": ((0, 1.0),)}, "walltimes must be at least 1 s"),
    ({"small_ratios": (0.5, 0.2)}, "small_ratios are quantiles: at least two, increasing"),
    ({"hour_shares": (1.0,) * 23}, "hour_shares has one weight per hour: 24, not 23"),
    ({"users": 0}, "users and groups must be at least 1"),
])
def test_config_is_validated(fields, message):
    with pytest.raises(ValueError, match=re.escape(message)):
        SyntheticConfig(**fields)


def test_a_smaller_machine_caps_sizes_at_its_size():
    small = synthetic_month(0, SyntheticConfig(machine_nodes=4096, days=7.0))
    assert max(j.js for j in small.jobs) == 4096 and small.jobs[-1].st < 7 * 86_400
    assert math.isclose(small.offered_load(span=7 * 86_400.0), 0.81, abs_tol=1 / 7)
