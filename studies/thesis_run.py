"""Runs of the DVFS thesis' policies declared as data, for ``run_sweep``.

A :class:`ThesisRun` names one run completely (trace portion, machine,
profile seed, policy and its options, idle scenario) as a frozen dataclass
of plain values with a stable short key, the hash of its canonical JSON.
It is a run declaration of :mod:`studies.sweep` (``key``, ``label``,
``to_dict``, ``baseline``, ``prerequisite``, ``run``), like PuPPET's
``Experiment``, so thesis grids go through ``run_sweep`` and ``cpn sweep
--model thesis``: local processes or Dask, one ``<key>.json`` per run, a
restart runs only what is missing, ``results.csv`` normalised to the
baseline.

The baseline is EASY at the nominal gear without a budget, on the same
workload: the thesis normalises its figures by it.  Two options are, by
the thesis' definition, measured on another run, which a sweep runs first
when the option is not given: PB-guided's ``bsld_lower`` is the mean BSLD
of the baseline (section 5.2.2.1), and MaxJobPerf's ``wait_time_limit``
under ``reservations="time"`` is the 95th percentile of the waits of
power-constrained EASY at the same budget (section 5.3.2.1).

Options of another policy are dropped, as ``Experiment`` drops fields that
cannot act, so that a grid over policies and options holds each run once;
an option of no policy is an error.

>>> run = ThesisRun("a.swf", machine_cpus=64).with_policy("upas", wq_threshold=4,
...                                                       bsld_threshold=2)
>>> run.options, run.baseline().policy
((('wq_threshold', 4),), 'easy')
>>> run.with_policy("pb_guided").prerequisite() == run.baseline()
True
"""

from __future__ import annotations

import functools
import json
import math
import time
from dataclasses import asdict, dataclass, fields, replace
from pathlib import Path
from typing import Any, Mapping

from modules.dvfs_thesis.gears import CpuPowerModel
from modules.dvfs_thesis.profiles import draw_profiles, read_profiles

from nets.dvfs_thesis import (BsldDrivenConfig, EasyConfig, MaxJobPerfConfig, PbGuidedConfig,
                          ThesisConfig, UpasConfig, simulate, thesis_portion)
from .run_keys import absolute_path, run_key

MODEL = "thesis"
POLICY_CONFIGS = {"easy": EasyConfig, "upas": UpasConfig, "bsld_driven": BsldDrivenConfig,
                  "pb_guided": PbGuidedConfig, "max_job_perf": MaxJobPerfConfig}
POLICIES = tuple(POLICY_CONFIGS)
#: Every policy's option names and declared types ("int | None", ...).
OPTION_TYPES = {policy: {f.name: str(f.type) for f in fields(config)}
                for policy, config in POLICY_CONFIGS.items()}
ALL_OPTIONS = sorted({name for options in OPTION_TYPES.values() for name in options})
#: What the prerequisite's result would be at the most lenient: BSLD is at
#: least 1 and waits at least 0.  Options are validated up front with it.
_LENIENT_MEASUREMENT = {"bsld": 1.0, "wait_p95_s": 0.0}


