"""The evaluator: every expression form (on hand-built ASTs and parsed text), the built-ins,
run-time range errors with code, position and wording, deep recursion, and the examples."""
from __future__ import annotations

import math
import time
from fractions import Fraction as F
from pathlib import Path

import pytest

from verifier.errors import PrivInferError
from verifier.language import ast as A
from verifier.language.parser import parse_expr, parse_file, parse_program
from verifier.language.typecheck import typecheck_program
from verifier.semantics import distributions as D
from verifier.semantics import monad, reals
from verifier.semantics.evaluator import Evaluator, evaluate_expr, evaluate_program, finite_values, run_entry
from verifier.semantics.noise import seeded_source
from verifier.semantics.values import NIL, UNIT, Closure, format_value, list_of

PROGRAMS = Path(__file__).resolve().parent.parent / "benchmarks" / "programs"


def ev(text: str):
    return evaluate_expr(parse_expr(text))


def err(text: str):
    with pytest.raises(PrivInferError) as info:
        ev(text)
    return info.value.first


# ---- hand-built ASTs ------------------------------------------------------------------------


def test_hand_built_let_fun_application_and_arithmetic():
    # let f = fun (x : real) y -> x / y in f 1 4
    f = A.Fun((A.PVar("x", A.TBase("real")), A.PVar("y")), A.BinOp("/", A.Var("x"), A.Var("y")))
    e = A.Let(A.PVar("f"), f, A.App(A.App(A.Var("f"), A.IntLit(1)), A.IntLit(4)))
    assert evaluate_expr(e) == F(1, 4)
    partial = evaluate_expr(A.App(f, A.IntLit(1)))
    assert isinstance(partial, Closure) and len(partial.params) == 1


def test_hand_built_let_rec_match_and_cons():
    # let rec len l = match l with | [] -> 0 | _ :: t -> 1 + len t in len (1 :: [2; 3])
    body = A.Match(A.Var("l"), A.IntLit(0), "_", "t",
                   A.BinOp("+", A.IntLit(1), A.App(A.Var("len"), A.Var("t"))))
    e = A.LetRec("len", (A.PVar("l"),), body,
                 A.App(A.Var("len"), A.Cons(A.IntLit(1), A.ListLit((A.IntLit(2), A.IntLit(3))))))
    assert evaluate_expr(e) == 3


def test_hand_built_tuples_patterns_if_and_logic():
    e = A.Let(A.PTuple((A.PVar("a"), A.PWild(), A.PVar("c"))),
              A.TupleLit((A.BoolLit(True), A.UnitLit(), A.RealLit(F(5, 2), "2.5"))),
              A.If(A.BinOp("&&", A.Var("a"), A.UnOp("not", A.BoolLit(False))),
                   A.UnOp("-", A.Var("c")), A.RealLit(F(0))))
    assert evaluate_expr(e) == F(-5, 2)


def test_hand_built_monadic_forms():
    # infer (mlet x = ran (bernoulli 0.25) in return (not x))
    e = A.Infer(A.MLet(A.PVar("x"), A.Ran(A.App(A.Var("bernoulli"), A.RealLit(F(1, 4)))),
                       A.Return(A.UnOp("not", A.Var("x")))))
    assert evaluate_expr(e) == D.Bernoulli(F(3, 4))
    obs = A.Observe(A.Fun((A.PVar("b"),), A.Return(A.Var("b"))),
                    A.Ran(A.App(A.Var("bernoulli"), A.RealLit(F(1, 4)))))
    assert evaluate_expr(A.Infer(obs)) == D.Bernoulli(F(1))


def test_unknown_node_fails_loudly():
    class Strange(A.Expr):
        span = A.NOWHERE

    with pytest.raises(TypeError, match="no case for Strange"):
        evaluate_expr(Strange())
    with pytest.raises(PrivInferError) as info:
        evaluate_expr(A.SameRuns())
    assert info.value.first.code == "R006"


# ---- expression forms through the parser -------------------------------------------------------


