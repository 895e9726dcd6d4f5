"""Tests of verifier/semantics/hellinger_mech.py.

Reference implementations here are deliberately naive: direct Dirichlet Bhattacharyya
coefficients from ``ln B`` (no tables, no closed forms), brute-force enumeration of every data
set's count vector, mpmath at 50 digits. Sampling tests use Pearson chi-square with a
false-alarm rate of ``ALPHA = 1e-6`` (with a fixed seed they are deterministic).
"""

from __future__ import annotations

import itertools
import math

import mpmath
import numpy as np
import pytest
from scipy import integrate, special, stats

from verifier.semantics import hellinger_mech as hm
from verifier.semantics.hellinger_mech import (HellingerMechanism, candidates_count,
                                               dirichlet_hellinger, ln_g, local_sensitivity,
                                               neighbour_hellinger, smooth_gamma,
                                               smooth_sensitivity)
from verifier.semantics.noise import seeded_source

ALPHA = 1e-6


# ---------------------------------------------------------------------------------------
# naive references
# ---------------------------------------------------------------------------------------

def count_vectors(n: int, k: int):
    """Every count vector of length k summing to n (lexicographic)."""
    if k == 1:
        yield (n,)
        return
    for a in range(n + 1):
        for rest in count_vectors(n - a, k - 1):
            yield (a, *rest)


def ls_bruteforce(alpha, c) -> float:
    """max over every neighbour (one count moved i -> j) of the direct Dirichlet H."""
    a = np.asarray(alpha, dtype=float)
    best = 0.0
    for i, j in itertools.permutations(range(len(c)), 2):
        if c[i] < 1:
            continue
        c2 = list(c)
        c2[i] -= 1
        c2[j] += 1
        best = max(best, dirichlet_hellinger(a + c, a + np.array(c2)))
    return best


def ss_bruteforce(alpha, c, eps, delta=None, pure=False) -> float:
    """max over every count vector c' of F(LS(c'), d(c, c')), d = L1 / 2."""
    n, k = sum(c), len(c)
    gamma = 1.0 if pure else smooth_gamma(eps, delta, math.comb(n + k - 1, k - 1))
    best = 0.0
    for c2 in count_vectors(n, k):
        d = sum(abs(x - y) for x, y in zip(c, c2)) // 2
        ls = ls_bruteforce(alpha, c2)
        best = max(best, 1 / (1 / ls + d) if pure else ls * math.exp(-gamma * d))
    return best


def exact_law(alpha, c, eps, delta=None, pure=False):
    """Candidates and probabilities from the direct formulas only."""
    cands = list(count_vectors(sum(c), len(c)))
    s = ss_bruteforce(alpha, c, eps, delta, pure)
    a = np.asarray(alpha, dtype=float)
    h = np.array([dirichlet_hellinger(a + c, a + np.array(m)) for m in cands])
    w = np.exp(-eps * h / ((4 if pure else 2) * s))
    return cands, w / w.sum(), h


def chi_square_pvalue(observed, probs) -> float:
    observed = np.asarray(observed, dtype=float)
    expected = np.asarray(probs, dtype=float) * observed.sum()
    big = expected >= 5
    obs = np.append(observed[big], observed[~big].sum())
    exp = np.append(expected[big], expected[~big].sum())
    if exp[-1] == 0:
        obs, exp = obs[:-1], exp[:-1]
    return float(stats.chi2.sf(((obs - exp) ** 2 / exp).sum(), len(obs) - 1))


# ---------------------------------------------------------------------------------------
# ln g and the closed forms
# ---------------------------------------------------------------------------------------

def test_ln_g_against_mpmath():
    mpmath.mp.dps = 50
    xs = np.concatenate([np.logspace(-3, 6, 200), [0.5, 1.0, 11.999, 12.0, 12.001]])
    got = ln_g(xs)
    for x, v in zip(xs, got):
        xm = mpmath.mpf(float(x))
        ref = mpmath.loggamma(xm + 0.5) - mpmath.loggamma(xm) - mpmath.log(xm) / 2
        assert abs(v - float(ref)) <= 1e-12 * abs(float(ref)), (x, v, ref)
    assert math.isclose(math.exp(ln_g(np.array([1.0]))[0]), math.sqrt(math.pi) / 2,
                        rel_tol=1e-14)


