"""Drawing nets: the DOT text always, rendered SVG/PNG when Graphviz's
``dot`` program is installed (the rendering tests skip without it)."""

from __future__ import annotations

import re
import shutil

import pytest

from cpn import P_HIGH, Net, NetError, Simulator
from cpn.drawing import draw, place_paths, render, to_graphviz

needs_dot = pytest.mark.skipif(shutil.which("dot") is None,
                               reason="Graphviz's dot program is not installed "
                                      "(apt-get install graphviz)")


def shop() -> Net:
    """A top net whose substitution transition Counter instantiates a
    Server module (ports In/Out on the sockets Queue/Done)."""
    server = Net("Server")
    server.place("In", int, port="in")
    server.place("Out", int, port="out", timed=True)
    server.place("Busy", int, timed=True)
    server.transition("Start", guard="job > 0", priority=P_HIGH)
    server.transition("Finish", delay="2")
    server.arc("In", "Start", "job")
    server.arc("Start", "Busy", "job@+job * 3")
    server.arc("Busy", "Finish", "job")
    server.arc("Finish", "Out", "job")

    top = Net("Shop")
    top.place("Queue", int, initial=[1, 2, 3])
    top.place("Done", int, timed=True)
    top.place("Archive", int)
    top.substitution("Counter", server, {"In": "Queue", "Out": "Done"})
    top.transition("Store")
    top.arc("Done", "Store", "x")
    top.arc("Store", "Archive", "x * 10")
    return top


def texts(svg: str) -> list[str]:
    """The text elements of an SVG, unescaped."""
    found = re.findall(r"<text[^>]*>([^<]*)</text>", svg)
    return [t.replace("&#45;", "-").replace("&lt;", "<").replace("&gt;", ">")
            .replace("&amp;", "&").replace("&#39;", "'") for t in found]


def test_dot_source_shows_structure_without_graphviz_installed():
    source = to_graphviz(shop()).source
    assert "rankdir=LR" in source
    # The substitution transition is double-bordered; its module is named.
    counter = next(line for line in source.splitlines() if "Counter" in line)
    assert "peripheries=2" in counter and "module Server" in counter
    # Socket arcs follow the port directions: Queue -> Counter -> Done.
    assert re.search(r"p0 -> s0 .*In", source) and re.search(r"s0 -> p1 .*Out", source)
    assert "x * 10" in source


def test_module_view_and_port_markings():
    net = shop()
    sim = Simulator(net)
    sim.fire(next(b for b in sim.enabled() if b.values["job"] == 2))
    source = to_graphviz(net, sim, module="Counter").source
    # Port In is the socket Queue: it shows Queue's two remaining tokens.
    in_line = next(line for line in source.splitlines() if ">In<" in line)
    assert "port In" in in_line and "2 tokens" in in_line
    assert "priority P_HIGH" in source and "[job &gt; 0]" in source
    assert "@+2" in source and "job@+job * 3" in source
    with pytest.raises(NetError, match="no substitution transition 'Nope'"):
        to_graphviz(net, module="Nope")


def test_place_paths_follow_sockets_and_fusion():
    net = shop()
    net.place("LogA", int, fusion="log")
    net.substitutions["Counter"].module.place("LogB", int, fusion="log")
    paths = place_paths(net)
    assert paths["Counter/In"] == "Queue"
    assert paths["Counter/Busy"] == "Counter/Busy"
    assert paths["Counter/LogB"] == paths["LogA"] == "log"
    flat = {p.path for p in net.flatten().places}
    assert set(paths.values()) == flat


@needs_dot
def test_svg_of_hierarchical_net_has_every_name_and_count(tmp_path):
    net = shop()
    sim = Simulator(net)
    sim.fire(next(b for b in sim.enabled() if b.values["job"] == 2))
    top = texts(draw(net, tmp_path / "top.svg", marking=sim).read_text())
    for name in ["Queue", "Done", "Archive", "Counter", "Store"]:
        assert name in top
    assert "module Server" in top
    assert "2 tokens" in top  # Queue
    assert top.count("0 tokens") == 2  # Done, Archive

    module = texts(draw(net, tmp_path / "counter.svg", marking=sim,
                        module="Counter").read_text())
    for name in ["In", "Out", "Busy", "Start", "Finish"]:
        assert name in module
    assert "1 token" in module  # Busy holds job 2
    assert "1`2@6" in module  # ... available at time 6

    flat = texts(draw(sim, tmp_path / "flat.svg").read_text())
    for name in ["Queue", "Done", "Archive", "Counter/Busy", "Counter/Start",
                 "Counter/Finish", "Store"]:
        assert name in flat
    assert "Counter" not in flat  # no substitution transition in the flat net


@needs_dot
def test_png_is_written(tmp_path):
    path = draw(shop(), tmp_path / "sub" / "shop.png")
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


