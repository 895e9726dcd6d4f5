"""Rules for the mechanisms: ``lapMech``, ``gaussMech``, ``expMech``.

Each rule returns the mechanism's privacy cost for the two runs' arguments; the guarantees
are the literature theorems of the lemma library (``mech.laplace``,
``mech.gaussian``, ``mech.exponential``), which certificates list in their trust
base. Tool builders add a mechanism with ``verifier.rules.registry.register_mechanism``.
"""
from __future__ import annotations

from typing import Dict, List, Optional, Sequence, Tuple

from obligations import terms as T
from obligations.candidates import conjugate, literal_members
from obligations.released import shifted_release_facts
from obligations.model import ObligationKind
from verifier.language import ast as A
from verifier.language.builtins import BUILTINS
from verifier.translation import logic as L
from verifier.rules.builder import Builder
from verifier.rules.context import Cost, Ctx, Synth
from verifier.rules.derivation import short
from verifier.rules.refinements import fresh_value
from verifier.rules.registry import register_mechanism
from verifier.shifts import lap_shift_cost
from verifier.translation.symbolic import DistV, Scalar, SymValue, TupleV
from verifier.translation.translate import NoRule


def _public(b: Builder, ctx: Ctx, arg: A.Expr, what: str, mech: str):
    """Translate a mechanism parameter, which must be equal in both runs (that it is positive
    is a range condition, checked by the Safety judgement). Returns its terms in both runs
    (the rules use run 1's) and the obligation that they are equal, unless they are one term."""
    (left, right), obligations = b.translate_pair(ctx, arg)
    t1, t2 = b.translator.as_term(left, arg), b.translator.as_term(right, arg)
    if t1 != t2:
        obligations.append(b.oblige(ctx, ObligationKind.ENTAILMENT, T.eq(t1, t2),
                                    f"{what} of {mech} is public (equal in both runs)",
                                    arg.span, mech))
    return (t1, t2), obligations


def _numeric_pair(b: Builder, ctx: Ctx, arg: A.Expr):
    (left, right), obligations = b.translate_pair(ctx, arg)
    t1, t2 = b.translator.as_term(left, arg), b.translator.as_term(right, arg)
    if t1.sort == T.INT:
        t1, t2 = T.to_real(t1), T.to_real(t2)
    return t1, t2, obligations


def mechanism_node(b: Builder, name: str, ctx: Ctx, span, summary: str, **data):
    """The derivation node of built-in mechanism ``name``: its rule and the theorem it rests
    on, as the catalogue (``verifier.language.builtins``) records them for the kernel."""
    entry = BUILTINS[name]
    return b.node(entry.rule, ctx, span, summary, lemma=entry.theorem, **data)


def _output(b: Builder, ctx: Ctx, sort: T.Sort) -> Tuple[SymValue, SymValue]:
    """The mechanism's output, equal in both runs (named after the mlet variable if any)."""
    v = Scalar(b.fresh(ctx.binder or "z", sort))
    return v, v


def lap_mech(b: Builder, ctx: Ctx, e: A.App, args: Sequence[A.Expr]) -> Synth:
    """``lapMech (eps, v)``: a k-sensitive v gives (k·eps, 0)-DP; the cost is
    ``eps · |v<1> − v<2>|`` and the outputs are coupled to be equal. With a shift (written
    ``[@shift s]``, or chosen by the coupling search): LapMech-Shift."""
    if len(args) != 2:
        raise NoRule("lapMech takes (eps, value)", e.span)
    eps_pair, obligations = _public(b, ctx, args[0], "the epsilon", "lapMech")
    eps = eps_pair[0]
    v1, v2, more = _numeric_pair(b, ctx, args[1])
    from verifier.rules.couplings import lap_coupling
    coupling = lap_coupling(b, ctx, e, v1, v2)
    if coupling is not None:
        return lap_mech_shift(b, ctx, e, eps_pair, obligations + more, v1, v2, *coupling)
    cost = Cost("DP", T.mul(eps, T.abs_(T.sub(v1, v2))), T.real(0),
                f"lapMech at line {e.span.line}", e.span, two_sided=True)
    node = mechanism_node(b, "lapMech", ctx, e.span, f"{short(e)}: eps·|v<1> - v<2>|",
                  obligations=obligations + more, eps=eps_pair,
                  value=(v1, v2))
    return Synth(node, cost, _output(b, ctx, T.REAL))


