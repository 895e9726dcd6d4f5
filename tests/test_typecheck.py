"""Simple type inference: rules on hand-built trees, the example programs, error codes,
positions and wording, and ``privinfer typecheck``."""
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path

import pytest

from verifier.cli import main
from verifier.errors import PrivInferError
from verifier.language import ast as A
from verifier.language.parser import parse_expr, parse_file, parse_program
from verifier.language.typecheck import typecheck_expr, typecheck_program
from verifier.language.types import (
    BOOL, INT, REAL, UNIT, Arrow, Dist, ListType, Monad, Scheme, TupleType, TypeVar, fin, flows,
    instantiate, pretty, simplex,
)

PROGRAMS = Path(__file__).resolve().parents[1] / "benchmarks" / "programs"
EXAMPLES = sorted(PROGRAMS.glob("*/*.pinf"))


def expr_type(text, **env):
    return pretty(typecheck_expr(parse_expr(text), env))


def schemes(text):
    typed = typecheck_program(parse_program(text, "t.pinf"))
    return {name: str(s) for name, s in typed.schemes.items()}


def failure(text):
    """The single diagnostic of a program that does not type-check."""
    with pytest.raises(PrivInferError) as exc:
        typecheck_program(parse_program(text, "t.pinf"))
    assert len(exc.value.diagnostics) == 1, exc.value.render()
    return exc.value.first


def expr_failure(text, **env):
    with pytest.raises(PrivInferError) as exc:
        typecheck_expr(parse_expr(text), env)
    return exc.value.first


def real(text):
    return A.RealLit(Fraction(text), text)


# ---- rules, on trees built by hand ----------------------------------------------------------


def test_builtin_application_on_a_built_tree():
    e = A.App(A.Var("beta"), A.TupleLit((real("1.0"), A.IntLit(2))))
    assert typecheck_expr(e) == Dist(REAL)


def test_let_polymorphism_on_a_built_tree():
    # let id = fun x -> x in (id 1, id true)
    ident = A.Fun((A.PVar("x"),), A.Var("x"))
    e = A.Let(A.PVar("id"), ident, A.TupleLit((A.App(A.Var("id"), A.IntLit(1)),
                                                A.App(A.Var("id"), A.BoolLit(True)))))
    assert typecheck_expr(e) == TupleType((INT, BOOL))


def test_monadic_rules_on_a_built_tree():
    # mlet x = ran (bernoulli 0.5) in return (x, infer (return 1))
    e = A.MLet(A.PVar("x"), A.Ran(A.App(A.Var("bernoulli"), real("0.5"))),
               A.Return(A.TupleLit((A.Var("x"), A.Infer(A.Return(A.IntLit(1)))))))
    assert typecheck_expr(e) == Monad(TupleType((BOOL, Dist(INT))))


def test_an_unknown_node_class_fails_loudly():
    @dataclass(frozen=True)
    class Strange(A.Expr):
        span: A.Span = A.NOWHERE

    with pytest.raises(TypeError, match="no rule for Strange"):
        typecheck_expr(Strange())


def test_names_given_to_typecheck_expr():
    assert typecheck_expr(A.Var("db"), {"db": ListType(BOOL)}) == ListType(BOOL)
    a = TypeVar(1)
    ident = Scheme((a,), Arrow(a, a))
    assert expr_type("(f 1, f true)", f=ident) == "int * bool"


# ---- literals, data, control --------------------------------------------------------------


@pytest.mark.parametrize("text, t", [
    ("()", "unit"), ("true", "bool"), ("3", "int"), ("2.5", "real"), ("1e-8", "real"),
    ("[]", "'a list"), ("[1; 2]", "int list"), ("[1; 2.5]", "real list"),
    ("(1, true, ())", "int * bool * unit"),
    ("1 :: [2.5]", "real list"), ("[] :: []", "'a list list"),
    ("if true then 1 else 2.5", "real"),
    ("match [true] with | [] -> 0 | x :: xs -> 1", "int"),
    ("fun x -> x", "'a -> 'a"),
    ("fun (x, y) -> x", "'a * 'b -> 'a"),
    ("fun (x : real+) _ -> x", "real -> 'a -> real"),
    ("fun (x : [0,1]) -> x", "real -> real"),
    ("fun (x : nat) -> x", "int -> int"),
    ("fun (c : [3]) -> c", "[3] -> [3]"),
    ("fun () -> 1", "unit -> int"),
    # the unknown result of len t, an operand of +, is an undecided number, decided int by
    # the join with the 0 of the other branch (as in OCaml)
    ("let rec len l = match l with | [] -> 0 | _ :: t -> 1 + len t in len", "'a list -> int"),
    ("let (a, b) = (1, true) in b", "bool"),
    ("let (x : real) = 1 in x", "real"),
])
def test_expression_types(text, t):
    assert expr_type(text) == t


