"""Nets as data files: round trips (PuPPET in every capping, the examples),
hand-written files, the restricted expression language against hostile
text, clear errors for broken files, and a fuzzed loader that never
raises anything else and never runs a file's code."""

import os
import re
import sys
from fractions import Fraction
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import cpn
from cpn import Net, NetError, Simulator
from cpn.netfile import NetFileError, dumps, load, loads
from modules.batch_scheduling import SchedulingConfig
from modules.cpu_scaling import CpuScaling
from modules.job import Job
from modules.power_capping import PowerCap
from nets.puppet import FUNCTIONS, PuppetConfig, build_net, run_model, simulate

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "examples"))
from test_puppet import random_jobs  # noqa: E402

import editing_puppet  # noqa: E402
import producer_consumer  # noqa: E402


# -- round trips ---------------------------------------------------------------------
@pytest.mark.parametrize("cap", [PowerCap(), PowerCap.block(1000.0), PowerCap.wait(1000.0),
                                 CpuScaling(1000.0)], ids=["none", "block", "wait", "dvfs"])
@pytest.mark.parametrize("policy", ["fcfs", "wfp"])
def test_puppet_round_trips_through_a_data_file_with_the_same_schedule(cap, policy, tmp_path):
    config = PuppetConfig(16, node_watts=100.0, cap=cap,
                          scheduling=SchedulingConfig(policy=policy))
    jobs = [job._replace(jp=100.0 * job.js) for job in random_jobs(1, n=150, nodes=16)]
    path = tmp_path / "puppet.toml"
    build_net(config).save(path, FUNCTIONS)
    loaded = cpn.load(path, functions=FUNCTIONS)
    assert not cpn.diff(build_net(config), loaded)
    paper = simulate(jobs, config)
    again, _ = run_model(loaded, jobs, config)
    assert again.jobs.equals(paper.jobs)
    assert again.power_watts == paper.power_watts and again.power_times == paper.power_times


def firings(net: Net, seed: int = 1) -> list[tuple[float, str]]:
    sim = Simulator(net, seed=seed)
    out = []
    while (binding := sim.step()) is not None:
        out.append((sim.now, str(binding)))
    return out


def test_the_producer_consumer_example_round_trips(tmp_path):
    net = producer_consumer.build_net()
    net.save(tmp_path / "pc.toml")
    loaded = load(tmp_path / "pc.toml")
    assert not cpn.diff(net, loaded)
    assert firings(loaded) == firings(net) and len(firings(net)) == 8


def test_the_demo_data_file_is_the_built_in_demo_net():
    from nets.demo import build_net as demo
    loaded = load(ROOT / "examples" / "puppet_demo.toml", functions=FUNCTIONS)
    assert not cpn.diff(demo(), loaded)
    assert firings(loaded) == firings(demo())
    jobs = [token.value for token in loaded.substitutions["Scheduler"].module
            .places["User"].initial]
    assert all(type(job) is Job for job in jobs) and [job.id for job in jobs] == [1, 2, 3]


def test_the_wfp_exponent_edited_in_a_data_file_changes_the_schedule(tmp_path):
    config, jobs = editing_puppet.WFP_CONFIG, editing_puppet.WFP_JOBS
    path = tmp_path / "puppet.toml"
    build_net(config).save(path, FUNCTIONS)
    text = path.read_text()
    line = "schedule = \"partial(easy_pass_on_nodes, policy='wfp', estimate='requested', backfill=True)\""
    assert line in text
    path.write_text(text.replace("backfill=True)", "backfill=True, wfp_exponent=1)"))
    edited = load(path, functions=FUNCTIONS)
    assert editing_puppet.starts(edited, jobs, config) == {1: 0.0, 2: 200.0, 3: 100.0}


