"""Run a sweep in parallel, resumably: the driver's side.

:func:`run_sweep` adds every run's baseline and prerequisite
(:func:`~studies.grids.plan`), skips every run whose ``<key>.json`` is
already in the results directory (in the current format,
:data:`studies.storage.RESULT_FORMAT`, and made by this code; an outdated
one is run again), and runs the rest on local processes
(``concurrent.futures.ProcessPoolExecutor``) or on a Dask cluster (give a
``distributed.Client``).  The driver, never a worker, writes each result as
soon as it arrives, atomically (:mod:`studies.storage`), so a sweep killed
at any moment leaves whole results only, and a restarted sweep does only
what is missing.  A run with a prerequisite is submitted once that result
is known, and gets it as an argument: workers need the trace, not the
results directory.  At the end, :func:`studies.results.collect` writes
``results.csv``.
"""

from __future__ import annotations

import concurrent.futures as futures
import multiprocessing
import os
import signal
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Sequence

from modules.values import is_whole_number

from .grids import Run, plan
from .results import RESULTS_CSV, collect
from .storage import current_result, write_result
from .thesis_run import refuse_job_ranges_beyond_traces
from .workloads import refuse_months_beyond_traces


@dataclass
class SweepSummary:
    """What a sweep did: runs executed, found already done, found stored
    in an outdated format or by other code (and so run again: they are in
    ``ran`` too once run), failed (key -> error), whether it was interrupted, and where the
    table is."""

    results_dir: Path
    ran: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    outdated: list[str] = field(default_factory=list)
    failed: dict[str, str] = field(default_factory=dict)
    interrupted: bool = False
    results_csv: Path | None = None

    def outdated_note(self) -> str | None:
        """The line telling the user that stored results were run again."""
        if not self.outdated:
            return None
        count = len(self.outdated)
        return (f"{count} stored result{'s were' if count > 1 else ' was'} made by another "
                f"version of the code and {'were' if count > 1 else 'was'} run again")

    @property
    def complete(self) -> bool:
        return not self.failed and not self.interrupted

    def raise_unless_complete(self) -> None:
        """For a study, which needs every run: Ctrl-C goes on as
        ``KeyboardInterrupt``, failed runs as one error naming a few."""
        if self.interrupted:
            raise KeyboardInterrupt
        if self.failed:
            raise RuntimeError(f"{len(self.failed)} runs failed: " + "; ".join(
                f"{key}: {error}" for key, error in list(self.failed.items())[:3]))


def _worker_processes():
    """How local workers start: forked by a fork server where there is one
    (Python 3.14's default), else spawned, never forked from the driver.
    A fork copies one thread of a process that may run others (a
    notebook's kernel, a Dask client, the progress bar), and a lock one of
    them held stays locked in the child.  The server, a fresh process, has
    our modules imported once, so each worker starts without importing them."""
    if "forkserver" not in multiprocessing.get_all_start_methods():
        return multiprocessing.get_context("spawn")
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload(["studies.sweep", "studies.running"])
    return context


def _ignore_interrupts() -> None:  # pragma: no cover - runs in worker processes
    """Workers leave Ctrl-C to the driver, which stops them (a worker that
    caught it would end its run early and report a partial result)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _run(run: Run, prerequisite: dict | None) -> dict:
    return run.run(prerequisite)


class _Progress:
    """A rich progress bar over runs (or nothing)."""

    def __init__(self, enabled: bool, total: int, skipped: int):
        self.bar = None
        if enabled and total:
            from rich.progress import (BarColumn, MofNCompleteColumn, Progress, TextColumn,
                                       TimeElapsedColumn, TimeRemainingColumn)
            self.bar = Progress(TextColumn("sweep"), BarColumn(), MofNCompleteColumn(),
                                TextColumn("runs ({task.fields[failed]} failed, "
                                           f"{skipped} already done)"),
                                TimeElapsedColumn(), TimeRemainingColumn())
            self.task = self.bar.add_task("sweep", total=total, failed=0)
            self.bar.start()
        self.failed = 0

    def advance(self, failed: bool) -> None:
        self.failed += failed
        if self.bar is not None:
            self.bar.update(self.task, advance=1, failed=self.failed)

    def stop(self) -> None:
        if self.bar is not None:
            self.bar.stop()


def _stop_local_workers(executor) -> None:
    """Cancel what has not started and terminate the worker processes this
    sweep started (they ignore Ctrl-C).  The pool's own thread cancels the
    runs not started (``shutdown``): a future cancelled here would stay in
    its books, and on Python 3.11 it then fails to mark it broken when the
    workers stop, printing an ``InvalidStateError`` traceback after the
    sweep's message."""
    processes = list((getattr(executor, "_processes", None) or {}).values())
    executor.shutdown(wait=False, cancel_futures=True)
    for process in processes:
        if process.is_alive():
            process.terminate()


