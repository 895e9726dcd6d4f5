"""Rigorous evaluation of terms at a point, for confirming counterexamples.

``Evaluator.value(term, env)`` computes the value of a term when its free variables take
the values in ``env`` and its uninterpreted functions the interpretation given. Values are

* ``bool``, ``int`` (sort ``Int``), ``fractions.Fraction`` (exact reals);
* ``flint.arb`` balls for reals that are not exact (``pi``, ``sqrt 2``, ``exp 1``, algebraic
  numbers from a solver's model): arb balls are rigorous enclosures, and every operation
  on them returns a ball that contains the exact result;
* ``Element`` for values of uninterpreted sorts;
* ``None``: *undetermined*. A comparison of overlapping balls, an unspecified value
  (division by zero, ``sqrt`` of a negative number, ``log`` of a non-positive one), a
  quantifier over an infinite sort, or anything depending on them. Booleans follow Kleene's
  three-valued logic (``False /\\ None`` is ``False``).

Floating point is never used: a ``True``/``False`` answer is exact. ``notes`` collects why
values were undetermined, for the messages of ``unknown`` verdicts.
"""
from __future__ import annotations

import itertools
import math
from fractions import Fraction
from typing import Dict, List, Mapping, Optional, Sequence, Tuple, Union

from flint import arb, ctx, fmpq

from obligations.records import record
from obligations.terms import (BOOL, Apply, Const, FuncDecl, Op, OpKind, Quantifier, Sort, Term,
                               Var, pretty)

#: Working precision of the interval arithmetic, in bits.
PRECISION = 256
#: The largest number of points a quantifier over finite sorts is evaluated at.
MAX_QUANTIFIER_POINTS = 4096


@record
class Element:
    """The ``index``-th element of a finite universe of an uninterpreted sort."""

    sort: Sort
    index: int

    def __str__(self) -> str:
        return f"{self.sort.name}!val!{self.index}"


Value = Union[bool, int, Fraction, arb, Element, None]
Number = Union[int, Fraction, arb]


class Interpretation:
    """The meaning of uninterpreted symbols at a point.

    ``apply(func, args)`` gives the value of ``func`` at exact arguments (or ``None``);
    ``universe(sort)`` the finite universe of an uninterpreted sort, if known.
    """

    def apply(self, func: FuncDecl, args: Tuple[Value, ...]) -> Value:
        return None

    def universe(self, sort: Sort) -> Optional[Sequence[Element]]:
        return None


def ball(x: Number) -> arb:
    """An arb ball containing the number ``x`` (exact when ``x`` is dyadic and small)."""
    if isinstance(x, arb):
        return x
    q = Fraction(x)
    return arb(fmpq(q.numerator, q.denominator))


def _exact(*xs: Value) -> bool:
    return all(isinstance(x, (int, Fraction)) and not isinstance(x, bool) for x in xs)


def _decide(le_or_lt: str, a: Number, b: Number) -> Optional[bool]:
    """``a < b`` (``"<"``) or ``a <= b`` (``"<="``), three-valued on balls."""
    if _exact(a, b):
        return a < b if le_or_lt == "<" else a <= b
    x, y = ball(a), ball(b)
    if le_or_lt == "<":
        return True if x < y else False if x >= y else None
    return True if x <= y else False if x > y else None


def _sqrt_exact(q: Fraction) -> Optional[Fraction]:
    n, d = q.numerator, q.denominator
    rn, rd = math.isqrt(n), math.isqrt(d)
    return Fraction(rn, rd) if rn * rn == n and rd * rd == d else None


