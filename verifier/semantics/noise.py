"""Noise that is safe to release.

Every privacy mechanism of the language (``lapMech``, ``gaussMech``, ``expMech``,
``hellingerMech``, ``hellingerMechPure``) draws its noise through a :class:`NoiseSource`.
There is **one algorithm and two bit sources**:

* :func:`secure_source` reads its random bits from ``secrets`` (``os.urandom``); its output
  may be released (``releasable is True``);
* :func:`seeded_source` reads them from a deterministic SHAKE-256 stream keyed by the seed,
  so tests exercise the very algorithms used for release; its output must never be released
  (``releasable is False``, and its ``description`` says so).

Privacy noise is sampled **exactly** from a distribution whose privacy is proved for that
distribution, never by textbook floating-point inversion (Mironov, CCS 2012; NOTES.md §8):

* ``laplace`` / ``gaussian``: the released value is ``g * round((center + Z) / g)`` where ``Z``
  is an **exact** draw of continuous Laplace / Gaussian noise and ``g`` a grid that depends on the
  scale only. ``Z`` is sampled lazily: an integer part exactly (CKS20's Bernoulli samplers) and a
  fractional part as a uniform whose bits are revealed on demand and accepted by exact Bernoulli
  trials against certified Arb enclosures (``_LazyUnit``), until the rounded value is decided.
  The center and the scale are exact numbers and are never rounded. The release is therefore a
  deterministic function (post-processing) of an exact draw of the continuous mechanism the
  verifier reasons about: it is private exactly as that mechanism is, for every center and every
  grid (docs/noise.md; Mironov, CCS 2012, for the attack on rounded centers and textbook
  samplers). ``released_probability`` gives the exact law of the released value.
* exact-real parameters (``verifier.semantics.reals``): the center and scale of ``laplace`` /
  ``gaussian`` are enclosed at whatever precision the rounding needs; exact-real scores and
  exponents are sampled exactly (``_bernoulli_real``); docs/noise.md, docs/reals.md.
* ``exponential_mechanism`` / ``choice_log_weights``: exact sampling from
  ``Pr[i] ∝ exp(-x_i)`` for the *given* (rational or float) scores, by rejection from an
  exactly sampled proposal: candidates are bucketed by an integer lower bound ``k_i`` of
  ``x_i``; a bucket is chosen with probability ``∝ n_j e^{-j}`` by inverse CDF with a lazily
  refined uniform compared against certified ``arb`` enclosures (python-flint) at increasing
  precision; a candidate of the bucket is chosen uniformly and accepted with the exact
  ``Bernoulli(exp(-(x_i - k_i)))`` of CKS20 (acceptance probability at least ``1/e``).

Model randomness (the ``ran`` of symbolic distributions: ``uniform``, ``bernoulli``, ``beta``,
``normal``, ``dirichlet``, ``categorical``) is *not* privacy noise; it comes from numpy's
``Generator(PCG64)`` seeded from the source's bit stream. A program whose privacy argument
rests on ``ran`` sampling (e.g. "one posterior sample") is not protected by this module.
"""

from __future__ import annotations

import abc
import bisect
import hashlib
import math
import sys
import secrets
from fractions import Fraction
from numbers import Rational
from typing import Any, Callable, Optional, Sequence

import numpy as np

from verifier.semantics import reals
from verifier.semantics.reals import Real

__all__ = [
    "GRID_BITS",
    "NoiseSource",
    "secure_source",
    "seeded_source",
    "grid_exponent",
    "grid",
    "released_probability",
    "noise_cdf",
]

#: Bits of resolution of the grid of released Laplace / Gaussian values below the scale:
#: ``scale / g >= 2**GRID_BITS``. It sets how the exact draw is printed (post-processing), not
#: how private the release is.
GRID_BITS = 40
#: ... and the coarsest grid is ``2 ** MAX_GRID_EXPONENT = 1``: every grid divides every integer,
#: so a coupling that moves a draw by an integer moves the released value by that integer, at
#: every scale (``obligations.released``, ``obligations.whilelogic.grid_axioms``). Without it a
#: scale of ``2^42`` (``eps = 2^-42``) released on multiples of 4, and the sparse vector's shifts
#: by 1 and 2 did not carry over to the released values.
MAX_GRID_EXPONENT = 0

#: Largest spread ``max(log w) - log w_i`` accepted by the exact choice sampler (keys stay
#: exact integers in float64).
_MAX_SPREAD = float(2**52)

Number = int | Fraction | float | Real



# --------------------------------------------------------------------------------------
# Exact rational conversion
# --------------------------------------------------------------------------------------

def _to_fraction(x: object, name: str) -> Fraction:
    """The exact rational value of ``x`` (int, Fraction, finite float, numpy scalar)."""
    if isinstance(x, bool):
        raise TypeError(f"{name} must be a number, got a bool")
    if isinstance(x, Fraction):
        return x
    if isinstance(x, (int, np.integer)):
        return Fraction(int(x))
    if isinstance(x, (float, np.floating)):
        xf = float(x)
        if not math.isfinite(xf):
            raise ValueError(f"{name} must be finite, got {x!r}")
        return Fraction(xf)  # exact: every finite float is a dyadic rational
    if isinstance(x, Rational):
        return Fraction(x.numerator, x.denominator)
    raise TypeError(f"{name} must be int, Fraction or float, got {type(x).__name__}")


def _positive_fraction(x: object, name: str) -> Fraction:
    v = _to_fraction(x, name)
    if v <= 0:
        raise ValueError(f"{name} must be > 0, got {x!r}")
    return v


def _exact(x: object, name: str) -> Fraction | Real:
    """``x`` as an exact number: a ``Real`` stays one, anything else is read as a rational."""
    return x if isinstance(x, Real) else _to_fraction(x, name)


def _positive_scale(x: object, name: str) -> Fraction | Real:
    """A scale ``> 0`` as an exact number: an exact real stays one (the samplers enclose it at
    the precision they need), anything else is read as a rational."""
    if isinstance(x, Real):
        if reals.sign(x) <= 0:
            raise ValueError(f"{name} must be > 0, got {x.describe()}")
        return x
    return _positive_fraction(x, name)


def _upper_bound(xs: Sequence[Fraction | Real]) -> Fraction:
    """A rational ``>= max(xs)`` (from 64-bit enclosures)."""
    top = None
    for x in xs:
        if isinstance(x, Real):
            ball = x.ball(64)
            if not ball.is_finite():
                raise ValueError(f"a score has no finite enclosure: {x.describe()}")
            m, e = ball.upper().mid().man_exp()
            bound = Fraction(int(m)) * _pow2(int(e))
        else:
            bound = x
        top = bound if top is None or bound > top else top
    return top  # type: ignore[return-value]


