"""Divergence bounds between exact finite output distributions, as obligation goals.

The rule ExactFinite (``verifier/rules/exact_finite.py``) computes, for every value of the
parameters of a finite closed definition, its output distribution exactly (rational
probabilities); the certificate kernel recomputes them with its own evaluator
(``checker/finite.py``). Both turn the distributions into goals here, so that the kernel
rebuilds the very goals the verifier discharged. Nothing here is approximate: probabilities
are ``Fraction``\\ s, and what is not rational (``exp eps``, a square root, a logarithm) stays
a closed term, which the obligations machinery encloses rigorously (docs/obligations.md).

* A *valuation* is a tuple of parameter values (``bool`` or ``int``, one per parameter); a
  *law* maps outcome texts (``outcome_text``) to positive ``Fraction``\\ s summing to 1.
* ``pairs(params, laws)``: the ordered pairs of valuations the two runs may take — every
  pair, except that a parameter whose two runs are one term (refined by ``=``) takes the same
  value in both.
* ``goals(family, eps, delta, params, laws)``: ``[(what, goal)]``. Each goal is a conjunction
  over the pairs ``(a, b)`` of ``x<1> = a /\\ x<2> = b ==> bound(a, b)``, where ``bound`` is
  closed (the index with the pair's values substituted), so that a counterexample names the
  parameters' values. With ``P``, ``Q`` the laws at ``a`` and ``b``:

  | claim | bound(a, b) | goals |
  |---|---|---|
  | ``DP(eps)``, delta 0 | ``P(o) <= exp(eps) * Q(o)`` | one per outcome ``o`` |
  | ``DP(eps, delta)`` | ``sum_o max(0, P(o) - exp(eps) * Q(o)) <= delta`` (hockey stick) | one |
  | ``SD, delta`` | ``1/2 sum_o abs(P(o) - Q(o)) <= delta`` (a rational, computed) | one |
  | ``HD, delta`` | ``1 - sum_o sqrt(P(o) * Q(o)) <= delta`` (1 - Bhattacharyya) | one |
  | ``KL, delta`` | ``sum_o P(o) * log(P(o) / Q(o)) <= delta``; false if ``Q(o) = 0 < P(o)`` | one |

  Outcomes with ``P(o) = 0`` contribute nothing and are left out (``0 <= exp(eps) * Q(o)``
  holds for every eps).
"""
from __future__ import annotations

from fractions import Fraction
from typing import Any, Dict, Iterable, List, Sequence, Tuple

from obligations import terms as T

Valuation = Tuple[Any, ...]
Law = Dict[str, Fraction]
#: the most ordered pairs of valuations a goal may range over (it has one conjunct per pair)
MAX_PAIRS = 1024


def outcome_text(v: Any) -> str:
    """A finite value in the language's syntax: ``true``, ``2``, ``()``, ``(true, 1)``.
    ``()`` (the empty tuple) stands for the unit value."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, Fraction):
        return str(v.numerator) if v.denominator == 1 else f"{v.numerator}/{v.denominator}"
    if isinstance(v, tuple):
        return "(" + ", ".join(outcome_text(x) for x in v) + ")"
    raise ValueError(f"not a finite value: {v!r}")


def canonical(weighted: Iterable[Tuple[Any, Fraction]]) -> Tuple[Tuple[str, Fraction], ...]:
    """(value, probability) pairs as a law: (outcome text, probability) pairs sorted by text,
    the probabilities of one outcome added up, zeros left out."""
    out: Dict[str, Fraction] = {}
    for v, p in weighted:
        key = outcome_text(v)
        out[key] = out.get(key, Fraction(0)) + Fraction(p)
    return tuple((k, out[k]) for k in sorted(out) if out[k] != 0)


def value_term(v: Any) -> T.Term:
    """The term of a parameter value: a ``bool`` (Bool) or an ``int`` (Int, for ``[k]``)."""
    if isinstance(v, bool):
        return T.boolean(v)
    if isinstance(v, int):
        return T.integer(v)
    raise ValueError(f"not a parameter value: {v!r}")


def pairs(params: Sequence[Tuple[T.Term, T.Term]], valuations: Sequence[Valuation]
          ) -> List[Tuple[int, int]]:
    """The ordered pairs (indices into ``valuations``) the two runs may take."""
    shared = [i for i, (left, right) in enumerate(params) if left == right]
    return [(i, j) for i, a in enumerate(valuations) for j, b in enumerate(valuations)
            if all(a[k] == b[k] for k in shared)]


def _guard(params, a: Valuation, b: Valuation) -> T.Term:
    parts: List[T.Term] = []
    for (left, right), x, y in zip(params, a, b):
        for term, value in ((left, x), (right, y)):
            eq = T.eq(term, value_term(value))
            if eq not in parts:
                parts.append(eq)
    return T.and_(*parts)


def _at(term: T.Term, params, a: Valuation, b: Valuation) -> T.Term:
    """``term`` (an index) with the parameters' run-1 and run-2 variables at ``a`` and ``b``."""
    mapping = {}
    for (left, right), x, y in zip(params, a, b):
        for t, value in ((left, x), (right, y)):
            if isinstance(t, T.Var):
                mapping[t] = value_term(value)
    return T.substitute(term, mapping) if mapping else term


