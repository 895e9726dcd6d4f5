"""Samples of mechanisms and of ``ran`` against their laws.

Every check is a statistical test whose tolerance follows from the sample size n and a
false-alarm rate ALPHA = 1e-6 per check (the probability, over the noise, that a correct
sampler fails it); with the ~20 checks below the suite's false-alarm rate is below 3e-5. The
sources are seeded, so each run is reproducible; the rate is over the choice of seed.

* Whole distributions (continuous): the Dvoretzky–Kiefer–Wolfowitz inequality (Massart's
  constant), P(sup |F_n - F| > e) <= 2 exp(-2 n e^2), so e = sqrt(ln(2 / ALPHA) / (2 n)).
* Scales: a Chernoff bound on a mean of n i.i.d. exponentials (|Laplace - centre| / b) or of
  n chi-square(1) variables ((Gaussian - centre)^2 / sigma^2):
  P(mean >= 1 + t) <= exp(-c n (t - ln(1 + t))) with c = 1 (exponential) or 1/2 (chi-square),
  and the lower tail is smaller for the same t; t solves c n (t - ln(1 + t)) = ln(2 / ALPHA).
* Finite laws: Hoeffding per outcome with a union bound over the m outcomes,
  |p^_i - p_i| <= sqrt(ln(2 m / ALPHA) / (2 n)).
"""
from __future__ import annotations

import math
from fractions import Fraction as F

import numpy as np
import pytest
from scipy import stats

from verifier.language.parser import parse_expr, parse_file
from verifier.language.typecheck import typecheck_program
from verifier.semantics import distributions as D
from verifier.semantics import monad, reals
from verifier.semantics.evaluator import Evaluator, evaluate_expr
from verifier.semantics.noise import seeded_source
from verifier.semantics.values import list_of

ALPHA = 1e-6


def dkw_epsilon(n: int) -> float:
    return math.sqrt(math.log(2 / ALPHA) / (2 * n))


def chernoff_t(n: int, c: float) -> float:
    """The t with c n (t - ln(1 + t)) = ln(2 / ALPHA)."""
    target, lo, hi = math.log(2 / ALPHA) / (c * n), 0.0, 10.0
    for _ in range(200):
        mid = (lo + hi) / 2
        if mid - math.log1p(mid) < target:
            lo = mid
        else:
            hi = mid
    return hi


def hoeffding_epsilon(n: int, m: int) -> float:
    return math.sqrt(math.log(2 * m / ALPHA) / (2 * n))


def draws(text: str, n: int, seed: int):
    m = evaluate_expr(parse_expr(text))
    source = seeded_source(seed)
    return [monad.sample(m, source) for _ in range(n)]


def assert_cdf(samples, cdf):
    """sup |F_n - F| within the DKW tolerance (``cdf`` vectorised)."""
    n = len(samples)
    xs = np.sort(np.asarray([float(x) for x in samples]))
    f = cdf(xs)
    steps = np.arange(1, n + 1) / n
    gap = float(max(np.max(np.abs(steps - f)), np.max(np.abs(steps - 1 / n - f))))
    assert gap <= dkw_epsilon(n), f"sup |F_n - F| = {gap:.4f} > {dkw_epsilon(n):.4f}"


def assert_frequencies(samples, law):
    n = len(samples)
    tolerance = hoeffding_epsilon(n, len(law))
    assert set(samples) <= set(law)
    for value, p in law.items():
        freq = sum(1 for s in samples if s == value) / n
        assert abs(freq - float(p)) <= tolerance, f"{value}: {freq:.4f} vs {float(p):.4f} (tol {tolerance:.4f})"


# ---- privacy mechanisms ---------------------------------------------------------------------------


def test_laplace_mechanism_is_centre_plus_laplace_of_scale_one_over_eps():
    n, eps, centre = 4000, 0.5, 3.0
    samples = draws(f"lapMech ({eps}, {centre})", n, seed=1)
    b = 1 / eps
    assert_cdf(samples, stats.laplace(centre, b).cdf)
    scale = sum(abs(x - centre) for x in samples) / n / b  # mean of n Exp(1)
    assert abs(scale - 1) <= chernoff_t(n, 1.0)


