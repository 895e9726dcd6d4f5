"""Output laws of a program and how far two of them are apart (for ``privinfer audit``, the
refutations of ``verifier.refutation`` and the fuzzer's oracle).

``output_law(value)`` gives the law of an entry's result, and ``pair_stat(law_a, law_b)`` the
directed comparison of run 1's law with run 2's (``PairStat``: the privacy loss
``max_o ln (P_a(o) / P_b(o))`` with a rigorous enclosure, and exact comparisons with a claimed
``eps`` or ``(eps, delta)``). The laws:

| law | when | exact? |
|---|---|---|
| ``Law``, precision ``exact`` | a finite distribution (``monad.enumerate_finite``) or a plain value | probabilities are rationals or exact reals |
| ``released.Noise`` | one release of ``lapMech`` / ``gaussMech`` (``noise_of``) | the exact law of the grid values the sampler releases |
| ``Law``, precision ``enclosed`` | a finite output of noise that is only compared (``verifier.semantics.compared``) | exact for continuous noise (``Law.exact``); the sampler, which rounds its draws to a grid, is enclosed: ``Law.bounds`` and the ``logs`` enclose its probabilities |
| ``ProductLaw`` | an output that releases noisy values beside a finite part (a histogram) | the finite part enclosed as above, each release exact on its grid |
| ``Law``, precision ``float`` | float probabilities (laws of extensions only) | compared within ``TOLERANCE`` |

Every decision against a claim is rigorous for the sampler that runs: exact comparisons of
exact numbers, or of the bounds of an enclosed law (a claim is exceeded when a lower bound
exceeds it, never on a float).
"""
from __future__ import annotations

import math
from fractions import Fraction
from typing import Any, Callable, Dict, List, Mapping, Optional, Tuple

import numpy as np

from obligations.records import record
from verifier.errors import PrivInferError, error
from verifier.language import ast
from verifier.semantics import compared, monad, reals, released
from verifier.semantics.distributions import Distribution
from verifier.semantics.posterior import holds_posterior
from verifier.semantics.values import SymbolicEscape, Value, canonical, format_value

#: Differences below this are treated as equality when comparing float laws with a claim.
TOLERANCE = 1e-9
#: Working precision of the Arb enclosures, in bits.
PRECISION_BITS = 128

EXACT, ENCLOSED, SCORES, FLOAT = "exact", "enclosed", "scores", "float"
RANK = {EXACT: 0, ENCLOSED: 1, SCORES: 2, FLOAT: 3}


@record(frozen=False)
class Law:
    """One finite output distribution: float probabilities (for reports), the exact
    probabilities (rationals or exact reals), their Arb log-probabilities, and for an
    ``ENCLOSED`` law the bounds ``(lower, upper)`` of each probability in the sampler that runs
    (``exact`` then holds the probabilities for continuous noise, and ``logs`` enclose the
    logarithms of the bounds)."""

    probs: Dict[Value, float]
    exact: Optional[Dict[Value, Any]]  # value -> Fraction or reals.Real, or None (FLOAT)
    logs: Optional[Dict[Value, Any]]   # value -> flint.arb, or None (FLOAT)
    precision: str
    bounds: Optional[Dict[Value, Tuple[Any, Any]]] = None
    source: Optional["compared.ComparedLaw"] = None     # the paths of an ENCLOSED law

    def bounds_of(self, o: Value) -> Tuple[Any, Any]:
        """``(lower, upper)`` of ``P(o)`` in the sampler (both 0 for an impossible output)."""
        if self.bounds is not None:
            return self.bounds.get(o, (0, 0))
        p = self.exact.get(o, 0)
        return p, p


def arb_context():
    """Arb's working precision raised to ``PRECISION_BITS`` for the block (flint directly: the
    lemma library's helper would load sympy, a second of the refutation path for nothing)."""
    from flint import ctx
    return ctx.workprec(max(PRECISION_BITS, 53))


def _is_exact(x: Any) -> bool:
    return reals.is_exact_number(x)