def test_ln_g_increasing_and_concave():
    """The two facts the smooth-sensitivity algorithm rests on (proved in docs/noise.md)."""
    x = np.logspace(-3, 5, 4000)
    v = ln_g(x)
    assert (np.diff(v) > 0).all()
    # concavity on the grid: slopes decrease
    slopes = np.diff(v) / np.diff(x)
    assert (np.diff(slopes) <= 1e-12 * np.abs(slopes[1:])).all()
    assert (v < 0).all()


@pytest.mark.parametrize("alpha,counts", [
    ((1.0, 1.0), (3, 4)), ((0.05, 0.05), (2, 3)), ((0.5, 2.0, 7.5), (0, 5, 1)),
    ((1.0, 1.0, 1.0, 1.0), (10, 0, 3, 200)), ((3.3, 0.2, 1.0), (1, 1, 1)),
])
def test_neighbour_closed_form_matches_direct_bc(alpha, counts):
    """BC after moving one count i -> j is g(A_i - 1) g(A_j): versus direct ln B and mpmath."""
    mpmath.mp.dps = 50
    a = np.asarray(alpha)
    for i, j in itertools.permutations(range(len(a)), 2):
        if counts[i] < 1:
            continue
        c2 = list(counts)
        c2[i] -= 1
        c2[j] += 1
        closed = neighbour_hellinger(a, counts, i, j)
        direct = dirichlet_hellinger(a + counts, a + np.array(c2))
        assert math.isclose(closed, direct, rel_tol=1e-9, abs_tol=1e-12)

        def lnb(v):
            return sum(mpmath.loggamma(mpmath.mpf(x)) for x in v) - mpmath.loggamma(sum(
                mpmath.mpf(x) for x in v))
        p = [mpmath.mpf(float(x)) for x in a + counts]
        q = [mpmath.mpf(float(x)) for x in a + np.array(c2)]
        lbc = lnb([(x + y) / 2 for x, y in zip(p, q)]) - lnb(p) / 2 - lnb(q) / 2
        ref = float(mpmath.sqrt(-mpmath.expm1(lbc)))
        assert math.isclose(closed, ref, rel_tol=1e-11)


def test_beta_local_sensitivity_matches_notes():
    """NOTES.md §1: Beta(0.5, 0.5) prior, the first observation: H = 0.603 > rho = 0.463."""
    assert local_sensitivity((0.5, 0.5), (1, 0)) == pytest.approx(
        math.sqrt(1 - math.exp(ln_g(np.array([0.5, 0.5])).sum())))
    assert local_sensitivity((0.5, 0.5), (1, 0)) == pytest.approx(0.603, abs=5e-4)
    assert local_sensitivity((1, 1), (0, 1)) == pytest.approx(math.sqrt(1 - math.pi / 4))


@pytest.mark.parametrize("seed", range(6))
def test_local_sensitivity_closed_form_vs_bruteforce(seed):
    rng = np.random.default_rng(seed)
    for k in (2, 3, 4, 5):
        for _ in range(10):
            alpha = rng.choice([0.05, 0.3, 1.0, 2.5, 40.0], size=k)
            c = tuple(int(x) for x in rng.multinomial(int(rng.integers(0, 30)),
                                                       np.ones(k) / k))
            assert local_sensitivity(alpha, c) == pytest.approx(ls_bruteforce(alpha, c),
                                                                rel=1e-9, abs=1e-13)


# ---------------------------------------------------------------------------------------
# smooth sensitivity
# ---------------------------------------------------------------------------------------

