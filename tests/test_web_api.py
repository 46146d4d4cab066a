"""The browser front end's server without a browser: the session's
commands, the JSON API (Starlette's test client), and ``cpn step --web``."""

from __future__ import annotations

import json
import re
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from cli.net_loading import load_net, load_net_and_breakpoints
from cli.step import main_step
from cpn import Simulator
from cpn.stepper import Stepper, replay
from cpn.trace import save_trace
from cpn.web import SessionError, WebSession
from tests.web_nets import build_net

starlette = pytest.importorskip("starlette", reason="the [web] extra is not installed")
pytest.importorskip("httpx2", reason="Starlette's test client needs httpx2")

from starlette.testclient import TestClient  # noqa: E402

from cpn.web.api import answer  # noqa: E402
from cpn.web.app import create_app  # noqa: E402

needs_dot = pytest.mark.skipif(shutil.which("dot") is None,
                               reason="Graphviz's dot program is not installed")
NET_FILE = Path(__file__).with_name("web_nets.py")


@pytest.fixture
def session():
    return WebSession(build_net())


@pytest.fixture
def client(session):
    with TestClient(create_app(session), base_url="http://127.0.0.1") as client:
        yield client


def counts(state) -> dict[str, int]:
    return {place["path"]: place["count"] for place in state["places"]}


def test_state_lists_places_bindings_and_modules(client):
    state = client.get("/api/state").json()
    assert (state["net"], state["time"], state["step"], state["version"]) == ("shop", 0, 0, 0)
    assert counts(state) == {"Inbox": 3, "Queue": 0, "Done": 0, "Desk/Clerk": 1,
                             "Desk/Serving": 0}
    assert state["bindings"] == [{"number": 1, "transition": "Arrive",
                                  "values": "order=Order(id=1, size=2)"}]
    assert state["modules"] == ["Desk"]
    assert state["transitions"] == ["Desk/Start", "Desk/Finish", "Arrive"]
    assert (state["can_undo"], state["can_redo"], state["waiting"]) == (False, False, "")


@needs_dot
def test_state_draws_the_module_asked_for(client):
    top = client.get("/api/state").json()["svg"]
    assert top.startswith("<svg") and 'id="module:Desk"' in top
    inside = client.get("/api/state", params={"module": "Desk"}).json()["svg"]
    assert 'id="transition:Desk/Start"' in inside and 'id="place:Queue"' in inside
    wrong = client.get("/api/state", params={"module": "Kitchen"})
    assert wrong.status_code == 400
    assert wrong.json()["error"] == ("module: no substitution transition 'Kitchen' in net "
                                     "'shop' (substitution transitions there: Desk)")


def test_firing_by_number_reaches_the_stepper_apis_marking(client, session):
    state = client.get("/api/state").json()
    assert client.post("/api/fire", json={"number": 1, "version": state["version"]}) \
        .json() == {"running": False}
    after = client.get("/api/state").json()
    stepper = Stepper(build_net(), show=lambda item: None)
    stepper.execute("1")
    assert counts(after) == stepper.simulator.marking.counts()
    assert after["log"] == [{"text": "fired Arrive<order=Order(id=1, size=2)> at time 0",
                             "kind": "info"}]
    assert after["version"] == 1 and after["can_undo"]


def test_a_binding_number_from_a_stale_list_is_refused(client):
    client.post("/api/step", json={})
    stale = client.post("/api/fire", json={"number": 1, "version": 0})
    assert stale.status_code == 409
    assert stale.json()["error"] == ("the marking changed since this list was shown; "
                                     "it has been refreshed")


