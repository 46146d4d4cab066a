"""Drawing a net with Graphviz, optionally with a current marking.

A hierarchical net is drawn one module at a time, as CPN Tools shows it:
the top net (``module=None``) or the module instantiated at a substitution
path (``module="Scheduler"``, ``module="Scheduler/Backfill"``), its
substitution transitions as double-bordered boxes joined to their socket
places.  ``flat=True`` draws the flattened net the simulator runs instead,
every node named by its path.

Places are ellipses with their name, colour set and, given a marking, the
token count (in green) and the first tokens; transitions are boxes with
their guard, ``@+`` delay and priority when not the default, highlighted
when a binding of theirs is enabled (given a :class:`~cpn.Simulator`).
Arcs carry their inscriptions, wrapped.  The layout runs left to right.
In SVG, each node's element has an ``id`` naming what it is
(``place:Scheduler/Queue``, ``transition:Scheduler/Start`` by flat path,
``module:Scheduler`` for a substitution transition), so a page can make
the drawing clickable, and a marked place's tooltip lists its tokens.

>>> from cpn import Net
>>> net = Net("loop")
>>> _ = net.place("P", int, initial=[0])
>>> _ = net.transition("Inc", guard="x < 3")
>>> net.arc("P", "Inc", "x"); net.arc("Inc", "P", "x + 1")
>>> dot = to_graphviz(net)          # a graphviz.Digraph; shown inline in Jupyter
>>> "x + 1" in dot.source
True

``draw(net, "net.svg", marking=sim)`` writes a file (SVG, PNG, PDF, by the
suffix); it needs Graphviz's ``dot`` program (``apt-get install graphviz``),
``to_graphviz`` does not.
"""

from __future__ import annotations

import html
import textwrap
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import graphviz

from .errors import NetError
from .flatten import FlatNet
from .marking import Marking
from .net import P_HIGH, P_LOW, P_NORMAL, Net, Place
from .simulator import Simulator
from .times import time_text

FONT = "Helvetica"
WRAP = 30  # characters per line of an inscription, guard or delay
TOOLTIP = 20  # distinct tokens listed in a place's tooltip

_PORT_TAGS = {"in": "In", "out": "Out", "inout": "I/O"}
_PRIORITY_NAMES = {P_HIGH: "P_HIGH", P_LOW: "P_LOW"}


class DrawingError(RuntimeError):
    """Graphviz could not render (its ``dot`` program is missing, say)."""


# -- the marking ---------------------------------------------------------------
class _Tokens:
    """Token counts, a short preview and a longer tooltip, by flat place path."""

    def __init__(self, marking: Simulator | Marking | Mapping | None):
        self.counts: dict[str, int] = {}
        self.previews: dict[str, str] = {}
        self.tooltips: dict[str, str] = {}
        self.enabled: set[str] = set()
        self.time: float | None = None
        if marking is None:
            return
        if isinstance(marking, Simulator):
            self.enabled = {b.transition for b in marking.enabled()}
            marking = marking.marking
        if isinstance(marking, Marking):
            self.time = marking.time
            for path in marking:
                tokens = marking.timed(path)
                self.counts[path] = len(tokens)
                self.previews[path] = Marking.format_tokens(tokens, limit=3)
                self.tooltips[path] = Marking.format_tokens(tokens, limit=TOOLTIP)
            return
        for path, tokens in marking.items():
            if isinstance(tokens, int):
                self.counts[path] = tokens
            else:
                tokens = list(tokens)
                self.counts[path] = len(tokens)
                untimed = [(t, None) for t in tokens]
                self.previews[path] = Marking.format_tokens(untimed, limit=3)
                self.tooltips[path] = Marking.format_tokens(untimed, limit=TOOLTIP)

    @property
    def given(self) -> bool:
        return bool(self.counts)

    def place_attributes(self, path: str) -> dict[str, str]:
        """The SVG id of the place at flat ``path`` and, when it holds
        tokens, a tooltip listing them."""
        attributes = {"id": f"place:{path}"}
        if self.tooltips.get(path):
            attributes["tooltip"] = f"{path}: {self.tooltips[path]}"
        return attributes