def _small_cases():
    rng = np.random.default_rng(2024)
    cases = [((1.0, 1.0), (6, 6)), ((1.0, 1.0), (12, 0)), ((0.05, 0.05), (0, 5)),
             ((1, 1, 1), (4, 4, 4)), ((1, 1, 1), (0, 0, 12)), ((0.3, 5.0, 1.0), (0, 7, 2)),
             ((1, 1, 1, 1), (2, 2, 2, 2)), ((0.2, 1, 3, 1), (0, 0, 6, 1))]
    for k, nmax in ((2, 12), (3, 12), (4, 7)):
        for _ in range(8):
            n = int(rng.integers(1, nmax + 1))
            alpha = tuple(rng.choice([0.05, 0.3, 0.5, 1.0, 2.0, 7.5], size=k))
            c = tuple(int(x) for x in rng.multinomial(n, rng.dirichlet(np.ones(k) * 0.6)))
            cases.append((alpha, c))
    return cases


@pytest.mark.parametrize("alpha,counts", _small_cases())
def test_smooth_sensitivity_vs_bruteforce(alpha, counts):
    for eps in (0.1, 1.0, 4.0):
        for delta in (1e-8, 1e-3):
            assert smooth_sensitivity(alpha, counts, eps, delta) == pytest.approx(
                ss_bruteforce(alpha, counts, eps, delta), rel=1e-9)
        assert smooth_sensitivity(alpha, counts, eps, pure=True) == pytest.approx(
            ss_bruteforce(alpha, counts, eps, pure=True), rel=1e-9)


def test_smooth_gamma_formula():
    eps, delta, r = 1.0, 1e-8, 36_361_101
    assert smooth_gamma(eps, delta, r) == pytest.approx(
        math.log(1 - eps / (2 * math.log(delta / (2 * r)))), rel=1e-14)
    m = HellingerMechanism((1, 1, 1, 1), (150, 150, 150, 150), eps, delta)
    assert m.gamma == pytest.approx(smooth_gamma(eps, delta, r))
    assert HellingerMechanism((1, 1), (3, 4), 1.0, pure=True).gamma == 1.0


def test_smooth_at_least_local():
    for alpha, c in _small_cases()[:10]:
        ls = local_sensitivity(alpha, c)
        assert smooth_sensitivity(alpha, c, 1.0, 1e-6) >= ls * (1 - 1e-12)
        assert smooth_sensitivity(alpha, c, 1.0, pure=True) >= ls * (1 - 1e-12)


# ---------------------------------------------------------------------------------------
# candidates
# ---------------------------------------------------------------------------------------

def test_candidate_counts():
    assert candidates_count(600, 4) == 36_361_101
    assert candidates_count(10_000, 2) == 10_001
    assert candidates_count(600, 3) == 180_901
    m = HellingerMechanism((1, 1, 1, 1), (150, 150, 150, 150), 1.0, 1e-8)
    assert m.candidates_count == 36_361_101
    assert sum(ch.size for ch in m.chunks()) == 36_361_101


@pytest.mark.parametrize("k,n", [(2, 7), (3, 6), (4, 5), (5, 4)])
def test_enumeration_is_a_bijection(k, n):
    m = HellingerMechanism(np.ones(k), [n] + [0] * (k - 1), 1.0, 1e-6)
    allc = np.concatenate([ch.counts() for ch in m.chunks()])
    assert allc.shape == (math.comb(n + k - 1, k - 1), k)
    assert (allc.sum(axis=1) == n).all() and (allc >= 0).all()
    assert len({tuple(r) for r in allc}) == allc.shape[0]
    for idx, row in enumerate(allc):
        assert m.candidate(idx) == tuple(int(x) for x in row)
    for ch in m.chunks():
        pos = np.arange(ch.size)
        np.testing.assert_array_equal(m._counts_at(ch, pos), ch.counts())


