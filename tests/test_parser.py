"""The parser: structure of what it builds, relational types, errors and nesting limits."""
import sys
from fractions import Fraction
from pathlib import Path

import pytest

from verifier.errors import PrivInferError
from verifier.language.ast import (
    App, BinOp, BoolLit, Cons, Conj, Disj, DivBound, Divergence, Fun, If, Implies, Infer,
    IntLit, Let, LetDecl, LetRec, ListLit, Match, MLet, Neg, Observe, PTuple, PUnit, PVar,
    PWild, Quant, Ran, RArrow, RealLit, Return, RMonad, RRefine, RSimple, RunVar, SameRuns,
    TArrow, TBase, TDist, TFin, TList, TMonad, TSimplex, TTuple, TupleLit, UnitLit, UnOp,
    ValDecl, Var,
)
from verifier.language.parser import (
    MAX_DEPTH, parse_assertion, parse_expr, parse_file, parse_program, parse_rtype,
    parse_simple_type,
)

EXAMPLES = sorted(Path(__file__).resolve().parents[1].glob("benchmarks/programs/*/*.pinf"))

x, y, z, f, g = Var("x"), Var("y"), Var("z"), Var("f"), Var("g")
REAL, REALP, BOOL = TBase("real"), TBase("real+"), TBase("bool")


def n(value):
    return IntLit(value)


def failure(parse, text):
    with pytest.raises(PrivInferError) as info:
        parse(text, "t.pinf")
    exc = info.value
    assert exc.source == text
    return exc.first


# ----------------------------------------------------------------------------- examples


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_every_example_parses(path):
    program = parse_file(path)
    assert program.file == str(path)
    assert program.source == path.read_text()
    assert program.vals() and program.lets()
    for val in program.vals():
        assert program.find_let(val.name) is not None


def test_examples_exist():
    assert len(EXAMPLES) >= 19


def test_learn_bias_structure():
    program = parse_file(EXAMPLES[0].parent.parent / "paper" / "beta_output_laplace.pinf")
    learn = program.find_let("learnBias")
    assert learn.recursive and learn.params == (PVar("db"), PVar("prior"))
    match = learn.body
    assert isinstance(match, Match) and (match.head, match.tail) == ("d", "dbs")
    assert match.nil_body == Var("prior")
    observe = match.cons_body
    likelihood = Fun((PVar("r"),), MLet(PVar("z"), Ran(App(Var("bernoulli"), Var("r"))),
                                        Return(BinOp("=", Var("d"), z))))
    prior = App(App(Var("learnBias"), Var("dbs")), Var("prior"))
    assert observe == Observe(likelihood, prior)


def test_main_val_structure():
    program = parse_file(EXAMPLES[0].parent.parent / "paper" / "beta_output_hellinger.pinf")
    rtype = program.find_val("main").rtype
    doms = []
    while isinstance(rtype, RArrow):
        doms.append(rtype.dom)
        rtype = rtype.cod
    assert doms[0] == RRefine("l", RSimple(TList(BOOL)),
                              App(Var("adj"), TupleLit((RunVar("l", 1), RunVar("l", 2)))))
    assert doms[1] == RRefine("a", RSimple(REALP), Conj(
        BinOp("=", RunVar("a", 1), RunVar("a", 2)),
        BinOp(">=", RunVar("a", 1), RealLit(Fraction(1)))))
    assert doms[3] == RRefine("eps", RSimple(REALP), SameRuns())
    assert rtype == RMonad(Divergence("DP", BinOp("*", Var("rho"), Var("eps"))), None,
                           RRefine("d", RSimple(TDist(TBase("[0,1]"))), SameRuns()))


def test_gauss_val_has_delta():
    program = parse_file(EXAMPLES[0].parent.parent / "paper" / "normal_input_gauss.pinf")
    rtype = program.find_val("addNoise").rtype
    while isinstance(rtype, RArrow):
        rtype = rtype.cod
    assert rtype == RMonad(Divergence("DP", Var("eps")), Var("delta"),
                           RRefine("b", RSimple(TList(REAL)), SameRuns()))