@pytest.mark.parametrize("path, body, error", [
    ("/api/fire", {"number": "1"}, "number: expected a whole number, not '1'"),
    ("/api/fire", {"number": True}, "number: expected a whole number, not True"),
    ("/api/run", {"until": "soon"}, "until: expected a number, not 'soon'"),
    ("/api/run", {"steps": 2, "until": 3}, "give steps or until, not both"),
    ("/api/breakpoint", {"kind": "place", "place": "Queue", "op": "len(tokens)",
                          "count": 1}, "op: expected one of >= > == != <= <, not "
                                       "'len(tokens)'"),
    ("/api/breakpoint", {"kind": "place", "place": "Queue", "op": ">=", "count": -1},
     "count: expected a whole number of tokens, not -1"),
    ("/api/breakpoint", {"kind": "place", "place": "__import__('os')", "op": ">=",
                          "count": 1}, "place: no place \"__import__('os')\" in net 'shop'"),
    ("/api/breakpoint", {"kind": "transition", "transition": "Leave"},
     "transition: no transition 'Leave' in net 'shop'"),
    ("/api/breakpoint", {"kind": "python", "condition": "1"},
     "kind: expected 'place', 'transition' or 'named', not 'python'"),
    ("/api/breakpoint", {"kind": "named", "name": "len(tokens) > 1"},
     "name: no breakpoint 'len(tokens) > 1' in the net file (it has: none)"),
    ("/api/load", {"text": 3}, "text: expected the trace file's text"),
    # A field of the wrong type: a list or an object where a name is expected
    # (a 500 and a traceback: "unhashable type: 'list'"), text for a number.
    ("/api/breakpoint", {"kind": "named", "name": [1]},
     "name: expected the name of a breakpoint of the net file (text), not [1]"),
    ("/api/breakpoint", {"kind": "place", "place": "Queue", "op": [1], "count": 1},
     "op: expected one of >= > == != <= <, not [1]"),
    ("/api/breakpoint", {"kind": "place", "place": "Queue", "op": {}, "count": 1},
     "op: expected one of >= > == != <= <, not {}"),
    ("/api/breakpoint", {"kind": "place", "place": ["Queue"], "op": ">=", "count": 1},
     "place: expected a place's name (text), not ['Queue']"),
    ("/api/breakpoint", {"kind": "place", "place": "Queue", "op": ">=", "count": "1"},
     "count: expected a whole number of tokens, not '1'"),
    ("/api/breakpoint", {"kind": "transition", "transition": {"name": "Arrive"}},
     "transition: expected a transition's name (text), not {'name': 'Arrive'}"),
    ("/api/breakpoint", {"kind": ["place"]},
     "kind: expected 'place', 'transition' or 'named', not ['place']"),
    ("/api/fire", {"number": 1, "version": "0"}, "version: expected a whole number, not '0'"),
    ("/api/fire", {"number": list(range(100))},
     "number: expected a whole number, not [0, 1, 2, 3, 4, 5, ...]"),
    ("/api/run", {"steps": [3]}, "steps: expected a whole number, not [3]"),
    ("/api/unbreak", {"number": "1"}, "number: expected a whole number, not '1'"),
    ("/api/load", {"text": "", "name": ["a.jsonl"]},
     "name: expected the trace file's name (text), not ['a.jsonl']"),
    # Numbers out of bounds: taken, a goal of 1e23 steps; a 500 (no JSON for inf).
    ("/api/run", {"steps": 99999999999999999999999},
     "steps: run at most 1000000 steps at a time, not 99999999999999999999999"),
    ("/api/run", {"until": 10**400},
     "until: expected a finite number, not 100000000000000000...0000000000000000000"),
])
def test_bad_fields_are_refused_naming_the_field(client, session, path, body, error):
    answer = client.post(path, json=body)
    assert (answer.status_code, answer.json()) == (400, {"error": error, "running": False})
    assert session.simulator.steps == 0 and not session.stepper.recorder.breakpoints


@pytest.mark.parametrize("name, query, error", [
    ("state", {"module": ["Desk"]}, "module: expected a module's path (text), not ['Desk']"),
    ("tokens", {"place": 3}, "place: expected a place's name (text), not 3"),
])
def test_bad_fields_of_a_reading_through_the_widgets_comm_are_refused(session, name, query,
                                                                      error):
    # Over HTTP a reading's fields are text; a notebook's comm carries any JSON.
    assert answer(session, "reading", name, query) == (400, {"error": error,
                                                              "running": False})
    assert answer(session, ["reading"], ["state"], {})[0] == 404


