"""Exact probabilities of difference constraints on independent Laplace (and Gaussian) variables.

The law of a program whose noisy values are only compared (``verifier.semantics.compared``)
is a sum, over the program's paths, of probabilities of the form

    P[ lo_k < Y_i - Y_j < hi_k  for every constraint k ]

for independent ``Y_i ~ c_i + Lap(b_i)`` (or ``N(c_i, s_i^2)``) and a constant node ``Y_0 = 0``
(a comparison with a threshold). This module computes such probabilities exactly.

Representation
==============

* **Numbers.** When every centre, scale and bound is rational, every quantity is an
  *exponential polynomial with rational data*, ``sum_r q_r e^r`` (``Expo``: rational ``q_r``,
  ``r``), kept canonical (no zero coefficient, exponents sorted), so it is exact, its zero test is
  trivial (the ``e^r`` are linearly independent over Q: Lindemann-Weierstrass) and equal numbers
  are equal objects after ``Expo.real`` (``reals.Real`` nodes are hash-consed). Otherwise the
  same computation runs on ``reals.Real`` expressions (``REAL``), whose comparisons are decided
  as everywhere in the run-time semantics (docs/reals.md). ``Algebra`` names the two.
* **Functions.** A ``Piecewise`` function of one real variable: breakpoints ``t_1 < ... < t_m``
  and on each of the ``m + 1`` open intervals a finite sum ``sum c x^n e^(lambda x)`` (a dict
  ``{(lambda, n): c}``). A Laplace density is one (two pieces); products, primitives, shifts
  ``x -> x + a`` and differences stay in the class, since ``int x^n e^(lambda x) dx`` has a
  closed form (``_primitive``).

The constraints
===============

Constraints between two variables form a graph. ``constraint_probability`` requires that graph
(without the constant node) to be a **forest**: each tree is integrated leaves first, the
message of a child ``c`` to its parent ``p`` being ``m(x) = F_c(x - lo) - F_c(x - hi)`` with
``F_c`` the primitive of ``c``'s density times its own children's messages, restricted to
``c``'s constant bounds (belief propagation, exact because every message is piecewise
exponential-polynomial). The classic noisy algorithms give trees: Report Noisy Max compares the
current best with each new value (a tree on ``k`` nodes with ``k - 1`` edges), the sparse vector
technique compares each noisy query with one noisy threshold (a star, a forest of stars when
the threshold is drawn again). A cycle is refused (``NotForest``).

Gaussian variables are exact only in the two cases with a closed form: a variable alone with
constant bounds (``erfc``), and two variables joined by one constraint without constant bounds
(their difference is Gaussian). Anything else with Gaussian noise is refused (``NotForest``
with the reason).
"""
from __future__ import annotations

import math
from fractions import Fraction
from typing import Any, Dict, Iterable, List, Optional, Sequence, Tuple

from verifier.semantics import reals

Number = Any


class NotForest(Exception):
    """The constraints are outside what this module integrates exactly; ``reason`` says why."""

    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason


# ======================================================================================
# exponential polynomials with rational data
# ======================================================================================


class Expo:
    """``sum_r q_r e^r`` with rational ``q_r`` and ``r`` (canonical: sorted, no zero term)."""

    __slots__ = ("terms",)

    def __init__(self, terms: Tuple[Tuple[Fraction, Fraction], ...]):
        self.terms = terms

    @staticmethod
    def of(mapping: Dict[Fraction, Fraction]) -> "Expo":
        return Expo(tuple(sorted((r, q) for r, q in mapping.items() if q != 0)))

    @staticmethod
    def const(q: Number) -> "Expo":
        return Expo(((Fraction(0), Fraction(q)),)) if q != 0 else ZERO

    @staticmethod
    def exp(r: Number) -> "Expo":
        return Expo(((Fraction(r), Fraction(1)),))

    def is_zero(self) -> bool:
        return not self.terms

    def __add__(self, other: Any) -> "Expo":
        other = _expo(other)
        if not other.terms:
            return self
        if not self.terms:
            return other
        out = dict(self.terms)
        for r, q in other.terms:
            out[r] = out.get(r, 0) + q
        return Expo.of(out)

    __radd__ = __add__

    def __neg__(self) -> "Expo":
        return Expo(tuple((r, -q) for r, q in self.terms))

    def __sub__(self, other: Any) -> "Expo":
        return self + (-_expo(other))

    def __rsub__(self, other: Any) -> "Expo":
        return _expo(other) + (-self)

    def __mul__(self, other: Any) -> "Expo":
        if isinstance(other, (int, Fraction)):
            if other == 0:
                return ZERO
            return Expo(tuple((r, q * other) for r, q in self.terms))
        other = _expo(other)
        out: Dict[Fraction, Fraction] = {}
        for r1, q1 in self.terms:
            for r2, q2 in other.terms:
                out[r1 + r2] = out.get(r1 + r2, 0) + q1 * q2
        return Expo.of(out)

    __rmul__ = __mul__

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Expo) and self.terms == other.terms

    def __hash__(self) -> int:
        return hash(self.terms)

    def real(self) -> Number:
        """The exact number (a rational, or a hash-consed ``reals.Real``)."""
        total: Number = Fraction(0)
        for r, q in self.terms:
            total = reals.add(total, q if r == 0 else reals.mul(q, reals.exp(r)))
        return total

    def __repr__(self) -> str:
        return " + ".join(f"{q}*e^({r})" for r, q in self.terms) or "0"


