"""TOPPER experiments and studies: declarations whose keys stay stable,
runs equal to nets.topper.simulate, scaled workloads, the study machinery
and cpn sweep on a tiny trace."""

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from cli.main import main as cpn
from modules.resilience import FaultTolerance
from nets.topper import simulate
from studies.configs import power_config, topper_config
from studies.experiment import Experiment
from studies.running import run_experiment
from studies.registry import STUDIES
from studies.study import StudyOptions, run_study
from studies.workloads import prepare_workload, scale_jobs
from tiny_traces import write_two_month_trace


@pytest.fixture(scope="module")
def trace(tmp_path_factory) -> Path:
    """A hand-made 16-node SWF: 40 jobs in month 0, 12 in month 1."""
    return write_two_month_trace(tmp_path_factory.mktemp("swf") / "tiny.swf", nodes=16,
                                 seed=11, later_jobs=12, later_gap=1800, max_procs=8,
                                 gaps=(60, 1200), runtimes=(600, 7200))


# -- declarations ---------------------------------------------------------------


def test_puppet_experiments_keep_their_canonical_json_and_key():
    puppet = Experiment(trace="a.swf", capping="dvfs", policy="wfp")
    assert "resilience" not in puppet.canonical_json()
    assert "walltime_scale" not in puppet.canonical_json()
    assert Experiment().key() == "2f361ef4bf4ba104"  # as before TOPPER fields existed
    # TOPPER fields cannot act without failures: cleared, the key unchanged
    assert Experiment(redundancy=3, gamma=0.5, on_failure="requeue").key() == Experiment().key()
    assert Experiment(walltime_scale=1, size_scale=1.0).key() == Experiment().key()


def test_topper_fields_take_the_paper_defaults_where_they_act():
    checkpoint = Experiment(resilience="checkpoint")
    assert (checkpoint.checkpoint_scale, checkpoint.on_failure) == (1.0, "keep")
    assert checkpoint.redundancy is None and checkpoint.gamma is None
    assert checkpoint.dvfs_failure_multiplier is None  # no DVFS
    replication = Experiment(resilience="replication", capping="dvfs")
    assert (replication.redundancy, replication.gamma) == (2.0, 0.3)
    assert replication.dvfs_failure_multiplier == 1.0
    assert Experiment(resilience="none").checkpoint_scale is None
    assert Experiment(resilience="replication").key() != checkpoint.key()
    assert Experiment(resilience="checkpoint", redundancy=3).key() == checkpoint.key()
    again = Experiment.from_dict(json.loads(replication.canonical_json()))
    assert again == replication and again.key() == replication.key()
    assert "replication r 2 gamma 0.3" in replication.label()


@pytest.mark.parametrize("fields, message", [
    ({"resilience": "prayer"}, "resilience must be one of"),
    ({"resilience": "checkpoint", "on_failure": "retry"}, "on_failure must be one of"),
    ({"resilience": "replication", "redundancy": 0.5}, "redundancy degree r must be >= 1"),
    ({"resilience": "replication", "gamma": -0.1}, "gamma"),
    ({"resilience": "checkpoint", "system_mttf_hours": float("inf")}, "resilience=None"),
    ({"resilience": "checkpoint", "checkpoint_scale": -1}, "checkpoint_scale"),
    ({"resilience": "checkpoint", "unit_nodes": 0}, "unit_nodes"),
    ({"walltime_scale": 0}, "walltime_scale must be positive"),
])
def test_bad_topper_fields_are_refused(fields, message):
    with pytest.raises(ValueError, match=message):
        Experiment(**fields)


# -- runs -------------------------------------------------------------------------


