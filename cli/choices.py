"""Choices and defaults that the parsers show, known here without
importing the models that define them: building the parser (``cpn
--help``) must not load numpy, pandas or the nets.  Each is the model's
own value, which ``tests/test_cli_imports.py`` checks."""

#: The models ``cpn sweep --model`` runs (``studies.grids.MODELS``).
MODELS = ("puppet", "thesis")
#: How a sweep draws job power (``studies.experiment.POWER_OPTIONS``).
POWER_OPTIONS = ("drawn", "constant")
#: The DVFS thesis' policies (``studies.thesis_run.POLICIES``).
THESIS_POLICIES = ("easy", "upas", "bsld_driven", "pb_guided", "max_job_perf")
#: Mira's whole-machine MTTF, the default failure rate
#: (``studies.experiment.MIRA_SYSTEM_MTTF_HOURS``).
MIRA_SYSTEM_MTTF_HOURS = 46.45
#: The data-driven study's rules for jobs over the cap alone
#: (``modules.window_scheduling.OVER_CAP_RULES``).
DATA_DRIVEN_OVER_CAP = ("reject", "run")
