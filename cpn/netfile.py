"""Nets as data files: TOML that loads without running the file's code.

A net written in Python is shared as a program: opening it runs it.  A
data file holds the same net as plain data, read by :func:`load` (``cpn
step net.toml`` too) and written by ``net.save(path)``::

    format = 1
    name = "loop"

    [constants]
    LIMIT = 10

    [places.P]
    colour = "int"
    initial = [0]
    timed = true

    [transitions.Tick]
    guard = "x < LIMIT"
    inputs = { P = "x" }
    outputs = { P = "x + 1@+5" }

Why TOML: people write it by hand without surprises (no indentation that
changes meaning, no ``no`` read as false), it has comments, tables name
the nodes (``[transitions.Tick]``) so a diff of two files reads as a diff
of two nets, and Python reads it with the standard library (``tomllib``);
writing uses ``tomli-w``.

What a file holds, table by table:

- ``[colours.NAME]``: records, a field name -> colour each (``id = "int"``).
  A record the reader's registry names with the same fields is that type
  (so PuPPET's jobs keep their methods); any other is a named tuple.
- ``[constants]``: values of the environment (numbers, strings, booleans;
  arrays are read as tuples, tables as ``FrozenDict``).
- ``[functions]``: environment names bound to the registry the reader
  passes (``cpn.load(path, functions={...})``): each an expression of the
  language of ``cpn.expressions``, evaluated once when loading, over the
  registry, the constants, the functions above it, ``partial``,
  ``FrozenDict`` and ``Delayed``: ``"easy_pass_on_nodes"``, ``"partial(easy_pass_on_nodes,
  policy='wfp')"``, ``"PowerModel(node_watts=100.0).busy_delta"``.
- ``[places.NAME]``: ``colour`` (``int``, ``float``, ``str``, ``bool``,
  ``tuple``, ``frozenset``, ``FrozenDict``, ``dict``, ``None``, a record, a
  type or predicate of the registry, ``A | B``, ``tuple[A, ...]``,
  ``tuple[A, B]``, ``frozenset[A]``, ``FrozenDict[A, B]``, as a place's
  colour in Python (``colour_sets.py``); ``any`` when left out; a
  frozenset token has no TOML form), ``initial`` (an array of
  tokens; in a timed place ``{ token = ..., at = 5.0 }`` is a token
  available from time 5), ``timed``, ``fusion``, ``port``
  (``in``/``out``/``inout``).
- ``[transitions.NAME]``: ``guard``, ``delay``, ``priority`` (default
  1000), ``code`` (assignments), ``inputs`` and ``outputs`` (place ->
  inscription, or an array of inscriptions for several arcs).
- ``[substitutions.NAME]``: ``module`` (a key of ``[modules]``) and
  ``sockets`` (port -> place).
- ``[modules.KEY]``: a module, with the tables of a net (and ``name`` when
  it differs from its key).

Guards, inscriptions, delays and code segments are checked against the
expression language before anything is compiled; nothing in a file is
imported, unpickled or evaluated outside it.  Every error names the file,
the line when it can be found, the node and the text.

Here are the entry points; ``netfile_reader.py`` reads, ``netfile_writer.py``
writes, ``netfile_values.py`` holds the keys and tokens, ``colour_text.py``
the colours (shared with PNML).
"""

from __future__ import annotations

import tomllib
import types
from os import PathLike
from pathlib import Path
from typing import Any, Mapping

import tomli_w

from .editing import validate
from .errors import ColourError, NetError, NetFileError
from .net import Net
from .netfile_lines import line_of_error
from .netfile_reader import Reader
from .netfile_writer import Writer

__all__ = ["NetFileError", "dumps", "load", "loads", "save"]


# -- writing -------------------------------------------------------------------
def save(net: Net, path: str | Path, functions: Mapping[str, Any] | None = None) -> None:
    """Write ``net`` to ``path`` (see :func:`dumps`)."""
    Path(path).write_text(dumps(net, functions), encoding="utf-8")


def dumps(net: Net, functions: Mapping[str, Any] | None = None) -> str:
    """``net`` as a data file.  ``functions`` names what its environments
    hold that is not plain data (the registry :func:`load` will be given);
    whatever cannot be written so that it reads back the same is refused,
    naming it."""
    validate(net)
    return tomli_w.dumps(Writer(_registry(functions)).document(net),
                         multiline_strings=True)


# -- reading -------------------------------------------------------------------
def load(path: str | Path, functions: Mapping[str, Any] | None = None) -> Net:
    """The net of the data file ``path``; ``functions`` is the registry its
    ``[functions]`` and colours may name (nothing else is callable)."""
    if not isinstance(path, (str, PathLike)):  # else a TypeError of Path naming nothing
        raise NetFileError(f"path must be a net file's path (a str or a Path), not {path!r}")
    try:
        data = Path(path).read_bytes()
    except OSError as error:
        raise NetFileError(f"{path}: cannot read it: {error.strerror or error}") from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise NetFileError(f"{path}: not UTF-8 text (byte {error.start})") from None
    return loads(text, functions, source=str(path))


def loads(text: str, functions: Mapping[str, Any] | None = None,
          source: str = "<net file>") -> Net:
    """The net of data file text ``text``; ``source`` names it in errors."""
    registry = _registry(functions)
    try:
        document = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise NetFileError(f"{source}: not TOML: {error}") from None
    except RecursionError:
        raise NetFileError(f"{source}: not TOML: values nested too deeply") from None
    reader = Reader(source, text, registry)
    try:
        net = reader.document(document, Path(source).stem)
    except RecursionError:
        raise NetFileError(f"{source}: values nested too deeply") from None
    try:
        validate(net)
    except (NetError, ColourError) as error:
        # names come from the file: a newline in one must not break the line
        message = "".join(c if c.isprintable() else repr(c)[1:-1] for c in str(error))
        message = message.removeprefix(f"net '{net.name}', ")  # the file names it
        line = line_of_error(message, reader.lines, net, reader.modules)
        raise NetFileError(f"{source}{f', line {line}' if line else ''}: {message}") from None
    return net


def _registry(functions: Mapping[str, Any] | None) -> dict[str, Any]:
    if not isinstance(functions, (Mapping, type(None))):  # a module: the --functions habit
        raise NetFileError(f"functions is the registry a file may name, a dict of names "
                           f"(nets.puppet.FUNCTIONS), not {functions!r:.80}")
    registry = dict(functions or {})
    for name, value in registry.items():
        if not isinstance(name, str) or not name.isidentifier() or name.startswith("_"):
            raise NetFileError(f"registry: {name!r} is not a name a file can use "
                               "(an identifier not starting with '_')")
        if isinstance(value, types.ModuleType):
            raise NetFileError(f"registry: {name!r} is a module, which would open "
                               "everything it imports to the file: register its "
                               "functions one by one")
    return registry