def _sum(parts: List[T.Term]) -> T.Term:
    return T.real(0) if not parts else parts[0] if len(parts) == 1 else T.add(*parts)


def _bound(family: str, eps, delta, P: Law, Q: Law, outcome=None) -> T.Term:
    """The closed bound of one pair (``outcome``: the one outcome of a DP goal, delta 0)."""
    if family == "DP" and outcome is not None:
        return T.le(T.real(P[outcome]), T.mul(T.exp(eps), T.real(Q.get(outcome, 0))))
    if family == "DP":
        parts = [T.max_(T.real(0), T.sub(T.real(p), T.mul(T.exp(eps), T.real(Q.get(o, 0)))))
                 for o, p in P.items()]
        return T.le(_sum(parts), delta)
    if family == "SD":
        outcomes = set(P) | set(Q)
        tv = sum((abs(P.get(o, 0) - Q.get(o, 0)) for o in outcomes), Fraction(0)) / 2
        return T.le(T.real(tv), delta)
    if family == "HD":
        roots = [T.sqrt(T.real(p * Q[o])) for o, p in P.items() if Q.get(o, 0) != 0]
        return T.le(T.sub(T.real(1), _sum(roots)), delta)
    if family == "KL":
        if any(Q.get(o, 0) == 0 for o in P):
            return T.FALSE  # the divergence is infinite
        return T.le(_sum([T.mul(T.real(p), T.log(T.real(p / Q[o]))) for o, p in P.items()]),
                    delta)
    raise ValueError(f"no exact bound for the divergence {family}")


def goals(family: str, eps, delta: T.Term, params: Sequence[Tuple[T.Term, T.Term]],
          laws: Sequence[Tuple[Valuation, Law]]) -> List[Tuple[str, T.Term]]:
    """The goals stating the claim ``M[family(eps), delta]`` of the laws (module docstring);
    ``what`` is the outcome of a per-outcome goal, else ``""``."""
    valuations = [a for a, _ in laws]
    chosen = pairs(params, valuations)
    if len(chosen) > MAX_PAIRS:
        raise ValueError(f"{len(chosen)} pairs of parameter values (at most {MAX_PAIRS})")

    def conjunction(outcome=None) -> T.Term:
        parts = []
        for i, j in chosen:
            (a, P), (b, Q) = laws[i], laws[j]
            if outcome is not None and outcome not in P:
                continue
            bound = _bound(family, _at(eps, params, a, b) if eps is not None else None,
                           _at(delta, params, a, b), P, Q, outcome)
            parts.append(T.implies(_guard(params, a, b), bound))
        return T.and_(*parts)

    if family == "DP" and delta == T.real(0):
        outcomes = sorted({o for _, law in laws for o in law})
        return [(o, conjunction(o)) for o in outcomes]
    return [("", conjunction())]
