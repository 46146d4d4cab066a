"""Job performance and CPU energy metrics of the thesis (section 3.4).

Over per-job records with the columns ``submit, start, end, cpus,
runtime_nominal, requested, frequency_ghz, watts`` (seconds, CPUs, GHz,
watts; ``end - start`` is the runtime at the job's gear):

- ``bsld`` (eq. 3.15): ``max((wait + runtime at its gear) / max(Th,
  nominal runtime), 1)``, Th = 600 s: the frequency penalty counts;
  ``bsld_eq_3_14``: eq. 3.14 with the runtime the job had;
- ``slowdown`` (eq. 3.13): ``(wait + runtime) / runtime``, over jobs that
  ran at least a second (a zero runtime has no slowdown);
- ``utilization`` (eq. 3.16): CPU-seconds run over the machine's during
  the makespan (first submission to last end);
- ``load_requested`` (eq. 3.17): the time average of the CPUs running and
  queued over the machine's, i.e. ``sum CPUs (end - submit) / (N T)``;
- waits: mean, max, standard deviation; ``frequency_mean_ghz``: the
  frequency of a busy CPU, averaged over CPU-seconds (Table 5.3's "mean
  frequency of a running CPU"); ``frequency_job_mean_ghz``: the jobs'
  frequencies averaged over the jobs, like their BSLD and wait (Table
  5.4's "mean job BSLD, wait time and frequency"): short jobs, which
  scale most, weigh as much as long ones there; ``frequency_job_mean_cpus_ghz``:
  the same over the jobs that have CPUs (a job of none also gets a gear);
- CPU energy: ``energy_computational_j`` (busy CPUs only, idle ones at
  0 W) and ``energy_total_j`` (idle CPUs at the lowest gear), and
  ``energy_bsld``: total energy times mean BSLD (the trade-off of Figs.
  4.3, 4.8 and 4.15 once normalised to a baseline).
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from .gears import CpuPowerModel
from .plan import BSLD_THRESHOLD_S


def thesis_metrics(jobs: pd.DataFrame, machine_cpus: int, power: CpuPowerModel,
                   threshold: float = BSLD_THRESHOLD_S) -> dict:
    submit, start, end = (jobs[c].to_numpy(float) for c in ("submit", "start", "end"))
    cpus = jobs["cpus"].to_numpy(float)
    nominal = jobs["runtime_nominal"].to_numpy(float)
    runtime, wait = end - start, start - submit
    makespan = float(end.max() - submit.min())
    busy = float((cpus * runtime).sum())
    computational = float((jobs["watts"].to_numpy(float) * runtime).sum())
    idle_watts = power.cpu_watts(0, power.a_comm)
    total = computational + idle_watts * (machine_cpus * makespan - busy)
    bsld = np.maximum((wait + runtime) / np.maximum(threshold, nominal), 1.0)
    ran = runtime >= 1.0
    return {
        "jobs": int(len(jobs)),
        "bsld": float(bsld.mean()),
        "bsld_eq_3_14": float(np.maximum((wait + runtime) / np.maximum(threshold, runtime),
                                         1.0).mean()),
        "slowdown": (float(((wait[ran] + runtime[ran]) / runtime[ran]).mean()) if ran.any()
                     else math.nan),
        "utilization": _share(busy, machine_cpus * makespan),
        "load_requested": _share(float((cpus * (end - submit)).sum()), machine_cpus * makespan),
        "wait_mean_s": float(wait.mean()),
        "wait_max_s": float(wait.max()),
        "wait_std_s": float(wait.std()),
        "wait_p95_s": float(np.percentile(wait, 95)),
        "runtime_mean_s": float(runtime.mean()),
        "frequency_mean_ghz": _share(float((jobs["frequency_ghz"].to_numpy(float) * cpus
                                            * runtime).sum()), busy),
        "frequency_job_mean_ghz": float(jobs["frequency_ghz"].to_numpy(float).mean()),
        "frequency_job_mean_cpus_ghz": float(jobs["frequency_ghz"].to_numpy(float)[cpus > 0]
                                             .mean()) if (cpus > 0).any() else float("nan"),
        "energy_computational_j": computational,
        "energy_total_j": total,
        "energy_bsld": total * float(bsld.mean()),
        "makespan_s": makespan,
    }


def _share(part: float, whole: float) -> float:
    """``part / whole``, NaN when there is no whole: jobs that all arrive
    and leave at once (runtime 0, as the thesis keeps them) make no
    makespan and no busy time."""
    return part / whole if whole else math.nan
