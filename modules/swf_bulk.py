"""Read a well-formed SWF trace all at once, with numpy: the fast path of
:func:`modules.swf.read_swf`.

Reading a trace line by line in Python costs about 6 s of CPU a million
jobs (2 s this way), a tenth of a million-job run.  Almost every trace is
well formed, so this reads the whole file's bytes, takes out the ``;``
header lines (fed to the same :class:`~modules.swf_header.HeaderLines`,
the machine sized at the first job line as the line reader does), checks
the job lines in bulk and converts their fields for all lines at once; the
rejections, sizes, sorting and tables are then worked out column by
column.  The result is the :class:`~modules.workload.Workload` the line
reader gives, field for field.

It gives up (returns ``None``) at the first thing it does not expect, so
that the line reader, which names the file, line and field of what is
wrong, reads the trace instead: a byte that belongs in no number, a line
of other than 18 fields, a ``;`` inside a job line, a minus sign that does
not start a ``-1`` token, a ``.`` in an integer field or two in a time, a
number too long to convert exactly (integers over 10 digits, times over
15 characters) or above :data:`~modules.swf_fields.LARGEST`, a header the
line reader refuses, a damaged gzip file, or a trace without job lines.
"""

from __future__ import annotations

import gzip
import re
import zlib
from itertools import repeat
from pathlib import Path

import numpy as np

from modules.job import Job
from modules.tables import Columns

from .swf_fields import LARGEST, NUMERIC_BYTES, STATUS_CANCELLED
from .swf_header import HeaderLines, resolve_machine
from .trace_file import SWFError, check_text_and_skip_bom, open_trace
from .workload import (CANCELLED_BEFORE_START, DUPLICATE_JOB_ID, LARGER_THAN_MACHINE,
                       NEGATIVE_SUBMIT, NON_POSITIVE_RUNTIME, NON_POSITIVE_SIZE,
                       UNKNOWN_SUBMIT, UNKNOWN_WALLTIME, Workload, rejected_columns)

_NOT_SPACE = re.compile(rb"[^ \t\n\r\x0b\x0c]").search  # what bytes.strip() keeps
_CHUNK = 1 << 18  # bytes converted at a time: the work arrays stay in the cache
_FIELDS = 18
#: The fields converted (0-based) and whether each is an integer (else a time).
_USED = ((0, True), (1, False), (2, False), (3, False), (4, True), (7, True), (8, False),
         (10, True), (11, True), (12, True), (13, True))
_INT_WIDTH = 10  # digits: at most LARGEST
_TIME_WIDTH = 15  # characters: at most 15 digits, exact in a float's 53 bits
_POWERS = np.array([float(10 ** k) for k in range(_TIME_WIDTH + 1)])
_PLACES = np.arange(1, _TIME_WIDTH + 1)  # a token's last character is 1 before its end
_DIGIT_VALUE = np.zeros(256)  # each byte's value as a digit, 0 for any other
_DIGIT_VALUE[48:58] = np.arange(10)
_INTEGER_FIELD = np.zeros(_FIELDS, dtype=bool)
_INTEGER_FIELD[[index for index, integer in _USED if integer]] = True
#: Reasons by code, the order _sorted_out tests them in; code 1, a duplicate id, gets
#: its first line added.
_REASONS = np.array([None, DUPLICATE_JOB_ID, UNKNOWN_SUBMIT, NEGATIVE_SUBMIT,
                     CANCELLED_BEFORE_START, NON_POSITIVE_RUNTIME, NON_POSITIVE_SIZE,
                     LARGER_THAN_MACHINE, UNKNOWN_WALLTIME], dtype=object)
_new_tuple = tuple.__new__
_JOB_BATCH = 1 << 16  # jobs made from one batch of Python numbers


def read_bulk(path: Path, machine_nodes: int | None, procs_per_node: int | None, unit: int,
              shift_to_zero: bool, size_unit: str, reject_unknown_walltime: bool,
              clip_oversized: bool) -> Workload | None:
    """The :class:`Workload` of a well-formed trace (arguments as for
    ``modules.swf._read``), or ``None`` for the line reader to read it."""
    try:
        with open_trace(path) as stream:
            check_text_and_skip_bom(stream, path)
            data = stream.read()
        headed = _header_and_body(data, path, procs_per_node, machine_nodes, size_unit)
    except (SWFError, EOFError, zlib.error, gzip.BadGzipFile):
        return None  # the line reader says what is wrong, where it comes to it
    del data
    if headed is None:
        return None
    header, ppn, machine, body = headed
    del headed  # so that the job lines' bytes go once converted
    if body.translate(None, NUMERIC_BYTES):
        return None
    columns = _job_columns(body)
    del body
    if columns is None:
        return None
    accepted, tables = _sorted_out(columns, ppn, machine, unit, reject_unknown_walltime,
                                   clip_oversized)
    del columns  # before the jobs are made, the peak of memory
    offset = float(accepted[1][0]) if len(accepted[1]) and shift_to_zero else 0.0
    return Workload(jobs=_jobs(accepted, offset), header=header, machine_nodes=machine,
                    path=path, time_offset=offset, procs_per_node=ppn, allocation_unit=unit,
                    size_unit=size_unit, job_lines=Columns({"job_id": accepted[0],
                                                            "line": accepted[8]}), **tables)


