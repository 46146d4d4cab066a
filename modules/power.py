"""System power: running jobs at their power, idle nodes at a fraction.

PuPPET (section 5) sets the idle node power to 30 % of its power at full
speed.  A running job's power depends on its processors' frequency rate
``pf`` (section 2.2): chip cores draw ``core_share`` (65 %) of it, and that
part scales as ``pf ** alpha``; the rest does not scale.  The *Power* place
holds the current system power; it changes by :meth:`PowerModel.busy_delta`
when a job starts and back when it ends, so its time-integral is the system
energy.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from .job import Job

#: *Power* is a running sum (each start, end and change of level adds its
#: difference), so a system that should draw exactly the cap can come out a
#: rounding error above it (300.00000000000006 W): a cap is compared with
#: this relative slack, far below any watt a meter reads.
CAP_ROUNDING = 1e-9


def cap_limit(cap_watts: float) -> float:
    """The most watts that count as under ``cap_watts``: the cap with the
    running sum's rounding slack.  Hot checks compute it once and compare
    to it, so the slack is written here alone."""
    return cap_watts * (1 + CAP_ROUNDING)


def under_cap(watts: float, cap_watts: float) -> bool:
    """``watts`` is at or under ``cap_watts``, up to the running sum's rounding."""
    return watts <= cap_limit(cap_watts)


@dataclass(frozen=True)
class PowerModel:
    """``node_watts``: a node's power at full speed; ``idle_fraction``: an
    idle node's share of it (PuPPET default 0.3); ``core_share`` and
    ``alpha``: the frequency-dependent share of a job's power and its
    exponent (P ~ f^alpha, PuPPET eq. 2; defaults 0.65 and 2)."""

    node_watts: float
    idle_fraction: float = 0.3
    core_share: float = 0.65
    alpha: float = 2.0

    def __post_init__(self):
        if self.node_watts < 0:
            raise ValueError(f"node power must be >= 0 W, not {self.node_watts}")
        if not 0 <= self.idle_fraction <= 1:
            raise ValueError(f"idle fraction must be within [0, 1], not {self.idle_fraction}")
        if not 0 <= self.core_share <= 1:
            raise ValueError(f"core share must be within [0, 1], not {self.core_share}")
        if not 0 < self.alpha < math.inf:  # nan: every job was "over the cap alone"
            raise ValueError(f"alpha must be positive and finite, not {self.alpha}")

    @property
    def idle_node_watts(self) -> float:
        return self.node_watts * self.idle_fraction

    def idle_system(self, nodes: int) -> float:
        """Power of a machine with every node idle."""
        return float(nodes * self.idle_node_watts)

    def scale(self, frequency: float) -> float:
        """A job's power at relative ``frequency`` over its nominal power."""
        return 1.0 - self.core_share + self.core_share * frequency ** self.alpha

    def job_watts(self, job: Job) -> float:
        """``job``'s power at its frequency rate ``pf``."""
        return job.jp if job.pf == 1.0 else job.jp * self.scale(job.pf)

    def busy_delta(self, job: Job) -> float:
        """Change in system power when ``job`` starts on idle nodes."""
        return self.busy_delta_at(job, job.pf)

    def busy_delta_at(self, job: Job, frequency: float) -> float:
        """:meth:`busy_delta` of ``job`` run at ``frequency`` (without making
        that job: admission asks it of every queued job)."""
        watts = job.jp if frequency == 1.0 else job.jp * self.scale(frequency)
        return float(watts - job.js * self.idle_node_watts)
