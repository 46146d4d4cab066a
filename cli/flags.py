"""Between the words a user typed and the options argparse reads: values
that look like options, and the Python names that errors speak of."""

from __future__ import annotations

import argparse
import re


#: Options whose flag is not their name spelt with dashes, by argparse name.
RENAMED = {"size_unit": "--unit", "checkpoint_interval_minutes": "--checkpoint-interval"}


def flag(name: str) -> str:
    """The flag of the option ``name`` (argparse's): ``cap_month`` ->
    ``--cap-month``, ``size_unit`` -> ``--unit``, so that an error names
    what the user typed."""
    return RENAMED.get(name, "--" + name.replace("_", "-"))


#: Actions that gather every value given, or stop the command: given twice,
#: nothing is lost.
GATHERING = (argparse._AppendAction, argparse._AppendConstAction, argparse._CountAction,
             argparse._HelpAction, argparse._VersionAction)


class CommandParser(argparse.ArgumentParser):
    """An argument parser whose single-valued options refuse being given
    twice with different values (``--cap 50% --cap 70%``): argparse keeps
    the last without a word, and the user's other request is dropped.  The
    same value twice (a script repeating a default) is harmless and taken.
    Options that gather values (``append``, ``extend``) are left alone.  The
    commands' parsers are made of this class too (argparse builds them of
    their parent's), so that each new option has the check for free."""

    def parse_known_args(self, args=None, namespace=None):
        self._values_given: dict[str, tuple] = {}  # dest -> (action, words, value)
        return super().parse_known_args(args, namespace)

    def _get_values(self, action, arg_strings):
        words = " ".join(arg_strings)  # before argparse drops a '--' from them
        value = super()._get_values(action, arg_strings)
        if _takes_one_value(action):
            stored = action.const if action.nargs == 0 else value
            given = self._values_given.setdefault(action.dest, (action, words, stored))
            if given[1] != words and given[2] != stored:  # 50% and 50.0% are one value
                raise argparse.ArgumentError(action, _twice(given[:2], (action, words)))
        return value


def _takes_one_value(action: argparse.Action) -> bool:
    """``action`` is an option that keeps one value: the last one given."""
    return (bool(action.option_strings) and action.dest != argparse.SUPPRESS
            and action.nargs in (None, argparse.OPTIONAL, 0)
            and not isinstance(action, GATHERING))


def _twice(first: tuple, second: tuple) -> str:
    """What argparse says after ``argument --cap: `` of an option given
    twice, each ``(action, words)``: the two values, with their flags
    when these differ (a former spelling, or a flag without a value)."""
    def said(action, words: str) -> str:
        shown_flag = first[0] is not second[0] or not words
        return " ".join(filter(None, [action.option_strings[0] if shown_flag else "", words]))
    return (f"given twice with different values, {said(*first)} and {said(*second)}: "
            f"give it once")


def negative_values_attached(argv: list[str], parser: argparse.ArgumentParser) -> list[str]:
    """``argv`` with each value that starts with a minus sign attached to
    its option (``--cap -5%`` -> ``--cap=-5%``).  argparse takes any word
    that starts with a dash for an option unless it is a bare number, so it
    answered "expected one argument" to ``--cap -5%`` where the option's own
    check says what is wrong with a negative cap."""
    takes_value = {string for action in _every_action(parser) if action.nargs != 0
                   for string in action.option_strings if string.startswith("--")}
    words = list(argv)
    for at in range(len(words) - 2, -1, -1):  # from the end: a join moves only what follows
        if words[at] in takes_value and re.match(r"-[\d.]", words[at + 1]):
            words[at:at + 2] = [f"{words[at]}={words[at + 1]}"]
    return words


def parse_command_line(parser: argparse.ArgumentParser, argv: list[str]) -> argparse.Namespace:
    """``parser.parse_args(argv)``, but a word no option takes is refused by
    the command's own parser (``cpn validate: error: unrecognized
    arguments: --cap 70%``), as every other error of a command is:
    argparse refuses it from the top parser, as ``cpn: error: ...``."""
    args, unknown = parser.parse_known_args(argv)
    if unknown:
        getattr(args, "command_parser", parser).error(
            f"unrecognized arguments: {' '.join(unknown)}")
    return args


def _every_action(parser: argparse.ArgumentParser):
    """The actions of ``parser`` and of its commands' parsers."""
    for action in parser._actions:
        yield action
        if isinstance(action, argparse._SubParsersAction):
            for command_parser in action.choices.values():
                yield from _every_action(command_parser)


def in_flags(message: str, parser: argparse.ArgumentParser) -> str:
    """``message`` with the Python parameters it names put as the flags that
    set them (``pass machine_nodes`` -> ``pass --machine-nodes``): the API
    below speaks of parameters, a user of the command line typed flags."""
    flags: dict[str, str] = {}
    for action in parser._actions:
        if "_" in action.dest and action.option_strings:
            flags.setdefault(action.dest, action.option_strings[0])
    if not flags:
        return message
    names = "|".join(sorted(map(re.escape, flags), key=len, reverse=True))
    return re.sub(rf"(?<![\w./-])({names})(?![\w/-])",
                  lambda match: flags[match.group(1)], message)
