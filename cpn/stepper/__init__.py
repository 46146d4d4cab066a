"""Stepping through a net by hand, from a terminal, a notebook or a script.

The :class:`Stepper` is a command interpreter over a simulator: it reads
one command per line (fire binding 3, run to time 100, set a breakpoint,
undo, save the trace, ...) and *shows* what happened as a sequence of
:class:`Message` and :class:`Table` items, handed to a ``show`` callable.
It never reads the keyboard nor decides how things look: by default each
item is printed as plain text, and ``cpn step NET`` (``cli/terminal.py``)
renders them with colours and wrapped tables and adds line editing.  So a
test, a notebook or a file of commands can script a whole session.

Every firing, by hand or during a run, is recorded; ``save FILE`` writes
the trace as JSON lines and :func:`replay` fires it again on a fresh
simulator, stopping with the step number at the first firing that is not
enabled (the net changed, or the trace is from another net).

>>> from cpn import Net
>>> net = Net("loop")
>>> _ = net.place("P", int, initial=[0])
>>> _ = net.transition("Inc", guard="x < 2")
>>> net.arc("P", "Inc", "x"); net.arc("Inc", "P", "x + 1")
>>> shown = []
>>> stepper = Stepper(net, show=shown.append)
>>> stepper.session(["1", "1", "q"])
>>> stepper.simulator.tokens("P")
[2]
>>> print(shown[-1])
nothing is enabled at time 0, nor ever will be (a dead marking): u to undo, q to quit

The package: ``session.py`` (the :class:`Stepper`), ``messages.py`` (what
it shows), ``views.py`` (the status, bindings, marking and changes),
``breakpoints.py`` (breakpoints and the firing recorder), ``help.py``
(the help text) and ``node_names.py`` (how a user names a node).
"""

from ..trace import FiringRecord, ReplayError, replay
from .messages import Kind, Message, Table
from .session import Stepper

__all__ = ["Stepper", "Message", "Table", "Kind", "replay", "ReplayError", "FiringRecord"]
