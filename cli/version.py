"""``cpn --version``: the installed package's version, read only when asked."""

from __future__ import annotations

import argparse


def version() -> str:
    """The installed package's version (``cpn --version``)."""
    from importlib.metadata import PackageNotFoundError
    from importlib.metadata import version as installed
    try:
        return installed("cpn")
    except PackageNotFoundError:  # run from a checkout that was never installed
        return "unknown (not installed)"


class VersionAction(argparse.Action):
    """``--version``: reads the package metadata only when asked (reading it
    costs more than building the whole parser)."""

    def __init__(self, option_strings, dest=argparse.SUPPRESS, help=None):
        super().__init__(option_strings, dest=dest, default=argparse.SUPPRESS, nargs=0,
                         help=help)

    def __call__(self, parser, namespace, values, option_string=None):
        print(f"{parser.prog} {version()}")
        parser.exit()
