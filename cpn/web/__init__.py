"""Stepping a net in a browser: the net drawn by Graphviz with its
marking, the enabled bindings to fire, runs with progress and a Stop
button, undo and redo, breakpoints, traces saved and loaded.

>>> from cpn.web import serve
>>> serve(net)                    # doctest: +SKIP
http://127.0.0.1:38517/

``cpn step NET --web`` does the same from a shell.  The package:
``session.py`` (:class:`WebSession`: the stepper's commands as methods
taking numbers and names, and the state a page draws), ``views.py``
(that state as JSON-ready values), ``predicates.py`` (breakpoints from a
fixed form), ``fields.py`` (a request's fields checked, each refusal
naming its field), ``api.py`` (the page's requests by name), ``app.py``
(them over HTTP, Starlette), ``server.py`` (uvicorn on 127.0.0.1) and
``static/`` (the page: ``stepper.js`` builds it and talks to the
session, a file for each of its parts draws and wires that part, the run
controls, the places, the breakpoints and so on, and ``names.js`` fits
long names to their width).  A notebook shows a
:class:`~cpn.Simulator` with its drawing without any of this.

The server needs Starlette and uvicorn (``pip install 'cpn[web]'``);
:class:`WebSession` alone does not.
"""

from .errors import SessionError
from .session import WebSession

__all__ = ["WebSession", "SessionError", "serve", "running", "MISSING"]

#: What to install when the server's libraries are missing.
MISSING = ("the browser front end needs Starlette and uvicorn: "
           "pip install 'cpn[web]'")


def __getattr__(name: str):
    """``serve`` and ``running`` import the server's libraries only when used."""
    if name in ("serve", "running"):
        try:
            from . import server
        except ImportError as error:
            raise ImportError(f"{MISSING} ({error})") from None
        return getattr(server, name)
    raise AttributeError(f"module 'cpn.web' has no attribute {name!r}")
