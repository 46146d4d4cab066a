"""The verdicts the project claims for the PuPPET and TOPPER findings: each
study's checks, applied to the table its default runs measured (kept in
tests/findings_tables/, written by ``cpn study NAME``), give the claimed
verdict finding by finding, and each stored table holds the keys of the runs
the study declares now (else it is stale); docs/findings.md holds exactly
those claims;
``cpn study`` says where a run's verdicts differ from them."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from studies.claims import COLUMNS, Claim, read_table, table_rows, unlike_claims
from studies.registry import STUDIES
from studies.study import Check, StudyOptions, StudyOutcome

ROOT = Path(__file__).resolve().parents[1]
TABLES = Path(__file__).resolve().parent / "findings_tables"
CLAIMED = [name for name, study in STUDIES.items() if study.paper in ("PuPPET", "TOPPER")]


def test_every_puppet_and_topper_study_claims_a_verdict_for_each_finding():
    assert len(CLAIMED) == 14
    assert [name for name in CLAIMED if not STUDIES[name].claims] == []


@pytest.mark.parametrize("name", CLAIMED)
def test_the_default_runs_give_the_claimed_verdicts(name):
    """The checks of the study on the table of its default runs (the
    synthetic Mira-like months 0 and 1): every verdict the claimed one, no
    finding unclaimed, no claim unchecked."""
    study = STUDIES[name]
    table = pd.read_csv(TABLES / f"{name}.csv")
    checks = study.checks(table)
    assert unlike_claims(checks, study.claims) == []
    assert [check.verdict for check in checks] == \
        [study.claims[check.finding].verdict for check in checks]


def stored_keys(table: pd.DataFrame) -> set[str]:
    """The keys of the runs a stored table was measured on (a TOPPER row
    joins its seeds' keys with ``;``)."""
    column = table["key"] if "key" in table else table["keys"]
    return {key for keys in column.astype(str) for key in keys.split(";")}


@pytest.mark.parametrize("name", CLAIMED)
def test_the_stored_table_comes_from_the_runs_the_study_declares_now(name):
    """A change to a study's runs (a new option, another default) changes
    their keys: the stored table is then stale."""
    study = STUDIES[name]
    declared = {run.key() for _, run in study.default_runs()}
    stored = stored_keys(pd.read_csv(TABLES / f"{name}.csv"))
    assert stored == declared, (f"tests/findings_tables/{name}.csv is stale: re-run "
                                f"cpn study {name} and copy its table")


def test_a_table_of_other_runs_is_stale():
    study = STUDIES["topper_fig15"]
    table = pd.read_csv(TABLES / "topper_fig15.csv")
    table.loc[0, "keys"] = "0123456789abcdef"
    assert stored_keys(table) != {run.key() for _, run in study.default_runs()}


def test_docs_findings_holds_exactly_the_claims():
    rows = read_table((ROOT / "docs" / "findings.md").read_text(encoding="utf-8"))
    claimed = {(name, finding): claim for name in CLAIMED
               for finding, claim in STUDIES[name].claims.items()}
    assert set(rows) == set(claimed)
    for key, claim in claimed.items():
        assert rows[key] == claim, key


def test_claims_compared_with_checks():
    claims = {"a": Claim("PASS", "yes"), "b": Claim("DIFFERS", "yes", "because (cpn study x)"),
              "c": Claim("PASS", "yes")}
    checks = [Check("a", True, "holds"), Check("b", True, "holds"), Check("d", False, "no")]
    assert unlike_claims(checks, claims) == ["b: measured PASS, claimed DIFFERS",
                                             "d: checked, but no claim",
                                             "c: claimed, but not checked"]


def test_a_table_row_reads_back_as_its_claim():
    claims = {"|x - 1| small": Claim("DIFFERS", "within 10 %", "a | b (cpn study fig10)")}
    rows = table_rows("fig10", [Check("|x - 1| small", False, "1.2 | 1.3")], claims)
    heading = "| " + " | ".join(COLUMNS) + " |"
    text = "\n".join(["intro", "", heading, "|---" * len(COLUMNS) + "|", *rows, "", "after"])
    assert read_table(text) == {("fig10", "|x - 1| small"): claims["|x - 1| small"]}
    with pytest.raises(ValueError, match="no findings table"):
        read_table("intro")


@pytest.mark.parametrize("fields, message", [
    (("MAYBE", "x"), "a claim is PASS or DIFFERS, not 'MAYBE'"),
    (("DIFFERS", "x"), "a DIFFERS claim, and only a DIFFERS claim, says why"),
    (("PASS", "x", "because"), "a DIFFERS claim, and only a DIFFERS claim, says why"),
])
def test_a_claim_is_pass_or_differs_with_a_reason(fields, message):
    with pytest.raises(ValueError, match=message):
        Claim(*fields)


def test_the_claims_are_about_the_runs_of_no_options():
    study = STUDIES["fig10"]
    same = StudyOptions(trace="synthetic", months=[0, 1], policies=["fcfs", "wfp"])
    assert study.design.runs(study.design.base(same), same) == study.default_runs()
    fewer = StudyOptions(months=[0])
    assert study.design.runs(study.design.base(fewer), fewer) != study.default_runs()


def test_a_study_report_says_whether_its_verdicts_are_the_claimed_ones():
    study = STUDIES["fig16"]
    table = pd.read_csv(TABLES / "fig16.csv")
    checks = study.checks(table)
    outcome = StudyOutcome(study, study.design.base(StudyOptions()), study.default_runs(),
                           table, checks, [Path("a.csv"), Path("a_checks.txt")], [])
    assert "every verdict as docs/findings.md claims (4 findings)" in outcome.report()
    outcome.unlike_claims = ["x: measured DIFFERS, claimed PASS"]
    lines = outcome.report()
    assert lines[lines.index("NOT as docs/findings.md claims:") + 1] == \
        "  x: measured DIFFERS, claimed PASS"
    outcome.unlike_claims = None  # other runs than the claims' own
    assert not any("claims" in line for line in outcome.report())


def test_the_dvfs_double_comparison_is_cited_from_toppers_conclusion():
    """TOPPER says power-aware scheduling "is comparable to DVFS with two
    times higher failure rate" in its conclusion, section 8; its section 6
    (discussion) says nothing of DVFS failure rates."""
    cited = [claim.paper for finding, claim in STUDIES["topper_fig15"].claims.items()
             if "DVFS-double are comparable" in finding]
    assert len(cited) == 3 and all(paper.endswith("(8)") for paper in cited)
