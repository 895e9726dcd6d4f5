"""Symbolic distributions: the run-time values of type ``D[T]``.

Families (all frozen, hashable, compared by family and parameters):

==================  ======================  ===============================================
class               language                support / parameters
==================  ======================  ===============================================
``Bernoulli(p)``    ``bernoulli p``         bool; p in [0, 1]
``Beta(a, b)``      ``beta (a, b)``         [0,1]; a, b > 0
``Uniform()``       ``uniform ()``          [0,1]; the same law as ``Beta(1, 1)``
``Normal(m, v)``    ``normal (m, v)``       real; mean m, **variance** v > 0
``Dirichlet(as)``   ``dirichlet (a1, ...)`` [0,1]^k; k >= 2, every a_i > 0
``Categorical(ps)`` ``categorical p``       [k] = {0, ..., k-1}; p a point of the simplex
``Finite(items)``   (printed ``finite [(v, p); ...]``)  any finite support: the result of
                                            inferring a finite model by enumeration
==================  ======================  ===============================================

Construct checked distributions with the ``make_*`` functions: they enforce the range
conditions (positive beta/dirichlet parameters, positive variance, probabilities in [0, 1]
summing to 1) and raise ``R001`` at the span of the offending call. The class constructors
themselves do not check (internal use on already-valid parameters).

Parameters are kept exact (``Fraction``) when given exactly; see ``values`` for the numeric
policy. Means and variances are exact on exact parameters.

Distances between distributions (``hellinger``, ``total_variation``):

* Hellinger distance ``H = sqrt(1 - BC)`` (the metric, NOTES.md §3) with the Bhattacharyya
  coefficient in closed form: Beta and Dirichlet ``BC = B((p+q)/2) / sqrt(B(p) B(q))`` (multivariate
  beta function, via ``lgamma``), Normal ``BC = sqrt(2 s1 s2 / (v1 + v2)) exp(-(m1-m2)^2 / (4 (v1+v2)))``,
  finite ``BC = sum sqrt(p q)``. ``1 - BC`` is computed as ``-expm1(log BC)`` to keep small
  distances accurate; with very large parameters (~1e4) the ``lgamma`` differences limit the
  relative accuracy of H to about 1e-6.
* Total variation: exact (``Fraction``) for finite distributions. For two Beta or two Normal
  laws the log density ratio has at most one turning point, so ``{p > q}`` is a union of at most
  two intervals whose end points are found numerically (closed form for Normal, bisection on the
  logit scale for Beta); then ``TV = P(A) - Q(A)`` with the normal CDF (``erfc``) or the
  regularised incomplete beta function (Lentz continued fraction). Accuracy about 1e-12.
  Total variation between Dirichlet laws over 3 or more categories is not implemented (R006).
"""
from __future__ import annotations

import math
from fractions import Fraction
from typing import Any, ClassVar, Dict, List, Optional, Sequence, Tuple

from obligations.records import record
from verifier.errors import error
from verifier.language.ast import Span
from verifier.semantics.values import (
    Value, format_value, is_number, sorted_values, to_json, to_real,
)

Prob = Any  # Fraction (exact) or float

#: Tolerance for float probabilities that must sum to 1.
FLOAT_SUM_TOLERANCE = 1e-9


