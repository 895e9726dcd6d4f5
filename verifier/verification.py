"""Verifying the ``val`` claims of a program: derivations, obligations, verdicts.

``verify_program(program, typed)`` builds one derivation per claim (``verifier.rules``),
discharges every obligation and returns a ``Report``. A claim is *verified* only when every
obligation of its derivation is discharged; *rejected* when an obligation is refuted or no
rule applies; *unknown* when some obligation could not be decided.
"""
from __future__ import annotations

import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Dict, List, Optional

from obligations.model import Obligation, Result, Verdict
from verifier.language import ast as A
from verifier.language.pretty import pretty_expr, pretty_rtype
from verifier.rules import core_rules, mechanism_rules, monadic_rules  # noqa: F401  (registration)
from verifier.rules.builder import Builder
from verifier.rules.derivation import Derivation
from verifier.rules.translate import NoRule

VERIFIED, REJECTED, UNKNOWN = "verified", "rejected", "unknown"


@dataclass
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
    seconds: float = 0.0

    def counts(self) -> Dict[str, Dict[str, int]]:
        """Obligations counted by kind and by how they were discharged."""
        kinds = Counter(ob.kind.value for ob in self.obligations)
        methods = Counter(self.results[ob.id].method if self.results[ob.id].verdict
                          == Verdict.VERIFIED else self.results[ob.id].verdict.value
                          for ob in self.obligations)
        return {"by_kind": dict(sorted(kinds.items())), "by_method": dict(sorted(methods.items()))}


@dataclass
class Report:
    file: str
    claims: List[ClaimReport]

    @property
    def ok(self) -> bool:
        return all(c.verdict == VERIFIED for c in self.claims)


def verify_program(program: A.Program, typed=None, *, rlimit: Optional[int] = None,
                   only: Optional[List[str]] = None) -> Report:
    """Verify every ``val`` of ``program`` (or those named in ``only``)."""
    claims = []
    for val in program.vals():
        if only and val.name not in only:
            continue
        claims.append(verify_claim(program, typed, val, rlimit=rlimit))
    return Report(program.file, claims)


def verify_claim(program: A.Program, typed, val: A.ValDecl, *,
                 rlimit: Optional[int] = None) -> ClaimReport:
    start = time.perf_counter()
    report = ClaimReport(val.name, pretty_rtype(val.rtype), UNKNOWN,
                         guarantee_text(val), val.span)
    builder = Builder(program, typed, rlimit=rlimit)
    try:
        root = builder.prove_claim(val)
    except NoRule as exc:
        report.verdict = REJECTED
        report.failure = f"no rule applies: {exc.message}"
        report.failure_span = exc.span
        report.seconds = time.perf_counter() - start
        return report
    root.premises.extend(builder.folds.values())
    report.derivation = root
    report.obligations = root.all_obligations()
    for ob in report.obligations:
        report.results[ob.id] = builder.prove(ob)
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
    report.seconds = time.perf_counter() - start
    return report


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
    respect to adj on its 1st argument")."""
    rt, position, relations = val.rtype, 0, []
    while isinstance(rt, A.RArrow):
        position += 1
        relation = _relation(rt.dom)
        if relation:
            relations.append((position, relation))
        rt = rt.cod
    if isinstance(rt, A.RMonad):
        delta = pretty_expr(rt.delta) if rt.delta is not None else "0"
        if rt.div.kind == "DP":
            what = f"({pretty_expr(rt.div.eps)}, {delta})-differentially private"
        elif rt.delta is None:
            what = f"gives equal output distributions ({rt.div.kind} distance 0)"
        else:
            what = f"has output distributions within {rt.div.kind} distance {delta}"
    else:
        what = f"returns values of type {pretty_rtype(rt)}"
    if relations:
        parts = [f"{rel} on its {ordinal(pos)} argument" for pos, rel in relations]
        return f"{val.name} is {what} with respect to " + " and ".join(parts) \
            if rt_is_dp(rt) else f"{val.name} {what} for inputs related by " + " and ".join(parts)
    return f"{val.name} {'is ' if rt_is_dp(rt) else ''}{what} when its inputs are equal in both runs"


def rt_is_dp(rt: A.RType) -> bool:
    return isinstance(rt, A.RMonad) and rt.div.kind == "DP"


def _relation(dom: A.RType) -> Optional[str]:
    """The relational part of a parameter's refinement, or None for ``=``."""
    if not isinstance(dom, A.RRefine) or isinstance(dom.assertion, A.SameRuns):
        return None
    a = dom.assertion
    if isinstance(a, A.App) and isinstance(a.fn, A.Var) and a.fn.name in ("adj",) \
            and isinstance(a.arg, A.TupleLit) and all(isinstance(i, A.RunVar) for i in a.arg.items):
        return "adj"
    text = pretty_expr(a)
    if text.replace(" ", "") in (f"{dom.var}<1>={dom.var}<2>",):
        return None
    return text
