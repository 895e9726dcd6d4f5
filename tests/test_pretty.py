"""The pretty-printer: parse(pretty(ast)) == ast, minimal parentheses, layout, deep trees."""
import string
from fractions import Fraction
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from verifier.errors import PrivInferError
from verifier.language.ast import (
    App, BinOp, BINARY_OPS, BoolLit, Cons, Conj, Disj, DivBound, Divergence, Fun, If, Implies,
    Infer, IntLit, Let, LetDecl, LetRec, ListLit, Match, MLet, Neg, Observe, Program, PTuple,
    PUnit, PVar, PWild, Quant, Ran, RArrow, RealLit, Return, RMonad, RRefine, RSimple, RunVar,
    SameRuns, TArrow, TBase, TDist, TFin, TList, TMonad, TSimplex, TTuple, TupleLit, UnitLit,
    UnOp, ValDecl, Var, BASE_TYPES,
)
from verifier.language.parser import (
    MAX_DEPTH, parse_assertion, parse_expr, parse_file, parse_program, parse_rtype,
    parse_simple_type, recursion_headroom,
)
from verifier.language.pretty import (
    pretty_assertion, pretty_expr, pretty_pattern, pretty_program, pretty_rtype, pretty_type,
)

EXAMPLES = sorted(Path(__file__).resolve().parents[1].glob("benchmarks/programs/*/*.pinf"))

x, y, z, f = Var("x"), Var("y"), Var("z"), Var("f")
REAL = TBase("real")


# ----------------------------------------------------------------------------- examples


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_examples_round_trip(path):
    program = parse_file(path)
    text = pretty_program(program)
    again = parse_program(text)
    assert again == program
    assert pretty_program(again) == text
    for val in program.vals():
        assert parse_rtype(pretty_rtype(val.rtype)) == val.rtype


def test_program_layout():
    text = ("val f :: {l :: bool list | =} -> M[SD] {x :: [0,1] | =}\n"
            "let rec f db prior = match db with [] -> prior | d :: ds -> let y = d in\n"
            " mlet z = ran (g y) in return z\nlet c = 3")
    assert pretty_program(parse_program(text)) == (
        "val f :: {l :: bool list | =} -> M[SD] {x :: [0,1] | =}\n"
        "let rec f db prior =\n"
        "  match db with\n"
        "  | [] -> prior\n"
        "  | d :: ds ->\n"
        "      let y = d in\n"
        "      mlet z = ran (g y) in\n"
        "      return z\n"
        "\n"
        "let c = 3\n")


def test_long_val_breaks_before_arrows():
    doms = " -> ".join(f"{{a{i} :: real+ | =}}" for i in range(6))
    text = pretty_program(parse_program(f"val main :: {doms} -> M[DP(a0)] {{d :: real | =}}"))
    lines = text.splitlines()
    assert lines[0] == "val main :: {a0 :: real+ | =}"
    assert lines[1] == "         -> {a1 :: real+ | =}"
    assert lines[-1] == "         -> M[DP(a0)] {d :: real | =}"


def test_empty_program_prints_nothing():
    assert pretty_program(Program(())) == ""


# ----------------------------------------------------------------------------- parentheses


@pytest.mark.parametrize("text", [
    "(1 + 2) * 3",
    "1 - (2 - 3)",
    "1 - 2 - 3",
    "f (g x) y",
    "(if x then y else z) + 1",
    "1 + if x then y else z",
    "x :: y :: z",
    "(x :: y) :: z",
    "x && y && z",
    "(x && y) && z",
    "-x * y",
    "-(x * y)",
    "return (f x)",
    "return (-x)",
    "not (x = y)",
    "(fun x -> x) y",
    "f (fun x -> x)",
    "let f x = x in f",
    "match x with | [] -> 1 | h :: t -> 2",
    "observe (fun r -> return true) (g x)",
    "observe r => return true in g x",
    "observe (r : real) => return true in g x",
    "(observe f x) y",
    "f (observe f x)",
    "[1; 2.5; 1e-8; 2.]",
    "((), (x, y))",
])
def test_printing_is_minimal_and_stable(text):
    expr = parse_expr(text)
    printed = pretty_expr(expr)
    assert parse_expr(printed) == expr
    expected = text.replace("(observe f x) y", "observe f x y")
    assert printed == expected


@pytest.mark.parametrize("text", [
    "a /\\ b \\/ c => d",
    "(a => b) => c",
    "~(a /\\ b)",
    "~a || b",
    "(a /\\ b) = c",
    "forall x : [0,1]^3. x = x /\\ y",
    "a /\\ (forall x : real. x) /\\ b",
    "Delta[HD] (x<1>, x<2>) <= 1 /\\ a",
    "(Delta[DP(e)] (x, y) <= 1) = true",
    "x◁ = x▷",
])
def test_assertions_round_trip(text):
    assertion = parse_assertion(text)
    assert parse_assertion(pretty_assertion(assertion)) == assertion


