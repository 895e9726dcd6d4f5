"""Lowering of an obligation to a solver-neutral SMT problem.

``encode(obligation)`` returns a ``Problem``: declarations and named assertions whose terms
use only what every SMT solver has (linear and nonlinear arithmetic, ``to_real``, ``ite``,
Booleans, uninterpreted sorts and functions, quantifiers). Both back ends render the same
``Problem``: ``z3_backend`` to z3 API objects, ``smtlib`` to SMT-LIB 2 text, so the two agree
by construction.

What the lowering does
----------------------
* ``abs``, ``min``, ``max`` become ``ite`` (``abs a = ite(a >= 0, a, -a)``...).
* ``pi`` becomes a constant ``pi!`` with rational bounds
  ``3.14159265358979 < pi! < 3.14159265358980`` (pi = 3.14159265358979323...).
* Each distinct *ground* application ``sqrt a``, ``exp a``, ``log a`` (one whose argument does
  not mention a quantified variable) becomes a fresh constant (``sqrt!0``, ``exp!1``...)
  constrained by instances of the facts below at that argument, and by the pairwise facts
  for every pair of applications of the same function (or of ``exp`` and ``log``). This is
  Ackermann's reduction with extra true facts: the problem stays quantifier-free
  (``QF_NRA`` when nothing else is uninterpreted), a fragment that nlsat decides.
* A *closed* application (no variables at all, e.g. ``exp 1`` or ``log (1.25 / 0.01)``) also
  gets its value: exact when it is rational (``sqrt 4 = 2``), otherwise a rational enclosure
  ``lo <= exp!0 <= hi`` on a grid of ``10**-ENCLOSURE_DIGITS``, rounded outwards from an arb
  ball (python-flint, rigorous and deterministic). Values of magnitude ``10**30`` or more get
  none.
* An application under a quantifier becomes an uninterpreted function ``sqrt!``/``exp!``/
  ``log!`` applied to its argument, with the same facts universally quantified, and each
  ground constant linked to it (``exp!1 = exp!(a)``).

The facts (all true of the real functions, for every real ``x`` and ``y``)
-------------------------------------------------------------------------
``sqrt``
    def: ``x >= 0 => sqrt x >= 0 /\\ sqrt x * sqrt x = x`` (this pins ``sqrt x`` down
    uniquely when ``x >= 0``; ``sqrt`` of a negative number is unspecified, so nothing else
    is said about it); congruent: ``x = y => sqrt x = sqrt y``.
``exp``
    positive: ``exp x > 0``; tangent: ``exp x >= 1 + x`` (convexity: the tangent at 0 lies
    below); upper: ``exp x * (1 - x) <= 1`` (from ``exp (-x) >= 1 - x`` multiplied by
    ``exp x > 0``); at_zero: ``x = 0 => exp x = 1``; monotone:
    ``(x <= y) = (exp x <= exp y)`` (``exp`` is strictly increasing, so the order of the
    values is the order of the arguments; both orders of a pair give congruence too).
``log`` (unspecified for ``x <= 0``, where only congruence is said of it)
    at_one: ``x = 1 => log x = 0``; upper: ``x > 0 => log x <= x - 1`` (concavity: the
    tangent at 1 lies above); lower: ``x > 0 => x * log x >= x - 1`` (``log x >= 1 - 1/x``,
    the upper fact at ``1/x``); monotone: ``x > 0 /\\ y > 0 => (x <= y) = (log x <= log y)``;
    congruent: ``x = y => log x = log y`` (a function, even where unspecified).
``exp`` with ``log``
    log_exp: ``y = exp x => log y = x``; exp_log: ``y > 0 /\\ x = log y => exp x = y``.

Every fact is an instance of a true statement about the real functions (and the
unspecified values of partial ones are a fixed function, so congruence holds), hence every
model of the original obligation extends to a model of the lowered problem: if the lowered
problem is unsat, the obligation is valid. The converse fails (the facts do not determine
``exp``), so a ``sat`` answer is only a candidate counterexample, which the z3 back end
confirms by evaluating the *original* terms with rigorous interval arithmetic.

Symbols
-------
Program symbols are prefixed with ``$`` so that they can never clash with a theory symbol
(``abs``, ``div``, ``exp``... are reserved in z3 and cvc5): ``x<1>`` is ``$x<1>``, ``eps`` is
``$eps``, the sort ``List[bool]`` is ``$List[bool]``, the function ``length`` is ``$length``
(``$length:List[bool]`` when the obligation uses ``length`` at several signatures).
Encoding symbols contain ``!`` (``pi!``, ``exp!2``), which program names cannot. Assertion
names are the hypothesis and axiom names (``h_...``, ``ax_...``), ``goal`` for the negated
goal, and ``<aux>!<fact>`` for the facts (``exp!1!positive``, ``exp!0!exp!1!monotone``).
"""
from __future__ import annotations

