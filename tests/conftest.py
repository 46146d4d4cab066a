"""What every test shares: a cache directory of its own, so that no test
reads what a user's runs (or another test) remembered, nor writes there;
and property tests that draw the same examples on every run, so that a
verdict (and the suite's time) does not depend on the day's luck.  To
search new examples: ``HYPOTHESIS_PROFILE=explore python -m pytest``."""

from __future__ import annotations

import os

import pytest
from hypothesis import settings

settings.register_profile("repeatable", derandomize=True)
settings.register_profile("explore", derandomize=False)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "repeatable"))


@pytest.fixture(autouse=True)
def private_cache(tmp_path_factory, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path_factory.mktemp("cache")))
