"""Closed forms for Beta, Dirichlet and Normal distributions: certified evaluators.

Evaluators (all return Arb balls certainly containing the exact value; never bare floats):

* ``g_arb(x)`` — g(x) = Gamma(x + 1/2) / (Gamma(x) sqrt x), the function behind Lemmas 6.1/6.3;
* ``bc(p, q)`` — Bhattacharyya coefficient; ``hd(p, q)`` = 1 - BC (Table 1's HD, *not* a
  metric); ``hellinger(p, q)`` = sqrt(1 - BC) (the Hellinger distance, a metric — NOTES.md §3);
* ``kl(p, q)`` — Kullback-Leibler divergence;
* ``tv(p, q)`` — total variation (statistical) distance, for two Betas or two Normals, by the
  crossing-point method described at ``tv_beta``.

Distributions are ``Beta(a, b)``, ``Dirichlet((a1, ..., ak))`` and ``Normal(mean, var)`` with
exact parameters (ints, Fractions, decimal strings, sympy Rationals; a float is taken at its
exact binary value). ``*_float`` functions are plain-float conveniences for experiments only:
they prove nothing.

The lemmas that state these closed forms are in ``lemmas.closed_form_lemmas``. This module
imports neither sympy nor the rest of the library (``lemmas.balls`` only), so that evaluating a
distance — the model check of a counterexample, the run-time semantics — costs no symbolic
algebra.
"""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import List, Tuple, Union

import flint

from lemmas.balls import EnclosureError, precision, to_arb

arb = flint.arb

# --------------------------------------------------------------------------------------------
# distributions with exact parameters


def exact(x) -> Fraction:
    """An exact rational from an int, Fraction, decimal string, sympy Rational or float."""
    if isinstance(x, bool):
        raise TypeError("a boolean is not a parameter")
    if isinstance(x, (int, Fraction)):
        return Fraction(x)
    if isinstance(x, float):
        return Fraction(x)  # the float's exact binary value
    if isinstance(x, str):
        return Fraction(x)
    if getattr(x, "is_Rational", False):  # a sympy Rational (sympy is not imported here)
        return Fraction(int(x.p), int(x.q))
    raise TypeError(f"cannot read {x!r} as an exact number")


@dataclass(frozen=True)
class Beta:
    a: Fraction
    b: Fraction

    def __init__(self, a, b):
        object.__setattr__(self, "a", exact(a))
        object.__setattr__(self, "b", exact(b))
        if self.a <= 0 or self.b <= 0:
            raise ValueError(f"Beta parameters must be positive: {self.a}, {self.b}")


@dataclass(frozen=True)
class Dirichlet:
    alphas: Tuple[Fraction, ...]

    def __init__(self, alphas):
        al = tuple(exact(a) for a in alphas)
        if len(al) < 2 or any(a <= 0 for a in al):
            raise ValueError("Dirichlet needs at least 2 positive parameters")
        object.__setattr__(self, "alphas", al)


@dataclass(frozen=True)
class Normal:
    mean: Fraction
    var: Fraction

    def __init__(self, mean, var):
        object.__setattr__(self, "mean", exact(mean))
        object.__setattr__(self, "var", exact(var))
        if self.var <= 0:
            raise ValueError("the variance must be positive")


Dist = Union[Beta, Dirichlet, Normal]


def _a(x) -> "flint.arb":
    return to_arb(x)


def _lbeta(*xs) -> "flint.arb":
    """log of the multivariate Beta function sum lnGamma(x_i) - lnGamma(sum x_i)."""
    s = arb(0)
    tot = arb(0)
    for x in xs:
        ax = _a(x)
        s += ax.lgamma()
        tot += ax
    return s - tot.lgamma()


# --------------------------------------------------------------------------------------------
# certified evaluators

