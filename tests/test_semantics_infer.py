"""Exact inference: conjugate posteriors against their closed forms and against enumeration,
finite models against hand computation, and the R003 / R009 errors."""
from __future__ import annotations

import math
from fractions import Fraction as F
from itertools import product

import pytest

from verifier.errors import PrivInferError
from verifier.language.parser import parse_expr, parse_program
from verifier.language.typecheck import typecheck_program
from verifier.semantics import distributions as D
from verifier.semantics import monad, reals
from verifier.semantics.evaluator import Evaluator, evaluate_expr
from verifier.semantics.values import list_of

MODELS = """
val learnBias :: {l :: bool list | =} -> M[SD] {x :: [0,1] | =} -> M[SD] {x :: [0,1] | =}
let rec learnBias db prior = match db with
  | [] -> prior
  | d :: dbs -> observe (fun r -> mlet z = ran (bernoulli r) in return (d = z))
                        (learnBias dbs prior)

let rec learnP db prior = match db with
  | [] -> prior
  | d :: dbs -> observe (fun p -> mlet z = ran (categorical p) in return (z = d)) (learnP dbs prior)

let rec learnMean db kv prior = match db with
  | [] -> prior
  | d :: dbs -> observe (fun r -> mlet z = ran (normal (r, kv)) in return (d = z))
                        (learnMean dbs kv prior)

let bias db a b = infer (learnBias db (ran (beta (a, b))))
"""


@pytest.fixture(scope="module")
def models() -> Evaluator:
    program = parse_program(MODELS, "models.pinf")
    return Evaluator(program, typecheck_program(program))


def run(text: str, filename: str = "t.pinf"):
    """Evaluate ``main`` of a type-checked program text."""
    program = parse_program(text, filename)
    return Evaluator(program, typecheck_program(program)).values["main"]


def expr(text: str):
    return evaluate_expr(parse_expr(text))


BOOLS = [True, True, False, True, False, False, False, True, True]


# ---- closed forms ----------------------------------------------------------------------------


def test_beta_bernoulli_paper_example(models):
    posterior = models.call("bias", [list_of([True, True, False]), F(2), F(3)])
    assert posterior == D.Beta(4, 4) and isinstance(posterior.a, F)
    assert str(posterior) == "beta(4.0, 4.0)"


@pytest.mark.parametrize("a, b", [(F(1), F(1)), (F(1, 2), F(1, 2)), (F(7, 3), F(5))])
def test_beta_bernoulli_closed_form(models, a, b):
    k, n = sum(BOOLS), len(BOOLS)
    assert models.call("bias", [list_of(BOOLS), a, b]) == D.Beta(a + k, b + n - k)


def test_uniform_prior_is_beta_one_one(models):
    m = models.call("learnBias", [list_of(BOOLS), monad.Ran(D.make_uniform())])
    assert monad.infer(m) == D.Beta(1 + 5, 1 + 4)


def test_dirichlet_categorical_closed_form(models):
    data = [0, 2, 2, 1, 2, 0]
    m = models.call("learnP", [list_of(data), monad.Ran(D.make_dirichlet((F(1), F(1, 2), F(3))))])
    assert monad.infer(m) == D.Dirichlet((F(1) + 2, F(1, 2) + 1, F(3) + 3))


def test_normal_normal_against_the_textbook_formula(models):
    data = [F(3, 2), F(-1, 4), F(2), F(7, 10)]
    h_mean, h_var, kv = F(1, 3), F(2), F(1, 2)
    m = models.call("learnMean", [list_of(data), kv, monad.Ran(D.make_normal(h_mean, h_var))])
    posterior = monad.infer(m)
    precision = 1 / h_var + len(data) / kv
    assert posterior == D.Normal((h_mean / h_var + sum(data) / kv) / precision, 1 / precision)
    assert isinstance(posterior.mu, F)  # exact all the way


# ---- conjugacy against enumeration on a grid prior -----------------------------------------------


def _grid_prior(points, weight):
    weights = {p: weight(p) for p in points}
    total = sum(weights.values())
    return monad.Ran(D.make_finite({p: w / total for p, w in weights.items()}))


