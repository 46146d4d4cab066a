"""CQSim's EASY on the net (``estimate="mixed"``, ``overrun="clamp"``):
hand-computed cases, then every job against the independent reference of
``tests/reference_cqsim.py`` on random workloads and on prefixes of the real
traces (the whole traces: ``python bench/cqsim_mode.py``).  Also the
processor unit (``--unit procs``) and what ``cpn run`` says of overruns.
"""

from __future__ import annotations

import json
import random

import pandas as pd
import pytest

from cli.main import main
from modules.batch_scheduling import SchedulingConfig
from modules.easy import order_queue, wfp_score
from modules.job import Job
from modules.swf import read_swf
from nets.puppet import PuppetConfig, simulate

try:  # tests/ on sys.path (pytest's default rootdir-less import mode)
    import reference_cqsim
    from real_traces import AS_CQSIM, trace_prefix
except ImportError:  # tests/ imported as a package
    from tests import reference_cqsim
    from tests.real_traces import AS_CQSIM, trace_prefix


def starts(jobs, nodes, **scheduling) -> dict[int, float]:
    result = simulate(jobs, PuppetConfig(nodes, scheduling=SchedulingConfig(**scheduling)))
    return dict(zip(result.jobs["job_id"], result.jobs["start"]))


def schedule(jobs, nodes, time_offset=0.0, **scheduling) -> dict[int, tuple[float, float]]:
    """id -> (start, end) from the net, CQSim's rule unless told otherwise."""
    scheduling = {"estimate": "mixed", "overrun": "clamp", **scheduling}
    result = simulate(jobs, PuppetConfig(nodes, scheduling=SchedulingConfig(**scheduling)),
                      time_offset=time_offset)
    return {row.job_id: (row.start, row.end) for row in result.jobs.itertuples()}


# -- the rule, by hand ---------------------------------------------------------------


def test_mixed_plans_running_jobs_by_request_and_candidates_by_runtime():
    # 4 nodes.  A (2 nodes) runs 0..100 but asked for 1000.  H (4 nodes) at 1
    # is blocked: its shadow time is A's planned end, 100 by A's runtime
    # ("actual"), 1000 by its request ("requested", "mixed"); extra nodes
    # 2 + 2 - 4 = 0, so a candidate must end by the shadow time.
    # C (2 nodes, runs 500, asks 500) at 2, S (1 node, runs 50, asks 2000) at 3.
    #   actual:    C ends 502 > 100: waits; S ends 53 <= 100: backfills at 3.
    #              At 100 H starts (until 200), then C.
    #   requested: C planned 502 <= 1000: backfills at 2, no node left for S.
    #              At 100 A ends: H's shadow is C's planned end 502 (extra
    #              0); S planned 100 + 2000 > 502: waits.  H at 502, S at 602.
    #   mixed:     as requested until 100, where S is judged by its runtime,
    #              100 + 50 <= 502: it backfills at 100.
    jobs = [Job(1, 0, 100, 2, 1000), Job(2, 1, 100, 4, 100), Job(3, 2, 500, 2, 500),
            Job(4, 3, 50, 1, 2000)]
    assert starts(jobs, 4, estimate="actual") == {1: 0, 2: 100, 3: 200, 4: 3}
    assert starts(jobs, 4, estimate="requested") == {1: 0, 2: 502, 3: 2, 4: 602}
    assert starts(jobs, 4, estimate="mixed") == {1: 0, 2: 502, 3: 2, 4: 100}
    # C now takes 1 node and asks 2000 (it still runs 500).
    #   requested: C planned 2002 > 1000, S 2003: both wait; H at 100, C
    #              and S when H ends at 200.
    #   mixed:     C by its runtime, 502 <= 1000: backfills at 2; S, 53:
    #              backfills at 3.  At 100 A ends (3 free): H's shadow is now
    #              C's planned end 2002, but C really ends at 502: H at 502.
    jobs = [Job(1, 0, 100, 2, 1000), Job(2, 1, 100, 4, 100), Job(3, 2, 500, 1, 2000),
            Job(4, 3, 50, 1, 2000)]
    assert starts(jobs, 4, estimate="requested") == {1: 0, 2: 100, 3: 200, 4: 200}
    assert starts(jobs, 4, estimate="mixed") == {1: 0, 2: 502, 3: 2, 4: 3}
    assert starts(jobs, 4, estimate="actual") == {1: 0, 2: 100, 3: 200, 4: 3}
    assert reference_cqsim.simulate(jobs, 4) == {1: (0, 100), 2: (502, 602), 3: (2, 502),
                                                 4: (3, 53)}