import math
import re
from functools import cached_property
from fractions import Fraction
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

from obligations.model import Obligation
from obligations.records import record
from obligations.terms import (INT, REAL, Apply, Const, FuncDecl, Op, OpKind, Quantifier,
                               Sort, SortError, Term, Var, and_, decimal_text, eq, free_vars, ge,
                               gt, implies, ite, le, lt, dag_fold, vocabulary_of)

#: Rational enclosure of pi used by the encoding: PI_LOWER < pi < PI_UPPER.
PI_LOWER = Fraction("3.14159265358979")
PI_UPPER = Fraction("3.14159265358980")
#: Closed applications are enclosed on a grid of 10**-ENCLOSURE_DIGITS.
ENCLOSURE_DIGITS = 20

GOAL = "goal"


@record
class AuxVar(Var):
    """A constant introduced by the encoding (``pi!``, ``sqrt!0``); never a program variable."""

    def _check_name(self) -> None:
        if not re.fullmatch(r"[a-z]+![0-9]*", self.name):
            raise SortError(f"invalid encoding constant {self.name!r}")


@record
class AuxFunc(FuncDecl):
    """A function introduced by the encoding (``sqrt!``, ``exp!``, ``log!``)."""

    def _check_name(self) -> None:
        if not re.fullmatch(r"[a-z]+!", self.name):
            raise SortError(f"invalid encoding function {self.name!r}")


@record
class Assertion:
    """A named assertion of the lowered problem.

    ``role`` is ``"encoding"`` (a fact about pi/sqrt/exp/log), ``"hypothesis"``, ``"axiom"``
    or ``"goal"`` (the negation of the obligation's goal). ``comment`` says what it is.
    """

    name: str
    role: str
    term: Term
    comment: str


@record
class Problem:
    """An obligation lowered to the SMT fragment: satisfiable iff a candidate
    counterexample exists, unsatisfiable only if the obligation is valid."""

    obligation: Obligation
    sorts: Tuple[Sort, ...]
    functions: Tuple[FuncDecl, ...]
    constants: Tuple[Var, ...]
    assertions: Tuple[Assertion, ...]
    logic: str
    function_symbols: Tuple[Tuple[FuncDecl, str], ...]
    #: what each encoding constant stands for: ``(pi!, pi)``, ``(exp!1, exp (log!0))``...
    definitions: Tuple[Tuple[AuxVar, Term], ...]

    def symbol(self, x: object) -> str:
        """The SMT symbol (unquoted) of a variable, uninterpreted function or sort."""
        if isinstance(x, (AuxVar, AuxFunc)):
            return x.name
        if isinstance(x, Var):
            return "$" + x.label
        if isinstance(x, FuncDecl):
            return self._function_symbol[x]
        if isinstance(x, Sort):
            return "$" + x.name
        raise TypeError(f"no symbol for {x!r}")

    @cached_property
    def _function_symbol(self) -> Dict[FuncDecl, str]:
        return dict(self.function_symbols)

    @property
    def uninterpreted(self) -> bool:
        """Whether the obligation itself uses uninterpreted sorts or functions."""
        return bool(self.sorts) or any(not isinstance(f, AuxFunc) for f in self.functions)

    def assertion(self, name: str) -> Assertion:
        for a in self.assertions:
            if a.name == name:
                return a
        raise KeyError(name)


def parse_symbol(symbol: str) -> Tuple[str, Optional[int]]:
    """The program name and run of a variable's SMT symbol (quoted or not): ``|$x<1>|`` is
    ``("x", 1)``. The inverse of ``Problem.symbol`` on program variables."""
    m = re.fullmatch(r"\|?\$([A-Za-z_][A-Za-z0-9_']*)(?:<([12])>)?\|?", symbol)
    if not m:
        raise ValueError(f"not the symbol of a program variable: {symbol!r}")
    return m.group(1), None if m.group(2) is None else int(m.group(2))


# --------------------------------------------------------------------------------------
# The facts about the transcendental functions (see the module docstring)
# --------------------------------------------------------------------------------------

Facts = List[Tuple[str, Term]]


def _sqrt_facts(x: Term, s: Term) -> Facts:
    return [("def", implies(ge(x, 0), and_(ge(s, 0), eq(s * s, x))))]


