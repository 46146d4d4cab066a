"""Queries written as text, for the command line (``cpn check --query``).

The language is the query API's own printing, so what a verdict prints
can be typed back::

    always Power <= 350
    never count(Allocation/WaitQueue) > 1 and not dead
    reachable count(Finished) == 4
    eventually dead
    count(Scheduler/User) == 0 leads to count(Finished) == 4

A value is a number, a quoted string, ``now``, ``count(PLACE)`` (its
number of tokens), a place's path alone (its one token), or values
combined with ``+ - * /`` and parentheses; values compare
with ``< <= == != >= >``; predicates combine with ``and``, ``or``, ``not``,
``implies`` and parentheses; ``dead`` holds in dead markings, ``stable`` in states
where nothing fires before the clock moves on.  Nothing is evaluated as
Python: a richer property is a Python query (:mod:`cpn.query`).
"""

from __future__ import annotations

import re

from .predicates import Predicate, Value, clock, count, dead, one_token, stable
from .temporal import Query, always, eventually, leads_to, never, reachable

OPERATORS = {"always": always, "never": never, "reachable": reachable,
             "eventually": eventually}
_TOKEN = re.compile(r"""\s*(?:(?P<number>-?\d+(?:\.\d*)?(?:[eE][-+]?\d+)?)
                       |(?P<string>'[^']*'|"[^"]*")
                       |(?P<compare><=|>=|==|!=|<|>)
                       |(?P<arith>[-+*/])
                       |(?P<paren>[()])
                       |(?P<name>[A-Za-z_][\w/.]*))""", re.VERBOSE)
_COMPARE = {"<": Value.__lt__, "<=": Value.__le__, "==": Value.__eq__,
            "!=": Value.__ne__, ">=": Value.__ge__, ">": Value.__gt__}
_ARITH = {"+", "-", "*", "/"}
_WORDS = {"and", "or", "not", "implies", "dead", "stable", "leads", "to", "count", "now"}


class QuerySyntaxError(ValueError):
    """A query's text cannot be read; the message shows where."""


def parse_query(text: str, places: list[str] | None = None) -> Query:
    """The query ``text`` says (see the module's docstring).  Given the
    names of the net's places (``FlatNet.place_names``: a fusion set
    member's path too), a place it lacks is refused here, before a state
    space is built in vain."""
    parser = _Parser(text, places)
    first = parser.peek()
    if len(parser.tokens) > 1 and parser.tokens[1][0] == "name" and first not in OPERATORS \
            and first not in _WORDS:
        raise QuerySyntaxError(f"query {text!r}: unknown operator {first!r}: use always, "
                               "never, reachable, eventually, or 'P leads to Q'")
    if first in OPERATORS:
        parser.take()
        query = OPERATORS[first](parser.predicate())
    else:
        cause = parser.predicate()
        parser.expect("leads", "a temporal operator (always, never, reachable, eventually) "
                               "or 'leads to'")
        parser.expect("to", "'to' after 'leads'")
        query = leads_to(cause, parser.predicate())
    if parser.peek() is not None:
        raise parser.error("nothing more")
    return query


class _Parser:
    def __init__(self, text: str, places: list[str] | None = None):
        self.text, self.tokens, position, self.places = text, [], 0, places
        text = text.rstrip()
        while position < len(text):
            match = _TOKEN.match(text, position)
            if match is None or match.end() == position:
                raise QuerySyntaxError(f"query {self.text!r}: cannot read "
                                       f"{text[position:].strip()!r}")
            self.tokens.append((match.lastgroup, match.group(match.lastgroup)))
            position = match.end()
        self.position = 0

    def peek(self) -> str | None:
        return self.tokens[self.position][1] if self.position < len(self.tokens) else None

    def take(self) -> tuple[str, str]:
        if self.position >= len(self.tokens):
            raise self.error("more")
        self.position += 1
        return self.tokens[self.position - 1]

    def expect(self, word: str, wanted: str) -> None:
        if self.peek() != word:
            raise self.error(wanted)
        self.take()

    def error(self, wanted: str) -> QuerySyntaxError:
        found = self.peek()
        where = "the end" if found is None else repr(found)
        return QuerySyntaxError(f"query {self.text!r}: expected {wanted} at {where}")

    def place(self, name: str) -> str:
        if self.places is not None and name not in self.places:
            shown = ", ".join(sorted(self.places)[:12])
            more = ", …" if len(self.places) > 12 else ""
            raise QuerySyntaxError(f"query {self.text!r}: the net has no place {name!r} "
                                   f"(its places: {shown}{more})")
        return name

    def predicate(self) -> Predicate:
        result = self.disjunction()
        if self.peek() == "implies":
            self.take()
            result = result.implies(self.disjunction())
        return result

    def disjunction(self) -> Predicate:
        result = self.conjunction()
        while self.peek() == "or":
            self.take()
            result = result | self.conjunction()
        return result

    def conjunction(self) -> Predicate:
        result = self.unary()
        while self.peek() == "and":
            self.take()
            result = result & self.unary()
        return result

    def unary(self) -> Predicate:
        word = self.peek()
        if word == "not":
            self.take()
            return ~self.unary()
        if word in ("dead", "stable"):
            self.take()
            return dead if word == "dead" else stable
        if word == "(":  # a predicate in parentheses, or a comparison of a value in them
            start = self.position
            self.take()
            try:
                inner = self.predicate()
                self.expect(")", "')'")
                if self.peek() not in _COMPARE and self.peek() not in _ARITH:
                    return inner
            except QuerySyntaxError:
                pass
            self.position = start
        left = self.value()
        if self.peek() not in _COMPARE:
            raise self.error("a comparison (< <= == != >= >)")
        symbol = self.take()[1]
        return _COMPARE[symbol](left, self.value())

    def value(self) -> Value | float | str:
        """Terms added and subtracted (a negative number after a value, as
        in ``count(A) -1``, subtracts)."""
        result = self.term()
        while True:
            kind, text = self.tokens[self.position] if self.peek() is not None else (None, None)
            if text in ("+", "-"):
                self.take()
                right = self.term()
                result = result + right if text == "+" else result - right
            elif kind == "number" and text.startswith("-"):
                self.take()
                result = result - _number(text[1:])
            else:
                return result

    def term(self) -> Value | float | str:
        result = self.atom()
        while self.peek() in ("*", "/"):
            symbol = self.take()[1]
            right = self.atom()
            result = result * right if symbol == "*" else result / right
        return result

    def atom(self) -> Value | float | str:
        if self.peek() == "(":
            self.take()
            inner = self.value()
            self.expect(")", "')' after the value")
            return inner
        if self.peek() is None:
            raise self.error("a value (a number, a place, count(PLACE), now)")
        kind, text = self.take()
        if kind == "number":
            return _number(text)
        if kind == "string":
            return text[1:-1]
        if text == "now":
            return clock
        if text == "count":
            self.expect("(", "'(' after count")
            kind, name = self.take()
            place = self.place(name[1:-1] if kind == "string" else name)  # quoted: spaces
            self.expect(")", "')' after the place")
            return count(place)
        if kind == "name" and text not in _WORDS:
            return one_token(self.place(text), text, text,
                             f"a place's name reads its one token (count({text}) counts them)")
        self.position -= 1
        raise self.error("a value (a number, a place, count(PLACE), now)")


def _number(text: str) -> int | float:
    return float(text) if any(c in text for c in ".eE") else int(text)