def run_sweep(runs: Sequence[Run], results_dir, *, workers: int | None = None,
              client=None, progress: bool = True, baselines: bool = True,
              on_result: Callable[[dict], None] | None = None,
              collect_results: bool = True) -> SweepSummary:
    """Run what is missing of ``runs`` (plus their prerequisites and, with
    ``baselines``, their baselines) and store each result as
    ``results_dir/<key>.json``.

    ``workers``: local processes (default: all cores).  ``client``: a
    ``distributed.Client``; runs go to its cluster instead.  ``on_result``
    is called in the driver with each new result, after it is written.  On
    Ctrl-C (``KeyboardInterrupt``) the sweep cancels what has not finished,
    stops its local workers, and returns with ``interrupted`` set; finished
    results stay.  At the end, :func:`~studies.results.collect` writes
    ``results.csv``.
    """
    runs = _checked_runs(runs)
    _check_options(results_dir, workers, client, on_result)
    planned = plan(runs, baselines)
    refuse_months_beyond_traces(planned)
    refuse_job_ranges_beyond_traces(planned)
    results_dir = Path(results_dir)
    results_dir.mkdir(parents=True, exist_ok=True)
    sweep = _Sweep(results_dir, planned, on_result)
    if sweep.todo:
        sweep.execute(workers, client, progress)
    if collect_results and len(collect(results_dir, runs=runs)):
        sweep.summary.results_csv = results_dir / RESULTS_CSV
    return sweep.summary


def _checked_runs(runs) -> list[Run]:
    """``runs`` as a list (a generator was read up by the plan, and the
    table lost the grid's order), each a run declaration: a field's value,
    or a dict's keys, was an AttributeError naming no run."""
    if hasattr(runs, "key"):  # one run, where a list of them is meant
        raise TypeError("run_sweep takes a list of runs ([run], or a grid(...)), not one "
                        f"{type(runs).__name__}")
    runs = list(runs)
    for run in runs:
        if not all(callable(getattr(run, name, None)) for name in ("key", "prerequisite",
                                                                    "baseline", "run")):
            raise TypeError(f"run_sweep takes run declarations (Experiment, ThesisRun), not "
                            f"{type(run).__name__} {run!r:.60}")
    return runs


def _check_options(results_dir, workers, client, on_result) -> None:
    """Refuse options of :func:`run_sweep` it would misread or fail on,
    naming them: workers=2.0 (a computed half of the cores) and
    results_dir=None were TypeErrors naming neither, a client without an
    executor an AttributeError, and on_result=5 failed once the first result
    was written."""
    if not isinstance(results_dir, (str, os.PathLike)):
        raise ValueError(f"results_dir must be a directory's path, not {results_dir!r}")
    if workers is not None and not (is_whole_number(workers) and workers >= 1):
        raise ValueError(f"workers must be a whole number >= 1 (or None: all cores), "
                         f"not {workers!r}")
    if client is not None and not callable(getattr(client, "get_executor", None)):
        raise ValueError(f"client must be a distributed.Client (dask_client(address)), "
                         f"not {client!r}")
    if on_result is not None and not callable(on_result):
        raise ValueError(f"on_result must be a function of a result, or None, not "
                         f"{on_result!r}")