class Distribution:
    """Base class of symbolic distributions."""

    family: ClassVar[str] = "?"

    def params(self) -> Tuple[Value, ...]:
        raise NotImplementedError

    def format(self) -> str:
        """The language syntax, e.g. ``beta(12.0, 9.0)``."""
        return f"{self.family}(" + ", ".join(format_value(p) for p in self.params()) + ")"

    def to_json(self) -> Dict[str, Any]:
        return {"family": self.family, "params": [to_json(p) for p in self.params()]}

    def __str__(self) -> str:
        return self.format()

    # finite or continuous ---------------------------------------------------------------
    def is_finite(self) -> bool:
        return False

    def pmf(self) -> Dict[Value, Prob]:
        """Value -> probability, for finite distributions (zero-probability values omitted)."""
        raise TypeError(f"{self.format()} is not a finite distribution")

    def log_density(self, x: Value) -> float:
        """Log of the density at ``x`` (continuous distributions; the pmf for finite ones)."""
        p = self.pmf().get(x, 0)
        return math.log(p) if p > 0 else -math.inf

    def density(self, x: Value) -> Prob:
        if self.is_finite():
            return self.pmf().get(x, 0)
        return math.exp(self.log_density(x))

    # moments --------------------------------------------------------------------------------
    def mean(self) -> Value:
        raise TypeError(f"{self.family} has no numeric mean")

    def variance(self) -> Value:
        raise TypeError(f"{self.family} has no numeric variance")

    # sampling ------------------------------------------------------------------------------------
    def sample(self, source: Any) -> Value:
        """One draw, using the ``NoiseSource`` ``source``."""
        raise NotImplementedError


# --------------------------------------------------------------------------------------
# the families
# --------------------------------------------------------------------------------------


@record
class Bernoulli(Distribution):
    p: Prob
    family: ClassVar[str] = "bernoulli"

    def params(self):
        return (self.p,)

    def is_finite(self):
        return True

    def pmf(self):
        out = {}
        if self.p > 0:
            out[True] = self.p
        if self.p < 1:
            out[False] = 1 - self.p
        return out

    def mean(self):
        return self.p

    def variance(self):
        return self.p * (1 - self.p)

    def sample(self, source):
        return bool(source.bernoulli(float(self.p)))


@record
class Beta(Distribution):
    a: Value
    b: Value
    family: ClassVar[str] = "beta"

    def params(self):
        return (self.a, self.b)

    def as_beta(self) -> "Beta":
        return self

    def mean(self):
        return self.a / (self.a + self.b)

    def variance(self):
        s = self.a + self.b
        return self.a * self.b / (s * s * (s + 1))

    def log_density(self, x):
        return _beta_log_density(float(self.a), float(self.b), float(x))

    def sample(self, source):
        return source.beta(float(self.a), float(self.b))


@record
class Uniform(Distribution):
    """``uniform ()``: the uniform law on [0, 1], i.e. ``beta(1, 1)`` (so conjugate to bernoulli)."""

    family: ClassVar[str] = "uniform"

    def params(self):
        return (Fraction(1), Fraction(1))

    def format(self):
        return "uniform()"

    def to_json(self):
        return {"family": "uniform", "params": []}

    def as_beta(self) -> Beta:
        return Beta(Fraction(1), Fraction(1))

    def mean(self):
        return Fraction(1, 2)

    def variance(self):
        return Fraction(1, 12)

    def log_density(self, x):
        return 0.0 if 0 <= x <= 1 else -math.inf

    def sample(self, source):
        return source.uniform()


@record
class Normal(Distribution):
    mu: Value
    var: Value
    family: ClassVar[str] = "normal"

    def params(self):
        return (self.mu, self.var)

    def mean(self):
        return self.mu

    def variance(self):
        return self.var

    def log_density(self, x):
        v = float(self.var)
        return -0.5 * math.log(2 * math.pi * v) - (float(x) - float(self.mu)) ** 2 / (2 * v)

    def sample(self, source):
        return source.normal(float(self.mu), float(self.var))


