"""Where a node of a data file is in its text, for error messages.

``tomllib`` keeps no positions, so the line of a node is found in the text:
the tables of a node are its header and every sub-table under it (a
transition with no guard is written as ``[transitions.T.inputs]`` and
``[transitions.T.outputs]`` alone), and a key of a table may be written in
a sub-table, inline (``outputs = { P = "x" }``) or dotted.  Errors that
come from compiling the built net name flattened paths (``transition
'Scheduler/Submit', arc Scheduler/Submit -> Queuing``), which are mapped
back to the module's tables through the net's substitutions.
"""

from __future__ import annotations

import re
import tomllib
from typing import Iterable, Mapping

from .net import Net


def table_path(line: str) -> tuple[str, ...] | None:
    """The keys of a table header (``[modules."M".places.P]``), or None
    for any other line (an array of arrays starts with ``[`` too)."""
    stripped = line.strip()
    if not stripped.startswith("[") or stripped.startswith("[["):
        return None
    try:
        table = tomllib.loads(stripped)
    except tomllib.TOMLDecodeError:
        return None
    keys = []
    while isinstance(table, dict) and len(table) == 1:
        key, table = next(iter(table.items()))
        keys.append(key)
    return tuple(keys) if keys else None


def locate(lines: list[str], path: tuple[str, ...], keys: Iterable[str] = (),
           texts: Iterable[str] = ()) -> int | None:
    """The line (from 1) of the table ``path``: of its ``keys`` in order
    (``("outputs", "P")``: the key ``P`` of its outputs), else of the first
    of ``texts`` in its lines, else of its header.  A table without a
    header of its own is looked for in its parent, its name becoming the
    first key; a key with a table of its own is looked for as that table."""
    keys, texts = list(keys), [text for text in texts if text]
    while True:
        numbers = _lines_of(lines, path)
        if numbers:
            break
        if not path:
            return None
        path, keys = path[:-1], [path[-1], *keys]
    while keys and _lines_of(lines, path + (keys[0],)):  # ``[transitions.T.outputs]``
        path, keys = path + (keys[0],), keys[1:]
        numbers = _lines_of(lines, path)
    found = None
    for key in keys:
        pattern = re.compile(rf'(^|[{{,.]\s*)("{re.escape(key)}"|{re.escape(key)})\s*[.=]')
        start = numbers.index(found) if found is not None else 0
        match = next((n for n in numbers[start:] if pattern.search(lines[n].strip())), None)
        if match is None:
            break
        found = match
    if found is None:
        found = next((n for text in texts for n in numbers if text in lines[n]), None)
    return (numbers[0] if found is None else found) + 1


def _lines_of(lines: list[str], path: tuple[str, ...]) -> list[int]:
    """The indexes of the lines of the table ``path`` and its sub-tables
    (all lines for the top, up to its first header)."""
    numbers, inside = [], not path
    for number, line in enumerate(lines):
        keys = table_path(line)
        if keys is not None:
            inside = keys[:len(path)] == path
        if inside:
            numbers.append(number)
    return numbers


def line_of_error(message: str, lines: list[str], net: Net,
                  modules: Mapping[str, Net]) -> int | None:
    """The line of what a compile error of the built ``net`` names: the
    key of an arc, the guard, code or delay of a transition, a place, a
    substitution; ``modules`` are the nets of ``[modules]`` by key."""
    arc = re.search(r"arc (\S+) -> (\S+)", message)
    node = re.match(r"(place|transition|substitution) '([^']*)'", message)
    texts = re.findall(r"'([^']+)'", message[node.end():] if node else message)
    if node is not None:
        kind, name = node.group(1), node.group(2)
        prefix, owner, local = _table_of(name, net, modules)
        if prefix is None:
            return None
        path, keys = prefix + (f"{kind}s", local), []
        if kind == "transition" and arc is not None:
            output = arc.group(1) == name
            place = (arc.group(2) if output else arc.group(1)).rsplit("/", 1)[-1]
            keys = ["outputs" if output else "inputs", place]
        elif kind == "transition":
            keys = [word for word in ("guard", "code", "delay")
                    if re.search(rf", {word}\b|^{word}\b", message[node.end():])]
        return locate(lines, path, keys, texts)
    if arc is not None:  # flattening: ``arc A -> B in 'where'``
        where = re.search(r" in '([^']*)'", message)
        prefix, owner, _ = _table_of(f"{where.group(1) if where else ''}/", net, modules)
        if prefix is None:  # ``where`` is the top net's name
            prefix, owner = (), net
        source, target = arc.group(1), arc.group(2)
        if target in owner.transitions or source not in owner.transitions:
            return locate(lines, prefix + ("transitions", target), ["inputs", source], texts)
        return locate(lines, prefix + ("transitions", source), ["outputs", target], texts)
    return None


def _table_of(path: str, net: Net, modules: Mapping[str, Net]
              ) -> tuple[tuple[str, ...] | None, Net, str]:
    """The tables' prefix (``("modules", "M")``) and net of the module a
    flattened path (``Scheduler/Submit``) lies in, and its local name."""
    *subs, local = path.split("/")
    prefix, owner = (), net
    for sub in subs:
        substitution = owner.substitutions.get(sub)
        if substitution is None:
            return None, owner, local
        owner = substitution.module
        key = next((key for key, module in modules.items() if module is owner), None)
        if key is None:
            return None, owner, local
        prefix = ("modules", key)
    return prefix, owner, local
