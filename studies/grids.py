"""Run declarations, and grids of them: what a sweep runs.

A sweep is a list of run declarations, usually the product of a few axes
(:func:`grid`): PuPPET and TOPPER's :class:`~studies.experiment.Experiment`,
or the DVFS thesis' :class:`~studies.thesis_run.ThesisRun`; anything with
the methods of :class:`Run`.  Each run names its *baseline* (what it is
normalised by: an experiment's uncapped twin, a thesis run's EASY) and its
*prerequisite* (a run whose result it needs: the reference of a fractional
cap, the EASY run PB-guided measures its BSLD_lower on); :func:`plan` adds
them.  Two declarations of one run have one key, so a grid holds each run
once (:func:`unique`).

>>> experiments = grid(Experiment(), policy=["fcfs", "wfp"], capping=["none", "wait"])
>>> len(experiments)
4
"""

from __future__ import annotations

import itertools
import json
import os
from dataclasses import fields, replace
from typing import Any, Iterable, Mapping, Protocol, Sequence

from .experiment import Experiment
from .thesis_run import ThesisRun

EXPERIMENT_FIELDS = tuple(f.name for f in fields(Experiment))
#: The run declarations of ``"model"`` in a JSON grid (TOPPER runs are
#: PuPPET experiments with a resilience method).
MODELS = {"puppet": Experiment, "thesis": ThesisRun}


class Run(Protocol):
    """What a sweep needs of a run declaration (frozen, picklable)."""

    def key(self) -> str:
        """A stable short id, the name of its result file."""

    def label(self) -> str:
        """A short human-readable description."""

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON values; ``type(run).from_dict`` makes the run again."""

    def baseline(self) -> "Run":
        """The run its results are normalised by (itself for a baseline)."""

    def prerequisite(self) -> "Run | None":
        """A run whose result it needs, or None."""

    def run(self, prerequisite: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """Simulate (in a worker); one flat record with ``key`` and
        ``baseline_key``, given the prerequisite's result."""


def grid(base: Run | None = None, **axes: Sequence) -> list[Run]:
    """Every combination of the ``axes`` (field name -> values) applied to
    ``base`` (default ``Experiment()``), without duplicates (two
    combinations that make the same run, such as alpha 1 and alpha 2
    without DVFS, are one), in order.  A thesis run's axes may also be its
    policy's options (``wq_threshold=[0, 4]``).  A lone value
    (``policy="wfp"``) is an axis of one value, as in a JSON grid."""
    base = Experiment() if base is None else base
    if not all(callable(getattr(base, name, None)) for name in ("key", "to_dict", "from_dict")):
        raise TypeError(f"grid's base must be a run declaration (Experiment, ThesisRun) whose "
                        f"fields the axes vary, not {type(base).__name__} {base!r:.60}")
    if isinstance(base, Experiment):
        unknown = set(axes) - set(EXPERIMENT_FIELDS)
        if unknown:
            raise ValueError(f"unknown experiment fields: {sorted(unknown)}; "
                             f"known: {', '.join(EXPERIMENT_FIELDS)}")
        return unique(replace(base, **combination) for combination in _combinations(axes))
    return unique(type(base).from_dict({**base.to_dict(), **combination})
                  for combination in _combinations(axes))


def _combinations(axes: Mapping[str, Sequence]) -> Iterable[dict[str, Any]]:
    names = list(axes)
    values = [[axes[name]] if _lone(axes[name]) else list(axes[name]) for name in names]
    for name, options in zip(names, values):
        if not options:
            raise ValueError(f"axis {name!r} has no values")
    return (dict(zip(names, combination)) for combination in itertools.product(*values))


def _lone(value: Any) -> bool:
    """A lone value given for an axis, an axis of one as in a JSON grid: a
    string (``policy="wfp"`` gave runs of "w", "f" and "p") or a number
    (a TypeError: 'int' object is not iterable)."""
    return isinstance(value, (str, bytes)) or not isinstance(value, Iterable)


def unique(runs: Iterable[Run]) -> list[Run]:
    seen: dict[str, Run] = {}
    for run in runs:
        seen.setdefault(run.key(), run)
    return list(seen.values())


