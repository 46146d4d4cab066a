"""What differs between two nets, printed so a person can read it.

A study that edits a published net records exactly how its net differs
from the paper's: ``print(cpn.diff(paper, study))``.  Nets are compared
node by node through their hierarchies (a module's nodes by their path,
``Allocation/Wait``): places (colour, timing, initial marking, fusion set,
port), transitions (guard, delay, priority, code segment), arcs and their
inscriptions, substitutions (module and socket map) and the environments'
names and values (functions compared by what they are: the same function
with the same fixed arguments, a method of equal objects).

>>> from cpn import Net
>>> a = Net("loop")
>>> _ = a.place("P", int, initial=[0])
>>> _ = a.transition("Tick", guard="x < 10")
>>> a.arc("P", "Tick", "x"); a.arc("Tick", "P", "x + 1")
>>> b = a.copy()
>>> b.set_guard("Tick", "x < 5"); b.set_inscription("Tick", "P", "x + 2")
>>> print(diff(a, b))
net 'loop' -> net 'loop': 2 differences
  ~ transition Tick: guard 'x < 10' -> 'x < 5'
  ~ arc Tick -> P: 'x + 1' -> 'x + 2'
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Iterator

from .expressions import describe, same
from .net import Net, Place, Transition


@dataclass(frozen=True)
class Difference:
    """One difference: ``+`` only in the second net, ``-`` only in the
    first, ``~`` changed; ``what`` names the node, ``detail`` says how."""

    change: str
    what: str
    detail: str

    def __str__(self) -> str:
        return f"{self.change} {self.what}: {self.detail}"


@dataclass
class NetDiff:
    """The differences between two nets, in the order of the first net's
    declarations; empty (false) when the nets are the same."""

    before: str
    after: str
    differences: list[Difference] = field(default_factory=list)

    def __bool__(self) -> bool:
        return bool(self.differences)

    def __len__(self) -> int:
        return len(self.differences)

    def __iter__(self) -> Iterator[Difference]:
        return iter(self.differences)

    def __str__(self) -> str:
        head = f"net {self.before!r} -> net {self.after!r}: "
        if not self.differences:
            return head + "no differences"
        count = len(self.differences)
        return "\n".join([head + f"{count} difference{'' if count == 1 else 's'}"]
                         + [f"  {d}" for d in self.differences])


def diff(a: Net, b: Net) -> NetDiff:
    """What differs from net ``a`` to net ``b``."""
    result = NetDiff(a.name, b.name)
    _compare(a, b, "", result.differences)
    return result


def _compare(a: Net, b: Net, prefix: str, out: list[Difference]) -> None:
    if a is b:
        return
    if a.name != b.name and prefix:
        out.append(Difference("~", f"module {prefix.rstrip('/')}",
                              f"{a.name!r} -> {b.name!r}"))
    _compare_env(a.env, b.env, prefix, out)
    _compare_nodes(a.places, b.places, "place", prefix, _place_fields, out)
    _compare_nodes(a.transitions, b.transitions, "transition", prefix,
                   _transition_fields, out)
    _compare_arcs(a, b, prefix, out)
    for name in _union(a.substitutions, b.substitutions):
        what = f"substitution {prefix}{name}"
        if name not in b.substitutions:
            out.append(Difference("-", what, f"module {a.substitutions[name].module.name!r}"))
        elif name not in a.substitutions:
            out.append(Difference("+", what, f"module {b.substitutions[name].module.name!r}"))
        else:
            old, new = a.substitutions[name], b.substitutions[name]
            if dict(old.sockets) != dict(new.sockets):
                out.append(Difference("~", what, f"sockets {_sockets(old)} -> {_sockets(new)}"))
            _compare(old.module, new.module, f"{prefix}{name}/", out)


def _union(a: dict, b: dict) -> list[str]:
    return list(a) + [name for name in b if name not in a]


def _sockets(sub) -> str:
    return "{" + ", ".join(f"{port}: {socket}" for port, socket in sub.sockets) + "}"


def _compare_env(a: dict, b: dict, prefix: str, out: list[Difference]) -> None:
    for name in _union(a, b):
        what = f"env {prefix}{name}"
        if name not in b:
            out.append(Difference("-", what, describe(a[name])))
        elif name not in a:
            out.append(Difference("+", what, describe(b[name])))
        elif not same(a[name], b[name]):
            out.append(Difference("~", what, changed(describe(a[name]), describe(b[name]))))


def changed(old: str, new: str, short: int = 60) -> str:
    """``old -> new``; when long, only the arguments that differ
    (``…wait_queue_length=0… -> …wait_queue_length=10…``)."""
    if len(old) <= short and len(new) <= short:
        return f"{old} -> {new}"
    a, b = _ARGUMENTS.findall(old), _ARGUMENTS.findall(new)
    head = 0
    while head < min(len(a), len(b)) and a[head] == b[head]:
        head += 1
    tail = 0
    while tail < min(len(a), len(b)) - head and a[-1 - tail] == b[-1 - tail]:
        tail += 1
    if head and (head == len(a) - tail or head == len(b) - tail):
        head -= 1 + (a[head - 1] in ",([)]")  # show what the shorter one ends with

    def middle(parts: list[str]) -> str:
        return ("…" if head else "") + "".join(parts[head:len(parts) - tail]).strip() \
            + ("…" if tail else "")
    return f"{middle(a)} -> {middle(b)}"


_ARGUMENTS = re.compile(r"[^,()\[\]]+|[,()\[\]]")


def _place_fields(place: Place) -> dict[str, str]:
    return {"colour": place.colour_name, "timed": str(place.timed),
            "initial": _tokens(place.initial), "fusion": repr(place.fusion),
            "port": repr(place.port)}


def _tokens(tokens: list, limit: int = 80) -> str:
    text = repr(list(tokens))
    return text if len(text) <= limit else text[:limit - 1] + "…"


def _transition_fields(transition: Transition) -> dict[str, str]:
    return {"guard": repr(transition.guard), "delay": repr(transition.delay),
            "priority": str(transition.priority), "code": repr(transition.code)}


def _compare_nodes(a: dict, b: dict, kind: str, prefix: str, fields,
                   out: list[Difference]) -> None:
    for name in _union(a, b):
        what = f"{kind} {prefix}{name}"
        if name not in b or name not in a:
            node = a[name] if name in a else b[name]
            shown = ", ".join(f"{key} {value}" for key, value in fields(node).items()
                              if value not in ("None", "False", "[]"))
            out.append(Difference("-" if name in a else "+", what, shown or kind))
            continue
        old, new = fields(a[name]), fields(b[name])
        if a[name] != b[name] and old == new:  # colours of one name, or equal-looking tokens
            old, new = {"declaration": repr(a[name])}, {"declaration": repr(b[name])}
        changed = [f"{key} {old[key]} -> {new[key]}" for key in old if old[key] != new[key]]
        if changed:
            out.append(Difference("~", what, "; ".join(changed)))


def _compare_arcs(a: Net, b: Net, prefix: str, out: list[Difference]) -> None:
    def by_ends(net: Net) -> dict[tuple[str, str], Counter]:
        ends: dict[tuple[str, str], Counter] = {}
        for arc in net.arcs:
            ends.setdefault((arc.source, arc.target), Counter())[arc.inscription] += 1
        return ends

    old, new = by_ends(a), by_ends(b)
    for ends in _union(old, new):
        what = f"arc {prefix}{ends[0]} -> {prefix}{ends[1]}"
        removed = list((old.get(ends, Counter()) - new.get(ends, Counter())).elements())
        added = list((new.get(ends, Counter()) - old.get(ends, Counter())).elements())
        while removed and added:
            out.append(Difference("~", what, f"{removed.pop(0)!r} -> {added.pop(0)!r}"))
        out += [Difference("-", what, repr(text)) for text in removed]
        out += [Difference("+", what, repr(text)) for text in added]

