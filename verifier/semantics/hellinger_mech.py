"""The smoothed-Hellinger exponential mechanism of the seed poster, fast and exact.

Bun, Farina, Gaboardi, Liu: "Tailoring Differentially Private Bayesian Inference to Distance
Between Distributions" (poster); corrections in NOTES.md §1 and §7.

Setting. A Dirichlet prior ``Dir(alpha)`` over ``k >= 2`` categories (``k = 2`` is the Beta
prior, ``alpha = (a, b)``, ``counts = (#true, #false)``) and a data set summarised by its count
vector ``c`` (``n = sum c``). The candidates are every posterior reachable with ``n``
observations, ``Dir(alpha + m)`` for each count vector ``m`` summing to ``n`` —
``C(n+k-1, k-1)`` of them. The mechanism draws ``m`` with probability

    ∝ exp(-eps * H(Dir(alpha + c), Dir(alpha + m)) / (2 S(c)))    ((eps, delta) form)
    ∝ exp(-eps * H(Dir(alpha + c), Dir(alpha + m)) / (4 S(c)))    (pure-eps form)

where ``H = sqrt(1 - BC)`` is the Hellinger distance and ``S`` the smooth sensitivity.

Closed forms used (derivations in docs/noise.md):

* ``ln BC(Dir(p), Dir(q)) = lnB((p+q)/2) - lnB(p)/2 - lnB(q)/2`` with
  ``lnB(a) = sum lnGamma(a_i) - lnGamma(sum a_i)``. For ``p = alpha + c``, ``q = alpha + m``
  all three parameter sums equal ``|alpha| + n``, so the ``lnGamma(sum)`` terms cancel and
  ``ln BC = sum_i T_i(m_i)`` with one table per category,
  ``T_i(m) = lnGamma(alpha_i + (c_i+m)/2) - lnGamma(alpha_i + c_i)/2 - lnGamma(alpha_i + m)/2``.
* Moving one observation from category ``i`` to ``j`` of a data set with posterior parameters
  ``A = alpha + c`` (``c_i >= 1``) gives ``BC = g(A_i - 1) g(A_j)``,
  ``g(x) = Gamma(x + 1/2) / (Gamma(x) sqrt(x))``; hence
  ``LS(c) = sqrt(1 - min_{i != j, c_i >= 1} g(A_i - 1) g(A_j))``.
* ``g`` is increasing and ``ln g`` is concave on ``(0, inf)`` (proof in docs/noise.md). This
  lets the smooth sensitivity be computed in ``O(k^2 n)`` without enumerating data sets.

Exactness. The tables use float64 ``lnGamma`` (``math.lgamma``, vectorised): scores carry an absolute
error of a few ulps of ``lnGamma(|alpha| + n)`` in ``ln BC`` (about 1e-12 at n = 600, 1e-10
at n = 10^4). ``ln g`` is accurate to about 1e-13 relative (gammaln below 12, an asymptotic
series above). Normalising sums accumulate in float64. This is ample for experiments; a
*release* (:meth:`HellingerMechanism.release`) samples exactly from the distribution defined
by the float64 log-weights (``NoiseSource.choice_log_weights``), so the only inexactness of a
release is this score rounding, not the sampling.

One score function. Every ``ln BC`` the module computes for a candidate — the enumeration
(:meth:`HellingerMechanism.log_weights`), :meth:`HellingerMechanism.hellinger`, the sampler —
adds the same table entries in the same order, so a candidate has one float64 weight
``W(m) = exp(lw(m))`` wherever it is scored (tested bit for bit).

Sampling without enumerating. :meth:`HellingerMechanism.sample` draws from ``W / sum W``
exactly by rejection: the candidates near the data's posterior (``H < H0``) are enumerated by
branch and bound over the separable tables and drawn by inverse CDF; every other candidate has
weight at most ``exp(-beta H0)`` and is proposed uniformly (stars and bars) and accepted with
probability ``W(m) / exp(-beta H0)``. The cost is the near set plus ``O(k log k)`` per attempt,
not the ``C(n+k-1, k-1)`` candidates (5.5e9 at k = 5, n = 600; 6.6e11 at k = 6).

Experiments versus releases. :meth:`HellingerMechanism.sample` draws with a caller-supplied
numpy ``Generator`` and float64 uniforms: **experiment draws are not releases**.
:meth:`HellingerMechanism.release` publishes an output of the float64 law with a releasable
source (it enumerates every candidate); ``privinfer run`` releases from the law with exact
scores instead (``evaluator._hellinger_release``: this plan's near set listed, the other
candidates drawn uniformly, each proposal accepted on its exact exponent).
"""

from __future__ import annotations

import bisect
import math
from fractions import Fraction
from typing import Iterator, Sequence

import numpy as np

from obligations.records import record
from verifier.semantics.noise import NoiseSource

__all__ = [
    "ln_g",
    "log_multivariate_beta",
    "dirichlet_log_bc",
    "dirichlet_hellinger",
    "neighbour_hellinger",
    "local_sensitivity",
    "smooth_sensitivity",
    "smooth_gamma",
    "candidates_count",
    "CandidateChunk",
    "SamplerPlan",
    "HellingerMechanism",
]

# --------------------------------------------------------------------------------------
# ln g and the Dirichlet Hellinger distance
# --------------------------------------------------------------------------------------

_LGAMMA = np.frompyfunc(math.lgamma, 1, 1)


def gammaln(x) -> np.ndarray:
    """``ln Gamma(x)`` for ``x > 0``, elementwise (``math.lgamma``; numpy has no lgamma, and
    the plain install does not carry scipy)."""
    return np.asarray(_LGAMMA(np.asarray(x, dtype=np.float64)), dtype=np.float64)


