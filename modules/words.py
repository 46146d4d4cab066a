"""Counts as a reader says them: ``1 failure``, ``1,032 failures``."""

from __future__ import annotations


def counted(count: int, noun: str) -> str:
    """``count`` with thousands separators and ``noun``, plural unless 1
    (a regular plural: ``s`` added)."""
    return f"{count:,} {noun}{'' if count == 1 else 's'}"