def test_small_chunks_give_the_same_law(monkeypatch):
    """Splitting triangles into several chunks and skipping the cached master triangle."""
    ref = HellingerMechanism((1, 2, 0.5), (5, 3, 2), 1.0, 1e-6).probabilities()
    monkeypatch.setattr(hm, "_CHUNK_MAX", 7)
    monkeypatch.setattr(hm, "_MASTER_MAX", 0)
    m = HellingerMechanism((1, 2, 0.5), (5, 3, 2), 1.0, 1e-6)
    assert len(m.chunks()) > 1
    np.testing.assert_allclose(m.probabilities(), ref, rtol=1e-12)
    x = m.sample(2000, np.random.default_rng(0))
    assert (x.sum(axis=1) == 10).all()


# ---------------------------------------------------------------------------------------
# the law of the mechanism
# ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("alpha,counts,pure", [
    ((1, 1, 1), (3, 1, 1), False), ((0.5, 2.0, 1.0), (0, 4, 1), True),
    ((1, 1, 1, 1), (2, 1, 0, 1), False), ((1.0, 1.0), (7, 2), True),
])
def test_probabilities_match_direct_formulas(alpha, counts, pure):
    eps, delta = 1.0, None if pure else 1e-6
    m = HellingerMechanism(alpha, counts, eps, delta, pure)
    cands, p_ref, h_ref = exact_law(alpha, counts, eps, delta, pure)
    allc = [tuple(r) for ch in m.chunks() for r in ch.counts()]
    order = [allc.index(cnd) for cnd in cands]
    np.testing.assert_allclose(m.probabilities()[order], p_ref, rtol=1e-9)
    assert m.expected_hellinger() == pytest.approx(float(np.dot(p_ref, h_ref)), rel=1e-9)


@pytest.mark.parametrize("alpha,counts,pure", [((1, 1, 1), (3, 1, 1), False),
                                               ((0.5, 2.0, 1.0), (0, 4, 1), True)])
def test_sample_frequencies(alpha, counts, pure):
    eps, delta = 2.0, None if pure else 1e-6
    m = HellingerMechanism(alpha, counts, eps, delta, pure)
    cands, p_ref, _ = exact_law(alpha, counts, eps, delta, pure)
    draws = m.sample(100_000, np.random.default_rng(7))
    index = {c: i for i, c in enumerate(cands)}
    observed = np.bincount([index[tuple(r)] for r in draws], minlength=len(cands))
    assert chi_square_pvalue(observed, p_ref) > ALPHA


def test_release_frequencies():
    m = HellingerMechanism((1, 1), (3, 1), 3.0, 1e-6)
    cands, p_ref, _ = exact_law((1, 1), (3, 1), 3.0, 1e-6)
    src = seeded_source(99)
    index = {c: i for i, c in enumerate(cands)}
    observed = np.bincount([index[m.release(src)] for _ in range(2_000)],
                           minlength=len(cands))
    assert chi_square_pvalue(observed, p_ref) > ALPHA


def test_release_with_secure_source_is_a_candidate():
    from verifier.semantics.noise import secure_source
    m = HellingerMechanism((1, 1, 1), (10, 5, 5), 1.0, 1e-8)
    r = m.release(secure_source())
    assert len(r) == 3 and sum(r) == 20 and min(r) >= 0


def test_empty_data_set():
    m = HellingerMechanism((1, 1, 1), (0, 0, 0), 1.0, 1e-6)
    assert m.candidates_count == 1
    assert m.local_sensitivity() == 0.0 and m.smooth_sensitivity() == 0.0
    assert m.release(seeded_source(0)) == (0, 0, 0)
    assert (m.sample(3, np.random.default_rng(0)) == 0).all()
    assert m.expected_hellinger() == 0.0


# ---------------------------------------------------------------------------------------
# the sampler that does not enumerate: one score function, the near set, the bound
# ---------------------------------------------------------------------------------------

SAMPLER_CASES = [((1.0, 1.0), (20, 10)), ((1, 2, 0.5), (5, 12, 3)), ((1, 1, 1, 1), (3, 3, 3, 3)),
                 ((0.3, 1, 2, 1, 1), (0, 4, 2, 2, 1)), ((1,) * 6, (2, 1, 1, 1, 1, 1))]


