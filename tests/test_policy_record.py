"""What a run records when a researcher swaps in a scheduling policy or a
power policy of their own: the policy that ran (``metrics["config"]``),
and the cap metrics whenever a cap is in force, whoever decides allocation.
The project's own configurations keep their records unchanged."""

from __future__ import annotations

from dataclasses import asdict
from functools import partial

import pytest

from cpn import Net
from modules.allocation import allocation_ports
from modules.batch_scheduling import SchedulingConfig, batch_scheduling
from modules.cpu_scaling import CpuScaling
from modules.easy import easy_pass_on_nodes
from modules.job import Job
from modules.power_cap_schedule import PowerCapSchedule, add_power_cap
from modules.power_capping import PowerCap, requeue
from nets.puppet import PuppetConfig, build_net, run_model
from test_own_policy import largest_first as largest_first_listing

JOBS = [Job(1, 0, 100, 2, 200, jp=200.0), Job(2, 1, 100, 1, 100, jp=200.0),
        Job(3, 2, 10, 1, 10, jp=50.0)]
PLAIN = PuppetConfig(machine_nodes=4, node_watts=100.0,
                     scheduling=SchedulingConfig(trigger="timestamp"))


def largest_first(queue, running, free, now):
    """test_own_policy's, answering a tuple: set in with ``set_env``, no
    check makes its list one."""
    started, waiting = largest_first_listing(queue, running, free, now)
    return started, tuple(waiting)


def by_walltime(queue, now):
    return sorted(range(len(queue)), key=lambda at: (queue[at].wt, at))


def scheduling_of(net: Net, config: PuppetConfig = PLAIN) -> dict:
    result, _ = run_model(net, JOBS, config)
    return result.metrics["config"]["scheduling"]


def with_scheduler(schedule) -> Net:
    net = build_net(PLAIN)
    net.replace_module("Scheduler", batch_scheduling(PLAIN.scheduling, schedule=schedule))
    return net


def test_a_swapped_in_scheduler_is_named_in_the_metrics_not_fcfs():
    assert scheduling_of(with_scheduler(largest_first)) == {
        "policy": f"{__name__}.largest_first", "estimate": "requested",
        "trigger": "timestamp", "backfill": None, "overrun": "keep"}


def test_easy_behind_an_order_of_ones_own_is_named_with_its_order():
    record = scheduling_of(with_scheduler(partial(easy_pass_on_nodes, order=by_walltime)))
    assert record["policy"] == (f"modules.easy.easy_pass_on_nodes(order={__name__}.by_walltime)")


def test_an_edited_policy_is_named_whichever_way_it_came_in():
    wfp = PuppetConfig(4, 100.0, scheduling=SchedulingConfig(policy="wfp"))
    exponent = build_net(wfp)
    schedule = exponent.substitutions["Scheduler"].module.env["schedule"]
    exponent.set_env("Scheduler/schedule", partial(schedule, wfp_exponent=1))
    assert scheduling_of(exponent, wfp)["policy"] == (
        "modules.easy.easy_pass_on_nodes(policy='wfp', estimate='requested', backfill=True, "
        "wfp_exponent=1)")
    rebound = build_net(PLAIN)  # the built-in module, its policy rebound: not checked, named
    rebound.set_env("Scheduler/schedule", largest_first)
    assert scheduling_of(rebound)["policy"] == f"{__name__}.largest_first"


@pytest.mark.parametrize("config", [
    PLAIN, PuppetConfig(4, 100.0, scheduling=SchedulingConfig(policy="wfp", backfill=False)),
    PuppetConfig(4, 100.0, cap=PowerCap.block(300.0)),
    PuppetConfig(4, 100.0, cap=PowerCap.wait(300.0, l=2)),
    PuppetConfig(4, 100.0, cap=CpuScaling(300.0))], ids=["fcfs", "wfp", "block", "wait", "dvfs"])
def test_the_configured_net_records_its_configuration_unchanged(config):
    result, _ = run_model(build_net(config), JOBS, config)
    expected = asdict(config)
    if config.cap == PowerCap.block(300.0):  # no job waits: no maximum wait is read
        expected["cap"]["max_wait"] = None
    assert result.metrics["config"] == expected


def test_the_projects_other_schedulers_are_not_policies_of_ones_own():
    from modules.cobalt_policy import CobaltPolicy
    from modules.cobalt_scheduler import cobalt_scheduling
    from modules.dvfs_thesis.profiles import JobProfile
    from modules.energy_saving.scheduling import FifoQueues, fifo_scheduling, scheduling_module
    from modules.policy_record import own_scheduling_policy
    from nets import data_driven, dvfs_thesis

    thesis = dvfs_thesis.build_net(dvfs_thesis.ThesisConfig(4), {1: JobProfile(1.0, 1.0)})
    window = data_driven.build_net(data_driven.DataDrivenConfig(4))
    for module in (cobalt_scheduling(CobaltPolicy(), {}, {}, []),
                   fifo_scheduling(FifoQueues("user")),
                   scheduling_module(PLAIN.scheduling, 100.0, 4),
                   thesis.substitutions["Scheduler"].module,
                   window.substitutions["Scheduler"].module):
        assert own_scheduling_policy(module, PLAIN.scheduling) is None, module.name


