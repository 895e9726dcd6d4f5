"""The internal simple types: printing, erasure, unification, the numeric order, schemes,
and the table of built-ins."""
import re
from pathlib import Path

import pytest

from verifier.language import ast as A
from verifier.language.builtins import ASSERTION, BUILTINS, CONSTANT, FUNCTION, OVERLOADED
from verifier.language.types import (
    BOOL, INT, REAL, UNIT, Arrow, Dist, Fin, ListType, Monad, Namer, OccursCheck, Scheme, Simplex,
    TupleType, TypeClash, TypeVar, erase_rtype, fin, flows, free_vars, from_syntax,
    generalize, instantiate, join, pretty, prune, resolve, simplex, unify,
)

LANGUAGE = Path(__file__).resolve().parents[1] / "docs" / "language.md"


# ---- printing ------------------------------------------------------------------------------


@pytest.mark.parametrize("t, text", [
    (UNIT, "unit"),
    (fin(3), "[3]"),
    (simplex(3), "[0,1]^3"),
    (ListType(BOOL), "bool list"),
    (ListType(ListType(INT)), "int list list"),
    (ListType(TupleType((INT, REAL))), "(int * real) list"),
    (ListType(Arrow(INT, REAL)), "(int -> real) list"),
    (Arrow(ListType(BOOL), Arrow(Monad(REAL), Monad(REAL))), "bool list -> M[real] -> M[real]"),
    (Arrow(Arrow(INT, REAL), BOOL), "(int -> real) -> bool"),
    (Arrow(TupleType((REAL, REAL)), Dist(REAL)), "real * real -> D[real]"),
    (TupleType((TupleType((INT, INT)), REAL)), "(int * int) * real"),
    (TupleType((Arrow(INT, INT), REAL)), "(int -> int) * real"),
    (Monad(Dist(simplex(3))), "M[D[[0,1]^3]]"),
    (Dist(Fin(TypeVar(0, is_size=True))), "D[['a]]"),
])
def test_pretty(t, text):
    assert pretty(t) == text


def test_variables_are_named_in_order_of_appearance():
    a, b = TypeVar(1), TypeVar(1)
    assert pretty(Arrow(TupleType((b, b)), a)) == "'a * 'a -> 'b"
    assert str(Arrow(TupleType((a, b)), a)) == "'a * 'b -> 'a"


def test_a_shared_namer_names_a_variable_once():
    a, b = TypeVar(1), TypeVar(1)
    namer = Namer()
    assert pretty(ListType(b), namer) == "'a list"
    assert pretty(Arrow(a, b), namer) == "'b -> 'a"


def test_bound_variables_print_as_their_binding():
    a = TypeVar(1)
    unify(a, ListType(REAL))
    assert pretty(Arrow(a, a)) == "real list -> real list"


# ---- from the surface syntax -----------------------------------------------------------------


@pytest.mark.parametrize("name, erased", [
    ("unit", UNIT), ("bool", BOOL), ("nat", INT), ("int", INT), ("real", REAL),
    ("real+", REAL), ("real+inf", REAL), ("[0,1]", REAL),
])
def test_from_syntax_erases_ranges(name, erased):
    assert from_syntax(A.TBase(name)) == erased


def test_from_syntax_keeps_finite_types_and_the_simplex():
    written = A.TArrow(A.TList(A.TFin(3)), A.TMonad(A.TTuple((A.TSimplex(4), A.TDist(A.TBase("[0,1]"))))))
    assert from_syntax(written) == Arrow(ListType(fin(3)), Monad(TupleType((simplex(4), Dist(REAL)))))


def test_erase_rtype_drops_refinements_and_indices():
    # {l :: bool list | adj (l<1>, l<2>)} -> {eps :: real+ | =} -> M[DP(eps)] {d :: D[[0,1]] | =}
    adj = A.App(A.Var("adj"), A.TupleLit((A.RunVar("l", 1), A.RunVar("l", 2))))
    rt = A.RArrow(
        A.RRefine("l", A.RSimple(A.TList(A.TBase("bool"))), adj),
        A.RArrow(A.RRefine("eps", A.RSimple(A.TBase("real+")), A.SameRuns()),
                 A.RMonad(A.Divergence("DP", A.Var("eps")), None,
                          A.RRefine("d", A.RSimple(A.TDist(A.TBase("[0,1]"))), A.SameRuns()))))
    assert erase_rtype(rt) == Arrow(ListType(BOOL), Arrow(REAL, Monad(Dist(REAL))))


