"""How a user names a place or transition at the prompt: its full path
(``Scheduler/Queue``) or, when no other node shares it, its last part."""

from __future__ import annotations

from ..simulator import Simulator
from .messages import Hint


def short_name(path: str, paths: list[str]) -> str:
    """The last part of ``path`` when no other path ends with it (what the
    breakpoint commands accept), else the full path."""
    last = path.rsplit("/", 1)[-1]
    return last if sum(p.rsplit("/", 1)[-1] == last for p in paths) == 1 else path


def resolve(sim: Simulator, name: str, kind: str) -> str:
    """The path of the ``kind`` (place or transition) the user called
    ``name``: a full path, or a last path component that names one node."""
    paths = ([p.path for p in sim.net.places] if kind == "place"
             else [t.path for t in sim.net.transitions])
    if name in paths:
        return name
    matches = [p for p in paths if p.rsplit("/", 1)[-1] == name]
    if len(matches) == 1:
        return matches[0]
    if matches:
        raise Hint(f"{kind} {name!r} is ambiguous: {', '.join(matches)}")
    shown = ", ".join(paths[:12]) + (" …" if len(paths) > 12 else "")
    raise Hint(f"no {kind} {name!r} (known: {shown})")
