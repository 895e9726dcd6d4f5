"""Counterexamples: z3's model of a satisfiable problem, confirmed by exact evaluation.

``model_check(problem, rlimit, ctx, used)`` is what the z3 back end (``obligations.z3_backend``)
does when z3 answers ``sat``: it builds the lowered problem through z3's Python API in the
given context, asks a fresh solver for a model, reads back the values of the program
variables and of the uninterpreted functions, and evaluates the *original* obligation there
with exact rational and rigorous ball arithmetic (``obligations.evaluate``), with the true
``pi``, ``sqrt``, ``exp`` and ``log``. ``refuted`` only if every hypothesis and axiom is true
and the goal false; otherwise ``unknown`` with the reason (typically: the model relied on the
encoding's incomplete knowledge of ``exp``/``log``).

Kept apart from the back end so that verifying a program that refutes nothing never loads
python-flint.
"""
from __future__ import annotations

from fractions import Fraction
from typing import Any, Dict, FrozenSet, List, Optional, Sequence, Tuple

import z3
from flint import arb, ctx as flint_ctx, fmpq

from obligations.encoding import GOAL, Problem
from obligations.evaluate import PRECISION, Element, Evaluator, Interpretation, Value
from obligations.model import Binding, Verdict
from obligations.smtlib import SEED
from obligations.terms import (BOOL, INT, REAL, Apply, Const, FuncDecl, Op, OpKind, Quantifier,
                               Sort, Term, Var, ground_applications, pretty, subterms)

#: The names of call-fact hypotheses (``verifier.rules.call_facts``): they assume a val.
CALL_FACT = "h__call_"
#: Decimal digits of the rational enclosures taken of algebraic numbers in models.
ALGEBRAIC_DIGITS = 40

_NOT_POLYNOMIAL = {OpKind.DIV, OpKind.PI, OpKind.SQRT, OpKind.EXP, OpKind.LOG}

_Z3_OPS = {
    OpKind.ADD: lambda *a: z3.Sum(*a), OpKind.MUL: lambda *a: z3.Product(*a),
    OpKind.SUB: lambda a, b: a - b, OpKind.DIV: lambda a, b: a / b, OpKind.NEG: lambda a: -a,
    OpKind.TO_REAL: z3.ToReal, OpKind.EQ: lambda a, b: a == b, OpKind.NE: lambda a, b: a != b,
    OpKind.LT: lambda a, b: a < b, OpKind.LE: lambda a, b: a <= b,
    OpKind.GT: lambda a, b: a > b, OpKind.GE: lambda a, b: a >= b,
    OpKind.AND: z3.And, OpKind.OR: z3.Or, OpKind.NOT: z3.Not, OpKind.IMPLIES: z3.Implies,
    OpKind.ITE: z3.If,
}


class Z3Encoder:
    """Renders the terms of a lowered ``Problem`` as z3 expressions in one context."""

    def __init__(self, problem: Problem, ctx: z3.Context):
        self.problem, self.ctx = problem, ctx
        self.sorts: Dict[Sort, z3.SortRef] = {
            REAL: z3.RealSort(ctx), INT: z3.IntSort(ctx), BOOL: z3.BoolSort(ctx)}
        for s in problem.sorts:
            self.sorts[s] = z3.DeclareSort(problem.symbol(s), ctx)
        self.functions: Dict[FuncDecl, z3.FuncDeclRef] = {
            f: z3.Function(problem.symbol(f), *[self.sorts[s] for s in f.domain + (f.range,)])
            for f in problem.functions}
        self.constants: Dict[Var, z3.ExprRef] = {
            v: self.const(v) for v in problem.constants}

    def const(self, v: Var) -> z3.ExprRef:
        return z3.Const(self.problem.symbol(v), self.sorts[v.sort])

    def expr(self, t: Term) -> z3.ExprRef:
        if isinstance(t, Const):
            if t.sort == BOOL:
                return z3.BoolVal(t.value, self.ctx)
            if t.sort == INT:
                return z3.IntVal(t.value, self.ctx)
            return z3.RealVal(t.value, self.ctx)
        if isinstance(t, Var):
            return self.const(t)
        if isinstance(t, Apply):
            f = self.functions[t.func]
            return f(*[self.expr(a) for a in t.args]) if t.args else f()
        if isinstance(t, Quantifier):
            make = z3.ForAll if t.kind == "forall" else z3.Exists
            return make([self.const(v) for v in t.vars], self.expr(t.body))
        assert isinstance(t, Op) and t.op in _Z3_OPS, f"not lowered: {t}"
        return _Z3_OPS[t.op](*[self.expr(a) for a in t.args])

    def value(self, z: z3.ExprRef) -> Value:
        """A z3 model value as an evaluator value (ints, Fractions, arb balls, elements).

        An algebraic number becomes a ball around a rational approximation within
        ``10**-ALGEBRAIC_DIGITS`` of it (z3's documented bound for ``approx``)."""
        if z3.is_true(z) or z3.is_false(z):
            return z3.is_true(z)
        if z3.is_int_value(z):
            return z.as_long()
        if z3.is_rational_value(z):
            return Fraction(z.numerator_as_long(), z.denominator_as_long())
        if z3.is_algebraic_value(z):
            mid = z.approx(ALGEBRAIC_DIGITS)
            with flint_ctx.workprec(PRECISION):
                return arb(fmpq(mid.numerator_as_long(), mid.denominator_as_long()),
                           fmpq(1, 10 ** ALGEBRAIC_DIGITS))
        for s, zs in self.sorts.items():
            if not s.is_builtin and z.sort() == zs:
                return Element(s, _element_index(z))
        return None