# ln Gamma(x + 1/2) - ln Gamma(x) - (1/2) ln x  ~  sum_{k even >= 2} c_k x^{1-k},
# c_k = (2^{1-k} - 2) B_k / (k (k - 1))   (Bernoulli-polynomial form of Stirling's series).
_BERNOULLI = {2: Fraction(1, 6), 4: Fraction(-1, 30), 6: Fraction(1, 42), 8: Fraction(-1, 30),
              10: Fraction(5, 66), 12: Fraction(-691, 2730), 14: Fraction(7, 6)}
_LNG_SERIES = [float((Fraction(2) ** (1 - k) - 2) * b / (k * (k - 1)))
               for k, b in sorted(_BERNOULLI.items())]  # -1/8, 1/192, -1/640, ...
_LNG_SERIES_FROM = 12.0  # first omitted term < 4e-16 relative for x >= 12


def ln_g(x) -> np.ndarray:
    """``ln g(x) = lnGamma(x + 1/2) - lnGamma(x) - ln(x)/2`` for ``x > 0``, vectorised.

    Accurate to about 1e-13 relative: ``gammaln`` differences below 12, the asymptotic series
    (7 terms) from 12 on, where ``ln g(x) ≈ -1/(8x)`` would lose all digits to cancellation.
    ``ln g < 0``, increasing, concave; ``g(1) = sqrt(pi)/2``.
    """
    x = np.asarray(x, dtype=np.float64)
    out = np.empty_like(x)
    small = x < _LNG_SERIES_FROM
    xs = x[small]
    out[small] = gammaln(xs + 0.5) - gammaln(xs) - 0.5 * np.log(xs)
    y = 1.0 / x[~small]
    y2 = y * y
    acc = np.zeros_like(y)
    for coef in reversed(_LNG_SERIES):
        acc = acc * y2 + coef
    out[~small] = acc * y
    return out


def log_multivariate_beta(a) -> float:
    """``ln B(a) = sum ln Gamma(a_i) - ln Gamma(sum a_i)`` (NOT divided by ``ln(sum a_i)``)."""
    a = [float(x) for x in np.asarray(a, dtype=np.float64)]
    return math.fsum(math.lgamma(x) for x in a) - math.lgamma(math.fsum(a))


def dirichlet_log_bc(p, q) -> float:
    """``ln BC(Dir(p), Dir(q)) = lnB((p+q)/2) - lnB(p)/2 - lnB(q)/2`` (direct, float64)."""
    p = np.asarray(p, dtype=np.float64)
    q = np.asarray(q, dtype=np.float64)
    return (log_multivariate_beta((p + q) / 2)
            - 0.5 * log_multivariate_beta(p) - 0.5 * log_multivariate_beta(q))


def dirichlet_hellinger(p, q) -> float:
    """Hellinger distance ``sqrt(1 - BC)`` between ``Dir(p)`` and ``Dir(q)`` (direct formula)."""
    return math.sqrt(max(0.0, -math.expm1(dirichlet_log_bc(p, q))))


def neighbour_hellinger(alpha, counts, i: int, j: int) -> float:
    """``H`` between the posteriors of ``counts`` and of ``counts`` with one count moved ``i -> j``.

    Closed form ``sqrt(1 - g(A_i - 1) g(A_j))`` with ``A = alpha + counts``; needs
    ``counts[i] >= 1``.
    """
    if i == j or counts[i] < 1:
        raise ValueError("need i != j and counts[i] >= 1")
    a_i = float(alpha[i]) + counts[i] - 1
    a_j = float(alpha[j]) + counts[j]
    lv = ln_g(np.array([a_i, a_j])).sum()
    return math.sqrt(max(0.0, -math.expm1(lv)))


def local_sensitivity(alpha, counts) -> float:
    """``LS(c) = max_{c' adjacent} H(BI(c), BI(c'))`` by the closed form (0 when ``n = 0``).

    By the triangle inequality, the maximum over candidates ``r`` in the poster's definition
    ``max |H(BI(c), r) - H(BI(c'), r)|`` is reached at ``r = BI(c')``; a neighbour moves one
    count ``i -> j``, so ``LS = sqrt(1 - min_{i != j, c_i >= 1} g(A_i - 1) g(A_j))``.
    """
    alpha = np.asarray(alpha, dtype=np.float64)
    c = np.asarray(counts, dtype=np.int64)
    if c.sum() == 0:
        return 0.0
    a = alpha + c
    from_i = np.where(c >= 1, ln_g(np.maximum(a - 1.0, alpha)), np.inf)
    to_j = ln_g(a)
    pair = from_i[:, None] + to_j[None, :]
    np.fill_diagonal(pair, np.inf)
    return math.sqrt(max(0.0, -math.expm1(float(pair.min()))))


def candidates_count(n: int, k: int) -> int:
    """``|R| = C(n + k - 1, k - 1)``: count vectors of ``k`` categories summing to ``n``."""
    return math.comb(n + k - 1, k - 1)


def smooth_gamma(eps: float, delta: float, n_candidates: int) -> float:
    """``gamma = ln(1 - eps / (2 ln(delta / (2 |R|))))`` (NOTES.md §7, corrected form)."""
    return math.log1p(-eps / (2.0 * math.log(delta / (2.0 * n_candidates))))


