"""Job power assignment: constant per node, seeded draws per owner from Wallace
et al.'s Table I, and a user CSV joined on job id.  Expected watts worked out
by hand in the comments."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest

from modules.job import Job
from modules.power_profile import (
    MIRA_2014,
    MIRA_2014_TABLE_I,
    RackPowerDistribution,
    RackPowerQuantiles,
    _in_order_of_first,
    assign_constant_power,
    assign_csv_power,
    assign_rack_power,
    draw_rack_power,
)


def job(id, js=1024, user=-1, group=-1):
    return Job(id=id, st=float(id), rt=100.0, js=js, wt=200.0, user=user, group=group)


# ---------------------------------------------------------------- constant


def test_constant_power_is_per_node():
    jobs = [job(1, js=512), job(2, js=3)]
    out = assign_constant_power(jobs, 64.0)
    assert [j.jp for j in out] == [32768.0, 192.0]  # 64*512, 64*3
    assert [j._replace(jp=0.0) for j in out] == jobs  # nothing else changes
    assert all(j.jp == 0.0 for j in jobs)  # the input is untouched
    with pytest.raises(ValueError):
        assign_constant_power(jobs, -1.0)


# ---------------------------------------------------------------- Table I draws


def test_mira_table_values():
    # Wallace et al., Table I (kW per rack on Mira)
    assert (MIRA_2014.min_kw, MIRA_2014.mean_kw, MIRA_2014.max_kw, MIRA_2014.std_kw) == (
        36.48, 65.76, 160.60, 6.18,
    )


def test_draws_match_the_table_moments_and_bounds():
    kw = draw_rack_power(np.random.default_rng(1), 100_000)
    assert kw.min() >= 36.48 and kw.max() <= 160.60
    # standard error of the mean: 6.18 / sqrt(1e5) = 0.02
    assert kw.mean() == pytest.approx(65.76, abs=0.1)
    assert kw.std() == pytest.approx(6.18, abs=0.1)
    # the table's 5th and 95th percentiles are 56.60 and 74.57; the normal's 55.6, 75.9
    assert np.percentile(kw, 5) == pytest.approx(55.6, abs=0.3)
    assert np.percentile(kw, 95) == pytest.approx(75.9, abs=0.3)


def test_table_i_quantiles_draw_the_published_percentiles_and_the_long_tail():
    kw = draw_rack_power(np.random.default_rng(1), 200_000, MIRA_2014_TABLE_I)
    # Table I: minimum 36.48, percentiles 5/25/75/95/99 at 56.60, 61.20,
    # 71.03, 74.57, 77.99, maximum 160.60.  A percentile of 200,000 uniform
    # draws is off by at most about 0.001 in probability: 0.1 kW on the
    # body's steepest segment, more only in the tail's 0.01 of probability.
    assert np.percentile(kw, [5, 25, 75, 95]) == pytest.approx([56.60, 61.20, 71.03, 74.57],
                                                               abs=0.1)
    assert np.percentile(kw, 99) == pytest.approx(77.99, abs=1.0)
    assert 36.48 <= kw.min() < 37.5 and 159.0 < kw.max() <= 160.60
    # the tail: 1 % of draws above 77.99, of which (160.60 - 100) / (160.60 -
    # 77.99) above 100 kW a rack (Mira's peak, 4.8 MW over 48 racks)
    assert np.mean(kw > 100.0) == pytest.approx(0.01 * 60.60 / 82.61, abs=0.001)
    # the truncated normal never draws the tail
    assert draw_rack_power(np.random.default_rng(1), 200_000).max() < 100.0
    assert MIRA_2014_TABLE_I.quantile([0.0, 0.995, 1.0]) == pytest.approx(
        [36.48, (77.99 + 160.60) / 2, 160.60])


@pytest.mark.parametrize("points, message", [
    (((0.0, 1.0), (0.9, 2.0)), "from probability 0 to 1"),
    (((0.0, 1.0), (0.5, 2.0), (0.5, 3.0), (1.0, 4.0)), "probabilities must increase"),
    (((0.0, 3.0), (1.0, 2.0)), "must be >= 0 and not decrease"),
])
def test_quantile_points_are_checked(points, message):
    with pytest.raises(ValueError, match=message):
        RackPowerQuantiles(points)


def test_truncation_redraws_out_of_range_values():
    # a tight window 1 std either side: about a third of raw draws fall outside
    narrow = RackPowerDistribution(mean_kw=10.0, std_kw=5.0, min_kw=5.0, max_kw=15.0)
    kw = draw_rack_power(np.random.default_rng(0), 10_000, narrow)
    assert kw.min() >= 5.0 and kw.max() <= 15.0
    assert len(kw) == 10_000 and kw.std() > 2.0  # spread over the window, not clipped to it
    assert np.mean(kw == 5.0) == 0 and np.mean(kw == 15.0) == 0
    with pytest.raises(ValueError):
        RackPowerDistribution(mean_kw=10.0, std_kw=1.0, min_kw=20.0, max_kw=30.0)


def test_rack_power_reproducible_per_seed():
    jobs = [job(i, user=i % 3, group=1) for i in range(20)]
    a = assign_rack_power(jobs, seed=7)
    b = assign_rack_power(jobs, seed=7)
    c = assign_rack_power(jobs, seed=8)
    assert [j.jp for j in a] == [j.jp for j in b]
    assert [j.jp for j in a] != [j.jp for j in c]


def test_rack_power_formula_and_first_draws():
    # owners draw in order of first appearance from default_rng(seed), so the
    # owner of job 1 gets the first normal draw, the owner of job 2 the second.
    expected_kw = np.random.default_rng(42).normal(65.76, 6.18, 2)
    assert all(36.48 <= k <= 160.60 for k in expected_kw)  # no redraw involved
    jobs = [job(1, js=1024, user=5, group=2), job(2, js=512, user=6, group=2)]
    out = assign_rack_power(jobs, seed=42)
    # a full rack draws kW*1000 W; half a rack half of it
    assert out[0].jp == pytest.approx(expected_kw[0] * 1000)
    assert out[1].jp == pytest.approx(expected_kw[1] * 1000 * 512 / 1024)
    # with 512-node racks the same draw gives twice the watts to the same job
    out = assign_rack_power(jobs, seed=42, nodes_per_rack=512)
    assert out[0].jp == pytest.approx(expected_kw[0] * 2000)


def test_same_user_and_group_share_a_draw():
    jobs = [
        job(1, js=1024, user=1, group=10),
        job(2, js=512, user=2, group=10),  # same group, other user: own draw
        job(3, js=2048, user=1, group=10),  # same owner as job 1
        job(4, js=1024, user=1, group=11),  # same user, other group: own draw
        job(5, js=1024, user=1, group=10),
    ]
    out = assign_rack_power(jobs, seed=3)
    per_rack = [j.jp / j.js * 1024 for j in out]  # watts per rack
    assert per_rack[0] == pytest.approx(per_rack[2]) == pytest.approx(per_rack[4])
    assert len({round(per_rack[k], 6) for k in (0, 1, 3)}) == 3
    # 2048 nodes = 2 racks: twice job 1's power
    assert out[2].jp == pytest.approx(2 * out[0].jp)


def test_partly_known_owner_shares_on_what_is_known():
    # LLNL-Atlas has users but no groups: a user's jobs still draw alike
    jobs = [job(1, user=4), job(2, user=4), job(3, user=5)]
    out = assign_rack_power(jobs, seed=0)
    assert out[0].jp == out[1].jp != out[2].jp


def test_unknown_owners_draw_their_own():
    jobs = [job(i) for i in range(50)]  # user and group -1, as on Theta
    out = assign_rack_power(jobs, seed=0)
    assert len({j.jp for j in out}) == 50
    assert all(36_480 <= j.jp <= 160_600 for j in out)  # 1024 nodes = one rack



def test_owners_draw_in_order_of_their_first_job():
    """Draw k goes to the k-th owner to appear, a job of nobody's (user and
    group -1) an owner of its own: the rule written as a loop, against the
    arrays that number a million jobs' owners."""
    from modules.power_profile import _owner_draws

    rng = np.random.default_rng(3)
    owners = rng.integers(-1, 4, size=(2_000, 2))
    jobs = [job(i, user=int(u), group=int(g)) for i, (u, g) in enumerate(owners)]
    first_seen: dict = {}
    expected = []
    for k, (u, g) in enumerate(owners.tolist()):
        key = ("nobody", k) if u == g == -1 else (u, g)
        expected.append(first_seen.setdefault(key, len(first_seen)))
    draws, count = _owner_draws(jobs)
    assert draws.tolist() == expected
    assert count == len(first_seen)


