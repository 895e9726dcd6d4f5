"""Exact f-divergences of finite distributions (Table 1 of the paper).

A finite distribution is a mapping value -> probability with exact rational probabilities
(``int`` or ``Fraction``; floats are refused) summing to 1. Results are exact:

* ``sd(p, q)`` (a Fraction): the statistical distance (1/2) sum |p - q|;
* ``bc``, ``hd``, ``hellinger``, ``kl``: exact sympy numbers (sums of square roots and
  logarithms of rationals) — ``hd`` is Table 1's HD = 1 - BC, the *square* of the Hellinger
  distance ``hellinger`` = sqrt(1 - BC), which is the metric (NOTES.md §3);
* ``eps_d(eps, p, q)``: sum max(p - e^eps q, 0), exact, with the sign of every term decided by
  certified Arb enclosures (and exact zero tests where a tie is possible, e.g. eps = ln 2);
* ``max_log_ratio(p, q)`` = max over the support of p of ln(p/q) (``oo`` if q misses part of
  p's support) and ``privacy_loss(p, q)``, its maximum over both directions;
* ``*_arb`` variants give Arb balls; ``f_divergence(name, p, q)`` evaluates the defining sum
  sum q f(p/q) with the conventions of Definition 3.6, to cross-check the simplified forms;
* ``bind(mu, kernel)`` composes finite distributions (for testing composability).
"""
from __future__ import annotations

from fractions import Fraction
from typing import Callable, Dict, Hashable, Mapping, Union

import flint
import sympy as sp

from lemmas.arbeval import EnclosureError, evaluate, precision, to_arb

arb = flint.arb
Finite = Mapping[Hashable, Union[int, Fraction]]
Exact = Union[int, Fraction, sp.Expr]


def _check(p: Finite, name: str = "p") -> Dict[Hashable, Fraction]:
    out = {}
    for v, x in p.items():
        if isinstance(x, bool) or not isinstance(x, (int, Fraction)):
            raise TypeError(f"{name}({v!r}) = {x!r}: probabilities must be ints or Fractions")
        if x < 0:
            raise ValueError(f"{name}({v!r}) is negative")
        out[v] = Fraction(x)
    if sum(out.values()) != 1:
        raise ValueError(f"{name} does not sum to 1")
    return out


def _support(p, q):
    return set(p) | set(q)


def _q(x: Fraction) -> sp.Rational:
    return sp.Rational(x.numerator, x.denominator)


def sd(p: Finite, q: Finite) -> Fraction:
    """Statistical (total variation) distance (1/2) sum |p - q|, exactly."""
    p, q = _check(p, "p"), _check(q, "q")
    return sum((abs(p.get(a, 0) - q.get(a, 0)) for a in _support(p, q)), Fraction(0)) / 2


def bc(p: Finite, q: Finite) -> sp.Expr:
    """Bhattacharyya coefficient sum sqrt(p q), exactly."""
    p, q = _check(p, "p"), _check(q, "q")
    return sp.Add(*[sp.sqrt(_q(p[a] * q[a])) for a in set(p) & set(q)])


def hd(p: Finite, q: Finite) -> sp.Expr:
    """Table 1's HD = (1/2) sum (sqrt p - sqrt q)^2 = 1 - BC, exactly (not a metric)."""
    return 1 - bc(p, q)


def hellinger(p: Finite, q: Finite) -> sp.Expr:
    """The Hellinger distance sqrt(1 - BC), exactly (a metric)."""
    return sp.sqrt(hd(p, q))


def kl(p: Finite, q: Finite) -> sp.Expr:
    """KL(p || q) = sum p ln(p/q), exactly; ``oo`` if p puts mass where q does not."""
    p, q = _check(p, "p"), _check(q, "q")
    terms = []
    for a, pa in p.items():
        if pa == 0:
            continue
        qa = q.get(a, Fraction(0))
        if qa == 0:
            return sp.oo
        terms.append(_q(pa) * sp.log(_q(pa / qa)))
    return sp.Add(*terms)


def eps_d(eps: Exact, p: Finite, q: Finite, max_prec: int = 4096) -> sp.Expr:
    """The epsilon-distance sum max(p - e^eps q, 0), exactly (Table 1; paper Lemma 3.1).

    ``eps`` is an exact number or a closed sympy expression (``sp.log(2)``). The sign of each
    term p(a) - e^eps q(a) is certified with Arb; a term whose enclosure keeps containing 0 is
    tested for exact zero with sympy (a tie contributes 0 either way); if neither decides, the
    function raises ``EnclosureError`` rather than guess.
    """
    p, q = _check(p, "p"), _check(q, "q")
    e = sp.sympify(eps)
    if e.free_symbols:
        raise ValueError("eps must be a closed expression")
    terms = []
    for a in _support(p, q):
        pa, qa = p.get(a, Fraction(0)), q.get(a, Fraction(0))
        term = _q(pa) - sp.exp(e) * _q(qa)
        s = _sign(term, max_prec)
        if s > 0:
            terms.append(term)
    return sp.Add(*terms)


def _sign(term: sp.Expr, max_prec: int) -> int:
    if term.is_zero:
        return 0
    p = 64
    while p <= max_prec:
        with precision(p):
            v = evaluate(term)
            if v > 0:
                return 1
            if v < 0:
                return -1
        p *= 2
    if sp.simplify(term) == 0:
        return 0
    raise EnclosureError(f"cannot decide the sign of {term}")


