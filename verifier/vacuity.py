"""Vacuous claims: assumptions that relate no two inputs (docs/verifier.md, docs/aprhl.md,
"Vacuous assumptions").

A relational claim assumes something of its two runs' inputs: the refinements of a ``val``'s
parameters (with their types' ranges), or the precondition of an apRHL specification. When no
pair of inputs satisfies them, the claim holds of no pair: it is true and says nothing, and it
must not be reported as a guarantee. Before a claim is reported verified, the assumptions,
encoded for z3 exactly as the obligations assume them (the same hypotheses, axioms and range
facts), are checked for satisfiability: an obligation ``assumptions ⊢ false`` in a fresh solver
with a resource limit. Only z3's ``unsat`` (its unsat core re-checked, as for every obligation)
downgrades the claim, to ``unknown`` with code ``V011``; ``sat``, ``unknown`` or an exhausted
limit leave the verdict as it was. This also catches an encoding whose axioms contradict each
other under the assumptions.

The certificate kernels (``checker.kernel``, ``checker.aprhl``) derive the same query from the
source with their own encoding and refuse a certificate that says such a claim is verified.
"""
from __future__ import annotations

from typing import List, Optional, Sequence, Tuple

from obligations import terms as T
from obligations.model import Obligation, ObligationKind, Provenance, Result, SourceSpan, Verdict
from obligations.smtlib import DEFAULT_RLIMIT, Z3Session
from obligations.z3_backend import discharge

#: the diagnostic code of a claim whose assumptions are unsatisfiable (verifier.errors)
VACUOUS = "V011"


def message(assumptions: str) -> str:
    """The reason a vacuous claim is not verified."""
    return (f"the assumptions relate no two inputs: {assumptions} is unsatisfiable, so the "
            "claim holds vacuously and says nothing; privinfer does not report it verified")


def unsatisfiable(hyps: Sequence[Tuple[str, T.Term]], axioms, session: Optional[Z3Session],
                  rlimit: Optional[int], span=None) -> Optional[Result]:
    """The result of ``hyps ⊢ false`` when z3 proves it (the hypotheses, with ``axioms``, are
    unsatisfiable: answer unsat, the core re-checked), else None."""
    if not hyps:
        return None
    ob = Obligation(kind=ObligationKind.ENTAILMENT, hypotheses=tuple(hyps),
                    goal=T.boolean(False), axioms=tuple(axioms),
                    provenance=Provenance(rule="Vacuity", node="",
                                          description="the claim's assumptions are satisfiable",
                                          span=span))
    result = discharge(ob, confirm=False, session=session or Z3Session(),
                       rlimit=rlimit or DEFAULT_RLIMIT)
    return result if result.verdict == Verdict.VERIFIED else None


def core_note(result: Result, hyps: Sequence[Tuple[str, T.Term]]) -> Optional[str]:
    """The assumptions z3's (re-checked) unsat core names, as terms of the encoding."""
    named = dict(hyps)
    used = [T.pretty(named[n]) for n in result.core if n in named]
    if not used:
        return None
    return "z3's unsat core (re-checked): " + " /\\ ".join(used)


# ---- the functional language ------------------------------------------------------------------

def functional_assumptions(val) -> Optional[str]:
    """The assumptions of a ``val`` as written: every refinement of its parameters joined by
    ``/\\`` (``=`` written ``x<1> = x<2>``); None when no parameter is refined by more than
    equality (such assumptions always hold of some pair)."""
    from verifier.language import ast as A
    from verifier.language.pretty import pretty_assertion
    parts: List[str] = []
    informative = False
    rt = val.rtype
    while isinstance(rt, A.RArrow):
        dom = rt.dom
        while isinstance(dom, A.RRefine):
            for c in _conjuncts(dom.assertion, A):
                if isinstance(c, A.SameRuns):
                    parts.append(f"{dom.var}<1> = {dom.var}<2>")
                else:
                    if not (isinstance(c, A.BoolLit) and c.value):
                        informative = True
                    parts.append(_show(c, A, pretty_assertion))
            dom = dom.base
        rt = rt.cod
    return " /\\ ".join(parts) if informative else None


def functional_vacuity(program, typed, val, written=None, *, rlimit: Optional[int] = None,
                       session: Optional[Z3Session] = None) -> Optional[Tuple[str, List[str]]]:
    """Whether the claim ``val`` of the resolved ``program`` is vacuous: its parameters bound as
    the derivation binds them (``core_rules.bind_parameters``: the ranges of their types and
    their refinements, as hypotheses), z3 proves them unsatisfiable. The failure message and
    notes when it is; None otherwise (satisfiable, undecided, or not encodable)."""
    written = written or val
    text = functional_assumptions(written)
    if text is None:
        return None
    from verifier.rules import axioms as AX
    from verifier.rules.builder import Builder
    from verifier.rules.core_rules import bind_parameters
    from verifier.translation.translate import NoRule
    b = Builder(program, typed, rlimit=rlimit, session=session)
    decl = b.let_of(val.name)
    if decl is None:
        return None
    try:
        ctx = bind_parameters(b, val, decl, None)[0]
    except (NoRule, T.SortError):
        return None
    hyps = tuple(ctx.hyps)
    span = written.span
    where = None if span is None or not span.line else SourceSpan(
        span.file, span.line, span.col, span.end_line, span.end_col)
    result = unsatisfiable(hyps, AX.instantiate([t for _, t in hyps]), b.session, rlimit, where)
    if result is None:
        return None
    note = core_note(result, hyps)
    return message(text), [note] if note else []


def _conjuncts(a, A) -> list:
    if isinstance(a, A.Conj):
        return _conjuncts(a.left, A) + _conjuncts(a.right, A)
    return [a]


def _show(c, A, pretty_assertion) -> str:
    text = pretty_assertion(c)
    return f"({text})" if isinstance(c, (A.Implies, A.Disj, A.Quant)) else text


# ---- the while language -----------------------------------------------------------------------

def while_vacuity(proc, types, *, rlimit: Optional[int] = None,
                  session: Optional[Z3Session] = None) -> Optional[Tuple[str, List[str]]]:
    """Whether the precondition of ``proc``'s specification is unsatisfiable, as the
    derivation assumes it (``derive.Builder.initial_state``: the parameters' ranges, each
    adjacency relation as run 2's list built from run 1's, the other conjuncts as facts).
    The failure message and notes when z3 proves it; None otherwise."""
    from obligations import whilelogic as WL
    from verifier.aprhl.derive import Builder, NoRule, _dedup
    from verifier.language import whilelang as W
    b = Builder(proc, types, session, rlimit)
    try:
        st = b.initial_state()
    except (NoRule, T.SortError):
        return None
    facts = [f for f in _dedup(st.facts) if f != T.TRUE]
    hyps = tuple((f"h_{k}", f) for k, f in enumerate(facts))
    span = proc.spec.span
    where = None if span is None or not getattr(span, "line", 0) else SourceSpan.of(span)
    result = unsatisfiable(hyps, WL.ground_axioms(list(facts) + [T.boolean(False)]),
                           b.session, rlimit, where)
    if result is None:
        return None
    note = core_note(result, hyps)
    return message(W.pretty_expr(proc.spec.pre)), [note] if note else []
