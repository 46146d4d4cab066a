"""Reading PNML back into a :class:`~cpn.Net`: the SNAKES dialect that
:func:`cpn.snakes_bridge.to_pnml` writes.

Why not ``snakes.pnml.loads``: it fails on Python 3.12 and later (it lists
SNAKES' modules with ``pkgutil.ImpImporter``, which 3.12 removed), and it
rebuilds whatever a file names, unpickling data and importing modules, so
opening a file can run any code.  This reader builds plain values only
(numbers, strings, booleans, None, tuples, lists, sets, dicts) and
inscription text; the functions a net calls come from ``env=``, given by
the caller, never from the file.  The XML is parsed by expat with every DTD
refused, so no entity is ever expanded (no "billion laughs", no external
files).

What comes back is the flat, untimed view that was exported: places named
by their paths (``Module/Place``) with their initial tokens and no colour
set, transitions with their guards, one arc per place and transition
(parallel arcs were joined into one multiset).  Inscriptions are Python,
run when the net is simulated, so they must keep to the expression language
of nets read from files (``cpn.expressions``, shared with the data files
of ``cpn.netfile``): text that reaches outside the net (a name starting
with ``_``, a dunder attribute, a builtin such as ``eval``, ``open`` or
``getattr``, a lambda) is refused here.

>>> from cpn import Net
>>> from cpn.snakes_bridge import to_pnml
>>> net = Net("loop")
>>> _ = net.place("P", int, initial=[0])
>>> _ = net.transition("Inc", guard="x < 3")
>>> net.arc("P", "Inc", "x"); net.arc("Inc", "P", "x + 1")
>>> back = from_pnml(to_pnml(net))
>>> back.transitions["Inc"].guard, [a.inscription for a in back.arcs]
('x < 3', ['x', 'x + 1'])
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from xml.parsers import expat

from .compiler import compile_net
from .errors import NetError
from .expressions import inscription_trees, literal, refused
from .inscription import check_expression, parse_terms
from .net import BUILT_IN_NAMES, Arc, Net, Place, Transition

#: More tokens than this in one place is a damaged or hostile file.
MAX_TOKENS = 10_000_000

#: How each object type of SNAKES' PNML is built from its text or items.
_BUILD = {
    "int": lambda text: int(text.strip()),
    "float": lambda text: float(text.strip()),
    "bool": lambda text: {"True": True, "False": False}[text.strip()],
    "str": str, "tuple": tuple, "list": list, "set": set, "dict": dict,
}
_CODE = ("function", "class", "method", "module")


class PnmlError(NetError):
    """A PNML file this reader cannot or will not read; the message names
    the file, the line and the element."""


@dataclass
class _Element:
    tag: str
    attributes: dict[str, str]
    line: int
    children: list[_Element] = field(default_factory=list)
    text: str = ""

    def __str__(self) -> str:
        key = next((k for k in ("id", "name", "type") if k in self.attributes), None)
        return f"<{self.tag}{'' if key is None else f' {key}={self.attributes[key]!r}'}>"


def read_pnml(path: str | Path, env: dict[str, Any] | None = None) -> Net:
    """The net in the PNML file ``path`` (see :func:`from_pnml`)."""
    return from_pnml(Path(path).read_bytes(), env, source=str(path))


def from_pnml(text: str | bytes, env: dict[str, Any] | None = None,
              source: str = "<pnml>") -> Net:
    """The net in PNML ``text``, as :func:`~cpn.snakes_bridge.to_pnml`
    writes it.  ``env`` gives the functions (and overrides the constants)
    the net's inscriptions use; ``source`` names the text in errors."""
    try:
        return _Reader(source, dict(env or {})).net(_parse(text, source))
    except RecursionError:
        raise PnmlError(f"{source}: elements nested too deeply") from None