def _ball(x: Any) -> Any:
    """An Arb ball of the exact number ``x`` with about ``PRECISION_BITS`` correct bits (inside
    ``_arb_context``): an exact real is enclosed at higher working precisions when needed
    (``exp (5e399)`` has no finite enclosure at 128 bits)."""
    if isinstance(x, reals.Real):
        for prec in (PRECISION_BITS,) + reals.LADDER_HIGH:
            ball = x.ball(prec)
            if ball.is_finite() and ball.rel_accuracy_bits() >= PRECISION_BITS // 2:
                break
        return ball
    return reals.ball_of(x, PRECISION_BITS)


def _distribution_law(pmf: Mapping[Value, Any]) -> Law:
    """A law from the evaluator's probabilities: exact ones (rationals, exact reals) are kept
    and their logarithms enclosed in Arb; anything else (the float laws of ``hellingerMech``)
    is a FLOAT law."""
    kept = {v: p for v, p in pmf.items() if p != 0}
    probs = {v: float(p) for v, p in kept.items()}
    if all(_is_exact(p) for p in kept.values()):
        with arb_context():
            logs = {v: _ball(p).log() for v, p in kept.items()}
        return Law(probs, kept, logs, EXACT)
    return Law(probs, None, None, FLOAT)


def output_law(value: Value, span: Optional[ast.Span] = None,
               max_paths: int = compared.MAX_PATHS) -> Tuple[Any, Callable[[], Any]]:
    """``(key, build)`` for the entry's result: ``build()`` gives the law of a release of
    ``lapMech`` / ``gaussMech`` (``released.Noise``: the exact law of the grid values the
    sampler releases), an M-value's exact finite distribution, the law of a program whose noise
    is only compared or released (``verifier.semantics.compared``: an ``ENCLOSED`` ``Law``, or a
    ``ProductLaw`` when it releases noise), or the point mass at a plain value. ``key`` is
    hashable and equal for equal laws, so ``build`` runs once per distinct law. Other
    continuous laws are R003; more than ``max_paths`` paths of compared noise R009."""
    if isinstance(value, monad.MValue):
        noise = noise_of(value)
        if noise is not None:
            return _noise_key(noise), lambda: noise
        try:
            d = monad.enumerate_finite(value, span)
        except PrivInferError as exc:
            if exc.first.code != "R003":
                raise
            law = compared.compared_law(value, span, fallback=exc, max_paths=max_paths)
            return _compared_output(law)
        if d.is_finite() and any(holds_posterior(v) for v in d.pmf()):
            raise _incomparable(span)
        return ("law", _structural(d)), lambda: _distribution_law(d.pmf())
    if holds_posterior(value):
        raise _incomparable(span)
    value = canonical(value)
    try:
        hash(value)
    except TypeError:
        raise error("R006", f"the audit needs an output that can be compared, got {format_value(value)}",
                    span) from None
    return ("value", value), lambda: _distribution_law({value: Fraction(1)})


def _incomparable(span: Optional[ast.Span]) -> PrivInferError:
    """Posteriors without a closed form are equal only when made of the same closures: a law
    over them would call two equal posteriors different (docs/reals.md)."""
    return error("R003", "the output holds a posterior without a closed form, which the laws "
                 "of two runs cannot compare", span)


def _noise_key(noise: released.Noise) -> Any:
    return ("noise", noise.family, _structural(noise.center), _structural(noise.scale))


def _compared_output(law: "compared.ComparedLaw") -> Tuple[Any, Callable[[], Any]]:
    """``output_law``'s pair for a law of compared noise: one release alone is a
    ``released.Noise``; releases beside a finite part a ``ProductLaw``; a released value that
    is also compared a ``CoarseLaw``; else an ``ENCLOSED`` ``Law``."""
    outcomes = law.outcomes
    if outcomes is None:
        return ("coarse", _Same(law)), lambda: CoarseLaw(law)
    if len(outcomes) == 1:
        (finite, cell), = outcomes.items()
        if isinstance(finite, compared.Slot) and cell.p == 1 and cell.lower == 1:
            return _noise_key(cell.releases[0]), lambda: cell.releases[0]
    key = ("compared", frozenset((o, _structural(c.p), _structural(c.lower), _structural(c.upper),
                                  tuple(_noise_key(n) for n in c.releases)) for o, c in outcomes.items()))
    if law.releases:
        return key, lambda: ProductLaw(outcomes, law)
    return key, lambda: _enclosed_law(outcomes, law)