def lap_mech_shift(b: Builder, ctx: Ctx, e: A.App, eps_pair, obligations, v1: T.Term,
                   v2: T.Term, k: T.Term, coupling: dict, text: str) -> Synth:
    """LapMech-Shift, the general Lap rule (Barthe et al., LICS 2016; seed 003's Lap rule with
    a shift): ``lapMech (eps, v)`` in the two runs is coupled by ``x<2> = x<1> + k`` at cost
    ``eps · |k + v<1> − v<2>|`` (theorem ``mech.laplace.shift``). ``k`` is named by a fresh
    shift variable ``sh`` defined by ``sh = k`` (a fact of the continuation), so that the
    obligations a shift enters are the ones that mention ``sh``. Run 1's output is a fresh
    ``x``, run 2's ``x + sh``."""
    eps = eps_pair[0]
    sh = b.fresh("sh", T.REAL)
    cost = Cost("DP", lap_shift_cost(sh, v1, v2, eps=eps), T.real(0),
                f"lapMech at line {e.span.line} (shifted)", e.span)
    node = b.node("LapMech-Shift", ctx, e.span,
                  f"{short(e)}: coupled by {text}, eps·|k + v<1> - v<2>|",
                  lemma=BUILTINS["lapMech"].coupling_theorem, obligations=obligations,
                  eps=eps_pair, value=(v1, v2), shift=k, coupling=coupling)
    if b.search is not None:
        from verifier.rules.couplings import site_key
        b.search.shift_vars[sh.name] = site_key(e, ctx)
        b.search.values[sh.name] = (v1, v2)
    z = b.fresh(ctx.binder or "z", T.REAL)
    # run 2's release: the exact draws are k apart, the released grid values only as far as
    # the rounding allows (obligations.released; docs/noise.md)
    z2 = b.fresh(ctx.binder or "z", T.REAL)
    return Synth(node, cost, (Scalar(z), Scalar(z2)),
                 (T.eq(sh, k),) + tuple(shifted_release_facts(z, z2, sh)))


def gauss_mech(b: Builder, ctx: Ctx, e: A.App, args: Sequence[A.Expr]) -> Synth:
    """``gaussMech (eps, delta, v)``: with k = |v<1> − v<2>| and k·eps < 1, (k·eps, delta)-DP."""
    if len(args) != 3:
        raise NoRule("gaussMech takes (eps, delta, value)", e.span)
    eps_pair, obligations = _public(b, ctx, args[0], "the epsilon", "gaussMech")
    delta_pair, more = _public(b, ctx, args[1], "the delta", "gaussMech")
    eps, delta = eps_pair[0], delta_pair[0]
    v1, v2, more2 = _numeric_pair(b, ctx, args[2])
    k = T.abs_(T.sub(v1, v2))
    side = b.oblige(ctx, ObligationKind.SIDE_CONDITION, T.lt(T.mul(k, eps), 1),
                    "the Gaussian mechanism needs sensitivity * eps < 1", e.span, "GaussMech")
    cost = Cost("DP", T.mul(k, eps), delta, f"gaussMech at line {e.span.line}", e.span)
    node = mechanism_node(b, "gaussMech", ctx, e.span, f"{short(e)}: (k·eps, delta) with k·eps < 1",
                  obligations=obligations + more + more2 + [side],
                  eps=eps_pair, delta=delta_pair, value=(v1, v2))
    return Synth(node, cost, _output(b, ctx, T.REAL))


