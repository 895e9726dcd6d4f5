"""The seed poster's figures (``privinfer experiment accuracy | sensitivity | priors | law``).

Bun, Farina, Gaboardi, Liu, "Tailoring Differentially Private Bayesian Inference to Distance
Between Distributions" (poster). Four studies:

* ``accuracy`` — Fig. 2, described below;
* ``sensitivity`` — Fig. 1, the sensitivity of the Hellinger distance over Beta posteriors:
  ``LS(j)`` for every data set of ``n`` observations with ``j`` ones (certified closed form,
  ``beta_local_sensitivities``), the global sensitivity ``GS = max_j LS(j)`` and the smooth
  sensitivity in both forms (``smooth_from_local``), against ``j`` and against ``n``;
* ``priors`` — Fig. 3(a), the accuracy of the four releases below at ``k = 2``, ``n = 100``,
  against the prior ``Beta(a, b)``: **every value exact**, the Laplace baselines included
  (``laplace_law_k2``: the closed-form law of the rounded, clamped noisy count);
* ``law`` — Fig. 3(b), 3(c), the probability of every candidate against its distance to the
  true posterior (``k = 2, 3``, ``n = 100``): exact except the 3-D Laplace baselines (Monte
  Carlo, ``LawConfig.draws`` = 10^6 seeded draws, stated in the outputs).

Fig. 2 (``accuracy``): the Hellinger distance between the released posterior and the true
posterior, for

* ``k`` = 2, 3, 4 categories; data sizes ``n`` from 100 to 500 (k = 2, 3) and to 600 (k = 4);
* balanced data (``balanced_counts``), uniform priors ``Dir(1, ..., 1)``;
* ``eps = 1``, ``delta = 1e-8``;

and four ways of releasing a posterior (``MECHANISMS``):

``hellingerMech``
    the smoothed-Hellinger exponential mechanism, (eps, delta) form with NOTES.md §7's
    corrections (``HellingerMechanism(..., delta)``);
``hellingerMechPure``
    its pure-eps form (``HellingerMechanism(..., pure=True)``);
``laplace_tight``
    Laplace on the counts with the histogram's true sensitivity: for ``k = 2`` the single count
    ``c_1`` (``c_2 = n - c_1``; ``n`` is public) with sensitivity 1; for ``k >= 3`` every count
    with sensitivity 2 (one observation moves from one category to another);
``laplace_k``
    Laplace on the same counts with sensitivity ``k`` ("proportional to the number of
    categories", the poster's green points).

Laplace releases are post-processed to the *nearest valid count vector* (``project_counts``:
non-negative integers summing to ``n``, nearest in Euclidean distance; for ``k = 2`` this is
``c_1`` rounded to the nearest integer and clamped to ``[0, n]``), and the released posterior is
``Dir(alpha + m)``. Post-processing keeps each baseline ``(eps, 0)``-DP.

What is exact
=============

* For the two mechanisms the mean, quartiles and median of the Hellinger error are those of the
  mechanism's **exact** output distribution, by enumerating all ``C(n+k-1, k-1)`` candidates
  (``mechanism_error_stats``: one streaming pass for the mean and a weighted histogram, a second
  pass for the exact weighted quantiles). No sampling.
* For the Laplace baselines: Monte Carlo with ``draws`` draws per point (10,000 by default),
  with the standard error of the mean; quartiles are empirical (``inverted_cdf``, the same
  definition ``inf {h : F(h) >= p}`` as the exact ones).
* All Hellinger distances are float64 (``HellingerMechanism.hellinger``: ``gammaln`` tables,
  about 1e-12 absolute at n = 600), which is ample here; they are not certified enclosures.

Randomness: a seeded numpy ``Generator`` per point (``SeedSequence([seed, k, n, i])``), with
float64 Laplace noise. These are **experiment draws, not releases**: a real release must use
``HellingerMechanism.release`` / the exact samplers of ``verifier.semantics.noise``.

Public API
==========

* ``AccuracyConfig`` (``default_config(quick=False, draws=None, seed=...)``);
* ``run_accuracy(config, out_dir, progress=True) -> AccuracyReport`` — computes every point and
  writes ``accuracy.csv``, ``accuracy.md`` and ``accuracy_k{2,3,4}.png`` into ``out_dir``;
* building blocks: ``balanced_counts``, ``laplace_sensitivity``, ``project_counts``,
  ``laplace_releases``, ``mechanism_error_stats``, ``measure_point``;
* ``run_sensitivity(default_sensitivity_config(), out_dir)`` -> ``sensitivity.csv``,
  ``sensitivity_trend.csv``, ``sensitivity.md``, ``sensitivity.png``;
* ``run_priors(default_priors_config(), out_dir)`` -> ``priors.csv``, ``priors.md``,
  ``priors.png`` (``measure_prior``, ``laplace_law_k2``, ``law_stats``);
* ``run_law(default_law_config(), out_dir)`` -> ``law.csv``, ``law.md``, ``law_k2.png``,
  ``law_k3.png`` (``candidate_law``).
"""
from __future__ import annotations

import csv
import math
import os
import time
from typing import Dict, Iterable, Iterator, List, Optional, Sequence, Tuple

import numpy as np

from obligations.records import field, record
from verifier.semantics.hellinger_mech import HellingerMechanism

#: CSV key -> label used in tables and plots.
MECHANISMS: Dict[str, str] = {
    "hellingerMech": "hellingerMech (eps, delta)",
    "hellingerMechPure": "hellingerMechPure (eps)",
    "laplace_tight": "Laplace, sensitivity 1 (k = 2) / 2 (k > 2)",
    "laplace_k": "Laplace, sensitivity k",
}
QUARTILES = (0.25, 0.5, 0.75)
CSV_COLUMNS = ("k", "n", "mechanism", "mean", "q1", "median", "q3", "method", "stderr", "draws",
               "sensitivity", "seconds")
DEFAULT_SEED = 20160101


# ======================================================================================
# configuration
# ======================================================================================


@record
class AccuracyConfig:
    """One run of the study: data sizes per number of categories and the privacy parameters."""

    sizes: Dict[int, Tuple[int, ...]]
    eps: float = 1.0
    delta: float = 1e-8
    draws: int = 10_000
    seed: int = DEFAULT_SEED
    prior: float = 1.0            # every Dirichlet parameter (uniform prior)
    mechanisms: Tuple[str, ...] = tuple(MECHANISMS)

    def points(self) -> List[Tuple[int, int, str]]:
        """Every ``(k, n, mechanism)``, in the order they are computed."""
        return [(k, n, m) for k in sorted(self.sizes) for n in self.sizes[k] for m in self.mechanisms]


def default_config(quick: bool = False, draws: Optional[int] = None, seed: int = DEFAULT_SEED,
                   step: int = 50) -> AccuracyConfig:
    """The poster's study (n = 100..500 for k = 2, 3 and 100..600 for k = 4, every ``step``), or
    with ``quick`` a smoke run (n = 20, 40; 200 draws unless ``draws`` is given)."""
    if quick:
        sizes = {k: (20, 40) for k in (2, 3, 4)}
        return AccuracyConfig(sizes, draws=draws if draws is not None else 200, seed=seed)
    if step < 1:
        raise ValueError("step must be >= 1")
    sizes = {2: tuple(range(100, 501, step)), 3: tuple(range(100, 501, step)),
             4: tuple(range(100, 601, step))}
    return AccuracyConfig(sizes, draws=draws if draws is not None else 10_000, seed=seed)


