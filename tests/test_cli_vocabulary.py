"""One vocabulary for every ``cpn`` command, and no silent surprises.

A cap needs its unit; ``cpn run`` and ``cpn sweep`` name the same things
the same way (former spellings still accepted, hidden); the compute unit
and the failure rate default alike everywhere; bad values are refused as
typed, with the flag the user typed; every option has a help line; power
plots choose their unit from the data.
"""

from __future__ import annotations

import argparse
import re
from pathlib import Path

import pytest

from cli.flags import in_flags
from cli.main import build_parser, main
from cli.version import version
from cli.sweep import experiments_from_args
from modules.resilience import default_unit_nodes
from studies.experiment import MIRA_SYSTEM_MTTF_HOURS, Experiment
from nets.puppet import PuppetConfig

CAP_HINT = "write a share of the uncapped run's peak (70%) or a power (45720kW, 45.72MW, 3000W)"


def swf(path: Path, nodes: int | None, jobs: int = 3) -> Path:
    """``jobs`` small jobs on a machine of ``nodes`` nodes (no header when None)."""
    header = f"; MaxNodes: {nodes}\n; MaxProcs: {nodes}\n" if nodes else ""
    lines = [f"{i} {1000 + 10 * i} -1 100 1 -1 -1 1 200 -1 1 {i} 1 1 1 -1 -1 -1"
             for i in range(1, jobs + 1)]
    path.write_text(header + "\n".join(lines) + "\n")
    return path


@pytest.fixture
def trace(tmp_path) -> Path:
    return swf(tmp_path / "m128.swf", 128)


def commands() -> dict[str, argparse.ArgumentParser]:
    parser = build_parser()
    (subparsers,) = [action for action in parser._actions
                     if isinstance(action, argparse._SubParsersAction)]
    return {"cpn": parser, **subparsers.choices}


def refused(capsys, *argv) -> str:
    """The last stderr line of an argparse refusal (exit code 2)."""
    with pytest.raises(SystemExit) as exit_:
        main(list(map(str, argv)))
    assert exit_.value.code == 2
    return capsys.readouterr().err.strip().splitlines()[-1]


def failed(capsys, *argv) -> str:
    """The one stderr line of a refusal after parsing (exit code 2)."""
    assert main(list(map(str, argv))) == 2
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 1, lines
    return lines[0]


def sweep_runs(*argv) -> list:
    return experiments_from_args(build_parser().parse_args(["sweep", *map(str, argv)]))


# -- caps ----------------------------------------------------------------------------


@pytest.mark.parametrize("command", ["run", "sweep"])
@pytest.mark.parametrize("cap", ["70", "0.7", "4.5e7"])
def test_a_bare_number_is_not_a_cap_in_any_command(capsys, command, cap):
    assert refused(capsys, command, "--cap", cap) == (
        f"cpn {command}: error: argument --cap: '{cap}' has no unit: {CAP_HINT}")


def test_sweep_caps_are_a_list_of_shares_and_powers(trace):
    runs = sweep_runs("--trace", trace, "--capping", "wait", "--cap", "80%,60%,40kW")
    assert [(run.cap_fraction, run.cap_watts) for run in runs] == [
        (0.8, None), (0.6, None), (None, 40_000.0)]
    # The former --cap-watts (bare watts) still works, hidden, and adds to --cap.
    runs = sweep_runs("--trace", trace, "--capping", "wait", "--cap", "80%",
                      "--cap-watts", "3e4")
    assert [(run.cap_fraction, run.cap_watts) for run in runs] == [(0.8, None), (None, 3e4)]


def test_a_cap_without_a_method_means_wait_in_both_commands(trace, capsys):
    assert {run.capping for run in sweep_runs("--trace", trace, "--cap", "45.72MW")} == {"wait"}
    assert failed(capsys, "sweep", "--trace", trace, "--capping", "none", "--cap", "50%") == (
        "cpn sweep: error: --cap 50 % was given with --capping none: choose block, wait or dvfs")


def test_cap_month_needs_a_share_cap(trace, capsys):
    assert failed(capsys, "sweep", "--trace", trace, "--cap", "40MW", "--cap-month", 0) == (
        "cpn sweep: error: --cap-month needs a cap given as a share of the peak (--cap 70%)")


