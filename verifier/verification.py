"""Verifying the ``val`` claims of a program: derivations, obligations, verdicts.

``verify_program(program, typed)`` builds one derivation per claim (``verifier.rules``),
discharges every obligation and returns a ``Report``. A claim is *verified* only when every
obligation of its derivation is discharged; *rejected* when an obligation is refuted or no
rule applies; *unknown* when some obligation could not be decided.
"""
from __future__ import annotations

import time
from collections import Counter
from typing import Dict, List, Optional, Tuple

from obligations.model import Obligation, Result, Verdict
from obligations.records import field, record
from obligations.smtlib import Z3Session
from verifier.language import ast as A
from verifier.language.pretty import pretty_assertion, pretty_expr, pretty_rtype
from verifier.language.resolve import referenced_vals, resolve, source_name
from verifier.language.typecheck import typecheck_program
from verifier.rules import (core_rules, lifting, mechanism_rules,  # noqa: F401  (registration)
                            monadic_rules)
from verifier.rules.builder import Builder
from verifier.rules.derivation import Derivation
from verifier.rules.translate import NoRule

VERIFIED, REJECTED, UNKNOWN = "verified", "rejected", "unknown"


@record(frozen=False)
class ClaimReport:
    """The outcome for one ``val``."""

    name: str
    claim: str
    verdict: str
    guarantee: str
    span: Optional[A.Span]
    derivation: Optional[Derivation] = None
    obligations: List[Obligation] = field(default_factory=list)
    results: Dict[str, Result] = field(default_factory=dict)
    failure: Optional[str] = None          # why it is not verified (first reason)
    failure_span: Optional[A.Span] = None
    failing: List[str] = field(default_factory=list)  # ids of refuted / unknown obligations
    disputed: List[str] = field(default_factory=list)  # disputed theorems the proof rests on
    called: List[str] = field(default_factory=list)  # functions whose call facts it assumes
    #: functions with a val that its definition names (directly or through helpers): a call
    #: of any of them may run, so the claim depends on theirs
    referenced: List[str] = field(default_factory=list)
    seconds: float = 0.0

    def counts(self) -> Dict[str, Dict[str, int]]:
        """Obligations counted by kind and by how they were discharged."""
        kinds = Counter(ob.kind.value for ob in self.obligations)
        methods = Counter(self.results[ob.id].method if self.results[ob.id].verdict
                          == Verdict.VERIFIED else self.results[ob.id].verdict.value
                          for ob in self.obligations)
        return {"by_kind": dict(sorted(kinds.items())), "by_method": dict(sorted(methods.items()))}


@record(frozen=False)
class Report:
    file: str
    claims: List[ClaimReport]

    @property
    def ok(self) -> bool:
        return all(c.verdict == VERIFIED for c in self.claims)


def verify_program(program: A.Program, typed=None, *, rlimit: Optional[int] = None,
                   only: Optional[List[str]] = None) -> Report:
    """Verify every ``val`` of ``program`` (or those named in ``only``). The claims share one
    z3 context (``Z3Session``), each obligation with its fresh solver.

    The rules work on the resolved core of ``program`` (``verifier.language.resolve``), typed
    afresh; ``typed`` (the source's types, if the caller has them) is not needed. Reports
    name claims as the source does."""
    twice = redefined_claims(program)
    core = resolve(program)  # the rules see every name bound to its own binder
    typed = typecheck_program(core)
    session = Z3Session()
    claims = []
    for written, val in zip(program.vals(), core.vals()):
        if written.name in twice:
            claims.append(ClaimReport(
                written.name, pretty_rtype(written.rtype), REJECTED, guarantee_text(written),
                written.span,
                failure=f"no rule applies: {written.name} is defined more than once, so it is "
                        "ambiguous which definition the val is about",
                failure_span=written.span))
            continue
        claims.append(verify_claim(core, typed, val, rlimit=rlimit, session=session,
                                   written=written))
    require_dependencies(claims)
    if only:
        claims = [c for c in claims if c.name in only]
    return Report(program.file, claims)


def require_dependencies(claims: List[ClaimReport]) -> None:
    """A proof that uses another function's val holds only if that val is verified too.

    The callees are read off the App-Val nodes and the call facts; a claim whose derivation
    assumes the val of a function that is not verified (rejected, unknown, or not checked in
    this run) is downgraded to unknown, naming it. Recursive calls to the function itself are the
    induction hypothesis and need nothing more."""
    by_name = {c.name: c for c in claims}
    changed = True
    while changed:
        changed = False
        for c in claims:
            if c.verdict != VERIFIED or c.derivation is None:
                continue
            for callee in sorted(uses_of(c) - {c.name}):
                other = by_name.get(callee)
                if other is None or other.verdict != VERIFIED:
                    state = "not verified in this run" if other is None else other.verdict
                    c.verdict = UNKNOWN
                    c.failure = (f"the proof uses the val of {callee}, which is {state}")
                    c.failure_span = c.span
                    changed = True
                    break


