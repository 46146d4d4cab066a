"""Errors a user can meet, each naming what in their net is wrong.

A net is checked when it is built (flattened and compiled), so a typo in an
inscription is reported before the first firing, with the transition, the
arc and the text, instead of surfacing as a traceback deep in a run.
"""


class NetError(ValueError):
    """The net is malformed: unknown variable, missing node, bad port, ..."""


class UnknownNameError(NetError, KeyError):
    """No place or transition of that name: a ``KeyError`` too, for code
    that asks whether a net has one, but shown as its message (a
    ``KeyError`` shows its text quoted, as a missing key)."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else ""


class ColourError(TypeError):
    """A token does not belong to the colour set of the place it enters."""


class BindingError(RuntimeError):
    """A binding cannot be fired (stale, or evaluating an inscription failed)."""


class MonitorError(RuntimeError):
    """A monitor (or a run's ``stop_when``) raised while it observed a run:
    the message names it and the firing or clock move it was told of,
    ``__cause__`` is what it raised."""


class NetWarning(UserWarning):
    """A net that runs, but may not run as its author meant (a transition
    without input arcs); the message names the net and the node."""


class NetFileError(NetError):
    """A data file that cannot be read or a net that cannot be written; the
    message names the file, the line when known, the node and the text."""

    #: The name the file uses that the registry it was read with lacks (a
    #: function of ``[functions]``), for a hint on how to give a registry.
    registry_lacks: str | None = None
