"""The exact laws of the values ``lapMech`` and ``gaussMech`` release, and how far two of them are
apart (for ``privinfer audit`` and the fuzzer's oracle: the audit models the sampler that runs).

A release is ``g * round((c + Z) / g)`` for an exact draw ``Z`` of ``Lap(s)`` or ``N(0, s^2)``
and the grid ``g = noise.grid(s)`` (docs/noise.md): a law on the grid points with
``P_c(k) = noise.released_probability(family, c, s, k)``. For two such laws of one family and
one scale, with centres ``c1 < c2``, the likelihood ratio ``P1(k) / P2(k)`` is non-increasing in
``k`` (the cell probabilities of a log-concave location family are totally positive of order 2).
So

* the largest ``ln (P1(k) / P2(k))`` of two Laplace releases is reached at one of the cells next
  to the centres (``candidate_cells``): left of both centres the ratio is the constant
  ``e^((c2 - c1) / s)``, right of both ``e^((c1 - c2) / s)``, and between them ``ln`` of it is
  linear in ``k``; for Gaussian releases with different centres it is unbounded;
* the hockey-stick sum ``sum_k max(0, P1(k) - e^eps P2(k))`` runs over a half-line of cells
  ``k <= k*``, so it equals ``F1(u) - e^eps F2(u)`` at the right end ``u`` of cell ``k*``, and
  ``k*`` is found by bisection on the sign of ``P1(k) - e^eps P2(k)`` (``hockey``).

Centres in the other order are reflected (``c -> -c``, ``k -> -k``: the laws are symmetric).
Every number returned is exact (rationals and ``reals.Real``), so a comparison with a claim is
decided exactly (docs/reals.md).
"""
from __future__ import annotations

import math
from fractions import Fraction
from typing import Any, List, Optional, Tuple

from obligations.records import record
from verifier.semantics import noise, reals

Number = Any


@record
class Noise:
    """The law of one release: ``family`` ``"laplace"`` (``scale`` the Laplace scale) or
    ``"gauss"`` (``scale`` the standard deviation), around ``center``."""

    family: str
    center: Any
    scale: Any

    def cell(self, k: int) -> Number:
        """The exact probability of releasing ``k * grid``, computed once per law and cell (a
        law is compared with many others: the audit's and the oracle's pairs)."""
        cells = self.__dict__.setdefault("_cells", {})   # not a field: not compared or pickled
        found = cells.get(k)
        if found is None:
            found = cells[k] = noise.released_probability(self.family, self.center, self.scale, k)
        return found

    def reflected(self) -> "Noise":
        """The law of ``-release`` (the centre negated), one object per law (so that its cells,
        too, are computed once)."""
        found = self.__dict__.get("_reflected")
        if found is None:
            found = self.__dict__["_reflected"] = Noise(self.family, reals.neg(self.center),
                                                        self.scale)
        return found

    @property
    def grid(self) -> Fraction:
        return noise.grid(self.scale)

    def index_of(self, x: Number) -> int:
        """The cell of the grid that contains ``x``."""
        return reals.floor(reals.add(reals.div(x, self.grid), Fraction(1, 2)))


def comparable(a: Noise, b: Noise) -> bool:
    """One family and one scale (exactly): the laws these functions compare."""
    return a.family == b.family and reals.sign(reals.sub(a.scale, b.scale)) == 0


def _ordered(a: Noise, b: Noise) -> Tuple[Noise, Noise]:
    """``(a, b)`` with ``a.center <= b.center``, reflecting both when needed."""
    if reals.sign(reals.sub(a.center, b.center)) <= 0:
        return a, b
    return a.reflected(), b.reflected()


def candidate_cells(a: Noise, b: Noise) -> Optional[List[int]]:
    """Cells among which ``ln (P_a(k) / P_b(k))`` reaches its largest value (Laplace, one scale),
    or None when it is unbounded (Gaussian laws with different centres). For reflected centres
    the cells are given in the original orientation."""
    if reals.sign(reals.sub(a.center, b.center)) == 0:
        return [a.index_of(a.center)]
    if a.family != "laplace":
        return None
    ka, kb = a.index_of(a.center), b.index_of(b.center)
    lo, hi = min(ka, kb), max(ka, kb)
    return sorted({lo - 1, lo, lo + 1, hi - 1, hi, hi + 1})


