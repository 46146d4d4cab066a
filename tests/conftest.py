"""What every test shares: a cache directory of its own, so that no test
reads what a user's runs (or another test) remembered, nor writes there."""

from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def private_cache(tmp_path_factory, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path_factory.mktemp("cache")))
