"""The SWF reader: tiny traces checked field by field, then the real traces of
the Parallel Workloads Archive (skipped when ../shared/data is absent).
Expected values are worked out by hand in the comments."""

from __future__ import annotations

import gzip
import lzma
import re
from pathlib import Path

import pandas as pd
import pytest
from peak_memory import traced_peak

from cli.main import main
from modules import swf
from modules.job import Job
from modules.swf import SWF_FIELDS, SWFError, read_swf
from modules.swf_header import parse_header_line
from modules.workload import REJECT_REASONS, UNKNOWN_WALLTIME, Workload

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"
SWF_DIR = DATA / "swf"


def swf_line(
    job_id=1,
    submit=0,
    runtime=100,
    allocated=-1,
    requested=4,
    requested_time=200,
    status=1,
    user=-1,
    group=-1,
    executable=-1,
    sep=" ",
    wait=-1,
):
    """One job line of 18 fields with the ones the reader uses set."""
    fields = [-1] * 18
    fields[0], fields[1], fields[2], fields[3], fields[4] = job_id, submit, wait, runtime, allocated
    fields[7], fields[8], fields[10] = requested, requested_time, status
    fields[11], fields[12], fields[13] = user, group, executable
    return sep.join(str(f) for f in fields)


def write(tmp_path: Path, lines: list[str], name: str = "trace.swf") -> Path:
    path = tmp_path / name
    path.write_text("\n".join(lines) + "\n")
    return path


HEADER = ["; Version: 2.2", "; MaxNodes: 16", "; MaxProcs: 64"]  # 4 procs per node


# ---------------------------------------------------------------- header


def test_header_keys_values_repeats_and_continuations(tmp_path):
    path = write(
        tmp_path,
        [
            "; Computer: Linux cluster (Atlas)",
            "; UnixStartTime: 1163199901",
            "; MaxNodes: 1152",
            "; MaxProcs: 9216",
            "; Note: first note",
            ";       continued: with a colon inside",
            ";",
            "; Note: second note",
            "; Partition:  1  pbatch",
            "; Partition:  2  pdebug",
            "; MyOwnKey: kept",
            swf_line(),
        ],
    )
    header = read_swf(path).header
    assert header["Computer"] == "Linux cluster (Atlas)"
    assert header["UnixStartTime"] == "1163199901"
    assert header["MaxNodes"] == "1152"
    assert header["Note"] == "first note\ncontinued: with a colon inside\nsecond note"
    assert header["Partition"] == "1  pbatch\n2  pdebug"
    assert header["MyOwnKey"] == "kept"
    assert "continued" not in header


# A number the reader or its users need (machine size, the trace's epoch) is
# checked where it is written: mistyped, it would size the machine from
# another line (MaxProcs) or leave it unknown without saying why.
@pytest.mark.parametrize("line, message", [
    ("; MaxNodes: abc", "MaxNodes: 'abc' is not a positive integer (nor -1, unknown)"),
    ("; MaxNodes: -16", "MaxNodes: '-16' is not a positive integer (nor -1, unknown)"),
    ("; MaxNodes: 0", "MaxNodes: '0' is not a positive integer (nor -1, unknown)"),
    ("; MaxProcs: 1_024", "MaxProcs: '1_024' is not a positive integer (nor -1, unknown)"),
    ("; UnixStartTime: 12.5",
     "UnixStartTime: '12.5' is not a whole number of seconds since 1970 (nor -1, unknown)"),
])
def test_a_bad_header_number_is_an_error_naming_its_line(tmp_path, line, message):
    path = write(tmp_path, ["; Computer: free text: 1_024 nodes", line, "; MaxProcs: 32",
                            swf_line()])
    with pytest.raises(SWFError, match=f"^{re.escape(f'{path}:2: {message}')}$"):
        read_swf(path, machine_nodes=8, procs_per_node=1)


def test_a_machine_size_given_twice_differently_is_refused(tmp_path):
    """The first sized the machine and the second was ignored unsaid."""
    path = write(tmp_path, ["; MaxNodes: 128", "; Note: an upgrade", "; MaxNodes: 256",
                            swf_line()])
    with pytest.raises(SWFError, match=f"^{re.escape(str(path))}:3: MaxNodes: 256 here, but "
                                       "128 on line 1: which is the machine's\\?$"):
        read_swf(path)
    same = write(tmp_path, ["; MaxNodes: 128", "; MaxNodes: 128", swf_line()])
    assert read_swf(same).machine_nodes == 128  # said twice alike: no doubt


def test_cpn_run_refuses_a_bad_max_nodes_beside_a_good_max_procs(tmp_path, capsys):
    path = write(tmp_path, ["; MaxNodes: abc", "; MaxProcs: 32", swf_line()])
    out = tmp_path / "out"
    assert main(["run", "--trace", str(path), "--out", str(out), "--no-plots"]) == 2
    assert capsys.readouterr().err == (
        f"cpn run: error: {path}:1: MaxNodes: 'abc' is not a positive integer (nor -1, "
        "unknown)\n")
    assert not out.exists()