def test_empty_and_comment_only_programs():
    for text in ("", "   \n\n", "(* nothing (* here *) *)\n"):
        program = parse_program(text, "e.pinf")
        assert program.decls == ()
        assert program.file == "e.pinf" and program.source == text


# ----------------------------------------------------------------------------- declarations


def test_declarations():
    program = parse_program("let x = 1\nlet f a (b : real) = a\nlet rec g n = g n\n"
                            "val g :: int -> int\nlet score (obs, b) = b")
    assert program.decls == (
        LetDecl("x", (), n(1)),
        LetDecl("f", (PVar("a"), PVar("b", REAL)), Var("a")),
        LetDecl("g", (PVar("n"),), App(g, Var("n")), recursive=True),
        ValDecl("g", RArrow(RSimple(TBase("int")), RSimple(TBase("int")))),
        LetDecl("score", (PTuple((PVar("obs"), PVar("b"))),), Var("b")),
    )


def test_top_level_body_ends_at_next_declaration():
    program = parse_program("let a = f x\nlet b = if x then y else z let c = 1 val c :: int")
    assert [d.name for d in program.decls] == ["a", "b", "c", "c"]
    assert program.decls[1].body == If(x, y, z)


def test_decl_span():
    decl = parse_program("\n  let x =\n    1 + 2\n", "s.pinf").decls[0]
    span = decl.span
    assert (span.file, span.line, span.col, span.end_line, span.end_col) == ("s.pinf", 2, 3, 3, 10)


# ----------------------------------------------------------------------------- expressions


@pytest.mark.parametrize("text, expected", [
    ("f x y", App(App(f, x), y)),
    ("return f x", Return(App(f, x))),
    ("- f x", UnOp("-", App(f, x))),
    ("-x * y", BinOp("*", UnOp("-", x), y)),
    ("not x && y", BinOp("&&", UnOp("not", x), y)),
    ("infer ran x", Infer(Ran(x))),
    ("- - x", UnOp("-", UnOp("-", x))),
    ("x - -1", BinOp("-", x, UnOp("-", n(1)))),
    ("x + y * z", BinOp("+", x, BinOp("*", y, z))),
    ("x - y - z", BinOp("-", BinOp("-", x, y), z)),
    ("x / y * z", BinOp("*", BinOp("/", x, y), z)),
    ("x :: y :: z", Cons(x, Cons(y, z))),
    ("x + 1 :: y", Cons(BinOp("+", x, n(1)), y)),
    ("x = y = z", BinOp("=", BinOp("=", x, y), z)),
    ("x < y <> z", BinOp("<>", BinOp("<", x, y), z)),
    ("x && y && z", BinOp("&&", x, BinOp("&&", y, z))),
    ("x || y && z", BinOp("||", x, BinOp("&&", y, z))),
    ("x || y || z", BinOp("||", x, BinOp("||", y, z))),
    ("x :: y = z", BinOp("=", Cons(x, y), z)),
    ("1 + if x then y else z", BinOp("+", n(1), If(x, y, z))),
    ("if x then y else z + 1", If(x, y, BinOp("+", z, n(1)))),
    ("return let x = 1 in x", Return(Let(PVar("x"), n(1), x))),
    ("(x)", x),
    ("()", UnitLit()),
    ("(x, y, z)", TupleLit((x, y, z))),
    ("[]", ListLit(())),
    ("[x; y;]", ListLit((x, y))),
    ("[(x, y)]", ListLit((TupleLit((x, y)),))),
    ("true && false", BinOp("&&", BoolLit(True), BoolLit(False))),
    ("2.5e1", RealLit(Fraction(25))),
    ("f (fun x -> x) [1]", App(App(f, Fun((PVar("x"),), x)), ListLit((n(1),)))),
])
def test_expression_structure(text, expected):
    assert parse_expr(text) == expected