def _max_ls_within(alpha: np.ndarray, c: np.ndarray) -> np.ndarray:
    """``M[d] = max { LS(c') : c' a count vector with ||c' - c||_1 / 2 <= d }``, ``d = 0..n``.

    ``k = 2``: direct, every count vector is ``(m, n - m)``, ``d = |m - c_1|``.

    ``k >= 3``: ``LS(c') = sqrt(1 - exp(min over ordered pairs (i, j) of
    ln g(alpha_i + p - 1) + ln g(alpha_j + q)))`` with ``p = c'_i >= 1``, ``q = c'_j``. The
    cheapest data set with given ``(p, q)`` moves the balance to/from the other ``k - 2``
    categories, at distance ``max(|p - c_i|, |q - c_j|, |p + q - c_i - c_j|)``. ``ln g`` is
    increasing, so for each ``p`` the best ``q`` is the smallest one within budget,
    ``q(p) = max(0, c_j - d, c_i + c_j - d - p)``, and only ``p`` in
    ``[max(1, c_i - d), max(1, c_i)]`` can be optimal. On that range
    ``phi(p) = ln g(alpha_i + p - 1) + ln g(alpha_j + q(p))`` is concave up to the kink
    ``p* = c_i + c_j - d`` (sum of concave functions of affine arguments) and increasing after
    it, so its minimum is at ``p_lo``, ``clip(p*, p_lo, p_hi)`` or ``p_hi``: three evaluations
    per pair and per ``d``, ``O(k^2 n)`` in all.
    """
    k = c.shape[0]
    n = int(c.sum())
    if k == 2:
        m = np.arange(n + 1)
        a1 = alpha[0] + m
        a2 = alpha[1] + (n - m)
        v12 = np.where(m >= 1, ln_g(np.maximum(a1 - 1.0, alpha[0])) + ln_g(a2), np.inf)
        v21 = np.where(n - m >= 1, ln_g(np.maximum(a2 - 1.0, alpha[1])) + ln_g(a1), np.inf)
        ls = np.sqrt(np.maximum(0.0, -np.expm1(np.minimum(v12, v21))))
        dist = np.abs(m - int(c[0]))
        out = np.zeros(n + 1)
        np.maximum.at(out, dist, ls)
        return np.maximum.accumulate(out)
    d = np.arange(n + 1)
    best = np.full(n + 1, np.inf)
    for i in range(k):
        ci = int(c[i])
        p_lo = np.maximum(1, ci - d)
        p_hi = np.full(n + 1, max(1, ci))
        feasible = (ci >= 1) | (d >= 1)      # p >= 1 costs a move when c_i = 0
        for j in range(k):
            if j == i:
                continue
            cj = int(c[j])
            kink = np.clip(ci + cj - d, p_lo, p_hi)
            for p in (p_lo, kink, p_hi):
                q = np.maximum(0, np.maximum(cj - d, ci + cj - d - p))
                val = ln_g(alpha[i] + p - 1.0) + ln_g(alpha[j] + q)
                best = np.where(feasible, np.minimum(best, val), best)
    return np.sqrt(np.maximum(0.0, -np.expm1(best)))


def smooth_sensitivity(alpha, counts, eps: float, delta: float | None = None,
                       pure: bool = False, gamma: float | None = None) -> float:
    """The smooth sensitivity ``S(c)`` of the Hellinger score, without enumerating data sets.

    * ``(eps, delta)`` form: ``S = max_{c'} LS(c') exp(-gamma d(c, c'))``, ``gamma`` by
      :func:`smooth_gamma` with ``|R| = C(n+k-1, k-1)``;
    * pure form: ``S = max_{c'} 1 / (1/LS(c') + d(c, c'))`` (``gamma = 1``).

    ``d`` is the Hamming distance of data sets, i.e. half the L1 distance of count vectors.
    Both forms are increasing in ``LS(c')`` for fixed ``d``, so ``S = max_d F(M[d], d)`` with
    ``M`` from :func:`_max_ls_within`. Returns 0 when ``n = 0`` (no neighbours).
    """
    alpha = np.asarray(alpha, dtype=np.float64)
    c = np.asarray(counts, dtype=np.int64)
    n = int(c.sum())
    if n == 0:
        return 0.0
    m = _max_ls_within(alpha, c)
    d = np.arange(n + 1, dtype=np.float64)
    if pure:
        vals = 1.0 / (1.0 / m + d)       # m > 0: distinct posteriors are at H > 0
    else:
        if gamma is None:
            if delta is None:
                raise ValueError("the (eps, delta) form needs delta")
            gamma = smooth_gamma(eps, delta, candidates_count(n, c.shape[0]))
        vals = m * np.exp(-gamma * d)
    return float(vals.max())


# --------------------------------------------------------------------------------------
# Candidate enumeration in chunks
# --------------------------------------------------------------------------------------

_CHUNK_MAX = 1 << 21          # largest chunk (candidates) handed to numpy at once
_MASTER_MAX = 1 << 23         # cache the (s, u) triangle up to this many entries

# The sampler (HellingerMechanism.sample / sampler_plan)
_TAU = 3.0                    # ln of the worst-case attempts per draw on the far candidates
_ENUMERATE_ALL = 1 << 16      # up to this many candidates, all are "near" (no rejection)
_FRONTIER_MAX = 1 << 22       # largest block of partial count vectors in near_set
_ATTEMPTS_MAX = 1 << 18       # largest batch of sampler attempts