def test_objects_used_more_than_once_are_defined_once():
    text = dumps(build_net(PuppetConfig(4, cap=PowerCap.block(500.0))), FUNCTIONS)
    assert re.search(r'^\[definitions\]\npower_cap = "PowerCap\(cap_watts=500.0, '
                     r'wait_queue_length=0, max_wait=30000.0\)"\npower_model = "PowerModel\('
                     r'node_watts=64.21875, idle_fraction=0.3, core_share=0.65, alpha=2.0\)"\n'
                     r'allocation_rules = "AllocationRules\(power=power_model, cap=power_cap\)"',
                     text, re.MULTILINE)
    assert 'fits = "allocation_rules.fits"' in text
    capped = loads(text.replace("cap_watts=500.0", "cap_watts=300.0"), FUNCTIONS)
    rules = capped.substitutions["Allocation"].module.env["fits"].__self__
    assert rules.cap == PowerCap.block(300.0)


HAND_WRITTEN = '''
# a loop, written by hand
name = "loop"

[colours.Item]
n = "int"
label = "str"

[constants]
LIMIT = 3

[places.P]
colour = "Item"
initial = [{ n = 0, label = "start" }]
timed = true

[places.Seen]
colour = "int | float"
initial = [1.5]

[transitions.Tick]
guard = "item.n < LIMIT"
inputs = { P = "item" }
outputs = { P = "item._replace(n=item.n + 1)@+5", Seen = ["item.n", "2`0"] }
'''


def test_a_hand_written_file_declares_records_and_runs():
    net = loads(HAND_WRITTEN, source="loop.toml")
    sim = Simulator(net)
    sim.run()
    assert sim.now == 15.0
    (item,) = sim.tokens("P")
    assert type(item).__name__ == "Item" and tuple(item) == (3, "start")
    assert sorted(sim.tokens("Seen")) == [0, 0, 0, 0, 0, 0, 0, 1, 1.5, 2]


def test_a_timed_initial_token_and_a_mapping_with_number_keys_round_trip():
    from cpn.colours import FrozenDict
    net = Net("timed", env={"table": FrozenDict({1: "a"}), "names": ["x", "y"]})
    net.place("P", int, initial=[cpn.timed(4, at=7.5)], timed=True)
    net.place("Q", FrozenDict, initial=[FrozenDict({1: (2.0, 3)})])
    net.transition("T", inputs={"P": "x", "Q": "q"}, outputs={"Q": "q | {x: table[1]}"})
    text = dumps(net)
    assert "{ token = 4, at = 7.5 }" in text and 'names = "[\'x\', \'y\']"' in text
    back = loads(text)
    assert not cpn.diff(net, back)
    assert back.places["P"].initial == [cpn.TimedToken(4, 7.5)]


# -- hostile text -----------------------------------------------------------------------
CANARY = Path("/tmp/cpn_netfile_canary")

HOSTILE = [
    ("__import__('os').system('touch /tmp/cpn_netfile_canary')", "'__import__'"),
    ("x.__class__.__subclasses__()", "'.__subclasses__'"),
    ("x.__init__.__globals__", "'.__globals__'"),
    ("(lambda: open('/tmp/cpn_netfile_canary', 'w'))()", "a lambda"),
    ("[c for c in ().__class__.__base__.__subclasses__()]", "a comprehension"),
    ("eval('1')", "'eval'"),
    ("exec('x = 1')", "'exec'"),
    ("open('/tmp/cpn_netfile_canary', 'w')", "'open'"),
    ("getattr(x, 'real')", "'getattr'"),
    ("'{0.__class__}'.format(x)", "'.format'"),
    ("rng.bit_generator.ctypes", "'.ctypes'"),
    ("_cpn_R0", "'_cpn_R0'"),
    ("9 ** 9 ** 9", "a power tower"),
    ("f'{x!r}'", "an f-string"),
    ("(y := 3)", "':='"),
]


@pytest.fixture(autouse=True)
def no_canary():
    CANARY.unlink(missing_ok=True)
    yield
    assert not CANARY.exists(), "a file's text ran"