# -- one name per concept ---------------------------------------------------------

#: What only a sweep has: its grid file, months, thesis runs and execution.
SWEEP_ONLY = {"--collect", "--grid", "--model", "--month", "--walltime-scale", "--size-scale",
              "--cap-month", "--cpus", "--jobs", "--profile-seed", "--profiles", "--idle",
              "--option", "--workers", "--scheduler", "--dry-run", "--no-progress"}


def shown_flags(parser) -> set[str]:
    return {flag for action in parser._actions if action.help is not argparse.SUPPRESS
            for flag in action.option_strings}


def test_sweep_names_each_concept_as_run_does():
    parsers = commands()
    assert shown_flags(parsers["sweep"]) - SWEEP_ONLY <= shown_flags(parsers["run"])
    shown = set(re.findall(r"--[\w-]+", parsers["sweep"].format_help()))
    assert not shown & {"--l", "--w", "--cap-watts", "--system-mttf-hours"}


def test_former_sweep_spellings_are_hidden_aliases(trace):
    new = sweep_runs("--trace", trace, "--capping", "wait", "--wait-queue", 5,
                     "--max-wait", 60)
    old = sweep_runs("--trace", trace, "--capping", "wait", "--l", 5, "--w", 60)
    assert [(run.l, run.w_minutes) for run in new] == [(5, 60.0)]
    assert [run.key() for run in old] == [run.key() for run in new]


def test_restart_is_the_resilience_without_checkpoints_everywhere(trace, capsys):
    runs = sweep_runs("--trace", trace, "--resilience", "restart,checkpoint")
    assert [run.resilience for run in runs] == ["none", "checkpoint"]
    for command in ("run", "sweep"):
        assert "'none' is ambiguous: write restart" in refused(
            capsys, command, "--resilience", "none")


def test_failure_options_without_failures_are_refused_in_both_commands(trace, capsys):
    for command in ("run", "sweep"):
        assert failed(capsys, command, "--trace", trace, "--mttf-days", 3, "--out",
                      trace.parent / "out") == (
            f"cpn {command}: error: --mttf-days needs --resilience (checkpoint, "
            "replication, restart): without it nothing fails")


def test_run_refuses_options_that_mean_nothing_before_reading_the_trace(tmp_path, capsys):
    unread = tmp_path / "unread.swf"
    unread.write_text("not a trace\n")  # read, it would be refused
    assert failed(capsys, "run", "--trace", unread, "--power-on-order", "wear") == (
        "cpn run: error: --power-on-order needs --sleep-after: without it no node sleeps")
    assert failed(capsys, "run", "--trace", unread, "--gamma", "0.1").startswith(
        "cpn run: error: --gamma needs --resilience")


@pytest.mark.parametrize("command, options, message", [
    ("run", ["--alpha", "3"], "--alpha applies to --capping dvfs only, not to none"),
    ("run", ["--capping", "wait", "--levels", "4"],
     "--levels applies to --capping dvfs only, not to wait"),
    ("run", ["--capping", "dvfs", "--max-wait", "20"],
     "--max-wait applies to --capping wait only, not to dvfs"),
    ("run", ["--over-cap", "run-alone"],
     "--over-cap applies to --capping block, wait or dvfs only, not to none"),
    ("sweep", ["--capping", "wait,block", "--beta", "0.2,0.8"],
     "--beta applies to --capping dvfs only, not to wait, block"),
    # given with its default value, it is still asked for and still unread
    ("run", ["--alpha", "2"], "--alpha applies to --capping dvfs only, not to none"),
    ("run", ["--capping", "wait", "--levels", "6"],
     "--levels applies to --capping dvfs only, not to wait"),
    ("run", ["--capping", "block", "--dvfs-latency", "0"],
     "--dvfs-latency applies to --capping dvfs only, not to block"),
    ("run", ["--capping", "dvfs", "--l", "10"],
     "--wait-queue applies to --capping wait only, not to dvfs"),
    ("sweep", ["--over-cap", "reject"],
     "--over-cap applies to --capping block, wait or dvfs only, not to none"),
])
def test_an_option_no_chosen_capping_method_reads_is_refused(trace, capsys, command,
                                                              options, message):
    """Set and then ignored, it would shape nothing the user reads."""
    assert failed(capsys, command, "--trace", trace, "--out", trace.parent / "out",
                  *options) == (
        f"cpn {command}: error: {message}")


