"""The term language: construction, sort errors, printing, JSON round trip."""
import json
from fractions import Fraction
from functools import lru_cache

import pytest
from hypothesis import given, settings, strategies as st

from obligations.terms import (BOOL, INT, REAL, TRUE, Apply, Const, FuncDecl, Op, OpKind,
                               Quantifier, Sort, SortError, Vocabulary, abs_, add, and_,
                               div, eq, exists, exp, forall, free_vars, ge, gt, implies, integer,
                               ite, le, log, lt, max_, min_, mul, ne, neg, not_, or_, pi, pretty,
                               real, sqrt, sub, substitute, term_from_json, term_to_json, to_real,
                               uninterpreted_sort, var, vocabulary_of)

LB = uninterpreted_sort("List[bool]")
LR = uninterpreted_sort("List[real]")
LENGTH = FuncDecl("length", (LB,), INT)
LENGTH_R = FuncDecl("length", (LR,), INT)
COUNT = FuncDecl("count", (LB,), INT)
ADJ = FuncDecl("adj", (LB, LB), BOOL)
VOCAB = Vocabulary([LENGTH, LENGTH_R, COUNT, ADJ])

eps = var("eps", REAL)
x1, x2 = var("x", REAL, 1), var("x", REAL, 2)
n = var("n", INT)
l1 = var("l", LB, 1)


# --------------------------------------------------------------------------- construction

def test_constants_are_exact_and_normalised():
    assert real(1) == Const(Fraction(1), REAL)
    assert real("0.46").value == Fraction(46, 100)
    assert real("1e-8").value == Fraction(1, 10 ** 8)
    assert integer(3).sort == INT
    with pytest.raises(SortError, match="inexact"):
        Const(0.5, REAL)
    with pytest.raises(SortError):
        lt(eps, 0.5)  # floats never enter a term
    with pytest.raises(SortError):
        Const(True, INT)
    with pytest.raises(SortError):
        Const(Fraction(1, 2), INT)


def test_terms_are_hashable_and_structural():
    a = add(eps, 1)
    b = add(var("eps", REAL), real(1))
    assert a == b and hash(a) == hash(b)
    assert {a: 1}[b] == 1
    assert var("x", REAL, 1) != var("x", REAL, 2) != var("x", REAL)
    with pytest.raises(AttributeError):
        a.args = ()  # frozen


def test_int_is_coerced_to_real_explicitly():
    t = add(n, eps)
    assert t.sort == REAL
    assert t.args[0] == Op(OpKind.TO_REAL, (n,))
    assert add(n, 1).sort == INT
    assert div(n, 2).sort == REAL  # / is real division
    assert to_real(eps) == eps
    assert (2 * eps).args[0] == real(2)  # Python ints become Real constants next to reals


def test_sort_errors_are_raised_where_the_term_is_built():
    b = var("b", BOOL)
    with pytest.raises(SortError):
        add(b, 1)
    with pytest.raises(SortError):
        and_(eps, b)
    with pytest.raises(SortError):
        eq(l1, eps)
    with pytest.raises(SortError):
        Op(OpKind.ADD, (n, eps))  # the node classes themselves are strict
    with pytest.raises(SortError):
        Op(OpKind.SQRT, (n,))
    with pytest.raises(SortError):
        LENGTH(eps)
    with pytest.raises(SortError):
        Apply(LENGTH, (l1, l1))
    with pytest.raises(SortError):
        forall(eps, eps)  # the body must be a Bool
    with pytest.raises(SortError):
        Quantifier("forall", (eps, eps), TRUE)
    with pytest.raises(SortError, match="bound at sort Int"):
        forall(var("eps", INT), and_(gt(var("eps", INT), 0), gt(eps, 0)))
    with pytest.raises(SortError):
        ite(eps, 1, 2)
    with pytest.raises(SortError):
        ite(b, eps, b)
    with pytest.raises(SortError):
        var("not a name", REAL)
    with pytest.raises(SortError):
        var("x", REAL, 3)
    with pytest.raises(SortError):
        FuncDecl("sqrt", (REAL,), REAL)  # interpreted names cannot be redeclared
    with pytest.raises(SortError):
        uninterpreted_sort("Real")
    with pytest.raises(SortError):
        Sort("bad|name")


