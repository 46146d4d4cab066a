"""One PuPPET or TOPPER run, declared as data: an :class:`Experiment`.

A power capping study (PuPPET section 5) is a grid of runs that differ in a
few parameters: the batch scheduling policy, the capping method, the cap,
alpha, beta, the idle power, the month of the trace.  An ``Experiment``
names one such run completely, as a frozen dataclass of plain values, so
that it is hashable, JSON-serialisable, and has a stable short id
(:meth:`Experiment.key`, a hash of its canonical JSON) under which a sweep
stores its result and recognises it when restarted.  A trace file is kept
as its absolute path, to be read from anywhere, and enters the key by its
content (:mod:`studies.run_keys`): however its path is spelt, a run has one key.

Fields that cannot change a run are set to ``None`` (alpha and beta act
only under DVFS, ``l`` and ``w`` only under WAIT, the cap only when there
is capping), so that two declarations of the same run share one key; a
relevant field left ``None`` takes the paper's default.

The cap is either absolute (``cap_watts``) or, as in the paper (45,720 kW
is 70 % of the peak of the uncapped January run), a fraction
(``cap_fraction``) of the peak power of the *uncapped twin*: the same run
with ``capping="none"``, on the same window of the trace, with the same
policy, machine and power options, on window ``cap_month`` of the trace.
As in the paper, which took January's peak for every month, a windowed
run's cap refers to window 0 by default; ``cap_month="own"`` makes each
window its own reference (stored as the run's month).  :func:`studies.running.run_experiment` runs that twin once and keeps its result as
``<key>.json`` in the results directory, where a sweep finds it again; the
twin is also the baseline that studies normalise by (``baseline_key``).

A ``resilience`` method makes the run a TOPPER one (failures, and
checkpoint/restart or replication; TOPPER section 3.2): the fields of
failures and their handling then take the paper's defaults, and a PuPPET
experiment, which leaves them ``None``, keeps its canonical JSON and key
(fields that are ``None`` there are left out of it).  ``walltime_scale``
and ``size_scale`` stretch the workload (TOPPER Figs. 16-17) under either
model.

>>> exp = Experiment(capping="wait", cap_fraction=0.7, policy="wfp")
>>> exp.alpha is None and exp.l == 10
True
>>> exp.uncapped().capping, exp.uncapped().cap_fraction
('none', None)
>>> Experiment(alpha=3.0).key() == Experiment().key()   # alpha cannot act uncapped
True
>>> topper = Experiment(resilience="replication")
>>> topper.redundancy, topper.gamma, topper.on_failure, topper.system_mttf_hours
(2.0, 0.3, 'keep', 46.45)
>>> Experiment(walltime_scale=1.0).key() == Experiment().key()
True
"""

from __future__ import annotations

import functools
import json
import math
import os
from dataclasses import asdict, dataclass, fields, replace
from pathlib import Path
from typing import Any, Iterable, Mapping

from .experiment_fields import (MIRA_SYSTEM_MTTF_HOURS, SYNTHETIC, TOPPER_DEFAULTS,
                                check_choices, check_kinds, check_values, field_number,
                                settle_resilience, sorted_levels)
from .run_keys import absolute_path, run_key

#: The paper's defaults (section 5): cap 70 % of the uncapped peak, alpha 2,
#: beta 0.5, idle power 30 %; WAIT with l = 10 and w = 500 minutes.
DEFAULT_CAP_FRACTION = 0.7
#: The window whose uncapped peak a fractional cap refers to, for every
#: window: the paper's January (window 0); ``"own"``: each window its own.
PAPER_CAP_MONTH = 0
OWN_MONTH = "own"
MIRA_NODE_WATTS = 65_760 / 1024  # modules.power_profile's (not imported here: no numpy)
#: Fields left out of the canonical JSON when None, so that experiments
#: declared before they existed keep their keys.
_OPTIONAL = ("resilience", *TOPPER_DEFAULTS, "unit_nodes", "walltime_scale", "size_scale",
             "over_cap", "dvfs_admission", "overrun", "size_unit", "checkpoint_interval_minutes")

_FLOATS = ("cap_fraction", "cap_watts", "w_minutes", "alpha", "beta", "latency",
           "idle_fraction", "node_watts", "core_share", "system_mttf_hours",
           "checkpoint_scale", "redundancy", "gamma", "dvfs_failure_multiplier",
           "walltime_scale", "size_scale", "checkpoint_interval_minutes")
_INTS = ("month", "procs_per_node", "allocation_unit", "machine_nodes", "cap_month", "l",
         "seed", "unit_nodes")


