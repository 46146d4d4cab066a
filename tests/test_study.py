"""The one study framework and ``cpn study``: every paper's study by name,
with the options it uses and none other, through one run_study."""

import ast
from pathlib import Path

import pandas as pd
import pytest

from cli.main import main as cpn
from studies.experiment import Experiment
from studies.experiment_fields import SYNTHETIC
from studies.registry import STUDIES, find_study
from studies.study import Check, Study, StudyOptions, check_options, run_study
from studies.workloads import study_months
from tiny_traces import write_two_month_trace

ROOT = Path(__file__).resolve().parents[1]
NAMES = ["fig10", "fig11", "fig12", "fig13", "fig14", "fig15", "fig16",
         *(f"topper_fig{n}" for n in range(11, 18)),
         "thesis_upas", "thesis_bsld_driven", "thesis_power_budget", "thesis_pb_guided",
         "thesis_max_job_perf", "data_driven"]


@pytest.fixture(scope="module")
def trace(tmp_path_factory) -> Path:
    """A hand-made 8-node SWF: 40 jobs in month 0, 8 in month 1."""
    return write_two_month_trace(tmp_path_factory.mktemp("swf") / "tiny.swf", nodes=8,
                                 seed=7, later_jobs=8, later_gap=3600, max_procs=16)


def test_one_registry_holds_every_study_of_the_three_papers():
    assert list(STUDIES) == NAMES
    assert all(isinstance(study, Study) for study in STUDIES.values())
    papers = [study.paper for study in STUDIES.values()]
    assert papers == (["PuPPET"] * 7 + ["TOPPER"] * 7 + ["DVFS thesis"] * 5
                      + ["Data-driven"])
    assert find_study("topper_fig13").heading == "TOPPER Fig. 13: redundancy degree r (\u03b3 = 30 %)"
    with pytest.raises(ValueError, match="no study 'fig9'; the studies are fig10, fig11"):
        find_study("fig9")


def test_cpn_study_help_names_every_default_directory_of_runs(capsys):
    """--results' help named three of the four (data-driven's
    out/data_driven_runs was missing)."""
    with pytest.raises(SystemExit):
        cpn(["study", "--help"])
    said = " ".join(capsys.readouterr().out.split())
    for results in {study.design.results for study in STUDIES.values()}:
        assert results in said