def test_vocabulary_resolves_overloading():
    assert VOCAB.apply("length", l1).func == LENGTH
    assert VOCAB.apply("length", var("r", LR)).func == LENGTH_R
    assert VOCAB["count"] == COUNT
    with pytest.raises(SortError, match="overloaded"):
        VOCAB["length"]
    with pytest.raises(SortError):
        VOCAB.apply("length", eps)
    with pytest.raises(SortError):
        VOCAB.apply("hellinger", l1)
    with pytest.raises(SortError, match="conflicting"):
        Vocabulary([LENGTH, FuncDecl("length", (LB,), REAL)])
    assert VOCAB.sorts == (LB, LR)
    assert Vocabulary.from_json(json.loads(json.dumps(VOCAB.to_json()))) == VOCAB
    sum_ = FuncDecl("sum", (LR,), REAL)
    assert VOCAB.extend([sum_]).apply("sum", var("r", LR)).sort == REAL


def test_traversal_and_substitution():
    y = var("y", REAL)
    t = and_(gt(x1, 0), forall(y, ge(mul(y, y), x2)), le(LENGTH(l1), n))
    assert free_vars(t) == (x1, x2, l1, n)  # y is bound
    assert vocabulary_of(t).functions == (LENGTH,)
    s = substitute(t, {x1: real(3), n: integer(4)})
    assert free_vars(s) == (x2, l1)
    assert substitute(forall(y, gt(y, 0)), {y: real(1)}) == forall(y, gt(y, 0))  # bound: untouched
    with pytest.raises(SortError, match="captured"):
        substitute(forall(y, gt(y, x2)), {x2: y})


# --------------------------------------------------------------------------- printing

@pytest.mark.parametrize("term, text", [
    (eq(var("aPn", REAL, 1), real("-0.5")), "aPn<1> = -0.5"),
    (ge(LENGTH(l1), 1), "length l<1> >= 1"),
    (mul(sqrt(sub(1, div(pi(), 4))), eps), "sqrt (1.0 - pi / 4.0) * eps"),
    (mul(add(x1, x2), 2), "(x<1> + x<2>) * 2.0"),
    (sub(x1, sub(x2, 1)), "x<1> - (x<2> - 1.0)"),
    (sub(sub(x1, x2), 1), "x<1> - x<2> - 1.0"),
    (neg(add(x1, 1)), "-(x<1> + 1.0)"),
    (real(Fraction(1, 3)), "1.0 / 3.0"),
    (mul(real(Fraction(-1, 3)), eps), "-1.0 / 3.0 * eps"),
    (div(eps, real(Fraction(1, 3))), "eps / (1.0 / 3.0)"),
    (implies(gt(x1, 0), implies(gt(x2, 0), TRUE)), "x<1> > 0.0 => x<2> > 0.0 => true"),
    (implies(implies(gt(x1, 0), gt(x2, 0)), TRUE), "(x<1> > 0.0 => x<2> > 0.0) => true"),
    (and_(or_(gt(x1, 0), gt(x2, 0)), not_(lt(x1, x2))),
     "(x<1> > 0.0 \\/ x<2> > 0.0) /\\ ~ (x<1> < x<2>)"),
    (ADJ(l1, var("l", LB, 2)), "adj (l<1>, l<2>)"),
    (forall(var("y", REAL), ge(mul(var("y", REAL), var("y", REAL)), 0)),
     "forall y : real. y * y >= 0.0"),
    (exists(var("l", LB), eq(LENGTH(var("l", LB)), 0)), "exists l : List[bool]. length l = 0"),
    (le(abs_(sub(x1, x2)), max_(eps, min_(x1, 1))), "abs (x<1> - x<2>) <= max (eps, min (x<1>, 1.0))"),
    (ne(ite(gt(n, 0), n, 0), 2), "(if n > 0 then n else 0) <> 2"),
    (exp(neg(log(eps))), "exp (-log eps)"),
    (add(n, eps), "n + eps"),
    (real("1e-8"), "0.00000001"),
])
def test_pretty_prints_program_syntax(term, text):
    assert pretty(term) == text == str(term)


