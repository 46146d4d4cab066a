"""State spaces: the reachability graph of a net with finitely many
tokens, timed as in CPN Tools, and what can be read from it.

``state_space(net)`` explores (``explore.py``: what a state is, what is
merged, the bounds); the :class:`StateSpace` it returns holds the graph
and the shortest paths to its states (``space.py``); ``report(space)``
gives CPN Tools' standard report (``report.py``); :mod:`cpn.query` states
and checks properties on it, with counterexamples as :class:`Path` s
(``paths.py``) that print as timelines and replay in the stepper.
"""

from .explore import StateSpaceError, clock_readers, state_space
from .paths import TIME_ADVANCE, Firing, Path
from .report import Report, report  # the function, as the docs call it
from .space import StateSpace

__all__ = ["TIME_ADVANCE", "Firing", "Path", "Report", "StateSpace", "StateSpaceError",
           "clock_readers", "report", "state_space"]