def exp_mech(b: Builder, ctx: Ctx, e: A.App, args: Sequence[A.Expr]) -> Synth:
    """``expMech (eps, score, x[, rs])``: a score k-sensitive in x for every candidate gives
    (k·eps, 0)-DP. The candidates must be equal in both runs; the cost is
    ``eps · |score(x<1>, r) − score(x<2>, r)|`` for a fresh candidate r, so the budget
    obligation holds for every candidate."""
    if len(args) not in (3, 4):
        raise NoRule("expMech takes (eps, score, x) or (eps, score, x, candidates)", e.span)
    eps_pair, obligations = _public(b, ctx, args[0], "the epsilon", "expMech")
    eps, candidates = eps_pair[0], None
    (f1, f2), more = b.translate_pair(ctx, args[1])
    obligations += more
    if f1 != f2:
        raise NoRule("the score function must be the same in both runs", args[1].span)
    (x1, x2), more = b.translate_pair(ctx, args[2])
    obligations += more
    if len(args) == 4:
        (r1, r2), more = b.translate_pair(ctx, args[3])
        obligations += more
        l1, l2 = b.translator.as_term(r1, args[3]), b.translator.as_term(r2, args[3])
        candidates = (l1, l2)
        if l1 != l2:
            obligations.append(b.oblige(
                ctx, ObligationKind.ENTAILMENT, T.eq(l1, l2),
                "the candidates of expMech do not depend on private data (equal in both runs)",
                args[3].span, "ExpMech"))
    candidate, facts, draw = draw_candidate(b, e, candidates and candidates[0])
    s1 = _score(b, f1, x1, candidate, 1, e)
    s2 = _score(b, f2, x2, candidate, 2, e)
    cost = Cost("DP", T.mul(eps, T.abs_(T.sub(s1, s2))), T.real(0),
                f"expMech at line {e.span.line}", e.span)
    node = mechanism_node(b, "expMech", ctx, e.span, f"{short(e)}: eps·|score<1> - score<2>|",
                  obligations=obligations,
                  candidate=str(_first_term(candidate)), eps=eps_pair, score=(s1, s2),
                  candidates=candidates, draw=draw)
    # The cost is the score's sensitivity at a candidate of its own, universally quantified in
    # the obligations it enters: their sup over the candidates. The output is another fresh
    # value: the privacy loss at an output r is not eps |score<1> (r) - score<2> (r)| (the
    # normaliser depends on every candidate's score), so a continuation whose cost depends on
    # the output must be paid for with the sup, not with the score's change at that output.
    output = _fresh_like(b, ctx, candidate)
    return Synth(node, cost, (output, output), tuple(facts))


def _fresh_like(b: Builder, ctx: Ctx, v: SymValue) -> SymValue:
    """A fresh value of the shape of ``v`` (a tuple's components, a distribution's family), of
    which nothing is known."""
    if isinstance(v, TupleV):
        return TupleV(tuple(_fresh_like(b, ctx, item) for item in v.items))
    if isinstance(v, DistV):
        params = tuple(b.fresh(f"{ctx.binder or 'r'}_q{i}", T.REAL)
                       for i in range(1, len(v.params) + 1))
        return DistV(v.family, params, b.fresh(ctx.binder or "r", L.DIST), origin=v.origin)
    if isinstance(v, Scalar):
        return Scalar(b.fresh(ctx.binder or "r", v.term.sort))
    return v


def _score(b: Builder, fn, x, r, run: int, e: A.App) -> T.Term:
    with b.collecting([]):  # range conditions of the score: the Safety judgement's business
        value = b.translator.apply(fn, [TupleV((x, r))], run, e.span)
    term = b.translator.as_term(value, e)
    return T.to_real(term) if term.sort == T.INT else term


Drawn = Tuple[SymValue, List[T.Term], Dict[str, object]]


