"""The exact law of a program whose continuous noise is only compared (issue 23).

``lapMech`` and ``gaussMech`` draw continuous noise, so ``monad.infer`` has no law for a program
that goes on computing with a draw (R003). But the classic noisy algorithms only *compare* their
noisy values — with each other (Report Noisy Max) or with thresholds, noisy or not (the sparse
vector technique) — and their output is finite. Such a program has finitely many *paths*, each a
conjunction of comparisons, and the probability of an output is a sum over its paths of
probabilities of difference constraints on independent noise, which ``piecewise`` integrates
exactly. ``compared_law`` computes that law:

1. **Symbolic execution by re-running.** The M-value is run like ``monad.sample``, with every
   random choice taken from a *script*: a draw of ``lapMech`` / ``gaussMech`` becomes a fresh
   ``Noisy`` value ``Y_i + offset`` (the program may add constants to it); a finite draw
   (``ran`` of a finite law, ``expMech``, ``observe`` of a finite model) takes the script's next
   choice and multiplies the path's weight by its probability; a comparison of noisy values is
   decided by the script. A comparison that the path's constraints already imply (a shortest
   path in the graph of difference constraints, strictness included) is answered without
   branching; one that is not, and that the script does not decide, stops the run (``_Fork``)
   and the run is repeated with each outcome. Continuations are pure, so re-running is sound.
2. **Each finished run** is a path: its weight, its noise variables (family, centre, scale),
   its constraints ``Y_a - Y_b < w`` (node 0 is the constant 0) and its output.
3. **The law**: ``P(o) = sum over the paths to o of weight * P[constraints]``.

What runs is a sampler that rounds each draw to a grid (docs/noise.md): a released value is
``R(Y) = g round(Y / g)`` with ``|R(Y) - Y| <= g / 2``, ``g = noise.grid(scale)``, and the program
compares rounded values. Every path's probability is therefore computed three times: for the
continuous noise (``p``, exact: what the verifier reasons about and what the textbook states), and
with every constraint ``Y_a - Y_b < w`` tightened and loosened by ``h_ab = (g_a + g_b) / 2``
(``lower``, ``upper``). The run follows a path whenever the tightened constraints hold and only if
the loosened ones do (an implied comparison follows from the forked ones in the rounded values
too, because implication tracks strictness), so ``lower <= P_sampler(o) <= upper``, rigorously,
with a relative width of about ``2^-40`` per comparison. A branch that only the rounded values can
take (a noisy value tested for equality: ``x <= y`` and ``y <= x``) is refused.

Outputs may contain noisy values that are *released* (returned), as long as each released value
is compared with nothing, and every path to one output skeleton releases the same values:
the output is then a finite part times independent releases (``Outcome.releases``, each the
exact law of the grid values of ``verifier.semantics.released``). A histogram — several
releases returned together — is such a law.

A released value that is also compared, negated (``q - t``) or a difference of two draws (the
gap ``x - t`` of GapSVT) has no such product form; its law is computed *binned*
(``ComparedLaw.coarsened``: each released value replaced by the bin of ``cuts`` it falls in, a
post-processing, so its privacy loss is a lower bound of the output's). A bin of ``Y + o`` or
``-Y + o`` pins the draw to an interval of whole grid cells (exact in the sampler); a bin of a
difference ``Y_a - Y_b`` adds two difference constraints, rounded like any comparison's.

Refused, with the reason (``NotExact``, R003 for the callers): arithmetic on noisy values other
than adding a constant, negating, and subtracting one from another (``x + y``, ``2 * x``; a
difference ``NoisyDifference`` may be moved by constants, compared with a constant — ``x - y > c``
is ``y + c < x`` — and released), a noisy value compared with the negation of another (a sum),
a noisy value tested for equality or in a function of the language (``exp x``), noise drawn
around a noisy centre, comparisons of noisy values that form a cycle or join Gaussian noise
beyond the closed forms (``piecewise``), and more than ``MAX_PATHS`` paths (R009). A binned
output keeps the bins of its first ``MAX_BINNED`` released values and forgets the others.
"""
from __future__ import annotations

import itertools
from fractions import Fraction
from typing import Any, Dict, List, Optional, Sequence, Tuple

from obligations.records import record
from verifier.errors import error
from verifier.language.ast import Span
from verifier.semantics import monad, noise, reals
from verifier.semantics.monad import NotExact
from verifier.semantics.piecewise import Expo, NotForest, constraint_probability
from verifier.semantics.posterior import holds_posterior
from verifier.semantics.released import Noise
from verifier.semantics.values import (ConsList, Placeholder, Symbolic, SymbolicEscape, Value, deep_recursion,
                                      format_value)

#: The most paths one law may have (each path re-runs the program).
MAX_PATHS = 4096

Number = Any


# ======================================================================================
# noisy values
# ======================================================================================


