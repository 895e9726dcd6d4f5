"""M-values (the probability monad ``M[T]``): representation, sampling and exact inference.

Representation
==============

An M-value is a small lazy tree built by the evaluator::

    Return(v)                       return v                      (Dirac at v)
    Bind(m, k)                      mlet x = m in ...             k: value -> M-value
    Ran(d)                          ran d                         d a symbolic distribution
    Observe(prior, likelihood)      observe likelihood prior      likelihood: value -> M[bool]
    Laplace / Gaussian / Exponential / Release                    the privacy mechanisms

Continuations (``Bind.k``, ``Observe.likelihood``) are Python callables supplied by the
evaluator; evaluating them is pure, so a tree may be sampled or analysed any number of times.

Semantics (the paper's Fig. 3)
==============================

``return`` is the Dirac distribution, ``mlet`` composes kernels, ``observe f u`` is ``u``
reweighted by ``Pr[f(x) = true]`` and **renormalised at the observe**, ``infer`` turns an
M-value into its symbolic distribution. In a likelihood, ``return (d = z)`` with ``z`` drawn
from a *continuous* distribution weighs by the density of ``d`` (LANGUAGE.md).

Public functions
================

* ``sample(m, source)``: one draw, using the ``NoiseSource`` for every random choice
  (iterative over chains of binds, so long recursive programs are fine). An ``Observe`` is
  sampled from its exactly inferred posterior.
* ``infer(m, span)``: the exact distribution as a symbolic distribution, or R003.
* ``enumerate_finite(m, span)``: the same, required to be finite (a ``Finite`` or
  ``Bernoulli``/``Categorical``), or R003.
* ``probability_of_true(m, span)``: ``Pr[m = true]`` (a density when the density reading
  applies); this is the weight an ``observe`` gives to one prior value.

How ``infer`` works
===================

``_analyse`` walks the tree and computes a symbolic distribution:

* ``Ran(d)`` is ``d``; ``Return(v)`` is the point mass at ``v``; a mechanism with a finite
  output (``expMech``, ``hellingerMech``) is its exact law; Laplace/Gaussian noise is not
  representable (R003).
* ``Bind(m, k)``: if ``m`` is finite, the mixture ``sum_v Pr[m = v] * analyse(k v)`` is
  enumerated (each component must be finite, or all components equal); if ``m`` is continuous,
  ``k`` is applied to a *symbolic parameter* ``θ``: ``return θ`` gives ``m`` itself, and
  ``ran (bernoulli θ)`` / ``ran (categorical θ)`` / ``ran (normal (θ, v))`` (possibly as
  ``mlet z = ... in return z``) gives the predictive distribution (``bernoulli(mean m)``, ...).
* ``Observe(prior, f)`` (chains of observes are handled iteratively): the prior is analysed
  first. A finite prior is conditioned by enumeration: each value ``v`` is weighted by
  ``probability_of_true(f v)``. A continuous prior is conditioned by **recognising a conjugate
  likelihood**: ``f`` is applied to a symbolic parameter ``θ`` and the resulting tree must be
  ``mlet z = ran (F θ) in return (d = z)`` (or ``z = d``, or ``return z`` / ``ran (F θ)``
  alone for an observation of ``true``) with ``F θ`` one of ``bernoulli θ``,
  ``categorical θ``, ``normal (θ, v)`` and ``d`` a concrete value; then the closed-form update
  applies: beta–bernoulli ``beta(a + [d], b + [not d])``, dirichlet–categorical
  ``alpha_d + 1``, normal–normal (known variance v) ``normal((m v + d s) / (s + v), s v / (s + v))``
  for a ``normal(m, s)`` prior. A likelihood that does not use ``θ`` at all leaves the prior
  unchanged. Anything else (arithmetic on ``θ``, a non-conjugate pair, ...) is R003 with the
  reason.
* The paper's listing ``mlet rec = learnBias dbs prior in observe f rec`` (an observe applied to
  the *value* bound by ``mlet``) is read by the parser as ``observe f (learnBias dbs prior)``,
  which is what the paper means (``parser.observe_drawn``).

**An observation of probability 0 leaves the prior unchanged.** The paper's semantics (Fig. 3)
is undefined there (it divides by 0); privinfer makes ``observe`` total, so that a verified
program never stops on it (``learnBias`` is verified for *every* prior on [0, 1], a point mass at
0 included, and observing ``true`` from that prior has probability 0). Any distribution is a
version of a conditional law on a null event; the prior is the one that carries no information
from it. No rule of the verifier relies on a zero-probability observation (the conjugate
updates it proves never have one; EqualInputs holds for any deterministic semantics), and
``audit`` computes the same laws. (R007 is no longer raised.) An enumeration with
more than ``MAX_SUPPORT`` outcomes, or taking more than ``MAX_WORK`` steps, is R009.
Finite laws are plain dicts while analysing and become a canonical ``Finite`` (``Bernoulli``
over ``bool``) only in the result.
"""
from __future__ import annotations