def draw_candidate(b: Builder, e: A.App, candidates: Optional[T.Term]) -> Drawn:
    """A fresh candidate of ``expMech``, the facts known of it, and how it was drawn (the
    ExpMech node's ``draw``, from which the certificate kernel rebuilds the facts): from the
    finite range of the call when there is no candidate list; from ``posteriors (P, n)``
    with P of a known family (``posterior_member``); or, from any other list, an opaque
    value of the element sort: one of the entries of a list written out
    (``obligations.candidates.literal_members``), else nothing is assumed of it."""
    if candidates is None:
        return finite_candidate(b, e)
    member = posterior_member(b, candidates)
    if member is not None:
        return member
    key = L.list_key_of(candidates.sort)
    if key is None:
        raise NoRule("the candidates of expMech must be a list", e.span)
    r = b.fresh("r", L.elem_sort(key))
    return Scalar(r), list(literal_members(candidates, r)), {"from": "list", "candidate": r}


def posterior_member(b: Builder, candidates: T.Term) -> Optional[Drawn]:
    """A fresh candidate drawn from ``candidates`` when the list is ``posteriors (P, n)``
    with P of a known family (lemma ``posteriors.members.*``); None for other lists.

    The candidate is a fresh opaque distribution ``r`` of P's family with fresh parameters
    ``p1, p2`` (``getParams r`` is ``(p1, p2)``; ``hellinger (q, r)`` is a term about ``r``)
    and fresh integer counts ``k``, under the member facts (``obligations.candidates``):
    ``0 <= k``, ``k <= n``, ``p1 = a + k``, ``p2 = b + n - k``, ``r = beta (p1, p2)``. Fresh
    names keep the candidate the same term in both runs (the list's ``n`` is run 1's term,
    e.g. ``length l<1>``). The counts and parameters are *witnesses*
    (``Builder.witnesses``): the facts join only the obligations that mention one of them,
    so a score that uses only ``r`` (a distance to it) gets the obligations of an opaque
    candidate (docs/verifier.md)."""
    conj = conjugate(candidates)
    if conj is None:
        return None
    names = ("k",) if conj.arity == 1 else tuple(f"c{i}" for i in range(1, conj.arity + 1))
    counts = tuple(b.fresh(n, T.INT) for n in names)
    r = b.fresh("r", L.DIST)
    params = tuple(b.fresh(f"{r.name}_p{i}", T.REAL) for i in range(1, len(conj.prior) + 1))
    b.witnesses.update(counts + params)
    facts = list(conj.facts(r, params, counts))
    draw = {"from": "posteriors", "candidate": r, "params": list(params),
            "counts": list(counts), "lemma": conj.lemma}
    return DistV(conj.family, params, r, origin="posteriors"), facts, draw


def finite_candidate(b: Builder, e: A.App) -> Drawn:
    """A fresh candidate ranging over the finite range R of the call, with its range facts."""
    from verifier.language.pretty import pretty_type
    from verifier.translation.symbolic import value_terms
    from verifier.translation.typing_bridge import to_syntax
    if b.typed is None:
        raise NoRule("the range of expMech is not known", e.span)
    r_type = to_syntax(b.expmech_range(e))
    if r_type is None or not _finite(r_type):
        raise NoRule("expMech without a candidate list needs a finite range (bool, [k], unit "
                     "or tuples of them)", e.span)
    value, facts = fresh_value(b, r_type, "r")
    return value, facts, {"from": "range", "range": pretty_type(r_type),
                          "values": list(value_terms(value))}


def _finite(t: A.SimpleType) -> bool:
    if isinstance(t, A.TBase):
        return t.name in ("bool", "unit")
    if isinstance(t, A.TTuple):
        return all(_finite(i) for i in t.items)
    return isinstance(t, A.TFin)


def _first_term(v: SymValue):
    if isinstance(v, Scalar):
        return v.term
    return v


