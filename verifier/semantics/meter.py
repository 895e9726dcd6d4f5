"""A deterministic meter of the semantics' work, for searches that must give up on a run.

``with metered(units) as meter: ...`` runs the body with ``units`` of work allowed: every
expression the evaluator evaluates costs one unit, and exact inference pays what it charges its
own budget (``monad._Budget``, outcomes combined). The unit after the last raises ``OutOfWork``
where the work is being done. Work is counted, not timed, so that what a search finds does not
depend on the machine or its load.

The meter also records whether the semantics computed a value in floating point
(``meter.inexact``): the Hellinger mechanisms' smooth sensitivity is computed in float64
(docs/reals.md), and a fact established through one is not a fact about the program's
real-number semantics.

Meters are per thread; a body may open a meter of its own, which replaces the outer one until it
ends (the outer one is not charged for it).
"""
from __future__ import annotations

import threading
from contextlib import contextmanager
from typing import Iterator, Optional


class OutOfWork(Exception):
    """The current meter's units are spent."""


class Meter:
    """The units left and whether a float value was computed."""

    __slots__ = ("left", "inexact")

    def __init__(self, units: int):
        self.left = units
        self.inexact = False


class _Current(threading.local):
    meter: Optional[Meter] = None


#: the thread's current meter (``CURRENT.meter``, None outside ``metered``); the evaluator reads
#: it inline on every expression, so that an unmetered evaluation pays one attribute look-up
CURRENT = _Current()


def charge(units: int = 1) -> None:
    """Spend ``units`` of the current meter (if any); ``OutOfWork`` once it is overspent."""
    meter = CURRENT.meter
    if meter is not None:
        meter.left -= units
        if meter.left < 0:
            raise OutOfWork()


def mark_inexact() -> None:
    """Record on the current meter (if any) that a value was computed in floating point."""
    meter = CURRENT.meter
    if meter is not None:
        meter.inexact = True


@contextmanager
def metered(units: int) -> Iterator[Meter]:
    """Run the body under a fresh meter of ``units``; the previous meter is restored after."""
    meter, previous = Meter(units), CURRENT.meter
    CURRENT.meter = meter
    try:
        yield meter
    finally:
        CURRENT.meter = previous


__all__ = ["CURRENT", "Meter", "OutOfWork", "charge", "mark_inexact", "metered"]