class Noisy(Symbolic):
    """``sign * Y_var + offset``: the draw ``var`` (1, 2, ... in the order of the run) of a
    noise mechanism, negated when ``sign`` is -1, plus an exact constant. Comparisons are
    decided by the current exploration; adding a constant or negating gives another
    ``Noisy``; subtracting another gives a ``NoisyDifference``; anything else is refused
    (``SymbolicEscape``)."""

    __slots__ = ("var", "offset", "what", "sign")
    numeric = True

    def __init__(self, var: int, offset: Number, what: str, sign: int = 1):
        self.var, self.offset, self.what, self.sign = var, offset, what, sign

    def describe(self) -> str:
        return self.what if self.sign > 0 else f"minus {self.what}"

    def _shifted(self, c: Any) -> "Noisy":
        if not reals.is_exact_number(c):
            raise SymbolicEscape(f"the program computes with {self.what} and "
                                 f"{'another noisy value' if isinstance(c, Noisy) else 'a non-number'}")
        return Noisy(self.var, reals.add(self.offset, c), self.what, self.sign)

    def __add__(self, other):
        if isinstance(other, Noisy) and other.sign != self.sign:   # Y_a - Y_b, written as a sum
            return NoisyDifference.of(self, -other) if self.sign > 0 else NoisyDifference.of(other, -self)
        return self._shifted(other)

    __radd__ = __add__

    def __sub__(self, other):
        if isinstance(other, Noisy):
            return NoisyDifference.of(self, other)
        return self._shifted(reals.neg(other) if reals.is_exact_number(other) else other)

    def __rsub__(self, other):            # c - (s Y + o) = (-s) Y + (c - o)
        return (-self)._shifted(other)

    def __neg__(self):
        return Noisy(self.var, reals.neg(self.offset), self.what, -self.sign)

    def __mul__(self, other):
        if reals.is_exact_number(other) and reals.sign(reals.sub(other, 1)) == 0:
            return self
        if reals.is_exact_number(other) and reals.sign(reals.add(other, 1)) == 0:
            return -self
        raise SymbolicEscape(f"the program multiplies {self.what}")

    __rmul__ = __mul__

    def __truediv__(self, other):
        if reals.is_exact_number(other) and reals.sign(reals.sub(other, 1)) == 0:
            return self
        if reals.is_exact_number(other) and reals.sign(reals.add(other, 1)) == 0:
            return -self
        raise SymbolicEscape(f"the program divides {self.what}")

    def __lt__(self, other):
        return _compare(self, other, strict=True)

    def __le__(self, other):
        return _compare(self, other, strict=False)

    def __gt__(self, other):
        return _compare(other, self, strict=True)

    def __ge__(self, other):
        return _compare(other, self, strict=False)


class NoisyDifference(Symbolic):
    """``left - right`` of two noisy values (both with sign +1, ``NoisyDifference.of``), which
    the program may move by constants, negate, compare with exact numbers (``th - (q + eta) > 0``
    is the comparison ``q + eta < th``, a difference constraint like any other) and release (the
    gap of GapSVT; its law is computed binned, ``_binned``). Anything else (arithmetic with
    another noisy value) is refused (``SymbolicEscape``)."""

    __slots__ = ("left", "right")
    numeric = True

    def __init__(self, left: Noisy, right: Noisy):
        self.left, self.right = left, right

    @staticmethod
    def of(a: Noisy, b: Noisy) -> Any:
        """``a - b``, with both draws' signs made +1: ``(-Y_a + o) - (-Y_b + p)`` is
        ``(Y_b + o - p) - Y_a``; a draw minus itself is the difference of the offsets. Draws
        of opposite signs (``Y_a + Y_b``) are refused."""
        if a.sign != b.sign:
            raise SymbolicEscape(f"the program adds two noisy values ({a.what})")
        if a.var == b.var:                # the draw cancels: a number
            return reals.sub(a.offset, b.offset)
        if a.sign > 0:
            return NoisyDifference(a, b)
        return NoisyDifference(Noisy(b.var, reals.sub(a.offset, b.offset), b.what),
                               Noisy(a.var, Fraction(0), a.what))

    def describe(self) -> str:
        return f"the difference of two noisy values ({self.left.what})"

    def _constant(self, c: Any) -> Any:
        if not reals.is_exact_number(c) or isinstance(c, bool):
            raise SymbolicEscape(f"the program subtracts two noisy values ({self.left.what})")
        return c

    def __add__(self, other):
        return NoisyDifference(self.left._shifted(self._constant(other)), self.right)

    __radd__ = __add__

    def __sub__(self, other):
        return NoisyDifference(self.left._shifted(reals.neg(self._constant(other))), self.right)

    def __neg__(self):                    # -(L + o - R) = (R - o) - L
        return NoisyDifference(self.right._shifted(reals.neg(self.left.offset)),
                               Noisy(self.left.var, Fraction(0), self.left.what))

    def __rsub__(self, other):
        return (-self) + other

    def __lt__(self, other):      # left - right < c  iff  left < right + c
        return _compare(self.left, self.right._shifted(self._constant(other)), strict=True)

    def __le__(self, other):
        return _compare(self.left, self.right._shifted(self._constant(other)), strict=False)

    def __gt__(self, other):      # left - right > c  iff  right + c < left
        return _compare(self.right._shifted(self._constant(other)), self.left, strict=True)

    def __ge__(self, other):
        return _compare(self.right._shifted(self._constant(other)), self.left, strict=False)


def is_noisy(v: Any) -> bool:
    return isinstance(v, Noisy)


def _term(v: Any) -> Tuple[int, int, Number]:
    """``(node, sign, offset)`` of an operand of a comparison: node 0 for a constant."""
    if isinstance(v, Noisy):
        return v.var, v.sign, v.offset
    if isinstance(v, NoisyDifference):
        raise SymbolicEscape("the difference of two noisy values is compared with a noisy value")
    if reals.is_exact_number(v):
        return 0, 1, v
    raise SymbolicEscape("a noisy value is compared with something that is not an exact number")


