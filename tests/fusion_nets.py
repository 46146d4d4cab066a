"""A small hierarchical net with a fusion set, for the tests of every
front end that must find a fused place by each of its names."""

from __future__ import annotations

from cpn import Net


def logging_workers(queues: dict[str, list[int]]) -> Net:
    """One worker instance (W1, W2, ...) per queue place of the top net
    (its name -> its jobs), each taking from its own Jobs port and writing
    to its Log, in fusion set 'log' with the top net's AllLog."""
    worker = Net("worker")
    worker.place("Jobs", int, port="in")
    worker.place("Log", int, fusion="log")
    worker.transition("Work", inputs={"Jobs": "j"}, outputs={"Log": "j"})
    net = Net("top")
    net.place("AllLog", int, fusion="log")
    for number, (queue, jobs) in enumerate(queues.items(), 1):
        net.place(queue, int, initial=jobs)
        net.substitution(f"W{number}", worker, {"Jobs": queue})
    return net