def test_cpn_study_list_names_paper_figure_and_title(capsys):
    assert cpn(["study", "--list"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split() == ["name", "paper", "figure", "title"]
    assert [line.split()[0] for line in lines[1:]] == NAMES
    assert " ".join(lines[1].split()) == \
        "fig10 PuPPET Fig. 10 DVFS under frequency-to-power exponents alpha"
    assert "DVFS thesis  Table 5.4, Figs. 5.11-5.14  PB-guided policy (section 5.2)" in lines[-3]


@pytest.mark.parametrize("argv, message", [
    (["fig10", "--jobs", "1-40"], "fig10 (PuPPET) does not use --jobs; it uses --trace, "
                                  "--months,"),
    (["topper_fig11", "--values", "1,2"], "topper_fig11 (TOPPER) does not use --values;"),
    (["thesis_upas", "--months", "0", "--cap", "50%"],
     "thesis_upas (DVFS thesis) does not use --months, --cap; it uses --trace, --cpus, "
     "--jobs, --profile-seed, --profiles"),
    (["fig13", "--on-failure", "requeue"], "fig13 (PuPPET) does not use --on-failure;"),
    (["fig13", "--checkpoint-interval", "30"],
     "fig13 (PuPPET) does not use --checkpoint-interval;"),
    (["thesis_upas", "--checkpoint-interval", "30"],
     "thesis_upas (DVFS thesis) does not use --checkpoint-interval;"),
    (["data_driven", "--checkpoint-interval", "30"],
     "data_driven (Data-driven) does not use --checkpoint-interval;"),
    (["fig10", "--seeds", "0-2"], "the PuPPET figures' bars are single runs: give one seed, "
                                  "not 3 (0, 1, 2)"),
    (["fig10", "--values", "1,x"], "the values of alpha are numbers, not 1, x"),
    (["nope"], "no study 'nope'"),
    ([], "name a study (cpn study --list shows them)"),
])
def test_options_a_study_does_not_use_are_refused(argv, message, tmp_path, capsys):
    assert cpn(["study", *argv, "--out", str(tmp_path)]) == 2
    error = capsys.readouterr().err
    assert error.startswith("cpn study: error: ") and message in error
    assert not list(tmp_path.iterdir())  # nothing ran


def test_bad_option_values_are_refused_by_the_parser(capsys):
    with pytest.raises(SystemExit):
        cpn(["study", "fig10", "--months", "0-x"])
    assert "months are a list (0,1,2 or 0-3), 'all' or 'none', not '0-x'" in \
        capsys.readouterr().err
    with pytest.raises(SystemExit):
        cpn(["study", "thesis_upas", "--jobs", "40"])
    assert "job numbers are FIRST-LAST (10001-15000), not '40'" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        cpn(["study", "fig13", "--cap-month", "mine"])
    assert "argument --cap-month: 'mine' is neither a month (0, 1, ...) nor own" in capsys.readouterr().err


def test_the_python_api_refuses_unused_options_too():
    with pytest.raises(ValueError, match=r"fig11 \(PuPPET\) does not use unit_nodes, cpus; "):
        check_options(STUDIES["fig11"], StudyOptions(unit_nodes=4, cpus=8, cap=0.5))
    check_options(STUDIES["topper_fig11"], StudyOptions(unit_nodes=4, cap=0.5))  # uses both
    with pytest.raises(ValueError, match=r"fig11 \(PuPPET\) does not use "
                                         r"checkpoint_interval_minutes; "):
        check_options(STUDIES["fig11"], StudyOptions(checkpoint_interval_minutes=30))
    check_options(STUDIES["topper_fig13"], StudyOptions(checkpoint_interval_minutes=30))


def test_a_missing_thesis_trace_is_refused_naming_its_flag(tmp_path, capsys):
    with pytest.raises(SystemExit) as exit_:
        cpn(["study", "thesis_upas", "--trace", str(tmp_path / "none.swf")])
    assert exit_.value.code == 2
    assert capsys.readouterr().err.strip().splitlines()[-1] == (
        f"cpn study: error: argument --trace: no such file: {tmp_path / 'none.swf'}")


def test_study_months(trace):
    assert study_months(Experiment()) == [0, 1]  # the synthetic month: draws 0 and 1
    assert study_months(Experiment(trace=str(trace))) == [0, 1]  # its two windows
    assert study_months(Experiment(trace=str(trace)), "all") == [0, 1]
    assert study_months(Experiment(trace=str(trace)), "none") == [None]
    assert study_months(Experiment(), [3, 5]) == [3, 5]
    with pytest.raises(ValueError, match="the synthetic workload has as many months"):
        study_months(Experiment(trace=SYNTHETIC), "all")


def test_puppet_and_topper_studies_run_the_synthetic_mira_months_by_default():
    """The papers ran Mira's jobs on Mira: by default their studies run the
    Mira-like months (January's load, then March's), whatever ../shared holds."""
    papers = [study for study in STUDIES.values() if study.paper in ("PuPPET", "TOPPER")]
    assert len(papers) == 14
    for study in papers:
        base = study.design.base(StudyOptions())
        assert base.trace == SYNTHETIC, study.name
        assert study_months(base) == [0, 1]
        given = study.design.base(StudyOptions(trace="other.swf"))
        assert given.trace.endswith("other.swf"), study.name


def test_cpn_study_runs_a_puppet_figure_like_run_study(trace, tmp_path, capsys):
    argv = ["study", "fig13", "--trace", str(trace), "--months", "all", "--cap", "60%",
            "--out", str(tmp_path / "cli"), "--results", str(tmp_path / "runs"),
            "--workers", "1", "--no-progress"]
    assert cpn(argv) == 0
    printed = capsys.readouterr().out.splitlines()
    assert printed[0] == "PuPPET Fig. 13: power-aware allocation: BLOCK versus WAIT"
    assert printed[1] == (f"trace {trace}: month 0, month 1; "
                          "caps as fractions of the uncapped peak of month 0")
    checks = printed[printed.index("checks against the paper's findings:") + 1:-1]
    # the same verdicts as run_study gives on this trace (tests/test_sweep.py)
    assert [line.split()[0] for line in checks] == [
        "PASS", "DIFFERS", "DIFFERS", "PASS", "DIFFERS", "DIFFERS", "PASS"]
    files = [tmp_path / "cli" / f"fig13{end}" for end in (".csv", ".png", "_checks.txt")]
    assert printed[-1] == f"wrote {files[0]}, {files[1]} and {files[2]}"
    # not the page's rows: its explanations are of the synthetic workload's numbers
    assert not (tmp_path / "cli" / "fig13_findings.md").exists()
    # the 60 % cap is below the power of 28 of the 40 jobs of month 0: said once
    # before the checks and at the end of the checks' file
    note = ("note: 8 of the 8 runs left out jobs over the power cap alone (up to 28 jobs: "
            "rejected_jobs in the results); their metrics are over the jobs that ran")
    assert printed[printed.index("checks against the paper's findings:") - 1] == note
    assert files[2].read_text().splitlines() == [*(line[2:] for line in checks), note]
    outcome = run_study(STUDIES["fig13"], StudyOptions(trace=str(trace), months="all", cap=0.6),
                        out=tmp_path / "api", results=tmp_path / "runs", progress=False)
    assert (tmp_path / "api" / "fig13.csv").read_text() == files[0].read_text()
    assert outcome.report()[2:-1] == printed[2:-1]
    assert len(pd.read_csv(files[0])) == 2 * 2 * 2  # policies x months x (BLOCK, WAIT)


def test_a_study_of_its_own_runs_writes_its_rows_of_the_findings_table(trace, tmp_path,
                                                                     monkeypatch):
    """Only the runs the claims are about write the page's rows (here the
    test trace's stand in for them): their verdicts, and the comparison."""
    study, options = STUDIES["fig13"], StudyOptions(trace=str(trace), months="all", cap=0.6)
    monkeypatch.setattr(Study, "default_runs", lambda self: self.design.runs(
        self.design.base(options), options))
    outcome = run_study(study, options, out=tmp_path / "out", results=tmp_path / "runs",
                        workers=1, progress=False)
    findings = tmp_path / "out" / "fig13_findings.md"
    assert findings in outcome.files
    rows = findings.read_text().splitlines()
    assert [row.split(" | ")[4] for row in rows] == [check.verdict for check in outcome.checks]
    assert outcome.unlike_claims is not None


def test_a_study_of_whole_traces_says_their_caps_are_shares_of_their_own_peaks(
        trace, tmp_path, capsys):
    # --months none runs the whole trace, capped at a share of its own
    # uncapped peak; the heading said "of month 0"
    argv = ["study", "fig13", "--trace", str(trace), "--months", "none", "--out",
            str(tmp_path / "out"), "--results", str(tmp_path / "runs"), "--workers", "1",
            "--no-progress"]
    assert cpn(argv) == 0
    assert capsys.readouterr().out.splitlines()[1] == (
        f"trace {trace}: all; caps as fractions of the whole trace's uncapped peak")


def test_cpn_study_runs_the_topper_figures_with_their_options(trace, tmp_path, capsys):
    argv = ["study", "topper_fig12", "--trace", str(trace), "--months", "none",
            "--system-mttf-hours", "3", "--seeds", "0,1", "--on-failure", "requeue",
            "--out", str(tmp_path), "--results", str(tmp_path / "runs"), "--workers", "1",
            "--no-progress"]
    assert cpn(argv) == 0
    printed = capsys.readouterr().out.splitlines()
    assert printed[1] == ("the whole trace of tiny, wfp, checkpoint, system MTTF 3 h, failed "
                          "jobs requeued; means over seeds 0, 1")
    table = pd.read_csv(tmp_path / "topper_fig12.csv")
    assert list(table["variant"]) == ["O_c 100%", "O_c 50%", "O_c 25%"]
    assert (table["seeds"] == 2).all() and table["month"].isna().all()


def test_failed_runs_end_the_study_with_one_line(trace, tmp_path, capsys):
    argv = ["study", "topper_fig11", "--trace", str(trace), "--months", "0",
            "--unit-nodes", "3", "--out", str(tmp_path), "--results", str(tmp_path / "runs"),
            "--workers", "1", "--no-progress"]
    assert cpn(argv) == 1
    error = capsys.readouterr().err
    assert error.startswith("cpn study: error: 2 runs failed: ")
    assert "the machine's 8 nodes are not a whole number of 3-node units" in error
    assert len(error.splitlines()) == 1


def test_check_lines_say_pass_differs_or_not_applicable():
    assert str(Check("WAIT beats BLOCK", True, "holds in all 2 cases")) == \
        "PASS     WAIT beats BLOCK: holds in all 2 cases"
    assert str(Check("x", False, "y")).startswith("DIFFERS  x")
    assert Check("x", None, "not measurable on these runs").verdict == "N/A"


def test_nets_never_import_studies():
    """Layers: studies/ is built on nets/, never the other way round."""
    for path in (ROOT / "nets").glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                names = [alias.name for alias in node.names] if isinstance(node, ast.Import) \
                    else [node.module or ""]
                assert not any(name.split(".")[0] in ("studies", "cli") for name in names), \
                    f"{path.name} imports {names}"
