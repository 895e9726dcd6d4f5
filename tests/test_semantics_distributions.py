"""Symbolic distributions: range checks, moments, distances, posteriors lists."""
from __future__ import annotations

import math
from fractions import Fraction
from fractions import Fraction as F

import pytest
from scipy import integrate, stats

from verifier.errors import PrivInferError
from verifier.language.ast import Span
from verifier.semantics import distributions as D
from verifier.semantics import reals

SPAN = Span("t.pinf", 3, 5, 3, 20)


@pytest.mark.parametrize("make, args, wording", [
    (D.make_beta, (Fraction(0), Fraction(1)), "beta needs positive parameters, got beta (0.0, 1.0): "
                                               "the 1st parameter is not a positive real"),
    (D.make_beta, (Fraction(1), -2), "got beta (1.0, -2): the 2nd parameter"),
    (D.make_beta, (math.inf, 1), "beta needs positive parameters"),
    (D.make_bernoulli, (Fraction(3, 2),), "bernoulli needs a probability in [0, 1], got bernoulli 1.5"),
    (D.make_normal, (0, Fraction(0)), "normal needs a positive variance, got normal (0, 0.0)"),
    (D.make_normal, (math.nan, 1), "normal needs a finite mean"),
    (D.make_dirichlet, ((1, 0, 2),), "dirichlet needs positive parameters, got dirichlet (1, 0, 2): the 2nd"),
    (D.make_dirichlet, ((1,),), "dirichlet needs at least 2 parameters"),
    (D.make_categorical, ((Fraction(1, 2), Fraction(1, 3)),), "summing to 1"),
    (D.make_categorical, ((Fraction(3, 2), Fraction(-1, 2)),), "probabilities in [0, 1]"),
])
def test_range_conditions_are_R001_at_the_call(make, args, wording):
    with pytest.raises(PrivInferError) as info:
        make(*args, span=SPAN)
    diag = info.value.first
    assert diag.code == "R001" and diag.span == SPAN
    assert wording in diag.message


def test_float_probabilities_sum_with_a_tolerance():
    assert D.make_categorical((0.1, 0.2, 0.7)).probs == (0.1, 0.2, 0.7)
    with pytest.raises(PrivInferError):
        D.make_categorical((0.1, 0.2, 0.71))


def test_parameters_are_exact_and_moments_exact():
    b = D.make_beta(2, 3)
    assert b.params() == (Fraction(2), Fraction(3)) and isinstance(b.a, Fraction)
    assert b.mean() == Fraction(2, 5) and b.variance() == Fraction(6, 25 * 6)
    assert D.make_uniform().mean() == Fraction(1, 2) and D.make_uniform().variance() == Fraction(1, 12)
    assert D.make_uniform().as_beta() == D.Beta(1, 1)
    n = D.make_normal(Fraction(1, 2), 3)
    assert (n.mean(), n.variance()) == (Fraction(1, 2), 3)
    d = D.make_dirichlet((1, 2, 3))
    assert d.mean() == (Fraction(1, 6), Fraction(1, 3), Fraction(1, 2))
    assert d.variance()[0] == Fraction(1 * 5, 36 * 7)
    c = D.make_categorical((Fraction(1, 4), Fraction(1, 4), Fraction(1, 2)))
    assert c.mean() == Fraction(5, 4) and c.pmf() == {0: Fraction(1, 4), 1: Fraction(1, 4), 2: Fraction(1, 2)}
    assert D.make_bernoulli(Fraction(1, 3)).variance() == Fraction(2, 9)


def test_finite_distributions_are_canonical():
    f = D.make_finite({2: Fraction(1, 2), 1: Fraction(1, 2), 5: 0})
    assert f.items == ((1, Fraction(1, 2)), (2, Fraction(1, 2)))
    assert f == D.make_finite({1: Fraction(1, 2), 2: Fraction(1, 2)})
    assert f.mean() == Fraction(3, 2) and f.variance() == Fraction(1, 4)
    assert D.make_finite({True: Fraction(1, 3), False: Fraction(2, 3)}) == D.Bernoulli(Fraction(1, 3))
    with pytest.raises(PrivInferError):
        D.make_finite({1: Fraction(1, 2)})


