"""The DVFS thesis' evaluations (chapters 4-5) on LLNL-Atlas, as studies.

Each study runs the EASY baseline (no DVFS, no budget) and a grid of one
policy's parameters on the thesis' portion of a trace (Atlas: jobs 10K-15K
on 9,216 CPUs, Table 3.4) through ``nets.sweep.run_sweep`` (runs are
:class:`~nets.dvfs_thesis_runs.ThesisRun`; a results directory shared by
the studies keeps each once), writes ``<name>.csv`` (absolute metrics, and
``*_norm``: normalised to the EASY baseline, like the thesis' figures) and
``<name>.png``, and prints our numbers beside the thesis' for Atlas: its
direction of change (PASS / DIFFERS, never tuned until it passes) and,
where a table gives one, its value.  Thesis values are for LLNL-Atlas;
with another trace only the directions mean something.

- ``upas``: WQ_threshold 0, 4, 16, NO (Figs. 4.4-4.8);
- ``bsld_driven``: BSLD_threshold 1.5, 2, 3 x WQ_threshold (Figs. 4.11-4.16);
- ``power_budget``: power-constrained EASY at 60, 70, 80 % (section 5.2.2.1);
- ``pb_guided``: PB-guided against it at 60, 70, 80 %, beta known or not
  (Table 5.4), other P thresholds (Figs. 5.11-5.14);
- ``max_job_perf``: MaxJobPerf against both at 60, 70, 80 %, reservations
  none / size 30 % / size 50 % / time (Tables 5.5-5.6), and without budget
  (Fig. 5.22).
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Sequence

import numpy as np
import pandas as pd

from .dvfs_thesis_runs import ATLAS, ThesisRun, parse_job_numbers
from .sweep import load_results, run_sweep

#: A study's runs: each with the label its table and checks know it by.
Runs = list[tuple[str, ThesisRun]]
PLOTTED = {"energy_computational_j_norm": "CPU energy, idle CPUs off",
           "energy_total_j_norm": "CPU energy, idle CPUs at the lowest gear",
           "bsld_norm": "mean BSLD (eq. 3.15)", "wait_mean_s_norm": "mean wait",
           "energy_bsld_norm": "energy x BSLD"}
MINUTES, HOURS = 60.0, 3600.0

#: The thesis' tables for LLNL-Atlas (5.5 and 5.6: waits in minutes and hours).
TABLE_3_5 = {"bsld": 1.08, "utilization": 0.7525, "load_requested": 0.94}
TABLE_5_4 = {"no beta": {"bsld": 4.39, "wait_mean_s": 2606, "frequency_mean_ghz": 1.68},
             "beta": {"bsld": 3.83, "wait_mean_s": 2258, "frequency_mean_ghz": 1.66}}
TABLE_5_5 = {"base": (14.57, 169, 26.46, 303), "noRes": (2.11, 18, 13.52, 64),
             "Res": (5.46, 66, 30.83, 203)}
TABLE_5_6 = {"time": (2.11, 18, 12.86, 63), "30%": (5.23, 62, 29.27, 191),
             "50%": (5.46, 66, 30.83, 203)}


@dataclass(frozen=True)
class Check:
    finding: str
    passed: bool
    detail: str

    def __str__(self) -> str:
        return f"{'PASS' if self.passed else 'DIFFERS':7}  {self.finding}: {self.detail}"


def _row(table: pd.DataFrame, label: str) -> pd.Series:
    return table.set_index("label").loc[label]


def _tables_5_5(row: pd.Series) -> str:
    return (f"BSLD {row['bsld']:.2f}, wait mean {row['wait_mean_s'] / MINUTES:.0f} min, "
            f"max {row['wait_max_s'] / HOURS:.2f} h, std {row['wait_std_s'] / MINUTES:.0f} min")


def _thesis_5_5(values) -> str:
    return (f"BSLD {values[0]}, wait mean {values[1]} min, max {values[2]} h, "
            f"std {values[3]} min")


# ---------------------------------------------------------------------------
# The studies: runs, then checks on the table


def upas_runs(base: ThesisRun) -> Runs:
    return [(f"UPAS WQ={'NO' if w is None else w}", base.with_policy("upas", wq_threshold=w))
            for w in (0, 4, 16, None)]


def upas_checks(table: pd.DataFrame) -> list[Check]:
    upas = table[table["policy"] == "upas"]
    no = _row(table, "UPAS WQ=NO")
    saving = 1 - no["energy_total_j_norm"]
    energies = upas["energy_total_j_norm"].to_list()
    return [
        Check("UPAS saves CPU energy (Atlas ~10 %)", bool((upas["energy_total_j_norm"] < 1).all()),
              f"total energy saved {saving:.1%} at WQ=NO, computational "
              f"{1 - no['energy_computational_j_norm']:.1%}"),
        Check("mean BSLD never more than 50 % higher (Atlas ~30 % at WQ=NO)",
              bool((upas["bsld_norm"] <= 1.5).all()),
              ", ".join(f"{r.label}: x{r.bsld_norm:.2f}" for r in upas.itertuples())),
        Check("Atlas: WQ_threshold 4, 16, NO save almost the same, WQ=0 no more",
              bool(max(energies[1:]) - min(energies[1:]) <= 0.01
                   and energies[0] >= min(energies[1:]) - 1e-9),
              "normalised total energy " + ", ".join(f"{e:.4f}" for e in energies)),
        Check("idle power changes relative savings little (<= 0.8 % in the thesis)",
              bool((abs(upas["energy_total_j_norm"] - upas["energy_computational_j_norm"])
                    <= 0.008).all()),
              "largest difference " + f"{abs(upas['energy_total_j_norm'] - upas['energy_computational_j_norm']).max():.2%}"),
    ]


def bsld_driven_runs(base: ThesisRun) -> Runs:
    return [(f"BSLD<{t:g} WQ={'NO' if w is None else w}",
             base.with_policy("bsld_driven", bsld_threshold=t, wq_threshold=w))
            for t in (1.5, 2.0, 3.0) for w in (0, 4, 16, None)]


def bsld_driven_checks(table: pd.DataFrame) -> list[Check]:
    runs = table[table["policy"] == "bsld_driven"]
    best = runs.loc[runs["energy_total_j_norm"].idxmin()]
    worst = runs.loc[runs["bsld_norm"].idxmax()]
    monotone = []
    for threshold in (1.5, 2.0, 3.0):
        energies = runs[runs["option_bsld_threshold"] == threshold]["energy_total_j_norm"]
        monotone.append(bool(np.all(np.diff(energies.to_numpy()) <= 1e-9)))
    return [
        Check("savings above 20 % for some parameters (thesis: up to 26 %)",
              bool(1 - best["energy_total_j_norm"] > 0.20),
              f"best {1 - best['energy_total_j_norm']:.1%} ({best['label']})"),
        Check("the largest BSLD penalty at BSLD_threshold 3, WQ NO",
              worst["label"] == "BSLD<3 WQ=NO",
              f"largest x{worst['bsld_norm']:.2f} at {worst['label']}"),
        Check("for a fixed BSLD_threshold a higher WQ_threshold saves more", all(monotone),
              f"monotone for thresholds 1.5, 2, 3: {monotone}"),
        Check("idle power at the lowest gear saves up to 4 % more than idle CPUs off",
              bool((runs["energy_computational_j_norm"] - runs["energy_total_j_norm"]
                    >= -1e-9).all()),
              "largest difference " + f"{(runs['energy_computational_j_norm'] - runs['energy_total_j_norm']).max():.2%}"),
    ]


def power_budget_runs(base: ThesisRun) -> Runs:
    return ([(f"EASY {b:.0%}", base.with_policy("easy", budget_fraction=b))
             for b in (0.8, 0.7, 0.6)]
            + [("EASY 70% alone", base.with_policy("easy", budget_fraction=0.7,
                                                   oversized="alone"))])


def power_budget_checks(table: pd.DataFrame) -> list[Check]:
    runs = [_row(table, f"EASY {b}%") for b in (80, 70, 60)]
    bslds = [r["bsld"] for r in runs]
    return [
        Check("a tighter budget makes jobs wait longer (BSLD rises)",
              bool(np.all(np.diff(bslds) >= -1e-9)),
              ", ".join(f"{b}%: {v:.2f}" for b, v in zip((80, 70, 60), bslds))),
        Check("Table 5.5 baseline at 70 % (thesis " + _thesis_5_5(TABLE_5_5["base"]) + ")",
              bool(runs[1]["bsld"] > 1.5 * _row(table, "EASY")["bsld"]),
              "ours " + _tables_5_5(runs[1]) + f"; jobs over the budget alone only when "
              f"nothing else runs: BSLD {_row(table, 'EASY 70% alone')['bsld']:.2f}"),
    ]


def pb_guided_runs(base: ThesisRun) -> Runs:
    """PB-guided's BSLD_lower is left unset: measured on EASY (the baseline)."""
    runs = [(f"EASY {b:.0%}", base.with_policy("easy", budget_fraction=b))
            for b in (0.8, 0.7, 0.6)]
    runs += [(f"PB {b:.0%}", base.with_policy("pb_guided", budget_fraction=b))
             for b in (0.8, 0.7, 0.6)]
    runs += [("PB 70% beta", base.with_policy("pb_guided", beta="oracle")),
             ("PB 70% P 80/90", base.with_policy("pb_guided", p_lower=0.8, p_upper=0.9)),
             ("PB 70% P 80/95", base.with_policy("pb_guided", p_lower=0.8, p_upper=0.95))]
    return runs


