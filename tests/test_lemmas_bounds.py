"""Every sensitivity bound of the library against exhaustive evaluation on a grid.

All comparisons use certified Arb enclosures (``not_above``: the bound is not refuted by the
balls). The false Lemma 6.1 (any positive prior) is refuted with certified numbers.
"""
from __future__ import annotations

import itertools
from fractions import Fraction as F

import flint
import pytest

from lemmas import closed_forms as cf, conjugacy as cj, refutations as rf
from lemmas.closed_forms import Beta, Dirichlet

arb = flint.arb
PREC = 160


@pytest.fixture(autouse=True)
def _working_precision():
    old = flint.ctx.prec
    flint.ctx.prec = PREC
    yield
    flint.ctx.prec = old


def not_above(lhs, rhs) -> bool:
    return not (lhs > rhs) and bool(lhs <= rhs + arb("1e-35"))


SMALL = [F(1, 20), F(1, 2), F(9, 10)]
LARGE = [F(1), F(3, 2), F(2), F(5), F(17, 2)]


def rho():
    return (1 - arb.pi() / 4).sqrt()


def zeta():
    return (2 * (1 - arb.pi() / 4)).sqrt()


def adjacent_pairs(n):
    """All (c1, c2) count pairs of adjacent bool lists of length n."""
    return [(c1, c2) for c1 in range(n + 1) for c2 in range(n + 1) if abs(c1 - c2) <= 1]


# ---- g --------------------------------------------------------------------------------------

def test_g_is_increasing_and_below_one_on_a_grid():
    xs = sorted({F(1, 1000) * (F(3, 2) ** i) for i in range(0, 45)})
    gs = [cf.g_arb(x, PREC) for x in xs]
    for u, v in zip(gs, gs[1:]):
        assert u < v
    assert all(g > 0 and g < 1 for g in gs)
    assert (cf.g_arb(1, PREC) ** 2).overlaps(arb.pi() / 4)


# ---- Beta (Lemmas 6.1, 6.2 corrected) ----------------------------------------------------------

@pytest.mark.parametrize("a,b", list(itertools.product(SMALL + LARGE[:3], repeat=2)))
def test_beta_general_bound_and_its_closed_form(a, b):
    """H(p1, p2) <= sqrt(1 - g(a) g(b)) for every adjacent pair, with equality at count 0."""
    bound = (1 - cf.g_arb(a, PREC) * cf.g_arb(b, PREC)).sqrt()
    n = 4
    for c1, c2 in adjacent_pairs(n):
        h = cf.hellinger(Beta(a + c1, b + n - c1), Beta(a + c2, b + n - c2), PREC)
        assert not_above(h, bound)
        if c1 != c2:
            A, B = a + min(c1, c2), b + n - max(c1, c2)
            exact = (1 - cf.g_arb(A, PREC) * cf.g_arb(B, PREC)).sqrt()
            assert abs(h - exact) < arb("1e-35")
    # the bound is attained when the differing observation is the first of n = 1
    h1 = cf.hellinger(Beta(a + 1, b), Beta(a, b + 1), PREC)
    assert abs(h1 - bound) < arb("1e-35")


@pytest.mark.parametrize("a,b", list(itertools.product(LARGE, repeat=2)))
def test_beta_rho_and_zeta_for_priors_at_least_one(a, b):
    for n in range(1, 6):
        for c1, c2 in adjacent_pairs(n):
            p1, p2 = Beta(a + c1, b + n - c1), Beta(a + c2, b + n - c2)
            assert not_above(cf.hellinger(p1, p2, PREC), rho())
            t = cf.tv(p1, p2, PREC)
            assert not_above(t, zeta())
            assert not_above(t, cf.hellinger(p1, p2, PREC) * arb(2).sqrt())


def test_beta_rho_is_attained_by_the_uniform_prior_over_all_adjacent_lists():
    prior = Beta(1, 1)
    worst = arb(0)
    for n in range(1, 6):
        for l1 in itertools.product([False, True], repeat=n):
            for i in range(n):
                l2 = list(l1)
                l2[i] = not l2[i]
                h = cf.hellinger(cj.beta_bernoulli(prior, list(l1)), cj.beta_bernoulli(prior, l2),
                                 PREC)
                assert not_above(h, rho())
                worst = worst.max(h)
    assert worst.overlaps(rho())


