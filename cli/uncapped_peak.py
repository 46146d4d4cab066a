"""The uncapped run's peak power, remembered between runs of ``cpn run``.

A cap given as a share of the uncapped peak (``--cap 70%``) needs that
peak, and finding it means simulating the whole workload without a cap
first: a fifth of a capped run, paid again by every cap tried on the same
workload.  The peak is a pure function of what the uncapped run reads, so
it is stored under a key made as a sweep's results are
(``studies.run_keys.run_key``): every option of the command except those
that only shape the cap or the output, and each input file by its
content.  Another trace, seed, policy or machine is another key.  Like a
sweep's result, a stored peak is stamped with the code that found it
(``studies.storage``): an edited model finds its peak afresh.  A cached
peak is never used for a run it does not describe.

The files live in ``$XDG_CACHE_HOME/cpn/uncapped-peaks`` (by default
``~/.cache``), one small JSON file per key; deleting them is always safe.
"""

from __future__ import annotations

import argparse
import json
import os
from pathlib import Path

from studies.run_keys import run_key
from studies.storage import current_result, write_result

#: Options that shape only the output, never the uncapped run.
OUTPUT_ONLY = ("out", "no_plots", "energy_steps")
#: Options that name input files: the key holds their content.
INPUT_FILES = ("trace", "power_csv", "failure_trace")
CAPPING_GROUP = "power capping"


def cache_directory() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "cpn" / "uncapped-peaks"


def peak_key(args: argparse.Namespace) -> str:
    """The key of the uncapped run that ``args`` describes."""
    ignored = {*OUTPUT_ONLY, *_capping_options(args.command_parser), "command",
               "command_parser", "func", "check", "given_options"}
    declaration = {name: value for name, value in sorted(vars(args).items())
                   if name not in ignored}
    declaration = json.loads(json.dumps(declaration, default=str))
    files = [name for name in INPUT_FILES if declaration.get(name) is not None]
    return run_key(declaration, files)


def cached_peak(key: str) -> float | None:
    """The peak stored under ``key`` in the current result format, or None."""
    stored = current_result(cache_directory(), key).record
    return None if stored is None else stored.get("power_peak_w")


def remember_peak(key: str, peak_watts: float) -> None:
    """Store a finished uncapped run's peak; a cache that cannot be
    written (a read-only home) only costs the next run its time."""
    try:
        write_result(cache_directory(), key, {"power_peak_w": peak_watts})
    except OSError:
        pass


def _capping_options(parser: argparse.ArgumentParser) -> set[str]:
    return {action.dest for group in parser._action_groups if group.title == CAPPING_GROUP
            for action in group._group_actions}

