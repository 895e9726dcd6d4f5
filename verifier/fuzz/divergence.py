"""Directed divergences between two output laws, as rigorous enclosures where the laws are exact.

A *law* is what the oracle computes for one run (``laws.law_of``): a finite law
(``verifier.audit.Law``: float probabilities, and Arb log-probabilities when the law is exact),
or one continuous component (``Noise``: Laplace or Gaussian noise around a centre). For the
ordered pair ``(P1, P2)`` of the two runs, ``divergence`` encloses

| kind    | value                                                     |
|---------|-----------------------------------------------------------|
| ``DP``  | ``max over o of ln (P1(o) / P2(o))`` (delta = 0; ``inf`` when P1 charges a point P2 does not) |
| ``hockey`` | ``sum_o max(P1(o) - e^eps P2(o), 0)``: the least delta of ``(eps, delta)``-DP |
| ``SD``  | ``1/2 sum_o |P1(o) - P2(o)|`` (total variation)             |
| ``HD``  | ``1 - sum_o sqrt(P1(o) P2(o))`` (1 - Bhattacharyya: NOTES.md §3, the f-divergence, not the metric) |
| ``KL``  | ``sum_o P1(o) ln (P1(o) / P2(o))``                         |

The directions matter: a claim relates run 1 to run 2, and a one-sided precondition covers
one direction only (``M[DP(eps)]`` says ``P1(S) <= e^eps P2(S) + delta``).

A release of ``lapMech`` / ``gaussMech`` (``Noise``) is judged by the exact law of the grid values
the sampler releases (``verifier.semantics.released``, docs/noise.md): for one family and one
scale, DP by the largest log-ratio over the cells next to the centres (Laplace; ``inf`` for
Gaussian releases with different centres), hockey and SD by the half-line of cells where run 1
outweighs run 2. HD and KL use the closed forms of the continuous laws in ``t = |c1 - c2| /
scale`` (Laplace: ``1 - e^(-t/2) (1 + t/2)``, ``t + e^(-t) - 1``) or ``m = |c1 - c2| / sigma``
(Gaussian: ``1 - e^(-m^2/8)``, ``m^2/2``): upper bounds of the released law's (data processing),
which the verifier's rules also charge. A finite law against a release is mutually singular
(DP and KL ``inf``, hockey, SD and HD 1). Two Laplace laws of different scales have an infinite
DP loss; the other divergences of different scales are not computed (``None``: the pair is not
judged). Laws of noise the program compared (the Sparse Vector family: ``laws.ProductLaw``,
``laws.CoarseLaw``) are judged by their DP loss only (``_compared_divergence``). Tests check each value against numerical integration or summation.

An ``Enclosure`` is a float interval that contains the true value when the laws are exact
(Arb ball arithmetic at ``PRECISION_BITS``), and the float64 computation (with its rounding)
otherwise: ``exact`` says which.
"""
from __future__ import annotations

import math
from fractions import Fraction
from typing import Any, Dict, Optional, Union

import flint

from obligations.records import record
from verifier.laws import Law, pair_stat
from verifier.semantics import released
from verifier.semantics.released import Noise
from verifier.semantics.values import Value

arb = flint.arb
PRECISION_BITS = 128
KINDS = ("DP", "hockey", "SD", "HD", "KL")


AnyLaw = Union[Law, Noise]


@record
class Enclosure:
    """``lower <= value <= upper``; ``exact``: rigorous (exact laws), else float64."""

    lower: float
    upper: float
    exact: bool

    @property
    def mid(self) -> float:
        if math.isinf(self.lower) and self.lower == self.upper:
            return self.lower
        return (self.lower + self.upper) / 2

    @staticmethod
    def point(value: float, exact: bool = True) -> "Enclosure":
        return Enclosure(value, value, exact)


INFINITE = Enclosure(math.inf, math.inf, True)


def divergence(kind: str, law1: AnyLaw, law2: AnyLaw, eps: Any = None) -> Optional[Enclosure]:
    """The ``kind`` divergence of ``law1`` from ``law2`` (``eps`` for ``hockey``); ``None`` when
    it is not computed (continuous laws of different scales, see the module docstring)."""
    if kind not in KINDS:
        raise ValueError(f"unknown divergence {kind!r}")
    with _precision():
        if not isinstance(law1, (Law, Noise)) or not isinstance(law2, (Law, Noise)):
            return _compared_divergence(kind, law1, law2)
        if isinstance(law1, Noise) and isinstance(law2, Noise):
            return _noise_divergence(kind, law1, law2, eps)
        if isinstance(law1, Noise) or isinstance(law2, Noise):
            return INFINITE if kind in ("DP", "KL") else Enclosure.point(1.0)
        return _finite_divergence(kind, law1, law2, eps)


# ---- laws of compared noise ----------------------------------------------------------------------


