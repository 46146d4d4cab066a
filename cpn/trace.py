"""Firing traces: what happened in a run, saved as JSON lines, and fired
again on a fresh simulator.

A trace is a header line then one JSON object per firing::

    {"format": "cpn-trace/1", "net": "buffer", "seed": 0, "end_time": 7.0}
    {"step": 1, "time": 0.0, "transition": "Produce", "values": {"x": "1"}}

A firing whose inscriptions drew from the model's ``rng`` in a state space
also records the outcomes its draws took (``"draws": [1, 0]``, see
:mod:`cpn.draws`), and :func:`replay` repeats them.

Variable values are written with ``repr`` (JSON cannot hold arbitrary
Python values such as a job record); :func:`replay` compares the ``repr``
of each candidate binding's values, so values must have a faithful,
deterministic ``repr`` (numbers, strings, tuples, dataclasses and named
tuples do).  The stepper writes traces (``save FILE``); ``cpn replay`` and
:func:`replay` read them.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable

from .draws import Choices
from .errors import BindingError, ColourError
from .flatten import FlatNet
from .net import Net
from .simulator import Simulator
from .times import time_text

TRACE_FORMAT = "cpn-trace/1"


class ReplayError(BindingError):
    """A saved trace cannot be fired again on this net."""


class TraceFileError(ReplayError):
    """A file that is not a saved trace (no header, a line not JSON, a
    record without its fields, a seed that is no seed)."""


@dataclass
class FiringRecord:
    """One firing of the trace: when, which transition, its variables."""

    step: int
    time: float
    transition: str
    values: dict[str, Any]
    draws: tuple[int, ...] = ()  # outcomes of the draws, in a state space's path

    def to_json(self) -> dict:
        """Values are encoded with ``repr`` (JSON cannot hold arbitrary
        Python values); :func:`replay` compares them the same way."""
        record = {"step": self.step, "time": self.time, "transition": self.transition,
                  "values": {name: repr(value) for name, value in self.values.items()}}
        if self.draws:
            record["draws"] = list(self.draws)
        return record


def save_trace(trace: Iterable[FiringRecord], path: str | Path, net: str = "",
               seed: int | None = None, end_time: float | None = None) -> int:
    """Write the header (with the clock ``end_time`` the session reached,
    which may lie after the last firing) and the firings; returns how many."""
    records = list(trace)
    header = {"format": TRACE_FORMAT, "net": net, "seed": seed}
    if end_time is not None:
        header["end_time"] = end_time
    with open(path, "w", encoding="utf-8") as file:
        file.write(json.dumps(header) + "\n")
        for record in records:
            file.write(json.dumps(record.to_json()) + "\n")
    return len(records)


def load_trace(path: str | Path) -> tuple[dict, list[dict]]:
    """The header and the firing records of a saved trace, each field
    checked (a :class:`TraceFileError` names the line and the field)."""
    header: dict = {}
    records: list[dict] = []
    with open(path, encoding="utf-8") as file:
        for number, line in enumerate(file, 1):
            if not line.strip():
                continue
            try:
                entry = json.loads(line)
            except json.JSONDecodeError as error:
                raise TraceFileError(f"{path}, line {number}: not JSON ({error.msg})") \
                    from None
            if not isinstance(entry, dict):
                raise TraceFileError(f"{path}, line {number}: expected a JSON object")
            if "format" in entry:
                if entry["format"] != TRACE_FORMAT:
                    raise TraceFileError(f"{path}: unknown trace format {entry['format']!r}")
                header = entry
                continue
            _check_record(entry, f"{path}, line {number}")
            records.append(entry)
    _check_header(header, path)
    return header, records


#: What each field of a firing record holds, as a check and its words.
_RECORD_FIELDS = {
    "step": (lambda v: _is_int(v) and v >= 1, "a whole number >= 1"),
    "time": (lambda v: _is_number(v) and math.isfinite(v), "a finite number"),
    "transition": (lambda v: isinstance(v, str) and v != "", "a transition's name"),
    "values": (lambda v: isinstance(v, dict) and all(isinstance(x, str) for x in v.values()),
               'an object of variable -> the repr of its value ({"x": "1"})'),
    "draws": (lambda v: isinstance(v, list) and all(_is_int(x) and x >= 0 for x in v),
              "an array of outcome indices (whole numbers >= 0)"),
}


def _check_record(entry: dict, where: str) -> None:
    """A hand-edited record is refused here, naming its line and field,
    not by a traceback in the middle of a replay."""
    missing = {"time", "transition", "values"} - set(entry)
    if missing:
        raise TraceFileError(f"{where}: missing {', '.join(sorted(missing))}")
    for field, value in entry.items():
        if field not in _RECORD_FIELDS:
            raise TraceFileError(f"{where}: unknown field {field!r} (a firing has "
                                 f"{', '.join(_RECORD_FIELDS)})")
        accepts, expected = _RECORD_FIELDS[field]
        if not accepts(value):
            raise TraceFileError(f"{where}: {field!r} must be {expected}, not "
                                 f"{json.dumps(value)}")


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _check_header(header: dict, path) -> None:
    """A trace starts with its header, whose seed (if any) is a seed: an
    empty file, or one cut at its head, replayed as nothing at all."""
    if not header:
        raise TraceFileError(f"{path}: not a saved trace: it has no header line "
                             f'({{"format": "{TRACE_FORMAT}", ...}})')
    seed = header.get("seed")
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int) or seed < 0):
        raise TraceFileError(f"{path}: the header's seed {seed!r} is not a whole number >= 0")
    end_time = header.get("end_time")
    if end_time is not None and not (_is_number(end_time) and math.isfinite(end_time)):
        raise TraceFileError(f"{path}: the header's end_time {json.dumps(end_time)} is not "
                             "a finite number")
    if not isinstance(header.get("net", ""), str):
        raise TraceFileError(f"{path}: the header's net {json.dumps(header['net'])} is not "
                             "a net's name")


def replay(net: Net | FlatNet, trace_file: str | Path, seed: int | None = None,
           marking=None) -> Simulator:
    """Fire a saved trace again on a new simulator and return it.

    ``seed`` defaults to the one saved with the trace (it drives the
    model's ``rng``, so random delays come out the same); ``marking``
    overrides initial markings as for :class:`Simulator`.  Before each
    firing the clock is advanced to the recorded time; the recorded
    binding (same transition, same ``repr`` of every variable) must then
    be enabled, or :class:`ReplayError` names the step that failed.  At
    the end the clock is moved to where the session left it.
    """
    header, _ = load_trace(trace_file)
    if seed is None:
        seed = header.get("seed") or 0
    sim = Simulator(net, seed=seed, marking=marking)
    replay_on(sim, trace_file)
    return sim


def replay_on(sim: Simulator, trace_file: str | Path) -> Simulator:
    """Fire a saved trace on an existing simulator (with its monitors,
    e.g. a stepper's, which then records the replayed firings too).  The
    replayed firings are not kept for :meth:`Simulator.undo`, and drop
    its earlier undo points."""
    header, records = load_trace(trace_file)
    for step, record in enumerate(records, 1):
        when, path = float(record["time"]), record["transition"]
        wanted = {name: str(value) for name, value in record["values"].items()}
        described = (f"{path}<{', '.join(f'{k}={v}' for k, v in wanted.items())}> "
                     f"at time {time_text(when)}")
        if when < sim.now:
            raise ReplayError(f"step {step}: {described} lies before the clock "
                              f"({time_text(sim.now)})")
        _advance_to(sim, when)
        if sim.now != when:
            raise ReplayError(f"step {step}: {described}: the clock cannot reach "
                              f"time {time_text(when)} (it stops at {time_text(sim.now)})")
        enabled = sim.enabled()
        for binding in enabled:
            if binding.transition == path and _encoded(binding.values) == wanted:
                try:
                    _fire(sim, binding, record.get("draws"))
                except (BindingError, ColourError) as error:
                    raise ReplayError(f"step {step}: firing {described} failed: "
                                      f"{error}") from error
                break
        else:
            others = ", ".join(str(b) for b in enabled[:5]) or "nothing"
            more = f" and {len(enabled) - 5} more" if len(enabled) > 5 else ""
            saved_from = header.get("net")
            other_net = (f"; the trace was saved from net {saved_from!r}, this is "
                         f"{sim.net.name!r}" if saved_from not in (None, sim.net.name) else "")
            raise ReplayError(f"step {step}: {described} is not enabled "
                              f"(enabled: {others}{more}){other_net}")
    if header.get("end_time") is not None:
        _advance_to(sim, float(header["end_time"]))
    return sim


def _fire(sim: Simulator, binding, draws: list | None) -> None:
    """Fire without an undo state (a long trace cannot afford one per
    firing; a replay is not undone), repeating the recorded draws."""
    if not draws:
        sim.fire(binding, undoable=False)
        return
    with sim.drawing_from(Choices(draws)):
        sim.fire(binding, undoable=False)


def _advance_to(sim: Simulator, when: float) -> None:
    """Move the clock to ``when`` (not past it), making the tokens due by
    then available, as the session's runs and clock advances did."""
    while sim.now < when and sim.advance(when):
        pass


def _encoded(values) -> dict[str, str]:
    return {name: repr(value) for name, value in values.items()}
