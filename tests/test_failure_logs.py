"""Failure traces: a user's CSV, and Mira's RAS log replayed per rack."""

import json
import re
from datetime import datetime, timezone
from pathlib import Path

import pandas as pd
import pytest

from cli.main import main
from modules.failure_logs import (FailureTrace, FailureTraceError, failure_format, rack_index,
                                  read_failure_csv, read_failure_trace, read_mira_ras)
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
    (b"when,unit\n1,2\n", ": missing column(s) time (found: when, unit)"),
    (b"", ": the file is empty"),
    (b"time,unit\n1,2\nsoon,3\n", ":3: time 'soon' is not a number"),
    (b"time,unit\n1,2\nnan,3\n", ":3: time 'nan' is not a finite number"),
    (b"time,unit\n1,2\n-inf,3\n", ":3: time '-inf' is not a finite number"),
    (b"time,unit\n1,2\ninf,3\n", ":3: time 'inf' is not a finite number"),
    (b"time,unit\n1,2\n-5,3\n", ":3: time '-5' is negative"),
    (b"time,unit\n1,2\n5\n", ":3: unit is missing"),
    (b"time,unit\n,2\n", ":2: time is missing"),
    (b"time,unit\n1,2.5\n", ":2: unit '2.5' is not an integer"),
    (b"time,unit\n1,-1\n", ":2: unit -1 is negative"),
    (b"time,unit\n1,9\n", ":2: unit 9 is outside 0..3"),
    (b"time,unit\n1,2\n7\xe9,3\n", ":3: not UTF-8 text (byte 0xe9 at column 2)"),
    (b"time,unit\n1,2\n7\x00,3\n", ":3: time '7\\x00' is not a number"),
    (b"time,unit\n1,2\r3,4\n", ":2: not CSV text (new-line character seen in unquoted field)"),
])
def test_csv_errors_name_file_line_and_field(tmp_path, text, message):
    path = tmp_path / "failures.csv"
    path.write_bytes(text)
    with pytest.raises(FailureTraceError, match=f"^{re.escape(str(path) + message)}$"):
        read_failure_csv(path, units=4)


def test_csv_with_a_byte_order_mark_and_spaced_names(tmp_path):
    path = tmp_path / "failures.csv"
    path.write_bytes(b"\xef\xbb\xbftime, unit,cause\n500,1,fan\n100,1,psu\n")
    assert read_failure_csv(path, units=2) == {1: [100.0, 500.0]}


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


def ras_locations_by_hand(path: Path) -> list[str]:
    """The location of every event of a RAS log: the second-last field of
    its ``event`` lines (member lines start with a tab), ``NULL`` when it has
    none -- a plain split, independent of the reader."""
    return [line.split()[-2] for line in path.read_text().splitlines()
            if line.startswith("event ")]


def test_mira_ras_log():
    if not RAS.exists():
        pytest.skip("no ../shared data")
    trace = read_mira_ras(RAS)
    locations = ras_locations_by_hand(RAS)
    assert len(locations) == 1176  # the file's own header: #count=1176
    racks = [loc[:3] for loc in locations if loc.startswith("R")]
    per_rack = {16 * int(rack[1], 16) + int(rack[2], 16): racks.count(rack) for rack in racks}
    assert set(trace.failures) == set(range(48)) == set(per_rack)
    assert {unit: len(times) for unit, times in trace.failures.items()} == per_rack
    assert trace.events == len(racks)
    assert trace.skipped == {
        "not a compute rack (Q..)": sum(loc.startswith("Q") for loc in locations),
        "no location": locations.count("NULL")}
    assert trace.events + sum(trace.skipped.values()) == len(locations)
    assert min(min(times) for times in trace.failures.values()) == 0.0
    assert all(times == sorted(times) for times in trace.failures.values())
    assert failure_format(RAS) == "ras"
    assert read_failure_trace(RAS, units=48).failures == trace.failures
    assert trace.summary() == (
        f"mira_fatal_ras_events_2013_2018.cor: {len(racks):,} failures of 48 units, the first "
        "(2013-04-10 18:23:08 UTC) at time 0; "
        f"skipped {trace.skipped['not a compute rack (Q..)']} events: not a compute rack (Q..); "
        f"skipped {locations.count('NULL')} events: no location")


