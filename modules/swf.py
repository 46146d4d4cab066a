"""Read a Standard Workload Format trace into job tokens.

The Parallel Workloads Archive (Feitelson et al.) publishes real job logs in
the Standard Workload Format (SWF): ``;`` header lines of ``Key: value``
(``MaxNodes``, ``MaxProcs``, ``UnixStartTime``, ...) followed by one line per
job of 18 whitespace-separated numbers, ``-1`` meaning unknown.  The PuPPET
and TOPPER nets consume :class:`modules.job.Job` tokens, so this module maps
each job line to one ``Job``:

==========  ===============================================================
``id``      field 1, job id
``st``      field 2, submit time (shifted so the first submit is 0, by default)
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
and the field, because a trace that parses "mostly" would give results
nobody can trust; so is a file that is empty, not text, or a gzip file cut
short (an interrupted download).  A UTF-8 byte order mark is skipped.

The trace's own schedule comes along in :attr:`Workload.log`: field 3, the
time each job waited, with its submit time, run time and size, for every
job line (accepted or not), so that a simulated schedule can be measured
against the one that happened (``modules/validation.py``).

Reading is a single streaming pass in binary mode (gzip is detected from the
file's magic bytes, whatever its name): each line is split once and only the
ten fields the reader uses are converted to numbers; the other eight are
only checked, with one ``bytes.translate`` per line, for characters a number
cannot hold (so a misplaced sign such as ``1-2`` in an unused field passes).
On CEA-Curie (312,826 lines, gzip) this takes about 2 s.
Example::

    >>> wl = read_swf("LLNL-Atlas-2006-2.1-cln.swf")       # doctest: +SKIP
    >>> print(wl.summary())                                # doctest: +SKIP
"""

from __future__ import annotations

import gc
import gzip
import math
import os
import re
import zlib
from dataclasses import dataclass, field, replace
from operator import itemgetter
from pathlib import Path
from typing import Iterable

import numpy as np
import pandas as pd

from modules.job import Job

from .trace_file import SWFError, check_text_and_skip_bom, damaged_gzip, open_trace

__all__ = [
    "SWF_FIELDS",
    "REJECT_REASONS",
    "SWFError",
    "Workload",
    "read_swf",
    "parse_header_line",
]

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

DUPLICATE_JOB_ID = "duplicate job id"
CANCELLED_BEFORE_START = "cancelled before start"
NON_POSITIVE_RUNTIME = "non-positive runtime"
NON_POSITIVE_SIZE = "non-positive size"
LARGER_THAN_MACHINE = "size larger than the machine"
UNKNOWN_WALLTIME = "unknown requested time"
#: Why a job line may be rejected, in the order the checks are made.  A
#: rejected row's reason may add a detail after a comma ("duplicate job id,
#: first at line 12"); :meth:`Workload.rejection_counts` counts by the part
#: before it.
REJECT_REASONS = (
    DUPLICATE_JOB_ID,
    CANCELLED_BEFORE_START,
    NON_POSITIVE_RUNTIME,
    NON_POSITIVE_SIZE,
    LARGER_THAN_MACHINE,
    UNKNOWN_WALLTIME,
)
#: What a job's size counts: nodes (processors grouped ``procs_per_node``
#: to a node) or processors, for machines whose processors are not a whole
#: number of nodes.
SIZE_UNITS = ("nodes", "procs")
#: Columns of :attr:`Workload.log`, the schedule the trace records.
LOG_COLUMNS = ("job_id", "line", "submit", "wait", "runtime", "nodes")

_STATUS_CANCELLED = 5
# Fields converted with int() (0-based); the times (submit, run, requested) may
# carry decimals and are converted with float().
_INT_FIELDS = frozenset({0, 4, 7, 10, 11, 12, 13})
_NUMBER = re.compile(rb"-?\d+(?:\.\d+)?|-?\.\d+")
_INTEGER = re.compile(rb"-?\d+")
# Every byte a job line may hold; translate() deleting them leaves b"" on a
# well-formed line.
_NUMERIC_BYTES = b"0123456789-. \t\r\n"
_HEADER = re.compile(r" ?([A-Za-z][A-Za-z0-9_]*)\s*:(.*)")
_new_tuple = tuple.__new__


