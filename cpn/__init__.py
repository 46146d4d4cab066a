"""A timed coloured Petri net engine with CPN Tools semantics.

Declare a :class:`Net`, run it with a :class:`Simulator`, observe it with
monitors; edit it (``net.set_guard``, ``net.replace_module``, ...), compare
two with :func:`diff`, save it as a data file and :func:`load` it back.  It knows nothing about HPC: the models live in ``modules`` and
``nets``.
"""

from typing import TYPE_CHECKING

from .diff import NetDiff, diff
from .errors import BindingError, ColourError, NetError
from .marking import Marking
from .net import P_HIGH, P_LOW, P_NORMAL, Delayed, Net, TimedToken, timed
from .netfile import NetFileError, load, loads

if TYPE_CHECKING:
    from .simulator import Binding, RunResult, Simulator, StopReason

#: Names of ``cpn.simulator``, imported when first asked for: the simulator
#: needs numpy, which a program that only declares nets (the parsers of the
#: ``cpn`` command, a module's configuration) need not load.
_SIMULATOR_NAMES = frozenset({"Binding", "RunResult", "Simulator", "StopReason"})

__all__ = [
    "Net", "Simulator", "Delayed", "Binding", "Marking", "RunResult", "StopReason", "TimedToken",
    "timed", "P_HIGH", "P_NORMAL", "P_LOW", "NetError", "ColourError", "BindingError",
    "diff", "NetDiff", "load", "loads", "NetFileError",
]


def __getattr__(name: str):
    if name in _SIMULATOR_NAMES:
        from . import simulator

        return getattr(simulator, name)
    raise AttributeError(f"module 'cpn' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | _SIMULATOR_NAMES)