# An excerpt in the layout of Mira's log: an I/O-drawer event (skipped) with a
# member line, an event with a NULL location (skipped), then rack R2F (rack
# 47) at 18:23:08.5, the first rack failure and so time 0, with a member at
# rack R20 (a member, not an event: ignored), R00 (rack 0) 1,000 s later, and
# R05 (rack 5) with no fractional seconds at 08:16:28 the next day:
# 5:36:51.5 to midnight + 8:16:28 = 49,999.5 s.
RAS_EXCERPT = """\
#count=5
event 22194 00062001 13217458 FATAL Block MMCS 2013-04-02;22:40:36.223930 \
2013-04-02;22:40:53.867908 4 QIJ Q0H-I1-J05 0
\t0.19491628 22108 000A000F 13217702 FATAL Infiniband LINUX 2013-04-02;22:42:07.730121 \
2013-04-02;22:42:07.732928 2 QIJ Q0G-I4-J04 0
event 22554 00040093 13609238 FATAL ELF_Image MC 2013-04-09;22:25:13.321991 \
2013-04-09;22:25:13.321991 1 NULL  0
event 28363 00090216 13626051 FATAL BQC CTRLNET 2013-04-10;18:23:08.500000 \
2013-04-10;18:23:38.124972 9 RMNJ R2F-M1-N04-J17 0
\t0.2 28364 00040106 13626301 FATAL BQC MC 2013-04-10;18:53:22.687239 \
2013-04-10;18:53:22.687239 2 RMNJ R20-M0-N02-J14 0
event 24749 00080014 13641647 FATAL BQC FIRMWARE 2013-04-10;18:39:48.500000 \
2013-04-10;18:40:40.604851 2 RMNJ R00-M1-N05-J03 0
event 22411 0008000B 13669636 FATAL BQC FIRMWARE 2013-04-11;08:16:28 \
2013-04-11;08:16:28 1 RMNJ R05-M0-N12-J00 0
"""
ORIGIN = datetime(2013, 4, 10, 18, 23, 8, 500_000, tzinfo=timezone.utc)


@pytest.fixture
def ras_excerpt(tmp_path) -> Path:
    path = tmp_path / "excerpt.cor"
    path.write_text(RAS_EXCERPT)
    return path


def test_a_ras_excerpt_read_by_hand(ras_excerpt):
    trace = read_mira_ras(ras_excerpt)
    assert trace == FailureTrace({47: [0.0], 0: [1000.0], 5: [49_999.5]}, ORIGIN,
                                 {"not a compute rack (Q..)": 1, "no location": 1}, ras_excerpt)
    assert trace.summary() == (
        "excerpt.cor: 3 failures of 3 units, the first (2013-04-10 18:23:08 UTC) at time 0; "
        "skipped 1 event: not a compute rack (Q..); skipped 1 event: no location")


def test_the_format_is_told_by_the_content(tmp_path, ras_excerpt):
    assert failure_format(ras_excerpt) == "ras"
    bom = tmp_path / "bom.txt"  # any name: the content decides
    bom.write_bytes(b"\xef\xbb\xbf" + RAS_EXCERPT.encode())
    assert failure_format(bom) == "ras"
    assert read_failure_trace(bom, units=48).failures == read_mira_ras(ras_excerpt).failures
    csv = tmp_path / "failures.cor"
    csv.write_text("\ntime,unit\n5,0\n")
    assert failure_format(csv) == "csv"


def test_a_csv_trace_is_moved_onto_the_runs_clock(tmp_path):
    path = tmp_path / "failures.csv"
    path.write_text("time,unit\n1500,1\n900,0\n1000,0\n")
    trace = read_failure_trace(path, units=2, time_offset=1000)
    assert trace.failures == {0: [-100.0, 0.0], 1: [500.0]}
    assert trace.summary() == ("failures.csv: 3 failures of 2 units; 1 failure before time 0 "
                               "(the first submit), never felt")
    assert trace.felt == {0: [0.0], 1: [500.0]}  # what a run is given: no warning then


def test_the_ras_log_needs_one_unit_per_rack(ras_excerpt):
    with pytest.raises(FailureTraceError, match=re.escape(
            f"{ras_excerpt}: Mira's RAS log fails its 48 racks, but the machine has 24 units: "
            "it replays on a machine of 48 equal units (Mira's 49,152 nodes in racks of "
            "1,024), so its nodes must divide by 48; another machine takes a failure CSV or "
            "drawn failures")):
        read_failure_trace(ras_excerpt, units=24)


def test_a_ras_log_without_rack_failures_is_refused(tmp_path):
    path = tmp_path / "drawers.cor"
    path.write_text("".join(line for line in RAS_EXCERPT.splitlines(keepends=True)
                            if not line.startswith("event") or " R" not in line))
    with pytest.raises(FailureTraceError, match=f"^{re.escape(str(path))}: no rack failure "
                                                "events$"):
        read_mira_ras(path)


