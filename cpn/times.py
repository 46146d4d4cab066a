"""Times as people read them: exact, and short when they are whole.

``f"{t:g}"`` keeps six significant digits: a clock in seconds passes a
million after 11.6 days, and 1234567 and 1234566.5 both read 1.23457e+06.
"""

from __future__ import annotations


def time_text(time: float) -> str:
    """``time`` in full: a whole number without its ``.0``, any other the
    shortest text that reads back as the same float (``repr``).

    >>> time_text(1234567.0), time_text(1234566.5), time_text(0.1), time_text(float("inf"))
    ('1234567', '1234566.5', '0.1', 'inf')
    """
    if time == time and abs(time) < 1e16 and time == int(time):
        return str(int(time))
    return repr(float(time))
