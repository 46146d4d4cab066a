"""Editing a net: remove, change and rename its nodes, swap a module, copy it.

A net built by a function (``nets.puppet.build_net``) is a starting point:
a study changes one guard, removes one arc or swaps the scheduler, and
keeps the rest.  Nodes are named by their path from the net being edited
(``Allocation/Allocate`` is *Allocate* in the module of substitution
*Allocation*), as the simulator names them; an edit through a path changes
that module, so every substitution using the same module object sees it.

Each edit checks what a builder checks (the node exists, a new name is
free, text parses), then the whole net is validated as a simulator would
build it (flattened and compiled); an edit that leaves the net invalid is
undone and raises.  ``with net.edit():`` groups edits that are only valid
together: the net is validated once at the end, and if it is invalid, or
the block raises, every edit of the block is undone.

Edits never change a place, transition, arc or environment object in
place; they put new ones in the net.  A :class:`~cpn.Simulator` built
before keeps what it compiled (its flat net holds the old objects) and
runs on unchanged.
"""

from __future__ import annotations

import copy
import weakref
from contextlib import contextmanager
from dataclasses import replace
from typing import Any, Iterable, Iterator

from .colour_sets import declared
from .compiler import compile_net
from .errors import ColourError, NetError
from .inscription import check_expression, parse_terms
from .net import Arc, Net, Substitution
from .net_arguments import check_token_list, checked_priority, socket_pairs

_open_edits: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


# -- finding nodes -------------------------------------------------------------
def resolve(net: Net, path: str) -> tuple[Net, str, list[tuple[Net, str]]]:
    """The net that holds the node at ``path``, its local name, and the
    substitutions walked through to reach it (enclosing net, name)."""
    *modules, name = path.split("/")
    owner, walked = net, []
    for position, step in enumerate(modules):
        if step not in owner.substitutions:
            where = "/".join(modules[:position]) or f"net '{net.name}'"
            raise NetError(f"no substitution transition '{step}' in {where} "
                           f"(on the path '{path}')")
        walked.append((owner, step))
        owner = owner.substitutions[step].module
    return owner, name, walked


def _place(net: Net, path: str) -> tuple[Net, str, list]:
    owner, name, walked = resolve(net, path)
    if name not in owner.places:
        raise NetError(f"net '{net.name}': no place '{path}'" + _nearby(owner.places))
    return owner, name, walked


def _transition(net: Net, path: str) -> tuple[Net, str]:
    owner, name, _ = resolve(net, path)
    if name not in owner.transitions:
        kind = " (it is a substitution transition)" if name in owner.substitutions else ""
        raise NetError(f"net '{net.name}': no transition '{path}'{kind}"
                       + _nearby(owner.transitions))
    return owner, name


def _nearby(names: Iterable[str]) -> str:
    names = list(names)
    return f" (there: {', '.join(names)})" if names else ""


def _arcs(net: Net, source: str, target: str, inscription: str | None) -> tuple[Net, list[int]]:
    """The net holding the arcs ``source -> target`` and the positions of
    those with ``inscription`` (all of them when None)."""
    owner, source_name, _ = resolve(net, source)
    other, target_name, _ = resolve(net, target)
    if other is not owner:
        raise NetError(f"net '{net.name}': '{source}' and '{target}' are not in the same "
                       "net, so no arc joins them")
    joining = [i for i, arc in enumerate(owner.arcs)
               if arc.source == source_name and arc.target == target_name]
    chosen = [i for i in joining
              if inscription is None or owner.arcs[i].inscription == str(inscription)]
    if not chosen:
        found = ", ".join(repr(owner.arcs[i].inscription) for i in joining)
        raise NetError(f"net '{net.name}': no arc {source} -> {target}"
                       + (f" {str(inscription)!r}" if inscription is not None else "")
                       + (f" (its arcs there: {found})" if found else ""))
    if inscription is None and len(chosen) > 1:
        found = ", ".join(repr(owner.arcs[i].inscription) for i in chosen)
        raise NetError(f"net '{net.name}': {len(chosen)} arcs {source} -> {target} "
                       f"({found}): say which by its inscription")
    return owner, chosen


# -- validating, undoing -------------------------------------------------------
def validate(net: Net) -> None:
    """Flatten and compile ``net`` as a simulator would: raises
    :class:`NetError` or :class:`ColourError` naming what is wrong."""
    compile_net(net.flatten())


def hierarchy(net: Net, seen: dict[int, Net] | None = None) -> dict[int, Net]:
    """``net`` and every module under it, each once (by identity)."""
    seen = {} if seen is None else seen
    if id(net) not in seen:
        seen[id(net)] = net
        for sub in net.substitutions.values():
            hierarchy(sub.module, seen)
    return seen


class _Snapshot:
    """The containers of every net of a hierarchy, to put back: edits put
    new objects in them and never change the objects themselves."""

    def __init__(self, net: Net):
        self.saved = [(each, each.name, each.env, dict(each.places), dict(each.transitions),
                       list(each.arcs), dict(each.substitutions))
                      for each in hierarchy(net).values()]

    def restore(self) -> None:
        for each, name, env, places, transitions, arcs, substitutions in self.saved:
            each.name, each.env = name, env
            each.places, each.transitions, each.arcs = places, transitions, arcs
            each.substitutions = substitutions


