"""Sweeps and studies in processors (``--unit procs``), as ``cpn run``
schedules a trace whose MaxProcs/MaxNodes is not whole (CEA-Curie's
93312/5544): the sweep could not, and told its user to set a Python
argument no flag sets."""

import json
import math

import pandas as pd
import pytest

from cli.main import main as cpn
from studies.experiment import Experiment
from studies.registry import STUDIES
from studies.running import _simulate
from studies.study import StudyOptions
from studies.workloads import MONTH_SECONDS, prepare_workload, trace_months

#: 10 processors on 3 nodes: job 2 waits for job 1, job 3 fits beside it;
#: job 4 (12 processors) is larger than the machine; job 5 is in month 1.
MIXED_NODES = ("; MaxNodes: 3\n; MaxProcs: 10\n; UnixStartTime: 0\n; TimeZoneString: UTC\n"
               "1 0 -1 100 6 -1 -1 6 200 -1 1 1 1 1 1 -1 -1 -1\n"
               "2 5 -1 50 6 -1 -1 6 100 -1 1 1 1 1 1 -1 -1 -1\n"
               "3 10 -1 30 4 -1 -1 4 60 -1 1 1 1 1 1 -1 -1 -1\n"
               "4 20 -1 30 12 -1 -1 12 60 -1 1 1 1 1 1 -1 -1 -1\n"
               f"5 {int(MONTH_SECONDS) + 10} -1 30 2 -1 -1 2 60 -1 1 1 1 1 1 -1 -1 -1\n")


@pytest.fixture
def trace(tmp_path):
    path = tmp_path / "mixed_nodes.swf"
    path.write_text(MIXED_NODES)
    return path


def test_an_experiment_in_processors_starts_jobs_as_cpn_run_unit_procs(trace, tmp_path):
    exp = Experiment(trace=trace, size_unit="procs", power="constant", overrun="clamp")
    workload = prepare_workload(exp)
    assert workload.machine_nodes == 10 and workload.months == 2
    ran = _simulate(exp, workload, None).jobs
    assert cpn(["run", "--trace", str(trace), "--unit", "procs", "--power", "constant",
                "--out", str(tmp_path / "run"), "--no-plots"]) == 0
    jobs = pd.read_csv(tmp_path / "run" / "jobs.csv")
    expected = dict(zip(jobs.job_id, jobs.start))
    assert expected == {1: 0, 2: 100, 3: 10, 5: MONTH_SECONDS + 10}
    assert dict(zip(ran.job_id, ran.start)) == expected
    assert "in processors" in exp.label()


def test_windows_months_and_rejected_lines_count_in_the_runs_unit(trace):
    assert trace_months(trace, size_unit="procs") == 2
    procs = prepare_workload(Experiment(trace=trace, size_unit="procs", month=0))
    nodes = prepare_workload(Experiment(trace=trace, procs_per_node=4, month=0))
    assert (procs.machine_nodes, procs.trace_rejected) == (10, 1)  # job 4: 12 of 10 procs
    assert (nodes.machine_nodes, nodes.trace_rejected) == (3, 0)  # 12 procs: 3 nodes of 4
    assert [job.js for job in procs.jobs] == [6, 6, 4]
    assert [job.js for job in nodes.jobs] == [2, 2, 1, 3]


def test_a_nodes_run_keeps_its_key_and_a_processors_run_has_its_own(trace):
    assert Experiment(size_unit="nodes").key() == "2f361ef4bf4ba104"  # Experiment()'s
    nodes = Experiment(trace=trace, procs_per_node=4)
    assert Experiment(trace=trace, procs_per_node=4, size_unit="nodes") == nodes
    assert "size_unit" not in nodes.to_dict() and nodes.size_unit is None
    procs = Experiment(trace=trace, size_unit="procs")
    assert procs.key() != Experiment(trace=trace).key() and procs.key() != nodes.key()
    assert procs.to_dict()["size_unit"] == "procs"
    assert Experiment.from_dict(json.loads(procs.canonical_json())) == procs
    row = {"key": nodes.key(), **nodes.to_dict(), "size_unit": math.nan, "jobs": 4}
    assert Experiment.from_dict(row) == nodes  # a results.csv row beside processor runs
    assert Experiment.from_dict({"key": procs.key(), **procs.to_dict(), "jobs": 3}) == procs


def test_a_size_unit_that_means_nothing_is_refused(trace):
    with pytest.raises(ValueError, match=r"size_unit must be one of \('nodes', 'procs'\)"):
        Experiment(trace=trace, size_unit="cores")
    with pytest.raises(ValueError, match="the synthetic workload has its own machine"):
        Experiment(size_unit="procs")
    with pytest.raises(ValueError, match='procs_per_node=4 means nothing with size_unit="procs"'):
        Experiment(trace=trace, size_unit="procs", procs_per_node=4)
    assert Experiment(trace=trace, size_unit="procs", procs_per_node=1).size_unit == "procs"


def sweep(trace, out, *options):
    return cpn(["sweep", "--trace", str(trace), "--power", "constant", "--out", str(out),
                "--workers", "1", "--no-progress", *options])


def test_cpn_sweep_unit_procs_runs_where_nodes_do_not_divide(trace, tmp_path, capsys):
    assert sweep(trace, tmp_path / "nodes", "--month", "0") == 2
    assert capsys.readouterr().err.strip().endswith(
        "MaxProcs/MaxNodes = 10/3 is not a whole number of processors per node (mixed "
        'nodes?): pass --procs-per-node, or --unit="procs" to schedule processors instead '
        "of nodes")
    assert sweep(trace, tmp_path / "runs", "--month", "all", "--unit", "procs") == 0
    results = pd.read_csv(tmp_path / "runs" / "results.csv").sort_values("month")
    assert results.size_unit.tolist() == ["procs", "procs"]
    assert results.simulated_nodes.tolist() == [10, 10]
    assert results.trace_rejected_jobs.tolist() == [1, 0]
    assert results.jobs.tolist() == [3, 1]


def test_cpn_sweep_refuses_unit_where_it_cannot_act(trace, tmp_path, capsys):
    out = ["--out", str(tmp_path / "runs")]
    assert cpn(["sweep", "--model", "thesis", "--unit", "procs", *out]) == 2
    assert "--unit applies to --model puppet only" in capsys.readouterr().err
    grid = tmp_path / "grid.json"
    grid.write_text(json.dumps({"grid": {"policy": ["fcfs"]}}))
    assert cpn(["sweep", "--grid", str(grid), "--unit", "procs", *out]) == 2
    assert ("--unit cannot be combined with --grid: put it in the grid file"
            in capsys.readouterr().err)


def test_puppet_and_topper_studies_run_in_the_unit_asked(trace):
    options = StudyOptions(trace=str(trace), size_unit="procs")
    for study in STUDIES.values():
        if study.paper in ("PuPPET", "TOPPER"):
            base = study.design.base(options)
            assert base.size_unit == "procs" and base.trace == str(trace)
            assert {run.size_unit for _, run in study.design.runs(base, options)} == {"procs"}


@pytest.mark.parametrize("name", ["data_driven", "thesis_upas"])
def test_studies_with_their_own_readers_refuse_unit_by_its_flag(trace, tmp_path, capsys,
                                                                 name):
    assert cpn(["study", name, "--trace", str(trace), "--unit", "procs",
                "--out", str(tmp_path / "out"), "--results", str(tmp_path / "runs")]) == 2
    assert f"{name} " in (said := capsys.readouterr().err) and "does not use --unit;" in said