@pytest.mark.parametrize("command, options, message", [
    ("run", ["--resilience", "checkpoint", "--redundancy", "2"],
     "--redundancy applies to --resilience replication only, not to checkpoint"),
    ("run", ["--resilience", "restart", "--gamma", "0.3"],
     "--gamma applies to --resilience replication only, not to restart"),
    ("run", ["--resilience", "restart", "--checkpoint-scale", "1"],
     "--checkpoint-scale applies to --resilience checkpoint or replication only, "
     "not to restart"),
    ("sweep", ["--resilience", "checkpoint,restart", "--redundancy", "3"],
     "--redundancy applies to --resilience replication only, not to checkpoint, restart"),
    ("run", ["--resilience", "checkpoint", "--failure-format", "csv"],
     "--failure-format applies to --failure-trace only: without it failures are drawn"),
    ("run", ["--resilience", "checkpoint", "--dvfs-failure-multiplier", "3"],
     "--dvfs-failure-multiplier applies to --capping dvfs only: it scales failure rates "
     "while DVFS runs below nominal frequency"),
    ("sweep", ["--resilience", "checkpoint", "--capping", "wait",
               "--dvfs-failure-multiplier", "1"],
     "--dvfs-failure-multiplier applies to --capping dvfs only: it scales failure rates "
     "while DVFS runs below nominal frequency"),
    ("run", ["--resilience", "checkpoint", "--failure-trace", "FAILURES",
             "--failure-multiplier", "7"],
     "--failure-multiplier scales the rate of drawn failures: those replayed from "
     "--failure-trace have none"),
    ("run", ["--resilience", "checkpoint", "--failure-trace", "FAILURES", "--capping", "dvfs",
             "--dvfs-failure-multiplier", "2"],
     "--dvfs-failure-multiplier scales the rate of drawn failures: those replayed from "
     "--failure-trace have none"),
    ("run", ["--power-csv", "POWERS"], "--power-csv applies to --power csv only, not to drawn"),
    ("run", ["--power", "constant", "--power-csv", "POWERS"],
     "--power-csv applies to --power csv only, not to constant"),
])
def test_an_option_no_chosen_method_or_mode_reads_is_refused(trace, capsys, command, options,
                                                             message):
    """Replicas, checkpoints, a failure trace's format, rate multipliers of
    drawn failures and a power CSV each have their reader: without it the
    option was dropped without a word."""
    files = {"FAILURES": trace.parent / "failures.csv", "POWERS": trace.parent / "powers.csv"}
    files["FAILURES"].write_text("time,unit\n1500,0\n")
    files["POWERS"].write_text("job_id,power\n1,10\n2,10\n3,10\n")
    options = [files.get(option, option) for option in options]
    assert failed(capsys, command, "--trace", trace, "--out", trace.parent / "out",
                  *options) == f"cpn {command}: error: {message}"
    assert not (trace.parent / "out").exists()


def test_a_missing_input_file_is_refused_naming_its_flag(trace, capsys):
    for flag in ("--power-csv", "--failure-trace"):
        assert refused(capsys, "run", "--trace", trace, "--power", "csv", "--resilience",
                       "checkpoint", flag, trace.parent / "nowhere.csv") == (
            f"cpn run: error: argument {flag}: no such file: {trace.parent / 'nowhere.csv'}")


@pytest.mark.parametrize("command, flag", [
    ("run", "--trace"), ("validate", "--trace"), ("sweep", "--trace"), ("study fig10", "--trace"),
    ("run", "--blocks"), ("run", "--maintenance"), ("run", "--failures"),
    ("run", "--scheduled-from"), ("sweep", "--grid")])
