"""Naming the nodes of a run whose net only counts them: a monitor that
follows the energy-saving module's firings and keeps a ``NodeLedger``
(per-node times, shutdowns, the state timeline)."""

from __future__ import annotations

from cpn.monitors import Monitor

from ..node_ledger import NodeLedger
from ..node_power import NodePower
from .decisions import Decision


class LedgerMonitor(Monitor):
    """Follows the module's firings and keeps a :class:`NodeLedger` (names,
    per-node times, timeline).  Job starts and ends are read from *Runtime
    Info* when *Sync* fires (a job requeued after a failure ends there and
    starts again later); the ledger closes when *Finished* holds ``jobs``
    jobs (the makespan), so what happens after is not counted."""

    def __init__(self, ledger: NodeLedger, node: NodePower = NodePower(),
                 jobs: int | None = None, name: str = "EnergySaving",
                 runtime_info: str = "RuntimeInfo", finished: str = "Finished"):
        self.ledger, self.node, self.jobs, self.name = ledger, node, jobs, name
        self.runtime_info, self.finished = runtime_info, finished
        self.decisions: list[Decision] = []

    def watched_transitions(self, sim):
        self.kinds: dict[int, str] = {}
        for kind in ("Sync", "Tick", "Booted", "Halted"):
            try:
                self.kinds[sim.transition_index(f"{self.name}/{kind}")] = kind
            except KeyError:
                pass  # an always-on module has only Sync
        # Places read after firings: live views, looked up once.
        self._running = sim.view(self.runtime_info)
        self._finished = sim.view(self.finished)
        self._decision = (sim.view(f"{self.name}/LastDecision")
                          if "Tick" in self.kinds.values() else None)
        self._batch = {t: sim.transitions[t].variables.index("batch")
                       for t, kind in self.kinds.items() if kind in ("Booted", "Halted")}
        return list(self.kinds)

    def fired(self, sim, transition, values):
        kind, now, ledger = self.kinds[transition], sim.now, self.ledger
        if kind == "Sync":
            running, held = self._running[0], ledger.running
            ended = [job_id for job_id in held if job_id not in running]
            starts = len(running) - len(held) + len(ended)
            if len(ended) > 1 or starts > 1:  # several at once: in the order of sets
                ended, started = held.keys() - running.keys(), running.keys() - held.keys()
            elif starts:  # the one job started, usually the last entry
                job_id = next(reversed(running))
                started = ((job_id,) if job_id not in held
                           else [job_id for job_id in running if job_id not in held])
            else:
                started = ()
            for job_id in ended:
                ledger.job_ended(job_id, now)
            for job_id in started:
                ledger.job_started(job_id, running[job_id][1], now)
            if self.jobs is not None and len(self._finished) >= self.jobs:
                ledger.close(now)
        elif kind == "Tick":
            decision = self._decision[0]
            if decision.power_off:
                ledger.power_off(decision.power_off, now, now + self.node.power_off_s)
            if decision.power_on:
                ledger.power_on(decision.power_on, now, now + self.node.power_on_s)
            if decision.power_on or decision.power_off:
                self.decisions.append(decision)
        else:
            batch = values[self._batch[transition]]
            (ledger.booted if kind == "Booted" else ledger.halted)(batch.ready, now)
        return False
