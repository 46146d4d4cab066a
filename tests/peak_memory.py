"""The memory a call needs at its peak, for the tests that bound it per job."""

from __future__ import annotations

import tracemalloc
from typing import Callable, TypeVar

T = TypeVar("T")


def traced_peak(call: Callable[[], T]) -> tuple[T, int]:
    """``call()``'s result and the most bytes it held at once (Python's
    allocations, as ``tracemalloc`` traces them)."""
    tracemalloc.start()
    try:
        result = call()
        return result, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
