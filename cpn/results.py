"""What the simulator hands back: an enabled binding, and how a run ended."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import Any, Mapping


class StopReason(str, Enum):
    TIME = "time"  # the next event lies after ``until_time``
    STEPS = "steps"  # ``max_steps`` firings done
    PREDICATE = "predicate"  # ``stop_when`` held
    BREAKPOINT = "breakpoint"  # a monitor asked to stop
    DEAD = "dead"  # nothing enabled now or ever (no future tokens)


@dataclass(frozen=True)
class RunResult:
    reason: StopReason
    time: float
    steps: int


@dataclass(frozen=True)
class Binding:
    """An enabled binding: a transition and the values of its variables."""

    transition: str
    values: Mapping[str, Any]
    index: int
    picks: tuple
    raw: tuple
    version: int

    def __str__(self) -> str:
        values = ", ".join(f"{k}={v!r}" for k, v in self.values.items())
        return f"{self.transition}<{values}>"
