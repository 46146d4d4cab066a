"""Nodes counted by state (``NodeCounts``) give the totals of the ledger
that names them (``NodeLedger``), change for change, and a run that counts
its nodes reports what a run that names them does."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from modules.energy_saving.policy import EnergySavingPolicy
from modules.node_counts import NodeCounts
from modules.node_ledger import PER_NODE_COLUMNS, NodeLedger
from modules.node_power import NodePower
from nets.energy_saving import COMPARED, EnergySavingConfig, SleepingNodes, simulate
from test_energy_saving import random_jobs

NODES = 12
KINDS = ("start", "end", "power_off", "halted", "power_on", "booted", "close")


@st.composite
def changes(draw):
    """How many nodes start on, and a stream of changes a run could make,
    ``(kind, arguments, time)``, each possible when it comes: a job's start
    takes idle nodes, a shutdown idle ones, a boot standby ones; a batch
    that halts or boots is named by the time it began."""
    on = draw(st.integers(0, NODES))
    idle, standby, running, booting, halting = on, NODES - on, {}, [], []
    stream, now = [], 0.0
    for _ in range(draw(st.integers(0, 60))):
        now += draw(st.sampled_from([0.0, 0.5, 7.0, 100.0, 1234.5]))
        kind = draw(st.sampled_from(KINDS))
        if kind == "start":
            count = draw(st.integers(0, idle))
            job_id = len(stream)
            idle, running[job_id] = idle - count, count
            arguments = (job_id, count)
        elif kind == "end" and running:
            job_id = draw(st.sampled_from(sorted(running)))
            idle += running.pop(job_id)
            arguments = (job_id,)
        elif kind == "power_off" and idle and now not in halting:  # one batch an instant
            count = draw(st.integers(1, idle))
            idle -= count
            halting.append(now)
            arguments = (count,)
        elif kind == "power_on" and standby and now not in booting:
            count = draw(st.integers(1, standby))
            standby -= count
            booting.append(now)
            arguments = (count,)
        elif kind == "halted" and halting:
            arguments = (halting.pop(0),)
            standby += _halted_count(stream, arguments[0])
        elif kind == "booted" and booting:
            arguments = (booting.pop(0),)
            idle += _booted_count(stream, arguments[0])
        elif kind == "close":
            arguments = ()
        else:
            continue
        stream.append((kind, arguments, now))
    return on, stream


def _halted_count(stream, began):
    return next(arguments[0] for kind, arguments, now in stream
                if kind == "power_off" and now == began)


def _booted_count(stream, began):
    return next(arguments[0] for kind, arguments, now in stream
                if kind == "power_on" and now == began)


def apply(ledger, change) -> None:
    kind, arguments, now = change
    if kind == "start":
        ledger.job_started(*arguments, now)
    elif kind == "end":
        ledger.job_ended(*arguments, now)
    elif kind in ("power_off", "power_on"):
        getattr(ledger, kind)(*arguments, now, now)  # ready: named by when it began
    elif kind in ("halted", "booted"):
        getattr(ledger, kind)(*arguments, now)
    else:
        ledger.close(now)


@given(changes())
def test_counts_give_the_ledgers_totals_change_for_change(case):
    on, stream = case
    named, counted = NodeLedger(NODES, initially_on=on), NodeCounts(NODES, initially_on=on)
    for change in stream:
        apply(named, change)
        apply(counted, change)
        assert counted.counts() == named.counts()
        assert counted.running.keys() == named.running.keys()
    end = stream[-1][2] + 10 if stream else 10.0
    named.close(end)
    counted.close(end)
    assert counted.closed_at == named.closed_at
    assert counted.max_active == named.max_active
    assert counted.job_node_s == named.job_node_s  # the same product, to the bit
    for state, node_s in named.residency_totals().items():
        assert counted.residency_totals()[state] == pytest.approx(node_s, rel=1e-12, abs=1e-9)
    totals, expected = counted.machine_totals(), named.machine_totals()
    assert (totals["shutdowns"], totals["power_ons"]) == (expected["shutdowns"],
                                                          expected["power_ons"])
    for name in ("active_node_s", "inactive_node_s"):
        assert totals[name] == pytest.approx(expected[name], rel=1e-12, abs=1e-9)
    assert totals["active_node_s"] + totals["inactive_node_s"] == pytest.approx(
        NODES * named.closed_at, rel=1e-12)
    for loaded_wh in (None, 123.0):
        assert counted.energy_wh(NodePower(), loaded_wh) == pytest.approx(
            named.energy_wh(NodePower(), loaded_wh), rel=1e-12, abs=1e-9)


def test_counts_refuse_what_the_ledger_refuses():
    counted, named = NodeCounts(4, initially_on=2), NodeLedger(4, initially_on=2)
    for ledger in (counted, named):
        with pytest.raises(ValueError, match="job 7 needs 3 nodes, only 2 idle"):
            ledger.job_started(7, 3, 0.0)
        with pytest.raises(ValueError, match="cannot switch off 3 nodes, only 2 idle"):
            ledger.power_off(3, 0.0, 480.0)
        with pytest.raises(ValueError, match="cannot power on 3 nodes, only 2 in standby"):
            ledger.power_on(3, 0.0, 555.0)
    with pytest.raises(ValueError, match="initially_on"):
        NodeCounts(4, initially_on=5)


@pytest.mark.parametrize("seed", [1, 2])
def test_a_run_that_counts_its_nodes_reports_what_one_that_names_them_does(seed):
    jobs = random_jobs(seed)
    policy = EnergySavingPolicy(idle_threshold_s=600)
    named = simulate(jobs, EnergySavingConfig(16, policy=policy))
    counted = simulate(jobs, EnergySavingConfig(16, policy=policy, timeline=False,
                                                per_node=False))
    assert named.metrics["shutdowns"] > 0 and named.metrics["power_ons"] > 0
    for metric in COMPARED:
        expected = named.metrics[metric]
        if isinstance(expected, float):
            assert counted.metrics[metric] == pytest.approx(expected, rel=1e-12)
        else:
            assert counted.metrics[metric] == expected
    assert counted.metrics["power_ons"] == named.metrics["power_ons"]
    assert list(counted.nodes.columns) == list(PER_NODE_COLUMNS) == list(named.nodes.columns)
    assert counted.nodes.empty and counted.timeline.empty and len(named.nodes) == 16


def test_a_timeline_needs_named_nodes():
    with pytest.raises(ValueError, match="timeline needs the nodes named"):
        SleepingNodes(per_node=False)
    with pytest.raises(ValueError, match="timeline needs the nodes named"):
        EnergySavingConfig(16, per_node=False).sleeping