@dataclass(frozen=True, eq=False)
class Workload:
    """A list of jobs ready for a net, with what was left out and why.

    ``jobs`` are in order of submit time (file order among equal times).
    ``rejected`` has one row per job line that cannot run (columns
    ``job_id, line, reason``).  ``header`` maps each ``; Key: value`` of the
    trace to its text (repeated keys such as ``Note`` are joined by newlines).
    ``time_offset`` is what was subtracted from every submit time, so
    ``job.st + time_offset`` is the time in the trace.  ``log`` is the
    schedule the trace records (:data:`LOG_COLUMNS`): one row per job line
    with an id of its own, times on the trace's clock, ``wait`` -1 where
    unknown, ``nodes`` the size in the workload's ``size_unit`` before any
    cut to the machine (``sizes_clipped`` counts the cut ones).
    """

    jobs: list[Job]
    rejected: pd.DataFrame
    header: dict[str, str]
    machine_nodes: int
    path: Path | None = None
    time_offset: float = 0.0
    walltimes_substituted: int = 0
    procs_per_node: int = 1
    allocation_unit: int = 1
    size_unit: str = "nodes"
    sizes_clipped: int = 0
    log: pd.DataFrame = field(
        default_factory=lambda: pd.DataFrame(columns=list(LOG_COLUMNS)), repr=False)

    @property
    def unit_name(self) -> str:
        """What sizes count, in words: ``nodes`` or ``processors``."""
        return "processors" if self.size_unit == "procs" else "nodes"

    @property
    def jobs_read(self) -> int:
        """Job lines seen: accepted plus rejected."""
        return len(self.jobs) + len(self.rejected)

    def rejection_counts(self) -> dict[str, int]:
        """Rejected jobs per reason (its part before any comma), in the
        order of :data:`REJECT_REASONS`, then reasons added by a run."""
        counts = self.rejected["reason"].str.split(",", n=1).str[0].value_counts()
        later = [reason for reason in counts.index if reason not in REJECT_REASONS]
        return {reason: int(counts[reason]) for reason in (*REJECT_REASONS, *later)
                if counts.get(reason, 0)}

    def reject(self, ids, reason: str) -> "Workload":
        """This workload without the jobs ``ids``, which join the rejected
        table with ``reason`` (and line -1: refused by a setting of the run,
        such as a power cap, not by the file)."""
        ids = set(ids)
        if not ids:
            return self
        added = pd.DataFrame({"job_id": pd.Series(sorted(ids), dtype="int64"),
                              "line": pd.Series([-1] * len(ids), dtype="int64"),
                              "reason": pd.Series([reason] * len(ids), dtype="object")})
        return replace(self, jobs=[job for job in self.jobs if job.id not in ids],
                       rejected=pd.concat([self.rejected, added], ignore_index=True))

    def frame(self) -> pd.DataFrame:
        """The accepted jobs as a DataFrame, one column per ``Job`` field."""
        return pd.DataFrame(self.jobs, columns=list(Job._fields))

    def offered_load(self, span: float | None = None) -> float:
        """Node-seconds of work asked for over node-seconds available.

        ``sum(js * rt) / (machine_nodes * span)``; ``span`` defaults to the
        time from the first to the last submit.  Above 1 the machine cannot
        keep up whatever the scheduler does.
        """
        if span is None:
            if not self.jobs:
                return 0.0
            span = max(j.st for j in self.jobs) - min(j.st for j in self.jobs)
        if span <= 0:
            raise ValueError(f"span must be positive, got {span}")
        work = math.fsum(j.js * j.rt for j in self.jobs)
        return work / (self.machine_nodes * span)

    def summary(self) -> str:
        """A few lines saying what was read, kept and substituted."""
        name = self.path.name if self.path is not None else self.header.get("Computer", "workload")
        lines = [
            f"{name}: {self.jobs_read:,} jobs read, {len(self.jobs):,} accepted, "
            f"{len(self.rejected):,} rejected; machine of {self.machine_nodes:,} "
            f"{self.unit_name}"
        ]
        for reason, count in self.rejection_counts().items():
            lines.append(f"  rejected, {reason}: {count:,}")
        if self.walltimes_substituted:
            lines.append(
                f"  requested walltime unknown for {self.walltimes_substituted:,} "
                "accepted jobs: the run time was used instead"
            )
        if self.sizes_clipped:
            lines.append(f"  {self.sizes_clipped:,} jobs larger than the machine run on all "
                         f"of its {self.machine_nodes:,} {self.unit_name}")
        if self.time_offset:
            lines.append(f"  submit times shifted by {-self.time_offset:+,.0f} s: the first, "
                         f"at {self.time_offset:,.0f} s in the trace, is time 0")
        return "\n".join(lines)


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
    path = Path(path)
    for name, value, allowed in (("size_unit", size_unit, SIZE_UNITS),
                                 ("unknown_walltime", unknown_walltime, ("runtime", "reject")),
                                 ("oversized", oversized, ("reject", "clip"))):
        if value not in allowed:
            raise ValueError(f"{name} must be one of {allowed}, not {value!r}")
    if size_unit == "procs":
        if procs_per_node not in (None, 1):
            raise ValueError(f"procs_per_node={procs_per_node} means nothing with "
                             'size_unit="procs": sizes count processors')
        procs_per_node = 1
    if allocation_unit < 1:
        raise ValueError(f"allocation_unit must be at least 1, got {allocation_unit}")
    if procs_per_node is not None and procs_per_node < 1:
        raise ValueError(f"procs_per_node must be at least 1, got {procs_per_node}")
    if machine_nodes is not None and machine_nodes < 1:
        raise ValueError(f"machine_nodes must be at least 1, got {machine_nodes}")
    # Hundreds of thousands of new tuples would trigger the cyclic garbage
    # collector again and again over the growing list (a third of the time on
    # CEA-Curie); tuples of numbers hold no cycles, so pause it meanwhile.
    collecting = gc.isenabled()
    gc.disable()
    try:
        with open_trace(path) as stream:
            check_text_and_skip_bom(stream, path)
            return _read(stream, path, machine_nodes, procs_per_node, allocation_unit,
                         shift_to_zero, size_unit, unknown_walltime == "reject",
                         oversized == "clip")
    except (EOFError, zlib.error, gzip.BadGzipFile) as error:
        raise damaged_gzip(path, error) from None
    finally:
        if collecting:
            gc.enable()


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
    header: dict[str, str] = {}
    last_key: str | None = None
    rows: list[tuple] = []
    rejected_ids: list[int] = []
    rejected_lines: list[int] = []
    rejected_reasons: list[str] = []
    first_lines: dict[int, int] = {}  # job id -> the line that owns it
    log: list[tuple] = []  # one LOG_COLUMNS row per job id
    substituted = clipped = 0
    ppn = machine = 0  # resolved at the first job line, once the header is read

    for lineno, raw in enumerate(stream, 1):
        stripped = raw.lstrip()
        if not stripped:
            continue
        if stripped[0] == 59:  # b";": a header or comment line
            text = raw.decode("utf-8", errors="replace")
            parsed = parse_header_line(text)
            if parsed is not None:
                key, value = parsed
                header[key] = f"{header[key]}\n{value}" if key in header else value
                last_key = key
            else:
                body = text.lstrip()[1:].strip()
                if not body:
                    last_key = None  # a bare ";" ends the previous key's text
                elif last_key is not None:
                    header[last_key] += "\n" + body  # an indented continuation
            continue
        if not ppn:
            ppn, machine = _machine(path, header, procs_per_node, machine_nodes, size_unit)

        fields = raw.split()
        try:
            if len(fields) != 18 or raw.translate(None, _NUMERIC_BYTES):
                raise ValueError
            job_id = int(fields[0])
            submit = float(fields[1])
            wait = float(fields[2])
            runtime = float(fields[3])
            allocated = int(fields[4])
            requested = int(fields[7])
            requested_time = float(fields[8])
            status = int(fields[10])
            user = int(fields[11])
            group = int(fields[12])
            executable = int(fields[13])
        except ValueError:
            raise _malformed(path, lineno, fields) from None

        procs = requested if requested > 0 else allocated
        nodes = -(-procs // ppn)
        if unit > 1:
            nodes = -(-nodes // unit) * unit
        first_line = first_lines.setdefault(job_id, lineno)
        if first_line == lineno:
            log.append((job_id, lineno, submit, wait, runtime, nodes))
        if first_line != lineno:
            reason = f"{DUPLICATE_JOB_ID}, first at line {first_line}"
        elif runtime <= 0:
            reason = CANCELLED_BEFORE_START if status == _STATUS_CANCELLED else NON_POSITIVE_RUNTIME
        elif nodes <= 0:
            reason = NON_POSITIVE_SIZE
        elif nodes > machine and not clip_oversized:
            reason = LARGER_THAN_MACHINE
        elif requested_time <= 0 and reject_unknown_walltime:
            reason = UNKNOWN_WALLTIME
        else:
            if nodes > machine:
                nodes = machine
                clipped += 1
            if requested_time <= 0:
                requested_time = runtime
                substituted += 1
            rows.append((job_id, submit, runtime, nodes, requested_time, user, group, executable))
            continue
        rejected_ids.append(job_id)
        rejected_lines.append(lineno)
        rejected_reasons.append(reason)

    if not ppn:  # a trace with no job lines still reports its machine
        ppn, machine = _machine(path, header, procs_per_node, machine_nodes, size_unit)
    if any(rows[k][1] > rows[k + 1][1] for k in range(len(rows) - 1)):
        rows.sort(key=itemgetter(1))  # stable: file order among equal submits
    offset = rows[0][1] if rows and shift_to_zero else 0.0
    # tuple.__new__ skips the NamedTuple's Python-level __new__: same Job, faster
    jobs = [
        _new_tuple(Job, (i, s - offset, r, n, w, 0.0, 0.0, 1.0, u, g, x, 0))
        for i, s, r, n, w, u, g, x in rows
    ]
    rejected = pd.DataFrame(
        {
            "job_id": pd.Series(rejected_ids, dtype="int64"),
            "line": pd.Series(rejected_lines, dtype="int64"),
            "reason": pd.Series(rejected_reasons, dtype="object"),
        }
    )
    return Workload(
        jobs=jobs,
        rejected=rejected,
        header=header,
        machine_nodes=machine,
        path=path,
        time_offset=float(offset),
        walltimes_substituted=substituted,
        procs_per_node=ppn,
        allocation_unit=unit,
        size_unit=size_unit,
        sizes_clipped=clipped,
        log=_log_frame(log),
    )


def _log_frame(rows: list[tuple]) -> pd.DataFrame:
    """:attr:`Workload.log` from its rows, through one numpy array (a
    DataFrame built from tuples is several times slower)."""
    table = np.array(rows, dtype=float).reshape(-1, len(LOG_COLUMNS))
    frame = pd.DataFrame(table, columns=list(LOG_COLUMNS))
    return frame.astype({"job_id": "int64", "line": "int64", "nodes": "int64"})


def _header_int(header: dict[str, str], key: str) -> int | None:
    """A positive integer header value, or ``None`` when absent or unknown."""
    text = header.get(key, "").split("\n")[0].strip()
    try:
        value = int(text)
    except ValueError:
        return None
    return value if value > 0 else None


def _machine(
    path: Path, header: dict[str, str], procs_per_node: int | None, machine_nodes: int | None,
    size_unit: str,
) -> tuple[int, int]:
    """Resolve (procs per node, machine size) from the arguments and header."""
    max_nodes = _header_int(header, "MaxNodes")
    max_procs = _header_int(header, "MaxProcs")
    if size_unit == "procs":
        machine = machine_nodes or max_procs
        if not machine:
            raise SWFError(f"{path}: machine size in processors unknown: the header gives "
                           "no MaxProcs; pass machine_nodes")
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
                "MaxProcs; pass machine_nodes"
            )
    return procs_per_node, machine_nodes


def _malformed(path: Path, lineno: int, fields: list[bytes]) -> SWFError:
    """Say precisely what is wrong with a job line that failed to parse."""
    where = f"{path}:{lineno}"
    if len(fields) != 18:
        return SWFError(f"{where}: expected 18 fields, found {len(fields)}")
    for index, token in enumerate(fields):
        name = f"field {index + 1} ({SWF_FIELDS[index]})"
        text = token.decode("utf-8", errors="replace")
        if not _NUMBER.fullmatch(token):
            return SWFError(f"{where}: {name}: {text!r} is not a number")
        if index in _INT_FIELDS and not _INTEGER.fullmatch(token):
            return SWFError(f"{where}: {name}: {text!r} is not an integer")
    return SWFError(f"{where}: a character that belongs in no number (control byte?)")
