"""``cpn --help`` answers at once: building the parser loads neither the
models nor the libraries they need (numpy, pandas, matplotlib, rich), and
``import cpn`` alone loads no numpy (the simulator does, when first used).

Each check runs in a fresh interpreter, since this one has long imported
everything."""

from __future__ import annotations

import json
import os
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


def loaded_after(code: str, watched: tuple[str, ...] = HEAVY) -> list[str]:
    """The modules of ``watched`` that running ``code`` in a fresh
    interpreter loaded."""
    probe = (f"{code}\nimport json, sys\n"
             f"print(json.dumps(sorted(name for name in {watched!r} if name in sys.modules)))")
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


def test_importing_the_command_loads_not_even_the_engine():
    """The models that build nets, the engine under them and the studies are
    imported by the commands that run them, not by ``import cli.main``."""
    watched = (*HEAVY, "cpn", "studies", "modules.cpu_scaling", "modules.batch_scheduling",
               "modules.power_capping", "modules.failure_logs", "modules.energy_saving")
    assert loaded_after("import cli.main", watched) == []


def blas_after_cpn(environment: dict) -> tuple[str, int]:
    """In a fresh ``cpn`` (``--version``) that then loads numpy: the OpenBLAS
    thread count it asks for, and how many threads the process runs."""
    probe = ("import os\nfrom cli.main import main\ntry:\n    main(['--version'])\n"
             "except SystemExit:\n    pass\n"
             "import numpy\nnumpy.ones((64, 64)) @ numpy.ones(64)\n"
             "print(os.environ.get('OPENBLAS_NUM_THREADS', 'unset'),\n"
             "      len(os.listdir('/proc/self/task')))")
    done = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, capture_output=True,
                          text=True, timeout=120, env=environment)
    assert done.returncode == 0, done.stderr
    wanted, threads = done.stdout.split()[-2:]
    return wanted, int(threads)


@pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="counts threads in /proc")
def test_cpn_runs_numpy_on_one_blas_thread_unless_told_otherwise():
    """A BLAS thread per core only burns CPU on a simulation's small arrays."""
    clean = {name: value for name, value in os.environ.items()
             if name not in ("OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")}
    assert blas_after_cpn(clean) == ("1", 1)
    assert blas_after_cpn({**clean, "OPENBLAS_NUM_THREADS": "2"})[0] == "2"


def test_the_default_dvfs_levels_are_the_models():
    from cli.main import build_parser
    from modules.cpu_scaling import even_levels

    args = build_parser().parse_args(["run"])
    assert args.levels == even_levels() == (1.0, 0.9, 0.8, 0.7, 0.6, 0.5)
    assert build_parser().parse_args(["run", "--levels", "3"]).levels == (1.0, 0.75, 0.5)


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
    from modules.batch_scheduling import OVERRUNS
    from modules.cpu_scaling import ADMISSIONS
    from modules.failure_logs import FAILURE_FORMATS
    from modules.node_power import POWER_ON_ORDERS
    from modules.power_capping import OVER_CAP
    from studies.experiment import MIRA_SYSTEM_MTTF_HOURS, OWN_MONTH
    from studies.experiment_fields import POWER_OPTIONS
    from studies.grids import MODELS
    from studies.thesis_run import POLICIES

    assert cli.choices.MODELS == tuple(MODELS)
    assert cli.choices.POWER_OPTIONS == POWER_OPTIONS
    assert cli.choices.THESIS_POLICIES == POLICIES
    assert cli.choices.MIRA_SYSTEM_MTTF_HOURS == MIRA_SYSTEM_MTTF_HOURS
    assert (cli.choices.OWN_MONTH, cli.choices.OVER_CAP, cli.choices.OVERRUNS) == (
        OWN_MONTH, OVER_CAP, OVERRUNS)
    assert cli.choices.DVFS_ADMISSIONS == ADMISSIONS
    assert (cli.choices.FAILURE_FORMATS, cli.choices.POWER_ON_ORDERS) == (
        FAILURE_FORMATS, tuple(POWER_ON_ORDERS))
    from modules.window_scheduling import BUDGETS, OVER_CAP_RULES
    assert cli.choices.DATA_DRIVEN_OVER_CAP == OVER_CAP_RULES
    assert cli.choices.KNAPSACK_BUDGETS == BUDGETS
    from cli.validate import PERIODS as PERIODS_SHOWN
    from cli.workload import SIZE_UNITS as SIZE_UNITS_SHOWN
    from modules.workload import SIZE_UNITS
    from modules.validation import PERIODS
    from studies.experiment_fields import SIZE_UNITS as SIZE_UNITS_OF_RUNS
    assert SIZE_UNITS_SHOWN == SIZE_UNITS_OF_RUNS == tuple(SIZE_UNITS)
    assert PERIODS_SHOWN == tuple(PERIODS)


def test_a_bad_month_is_refused_by_the_type_imported_when_a_sweep_is_parsed(capsys):
    """--month's type imports studies.workloads only when a sweep is parsed,
    and still says what a list of months is."""
    from cli.main import main

    with pytest.raises(SystemExit):
        main(["sweep", "--month", "x", "--dry-run"])
    assert capsys.readouterr().err.strip().splitlines()[-1] == (
        "cpn sweep: error: argument --month: months are a list (0,1,2 or 0-3), 'all' or "
        "'none', not 'x'")