# ---- unification -------------------------------------------------------------------------------


def test_unify_binds_variables_on_both_sides():
    a, b = TypeVar(1), TypeVar(1)
    unify(Arrow(a, REAL), Arrow(ListType(BOOL), b))
    assert resolve(Arrow(a, b)) == Arrow(ListType(BOOL), REAL)


def test_unify_is_exact():
    with pytest.raises(TypeClash):
        unify(INT, REAL)
    with pytest.raises(TypeClash):
        unify(TupleType((INT, INT)), TupleType((INT, INT, INT)))
    with pytest.raises(TypeClash):
        unify(fin(2), fin(3))


def test_occurs_check():
    a = TypeVar(1)
    with pytest.raises(OccursCheck) as exc:
        unify(a, ListType(a))
    assert exc.value.var is a


def test_size_variables_unify_with_sizes():
    k = TypeVar(1, is_size=True)
    unify(Fin(k), fin(3))
    assert Fin(k).k == 3 and Simplex(k).k == 3
    assert Fin(TypeVar(1, is_size=True)).k is None


def test_prune_compresses_paths():
    a, b, c = TypeVar(1), TypeVar(1), TypeVar(1)
    unify(a, b)
    unify(b, c)
    unify(c, INT)
    assert prune(a) == INT and a.link == INT


# ---- the numeric order -------------------------------------------------------------------------


@pytest.mark.parametrize("small, big", [
    (INT, REAL), (fin(3), INT), (fin(3), REAL), (fin(3), fin(3)),
    (ListType(INT), ListType(REAL)), (Monad(fin(2)), Monad(REAL)), (Dist(INT), Dist(REAL)),
    (TupleType((INT, BOOL)), TupleType((REAL, BOOL))),
    (Arrow(REAL, INT), Arrow(INT, REAL)),  # contravariant argument, covariant result
])
def test_flows_along_the_order(small, big):
    flows(small, big)


@pytest.mark.parametrize("big, small", [
    (REAL, INT), (REAL, fin(3)), (ListType(REAL), ListType(INT)),
    (Arrow(INT, REAL), Arrow(REAL, INT)), (BOOL, INT), (simplex(3), REAL),
])
def test_flows_refuses_against_the_order(big, small):
    with pytest.raises(TypeClash):
        flows(big, small)


def test_an_int_flows_into_a_finite_type():
    """[k] is a range of int (LANGUAGE.md): 0 <= v < k is a range condition, not a type error;
    so is a [j] where a [k] is expected (none when j <= k)."""
    flows(INT, fin(3))
    flows(fin(2), fin(3))
    flows(fin(4), fin(3))
    flows(ListType(fin(4)), ListType(fin(3)))


def test_flows_binds_a_variable_to_the_type_it_meets():
    a = TypeVar(1)
    flows(INT, a)
    assert prune(a) == INT
    flows(a, REAL)  # int <= real, and a stays int
    assert prune(a) == INT


@pytest.mark.parametrize("a, b, joined", [
    (INT, REAL, REAL), (REAL, INT, REAL), (fin(3), INT, INT), (fin(3), fin(3), fin(3)),
    (fin(2), fin(3), INT), (ListType(INT), ListType(REAL), ListType(REAL)),
    (TupleType((INT, REAL)), TupleType((REAL, INT)), TupleType((REAL, REAL))),
    (Arrow(BOOL, INT), Arrow(BOOL, REAL), Arrow(BOOL, REAL)),
    (Monad(INT), Monad(REAL), Monad(REAL)),
])
def test_join(a, b, joined):
    assert resolve(join(a, b)) == joined


def test_join_binds_a_variable():
    a = TypeVar(1)
    assert resolve(join(ListType(a), ListType(BOOL))) == ListType(BOOL)
    assert prune(a) == BOOL


@pytest.mark.parametrize("a, b", [
    (BOOL, REAL), (Arrow(INT, INT), Arrow(REAL, INT)), (Monad(REAL), Dist(REAL)),
    (TupleType((INT, INT)), TupleType((INT, INT, INT))),
])
def test_join_fails_without_a_common_supertype(a, b):
    with pytest.raises(TypeClash):
        join(a, b)


# ---- schemes ---------------------------------------------------------------------------------


