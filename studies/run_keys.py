"""The stable key of a run declaration: a hash of what the run reads.

A sweep stores each run's result under its key and recognises the run by it
when restarted, so the key must change exactly when the run would.  It is
16 hex digits of the SHA-256 of the declaration's canonical JSON, in which
every input file (a trace, a file of job profiles) stands for its content,
not its path: ``runs/a.swf``, ``/home/me/runs/a.swf`` and
``./runs/../runs/a.swf`` are one run, and another ``a.swf`` with other jobs
is another run.  The declaration itself keeps the file's absolute path
(:func:`absolute_path`), so that any process reads the same file whatever
its working directory (a Dask worker's is not the client's).

Hashing a large trace takes a while, so a file's digest is remembered for
its path, modification time and size: each process hashes a trace once.
Modification times tick coarsely (milliseconds on many file systems), so a
file rewritten within the same tick, at the same size, would look
unchanged: the digest of a file modified in the last :data:`RECENT_SECONDS`
is not remembered (git's "racy" rule).

The key leaves the code out (a restarted sweep must find its runs after
any edit); what code made a result is its stamp instead
(:func:`code_digest`, checked by ``studies.storage``).
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import time
from pathlib import Path
from typing import Any, Iterable, Mapping

RECENT_SECONDS = 2.0
#: The packages whose code makes a result: the engine, the modules, the
#: nets, the runs declared as data, and the command line's options.
CODE_PACKAGES = tuple(Path(__file__).resolve().parents[1] / name
                      for name in ("cpn", "modules", "nets", "studies", "cli"))
#: (absolute path, mtime in ns, size) -> "sha256:<hex digits>"
_DIGESTS: dict[tuple[str, int, int], str] = {}


def absolute_path(path: str | os.PathLike) -> str:
    """``path`` made absolute against the working directory, ``..`` and
    symbolic links resolved (the file need not exist yet)."""
    return str(Path(path).resolve())


def file_digest(path: str | os.PathLike, what: str = "file") -> str:
    """``"sha256:<hex digits>"`` of the file's bytes, computed once for each
    path, modification time and size (unless just modified).  A missing file is a
    ``FileNotFoundError`` saying "no ``what`` at ``path``"."""
    path = absolute_path(path)
    try:
        status = os.stat(path)
    except FileNotFoundError:
        raise FileNotFoundError(f"no {what} at {path}") from None
    stamp = (path, status.st_mtime_ns, status.st_size)
    digest = _DIGESTS.get(stamp)
    if digest is None:
        digest = "sha256:" + _sha256_of_file(path)
        if time.time_ns() - status.st_mtime_ns > RECENT_SECONDS * 1e9:
            _DIGESTS[stamp] = digest
    return digest


def _sha256_of_file(path: str) -> str:
    with open(path, "rb") as stream:
        return hashlib.file_digest(stream, "sha256").hexdigest()


def run_key(declaration: Mapping[str, Any], files: Iterable[str] = ()) -> str:
    """16 hex digits of the SHA-256 of ``declaration`` as canonical JSON,
    each field named in ``files`` (a path) replaced by its file's digest.

    >>> run_key({"policy": "fcfs", "seed": 0})
    '377691b2b8dfa5fd'
    """
    identity = dict(declaration)
    for name in files:
        identity[name] = file_digest(identity[name], name)
    text = json.dumps(identity, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()[:16]


@functools.cache
def code_digest() -> str:
    """``"sha256:<hex digits>"`` of this package's code
    (:data:`CODE_PACKAGES`), read once a process (about 10 ms): a checkout
    keeps its version number while its model is edited, so the version
    cannot say which code made a result."""
    return "sha256:" + source_digest(CODE_PACKAGES)


def source_digest(packages: Iterable[str | os.PathLike]) -> str:
    """SHA-256 hex digits of every file under the ``packages`` directories,
    each with its path within its package's parent (caches of compiled code
    left out, which come and go with the same code)."""
    digest = hashlib.sha256()
    for package in map(Path, packages):
        for path in sorted(package.rglob("*")):
            if path.is_file() and "__pycache__" not in path.parts:
                digest.update(path.relative_to(package.parent).as_posix().encode() + b"\0")
                digest.update(path.read_bytes())
    return digest.hexdigest()