# -- labels --------------------------------------------------------------------
def _lines(text: str, width: int) -> str:
    """HTML-escaped text wrapped to ``width`` characters a line."""
    wrapped = textwrap.wrap(str(text), width, break_long_words=True,
                            break_on_hyphens=False) or [""]
    return "<BR/>".join(html.escape(line) for line in wrapped)


def _small(text: str, colour: str = "#555555", size: int = 9) -> str:
    return f'<FONT POINT-SIZE="{size}" COLOR="{colour}">{text}</FONT>'


def _place_label(name: str, place: Place, path: str, tokens: _Tokens, wrap: int,
                 tags: bool) -> str:
    rows = [f"<B>{_lines(name, wrap)}</B>"]
    kind = place.colour_name + (" timed" if place.timed else "")
    rows.append(_small(html.escape(kind)))
    if tags and place.port is not None:
        rows.append(_small(f"port {_PORT_TAGS[place.port]}", "#1f4e9c"))
    if place.fusion is not None:
        rows.append(_small(f"fusion {html.escape(place.fusion)}", "#7a3e9d"))
    if tokens.given:
        count = tokens.counts.get(path, 0)
        rows.append(f'<FONT COLOR="#137333"><B>{count} token{"" if count == 1 else "s"}'
                    "</B></FONT>")
        preview = tokens.previews.get(path)
        if count and preview:
            rows.append(_small(_lines(preview, wrap), "#137333", 8))
    return "<" + "<BR/>".join(rows) + ">"


def _transition_label(name: str, guard: str | None, delay: str | None, priority: int,
                      code: str | None, wrap: int) -> str:
    rows = [f"<B>{_lines(name, wrap)}</B>"]
    if guard:
        rows.append(_small(_lines(f"[{guard}]", wrap), "#8a4b00"))
    if delay:
        rows.append(_small(_lines(f"@+{delay}", wrap), "#1f4e9c"))
    if priority != P_NORMAL:
        rows.append(_small(f"priority {_PRIORITY_NAMES.get(priority, priority)}",
                           "#a3141b"))
    if code:
        first = code.strip().splitlines()[0]
        more = " …" if len(code.strip().splitlines()) > 1 else ""
        rows.append(_small(_lines(f"code: {first}{more}", wrap), "#555555", 8))
    return "<" + "<BR/>".join(rows) + ">"


def _arc_label(text: str, wrap: int) -> str:
    return "<" + _lines(text, wrap) + ">"


# -- graphs --------------------------------------------------------------------
def _new_graph(title: str) -> graphviz.Digraph:
    graph = graphviz.Digraph(title)
    graph.attr(rankdir="LR", fontname=FONT, fontsize="12", labelloc="t",
               labeljust="l", nodesep="0.35", ranksep="0.55", pad="0.2",
               label=title)
    graph.attr("node", fontname=FONT, fontsize="11", margin="0.10,0.05")
    graph.attr("edge", fontname=FONT, fontsize="9", arrowsize="0.7", color="#333333")
    return graph


def _place_style(count_known: bool, count: int, port: bool) -> dict[str, str]:
    fill = "#e8f5e9" if count_known and count else "#ffffff"
    if port:
        fill = "#e3edf9" if not (count_known and count) else "#dcefe0"
    return {"shape": "ellipse", "style": "filled", "fillcolor": fill}


def _transition_style(enabled: bool, substitution: bool = False) -> dict[str, str]:
    style = {"shape": "box", "style": "filled",
             "fillcolor": "#c8f7c5" if enabled else "#f4f4f4",
             "color": "#137333" if enabled else "#000000",
             "penwidth": "2" if enabled else "1"}
    if substitution:
        style.update(peripheries="2", fillcolor="#fff4d6")
    return style


def _title(name: str, tokens: _Tokens) -> str:
    if tokens.time is not None:
        return f"{name}  (marking at time {time_text(tokens.time)})"
    return name


