"""Resilience formulas: Daly's checkpoint interval, checkpoint and
replication overheads, and the failure rate of a replicated application.

TOPPER paper, section 3.2 (eqs. 2-4).  Times in seconds, rates per second.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, fields
from typing import Sequence

from .values import is_number, is_whole_number

#: Costs in seconds (and their scale) that must be finite: an infinite one
#: never ends a job.
_FINITE = ("checkpoint_small", "checkpoint_large", "checkpoint_scale", "recovery")


def daly_interval(overhead: float, failure_rate: float) -> float:
    """Daly's optimal compute time between checkpoints (TOPPER eq. 2).

    ``overhead`` is the time of one checkpoint (O_c), ``failure_rate`` the
    application's (lambda_app).  Daly's expansion holds for O_c < 2 M
    (M = 1 / lambda); beyond, the optimum is M itself.  A job that never
    fails never checkpoints (an infinite interval); a free checkpoint
    (O_c = 0) gives 0: the job checkpoints continuously and a failure
    loses no work (``Execution.progress``).
    """
    if failure_rate <= 0:
        return math.inf
    mttf = 1.0 / failure_rate
    if overhead >= 2 * mttf:
        return mttf
    x = overhead * failure_rate / 2
    return math.sqrt(2 * overhead / failure_rate) * (1 + math.sqrt(x) / 3 + x / 9) - overhead


def checkpoint_overhead(runtime: float, interval: float, overhead: float) -> float:
    """Checkpointing cost of a whole run, ``rt / delta * O_c`` (eq. 3):
    none without checkpoints (an infinite interval) or when they are free
    (O_c = 0, taken continuously: an interval of 0)."""
    return 0.0 if math.isinf(interval) or not overhead else runtime / interval * overhead


def expected_stretch(failure_rate: float, interval: float, overhead: float,
                     recovery: float, work: float) -> float:
    """How many times its ``work`` a job is expected to take under failures
    at ``failure_rate``: Daly's expected wall time (2006, eq. 20),
    ``M e^(R/M) (e^((tau + delta)/M) - 1) / tau`` with M = 1/lambda, where a
    failure during a checkpoint or the recovery R starts it again, as in
    the fault tolerance module.  Without checkpoints (an infinite interval)
    each failure starts the job from its beginning (tau = the work, no
    delta); free ones (tau = 0) give e^(R/M).  It grows exponentially as M
    falls below the checkpoint and the recovery, so it is worked out in logs
    and may be infinite."""
    if not failure_rate > 0 or not work > 0:
        return 1.0 if math.isinf(interval) or not overhead else 1.0 + overhead / interval
    segment, delta = (work, 0.0) if math.isinf(interval) else (interval, overhead)
    log_stretch = recovery * failure_rate
    if segment > 0:
        x = (segment + delta) * failure_rate
        log_expm1 = math.log(math.expm1(x)) if x < 700 else x + math.log1p(-math.exp(-x))
        log_stretch += log_expm1 - math.log(failure_rate * segment)
    return math.exp(log_stretch) if log_stretch < 709 else math.inf


def replication_overhead(runtime: float, interval: float, overhead: float,
                         degree: float, communication: float) -> float:
    """``O_rep = O_ckp + rt * gamma * (r - 1)`` (eq. 4)."""
    return (checkpoint_overhead(runtime, interval, overhead)
            + runtime * communication * (degree - 1))


def replica_counts(processes: int, degree: float) -> list[int]:
    """How many replicas each of ``processes`` processes has under a
    redundancy degree ``r`` (1 <= r): with r = 1.5 half of them have two
    and half one (partial replication); the counts sum to round(r * n)."""
    if degree < 1:
        raise ValueError(f"redundancy degree must be >= 1, not {degree}")
    total = round(degree * processes)
    base, extra = divmod(total, processes)
    return [base + 1] * extra + [base] * (processes - extra)


def replicated_survival(time: float, unit_rate: float, replicas: Sequence[int]) -> float:
    """Probability that an application survives ``time``.

    The model of TOPPER's ref. [16]: an application fails only when every
    replica of some process has failed.  Replicas fail independently at
    ``unit_rate``; a process with ``m`` replicas is lost by ``t`` with
    probability ``(1 - exp(-lambda t))^m``, so the application survives
    with ``prod_i (1 - (1 - exp(-lambda t))^m_i)``.
    """
    dead = 1.0 - math.exp(-unit_rate * time)
    # One factor per replica count (a job has one or two), multiplied in
    # process order: the same product as term by term, at C speed.
    factors = {m: 1.0 - dead ** m for m in set(replicas)}
    return math.prod(map(factors.__getitem__, replicas), start=1.0)


def replicated_failure_rate(time: float, unit_rate: float, replicas: Sequence[int]) -> float:
    """The constant rate with the same survival over ``time``:
    ``-ln S(time) / time``; it is what Daly's interval (eq. 2) takes as
    lambda_app for a replicated job of runtime ``time``.  Without
    replication (all m = 1) it is ``n * lambda``, the sum of the rates."""
    survival = replicated_survival(time, unit_rate, replicas)
    if survival <= 0:  # underflowed: the job outlives its units many times over
        return _outlived_failure_rate(time, unit_rate, replicas)
    return -math.log(survival) / time if time > 0 else unit_rate * sum(
        1 for m in replicas if m == 1)


def _outlived_failure_rate(time: float, unit_rate: float, replicas: Sequence[int]) -> float:
    """:func:`replicated_failure_rate` where the survival underflows to 0
    (it made the rate infinite, Daly's interval 0, and the checkpoint
    overhead a division by zero).  A process with ``m`` replicas survives
    with ``e * sum_{k<m} (1 - e)^k`` (``e = exp(-lambda t)``), whose
    logarithm ``-lambda t + ln(sum)`` holds no underflow: each process adds
    ``lambda - ln(sum) / t``."""
    dead = 1.0 - math.exp(-unit_rate * time)
    lost = {m: math.log(sum(dead ** k for k in range(m))) / time for m in set(replicas)}
    return sum(unit_rate - lost[m] for m in replicas)


#: Resilience methods: none (a failed job restarts from its beginning),
#: checkpoint/restart, replication (which also checkpoints, eq. 4).
METHODS = ("none", "checkpoint", "replication")
#: What a failed job does: keep its units and roll back in place, or
#: release them and go back to the queue.
ON_FAILURE = ("keep", "requeue")
#: The settings only some methods read, the methods that read them, and
#: why the others do not: under another method a setting changed from its
#: default would be dropped without a word (``cpn run`` refuses its flags alike).
_READ_ONLY_BY = {
    **dict.fromkeys(("redundancy", "communication"),
                    (("replication",), 'only method="replication" runs replicas')),
    **dict.fromkeys(("checkpoint_small", "checkpoint_large", "large_job_nodes",
                     "checkpoint_scale", "checkpoint_interval"),
                    (("checkpoint", "replication"), "it takes no checkpoints")),
}
#: A Blue Gene/Q rack: TOPPER's compute unit on Mira.
RACK_NODES = 1024


def default_unit_nodes(machine_nodes: int) -> int:
    """A machine's compute unit when none is chosen: the rack on a machine
    made of racks (Mira), else the node.  Units are also the grain of
    allocation, so a larger unit that merely divides the machine (128 of
    a 128-node cluster) would round every job up to it."""
    return RACK_NODES if machine_nodes % RACK_NODES == 0 else 1



def system_mttf_hours(unit_mttf_days: float, units: int) -> float:
    """The machine's MTTF when each of its ``units`` fails every
    ``unit_mttf_days``; to 12 digits, so that Mira's 92.9 days over 48
    racks is the 46.45 h of :class:`studies.experiment.Experiment`'s default."""
    return float(f"{unit_mttf_days * 24 / units:.12g}")