def test_every_file_flag_names_itself_when_its_file_is_missing_or_a_directory(
        trace, capsys, command, flag):
    # They said "[Errno 2] No such file or directory: 'nope.swf'" (or
    # "[Errno 21] Is a directory"), naming no flag.
    argv = [*command.split(), *([] if flag == "--trace" else ["--trace", trace])]
    missing = trace.parent / "nowhere.xml"
    name = command.split()[0]
    assert refused(capsys, *argv, flag, missing) == (
        f"cpn {name}: error: argument {flag}: no such file: {missing}")
    assert refused(capsys, *argv, flag, trace.parent) == (
        f"cpn {name}: error: argument {flag}: {trace.parent} is a directory, not a file")


@pytest.mark.parametrize("command", ["run", "validate", "sweep", "study fig10", "check"])
def test_an_unknown_option_is_refused_by_the_command_naming_it(trace, capsys, command):
    # It was refused as "cpn: error: unrecognized arguments" whatever the command.
    said = refused(capsys, *command.split(), "--trace", trace, "--bogus", "1")
    assert said.startswith(f"cpn {command.split()[0]}: error: unrecognized arguments: ")
    assert said.endswith("--bogus 1")
    assert refused(capsys, "validate", "--trace", trace, "--cap", "70%") == (
        "cpn validate: error: unrecognized arguments: --cap 70%")


def test_an_unreadable_file_is_refused_naming_its_flag(trace, capsys, monkeypatch):
    monkeypatch.setattr("os.access", lambda path, mode: False)  # as root, nothing is unreadable
    assert refused(capsys, "run", "--trace", trace) == (
        f"cpn run: error: argument --trace: cannot read {trace} (permission denied)")


def test_a_puppet_option_given_with_its_default_is_refused_with_the_thesis(capsys):
    assert failed(capsys, "sweep", "--model", "thesis", "--seed", "0") == (
        "cpn sweep: error: --seed applies to --model puppet only")


def test_options_their_method_reads_are_taken(trace, tmp_path, capsys):
    powers = tmp_path / "powers.csv"
    powers.write_text("job_id,power\n1,10\n2,20\n3,30\n")
    assert main(["run", "--trace", str(trace), "--power", "csv", "--power-csv", str(powers),
                 "--resilience", "replication", "--gamma", "0.3", "--redundancy", "2",
                 "--checkpoint-scale", "0.5", "--out", str(tmp_path / "out"),
                 "--no-plots"]) == 0
    runs = sweep_runs("--trace", trace, "--resilience", "checkpoint,replication",
                      "--gamma", "0.5", "--checkpoint-scale", "2")
    assert {(run.resilience, run.gamma, run.checkpoint_scale) for run in runs} == {
        ("checkpoint", None, 2.0), ("replication", 0.5, 2.0)}


def test_an_option_some_chosen_method_reads_is_taken(trace, capsys):
    runs = sweep_runs("--trace", trace, "--capping", "wait,dvfs", "--alpha", "3")
    assert {(run.capping, run.alpha) for run in runs} == {("wait", None), ("dvfs", 3.0)}


# -- the same defaults everywhere ------------------------------------------------------


def test_the_default_unit_is_a_rack_on_a_machine_of_racks_else_a_node():
    assert [default_unit_nodes(n) for n in (49_152, 2048, 1152, 128, 4)] == [
        1024, 1024, 1, 1, 1]


def test_run_on_a_128_node_machine_states_its_default_units(trace, tmp_path, capsys):
    assert main(["run", "--trace", str(trace), "--resilience", "checkpoint",
                 "--out", str(tmp_path / "out"), "--no-plots"]) == 0
    printed = " ".join(capsys.readouterr().out.split())
    hours = MIRA_SYSTEM_MTTF_HOURS
    assert ("failures: 128 units of 1 node (by default 1,024-node racks on a machine made "
            "of them, else single nodes; --unit-nodes to choose), each failing every "
            f"{hours * 128 / 24:,.4g} days on average (the machine every {hours:g} h)"
            ) in printed


