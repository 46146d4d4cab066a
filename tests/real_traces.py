"""The real traces of ../shared/data for the tests: a prefix of one as a
small file, or a skip when the data is absent (a user's checkout)."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest

SWF_DIR = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "swf"

#: How to read each real trace as CQSim would (``read_swf`` options).
#: NASA's requested times are all unknown, so CQSim would run none of its
#: jobs: there, jobs plan with their runtime.  Curie's processors are not a
#: whole number of nodes (93,312 / 5,544): it is read in processors.
AS_CQSIM = {
    "NASA-iPSC-1993-3.1-cln.swf": dict(unknown_walltime="runtime"),
    "LLNL-Atlas-2006-2.1-cln.swf": dict(unknown_walltime="reject"),
    "theta_2022.swf": dict(unknown_walltime="reject"),
    "CEA-Curie-2011-2.1-cln.swf.gz": dict(unknown_walltime="reject", size_unit="procs"),
}


def trace_prefix(name: str, jobs: int, tmp_path: Path) -> Path:
    """The header and first ``jobs`` job lines of a real trace, as a file."""
    source = SWF_DIR / name
    if not source.exists():
        pytest.skip(f"{source} not present")
    opener = gzip.open if name.endswith(".gz") else open
    kept, count = [], 0
    with opener(source, "rt") as lines:
        for line in lines:
            if not line.startswith(";"):
                count += 1
                if count > jobs:
                    break
            kept.append(line)
    path = tmp_path / name.removesuffix(".gz")
    path.write_text("".join(kept))
    return path