def _compare(left: Any, right: Any, strict: bool) -> bool:
    """``left < right`` (``strict``) or ``left <= right``, decided by the current path. A
    negated draw is moved to the other side (``-Y_a + o < c`` is ``o - c < Y_a``); a negated
    draw compared with a draw is a sum of draws, not a difference constraint: refused."""
    path = _Path.current
    if path is None:
        raise SymbolicEscape("a noisy value is compared outside the computation of its law")
    (a, sa, oa), (b, sb, ob) = _term(left), _term(right)
    if sa < 0 and sb < 0:            # -Y_a + oa < -Y_b + ob  iff  Y_b - ob < Y_a - oa
        (a, oa), (b, ob) = (b, reals.neg(ob)), (a, reals.neg(oa))
    elif sa < 0 and b == 0:          # -Y_a + oa < c  iff  oa - c < Y_a
        (a, oa), (b, ob) = (0, reals.sub(oa, ob)), (a, Fraction(0))
    elif sb < 0 and a == 0:          # c < -Y_b + ob  iff  Y_b < ob - c
        (a, oa), (b, ob) = (b, Fraction(0)), (0, reals.sub(ob, oa))
    elif sa < 0 or sb < 0:
        raise SymbolicEscape("the program compares a noisy value with the negation of another "
                             "(a sum of noisy values)")
    return path.decide(a, b, reals.sub(ob, oa), strict)


# ======================================================================================
# one run: a path
# ======================================================================================


class _Fork(BaseException):
    """The run met a choice its script does not make: ``key`` a comparison (two outcomes) or
    ``None`` and ``count`` outcomes of a finite draw. A ``BaseException``, so that no handler of
    the evaluator on the way mistakes it for an error of the program."""

    def __init__(self, key: Optional[tuple], count: int = 2):
        super().__init__("fork")
        self.key, self.count = key, count


@record
class Script:
    """The decisions of one run: comparisons by their canonical key, finite draws in order."""

    decisions: Tuple[Tuple[tuple, bool], ...] = ()
    choices: Tuple[int, ...] = ()


#: A bound ``Y_a - Y_b < w`` (strict) or ``<= w``: ``(w, strict)``.
Bound = Tuple[Number, bool]


def _below(x: Bound, y: Bound) -> bool:
    """Whether the bound ``x`` is tighter than ``y``."""
    s = reals.sign(reals.sub(x[0], y[0]))
    return s < 0 or (s == 0 and x[1] and not y[1])


class _Path:
    """The state of one run (see the module docstring)."""

    current: Optional["_Path"] = None

    def __init__(self, script: Script):
        self.decisions = dict(script.decisions)
        self.choices, self.next_choice = script.choices, 0
        self.variables: List[Tuple[str, Number, Number, str]] = []
        self.constraints: List[Tuple[int, int, Number, bool]] = []
        self.bounds: Dict[Tuple[int, int], Bound] = {}
        self.weight: Number = Fraction(1)

    # ---- draws ----

    def draw(self, family: str, center: Value, scale: Value, span: Optional[Span]) -> Noisy:
        for what, x in (("centre", center), ("scale", scale)):
            if not reals.is_exact_number(x):
                raise SymbolicEscape(f"the {what} of the noise is {_kind(x)}")
        self.variables.append((family, center, scale, _where(family, span)))
        return Noisy(len(self.variables), Fraction(0), f"the noisy value of {_where(family, span)}")

    def choose(self, pmf: Dict[Value, Number]) -> Value:
        items = [(v, p) for v, p in pmf.items() if p != 0]
        if len(items) == 1:
            return items[0][0]
        if self.next_choice >= len(self.choices):
            raise _Fork(None, len(items))
        value, p = items[self.choices[self.next_choice]]
        self.next_choice += 1
        self.weight = reals.mul(self.weight, p)
        return value

    # ---- comparisons ----

    def bound(self, a: int, b: int) -> Optional[Bound]:
        if a == b:
            return (Fraction(0), False)
        return self.bounds.get((a, b))

    def decide(self, a: int, b: int, d: Number, strict: bool) -> bool:
        """Whether ``Y_a - Y_b < d`` (``strict``) or ``<= d`` on this path: implied by the
        path's bounds, decided by the script, or a fork."""
        if a == b:
            s = reals.sign(d)
            return s > 0 or (s == 0 and not strict)
        if a > b:     # canonical: a < b; the statement is the negation of Y_b - Y_a <(=) -d
            return not self.decide(b, a, reals.neg(d), not strict)
        known, against = self.bound(a, b), self.bound(b, a)   # Y_a - Y_b <(=) w ; Y_b - Y_a <(=) w'
        if known is not None:
            s = reals.sign(reals.sub(known[0], d))
            if s < 0 or (s == 0 and (known[1] or not strict)):
                return True
        if against is not None:          # Y_a - Y_b >(=) -w'
            s = reals.sign(reals.add(against[0], d))
            if s < 0 or (s == 0 and (strict or against[1])):
                return False
        if (known is not None and reals.sign(reals.sub(known[0], d)) == 0) or \
                (against is not None and reals.sign(reals.add(against[0], d)) == 0):
            raise SymbolicEscape("the program tests noisy values for equality (a comparison and its "
                                 "converse both hold only where the values are equal, which the "
                                 "continuous noise never is but the rounded sampler can be)")
        outcome = self._scripted((a, b, d, strict))
        if outcome:
            self._add(a, b, d, strict)
        else:
            self._add(b, a, reals.neg(d), not strict)
        return outcome

    def _scripted(self, key: tuple) -> bool:
        for k, outcome in self.decisions.items():
            if k[:2] == key[:2] and k[3] == key[3] and reals.sign(reals.sub(k[2], key[2])) == 0:
                return outcome
        raise _Fork(key)

    def _add(self, a: int, b: int, w: Number, strict: bool) -> None:
        """Record ``Y_a - Y_b < w`` (``<=`` unless strict) and close the bounds under it."""
        self.constraints.append((a, b, w, strict))
        nodes = range(len(self.variables) + 1)
        new: Dict[Tuple[int, int], Bound] = {}
        for x in nodes:
            to_a = self.bound(x, a)
            if to_a is None:
                continue
            for y in nodes:
                from_b = self.bound(b, y)
                if from_b is None or x == y:
                    continue
                through = (reals.add(reals.add(to_a[0], w), from_b[0]), to_a[1] or strict or from_b[1])
                old = new.get((x, y), self.bound(x, y))
                if old is None or _below(through, old):
                    new[(x, y)] = through
        self.bounds.update(new)


