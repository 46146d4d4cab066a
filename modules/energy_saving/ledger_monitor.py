"""Naming the nodes of a run whose net only counts them: a monitor that
follows the energy-saving module's firings and keeps a ``NodeLedger``
(per-node times, shutdowns, the state timeline), or its totals alone
(``NodeCounts``)."""

from __future__ import annotations

import math

from cpn.monitors import Monitor

from ..node_counts import NodeCounts
from ..node_ledger import NodeLedger
from ..node_power import NodePower
from .decisions import Decision


class LedgerMonitor(Monitor):
    """Follows the module's firings and keeps a :class:`NodeLedger` (names,
    per-node times, timeline) or :class:`NodeCounts` (totals).  Job starts and ends are read from *Runtime
    Info* when *Sync* fires (a job requeued after a failure ends there and
    starts again later); the ledger closes when *Finished* holds ``jobs``
    jobs (the makespan), so what happens after is not counted."""

    def __init__(self, ledger: NodeLedger | NodeCounts, node: NodePower = NodePower(),
                 jobs: int | None = None, name: str = "EnergySaving",
                 runtime_info: str = "RuntimeInfo", finished: str = "Finished"):
        self.ledger, self.node, self.jobs, self.name = ledger, node, jobs, name
        self.runtime_info, self.finished = runtime_info, finished
        self._closing = math.inf if jobs is None else jobs  # Finished's length that closes it
        self.decisions: list[Decision] = []

    def follows(self, sim):
        """What follows each firing of *Sync*, *Tick*, *Booted* and *Halted*
        (the module's own; an always-on module has only *Sync*): called
        straight from the simulator's loop, this monitor never stops a run."""
        kinds = {"Sync": self._synced, "Tick": self._ticked, "Booted": self._batch_done,
                 "Halted": self._batch_done}
        follows = {}
        for kind, follow in kinds.items():
            try:
                follows[sim.transition_index(f"{self.name}/{kind}")] = follow
            except KeyError:
                pass
        # Places read after every Sync: their own lists, looked up once.
        self._running = sim.held(self.runtime_info)
        self._finished = sim.held(self.finished)
        self._decision = (sim.view(f"{self.name}/LastDecision")
                          if kinds["Tick"] in follows.values() else None)
        self._batch = {t: (sim.transitions[t].variables.index("batch"),
                           sim.transitions[t].path.endswith("/Booted"))
                       for t, follow in follows.items() if follow == self._batch_done}
        return follows

    def _synced(self, transition, values):
        """Jobs that started or ended, from *Runtime Info*.  Most often one
        job started, the last entry, which a containment test confirms
        without building the sets of what changed."""
        running, ledger = self._running[0], self.ledger
        held = ledger.running
        if (len(running) == len(held) + 1 and (job_id := next(reversed(running))) not in held
                and held.keys() <= running.keys()):
            ledger.job_started(job_id, running[job_id][1], self.sim.now)
        else:
            self._changed(running, held)
        if len(self._finished) >= self._closing:
            ledger.close(self.sim.now)

    def _changed(self, running, held):
        """Jobs ended, and perhaps started, at one *Sync*: in the order of sets."""
        now, ledger = self.sim.now, self.ledger
        ended = held.keys() - running.keys()
        for job_id in ended:
            ledger.job_ended(job_id, now)
        for job_id in (running.keys() - held.keys() if len(running) - len(held) + len(ended)
                       else ()):
            ledger.job_started(job_id, running[job_id][1], now)

    def _ticked(self, transition, values):
        """The tick's decision: nodes switched off and booted."""
        now, ledger, decision = self.sim.now, self.ledger, self._decision[0]
        if decision.power_off:
            ledger.power_off(decision.power_off, now, now + self.node.power_off_s)
        if decision.power_on:
            ledger.power_on(decision.power_on, now, now + self.node.power_on_s)
        if decision.power_on or decision.power_off:
            self.decisions.append(decision)

    def _batch_done(self, transition, values):
        """A batch of nodes booted or halted."""
        position, booted = self._batch[transition]
        batch, ledger = values[position], self.ledger
        (ledger.booted if booted else ledger.halted)(batch.ready, self.sim.now)