def _normalised(weights):
    total = sum(weights.values())
    return {v: w / total for v, w in weights.items()}


def test_beta_bernoulli_conjugacy_agrees_with_exact_enumeration(models):
    a, b = 2, 3
    grid = [F(i, 10) for i in range(1, 10)]
    posterior = monad.infer(models.call("learnBias", [list_of(BOOLS), _grid_prior(grid, lambda t: t ** (a - 1) * (1 - t) ** (b - 1))]))
    conjugate = models.call("bias", [list_of(BOOLS), F(a), F(b)])
    A, B = int(conjugate.a), int(conjugate.b)
    assert posterior.pmf() == _normalised({t: t ** (A - 1) * (1 - t) ** (B - 1) for t in grid})  # exact


def test_dirichlet_categorical_conjugacy_agrees_with_exact_enumeration(models):
    alpha = (2, 1, 3)
    grid = [(F(i, 6), F(j, 6), F(6 - i - j, 6)) for i in range(1, 5) for j in range(1, 6 - i)]
    data = [0, 2, 2, 1, 2]

    def density(alphas):
        return lambda p: math.prod(c ** (a - 1) for c, a in zip(p, alphas))

    posterior = monad.infer(models.call("learnP", [list_of(data), _grid_prior(grid, density(alpha))]))
    conjugate = monad.infer(models.call("learnP", [list_of(data), monad.Ran(D.make_dirichlet(alpha))]))
    assert posterior.pmf() == _normalised({p: density([int(a) for a in conjugate.alphas])(p) for p in grid})


def test_normal_normal_conjugacy_agrees_with_enumeration_under_the_density_reading(models):
    h_mean, h_var, kv = 0.5, 2.0, F(3, 4)
    data = [F(3, 2), F(-1, 4), F(2)]
    grid = [F(i, 4) for i in range(-8, 9)]

    def normal_density(m, v):
        return lambda x: math.exp(-(float(x) - m) ** 2 / (2 * v))

    posterior = monad.infer(models.call("learnMean", [list_of(data), kv,
                                                      _grid_prior(grid, normal_density(h_mean, h_var))]))
    conjugate = monad.infer(models.call("learnMean", [list_of(data), kv, monad.Ran(D.make_normal(F(1, 2), F(2)))]))
    expected = _normalised({x: normal_density(float(conjugate.mu), float(conjugate.var))(x) for x in grid})
    got = posterior.pmf()
    assert set(got) == set(expected)
    for x in grid:
        assert float(got[x]) == pytest.approx(expected[x], rel=1e-9, abs=1e-300)


# ---- finite models by enumeration ---------------------------------------------------------------


def test_finite_model_matches_hand_computation():
    # P(biased | heads) = 0.2 * 0.9 / (0.2 * 0.9 + 0.8 * 0.5) = 9/29, exactly
    posterior = expr("infer (observe (fun c -> mlet z = ran (bernoulli (if c then 0.9 else 0.5)) "
                     "in return (z = true)) (ran (bernoulli 0.2)))")
    assert posterior == D.Bernoulli(F(9, 29))


def test_enumeration_of_a_sum_of_dice_with_conditioning():
    die = "ran (categorical (1.0 / 3.0, 1.0 / 3.0, 1.0 / 3.0))"
    total = expr(f"infer (mlet a = {die} in mlet b = {die} in return (a + b))")
    assert total.pmf() == {0: F(1, 9), 1: F(2, 9), 2: F(3, 9), 3: F(2, 9), 4: F(1, 9)}
    first = expr(f"infer (mlet p = observe (fun p -> return (fst p + snd p >= 3)) "
                 f"(mlet a = {die} in mlet b = {die} in return (a, b)) in return (fst p))")
    # (1,2), (2,1), (2,2) are the pairs with a + b >= 3
    assert first.pmf() == {1: F(1, 3), 2: F(2, 3)}


def test_observe_normalises_locally_as_in_fig_3():
    # observing a point mass does not condition the distribution it was drawn from
    local = expr("infer (mlet c = ran (bernoulli 0.2) in "
                 "observe (fun x -> ran (bernoulli (if x then 0.9 else 0.5))) (return c))")
    assert local == D.Bernoulli(F(1, 5))
    conditioned = expr("infer (observe (fun x -> ran (bernoulli (if x then 0.9 else 0.5))) (ran (bernoulli 0.2)))")
    assert conditioned == D.Bernoulli(F(9, 29))