def equal_values(a: Value, b: Value) -> Optional[bool]:
    """``a = b``, three-valued: numbers exactly or as disjoint balls, lists (tuples) element by
    element, distributions (values with ``family`` and ``params``) of one family by their
    parameters (the constructors are injective); ``None`` when undecided."""
    if isinstance(a, Element) or isinstance(b, Element):
        return a == b if isinstance(a, Element) and isinstance(b, Element) else None
    if isinstance(a, bool) or isinstance(b, bool):
        return a == b
    if isinstance(a, tuple) or isinstance(b, tuple):
        if not (isinstance(a, tuple) and isinstance(b, tuple)):
            return None
        return _all_equal(a, b) if len(a) == len(b) else False
    if hasattr(a, "family") or hasattr(b, "family"):
        if getattr(a, "family", None) != getattr(b, "family", None):
            return None  # two families may describe one distribution
        return _all_equal(a.params, b.params) if len(a.params) == len(b.params) else None
    if a is None or b is None:
        return None
    if _exact(a, b):
        return a == b
    return False if ball(a) != ball(b) else None  # arb: != means the balls are disjoint


def _all_equal(xs: Sequence[Value], ys: Sequence[Value]) -> Optional[bool]:
    answers = [equal_values(x, y) for x, y in zip(xs, ys)]
    return False if False in answers else None if None in answers else True