def test_inner_let_is_polymorphic():
    assert expr_type("let pair x = (x, x) in (pair 1, pair true)") == "(int * int) * (bool * bool)"


def test_lambda_bound_names_are_not_polymorphic():
    d = expr_failure("fun f -> (f 1, f true)")
    assert (d.code, d.message) == ("T002", "expected int, found bool in the 1st argument of f")


# ---- operators and the numeric order ------------------------------------------------------


@pytest.mark.parametrize("text, t", [
    ("1 + 2", "int"), ("1 + 2.0", "real"), ("1 / 2", "real"), ("- 3", "int"),
    ("1 < 2.5", "bool"), ("not (1 = 2)", "bool"), ("true && false || true", "bool"),
    ("[1] = [2.0]", "bool"), ("(1, true) <> (2, false)", "bool"),
    ("beta (1.0, 1.0) = beta (2.0, 2.0)", "bool"),
    ("fun x -> x + 1", "real -> real"),  # an unknown operand of arithmetic, left undecided, is real
    ("fun x y -> x * y", "real -> real -> real"),
    ("fun x -> x < 1", "real -> bool"),
    ("fun x -> x = 1", "int -> bool"),  # equality binds the unknown side to the other
    ("fun x y -> x = y", "'a -> 'a -> bool"),
])
def test_operator_types(text, t):
    assert expr_type(text) == t


def test_arithmetic_on_finite_types_gives_int():
    assert expr_type("(c + c, - c, max (c, c), abs c)", c=fin(3)) == "int * int * [3] * [3]"
    assert expr_type("(c = d, max (c, d))", c=fin(2), d=fin(3)) == "bool * int"


def test_arguments_flow_along_the_numeric_order():
    assert expr_type("f c", f=Arrow(REAL, BOOL), c=fin(3)) == "bool"
    d = expr_failure("f 2.5", f=Arrow(INT, BOOL))
    assert d.message == "expected int, found real in the 1st argument of f"


def test_arithmetic_needs_numbers():
    d = expr_failure("1 + true")
    assert (d.code, d.message) == ("T002", "expected a number, found bool in the right operand of +")


@pytest.mark.parametrize("text, kind", [
    ("(fun x -> x) = (fun y -> y)", "functions"),
    ("return 1 <> return 2", "M[...] distributions"),
    ("[(1, fun x -> x)] = []", "functions"),
])
def test_no_equality_on_functions_or_distributions(text, kind):
    d = expr_failure(text)
    assert d.code == "T010" and d.message.endswith(f"there is no equality on {kind}")


def test_equality_checked_once_an_unknown_type_is_known():
    d = failure("let f x = (x = x) && (x 1 = 1)")
    assert d.code == "T010"
    assert d.message == "cannot compare values of type int -> int with =: there is no equality on functions"


# ---- undecided numbers ------------------------------------------------------------------------
# An unknown operand of arithmetic is an undecided number: int or real, decided by a later use in
# its declaration, real when nothing decides it.

NATURAL5 = Path(__file__).resolve().parent / "natural5"


@pytest.mark.parametrize("text, t", [
    # the join of the two branches decides int, as in OCaml
    ("let rec upto i = if i <= 0 then [0] else i :: upto (i - 1)", "int -> int list"),
    ("let f n = let rec upto i = if i <= 0 then [0] else i :: upto (i - 1) in upto n",
     "int -> int list"),
    # a helper adding 1, its result used where an int is expected
    ("let g n = let f x = x + 1 in let (y : int) = f n in y", "int -> int"),
    ("let g n = let f x = x + 1 in [f n; 0]", "int -> int list"),
    # a real operand decides real
    ("let f x = x + 1.0", "real -> real"),
    ("let f x = x * 0.5 + 1", "real -> real"),
    # nothing decides: real, as without undecided numbers
    ("let f x = x + x", "real -> real"),
    ("let f x = x + 1", "real -> real"),
    ("let f x y = x * y - 1", "real -> real -> real"),
    ("let f x = abs (- x)", "real -> real"),
    # decided int by a later use in the same declaration
    ("let f x = (x + 1, x = 0)", "int -> int * bool"),
    ("let f x = let y = x * 2 in if y > 3 then y else 0", "int -> int"),
    ("let f x = (min (x, 3), [x; 2])", "int -> int * int list"),
    # an int flows into an undecided number without deciding it
    ("let g u = let f x = x + 1 in f 1", "'a -> real"),
    # an undecided number flows into a real without being decided: an int passed to sqrt
    ("let f x = (sqrt (x + 1), x = 0)", "int -> real * bool"),
    # two undecided operands of arithmetic are one number
    ("let f x y = (x + y, y = 0)", "int -> int -> int * bool"),
    # compared with a real: real
    ("let f x = (x - 1 < 0.5, x)", "real -> bool * real"),
])
def test_undecided_number_types(text, t):
    name = text.split()[2] if text.startswith("let rec") else text.split()[1]
    assert schemes(text)[name] == t


