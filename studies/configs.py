"""An experiment as the configuration of a net: PuPPET's, and TOPPER's over it.

An :class:`~studies.experiment.Experiment` is flat, plain data that names
a run; the nets take nested, typed configurations.  This is the one place
that translates the first into the second: the cap (resolved to watts
first, since a fractional cap depends on another run), the capping method
and its parameters, the scheduling options, and the failures.
"""

from __future__ import annotations

from typing import Any

from modules.batch_scheduling import SchedulingConfig
from modules.cpu_scaling import CpuScaling
from modules.power_capping import PowerCap
from modules.resilience import FaultTolerance, default_unit_nodes
from nets.puppet import PuppetConfig
from nets.topper import TopperConfig

from .experiment import Experiment


def power_config(exp: Experiment, machine_nodes: int, cap_watts: float | None):
    """The ``PuppetConfig`` of ``exp`` with the cap resolved to watts."""
    if exp.capping == "none":
        cap: Any = PowerCap()
    elif exp.capping == "block" or exp.l == 0:  # WAIT with no room to wait is BLOCK
        cap = PowerCap.block(cap_watts)
    elif exp.capping == "wait":
        cap = PowerCap.wait(cap_watts, l=exp.l, w_minutes=exp.w_minutes)
    else:
        cap = CpuScaling(cap_watts, **({"levels": exp.levels} if exp.levels else {}),
                         beta=exp.beta, latency=exp.latency,
                         admission=exp.dvfs_admission)
    options = {} if exp.capping == "none" else {"over_cap": exp.over_cap}
    if exp.capping == "dvfs":
        options.update(alpha=exp.alpha, core_share=exp.core_share)
    return PuppetConfig(
        machine_nodes=machine_nodes, node_watts=exp.node_watts,
        idle_fraction=exp.idle_fraction, cap=cap,
        scheduling=SchedulingConfig(exp.policy, exp.estimate, exp.trigger, exp.backfill,
                                    exp.overrun or "keep"),
        **options)


def topper_config(exp: Experiment, puppet):
    """The ``TopperConfig`` of a run with failures, over ``puppet``."""
    machine = puppet.machine_nodes
    unit_nodes = exp.unit_nodes or default_unit_nodes(machine)
    if machine % unit_nodes:
        raise ValueError(f"the machine's {machine} nodes are not a whole number of "
                         f"{unit_nodes}-node units: choose unit_nodes")
    units = machine // unit_nodes
    options = ({} if exp.checkpoint_scale is None
               else {"checkpoint_scale": exp.checkpoint_scale})
    if exp.resilience == "replication":
        options.update(redundancy=exp.redundancy, communication=exp.gamma)
    if exp.checkpoint_interval_minutes is not None:
        options["checkpoint_interval"] = exp.checkpoint_interval_minutes * 60
    settings = FaultTolerance(unit_nodes=unit_nodes,
                              unit_mttf=exp.system_mttf_hours * 3600 * units,
                              method=exp.resilience, on_failure=exp.on_failure, **options)
    return TopperConfig(puppet, settings,
                        dvfs_failure_multiplier=exp.dvfs_failure_multiplier or 1.0)