def test_a_bug_of_the_server_is_a_json_error_and_its_traceback_written_once(
        client, session, monkeypatch, capsys):
    # Any unexpected exception was "Internal Server Error", a bare 500.
    def broken():
        raise KeyError("lost")

    monkeypatch.setattr(session, "redo", broken)
    monkeypatch.setattr("cpn.web.api._REPORTED", set())
    for _ in range(2):
        failed = client.post("/api/redo", json={})
        assert (failed.status_code, failed.json()) == (500, {"error": (
            "the server failed on request 'redo' (KeyError: 'lost'): a bug, please report "
            "it with the traceback the server wrote"), "running": False})
    err = capsys.readouterr().err
    assert err.startswith("cpn.web: a bug, please report it: the request 'redo' failed:\n"
                          "Traceback (most recent call last):\n")
    assert err.count("Traceback") == 1 and err.endswith("KeyError: 'lost'\n")


@pytest.mark.parametrize("body, error", [
    ('{"number": 1', "the request body is not JSON"),
    (b'{"number": "\xff"}', "the request body is not JSON"),
    # Valid JSON, all "not JSON" (and the second a 500): what is wrong, said.
    ('{"number": ' + "9" * 5000 + "}",
     f"a number in the request is too large (more than {sys.get_int_max_str_digits()} "
     "digits)"),
    ("[" * 100_000 + "]" * 100_000, "the request nests lists or objects too deeply"),
])
def test_a_body_python_cannot_read_is_refused_saying_why(client, session, body, error):
    refused = client.post("/api/fire", content=body,
                          headers={"Content-Type": "application/json"})
    assert (refused.status_code, refused.json()) == (400, {"error": error})
    assert session.simulator.steps == 0


@pytest.mark.parametrize("until", ["1e400", "Infinity", "NaN"])
def test_a_run_to_no_finite_time_is_refused(client, session, until):
    # Python's JSON reader takes them: a run to time inf, whose progress
    # was a 500 (JSON has no inf to answer with).
    refused = client.post("/api/run", content=f'{{"until": {until}}}',
                          headers={"Content-Type": "application/json"})
    assert (refused.status_code, refused.json()) == (400, {
        "error": f"until: expected a finite number, not {float(until)}", "running": False})
    assert client.get("/api/progress").status_code == 200 and session.simulator.steps == 0


def test_the_address_is_announced_on_one_line_for_scripts_to_find(tmp_path, monkeypatch,
                                                                  capsys):
    # At 80 columns (output not a terminal) the line wrapped: the URL could
    # land on a line of its own, or be cut in two.
    file = tmp_path / "shop.py"
    file.write_text("from tests.web_nets import build_net\nnet = build_net()\n"
                    "net.name = 'a_shop_with_a_name_long_enough_to_wrap'\n")
    monkeypatch.setattr("cpn.web.server.serve",
                        lambda session, port, announce: announce("http://127.0.0.1:38517/"))
    assert main_step(["step", str(file), "--web"]) == 0
    assert capsys.readouterr().out.splitlines() == [
        "stepping a_shop_with_a_name_long_enough_to_wrap in the browser at "
        "http://127.0.0.1:38517/ (Ctrl-C stops the server)", "stopped"]


def test_an_unknown_request_is_not_found(client):
    assert (client.post("/api/shutdown", json={}).json(), client.get("/api/secrets").json()) \
        == ({"error": "no command 'shutdown'"}, {"error": "no reading 'secrets'"})