class Evaluator:
    """Evaluates terms under ``interpretation``; see the module docstring."""

    def __init__(self, interpretation: Optional[Interpretation] = None):
        self.interpretation = interpretation or Interpretation()
        self.notes: List[str] = []

    def _note(self, message: str) -> None:
        if message not in self.notes:
            self.notes.append(message)

    def value(self, term: Term, env: Mapping[Var, Value]) -> Value:
        """The value of ``term`` with free variables from ``env`` (a missing one is ``None``)."""
        with ctx.workprec(PRECISION):
            return self._eval(term, dict(env))

    def _eval(self, t: Term, env: Dict[Var, Value]) -> Value:
        if isinstance(t, Const):
            return t.value
        if isinstance(t, Var):
            if t not in env:
                self._note(f"{t.label} has no value")
            return env.get(t)
        if isinstance(t, Quantifier):
            return self._quantifier(t, env)
        if isinstance(t, Apply):
            return self._apply(t, env)
        return self._op(t, env)  # type: ignore[arg-type]

    def _apply(self, t: Apply, env: Dict[Var, Value]) -> Value:
        """An uninterpreted application, by the interpretation (which decides what it can do
        with inexact arguments: a model's table cannot be looked up at a ball)."""
        args = tuple(self._eval(a, env) for a in t.args)
        if any(a is None for a in args):
            self._note(f"{pretty(t)} is applied to an undetermined argument")
            return None
        value = self.interpretation.apply(t.func, args)
        if value is None and any(isinstance(a, arb) for a in args):
            self._note(f"{pretty(t)} is applied to an inexact argument")
        return value

    def _quantifier(self, t: Quantifier, env: Dict[Var, Value]) -> Value:
        domains = []
        for v in t.vars:
            if v.sort == BOOL:
                domains.append((False, True))
            elif v.sort.is_builtin:
                self._note(f"a quantifier over {v.sort} cannot be evaluated at a point")
                return None
            else:
                universe = self.interpretation.universe(v.sort)
                if universe is None:
                    self._note(f"the universe of {v.sort} is not known")
                    return None
                domains.append(tuple(universe))
        if math.prod(len(d) for d in domains) > MAX_QUANTIFIER_POINTS:
            self._note(f"a quantifier ranges over too many points: {pretty(t)}")
            return None
        results = []
        for point in itertools.product(*domains):
            inner = {**env, **dict(zip(t.vars, point))}
            results.append(self._eval(t.body, inner))
        if t.kind == "forall":
            return False if False in results else True if all(r is True for r in results) else None
        return True if True in results else False if all(r is False for r in results) else None

    def _op(self, t: Op, env: Dict[Var, Value]) -> Value:
        op = t.op
        if op == OpKind.ITE:
            c = self._eval(t.args[0], env)
            return None if c is None else self._eval(t.args[1] if c else t.args[2], env)
        if op in (OpKind.AND, OpKind.OR, OpKind.NOT, OpKind.IMPLIES):
            return self._logic(t, env)
        if op == OpKind.PI:
            return arb.pi()
        args = [self._eval(a, env) for a in t.args]
        if any(a is None for a in args):
            return None
        if op in (OpKind.EQ, OpKind.NE):
            same = self._equal(args[0], args[1], t)
            return same if same is None or op == OpKind.EQ else not same
        if op in (OpKind.LT, OpKind.LE, OpKind.GT, OpKind.GE):
            a, b = args if op in (OpKind.LT, OpKind.LE) else args[::-1]
            result = _decide("<" if op in (OpKind.LT, OpKind.GT) else "<=", a, b)
            if result is None:
                self._note(f"interval arithmetic cannot decide {pretty(t)}")
            return result
        return self._arith(t, args)

    def _logic(self, t: Op, env: Dict[Var, Value]) -> Value:
        op = t.op
        if op == OpKind.NOT:
            v = self._eval(t.args[0], env)
            return None if v is None else not v
        if op == OpKind.IMPLIES:
            a = self._eval(t.args[0], env)
            if a is False:
                return True
            b = self._eval(t.args[1], env)
            return True if b is True else b if a is True else None
        stop = op == OpKind.OR  # the value that decides a disjunction (True) or conjunction
        values = []
        for a in t.args:
            v = self._eval(a, env)
            if v is stop:
                return stop
            values.append(v)
        return None if None in values else not stop

    def _equal(self, a: Value, b: Value, t: Term) -> Optional[bool]:
        same = equal_values(a, b)
        if same is None:
            self._note(f"{pretty(t)} cannot be decided at this point")
        return same

    def _arith(self, t: Op, args: List[Value]) -> Value:
        op = t.op
        exact = _exact(*args)
        if op == OpKind.TO_REAL:
            return Fraction(args[0])  # type: ignore[arg-type]
        if op in (OpKind.ADD, OpKind.SUB, OpKind.MUL, OpKind.NEG, OpKind.ABS):
            xs = args if exact else [ball(a) for a in args]  # type: ignore[arg-type]
            if op == OpKind.ADD:
                return sum(xs[1:], xs[0])
            if op == OpKind.MUL:
                return math.prod(xs[1:], start=xs[0])
            if op == OpKind.SUB:
                return xs[0] - xs[1]
            return -xs[0] if op == OpKind.NEG else abs(xs[0])
        if op in (OpKind.MIN, OpKind.MAX):
            if exact:
                return (min if op == OpKind.MIN else max)(args)  # type: ignore[type-var]
            x, y = ball(args[0]), ball(args[1])  # type: ignore[arg-type]
            return x.min(y) if op == OpKind.MIN else x.max(y)
        if op == OpKind.DIV:
            a, b = args
            if exact:
                if b == 0:
                    self._note(f"{pretty(t)} divides by zero")
                    return None
                return Fraction(a) / Fraction(b)  # type: ignore[arg-type]
            if ball(b).contains(0):  # type: ignore[arg-type]
                self._note(f"interval arithmetic cannot exclude a division by zero in {pretty(t)}")
                return None
            return ball(a) / ball(b)  # type: ignore[arg-type]
        return self._transcendental(t, args[0])  # type: ignore[arg-type]

    def _transcendental(self, t: Op, x: Number) -> Value:
        op = t.op
        if op == OpKind.EXP:
            return Fraction(1) if _exact(x) and x == 0 else ball(x).exp()
        positive = _decide("<", 0, x) if op == OpKind.LOG else _decide("<=", 0, x)
        if positive is not True:
            self._note(f"{pretty(t)} is unspecified or undetermined at this point")
            return None
        if op == OpKind.LOG:
            return Fraction(0) if _exact(x) and x == 1 else ball(x).log()
        root = _sqrt_exact(Fraction(x)) if _exact(x) else None
        return root if root is not None else ball(x).sqrt()