def test_an_undecided_number_is_not_generalised():
    # one x for both uses: the real argument decides real for both, in either order
    assert schemes("let g u = let f x = x + 1 in (f 1, f 2.5)")["g"] == "'a -> real * real"
    assert schemes("let g u = let f x = x + 1 in (f 2.5, f 1)")["g"] == "'a -> real * real"
    # decided int by the first use, the helper cannot take a real: never int applied to 2.5
    d = failure("let g u = let f x = x + 1 in (if u then f 1 else 0, f 2.5)")
    assert (d.code, d.message) == ("T002", "expected int, found real in the 1st argument of f")
    assert (d.span.line, d.span.col) == (1, 55)
    # an int use elsewhere decides every use
    got = schemes("let g u = let f x = x + 1 in let a = f 1 in let (b : int) = f 2 in a")
    assert got["g"] == "'a -> int"
    # other variables of the definition are still generalised
    got = schemes("let g u = let p y x = (y, x + 1) in (p true 1, p 3 2.5)")
    assert got["g"] == "'a -> (bool * real) * (int * real)"


def test_an_undecided_number_defaults_to_real_at_the_end_of_its_declaration():
    got = schemes("let f x = x + 1\nlet a = (f 1, f 2.5)")
    assert (got["f"], got["a"]) == ("real -> real", "real * real")
    d = failure("let f x = x + 1\nlet b = let (n : int) = f 1 in n")
    assert (d.code, d.message) == ("T002", "expected int, found real in the value bound to n by let")


def test_a_val_decides_an_undecided_number():
    text = "val h :: {n :: int | =} -> {y :: int | =}\nlet h n = let f x = x + 1 in f n"
    assert schemes(text)["h"] == "int -> int"


def test_the_local_candidates_of_g14_are_int():
    typed = typecheck_program(parse_file(NATURAL5 / "g14_local_candidates.pinf"))
    assert str(typed.schemes["nearCount"]) == "bool list -> int -> real -> M[int]"


def test_an_undecided_number_flowing_into_a_finite_type_is_an_int_with_a_range_to_show():
    typed = typecheck_program(parse_program("let f (g : [3] -> bool) x = g (x + 1)", "t.pinf"))
    assert str(typed.schemes["f"]) == "([3] -> bool) -> int -> bool"
    (decl,) = typed.program.lets()
    call = decl.body
    assert [(kind, pretty(t)) for _, kind, t in typed.narrowings(call.arg)] == [("value", "[3]")]


@pytest.mark.parametrize("text, message, col", [
    ("let f x = (x + 1, if x then 1 else 2)", "expected bool, found number in the condition of if", 22),
    ("let f x = (x - 1, match x with | [] -> 0 | h :: t -> h)",
     "expected 'a list, found number in the scrutinee of match", 25),
    ("let f x = (x + 1) :: x", "expected 'a list, found number in the tail of ::", 22),
    ("let f x = (x * 2, x && true)", "expected bool, found number in the left operand of &&", 19),
    ("let f x = (x + 1, (x, 1) = x)", "expected number * int, found number in the right operand of =", 28),
    ("let f x = (x + 1, lapMech (1.0, 2.0) = x)", "expected M[real], found number in the right operand of =", 40),
    ("let f x = (x + 1, mlet y = x in return y)", "expected M['a], found number in the value bound to y by mlet", 28),
    ("let f x = (x + 1, getParams x)", "expected D['a], found number in the argument of getParams", 29),
])
def test_an_undecided_number_is_only_a_number(text, message, col):
    d = failure(text)
    assert (d.code, d.message) == ("T002", message)
    assert (d.span.file, d.span.line, d.span.col) == ("t.pinf", 1, col)


def test_an_undecided_number_is_not_a_function():
    d = failure("let f x = (x + 1, x 3)")
    assert (d.code, d.message) == ("T004", "x is not a function: it has type number")
    assert (d.span.line, d.span.col) == (1, 19)
    d = failure("let f x = (x + 1, beta x)")
    assert d.code == "T003"