def certain_path() -> bool:
    """Whether what runs now runs with probability 1: outside an exploration, or on a path that
    has compared no noisy value and made no finite draw (an error raised there is raised on
    every run; ``verifier.aprhl.refute``)."""
    path = _Path.current
    return path is None or (not path.constraints and path.weight == 1)


def _where(family: str, span: Optional[Span]) -> str:
    name = "lapMech" if family == "laplace" else "gaussMech"
    return f"{name} at line {span.line}" if span is not None else name


def _kind(x: Any) -> str:
    if isinstance(x, Noisy):
        return x.what
    return "not an exact number"


def _run(m: monad.MValue, path: _Path) -> Value:
    """One run of ``m`` with every random choice from ``path`` (as ``monad.sample``)."""
    pending: List[Any] = []
    while True:
        if isinstance(m, monad.Bind):
            pending.append(m.k)
            m = m.m
            continue
        if isinstance(m, monad.Return):
            value = m.value
        elif isinstance(m, monad.Laplace):
            value = path.draw("laplace", m.center, m.scale, m.span)
        elif isinstance(m, monad.Gaussian):
            value = path.draw("gauss", m.center, m.sigma, m.span)
        elif isinstance(m, monad.Ran):
            if isinstance(m.dist, Symbolic) or not m.dist.is_finite():
                raise NotExact(f"the program draws from {_format(m.dist)}, a continuous distribution")
            value = path.choose(m.dist.pmf())
        elif isinstance(m, monad.Observe):
            d = monad.infer(m, m.span)
            if not d.is_finite():
                raise NotExact(f"the program draws from the posterior {d.format()}, a continuous distribution")
            value = path.choose(d.pmf())
        elif isinstance(m, monad.Mechanism):
            law = m.law()
            if law is None:
                raise NotExact(f"{m.describe()} has no finite law")
            value = path.choose(law)
        else:
            raise TypeError(f"not an M-value: {m!r}")
        if not pending:
            if holds_posterior(value):
                raise NotExact("the output holds a posterior without closed form, known equal "
                               "to another only when made of the same closures")
            return value
        m = pending.pop()(value)


def _format(d: Any) -> str:
    return d.describe() if isinstance(d, Symbolic) else d.format()


# ======================================================================================
# the law
# ======================================================================================


@record
class Outcome:
    """One output (its finite part) of a ``ComparedLaw``: the probability ``p`` for continuous
    noise (exact), bounds ``lower <= P <= upper`` of its probability in the sampler that runs
    (the noise rounded to its grid), and the laws of the noisy values it releases, in the
    order of ``Slot`` indices of the output."""

    p: Number
    lower: Number
    upper: Number
    releases: Tuple[Noise, ...] = ()


class Slot(Placeholder):
    """Stands for the ``index``-th released noisy value in an output's finite part."""

    __slots__ = ("index",)

    def __init__(self, index: int):
        self.index = index

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Slot) and other.index == self.index

    def __hash__(self) -> int:
        return hash(("slot", self.index))

    @property
    def printed(self) -> str:
        return f"<release {self.index + 1}>"

    def __repr__(self) -> str:
        return self.printed


class Bin(Placeholder):
    """Stands for a released noisy value that lies in ``[low, high)`` (``None``: unbounded), in
    the output of a coarsened law (``ComparedLaw.coarsened``)."""

    __slots__ = ("low", "high")

    def __init__(self, low: Optional[Fraction], high: Optional[Fraction]):
        self.low, self.high = low, high

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Bin) and (other.low, other.high) == (self.low, self.high)

    def __hash__(self) -> int:
        return hash(("bin", self.low, self.high))

    @property
    def printed(self) -> str:
        low = "-infinity" if self.low is None else format_value(self.low)
        high = "infinity" if self.high is None else format_value(self.high)
        return f"<a value in [{low}, {high})>"

    def __repr__(self) -> str:
        return self.printed


@record
class Leaf:
    """One path: its weight (the probability of its finite draws), its noise variables
    ``(family, centre, scale)`` (variable ``i`` is ``Y_(i+1)``), its constraints
    ``(a, b, w, strict)`` meaning ``Y_a - Y_b < w`` (node 0 the constant 0), the output with
    ``Slot`` for each released noisy value, and those noisy values."""

    weight: Number
    variables: Tuple[Tuple[str, Number, Number], ...]
    constraints: Tuple[Tuple[int, int, Number, bool], ...]
    finite: Value
    slots: Tuple[Any, ...]   # Noisy or NoisyDifference

    @property
    def compared_releases(self) -> bool:
        """Whether the law of a released value is only computed binned: it is also compared,
        released twice, negated or a difference of draws."""
        if any(not isinstance(s, Noisy) or s.sign < 0 for s in self.slots):
            return True
        released = {s.var for s in self.slots}
        return len(released) < len(self.slots) or any(a in released or b in released
                                                      for a, b, _, _ in self.constraints)