@contextmanager
def editing(net: Net, what: str = "the edits") -> Iterator[Net]:
    """Edits of ``net`` inside the block are kept only if the net is valid
    at its end (and the block did not raise); nested blocks are validated
    by the outermost."""
    if net in _open_edits:
        yield net
        return
    snapshot = _Snapshot(net)
    _open_edits[net] = True
    try:
        yield net
        try:
            validate(net)
        except (NetError, ColourError) as error:
            said = str(error).removeprefix(f"net '{net.name}', ")  # named already
            raise type(error)(f"{what} would leave net '{net.name}' invalid, so the net "
                              f"is unchanged: {said}") from None
    except BaseException:
        snapshot.restore()
        raise
    finally:
        del _open_edits[net]


# -- the edits -----------------------------------------------------------------
def remove_place(net: Net, path: str) -> list[Arc]:
    """Remove a place and every arc joining it; returns those arcs.  A
    place that is a socket, or a port a substitution assigns, stays: remove
    or replace that substitution first."""
    with editing(net, f"removing place '{path}'"):
        owner, name, walked = _place(net, path)
        for sub in owner.substitutions.values():
            for port, socket in sub.sockets:
                if socket == name:
                    raise NetError(f"net '{net.name}': place '{path}' is the socket of "
                                   f"port '{port}' of substitution '{sub.name}': remove or "
                                   "replace that substitution first")
        if walked and owner.places[name].port is not None:
            raise NetError(f"net '{net.name}': place '{path}' is a port of module "
                           f"'{owner.name}': replace the module instead")
        del owner.places[name]
        return _drop_arcs(owner, name)


def remove_transition(net: Net, path: str) -> list[Arc]:
    """Remove a transition (or a substitution transition, and so its
    module's nodes) and every arc joining it; returns those arcs."""
    with editing(net, f"removing transition '{path}'"):
        owner, name, _ = resolve(net, path)
        if name in owner.substitutions:
            del owner.substitutions[name]
        else:
            owner, name = _transition(net, path)
            del owner.transitions[name]
        return _drop_arcs(owner, name)


def _drop_arcs(owner: Net, node: str) -> list[Arc]:
    removed = [arc for arc in owner.arcs if node in (arc.source, arc.target)]
    owner.arcs = [arc for arc in owner.arcs if node not in (arc.source, arc.target)]
    return removed


def remove_arc(net: Net, source: str, target: str, inscription: str | None = None) -> Arc:
    """Remove the arc ``source -> target`` (the one with ``inscription``
    when several join them); returns it."""
    with editing(net, f"removing arc {source} -> {target}"):
        owner, (position,) = _arcs(net, source, target, inscription)
        arcs = list(owner.arcs)
        removed = arcs.pop(position)
        owner.arcs = arcs
        return removed


def set_inscription(net: Net, source: str, target: str, text: str | int | float,
                    old: str | None = None) -> None:
    """Change the inscription of the arc ``source -> target`` (the one
    inscribed ``old`` when several join them)."""
    text = str(text)
    with editing(net, f"changing arc {source} -> {target} to {text!r}"):
        owner, (position,) = _arcs(net, source, target, old)
        _parse(lambda: parse_terms(text), net, f"arc {source} -> {target}", text)
        arcs = list(owner.arcs)
        arcs[position] = replace(arcs[position], inscription=text)
        owner.arcs = arcs


def _parse(parse, net: Net, where: str, text: str) -> None:
    try:
        parse()
    except SyntaxError as error:
        raise NetError(f"net '{net.name}', {where}: cannot parse {text!r}: "
                       f"{error.msg}") from None


def change_transition(net: Net, path: str, **fields: Any) -> None:
    """Change a transition's ``guard``, ``delay``, ``priority`` or ``code``
    (None clears a guard, delay or code)."""
    what = ", ".join(f"the {field} of '{path}'" for field in fields)
    with editing(net, f"changing {what}"):
        owner, name = _transition(net, path)
        for field, value in fields.items():
            if field == "priority":
                value = checked_priority(value, f"net '{net.name}', transition '{path}'")
            elif value is not None:
                value = str(value)
                if field != "code":
                    _parse(lambda: check_expression(value), net,
                           f"transition '{path}', {field}", value)
            fields[field] = value
        owner.transitions[name] = replace(owner.transitions[name], **fields)


def change_place(net: Net, path: str, **fields: Any) -> None:
    """Change a place's ``colour`` or ``initial`` marking; its tokens must
    belong to its colour."""
    what = " and ".join(f"the {field} of '{path}'" for field in fields)
    with editing(net, f"changing {what}"):
        owner, name, _ = _place(net, path)
        if "colour" in fields:
            fields["colour"] = declared(fields["colour"], f"net '{net.name}', place '{path}'")
        if "initial" in fields:
            tokens = fields["initial"]
            check_token_list(tokens, f"net '{net.name}', place '{path}'",
                             f"set_initial({path!r}, [{tokens!r}])")
            fields["initial"] = list(tokens)
        owner.places[name] = replace(owner.places[name], **fields)


