"""The DVFS thesis (Etinski, "DVFS Power Management in HPC Systems",
chapters 3-5) as modules of the PuPPET scheduling net.

- ``gears.py``: the gear table (Table 3.2) and a job's time and CPU power
  at a gear (eqs. 3.1, 3.5-3.12);
- ``profiles.py``: each job's parallel efficiency ``p`` and ``beta_comp``
  (section 3.2.1, Table 3.1), drawn seeded or read from a file;
- ``metrics.py``: the job performance and energy metrics of section 3.4;
- ``plan.py``: what a scheduler knows during one pass (CPUs and power now
  and at later ends, predicted BSLD, eq. 4.3);
- ``easy.py``: EASY backfilling with a gear per job (section 1.3.1), with
  or without a power budget (section 5.2.2.1);
- ``upas.py``, ``bsld_driven.py``, ``pb_guided.py``, ``max_job_perf.py``
  (with ``chunk_solver.py``): the policies of sections 4.2, 4.3, 5.2, 5.3;
- ``scheduler_net.py``: the scheduler and allocation modules that plug the
  policies into ``nets.puppet.compose``.
"""