# ======================================================================================
# data and baselines
# ======================================================================================


def balanced_counts(n: int, k: int) -> Tuple[int, ...]:
    """The balanced count vector of ``n`` observations over ``k`` categories: ``n // k`` each,
    the remainder given one by one to the first categories (``(34, 33, 33)`` for n = 100, k = 3)."""
    if n < 0 or k < 2:
        raise ValueError("need n >= 0 and k >= 2")
    q, r = divmod(n, k)
    return tuple(q + 1 if i < r else q for i in range(k))


def laplace_sensitivity(k: int, proportional: bool) -> int:
    """The Laplace baselines' sensitivity: ``k`` when ``proportional``; otherwise 1 for ``k = 2``
    (only ``c_1`` is noised, ``c_2 = n - c_1``) and 2 for ``k > 2`` (the histogram's L1
    sensitivity: moving one observation changes two counts by 1)."""
    if k < 2:
        raise ValueError("k >= 2")
    if proportional:
        return k
    return 1 if k == 2 else 2


def project_counts(y: np.ndarray, n: int) -> np.ndarray:
    """The valid count vectors nearest to the noisy counts ``y``, row by row.

    ``y``: shape ``(draws, k)`` (or ``(k,)``), any reals. Returns int64 of the same shape whose
    rows are non-negative and sum to ``n`` and minimise ``sum_i (m_i - y_i)^2``.

    Method (exact for the given floats; ties, of probability 0 under continuous noise, go to the
    lowest index): the cost of the ``j``-th unit in coordinate ``i`` is
    ``(j - y_i)^2 - (j - 1 - y_i)^2 = 2j - 1 - 2 y_i``, increasing in ``j``, so an optimum takes
    the ``n`` cheapest units. ``max(0, round(y))`` takes exactly the units of negative cost; if
    that is fewer than ``n`` units the cheapest further units are added one at a time, if more,
    the most expensive taken units are removed one at a time. For ``k = 2`` and
    ``y = (y_1, n - y_1)`` the result is ``(clip(round(y_1), 0, n), n - that)``.
    """
    y = np.asarray(y, dtype=np.float64)
    single = y.ndim == 1
    y = np.atleast_2d(y)
    if n < 0:
        raise ValueError("n >= 0")
    m = np.maximum(0, np.rint(y)).astype(np.int64)
    rows = np.arange(y.shape[0])
    while True:
        diff = n - m.sum(axis=1)
        add = diff > 0
        remove = diff < 0
        if not (add.any() or remove.any()):
            break
        if add.any():
            cost = 2 * m[add] + 1 - 2 * y[add]
            m[rows[add], np.argmin(cost, axis=1)] += 1
        if remove.any():
            cost = np.where(m[remove] > 0, 2 * m[remove] - 1 - 2 * y[remove], -np.inf)
            m[rows[remove], np.argmax(cost, axis=1)] -= 1
    return m[0] if single else m


def laplace_releases(counts: Sequence[int], eps: float, sensitivity: float, draws: int,
                     rng: np.random.Generator) -> np.ndarray:
    """``draws`` Laplace releases of the count vector, each projected to a valid count vector.

    ``k = 2``: ``y_1 = c_1 + Lap(sensitivity / eps)`` and ``y_2 = n - y_1``; ``k >= 3``: every
    ``y_i = c_i + Lap(sensitivity / eps)`` independently. Then ``project_counts(y, n)``.
    Float64 numpy noise: experiment draws, not releases."""
    c = np.asarray(counts, dtype=np.float64)
    n, k = int(c.sum()), c.shape[0]
    scale = sensitivity / eps
    if k == 2:
        y1 = c[0] + rng.laplace(0.0, scale, draws)
        y = np.stack([y1, n - y1], axis=1)
    else:
        y = c[None, :] + rng.laplace(0.0, scale, (draws, k))
    return project_counts(y, n)


# ======================================================================================
# exact statistics of the mechanisms
# ======================================================================================

_BINS = 1 << 16


def mechanism_error_stats(mech: HellingerMechanism,
                          quantiles: Sequence[float] = QUARTILES) -> Tuple[float, List[float]]:
    """``(E[H], [q_p for p in quantiles])`` for ``H = H(BI(x), r)``, ``r`` drawn from the
    mechanism's exact output law (every candidate enumerated; no sampling).

    ``q_p = min {h : P(H <= h) >= p}``. Pass 1 streams over the candidates accumulating
    ``sum w H``, ``sum w`` and a weighted histogram of ``H`` on 2^16 bins of ``[0, 1]``; pass 2
    collects the candidates in the bins that contain the quantiles and finds them exactly
    (float64 sums). The mean agrees with ``mech.expected_hellinger()`` up to rounding.
    """
    if mech.n == 0:
        return 0.0, [0.0 for _ in quantiles]
    beta = mech.beta
    hist = np.zeros(_BINS)
    num = den = 0.0
    for _, lw in mech.log_weights():
        h = np.abs(lw / -beta)
        w = np.exp(lw)
        num += float(np.dot(w, h))
        den += float(w.sum())
        hist += np.bincount(_bin_of(h), weights=w, minlength=_BINS)
    cdf = np.cumsum(hist)
    targets = [p * cdf[-1] for p in quantiles]   # the histogram's own total, for consistency
    bins = [int(min(np.searchsorted(cdf, t, side="left"), _BINS - 1)) for t in targets]
    wanted = sorted(set(bins))
    found_h: Dict[int, List[np.ndarray]] = {b: [] for b in wanted}
    found_w: Dict[int, List[np.ndarray]] = {b: [] for b in wanted}
    for _, lw in mech.log_weights():
        h = np.abs(lw / -beta)
        idx = _bin_of(h)
        for b in wanted:
            mask = idx == b
            if mask.any():
                found_h[b].append(h[mask])
                found_w[b].append(np.exp(lw[mask]))
    out = []
    for t, b in zip(targets, bins):
        below = cdf[b - 1] if b > 0 else 0.0
        hs = np.concatenate(found_h[b]) if found_h[b] else np.zeros(0)
        ws = np.concatenate(found_w[b]) if found_w[b] else np.zeros(0)
        if hs.size == 0:                        # rounding put the target in an empty bin
            out.append(float(b) / _BINS)
            continue
        order = np.argsort(hs, kind="stable")
        cum = below + np.cumsum(ws[order])
        pos = int(min(np.searchsorted(cum, t, side="left"), hs.size - 1))
        out.append(float(hs[order][pos]))
    return num / den, out


def _bin_of(h: np.ndarray) -> np.ndarray:
    return np.minimum((h * _BINS).astype(np.int64), _BINS - 1)


# ======================================================================================
# one point, the whole study
# ======================================================================================