def pb_guided_checks(table: pd.DataFrame) -> list[Check]:
    pairs = [(b, _row(table, f"EASY {b}%"), _row(table, f"PB {b}%")) for b in (80, 70, 60)]
    no_beta, beta = _row(table, "PB 70%"), _row(table, "PB 70% beta")

    def table_5_4(row, key):
        ref = TABLE_5_4[key]
        return (f"{key}: BSLD {row['bsld']:.2f} (thesis {ref['bsld']}), wait "
                f"{row['wait_mean_s']:.0f} s ({ref['wait_mean_s']}), frequency "
                f"{row['frequency_mean_ghz']:.2f} GHz ({ref['frequency_mean_ghz']})")
    return [
        Check("PB-guided beats the power-constrained baseline at every budget (BSLD)",
              all(pb["bsld"] < easy["bsld"] for _, easy, pb in pairs),
              ", ".join(f"{b}%: {easy['bsld']:.2f} -> {pb['bsld']:.2f}"
                        for b, easy, pb in pairs)),
        Check("DVFS lengthens runtimes (Table 5.2, Atlas 905 -> 1,022 s at 70 %)",
              bool(no_beta["runtime_mean_s"] > pairs[1][1]["runtime_mean_s"]),
              f"{pairs[1][1]['runtime_mean_s']:.0f} -> {no_beta['runtime_mean_s']:.0f} s"),
        Check("Table 5.4: knowing beta changes BSLD little (Atlas -13 %) and lowers the "
              "frequency (beta = 1 overestimates the slowdown)",
              bool(abs(beta["bsld"] / no_beta["bsld"] - 1) <= 0.15
                   and beta["frequency_mean_ghz"] <= no_beta["frequency_mean_ghz"]),
              table_5_4(no_beta, "no beta") + "; " + table_5_4(beta, "beta")),
    ]


