"""A timed coloured Petri net engine with CPN Tools semantics.

Declare a :class:`Net`, run it with a :class:`Simulator`, observe it with
monitors; edit it (``net.set_guard``, ``net.replace_module``, ...), compare
two with :func:`diff`, save it as a data file and :func:`load` it back.
It knows nothing about HPC: the models live in ``modules`` and ``nets``.
"""

from typing import TYPE_CHECKING

from .diff import NetDiff, diff
from .errors import (BindingError, ColourError, MonitorError, NetError, NetFileError,
                     NetWarning, UnknownNameError)
from .marking import Marking
from .net import P_HIGH, P_LOW, P_NORMAL, Delayed, Net, TimedToken, timed

if TYPE_CHECKING:
    from .netfile import load, loads
    from .simulator import Binding, RunResult, Simulator, StopReason

#: Names imported from their module when first asked for: the simulator
#: needs numpy, data files their TOML reader and writer, none of which a
#: program that only declares nets (the parsers of the ``cpn`` command, a
#: module's configuration) need load.
_LAZY = {"Binding": "simulator", "RunResult": "simulator", "Simulator": "simulator",
         "StopReason": "simulator", "load": "netfile", "loads": "netfile"}

__all__ = [
    "Net", "Simulator", "Delayed", "Binding", "Marking", "RunResult", "StopReason", "TimedToken",
    "timed", "P_HIGH", "P_NORMAL", "P_LOW", "NetError", "ColourError", "BindingError",
    "diff", "NetDiff", "load", "loads", "NetFileError", "UnknownNameError", "MonitorError",
    "NetWarning",
]


def __getattr__(name: str):
    if name in _LAZY:
        from importlib import import_module

        return getattr(import_module(f".{_LAZY[name]}", __name__), name)
    raise AttributeError(f"module 'cpn' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))