def test_a_topper_experiment_is_the_topper_simulation(trace):
    exp = Experiment(trace=str(trace), month=0, resilience="checkpoint",
                     system_mttf_hours=3, on_failure="requeue")
    record = run_experiment(exp)
    workload = prepare_workload(exp)
    config = topper_config(exp, power_config(exp, workload.machine_nodes, None))
    assert config.resilience == FaultTolerance(unit_nodes=1, unit_mttf=3 * 3600 * 16,
                                               on_failure="requeue")
    direct = simulate(list(workload.jobs), config, seed=exp.seed).metrics
    assert record["failures"] == direct["failures"] > 0
    for metric in ("system_efficiency", "wait_mean_s", "makespan_s", "energy_j",
                   "lost_node_hours", "requeues"):
        assert record[metric] == pytest.approx(direct[metric])
    assert record["resilience"] == "checkpoint" and record["on_failure"] == "requeue"
    free = Experiment(resilience="checkpoint", checkpoint_scale=0)  # free checkpoints
    assert topper_config(free, power_config(free, 49_152, None)).resilience == \
        FaultTolerance(checkpoint_scale=0.0, unit_mttf=46.45 * 3600 * 48)


def test_scaled_workloads(trace):
    plain = prepare_workload(Experiment(trace=str(trace), month=0)).jobs
    longer = prepare_workload(Experiment(trace=str(trace), month=0, walltime_scale=2)).jobs
    assert [j.rt * 2 for j in plain] == [j.rt for j in longer]
    assert [j.wt * 2 for j in plain] == [j.wt for j in longer]
    wider = scale_jobs(plain, None, 4.0, machine_nodes=16)
    assert [j.js for j in wider] == [min(16, j.js * 4) for j in plain]
    assert all(w.jp == pytest.approx(j.jp * w.js / j.js) for j, w in zip(plain, wider))
    assert min(j.js for j in scale_jobs(plain, None, 0.1, machine_nodes=16)) == 1


# -- studies and the sweep command --------------------------------------------------


VERDICTS_ON_THE_TEST_TRACE = {
    "topper_fig11": ["PASS", "PASS", "PASS", "DIFFERS", "PASS", "DIFFERS"],
    "topper_fig15": ["DIFFERS"] * 6,
}


@pytest.mark.parametrize("name", ["topper_fig11", "topper_fig15"])
def test_a_topper_study_writes_its_table_figure_and_checks(trace, tmp_path, name):
    options = StudyOptions(trace=str(trace), months=[0, 1], system_mttf_hours=5)
    outcome = run_study(STUDIES[name], options, out=tmp_path, results=tmp_path / "runs",
                        workers=1, progress=False)
    design = STUDIES[name].design
    csv, png, checks_txt = outcome.files
    assert csv == tmp_path / f"{name}.csv" and csv.exists()
    assert png.stat().st_size > 10_000
    assert len(outcome.table) == len(design.variants) * 2
    reference = outcome.table[outcome.table["variant"] == design.reference]
    assert np.allclose(reference["system_efficiency_norm"], 1.0)
    # the verdicts on this seeded two-month trace, finding by finding
    assert [check.verdict for check in outcome.checks] == VERDICTS_ON_THE_TEST_TRACE[name]
    assert checks_txt.read_text().count("\n") == len(outcome.checks)
    # not the default runs: no comparison with the claims, no rows of the findings table
    assert not (tmp_path / f"{name}_findings.md").exists()
    assert outcome.unlike_claims is None
    if name == "topper_fig11":  # replicas are not useful work: efficiency falls
        efficiency = outcome.checks[0]
        assert efficiency.finding.startswith("checkpointing beats") and efficiency.passed
    else:  # DVFS variants are capped at 70 % of their uncapped twin's peak
        capped = outcome.table.dropna(subset=["cap_w"])
        assert len(capped) == len(outcome.table)


def test_cpn_sweep_runs_topper_grids(trace, tmp_path, capsys):
    spec = tmp_path / "grid.json"
    spec.write_text(json.dumps({
        "base": {"trace": str(trace), "month": 0, "system_mttf_hours": 5},
        "grid": {"resilience": ["checkpoint", "replication"], "gamma": [0.1, 0.5]}}))
    out = tmp_path / "runs"
    assert cpn(["sweep", "--grid", str(spec), "--out", str(out), "--workers", "1",
                "--no-progress"]) == 0
    # gamma acts only under replication: 1 checkpoint run + 2 replication runs
    assert len(list(out.glob("*.json"))) == 3
    table = (out / "results.csv").read_text()
    assert "system_efficiency" in table and "gamma" in table