def uses_of(claim: ClaimReport) -> set:
    """The functions whose val the derivation of ``claim`` assumes: at App-Val nodes, and
    wherever its obligations mention their calls (opaque values that presume the call
    returns, with the call facts of ``verifier.rules.call_facts``)."""
    nodes = {source_name(n.judgement["uses"]) for n in claim.derivation.walk()
             if "uses" in n.judgement}
    return nodes | set(claim.called) | set(claim.referenced)


def redefined_claims(program: A.Program) -> set:
    """Names that have a ``val`` and more than one top-level definition."""
    counts = Counter(d.name for d in program.lets())
    return {v.name for v in program.vals() if counts[v.name] > 1}


def verify_claim(program: A.Program, typed, val: A.ValDecl, *,
                 rlimit: Optional[int] = None, session: Optional[Z3Session] = None,
                 written: Optional[A.ValDecl] = None) -> ClaimReport:
    """The verdict on one claim ``val`` of the resolved core ``program`` (resolved here if it
    is not): by the relational rules, or else, when they fail and the definition is finite
    and closed, by exact calculation (``ExactFinite``), whose verdict then stands; otherwise
    the relational failure stands. The report states the claim as ``written`` in the source
    (default: ``val``)."""
    start = time.perf_counter()
    if not program.resolved:
        position, written = program.vals().index(val), written or val
        program = resolve(program)
        typed = typecheck_program(program)
        val = program.vals()[position]
    written = written or val
    report = ClaimReport(written.name, pretty_rtype(written.rtype), UNKNOWN,
                         guarantee_text(written), written.span)
    builder = Builder(program, typed, rlimit=rlimit, session=session)
    try:
        root = builder.prove_claim(val)
    except NoRule as exc:
        report.verdict = REJECTED
        report.failure = f"no rule applies: {exc.message}"
        report.failure_span = exc.span
    else:
        root.premises.extend(builder.folds.values())
        judge(report, builder, root, val)
    if report.verdict != VERIFIED and program.find_let(val.name) is not None:
        from verifier.rules.exact_finite import ExactFinite
        exact = Builder(program, typed, rlimit=rlimit, session=session)
        root = ExactFinite(exact, val, program.find_let(val.name))
        if root is not None:
            report = ClaimReport(written.name, report.claim, UNKNOWN, report.guarantee,
                                 written.span)
            judge(report, exact, root, val)
    report.seconds = time.perf_counter() - start
    return report


def judge(report: ClaimReport, builder: Builder, root: Derivation, val: A.ValDecl) -> None:
    """Discharge the obligations of the derivation ``root`` and record the verdict."""
    report.derivation = root
    report.disputed = sorted({n.judgement["disputed"] for n in root.walk()
                              if "disputed" in n.judgement})
    report.obligations = root.all_obligations()
    for ob in report.obligations:
        report.results[ob.id] = builder.prove(ob)
    report.called = sorted(source_name(name) for name in builder.called)
    decl = builder.let_of(val.name)
    if decl is not None:
        vals = {v.name for v in builder.program.vals()}
        report.referenced = sorted(source_name(name) for name in
                                   referenced_vals(builder.program, decl, vals))
    refuted = [ob for ob in report.obligations if report.results[ob.id].verdict == Verdict.REFUTED]
    unknown = [ob for ob in report.obligations if report.results[ob.id].verdict == Verdict.UNKNOWN]
    if refuted or unknown:
        report.verdict = REJECTED if refuted else UNKNOWN
        first = (refuted or unknown)[0]
        report.failing = [ob.id for ob in refuted + unknown]
        report.failure = describe_failure(first, report.results[first.id])
        span = first.provenance.span
        report.failure_span = (A.Span(span.file, span.line, span.col, span.end_line, span.end_col)
                               if span else val.span)
    else:
        report.verdict = VERIFIED


def describe_failure(ob: Obligation, result: Result) -> str:
    """``obligation description: refuted, counterexample x = …`` in one or two lines."""
    text = f"{ob.provenance.description} [{ob.provenance.rule}]: {result.verdict.value}"
    shown_bindings = [b for b in result.counterexample if "!val!" not in b.value]
    if shown_bindings:
        shown = ", ".join(f"{b.name} = {b.value}" for b in shown_bindings[:10])
        text += f"\n  counterexample: {shown}"
    elif result.reason:
        text += f" ({result.reason})"
    return text