import math
from contextlib import contextmanager
from fractions import Fraction
from typing import Any, Callable, Dict, Iterator, List, Optional, Tuple, Union

from verifier.errors import PrivInferError, error
from verifier.language.ast import Span
from verifier.semantics import meter, reals
from verifier.semantics.distributions import (
    Bernoulli, Beta, Categorical, Dirichlet, Distribution, InfiniteDensity, Normal, Uniform,
    make_finite, normalise,
)
from verifier.semantics.posterior import Posterior, likelihood_shape
from verifier.semantics.values import (
    Symbolic, SymbolicEscape, Value, deep_recursion, format_value, is_number, releasing,
)

#: The largest number of outcomes an exact enumeration may hold at once.
MAX_SUPPORT = 200_000
#: The most steps (continuations evaluated plus outcomes combined) one exact inference may take.
MAX_WORK = 250_000

Prob = Any


class NotExact(Exception):
    """The model is outside what ``infer`` can compute exactly; ``reason`` says why."""

    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason


# --------------------------------------------------------------------------------------
# the tree
# --------------------------------------------------------------------------------------


class MValue:
    """Base class of M-values."""

    __slots__ = ()
    span: Optional[Span] = None


class Return(MValue):
    __slots__ = ("value",)

    def __init__(self, value: Value):
        self.value = value


class Bind(MValue):
    __slots__ = ("m", "k", "span")

    def __init__(self, m: MValue, k: Callable[[Value], MValue], span: Optional[Span] = None):
        self.m = m
        self.k = k
        self.span = span


class Ran(MValue):
    """``ran d``; ``d`` is a ``Distribution`` (or, during inference, a ``SymFamily``)."""

    __slots__ = ("dist", "span")

    def __init__(self, dist: Any, span: Optional[Span] = None):
        self.dist = dist
        self.span = span


class Observe(MValue):
    __slots__ = ("prior", "likelihood", "span")

    def __init__(self, prior: MValue, likelihood: Callable[[Value], MValue], span: Optional[Span] = None):
        self.prior = prior
        self.likelihood = likelihood
        self.span = span


class Mechanism(MValue):
    """A privacy mechanism: draws its noise from the ``NoiseSource`` when sampled."""

    name = "mechanism"

    def sample(self, source: Any) -> Value:
        raise NotImplementedError

    def law(self) -> Optional[Dict[Value, Prob]]:
        """The exact output distribution when it is finite, else ``None``."""
        return None

    def describe(self) -> str:
        where = f" at {self.span}" if self.span is not None else ""
        return f"{self.name}{where}"


class Laplace(Mechanism):
    """``center + Lap(scale)``; a sample is ``NoiseSource.laplace_exact``: an exact draw of
    ``center + Lap(scale)`` rounded to the grid of the scale (post-processing; its law is
    ``noise.released_probability``, docs/noise.md)."""

    name = "lapMech"

    def __init__(self, center: Value, scale: Value, span: Optional[Span] = None):
        self.center, self.scale, self.span = center, scale, span

    def sample(self, source):
        return source.laplace_exact(self.center, self.scale)


