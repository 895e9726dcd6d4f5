"""Posteriors without a closed form: a ``beta`` (or ``uniform``) prior observed through
likelihoods that are not conjugate to it (``bernoulli (r * r)``), the models the verifier's
Infer rule accepts without a closed form (``verifier.translation.inferred``).

The posterior is kept exactly, as what defines it: the prior and the likelihoods, its density
``prior(t) * w(t) / Z`` with ``w(t) = prod_j Pr[L_j t = true]`` and ``Z = int prior * w``.
What ``run`` shows of it is computed rigorously (docs/reals.md):

* the normaliser ``Z`` and the mean ``int t prior(t) w(t) dt / Z`` are enclosed by a
  Riemann-Stieltjes sum with certified bounds: [0, 1] is cut into ``n`` intervals ``I``; on
  each, ``w`` is enclosed by evaluating the likelihoods (the language's evaluator, exact reals)
  at ``t`` = an Arb ball holding all of ``I`` — interval arithmetic, so the ball holds
  ``w(t)`` for every ``t`` in ``I``, and a comparison the evaluator decides on that ball is
  decided for every such ``t`` (an undecided one, or a range condition it cannot decide, gives
  the bound every likelihood of this shape has: ``0 <= w <= 1``); the prior mass of ``I``
  (and ``int_I t prior``) is the regularised incomplete beta function in Arb. The sums of the
  products enclose ``Z`` and the mean's numerator; the enclosures shrink like ``1/n``;
* the density at a point is exact (the likelihoods evaluated at that point, over ``Z``);
* a **draw** is the semantics' own: rejection. ``t`` is drawn from the prior and kept with
  probability ``w(t)`` (each observation's likelihood drawn at ``t``, kept when it says
  ``true``), which gives ``t`` with density ``prior(t) w(t) / Z`` exactly, whatever the
  number of rounds. The enclosure of ``Z`` bounds the rounds: ``DRAW_ROUNDS_BITS * ln 2 /
  Z_lo`` of them fail together with probability at most ``2^-DRAW_ROUNDS_BITS``; then, or when
  that bound exceeds ``MAX_DRAW_ROUNDS`` (a normaliser too small to draw from in time), R012 —
  an error, never a draw from something else. The draws of the prior and of the likelihoods'
  ``bernoulli`` are the noise source's model randomness, as for every other ``ran``.

Only likelihoods written ``fun r -> mlet z = ran (bernoulli P) in return (D = z)`` (or
``z = D``, ``return z``) are accepted (``likelihood_shape``): each weighs ``t`` by a
probability, so ``0 <= w <= 1`` holds where the evaluator cannot decide.
"""
from __future__ import annotations

import math
from fractions import Fraction
from typing import Any, Callable, Tuple

from flint import arb

from verifier.errors import PrivInferError, error
from verifier.semantics import reals
from verifier.semantics.distributions import Distribution
from verifier.semantics.values import SymbolicEscape

#: the number of intervals of the enclosure ``run`` prints (width about 1/PRINT_INTERVALS)
PRINT_INTERVALS = 512
#: the most intervals an enclosure refines to (a resource limit: beyond, R012)
MAX_INTERVALS = 4096
#: a draw's rounds of rejection: enough that all fail with probability at most 2^-BITS, and
#: at most MAX (a resource limit: a posterior whose normaliser needs more is R012)
DRAW_ROUNDS_BITS, MAX_DRAW_ROUNDS = 40, 100_000


def likelihood_shape(source: Any) -> bool:
    """``source`` (the likelihood, a closure of the evaluator) is written ``fun r -> mlet z =
    ran (bernoulli P) in return (D = z)``: its weight is a probability."""
    from verifier.language import ast as A
    from verifier.translation.inferred import _bernoulli_likelihood
    params, body = getattr(source, "params", None), getattr(source, "body", None)
    if params is None or body is None or len(params) != 1:
        return False
    return _bernoulli_likelihood(A.Fun(tuple(params), body))