def test_parse_header_line():
    assert parse_header_line("; MaxNodes: 5544") == ("MaxNodes", "5544")
    assert parse_header_line("; EndTime:   Fri Jun 29 14:02:41 PDT 2007") == (
        "EndTime",
        "Fri Jun 29 14:02:41 PDT 2007",
    )
    # indented lines continue a note even when they contain "word:"
    assert parse_header_line(";\tsee: http://www-hpc.cea.fr/") is None
    assert parse_header_line(";         submit<=2006-12-18 00:00:00") is None
    assert parse_header_line(";") is None


# ---------------------------------------------------------------- job lines


def test_spaces_and_tabs_give_the_same_job(tmp_path):
    spaced = read_swf(write(tmp_path, HEADER + [swf_line(user=7)], "a.swf")).jobs
    tabbed = read_swf(write(tmp_path, HEADER + [swf_line(user=7, sep="\t")], "b.swf")).jobs
    mixed_text = "  " + swf_line(user=7, sep=" \t  ") + "  \r"
    mixed = read_swf(write(tmp_path, HEADER + [mixed_text], "c.swf")).jobs
    # 4 procs at 4 per node = 1 node
    expected = [Job(id=1, st=0.0, rt=100.0, js=1, wt=200.0, user=7)]
    assert spaced == tabbed == mixed == expected


def test_fields_map_to_the_job(tmp_path):
    line = swf_line(job_id=42, submit=1000, runtime=3600, requested=16, requested_time=7200,
                    user=3, group=9, executable=11)
    wl = read_swf(write(tmp_path, HEADER + [line]), shift_to_zero=False)
    assert wl.jobs == [Job(42, 1000.0, 3600.0, 4, 7200.0, 0.0, 0.0, 1.0, 3, 9, 11)]
    assert wl.procs_per_node == 4 and wl.machine_nodes == 16


def test_size_from_requested_else_allocated(tmp_path):
    lines = HEADER + [
        swf_line(job_id=1, allocated=8, requested=16),  # requested wins: 16/4 = 4 nodes
        swf_line(job_id=2, allocated=8, requested=-1),  # allocated: 8/4 = 2 nodes
        swf_line(job_id=3, allocated=12, requested=0),  # 0 is no request: 12/4 = 3
    ]
    assert [j.js for j in read_swf(write(tmp_path, lines)).jobs] == [4, 2, 3]


def test_procs_per_node_rounds_up(tmp_path):
    lines = ["; MaxNodes: 100"] + [
        swf_line(job_id=i, requested=p) for i, p in enumerate([1, 8, 9, 16, 17], 1)
    ]
    jobs = read_swf(write(tmp_path, lines), procs_per_node=8).jobs
    # ceil(1/8)=1, ceil(8/8)=1, ceil(9/8)=2, ceil(16/8)=2, ceil(17/8)=3
    assert [j.js for j in jobs] == [1, 1, 2, 2, 3]


def test_procs_per_node_from_header_ratio(tmp_path):
    # MaxProcs/MaxNodes = 64/16 = 4; 9 procs -> 3 nodes
    wl = read_swf(write(tmp_path, HEADER + [swf_line(requested=9)]))
    assert wl.procs_per_node == 4 and wl.jobs[0].js == 3
    # without MaxProcs a processor is a node
    wl = read_swf(write(tmp_path, ["; MaxNodes: 16", swf_line(requested=9)]))
    assert wl.procs_per_node == 1 and wl.jobs[0].js == 9


def test_mixed_nodes_require_procs_per_node(tmp_path):
    path = write(tmp_path, ["; MaxNodes: 5544", "; MaxProcs: 93312", swf_line()])
    with pytest.raises(SWFError, match=r"93312/5544 .*pass procs_per_node"):
        read_swf(path)
    assert read_swf(path, procs_per_node=16).jobs[0].js == 1


def test_mixed_nodes_error_offers_processors(tmp_path):
    # A machine of 2,004 processors on 151 nodes (13.27 a node): the error
    # names both ways out, and counting processors needs no ratio at all.
    path = write(tmp_path, ["; MaxNodes: 151", "; MaxProcs: 2004", swf_line(requested=13),
                            swf_line(job_id=2, requested=2004)])
    with pytest.raises(SWFError, match=r'2004/151 .*pass procs_per_node, or size_unit="procs"'):
        read_swf(path)
    wl = read_swf(path, size_unit="procs")
    assert wl.machine_nodes == 2004 and wl.procs_per_node == 1
    assert [job.js for job in wl.jobs] == [13, 2004]
    assert "machine of 2,004 processors" in wl.summary()
    # the machine and the allocation unit count processors too
    wl = read_swf(path, size_unit="procs", machine_nodes=1000, allocation_unit=8)
    assert [job.js for job in wl.jobs] == [16] and wl.rejection_counts() == {
        "size larger than the machine": 1}


def test_processor_unit_needs_max_procs_and_no_procs_per_node(tmp_path):
    path = write(tmp_path, ["; MaxNodes: 16", swf_line()])
    with pytest.raises(SWFError, match=r"machine size in processors unknown: the header gives "
                                       r"no MaxProcs, or -1 \(unknown\); pass machine_nodes"):
        read_swf(path, size_unit="procs")
    assert read_swf(path, size_unit="procs", machine_nodes=64).machine_nodes == 64
    with pytest.raises(ValueError, match=r'procs_per_node=4 means nothing with size_unit="procs"'):
        read_swf(path, size_unit="procs", procs_per_node=4)
    with pytest.raises(ValueError, match=r"size_unit must be one of \('nodes', 'procs'\), "
                                         r"not 'cores'"):
        read_swf(path, size_unit="cores")


