"""Queries on state spaces: state predicates, temporal operators,
verdicts with counterexamples.

>>> from cpn.query import always, count, eventually, token
>>> cap_holds = always(token("Power") <= 350)
>>> all_done = eventually(count("Finished") == 4)

``query.check(space)`` (or ``check(space, query)``) returns a
:class:`Verdict`; a failing one carries its counterexample, a
:class:`~cpn.statespace.Path` that prints as a timeline
(``path.timeline()``) and saves as a trace for ``cpn replay``
(``path.save(file)``).  ``predicates.py`` says what a state or a step
satisfies, ``temporal.py`` how the operators read the graph.
"""

from .predicates import (Predicate, State, Step, Value, after, before, changes, clock,
                         count, dead, fires, stable, step, token, tokens, where)
from .temporal import (Query, QueryError, Verdict, always, check, eventually, inevitable,
                       leads_to, never, reachable)

__all__ = ["Predicate", "Query", "QueryError", "State", "Step", "Value", "Verdict", "after",
           "always", "before", "changes", "check", "clock", "count", "dead", "eventually",
           "fires", "inevitable", "leads_to", "never", "reachable", "stable", "step", "token",
           "tokens", "where"]
