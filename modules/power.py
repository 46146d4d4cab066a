"""System power: running jobs at their power, idle nodes at a fraction.

PuPPET (section 5) sets the idle node power to 30 % of its power at full
speed.  The *Power* place holds the current system power; it changes by
:meth:`PowerModel.busy_delta` when a job starts and back when it ends, so
its time-integral is the system energy.
"""

from __future__ import annotations

from dataclasses import dataclass

from .job import Job


@dataclass(frozen=True)
class PowerModel:
    """``node_watts``: a node's power at full speed; ``idle_fraction``: an
    idle node's share of it (PuPPET default 0.3)."""

    node_watts: float
    idle_fraction: float = 0.3

    def __post_init__(self):
        if self.node_watts < 0:
            raise ValueError(f"node power must be >= 0 W, not {self.node_watts}")
        if not 0 <= self.idle_fraction <= 1:
            raise ValueError(f"idle fraction must be within [0, 1], not {self.idle_fraction}")

    @property
    def idle_node_watts(self) -> float:
        return self.node_watts * self.idle_fraction

    def idle_system(self, nodes: int) -> float:
        """Power of a machine with every node idle."""
        return nodes * self.idle_node_watts

    def busy_delta(self, job: Job) -> float:
        """Change in system power when ``job`` starts on idle nodes."""
        return job.jp - job.js * self.idle_node_watts