@record
class CandidateChunk:
    """A contiguous block of candidates in the canonical order.

    Canonical order: for ``k = 2``, ``m_1 = 0..n`` (``m_2 = n - m_1``). For ``k >= 3``, the
    prefixes ``(m_1, ..., m_{k-3})`` in lexicographic order; within a prefix with remainder
    ``r = n - sum(prefix)``, the pairs ``(u, v) = (m_{k-2}, m_{k-1})`` ordered by
    ``s = u + v`` then ``u`` (so ``m_k = r - s``). A chunk holds the pairs with
    ``s_lo <= s < s_hi`` (for ``k = 2``: ``s_lo <= m_1 < s_hi``).
    """

    offset: int                 #: global index of the chunk's first candidate
    prefix: tuple[int, ...]     #: fixed leading counts (``k >= 4``), else ``()``
    remainder: int              #: ``n - sum(prefix)``
    s_lo: int
    s_hi: int
    k: int

    @property
    def size(self) -> int:
        if self.k == 2:
            return self.s_hi - self.s_lo
        return (self.s_hi * (self.s_hi + 1) - self.s_lo * (self.s_lo + 1)) // 2

    def su(self) -> tuple[np.ndarray, np.ndarray]:
        """``(s, u)`` arrays of the chunk (``k >= 3``)."""
        return _triangle(self.s_lo, self.s_hi)

    def counts(self) -> np.ndarray:
        """The chunk's candidate count vectors, shape ``(size, k)``, int64."""
        if self.k == 2:
            m1 = np.arange(self.s_lo, self.s_hi, dtype=np.int64)
            return np.stack([m1, self.remainder - m1], axis=1)
        s, u = self.su()
        out = np.empty((s.shape[0], self.k), dtype=np.int64)
        out[:, :self.k - 3] = np.asarray(self.prefix, dtype=np.int64)
        out[:, self.k - 3] = u
        out[:, self.k - 2] = s - u
        out[:, self.k - 1] = self.remainder - s
        return out


@record
class SamplerPlan:
    """What :meth:`HellingerMechanism.sample` needs, computed once (``sampler_plan``).

    ``N = {m : ln BC(m) > l0}`` is the near set, ``near_counts`` its members, ``near_lw`` their
    log-weights and ``cum_near`` the cumulative sums of their weights ``exp(lw)`` (``z_near``
    the last one, 0 if ``N`` is empty); every candidate outside ``N`` has ``lw <= lw0``;
    ``total = z_near + |R| exp(lw0)`` (``total = z_near`` when ``N`` holds every candidate).
    """

    l0: float
    lw0: float
    near_counts: np.ndarray
    cum_near: np.ndarray
    z_near: float
    total: float
    near_lw: np.ndarray


def _triangle(s_lo: int, s_hi: int) -> tuple[np.ndarray, np.ndarray]:
    """All ``(s, u)`` with ``s_lo <= s < s_hi``, ``0 <= u <= s``, ordered by ``s`` then ``u``."""
    s_vals = np.arange(s_lo, s_hi, dtype=np.int64)
    sizes = s_vals + 1
    s = np.repeat(s_vals, sizes)
    starts = np.cumsum(sizes) - sizes
    u = np.arange(s.shape[0], dtype=np.int64) - np.repeat(starts, sizes)
    return s, u


def _split_s_range(r: int, limit: int) -> list[tuple[int, int]]:
    """Split ``s = 0..r`` into consecutive ranges of at most ``limit`` triangle entries each."""
    out, lo = [], 0
    while lo <= r:
        hi, size = lo, 0
        while hi <= r and (size + hi + 1 <= limit or hi == lo):
            size += hi + 1
            hi += 1
        out.append((lo, hi))
        lo = hi
    return out


# --------------------------------------------------------------------------------------
# The mechanism
# --------------------------------------------------------------------------------------

