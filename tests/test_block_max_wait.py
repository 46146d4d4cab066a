"""Under BLOCK (a wait queue of length l = 0) no job waits, so the maximum
wait w is never read.  A cap of l = 0 with a w is taken, as a grid that
crosses l and w makes one, but nothing says that w acted: the run's record
gives it as None, an experiment of l = 0 has no w (one run, whatever the w
asked), and the command line refuses --max-wait where every wait queue is 0,
as it refuses it with --capping block."""

from __future__ import annotations

from pathlib import Path

import pytest

from cli.main import build_parser, main
from cli.sweep import experiments_from_args
from modules.job import Job
from modules.power_capping import PowerCap
from nets.puppet import PuppetConfig, simulate
from studies.configs import power_config
from studies.experiment import Experiment
from studies.grids import grid

# Job 1 draws 250 W until 100; job 2 (100 W) would break the 300 W cap.
CAPPED = [Job(1, 0, 100, 1, 100, jp=250.0), Job(2, 1, 50, 1, 50, jp=100.0),
          Job(3, 2, 10, 1, 10, jp=40.0)]
SWF = "; MaxNodes: 4\n; MaxProcs: 4\n1 1000 -1 100 1 -1 -1 1 200 -1 1 1 1 1 1 -1 -1 -1\n"


def run(cap: PowerCap):
    return simulate(CAPPED, PuppetConfig(4, node_watts=100.0, idle_fraction=0.0, cap=cap))


def test_a_block_run_records_no_maximum_wait_whatever_it_was_given():
    # It recorded "max_wait": 60 (or the default 30000.0) for a w that never acted.
    quick, slow = (run(PowerCap(300.0, wait_queue_length=0, max_wait=w)) for w in (60, 1e6))
    assert list(quick.jobs["start"]) == list(slow.jobs["start"]) == [0, 100, 100]
    for result in (quick, slow, run(PowerCap.block(300.0))):
        assert result.metrics["config"]["cap"] == {
            "cap_watts": 300.0, "wait_queue_length": 0, "max_wait": None}
    waited = run(PowerCap(300.0, wait_queue_length=1, max_wait=60))
    assert waited.metrics["config"]["cap"]["max_wait"] == 60


def test_an_experiment_with_no_room_to_wait_has_no_maximum_wait():
    # Experiment(capping="wait", l=0, w_minutes=60) and (..., w_minutes=500)
    # were two keys, so two runs, of one BLOCK run.
    blocked = Experiment(capping="wait", l=0, w_minutes=60)
    assert blocked.w_minutes is None and blocked.to_dict()["w_minutes"] is None
    assert blocked == Experiment(capping="wait", l=0, w_minutes=500) == Experiment(
        capping="wait", l=0)
    assert power_config(blocked, 16, 1000.0).cap == PowerCap.block(1000.0)
    runs = grid(Experiment(capping="wait"), l=[0, 5], w_minutes=[60, 500])
    assert [(run.l, run.w_minutes) for run in runs] == [(0, None), (5, 60.0), (5, 500.0)]


@pytest.fixture
def trace(tmp_path) -> Path:
    path = tmp_path / "t.swf"
    path.write_text(SWF)
    return path


@pytest.mark.parametrize("command, lengths", [("run", "0"), ("sweep", "0")])
def test_max_wait_where_every_wait_queue_is_zero_is_refused(trace, tmp_path, capsys,
                                                             command, lengths):
    # cpn run --capping wait --wait-queue 0 --max-wait 60 ran BLOCK, dropping the 60.
    assert main([command, "--trace", str(trace), "--capping", "wait", "--wait-queue", lengths,
                 "--max-wait", "60", "--out", str(tmp_path / "out")]) == 2
    assert capsys.readouterr().err.strip() == (
        f"cpn {command}: error: --max-wait applies to --capping wait with --wait-queue 1 or "
        "more only: with --wait-queue 0 no job waits (BLOCK), so the maximum wait is never "
        "read")
    assert not (tmp_path / "out").exists()


def test_a_sweep_crossing_wait_queues_and_maximum_waits_runs_block_once(trace):
    args = build_parser().parse_args(["sweep", "--trace", str(trace), "--capping", "wait",
                                      "--wait-queue", "0,5", "--max-wait", "60,500"])
    assert [(run.l, run.w_minutes) for run in experiments_from_args(args)] == [
        (0, None), (5, 60.0), (5, 500.0)]


def test_a_topper_run_keeps_the_record_puppets_run_made():
    # TOPPER wrote asdict(config.puppet) over run_model's record: a BLOCK run said
    # "max_wait": 30000.0 again, and whatever the net hosted went unsaid.
    from modules.resilience import FaultTolerance
    from nets import topper

    puppet = PuppetConfig(4, node_watts=100.0, idle_fraction=0.0, cap=PowerCap.block(300.0))
    config = topper.TopperConfig(puppet, FaultTolerance(unit_nodes=1, unit_mttf=1e12))
    record = topper.simulate(CAPPED, config).metrics["config"]
    assert record["cap"] == {"cap_watts": 300.0, "wait_queue_length": 0, "max_wait": None}
    assert record["scheduling"] == run(PowerCap.block(300.0)).metrics["config"]["scheduling"]
    assert record["resilience"]["unit_nodes"] == 1
