"""The vocabulary shared by the ``cpn`` commands: argument types and how an
option is declared.

A bad value is refused by argparse with a one-line hint naming the flag the
user typed, before anything runs, so that the Python API's checks (which
speak of parameters, in SI units) never reach the command line.  An option
that ``cpn run`` takes once is, in ``cpn sweep``, an axis of the grid: a
comma list of the same values (:func:`add_option` with ``axis=True``).
"""

from __future__ import annotations

import argparse
import math
import os
from pathlib import Path


def _number(convert, test, rule: str):
    """An argument type: ``convert`` the text, refuse it unless ``test``."""
    kind = "whole number" if convert is int else "number"

    def parse(text: str):
        try:
            value = convert(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a {kind}") from None
        if not (test(value) and math.isfinite(value)):
            raise argparse.ArgumentTypeError(f"must be {rule}, not {text}")
        return value
    return parse


def within(low: float, high: float):
    """A number from ``low`` to ``high``: a model parameter's meaningful range."""
    return _number(float, lambda value: low <= value <= high, f"within [{low:g}, {high:g}]")


positive_float = _number(float, lambda value: value > 0, "positive")
non_negative_float = _number(float, lambda value: value >= 0, ">= 0")
fraction = within(0, 1)
integer = _number(int, lambda value: True, "a whole number")
positive_int = _number(int, lambda value: value > 0, "at least 1")
non_negative_int = _number(int, lambda value: value >= 0, ">= 0")


def at_least(minimum: float):
    """A number no smaller than ``minimum`` (a replication degree: 1)."""
    return _number(float, lambda value: value >= minimum, f">= {minimum:g}")


def existing_file(text: str) -> Path:
    """A file to read, refused before anything runs when it is not there
    (or is a directory, or cannot be read): argparse then names the flag,
    where the reader's own error would name neither flag nor remedy."""
    path = Path(text)
    if path.is_dir():
        raise argparse.ArgumentTypeError(f"{text} is a directory, not a file")
    if not path.exists():
        raise argparse.ArgumentTypeError(f"no such file: {text}")
    if not os.access(path, os.R_OK):
        raise argparse.ArgumentTypeError(f"cannot read {text} (permission denied)")
    return path


def trace_or_synthetic(text: str) -> str:
    """``--trace`` of ``cpn sweep`` and ``cpn study``: ``synthetic`` (the
    built-in months) or a file to read, kept as typed (runs are keyed by it)."""
    return text if text == "synthetic" else str(existing_file(text))


def refuse_unread(names_given, readers_of: dict, chosen, choosing: str,
                  spell=str) -> None:
    """Refuse an option the user gave (of ``names_given``, argparse names)
    that none of the ``chosen`` methods of the flag ``choosing`` reads
    (``readers_of``: option -> the methods that read it; ``spell`` names a
    method as the command line does): it would be dropped without a word,
    and the user would read results it did not shape."""
    for name in names_given:
        readers = readers_of.get(name)
        if readers is not None and not set(readers) & set(chosen):
            named = [spell(method) for method in readers]
            needed = " or ".join(filter(None, [", ".join(named[:-1]), named[-1]]))
            raise ValueError(f"--{name.replace('_', '-')} applies to {choosing} {needed} "
                             f"only, not to {', '.join(map(spell, chosen))}")


def comma_list(convert):
    """``"a,b,c"`` -> ``[convert("a"), ...]``: one axis of a sweep."""
    def parse(text: str) -> list:
        parts = [item.strip() for item in text.split(",")]
        if not any(parts):
            raise argparse.ArgumentTypeError(f"{text!r} holds no values")
        if not all(parts):  # "fcfs,,wfp": a value left out by mistake, said
            raise argparse.ArgumentTypeError(f"{text!r} has an empty item")
        try:
            return [convert(item) for item in parts]
        except ValueError as error:  # a converter from elsewhere (parse_months...)
            raise argparse.ArgumentTypeError(str(error)) from None
    return parse


def choice(allowed):
    """One of ``allowed``, as argparse's ``choices`` but usable in a list."""
    def check(item: str) -> str:
        if item not in allowed:
            raise argparse.ArgumentTypeError(f"{item!r} is not one of {', '.join(allowed)}")
        return item
    return check


class Remembered(argparse.Action):
    """Store the value as argparse does, and note that the user gave the
    option: an option no chosen model reads is refused when given, even
    with its default value (:func:`given`)."""

    def __call__(self, parser, namespace, values, option_string=None):
        setattr(namespace, self.dest, values)
        namespace.given_options = getattr(namespace, "given_options", frozenset()) | {self.dest}


def given(args, name: str) -> bool:
    """The user gave the option of argparse name ``name`` (declared with
    :class:`Remembered`, as :func:`add_option` declares them)."""
    return name in getattr(args, "given_options", ())


def add_option(group, flag: str, convert, *, axis: bool, help: str, default=None,
               aliases: tuple[str, ...] = (), **options) -> argparse.Action:
    """Declare ``flag``: one value, or with ``axis`` a comma list of values
    (its default then a one-value list).  ``aliases`` are former spellings,
    still accepted but left out of the help so that one name shows."""
    if axis:
        convert = comma_list(convert)
        default = None if default is None else [default]
    action = group.add_argument(flag, type=convert, default=default, help=help,
                                action=Remembered, **options)
    for alias in aliases:
        group.add_argument(alias, type=convert, dest=action.dest, metavar=action.metavar,
                           default=default, help=argparse.SUPPRESS, action=Remembered)
    return action


def job_numbers(text: str) -> tuple[int, int]:
    """``FIRST-LAST`` job numbers of a trace (the DVFS thesis' portion)."""
    from studies.thesis_run import parse_job_numbers
    try:
        return parse_job_numbers(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None
