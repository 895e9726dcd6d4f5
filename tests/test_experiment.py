"""``privinfer experiment accuracy``: files, the Laplace projection, the baselines' sensitivities,
exact statistics of the mechanisms."""
from __future__ import annotations

import csv
import itertools
import math

import numpy as np
import pytest

from verifier import experiments as ex
from verifier.cli import main
from verifier.semantics.hellinger_mech import HellingerMechanism


# ---- the quick run ------------------------------------------------------------------------------


def test_quick_run_writes_csv_markdown_and_plots(tmp_path, capsys):
    out = tmp_path / "acc"
    code = main(["experiment", "accuracy", "--out", str(out), "--quick", "--draws", "300", "--no-progress"])
    printed = capsys.readouterr().out
    assert code == 0
    for name in ("accuracy.csv", "accuracy.md", "accuracy_k2.png", "accuracy_k3.png", "accuracy_k4.png"):
        path = out / name
        assert path.is_file() and path.stat().st_size > 0, name
        assert str(path) in printed
    for k in (2, 3, 4):
        assert (out / f"accuracy_k{k}.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    with open(out / "accuracy.csv", newline="") as handle:
        rows = list(csv.DictReader(handle))
    assert tuple(rows[0]) == ex.CSV_COLUMNS
    assert len(rows) == 3 * 2 * len(ex.MECHANISMS)
    assert {r["mechanism"] for r in rows} == set(ex.MECHANISMS)
    for r in rows:
        mean, q1, med, q3 = (float(r[c]) for c in ("mean", "q1", "median", "q3"))
        assert 0 <= q1 <= med <= q3 <= 1 and 0 <= mean <= 1
        if r["mechanism"].startswith("laplace"):
            assert r["method"] == "monte-carlo" and r["draws"] == "300" and float(r["stderr"]) > 0
        else:
            assert r["method"] == "exact" and r["stderr"] == "" and r["draws"] == ""
    md = (out / "accuracy.md").read_text()
    assert "## k = 2" in md and "## k = 4" in md and "hellingerMechPure" in md
    assert "k = 2: smallest mean error" in printed


def test_runs_are_reproducible():
    config = ex.default_config(quick=True, draws=50)
    a = ex.measure_point(3, 20, "laplace_tight", config)
    b = ex.measure_point(3, 20, "laplace_tight", config)
    assert (a.mean, a.q1, a.q3) == (b.mean, b.q1, b.q3)
    other = ex.measure_point(3, 20, "laplace_tight", ex.default_config(quick=True, draws=50, seed=7))
    assert other.mean != a.mean


def test_default_config_matches_the_poster():
    config = ex.default_config()
    assert config.sizes[2] == config.sizes[3] == tuple(range(100, 501, 50))
    assert config.sizes[4] == tuple(range(100, 601, 50))
    assert (config.eps, config.delta, config.draws, config.prior) == (1.0, 1e-8, 10_000, 1.0)


# ---- data and the Laplace projection ------------------------------------------------------------


def test_balanced_counts():
    assert ex.balanced_counts(100, 2) == (50, 50)
    assert ex.balanced_counts(100, 3) == (34, 33, 33)
    assert ex.balanced_counts(102, 4) == (26, 26, 25, 25)
    assert sum(ex.balanced_counts(599, 4)) == 599


def _brute_force(y, n):
    k = len(y)
    """The smallest squared distance from ``y`` to a valid count vector, by enumeration."""
    best = math.inf
    for m in itertools.product(range(n + 1), repeat=k - 1):
        if sum(m) <= n:
            full = (*m, n - sum(m))
            best = min(best, sum((a - b) ** 2 for a, b in zip(full, y)))
    return best


@pytest.mark.parametrize("k,n", [(2, 5), (3, 6), (4, 5), (3, 0)])
def test_projection_is_the_nearest_valid_count_vector(k, n):
    rng = np.random.default_rng(1)
    y = rng.normal(n / k, 3.0, (200, k))
    y[:20] *= -1                      # some far below zero
    y[20:40] += 2 * n                 # some far above n
    m = ex.project_counts(y, n)
    assert m.dtype == np.int64 and m.shape == y.shape
    assert (m >= 0).all() and (m.sum(axis=1) == n).all()
    for row, yrow in zip(m, y):
        cost = float(((row - yrow) ** 2).sum())
        assert cost == pytest.approx(_brute_force(list(yrow), n), abs=1e-9)


def test_projection_in_two_dimensions_is_round_and_clamp():
    n = 10
    y1 = np.array([-3.2, -0.4, 0.4, 0.6, 4.49, 4.51, 9.7, 10.2, 55.0])
    m = ex.project_counts(np.stack([y1, n - y1], axis=1), n)
    assert m[:, 0].tolist() == np.clip(np.rint(y1), 0, n).astype(int).tolist()
    assert (m[:, 1] == n - m[:, 0]).all()
    assert ex.project_counts(np.array([0.2, 0.3, 9.9]), 10).tolist() == [0, 0, 10]


# ---- baselines: which sensitivity, which counts ----------------------------------------------------


def test_baseline_sensitivity_selection():
    assert ex.laplace_sensitivity(2, proportional=False) == 1
    assert ex.laplace_sensitivity(3, proportional=False) == 2
    assert ex.laplace_sensitivity(4, proportional=False) == 2
    assert [ex.laplace_sensitivity(k, proportional=True) for k in (2, 3, 4)] == [2, 3, 4]


def test_measure_point_passes_the_selected_sensitivity(monkeypatch):
    seen = []
    real = ex.laplace_releases

    def spy(counts, eps, sensitivity, draws, rng):
        seen.append((len(counts), sensitivity, eps))
        return real(counts, eps, sensitivity, draws, rng)

    monkeypatch.setattr(ex, "laplace_releases", spy)
    config = ex.default_config(quick=True, draws=20)
    for k in (2, 3, 4):
        for m in ("laplace_tight", "laplace_k"):
            row = ex.measure_point(k, 20, m, config)
            assert row.sensitivity == seen[-1][1]
    assert [s for _, s, _ in seen] == [1, 2, 2, 3, 2, 4]


class _RecordingRng:
    """A stand-in generator that records the Laplace scale and returns zero noise."""

    def __init__(self):
        self.calls = []

    def laplace(self, loc, scale, size):
        self.calls.append((loc, scale, size))
        return np.zeros(size)


def test_two_dimensions_noise_one_count_and_more_dimensions_every_count():
    rng = _RecordingRng()
    out = ex.laplace_releases((30, 20), 0.5, 1, 7, rng)
    assert rng.calls == [(0.0, 2.0, 7)]                  # scale = sensitivity / eps, one count
    assert (out == [30, 20]).all()
    rng = _RecordingRng()
    out = ex.laplace_releases((10, 10, 5), 1.0, 3, 4, rng)
    assert rng.calls == [(0.0, 3.0, (4, 3))]             # every count
    assert (out == [10, 10, 5]).all()


def test_laplace_noise_has_the_right_scale_in_two_dimensions():
    """P(m_1 = c_1) = P(|Lap(b)| < 1/2) = 1 - exp(-1/(2b)); tolerance 5 standard errors."""
    draws = 40_000
    for sens in (1, 2):
        rng = np.random.default_rng(sens)
        m = ex.laplace_releases((50, 50), 1.0, sens, draws, rng)
        p = 1 - math.exp(-0.5 / sens)
        se = math.sqrt(p * (1 - p) / draws)
        assert abs(float((m[:, 0] == 50).mean()) - p) < 5 * se


# ---- exact statistics of the mechanisms ----------------------------------------------------------


@pytest.mark.parametrize("alpha,counts,pure", [([1.0, 1.0], (12, 8), False), ([1.0, 1.0, 1.0], (5, 5, 4), True),
                                                ([1.0] * 4, (3, 3, 3, 2), False), ([0.5, 2.0, 1.0], (2, 7, 0), False)])
def test_mechanism_statistics_are_those_of_the_exact_law(alpha, counts, pure):
    mech = HellingerMechanism(alpha, counts, 1.0, None if pure else 1e-8, pure=pure)
    mean, quartiles = ex.mechanism_error_stats(mech)
    p = mech.probabilities()
    h = np.array([mech.hellinger(mech.candidate(i)) for i in range(mech.candidates_count)])
    assert mean == pytest.approx(float(np.dot(p, h)), abs=1e-12)
    assert mean == pytest.approx(mech.expected_hellinger(), abs=1e-12)
    order = np.argsort(h, kind="stable")
    cum = np.cumsum(p[order])
    for q, got in zip(ex.QUARTILES, quartiles):
        want = h[order][np.searchsorted(cum, q * cum[-1])]
        assert got == pytest.approx(want, abs=1e-12)


def test_exact_mean_agrees_with_monte_carlo_draws():
    """The mechanism's own sampler against the exact mean: |difference| < 5 standard errors."""
    mech = HellingerMechanism([1.0, 1.0, 1.0], (20, 20, 20), 1.0, 1e-8)
    mean, _ = ex.mechanism_error_stats(mech)
    draws = mech.sample(20_000, np.random.default_rng(3))
    h = np.asarray(mech.hellinger(draws))
    se = h.std(ddof=1) / math.sqrt(h.size)
    assert abs(h.mean() - mean) < 5 * se


def test_mechanism_rows_are_exact_and_report_s():
    config = ex.default_config(quick=True)
    row = ex.measure_point(2, 40, "hellingerMech", config)
    mech = HellingerMechanism([1.0, 1.0], (20, 20), 1.0, 1e-8)
    assert row.method == "exact" and row.stderr is None
    assert row.mean == pytest.approx(mech.expected_hellinger(), abs=1e-12)
    assert row.sensitivity == pytest.approx(mech.smooth_sensitivity())


def test_bad_arguments(capsys, tmp_path):
    assert main(["experiment", "accuracy", "--out", str(tmp_path), "--draws", "1", "--quick"]) == 2
    assert "--draws" in capsys.readouterr().err
    assert main(["experiment", "nonsense", "--out", str(tmp_path)]) == 2


# ---- Fig. 1: sensitivity ------------------------------------------------------------------------


def test_sensitivity_quick_run(tmp_path, capsys):
    out = tmp_path / "sens"
    assert main(["experiment", "sensitivity", "--out", str(out), "--quick", "--no-progress"]) == 0
    printed = capsys.readouterr().out
    for name in ("sensitivity.csv", "sensitivity_trend.csv", "sensitivity.md", "sensitivity.png"):
        assert (out / name).is_file() and str(out / name) in printed
    with open(out / "sensitivity.csv", newline="") as handle:
        rows = list(csv.DictReader(handle))
    assert len(rows) == 21 + 41
    assert "GS =" in printed and "## n = 40" in (out / "sensitivity.md").read_text()


@pytest.mark.parametrize("prior,n", [((1.0, 1.0), 30), ((0.5, 0.5), 12), ((2.0, 7.5), 25)])
def test_certified_local_sensitivity_is_the_mechanisms(prior, n):
    from verifier.semantics.hellinger_mech import local_sensitivity
    ls, rad = ex.beta_local_sensitivities(prior, n)
    assert (rad < 1e-25).all()
    for j in range(n + 1):
        assert ls[j] == pytest.approx(local_sensitivity(prior, (j, n - j)), rel=1e-12, abs=1e-15)
    # the poster's claim: the maximum is at the edge
    assert ls.max() == ls[0] or ls.max() == ls[n]
    assert ls[n // 2] < ls[0] and ls[n // 2] < ls[n]


@pytest.mark.parametrize("prior,n", [((1.0, 1.0), 40), ((0.5, 2.0), 17)])
def test_smooth_sensitivity_from_local_is_the_mechanisms(prior, n):
    from verifier.semantics.hellinger_mech import smooth_gamma, smooth_sensitivity
    ls, _ = ex.beta_local_sensitivities(prior, n)
    every = list(range(n + 1))
    s_delta = ex.smooth_from_local(ls, every, smooth_gamma(1.0, 1e-8, n + 1))
    s_pure = ex.smooth_from_local(ls, every, None)
    for j in every:
        assert s_delta[j] == pytest.approx(smooth_sensitivity(prior, (j, n - j), 1.0, 1e-8), rel=1e-12)
        assert s_pure[j] == pytest.approx(smooth_sensitivity(prior, (j, n - j), 1.0, pure=True), rel=1e-12)


def test_trend_row_for_the_uniform_prior():
    """GS tends to sqrt(1 - sqrt(pi)/2) (g(1) = sqrt(pi)/2); LS at the centre to 1/sqrt(2n)."""
    config = ex.default_sensitivity_config()
    ls, _ = ex.beta_local_sensitivities((1.0, 1.0), 1000)
    row = ex.sensitivity_trend_row(config, 1000, ls)
    assert row.gs == pytest.approx(math.sqrt(1 - math.sqrt(math.pi) / 2), rel=1e-3)
    assert row.ls_centre == pytest.approx(1 / math.sqrt(2 * 1000), rel=1e-2)
    assert row.half_width == int(np.flatnonzero(ls <= row.gs / 2)[0])
    assert row.s_pure_centre >= row.ls_centre and row.s_delta_centre >= row.ls_centre


# ---- Fig. 3(a): priors --------------------------------------------------------------------------


def test_priors_quick_run(tmp_path, capsys):
    out = tmp_path / "priors"
    assert main(["experiment", "priors", "--out", str(out), "--quick", "--no-progress"]) == 0
    printed = capsys.readouterr().out
    for name in ("priors.csv", "priors.md", "priors.png"):
        assert (out / name).is_file() and str(out / name) in printed
    with open(out / "priors.csv", newline="") as handle:
        rows = list(csv.DictReader(handle))
    assert len(rows) == 3 * len(ex.MECHANISMS)
    assert "smallest mean error" in printed


@pytest.mark.parametrize("c1,n,scale", [(50, 100, 1.0), (3, 10, 2.0), (0, 5, 0.5), (7, 7, 3.0), (20, 40, 40.0)])
def test_laplace_law_in_two_dimensions_is_exact(c1, n, scale):
    """Against the Laplace CDF at 50 digits (mpmath), and it sums to 1."""
    import mpmath
    mpmath.mp.dps = 50
    p = ex.laplace_law_k2(c1, n, scale)

    def cdf(x):
        x = mpmath.mpf(x)
        return mpmath.e ** (x / scale) / 2 if x < 0 else 1 - mpmath.e ** (-x / scale) / 2
    for j in range(n + 1):
        lo = 0 if j == 0 else cdf(mpmath.mpf(j) - mpmath.mpf(1) / 2 - c1)
        hi = 1 if j == n else cdf(mpmath.mpf(j) + mpmath.mpf(1) / 2 - c1)
        assert p[j] == pytest.approx(float(hi - lo), rel=1e-13, abs=1e-300)
    assert p.sum() == pytest.approx(1.0, rel=1e-14)


def test_laplace_law_is_what_laplace_releases_draw():
    p = ex.laplace_law_k2(12, 20, 2.0)
    m = ex.laplace_releases((12, 8), 1.0, 2, 50_000, np.random.default_rng(9))
    observed = np.bincount(m[:, 0], minlength=21)
    expected = p * 50_000
    big = expected >= 5
    from scipy import stats
    obs = np.append(observed[big], observed[~big].sum())
    exp = np.append(expected[big], expected[~big].sum())
    if exp[-1] == 0:
        obs, exp = obs[:-1], exp[:-1]
    assert stats.chi2.sf(((obs - exp) ** 2 / exp).sum(), len(obs) - 1) > 1e-6


def test_law_stats_against_brute_force():
    rng = np.random.default_rng(4)
    h = rng.random(40)
    p = rng.random(40)
    mean, qs = ex.law_stats(h, p)
    assert mean == pytest.approx(float(np.dot(h, p) / p.sum()))
    for q, got in zip(ex.QUARTILES, qs):
        want = min(x for x in h if p[h <= x].sum() >= q * p.sum() * (1 - 1e-15))
        assert got == want


def test_prior_rows_are_exact():
    config = ex.PriorsConfig(n=30, priors=((2.0, 2.0),))
    lap = ex.measure_prior((2.0, 2.0), "laplace_tight", config)
    m = ex.laplace_releases((15, 15), 1.0, 1, 40_000, np.random.default_rng(2))
    h = np.asarray(HellingerMechanism([2.0, 2.0], (15, 15), 1.0, 1e-8).hellinger(m))
    assert abs(h.mean() - lap.mean) < 5 * h.std(ddof=1) / math.sqrt(h.size)
    mech = ex.measure_prior((2.0, 2.0), "hellingerMech", config)
    assert mech.mean == pytest.approx(HellingerMechanism([2.0, 2.0], (15, 15), 1.0, 1e-8).expected_hellinger(),
                                      abs=1e-12)


# ---- Fig. 3(b), 3(c): laws ----------------------------------------------------------------------


def test_law_quick_run(tmp_path, capsys):
    out = tmp_path / "law"
    assert main(["experiment", "law", "--out", str(out), "--quick", "--draws", "500", "--no-progress"]) == 0
    printed = capsys.readouterr().out
    for name in ("law.csv", "law.md", "law_k2.png", "law_k3.png"):
        assert (out / name).is_file() and str(out / name) in printed
    with open(out / "law.csv", newline="") as handle:
        rows = list(csv.DictReader(handle))
    methods = {(r["k"], r["mechanism"]): r["method"] for r in rows}
    assert methods[("2", "laplace_tight")] == "exact" and methods[("3", "laplace_tight")] == "monte-carlo"
    assert {r["draws"] for r in rows if r["method"] == "monte-carlo"} == {"500"}


def test_candidate_laws():
    config = ex.default_law_config(quick=True, draws=300)
    for k in (2, 3):
        for m in ex.MECHANISMS:
            law = ex.candidate_law(k, 12, m, config)
            assert law.p.sum() == pytest.approx(1.0, rel=1e-12)
            assert (law.counts.sum(axis=1) == 12).all()
            assert law.method == ("monte-carlo" if (k == 3 and m.startswith("laplace")) else "exact")
    mech = HellingerMechanism([1.0] * 3, (4, 4, 4), 1.0, 1e-8)
    law = ex.candidate_law(3, 12, "hellingerMech", config)
    np.testing.assert_array_equal(law.p, mech.probabilities())


def test_bad_prior(tmp_path, capsys):
    assert main(["experiment", "sensitivity", "--out", str(tmp_path), "--prior", "1", "--quick"]) == 2
    assert main(["experiment", "sensitivity", "--out", str(tmp_path), "--prior", "0,1", "--quick"]) == 2
