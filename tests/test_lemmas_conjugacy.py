"""Conjugate updates against brute-force Bayes, candidate sets, and the conjugacy lemmas."""
from __future__ import annotations

import itertools
import math
from fractions import Fraction as F

import pytest
import sympy as sp
from scipy import integrate, stats

import lemmas
from lemmas import conjugacy as cj, exprs
from lemmas.closed_forms import Beta, Dirichlet, Normal


def test_beta_bernoulli_against_numerical_bayes():
    prior = Beta(F(3, 2), 2)
    data = [True, False, True, True, False, True]
    post = cj.beta_bernoulli(prior, data)
    assert post == Beta(F(3, 2) + 4, 2 + 2)
    c = sum(data)
    unnorm = lambda x: stats.beta.pdf(x, 1.5, 2) * x ** c * (1 - x) ** (len(data) - c)
    z, _ = integrate.quad(unnorm, 0, 1, epsabs=1e-14)
    for x in (0.1, 0.37, 0.5, 0.81):
        assert math.isclose(unnorm(x) / z, stats.beta.pdf(x, float(post.a), float(post.b)),
                            rel_tol=1e-8)


def test_sequential_and_batch_updates_agree():
    prior = Beta(1, 1)
    data = [True, True, False, True]
    seq = prior
    for d in data:
        seq = cj.beta_bernoulli_one(seq, d)
    assert seq == cj.beta_bernoulli(prior, data) == Beta(4, 2)
    nprior = Normal(F(1, 2), 3)
    readings = [F(1), F(-2, 3), F(5, 2)]
    seq_n = nprior
    for x in readings:
        seq_n = cj.normal_normal(seq_n, F(2), [x])
    assert seq_n == cj.normal_normal(nprior, F(2), readings)


def test_normal_normal_matches_the_formula_and_numerical_bayes():
    prior, kv, data = Normal(0, 4), F(1), [F(1), F(2), F(3, 2)]
    post = cj.normal_normal(prior, kv, data)
    prec = F(1, 4) + 3
    assert post.var == 1 / prec and post.mean == (F(9, 2)) / prec
    assert post.mean == cj.posterior_mean_normal(0, 4, 1, 3, F(9, 2))
    unnorm = lambda t: stats.norm.pdf(t, 0, 2) * math.prod(stats.norm.pdf(x, t, 1) for x in map(float, data))
    z, _ = integrate.quad(unnorm, -30, 30, epsabs=1e-14, points=[1.5])
    for t in (-1.0, 0.5, 1.4, 3.0):
        assert math.isclose(unnorm(t) / z, stats.norm.pdf(t, float(post.mean), math.sqrt(post.var)),
                            rel_tol=1e-7)


def test_dirichlet_categorical_density_ratio_is_constant():
    prior = Dirichlet((1, 2, F(1, 2)))
    data = [0, 2, 2, 1, 0, 2]
    post = cj.dirichlet_categorical(prior, data)
    assert post.alphas == (3, 3, F(7, 2))
    counts = [data.count(i) for i in range(3)]
    ratios = []
    for x in ([0.2, 0.3, 0.5], [0.6, 0.1, 0.3], [0.05, 0.9, 0.05]):
        lik = math.prod(xi ** c for xi, c in zip(x, counts))
        ratios.append(stats.dirichlet.pdf(x, [1, 2, 0.5]) * lik
                      / stats.dirichlet.pdf(x, [float(a) for a in post.alphas]))
    assert max(ratios) / min(ratios) - 1 < 1e-9
    with pytest.raises(ValueError):
        cj.dirichlet_categorical(prior, [3])


@pytest.mark.parametrize("n", range(0, 6))
def test_beta_candidates_are_exactly_the_reachable_posteriors(n):
    prior = Beta(F(1, 2), 2)
    cands = cj.posteriors(prior, n)
    assert len(cands) == n + 1 == cj.count_posteriors(prior, n)
    reachable = {cj.beta_bernoulli(prior, list(d)) for d in itertools.product([False, True], repeat=n)}
    assert reachable == set(cands)


@pytest.mark.parametrize("k,n", [(2, 3), (3, 0), (3, 4), (4, 3)])
def test_dirichlet_candidates_are_exactly_the_reachable_posteriors(k, n):
    prior = Dirichlet([1] * k)
    cands = cj.posteriors(prior, n)
    assert len(cands) == math.comb(n + k - 1, k - 1) == cj.count_posteriors(prior, n)
    assert len(set(cands)) == len(cands)
    reachable = {cj.dirichlet_categorical(prior, list(d))
                 for d in itertools.product(range(k), repeat=n)}
    assert reachable == set(cands)


def test_dirichlet_candidate_count_of_notes_section_7():
    assert cj.count_posteriors(Dirichlet([1, 1, 1, 1]), 600) == 36_361_101


def test_conjugacy_lemmas_instantiate():
    lem = lemmas.get("conj.beta_bernoulli.list")
    inst = lem.instantiate({"a": 1, "b": 1, "n": 5, "c": 2})
    assert inst.hypotheses == ()
    assert inst.conclusion == sp.Eq(
        exprs.Posterior(exprs.BetaDist(1, 1), exprs.function("BernoulliCounts")(5, 2)),
        exprs.BetaDist(3, 4))
    n = sp.Symbol("n", integer=True, nonnegative=True)
    c = sp.Symbol("c", integer=True, nonnegative=True)
    a = sp.Symbol("a")
    inst = lem.instantiate({"a": a, "b": 2, "n": n, "c": c})
    assert sp.Gt(a, 0) in inst.hypotheses and sp.Le(c, n) in inst.hypotheses
    k3 = lemmas.get("conj.dirichlet_categorical.list", k=3)
    assert k3.dimension == 3 and len(k3.parameters) == 6


def test_invalid_observations_are_rejected():
    with pytest.raises(ValueError):
        cj.beta_bernoulli(Beta(1, 1), [2])
    with pytest.raises(ValueError):
        cj.posteriors(Beta(1, 1), -1)
    with pytest.raises(TypeError):
        cj.posteriors(Normal(0, 1), 3)
