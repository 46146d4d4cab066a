"""Read a Standard Workload Format trace into job tokens.

The Parallel Workloads Archive (Feitelson et al.) publishes real job logs in
the Standard Workload Format (SWF): ``;`` header lines of ``Key: value``
(``MaxNodes``, ``MaxProcs``, ``UnixStartTime``, ...) followed by one line per
job of 18 whitespace-separated numbers, ``-1`` meaning unknown.  The PuPPET
and TOPPER nets consume :class:`modules.job.Job` tokens, so this module maps
each job line to one ``Job``:

==========  ===============================================================
``id``      field 1, job id
``st``      field 2, submit time (shifted so the first submit is 0, by default);
            a job whose submit time is unknown (``-1``) or negative (before
            the trace starts) is rejected: it has no time to be submitted at
``rt``      field 4, run time
``js``      field 8, requested processors, or field 5, allocated processors,
            when field 8 is unknown; converted to nodes (ceil of processors
            over ``procs_per_node``; kept as processors with
            ``size_unit="procs"``) and rounded up to ``allocation_unit``
``wt``      field 9, requested time; when unknown (``-1`` or ``0``) the run
            time, counted in :meth:`Workload.summary` (or the job is
            rejected, as CQSim does, with ``unknown_walltime="reject"``)
``user``    fields 12, 13 and 14 give ``user``, ``group`` and ``executable``
==========  ===============================================================

Jobs that cannot run in a simulation are never dropped silently: they come
back in :attr:`Workload.rejected` with the reason, so that ``accepted +
rejected`` always equals the job lines of the file.  A job id belongs to the
first line that carries it: a later line with the same id is rejected
("duplicate job id, first at line 12"), because two jobs under one id could
not be told apart in the results (nor in a power CSV keyed by job id).
A malformed line is an error (:class:`SWFError`) naming the file, the line
and the field (so is a number in exponent form, one above ten digits, or a
negative one other than ``-1``, unknown, in a field the reader uses but the
submit time: see :mod:`modules.swf_fields`), because a trace that parses "mostly" would give results
nobody can trust; so is a file that is empty, not text, or a gzip file cut
short (an interrupted download).  A UTF-8 byte order mark is skipped.

The trace's own schedule comes along in :attr:`Workload.log`: field 3, the
time each job waited, with its submit time, run time and size, for every
job line (accepted or not), so that a simulated schedule can be measured
against the one that happened (``modules/validation.py``).

A well-formed trace is read all at once with numpy (:mod:`modules.swf_bulk`:
on a million jobs about 2 s of CPU instead of 6, on CEA-Curie, 312,826
lines in gzip, 0.8 s instead of 1.9); where that reader gives up, at anything
unusual, the trace is read again in a single streaming pass in binary mode
(gzip is detected from the file's magic bytes, whatever its name), which
says what is wrong and where: each line is split once and only the eleven
fields the reader uses are converted to numbers; the other eight are only
checked, with one ``bytes.translate`` per line, for characters a number
cannot hold (so a misplaced sign such as ``1-2`` in an unused field passes).
Example::

    >>> wl = read_swf("LLNL-Atlas-2006-2.1-cln.swf")       # doctest: +SKIP
    >>> print(wl.summary())                                # doctest: +SKIP
"""

from __future__ import annotations

import gzip
import os
import re
import zlib
from array import array
from itertools import chain
from pathlib import Path
from typing import Iterable

import numpy as np

from cpn.collector import cyclic_gc_paused
from modules.job import Job
from modules.tables import Columns
from modules.values import is_whole_number

from .swf_bulk import read_bulk
from .swf_fields import (LARGEST, NUMERIC_BYTES, STATUS_CANCELLED, SWF_FIELDS, malformed,
                          out_of_range)
from .swf_header import HeaderLines, resolve_machine
from .trace_file import SWFError, check_text_and_skip_bom, damaged_gzip, open_trace
from .workload import (CANCELLED_BEFORE_START, DUPLICATE_JOB_ID, LARGER_THAN_MACHINE, LOG_COLUMNS,
                       NEGATIVE_SUBMIT, NON_POSITIVE_RUNTIME, NON_POSITIVE_SIZE, SIZE_UNITS,
                       UNKNOWN_SUBMIT, UNKNOWN_WALLTIME, Workload, rejected_columns)