# ---------------------------------------------------------------- CSV


def test_csv_join_on_job_id(tmp_path):
    path = tmp_path / "power.csv"
    # in another order, with an extra job (9) the workload does not have
    path.write_text("job_id,power\n3,1500.5\n1,250\n9,1\n2,0\n")
    out = assign_csv_power([job(1), job(2), job(3)], path)
    assert [(j.id, j.jp) for j in out] == [(1, 250.0), (2, 0.0), (3, 1500.5)]
    frame = pd.DataFrame({"job_id": [1, 2, 3], "power": [1.0, 2.0, 3.0]})
    assert [j.jp for j in assign_csv_power([job(3), job(1)], frame)] == [3.0, 1.0]


def test_csv_missing_ids_are_listed(tmp_path):
    path = tmp_path / "power.csv"
    path.write_text("job_id,power\n1,100\n")
    jobs = [job(i) for i in range(1, 10)]
    with pytest.raises(ValueError, match=r"no power for 8 of 9 jobs, job ids 2, 3, 4, 5, 6, \.\.\. \(8 in all\)"):
        assign_csv_power(jobs, path)
    with pytest.raises(ValueError, match=r"no power for 1 of 2 jobs, job ids 7$"):
        assign_csv_power([job(1), job(7)], path)


@pytest.mark.parametrize("content, refused", [
    (b"", "empty (expected a header job_id,power and a row a job)"),
    (b"\xff\xfe\x00", "not a text file"),
    # pandas took the first field for an index: "job ids listed more than once: 1"
    (b"job_id,power\n1,100,7\n2,100\n", "a row has more fields than the header")])
