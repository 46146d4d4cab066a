"""Reading PNML back into a :class:`~cpn.Net`: what
:func:`cpn.snakes_bridge.to_pnml` writes, SNAKES' untimed view of a net
with the engine's own data beside it (``cpn.pnml_engine``).

Why not ``snakes.pnml.loads``: it fails on Python 3.12 and later (it lists
SNAKES' modules with ``pkgutil.ImpImporter``, which 3.12 removed), and it
rebuilds whatever a file names, unpickling data and importing modules, so
opening a file can run any code.  This reader builds plain values only
(``cpn.pnml_xml``, which also refuses every DTD) and inscription text; the
functions a net calls come from ``env=``, given by the caller, never from
the file.

What comes back is the flat net that was exported: places named by their
paths (``Module/Place``), timed or not, with their colour sets and initial
tokens; transitions with their guards, delays, priorities and code
segments; one arc per place and transition (parallel arcs were joined
into one multiset).  Colours are written as the net data files write
them (``int | None``, ``tuple[Job, ...]``, ``cpn.colour_text``), and
initial tokens holding records as the terms that build them
(``Job(id=1, js=4)``): the types they name, like functions, come from
``env``.  Where a node carries the engine's data (``<toolspecific
tool="cpn">``), that data gives its colour, its tokens (in order, with
their timestamps), its delay, priority and code segment, or its
inscription as written; elsewhere SNAKES' view does, so a file without
that data (SNAKES' own, or one written before colours were) reads as an
untimed net of untyped places.  The globals written for SNAKES alone
(:data:`SNAKES_ONLY_GLOBALS`) are skipped, never built.

Inscriptions, delays and code segments are Python, run when the net is
simulated, so they must keep to the expression language of nets read from
files (``cpn.expressions``, shared with the data files of ``cpn.netfile``):
text that reaches outside the net (a name starting with ``_``, a dunder
attribute, a builtin such as ``eval``, ``open`` or ``getattr``, a lambda,
a statement other than an assignment) is refused here.

>>> from cpn import Net
>>> from cpn.snakes_bridge import to_pnml
>>> net = Net("loop")
>>> _ = net.place("P", int, initial=[0], timed=True)
>>> _ = net.transition("Inc", guard="x < 3", code="y = x + 1")
>>> net.arc("P", "Inc", "x"); net.arc("Inc", "P", "y@+5")
>>> back = from_pnml(to_pnml(net))
>>> back.transitions["Inc"].code, [a.inscription for a in back.arcs], back.places["P"].timed
('y = x + 1', ['x', 'y@+5'], True)
>>> back.places["P"].colour_name
'int'
"""

from __future__ import annotations

import builtins
from collections import Counter
from pathlib import Path
from typing import Any

from .colour_sets import Colour, declared
from .colour_text import SCALARS, ColourSpec, parsed_colour
from .compiler import compile_net
from .errors import ColourError, NetError
from .expressions import (DEFINITION_NAMES, SAFE_BUILTINS, evaluate, literal, refused,
                          text_trees)
from .inscription import CodeSegment, check_expression, free_names, parse_terms
from .net import BUILT_IN_NAMES, P_NORMAL, Arc, Net, Place, Transition
from .pnml_xml import CODE_TYPES, Element, ElementReader, PnmlError, parse

#: The ``<toolspecific>`` elements this engine writes, and the versions it
#: reads: version 2 gives places their ``<colour>``, which a reader of
#: version 1 alone refuses as of a version it does not read, not as an
#: element out of place; a file of version 1 reads untyped.
ENGINE_TOOL, ENGINE_VERSION, READ_VERSIONS = "cpn", "2", ("1", "2")
#: Globals of SNAKES' untimed view: its clock (0) and the helper that strips
#: ``Delayed`` from a ``*iterable``.  A net read back has the engine's clock
#: and needs no helper.
SNAKES_ONLY_GLOBALS = frozenset({"now", "_cpn_untimed_all"})