@pytest.mark.parametrize("text, value", [
    ("()", UNIT), ("true", True), ("3", 3), ("2.5", F(5, 2)), ("1e-8", F(1, 10 ** 8)),
    ("[]", NIL), ("[1; 2]", list_of([1, 2])), ("(1, true, ())", (1, True, UNIT)),
    ("1 / 2", F(1, 2)), ("7 - 2 * 3", 1), ("-(2.5)", F(-5, 2)), ("1 + 0.5", F(3, 2)),
    ("1 = 1.0", True), ("[1; 2] = [1; 2]", True), ("(1, [true]) <> (1, [false])", True),
    ("2 < 3 && 3 <= 3 && 4 > 3 && 3 >= 4", False), ("false || not false", True),
    ("true || 1 / 0 = 1", True), ("false && 1 / 0 = 1", False),
    ("let (a, b) = (1, 2) in b - a", 1), ("let f x y = x * y in f 3 4", 12),
    ("let rec fact n = if n = 0 then 1 else n * fact (n - 1) in fact 20", math.factorial(20)),
    ("match [1; 2; 3] with | [] -> 0 | x :: xs -> x + length xs", 3),
    ("(fun (x, y) -> x) (1, 2)", 1), ("0 :: [1]", list_of([0, 1])),
    ("fst (1, 2) + snd (1, 2)", 3), ("abs (-3)", 3), ("min (2, 1.5)", F(3, 2)), ("max (2, 1.5)", 2),
    ("length [true; false]", 2), ("count [true; false; true]", 2), ("sum [1.5; 2; 0.5]", F(4)),
    ("sum []", F(0)), ("exp 0.0", F(1)), ("log 1.0", F(0)), ("sqrt 4.0", F(2)), ("sqrt (9.0 / 4.0)", F(3, 2)),
    ("getParams (beta (2.0, 3.0))", (F(2), F(3))), ("getParams (normal (1.0, 2.0))", (F(1), F(2))),
    ("getParams (dirichlet (1.0, 2.0, 3.0))", (F(1), F(2), F(3))), ("getParams (bernoulli 0.5)", F(1, 2)),
    ("getParams (uniform ())", (F(1), F(1))), ("mean (beta (2.0, 3.0))", F(2, 5)),
    ("variance (normal (1.0, 2.0))", F(2)), ("hellinger (beta (1.0, 1.0), beta (1.0, 1.0))", F(0)),
    ("tv (bernoulli 0.25, bernoulli 0.5)", F(1, 4)),
    ("posteriors (beta (1.0, 1.0), 1)", list_of([D.Beta(1, 2), D.Beta(2, 1)])),
    ("adj ([1; 2; 3], [1; 5; 3])", True), ("dist ([1; 2; 3], [0; 5; 3])", 2),
    ("adjWithin ([1.0; 2.0], [1.0; 2.5], 1.0)", True),
])
def test_expression_forms_and_builtins(text, value):
    result = ev(text)
    assert result == value and type(result) is type(value)


def test_transcendental_builtins_are_exact_reals():
    assert ev("pi") is reals.pi()
    assert ev("sqrt 2.0") is reals.sqrt(2) and float(ev("sqrt 2.0")) == math.sqrt(2)
    assert ev("sqrt 2.0 * sqrt 2.0") == 2 and ev("exp (log 3.0)") == 3
    assert ev("sqrt 2.0 * sqrt 2.0 - 2.0 > 0.0") is False
    assert ev("exp (log 3.0) - 3.0 = 0.0") is True
    assert ev("exp 1000.0 > exp 999.0") is True        # no overflow
    assert ev("exp 1000.0 - 1.0 < exp 1000.0") is True  # decided by exact simplification


def test_sigma_and_mechanism_values():
    assert ev("sigma (0.5, 0.01)") == reals.sqrt(2 * reals.log(F(125))) / F(1, 2)
    assert float(ev("sigma (0.5, 0.01)")) == pytest.approx(math.sqrt(2 * math.log(125)) / 0.5)
    lap = ev("lapMech (0.5, 3)")
    assert isinstance(lap, monad.Laplace) and lap.center == 3 and lap.scale == 2
    gauss = ev("gaussMech (0.5, 0.01, 1.0)")
    assert isinstance(gauss, monad.Gaussian) and gauss.sigma == ev("sigma (0.5, 0.01)")
    # delta >= 1 is trivially private: the noise is capped at sigma (eps, 1)
    capped = ev("gaussMech (0.5, 3.0, 1.0)")
    assert capped.sigma == ev("sigma (0.5, 1.0)")
    # a tiny eps gives a huge but finite scale (no overflow, no division by zero)
    assert ev("sigma (1e-400, 0.5)") > F(10) ** 400
    exp = ev("expMech (2.0, fun (x, r) -> if x = r then 1.0 else 0.0, 1, [0; 1; 2])")
    assert exp.candidates == [0, 1, 2] and exp.scores == [F(0), F(1), F(0)]


