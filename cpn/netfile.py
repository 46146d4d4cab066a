"""Nets as data files: TOML that loads without running the file's code.

A net written in Python is shared as a program: opening it runs it.  A
data file holds the same net as plain data, read by :func:`load` (``cpn
step net.toml`` too) and written by ``net.save(path)``::

    format = 1
    name = "loop"

    [constants]
    LIMIT = 10

    [places.P]
    colour = "int"
    initial = [0]
    timed = true

    [transitions.Tick]
    guard = "x < LIMIT"
    inputs = { P = "x" }
    outputs = { P = "x + 1@+5" }

Why TOML: people write it by hand without surprises (no indentation that
changes meaning, no ``no`` read as false), it has comments, tables name
the nodes (``[transitions.Tick]``) so a diff of two files reads as a diff
of two nets, and Python reads it with the standard library (``tomllib``);
writing uses ``tomli-w``.

What a file holds, table by table:

- ``[colours.NAME]``: records, a field name -> colour each (``id = "int"``).
  A record the reader's registry names with the same fields is that type
  (so PuPPET's jobs keep their methods); any other is a named tuple.
- ``[constants]``: values of the environment (numbers, strings, booleans;
  arrays are read as tuples, tables as ``FrozenDict``).
- ``[functions]``: environment names bound to the registry the reader
  passes (``cpn.load(path, functions={...})``): each an expression of the
  language of ``cpn.expressions``, evaluated once when loading, over the
  registry, the constants, the functions above it, ``partial``,
  ``FrozenDict`` and ``Delayed``: ``"easy_pass"``, ``"partial(easy_pass,
  policy='wfp')"``, ``"PowerModel(node_watts=100.0).busy_delta"``.
- ``[places.NAME]``: ``colour`` (``int``, ``float``, ``str``, ``bool``,
  ``tuple``, ``FrozenDict``, ``dict``, a record, a type or predicate of the
  registry, ``A | B``; ``any`` when left out), ``initial`` (an array of
  tokens; in a timed place ``{ token = ..., at = 5.0 }`` is a token
  available from time 5), ``timed``, ``fusion``, ``port``
  (``in``/``out``/``inout``).
- ``[transitions.NAME]``: ``guard``, ``delay``, ``priority`` (default
  1000), ``code`` (assignments), ``inputs`` and ``outputs`` (place ->
  inscription, or an array of inscriptions for several arcs).
- ``[substitutions.NAME]``: ``module`` (a key of ``[modules]``) and
  ``sockets`` (port -> place).
- ``[modules.KEY]``: a module, with the tables of a net (and ``name`` when
  it differs from its key).

Guards, inscriptions, delays and code segments are checked against the
expression language before anything is compiled; nothing in a file is
imported, unpickled or evaluated outside it.  Every error names the file,
the line when it can be found, the node and the text.
"""

from __future__ import annotations

import collections
import dataclasses
import math
import re
import tomllib
import types
import typing
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable, Mapping

import tomli_w

from .colours import FrozenDict
from .editing import hierarchy, validate
from .errors import ColourError, NetError
from .expressions import (DEFINITION_NAMES, DescribeError, ExpressionError, check_text,
                          describe, evaluate, parts, same)
from .net import P_NORMAL, PORT_KINDS, Net, Place, TimedToken

FORMAT = 1
SCALARS: dict[str, type] = {"int": int, "float": float, "str": str, "bool": bool,
                            "tuple": tuple, "FrozenDict": FrozenDict, "dict": dict}
NET_KEYS = ("name", "constants", "functions", "places", "transitions", "substitutions")
TOP_KEYS = ("format", "colours", "definitions", "modules") + NET_KEYS
PLACE_KEYS = ("colour", "initial", "timed", "fusion", "port")
TRANSITION_KEYS = ("guard", "delay", "priority", "code", "inputs", "outputs")
SUBSTITUTION_KEYS = ("module", "sockets")


class NetFileError(NetError):
    """A data file that cannot be read or a net that cannot be written; the
    message names the file, the line when known, the node and the text."""


# -- colours -------------------------------------------------------------------
@dataclass
class ColourSpec:
    """A colour as a file writes it (``text``) and as a place holds it
    (``colour``); ``fields`` for a record."""

    text: str
    colour: Any
    record: type | None = None
    fields: dict[str, "ColourSpec"] | None = None

    def accepts(self, value: Any) -> bool:
        """Whether ``value`` is of this colour; a predicate of the registry
        that fails says no (``ValueError`` with its reason)."""
        try:
            return Place("", self.colour).accepts(value)
        except Exception as error:  # noqa: BLE001 - the registry's predicate failed
            raise ValueError(f"colour {self.text} cannot tell whether {value!r} is one of "
                             f"its tokens: {type(error).__name__}: {error}") from None


