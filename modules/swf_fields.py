"""The 18 fields of an SWF job line, and what is wrong with a line the
reader (:mod:`modules.swf`) refuses, said precisely: the file, the line,
the field and its text.

Numbers are written in plain digits (``1e3`` is refused as such); a field
the reader uses holds at most :data:`LARGEST`.  ``-1`` is the only value SWF
gives for "unknown".  Any other negative value
in a field the reader uses means nothing (a wait of -5 s, a size of -4
processors), so it is an error rather than read as unknown or as a number;
a negative submit time is no error but the job is rejected
(``modules.workload.NEGATIVE_SUBMIT``), as a trace may date a job queued
before it started that way.
"""

from __future__ import annotations

import re
from pathlib import Path

from .trace_file import SWFError

#: Names of the 18 SWF fields, in order (field ``n`` is ``SWF_FIELDS[n - 1]``).
SWF_FIELDS = (
    "job id",
    "submit time",
    "wait time",
    "run time",
    "allocated processors",
    "average CPU time",
    "used memory",
    "requested processors",
    "requested time",
    "requested memory",
    "status",
    "user id",
    "group id",
    "executable",
    "queue",
    "partition",
    "preceding job",
    "think time",
)
# Fields converted with int() (0-based); the times (submit, run, requested) may
# carry decimals and are converted with float().
INT_FIELDS = frozenset({0, 4, 7, 10, 11, 12, 13})
TIME_FIELDS = frozenset({1, 2, 3, 8})
#: The fields the reader converts (0-based).
USED_FIELDS = (0, 1, 2, 3, 4, 7, 8, 10, 11, 12, 13)
_SUBMIT = 1
#: The largest value a field the reader uses may hold: 10 digits (as seconds,
#: over 316 years), more than any real trace has (Curie's requested times
#: reach 2**31 - 1 s, Theta's submit times are Unix times), and few enough
#: that a job id or a size stays exact in 64 bits and in a float.
LARGEST = 9_999_999_999
#: The SWF status of a job cancelled (field 11): one cancelled before it
#: started has no runtime, and is rejected saying so.
STATUS_CANCELLED = 5
#: Every byte a job line may hold; translate() deleting them leaves b"" on a
#: well-formed line.
NUMERIC_BYTES = b"0123456789-. \t\r\n"
_NUMBER = re.compile(rb"-?\d+(?:\.\d+)?|-?\.\d+")
_INTEGER = re.compile(rb"-?\d+")
_EXPONENT = re.compile(rb"-?(?:\d+\.?\d*|\.\d+)[eE][-+]?\d+")


def malformed(path: Path, lineno: int, fields: list[bytes]) -> SWFError:
    """Say precisely what is wrong with a job line that failed to parse."""
    where = f"{path}:{lineno}"
    if len(fields) != 18:
        return SWFError(f"{where}: expected 18 fields, found {len(fields)}")
    for index, token in enumerate(fields):
        text = token.decode("utf-8", errors="replace")
        if _EXPONENT.fullmatch(token):
            return SWFError(f"{where}: {field_name(index)}: {text!r} is in exponent notation; "
                            "SWF numbers are written in plain digits")
        if not _NUMBER.fullmatch(token):
            return SWFError(f"{where}: {field_name(index)}: {text!r} is not a number")
        if index in INT_FIELDS and not _INTEGER.fullmatch(token):
            return SWFError(f"{where}: {field_name(index)}: {text!r} is not an integer")
    return SWFError(f"{where}: a character that belongs in no number (control byte?)")


def out_of_range(path: Path, lineno: int, fields: list[bytes]) -> SWFError | None:
    """The error for the first of :data:`USED_FIELDS` holding a value no SWF
    field means: a negative one other than -1, unknown (the submit time
    aside), or one above :data:`LARGEST`; ``None`` when none does."""
    for index in USED_FIELDS:
        value = float(fields[index])
        if value < 0 and value != -1 and index != _SUBMIT:
            problem = "is negative, and only -1 (unknown) may be"
        elif value > LARGEST:
            problem = (f"is above {LARGEST:,}, more than any real trace holds"
                       + (" (as seconds, over 316 years)" if index in TIME_FIELDS else ""))
        else:
            continue
        text = fields[index].decode()
        return SWFError(f"{path}:{lineno}: {field_name(index)}: {text!r} {problem}")
    return None


def field_name(index: int) -> str:
    """``field 3 (wait time)`` for the 0-based ``index`` 2."""
    return f"field {index + 1} ({SWF_FIELDS[index]})"