def test_gaussian_mechanism_uses_sigma_eps_delta():
    n, eps, delta, centre = 3000, 0.5, 0.01, -1.0
    sigma = math.sqrt(2 * math.log(1.25 / delta)) / eps
    samples = draws(f"gaussMech ({eps}, {delta}, {centre})", n, seed=2)
    assert_cdf(samples, stats.norm(centre, sigma).cdf)
    spread = sum((x - centre) ** 2 for x in samples) / n / sigma ** 2  # mean of n chi-square(1)
    assert abs(spread - 1) <= chernoff_t(n, 0.5)


def test_exponential_mechanism_follows_exp_eps_score_over_two():
    n, eps, scores = 2000, 1.0, [0.0, 1.0, 2.0, 0.5]
    text = (f"expMech ({eps}, fun (x, r) -> if r = 0 then {scores[0]} else if r = 1 then {scores[1]} "
            f"else if r = 2 then {scores[2]} else {scores[3]}, (), [0; 1; 2; 3])")
    weights = [math.exp(eps * s / 2) for s in scores]
    law = {i: w / sum(weights) for i, w in enumerate(weights)}
    exact = monad.infer(evaluate_expr(parse_expr(text))).pmf()
    assert {o: float(p) for o, p in exact.items()} == pytest.approx(law, rel=1e-12)
    assert_frequencies(draws(text, n, seed=3), law)


def test_randomized_response_program_against_its_law():
    program = parse_file("benchmarks/programs/course/group_privacy.pinf")
    evaluator = Evaluator(program, typecheck_program(program))
    m = evaluator.call("rr", [list_of([True, False]), F(1)])
    law = monad.infer(m).pmf()
    q = reals.exp(F(1, 2)) / (1 + reals.exp(F(1, 2)))  # keep the true answer
    assert law[list_of([True, False])] == q * q
    source = seeded_source(4)
    assert_frequencies([monad.sample(m, source) for _ in range(1000)], law)


def test_hellinger_mechanism_samples_follow_its_law():
    m = evaluate_expr(parse_expr("hellingerMechPure (2.0, beta (1.0, 1.0), [true; true; false])"))
    law = monad.infer(m).pmf()
    source = seeded_source(5)
    assert_frequencies([monad.sample(m, source) for _ in range(1000)], law)


# ---- model randomness (ran) and posterior sampling ---------------------------------------------------


def test_posterior_samples_follow_the_inferred_posterior():
    text = "observe (fun r -> mlet z = ran (bernoulli r) in return (z = true)) (ran (beta (2.0, 3.0)))"
    assert monad.infer(evaluate_expr(parse_expr(text))) == D.Beta(3, 3)
    assert_cdf(draws(text, 3000, seed=6), stats.beta(3, 3).cdf)


def test_normal_is_parameterised_by_its_variance():
    assert_cdf(draws("ran (normal (1.0, 4.0))", 3000, seed=7), stats.norm(1.0, 2.0).cdf)


def test_dirichlet_and_categorical_draws():
    samples = draws("ran (dirichlet (1.0, 2.0, 3.0))", 3000, seed=8)
    assert all(len(s) == 3 and abs(sum(s) - 1) < 1e-12 for s in samples)
    assert_cdf([s[2] for s in samples], stats.beta(3, 3).cdf)  # a marginal of Dir(1, 2, 3)
    law = {0: F(1, 2), 1: F(1, 3), 2: F(1, 6)}
    assert_frequencies(draws("ran (categorical (0.5, 1.0 / 3.0, 1.0 / 6.0))", 3000, seed=9), law)
    assert_frequencies(draws("ran (bernoulli 0.25)", 3000, seed=10), {True: 0.25, False: 0.75})


def test_finite_inferred_distributions_sample_by_their_probabilities():
    text = "ran (infer (mlet a = ran (bernoulli 0.5) in mlet b = ran (bernoulli 0.5) in return (a, b)))"
    law = {(a, b): F(1, 4) for a in (False, True) for b in (False, True)}
    assert_frequencies(draws(text, 2000, seed=11), law)
