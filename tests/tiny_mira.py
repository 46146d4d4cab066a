"""A hand-written Mira in miniature for the Cobalt log and Mira model
tests: Cobalt records, and a partition file of two racks."""

from __future__ import annotations

from pathlib import Path

#: 2018-01-19 00:00 UTC, a day start: a tiny log's window opens then.
OPENS = 1_516_320_000
#: The real data, when present (tests that use it skip otherwise).
MIRA = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "mira"
FAILURES = MIRA.parent / "failures"


def record(kind: str, job: int, qtime: float, nodes: int, walltime: str, start: float,
           end: float, queue: str = "prod-short", block: str = "MIR-00000-33331-512") -> str:
    """One Cobalt accounting record (``kind`` ``S`` or ``E``)."""
    fields = (f"queue=default qtime={qtime:.1f} Resource_List.nodect={nodes} "
              f"Resource_List.walltime={walltime} start={start:.1f} exec_host={block}")
    if kind == "E":
        fields += f" end={end:.1f} runtime={end - start:.1f} hold=0 overhead=0"
    return f"01/19/2018 00:00:00;{kind};{job};{fields} queue_name={queue}"


def partition(name: str, boards: list[str], switches: list[str] = ()) -> str:
    parts = [f"<NodeCard id='{board}' />" for board in boards]
    parts += [f"<Switch id='{switch}' />" for switch in switches]
    return f"<Partition name='{name}'>{''.join(parts)}</Partition>"


def midplane(rack: str, half: int) -> list[str]:
    """The 16 node boards of midplane ``R<rack>-M<half>``."""
    return [f"R{rack}-M{half}-N{board:02d}" for board in range(16)]


#: Rack R00 as two 512-node blocks and one 1,024-node block over both,
#: and rack R01's first midplane, whose block lists R00-M0's switches.
TWO_RACKS = ("<BG><BGType>bgq</BGType><PartitionList>"
             + partition("MIR-00000-33331-512", midplane("00", 0), ["A_R00-M0"])
             + partition("MIR-00040-33371-512", midplane("00", 1), ["A_R00-M1"])
             + partition("MIR-00000-33371-1024", midplane("00", 0) + midplane("00", 1))
             + partition("MIR-00400-33731-512", midplane("01", 0), ["A_R00-M0", "A_R01-M0"])
             + "</PartitionList></BG>")
