"""Tables kept as columns (modules/tables.py): a workload's or a run's
tables are DataFrames when read, and stay columns when only passed on."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
import pytest

from modules.swf import read_swf
from modules.tables import Columns, FrameField, columns_of, replace, row_count, stored


@dataclass(frozen=True)
class Kept:
    name: str
    table: pd.DataFrame = FrameField()
    other: pd.DataFrame = FrameField(Columns.from_rows([], ["a"]))


def test_a_field_is_built_into_a_dataframe_once_when_first_read():
    kept = Kept("x", Columns({"job_id": np.array([3, 1]), "reason": np.array(["a", "b"],
                                                                             dtype=object)}))
    assert isinstance(stored(kept, "table"), Columns)
    frame = kept.table
    assert isinstance(frame, pd.DataFrame) and kept.table is frame is stored(kept, "table")
    assert frame["job_id"].tolist() == [3, 1]
    assert frame["reason"].dtype == object  # an array of objects stays one
    assert list(kept.other.columns) == ["a"] and kept.other.empty


def test_a_field_takes_a_dataframe_as_it_is_and_stays_frozen():
    frame = pd.DataFrame({"a": [1.5]})
    kept = Kept("x", frame)
    assert kept.table is frame
    with pytest.raises(AttributeError):
        kept.table = frame
    with pytest.raises(TypeError, match="table"):
        Kept("x")  # a field without default columns must be given


def test_replace_passes_unread_tables_on():
    kept = Kept("x", Columns({"a": [1, 2]}))
    other = replace(kept, name="y")
    assert other.name == "y" and stored(other, "table") is stored(kept, "table")
    assert isinstance(stored(kept, "table"), Columns)


def test_rows_and_columns_of_a_dataframe_or_columns_agree():
    rows = [(1, "x", 2.0), (2, "y", np.nan)]
    table = Columns.from_rows(rows, ["id", "text", "value"])
    frame = pd.DataFrame(rows, columns=["id", "text", "value"])
    assert row_count(table) == row_count(frame) == 2
    ours, theirs = columns_of(table), columns_of(frame)
    assert list(ours) == list(theirs) == ["id", "text", "value"]
    for name in ours:
        assert ours[name].dtype.kind == theirs[name].dtype.kind
        assert ours[name].tolist()[:1] == theirs[name].tolist()[:1]
    pd.testing.assert_frame_equal(table.frame(), frame)
    pd.testing.assert_frame_equal(Columns.from_rows([], ["id", "text"]).frame(),
                                  pd.DataFrame([], columns=["id", "text"]))


def test_a_workload_counts_its_rejected_jobs_without_building_the_table(tmp_path):
    trace = tmp_path / "t.swf"
    trace.write_text("; MaxNodes: 4\n"
                     "1 0 -1 10 2 -1 -1 2 20 -1 1 1 1 1 1 1 -1 -1\n"
                     "1 5 -1 10 2 -1 -1 2 20 -1 1 1 1 1 1 1 -1 -1\n"
                     "2 6 -1 10 9 -1 -1 9 20 -1 1 1 1 1 1 1 -1 -1\n"
                     "3 7 -1 10 2 -1 -1 2 20 -1 1 1 1 1 1 1 -1 -1\n")
    workload = read_swf(trace)
    assert workload.jobs_read == 4
    assert workload.rejection_counts() == {"duplicate job id": 1,
                                           "size larger than the machine": 1}
    capped = workload.reject([3], "power alone above the cap")
    assert isinstance(stored(capped, "rejected"), Columns)
    assert capped.rejection_counts() == {"duplicate job id": 1,
                                         "size larger than the machine": 1,
                                         "power alone above the cap": 1}
    assert capped.rejected.to_dict("list") == {
        "job_id": [1, 2, 3], "line": [3, 4, 5],
        "reason": ["duplicate job id, first at line 2", "size larger than the machine",
                   "power alone above the cap"]}
    assert [str(t) for t in capped.rejected.dtypes] == ["int64", "int64", "object"]