def max_job_perf_runs(base: ThesisRun) -> Runs:
    """Reservations by time wait for the 95th percentile of power-constrained
    EASY's waits at 70 %: left unset, measured on that run."""
    runs = pb_guided_runs(base)[:6]
    runs += [(f"MaxJobPerf {b:.0%}", base.with_policy("max_job_perf", budget_fraction=b))
             for b in (0.8, 0.7, 0.6)]
    runs += [("MaxJobPerf noRes", base.with_policy("max_job_perf", reservations="none")),
             ("MaxJobPerf 30%", base.with_policy("max_job_perf", job_size_limit=0.3)),
             ("MaxJobPerf time", base.with_policy("max_job_perf", reservations="time")),
             ("MaxJobPerf no budget", base.with_policy("max_job_perf", budget_fraction=1.0))]
    return runs


def max_job_perf_checks(table: pd.DataFrame) -> list[Check]:
    budgets = (80, 70, 60)
    easy, pb, mjp = ([_row(table, f"{name} {b}%") for b in budgets]
                     for name in ("EASY", "PB", "MaxJobPerf"))
    lines = {"base": easy[1], "Res": mjp[1], "noRes": _row(table, "MaxJobPerf noRes"),
             "time": _row(table, "MaxJobPerf time"), "30%": _row(table, "MaxJobPerf 30%")}
    unconstrained, plain = _row(table, "MaxJobPerf no budget"), _row(table, "EASY")
    detail = "; ".join(f"{name}: ours {_tables_5_5(row)} / thesis "
                       f"{_thesis_5_5({**TABLE_5_5, **TABLE_5_6}[name])}"
                       for name, row in lines.items())
    return [
        Check("MaxJobPerf beats the baseline at every budget (BSLD)",
              all(m["bsld"] < e["bsld"] for m, e in zip(mjp, easy)),
              ", ".join(f"{b}%: {e['bsld']:.2f} -> {m['bsld']:.2f}"
                        for b, e, m in zip(budgets, easy, mjp))),
        Check("MaxJobPerf close to or better than PB-guided (Atlas: PB sometimes as good)",
              all(m["bsld"] <= 1.1 * p["bsld"] for m, p in zip(mjp, pb)),
              ", ".join(f"{b}%: PB {p['bsld']:.2f}, MaxJobPerf {m['bsld']:.2f}"
                        for b, p, m in zip(budgets, pb, mjp))),
        Check("MaxJobPerf never exceeds the budget",
              all(r["budget_exceeded_s"] == 0 for r in mjp),
              "time over budget " + ", ".join(f"{r['budget_exceeded_s']:.0f} s" for r in mjp)),
        Check("Atlas: better without reservations than with size-based ones",
              bool(lines["noRes"]["bsld"] < lines["Res"]["bsld"]), detail),
        Check("without a budget: Atlas' BSLD better with EASY than with MaxJobPerf",
              bool(plain["bsld"] < unconstrained["bsld"]),
              f"EASY {plain['bsld']:.3f}, MaxJobPerf {unconstrained['bsld']:.3f}"),
    ]


