"""Loading the net ``cpn step``, ``cpn replay`` and ``cpn check`` take: a
Python file or dotted module (run as Python), a built-in net, or a data
file read without running any of its text, its functions taken from a
registry (``--functions``)."""

from __future__ import annotations

import importlib
import importlib.util
import sys
from pathlib import Path

from cpn.errors import ColourError, NetError
from cpn.flatten import FlatNet
from cpn.net import Net


class LoadError(Exception):
    """NET cannot be loaded; the message says why, in one line."""


#: Built-in nets, by the name ``cpn step`` takes.
BUILT_IN = {"puppet": "nets.demo"}


#: Suffixes of data files (``cpn.netfile``), read without running code.
DATA_SUFFIXES = (".toml",)


def load_net(spec: str, functions: str | None = None) -> Net | FlatNet:
    """The net of a Python file or dotted module (its ``net`` attribute, or
    what its ``build_net()`` returns), a built-in one (``puppet``), or a
    data file read with the registry ``functions`` names (a module with a
    ``FUNCTIONS`` dict)."""
    return load_net_and_module(spec, functions)[0]


#: What a net file's ``BREAKPOINTS`` holds, for the browser's breakpoint form.
BREAKPOINTS_HELP = "a dict of name -> (place path, function of the place's token values)"


def load_net_and_module(spec: str, functions: str | None = None) -> tuple[Net | FlatNet, object]:
    """The net, and the Python module it came from (None for a data file),
    for commands that read more of the module (``cpn check``: its QUERIES)."""
    given, spec = spec, BUILT_IN.get(spec, spec)
    path = Path(spec)
    if path.suffix.lower() in DATA_SUFFIXES:  # PC.TOML too
        return _load_data_file(path, functions), None
    if functions:
        what = "built in" if given in BUILT_IN else "Python and imports what it needs"
        raise LoadError(f"--functions {functions}: only a data file ({', '.join(DATA_SUFFIXES)})"
                        f" takes a registry; {given} is {what}")
    module = _load_module(spec, path)
    return _net_of(module, spec), module


def load_net_and_breakpoints(spec: str, functions: str | None = None
                             ) -> tuple[Net | FlatNet, dict[str, tuple]]:
    """:func:`load_net`, and the place predicates a Python net file offers
    as breakpoints: its ``BREAKPOINTS`` dict (none for a data file)."""
    net, module = load_net_and_module(spec, functions)
    return net, {} if module is None else _breakpoints_of(module, BUILT_IN.get(spec, spec))


def _load_data_file(path: Path, functions: str | None) -> Net:
    from cpn.netfile import NetFileError, load

    registry = _registry(functions) if functions else {}
    try:
        return load(path, functions=registry)
    except NetFileError as error:
        hint = ("" if functions or error.registry_lacks is None else
                " (a net naming functions needs --functions MODULE, e.g. --functions "
                "nets.puppet)")
        raise LoadError(f"{error}{hint}") from None


def _load_module(spec: str, path: Path):
    """The module of a Python file or a dotted module name, imported (run)."""
    if spec.endswith(".py") or path.exists() or "/" in spec or "\\" in spec:
        if path.is_dir():
            raise LoadError(f"{spec} is a directory: give a net's .py or .toml file")
        if not path.is_file():
            raise LoadError(f"no such file: {spec}")
        return _import_file(path)
    try:
        return importlib.import_module(spec)
    except ModuleNotFoundError as error:
        raise LoadError(f"cannot import {spec!r}: {error} (give a .py file path "
                        "or a dotted module name on the Python path)") from None
    except Exception as error:  # noqa: BLE001 - the user's module failed
        raise LoadError(f"importing {spec!r} failed: "
                        f"{type(error).__name__}: {error}") from None


def _net_of(module, spec: str) -> Net | FlatNet:
    net = getattr(module, "net", None)
    if net is None and callable(getattr(module, "build_net", None)):
        try:
            net = module.build_net()
        except (NetError, ColourError) as error:
            raise LoadError(f"{spec}: build_net() failed: {error}") from None
        except Exception as error:  # noqa: BLE001 - the user's code failed
            raise LoadError(f"{spec}: build_net() failed: "
                            f"{type(error).__name__}: {error}") from None
    if net is None:
        raise LoadError(f"{spec} has neither a 'net' attribute nor a build_net() "
                        "function")
    if not isinstance(net, (Net, FlatNet)):
        raise LoadError(f"{spec}: 'net' is a {type(net).__name__}, not a cpn.Net")
    return net


def _breakpoints_of(module, spec: str) -> dict[str, tuple]:
    found = getattr(module, "BREAKPOINTS", {})
    if not isinstance(found, dict):
        raise LoadError(f"{spec}: BREAKPOINTS is a {type(found).__name__}, not "
                        f"{BREAKPOINTS_HELP}")
    for name, entry in found.items():
        if not (isinstance(name, str) and isinstance(entry, tuple) and len(entry) == 2
                and isinstance(entry[0], str) and callable(entry[1])):
            raise LoadError(f"{spec}: BREAKPOINTS[{name!r}] is {entry!r}; expected "
                            f"{BREAKPOINTS_HELP}")
    return dict(found)


def _registry(functions: str) -> dict:
    """The ``FUNCTIONS`` of the module ``--functions`` names: a dotted name,
    or a .py file (a registry of one's own sits beside the net file, and
    the ``cpn`` script does not import from the working directory)."""
    if functions.endswith(".py") or "/" in functions or "\\" in functions:
        try:
            module = _load_module(functions, Path(functions))
        except LoadError as error:
            raise LoadError(f"--functions {functions}: {error}") from None
    else:
        try:
            module = importlib.import_module(functions)
        except ImportError as error:
            raise LoadError(f"--functions {functions}: cannot import it: {error} (give a "
                            ".py file path or a dotted module name on the Python path)") from None
    registry = getattr(module, "FUNCTIONS", None)
    if not isinstance(registry, dict):
        raise LoadError(f"--functions {functions}: the module has no FUNCTIONS dict "
                        "(name -> function or type)")
    return registry


def _import_file(path: Path):
    """Import a file as a module of its own (so its dataclasses and pickling
    work), its directory on ``sys.path`` so it can import its neighbours."""
    path = path.resolve()
    name = f"_cpn_net_{abs(hash(str(path)))}"
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise LoadError(f"cannot import {path} as Python")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    directory = str(path.parent)
    added = directory not in sys.path
    if added:
        sys.path.insert(0, directory)
    try:
        spec.loader.exec_module(module)
    except SystemExit:
        raise LoadError(f"{path.name} exited while being imported (guard its script "
                        "part with if __name__ == '__main__':)") from None
    except Exception as error:  # noqa: BLE001 - the user's file failed
        del sys.modules[name]
        raise LoadError(f"importing {path} failed: {type(error).__name__}: "
                        f"{error}") from None
    finally:
        if added:
            sys.path.remove(directory)
    return module
