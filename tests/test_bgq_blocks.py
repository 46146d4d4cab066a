"""BG/Q blocks (``modules.bgq_blocks``): the partition file, the conflict
relation (a shared node board), and Mira's own placements replayed without
a conflict (when ../shared/data is present)."""

from __future__ import annotations

import pytest

from modules.bgq_blocks import BlockFileError, read_blocks
from modules.cobalt_log import read_cobalt_log

try:  # tests/ on sys.path (pytest's default rootdir-less import mode)
    from tiny_mira import MIRA, TWO_RACKS, midplane, partition
except ImportError:  # pragma: no cover - run from another root
    from tests.tiny_mira import MIRA, TWO_RACKS, midplane, partition


@pytest.fixture
def tiny(tmp_path):
    path = tmp_path / "tiny.xml"
    path.write_text(TWO_RACKS)
    return read_blocks(path)


def test_blocks_sizes_and_conflicts(tiny):
    assert [block.size for block in tiny.blocks] == [512, 512, 1024, 512]
    assert tiny.sizes == (512, 1024) and tiny.nodes == 1536
    assert tiny.conflict("MIR-00000-33331-512", "MIR-00000-33371-1024")
    assert tiny.conflict("MIR-00040-33371-512", "MIR-00000-33371-1024")
    assert not tiny.conflict("MIR-00000-33331-512", "MIR-00040-33371-512")
    # a shared switch is no conflict: Mira ran such blocks side by side
    assert not tiny.conflict("MIR-00000-33331-512", "MIR-00400-33731-512")
    assert tiny.size_for(600) == 1024 and tiny.size_for(512) == 512
    assert tiny.blocked_by({0}) == 0b101


def test_hardware_locations_name_the_blocks_that_contain_them(tiny):
    assert tiny.containing("R00-M1-N03-J07") == 0b110
    assert tiny.containing("R00-M0") == 0b101
    assert tiny.containing("R00") == 0b111
    assert tiny.containing("R02-M0") == 0


def test_a_block_whose_name_and_boards_disagree_is_refused(tmp_path):
    path = tmp_path / "bad.xml"
    path.write_text("<BG><PartitionList>" + partition("MIR-00000-33371-1024", midplane("00", 0))
                    + "</PartitionList></BG>")
    with pytest.raises(BlockFileError, match="bad.xml: block MIR-00000-33371-1024 is named "
                                             "for 1024 nodes but lists 16 node boards"):
        read_blocks(path)
    path.write_text("<BG><Nothing/></BG>")
    with pytest.raises(BlockFileError, match="bad.xml: no <PartitionList> element"):
        read_blocks(path)


def conflicts_in_log(machine, workload) -> list[tuple[int, int, float]]:
    """Pairs of jobs the log ran at once on conflicting blocks, and for how
    many seconds."""
    events = []
    log = workload.log.set_index("job_id")
    for job_id, block in workload.blocks.items():
        if block in machine.index:
            start = log.loc[job_id, "submit"] + log.loc[job_id, "wait"]
            events += [(start + log.loc[job_id, "runtime"], 0, job_id, machine.index[block]),
                       (start, 1, job_id, machine.index[block])]
    ends = {job_id: time for time, starting, job_id, _ in events if not starting}
    running: dict[int, int] = {}
    found = []
    for time, starting, job_id, block in sorted(events):
        if not starting:
            del running[job_id]
            continue
        found += [(other, job_id, ends[other] - time) for other, busy in running.items()
                  if machine.conflicts[block] >> busy & 1]
        running[job_id] = block
    return found


@pytest.mark.skipif(not (MIRA / "mira.xml").exists(), reason="../shared/data absent")
def test_mira_ran_no_two_jobs_on_conflicting_blocks():
    machine = read_blocks(MIRA / "mira.xml")
    assert len(machine.blocks) == 294 and machine.sizes[0] == 512 and machine.nodes == 49_152
    assert conflicts_in_log(machine, read_cobalt_log(MIRA / "wk1.log")) == []
    # one 13 s overlap: the end record of job 1444837 is written after its
    # block was freed (its successor booted on a block containing it)
    assert conflicts_in_log(machine, read_cobalt_log(MIRA / "wk2.log")) == [
        (1444837, 1445600, 13.0)]
