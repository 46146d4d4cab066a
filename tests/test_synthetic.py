"""The synthetic Mira-like month: a pure function of the seed, sizes in
midplanes, the target offered load, a daily cycle and per-owner power.
Expected values are worked out by hand in the comments."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from modules.synthetic import SyntheticConfig, synthetic_month
from modules.workload import Workload

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
    assert (sizes > 0).all() and (sizes <= MIRA_NODES).all()
    assert (sizes % 512 == 0).all()
    # one midplane: small jobs (0.40) plus non-small powers of two with
    # round(x) = 0, i.e. x < 0.5 in the low stage [0, 4]: 0.6 * 0.85 * 0.9 * 0.5/4
    expected = 0.40 + 0.6 * 0.85 * 0.9 * 0.125  # = 0.457
    assert (sizes == 512).mean() == pytest.approx(expected, abs=0.015)
    # most of the rest are powers of two in midplanes: 1024, 2048, ... 32768
    powers = sizes.isin([512 * 2**k for k in range(7)])
    assert powers.mean() > 0.9


def test_offered_load_in_target_range(months):
    for wl in months.values():
        work = sum(j.js * j.rt for j in wl.jobs)  # node-seconds
        load = work / (MIRA_NODES * MONTH)
        assert 0.7 <= load <= 0.9
        # within one job of the 0.8 target: the largest is a machine-day, 1/30 of it
        assert load == pytest.approx(0.8, abs=1 / 30)
        assert wl.offered_load(span=MONTH) == pytest.approx(load)


def test_load_follows_the_config():
    wl = synthetic_month(1, SyntheticConfig(load=0.5))
    load = sum(j.js * j.rt for j in wl.jobs) / (MIRA_NODES * MONTH)
    assert load == pytest.approx(0.5, abs=1 / 30)
    # ~0.5/0.8 of the jobs of the default month
    assert 0.45 < len(wl.jobs) / len(synthetic_month(1).jobs) < 0.8


def test_times_and_walltimes(months):
    for wl in months.values():
        submits = [j.st for j in wl.jobs]
        assert submits == sorted(submits) and 0 <= submits[0] and submits[-1] < MONTH
        assert [j.id for j in wl.jobs] == list(range(1, len(wl.jobs) + 1))
    f = frame_of(months)
    assert (f.rt >= 1).all() and (f.rt <= 86_400).all()
    assert (f.wt >= f.rt).all() and (f.wt <= 86_400).all()
    # accuracy rt/wt uniform on [0.1, 1]: median about 0.55 (less a little for rounding up)
    assert np.median(f.rt / f.wt) == pytest.approx(0.55, abs=0.05)
    # walltimes are whole minutes unless capped at the runtime or at 24 h
    whole = (f.wt % 60 == 0) | (f.wt == f.rt)
    assert whole.all()


def test_runtimes_look_like_mira(months):
    rt = frame_of(months)["rt"]
    # Mira's 2018 Cobalt logs: median between 45 min and 1.4 h, 95th 6-10 h
    assert 2_000 < rt.median() < 6_000
    assert 18_000 < np.percentile(rt, 95) < 40_000
    # larger jobs run longer (the short component is rarer for them)
    f = frame_of(months)
    assert f[f.js >= 8192].rt.median() > f[f.js == 512].rt.median()


def test_daily_cycle(months):
    hours = (frame_of(months)["st"] % 86_400) // 3600
    afternoon = hours.between(12, 15).sum()  # 12:00-16:00, around the 14:00 peak
    night = hours.between(0, 3).sum()  # 00:00-04:00, around the 02:00 trough
    # mean rate 1 + 0.5 * sin(pi/6)/(pi/6) = 1.477 vs 1 - 0.477 = 0.523: ratio 2.83
    assert 2.3 < afternoon / night < 3.5


def test_power_shared_by_owner_and_within_table_bounds(months):
    f = frame_of({0: months[0]})
    per_rack = f.jp / f.js * 1024  # watts per rack
    assert per_rack.between(36_480, 160_600).all()
    spread = per_rack.groupby([f.user, f.group]).agg(lambda s: s.max() - s.min())
    assert spread.max() == pytest.approx(0.0, abs=1e-6)
    assert per_rack.groupby([f.user, f.group]).first().nunique() == len(spread) > 20
    # mean over owners near Table I's 65.76 kW
    assert per_rack.groupby([f.user, f.group]).first().mean() == pytest.approx(65_760, abs=3_000)


def test_config_is_validated():
    with pytest.raises(ValueError, match="multiple of allocation_unit"):
        SyntheticConfig(machine_nodes=1000)
    with pytest.raises(ValueError, match="small_probability"):
        SyntheticConfig(small_probability=1.5)
    with pytest.raises(ValueError, match=r"log2_split .* = 3\]"):
        SyntheticConfig(machine_nodes=4096)  # 8 midplanes: the split at 16 is beyond
    small = synthetic_month(0, SyntheticConfig(machine_nodes=4096, log2_split=2.0, days=7.0))
    assert max(j.js for j in small.jobs) <= 4096 and small.jobs[-1].st < 7 * 86_400
    assert math.isclose(small.offered_load(span=7 * 86_400.0), 0.8, abs_tol=1 / 7 * 1.0)
