"""Turning command-line options into sleeping nodes (the EnergySaving
cluster policy): idle nodes are switched off and booted again for waiting
jobs, on PuPPET or TOPPER alike (``nets.energy_saving``)."""

from __future__ import annotations

import argparse

from .choices import POWER_ON_ORDERS
from .values import non_negative_float


def add_sleeping_arguments(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group(
        "sleeping nodes", "switch idle nodes off and boot them for waiting jobs (the "
                          "paper's node states: standby 2 W, boot 555 s, shutdown 480 s, "
                          "scaled to this machine's idle and full power)")
    group.add_argument("--sleep-after", type=non_negative_float, metavar="SECONDS",
                       help="switch a node off after this many seconds idle (default: never)")
    group.add_argument("--power-on-order", choices=POWER_ON_ORDERS,
                       help="which sleeping nodes boot first: by name (the paper; default) "
                            "or fewest shutdowns first (wear)")


def check_sleeping_options(args) -> None:
    """Refuse a boot order for nodes that never sleep."""
    if args.sleep_after is None and args.power_on_order is not None:
        raise ValueError("--power-on-order needs --sleep-after: without it no node sleeps")


def sleeping_nodes(args):
    """The SleepingNodes the options ask for, or None when nodes never sleep."""
    if args.sleep_after is None:
        return None
    from modules.energy_saving.policy import EnergySavingPolicy
    from nets.energy_saving import SleepingNodes

    order = {} if args.power_on_order is None else {"power_on_order": args.power_on_order}
    policy = EnergySavingPolicy(idle_threshold_s=args.sleep_after, **order)
    # The command reports the machine's totals: naming each node a job
    # takes would cost more than the rest of a machine-sized run.
    return SleepingNodes(policy, timeline=False, per_node=False)