ZERO = Expo(())


def _expo(x: Any) -> Expo:
    if isinstance(x, Expo):
        return x
    if isinstance(x, (int, Fraction)) and not isinstance(x, bool):
        return Expo.const(x)
    raise TypeError(f"not an exponential polynomial: {x!r}")


# ======================================================================================
# the two number systems
# ======================================================================================


class Algebra:
    """How the functions below compute: ``exp`` of a scalar as a coefficient, the exact
    ``sign`` of a scalar (breakpoints and exponents), the coefficient of a rational, and a
    canonical key for an exponent (so that equal exponents merge)."""

    name = "algebra"

    def exp(self, x: Number) -> Any:
        raise NotImplementedError

    def const(self, q: Number) -> Any:
        raise NotImplementedError

    def sign(self, x: Number) -> int:
        raise NotImplementedError

    def key(self, x: Number) -> Number:
        return x

    def is_zero(self, c: Any) -> bool:
        raise NotImplementedError

    def number(self, c: Any) -> Number:
        """A coefficient as an exact number of the run-time semantics."""
        raise NotImplementedError


class _Rational(Algebra):
    """Rational scalars, ``Expo`` coefficients: exact and canonical."""

    name = "exact"

    def exp(self, x):
        return Expo.exp(x)

    def const(self, q):
        return Expo.const(q)

    def sign(self, x):
        return (x > 0) - (x < 0)

    def is_zero(self, c):
        return c.is_zero()

    def number(self, c):
        return c.real()


class _Reals(Algebra):
    """``reals.Real`` scalars and coefficients (centres, scales or bounds not rational)."""

    name = "real"

    def __init__(self):
        self._keys: List[Number] = []

    def exp(self, x):
        return reals.exp(x)

    def const(self, q):
        return q

    def sign(self, x):
        return reals.sign(x)

    def key(self, x):
        if reals.is_rational(x):
            return Fraction(x)
        for k in self._keys:
            if reals.sign(reals.sub(x, k)) == 0:
                return k
        self._keys.append(x)
        return x

    def is_zero(self, c):
        return reals.is_rational(c) and c == 0

    def number(self, c):
        return c


def algebra_for(numbers: Iterable[Number]) -> Algebra:
    """The rational algebra when every number is rational, else the exact-real one."""
    return RATIONAL if all(reals.is_rational(x) for x in numbers) else _Reals()


RATIONAL = _Rational()


class _FloatCoefficients(_Rational):
    """Rational exponents and breakpoints (decided exactly, as in ``RATIONAL``), float
    coefficients: the same integration in floating point, many times faster. For *ranking*
    candidate witnesses only (``verifier.refutation``'s search): nothing is decided with it."""

    name = "float"

    def exp(self, x):
        return math.exp(float(x))

    def const(self, q):
        return float(q)

    def is_zero(self, c):
        return c == 0

    def number(self, c):
        return float(c)


FLOAT_COEFFICIENTS = _FloatCoefficients()


# ======================================================================================
# piecewise exponential polynomials
# ======================================================================================

Piece = Dict[Tuple[Number, int], Any]


class Piecewise:
    """A function of one real variable: ``breaks`` ascending, ``pieces[k]`` the sum on the
    ``k``-th open interval (``pieces[0]`` left of ``breaks[0]``, ``pieces[-1]`` right of the
    last break); see the module docstring."""

    __slots__ = ("breaks", "pieces")

    def __init__(self, breaks: List[Number], pieces: List[Piece]):
        self.breaks, self.pieces = breaks, pieces

    @staticmethod
    def constant(alg: Algebra, c: Any) -> "Piecewise":
        return Piecewise([], [{} if alg.is_zero(c) else {(Fraction(0), 0): c}])