def small_file(guard="x > 0", inscription="x", output="x + 1", code=None,
               function=None) -> str:
    lines = ['name = "small"']
    if function is not None:
        lines += ["[functions]", f"helper = {function!r}".replace("\\\\", "\\")]
    lines += ["[places.P]", 'colour = "int"', "initial = [1]", "[places.Q]",
              'colour = "int"', "[transitions.T]", f"guard = {guard!r}"]
    if code is not None:
        lines.append(f"code = {code!r}")
    lines += [f"inputs = {{ P = {inscription!r} }}", f"outputs = {{ Q = {output!r} }}"]
    return "\n".join(lines) + "\n"


def test_the_small_file_loads_and_runs():
    assert firings(loads(small_file())) == [(0.0, "T<x=1>")]


@pytest.mark.parametrize("text, refused", HOSTILE)
def test_a_hostile_guard_is_refused_naming_file_line_node_and_text(text, refused):
    with pytest.raises(NetFileError) as caught:
        loads(small_file(guard=f"x > 0 and {text}"), source="evil.toml")
    message = str(caught.value)
    assert message.startswith(f"evil.toml, line 8: transition 'T': guard: {refused} in ")
    assert repr(f"x > 0 and {text}") in message and "\n" not in message


@pytest.mark.parametrize("text, refused", HOSTILE[:6])
def test_hostile_arcs_code_and_functions_are_refused(text, refused):
    for kwargs, where in (({"output": text}, "transition 'T': inscription: "),
                          ({"inscription": f"x ++ {text}"}, "transition 'T': inscription: "),
                          ({"code": f"y = {text}"}, "transition 'T': code: "),
                          ({"function": text}, "function 'helper': ")):
        with pytest.raises(NetFileError, match=rf"^evil\.toml, line \d+: {where}"
                                               rf"{re.escape(refused)} in .* is refused"):
            loads(small_file(**kwargs), source="evil.toml")


@pytest.mark.parametrize("code, refused", [
    ("import os", "an import"), ("x.y = 1", "'.y'"), ("del x", "'Delete'"),
    ("for i in x: pass", "'For'"), ("y = 1  # a comment", None)])
def test_a_code_segment_assigns_names_and_nothing_else(code, refused):
    with pytest.raises(NetFileError) as caught:
        loads(small_file(code=code), source="evil.toml")
    message = str(caught.value)
    assert message.startswith("evil.toml, line 9: transition 'T': code: ")
    assert (f"{refused} in " if refused else "holds a comment") in message


def test_a_registry_is_checked():
    with pytest.raises(NetFileError, match=r"registry: 'os' is a module, which would open "
                                           r"everything it imports to the file"):
        loads(small_file(), functions={"os": __import__("os")})
    with pytest.raises(NetFileError, match=r"registry: '_hidden' is not a name"):
        loads(small_file(), functions={"_hidden": len})


