"""Cobalt's scheduling (``modules.cobalt_policy``) on two racks in
miniature (``tiny_mira.TWO_RACKS``): block 0 and block 1 are the two
midplanes of rack R00, block 2 the 1,024-node block over both, block 3
rack R01's first midplane."""

from __future__ import annotations

import pytest

from modules.bgq_blocks import read_blocks
from cpn import Delayed
from modules.cobalt_policy import CobaltPolicy, Reservation
from modules.job import Job
from modules.maintenance import Calendar
from modules.mira_failures import Outage

try:  # tests/ on sys.path (pytest's default rootdir-less import mode)
    from tiny_mira import TWO_RACKS, midplane, partition
except ImportError:  # pragma: no cover - run from another root
    from tests.tiny_mira import TWO_RACKS, midplane, partition


@pytest.fixture(scope="module")
def machine(tmp_path_factory):
    path = tmp_path_factory.mktemp("blocks") / "two_racks.xml"
    path.write_text(TWO_RACKS)
    return read_blocks(path)


def test_a_job_gets_a_whole_block_of_at_least_its_size(machine):
    """... and its nodes it does not fill draw power as its own do."""
    policy = CobaltPolicy(machine=machine)
    job = Job(1, 0, 100, 600, 100, jp=600 * 50.0)
    started, waiting, placed = policy.schedule((job,), {}, {}, 1536, 10)
    assert started == [Job(1, 0, 100, 1024, 100, jp=1024 * 50.0)]
    assert waiting == () and placed == {1: 2}


def test_a_busy_block_blocks_every_block_sharing_its_boards(machine):
    """Job 9 runs on block 0: the 1,024-node job cannot start; the 512-node
    one takes block 1 (ties go to file order)."""
    policy = CobaltPolicy(machine=machine, drain=False)
    queue = (Job(1, 0, 100, 1024, 100), Job(2, 0, 100, 512, 100))
    started, waiting, placed = policy.schedule(queue, {9: (500.0, 512)}, {9: 0}, 1024, 10)
    assert [job.id for job in started] == [2] and placed == {9: 0, 2: 1}
    assert waiting == (queue[0],)


def test_drain_for_the_top_job_backfills_only_what_ends_before(machine):
    """Job 1 (1,024 nodes, top utility) needs block 2, blocked by job 8 on
    block 0 until t=1000; block 3 is busy until 5,000.  Cobalt drains block
    2 and its relatives until 1,000: job 2 (walltime 5,000, second by
    utility) must not take block 1, job 3 (walltime 500) may.  First fit
    would start job 2 on block 1 and push job 1 back past 5,000."""
    queue = (Job(1, -9000, 100, 1024, 1000), Job(2, -9000, 100, 512, 5000),
             Job(3, 0, 100, 512, 500))
    running = {8: (1000.0, 512), 9: (5000.0, 512)}
    drain = CobaltPolicy(machine=machine)
    started, waiting, _ = drain.schedule(queue, running, {8: 0, 9: 3}, 512, 100)
    assert [job.id for job in started] == [3] and [job.id for job in waiting] == [1, 2]
    first_fit = CobaltPolicy(machine=machine, drain=False)
    started, _, _ = first_fit.schedule(queue, running, {8: 0, 9: 3}, 512, 100)
    assert [job.id for job in started] == [2]


def test_backfill_queue_jobs_never_drain(machine):
    """Job 1 of the backfill queue cannot start and drains nothing, so job
    2 (walltime 5,000) takes block 1."""
    queue = (Job(1, -9000, 100, 1024, 1000), Job(2, -9000, 100, 512, 5000))
    policy = CobaltPolicy(machine=machine, queues={1: "backfill"}, backfill="no-drain")
    started, _, _ = policy.schedule(queue, {8: (1000.0, 512)}, {8: 0}, 1024, 100)
    assert [job.id for job in started] == [2]