__all__ = ["SWF_FIELDS", "SWFError", "read_swf"]

# Finds a minus sign that does not start a "-1" token: a line out_of_range
# must look at.  One search a line costs half what comparing the numbers does.
_NOT_MINUS_ONE = re.compile(rb"-(?!1\s)").search
_new_tuple = tuple.__new__
#: Array type codes of the accepted jobs' columns (see ``_JobLines``), and
#: the numpy type of each code.
_ROW_CODES = ("q", "d", "d", "q", "d", "q", "q", "q", "q")
_DTYPES = {"q": np.int64, "d": np.float64}
_BATCH = 1 << 12  # rows gathered as tuples before they join the columns
#: The all-at-once reader of a well-formed trace (the line reader when it
#: gives up), a name of its own so that tests can compare the two.
_read_bulk = read_bulk


def read_swf(
    path: str | os.PathLike,
    *,
    machine_nodes: int | None = None,
    procs_per_node: int | None = None,
    allocation_unit: int = 1,
    shift_to_zero: bool = True,
    size_unit: str = "nodes",
    unknown_walltime: str = "runtime",
    oversized: str = "reject",
) -> Workload:
    """Read an SWF trace (plain or gzip) into a :class:`Workload`.

    ``procs_per_node``: processors per node, to turn the trace's processor
    counts into nodes.  ``None`` takes ``MaxProcs / MaxNodes`` from the
    header when both are given (an error if that is not a whole number, as on
    a machine with mixed nodes: say which to use, or count processors), else 1.

    ``size_unit``: ``"nodes"``, or ``"procs"`` to schedule processors (a
    job's size is its processor count, the machine has ``MaxProcs`` of
    them, and ``machine_nodes`` and ``allocation_unit`` count processors).

    ``machine_nodes``: the machine's size in nodes; ``None`` takes the
    header's ``MaxNodes``, else ``MaxProcs // procs_per_node``.  Jobs larger
    than the machine are rejected, or with ``oversized="clip"`` run on the
    whole machine (counted in :attr:`Workload.sizes_clipped`).

    ``unknown_walltime``: a job whose requested time is unknown plans with
    its run time (``"runtime"``) or is rejected (``"reject"``, CQSim's rule).

    ``allocation_unit``: sizes are rounded up to a multiple of it (512 for
    the midplanes of a Blue Gene/Q).

    ``shift_to_zero``: subtract the earliest accepted submit time from all
    of them, so a simulation starts at 0 whatever the trace's epoch; the
    amount is kept in :attr:`Workload.time_offset`.
    """
    if not isinstance(path, (str, os.PathLike)):  # else a TypeError of Path naming nothing
        raise ValueError(f"path must be a trace file's path (a str or a Path), not {path!r}")
    path = Path(path)
    _check_choices(size_unit=size_unit, unknown_walltime=unknown_walltime, oversized=oversized,
                   procs_per_node=procs_per_node, allocation_unit=allocation_unit,
                   machine_nodes=machine_nodes)
    if shift_to_zero not in (True, False):  # "no" is true: it shifted
        raise ValueError(f"shift_to_zero must be True or False, not {shift_to_zero!r}")
    if size_unit == "procs":
        procs_per_node = 1
    # Hundreds of thousands of new tuples would trigger the cyclic garbage
    # collector again and again over the growing list (a third of the time on
    # CEA-Curie); tuples of numbers hold no cycles, so pause it meanwhile.
    options = (machine_nodes, procs_per_node, allocation_unit, shift_to_zero, size_unit,
               unknown_walltime == "reject", oversized == "clip")
    try:
        with cyclic_gc_paused():
            return _bulk_or_lines(path, options)
    except (EOFError, zlib.error, gzip.BadGzipFile) as error:
        raise damaged_gzip(path, error) from None


def _bulk_or_lines(path: Path, options: tuple) -> Workload:
    """Read the trace all at once (:mod:`modules.swf_bulk`), or line by line
    where that gives up: at a line to say something about."""
    workload = _read_bulk(path, *options)
    if workload is not None:
        return workload
    with open_trace(path) as stream:
        check_text_and_skip_bom(stream, path)
        return _read(stream, path, *options)


