"""The uninterpreted built-ins, interpreted: their meaning on concrete values.

The logic leaves ``length``, ``count``, ``adj``, ``dist``, ``hellinger``, the distribution
constructors… uninterpreted (``obligations.vocabulary``): what a proof knows of them is the
axioms it is given. A *counterexample*, on the other hand, must hold of the real built-ins,
so it is confirmed by evaluating the obligation with the definitions of LANGUAGE.md applied to
concrete values (``obligations.counterexamples``). This module gives those definitions:

* a list is a Python tuple of its elements (``()`` is ``[]``);
* a distribution is a ``DistValue`` (its family and exact parameters), e.g.
  ``DistValue("beta", (2, 3))``;
* numbers are ``int``, ``Fraction`` or (inexact) ``flint.arb`` balls, as in
  ``obligations.evaluate``.

``BuiltinInterpretation(fallback)`` is an ``Interpretation`` for ``obligations.evaluate``:
it computes every interpreted symbol exactly (distances between distributions as rigorous
balls, with the certified closed forms of ``lemmas.closed_forms``) and asks ``fallback``
about every other symbol (a call of a program function, a symbol of an opaque value);
``INTERPRETED`` tells which is which. Where a definition does not apply (``dist`` of lists of
different lengths, an inexact parameter), the value is undetermined (``None``), never a guess.
"""
from __future__ import annotations

import itertools
from fractions import Fraction
from typing import Any, Optional, Sequence, Tuple

from flint import arb

from obligations.evaluate import Element, Interpretation, Value, equal_values
from obligations.records import record
from obligations.terms import FuncDecl

#: the families of the distribution constructors (``dirichletK`` has K parameters)
FAMILIES = ("beta", "normal", "bernoulli", "categorical")
#: the largest list ``posteriors`` is expanded to
MAX_POSTERIORS = 10_000


@record
class DistValue:
    """A distribution of a known family with concrete parameters."""

    family: str
    params: Tuple[Value, ...]

    def __str__(self) -> str:
        name = "dirichlet" if self.family.startswith("dirichlet") else self.family
        return f"{name} ({', '.join(show(p) for p in self.params)})"


def is_family(name: str) -> bool:
    return name in FAMILIES or (name.startswith("dirichlet") and name[9:].isdigit())


def interpreted(func: FuncDecl) -> bool:
    """Whether ``func`` is a built-in whose meaning this module computes."""
    name = func.name
    return (name in _LIST_FUNCTIONS or name.startswith("nil_") or is_family(name)
            or name in ("hellinger", "tv", "posteriors") or _element_kind(func) is not None)


def _element_kind(func: FuncDecl) -> Optional[str]:
    """The element range of an ``allIn_<kind>`` predicate (``obligations.vocabulary``)."""
    from obligations.vocabulary import ALL_IN, element_kind_ok
    if func.name.startswith(ALL_IN) and len(func.domain) == 1:
        kind = func.name[len(ALL_IN):]
        return kind if element_kind_ok(kind) else None
    return None


_LIST_FUNCTIONS = {"length", "count", "countOf", "sum", "adj", "adjWithin", "allWithin", "dist",
                   "cons"}