@pytest.mark.parametrize("text", [
    "let f x = let h = x / 2 in let (n : int) = x in n",          # / is real division
    "let f x = let h = 2 / x in let (n : int) = x in n",
    "let f x = let h = x + 0.5 in let (n : int) = x in n",        # a real literal
    "let f x = let h = x < 0.5 in let (n : int) = x in n",        # compared with a real
    "let f x = let h = max (x, 1.5) in let (n : int) = x in n",
])
def test_real_only_operations_decide_real(text):
    d = failure(text)
    assert (d.code, d.message) == ("T002", "expected int, found real in the value bound to n by let")


def test_real_only_operations_give_real_without_a_later_use():
    assert schemes("let f x = x / 2")["f"] == "real -> real"
    assert schemes("let f x = (x / 2, x = 0)")["f"] == "real -> real * bool"
    assert schemes("let f x = (x + 0.5, x = 0)")["f"] == "real -> real * bool"


# ---- the probability monad and distributions ----------------------------------------------


@pytest.mark.parametrize("text, t", [
    ("return 1", "M[int]"),
    ("mlet x = ran (beta (1.0, 1.0)) in return (x > 0.5)", "M[bool]"),
    ("mlet (a, b) = return (1, 2.0) in return (a + b)", "M[real]"),
    ("infer (ran (normal (0.0, 1.0)))", "D[real]"),
    ("observe (fun r -> mlet z = ran (bernoulli r) in return z) (ran (uniform ()))", "M[real]"),
    ("observe x => return (x > 0.5) in ran (beta (1.0, 1.0))", "M[real]"),
    ("categorical (getParams (dirichlet (1.0, 2.0, 3.0)) = (0.1, 0.2, 0.7))", None),
])
def test_monadic_types(text, t):
    if t is None:
        expr_failure(text)
    else:
        assert expr_type(text) == t


def test_observe_needs_a_boolean_likelihood():
    d = expr_failure("observe (fun x -> return 1) (ran (beta (1.0, 1.0)))")
    assert d.message == "expected real -> M[bool], found real -> M[int] in the likelihood of observe"


def test_mlet_needs_a_distribution():
    d = expr_failure("mlet x = 3 in return x")
    assert d.message == "expected M['a], found int in the value bound to x by mlet"


# ---- built-ins ---------------------------------------------------------------------------


@pytest.mark.parametrize("text, t", [
    ("bernoulli 0.5", "D[bool]"), ("beta (1, 2)", "D[real]"), ("uniform ()", "D[real]"),
    ("normal (0.0, 1.0)", "D[real]"),
    ("dirichlet (1.0, 2.0, 3.0)", "D[[0,1]^3]"),
    ("categorical (getParams (dirichlet (1.0, 2.0)) )", None),
    ("getParams (beta (1.0, 2.0))", "real * real"),
    ("getParams (normal (0.0, 2.0))", "real * real"),
    ("getParams (dirichlet (1.0, 2.0, 3.0))", "real * real * real"),
    ("getParams (bernoulli 0.3)", "real"),
    ("getParams (categorical p)", "[0,1]^4"),
    ("categorical p", "D[[4]]"),
    ("lapMech (1.0, count [true])", "M[real]"),
    ("gaussMech (1.0, 0.1, 3)", "M[real]"),
    ("expMech (1.0, fun (x, r) -> if r then x else 0.0, 2.0)", "M[bool]"),
    ("expMech (1.0, fun (x, r) -> x * r, 2.0, [1.0; 2.0])", "M[real]"),
    ("hellingerMech (1.0, 0.1, beta (1.0, 1.0), [true])", "M[D[real]]"),
    ("hellingerMechPure (1.0, dirichlet (1.0, 1.0, 1.0), cs)", "M[D[[0,1]^3]]"),
    ("posteriors (beta (1.0, 1.0), 3)", "D[real] list"),
    ("(mean (beta (1.0, 1.0)), variance (normal (0.0, 1.0)))", "real * real"),
    ("(hellinger (beta (1.0, 1.0), beta (2.0, 1.0)), tv (bernoulli 0.1, bernoulli 0.2))", "real * real"),
    ("(sigma (1.0, 0.1), exp 1, log 2.0, sqrt 4.0, pi)", "real * real * real * real * real"),
    ("(fst (1, true), snd (1, true))", "int * bool"),
    ("(min (1, 2), max (1, 2.0), abs (- 3))", "int * real * int"),
    ("(length [true], count [true], sum [1; 2])", "int * int * real"),
])
def test_builtin_types(text, t):
    env = {"p": simplex(4), "cs": ListType(fin(3))}
    if t is None:
        expr_failure(text, **env)
    else:
        assert expr_type(text, **env) == t


