"""``cpn --help`` answers at once: building the parser loads neither the
models nor the libraries they need (numpy, pandas, matplotlib, rich), and
``import cpn`` alone loads no numpy (the simulator does, when first used).

Each check runs in a fresh interpreter, since this one has long imported
everything."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

import cli.choices
import cpn

ROOT = Path(__file__).resolve().parents[1]
#: What the parser must not load: the numeric and plotting libraries, the
#: console library the commands print with, and the nets themselves.
HEAVY = ("numpy", "pandas", "matplotlib", "rich", "nets")


def loaded_after(code: str) -> list[str]:
    """The packages of :data:`HEAVY` that running ``code`` in a fresh
    interpreter loaded."""
    probe = (f"{code}\nimport json, sys\n"
             f"print(json.dumps(sorted(name for name in {HEAVY!r} if name in sys.modules)))")
    done = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("argv", [["--help"], ["run", "--help"], ["sweep", "--help"],
                                  ["step", "--help"], ["replay", "--help"]],
                         ids=" ".join)
def test_help_loads_no_model_nor_heavy_library(argv):
    code = ("import contextlib, io\nfrom cli.main import main\n"
            "with contextlib.redirect_stdout(io.StringIO()) as shown:\n"
            "    try:\n"
            f"        main({argv!r})\n"
            "    except SystemExit:\n"
            "        pass\n"
            "assert 'usage: cpn' in shown.getvalue()")
    assert loaded_after(code) == []


def test_building_the_parser_loads_no_model_nor_heavy_library():
    assert loaded_after("import cli.main\ncli.main.build_parser()") == []


def test_the_engine_loads_numpy_only_for_the_simulator():
    assert loaded_after("import cpn\nfrom cpn import Net, Delayed, P_LOW") == []
    assert loaded_after("from cpn import Simulator") == ["numpy"]


def test_the_simulator_is_still_a_name_of_the_package():
    from cpn.simulator import Binding, RunResult, Simulator, StopReason

    assert (cpn.Simulator, cpn.Binding, cpn.RunResult, cpn.StopReason) == (
        Simulator, Binding, RunResult, StopReason)
    assert {"Simulator", "StopReason", "Net"} <= set(dir(cpn))
    with pytest.raises(AttributeError, match="module 'cpn' has no attribute 'Simulatr'"):
        cpn.Simulatr  # noqa: B018


def test_the_parsers_choices_are_the_models_own():
    """cli/choices.py repeats what the parsers show so as not to import the
    models; here they are compared with the models' values."""
    from studies.experiment import MIRA_SYSTEM_MTTF_HOURS, POWER_OPTIONS
    from studies.grids import MODELS
    from studies.thesis_run import POLICIES

    assert cli.choices.MODELS == tuple(MODELS)
    assert cli.choices.POWER_OPTIONS == POWER_OPTIONS
    assert cli.choices.THESIS_POLICIES == POLICIES
    assert cli.choices.MIRA_SYSTEM_MTTF_HOURS == MIRA_SYSTEM_MTTF_HOURS
    from modules.window_scheduling import OVER_CAP_RULES
    assert cli.choices.DATA_DRIVEN_OVER_CAP == OVER_CAP_RULES
    from cli.validate import PERIODS as PERIODS_SHOWN
    from cli.workload import SIZE_UNITS as SIZE_UNITS_SHOWN
    from modules.swf import SIZE_UNITS
    from modules.validation import PERIODS
    assert SIZE_UNITS_SHOWN == tuple(SIZE_UNITS)
    assert PERIODS_SHOWN == tuple(PERIODS)


def test_a_bad_month_is_refused_as_before(capsys):
    """--month's type imports studies.workloads only when a sweep is parsed, under
    the name argparse shows."""
    from cli.main import main

    with pytest.raises(SystemExit):
        main(["sweep", "--month", "x", "--dry-run"])
    assert capsys.readouterr().err.strip().splitlines()[-1] == (
        "cpn sweep: error: argument --month: invalid parse_months value: 'x'")
