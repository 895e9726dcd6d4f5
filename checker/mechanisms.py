"""The kernel's rules for the built-in mechanisms, each resting on the theorem the catalogue
of built-ins names (``verifier.language.builtins``): LapMech, GaussMech, ExpMech,
HellingerMech and HellingerMechPure. A rule gives the mechanism's cost for the two runs'
arguments, demands that its parameters are public (equal in both runs), and couples the two
runs' outputs as equal (a fresh value). Their range conditions are Safety's
(``checker.safety``).
"""
from __future__ import annotations

import re

from fractions import Fraction
from typing import Tuple

from obligations import terms as T
from obligations.model import ObligationKind
from obligations.released import shifted_release_facts
from verifier.language import ast as A
from verifier.translation import logic as L
from verifier.translation.symbolic import DistV, Scalar, SymValue, TupleV
from checker import safety as S
from checker.judgement import Cost, Ctx, Proof, Reject, Synth, translated

E, SC = ObligationKind.ENTAILMENT, ObligationKind.SIDE_CONDITION


def _public(p: Proof, ctx: Ctx, arg: A.Expr, what: str, mech: str) -> T.Term:
    """A mechanism's parameter must be equal in both runs (demanded); run 1's term."""
    t1, t2 = translated(lambda: p.term_pair(ctx, arg), arg.span)
    if t1 != t2:
        p.oblige(ctx, E, T.eq(t1, t2), f"{what} of {mech} is public (equal in both runs)",
                 arg.span, mech)
    return t1


def _numeric(p: Proof, ctx: Ctx, arg: A.Expr) -> Tuple[T.Term, T.Term]:
    t1, t2 = translated(lambda: p.term_pair(ctx, arg), arg.span)
    return (T.to_real(t1), T.to_real(t2)) if t1.sort == T.INT else (t1, t2)


def _output(p: Proof, ctx: Ctx, sort: T.Sort) -> Tuple[SymValue, SymValue]:
    v = Scalar(p.fresh(ctx.binder or "z", sort))
    return v, v


def _arity(e: A.App, args, ns, name: str) -> None:
    if len(args) not in ns:
        raise Reject(f"{name} takes {' or '.join(map(str, ns))} arguments", e.span)


def lap_mech(p: Proof, ctx: Ctx, e: A.App, args) -> Synth:
    """LapMech: ``lapMech (eps, v)`` costs ``eps · |v<1> - v<2>|`` (mech.laplace)."""
    _arity(e, args, (2,), "lapMech")
    eps = _public(p, ctx, args[0], "the epsilon", "lapMech")
    v1, v2 = _numeric(p, ctx, args[1])
    return Synth(Cost("DP", T.mul(eps, T.abs_(T.sub(v1, v2))), T.real(0), two_sided=True),
                 _output(p, ctx, T.REAL))


def gauss_mech(p: Proof, ctx: Ctx, e: A.App, args) -> Synth:
    """GaussMech: with ``k = |v<1> - v<2>|`` and ``k · eps < 1``, (k · eps, delta)
    (mech.gaussian)."""
    _arity(e, args, (3,), "gaussMech")
    eps = _public(p, ctx, args[0], "the epsilon", "gaussMech")
    delta = _public(p, ctx, args[1], "the delta", "gaussMech")
    v1, v2 = _numeric(p, ctx, args[2])
    k = T.abs_(T.sub(v1, v2))
    p.oblige(ctx, SC, T.lt(T.mul(k, eps), 1), "the Gaussian mechanism needs sensitivity * "
             "eps < 1", e.span, "GaussMech")
    return Synth(Cost("DP", T.mul(k, eps), delta), _output(p, ctx, T.REAL))