class Gaussian(Mechanism):
    """``center + N(0, sigma^2)`` (``sigma`` the standard deviation); a sample is
    ``NoiseSource.gaussian_exact``: an exact draw rounded to the grid of ``sigma``."""

    name = "gaussMech"

    def __init__(self, center: Value, sigma: Value, span: Optional[Span] = None):
        self.center, self.sigma, self.span = center, sigma, span

    def sample(self, source):
        return source.gaussian_exact(self.center, self.sigma)


class Exponential(Mechanism):
    """The exponential mechanism: ``candidates[i]`` with probability ∝ ``exp(eps * scores[i] / 2)``
    (exact: the scores and eps are exact numbers, the law's probabilities exact reals)."""

    name = "expMech"

    def __init__(self, candidates: List[Value], scores: List[Value], eps: Value, span: Optional[Span] = None):
        self.candidates, self.scores, self.eps, self.span = candidates, scores, eps, span

    def sample(self, source):
        return self.candidates[source.exponential_mechanism(self.scores, self.eps)]

    def law(self):
        half = self.eps / 2
        weights: Dict[Value, Prob] = {}
        for c, s in zip(self.candidates, self.scores):
            w = reals.exp(half * s)
            weights[c] = weights[c] + w if c in weights else w
        return normalise(weights)


class Release(Mechanism):
    """A mechanism implemented elsewhere (the Hellinger mechanisms): ``draw(source)`` releases
    one value, ``exact_law()`` (optional) gives its finite law."""

    def __init__(self, name: str, draw: Callable[[Any], Value],
                 exact_law: Optional[Callable[[], Dict[Value, Prob]]] = None, span: Optional[Span] = None):
        self.name, self._draw, self._law, self.span = name, draw, exact_law, span

    def sample(self, source):
        return self._draw(source)

    def law(self):
        return self._law() if self._law is not None else None


# --------------------------------------------------------------------------------------
# symbolic placeholders used to recognise model shapes
# --------------------------------------------------------------------------------------


class SymParam(Symbolic):
    """The parameter θ of a continuous distribution, passed to a likelihood or continuation."""

    __slots__ = ("prior",)

    def __init__(self, prior: Distribution):
        self.prior = prior

    def describe(self) -> str:
        return f"the parameter drawn from {self.prior.format()}"


class SymFamily(Symbolic):
    """``bernoulli θ``, ``categorical θ`` or ``normal (θ, variance)`` for a symbolic θ."""

    __slots__ = ("kind", "param", "variance")

    def __init__(self, kind: str, param: SymParam, variance: Value = None):
        self.kind, self.param, self.variance = kind, param, variance

    def describe(self) -> str:
        return f"{self.kind} of {self.param.describe()}"


class SymDraw(Symbolic):
    """The value ``z`` drawn by ``mlet z = ran F in ...`` from ``family`` (a ``SymFamily`` or a
    continuous ``Distribution``), while recognising a likelihood."""

    __slots__ = ("family",)

    def __init__(self, family: Any):
        self.family = family

    def describe(self) -> str:
        return "the value drawn in the likelihood"


class SymEq(Symbolic):
    """``d = z`` for a concrete ``observed`` value ``d`` and a drawn ``z`` (a ``SymDraw``)."""

    __slots__ = ("draw", "observed")

    def __init__(self, draw: SymDraw, observed: Value):
        self.draw, self.observed = draw, observed

    def describe(self) -> str:
        return "the observation d = z"


def symbolic_family(kind: str, param: Value, variance: Value = None) -> SymFamily:
    """The evaluator's ``bernoulli θ`` / ``categorical θ`` / ``normal (θ, v)`` on a symbolic θ."""
    if not isinstance(param, SymParam):
        raise SymbolicEscape(f"the likelihood builds {kind} from {param.describe()}")
    return SymFamily(kind, param, variance)


def observation(left: Value, right: Value) -> SymEq:
    """The evaluator's ``left = right`` when one side is a ``SymDraw``."""
    draw, other = (left, right) if isinstance(left, SymDraw) else (right, left)
    if not isinstance(draw, SymDraw) or isinstance(other, Symbolic):
        raise SymbolicEscape("the likelihood compares two symbolic values")
    return SymEq(draw, other)


