"""The axiom schemas added for issue 16 are true of the built-ins as the evaluator runs them.

Two links are tested: ``obligations.builtins`` (the meaning counterexamples are confirmed in)
computes ``length``, ``count``, ``sum``, ``adj``, ``adjWithin`` and ``dist`` exactly as the
evaluator (``verifier.semantics``) does; and every instance of the new schemas evaluates to
true at random concrete values in that meaning (lists built with ``::`` from variables, so
that the unfolding schemas meet their real shapes), including empty lists, equal lists and
zero bounds. The general Beta / Dirichlet bounds are checked against the certified closed forms
of the Hellinger and total variation distances.
"""
from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from obligations import terms as T
from obligations import vocabulary as V
from obligations.builtins import BuiltinInterpretation
from obligations.evaluate import Evaluator
from obligations.schemas import (ADJ_CONS, ADJW_CONS, BETA_G, BETA_TV_G, DIR_G, DIST_ADJ,
                                 DIST_CONS, DIST_LEN, SchemaError)
from verifier.semantics.evaluator import evaluate_expr
from verifier.language.parser import parse_expr
from verifier.semantics.values import ConsList

BOOLS = st.lists(st.booleans(), max_size=5)
REALS = st.lists(st.fractions(min_value=-3, max_value=3, max_denominator=4), max_size=5)
CATS = st.lists(st.integers(min_value=0, max_value=2), max_size=5)
BOUNDS = st.fractions(min_value=0, max_value=3, max_denominator=4)


def nearby(elements):
    """Two lists of one length that differ in at most two positions (often adjacent)."""
    @st.composite
    def pair(draw):
        l1 = draw(st.lists(elements, max_size=5))
        l2 = list(l1)
        for _ in range(draw(st.integers(0, 2))):
            if l2:
                l2[draw(st.integers(0, len(l2) - 1))] = draw(elements)
        return l1, l2
    return pair()


def truth(term, env):
    return Evaluator(BuiltinInterpretation()).value(term, env)


# ---- the interpretation is the evaluator's --------------------------------------------------------

def run(text, **lists):
    bindings = {k: ConsList.from_sequence(v) if isinstance(v, list) else v
                for k, v in lists.items()}
    return evaluate_expr(parse_expr(text), bindings)


@settings(max_examples=60, deadline=None)
@given(pair=nearby(st.fractions(min_value=-3, max_value=3, max_denominator=4)), c=BOUNDS)
def test_the_list_relations_are_the_evaluators(pair, c):
    l1, l2 = pair
    b = BuiltinInterpretation()
    t1, t2 = tuple(l1), tuple(l2)
    assert b._adj(t1, t2) == run("adj (l1, l2)", l1=l1, l2=l2)
    assert b._adjWithin(t1, t2, c) == run("adjWithin (l1, l2, c)", l1=l1, l2=l2, c=c)
    assert b._dist(t1, t2) == run("dist (l1, l2)", l1=l1, l2=l2)
    assert b._sum(t1) == run("sum l1", l1=l1)
    assert b._length(t1) == run("length l1", l1=l1)


@settings(max_examples=40, deadline=None)
@given(l=BOOLS)
def test_count_is_the_evaluators(l):
    assert BuiltinInterpretation()._count(tuple(l)) == run("count l", l=l)


def test_lists_of_different_lengths():
    b = BuiltinInterpretation()
    assert b._adj((True,), ()) is False and b._adjWithin((1,), (), 5) is False
    assert b._dist((True,), ()) is None   # the evaluator stops there: no value


# ---- the new schemas are true ---------------------------------------------------------------------

def spine(key, prefix_len, name):
    """``x0 :: x1 :: ... :: l`` of variables, for list key ``key``."""
    sort = V.list_sort(key)
    heads = [T.var(f"{name}{i}", V.elem_sort(key)) for i in range(prefix_len)]
    tail = T.var(f"{name}tail", sort)
    term = tail
    for h in reversed(heads):
        term = V.cons(h, term)
    return term, heads, tail


def bind(values, heads, tail):
    k = len(heads)
    env = {h: v for h, v in zip(heads, values[:k])}
    env[tail] = tuple(values[k:])
    return env


def instance_holds(schema, *args, env):
    try:
        term = schema.instance(*args)
    except SchemaError:
        return True   # the schema does not apply to these arguments
    return truth(term, env)


@pytest.mark.parametrize("key, elements", [
    ("bool", st.booleans()), ("real", st.fractions(-3, 3, max_denominator=4)),
    ("fin3", st.integers(0, 2))])