def _element_index(z: z3.ExprRef) -> int:
    # z3 names the elements of a finite universe "<sort>!val!<i>"
    return int(str(z).rsplit("!val!", 1)[1])


class _ModelInterpretation(Interpretation):
    """Uninterpreted functions and sorts as z3's model interprets them."""

    def __init__(self, encoder: Z3Encoder, model: z3.ModelRef):
        self.encoder, self.model = encoder, model
        self.elements: Dict[Element, z3.ExprRef] = {}
        for s in encoder.problem.sorts:
            for z in model.get_universe(encoder.sorts[s]) or ():
                self.elements[Element(s, _element_index(z))] = z

    def universe(self, sort: Sort) -> Optional[Sequence[Element]]:
        found = [e for e in self.elements if e.sort == sort]
        return sorted(found, key=lambda e: e.index) if found else None

    def apply(self, func: FuncDecl, args: Tuple[Value, ...]) -> Value:
        zargs = [self._z3(a, s) for a, s in zip(args, func.domain)]
        if any(a is None for a in zargs):
            return None
        f = self.encoder.functions[func]
        return self.encoder.value(self.model.eval(f(*zargs) if zargs else f(), model_completion=True))

    def _z3(self, v: Value, s: Sort) -> Optional[z3.ExprRef]:
        ctx = self.encoder.ctx
        if isinstance(v, Element):
            return self.elements.get(v)
        if isinstance(v, bool):
            return z3.BoolVal(v, ctx)
        if s == INT:
            return z3.IntVal(v, ctx)
        return z3.RealVal(Fraction(v), ctx) if isinstance(v, (int, Fraction)) else None


def _solver(ctx: z3.Context, rlimit: int) -> z3.Solver:
    s = z3.Solver(ctx=ctx)
    s.set("rlimit", rlimit)
    s.set("random_seed", SEED)
    return s


def model_check(problem: Problem, rlimit: int, ctx: z3.Context, used: Dict[str, Any],
                opaque: FrozenSet[str] = frozenset()) -> Tuple[Verdict, str, Dict[str, Any]]:
    """Solve ``problem`` again through the API, for a model to confirm. ``opaque`` names the
    functions whose calls are opaque symbols (functions known only through their val): a
    counterexample stands only if it does not depend on the values of their calls."""
    enc = Z3Encoder(problem, ctx)
    s = _solver(ctx, rlimit)
    for a in problem.assertions:
        s.add(enc.expr(a.term))
    answer = s.check()
    if answer != z3.sat:
        return (Verdict.UNKNOWN, f"z3 answered sat, but {answer} when asked again for a model",
                used)
    verdict, reason, bindings = _confirm(problem, enc, s.model())
    if verdict == Verdict.REFUTED and opaque:
        doubt = _depends_on_calls(problem, enc, s.model(), opaque, rlimit)
        if doubt is not None:
            return Verdict.UNKNOWN, doubt, used
        reason += "; it holds whatever the opaque calls return"
    return verdict, reason, {**used, "counterexample": bindings}