@record
class ComparedLaw:
    """The law of a program whose noise is only compared, as its paths (``leaves``) and, when
    no released value is compared, its ``outcomes``: output (finite part, with ``Slot`` for
    released noisy values) -> ``Outcome``. When a released value is compared the law has no
    product form; ``coarsened`` gives the law of the output with every released value replaced
    by the bin of ``cuts`` it falls in (a post-processing of the output, so its privacy loss is
    a lower bound of the output's)."""

    leaves: Tuple[Leaf, ...]
    outcomes: Optional[Dict[Value, Outcome]]
    forks: int

    @property
    def paths(self) -> int:
        return len(self.leaves)

    @property
    def releases(self) -> bool:
        """Whether some output releases a noisy value."""
        return any(leaf.slots for leaf in self.leaves)

    def breakpoints(self) -> List[Fraction]:
        """Where the probability of a released value's bin changes shape: the centres of the
        noise and the constants compared with (rounded down to multiples of 1/8: only their
        being the same in both runs matters)."""
        points = set()
        for leaf in self.leaves:
            xs = [c for _, c, _ in leaf.variables] + [w for a, b, w, _ in leaf.constraints if 0 in (a, b)]
            for slot in leaf.slots:
                xs += _slot_points(leaf, slot)
            for x in xs:
                points.add(Fraction(reals.floor(reals.mul(8, x)), 8))
        return sorted(points)

    def coarsened(self, cuts: Sequence[Fraction]) -> Dict[Value, Outcome]:
        """The outcomes with every released value replaced by its ``Bin`` among ``cuts``."""
        return _outcomes(self.leaves, tuple(cuts))


def single_release(family: str, center: Number, scale: Number) -> ComparedLaw:
    """The law of one release ``center + noise`` as a ``ComparedLaw`` (for comparing it with
    one)."""
    release = Noisy(1, Fraction(0), "the release")
    one = Fraction(1)
    leaf = Leaf(one, ((family, center, scale),), (), Slot(0), (release,))
    return ComparedLaw((leaf,), {Slot(0): Outcome(one, one, one, (Noise(family, center, scale),))}, 0)


def compared_law(m: monad.MValue, span: Optional[Span] = None,
                 fallback: Optional[Exception] = None, max_paths: int = MAX_PATHS) -> ComparedLaw:
    """The law of ``m`` (see the module docstring). Raises ``PrivInferError``: R003 when ``m``
    is outside what is computed here (with the reason; ``fallback`` instead when no run drew
    noise, so that a program without noise keeps the error of ``monad.infer``), R009 beyond
    ``max_paths`` paths, and the program's own run-time errors."""
    drew = [False]
    try:
        with deep_recursion():
            leaves, forks = _explore(m, span, drew, max_paths)
            outcomes = None if any(leaf.compared_releases for leaf in leaves) else _outcomes(leaves, None)
            return ComparedLaw(tuple(leaves), outcomes, forks)
    except (NotExact, SymbolicEscape, NotForest) as exc:
        if fallback is not None and not drew[0]:
            raise fallback from None
        raise _not_exact(exc, span) from None
    except reals.Undecided as exc:
        from verifier.semantics.evaluator import undecided_error
        raise undecided_error(exc, span) from None


def _not_exact(exc: Any, span: Optional[Span]) -> Exception:
    return error("R003", f"cannot compute the law of this program exactly: {exc.reason}", span,
                 hint="the exact law covers programs whose noisy values are only compared (with "
                      "each other, with thresholds) or released: moved by constants, negated, or "
                      "the difference of two")


def coarsened(law: ComparedLaw, cuts: Sequence[Fraction], span: Optional[Span] = None) -> Dict[Value, Outcome]:
    """``law.coarsened(cuts)``, with the errors of ``compared_law``."""
    try:
        return law.coarsened(cuts)
    except (NotExact, SymbolicEscape, NotForest) as exc:
        raise _not_exact(exc, span) from None


def _explore(m: monad.MValue, span: Optional[Span], drew: List[bool],
             max_paths: int = MAX_PATHS) -> Tuple[List[Leaf], int]:
    """Every path of ``m`` (module docstring, steps 1 and 2)."""
    pending = [Script()]
    leaves: List[Leaf] = []
    forks = 0
    while pending:
        script = pending.pop()
        path = _Path(script)
        saved, _Path.current = _Path.current, path
        try:
            value = _run(m, path)
        except _Fork as fork:
            forks += 1
            if fork.key is not None:
                pending.append(Script(script.decisions + ((fork.key, False),), script.choices))
                pending.append(Script(script.decisions + ((fork.key, True),), script.choices))
            else:
                pending.extend(Script(script.decisions, script.choices + (i,))
                               for i in reversed(range(fork.count)))
            if len(pending) + len(leaves) > max_paths:
                raise error("R009", f"the program has more than {max_paths} paths through its noisy "
                                    f"comparisons", span)
            continue
        finally:
            _Path.current = saved
            drew[0] = drew[0] or bool(path.variables)
        finite, slots = _released(value)
        leaves.append(Leaf(path.weight, tuple((f, c, s) for f, c, s, _ in path.variables),
                           tuple(path.constraints), finite, tuple(slots)))
    return leaves, forks


#: The most released values of one output a coarsened law bins together (the others are
#: forgotten: ``_binned``).
MAX_BINNED = 2