@settings(max_examples=50, deadline=None)
@given(data=st.data())
def test_dist_and_adjacency_schemas_hold(key, elements, data):
    l1, l2 = data.draw(nearby(elements))
    k = data.draw(st.integers(0, len(l1)))
    t1, h1, r1 = spine(key, k, "a")
    t2, h2, r2 = spine(key, k, "b")
    env = {**bind(l1, h1, r1), **bind(l2, h2, r2)}
    for schema in (DIST_LEN, DIST_CONS, ADJ_CONS):
        assert instance_holds(schema, t1, t2, env=env) is True, schema.name
    assert instance_holds(DIST_ADJ, V.adj(t1, t2), env=env) is True
    if key == "real":
        c = T.var("c", T.REAL)
        env[c] = data.draw(BOUNDS)
        assert instance_holds(DIST_ADJ, V.adj_within(t1, t2, c), env=env) is True
        assert instance_holds(ADJW_CONS, t1, t2, c, env=env) is True


@settings(max_examples=30, deadline=None)
@given(l1=REALS, l2=REALS)
def test_the_unfoldings_hold_on_lists_of_any_two_lengths(l1, l2):
    k = min(len(l1), len(l2))
    t1, h1, r1 = spine("real", k, "a")
    t2, h2, r2 = spine("real", k, "b")
    env = {**bind(l1, h1, r1), **bind(l2, h2, r2), T.var("c", T.REAL): Fraction(1)}
    for schema in (ADJ_CONS, DIST_CONS, DIST_LEN):
        assert instance_holds(schema, t1, t2, env=env) is not False, schema.name
    assert instance_holds(ADJW_CONS, t1, t2, T.var("c", T.REAL), env=env) is not False


def test_the_unfolding_covers_a_whole_literal():
    x, y = T.var("x", T.BOOL), T.var("y", T.BOOL)
    nil = V.nil(V.list_sort("bool"))
    left, right = V.cons(x, V.cons(y, nil)), V.cons(y, V.cons(x, nil))
    term = ADJ_CONS.instance(left, right)
    assert "adj (nil_bool, nil_bool)" in T.pretty(term)   # down to the end of both lists
    assert truth(term, {x: True, y: False}) is True


# ---- the general bounds of Lemmas 6.1-6.3 --------------------------------------------------------

POSITIVE = st.fractions(min_value=Fraction(1, 10), max_value=4, max_denominator=10)


@settings(max_examples=15, deadline=None)
@given(a0=POSITIVE, b0=POSITIVE, da=POSITIVE, db=POSITIVE, n=st.integers(0, 6), data=st.data())
def test_the_beta_bounds_hold_for_adjacent_posteriors(a0, b0, da, db, n, data):
    a, b = a0 + da, b0 + db            # a prior at least (a0, b0)
    c1 = data.draw(st.integers(0, n))
    c2 = data.draw(st.sampled_from([c for c in (c1 - 1, c1, c1 + 1) if 0 <= c <= n]))
    p = V.dist_ctor("beta", (T.real(a + c1), T.real(b + n - c1)))
    q = V.dist_ctor("beta", (T.real(a + c2), T.real(b + n - c2)))
    for schema, metric in ((BETA_G, V.hellinger), (BETA_TV_G, V.tv)):
        term = schema.instance(metric(p, q), T.real(a0), T.real(b0))
        premise, bound = term.args
        assert truth(premise, {}) is True          # the posteriors are adjacent
        assert truth(term, {}) is True, (schema.name, a, b, n, c1, c2)


@settings(max_examples=8, deadline=None)
@given(a0=POSITIVE, extra=st.lists(POSITIVE, min_size=3, max_size=3), i=st.integers(0, 2),
       j=st.integers(0, 2))
def test_the_dirichlet_bound_holds_for_one_observation_moved(a0, extra, i, j):
    base = [a0 + e for e in extra]
    p = [x + (1 if m == i else 0) for m, x in enumerate(base)]
    q = [x + (1 if m == j else 0) for m, x in enumerate(base)]
    u = V.hellinger(V.dist_ctor("dirichlet", tuple(map(T.real, p))),
                    V.dist_ctor("dirichlet", tuple(map(T.real, q))))
    assert truth(DIR_G.instance(u, T.real(a0)), {}) is True


def test_the_bound_is_tight_at_the_corner():
    # Beta (3, 2) and Beta (2, 3): adjacent posteriors of a prior (2, 2), at distance
    # sqrt (1 - g(2)^2) = 0.34121...; the bound is that, rounded up in the 20th decimal
    p = V.dist_ctor("beta", (T.real(3), T.real(2)))
    q = V.dist_ctor("beta", (T.real(2), T.real(3)))
    bound = BETA_G.instance(V.hellinger(p, q), T.real(2), T.real(2)).args[1].args[1]
    assert Fraction("0.341214106") < bound.value < Fraction("0.341214107")
    with pytest.raises(SchemaError):
        BETA_G.instance(V.hellinger(p, q), T.real(0), T.real(2))   # a0 must be positive