def test_same_runs_prints_as_equals():
    assert pretty_assertion(SameRuns()) == "="
    assert pretty_rtype(RRefine("x", RSimple(REAL), SameRuns())) == "{x :: real | =}"


def test_types_print():
    assert pretty_type(TList(TArrow(REAL, REAL))) == "(real -> real) list"
    assert pretty_type(TArrow(TTuple((REAL, TSimplex(3))), TMonad(TDist(TFin(4))))) == \
        "real * [0,1]^3 -> M[D[[4]]]"
    assert pretty_type(TTuple((TTuple((REAL, REAL)), REAL))) == "(real * real) * real"
    assert pretty_rtype(RMonad(Divergence("DP", Var("eps")), Var("d"), RArrow(
        RSimple(REAL), RSimple(REAL)))) == "M[DP(eps), d] (real -> real)"


def test_patterns_print():
    assert pretty_pattern(PVar("x", REAL)) == "(x : real)"
    assert pretty_pattern(PTuple((PVar("x", REAL), PWild(), PUnit()))) == "(x : real, _, ())"


def test_real_literals_without_text_print_as_decimals():
    for value, text in [(Fraction(1, 8), "0.125"), (Fraction(3), "3.0"),
                        (Fraction(1, 10 ** 30), "1e-30"), (Fraction(-5, 2), "-2.5")]:
        assert pretty_expr(RealLit(value)) == text
    assert parse_expr(pretty_expr(RealLit(Fraction(1, 8), "0.1250"))) == RealLit(Fraction(1, 8))
    assert pretty_expr(RealLit(Fraction(1, 8), "garbage")) == "0.125"


def test_negative_literals_are_parenthesised_where_needed():
    assert pretty_expr(App(f, IntLit(-3))) == "f (-3)"
    assert pretty_expr(BinOp("-", x, IntLit(-3))) == "x - -3"


# ----------------------------------------------------------------------------- big trees


def test_long_list_round_trips():
    expr = ListLit(tuple(IntLit(i) for i in range(20_000)))
    assert parse_expr(pretty_expr(expr)) == expr


def test_deep_left_chain_prints_iteratively():
    expr = x
    for i in range(5000):
        expr = BinOp("+" if i % 2 else "-", expr, IntLit(i))
    text = pretty_expr(expr)
    assert text.startswith("x - 0 + 1 - 2")
    again = parse_expr(text)
    for _ in range(5000):  # compare iteratively: == on 5000 nested nodes would recurse in C
        assert isinstance(again, BinOp) and (again.op, again.right) == (expr.op, expr.right)
        again, expr = again.left, expr.left
    assert again == x


def test_long_right_chains_and_applications_print():
    cons = ListLit(())
    call = f
    for i in range(5000):
        cons = Cons(IntLit(i), cons)
        call = App(call, IntLit(i))
    assert pretty_expr(cons).endswith("1 :: 0 :: []")
    assert pretty_expr(call).startswith("f 0 1 2")


