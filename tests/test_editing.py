"""Editing nets: each operation, its checks, undo of invalid edits, copies,
simulators built before an edit, cpn.diff, and the PuPPET edits of
examples/editing_puppet.py with the schedules they must give."""

import dataclasses
import sys
from functools import partial
from pathlib import Path

import pytest

import cpn
from cpn import ColourError, Net, NetError, Simulator
from modules.allocation import power_allocation
from modules.easy import easy_pass_on_nodes
from modules.power_capping import PowerCap
from nets.puppet import PuppetConfig, build_net, simulate

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "examples"))
import editing_puppet  # noqa: E402


def loop() -> Net:
    net = Net("loop", env={"LIMIT": 3})
    net.place("P", int, initial=[0])
    net.place("Done", int)
    net.transition("Tick", guard="x < LIMIT")
    net.arc("P", "Tick", "x")
    net.arc("Tick", "P", "x + 1")
    net.transition("Stop", guard="x >= LIMIT")
    net.arc("P", "Stop", "x")
    net.arc("Stop", "Done", "x")
    return net


def counter() -> Net:
    """A module: takes a token from port In, counts it in Count, puts it on Out."""
    module = Net("Counter")
    module.place("In", int, port="in")
    module.place("Out", int, port="out")
    module.place("Count", int, initial=[0])
    module.transition("Pass", inputs={"In": "x", "Count": "n"},
                      outputs={"Out": "x", "Count": "n + 1"})
    return module


def pipeline(module: Net | None = None) -> Net:
    net = Net("pipeline")
    net.place("Source", int, initial=[1, 2, 3])
    net.place("Sink", int)
    net.substitution("Stage", module or counter(), {"In": "Source", "Out": "Sink"})
    return net


def final(net: Net) -> dict:
    sim = Simulator(net, order="declared")
    sim.run()
    return {path: sorted(tokens) for path, tokens in sim.marking.items()}


# -- removing ------------------------------------------------------------------
def test_removing_a_place_removes_its_arcs_and_returns_them():
    net = loop()
    removed = net.remove_place("Done")
    assert [(a.source, a.target, a.inscription) for a in removed] == [("Stop", "Done", "x")]
    assert "Done" not in net.places
    assert [(a.source, a.target) for a in net.arcs] == [("P", "Tick"), ("Tick", "P"),
                                                          ("P", "Stop")]
    assert final(net)["P"] == []  # Stop now consumes the token and puts none back


def test_removing_a_transition_removes_its_arcs():
    net = loop()
    removed = net.remove_transition("Stop")
    assert [(a.source, a.target) for a in removed] == [("P", "Stop"), ("Stop", "Done")]
    assert final(net) == {"P": [3], "Done": []}


def test_removing_a_substitution_transition_removes_its_module():
    net = pipeline()
    assert net.remove_transition("Stage") == []
    assert final(net) == {"Source": [1, 2, 3], "Sink": []}


def test_a_socket_or_a_port_cannot_be_removed():
    net = pipeline()
    with pytest.raises(NetError, match=r"^net 'pipeline': place 'Source' is the socket of "
                                       r"port 'In' of substitution 'Stage': remove or replace"):
        net.remove_place("Source")
    with pytest.raises(NetError, match=r"place 'Stage/In' is a port of module 'Counter': "
                                       r"replace the module instead"):
        net.remove_place("Stage/In")
    assert set(net.places) == {"Source", "Sink"}


def test_remove_arc_needs_the_inscription_when_several_join_the_same_nodes():
    net = loop()
    net.arc("P", "Tick", "y")
    with pytest.raises(NetError, match=r"^net 'loop': 2 arcs P -> Tick \('x', 'y'\): say "
                                       r"which by its inscription$"):
        net.remove_arc("P", "Tick")
    with pytest.raises(NetError, match=r"no arc P -> Tick 'z' \(its arcs there: 'x', 'y'\)"):
        net.remove_arc("P", "Tick", "z")
    net.remove_arc("P", "Tick", "y")
    assert final(net) == {"P": [], "Done": [3]}


def test_removing_an_arc_that_leaves_the_net_invalid_is_undone():
    net = loop()
    with pytest.raises(NetError, match=r"^removing arc P -> Tick would leave net 'loop' "
                                       r"invalid, so the net is unchanged: transition 'Tick'"
                                       r".*unknown variable 'x'"):
        net.remove_arc("P", "Tick")
    assert len(net.arcs) == 4