def test_a_ras_line_that_is_not_an_event_names_the_line(tmp_path):
    path = tmp_path / "bad.cor"
    path.write_text("#count=1\nevent 22194 00062001 13217458 FATAL Block MMCS yesterday\n")
    with pytest.raises(FailureTraceError, match=re.escape(f"{path}:2: not a RAS event line")):
        read_mira_ras(path)


# Through `cpn run`: one job of all 48 nodes (1-node units, so Mira's 48
# racks) from 0 to 10,000 s.  The excerpt's rack 47 fails at time 0, as the
# job starts (a unit's next failure is looked up strictly after it); rack 0
# at 1,000 s, in the job; rack 5 at 49,999.5 s, long after it.  One failure.
SWF_48 = "; MaxNodes: 48\n1 0 -1 10000 48 -1 -1 48 20000 -1 1 1 1 1 1 -1 -1 -1\n"


@pytest.mark.parametrize("format_option", [[], ["--failure-format", "ras"]],
                         ids=["detected", "named"])
def test_cpn_run_replays_a_ras_log(tmp_path, capsys, ras_excerpt, format_option):
    trace = tmp_path / "trace.swf"
    trace.write_text(SWF_48)
    out = tmp_path / "out"
    assert main(["run", "--trace", str(trace), "--power", "constant", "--resilience",
                 "checkpoint", "--unit-nodes", "1", "--failure-trace", str(ras_excerpt),
                 *format_option, "--out", str(out), "--no-plots"]) == 0
    assert "excerpt.cor: 3 failures of 3 units" in capsys.readouterr().out
    assert json.loads((out / "metrics.json").read_text())["failures"] == 1


def test_cpn_run_replays_the_real_ras_log(tmp_path, capsys):
    if not RAS.exists():
        pytest.skip("no ../shared data")
    # The log's first rack failures (sorted with awk): R1F at 2013-04-10
    # 18:23:08.7 (time 0), R23 at 2013-04-11 14:56:01.5 (73,972.8 s), R26 at
    # 2013-04-13 03:23:15.6 (205,206.9 s).  A job of 100,000 s on all 48
    # racks feels R23's only: with its checkpoints and one recovery it ends
    # well before 205,206.9 s.
    trace = tmp_path / "trace.swf"
    trace.write_text(SWF_48.replace(" 10000 ", " 100000 ").replace(" 20000 ", " 200000 "))
    out = tmp_path / "out"
    assert main(["run", "--trace", str(trace), "--power", "constant", "--resilience",
                 "checkpoint", "--unit-nodes", "1", "--failure-trace", str(RAS),
                 "--out", str(out), "--no-plots"]) == 0
    racks = sum(loc.startswith("R") for loc in ras_locations_by_hand(RAS))
    assert f"{racks:,} failures of 48 units" in capsys.readouterr().out
    assert json.loads((out / "metrics.json").read_text())["failures"] == 1
    assert pd.read_csv(out / "jobs.csv")["end"].item() < 205_206.9


@pytest.mark.parametrize("arguments, message", [
    (["--resilience", "checkpoint", "--unit-nodes", "2", "--failure-trace", "{ras}"],
     "{ras}: Mira's RAS log fails its 48 racks, but the machine has 24 units: it replays "
     "on a machine of 48 equal units (Mira's 49,152 nodes in racks of 1,024), so its nodes "
     "must divide by 48; another machine takes a failure CSV or drawn failures"),
    (["--resilience", "checkpoint", "--unit-nodes", "1", "--failure-trace", "{csv}"],
     "{csv}:3: time 'nan' is not a finite number"),
    (["--failure-trace", "{csv}"],
     "--failure-trace needs --resilience (checkpoint, replication, restart): "
     "without it nothing fails"),
])
def test_cpn_run_refuses_a_bad_failure_trace_in_one_line(tmp_path, capsys, ras_excerpt,
                                                         arguments, message):
    trace = tmp_path / "trace.swf"
    trace.write_text(SWF_48)
    csv = tmp_path / "failures.csv"
    csv.write_text("time,unit\n5,0\nnan,1\n")
    paths = {"ras": ras_excerpt, "csv": csv}
    out = tmp_path / "out"
    assert main(["run", "--trace", str(trace), *(a.format(**paths) for a in arguments),
                 "--out", str(out), "--no-plots"]) == 2
    assert capsys.readouterr().err == f"cpn run: error: {message.format(**paths)}\n"
    assert not out.exists()