# ---- distances ---------------------------------------------------------------------------

BETA_PAIRS = [(2, 3, 4, 4), (1, 1, 2, 1), (0.5, 0.5, 1.5, 0.5), (10, 20, 11, 19), (100, 50, 101, 50),
              (0.05, 0.05, 1.05, 0.05), (3, 3, 3, 3.5), (2, 5, 5, 2)]


def _integrate(f, lo, hi, points=None):
    return integrate.quad(f, lo, hi, points=points, limit=500, epsabs=1e-13)[0]


@pytest.mark.filterwarnings("ignore::scipy.integrate.IntegrationWarning")
@pytest.mark.parametrize("a1, b1, a2, b2", BETA_PAIRS)
def test_beta_distances_match_numerical_integration(a1, b1, a2, b2):
    p, q = stats.beta(a1, b1), stats.beta(a2, b2)
    tv = 0.5 * _integrate(lambda x: abs(p.pdf(x) - q.pdf(x)), 0, 1)
    bc = _integrate(lambda x: math.sqrt(p.pdf(x) * q.pdf(x)), 0, 1)
    d1, d2 = D.Beta(F(a1), F(b1)), D.Beta(F(a2), F(b2))
    assert float(D.total_variation(d1, d2)) == pytest.approx(tv, abs=1e-8)
    assert float(D.hellinger(d1, d2)) == pytest.approx(math.sqrt(1 - bc), abs=1e-8)
    assert D.hellinger(d1, d2) == D.hellinger(d2, d1)           # exactly (by simplification)
    assert D.total_variation(d1, d2) is D.total_variation(d2, d1)  # one canonical number


def test_beta_hellinger_of_adjacent_posteriors_follows_notes_point_1():
    # BC(Beta(A+1, B), Beta(A, B+1)) = g(A) g(B), g(x) = Gamma(x + 1/2) / (Gamma(x) sqrt x)
    def g(x):
        return math.exp(math.lgamma(x + 0.5) - math.lgamma(x)) / math.sqrt(x)

    for a, b in [(1, 1), (0.5, 0.5), (3.5, 7), (40, 2)]:
        h = D.hellinger(D.Beta(a + 1, b), D.Beta(a, b + 1))
        assert float(h) == pytest.approx(math.sqrt(1 - g(a) * g(b)), rel=1e-12)
    rho = reals.sqrt(1 - reals.pi() / 4)
    assert D.hellinger(D.Beta(F(2), F(1)), D.Beta(F(1), F(2))) == rho    # exactly


@pytest.mark.parametrize("m1, v1, m2, v2", [(0, 1, 1, 1), (0, 1, 0, 2), (0, 1, 3, 0.5), (1, 1e-4, 1.001, 1e-4)])
def test_normal_distances_match_numerical_integration(m1, v1, m2, v2):
    p, q = stats.norm(m1, math.sqrt(v1)), stats.norm(m2, math.sqrt(v2))
    s = math.sqrt(max(v1, v2))
    lo, hi = min(m1, m2) - 40 * s, max(m1, m2) + 40 * s
    tv = 0.5 * _integrate(lambda x: abs(p.pdf(x) - q.pdf(x)), lo, hi, points=[m1, m2])
    d1, d2 = D.Normal(F(m1), F(v1)), D.Normal(F(m2), F(v2))
    assert float(D.total_variation(d1, d2)) == pytest.approx(tv, abs=1e-9)
    closed = 1 - math.sqrt(2 * math.sqrt(v1 * v2) / (v1 + v2)) * math.exp(-(m1 - m2) ** 2 / (4 * (v1 + v2)))
    assert float(D.hellinger(d1, d2)) == pytest.approx(math.sqrt(closed), rel=1e-9)
    # translation, reflection and swap give one canonical number
    assert D.total_variation(d1, d2) is D.total_variation(D.Normal(F(m2) + 5, F(v2)), D.Normal(F(m1) + 5, F(v1)))


