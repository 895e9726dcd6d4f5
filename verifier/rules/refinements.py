"""What the relational types of vals say, read by the builder, the call facts and the rules.

A refinement ``{x :: T | A}`` taken apart (``refinement_parts``) and its simple type
(``simple_of``); whether it says its value is equal in both runs (``_shared``); what running a
computation of monadic type ``M[F, delta] {x :: T | =}`` costs (``_instantiated_cost``: nothing
when the type says the two distributions are equal, ``monad_is_equality``); and a fresh value
of a simple type with the facts its type gives (``fresh_value``).

This module imports no rule and not the builder (``b`` is the builder: its ``index_term``,
``fresh``, ``fresh_name``): it stands below both, with ``verifier.rules.call_facts``, which the
builder uses and which reads vals with it.
"""
from __future__ import annotations

from typing import List, Optional, Sequence, Tuple

from obligations import terms as T
from verifier.language import ast as A
from verifier.rules.context import Cost, zero_cost
from verifier.translation import logic as L
from verifier.translation.symbolic import Env, Monadic, Scalar, SymValue, TupleV, UnitV
from verifier.translation.translate import NoRule


def refinement_parts(rt: A.RType) -> Tuple[Optional[str], A.RType, List[A.Expr]]:
    """``{x :: {y :: T | B} | A}`` as (x, T, [A, B]) (inner variables renamed to x)."""
    var, assertions = None, []
    while isinstance(rt, A.RRefine):
        if var is None:
            var = rt.var
        elif rt.var != var:
            raise NoRule("nested refinements must use one variable name", rt.span)
        assertions.append(rt.assertion)
        rt = rt.base
    return var, rt, assertions


def simple_of(rt: A.RType) -> A.SimpleType:
    """The simple type under refinements."""
    while isinstance(rt, A.RRefine):
        rt = rt.base
    if isinstance(rt, A.RSimple):
        return rt.type
    if isinstance(rt, A.RMonad):
        return A.TMonad(simple_of(rt.body))
    if isinstance(rt, A.RArrow):
        return A.TArrow(simple_of(rt.dom), simple_of(rt.cod))
    raise NoRule("unsupported relational type", rt.span)


EQUAL_FAMILIES = ("SD", "HD", "KL")


def _shared(var: str, assertions: Sequence[A.Expr]) -> bool:
    """Whether an assertion says the refined value is equal in both runs (``=`` or
    ``x<1> = x<2>`` as a top-level conjunct)."""
    def conjuncts(a):
        if isinstance(a, A.Conj):
            return conjuncts(a.left) + conjuncts(a.right)
        return [a]
    for a in assertions:
        for c in conjuncts(a):
            if isinstance(c, A.SameRuns):
                return True
            if isinstance(c, A.BinOp) and c.op == "=" and \
                    {(x.name, x.run) for x in (c.left, c.right) if isinstance(x, A.RunVar)} \
                    == {(var, 1), (var, 2)}:
                return True
    return False


def monad_is_equality(b, env: Env, rt: A.RMonad) -> bool:
    """Whether ``M[F, delta] {x :: T | =}`` says the two distributions are equal: delta 0
    and a divergence for which 0 means equality (SD, HD, KL, or DP(0))."""
    if rt.delta is not None and b.index_term(env, rt.delta) != T.real(0):
        return False
    var, _, assertions = refinement_parts(rt.body)
    if var is None or not _shared(var, assertions):
        return False
    if rt.div.kind in EQUAL_FAMILIES:
        return True
    return rt.div.kind == "DP" and b.index_term(env, rt.div.eps) == T.real(0)


def _instantiated_cost(b, env: Env, rt: A.RMonad, what: str, span,
                       related: bool = False) -> Cost:
    """What running a computation of type ``rt`` costs: nothing when it says the
    distributions are equal, else its index. ``related``: a DP index with any refinement (the
    result of App-Val, whose outputs are then coupled by the refinement); otherwise the
    refinement must be ``=`` (a computation parameter, run as a value of its type)."""
    if monad_is_equality(b, env, rt):
        return zero_cost(what, span)
    var, _, assertions = refinement_parts(rt.body)
    if var is None or not (any(isinstance(a, A.SameRuns) for a in assertions)
                           or (related and rt.div.kind == "DP")):
        raise NoRule("the verifier supports results of the form M[F, delta] {x :: T | =} "
                     "(and M[DP(eps), delta] {x :: T | A})", rt.span)
    delta = b.index_term(env, rt.delta) if rt.delta is not None else T.real(0)
    if rt.div.kind == "DP":
        return Cost("DP", b.index_term(env, rt.div.eps), delta, what, span)
    return Cost(rt.div.kind, T.real(0), delta, what, span)


def fresh_value(b, t: Optional[A.SimpleType], name: str) -> Tuple[SymValue, List[T.Term]]:
    """A fresh value of simple type ``t`` and the facts its type gives."""
    if isinstance(t, A.TTuple):
        items, facts = [], []
        for i, item in enumerate(t.items, 1):
            v, f = fresh_value(b, item, f"{name}{i}")
            items.append(v)
            facts += f
        return TupleV(tuple(items)), facts
    if isinstance(t, A.TSimplex):
        parts = [b.fresh(f"{name}{i}", T.REAL) for i in range(1, t.k + 1)]
        facts = [T.ge(p, 0) for p in parts] + [T.eq(T.add(*parts), 1)]
        return TupleV(tuple(Scalar(p) for p in parts)), facts
    if isinstance(t, A.TBase) and t.name == "unit":
        return UnitV(), []
    sort = L.sort_of_type(t) if t is not None else None
    if sort is None:
        return Monadic(None, None, name=b.fresh_name(name)), []
    v = b.fresh(name, sort)
    return Scalar(v), list(L.range_facts(t, v))