def _hellinger_common(b: Builder, ctx: Ctx, e: A.App, eps_e: A.Expr, prior_e: A.Expr,
                      db_e: A.Expr, mech: str):
    """The epsilon, prior and data of a Hellinger mechanism: the obligations that epsilon and
    the prior are public and the data adjacent, and the terms as judgement data."""
    eps_pair, obligations = _public(b, ctx, eps_e, "the epsilon", mech)
    p1, p2 = b.term_pair(ctx, prior_e)
    if p1 != p2:
        obligations.append(b.oblige(ctx, ObligationKind.ENTAILMENT, T.eq(p1, p2),
                                    f"the prior of {mech} is public (equal in both runs)",
                                    prior_e.span, mech))
    l1, l2 = b.term_pair(ctx, db_e)
    if L.list_key_of(l1.sort) is None:
        raise NoRule(f"the data of {mech} must be a list", db_e.span)
    obligations.append(b.oblige(ctx, ObligationKind.ENTAILMENT, L.adj(l1, l2),
                                f"the data of {mech} are adjacent in the two runs", db_e.span,
                                mech))
    return eps_pair[0], obligations, {"eps": eps_pair, "prior": (p1, p2), "data": (l1, l2)}


def hellinger_mech_pure(b: Builder, ctx: Ctx, e: A.App, args: Sequence[A.Expr]) -> Synth:
    """``hellingerMechPure (eps, prior, db)``: (eps, 0)-DP for adjacent data and a public prior
    (the authors' later pure-eps form: the loss is at most eps/2 + eps/2, since H <= 1 and the
    smoothed sensitivity is at least the local one; NOTES.md §7)."""
    if len(args) != 3:
        raise NoRule("hellingerMechPure takes (eps, prior, db)", e.span)
    eps, obligations, terms = _hellinger_common(b, ctx, e, args[0], args[1], args[2],
                                                "hellingerMechPure")
    cost = Cost("DP", eps, T.real(0), f"hellingerMechPure at line {e.span.line}", e.span)
    node = mechanism_node(b, "hellingerMechPure", ctx, e.span, f"{short(e)}: (eps, 0)",
                  obligations=obligations, **terms)
    return Synth(node, cost, _output(b, ctx, L.DIST))


def hellinger_mech(b: Builder, ctx: Ctx, e: A.App, args: Sequence[A.Expr]) -> Synth:
    """``hellingerMech (eps, delta, prior, db)``: (eps, e^(eps/2) delta / 2)-DP for adjacent
    data and a public prior — the seed poster's theorem with the authors' later correction
    of the final delta (NOTES.md §7). Its published proof is disputed: the derivation says so,
    and so does the verdict."""
    if len(args) != 4:
        raise NoRule("hellingerMech takes (eps, delta, prior, db)", e.span)
    eps, obligations, terms = _hellinger_common(b, ctx, e, args[0], args[2], args[3],
                                                "hellingerMech")
    delta_pair, more = _public(b, ctx, args[1], "the delta", "hellingerMech")
    delta = delta_pair[0]
    delta_out = T.div(T.mul(T.exp(T.div(eps, 2)), delta), 2)
    cost = Cost("DP", eps, delta_out, f"hellingerMech at line {e.span.line}", e.span)
    node = mechanism_node(b, "hellingerMech", ctx, e.span, f"{short(e)}: (eps, e^(eps/2) delta / 2)",
                  obligations=obligations + more,
                  disputed=BUILTINS["hellingerMech"].theorem, delta=delta_pair, **terms)
    return Synth(node, cost, _output(b, ctx, L.DIST))


register_mechanism("lapMech", lap_mech)
register_mechanism("gaussMech", gauss_mech)
register_mechanism("expMech", exp_mech)
register_mechanism("hellingerMech", hellinger_mech)
register_mechanism("hellingerMechPure", hellinger_mech_pure)