def test_expmech_range_comes_from_the_type_checker():
    program = parse_program("""
let score (x, r) = if r = (x, true) then 1.0 else 0.0
val main :: {x :: [3] | =} -> M[DP(1.0)] {r :: [3] * bool | =}
let main x = expMech (1.0, score, x)
""")
    m = Evaluator(program, typecheck_program(program)).call("main", [2])
    assert m.candidates == [(i, b) for i in range(3) for b in (False, True)]
    assert m.scores == [F(int(c == (2, True))) for c in m.candidates]
    with pytest.raises(PrivInferError) as info:  # without types the range is unknown
        Evaluator(program).call("main", [2])
    assert info.value.first.code == "R006" and "candidates" in info.value.first.hint


def test_finite_values_of_types():
    from verifier.language import types as T
    assert finite_values(T.BOOL) == [False, True]
    assert finite_values(T.UNIT) == [UNIT]
    assert finite_values(T.fin(3)) == [0, 1, 2]
    assert finite_values(T.TupleType((T.BOOL, T.fin(2)))) == [(False, 0), (False, 1), (True, 0), (True, 1)]
    assert finite_values(T.REAL) is None


def test_hellinger_mechanisms_release_posteriors():
    m = ev("hellingerMechPure (1.0, beta (1.0, 1.0), [true; true; false])")
    law = monad.infer(m)
    assert set(law.pmf()) == {D.Beta(1 + k, 1 + 3 - k) for k in range(4)}
    assert isinstance(monad.sample(m, seeded_source(1)), D.Beta)
    m = ev("hellingerMech (1.0, 0.001, dirichlet (1.0, 1.0, 1.0), [0; 2; 2])")
    assert len(monad.infer(m).pmf()) == math.comb(5, 2)
    assert isinstance(monad.sample(m, seeded_source(2)), D.Dirichlet)


# ---- run-time errors ---------------------------------------------------------------------------


@pytest.mark.parametrize("text, code, col, wording", [
    ("beta (0.0, 1.0)", "R001", 1, "beta needs positive parameters, got beta (0.0, 1.0): the 1st parameter"),
    ("1 + beta (1.0, -1)", "R001", 5, "got beta (1.0, -1): the 2nd parameter"),
    ("bernoulli 1.5", "R001", 1, "bernoulli needs a probability in [0, 1], got bernoulli 1.5"),
    ("normal (0.0, 0.0)", "R001", 1, "normal needs a positive variance"),
    ("dirichlet (1.0, 0.0)", "R001", 1, "dirichlet needs positive parameters"),
    ("categorical (0.5, 0.6)", "R001", 1, "summing to 1"),
    ("lapMech (0.0, 1.0)", "R001", 1, "lapMech needs eps > 0, got eps = 0.0"),
    ("gaussMech (1.0, 0.0, 0.0)", "R001", 1, "gaussMech needs delta > 0, got delta = 0.0"),
    ("sigma (1.0, 0.0)", "R001", 1, "sigma needs 0 < delta < 1.25"),
    ("sigma (1.0, 1.25)", "R001", 1, "sigma needs 0 < delta < 1.25, got delta = 1.25"),
    ("expMech (-1.0, fun p -> 0.0, 1, [1])", "R001", 1, "expMech needs eps > 0"),
    ("expMech (1.0, fun p -> 0.0, 1, [])", "R001", 1, "at least one candidate"),
    ("log 0.0", "R001", 1, "log needs a positive argument, got log 0.0"),
    ("sqrt (-1.0)", "R001", 1, "sqrt needs a non-negative argument"),
    ("posteriors (beta (1.0, 1.0), -1)", "R001", 1, "natural number"),
    ("let x = 3 in 2 / (x - 3)", "R002", 14, "division by zero: 2 / 0"),
    ("1.5 / 0.0", "R002", 1, "division by zero"),
    ("(fun (x : real+) -> x) 0.0", "R001", 7, "x : real+ needs a positive real, got 0.0"),
    ("(fun (k : [3]) -> k) 3", "R001", 7, "k : [3] needs an integer in 0..2, got 3"),
    ("(fun (p : [0,1]) -> p) 1.5", "R001", 7, "p : [0,1] needs a real in [0, 1]"),
    ("let (a, b) = (1, 2, 3) in a", "R008", 5, "tuple pattern of 2 components"),
    ("mean (dirichlet (1.0, 1.0))", None, None, None),
    ("hellinger (beta (1.0, 1.0), normal (0.0, 1.0))", "R006", 1, "hellinger is not available between beta and normal"),
    ("tv (dirichlet (1.0, 1.0, 1.0), dirichlet (1.0, 2.0, 1.0))", "R006", 1, "tv is not available"),
    ("hellingerMech (1.0, 0.5, normal (0.0, 1.0), [true])", "R006", 1, "beta or dirichlet prior"),
    ("hellingerMech (1.0, 0.5, dirichlet (1.0, 1.0), [0; 2])", "R001", 1, "the observation 2 is not in [2]"),
    ("observe (fun x -> return true) 3", "R006", 32, "the prior of observe must be a distribution"),
])
def test_run_time_errors_have_code_position_and_wording(text, code, col, wording):
    if code is None:  # not an error: the mean of a dirichlet is its mean vector
        assert ev(text) == (F(1, 2), F(1, 2))
        return
    diag = err(text)
    assert (diag.code, diag.span.line, diag.span.col) == (code, 1, col), diag.render()
    assert wording in diag.message


