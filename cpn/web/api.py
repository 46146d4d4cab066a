"""The requests a stepping page makes, by name, whatever carries them:
HTTP for the served page (``app.py``), a Jupyter comm for the notebook
widget (``widget.py``).

A *reading* takes query parameters and answers with JSON-ready values;
a *command* takes a JSON object and changes the session.  :func:`answer`
turns a request into a status and a body as HTTP would: 200, 400 (a
wrong field), 404 (no such request), 409 (not now: a run is going on, or
the page is stale), 500 (a bug of the server: said in one line, its
traceback written once on the server's standard error).
"""

from __future__ import annotations

import sys
import traceback
from typing import Any, Callable

from .errors import SessionError
from .session import WebSession

Handler = Callable[[WebSession, dict[str, Any]], Any]

READINGS: dict[str, Handler] = {
    "state": lambda session, query: session.state(query.get("module"),
                                                  log_from=query.get("log_from")),
    "tokens": lambda session, query: session.tokens(query.get("place")),
    "progress": lambda session, query: session.progress(),
    "trace": lambda session, query: {"text": session.trace_text(),
                                      "name": f"{session.simulator.net.name}.trace.jsonl"},
}

COMMANDS: dict[str, Handler] = {
    "fire": lambda session, body: session.fire(body.get("number"), body.get("version")),
    "step": lambda session, body: session.step(),
    "advance": lambda session, body: session.advance(),
    "undo": lambda session, body: session.undo(),
    "redo": lambda session, body: session.redo(),
    "run": lambda session, body: session.run(body.get("steps"), body.get("until")),
    "stop": lambda session, body: session.stop(),
    "breakpoint": lambda session, body: session.add_breakpoint(body),
    "unbreak": lambda session, body: session.remove_breakpoint(body.get("number")),
    "load": lambda session, body: session.load_trace(body.get("text"), body.get("name")),
}


def answer(session: WebSession, kind: str, name: str, arguments: Any) -> tuple[int, Any]:
    """The status and body of request ``name`` (a ``reading`` or a
    ``command``) with its ``arguments``."""
    table = READINGS if kind == "reading" else COMMANDS if kind == "command" else {}
    if not isinstance(name, str) or name not in table:
        return 404, {"error": f"no {kind} {name!r}"}
    if not isinstance(arguments, dict):
        return 400, {"error": "the request body must be a JSON object"}
    try:
        result = table[name](session, arguments)
    except SessionError as error:
        return 409 if error.conflict else 400, {"error": str(error),
                                                "running": session.running}
    except Exception as error:  # noqa: BLE001 - a bug: said to the page, not a bare 500
        return 500, {"error": _reported(error, name), "running": session.running}
    return 200, result if kind == "reading" else {"running": session.running}


#: The tracebacks already written, so that a page polling a broken
#: request does not fill the terminal with copies.
_REPORTED: set[str] = set()


def _reported(error: Exception, name: str) -> str:
    """Write the traceback of ``error`` on standard error (the first time
    it happens) and say in one line what failed."""
    text = "".join(traceback.format_exception(error))
    if text not in _REPORTED:
        _REPORTED.add(text)
        print(f"cpn.web: a bug, please report it: the request {name!r} failed:\n"
              f"{text}", end="", file=sys.stderr)
    summary = (str(error).splitlines() or [""])[0][:200]
    return (f"the server failed on request {name!r} ({type(error).__name__}: {summary}): "
            "a bug, please report it with the traceback the server wrote")