def laplace_density(alg: Algebra, center: Number, scale: Number) -> Piecewise:
    """The density of ``center + Lap(scale)``: ``e^(-|x - c| / b) / (2 b)``."""
    rate = 1 / Fraction(scale) if reals.is_rational(scale) else reals.div(1, scale)
    half = rate / 2
    left = {(alg.key(rate), 0): alg.exp(-center * rate) * half}
    right = {(alg.key(-rate), 0): alg.exp(center * rate) * half}
    return Piecewise([center], [left, right])


def _position(alg: Algebra, breaks: List[Number], t: Number) -> Tuple[int, bool]:
    """``(i, equal)``: ``t`` lies in piece ``i`` (``breaks[i-1] < t < breaks[i]``), or equals
    ``breaks[i]`` when ``equal``."""
    lo, hi = 0, len(breaks)
    while lo < hi:
        mid = (lo + hi) // 2
        s = alg.sign(t - breaks[mid])
        if s == 0:
            return mid, True
        if s < 0:
            hi = mid
        else:
            lo = mid + 1
    return lo, False


def _with_break(alg: Algebra, f: Piecewise, t: Number) -> Piecewise:
    i, equal = _position(alg, f.breaks, t)
    if equal:
        return f
    return Piecewise(f.breaks[:i] + [t] + f.breaks[i:], f.pieces[:i] + [f.pieces[i]] + f.pieces[i:])


def _refine(alg: Algebra, f: Piecewise, breaks: Sequence[Number]) -> Piecewise:
    for t in breaks:
        f = _with_break(alg, f, t)
    return f


def restrict(alg: Algebra, f: Piecewise, lo: Optional[Number], hi: Optional[Number]) -> Piecewise:
    """``f`` on ``(lo, hi)``, 0 outside (``None``: unbounded on that side)."""
    bounds = [t for t in (lo, hi) if t is not None]
    f = _refine(alg, f, bounds)
    pieces = []
    for k, piece in enumerate(f.pieces):
        left = f.breaks[k - 1] if k > 0 else None
        right = f.breaks[k] if k < len(f.breaks) else None
        inside = (lo is None or (left is not None and alg.sign(left - lo) >= 0)) and \
                 (hi is None or (right is not None and alg.sign(right - hi) <= 0))
        pieces.append(piece if inside else {})
    return Piecewise(f.breaks, pieces)


def _combine(alg: Algebra, f: Piecewise, g: Piecewise, op) -> Piecewise:
    f = _refine(alg, f, g.breaks)
    g = _refine(alg, g, f.breaks)
    return Piecewise(f.breaks, [op(p, q) for p, q in zip(f.pieces, g.pieces)])


def multiply(alg: Algebra, f: Piecewise, g: Piecewise) -> Piecewise:
    """The pointwise product."""
    def product(p: Piece, q: Piece) -> Piece:
        out: Piece = {}
        for (l1, n1), c1 in p.items():
            for (l2, n2), c2 in q.items():
                key = (alg.key(l1 + l2), n1 + n2)
                out[key] = out[key] + c1 * c2 if key in out else c1 * c2
        return {k: c for k, c in out.items() if not alg.is_zero(c)}
    return _combine(alg, f, g, product)


def subtract(alg: Algebra, f: Piecewise, g: Piecewise) -> Piecewise:
    """``f - g``."""
    def difference(p: Piece, q: Piece) -> Piece:
        out = dict(p)
        for key, c in q.items():
            out[key] = out[key] - c if key in out else -c
        return {k: c for k, c in out.items() if not alg.is_zero(c)}
    return _combine(alg, f, g, difference)


def _primitive(alg: Algebra, piece: Piece) -> Piece:
    """A primitive of ``sum c x^n e^(lambda x)``: ``x^(n+1) / (n+1)`` for ``lambda = 0``, else
    ``e^(lambda x) sum_k (-1)^k n! / (n-k)! x^(n-k) / lambda^(k+1)``."""
    out: Piece = {}

    def add(key, c):
        out[key] = out[key] + c if key in out else c

    for (lam, n), c in piece.items():
        if alg.sign(lam) == 0:
            add((lam, n + 1), c * Fraction(1, n + 1))
            continue
        inverse = 1 / Fraction(lam) if reals.is_rational(lam) else reals.div(1, lam)
        factor: Number = inverse
        falling = 1
        for k in range(n + 1):
            add((lam, n - k), c * (factor * (falling if k % 2 == 0 else -falling)))
            falling *= n - k
            factor = factor * inverse
    return {k: c for k, c in out.items() if not alg.is_zero(c)}


