"""Argument types shared by the ``cpn`` commands: a bad value is refused by
argparse with a one-line hint, before anything runs."""

from __future__ import annotations

import argparse

from studies.thesis_run import parse_job_numbers


def positive_float(text: str) -> float:
    value = float(text)
    if not value > 0:
        raise argparse.ArgumentTypeError(f"must be positive, not {text}")
    return value


def fraction(text: str) -> float:
    value = float(text)
    if not 0 <= value <= 1:
        raise argparse.ArgumentTypeError(f"must be within [0, 1], not {text}")
    return value


def job_numbers(text: str) -> tuple[int, int]:
    """``FIRST-LAST`` job numbers of a trace (the DVFS thesis' portion)."""
    try:
        return parse_job_numbers(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None
