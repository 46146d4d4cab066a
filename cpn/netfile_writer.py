"""Writing a net as a data file (``netfile.py`` describes the format).

Plain values go to ``[constants]``; functions and objects are written as
expressions over the registry (``cpn.expressions.describe``), objects used
more than once in ``[definitions]``; every text is checked against the
expression language.  Whatever would not read back the same is refused,
naming it: a file that loads is the net that was saved.
"""

from __future__ import annotations

import dataclasses
import re
import typing
from typing import Any

from .colour_sets import colour_name
from .colour_text import ANY, SCALARS, ColourSpec, UnnamedColour, is_record, written_colour
from .editing import hierarchy
from .errors import NetFileError
from .expressions import (DEFINITION_NAMES, DescribeError, ExpressionError, check_text,
                          describe, evaluate, parts, same)
from .net import P_NORMAL, Net, Place, TimedToken
from .netfile_values import FORMAT, decode, encode, equivalent


class Writer:
    """Builds the TOML document of a net, its modules and its records."""

    def __init__(self, registry: dict[str, Any]):
        self.registry = registry
        self.shared: dict[str, Any] = {}
        self.records: dict[str, dict] = {}
        self.record_types: dict[str, type] = {}
        self.modules: dict[str, dict] = {}
        self.module_keys: dict[int, str] = {}

    def document(self, net: Net) -> dict:
        definitions = self.definitions(net)
        body = self.net(net, f"net '{net.name}'")
        document: dict = {"format": FORMAT, "name": net.name}
        if self.records:
            document["colours"] = self.records
        if definitions:
            document["definitions"] = definitions
        document.update(body)
        if self.modules:
            document["modules"] = self.modules
        return document

    def fail(self, where: str, message: str) -> NetFileError:
        return NetFileError(f"{where}: {message}")

    def definitions(self, net: Net) -> dict[str, str]:
        """The objects the environments use more than once (the machine's
        power model in every module), each defined once, inner ones first,
        so that a person changes a parameter in one place."""
        found: list[list] = []
        for each in hierarchy(net).values():
            for value in each.env.values():
                for part in parts(value):
                    if not (dataclasses.is_dataclass(part) or is_record(type(part))) \
                            or isinstance(part, type):
                        continue
                    for entry in found:
                        if same(entry[0], part):
                            entry[1] += 1
                            break
                    else:
                        found.append([part, 1])
        texts = {}
        for part in sorted((part for part, count in found if count > 1),
                           key=lambda part: len(describe(part))):
            base = re.sub(r"(?<!^)(?=[A-Z])", "_", type(part).__name__).lower()
            name, count = base, 1
            while name in self.shared or name in self.registry or name in DEFINITION_NAMES:
                count += 1
                name = f"{base}_{count}"
            texts[name] = self.definition(name, part, {}, "[definitions]")
            self.shared[name] = part
        return texts

    def net(self, net: Net, where: str) -> dict:
        table: dict = {}
        constants, definitions = {}, {}
        for name, value in net.env.items():
            try:
                written = encode(value, ANY)
                if equivalent(decode(written, ANY), value):
                    constants[name] = written
                    continue
            except ValueError:
                pass
            definitions[name] = self.definition(name, value, constants, where)
        if constants:
            table["constants"] = constants
        if definitions:
            table["functions"] = definitions
        names = set(net.env)
        table["places"] = {name: self.place(place, f"{where}, place '{name}'")
                           for name, place in net.places.items()}
        transitions = {}
        for name, transition in net.transitions.items():
            what = f"{where}, transition '{name}'"
            entry: dict = {}
            for kind in ("guard", "delay", "code"):
                text = getattr(transition, kind)
                if text is not None:
                    self.check(text, kind, names, f"{what}, {kind}")
                    entry[kind] = text
            if transition.priority != P_NORMAL:
                entry["priority"] = transition.priority
            for direction, end in (("inputs", "target"), ("outputs", "source")):
                arcs: dict[str, list[str]] = {}
                for arc in net.arcs:
                    if getattr(arc, end) == name:
                        place = arc.source if end == "target" else arc.target
                        self.check(arc.inscription, "inscription", names,
                                   f"{what}, arc {arc.source} -> {arc.target}")
                        arcs.setdefault(place, []).append(arc.inscription)
                if arcs:
                    entry[direction] = {place: texts[0] if len(texts) == 1 else texts
                                        for place, texts in arcs.items()}
            transitions[name] = entry
        table["transitions"] = transitions
        if net.substitutions:
            table["substitutions"] = {
                name: {"module": self.module(sub.module, f"{where}, substitution '{name}'"),
                       "sockets": dict(sub.sockets)}
                for name, sub in net.substitutions.items()}
        return {key: value for key, value in table.items() if value or key == "places"}

    def check(self, text: str, kind: str, names: set[str], where: str) -> None:
        try:
            check_text(text, kind, names)
        except ExpressionError as error:
            raise self.fail(where, f"{error}; a data file cannot hold it (keep this net "
                                   "in Python)") from None

    def definition(self, name: str, value: Any, constants: dict, where: str) -> str:
        what = f"{where}, {name!r}"
        try:
            text = describe(value, self.registry, self.shared)
        except DescribeError as error:
            raise self.fail(what, str(error)) from None
        namespace = {**DEFINITION_NAMES, **self.registry, **self.shared,
                     **{key: decode(item, ANY) for key, item in constants.items()}}
        try:
            back = evaluate(text, namespace)
        except Exception as error:  # noqa: BLE001 - reported with what was written
            raise self.fail(what, f"written as {text!r}, it does not read back: "
                                  f"{type(error).__name__}: {error}") from None
        if not same(back, value):
            raise self.fail(what, f"written as {text!r}, it would read back as a "
                                  "different value")
        return text

    def place(self, place: Place, where: str) -> dict:
        entry: dict = {}
        spec = ANY
        if place.colour is not None:
            spec = self.colour(place.colour, where)
            entry["colour"] = spec.text
        tokens = []
        for token in place.initial:
            value, at = (token if isinstance(token, TimedToken) else (token, None))
            try:
                written = encode(value, spec)
                back = decode(written, spec)
            except ValueError as error:
                raise self.fail(where, f"initial token {value!r}: {error}") from None
            if not equivalent(back, value):
                raise self.fail(where, f"initial token {value!r} would read back as "
                                       f"{back!r}")
            tokens.append(written if at is None else {"token": written, "at": float(at)})
        if tokens:
            entry["initial"] = tokens
        if place.timed:
            entry["timed"] = True
        if place.fusion is not None:
            entry["fusion"] = place.fusion
        if place.port is not None:
            entry["port"] = place.port
        return entry

    def colour(self, colour: Any, where: str) -> ColourSpec:
        """A colour as the file writes it (``colour_text.py``): a type or a
        predicate by its name in the registry, a record declared in
        ``[colours]``."""
        def named(kind: Any) -> ColourSpec | None:
            name = next((n for n, entry in self.registry.items() if entry is kind), None)
            if is_record(kind):
                return self.record(kind, name or kind.__name__, where)
            return None if name is None else ColourSpec(name, kind)

        try:
            return written_colour(colour, named)
        except UnnamedColour as error:
            raise self.fail(where, f"its colour {colour_name(error.colour)!r} is not in the "
                                   "registry: add it (by the name the file should use)") from None

    def record(self, kind: type, name: str, where: str) -> ColourSpec:
        if self.record_types.setdefault(name, kind) is not kind:
            raise self.fail(where, f"two record types are named {name!r}: name one "
                                   "differently in the registry")
        if name not in self.registry:
            methods = [attr for attr, value in vars(kind).items()
                       if callable(value) and not attr.startswith("_")]
            if methods:
                raise self.fail(where, f"record {name} has methods ({', '.join(methods)}) "
                                       "a named tuple read back would lack: add "
                                       f"{name!r} to the registry")
        try:
            hints = typing.get_type_hints(kind)
        except Exception:  # noqa: BLE001 - annotations naming what is not importable
            hints = {}
        fields = {}
        for field in kind._fields:
            fields[field] = self.field_colour(hints.get(field), where)
        self.records.setdefault(name, {field: spec.text for field, spec in fields.items()})
        return ColourSpec(name, kind, kind, fields)

    def field_colour(self, hint: Any, where: str) -> ColourSpec:
        text = hint if isinstance(hint, str) else getattr(hint, "__name__", "")
        text = text.split("[")[0].strip()
        if text in SCALARS:
            return ColourSpec(text, SCALARS[text])
        if is_record(hint):
            return self.colour(hint, where)
        return ANY

    def module(self, module: Net, where: str) -> str:
        if id(module) in self.module_keys:
            return self.module_keys[id(module)]
        key, count = module.name, 1
        while key in self.modules:
            count += 1
            key = f"{module.name}#{count}"
        self.module_keys[id(module)] = key
        self.modules[key] = {}
        table = self.net(module, f"{where}, module '{module.name}'")
        self.modules[key] = ({"name": module.name} if key != module.name else {}) | table
        return key
