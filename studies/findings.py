"""Testing a paper's finding case by case: what every study's checks share.

A finding holds, or not, in each of several cases (each policy and month,
each bar of a figure).  It PASSes when every case that could be measured
holds, DIFFERS naming the first cases that do not, and is N/A when no
case could be measured (one month cannot say whether busier months suffer
more).  Comparisons allow float noise (:data:`TOLERANCE`), so that "never
worse" is not failed by the last bit of a sum.
"""

from __future__ import annotations

from typing import Callable, Hashable, Mapping

import pandas as pd

from .study import Check

#: Relative slack for comparisons between runs ("never worse" allows float noise).
TOLERANCE = 1e-9
#: How many failing (or passing) cases a check's detail names.
SHOWN = 4


def verdict(finding: str, results: Mapping[Hashable, bool | None],
            describe: Callable[[Hashable], str], list_passing: bool = False) -> Check:
    """A check over cases: ``results`` maps a case to whether the finding
    holds there (None: not measurable); ``describe`` names a case and its
    numbers, for the cases that differ (and, with ``list_passing``, for the
    first cases when all hold)."""
    measured = {case: ok for case, ok in results.items() if ok is not None}
    if not measured:
        return Check(finding, None, "not measurable on these runs")
    failed = [case for case, ok in measured.items() if not ok]
    if not failed:
        shown = ("" if not list_passing else " (" + "; ".join(
            describe(case) for case in list(measured)[:SHOWN]) + ")")
        cases = "the one case" if len(measured) == 1 else f"all {len(measured)} cases"
        return Check(finding, True, f"holds in {cases}{shown}")
    shown = "; ".join(describe(case) for case in failed[:SHOWN])
    if len(measured) == 1:
        return Check(finding, False, f"differs in the one case ({shown})")
    more = f"; and {len(failed) - SHOWN} more" if len(failed) > SHOWN else ""
    return Check(finding, False, f"holds in {len(measured) - len(failed)} of {len(measured)} "
                                 f"cases; differs in {shown}{more}")


def at_most(a, b) -> bool | None:
    """``a <= b`` up to :data:`TOLERANCE` (None when either is missing)."""
    if pd.isna(a) or pd.isna(b):
        return None
    return a <= b + TOLERANCE * max(abs(a), abs(b))


def case_name(index) -> str:
    """``"WFP month 2"`` for the case ``("wfp", 2)``; ``"FCFS"`` without a month."""
    policy, month = index if isinstance(index, tuple) else (index, None)
    return f"{policy.upper()}" + ("" if month is None or pd.isna(month) else f" month {month}")


def month_label(month) -> str:
    """A month as a figure's axis shows it."""
    return "all" if month is None or pd.isna(month) else f"month {month}"
