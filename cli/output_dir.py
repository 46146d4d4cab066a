"""Where a command writes, checked before it works: a run's results must
not be lost, after minutes of simulation, to a name taken by a file or to
a directory it may not write."""

from __future__ import annotations

import os
from pathlib import Path


def writable_directory(path: Path, flag: str) -> Path:
    """``path`` created (with its parents) if it is not there, as a
    directory this process can write into; else a ``ValueError`` naming
    ``flag`` and why."""
    try:
        path.mkdir(parents=True, exist_ok=True)
    except FileExistsError:
        raise ValueError(f"{flag} {path}: a file of that name is there, not a directory") \
            from None
    except OSError as error:
        raise ValueError(f"{flag} {path}: cannot create it ({error.strerror})") from None
    if not os.access(path, os.W_OK | os.X_OK):
        raise ValueError(f"{flag} {path}: cannot write into it (permission denied)")
    return path