STUDIES: dict[str, tuple[Callable, Callable, str]] = {
    "upas": (upas_runs, upas_checks, "UPAS (section 4.2)"),
    "bsld_driven": (bsld_driven_runs, bsld_driven_checks, "BSLD-driven policy (section 4.3)"),
    "power_budget": (power_budget_runs, power_budget_checks,
                     "power-constrained EASY (section 5.2.2.1)"),
    "pb_guided": (pb_guided_runs, pb_guided_checks, "PB-guided policy (section 5.2)"),
    "max_job_perf": (max_job_perf_runs, max_job_perf_checks, "MaxJobPerf (section 5.3)"),
}


def run_study(name: str, base: ThesisRun, out, results, workers: int | None = None,
              client=None, progress: bool = True
              ) -> tuple[pd.DataFrame, list[Check], Path, Path]:
    """Run study ``name`` on ``base``'s workload (through ``run_sweep``,
    on ``workers`` local processes or a Dask ``client``, keeping runs in
    ``results``); write CSV and PNG in ``out``."""
    make_runs, make_checks, title = STUDIES[name]
    base = base.baseline()
    runs = [("EASY", base), *make_runs(base)]
    summary = run_sweep([run for _, run in runs], results, workers=workers, client=client,
                        progress=progress, collect_results=False)
    summary.raise_unless_complete()
    stored = load_results(results).set_index("key")
    table = stored.loc[[run.key() for _, run in runs]].reset_index()
    table["label"] = [label for label, _ in runs]
    checks = make_checks(table)
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    csv = out / f"thesis_{name}.csv"
    table.to_csv(csv, index=False)
    png = plot(table, out / f"thesis_{name}.png", f"{title}, {Path(base.trace).name} "
               f"jobs {base.first_job}-{base.last_job}, normalised to EASY")
    return table, checks, csv, png


