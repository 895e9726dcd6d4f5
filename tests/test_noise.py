"""Tests of verifier/semantics/noise.py: every sampler against its law.

Statistical tests. Each goodness-of-fit test rejects when its p-value is below
``ALPHA = 1e-6``: with a fresh random seed the false-alarm rate of each test is 1e-6. The
seeded tests are deterministic (the seed is fixed), so they either always pass or always fail;
the threshold documents how surprising a failure would be. Mean/variance checks use CLT bounds
of 6 standard errors (two-sided false-alarm rate about 2e-9).
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from scipy import stats

from verifier.semantics import noise, reals
from verifier.semantics.noise import GRID_BITS, NoiseSource, grid_exponent, secure_source, \
    seeded_source

ALPHA = 1e-6   # false-alarm rate of each goodness-of-fit test
Z = 6.0        # CLT bound, in standard errors


def chi_square_pvalue(observed: np.ndarray, probs: np.ndarray) -> float:
    """Pearson chi-square p-value; bins with expected count < 5 are pooled into one."""
    observed = np.asarray(observed, dtype=float)
    probs = np.asarray(probs, dtype=float)
    n = observed.sum()
    expected = probs / probs.sum() * n
    big = expected >= 5
    obs = list(observed[big])
    exp = list(expected[big])
    if (~big).any():
        obs.append(observed[~big].sum())
        exp.append(expected[~big].sum())
    obs, exp = np.array(obs), np.array(exp)
    stat = float(((obs - exp) ** 2 / exp).sum())
    return float(stats.chi2.sf(stat, len(obs) - 1))


def integer_histogram(samples, lo: int, hi: int) -> np.ndarray:
    """Counts of ``lo..hi``, with everything below/above folded into the end bins."""
    x = np.clip(np.asarray(samples), lo, hi) - lo
    return np.bincount(x, minlength=hi - lo + 1)


def check_mean(samples, mean: float, sd: float) -> None:
    x = np.asarray(samples, dtype=float)
    assert abs(x.mean() - mean) <= Z * sd / math.sqrt(x.shape[0]), (x.mean(), mean)


# ---------------------------------------------------------------------------------------
# sources
# ---------------------------------------------------------------------------------------

def _transcript(src: NoiseSource) -> list:
    return [
        src.laplace(0.1, 2.0), src.gaussian(1, 0.5), src.exponential_mechanism([0, 1, 3], 1.0),
        src.choice_log_weights([0.0, -1.0, -np.inf]), src.discrete_laplace(3),
        src.uniform(), src.bernoulli(0.5), src.beta(2, 3), src.normal(0, 4),
        src.dirichlet((1, 2, 3)), src.categorical((0.2, 0.8)),
        src.laplace(Fraction(1, 3), Fraction(7, 2)),
    ]


def test_flags_and_descriptions():
    sec, sd = secure_source(), seeded_source(42)
    assert isinstance(sec, NoiseSource) and isinstance(sd, NoiseSource)
    assert sec.releasable is True and sd.releasable is False
    assert "secure" in sec.description
    assert "42" in sd.description and "NOT for release" in sd.description


def test_seeded_source_is_deterministic():
    assert _transcript(seeded_source(7)) == _transcript(seeded_source(7))
    assert seeded_source(7).laplace(0, 1) != seeded_source(8).laplace(0, 1)


def test_model_draws_do_not_shift_privacy_noise():
    a, b = seeded_source(3), seeded_source(3)
    for _ in range(10):
        b.uniform()
        b.dirichlet((1, 1))
    assert [a.laplace(0, 1) for _ in range(5)] == [b.laplace(0, 1) for _ in range(5)]


def test_secure_draws_are_distinct():
    src = secure_source()
    draws = [src.laplace(0, 1) for _ in range(200)]
    assert len(set(draws)) == 200           # grid 2^-40: a collision has probability ~1e-8
    assert secure_source().laplace(0, 1) != secure_source().laplace(0, 1)


# ---------------------------------------------------------------------------------------
# exact primitives
# ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("gamma", [Fraction(0), Fraction(1, 3), Fraction(1), Fraction(5, 2)])
def test_bernoulli_exp_frequency(gamma):
    src = seeded_source(11)
    n = 20_000
    hits = sum(src.bernoulli_exp(gamma) for _ in range(n))
    p = math.exp(-gamma)
    assert abs(hits / n - p) <= Z * math.sqrt(p * (1 - p) / n) + 1e-12


@pytest.mark.parametrize("scale", [Fraction(5, 2), Fraction(1, 3), 7])
def test_discrete_laplace_law(scale):
    src = seeded_source(12)
    n = 20_000
    xs = [src.discrete_laplace(scale) for _ in range(n)]
    lim = int(12 * float(scale)) + 2
    zs = np.arange(-lim, lim + 1)
    pmf = np.exp(-np.abs(zs) / float(scale))
    pmf[0] += sum(math.exp(-z / float(scale)) for z in range(lim + 1, lim + 400))
    pmf[-1] += sum(math.exp(-z / float(scale)) for z in range(lim + 1, lim + 400))
    assert chi_square_pvalue(integer_histogram(xs, -lim, lim), pmf) > ALPHA


@pytest.mark.parametrize("sigma", [Fraction(5, 2), 0.7])
def test_discrete_gaussian_law(sigma):
    src = seeded_source(13)
    n = 10_000
    xs = [src.discrete_gaussian(sigma) for _ in range(n)]
    s = float(sigma)
    lim = int(8 * s) + 2
    zs = np.arange(-lim, lim + 1)
    pmf = np.exp(-zs.astype(float) ** 2 / (2 * s * s))
    assert chi_square_pvalue(integer_histogram(xs, -lim, lim), pmf) > ALPHA


def test_discrete_samplers_match_opendp():
    """Cross-check: our discrete Laplace / Gaussian versus OpenDP's (two-sample chi-square)."""
    dp = pytest.importorskip("opendp.prelude")
    dp.enable_features("contrib")
    n = 20_000
    space = dp.vector_domain(dp.atom_domain(T=int))
    lap = dp.m.make_laplace(space, dp.l1_distance(T=int), scale=2.0)
    gau = dp.m.make_gaussian(space, dp.l2_distance(T=int), scale=3.0)
    src = seeded_source(14)
    for theirs, ours in [(lap([0] * n), [src.discrete_laplace(2) for _ in range(n)]),
                         (gau([0] * n), [src.discrete_gaussian(3) for _ in range(n)])]:
        table = np.stack([integer_histogram(theirs, -15, 15), integer_histogram(ours, -15, 15)])
        table = table[:, table.sum(axis=0) >= 10]
        p = stats.chi2_contingency(table)[1]
        assert p > ALPHA