def test_let_forms():
    assert parse_expr("let f x y = x in f") == Let(PVar("f"), Fun((PVar("x"), PVar("y")), x), f)
    assert parse_expr("let rec f x = f x in f") == LetRec("f", (PVar("x"),), App(f, x), f)
    assert parse_expr("let (a, _) = x in a") == Let(PTuple((PVar("a"), PWild())), x, Var("a"))
    assert parse_expr("let (x : real) = 1 in x") == Let(PVar("x", REAL), n(1), x)
    assert parse_expr("let () = x in y") == Let(PUnit(), x, y)
    assert parse_expr("mlet (a, (b, c)) = x in a") == MLet(
        PTuple((PVar("a"), PTuple((PVar("b"), PVar("c"))))), x, Var("a"))


def test_nested_let_value_and_body():
    assert parse_expr("let x = let y = 1 in y in x") == Let(PVar("x"), Let(PVar("y"), n(1), y), x)


def test_fun_forms():
    assert parse_expr("fun (x : real) (a, b) _ () -> x") == Fun(
        (PVar("x", REAL), PTuple((PVar("a"), PVar("b"))), PWild(), PUnit()), x)
    assert parse_expr("fun x -> fun y -> x") == Fun((PVar("x"),), Fun((PVar("y"),), x))
    assert parse_expr("fun (x : real, _ : int) -> x") == Fun(
        (PTuple((PVar("x", REAL), PWild(TBase("int")))),), x)


def test_match_branches_in_either_order():
    expected = Match(x, y, "h", "t", z)
    assert parse_expr("match x with | [] -> y | h :: t -> z") == expected
    assert parse_expr("match x with [] -> y | h :: t -> z") == expected
    assert parse_expr("match x with | h :: t -> z | [] -> y") == expected
    assert parse_expr("match x with | _ :: _ -> z | [] -> y") == Match(x, y, "_", "_", z)


def test_nested_match_takes_exactly_two_branches():
    inner = Match(y, n(1), "a", "b", n(2))
    assert parse_expr("match x with | [] -> match y with | [] -> 1 | a :: b -> 2 | h :: t -> 3") \
        == Match(x, inner, "h", "t", n(3))


def test_observe_forms():
    lik = Fun((PVar("r"),), Return(BoolLit(True)))
    assert parse_expr("observe (fun r -> return true) x") == Observe(lik, x)
    arrow = parse_expr("observe r => return true in x")
    assert arrow == Observe(lik, x) and arrow.arrow_form
    annotated = parse_expr("observe (r : real) => return true in x")
    assert annotated == Observe(Fun((PVar("r", REAL),), Return(BoolLit(True))), x)
    assert parse_expr("observe f x y") == App(Observe(f, x), y)
    assert parse_expr("g (observe f x)") == App(g, Observe(f, x))


def test_spans_of_expressions():
    expr = parse_expr("f x +\n  10", "s.pinf")
    assert (expr.span.line, expr.span.col, expr.span.end_line, expr.span.end_col) == (1, 1, 2, 5)
    assert (expr.left.span.col, expr.left.span.end_col) == (1, 4)
    assert (expr.right.span.line, expr.right.span.col) == (2, 3)


def test_real_literal_keeps_text():
    lit = parse_expr("1e-8")
    assert lit == RealLit(Fraction(1, 10 ** 8)) and lit.text == "1e-8"


def test_long_list_parses():
    items = parse_expr("[" + "; ".join(str(i) for i in range(100_000)) + "]").items
    assert len(items) == 100_000
    assert items[0] == n(0) and items[-1] == n(99_999) and items[12_345] == n(12_345)


def test_long_flat_chains_parse_without_depth():
    length = 3 * MAX_DEPTH
    total = parse_expr(" + ".join(["x"] * length))
    depth = 0
    while isinstance(total, BinOp):
        depth, total = depth + 1, total.left
    assert depth == length - 1
    cons = parse_expr(" :: ".join(["x"] * length) + " :: []")
    for _ in range(length):
        assert cons.head == x
        cons = cons.tail
    assert cons == ListLit(())
    call = parse_expr("f " + " ".join(["x"] * length))
    assert isinstance(call, App) and call.arg == x


# ----------------------------------------------------------------------------- assertions


