"""Experiments, grids and sweeps given values of the wrong kind refuse them
where they are given, naming the field or argument (each was a TypeError or
an AttributeError naming neither, or was misread)."""

from __future__ import annotations

import re

import pytest

from studies.experiment import Experiment
from studies.grids import grid
from studies.sweep import run_sweep
from studies.thesis_run import ThesisRun


@pytest.mark.parametrize("fields, message", [
    (dict(trace=None), "trace must be an SWF file's path or 'synthetic', not None"),
    (dict(trace=5), "trace must be an SWF file's path or 'synthetic', not 5"),
    (dict(capping="dvfs", levels=5), "levels must be a list of frequency levels"),
    (dict(capping="dvfs", levels="1,0.5"), "levels must be a list of frequency levels"),
    (dict(capping="dvfs", levels=[1, "x"]), "levels must be a number, not 'x'"),
    (dict(idle_fraction=None), "idle_fraction must be a number, not None"),
    (dict(node_watts=None), "node_watts must be a number, not None"),
    (dict(seed=None), "seed must be a number, not None"),  # ran unseeded
])
def test_an_experiment_field_of_the_wrong_kind_is_refused_naming_it(fields, message):
    with pytest.raises(ValueError, match=re.escape(message)):
        Experiment(**fields)


def test_a_lone_value_for_an_axis_is_an_axis_of_one_as_in_a_json_grid():
    """policy="wfp" gave "policy must be one of ('fcfs', 'wfp'), not 'w'"; seed=3 a
    TypeError ('int' object is not iterable)."""
    runs = grid(Experiment(), policy="wfp", capping=["none", "wait"], seed=3)
    assert [(run.policy, run.capping, run.seed) for run in runs] == [
        ("wfp", "none", 3), ("wfp", "wait", 3)]


@pytest.mark.parametrize("runs, options, error, message", [
    ([5], {}, TypeError, "run_sweep takes run declarations (Experiment, ThesisRun), not int 5"),
    ({"a": Experiment()}, {}, TypeError, "not str 'a'"),  # a dict's keys
    ([Experiment()], dict(workers=2.0), ValueError,
     "workers must be a whole number >= 1 (or None: all cores), not 2.0"),
    ([Experiment()], dict(workers="2"), ValueError, "workers must be a whole number"),
    ([Experiment()], dict(client="tcp://host:8786"), ValueError,
     "client must be a distributed.Client (dask_client(address))"),
    ([Experiment()], dict(on_result=5), ValueError, "on_result must be a function"),
])
def test_run_sweep_refuses_arguments_it_would_misread(tmp_path, runs, options, error, message):
    with pytest.raises(error, match=re.escape(message)):
        run_sweep(runs, tmp_path, progress=False, **options)
    assert not any(tmp_path.iterdir())  # refused before anything is written


def test_run_sweep_refuses_no_results_directory():
    with pytest.raises(ValueError, match="results_dir must be a directory's path, not None"):
        run_sweep([Experiment()], None, progress=False)


@pytest.mark.parametrize("base, message", [
    (5, "grid's base must be a run declaration (Experiment, ThesisRun) whose fields the axes "
        "vary, not int 5"),  # was "type object 'int' has no attribute 'from_dict'"
    ("synthetic", "not str 'synthetic'"),
    ({"policy": "wfp"}, "not dict {'policy': 'wfp'}"),
])
def test_grid_refuses_a_base_that_is_no_run_declaration(base, message):
    with pytest.raises(TypeError, match=re.escape(message)):
        grid(base, policy=["fcfs"])


@pytest.mark.parametrize("model", [Experiment, ThesisRun])
@pytest.mark.parametrize("data", [5, "policy=wfp", ["policy", "wfp"]])
def test_from_dict_refuses_what_is_no_mapping_of_fields(model, data):
    """Experiment.from_dict(5) was "'int' object has no attribute 'items'";
    ThesisRun's "'int' object is not iterable"."""
    with pytest.raises(TypeError, match=re.escape(
            f"{model.__name__}.from_dict takes a mapping of fields (as to_dict gives), "
            f"not {type(data).__name__} {data!r}")):
        model.from_dict(data)


def test_from_dict_refuses_unknown_fields_but_takes_a_result_row():
    with pytest.raises(ValueError, match=re.escape("unknown experiment fields: ['polcy']")):
        Experiment.from_dict({"polcy": "wfp"})
    row = {"key": Experiment().key(), **Experiment().to_dict(), "energy_j": 1.0}
    assert Experiment.from_dict(row) == Experiment()