def _exp_facts(x: Term, e: Term) -> Facts:
    return [("positive", gt(e, 0)), ("tangent", ge(e, 1 + x)), ("upper", le(e * (1 - x), 1)),
            ("at_zero", implies(eq(x, 0), eq(e, 1)))]


def _log_facts(x: Term, l: Term) -> Facts:
    return [("at_one", implies(eq(x, 1), eq(l, 0))), ("upper", implies(gt(x, 0), le(l, x - 1))),
            ("lower", implies(gt(x, 0), ge(x * l, x - 1)))]


def _sqrt_pair(x: Term, s: Term, y: Term, t: Term) -> Facts:
    return [("congruent", implies(eq(x, y), eq(s, t)))]


def _exp_pair(x: Term, e: Term, y: Term, f: Term) -> Facts:
    return [("monotone", and_(eq(le(x, y), le(e, f)), eq(le(y, x), le(f, e))))]


def _log_pair(x: Term, l: Term, y: Term, m: Term) -> Facts:
    return [("monotone", implies(and_(gt(x, 0), gt(y, 0)),
                                 and_(eq(le(x, y), le(l, m)), eq(le(y, x), le(m, l))))),
            ("congruent", implies(eq(x, y), eq(l, m)))]


def _exp_log(x: Term, e: Term, y: Term, l: Term) -> Facts:
    """``e = exp x`` and ``l = log y``."""
    return [("log_exp", implies(eq(y, e), eq(l, x))),
            ("exp_log", implies(and_(gt(y, 0), eq(x, l)), eq(e, y)))]


_SINGLE: Dict[OpKind, Callable[[Term, Term], Facts]] = {
    OpKind.SQRT: _sqrt_facts, OpKind.EXP: _exp_facts, OpKind.LOG: _log_facts}
_PAIR: Dict[OpKind, Callable[[Term, Term, Term, Term], Facts]] = {
    OpKind.SQRT: _sqrt_pair, OpKind.EXP: _exp_pair, OpKind.LOG: _log_pair}

_STATEMENTS = {
    "sqrt!def": "x >= 0 => sqrt x >= 0 /\\ sqrt x * sqrt x = x",
    "sqrt!congruent": "x = y => sqrt x = sqrt y",
    "exp!positive": "exp x > 0",
    "exp!tangent": "exp x >= 1 + x",
    "exp!upper": "exp x * (1 - x) <= 1",
    "exp!at_zero": "x = 0 => exp x = 1",
    "exp!monotone": "(x <= y) = (exp x <= exp y)",
    "log!at_one": "x = 1 => log x = 0",
    "log!upper": "x > 0 => log x <= x - 1",
    "log!lower": "x > 0 => x * log x >= x - 1",
    "log!monotone": "x > 0 /\\ y > 0 => (x <= y) = (log x <= log y)",
    "log!congruent": "x = y => log x = log y",
    "exp!log_exp": "y = exp x => log y = x",
    "exp!exp_log": "y > 0 /\\ x = log y => exp x = y",
}


# --------------------------------------------------------------------------------------
# Lowering
# --------------------------------------------------------------------------------------