# ---------------------------------------------------------------------------------------
# continuous mechanisms on the grid
# ---------------------------------------------------------------------------------------

def test_grid_exponent_exact():
    assert grid_exponent(Fraction(1)) == -GRID_BITS
    assert grid_exponent(Fraction(2)) == 1 - GRID_BITS
    assert grid_exponent(Fraction(3)) == 1 - GRID_BITS
    assert grid_exponent(Fraction(1, 3)) == -2 - GRID_BITS
    assert grid_exponent(Fraction(1, 4)) == -2 - GRID_BITS
    for b in [Fraction(10), Fraction(1, 10), Fraction(0.3), Fraction(12345, 7)]:
        g = Fraction(2) ** grid_exponent(b)
        assert 2**GRID_BITS <= b / g < 2 ** (GRID_BITS + 1)


def test_laplace_output_on_grid():
    src = seeded_source(15)
    b = Fraction(2)
    g = noise.grid(b)
    assert g == Fraction(2) ** grid_exponent(b)
    for center in [0.1, Fraction(1, 3), 5, reals.sqrt(2)]:
        for sample in (src.laplace_exact(center, b), src.gaussian_exact(center, b)):
            assert isinstance(sample, Fraction) and (sample / g).denominator == 1


@pytest.mark.parametrize("family, center, scale", [
    ("laplace", Fraction(1, 3), Fraction(2)),
    ("laplace", reals.sqrt(2) / 3, 1 / reals.log(3)),          # exact-real center and scale
    ("gauss", Fraction(-5, 7), Fraction(3, 2)),
    ("gauss", reals.sqrt(3), reals.sqrt(2 * reals.log(Fraction(5, 4) / Fraction(1, 10)))),
])
def test_the_released_law_is_the_one_the_audit_computes(monkeypatch, family, center, scale):
    """With a coarse grid (a cell is a quarter to a half of the scale) the frequencies of the
    released grid points match ``released_probability`` (chi-square, ALPHA): the law the audit
    and the oracle use is the law of the sampler that runs."""
    monkeypatch.setattr(noise, "GRID_BITS", 1)
    src = seeded_source(61)
    draw = src.laplace_exact if family == "laplace" else src.gaussian_exact
    g = noise.grid(scale)
    n = 6_000
    indices = [int(draw(center, scale) / g) for _ in range(n)]
    lo, hi = min(indices), max(indices)
    observed = np.bincount(np.array(indices) - lo, minlength=hi - lo + 1)
    probs = np.array([float(noise.released_probability(family, center, scale, k)) for k in range(lo, hi + 1)])
    outside = 1 - probs.sum()         # the mass beyond the observed range
    assert outside >= -1e-12
    assert chi_square_pvalue(np.append(observed, 0), np.append(probs, max(outside, 0.0))) > ALPHA