def _check_choices(*, size_unit: str, unknown_walltime: str, oversized: str,
                   procs_per_node: int | None, allocation_unit: int,
                   machine_nodes: int | None) -> None:
    """Refuse arguments of :func:`read_swf` that mean nothing."""
    for name, value, allowed in (("size_unit", size_unit, SIZE_UNITS),
                                 ("unknown_walltime", unknown_walltime, ("runtime", "reject")),
                                 ("oversized", oversized, ("reject", "clip"))):
        if value not in allowed:
            raise ValueError(f"{name} must be one of {allowed}, not {value!r}")
    if size_unit == "procs" and procs_per_node not in (None, 1):
        raise ValueError(f"procs_per_node={procs_per_node} means nothing with "
                         'size_unit="procs": sizes count processors')
    header = {"procs_per_node": procs_per_node, "machine_nodes": machine_nodes}  # None: its
    given = {"allocation_unit": allocation_unit,
             **{name: value for name, value in header.items() if value is not None}}
    for name, value in given.items():  # 2.5 or inf were taken, '4' a TypeError of a comparison
        if not (is_whole_number(value) and value >= 1):
            raise ValueError(f"{name} must be a whole number >= 1, got {value!r}")


class _JobLines:
    """The job lines of a trace, taken one at a time: the accepted jobs, the
    rejected ones with their reasons, and the schedule the trace records."""

    def __init__(self, path: Path, ppn: int, machine: int, unit: int,
                 reject_unknown_walltime: bool, clip_oversized: bool) -> None:
        self.path, self.ppn, self.machine, self.unit = path, ppn, machine, unit
        self.reject_unknown_walltime = reject_unknown_walltime
        self.clip_oversized = clip_oversized
        # accepted jobs, column by column in typed arrays (8 bytes a field, not
        # a tuple of Python numbers): id, submit, run, size, requested, user, group, exe,
        # and the job's line
        self.rows = tuple(array(code) for code in _ROW_CODES)
        self.pending: list[tuple] = []  # the latest rows, moved into the columns by the batch
        self.pending_log: list[tuple] = []
        self.rejected: tuple[list, list, list] = ([], [], [])  # job ids, lines, reasons
        self.first_lines: dict[int, int] = {}  # job id -> the line that owns it
        self.log = array("d")  # one LOG_COLUMNS row per job id, flat
        self.substituted = self.clipped = 0

    def add(self, lineno: int, raw: bytes) -> None:
        """Accept or reject one job line (and log it if its id is new); only
        the eleven fields used are converted, the others only checked."""
        fields = raw.split()
        try:
            if len(fields) != 18 or raw.translate(None, NUMERIC_BYTES):
                raise ValueError
            job_id, submit, wait, runtime = (int(fields[0]), float(fields[1]),
                                             float(fields[2]), float(fields[3]))
            allocated, requested, requested_time = int(fields[4]), int(fields[7]), float(fields[8])
            status, user, group, executable = (int(fields[10]), int(fields[11]),
                                               int(fields[12]), int(fields[13]))
        except ValueError:
            raise malformed(self.path, lineno, fields) from None
        if _NOT_MINUS_ONE(raw) or max(job_id, submit, wait, runtime, allocated, requested,
                                      requested_time, status, user, group, executable) > LARGEST:
            error = out_of_range(self.path, lineno, fields)
            if error is not None:
                raise error
        nodes = -(-(requested if requested > 0 else allocated) // self.ppn)
        if self.unit > 1:
            nodes = -(-nodes // self.unit) * self.unit
        first_line = self.first_lines.setdefault(job_id, lineno)
        if first_line == lineno:
            self.pending_log.append((job_id, lineno, submit, wait, runtime, nodes))
        reason = self._rejection(first_line, lineno, submit, runtime, status, nodes,
                                 requested_time)
        if reason is not None:
            for column, value in zip(self.rejected, (job_id, lineno, reason)):
                column.append(value)
            return
        if nodes > self.machine:
            nodes = self.machine
            self.clipped += 1
        if requested_time <= 0:
            requested_time = runtime
            self.substituted += 1
        self.pending.append((job_id, submit, runtime, nodes, requested_time, user, group,
                             executable, lineno))
        if len(self.pending_log) >= _BATCH or len(self.pending) >= _BATCH:
            self._flush()

    def _flush(self) -> None:
        for column, values in zip(self.rows, zip(*self.pending)):
            column.extend(values)
        self.log.extend(chain.from_iterable(self.pending_log))
        self.pending.clear()
        self.pending_log.clear()

    def _rejection(self, first_line: int, lineno: int, submit: float, runtime: float,
                   status: int, nodes: int, requested_time: float) -> str | None:
        """Why a job cannot run (the first of :data:`REJECT_REASONS` that
        holds), or ``None``."""
        if first_line != lineno:
            return f"{DUPLICATE_JOB_ID}, first at line {first_line}"
        if submit < 0:
            return UNKNOWN_SUBMIT if submit == -1 else NEGATIVE_SUBMIT
        if runtime <= 0:
            return CANCELLED_BEFORE_START if status == STATUS_CANCELLED else NON_POSITIVE_RUNTIME
        if nodes <= 0:
            return NON_POSITIVE_SIZE
        if nodes > self.machine and not self.clip_oversized:
            return LARGER_THAN_MACHINE
        if requested_time <= 0 and self.reject_unknown_walltime:
            return UNKNOWN_WALLTIME
        return None

    def workload(self, header: dict[str, str], shift_to_zero: bool, size_unit: str) -> Workload:
        """The :class:`Workload` of the lines taken, jobs in order of submit."""
        self._flush()
        columns = self.rows
        submits = np.frombuffer(columns[1], dtype=float)
        if len(submits) > 1 and (submits[1:] < submits[:-1]).any():
            order = np.argsort(submits, kind="stable")  # file order among equal submits
            columns = tuple(array(column.typecode, np.frombuffer(column, dtype=_DTYPES[
                column.typecode])[order].tobytes()) for column in columns)
        offset = columns[1][0] if len(submits) and shift_to_zero else 0.0
        # tuple.__new__ skips the NamedTuple's Python-level __new__: same Job, faster
        jobs = [_new_tuple(Job, (i, s - offset, r, n, w, 0.0, 0.0, 1.0, u, g, x, 0))
                for i, s, r, n, w, u, g, x in zip(*columns[:8])]
        job_lines = Columns({"job_id": np.frombuffer(columns[0], dtype=np.int64),
                             "line": np.frombuffer(columns[8], dtype=np.int64)})
        self.rows = None  # the columns can go before the log's are made
        ids, lines, reasons = self.rejected
        return Workload(
            jobs=jobs, rejected=rejected_columns(ids, lines, reasons), header=header,
            machine_nodes=self.machine, path=self.path, time_offset=float(offset),
            walltimes_substituted=self.substituted, procs_per_node=self.ppn,
            allocation_unit=self.unit, size_unit=size_unit, sizes_clipped=self.clipped,
            log=_log_table(self.log), job_lines=job_lines)


def _read(
    stream: Iterable[bytes],
    path: Path,
    machine_nodes: int | None,
    procs_per_node: int | None,
    unit: int,
    shift_to_zero: bool,
    size_unit: str,
    reject_unknown_walltime: bool,
    clip_oversized: bool,
) -> Workload:
    """One pass over the lines: ``;`` lines build the header, which sizes the
    machine by the first job line; job lines go to :class:`_JobLines`."""
    header = HeaderLines(path)
    job_lines = None  # made at the first job line, once the header has sized the machine

    def start_jobs() -> _JobLines:
        ppn, machine = resolve_machine(path, header.values, procs_per_node, machine_nodes,
                                       size_unit)
        return _JobLines(path, ppn, machine, unit, reject_unknown_walltime, clip_oversized)

    for lineno, raw in enumerate(stream, 1):
        stripped = raw.lstrip()
        if not stripped:
            continue
        if stripped[0] == 59:  # b";": a header or comment line
            header.add(raw.decode("utf-8", errors="replace"), lineno)
            continue
        if job_lines is None:
            job_lines = start_jobs()
        job_lines.add(lineno, raw)
    if job_lines is None:  # a trace with no job lines still reports its machine
        job_lines = start_jobs()
    return job_lines.workload(header.values, shift_to_zero, size_unit)


def _log_table(rows: array) -> Columns:
    """:attr:`Workload.log` from its rows (flat), through one numpy array (a
    DataFrame built from tuples is several times slower)."""
    table = np.frombuffer(rows, dtype=float).reshape(-1, len(LOG_COLUMNS))
    return Columns({name: table[:, index].astype("int64" if name in ("job_id", "line", "nodes")
                                                 else float)
                    for index, name in enumerate(LOG_COLUMNS)})