def test_wfp_counts_whole_seconds_under_cqsim_rule():
    # At 100: X queued since 0.1 (99.9 s, whole: 99) asks 100 s; Y queued
    # since 1.0 (99 s) asks 99.5 s.  Scores (size 1):
    #   exact:  X (99.9/100)^3 = 0.997  >  Y (99/99.5)^3 = 0.985
    #   whole:  X (99/100)^3   = 0.970  <  Y 0.985
    x, y = Job(1, 0.1, 100, 1, 100), Job(2, 1.0, 99.5, 1, 99.5)
    assert wfp_score(x, 100, "mixed") == pytest.approx(0.99 ** 3)
    assert wfp_score(x, 100, "requested") == pytest.approx(0.999 ** 3)
    assert [job.id for job in order_queue((x, y), "wfp", 100, "requested")] == [1, 2]
    assert [job.id for job in order_queue((x, y), "wfp", 100, "mixed")] == [2, 1]
    # on the net: one node, busy until 100 with job 0
    jobs = [Job(0, 0, 100, 1, 100), x, y]
    assert starts(jobs, 1, policy="wfp", estimate="requested") == {0: 0, 1: 100, 2: 200}
    assert starts(jobs, 1, policy="wfp", estimate="mixed") == {0: 0, 1: 199.5, 2: 100}


def test_clamp_kills_at_the_limit_keep_runs_on():
    # 4 nodes.  A (3 nodes) asks 100 s but runs 300; H (4 nodes) at 1.
    # clamp: A is killed at 100, H starts then.  keep: A runs to 300; H
    # waits for it.  S (1 node, 50 s) at 150: under keep A's plan (100) is
    # past, so A counts as ending now: shadow 150, extra 1 + 3 - 4 = 0,
    # and S (ends 200 > 150) cannot backfill: it waits behind H (300..400).
    jobs = [Job(1, 0, 300, 3, 100), Job(2, 1, 100, 4, 100), Job(3, 150, 50, 1, 50)]
    assert schedule(jobs, 4, overrun="clamp") == {1: (0, 100), 2: (100, 200), 3: (200, 250)}
    assert schedule(jobs, 4, overrun="keep") == {1: (0, 300), 2: (300, 400), 3: (400, 450)}
    for overrun in ("clamp", "keep"):
        assert reference_cqsim.simulate(jobs, 4, overrun=overrun) == schedule(
            jobs, 4, overrun=overrun)


def test_the_python_default_keeps_overruns_the_command_line_kills_them():
    assert SchedulingConfig().overrun == "keep"  # studies and scripts give what they gave
    with pytest.raises(ValueError, match=r"scheduling overrun must be one of \('keep', "
                                         r"'clamp'\), not 'kill'"):
        SchedulingConfig(overrun="kill")
    from cli.main import build_parser
    assert build_parser().parse_args(["run"]).overrun == "clamp"


# -- every job against the reference --------------------------------------------------