def test_centres_below_the_grid_are_told_apart_by_no_more_than_the_claim():
    """Mironov's attack on the old sampler (issue 25): ``lapMech (1.0, 2^-41 - 5e-31 + 1e-30 *
    count db)`` is verified M[DP(1e-30)]; the old sampler rounded the two centres to adjacent
    grid points and the two releases differed by 2^-40 in privacy loss (10^18 times the claim).
    Now the release is a rounding of the exact Laplace draw: its exact law (computed here
    independently with mpmath at 150 digits, cell by cell: a log-ratio of 1e-30 between cells of
    probability 1e-12 keeps about 100 digits) has loss at most 1e-30."""
    import mpmath
    with mpmath.workdps(150):
        _check_the_grid_attack(mpmath)


def _check_the_grid_attack(mpmath):
    c1 = Fraction(1, 2 ** 41) - Fraction(5, 10 ** 31)
    c2 = c1 + Fraction(1, 10 ** 30)
    g = noise.grid(1)
    assert g == Fraction(1, 2 ** 40) and c1 < g / 2 < c2     # the old grid put them in two cells

    def cell(c, k):       # Pr[round((c + Lap(1)) / g) = k]
        def cdf(t):
            t = mpmath.mpf(t.numerator) / t.denominator
            return mpmath.exp(t) / 2 if t < 0 else 1 - mpmath.exp(-t) / 2
        return cdf(g * k + g / 2 - c) - cdf(g * k - g / 2 - c)

    # every cell left of both centres (k <= -1) has the ratio e^(c2 - c1), every cell right of
    # both (k >= 2) e^(c1 - c2); the cells between are the only others
    losses = [abs(mpmath.log(cell(c1, k)) - mpmath.log(cell(c2, k))) for k in range(-3, 5)]
    claim = mpmath.mpf(1) / 10 ** 30
    assert max(losses) <= claim * (1 + mpmath.mpf(10) ** -60)
    assert max(losses) >= claim * (1 - mpmath.mpf(10) ** -60)     # tight: the claim is the loss
    # and the sampler's own law agrees with this computation
    for k in (-1, 0, 1, 2):
        ours = noise.released_probability("laplace", c1, 1, k)
        assert abs(mpmath.mpf(float(ours)) - cell(c1, k)) <= 1e-15 * cell(c1, k)


def test_laplace_ks():
    src = seeded_source(16)
    xs = np.array([src.laplace(0.1, 2.0) for _ in range(20_000)])
    assert stats.kstest(xs, stats.laplace(loc=0.1, scale=2.0).cdf).pvalue > ALPHA


def test_laplace_small_scale_ks():
    src = seeded_source(17)
    xs = np.array([src.laplace(-3, Fraction(1, 7)) for _ in range(5_000)])
    assert stats.kstest(xs, stats.laplace(loc=-3, scale=1 / 7).cdf).pvalue > ALPHA


def test_gaussian_ks():
    src = seeded_source(18)
    xs = np.array([src.gaussian(1.0, 3.0) for _ in range(10_000)])
    assert stats.kstest(xs, stats.norm(loc=1.0, scale=3.0).cdf).pvalue > ALPHA


# ---------------------------------------------------------------------------------------
# exponential mechanism and weighted choice
# ---------------------------------------------------------------------------------------

def test_exponential_mechanism_frequencies():
    src = seeded_source(19)
    scores = [0, 1, 2, 5, 10, 10.5, Fraction(7, 3)]
    eps = 1.3
    n = 8_000
    counts = np.bincount([src.exponential_mechanism(scores, eps) for _ in range(n)],
                         minlength=len(scores))
    w = np.exp(eps * np.array([float(s) for s in scores]) / 2)
    assert chi_square_pvalue(counts, w) > ALPHA