@pytest.mark.parametrize("number", [7, 0, -1])
def test_a_binding_number_out_of_range_is_refused_naming_the_field(client, session, number):
    # It was {"running": false} [200], and the terminal's hint in the log:
    # "? no binding 7: choose 1..1 (l lists them all)", "? unknown command '-1'"
    refused = client.post("/api/fire", json={"number": number})
    assert (refused.status_code, refused.json()) == (400, {
        "error": f"number: no binding {number}: choose 1 to 1", "running": False})
    with pytest.raises(SessionError, match=f"^number: no binding {number}: choose 1 to 1$"):
        session.fire(number)
    assert session.simulator.steps == 0 and client.get("/api/state").json()["log"] == []


def test_a_binding_number_when_nothing_is_enabled_says_which_button_helps(session):
    # "... type a to advance the clock", "... (a dead marking): u to undo, q to quit"
    session.fire(1)
    session.fire(1)  # Desk/Start: nothing more until the next order arrives at 1
    with pytest.raises(SessionError, match=r"^number: no binding 1 to fire: nothing is "
                                           r"enabled at time 0; the next event is at time 1: "
                                           r"Advance clock moves to it$"):
        session.fire(1)
    session.run()
    assert session.wait(10)
    with pytest.raises(SessionError, match=r"^number: no binding 1 to fire: nothing is "
                                           r"enabled at time 8, nor ever will be \(a dead "
                                           r"marking\); Undo goes back$"):
        session.fire(1)
    undone = WebSession(build_net())
    undone.run()
    assert undone.wait(10)
    undone.undo()
    undone.redo()
    undone.undo()
    with pytest.raises(SessionError, match=r"^nothing to undo$"):
        undone.undo()
    undone.redo()
    with pytest.raises(SessionError, match=r"^nothing to redo: Redo does again what Undo "
                                           r"took back$"):
        undone.redo()
    assert [entry["kind"] for entry in session.state(svg=False)["log"]
            + undone.state(svg=False)["log"]].count("hint") == 0


def test_refusals_are_said_in_the_pages_words_not_the_terminals(session):
    # "? n takes a positive number of steps, e.g. n 10", "? b del takes a
    # breakpoint number from 1 to 0", "(a dead marking): u to undo, q to quit"
    with pytest.raises(SessionError, match=r"^steps: run at least 1 step, not 0$"):
        session.run(steps=0)
    session.fire(1)
    session.wait()
    with pytest.raises(SessionError, match=r"^until: time -1 is in the past \(the clock is "):
        session.run(until=-1)
    with pytest.raises(SessionError, match=r"^number: there is no breakpoint 1 \(none is "
                                           r"set\)$"):
        session.remove_breakpoint(1)
    session.run()  # to the end
    assert session.wait(10)
    with pytest.raises(SessionError, match=r"nor ever will be \(a dead marking\); Undo "
                                           r"goes back$"):
        session.step()
    with pytest.raises(SessionError, match=r"nor ever will be \(a dead marking\); Undo "
                                           r"goes back$"):
        session.advance()
    assert all("q to quit" not in entry["text"] and "e.g. n 10" not in entry["text"]
               for entry in session.state(svg=False)["log"])


def test_a_refused_request_for_the_state_keeps_the_log_for_the_next(client):
    # A state asked for an unknown module took the log and answered 400:
    # what the command did was never shown.
    client.post("/api/fire", json={"number": 1})
    assert client.get("/api/state", params={"module": "Kitchen"}).status_code == 400
    assert client.get("/api/state").json()["log"] == [
        {"text": "fired Arrive<order=Order(id=1, size=2)> at time 0", "kind": "info"}]


def test_only_json_from_this_machine_is_taken(session):
    app = create_app(session)
    with TestClient(app, base_url="http://127.0.0.1") as local:
        form = local.post("/api/step", content="{}", headers={"Content-Type": "text/plain"})
        assert form.status_code == 415
        assert local.post("/api/step", content="[1]",
                          headers={"Content-Type": "application/json"}).json() == \
            {"error": "the request body must be a JSON object"}
    with TestClient(app, base_url="http://attacker.example") as renamed:
        assert renamed.get("/api/state").status_code == 400
    assert session.simulator.steps == 0