def g_arb(x, prec: int = 128) -> "flint.arb":
    """g(x) = Gamma(x + 1/2) / (Gamma(x) sqrt(x)) for x > 0, as a ball."""
    with precision(prec):
        ax = _a(x)
        if not ax > 0:
            raise EnclosureError("g needs x > 0")
        return ((ax + arb(1) / 2).lgamma() - ax.lgamma()).exp() / ax.sqrt()


def bc(p: Dist, q: Dist, prec: int = 128) -> "flint.arb":
    """Bhattacharyya coefficient BC(p, q) = integral of sqrt(p q), as a ball."""
    _same_family(p, q)
    with precision(prec):
        if p == q:
            return arb(1)
        if isinstance(p, Beta):
            m = _lbeta((p.a + q.a) / 2, (p.b + q.b) / 2)
            return (m - (_lbeta(p.a, p.b) + _lbeta(q.a, q.b)) / 2).exp()
        if isinstance(p, Dirichlet):
            mid = [(x + y) / 2 for x, y in zip(p.alphas, q.alphas)]
            return (_lbeta(*mid) - (_lbeta(*p.alphas) + _lbeta(*q.alphas)) / 2).exp()
        v1, v2 = _a(p.var), _a(q.var)
        dm = _a(p.mean - q.mean)
        return (2 * (v1 * v2).sqrt() / (v1 + v2)).sqrt() * (-(dm * dm) / (4 * (v1 + v2))).exp()


def hd(p: Dist, q: Dist, prec: int = 128) -> "flint.arb":
    """Table 1's HD(p, q) = (1/2) integral (sqrt p - sqrt q)^2 = 1 - BC (the *square* of the
    Hellinger distance; not a metric), as a ball within [0, 1]."""
    with precision(prec):
        return (1 - bc(p, q, prec)).nonnegative_part()


def hellinger(p: Dist, q: Dist, prec: int = 128) -> "flint.arb":
    """The Hellinger distance H(p, q) = sqrt(1 - BC(p, q)) (a metric), as a ball."""
    with precision(prec):
        return hd(p, q, prec).sqrt()


def kl(p: Dist, q: Dist, prec: int = 128) -> "flint.arb":
    """KL(p || q), as a ball."""
    _same_family(p, q)
    with precision(prec):
        if p == q:
            return arb(0)
        if isinstance(p, Beta):
            a1, b1, a2, b2 = map(_a, (p.a, p.b, q.a, q.b))
            return (_lbeta(q.a, q.b) - _lbeta(p.a, p.b) + (a1 - a2) * a1.digamma()
                    + (b1 - b2) * b1.digamma() + (a2 - a1 + b2 - b1) * (a1 + b1).digamma())
        if isinstance(p, Dirichlet):
            al = [_a(x) for x in p.alphas]
            be = [_a(x) for x in q.alphas]
            a0 = sum(al, arb(0))
            out = _lbeta(*q.alphas) - _lbeta(*p.alphas)
            for x, y in zip(al, be):
                out += (x - y) * (x.digamma() - a0.digamma())
            return out
        v1, v2 = _a(p.var), _a(q.var)
        dm = _a(p.mean - q.mean)
        return (v1 / v2 + dm * dm / v2 - 1 + (v2 / v1).log()) / 2


def tv(p: Dist, q: Dist, prec: int = 128) -> "flint.arb":
    """Total variation distance sup_E |p(E) - q(E)| for two Betas or two Normals, as a ball."""
    _same_family(p, q)
    if isinstance(p, Beta):
        return tv_beta(p, q, prec)
    if isinstance(p, Normal):
        return tv_normal(p, q, prec)
    raise NotImplementedError("certified TV is implemented for Beta and Normal pairs")