class _Lowering:
    """Rewrites terms into the SMT fragment, recording the encoding symbols it introduces."""

    def __init__(self) -> None:
        self.pi: Optional[AuxVar] = None
        self.ground: Dict[Tuple[OpKind, Term], AuxVar] = {}   # in creation order
        self.closed: Dict[AuxVar, Tuple[Term, object]] = {}    # their values, when closed
        self.lifted: Dict[OpKind, AuxFunc] = {}               # used under a binder

    def term(self, t: Term, bound: frozenset = frozenset()) -> Term:
        if isinstance(t, (Const, Var)) or not _needs_lowering(t):
            return t
        if isinstance(t, Quantifier):
            inner = bound | {(v.name, v.run) for v in t.vars}
            return Quantifier(t.kind, t.vars, self.term(t.body, inner))
        args = tuple(self.term(a, bound) for a in t.args)  # type: ignore[union-attr]
        if isinstance(t, Apply):
            return Apply(t.func, args)
        op = t.op  # type: ignore[union-attr]
        if op == OpKind.ABS:
            return ite(ge(args[0], Const(0, args[0].sort)), args[0], Op(OpKind.NEG, args))
        if op == OpKind.MIN:
            return ite(le(args[0], args[1]), args[0], args[1])
        if op == OpKind.MAX:
            return ite(ge(args[0], args[1]), args[0], args[1])
        if op == OpKind.PI:
            if self.pi is None:
                self.pi = AuxVar("pi!", REAL)
            return self.pi
        if op in _SINGLE:
            if any((v.name, v.run) in bound for v in free_vars(args[0])):
                func = self.lifted.setdefault(op, AuxFunc(op.value + "!", (REAL,), REAL))
                return Apply(func, args)
            key = (op, args[0])
            if key not in self.ground:
                aux = self.ground[key] = AuxVar(f"{op.value}!{len(self.ground)}", REAL)
                if not free_vars(t):
                    from obligations.evaluate import Evaluator  # flint, only when needed
                    self.closed[aux] = (t, Evaluator().value(t, {}))
            return self.ground[key]
        return Op(op, args)

    def facts(self) -> List[Assertion]:
        """The encoding assertions for every symbol introduced so far."""
        out: List[Assertion] = []

        def add(name: str, schema: str, term: Term) -> None:
            out.append(Assertion(name, "encoding", term, _STATEMENTS[schema]))

        if self.pi is not None:
            out.append(Assertion("pi!bounds", "encoding",
                                 and_(lt(PI_LOWER, self.pi), lt(self.pi, PI_UPPER)),
                                 f"{decimal_text(PI_LOWER)} < pi < {decimal_text(PI_UPPER)}"))
        for c, (t, value) in self.closed.items():
            fact = _enclosure(c, value)
            if fact is not None:
                out.append(Assertion(f"{c.name}!value", "encoding", fact,
                                     f"{c.name} = {t}, by exact or ball arithmetic"))
        apps = [(op, arg, c) for (op, arg), c in self.ground.items()]
        for op, arg, c in apps:
            for fact, term in _SINGLE[op](arg, c):
                add(f"{c.name}!{fact}", f"{op.value}!{fact}", term)
        for i, (op, x, c) in enumerate(apps):
            for op2, y, d in apps[i + 1:]:
                if op2 == op:
                    for fact, term in _PAIR[op](x, c, y, d):
                        add(f"{c.name}!{d.name}!{fact}", f"{op.value}!{fact}", term)
                elif {op, op2} == {OpKind.EXP, OpKind.LOG}:
                    (ex, ec), (ly, lc) = ((x, c), (y, d)) if op == OpKind.EXP else ((y, d), (x, c))
                    for fact, term in _exp_log(ex, ec, ly, lc):
                        add(f"{c.name}!{d.name}!{fact}", f"exp!{fact}", term)
        x, y = AuxVar("x!", REAL), AuxVar("y!", REAL)
        for op, func in self.lifted.items():
            for fact, term in _SINGLE[op](x, func(x)):
                add(f"{func.name}all!{fact}", f"{op.value}!{fact}", Quantifier("forall", (x,), term))
            for fact, term in _PAIR[op](x, func(x), y, func(y)):
                add(f"{func.name}all!{fact}", f"{op.value}!{fact}", Quantifier("forall", (x, y), term))
            for (op2, arg), c in self.ground.items():
                if op2 == op:
                    out.append(Assertion(f"{c.name}!link", "encoding", eq(c, func(arg)),
                                         f"{c.name} = {func.name} ({arg})"))
        if {OpKind.EXP, OpKind.LOG} <= set(self.lifted):
            e, l = self.lifted[OpKind.EXP], self.lifted[OpKind.LOG]
            for fact, term in _exp_log(x, e(x), y, l(y)):
                add(f"exp!log!all!{fact}", f"exp!{fact}", Quantifier("forall", (x, y), term))
        return out


_LOWERED = frozenset({OpKind.ABS, OpKind.MIN, OpKind.MAX, OpKind.PI, OpKind.SQRT, OpKind.EXP,
                      OpKind.LOG})


def _needs_lowering(t: Term) -> bool:
    """Whether ``t`` has an operation that the lowering rewrites (else it is its own image)."""
    return dag_fold(t, _lowering_step, _NEEDS_LOWERING)


def _lowering_step(u: Term, kids: List[bool]) -> bool:
    return (isinstance(u, Op) and u.op in _LOWERED) or any(kids)


_NEEDS_LOWERING: Dict[Term, bool] = {}


def _enclosure(c: AuxVar, value: object) -> Optional[Term]:
    """``c = value`` for an exact value; ``lo < c < hi`` around a finite, moderate ball."""
    if isinstance(value, Fraction):
        return eq(c, value)
    from flint import arb, ctx  # loaded with obligations.evaluate, which computed value
    from obligations.evaluate import PRECISION
    if not isinstance(value, arb) or not value.is_finite() or not abs(value) < 10 ** 30:
        return None
    scale = 10 ** ENCLOSURE_DIGITS
    with ctx.workprec(PRECISION):  # the endpoints are rounded at the working precision
        lo = Fraction(math.floor(_dyadic(value.lower()) * scale), scale)
        hi = Fraction(math.ceil(_dyadic(value.upper()) * scale), scale)
    return and_(le(lo, c), le(c, hi))


