"""The code in README.md and docs/*.md runs as a reader would paste it:
each page's ```python blocks in order, in one namespace, in a fresh
directory; a block written as a session (``>>>``) prints what it shows
("…" stands for text left out).  A block that needs what a reader brings
(a real trace, Mira's logs) or minutes says so in a comment just above it,
``<!-- not run: why -->``: it is only compiled, and its imports checked.

What a page takes for granted is set up first (:data:`GIVEN`): the trace a
reader would name (``trace.swf``), the nets a page speaks of."""

from __future__ import annotations

import ast
import doctest
import importlib
import re
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
NOT_RUN = re.compile(r"<!-- not run: (.+?) -->")

#: What each page takes for granted, run before its first block.
GIVEN = {
    "README.md": """
from pathlib import Path
from tiny_traces import write_two_month_trace
write_two_month_trace(Path("trace.swf"), nodes=16, seed=3, later_jobs=0, later_gap=0,
                      max_procs=16)  # the reader's trace: 40 jobs on 16 nodes
""",
    "editing.md": """
from modules.job import Job
jobs = [Job(1, 0, 100, 4, 100, jp=400.0), Job(2, 0, 50, 1, 50, jp=100.0),
        Job(3, 40, 100, 4, 100, jp=400.0)]
from cpn import Net
net = Net("loop")  # the README's
net.place("P", int, initial=[0], timed=True)
net.transition("Tick", guard="x < 10")
net.arc("P", "Tick", "x")
net.arc("Tick", "P", "x + 1@+5")
""",
    "stepping.md": """
import runpy
net = runpy.run_path(str(ROOT / "examples" / "producer_consumer.py"))["net"]
""",
}


class Block:
    """One ```python block of a page: its first line's number, its code,
    and why it is not run (None: it is)."""

    def __init__(self, line: int, code: str, not_run: str | None):
        self.line, self.code, self.not_run = line, textwrap.dedent(code), not_run

    @property
    def session(self) -> bool:
        return self.code.lstrip().startswith(">>>")


def blocks(page: Path) -> list[Block]:
    lines = page.read_text(encoding="utf-8").splitlines()
    found, position = [], 0
    while position < len(lines):
        if lines[position].strip() == "```python":
            end = next(i for i in range(position + 1, len(lines))
                       if lines[i].strip() == "```")
            above = lines[position - 1] if position else ""
            reason = NOT_RUN.search(above)
            found.append(Block(position + 2, "\n".join(lines[position + 1:end]) + "\n",
                               reason.group(1) if reason else None))
            position = end
        position += 1
    return found


def test_every_page_with_code_is_read():
    counted = {page.name: len(blocks(page)) for page in PAGES}
    assert counted["README.md"] >= 8 and counted["stepping.md"] >= 6
    assert sum(counted.values()) >= 24


@pytest.mark.parametrize("page", [p for p in PAGES if blocks(p)], ids=lambda p: p.name)
def test_the_code_of_a_page_runs(page, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    namespace = {"__name__": "__docs__", "ROOT": ROOT}
    exec(GIVEN.get(page.name, ""), namespace)
    for block in blocks(page):
        where = f"{page.name}:{block.line}"
        if block.not_run:
            _check_imports(block.code, where)
        elif block.session:
            _run_session(block.code, namespace, where)
        else:
            exec(compile(block.code, where, "exec"), namespace)


def _check_imports(code: str, where: str) -> None:
    """The block compiles and every name it imports exists."""
    for node in ast.walk(ast.parse(code, where)):
        if isinstance(node, ast.ImportFrom):
            module = importlib.import_module(node.module)
            for alias in node.names:
                assert hasattr(module, alias.name), f"{where}: {node.module}.{alias.name}"
        elif isinstance(node, ast.Import):
            for alias in node.names:
                importlib.import_module(alias.name)


def _run_session(code: str, namespace: dict, where: str) -> None:
    """A ``>>>`` block gives the output it shows ("…": text left out)."""
    test = doctest.DocTestParser().get_doctest(code.replace("…", "..."), namespace, where,
                                               where, 0)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS
                                   | doctest.NORMALIZE_WHITESPACE)
    report = []
    runner.run(test, out=report.append, clear_globs=False)
    assert runner.failures == 0, "".join(report)


def test_a_not_run_block_must_say_why(tmp_path):
    page = tmp_path / "page.md"
    page.write_text("<!-- not run: needs Mira's logs -->\n```python\nimport os\n```\n"
                    "```python\nx = 1\n```\n")
    assert [(b.line, b.not_run) for b in blocks(page)] == [(3, "needs Mira's logs"),
                                                           (6, None)]