def test_deep_nesting_at_the_parser_limit_round_trips():
    depth = MAX_DEPTH - 10
    text = "[" * depth + "x" + "]" * depth
    expr = parse_expr(text)
    assert pretty_expr(expr) == text
    program = parse_program("let v =" + " -(1 +" * (depth // 2) + " 1" + ")" * (depth // 2))
    again = parse_program(pretty_program(program))
    with recursion_headroom(20 * depth):  # == on deep trees recurses through C comparisons
        assert again == program


# ----------------------------------------------------------------------------- random trees

NAMES = st.sampled_from(["x", "y", "f", "acc", "xs", "eps", "l'", "a_1", "SD", "M", "list", "ε"])
REAL_TEXTS = st.sampled_from(["2.5", "1e-8", "1.5e3", "2.", "0.0", "1.0", "3.25E2", "10.125"])


def simple_types():
    leaves = st.one_of(
        st.sampled_from(BASE_TYPES).map(TBase),
        st.integers(2, 9).map(TFin),
        st.integers(2, 9).map(TSimplex),
    )
    return st.recursive(leaves, lambda inner: st.one_of(
        inner.map(TList),
        st.lists(inner, min_size=2, max_size=3).map(lambda items: TTuple(tuple(items))),
        st.builds(TArrow, inner, inner),
        inner.map(TMonad),
        inner.map(TDist),
    ), max_leaves=6)


def patterns():
    annot = st.none() | simple_types()
    leaves = st.one_of(
        st.builds(PVar, NAMES, annot),
        st.builds(PWild, annot),
        st.just(PUnit()),
    )
    return st.recursive(leaves, lambda inner: st.lists(inner, min_size=2, max_size=3).map(
        lambda items: PTuple(tuple(items))), max_leaves=4)


def divergences(assertion):
    return st.one_of(
        st.builds(Divergence, st.just("DP"), assertion),
        st.sampled_from(["SD", "HD", "KL"]).map(Divergence),
    )


def expressions(assertion_mode, max_leaves=10):
    """Random trees of the shapes the parser builds (with run variables and connectives in
    assertion mode)."""
    leaves = st.one_of(
        NAMES.map(Var),
        st.integers(0, 10 ** 20).map(IntLit),
        REAL_TEXTS.map(lambda text: RealLit(Fraction(text), text)),
        st.builds(BoolLit, st.booleans()),
        st.just(UnitLit()),
        st.just(ListLit(())),
        *([st.builds(RunVar, NAMES, st.sampled_from([1, 2]))] if assertion_mode else []),
    )
    params = st.lists(patterns(), min_size=1, max_size=2).map(tuple)
    binder = NAMES | st.just("_")

    def extend(inner):
        options = [
            st.builds(App, inner, inner),
            st.lists(inner, min_size=2, max_size=3).map(lambda items: TupleLit(tuple(items))),
            st.lists(inner, max_size=3).map(lambda items: ListLit(tuple(items))),
            st.builds(BinOp, st.sampled_from(BINARY_OPS), inner, inner),
            st.builds(Cons, inner, inner),
            st.builds(UnOp, st.sampled_from(["-", "not"]), inner),
            inner.map(Return), inner.map(Infer), inner.map(Ran),
            st.builds(Let, patterns(), inner, inner),
            st.builds(lambda name, ps, body, rest: Let(PVar(name), Fun(ps, body), rest),
                      NAMES, params, inner, inner),
            st.builds(LetRec, NAMES, params, inner, inner),
            st.builds(MLet, patterns(), inner, inner),
            st.builds(Fun, params, inner),
            st.builds(If, inner, inner, inner),
            st.builds(Match, inner, inner, binder, binder, inner),
            st.builds(Observe, inner, inner),
            st.builds(lambda name, annot, body, prior: Observe(
                Fun((PVar(name, annot),), body), prior, arrow_form=True),
                NAMES, st.none() | simple_types(), inner, inner),
        ]
        if assertion_mode:
            options += [
                st.builds(Conj, inner, inner), st.builds(Disj, inner, inner),
                st.builds(Implies, inner, inner), inner.map(Neg),
                st.builds(Quant, st.sampled_from(["forall", "exists"]), NAMES, simple_types(),
                          inner),
                st.builds(DivBound, divergences(inner), inner, inner, inner),
            ]
        return st.one_of(options)

    return st.recursive(leaves, extend, max_leaves=max_leaves)


def relational_types():
    assertion = expressions(True, max_leaves=4)
    non_arrow = simple_types().filter(lambda t: not isinstance(t, TArrow))
    leaves = st.one_of(
        non_arrow.map(RSimple),
        st.builds(lambda name, t: RRefine(name, RSimple(t), SameRuns()), NAMES, simple_types()),
    )
    return st.recursive(leaves, lambda inner: st.one_of(
        st.builds(RArrow, inner, inner),
        st.builds(RRefine, NAMES, inner, assertion),
        st.builds(RMonad, divergences(assertion), st.none() | assertion, inner),
    ), max_leaves=5)


def declarations():
    params = st.lists(patterns(), max_size=2).map(tuple)
    return st.one_of(
        st.builds(LetDecl, NAMES, params, expressions(False, 6), st.just(False)),
        st.builds(lambda name, p, ps, body: LetDecl(name, (p,) + ps, body, True),
                  NAMES, patterns(), params, expressions(False, 6)),
        st.builds(ValDecl, NAMES, relational_types()),
    )


FAST = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@FAST
@given(simple_types())
def test_random_simple_types_round_trip(typ):
    assert parse_simple_type(pretty_type(typ)) == typ


@FAST
@given(expressions(False))
def test_random_expressions_round_trip(expr):
    assert parse_expr(pretty_expr(expr)) == expr


@FAST
@given(expressions(True))
def test_random_assertions_round_trip(assertion):
    assert parse_assertion(pretty_assertion(assertion)) == assertion


@FAST
@given(relational_types())
def test_random_relational_types_round_trip(rtype):
    assert parse_rtype(pretty_rtype(rtype)) == rtype


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(declarations(), max_size=3))
def test_random_programs_round_trip(decls):
    program = Program(tuple(decls))
    text = pretty_program(program)
    assert parse_program(text) == program
    assert pretty_program(parse_program(text)) == text


@FAST
@given(st.text(alphabet=string.printable, max_size=40))
def test_random_text_never_crashes_the_parser(text):
    try:
        program = parse_program(text)
    except PrivInferError as exc:
        assert exc.first.code.startswith("P")
        return
    assert parse_program(pretty_program(program)) == program