def hockey(a: Noise, b: Noise, eps: Number) -> Number:
    """``sum_k max(0, P_a(k) - e^eps P_b(k))`` exactly, for ``eps >= 0`` (see the module
    docstring)."""
    if reals.sign(reals.sub(a.center, b.center)) == 0:
        return Fraction(0)
    a, b = _ordered(a, b)
    factor = reals.exp(eps)

    def positive(k: int) -> bool:
        try:
            return reals.sign(reals.sub(a.cell(k), reals.mul(factor, b.cell(k)))) > 0
        except reals.Undecided:   # a term that is 0 to thousands of digits adds nothing
            return False

    if a.family == "laplace":
        tail = reals.div(reals.sub(b.center, a.center), a.scale)   # ln of the ratio left of both
        if reals.sign(reals.sub(tail, eps)) <= 0:
            return Fraction(0)
        lo, hi = a.index_of(a.center) - 1, b.index_of(b.center) + 1
        guess = _laplace_crossing(a, b, eps)
        if (guess is not None and lo < guess - 1 and guess + 2 < hi
                and positive(guess - 1) and not positive(guess + 2)):
            lo, hi = guess - 1, guess + 2      # the same bracket property, a few cells wide
    else:
        lo, hi = _gauss_bracket(a, b, eps, positive)
    while hi - lo > 1:             # positive(lo), not positive(hi)
        mid = (lo + hi) // 2
        if positive(mid):
            lo = mid
        else:
            hi = mid
    edge = a.grid * lo + a.grid / 2
    return reals.sub(_cdf(a, edge), reals.mul(factor, _cdf(b, edge)))


def _laplace_crossing(a: Noise, b: Noise, eps: Number) -> Optional[int]:
    """A guess of the cell where ``ln (P_a(k) / P_b(k))`` falls to ``eps`` (Laplace,
    ``a.center < b.center``): for a cell ``[l, h)`` between the centres it is
    ``(c_a + c_b - l - h) / s``, so ``k = (c_a + c_b - s eps) / (2 g)``. Only a guess (in
    floating point): ``hockey`` checks the cells around it exactly before it narrows its
    bisection to them."""
    try:
        k = reals.div(reals.sub(reals.add(a.center, b.center), reals.mul(a.scale, eps)),
                      2 * a.grid)
        guess = float(reals.ball_of(k, 64).mid())
    except (reals.Undecided, ArithmeticError, ValueError, TypeError):
        return None
    return math.floor(guess) if math.isfinite(guess) else None


def _gauss_bracket(a: Noise, b: Noise, eps: Number, positive) -> Tuple[int, int]:
    """Cells ``lo < hi`` with ``positive(lo)`` and not ``positive(hi)``, searched outwards from
    the cell of the continuous crossing ``(c1 + c2) / 2 + s^2 eps / (c1 - c2)``."""
    gap = reals.sub(a.center, b.center)
    crossing = reals.add(reals.div(reals.add(a.center, b.center), 2),
                         reals.div(reals.mul(reals.mul(a.scale, a.scale), eps), gap))
    start = a.index_of(crossing)
    step, lo = 1, start
    while not positive(lo):
        lo, step = start - step, step * 2
    step, hi = 1, start + 1
    while positive(hi):
        hi, step = start + 1 + step, step * 2
    return lo, hi


def _cdf(law: Noise, x: Number) -> Number:
    """``Pr[release <= x]`` for ``x`` the right end of a cell: the noise's distribution function
    at ``x - center``."""
    return noise.noise_cdf(law.family, reals.sub(x, law.center), law.scale)


__all__ = ["Noise", "comparable", "candidate_cells", "hockey"]
