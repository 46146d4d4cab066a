"""What every test shares: a cache directory of its own, so that no test
reads what a user's runs (or another test) remembered, nor writes there;
and property tests that draw the same examples on every run, so that a
verdict (and the suite's time) does not depend on the day's luck (to
search new examples: ``HYPOTHESIS_PROFILE=explore python -m pytest``);
and Ctrl-C as a terminal gives it, for the tests of Ctrl-C."""

from __future__ import annotations

import os
import signal

import pytest
from hypothesis import settings

settings.register_profile("repeatable", derandomize=True)
settings.register_profile("explore", derandomize=False)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "repeatable"))

# A suite started in the background (``cmd &``, nohup, some CI runners)
# inherits SIGINT ignored, and so would every command it starts: the tests
# that press Ctrl-C would fail for the shell's sake, not the code's.
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)


@pytest.fixture(autouse=True)
def private_cache(tmp_path_factory, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path_factory.mktemp("cache")))