class HellingerMechanism:
    """``hellingerMech`` (``pure=False``, needs ``delta``) and ``hellingerMechPure`` (``pure``).

    ``prior_alpha``: ``k >= 2`` positive reals; ``counts``: ``k`` non-negative integers (the
    data set's histogram, ``n = sum``); ``eps > 0``; ``0 < delta < 1`` for the (eps, delta)
    form, ``delta=None`` for the pure form.
    """

    def __init__(self, prior_alpha: Sequence[float], counts: Sequence[int], eps: float,
                 delta: float | None = None, pure: bool = False, gamma: float | None = None):
        alpha = np.asarray([float(a) for a in prior_alpha], dtype=np.float64)
        if alpha.shape[0] < 2 or not (np.isfinite(alpha).all() and (alpha > 0).all()):
            raise ValueError("prior_alpha needs k >= 2 positive finite parameters")
        c = [int(x) for x in counts]
        if len(c) != alpha.shape[0] or any(x < 0 for x in c) or any(
                int(x) != x for x in counts):
            raise ValueError("counts must be k non-negative integers")
        eps = float(eps)
        if not (math.isfinite(eps) and eps > 0):
            raise ValueError("eps must be > 0")
        if pure:
            if delta is not None:
                raise ValueError("the pure form takes no delta")
        else:
            if delta is None or not (0.0 < float(delta) < 1.0):
                raise ValueError("the (eps, delta) form needs 0 < delta < 1")
            delta = float(delta)
        self.alpha = alpha
        self.counts = tuple(c)
        self.k = alpha.shape[0]
        self.n = sum(c)
        self.eps = eps
        self.delta = delta
        self.pure = pure
        self.candidates_count = candidates_count(self.n, self.k)
        #: the smoothing parameter when the caller computed it (exactly, then rounded down:
        #: a smaller gamma gives a larger, still gamma-smooth, sensitivity bound)
        self._gamma = gamma
        self._tables = self._score_tables()
        self._s: float | None = None
        self._chunks: list[CandidateChunk] | None = None
        self._master: tuple[np.ndarray, np.ndarray] | None = None
        self._plan: SamplerPlan | None = None

    # ---- sensitivities ----

    def local_sensitivity(self) -> float:
        """``LS`` at the data set's counts (closed form)."""
        return local_sensitivity(self.alpha, self.counts)

    def smooth_sensitivity(self) -> float:
        """``S`` at the data set's counts (``O(k^2 n)``, cached)."""
        if self._s is None:
            self._s = smooth_sensitivity(self.alpha, self.counts, self.eps, self.delta,
                                         self.pure, self._gamma)
        return self._s

    @property
    def gamma(self) -> float:
        """The smoothing parameter: ``smooth_gamma(eps, delta, |R|)``, or 1 in the pure form."""
        if self.pure:
            return 1.0
        if self._gamma is not None:
            return self._gamma
        return smooth_gamma(self.eps, self.delta, self.candidates_count)

    @property
    def beta(self) -> float:
        """The exponent's coefficient: ``log w(r) = -beta * H(BI(x), r)``.

        ``eps / (2 S)`` ((eps, delta) form) or ``eps / (4 S)`` (pure form); ``inf`` if ``n = 0``.
        """
        s = self.smooth_sensitivity()
        if s == 0.0:
            return math.inf
        return self.eps / ((4.0 if self.pure else 2.0) * s)

    # ---- scores ----

    def _score_tables(self) -> list[np.ndarray]:
        """``T_i(m)``, ``m = 0..n``, per category: ``ln BC(BI(x), Dir(alpha+m)) = sum T_i(m_i)``."""
        n = self.n
        half = np.arange(2 * n + 1, dtype=np.float64) / 2.0
        tables = []
        for a, ci in zip(self.alpha, self.counts):
            g = gammaln(a + half)  # lnGamma(a + h/2), h = 0..2n
            m = np.arange(n + 1)
            tables.append(g[ci + m] - 0.5 * g[2 * ci] - 0.5 * g[2 * m])
        return tables

    def posterior_parameters(self, m: Sequence[int]) -> tuple[float, ...]:
        """The candidate ``Dir(alpha + m)``'s parameters."""
        return tuple(float(a + x) for a, x in zip(self.alpha, m))

    def hellinger(self, m) -> np.ndarray | float:
        """``H(BI(x), Dir(alpha + m))`` for one count vector or an ``(N, k)`` array of them
        (the float64 value the mechanism's weights use, never ``-0.0``)."""
        arr = np.asarray(m, dtype=np.int64)
        single = arr.ndim == 1
        arr = np.atleast_2d(arr)
        if arr.shape[1] != self.k or (arr.sum(axis=1) != self.n).any() or (arr < 0).any():
            raise ValueError("candidates are count vectors of length k summing to n")
        h = np.negative(np.expm1(self._log_bc_rows(arr)))   # the law's own ln BC, <= 0
        h += 0.0                                             # -0.0 -> 0.0
        h = np.sqrt(h, out=h)
        return float(h[0]) if single else h

    # ---- enumeration ----

    def chunks(self) -> list[CandidateChunk]:
        """The canonical chunk list (cached)."""
        if self._chunks is None:
            self._chunks = list(self._make_chunks())
        return self._chunks

    def _make_chunks(self) -> Iterator[CandidateChunk]:
        n, k = self.n, self.k
        offset = 0
        if k == 2:
            for lo in range(0, n + 1, _CHUNK_MAX):
                hi = min(n + 1, lo + _CHUNK_MAX)
                yield CandidateChunk(offset, (), n, lo, hi, 2)
                offset += hi - lo
            return
        splits: dict[int, list[tuple[int, int]]] = {}
        for prefix in _prefixes(n, k - 3):
            r = n - sum(prefix)
            if r not in splits:
                splits[r] = _split_s_range(r, _CHUNK_MAX)
            for lo, hi in splits[r]:
                ch = CandidateChunk(offset, prefix, r, lo, hi, k)
                yield ch
                offset += ch.size

    def _chunk_log_bc(self, ch: CandidateChunk) -> np.ndarray:
        """``ln BC`` for every candidate of the chunk (float64, clipped to ``<= 0``)."""
        t = self._tables
        if self.k == 2:
            m1 = np.arange(ch.s_lo, ch.s_hi)
            lbc = t[0][m1] + t[1][self.n - m1]
        else:
            k = self.k
            base = sum(float(t[i][x]) for i, x in enumerate(ch.prefix))
            lo = ch.s_lo * (ch.s_lo + 1) // 2
            hi = ch.s_hi * (ch.s_hi + 1) // 2
            master = self._master_triangle()
            if master is not None and hi <= master[0].shape[0]:
                s = master[0][lo:hi]
                pair = master[1][lo:hi]
            else:
                s, u = ch.su()
                pair = t[k - 3][u] + t[k - 2][s - u]
            lbc = pair + t[k - 1][ch.remainder - s]
            if base != 0.0:
                lbc += base
        return np.minimum(lbc, 0.0, out=lbc)

    def _master_triangle(self) -> tuple[np.ndarray, np.ndarray] | None:
        """``(s, T_{k-2}[u] + T_{k-1}[s - u])`` over the full triangle ``s <= n`` when small."""
        if self._master is None and self.k >= 3:
            size = (self.n + 1) * (self.n + 2) // 2
            if size <= _MASTER_MAX:
                s, u = _triangle(0, self.n + 1)
                t = self._tables
                self._master = (s, t[self.k - 3][u] + t[self.k - 2][s - u])
        return self._master

    def _chunk_hellinger(self, ch: CandidateChunk) -> np.ndarray:
        x = self._chunk_log_bc(ch)             # ln BC <= 0
        np.expm1(x, out=x)                     # BC - 1 in (-1, 0], no cancellation
        np.negative(x, out=x)                  # 1 - BC
        return np.sqrt(x, out=x)

    def log_weights(self) -> Iterator[tuple[CandidateChunk, np.ndarray]]:
        """Yield ``(chunk, log_weights)`` in canonical order: ``log w = -beta * H`` (<= 0).

        The maximum, 0, is reached at the true posterior (``m = counts``). Concatenating the
        arrays gives the log-weights of all ``candidates_count`` candidates.
        """
        if self.n == 0:                     # one candidate: the prior itself
            yield self.chunks()[0], np.zeros(1)
            return
        b = self.beta
        for ch in self.chunks():
            h = self._chunk_hellinger(ch)
            yield ch, np.multiply(h, -b, out=h)

    def candidate(self, index: int) -> tuple[int, ...]:
        """The count vector at a global index of the canonical order (unranking)."""
        if not 0 <= index < self.candidates_count:
            raise IndexError("candidate index out of range")
        chunks = self.chunks()
        pos = bisect.bisect_right([ch.offset for ch in chunks], index) - 1
        ch = chunks[pos]
        local = index - ch.offset
        if self.k == 2:
            m1 = ch.s_lo + local
            return (m1, self.n - m1)
        g = ch.s_lo * (ch.s_lo + 1) // 2 + local   # index in the full triangle
        s = (math.isqrt(8 * g + 1) - 1) // 2
        u = g - s * (s + 1) // 2
        return (*ch.prefix, u, s - u, ch.remainder - s)

    # ---- sampling, expectation, release ----

    def sample(self, n_draws: int, rng: np.random.Generator) -> np.ndarray:
        """``n_draws`` i.i.d. experiment draws, shape ``(n_draws, k)`` (candidate count vectors).

        The law is the mechanism's, ``Pr[m] ∝ W(m) = exp(lw(m))`` with the very float64
        log-weights of :meth:`log_weights` — no MCMC, no truncation — but the sampler does not
        enumerate the candidates: it is the rejection sampler of :meth:`sampler_plan`, whose
        cost is the near set (186,821 candidates at k = 5, n = 600, balanced; it grows like
        ``n^((k-1)/2)``) plus ``O(k log k)`` per attempt, at most about
        ``e^TAU |R| / (|R| - |N|)`` attempts per draw. Float64 uniforms (``rng``): **experiment
        draws, not releases** (use :meth:`release`).

        Algorithm (one attempt; attempts are i.i.d. and the first ``n_draws`` successes are
        returned, in attempt order):

        1. ``u`` uniform on ``[0, Z_near + F)``, ``Z_near = sum_{m in N} W(m)``,
           ``F = |R| exp(lw0)``;
        2. ``u < Z_near``: return the near candidate found by inverse CDF on the near weights
           (success);
        3. otherwise draw ``m`` uniformly from **all** of ``R`` (stars and bars); fail if
           ``m`` is in ``N``; else succeed with probability ``exp(lw(m) - lw0)``.

        Each attempt returns a given ``m`` with probability ``W(m) / (Z_near + F)`` (step 2 for
        ``m`` in ``N``; ``(F / |R|) exp(lw(m) - lw0)`` for the others), so a success is
        distributed exactly as ``W / sum W``. ``lw0 >= lw(m)`` for every ``m`` outside ``N``
        (see :meth:`sampler_plan`); when ``N = R``, ``F = 0`` and step 2 is plain inverse CDF.
        """
        if n_draws < 0:
            raise ValueError("n_draws must be >= 0")
        if self.n == 0 or n_draws == 0:
            return np.zeros((n_draws, self.k), dtype=np.int64) + np.asarray(self.counts)
        plan = self.sampler_plan()
        out = np.empty((n_draws, self.k), dtype=np.int64)
        filled = 0
        rate = 0.5                                   # running estimate of the success rate
        while filled < n_draws:
            need = n_draws - filled
            batch = int(min(_ATTEMPTS_MAX, max(64, 1.25 * need / rate)))
            got = self._attempts(plan, batch, rng)
            rate = max(len(got) / batch, 1e-6)
            take = got[:need]
            out[filled:filled + take.shape[0]] = take
            filled += take.shape[0]
        return out

    def _attempts(self, plan: "SamplerPlan", batch: int,
                  rng: np.random.Generator) -> np.ndarray:
        """``batch`` i.i.d. attempts of :meth:`sample`; the successes' count vectors in
        attempt order."""
        u = rng.random(batch) * plan.total
        near = u < plan.z_near
        found = np.empty((batch, self.k), dtype=np.int64)
        ok = near.copy()
        if near.any():
            pos = np.searchsorted(plan.cum_near, u[near], side="right")
            found[near] = plan.near_counts[np.minimum(pos, plan.cum_near.shape[0] - 1)]
        far = np.flatnonzero(~near)
        if far.size:
            m = self._uniform_candidates(far.size, rng)
            lbc = self._log_bc_rows(m)
            lw = self._lw_from_log_bc(lbc)
            v = rng.random(far.size)
            accept = (lbc <= plan.l0) & (v < np.exp(lw - plan.lw0))
            found[far] = m
            ok[far] = accept
        return found[ok]

    def _uniform_candidates(self, count: int, rng: np.random.Generator) -> np.ndarray:
        """``count`` candidates drawn uniformly from all ``C(n+k-1, k-1)``, shape ``(count, k)``.

        Stars and bars: ``k - 1`` distinct bar positions among ``n + k - 1`` slots, a
        uniform ``(k-1)``-subset (ordered draws, rows with a repeated position redrawn until
        none is left), then ``m`` = the gaps between the bars."""
        k, slots = self.k, self.n + self.k - 1
        bars = np.sort(rng.integers(0, slots, size=(count, k - 1)), axis=1)
        bad = np.flatnonzero((np.diff(bars, axis=1) == 0).any(axis=1))
        while bad.size:
            redo = np.sort(rng.integers(0, slots, size=(bad.size, k - 1)), axis=1)
            bars[bad] = redo
            bad = bad[(np.diff(redo, axis=1) == 0).any(axis=1)]
        edges = np.concatenate([np.full((count, 1), -1, dtype=np.int64), bars,
                                np.full((count, 1), slots, dtype=np.int64)], axis=1)
        return np.diff(edges, axis=1) - 1

    # ---- the near set and the sampler's plan ----

    def sampler_plan(self) -> "SamplerPlan":
        """The rejection sampler's data (cached): the threshold, the near set, the bound.

        ``TAU = ln(attempts per draw)`` bounds the work per draw: the threshold on the
        distance is ``H0 = 1 - TAU / beta``, the near set is ``N = {m : ln BC(m) > l0}`` with
        ``l0 = ln(1 - H0^2)`` (``l0 = 0`` when ``H0 <= 0``), and every other candidate has
        ``H >= H0``, hence ``lw <= lw0 = -beta H0`` (plus ``1e-9 (1 + beta)``: room over float
        rounding; an upper bound only has to be an upper bound, tested against every far
        candidate on small cases). So
        ``|R| exp(lw0) <= e^TAU |R| exp(-beta)``, at most ``e^TAU`` times the far candidates'
        true mass when they dominate. Small problems (``|R| <= ENUMERATE_ALL``) put every
        candidate in ``N`` (``l0 = -inf``, no rejection).
        """
        if self._plan is None:
            b = self.beta
            if self.candidates_count <= _ENUMERATE_ALL:
                l0, lw0 = -math.inf, -math.inf
            else:
                h0 = 1.0 - _TAU / b
                if h0 <= 0.0:
                    l0, lw0 = 0.0, 1e-9
                else:
                    l0 = math.log1p(-h0 * h0)
                    lw0 = -b * h0 + 1e-9 * (1.0 + b)
            counts, lbc = self.near_set(l0)
            lw = self._lw_from_log_bc(lbc)
            cum = np.cumsum(np.exp(lw))
            z_near = float(cum[-1]) if cum.size else 0.0
            far = counts.shape[0] < self.candidates_count
            f_mass = float(self.candidates_count) * math.exp(lw0) if far else 0.0
            self._plan = SamplerPlan(l0, lw0, counts, cum, z_near, z_near + f_mass, lw)
        return self._plan

    def near_set(self, l0: float) -> tuple[np.ndarray, np.ndarray]:
        """Every candidate with ``ln BC > l0`` and its ``ln BC`` (:meth:`_log_bc_rows`, the
        very values of the enumeration), without enumerating the others.

        Branch and bound over the categories in order: each ``T_i <= 0`` (``lnΓ`` is
        log-convex), so a partial count vector ``(m_1..m_j)`` can only be completed into the
        near set when its partial sum
        plus the tables' maxima of the remaining categories exceeds ``l0`` (tested with a
        slack of ``1e-9 (1 + |l0|)`` against float reordering, so pruning never loses a
        member), and when the remaining observations fit in the remaining categories'
        admissible values; the last category takes what remains. The survivors are filtered
        exactly by ``_log_bc_rows > l0``. Returns ``(counts, ln BC)``: an ``(N, k)`` array of
        the smallest integer type that holds ``n`` and an ``(N,)`` float64 array, in no
        particular order. Cost: about the size of the near set (times the width of one
        category's admissible range), never the number of candidates.
        """
        k, n, t = self.k, self.n, self._tables
        if math.isinf(l0) and l0 < 0:
            bound = -math.inf
        else:
            bound = l0 - 1e-9 * (1.0 + abs(l0))
        tmax = [float(ti.max()) for ti in t]
        rest_max = [math.fsum(tmax[j:]) + 1e-12 * k for j in range(k + 1)]
        total_max = rest_max[0]
        adm = []
        for i in range(k):
            vals = np.flatnonzero(t[i] + (total_max - tmax[i]) > bound)
            if vals.size == 0:
                return np.zeros((0, k), dtype=np.int64), np.zeros(0)
            adm.append(vals)
        lo_rest = [int(sum(int(a[0]) for a in adm[j:])) for j in range(k + 1)]
        hi_rest = [int(sum(int(a[-1]) for a in adm[j:])) for j in range(k + 1)]
        last_ok = np.zeros(n + 1, dtype=bool)
        last_ok[adm[k - 1]] = True
        parts: list[np.ndarray] = []

        def expand(prefix: np.ndarray, partial: np.ndarray, j: int) -> None:
            """Extend every ``prefix`` (``j`` counts fixed) by category ``j``; at ``j = k-2``
            the last count is what remains, and the complete rows are kept."""
            vals = adm[j]
            per = max(1, _FRONTIER_MAX // vals.size)
            for lo in range(0, prefix.shape[0], per):
                p = prefix[lo:lo + per]
                rem = (n - p.sum(axis=1, dtype=np.int64))[:, None] - vals[None, :]
                keep = (rem >= lo_rest[j + 1]) & (rem <= hi_rest[j + 1])
                score = partial[lo:lo + per, None] + t[j][vals][None, :]
                if j == k - 2:                 # the last category takes the remainder
                    keep[keep] = last_ok[rem[keep]]
                    score[keep] += t[k - 1][rem[keep]]
                    keep &= score > bound
                else:
                    keep &= score + rest_max[j + 1] > bound
                rows, cols = np.nonzero(keep)
                if rows.size == 0:
                    continue
                nxt = np.concatenate([p[rows], vals[cols, None].astype(p.dtype)], axis=1)
                if j == k - 2:
                    parts.append(np.concatenate(
                        [nxt, rem[rows, cols, None].astype(p.dtype)], axis=1))
                else:
                    expand(nxt, score[rows, cols], j + 1)

        dtype = np.int16 if n < 2**15 else np.int32 if n < 2**31 else np.int64
        expand(np.zeros((1, 0), dtype=dtype), np.zeros(1), 0)
        if not parts:
            return np.zeros((0, k), dtype=np.int64), np.zeros(0)
        counts = np.concatenate(parts)
        lbc = self._log_bc_rows(counts)
        keep = lbc > l0
        return counts[keep], lbc[keep]

    def _log_bc_rows(self, m: np.ndarray) -> np.ndarray:
        """``ln BC`` of the candidates ``m`` (an ``(N, k)`` int array), clipped to ``<= 0``.

        Bit for bit the value the enumeration (:meth:`_chunk_log_bc`) gives the same
        candidate: the same table entries added in the same order
        (``(T_{k-2}[u] + T_{k-1}[v]) + T_k[w]``, then the prefix's ``T_1 + ... + T_{k-3}``
        summed left to right; ``T_1 + T_2`` for ``k = 2``)."""
        t, k = self._tables, self.k
        if k == 2:
            lbc = t[0][m[:, 0]] + t[1][m[:, 1]]
        else:
            lbc = t[k - 3][m[:, k - 3]] + t[k - 2][m[:, k - 2]]
            lbc += t[k - 1][m[:, k - 1]]
            if k > 3:
                base = t[0][m[:, 0]]
                for i in range(1, k - 3):
                    base = base + t[i][m[:, i]]
                lbc += base
        return np.minimum(lbc, 0.0, out=lbc)

    def _lw_from_log_bc(self, lbc: np.ndarray) -> np.ndarray:
        """``lw = -beta * sqrt(-expm1(ln BC))``: the operations of :meth:`log_weights`."""
        h = np.sqrt(np.negative(np.expm1(lbc)))
        return np.multiply(h, -self.beta, out=h)

    def _counts_at(self, ch: CandidateChunk, pos: np.ndarray) -> np.ndarray:
        """Count vectors of the chunk's candidates at local positions ``pos`` (vectorised)."""
        if self.k == 2:
            m1 = ch.s_lo + pos
            return np.stack([m1, self.n - m1], axis=1)
        g = ch.s_lo * (ch.s_lo + 1) // 2 + pos.astype(np.int64)
        s = ((np.sqrt(8.0 * g + 1.0) - 1.0) // 2).astype(np.int64)
        s -= (s * (s + 1) // 2 > g)                 # exact integer fix-ups of the float root
        s += ((s + 1) * (s + 2) // 2 <= g)
        u = g - s * (s + 1) // 2
        out = np.empty((pos.shape[0], self.k), dtype=np.int64)
        out[:, :self.k - 3] = np.asarray(ch.prefix, dtype=np.int64)
        out[:, self.k - 3] = u
        out[:, self.k - 2] = s - u
        out[:, self.k - 1] = ch.remainder - s
        return out

    def probabilities(self) -> np.ndarray:
        """The mechanism's exact output law over all candidates (canonical order), float64.

        Materialises ``candidates_count`` floats: meant for tests and small cases.
        """
        lw = np.concatenate([w for _, w in self.log_weights()])
        w = np.exp(lw - lw.max())
        return w / w.sum()

    def expected_hellinger(self) -> float:
        """``E[H(BI(x), r)]`` under the mechanism, by full enumeration (no sampling).

        One streaming pass over every candidate: ``sum w H / sum w`` in float64.
        """
        if self.n == 0:
            return 0.0
        b = self.beta
        num = den = 0.0
        for ch in self.chunks():
            h = self._chunk_hellinger(ch)
            w = np.multiply(h, -b)
            np.exp(w, out=w)
            num += float(np.dot(w, h))
            den += float(w.sum())
        return num / den

    def release(self, source: NoiseSource) -> tuple[int, ...]:
        """One output of the mechanism, drawn through ``source.choice_log_weights``.

        Returns the chosen candidate's count vector ``m`` (the posterior is
        ``Dir(alpha + m)``, see :meth:`posterior_parameters`). The draw is exact for the
        float64 log-weights. Publishing it is only sound with ``source.releasable``; the
        caller is responsible for that check (a seeded source is accepted for tests).
        Materialises all log-weights (8 bytes per candidate: about 290 MB at k = 4, n = 600).
        """
        if self.n == 0:
            return tuple(self.counts)
        lw = np.empty(self.candidates_count, dtype=np.float64)
        for ch, w in self.log_weights():
            lw[ch.offset:ch.offset + ch.size] = w
        return self.candidate(source.choice_log_weights(lw))


def _prefixes(n: int, length: int) -> Iterator[tuple[int, ...]]:
    """All tuples of ``length`` non-negative ints with sum ``<= n``, lexicographic."""
    if length == 0:
        yield ()
        return
    for first in range(n + 1):
        for rest in _prefixes(n - first, length - 1):
            yield (first, *rest)
