"""Experiments, sweeps and the papers' studies: the layer between the nets and the command line.

It imports ``nets``, ``modules`` and ``cpn``; ``nets`` never imports it.

- Runs declared as data: :mod:`~studies.experiment` (PuPPET and TOPPER),
  :mod:`~studies.thesis_run` (the DVFS thesis), keyed by
  :mod:`~studies.run_keys`; an experiment's jobs (:mod:`~studies.workloads`),
  its nets' configurations (:mod:`~studies.configs`), its run
  (:mod:`~studies.running`, :mod:`~studies.power_series`).
- Sweeps: grids of runs (:mod:`~studies.grids`), run in parallel and
  resumably (:mod:`~studies.sweep`), stored atomically
  (:mod:`~studies.storage`), gathered into ``results.csv``
  (:mod:`~studies.results`).
- The papers' studies: one framework (:mod:`~studies.study`,
  :mod:`~studies.findings`), every study by name (:mod:`~studies.registry`),
  and each paper's designs, tables, findings and plots (``puppet_*``,
  ``topper_*``, ``thesis_*``).
"""