def test_undo_and_redo(client, session):
    client.post("/api/run", json={"steps": 3})
    session.wait(5)
    reached = session.simulator.marking.freeze()
    client.post("/api/undo", json={})
    state = client.get("/api/state").json()
    assert state["step"] == 0 and state["can_redo"] and not state["can_undo"]
    client.post("/api/redo", json={})
    assert session.simulator.marking.freeze() == reached
    assert client.get("/api/state").json()["step"] == 3


def test_run_to_a_time_then_to_a_place_breakpoint(client, session):
    client.post("/api/run", json={"until": 1.5})
    assert session.wait(5)
    progress = client.get("/api/progress").json()
    assert progress == {"running": False, "steps": session.simulator.steps, "time": 1.5,
                        "from_steps": 0, "from_time": 0.0, "goal_time": 1.5}
    client.post("/api/breakpoint", json={"kind": "place", "place": "Done", "op": ">=",
                                          "count": 2})
    client.post("/api/run", json={})
    assert session.wait(5)
    state = client.get("/api/state").json()
    assert counts(state)["Done"] == 2 and state["time"] == 7
    assert state["breakpoints"] == ["place Done when len(tokens) >= 2"]
    assert {"text": "breakpoint hit: place Done when len(tokens) >= 2",
            "kind": "breakpoint"} in state["log"]
    client.post("/api/unbreak", json={"number": 1})
    assert client.get("/api/state").json()["breakpoints"] == []


def test_a_transition_breakpoint_stops_after_it_fires(client, session):
    client.post("/api/breakpoint", json={"kind": "transition",
                                          "transition": "Desk/Finish"})
    client.post("/api/run", json={"steps": 100})
    assert session.wait(5)
    assert session.stepper.trace[-1].transition == "Desk/Finish"
    assert session.simulator.tokens("Done") == [build_net().places["Inbox"].initial[0].value]


def test_a_long_run_shows_progress_and_can_be_stopped():
    from tests.test_stepper import buffer_net

    endless = buffer_net()
    endless.arc("Consume", "Ready", "y")  # items come back: it never ends
    session = WebSession(endless, run_limit=10**9)
    session.run()
    while session.simulator.steps < 50:
        time.sleep(0.01)
    with pytest.raises(SessionError, match="a run is in progress") as refused:
        session.undo()
    assert refused.value.conflict
    progress = session.progress()
    assert progress["running"] and progress["steps"] >= 50 and progress["from_steps"] == 0
    session.stop()
    assert session.wait(5)
    state = session.state(svg=False)
    assert state["step"] >= 50 and state["log"][0]["text"].startswith("fired ")
    assert "stopped on request" in state["log"][0]["text"]
    session.undo()  # the whole run, as one command
    assert session.simulator.steps == 0


def test_tokens_of_records_are_a_table_with_a_column_per_field(client):
    table = client.get("/api/tokens", params={"place": "Inbox"}).json()
    assert table == {"place": "Inbox", "count": 3, "note": "", "distinct": 3,
                     "columns": ["id", "size", "available at"],
                     "rows": [["1", "2", "0"], ["2", "5", "1"], ["3", "1", "2"]]}
    assert client.get("/api/tokens", params={"place": "Desk/Clerk"}).json()["rows"] == \
        [["'ann'", "0"]]
    assert client.get("/api/tokens", params={"place": "Nowhere"}).json() == \
        {"error": "place: no place 'Nowhere' in net 'shop'", "running": False}


def test_a_collection_of_records_is_shown_as_its_records():
    session = WebSession(load_net("puppet"))
    session.run(until=1.5)
    session.wait(5)
    table = session.tokens("Queuing")
    assert table["note"] == "one token: a tuple of 1 Job"
    assert table["columns"][:4] == ["id", "st", "rt", "js"]
    assert table["rows"][0][:4] == ["2", "1", "100", "4"]