# -- changing ------------------------------------------------------------------
def test_changing_guard_inscription_priority_and_initial_marking():
    net = loop()
    net.set_guard("Tick", "x < 5")
    net.set_guard("Stop", "x >= 5")
    assert final(net) == {"P": [], "Done": [5]}
    net.set_inscription("Tick", "P", "x + 2")
    net.set_initial("P", [1])
    assert final(net) == {"P": [], "Done": [5]}
    net.set_priority("Stop", 10)  # Stop first, whatever the guards allow
    net.set_guard("Stop", None)
    assert final(net) == {"P": [], "Done": [1]}


def test_a_guard_that_does_not_parse_or_names_an_unknown_variable_is_refused():
    net = loop()
    with pytest.raises(NetError, match=r"^net 'loop', transition 'Tick', guard: cannot parse "
                                       r"'x <': invalid syntax"):
        net.set_guard("Tick", "x <")
    with pytest.raises(NetError, match=r"changing the guard of 'Tick' would leave net 'loop' "
                                       r"invalid.*unknown variable 'y'"):
        net.set_guard("Tick", "y < 3")
    assert net.transitions["Tick"].guard == "x < LIMIT"
    with pytest.raises(NetError, match=r"a priority is an integer, not 'high'"):
        net.set_priority("Tick", "high")
    with pytest.raises(NetError, match=r"^net 'loop': no transition 'Tock' \(there: Tick, Stop\)"):
        net.set_guard("Tock", "True")


def test_changing_a_colour_keeps_the_initial_tokens_in_it():
    net = loop()
    with pytest.raises(ColourError, match=r"changing the colour of 'P' would leave net 'loop' "
                                          r"invalid.*initial token 0 is not of colour str"):
        net.set_colour("P", str)
    assert net.places["P"].colour is int
    with net.edit():
        net.set_colour("P", str)
        net.set_initial("P", ["a"])
        net.set_env("LIMIT", "abb")
        net.set_inscription("Tick", "P", "x + 'b'")
        net.set_colour("Done", str)
    assert final(net) == {"P": [], "Done": ["abb"]}


def test_set_env_rebinds_a_name_of_a_module_environment():
    net = pipeline()
    net.set_env("Stage/step", 5)
    net.set_inscription("Stage/Pass", "Stage/Count", "n + step")
    assert final(net)["Stage/Count"] == [15]
    with pytest.raises(NetError, match=r"no substitution transition 'Nowhere' in net "
                                       r"'pipeline' \(on the path 'Nowhere/step'\)"):
        net.set_env("Nowhere/step", 1)


# -- renaming ------------------------------------------------------------------
def test_renaming_a_place_moves_its_arcs_and_its_socket_and_keeps_its_position():
    net = pipeline()
    net.rename("Source", "Jobs")
    assert list(net.places) == ["Jobs", "Sink"]
    assert net.substitutions["Stage"].sockets == [("In", "Jobs"), ("Out", "Sink")]
    assert final(net) == {"Jobs": [], "Sink": [1, 2, 3], "Stage/Count": [3]}
    with pytest.raises(NetError, match=r"a node named 'Sink' already exists"):
        net.rename("Jobs", "Sink")


def test_renaming_a_port_follows_in_every_substitution_of_its_module():
    module = counter()
    net = Net("twice")
    net.place("A", int, initial=[1])
    net.place("B", int)
    net.place("C", int)
    net.substitution("First", module, {"In": "A", "Out": "B"})
    net.substitution("Second", module, {"In": "B", "Out": "C"})
    net.rename("First/In", "Input")
    assert list(module.places) == ["Input", "Out", "Count"]
    assert net.substitutions["First"].sockets == [("Input", "A"), ("Out", "B")]
    assert net.substitutions["Second"].sockets == [("Input", "B"), ("Out", "C")]
    assert final(net)["C"] == [1]


def test_a_renamed_place_keeps_its_fusion_set():
    config, jobs = editing_puppet.FINISH_CONFIG, editing_puppet.FINISH_JOBS
    net = build_net(config)
    net.rename("Scheduler/Trigger", "Signal")
    net.rename("Trigger", "Go")
    assert [p.place.fusion for p in net.flatten().places].count("trigger") == 1
    assert [a.source for a in net.substitutions["Scheduler"].module.arcs
            if a.target == "Submit"] == ["User", "Queuing", "Signal"]
    assert starts(net, jobs, config) == starts(build_net(config), jobs, config)


def test_renaming_a_transition_and_a_substitution():
    net = pipeline()
    with pytest.raises(NetError, match=r"^net 'Counter': a node named 'Count' already exists"):
        net.rename("Stage/Pass", "Count")  # a place of the module
    assert "Pass" in net.substitutions["Stage"].module.transitions
    net.rename("Stage/Pass", "Move")
    net.rename("Stage", "Counting")
    assert final(net)["Counting/Count"] == [3]
    assert [t.path for t in net.flatten().transitions] == ["Counting/Move"]