def _enclosed_law(outcomes: Mapping[Value, "compared.Outcome"], source: "compared.ComparedLaw") -> Law:
    """The ``Law`` of a finite output of compared noise (``ENCLOSED``: see ``Law``)."""
    exact = {o: c.p for o, c in outcomes.items()}
    bounds = {o: (c.lower, c.upper) for o, c in outcomes.items()}
    with arb_context():
        logs = {o: log_between(lo, up) for o, (lo, up) in bounds.items()}
    return Law({o: float(p) for o, p in exact.items()}, exact, logs, ENCLOSED, bounds, source)


def log_between(lower: Any, upper: Any) -> Any:
    """An Arb ball containing ``[ln lower, ln upper]`` (``0 < lower <= upper``)."""
    low, high = _ball(lower).log(), _ball(upper).log()
    return low if lower is upper else low.union(high)


def noise_of(m: Value) -> Optional[released.Noise]:
    """The release of ``lapMech`` / ``gaussMech`` that ``m`` is, possibly after binding point
    masses or followed by ``return`` of the draw; None for another computation (a release
    post-processed otherwise is left to ``compared``)."""
    if isinstance(m, monad.Laplace):
        return released.Noise("laplace", m.center, m.scale)
    if isinstance(m, monad.Gaussian):
        return released.Noise("gauss", m.center, m.sigma)
    if isinstance(m, monad.Bind):
        if isinstance(m.m, monad.Return):
            return noise_of(m.k(m.m.value))
        first = noise_of(m.m)
        if first is not None:
            theta = monad.SymParam(_Described(f"the {first.family} noise"))
            try:
                rest = m.k(theta)
            except SymbolicEscape:
                rest = None
            if isinstance(rest, monad.Return) and rest.value is theta:
                return first
    return None


class _Described:
    """Stands in for the distribution a ``SymParam`` names (only its ``format`` is used)."""

    def __init__(self, text: str):
        self.text = text

    def format(self) -> str:
        return self.text


class _Same:
    """An exact real inside a law's key, compared by identity: two laws are merged only when
    they are the same expressions (hash-consed, so equal expressions are one object), never by
    deciding that two different expressions are equal numbers (which may need exact
    simplification, or be undecidable for enclosure-only numbers). Holding the object keeps
    its identity valid."""

    __slots__ = ("obj",)

    def __init__(self, obj: Any):
        self.obj = obj

    def __hash__(self) -> int:
        return id(self.obj)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Same) and other.obj is self.obj


def _structural(v: Any) -> Any:
    """A hashable key of a value or law in which exact reals compare by identity."""
    if isinstance(v, reals.Real):
        return _Same(v)
    if isinstance(v, tuple):
        return tuple(_structural(x) for x in v)
    if isinstance(v, Distribution):
        return (v.family, _structural(v.params()))
    return v


def to_float(x: Any) -> float:
    """``x`` as a float, ``inf`` / ``-inf`` beyond the float range (``float`` of a huge
    rational raises ``OverflowError``)."""
    try:
        return float(x)
    except OverflowError:
        return math.inf if x > 0 else -math.inf


