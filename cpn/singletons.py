"""Places that always hold exactly one token (a machine's free nodes, a
clock): found once from the net's text, so that a binding search can take
them first, the simulator can overwrite their token in place, and a
transition need not be searched again when a value it cannot feel changes."""

from __future__ import annotations

import ast
from typing import Any

from .codegen import TEST, SearchStep
from .flatten import FlatNet
from .inscription import check_expression, free_names, parse_terms


def singleton_places(net: FlatNet) -> set[int]:
    """Places that always hold exactly one token: one initially, and every
    transition puts back as many as it takes (one at most).  A search binds
    them first: they offer one choice, so the loops over places of many
    tokens come innermost, with every guard on singletons already decided,
    and the bindings are found in the same order as before."""
    balance: dict[int, int] = {p.index: 0 for p in net.places if len(p.initial) == 1}
    irregular: set[int] = set()

    def count(place: int, text: str, sign: int, taken: dict) -> None:
        try:
            terms = parse_terms(text)
        except SyntaxError:
            irregular.add(place)
            return
        for term in terms:
            if term.splat or not isinstance(term.multiplicity, int):
                irregular.add(place)
            else:
                taken[place] = taken.get(place, 0) + sign * term.multiplicity

    for t in net.transitions:
        taken: dict[int, int] = {}
        for place, text in t.inputs:
            count(place, text, 1, taken)
        consumed = {place: n for place, n in taken.items() if n}
        for place, text in t.outputs:
            count(place, text, -1, taken)
        irregular.update(place for place, n in taken.items() if n)
        irregular.update(place for place, n in consumed.items() if n > 1)
    return set(balance) - irregular


def value_blind(steps: list[SearchStep], net: FlatNet, singletons: frozenset,
                env: dict[str, Any], guard: str | None) -> list[int]:
    """The untimed singleton input places of a transition (its search's
    ``steps``) whose every term is a bare variable that no guard and no
    other input term reads: their token's value cannot change whether it
    is enabled."""
    terms: dict[int, list] = {}
    for step in steps:
        if step.kind != TEST:
            terms.setdefault(step.token.place, []).append(step.node)
    guard_names = free_names(check_expression(guard)) if guard else set()
    blind = []
    for place, nodes in terms.items():
        if place not in singletons or net.places[place].timed:
            continue
        if not all(isinstance(node, ast.Name) and node.id not in env for node in nodes):
            continue
        names = {node.id for node in nodes}
        read_elsewhere = set(guard_names)
        for other, others in terms.items():
            if other != place:
                for node in others:
                    read_elsewhere |= free_names(node)
        if not names & read_elsewhere:
            blind.append(place)
    return blind
