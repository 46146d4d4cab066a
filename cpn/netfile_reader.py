"""Reading a data file into a net (``netfile.py`` describes the format).

Every table is checked for its keys and types, every text against the
expression language, every token against its colour, before the net is
built; each error names the file, the line of the node (found by its table
header, as TOML parsers keep no positions), the node and the text.
"""

from __future__ import annotations

import collections
import math
from typing import Any, Iterable

from .errors import NetError, NetFileError
from .expressions import DEFINITION_NAMES, ExpressionError, check_text, evaluate
from .net import P_NORMAL, PORT_KINDS, Net, TimedToken
from .netfile_lines import locate
from .colour_text import ANY, SCALARS, ColourSpec, is_record, parsed_colour
from .netfile_values import (FORMAT, NET_KEYS, PLACE_KEYS, SUBSTITUTION_KEYS, TOP_KEYS,
                             TRANSITION_KEYS, decode, plain)


class Reader:
    """Builds the net of a parsed TOML document."""

    def __init__(self, source: str, text: str, registry: dict[str, Any]):
        self.source, self.lines, self.registry = source, text.splitlines(), registry
        self.colours: dict[str, ColourSpec] = {}
        self.module_tables: dict = {}
        self.modules: dict[str, Net] = {}
        self.building: list[str] = []
        self.definitions: dict[str, Any] = {}

    # -- errors, with the line when it can be found
    def fail(self, where: tuple[str, ...], message: str, *needles: str,
             keys: tuple[str, ...] = ()) -> NetFileError:
        """The error of ``where``, at the line of its ``keys`` (a chain:
        ``("outputs", "P")``) if given, else of the first needle after its
        table's header."""
        line = (locate(self.lines, tuple(part for part in where if part), keys, needles)
                if keys else self.line_of(where, needles))
        at = f", line {line}" if line else ""
        return NetFileError(f"{self.source}{at}: {self.name(where)}: {message}")

    @staticmethod
    def name(where: tuple[str, ...]) -> str:
        """``("modules", "M", "transitions", "T")`` as ``transition 'T' of
        module 'M'``; a section without a name as ``[places]``."""
        parts = [f"{_WORDS.get(kind, kind)} {name!r}" if name else f"[{kind}]"
                 for kind, name in zip(where[::2], where[1::2])]
        return " of ".join(reversed(parts)) or "the file"

    def line_of(self, where: tuple[str, ...], needles: Iterable[str]) -> int | None:
        """The line of the table ``where`` (its header), then of the first
        needle after it: where a person looks, found without a TOML parser
        that keeps positions."""
        header = None
        if where:
            for number, line in enumerate(self.lines):
                stripped = line.strip()
                if stripped.startswith("[") and _path_in(where, stripped):
                    header = number
                    break
        for needle in needles:
            for number in range(header or 0, len(self.lines)):
                if needle and needle in self.lines[number]:
                    return number + 1
        return None if header is None else header + 1

    def table(self, value: Any, where: tuple[str, ...],
              allowed: tuple[str, ...] | None = None) -> dict:
        """``value``, which must be a table (with keys in ``allowed``)."""
        if not isinstance(value, dict):
            raise self.fail(where, f"expected a table, not {_kind(value)}")
        unknown = [key for key in value if allowed is not None and key not in allowed]
        if unknown:
            raise self.fail(where, f"unknown key {unknown[0]!r} (expected "
                                   f"{', '.join(allowed)})", f"{unknown[0]} =")
        return value

    def string(self, value: Any, where: tuple[str, ...], key: str) -> str:
        if not isinstance(value, str):
            raise self.fail(where, f"{key} must be a string, not {_kind(value)}", f"{key} =")
        return value

    # -- the document
    def document(self, document: dict, default_name: str) -> Net:
        self.table(document, (), TOP_KEYS)
        if "format" in document and (type(document["format"]) is not int
                                     or document["format"] != FORMAT):
            raise self.fail((), f"format {document['format']!r} is not one this reader "
                                f"knows (format = {FORMAT})", "format")
        self.declare_colours(self.table(document.get("colours", {}), ("colours", "")))
        self.module_tables = self.table(document.get("modules", {}), ("modules", ""))
        for name, text in self.table(document.get("definitions", {}),
                                     ("definitions", "")).items():
            where = ("definitions", name)
            if name in self.registry or name in DEFINITION_NAMES:
                raise self.fail(where, "the registry has this name already", f"{name} =")
            self.name_check(name, where)
            self.definitions[name] = self.definition(self.string(text, where, name), {},
                                                     where)
        net = self.net({key: document[key] for key in NET_KEYS if key in document}, (),
                       default_name)
        if not (net.places or net.transitions or net.substitutions):
            # an empty or cut file would check as a net of one dead state
            raise self.fail((), "no [places], [transitions] or [substitutions]: no net to read")
        return net

    def declare_colours(self, tables: dict) -> None:
        records = {}
        for name, fields in tables.items():
            where = ("colours", name)
            if not name.isidentifier() or name in SCALARS or name == "any":
                raise self.fail(where, "a record's name is an identifier other than the "
                                       "built-in colours")
            fields = self.table(fields, where)
            for field, text in fields.items():
                if not field.isidentifier() or field.startswith("_"):
                    raise self.fail(where, f"field {field!r} is not an identifier "
                                           "(not starting with '_')", field)
                self.string(text, where, field)
            if not fields:
                raise self.fail(where, "a record has at least one field")
            kind = self.registry.get(name)
            if kind is not None:
                if not is_record(kind) or list(kind._fields) != list(fields):
                    have = list(getattr(kind, "_fields", ())) or type(kind).__name__
                    raise self.fail(where, f"the registry's {name!r} has fields {have}, "
                                           f"the file declares {list(fields)}")
            else:
                kind = collections.namedtuple(name, list(fields))
            records[name] = kind
            self.colours[name] = ColourSpec(name, kind, kind, {})
        for name, fields in tables.items():
            self.colours[name].fields = {
                field: self.colour(text, ("colours", name), field)
                for field, text in fields.items()}

    def colour(self, text: Any, where: tuple[str, ...], key: str = "colour") -> ColourSpec:
        text = self.string(text, where, key)
        try:
            return parsed_colour(text, self.named_colour)
        except ValueError as error:
            raise self.fail(where, str(error), text) from None

    def named_colour(self, name: str) -> ColourSpec | None:
        """A record of ``[colours]``, or a type (or a predicate) of the
        registry (``parsed_colour`` knows the built-in colours)."""
        if name in self.colours:
            return self.colours[name]
        kind = self.registry.get(name)
        return ColourSpec(name, kind) if isinstance(kind, type) or callable(kind) else None

    def net(self, table: dict, where: tuple[str, ...], default_name: str) -> Net:
        self.table(table, where, NET_KEYS)
        name = self.string(table.get("name", default_name), where, "name")
        env = self.environment(table, where)
        net = Net(name, env)
        names = set(env)
        places = self.table(table.get("places", {}), where + ("places", ""))
        for place, entry in places.items():
            self.place(net, place, entry, where + ("places", place))
        transitions = self.table(table.get("transitions", {}), where + ("transitions", ""))
        for transition, entry in transitions.items():
            self.transition(net, transition, entry, where + ("transitions", transition),
                            names)
        subs = self.table(table.get("substitutions", {}), where + ("substitutions", ""))
        for sub, entry in subs.items():
            self.substitution(net, sub, entry, where + ("substitutions", sub))
        return net

    def environment(self, table: dict, where: tuple[str, ...]) -> dict[str, Any]:
        env: dict[str, Any] = {}
        for section in ("constants", "functions"):
            entries = self.table(table.get(section, {}), where + (section, ""))
            for name, value in entries.items():
                at = where + (section, name)
                self.name_check(name, at)
                if name in env:
                    raise self.fail(at, "defined twice (in [constants] and [functions])",
                                    f"{name} =")
                if section == "constants":
                    try:
                        env[name] = plain(value)
                    except ValueError as error:
                        raise self.fail(at, str(error), f"{name} =") from None
                else:
                    env[name] = self.definition(self.string(value, at, name), env, at)
        return env

    def name_check(self, name: str, where: tuple[str, ...]) -> None:
        if not name.isidentifier() or name.startswith("_"):
            raise self.fail(where, "not a name inscriptions can use (an identifier not "
                                   "starting with '_')", f"{name} =")

    def definition(self, text: str, env: dict, where: tuple[str, ...]) -> Any:
        namespace = {**DEFINITION_NAMES, **self.registry, **self.definitions, **env}
        try:
            return evaluate(text, namespace)
        except ExpressionError as error:
            raise self.fail(where, str(error), text) from None
        except NameError as error:
            refused = self.fail(where, f"{error} (the registry names: "
                                       f"{', '.join(self.registry) or 'nothing'})", text)
            refused.registry_lacks = error.name
            raise refused from None
        except Exception as error:  # noqa: BLE001 - the registry's code refused it
            raise self.fail(where, f"evaluating {text!r} failed: {type(error).__name__}: "
                                   f"{error}", text) from None

    def place(self, net: Net, name: str, entry: Any, where: tuple[str, ...]) -> None:
        entry = self.table(entry, where, PLACE_KEYS)
        spec = self.colour(entry["colour"], where) if "colour" in entry else ANY
        timed = entry.get("timed", False)
        if not isinstance(timed, bool):
            raise self.fail(where, f"timed must be true or false, not {_kind(timed)}", "timed")
        fusion = entry.get("fusion")
        if fusion is not None:
            self.string(fusion, where, "fusion")
        port = entry.get("port")
        if port is not None and port not in PORT_KINDS:
            raise self.fail(where, f"port must be one of {', '.join(PORT_KINDS)}, not "
                                   f"{port!r}", "port")
        initial = entry.get("initial", [])
        if not isinstance(initial, list):
            raise self.fail(where, f"initial must be an array of tokens, not "
                                   f"{_kind(initial)}", "initial")
        tokens = [self.token(token, spec, timed, where) for token in initial]
        try:
            net.place(name, spec.colour, tokens, timed, fusion, port)
        except NetError as error:
            raise self.fail(where, str(error)) from None

    def token(self, value: Any, spec: ColourSpec, timed: bool, where: tuple[str, ...]):
        at = None
        if timed and isinstance(value, dict) and set(value) == {"token", "at"}:
            at = value["at"]
            if type(at) not in (int, float) or not math.isfinite(at):
                raise self.fail(where, "a token's time 'at' must be a finite number, "
                                       f"not {at!r}", "initial")
            value = value["token"]
        try:
            token = decode(value, spec)
        except ValueError as error:
            raise self.fail(where, self.timing_error(value, timed)
                            or f"initial token: {error}", "initial") from None
        return token if at is None else TimedToken(token, float(at))

    @staticmethod
    def timing_error(value: Any, timed: bool) -> str | None:
        """What is wrong with a token written as ``{ token = ..., at = ... }``
        that its colour refuses as a table: the place's timing, not the
        colour (a colour of tables may take it as it stands)."""
        if not isinstance(value, dict) or "token" not in value:
            return None
        if not timed and "at" in value:
            return "the place is untimed: a token has no 'at' (make it timed = true)"
        if timed and "at" not in value:
            return "a timed token needs 'at' ({ token = ..., at = 0.0 })"
        return None

    def transition(self, net: Net, name: str, entry: Any, where: tuple[str, ...],
                   names: set[str]) -> None:
        entry = self.table(entry, where, TRANSITION_KEYS)
        texts = {}
        for kind in ("guard", "delay", "code"):
            if kind in entry:
                value = entry[kind]
                if kind == "delay" and type(value) in (int, float):
                    value = str(value)
                texts[kind] = self.text(self.string(value, where, kind), kind, names, where)
        priority = entry.get("priority", P_NORMAL)
        if type(priority) is not int:
            raise self.fail(where, f"priority must be an integer, not {_kind(priority)}",
                            "priority")
        try:
            net.transition(name, priority=priority, **texts)
        except NetError as error:
            raise self.fail(where, str(error)) from None
        for direction in ("inputs", "outputs"):
            arcs = self.table(entry.get(direction, {}), where + (direction, ""))
            for place, inscriptions in arcs.items():
                for text in self.inscriptions(inscriptions, where, direction, place):
                    self.text(text, "inscription", names, where)
                    if direction == "inputs":
                        net.arc(place, name, text)
                    else:
                        net.arc(name, place, text)

    def inscriptions(self, value: Any, where: tuple[str, ...], direction: str,
                     place: str) -> list[str]:
        """The texts of the arcs to or from ``place``: a string, or an array
        of them; a number is refused as a guard is (``5`` reads as the
        text ``"5"``, as a TOML number it would be a constant by accident),
        and an empty array, which would make no arc."""
        texts = value if isinstance(value, list) else [value]
        field, keys = f"{direction}.{place}", (direction, place)
        if not texts:
            raise self.fail(where, f"{field} is an empty array: give an inscription, or "
                                   "an array of them for several arcs", keys=keys)
        for text in texts:
            if not isinstance(text, str):
                raise self.fail(where, f"{field} must be an inscription (a string, or an "
                                       f"array of strings), not {_kind(text)}", keys=keys)
        return texts

    def text(self, text: str, kind: str, names: set[str], where: tuple[str, ...]) -> str:
        try:
            check_text(text, kind, names)
        except ExpressionError as error:
            raise self.fail(where, f"{kind}: {error}", text.splitlines()[0] if text
                            else kind) from None
        return text

    def substitution(self, net: Net, name: str, entry: Any, where: tuple[str, ...]) -> None:
        entry = self.table(entry, where, SUBSTITUTION_KEYS)
        if "module" not in entry:
            raise self.fail(where, "no module = KEY (a key of [modules])")
        key = self.string(entry["module"], where, "module")
        if key not in self.module_tables:
            raise self.fail(where, f"no module {key!r} in [modules] (there: "
                                   f"{', '.join(self.module_tables) or 'none'})", "module")
        if key in self.building:
            raise self.fail(where, f"module {key!r} contains itself", "module")
        if key not in self.modules:
            self.building.append(key)
            self.modules[key] = self.net(self.module_tables[key], ("modules", key), key)
            self.building.pop()
        sockets = self.table(entry.get("sockets", {}), where + ("sockets", ""))
        for port, socket in sockets.items():
            self.string(socket, where, f"sockets.{port}")
        try:
            net.substitution(name, self.modules[key], sockets)
        except NetError as error:
            raise self.fail(where, str(error)) from None


def _path_in(where: tuple[str, ...], header: str) -> bool:
    """A table header naming ``where`` (``[modules.M.transitions.T]``)."""
    position = 0
    for part in (p for p in where if p):
        found = header.find(part, position)
        if found < 0:
            return False
        position = found + len(part)
    return True


_WORDS = {"places": "place", "transitions": "transition", "substitutions": "substitution",
          "modules": "module", "colours": "colour", "constants": "constant",
          "functions": "function", "inputs": "input", "outputs": "output",
          "sockets": "socket", "definitions": "definition"}


def _kind(value: Any) -> str:
    names = {dict: "a table", list: "an array", str: "a string", bool: "a boolean",
             int: "an integer", float: "a number"}
    shown = repr(value)
    shown = shown if len(shown) <= 40 else shown[:39] + "…"
    return f"{names.get(type(value), f'a {type(value).__name__}')} ({shown})"