def test_run_and_sweep_fail_units_alike_by_default(trace, capsys):
    from cli.resilience import topper_config
    from studies.configs import topper_config as experiment_topper_config

    puppet = PuppetConfig(machine_nodes=128)
    run = topper_config(build_parser().parse_args(["run", "--resilience", "checkpoint"]),
                        puppet)
    (experiment,) = sweep_runs("--trace", trace, "--resilience", "checkpoint")
    sweep = experiment_topper_config(experiment, puppet)
    assert (run.resilience.unit_nodes, run.resilience.unit_mttf) == (
        sweep.resilience.unit_nodes, sweep.resilience.unit_mttf) == (
        1, pytest.approx(MIRA_SYSTEM_MTTF_HOURS * 3600 * 128))


def test_sweep_takes_a_units_mttf_in_days(trace):
    (run,) = sweep_runs("--trace", trace, "--resilience", "checkpoint", "--mttf-days", 10)
    assert run.system_mttf_hours == 10 * 24 / 128
    # Mira's racks at 92.9 days are the default: the same run, the same key.
    (mira,) = sweep_runs("--resilience", "checkpoint", "--mttf-days", 92.9)
    assert mira.key() == Experiment(resilience="checkpoint").key()


def test_study_takes_a_units_mttf_in_days_as_sweep_does(trace, capsys):
    from studies.registry import STUDIES
    from studies.study import StudyOptions

    args = build_parser().parse_args(["study", "topper_fig12", "--mttf-days", "10"])
    assert args.mttf_days == 10.0
    design = STUDIES["topper_fig12"].design
    for unit in (None, 32):
        options = StudyOptions(trace=str(trace), mttf_days=10, unit_nodes=unit)
        unit_flags = () if unit is None else ("--unit-nodes", unit)
        (swept,) = sweep_runs("--trace", trace, "--resilience", "checkpoint", "--mttf-days",
                              10, *unit_flags)
        assert design.base(options).system_mttf_hours == swept.system_mttf_hours == (
            10 * 24 / (128 // (unit or 1)))
    # Mira's racks at 92.9 days are the default failure rate
    assert design.base(StudyOptions(mttf_days=92.9)).key() == design.base(StudyOptions()).key()
    shown = set(re.findall(r"--[\w-]+", commands()["study"].format_help()))
    assert "--mttf-days" in shown and "--system-mttf-hours" not in shown
    assert failed(capsys, "study", "topper_fig12", "--trace", trace, "--mttf-days", 10,
                  "--system-mttf-hours", 3) == (
        "cpn study: error: give --mttf-days (a unit's) or --system-mttf-hours (the "
        "machine's), not both")
    assert "fig13 (PuPPET) does not use --mttf-days;" in failed(
        capsys, "study", "fig13", "--mttf-days", 10)


def test_sweep_refuses_units_that_do_not_divide_the_machine(trace, capsys):
    assert failed(capsys, "sweep", "--trace", trace, "--resilience", "checkpoint",
                  "--unit-nodes", 3) == (
        "cpn sweep: error: the machine's 128 nodes are not a whole number of 3-node "
        "units: pass --unit-nodes (1 for node failures)")


# -- errors in the user's words ------------------------------------------------------


@pytest.mark.parametrize("command", ["run", "sweep"])
@pytest.mark.parametrize("flag, value, message", [
    ("--max-wait", "-5", "must be >= 0, not -5"),
    ("--wait-queue", "2.5", "'2.5' is not a whole number"),
    ("--unit-nodes", "0", "must be at least 1, not 0"),
    ("--machine-nodes", "-4", "must be at least 1, not -4"),
    ("--alpha", "0", "must be positive, not 0"),
    ("--redundancy", "0.5", "must be >= 1, not 0.5"),
    ("--idle-fraction", "nan", "must be within [0, 1], not nan"),
])
def test_bad_values_are_refused_as_typed(capsys, command, flag, value, message):
    assert refused(capsys, command, flag, value) == (
        f"cpn {command}: error: argument {flag}: {message}")


@pytest.mark.parametrize("argv, message", [
    (["sweep", "--month", "abc"], "cpn sweep: error: argument --month: months are a list "
                                  "(0,1,2 or 0-3), 'all' or 'none', not 'abc'"),
    (["study", "fig10", "--seeds", "abc"], "cpn study: error: argument --seeds: seeds are a "
                                           "list (0,1,2 or 0-4), not 'abc'"),
    # A range that ends before it starts ran no month: "axis 'month' has no values".
    (["sweep", "--month", "5-2"], "cpn sweep: error: argument --month: months are a list "
                                  "(0,1,2 or 0-3), 'all' or 'none', not '5-2'"),
    (["study", "fig13", "--months", "3-1"], "cpn study: error: argument --months: months are "
                                            "a list (0,1,2 or 0-3), 'all' or 'none', not '3-1'"),
    # An empty item was dropped: one of the values meant was left out unsaid.
    (["sweep", "--policy", "fcfs,,wfp"], "cpn sweep: error: argument --policy: 'fcfs,,wfp' has "
                                         "an empty item")])
def test_lists_are_refused_saying_what_a_list_is(capsys, argv, message):
    # argparse had said "invalid parse_months value", and --seeds spoke of months.
    assert refused(capsys, *argv) == message


def test_workers_must_be_at_least_one(capsys):
    assert refused(capsys, "sweep", "--workers", "0") == (
        "cpn sweep: error: argument --workers: must be at least 1, not 0")


@pytest.mark.parametrize("command", ["run", "sweep"])
def test_an_unknown_machine_size_asks_for_the_flag(tmp_path, capsys, command):
    headless = swf(tmp_path / "headless.swf", None)
    extra = ["--month", "all"] if command == "sweep" else []
    line = failed(capsys, command, "--trace", headless, *extra, "--out", tmp_path / "out")
    assert line.endswith("pass --machine-nodes") and "machine_nodes" not in line


def test_parameters_are_put_as_flags_but_not_inside_paths():
    run = commands()["run"]
    assert in_flags("/data/procs_per_node.swf: pass procs_per_node", run) == (
        "/data/procs_per_node.swf: pass --procs-per-node")


def test_version_comes_from_the_package_metadata(capsys):
    from importlib.metadata import version as installed
    with pytest.raises(SystemExit) as exit_:
        main(["--version"])
    assert exit_.value.code == 0
    assert capsys.readouterr().out == f"cpn {installed('cpn')}\n" == f"cpn {version()}\n"


def test_every_option_of_every_command_has_a_help_line():
    for name, parser in commands().items():
        parser.format_help()  # a stray % in a help text would raise here
        for action in parser._actions:
            if action.help is not argparse.SUPPRESS:
                assert action.help, f"{name} {'/'.join(action.option_strings) or action.dest}"


# -- power plots ---------------------------------------------------------------------


@pytest.mark.parametrize("watts, label, title", [
    (128 * 64.2, "Power (kW)", "System power (peak 8.22 kW)"),
    (49_152 * 64.2, "Power (MW)", "System power (peak 3.16 MW)"),
    (4 * 64.2, "Power (W)", "System power (peak 256.80 W)"),
])
def test_power_plots_choose_their_unit_from_the_data(tmp_path, monkeypatch, watts, label,
                                                     title):
    from modules import plots

    drawn = []
    save = plots.save_figure

    def keep_labels(fig, path):
        (axes,) = fig.axes
        drawn.append((axes.get_ylabel(), axes.get_title()))
        return save(fig, path)

    monkeypatch.setattr(plots, "save_figure", keep_labels)
    plots.plot_power([0, 3600], [watts / 2, watts], tmp_path / "power.png", end=7200)
    assert drawn == [(label, title)]


def test_failures_of_a_machine_in_processors_are_said_in_processors(tmp_path, capsys):
    """--unit procs counts processors: the failures line said nodes."""
    trace = tmp_path / "mixed.swf"
    trace.write_text("; MaxNodes: 3\n; MaxProcs: 10\n"
                     "1 0 -1 100 4 -1 -1 4 200 -1 1 1 1 1 1 -1 -1 -1\n")
    assert main(["run", "--trace", str(trace), "--unit", "procs", "--resilience",
                 "checkpoint", "--out", str(tmp_path / "out"), "--no-plots"]) == 0
    printed = " ".join(capsys.readouterr().out.split())
    assert ("failures: 10 units of 1 processor (by default 1,024-processor racks on a machine "
            "made of them, else single processors; --unit-nodes to choose)") in printed