# -- replacing a module ----------------------------------------------------------
def doubler() -> Net:
    module = Net("Doubler")
    module.place("In", int, port="in")
    module.place("Out", int, port="out")
    module.transition("Double", inputs={"In": "x"}, outputs={"Out": "2 * x"})
    return module


def test_replacing_a_module_keeps_the_sockets():
    net = pipeline()
    net.replace_module("Stage", doubler())
    assert final(net) == {"Source": [], "Sink": [2, 4, 6]}


def test_a_module_whose_ports_do_not_fit_the_sockets_is_refused():
    net = pipeline()
    other = doubler()
    other.rename("In", "Input")
    with pytest.raises(NetError, match=r"^net 'pipeline', substitution 'Stage': module "
                                       r"'Doubler' does not fit the sockets: it has no port "
                                       r"'In'; port 'Input' would have no socket \(its ports: "
                                       r"Input, Out\)$"):
        net.replace_module("Stage", other)
    net.replace_module("Stage", other, {"Input": "Source", "Out": "Sink"})
    assert final(net)["Sink"] == [2, 4, 6]
    floats = doubler()
    floats.set_colour("In", float)
    with pytest.raises(NetError, match=r"socket 'Source' \(colour int, untimed\) does not "
                                       r"match port 'In' \(colour float, untimed\)"):
        net.replace_module("Stage", floats, {"In": "Source", "Out": "Sink"})
    assert net.substitutions["Stage"].module is other


# -- groups, copies, simulators ------------------------------------------------------
def test_an_edit_block_is_validated_once_and_undone_whole():
    net = loop()
    with net.edit():
        net.remove_place("Done")  # Stop has an arc to nowhere now: invalid alone
        net.remove_transition("Stop")
    assert set(net.transitions) == {"Tick"}
    before = (dict(net.places), dict(net.transitions), list(net.arcs))
    with pytest.raises(NetError, match=r"^the edits would leave net 'loop' invalid"):
        with net.edit():
            net.rename("P", "Q")
            net.set_guard("Tick", "nothing")
    assert (net.places, net.transitions, net.arcs) == (before[0], before[1], before[2])
    with pytest.raises(KeyError):
        with net.edit():
            net.rename("P", "Q")
            raise KeyError("the block failed")
    assert list(net.places) == ["P"]


def test_a_copy_is_edited_on_its_own_and_keeps_modules_shared_within_it():
    module = counter()
    net = Net("twice")
    net.place("A", int, initial=[1])
    net.place("B", int)
    net.substitution("First", module, {"In": "A", "Out": "B"})
    net.substitution("Second", module, {"In": "B", "Out": "A"})
    twin = net.copy()
    assert twin.substitutions["First"].module is twin.substitutions["Second"].module
    assert twin.substitutions["First"].module is not module
    twin.set_initial("A", [7])
    twin.set_guard("First/Pass", "n < 1")
    assert net.places["A"].initial == [1] and module.transitions["Pass"].guard is None
    assert cpn.diff(net, twin).differences[0].what == "place A"


def test_a_simulator_built_before_an_edit_runs_the_net_it_compiled():
    net = loop()
    sim = Simulator(net, order="declared")
    net.set_guard("Tick", "x < 10")
    net.set_initial("P", [5])
    net.set_env("LIMIT", 1)
    net.set_colour("Done", (int, str))
    net.rename("Stop", "Halt")
    net.remove_arc("Tick", "P")
    sim.run()
    assert sim.tokens("Done") == [3] and sim.steps == 4
    assert final(net) == {"P": [], "Done": []}  # the edited net: Tick eats the token


# -- diff ------------------------------------------------------------------------
def test_diff_of_a_net_and_its_copy_is_empty():
    net = build_net(PuppetConfig(4, cap=PowerCap.wait(500.0)))
    result = cpn.diff(net, net.copy())
    assert not result and str(result) == "net 'PuPPET' -> net 'PuPPET': no differences"


