"""Files of one idea, functions that fit on a screen: no source file of the
package, its benchmarks or its examples over 400 lines, no function over 60 (its ``def`` line to its last,
docstring and nested functions included)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SOURCES = ("cpn", "modules", "nets", "cli", "studies", "bench", "examples")
MAX_FILE_LINES = 400
MAX_FUNCTION_LINES = 60

def source_files() -> list[Path]:
    return sorted(path for directory in SOURCES if (ROOT / directory).is_dir()
                  for path in (ROOT / directory).rglob("*.py"))


def too_long_functions(source: str) -> list[tuple[str, int, int]]:
    """``(name, first line, lines)`` of each function longer than the limit."""
    return [(node.name, node.lineno, node.end_lineno - node.lineno + 1)
            for node in ast.walk(ast.parse(source))
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
            and node.end_lineno - node.lineno + 1 > MAX_FUNCTION_LINES]


@pytest.mark.parametrize("path", source_files(),
                         ids=lambda p: p.relative_to(ROOT).as_posix())
def test_file_and_function_lengths(path):
    source = path.read_text(encoding="utf-8")
    lines = len(source.splitlines())
    assert lines <= MAX_FILE_LINES, f"{lines} lines: split it by idea"
    assert too_long_functions(source) == [], "split these functions into readable pieces"


def test_the_checker_sees_the_package_and_catches_a_long_function():
    assert {"cli/main.py", "cpn/stepper/session.py", "modules/energy_saving/module.py",
            "bench/puppet.py", "examples/puppet_fig2.py"} <= {
        p.relative_to(ROOT).as_posix() for p in source_files()}
    body = "\n".join(f"    x{i} = {i}" for i in range(MAX_FUNCTION_LINES))
    assert too_long_functions(f"def short():\n    pass\n\n\ndef long():\n{body}\n") == [
        ("long", 5, MAX_FUNCTION_LINES + 1)]