def test_unknown_walltime_substituted_or_rejected(tmp_path):
    lines = HEADER + [swf_line(job_id=1, requested_time=-1), swf_line(job_id=2, requested_time=0),
                      swf_line(job_id=3, requested_time=50)]
    path = write(tmp_path, lines)
    wl = read_swf(path)
    assert [job.wt for job in wl.jobs] == [100, 100, 50] and wl.walltimes_substituted == 2
    wl = read_swf(path, unknown_walltime="reject")  # CQSim's rule
    assert [job.id for job in wl.jobs] == [3] and wl.walltimes_substituted == 0
    assert wl.rejected.to_dict("records") == [
        {"job_id": 1, "line": 4, "reason": "unknown requested time"},
        {"job_id": 2, "line": 5, "reason": "unknown requested time"}]


def test_oversized_jobs_rejected_or_run_on_the_whole_machine(tmp_path):
    # 16 nodes of 4 processors: 80 processors are 20 nodes, too many
    lines = HEADER + [swf_line(job_id=1, requested=80), swf_line(job_id=2, requested=8)]
    path = write(tmp_path, lines)
    assert read_swf(path).rejection_counts() == {"size larger than the machine": 1}
    wl = read_swf(path, oversized="clip")
    assert [(job.id, job.js) for job in wl.jobs] == [(1, 16), (2, 2)]
    assert wl.sizes_clipped == 1 and len(wl.rejected) == 0
    assert "1 jobs larger than the machine run on all of its 16 nodes" in wl.summary()
    assert list(wl.log["nodes"]) == [20, 2]  # the log keeps the size that ran


def test_the_log_is_the_schedule_the_trace_records(tmp_path):
    lines = HEADER + [
        swf_line(job_id=5, submit=100, runtime=30, requested=8),  # wait -1: unknown
        swf_line(job_id=6, submit=40, runtime=0, requested=4, status=5),  # cancelled
        swf_line(job_id=5, submit=200),  # a duplicate is no job of the log
        swf_line(job_id=7, submit=50, wait=25, runtime=10, requested=4)]
    wl = read_swf(write(tmp_path, lines))
    assert wl.log.to_dict("records") == [
        {"job_id": 5, "line": 4, "submit": 100.0, "wait": -1.0, "runtime": 30.0, "nodes": 2},
        {"job_id": 6, "line": 5, "submit": 40.0, "wait": -1.0, "runtime": 0.0, "nodes": 1},
        {"job_id": 7, "line": 7, "submit": 50.0, "wait": 25.0, "runtime": 10.0, "nodes": 1}]
    assert wl.time_offset == 50  # the jobs are shifted, the log keeps the trace's clock


def test_allocation_unit_rounds_up_in_nodes(tmp_path):
    lines = ["; MaxNodes: 49152"] + [
        swf_line(job_id=i, requested=n) for i, n in enumerate([1, 512, 513, 1000, 2048], 1)
    ]
    jobs = read_swf(write(tmp_path, lines), allocation_unit=512).jobs
    assert [j.js for j in jobs] == [512, 512, 1024, 1024, 2048]
    # procs are turned into nodes first, then rounded: 4100 procs / 16 = 257 nodes -> 512
    lines = ["; MaxNodes: 49152", swf_line(requested=4100)]
    wl = read_swf(write(tmp_path, lines, "b.swf"), procs_per_node=16, allocation_unit=512)
    assert wl.jobs[0].js == 512


def test_unknown_walltime_becomes_the_runtime_and_is_counted(tmp_path):
    lines = HEADER + [
        swf_line(job_id=1, runtime=100, requested_time=-1),
        swf_line(job_id=2, runtime=50, requested_time=0),
        swf_line(job_id=3, runtime=70, requested_time=600),
        swf_line(job_id=4, runtime=0, requested_time=-1),  # rejected: not counted
    ]
    wl = read_swf(write(tmp_path, lines))
    assert [(j.id, j.wt) for j in wl.jobs] == [(1, 100.0), (2, 50.0), (3, 600.0)]
    assert wl.walltimes_substituted == 2
    assert "requested walltime unknown for 2 accepted jobs" in wl.summary()