def test_a_saved_trace_replays_in_cpn_replay_and_loads_back(client, session, tmp_path):
    client.post("/api/run", json={"until": 4})
    session.wait(5)
    reached = session.simulator.marking.freeze()
    download = client.get("/api/trace").json()
    assert download["name"] == "shop.trace.jsonl"
    header = json.loads(download["text"].splitlines()[0])
    assert header == {"format": "cpn-trace/1", "net": "shop", "seed": 0, "end_time": 4.0}
    saved = tmp_path / "shop.trace.jsonl"
    saved.write_text(download["text"])
    assert replay(build_net(), saved).marking.freeze() == reached
    assert main_step(["replay", str(NET_FILE), str(saved)]) == 0

    client.post("/api/undo", json={})
    assert client.post("/api/load", json={"text": download["text"],
                                           "name": "saved.jsonl"}).status_code == 200
    assert session.simulator.marking.freeze() == reached
    state = client.get("/api/state").json()
    assert state["version"] == 3  # the run, the undo, the load: a version is never reused
    assert state["log"][-1]["text"] == (f"replayed {len(download['text'].splitlines()) - 1} "
                                        "firings of saved.jsonl: time 4, "
                                        f"step {state['step']}")


def test_a_trace_that_does_not_fit_is_refused_and_the_session_kept(client, session):
    client.post("/api/step", json={})
    bad = client.post("/api/load", json={"text": '{"format": "cpn-trace/1"}\nnot json\n',
                                          "name": "bad.jsonl"})
    assert bad.status_code == 400
    assert bad.json()["error"].startswith("bad.jsonl, line 2: not JSON")
    other = ('{"format": "cpn-trace/1", "net": "x", "seed": 0}\n'
             '{"step": 1, "time": 0, "transition": "Arrive", "values": {"order": "9"}}\n')
    refused = client.post("/api/load", json={"text": other, "name": "other.jsonl"})
    assert refused.json()["error"].startswith("other.jsonl: step 1: Arrive<order=9> at "
                                              "time 0 is not enabled")
    assert session.simulator.steps == 1


def test_a_net_files_named_breakpoint_is_offered_and_stops_the_run():
    net, named = load_net_and_breakpoints(str(NET_FILE))
    session = WebSession(net, named=named)
    assert session.state(svg=False)["named"] == ["a big order is done"]
    session.add_breakpoint({"kind": "named", "name": "a big order is done"})
    session.run()
    assert session.wait(5)
    state = session.state(svg=False)
    assert {"text": "breakpoint hit: place Done when a big order is done",
            "kind": "breakpoint"} in state["log"]
    assert sorted(order.id for order in session.simulator.tokens("Done")) == [1, 2]


def test_a_failing_named_breakpoint_stops_and_says_why():
    session = WebSession(build_net(), named={"sixth": ("Queue", lambda orders: orders[5].id)})
    session.add_breakpoint({"kind": "named", "name": "sixth"})
    session.run(steps=3)
    assert session.wait(5)
    log = [line["text"] for line in session.state(svg=False)["log"]]
    assert ("breakpoint place Queue when sixth: its condition failed (IndexError: list index "
            "out of range); the run stopped there") in log


@pytest.mark.parametrize("breakpoints, error", [
    ("[]", "BREAKPOINTS is a list, not a dict of name -> (place path, function of the "
           "place's token values)"),
    ("{'x': ('Done',)}", "BREAKPOINTS['x'] is ('Done',); expected a dict of name -> "
                         "(place path, function of the place's token values)"),
])
def test_bad_breakpoints_in_a_net_file_are_refused(tmp_path, breakpoints, error, capsys):
    file = tmp_path / "shop.py"
    file.write_text(f"from tests.web_nets import build_net\nnet = build_net()\n"
                    f"BREAKPOINTS = {breakpoints}\n")
    assert main_step(["step", str(file), "--web"]) == 2
    assert " ".join(capsys.readouterr().err.split()) == f"cpn step: error: {file}: {error}"


