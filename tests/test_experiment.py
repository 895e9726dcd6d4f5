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
