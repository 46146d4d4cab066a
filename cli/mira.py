"""Command-line options of the Mira model (Cobalt logs): which of its parts
run, shared by ``cpn run`` and ``cpn validate``."""

from __future__ import annotations

import argparse

from .values import existing_file

from .values import given

#: ``modules.cobalt_policy.BACKFILL_RULES`` (not imported: the parser must
#: not load the model).
BACKFILL_RULES = ("no-drain", "cobalt", "last")


def add_mira_arguments(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group(
        "Mira model (Cobalt logs)",
        "parts of Mira's model for a Cobalt log; without any, jobs are counted in nodes "
        "under WFP-EASY (the window's initial state is the log's either way)")
    group.add_argument("--blocks", type=existing_file, metavar="XML",
                       help="Cobalt's partition file (mira.xml): every job runs on a whole "
                            "block of at least its size")
    group.add_argument("--no-drain", action="store_true",
                       help="with --blocks: start jobs first fit in utility order instead of "
                            "Cobalt's drain-and-backfill-window rule")
    group.add_argument("--maintenance", type=existing_file, metavar="FILE",
                       help="machine-wide maintenance windows (start,end a line, UTC): no "
                            "job starts that would run into one")
    group.add_argument("--failures", type=existing_file, metavar="COR",
                       help="with --blocks: Mira's fatal RAS events (.cor); each takes the "
                            "blocks containing its hardware out until repaired")
    group.add_argument("--backfill-queue", choices=BACKFILL_RULES, default="cobalt",
                       help="with --blocks: the backfill queue's jobs drain blocks as every "
                            "job does (cobalt, default: Cobalt's source), never drain "
                            "(no-drain), or come after every other job (last)")
    group.add_argument("--scheduled-from", type=existing_file, action="append", default=[],
                       metavar="LOG",
                       help="with --blocks: jobs run only on the blocks the jobs of these "
                            "Cobalt logs ran on (reservations aside): Cobalt's scheduled "
                            "blocks, a site setting (repeat for several logs)")


def mira_parts(args) -> dict:
    """The parts the options ask for, read from their files:
    ``{"blocks": BlockMachine | None, "drain": bool, "maintenance": Calendar,
    "failures": tuple[Failure, ...], "backfill": str, "scheduled": frozenset[str]}``."""
    from modules.bgq_blocks import read_blocks
    from modules.maintenance import Calendar, read_maintenance
    from modules.cobalt_log import read_cobalt_log
    from modules.mira_failures import read_ras_failures
    from nets.mira import scheduled_blocks

    for flag, value in (("--no-drain", args.no_drain), ("--failures", args.failures),
                        ("--backfill-queue", args.backfill_queue != "cobalt"),
                        ("--scheduled-from", args.scheduled_from)):
        if value and args.blocks is None:
            raise ValueError(f"{flag} needs --blocks: it works on blocks")
    return {"blocks": read_blocks(args.blocks) if args.blocks else None,
            "drain": not args.no_drain,
            "maintenance": read_maintenance(args.maintenance) if args.maintenance
            else Calendar(),
            "failures": tuple(read_ras_failures(args.failures)[0]) if args.failures else (),
            "backfill": args.backfill_queue,
            "scheduled": scheduled_blocks([read_cobalt_log(path)
                                           for path in args.scheduled_from])}


def mira_config(args, puppet):
    """The MiraConfig the options describe, on the machine of ``puppet``,
    which must be that of the blocks."""
    from nets.mira import MiraConfig

    parts = mira_parts(args)
    blocks = parts["blocks"]
    if blocks is not None and blocks.nodes != puppet.machine_nodes:
        machine = (f"--machine-nodes {args.machine_nodes}" if args.machine_nodes else
                   "Mira's, the default without --machine-nodes")
        raise ValueError(f"--blocks {args.blocks} is a machine of {blocks.nodes:,} nodes, not "
                         f"{puppet.machine_nodes:,} ({machine}): give --machine-nodes "
                         f"{blocks.nodes}")
    return MiraConfig(**parts, puppet=puppet)


def refuse_mira_options_without_cobalt(args, workload) -> None:
    """The Mira options mean nothing for an SWF trace: say so rather than
    ignore them."""
    given = [flag for flag, value in (("--blocks", args.blocks), ("--no-drain", args.no_drain),
                                      ("--maintenance", args.maintenance),
                                      ("--failures", args.failures),
                                      ("--backfill-queue", args.backfill_queue != "cobalt"),
                                      ("--scheduled-from", args.scheduled_from))
             if value]
    if given and not is_cobalt(workload):
        raise ValueError(f"{' and '.join(given)} model Mira and need a Cobalt log; "
                         f"{workload.path} is read as SWF")


#: The options a run on a Cobalt log does not read (argparse name -> the
#: flag and why): the SWF reader's, and EASY's switch, which Cobalt's
#: scheduler does not have.
UNREAD_ON_COBALT = {
    "procs_per_node": ("--procs-per-node", "its sizes are nodes"),
    "size_unit": ("--unit", "its sizes are nodes"),
    "allocation_unit": ("--allocation-unit", "its sizes are as logged, whole blocks with "
                                             "--blocks"),
    "unknown_walltime": ("--unknown-walltime", "every job's walltime is logged"),
    "oversized": ("--oversized", "a job larger than the machine is rejected"),
    "no_backfill": ("--no-backfill", "Cobalt's scheduler backfills by its own rule"),
}


def refuse_swf_options_on_cobalt(args) -> None:
    """The options only an SWF trace (or EASY) reads mean nothing for a
    Cobalt log: say so rather than ignore them (the reverse of
    :func:`refuse_mira_options_without_cobalt`)."""
    switched = {"no_backfill"} if args.no_backfill else set()  # a switch: given when on
    for name, (flag, why) in UNREAD_ON_COBALT.items():
        if given(args, name) or name in switched:
            raise ValueError(f"{flag} does not apply to {args.trace}, read as a Cobalt log: "
                             f"{why}")


def is_cobalt(workload) -> bool:
    from modules.cobalt_log import CobaltWorkload

    return isinstance(workload, CobaltWorkload)


def replayed_ids(workload) -> frozenset[int]:
    """The jobs a Cobalt log replays at their logged start, for their
    logged time (none for any other trace)."""
    return workload.replayed if is_cobalt(workload) else frozenset()


def note_replayed_overruns(console, workload) -> None:
    """Say how many replayed jobs ran past their request as logged: neither
    ``--overrun`` nor the model changes a replayed run."""
    from modules.words import counted

    replayed = replayed_ids(workload)
    over = sum(job.rt > job.wt for job in workload.jobs if job.id in replayed)
    if over:
        console.print(f"{counted(over, 'replayed job')} (running as the window opens, or of "
                      "a reservation) ran past the requested time as logged: replayed as "
                      "logged, whatever --overrun says")


def note_undefined_blocks(console, args, workload, config) -> None:
    """Say which replayed jobs ran on blocks the partition file lacks (they
    stand on a defined block: ``nets.mira.logged_block``)."""
    from nets.mira import unknown_blocks

    if config.blocks is None:
        return
    unknown = unknown_blocks(workload, config.blocks)
    if unknown:
        console.print(f"{len(unknown):,} replayed jobs ran on blocks {args.blocks} does not "
                      f"define ({', '.join(sorted(set(unknown.values())))}): each stands on "
                      "a defined block of its size and first corner")