def _parse(text: str | bytes, source: str) -> _Element:
    """The element tree, each element with its line; DTDs refused."""
    parser = expat.ParserCreate()
    top: list[_Element] = []
    open_elements: list[_Element] = []

    def start(tag: str, attributes: dict[str, str]) -> None:
        element = _Element(tag, attributes, parser.CurrentLineNumber)
        (open_elements[-1].children if open_elements else top).append(element)
        open_elements.append(element)

    def characters(data: str) -> None:
        if open_elements:
            open_elements[-1].text += data

    def doctype(*_) -> None:
        raise PnmlError(f"{source}, line {parser.CurrentLineNumber}: a DTD "
                        "(<!DOCTYPE ...>) is refused: PNML needs none, and its "
                        "entities could expand without bound or read other files")

    parser.StartElementHandler = start
    parser.EndElementHandler = lambda tag: open_elements.pop()
    parser.CharacterDataHandler = characters
    parser.StartDoctypeDeclHandler = doctype
    try:
        parser.Parse(text, True)
    except expat.ExpatError as error:
        raise PnmlError(f"{source}, line {error.lineno}: not well-formed XML "
                        f"({expat.ErrorString(error.code)})") from None
    return top[0]


class _Reader:
    def __init__(self, source: str, env: dict[str, Any]):
        self.source = source
        self.env = env

    def fail(self, element: _Element, message: str) -> PnmlError:
        return PnmlError(f"{self.source}, line {element.line}, {element}: {message}")

    def only_child(self, element: _Element, tag: str | None = None) -> _Element:
        if len(element.children) != 1 or tag not in (None, element.children[0].tag):
            raise self.fail(element, f"expected one <{tag or 'element'}> inside, found "
                                     f"{[f'<{c.tag}>' for c in element.children] or 'none'}")
        return element.children[0]

    def parts(self, element: _Element, first: str, second: str,
              where: str) -> tuple[_Element, _Element]:
        """The two children ``<first>`` and ``<second>`` of ``element``."""
        found = {child.tag: child for child in element.children}
        if element.tag != "item" or len(element.children) != 2 or set(found) != {first,
                                                                                 second}:
            raise self.fail(element, f"{where}: expected <item> with <{first}> and "
                                     f"<{second}>")
        return found[first], found[second]

    def attribute(self, element: _Element, name: str) -> str:
        value = element.attributes.get(name, "")
        if not value:
            raise self.fail(element, f"no {name}= attribute")
        return value

    # -- the net ---------------------------------------------------------------
    def net(self, root: _Element) -> Net:
        if root.tag != "pnml":
            raise self.fail(root, "not PNML (the root element is not <pnml>)")
        nets = root.children
        if len(nets) != 1 or nets[0].tag != "net":
            raise self.fail(root, f"expected one <net>, found "
                                  f"{[f'<{c.tag}>' for c in nets] or 'none'}")
        children: dict[str, list[_Element]] = {"global": [], "place": [],
                                               "transition": [], "arc": []}
        for child in nets[0].children:
            if child.tag not in children:
                raise self.fail(child, "unsupported element (this reader reads what "
                                       "cpn.snakes_bridge.to_pnml writes)")
            children[child.tag].append(child)
        nodes: dict[str, _Element] = {}
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
        except NetError as error:
            raise PnmlError(f"{self.source}: {error}") from None
        return net

    def global_(self, element: _Element) -> dict[str, Any]:
        name = self.attribute(element, "name")
        if not name.isidentifier() or name.startswith("_"):
            raise self.fail(element, "a global's name must be an identifier not "
                                     "starting with '_'")
        if name in self.env or name in BUILT_IN_NAMES:  # the caller's, or every net's
            return {}
        value = self.only_child(element, "object")
        kind = value.attributes.get("type")
        if kind in _CODE or kind == "pickle":
            what = ("pickled Python data" if kind == "pickle"
                    else f"a {kind} ({value.attributes.get('name', '?')})")
            raise self.fail(element, f"{what}: a PNML file carries no code; pass it as "
                                     f"from_pnml(..., env={{{name!r}: ...}})")
        return {name: self.value(value, f"global {name!r}")}

    def place(self, element: _Element) -> Place:
        name = element.attributes["id"]
        tokens: list = []
        for child in element.children:
            if child.tag == "type":
                if child.attributes.get("domain", "universal") != "universal":
                    raise self.fail(child, "only untyped places (domain='universal') "
                                           "are read")
            elif child.tag == "initialMarking":
                for item in self.only_child(child, "multiset").children:
                    tokens += self.tokens(item, f"place {name!r}", len(tokens))
            else:
                raise self.fail(child, f"unsupported element in place {name!r}")
        return Place(name, initial=tokens)

    def tokens(self, item: _Element, where: str, held: int) -> list:
        value, multiplicity = self.parts(item, "value", "multiplicity", where)
        count = multiplicity.text.strip()
        if not count.isdigit():
            raise self.fail(multiplicity, f"{where}: multiplicity {count!r} is not a "
                                          "whole number")
        if held + int(count) > MAX_TOKENS:
            raise self.fail(multiplicity, f"{where}: more than {MAX_TOKENS:,} tokens")
        return [self.value(self.only_child(value, "object"), where)] * int(count)

    def transition(self, element: _Element) -> Transition:
        name = element.attributes["id"]
        guard = None
        for child in element.children:
            if child.tag != "guard":
                raise self.fail(child, f"unsupported element in transition {name!r}")
            guard = self.expression(self.only_child(child, "expression"))
        return Transition(name, guard)

    def arc(self, element: _Element, net: Net) -> tuple[_Element, Arc]:
        source, target = (self.attribute(element, end) for end in ("source", "target"))
        if not ((source in net.places and target in net.transitions)
                or (source in net.transitions and target in net.places)):
            raise self.fail(element, f"an arc must join a place and a transition of the "
                                     f"net ({source!r} -> {target!r})")
        text = self.inscription(self.only_child(self.only_child(element, "inscription")))
        try:
            parse_terms(text)
        except SyntaxError as error:
            raise self.fail(element, f"{text!r} is not an inscription ({error})") from None
        net.arc(source, target, text)
        return element, net.arcs[-1]

    # -- inscriptions ----------------------------------------------------------
    def inscription(self, element: _Element) -> str:
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

    def expression(self, element: _Element) -> str:
        text = element.text.strip()
        try:
            check_expression(text)
        except SyntaxError as error:
            raise self.fail(element, f"{text!r} is not a Python expression "
                                     f"({error.msg})") from None
        return text

    def check_reach(self, net: Net, transition: Transition, element: _Element,
                    arcs: list[tuple[_Element, Arc]]) -> None:
        """Refuse text of ``transition`` that could reach outside the net
        (the expression language of ``cpn.expressions``)."""
        texts = ([(element, transition.guard, [check_expression(transition.guard)])]
                 if transition.guard else [])
        texts += [(arc_element, arc.inscription, inscription_trees(arc.inscription))
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

    # -- values ----------------------------------------------------------------
    def value(self, element: _Element, where: str) -> Any:
        """A plain value; code and pickles are refused, never run."""
        kind = element.attributes.get("type", "")
        if element.tag != "object":
            raise self.fail(element, f"{where}: expected <object>")
        if kind == "pickle":
            raise self.fail(element, f"{where}: a pickled Python object; this reader "
                                     "never unpickles (unpickling can run any code)")
        if kind in _CODE:
            raise self.fail(element, f"{where}: a {kind} "
                                     f"({element.attributes.get('name', '?')}); a PNML "
                                     "file carries no code")
        if kind == "NoneType":
            return None
        if kind not in _BUILD:
            raise self.fail(element, f"{where}: unsupported object type {kind!r}")
        if kind == "dict":
            content: Any = [tuple(self.value(self.only_child(part), where)
                                  for part in self.parts(item, "key", "value", where))
                            for item in element.children]
        elif kind in ("tuple", "list", "set"):
            content = [self.value(child, where) for child in element.children]
        else:
            content = element.text
        try:
            return _BUILD[kind](content)
        except (KeyError, ValueError, TypeError) as error:
            raise self.fail(element, f"{where}: not a valid {kind}: {error}") from None

