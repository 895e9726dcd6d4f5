"""Rigorous evaluation of sympy expressions as Arb balls (python-flint).

``evaluate(expr, env, prec)`` returns an ``arb`` ball certainly containing the exact value of a
closed real expression (free symbols must be bound in ``env`` to exact numbers or balls).
Rationals enter as exact balls, ``pi`` and ``E`` and every function through Arb's own
rigorous implementations; no floating-point number is ever involved. A result that is not
finite (a pole, a logarithm of a ball containing 0...) raises ``EnclosureError``.

This module imports nothing from ``verifier``.
"""
from __future__ import annotations

from fractions import Fraction
from typing import Mapping, Optional, Union

import flint
import sympy as sp
from sympy.core.function import AppliedUndef

from lemmas import exprs
from lemmas.balls import EnclosureError, precision, to_arb  # noqa: F401  (this module's API)

arb = flint.arb
Number = Union[int, Fraction, sp.Rational, "flint.arb", "flint.fmpq"]


def sympy_to_arb(x: sp.Basic) -> "flint.arb":
    """A sympy number or closed expression as a ball (``lemmas.balls.to_arb``'s sympy case)."""
    if isinstance(x, sp.Rational):
        return arb(flint.fmpq(int(x.p), int(x.q)))
    return evaluate(x)


def _finite(v: "flint.arb", what) -> "flint.arb":
    if not v.is_finite():
        raise EnclosureError(f"no finite enclosure for {what}")
    return v


def evaluate(expr: sp.Basic, env: Optional[Mapping[sp.Symbol, Number]] = None,
             prec: Optional[int] = None) -> "flint.arb":
    """A ball containing the value of the real expression ``expr``.

    Defined vocabulary functions (``g``, ``sigma``) are expanded; ``env`` binds free symbols.
    """
    if prec is not None:
        with precision(prec):
            return evaluate(expr, env)
    env = {k: to_arb(v) for k, v in (env or {}).items()}
    return _Eval(env).ev(exprs.expand_definitions(sp.sympify(expr)))


class _Eval:
    def __init__(self, env):
        self.env = env

    def ev(self, e):
        if isinstance(e, sp.Symbol):
            if e in self.env:
                return self.env[e]
            raise EnclosureError(f"free symbol {e}")
        if isinstance(e, sp.Float):
            raise EnclosureError("floating-point number in a certified evaluation")
        if isinstance(e, sp.Integer):
            return arb(int(e))
        if isinstance(e, sp.Rational):
            return arb(flint.fmpq(int(e.p), int(e.q)))
        if e is sp.pi:
            return arb.pi()
        if e is sp.E:
            return arb(1).exp()
        if isinstance(e, sp.Add):
            acc = arb(0)
            for a in e.args:
                acc += self.ev(a)
            return acc
        if isinstance(e, sp.Mul):
            acc = arb(1)
            for a in e.args:
                acc *= self.ev(a)
            return acc
        if isinstance(e, sp.Pow):
            return self.pow(e)
        if isinstance(e, sp.exp):
            return _finite(self.ev(e.args[0]).exp(), e)
        if isinstance(e, sp.log):
            v = self.ev(e.args[0])
            if not v > 0:
                raise EnclosureError(f"cannot certify a positive argument in {e}")
            return v.log()
        if isinstance(e, sp.gamma):
            return _finite(self.ev(e.args[0]).gamma(), e)
        if isinstance(e, sp.loggamma):
            v = self.ev(e.args[0])
            if not v > 0:
                raise EnclosureError(f"loggamma needs a positive argument: {e}")
            return _finite(v.lgamma(), e)
        if isinstance(e, sp.polygamma):
            order, v = e.args
            if order != 0:
                raise EnclosureError("only polygamma(0, x) (digamma) is supported")
            return _finite(self.ev(v).digamma(), e)
        if isinstance(e, sp.beta):
            a, b = (self.ev(x) for x in e.args)
            if a > 0 and b > 0:
                return (a.lgamma() + b.lgamma() - (a + b).lgamma()).exp()
            return _finite(a.gamma() * b.gamma() * (a + b).rgamma(), e)
        if isinstance(e, sp.Abs):
            return abs(self.ev(e.args[0]))
        if isinstance(e, (sp.Max, sp.Min)):
            vals = [self.ev(a) for a in e.args]
            acc = vals[0]
            for v in vals[1:]:
                acc = acc.max(v) if isinstance(e, sp.Max) else acc.min(v)
            return acc
        if isinstance(e, sp.erf):
            return self.ev(e.args[0]).erf()
        if isinstance(e, sp.erfc):
            return self.ev(e.args[0]).erfc()
        if isinstance(e, AppliedUndef):
            raise EnclosureError(f"uninterpreted function {e.func.__name__} has no value")
        raise EnclosureError(f"cannot evaluate {e} ({type(e).__name__})")

    def pow(self, e):
        base, ex = e.args
        b = self.ev(base)
        if isinstance(ex, sp.Integer):
            n = int(ex)
            if n >= 0:
                return b ** n
            if b == 0 or b.contains(0):
                raise EnclosureError(f"division by a ball containing 0 in {e}")
            return 1 / (b ** (-n))
        if ex == sp.Rational(1, 2):
            if not b >= 0:
                raise EnclosureError(f"cannot certify a nonnegative argument in {e}")
            return b.sqrt()
        if ex == sp.Rational(-1, 2):
            if not b > 0:
                raise EnclosureError(f"cannot certify a positive argument in {e}")
            return b.rsqrt()
        if not b > 0:
            raise EnclosureError(f"real power of a base not certainly positive: {e}")
        return _finite((self.ev(ex) * b.log()).exp(), e)


def certainly(relation: sp.Basic, env=None, prec: int = 128, max_prec: int = 2048) -> bool:
    """Does Arb certify the closed relation (``<``, ``<=``, ``>``, ``>=``, or an ``And``)?

    The precision is doubled from ``prec`` up to ``max_prec`` while the answer is undecided.
    Equality can never be certified by enclosures and is rejected.
    """
    if isinstance(relation, sp.And):
        return all(certainly(r, env, prec, max_prec) for r in relation.args)
    if relation is sp.true:
        return True
    if not isinstance(relation, (sp.Lt, sp.Le, sp.Gt, sp.Ge)):
        raise EnclosureError(f"not an inequality: {relation}")
    p = prec
    while p <= max_prec:
        with precision(p):
            try:
                d = evaluate(relation.lhs - relation.rhs, env)
            except EnclosureError:
                d = None
            if d is not None:
                if isinstance(relation, sp.Lt) and d < 0:
                    return True
                if isinstance(relation, sp.Le) and d <= 0:
                    return True
                if isinstance(relation, sp.Gt) and d > 0:
                    return True
                if isinstance(relation, sp.Ge) and d >= 0:
                    return True
                # certainly false: no point in refining further
                if isinstance(relation, (sp.Lt, sp.Le)) and d > 0:
                    return False
                if isinstance(relation, (sp.Gt, sp.Ge)) and d < 0:
                    return False
        p *= 2
    return False