def max_log_ratio(p: Finite, q: Finite) -> sp.Expr:
    """max over a in supp(p) of ln(p(a)/q(a)), exactly (``oo`` if q(a) = 0 < p(a)).

    ``p`` is (eps, 0)-close to ``q`` in the direction p -> q (EpsD(eps, p, q) = 0) exactly when
    this is <= eps.
    """
    p, q = _check(p, "p"), _check(q, "q")
    best = None
    for a, pa in p.items():
        if pa == 0:
            continue
        qa = q.get(a, Fraction(0))
        if qa == 0:
            return sp.oo
        r = pa / qa
        best = r if best is None or r > best else best
    return sp.log(_q(best))


def privacy_loss(p: Finite, q: Finite) -> sp.Expr:
    """max(max_log_ratio(p, q), max_log_ratio(q, p)): the least eps with both directions 0."""
    a, b = max_log_ratio(p, q), max_log_ratio(q, p)
    if a == sp.oo or b == sp.oo:
        return sp.oo
    # both are logs of rationals: compare the rationals exactly
    return a if sp.exp(a) >= sp.exp(b) else b


def is_dp_pair(eps: Exact, delta: Exact, p: Finite, q: Finite) -> bool:
    """Certified: EpsD(eps, p, q) <= delta and EpsD(eps, q, p) <= delta."""
    d = sp.sympify(delta)
    for x, y in ((p, q), (q, p)):
        diff = eps_d(eps, x, y) - d
        if _sign(diff, 4096) > 0:
            return False
    return True


# ---- Arb enclosures ---------------------------------------------------------------------------

def bc_arb(p: Finite, q: Finite, prec: int = 128) -> "flint.arb":
    with precision(prec):
        return evaluate(bc(p, q))


def hd_arb(p: Finite, q: Finite, prec: int = 128) -> "flint.arb":
    with precision(prec):
        return (1 - bc_arb(p, q, prec)).nonnegative_part()


def hellinger_arb(p: Finite, q: Finite, prec: int = 128) -> "flint.arb":
    with precision(prec):
        return hd_arb(p, q, prec).sqrt()


def kl_arb(p: Finite, q: Finite, prec: int = 128) -> "flint.arb":
    v = kl(p, q)
    if v == sp.oo:
        raise EnclosureError("KL is infinite")
    return evaluate(v, prec=prec)


def eps_d_arb(eps: Exact, p: Finite, q: Finite, prec: int = 128) -> "flint.arb":
    """A ball containing sum max(p - e^eps q, 0), computed termwise on balls."""
    p, q = _check(p, "p"), _check(q, "q")
    with precision(prec):
        ee = evaluate(sp.exp(sp.sympify(eps)))
        total = arb(0)
        for a in _support(p, q):
            t = to_arb(p.get(a, Fraction(0))) - ee * to_arb(q.get(a, Fraction(0)))
            if t > 0:
                total += t
            elif not t < 0 and not t == 0:
                total += arb(0).union(t.nonnegative_part())
        return total


def max_log_ratio_arb(p: Finite, q: Finite, prec: int = 128) -> "flint.arb":
    v = max_log_ratio(p, q)
    if v == sp.oo:
        raise EnclosureError("the ratio is unbounded")
    return evaluate(v, prec=prec)


# ---- Definition 3.6, literally ----------------------------------------------------------------

#: name -> (f, lim_{u -> oo} f(u)/u) for Table 1 (eps-D takes eps as a parameter)
def table1(name: str, eps: Exact = 0):
    e = sp.exp(sp.sympify(eps))
    half = sp.Rational(1, 2)
    return {
        "SD": (lambda x: half * sp.Abs(x - 1), half),
        "HD": (lambda x: half * (sp.sqrt(x) - 1) ** 2, half),
        "KL": (lambda x: x * sp.log(x) - x + 1 if x != 0 else sp.Integer(1), sp.oo),
        "epsD": (lambda x: sp.Max(x - e, 0), sp.Integer(1)),
    }[name]


def f_divergence(name: str, p: Finite, q: Finite, eps: Exact = 0) -> sp.Expr:
    """sum_a q(a) f(p(a)/q(a)) with 0 f(0/0) = 0 and 0 f(a/0) = a lim f(u)/u (Def. 3.6)."""
    p, q = _check(p, "p"), _check(q, "q")
    f, slope = table1(name, eps)
    total = sp.Integer(0)
    for a in _support(p, q):
        pa, qa = _q(p.get(a, Fraction(0))), _q(q.get(a, Fraction(0)))
        if qa == 0:
            if pa != 0:
                total += pa * slope
        else:
            total += qa * f(pa / qa)
    return total


def bind(mu: Finite, kernel: Callable[[Hashable], Finite]) -> Dict[Hashable, Fraction]:
    """The finite distribution of: draw v from mu, then from kernel(v)."""
    mu = _check(mu, "mu")
    out: Dict[Hashable, Fraction] = {}
    for v, pv in mu.items():
        if pv == 0:
            continue
        for w, pw in _check(kernel(v), "kernel(v)").items():
            out[w] = out.get(w, Fraction(0)) + pv * pw
    return out