def test_assertion_connectives():
    a, b, c = Var("a"), Var("b"), Var("c")
    assert parse_assertion("a /\\ b \\/ c => a") == Implies(Disj(Conj(a, b), c), a)
    assert parse_assertion("a => b => c") == Implies(a, Implies(b, c))
    assert parse_assertion("~ a /\\ b") == Conj(Neg(a), b)
    assert parse_assertion("~ a || b") == Neg(BinOp("||", a, b))
    assert parse_assertion("forall x : real. x >= 0 /\\ a") == Quant(
        "forall", "x", REAL, Conj(BinOp(">=", x, n(0)), a))
    assert parse_assertion("a /\\ exists k : [3]. b") == Conj(a, Quant("exists", "k", TFin(3), b))


def test_parenthesised_assertions_act_as_atoms():
    assert parse_assertion("(a<1> <> a<2> => l<1> = l<2>)") == Implies(
        BinOp("<>", RunVar("a", 1), RunVar("a", 2)), BinOp("=", RunVar("l", 1), RunVar("l", 2)))
    assert parse_assertion("(a + b) <= c") == BinOp("<=", BinOp("+", Var("a"), Var("b")), Var("c"))
    assert parse_assertion("(a /\\ b) = c") == BinOp("=", Conj(Var("a"), Var("b")), Var("c"))


def test_divergence_bound():
    assert parse_assertion("Delta[HD] (x<1>, x<2>) <= 0.5 /\\ y") == Conj(
        DivBound(Divergence("HD"), RunVar("x", 1), RunVar("x", 2), RealLit(Fraction(1, 2))), y)
    assert parse_assertion("Delta[DP(eps)] (f x, g x) <= 2") == DivBound(
        Divergence("DP", Var("eps")), App(f, x), App(g, x), n(2))


def test_quantifier_over_simplex_before_the_dot():
    assert parse_assertion("forall p : [0,1]^3. p = p") == Quant(
        "forall", "p", TSimplex(3), BinOp("=", Var("p"), Var("p")))


def test_run_variables_only_in_assertions():
    diag = failure(parse_expr, "f x<1>")
    assert diag.code == "P010"
    assert (diag.span.col, diag.span.end_col) == (3, 7)
    assert "x < 1" in diag.hint
    assert failure(parse_program, "let f = x◁").code == "P010"


# ----------------------------------------------------------------------------- types


@pytest.mark.parametrize("text, expected", [
    ("unit", TBase("unit")), ("bool", BOOL), ("nat", TBase("nat")), ("int", TBase("int")),
    ("real", REAL), ("real+", REALP), ("real+inf", TBase("real+inf")), ("[0,1]", TBase("[0,1]")),
    ("[0, 1]", TBase("[0,1]")), ("[3]", TFin(3)), ("[0,1]^3", TSimplex(3)),
    ("real list list", TList(TList(REAL))),
    ("real * bool * int", TTuple((REAL, BOOL, TBase("int")))),
    ("(real * bool) * int", TTuple((TTuple((REAL, BOOL)), TBase("int")))),
    ("real -> bool -> int", TArrow(REAL, TArrow(BOOL, TBase("int")))),
    ("(real -> bool) -> int", TArrow(TArrow(REAL, BOOL), TBase("int"))),
    ("real * real -> real list", TArrow(TTuple((REAL, REAL)), TList(REAL))),
    ("M[real]", TMonad(REAL)), ("D[[0,1]^2]", TDist(TSimplex(2))),
    ("M[D[bool] list]", TMonad(TList(TDist(BOOL)))),
    ("(real -> real) list", TList(TArrow(REAL, REAL))),
])
def test_simple_types(text, expected):
    assert parse_simple_type(text) == expected


@pytest.mark.parametrize("text, where", [
    ("[1]", 1), ("[0]", 1), ("[0,1]^1", 1), ("[0,2]", 4), ("[x]", 2), ("float", 1),
    ("M[DP(eps)] real", 3), ("[0,1]^2.5", 7),
])
def test_invalid_types(text, where):
    diag = failure(parse_simple_type, text)
    assert diag.code == "P008"
    assert diag.span.col == where


def test_real_plus_needs_no_spaces():
    diag = failure(parse_simple_type, "real + int")
    assert diag.code == "P005" and "without spaces" in diag.hint