def set_env(net: Net, path: str, value: Any) -> None:
    """Bind ``value`` to a name of an environment: ``"name"`` in the net's
    own, ``"Scheduler/name"`` in the module of substitution *Scheduler*."""
    with editing(net, f"setting '{path}'"):
        owner, name, _ = resolve(net, path)
        if not name.isidentifier():
            raise NetError(f"net '{net.name}': {name!r} (in '{path}') is not a Python name")
        owner.env = {**owner.env, name: value}


def rename(net: Net, path: str, new: str) -> None:
    """Rename the node at ``path`` to ``new`` (a name, not a path), keeping
    its place in the order of its net.  Its arcs follow; a place keeps its
    fusion set; a renamed socket follows in the socket maps of its net, and
    a renamed port in every substitution of the hierarchy that uses its
    module."""
    with editing(net, f"renaming '{path}' to '{new}'"):
        owner, old, _ = resolve(net, path)
        if old not in owner.places and old not in owner.transitions \
                and old not in owner.substitutions:
            raise NetError(f"net '{net.name}': no node '{path}'")
        if new == old:
            return
        owner._check_new_name(new)
        owner.arcs = [replace(arc, source=new if arc.source == old else arc.source,
                              target=new if arc.target == old else arc.target)
                      for arc in owner.arcs]
        if old in owner.places:
            owner.places = _renamed(owner.places, old, new, replace(owner.places[old], name=new))
            owner.substitutions = {
                name: replace(sub, sockets=[(port, new if socket == old else socket)
                                            for port, socket in sub.sockets])
                for name, sub in owner.substitutions.items()}
            if owner.places[new].port is not None:
                _rename_port(net, owner, old, new)
        elif old in owner.transitions:
            owner.transitions = _renamed(owner.transitions, old, new,
                                         replace(owner.transitions[old], name=new))
        else:
            owner.substitutions = _renamed(owner.substitutions, old, new,
                                           replace(owner.substitutions[old], name=new))


def _renamed(nodes: dict, old: str, new: str, node: Any) -> dict:
    return {(new if name == old else name): (node if name == old else value)
            for name, value in nodes.items()}


def _rename_port(net: Net, module: Net, old: str, new: str) -> None:
    for each in hierarchy(net).values():
        each.substitutions = {
            name: (replace(sub, sockets=[(new if port == old else port, socket)
                                         for port, socket in sub.sockets])
                   if sub.module is module else sub)
            for name, sub in each.substitutions.items()}


def replace_module(net: Net, path: str, module: Net,
                   sockets: dict[str, str] | Iterable[tuple[str, str]] | None = None) -> None:
    """Instantiate ``module`` at substitution ``path`` instead of its
    current module, with ``sockets`` (port -> socket) or, by default, the
    current ones.  Every port of the module must be assigned, and only
    ports; their colours must match the sockets'."""
    with editing(net, f"replacing the module of '{path}' by '{module.name}'"):
        owner, name, _ = resolve(net, path)
        if name not in owner.substitutions:
            raise NetError(f"net '{net.name}': no substitution transition '{path}'"
                           + _nearby(owner.substitutions))
        old = owner.substitutions[name]
        pairs = (old.sockets if sockets is None else
                 socket_pairs(sockets, f"net '{net.name}', substitution '{path}'"))
        ports = [p for p, place in module.places.items() if place.port is not None]
        assigned = [port for port, _ in pairs]
        unknown = [port for port in assigned if port not in ports]
        missing = [port for port in ports if port not in assigned]
        if unknown or missing:
            problems = ([f"it has no port {', '.join(map(repr, unknown))}"] if unknown else [])
            problems += ([f"port {', '.join(map(repr, missing))} would have no socket"]
                         if missing else [])
            raise NetError(f"net '{net.name}', substitution '{path}': module "
                           f"'{module.name}' does not fit the sockets: "
                           f"{'; '.join(problems)} (its ports: {', '.join(ports) or 'none'})")
        owner.substitutions[name] = Substitution(name, module, pairs)


def copy_net(net: Net, copies: dict[int, Net] | None = None) -> Net:
    """A copy to edit on its own: every net of the hierarchy copied (a
    module used twice is copied once, and still used twice), every node
    copied; environment values and tokens (immutable) shared."""
    copies = {} if copies is None else copies
    if id(net) in copies:
        return copies[id(net)]
    new = copy.copy(net)
    copies[id(net)] = new
    new.env = dict(net.env)
    new.places = {name: replace(place, initial=list(place.initial))
                  for name, place in net.places.items()}
    new.transitions = {name: replace(t) for name, t in net.transitions.items()}
    new.arcs = [replace(arc) for arc in net.arcs]
    new.substitutions = {name: Substitution(sub.name, copy_net(sub.module, copies),
                                            list(sub.sockets))
                         for name, sub in net.substitutions.items()}
    return new