def test_exponential_mechanism_many_buckets():
    """Weights spread over ~60 e-folds: the bucket layer and its arb CDF are exercised."""
    src = seeded_source(20)
    scores = np.linspace(0, 60, 41)
    n = 4_000
    counts = np.bincount([src.exponential_mechanism(list(scores), 2.0) for _ in range(n)],
                         minlength=41)
    w = np.exp(scores - scores.max())
    assert chi_square_pvalue(counts, w) > ALPHA


def test_choice_log_weights_frequencies():
    src = seeded_source(21)
    lw = np.log([1.0, 2.0, 3.0, 0.5]).tolist() + [-np.inf]
    n = 8_000
    counts = np.bincount([src.choice_log_weights(lw) for _ in range(n)], minlength=5)
    assert counts[4] == 0
    assert chi_square_pvalue(counts[:4], np.array([1.0, 2.0, 3.0, 0.5])) > ALPHA


def test_choice_log_weights_extreme_values():
    src = seeded_source(22)
    # shift invariance at large magnitudes
    n = 2_000
    hits = sum(src.choice_log_weights(np.array([1000.0, 1000.0])) for _ in range(n))
    assert abs(hits / n - 0.5) <= Z * math.sqrt(0.25 / n)
    # a weight of e^{-2000} relative: never drawn in practice, but handled exactly
    assert all(src.choice_log_weights([0.0, -2000.0]) == 0 for _ in range(50))
    # a single candidate
    assert src.choice_log_weights([-5.0]) == 0


class _ScriptedBits(noise._BitSource):
    """Returns scripted values for the first calls, then a SHAKE stream."""

    def __init__(self, script):
        self._script = list(script)
        self._rest = noise._ShakeBits(5, b"scripted")

    def randbits(self, k):
        if self._script:
            return self._script.pop(0)
        return self._rest.randbits(k)


@pytest.mark.parametrize("tail", [0, (1 << 64) - 1, 1 << 63])
def test_bucket_cdf_refines_near_a_boundary(tail):
    """A uniform whose first 64 bits straddle a CDF boundary forces more bits and precision;
    the answer must then be the exact side of the boundary (checked with mpmath)."""
    import mpmath

    values, counts = [0, 1], [1, 2]          # weights 1 and 2/e
    mpmath.mp.prec = 300
    boundary = 1 / (1 + 2 / mpmath.e)          # U below it -> bucket 0
    u64 = int(mpmath.floor(boundary * 2**64))
    cdf = noise._BucketCDF(values, counts)
    bits = _ScriptedBits([u64, tail])
    got = cdf.choose(bits)
    u = mpmath.mpf(u64 * 2**64 + tail) / mpmath.mpf(2) ** 128
    # with 128 bits the interval [u, u + 2^-128) is on one side of the boundary
    assert got == (0 if u + mpmath.mpf(2) ** -128 <= boundary else 1)
    assert len(cdf._cache) >= 2               # a refinement took place


def test_sample_exp_neg_contract_guard():
    """The exact comparison refuses an approximation that overstates an exponent."""
    bits = noise._ShakeBits(0, b"t")
    with pytest.raises(ArithmeticError):
        noise._sample_exp_neg(bits, np.array([3.0]), lambda i: Fraction(1))
    # with a slack that covers the approximation's error, exact reals are accepted
    sqrt2 = reals.sqrt(2)
    assert noise._sample_exp_neg(bits, np.array([1.4142, 5.0]), lambda i: [sqrt2, Fraction(5)][i],
                                 slack=2.0 ** -10) in (0, 1)
    with pytest.raises(ArithmeticError):     # a real exponent below its key is refused too
        noise._sample_exp_neg(bits, np.array([2.5]), lambda i: sqrt2)


def _near_far_problem():
    """Eight candidates: 0..2 listed ("near", small exponents), 3..7 only drawable (exponents
    at least 2). Exact exponents include an exact real."""
    exact = [Fraction(0), Fraction(1, 3), reals.sqrt(2), Fraction(2), Fraction(5, 2),
             Fraction(3), reals.add(Fraction(2), reals.sqrt(2)), Fraction(7)]
    near = np.array([0.0, 1 / 3, math.sqrt(2)])

    def far_draw(src):
        i = src.randbelow(8)
        return None if i < 3 else (i, exact[i])
    return exact, near, far_draw