def test_range_error_inside_a_program_points_at_the_call():
    program = parse_program("let f a = beta (a, 1.0)\nlet main a = f (a - 1.0)\n", "p.pinf")
    with pytest.raises(PrivInferError) as info:
        run_entry(program, "main", [F(1)])
    diag = info.value.first
    assert (diag.code, str(diag.span)) == ("R001", "p.pinf:1:11")
    assert diag.span.end_col == 24  # the whole call `beta (a, 1.0)`


# ---- deep recursion over long lists ---------------------------------------------------------------


def test_recursion_over_long_lists_is_linear():
    program = parse_file(PROGRAMS / "course" / "partial_sums.pinf")
    evaluator = Evaluator(program, typecheck_program(program))

    def prefix(n):
        start = time.perf_counter()
        out = evaluator.call("prefixSums", [F(0), list_of([1] * n)])
        assert len(out) == n and out.head == 1 and list(out)[-1] == n
        return time.perf_counter() - start

    prefix(1_000)  # warm up
    # the fastest of several runs: a loaded machine slows some runs, never speeds one up
    small, large = min(prefix(1_000) for _ in range(5)), min(prefix(10_000) for _ in range(2))
    assert large < 35 * small  # 10x the length: linear is 10x the time, quadratic would be 100x


def test_learn_bias_on_ten_thousand_observations():
    program = parse_file(PROGRAMS / "paper" / "beta_output_laplace.pinf")
    evaluator = Evaluator(program, typecheck_program(program))
    data = [i % 3 == 0 for i in range(10_000)]
    m = evaluator.call("learnBias", [list_of(data), monad.Ran(D.make_beta(2, 3))])
    assert monad.infer(m) == D.Beta(2 + 3334, 3 + 6666)


# ---- non-termination ------------------------------------------------------------------------------


def test_a_loop_in_pure_code_stops_at_the_step_budget():
    program = parse_program("let rec f l = f l\nlet main db = f db\n", "loop.pinf")
    evaluator = Evaluator(program, step_budget=5_000)
    with pytest.raises(PrivInferError) as info:
        evaluator.call("main", [list_of([True])])
    diag = info.value.first
    assert diag.code == "R010" and "did not terminate within 5000 steps" in diag.message
    assert str(diag.span).startswith("loop.pinf:1:")


def test_a_monadic_loop_stops_at_the_step_budget_while_sampling_and_inferring():
    program = parse_program("let rec loop x = mlet y = return x in loop y\nlet main b = loop b\n")
    evaluator = Evaluator(program, step_budget=5_000)
    for consume in (monad.infer, lambda m: monad.sample(m, seeded_source(1))):
        m = evaluator.call("main", [True])
        with pytest.raises(PrivInferError) as info, evaluator.terminating():
            consume(m)
        assert info.value.first.code == "R010"


def test_a_recursion_deeper_than_the_limit_is_reported_as_non_termination(monkeypatch):
    import verifier.semantics.evaluator as evaluator_module
    from verifier.semantics.values import deep_recursion
    monkeypatch.setattr(evaluator_module, "deep_recursion", lambda: deep_recursion(20_000))
    program = parse_program("let rec f l = f l\nlet main db = f db\n")
    with pytest.raises(PrivInferError) as info:
        Evaluator(program).call("main", [list_of([True])])
    assert info.value.first.code == "R010" and "did not terminate within" in info.value.first.message


def test_the_budget_counts_each_run_afresh():
    program = parse_program("let rec len l = match l with | [] -> 0 | _ :: xs -> 1 + len xs\n")
    evaluator = Evaluator(program, step_budget=400)
    for _ in range(5):  # each call alone fits the budget; together they would not
        assert evaluator.call("len", [list_of([True] * 20)]) == 20