def tv_beta(p: Beta, q: Beta, prec: int = 128) -> "flint.arb":
    """Certified TV(Beta(a1, b1), Beta(a2, b2)) by the crossing-point method.

    The log density ratio h(x) = K + (a1 - a2) ln x + (b1 - b2) ln(1 - x) has derivative
    (a1 - a2)/x - (b1 - b2)/(1 - x), which vanishes at most once, at x_m = α/(α+β) when
    α = a1 - a2 and β = b1 - b2 have the same sign. So (0, 1) splits into at most two
    intervals on which h is strictly monotone, and h has at most one zero in each. The sign of
    h at the ends (limits at 0 and 1, the value at x_m) is certified with Arb; where it changes,
    bisection on exact rationals with certified signs of h at the midpoints encloses the
    crossing c in an interval of width 2^-(prec/2). Between consecutive crossings p - q has
    constant sign, so with D(x) = I_x(a1, b1) - I_x(a2, b2) (regularized incomplete Beta
    functions, evaluated by Arb at the interval's centre m, plus |D'| = |p - q| bounded on the
    interval times its radius — a second-order term, as D' vanishes at c) and c_0 = 0,
    c_{m+1} = 1:

        TV = (1/2) sum_i |D(c_{i+1}) - D(c_i)|.

    Every quantity is a ball containing the true value, so the result encloses the exact TV.
    """
    if p == q:
        return arb(0)
    al, be = p.a - q.a, p.b - q.b
    with precision(prec):
        K = _lbeta(q.a, q.b) - _lbeta(p.a, p.b)

        def h(x: Fraction) -> "flint.arb":
            ax = _a(x)
            return K + _a(al) * ax.log() + _a(be) * (1 - ax).log()

        def sign_at(x: Fraction, side: str) -> int:
            if x == 0:
                return -_sgn(al) if al != 0 else _certified_sign(lambda: K, prec)
            if x == 1:
                return -_sgn(be) if be != 0 else _certified_sign(lambda: K, prec)
            return _certified_sign(lambda: h(x), prec)

        points = [Fraction(0), Fraction(1)]
        if al * be > 0:
            points.insert(1, al / (al + be))
        crossings: List["flint.arb"] = []
        for lo, hi in zip(points, points[1:]):
            s_lo, s_hi = sign_at(lo, "right"), sign_at(hi, "left")
            if s_lo == s_hi:
                continue
            width = Fraction(1, 2 ** (prec // 2))
            while hi - lo > width:
                mid = (lo + hi) / 2
                hm = h(mid)
                if hm > 0 or hm < 0:
                    if (1 if hm > 0 else -1) == s_lo:
                        lo = mid
                    else:
                        hi = mid
                    continue
                # h(mid) is (nearly) 0: the crossing is at or next to mid. Certify the signs
                # just left and right of it (h is strictly monotone on [lo, hi]).
                left, right = max(lo, mid - width / 4), min(hi, mid + width / 4)
                s_left = s_lo if left == lo else _certified_sign(lambda: h(left), prec)
                s_right = s_hi if right == hi else _certified_sign(lambda: h(right), prec)
                if s_left == s_lo and s_right == s_hi:
                    lo, hi = left, right
                    break
                raise EnclosureError("cannot isolate a crossing point (raise the precision)")
            crossings.append(((lo + hi) / 2, (hi - lo) / 2))
        if not crossings:
            raise EnclosureError("no crossing found between two different Betas")

        def D_exact(x: Fraction) -> "flint.arb":
            ax = _a(x)
            return ax.beta_lower(_a(p.a), _a(p.b), 1) - ax.beta_lower(_a(q.a), _a(q.b), 1)

        def density(d: Beta, x: "flint.arb") -> "flint.arb":
            return ((_a(d.a) - 1) * x.log() + (_a(d.b) - 1) * (1 - x).log()
                    - _lbeta(d.a, d.b)).exp()

        def D(centre: Fraction, radius: Fraction) -> "flint.arb":
            # mean value theorem: D(c) = D(centre) + D'(xi)(c - centre), D' = p - q, and
            # |p - q| is tiny on the ball around the crossing: the error is second order
            ball = arb(_a(centre).mid(), _a(radius).upper())
            slope = abs(density(p, ball) - density(q, ball)).upper()
            return D_exact(centre) + arb(0, (slope * _a(radius)).upper())

        values = [arb(0)] + [D(c, r) for c, r in crossings] + [arb(0)]
        total = arb(0)
        for u, v in zip(values, values[1:]):
            total += abs(v - u)
        out = total / 2
        if not out.is_finite():
            raise EnclosureError("TV enclosure is not finite (raise the precision)")
        return out


def tv_normal(p: Normal, q: Normal, prec: int = 128) -> "flint.arb":
    """Certified TV between two Normals by the crossing points of the densities.

    ln p - ln q is the quadratic A x^2 + B x + C with A = 1/(2 v2) - 1/(2 v1),
    B = m1/v1 - m2/v2, C = m2^2/(2 v2) - m1^2/(2 v1) + ln(v2/v1)/2: one root if v1 = v2, two
    otherwise (then the discriminant is positive, as both densities have mass 1). With
    D = Phi_p - Phi_q evaluated on the root balls, TV = (1/2) sum |D(c_{i+1}) - D(c_i)|.
    """
    if p == q:
        return arb(0)
    with precision(prec):
        m1, m2, v1, v2 = map(_a, (p.mean, q.mean, p.var, q.var))

        def cdf(x, m, v):
            return (-(x - m) / (2 * v).sqrt()).erfc() / 2

        def D(x):
            return cdf(x, m1, v1) - cdf(x, m2, v2)

        if p.var == q.var:
            roots = [(m1 + m2) / 2]
        else:
            A = 1 / (2 * v2) - 1 / (2 * v1)
            B = m1 / v1 - m2 / v2
            C = m2 * m2 / (2 * v2) - m1 * m1 / (2 * v1) + (v2 / v1).log() / 2
            disc = B * B - 4 * A * C
            if not disc > 0:
                raise EnclosureError("cannot certify two crossings (raise the precision)")
            r1 = (-B - disc.sqrt()) / (2 * A)
            r2 = (-B + disc.sqrt()) / (2 * A)
            roots = sorted([r1, r2], key=lambda r: float(r.mid()))
            if not roots[0] < roots[1]:
                raise EnclosureError("crossing points not separated (raise the precision)")
        values = [arb(0)] + [D(r) for r in roots] + [arb(0)]
        total = arb(0)
        for u, v in zip(values, values[1:]):
            total += abs(v - u)
        return total / 2


def _sgn(x: Fraction) -> int:
    return 1 if x > 0 else -1


def _certified_sign(f, prec: int) -> int:
    p = prec
    while p <= 8 * prec:
        with precision(p):
            v = f()
            if v > 0:
                return 1
            if v < 0:
                return -1
        p *= 2
    raise EnclosureError("cannot decide a sign (the two distributions are too close)")


def _same_family(p, q) -> None:
    if type(p) is not type(q):
        raise TypeError(f"{type(p).__name__} and {type(q).__name__} are different families")
    if isinstance(p, Dirichlet) and len(p.alphas) != len(q.alphas):
        raise ValueError("Dirichlet distributions of different dimensions")
    if not isinstance(p, (Beta, Dirichlet, Normal)):
        raise TypeError(f"unsupported distribution {p!r}")


# plain-float conveniences (experiments only; they prove nothing)

def hellinger_float(p: Dist, q: Dist) -> float:
    return float(hellinger(p, q, 64).mid())


def bc_float(p: Dist, q: Dist) -> float:
    return float(bc(p, q, 64).mid())


def kl_float(p: Dist, q: Dist) -> float:
    return float(kl(p, q, 64).mid())


def tv_float(p: Dist, q: Dist) -> float:
    return float(tv(p, q, 64).mid())


def g_float(x) -> float:
    return float(g_arb(x, 64).mid())