def test_a_named_breakpoint_on_a_missing_place_is_refused():
    with pytest.raises(SessionError, match=r"^BREAKPOINTS\['late'\]: no place 'Gone' in "
                                           r"net 'shop'$"):
        WebSession(build_net(), named={"late": ("Gone", len)})


def test_a_fused_place_is_found_by_each_members_path():
    from tests.fusion_nets import logging_workers

    session = WebSession(logging_workers({"Queue": [1, 2]}),
                         named={"both": ("W1/Log", lambda tokens: len(tokens) > 1)})
    assert session.tokens("W1/Log")["place"] == session.tokens("AllLog")["place"] == "log"
    session.add_breakpoint({"kind": "place", "place": "AllLog", "op": ">=", "count": 1})
    session.add_breakpoint({"kind": "named", "name": "both"})
    assert [bp.text for bp in session.stepper.recorder.breakpoints] == [
        "place log when len(tokens) >= 1", "place W1/Log when both"]


# -- cpn step --web ----------------------------------------------------------
@pytest.mark.parametrize("argv, message", [
    (["step", "puppet", "--port", "8000"],
     "--port is the port of the browser front end: give --web too"),
    (["step", "puppet", "--web", "--script", "-"],
     "--web steps in a browser, --script from a file: give one of them"),
    (["step", "puppet", "--web", "--port", "70000"],
     "--port 70000: expected a port number from 1 to 65535"),
])
def test_cpn_step_web_flags_refused(argv, message, capsys):
    assert main_step(argv) == 2
    assert " ".join(capsys.readouterr().err.split()) == f"cpn step: error: {message}"


def test_cpn_step_web_on_a_port_in_use(capsys):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        assert main_step(["step", "puppet", "--web", "--port", str(port)]) == 2
    out = " ".join(capsys.readouterr().err.split())
    assert out.startswith(f"cpn step: error: --port: cannot listen on 127.0.0.1:{port}: ")
    assert "choose another --port, or leave it out for a free one" in out


@pytest.mark.skipif(sys.platform == "win32", reason="SO_REUSEADDR means more there")
def test_a_port_is_free_again_as_soon_as_its_server_stops():
    # Run again with the same --port after Ctrl-C, it was "in use" for a
    # minute: the server's closed connections waited in TIME_WAIT.
    from cpn.web.server import PortInUse, listen

    first = listen()
    port = first.getsockname()[1]
    client = socket.create_connection(("127.0.0.1", port))
    accepted, _ = first.accept()
    accepted.close()  # the server's end closes first: it waits in TIME_WAIT
    first.close()
    client.close()
    second = listen(port)
    with pytest.raises(PortInUse):  # a live server's port is still its own
        listen(port)
    second.close()


@pytest.mark.parametrize("steps", [0, 2])
def test_cpn_step_web_serves_a_net_file_on_localhost(tmp_path, steps):
    """From the initial marking, or (``--trace``) from where a trace leads."""
    stepped = Stepper(build_net(), show=lambda *_, **__: None)
    stepped.simulator.run(max_steps=steps)
    expected = stepped.simulator
    trace = tmp_path / "trace.json"
    save_trace(stepped.trace, trace, net="shop")
    server = subprocess.Popen([sys.executable, "-m", "cli.main", "step", str(NET_FILE),
                               "--web", *(["--trace", str(trace)] if steps else [])],
                              stdout=subprocess.PIPE, text=True,
                              cwd=Path(__file__).parent.parent)
    try:
        line = server.stdout.readline()
        url = re.search(r"http://127\.0\.0\.1:\d+/", line).group(0)
        assert line.startswith("stepping shop in the browser at ")
        with urllib.request.urlopen(url + "api/state") as answer:
            state = json.load(answer)
        assert counts(state) == expected.marking.counts()
        assert (state["step"], state["time"]) == (steps, expected.now)
        with urllib.request.urlopen(url) as page:
            assert "<title>cpn step</title>" in page.read().decode()
    finally:
        server.terminate()
        server.wait(10)