@record
class AccuracyRow:
    """One line of ``accuracy.csv``."""

    k: int
    n: int
    mechanism: str
    mean: float
    q1: float
    median: float
    q3: float
    method: str                      # "exact" or "monte-carlo"
    stderr: Optional[float]          # of the mean (Monte Carlo only)
    draws: Optional[int]
    sensitivity: float               # Laplace: the sensitivity used; mechanisms: S(x)
    seconds: float

    def csv_row(self) -> List[str]:
        def f(x: Optional[float]) -> str:
            return "" if x is None else repr(float(x))
        return [str(self.k), str(self.n), self.mechanism, f(self.mean), f(self.q1), f(self.median),
                f(self.q3), self.method, f(self.stderr), "" if self.draws is None else str(self.draws),
                f(self.sensitivity), f"{self.seconds:.3f}"]


def measure_point(k: int, n: int, mechanism: str, config: AccuracyConfig) -> AccuracyRow:
    """The Hellinger error of one mechanism at one ``(k, n)`` (see the module docstring)."""
    start = time.perf_counter()
    counts = balanced_counts(n, k)
    alpha = [config.prior] * k
    if mechanism in ("hellingerMech", "hellingerMechPure"):
        pure = mechanism == "hellingerMechPure"
        mech = HellingerMechanism(alpha, counts, config.eps, None if pure else config.delta, pure=pure)
        mean, (q1, med, q3) = mechanism_error_stats(mech)
        return AccuracyRow(k, n, mechanism, mean, q1, med, q3, "exact", None, None,
                           mech.smooth_sensitivity(), time.perf_counter() - start)
    if mechanism not in ("laplace_tight", "laplace_k"):
        raise ValueError(f"unknown mechanism {mechanism!r}")
    index = list(MECHANISMS).index(mechanism)
    rng = np.random.default_rng(np.random.SeedSequence([config.seed, k, n, index]))
    sens = laplace_sensitivity(k, proportional=mechanism == "laplace_k")
    released = laplace_releases(counts, config.eps, sens, config.draws, rng)
    scorer = HellingerMechanism(alpha, counts, config.eps, config.delta)   # its score tables only
    h = np.abs(np.asarray(scorer.hellinger(released)))   # H >= 0 (and no "-0.0")
    q1, med, q3 = (float(v) for v in np.quantile(h, QUARTILES, method="inverted_cdf"))
    stderr = float(h.std(ddof=1) / math.sqrt(h.size)) if h.size > 1 else None
    return AccuracyRow(k, n, mechanism, float(h.mean()), q1, med, q3, "monte-carlo", stderr, config.draws,
                       float(sens), time.perf_counter() - start)


@record(frozen=False)
class AccuracyReport:
    """The rows of a run and the files written."""

    config: AccuracyConfig
    rows: List[AccuracyRow] = field(default_factory=list)
    files: List[str] = field(default_factory=list)
    seconds: float = 0.0

    def row(self, k: int, n: int, mechanism: str) -> AccuracyRow:
        for r in self.rows:
            if (r.k, r.n, r.mechanism) == (k, n, mechanism):
                return r
        raise KeyError((k, n, mechanism))


def run_accuracy(config: AccuracyConfig, out_dir: str, progress: bool = True) -> AccuracyReport:
    """Compute every point of ``config`` (with a tqdm progress bar on stderr when ``progress``)
    and write ``accuracy.csv``, ``accuracy.md`` and one ``accuracy_k{k}.png`` per ``k`` into
    ``out_dir`` (created if needed)."""
    start = time.perf_counter()
    os.makedirs(out_dir, exist_ok=True)
    report = AccuracyReport(config)
    points = config.points()
    for k, n, mechanism in _progress(points, progress, "accuracy", "point", lambda p: f"k={p[0]} n={p[1]} {p[2]}"):
        report.rows.append(measure_point(k, n, mechanism, config))
    report.seconds = time.perf_counter() - start
    report.files.append(write_csv(report.rows, os.path.join(out_dir, "accuracy.csv")))
    report.files.append(write_markdown(report, os.path.join(out_dir, "accuracy.md")))
    for k in sorted(config.sizes):
        report.files.append(plot_k(report.rows, k, os.path.join(out_dir, f"accuracy_k{k}.png"), config))
    return report


# ======================================================================================
# outputs
# ======================================================================================


def write_csv(rows: Iterable[AccuracyRow], path: str) -> str:
    with open(path, "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(CSV_COLUMNS)
        for r in rows:
            writer.writerow(r.csv_row())
    return path


def winners(rows: Sequence[AccuracyRow], k: int) -> Dict[int, str]:
    """n -> the mechanism with the smallest mean error at ``(k, n)``."""
    best: Dict[int, AccuracyRow] = {}
    for r in rows:
        if r.k == k and (r.n not in best or r.mean < best[r.n].mean):
            best[r.n] = r
    return {n: r.mechanism for n, r in sorted(best.items())}


def write_markdown(report: AccuracyReport, path: str) -> str:
    config = report.config
    lines = ["# Accuracy of private posteriors (the seed poster's Fig. 2)", "",
             f"Hellinger distance between the released and the true posterior; balanced data, uniform "
             f"prior, eps = {config.eps:g}, delta = {config.delta:g}. Cells: mean [q1, q3]; "
             f"the mechanisms' values are exact (full enumeration of the candidates), the Laplace "
             f"baselines' are Monte Carlo over {config.draws} draws (± one standard error of the mean). "
             f"Generated by `privinfer experiment accuracy` in {report.seconds:.0f} s.", ""]
    present = [m for m in MECHANISMS if any(r.mechanism == m for r in report.rows)]
    for k in sorted(config.sizes):
        lines += [f"## k = {k}", ""]
        header = ["n"] + [_label(m, k) for m in present] + ["best", "hellingerMech / best Laplace"]
        lines.append("| " + " | ".join(header) + " |")
        lines.append("|" + "|".join("---" for _ in header) + "|")
        win = winners(report.rows, k)
        for n in config.sizes[k]:
            cells = [str(n)]
            for m in present:
                r = report.row(k, n, m)
                err = f" ± {r.stderr:.2g}" if r.stderr is not None else ""
                cells.append(f"{r.mean:.4f}{err} [{r.q1:.4f}, {r.q3:.4f}]")
            cells.append(win[n])
            laplace = [report.row(k, n, m).mean for m in ("laplace_tight", "laplace_k") if m in present]
            if "hellingerMech" in present and laplace:
                cells.append(f"{report.row(k, n, 'hellingerMech').mean / min(laplace):.2f}")
            else:
                cells.append("")
            lines.append("| " + " | ".join(cells) + " |")
        lines.append("")
    return _write_lines(path, lines)


def _label(mechanism: str, k: int) -> str:
    """The legend of one line in the plot for ``k`` categories (sensitivities spelled out)."""
    if mechanism.startswith("laplace"):
        proportional = mechanism == "laplace_k"
        sens = laplace_sensitivity(k, proportional)
        where = "on c_1" if k == 2 else "on every count"
        return f"Laplace {where}, sensitivity {sens}" + (" (= k)" if proportional else "")
    return MECHANISMS[mechanism]


def plot_k(rows: Sequence[AccuracyRow], k: int, path: str, config: AccuracyConfig) -> str:
    """Mean (markers and lines) and quartiles (bars from q1 to q3) against n, one line per
    mechanism."""
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(7, 4.5), dpi=110)
    sizes = list(config.sizes[k])
    width = (sizes[1] - sizes[0]) if len(sizes) > 1 else 10
    present = [m for m in MECHANISMS if any(r.mechanism == m and r.k == k for r in rows)]
    for i, m in enumerate(present):
        rs = sorted((r for r in rows if r.k == k and r.mechanism == m), key=lambda r: r.n)
        shift = (i - (len(present) - 1) / 2) * width * 0.06
        _error_bars(ax, np.array([r.n for r in rs], dtype=float) + shift, rs, m, k)
    ax.set_xlabel("data size n")
    ax.set_title(f"k = {k} categories, eps = {config.eps:g}, delta = {config.delta:g} "
                 f"(mean; bars: quartiles)", fontsize=10)
    ax.legend(fontsize=8)
    return _save(fig, path)