# ---- guarantees in words ----------------------------------------------------------------------

_ORDINALS = {1: "1st", 2: "2nd", 3: "3rd"}


def ordinal(n: int) -> str:
    return _ORDINALS.get(n, f"{n}th")


def guarantee_text(val: A.ValDecl) -> str:
    """What the claim means, in words (e.g. "main is (eps, 0)-differentially private with
    respect to adj on its 1st argument, for a >= 1.0")."""
    rt, position, relations, conditions = val.rtype, 0, [], []
    while isinstance(rt, A.RArrow):
        position += 1
        rel, cond = _describe_parameter(rt.dom)
        if rel == ["any change"]:
            relations.append(f"any change of its {ordinal(position)} argument")
        elif rel:
            relations.append(" /\\ ".join(rel) + f" on its {ordinal(position)} argument")
        conditions += cond
        rt = rt.cod
    dp = isinstance(rt, A.RMonad) and rt.div.kind == "DP"
    if isinstance(rt, A.RMonad):
        delta = pretty_expr(rt.delta) if rt.delta is not None else "0"
        if dp:
            what = f"is ({pretty_expr(rt.div.eps)}, {delta})-differentially private"
        elif rt.delta is None:
            what = f"gives equal output distributions ({rt.div.kind} distance 0)"
        else:
            what = f"gives output distributions within {rt.div.kind} distance {delta}"
    else:
        what = f"returns values of type {pretty_rtype(rt)}"
    if relations:
        link = "with respect to" if dp else "for inputs related by"
        text = f"{val.name} {what} {link} " + " and ".join(relations)
    else:
        text = f"{val.name} {what} when its inputs are equal in both runs"
    if conditions:
        text += ", for " + " and ".join(conditions)
    return text


def _describe_parameter(dom: A.RType) -> Tuple[List[str], List[str]]:
    """The relational and the one-run conditions a parameter's refinement states
    (equality in both runs is left out: it says the parameter is public). A parameter with
    no refinement may take any two values: the claim covers every change of it."""
    if isinstance(dom, A.RMonad):  # a computation: M[F] {x :: T | =} is the same one in both runs
        if dom.delta is None and dom.div.kind != "DP":
            return [], []
        delta = pretty_expr(dom.delta) if dom.delta is not None else "0"
        what = (f"DP({pretty_expr(dom.div.eps)}, {delta})" if dom.div.kind == "DP"
                else f"{dom.div.kind} distance {delta}")
        return [f"computations within {what}"], []
    if not isinstance(dom, A.RRefine):
        return ["any change"], []
    relational, unary = [], []
    for c in _conjuncts(dom.assertion):
        runs = {(v.name, v.run) for v in _run_vars(c)}
        if isinstance(c, A.SameRuns) or (isinstance(c, A.BinOp) and c.op == "=" and
                                          isinstance(c.left, A.RunVar) and
                                          isinstance(c.right, A.RunVar) and
                                          runs == {(dom.var, 1), (dom.var, 2)}):
            continue
        if runs and all(run == 1 for _, run in runs):
            unary.append(_show(_drop_run(c)))
        elif _is_adj(c):
            relational.append("adj")
        else:
            relational.append(_show(c))
    return relational, unary


def _show(c: A.Expr) -> str:
    """An assertion as text, parenthesised when it binds looser than the ``/\\`` it joins."""
    text = pretty_assertion(c)
    return f"({text})" if isinstance(c, (A.Implies, A.Disj, A.Quant)) else text


def _conjuncts(a: A.Expr) -> List[A.Expr]:
    if isinstance(a, A.Conj):
        return _conjuncts(a.left) + _conjuncts(a.right)
    return [a]


def _run_vars(e: A.Node) -> List[A.RunVar]:
    if isinstance(e, A.RunVar):
        return [e]
    out: List[A.RunVar] = []
    for child in A.children(e):
        out += _run_vars(child)
    return out


def _drop_run(e: A.Node) -> A.Node:
    """``e`` with ``x<1>`` written ``x``."""
    return A.transform(e, lambda n: A.Var(n.name, n.span) if isinstance(n, A.RunVar) else None)


def _is_adj(c: A.Expr) -> bool:
    return (isinstance(c, A.App) and c.fn == A.Var("adj") and isinstance(c.arg, A.TupleLit)
            and all(isinstance(i, A.RunVar) for i in c.arg.items))