def show(v: Value) -> str:
    """A concrete value in the program's syntax (``[true; false]``, ``3/2``, ``beta (2, 3)``)."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, tuple):
        return "[" + "; ".join(show(x) for x in v) + "]"
    if isinstance(v, arb):
        return v.str(20, radius=False)
    return str(v)


class BuiltinInterpretation(Interpretation):
    """The built-ins by their definitions; other symbols by ``fallback``."""

    def __init__(self, fallback: Optional[Interpretation] = None):
        self.fallback = fallback or Interpretation()
        #: the non-built-in applications whose value was asked of the fallback
        self.consulted: list = []

    def universe(self, sort):
        return self.fallback.universe(sort)

    def apply(self, func: FuncDecl, args: Tuple[Value, ...]) -> Value:
        if not interpreted(func) or any(isinstance(a, Element) for a in args):
            self.consulted.append((func, args))
            return self.fallback.apply(func, args)
        name = func.name
        if name.startswith("nil_"):
            return ()
        if is_family(name):
            return DistValue(name, tuple(args))
        kind = _element_kind(func)
        if kind is not None:
            return _all_in(kind, args[0])
        method = getattr(self, "_" + name)
        return method(*args)

    # ---- lists ------------------------------------------------------------------------------

    @staticmethod
    def _cons(head: Value, tail: Value) -> Value:
        return (head,) + tail if isinstance(tail, tuple) else None

    @staticmethod
    def _length(l: Value) -> Value:
        return len(l) if isinstance(l, tuple) else None

    @staticmethod
    def _count(l: Value) -> Value:
        return sum(1 for x in l if x is True) if _all_known(l) else None

    @staticmethod
    def _countOf(l: Value, j: Value) -> Value:
        return sum(1 for x in l if x == j) if _all_known(l) and isinstance(j, int) else None

    @staticmethod
    def _sum(l: Value) -> Value:
        if not _all_known(l):
            return None
        total: Value = Fraction(0)
        for x in l:
            total = total + x
        return total

    @staticmethod
    def _adj(l1: Value, l2: Value) -> Value:
        differ = _differences(l1, l2)
        return None if differ is None else differ is not False and len(differ) <= 1

    @staticmethod
    def _adjWithin(l1: Value, l2: Value, c: Value) -> Value:
        """Same length, at most one differing position, and there by at most ``c`` (the
        evaluator's definition: equal lists are within any bound)."""
        differ = _differences(l1, l2)
        if differ is None:
            return None
        if differ is False or len(differ) > 1:
            return False
        for x, y in differ:
            gap = abs(x - y) - c
            if isinstance(gap, arb):
                return True if gap <= 0 else False if gap > 0 else None
            return gap <= 0
        return True

    @staticmethod
    def _allWithin(l1: Value, l2: Value, c: Value) -> Value:
        """Same length, and the entries at every position at most ``c`` apart (so a negative
        ``c`` admits only two empty lists)."""
        if not (_all_known(l1) and _all_known(l2)):
            return None
        if len(l1) != len(l2):
            return False
        verdict: Value = True
        for x, y in zip(l1, l2):
            gap = abs(x - y) - c
            if isinstance(gap, arb):
                ok = True if gap <= 0 else False if gap > 0 else None
            else:
                ok = gap <= 0
            if ok is False:
                return False
            if ok is None:
                verdict = None
        return verdict

    @staticmethod
    def _dist(l1: Value, l2: Value) -> Value:
        differ = _differences(l1, l2)
        return None if differ is None or differ is False else len(differ)

    # ---- distributions ------------------------------------------------------------------------

    @staticmethod
    def _hellinger(p: Value, q: Value) -> Value:
        return _distance("hellinger", p, q)

    @staticmethod
    def _tv(p: Value, q: Value) -> Value:
        return _distance("tv", p, q)

    @staticmethod
    def _posteriors(prior: Value, n: Value) -> Value:
        if not (isinstance(prior, DistValue) and isinstance(n, int) and n >= 0
                and all(_exact(p) for p in prior.params)):
            return None
        if prior.family == "beta":
            if n + 1 > MAX_POSTERIORS:
                return None
            a, b = prior.params
            return tuple(DistValue("beta", (a + k, b + n - k)) for k in range(n + 1))
        if prior.family.startswith("dirichlet"):
            k = len(prior.params)
            vectors = [c for c in itertools.product(range(n + 1), repeat=k) if sum(c) == n] \
                if (n + 1) ** k <= MAX_POSTERIORS else None
            if vectors is None:
                return None
            return tuple(DistValue(prior.family, tuple(a + c for a, c in zip(prior.params, cs)))
                         for cs in sorted(vectors))  # lexicographic, as LANGUAGE.md lists them
        return None


def _all_in(kind: str, l: Value) -> Value:
    """Whether every element of the list ``l`` is in the range ``kind`` (``nat``, ``pos``,
    ``unit``, ``finK``); None when an element is not known exactly enough to decide."""
    if not _all_known(l):
        return None
    out: Value = True
    for x in l:
        inside = _in_range(kind, x)
        if inside is False:
            return False
        if inside is None:
            out = None
    return out


def _in_range(kind: str, x: Value) -> Optional[bool]:
    """Whether the number ``x`` is in the range ``kind``; None when a ball straddles a bound
    (or ``x`` is not a number)."""
    if isinstance(x, bool) or not isinstance(x, (int, Fraction, arb)):
        return None
    low, strict = (0, kind == "pos")
    high = {"unit": (1, False)}.get(kind, (int(kind[3:]), True) if kind.startswith("fin") else None)
    checks = [(x > low) if strict else (x >= low)]
    fails = [(x <= low) if strict else (x < low)]
    if high is not None:
        bound, open_ = high
        checks.append((x < bound) if open_ else (x <= bound))
        fails.append((x >= bound) if open_ else (x > bound))
    if any(f is True for f in fails):
        return False
    if all(c is True for c in checks):
        return True
    return None


def _exact(x: Value) -> bool:
    return isinstance(x, (int, Fraction)) and not isinstance(x, bool)


def _all_known(l: Value) -> bool:
    return isinstance(l, tuple) and all(x is not None and not isinstance(x, Element) for x in l)


def _differences(l1: Value, l2: Value):
    """The differing pairs of two lists of one length; ``False`` for lists of different
    lengths; ``None`` when it cannot be decided."""
    if not (_all_known(l1) and _all_known(l2)):
        return None
    if len(l1) != len(l2):
        return False
    out = []
    for x, y in zip(l1, l2):
        same = equal_values(x, y)
        if same is None:
            return None
        if not same:
            out.append((x, y))
    return out


def _distance(which: str, p: Value, q: Value) -> Value:
    """The Hellinger or total variation distance of two distributions of one family, as a
    rigorous ball (``None`` for other pairs, or inexact parameters)."""
    if not (isinstance(p, DistValue) and isinstance(q, DistValue) and p.family == q.family
            and len(p.params) == len(q.params)
            and all(_exact(x) for x in p.params + q.params)):
        return None
    if p.family in ("bernoulli", "categorical"):
        return _finite_distance(which, _probabilities(p), _probabilities(q))
    from lemmas import closed_forms as C  # the certified evaluators (flint, no sympy)
    try:
        if p.family == "beta":
            d1, d2 = C.Beta(*p.params), C.Beta(*q.params)
        elif p.family == "normal":
            d1, d2 = C.Normal(*p.params), C.Normal(*q.params)
        else:
            d1, d2 = C.Dirichlet(p.params), C.Dirichlet(q.params)
        return (C.hellinger if which == "hellinger" else C.tv)(d1, d2)
    except (ValueError, TypeError, ArithmeticError):
        return None  # parameters outside the family's domain, or no closed form


def _probabilities(d: DistValue) -> Optional[Sequence[Fraction]]:
    if d.family == "bernoulli":
        (p,) = d.params
        return (1 - Fraction(p), Fraction(p))
    return tuple(Fraction(p) for p in d.params)


def _finite_distance(which: str, p: Sequence[Fraction], q: Sequence[Fraction]) -> Value:
    if any(not 0 <= x <= 1 for x in tuple(p) + tuple(q)) or sum(p) != 1 or sum(q) != 1:
        return None
    if which == "tv":
        return sum((abs(x - y) for x, y in zip(p, q)), Fraction(0)) / 2
    one_minus = 1 - sum((_sqrt_product(x, y) for x, y in zip(p, q)), arb(0))
    if one_minus > 0:
        return one_minus.sqrt()
    top = arb(one_minus.upper()).sqrt().upper() if one_minus.upper() > 0 else arb(0)
    return arb(arb(top) / 2, arb(top) / 2)  # the ball [0, top]: BC is 1 up to rounding


def _sqrt_product(x: Fraction, y: Fraction) -> arb:
    from flint import fmpq
    return arb(fmpq((x * y).numerator, (x * y).denominator)).sqrt()


__all__ = ["BuiltinInterpretation", "DistValue", "interpreted", "is_family", "show",
           "equal_values"]
