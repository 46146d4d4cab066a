"""Checkpoints and undo: the simulator's state copied and put back.

A firing or a clock advance changes only the token lists, the heap of
future tokens, the clock, the counters and the random streams (the choice
between bindings, the model's ``rng``), so that is what a checkpoint
copies: after an undo the same command fires the same binding and draws
the same numbers.  Monitors are not rolled back.

Undo takes back the last change that was recorded, and only it: a change
made without an undo point (a run without ``history``, a replay, a restore)
drops the older undo points, since going back to one of them would take
back that change too, unseen.  Mixed into ``Simulator``.
"""

from __future__ import annotations

import contextlib
from typing import Iterator

from .errors import NetError


class Undoable:
    """:meth:`checkpoint`, :meth:`restore` and :meth:`undo` of a ``Simulator``."""

    def checkpoint(self, random_streams: bool = True) -> tuple:
        """A copy of everything a firing or a clock advance changes, for
        :meth:`restore` (monitors are not rolled back).  Without
        ``random_streams`` the streams are left out (and left as they are
        by :meth:`restore`): a state space, which tries every binding and
        every draw itself, keeps thousands of checkpoints."""
        return self._state(random_streams)

    def restore(self, state: tuple) -> None:
        """Go back to a :meth:`checkpoint`; the undo points of the state
        left behind are dropped (:meth:`undo` would jump back to them)."""
        with self._change(recorded=False):
            self._restore(state)

    def _state(self, random_streams: bool = True) -> tuple:
        streams = (self._choice.getstate(), self.rng,
                   getattr(getattr(self.rng, "bit_generator", None), "state", None)
                   ) if random_streams else None
        return (self.now, self.steps, [list(r) for r in self._R],
                [None if s is None else list(s) for s in self._S],
                (list(self._heap), list(self._initial), self._feeding),
                self._last, self._version, streams)

    @contextlib.contextmanager
    def _change(self, recorded: bool) -> Iterator[None]:
        """Around whatever may change the state: an undo point first when
        ``recorded``; otherwise, if the state did change (a new version),
        the undo points are dropped, so that :meth:`undo` never goes back
        past a change it cannot take back alone."""
        if recorded:
            self._undo.append(self._state())
            yield
            return
        version = self._version
        try:
            yield
        finally:
            if self._version != version:
                self._undo.clear()

    def undo(self) -> bool:
        """Take back the last recorded change: the last :meth:`fire` (unless
        ``undoable=False``) or, with ``history=True``, the last :meth:`run`
        (all of its firings), :meth:`step` or :meth:`advance`.  False when
        there is nothing to undo, which is also the case after a change that
        was not recorded (a run, step or advance without ``history``, a
        replay, a :meth:`restore`): it drops the undo points before it."""
        if not self._undo:
            return False
        self._restore(self._undo.pop())
        return True

    def _restore(self, state: tuple) -> None:
        R = state[2]
        lacking = [p for p in self._held if len(R[p]) != 1]
        if lacking:  # a checkpoint of another simulator, from another marking
            place = self.net.places[lacking[0]]
            raise NetError(f"cannot restore a checkpoint with {len(R[place.index])} tokens in "
                           f"place '{place.path}': this simulator started with one there, and "
                           "every firing keeps one")
        self.now, self.steps, R, S, heap, self._last, self._version, streams = state
        if streams is not None:
            choice, rng, rng_state = streams
            self._choice.setstate(choice)
            if rng is self.rng and rng_state is not None:  # not a stand-in (drawing_from)
                self.rng.bit_generator.state = rng_state
        for mine, saved in zip(self._R, R):
            mine[:] = saved
        for mine, saved in zip(self._S, S):
            if mine is not None:
                mine[:] = saved
        self._heap[:], initial, self._feeding = heap
        self._initial = list(initial)  # the checkpoint's stays as it was
        for slot in range(len(self._lo)):
            self._lowest(slot)
        self._found.clear()
        self._dirty.update(range(len(self.transitions)))