def read_json_file(path: str | os.PathLike) -> Any:
    """The JSON value in ``path``; a file that is not JSON is refused with
    its name and line, and so are NaN and Infinity, which Python's reader
    takes but JSON has not (a NaN cap stood for "no cap given")."""
    def refuse(constant: str):
        raise ValueError(f"{path}: {constant} is not a JSON number")

    try:
        with open(path, encoding="utf-8") as stream:
            return json.load(stream, parse_constant=refuse)
    except json.JSONDecodeError as error:
        raise ValueError(f"{path}, line {error.lineno}: not JSON ({error.msg})") from None
    except UnicodeDecodeError:
        raise ValueError(f"{path}: not a text file (a grid is JSON)") from None


_SPEC_KEYS = "model, base, grid, experiments"


def grid_from_json(spec: Any, defaults: Mapping[str, Mapping[str, Any]] | None = None
                   ) -> list[Run]:
    """Runs from a JSON value (or a file path): an object with ``"base"``
    (fields), ``"grid"`` (field -> list of values) and/or ``"experiments"``
    (a list of field objects), and ``"model"`` (``"puppet"``, the default,
    or ``"thesis"`` for the DVFS thesis' runs, whose fields are those of
    :class:`~studies.thesis_run.ThesisRun` and its policy's options);
    or a list of such objects.

    ``defaults`` (model -> fields) are the fields a run takes where the
    file does not set them: ``cpn sweep --grid`` gives
    ``{"puppet": {"overrun": "clamp"}}``, so that a grid file's runs kill a
    job at its requested walltime as the command's flags do, unless the
    file says ``"overrun": "keep"``; without it a field takes the run's own
    default (``Experiment``'s ``keep``).

    >>> len(grid_from_json({"base": {"policy": "wfp"}, "grid": {"cap_fraction": [0.8, 0.6],
    ...                     "capping": ["wait"]}}))
    2
    >>> runs = grid_from_json([{"grid": {"policy": ["fcfs", "wfp"]}},
    ...                        {"experiments": [{"policy": "wfp", "alpha": 3}]}])
    >>> [run.policy for run in runs]   # alpha cannot act uncapped: the same run
    ['fcfs', 'wfp']
    """
    if isinstance(spec, (str, os.PathLike)):
        try:
            return grid_from_json(read_json_file(spec), defaults)
        except ValueError as error:
            message = str(error)
            raise ValueError(message if message.startswith(str(spec))
                             else f"{spec}: {message}") from None
    if isinstance(spec, list):
        for position, part in enumerate(spec, start=1):
            if not isinstance(part, dict):
                raise ValueError(f"item {position} of the sweep specification's list is "
                                 f"{type(part).__name__}, not an object of {_SPEC_KEYS}")
        return unique(run for part in spec for run in grid_from_json(part, defaults))
    if not isinstance(spec, dict):
        raise ValueError(f"a sweep specification is an object of {_SPEC_KEYS}, or a list "
                         f"of them, not {type(spec).__name__}")
    unknown = set(spec) - {"model", "base", "grid", "experiments"}
    if unknown:
        raise ValueError(f"unknown keys in the sweep specification: {sorted(unknown)} "
                         f"(expected {_SPEC_KEYS}: a run's fields go in base, grid or "
                         "experiments)")
    model = MODELS.get(spec.get("model", "puppet"))
    if model is None:
        raise ValueError(f"model must be one of {', '.join(MODELS)}, not {spec['model']!r}")
    base = {**(defaults or {}).get(spec.get("model", "puppet"), {}), **spec.get("base", {})}
    axes = {name: value if isinstance(value, list) else [value]
            for name, value in spec.get("grid", {}).items()}
    runs = []
    if "grid" in spec or "experiments" not in spec:
        runs += [model.from_dict({**base, **combination}) for combination in _combinations(axes)]
    for item in spec.get("experiments", []):
        runs.append(model.from_dict({**base, **item}))
    return unique(runs)


def plan(runs: Sequence[Run], baselines: bool = True) -> list[Run]:
    """The runs a sweep of ``runs`` needs: the runs, their prerequisites
    (and theirs) and (with ``baselines``) their baselines; those first."""
    needed: list[Run] = []
    for run in runs:
        required = run.prerequisite()
        if required is not None:
            needed += plan([required], baselines)
        if baselines:
            needed.append(run.baseline())
    return unique(needed + list(runs))
