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
from verifier.semantics import reals
from verifier.semantics.values import (
    Value, canonical, format_value, is_number, sorted_values, to_json, to_real,
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

    def density(self, x: Value) -> Prob:
        """The density at ``x`` (the pmf for finite distributions), exactly; raises
        ``InfiniteDensity`` where it is infinite."""
        return self.pmf().get(x, 0)

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
        return bool(source.bernoulli(self.p))


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

    def density(self, x):
        return _beta_density(self.a, self.b, x)

    def sample(self, source):
        return Fraction(source.beta(self.a, self.b))


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

    def density(self, x):
        return Fraction(1) if 0 <= x <= 1 else Fraction(0)

    def sample(self, source):
        return Fraction(source.uniform())

    def __eq__(self, other: Any) -> Any:
        """``uniform ()`` is the law ``beta (1, 1)``: the language's ``=`` (``values_equal``)
        and the logic (the translator reads ``uniform ()`` as ``beta (1, 1)``, in the builder
        and in the kernel) must agree, or ``if uniform () = beta (1.0, 1.0) then 0 else count
        db`` is verified ``=`` while run releases ``count db`` (red-team round 3). ``Beta``'s
        equality declines a ``Uniform``, so ``beta (1, 1) = uniform ()`` comes here too."""
        if isinstance(other, Uniform):
            return True
        if isinstance(other, Beta):
            return other.a == 1 and other.b == 1
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self.as_beta())


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

    def density(self, x):
        return _normal_density(self.mu, self.var, x)

    def sample(self, source):
        # mu + sqrt(var) z for a standard normal float z, exactly: no overflow for any mean
        # or variance
        z = Fraction(source.normal(0.0, 1.0))
        return self.mu + reals.sqrt(self.var) * z


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

    def density(self, x):
        return _dirichlet_density(self.alphas, x)

    def sample(self, source):
        # the float draw normalised exactly: a point of the simplex (summing to 1 exactly)
        point = [Fraction(c) for c in source.dirichlet(tuple(self.alphas))]
        total = sum(point, Fraction(0))
        return tuple(c / total for c in point)


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
        return int(source.categorical(tuple(self.probs)))


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
        index = source.categorical(tuple(p for _, p in self.items))
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
    (exactly for exact values, within ``FLOAT_SUM_TOLERANCE`` once a float is involved).
    A sum of exact reals that agrees with 1 to thousands of digits but is not shown to be 1 by
    exact simplification is R011 (``reals.Undecided``, raised to the caller)."""
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
    """The finite distribution with probabilities ``weights``; zero entries are dropped and
    outcomes that are equal as values are merged (an exact real equal to a rational:
    ``values.canonical``). Rational probabilities are checked to sum to 1; a law with exact
    real probabilities was computed by normalising, so its sum is 1 by construction (deciding
    it would need exact simplification of the whole sum). A distribution over ``bool`` becomes
    ``Bernoulli``."""
    merged: Dict[Value, Prob] = {}
    for v, p in weights.items():
        if p != 0:
            key = canonical(v)
            merged[key] = merged[key] + p if key in merged else p
    kept = merged
    if not any(isinstance(p, reals.Real) for p in kept.values()):
        check_probabilities(list(kept.values()), "a finite distribution", span)
    if kept and all(isinstance(v, bool) for v in kept):
        return Bernoulli(kept.get(True, Fraction(0)))
    return Finite(tuple((v, kept[v]) for v in sorted_values(kept)))


def normalise(weights: Dict[Value, Prob]) -> Dict[Value, Prob]:
    """``weights`` divided by their (positive) total."""
    if len(weights) == 1:
        return {v: Fraction(1) for v in weights}
    total = sum(weights.values(), Fraction(0))
    return {v: w / total for v, w in weights.items()}


# --------------------------------------------------------------------------------------
# densities, Bhattacharyya coefficients, distances (exact reals)
# --------------------------------------------------------------------------------------


class UnsupportedPair(Exception):
    """No closed form or rigorous method for this pair of distributions."""


class InfiniteDensity(ArithmeticError):
    """The density is infinite at the point (a Beta or Dirichlet with a parameter below 1 at
    the edge of its support)."""


def _exact(x: Value) -> Value:
    """An exact real number: an ``int`` as a ``Fraction`` (so that ``/`` stays exact), a float
    (only ever passed by tests and internal callers) at its exact binary value."""
    if isinstance(x, float):
        if not math.isfinite(x):
            raise ValueError(f"not a finite number: {x!r}")
        return Fraction(x)
    if isinstance(x, int) and not isinstance(x, bool):
        return Fraction(x)
    return x


def _lbeta(*xs: Value) -> Value:
    """ln B(x1, ..., xk) = sum ln Gamma(xi) - ln Gamma(sum xi), exactly."""
    out: Value = Fraction(0)
    for x in xs:
        out = out + reals.lgamma(x)
    return out - reals.lgamma(sum(xs, Fraction(0)))


def _beta_density(a: Value, b: Value, x: Value) -> Value:
    a, b, x = _exact(a), _exact(b), _exact(x)
    if x < 0 or x > 1:
        return Fraction(0)
    if x == 0 or x == 1:
        exponent = a if x == 0 else b
        if exponent < 1:
            raise InfiniteDensity(f"the density of beta ({format_value(a)}, {format_value(b)}) is "
                                  f"infinite at {format_value(x)}")
        if exponent > 1:
            return Fraction(0)
        return reals.exp(-_lbeta(a, b))
    return reals.exp((a - 1) * reals.log(x) + (b - 1) * reals.log(1 - x) - _lbeta(a, b))


def _normal_density(m: Value, v: Value, x: Value) -> Value:
    m, v, x = _exact(m), _exact(v), _exact(x)
    d = x - m
    return reals.exp(-(d * d) / (2 * v)) / reals.sqrt(2 * reals.pi() * v)


def _dirichlet_density(alphas: Sequence[Value], point: Sequence[Value]) -> Value:
    alphas = [_exact(a) for a in alphas]
    point = [_exact(c) for c in point]
    if len(point) != len(alphas) or any(c < 0 for c in point) or sum(point, Fraction(0)) != 1:
        return Fraction(0)
    out: Value = -_lbeta(*alphas)
    for a, c in zip(alphas, point):
        if c == 0:
            if a < 1:
                raise InfiniteDensity(f"the density of dirichlet is infinite at a point with a "
                                      f"zero coordinate whose parameter {format_value(a)} is below 1")
            if a > 1:
                return Fraction(0)
            continue
        out = out + (a - 1) * reals.log(c)
    return reals.exp(out)


def _beta_like(d: Distribution) -> Optional[Beta]:
    if isinstance(d, (Beta, Uniform)):
        return d.as_beta()
    return None


def bhattacharyya(d1: Distribution, d2: Distribution) -> Value:
    """``BC(d1, d2) = integral sqrt(p q)`` exactly; raises ``UnsupportedPair`` for pairs of
    different families."""
    b1, b2 = _beta_like(d1), _beta_like(d2)
    if b1 is not None and b2 is not None:
        a1, c1, a2, c2 = (_exact(x) for x in (b1.a, b1.b, b2.a, b2.b))
        return reals.exp(_lbeta((a1 + a2) / 2, (c1 + c2) / 2) - (_lbeta(a1, c1) + _lbeta(a2, c2)) / 2)
    if isinstance(d1, Dirichlet) and isinstance(d2, Dirichlet):
        if len(d1.alphas) != len(d2.alphas):
            raise UnsupportedPair("dirichlet distributions over different numbers of categories")
        p, q = [_exact(a) for a in d1.alphas], [_exact(a) for a in d2.alphas]
        mid = [(x + y) / 2 for x, y in zip(p, q)]
        return reals.exp(_lbeta(*mid) - (_lbeta(*p) + _lbeta(*q)) / 2)
    if isinstance(d1, Normal) and isinstance(d2, Normal):
        m1, v1, m2, v2 = (_exact(x) for x in (d1.mu, d1.var, d2.mu, d2.var))
        d = m1 - m2
        return reals.sqrt(2 * reals.sqrt(v1 * v2) / (v1 + v2)) * reals.exp(-(d * d) / (4 * (v1 + v2)))
    if d1.is_finite() and d2.is_finite():
        p, q = d1.pmf(), d2.pmf()
        return sum((reals.sqrt(p[v] * q[v]) for v in p if v in q), Fraction(0))
    raise UnsupportedPair(f"{d1.family} and {d2.family}")


def hellinger(d1: Distribution, d2: Distribution) -> Value:
    """The Hellinger distance ``sqrt(1 - BC)`` (a metric with values in [0, 1]), exactly."""
    if d1 == d2:
        return Fraction(0)
    bc = bhattacharyya(d1, d2)
    if isinstance(bc, reals.Real) and bc.op == "exp":  # 1 - e^L = -expm1(L): no cancellation
        return reals.sqrt(-reals.expm1(bc.args[0]))
    return reals.sqrt(1 - bc)


def total_variation(d1: Distribution, d2: Distribution) -> Value:
    """The total variation distance ``sup_A |P(A) - Q(A)|``, exactly: a rational or exact-real
    sum for finite laws; an exact-real closed form (``erf`` at the crossing points of the two
    densities) for two Normal laws; for two Beta laws an exact real known through certified
    enclosures by the crossing-point method (``lemmas.closed_forms.tv_beta`` for rational
    parameters, ``_beta_tv_enclosure`` for any others)."""
    if d1 == d2:
        return Fraction(0)
    if d1.is_finite() and d2.is_finite():
        p, q = d1.pmf(), d2.pmf()
        keys = list(p) + [v for v in q if v not in p]
        return sum((reals.absolute(p.get(v, 0) - q.get(v, 0)) for v in keys), Fraction(0)) / 2
    b1, b2 = _beta_like(d1), _beta_like(d2)
    if b1 is None and isinstance(d1, Dirichlet) and isinstance(d2, Dirichlet) \
            and len(d1.alphas) == len(d2.alphas) == 2:
        b1, b2 = Beta(*d1.alphas), Beta(*d2.alphas)
    if b1 is not None and b2 is not None:
        params = tuple(_exact(x) for x in (b1.a, b1.b, b2.a, b2.b))
        if not all(reals.is_rational(x) for x in params):
            return _beta_tv_real(*params, f"tv ({d1.format()}, {d2.format()})")
        a1, c1, a2, c2 = (Fraction(x) for x in params)
        # TV is symmetric, and invariant under x -> 1 - x: one canonical parameter order
        first, second = min(((a1, c1), (a2, c2)), ((a2, c2), (a1, c1)),
                            ((c1, a1), (c2, a2)), ((c2, a2), (c1, a1)))
        return _certified_tv("tv_beta", "Beta", first, second)
    if isinstance(d1, Normal) and isinstance(d2, Normal):
        m1, v1, m2, v2 = (_exact(x) for x in (d1.mu, d1.var, d2.mu, d2.var))
        # TV is symmetric and invariant under translations and reflections of the line: one
        # canonical form, so that equal distances are one expression
        gap = m2 - m1 if m2 >= m1 else m1 - m2
        low, high = (v1, v2) if v1 <= v2 else (v2, v1)
        return _normal_tv(Fraction(0), low, gap, high)
    raise UnsupportedPair(f"{d1.family} and {d2.family}")


def _normal_tv(m1: Value, v1: Value, m2: Value, v2: Value) -> Value:
    """TV between N(m1, v1) and N(m2, v2) in closed form. ``ln p - ln q`` is the quadratic
    ``A x^2 + B x + C``: one root when ``v1 = v2``, else two (its discriminant is positive: both
    laws have mass 1); with ``D = Phi_1 - Phi_2`` (``Phi`` by ``erf``) and ``D(-inf) = D(inf)
    = 0``, ``TV = (1/2) sum |D(r_{i+1}) - D(r_i)|`` over the roots (``p - q`` keeps its sign
    between consecutive roots)."""
    def cdf_gap(x: Value) -> Value:
        return (reals.erf((x - m1) / reals.sqrt(2 * v1)) - reals.erf((x - m2) / reals.sqrt(2 * v2))) / 2

    if v1 == v2:
        roots = [(m1 + m2) / 2]
    else:
        a = 1 / (2 * v2) - 1 / (2 * v1)
        b = m1 / v1 - m2 / v2
        c = m2 * m2 / (2 * v2) - m1 * m1 / (2 * v1) + reals.log(v2 / v1) / 2
        root = reals.sqrt(b * b - 4 * a * c)
        roots = [(-b - root) / (2 * a), (-b + root) / (2 * a)]
        if a < 0:
            roots.reverse()
    values = [Fraction(0)] + [cdf_gap(r) for r in roots] + [Fraction(0)]
    # each gap is P1(I) - P2(I) over an interval where p1 - p2 keeps a (non-zero) sign: its
    # absolute value by that sign, decided exactly (an abs would be opaque to simplification)
    gaps = [v - u for u, v in zip(values, values[1:])]
    return sum((g if g > 0 else -g for g in gaps), Fraction(0)) / 2


def _beta_tv_real(a1: Value, b1: Value, a2: Value, b2: Value, label: str) -> Value:
    """TV between Beta (a1, b1) and Beta (a2, b2) with exact-real parameters: an exact real
    known through ``_beta_tv_enclosure`` (the signs it needs decided exactly here)."""
    al, be = a1 - a2, b1 - b2
    s_al, s_be = reals.sign(al), reals.sign(be)
    k = _lbeta(a2, b2) - _lbeta(a1, b1)
    ends = (-s_al if s_al else reals.sign(k), -s_be if s_be else reals.sign(k))
    split = al / (al + be) if s_al * s_be > 0 else None
    key = ("tv_beta_real",) + tuple(("r", id(x)) if isinstance(x, reals.Real) else ("q", x)
                                    for x in (a1, b1, a2, b2))
    return reals.enclosed(_beta_tv_enclosure((a1, b1, a2, b2), k, ends, split), label, key=key,
                          nonnegative=True)


def _beta_tv_enclosure(params: Tuple[Value, ...], k: Value, ends: Tuple[int, int],
                       split: Optional[Value]):
    """The crossing-point method of ``lemmas.closed_forms.tv_beta`` on Arb balls of exact-real
    parameters. ``h(x) = k + (a1 - a2) ln x + (b1 - b2) ln (1 - x)`` is the log density ratio;
    it is strictly monotone on each side of ``split`` (its turning point, when it has one), so
    it has at most one zero there, enclosed by bisection with certified signs; its signs at 0
    and 1 are ``ends``. Between consecutive crossings ``p - q`` keeps its sign, so ``TV = (1/2)
    sum |D(c_{i+1}) - D(c_i)|`` with ``D`` the difference of the regularised incomplete Beta
    functions, evaluated on the balls that enclose the crossings. At a precision where a sign
    is not certain the enclosure is NaN (the next precision is tried)."""
    from flint import arb

    def enclose(prec: int) -> arb:
        a1, b1, a2, b2, kb = (reals.ball_of(x, prec) for x in (*params, k))

        def sign(x: arb) -> Optional[int]:
            v = kb + (a1 - a2) * x.log() + (b1 - b2) * (1 - x).log()
            return 1 if v > 0 else -1 if v < 0 else None

        points = [(arb(0), ends[0]), (arb(1), ends[1])]
        if split is not None:
            middle = reals.ball_of(split, prec)
            points.insert(1, (middle, sign(middle)))
        if any(s is None for _, s in points):
            return arb.nan()
        crossings = []
        for (lo, s_lo), (hi, s_hi) in zip(points, points[1:]):
            if s_lo == s_hi:
                continue
            for _ in range(prec):
                mid = (lo + hi) / 2
                s_mid = sign(mid)
                if s_mid is None:  # the crossing is at or next to mid: certify a small interval
                    step = (hi - lo) * arb(2) ** (-(prec // 2))
                    if sign(mid - step) == s_lo and sign(mid + step) == s_hi:
                        lo, hi = mid - step, mid + step
                    break
                lo, hi = (mid, hi) if s_mid == s_lo else (lo, mid)
            crossings.append(lo.union(hi))
        gaps = [arb(0)] + [c.beta_lower(a1, b1, 1) - c.beta_lower(a2, b2, 1) for c in crossings]
        gaps.append(arb(0))
        total = arb(0)
        for u, v in zip(gaps, gaps[1:]):
            total += abs(v - u)
        return total / 2

    return enclose


def _certified_tv(method: str, family: str, p: Tuple[Fraction, ...], q: Tuple[Fraction, ...]) -> Value:
    """TV between two laws of ``family`` with rational parameters ``p``, ``q`` (in a canonical
    order, which is also the number's identity: ``reals.enclosed``'s key)."""
    from lemmas import closed_forms
    law = getattr(closed_forms, family)
    fn = getattr(closed_forms, method)
    first, second = law(*p), law(*q)
    label = (f"tv ({family.lower()} ({', '.join(map(format_value, p))}), "
             f"{family.lower()} ({', '.join(map(format_value, q))}))")
    return reals.enclosed(lambda prec: fn(first, second, prec), label, key=(method, p, q),
                          nonnegative=True)


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
