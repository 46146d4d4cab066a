"""The HTTP interface of a :class:`~cpn.web.session.WebSession`, as a
Starlette application: the page (``/``, ``/static/...``) and a small JSON
API it calls.

Reading: ``GET /api/state?module=PATH`` (everything the page draws),
``GET /api/tokens?place=PATH``, ``GET /api/progress`` (of a run),
``GET /api/trace`` (the trace, as a file to save).  Commands, each a
``POST`` of a JSON object: ``/api/fire {"number", "version"}``,
``/api/step``, ``/api/advance``, ``/api/undo``, ``/api/redo``,
``/api/run {"steps"} | {"until"} | {}``, ``/api/stop``,
``/api/breakpoints`` (the form of :meth:`WebSession.add_breakpoint`),
``/api/breakpoints/remove {"number"}``, ``/api/trace {"text", "name"}``.
A refused request answers ``{"error": "..."}`` with status 400 (a wrong
field) or 409 (not now: a run is going on, or the page is stale).

Only JSON commands are taken (a form another site posts cannot be), and
only requests to ``127.0.0.1`` or ``localhost`` (a site that renames
itself to reach this server is refused).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.middleware import Middleware
from starlette.middleware.trustedhost import TrustedHostMiddleware
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, PlainTextResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from .errors import SessionError
from .session import WebSession

STATIC = Path(__file__).parent / "static"
LOCAL_HOSTS = ("127.0.0.1", "localhost")


def create_app(session: WebSession, allowed_hosts: tuple[str, ...] = LOCAL_HOSTS) -> Starlette:
    """The application serving ``session``."""
    return Starlette(routes=_routes(session), middleware=[
        Middleware(TrustedHostMiddleware, allowed_hosts=list(allowed_hosts))])


def _routes(session: WebSession) -> list:
    def command(action: Callable[[dict[str, Any]], None]):
        return _command(session, action)

    def reading(answer: Callable[[Request], Any]):
        return _reading(session, answer)

    def trace_file(request: Request) -> Response:
        return PlainTextResponse(session.trace_text(), headers={
            "Content-Disposition": f'attachment; filename="{session.simulator.net.name}'
                                   f'.trace.jsonl"'})

    post = {"methods": ["POST"]}
    return [
        Route("/", lambda request: FileResponse(STATIC / "index.html")),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
        Route("/api/state", reading(lambda r: session.state(r.query_params.get("module")))),
        Route("/api/tokens", reading(lambda r: session.tokens(r.query_params.get("place")))),
        Route("/api/progress", reading(lambda r: session.progress())),
        Route("/api/trace", reading(trace_file), methods=["GET"]),
        Route("/api/trace", command(lambda b: session.load_trace(
            b.get("text"), str(b.get("name") or "the trace"))), **post),
        Route("/api/fire", command(lambda b: session.fire(b.get("number"), b.get("version"))),
              **post),
        Route("/api/step", command(lambda b: session.step()), **post),
        Route("/api/advance", command(lambda b: session.advance()), **post),
        Route("/api/undo", command(lambda b: session.undo()), **post),
        Route("/api/redo", command(lambda b: session.redo()), **post),
        Route("/api/run", command(lambda b: session.run(b.get("steps"), b.get("until"))),
              **post),
        Route("/api/stop", command(lambda b: session.stop()), **post),
        Route("/api/breakpoints", command(session.add_breakpoint), **post),
        Route("/api/breakpoints/remove",
              command(lambda b: session.remove_breakpoint(b.get("number"))), **post),
    ]


def _command(session: WebSession, action: Callable[[dict[str, Any]], None]):
    """An endpoint taking a JSON object and doing ``action`` with it."""
    async def endpoint(request: Request) -> Response:
        if request.headers.get("content-type", "").split(";")[0].strip() \
                != "application/json":
            return _refused("send the command as JSON (Content-Type: application/json)", 415)
        try:
            body = await request.json()
        except ValueError:
            return _refused("the request body is not JSON", 400)
        if not isinstance(body, dict):
            return _refused("the request body must be a JSON object", 400)
        try:
            await run_in_threadpool(action, body)
        except SessionError as error:
            return _refused(str(error), 409 if error.conflict else 400)
        return JSONResponse({"running": session.running})
    return endpoint


def _reading(session: WebSession, answer: Callable[[Request], Any]):
    """An endpoint answering with what ``answer`` gives (JSON unless a response)."""
    async def endpoint(request: Request) -> Response:
        try:
            result = await run_in_threadpool(answer, request)
        except SessionError as error:
            return _refused(str(error), 409 if error.conflict else 400,
                            running=session.running)
        return result if isinstance(result, Response) else JSONResponse(result)
    return endpoint


def _refused(message: str, status: int, **more: Any) -> JSONResponse:
    return JSONResponse({"error": message, **more}, status_code=status)