def _header_and_body(data: bytes, path: Path, procs_per_node: int | None,
                     machine_nodes: int | None, size_unit: str) -> tuple | None:
    """(header, procs per node, machine size, the job lines) of a trace's
    bytes: each ``;`` line goes to the header in file order (the machine is
    sized at the first job line) and is left blank in the job lines, so
    that these keep their line numbers.  ``None`` for a ``;`` inside a job
    line, or no job line."""
    header = HeaderLines(path)
    machine = None
    view = memoryview(data)
    pieces = []
    pos = 0  # where the last header line ends
    counted, lineno = 0, 1  # the line at byte ``counted``
    while (semicolon := data.find(b";", pos)) >= 0:
        start = data.rfind(b"\n", 0, semicolon) + 1
        if _NOT_SPACE(data, start, semicolon):
            return None
        if machine is None and _NOT_SPACE(data, pos, start):  # a job line before this one
            machine = resolve_machine(path, header.values, procs_per_node, machine_nodes,
                                      size_unit)
        end = data.find(b"\n", semicolon) + 1 or len(data)
        lineno += data.count(b"\n", counted, start)
        counted = start
        header.add(data[start:end].decode("utf-8", errors="replace"), lineno)
        pieces.append(view[pos:start])
        pos = end
    if machine is None:
        if not _NOT_SPACE(data, pos):
            return None
        machine = resolve_machine(path, header.values, procs_per_node, machine_nodes, size_unit)
    pieces.append(view[pos:])
    body = b"\n".join(pieces) if len(pieces) > 1 else data
    return header.values, *machine, body


def _job_columns(body: bytes) -> list[np.ndarray] | None:
    """The used fields of every job line, then its line number (see
    :data:`_USED`), chunk by chunk; ``None`` at anything unexpected."""
    if not body.endswith(b"\n"):
        body += b"\n"  # a space before every token, the first's being the last byte
    buffer = np.frombuffer(body, dtype=np.uint8)
    parts = []
    start, line = 0, 1
    while start < len(body):
        end = body.find(b"\n", start + _CHUNK) + 1 or len(body)
        chunk = buffer[start:end]
        part = _chunk_columns(chunk, line)
        if part is None:
            return None
        if part:
            parts.append(part)
        line += body.count(b"\n", start, end)
        start = end
    return [np.concatenate(column) for column in zip(*parts)] if parts else None


def _chunk_columns(chunk: np.ndarray, first_line: int) -> list[np.ndarray] | None:
    """:func:`_job_columns` of whole lines (``[]`` if all blank): the tokens
    are the runs of bytes above a space, 18 a line or none."""
    solid = chunk > 32
    edges = np.flatnonzero(solid[1:] != solid[:-1]) + 1
    if len(chunk) and solid[0]:
        edges = np.concatenate(([0], edges))
    if len(chunk) and solid[-1]:
        edges = np.concatenate((edges, [len(chunk)]))
    starts, ends = edges[0::2], edges[1::2]
    if len(starts) % _FIELDS:
        return None
    if not len(starts):
        return []  # blank lines
    newlines = np.flatnonzero(chunk == 10)
    lines = np.searchsorted(newlines, starts[0::_FIELDS])  # newlines before each line's first
    if (lines != np.searchsorted(newlines, starts[_FIELDS - 1::_FIELDS])).any() or (
            lines[1:] == lines[:-1]).any():
        return None  # a line of other than 18 fields
    pairs = starts[ends - starts == 2]
    if np.count_nonzero(chunk == 45) != np.count_nonzero(
            (chunk[pairs] == 45) & (chunk[pairs + 1] == 49)):
        return None  # a minus sign not starting a "-1"
    decimals = _decimals(chunk, starts, ends)
    if decimals is None:
        return None
    starts, ends = starts.reshape(-1, _FIELDS), ends.reshape(-1, _FIELDS)
    columns = []
    for index, integer in _USED:
        values = _numbers(chunk, starts[:, index], ends[:, index],
                          None if integer else decimals[:, index])
        if values is None:
            return None
        columns.append(values)
    columns.append(lines + first_line)
    return columns


def _decimals(chunk: np.ndarray, starts: np.ndarray, ends: np.ndarray) -> np.ndarray | None:
    """The digits right of the ``.`` of each token (one row a line; -1
    without one), or ``None`` for a ``.`` in an integer field, two in a
    token, or one alone."""
    dots = np.flatnonzero(chunk == 46)
    decimals = np.full(len(starts), -1, dtype=np.int64)
    if len(dots):
        tokens = np.searchsorted(starts, dots, side="right") - 1
        if (_INTEGER_FIELD[tokens % _FIELDS].any() or (tokens[1:] == tokens[:-1]).any()
                or (ends[tokens] - starts[tokens] == 1).any()):
            return None
        decimals[tokens] = ends[tokens] - 1 - dots
    return decimals.reshape(-1, _FIELDS)