def test_builtins_can_be_shadowed():
    assert expr_type("let beta x = x + 1 in beta 2") == "real"
    assert schemes("let count = 3\nlet c = count + 1")["c"] == "int"


def test_a_plain_builtin_can_be_passed_unapplied():
    assert expr_type("let f = bernoulli in f 0.5") == "D[bool]"
    assert expr_type("fst") == "'a * 'b -> 'a"


def test_getparams_needs_a_known_family():
    d = failure("let g d = getParams d")
    assert d.code == "T006"
    assert d.message == "getParams cannot determine the distribution family of its argument, of type D['a]"
    assert expr_failure("getParams (uniform () = uniform ())").code == "T002"
    assert expr_failure("getParams (infer (return 1))").code == "T006"


def test_conjugate_builtins_need_beta_or_dirichlet():
    d = expr_failure("posteriors (bernoulli 0.5, 3)")
    assert d.code == "T006"
    assert d.message == ("posteriors needs a beta or dirichlet prior, of type D[[0,1]] or D[[0,1]^k], "
                         "found D[bool]")
    d = expr_failure("hellingerMech (1.0, 0.1, beta (1.0, 1.0), [1; 2])")
    assert d.message == "expected bool list, found int list in the 4th argument of hellingerMech"


def test_expmech_range_must_be_finite():
    d = failure("let main eps (x : real) = expMech (eps, fun (a, r) -> a * r, x)")
    assert d.code == "T011"
    assert d.message == ("the exponential mechanism needs a finite range (bool, unit, [k] or tuples "
                         "of them), but its range real is infinite")
    d = failure("let f eps x = expMech (eps, fun (a, b) -> 1.0, x)")
    assert d.code == "T011" and "its range 'a is not determined here" in d.message


def test_expmech_finite_ranges():
    for r in ("bool", "[3]", "unit", "bool * [2]"):
        text = f"let m eps (x : real) = expMech (eps, fun (a, (r : {r})) -> a, x)"
        assert schemes(text)["m"] == f"real -> real -> M[{r}]"


def test_overloaded_builtins_must_be_applied():
    d = expr_failure("let g = getParams in g")
    assert (d.code, d.message) == ("T012", "the built-in getParams must be applied to its arguments "
                                           "here: its type depends on them")


@pytest.mark.parametrize("text, message", [
    ("beta (1.0, 2.0, 3.0)", "beta takes 2 arguments, found 3"),
    ("beta 1.0", "beta takes 2 arguments, found 1"),
    ("bernoulli (0.5, 0.5)", "bernoulli takes 1 argument, found 2"),
    ("uniform 1.0", "uniform takes no argument, found 1"),
    ("dirichlet (1.0)", "dirichlet takes at least 2 arguments, found 1"),
    ("expMech (1.0, 2.0)", "expMech takes 3 or 4 arguments, found 2"),
    ("getParams ()", "getParams takes 1 argument, found 0"),
])
def test_wrong_arity(text, message):
    d = expr_failure(text)
    assert (d.code, d.message) == ("T003", message)


def test_a_tuple_typed_argument_counts_its_components():
    assert expr_type("fun p -> beta p") == "real * real -> D[real]"
    assert expr_failure("fun (p : real * real * real) -> beta p").message == "beta takes 2 arguments, found 3"


def test_assertion_predicates_are_refused_in_code():
    d = expr_failure("adj ([1], [2])")
    assert d.code == "T014"
    assert d.message == "adj is a relation between two runs, usable only in the assertions of val declarations"


# ---- the example programs ------------------------------------------------------------------


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_every_example_typechecks(path):
    program = parse_file(path)
    typed = typecheck_program(program)
    assert set(typed.val_types) == {v.name for v in program.vals()}
    for name, declared in typed.val_types.items():
        flows(instantiate(typed.schemes[name], 1), declared)  # the definition fits its val


def test_example_schemes():
    assert {n: str(s) for n, s in typecheck_program(parse_file(PROGRAMS / "paper/beta_input_expmech.pinf")).schemes.items()} == {
        "score": "'a * 'a -> real",
        "addNoise": "bool list -> real -> M[bool list]",
        "learnBias": "bool list -> M[real] -> M[real]",
        "main": "bool list -> real -> real -> real -> M[D[real]]",
    }
    dirichlet = typecheck_program(parse_file(PROGRAMS / "paper/dirichlet_output_hellinger.pinf"))
    assert str(dirichlet.schemes["learnP"]) == "[3] list -> M[[0,1]^3] -> M[[0,1]^3]"
    assert str(dirichlet.schemes["score"]) == "([3] list * real * real * real) * D[[0,1]^3] -> real"
    assert str(dirichlet.val_types["main"]) == "[3] list -> real -> real -> real -> real -> M[D[[0,1]^3]]"
    gauss = typecheck_program(parse_file(PROGRAMS / "paper/normal_input_gauss.pinf"))
    assert str(gauss.schemes["learnMean"]) == "real list -> real -> M[real] -> M[real]"


