"""Arc inscriptions, guards and code segments as readable text.

Inscriptions are Python expressions with the CPN Tools multiset notation on
top, so a net can be printed, drawn and exported exactly as written:

``x``                   one token bound to (or equal to) variable ``x``
``(job, n)``            a tuple pattern: binds ``job`` and ``n``
``3`` / ``'ready'``     a constant
``x + 1``               an expression over variables bound elsewhere
```2`x ++ y```          a multiset: two tokens equal to ``x`` and one ``y``
``job@+job.rt``         (output arcs) a token delayed by ``job.rt``
``*started``            (output arcs) every element of an iterable is a token;
                        into a timed place, an element ``Delayed(v, d)`` is
                        the token ``v`` with its own extra delay ``d``

Text is parsed once into :class:`Term` objects; the simulator compiles them
into Python code (see ``compiler.py``), never evaluating text per binding.
"""

from __future__ import annotations

import ast
import builtins
import io
import textwrap
import tokenize
from dataclasses import dataclass

from .syntax_trees import parse

#: Names every inscription may use without binding them.
RESERVED = frozenset({"now", "rng"})
INTERNAL_PREFIX = "_cpn_"


@dataclass(frozen=True)
class Term:
    """One summand of a multiset inscription: ``multiplicity`expr@+delay``."""

    expr: str
    multiplicity: int | str = 1
    delay: str | None = None
    splat: bool = False

    def __str__(self) -> str:
        text = ("*" if self.splat else "") + self.expr
        if self.multiplicity != 1:
            text = f"{self.multiplicity}`{text}"
        if self.delay is not None:
            text = f"{text}@+{self.delay}"
        return text


def _split_top_level(text: str, separator: str) -> list[str]:
    """Split ``text`` on ``separator`` outside brackets, string literals and
    ``#`` comments (a comment runs to the end of its line)."""
    parts, depth, quote, start, i = [], 0, None, 0, 0
    while i < len(text):
        ch = text[i]
        if quote:
            if ch == "\\":
                i += 1
            elif ch == quote:
                quote = None
        elif ch in "'\"":
            quote = ch
        elif ch == "#":
            end = text.find("\n", i)
            i = len(text) if end < 0 else end
            continue
        elif ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif depth == 0 and text.startswith(separator, i):
            parts.append(text[start:i])
            i += len(separator)
            start = i
            continue
        i += 1
    parts.append(text[start:])
    return parts


def parse_terms(text: str) -> list[Term]:
    """Parse a multiset inscription into its terms; raises ``SyntaxError``."""
    terms = []
    for part in _split_top_level(str(text), "++"):
        part = part.strip()
        if not part:
            raise SyntaxError("empty term in multiset")
        body, *delay = _split_top_level(part, "@+")
        if len(delay) > 1:
            raise SyntaxError("more than one @+ in a term")
        multiplicity: int | str = 1
        count, *rest = _split_top_level(body, "`")
        if rest:
            if len(rest) > 1:
                raise SyntaxError("more than one ` in a term")
            count_text, body = count.strip(), rest[0]
            multiplicity = int(count_text) if count_text.isdigit() else count_text
            check_expression(str(multiplicity))
        body = body.strip()
        splat = body.startswith("*")
        if splat and rest:
            raise SyntaxError("a '*' term puts each element once: it takes no multiplicity")
        expr = body[1:].strip() if splat else body
        check_expression(expr)
        delay_text = delay[0].strip() if delay else None
        if delay_text is not None:
            check_expression(delay_text)
        terms.append(Term(expr, multiplicity, delay_text, splat))
    return terms


def check_expression(text: str) -> ast.expr:
    """Parse ``text`` as one Python expression (``SyntaxError`` if not)."""
    return parse(text.strip(), mode="eval").body


def free_names(tree: ast.AST, with_builtins: bool = False) -> set[str]:
    """Names an expression or code block reads from outside itself.

    Names bound inside it (comprehension targets, lambda arguments, walrus
    targets) are not free.  Builtins are not reported, unless
    ``with_builtins`` (for code that sees only a few of them).
    """
    loaded, local = set(), set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            (loaded if isinstance(node.ctx, ast.Load) else local).add(node.id)
        elif isinstance(node, ast.arg):
            local.add(node.arg)
    return {name for name in loaded - local if with_builtins or not hasattr(builtins, name)}


def pattern_names(node: ast.expr) -> list[str]:
    """Variables a tuple pattern (or a bare name) would bind, in order."""
    if isinstance(node, ast.Name):
        return [node.id]
    if isinstance(node, ast.Tuple):
        return [name for element in node.elts for name in pattern_names(element)]
    return []


