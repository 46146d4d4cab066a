"""The stepping page in a Jupyter notebook, as a widget::

    from cpn.web.widget import StepperWidget
    StepperWidget(net)          # the last line of a cell shows it

It is the served page itself (``static/*.js``), its requests carried
by the widget's comm instead of HTTP and answered by the same
:func:`cpn.web.api.answer`; so nothing listens on a port.  anywidget
(``pip install 'cpn[notebook]'``) loads it in Jupyter, JupyterLab and VS
Code.  ``widget.session`` is the :class:`WebSession` it drives, for the
cells around it.
"""

from __future__ import annotations

import re
import weakref
from pathlib import Path
from typing import Any

import anywidget
import traitlets

from ..flatten import FlatNet
from ..net import Net
from .api import answer
from .session import WebSession

STATIC = Path(__file__).parent / "static"


#: The page's scripts, each after those it imports.
SCRIPTS = ("markup.js", "names.js", "zoom.js", "elements.js", "log.js", "places.js",
           "drawing.js", "bindings.js", "breakpoints.js", "trace.js", "running.js",
           "stepper.js", "comm.js")


def page_module() -> str:
    """The page's scripts as one module, as anywidget takes it, ending
    with the comm's transport (``comm.js``): a module it loads cannot
    import its neighbours (``stepper.js`` imports the page's parts, which
    import ``elements.js`` and the like), so each comes after what it
    imports, and the imports go.  ``http.js``, the served page's transport,
    is not needed."""
    scripts = [(STATIC / name).read_text(encoding="utf-8") for name in SCRIPTS]
    return re.sub(r'^import .* from "\./[\w.]+";\n', "", "".join(scripts), flags=re.MULTILINE)


class StepperWidget(anywidget.AnyWidget):
    """Step ``net`` (or drive an existing :class:`WebSession`) in a
    notebook cell, with the controls of ``cpn step --web``."""

    _esm = page_module()
    _css = (STATIC / "style.css").read_text(encoding="utf-8")
    #: Seconds the page waits while the kernel says nothing before a request
    #: fails, saying the kernel stopped answering (``comm.js``).  Generous: a
    #: kernel busy with another cell answers only once the cell ends.
    patience = traitlets.Float(60.0, min=0.1).tag(sync=True)

    def __init__(self, net: Net | FlatNet | WebSession, seed: int | None = 0, **kwargs):
        super().__init__(**kwargs)
        self.session = net if isinstance(net, WebSession) else WebSession(net, seed=seed)
        self._told = self._shown_state()
        self.on_msg(self._answer)
        _after_each_cell(self)

    def _answer(self, widget, request: Any, buffers) -> None:
        """Answer one request of the page, repeating its id; then tell the
        other views if it changed the state."""
        if not isinstance(request, dict):
            return
        status, data = answer(self.session, request.get("kind"), request.get("name"),
                              request.get("args", {}))
        self.send({"id": request.get("id"), "status": status, "data": data})
        self.tell()

    def tell(self) -> None:
        """Have every view draw the state again if it changed since they
        were last told: a cell that stepped ``widget.session`` (or its
        simulator) left the page showing the old marking, and a click
        then jumped several steps while the log said it fired one.  Done
        after each cell in IPython, and after each request of a view."""
        shown = self._shown_state()
        if shown != self._told:
            self._told = shown
            self.send({"changed": shown})

    def _shown_state(self) -> dict[str, Any]:
        """What a view's ``data-ready`` says it shows (the version alone
        misses a cell that ran the simulator itself), and whether a run is
        on: one a cell started may not have fired yet as the cell ends,
        and a view that follows it draws where it ends."""
        sim = self.session.simulator
        return {"version": self.session.version, "step": sim.steps, "time": sim.now,
                "running": self.session.running}


def _after_each_cell(widget: StepperWidget) -> None:
    """Call ``widget.tell()`` after each cell the IPython kernel runs, for
    as long as the widget lives (a weak reference: a cell run again makes a
    new widget, and the old one goes)."""
    try:
        from IPython import get_ipython
    except ImportError:  # pragma: no cover - anywidget needs IPython
        return
    shell = get_ipython()
    if shell is None:
        return
    alive = weakref.ref(widget)

    def after_cell(*_) -> None:
        live = alive()
        if live is None:
            shell.events.unregister("post_run_cell", after_cell)
        else:
            live.tell()
    shell.events.register("post_run_cell", after_cell)