def test_each_rejection_reason(tmp_path):
    lines = HEADER + [
        swf_line(job_id=10, runtime=0, status=5),  # line 4
        swf_line(job_id=11, runtime=-1, status=5),  # line 5
        swf_line(job_id=12, runtime=0, status=1),  # line 6
        swf_line(job_id=13, runtime=-1, status=0),  # line 7
        swf_line(job_id=14, allocated=-1, requested=-1),  # line 8
        swf_line(job_id=15, requested=65),  # line 9: 17 nodes > 16
        swf_line(job_id=16, requested=64),  # line 10: exactly the machine
        swf_line(job_id=17, runtime=30, status=5),  # line 11: cancelled while running
        swf_line(job_id=16, submit=50),  # line 12: id 16 is line 10's
        swf_line(job_id=18, submit=-1),  # line 13: no time to submit it at
        swf_line(job_id=19, submit=-500),  # line 14: before the trace starts
    ]
    wl = read_swf(write(tmp_path, lines))
    assert [j.id for j in wl.jobs] == [16, 17]
    assert list(wl.rejected.columns) == ["job_id", "line", "reason"]
    assert wl.rejected.to_dict("records") == [
        {"job_id": 10, "line": 4, "reason": "cancelled before start"},
        {"job_id": 11, "line": 5, "reason": "cancelled before start"},
        {"job_id": 12, "line": 6, "reason": "non-positive runtime"},
        {"job_id": 13, "line": 7, "reason": "non-positive runtime"},
        {"job_id": 14, "line": 8, "reason": "non-positive size"},
        {"job_id": 15, "line": 9, "reason": "size larger than the machine"},
        {"job_id": 16, "line": 12, "reason": "duplicate job id, first at line 10"},
        {"job_id": 18, "line": 13, "reason": "unknown submit time"},
        {"job_id": 19, "line": 14, "reason": "negative submit time"},
    ]
    assert wl.jobs_read == 11
    summary = wl.summary()
    assert "11 jobs read, 2 accepted, 9 rejected" in summary
    assert "rejected, unknown submit time: 1" in summary
    assert "rejected, negative submit time: 1" in summary
    assert "rejected, duplicate job id: 1" in summary
    assert "rejected, cancelled before start: 2" in summary
    assert "rejected, non-positive runtime: 2" in summary
    assert "rejected, non-positive size: 1" in summary
    assert "rejected, size larger than the machine: 1" in summary
    # every reason but the one only asked for (unknown_walltime="reject")
    assert set(REJECT_REASONS) - {UNKNOWN_WALLTIME} == set(
        wl.rejected["reason"].str.split(",").str[0])


# Job 1 runs from 0 to 100 on 1 of the 16 nodes.  A second job 1 submitted at
# 50 would run beside it (overlapping), one submitted at 500 after it
# (sequential): either way two jobs would share an id in the results.
@pytest.mark.parametrize("second_submit", [50, 500], ids=["overlapping", "sequential"])
def test_a_duplicate_job_id_is_rejected_naming_the_first_line(tmp_path, second_submit):
    lines = HEADER + [
        swf_line(job_id=1, submit=0),  # line 4: owns id 1
        swf_line(job_id=2, submit=10),  # line 5
        swf_line(job_id=1, submit=second_submit),  # line 6
    ]
    wl = read_swf(write(tmp_path, lines))
    assert [(j.id, j.st) for j in wl.jobs] == [(1, 0.0), (2, 10.0)]
    assert wl.rejected.to_dict("records") == [
        {"job_id": 1, "line": 6, "reason": "duplicate job id, first at line 4"}]
    assert wl.rejection_counts() == {"duplicate job id": 1}


def test_an_id_stays_its_first_lines_even_when_that_line_is_rejected(tmp_path):
    lines = HEADER + [
        swf_line(job_id=7, runtime=0, status=5),  # line 4: cancelled, owns id 7
        swf_line(job_id=7, submit=20),  # line 5: a duplicate, though it could run
    ]
    wl = read_swf(write(tmp_path, lines))
    assert wl.jobs == []
    assert wl.rejected["reason"].tolist() == ["cancelled before start",
                                              "duplicate job id, first at line 4"]


@pytest.mark.parametrize("second_submit", [50, 500], ids=["overlapping", "sequential"])
def test_cpn_run_lists_a_duplicate_job_id_in_rejected_csv(tmp_path, capsys, second_submit):
    lines = HEADER + [swf_line(job_id=1, submit=0), swf_line(job_id=2, submit=10),
                      swf_line(job_id=1, submit=second_submit)]
    out = tmp_path / "out"
    assert main(["run", "--trace", str(write(tmp_path, lines)), "--out", str(out),
                 "--no-plots"]) == 0
    assert "rejected, duplicate job id: 1" in capsys.readouterr().out
    jobs = pd.read_csv(out / "jobs.csv")
    assert jobs[["job_id", "submit", "start", "end"]].values.tolist() == [
        [1, 0, 0, 100], [2, 10, 10, 110]]
    rejected = pd.read_csv(out / "rejected.csv")
    assert rejected.to_dict("records") == [
        {"job_id": 1, "line": 6, "reason": "duplicate job id, first at line 4"}]


def test_rejection_uses_the_rounded_size(tmp_path):
    # 300 nodes fit a 600-node machine, but rounded to 512-node units they need 512
    # and 600 nodes rounded need 1024 > 600
    lines = ["; MaxNodes: 600", swf_line(job_id=1, requested=300), swf_line(job_id=2, requested=600)]
    wl = read_swf(write(tmp_path, lines), allocation_unit=512)
    assert [j.js for j in wl.jobs] == [512]
    assert wl.rejected["job_id"].tolist() == [2]


# ---------------------------------------------------------------- malformed lines


def bad_trace(tmp_path, bad: str) -> Path:
    # header (3 lines) + 13 good jobs + the bad one on line 17
    lines = HEADER + [swf_line(job_id=i) for i in range(1, 14)] + [bad]
    return write(tmp_path, lines)


