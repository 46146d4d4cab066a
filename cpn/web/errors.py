"""The one error a page's request can meet: :class:`SessionError`."""


class SessionError(Exception):
    """A request the session refuses; the message says why in one line,
    naming the field.  ``conflict`` when the request was fine but the
    session cannot take it now (a run in progress, a stale binding list)."""

    def __init__(self, message: str, conflict: bool = False):
        super().__init__(message)
        self.conflict = conflict