def read_pnml(path: str | Path, env: dict[str, Any] | None = None) -> Net:
    """The net in the PNML file ``path`` (see :func:`from_pnml`)."""
    return from_pnml(Path(path).read_bytes(), env, source=str(path))


def from_pnml(text: str | bytes, env: dict[str, Any] | None = None,
              source: str = "<pnml>") -> Net:
    """The net in PNML ``text``, as :func:`~cpn.snakes_bridge.to_pnml`
    writes it.  ``env`` gives the functions (and overrides the constants)
    the net's inscriptions use, those of every module of a net that had
    modules; ``source`` names the text in errors."""
    try:
        return _Reader(source, dict(env or {})).net(parse(text, source))
    except RecursionError:
        raise PnmlError(f"{source}: elements nested too deeply") from None


class _Reader(ElementReader):
    def __init__(self, source: str, env: dict[str, Any]):
        super().__init__(source)
        self.env = env

    # -- the net ---------------------------------------------------------------
    def net(self, root: Element) -> Net:
        if root.tag != "pnml":
            raise self.fail(root, "not PNML (the root element is not <pnml>)")
        nets = root.children
        if len(nets) != 1 or nets[0].tag != "net":
            raise self.fail(root, f"expected one <net>, found "
                                  f"{[f'<{c.tag}>' for c in nets] or 'none'}")
        children: dict[str, list[Element]] = {"global": [], "place": [],
                                               "transition": [], "arc": []}
        for child in nets[0].children:
            if child.tag not in children:
                raise self.fail(child, "unsupported element (this reader reads what "
                                       "cpn.snakes_bridge.to_pnml writes)")
            children[child.tag].append(child)
        nodes: dict[str, Element] = {}
        for child in children["place"] + children["transition"]:
            name = self.attribute(child, "id")
            if name in nodes:
                raise self.fail(child, f"a second node with id {name!r} "
                                       f"(the first is on line {nodes[name].line})")
            nodes[name] = child
        constants = {name: value for child in children["global"]
                     for name, value in self.global_(child).items()}
        net = Net(self.attribute(nets[0], "id"), {**constants, **self.env})
        # Flat paths (``Module/Place``) stay the names: a net read back has no
        # substitution transitions whose paths they could clash with.
        for child in children["place"]:
            net.places[child.attributes["id"]] = self.place(child)
        for child in children["transition"]:
            net.transitions[child.attributes["id"]] = self.transition(child)
        arcs = [self.arc(child, net) for child in children["arc"]]
        for transition in net.transitions.values():
            self.check_reach(net, transition, nodes[transition.name], arcs)
        try:
            compile_net(net.flatten())
        except (NetError, ColourError) as error:
            raise PnmlError(f"{self.source}: {error}") from None
        return net

    def global_(self, element: Element) -> dict[str, Any]:
        name = self.attribute(element, "name")
        if name in SNAKES_ONLY_GLOBALS:
            return {}
        if not name.isidentifier() or name.startswith("_"):
            raise self.fail(element, "a global's name must be an identifier not "
                                     "starting with '_'")
        if name in self.env or name in BUILT_IN_NAMES:  # the caller's, or every net's
            return {}
        value = self.only_child(element, "object")
        kind = value.attributes.get("type")
        if kind in CODE_TYPES or kind == "pickle":
            what = ("pickled Python data" if kind == "pickle"
                    else f"a {kind} ({value.attributes.get('name', '?')})")
            raise self.fail(element, f"{what}: a PNML file carries no code; pass it as "
                                     f"from_pnml(..., env={{{name!r}: ...}})")
        return {name: self.value(value, f"global {name!r}")}

    def place(self, element: Element) -> Place:
        name = element.attributes["id"]
        marking, engine = None, self.engine_data(element, ("colour", "timed", "tokens"))
        colour = self.colour(engine["colour"], name) if "colour" in engine else None
        for child in element.children:
            if child.tag == "type":
                if child.attributes.get("domain", "universal") != "universal":
                    raise self.fail(child, "only untyped places (domain='universal') "
                                           "are read")
            elif child.tag == "initialMarking":
                marking = child
            elif child.tag != "toolspecific":
                raise self.fail(child, f"unsupported element in place {name!r}")
        if "tokens" in engine:  # in their order, with their timestamps
            tokens = self.engine_tokens(engine["tokens"], f"place {name!r}")
        else:  # SNAKES' multiset (when the engine's tokens are there, never read)
            tokens = []
            for item in self.only_child(marking, "multiset").children if marking else ():
                tokens += self.tokens(item, f"place {name!r}", len(tokens))
        return Place(name, colour, initial=tokens, timed="timed" in engine)

    def colour(self, element: Element, place: str) -> Colour:
        """A place's colour, as the net data files read one
        (``cpn.colour_text``), its names of types and predicates from
        ``env``."""
        text = element.text.strip()

        def named(name: str) -> ColourSpec:
            if name not in self.env and hasattr(builtins, name):
                raise ValueError(f"colour {text!r}: {name} is no colour (built in: "
                                 f"{', '.join(SCALARS)}, None, any)")
            if name not in self.env:
                raise ValueError(f"colour {text!r} names {name}, which env does not give: "
                                 f"from_pnml(..., env={{{name!r}: {name}}})")
            kind = self.env[name]
            if not (isinstance(kind, type) or callable(kind)):
                raise ValueError(f"colour {text!r} names {name}, which env gives as "
                                 f"{kind!r:.60}, neither a type nor a predicate")
            return ColourSpec(name, kind)

        try:
            return declared(parsed_colour(text, named).colour, f"colour {text!r}")
        except ValueError as error:  # NetError too
            raise self.fail(element, f"place {place!r}: {error}") from None

    def transition(self, element: Element) -> Transition:
        name = element.attributes["id"]
        guard, engine = None, self.engine_data(element, ("delay", "priority", "code"))
        for child in element.children:
            if child.tag == "guard":
                guard = self.expression(self.only_child(child, "expression"))
            elif child.tag != "toolspecific":
                raise self.fail(child, f"unsupported element in transition {name!r}")
        priority = P_NORMAL
        if "priority" in engine:
            text = engine["priority"].text.strip()
            if not text.removeprefix("-").isdigit():
                raise self.fail(engine["priority"], f"{text!r} is not a whole number")
            priority = int(text)
        code = engine["code"].text if "code" in engine else None
        if code is not None:
            try:
                CodeSegment(code).check()
            except SyntaxError as error:
                raise self.fail(engine["code"], f"{code!r} is not a code segment "
                                                f"({error.msg})") from None
        delay = self.expression(engine["delay"]) if "delay" in engine else None
        return Transition(name, guard, delay, priority, code)

    def arc(self, element: Element, net: Net) -> tuple[Element, Arc]:
        source, target = (self.attribute(element, end) for end in ("source", "target"))
        if not ((source in net.places and target in net.transitions)
                or (source in net.transitions and target in net.places)):
            raise self.fail(element, f"an arc must join a place and a transition of the "
                                     f"net ({source!r} -> {target!r})")
        engine = self.engine_data(element, ("inscription",))
        labels = [child for child in element.children if child.tag != "toolspecific"]
        if "inscription" in engine:  # as written (SNAKES' label, then, is not read)
            text = engine["inscription"].text.strip()
        elif len(labels) == 1 and labels[0].tag == "inscription":
            text = self.inscription(self.only_child(labels[0]))
        else:
            raise self.fail(element, "expected one <inscription> inside, found "
                                     f"{[f'<{c.tag}>' for c in labels] or 'none'}")
        try:
            parse_terms(text)
        except SyntaxError as error:
            raise self.fail(element, f"{text!r} is not an inscription ({error})") from None
        net.arc(source, target, text)
        return element, net.arcs[-1]

    def engine_data(self, element: Element, tags: tuple[str, ...]) -> dict[str, Element]:
        """The children of the node's ``<toolspecific>`` (the engine's own
        data; see ``cpn.pnml_engine``) by their tags; {} without one."""
        data: dict[str, Element] = {}
        tools = [child for child in element.children if child.tag == "toolspecific"]
        for tool in tools:
            found = tool.attributes.get("tool"), tool.attributes.get("version")
            if found[0] != ENGINE_TOOL or found[1] not in READ_VERSIONS or len(tools) > 1:
                versions = " or ".join(f"'{version}'" for version in READ_VERSIONS)
                raise self.fail(tool, f"unsupported: this reader reads one <toolspecific "
                                      f"tool='{ENGINE_TOOL}'> of version {versions}, not "
                                      f"tool={found[0]!r} version={found[1]!r}")
            for child in tool.children:
                if child.tag not in tags or child.tag in data:
                    raise self.fail(child, f"unexpected here (expected at most one each of "
                                           f"{', '.join(f'<{tag}>' for tag in tags)})")
                data[child.tag] = child
        return data

    def token_value(self, element: Element, where: str) -> Any:
        """A plain value, or a ``<term>`` of records (see ``cpn.pnml_engine``)
        built from the types ``env`` gives, in the expression language."""
        if element.tag != "term":
            return super().token_value(element, where)
        text = element.text.strip()
        namespace = {**DEFINITION_NAMES, **self.env}
        try:
            tree = check_expression(text)
        except SyntaxError as error:
            raise self.fail(element, f"{where}: {text!r} is not a term ({error.msg})") from None
        missing = sorted(free_names(tree, with_builtins=True) - set(namespace) - SAFE_BUILTINS)
        if missing:
            given = ", ".join(f"{name!r}: {name}" for name in missing)
            raise self.fail(element, f"{where}: token {text!r} is built by "
                                     f"{', '.join(missing)}, which env does not give: "
                                     f"from_pnml(..., env={{{given}}})")
        try:
            return evaluate(text, namespace)
        except Exception as error:  # noqa: BLE001 - a type of env refused its fields
            raise self.fail(element, f"{where}: token {text!r}: {error}") from None

    # -- inscriptions ----------------------------------------------------------
    def inscription(self, element: Element) -> str:
        """Our inscription text for a SNAKES arc label."""
        if element.tag == "variable":
            name = element.text.strip()
            if not name.isidentifier():
                raise self.fail(element, f"{name!r} is not a variable name")
            return name
        if element.tag == "expression":
            return self.expression(element)
        if element.tag == "value":
            return literal(self.value(self.only_child(element, "object"), "arc"))
        if element.tag == "tuple":
            items = [self.inscription(child) for child in element.children]
            return f"({', '.join(items)}{',' if len(items) == 1 else ''})"
        if element.tag == "multiarc":
            terms = Counter(self.inscription(child) for child in element.children)
            if not terms:
                raise self.fail(element, "an empty multiset")
            return " ++ ".join(text if n == 1 else f"{n}`{text}" for text, n in terms.items())
        raise self.fail(element, "unsupported arc inscription (this reader reads what "
                                 "cpn.snakes_bridge.to_pnml writes)")

    def expression(self, element: Element) -> str:
        text = element.text.strip()
        try:
            check_expression(text)
        except SyntaxError as error:
            raise self.fail(element, f"{text!r} is not a Python expression "
                                     f"({error.msg})") from None
        return text

    def check_reach(self, net: Net, transition: Transition, element: Element,
                    arcs: list[tuple[Element, Arc]]) -> None:
        """Refuse text of ``transition`` that could reach outside the net
        (the expression language of ``cpn.expressions``)."""
        own = [(transition.guard, "guard"), (transition.delay, "delay"),
               (transition.code, "code")]
        texts = [(element, text, text_trees(text, kind)) for text, kind in own if text]
        texts += [(arc_element, arc.inscription, text_trees(arc.inscription, "inscription"))
                  for arc_element, arc in arcs
                  if transition.name in (arc.source, arc.target)]
        for where, text, trees in texts:
            for tree in trees:
                bad = refused(tree, set(net.env))
                if bad:
                    raise self.fail(where, f"{bad[0]} in {text!r} reaches outside the net "
                                           f"({bad[1]}; a net read from PNML may use its "
                                           "variables, its environment and "
                                           "cpn.expressions.SAFE_BUILTINS)")