def _find(node, cls, pred=lambda n: True):
    """The first node of class ``cls`` under ``node`` (depth first) satisfying ``pred``."""
    stack = [node]
    while stack:
        n = stack.pop()
        if isinstance(n, cls) and pred(n):
            return n
        stack.extend(reversed(list(A.children(n))))
    raise LookupError(cls)


def is_expmech(n):
    return isinstance(n.fn, A.Var) and n.fn.name == "expMech"


def test_expmech_ranges_of_the_examples():
    group = typecheck_program(parse_file(PROGRAMS / "course/group_privacy.pinf"))
    app = _find(group.program.find_let("rr"), A.App, is_expmech)
    assert group.expmech_range(app) == BOOL
    hellinger = typecheck_program(parse_file(PROGRAMS / "paper/beta_output_hellinger.pinf"))
    app = _find(hellinger.program.find_let("main"), A.App, is_expmech)
    assert hellinger.expmech_range(app) == Dist(REAL)
    assert pretty(hellinger.type_of(app.fn)) == (
        "real * ((bool list * real * real) * D[real] -> real) * (bool list * real * real) * D[real] list"
        " -> M[D[real]]")


def test_type_of_nodes_of_the_program():
    typed = typecheck_program(parse_file(PROGRAMS / "paper/beta_output_laplace.pinf"))
    main = typed.program.find_let("main")
    get_params = _find(main, A.App, lambda n: isinstance(n.fn, A.Var) and n.fn.name == "getParams")
    assert typed.type_of(get_params.arg) == Dist(REAL)
    assert typed.type_of(get_params) == TupleType((REAL, REAL))
    assert [typed.type_of(p) for p in main.params] == [ListType(BOOL), REAL, REAL, REAL]
    observe = _find(typed.program.find_let("learnBias"), A.Observe)
    eq = _find(observe, A.BinOp, lambda n: n.op == "=")
    assert typed.type_of(eq.left) == BOOL and typed.type_of(observe) == Monad(REAL)
    with pytest.raises(KeyError):
        typed.type_of(A.Var("main"))


def test_assertions_are_typed():
    typed = typecheck_program(parse_file(PROGRAMS / "course/dummy_sum.pinf"))
    val = typed.program.find_val("noisyPrefix")
    index = _find(val, A.RMonad).div.eps  # eps * length l<1>
    assert typed.type_of(index) == REAL
    assert typed.type_of(index.right.arg) == ListType(REAL)


def test_a_polymorphic_helper_used_at_two_types():
    text = """
let score (obs, b) = if b = obs then 1.0 else 0.0

let rr eps (y : bool) = expMech (eps, score, y)
let pick eps (c : [3]) = expMech (eps, score, c)
let both = (score (true, false), score (1.5, 2.5))
"""
    got = schemes(text)
    assert got["score"] == "'a * 'a -> real"
    assert got["rr"] == "real -> bool -> M[bool]"
    assert got["pick"] == "real -> [3] -> M[[3]]"
    assert got["both"] == "real * real"


def test_val_fixes_what_inference_leaves_open():
    text = """
val learnP :: {l :: [3] list | =} -> M[SD] {x :: [0,1]^3 | =} -> M[SD] {x :: [0,1]^3 | =}
let rec learnP db prior = match db with
  | [] -> prior
  | d :: dbs -> observe (fun p -> mlet z = ran (categorical p) in return (d = z)) (learnP dbs prior)
let learnQ db prior = learnP db prior
"""
    got = schemes(text)
    assert got["learnP"] == "[3] list -> M[[0,1]^3] -> M[[0,1]^3]"
    without_val = schemes(text.split("\n", 2)[2].replace("learnQ db prior = learnP db prior", "x = 1"))
    assert without_val["learnP"] == "['a] list -> M[[0,1]^'a] -> M[[0,1]^'a]"


def test_declarations_see_only_earlier_lets():
    d = failure("let a = b\nlet b = 1")
    assert (d.code, d.message, d.span.line, d.span.col) == ("T001", "unbound variable b", 1, 9)
    assert schemes("let a = 1\nlet a = a = 1")["a"] == "bool"


def test_scheme_of_each_shadowed_declaration():
    program = parse_program("let x = 1\nlet x = true", "t.pinf")
    typed = typecheck_program(program)
    first, second = program.lets()
    assert (str(typed.scheme_of(first)), str(typed.scheme_of(second))) == ("int", "bool")
    assert str(typed.schemes["x"]) == "bool"