def test_nested_observes_and_observes_of_inferred_posteriors(models):
    first = models.call("bias", [list_of([True]), F(1), F(1)])
    again = models.call("learnBias", [list_of([False, False]), monad.Ran(first)])
    assert monad.infer(again) == D.Beta(2, 3)
    nested = expr("infer (observe (fun r -> ran (bernoulli r)) "
                  "(observe (fun r -> mlet z = ran (bernoulli r) in return (false = z)) (ran (uniform ()))))")
    assert nested == D.Beta(2, 2)


def test_the_papers_mlet_rec_listing_is_read_as_conditioning():
    # §6.3 writes `mlet rec = learnBias dbs prior in observe (...) rec` (ill-typed in LANGUAGE.md,
    # so evaluated here without the type checker; `rec` is a keyword, hence `rest`)
    program = parse_program("""
let rec learnBias db prior = match db with
  | [] -> prior
  | d :: dbs -> mlet rest = (learnBias dbs prior) in
                observe (fun r -> mlet z = ran (bernoulli r) in return (d = z)) rest
""", "paper.pinf")
    m = Evaluator(program).call("learnBias", [list_of([True, True, False]), monad.Ran(D.make_beta(2, 3))])
    assert monad.infer(m) == D.Beta(4, 4)


def test_likelihood_without_the_parameter_leaves_the_prior_unchanged():
    assert expr("infer (observe (fun r -> ran (bernoulli 0.3)) (ran (beta (2.0, 3.0))))") == D.Beta(2, 3)


def test_predictive_distributions():
    assert expr("infer (mlet p = ran (beta (2.0, 3.0)) in ran (bernoulli p))") == D.Bernoulli(F(2, 5))
    assert expr("infer (mlet p = ran (dirichlet (1.0, 3.0)) in mlet z = ran (categorical p) in return z)") \
        == D.Categorical((F(1, 4), F(3, 4)))
    assert expr("infer (mlet m = ran (normal (1.0, 2.0)) in ran (normal (m, 3.0)))") == D.Normal(1, 5)
    assert expr("infer (mlet m = ran (normal (1.0, 2.0)) in return m)") == D.Normal(1, 2)


def test_expmech_law_is_exact_under_enumeration():
    law = run("""
let score (obs, b) = if b = obs then 1.0 else 0.0
let main = infer (expMech (2.0, score, true))
""")
    e = reals.exp(1)
    assert law.p == e / (e + 1)


# ---- errors -------------------------------------------------------------------------------


def _infer_error(text: str):
    with pytest.raises(PrivInferError) as info:
        expr(text)
    return info.value.first


@pytest.mark.parametrize("text, reason", [
    ("infer (observe (fun r -> mlet z = ran (normal (r, 1.0)) in return (z = 0.5)) (ran (beta (1.0, 1.0))))",
     "a normal likelihood is not conjugate to the prior beta(1.0, 1.0)"),
    ("infer (observe (fun r -> ran (bernoulli (1.0 - r))) (ran (beta (1.0, 1.0))))",
     "the model computes - with the parameter drawn from beta(1.0, 1.0)"),
    ("infer (lapMech (1.0, 3.0))", "lapMech at <input>:1:8 adds continuous noise"),
    ("infer (mlet b = ran (bernoulli 0.5) in ran (beta (if b then 1.0 else 2.0, 1.0)))",
     "a mixture of continuous distributions"),
    ("infer (mlet p = ran (beta (1.0, 1.0)) in return (p * 2.0))", "after drawing from the continuous beta(1.0, 1.0)"),
    ("infer (observe (fun r -> mlet z = ran (bernoulli r) in return (z && true)) (ran (beta (1.0, 1.0))))",
     "not conjugate to the prior beta(1.0, 1.0)"),
])
def test_models_outside_exact_inference_are_R003_with_a_reason(text, reason):
    diag = _infer_error(text)
    assert diag.code == "R003"
    assert diag.message.startswith("cannot infer this model exactly: ")
    assert reason in diag.message
    assert diag.span.line == 1 and diag.span.col == 1  # the infer