#: A trace of three jobs, one line rejected (a repeated id), on 8 nodes.
TINY_TRACE = """; MaxNodes: 8
; MaxProcs: 8
1 0 -1 100 4 -1 -1 4 200 -1 1 1 1 1 1 1 -1 -1
2 10 -1 50 8 -1 -1 8 100 -1 1 2 1 1 1 1 -1 -1
2 20 -1 50 2 -1 -1 2 100 -1 1 2 1 1 1 1 -1 -1
3 30 -1 300 2 -1 -1 2 400 -1 1 3 2 1 1 1 -1 -1
"""


def run_code(trace, out, *flags: str) -> str:
    """Python that runs ``cpn run`` on ``trace`` into ``out``, its output hidden."""
    argv = ["run", "--trace", str(trace), "--out", str(out), *flags]
    return ("import contextlib, io\nfrom cli.main import main\n"
            "with contextlib.redirect_stdout(io.StringIO()):\n"
            f"    assert main({argv!r}) == 0")


@pytest.mark.parametrize("flags", [[], ["--cap", "70%", "--capping", "dvfs"],
                                   ["--cap", "70%", "--capping", "block"],
                                   ["--resilience", "checkpoint"], ["--sleep-after", "1800"],
                                   ["--sleep-after", "0", "--resilience", "checkpoint"]],
                         ids=" ".join)
def test_a_run_without_plots_loads_neither_pandas_nor_matplotlib(tmp_path, flags):
    """``cpn run --no-plots`` reads the trace, draws the jobs' power,
    simulates (uncapped first for a cap that is a share of the peak),
    writes its files and prints its table with neither pandas (importing it
    costs more than a small run) nor matplotlib, nor the modules of the
    other commands (their parsers are not built)."""
    trace = tmp_path / "tiny.swf"
    trace.write_text(TINY_TRACE)
    assert loaded_after(run_code(trace, tmp_path / "out", "--no-plots", *flags),
                        ("pandas", "matplotlib", "cli.step", "cli.net_loading", "cli.sweep",
                         "cli.study", "cli.validate", "cli.check")) == []
    assert (tmp_path / "out" / "rejected.csv").read_text().splitlines()[:2] == [
        "job_id,line,reason", '2,5,"duplicate job id, first at line 4"']
    assert (tmp_path / "out" / "jobs.csv").read_text().splitlines()[0] == (
        "job_id,submit,start,end,nodes,power,requested,runtime,wait")


def test_the_simulation_loads_pandas_only_when_its_tables_are_read():
    """The Python API still gives DataFrames: built when first read."""
    code = ("from modules.job import Job\nfrom nets.puppet import PuppetConfig, simulate\n"
            "import sys\n"
            "result = simulate([Job(1, 0, 100, 3, 100)], PuppetConfig(machine_nodes=4))\n"
            "assert 'pandas' not in sys.modules\n"
            "assert result.jobs['start'].tolist() == [0.0]\n"
            "assert type(result.jobs).__name__ == 'DataFrame'")
    assert loaded_after(code, ("pandas",)) == ["pandas"]


def test_sleeping_nodes_on_puppet_load_no_other_model(tmp_path):
    """Every module a run imports is compiled at its start: sleeping nodes
    on PuPPET load neither TOPPER nor the DVFS thesis."""
    trace = tmp_path / "tiny.swf"
    trace.write_text(TINY_TRACE)
    watched = ("nets.topper", "nets.dvfs_thesis", "modules.dvfs_thesis", "nets.energy_saving")
    assert loaded_after(run_code(trace, tmp_path / "out", "--no-plots", "--sleep-after", "60"),
                        watched) == ["nets.energy_saving"]


def test_sleeping_nodes_build_their_tables_only_when_read():
    """With sleeping nodes too: the jobs, the per-node times and the state
    timeline are DataFrames once read, and their metrics need no pandas."""
    code = ("from modules.job import Job\n"
            "from modules.energy_saving.policy import EnergySavingPolicy\n"
            "from nets.energy_saving import EnergySavingConfig, simulate\n"
            "import sys\n"
            "config = EnergySavingConfig(2, policy=EnergySavingPolicy(idle_threshold_s=600))\n"
            "result = simulate([Job(1, 0, 100, 1, 100), Job(2, 2000, 100, 2, 100)], config)\n"
            "assert result.metrics['shutdowns'] == 2 and 'pandas' not in sys.modules\n"
            "assert result.jobs['start'].tolist() == [0.0, 2595.0]\n"
            "assert result.nodes['shutdowns'].tolist() == [1, 1]\n"
            "assert result.timeline['state'].tolist()[:3] == ['idle', 'powering_off', 'standby']\n"
            "assert {type(t).__name__ for t in (result.jobs, result.nodes, result.timeline)} == "
            "{'DataFrame'}")
    assert loaded_after(code, ("pandas",)) == ["pandas"]


def test_the_plots_of_a_run_need_matplotlib_but_not_pandas(tmp_path):
    trace = tmp_path / "tiny.swf"
    trace.write_text(TINY_TRACE)
    assert loaded_after(run_code(trace, tmp_path / "out"), ("pandas", "matplotlib")) == [
        "matplotlib"]
    assert (tmp_path / "out" / "power.png").stat().st_size > 0
    assert (tmp_path / "out" / "daily_energy.png").stat().st_size > 0