def test_a_csv_that_is_no_table_is_refused_naming_the_file(tmp_path, content, refused):
    path = tmp_path / "p.csv"
    path.write_bytes(content)
    with pytest.raises(ValueError, match=re.escape(f"power CSV {path}: {refused}")):
        assign_csv_power([job(1), job(2)], path)


def test_csv_bad_tables(tmp_path):
    path = tmp_path / "p.csv"
    path.write_text("id,watts\n1,100\n")
    with pytest.raises(ValueError, match="needs columns job_id and power"):
        assign_csv_power([job(1)], path)
    path.write_text("job_id,power\n1,100\n1,200\n")
    with pytest.raises(ValueError, match="more than once: 1"):
        assign_csv_power([job(1)], path)
    path.write_text("job_id,power\n1,-5\n2,abc\n")
    with pytest.raises(ValueError, match="finite number of watts >= 0; not so for job ids 1, 2"):
        assign_csv_power([job(1), job(2)], path)


@pytest.mark.parametrize("highest", [3, 5_000, 10**12], ids=["few", "dense", "sparse"])
def test_owners_are_numbered_in_order_of_first_job_as_pandas_factorize_does(highest):
    """The jobs' owners are numbered without pandas (a run never imports it),
    by a table of first occurrences when the ids are dense and by sorting
    when they are sparse: the numbers must be pandas.factorize's either way
    (the powers drawn follow them)."""
    values = np.random.default_rng(7).integers(-1, highest, 20_000)
    codes, count = _in_order_of_first(values)
    expected, distinct = pd.factorize(values)
    assert codes.tolist() == expected.tolist() and count == len(distinct)
