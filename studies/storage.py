"""Results on disk: one JSON file per run, every file written atomically.

A sweep may be killed at any moment, and several processes may read a
results directory while it is written, so no file is ever written in
place: it is written to a temporary file in the same directory, flushed to
disk, and renamed over its name (``os.replace`` is atomic), so a reader
sees the whole file or none of it.

Each result carries the format it was written in (:data:`RESULT_FORMAT`)
and the digest of the code that made it (``run_keys.code_digest``); a
result of another format or other code, or of none (written before they
were recorded), is outdated: a sweep runs it again rather than read a
result that a model or metric has changed since, or that lacks a metric
added since.  The digest catches the change nobody marked: an edited
model whose format was not raised.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Callable, NamedTuple, TextIO

from modules.run_files import json_safe

from .run_keys import code_digest

#: The format of stored results: bump it when a change of a model or of a
#: metric makes the results stored before it wrong or incomplete.
RESULT_FORMAT = 2
FORMAT_FIELD = "result_format"
CODE_FIELD = "code"


def result_path(results_dir, key: str) -> Path:
    """Where the result of the run with this key is kept."""
    return Path(results_dir) / f"{key}.json"


def read_result(results_dir, key: str) -> dict | None:
    """A stored result, or None when there is none (or it cannot be read)."""
    try:
        with open(result_path(results_dir, key)) as stream:
            return json.load(stream)
    except (FileNotFoundError, json.JSONDecodeError):
        return None


class StoredResult(NamedTuple):
    """A run's stored result of the current format (``record``), or None
    with ``outdated`` telling whether one of another format is there."""

    record: dict | None
    outdated: bool = False


def current_result(results_dir, key: str) -> StoredResult:
    """The result stored for ``key`` if it is of :data:`RESULT_FORMAT` and
    this code."""
    record = read_result(results_dir, key)
    if record is None:
        return StoredResult(None)
    if (not isinstance(record, dict) or record.get(FORMAT_FIELD) != RESULT_FORMAT
            or record.get(CODE_FIELD) != code_digest()):
        return StoredResult(None, outdated=True)
    return StoredResult(record)


def write_result(results_dir, key: str, record: dict) -> Path:
    """Store a run's result under its key, marked with the current format
    and code."""
    return write_json_atomically(result_path(results_dir, key),
                                 {**record, FORMAT_FIELD: RESULT_FORMAT,
                                  CODE_FIELD: code_digest()})


def write_atomically(path, write: Callable[[TextIO], None]) -> Path:
    """Call ``write`` on a temporary text file beside ``path`` (directories
    created), then put it in ``path``'s place."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    descriptor, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.stem}.",
                                             suffix=".tmp")
    try:
        os.fchmod(descriptor, 0o644)  # mkstemp's 0600 would hide results from others
        with os.fdopen(descriptor, "w") as stream:
            write(stream)
            stream.flush()
            os.fsync(stream.fileno())
        os.replace(temporary, path)
    except BaseException:
        try:
            os.unlink(temporary)
        except FileNotFoundError:
            pass
        raise
    return path


def write_json_atomically(path, data) -> Path:
    """``data`` as JSON in ``path``, written atomically (NaN as null)."""
    def write(stream: TextIO) -> None:
        json.dump(json_safe(data), stream, indent=1, sort_keys=True, allow_nan=False)
        stream.write("\n")
    return write_atomically(path, write)