class PairStat:
    """The directed comparison of the output laws of run 1 (``a``) and run 2 (``b``) of a pair:
    ``loss = max_o ln (P_a(o) / P_b(o))`` (``inf`` when run 1 can output what run 2 cannot),
    with its enclosure and the output where it is reached; ``exceeds``, ``hockey_exceeds``
    and ``hockey`` compare with a claim. Two finite laws: ``_FinitePairStat``; a release against a
    finite law: ``_MixedPairStat``; two releases of
    ``lapMech`` / ``gaussMech``: ``_NoisePairStat``."""

    loss: float
    lower: Optional[float]
    upper: Optional[float]
    ball: Optional[Any]
    output: Value
    p_a: float
    p_b: float
    precision: str
    #: the loss is a lower bound only (a coarsened comparison: ``CoarseLaw``)
    lower_only: bool = False

    def exceeds(self, eps: Any) -> bool:
        """Whether ``P_a(o) > e^eps P_b(o)`` for some output ``o``, decided exactly."""
        raise NotImplementedError

    def hockey_exceeds(self, eps: Any, delta: Any) -> bool:
        """Whether ``sum_o max(0, P_a(o) - e^eps P_b(o)) > delta``, decided exactly."""
        raise NotImplementedError

    def hockey(self, eps: float) -> float:
        """The hockey-stick sum at ``eps``, in float64 (the ``delta(eps)`` curve)."""
        raise NotImplementedError

    def tight(self, eps: Any) -> bool:
        """Whether some output has ``P_a(o) = e^eps P_b(o)`` exactly (the loss equals ``eps``)."""
        raise NotImplementedError

    def _set_loss(self, ball: Any, output: Value, p_a: float, p_b: float) -> None:
        self.ball, self.output, self.p_a, self.p_b = ball, output, p_a, p_b
        self.loss = to_float(ball.mid()) if ball is not None else math.inf
        if ball is None:
            self.lower = self.upper = math.inf
        else:
            self.lower = math.nextafter(to_float(ball.lower().mid()), -math.inf)
            self.upper = math.nextafter(to_float(ball.upper().mid()), math.inf)


class _FinitePairStat(PairStat):
    """Two finite laws (see ``PairStat``)."""

    def __init__(self, law_a: Law, law_b: Law):
        self.law_a, self.law_b = law_a, law_b
        self.keys = list(law_a.probs) + [v for v in law_b.probs if v not in law_a.probs]
        self.a = np.array([law_a.probs.get(v, 0.0) for v in self.keys])
        self.b = np.array([law_b.probs.get(v, 0.0) for v in self.keys])
        self.precision = max(law_a.precision, law_b.precision, key=RANK.__getitem__)
        only_a = [v for v in law_a.probs if v not in law_b.probs]
        if only_a:          # an output possible in run 1 only: infinite loss (exactly)
            o = only_a[0]
            self._set_loss(None, o, law_a.probs[o], 0.0)
        elif law_a.logs is not None and law_b.logs is not None:
            with arb_context():
                best, ball = None, None
                for v in law_a.probs:
                    d = law_a.logs[v] - law_b.logs[v]
                    if best is None or float(d.mid()) > best[0]:
                        best = (float(d.mid()), v)
                    ball = d if ball is None else ball.max(d)
            o = best[1]
            self._set_loss(ball, o, law_a.probs[o], law_b.probs[o])
        else:
            diffs = np.log(self.a) - np.log(self.b)
            i = int(np.argmax(diffs))
            self.ball, self.output = None, self.keys[i]
            self.loss, self.lower, self.upper = float(diffs[i]), None, None
            self.p_a, self.p_b = float(self.a[i]), float(self.b[i])

    def exceeds(self, eps: Any) -> bool:
        if self.ball is None and math.isinf(self.loss):
            return True
        if self.precision == FLOAT:
            return self.loss - to_float(eps) > TOLERANCE
        with arb_context():
            e = _ball(eps)
            if self.ball.is_finite() and e.is_finite():
                if self.ball > e:
                    return True
                if self.ball <= e:
                    return False
        factor = reals.exp(eps)
        if self.precision == EXACT:
            exact_a, exact_b = self.law_a.exact, self.law_b.exact
            return any(exact_a[o] > factor * exact_b[o] for o in exact_a)
        return any(self.law_a.bounds_of(o)[0] > factor * self.law_b.bounds_of(o)[1]
                   for o in self.law_a.probs)

    def hockey_exceeds(self, eps: Any, delta: Any) -> bool:
        if self.precision == FLOAT:
            return self.hockey(to_float(eps)) - to_float(delta) > TOLERANCE
        factor = reals.exp(eps)
        terms = [reals.maximum(0, reals.sub(self.law_a.bounds_of(o)[0],
                                            reals.mul(factor, self.law_b.bounds_of(o)[1])))
                 for o in self.law_a.probs]
        return sum(terms, Fraction(0)) > delta

    def hockey(self, eps: float) -> float:
        return _directed_hockey(self.a, self.b, eps)

    def tight(self, eps: Any) -> bool:
        """Exact laws only (an enclosed law is tight, at most, for continuous noise)."""
        if self.precision != EXACT or math.isinf(self.loss):
            return False
        factor = reals.exp(eps)
        exact_a, exact_b = self.law_a.exact, self.law_b.exact
        return any(exact_a[o] == factor * exact_b[o] for o in exact_a)


