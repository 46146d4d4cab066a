"""Allocation without a power cap: the selected jobs take their nodes.

This is the power-aware allocation module of PuPPET (section 3.2, Fig. 6)
with ``Pcap = inf``: *Allocate* moves each job the scheduler selected onto
its nodes, raises system *Power* from idle to busy for those nodes, records
its planned end in *Runtime Info*, and puts it in *Running* until its end.
Power-aware variants (BLOCK, WAIT) replace this module through the same
ports.
"""

from __future__ import annotations

from cpn import Net

from .batch_scheduling import P_ALLOCATE
from .job import Job
from .power import PowerModel


def uncapped_allocation(power: PowerModel, estimate: str) -> Net:
    """Ports Selected, Nodes, Power, Runtime Info, Running."""
    module = Net("Allocation", env={"busy_delta": power.busy_delta})
    module.place("Selected", Job, port="in")
    module.place("Nodes", int, port="inout")
    module.place("Power", float, port="inout")
    module.place("RuntimeInfo", dict, port="inout")
    module.place("Running", Job, timed=True, port="out")
    planned = "job.wt" if estimate == "requested" else "job.rt"
    module.transition("Allocate", priority=P_ALLOCATE)
    module.arc("Selected", "Allocate", "job")
    module.arc("Nodes", "Allocate", "free")
    module.arc("Power", "Allocate", "watts")
    module.arc("RuntimeInfo", "Allocate", "running")
    module.arc("Allocate", "Nodes", "free - job.js")
    module.arc("Allocate", "Power", "watts + busy_delta(job)")
    module.arc("Allocate", "RuntimeInfo", f"{{**running, job.id: (now + {planned}, job.js)}}")
    module.arc("Allocate", "Running", "job._replace(et=now)@+job.rt")
    return module
