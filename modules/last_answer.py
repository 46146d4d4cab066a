"""One answer kept per question of a rule.

A transition's guard and then its code, or the guards of two transitions
in turn, ask a rule the same question of the same tokens between two
firings that change them (the DVFS level, whether a job fails first).
Tokens are immutable, so the very same objects get the same answer: it is
kept rather than worked out again.
"""

from __future__ import annotations

from functools import wraps
from operator import is_
from typing import Callable, TypeVar

T = TypeVar("T")


def keeps_last_answer(method: Callable[..., T]) -> Callable[..., T]:
    """``method`` of a rule, answering from the answer it last gave when
    asked again with the very same objects.  The rule is a frozen
    dataclass: the answer lives in its ``__dict__``, not in a field, so it
    is neither compared nor refused by the freezing.  Questions come at
    every change of power, tens of thousands a run: a hit costs one call."""
    name = f"_last_{method.__name__}"

    @wraps(method)
    def asked(rules, *question):
        last = rules.__dict__.get(name)
        if last is not None and all(map(is_, last[0], question)):
            return last[1]
        value = method(rules, *question)
        rules.__dict__[name] = (question, value)
        return value

    return asked
