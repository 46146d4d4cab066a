"""A fixed checkpoint interval (an operator's policy) in place of Daly's:
by hand on one rack, from ``cpn run`` and ``cpn sweep``, and as a field of
an experiment whose Daly runs keep their keys."""

import json
import math
from pathlib import Path

import pandas as pd
import pytest

from cli.main import build_parser, main
from cli.sweep import experiments_from_args
from modules.job import Job
from modules.resilience import FaultTolerance, daly_interval
from nets.puppet import PuppetConfig
from nets.topper import TopperConfig, simulate
from studies.experiment import Experiment


def one_rack(runtime: float, failures: list[float], **settings):
    """One job on one 1,024-node rack that fails only at ``failures``."""
    job = Job(1, 0, runtime, 1024, runtime)
    config = TopperConfig(PuppetConfig(1024, node_watts=100, idle_fraction=0),
                          FaultTolerance(unit_mttf=1e6, **settings),
                          failure_trace={0: failures})
    return simulate([job], config)


def test_a_fixed_interval_costs_eq_3_with_it_and_a_failure_loses_what_follows_it():
    # 10,000 s of work, a checkpoint of 600 s every 2,000 s: eq. 3 adds
    # 10,000 / 2,000 * 600 = 3,000 s (Daly's ~34,242 s would add ~175 s).
    quiet = one_rack(10_000, [], checkpoint_interval=2_000)
    assert quiet.jobs["requested"][0] == 13_000 and quiet.jobs["end"][0] == 13_000
    daly = one_rack(10_000, [])
    assert daly.jobs["end"][0] == pytest.approx(10_000 + 10_000 / daly_interval(600, 1e-6)
                                                * 600)
    # A failure at 4,000 s: one checkpoint done (2,000 s of work saved at
    # 2,600 s), 1,400 s lost; 780 s recovery, then 8,000 s of work and its
    # four checkpoints (2,400 s).
    failed = one_rack(10_000, [4_000], checkpoint_interval=2_000)
    assert failed.jobs["end"][0] == pytest.approx(4_000 + 780 + 8_000 + 2_400)
    assert failed.metrics["lost_node_hours"] == pytest.approx(1_400 * 1024 / 3600)
    assert failed.metrics["config"]["resilience"]["checkpoint_interval"] == 2_000


@pytest.mark.parametrize("settings, message", [
    ({"checkpoint_interval": 0}, "checkpoint_interval must be positive and finite"),
    ({"checkpoint_interval": -60}, "checkpoint_interval must be positive and finite"),
    ({"checkpoint_interval": math.inf}, "checkpoint_interval must be positive and finite"),
    ({"checkpoint_interval": math.nan}, "checkpoint_interval must be positive and finite"),
    ({"checkpoint_interval": 60, "method": "none"}, 'means nothing with method="none"'),
])
def test_a_bad_or_meaningless_interval_is_refused(settings, message):
    with pytest.raises(ValueError, match=message):
        FaultTolerance(**settings)


ONE_JOB = "; MaxNodes: 1\n1 0 -1 3600 1 -1 -1 1 3600 -1 1 1 1 1 1 -1 -1 -1\n"


def run_one_job(tmp_path: Path, name: str, *options) -> pd.Series:
    """The one job of an hour on a node that (almost) never fails."""
    trace = tmp_path / "one.swf"
    trace.write_text(ONE_JOB)
    out = tmp_path / name
    assert main(["run", "--trace", str(trace), "--power", "constant", "--resilience",
                 "checkpoint", "--unit-nodes", "1", "--mttf-days", "1e9", *options,
                 "--out", str(out), "--no-plots"]) == 0
    assert json.loads((out / "metrics.json").read_text())["failures"] == 0
    return pd.read_csv(out / "jobs.csv").iloc[0]


def test_cpn_run_checkpoints_every_so_many_minutes(tmp_path, capsys):
    daly = run_one_job(tmp_path, "daly")
    said = capsys.readouterr().out
    fixed = run_one_job(tmp_path, "fixed", "--checkpoint-interval", "30")
    # two checkpoints of 600 s in the hour; Daly's (~1e7 s) add 0.2 s
    assert fixed["end"] - fixed["start"] == pytest.approx(3600 + 2 * 600)
    assert daly["end"] - daly["start"] == pytest.approx(
        3600 + 3600 / daly_interval(600, 1 / 86400e9) * 600)
    assert "checkpoints every" not in said
    assert "; checkpoints every 30 min" in " ".join(capsys.readouterr().out.split())