# ----------------------------------------------------------------------------- relational types


def test_relational_types():
    assert parse_rtype("M[DP(rho * eps)] {d :: D[[0,1]] | =}") == RMonad(
        Divergence("DP", BinOp("*", Var("rho"), Var("eps"))), None,
        RRefine("d", RSimple(TDist(TBase("[0,1]"))), SameRuns()))
    assert parse_rtype("M[DP(eps), delta] {b :: real list | =}") == RMonad(
        Divergence("DP", Var("eps")), Var("delta"), RRefine("b", RSimple(TList(REAL)), SameRuns()))
    assert parse_rtype("M[SD] {x :: [0,1] | =} -> M[KL] real") == RArrow(
        RMonad(Divergence("SD"), None, RRefine("x", RSimple(TBase("[0,1]")), SameRuns())),
        RMonad(Divergence("KL"), None, RSimple(REAL)))
    assert parse_rtype("M[DP(eps * dist (l<1>, l<2>))] bool") == RMonad(
        Divergence("DP", BinOp("*", Var("eps"), App(Var("dist"), TupleLit(
            (RunVar("l", 1), RunVar("l", 2)))))), None, RSimple(BOOL))


def test_relational_arrows_and_simple_types():
    assert parse_rtype("real -> real") == RArrow(RSimple(REAL), RSimple(REAL))
    assert parse_rtype("(real -> real) -> real") == RArrow(
        RArrow(RSimple(REAL), RSimple(REAL)), RSimple(REAL))
    assert parse_rtype("(real -> real) list") == RSimple(TList(TArrow(REAL, REAL)))
    assert parse_rtype("(real -> real) * real -> bool") == RArrow(
        RSimple(TTuple((TArrow(REAL, REAL), REAL))), RSimple(BOOL))
    assert parse_rtype("M[real] -> D[real]") == RArrow(RSimple(TMonad(REAL)), RSimple(TDist(REAL)))


def test_refinements():
    assert parse_rtype("{f :: real -> real | =}") == RRefine(
        "f", RSimple(TArrow(REAL, REAL)), SameRuns())
    assert parse_rtype("{f :: real -> real | f<1> = f<2>}") == RRefine(
        "f", RArrow(RSimple(REAL), RSimple(REAL)), BinOp("=", RunVar("f", 1), RunVar("f", 2)))
    assert parse_rtype("{x :: {y :: real | =} | x<1> > 0}") == RRefine(
        "x", RRefine("y", RSimple(REAL), SameRuns()), BinOp(">", RunVar("x", 1), n(0)))


def test_refinement_with_match_in_assertion():
    rtype = parse_rtype("{l :: real list | match l<1> with | [] -> true | h :: t -> h > 0}")
    assert rtype.assertion == Match(RunVar("l", 1), BoolLit(True), "h", "t",
                                    BinOp(">", Var("h"), n(0)))


def test_same_runs_shorthand_needs_a_simple_type():
    diag = failure(parse_rtype, "{x :: {y :: real | =} | =}")
    assert (diag.code, diag.span.col) == ("P011", 7)


def test_unknown_divergence():
    diag = failure(parse_rtype, "M[DP(eps), d] {x :: real | =} -> Delta")
    assert diag.code == "P008"
    assert failure(parse_assertion, "Delta[SD] (x, y) < 1").code == "P005"


# ----------------------------------------------------------------------------- errors


def test_unclosed_parenthesis_names_the_opening():
    diag = failure(parse_program, "let f x =\n  g (x + let y = 1 in y")
    assert diag.code == "P006"
    assert "expected ')' to close the '(' at 2:5" in diag.message


def test_unexpected_token_inside_parentheses():
    diag = failure(parse_expr, "f (x in y)")
    assert diag.code == "P005"
    assert diag.message == "expected ')' to close the '(' at 1:3, found 'in'"
    assert (diag.span.line, diag.span.col, diag.span.end_col) == (1, 6, 8)


def test_double_equals_hint():
    diag = failure(parse_expr, "if x == y then 1 else 2")
    assert diag.code == "P005" and "'='" in diag.hint