# --------------------------------------------------------------------------------------
# sampling
# --------------------------------------------------------------------------------------


def sample(m: MValue, source: Any) -> Value:
    """One draw from ``m``; every random choice comes from ``source``."""
    with deep_recursion():
        try:
            return _sample(m, source)
        except reals.Undecided as exc:
            raise _undecided(exc, m.span) from None


def _undecided(exc: "reals.Undecided", span: Optional[Span]) -> PrivInferError:
    return error("R011", f"a comparison of real numbers could not be decided: {exc}", span,
                 hint="privinfer decides every comparison exactly or stops; it never guesses")


def _sample(m: MValue, source: Any) -> Value:
    pending: List[Callable[[Value], MValue]] = []
    while True:
        if isinstance(m, Bind):
            pending.append(m.k)
            m = m.m
            continue
        if isinstance(m, Return):
            value = m.value
        elif isinstance(m, Ran):
            try:
                value = m.dist.sample(source)
            except (ValueError, ArithmeticError) as exc:
                raise error("R006", f"cannot draw from {m.dist.format()}: {exc}", m.span,
                            hint="model randomness is drawn in float64: parameters must lie "
                                 "within the float range") from None
        elif isinstance(m, Observe):
            value = infer(m, m.span).sample(source)
        elif isinstance(m, Mechanism):
            try:
                value = m.sample(source)
            except reals.Undecided as exc:
                raise _undecided(exc, m.span) from None
            except (ValueError, ArithmeticError) as exc:
                raise error("R006", f"{m.describe()} could not draw its noise: {exc}", m.span) from None
        else:
            raise TypeError(f"not an M-value: {m!r}")
        if not pending:
            return value
        m = pending.pop()(value)


# --------------------------------------------------------------------------------------
# exact inference
# --------------------------------------------------------------------------------------

_HINT = ("infer is exact for beta-bernoulli, dirichlet-categorical and normal-normal (known variance) "
         "models and for models with finite support")


#: A law while analysing: a symbolic distribution, or the probabilities of a finite one as a
#: plain dict (canonicalised into a ``Distribution`` only once, at the end of ``infer``).
Law = Union[Distribution, Dict[Value, Prob]]


class _Budget:
    """The work left to the current exact inference (continuations evaluated, outcomes
    combined); R009 when exhausted. Nested inferences (an ``infer`` inside a continuation) get
    their own budget."""

    remaining = MAX_WORK

    @classmethod
    def spend(cls, amount: int, span: Optional[Span]) -> None:
        meter.charge(amount)
        cls.remaining -= amount
        if cls.remaining < 0 and not releasing():
            raise error("R009", f"the enumeration is too large: more than {MAX_WORK} steps",
                        span, hint="exact enumeration is exponential in the number of independent draws")


@contextmanager
def _fresh_budget() -> Iterator[None]:
    saved = _Budget.remaining
    _Budget.remaining = MAX_WORK
    try:
        with deep_recursion():
            yield
    finally:
        _Budget.remaining = saved


def infer(m: MValue, span: Optional[Span] = None) -> Distribution:
    """The exact distribution of ``m`` as a symbolic distribution (R003 if not computable)."""
    try:
        with _fresh_budget():
            law = _analyse(m)
            return make_finite(law, span) if isinstance(law, dict) else law
    except (NotExact, SymbolicEscape) as exc:
        raise error("R003", f"cannot infer this model exactly: {exc.reason}", span, hint=_HINT) from None
    except InfiniteDensity as exc:
        raise error("R003", f"cannot infer this model: {exc}", span,
                    hint="an observation where the density is infinite has no well-defined weight") from None
    except reals.Undecided as exc:
        raise _undecided(exc, span) from None


def enumerate_finite(m: MValue, span: Optional[Span] = None) -> Distribution:
    """The exact distribution of ``m``, which must have finite support (else R003)."""
    d = infer(m, span)
    if not d.is_finite():
        raise error("R003", f"the distribution is not finite: it is {d.format()}", span)
    return d