def test_diff_names_every_kind_of_difference():
    a = pipeline()
    a.place("Log", int)
    b = a.copy()
    with b.edit():
        b.set_initial("Source", [1])
        b.set_colour("Log", (str, int))
        b.rename("Sink", "Out")
        b.set_env("Stage/step", 2)
        b.set_inscription("Stage/Pass", "Stage/Count", "n + step")
        b.set_priority("Stage/Pass", 5)
        b.place("Errors", str, timed=True)
    assert str(cpn.diff(a, b)).splitlines() == [
        "net 'pipeline' -> net 'pipeline': 9 differences",
        "  ~ place Source: initial [1, 2, 3] -> [1]",
        "  - place Sink: colour int",
        "  ~ place Log: colour int -> str | int",
        "  + place Out: colour int",
        "  + place Errors: colour str, timed True",
        "  ~ substitution Stage: sockets {In: Source, Out: Sink} -> {In: Source, Out: Out}",
        "  + env Stage/step: 2",
        "  ~ transition Stage/Pass: priority 1000 -> 5",
        "  ~ arc Stage/Pass -> Stage/Count: 'n + 1' -> 'n + step'",
    ]


# -- the PuPPET edits of examples/editing_puppet.py ------------------------------------
def starts(net, jobs, config):
    return editing_puppet.starts(net, jobs, config)


def test_wfp_exponent_one_puts_the_big_young_job_before_the_small_old_one():
    config, jobs = editing_puppet.WFP_CONFIG, editing_puppet.WFP_JOBS
    paper = build_net(config)
    # at 100, job 2 (1 node) has waited twice its walltime, job 3 (4 nodes)
    # 0.6 of it: 1 x 2^3 = 8 > 4 x 0.6^3 = 0.86, but 1 x 2 = 2 < 4 x 0.6 = 2.4
    assert starts(paper, jobs, config) == {1: 0.0, 2: 100.0, 3: 150.0}
    edited = editing_puppet.with_wfp_exponent(paper, 1)
    assert starts(edited, jobs, config) == {1: 0.0, 2: 200.0, 3: 100.0}
    assert [str(d) for d in cpn.diff(paper, edited)] == [
        "~ env Scheduler/schedule: …backfill=True… -> …backfill=True, wfp_exponent=1…"]
    assert edited.substitutions["Scheduler"].module.env["schedule"].keywords == {
        "policy": "wfp", "estimate": "requested", "backfill": True, "wfp_exponent": 1}


def test_finish_before_schedule_ends_every_job_of_an_instant_first():
    config, jobs = editing_puppet.FINISH_CONFIG, editing_puppet.FINISH_JOBS
    paper = build_net(config)
    # jobs 1 and 2 end at 100: between the two ends, the scheduler backfills
    # job 4 on the two free nodes, so job 3 (4 nodes) starts when it ends
    assert starts(paper, jobs, config) == {1: 0.0, 2: 0.0, 3: 150.0, 4: 100.0}
    edited = editing_puppet.with_finish_priority(paper, 200)
    assert starts(edited, jobs, config) == {1: 0.0, 2: 0.0, 3: 100.0, 4: 200.0}
    assert paper.transitions["Finish"].priority == 500


def test_replacing_block_by_wait_gives_the_wait_schedule():
    config, jobs = editing_puppet.CAP_CONFIG, editing_puppet.CAP_JOBS
    paper = build_net(config)
    assert starts(paper, jobs, config) == {1: 0.0, 2: 100.0, 3: 200.0}
    edited = editing_puppet.with_wait_instead_of_block(paper, config)
    assert starts(edited, jobs, config) == {1: 0.0, 2: 100.0, 3: 2.0}
    wait = simulate(list(jobs), dataclasses.replace(config, cap=PowerCap.wait(300.0)))
    assert starts(edited, jobs, config) == dict(zip(wait.jobs["job_id"], wait.jobs["start"]))
    assert not cpn.diff(edited, build_net(dataclasses.replace(config,
                                                              cap=PowerCap.wait(300.0))))


def test_a_replaced_allocation_module_must_fit_puppets_sockets():
    config = editing_puppet.CAP_CONFIG
    net = build_net(config)
    wrong = power_allocation(config.power, PowerCap.wait(300.0), "requested")
    wrong.rename("Running", "Started")
    with pytest.raises(NetError, match=r"module 'PowerAllocation' does not fit the sockets: "
                                       r"it has no port 'Running'; port 'Started' would have "
                                       r"no socket"):
        net.replace_module("Allocation", wrong)


def test_the_wfp_exponent_is_the_papers_three_by_default():
    from modules.job import Job
    queue = (Job(1, 0, 50, 1, 50), Job(2, 40, 100, 4, 100))
    assert easy_pass_on_nodes(queue, {}, 4, 100.0, policy="wfp")[0] == [queue[0]]
    assert easy_pass_on_nodes(queue, {}, 4, 100.0, policy="wfp", wfp_exponent=1)[0] == [queue[1]]
    assert partial(easy_pass_on_nodes, wfp_exponent=1).keywords == {"wfp_exponent": 1}