#: Colour and marker of each release in every plot.
_STYLES = {"hellingerMech": ("tab:blue", "o"), "hellingerMechPure": ("tab:purple", "s"),
           "laplace_tight": ("tab:red", "^"), "laplace_k": ("tab:green", "v")}


def _error_bars(ax, x: np.ndarray, rows: Sequence, mechanism: str, k: int) -> None:
    """One release's mean errors at ``x`` (markers and lines) with bars from q1 to q3; the axis
    gets the shared y label, limits and grid."""
    mean = np.array([r.mean for r in rows])
    lower = np.maximum(mean - np.array([r.q1 for r in rows]), 0)
    upper = np.maximum(np.array([r.q3 for r in rows]) - mean, 0)
    color, marker = _STYLES.get(mechanism, (None, "o"))
    ax.errorbar(x, mean, yerr=[lower, upper], color=color, marker=marker, markersize=4, linewidth=1.2,
                capsize=2.5, label=_label(mechanism, k))
    ax.set_ylim(bottom=0)
    ax.set_ylabel("Hellinger distance to the true posterior")
    ax.grid(True, which="both", alpha=0.3)


# ======================================================================================
# Fig. 1: the sensitivity of the Hellinger distance over Beta posteriors
# ======================================================================================


@record
class SensitivityConfig:
    """``privinfer experiment sensitivity`` (the poster's Fig. 1): prior ``Beta(a, b)``,
    ``n`` observations of which ``j`` are ones, ``j = 0..n``.

    ``sizes``: the data sizes whose sensitivities are plotted against ``j``; ``trend_sizes``:
    the data sizes of the second panel (global sensitivity, and local and smooth sensitivity at
    the balanced data set, against ``n``). ``eps`` and ``delta`` fix the smoothing of ``S``.
    """

    sizes: Tuple[int, ...] = (100, 500)
    trend_sizes: Tuple[int, ...] = (10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10_000)
    prior: Tuple[float, float] = (1.0, 1.0)
    eps: float = 1.0
    delta: float = 1e-8


def default_sensitivity_config(quick: bool = False,
                               prior: Tuple[float, float] = (1.0, 1.0)) -> SensitivityConfig:
    """The full study (``n`` = 100 and 500 against ``j``; 10 to 10,000 against ``n``) or, with
    ``quick``, a smoke run (``n`` = 20, 40)."""
    if quick:
        return SensitivityConfig(sizes=(20, 40), trend_sizes=(10, 20, 40), prior=prior)
    return SensitivityConfig(prior=prior)


def beta_local_sensitivities(prior: Sequence[float], n: int,
                             prec: int = 128) -> Tuple[np.ndarray, np.ndarray]:
    """``LS(j)`` for ``j = 0..n``: the largest Hellinger distance between the posterior
    ``Beta(a + j, b + n - j)`` and that of a neighbouring data set (one observation flipped:
    ``j - 1`` or ``j + 1`` ones), by the closed form of ``lemmas.closed_forms.hellinger``
    evaluated as certified Arb balls at ``prec`` bits — no float64 tables.

    This is the poster's ``LS(x)``: by the triangle inequality its maximum over candidates
    ``r`` of ``|H(BI(x), r) - H(BI(x'), r)|`` is reached at ``r = BI(x')`` (NOTES.md §7).
    Returns ``(value, radius)``: the midpoints of the balls of the maxima (float64) and their
    radii (about 1e-32 at 128 bits); ``LS = 0`` when ``n = 0``.
    """
    from lemmas.arbeval import precision
    from lemmas.closed_forms import Beta, hellinger

    a, b = (float(x) for x in prior)
    value = np.zeros(n + 1)
    radius = np.zeros(n + 1)
    for j in range(n + 1):
        post = Beta(a + j, b + n - j)
        balls = []
        if j >= 1:
            balls.append(hellinger(post, Beta(a + j - 1, b + n - j + 1), prec))
        if j <= n - 1:
            balls.append(hellinger(post, Beta(a + j + 1, b + n - j - 1), prec))
        if not balls:
            continue
        with precision(prec):
            lows = [x.lower() for x in balls]                     # exact endpoints: the maximum
            highs = [x.upper() for x in balls]                    # lies in [max lower, max upper]
            lo = lows[0] if len(lows) == 1 or lows[0] >= lows[1] else lows[1]
            hi = highs[0] if len(highs) == 1 or highs[0] >= highs[1] else highs[1]
            value[j] = float(((lo + hi) / 2).mid())
            radius[j] = float(((hi - lo) / 2).mid())
    return value, radius


def smooth_from_local(ls: np.ndarray, at: Sequence[int], gamma: Optional[float]) -> np.ndarray:
    """``S(j) = max_{j'} F(LS(j'), |j - j'|)`` for each ``j`` in ``at``, from the local
    sensitivities ``ls`` of every data set size ``n = len(ls) - 1`` (``j'`` ones).

    ``F(L, d) = L e^{-gamma d}`` (the (eps, delta) form) or, with ``gamma=None``, the pure form
    ``1 / (1/L + d)``. A data set with ``j'`` ones is at Hamming distance ``|j - j'|`` from the
    nearest one with ``j`` ones, so this is the poster's ``S`` for ``k = 2``; float64 from the
    given values (one rounding per term), ``O(n)`` per point.
    """
    j = np.asarray(at, dtype=np.int64)[:, None]
    d = np.abs(j - np.arange(ls.shape[0])[None, :]).astype(np.float64)
    with np.errstate(divide="ignore"):
        vals = ls[None, :] * np.exp(-gamma * d) if gamma is not None else 1.0 / (1.0 / ls[None, :] + d)
    return vals.max(axis=1)


@record
class SensitivityRow:
    """One data set of the first panel: ``n`` observations, ``j`` ones."""

    n: int
    j: int
    ls: float
    ls_radius: float
    s_delta: float                 # smooth sensitivity, (eps, delta) form
    s_pure: float                  # smooth sensitivity, pure form


@record
class TrendRow:
    """One data size of the second panel."""

    n: int
    gs: float                      # global sensitivity: max_j LS(j), reached at j = 0 and n
    ls_centre: float               # LS at the balanced data set (j = n // 2)
    s_delta_centre: float
    s_pure_centre: float
    half_width: Optional[int]      # smallest j with LS(j) <= GS / 2 (None: no such j)


@record(frozen=False)
class SensitivityReport:
    config: SensitivityConfig
    rows: List[SensitivityRow] = field(default_factory=list)
    trend: List[TrendRow] = field(default_factory=list)
    files: List[str] = field(default_factory=list)
    seconds: float = 0.0


