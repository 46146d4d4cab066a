"""``cpn`` in a child process, measured: its CPU seconds and peak memory
(``wait4``), or the machine instructions it runs (callgrind); and what it
wrote, read back (the schedule's digest, the waits).  A child process is
what a user runs, imports and start-up included."""

from __future__ import annotations

import csv
import hashlib
import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def cpn_run(trace: Path, flags: list[str], out: Path, cache: Path,
            bytecode: Path | None = None) -> tuple[float, int]:
    """``cpn run`` in a child process: ``(its CPU seconds, its peak RSS in kB)``
    (``bytecode``: see :func:`cpn_command`)."""
    return cpn_command(["run", "--trace", str(trace), "--out", str(out), *flags], cache,
                       bytecode)


def cpn_command(arguments: list[str], cache: Path,
                bytecode: Path | None = None) -> tuple[float, int]:
    """``cpn ARGUMENTS`` in a child process: ``(its CPU seconds, its peak RSS
    in kB)``.  With ``bytecode`` (a directory), the modules' compiled
    bytecode is kept there and read back, as an installed package's is,
    even where the environment sets ``PYTHONDONTWRITEBYTECODE`` (which
    compiles every module of ours from source at each start)."""
    command = [sys.executable, "-m", "cli.main", *arguments]
    environment = {**os.environ, "XDG_CACHE_HOME": str(cache)}
    if bytecode is not None:
        environment.pop("PYTHONDONTWRITEBYTECODE", None)
        environment["PYTHONPYCACHEPREFIX"] = str(bytecode)
    child = subprocess.Popen(command, cwd=ROOT, env=environment, stdout=subprocess.DEVNULL,
                             stderr=subprocess.PIPE)
    _, status, usage = os.wait4(child.pid, 0)
    child.returncode = os.waitstatus_to_exitcode(status)
    if child.returncode:
        raise SystemExit(f"cpn {' '.join(arguments)} failed:\n{child.stderr.read().decode()}")
    child.stderr.close()
    return usage.ru_utime + usage.ru_stime, usage.ru_maxrss


def schedule_digest(jobs_csv: Path) -> str:
    """12 hex digits of the SHA-256 of the (job_id, start, end) rows of a
    jobs.csv, sorted: what the bench's recorded schedules are."""
    rows = []
    with open(jobs_csv) as stream:
        for row in csv.DictReader(stream):
            rows.append(f"{row['job_id']},{float(row['start']):.3f},{float(row['end']):.3f}")
    return hashlib.sha256("\n".join(sorted(rows)).encode()).hexdigest()[:12]


def waits_of(jobs_csv: Path) -> dict[int, float]:
    """Each job's wait in a jobs.csv, to the millisecond."""
    with open(jobs_csv) as stream:
        return {int(row["job_id"]): round(float(row["start"]) - float(row["submit"]), 3)
                for row in csv.DictReader(stream)}


def durations_of(jobs_csv: Path) -> dict[int, float]:
    """How long each job of a jobs.csv ran, from its start to its end."""
    with open(jobs_csv) as stream:
        return {int(row["job_id"]): float(row["end"]) - float(row["start"])
                for row in csv.DictReader(stream)}


def child_cpu(command: list[str]) -> float:
    """CPU seconds of ``command`` run in a child process."""
    child = subprocess.Popen(command)
    _, _, usage = os.wait4(child.pid, 0)
    return usage.ru_utime + usage.ru_stime


def callgrind_instructions(command: list[str], environment: dict) -> int:
    """Instructions ``command`` executes, counted by callgrind."""
    counted = subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null",
                              *command], cwd=ROOT, env=environment, stdout=subprocess.DEVNULL,
                             stderr=subprocess.PIPE, text=True)
    if counted.returncode:
        raise SystemExit(f"{' '.join(command)} failed under valgrind:\n{counted.stderr}")
    match = re.search(r"Collected : (\d+)", counted.stderr)
    if match is None:
        raise SystemExit(f"callgrind printed no count:\n{counted.stderr}")
    return int(match.group(1))