def _outcomes(leaves: Sequence[Leaf], cuts: Optional[Tuple[Fraction, ...]]) -> Dict[Value, Outcome]:
    """The law (module docstring, step 3): every path's probability summed per output; with
    ``cuts``, every released value binned (``ComparedLaw.coarsened``)."""
    sums: Dict[Value, List[List[Any]]] = {}
    releases: Dict[Value, Tuple[Noise, ...]] = {}
    for leaf in leaves:
        for finite, pinned, binned in _binned(leaf, cuts):
            profile = () if cuts is not None else tuple(_release_law(leaf, s) for s in leaf.slots)
            if finite in releases and not _same_profile(releases[finite], profile):
                raise NotExact(f"the output {format_value(finite)} releases noise of different laws on "
                               f"different paths (a mixture of continuous laws)")
            releases[finite] = profile
            cell = sums.setdefault(finite, [[], [], []])
            for acc, p in zip(cell, _path_probabilities(binned, pinned)):
                acc.append(_times(leaf.weight, p))
    outcomes: Dict[Value, Outcome] = {}
    for finite, (ps, lows, ups) in sums.items():
        p, lower, upper = _total(ps), _total(lows), _total(ups)
        if reals.sign(p) == 0:
            if reals.sign(upper) > 0:
                raise NotExact("an output has probability 0 for continuous noise but not in the "
                               "rounded sampler (noisy values tested for equality)")
            continue
        if reals.sign(lower) <= 0:
            raise NotExact("an output's probability in the rounded sampler cannot be bounded away from "
                           "0 (a comparison within the sampler's grid)")
        outcomes[finite] = Outcome(p, lower, upper, releases[finite])
    return outcomes


def _binned(leaf: Leaf, cuts: Optional[Tuple[Fraction, ...]]):
    """``(finite part, pinned, leaf)`` for each way the leaf's released values fall in the bins
    of ``cuts`` (one way, unbinned, without cuts). ``pinned`` maps a variable to the interval of
    its draw that puts a released ``Y + o`` or ``-Y + o`` in its bin (exact: the bin's ends are
    moved to the edges of the grid cells, ``noise.grid``); a released difference of draws is in
    its bin by two more constraints of the leaf returned, whose rounding the sampler's bounds
    account for like any comparison's (``_path_probabilities``)."""
    if cuts is None:
        if leaf.compared_releases:
            raise NotExact("the program releases a noisy value that it also compares (or releases "
                           "it twice, or a difference of noisy values): its law is computed only "
                           "with the released values binned")
        yield leaf.finite, {}, leaf
        return
    bins = [Bin(None, cuts[0] if cuts else None)] + [Bin(cuts[i], cuts[i + 1]) for i in range(len(cuts) - 1)]
    if cuts:
        bins.append(Bin(cuts[-1], None))
    # past MAX_BINNED released values, each is forgotten (the one bin of the whole line): still
    # a post-processing of the output, so still a lower bound of its loss
    options = [bins if i < MAX_BINNED else [Bin(None, None)] for i in range(len(leaf.slots))]
    for choice in itertools.product(*options):
        pinned: Dict[int, List[Optional[Number]]] = {}
        extra: List[Tuple[int, int, Number, bool]] = []
        for slot, where in zip(leaf.slots, choice):
            if isinstance(slot, NoisyDifference):   # lo <= (Y_l + o_l) - (Y_r + o_r) < hi
                l, r = slot.left, slot.right
                shift = reals.sub(l.offset, r.offset)
                if where.high is not None:
                    extra.append((l.var, r.var, reals.sub(where.high, shift), True))
                if where.low is not None:
                    extra.append((r.var, l.var, reals.sub(shift, where.low), False))
                continue
            _, _, scale = leaf.variables[slot.var - 1]
            g = noise.grid(scale)
            if slot.sign > 0:
                cell = [None if x is None else _cell_edge(reals.sub(x, slot.offset), g)
                        for x in (where.low, where.high)]
            else:    # lo <= -R(Y) + o < hi  iff  o - hi < R(Y) <= o - lo
                cell = [None if x is None else g * (reals.floor(reals.div(reals.sub(slot.offset, x), g))
                                                    + Fraction(1, 2))
                        for x in (where.high, where.low)]
            # a draw released twice (the threshold of every gap) lies in both cells
            _tighten(pinned.setdefault(slot.var, [None, None]), *cell)
        if extra and _empty_pair(leaf.constraints + tuple(extra)):
            continue   # the bin contradicts a comparison of the same difference: probability 0
        binned = leaf if not extra else Leaf(leaf.weight, leaf.variables, leaf.constraints + tuple(extra),
                                             leaf.finite, leaf.slots)
        yield _replace_slots(leaf.finite, choice), {v: tuple(x) for v, x in pinned.items()}, binned


def _empty_pair(constraints: Sequence[Tuple[int, int, Number, bool]]) -> bool:
    """Whether the constraints on one pair of draws alone leave no value of their difference.
    Every constraint on ``Y_a - Y_b`` is, in the sampler, one on the same rounded difference
    ``R(Y_a) - R(Y_b)``, so such a contradiction holds there too: the probability is exactly 0
    in both (the widened bounds of ``_path_probabilities``, taken one constraint at a time,
    would not see it)."""
    upper: Dict[Tuple[int, int], Bound] = {}
    for a, b, w, strict in constraints:
        if a != 0 and b != 0:
            old = upper.get((a, b))
            if old is None or _below((w, strict), old):
                upper[(a, b)] = (w, strict)
    for (a, b), (w, strict) in upper.items():        # Y_a - Y_b <(=) w  and  Y_b - Y_a <(=) w'
        against = upper.get((b, a))
        if against is not None:
            gap = reals.sign(reals.add(w, against[0]))   # the interval is (-w', w): empty when w <= -w'
            if gap < 0 or (gap == 0 and (strict or against[1])):
                return True
    return False


