"""Places that always hold exactly one token (a machine's free nodes, a
clock): found once from the net's text, so that a binding search can take
them first and the simulator can overwrite their token in place."""

from __future__ import annotations

from .flatten import FlatNet
from .inscription import parse_terms


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