def test_missing_in_hint():
    diag = failure(parse_program, "let f x =\n  let y = x\n  let z = y in z")
    assert diag.code == "P005"
    assert "expected 'in' to end the 'let' at 2:3" in diag.message
    assert "forget 'in'" in diag.hint


def test_arrow_hints():
    assert "->" in failure(parse_expr, "fun x => x").hint
    assert "observe x => e in prior" in failure(parse_expr, "observe x -> e in p").hint
    assert "'=>'" in failure(parse_rtype, "{x :: real | x<1> -> x<2>}").hint
    assert "->" in failure(parse_expr, "match x with | [] => 1 | h :: t -> 2").hint


def test_connectives_outside_assertions():
    diag = failure(parse_expr, "x /\\ y")
    assert diag.code == "P005" and "&&" in diag.hint


def test_other_errors():
    assert "else" in failure(parse_expr, "if x then y").hint
    assert "no 'in'" in failure(parse_program, "let x = 1 in x").hint
    assert "';'" in failure(parse_expr, "[1, 2]").hint
    duplicate = failure(parse_expr, "match x with | [] -> 1 | [] -> 2")
    assert "already has a '[]' branch" in duplicate.message
    assert failure(parse_program, "let rec f = 1").code == "P009"
    assert failure(parse_program, "let (a, b) = x").code == "P009"
    assert failure(parse_expr, "fun ((a, b) : real) -> a").code == "P009"
    assert "val f :: T" in failure(parse_program, "val f : int").hint
    assert "annotations" in failure(parse_expr, "(x : real)").hint
    assert failure(parse_expr, "").code == "P006"
    assert failure(parse_expr, "x )").message == "expected end of input, found ')'"
    assert "comment" in failure(parse_expr, "x *)").hint
    assert failure(parse_expr, "forall x : real. x").code == "P005"
    assert "'in' is a keyword" in failure(parse_program, "let in = 1").hint


# ----------------------------------------------------------------------------- nesting


def test_fifty_thousand_parentheses_give_p007_at_the_default_recursion_limit():
    saved = sys.getrecursionlimit()  # the command line raises it; a library caller may not
    sys.setrecursionlimit(1000)
    try:
        assert failure(parse_expr, "(" * 50_000 + "x" + ")" * 50_000).code == "P007"
        assert sys.getrecursionlimit() == 1000
    finally:
        sys.setrecursionlimit(saved)


TOO_DEEP = 3 * MAX_DEPTH


@pytest.mark.parametrize("parse, text", [
    (parse_expr, "[" * TOO_DEEP + "]" * TOO_DEEP),
    (parse_expr, "-" * TOO_DEEP + "x"),
    (parse_expr, "fun x -> " * TOO_DEEP + "x"),
    (parse_expr, "let x = 1 in " * TOO_DEEP + "x"),
    (parse_expr, "observe " * TOO_DEEP + "x"),
    (parse_expr, "fun " + "(" * TOO_DEEP),
    (parse_simple_type, "(" * TOO_DEEP + "real"),
    (parse_simple_type, "M[" * TOO_DEEP + "real"),
    (parse_rtype, "M[SD] " * TOO_DEEP + "real"),
    (parse_rtype, "{x :: " * TOO_DEEP),
    (parse_assertion, "~" * TOO_DEEP + "x"),
    (parse_assertion, "forall x : real. " * TOO_DEEP + "x"),
], ids=lambda value: value.__name__ if callable(value) else repr(value[:12]))
def test_deep_nesting_is_refused_with_p007(parse, text):
    assert failure(parse, text).code == "P007"


def test_p007_points_at_the_offending_token():
    diag = failure(parse_program, "let x =\n" + "(" * 50_000)
    assert (diag.span.line, diag.span.col) == (2, MAX_DEPTH + 1)


def test_nesting_up_to_the_limit_is_accepted():
    depth = MAX_DEPTH - 5
    expr = parse_expr("(" * depth + "x" + ")" * depth)
    assert expr == x
    nested = parse_expr("[" * depth + "]" * depth)
    for _ in range(depth - 1):
        (nested,) = nested.items
    assert nested == ListLit(())