class Posterior(Distribution):
    """``prior`` (a ``Beta`` or ``Uniform``) observed through ``likelihoods`` (each
    ``value -> M-value`` over bool); equal to another only when made of the same prior and
    the same likelihood closures."""

    family = "posterior"

    def __init__(self, prior: Distribution, likelihoods: Tuple[Callable, ...]):
        self.prior = prior.as_beta()
        self.likelihoods = tuple(likelihoods)
        self._sums = {}
        #: the observations that count (one of probability 0 changes nothing: ``enclosures``)
        self.active: Tuple[int, ...] = tuple(range(len(self.likelihoods)))

    def __eq__(self, other):
        return isinstance(other, Posterior) and self.prior == other.prior and \
            len(self.likelihoods) == len(other.likelihoods) and \
            all(a is b for a, b in zip(self.likelihoods, other.likelihoods))

    def __hash__(self):
        return hash(("posterior", self.prior, tuple(id(f) for f in self.likelihoods)))

    def observed(self, likelihood: Callable) -> "Posterior":
        return Posterior(self.prior, self.likelihoods + (likelihood,))

    def params(self):
        raise TypeError("a posterior without a closed form has no parameters")

    # ---- what run shows ---------------------------------------------------------------

    def format(self) -> str:
        """What it is (cheap: messages name it); ``show`` adds the enclosures."""
        n = len(self.likelihoods)
        return (f"posterior({self.prior.format()}, {n} observation{'s' if n != 1 else ''}; "
                "no closed form)")

    def show(self) -> str:
        """``format`` with the enclosures of its mean and normaliser (what ``run`` prints)."""
        z, mean = self.enclosures(PRINT_INTERVALS)
        skipped = len(self.likelihoods) - len(self.active)
        if skipped:
            return (self.format()[:-1] + f": {skipped} of probability 0, which change nothing; "
                    f"mean in [{_lo(mean)}, {_hi(mean)}], normaliser in [{_lo(z)}, {_hi(z)}])")
        return (self.format()[:-1] + f": mean in [{_lo(mean)}, {_hi(mean)}], normaliser in "
                f"[{_lo(z)}, {_hi(z)}])")

    def to_json(self):
        z, mean = self.enclosures(PRINT_INTERVALS)
        return {"family": "posterior", "prior": self.prior.to_json(),
                "observations": len(self.likelihoods),
                "mean": [_lo(mean), _hi(mean)], "normaliser": [_lo(z), _hi(z)]}

    def mean(self):
        """The mean as an exact real, enclosed at any precision by refining the sums (up to
        ``MAX_INTERVALS``; a comparison that needs more is R011)."""
        def enclose(prec: int) -> arb:
            n = min(MAX_INTERVALS, PRINT_INTERVALS << max(0, (prec - 64) // 64))
            return self.enclosures(n)[1]
        return reals.enclosed(enclose, "the mean of a posterior without closed form")

    def density(self, x):
        self.enclosures(PRINT_INTERVALS)  # (R012 when the normaliser is not shown positive)
        if not self.active:  # every observation of probability 0: the prior
            return self.prior.density(x)
        w = Fraction(1)
        for lik in (self.likelihoods[j] for j in self.active):
            w = reals.mul(w, _probability(lik, x))
        normaliser = reals.enclosed(lambda prec: self.enclosures(
            min(MAX_INTERVALS, PRINT_INTERVALS << max(0, (prec - 64) // 64)))[0],
            "the normaliser of a posterior without closed form", nonnegative=True)
        return reals.div(reals.mul(self.prior.density(x), w), normaliser)

    def sample(self, source):
        """An exact draw, by rejection (module docstring)."""
        z, _ = self.enclosures(PRINT_INTERVALS)
        z_lo = _dyadic(z.lower())
        rounds = math.ceil(DRAW_ROUNDS_BITS * math.log(2) / float(z_lo)) if z_lo > 0 else None
        if rounds is None or rounds > MAX_DRAW_ROUNDS:
            raise error("R012", "run cannot draw from this posterior without a closed form: its "
                        f"normaliser is not shown above {DRAW_ROUNDS_BITS * math.log(2) / MAX_DRAW_ROUNDS:.2g}"
                        f" (at least {_lo(z)}), so a draw by rejection could take more than "
                        f"{MAX_DRAW_ROUNDS} rounds (docs/reals.md)")
        for _ in range(rounds):
            t = self.prior.sample(source)
            if all(_observed(lik, t, source) for lik in (self.likelihoods[j] for j in self.active)):
                return t
        raise error("R012", f"no draw from this posterior without a closed form was accepted in "
                    f"{rounds} rounds of rejection (probability below 2^-{DRAW_ROUNDS_BITS})")

    # ---- the enclosures ------------------------------------------------------------------

    def enclosures(self, n: int, prec: int = 96) -> Tuple[arb, arb]:
        """Balls holding the normaliser ``Z`` and the mean, from ``n`` intervals. The
        observations are taken in order, as the semantics conditions (renormalising at each
        observe): one whose weight is exactly 0 wherever the distribution so far has mass
        (probability 0) leaves it unchanged, so it is skipped; ``self.active`` says which
        count."""
        if n not in self._sums:
            a, b = (reals.ball_of(x, prec) for x in (self.prior.a, self.prior.b))
            mass0, mass1, prev0, prev1 = [], [], arb(0), arb(0)
            for i in range(1, n + 1):
                hi = arb(Fraction(i, n).numerator) / Fraction(i, n).denominator
                cdf0 = arb(1) if i == n else hi.beta_lower(a, b, 1)
                cdf1 = arb(1) if i == n else hi.beta_lower(a + 1, b, 1)
                mass0.append(cdf0 - prev0)
                mass1.append(cdf1 - prev1)
                prev0, prev1 = cdf0, cdf1
            weights = [arb(1)] * n
            active = []
            for j, lik in enumerate(self.likelihoods):
                trial = [w * self._weight(lik, Fraction(i, n), Fraction(i + 1, n), prec)
                         for i, w in enumerate(weights)]
                if sum((m * w for m, w in zip(mass0, trial)), arb(0)).is_zero():
                    continue  # an observation of probability 0 (docs/reals.md)
                weights, active = trial, active + [j]
            z = sum((m * w for m, w in zip(mass0, weights)), arb(0))
            first = sum((m * w for m, w in zip(mass1, weights)), arb(0)) * a / (a + b)
            if not z > 0:
                raise error("R012", "the normaliser of this posterior is not shown positive "
                            f"with {n} intervals (an observation of probability 0?)")
            self.active = tuple(active)
            self._sums[n] = (z, first / z)
        return self._sums[n]

    @staticmethod
    def _weight(lik: Callable, lo: Fraction, hi: Fraction, prec: int) -> arb:
        """A ball holding ``Pr[lik t = true]`` for every ``t`` in ``[lo, hi]``."""
        mid, rad = (lo + hi) / 2, (hi - lo) / 2
        t = reals.enclosed(lambda p: arb(mid.numerator) / mid.denominator
                           + arb(0, arb(rad.numerator) / rad.denominator),
                           "a point of an interval", key=("interval", lo, hi))
        try:
            return _clamp(reals.ball_of(_probability(lik, t), prec))
        except (reals.Undecided, PrivInferError, SymbolicEscape, ArithmeticError):
            return arb("0.5") + arb(0, "0.5")  # [0, 1]: a probability


def holds_posterior(value: Any) -> bool:
    """``value`` is or contains (in a tuple or list) a posterior without closed form: a value
    equal to another only when made of the same closures, so a law over such values (the
    refuter's, ``audit``'s) would call two equal posteriors different."""
    from verifier.semantics.values import ConsList
    stack = [value]
    while stack:
        v = stack.pop()
        if isinstance(v, Posterior):
            return True
        if isinstance(v, (tuple, list)):
            stack.extend(v)
        elif isinstance(v, ConsList):
            stack.extend(iter(v))
    return False


def _probability(lik: Callable, t) -> Any:
    from verifier.semantics import monad
    with monad._fresh_budget():
        pmf = monad._pmf(monad._analyse(lik(t)))
    if pmf is None:
        raise error("R012", "a likelihood of a posterior without closed form is not a "
                    "distribution over bool")
    return pmf.get(True, 0)


def _observed(lik: Callable, t, source) -> bool:
    """One run of the likelihood at ``t`` says ``true`` (drawn with ``source``)."""
    return bool(source.bernoulli(_probability(lik, t)))


def _dyadic(x: arb) -> Fraction:
    man, exp = x.mid().man_exp()
    return Fraction(int(man)) * Fraction(2) ** int(exp)


def _clamp(p: arb) -> arb:
    """``p`` intersected with [0, 1] (``p`` holds a probability)."""
    lo, hi = max(p.lower(), arb(0)), min(p.upper(), arb(1))
    if lo > hi:
        return p
    return (lo + hi) / 2 + arb(0, (hi - lo) / 2)


def _lo(x: arb) -> str:
    return _decimal(x.lower(), down=True)


def _hi(x: arb) -> str:
    return _decimal(x.upper(), down=False)


def _decimal(end: arb, down: bool, digits: int = 6) -> str:
    """The exact end point ``end`` rounded outwards to ``digits`` decimals (a bound still)."""
    q = _dyadic(end) * 10 ** digits
    k = math.floor(q) if down else math.ceil(q)
    sign, k = ("-" if k < 0 else ""), abs(k)
    return f"{sign}{k // 10 ** digits}.{k % 10 ** digits:0{digits}d}"


__all__ = ["Posterior", "likelihood_shape", "holds_posterior"]