@dataclass(frozen=True)
class ThesisRun:
    """One run.  ``options``: the policy configuration's fields, as
    ``(name, value)`` pairs; ``profiles``: a ``job_id,p,beta_comp`` file
    instead of the draw seeded by ``profile_seed``; ``idle``: idle CPUs at
    the ``"lowest_gear"`` or drawing nothing, ``"zero"`` (:class:`CpuPowerModel`)."""

    trace: str
    policy: str = "easy"
    options: tuple[tuple[str, Any], ...] = ()
    machine_cpus: int = 9216
    first_job: int = 10_001
    last_job: int = 15_000
    profile_seed: int = 0
    profiles: str | None = None
    idle: str = "lowest_gear"

    def __post_init__(self):
        put = functools.partial(object.__setattr__, self)
        put("trace", absolute_path(self.trace))
        if self.profiles is not None:
            put("profiles", absolute_path(self.profiles))
        if self.policy not in POLICY_CONFIGS:
            raise ValueError(f"policy must be one of {', '.join(POLICIES)}, not {self.policy!r}")
        for name in ("machine_cpus", "first_job", "last_job", "profile_seed"):
            put(name, _whole(name, getattr(self, name)))
        if not 1 <= self.first_job <= self.last_job:
            raise ValueError(f"need 1 <= first_job <= last_job, not {self.first_job}, "
                             f"{self.last_job}")
        put("options", _own_options(self.policy, dict(self.options)))
        config = self.config(_LENIENT_MEASUREMENT if self.prerequisite() else None)
        config.planner({})  # validates the options the scheduler reads (beta, oversized)

    # -- identity -------------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        """The fields as plain JSON values, ``options`` as an object, and
        ``"model": "thesis"`` (which also keeps these keys apart from
        PuPPET's)."""
        return {"model": MODEL, **asdict(self), "options": dict(self.options)}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> "ThesisRun":
        """A run from :meth:`to_dict`, or from fields with the policy's
        options beside them (``{"policy": "upas", "wq_threshold": 4}``), as
        grids give them."""
        if not isinstance(data, Mapping):  # else "'int' object is not iterable"
            raise TypeError(f"ThesisRun.from_dict takes a mapping of fields (as to_dict "
                            f"gives), not {type(data).__name__} {data!r:.60}")
        data = dict(data)
        model = data.pop("model", MODEL)
        if model != MODEL:
            raise ValueError(f"not a thesis run: model {model!r}")
        if "trace" not in data:
            raise ValueError("a thesis run needs a trace (an SWF file)")
        names = {f.name for f in fields(cls)}
        options = {**data.pop("options", {}),
                   **{k: data.pop(k) for k in list(data) if k not in names}}
        return cls(**data, options=tuple(options.items()))

    def canonical_json(self) -> str:
        return json.dumps(self.to_dict(), sort_keys=True, separators=(",", ":"))

    def key(self) -> str:
        """A stable short id: 16 hex digits of the SHA-256 of the canonical
        JSON with the files' contents in place of their paths
        (:func:`studies.run_keys.run_key`)."""
        return run_key(self.to_dict(), ("trace",) if self.profiles is None
                       else ("trace", "profiles"))

    def label(self) -> str:
        """A short human-readable description."""
        name = Path(self.trace).name.removesuffix(".gz").removesuffix(".swf")
        options = " ".join(f"{k}={v}" for k, v in self.options)
        return ", ".join(part for part in (name, f"jobs {self.first_job}-{self.last_job}",
                                           self.policy, options) if part)

    # -- related runs -----------------------------------------------------------

    def with_policy(self, policy: str, **options) -> "ThesisRun":
        return replace(self, policy=policy, options=tuple(options.items()))

    def baseline(self) -> "ThesisRun":
        """EASY at the nominal gear without a budget, on the same workload."""
        return self.with_policy("easy")

    def prerequisite(self) -> "ThesisRun | None":
        """The run an option left unset is measured on, if any."""
        measured = self._measured()
        if measured is None:
            return None
        if self.policy == "pb_guided":
            return self.baseline()
        budget = dict(self.options).get("budget_fraction", MaxJobPerfConfig.budget_fraction)
        return self.with_policy("easy", budget_fraction=budget)

    def _measured(self) -> tuple[str, str] | None:
        """The option measured on the prerequisite, and the metric it is."""
        options = dict(self.options)
        if self.policy == "pb_guided" and "bsld_lower" not in options:
            return "bsld_lower", "bsld"
        if (self.policy == "max_job_perf" and options.get("reservations") == "time"
                and "wait_time_limit" not in options):
            return "wait_time_limit", "wait_p95_s"
        return None

    # -- running ------------------------------------------------------------------

    def config(self, prerequisite: Mapping[str, Any] | None = None) -> ThesisConfig:
        """The configuration; an option measured on the prerequisite is read
        from its result."""
        options = dict(self.options)
        measured = self._measured()
        if measured is not None:
            if prerequisite is None:
                raise ValueError(f"{self.label()}: {measured[0]} is measured on "
                                 f"{self.prerequisite().label()}: give its result")
            options[measured[0]] = float(prerequisite[measured[1]])
        return ThesisConfig(self.machine_cpus, POLICY_CONFIGS[self.policy](**options),
                            CpuPowerModel(idle=self.idle))

    def run(self, prerequisite: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """Simulate; one flat record: ``key``, ``label``, the fields, every
        option of the policy as it ran (``option_<name>``, measured ones
        included), the metrics of :func:`nets.dvfs_thesis.simulate`,
        ``baseline_key`` and ``elapsed_s``."""
        started = time.perf_counter()
        jobs, profiles = _workload(self.trace, self.machine_cpus, self.first_job,
                                   self.last_job, self.profile_seed, self.profiles)
        config = self.config(prerequisite)
        result = simulate(jobs, config, profiles)
        declaration = {k: v for k, v in self.to_dict().items() if k != "options"}
        return {"key": self.key(), "label": self.label(), **declaration,
                **{f"option_{k}": v for k, v in asdict(config.policy).items()},
                **result.metrics, "baseline_key": self.baseline().key(),
                "elapsed_s": time.perf_counter() - started}


def parse_job_numbers(text: str) -> tuple[int, int]:
    """The first and last job numbers of ``"10001-15000"``.

    >>> parse_job_numbers("1-40")
    (1, 40)
    """
    first, dash, last = text.partition("-")
    if not dash or not first.strip().isdigit() or not last.strip().isdigit():
        raise ValueError(f"job numbers are FIRST-LAST (10001-15000), not {text!r}")
    return int(first), int(last)


def _whole(name: str, value) -> int:
    if isinstance(value, bool) or not float(value).is_integer():
        raise ValueError(f"{name} must be a whole number, not {value!r}")
    return int(value)


def _own_options(policy: str, options: Mapping[str, Any]) -> tuple[tuple[str, Any], ...]:
    """``policy``'s options, sorted, numbers of the declared type (so that
    2 and 2.0 make one key); options of other policies dropped."""
    unknown = sorted(set(options) - set(ALL_OPTIONS))
    if unknown:
        raise ValueError(f"unknown policy options {unknown}; known: {', '.join(ALL_OPTIONS)}")
    own = OPTION_TYPES[policy]
    return tuple(sorted((name, _typed(name, value, own[name]))
                        for name, value in options.items() if name in own))


def _typed(name: str, value, declared: str):
    """``value`` as the option's declared type (``"float | None"``, ...)."""
    if value is None:
        if "None" in declared:
            return None
        if "str" in declared:  # the word none, which a command line reads as no value
            return "none"
        raise ValueError(f"{name} needs a value")
    if "str" in declared:
        return value
    if "bool" in declared:
        if not isinstance(value, bool):
            raise ValueError(f"{name} must be true or false, not {value!r}")
        return value
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ValueError(f"{name} must be a number, not {value!r}")
    if "int" in declared:
        return _whole(name, value)
    if not math.isfinite(value):
        raise ValueError(f"{name} must be finite, not {value}")
    return float(value)


@functools.lru_cache(maxsize=4)
def _workload(trace: str, machine_cpus: int, first: int, last: int, profile_seed: int,
              profiles: str | None):
    jobs = thesis_portion(trace, machine_cpus, first, last)
    return jobs, (read_profiles(profiles) if profiles else draw_profiles(jobs, profile_seed))


def refuse_job_ranges_beyond_traces(runs) -> None:
    """Refuse, before any runs, a thesis run whose job numbers its trace does
    not have (each trace and range read once): every run of such a study
    failed on its own once the sweep had started."""
    for trace, machine_cpus, first, last in {
            (run.trace, run.machine_cpus, run.first_job, run.last_job)
            for run in runs if isinstance(run, ThesisRun)}:
        thesis_portion(trace, machine_cpus, first, last)  # the error names the trace