def _depends_on_calls(problem: Problem, enc: Z3Encoder, model: z3.ModelRef,
                      opaque: FrozenSet[str], rlimit: int) -> Optional[str]:
    """None when the goal is false at ``model`` whatever the calls of the ``opaque``
    functions return; otherwise why that is not shown.

    A call of a function known only through its val is an uninterpreted symbol, so z3's
    model gives it a value the function may never return. The counterexample is kept only if
    the goal stays false for *every* value of the calls: with the program's variables and
    every call-free uninterpreted term fixed at their values in the model, the goal together
    with the axioms (true facts) and the encoding's facts is unsatisfiable. The call facts
    (hypotheses ``h__call_*``, which assume the val) are left out, and a path condition that
    mentions a call makes the question undecided here (the path may not be taken)."""
    ob = problem.obligation
    terms = [n.term for n in ob.hypotheses + ob.axioms] + [ob.goal]
    apps = ground_applications(*terms)
    called = sorted({a.func.name for a in apps if a.func.name in opaque})
    if not called:
        return None
    shown = ", ".join(called)
    doubt = (f"z3 found a candidate counterexample, but it gives values to calls of {shown}, "
             "which the verifier knows only through the postcondition of their val (and not at "
             "all in their own body), and the goal is not false for every value they could "
             "take, so the values may be ones the function never returns")

    def calls_in(t: Term) -> bool:
        return any(isinstance(x, Apply) and x.func.name in opaque for x in subterms(t))

    if any(calls_in(h.term) for h in ob.hypotheses if not h.name.startswith(CALL_FACT)):
        return doubt + " (a hypothesis of the path mentions a call)"
    s = _solver(enc.ctx, rlimit)
    for a in problem.assertions:
        if a.role == "goal":
            s.add(enc.expr(a.term.args[0]))  # type: ignore[attr-defined]  # the goal itself
        elif not a.name.startswith(CALL_FACT):
            s.add(enc.expr(a.term))
    groups: Dict[Tuple[str, int], List[z3.ExprRef]] = {}
    fixed = [v for v in ob.free_vars] + [a for a in apps if not calls_in(a)]
    for t in fixed:
        try:
            z = enc.const(t) if isinstance(t, Var) else enc.expr(t)
        except AssertionError:  # not in the solver's fragment: left free (less is shown)
            continue
        value = model.eval(z, model_completion=True)
        if t.sort.is_builtin:
            s.add(z == value)
            continue
        try:
            element = _element_index(value)
        except (ValueError, IndexError):  # not an element of the model's universe: left free
            continue
        groups.setdefault((t.sort.name, element), []).append(z)
    for members in groups.values():
        s.add(*[members[0] == m for m in members[1:]])
    representatives = [m[0] for m in groups.values()]
    by_sort: Dict[Any, List[z3.ExprRef]] = {}
    for r in representatives:
        by_sort.setdefault(r.sort(), []).append(r)
    for same in by_sort.values():
        if len(same) > 1:
            s.add(z3.Distinct(*same))
    return None if s.check() == z3.unsat else doubt


def _confirm(problem: Problem, enc: Z3Encoder,
             model: z3.ModelRef) -> Tuple[Verdict, str, Tuple[Binding, ...]]:
    """Evaluate the original obligation at z3's model; refuted only if confirmed."""
    ob = problem.obligation
    env: Dict[Var, Value] = {}
    bindings: List[Binding] = []
    for v in ob.free_vars:
        z = model.eval(enc.constants[v], model_completion=True)
        env[v] = enc.value(z)
        bindings.append(_binding(v.label, z, env[v]))
    ev = Evaluator(_ModelInterpretation(enc, model))

    def truth(name: str, term: Term) -> Value:
        value = ev.value(term, env)
        if value is None and _polynomial(term):
            lowered = problem.assertion(name).term
            if name == GOAL:
                lowered = lowered.args[0]  # type: ignore[attr-defined]  # the goal, not its negation
            z = model.eval(enc.expr(lowered), model_completion=True)
            value = True if z3.is_true(z) else False if z3.is_false(z) else None
        return value

    def notes() -> str:
        return f" ({'; '.join(ev.notes)})" if ev.notes else ""

    for n in ob.hypotheses + ob.axioms:
        holds = truth(n.name, n.term)
        if holds is False:
            return (Verdict.UNKNOWN, f"z3 found a candidate counterexample, but {n.name} is false "
                    "there once pi, sqrt, exp and log take their true values", ())
        if holds is None:
            return (Verdict.UNKNOWN, f"z3 found a candidate counterexample, but {n.name} cannot "
                    f"be decided there{notes()}", ())
    goal = truth(GOAL, ob.goal)
    if goal is True:
        return (Verdict.UNKNOWN, "z3 found a candidate counterexample, but the goal holds there "
                "once pi, sqrt, exp and log take their true values (the encoding knows only some "
                "of their properties)", ())
    if goal is None:
        return (Verdict.UNKNOWN, f"z3 found a candidate counterexample, but the goal cannot be "
                f"decided there{notes()}", ())
    assumptions = (n.term for n in ob.hypotheses + ob.axioms)
    for app in ground_applications(*assumptions, ob.goal):
        z = model.eval(enc.expr(app), model_completion=True)
        bindings.append(_binding(pretty(app), z, enc.value(z)))
    relative = " (relative to the axioms of the uninterpreted symbols)" if problem.uninterpreted else ""
    return (Verdict.REFUTED, f"counterexample found by z3 and confirmed by exact evaluation{relative}",
            tuple(bindings))


def _polynomial(term: Term) -> bool:
    """No division and no transcendental: z3 evaluates such a formula exactly at a model
    (its algebraic numbers are exact), with no unspecified value involved."""
    return not any(isinstance(t, Op) and t.op in _NOT_POLYNOMIAL for t in subterms(term))


def _binding(name: str, z: z3.ExprRef, value: Value) -> Binding:
    """The printed form of the model value ``z`` (whose evaluator value is ``value``)."""
    if isinstance(value, Element):
        return Binding(name, str(value))
    if isinstance(value, bool):
        return Binding(name, "true" if value else "false")
    if z3.is_int_value(z):
        return Binding(name, str(z.as_long()), str(z.as_long()))
    if z3.is_rational_value(z):
        q = Fraction(z.numerator_as_long(), z.denominator_as_long())
        return Binding(name, str(q), repr(float(q)))
    if z3.is_algebraic_value(z):
        return Binding(name, z.sexpr(), z.as_decimal(17).rstrip("?"))
    return Binding(name, str(z))