@dataclass(frozen=True)
class FaultTolerance:
    """TOPPER's resilience settings (section 5 defaults).

    ``unit_nodes``: nodes per compute unit, the granularity of failures and
    of allocation (a 1,024-node rack on a Blue Gene/Q; 1 for a node).
    ``unit_mttf``: a unit's mean time to failure; the default, 92.9 days per
    rack, is Mira's: 1,032 clustered fatal RAS events located on its 48
    compute racks over 1,996 days of 2013-2018 (``failure_logs.py``).
    ``method``: "checkpoint", "replication" (which also checkpoints, eq. 4)
    or "none" (no checkpoints: a failure loses all the work since the job
    started).  ``checkpoint_small`` /
    ``checkpoint_large``: O_c for jobs under / from ``large_job_nodes``
    nodes (600 s and 1,200 s; 16 racks); ``checkpoint_scale`` scales both
    (Fig. 12).  ``recovery``: restart cost after a failure (780 s).
    ``redundancy`` r and ``communication`` gamma for replication.

    ``checkpoint_interval``: seconds of compute between checkpoints, for
    every job; None (the default) plans each job's with Daly's interval
    (eq. 2), the optimum the paper uses.  Operators' policies checkpoint
    at a fixed period instead, whose cost a run then shows against Daly's.

    A setting the method does not read, changed from its default, is
    refused: ``redundancy`` and ``communication`` but with replication, the
    checkpoint costs and interval with method "none".

    ``on_failure`` says what a failed job does.  ``"keep"`` (the default,
    TOPPER's *Failed Jobs* place): it keeps its units, rolls back to its
    last checkpoint, pays the recovery and goes on at once.  ``"requeue"``
    (what a batch system does when it requeues a job): it releases its
    nodes, units and power, goes back to the queue at its original submit
    order, and when it starts again resumes from its last checkpoint after
    paying the recovery.
    """

    unit_nodes: int = RACK_NODES
    unit_mttf: float = 92.9 * 86400
    method: str = "checkpoint"
    checkpoint_small: float = 600.0
    checkpoint_large: float = 1200.0
    large_job_nodes: int = 16 * 1024
    checkpoint_scale: float = 1.0
    recovery: float = 780.0
    redundancy: float = 2.0
    communication: float = 0.3
    on_failure: str = "keep"
    checkpoint_interval: float | None = None

    def __post_init__(self):
        if self.method not in METHODS:
            raise ValueError(f"method must be one of {METHODS}, not {self.method!r}")
        if self.on_failure not in ON_FAILURE:
            raise ValueError(f"on_failure must be one of {ON_FAILURE}, not {self.on_failure!r}")
        for name in ("unit_nodes", "large_job_nodes"):  # else a str failed in a comparison
            if not (is_whole_number(getattr(self, name)) and getattr(self, name) >= 0):
                raise ValueError(f"{name} must be a whole number of nodes, "
                                 f"not {getattr(self, name)!r}")
        for name in ("unit_mttf", "redundancy", "communication", *_FINITE):
            if not is_number(getattr(self, name)):
                raise ValueError(f"{name} must be a number, not {getattr(self, name)!r}")
        if self.unit_nodes < 1 or not self.unit_mttf > 0:
            raise ValueError(f"unit_nodes must be >= 1 and unit_mttf positive, not "
                             f"{self.unit_nodes} and {self.unit_mttf}")
        if not 1 <= self.redundancy < math.inf:
            raise ValueError(f"the redundancy degree r must be >= 1 and finite, "
                             f"not {self.redundancy}")
        if not 0 <= self.communication <= 1:  # a share of the run (eq. 4)
            raise ValueError(f"the communication share gamma must be within [0, 1], not "
                             f"{self.communication}")
        for name in _FINITE:  # an infinite recovery never ended the run
            if not 0 <= getattr(self, name) < math.inf:
                raise ValueError(f"{name} must be >= 0 and finite, not {getattr(self, name)}")
        if self.checkpoint_interval is not None:
            if not (is_number(self.checkpoint_interval)
                    and 0 < self.checkpoint_interval < math.inf):
                raise ValueError(f"checkpoint_interval must be positive and finite (seconds), "
                                 f"not {self.checkpoint_interval}")
        self._refuse_unread_settings()

    def _refuse_unread_settings(self) -> None:
        """A setting changed from its default that the method never reads
        (``redundancy=3`` with checkpoints alone) is refused, naming both:
        the run would not be the one asked for."""
        defaults = {setting.name: setting.default for setting in fields(self)}
        for name, (methods, why) in _READ_ONLY_BY.items():
            value = getattr(self, name)
            if self.method not in methods and value != defaults[name]:
                raise ValueError(f'{name}={value!r} means nothing with method="{self.method}": '
                                 f"{why}")

    @property
    def checkpoints(self) -> bool:
        return self.method != "none"

    @property
    def degree(self) -> float:
        return self.redundancy if self.method == "replication" else 1.0

    def interval(self, overhead: float, failure_rate: float) -> float:
        """Compute seconds between a job's checkpoints of cost ``overhead``
        when it fails at ``failure_rate``: none without checkpoints (an
        infinite interval), else the fixed one, else Daly's (eq. 2)."""
        if not self.checkpoints:
            return math.inf
        if self.checkpoint_interval is not None:
            return self.checkpoint_interval
        return daly_interval(overhead, failure_rate)

    def units_for(self, nodes: int) -> int:
        """Units a job of ``nodes`` nodes needs before replication."""
        return max(1, -(-nodes // self.unit_nodes))

    def checkpoint_cost(self, nodes: int) -> float:
        """O_c for a job of ``nodes`` nodes (before replication)."""
        large = nodes >= self.large_job_nodes
        return (self.checkpoint_large if large else self.checkpoint_small) * self.checkpoint_scale