def test_generalize_quantifies_only_deeper_variables():
    outer, inner = TypeVar(0), TypeVar(1)
    scheme = generalize(Arrow(outer, inner), 0)
    assert scheme.vars == (inner,)
    copy = instantiate(scheme, 0)
    assert isinstance(copy, Arrow) and copy.dom is outer
    assert isinstance(copy.cod, TypeVar) and copy.cod is not inner


def test_instantiate_gives_fresh_variables_each_time():
    a = TypeVar(1)
    scheme = Scheme((a,), Arrow(a, a))
    first, second = instantiate(scheme, 1), instantiate(scheme, 1)
    unify(first.dom, INT)
    assert resolve(first) == Arrow(INT, INT)
    assert isinstance(prune(second.dom), TypeVar) and prune(a) is a


def test_binding_lowers_the_levels_of_captured_variables():
    shallow, deep = TypeVar(0), TypeVar(2)
    unify(shallow, ListType(deep))
    assert deep.level == 0
    assert generalize(shallow, 1).vars == ()


def test_free_vars_in_order():
    a, b = TypeVar(1), TypeVar(1)
    assert free_vars(Arrow(TupleType((b, INT)), ListType(a))) == [b, a]


def test_deep_types_need_no_deep_python_recursion_to_collect_variables():
    t = a = TypeVar(1)
    for _ in range(50_000):
        t = ListType(t)
    assert free_vars(t) == [a]


# ---- the table of built-ins -----------------------------------------------------------------


def test_every_documented_builtin_is_in_the_table():
    """docs/language.md's tables of built-ins and the catalogue agree, both ways."""
    text = LANGUAGE.read_text()
    tables = text.split("## Built-ins")[1].split("## Claims")[0]
    first_cells = [line.split("|")[1] for line in tables.splitlines() if line.startswith("| `")]
    documented = {name for cell in first_cells for name in re.findall(r"`(\w+)", cell)}
    assert {"expMech", "pi", "snd", "adjWithin", "count"} <= documented
    assert documented <= set(BUILTINS), documented - set(BUILTINS)
    assert set(BUILTINS) <= documented, set(BUILTINS) - documented


@pytest.mark.parametrize("name, scheme", [
    ("beta", "real * real -> D[real]"),
    ("bernoulli", "real -> D[bool]"),
    ("uniform", "unit -> D[real]"),
    ("categorical", "[0,1]^'a -> D[['a]]"),
    ("lapMech", "real * real -> M[real]"),
    ("hellinger", "D['a] * D['a] -> real"),
    ("fst", "'a * 'b -> 'a"),
    ("length", "'a list -> int"),
    ("adj", "'a list * 'a list -> bool"),
    ("adjWithin", "real list * real list * real -> bool"),
    ("dist", "'a list * 'a list -> int"),
    ("pi", "real"),
])
def test_builtin_schemes(name, scheme):
    assert str(BUILTINS[name].scheme) == scheme


def test_builtin_kinds_and_arities():
    overloaded = {"expMech", "dirichlet", "getParams", "min", "max", "abs", "hellingerMech",
                  "hellingerMechPure", "posteriors"}
    assert {n for n, b in BUILTINS.items() if b.kind == OVERLOADED} == overloaded
    assert all(BUILTINS[n].scheme is None for n in overloaded)
    assert {n for n, b in BUILTINS.items() if b.kind == ASSERTION} == {"adj", "adjWithin", "allWithin", "dist"}
    assert BUILTINS["pi"].kind == CONSTANT and BUILTINS["beta"].kind == FUNCTION
    assert BUILTINS["expMech"].accepts(3) and BUILTINS["expMech"].accepts(4)
    assert not BUILTINS["expMech"].accepts(2)
    assert BUILTINS["dirichlet"].accepts(7) and not BUILTINS["dirichlet"].accepts(1)
    assert BUILTINS["expMech"].arity_text == "3 or 4 arguments"
    assert BUILTINS["dirichlet"].arity_text == "at least 2 arguments"
    assert BUILTINS["uniform"].arity_text == "no argument"
    assert BUILTINS["bernoulli"].arity_text == "1 argument"
    assert BUILTINS["beta"].ranges == ("real+", "real+")
    assert all(b.meaning and b.signature for b in BUILTINS.values())


def test_builtin_schemes_are_not_changed_by_use():
    scheme = BUILTINS["fst"].scheme
    use = instantiate(scheme, 1)
    unify(use, Arrow(TupleType((INT, BOOL)), INT))
    assert str(BUILTINS["fst"].scheme) == "'a * 'b -> 'a"