class _NoisePairStat(PairStat):
    """Two releases of ``lapMech`` or ``gaussMech`` of one scale: the exact laws of the grid
    values the samplers release (``verifier.semantics.released``)."""

    def __init__(self, a: "released.Noise", b: "released.Noise"):
        self.na, self.nb = a, b
        self.precision = EXACT
        cells = released.candidate_cells(a, b)
        if cells is None:        # Gaussian laws with different centres: unbounded ratios
            self.cells = None
            self._set_loss(None, "a release far in the tail", 0.0, 0.0)
            return
        self.cells = {k: (a.cell(k), b.cell(k)) for k in cells}
        if reals.sign(reals.sub(a.center, b.center)) == 0:
            k, (pa, pb) = next(iter(self.cells.items()))
            self._set_loss(_zero_ball(), k * a.grid, to_float(pa), to_float(pb))
            return
        for prec in (PRECISION_BITS,) + reals.LADDER_HIGH:   # log-ratios of cells that may agree
            with reals._Workprec(prec):                       # to many digits (centres 1e-30 apart)
                logs = {k: reals.ball_of(pa, prec).log() - reals.ball_of(pb, prec).log()
                        for k, (pa, pb) in self.cells.items()}
            if all(d.is_finite() and d.rel_accuracy_bits() >= 40 for d in logs.values()):
                break
        k = max(logs, key=lambda c: float(logs[c].mid()))
        ball = logs[k]
        for d in logs.values():
            ball = ball.max(d)
        pa, pb = self.cells[k]
        self._set_loss(ball, k * a.grid, to_float(pa), to_float(pb))

    def exceeds(self, eps: Any) -> bool:
        if self.cells is None:
            return True
        factor = reals.exp(eps)
        return any(pa > factor * pb for pa, pb in self.cells.values())

    def hockey_exceeds(self, eps: Any, delta: Any) -> bool:
        return released.hockey(self.na, self.nb, eps) > delta

    def hockey(self, eps: float) -> float:
        return to_float(released.hockey(self.na, self.nb, Fraction(eps)))

    def tight(self, eps: Any) -> bool:
        if self.cells is None:
            return False
        factor = reals.exp(eps)
        return any(pa == factor * pb for pa, pb in self.cells.values())


class _LowerBoundedHockey(PairStat):
    """A comparison whose hockey-stick sum is known by a lower bound only
    (``_hockey_lower``): it exceeds a delta when the bound does, and is never tight."""

    def _hockey_lower(self, eps: Any) -> Any:
        """A lower bound of ``sum_o max(0, P_a(o) - e^eps P_b(o))``, exact or a ball."""
        raise NotImplementedError

    def hockey_exceeds(self, eps: Any, delta: Any) -> bool:
        return self._hockey_lower(eps) > delta

    def hockey(self, eps: float) -> float:
        return to_float(self._hockey_lower(Fraction(eps)))

    def tight(self, eps: Any) -> bool:
        return False