# -- broken files ------------------------------------------------------------------------
@pytest.mark.parametrize("text, message", [
    ('name = "a"\nx = = 1', r"^bad\.toml: not TOML: Invalid value \(at line 2, column 5\)$"),
    ("format = 2", r"^bad\.toml, line 1: the file: format 2 is not one this reader knows"),
    ("", r"^bad\.toml: the file: no \[places\], \[transitions\] or \[substitutions\]: no net"),
    ('format = 1\nname = "cut"', r"^bad\.toml: the file: no \[places\], \[transitions\] or "),
    ("nets = 1", r"^bad\.toml, line 1: the file: unknown key 'nets' \(expected format, "),
    ("[places.P]\ncolour = \"integer\"",
     r"^bad\.toml, line 2: place 'P': unknown colour 'integer' \(built in: int, float"),
    ("[places.P]\ncolour = \"int\"\ninitial = [1.5]",
     r"^bad\.toml, line 3: place 'P': initial token: 1\.5 is not of colour int$"),
    ("[places.P]\ncolour = \"easy_pass_on_nodes\"\ninitial = [1]",
     r"^bad\.toml, line 3: place 'P': initial token: colour easy_pass_on_nodes cannot tell whether 1 "
     r"is one of its tokens: TypeError: easy_pass_on_nodes\(\) missing 3 required"),
    ("[places.P]\ntimed = \"yes\"", r"^bad\.toml, line 2: place 'P': timed must be true or "
                                    r"false, not a string \('yes'\)$"),
    ("[places.P]\nport = \"sideways\"", r"place 'P': port must be one of in, out, inout"),
    ("[places.P]\ncolor = \"int\"", r"^bad\.toml, line 2: place 'P': unknown key 'color' "
                                    r"\(expected colour, initial, timed, fusion, port\)$"),
    ("[places.\"A/B\"]", r"place 'A/B': net 'bad': invalid node name 'A/B'"),
    ("[transitions.T]\npriority = true",
     r"^bad\.toml, line 2: transition 'T': priority must be an integer, not a boolean"),
    ("[transitions.T]\nguard = \"x >\"",
     r"^bad\.toml, line 2: transition 'T': guard: 'x >' is not a Python expression"),
    ("[places.P]\n[transitions.T]\ninputs = { P = \"x\" }\noutputs = { Q = \"x\" }",
     r"^bad\.toml, line 4: arc T -> Q in 'bad': no place or transition named 'Q'$"),
    ("[places.P]\ncolour = \"int\"\n[transitions.T]\nguard = \"z < 1\"\ninputs = { P = \"x\" }",
     r"^bad\.toml, line 4: transition 'T', guard 'z < 1': unknown variable 'z'"),
    ("[places.P]\ncolour = \"int\"\n[transitions.T]\ninputs = { P = \"x\" }\n"
     "outputs = { P = \"y\" }",
     r"^bad\.toml, line 5: transition 'T', arc T -> P: variable 'y' in 'y' is never bound"),
    ("[substitutions.S]\nmodule = \"M\"",
     r"^bad\.toml, line 2: substitution 'S': no module 'M' in \[modules\] \(there: none\)$"),
    ("[substitutions.S]\nmodule = \"M\"\n[modules.M.substitutions.S]\nmodule = \"M\"",
     r"substitution 'S' of module 'M': module 'M' contains itself"),
    ("[colours.Job]\nid = \"int\"\n[places.P]\ncolour = \"Job\"",
     r"^bad\.toml, line 1: colour 'Job': the registry's 'Job' has fields \['id', 'st', "),
    ("[constants]\nwhen = 1979-05-27", r"constant 'when': datetime\.date\(1979, 5, 27\) is a "
                                       r"date: tokens and constants are numbers"),
    ("[functions]\nhelper = \"missing\"",
     r"^bad\.toml, line 2: function 'helper': name 'missing' is not defined \(the registry "
     r"names: easy_pass_on_nodes, checked_answer, requeue, Job, "),
    ("[functions]\nhelper = \"PowerCap(cap_watts=-1.0)\"",
     r"function 'helper': evaluating 'PowerCap\(cap_watts=-1\.0\)' failed: ValueError: the "
     r"power cap must be positive watts, not -1\.0$"),
])
def test_a_broken_file_gets_one_line_naming_file_line_and_node(text, message):
    with pytest.raises(NetFileError, match=message) as caught:
        loads(text, FUNCTIONS, source="bad.toml")
    assert "\n" not in str(caught.value)


def test_a_missing_or_binary_file_is_named(tmp_path):
    with pytest.raises(NetFileError, match=r"nothing\.toml: cannot read it: No such file"):
        load(tmp_path / "nothing.toml")
    (tmp_path / "binary.toml").write_bytes(b"name = \"\xff\"")
    with pytest.raises(NetFileError, match=r"binary\.toml: not UTF-8 text \(byte 8\)"):
        load(tmp_path / "binary.toml")