def grid_exponent(scale: Fraction | Real) -> int:
    """``min(floor(log2(scale)) - GRID_BITS, MAX_GRID_EXPONENT)`` for an exact ``scale > 0``,
    computed exactly.

    The grid of the values released by ``laplace(center, scale)`` and ``gaussian(center,
    scale)`` is ``2 ** grid_exponent(scale)``: a function of the scale's value only.
    """
    if not isinstance(scale, Real) and scale <= 0:
        raise ValueError("scale must be positive")
    return min(reals.floor_log2(scale) - GRID_BITS, MAX_GRID_EXPONENT)


def grid(scale: Number) -> Fraction:
    """The grid ``g`` of the values ``laplace`` and ``gaussian`` release at this scale."""
    return _pow2(grid_exponent(_positive_scale(scale, "scale")))


def _pow2(e: int) -> Fraction:
    return Fraction(1 << e) if e >= 0 else Fraction(1, 1 << -e)


# --------------------------------------------------------------------------------------
# Bit sources
# --------------------------------------------------------------------------------------

class _BitSource(abc.ABC):
    """Uniform random bits; everything else is derived from these by exact algorithms."""

    @abc.abstractmethod
    def randbits(self, k: int) -> int:
        """A uniform integer in ``[0, 2**k)``."""

    def randbelow(self, n: int) -> int:
        """A uniform integer in ``[0, n)``, by rejection (exact, expected < 2 rounds)."""
        if n <= 0:
            raise ValueError("randbelow needs n >= 1")
        k = (n - 1).bit_length()
        if k == 0:
            return 0
        while True:
            r = self.randbits(k)
            if r < n:
                return r


class _SecureBits(_BitSource):
    """Bits from the operating system's CSPRNG (``secrets`` reads ``os.urandom``)."""

    def randbits(self, k: int) -> int:
        return secrets.randbits(k) if k > 0 else 0


class _ShakeBits(_BitSource):
    """A deterministic stream: SHAKE-256 in counter mode keyed by ``(domain, seed)``.

    Block ``i`` is ``SHAKE256(b"privinfer/noise/v1|" + domain + b"|" + seed + b"|" + i)``
    truncated to 8 KiB. Cryptographic quality, fully reproducible, **not** secret.
    """

    _BLOCK = 8192

    def __init__(self, seed: int, domain: bytes):
        self._key = b"privinfer/noise/v1|" + domain + b"|" + str(int(seed)).encode() + b"|"
        self._counter = 0
        self._buf = b""
        self._pos = 0

    def _take(self, nbytes: int) -> bytes:
        out = bytearray()
        while nbytes > 0:
            if self._pos >= len(self._buf):
                h = hashlib.shake_256(self._key + self._counter.to_bytes(8, "big"))
                self._buf = h.digest(self._BLOCK)
                self._pos = 0
                self._counter += 1
            chunk = self._buf[self._pos:self._pos + nbytes]
            self._pos += len(chunk)
            nbytes -= len(chunk)
            out += chunk
        return bytes(out)

    def randbits(self, k: int) -> int:
        if k <= 0:
            return 0
        nbytes = (k + 7) // 8
        return int.from_bytes(self._take(nbytes), "big") >> (8 * nbytes - k)


# --------------------------------------------------------------------------------------
# Exact samplers (Canonne, Kamath, Steinke 2020) on an arbitrary bit source
# --------------------------------------------------------------------------------------

def _bernoulli_exp_neg_unit(bits: _BitSource, num: int, den: int) -> bool:
    """``Bernoulli(exp(-num/den))`` for ``0 <= num/den <= 1`` (CKS20 Algorithm 1, exact).

    K <- 1; while Bernoulli(gamma / K): K <- K + 1; return K odd.
    """
    k = 1
    while bits.randbelow(den * k) < num:  # Bernoulli(gamma / k), exact on integers
        k += 1
    return k % 2 == 1


def _bernoulli_real(bits: _BitSource, p: Real) -> bool:
    """``Bernoulli(p)`` for an exact real ``p`` in [0, 1], exactly: a uniform ``U`` is revealed
    64 bits at a time and compared with enclosures of ``p`` at a precision 64 bits above the
    bits known; the answer ``U < p`` is returned once it holds or fails for the whole dyadic
    interval of ``U`` known so far (with probability 1, after 64 bits in almost every case)."""
    from flint import arb, fmpq
    u, n = 0, 0
    while True:
        u = (u << 64) | bits.randbits(64)
        n += 64
        ball = p.ball(n + 64)
        old = _flint_ctx().prec
        _flint_ctx().prec = n + 64
        try:
            below = arb(fmpq(u + 1, 1 << n)) <= ball    # every U of the interval is < p
            above = arb(fmpq(u, 1 << n)) >= ball        # every U of the interval is >= p
        finally:
            _flint_ctx().prec = old
        if below:
            return True
        if above:
            return False


def _flint_ctx():
    from flint import ctx
    return ctx


def _bernoulli_exp_neg(bits: _BitSource, gamma: Fraction | Real) -> bool:
    """``Bernoulli(exp(-gamma))`` for exact ``gamma >= 0`` (a rational by CKS20's algorithm,
    an exact real by ``_bernoulli_real``)."""
    if isinstance(gamma, Real):
        return _bernoulli_real(bits, reals.exp(reals.neg(gamma)))
    if gamma < 0:
        raise ValueError("gamma must be >= 0")
    whole = gamma.numerator // gamma.denominator
    for _ in range(whole):
        if not _bernoulli_exp_neg_unit(bits, 1, 1):
            return False
    frac = gamma - whole
    return _bernoulli_exp_neg_unit(bits, frac.numerator, frac.denominator)


def _probability(p: object, what: str) -> Fraction | Real:
    """``p`` as an exact number in [0, 1] (a float at its exact dyadic value)."""
    try:
        q = _exact(p, what)
    except TypeError as exc:
        raise ValueError(str(exc)) from None
    inside = (reals.sign(q) >= 0 and reals.sign(reals.sub(1, q)) >= 0) if isinstance(q, Real) \
        else 0 <= q <= 1
    if not inside:
        raise ValueError(f"{what} must be in [0, 1], got {p!r}")
    return q