def exp_mech(p: Proof, ctx: Ctx, e: A.App, args) -> Synth:
    """ExpMech: public candidates; the cost is ``eps · |score(x<1>, r) - score(x<2>, r)|``
    at a fresh candidate ``r`` (so every obligation it enters holds for every candidate);
    the output is another fresh value (mech.exponential)."""
    _arity(e, args, (3, 4), "expMech")
    eps = _public(p, ctx, args[0], "the epsilon", "expMech")
    f1, f2 = translated(lambda: p.pair(ctx, args[1]), args[1].span)
    if f1 != f2:
        raise Reject("the score function must be the same in both runs", args[1].span)
    x1, x2 = translated(lambda: p.pair(ctx, args[2]), args[2].span)
    if len(args) == 4:
        l1, l2 = translated(lambda: p.term_pair(ctx, args[3]), args[3].span)
        if l1 != l2:
            p.oblige(ctx, E, T.eq(l1, l2), "the candidates of expMech do not depend on private "
                     "data (equal in both runs)", args[3].span, "ExpMech")
        member = S.posterior_member(p, l1)
        candidate, facts = member if member is not None else \
            S.list_candidate(p, l1, args[3].span)
    else:
        candidate, facts = S.finite_candidate(p, e)
    scores = []
    for run, fn, x in ((1, f1, x1), (2, f2, x2)):
        with p.collecting():
            value = translated(lambda: p.translator.apply(fn, [TupleV((x, candidate))], run,
                                                          e.span), e.span)
        term = translated(lambda: p.translator.as_term(value, e), e.span)
        scores.append(T.to_real(term) if term.sort == T.INT else term)
    cost = Cost("DP", T.mul(eps, T.abs_(T.sub(scores[0], scores[1]))), T.real(0))
    output = _fresh_like(p, ctx, candidate)
    return Synth(cost, (output, output), tuple(facts))


def _fresh_like(p: Proof, ctx: Ctx, v: SymValue) -> SymValue:
    """A fresh value of the shape of ``v`` of which nothing is known."""
    if isinstance(v, TupleV):
        return TupleV(tuple(_fresh_like(p, ctx, item) for item in v.items))
    if isinstance(v, DistV):
        params = tuple(p.fresh(f"{ctx.binder or 'r'}_q{i}", T.REAL)
                       for i in range(1, len(v.params) + 1))
        return DistV(v.family, params, p.fresh(ctx.binder or "r", L.DIST), origin=v.origin)
    if isinstance(v, Scalar):
        return Scalar(p.fresh(ctx.binder or "r", v.term.sort))
    return v


def _hellinger(p: Proof, ctx: Ctx, eps_e, prior_e, db_e, mech: str) -> T.Term:
    """The public epsilon and prior, and adjacent data, of a Hellinger mechanism."""
    eps = _public(p, ctx, eps_e, "the epsilon", mech)
    p1, p2 = translated(lambda: p.term_pair(ctx, prior_e), prior_e.span)
    if p1 != p2:
        p.oblige(ctx, E, T.eq(p1, p2), f"the prior of {mech} is public (equal in both runs)",
                 prior_e.span, mech)
    l1, l2 = translated(lambda: p.term_pair(ctx, db_e), db_e.span)
    if L.list_key_of(l1.sort) is None:
        raise Reject(f"the data of {mech} must be a list", db_e.span)
    p.oblige(ctx, E, L.adj(l1, l2), f"the data of {mech} are adjacent in the two runs",
             db_e.span, mech)
    return eps


def hellinger_mech_pure(p: Proof, ctx: Ctx, e: A.App, args) -> Synth:
    """HellingerMechPure: (eps, 0) for adjacent data and a public prior."""
    _arity(e, args, (3,), "hellingerMechPure")
    eps = _hellinger(p, ctx, args[0], args[1], args[2], "hellingerMechPure")
    return Synth(Cost("DP", eps, T.real(0)), _output(p, ctx, L.DIST))


def hellinger_mech(p: Proof, ctx: Ctx, e: A.App, args) -> Synth:
    """HellingerMech: (eps, e^(eps/2) delta / 2) for adjacent data and a public prior — the
    poster's theorem as its authors corrected it; its proof is disputed (the lemma's status
    says so, and so does the claim)."""
    _arity(e, args, (4,), "hellingerMech")
    eps = _hellinger(p, ctx, args[0], args[2], args[3], "hellingerMech")
    delta = _public(p, ctx, args[1], "the delta", "hellingerMech")
    return Synth(Cost("DP", eps, T.div(T.mul(T.exp(T.div(eps, 2)), delta), 2)),
                 _output(p, ctx, L.DIST))


