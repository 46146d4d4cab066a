"""``cpn step NET`` and ``cpn replay NET TRACE``: the stepper in a terminal
(or, with ``--web``, in a browser: :mod:`cpn.web`).

NET is a Python file (``examples/producer_consumer.py``) or a dotted module
name (``nets.puppet``) that exposes a ``net`` attribute or a
``build_net()`` function, both run as Python; or a data file
(``examples/puppet_demo.toml``), read without running any of its text, its
functions taken from the registry ``--functions MODULE`` names (the
module's ``FUNCTIONS``, e.g. ``nets.puppet``).  The dispatcher (``cli/main.py``) registers the
two subcommands with :func:`add_step_parsers`; :func:`main_step` runs them
on their own (``main_step(["step", "net.py"])``).

Everything here is a thin shell over :mod:`cpn.stepper` and
:mod:`cpn.trace`, which a notebook can use directly; ``cli/terminal.py``
draws the session and reads the commands.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import importlib.util
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from cpn.errors import BindingError, ColourError, NetError
from cpn.flatten import FlatNet
from cpn.net import Net

from .values import non_negative_int

if TYPE_CHECKING:  # the commands import them: the parser alone needs neither
    from rich.console import Console

    from cpn.stepper import Stepper


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
    spec = BUILT_IN.get(spec, spec)
    path = Path(spec)
    if path.suffix in DATA_SUFFIXES:
        return _load_data_file(path, functions), None
    if functions:
        raise LoadError(f"--functions {functions}: only a data file ({', '.join(DATA_SUFFIXES)})"
                        f" takes a registry; {spec} is Python and imports what it needs")
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
        hint = ("" if functions else " (a net naming functions needs --functions "
                                     "MODULE, e.g. --functions nets.puppet)")
        raise LoadError(f"{error}{hint if 'registry' in str(error) else ''}") from None


def _load_module(spec: str, path: Path):
    """The module of a Python file or a dotted module name, imported (run)."""
    if spec.endswith(".py") or path.exists() or "/" in spec or "\\" in spec:
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
    """The ``FUNCTIONS`` of the module ``--functions`` names."""
    try:
        module = importlib.import_module(functions)
    except ImportError as error:
        raise LoadError(f"--functions {functions}: cannot import it: {error}") from None
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


def _lines(file):
    for line in file:
        yield line.rstrip("\n")


def run_step(args: argparse.Namespace) -> int:
    """``cpn step``: a stepping session, interactive or from ``--script``,
    in the terminal or (``--web``) in a browser, from the initial marking
    or from where ``--trace`` leads."""
    from rich.text import Text

    from cpn.stepper import Stepper
    from cpn.trace import ReplayError, replay_on

    from .terminal import make_console, show_on

    console = make_console()
    refused = _web_flags_refused(args)
    if refused:
        console.print(Text(f"cpn step: {refused}", style="red"))
        return 2
    try:
        if args.web:
            return _serve(*load_net_and_breakpoints(args.net, args.functions), args, console)
        net = load_net(args.net, args.functions)
        stepper = Stepper(net, seed=args.seed, show=show_on(console), show_diff=args.diff)
        if args.trace is not None:
            replay_on(stepper.simulator, args.trace)
    except LoadError as error:
        console.print(Text(f"cpn step: {error}", style="red"))
        return 2
    except (NetError, ColourError) as error:
        console.print(Text(f"cpn step: the net is invalid: {error}", style="red"))
        return 2
    except OSError as error:
        console.print(Text(f"cpn step: --trace {args.trace}: cannot read it: "
                           f"{error.strerror or error}", style="red"))
        return 2
    except ReplayError as error:
        console.print(Text(f"cpn step: --trace {args.trace}: {error}", style="red"))
        return 1
    return _session(stepper, args.script, console)


def _web_flags_refused(args: argparse.Namespace) -> str | None:
    """Why the flags typed cannot go together, or None."""
    if args.port is not None and not args.web:
        return "--port is the port of the browser front end: give --web too"
    if args.web and args.script is not None:
        return "--web steps in a browser, --script from a file: give one of them"
    if args.port is not None and not 0 < args.port < 65536:
        return f"--port {args.port}: expected a port number from 1 to 65535"
    return None


def _serve(net: Net | FlatNet, breakpoints: dict[str, tuple], args: argparse.Namespace,
           console: Console) -> int:
    """Serve the stepper to a browser on 127.0.0.1 until Ctrl-C, offering
    the net file's ``breakpoints``, from where ``--trace`` leads if given."""
    from rich.text import Text

    try:
        from cpn.web import SessionError, WebSession, serve
        from cpn.web.server import PortInUse
    except ImportError as error:
        console.print(Text(f"cpn step --web: {error}", style="red"))
        return 2

    def announce(url: str) -> None:
        console.print(Text(f"stepping {net.name} in the browser at {url} "
                           "(Ctrl-C stops the server)", style="bold"))

    try:
        session = WebSession(net, seed=args.seed, named=breakpoints)
    except SessionError as error:
        console.print(Text(f"cpn step: {args.net}: {error}", style="red"))
        return 2
    if args.trace is not None:  # its errors are run_step's, as in the terminal
        from cpn.trace import replay_on

        replay_on(session.stepper.simulator, args.trace)
    try:
        serve(session, port=args.port, announce=announce)
    except PortInUse as error:
        console.print(Text(f"cpn step --port: {error}", style="red"))
        return 2
    return 0


