"""Blue Gene/Q blocks: the fixed partitions a job of Mira runs on.

Mira did not hand out free nodes: Cobalt started each job on one whole
*block* (partition) from its partition definition (``mira.xml``, 294 blocks
of 512 to 49,152 nodes).  A block lists its node boards (``NodeCard``, 32
nodes each, named ``R0B-M0-N05``: rack, midplane, board) and the midplane
switches its torus wiring goes through (``Switch``, ``A_R0B-M0``: the
dimension-A switch of midplane R0B-M0), including the switches of
midplanes a larger block only passes through.

Two blocks conflict when they share a node board, which is how Cobalt's
BG/Q system component relates blocks (``does_block_overlap``); only one of
two conflicting blocks can be booted at a time.  Cobalt adds the wiring
conflicts the control system reports from its cable data
(``_wiring_conflicts``), which the partition file does not carry.  Its
switch lists cannot stand in for them: on Mira's own logs, blocks that
share listed switches (a midplane's own and one passed through) ran side
by side hundreds of times a week (861 pairs in ``wk1.log``, 505 in
``wk2.log``, two of them even sharing switches both pass through), so a
shared switch is no conflict here.  A job asks for a number of nodes and gets a block of the smallest
size that holds it (Cobalt's ``possible_locations``).

Blocks are numbered in file order; a set of blocks is a Python ``int``
used as a bit set, so "is block ``b`` free of every busy block" is one
``&`` of two integers (:attr:`BlockMachine.conflicts`).
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ElementTree
from dataclasses import dataclass, field
from pathlib import Path

__all__ = ["Block", "BlockMachine", "BlockFileError", "read_blocks", "block_size_of_name"]

_SIZE_SUFFIX = re.compile(r"-(\d+)$")
#: Nodes on one node board of a BG/Q midplane.
NODES_PER_BOARD = 32


class BlockFileError(ValueError):
    """A partition file that does not describe blocks as Cobalt writes them."""


@dataclass(frozen=True)
class Block:
    """One block: its name, its node boards and its switches."""

    name: str
    node_boards: frozenset[str]
    switches: frozenset[str]

    @property
    def size(self) -> int:
        """Nodes in the block."""
        return NODES_PER_BOARD * len(self.node_boards)

    @property
    def midplanes(self) -> frozenset[str]:
        """The midplanes whose nodes it uses (``R0B-M0``)."""
        return frozenset(board.rsplit("-", 1)[0] for board in self.node_boards)


@dataclass(frozen=True, eq=False)
class BlockMachine:
    """All blocks of a machine and which of them conflict.

    ``conflicts[i]`` is the bit set of the blocks that share hardware with
    block ``i``, block ``i`` included (a busy block conflicts with itself).
    ``sizes`` are the block sizes, ascending.
    """

    blocks: tuple[Block, ...]
    conflicts: tuple[int, ...] = field(repr=False)
    index: dict[str, int] = field(repr=False)
    sizes: tuple[int, ...]
    by_size: dict[int, tuple[int, ...]] = field(repr=False)
    path: Path | None = None

    @classmethod
    def of(cls, blocks: list[Block], path: Path | None = None) -> "BlockMachine":
        """The machine of ``blocks``, with the conflict relation computed
        once (a shared node board)."""
        owners: dict[str, int] = {}  # node board -> bit set of the blocks using it
        for number, block in enumerate(blocks):
            for board in block.node_boards:
                owners[board] = owners.get(board, 0) | (1 << number)
        conflicts = []
        for block in blocks:
            mask = 0
            for part in block.node_boards:
                mask |= owners[part]
            conflicts.append(mask)
        sizes = tuple(sorted({block.size for block in blocks}))
        by_size = {size: tuple(number for number, block in enumerate(blocks)
                               if block.size == size) for size in sizes}
        return cls(tuple(blocks), tuple(conflicts),
                   {block.name: number for number, block in enumerate(blocks)},
                   sizes, by_size, path)

    @property
    def nodes(self) -> int:
        """Nodes of the machine: those of all its node boards."""
        boards = set().union(*(block.node_boards for block in self.blocks))
        return NODES_PER_BOARD * len(boards)

    def size_for(self, nodes: int) -> int:
        """The smallest block size that holds ``nodes``."""
        for size in self.sizes:
            if size >= nodes:
                return size
        raise ValueError(f"no block holds {nodes:,} nodes (the largest has {self.sizes[-1]:,})")

    def number(self, name: str) -> int:
        """The number of the block called ``name``."""
        try:
            return self.index[name]
        except KeyError:
            raise KeyError(f"no block named {name!r} in "
                           f"{self.path or 'the partition definition'}") from None

    def conflict(self, first: str, second: str) -> bool:
        """Whether the blocks called ``first`` and ``second`` share hardware."""
        return bool(self.conflicts[self.number(first)] >> self.number(second) & 1)

    def blocked_by(self, busy: frozenset[int] | set[int]) -> int:
        """The bit set of blocks that cannot boot while ``busy`` (block
        numbers) are booted."""
        mask = 0
        for number in busy:
            mask |= self.conflicts[number]
        return mask

    def containing(self, location: str) -> int:
        """The bit set of blocks that use the hardware at ``location``: a
        rack (``R0B``), a midplane (``R0B-M0``) or anything on a node board
        (``R0B-M0-N05``, ``R0B-M0-N05-J12``)."""
        parts = location.split("-")
        mask = 0
        for number, block in enumerate(self.blocks):
            if len(parts) >= 3:
                hit = "-".join(parts[:3]) in block.node_boards
            else:
                prefix = "-".join(parts) + "-"
                hit = any(board.startswith(prefix) for board in block.node_boards)
            if hit:
                mask |= 1 << number
        return mask


def block_size_of_name(name: str) -> int | None:
    """The size Cobalt writes at the end of a block's name
    (``MIR-48840-7BB71-512`` -> 512), or None."""
    match = _SIZE_SUFFIX.search(name)
    return int(match.group(1)) if match else None


def read_blocks(path: str | Path) -> BlockMachine:
    """The blocks of a Cobalt partition file (``<BG><PartitionList>
    <Partition name=...><NodeCard id=.../><Switch id=.../>``)."""
    path = Path(path)
    try:
        root = ElementTree.parse(path).getroot()
    except ElementTree.ParseError as error:
        raise BlockFileError(f"{path}: not a partition file: {error}") from None
    partitions = root.find("PartitionList")
    if partitions is None:
        raise BlockFileError(f"{path}: no <PartitionList> element")
    blocks = []
    for partition in partitions.iter("Partition"):
        name = partition.get("name")
        if not name:
            raise BlockFileError(f"{path}: a <Partition> without a name "
                                 f"(block {len(blocks) + 1})")
        boards = frozenset(child.get("id") for child in partition.iter("NodeCard"))
        if not boards:
            raise BlockFileError(f"{path}: block {name} lists no node board")
        block = Block(name, boards,
                      frozenset(child.get("id") for child in partition.iter("Switch")))
        named = block_size_of_name(name)
        if named is not None and named != block.size:
            raise BlockFileError(f"{path}: block {name} is named for {named} nodes but "
                                 f"lists {len(boards)} node boards ({block.size} nodes)")
        blocks.append(block)
    if not blocks:
        raise BlockFileError(f"{path}: no <Partition> in the partition list")
    return BlockMachine.of(blocks, path)