# -- what saving refuses -------------------------------------------------------------------
def halve(x):
    return x / 2


@pytest.mark.parametrize("build, message", [
    (lambda net: net.env.update(f=lambda x: x), r"env 'f'\: a lambda has no name to write"),
    (lambda net: net.env.update(f=halve), r"net 'small', 'f': halve is not in the registry"),
    (lambda net: net.set_guard("T", "x > 0 and all(y for y in (x,))"),
     r"transition 'T', guard: a generator expression in .* is refused.*keep this net in "
     r"Python"),
    (lambda net: net.set_initial("P", [1, None]), None),
    (lambda net: net.place("L", Fraction, initial=[Fraction(1, 2)]),
     r"its colour 'Fraction' is not in the registry"),
])
def test_saving_refuses_what_would_not_read_back_the_same(build, message):
    net = loads(small_file())
    if message is None:  # None is not an int: the net itself is refused first
        with pytest.raises(cpn.ColourError):
            build(net)
        return
    build(net)
    with pytest.raises(NetFileError, match=message.replace("env 'f'", "'f'")):
        dumps(net)



class Halver:
    def halve(self, x):
        return x / 2


def test_saving_says_why_an_instance_of_a_plain_class_cannot_be_written():
    # it said "<Halver object at 0x...> is not in the registry", its class being there
    net = loads(small_file())
    net.env.update(f=Halver().halve)
    with pytest.raises(NetFileError, match=r"'f': <.*Halver object at .*> is an instance of "
                                           r"Halver, which is neither a dataclass nor a named "
                                           r"tuple, so its fields cannot be written: make "
                                           r"Halver a frozen dataclass"):
        dumps(net, {"Halver": Halver})

def test_saving_names_a_registry_type_a_colour_needs():
    from modules.power_capping import AllocationRules
    net = build_net(PuppetConfig(4, cap=PowerCap.wait(500.0)))
    registry = {k: v for k, v in FUNCTIONS.items() if v is not AllocationRules}
    with pytest.raises(NetFileError, match=r"^\[definitions\], 'allocation_rules': AllocationRules\(power=PowerModel\(node_watts="
                                           r".* is an instance of AllocationRules, which the registry does not name: add "
                                           r"'AllocationRules' to it"):
        dumps(net, registry)
    registry = {k: v for k, v in FUNCTIONS.items() if v is not Job}
    with pytest.raises(NetFileError, match=r"record Job has methods \(estimate, entered, killed_at_limit\) "
                                           r"a named tuple read back would lack: add 'Job' "
                                           r"to the registry"):
        dumps(net, registry)


# -- the command line ------------------------------------------------------------------------
def test_cpn_step_reads_a_data_file_with_a_registry(capsys, tmp_path):
    from cli.step import main_step
    script = tmp_path / "script"
    script.write_text("quit\n")
    demo = str(ROOT / "examples" / "puppet_demo.toml")
    assert main_step(["step", demo, "--functions", "nets.puppet", "--script",
                      str(script)]) == 0
    assert "Scheduler/Submit" in capsys.readouterr().out
    assert main_step(["step", demo, "--script", str(script)]) == 2
    out = " ".join(capsys.readouterr().err.split())
    assert re.search(r"puppet_demo\.toml, line \d+: definition 'power_cap': name 'PowerCap' "
                     r"is not defined \(the registry names: nothing\) \(a net naming "
                     r"functions needs --functions MODULE, e.g. --functions nets.puppet\)", out)
    assert main_step(["step", demo, "--functions", "nets.demo"]) == 2
    assert "--functions nets.demo: the module has no FUNCTIONS dict" in \
        " ".join(capsys.readouterr().err.split())


