"""The HTTP interface of a :class:`~cpn.web.session.WebSession`, as a
Starlette application: the page (``/``, ``/static/...``) and the requests
of :mod:`cpn.web.api`, a reading as ``GET /api/NAME?FIELD=...`` (``state``,
``tokens``, ``progress``, ``trace``), a command as ``POST /api/NAME``
with a JSON object (``fire``, ``step``, ``run``, ``undo``, ...).  A refused
request answers ``{"error": "..."}`` with status 400 (a wrong field), 404
or 409 (not now: a run is going on, or the page is stale); a bug of the
server, with status 500 and its traceback on the server's standard error.

Only JSON commands are taken (a form another site posts cannot be), and
only requests to ``127.0.0.1`` or ``localhost`` (a site that renames
itself to reach this server is refused).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.middleware import Middleware
from starlette.middleware.trustedhost import TrustedHostMiddleware
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from .api import answer
from .session import WebSession

STATIC = Path(__file__).parent / "static"
LOCAL_HOSTS = ("127.0.0.1", "localhost")


def create_app(session: WebSession, allowed_hosts: tuple[str, ...] = LOCAL_HOSTS) -> Starlette:
    """The application serving ``session``."""

    async def reading(request: Request) -> Response:
        return await _answered(session, "reading", request.path_params["name"],
                               dict(request.query_params))

    async def command(request: Request) -> Response:
        if request.headers.get("content-type", "").split(";")[0].strip() \
                != "application/json":
            return JSONResponse({"error": "send the command as JSON (Content-Type: "
                                          "application/json)"}, status_code=415)
        body, refused = _parsed(await request.body())
        if refused:
            return JSONResponse({"error": refused}, status_code=400)
        return await _answered(session, "command", request.path_params["name"], body)

    routes = [
        Route("/", lambda request: FileResponse(STATIC / "index.html")),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
        Route("/api/{name}", reading, methods=["GET"]),
        Route("/api/{name}", command, methods=["POST"]),
    ]
    return Starlette(routes=routes, middleware=[
        Middleware(TrustedHostMiddleware, allowed_hosts=list(allowed_hosts))])


def _parsed(body: bytes) -> tuple[Any, str]:
    """The JSON value of a command's body, or why there is none (valid JSON
    too is refused: Python's reader will not make an int of more digits
    than ``sys.get_int_max_str_digits()``, 4300 by default, nor nest lists
    deeper than its recursion limit)."""
    try:
        return json.loads(body), ""
    except (json.JSONDecodeError, UnicodeDecodeError):
        return None, "the request body is not JSON"
    except ValueError:  # the one other: too many digits for an int
        return None, (f"a number in the request is too large (more than "
                      f"{sys.get_int_max_str_digits()} digits)")
    except RecursionError:
        return None, "the request nests lists or objects too deeply"


async def _answered(session: WebSession, kind: str, name: str, arguments) -> Response:
    """The answer of :func:`cpn.web.api.answer`, computed off the event loop
    (a command may wait for the session's lock; a drawing takes a while)."""
    status, body = await run_in_threadpool(answer, session, kind, name, arguments)
    return JSONResponse(body, status_code=status)
