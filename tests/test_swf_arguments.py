"""``read_swf``'s arguments (not the file's content) of the wrong kind are
refused before the file is read, naming the argument."""

from __future__ import annotations

import math
import re

import numpy as np
import pytest

from modules.swf import read_swf

TRACE = "; MaxNodes: 64\n1 0 -1 3600 4 -1 -1 4 3600 -1 1 1 1 1 1 -1 -1 -1\n"


@pytest.fixture
def trace(tmp_path):
    path = tmp_path / "t.swf"
    path.write_text(TRACE)
    return path


@pytest.mark.parametrize("arguments, message", [
    (dict(procs_per_node=2.5), "procs_per_node must be a whole number >= 1, got 2.5"),
    (dict(procs_per_node="4"), "procs_per_node must be a whole number >= 1, got '4'"),
    (dict(procs_per_node=True), "procs_per_node must be a whole number >= 1, got True"),
    (dict(allocation_unit=None), "allocation_unit must be a whole number >= 1, got None"),
    (dict(allocation_unit=math.inf), "allocation_unit must be a whole number >= 1, got inf"),
    (dict(machine_nodes=2.5), "machine_nodes must be a whole number >= 1, got 2.5"),  # ran
    (dict(machine_nodes=math.nan), "machine_nodes must be a whole number >= 1, got nan"),
    (dict(machine_nodes="64"), "machine_nodes must be a whole number >= 1, got '64'"),
    (dict(shift_to_zero="no"), "shift_to_zero must be True or False, not 'no'"),  # shifted
])
def test_an_argument_of_the_wrong_kind_is_refused_naming_it(trace, arguments, message):
    with pytest.raises(ValueError, match=re.escape(message)):
        read_swf(trace, **arguments)


@pytest.mark.parametrize("path", [None, 5, ["t.swf"]])
def test_a_path_that_is_no_path_is_refused(path):
    """It was a TypeError of pathlib naming no argument."""
    with pytest.raises(ValueError, match=re.escape(f"path must be a trace file's path (a str "
                                                   f"or a Path), not {path!r}")):
        read_swf(path)


def test_numpys_whole_numbers_are_taken(trace):
    workload = read_swf(str(trace), machine_nodes=np.int64(32), procs_per_node=np.int64(2))
    assert (workload.machine_nodes, workload.jobs[0].js) == (32, 2)