def _enumerated(m):
    """Every candidate and its log-weight, from the enumeration (the reference)."""
    allc = np.concatenate([ch.counts() for ch in m.chunks()])
    lw = np.concatenate([w for _, w in m.log_weights()])
    return allc, lw


@pytest.mark.parametrize("alpha,counts", SAMPLER_CASES)
@pytest.mark.parametrize("small_chunks", [False, True])
def test_one_score_function_bit_for_bit(alpha, counts, small_chunks, monkeypatch):
    """The sampler's and hellinger()'s scores are the enumeration's, to the last bit (with the
    cached triangle and without it)."""
    if small_chunks:
        monkeypatch.setattr(hm, "_CHUNK_MAX", 5)
        monkeypatch.setattr(hm, "_MASTER_MAX", 0)
    m = HellingerMechanism(alpha, counts, 1.0, 1e-6)
    allc, lw = _enumerated(m)
    assert np.array_equal(m._lw_from_log_bc(m._log_bc_rows(allc)), lw)
    h = m.hellinger(allc)
    assert np.array_equal(np.multiply(h, -m.beta), lw) and (np.signbit(h) == 0).all()


@pytest.mark.parametrize("alpha,counts", SAMPLER_CASES)
def test_near_set_is_the_enumeration_filtered(alpha, counts):
    m = HellingerMechanism(alpha, counts, 1.0, 1e-6)
    allc, _ = _enumerated(m)
    lbc = m._log_bc_rows(allc)
    for l0 in (-math.inf, -8.0, -2.0, -1.0, -0.3, -0.05, float(np.sort(lbc)[-2]), 0.0):
        got, got_lbc = m.near_set(l0)
        want = allc[lbc > l0]
        assert got.shape == want.shape, l0
        order_got = np.lexsort(got.T[::-1])
        order_want = np.lexsort(want.T[::-1])
        np.testing.assert_array_equal(got[order_got], want[order_want])
        assert np.array_equal(got_lbc[order_got], lbc[lbc > l0][order_want])


@pytest.mark.parametrize("tau", [0.5, 1.5, 3.0, 8.0])
@pytest.mark.parametrize("alpha,counts", SAMPLER_CASES[1:])
def test_sampler_plan_bounds_every_far_candidate(alpha, counts, tau, monkeypatch):
    monkeypatch.setattr(hm, "_ENUMERATE_ALL", 0)
    monkeypatch.setattr(hm, "_TAU", tau)
    for pure in (False, True):
        m = HellingerMechanism(alpha, counts, 1.0, None if pure else 1e-6, pure=pure)
        allc, lw = _enumerated(m)
        plan = m.sampler_plan()
        near = m._log_bc_rows(allc) > plan.l0
        assert near.sum() == plan.near_counts.shape[0]
        assert (lw[~near] <= plan.lw0).all()
        assert plan.z_near == pytest.approx(float(np.exp(lw[near]).sum()), rel=1e-12)
        far_mass = m.candidates_count * math.exp(plan.lw0) if (~near).any() else 0.0
        assert plan.total == pytest.approx(plan.z_near + far_mass, rel=1e-12)


@pytest.mark.parametrize("k,n", [(2, 9), (3, 6), (5, 3), (4, 1)])
def test_uniform_candidates_are_uniform(k, n):
    m = HellingerMechanism(np.ones(k), [n] + [0] * (k - 1), 1.0, 1e-6)
    draws = m._uniform_candidates(40_000, np.random.default_rng(11))
    assert (draws.sum(axis=1) == n).all() and (draws >= 0).all()
    cands = list(count_vectors(n, k))
    index = {c: i for i, c in enumerate(cands)}
    observed = np.bincount([index[tuple(int(x) for x in r)] for r in draws], minlength=len(cands))
    assert chi_square_pvalue(observed, np.full(len(cands), 1 / len(cands))) > ALPHA


