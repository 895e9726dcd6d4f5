"""The kernel's ExactFinite rule: a finite closed claim decided by exact calculation.

When every parameter of the claim is ``bool`` or ``[k]`` and the definition stays in the
finite fragment of the kernel's own evaluator (``checker.finite``), the output distribution is
computed exactly at every valuation of the parameters, and the claimed bound between the
distributions of every pair of valuations the refinements allow is demanded
(``obligations.finite_laws``, with the parameters' variables free, under the val's
assumptions). No Safety premise is needed: the evaluation met every range condition exactly.
"""
from __future__ import annotations

import itertools

from obligations import finite_laws as FL
from obligations import terms as T
from obligations.model import ObligationKind
from verifier.language import ast as A
from checker import finite
from checker.judgement import Ctx, Node, Proof, Reject, arrows, expect, make_claim, refinement_parts

#: the most parameter valuations the rule enumerates
MAX_VALUATIONS = 32


def exact_finite(p: Proof, decl: A.LetDecl, node: Node, ctx: Ctx, val_env, body: A.Expr,
                 rt: A.RType, params) -> None:
    """ExactFinite for ``decl`` whose parameters are bound (``definition.bind_parameters``:
    the context ``ctx``, the val's environment, the body, the result type, the parameters'
    terms)."""
    expect(node, ("ExactFinite",), decl.body, "a finite closed definition", premises=0)
    val = p.vals[decl.name]
    if not isinstance(rt, A.RMonad):
        raise Reject("ExactFinite proves monadic claims only", decl.span)
    claim = make_claim(p, val_env, rt)
    domains = []
    for dom, terms in zip(arrows(val.rtype)[0], params):
        t = refinement_parts(dom)[1]
        t = t.type if isinstance(t, A.RSimple) else None
        if isinstance(t, A.TBase) and t.name == "bool":
            domains.append([False, True])
        elif isinstance(t, A.TFin):
            domains.append(list(range(t.k)))
        else:
            raise Reject("ExactFinite needs parameters of type bool or [k]", dom.span)
    valuations = list(itertools.product(*domains))
    if len(valuations) > MAX_VALUATIONS:
        raise Reject(f"ExactFinite enumerates at most {MAX_VALUATIONS} valuations", decl.span)
    out = refinement_parts(rt.body)[1]
    if not isinstance(out, A.RSimple):
        raise Reject("ExactFinite needs a claim M[F] {x :: T | =} of a simple T", rt.span)
    evaluator, laws = finite.Evaluator(p.program), []
    for a in valuations:
        try:
            weighted = evaluator.law(decl, a)
        except (finite.Outside, ValueError) as exc:
            raise Reject(f"{decl.name} {' '.join(map(FL.outcome_text, a))} cannot be computed "
                         f"exactly: {exc}", decl.span) from None
        outside = [FL.outcome_text(v) for v, q in weighted
                   if q and not A.finite_value_of(v, out.type)]
        if outside:
            raise Reject(f"{decl.name} {' '.join(map(FL.outcome_text, a))} may return "
                         f"{outside[0]}, which is not a value of the claimed type", decl.span)
        laws.append((a, dict(FL.canonical(weighted))))
    try:
        goals = FL.goals(claim.family, claim.eps, claim.delta, params, laws)
    except (ValueError, T.SortError) as exc:
        raise Reject(f"ExactFinite: {exc}", decl.span) from None
    for outcome, goal in goals:
        what = f" at the output {outcome}" if outcome else ""
        p.oblige(ctx, ObligationKind.ENTAILMENT, goal, f"the claimed bound holds between the "
                 f"exact output distributions{what}", body.span, "ExactFinite")
