"""Discharging obligations with z3.

``discharge(obligation, rlimit=DEFAULT_RLIMIT)`` returns a ``Result``:

1. *Trivial* obligations (the goal is ``true``, is one of the hypotheses, or is a reflexive
   comparison ``t = t``, ``t <= t``, ``t >= t``) are verified without a solver.
2. Otherwise the obligation is lowered (``obligations.encoding``) and checked in a **fresh
   z3 context and solver** with a **deterministic resource limit** (``rlimit``, never wall
   time) and a fixed random seed. Every assertion (the encoding's facts, hypotheses,
   axioms and the negated goal) is tracked under its name (``assert_and_track``).
3. ``unsat``: the unsat core is re-checked in another fresh context holding only the core
   assertions. ``verified`` only if that is ``unsat`` as well; the core's hypothesis and
   axiom names are reported. A core without the goal means the assumptions contradict
   each other, which the reason says.
4. ``sat``: the model's values of the program variables (and of the uninterpreted
   functions) are read back and the *original* obligation is evaluated there with exact
   rational and rigorous ball arithmetic (``obligations.evaluate``), with the true ``pi``,
   ``sqrt``, ``exp`` and ``log``. ``refuted`` only if every hypothesis and axiom is true and
   the goal false; otherwise ``unknown`` with the reason (typically: the model relied on
   the encoding's incomplete knowledge of ``exp``/``log``).
5. ``unknown``, an exhausted resource limit or a z3 error: ``unknown`` with z3's reason.

Nonlinear real arithmetic goes to z3's default solver, whose arithmetic engine calls nlsat
(a decision procedure for quantifier-free nonlinear real arithmetic).

The rlimit policy
-----------------
``DEFAULT_RLIMIT = 5_000_000`` z3 resource units. z3 counts resources deterministically
(with one z3 version, the same problem in a fresh context spends the same units on every
run and machine), so verdicts are reproducible, unlike with a timeout. The obligations of
the test suite (including the nonlinear and transcendental ones) spend at most a few
thousand units; 5,000,000 is about two seconds of a hopeless nonlinear integer problem on
the development machine, so a stuck obligation costs little and a provable one is not cut
short. A certificate records the limit it was checked with.
"""
from __future__ import annotations

import time
from fractions import Fraction
from typing import Any, Dict, List, Optional, Sequence, Tuple

import z3
from flint import arb, ctx as flint_ctx, fmpq

from obligations.encoding import GOAL, Problem, encode
from obligations.evaluate import PRECISION, Element, Evaluator, Interpretation, Value
from obligations.model import Binding, Obligation, Result, Verdict
from obligations.terms import (BOOL, INT, REAL, TRUE, Apply, Const, FuncDecl, Op, OpKind,
                               Quantifier, Sort, Term, Var, children, pretty, subterms)

DEFAULT_RLIMIT = 5_000_000
#: The random seed given to z3 (its default, made explicit).
SEED = 0
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


def _resources(s: z3.Solver) -> Optional[int]:
    stats = s.statistics()
    return stats.get_key_value("rlimit count") if "rlimit count" in stats.keys() else None


def _trivial(ob: Obligation) -> Optional[Tuple[str, Tuple[str, ...]]]:
    """The reason and core when the goal holds syntactically, else ``None``."""
    g = ob.goal
    if g == TRUE:
        return "the goal is true", ()
    for h in ob.hypotheses:
        if h.term == g:
            return f"the goal is the hypothesis {h.name}", (h.name,)
    if isinstance(g, Op) and g.op in (OpKind.EQ, OpKind.LE, OpKind.GE) and g.args[0] == g.args[1]:
        return "the goal is a reflexive comparison", ()
    return None


def discharge(obligation: Obligation, *, rlimit: int = DEFAULT_RLIMIT,
              confirm: bool = True) -> Result:
    """Decide ``obligation`` with z3 (see the module docstring). Never raises on solver
    trouble: a z3 exception becomes an ``unknown`` result.

    With ``confirm=False`` a satisfiable negation is reported ``unknown`` without evaluating
    the model (for callers that only need to know whether the obligation is *verified*, such
    as a verifier choosing between rules); ``verified`` means the same in both modes."""
    start = time.perf_counter()
    trivial = _trivial(obligation)
    if trivial is not None:
        return Result(obligation=obligation.id, verdict=Verdict.VERIFIED, method="trivial",
                      reason=trivial[0], core=trivial[1], elapsed=time.perf_counter() - start)
    common: Dict[str, Any] = dict(obligation=obligation.id, rlimit=rlimit, method="z3",
                                  solver="z3", solver_version=z3.get_version_string())
    problem = encode(obligation)
    try:
        verdict, reason, extra = _check(problem, rlimit, confirm)
    except z3.Z3Exception as e:
        verdict, reason, extra = Verdict.UNKNOWN, f"z3 failed: {e}", {}
    return Result(verdict=verdict, reason=reason, elapsed=time.perf_counter() - start,
                  **common, **extra)