def _value(alg: Algebra, piece: Piece, t: Number) -> Any:
    """The piece's sum at the point ``t``."""
    total = alg.const(0)
    for (lam, n), c in piece.items():
        total = total + c * alg.exp(lam * t) * (t ** n if reals.is_rational(t) else reals.power(t, n))
    return total


def antiderivative(alg: Algebra, f: Piecewise) -> Piecewise:
    """``F(x) = int_(-inf)^x f``: continuous, 0 at ``-inf`` (``f`` must be integrable there)."""
    for (lam, n) in f.pieces[0]:
        if alg.sign(lam) <= 0:
            raise ArithmeticError("the function is not integrable at -infinity")
    pieces: List[Piece] = []
    running: Optional[Any] = None   # F at the left end of the current piece
    for k, piece in enumerate(f.pieces):
        prim = _primitive(alg, piece)
        if k > 0:
            t = f.breaks[k - 1]
            constant = running - _value(alg, prim, t)
            if not alg.is_zero(constant):
                key = (Fraction(0), 0)
                prim[key] = prim[key] + constant if key in prim else constant
                if alg.is_zero(prim[key]):
                    del prim[key]
        pieces.append(prim)
        if k < len(f.breaks):
            running = _value(alg, prim, f.breaks[k])
    return Piecewise(list(f.breaks), pieces)


def at_infinity(alg: Algebra, F: Piecewise) -> Any:
    """``lim F(x)`` as ``x -> +inf`` (the terms that do not vanish must be constants)."""
    total = alg.const(0)
    for (lam, n), c in F.pieces[-1].items():
        s = alg.sign(lam)
        if s < 0:
            continue
        if s == 0 and n == 0:
            total = total + c
            continue
        raise ArithmeticError("the function does not converge at +infinity")
    return total


def shift(alg: Algebra, F: Piecewise, a: Number) -> Piecewise:
    """``x -> F(x + a)``: ``c (x + a)^n e^(lambda (x + a)) = c e^(lambda a) sum_k C(n, k) a^(n-k) x^k e^(lambda x)``."""
    pieces: List[Piece] = []
    for piece in F.pieces:
        out: Piece = {}
        for (lam, n), c in piece.items():
            base = c * alg.exp(lam * a)
            for k in range(n + 1):
                coeff = base * (math.comb(n, k) * (a ** (n - k) if reals.is_rational(a)
                                                   else reals.power(a, n - k)))
                key = (lam, k)
                out[key] = out[key] + coeff if key in out else coeff
        pieces.append({k: c for k, c in out.items() if not alg.is_zero(c)})
    return Piecewise([t - a for t in F.breaks], pieces)


# ======================================================================================
# probabilities of constraint forests
# ======================================================================================


def constraint_probability(variables: Sequence[Tuple[str, Number, Number]],
                           bounds: Dict[int, Tuple[Optional[Number], Optional[Number]]],
                           edges: Dict[Tuple[int, int], Tuple[Optional[Number], Optional[Number]]],
                           keep: bool = False, screen: bool = False) -> Any:
    """``P[lo_i < Y_i < hi_i for every bound, lo < Y_i - Y_j < hi for every edge]``, exactly.

    ``variables[i]`` is ``(family, centre, scale)`` (``"laplace"`` or ``"gauss"``, the scale the
    standard deviation for ``"gauss"``); ``bounds`` maps a variable to its constant bounds and
    ``edges`` an ordered pair ``(i, j)``, ``i < j``, to the bounds of ``Y_i - Y_j`` (``None``:
    unbounded). Variables in no constraint integrate to 1. The result is an exact number, or
    with ``keep`` an ``Expo`` when every component was computed with rationals. Raises
    ``NotForest`` when the edges contain a cycle or Gaussian variables are joined in a way
    without closed form. With ``screen`` the result is a float, computed with float
    coefficients (``FLOAT_COEFFICIENTS``) when the data are rational: an estimate for ranking,
    never a decision."""
    neighbours: Dict[int, List[int]] = {i: [] for i in range(len(variables))}
    for (i, j) in edges:
        neighbours[i].append(j)
        neighbours[j].append(i)
    seen: set = set()
    parts: List[Any] = []
    for root in range(len(variables)):
        if root in seen or (not neighbours[root] and root not in bounds):
            seen.add(root)
            continue
        component = _component(root, neighbours, seen)
        if len(edges_within(component, edges)) != len(component) - 1:
            raise NotForest("the noisy values are compared in a cycle (each comparison of two noisy "
                            "values is an edge; the exact law is computed for forests only)")
        families = {variables[i][0] for i in component}
        if families == {"laplace"}:
            parts.append(_laplace_tree(variables, bounds, edges, neighbours, component, screen))
        elif families == {"gauss"}:
            parts.append(_gauss_component(variables, bounds, edges, component))
        else:
            raise NotForest("Laplace and Gaussian noise are compared with each other")
    if screen:
        product_float = 1.0
        for p in parts:
            product_float *= p if isinstance(p, float) else float(
                p.real() if isinstance(p, Expo) else p)
        return product_float
    if all(isinstance(p, Expo) for p in parts):
        product = Expo.const(1)
        for p in parts:
            product = product * p
        return product if keep else product.real()
    total: Number = Fraction(1)
    for p in parts:
        total = reals.mul(total, p.real() if isinstance(p, Expo) else p)
    return total


