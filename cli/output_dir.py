"""Where a command writes, checked before it works: a run's results must
not be lost, after minutes of simulation, to a name taken by a file or to
a directory it may not write.  Nothing is left behind by the check: a run
refused for its input leaves no empty directory."""

from __future__ import annotations

import os
from pathlib import Path


def writable_directory(path: Path, flag: str) -> Path:
    """``path`` if it is a directory this process can write into, or can
    be created as one (tried, then taken back); else a ``ValueError``
    naming ``flag`` and why."""
    if path.is_dir():
        if not os.access(path, os.W_OK | os.X_OK):
            raise ValueError(f"{flag} {path}: cannot write into it (permission denied)")
        return path
    if path.exists():
        raise ValueError(f"{flag} {path}: a file of that name is there, not a directory")
    missing = [path, *(parent for parent in path.parents if not parent.exists())]
    try:
        path.mkdir(parents=True)
    except OSError as error:
        raise ValueError(f"{flag} {path}: cannot create it ({error.strerror})") from None
    for created in missing:  # deepest first
        created.rmdir()
    return path