@record
class Dirichlet(Distribution):
    alphas: Tuple[Value, ...]
    family: ClassVar[str] = "dirichlet"

    def params(self):
        return tuple(self.alphas)

    def mean(self):
        total = sum(self.alphas)
        return tuple(a / total for a in self.alphas)

    def variance(self):
        total = sum(self.alphas)
        return tuple(a * (total - a) / (total * total * (total + 1)) for a in self.alphas)

    def log_density(self, x):
        point = [float(c) for c in x]
        if len(point) != len(self.alphas) or any(c < 0 for c in point) \
                or abs(sum(point) - 1) > FLOAT_SUM_TOLERANCE:
            return -math.inf
        out = -_log_multivariate_beta([float(a) for a in self.alphas])
        for a, c in zip(self.alphas, point):
            a = float(a)
            if c == 0:
                if a < 1:
                    return math.inf
                if a > 1:
                    return -math.inf
                continue
            out += (a - 1) * math.log(c)
        return out

    def sample(self, source):
        return tuple(source.dirichlet(tuple(float(a) for a in self.alphas)))


@record
class Categorical(Distribution):
    probs: Tuple[Prob, ...]
    family: ClassVar[str] = "categorical"

    def params(self):
        return tuple(self.probs)

    def is_finite(self):
        return True

    def pmf(self):
        return {i: p for i, p in enumerate(self.probs) if p > 0}

    def mean(self):
        return sum(i * p for i, p in enumerate(self.probs))

    def variance(self):
        m = self.mean()
        return sum((i - m) ** 2 * p for i, p in enumerate(self.probs))

    def sample(self, source):
        return int(source.categorical(tuple(float(p) for p in self.probs)))


@record
class Finite(Distribution):
    """A distribution with finite support: ``items`` are ``(value, probability)`` pairs in
    canonical order, with positive probabilities summing to 1."""

    items: Tuple[Tuple[Value, Prob], ...]
    family: ClassVar[str] = "finite"

    def params(self):
        return tuple(self.items)

    def format(self):
        inner = "; ".join(f"({format_value(v)}, {format_value(p)})" for v, p in self.items)
        return f"finite [{inner}]"

    def to_json(self):
        return {"family": "finite",
                "support": [{"value": to_json(v), "probability": to_json(p)} for v, p in self.items]}

    def is_finite(self):
        return True

    def pmf(self):
        return dict(self.items)

    def mean(self):
        if not all(is_number(v) for v, _ in self.items):
            raise TypeError("the mean of a distribution over non-numbers")
        return sum(to_real(v) * p for v, p in self.items)

    def variance(self):
        m = self.mean()
        return sum((v - m) ** 2 * p for v, p in self.items)

    def sample(self, source):
        index = source.categorical(tuple(float(p) for _, p in self.items))
        return self.items[int(index)][0]


# --------------------------------------------------------------------------------------
# checked construction
# --------------------------------------------------------------------------------------


def _is_real(x: Value) -> bool:
    return is_number(x) and not (isinstance(x, float) and math.isnan(x))


def _finite_real(x: Value) -> bool:
    return _is_real(x) and not (isinstance(x, float) and math.isinf(x))


def _range(message: str, span: Optional[Span], hint: Optional[str] = None):
    return error("R001", message, span, hint)


def _show_args(name: str, args: Sequence[Value]) -> str:
    if len(args) == 1:
        return f"{name} {format_value(args[0])}"
    return f"{name} (" + ", ".join(format_value(a) for a in args) + ")"


def make_bernoulli(p: Value, span: Optional[Span] = None) -> Bernoulli:
    if not _is_real(p) or not 0 <= p <= 1:
        raise _range(f"bernoulli needs a probability in [0, 1], got {_show_args('bernoulli', [p])}", span)
    return Bernoulli(to_real(p))


def _bad_positions(values: Sequence[Value]) -> str:
    """": the 2nd parameter is not positive" for the offending positions."""
    ordinals = {1: "1st", 2: "2nd", 3: "3rd"}
    bad = [ordinals.get(i + 1, f"{i + 1}th") for i, v in enumerate(values) if not (_finite_real(v) and v > 0)]
    if not bad:
        return ""
    which = " and ".join(bad) if len(bad) <= 2 else ", ".join(bad)
    return f": the {which} parameter{'s are' if len(bad) > 1 else ' is'} not a positive real"


