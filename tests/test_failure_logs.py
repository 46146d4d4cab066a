"""Failure traces: a user's CSV, and Mira's RAS log replayed per rack."""

from pathlib import Path

import pytest

from modules.failure_logs import FailureTraceError, rack_index, read_failure_csv, read_mira_ras
from modules.job import Job
from modules.resilience import FaultTolerance
from nets.puppet import PuppetConfig
from nets.topper import TopperConfig, simulate

RAS = (Path(__file__).resolve().parents[1].parent / "shared" / "data" / "failures"
       / "mira_fatal_ras_events_2013_2018.cor")


def test_csv_trace_sorted_per_unit(tmp_path):
    path = tmp_path / "failures.csv"
    path.write_text("time,unit\n500,1\n100,1\n300,0\n")
    assert read_failure_csv(path) == {0: [300.0], 1: [100.0, 500.0]}


@pytest.mark.parametrize("text, message", [
    ("when,unit\n1,2\n", "missing column\\(s\\) time"),
    ("time,unit\n1,2\nsoon,3\n", "failures.csv:3: time 'soon'"),
    ("time,unit\n1,9\n", "failures.csv:2: unit 9 is outside 0..3"),
])
def test_csv_errors_name_file_and_line(tmp_path, text, message):
    path = tmp_path / "failures.csv"
    path.write_text(text)
    with pytest.raises(FailureTraceError, match=message):
        read_failure_csv(path, units=4)


def test_a_csv_trace_drives_topper(tmp_path):
    path = tmp_path / "failures.csv"
    path.write_text("time,unit\n5000,0\n")
    config = TopperConfig(PuppetConfig(1024, node_watts=50), FaultTolerance(unit_mttf=1e6),
                          failure_trace=read_failure_csv(path))
    result = simulate([Job(1, 0, 10_000, 1024, 10_000)], config)
    assert result.metrics["failures"] == 1


def test_rack_locations():
    assert rack_index("R00-M0-N00-J00") == 0
    assert rack_index("R1C-M0-N05-J12") == 16 + 12
    assert rack_index("R2F") == 47
    assert rack_index("Q0H-I1-J05") is None


def test_mira_ras_log():
    if not RAS.exists():
        pytest.skip("no ../shared data")
    trace = read_mira_ras(RAS)
    assert set(trace.failures) == set(range(48))
    assert trace.events == 1032 and sum(trace.skipped.values()) == 1176 - 1032
    assert min(min(times) for times in trace.failures.values()) == 0.0
    assert all(times == sorted(times) for times in trace.failures.values())
