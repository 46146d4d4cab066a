"""The all-at-once reader (``modules/swf_bulk.py``) gives the Workload the
line reader gives, field for field and type for type, and where it gives
up the line reader says the same error: on the small traces of the tests,
the real traces (skipped when ../shared/data is absent) and random traces
with every rejection, duplicate ids, unsorted submits, header lines among
the jobs, -1 fields, decimals, gzip, and now and then a bad field."""

from __future__ import annotations

import gzip
from pathlib import Path
from unittest import mock

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from real_traces import AS_CQSIM, SWF_DIR
from tiny_traces import TWO_JOBS, write_two_month_trace

from modules import swf
from modules.swf_bulk import read_bulk

SCALARS = ("header", "machine_nodes", "path", "time_offset", "walltimes_substituted",
           "procs_per_node", "allocation_unit", "size_unit", "sizes_clipped")


def outcome(path: Path, bulk: bool, **options):
    """``read_swf``'s Workload or error, read all at once when it can
    (``bulk``) or line by line; and whether the bulk reader read it."""
    taken = []

    def bulk_reader(*args):
        workload = read_bulk(*args) if bulk else None
        taken.append(workload is not None)
        return workload

    with mock.patch.object(swf, "_read_bulk", bulk_reader):
        try:
            return swf.read_swf(path, **options), any(taken)
        except ValueError as error:  # SWFError, or an argument refused
            return (type(error), str(error)), any(taken)


def assert_same(fast, slow) -> None:
    """Every field of two Workloads equal, of the same types (or the same error)."""
    if isinstance(slow, tuple):
        assert fast == slow
        return
    assert fast.jobs == slow.jobs
    assert [tuple(map(type, job)) for job in fast.jobs] == \
        [tuple(map(type, job)) for job in slow.jobs]
    for name in SCALARS:
        assert getattr(fast, name) == getattr(slow, name), name
        assert type(getattr(fast, name)) is type(getattr(slow, name)), name
    for name in ("rejected", "log"):
        pd.testing.assert_frame_equal(getattr(fast, name), getattr(slow, name),
                                      check_exact=True)
    for name in ("job_id", "line"):
        mine, theirs = fast.job_lines.columns[name], slow.job_lines.columns[name]
        assert mine.dtype == theirs.dtype and np.array_equal(mine, theirs)


def assert_bulk_reads_as_lines(path: Path, **options) -> None:
    """The bulk reader reads ``path``, and as the line reader does."""
    fast, taken = outcome(path, True, **options)
    slow, _ = outcome(path, False, **options)
    assert taken, "the bulk reader gave up on a well-formed trace"
    assert_same(fast, slow)


def test_the_two_job_trace(tmp_path):
    path = tmp_path / "two.swf"
    path.write_text(TWO_JOBS)
    for machine_nodes in (None, 2):
        assert_bulk_reads_as_lines(path, machine_nodes=machine_nodes)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_two_month_traces(tmp_path, seed):
    path = write_two_month_trace(tmp_path / "two_month.swf", nodes=8, seed=seed,
                                 later_jobs=30, later_gap=600, max_procs=12)
    assert_bulk_reads_as_lines(path)
    assert_bulk_reads_as_lines(path, oversized="clip", allocation_unit=4)
    assert_bulk_reads_as_lines(path, procs_per_node=3, shift_to_zero=False)


@pytest.mark.parametrize("name", sorted(AS_CQSIM))
def test_real_traces(name):
    path = SWF_DIR / name
    if not path.exists():
        pytest.skip(f"{path} not present")
    assert_bulk_reads_as_lines(path, **AS_CQSIM[name])
    assert_bulk_reads_as_lines(path, machine_nodes=64, size_unit="procs", oversized="clip",
                               allocation_unit=8, unknown_walltime="runtime")


# Tokens drawn for each field: the plain ones, then ones the bulk reader
# leaves to the line reader (a negative other than -1, a '.' in an integer,
# exponents, words, too many digits); PLAIN says which are plain.
INTEGERS = ["-1", "0", "1", "2", "3", "4", "7", "16", "64", "100", "007", "9999999999"]
TIMES = ["-1", "0", "1", "5", "10", "10.5", "3.25", "5.", ".5", "100", "0.1", "1234567890.123"]
ODD = ["-5", "1.5", "1e3", "x", "12345678901", "-1.0", "1-2", "..", "-0", "+3", "1;"]
PLAIN = set(INTEGERS + TIMES)


