"""One answer kept per question of a rule.

A transition's guard and then its code, or the guards of two transitions
in turn, ask a rule the same question of the same tokens between two
firings that change them (the DVFS level, whether a job fails first).
Tokens are immutable, so the very same objects get the same answer: it is
kept rather than worked out again.
"""

from __future__ import annotations

import inspect
from functools import wraps
from typing import Callable, TypeVar

T = TypeVar("T")

# The wrapper of a method of the parameters {names}: the question is told
# apart by identity, one ``is`` per parameter written out (a generic
# ``all(map(is_, ...))`` over a tuple of them costs as much as the hit).
_ASKED = """
def asked(_rules, {names}):
    _last = _rules.__dict__.get(_name)
    if _last is not None and {same}:
        return _last[-1]
    _value = _method(_rules, {names})
    _rules.__dict__[_name] = ({names}, _value)
    return _value
"""


def keeps_last_answer(method: Callable[..., T]) -> Callable[..., T]:
    """``method`` of a rule, answering from the answer it last gave when
    asked again with the very same objects.  The rule is a frozen
    dataclass: the answer lives in its ``__dict__``, not in a field, so it
    is neither compared nor refused by the freezing.  Questions come at
    every change of power, tens of thousands a run: a hit costs one call.
    ``method`` takes its question as positional parameters (no defaults,
    no ``*args``, no leading underscore): it is asked with all of them."""
    _, *names = inspect.signature(method).parameters.values()
    if not names or any(p.kind != p.POSITIONAL_OR_KEYWORD or p.default is not p.empty
                        or p.name.startswith("_") for p in names):
        raise TypeError(f"{method.__qualname__}: a kept answer needs a question of "
                        "positional parameters without defaults, not named _...")
    names = [p.name for p in names]
    same = " and ".join(f"_last[{i}] is {name}" for i, name in enumerate(names))
    scope = {"_name": f"_last_{method.__name__}", "_method": method}
    exec(_ASKED.format(names=", ".join(names), same=same), scope)
    return wraps(method)(scope["asked"])