def random_jobs(seed: int, count: int = 300, nodes: int = 16) -> list[Job]:
    """Jobs with many equal times, fractional submits, and requests below,
    at and above the runtime."""
    rng = random.Random(seed)
    jobs, now = [], 0.0
    for job_id in range(count):
        now += rng.choice([0, 0, 0.5, 1, 3, 10, 40])
        runtime = rng.choice([1, 5, 10, 50, 100, 300])
        walltime = rng.choice([runtime, runtime, 2 * runtime, 5 * runtime, runtime + 7,
                               max(1, runtime // 2)])
        jobs.append(Job(job_id, now, runtime, rng.randint(1, nodes), walltime))
    return jobs


@pytest.mark.parametrize("overrun", ["clamp", "keep"])
@pytest.mark.parametrize("policy", ["fcfs", "wfp"])
def test_every_job_as_the_reference_on_random_workloads(policy, overrun):
    differing_from_actual = 0
    for seed in range(8):
        jobs = random_jobs(seed)
        expected = reference_cqsim.simulate(jobs, 16, policy, overrun)
        assert schedule(jobs, 16, policy=policy, overrun=overrun) == expected, seed
        actual = schedule(jobs, 16, policy=policy, overrun=overrun, estimate="actual")
        differing_from_actual += actual != expected
    assert differing_from_actual == 8  # the workloads tell the rules apart


#: How much denser to make each trace (submit times divided) so that it
#: queues: the first jobs of NASA, Atlas and Curie hardly wait on their
#: machines.
DENSER = {"NASA-iPSC-1993-3.1-cln.swf": 2, "LLNL-Atlas-2006-2.1-cln.swf": 4,
          "theta_2022.swf": 1, "CEA-Curie-2011-2.1-cln.swf.gz": 4}


@pytest.mark.parametrize("policy", ["fcfs", "wfp"])
@pytest.mark.parametrize("name", sorted(AS_CQSIM))
def test_every_job_as_the_reference_on_real_trace_prefixes(tmp_path, name, policy):
    # The first 5,000 jobs, as logged and denser.
    path = trace_prefix(name, 5_000, tmp_path)
    options, denser = AS_CQSIM[name], DENSER[name]
    workload = read_swf(path, **options)
    reference_jobs, machine = reference_cqsim.read_trace(
        path, procs_per_node=workload.procs_per_node,
        unknown_walltime=options["unknown_walltime"])
    assert machine == workload.machine_nodes
    offset = workload.time_offset
    for density in dict.fromkeys((1, denser)):
        dense = [job._replace(st=job.st / density) for job in workload.jobs]
        expected = reference_cqsim.simulate(
            [job._replace(st=(job.st - offset) / density) for job in reference_jobs],
            machine, policy)
        assert len(expected) == len(dense) > 1_000
        assert schedule(dense, machine, policy=policy) == expected


# -- the command line -----------------------------------------------------------------

# 4 nodes.  Job 1 (2 nodes) runs 300 s but asked 100; job 2 (4 nodes) at
# 1010; job 3 (1 node, runs 30 s, asks 500) at 1020; job 4 asks nothing
# (-1).  With --overrun clamp job 1 is killed at 1100; job 2's shadow is
# 1100 (job 1's request), extra 2 + 2 - 4 = 0; job 3 ends 1050 <= 1100 by its
# runtime (mixed) and backfills at 1020; job 4 (1 node, 10 s) at 1030 too.
OVERRUN_SWF = """\
; MaxNodes: 4
; MaxProcs: 4
1 1000 -1 300 2 -1 -1 2 100 -1 1 1 1 1 1 -1 -1 -1
2 1010 -1  50 4 -1 -1 4 100 -1 1 2 1 1 1 -1 -1 -1
3 1020 -1  30 1 -1 -1 1 500 -1 1 3 1 1 1 -1 -1 -1
4 1030 -1  10 1 -1 -1 1  -1 -1 1 3 1 1 1 -1 -1 -1
"""


@pytest.mark.parametrize("unknown, expected", [
    ("runtime", {1: (1000, 1100), 2: (1100, 1150), 3: (1020, 1050), 4: (1030, 1040)}),
    ("reject", {1: (1000, 1100), 2: (1100, 1150), 3: (1020, 1050)}),
])
def test_cpn_run_in_cqsim_mode(tmp_path, capsys, unknown, expected):
    path = tmp_path / "overrun.swf"
    path.write_text(OVERRUN_SWF)
    out = tmp_path / "out"
    assert main(["run", "--trace", str(path), "--estimate", "mixed", "--overrun", "clamp",
                 "--unknown-walltime", unknown, "--out", str(out), "--no-plots"]) == 0
    jobs = pd.read_csv(out / "jobs.csv")
    assert {row.job_id: (row.start, row.end) for row in jobs.itertuples()} == expected
    reference_jobs, machine = reference_cqsim.read_trace(path, unknown_walltime=unknown)
    assert reference_cqsim.simulate(reference_jobs, machine) == expected
    printed = " ".join(capsys.readouterr().out.split())  # as wrapped to the terminal
    assert "1 job ran past their requested time: killed at their limit (--overrun clamp)" in (
        printed)
    metrics = json.loads((out / "metrics.json").read_text())
    assert metrics["overrun_jobs"] == 1 and metrics["config"]["scheduling"] == {
        "policy": "fcfs", "estimate": "mixed", "trigger": "event", "backfill": True,
        "overrun": "clamp"}


def test_cpn_run_keeps_overruns_when_asked(tmp_path, capsys):
    path = tmp_path / "overrun.swf"
    path.write_text(OVERRUN_SWF)
    out = tmp_path / "out"
    assert main(["run", "--trace", str(path), "--estimate", "mixed", "--overrun", "keep",
                 "--out", str(out), "--no-plots"]) == 0
    jobs = pd.read_csv(out / "jobs.csv").set_index("job_id")
    assert (jobs.loc[1, "end"], jobs.loc[2, "start"]) == (1300, 1300)
    assert "1 job ran past their requested time: kept running to their end (--overrun keep)" \
        in " ".join(capsys.readouterr().out.split())


def test_cpn_run_counts_processors_where_nodes_do_not_divide(tmp_path, capsys):
    path = tmp_path / "mixed_nodes.swf"
    path.write_text("; MaxNodes: 151\n; MaxProcs: 2004\n"
                    "1 0 -1 100 13 -1 -1 13 100 -1 1 1 1 1 1 -1 -1 -1\n"
                    "2 5 -1 100 2000 -1 -1 2000 100 -1 1 1 1 1 1 -1 -1 -1\n")
    out = tmp_path / "out"
    assert main(["run", "--trace", str(path), "--out", str(out), "--no-plots"]) == 2
    assert capsys.readouterr().err.strip() == (
        f"cpn run: error: {path}: MaxProcs/MaxNodes = 2004/151 is not a whole number of "
        'processors per node (mixed nodes?): pass --procs-per-node, or --unit="procs" to '
        "schedule processors instead of nodes")
    assert main(["run", "--trace", str(path), "--unit", "procs", "--out", str(out),
                 "--no-plots"]) == 0
    printed = " ".join(capsys.readouterr().out.split())
    assert "machine of 2,004 processors" in printed
    assert "PuPPET run: mixed_nodes.swf on 2,004 processors" in printed
    jobs = pd.read_csv(out / "jobs.csv")
    assert list(jobs["nodes"]) == [13, 2000] and list(jobs["start"]) == [0, 100]