@pytest.mark.skipif(sys.platform == "win32", reason="Ctrl-C is SIGINT on POSIX")
def test_ctrl_c_stops_cpn_step_web_without_a_traceback():
    # uvicorn shut down, then raised KeyboardInterrupt again: 38 lines of it
    import signal

    server = subprocess.Popen([sys.executable, "-m", "cli.main", "step", str(NET_FILE),
                               "--web"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              text=True, cwd=Path(__file__).parent.parent)
    try:
        assert server.stdout.readline().startswith("stepping shop in the browser at ")
        server.send_signal(signal.SIGINT)
        out, err = server.communicate(timeout=20)
    finally:
        server.kill()
    assert server.returncode == 0 and out.strip() == "stopped" and err == ""


def test_the_notebook_widget_answers_each_request_by_its_id():
    widget_module = pytest.importorskip("cpn.web.widget", reason="anywidget is not installed")
    widget = widget_module.StepperWidget(build_net())
    replies = []
    widget.send = replies.append
    for request in ({"id": 7, "kind": "command", "name": "fire", "args": {"number": 1}},
                    {"id": 8, "kind": "reading", "name": "progress", "args": {}},
                    {"id": 9, "kind": "command", "name": "run", "args": {"steps": "all"}},
                    {"id": 10, "kind": "reading", "name": "eval", "args": {}}):
        widget._answer(widget, request, [])
    changed = {"changed": {"version": 1, "step": 1, "time": 0.0, "running": False}}  # others
    assert replies.pop(1) == changed
    assert replies[0] == {"id": 7, "status": 200, "data": {"running": False}}
    assert replies[1]["id"] == 8 and replies[1]["data"]["steps"] == 1
    assert replies[2] == {"id": 9, "status": 400, "data": {
        "error": "steps: expected a whole number, not 'all'", "running": False}}
    assert replies[3] == {"id": 10, "status": 404, "data": {"error": "no reading 'eval'"}}


def test_the_notebook_widgets_patience_is_a_positive_number_of_seconds():
    widget_module = pytest.importorskip("cpn.web.widget", reason="anywidget is not installed")
    assert widget_module.StepperWidget(build_net()).patience == 60
    with pytest.raises(Exception, match="'patience' trait .* not be less than 0.1, but a "
                                        "value of 0.0 was specified"):
        widget_module.StepperWidget(build_net(), patience=0)


def test_the_puppet_demo_offers_breakpoints_at_the_moments_of_its_story():
    """Job 1 ends at 100 and job 2 fills the machine (4 nodes, 400 W: the
    cap) from 100 to 200."""
    net, named = load_net_and_breakpoints("puppet")
    sim = Simulator(net)
    first_hit = {}
    while sim.step() is not None:
        for name, (place, holds) in named.items():
            if holds(sim.tokens(place)):
                first_hit.setdefault(name, sim.now)
    assert first_hit == {"the machine is full": 100.0, "power reaches the cap": 100.0,
                         "a job has finished": 100.0}


def test_each_view_reads_the_whole_log_from_its_own_place(monkeypatch):
    """The log was emptied by each read: with two views (two tabs, a widget
    shown twice), each line reached one of them only."""
    import cpn.web.session as session_module

    session = WebSession(build_net())
    session.step()
    first = session.state(svg=False, log_from=0)
    second = session.state(svg=False, log_from="0")  # as a query string gives it
    assert first["log"] == second["log"] != [] and first["log_next"] == 1
    assert session.state(svg=False, log_from=1)["log"] == []
    assert session.state(svg=False)["log"] == first["log"]  # no log_from: on from the last
    assert session.state(svg=False)["log"] == []
    monkeypatch.setattr(session_module, "LOG_KEPT", 2)
    for _ in range(3):
        session.step()
    kept = session.state(svg=False, log_from=0)
    assert kept["log_next"] == 4 and len(kept["log"]) == 2  # the last LOG_KEPT lines
    with pytest.raises(SessionError, match="log_from: expected a whole number"):
        session.state(log_from="x")
