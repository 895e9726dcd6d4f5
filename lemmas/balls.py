"""Numbers as Arb balls (python-flint), without sympy.

``to_arb`` reads an exact number — int, Fraction, decimal string, fmpq, a float at its exact
binary value — or a ball as a ball; ``precision`` runs a block at a working precision. The
certified evaluators (``lemmas.closed_forms``) need nothing more, so they do not pay for
symbolic algebra; ``lemmas.arbeval`` extends ``to_arb`` to sympy numbers and expressions.
"""
from __future__ import annotations

import contextlib
from fractions import Fraction

import flint

arb = flint.arb


class EnclosureError(ArithmeticError):
    """The expression cannot be enclosed (undefined, not real, or not supported)."""


@contextlib.contextmanager
def precision(bits: int):
    """Run a block at ``bits`` of working precision, restoring the previous precision."""
    old = flint.ctx.prec
    flint.ctx.prec = max(int(bits), 53)
    try:
        yield
    finally:
        flint.ctx.prec = old


def to_arb(x) -> "flint.arb":
    """An exact number (int, Fraction, decimal string, fmpq, sympy Rational or expression) or a
    ball as a ball.

    Floats are accepted and converted exactly (a float *is* a dyadic rational), but the caller
    should know that ``0.05`` as a float is not 1/20. A sympy object is handed to
    ``lemmas.arbeval`` (imported then: a caller holding one has sympy loaded already).
    """
    if isinstance(x, arb):
        return x
    if isinstance(x, bool):
        raise EnclosureError("a boolean is not a number")
    if isinstance(x, (int, float)):
        return arb(x)  # a float: its exact binary value
    if isinstance(x, Fraction):
        return arb(flint.fmpq(x.numerator, x.denominator))
    if isinstance(x, flint.fmpq):
        return arb(x)
    if isinstance(x, str):
        q = Fraction(x)
        return arb(flint.fmpq(q.numerator, q.denominator))
    if type(x).__module__.startswith("sympy."):
        from lemmas.arbeval import sympy_to_arb
        return sympy_to_arb(x)
    raise EnclosureError(f"cannot read {x!r} as a number")