def test_under_cobalts_rule_a_backfill_queue_job_drains_as_any_other(machine):
    """Cobalt's find_job_location drains for every job whatever its queue:
    job 1 (backfill queue) drains block 2 until t=1,000, so job 2
    (walltime 5,000) may not take block 1 but job 3 (walltime 500) may
    (block 3 is busy until 5,000).  Under ``"no-drain"`` job 2 takes it."""
    queue = (Job(1, -9000, 100, 1024, 1000), Job(2, -9000, 100, 512, 5000),
             Job(3, 0, 100, 512, 500))
    running, placed = {8: (1000.0, 512), 9: (5000.0, 512)}, {8: 0, 9: 3}
    for rule, first in (("cobalt", 3), ("no-drain", 2)):
        policy = CobaltPolicy(machine=machine, queues={1: "backfill"}, backfill=rule)
        started, _, _ = policy.schedule(queue, running, placed, 512, 100)
        assert [job.id for job in started] == [first]


def test_backfill_queue_last_puts_its_jobs_after_every_other(machine):
    """Job 1 (backfill queue) has the higher WFP utility; with only block 1
    free, job 2 of prod-short takes it when the backfill queue comes last."""
    queue = (Job(1, -9000, 100, 512, 1000), Job(2, 0, 100, 512, 1000))
    running = {8: (5000.0, 512), 9: (5000.0, 512)}
    for rule, first in (("cobalt", 1), ("last", 2)):
        policy = CobaltPolicy(machine=machine, queues={1: "backfill", 2: "prod-short"},
                              backfill=rule, drain=False)
        started, _, _ = policy.schedule(queue, running, {8: 0, 9: 3}, 512, 100)
        assert [job.id for job in started] == [first]


def test_an_unknown_backfill_rule_is_refused():
    with pytest.raises(ValueError, match="backfill rule 'never'"):
        CobaltPolicy(backfill="never")


def test_summed_utility_favours_the_job_that_waited_longer(machine):
    """Cobalt's queue manager adds a job's utility to its score at every
    pass, so the score grows as size x queued^4 / walltime^3.  Job 1 (queued
    2,000 s, walltime 2,000) has WFP 512; job 2 (queued 600 s, walltime
    500) has WFP 512 x 1.2^3 = 885 and starts first under plain WFP; summed,
    job 1 scores 512 x 2,000 = 1,024,000 against 512 x 1,036.8 = 530,842
    and takes the one free block (block 1)."""
    queue = (Job(1, -1900, 100, 512, 2000), Job(2, -500, 100, 512, 500))
    running = {8: (5000.0, 512), 9: (5000.0, 512)}
    for accumulate, first in ((False, 2), (True, 1)):
        policy = CobaltPolicy(machine=machine, drain=False, accumulate=accumulate)
        started, _, _ = policy.schedule(queue, running, {8: 0, 9: 3}, 512, 100)
        assert [job.id for job in started] == [first]


def test_no_start_runs_into_maintenance_or_happens_before_the_window(machine):
    policy = CobaltPolicy(machine=machine, maintenance=Calendar(((1000.0, 2000.0),)),
                          opens=50)
    queue = (Job(1, 0, 100, 512, 1000), Job(2, 0, 100, 512, 900))
    assert policy.schedule(queue, {}, {}, 1536, 40)[0] == []  # the window is not open
    started, waiting, _ = policy.schedule(queue, {}, {}, 1536, 100)
    assert [job.id for job in started] == [2] and [job.id for job in waiting] == [1]
    assert policy.schedule(queue, {}, {}, 1536, 1500)[0] == []  # inside the window
    assert [job.id for job in policy.schedule(queue, {}, {}, 1536, 2000)[0]] == [2, 1]  # WFP


def test_node_counts_follow_the_same_calendar():
    policy = CobaltPolicy(maintenance=Calendar(((1000.0, 2000.0),)))
    queue = (Job(1, 0, 100, 512, 1000), Job(2, 0, 100, 512, 900))
    started, _, _ = policy.schedule(queue, {}, {}, 1024, 100)
    assert [job.id for job in started] == [2]


def test_a_reserved_block_is_not_used_by_a_job_that_would_overlap_it(machine):
    """Block 3 is reserved from 1,000; a job ending by then may use it."""
    policy = CobaltPolicy(machine=machine,
                          reservations=(Reservation("R.test", 1000.0, 2000.0, 1 << 3),))
    busy = {8: (5000.0, 512), 9: (5000.0, 512)}
    long, short = Job(1, 0, 100, 512, 2000), Job(2, 0, 100, 512, 800)
    assert policy.schedule((long,), busy, {8: 0, 9: 1}, 512, 100)[0] == []
    assert policy.schedule((short,), busy, {8: 0, 9: 1}, 512, 100)[2] == {8: 0, 9: 1, 2: 3}


