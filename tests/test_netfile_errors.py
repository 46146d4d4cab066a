"""Errors in saved data files, edited by hand: each names the file, the
line a person looks at (the key of an arc when it has one) and the field,
whatever tables the writer chose for the node."""

import re
import sys
from pathlib import Path

import pytest

from cpn.netfile import NetFileError, dumps, loads
from nets.puppet import FUNCTIONS, PuppetConfig, build_net

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "examples"))
import producer_consumer  # noqa: E402


@pytest.fixture(scope="module")
def producer_consumer_file() -> str:
    """The example as ``net.save`` writes it: ``Consume`` has no guard, so
    it has only ``[transitions.Consume.inputs]`` and ``.outputs`` tables."""
    text = dumps(producer_consumer.build_net())
    assert "[transitions.Consume]" not in text and "[transitions.Consume.outputs]" in text
    return text


@pytest.fixture(scope="module")
def puppet_file() -> str:
    return dumps(build_net(PuppetConfig(4)), FUNCTIONS)


def refusal(text: str, source: str, functions=None) -> str:
    with pytest.raises(NetFileError) as caught:
        loads(text, functions, source=source)
    return str(caught.value)


def line_of(text: str, source_line: str, after: str = "") -> int:
    """The number of the first line equal to ``source_line`` after the
    line ``after``."""
    lines = text.splitlines()
    start = lines.index(after) if after else 0
    return lines.index(source_line, start) + 1


@pytest.mark.parametrize("old, new, message", [
    ('Consumed = "x"', 'Consumed = "xx"', r"arc Consume -> Consumed: variable 'xx'"),
    ('Consumed = "x"', 'Consumed = "x@+3"', r"arc Consume -> Consumed 'x@\+3': place "
                                           r"'Consumed' is untimed"),
])
def test_an_output_arc_of_a_transition_without_a_table_of_its_own_names_its_line(
        producer_consumer_file, old, new, message):
    text = producer_consumer_file.replace(old, new)
    line = line_of(text, new, "[transitions.Consume.outputs]")
    assert re.match(rf"pc\.toml, line {line}: transition 'Consume', {message}",
                    refusal(text, "pc.toml"))


def test_an_arc_from_a_missing_place_names_the_line_of_its_key(producer_consumer_file):
    text = producer_consumer_file.replace('Buffer = "x"', 'Bufer = "x"')
    line = line_of(text, 'Bufer = "x"')
    assert refusal(text, "pc.toml").startswith(
        f"pc.toml, line {line}: arc Bufer -> Consume in 'producer_consumer': no place")


def test_a_typo_in_a_module_names_the_line_of_the_arc_in_the_module(puppet_file):
    old = 'Queuing = "queue + (job,)"'
    assert old in puppet_file
    text = puppet_file.replace(old, 'Queuing = "queue + (jobb,)"')
    line = line_of(text, 'Queuing = "queue + (jobb,)"',
                   "[modules.BatchScheduling.transitions.Submit.outputs]")
    assert refusal(text, "puppet.toml", FUNCTIONS).startswith(
        f"puppet.toml, line {line}: transition 'Scheduler/Submit', arc Scheduler/Submit "
        "-> Queuing: variable 'jobb'")


def test_an_inline_arc_is_found_on_its_line_not_on_an_earlier_key_of_its_place():
    text = ('[places.P]\ncolour = "int"\n[transitions.T]\ninputs = { P = "x" }\n'
            'outputs = { P = "y" }\n[transitions.U]\nguard = "z"')
    assert refusal(text, "bad.toml").startswith("bad.toml, line 5: transition 'T', arc T -> P")


@pytest.mark.parametrize("old, new, message", [
    ('    "slot",\n    "slot",', '    { token = "slot", at = 3.0 },',
     "place 'Free': the place is untimed: a token has no 'at'"),
    ('{ token = "idle", at = 0.0 }', '{ token = "idle" }',
     r"place 'Consumer': a timed token needs 'at'"),
    ('at = 0.0', 'at = 1e400', "place 'Consumer': a token's time 'at' must be a finite "
                               "number, not inf"),
])
def test_a_timed_token_in_the_wrong_place_says_what_its_time_lacks(
        producer_consumer_file, old, new, message):
    assert old in producer_consumer_file
    said = refusal(producer_consumer_file.replace(old, new), "pc.toml")
    assert re.match(r"pc\.toml, line \d+: ", said) and message in said, said


def test_a_table_token_of_a_place_of_tables_is_still_a_token():
    net = loads('[places.P]\ncolour = "FrozenDict"\ninitial = [{ token = "a", at = 1.0 }]\n'
                '[places.Q]\ncolour = "FrozenDict"\ntimed = true\ninitial = [{ token = "b" }]')
    assert net.places["P"].initial[0]["at"] == 1.0
    assert net.places["Q"].initial[0]["token"] == "b"


def test_an_arc_is_found_by_its_key_before_its_text(producer_consumer_file):
    # 'c' is the text of the input arc from Consumer too, a line before
    text = producer_consumer_file.replace('Consumer = "c@+3"', 'Consumer = "c"').replace(
        'Free = "\'slot\'"\nConsumer', 'Free = "c@+1"\nConsumer')
    line = line_of(text, 'Free = "c@+1"')
    assert refusal(text, "pc.toml").startswith(
        f"pc.toml, line {line}: transition 'Consume', arc Consume -> Free 'c@+1': place "
        "'Free' is untimed")


@pytest.mark.parametrize("new, message", [
    ("5", "outputs.Consumed must be an inscription (a string, or an array of strings), "
          "not an integer (5)"),
    ('["x", 5.0]', "outputs.Consumed must be an inscription (a string, or an array of "
                   "strings), not a number (5.0)"),
    ("[]", "outputs.Consumed is an empty array: give an inscription"),
])
def test_an_arc_that_is_no_text_is_refused_as_a_guard_is(producer_consumer_file, new,
                                                           message):
    text = producer_consumer_file.replace('Consumed = "x"', f"Consumed = {new}")
    line = line_of(text, f"Consumed = {new}")
    assert refusal(text, "pc.toml").startswith(
        f"pc.toml, line {line}: transition 'Consume': {message}")


def test_an_inline_arc_that_is_no_text_names_its_line():
    text = ('[places.P]\ncolour = "int"\n[transitions.T]\ninputs = { P = "x" }\n'
            'outputs = { P = 5 }')
    assert refusal(text, "bad.toml").startswith(
        "bad.toml, line 5: transition 'T': outputs.P must be an inscription")


def test_a_misspelt_keyword_of_a_partial_is_refused_when_the_file_loads(puppet_file):
    old = "backfill=True)"
    assert old in puppet_file
    text = puppet_file.replace(old, "backfil=True)")
    line = next(number for number, each in enumerate(text.splitlines(), 1)
                if "backfil=True" in each)
    said = refusal(text, "puppet.toml", FUNCTIONS)
    assert said.startswith(f"puppet.toml, line {line}: function 'schedule' of module "
                           "'BatchScheduling': evaluating "), said
    assert said.endswith("failed: TypeError: easy_pass_on_nodes() got an unexpected keyword "
                         "argument 'backfil'")


def test_a_partial_of_a_function_without_a_signature_still_loads():
    net = loads('[functions]\nlargest = "partial(max, 3)"\n'
                '[places.P]\ncolour = "int"\ninitial = [1]\n')
    assert net.env["largest"](5) == 5