def cap_reference_of(experiments: Iterable["Experiment"]) -> str | None:
    """Which peak the caps of ``experiments`` refer to, in words (None when
    none is capped): the run of the latest month tells a common reference
    (month 0) from each month's own."""
    capped = [exp for exp in experiments if exp.capping != "none"]
    if not capped:
        return None
    whole_trace = all(exp.month is None for exp in capped)
    return max(capped, key=lambda exp: -1 if exp.month is None else exp.month
               ).cap_reference_label(whole_trace)


@dataclass(frozen=True)
class Experiment:
    """One PuPPET run.  Times in the trace's seconds, power in watts.

    ``trace``: an SWF file (kept as its absolute path; the key hashes its
    content), or ``"synthetic"`` for the built-in Mira-like
    month (:func:`modules.synthetic.synthetic_month`; its month ``m`` is a
    draw seeded by ``seed`` and ``m``, at January's load for even ``m`` and March's,
    busier, for odd ``m`` (:func:`modules.synthetic.mira_load`), so a
    synthetic study has a quieter and a busier month, as the papers').
    ``month``: index of a 30-day window of submit times, counted from the
    first submit (jobs of the window run to completion), or ``None`` for
    the whole trace.  ``procs_per_node``, ``allocation_unit``,
    ``machine_nodes`` and ``size_unit`` (None: nodes; ``"procs"``: as ``cpn
    run --unit procs``) are passed to :func:`modules.swf.read_swf`.
    ``policy``, ``estimate``, ``trigger``, ``backfill`` and ``overrun`` (a
    job past its requested walltime: ``None`` or ``"keep"``, it runs on;
    ``"clamp"``, it is killed at it) are ``SchedulingConfig``'s.

    ``capping``: ``"none"``, ``"block"``, ``"wait"`` (with ``l`` and
    ``w_minutes``; ``l`` 0 lets no job wait, which is BLOCK: its
    ``w_minutes`` is None, never read) or ``"dvfs"`` (with ``alpha``, ``beta``, ``levels``,
    ``latency`` and ``dvfs_admission``, ``modules.cpu_scaling.ADMISSIONS``);
    the cap is ``cap_watts``, or ``cap_fraction`` of the uncapped twin's
    peak of window ``cap_month`` (default 0, the paper's January;
    ``"own"``: the run's month).  ``over_cap``: a job whose power alone
    breaks the cap is ``"reject"``-ed (the default: the cap holds; the
    record counts them in ``rejected_jobs``) or runs when nothing else does
    (``"run_alone"``).

    ``power``: job power ``"drawn"`` per owner from Mira's per-rack
    distribution (seeded by ``seed``, scaled from Mira's node to one of
    ``node_watts``) or ``"constant"`` (``node_watts`` per node); idle
    nodes draw ``idle_fraction`` of ``node_watts``.  ``seed``
    also seeds the synthetic workload and the simulator's tie-breaking
    (and, in TOPPER, the failures).

    ``resilience`` (``None``: PuPPET, no failures): ``"checkpoint"``,
    ``"replication"`` (with ``redundancy`` r and ``gamma``, eq. 4) or
    ``"none"`` (failed jobs restart from scratch).  Compute units of
    ``unit_nodes`` nodes (default: 1,024-node racks on a machine made of
    them, else single nodes) fail as Poisson processes so that the whole
    machine fails every ``system_mttf_hours`` on average (Mira's 46.45 h by
    default).  ``checkpoint_scale`` scales O_c (Fig. 12); jobs checkpoint
    every ``checkpoint_interval_minutes`` of compute (None: Daly's interval);
    ``dvfs_failure_multiplier`` multiplies failure rates below nominal
    frequency under DVFS (Fig. 15); ``on_failure``: a failed job ``"keep"``s
    its units or ``"requeue"``s.  ``walltime_scale`` multiplies every job's
    runtime and requested walltime, ``size_scale`` its nodes (at least 1, at
    most the machine) and its power with them (Figs. 16-17).
    """

    trace: str = SYNTHETIC
    month: int | None = None
    procs_per_node: int | None = None
    allocation_unit: int = 1
    machine_nodes: int | None = None
    size_unit: str | None = None  # None: "nodes" (a job's size counts nodes)
    policy: str = "fcfs"
    estimate: str = "requested"
    trigger: str = "event"
    backfill: bool = True
    overrun: str | None = None  # None: "keep" (SchedulingConfig's default)
    capping: str = "none"
    cap_fraction: float | None = None
    cap_watts: float | None = None
    cap_month: int | str | None = None
    over_cap: str | None = "reject"
    l: int | None = 10  # noqa: E741 (the paper's name)
    w_minutes: float | None = 500.0
    alpha: float | None = 2.0
    beta: float | None = 0.5
    levels: tuple[float, ...] | None = None  # None: CpuScaling's default levels
    latency: float | None = 0.0
    dvfs_admission: str | None = "lowest"
    core_share: float | None = 0.65
    idle_fraction: float = 0.3
    node_watts: float = MIRA_NODE_WATTS
    power: str = "drawn"
    seed: int = 0
    resilience: str | None = None
    on_failure: str | None = None
    unit_nodes: int | None = None
    system_mttf_hours: float | None = None
    checkpoint_scale: float | None = None
    checkpoint_interval_minutes: float | None = None  # None: Daly's interval
    redundancy: float | None = None
    gamma: float | None = None
    dvfs_failure_multiplier: float | None = None
    walltime_scale: float | None = None
    size_scale: float | None = None

    def __post_init__(self):
        check_kinds(self)
        put = functools.partial(object.__setattr__, self)
        if isinstance(self.cap_month, str) and self.cap_month != OWN_MONTH:
            raise ValueError(f"cap_month must be a month or {OWN_MONTH!r}, not {self.cap_month!r}")
        if self.cap_month == OWN_MONTH and self.month is not None:
            put("cap_month", self.month)  # a whole-trace run keeps "own" for its windows
        trace = os.fspath(self.trace)
        put("trace", trace if trace == SYNTHETIC else absolute_path(trace))
        for name in _FLOATS:
            value = getattr(self, name)
            if value is not None:
                put(name, field_number(name, value))
        for name in _INTS:
            value = getattr(self, name)
            if value is not None and value != OWN_MONTH:
                value = field_number(name, value)
                if not value.is_integer():
                    raise ValueError(f"{name} must be a whole number, not {value}")
                put(name, int(value))
        if self.overrun == "keep" or trace == SYNTHETIC:
            put("overrun", None)  # one spelling of the default (synthetic jobs never overrun)
        if self.size_unit == "nodes":
            put("size_unit", None)  # one spelling of the default: a nodes run keeps its key
        check_choices(self)
        put("backfill", bool(self.backfill))  # a table's numpy bool too
        defaults = {f.name: f.default for f in fields(self)}

        def relevant(name: str, applies: bool) -> None:
            if not applies:
                put(name, None)
            elif getattr(self, name) is None:
                put(name, defaults[name])

        capped, dvfs = self.capping != "none", self.capping == "dvfs"
        relevant("l", self.capping == "wait")
        relevant("w_minutes", self.l not in (None, 0))  # l = 0: no job waits (BLOCK), no w
        for name in ("alpha", "beta", "latency", "core_share", "dvfs_admission"):
            relevant(name, dvfs)
        put("levels", sorted_levels(self.levels))
        if not dvfs:
            put("levels", None)
        relevant("over_cap", capped)
        if not capped:
            for name in ("cap_fraction", "cap_watts", "cap_month"):
                put(name, None)
        elif self.cap_watts is not None:
            if self.cap_fraction is not None:
                raise ValueError("give the cap either in watts or as a fraction, not both "
                                 f"({self.cap_watts} W, {self.cap_fraction})")
            put("cap_month", None)
        elif self.cap_fraction is None:
            put("cap_fraction", DEFAULT_CAP_FRACTION)
        if self.cap_fraction is not None and self.month is not None and self.cap_month is None:
            put("cap_month", PAPER_CAP_MONTH)
        settle_resilience(self, put)
        for name in ("walltime_scale", "size_scale"):
            if getattr(self, name) == 1.0:
                put(name, None)
        check_values(self)

    # -- identity -----------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        """The fields as plain JSON values (``levels`` as a list)."""
        data = asdict(self)
        if data["levels"] is not None:
            data["levels"] = list(data["levels"])
        for name in _OPTIONAL:
            if data[name] is None:
                del data[name]
        return data

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> "Experiment":
        """An experiment from :meth:`to_dict` or from a result row (other
        keys are ignored; ``levels`` may be a list or ``"1;0.9;..."``)."""
        if not isinstance(data, Mapping):  # else "'int' object has no attribute 'items'"
            raise TypeError(f"Experiment.from_dict takes a mapping of fields (as to_dict "
                            f"gives), not {type(data).__name__} {data!r:.60}")
        names = {f.name for f in fields(cls)}
        values = {k: None if isinstance(v, float) and math.isnan(v) else v  # empty CSV cell
                  for k, v in data.items() if k in names}
        levels = values.get("levels")
        if isinstance(levels, str):
            values["levels"] = tuple(float(f) for f in levels.split(";") if f)
        unknown = set(data) - names
        if unknown and "key" not in data:  # a result row carries metrics too
            raise ValueError(f"unknown experiment fields: {sorted(unknown)}")
        return cls(**values)

    def canonical_json(self) -> str:
        return json.dumps(self.to_dict(), sort_keys=True, separators=(",", ":"))

    def key(self) -> str:
        """A stable short id: 16 hex digits of the SHA-256 of the canonical
        JSON with the trace's content in place of its path
        (:func:`studies.run_keys.run_key`; the synthetic workload is its name)."""
        return run_key(self.to_dict(), () if self.trace == SYNTHETIC else ("trace",))

    # -- related runs -------------------------------------------------------

    def uncapped(self) -> "Experiment":
        """The uncapped twin: the baseline of normalised results."""
        return replace(self, capping="none")

    def cap_reference(self) -> "Experiment | None":
        """The uncapped run whose peak ``cap_fraction`` refers to, if any."""
        if self.cap_fraction is None:
            return None
        twin = self.uncapped()
        if self.cap_month in (None, OWN_MONTH):  # a whole-trace run: itself
            return twin
        return replace(twin, month=self.cap_month)

    def cap_reference_label(self, whole_trace: bool = False) -> str:
        """Which peak the cap refers to, in words (also of a template with no
        month: its windows follow the default, unless it runs ``whole_trace``)."""
        if self.capping == "none":
            return "no cap"
        if self.cap_watts is not None:
            return f"a fixed cap of {self.cap_watts:,.0f} W"
        if whole_trace and self.month is None and self.cap_month in (None, OWN_MONTH):
            return "the whole trace's uncapped peak"
        if self.cap_month == OWN_MONTH or (self.month is not None
                                           and self.cap_month == self.month):
            return "each month's own uncapped peak"
        month = PAPER_CAP_MONTH if self.cap_month is None else self.cap_month
        return f"the uncapped peak of month {month}"

    # -- as a run of a sweep (studies.sweep.Run) -------------------------------

    def baseline(self) -> "Experiment":
        """The run results are normalised by: the uncapped twin."""
        return self.uncapped()

    def prerequisite(self) -> "Experiment | None":
        """The run whose result this one needs: the cap reference."""
        return self.cap_reference()

    def run(self, prerequisite: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """:func:`studies.running.run_experiment`, given the cap reference's
        result if any."""
        from .running import run_experiment  # which runs experiments: imported when run

        peak = None if prerequisite is None else float(prerequisite["power_peak_w"])
        return run_experiment(self, uncapped_peak_w=peak)

    def label(self) -> str:
        """A short human-readable description."""
        parts = [Path(self.trace).name.removesuffix(".gz").removesuffix(".swf")]
        if self.size_unit == "procs":
            parts.append("in processors")
        if self.month is not None:
            parts.append(f"month {self.month}")
        parts.append(self.policy)
        if self.overrun == "clamp":
            parts.append("overruns killed")
        if self.capping != "none":
            cap = (f"{self.cap_watts:,.0f} W" if self.cap_watts is not None
                   else f"{self.cap_fraction:.0%}")
            parts.append(f"{self.capping} {cap}")
        if self.capping == "dvfs":
            parts.append(f"alpha {self.alpha:g} beta {self.beta:g}")
        if self.idle_fraction != 0.3:
            parts.append(f"idle {self.idle_fraction:.0%}")
        if self.resilience is not None:
            if self.resilience == "replication":
                parts.append(f"replication r {self.redundancy:g} gamma {self.gamma:g}")
            else:
                parts.append({"none": "no checkpoints"}.get(self.resilience, self.resilience))
            if self.checkpoint_scale not in (None, 1.0):
                parts.append(f"O_c x{self.checkpoint_scale:g}")
            if self.checkpoint_interval_minutes is not None:
                parts.append(f"checkpoints every {self.checkpoint_interval_minutes:g} min")
            if self.system_mttf_hours != MIRA_SYSTEM_MTTF_HOURS:
                parts.append(f"system MTTF {self.system_mttf_hours:g} h")
            if self.dvfs_failure_multiplier not in (None, 1.0):
                parts.append(f"DVFS failures x{self.dvfs_failure_multiplier:g}")
            if self.on_failure == "requeue":
                parts.append("failed jobs requeued")
        for name, what in (("walltime_scale", "wall time"), ("size_scale", "job size")):
            if getattr(self, name) is not None:
                parts.append(f"{what} x{getattr(self, name):g}")
        return ", ".join(parts)