def probability_of_true(m: MValue, span: Optional[Span] = None) -> Prob:
    """``Pr[m = true]`` for an ``M[bool]``; under the density reading (``mlet z = ran d in
    return (x = z)`` with ``d`` continuous) the density of ``d`` at ``x``."""
    try:
        with _fresh_budget():
            return _probability_of_true(m)
    except (NotExact, SymbolicEscape) as exc:
        raise error("R003", f"cannot compute the probability of this observation exactly: {exc.reason}",
                    span, hint=_HINT) from None
    except InfiniteDensity as exc:
        raise error("R003", f"cannot compute the probability of this observation: {exc}", span) from None
    except reals.Undecided as exc:
        raise _undecided(exc, span) from None


def _pmf(law: Law) -> Optional[Dict[Value, Prob]]:
    """The probabilities of a finite law, ``None`` for a continuous one."""
    if isinstance(law, dict):
        return law
    return law.pmf() if law.is_finite() else None


def _describe_law(law: Law) -> str:
    if isinstance(law, dict):
        return f"a finite distribution over {len(law)} values"
    return law.format()


def _analyse(m: MValue) -> Law:
    if isinstance(m, Return):
        if isinstance(m.value, Symbolic):
            raise SymbolicEscape(f"the model returns {m.value.describe()}")
        return {m.value: Fraction(1)}
    if isinstance(m, Ran):
        if isinstance(m.dist, Symbolic):
            raise SymbolicEscape(f"the model draws from {m.dist.describe()}")
        return m.dist
    if isinstance(m, Observe):
        likelihoods: List[Observe] = []
        while isinstance(m, Observe):  # a chain of observes, innermost prior last
            likelihoods.append(m)
            m = m.prior
        law = _analyse(m)
        for obs in reversed(likelihoods):
            law = _condition(law, obs.likelihood, obs.span)
        return law
    if isinstance(m, Bind):
        return _analyse_bind(m)
    if isinstance(m, Mechanism):
        law = m.law()
        if law is None:
            raise NotExact(f"{m.describe()} adds continuous noise, so the result has neither finite "
                           f"support nor a conjugate closed form")
        _Budget.spend(len(law), m.span)
        return law
    raise TypeError(f"not an M-value: {m!r}")


def _analyse_bind(m: Bind) -> Law:
    first = _analyse(m.m)
    pmf = _pmf(first)
    if pmf is not None:
        if len(pmf) == 1:
            (value,) = pmf
            return _analyse(m.k(value))
        _Budget.spend(len(pmf), m.span)
        components = [(p, _analyse(m.k(v))) for v, p in pmf.items()]
        if all(_pmf(c) is not None for _, c in components):
            weights: Dict[Value, Prob] = {}
            for p, c in components:
                law = _pmf(c)
                _Budget.spend(len(law), m.span)
                for v, q in law.items():
                    weights[v] = weights.get(v, 0) + p * q
            if len(weights) > MAX_SUPPORT and not releasing():
                raise error("R009", f"the enumeration is too large: more than {MAX_SUPPORT} outcomes", m.span)
            return weights
        if all(c == components[0][1] for _, c in components):
            return components[0][1]
        raise NotExact("the model is a mixture of continuous distributions ("
                       + ", ".join(_describe_law(c) for _, c in components[:3])
                       + (", ..." if len(components) > 3 else "") + "), which has no closed form")
    theta = SymParam(first)
    try:
        cont = m.k(theta)
        if isinstance(cont, Return) and cont.value is theta:
            return first
        family = _predictive_family(cont, theta)
    except SymbolicEscape as exc:
        raise NotExact(f"after drawing from the continuous {first.format()}, {exc.reason}") from None
    if family is None:
        raise NotExact(f"the model draws from the continuous {first.format()} and continues with a "
                       f"computation that is neither `return` of the draw nor a conjugate predictive")
    return _predictive(first, family)