@pytest.mark.parametrize("tau", [0.3, 2.0, 6.0])
@pytest.mark.parametrize("alpha,counts,pure", [((1, 1, 1), (6, 2, 1), False),
                                               ((0.5, 2.0, 1.0, 1.0), (0, 4, 1, 1), True),
                                               ((1.0, 1.0), (12, 3), False)])
def test_rejection_sampler_frequencies(alpha, counts, pure, tau, monkeypatch):
    """Both branches of the sampler (near set drawn by inverse CDF, far candidates by rejection)
    against the law from the direct formulas; tau = 6 leaves the near set empty."""
    monkeypatch.setattr(hm, "_ENUMERATE_ALL", 0)
    monkeypatch.setattr(hm, "_TAU", tau)
    eps, delta = 1.0, None if pure else 1e-6
    m = HellingerMechanism(alpha, counts, eps, delta, pure)
    plan = m.sampler_plan()
    assert plan.total > plan.z_near                    # the far branch is in use
    cands, p_ref, _ = exact_law(alpha, counts, eps, delta, pure)
    draws = m.sample(60_000, np.random.default_rng(int(tau * 10)))
    index = {c: i for i, c in enumerate(cands)}
    observed = np.bincount([index[tuple(int(x) for x in r)] for r in draws], minlength=len(cands))
    assert chi_square_pvalue(observed, p_ref) > ALPHA


def test_sampler_at_a_million_candidates_matches_the_exact_mean():
    """k = 6, n = 40, eps = 3 (1,221,759 candidates: the rejection path without patching, 945
    near ones): the mean H of the draws against the enumerated E[H], within 5 standard errors."""
    m = HellingerMechanism((1.0,) * 6, (7, 7, 7, 7, 6, 6), 3.0, 1e-8)
    assert m.candidates_count > hm._ENUMERATE_ALL
    plan = m.sampler_plan()
    assert 0 < plan.near_counts.shape[0] < m.candidates_count
    h = np.asarray(m.hellinger(m.sample(20_000, np.random.default_rng(5))))
    se = h.std(ddof=1) / math.sqrt(h.size)
    assert abs(h.mean() - m.expected_hellinger()) < 5 * se


# ---------------------------------------------------------------------------------------
# k = 2 against a direct Beta implementation
# ---------------------------------------------------------------------------------------

def beta_hellinger(a1, b1, a2, b2) -> float:
    lbc = (special.betaln((a1 + a2) / 2, (b1 + b2) / 2)
           - 0.5 * special.betaln(a1, b1) - 0.5 * special.betaln(a2, b2))
    return math.sqrt(max(0.0, -math.expm1(lbc)))


def test_beta_hellinger_by_quadrature():
    for (a1, b1, a2, b2) in [(2, 3, 4, 1), (1.5, 1.5, 1.5, 2.5), (11, 3, 9, 5)]:
        f = stats.beta(a1, b1).pdf
        g = stats.beta(a2, b2).pdf
        bc = integrate.quad(lambda t: math.sqrt(f(t) * g(t)), 0, 1, epsabs=1e-13)[0]
        assert beta_hellinger(a1, b1, a2, b2) == pytest.approx(math.sqrt(1 - bc), rel=1e-7)


@pytest.mark.parametrize("a,b,ones,n,pure", [(1, 1, 6, 20, False), (0.5, 3.0, 0, 15, True),
                                             (2.0, 2.0, 40, 50, False)])