def _flat_graph(flat: FlatNet, tokens: _Tokens, wrap: int) -> graphviz.Digraph:
    graph = _new_graph(_title(f"{flat.name} (flat)", tokens))
    for place in flat.places:
        graph.node(f"p{place.index}",
                   _place_label(place.path, place.place, place.path, tokens, wrap,
                                tags=False),
                   **_place_style(tokens.given, tokens.counts.get(place.path, 0), False),
                   **tokens.place_attributes(place.path))
    for t in flat.transitions:
        graph.node(f"t{t.index}",
                   _transition_label(t.path, t.guard, t.delay, t.priority, t.code, wrap),
                   id=f"transition:{t.path}", **_transition_style(t.path in tokens.enabled))
        for place, text in t.inputs:
            graph.edge(f"p{place}", f"t{t.index}", label=_arc_label(text, wrap))
        for place, text in t.outputs:
            graph.edge(f"t{t.index}", f"p{place}", label=_arc_label(text, wrap))
    return graph


def place_paths(net: Net) -> dict[str, str]:
    """Each place of each module instance (``instance path/name``, port
    places included) -> the flat place it becomes: its socket for a port,
    the fusion set for a fused place.  Mirrors ``flatten.py``."""
    result: dict[str, str] = {}
    expanding: list[Net] = []

    def expand(module: Net, prefix: str, sockets: dict[str, str]) -> None:
        if any(module is outer for outer in expanding):  # as flatten.py refuses it
            raise NetError(f"substitution '{prefix.rstrip('/')}' of "
                           f"{'module' if len(expanding) > 1 else 'net'} "
                           f"'{expanding[-1].name}': module '{module.name}' contains itself")
        expanding.append(module)
        local: dict[str, str] = {}
        for name, place in module.places.items():
            if prefix and place.port is not None:
                local[name] = sockets.get(name, prefix + name)
            elif place.fusion is not None:
                local[name] = place.fusion
            else:
                local[name] = prefix + name
            result[prefix + name] = local[name]
        for sub in module.substitutions.values():
            expand(sub.module, prefix + sub.name + "/",
                   {port: local.get(socket, socket) for port, socket in sub.sockets})
        expanding.pop()

    expand(net, "", {})
    return result


def _find_module(net: Net, module: str | None) -> tuple[Net, str]:
    """The module instantiated at substitution path ``module`` and the
    prefix of its nodes' flat paths."""
    if not module:
        return net, ""
    current, walked = net, []
    for part in module.strip("/").split("/"):
        if part not in current.substitutions:
            known = ", ".join(current.substitutions) or "none"
            where = "/".join(walked) or f"net '{net.name}'"
            raise NetError(f"no substitution transition '{part}' in {where} "
                           f"(substitution transitions there: {known})")
        current = current.substitutions[part].module
        walked.append(part)
    return current, "/".join(walked) + "/"