def make_beta(a: Value, b: Value, span: Optional[Span] = None) -> Beta:
    if not (_finite_real(a) and _finite_real(b) and a > 0 and b > 0):
        raise _range(f"beta needs positive parameters, got {_show_args('beta', [a, b])}{_bad_positions([a, b])}",
                     span, hint="both parameters of beta must be finite and greater than 0")
    return Beta(to_real(a), to_real(b))


def make_uniform() -> Uniform:
    return Uniform()


def make_normal(mean: Value, variance: Value, span: Optional[Span] = None) -> Normal:
    if not _finite_real(mean):
        raise _range(f"normal needs a finite mean, got {_show_args('normal', [mean, variance])}", span)
    if not (_finite_real(variance) and variance > 0):
        raise _range(f"normal needs a positive variance, got {_show_args('normal', [mean, variance])}",
                     span, hint="the second parameter of normal is the variance, which must be > 0")
    return Normal(to_real(mean), to_real(variance))


def make_dirichlet(alphas: Sequence[Value], span: Optional[Span] = None) -> Dirichlet:
    alphas = tuple(alphas)
    if len(alphas) < 2:
        raise _range(f"dirichlet needs at least 2 parameters, got {len(alphas)}", span)
    if not all(_finite_real(a) and a > 0 for a in alphas):
        raise _range(f"dirichlet needs positive parameters, got {_show_args('dirichlet', alphas)}"
                     f"{_bad_positions(alphas)}", span)
    return Dirichlet(tuple(to_real(a) for a in alphas))


def check_probabilities(probs: Sequence[Value], what: str, span: Optional[Span]) -> Tuple[Prob, ...]:
    """``probs`` as exact-where-possible reals, checked to lie in [0, 1] and to sum to 1
    (exactly for exact values, within ``FLOAT_SUM_TOLERANCE`` once a float is involved)."""
    probs = tuple(probs)
    if not all(_is_real(p) and 0 <= p <= 1 for p in probs):
        raise _range(f"{what} needs probabilities in [0, 1], got ({', '.join(map(format_value, probs))})", span)
    total = sum(probs)
    exact = not any(isinstance(p, float) for p in probs)
    if (exact and total != 1) or (not exact and abs(total - 1) > FLOAT_SUM_TOLERANCE):
        raise _range(f"{what} needs probabilities summing to 1, got ({', '.join(map(format_value, probs))}), "
                     f"whose sum is {format_value(total)}", span)
    return tuple(to_real(p) for p in probs)


def make_categorical(probs: Sequence[Value], span: Optional[Span] = None) -> Categorical:
    probs = tuple(probs)
    if len(probs) < 2:
        raise _range(f"categorical needs a point of the simplex with at least 2 components, got {len(probs)}",
                     span)
    return Categorical(check_probabilities(probs, "categorical", span))


def make_finite(weights: Dict[Value, Prob], span: Optional[Span] = None) -> Distribution:
    """The finite distribution with probabilities ``weights`` (checked to sum to 1); zero
    entries are dropped. A distribution over ``bool`` becomes ``Bernoulli``."""
    kept = {v: p for v, p in weights.items() if p != 0}
    check_probabilities(list(kept.values()), "a finite distribution", span)
    if kept and all(isinstance(v, bool) for v in kept):
        return Bernoulli(kept.get(True, Fraction(0)))
    return Finite(tuple((v, kept[v]) for v in sorted_values(kept)))


def normalise(weights: Dict[Value, Prob]) -> Dict[Value, Prob]:
    """``weights`` divided by their (positive) total."""
    total = sum(weights.values())
    return {v: w / total for v, w in weights.items()}


# --------------------------------------------------------------------------------------
# special functions
# --------------------------------------------------------------------------------------


def _lbeta(a: float, b: float) -> float:
    return math.lgamma(a) + math.lgamma(b) - math.lgamma(a + b)