@st.composite
def traces(draw):
    """(text of a trace, read_swf options, whether every job line is plain)."""
    jobs = draw(st.integers(0, 25))
    sep = draw(st.sampled_from([" ", "\t", "   ", " \t "]))
    end = draw(st.sampled_from(["\n", "\r\n"]))
    odd = draw(st.booleans()) and draw(st.booleans())  # a quarter of the traces
    lines = [f"; MaxNodes: {draw(st.sampled_from([8, 64, -1]))}",
             f"; MaxProcs: {draw(st.sampled_from([8, 64, 128, 100]))}"][:draw(st.integers(0, 2))]
    ids = st.integers(1, 6) if draw(st.booleans()) else st.integers(1, 10 ** 6)
    for _ in range(jobs):
        fields = [str(draw(ids))] + [draw(st.sampled_from(
            INTEGERS if index in (4, 7, 10, 11, 12, 13) else TIMES)) for index in range(1, 18)]
        if odd and draw(st.integers(0, 9)) == 0:
            fields[draw(st.integers(0, 17))] = draw(st.sampled_from(ODD))
        if odd and draw(st.integers(0, 29)) == 0:
            del fields[draw(st.integers(0, 17))]
        lines.append(draw(st.sampled_from(["", " "])) + sep.join(fields))
        extra = draw(st.integers(0, 19))
        if extra == 0:
            lines.append(draw(st.sampled_from(["; Note: among the jobs", ";", "   ", "",
                                               ";\tcontinued", "; MaxNodes: 64"])))
    text = end.join(lines) + draw(st.sampled_from([end, ""]))
    options = dict(
        machine_nodes=draw(st.sampled_from([None, None, 4, 64])),
        procs_per_node=draw(st.sampled_from([None, None, 1, 2, 3])),
        allocation_unit=draw(st.sampled_from([1, 1, 2, 4])),
        shift_to_zero=draw(st.booleans()),
        size_unit=draw(st.sampled_from(["nodes", "procs"])),
        unknown_walltime=draw(st.sampled_from(["runtime", "reject"])),
        oversized=draw(st.sampled_from(["reject", "clip"])))
    tokens = [token for line in lines if not line.lstrip().startswith(";")
              for token in line.split()]
    plain = bool(tokens) and all(token in PLAIN for token in tokens) and \
        len(tokens) == 18 * sum(1 for line in lines if line.strip() and line[0] != ";")
    return text, options, plain


@settings(max_examples=300, deadline=None)
@given(trace=traces(), zipped=st.booleans(), bom=st.booleans())
def test_random_traces_read_alike_or_fail_alike(tmp_path_factory, trace, zipped, bom):
    text, options, plain = trace
    data = (b"\xef\xbb\xbf" if bom else b"") + text.encode()
    path = tmp_path_factory.getbasetemp() / "random.swf"
    path.write_bytes(gzip.compress(data) if zipped else data)
    fast, taken = outcome(path, True, **options)
    slow, _ = outcome(path, False, **options)
    assert_same(fast, slow)
    if plain and not isinstance(slow, tuple):
        assert taken, "the bulk reader gave up on a well-formed trace"


def test_the_bulk_reader_gives_up_where_the_line_reader_names_the_field(tmp_path):
    """A '.' in an integer field: the bulk reader leaves it, and the error
    is the line reader's, naming the line and the field."""
    path = tmp_path / "bad.swf"
    good = "1 0 -1 10 4 -1 -1 4 20 -1 1 1 1 1 1 -1 -1 -1"
    path.write_text(f"; MaxNodes: 8\n{good}\n2 0 -1 10 4.0 -1 -1 4 20 -1 1 1 1 1 1 -1 -1 -1\n")
    fast, taken = outcome(path, True)
    assert not taken
    assert fast == (swf.SWFError, f"{path}:3: field 5 (allocated processors): '4.0' is not an "
                    "integer")


@pytest.mark.parametrize("bad_line", [False, True])
def test_a_truncated_gzip_fails_alike(tmp_path, bad_line):
    lines = ["; MaxNodes: 8"] + [f"{i} {i} -1 10 4 -1 -1 4 20 -1 1 1 1 1 1 -1 -1 -1"
                                 for i in range(1, 3001)]
    if bad_line:
        lines[2] = "2 x -1 10 4 -1 -1 4 20 -1 1 1 1 1 1 -1 -1 -1"
    path = tmp_path / "cut.swf.gz"
    path.write_bytes(gzip.compress("\n".join(lines).encode())[:-100])
    fast, taken = outcome(path, True)
    assert not taken and fast == outcome(path, False)[0]
    assert "truncated" in fast[1]
