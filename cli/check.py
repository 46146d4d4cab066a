"""``cpn check NET``: build a net's state space, print its report, check
queries, and show (and save) their counterexamples.

Queries are typed (``--query "always Power <= 350"``, the language of
:mod:`cpn.query.text`) or named: a Python NET may define ``QUERIES``, a
dict of name -> :class:`cpn.query.Query`, and ``--query NAME`` picks one
(all of them without ``--query``).  A failing query's counterexample is
printed as a timeline and, with ``--save DIR``, written as a trace that
``cpn replay NET DIR/NAME.jsonl`` fires again.  A query that cannot be
evaluated in some state is reported on its own line, the others checked
all the same.  On a terminal a line
shows how many states were found so far; Ctrl-C stops the exploration,
and what was explored is reported as an incomplete graph.  Exit status: 0
when every query holds, 1 when one fails or is unknown (the graph is
incomplete), 2 on bad input (a query that cannot be evaluated too), 130
when Ctrl-C stopped it.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

from .output_dir import writable_directory
from .values import non_negative_int, positive_float, positive_int


def add_check_parser(subparsers) -> None:
    from .step import FUNCTIONS_HELP, NET_HELP

    check = subparsers.add_parser(
        "check", help="check properties of a net on its state space",
        description="Build the state space of a net with finitely many tokens, print "
                    "its statistics, and check queries, each with a counterexample "
                    "when it fails.")
    check.add_argument("net", metavar="NET", help=NET_HELP)
    check.add_argument("--functions", metavar="MODULE", help=FUNCTIONS_HELP)
    check.add_argument("--query", metavar="QUERY", action="append", default=[],
                       help="a query, e.g. 'always Power <= 350', 'eventually dead', "
                            "'count(User) == 0 leads to count(Finished) == 4', or the name "
                            "of one of NET's QUERIES (repeatable; default: all QUERIES)")
    check.add_argument("--max-states", type=positive_int, default=100_000,
                       help="stop exploring after this many states (default 100,000)")
    check.add_argument("--time-limit", type=positive_float, default=60.0,
                       help="stop exploring after this many seconds (default 60)")
    check.add_argument("--merge-shifts", action="store_true",
                       help="merge timed states equal up to a shift of the clock (nets "
                            "that never read 'now')")
    check.add_argument("--report", action="store_true",
                       help="also print boundedness, dead transitions and home markings")
    check.add_argument("--save", metavar="DIR", type=Path,
                       help="write each counterexample as a trace DIR/NAME.jsonl for "
                            "cpn replay")
    check.add_argument("--timeline", metavar="LINES", type=non_negative_int, default=40,
                       help="show at most this many lines of each counterexample "
                            "(default 40; 0 for none)")
    check.set_defaults(func=run_check)


def run_check(args: argparse.Namespace) -> int:
    from cpn import Net
    from cpn.errors import BindingError, ColourError, NetError
    from cpn.statespace import StateSpaceError
    from cpn.statespace.report import report

    from .net_loading import LoadError, load_net_and_module

    try:
        if args.save is not None:
            writable_directory(args.save, "--save")
        net, module = load_net_and_module(args.net, args.functions)
        net = net.flatten() if isinstance(net, Net) else net
        queries = chosen_queries(args.query, named_queries(module, args.net),
                                 net.place_names(), args.net)
        space = explored(net, args)
        verdicts = [(name, query, checked(query, space)) for name, query in queries.items()]
    except (LoadError, StateSpaceError, NetError, ColourError, BindingError,
            ValueError) as error:
        print(f"cpn check: error: {error}", file=sys.stderr)  # not into a report piped to a file
        return 2
    except KeyboardInterrupt:  # while checking the queries: the exploration is reported
        print("cpn check: interrupted", file=sys.stderr)
        return 130
    summary = report(space)
    print(f"state space of {args.net}")
    for name, value in summary.summary_rows():
        print(f"  {name:<14} {value}")
    if args.report:
        print("\n".join(str(summary).splitlines()[len(summary.summary_rows()) + 1:]))
    interrupted = 130 if space.stopped and space.stopped.startswith("interrupted") else 0
    if not verdicts:
        print("no queries: give --query, or define QUERIES in NET")
        return interrupted
    show_verdicts(verdicts, args)
    if interrupted or any(isinstance(verdict, str) for _, _, verdict in verdicts):
        return interrupted or 2
    return 0 if all(verdict.holds for _, _, verdict in verdicts) else 1


def explored(net, args: argparse.Namespace):
    """The state space of ``net`` within the bounds asked; on a terminal,
    a line counts the states found, and Ctrl-C stops the exploration
    between two firings (the graph so far is kept, incomplete); a second
    stops it inside a firing, for one that never ends."""
    from rich.console import Console

    from cpn.statespace import state_space
    from cpn.interrupts import ctrl_c_requests

    console = Console(stderr=True)
    with ctrl_c_requests(second_interrupts=True) as ctrl_c:
        if not console.is_terminal:
            return state_space(net, max_states=args.max_states, time_limit=args.time_limit,
                               merge_shifts=args.merge_shifts, stop=ctrl_c)
        with console.status("exploring") as status:
            def progress(states: int) -> None:
                found = f"{states:,} state{'' if states == 1 else 's'}"
                status.update(f"exploring: {found} (at most {args.max_states:,}; Ctrl-C stops, "
                              "twice cuts a firing short)")
            return state_space(net, max_states=args.max_states, time_limit=args.time_limit,
                               merge_shifts=args.merge_shifts, progress=progress, stop=ctrl_c)


def named_queries(module, net: str) -> dict:
    """The ``QUERIES`` of a NET file, checked to be a dict of name -> query
    (a list, or a value that is no query, is told as such)."""
    from cpn.query import Query

    named = getattr(module, "QUERIES", None)
    if named is None:
        return {}
    if not isinstance(named, dict):
        raise ValueError(f"QUERIES in {net} is a {type(named).__name__}: make it a dict of "
                         "names and queries, e.g. {'capped': always(token('Power') <= 350)}")
    for name, query in named.items():
        if not isinstance(name, str):
            raise ValueError(f"QUERIES in {net}: the name {name!r} is no string")
        if not isinstance(query, Query):
            raise ValueError(f"QUERIES[{name!r}] in {net} is a {type(query).__name__}, not a "
                             "query: make it one with cpn.query (always, never, reachable, "
                             "eventually, leads_to)")
    return named


def chosen_queries(asked: list[str], named: dict, places: list[str], net: str = "NET") -> dict:
    """The queries to check, by the name to show: ``asked`` (names of
    ``named``, the QUERIES of ``net``, or query text on its ``places``),
    or all of ``named``."""
    from cpn.query.text import OPERATORS, QuerySyntaxError, parse_query

    if not asked:
        return dict(named)
    chosen = {}
    for text in asked:
        if text in named:
            chosen[text] = named[text]
            continue
        try:
            chosen[text] = parse_query(text, places)
        except QuerySyntaxError as error:
            words = text.split()
            if not named or words[:1] and words[0] in OPERATORS or "leads" in words:
                raise  # it was meant as a query
            listed = ", ".join(repr(name) for name in named)
            why = str(error).removeprefix(f"query {text!r}: ")
            raise QuerySyntaxError(f"--query {text!r} names none of the QUERIES of {net} "
                                   f"({listed}), and does not read as a query: {why}") from None
    return chosen


def checked(query, space):
    """The query's verdict, or why it could not be evaluated (a line)."""
    from cpn.query import QueryError

    try:
        return query.check(space)
    except QueryError as error:
        return error.detail
    except Exception as error:  # a query of NET's is any Python: one line, not a traceback
        return f"{type(error).__name__}: {error}"