def _component(root: int, neighbours: Dict[int, List[int]], seen: set) -> List[int]:
    order, stack = [], [root]
    seen.add(root)
    while stack:
        v = stack.pop()
        order.append(v)
        for w in neighbours[v]:
            if w not in seen:
                seen.add(w)
                stack.append(w)
    return order


def edges_within(component: Sequence[int], edges) -> List[Tuple[int, int]]:
    inside = set(component)
    return [e for e in edges if e[0] in inside]


def _laplace_tree(variables, bounds, edges, neighbours, component: List[int],
                  screen: bool = False) -> Number:
    numbers = [x for i in component for x in variables[i][1:]]
    numbers += [x for i in component for x in bounds.get(i, (None, None)) if x is not None]
    numbers += [x for e in edges_within(component, edges) for x in edges[e] if x is not None]
    alg = algebra_for(numbers)
    if screen and alg is RATIONAL:
        alg = FLOAT_COEFFICIENTS
    root = max(component, key=lambda v: len(neighbours[v]))

    def weight(v: int, parent: Optional[int]) -> Piecewise:
        """``v``'s density, restricted to its bounds, times its children's messages."""
        family, center, scale = variables[v]
        f = laplace_density(alg, center, scale)
        lo, hi = bounds.get(v, (None, None))
        if lo is not None or hi is not None:
            f = restrict(alg, f, lo, hi)
        for w in neighbours[v]:
            if w != parent:
                f = multiply(alg, f, message(w, v))
        return f

    def message(child: int, parent: int) -> Piecewise:
        """``x -> P[the constraint between child and parent holds at Y_parent = x, and the
        child's subtree's constraints]``."""
        F = antiderivative(alg, weight(child, parent))
        if (child, parent) in edges:         # lo < Y_c - x < hi:  F(x + hi) - F(x + lo)
            lo, hi = edges[(child, parent)]
            upper, lower = hi, lo
        else:                                # lo < x - Y_c < hi:  F(x - lo) - F(x - hi)
            lo, hi = edges[(parent, child)]
            upper = None if lo is None else -lo
            lower = None if hi is None else -hi
        top = (Piecewise.constant(alg, at_infinity(alg, F)) if upper is None
               else shift(alg, F, upper))
        return top if lower is None else subtract(alg, top, shift(alg, F, lower))

    result = at_infinity(alg, antiderivative(alg, weight(root, None)))
    return result if alg is RATIONAL else alg.number(result)  # a float with FLOAT_COEFFICIENTS


def _gauss_component(variables, bounds, edges, component: List[int]) -> Number:
    from verifier.semantics.noise import noise_cdf
    if len(component) == 1:
        (v,) = component
        _, center, sigma = variables[v]
        lo, hi = bounds.get(v, (None, None))
        upper = 1 if hi is None else noise_cdf("gauss", reals.sub(hi, center), sigma)
        lower = 0 if lo is None else noise_cdf("gauss", reals.sub(lo, center), sigma)
        return reals.sub(upper, lower)
    if len(component) == 2 and not any(v in bounds for v in component):
        (edge,) = edges_within(component, edges)
        (_, c1, s1), (_, c2, s2) = variables[edge[0]], variables[edge[1]]
        sigma = reals.sqrt(reals.add(reals.mul(s1, s1), reals.mul(s2, s2)))
        center = reals.sub(c1, c2)
        lo, hi = edges[edge]
        upper = 1 if hi is None else noise_cdf("gauss", reals.sub(hi, center), sigma)
        lower = 0 if lo is None else noise_cdf("gauss", reals.sub(lo, center), sigma)
        return reals.sub(upper, lower)
    raise NotForest("Gaussian noise compared beyond one threshold per value or one comparison "
                    "between two values has no closed form here")


__all__ = ["Expo", "Algebra", "RATIONAL", "algebra_for", "Piecewise", "laplace_density", "restrict",
           "multiply", "subtract", "antiderivative", "at_infinity", "shift", "constraint_probability",
           "NotForest"]
