"""The synthetic Mira-like workload against Mira's own logs: the
statistics re-derived from ../shared/data/mira (skipped without it) match
the generated months within the stated tolerances.

Five generated months of January's load hold about 20,000 jobs, so a share
p is drawn with a standard deviation of at most 0.0035 (p = 0.5); the
tolerances allow four of those plus the rounding of the constants, or say
why they are wider."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from mira_logs import mira_statistics
from modules.synthetic import (MIRA_LOADS, MIRA_SIZE_SHARES, SyntheticConfig, mira_load,
                               synthetic_month)

MONTH = 30 * 86_400.0


@pytest.fixture(scope="module")
def logs():
    return mira_statistics()


@pytest.fixture(scope="module")
def generated():
    return pd.concat([synthetic_month(seed).frame() for seed in range(5)], ignore_index=True)


def test_sizes_are_mira_sizes_in_their_shares(logs, generated):
    shares = (generated["js"] // 512).value_counts(normalize=True)
    assert set(shares.index) == set(logs["size_shares"]) == set(MIRA_SIZE_SHARES)
    for units, share in logs["size_shares"].items():
        assert shares[units] == pytest.approx(share, abs=0.015), units


def test_walltimes_match_the_logged_quantiles(logs, generated):
    """Walltimes come from a menu, so each quantile is a menu value: the
    generated 10-90 % quantiles are the logged ones exactly (the menu
    leaves out the 5-7 % of rare requests, too few to move a quantile off
    its value)."""
    quantiles = generated["wt"].quantile([0.1, 0.25, 0.5, 0.75, 0.9]).tolist()
    assert quantiles == logs["walltime_quantiles"] == [1_800, 3_600, 7_140, 21_600, 21_600]


def test_runtime_over_walltime_matches_the_logged_quantiles(logs, generated):
    """Within 0.03: the logged ratios are interpolated between quantiles 5 %
    apart, and a class mix drawn a little differently moves them."""
    ratio = (generated["rt"] / generated["wt"]).quantile([0.1, 0.25, 0.5, 0.75, 0.9])
    assert ratio.tolist() == pytest.approx(logs["ratio_quantiles"], abs=0.03)


def test_arrivals_follow_the_logged_hours_of_the_day(logs, generated):
    shares = np.bincount((generated["st"] % 86_400 // 3600).astype(int), minlength=24)
    shares = shares / shares.sum()
    assert shares == pytest.approx(logs["hour_shares"], abs=0.008)
    # the shape: four afternoon hours against four night hours, 2.2 times
    afternoon, night = slice(12, 16), slice(0, 4)
    assert shares[afternoon].sum() / shares[night].sum() == pytest.approx(
        logs["hour_shares"][afternoon].sum() / logs["hour_shares"][night].sum(), rel=0.1)


def test_loads_are_the_windows_loads(logs):
    assert mira_load(0) == mira_load(2) == MIRA_LOADS[0]
    assert mira_load(1) == MIRA_LOADS[1] and mira_load(None) == MIRA_LOADS[0]
    assert MIRA_LOADS == pytest.approx(
        (logs["offered_load"]["wk1"], logs["offered_load"]["wk2"]), abs=0.005)


def test_jobs_per_day_at_the_logged_load(logs):
    """Both windows together: 3,633 jobs in 20.9 days at their combined
    load.  A month at that load has as many jobs a day within 10 % (a job's
    work is heavy-tailed: the few whole-machine jobs move a window's count)."""
    days = logs["days"]
    load = sum(logs["offered_load"][name] * days[name] for name in days) / sum(days.values())
    per_day = logs["jobs"] / sum(days.values())
    counts = [len(synthetic_month(seed, SyntheticConfig(load=load)).jobs) for seed in range(3)]
    assert np.mean(counts) / 30 == pytest.approx(per_day, rel=0.10)