def _session(stepper: Stepper, script: str | None, console: Console) -> int:
    from rich.text import Text

    from .terminal import interact

    if script is None:
        interact(stepper, console)
        return 0
    try:
        with (open(script, encoding="utf-8") if script != "-"
              else contextlib.nullcontext(sys.stdin)) as file:
            stepper.session(_lines(file), echo=True)
    except OSError as error:
        console.print(Text(f"cannot read {script}: {error.strerror or error}", style="red"))
        return 2
    return 0


def run_replay(args: argparse.Namespace) -> int:
    """``cpn replay``: fire a saved trace again, show the marking it reaches,
    then optionally keep stepping from there."""
    from rich.text import Text

    from cpn.stepper import Stepper
    from cpn.trace import ReplayError, TraceFileError, load_trace, replay_on

    from .terminal import make_console, show_on

    console = make_console()
    try:
        net = load_net(args.net, args.functions)
        header, records = load_trace(args.trace)
        seed = args.seed if args.seed is not None else (header.get("seed") or 0)
        stepper = Stepper(net, seed=seed, show=show_on(console))
        saved_from = header.get("net")
        if saved_from and saved_from not in (stepper.simulator.net.name, args.net):
            console.print(Text(f"note: {args.trace} was saved from net {saved_from!r}; "
                               f"this is {stepper.simulator.net.name!r}", style="yellow"))
        replay_on(stepper.simulator, args.trace)
    except LoadError as error:
        console.print(Text(f"cpn replay: {error}", style="red"))
        return 2
    except OSError as error:
        console.print(Text(f"cpn replay: cannot read {args.trace}: "
                           f"{error.strerror or error}", style="red"))
        return 2
    except TraceFileError as error:  # bad input, as a malformed trace is to cpn run
        console.print(Text(f"cpn replay: {error}", style="red"))
        return 2
    except ReplayError as error:
        console.print(Text(f"cpn replay: {error}", style="red"))
        return 1
    except (NetError, ColourError, BindingError) as error:
        console.print(Text(f"cpn replay: {error}", style="red"))
        return 2
    sim = stepper.simulator
    firings = f"{len(records)} firing{'' if len(records) == 1 else 's'}"
    console.print(Text(f"replayed {firings} of {args.trace}: "
                       f"time {sim.now:g}, step {sim.steps}", style="bold"))
    if args.step or args.script is not None:
        return _session(stepper, args.script, console)
    stepper.show_marking()
    return 0


NET_HELP = ("a .py file or dotted module exposing 'net' or build_net() (run as Python), "
            "a .toml data file (read, never run), or 'puppet' (the built-in PuPPET net "
            "with three jobs)")
FUNCTIONS_HELP = ("for a data file: the module whose FUNCTIONS dict is the registry of "
                  "the functions and types the file names (e.g. nets.puppet)")


def add_step_parsers(subparsers) -> None:
    """Register ``step`` and ``replay`` on an argparse subparsers object;
    each sets ``func`` to a function of the parsed arguments returning an
    exit code."""
    step = subparsers.add_parser(
        "step", help="step through a net interactively",
        description="Step through a net: fire enabled bindings by number, run, "
                    "set breakpoints, undo, save the trace.  Type help inside.")
    step.add_argument("net", metavar="NET", help=NET_HELP)
    step.add_argument("--functions", metavar="MODULE", help=FUNCTIONS_HELP)
    step.add_argument("--seed", type=non_negative_int, default=0,
                      help="seed of the random choices and of the model's rng (default 0)")
    step.add_argument("--script", metavar="FILE",
                      help="read commands from FILE ('-' for standard input) instead "
                           "of the terminal, echoing them")
    step.add_argument("--diff", action="store_true",
                      help="show the marking diff after each command from the start")
    step.add_argument("--trace", metavar="FILE",
                      help="start where a saved trace leads (the stepper's 'save FILE', or "
                           "a counterexample of cpn check --save)")
    step.add_argument("--web", action="store_true",
                      help="step in a browser: serve a page on 127.0.0.1 showing the net "
                           "drawn with its marking, and print its address")
    step.add_argument("--port", type=int, metavar="N",
                      help="with --web: the port to serve on (default: a free one)")
    step.set_defaults(func=run_step)

    again = subparsers.add_parser(
        "replay", help="fire a saved trace again",
        description="Fire again the firings saved by the stepper's 'save FILE' and "
                    "show the marking they reach; fails naming the first step that "
                    "is not enabled.")
    again.add_argument("net", metavar="NET", help=NET_HELP)
    again.add_argument("--functions", metavar="MODULE", help=FUNCTIONS_HELP)
    again.add_argument("trace", metavar="TRACE", help="a trace saved by the stepper")
    again.add_argument("--seed", type=non_negative_int, default=None,
                       help="seed of the model's rng (default: the one in the trace)")
    again.add_argument("--step", action="store_true",
                       help="keep stepping interactively from the replayed marking")
    again.add_argument("--script", metavar="FILE",
                       help="then run stepper commands from FILE ('-' for stdin)")
    again.set_defaults(func=run_replay)


def main_step(argv: list[str] | None = None) -> int:
    """``main_step(["step", "net.py"])`` or ``main_step(["replay", "net.py",
    "run.jsonl"])``; a leading ``step`` may be left out."""
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0] not in ("step", "replay", "-h", "--help"):
        argv.insert(0, "step")
    parser = argparse.ArgumentParser(prog="cpn")
    add_step_parsers(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(argv)
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main_step())
