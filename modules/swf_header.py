"""The header of an SWF trace: its ``; Key: value`` lines, and the machine
they describe.

A key is one word and a colon right after the ``;``; a repeated key (such as
``Note``) gathers its values, one per line; an indented ``;`` line carries on
the previous key's text and a bare ``;`` ends it.  ``MaxNodes`` and
``MaxProcs`` size the machine unless the caller says otherwise, and
``UnixStartTime`` dates the trace: these are checked as their line is read
(a whole number, or ``-1`` for unknown as in a job line), so that a value
mistyped is an error naming its line rather than a header ignored.  The
other keys are free text.
"""

from __future__ import annotations

import re
from pathlib import Path

from .trace_file import SWFError

_HEADER = re.compile(r" ?([A-Za-z][A-Za-z0-9_]*)\s*:(.*)")
_INTEGER = re.compile(r"-?[0-9]+")  # int() would also take "1_000" and other digits
#: The keys read as numbers, the least value each may have (``-1``, unknown,
#: aside) and what that value must be, in the words of the error.
NUMERIC_KEYS = {"MaxNodes": (1, "a positive integer"), "MaxProcs": (1, "a positive integer"),
                "UnixStartTime": (0, "a whole number of seconds since 1970")}


def parse_header_line(text: str) -> tuple[str, str] | None:
    """``"; MaxNodes: 1152"`` -> ``("MaxNodes", "1152")``; ``None`` if no key.

    A key is one word and a colon right after the ``;`` (one space allowed):
    an indented line such as ``";\tsee: http://..."`` continues the previous
    key's text instead.
    """
    body = text.lstrip()[1:].rstrip("\r\n")
    if body.startswith(("  ", "\t", " \t")):
        return None
    match = _HEADER.fullmatch(body)
    if match is None:
        return None
    return match.group(1), match.group(2).strip()


class HeaderLines:
    """The header of ``path`` read so far: :attr:`values` maps each key to
    its text."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.values: dict[str, str] = {}
        self._last_key: str | None = None
        self._numbers_at: dict[str, int] = {}  # the line each of NUMERIC_KEYS came from

    def add(self, text: str, lineno: int) -> None:
        """Take one ``;`` line of the trace, line ``lineno`` of the file."""
        parsed = parse_header_line(text)
        if parsed is not None:
            key, value = parsed
            if key in NUMERIC_KEYS:
                self._check_number(key, value, lineno)
                self._check_once(key, value, lineno)
            self.values[key] = f"{self.values[key]}\n{value}" if key in self.values else value
            self._last_key = key
            return
        body = text.lstrip()[1:].strip()
        if not body:
            self._last_key = None  # a bare ";" ends the previous key's text
        elif self._last_key is not None:
            self.values[self._last_key] += "\n" + body  # an indented continuation

    def _check_number(self, key: str, value: str, lineno: int) -> None:
        """Refuse a value of :data:`NUMERIC_KEYS` that is not what its key
        needs, as a job line's bad field is refused."""
        least, what = NUMERIC_KEYS[key]
        number = int(value) if _INTEGER.fullmatch(value) else None
        if number is None or (number < least and number != -1):
            raise SWFError(f"{self.path}:{lineno}: {key}: {value!r} is not {what} "
                           "(nor -1, unknown)")


    def _check_once(self, key: str, value: str, lineno: int) -> None:
        """Refuse a second value of one of :data:`NUMERIC_KEYS`: only the
        first would size the machine, the other ignored unsaid."""
        first = self._numbers_at.setdefault(key, lineno)
        known = self.values.get(key, value).split("\n")[0]
        if first != lineno and int(known) != int(value):
            raise SWFError(f"{self.path}:{lineno}: {key}: {value} here, but {known} on line "
                           f"{first}: which is the machine's?")


def header_number(header: dict[str, str], key: str) -> int | None:
    """The value of one of :data:`NUMERIC_KEYS` (checked as it was read), or
    ``None`` when the header does not give it or gives -1 (unknown)."""
    text = header.get(key, "").split("\n")[0]
    value = int(text) if text else -1
    return None if value == -1 else value


def resolve_machine(
    path: Path, header: dict[str, str], procs_per_node: int | None, machine_nodes: int | None,
    size_unit: str,
) -> tuple[int, int]:
    """(procs per node, machine size) from the caller's choices and the header
    (the arguments of :func:`modules.swf.read_swf`)."""
    max_nodes = header_number(header, "MaxNodes")
    max_procs = header_number(header, "MaxProcs")
    if size_unit == "procs":
        machine = machine_nodes or max_procs
        if not machine:
            raise SWFError(f"{path}: machine size in processors unknown: the header gives "
                           "no MaxProcs, or -1 (unknown); pass machine_nodes")
        return 1, machine
    if procs_per_node is None:
        if max_nodes and max_procs:
            if max_procs % max_nodes:
                raise SWFError(
                    f"{path}: MaxProcs/MaxNodes = {max_procs}/{max_nodes} is not a whole "
                    "number of processors per node (mixed nodes?): pass procs_per_node, "
                    'or size_unit="procs" to schedule processors instead of nodes'
                )
            procs_per_node = max_procs // max_nodes
        else:
            procs_per_node = 1
    if machine_nodes is None:
        if max_nodes:
            machine_nodes = max_nodes
        elif max_procs:
            machine_nodes = max_procs // procs_per_node
        if not machine_nodes:
            raise SWFError(
                f"{path}: machine size unknown: the header gives neither MaxNodes nor "
                "MaxProcs, or gives -1 (unknown); pass machine_nodes"
            )
    return procs_per_node, machine_nodes