def _compared_divergence(kind: str, law1: Any, law2: Any) -> Optional[Enclosure]:
    """A law of noise the program compared (``laws.ProductLaw``: releases beside a finite part;
    ``laws.CoarseLaw``: released values that were also compared) against another law: the DP
    loss of ``laws.pair_stat``, exact for product laws, only a lower bound (upper end ``inf``)
    when the released values are binned; the other divergences are not computed (``None``)."""
    if kind != "DP":
        return None
    stat = pair_stat(law1, law2)
    if stat is None:
        return None
    if stat.ball is None:
        return INFINITE
    return Enclosure(stat.lower, math.inf if stat.lower_only else stat.upper, False)


# ---- finite laws -------------------------------------------------------------------------------


def _probabilities(law: Law) -> Dict[Value, Any]:
    """Arb balls of the probabilities: from the exact logarithms when the law has them."""
    if law.logs is not None:
        return {v: lg.exp() for v, lg in law.logs.items()}
    return {v: arb(p) for v, p in law.probs.items()}


def _log(law: Law, v: Value) -> Any:
    return law.logs[v] if law.logs is not None else arb(math.log(law.probs[v]))


def _finite_divergence(kind: str, law1: Law, law2: Law, eps: Any) -> Enclosure:
    exact = law1.logs is not None and law2.logs is not None
    p1, p2 = _probabilities(law1), _probabilities(law2)
    zero = arb(0)
    if kind == "DP":
        if any(v not in p2 for v in p1):
            return INFINITE
        ratios = [_bounds(_log(law1, v) - _log(law2, v)) for v in p1]
        return Enclosure(max(lo for lo, _ in ratios), max(hi for _, hi in ratios), exact)
    if kind == "hockey":
        factor = _to_arb(eps).exp()
        total = sum(((p - factor * p2.get(v, zero)).nonnegative_part() for v, p in p1.items()), zero)
        return _enclosure(total, exact)
    if kind == "SD":
        keys = set(p1) | set(p2)
        total = sum(((p1.get(v, zero) - p2.get(v, zero)).__abs__() for v in keys), zero) / 2
        return _enclosure(total, exact)
    if kind == "HD":
        total = sum(((p * p2[v]).sqrt() for v, p in p1.items() if v in p2), zero)
        return _enclosure(1 - total, exact)
    # KL
    if any(v not in p2 for v in p1):
        return INFINITE
    total = sum((p * (_log(law1, v) - _log(law2, v)) for v, p in p1.items()), zero)
    return _enclosure(total, exact)


# ---- continuous laws ---------------------------------------------------------------------------


def _noise_divergence(kind: str, a: Noise, b: Noise, eps: Any) -> Optional[Enclosure]:
    exact = all(_is_exact(x) for x in (a.center, b.center, a.scale, b.scale))
    if a.family != b.family:
        return INFINITE if kind in ("DP", "KL") else None
    try:
        different_scales = a.scale != b.scale
    except ArithmeticError:
        return None
    if different_scales:
        return INFINITE if kind == "DP" and a.family == "laplace" else None
    try:
        if kind == "DP":
            cells = released.candidate_cells(a, b)
            if cells is None:
                return INFINITE
            logs = [_to_arb(a.cell(k)).log() - _to_arb(b.cell(k)).log() for k in cells]
            value = logs[0]
            for x in logs[1:]:
                value = value.max(x)
            return _enclosure(value, exact)
        if kind in ("hockey", "SD"):
            level = 0 if kind == "SD" else (Fraction(eps) if isinstance(eps, float) else eps)
            return _enclosure(_to_arb(released.hockey(a, b, level)), exact)
        difference = a.center - b.center
        same = difference == 0
    except ArithmeticError:       # an exact real comparison that cannot be decided
        return None
    gap = arb(0) if same else _to_arb(abs(difference)) / _to_arb(a.scale)
    if a.family == "laplace":
        t = gap
        value = 1 - (-t / 2).exp() * (1 + t / 2) if kind == "HD" else t + (-t).exp() - 1
        return _enclosure(value, exact)
    m = gap
    if kind == "HD":
        return _enclosure(1 - (-(m * m) / 8).exp(), exact)
    return _enclosure(m * m / 2, exact)


# ---- numbers -----------------------------------------------------------------------------------


def _is_exact(x: Any) -> bool:
    from verifier.semantics import reals
    return reals.is_exact_number(x)


def _to_arb(x: Any) -> Any:
    """A ball of the number ``x`` (a rational, an exact real, or a float taken as exact)."""
    from verifier.semantics import reals
    if isinstance(x, float):
        return arb(x)
    return reals.ball_of(x, PRECISION_BITS)


def _bounds(x: Any) -> tuple:
    mid, rad = float(x.mid()), float(x.rad())
    if x.is_exact() and (arb(mid) - x).is_zero():
        return (mid, mid)
    return (math.nextafter(mid - rad, -math.inf), math.nextafter(mid + rad, math.inf))


def _enclosure(x: Any, exact: bool) -> Optional[Enclosure]:
    """``None`` when the ball is not finite (a formula evaluated too close to a pole)."""
    if not x.is_finite():
        return None
    lower, upper = _bounds(x)
    return Enclosure(lower, upper, exact)


def _precision():
    from lemmas.arbeval import precision
    return precision(PRECISION_BITS)


__all__ = ["Noise", "Enclosure", "divergence", "KINDS", "INFINITE"]