def test_sleeping_nodes_record_the_scheduling_that_ran():
    """``simulate_puppet(scheduling=...)`` recorded its configuration's
    scheduling (here FCFS with backfilling) while FIFO per queue ran."""
    from modules.energy_saving.scheduling import FifoQueues
    from nets.energy_saving import SleepingNodes, simulate_puppet

    for scheduling in (FifoQueues(queue="user"), SchedulingConfig(policy="wfp")):
        result = simulate_puppet(JOBS, PLAIN, SleepingNodes(), scheduling=scheduling)
        expected = scheduling.scheduling if isinstance(scheduling, FifoQueues) else scheduling
        assert result.metrics["config"]["scheduling"] == asdict(expected)


def capped_greedy(power, cap: PowerCapSchedule | float) -> Net:
    """A power policy of one's own: the head job starts when it keeps the
    power under the cap (a *Cap* place's, or a constant of its own), else
    it and the rest go back to the queue."""
    module = Net("CappedGreedy", env={"busy_delta": power.busy_delta, "requeue": requeue})
    allocation_ports(module)
    state = {"Selected": "sel", "Nodes": "free", "Power": "watts", "RuntimeInfo": "running"}
    if isinstance(cap, PowerCapSchedule):
        add_power_cap(module, cap)  # adds Trigger, which allocation_ports does not
        state["Cap"] = "cap"
    else:
        module.env["cap"] = cap
    fits = "sel[0].js <= free and watts + busy_delta(sel[0]) <= cap"
    module.transition(
        "Allocate", priority=100, guard=f"sel and {fits}", code="job = sel[0]", inputs=state,
        outputs={**state, "Selected": "sel[1:]", "Nodes": "free - job.js",
                 "Power": "watts + busy_delta(job)",
                 "RuntimeInfo": "running | {job.id: (now + job.wt, job.js)}",
                 "Running": "job.entered(now)@+job.rt"})
    module.transition(
        "Hold", priority=100, guard=f"sel and not ({fits})",
        inputs={**state, "Queuing": "queue"},
        outputs={**state, "Selected": "()", "Queuing": "requeue(queue, sel)"})
    return module


def with_allocation(config: PuppetConfig, cap: PowerCapSchedule | float) -> Net:
    net = build_net(config)
    net.replace_module("Allocation", capped_greedy(config.power, cap))
    return net


def test_a_power_policy_of_ones_own_under_its_own_cap_gets_the_cap_metrics():
    """Idle 120 W; job 1 (2 nodes) runs alone from 0 to 100 at 260 W in
    all.  Under 300 W nothing is over; with the cap down to 250 W from 50
    to 100, the run is 10 W over for 50 s."""
    result, _ = run_model(with_allocation(PLAIN, PowerCapSchedule.constant(300.0)), JOBS, PLAIN)
    assert (result.metrics["cap_exceeded_s"], result.metrics["cap_excess_max_w"]) == (0.0, 0.0)
    assert result.metrics["config"]["cap"] == {"cap_watts": 300.0}
    assert result.metrics["config"]["allocation"] == "CappedGreedy"
    lowered = PowerCapSchedule.of((0, 300.0), (50, 250.0), (100, 400.0))
    result, _ = run_model(with_allocation(PLAIN, lowered), JOBS, PLAIN)
    assert (result.metrics["cap_exceeded_s"], result.metrics["cap_excess_max_w"]) == (
        pytest.approx(50.0), pytest.approx(10.0))
    assert result.metrics["config"]["cap"] == {"schedule": [[0.0, 300.0], [50.0, 250.0],
                                                            [100.0, 400.0]]}


def test_a_power_policy_of_ones_own_under_the_configured_cap_is_named():
    """BLOCK's settings (l = 0) are not recorded for a module that is not BLOCK."""
    block = PuppetConfig(4, 100.0, cap=PowerCap.block(300.0))
    result, _ = run_model(with_allocation(block, 300.0), JOBS, block)
    assert result.metrics["config"]["cap"] == {"cap_watts": 300.0}
    assert result.metrics["config"]["allocation"] == "CappedGreedy"
    assert result.metrics["cap_exceeded_s"] == 0.0


def test_the_configured_allocation_swapped_for_another_is_named():
    """WAIT put where the configuration built BLOCK: not recorded as BLOCK."""
    from modules.allocation import power_allocation

    block = PuppetConfig(4, 100.0, cap=PowerCap.block(300.0))
    net = build_net(block)
    net.replace_module("Allocation", power_allocation(block.power, PowerCap.wait(300.0),
                                                      "requested"))
    result, _ = run_model(net, JOBS, block)
    assert result.metrics["config"]["allocation"] == "PowerAllocation"
    assert result.metrics["config"]["cap"] == {"cap_watts": 300.0}


def test_the_data_driven_runs_record_the_cap_they_ran_under():
    from nets.data_driven import DataDrivenConfig, simulate

    cap = PowerCapSchedule.constant(350.0)
    for method, allocation in (("naive", "NaiveAllocation"), ("knapsack", "MeasuredAllocation")):
        config = DataDrivenConfig(4, method=method, cap=cap, node_watts=100.0)
        metrics = simulate(JOBS, config).metrics
        assert metrics["config"]["cap"] == {"cap_watts": 350.0}  # was inf: no cap
        assert metrics["config"]["allocation"] == allocation
        assert metrics["cap_excess_max_w"] == metrics["max_excess_w"]


def test_a_cap_place_of_no_watts_is_refused_before_the_run_naming_its_module():
    net = with_allocation(PLAIN, PowerCapSchedule.constant(300.0))
    net.set_initial("Allocation/Cap", [0.0])
    with pytest.raises(ValueError, match=r"the Cap and CapChanges places of 'CappedGreedy': "
                                         r"caps must be positive watts: \[0.0\]"):
        run_model(net, JOBS, PLAIN, progress=pytest.fail)  # before any simulated time