def test_non_numeric_field_names_file_line_and_field(tmp_path):
    path = bad_trace(tmp_path, swf_line(job_id=14).replace(" 100 ", " abc ", 1))
    message = f"{path}:17: field 4 (run time): 'abc' is not a number"
    with pytest.raises(SWFError, match=re.escape(message)) as info:
        read_swf(path)
    assert str(info.value) == message
    assert str(info.value).split(":")[0].endswith("trace.swf")
    assert isinstance(info.value, ValueError)


def test_non_numeric_unused_field_is_caught(tmp_path):
    fields = swf_line(job_id=14).split()
    fields[14] = "batch"  # field 15, queue: not converted, still checked
    path = bad_trace(tmp_path, " ".join(fields))
    with pytest.raises(SWFError, match=re.escape(f"{path}:17: field 15 (queue): 'batch'")):
        read_swf(path)


def test_fractional_processor_count_is_not_an_integer(tmp_path):
    path = bad_trace(tmp_path, swf_line(job_id=14, requested="4.5"))
    message = f"{path}:17: field 8 (requested processors): '4.5' is not an integer"
    with pytest.raises(SWFError, match=re.escape(message)):
        read_swf(path)


def test_fractional_times_are_allowed(tmp_path):
    path = write(tmp_path, HEADER + [swf_line(submit="10.5", runtime="99.25")])
    job = read_swf(path, shift_to_zero=False).jobs[0]
    assert (job.st, job.rt) == (10.5, 99.25)


# 1e3 is a number, just not how SWF writes one: said so, not "not a number".
@pytest.mark.parametrize("field, value", [("requested_time", "1e3"), ("runtime", "2.5E+2"),
                                          ("job_id", "1e3")])
def test_exponent_notation_is_refused_as_such(tmp_path, field, value):
    path = bad_trace(tmp_path, swf_line(**{"job_id": 14, field: value}))
    index = swf_line(**{field: "X"}).split().index("X")
    message = (f"{path}:17: field {index + 1} ({SWF_FIELDS[index]}): '{value}' is in exponent "
               "notation; SWF numbers are written in plain digits")
    with pytest.raises(SWFError, match=f"^{re.escape(message)}$"):
        read_swf(path)


# A value of 11 digits or more is no real trace's: it was read (a requested
# time of 1e23 s), or overflowed into a traceback (a job id).
@pytest.mark.parametrize("field, value, seconds", [
    ("requested_time", "99999999999999999999999", True), ("submit", "10000000000", True),
    ("runtime", "10000000000.5", True), ("job_id", "99999999999999999999999", False),
    ("requested", "10000000000", False), ("user", "10000000000", False)])
def test_absurdly_large_values_are_refused_naming_the_bound(tmp_path, field, value, seconds):
    path = bad_trace(tmp_path, swf_line(**{"job_id": 14, field: value}))
    index = swf_line(**{field: "X"}).split().index("X")
    message = (f"{path}:17: field {index + 1} ({SWF_FIELDS[index]}): '{value}' is above "
               "9,999,999,999, more than any real trace holds"
               + (" (as seconds, over 316 years)" if seconds else ""))
    with pytest.raises(SWFError, match=f"^{re.escape(message)}$"):
        read_swf(path)


def test_the_largest_values_real_traces_hold_are_read(tmp_path):
    # Curie's longest requested time is 2**31 - 1 s; Theta's submits are Unix times
    line = swf_line(job_id=9_999_999_999, submit=1_672_445_845, requested_time=2_147_483_647,
                    requested=64, runtime="9999999998.5")
    job = read_swf(write(tmp_path, HEADER + [line]), shift_to_zero=False).jobs[0]
    assert (job.id, job.st, job.wt, job.rt) == (9_999_999_999, 1_672_445_845.0,
                                                2_147_483_647.0, 9_999_999_998.5)


@pytest.mark.parametrize("count", [17, 19])
def test_wrong_field_count(tmp_path, count):
    fields = swf_line(job_id=14).split()
    fields = fields[:17] if count == 17 else fields + ["-1"]
    path = bad_trace(tmp_path, " ".join(fields))
    message = f"{path}:17: expected 18 fields, found {count}"
    with pytest.raises(SWFError, match=re.escape(message)):
        read_swf(path)


# ---------------------------------------------------------------- files that are no trace


def test_an_empty_file_is_named_as_empty(tmp_path):
    path = tmp_path / "trace.swf"
    path.write_bytes(b"")
    with pytest.raises(SWFError, match=f"^{re.escape(str(path))}: the file is empty$"):
        read_swf(path, machine_nodes=4)
    (tmp_path / "trace.swf.gz").write_bytes(gzip.compress(b""))
    with pytest.raises(SWFError, match="trace.swf.gz: the file is empty$"):
        read_swf(tmp_path / "trace.swf.gz")


def test_a_binary_file_is_not_text(tmp_path):
    path = tmp_path / "trace.swf"
    # a header line of 14 bytes, then a PNG signature: its "\r\n" starts line 3
    path.write_bytes(b"; MaxNodes: 4\n\x89PNG\r\n\x1a\n\x00\x00")
    message = (f"{path}:3: not a text file (byte 0x1a at offset 20); "
               "an SWF trace is text, one job per line")
    with pytest.raises(SWFError, match=f"^{re.escape(message)}$"):
        read_swf(path, machine_nodes=4)