def test_k2_agrees_with_direct_beta(a, b, ones, n, pure):
    eps, delta = 1.0, None if pure else 1e-8
    m = HellingerMechanism((a, b), (ones, n - ones), eps, delta, pure)
    # scores: H(Beta(a + ones, b + n - ones), Beta(a + j, b + n - j)), j = 0..n
    h_ref = np.array([beta_hellinger(a + ones, b + n - ones, a + j, b + n - j)
                      for j in range(n + 1)])
    np.testing.assert_allclose(m.hellinger(np.stack([np.arange(n + 1), n - np.arange(n + 1)],
                                                    axis=1)), h_ref, rtol=1e-9, atol=1e-12)

    # LS via NOTES.md §1 for Beta: moving one observation between the two outcomes
    def ls_beta(j):
        vals = []
        if j >= 1:
            vals.append(beta_hellinger(a + j, b + n - j, a + j - 1, b + n - j + 1))
        if n - j >= 1:
            vals.append(beta_hellinger(a + j, b + n - j, a + j + 1, b + n - j - 1))
        return max(vals)
    gamma = 1.0 if pure else smooth_gamma(eps, delta, n + 1)
    s_ref = max((1 / (1 / ls_beta(j) + abs(j - ones))) if pure else
                ls_beta(j) * math.exp(-gamma * abs(j - ones)) for j in range(n + 1))
    assert m.smooth_sensitivity() == pytest.approx(s_ref, rel=1e-9)
    w = np.exp(-eps * h_ref / ((4 if pure else 2) * s_ref))
    np.testing.assert_allclose(m.probabilities(), w / w.sum(), rtol=1e-8)


# ---------------------------------------------------------------------------------------
# validation
# ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("kwargs", [
    dict(prior_alpha=(1,), counts=(3,), eps=1.0, delta=1e-6),
    dict(prior_alpha=(1, 0), counts=(3, 1), eps=1.0, delta=1e-6),
    dict(prior_alpha=(1, 1), counts=(3, -1), eps=1.0, delta=1e-6),
    dict(prior_alpha=(1, 1), counts=(3, 1, 2), eps=1.0, delta=1e-6),
    dict(prior_alpha=(1, 1), counts=(3, 1.5), eps=1.0, delta=1e-6),
    dict(prior_alpha=(1, 1), counts=(3, 1), eps=0.0, delta=1e-6),
    dict(prior_alpha=(1, 1), counts=(3, 1), eps=1.0),
    dict(prior_alpha=(1, 1), counts=(3, 1), eps=1.0, delta=1.5),
    dict(prior_alpha=(1, 1), counts=(3, 1), eps=1.0, delta=1e-6, pure=True),
])
def test_invalid_arguments(kwargs):
    with pytest.raises(ValueError):
        HellingerMechanism(**kwargs)


@pytest.mark.parametrize("tau", [0.5, 1.0, 3.0])
def test_the_languages_release_draws_the_law_it_verifies_without_enumerating(tau, monkeypatch):
    """``hellingerMech`` in a program releases by the near/far exact sampler (the near set of
    the sampler plan listed, every other candidate drawn uniformly and accepted on its exact
    exponent): its frequencies match the exact law ``infer`` computes (chi-square, ALPHA), with
    the far branch in use. Nothing of the size of the candidate set is built, so k = 5,
    n = 600 (5.5e9 candidates) releases in a second instead of running out of memory."""
    from verifier.language.parser import parse_program
    from verifier.language.typecheck import typecheck_program
    from verifier.semantics import monad
    from verifier.semantics.evaluator import Evaluator
    from verifier.semantics.values import ConsList
    monkeypatch.setattr(hm, "_ENUMERATE_ALL", 0)
    monkeypatch.setattr(hm, "_TAU", tau)
    program = parse_program(
        "let main db = hellingerMech (2.0, 0.000001, dirichlet (1.0, 1.0, 1.0), db)\n")
    evaluator = Evaluator(program, typecheck_program(program))
    m = evaluator.call("main", [ConsList.from_sequence([0, 0, 0, 0, 1, 2])])
    law = dict(monad.infer(m).items)
    support = list(law)
    built = HellingerMechanism((1.0, 1.0, 1.0), (4, 1, 1), 2.0, 1e-6).sampler_plan()
    assert 0 < built.near_counts.shape[0] < len(support) or tau >= 3.0
    src = seeded_source(int(tau * 100))
    index = {d: i for i, d in enumerate(support)}
    draws = [index[monad.sample(m, src)] for _ in range(4_000)]
    observed = np.bincount(draws, minlength=len(support))
    assert chi_square_pvalue(observed, np.array([float(law[d]) for d in support])) > ALPHA