def test_a_val_may_stand_after_its_definition():
    assert schemes("let f x = x + 1.0\nval f :: {x :: real | =} -> real")["f"] == "real -> real"


# ---- errors: codes, positions, wording -------------------------------------------------------


def test_unbound_variable_with_a_hint():
    d = failure("let learnBias db = db\nlet main db = leanrBias db")
    assert d.code == "T001"
    assert d.message == "unbound variable leanrBias"
    assert d.hint == "did you mean learnBias?"
    assert (d.span.file, d.span.line, d.span.col, d.span.end_col) == ("t.pinf", 2, 15, 24)


def test_unbound_variable_without_a_close_name():
    d = failure("let main = zzz")
    assert (d.code, d.hint) == ("T001", None)


def test_mismatch_in_a_builtin_argument():
    d = failure("let b = true\nlet d = beta (1.0, b)")
    assert d.code == "T002"
    assert d.message == "expected real, found bool in the 2nd argument of beta"
    assert (d.span.line, d.span.col) == (2, 20)
    rendered = PrivInferError(d, source="let b = true\nlet d = beta (1.0, b)").render()
    assert rendered == ("t.pinf:2:20: error[T002]: expected real, found bool in the 2nd argument of beta\n"
                        "    let d = beta (1.0, b)\n"
                        "                       ^")


def test_mismatch_in_a_branch_and_a_list():
    d = failure("let f c = if c then 1.0 else [2.0]")
    assert d.message == "expected real, found real list in the else branch of if"
    assert (d.span.line, d.span.col) == (1, 30)
    d = failure("let l = [1; 2.0; true]")
    assert d.message == "expected real, found bool in the 3rd element of the list"
    assert d.span.col == 18
    d = failure("let f l = match l with | [] -> 0 | x :: xs -> true")
    assert d.message == "expected int, found bool in the :: branch of match"


def test_wrong_arity_position():
    d = failure("let a = lapMech (1.0, 2.0, 3.0)")
    assert (d.code, d.message, d.span.col) == ("T003", "lapMech takes 2 arguments, found 3", 17)
    assert d.hint == "lapMech : real+ * real -> M[real]"


def test_occurs_check():
    d = failure("let f x = x x")
    assert d.code == "T005"
    assert d.message == "recursive type in the 1st argument of x: 'a would have to equal 'a -> 'b"
    assert (d.span.line, d.span.col) == (1, 13)


def test_applying_a_non_function():
    d = failure("let a = pi 2.0")
    assert (d.code, d.message, d.span.col) == ("T004", "pi is not a function: it has type real", 9)
    d = failure("let f x = x + 1.0\nlet a = f 1.0 2.0")
    assert d.message == ("f is applied to too many arguments: applied to 1 it has type real, "
                         "which is not a function")


def test_val_mismatch():
    text = "val f :: {l :: bool list | =} -> bool\nlet f l = length l"
    d = failure(text)
    assert d.code == "T009"
    assert d.message == ("the definition of f does not fit its val: it has type bool list -> int, "
                         "but the val declares bool list -> bool")
    assert (d.span.line, d.span.col) == (2, 1)
    assert d.notes == ("the val is declared at t.pinf:1:1",)


def test_the_val_types_the_parameters_before_the_body():
    # the parameter has the val's type where the body uses it (as an annotation would)
    d = failure("val f :: {l :: bool list | =} -> int\nlet f l = sum l")
    assert (d.code, d.message) == ("T002", "expected real list, found bool list in the argument "
                                           "of sum")
    assert (d.span.line, d.span.col) == (2, 15)
    # so an unknown operand of arithmetic is not taken to be real when the val says int
    assert schemes("val q :: {x :: int | =} -> {y :: int | =}\nlet q x = x + 1")["q"] == "int -> int"
    assert schemes("let q x = x + 1")["q"] == "real -> real"


def test_val_fits_along_the_numeric_order():
    assert schemes("val f :: {l :: bool list | =} -> real\nlet f l = length l")["f"] == "bool list -> int"


def test_val_without_definition():
    d = failure("val learnBias :: bool list -> real\nlet learnBais l = 1.0")
    assert (d.code, d.message) == ("T008", "val learnBias has no definition: add a let learnBias ...")
    assert d.hint == "did you mean learnBais?"


def test_a_second_val():
    d = failure("val f :: int\nlet f = 1\nval f :: int")
    assert (d.code, d.message, d.span.line) == ("T013", "a second val for f", 3)