def _slot_points(leaf: Leaf, slot: Any) -> List[Number]:
    """Where the law of a negated or differenced release changes shape, in the released value's
    units: its centre, and the constants its draws are compared with."""
    if isinstance(slot, NoisyDifference):
        l, r = slot.left, slot.right
        shift = reals.sub(l.offset, r.offset)
        points = [reals.add(reals.sub(leaf.variables[l.var - 1][1], leaf.variables[r.var - 1][1]), shift)]
        for a, b, w, _ in leaf.constraints:     # Y_l - Y_r < w, or Y_r - Y_l < w
            if (a, b) == (l.var, r.var):
                points.append(reals.add(w, shift))
            elif (a, b) == (r.var, l.var):
                points.append(reals.sub(shift, w))
        return points
    if slot.sign > 0:
        return []
    points = [reals.sub(slot.offset, leaf.variables[slot.var - 1][1])]
    for a, b, w, _ in leaf.constraints:          # Y < w, or -Y < w
        if (a, b) == (slot.var, 0):
            points.append(reals.sub(slot.offset, w))
        elif (a, b) == (0, slot.var):
            points.append(reals.add(slot.offset, w))
    return points


def _cell_edge(x: Number, g: Fraction) -> Fraction:
    """The left edge of the first grid cell whose point is at least ``x``: a rounded draw is
    at least ``x`` exactly when the draw is at least this edge."""
    return g * (reals.ceil(reals.div(x, g)) - Fraction(1, 2))


def _replace_slots(v: Value, choice: Sequence[Bin]) -> Value:
    if isinstance(v, Slot):
        return choice[v.index]
    if isinstance(v, tuple):
        return tuple(_replace_slots(x, choice) for x in v)
    if isinstance(v, ConsList):
        return ConsList.from_sequence([_replace_slots(x, choice) for x in v])
    return v


def _released(value: Value) -> Tuple[Value, List[Noisy]]:
    """The output with every noisy value replaced by a ``Slot``, and those noisy values."""
    slots: List[Noisy] = []

    def walk(v: Value) -> Value:
        if isinstance(v, (Noisy, NoisyDifference)):
            slots.append(v)
            return Slot(len(slots) - 1)
        if isinstance(v, tuple):
            return tuple(walk(x) for x in v)
        if isinstance(v, ConsList):
            return ConsList.from_sequence([walk(x) for x in v])
        if isinstance(v, Symbolic):
            raise SymbolicEscape(f"the program returns {v.describe()}")
        return v

    finite = walk(value)
    if not slots:
        from verifier.semantics.values import canonical
        finite = canonical(finite)
    try:
        hash(finite)
    except TypeError:
        raise NotExact(f"the output {format_value(value)} cannot be compared") from None
    return finite, slots


def _release_law(leaf: Leaf, v: Noisy) -> Noise:
    """The law of a returned ``Y + offset``: the sampler releases ``R(Y)``, the draw rounded
    to the grid ``g`` of its scale, and the program adds ``offset`` — the release of a draw
    around ``center + offset`` only when ``g`` divides ``offset``. A fraction of a step moves
    every value off the grid (``R(Y) - c`` for two centres ``c`` not a grid step apart: two
    disjoint supports), which ``Noise`` does not describe: NotExact."""
    family, center, scale = leaf.variables[v.var - 1]
    steps = reals.div(v.offset, noise.grid(scale))
    if not (isinstance(steps, Fraction) and steps.denominator == 1):
        raise NotExact(f"the output releases {v.what} plus {format_value(v.offset)}, which is "
                       "not a whole number of steps of the grid the release is rounded to")
    return Noise(family, reals.add(center, v.offset), scale)


def _same_profile(a: Tuple[Noise, ...], b: Tuple[Noise, ...]) -> bool:
    return len(a) == len(b) and all(
        x.family == y.family and reals.sign(reals.sub(x.center, y.center)) == 0
        and reals.sign(reals.sub(x.scale, y.scale)) == 0 for x, y in zip(a, b))


def _path_probabilities(leaf: Leaf, pinned: Dict[int, Tuple[Optional[Number], Optional[Number]]]
                        ) -> Tuple[Any, Any, Any]:
    """``(p, lower, upper)``: ``P[constraints]`` for continuous noise, and bounds of it in the
    sampler that rounds its draws (module docstring); ``pinned`` adds exact bounds on some draws
    (the bins of released values, already on the grid's cell edges).

    The bounds are ``p -+ kappa`` with ``kappa = sum_k (g_a + g_b) / (2 max(b_a, b_b))`` over the
    constraints ``Y_a - Y_b < w``: the probability that ``Y_a - Y_b`` falls within ``h_ab`` of
    ``w`` is at most ``2 h_ab`` times the largest density of ``Y_a - Y_b``, at most
    ``1 / (2 max(b_a, b_b))`` (a Gaussian's is smaller still), and the tightened and loosened
    constraints differ from the exact ones only there. When ``p`` is not far above ``kappa``
    the tightened and loosened probabilities are computed instead (relative bounds)."""
    variables = list(leaf.variables)
    grids = [Fraction(0)] + [noise.grid(s) for _, _, s in variables]
    scales = [Fraction(0)] + [s for _, _, s in variables]
    p = _constrained(leaf, pinned, grids, 0)
    kappa: Number = Fraction(0)
    for a, b, _, _ in leaf.constraints:
        kappa = reals.add(kappa, reals.div(grids[a] + grids[b], 2 * _larger(scales[a], scales[b])))
    if reals.sign(reals.sub(_number(p), reals.mul(1 << 20, kappa))) > 0:
        return p, _minus(p, kappa), _minus(p, reals.neg(kappa))
    return p, _constrained(leaf, pinned, grids, -1), _constrained(leaf, pinned, grids, 1)


def _number(p: Any) -> Number:
    return p.real() if isinstance(p, Expo) else p


def _minus(p: Any, x: Number) -> Any:
    if isinstance(p, Expo) and reals.is_rational(x):
        return p - Fraction(x)
    return reals.sub(_number(p), x)