def _predictive_family(cont: MValue, theta: SymParam) -> Optional[SymFamily]:
    """``F θ`` when ``cont`` is ``ran (F θ)`` or ``mlet z = ran (F θ) in return z``."""
    if isinstance(cont, Ran) and isinstance(cont.dist, SymFamily) and cont.dist.param is theta:
        return cont.dist
    if isinstance(cont, Bind) and isinstance(cont.m, Ran) and isinstance(cont.m.dist, SymFamily) \
            and cont.m.dist.param is theta:
        draw = SymDraw(cont.m.dist)
        rest = cont.k(draw)
        if isinstance(rest, Return) and rest.value is draw:
            return cont.m.dist
    return None


def _predictive(prior: Distribution, family: SymFamily) -> Distribution:
    """The marginal of ``F θ`` for θ drawn from ``prior`` (conjugate pairs only)."""
    if family.kind == "bernoulli" and isinstance(prior, (Beta, Uniform)):
        return Bernoulli(prior.mean())
    if family.kind == "categorical" and isinstance(prior, Dirichlet):
        return Categorical(prior.mean())
    if family.kind == "normal" and isinstance(prior, Normal):
        return Normal(prior.mu, prior.var + family.variance)
    raise NotExact(f"the predictive distribution of {family.kind} under {prior.format()} has no closed form")


# --------------------------------------------------------------------------------------
# conditioning
# --------------------------------------------------------------------------------------


def _condition(prior: Law, likelihood: Callable[[Value], MValue], span: Optional[Span]) -> Law:
    """``observe likelihood prior`` for an analysed prior."""
    pmf = _pmf(prior)
    if pmf is not None:
        _Budget.spend(len(pmf), span)
        weights = {v: p * _probability_of_true(likelihood(v)) for v, p in pmf.items()}
        if sum(weights.values(), Fraction(0)) == 0:
            return prior  # an observation of probability 0 (module docstring)
        return normalise({v: w for v, w in weights.items() if w != 0})
    if isinstance(prior, Posterior):
        return _without_closed_form(prior.prior, prior, likelihood)
    theta = SymParam(prior)
    try:
        lik = likelihood(theta)
        shape = _observation_shape(lik)
    except SymbolicEscape as exc:
        return _without_closed_form(prior, None, likelihood,
                                    f"the likelihood is not conjugate to the prior "
                                    f"{prior.format()}: {exc.reason}")
    if shape is not None and shape[0] is None:
        return prior  # a constant likelihood: true changes nothing, false has probability 0
    if shape is not None and isinstance(shape[0], SymFamily) and shape[0].param is theta:
        family, observed, by_equality = shape
        if not by_equality and family.kind != "bernoulli":
            raise NotExact(f"the likelihood returns a draw from {family.kind} θ, which is not a boolean")
        return _conjugate_update(prior, family, observed, span)
    try:  # a likelihood that does not depend on θ
        p = _probability_of_true(lik)
    except SymbolicEscape as exc:
        raise NotExact(f"the likelihood is not of the form `mlet z = ran (F θ) in return (d = z)` with F "
                       f"bernoulli, categorical or normal (θ, v) ({exc.reason}), so it is not conjugate to "
                       f"the prior {prior.format()}") from None
    return prior  # a likelihood that does not depend on θ (of probability 0 or not)


def _without_closed_form(prior: Law, posterior: Optional["Posterior"], likelihood: Callable,
                         why: str = "") -> Law:
    """A ``beta``/``uniform`` prior (or such a posterior) observed through a likelihood that
    is not conjugate to it, written ``fun r -> mlet z = ran (bernoulli P) in return (D = z)``:
    the posterior kept as prior times likelihoods (``verifier.semantics.posterior``)."""
    source = getattr(likelihood, "source", None)
    if not (isinstance(prior, (Beta, Uniform)) and likelihood_shape(source)):
        raise NotExact(why or f"the likelihood is not conjugate to {prior.format()} and not of "
                       "the form fun r -> mlet z = ran (bernoulli P) in return (D = z)")
    if posterior is not None:
        return posterior.observed(likelihood)
    return Posterior(prior, (likelihood,))