def _numbers(chunk: np.ndarray, starts: np.ndarray, ends: np.ndarray,
             decimals: np.ndarray | None) -> np.ndarray | None:
    """The numbers that tokens ``chunk[starts:ends]`` write (``-1`` or
    digits, and in a time at most one ``.``, ``decimals`` digits from the
    right, -1 without one; ``None`` for an integer): each token's last ``width``
    characters, right-aligned (spaces before a short one), weighed by
    powers of ten in one product, exact in a float's 53 bits.  A time is
    its digits as an integer over a power of ten, both exact, so that its
    one rounding is float()'s."""
    width = int((ends - starts).max())
    if width > (_INT_WIDTH if decimals is None else _TIME_WIDTH):
        return None
    places = np.maximum(ends[:, None] - _PLACES[:width], starts[:, None] - 1)
    number = _DIGIT_VALUE[chunk[places]] @ _POWERS[:width]  # a '.' weighs 0, a place taken
    minus = chunk[starts] == 45  # "-1": the only token with a minus sign
    if decimals is None:
        return np.where(minus, -1, number.astype(np.int64))
    if (decimals >= 0).any():  # take out the '.' place, divide by the decimals' power
        power = _POWERS[np.maximum(decimals, 0)]
        number = np.where(decimals >= 0, number // (power * 10) * power + number % power,
                          number) / power
    values = np.where(minus, -1.0, number)
    return None if (values > LARGEST).any() else values


def _sorted_out(columns: list[np.ndarray], ppn: int, machine: int, unit: int,
                reject_unknown_walltime: bool, clip_oversized: bool) -> tuple[list, dict]:
    """The job lines' fields sorted out as ``modules.swf._JobLines`` does it
    one line at a time: the accepted jobs' columns (id, submit, run time,
    size, requested time, user, group, executable, line) in order of
    submit, and the Workload's tables and counts."""
    (ids, submit, wait, runtime, allocated, requested, requested_time, status, user, group,
     executable, lines) = columns
    nodes = -(-np.where(requested > 0, requested, allocated) // ppn)
    if unit > 1:
        nodes = -(-nodes // unit) * unit
    first_lines = _first_lines(ids, lines)
    owner = first_lines == lines
    codes = np.select(
        [~owner, submit == -1, submit < 0, (runtime <= 0) & (status == STATUS_CANCELLED),
         runtime <= 0, nodes <= 0, (nodes > machine) & (not clip_oversized),
         (requested_time <= 0) & reject_unknown_walltime],
        np.arange(1, len(_REASONS)), 0)
    log = Columns({"job_id": ids[owner], "line": lines[owner], "submit": submit[owner],
                   "wait": wait[owner], "runtime": runtime[owner], "nodes": nodes[owner]})
    out = codes != 0
    reasons = _REASONS[codes[out]]
    for index, first in zip(np.flatnonzero(codes[out] == 1).tolist(),
                            first_lines[~owner].tolist()):
        reasons[index] = f"{DUPLICATE_JOB_ID}, first at line {first}"
    rejected = rejected_columns(ids[out], lines[out], reasons)
    kept = ~out
    size, walltime = nodes[kept], requested_time[kept]
    clipped = int(np.count_nonzero(size > machine))  # none unless clip_oversized
    unknown = walltime <= 0
    accepted = [ids[kept], submit[kept], runtime[kept], np.minimum(size, machine),
                np.where(unknown, runtime[kept], walltime), user[kept], group[kept],
                executable[kept], lines[kept]]
    if (accepted[1][1:] < accepted[1][:-1]).any():
        order = np.argsort(accepted[1], kind="stable")  # file order among equal submits
        accepted = [column[order] for column in accepted]
    return accepted, dict(rejected=rejected, log=log, sizes_clipped=clipped,
                          walltimes_substituted=int(np.count_nonzero(unknown)))


def _first_lines(ids: np.ndarray, lines: np.ndarray) -> np.ndarray:
    """The line that owns each line's job id: the first that carries it."""
    if (ids[1:] > ids[:-1]).all():  # the usual trace: ids rise, none repeats
        return lines
    _, first, inverse = np.unique(ids, return_index=True, return_inverse=True)  # stable
    return lines[first][inverse]


def _jobs(accepted: list[np.ndarray], offset: float) -> list[Job]:
    """The :class:`Job` tokens, of Python ints and floats as the line reader
    makes them, a batch at a time (lists of Python numbers for all the jobs
    at once would cost 64 bytes a job more at the peak); tuple.__new__
    skips the NamedTuple's Python-level __new__."""
    jobs: list[Job] = []
    for start in range(0, len(accepted[0]), _JOB_BATCH):
        ids, submit, runtime, nodes, requested_time, user, group, executable, _ = (
            column[start:start + _JOB_BATCH] for column in accepted)
        fields = zip(ids.tolist(), (submit - offset).tolist(), runtime.tolist(),
                     nodes.tolist(), requested_time.tolist(), repeat(0.0), repeat(0.0),
                     repeat(1.0), user.tolist(), group.tolist(), executable.tolist(), repeat(0))
        jobs.extend(map(_new_tuple, repeat(Job), fields))
    return jobs