ANY = ColourSpec("any", None)


def is_record(kind: Any) -> bool:
    return isinstance(kind, type) and issubclass(kind, tuple) and hasattr(kind, "_fields")


# -- tokens --------------------------------------------------------------------
def decode(value: Any, spec: ColourSpec, field: bool = False) -> Any:
    """A token of colour ``spec`` from its TOML value; ``ValueError`` says
    what does not fit.  A record's ``float`` field also takes an integer
    (as Python's own annotations do); a place's colour is the engine's
    check, exactly."""
    if spec.record is not None:
        if not isinstance(value, dict):
            raise ValueError(f"a {spec.text} record is a table of its fields, "
                             f"not {value!r}")
        unknown = [key for key in value if key not in spec.fields]
        if unknown:
            raise ValueError(f"record {spec.text} has no field {', '.join(unknown)} "
                             f"(its fields: {', '.join(spec.fields)})")
        try:
            return spec.record(**{key: decode(item, spec.fields[key], field=True)
                                  for key, item in value.items()})
        except ValueError:
            raise
        except Exception as error:  # noqa: BLE001 - a registry type refused its fields
            raise ValueError(f"record {spec.text}: {error}") from None
    if spec.colour is FrozenDict and isinstance(value, list):
        if not all(isinstance(pair, list) and len(pair) == 2 for pair in value):
            raise ValueError("a FrozenDict is a table, or an array of [key, value] pairs")
        return FrozenDict((plain(k), plain(v)) for k, v in value)
    token = plain(value)
    if field and spec.colour is float and type(token) is int:
        return token
    if not spec.accepts(token):
        raise ValueError(f"{token!r} is not of colour {spec.text}")
    return token


def plain(value: Any) -> Any:
    """A TOML value as a token: arrays are tuples, tables ``FrozenDict``."""
    if isinstance(value, list):
        return tuple(plain(item) for item in value)
    if isinstance(value, dict):
        return FrozenDict((key, plain(item)) for key, item in value.items())
    if type(value) in (bool, int, float, str):
        return value
    raise ValueError(f"{value!r} is a {type(value).__name__}: tokens and constants are "
                     "numbers, strings, booleans, arrays and tables")


def encode(value: Any, spec: ColourSpec) -> Any:
    """The TOML value of a token (the inverse of :func:`decode`)."""
    if spec.record is not None and is_record(type(value)):
        return {key: encode(getattr(value, key), spec.fields[key]) for key in spec.fields}
    if value is None:
        raise ValueError("None has no TOML form")
    if type(value) in (bool, int, float, str):
        return value
    if type(value) in (tuple, list):
        return [encode(item, ANY) for item in value]
    if type(value) in (dict, FrozenDict):
        if all(isinstance(key, str) for key in value):
            return {key: encode(item, ANY) for key, item in value.items()}
        return [[encode(key, ANY), encode(item, ANY)] for key, item in value.items()]
    raise ValueError(f"{value!r} is a {type(value).__name__}, which a data file holds only "
                     "as a place's record tokens")


def equivalent(a: Any, b: Any) -> bool:
    """Equal values of types of the same names, all the way down: a token
    read back is the token written."""
    if type(a).__name__ != type(b).__name__:
        return False
    if isinstance(a, (tuple, list)):
        return len(a) == len(b) and all(equivalent(x, y) for x, y in zip(a, b))
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(equivalent(a[k], b[k]) for k in a)
    return a == b or (isinstance(a, float) and math.isnan(a) and math.isnan(b))


# -- writing -------------------------------------------------------------------
def save(net: Net, path: str | Path, functions: Mapping[str, Any] | None = None) -> None:
    """Write ``net`` to ``path`` (see :func:`dumps`)."""
    Path(path).write_text(dumps(net, functions), encoding="utf-8")


def dumps(net: Net, functions: Mapping[str, Any] | None = None) -> str:
    """``net`` as a data file.  ``functions`` names what its environments
    hold that is not plain data (the registry :func:`load` will be given);
    whatever cannot be written so that it reads back the same is refused,
    naming it."""
    validate(net)
    return tomli_w.dumps(_Writer(_registry(functions)).document(net),
                         multiline_strings=True)