def lap_mech_shift(p: Proof, ctx: Ctx, e: A.App, args, node) -> Synth:
    """LapMech-Shift (``mech.laplace.shift``, the general Lap rule of LICS 2016): the two
    runs' outputs are coupled by ``x<2> = x<1> + k`` at cost ``eps · |k + v<1> - v<2>|``.
    ``k`` is the shift written in the source (``[@shift s]``: the noise shift, ``k = s +
    v<2> - v<1>``; ``[@shift if C then s1 else s2]`` in the premise of Case-Output about that
    branch of the if on C) or else the certificate's (``offset + scale · (v<2> - v<1>)``);
    a fresh ``sh`` names it (``sh = k``, a fact of the continuation). ``k`` couples the exact
    draws: run 2's *release* is a fresh name related to run 1's only by what the rounding to
    the scale's grid preserves (``obligations.released``), never ``x<1> + k`` outright."""
    _arity(e, args, (2,), "lapMech")
    eps = _public(p, ctx, args[0], "the epsilon", "lapMech")
    v1, v2 = _numeric(p, ctx, args[1])
    note = e.annotation
    if note is not None and note.name == "shift":
        if node.coupling is not None:
            raise Reject(f"node {node.id}: the source writes this shift; the certificate may "
                         "not give another", e.span)
        s = _written_shift(p, ctx, note)
        k = s if v1 == v2 else T.add(s, T.sub(v2, v1))
    else:
        if node.coupling is None:
            raise Reject(f"node {node.id}: LapMech-Shift without a shift (none written in the "
                         "source, none in the certificate)", e.span)
        text, scale, at = node.coupling
        try:
            offset = Fraction(text)
        except (ValueError, ZeroDivisionError):
            raise Reject(f"node {node.id}: the shift {text!r} is not a rational number",
                         e.span) from None
        if scale not in (0, 1):
            raise Reject(f"node {node.id}: a shift's scale is 0 or 1", e.span)
        change = T.sub(v2, v1)
        shift = T.real(offset) if at is None else \
            T.ite(_guard(p, ctx, at, node, e), T.real(offset), T.real(0))
        k = shift if not scale else change if not offset else T.add(shift, change)
    sh = p.fresh("sh", T.REAL)
    z = p.fresh(ctx.binder or "z", T.REAL)
    # the exact draws are k apart; the released grid values only as far as the rounding to
    # the scale's grid allows (obligations.released; docs/noise.md)
    z2 = p.fresh(ctx.binder or "z", T.REAL)
    cost = Cost("DP", T.mul(eps, T.abs_(T.add(sh, T.sub(v1, v2)))), T.real(0))
    return Synth(cost, (Scalar(z), Scalar(z2)),
                 (T.eq(sh, k),) + tuple(shifted_release_facts(z, z2, sh)))


def _guard(p: Proof, ctx: Ctx, at: str, node, e: A.App) -> T.Term:
    """``t = v`` for a shift guarded by the output value ``v`` of Pointwise-Value: ``t`` an
    integer literal, or a name in scope whose value is one integer term in both runs."""
    if p.point is None:
        raise Reject(f"node {node.id}: a shift guarded by the output value is used below "
                     "Pointwise-Value only", e.span)
    if re.fullmatch(r"-?[0-9]+", at):
        return T.eq(T.integer(int(at)), p.point)
    pair = ctx.env.lookup(at)
    if pair is None or not isinstance(pair[0], Scalar) or pair[0] != pair[1] \
            or pair[0].term.sort != T.INT:
        raise Reject(f"node {node.id}: the shift's guard {at!r} is not an integer equal in "
                     "both runs", e.span)
    return T.eq(pair[0].term, p.point)


def _written_shift(p: Proof, ctx: Ctx, note: A.Annotation) -> T.Term:
    """The Real term of a written noise shift, read like an assertion; ``if C then s1 else
    s2`` only in a premise of Case-Output whose if has the condition C (its branch's)."""
    s = note.value
    if isinstance(s, A.If):
        if ctx.out_case is None or ctx.out_case[1] != s.cond:
            raise Reject("a shift that depends on the branch of an if is read in the premises "
                         "of Case-Output at that if only", s.span)
        s = s.then if ctx.out_case[0] == "then" else s.else_
    with p.collecting():
        value = translated(lambda: p.translator.expr(s, 0, ctx.env), s.span)
    term = translated(lambda: p.translator.as_term(value, s), s.span)
    term = T.to_real(term) if term.sort == T.INT else term
    if term.sort != T.REAL:
        raise Reject("a shift must be a number", s.span)
    return term


#: the rules of mechanisms coupled by a shift (``Builtin.coupling_rule``)
COUPLED = {"lapMech": lap_mech_shift}

RULES = {"lapMech": lap_mech, "gaussMech": gauss_mech, "expMech": exp_mech,
                   "hellingerMech": hellinger_mech, "hellingerMechPure": hellinger_mech_pure}
