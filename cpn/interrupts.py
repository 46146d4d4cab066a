"""Ctrl-C as a request to stop a run between two firings.

A ``KeyboardInterrupt`` raised wherever Python happens to be may cut a
firing in half (its tokens taken, none put back), so the marking says
nothing true any more, and a run that is stopped that way can only be
thrown away.  Meanwhile SIGINT only records the request, which a run reads
between firings (``Simulator.run(stop_when=...)``) and stops with all it
fired.
"""

from __future__ import annotations

import signal
import threading
from contextlib import contextmanager
from typing import Callable, Iterator


@contextmanager
def ctrl_c_requests(second_interrupts: bool = False) -> Iterator[Callable[[], bool]]:
    """Ctrl-C as a request to stop, read by the function this yields.

    It takes SIGINT over only in the main thread and from Python's default
    handler: a process that ignores Ctrl-C (a sweep's worker) keeps
    ignoring it, and a caller that already turned it into a request keeps
    its own.  With ``second_interrupts`` a second Ctrl-C interrupts as
    usual, for a firing that never ends."""
    pressed: list[int] = []

    def request(signum, frame) -> None:
        if second_interrupts and pressed:
            raise KeyboardInterrupt
        pressed.append(signum)

    previous = None
    if (threading.current_thread() is threading.main_thread()
            and signal.getsignal(signal.SIGINT) is signal.default_int_handler):
        previous = signal.signal(signal.SIGINT, request)
    try:
        yield lambda: bool(pressed)
    finally:
        if previous is not None:
            signal.signal(signal.SIGINT, previous)