# -- fuzzing -------------------------------------------------------------------------------------
FUZZ = settings(max_examples=int(os.environ.get("CPN_FUZZ_EXAMPLES", 150)), deadline=None,
                suppress_health_check=[HealthCheck.too_slow])
NAMES = st.sampled_from(["name", "format", "places", "transitions", "modules", "colours",
                         "constants", "functions", "definitions", "substitutions", "P", "T",
                         "Q", "colour", "initial", "timed", "guard", "inputs", "outputs",
                         "module", "sockets", "code", "delay", "priority", "port", "fusion",
                         "x", "__class__", "Job"])
TEXTS = st.one_of(st.text(max_size=30), st.sampled_from([t for t, _ in HOSTILE]),
                  st.sampled_from(["x", "x + 1", "int", "Job", "any", "in", "1`x@+2", "()"]))
VALUES = st.recursive(
    st.one_of(st.integers(-5, 5), st.floats(allow_nan=True), st.booleans(), TEXTS),
    lambda inner: st.one_of(st.lists(inner, max_size=4),
                            st.dictionaries(NAMES, inner, max_size=5)),
    max_leaves=25)


def survives(text: str) -> None:
    """Loading gives a net or one clear NetFileError line, nothing else."""
    try:
        loads(text, FUNCTIONS, source="fuzz.toml")
    except NetFileError as error:
        assert str(error).startswith("fuzz.toml") and "\n" not in str(error)


@FUZZ
@given(st.dictionaries(NAMES, VALUES, max_size=6))
def test_random_documents_load_or_fail_clearly(document):
    import tomli_w
    try:
        text = tomli_w.dumps(document)
    except (TypeError, ValueError):
        return
    survives(text)


PUPPET_TEXT = dumps(build_net(PuppetConfig(4, cap=PowerCap.wait(500.0))), FUNCTIONS)
STRINGS = list(re.finditer(r'"((?:[^"\\\n]|\\.)*)"', PUPPET_TEXT))


@FUZZ
@given(st.lists(st.tuples(st.integers(0, len(STRINGS) - 1), TEXTS), min_size=1, max_size=3))
def test_the_puppet_file_with_strings_replaced_loads_or_fails_clearly(replacements):
    text = PUPPET_TEXT
    for position, new in sorted(replacements, key=lambda r: -STRINGS[r[0]].start()):
        match = STRINGS[position]
        quoted = new.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
        text = text[:match.start(1)] + quoted + text[match.end(1):]
    survives(text)


@FUZZ
@given(st.binary(max_size=200))
def test_random_bytes_fail_clearly(data):
    survives(data.decode("utf-8", errors="replace"))


def test_a_deeply_nested_file_fails_clearly():
    survives("x = " + "[" * 5000 + "]" * 5000)
    survives("[constants]\nx = " + "[" * 400 + "]" * 400)


def test_loading_leaves_the_registry_as_it_was():
    before = dict(FUNCTIONS)
    loads(PUPPET_TEXT, FUNCTIONS)
    assert FUNCTIONS == before


def test_pnml_files_are_held_to_the_same_language():
    from cpn.pnml import PnmlError, from_pnml
    from cpn.snakes_bridge import to_pnml
    net = Net("n")
    net.place("P", int, initial=[1])
    net.transition("T", guard="x > 0")
    net.arc("P", "T", "x")
    text = to_pnml(net).replace("x &gt; 0", "(lambda: x &gt; 0)()")
    with pytest.raises(PnmlError, match=r"<transition id='T'>: a lambda in '\(lambda: x > 0\)"
                                        r"\(\)' reaches outside the net \(a net read from a "
                                        r"file defines no functions"):
        from_pnml(text)
    # The exporter refuses up front what the reader would refuse.
    net.transitions["T"].guard = "(lambda: x > 0)()"
    with pytest.raises(NetError, match=r"^transition 'T', guard: a lambda in '\(lambda: x > 0"
                                       r"\)\(\)' would not read back from PNML"):
        to_pnml(net)