def test_cobalts_slop_keeps_a_job_ending_just_before_a_reservation_off_it(machine):
    """Block 1 is reserved from t=1,000 and the job's walltime ends at 900:
    without slack it may take block 1; with Cobalt's 180 s (bgsched's
    SLOP_TIME) it overlaps the reservation and waits."""
    reservation = Reservation("R.test", 1000.0, 2000.0, machine.conflicts[1])
    busy = {8: (5000.0, 512), 9: (5000.0, 512)}
    job = Job(1, 0, 100, 512, 800)
    plain = CobaltPolicy(machine=machine, reservations=(reservation,))
    assert plain.schedule((job,), busy, {8: 0, 9: 3}, 512, 100)[2] == {8: 0, 9: 3, 1: 1}
    slop = CobaltPolicy(machine=machine, reservations=(reservation,), slop=180.0)
    assert slop.schedule((job,), busy, {8: 0, 9: 3}, 512, 100)[0] == []


def test_a_block_under_repair_is_neither_started_nor_drained(machine):
    """Block 3 is down from 0 to 1,000: the 512-node job goes to block 0;
    once blocks 0 and 1 are busy it waits rather than drain block 3."""
    policy = CobaltPolicy(machine=machine, outages=(Outage(0.0, 1000.0, 1 << 3),))
    job = Job(1, 0, 100, 512, 100)
    assert policy.schedule((job,), {}, {}, 1536, 10)[2] == {1: 0}
    busy = {8: (500.0, 512), 9: (500.0, 512)}
    assert policy.schedule((job,), busy, {8: 0, 9: 1}, 512, 10)[0] == []
    assert policy.schedule((job,), busy, {8: 0, 9: 1}, 512, 1000)[2] == {8: 0, 9: 1, 1: 3}


def test_a_confined_queue_uses_only_its_blocks(machine):
    """prod-long confined to rack R01 (block 3): its job waits for it."""
    policy = CobaltPolicy(machine=machine, queues={1: "prod-long"},
                          queue_blocks={"prod-long": 1 << 3})
    job = Job(1, 0, 100, 512, 100)
    assert policy.schedule((job,), {}, {}, 1536, 10)[2] == {1: 3}
    assert policy.schedule((job,), {9: (500.0, 512)}, {9: 3}, 1024, 10)[0] == []


def test_only_scheduled_blocks_are_used_and_drained(machine):
    """Blocks 0 and 2 scheduled (block 1 and 3 not, as a site leaves
    blocks out of its queues): a 512-node job takes block 0, never the
    idle block 1; with block 0 busy it waits.  The 1,024-node size keeps
    its scheduled block 2."""
    policy = CobaltPolicy(machine=machine, scheduled=0b101)
    job = Job(1, 0, 100, 512, 100)
    assert policy.schedule((job,), {}, {}, 1536, 10)[2] == {1: 0}
    assert policy.schedule((job,), {9: (500.0, 512)}, {9: 0}, 1024, 10)[0] == []
    big = Job(2, 0, 100, 1024, 100)
    assert policy.schedule((big,), {}, {}, 1536, 10)[2] == {2: 2}


def test_a_size_the_scheduled_set_names_no_block_of_stays_whole(machine):
    """Only block 2 (1,024 nodes) is named: 512-node jobs still use every
    512-node block, so they are not left without a block."""
    policy = CobaltPolicy(machine=machine, scheduled=0b100)
    job = Job(1, 0, 100, 512, 100)
    assert policy.schedule((job,), {9: (500.0, 512)}, {9: 0}, 1024, 10)[2] == {9: 0, 1: 1}