def _observation_shape(lik: MValue) -> Optional[Tuple[Any, Value, bool]]:
    """``(F, d, True)`` when ``lik`` is ``mlet z = ran F in return (d = z)`` (or ``z = d``);
    ``(F, true, False)`` when it is ``ran F`` or ``mlet z = ran F in return z`` (an observation
    that the draw is ``true``); ``(None, b, False)`` for ``mlet z = ran F in return b`` with a
    constant ``b``; ``None`` otherwise, and for a finite concrete ``F`` (which is simply
    enumerated)."""
    if isinstance(lik, Ran):
        return (lik.dist, True, False)
    if isinstance(lik, Bind) and isinstance(lik.m, Ran):
        family = lik.m.dist
        if isinstance(family, Distribution) and family.is_finite():
            return None
        draw = SymDraw(family)
        rest = lik.k(draw)
        if isinstance(rest, Return):
            if rest.value is draw:
                return (family, True, False)
            if isinstance(rest.value, SymEq) and rest.value.draw is draw:
                return (family, rest.value.observed, True)
            if isinstance(rest.value, bool):  # the draw is ignored: a constant likelihood
                return (None, rest.value, False)
    return None


def _probability_of_true(lik: MValue) -> Prob:
    try:
        shape = _observation_shape(lik)
    except SymbolicEscape:
        shape = None
    if shape is not None and shape[0] is None:
        return Fraction(1) if shape[1] else Fraction(0)
    if shape is not None and isinstance(shape[0], Distribution) and not shape[0].is_finite():
        family, observed, by_equality = shape
        if not by_equality:
            raise NotExact(f"the likelihood returns a draw from the continuous {family.format()}, "
                           f"which is not a boolean")
        if isinstance(observed, Symbolic):
            raise SymbolicEscape(f"the likelihood observes {observed.describe()}")
        return family.density(observed)
    pmf = _pmf(_analyse(lik))
    if pmf is None:
        raise NotExact("the likelihood is a continuous distribution, not a distribution over bool")
    return pmf.get(True, 0)


def _conjugate_update(prior: Distribution, family: SymFamily, observed: Value, span: Optional[Span]) -> Distribution:
    if isinstance(observed, Symbolic):
        raise NotExact(f"the likelihood observes {observed.describe()} rather than a data value")
    if family.kind == "bernoulli" and isinstance(prior, (Beta, Uniform)):
        beta = prior.as_beta()
        if not isinstance(observed, bool):
            raise NotExact(f"a bernoulli draw is compared with the non-boolean {format_value(observed)}")
        return Beta(beta.a + 1, beta.b) if observed else Beta(beta.a, beta.b + 1)
    if family.kind == "categorical" and isinstance(prior, Dirichlet):
        k = len(prior.alphas)
        if not (is_number(observed) and observed == int(observed)):
            raise NotExact(f"a categorical draw is compared with the non-integer {format_value(observed)}")
        if not 0 <= observed < k:
            raise error("R001", f"the observed category {format_value(observed)} is not in [{k}] = "
                                f"{{0, ..., {k - 1}}}", span)
        index = int(observed)
        return Dirichlet(tuple(a + 1 if i == index else a for i, a in enumerate(prior.alphas)))
    if family.kind == "normal" and isinstance(prior, Normal):
        if not is_number(observed):
            raise NotExact(f"a normal draw is compared with the non-number {format_value(observed)}")
        s, v = prior.var, family.variance
        return Normal((prior.mu * v + observed * s) / (s + v), s * v / (s + v))
    raise NotExact(f"a {family.kind} likelihood is not conjugate to the prior {prior.format()} "
                   f"(the conjugate pairs are beta-bernoulli, dirichlet-categorical and normal-normal "
                   f"with known variance)")


__all__ = [
    "MValue", "Return", "Bind", "Ran", "Observe", "Mechanism", "Laplace", "Gaussian", "Exponential",
    "Release", "SymParam", "SymFamily", "SymDraw", "SymEq", "NotExact", "MAX_SUPPORT", "MAX_WORK",
    "sample", "infer", "enumerate_finite", "probability_of_true", "symbolic_family", "observation",
]
