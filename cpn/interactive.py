"""Stepping by hand: every binding enabled now, and firing the one chosen.

An automatic run fires the first binding each search finds; a person
stepping through a net (``cpn step``, the stepper API) wants to see them
all and pick one, and to have a stale or pre-empted pick refused as CPN
Tools refuses it.  Mixed into ``Simulator``.
"""

from __future__ import annotations

from .errors import BindingError
from .results import Binding


class Interactive:
    """:meth:`enabled` and :meth:`fire` of a ``Simulator``."""

    def enabled(self, all_priorities: bool = False,
                transition: str | None = None) -> list[Binding]:
        """Every binding that may fire now (only the highest priority, as in
        CPN Tools, unless ``all_priorities``), equal bindings listed once;
        with ``transition``, only that transition's."""
        self._refresh()
        if not self._found:
            return []
        best = min(self._priority[t] for t in self._found)
        only = None if transition is None else self.transition_index(transition)
        result: list[Binding] = []
        for t in sorted(self._found):
            if not all_priorities and self._priority[t] != best or only not in (None, t):
                continue
            raw: list = []
            try:
                self._search[t](self.now, raw)
            except Exception as error:  # noqa: BLE001 - reported with context
                raise self._search_failed(t, error) from error
            seen: set = set()  # tokens are hashable: a set, not a list, for many bindings
            for picks, values in raw:
                if values in seen:
                    continue
                seen.add(values)
                result.append(self._binding(t, picks, values))
        return result

    def _binding(self, t: int, picks: tuple, values: tuple) -> Binding:
        names = self.transitions[t].variables
        return Binding(self.transitions[t].path, dict(zip(names, values)), t, picks,
                       values, self._version)

    def fire(self, binding: Binding | None = None, undoable: bool = True) -> Binding:
        """Fire one binding from :meth:`enabled` (or the one the automatic
        run would choose; a binding pre-empted by a higher priority is
        refused, as in CPN Tools); :meth:`undo` takes it back, unless
        ``undoable`` is False (long replays need no undo history), which
        drops the undo points before it instead."""
        self._refresh()
        if binding is None:
            if not self._found:
                raise BindingError(f"nothing is enabled at time {self.now}")
            t = self._choose()
            binding = self._binding(t, *self._found[t])
        elif binding.version != self._version:
            raise BindingError(f"binding {binding} is stale: it was listed for another "
                               "marking (this simulator's before a change, or another "
                               "simulator's); call enabled() again")
        elif self._priority[binding.index] > min(self._priority[t] for t in self._found):
            # Listed by enabled(all_priorities=True), but CPN Tools semantics
            # let only the highest priority fire.
            raise BindingError(f"binding {binding} is not enabled: a transition of higher "
                               "priority is enabled now")
        # The run's loop fires the one binding found; the others are found
        # again after it.
        others = [t for t in self._found if t != binding.index]
        self._found.clear()
        self._found[binding.index] = (binding.picks, binding.raw)
        try:
            with self._change(recorded=undoable):
                self._loop(limit=self.steps + 1)
        finally:
            self._dirty.update(others)
        return binding