def test_cobalt_passes_every_ten_seconds_and_starts_one_job_a_pass(machine):
    """bgsched's schedule_jobs runs every 10 s and find_job_location stops
    at the first job it places: at t=15 nothing starts and the next pass
    is at 20; at 20 one of two startable jobs starts, the other 10 s on."""
    policy = CobaltPolicy(machine=machine, interval=10.0)
    queue = (Job(1, 0, 100, 512, 100), Job(2, 0, 100, 512, 100))
    assert policy.schedule(queue, {}, {}, 1536, 15)[0] == []
    assert policy.next_passes([], 15) == [Delayed(20.0, 5.0)]
    started, waiting, _ = policy.schedule(queue, {}, {}, 1536, 20)
    assert len(started) == 1 and len(waiting) == 1
    assert policy.next_passes(started, 20) == [Delayed(30.0, 10.0)]
    assert policy.next_passes([], 30) == []  # a pass that starts nothing waits for an event
    every_event = CobaltPolicy(machine=machine)
    assert len(every_event.schedule(queue, {}, {}, 1536, 15)[0]) == 2
    assert every_event.next_passes([], 15) == []


@pytest.mark.parametrize("rules", [
    {}, {"accumulate": True}, {"backfill": "cobalt"}, {"backfill": "last"},
    {"interval": 10.0, "slop": 180.0, "accumulate": True, "backfill": "cobalt"}])
def test_no_two_running_jobs_ever_share_hardware(machine, rules):
    """Whatever the rules, 300 random states: the blocks of the running
    and started jobs never conflict pairwise."""
    import random
    generator = random.Random(7)
    queues = {job_id: generator.choice(["prod-short", "backfill", "prod-capability"])
              for job_id in range(1, 40)}
    policy = CobaltPolicy(machine=machine, queues=queues, **rules)
    for _ in range(300):
        running, placed, free = {}, {}, 1536
        for job_id in (90, 91, 92):
            block = generator.randrange(len(machine.blocks))
            if all(not machine.conflicts[block] & (1 << other) for other in placed.values()):
                placed[job_id] = block
                size = machine.blocks[block].size
                running[job_id] = (generator.uniform(0, 3000), size)
                free -= size
        queue = tuple(Job(job_id, generator.uniform(-5000, 0), 100,
                          generator.choice([100, 512, 1024]), generator.uniform(60, 4000))
                      for job_id in range(1, generator.randrange(2, 8)))
        now = 10.0 * generator.randrange(0, 100)
        _, _, after = policy.schedule(queue, running, placed, free, now)
        blocks = list(after.values())
        for position, block in enumerate(blocks):
            assert all(not machine.conflicts[block] & (1 << other)
                       for other in blocks[position + 1:])


#: Two racks, each as two 512-node midplane blocks and a 1,024-node block
#: over both: block 0 R00-M0, 1 R00-M1, 2 over R00, 3 R01-M0, 4 R01-M1,
#: 5 over R01.
FOUR_MIDPLANES = ("<BG><BGType>bgq</BGType><PartitionList>"
                  + partition("MIR-00000-33331-512", midplane("00", 0))
                  + partition("MIR-00040-33371-512", midplane("00", 1))
                  + partition("MIR-00000-33371-1024", midplane("00", 0) + midplane("00", 1))
                  + partition("MIR-00400-33731-512", midplane("01", 0))
                  + partition("MIR-00440-33771-512", midplane("01", 1))
                  + partition("MIR-00400-33771-1024", midplane("01", 0) + midplane("01", 1))
                  + "</PartitionList></BG>")


def test_a_job_whose_drain_block_is_held_drains_nothing(tmp_path):
    """Job 1 (1,024 nodes) may use block 2 (blocked by job 8 on block 0
    until 1,000) or block 5 (idle, held by an active reservation).  Cobalt
    picks the block to drain among all, held ones too: block 5, free now,
    is held, so job 1 drains nothing and job 2 (512 nodes, walltime
    5,000) takes block 1.  Draining the earliest block not held instead
    drains block 2 with block 1 until 1,000, and job 2 waits."""
    path = tmp_path / "four.xml"
    path.write_text(FOUR_MIDPLANES)
    machine = read_blocks(path)
    reservation = Reservation("R.test", 0.0, 10_000.0, machine.conflicts[5])
    queue = (Job(1, -9000, 100, 1024, 1000), Job(2, 0, 100, 512, 5000))
    for held_targets, started in ((True, [2]), (False, [])):
        policy = CobaltPolicy(machine=machine, reservations=(reservation,),
                              held_targets=held_targets)
        result, _, _ = policy.schedule(queue, {8: (1000.0, 512)}, {8: 0}, 2560, 100)
        assert [job.id for job in result] == started