class _MixedPairStat(_LowerBoundedHockey):
    """A release of ``lapMech`` / ``gaussMech`` (``released.Noise``: every point of its grid has
    a positive probability) against a finite law with exact or enclosed probabilities, either
    way round. Run 1 the release: an output on no point of run 2's finite support has an
    infinite loss (a cell from the centre's on holds one). Run 1 the finite law: an output off
    the release's grid has an infinite loss, one at ``k * grid`` the loss ``ln P_a(o) /
    P_b(k)`` (the release's exact cell)."""

    def __init__(self, a: Any, b: Any):
        self.law_a, self.law_b = a, b
        finite = b if isinstance(a, released.Noise) else a
        self.precision = finite.precision
        self.cells: Optional[Dict[Value, Any]] = None
        if isinstance(a, released.Noise):
            k = a.index_of(a.center)
            while k * a.grid in b.probs:     # the support of b is finite
                k += 1
            self._set_loss(None, k * a.grid, to_float(a.cell(k)), 0.0)
            return
        cells: Dict[Value, Any] = {}
        for o in a.probs:
            k = _grid_index(o, b.grid)
            if k is None:        # run 2 releases only points of its grid
                self._set_loss(None, o, a.probs[o], 0.0)
                return
            cells[o] = b.cell(k)
        self.cells = cells
        with arb_context():
            logs = {o: a.logs[o] - _ball(p).log() for o, p in cells.items()}
            o = max(logs, key=lambda x: float(logs[x].mid()))
            ball = logs[o]
            for d in logs.values():
                ball = ball.max(d)
        self._set_loss(ball, o, a.probs[o], to_float(cells[o]))

    def exceeds(self, eps: Any) -> bool:
        if self.cells is None:
            return True
        factor = reals.exp(eps)
        return any(self.law_a.bounds_of(o)[0] > reals.mul(factor, p) for o, p in self.cells.items())

    def _hockey_lower(self, eps: Any) -> Any:
        """A lower bound of ``sum_o max(0, P_a(o) - e^eps P_b(o))`` (exact for an exact finite
        run 1): run 1 the release, its mass off run 2's support."""
        a, b = self.law_a, self.law_b
        if isinstance(a, released.Noise):
            on = [k for k in {_grid_index(o, a.grid) for o in b.probs} if k is not None]
            total: Any = Fraction(0)
            for k in on:
                total = reals.add(total, a.cell(k))
            return reals.sub(Fraction(1), total)
        factor = reals.exp(eps)
        total = Fraction(0)
        for o in a.probs:
            k = _grid_index(o, b.grid)
            p = Fraction(0) if k is None else b.cell(k)
            total = reals.add(total, reals.maximum(0, reals.sub(a.bounds_of(o)[0],
                                                                reals.mul(factor, p))))
        return total


def _grid_index(o: Value, grid: Fraction) -> Optional[int]:
    """``k`` when the output ``o`` is the number ``k * grid``, else None."""
    if isinstance(o, bool) or not isinstance(o, (int, Fraction)):
        return None
    k = Fraction(o) / grid
    return int(k) if k.denominator == 1 else None


def _zero_ball() -> Any:
    from flint import arb
    return arb(0)


class ProductLaw:
    """The law of an output that releases noisy values beside a finite part
    (``compared.ComparedLaw`` with ``Slot`` placeholders): finite part -> its
    ``compared.Outcome`` (the part's probability, enclosed for the sampler, and the exact grid
    law of each release)."""

    precision = ENCLOSED

    def __init__(self, outcomes: Mapping[Value, "compared.Outcome"], source: "compared.ComparedLaw"):
        self.outcomes, self.source = dict(outcomes), source
        self.probs = {o: float(c.p) for o, c in self.outcomes.items()}

    @staticmethod
    def of_noise(noise: released.Noise) -> "ProductLaw":
        """One release alone, as a product law."""
        source = compared.single_release(noise.family, noise.center, noise.scale)
        return ProductLaw(source.outcomes, source)


