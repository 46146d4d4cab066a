"""Serving a stepping session on this machine: :func:`serve` until
Ctrl-C (``cpn step NET --web``), :func:`running` for a while (tests, a
notebook).

The server listens on 127.0.0.1 only, on the port asked for or a free
one, and says where.  uvicorn does the HTTP; the socket is bound here
first, so a port in use is reported before anything starts and the
port of a free one is known.
"""

from __future__ import annotations

import contextlib
import os
import socket
import threading
import time
from typing import Callable, Iterator

import uvicorn

from ..flatten import FlatNet
from ..interrupts import ctrl_c_requests
from ..net import Net
from .app import create_app
from .session import WebSession

HOST = "127.0.0.1"


class PortInUse(OSError):
    """The port asked for cannot be listened on."""


def listen(port: int | None = None) -> socket.socket:
    """A socket listening on ``HOST``: on ``port``, or a free one.  A port
    whose last server stopped is free again at once: its closed connections
    wait a minute in TIME_WAIT, which SO_REUSEADDR lets a new server ignore
    (it still cannot share the port with a live one; not on Windows, where
    it would let it)."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    if os.name != "nt":
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((HOST, port or 0))
    except OSError as error:
        sock.close()
        raise PortInUse(f"cannot listen on {HOST}:{port}: {error.strerror or error} "
                        "(choose another --port, or leave it out for a free one)") from None
    sock.listen()
    return sock


def url_of(sock: socket.socket) -> str:
    return f"http://{HOST}:{sock.getsockname()[1]}/"


def _server(session: WebSession) -> uvicorn.Server:
    return uvicorn.Server(uvicorn.Config(create_app(session), log_level="warning",
                                         access_log=False))


def _session(net: Net | FlatNet | WebSession, seed: int | None) -> WebSession:
    return net if isinstance(net, WebSession) else WebSession(net, seed=seed)


def serve(net: Net | FlatNet | WebSession, port: int | None = None, seed: int | None = 0,
          announce: Callable[[str], None] = print) -> None:
    """Serve a session stepping ``net`` until interrupted (Ctrl-C), then
    return; ``announce`` is told the address to open."""
    session = _session(net, seed)
    sock, server = listen(port), _server(session)
    # Ctrl-C is a request from here on, but while uvicorn serves (it takes
    # SIGINT over, and gives back what it caught): raised in the middle of
    # the announcement it left rich's text in its buffer, printed again
    # later; raised as asyncio or uvicorn started, it left a coroutine never
    # awaited or a CancelledError's traceback on stderr.
    with sock, ctrl_c_requests() as pressed:
        announce(url_of(sock))
        ended = threading.Event()
        try:
            if not pressed():
                threading.Thread(target=_stop_once_started, args=(server, pressed, ended),
                                 name="cpn-web-ctrl-c", daemon=True).start()
                server.run(sockets=[sock])
        except KeyboardInterrupt:  # SIGINT was not ours to take (a caller's own handler)
            pass
        finally:
            ended.set()
        session.stop()


def _stop_once_started(server: uvicorn.Server, pressed: Callable[[], bool],
                       ended: threading.Event) -> None:
    """Stop ``server`` once started if Ctrl-C came before it took SIGINT
    over (and give up if it ``ended`` without starting)."""
    while not (server.started or ended.wait(0.02)):
        pass
    if pressed():
        server.should_exit = True


@contextlib.contextmanager
def running(net: Net | FlatNet | WebSession, port: int | None = None,
            seed: int | None = 0, timeout: float = 10.0) -> Iterator[str]:
    """Serve a session in a background thread while the block runs;
    gives the address.  The server stops at the end of the block."""
    session = _session(net, seed)
    sock = listen(port)
    server = _server(session)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]},
                              name="cpn-web-server", daemon=True)
    thread.start()
    deadline = time.monotonic() + timeout
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            sock.close()
            raise RuntimeError("the web server did not start")
        time.sleep(0.02)
    try:
        yield url_of(sock)
    finally:
        session.stop()
        server.should_exit = True
        thread.join(timeout)
        sock.close()
