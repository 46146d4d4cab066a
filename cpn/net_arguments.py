"""Checks of what a user gives when declaring a net, or editing one.

Each refuses a value of the wrong kind where it is given, naming the net
and the node: taken as it came, a lone token, a guard written as a lambda
or a float priority failed later, deep inside flattening or compiling,
naming nothing the user wrote.
"""

from __future__ import annotations

import operator
from typing import Any, Iterable, Mapping

from .errors import NetError


def check_token_list(tokens: Any, where: str, example: str) -> None:
    """Refuse ``tokens`` unless it is a collection of tokens: a string is
    iterable, but taken as one it would give a token per character, and a
    lone value is not one (``where`` names the place, ``example`` shows the
    fix)."""
    if not isinstance(tokens, (str, bytes)):
        try:
            iter(tokens)
            return
        except TypeError:
            pass
    raise NetError(f"{where}: give a list of tokens, e.g. {example}, not {tokens!r}")


def checked_text(text: Any, example: str, where: str) -> str | None:
    """A guard or code segment (``example``: ``guard='x < 10'``): text
    compiled once, or None; a function (``guard=lambda x: x < 10``) or a
    number was an AttributeError of building the simulator ('function'
    object has no attribute 'strip')."""
    if text is None or isinstance(text, str):
        return text
    raise NetError(f"{where}: {example.partition('=')[0]} is text, compiled once (e.g. "
                   f"{example}), not {text!r}")


def socket_pairs(sockets: Any, where: str) -> list[tuple[str, str]]:
    """``sockets`` (a dict port -> socket, or (port, socket) pairs) as
    pairs; a lone place or a string was a TypeError, or "not enough values
    to unpack"."""
    pairs = (list(sockets.items()) if isinstance(sockets, Mapping) else list(sockets)
             if isinstance(sockets, Iterable) and not isinstance(sockets, str) else None)
    if pairs is None or not all(isinstance(pair, tuple) and len(pair) == 2 for pair in pairs):
        raise NetError(f"{where}: sockets map each port to a place (a dict, or (port, place) "
                       f"pairs), not {sockets!r}")
    return pairs


def checked_priority(priority: Any, where: str) -> int:
    """``priority`` as an int; a float is refused rather than truncated,
    a bool or a string rather than read as a number."""
    if not isinstance(priority, bool):
        try:
            return operator.index(priority)
        except TypeError:
            pass
    raise NetError(f"{where}: a priority is an integer, not {priority!r}")