def _constrained(leaf: Leaf, pinned, grids: List[Fraction], widen: int, screen: bool = False) -> Any:
    """``P[constraints]``, each ``Y_a - Y_b < w`` moved to ``w + widen h_ab``."""
    bounds: Dict[int, List[Optional[Number]]] = {}
    edges: Dict[Tuple[int, int], List[Optional[Number]]] = {}
    for a, b, w, _ in leaf.constraints:
        if widen:
            w = reals.add(w, widen * (grids[a] + grids[b]) / 2)
        if a == 0:                             # -Y_b < w, i.e. Y_b > -w
            _tighten(bounds.setdefault(b - 1, [None, None]), reals.neg(w), None)
        elif b == 0:                           # Y_a < w
            _tighten(bounds.setdefault(a - 1, [None, None]), None, w)
        elif a < b:                            # Y_a - Y_b < w, as an interval of Y_i - Y_j, i < j
            _tighten(edges.setdefault((a - 1, b - 1), [None, None]), None, w)
        else:
            _tighten(edges.setdefault((b - 1, a - 1), [None, None]), reals.neg(w), None)
    for var, (lo, hi) in pinned.items():
        _tighten(bounds.setdefault(var - 1, [None, None]), lo, hi)
    if any(lo is not None and hi is not None and reals.sign(reals.sub(hi, lo)) <= 0
           for lo, hi in list(bounds.values()) + list(edges.values())):
        return Fraction(0)
    return constraint_probability(list(leaf.variables), {v: tuple(x) for v, x in bounds.items()},
                                  {e: tuple(x) for e, x in edges.items()}, keep=not screen,
                                  screen=screen)


def _tighten(interval: List[Optional[Number]], lo: Optional[Number], hi: Optional[Number]) -> None:
    """Intersect ``interval`` (a ``[low, high]`` list, ``None`` unbounded) with ``(lo, hi)``."""
    if lo is not None:
        interval[0] = lo if interval[0] is None else _larger(interval[0], lo)
    if hi is not None:
        interval[1] = hi if interval[1] is None else _smaller(interval[1], hi)


def _larger(x: Number, y: Number) -> Number:
    return x if reals.sign(reals.sub(x, y)) >= 0 else y


def _smaller(x: Number, y: Number) -> Number:
    return x if reals.sign(reals.sub(x, y)) <= 0 else y


def _times(weight: Number, p: Any) -> Any:
    """``weight * p`` for a path weight and a probability (an ``Expo`` stays one when the
    weight is rational)."""
    if isinstance(p, Expo):
        return p * weight if reals.is_rational(weight) else reals.mul(weight, p.real())
    return reals.mul(weight, p)


def _total(parts: Sequence[Any]) -> Number:
    """The exact sum: exponential polynomials summed as such (canonical), the rest as reals."""
    expo = Expo(())
    rest: Number = Fraction(0)
    for x in parts:
        if isinstance(x, Expo):
            expo = expo + x
        elif reals.is_rational(x):
            expo = expo + Fraction(x)
        else:
            rest = reals.add(rest, x)
    return reals.add(expo.real(), rest)


# ======================================================================================
# estimates for ranking (the witness search of verifier.refutation)
# ======================================================================================


def explore(m: monad.MValue, span: Optional[Span] = None) -> Tuple[Leaf, ...]:
    """The paths of ``m`` (``compared_law``'s step 1 and 2) without their probabilities, with
    ``compared_law``'s errors."""
    try:
        with deep_recursion():
            return tuple(_explore(m, span, [False])[0])
    except (NotExact, SymbolicEscape, NotForest) as exc:
        raise _not_exact(exc, span) from None
    except reals.Undecided as exc:
        from verifier.semantics.evaluator import undecided_error
        raise undecided_error(exc, span) from None


def estimated_law(leaves: Sequence[Leaf], cuts: Optional[Sequence[Fraction]],
                  work: Optional[List[int]] = None) -> Dict[Value, float]:
    """The law of the paths ``leaves`` for continuous noise in floating point (``piecewise``'s
    float coefficients), released values binned at ``cuts`` (needed when a path releases a
    noisy value). An *estimate*, for ranking candidate witnesses: no verdict rests on it (a
    witness is confirmed by ``compared_law``). Raises ``NotExact`` / ``NotForest`` /
    ``ArithmeticError`` / ``OverflowError`` when it cannot be computed. ``work[0]`` counts the
    integrations done (a path times the bins of its released values)."""
    law: Dict[Value, float] = {}
    binned = None if cuts is None else tuple(cuts)
    for leaf in leaves:
        if leaf.slots and binned is None:
            raise NotExact("released values are estimated only binned")
        ways = _binned(leaf, binned) if leaf.slots else [(leaf.finite, {}, leaf)]
        for finite, pinned, with_bins in ways:
            if work is not None:
                work[0] += 1
            p = _constrained(with_bins, pinned, [], 0, screen=True)
            p = float(p) * float(leaf.weight) if reals.is_rational(leaf.weight) else \
                float(p) * float(reals.ball_of(leaf.weight, 64).mid())
            if p > 0:
                law[finite] = law.get(finite, 0.0) + p
    return law


def leaf_breakpoints(leaves: Sequence[Leaf]) -> List[Fraction]:
    """``ComparedLaw.breakpoints`` of the paths ``leaves``."""
    return ComparedLaw(tuple(leaves), None, 0).breakpoints()


__all__ = ["explore", "estimated_law", "leaf_breakpoints", "Noisy", "is_noisy", "compared_law", "coarsened", "single_release", "ComparedLaw", "Leaf", "Outcome",
           "Slot", "Bin", "MAX_PATHS", "MAX_BINNED"]