def show_verdicts(verdicts: list, args: argparse.Namespace) -> None:
    print("queries")
    for name, query, verdict in verdicts:
        label = name if name == str(query) else f"{name}: {query}"
        if isinstance(verdict, str):  # it could not be evaluated
            print(f"  {'ERROR':<8} {label}\n  {'':<8} {verdict}")
            continue
        word = {True: "holds", False: "FAILS", None: "unknown"}[verdict.holds]
        print(f"  {word:<8} {label}")
        print(f"  {'':<8} {verdict.reason}")
    files: set[str] = set()
    for name, _, verdict in verdicts:
        path = None if isinstance(verdict, str) else verdict.counterexample
        if path is None:
            continue
        print(f"\ncounterexample of {name} ({len(path.records())} firings):")
        lines = path.timeline().splitlines()
        shown = lines[-args.timeline:] if args.timeline else []
        if len(shown) < len(lines):
            print(f"  … {len(lines) - len(shown)} earlier lines")
        print("\n".join(shown))
        if args.save is not None:
            args.save.mkdir(parents=True, exist_ok=True)
            file = args.save / f"{file_name(name, files)}.jsonl"
            path.save(file, net=str(args.net))
            functions = f" --functions {args.functions}" if args.functions else ""
            print(f"saved as {file}: replay it with cpn replay {args.net} {file}{functions}")


#: Comparisons spelled out in file names, so that queries that differ only
#: there (Power <= 300, Power >= 300) have files of their own.
SPELLED = {"<=": "le", ">=": "ge", "==": "eq", "!=": "ne", "<": "lt", ">": "gt"}


def file_name(name: str, taken: set[str]) -> str:
    """A file name for a query's counterexample (query text made safe),
    not one of ``taken`` (numbered when it would be), added to it."""
    for symbol, word in SPELLED.items():
        name = name.replace(symbol, f" {word} ")
    base = re.sub(r"[^\w.-]+", "_", name).strip("_")[:80] or "query"
    chosen, number = base, 1
    while chosen in taken:
        number += 1
        chosen = f"{base}_{number}"
    taken.add(chosen)
    return chosen