def test_other_compressions_are_named(tmp_path):
    text = ("\n".join(HEADER + [swf_line()]) + "\n").encode()
    path = tmp_path / "trace.swf.xz"
    path.write_bytes(lzma.compress(text))
    with pytest.raises(SWFError, match=re.escape(
            f"{path}: not an SWF trace but xz-compressed: decompress it first")):
        read_swf(path)


def test_a_utf8_byte_order_mark_is_skipped(tmp_path):
    text = ("\n".join(HEADER + [swf_line(job_id=3)]) + "\n").encode()
    (tmp_path / "bom.swf").write_bytes(b"\xef\xbb\xbf" + text)
    (tmp_path / "bom.swf.gz").write_bytes(gzip.compress(b"\xef\xbb\xbf" + text))
    for name in ("bom.swf", "bom.swf.gz"):
        wl = read_swf(tmp_path / name)
        assert wl.header["Version"] == "2.2" and wl.machine_nodes == 16
        assert wl.jobs == [Job(id=3, st=0.0, rt=100.0, js=1, wt=200.0)]


def stored_gzip(text: bytes) -> bytes:
    """gzip without compression: a 10-byte header, then one stored block
    (5 bytes of block header, then ``text`` itself), so that cutting the file
    after ``15 + n`` bytes keeps exactly the first ``n`` bytes of ``text``."""
    packed = gzip.compress(text, compresslevel=0, mtime=0)
    assert packed[15:15 + len(text)] == text
    return packed


def test_a_truncated_gzip_says_after_which_line(tmp_path):
    lines = HEADER + [swf_line(job_id=i, submit=i) for i in range(1, 1001)]
    text = ("\n".join(lines) + "\n").encode()
    kept = len("\n".join(lines[:503]) + "\n") + 10  # 503 lines and part of the next
    path = tmp_path / "trace.swf.gz"
    path.write_bytes(stored_gzip(text)[:15 + kept])
    message = (f"{path}: the gzip file is truncated: its data stops after line 503 "
               "(an interrupted download or copy?)")
    with pytest.raises(SWFError, match=f"^{re.escape(message)}$"):
        read_swf(path)


def test_a_corrupt_gzip_is_named(tmp_path):
    packed = bytearray(gzip.compress(("\n".join(HEADER + [swf_line()]) + "\n").encode()))
    packed[-8] ^= 0xFF  # the CRC in the trailer
    path = tmp_path / "trace.swf.gz"
    path.write_bytes(bytes(packed))
    with pytest.raises(SWFError, match=re.escape(f"{path}: the gzip file is corrupt (CRC check")):
        read_swf(path)


# Each refused before anything is written: the output directory is not made.
@pytest.mark.parametrize("content, message", [
    (b"", ": the file is empty"),
    (b"\x00\x01\x02", ":1: not a text file (byte 0x00 at offset 0); an SWF trace is text, "
                      "one job per line"),
    (stored_gzip(b"; MaxNodes: 4\n" + b"1 0 -1 10 1" * 10)[:40],
     ": the gzip file is truncated: its data stops after line 1 "
     "(an interrupted download or copy?)"),
    ("\n".join(HEADER).encode(), ": the trace has no jobs (no job line after its header), "
                                  "nothing to simulate"),
    ("\n".join(HEADER + [swf_line(job_id=1, runtime=0, status=5), swf_line(job_id=2, runtime=0),
                         swf_line(job_id=2)]).encode(),
     ": none of the trace's 3 jobs can run (duplicate job id: 1, cancelled before start: 1, "
     "non-positive runtime: 1), nothing to simulate"),
], ids=["empty", "binary", "truncated gzip", "header only", "all rejected"])
def test_cpn_run_refuses_a_trace_without_jobs_in_one_line(tmp_path, capsys, content, message):
    path = tmp_path / "trace.swf"
    path.write_bytes(content)
    out = tmp_path / "out"
    assert main(["run", "--trace", str(path), "--out", str(out), "--machine-nodes", "4"]) == 2
    assert capsys.readouterr().err == f"cpn run: error: {path}{message}\n"
    assert not out.exists()


# ---------------------------------------------------------------- machine size


def test_machine_size_sources(tmp_path):
    job = swf_line(requested=4)
    assert read_swf(write(tmp_path, HEADER + [job], "a.swf")).machine_nodes == 16
    # the argument overrides the header
    assert read_swf(write(tmp_path, HEADER + [job], "b.swf"), machine_nodes=8).machine_nodes == 8
    # MaxProcs alone: 64 procs at 4 per node = 16 nodes
    path = write(tmp_path, ["; MaxProcs: 64", job], "c.swf")
    assert read_swf(path, procs_per_node=4).machine_nodes == 16
    # MaxNodes of -1 means unknown
    path = write(tmp_path, ["; MaxNodes: -1", job], "d.swf")
    with pytest.raises(SWFError, match=r"d\.swf: machine size unknown.*pass machine_nodes"):
        read_swf(path)
    assert read_swf(path, machine_nodes=10).machine_nodes == 10