def _dyadic(x: Any) -> Fraction:
    """The exact value of an exact (dyadic) arb, such as a ball's endpoint."""
    man, exp = (int(v) for v in x.man_exp())
    return Fraction(man) * Fraction(2) ** exp


def encode(obligation: Obligation) -> Problem:
    """Lower ``obligation`` to a ``Problem`` (see the module docstring for the contract)."""
    low = _Lowering()
    user: List[Assertion] = []
    for h in obligation.hypotheses:
        user.append(Assertion(h.name, "hypothesis", low.term(h.term), str(h.term)))
    for a in obligation.axioms:
        user.append(Assertion(a.name, "axiom", low.term(a.term), str(a.term)))
    goal = Op(OpKind.NOT, (low.term(obligation.goal),))
    user.append(Assertion(GOAL, "goal", goal, str(obligation.goal)))
    assertions = tuple(low.facts()) + tuple(user)

    terms = [a.term for a in assertions]
    constants = obligation.free_vars + ((low.pi,) if low.pi else ()) + tuple(low.ground.values())
    vocab = vocabulary_of(*(n.term for n in obligation.hypotheses + obligation.axioms),
                          obligation.goal)  # not the symbols of a lemma's instantiation
    functions = vocab.functions + tuple(low.lifted.values())
    overloaded = {f.name for f in vocab.functions
                  if sum(g.name == f.name for g in vocab.functions) > 1}
    symbols = tuple((f, f.name if isinstance(f, AuxFunc) else
                     "$" + f.name + (":" + ",".join(s.name for s in f.domain)
                                     if f.name in overloaded else ""))
                    for f in functions)
    definitions = ((((low.pi, Op(OpKind.PI, ())),) if low.pi else ())
                   + tuple((c, Op(op, (arg,))) for (op, arg), c in low.ground.items()))
    return Problem(obligation, vocab.sorts, functions, constants, assertions,
                   _logic(terms, bool(vocab.sorts or functions)), symbols, definitions)


def _logic(terms: Sequence[Term], uninterpreted: bool) -> str:
    """The tightest SMT-LIB logic name for ``terms`` (e.g. ``QF_NRA``, ``UFLIRA``)."""
    quantified = ints = reals = nonlinear = False
    for term in terms:
        q, i, r, n = _features(term)
        quantified, ints, reals, nonlinear = quantified or q, ints or i, reals or r, nonlinear or n
    arith = {(True, False): "IA", (False, True): "RA", (True, True): "IRA"}.get((ints, reals), "")
    if arith:
        arith = ("N" if nonlinear else "L") + arith
    name = ("UF" if uninterpreted or not arith else "") + arith
    return name if quantified else "QF_" + name


def _features(term: Term) -> Tuple[bool, bool, bool, bool]:
    """Whether ``term`` is quantified, uses integers, uses reals, is nonlinear."""
    return dag_fold(term, _features_step, _FEATURES)


def _features_step(t: Term, kids: List[Tuple[bool, bool, bool, bool]]
                   ) -> Tuple[bool, bool, bool, bool]:
    found = [t.sort] + ([v.sort for v in t.vars] if isinstance(t, Quantifier) else [])
    quantified, ints, reals = isinstance(t, Quantifier), INT in found, REAL in found
    nonlinear = False
    if isinstance(t, Op) and t.op == OpKind.MUL:
        nonlinear = sum(not _is_numeral(a) for a in t.args) > 1
    if isinstance(t, Op) and t.op == OpKind.DIV:  # x / 0 is unspecified: nonlinear
        nonlinear = not _is_numeral(t.args[1]) or _numeral_value(t.args[1]) == 0
    for q, i, r, n in kids:
        quantified, ints, reals, nonlinear = quantified or q, ints or i, reals or r, nonlinear or n
    return quantified, ints, reals, nonlinear


_FEATURES: Dict[Term, Tuple[bool, bool, bool, bool]] = {}


def _is_numeral(t: Term) -> bool:
    return isinstance(t, Const) or (isinstance(t, Op) and t.op == OpKind.NEG
                                    and isinstance(t.args[0], Const))


def _numeral_value(t: Term) -> Fraction:
    return t.value if isinstance(t, Const) else -t.args[0].value  # type: ignore[attr-defined]