class CoarseLaw:
    """The law of an output that releases a noisy value the program also compared
    (``compared.ComparedLaw`` without outcomes): compared with another law only after binning
    the released values at cuts both runs share, which gives a lower bound of the privacy
    loss (``pair_stat``)."""

    precision = ENCLOSED

    def __init__(self, source: "compared.ComparedLaw"):
        self.source = source
        self.probs: Dict[Value, float] = {}


def _source(law: Any) -> Optional["compared.ComparedLaw"]:
    """The paths behind a law of compared noise (a release alone is one path), else None."""
    if isinstance(law, released.Noise):
        return compared.single_release(law.family, law.center, law.scale)
    return getattr(law, "source", None)


def breakpoints(laws: Any) -> List[Fraction]:
    """The cuts at which ``pair_stat`` bins released values when comparing coarse laws:
    the breakpoints of every law given that has paths (shared by all the pairs of an audit,
    so that each law is binned once)."""
    points = set()
    for law in laws:
        source = _source(law)
        if source is not None:
            points.update(source.breakpoints())
    return sorted(points)


_BINNED: Dict[Tuple[int, Tuple[Fraction, ...]], Tuple[Any, Law]] = {}


def _binned_law(source: "compared.ComparedLaw", cuts: Tuple[Fraction, ...]) -> Law:
    """``source`` binned at ``cuts`` as an ``ENCLOSED`` ``Law`` (cached while ``source`` lives)."""
    key = (id(source), cuts)
    found = _BINNED.get(key)
    if found is None or found[0] is not source:
        if len(_BINNED) > 256:
            _BINNED.clear()
        found = _BINNED[key] = (source, _enclosed_law(compared.coarsened(source, cuts), source))
    return found[1]


class _ProductPairStat(_LowerBoundedHockey):
    """Two product laws: the output ``(s, y_1, ..., y_k)`` has probability ``P(s) prod_i
    p_i(y_i)`` (the releases are independent of the finite part), so ``ln P_a / P_b`` is
    ``ln P_a(s) / P_b(s)`` plus the largest log-ratio of each release (``_NoisePairStat``: exact
    on the grid), maximised over ``s``. Only the DP loss is exact: the hockey-stick sum is
    bounded below by that of the finite parts alone."""

    def __init__(self, a: ProductLaw, b: ProductLaw):
        self.law_a, self.law_b = a, b
        self.precision = ENCLOSED
        best: Optional[Tuple[float, Value]] = None
        ball = None
        for s, cell in a.outcomes.items():
            other = b.outcomes.get(s)
            if other is None:       # a finite part run 2 never outputs: infinite loss
                self._set_loss(None, s, float(cell.p), 0.0)
                return
            if len(cell.releases) != len(other.releases) or not all(
                    released.comparable(x, y) for x, y in zip(cell.releases, other.releases)):
                raise _Incomparable()
            with arb_context():
                d = log_between(cell.lower, cell.upper) - log_between(other.lower, other.upper)
            for x, y in zip(cell.releases, other.releases):
                stat = _NoisePairStat(x, y)
                if stat.ball is None:
                    self._set_loss(None, s, float(cell.p), float(other.p))
                    return
                with arb_context():
                    d = d + stat.ball
            if best is None or float(d.mid()) > best[0]:
                best = (float(d.mid()), s)
            ball = d if ball is None else ball.max(d)
        s = best[1]
        self._set_loss(ball, s, float(a.outcomes[s].p), float(b.outcomes[s].p))

    def exceeds(self, eps: Any) -> bool:
        if self.ball is None:
            return True
        with arb_context():
            return bool(self.ball > _ball(eps))

    def _hockey_lower(self, eps: Any) -> Any:
        """``sum_s max(0, P_a(s) - e^eps P_b(s))`` over the finite parts, at its lower bound: a
        lower bound of the hockey-stick sum of the whole outputs (the releases marginalised)."""
        factor = reals.exp(eps)
        total: Any = Fraction(0)
        for s, cell in self.law_a.outcomes.items():
            other = self.law_b.outcomes.get(s)
            total = reals.add(total, reals.maximum(0, reals.sub(
                cell.lower, 0 if other is None else reals.mul(factor, other.upper))))
        return total