def test_lemma_6_1_as_stated_is_refuted_at_beta_005():
    """The paper's Lemma 6.1 for any a, b > 0 is false: at Beta(0.05, 0.05), H > rho."""
    r = rf.refute_lemma_6_1(F("0.05"), F("0.05"), PREC)
    assert r.refuted
    assert r.hellinger > arb("0.9285") and r.hellinger < arb("0.9286")
    assert r.rho > arb("0.4632") and r.rho < arb("0.4633")
    # Jeffreys prior (NOTES.md §1): 0.603 > rho as well; the uniform prior is the boundary
    assert rf.refute_lemma_6_1(F(1, 2), F(1, 2)).refuted
    assert not rf.refute_lemma_6_1(1, 1).refuted
    # and the attempted proof artifact does not re-check
    result = rf.check_lemma_6_1_as_stated()
    assert not result.ok and "does not follow" in result.reason


def test_exponential_mechanism_of_section_6_3_leaks_more_than_claimed_with_a_small_prior():
    """NOTES.md §1: prior Beta(0.05, 0.05), n = 5, eps = 1/rho claims loss 1; exactly ~1.023."""
    a = b = F(1, 20)
    n = 5
    eps = 1 / rho()
    cands = cj.posteriors(Beta(a, b), n)

    def probs(c):
        post = Beta(a + c, b + n - c)
        w = [(-eps * cf.hellinger(post, r, PREC) / 2).exp() for r in cands]
        z = sum(w, arb(0))
        return [x / z for x in w]

    loss = arb(0)
    for c in range(n):
        p, q = probs(c), probs(c + 1)
        for x, y in zip(p, q):
            loss = loss.max(abs((x / y).log()))
    assert loss > 1                          # the claimed (1, 0)-DP guarantee is violated
    assert loss > arb("1.02") and loss < arb("1.03")


# ---- Dirichlet (Lemma 6.3 corrected) ------------------------------------------------------

def moves(counts):
    k = len(counts)
    for i, j in itertools.permutations(range(k), 2):
        if counts[j] > 0:
            c = list(counts)
            c[j] -= 1
            c[i] += 1
            yield tuple(c)


@pytest.mark.parametrize("alphas", [(1, 1, 1), (1, 2, F(3, 2)), (3, 1, 5)])
def test_dirichlet_rho_for_priors_at_least_one(alphas):
    a0 = min(alphas)
    bound = (1 - cf.g_arb(a0, PREC) ** 2).sqrt()
    for n in range(1, 5):
        for counts in cj.compositions(n, 3):
            p = Dirichlet([x + c for x, c in zip(alphas, counts)])
            for other in moves(counts):
                q = Dirichlet([x + c for x, c in zip(alphas, other)])
                h = cf.hellinger(p, q, PREC)
                assert not_above(h, bound) and not_above(h, rho())


def test_dirichlet_small_prior_exceeds_rho():
    p, q = Dirichlet((F(21, 20), F(1, 20), F(1, 20))), Dirichlet((F(1, 20), F(21, 20), F(1, 20)))
    assert cf.hellinger(p, q, PREC) > rho()


# ---- Normal posterior mean (NOTES.md §5) -----------------------------------------------------

def test_normal_posterior_mean_sensitivity_on_a_grid():
    for v, kv in itertools.product([F(1, 2), F(1), F(4)], [F(1, 3), F(1), F(5)]):
        for n in range(1, 6):
            bound = v / (kv + n * v)
            assert bound <= v / (kv + v)
            for s1 in [F(-2), F(0), F(7, 3)]:
                for ds in [F(-1), F(-1, 2), F(0), F(1, 3), F(1)]:
                    m1 = cj.posterior_mean_normal(F(1, 2), v, kv, n, s1)
                    m2 = cj.posterior_mean_normal(F(1, 2), v, kv, n, s1 + ds)
                    assert abs(m1 - m2) == abs(ds) * bound   # exact, and tight at |ds| = 1


# ---- list statistics --------------------------------------------------------------------------

def test_count_length_sum_sensitivities_exhaustively():
    for n in range(0, 5):
        for l1 in itertools.product([False, True], repeat=n):
            for i in range(n):
                for new in (False, True):
                    l2 = list(l1)
                    l2[i] = new
                    assert abs(sum(l1) - sum(l2)) <= 1 and len(l1) == len(l2)
    values = [F(-1), F(0), F(1, 2), F(2)]
    for n in range(1, 4):
        for l1 in itertools.product(values, repeat=n):
            for i in range(n):
                for new in values:
                    l2 = list(l1)
                    l2[i] = new
                    c = abs(l1[i] - new)
                    assert abs(sum(l1) - sum(l2)) <= c


def test_category_counts_of_adjacent_lists_move_by_at_most_two():
    for l1 in itertools.product(range(3), repeat=3):
        for i in range(3):
            for new in range(3):
                l2 = list(l1)
                l2[i] = new
                c1 = [l1.count(j) for j in range(3)]
                c2 = [l2.count(j) for j in range(3)]
                assert sum(abs(x - y) for x, y in zip(c1, c2)) <= 2
                assert sum(c1) == sum(c2) == 3