def _log_multivariate_beta(alphas: Sequence[float]) -> float:
    return sum(math.lgamma(a) for a in alphas) - math.lgamma(sum(alphas))


def _beta_log_density(a: float, b: float, x: float) -> float:
    if x < 0 or x > 1:
        return -math.inf
    if x == 0 or x == 1:
        exponent = a if x == 0 else b
        if exponent < 1:
            return math.inf
        if exponent > 1:
            return -math.inf
        return -_lbeta(a, b) + ((b - 1) * math.log1p(-x) if x == 0 else (a - 1) * math.log(x))
    return (a - 1) * math.log(x) + (b - 1) * math.log1p(-x) - _lbeta(a, b)


def _softplus(t: float) -> float:
    return max(t, 0.0) + math.log1p(math.exp(-abs(t)))


def _expit(t: float) -> float:
    return 1.0 / (1.0 + math.exp(-t)) if t >= 0 else math.exp(t) / (1.0 + math.exp(t))


def _betacf(a: float, b: float, x: float) -> float:
    """Continued fraction of the incomplete beta function (modified Lentz)."""
    tiny, eps = 1e-300, 1e-16
    qab, qap, qam = a + b, a + 1.0, a - 1.0
    c, d = 1.0, 1.0 - qab * x / qap
    d = 1.0 / (d if abs(d) > tiny else tiny)
    h = d
    max_iter = 10_000 + int(20 * math.sqrt(a + b))
    for m in range(1, max_iter):
        m2 = 2 * m
        aa = m * (b - m) * x / ((qam + m2) * (a + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + aa / c
        c = c if abs(c) > tiny else tiny
        h *= d * c
        aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + aa / c
        c = c if abs(c) > tiny else tiny
        delta = d * c
        h *= delta
        if abs(delta - 1.0) < eps:
            return h
    raise ArithmeticError("the incomplete beta function did not converge")


def beta_cdf_sf(a: float, b: float, t: float) -> Tuple[float, float]:
    """(P(X <= x), P(X > x)) for X ~ Beta(a, b) at ``x = expit(t)`` (the logit scale keeps
    both tails accurate)."""
    if t == -math.inf:
        return 0.0, 1.0
    if t == math.inf:
        return 1.0, 0.0
    x, y = _expit(t), _expit(-t)
    log_x, log_y = -_softplus(-t), -_softplus(t)
    front = math.exp(a * log_x + b * log_y - _lbeta(a, b))
    if x < (a + 1.0) / (a + b + 2.0):
        cdf = front * _betacf(a, b, x) / a
        return cdf, 1.0 - cdf
    sf = front * _betacf(b, a, y) / b
    return 1.0 - sf, sf


def _normal_cdf(m: float, v: float, x: float) -> float:
    if x == -math.inf:
        return 0.0
    if x == math.inf:
        return 1.0
    return 0.5 * math.erfc(-(x - m) / math.sqrt(2 * v))


# --------------------------------------------------------------------------------------
# Hellinger distance and total variation
# --------------------------------------------------------------------------------------


class UnsupportedPair(Exception):
    """No closed form or numerical method for this pair of distributions."""


def _beta_like(d: Distribution) -> Optional[Beta]:
    if isinstance(d, (Beta, Uniform)):
        return d.as_beta()
    return None


def log_bhattacharyya(d1: Distribution, d2: Distribution) -> float:
    """``log BC(d1, d2)``; raises ``UnsupportedPair`` for pairs of different families."""
    b1, b2 = _beta_like(d1), _beta_like(d2)
    if b1 is not None and b2 is not None:
        a1, c1, a2, c2 = float(b1.a), float(b1.b), float(b2.a), float(b2.b)
        return _lbeta((a1 + a2) / 2, (c1 + c2) / 2) - (_lbeta(a1, c1) + _lbeta(a2, c2)) / 2
    if isinstance(d1, Dirichlet) and isinstance(d2, Dirichlet):
        if len(d1.alphas) != len(d2.alphas):
            raise UnsupportedPair("dirichlet distributions over different numbers of categories")
        p, q = [float(a) for a in d1.alphas], [float(a) for a in d2.alphas]
        mid = [(x + y) / 2 for x, y in zip(p, q)]
        return _log_multivariate_beta(mid) - (_log_multivariate_beta(p) + _log_multivariate_beta(q)) / 2
    if isinstance(d1, Normal) and isinstance(d2, Normal):
        m1, v1, m2, v2 = float(d1.mu), float(d1.var), float(d2.mu), float(d2.var)
        return 0.5 * math.log(2 * math.sqrt(v1 * v2) / (v1 + v2)) - (m1 - m2) ** 2 / (4 * (v1 + v2))
    if d1.is_finite() and d2.is_finite():
        p, q = d1.pmf(), d2.pmf()
        bc = sum(math.sqrt(float(p[v]) * float(q[v])) for v in p if v in q)
        return math.log(bc) if bc > 0 else -math.inf
    raise UnsupportedPair(f"{d1.family} and {d2.family}")


def hellinger(d1: Distribution, d2: Distribution) -> float:
    """The Hellinger distance ``sqrt(1 - BC)`` (a metric with values in [0, 1])."""
    if d1 == d2:
        return 0.0
    log_bc = min(0.0, log_bhattacharyya(d1, d2))
    return math.sqrt(max(0.0, -math.expm1(log_bc)))


def total_variation(d1: Distribution, d2: Distribution) -> Prob:
    """The total variation distance ``sup_A |P(A) - Q(A)|``: exact for finite laws, numerical
    (see the module docstring) for Beta and Normal pairs."""
    if d1 == d2:
        return Fraction(0)
    if d1.is_finite() and d2.is_finite():
        p, q = d1.pmf(), d2.pmf()
        keys = set(p) | set(q)
        return sum(abs(p.get(v, 0) - q.get(v, 0)) for v in keys) / 2
    b1, b2 = _beta_like(d1), _beta_like(d2)
    if b1 is not None and b2 is not None:
        return _beta_tv(float(b1.a), float(b1.b), float(b2.a), float(b2.b))
    if isinstance(d1, Normal) and isinstance(d2, Normal):
        return _normal_tv(float(d1.mu), float(d1.var), float(d2.mu), float(d2.var))
    if isinstance(d1, Dirichlet) and isinstance(d2, Dirichlet) and len(d1.alphas) == len(d2.alphas) == 2:
        return _beta_tv(*(float(a) for a in d1.alphas), *(float(a) for a in d2.alphas))
    raise UnsupportedPair(f"{d1.family} and {d2.family}")


def _tv_from_crossings(crossings: List[float], sign_at, mass1, mass2, lo: float, hi: float) -> float:
    """Sum of P1(I) - P2(I) over the intervals I between consecutive crossings where p1 > p2."""
    points = [lo] + sorted(crossings) + [hi]
    total = 0.0
    for left, right in zip(points, points[1:]):
        if left == right:
            continue
        if left == -math.inf and right == math.inf:
            probe = 0.0
        elif left == -math.inf:
            probe = right - 1.0
        elif right == math.inf:
            probe = left + 1.0
        else:
            probe = (left + right) / 2
        if sign_at(probe) > 0:
            total += mass1(left, right) - mass2(left, right)
    return min(1.0, max(0.0, total))


def _beta_tv(a1: float, b1: float, a2: float, b2: float) -> float:
    alpha, beta_ = a1 - a2, b1 - b2
    const = _lbeta(a2, b2) - _lbeta(a1, b1)

    def g(t: float) -> float:  # log p1 - log p2 at x = expit(t)
        return const - alpha * _softplus(-t) - beta_ * _softplus(t)

    bound = 700.0
    pieces = [(-bound, bound)]
    if alpha * beta_ > 0:  # a turning point at x* = alpha / (alpha + beta) in (0, 1)
        x_star = alpha / (alpha + beta_)
        t_star = math.log(x_star) - math.log1p(-x_star)
        pieces = [(-bound, t_star), (t_star, bound)]
    crossings = []
    for lo, hi in pieces:
        g_lo, g_hi = g(lo), g(hi)
        if g_lo == 0:
            crossings.append(lo)
        if (g_lo < 0) == (g_hi < 0) or g_hi == 0:
            continue
        for _ in range(200):
            mid = (lo + hi) / 2
            if (g(mid) < 0) == (g_lo < 0):
                lo = mid
            else:
                hi = mid
        crossings.append((lo + hi) / 2)

    def mass(a: float, b: float):
        def m(left: float, right: float) -> float:
            cdf_l, sf_l = beta_cdf_sf(a, b, left)
            cdf_r, sf_r = beta_cdf_sf(a, b, right)
            return (cdf_r - cdf_l) if cdf_r < 0.5 else (sf_l - sf_r)
        return m

    return _tv_from_crossings(crossings, g, mass(a1, b1), mass(a2, b2), -math.inf, math.inf)


def _normal_tv(m1: float, v1: float, m2: float, v2: float) -> float:
    if v1 == v2:
        return math.erf(abs(m1 - m2) / (2 * math.sqrt(2 * v1)))
    qa = -1 / (2 * v1) + 1 / (2 * v2)
    qb = m1 / v1 - m2 / v2
    qc = -m1 * m1 / (2 * v1) + m2 * m2 / (2 * v2) + 0.5 * math.log(v2 / v1)
    disc = qb * qb - 4 * qa * qc
    crossings: List[float] = []
    if disc > 0:
        q = -0.5 * (qb + math.copysign(math.sqrt(disc), qb))
        crossings = [q / qa, qc / q] if q != 0 else [-qb / (2 * qa)]

    def sign_at(x: float) -> float:
        return qa * x * x + qb * x + qc

    def mass(m: float, v: float):
        return lambda left, right: _normal_cdf(m, v, right) - _normal_cdf(m, v, left)

    return _tv_from_crossings(crossings, sign_at, mass(m1, v1), mass(m2, v2), -math.inf, math.inf)


# --------------------------------------------------------------------------------------
# conjugate families
# --------------------------------------------------------------------------------------


def posteriors(prior: Distribution, n: int, limit: int, span: Optional[Span] = None) -> List[Distribution]:
    """Every posterior the conjugate ``prior`` can reach after ``n`` observations, in a fixed
    order: ``beta(a + k, b + n - k)`` for k = 0..n; for a dirichlet over k categories one per
    count vector summing to n, in lexicographic order of the count vectors. Raises R009 when
    there are more than ``limit`` of them."""
    beta = _beta_like(prior)
    if beta is not None:
        if n + 1 > limit:
            raise error("R009", f"posteriors would list {n + 1} candidates (limit {limit})", span)
        return [Beta(beta.a + k, beta.b + (n - k)) for k in range(n + 1)]
    if isinstance(prior, Dirichlet):
        k = len(prior.alphas)
        count = math.comb(n + k - 1, k - 1)
        if count > limit:
            raise error("R009", f"posteriors of a dirichlet over {k} categories after {n} observations "
                                f"are C({n + k - 1}, {k - 1}) = {count} candidates (limit {limit})", span)
        return [Dirichlet(tuple(a + c for a, c in zip(prior.alphas, counts)))
                for counts in _compositions(n, k)]
    raise error("R006", f"posteriors needs a beta, uniform or dirichlet prior, got {prior.format()}", span)


def _compositions(n: int, k: int):
    """Count vectors of length k summing to n, lexicographically from (0, ..., 0, n)."""
    if k == 1:
        yield (n,)
        return
    for first in range(n + 1):
        for rest in _compositions(n - first, k - 1):
            yield (first,) + rest
