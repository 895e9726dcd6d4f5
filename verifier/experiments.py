"""The seed poster's accuracy study (``privinfer experiment accuracy``).

Bun, Farina, Gaboardi, Liu, "Tailoring Differentially Private Bayesian Inference to Distance
Between Distributions" (poster), Fig. 2: the Hellinger distance between the released posterior
and the true posterior, for

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
  ``laplace_releases``, ``mechanism_error_stats``, ``measure_point``.
"""
from __future__ import annotations

import csv
import math
import os
import time
from typing import Dict, Iterable, List, Optional, Sequence, Tuple

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
    bar = None
    if progress:
        from tqdm import tqdm
        bar = tqdm(total=len(points), desc="accuracy", unit="point")
    try:
        for k, n, mechanism in points:
            if bar is not None:
                bar.set_postfix_str(f"k={k} n={n} {mechanism}")
            report.rows.append(measure_point(k, n, mechanism, config))
            if bar is not None:
                bar.update(1)
    finally:
        if bar is not None:
            bar.close()
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
    with open(path, "w", encoding="utf-8") as handle:
        handle.write("\n".join(lines))
    return path


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
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4.5), dpi=110)
    sizes = list(config.sizes[k])
    width = (sizes[1] - sizes[0]) if len(sizes) > 1 else 10
    styles = {"hellingerMech": ("tab:blue", "o"), "hellingerMechPure": ("tab:purple", "s"),
              "laplace_tight": ("tab:red", "^"), "laplace_k": ("tab:green", "v")}
    present = [m for m in MECHANISMS if any(r.mechanism == m and r.k == k for r in rows)]
    for i, m in enumerate(present):
        rs = sorted((r for r in rows if r.k == k and r.mechanism == m), key=lambda r: r.n)
        shift = (i - (len(present) - 1) / 2) * width * 0.06
        x = np.array([r.n for r in rs], dtype=float) + shift
        mean = np.array([r.mean for r in rs])
        lower = mean - np.array([r.q1 for r in rs])
        upper = np.array([r.q3 for r in rs]) - mean
        color, marker = styles.get(m, (None, "o"))
        ax.errorbar(x, mean, yerr=[np.maximum(lower, 0), np.maximum(upper, 0)], color=color, marker=marker,
                    markersize=4, linewidth=1.2, capsize=2.5, label=_label(m, k))
    ax.set_ylim(bottom=0)
    ax.set_xlabel("data size n")
    ax.set_ylabel("Hellinger distance to the true posterior")
    ax.set_title(f"k = {k} categories, eps = {config.eps:g}, delta = {config.delta:g} "
                 f"(mean; bars: quartiles)", fontsize=10)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
    return path


__all__ = [
    "MECHANISMS", "AccuracyConfig", "AccuracyRow", "AccuracyReport", "default_config", "balanced_counts",
    "laplace_sensitivity", "project_counts", "laplace_releases", "mechanism_error_stats", "measure_point",
    "run_accuracy", "write_csv", "write_markdown", "plot_k", "winners", "CSV_COLUMNS",
]
