"""A small net for the browser front end's tests: a module instance (a
substitution transition), records as tokens, timed places.  It is also a
net file (``cpn step tests/web_nets.py --web``), as a user would write,
with a breakpoint the page offers by name."""

from __future__ import annotations

from dataclasses import dataclass

from cpn import Net, timed


@dataclass(frozen=True)
class Order:
    """A record token: the page shows it as a table row, one column a field."""

    id: int
    size: int


ORDERS = (Order(1, 2), Order(2, 5), Order(3, 1))

def build_net() -> Net:
    """Orders arrive (at 0, 1, 2) in *Inbox*; the *Desk* module serves one
    at a time, taking ``size`` time units, into *Done*."""
    desk = Net("Desk")
    desk.place("In", Order, port="in")
    desk.place("Out", Order, port="out")
    desk.place("Clerk", str, initial=["ann"], timed=True)
    desk.place("Serving", Order, timed=True)
    desk.transition("Start")
    desk.arc("In", "Start", "order")
    desk.arc("Clerk", "Start", "clerk")
    desk.arc("Start", "Serving", "order@+order.size")
    desk.arc("Start", "Clerk", "clerk@+order.size")
    desk.transition("Finish")
    desk.arc("Serving", "Finish", "order")
    desk.arc("Finish", "Out", "order")

    shop = Net("shop")
    shop.place("Inbox", Order, initial=[timed(order, order.id - 1) for order in ORDERS],
               timed=True)
    shop.place("Queue", Order)
    shop.place("Done", Order)
    shop.transition("Arrive")
    shop.arc("Inbox", "Arrive", "order")
    shop.arc("Arrive", "Queue", "order")
    shop.substitution("Desk", desk, {"In": "Queue", "Out": "Done"})
    return shop


def long_names_net() -> Net:
    """Orders handled by a transition whose path is 92 characters long, in
    a module instance of a long name: too long for the page's side panel."""
    worker = Net("Worker")
    worker.place("In", Order, port="in")
    worker.place("Out", Order, port="out")
    handle = "Handles_each_order_with_a_name_going_on_and_ever_really"
    worker.transition(handle)
    worker.arc("In", handle, "order")
    worker.arc(handle, "Out", "order")
    top = Net("long_names")
    top.place("Orders", Order, initial=[Order(id, 3) for id in range(5)])
    top.place("Done", Order)
    top.substitution("Worker_substitution_with_a_long_name", worker,
                     {"In": "Orders", "Out": "Done"})
    return top


#: Place predicates the page offers as breakpoints, by name.
BREAKPOINTS = {
    "a big order is done": ("Done", lambda orders: any(order.size >= 5 for order in orders)),
}