def sensitivity_trend_row(config: SensitivityConfig, n: int, ls: np.ndarray) -> TrendRow:
    """The second panel's point for ``n`` from its local sensitivities ``ls``."""
    from verifier.semantics.hellinger_mech import smooth_gamma

    gs = float(ls.max())
    centre = n // 2
    gamma = smooth_gamma(config.eps, config.delta, n + 1)
    half = int(np.flatnonzero(ls <= gs / 2)[0]) if (ls <= gs / 2).any() else None
    return TrendRow(n, gs, float(ls[centre]), float(smooth_from_local(ls, [centre], gamma)[0]),
                    float(smooth_from_local(ls, [centre], None)[0]), half)


def run_sensitivity(config: SensitivityConfig, out_dir: str, progress: bool = True) -> SensitivityReport:
    """Compute Fig. 1 and write ``sensitivity.csv`` (first panel: every ``(n, j)``),
    ``sensitivity_trend.csv``, ``sensitivity.md`` and ``sensitivity.png`` into ``out_dir``."""
    from verifier.semantics.hellinger_mech import smooth_gamma

    start = time.perf_counter()
    os.makedirs(out_dir, exist_ok=True)
    report = SensitivityReport(config)
    sizes = sorted(set(config.sizes) | set(config.trend_sizes))
    for n in _progress(sizes, progress, "sensitivity", "size", lambda n: f"n={n}"):
        ls, rad = beta_local_sensitivities(config.prior, n)
        if n in config.sizes:
            every = list(range(n + 1))
            s_delta = smooth_from_local(ls, every, smooth_gamma(config.eps, config.delta, n + 1))
            s_pure = smooth_from_local(ls, every, None)
            report.rows += [SensitivityRow(n, j, float(ls[j]), float(rad[j]), float(s_delta[j]),
                                           float(s_pure[j])) for j in every]
        if n in config.trend_sizes:
            report.trend.append(sensitivity_trend_row(config, n, ls))
    report.seconds = time.perf_counter() - start
    report.files.append(_write_rows(os.path.join(out_dir, "sensitivity.csv"),
                                    ("n", "j", "ls", "ls_radius", "s_delta", "s_pure"),
                                    ([r.n, r.j, r.ls, r.ls_radius, r.s_delta, r.s_pure] for r in report.rows)))
    report.files.append(_write_rows(os.path.join(out_dir, "sensitivity_trend.csv"),
                                    ("n", "gs", "ls_centre", "s_delta_centre", "s_pure_centre", "half_width"),
                                    ([t.n, t.gs, t.ls_centre, t.s_delta_centre, t.s_pure_centre,
                                      "" if t.half_width is None else t.half_width] for t in report.trend)))
    report.files.append(write_sensitivity_markdown(report, os.path.join(out_dir, "sensitivity.md")))
    report.files.append(plot_sensitivity(report, os.path.join(out_dir, "sensitivity.png")))
    return report


