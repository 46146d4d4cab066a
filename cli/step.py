"""``cpn step NET`` and ``cpn replay NET TRACE``: the stepper in a terminal
(or, with ``--web``, in a browser: :mod:`cpn.web`).

NET is a Python file (``examples/producer_consumer.py``) or a dotted module
name (``nets.puppet``) that exposes a ``net`` attribute or a
``build_net()`` function, both run as Python; or a data file
(``examples/puppet_demo.toml``), read without running any of its text, its
functions taken from the registry ``--functions MODULE`` names (the
module's ``FUNCTIONS``, e.g. ``nets.puppet``; ``cli/net_loading.py``).  The
dispatcher (``cli/main.py``) registers the two subcommands with
:func:`add_step_parsers`; :func:`main_step` runs them on their own
(``main_step(["step", "net.py"])``).

Everything here is a thin shell over :mod:`cpn.stepper` and
:mod:`cpn.trace`, which a notebook can use directly; ``cli/terminal.py``
draws the session and reads the commands.
"""

from __future__ import annotations

import argparse
import contextlib
import sys
from typing import TYPE_CHECKING

from cpn.errors import BindingError, ColourError, NetError
from cpn.flatten import FlatNet
from cpn.net import Net

from .flags import CommandParser
from .net_loading import LoadError, load_net, load_net_and_breakpoints
from .values import non_negative_int

if TYPE_CHECKING:  # the commands import them: the parser alone needs neither
    from rich.console import Console

    from cpn.stepper import Stepper


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

    console, errors = make_console(), make_console(stderr=True)  # errors apart from the session
    refused = _web_flags_refused(args)
    if refused:
        errors.print(Text(f"cpn step: error: {refused}", style="red"))
        return 2
    try:
        if args.web:
            return _serve(*load_net_and_breakpoints(args.net, args.functions), args, console,
                          errors)
        net = load_net(args.net, args.functions)
        stepper = Stepper(net, seed=args.seed, show=show_on(console), show_diff=args.diff,
                          width=lambda: console.width)
        if args.trace is not None:
            replay_on(stepper.simulator, args.trace)
    except LoadError as error:
        errors.print(Text(f"cpn step: error: {error}", style="red"))
        return 2
    except (NetError, ColourError) as error:
        errors.print(Text(f"cpn step: error: the net is invalid: {error}", style="red"))
        return 2
    except OSError as error:
        errors.print(Text(f"cpn step: error: --trace {args.trace}: cannot read it: "
                          f"{error.strerror or error}", style="red"))
        return 2
    except ReplayError as error:
        errors.print(Text(f"cpn step: error: --trace {args.trace}: {error}", style="red"))
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
           console: Console, errors: Console) -> int:
    """Serve the stepper to a browser on 127.0.0.1 until Ctrl-C, offering
    the net file's ``breakpoints``, from where ``--trace`` leads if given;
    ``errors`` says why it cannot."""
    from rich.text import Text

    try:
        from cpn.web import SessionError, WebSession, serve
        from cpn.web.server import PortInUse
    except ImportError as error:
        errors.print(Text(f"cpn step: error: --web: {error}", style="red"))
        return 2

    def announce(url: str) -> None:  # one line, however narrow: a script may look for it
        console.print(Text(f"stepping {net.name} in the browser at {url} "
                           "(Ctrl-C stops the server)", style="bold"), soft_wrap=True)

    try:
        session = WebSession(net, seed=args.seed, named=breakpoints)
    except SessionError as error:
        errors.print(Text(f"cpn step: error: {args.net}: {error}", style="red"))
        return 2
    if args.trace is not None:  # its errors are run_step's, as in the terminal
        from cpn.trace import replay_on

        replay_on(session.stepper.simulator, args.trace)
    try:
        serve(session, port=args.port, announce=announce)
    except PortInUse as error:
        errors.print(Text(f"cpn step: error: --port: {error}", style="red"))
        return 2
    console.print("stopped")
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
FUNCTIONS_HELP = ("for a data file: the module (a dotted name or a .py file) whose "
                  "FUNCTIONS dict is the registry of the functions and types the file "
                  "names (e.g. nets.puppet)")


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
    parser = CommandParser(prog="cpn")
    add_step_parsers(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(argv)
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main_step())