def binds(node: ast.expr, bound: set[str], env_names: set[str]) -> list[str]:
    """Variables an input term would bind, ``bound`` being bound already
    (empty if it is an expression to look up)."""
    if not is_pattern(node):
        return []
    return [n for n in pattern_names(node) if n not in bound and n not in env_names]


def is_pattern(node: ast.expr) -> bool:
    """A name, a constant, or a tuple of patterns: something that can bind."""
    if isinstance(node, (ast.Name, ast.Constant)):
        return True
    return isinstance(node, ast.Tuple) and all(is_pattern(e) for e in node.elts)


def split_conjuncts(text: str) -> list[tuple[str, str]]:
    """A guard ``a and b and c`` as ``[a, b, c]``, so each test can run as
    soon as its variables are bound during the binding search: each as
    Python text, and as the guard writes it (for messages)."""
    tree = check_expression(text)
    if isinstance(tree, ast.BoolOp) and isinstance(tree.op, ast.And):
        return [(ast.unparse(value), ast.get_source_segment(text.strip(), value)
                 or ast.unparse(value)) for value in tree.values]
    return [(text.strip(), text.strip())]


class _Assigned(ast.NodeVisitor):
    """The names a block assigns in its own scope, in the order written
    (an ``if``/``else`` that sets ``y`` on both branches sets ``y``)."""

    def __init__(self):
        self.names: dict[str, None] = {}

    def visit_Name(self, node: ast.Name) -> None:
        if isinstance(node.ctx, ast.Store):
            self.names.setdefault(node.id, None)

    def visit_Assign(self, node) -> None:
        """Every name of a target, ``job`` of ``job.size = 2`` too: the
        compiler refuses a code segment that changes a token an input arc
        bound."""
        for target in getattr(node, "targets", None) or [node.target]:
            for name in ast.walk(target):
                if isinstance(name, ast.Name):
                    self.names.setdefault(name.id, None)
        if node.value is not None:
            self.visit(node.value)

    visit_AugAssign = visit_AnnAssign = visit_Assign

    def visit_ExceptHandler(self, node: ast.ExceptHandler) -> None:
        if node.name:
            self.names.setdefault(node.name, None)
        self.generic_visit(node)

    def _own_scope(self, node) -> None:
        """A function, class, lambda or comprehension: its names are its own."""

    visit_FunctionDef = visit_AsyncFunctionDef = visit_ClassDef = visit_Lambda = _own_scope
    visit_ListComp = visit_SetComp = visit_DictComp = visit_GeneratorExp = _own_scope


@dataclass(frozen=True)
class CodeSegment:
    """A transition's code segment: Python statements run when it fires.

    Names it assigns in its own scope (at top level or in its ``if``,
    ``for``, ``with`` and ``try`` blocks; not in a function or comprehension
    it defines) are its output variables, usable on the output arcs; names
    it reads must be bound by input arcs or come from the environment.
    """

    text: str

    @property
    def source(self) -> str:
        """The statements as they run: an indented block (a triple-quoted
        string in indented Python) dedented, blank lines around it dropped."""
        return textwrap.dedent(self.text).strip("\n")

    @property
    def tree(self) -> ast.Module:
        return parse(self.source)

    def lines(self) -> list[tuple[int, str]]:
        """Its lines, numbered from 1, each as a unit that may be indented:
        the lines a string literal runs on to stay with the one it starts
        on (an indent there would enter the string)."""
        inside: set[int] = set()  # lines that begin within a string
        starts: list[int] = []  # open f-strings (3.12 tokenizes their parts)
        kinds = {getattr(tokenize, name, None): name
                 for name in ("STRING", "FSTRING_START", "FSTRING_END")}
        for token in tokenize.generate_tokens(io.StringIO(self.source).readline):
            kind = kinds.get(token.type)
            if kind == "FSTRING_START":
                starts.append(token.start[0])
            elif kind in ("STRING", "FSTRING_END"):
                first = starts.pop() if kind == "FSTRING_END" else token.start[0]
                inside.update(range(first + 1, token.end[0] + 1))
        units: list[tuple[int, str]] = []
        for number, line in enumerate(self.source.splitlines(), 1):
            if number in inside:
                units[-1] = (units[-1][0], units[-1][1] + "\n" + line)
            else:
                units.append((number, line))
        return units

    @property
    def outputs(self) -> list[str]:
        assigned = _Assigned()
        assigned.visit(self.tree)
        return list(assigned.names)

    def check(self) -> None:
        for node in ast.walk(self.tree):
            if isinstance(node, (ast.Return, ast.Yield, ast.YieldFrom,
                                 ast.Global, ast.Nonlocal)):
                raise SyntaxError(
                    f"'{type(node).__name__.lower()}' is not allowed in a code segment")