def test_an_observation_of_probability_zero_leaves_the_prior_unchanged():
    """The paper's semantics is undefined there; privinfer's observe is total (monad docstring)."""
    assert expr("infer (observe (fun x -> return x) (return false))") == D.Bernoulli(F(0))
    assert expr("infer (observe (fun r -> mlet z = ran (bernoulli r) in return false) "
                "(ran (beta (1.0, 2.0))))") == D.Beta(F(1), F(2))
    # the shape of the paper's learnBias, from a prior it admits: a point mass at 0
    assert expr("infer (observe (fun r -> ran (bernoulli r)) (return 0.0))") == \
        D.make_finite({F(0): F(1)})


def test_observed_category_out_of_range_is_R001():
    diag = _infer_error("infer (observe (fun p -> mlet z = ran (categorical p) in return (z = 3)) "
                        "(ran (dirichlet (1.0, 1.0, 1.0))))")
    assert diag.code == "R001" and "not in [3]" in diag.message


def test_enumeration_too_large_is_R009(monkeypatch):
    program = parse_program("""
let score (obs, b) = if b = obs then 1.0 else 0.0
let rec rr db eps = match db with
  | [] -> return []
  | y :: ys -> mlet z = expMech (eps, score, y, [true; false]) in mlet zs = rr ys eps in return (z :: zs)
""")
    ev = Evaluator(program, typecheck_program(program))
    assert len(monad.infer(ev.call("rr", [list_of([True] * 8), F(1)])).pmf()) == 2 ** 8
    monkeypatch.setattr(monad, "MAX_WORK", 10_000)  # about 2 n 2^n steps: 8 elements fit, 10 do not
    assert len(monad.infer(ev.call("rr", [list_of([True] * 8), F(1)])).pmf()) == 2 ** 8
    with pytest.raises(PrivInferError) as info:
        monad.infer(ev.call("rr", [list_of([True] * 10), F(1)]))
    assert info.value.first.code == "R009" and "too large" in info.value.first.message


def test_sampling_a_model_that_cannot_be_inferred_is_R003():
    m = expr("observe (fun r -> ran (bernoulli (r * r))) (ran (beta (1.0, 1.0)))")
    with pytest.raises(PrivInferError) as info:
        monad.sample(m, None)
    assert info.value.first.code == "R003"


def test_exhaustive_small_finite_models_agree_with_brute_force():
    # every 2-coin model: prior bernoulli p, likelihood bernoulli q_c, observation o
    for p, q1, q0, o in product([F(1, 3), F(1, 2)], [F(1, 5), F(4, 5)], [F(1, 2), F(1, 10)], [True, False]):
        def lit(q):
            return f"({q.numerator}.0 / {q.denominator}.0)"

        text = (f"infer (observe (fun c -> mlet z = ran (bernoulli (if c then {lit(q1)} else {lit(q0)})) "
                f"in return (z = {str(o).lower()})) (ran (bernoulli {lit(p)})))")
        like1, like0 = (q1, q0) if o else (1 - q1, 1 - q0)
        assert expr(text) == D.Bernoulli(p * like1 / (p * like1 + (1 - p) * like0))


def test_get_params_of_a_posterior_without_closed_form_is_a_clear_error():
    """``getParams`` of a posterior whose likelihood is not conjugate: R006 at the call (it was
    an internal error, red-team round 3), as for a finite distribution."""
    program = parse_program("""
let rec fit db prior = match db with
  | [] -> prior
  | d :: dbs -> observe (fun r -> mlet z = ran (bernoulli (r * r)) in return (d = z)) (fit dbs prior)
let main (db : bool list) = fst (getParams (infer (fit db (ran (beta (2.0, 2.0))))))
""", "t.pinf")
    ev = Evaluator(program, typecheck_program(program))
    with pytest.raises(PrivInferError) as info:
        ev.call("main", [list_of([True])])
    assert info.value.first.code == "R006" and "closed form" in info.value.first.message
