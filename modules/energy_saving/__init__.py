"""The EnergySaving cluster policy (Dolz et al., sections 2.4-2.6): idle
nodes are switched off and booted again when demand returns, as a module
that plugs into any net ``nets.puppet.compose`` builds
(``nets/energy_saving.py`` runs PuPPET, TOPPER and the DVFS thesis with it).

Why counts and not one token per node: every rule of the policy depends
only on how many nodes are in a state and how long idle ones have been idle
-- nodes are identical -- so batches of nodes are as exact as node tokens
and make a decision cost O(batches), not O(nodes): Mira's 49,152 nodes cost
what NASA's 128 do.  Which node is which matters only for the per-node
reports; ``ledger_monitor.LedgerMonitor`` follows the firings and names the
nodes (``modules/node_ledger.py``).  Nodes of different types (the paper's
"appropriate resources") would need one set of counts per type.

- ``policy.py``: the scheduler's parameters (``EnergySavingPolicy``,
  ``GroupThresholds``);
- ``idle_pool.py``: the idle nodes' ages, the token the decisions read;
- ``decisions.py``: each tick's decision (boot for the queue, or switch
  off what it does not need), as plain functions of the marking;
- ``module.py``: the net (places, *Sync*, *Tick*, *Booted*, *Halted*,
  *Observe*) and :func:`~modules.energy_saving.module.attach`;
- ``scheduling.py``: scheduling on sleeping nodes (EASY seeing the booting
  nodes, or the paper's FIFO per queue);
- ``ledger_monitor.py``: the monitor that names the nodes.
"""