def test_dirichlet_hellinger_closed_form_and_beta_agreement():
    # k = 2: a dirichlet is a beta on its first component
    assert D.hellinger(D.Dirichlet((2, 3)), D.Dirichlet((4, 4))) == D.hellinger(D.Beta(2, 3), D.Beta(4, 4))
    assert D.total_variation(D.Dirichlet((2, 3)), D.Dirichlet((4, 4))) is \
        D.total_variation(D.Beta(2, 3), D.Beta(4, 4))
    # moving one observation from category i to j: BC = g(A_i) g(A_j) (NOTES.md point 1)
    a = (2.0, 3.0, 5.0)
    h = D.hellinger(D.Dirichlet((a[0] + 1, a[1], a[2])), D.Dirichlet((a[0], a[1] + 1, a[2])))

    def g(x):
        return math.exp(math.lgamma(x + 0.5) - math.lgamma(x)) / math.sqrt(x)

    assert float(h) == pytest.approx(math.sqrt(1 - g(a[0]) * g(a[1])), rel=1e-12)
    with pytest.raises(D.UnsupportedPair):
        D.total_variation(D.Dirichlet((1, 1, 1)), D.Dirichlet((1, 2, 1)))


def test_finite_distances_are_exact():
    p = D.make_categorical((Fraction(1, 2), Fraction(1, 2), Fraction(0)))
    q = D.make_finite({0: Fraction(1, 4), 2: Fraction(3, 4)})
    assert D.total_variation(p, q) == Fraction(3, 4)
    assert D.hellinger(p, q) == reals.sqrt(1 - reals.sqrt(F(1, 8)))
    assert D.total_variation(p, p) == 0 and D.hellinger(p, p) == 0
    assert D.hellinger(D.make_bernoulli(0), D.make_bernoulli(1)) == 1.0
    with pytest.raises(D.UnsupportedPair):
        D.hellinger(D.Beta(1, 1), D.Normal(0, 1))


def test_densities_are_exact():
    assert D.Beta(F(2), F(3)).density(F(1, 2)) == 12 * F(1, 2) * F(1, 4)
    assert D.Beta(F(1), F(1)).density(F(0)) == 1 and D.Beta(F(2), F(1)).density(F(0)) == 0
    with pytest.raises(D.InfiniteDensity):
        D.Beta(F(1, 2), F(1)).density(F(0))
    assert D.Normal(F(0), F(1)).density(F(0)) == 1 / reals.sqrt(2 * reals.pi())
    assert D.Uniform().density(F(3, 2)) == 0
    assert D.Dirichlet((F(1), F(1), F(1))).density((F(1, 2), F(1, 4), F(1, 4))) == 2
    assert D.Dirichlet((F(1), F(1), F(1))).density((F(1, 2), F(1, 4), F(1, 2))) == 0


# ---- conjugate candidates ---------------------------------------------------------------------


def test_posteriors_of_beta_and_dirichlet():
    assert D.posteriors(D.make_beta(2, 3), 2, 100) == [D.Beta(2, 5), D.Beta(3, 4), D.Beta(4, 3)]
    assert D.posteriors(D.make_uniform(), 1, 100) == [D.Beta(1, 2), D.Beta(2, 1)]
    ds = D.posteriors(D.make_dirichlet((1, 1, 1)), 3, 100)
    assert len(ds) == math.comb(5, 2) == 10 and len(set(ds)) == 10
    assert all(sum(d.alphas) == 6 for d in ds)
    with pytest.raises(PrivInferError) as info:
        D.posteriors(D.make_dirichlet((1, 1, 1, 1)), 600, 1000)
    assert info.value.first.code == "R009" and "36361101" in info.value.first.message
    with pytest.raises(PrivInferError) as info:
        D.posteriors(D.make_normal(0, 1), 3, 100)
    assert info.value.first.code == "R006"