def write_sensitivity_markdown(report: SensitivityReport, path: str) -> str:
    config = report.config
    a, b = config.prior
    lines = ["# Sensitivity of the Hellinger distance over Beta posteriors (the seed poster's Fig. 1)", "",
             f"Prior Beta({a:g}, {b:g}); a data set of n observations with j ones has the posterior "
             f"Beta({a:g} + j, {b:g} + n - j). LS(j): the largest Hellinger distance to the posterior of a "
             f"neighbouring data set (one observation flipped), certified closed form (Arb, 128 bits; "
             f"every ball's radius is below {max((r.ls_radius for r in report.rows), default=0.0):.1e}). "
             f"GS = max_j LS(j) (reached at j = 0 and j = n). S: smooth sensitivity at eps = {config.eps:g}, "
             f"delta = {config.delta:g} (gamma for n + 1 candidates) and in the pure form (gamma = 1). "
             f"Generated by `privinfer experiment sensitivity` in {report.seconds:.0f} s.", "",
             "| n | GS (edge) | LS at j = n/2 | LS / GS | S (eps, delta) at n/2 | S (pure) at n/2 | "
             "smallest j with LS <= GS/2 |",
             "|---|---|---|---|---|---|---|"]
    for t in report.trend:
        lines.append(f"| {t.n} | {t.gs:.5f} | {t.ls_centre:.5f} | {t.ls_centre / t.gs:.3f} | "
                     f"{t.s_delta_centre:.5f} | {t.s_pure_centre:.5f} | "
                     f"{'none' if t.half_width is None else t.half_width} |")
    lines.append("")
    for n in config.sizes:
        rows = [r for r in report.rows if r.n == n]
        if not rows:
            continue
        picks = sorted({0, 1, 2, 5, 10, n // 10, n // 4, n // 2} & set(range(n + 1)))
        lines += [f"## n = {n}", "", "| j | LS | S (eps, delta) | S (pure) |", "|---|---|---|---|"]
        for j in picks:
            r = rows[j]
            lines.append(f"| {j} | {r.ls:.5f} | {r.s_delta:.5f} | {r.s_pure:.5f} |")
        lines.append("")
    return _write_lines(path, lines)


def plot_sensitivity(report: SensitivityReport, path: str) -> str:
    """Left: LS, both S and GS against ``j / n`` for each of ``config.sizes``; right: GS and
    the balanced data set's LS and S against ``n`` (log-log), with ``1 / sqrt(2n)``."""
    plt = _pyplot()
    config = report.config
    fig, (left, right) = plt.subplots(1, 2, figsize=(12, 4.6), dpi=110)
    colors = ["tab:blue", "tab:red", "tab:green", "tab:purple"]
    for color, n in zip(colors, config.sizes):
        rows = [r for r in report.rows if r.n == n]
        x = np.array([r.j for r in rows]) / n
        ls = np.array([r.ls for r in rows])
        left.plot(x, ls, color=color, linewidth=1.6, label=f"LS, n = {n}")
        left.plot(x, [r.s_delta for r in rows], color=color, linestyle="--", linewidth=1.1,
                  label=f"S (eps, delta), n = {n}")
        left.plot(x, [r.s_pure for r in rows], color=color, linestyle=":", linewidth=1.1,
                  label=f"S (pure), n = {n}")
        left.axhline(float(ls.max()), color=color, linewidth=0.6, alpha=0.5)
    left.set_yscale("log")
    left.set_xlabel("j / n (share of ones in the data)")
    left.set_ylabel("sensitivity of the Hellinger distance")
    a, b = config.prior
    left.set_title(f"prior Beta({a:g}, {b:g}); thin lines: GS = max LS (at j = 0, n); "
                   f"S (pure) is hidden under LS where they agree", fontsize=9)
    left.grid(True, which="both", alpha=0.3)
    left.legend(fontsize=7, ncol=2)
    ns = np.array([t.n for t in report.trend], dtype=float)
    right.plot(ns, [t.gs for t in report.trend], "o-", color="black", label="GS (edge, j = 0)")
    right.plot(ns, [t.ls_centre for t in report.trend], "s-", color="tab:blue", label="LS at j = n/2")
    right.plot(ns, [t.s_delta_centre for t in report.trend], "^--", color="tab:orange",
               label="S (eps, delta) at j = n/2")
    right.plot(ns, [t.s_pure_centre for t in report.trend], "v:", color="tab:purple", label="S (pure) at j = n/2")
    right.plot(ns, 1 / np.sqrt(2 * ns), color="grey", linewidth=0.8, label="1 / sqrt(2n)")
    right.set_xscale("log")
    right.set_yscale("log")
    right.set_xlabel("data size n")
    right.set_title(f"eps = {config.eps:g}, delta = {config.delta:g}", fontsize=10)
    right.grid(True, which="both", alpha=0.3)
    right.legend(fontsize=8)
    return _save(fig, path)


# ======================================================================================
# Fig. 3(a): accuracy against the prior
# ======================================================================================


SYMMETRIC_PRIORS = ((0.5, 0.5), (1.0, 1.0), (2.0, 2.0), (5.0, 5.0), (10.0, 10.0), (20.0, 20.0),
                    (50.0, 50.0), (100.0, 100.0))
SKEWED_PRIORS = ((1.0, 1.0), (1.0, 2.0), (1.0, 5.0), (1.0, 10.0), (1.0, 20.0), (1.0, 50.0), (1.0, 100.0))


@record
class PriorsConfig:
    """``privinfer experiment priors`` (the poster's Fig. 3(a)): ``k = 2``, ``n`` balanced
    observations, every prior of ``priors``, the four releases of ``MECHANISMS``."""

    n: int = 100
    priors: Tuple[Tuple[float, float], ...] = SYMMETRIC_PRIORS + SKEWED_PRIORS[1:]
    eps: float = 1.0
    delta: float = 1e-8
    mechanisms: Tuple[str, ...] = tuple(MECHANISMS)


def default_priors_config(quick: bool = False) -> PriorsConfig:
    """The full study (n = 100, 14 priors) or, with ``quick``, n = 20 and three priors."""
    if quick:
        return PriorsConfig(n=20, priors=((1.0, 1.0), (5.0, 5.0), (1.0, 5.0)))
    return PriorsConfig()


def laplace_law_k2(c1: int, n: int, scale: float) -> np.ndarray:
    """The exact law of the 2-D Laplace baseline's output ``m_1 = clip(round(c_1 + Z), 0, n)``,
    ``Z ~ Lap(scale)`` (what ``laplace_releases`` draws for ``k = 2``): ``P(m_1 = j)`` for
    ``j = 0..n``, the Laplace mass of ``[j - 1/2, j + 1/2) - c_1`` (the whole lower tail for
    ``j = 0``, the upper tail for ``j = n``). Closed form, float64, each mass computed from the
    tail it lies in (no cancellation): no sampling."""
    j = np.arange(n + 1, dtype=np.float64)
    lo = j - 0.5 - c1
    hi = j + 0.5 - c1
    lo[0], hi[-1] = -np.inf, np.inf
    with np.errstate(over="ignore", invalid="ignore"):
        below = 0.5 * (np.exp(hi / scale) - np.exp(lo / scale))            # hi <= 0
        above = 0.5 * (np.exp(-lo / scale) - np.exp(-hi / scale))          # lo >= 0
        across = 1.0 - 0.5 * np.exp(lo / scale) - 0.5 * np.exp(-hi / scale)
    return np.where(hi <= 0, below, np.where(lo >= 0, above, across))


def law_stats(h: np.ndarray, p: np.ndarray,
              quantiles: Sequence[float] = QUARTILES) -> Tuple[float, List[float]]:
    """``(E[H], [q_p])`` of a finite law: values ``h`` with probabilities ``p`` (normalised
    here); ``q_p = min {x : P(H <= x) >= p}``, the definition of ``mechanism_error_stats``."""
    h = np.asarray(h, dtype=np.float64)
    p = np.asarray(p, dtype=np.float64)
    total = float(p.sum())
    order = np.argsort(h, kind="stable")
    cum = np.cumsum(p[order])
    qs = [float(h[order][min(int(np.searchsorted(cum, q * total, side="left")), h.size - 1)])
          for q in quantiles]
    return float(np.dot(p, h) / total), qs


@record
class PriorRow:
    """One line of ``priors.csv``: every value exact (full enumeration or closed form)."""

    a: float
    b: float
    mechanism: str
    mean: float
    q1: float
    median: float
    q3: float
    sensitivity: float             # Laplace: the sensitivity used; mechanisms: S(x)


def measure_prior(prior: Tuple[float, float], mechanism: str, config: PriorsConfig) -> PriorRow:
    """The exact error law of one release at one prior: the mechanisms by enumerating their
    ``n + 1`` candidates (``mechanism_error_stats``), the Laplace baselines by ``laplace_law_k2``."""
    counts = balanced_counts(config.n, 2)
    if mechanism in ("hellingerMech", "hellingerMechPure"):
        pure = mechanism == "hellingerMechPure"
        mech = HellingerMechanism(prior, counts, config.eps, None if pure else config.delta, pure=pure)
        mean, (q1, med, q3) = mechanism_error_stats(mech)
        return PriorRow(prior[0], prior[1], mechanism, mean, q1, med, q3, mech.smooth_sensitivity())
    if mechanism not in ("laplace_tight", "laplace_k"):
        raise ValueError(f"unknown mechanism {mechanism!r}")
    sens = laplace_sensitivity(2, proportional=mechanism == "laplace_k")
    p = laplace_law_k2(counts[0], config.n, sens / config.eps)
    m1 = np.arange(config.n + 1)
    scorer = HellingerMechanism(prior, counts, config.eps, config.delta)   # its score tables only
    h = np.asarray(scorer.hellinger(np.stack([m1, config.n - m1], axis=1)))
    mean, (q1, med, q3) = law_stats(h, p)
    return PriorRow(prior[0], prior[1], mechanism, mean, q1, med, q3, float(sens))


@record(frozen=False)
class PriorsReport:
    config: PriorsConfig
    rows: List[PriorRow] = field(default_factory=list)
    files: List[str] = field(default_factory=list)
    seconds: float = 0.0

    def row(self, prior: Tuple[float, float], mechanism: str) -> PriorRow:
        for r in self.rows:
            if (r.a, r.b, r.mechanism) == (prior[0], prior[1], mechanism):
                return r
        raise KeyError((prior, mechanism))


def run_priors(config: PriorsConfig, out_dir: str, progress: bool = True) -> PriorsReport:
    """Compute Fig. 3(a) and write ``priors.csv``, ``priors.md`` and ``priors.png``."""
    start = time.perf_counter()
    os.makedirs(out_dir, exist_ok=True)
    report = PriorsReport(config)
    points = [(prior, m) for prior in config.priors for m in config.mechanisms]
    for prior, m in _progress(points, progress, "priors", "point"):
        report.rows.append(measure_prior(prior, m, config))
    report.seconds = time.perf_counter() - start
    report.files.append(_write_rows(os.path.join(out_dir, "priors.csv"),
                                    ("a", "b", "n", "mechanism", "mean", "q1", "median", "q3", "sensitivity"),
                                    ([r.a, r.b, config.n, r.mechanism, r.mean, r.q1, r.median, r.q3, r.sensitivity]
                                     for r in report.rows)))
    report.files.append(write_priors_markdown(report, os.path.join(out_dir, "priors.md")))
    report.files.append(plot_priors(report, os.path.join(out_dir, "priors.png")))
    return report


def prior_winners(report: PriorsReport) -> Dict[Tuple[float, float], str]:
    """prior -> the release with the smallest mean error."""
    out = {}
    for prior in report.config.priors:
        rows = [report.row(prior, m) for m in report.config.mechanisms]
        out[prior] = min(rows, key=lambda r: r.mean).mechanism
    return out


def write_priors_markdown(report: PriorsReport, path: str) -> str:
    config = report.config
    present = list(config.mechanisms)
    lines = ["# Accuracy against the prior (the seed poster's Fig. 3(a))", "",
             f"k = 2, n = {config.n} balanced observations ({balanced_counts(config.n, 2)}), eps = {config.eps:g}, "
             f"delta = {config.delta:g}. Cells: mean [q1, q3] of the Hellinger distance between the released "
             f"and the true posterior, **all exact**: the mechanisms by enumerating their n + 1 candidates, the "
             f"Laplace baselines by the closed-form law of the rounded and clamped count. Last columns: the "
             f"mechanism's smooth sensitivity S and its mean error over the best Laplace's. "
             f"Generated by `privinfer experiment priors` in {report.seconds:.1f} s.", "",
             "| prior | " + " | ".join(_label(m, 2) for m in present) + " | best | S | hellingerMech / best Laplace |",
             "|" + "|".join("---" for _ in range(len(present) + 4)) + "|"]
    win = prior_winners(report)
    for prior in config.priors:
        cells = [f"Beta({prior[0]:g}, {prior[1]:g})"]
        for m in present:
            r = report.row(prior, m)
            cells.append(f"{r.mean:.4f} [{r.q1:.4f}, {r.q3:.4f}]")
        cells.append(win[prior])
        laplace = [report.row(prior, m).mean for m in ("laplace_tight", "laplace_k") if m in present]
        if "hellingerMech" in present:
            mech = report.row(prior, "hellingerMech")
            cells.append(f"{mech.sensitivity:.4f}")
            cells.append(f"{mech.mean / min(laplace):.2f}" if laplace else "")
        else:
            cells += ["", ""]
        lines.append("| " + " | ".join(cells) + " |")
    lines.append("")
    return _write_lines(path, lines)


def plot_priors(report: PriorsReport, path: str) -> str:
    """Mean and quartile bars against the prior: symmetric priors ``Beta(a, a)`` against ``a``
    (left) and priors ``Beta(1, b)`` leaning away from the balanced data against ``b``
    (right), log x axes."""
    plt = _pyplot()
    config = report.config
    series = [("symmetric prior Beta(a, a)", [p for p in config.priors if p[0] == p[1]], 0, "a"),
              ("prior Beta(1, b), data balanced", [p for p in config.priors if p[0] == 1.0 and p[1] >= 1.0], 1, "b")]
    series = [s for s in series if len(s[1]) > 0]
    fig, axes = plt.subplots(1, len(series), figsize=(6.2 * len(series), 4.5), dpi=110, squeeze=False)
    for ax, (title, priors, coord, name) in zip(axes[0], series):
        xs = np.array([p[coord] for p in priors])
        for i, m in enumerate(config.mechanisms):
            shift = 1.0 + (i - (len(config.mechanisms) - 1) / 2) * 0.03
            _error_bars(ax, xs * shift, [report.row(p, m) for p in priors], m, 2)
        ax.set_xscale("log")
        ax.set_xlabel(name)
        ax.set_title(f"{title}; n = {config.n}, eps = {config.eps:g} (exact; bars: quartiles)", fontsize=9)
        ax.legend(fontsize=7)
    return _save(fig, path)


# ======================================================================================
# Fig. 3(b), 3(c): the output laws
# ======================================================================================


@record
class LawConfig:
    """``privinfer experiment law`` (the poster's Fig. 3(b) and 3(c)): for each ``(k, n)`` of
    ``cases``, balanced data and the uniform prior, the probability of every candidate against
    its Hellinger distance to the true posterior, for the four releases of ``MECHANISMS``.
    ``draws``: Monte Carlo draws for the Laplace baselines at ``k >= 3`` (the only laws that are
    not computed exactly)."""

    cases: Tuple[Tuple[int, int], ...] = ((2, 100), (3, 100))
    eps: float = 1.0
    delta: float = 1e-8
    draws: int = 1_000_000
    seed: int = DEFAULT_SEED
    prior: float = 1.0
    mechanisms: Tuple[str, ...] = tuple(MECHANISMS)


def default_law_config(quick: bool = False, draws: Optional[int] = None, seed: int = DEFAULT_SEED) -> LawConfig:
    """The full study (n = 100 in 2 and 3 dimensions, 10^6 Laplace draws in 3-D) or, with
    ``quick``, n = 20 and 2,000 draws."""
    if quick:
        return LawConfig(cases=((2, 20), (3, 20)), draws=draws if draws is not None else 2_000, seed=seed)
    return LawConfig(draws=draws if draws is not None else 1_000_000, seed=seed)


@record
class CandidateLaw:
    """One release's law over the candidates of one ``(k, n)``: count vectors, their
    Hellinger distances to the true posterior and their probabilities (only the candidates
    drawn at least once for a Monte Carlo law)."""

    k: int
    n: int
    mechanism: str
    counts: np.ndarray             # (N, k) int64
    h: np.ndarray                  # (N,)
    p: np.ndarray                  # (N,), sums to 1
    method: str                    # "exact" or "monte-carlo"
    draws: Optional[int]


def candidate_law(k: int, n: int, mechanism: str, config: LawConfig) -> CandidateLaw:
    """The law of one release (see ``LawConfig``): exact for the mechanisms (every candidate,
    ``probabilities()``) and for 2-D Laplace (``laplace_law_k2``); ``config.draws`` seeded
    Laplace releases otherwise, as relative frequencies."""
    counts = balanced_counts(n, k)
    alpha = [config.prior] * k
    scorer = HellingerMechanism(alpha, counts, config.eps, config.delta)
    if mechanism in ("hellingerMech", "hellingerMechPure"):
        pure = mechanism == "hellingerMechPure"
        mech = HellingerMechanism(alpha, counts, config.eps, None if pure else config.delta, pure=pure)
        cands = np.concatenate([ch.counts() for ch in mech.chunks()])
        return CandidateLaw(k, n, mechanism, cands, np.asarray(mech.hellinger(cands)), mech.probabilities(),
                            "exact", None)
    if mechanism not in ("laplace_tight", "laplace_k"):
        raise ValueError(f"unknown mechanism {mechanism!r}")
    sens = laplace_sensitivity(k, proportional=mechanism == "laplace_k")
    if k == 2:
        m1 = np.arange(n + 1)
        cands = np.stack([m1, n - m1], axis=1)
        return CandidateLaw(k, n, mechanism, cands, np.asarray(scorer.hellinger(cands)),
                            laplace_law_k2(counts[0], n, sens / config.eps), "exact", None)
    index = list(MECHANISMS).index(mechanism)
    rng = np.random.default_rng(np.random.SeedSequence([config.seed, k, n, index, 3]))
    released = laplace_releases(counts, config.eps, sens, config.draws, rng)
    cands, freq = np.unique(released, axis=0, return_counts=True)
    return CandidateLaw(k, n, mechanism, cands, np.asarray(scorer.hellinger(cands)), freq / config.draws,
                        "monte-carlo", config.draws)


@record(frozen=False)
class LawReport:
    config: LawConfig
    laws: List[CandidateLaw] = field(default_factory=list)
    files: List[str] = field(default_factory=list)
    seconds: float = 0.0


#: The distances at which ``law.md`` reports ``P(H <= h)``.
LAW_THRESHOLDS = (0.1, 0.25, 0.5, 0.9, 0.99)


def run_law(config: LawConfig, out_dir: str, progress: bool = True) -> LawReport:
    """Compute Fig. 3(b) and 3(c) and write ``law.csv`` (one row per release and candidate with
    positive probability, 10 significant digits), ``law.md`` and ``law_k{k}.png`` into
    ``out_dir``."""
    start = time.perf_counter()
    os.makedirs(out_dir, exist_ok=True)
    report = LawReport(config)
    points = [(k, n, m) for k, n in config.cases for m in config.mechanisms]
    for k, n, m in _progress(points, progress, "law", "law", lambda p: f"k={p[0]} n={p[1]} {p[2]}"):
        report.laws.append(candidate_law(k, n, m, config))
    report.seconds = time.perf_counter() - start

    def rows():
        for law in report.laws:
            for c, h, p in zip(law.counts, law.h, law.p):
                if p > 0:
                    yield [law.k, law.n, law.mechanism, " ".join(map(str, c)), float(h), float(p), law.method,
                           "" if law.draws is None else law.draws]
    report.files.append(_write_rows(os.path.join(out_dir, "law.csv"),
                                    ("k", "n", "mechanism", "candidate", "hellinger", "probability", "method",
                                     "draws"), rows(), digits=10))
    report.files.append(write_law_markdown(report, os.path.join(out_dir, "law.md")))
    for k, n in config.cases:
        report.files.append(plot_law(report, k, n, os.path.join(out_dir, f"law_k{k}.png")))
    return report


def write_law_markdown(report: LawReport, path: str) -> str:
    config = report.config
    lines = ["# Output laws of the releases (the seed poster's Fig. 3(b) and 3(c))", "",
             f"Balanced data, uniform prior, eps = {config.eps:g}, delta = {config.delta:g}. For each release: the "
             f"probability of the true posterior itself, P(H <= h) for the Hellinger distance H between the released "
             f"and the true posterior, and E[H]. Exact laws, except the Laplace baselines for k >= 3: "
             f"{config.draws:,} seeded draws each. Generated by `privinfer experiment law` in {report.seconds:.1f} s.",
             ""]
    for k, n in config.cases:
        lines += [f"## k = {k}, n = {n}", "",
                  "| release | method | P(true posterior) | " + " | ".join(f"P(H <= {t:g})" for t in LAW_THRESHOLDS)
                  + " | E[H] |",
                  "|" + "|".join("---" for _ in range(len(LAW_THRESHOLDS) + 4)) + "|"]
        for law in (x for x in report.laws if (x.k, x.n) == (k, n)):
            truth = np.flatnonzero((law.counts == np.asarray(balanced_counts(n, k))).all(axis=1))
            p_truth = float(law.p[truth].sum())
            cells = [_label(law.mechanism, k), law.method, f"{p_truth:.4f}"]
            cells += [f"{float(law.p[law.h <= t].sum()):.4f}" for t in LAW_THRESHOLDS]
            cells.append(f"{float(np.dot(law.p, law.h)):.4f}")
            lines.append("| " + " | ".join(cells) + " |")
        lines.append("")
    return _write_lines(path, lines)


def plot_law(report: LawReport, k: int, n: int, path: str) -> str:
    """Left: the probability of each candidate against its Hellinger distance to the true
    posterior (log y), one colour per release; right: ``P(H <= h)`` against ``h``."""
    plt = _pyplot()
    config = report.config
    fig, (left, right) = plt.subplots(1, 2, figsize=(12, 4.6), dpi=110)
    for law in (x for x in report.laws if (x.k, x.n) == (k, n)):
        color, marker = _STYLES.get(law.mechanism, (None, "o"))
        label = _label(law.mechanism, k) + (f" ({law.draws:,} draws)" if law.draws else "")
        keep = law.p > 0
        left.scatter(law.h[keep], law.p[keep], s=6 if k == 2 else 2, color=color, marker=marker, alpha=0.6,
                     label=label, linewidths=0)
        order = np.argsort(law.h, kind="stable")
        right.step(law.h[order], np.cumsum(law.p[order]), where="post", color=color, label=label)
    left.set_yscale("log")
    left.set_xlabel("Hellinger distance of the candidate to the true posterior")
    left.set_ylabel("probability of the candidate")
    left.set_title(f"k = {k}, n = {n}, eps = {config.eps:g}, delta = {config.delta:g}", fontsize=10)
    left.grid(True, which="both", alpha=0.3)
    left.legend(fontsize=7, markerscale=3)
    right.set_xlabel("h")
    right.set_ylabel("P(H <= h)")
    right.set_xlim(0, 1)
    right.set_ylim(0, 1.02)
    right.grid(True, alpha=0.3)
    right.legend(fontsize=7, loc="center right")
    return _save(fig, path)


# ======================================================================================
# shared helpers
# ======================================================================================


def _progress(items: Sequence, progress: bool, desc: str, unit: str, label=None) -> Iterator:
    """Yield ``items``, with a tqdm progress bar on stderr when ``progress`` (``label(item)``
    shown beside it)."""
    if not progress:
        yield from items
        return
    from tqdm import tqdm
    with tqdm(total=len(items), desc=desc, unit=unit) as bar:
        for item in items:
            if label is not None:
                bar.set_postfix_str(label(item))
            yield item
            bar.update(1)


def _pyplot():
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    return plt


def _write_lines(path: str, lines: Sequence[str]) -> str:
    with open(path, "w", encoding="utf-8") as handle:
        handle.write("\n".join(lines))
    return path


def _save(fig, path: str) -> str:
    fig.tight_layout()
    fig.savefig(path)
    _pyplot().close(fig)
    return path


def _write_rows(path: str, header: Sequence[str], rows: Iterable[Sequence[object]],
                digits: Optional[int] = None) -> str:
    """A CSV file: ``header`` then ``rows``; floats written with ``repr`` (round-trip exact) or,
    with ``digits``, to that many significant digits."""
    def text(x: object) -> object:
        if not isinstance(x, (float, np.floating)):
            return x
        return repr(float(x)) if digits is None else f"{float(x):.{digits}g}"
    with open(path, "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(header)
        for row in rows:
            writer.writerow([text(x) for x in row])
    return path


__all__ = [
    "MECHANISMS", "AccuracyConfig", "AccuracyRow", "AccuracyReport", "default_config", "balanced_counts",
    "laplace_sensitivity", "project_counts", "laplace_releases", "mechanism_error_stats", "measure_point",
    "run_accuracy", "write_csv", "write_markdown", "plot_k", "winners", "CSV_COLUMNS",
    "SensitivityConfig", "SensitivityRow", "TrendRow", "SensitivityReport", "default_sensitivity_config",
    "beta_local_sensitivities", "smooth_from_local", "sensitivity_trend_row", "run_sensitivity",
    "PriorsConfig", "PriorRow", "PriorsReport", "SYMMETRIC_PRIORS", "SKEWED_PRIORS", "default_priors_config",
    "laplace_law_k2", "law_stats", "measure_prior", "run_priors", "prior_winners",
    "LawConfig", "CandidateLaw", "LawReport", "default_law_config", "candidate_law", "run_law", "LAW_THRESHOLDS",
]
