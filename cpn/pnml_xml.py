"""The XML of a PNML file, read without trusting it: parsed by expat with
every DTD refused (no entity is ever expanded: no "billion laughs", no
external files), each element kept with its line for messages, and the
values it holds built as plain values (numbers, strings, booleans, None,
tuples, lists, sets, dicts, and the engine's frozensets and
``FrozenDict`` s); code and pickles are refused, never run.  The net itself
is read by ``cpn.pnml``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any
from xml.parsers import expat

from .colours import FrozenDict
from .errors import NetError
from .net import timed

#: More tokens than this in one place is a damaged or hostile file.
MAX_TOKENS = 10_000_000

#: How each object type of SNAKES' PNML is built from its text or items.
_BUILD = {
    "int": lambda text: int(text.strip()),
    "float": lambda text: float(text.strip()),
    "bool": lambda text: {"True": True, "False": False}[text.strip()],
    "str": str, "tuple": tuple, "list": list, "set": set, "dict": dict,
    "frozenset": frozenset, "FrozenDict": FrozenDict,  # in the engine's data
}
CODE_TYPES = ("function", "class", "method", "module")


class PnmlError(NetError):
    """A PNML file this reader cannot or will not read; the message names
    the file, the line and the element."""


@dataclass
class Element:
    tag: str
    attributes: dict[str, str]
    line: int
    children: list[Element] = field(default_factory=list)
    text: str = ""

    def __str__(self) -> str:
        key = next((k for k in ("id", "name", "type") if k in self.attributes), None)
        return f"<{self.tag}{'' if key is None else f' {key}={self.attributes[key]!r}'}>"


def parse(text: str | bytes, source: str) -> Element:
    """The element tree, each element with its line; DTDs refused."""
    parser = expat.ParserCreate()
    top: list[Element] = []
    open_elements: list[Element] = []

    def start(tag: str, attributes: dict[str, str]) -> None:
        element = Element(tag, attributes, parser.CurrentLineNumber)
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


class ElementReader:
    """Reading elements of the file ``source``: errors name it, the line
    and the element."""

    def __init__(self, source: str):
        self.source = source

    def fail(self, element: Element, message: str) -> PnmlError:
        return PnmlError(f"{self.source}, line {element.line}, {element}: {message}")

    def only_child(self, element: Element, tag: str | None = None) -> Element:
        if len(element.children) != 1 or tag not in (None, element.children[0].tag):
            raise self.fail(element, f"expected one <{tag or 'element'}> inside, found "
                                     f"{[f'<{c.tag}>' for c in element.children] or 'none'}")
        return element.children[0]

    def parts(self, element: Element, first: str, second: str,
              where: str) -> tuple[Element, Element]:
        """The two children ``<first>`` and ``<second>`` of ``element``."""
        found = {child.tag: child for child in element.children}
        if element.tag != "item" or len(element.children) != 2 or set(found) != {first,
                                                                                 second}:
            raise self.fail(element, f"{where}: expected <item> with <{first}> and "
                                     f"<{second}>")
        return found[first], found[second]

    def attribute(self, element: Element, name: str) -> str:
        value = element.attributes.get(name, "")
        if not value:
            raise self.fail(element, f"no {name}= attribute")
        return value

    # -- values ----------------------------------------------------------------
    def tokens(self, item: Element, where: str, held: int) -> list:
        value, multiplicity = self.parts(item, "value", "multiplicity", where)
        count = multiplicity.text.strip()
        if not count.isdigit():
            raise self.fail(multiplicity, f"{where}: multiplicity {count!r} is not a "
                                          "whole number")
        if held + int(count) > MAX_TOKENS:
            raise self.fail(multiplicity, f"{where}: more than {MAX_TOKENS:,} tokens")
        return [self.value(self.only_child(value, "object"), where)] * int(count)

    def engine_tokens(self, element: Element, where: str) -> list:
        """The engine's ``<tokens>`` of a place: in their order, a timed
        one with its timestamp (``<token at="5.0">``)."""
        if len(element.children) > MAX_TOKENS:
            raise self.fail(element, f"{where}: more than {MAX_TOKENS:,} tokens")
        tokens = []
        for token in element.children:
            if token.tag != "token":
                raise self.fail(token, f"{where}: expected <token>")
            value = self.token_value(self.only_child(token), where)
            at = token.attributes.get("at")
            try:
                tokens.append(value if at is None else timed(value, float(at)))
            except ValueError:
                raise self.fail(token, f"{where}: timestamp {at!r} is not a number") from None
        return tokens

    def token_value(self, element: Element, where: str) -> Any:
        """An engine's token: a plain value (a ``<term>`` of records
        needs the reader of ``cpn.pnml``, which has their types)."""
        return self.value(element, where)

    def value(self, element: Element, where: str) -> Any:
        """A plain value; code and pickles are refused, never run."""
        kind = element.attributes.get("type", "")
        if element.tag != "object":
            raise self.fail(element, f"{where}: expected <object>")
        if kind == "pickle":
            raise self.fail(element, f"{where}: a pickled Python object; this reader "
                                     "never unpickles (unpickling can run any code)")
        if kind in CODE_TYPES:
            raise self.fail(element, f"{where}: a {kind} "
                                     f"({element.attributes.get('name', '?')}); a PNML "
                                     "file carries no code")
        if kind == "NoneType":
            return None
        if kind not in _BUILD:
            raise self.fail(element, f"{where}: unsupported object type {kind!r}")
        if kind in ("dict", "FrozenDict"):
            content: Any = [tuple(self.value(self.only_child(part), where)
                                  for part in self.parts(item, "key", "value", where))
                            for item in element.children]
        elif kind in ("tuple", "list", "set", "frozenset"):
            content = [self.value(child, where) for child in element.children]
        else:
            content = element.text
        try:
            return _BUILD[kind](content)
        except (KeyError, ValueError, TypeError) as error:
            raise self.fail(element, f"{where}: not a valid {kind}: {error}") from None