def test_no_header_needs_machine_nodes(tmp_path):
    path = write(tmp_path, [swf_line(requested=3)])
    with pytest.raises(SWFError, match="machine size unknown"):
        read_swf(path)
    wl = read_swf(path, machine_nodes=4)
    assert wl.jobs[0].js == 3 and wl.header == {}


# ---------------------------------------------------------------- times, gzip, summary


def test_shift_to_zero_keeps_the_offset_and_sorts_by_submit(tmp_path):
    lines = HEADER + [
        swf_line(job_id=1, submit=1_641_021_300),
        swf_line(job_id=2, submit=1_641_021_254),
        swf_line(job_id=3, submit=1_641_021_000, runtime=0),  # rejected: not the origin
        swf_line(job_id=4, submit=1_641_021_300),
    ]
    wl = read_swf(write(tmp_path, lines))
    assert wl.time_offset == 1_641_021_254
    assert [(j.id, j.st) for j in wl.jobs] == [(2, 0.0), (1, 46.0), (4, 46.0)]
    assert ("the run's clock starts at the first submit, 1,641,021,254 s in the trace; the "
            "files keep the trace's times") in wl.summary()
    raw = read_swf(write(tmp_path, lines, "b.swf"), shift_to_zero=False)
    assert raw.time_offset == 0.0
    assert [j.st for j in raw.jobs] == [1_641_021_254, 1_641_021_300, 1_641_021_300]


# -1 is "unknown" in SWF, not one second before the trace began: such a job
# cannot be submitted, nor one dated before the trace (SWF counts from 0).
def test_jobs_without_a_submit_time_are_rejected_not_shifted_to(tmp_path):
    lines = HEADER + [swf_line(job_id=1, submit=-1), swf_line(job_id=2, submit=5),
                      swf_line(job_id=3, submit="-0.5"), swf_line(job_id=4, submit=7)]
    wl = read_swf(write(tmp_path, lines))
    assert [(j.id, j.st) for j in wl.jobs] == [(2, 0.0), (4, 2.0)]
    assert wl.time_offset == 5
    assert wl.rejected.to_dict("records") == [
        {"job_id": 1, "line": 4, "reason": "unknown submit time"},
        {"job_id": 3, "line": 6, "reason": "negative submit time"}]
    assert wl.summary().splitlines()[-1] == (
        "  the run's clock starts at the first submit, 5 s in the trace; the files keep the "
        "trace's times")


# Only -1 means unknown: any other negative value in a field the reader uses
# means nothing, and was read as unknown (a wait, a requested time, a size
# falling back to field 5) or as a real number.
@pytest.mark.parametrize("field, value", [
    ("wait", -5), ("wait", "-0.5"), ("runtime", -5), ("allocated", -4), ("requested", -4),
    ("requested_time", -5), ("status", -2), ("user", -3), ("job_id", -7)])
def test_a_negative_other_than_minus_one_is_an_error(tmp_path, field, value):
    path = bad_trace(tmp_path, swf_line(**{"job_id": 14, field: value}))
    index = swf_line(**{field: "X"}).split().index("X")
    message = (f"{path}:17: field {index + 1} ({SWF_FIELDS[index]}): '{value}' is negative, "
               "and only -1 (unknown) may be")
    with pytest.raises(SWFError, match=f"^{re.escape(message)}$"):
        read_swf(path)


def test_minus_one_is_unknown_however_it_is_written(tmp_path):
    last = swf_line(job_id=2, wait="-1.0", requested_time="-1.00").replace(" ", "\t")
    path = tmp_path / "trace.swf"
    path.write_text("\n".join(HEADER + [swf_line(job_id=1, wait=-1), last]))  # no end newline
    wl = read_swf(path)
    assert [(j.id, j.wt) for j in wl.jobs] == [(1, 200.0), (2, 100.0)]
    assert wl.log["wait"].tolist() == [-1.0, -1.0] and wl.walltimes_substituted == 1


def test_gzip_is_read_transparently(tmp_path):
    lines = HEADER + [swf_line(job_id=i, submit=10 * i) for i in range(1, 4)]
    plain = read_swf(write(tmp_path, lines))
    text = ("\n".join(lines) + "\n").encode()
    for name in ("trace.swf.gz", "no_suffix.swf"):  # detected by content, not name
        (tmp_path / name).write_bytes(gzip.compress(text))
        packed = read_swf(tmp_path / name)
        assert packed.jobs == plain.jobs and packed.header == plain.header


def test_a_plain_trace_named_gz_is_read_as_the_text_it_is(tmp_path):
    # gzip is told by its magic bytes (1f 8b), not by the name, in both directions
    lines = HEADER + [swf_line(job_id=i, submit=10 * i) for i in range(1, 4)]
    plain = read_swf(write(tmp_path, lines))
    wl = read_swf(write(tmp_path, lines, "renamed.swf.gz"))
    assert wl.jobs == plain.jobs and wl.header == plain.header and wl.machine_nodes == 16


def test_offered_load_and_frame(tmp_path):
    lines = HEADER + [
        swf_line(job_id=1, submit=0, runtime=100, requested=32),  # 8 nodes * 100 s
        swf_line(job_id=2, submit=400, runtime=50, requested=64),  # 16 nodes * 50 s
    ]
    wl = read_swf(write(tmp_path, lines))
    # (800 + 800) node-s over 16 nodes * 400 s = 0.25; over 1000 s: 0.1
    assert wl.offered_load() == pytest.approx(0.25)
    assert wl.offered_load(span=1000) == pytest.approx(0.1)
    frame = wl.frame()
    assert frame["js"].tolist() == [8, 16] and frame["id"].tolist() == [1, 2]