def test_a_total_budget_bounds_the_runs_together():
    program = parse_program("let rec len l = match l with | [] -> 0 | _ :: xs -> 1 + len xs\n")
    evaluator = Evaluator(program, step_budget=400, total_budget=1_000)
    runs = 0
    with pytest.raises(PrivInferError) as info:
        for _ in range(100):  # each call takes about 160 steps: the total is spent by the 8th
            assert evaluator.call("len", [list_of([True] * 20)]) == 20
            runs += 1
    assert info.value.first.code == "R010" and "1000 steps together" in info.value.first.message
    assert 1_000 // 200 <= runs <= 1_000 // 100 + 1


# ---- the examples ------------------------------------------------------------------------------------


def load(relative: str) -> Evaluator:
    program = parse_file(PROGRAMS / relative)
    return Evaluator(program, typecheck_program(program))


def test_learn_bias_example():
    learn = load("paper/beta_input_expmech.pinf")
    m = learn.call("learnBias", [list_of([True, True, False]), monad.Ran(D.make_beta(2, 3))])
    assert format_value(monad.infer(m)) == "beta(4.0, 4.0)"


def test_add_noise_with_a_seed_is_reproducible_and_well_formed():
    add = load("paper/beta_input_expmech.pinf")
    data = list_of([True, False, True, True])
    first = monad.sample(add.call("addNoise", [data, F(1)]), seeded_source(7))
    again = monad.sample(add.call("addNoise", [data, F(1)]), seeded_source(7))
    assert first == again and len(first) == 4 and all(isinstance(b, bool) for b in first)
    law = monad.infer(add.call("addNoise", [list_of([True]), F(2)])).pmf()
    assert law[list_of([True])] == reals.exp(1) / (1 + reals.exp(1))


@pytest.mark.parametrize("relative, entry, args, check", [
    ("paper/beta_input_expmech.pinf", "main", [list_of([True, False, True]), F(2), F(3), F(1)],
     lambda v: isinstance(v, D.Beta) and v.a + v.b == 8),
    ("paper/beta_output_laplace.pinf", "main", [list_of([True, False, True]), F(2), F(3), F(1)],
     lambda v: isinstance(v, D.Beta) and v.a >= 2 and v.b >= 3),
    ("paper/beta_output_hellinger.pinf", "main", [list_of([True, False, True]), F(1), F(1), F(1)],
     lambda v: v in D.posteriors(D.Beta(1, 1), 3, 10)),
    ("paper/beta_output_sd.pinf", "main", [list_of([True, False, True]), F(1), F(1), F(1)],
     lambda v: v in D.posteriors(D.Beta(1, 1), 3, 10)),
    ("paper/dirichlet_output_hellinger.pinf", "main", [list_of([0, 2, 2]), F(1), F(1), F(1), F(1)],
     lambda v: isinstance(v, D.Dirichlet) and sum(v.alphas) == 6),
    ("paper/normal_input_gauss.pinf", "main", [list_of([F(1), F(2)]), F(0), F(1), F(1), F(1, 2), F(1, 100)],
     lambda v: isinstance(v, D.Normal) and v.var == pytest.approx(1 / 3)),
    ("paper/normal_output_laplace.pinf", "main", [list_of([F(1), F(2)]), F(0), F(1), F(1), F(1)],
     lambda v: isinstance(v, D.Normal) and v.var == F(1, 3)),
    ("course/composition.pinf", "twoCounts", [list_of([True, False]), F(1), F(1)],
     lambda v: isinstance(v, tuple) and len(v) == 2),
    ("course/dummy_sum.pinf", "dummySum", [list_of([F(1), F(2)]), F(1)], lambda v: len(v) == 2),
    ("course/group_privacy.pinf", "group", [list_of([True, False]), F(1)], lambda v: len(v) == 2),
    ("course/laplace_mean.pinf", "noisyMean", [list_of([F(1), F(2)]), F(1)], lambda v: isinstance(v, F)),
    ("course/partial_sums.pinf", "partialSums", [list_of([F(1), F(2)]), F(1)], lambda v: len(v) == 2),
])
def test_main_of_the_example_files_runs(relative, entry, args, check):
    value = monad.sample(load(relative).call(entry, args), seeded_source(11))
    assert check(value), format_value(value)


def test_evaluate_program_gives_top_level_values():
    values = evaluate_program(parse_program("let x = 1\nlet y = x + 1\nlet x = 10\nlet z = x + y\n"))
    assert values == {"x": 10, "y": 2, "z": 12}
