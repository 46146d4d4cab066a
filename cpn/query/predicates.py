"""What a query says of one state, or of one step between two states.

Values read a marking and compare into predicates, which print as what
they test::

    >>> power = token("Power")                # the one token of place Power
    >>> print(power <= 350)
    Power <= 350
    >>> print((count("Finished") == 4) & ~dead)
    count(Finished) == 4 and not dead

:func:`where` turns any function of a marking into a predicate, named by
the text it is given.  A :class:`Step` holds or not of an arc of the state
space (the marking before, the firing, the marking after): :func:`fires`,
:func:`changes`, :func:`after` (``dead`` and ``stable`` are
not known there), or :func:`step` for any function.
"""

from __future__ import annotations

import operator
import re
from typing import Any, Callable, NamedTuple

from ..marking import Marking
from ..times import time_text


class State(NamedTuple):
    """What a state predicate sees: the marking, whether it is dead, and
    whether it is stable (nothing fires before the clock moves on)."""

    marking: Marking
    dead: bool
    stable: bool = False


class Predicate:
    """A property of one state; ``&``, ``|``, ``~`` and :meth:`implies`
    combine them."""

    def __init__(self, test: Callable[[State], bool], text: str):
        self.test, self.text = test, text

    def __str__(self) -> str:
        return self.text

    def __repr__(self) -> str:
        return f"<Predicate {self.text}>"

    def holds(self, marking: Marking, dead: bool = False) -> bool:
        return bool(self.test(State(marking, dead)))

    def __and__(self, other: "Predicate") -> "Predicate":
        return Predicate(lambda s: self.test(s) and other.test(s), f"{self} and {other}")

    def __or__(self, other: "Predicate") -> "Predicate":
        return Predicate(lambda s: self.test(s) or other.test(s), f"({self} or {other})")

    def __invert__(self) -> "Predicate":
        return Predicate(lambda s: not self.test(s), f"not {_grouped(self)}")

    def implies(self, other: "Predicate") -> "Predicate":
        return Predicate(lambda s: not self.test(s) or other.test(s),
                         f"{_grouped(self)} implies {_grouped(other)}")


def _grouped(part) -> str:
    text = str(part)
    return f"({text})" if " " in text and not text.startswith("(") else text


def where(test: Callable[[Marking], Any], text: str) -> Predicate:
    """A predicate from any function of a marking, printed as ``text``."""
    return Predicate(lambda s: test(s.marking), text)


#: The state is dead: nothing is enabled, now or later.
dead = Predicate(lambda s: s.dead, "dead")

#: Nothing fires before the clock moves on (or ever): the state lasts, as
#: opposed to the states an instant passes through between its firings.
stable = Predicate(lambda s: s.stable, "stable")


class Value:
    """Something read from a marking; comparing it gives a predicate, and
    arithmetic with constants or other values gives a value."""

    def __init__(self, read: Callable[[Marking], Any], text: str):
        self.read, self.text = read, text

    def __str__(self) -> str:
        return self.text

    def of(self, function: Callable[[Any], Any], name: str | None = None) -> "Value":
        """``function`` applied to this value: ``tokens("Queue").of(len)``."""
        name = name or getattr(function, "__name__", "f")
        return Value(lambda m: function(self.read(m)), f"{name}({self.text})")

    def _compare(self, other, test, symbol: str) -> Predicate:
        read = _reader(other)
        return Predicate(lambda s: test(self.read(s.marking), read(s.marking)),
                         f"{self.text} {symbol} {_text(other)}")

    def _combine(self, other, function, symbol: str, swapped: bool = False) -> "Value":
        read = _reader(other)
        if swapped:
            return Value(lambda m: function(read(m), self.read(m)),
                         f"({_text(other)} {symbol} {self.text})")
        return Value(lambda m: function(self.read(m), read(m)),
                     f"({self.text} {symbol} {_text(other)})")

    def __lt__(self, other): return self._compare(other, operator.lt, "<")
    def __le__(self, other): return self._compare(other, operator.le, "<=")
    def __gt__(self, other): return self._compare(other, operator.gt, ">")
    def __ge__(self, other): return self._compare(other, operator.ge, ">=")
    def __eq__(self, other): return self._compare(other, operator.eq, "==")  # type: ignore
    def __ne__(self, other): return self._compare(other, operator.ne, "!=")  # type: ignore
    def __add__(self, other): return self._combine(other, operator.add, "+")
    def __sub__(self, other): return self._combine(other, operator.sub, "-")
    def __mul__(self, other): return self._combine(other, operator.mul, "*")
    def __truediv__(self, other): return self._combine(other, operator.truediv, "/")
    def __radd__(self, other): return self._combine(other, operator.add, "+", True)
    def __rsub__(self, other): return self._combine(other, operator.sub, "-", True)
    def __rmul__(self, other): return self._combine(other, operator.mul, "*", True)
    def __rtruediv__(self, other): return self._combine(other, operator.truediv, "/", True)
    __hash__ = None  # type: ignore[assignment]

    def contains(self, item) -> Predicate:
        """The value (a collection: ``tokens(place)``, a tuple token) holds ``item``."""
        read = _reader(item)
        return Predicate(lambda s: read(s.marking) in self.read(s.marking),
                         f"{_text(item)} in {self.text}")