def test_empty_trace(tmp_path):
    wl = read_swf(write(tmp_path, HEADER))
    assert isinstance(wl, Workload)
    assert wl.jobs == [] and len(wl.rejected) == 0 and wl.machine_nodes == 16
    assert "0 jobs read, 0 accepted, 0 rejected" in wl.summary()


# ---------------------------------------------------------------- real traces


def real(name: str) -> Path:
    path = SWF_DIR / name
    if not path.exists():
        pytest.skip(f"{path} not available")
    return path


def reasons(wl: Workload) -> dict[str, int]:
    return wl.rejected["reason"].value_counts().to_dict()


def test_llnl_atlas():
    # data README: 43,778 jobs, 1,152 nodes / 9,216 procs (8 per node); 11,432
    # cancelled, of which 4,601 never ran (run time 0); 2,577 other run times <= 0;
    # 8,233 requested times of -1, 5,352 of them on accepted jobs (awk-counted).
    wl = read_swf(real("LLNL-Atlas-2006-2.1-cln.swf"))
    assert len(wl.jobs) + len(wl.rejected) == 43_778
    assert wl.machine_nodes == 1152 and wl.procs_per_node == 8
    assert reasons(wl) == {"cancelled before start": 4_601, "non-positive runtime": 2_577}
    assert len(wl.jobs) == 43_778 - 4_601 - 2_577
    assert wl.walltimes_substituted == 5_352
    assert wl.header["UnixStartTime"] == "1163199901"
    assert wl.jobs[0].st == 0.0 and wl.time_offset > 0
    assert max(j.js for j in wl.jobs) <= 1152


def test_cea_curie_gz():
    # data README: 312,826 jobs; 17,286 with run time 0 (14,730 of them cancelled);
    # mixed 16- and 32-core nodes, so procs_per_node is given; ids start at 272,393,
    # submits at 31,656,837 s.  The only 3 requested times of -1 are on jobs of run
    # time 0 (awk-checked), so no accepted job needs a substitute walltime.
    path = real("CEA-Curie-2011-2.1-cln.swf.gz")
    wl = read_swf(path, procs_per_node=16)
    assert len(wl.jobs) + len(wl.rejected) == 312_826
    assert reasons(wl) == {"cancelled before start": 14_730, "non-positive runtime": 2_556}
    assert wl.walltimes_substituted == 0
    assert wl.time_offset == 31_656_837
    assert wl.jobs[0].id == 272_393 and wl.machine_nodes == 5544


def test_nasa_ipsc_has_no_requested_times():
    wl = read_swf(real("NASA-iPSC-1993-3.1-cln.swf"))
    assert len(wl.jobs) + len(wl.rejected) == 18_239
    assert reasons(wl) == {"non-positive runtime": 173}
    assert wl.walltimes_substituted == len(wl.jobs) == 18_066
    assert all(j.wt == j.rt for j in wl.jobs)


def test_theta_absolute_times():
    wl = read_swf(real("theta_2022.swf"))
    assert len(wl.jobs) == 23_911 and len(wl.rejected) == 0
    assert wl.time_offset == 1_641_021_254  # first submit, a 2022 Unix time
    assert wl.jobs[0].st == 0.0 and wl.machine_nodes == 4360
    assert wl.jobs[0].js == 128 and wl.jobs[0].rt == 10849 and wl.jobs[0].wt == 10800


@pytest.mark.parametrize("bulk", [True, False])
def test_reading_keeps_the_jobs_fields_in_arrays_not_per_job_tuples(tmp_path, monkeypatch,
                                                                     bulk):
    """A million-job trace must read in well under a gigabyte: the fields
    of the lines read wait in typed arrays (8 bytes each) until the jobs
    are made, not in per-line tuples of Python numbers.  Measured on 100,000
    lines by the line reader: 567 bytes a job at the peak (the jobs
    themselves, about 180, and the duplicate-id index included), 719 when
    every line was kept as tuples; 640 lies between, 10 % from each.  The
    bulk reader (``bulk``, modules/swf_bulk.py) needs less: 398."""
    import random

    if not bulk:  # the line reader, which reads a trace the bulk reader gives up on
        monkeypatch.setattr(swf, "_read_bulk", lambda *args: None)

    rng = random.Random(0)
    path = tmp_path / "many.swf"
    with open(path, "w") as out:
        out.write("; MaxNodes: 64\n; MaxProcs: 64\n")
        for i in range(1, 100_001):
            run = rng.randint(1, 9999)
            out.write(f"{i} {i * 7} 0 {run} {rng.randint(1, 64)} -1 -1 -1 {run + 60} -1 1 "
                      f"{rng.randint(1, 50)} 1 1 1 -1 -1 -1\n")
    workload, peak = traced_peak(lambda: read_swf(path))
    assert len(workload.jobs) == 100_000 and len(workload.log) == 100_000
    assert peak / 100_000 < 640