def _module_graph(net: Net, module: str | None, tokens: _Tokens,
                  wrap: int) -> graphviz.Digraph:
    shown, prefix = _find_module(net, module)
    paths = place_paths(net)
    title = net.name if not prefix else f"{net.name} / {prefix.rstrip('/')} " \
                                        f"(module {shown.name})"
    graph = _new_graph(_title(title, tokens))
    ids: dict[str, str] = {}
    for k, (name, place) in enumerate(shown.places.items()):
        ids[name] = f"p{k}"
        path = paths.get(prefix + name, prefix + name)
        count = tokens.counts.get(path, 0)
        graph.node(ids[name], _place_label(name, place, path, tokens, wrap, tags=True),
                   **_place_style(tokens.given, count, place.port is not None),
                   **tokens.place_attributes(path))
    for k, (name, t) in enumerate(shown.transitions.items()):
        ids[name] = f"t{k}"
        graph.node(ids[name],
                   _transition_label(name, t.guard, t.delay, t.priority, t.code, wrap),
                   id=f"transition:{prefix}{name}",
                   **_transition_style(prefix + name in tokens.enabled))
    for k, (name, sub) in enumerate(shown.substitutions.items()):
        ids[name] = f"s{k}"
        inside = prefix + name + "/"
        active = any(path.startswith(inside) for path in tokens.enabled)
        label = f"<<B>{_lines(name, wrap)}</B><BR/>" \
                f"{_small('module ' + html.escape(sub.module.name))}>"
        graph.node(ids[name], label, id=f"module:{prefix}{name}",
                   **_transition_style(active, substitution=True))
        pairs = sub.sockets.items() if isinstance(sub.sockets, dict) else sub.sockets
        for port, socket in pairs:
            port_place = sub.module.places.get(port)
            kind = port_place.port if port_place is not None else "inout"
            attributes = {"style": "dashed", "color": "#555555"}
            if port != socket:
                attributes["label"] = f"<{_small(html.escape(port), size=8)}>"
            if kind == "in":
                graph.edge(ids.get(socket, socket), ids[name], **attributes)
            elif kind == "out":
                graph.edge(ids[name], ids.get(socket, socket), **attributes)
            else:
                graph.edge(ids.get(socket, socket), ids[name], dir="both", **attributes)
    for arc in shown.arcs:
        if arc.source in ids and arc.target in ids:
            graph.edge(ids[arc.source], ids[arc.target],
                       label=_arc_label(arc.inscription, wrap))
    return graph


# -- entry points --------------------------------------------------------------
def to_graphviz(net: Net | FlatNet | Simulator,
                marking: Simulator | Marking | Mapping[str, Any] | None = None, *,
                module: str | None = None, flat: bool = False,
                wrap: int = WRAP) -> graphviz.Digraph:
    """A ``graphviz.Digraph`` of ``net``: its top level, the module at the
    substitution path ``module``, or the flat net (``flat=True``, and
    always for a :class:`FlatNet` or a :class:`Simulator`).

    ``marking`` (a simulator, a :class:`Marking`, or a mapping from flat
    place paths to tokens or counts) adds token counts; a simulator also
    highlights the transitions with an enabled binding.  Passing a
    simulator as ``net`` draws its flat net with its marking.
    """
    if isinstance(net, Simulator):
        marking = net if marking is None else marking
        net = net.net
    tokens = _Tokens(marking)
    if isinstance(net, FlatNet):
        if module:
            raise NetError("a flat net has no modules; draw the hierarchical Net")
        return _flat_graph(net, tokens, wrap)
    if flat:
        if module:
            raise NetError("give either module= or flat=True, not both")
        return _flat_graph(net.flatten(), tokens, wrap)
    return _module_graph(net, module, tokens, wrap)


def draw(net: Net | FlatNet | Simulator, path: str | Path,
         marking: Simulator | Marking | Mapping[str, Any] | None = None, *,
         module: str | None = None, flat: bool = False, wrap: int = WRAP,
         format: str | None = None, dpi: int = 110) -> Path:
    """Render :func:`to_graphviz` to ``path``; the format is ``format`` or
    the file's suffix (``svg``, ``png``, ``pdf``, ...).  Returns the path."""
    path = Path(path)
    fmt = (format or path.suffix.lstrip(".") or "svg").lower()
    graph = to_graphviz(net, marking, module=module, flat=flat, wrap=wrap)
    if fmt in ("png", "jpg", "jpeg", "gif", "bmp"):
        graph.attr(dpi=str(dpi))
    data = render(graph, fmt)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return path


def render(graph: graphviz.Digraph, fmt: str = "svg") -> bytes:
    """The bytes of ``graph`` rendered by Graphviz in format ``fmt``."""
    try:
        return graph.pipe(format=fmt)
    except graphviz.ExecutableNotFound:
        raise DrawingError("Graphviz's 'dot' program is not installed (Debian/Ubuntu: "
                           "apt-get install graphviz; macOS: brew install graphviz); "
                           "to_graphviz(...).source gives the DOT text without "
                           "it") from None
    except graphviz.CalledProcessError as error:
        raise DrawingError(f"Graphviz failed: {error.stderr!r}") from None
