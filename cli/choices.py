"""Choices and defaults that the parsers show, known here without
importing the models that define them: building the parser (``cpn
--help``) must not load numpy, pandas or the nets, and ``import cli.main``
not even the engine.  Each is the model's
own value, which ``tests/test_lazy_imports.py`` checks."""

#: The models ``cpn sweep --model`` runs (``studies.grids.MODELS``).
MODELS = ("puppet", "thesis")
#: How a sweep draws job power (``studies.experiment_fields.POWER_OPTIONS``).
POWER_OPTIONS = ("drawn", "constant")
#: The DVFS thesis' policies (``studies.thesis_run.POLICIES``).
THESIS_POLICIES = ("easy", "upas", "bsld_driven", "pb_guided", "max_job_perf")
#: Mira's whole-machine MTTF, the default failure rate
#: (``studies.experiment.MIRA_SYSTEM_MTTF_HOURS``).
MIRA_SYSTEM_MTTF_HOURS = 46.45
#: A fractional cap referring to each month's own uncapped peak
#: (``studies.experiment.OWN_MONTH``).
OWN_MONTH = "own"
#: What becomes of a job whose power alone exceeds the cap
#: (``modules.power_capping.OVER_CAP``).
OVER_CAP = ("reject", "run_alone")
#: When DVFS lets a job start (``modules.cpu_scaling.ADMISSIONS``).
DVFS_ADMISSIONS = ("lowest", "nodes")
#: What becomes of a job that runs past its request
#: (``modules.batch_scheduling.OVERRUNS``).
OVERRUNS = ("keep", "clamp")
#: The formats of a failure trace (``modules.failure_logs.FAILURE_FORMATS``).
FAILURE_FORMATS = ("csv", "ras")
#: Which sleeping nodes boot first (``modules.node_power.POWER_ON_ORDERS``).
POWER_ON_ORDERS = ("name", "wear")
#: The data-driven study's rules for jobs over the cap alone
#: (``modules.window_scheduling.OVER_CAP_RULES``).
DATA_DRIVEN_OVER_CAP = ("reject", "run")
#: What the data-driven knapsack's budget subtracts for the running jobs
#: (``modules.window_scheduling.BUDGETS``).
KNAPSACK_BUDGETS = ("estimates", "measured")