# -- notebook display ----------------------------------------------------------
def test_net_text_names_its_nodes_and_counts():
    text = repr(shop())
    assert text.splitlines() == [
        "Net 'Shop': 3 places, 1 transition, 2 arcs, 1 substitution transition",
        "  places       Queue: int (3 tokens), Done: int timed, Archive: int",
        "  transitions  Store",
        "  modules      Counter: Server",
    ]
    many = Net("many")
    for k in range(10):
        many.place(f"P{k}", initial=[k] if k == 0 else [])
    many.transition("T", guard="x > 1")
    assert repr(many).splitlines()[1:] == [
        "  places       P0: any (1 token), P1: any, P2: any, P3: any, P4: any, P5: any, "
        "P6: any, P7: any, … (2 more)",
        "  transitions  T [x > 1]",
    ]


@needs_dot
def test_net_draws_itself_in_a_notebook():
    svg = shop()._repr_html_()
    assert svg.startswith("<svg")  # inline, as a Simulator's: it scales to the cell
    shown = texts(svg)
    for name in ["Queue", "Done", "Archive", "Counter", "Store", "module Server"]:
        assert name in shown


def test_without_graphviz_a_notebook_falls_back_to_text(monkeypatch):
    monkeypatch.setenv("PATH", "")  # no dot to be found
    assert shop()._repr_html_() is None


def test_simulator_shows_clock_and_non_empty_places():
    net = shop()
    net.place("Many", int, initial=range(20))
    sim = Simulator(net)
    sim.fire(next(b for b in sim.enabled() if b.values["job"] == 2))
    text = repr(sim)
    assert text.splitlines() == [
        "Simulator of net 'Shop': 1 firing",
        "time 0",
        "  Queue             2  1`1 ++ 1`3",
        "  Many             20  1`0 ++ 1`1 ++ 1`2 ++ 1`3 ++ 1`4 ++ 1`5 ++ … (14 more)",
        "  Counter/Busy      1  1`2@6",
    ]
    html = sim._repr_html_()
    assert "<caption>marking at time 0</caption>" in html
    assert html.startswith("<p>Simulator of net &#x27;Shop&#x27;: 1 firing</p>")
    rows = re.findall(r"<tr><td>([^<]*)</td><td[^>]*>(\d+)</td><td><code>([^<]*)</code>",
                      html)
    assert rows == [("Queue", "2", "1`1 ++ 1`3"),
                    ("Many", "20", "1`0 ++ 1`1 ++ 1`2 ++ 1`3 ++ 1`4 ++ 1`5 ++ … (14 more)"),
                    ("Counter/Busy", "1", "1`2@6")]
    sim.run()  # every job archived: Queue and Busy are empty now, so not shown
    assert repr(sim).splitlines() == [
        "Simulator of net 'Shop': 9 firings",
        "time 11",
        "  Archive      3  1`10 ++ 1`20 ++ 1`30",
        "  Many        20  1`0 ++ 1`1 ++ 1`2 ++ 1`3 ++ 1`4 ++ 1`5 ++ … (14 more)",
    ]


@needs_dot
def test_svg_nodes_are_named_by_path_for_a_page_to_click():
    sim = Simulator(shop())
    svg = render(to_graphviz(shop(), sim)).decode()
    ids = re.findall(r'<g id="([a-z]+:[^"]+)" class="node"', svg)
    assert sorted(ids) == ["module:Counter", "place:Archive", "place:Done", "place:Queue",
                           "transition:Store"]
    assert 'xlink:title="Queue: 1`1 ++ 1`2 ++ 1`3"' in svg
    inside = render(to_graphviz(shop(), sim, module="Counter")).decode()
    ids = re.findall(r'<g id="([a-z]+:[^"]+)" class="node"', inside)
    # A port place is its socket: Counter/In is the flat place Queue.
    assert sorted(ids) == ["place:Counter/Busy", "place:Done", "place:Queue",
                           "transition:Counter/Finish", "transition:Counter/Start"]


@needs_dot
def test_simulator_in_a_notebook_draws_its_top_level_with_the_marking():
    sim = Simulator(shop())
    shown = sim._repr_html_()
    svg = shown[shown.index("<svg"):shown.index("</svg>")]
    assert 'id="module:Counter"' in svg and "Shop &#160;(marking at time 0)" in texts(svg)
    assert "3 tokens" in texts(svg)
    assert shown.endswith(sim._occupied()._repr_html_())


def test_simulator_in_a_notebook_without_graphviz_is_its_table(monkeypatch):
    monkeypatch.setenv("PATH", "")
    sim = Simulator(shop())
    assert sim._repr_html_() == ("<p>Simulator of net &#x27;Shop&#x27;: 0 firings</p>"
                                 + sim._occupied()._repr_html_())


def test_a_module_that_contains_itself_is_refused_as_the_simulator_refuses_it():
    # Drawing walked the modules without flattening them, into a RecursionError.
    module = Net("M")
    module.place("P", int, port="inout")
    module.substitution("Again", module, {"P": "P"})
    top = Net("top")
    top.place("A", int)
    top.substitution("S", module, {"P": "A"})
    with pytest.raises(NetError, match="substitution 'S/Again' of module 'M': module 'M' "
                                       "contains itself"):
        place_paths(top)