def plot(table: pd.DataFrame, path: Path, title: str) -> Path:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = table.iloc[1:]
    fig, axes = plt.subplots(1, len(PLOTTED), figsize=(3.3 * len(PLOTTED), 3.8 + 0.12 * len(rows)))
    for ax, (column, name) in zip(axes, PLOTTED.items()):
        values = rows[column].astype(float)
        ax.barh(np.arange(len(rows)), values, color="tab:blue")
        ax.axvline(1.0, color="black", linestyle="--", linewidth=0.8)
        ax.set_yticks(np.arange(len(rows)), rows["label"] if ax is axes[0] else [""] * len(rows),
                      fontsize=7)
        ax.invert_yaxis()
        if values.max() / max(values.min(), 1e-12) > 20:
            ax.set_xscale("log")
        ax.set_title(name, fontsize=9)
        ax.grid(axis="x", alpha=0.3)
    fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=120, bbox_inches="tight")
    plt.close(fig)
    return path


def _job_numbers(text: str) -> tuple[int, int]:
    try:
        return parse_job_numbers(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def main(name: str, argv: Sequence[str] | None = None) -> int:
    """The command line of ``examples/thesis_<name>.py``."""
    parser = argparse.ArgumentParser(
        prog=f"thesis_{name}", description=f"The DVFS thesis: {STUDIES[name][2]}. Writes "
        f"OUT/thesis_{name}.csv and .png and compares with the thesis (LLNL-Atlas).")
    parser.add_argument("--trace", default=str(ATLAS), help="SWF trace (default LLNL-Atlas "
                        "from ../shared/data)")
    parser.add_argument("--cpus", type=int, default=9216, help="machine CPUs (Atlas 9,216)")
    parser.add_argument("--jobs", type=_job_numbers, default="10001-15000",
                        help="job numbers (Table 3.4)")
    parser.add_argument("--profile-seed", type=int, default=0)
    parser.add_argument("--profiles", help="CSV job_id,p,beta_comp instead of the draw")
    parser.add_argument("--out", type=Path, default=Path("out") / "thesis")
    parser.add_argument("--results", type=Path, default=Path("out") / "thesis_runs")
    parser.add_argument("--workers", type=int, help="local worker processes (default: all "
                        "cores)")
    parser.add_argument("--scheduler", metavar="ADDRESS",
                        help="run on this Dask scheduler (tcp://host:8786) instead")
    parser.add_argument("--no-progress", action="store_true")
    args = parser.parse_args(argv)
    if not Path(args.trace).exists():
        parser.error(f"no trace at {args.trace}: give one with --trace")
    first, last = args.jobs
    base = ThesisRun(args.trace, machine_cpus=args.cpus, first_job=first, last_job=last,
                     profile_seed=args.profile_seed, profiles=args.profiles)
    client = None
    if args.scheduler:
        from distributed import Client
        client = Client(args.scheduler)
    try:
        table, checks, csv, png = run_study(name, base, args.out, args.results, args.workers,
                                            client, progress=not args.no_progress)
    finally:
        if client is not None:
            client.close()
    easy = table.iloc[0]
    print(f"The DVFS thesis: {STUDIES[name][2]} on {Path(args.trace).name}, "
          f"jobs {first}-{last}")
    print(f"EASY baseline: BSLD {easy['bsld']:.3f} (Table 3.5, Atlas: {TABLE_3_5['bsld']}), "
          f"utilization {easy['utilization']:.2%} ({TABLE_3_5['utilization']:.2%}), load "
          f"requested {easy['load_requested']:.2f} ({TABLE_3_5['load_requested']}), "
          f"{int(easy['jobs'])} jobs")
    shown = ["label", "bsld", "wait_mean_s", "frequency_mean_ghz", "utilization",
             *PLOTTED, "budget_exceeded_s"]
    print(table[shown].to_string(index=False, float_format=lambda v: f"{v:.3f}"))
    print("against the thesis (values: LLNL-Atlas):")
    for check in checks:
        print(f"  {check}")
    print(f"wrote {csv} and {png}")
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main(sys.argv[1]))