def _coarse_pair_stat(law_a: Any, law_b: Any, cuts: Optional[List[Fraction]]) -> Optional[PairStat]:
    sources = [_source(law_a), _source(law_b)]
    if None in sources:
        return None
    if cuts is None:
        cuts = breakpoints((law_a, law_b))
    a, b = (_binned_law(source, tuple(cuts)) for source in sources)
    stat = _FinitePairStat(a, b)
    stat.lower_only, stat.upper = True, math.inf
    return stat


class _Incomparable(Exception):
    """Two releases of one output have different families or scales."""


def pair_stat(law_a: Any, law_b: Any, cuts: Optional[List[Fraction]] = None,
              mixed: bool = False) -> Optional[PairStat]:
    """The directed comparison of two laws, or None when there is no exact comparison of the
    pair (laws of different kinds, releases of different families or scales). With a
    ``CoarseLaw`` the comparison is of both laws binned at ``cuts`` (default: the breakpoints
    of the two laws), and its loss (``lower_only``) a lower bound of the loss of the outputs.
    ``mixed``: a release against a finite law too (``_MixedPairStat``: exact cells of the
    release, asked for by the while-language's refutations only — the audits compare many
    such pairs, which never show a loss there)."""
    if isinstance(law_a, CoarseLaw) or isinstance(law_b, CoarseLaw):
        return _coarse_pair_stat(law_a, law_b, cuts)
    if isinstance(law_a, Law) and isinstance(law_b, Law):
        return _FinitePairStat(law_a, law_b)
    if isinstance(law_a, released.Noise) and isinstance(law_b, released.Noise):
        return _NoisePairStat(law_a, law_b) if released.comparable(law_a, law_b) else None
    if isinstance(law_a, Law) or isinstance(law_b, Law):
        finite = law_b if isinstance(law_a, released.Noise) else law_a
        if (mixed and any(isinstance(x, released.Noise) for x in (law_a, law_b))
                and finite.precision != FLOAT
                and not any(isinstance(o, (float, reals.Real)) for o in finite.probs)):
            return _MixedPairStat(law_a, law_b)      # outputs compared by exact equality
        return None
    a, b = (ProductLaw.of_noise(x) if isinstance(x, released.Noise) else x for x in (law_a, law_b))
    try:
        return _ProductPairStat(a, b)
    except _Incomparable:
        return None


def _directed_hockey(a: np.ndarray, b: np.ndarray, eps: float) -> float:
    """``sum max(a - e^eps b, 0)`` in float64, for any ``eps >= 0`` (no overflow: beyond the
    float range ``e^eps b`` is infinite where ``b > 0``)."""
    factor = math.exp(eps) if eps < 700 else math.inf
    with np.errstate(invalid="ignore", over="ignore"):
        terms = np.where(b > 0, a - factor * b, a)
    return float(np.maximum(terms, 0.0).sum())


def hockey_stick(a: np.ndarray, b: np.ndarray, eps: float) -> float:
    """``max(sum max(a - e^eps b, 0), sum max(b - e^eps a, 0))``: the smallest delta for which
    the two laws (aligned probability arrays) are (eps, delta)-indistinguishable in both
    directions. Float64."""
    return max(_directed_hockey(a, b, eps), _directed_hockey(b, a, eps))




__all__ = ["Law", "ProductLaw", "CoarseLaw", "breakpoints", "PairStat", "output_law", "noise_of", "pair_stat", "hockey_stick",
           "log_between", "arb_context", "to_float", "TOLERANCE", "PRECISION_BITS", "EXACT", "ENCLOSED",
           "SCORES", "FLOAT", "RANK"]