def test_near_far_sampler_frequencies():
    """``choice_exact_near_far`` draws candidate i with probability exp(-x_i) / sum, whether
    it is listed or only drawable (chi-square, ALPHA)."""
    exact, near, far_draw = _near_far_problem()
    src = seeded_source(11)
    n = 6000
    hist = np.zeros(8)
    for _ in range(n):
        listed, i = src.choice_exact_near_far(near.copy(), lambda j: exact[j], 2.0 ** -10, 5,
                                              2.0, far_draw)
        assert listed == (i < 3)
        hist[i] += 1
    probs = np.array([math.exp(-float(x)) for x in exact])
    assert chi_square_pvalue(hist, probs) > ALPHA
    assert hist[3:].sum() > 0          # the drawable candidates are reached


def test_near_far_sampler_beyond_float_keys():
    """Exponents above 2**52 (eps = 1e400 in a program) are keyed exactly: the frequencies of
    two listed candidates and one drawable one, 10^20 + (0, 1, 1/2), are still ∝ 1, e^-1, e^-1/2."""
    big = Fraction(10) ** 20
    exact = [big, big + 1, big + Fraction(1, 2)]
    src = seeded_source(17)
    hist = np.zeros(3)
    for _ in range(3000):
        listed, i = src.choice_exact_near_far(
            np.array([float(big), float(big + 1)]), lambda j: exact[j], 2.0 ** -10, 1,
            float(big), lambda s: (2, exact[2]) if s.randbelow(3) == 2 else None)
        hist[i] += 1
    assert chi_square_pvalue(hist, np.array([1.0, math.exp(-1), math.exp(-0.5)])) > ALPHA


def test_near_far_sampler_contract_guard():
    """A drawable candidate whose exact exponent is below the stated floor breaks the contract:
    refused when proposed, never sampled from the wrong law."""
    exact, near, far_draw = _near_far_problem()
    src = seeded_source(3)
    with pytest.raises(ArithmeticError):
        for _ in range(2000):
            src.choice_exact_near_far(near.copy(), lambda j: exact[j], 0.0, 5, 3.5, far_draw)


# ---------------------------------------------------------------------------------------
# model randomness
# ---------------------------------------------------------------------------------------

def test_model_randomness_moments():
    src = seeded_source(23)
    n = 20_000
    check_mean([src.uniform() for _ in range(n)], 0.5, math.sqrt(1 / 12))
    check_mean([src.bernoulli(0.3) for _ in range(n)], 0.3, math.sqrt(0.21))
    a, b = 2.0, 5.0
    check_mean([src.beta(a, b) for _ in range(n)], a / (a + b),
               math.sqrt(a * b / ((a + b) ** 2 * (a + b + 1))))
    xs = np.array([src.normal(1.0, 4.0) for _ in range(n)])   # variance 4, sd 2
    check_mean(xs, 1.0, 2.0)
    # sample variance: sd of s^2 is about sqrt(2) sigma^2 / sqrt(n) for a normal law
    assert abs(xs.var() - 4.0) <= Z * math.sqrt(2) * 4.0 / math.sqrt(n)
    alphas = np.array([1.0, 2.0, 3.0])
    d = np.array([src.dirichlet(alphas) for _ in range(n)])
    a0 = alphas.sum()
    for i in range(3):
        m = alphas[i] / a0
        check_mean(d[:, i], m, math.sqrt(m * (1 - m) / (a0 + 1)))
    np.testing.assert_allclose(d.sum(axis=1), 1.0, atol=1e-12)
    cats = np.bincount([src.categorical((0.2, 0.5, 0.3)) for _ in range(n)], minlength=3)
    assert chi_square_pvalue(cats, np.array([0.2, 0.5, 0.3])) > ALPHA