@pytest.fixture
def trace(tmp_path) -> Path:
    path = tmp_path / "three.swf"
    path.write_text("; MaxNodes: 4\n" + "".join(
        f"{i} {10 * i} -1 3600 1 -1 -1 1 3600 -1 1 1 1 1 1 -1 -1 -1\n" for i in (1, 2, 3)))
    return path


@pytest.mark.parametrize("command, options, message", [
    ("run", ["--checkpoint-interval", "30"],
     "--checkpoint-interval needs --resilience (checkpoint, replication, restart): "
     "without it nothing fails"),
    ("run", ["--resilience", "restart", "--checkpoint-interval", "30"],
     "--checkpoint-interval applies to --resilience checkpoint or replication only, "
     "not to restart"),
    ("sweep", ["--resilience", "restart", "--checkpoint-interval", "30,60"],
     "--checkpoint-interval applies to --resilience checkpoint or replication only, "
     "not to restart"),
])
def test_the_command_line_refuses_an_interval_without_checkpoints(trace, capsys, command,
                                                                   options, message):
    assert main([command, "--trace", str(trace), "--out", str(trace.parent / "out"),
                 *options]) == 2
    assert capsys.readouterr().err.strip().splitlines() == [f"cpn {command}: error: {message}"]


@pytest.mark.parametrize("command, value", [("run", "0"), ("run", "-5"), ("sweep", "30,0")])
def test_the_command_line_refuses_an_interval_that_is_not_positive(trace, capsys, command,
                                                                  value):
    with pytest.raises(SystemExit) as exit_:
        main([command, "--trace", str(trace), "--resilience", "checkpoint",
              f"--checkpoint-interval={value}"])
    assert exit_.value.code == 2
    assert "argument --checkpoint-interval: must be positive" in capsys.readouterr().err


def test_an_experiment_run_at_dalys_interval_keeps_its_key():
    # the keys these runs had before the field existed
    assert Experiment(resilience="checkpoint").key() == "3c0fdc960b22a2e3"
    assert Experiment(resilience="replication", month=0).key() == "3535d7d51c56e99e"
    assert "checkpoint_interval_minutes" not in Experiment(resilience="checkpoint").to_dict()
    # cleared where no checkpoints are taken
    assert Experiment(checkpoint_interval_minutes=30).key() == Experiment().key()
    assert (Experiment(resilience="none", checkpoint_interval_minutes=30).key()
            == Experiment(resilience="none").key())


def test_an_experiment_with_an_interval_round_trips_and_configures_its_run():
    from studies.configs import topper_config

    exp = Experiment(resilience="replication", checkpoint_interval_minutes=30)
    assert exp.key() != Experiment(resilience="replication").key()
    assert Experiment.from_dict(exp.to_dict()) == exp
    assert Experiment.from_dict(json.loads(exp.canonical_json())).key() == exp.key()
    assert "checkpoints every 30 min" in exp.label()
    settings = topper_config(exp, PuppetConfig(49_152)).resilience
    assert settings.checkpoint_interval == 1800 and settings.method == "replication"
    for bad in (0, -1, math.inf):
        with pytest.raises(ValueError, match="checkpoint_interval_minutes must be positive"):
            Experiment(resilience="checkpoint", checkpoint_interval_minutes=bad)


def test_a_sweep_of_two_intervals_runs_both(trace, tmp_path, capsys):
    runs = experiments_from_args(build_parser().parse_args(
        ["sweep", "--trace", str(trace), "--resilience", "checkpoint", "--unit-nodes", "1",
         "--checkpoint-interval", "30,120"]))
    assert [run.checkpoint_interval_minutes for run in runs] == [30.0, 120.0]
    out = tmp_path / "out"
    assert main(["sweep", "--trace", str(trace), "--resilience", "checkpoint", "--unit-nodes",
                 "1", "--mttf-days", "1e9", "--power", "constant", "--checkpoint-interval",
                 "30,120", "--out", str(out), "--workers", "1", "--no-progress"]) == 0
    results = pd.read_csv(out / "results.csv").set_index("checkpoint_interval_minutes")
    assert sorted(results.index) == [30.0, 120.0]
    # three one-hour jobs side by side: two checkpoints of 600 s, or half of one
    assert results.loc[30.0, "makespan_s"] == pytest.approx(20 + 3600 + 1200)
    assert results.loc[120.0, "makespan_s"] == pytest.approx(20 + 3600 + 300)
