"""Mira's fatal RAS events (``modules.mira_failures``): which hardware an
event takes out, for how long, and which blocks that makes unusable."""

from __future__ import annotations

import pytest

from modules.bgq_blocks import read_blocks
from modules.mira_failures import (HARDWARE_REPAIR_HOURS, Failure, RasFileError, outages,
                                   read_ras_failures)

try:  # tests/ on sys.path (pytest's default rootdir-less import mode)
    from tiny_mira import FAILURES, TWO_RACKS
except ImportError:  # pragma: no cover - run from another root
    from tests.tiny_mira import FAILURES, TWO_RACKS

EVENTS = """#count=3
event 1 00062001 1 FATAL BQC MC 2018-01-22;07:10:44.271375 2018-01-22;07:10:44.4 3 RMNJ R00-M1-N03-J04 0
\t0.1 2 00062001 2 FATAL BQC MC 2018-01-22;07:10:44.334907 2018-01-22;07:10:44.3 1 RMNJ R00-M1-N03-J24 0
event 3 00062001 3 FATAL Software_Error CNK 2018-01-23;00:00:00.0 2018-01-23;00:00:00.0 1 RMNJ R01-M0-N15-J28 0
event 4 00062001 4 FATAL Infiniband LINUX 2018-01-23;01:00:00.0 2018-01-23;01:00:00.0 2 QIJ Q0G-I4-J04 0
event 5 00040093 5 FATAL ELF_Image MC 2018-01-23;02:00:00.0 2018-01-23;02:00:00.0 1 NULL  0
"""


def test_events_on_compute_racks_take_out_the_blocks_containing_them(tmp_path):
    (tmp_path / "events.cor").write_text(EVENTS)
    (tmp_path / "blocks.xml").write_text(TWO_RACKS)
    failures, elsewhere = read_ras_failures(tmp_path / "events.cor")
    assert elsewhere == 2  # an I/O drawer, and an event without a location
    assert failures == [Failure(1516605044.0, "BQC", "R00-M1-N03-J04"),
                        Failure(1516665600.0, "Software_Error", "R01-M0-N15-J28")]
    assert failures[0].hardware == "R00-M1-N03"
    assert failures[0].repair_s == 3600 * HARDWARE_REPAIR_HOURS == 39_600
    assert failures[1].repair_s == 360
    machine = read_blocks(tmp_path / "blocks.xml")
    down = outages(failures, machine, 0, 2e9)
    assert [(outage.start, outage.end, outage.blocks) for outage in down] == [
        (1516605044.0, 1516644644.0, 0b110), (1516665600.0, 1516665960.0, 0b1000)]
    assert outages(failures, machine, 1516665961, 2e9) == ()


def test_a_bad_event_time_names_the_line(tmp_path):
    path = tmp_path / "bad.cor"
    path.write_text(EVENTS.replace("2018-01-23;00:00:00.0 2018", "yesterday 2018"))
    with pytest.raises(RasFileError, match=r"bad.cor:4: event time 'yesterday' is not"):
        read_ras_failures(path)


@pytest.mark.skipif(not (FAILURES / "mira_fatal_ras_events_2013_2018.cor").exists(),
                    reason="../shared/data absent")
def test_mira_ras_log():
    failures, elsewhere = read_ras_failures(FAILURES / "mira_fatal_ras_events_2013_2018.cor")
    assert (len(failures), elsewhere) == (1032, 144)