def test_duplicate_binders():
    d = failure("let f (x, x) = x")
    assert (d.code, d.message, d.span.col) == ("T007", "x is bound twice", 11)
    assert failure("let f l = match l with | [] -> 0 | x :: x -> 1").code == "T007"


def test_errors_of_several_declarations_in_source_order():
    with pytest.raises(PrivInferError) as exc:
        typecheck_program(parse_program("val g :: int\nlet f = 1 + true\nlet h = f 2\nlet k = zz", "t.pinf"))
    found = [(d.code, d.span.line) for d in exc.value.diagnostics]
    assert found == [("T008", 1), ("T002", 2), ("T001", 4)]  # h is not blamed for f's error
    assert exc.value.source.startswith("val g :: int")


# ---- assertions and indices -------------------------------------------------------------------


def test_assertions_see_run_variables_and_earlier_refinements():
    text = """
let rho = 0.5
val f :: {a :: real | a<1> = a<2>} -> {l :: bool list | adj (l<1>, l<2>) /\\ length l<1> >= 1}
       -> M[DP(rho * a * dist (l<1>, l<2>)), a<1>] {r :: real | =}
let f a l = lapMech (a, count l)
"""
    assert schemes(text)["f"] == "real -> bool list -> M[real]"


@pytest.mark.parametrize("val, code, message", [
    ("val f :: {x :: real | x > 0.0} -> M[real]", "T001", "unbound variable x"),
    ("val f :: {x :: real | x<1> = y<1>} -> M[real]", "T001", "unbound variable y<1>"),
    ("val f :: {x :: real | x<1> + 1.0} -> M[real]", "T002", "expected bool, found real in the assertion"),
    ("val f :: {x :: real | x<1> = x<2> /\\ 1.0} -> M[real]", "T002",
     "expected bool, found real in the right side of /\\"),
    ("val f :: {x :: real | =} -> M[DP(true)] {y :: real | =}", "T002",
     "expected real, found bool in the epsilon of DP"),
    ("val f :: {x :: real | adj (x<1>, x<2>)} -> M[real]", "T002",
     "expected 'a list, found real in the 1st argument of adj"),
])
def test_assertion_errors(val, code, message):
    d = failure(val + "\nlet f x = lapMech (1.0, x)")
    assert (d.code, d.message) == (code, message)


def test_own_variable_hint():
    d = failure("val f :: {x :: real | x > 0.0} -> real\nlet f x = x")
    assert d.hint == "in its own refinement, x is written x<1> or x<2>"


def test_divergence_bounds():
    ok = "val f :: {d :: D[real] | Delta[HD] (d<1>, d<2>) <= 0.5} -> real\nlet f d = mean d"
    assert schemes(ok)["f"] == "D[real] -> real"
    bad = "val f :: {d :: D[real] | Delta[SD] (d<1>, bernoulli 0.5) <= 0.5} -> real\nlet f d = mean d"
    assert failure(bad).message == "expected D[real], found D[bool] in the 2nd distribution of Delta[SD]"


def test_quantifiers_bind_their_variable():
    text = "val f :: {x :: real | forall y : real+. y > 0.0 => x<1> + y > x<2>} -> real\nlet f x = x"
    assert schemes(text)["f"] == "real -> real"


# ---- values given on the command line ----------------------------------------------------


def test_argument_values():
    assert pretty(typecheck_expr(parse_expr("[true; false]"))) == "bool list"
    assert pretty(typecheck_expr(parse_expr("(1, [2.5])"))) == "int * real list"
    assert typecheck_expr(parse_expr("()")) == UNIT


# ---- deep input ---------------------------------------------------------------------------------


def test_long_chains_do_not_exhaust_the_stack():
    text = "let a = " + " + ".join(["1"] * 5000) + "\nlet b = " + " :: ".join(["1.0"] * 5000) + " :: []"
    assert schemes(text) == {"a": "int", "b": "real list"}


# ---- the command ----------------------------------------------------------------------------------


def test_command_prints_each_let(capsys):
    assert main(["typecheck", str(PROGRAMS / "course/group_privacy.pinf")]) == 0
    assert capsys.readouterr().out == ("score : 'a * 'a -> real\n"
                                       "rr : bool list -> real -> M[bool list]\n"
                                       "group : bool list -> real -> M[bool list]\n")


def test_command_reports_errors(tmp_path, capsys):
    path = tmp_path / "bad.pinf"
    path.write_text("let d = beta (1.0, true)\n")
    assert main(["typecheck", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"{path}:1:20: error[T002]: expected real, found bool in the 2nd argument of beta")


def test_command_on_a_missing_file(tmp_path, capsys):
    assert main(["typecheck", str(tmp_path / "missing.pinf")]) == 2
    assert "error[U001]" in capsys.readouterr().err