def _reader(other) -> Callable[[Marking], Any]:
    return other.read if isinstance(other, Value) else (lambda m: other)


def _text(other) -> str:
    return other.text if isinstance(other, Value) else repr(other)


def _held(marking: Marking, place: str) -> list:
    try:
        return marking[place]
    except KeyError:
        known = ", ".join(sorted(marking)[:12])
        raise ValueError(f"the net has no place {place!r} (its places: {known}"
                         f"{', …' if len(marking) > 12 else ''})") from None


def token(place: str) -> Value:
    """The one token of ``place`` (a place that always holds exactly one,
    as a counter, a queue kept in one tuple, the system's power)."""
    return one_token(place, f"token({place!r})", place,
                     "token() reads a place of exactly one (use tokens() or count())")


def one_token(place: str, name: str, text: str, advice: str) -> Value:
    """:func:`token` as a query language writes it (``text``); when the
    place holds none or several, the error names it as ``name`` and gives
    ``advice`` in that language's terms."""
    def read(marking: Marking):
        held = _held(marking, place)
        if len(held) != 1:
            raise ValueError(f"{name}: the place holds {len(held)} tokens at time "
                             f"{time_text(marking.time)}; {advice}")
        return held[0]
    return Value(read, text)


def tokens(place: str) -> Value:
    """The tokens of ``place``, oldest first, as a list."""
    return Value(lambda m: _held(m, place), f"tokens({place})")


def count(place: str) -> Value:
    """How many tokens ``place`` holds (a name with spaces printed quoted,
    as the text language reads it)."""
    shown = place if _PLAIN_NAME.fullmatch(place) else repr(place)
    return Value(lambda m: len(_held(m, place)), f"count({shown})")


_PLAIN_NAME = re.compile(r"[A-Za-z_][\w/.]*")


#: The clock of the state.
clock = Value(lambda m: m.time, "now")


class Step:
    """A property of one arc: the marking before, the firing, the marking
    after.  ``&``, ``|``, ``~`` and :meth:`implies` combine steps."""

    def __init__(self, test: Callable[[Marking, Any, Marking], bool], text: str):
        self.test, self.text = test, text

    def __str__(self) -> str:
        return self.text

    def __and__(self, other: "Step") -> "Step":
        return Step(lambda b, f, a: self.test(b, f, a) and other.test(b, f, a),
                    f"{self} and {other}")

    def __or__(self, other: "Step") -> "Step":
        return Step(lambda b, f, a: self.test(b, f, a) or other.test(b, f, a),
                    f"({self} or {other})")

    def __invert__(self) -> "Step":
        return Step(lambda b, f, a: not self.test(b, f, a), f"not {_grouped(self)}")

    def implies(self, other: "Step") -> "Step":
        return Step(lambda b, f, a: not self.test(b, f, a) or other.test(b, f, a),
                    f"{_grouped(self)} implies {_grouped(other)}")


def step(test: Callable[[Marking, Any, Marking], Any], text: str) -> Step:
    """A step property from any function of (before, firing, after)."""
    return Step(test, text)


def fires(transition: str) -> Step:
    """The step fires ``transition`` (by its path, e.g. ``Scheduler/Schedule``)."""
    return Step(lambda b, f, a: f.transition == transition, f"fires {transition}")


def changes(value: Value) -> Step:
    """The step changes ``value``."""
    return Step(lambda b, f, a: value.read(b) != value.read(a), f"changes {value}")


def after(predicate: Predicate) -> Step:
    """``predicate`` holds in the state the step leads to."""
    return Step(lambda b, f, a: predicate.test(State(a, False)), f"after it {predicate}")


def before(predicate: Predicate) -> Step:
    """``predicate`` holds in the state the step leaves."""
    return Step(lambda b, f, a: predicate.test(State(b, False)), f"before it {predicate}")
