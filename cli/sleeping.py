"""Turning command-line options into sleeping nodes (the EnergySaving
cluster policy): idle nodes are switched off and booted again for waiting
jobs, on PuPPET or TOPPER alike (``nets.energy_saving``)."""

from __future__ import annotations

import argparse

from modules.energy_saving import EnergySavingPolicy
from modules.node_power import POWER_ON_ORDERS


def add_sleeping_arguments(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group(
        "sleeping nodes", "switch idle nodes off and boot them for waiting jobs (the "
                          "paper's node states: standby 2 W, boot 555 s, shutdown 480 s, "
                          "scaled to this machine's idle and full power)")
    group.add_argument("--sleep-after", type=float, metavar="SECONDS",
                       help="switch a node off after this long idle (default: never)")
    group.add_argument("--power-on-order", choices=POWER_ON_ORDERS, default="name",
                       help="which sleeping nodes boot first: by name (the paper) or "
                            "fewest shutdowns first (wear)")


def sleeping_nodes(args):
    """The SleepingNodes the options ask for, or None when nodes never sleep."""
    if args.sleep_after is None:
        return None
    from nets.energy_saving import SleepingNodes

    policy = EnergySavingPolicy(idle_threshold_s=args.sleep_after,
                                power_on_order=args.power_on_order)
    # One state interval per node and change is too much to keep for a
    # machine-sized run: the per-node totals and decisions remain.
    return SleepingNodes(policy, timeline=False)