def _check(problem: Problem, rlimit: int,
           confirm: bool = True) -> Tuple[Verdict, str, Dict[str, Any]]:
    ctx = z3.Context()
    enc = Z3Encoder(problem, ctx)
    s = _solver(ctx, rlimit)
    for a in problem.assertions:
        s.assert_and_track(enc.expr(a.term), z3.Bool(a.name, ctx))
    answer = s.check()
    used = {"resources": _resources(s)}
    if answer == z3.unsat:
        core = [str(c) for c in s.unsat_core()]
        return _verified(problem, core, rlimit, used)
    if answer == z3.sat and not confirm:
        return Verdict.UNKNOWN, "z3: sat (the model was not evaluated)", used
    if answer == z3.sat:
        verdict, reason, bindings = _confirm(problem, enc, s.model())
        return verdict, reason, {**used, "counterexample": bindings}
    return Verdict.UNKNOWN, f"z3 returned unknown: {s.reason_unknown()} (rlimit {rlimit})", used


def recheck_core(problem: Problem, core: Sequence[str], rlimit: int) -> str:
    """Check the assertions named in ``core`` alone, in a fresh context: ``"unsat"``,
    ``"sat"`` or ``"unknown"``. An unsat core is trusted only if this says ``"unsat"``."""
    ctx = z3.Context()
    enc = Z3Encoder(problem, ctx)
    s = _solver(ctx, rlimit)
    wanted = set(core)
    for a in problem.assertions:
        if a.name in wanted:
            s.add(enc.expr(a.term))
    return str(s.check())


def _verified(problem: Problem, core: List[str], rlimit: int,
              used: Dict[str, Any]) -> Tuple[Verdict, str, Dict[str, Any]]:
    again = recheck_core(problem, core, rlimit)
    if again != "unsat":
        return (Verdict.UNKNOWN,
                f"z3 answered unsat but its unsat core re-checked as {again}", used)
    user = tuple(a.name for a in problem.assertions
                 if a.name in core and a.role in ("hypothesis", "axiom"))
    if GOAL not in core and not user:  # the encoding's facts are true, so jointly satisfiable
        return (Verdict.UNKNOWN, "internal error: the encoding's facts alone were found "
                f"contradictory ({', '.join(core)})", used)
    uses = f" (uses {', '.join(user)})" if user else ""
    if GOAL not in core:
        reason = f"the assumptions are contradictory{uses}; unsat core re-checked"
    else:
        reason = f"z3: unsat; unsat core re-checked{uses}"
    return Verdict.VERIFIED, reason, {**used, "core": user}


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
    for app in _ground_applications(ob):
        z = model.eval(enc.expr(app), model_completion=True)
        bindings.append(_binding(pretty(app), z, enc.value(z)))
    relative = " (relative to the axioms of the uninterpreted symbols)" if problem.uninterpreted else ""
    return (Verdict.REFUTED, f"counterexample found by z3 and confirmed by exact evaluation{relative}",
            tuple(bindings))


def _polynomial(term: Term) -> bool:
    """No division and no transcendental: z3 evaluates such a formula exactly at a model
    (its algebraic numbers are exact), with no unspecified value involved."""
    return not any(isinstance(t, Op) and t.op in _NOT_POLYNOMIAL for t in subterms(term))


def _ground_applications(ob: Obligation) -> List[Apply]:
    """The applications of uninterpreted functions outside quantifiers, in order."""
    seen: Dict[Apply, None] = {}

    def walk(t: Term) -> None:
        if isinstance(t, Quantifier):
            return
        if isinstance(t, Apply):
            seen.setdefault(t, None)
        for c in children(t):
            walk(c)

    for term in (n.term for n in ob.hypotheses + ob.axioms):
        walk(term)
    walk(ob.goal)
    return list(seen)


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