def test_cpn_sweep_takes_topper_axes_as_options(trace, tmp_path):
    out = tmp_path / "runs"
    argv = ["sweep", "--trace", str(trace), "--month", "0", "--resilience",
            "checkpoint,replication", "--redundancy", "1.5,2", "--system-mttf-hours", "5",
            "--out", str(out), "--workers", "1", "--no-progress"]
    assert cpn(argv) == 0
    assert len(list(out.glob("*.json"))) == 3  # redundancy acts under replication only
    assert cpn(["sweep", "--trace", str(trace), "--gamma", "0.1", "--out", str(out)]) == 2


def test_a_study_bar_is_the_mean_over_seeds(trace, tmp_path):
    from studies.results import load_results
    options = StudyOptions(trace=str(trace), months=[0], system_mttf_hours=2, seeds=[0, 1])
    outcome = run_study(STUDIES["topper_fig12"], options, out=tmp_path,
                        results=tmp_path / "runs", workers=1, progress=False)
    results = load_results(tmp_path / "runs").set_index("key")
    for _, row in outcome.table.iterrows():
        keys = row["keys"].split(";")
        assert row["seeds"] == len(keys) == 2
        assert row["failures"] == pytest.approx(results.loc[keys, "failures"].mean())
        assert row["wait_mean_s"] == pytest.approx(results.loc[keys, "wait_mean_s"].mean())


def test_a_study_says_when_jobs_ran_partially_replicated(trace, tmp_path, capsys):
    """r = 3 on this 16-node machine leaves jobs of 6 to 8 nodes without
    three full replicas: cpn run and cpn sweep said so, cpn study did not."""
    assert cpn(["study", "topper_fig13", "--trace", str(trace), "--months", "0",
                "--system-mttf-hours", "5", "--out", str(tmp_path / "out"),
                "--results", str(tmp_path / "runs"), "--workers", "1", "--no-progress"]) == 0
    printed = " ".join(capsys.readouterr().out.split())
    assert ("runs ran jobs too large for r full replicas with partial replication, the "
            "replicas that fit") in printed
    checks = (tmp_path / "out" / "topper_fig13_checks.txt").read_text()
    assert "partially_replicated_jobs in the results" in checks


def test_cpn_study_takes_a_fixed_checkpoint_interval_into_its_runs_and_keys(trace, tmp_path,
                                                                          capsys):
    """``cpn study`` had no --checkpoint-interval (cpn run and cpn sweep had):
    a TOPPER study ran Daly's interval only."""
    from studies.results import load_results
    results = tmp_path / "runs"
    argv = ["study", "topper_fig11", "--trace", str(trace), "--months", "0",
            "--system-mttf-hours", "2", "--results", str(results), "--workers", "1",
            "--no-progress"]
    assert cpn([*argv, "--out", str(tmp_path / "daly")]) == 0
    assert "checkpoints every" not in capsys.readouterr().out
    assert cpn([*argv, "--out", str(tmp_path / "fixed"), "--checkpoint-interval", "30"]) == 0
    assert capsys.readouterr().out.splitlines()[1] == (
        "month 0 of tiny, wfp, checkpoint, checkpoints every 30 min, system MTTF 2 h")
    stored = load_results(results)
    assert len(stored) == 4  # each variant twice: the fixed runs have keys of their own
    fixed = stored[stored["checkpoint_interval_minutes"] == 30]
    assert sorted(fixed["resilience"]) == ["checkpoint", "replication"]
    daly_keys, fixed_keys = (set(pd.read_csv(tmp_path / out / "topper_fig11.csv")["keys"])
                             for out in ("daly", "fixed"))
    assert fixed_keys == set(fixed["key"]) and not daly_keys & fixed_keys
    daly = stored[stored["checkpoint_interval_minutes"].isna()].set_index("resilience")
    for _, run in fixed.iterrows():  # the interval reached the model: other checkpoints
        assert run["energy_j"] != pytest.approx(daly.loc[run["resilience"], "energy_j"])