# ---------------------------------------------------------------------------------------
# edge cases
# ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("call", [
    lambda s: s.laplace(0, 0),
    lambda s: s.laplace(0, -1),
    lambda s: s.laplace(float("nan"), 1),
    lambda s: s.laplace(0, float("inf")),
    lambda s: s.gaussian(0, 0),
    lambda s: s.gaussian(0, -2.0),
    lambda s: s.discrete_laplace(0),
    lambda s: s.exponential_mechanism([1, 2], 0),
    lambda s: s.exponential_mechanism([1, 2], -1.0),
    lambda s: s.exponential_mechanism([], 1.0),
    lambda s: s.exponential_mechanism([1, float("nan")], 1.0),
    lambda s: s.choice_log_weights([]),
    lambda s: s.choice_log_weights([-np.inf, -np.inf]),
    lambda s: s.choice_log_weights([0.0, np.nan]),
    lambda s: s.choice_log_weights([0.0, np.inf]),
    lambda s: s.bernoulli(1.5),
    lambda s: s.beta(0, 1),
    lambda s: s.normal(0, 0),
    lambda s: s.normal(0, -1),
    lambda s: s.dirichlet((1.0,)),
    lambda s: s.dirichlet((1.0, 0.0)),
    lambda s: s.categorical((0.5, 0.6)),
    lambda s: s.bernoulli_exp(-1),
])
def test_invalid_parameters_rejected(call):
    with pytest.raises(ValueError):
        call(seeded_source(0))


def test_type_errors():
    src = seeded_source(0)
    with pytest.raises(TypeError):
        src.laplace("1", 1)
    with pytest.raises(TypeError):
        src.laplace(True, 1)
    with pytest.raises(TypeError):
        seeded_source(1.5)


# ---- model randomness at the edges of the float range ----------------------------------------


@pytest.mark.parametrize("a, b", [(Fraction(10) ** 400, 1), (Fraction(1, 10 ** 400), 1),
                                  (Fraction(10) ** 400 + 1, Fraction(10) ** 400)])
def test_beta_parameters_beyond_the_float_range_are_drawn_not_refused(a, b):
    """A draw that fails for one parameter and not for its neighbour (beta (a + count db, 1.0)
    at the edge of the float range) would be an error one input meets and the other does not:
    the parameters saturate to the float range instead."""
    x = seeded_source(3).beta(a, b)
    assert 0.0 <= x <= 1.0


def test_dirichlet_parameters_beyond_the_float_range_are_drawn_not_refused():
    point = seeded_source(3).dirichlet((Fraction(10) ** 400, Fraction(1, 10 ** 400), 1))
    assert len(point) == 3 and abs(sum(point) - 1.0) < 1e-9
    with pytest.raises(ValueError):
        seeded_source(3).beta(0, 1)


def test_a_model_draw_at_the_edge_of_the_float_range_runs_on_both_inputs(tmp_path):
    from verifier.cli import main
    path = tmp_path / "edge.pinf"
    path.write_text("""
val main :: {l :: bool list | adj (l<1>, l<2>)} -> M[SD, 1.0] {r :: real | =}
let main db =
  mlet p = ran (beta (1.0 + 1e400 * count db, 1.0)) in
  return p
""")
    for data in ("[true]", "[false]"):
        assert main(["run", str(path), "main", "--arg", f"db={data}", "--seed", "1"]) == 0


@pytest.mark.parametrize("c1, c2, scale, eps", [
    (Fraction(0), Fraction(1), Fraction(1, 2), Fraction(1)),
    (Fraction(-3, 7), Fraction(5, 2), Fraction(3), Fraction(1, 10)),
    (reals.sqrt(2), Fraction(4), Fraction(1), reals.log(3)),               # exact-real centre and eps
    (Fraction(2), Fraction(-1), Fraction(1, 3), Fraction(2)),              # reflected centres
])
@pytest.mark.parametrize("guess", ["computed", "none", "wrong"])
def test_the_hockey_stick_sum_of_two_releases_does_not_depend_on_the_crossing_guess(
        monkeypatch, c1, c2, scale, eps, guess):
    """``released.hockey`` narrows its bisection around a floating-point guess of the crossing
    cell only after checking the cells there exactly: with no guess, or a wrong one, the exact
    sum is the same."""
    from verifier.semantics import released
    monkeypatch.setattr(noise, "GRID_BITS", 3)
    a, b = released.Noise("laplace", c1, scale), released.Noise("laplace", c2, scale)
    reference = float(released.hockey(a, b, eps))
    if guess == "none":
        monkeypatch.setattr(released, "_laplace_crossing", lambda *args: None)
    elif guess == "wrong":
        monkeypatch.setattr(released, "_laplace_crossing",
                            lambda x, y, e: x.index_of(x.center) + 1)
    fresh = released.Noise("laplace", c1, scale), released.Noise("laplace", c2, scale)
    assert float(released.hockey(*fresh, eps)) == pytest.approx(reference, rel=1e-12, abs=1e-300)
    if guess == "none":
        assert reference > 0 or float(reals.absolute(reals.sub(c1, c2)) / scale) <= float(eps)
