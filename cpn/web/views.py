"""What a page shows of a simulator, as plain JSON-ready values: the
places with their token counts, the enabled bindings, why nothing is
enabled, one place's tokens as a table (records by field), and the
drawing of one module as SVG."""

from __future__ import annotations

import dataclasses
from typing import Any

from ..drawing import DrawingError, render, to_graphviz
from ..errors import NetError
from ..flatten import FlatNet
from ..net import Net
from ..simulator import Simulator
from ..times import time_text
from .errors import SessionError

#: The most rows a place's token table sends (the count says how many there are).
TOKEN_ROWS = 500


def places_view(sim: Simulator) -> list[dict[str, Any]]:
    """Each place by flat path, with its token count and colour set."""
    counts = sim.marking.counts()
    return [{"path": p.path, "count": counts[p.path], "colour": p.place.colour_name,
             "timed": p.timed} for p in sim.net.places]


def bindings_view(sim: Simulator, limit: int) -> tuple[list[dict[str, Any]], int]:
    """The first ``limit`` enabled bindings, numbered from 1 as the
    stepper fires them, and how many are enabled."""
    enabled = sim.enabled()
    return [{"number": number, "transition": binding.transition,
             "values": ", ".join(f"{k}={v!r}" for k, v in binding.values.items())}
            for number, binding in enumerate(enabled[:limit], 1)], len(enabled)


def waiting_text(sim: Simulator) -> str:
    """Why nothing is enabled now, and when something will be."""
    following = sim.next_event_time()
    if following is None:
        return f"nothing is enabled at time {time_text(sim.now)}, nor ever will be (a dead marking)"
    return (f"nothing is enabled at time {time_text(sim.now)}; the next event is at time "
            f"{time_text(following)}")


def token_table(sim: Simulator, path: str) -> dict[str, Any]:
    """The tokens of place ``path``: equal tokens grouped (with a count
    column when any repeats), records (dataclasses, named tuples) split
    into a column per field, and when each becomes available if timed.
    A place holding one collection of records (a queue of jobs as one
    tuple) shows the records, with a note saying so."""
    timed = sim.marking.timed(path)
    if len(timed) == 1 and _is_record_collection(timed[0][0]):
        collection = timed[0][0]
        table = _table([(record, None) for record in collection])
        return {**table, "place": path, "count": 1,
                "note": f"one token: a {type(collection).__name__} of "
                        f"{len(collection)} {type(next(iter(collection))).__name__}"}
    return {**_table(timed), "place": path, "count": len(timed), "note": ""}


def _table(timed: list[tuple[Any, float | None]]) -> dict[str, Any]:
    groups: dict[tuple[str, float | None], list] = {}
    for value, stamp in timed:
        groups.setdefault((repr(value), stamp), [value, 0])[1] += 1
    fields = _record_fields([value for value, _ in timed])
    repeats = any(count > 1 for _, count in groups.values())
    is_timed = any(stamp is not None for _, stamp in timed)
    columns = (["count"] if repeats else []) + (fields or ["token"]) \
        + (["available at"] if is_timed else [])
    rows = [([str(count)] if repeats else [])
            + ([repr(getattr(value, name)) for name in fields] or [text])
            + ([f"{time_text(stamp)}" if stamp is not None else ""] if is_timed else [])
            for (text, stamp), (value, count) in list(groups.items())[:TOKEN_ROWS]]
    return {"columns": columns, "rows": rows, "distinct": len(groups)}


def _is_record_collection(value: Any) -> bool:
    return (isinstance(value, (tuple, frozenset)) and not hasattr(value, "_fields")
            and bool(value) and bool(_record_fields(list(value))))


def _record_fields(values: list[Any]) -> list[str]:
    """The field names shared by ``values`` when all are records of one
    type (a dataclass or a named tuple); else none."""
    kinds = {type(value) for value in values}
    if len(kinds) != 1:
        return []
    kind = kinds.pop()
    if dataclasses.is_dataclass(kind):
        return [field.name for field in dataclasses.fields(kind)]
    return list(getattr(kind, "_fields", []))


def drawing(net: Net | FlatNet, sim: Simulator, module: str | None) -> str | None:
    """The SVG of ``module`` (a substitution path, the top level when
    empty) with the simulator's marking, ready to put in a page; None
    when Graphviz is not installed."""
    if module and isinstance(net, FlatNet):
        raise SessionError("module: a flat net has no modules")
    try:
        graph = to_graphviz(net, sim, module=module or None)
    except NetError as error:
        raise SessionError(f"module: {error}") from None
    try:
        svg = render(graph).decode("utf-8")
    except DrawingError:
        return None
    return svg[svg.index("<svg"):]