# --------------------------------------------------------------------------- JSON

def test_json_round_trip_examples():
    t = and_(gt(add(LENGTH(l1), n), 0), forall(var("r", LR), ge(LENGTH_R(var("r", LR)), 0)),
             eq(mul(sqrt(sub(1, div(pi(), 4))), eps), real(Fraction(-7, 3))))
    data = json.loads(json.dumps(term_to_json(t)))
    assert term_from_json(data, VOCAB) == t
    with pytest.raises(SortError):
        term_from_json({"t": "op", "op": "+", "args": [term_to_json(n), term_to_json(eps)]})
    with pytest.raises(SortError):
        term_from_json(term_to_json(LENGTH(l1)), Vocabulary())


@lru_cache(maxsize=None)
def _terms(sort_name: str, depth: int):
    sort = {"Real": REAL, "Int": INT, "Bool": BOOL, "List[bool]": LB}[sort_name]
    runs = st.sampled_from([None, 1, 2])
    names = st.sampled_from(["x", "eps", "aPn"])
    if sort == REAL:
        leaf = st.one_of(st.fractions(max_denominator=10 ** 6).map(real),
                         st.builds(var, names, st.just(REAL), runs), st.just(pi()))
    elif sort == INT:
        leaf = st.one_of(st.integers(-10 ** 30, 10 ** 30).map(integer),
                         st.builds(var, st.just("n"), st.just(INT), runs))
    elif sort == BOOL:
        leaf = st.one_of(st.booleans().map(lambda b: Const(b, BOOL)),
                         st.builds(var, st.just("b"), st.just(BOOL), runs))
    else:
        leaf = st.builds(var, st.just("l"), st.just(LB), runs)
    if depth == 0 or sort == LB:
        return leaf
    r, i, b = (_terms(s, depth - 1) for s in ("Real", "Int", "Bool"))
    lists = _terms("List[bool]", 0)
    if sort == REAL:
        return st.one_of(leaf, st.builds(add, r, r), st.builds(sub, r, r), st.builds(mul, r, r),
                         st.builds(div, r, r), st.builds(neg, r), st.builds(abs_, r),
                         st.builds(min_, r, r), st.builds(max_, r, r), st.builds(to_real, i),
                         st.builds(sqrt, r), st.builds(exp, r), st.builds(log, r),
                         st.builds(ite, b, r, r))
    if sort == INT:
        return st.one_of(leaf, st.builds(add, i, i), st.builds(mul, i, i), st.builds(neg, i),
                         st.builds(LENGTH, lists), st.builds(COUNT, lists))
    return st.one_of(leaf, st.builds(lt, r, r), st.builds(le, i, i), st.builds(eq, r, i),
                     st.builds(ne, b, b), st.builds(and_, b, b, b), st.builds(or_, b, b),
                     st.builds(not_, b), st.builds(implies, b, b), st.builds(ADJ, lists, lists),
                     st.builds(lambda body: forall(var("x", REAL), body), b),
                     st.builds(lambda body: exists(var("l", LB), body), b))


@settings(max_examples=200, deadline=None)
@given(st.one_of(_terms("Bool", 3), _terms("Real", 3)))
def test_json_round_trip_is_exact(t):
    data = json.loads(json.dumps(term_to_json(t)))
    back = term_from_json(data, VOCAB)
    assert back == t and back.sort == t.sort
    assert pretty(back) == pretty(t)


def test_ground_applications_skip_quantifiers_and_repeats():
    from obligations.terms import forall, ground_applications, gt, var
    f = FuncDecl("f", (REAL,), REAL)
    x, y = var("x", REAL), var("y", REAL)
    inside = forall([y], gt(f(y), 0))
    t1, t2 = gt(f(x), f(f(x))), gt(f(x), 1)
    assert ground_applications(t1, inside, t2) == (f(x), f(f(x)))
