"""What a run's record says of the policies its net hosts.

A run records its configuration (``metrics["config"]``), but a researcher
may swap a policy of their own into the net the configuration built:
``batch_scheduling(config, schedule=shortest_first)`` in place of the
scheduler, or another allocation module.  The configuration then names a
policy that did not run.  The net knows what it hosts, so the record is
read from it (:func:`config_record`): a scheduling policy of one's own by
its qualified name (:func:`own_scheduling_policy`), in place of the
configured one; an allocation module other than the configured one by
its name; the cap in force where it is not the configured one.

The project's other schedulers (Cobalt's, the DVFS thesis' policies, the
window scheduler, FIFO per queue, EASY planning with sleeping nodes) run
the settings their nets configure and record themselves: they are not
policies of one's own, and their records are left as they are.
"""

from __future__ import annotations

import dataclasses
import functools
import inspect
import math
import sys
from typing import Any, Sequence

from cpn import Net, diff
from cpn.expressions import same

from .batch_scheduling import SchedulingConfig, checked_answer, easy_policy
from .easy import easy_pass_on_nodes
from .power_cap_schedule import PowerCapSchedule

#: The packages of the project: what they define is not a policy of one's own.
PROJECT_PACKAGES = frozenset({"cpn", "modules", "nets", "studies", "cli"})


def policy_name(value: Any) -> str:
    """``value`` as a record names it: a function or class by its module
    and qualified name (``my_policies.shortest_first``), a partial with
    the arguments it fixes, a method after its object's class, another
    callable object by its class (a dataclass with its fields)."""
    if isinstance(value, functools.partial):
        arguments = [_argument(part) for part in value.args]
        arguments += [f"{key}={_argument(part)}" for key, part in value.keywords.items()]
        return f"{policy_name(value.func)}({', '.join(arguments)})"
    if inspect.ismethod(value):
        return f"{policy_name(value.__self__)}.{value.__name__}"
    if inspect.isroutine(value) or isinstance(value, type):
        return f"{value.__module__}.{value.__qualname__}"
    kind = type(value)
    if dataclasses.is_dataclass(kind):
        return f"{kind.__module__}.{value!r}"
    return policy_name(kind)


def _argument(value: Any) -> str:
    return policy_name(value) if callable(value) else repr(value)


def own_scheduling_policy(scheduler: Net, config: SchedulingConfig) -> str | None:
    """The name of the policy of one's own that the scheduler module runs,
    or None when it runs what ``config`` (or the project) configures.

    Its policy (``schedule``) is one's own when the module checks its
    answers (``batch_scheduling(schedule=...)``), when it is EASY's pass
    with other arguments than ``config``'s (``set_env`` of
    ``partial(schedule, wfp_exponent=1)``), or when any function of the
    module's environment is defined outside the project (set in with
    ``set_env``, or a module written from scratch)."""
    env = scheduler.env
    schedule = env.get("schedule")
    if schedule is not None and (env.get("checked_answer") is checked_answer
                                 or _other_easy(schedule, config)):
        return policy_name(schedule)
    own = [value for value in env.values() if callable(value) and not _of_the_project(value)]
    return ", ".join(map(policy_name, own)) or None


def _other_easy(schedule: Any, config: SchedulingConfig) -> bool:
    """``schedule`` is EASY's pass, but not as ``config`` sets it."""
    return (isinstance(schedule, functools.partial) and schedule.func is easy_pass_on_nodes
            and not same(schedule, easy_policy(config)))


def _of_the_project(value: Any) -> bool:
    """Every function ``value`` is built from is the project's, Python's
    own library's or a built-in."""
    if isinstance(value, functools.partial):
        return all(_of_the_project(part) for part in (value.func, *value.args,
                                                      *value.keywords.values())
                   if callable(part))
    if inspect.ismethod(value):
        return _of_the_project(value.__func__) and _of_the_project(type(value.__self__))
    module = getattr(value, "__module__", None) or type(value).__module__
    package = (module or "").split(".")[0]
    return package in PROJECT_PACKAGES or package in sys.stdlib_module_names


def scheduling_record(scheduler: Net, config: SchedulingConfig) -> dict:
    """``config``'s settings as a run records them; with a policy of one's
    own hosted, its name is the policy, and backfilling is its own
    business (None)."""
    record = dataclasses.asdict(config)
    own = own_scheduling_policy(scheduler, config)
    if own is not None:
        record.update(policy=own, backfill=None)
    return record


def config_record(net: Net, config: Any, cap: PowerCapSchedule | None,
                  allocations: Sequence[Net]) -> dict:
    """A run's ``metrics["config"]``: the settings of ``config`` (a
    ``PuppetConfig``), but what ``net`` hosts where they do not say it.
    Its scheduling: :func:`scheduling_record`.  An allocation module none
    of the configured ``allocations`` is named (``allocation``), and its
    cap is the ``cap`` in force (``power_cap_schedule.cap_in_force``) alone:
    the configured cap's other settings were the replaced module's.  A cap
    in force other than the configured one (a *Cap* place's) is given as
    its steps (``cap["schedule"]``).  Under BLOCK (``wait_queue_length``
    0) no job waits, so the maximum wait is never read: it is recorded as
    None, whatever the cap was given (a grid crossing l and w gives one)."""
    record = dataclasses.asdict(config)
    if record["cap"].get("wait_queue_length") == 0:
        record["cap"]["max_wait"] = None
    scheduler = net.substitutions.get("Scheduler")
    if scheduler is not None:
        record["scheduling"] = scheduling_record(scheduler.module, config.scheduling)
    allocation = net.substitutions.get("Allocation")
    if allocation is not None and all(diff(allocation.module, configured)
                                      for configured in allocations):
        record["cap"] = _cap_record(cap)
        record["allocation"] = allocation.module.name
    elif cap is not None and cap.steps != ((0.0, config.cap_watts),):
        record["cap"]["schedule"] = [list(step) for step in cap.steps]
    return record


def _cap_record(cap: PowerCapSchedule | None) -> dict:
    """A cap in force (None: none) as a record gives it: its watts, or its
    steps when it changes in time."""
    if cap is None or len(cap.steps) == 1:
        return {"cap_watts": math.inf if cap is None else cap.initial}
    return {"schedule": [list(step) for step in cap.steps]}