class _Sweep:
    """The driver's state: results stored and known, runs running, runs
    waiting for a prerequisite."""

    def __init__(self, results_dir: Path, needed: Sequence[Run],
                 on_result: Callable[[dict], None] | None):
        self.summary = SweepSummary(results_dir)
        self.on_result = on_result
        self.required = {run.prerequisite().key() for run in needed
                         if run.prerequisite() is not None}
        self.inputs: dict[str, dict] = {}  # the results of prerequisites, by key
        self.todo: list[Run] = []
        self.running: dict[futures.Future, Run] = {}
        for run in needed:
            stored = current_result(results_dir, run.key())
            if stored.record is None:
                self.todo.append(run)
                if stored.outdated:
                    self.summary.outdated.append(run.key())
            else:
                self.summary.skipped.append(run.key())
                if run.key() in self.required:
                    self.inputs[run.key()] = stored.record

    def execute(self, workers: int | None, client, progress: bool) -> None:
        """Run ``todo`` to the end, or until Ctrl-C."""
        own_executor = client is None
        if own_executor:
            executor = futures.ProcessPoolExecutor(max_workers=workers or os.cpu_count() or 1,
                                                   mp_context=_worker_processes(),
                                                   initializer=_ignore_interrupts)
        else:
            executor = client.get_executor()
        bar = _Progress(progress, len(self.todo), len(self.summary.skipped))
        try:
            self._drive(executor, bar)
        except KeyboardInterrupt:
            self.summary.interrupted = True
            if own_executor:
                _stop_local_workers(executor)
            else:
                for future in self.running:
                    future.cancel()
        finally:
            bar.stop()
            if own_executor:
                executor.shutdown(wait=not self.summary.interrupted, cancel_futures=True)

    def _drive(self, executor, bar: _Progress) -> None:
        """Submit what is ready, store what finishes, until nothing runs."""
        waiting = self._submit_ready(executor, self.todo, bar)
        while self.running:
            done, _ = futures.wait(list(self.running), return_when=futures.FIRST_COMPLETED)
            for future in done:
                self._receive(self.running.pop(future), future, bar)
            waiting = self._submit_ready(executor, waiting, bar)
        for run in waiting:  # cannot happen unless a prerequisite vanished
            self.summary.failed[run.key()] = "its prerequisite never ran"

    def _submit_ready(self, executor, candidates: list[Run], bar: _Progress) -> list[Run]:
        """Submit the runs whose prerequisite is known; return the others."""
        still = []
        for run in candidates:
            prerequisite = run.prerequisite()
            if prerequisite is None:
                self.running[executor.submit(_run, run, None)] = run
            elif prerequisite.key() in self.inputs:
                self.running[executor.submit(_run, run, self.inputs[prerequisite.key()])] = run
            elif prerequisite.key() in self.summary.failed:
                self.summary.failed[run.key()] = f"its prerequisite {prerequisite.key()} failed"
                bar.advance(True)
            else:
                still.append(run)
        return still

    def _receive(self, run: Run, future: futures.Future, bar: _Progress) -> None:
        """Store a finished run's result (or its error)."""
        try:
            record = future.result()
        except Exception as error:  # noqa: BLE001 - reported per run
            self.summary.failed[run.key()] = f"{type(error).__name__}: {error}"
            bar.advance(True)
            return
        write_result(self.summary.results_dir, run.key(), record)
        self.summary.ran.append(run.key())
        if run.key() in self.required:
            self.inputs[run.key()] = record
        bar.advance(False)
        if self.on_result is not None:
            self.on_result(record)


def dask_client(address: str):
    """A ``distributed.Client`` of the Dask scheduler at ``address``
    (``tcp://host:8786``), to give :func:`run_sweep`.  An address without
    a port is refused here, with what to do, rather than in Dask's words
    ("missing port number in address 'local'")."""
    host, _, port = address.rpartition("://")[2].rpartition(":")
    if not (host and port.isdigit()):
        raise ValueError(f"--scheduler {address!r}: give a running Dask scheduler's address, "
                         "tcp://HOST:PORT (start one with 'dask scheduler', and workers with "
                         "'dask worker tcp://HOST:8786'); on this machine alone, --workers N "
                         "runs local processes")
    try:
        from distributed import Client
    except ImportError:  # Dask is optional
        raise ValueError("running on a Dask scheduler needs Dask: "
                         "pip install 'cpn[sweep]'") from None
    return Client(address)
