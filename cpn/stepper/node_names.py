"""How a user names a place or transition at the prompt: its full path
(``Scheduler/Queue``, or for a place any path the simulator finds it by)
or, when no other node shares it, its last part."""

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
    ``name``: a name the simulator knows (for a place, any that
    ``FlatNet.place_index`` finds: a fusion set member's or a port's
    path too), or a last path component that names one node."""
    net = sim.net
    if kind == "place":
        names, path_of = net.place_names(), net.place_path
    else:
        names, path_of = [t.path for t in net.transitions], str
    if name in names:
        return path_of(name)
    matches = list(dict.fromkeys(path_of(n) for n in names if n.rsplit("/", 1)[-1] == name))
    if len(matches) == 1:
        return matches[0]
    if matches:
        raise Hint(f"{kind} {name!r} is ambiguous: {', '.join(matches)}")
    paths = list(dict.fromkeys(map(path_of, names)))
    shown = ", ".join(paths[:12]) + (" …" if len(paths) > 12 else "")
    raise Hint(f"no {kind} {name!r} (known: {shown})")
