"""The examples in the docstrings run as they are written: a reader who
types one gets what the docstring shows."""

from __future__ import annotations

import doctest
import importlib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("cpn", "modules", "nets", "studies", "cli")


def modules_with_examples() -> list[str]:
    """Dotted names of the project's modules whose source shows a ``>>>``."""
    return sorted(".".join(path.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__")
                  for package in PACKAGES for path in (ROOT / package).rglob("*.py")
                  if ">>>" in path.read_text(encoding="utf-8"))


def test_the_modules_with_examples_are_found():
    assert "cpn.monitors" in modules_with_examples()


@pytest.mark.parametrize("name", modules_with_examples())
def test_docstring_examples_run(name):
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS,
                             verbose=False, report=True)
    assert result.failed == 0, f"{result.failed} example(s) of {name} failed (printed above)"
