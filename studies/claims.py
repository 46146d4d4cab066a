"""What the project claims of each finding of a paper, and the table of
``docs/findings.md`` that records it.

A study's checks say PASS or DIFFERS on whatever runs they are given.  A
:class:`Claim` says which verdict the project stands by on the study's
default workload (the synthetic Mira-like months 0 and 1, the paper's
values and policies, seed 0), what the paper reports, and, for a DIFFERS,
why ours differs and the ``cpn study`` run that shows it.  ``cpn study``
compares its verdicts with the claims (:func:`unlike_claims`) and writes
the study's rows of the findings table (:func:`table_rows`); the tests hold
``docs/findings.md`` to the claims (:func:`read_table`), so the page cannot
drift from what the project claims.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Mapping

#: The findings table's columns, in order.
COLUMNS = ("study", "finding (the paper says)", "paper", "ours", "verdict",
           "reason where it differs, and the run that shows it")


@dataclass(frozen=True)
class Claim:
    """The verdict claimed for one finding, what the paper reports, and for a
    DIFFERS why ours differs (naming the run that shows it)."""

    verdict: str  # "PASS" or "DIFFERS"
    paper: str
    why: str = ""

    def __post_init__(self) -> None:
        if self.verdict not in ("PASS", "DIFFERS"):
            raise ValueError(f"a claim is PASS or DIFFERS, not {self.verdict!r}")
        if (self.verdict == "DIFFERS") != bool(self.why):
            raise ValueError("a DIFFERS claim, and only a DIFFERS claim, says why: "
                             f"{self.paper!r}")


def unlike_claims(checks: Iterable, claims: Mapping[str, Claim]) -> list[str]:
    """The checks whose verdict is not the claimed one, and the findings
    checked without a claim or claimed without a check, one line each."""
    found = {check.finding: check.verdict for check in checks}
    lines = [f"{finding}: measured {verdict}, claimed {claims[finding].verdict}"
             for finding, verdict in found.items()
             if finding in claims and claims[finding].verdict != verdict]
    lines += [f"{finding}: checked, but no claim" for finding in found if finding not in claims]
    lines += [f"{finding}: claimed, but not checked" for finding in claims if finding not in found]
    return lines


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def table_rows(study: str, checks: Iterable, claims: Mapping[str, Claim]) -> list[str]:
    """The study's rows of the findings table: each check with its claim
    (the measured detail as "ours", the measured verdict)."""
    rows = []
    for check in checks:
        claim = claims.get(check.finding, Claim("PASS", "(no claim)"))
        why = claim.why if check.verdict == "DIFFERS" else ""
        cells = (study, check.finding, claim.paper, check.detail, check.verdict, why)
        rows.append("| " + " | ".join(_cell(cell) for cell in cells) + " |")
    return rows


def read_table(markdown: str) -> dict[tuple[str, str], Claim]:
    """The rows of a findings table in ``markdown`` (the table whose heading
    row is :data:`COLUMNS`), as claims by (study, finding)."""
    lines = iter(markdown.splitlines())
    heading = "| " + " | ".join(COLUMNS) + " |"
    for line in lines:
        if line.strip() == heading:
            break
    else:
        raise ValueError("no findings table (its heading row is: " + heading + ")")
    next(lines)  # the separator row
    rows = {}
    for line in lines:
        if not line.startswith("|"):
            break
        cells = [cell.strip().replace("\0", "|")
                 for cell in line.strip()[1:-1].replace("\\|", "\0").split("|")]
        study, finding, paper, _, verdict, why = cells
        rows[(study, finding)] = Claim(verdict, paper, why)
    return rows