def _bernoulli_exact(bits: _BitSource, p: object) -> bool:
    """``Bernoulli(p)`` exactly, ``p`` in [0, 1]: ``randbelow(b) < a`` for a rational ``a / b``,
    the lazy comparison ``U < p`` for an exact real (``_bernoulli_real``). A coin whose bias
    depends on private data is a release (``ran (bernoulli p)`` under a Ran rule): drawn as
    ``random () < float (p)`` its law would be ``p`` rounded to numpy's grid of ``2^-53``
    (red-team round 5: a coin verified at loss 0.001 released at loss ln 2)."""
    q = _probability(p, "the parameter of bernoulli")
    if isinstance(q, Real):
        return _bernoulli_real(bits, q)
    return bits.randbelow(q.denominator) < q.numerator


#: how far the probabilities of a categorical draw may sum from 1 (they are normalised)
CATEGORICAL_SLACK = Fraction(1, 10 ** 9)


def _categorical_exact(bits: _BitSource, probs: Sequence[object]) -> int:
    """Index ``i`` with probability ``probs[i] / sum (probs)``, exactly; the probabilities must
    sum to 1 within ``CATEGORICAL_SLACK`` (a point of the simplex drawn as floats). Rationals:
    one uniform integer below their common denominator; exact reals: by inversion
    (``_categorical_real``)."""
    ps = [_probability(p, "a probability of categorical") for p in probs]
    if not ps:
        raise ValueError("categorical needs at least one probability")
    if not any(isinstance(p, Real) for p in ps):
        total = sum(ps, Fraction(0))
        if abs(total - 1) > CATEGORICAL_SLACK:
            raise ValueError(f"categorical probabilities must sum to 1, got {float(total)!r}")
        den = math.lcm(*(p.denominator for p in ps))
        weights = [p.numerator * (den // p.denominator) for p in ps]
        r = bits.randbelow(sum(weights))
        for i, w in enumerate(weights):
            if r < w:
                return i
            r -= w
        raise AssertionError("unreachable")
    return _categorical_real(bits, ps)


def _categorical_real(bits: _BitSource, ps: Sequence[Fraction | Real]) -> int:
    """The categorical draw of ``_categorical_exact`` for exact-real probabilities, by
    inversion: a uniform ``U`` revealed 64 bits at a time, and the index ``i`` with
    ``c_(i-1) <= U T < c_i`` (``c`` the cumulative sums, ``T`` their total) returned once it
    holds for the whole dyadic interval of ``U`` and the Arb balls of the sums, at a precision
    64 bits above the bits known (one pass over the probabilities per round: no nested real
    expressions; with probability 1 after 64 bits in almost every case)."""
    from flint import arb, fmpq
    u, n = 0, 0
    while True:
        u = (u << 64) | bits.randbits(64)
        n += 64
        old = _flint_ctx().prec
        _flint_ctx().prec = n + 64
        try:
            balls = [reals.ball_of(p, n + 64) for p in ps]
            total = arb(0)
            for b in balls:
                total += b
            if n == 64 and abs(total - 1) > arb(fmpq(CATEGORICAL_SLACK.numerator,
                                                   CATEGORICAL_SLACK.denominator)):
                raise ValueError("categorical probabilities must sum to 1")
            lo = arb(fmpq(u, 1 << n)) * total
            hi = arb(fmpq(u + 1, 1 << n)) * total
            cum = arb(0)
            last = len(balls) - 1
            for i, b in enumerate(balls):
                prev, cum = cum, cum + b
                # U T < T always: the last category needs its lower end only (its upper end,
                # T itself, is never certainly above a ball of T)
                if prev <= lo and (i == last or hi <= cum):
                    return i
        finally:
            _flint_ctx().prec = old


def _discrete_laplace(bits: _BitSource, scale: Fraction) -> int:
    """``Pr[z] ∝ exp(-|z| / scale)`` on the integers, ``scale = t/s > 0`` rational.

    CKS20 Algorithm 2 (exact; expected O(1) rounds for every scale).
    """
    t, s = scale.numerator, scale.denominator
    while True:
        u = bits.randbelow(t)
        if not _bernoulli_exp_neg_unit(bits, u, t):
            continue
        v = 0
        while _bernoulli_exp_neg_unit(bits, 1, 1):
            v += 1
        y = (u + t * v) // s  # u + t v is geometric with parameter 1 - e^{-1/t}
        negative = bits.randbits(1) == 1
        if negative and y == 0:
            continue
        return -y if negative else y


def _discrete_gaussian(bits: _BitSource, sigma2: Fraction) -> int:
    """``Pr[z] ∝ exp(-z^2 / (2 sigma2))`` on the integers, ``sigma2 > 0`` rational.

    CKS20 Algorithm 3: t = floor(sigma) + 1; Y ~ DLap(t); accept with
    ``Bernoulli(exp(-(|Y| - sigma2/t)^2 / (2 sigma2)))`` (exact).
    """
    t = math.isqrt(sigma2.numerator // sigma2.denominator) + 1
    tq = Fraction(t)
    while True:
        y = _discrete_laplace(bits, tq)
        gamma = (abs(y) - sigma2 / t) ** 2 / (2 * sigma2)
        if _bernoulli_exp_neg(bits, gamma):
            return y


class _LazyUnit:
    """A uniform number ``X`` in ``[0, 1)`` of which the first ``n`` bits ``u`` are known:
    ``u / 2^n <= X < (u + 1) / 2^n``; the other bits are uniform and drawn on demand. A decision
    that depends only on the known bits leaves the others uniform (Karney's "partially sampled
    random numbers", ACM TOMS 2016)."""

    __slots__ = ("u", "n")

    def __init__(self) -> None:
        self.u, self.n = 0, 0

    def refine(self, bits: _BitSource, k: int = 64) -> None:
        self.u = (self.u << k) | bits.randbits(k)
        self.n += k

    def bounds(self):
        from flint import fmpq
        return fmpq(self.u, 1 << self.n), fmpq(self.u + 1, 1 << self.n)


def _accept_decreasing(bits: _BitSource, x: _LazyUnit, p: Callable) -> bool:
    """``Bernoulli(p(X))`` for the lazily known ``X`` and ``p`` decreasing on ``[0, 1]`` with
    values in ``[0, 1]`` (``p`` maps an Arb ball to a ball at the working precision): a uniform
    ``V`` and ``X`` are revealed 64 bits at a time until ``V < p(X)`` holds, or fails, for every
    ``V`` and ``X`` of their known intervals. Exact; the decision depends on known bits only."""
    from flint import arb
    v = _LazyUnit()
    while True:
        x.refine(bits)
        v.refine(bits)
        with reals._Workprec(x.n + 64):
            x_lo, x_hi = x.bounds()
            v_lo, v_hi = v.bounds()
            if arb(v_hi) <= p(arb(x_hi)):      # V < v_hi <= min p <= p(X)
                return True
            if arb(v_lo) >= p(arb(x_lo)):      # V >= v_lo >= max p >= p(X)
                return False


def _exponential_unit(bits: _BitSource) -> tuple[int, _LazyUnit]:
    """``E ~ Exp(1)`` as ``K + X``: ``K`` and ``X`` are independent, ``Pr[K = k] = (1 - 1/e)
    e^-k`` (the number of successes of ``Bernoulli(1/e)`` before a failure, exact) and ``X`` has
    density ``∝ e^-x`` on ``[0, 1)`` (a uniform accepted with probability ``e^-x``)."""
    k = 0
    while _bernoulli_exp_neg_unit(bits, 1, 1):
        k += 1
    while True:
        x = _LazyUnit()
        if _accept_decreasing(bits, x, lambda t: (-t).exp()):
            return k, x


def _half_normal_unit(bits: _BitSource) -> tuple[int, _LazyUnit]:
    """``|N|`` for ``N ~ N(0, 1)`` as ``K + X``: ``K`` with ``Pr ∝ e^(-k^2/2)`` (a non-negative
    draw of the discrete Gaussian of CKS20) and a uniform ``X`` accepted with probability
    ``e^-(k x + x^2/2)``; the pair accepted has density ``∝ e^-((k + x)^2 / 2)``."""
    one = Fraction(1)
    while True:
        k = _discrete_gaussian(bits, one)
        if k < 0:
            continue
        x = _LazyUnit()
        if _accept_decreasing(bits, x, lambda t, k=k: (-(t * k + t * t / 2)).exp()):
            return k, x


def _magnitude_bits(x: Fraction | Real) -> int:
    """About ``log2 |x|`` (at least 0), from a 64-bit enclosure."""
    ball = reals.ball_of(x, 64)
    if not ball.is_finite():
        return 0
    m, e = ball.abs_upper().mid().man_exp()
    return max(0, int(e) + int(m).bit_length())


def _round_noise(bits: _BitSource, center: Fraction | Real, scale: Fraction | Real, g: Fraction,
                 negative: bool, k: int, x: _LazyUnit) -> int:
    """``floor((center ± scale (k + X)) / g + 1/2)``, the grid index of the released value,
    decided by revealing more bits of ``X`` (the value is a monotone function of ``X``, so the
    two ends of its known interval bound it). Terminates with probability 1: the value lies on
    a rounding boundary with probability 0."""
    from flint import arb
    offset = reals.add(reals.div(center, g), Fraction(1, 2))
    step = reals.div(scale, g)
    extra = _magnitude_bits(offset) + _magnitude_bits(step) + k.bit_length()
    direction = -1 if negative else 1
    while True:
        x.refine(bits)
        prec = x.n + extra + 64
        with reals._Workprec(prec):
            a, t = reals.ball_of(offset, prec), reals.ball_of(step, prec)
            found = set()
            for end in x.bounds():
                value = a + direction * t * (k + arb(end))
                found.add(value.floor().unique_fmpz() if value.is_finite() else None)
        if len(found) == 1 and None not in found:
            return int(found.pop())


def released_probability(family: str, center: Number, scale: Number, index: int) -> Fraction | Real:
    """The exact probability that ``laplace`` (``family == "laplace"``) or ``gaussian``
    (``"gauss"``, ``scale`` the standard deviation) releases ``index * grid(scale)``: the noise's
    mass on ``[g (index - 1/2), g (index + 1/2)) - center``. This is the law of the values the
    samplers release (tests check the samplers against it), which ``privinfer audit`` and the
    fuzzer's oracle compare. Written with the tail on the cell's side of the center, so that a
    cell far in a tail is a difference of two small numbers, not of two numbers near 1."""
    c = _exact(center, "center")
    b = _positive_scale(scale, "scale")
    g = grid(b)
    low = reals.sub(g * index - g / 2, c)
    high = reals.sub(g * index + g / 2, c)
    if reals.sign(low) >= 0:           # right of the center: S(low) - S(high)
        return reals.sub(_noise_tail(family, low, b), _noise_tail(family, high, b))
    if reals.sign(high) <= 0:          # left of it: by symmetry
        return reals.sub(_noise_tail(family, reals.neg(high), b), _noise_tail(family, reals.neg(low), b))
    return reals.sub(1, reals.add(_noise_tail(family, high, b), _noise_tail(family, reals.neg(low), b)))


def noise_cdf(family: str, t: Fraction | Real, b: Fraction | Real) -> Fraction | Real:
    """``Pr[Z < t]`` for ``Z ~ Lap(b)`` or ``N(0, b^2)``, exactly."""
    if reals.sign(t) < 0:
        return _noise_tail(family, reals.neg(t), b)
    return reals.sub(1, _noise_tail(family, t, b))


def _noise_tail(family: str, t: Fraction | Real, b: Fraction | Real) -> Fraction | Real:
    """``Pr[Z >= t]`` for ``t >= 0``: ``e^(-t/b) / 2`` (Laplace), ``erfc(t / (b sqrt 2)) / 2``
    (Gaussian)."""
    if family == "laplace":
        return reals.div(reals.exp(reals.neg(reals.div(t, b))), 2)
    if family == "gauss":
        return reals.div(reals.erfc(reals.div(t, reals.mul(b, reals.sqrt(2)))), 2)
    raise ValueError(f"unknown noise family {family!r}")


def _arb_context():
    """python-flint's ``arb``, its context and ``fmpq`` (imported lazily: only the choice
    sampler needs them)."""
    from flint import arb, ctx, fmpq  # noqa: PLC0415

    return arb, ctx, fmpq


_BLOCK = 1 << 22  # elements per block in the chunked scans below


def _nth_index(keys: np.ndarray, value: float, r: int) -> int:
    """Index of the ``r``-th (0-based) occurrence of ``value`` in ``keys`` (chunked scan)."""
    for start in range(0, keys.shape[0], _BLOCK):
        hit = keys[start:start + _BLOCK] == value
        c = int(np.count_nonzero(hit))
        if r < c:
            return start + int(np.flatnonzero(hit)[r])
        r -= c
    raise AssertionError("bucket count and keys disagree")


def _bucket_counts(keys: np.ndarray) -> tuple[list[int], list[int]]:
    """Distinct non-negative integer values of the float array ``keys`` and their counts."""
    valid_max = float(keys.max())
    if valid_max < (1 << 24):
        counts = np.zeros(int(valid_max) + 1, dtype=np.int64)
        for start in range(0, keys.shape[0], _BLOCK):
            block = keys[start:start + _BLOCK]
            block = block[block >= 0].astype(np.int64)
            if block.shape[0]:
                bc = np.bincount(block)
                counts[:bc.shape[0]] += bc
        vals = np.flatnonzero(counts)
        return [int(v) for v in vals], [int(c) for c in counts[vals]]
    vals, counts = np.unique(keys[keys >= 0], return_counts=True)
    return [int(v) for v in vals], [int(c) for c in counts]


def _count_at_most(sorted_exact: list, t) -> int:
    """How many of the exact (radius-0) arb balls ``sorted_exact`` (ascending) are ``<= t``.

    Comparisons of exact balls are decisive, so this is an ordinary bisection; the midpoints
    converge to the true cumulative weights as the precision grows, so the guess it yields
    is eventually the bucket that the certificate accepts.
    """
    lo, hi = 0, len(sorted_exact)
    while lo < hi:
        mid = (lo + hi) // 2
        if sorted_exact[mid] <= t:
            lo = mid + 1
        else:
            hi = mid
    return lo


class _BucketCDF:
    """Exact inverse-CDF choice of a bucket ``j`` with probability ``∝ n_j e^{-v_j}``.

    ``values`` are distinct integers ``v_j`` (ascending), ``counts`` the ``n_j >= 1``. A uniform
    ``U`` in [0, 1) is revealed 64 bits at a time: with ``b`` bits known, ``U`` lies in the
    dyadic interval ``[u 2^-b, (u+1) 2^-b)``. Cumulative weights ``C_j`` are enclosed in arb
    balls at precision ``p``; bucket ``j`` is returned once it is *certain* that
    ``C_{j-1} <= U Z`` and ``U Z < C_j`` for every ``U`` of the interval (``Z = C_last``).
    Otherwise 64 more bits are drawn and ``p`` grows by 96. The event of returning ``j`` is
    exactly ``{C_{j-1} <= U Z < C_j}``, of probability ``n_j e^{-v_j} / Z``; refinement stops
    with probability 1 (geometrically fast).

    python-flint's working precision is a process-wide setting: it is raised around each arb
    computation and restored afterwards, so concurrent threads must not share flint.
    """

    def __init__(self, values: list[int], counts: list[int]):
        self._values = values
        self._counts = counts
        self._cache: dict[int, tuple[list, list]] = {}

    def _cumulative(self, prec: int):
        """Arb enclosures of ``C_j e^{v_0}`` at ``prec`` bits and their exact midpoints."""
        if prec not in self._cache:
            arb, ctx, _ = _arb_context()
            old = ctx.prec
            ctx.prec = prec
            try:
                base = self._values[0]
                total = arb(0)
                cum = []
                for v, c in zip(self._values, self._counts):
                    total = total + arb(c) * arb(base - v).exp()
                    cum.append(total)
                mids = [c.mid() for c in cum]     # exact (radius-0) balls
            finally:
                ctx.prec = old
            self._cache[prec] = (cum, mids)
        return self._cache[prec]

    def choose(self, bits: _BitSource) -> int:
        """The index of the chosen bucket (exact)."""
        arb, ctx, fmpq = _arb_context()
        m = len(self._values)
        nbits, prec = 64, 96
        u = bits.randbits(nbits)
        while True:
            cum, mids = self._cumulative(prec)
            old = ctx.prec
            ctx.prec = prec
            try:
                z = cum[-1]
                lo = arb(fmpq(u, 1 << nbits)) * z
                hi = arb(fmpq(u + 1, 1 << nbits)) * z
                j = min(_count_at_most(mids, lo.mid()), m - 1)   # the guess
                ok = (j == 0 or cum[j - 1] <= lo) and hi <= cum[j]  # its certificate
            finally:
                ctx.prec = old
            if ok:
                return j
            u = (u << 64) | bits.randbits(64)
            nbits += 64
            prec += 96


def _floor_keys(keys: np.ndarray, slack: float) -> None:
    """Turn approximate exponents ``x~_i`` (within ``slack`` of exact ``x_i >= 0``; ``+inf`` for
    weight zero) into integer keys ``k_i <= x_i`` in place (``-1`` for weight zero):
    ``floor(fl(x~_i (1 - 2^-50)) - slack)``, at least 0 (the factor absorbs the single rounding
    of ``x~_i`` and of the product)."""
    finite = np.isfinite(keys)
    if finite.any() and float(keys[finite].max()) > _MAX_SPREAD:
        raise ValueError("log-weights spread over more than 2**52: cannot sample exactly")
    keys[~finite] = -1.0                          # weight zero: never proposed
    np.multiply(keys, 1.0 - 2.0**-50, out=keys)   # -1 stays negative
    if slack > 0:
        np.subtract(keys, slack, out=keys)
        keys[finite & (keys < 0)] = 0.0           # x_i >= 0: 0 is a valid key
    np.floor(keys, out=keys)                      # integers (exact in float64 below 2**53)


def _sample_exp_neg(bits: _BitSource, x_approx: np.ndarray,
                    exact_x: Callable[[int], Fraction | Real], slack: float = 0.0) -> int:
    """An index ``i`` with probability ``exp(-x_i) / sum_j exp(-x_j)``, exactly.

    Contract: ``x_i = exact_x(i) >= 0`` is exact (a rational or an exact real);
    ``x_approx[i]`` (float64) is ``x_i`` correctly rounded (one rounding), or within ``slack``
    of it (absolutely) when ``slack > 0``, or ``+inf`` for a candidate of weight zero. The
    array ``x_approx`` is overwritten (it becomes the bucket keys). A proposed candidate whose
    key turns out to exceed its exact exponent breaks the contract: ``ArithmeticError``.

    Algorithm (exact rejection sampling):
      1. ``k_i = floor(fl(x~_i (1 - 2^-50)))``: an integer with ``k_i <= x_i`` (the factor
         absorbs the single rounding of ``x~_i`` and of the product) and
         ``x_i - k_i < 1 + 2^-48 x_i``;
      2. propose a bucket value ``j`` with probability ``n_j e^{-j} / Z`` (``n_j`` = number of
         candidates with ``k_i = j``) by inverse CDF: a uniform ``U`` is drawn bit by bit and
         located among certified arb enclosures of the cumulative weights; when ``U`` is too
         close to a boundary to decide, more bits and more precision are used;
      3. pick one of the ``n_j`` candidates uniformly, accept it with the exact
         ``Bernoulli(exp(-(x_i - j)))``; otherwise start again at 2.
    The accepted index has probability ``∝ e^{-j} e^{-(x_i - j)} = e^{-x_i}``; each round
    accepts with probability at least ``e^{-1 - 2^-48 max x}`` (about ``1/e``).
    """
    keys = x_approx
    if not np.isfinite(keys).any():
        raise ValueError("every candidate has weight zero")
    _floor_keys(keys, slack)
    bucket_vals, bucket_counts = _bucket_counts(keys)
    cdf = _BucketCDF(bucket_vals, bucket_counts)

    while True:
        b = cdf.choose(bits)
        value = bucket_vals[b]
        i = _nth_index(keys, float(value), bits.randbelow(bucket_counts[b]))
        gamma = reals.sub(exact_x(i), value)
        if reals.sign(gamma) < 0:  # impossible under the contract; never sample wrongly
            raise ArithmeticError("a bucket key exceeds the exact exponent: the approximate "
                                  "exponents are further than their slack from the exact ones")
        if _bernoulli_exp_neg(bits, gamma):
            return i


def _sample_exp_neg_near_far(bits: _BitSource, x_near: np.ndarray,
                             exact_near: Callable[[int], Fraction | Real], slack: float,
                             far_count: int, far_floor: float,
                             far_draw: Callable[[_BitSource], Optional[tuple[Any, Fraction | Real]]],
                             ) -> tuple[bool, Any]:
    """A candidate with probability ``exp(-x) / sum exp(-x)`` over a set too large to list:
    ``(True, i)`` for the ``i``-th listed ("near") candidate, ``(False, token)`` for one of the
    others, exactly.

    Contract: the near candidates are given as in ``_sample_exp_neg`` (``x_near`` float64
    within ``slack`` of ``exact_near(i)``, ``+inf`` for weight zero; overwritten; beyond
    float64 keys, every listed exponent is floored exactly); there are ``far_count`` others, each
    with an exact exponent ``x >= far_floor - slack``; ``far_draw(bits)`` draws uniformly from
    *all* candidates and returns ``None`` when it drew a near one, else ``(token, x)``.

    Algorithm: ``_sample_exp_neg``'s buckets plus one bucket for the far candidates, with the
    integer key ``K <= far_floor - slack`` and count ``far_count``; a far proposal is a
    uniform draw of all candidates repeated until it is not a near one (uniform on the far
    set), accepted with the exact ``Bernoulli(exp(-(x - K)))``. A proposed candidate whose
    key exceeds its exact exponent breaks the contract: ``ArithmeticError`` (never a wrong
    sample).
    """
    finite = np.isfinite(x_near)
    if not finite.any() or float(x_near[finite].max()) <= _MAX_SPREAD:
        _floor_keys(x_near, slack)
        values, counts = _bucket_counts(x_near) if x_near.shape[0] else ([], [])

        def pick(value: int, r: int) -> int:
            return _nth_index(x_near, float(value), r)
    else:  # beyond float64 keys: exact integer keys (as ``_sample_exp_neg_exact``; no weight
        #    zero among them then: every listed exponent is floored exactly)
        members: dict[int, list[int]] = {}
        for i in range(x_near.shape[0]):
            members.setdefault(reals.floor(exact_near(i)), []).append(i)
        values = sorted(members)
        counts = [len(members[v]) for v in values]

        def pick(value: int, r: int) -> int:
            return members[value][r]
    far_key, far_bucket = 0, -1
    if far_count > 0:
        far_key = max(0, math.floor(Fraction(far_floor) - Fraction(slack)))
        far_bucket = bisect.bisect_right(values, far_key)   # ascending, as _BucketCDF wants
        values = values[:far_bucket] + [far_key] + values[far_bucket:]
        counts = counts[:far_bucket] + [far_count] + counts[far_bucket:]
    if not values:
        raise ValueError("every candidate has weight zero")
    cdf = _BucketCDF(values, counts)
    while True:
        b = cdf.choose(bits)
        if b == far_bucket:
            drawn = None
            while drawn is None:
                drawn = far_draw(bits)
            token, x, value = drawn[0], drawn[1], far_key
        else:
            value = values[b]
            token = pick(value, bits.randbelow(counts[b]))
            x = exact_near(token)
        gamma = reals.sub(x, value)
        if reals.sign(gamma) < 0:  # impossible under the contract; never sample wrongly
            raise ArithmeticError("a bucket key exceeds the exact exponent: the approximate "
                                  "exponents are further than their slack from the exact ones")
        if _bernoulli_exp_neg(bits, gamma):
            return b != far_bucket, token


def _sample_exp_neg_exact(bits: _BitSource, x: Sequence[Fraction | Real]) -> int:
    """``_sample_exp_neg`` with exact integer keys ``k_i = floor(x_i)`` (``reals.floor``)
    instead of float64 ones: no limit on the spread of the exponents (a candidate whose
    weight is ``exp(-1e34)`` relative to the best one is handled exactly), at the cost of one
    exact floor per candidate — for the moderate candidate lists of ``expMech``."""
    keys = [reals.floor(v) for v in x]
    members: dict[int, list[int]] = {}
    for i, k in enumerate(keys):
        members.setdefault(k, []).append(i)
    values = sorted(members)
    cdf = _BucketCDF(values, [len(members[v]) for v in values])
    while True:
        value = values[cdf.choose(bits)]
        bucket = members[value]
        i = bucket[bits.randbelow(len(bucket))]
        if _bernoulli_exp_neg(bits, reals.sub(x[i], value)):
            return i


# --------------------------------------------------------------------------------------
# The interface
# --------------------------------------------------------------------------------------

class NoiseSource(abc.ABC):
    """Where every random choice of the evaluator comes from.

    ``releasable`` is True only for :func:`secure_source`. ``description`` is a one-line
    human-readable account, e.g. ``"secure (os.urandom, exact discrete samplers)"`` or
    ``"seeded 42 — NOT for release"``.

    Privacy mechanisms (exact samplers; see the module docstring):
    ``laplace``, ``gaussian``, ``exponential_mechanism``, ``choice_log_weights``.
    Model randomness (numpy PCG64, not privacy noise):
    ``uniform``, ``bernoulli``, ``beta``, ``normal``, ``dirichlet``, ``categorical``.
    """

    releasable: bool
    description: str

    # privacy mechanisms
    @abc.abstractmethod
    def laplace_exact(self, center: Number, scale: Number) -> Fraction:
        """``center + Lap(scale)`` as the exact rational grid value (what ``lapMech`` releases)."""

    @abc.abstractmethod
    def gaussian_exact(self, center: Number, sigma: Number) -> Fraction:
        """``center + N(0, sigma^2)`` as the exact rational grid value (``gaussMech``)."""

    @abc.abstractmethod
    def laplace(self, center: Number, scale: Number) -> float:
        """``center + Lap(scale)``: ``Pr ∝ exp(-|y - center| / scale)``; ``scale > 0``."""

    @abc.abstractmethod
    def gaussian(self, center: Number, sigma: Number) -> float:
        """``center + N(0, sigma^2)``; ``sigma > 0`` is the standard deviation."""

    @abc.abstractmethod
    def exponential_mechanism(self, scores: Sequence[Number], eps: Number) -> int:
        """Index ``i`` with probability ``∝ exp(eps * scores[i] / 2)``; ``eps > 0``."""

    @abc.abstractmethod
    def choice_exact(self, x_approx, exact_x: Callable[[int], Fraction | Real], slack: float) -> int:
        """Index ``i`` with probability exactly ``∝ exp(-exact_x(i))`` (``x_approx`` within
        ``slack`` of the exact exponents)."""

    @abc.abstractmethod
    def choice_exact_near_far(self, x_near, exact_near: Callable[[int], Fraction | Real],
                              slack: float, far_count: int, far_floor: float,
                              far_draw: Callable[["NoiseSource"], Optional[tuple[Any, Fraction | Real]]],
                              ) -> tuple[bool, Any]:
        """``choice_exact`` over listed candidates and ``far_count`` unlisted ones (exponents
        at least ``far_floor - slack``), drawn by ``far_draw(self)`` uniformly among all
        (``None`` for a listed one): ``(True, i)`` or ``(False, token)``."""

    @abc.abstractmethod
    def randbelow(self, n: int) -> int:
        """A uniform integer in ``[0, n)``, exactly (privacy noise bits)."""

    @abc.abstractmethod
    def choice_log_weights(self, log_weights) -> int:
        """Index ``i`` with probability ``∝ exp(log_weights[i])`` (``-inf`` means weight 0)."""

    # model randomness
    @abc.abstractmethod
    def uniform(self) -> float:
        """A draw from Uniform[0, 1) (model randomness)."""

    @abc.abstractmethod
    def bernoulli(self, p: Number) -> bool:
        """True with probability exactly ``p`` in [0, 1] (model randomness, drawn exactly: a
        coin whose bias depends on private data is a release)."""

    @abc.abstractmethod
    def beta(self, a: Number, b: Number) -> float:
        """A draw from Beta(a, b), ``a, b > 0`` (model randomness)."""

    @abc.abstractmethod
    def normal(self, mean: Number, variance: Number) -> float:
        """A draw from N(mean, variance) — the second argument is the **variance**."""

    @abc.abstractmethod
    def dirichlet(self, alphas: Sequence[Number]) -> tuple[float, ...]:
        """A draw from Dir(alphas), ``k >= 2`` positive parameters (model randomness)."""

    @abc.abstractmethod
    def categorical(self, probs: Sequence[Number]) -> int:
        """Index ``i`` with probability exactly ``probs[i]`` (a point of the simplex, normalised;
        model randomness, drawn exactly like ``bernoulli``)."""


class _ExactNoiseSource(NoiseSource):
    """The one implementation: exact samplers over a pluggable :class:`_BitSource`."""

    def __init__(self, bits: _BitSource, model_seed: int, releasable: bool, description: str,
                 model_bits: _BitSource):
        self._bits = bits
        self._model = np.random.Generator(np.random.PCG64(model_seed))
        #: the bits of the discrete model randomness (bernoulli, categorical), drawn exactly
        self._model_bits = model_bits
        self.releasable = releasable
        self.description = description

    def __repr__(self) -> str:
        return f"<NoiseSource {self.description}>"

    # ---- exact integer samplers (also public: integer-valued queries need no grid) ----

    def discrete_laplace(self, scale: Number) -> int:
        """An integer ``z`` with ``Pr[z] ∝ exp(-|z| / scale)``, exactly (CKS20 Alg. 2)."""
        return _discrete_laplace(self._bits, _positive_fraction(scale, "scale"))

    def discrete_gaussian(self, sigma: Number) -> int:
        """An integer ``z`` with ``Pr[z] ∝ exp(-z^2 / (2 sigma^2))``, exactly (CKS20 Alg. 3)."""
        s = _positive_fraction(sigma, "sigma")
        return _discrete_gaussian(self._bits, s * s)

    def bernoulli_exp(self, gamma: Number) -> bool:
        """True with probability exactly ``exp(-gamma)``, rational ``gamma >= 0``."""
        g = _to_fraction(gamma, "gamma")
        if g < 0:
            raise ValueError("gamma must be >= 0")
        return _bernoulli_exp_neg(self._bits, g)

    # ---- privacy mechanisms ----

    def laplace_exact(self, center: Number, scale: Number) -> Fraction:
        """``g * round((center + Z) / g)`` for an exact draw ``Z`` of ``Lap(scale)`` and the grid
        ``g = grid(scale)``: the value ``lapMech`` releases (its law: ``released_probability``).

        ``center`` and ``scale`` are exact numbers (an exact real is enclosed at the precision
        the rounding needs); neither is rounded."""
        c = _exact(center, "center")
        b = _positive_scale(scale, "scale")
        g = grid(b)
        negative = self._bits.randbits(1) == 1
        k, x = _exponential_unit(self._bits)
        return _round_noise(self._bits, c, b, g, negative, k, x) * g

    def laplace(self, center: Number, scale: Number) -> float:
        return float(self.laplace_exact(center, scale))

    def gaussian_exact(self, center: Number, sigma: Number) -> Fraction:
        """``g * round((center + Z) / g)`` for an exact draw ``Z`` of ``N(0, sigma^2)`` and
        ``g = grid(sigma)``: the value ``gaussMech`` releases (as ``laplace_exact``)."""
        c = _exact(center, "center")
        s = _positive_scale(sigma, "sigma")
        g = grid(s)
        negative = self._bits.randbits(1) == 1
        k, x = _half_normal_unit(self._bits)
        return _round_noise(self._bits, c, s, g, negative, k, x) * g

    def gaussian(self, center: Number, sigma: Number) -> float:
        return float(self.gaussian_exact(center, sigma))

    def exponential_mechanism(self, scores: Sequence[Number], eps: Number) -> int:
        """Exact: the exponents ``x_i = eps (top - s_i) / 2`` are formed on exact numbers
        (rationals, or exact reals such as Hellinger distances), with ``top`` the largest
        score when every score is rational and otherwise a rational upper bound of the scores
        (shifting every exponent by one amount does not change the law).

        Intended for moderate candidate lists (one exact number per score); use
        :meth:`choice_log_weights` for millions of float log-weights.
        """
        e = _exact(eps, "eps")
        if reals.sign(e) <= 0:
            raise ValueError(f"eps must be > 0, got {eps!r}")
        s = [_exact(v, "score") for v in scores]
        if not s:
            raise ValueError("the exponential mechanism needs at least one candidate")
        top = max(s) if all(isinstance(v, Fraction) for v in s) else _upper_bound(s)
        x = [reals.div(reals.mul(e, reals.sub(top, v)), 2) for v in s]
        return _sample_exp_neg_exact(self._bits, x)

    def choice_log_weights(self, log_weights) -> int:
        """Exact for the given float64 log-weights (NaN and ``+inf`` are rejected).

        ``log_weights`` may be any 1-D sequence or numpy array; it is read as float64.
        """
        lw = np.asarray(log_weights, dtype=np.float64)
        if lw.ndim != 1 or lw.shape[0] == 0:
            raise ValueError("log_weights must be a non-empty 1-D sequence")
        if np.isnan(lw).any() or np.isposinf(lw).any():
            raise ValueError("log_weights must not contain NaN or +inf")
        finite = np.isfinite(lw)
        if not finite.any():
            raise ValueError("every candidate has weight zero (all log-weights are -inf)")
        top = float(lw[finite].max())
        with np.errstate(over="ignore", invalid="ignore"):
            x_approx = np.where(finite, top - lw, np.inf)  # one correctly rounded subtraction
        if not np.isfinite(x_approx[finite]).all():
            raise ValueError("log-weights spread too large to sample exactly")
        top_q = Fraction(top)
        return _sample_exp_neg(self._bits, x_approx, lambda i: top_q - Fraction(float(lw[i])))

    def choice_exact(self, x_approx, exact_x: Callable[[int], Fraction | Real],
                     slack: float) -> int:
        """Index ``i`` with probability exactly ``∝ exp(-x_i)``, ``x_i = exact_x(i) >= 0`` an
        exact number (computed only for the candidates proposed), ``x_approx`` float64
        approximations within ``slack`` of them (they only shape the proposal)."""
        x = np.array(x_approx, dtype=np.float64)
        if x.ndim != 1 or x.shape[0] == 0 or np.isnan(x).any():
            raise ValueError("x_approx must be a non-empty 1-D array without NaN")
        if not np.isfinite(x).all() or float(x.max()) > _MAX_SPREAD:
            # beyond what float64 keys hold: exact integer keys for every candidate
            return _sample_exp_neg_exact(self._bits, [exact_x(i) for i in range(x.shape[0])])
        return _sample_exp_neg(self._bits, x, exact_x, slack)

    def choice_exact_near_far(self, x_near, exact_near: Callable[[int], Fraction | Real],
                              slack: float, far_count: int, far_floor: float,
                              far_draw: Callable[[NoiseSource], Optional[tuple[Any, Fraction | Real]]],
                              ) -> tuple[bool, Any]:
        x = np.array(x_near, dtype=np.float64).reshape(-1)
        if np.isnan(x).any() or not math.isfinite(far_floor):
            raise ValueError("x_near and far_floor must be numbers")
        return _sample_exp_neg_near_far(self._bits, x, exact_near, slack, int(far_count),
                                        float(far_floor), lambda _bits: far_draw(self))

    def randbelow(self, n: int) -> int:
        return self._bits.randbelow(n)

    # ---- model randomness: continuous laws by numpy PCG64 (floats), discrete ones exactly ----

    def uniform(self) -> float:
        return float(self._model.random())

    def bernoulli(self, p: Number) -> bool:
        return _bernoulli_exact(self._model_bits, p)

    def beta(self, a: Number, b: Number) -> float:
        af, bf = _positive_float(a), _positive_float(b)
        if not (af > 0 and bf > 0):
            raise ValueError(f"beta needs positive parameters, got ({a!r}, {b!r})")
        return float(self._model.beta(af, bf))

    def normal(self, mean: Number, variance: Number) -> float:
        m, v = float(mean), float(variance)
        if not (math.isfinite(m) and math.isfinite(v) and v > 0):
            raise ValueError("normal needs a finite mean and a variance > 0, got "
                             f"({mean!r}, {variance!r})")
        return float(self._model.normal(m, math.sqrt(v)))

    def dirichlet(self, alphas: Sequence[Number]) -> tuple[float, ...]:
        a = np.asarray([_positive_float(x) for x in alphas], dtype=np.float64)
        if a.shape[0] < 2 or not (a > 0).all():
            raise ValueError(f"dirichlet needs k >= 2 positive parameters, got {alphas!r}")
        return tuple(float(x) for x in self._model.dirichlet(a))

    def categorical(self, probs: Sequence[Number]) -> int:
        return _categorical_exact(self._model_bits, probs)


def _positive_float(x: Number) -> float:
    """A positive parameter of model randomness as a float64, saturated to the float range:
    a parameter beyond it (``1e400``, ``1e-400``) is drawn with the largest (smallest
    positive) float instead of failing. A failure here would be an error that one input meets
    and its neighbour does not (``beta (a + count db, 1.0)`` with ``a`` at the edge of the
    range) — an observable output the proof does not see. Non-positive input stays non-positive
    (the caller refuses it)."""
    try:
        f = float(x)
    except OverflowError:
        f = math.inf
    if f == math.inf:
        return sys.float_info.max
    if f == 0.0 and x > 0:
        return math.ulp(0.0)
    return f


def secure_source() -> NoiseSource:
    """A releasable source: bits from ``secrets``/``os.urandom``, exact samplers.

    Model randomness uses numpy PCG64 seeded with 128 bits from ``secrets``.
    """
    return _ExactNoiseSource(_SecureBits(), secrets.randbits(128), True,
                             "secure (os.urandom, exact discrete samplers)", _SecureBits())


def seeded_source(seed: int) -> NoiseSource:
    """A reproducible source for tests: the same algorithms on a SHAKE-256 stream keyed by ``seed``.

    Its output must **not** be released: anyone who knows the seed knows the noise.
    Privacy noise and model randomness use independent streams (different SHAKE domains), so
    the number of ``ran`` draws does not shift the privacy noise.
    """
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
        raise TypeError("seed must be an integer")
    model_seed = _ShakeBits(int(seed), b"model").randbits(128)
    return _ExactNoiseSource(_ShakeBits(int(seed), b"noise"), model_seed, False,
                             f"seeded {int(seed)} — NOT for release",
                             _ShakeBits(int(seed), b"model-discrete"))