class _Writer:
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
        if isinstance(colour, tuple):
            specs = [self.colour(kind, where) for kind in colour]
            return ColourSpec(" | ".join(spec.text for spec in specs), colour)
        for name, kind in SCALARS.items():
            if colour is kind:
                return ColourSpec(name, colour)
        name = next((n for n, entry in self.registry.items() if entry is colour), None)
        if is_record(colour):
            return self.record(colour, name or colour.__name__, where)
        if name is None:
            raise self.fail(where, f"its colour {getattr(colour, '__name__', colour)!r} is "
                                   "not in the registry: add it (by the name the file "
                                   "should use)")
        return ColourSpec(name, colour)

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


# -- reading -------------------------------------------------------------------
def load(path: str | Path, functions: Mapping[str, Any] | None = None) -> Net:
    """The net of the data file ``path``; ``functions`` is the registry its
    ``[functions]`` and colours may name (nothing else is callable)."""
    try:
        data = Path(path).read_bytes()
    except OSError as error:
        raise NetFileError(f"{path}: cannot read it: {error.strerror or error}") from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise NetFileError(f"{path}: not UTF-8 text (byte {error.start})") from None
    return loads(text, functions, source=str(path))


def loads(text: str, functions: Mapping[str, Any] | None = None,
          source: str = "<net file>") -> Net:
    """The net of data file text ``text``; ``source`` names it in errors."""
    registry = _registry(functions)
    try:
        document = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise NetFileError(f"{source}: not TOML: {error}") from None
    except RecursionError:
        raise NetFileError(f"{source}: not TOML: values nested too deeply") from None
    try:
        net = _Reader(source, text, registry).document(document, Path(source).stem)
    except RecursionError:
        raise NetFileError(f"{source}: values nested too deeply") from None
    try:
        validate(net)
    except (NetError, ColourError) as error:
        raise NetFileError(f"{source}: {error}") from None
    return net


def _registry(functions: Mapping[str, Any] | None) -> dict[str, Any]:
    registry = dict(functions or {})
    for name, value in registry.items():
        if not isinstance(name, str) or not name.isidentifier() or name.startswith("_"):
            raise NetFileError(f"registry: {name!r} is not a name a file can use "
                               "(an identifier not starting with '_')")
        if isinstance(value, types.ModuleType):
            raise NetFileError(f"registry: {name!r} is a module, which would open "
                               "everything it imports to the file: register its "
                               "functions one by one")
    return registry


class _Reader:
    def __init__(self, source: str, text: str, registry: dict[str, Any]):
        self.source, self.lines, self.registry = source, text.splitlines(), registry
        self.colours: dict[str, ColourSpec] = {}
        self.module_tables: dict = {}
        self.modules: dict[str, Net] = {}
        self.building: list[str] = []
        self.definitions: dict[str, Any] = {}

    # -- errors, with the line when it can be found
    def fail(self, where: tuple[str, ...], message: str, *needles: str) -> NetFileError:
        line = self.line_of(where, needles)
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
        return self.net({key: document[key] for key in NET_KEYS if key in document}, (),
                        default_name)

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
        specs = []
        for name in (part.strip() for part in text.split("|")):
            if name == "any" and "|" not in text:
                return ANY
            if name in SCALARS:
                specs.append(ColourSpec(name, SCALARS[name]))
            elif name in self.colours:
                specs.append(self.colours[name])
            elif name in self.registry and (isinstance(self.registry[name], type)
                                            or callable(self.registry[name])):
                specs.append(ColourSpec(name, self.registry[name]))
            else:
                raise self.fail(where, f"unknown colour {name!r} (built in: "
                                       f"{', '.join(SCALARS)}, any; or a record of "
                                       "[colours], or a type of the registry)", text)
        if len(specs) == 1:
            return specs[0]
        kinds = tuple(spec.colour for spec in specs)
        if not all(isinstance(kind, type) for kind in kinds):
            raise self.fail(where, f"{text!r}: only types can be joined with '|'", text)
        return ColourSpec(text, kinds)

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
            raise self.fail(where, f"{error} (the registry names: "
                                   f"{', '.join(self.registry) or 'nothing'})", text) from None
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
                raise self.fail(where, f"a token's time 'at' is a number, not {at!r}",
                                "initial")
            value = value["token"]
        try:
            token = decode(value, spec)
        except ValueError as error:
            raise self.fail(where, f"initial token: {error}", "initial") from None
        return token if at is None else TimedToken(token, float(at))

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
                for text in (inscriptions if isinstance(inscriptions, list)
                             else [inscriptions]):
                    if type(text) in (int, float):
                        text = str(text)
                    text = self.string(text, where, f"{direction}.{place}")
                    self.text(text, "inscription", names, where)
                    if direction == "inputs":
                        net.arc(place, name, text)
                    else:
                        net.arc(name, place, text)

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
