"""Verifying the ``val`` claims of a program: derivations, obligations, verdicts.

``verify_program(program, typed)`` builds one derivation per claim (``verifier.rules``),
discharges every obligation and returns a ``Report``. A claim's verdict is one of the three
of ``obligations.model.Verdict``, the one vocabulary of obligations, claims, certificates,
benchmarks and JSON output:

* **verified**: every obligation of its derivation is discharged;
* **refuted**: the claim is *false*, shown by a witness in the program's semantics
  (``verifier.refutation``: concrete inputs of both runs within the claim's assumptions on
  which the program violates it); ``ClaimReport.confirmation`` says how;
* **unknown**: anything else — an obligation refuted or undecided, no rule applies, a callee
  not verified. A refuted obligation alone is not a refuted claim: the rules prove
  sufficient conditions (a cost by composition, a side condition), which a private program
  may fail.

A claim that is not verified carries a diagnostic code of ``verifier.errors`` (``code``) that
says why, its first reason (``failure``) and where (``failure_span``).
"""
from __future__ import annotations

import time
from collections import Counter
from typing import Dict, List, Optional, Tuple

from obligations.diagnosis import lacking_hypothesis
from obligations.model import Obligation, Result, Verdict
from obligations.records import field, record
from obligations.smtlib import Z3Session
from verifier.errors import CODES, Diagnostic, error
from verifier.language import ast as A
from verifier.language.pretty import pretty_assertion, pretty_expr, pretty_rtype
from verifier.language.resolve import referenced_vals, resolve, source_name
from verifier.language.typecheck import typecheck_program
from verifier.rules import catalogue  # noqa: F401  (registers every rule)
from verifier.rules.builder import Builder
from verifier.rules.derivation import Derivation
from verifier.refutation import Confirmation
from verifier.translation.translate import NoRule

VERIFIED, REFUTED, UNKNOWN = (v.value for v in (Verdict.VERIFIED, Verdict.REFUTED, Verdict.UNKNOWN))
VERDICTS = (VERIFIED, REFUTED, UNKNOWN)
#: why a claim is not verified (codes of ``verifier.errors``)
FALSE_CLAIM = "V008"            # refuted: a confirmed witness
FALSE_OBLIGATION = "V001"       # an obligation false at concrete values, the claim not shown false
UNDECIDED = "V002"              # the solver could not decide an obligation
NO_RULE = "V003"                # no rule applies
LEMMA_HYPOTHESIS = "V004"       # the proof needs a lemma whose hypothesis is not shown
MISSING_FACT = "V005"           # a candidate counterexample needed a fact the verifier lacks
NEEDS_VAL = "V007"              # a recursive function used by verified code has no val
UNVERIFIED_CALLEE = "V009"      # the proof uses the val of a function that is not verified
VACUOUS_CLAIM = "V011"          # the assumptions are unsatisfiable: the claim says nothing


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
    code: Optional[str] = None             # the diagnostic code of that reason
    confirmation: Optional[Confirmation] = None  # how a refuted claim was shown false
    failing: List[str] = field(default_factory=list)  # ids of refuted / unknown obligations
    disputed: List[str] = field(default_factory=list)  # disputed theorems the proof rests on
    called: List[str] = field(default_factory=list)  # functions whose call facts it assumes
    #: functions with a val that its definition names (directly or through helpers): a call
    #: of any of them may run, so the claim depends on theirs
    referenced: List[str] = field(default_factory=list)
    seconds: float = 0.0

    def diagnostic(self) -> Optional[Diagnostic]:
        """Why the claim is not verified, as a diagnostic (its code, the first line of the
        failure, where; the other lines as notes); None for a verified claim."""
        if self.verdict == VERIFIED or not self.code:
            return None
        lines = (self.failure or "").splitlines() or [CODES[self.code]]
        return Diagnostic(self.code, lines[0], self.failure_span,
                          notes=tuple(line.strip() for line in lines[1:]))

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
    """Verify every ``val`` of ``program`` (or those named in ``only``; a name without a val
    is error V006). The claims share one z3 context (``Z3Session``), each obligation with its
    fresh solver.

    The rules work on the resolved core of ``program`` (``verifier.language.resolve``), typed
    afresh; ``typed`` (the source's types, if the caller has them) is not needed. Reports
    name claims as the source does."""
    unknown = sorted(set(only or ()) - {v.name for v in program.vals()})
    if unknown:
        raise error("V006", f"--only {unknown[0]}: {program.file} has no val {unknown[0]}",
                    hint="name a declaration that has a val (privinfer verify lists them)")
    twice = redefined_claims(program)
    core = resolve(program)  # the rules see every name bound to its own binder
    typed = typecheck_program(core)
    session = Z3Session()
    claims = []
    for written, val in zip(program.vals(), core.vals()):
        if written.name in twice:
            claims.append(ClaimReport(
                written.name, pretty_rtype(written.rtype), UNKNOWN, guarantee_text(written),
                written.span,
                failure=f"no rule applies: {written.name} is defined more than once, so it is "
                        "ambiguous which definition the val is about",
                failure_span=written.span, code=NO_RULE))
            continue
        claims.append(verify_claim(core, typed, val, rlimit=rlimit, session=session,
                                   written=written))
    require_dependencies(claims)
    by_name = {written.name: val for written, val in zip(program.vals(), core.vals())}
    for c in claims:  # verified but for a callee's val: the claim itself may still be false
        if c.code == UNVERIFIED_CALLEE and c.name in by_name and (not only or c.name in only):
            start = time.perf_counter()
            refute(c, core, typed, by_name[c.name])
            c.seconds += time.perf_counter() - start
    if only:
        claims = [c for c in claims if c.name in only]
    return Report(program.file, claims)


def require_dependencies(claims: List[ClaimReport]) -> None:
    """A proof that uses another function's val holds only if that val is verified too.

    The callees are read off the App-Val nodes and the call facts; a claim whose derivation
    assumes the val of a function that is not verified (refuted, unknown, or not checked in
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
                    c.verdict, c.code = UNKNOWN, UNVERIFIED_CALLEE
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
    # helpers used through an invariant whose derivation is in this one (Pointwise-Value)
    proved_here = {source_name(i["function"]) for n in claim.derivation.walk()
                   for i in n.judgement.get("invariants", ())}
    return (nodes | set(claim.called) | set(claim.referenced)) - proved_here


def redefined_claims(program: A.Program) -> set:
    """Names that have a ``val`` and more than one top-level definition."""
    counts = Counter(d.name for d in program.lets())
    return {v.name for v in program.vals() if counts[v.name] > 1}


def verify_claim(program: A.Program, typed, val: A.ValDecl, *,
                 rlimit: Optional[int] = None, session: Optional[Z3Session] = None,
                 written: Optional[A.ValDecl] = None) -> ClaimReport:
    """The verdict on one claim ``val`` of the resolved core ``program`` (resolved here if it
    is not): by the relational rules, or else by couplings other than the identity (shifted
    Laplace noise and the pointwise rule, found by ``verifier.rules.couplings``, verified or
    not tried), or else, when the definition is finite and closed, by exact calculation
    (``ExactFinite``), whose verdict then stands; otherwise the relational failure stands. A claim that is not verified is refuted only when a
    witness confirms it is false (``verifier.refutation``). The report states the claim as
    ``written`` in the source (default: ``val``)."""
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
        root.premises.extend(builder.root_premises())
    except NoRule as exc:
        report.code = getattr(exc, "code", None) or NO_RULE
        # a rejected decision (V010) is a condition that fails, not a missing rule
        report.failure = exc.message if report.code == "V010" else \
            f"no rule applies: {exc.message}"
        report.failure_span = exc.span
    else:
        judge(report, builder, root, val)
    if report.verdict != VERIFIED and program.find_let(val.name) is not None:
        report = _strengthened(report, program, typed, val, written, rlimit, session)
    if report.verdict != VERIFIED and program.find_let(val.name) is not None:
        # couplings other than the identity: shifted Laplace noise, the pointwise rule
        from verifier.rules.couplings import prove_by_coupling
        failed = ([ob for ob in report.obligations if ob.id in report.failing]
                  if report.derivation is not None else None)
        why_not: List[str] = []
        found = prove_by_coupling(program, typed, val, rlimit=rlimit, session=session,
                                  failed=failed, why_not=why_not)
        if found is None and why_not and report.failure:
            report.failure += "".join(f"\n  ({line})" for line in why_not)
        if found is not None:
            coupled, root = found
            report = ClaimReport(written.name, report.claim, UNKNOWN, report.guarantee,
                                 written.span)
            judge(report, coupled, root, val)
    if report.verdict != VERIFIED and program.find_let(val.name) is not None \
            and _approximate_dp(val):
        # advanced composition: the paths' steps by S-M-Adv instead of their sum
        advanced = Builder(program, typed, rlimit=rlimit, session=session)
        advanced.advanced = True
        release_loops(advanced, program, val)
        try:
            root = advanced.prove_claim(val)
            root.premises.extend(advanced.root_premises())
        except NoRule:
            pass
        else:
            attempt = ClaimReport(written.name, report.claim, UNKNOWN, report.guarantee,
                                  written.span)
            judge(attempt, advanced, root, val)
            if attempt.verdict == VERIFIED and any(
                    n.rule == "S-M-Adv" for n in root.walk()):
                report = attempt
    if report.verdict != VERIFIED and program.find_let(val.name) is not None:
        from verifier.rules.exact_finite import ExactFinite
        exact = Builder(program, typed, rlimit=rlimit, session=session)
        root = ExactFinite(exact, val, program.find_let(val.name))
        if root is not None:
            report = ClaimReport(written.name, report.claim, UNKNOWN, report.guarantee,
                                 written.span)
            judge(report, exact, root, val)
    if report.verdict != VERIFIED:
        refute(report, program, typed, val)
    else:
        vacuous(report, program, typed, val, written, rlimit, session)
    report.seconds = time.perf_counter() - start
    return report


def vacuous(report: ClaimReport, program: A.Program, typed, val: A.ValDecl,
            written: A.ValDecl, rlimit, session) -> None:
    """A verified claim whose assumptions z3 proves unsatisfiable (``verifier.vacuity``) is
    downgraded to unknown (V011): it holds of no pair of inputs and says nothing."""
    from verifier.vacuity import functional_vacuity
    found = functional_vacuity(program, typed, val, written, rlimit=rlimit, session=session)
    if found is None:
        return
    text, notes = found
    report.verdict, report.code = UNKNOWN, VACUOUS_CLAIM
    report.failure = "\n  ".join([text, *notes])
    report.failure_span = written.span


def _strengthened(report: ClaimReport, program: A.Program, typed, val: A.ValDecl,
                  written: A.ValDecl, rlimit, session) -> ClaimReport:
    """A recursive pure definition proved against its val strengthened
    (``verifier.language.strengthen``): by the equality case (``LetRec-Induction-Eq``), else
    relative to its accumulator (``LetRec-Induction-Acc``). The report of the first proof that
    verifies the claim, else ``report``. The stronger val is the induction hypothesis of that
    proof only."""
    from verifier.language.strengthen import accumulator_strengthened, equality_strengthened
    decl = program.find_let(val.name)
    if not decl.recursive:
        return report
    for rule, strong in (("LetRec-Induction-Eq", equality_strengthened(val)),
                         ("LetRec-Induction-Acc", accumulator_strengthened(val, decl))):
        if strong is None:
            continue
        builder = Builder(program, typed, rlimit=rlimit, session=session)
        builder._vals[val.name] = strong
        builder.strengthened = (val.name, rule)
        try:
            root = builder.prove_claim(strong)
            root.premises.extend(builder.root_premises())
        except NoRule:
            continue
        attempt = ClaimReport(written.name, report.claim, UNKNOWN, report.guarantee,
                              written.span)
        judge(attempt, builder, root, val)
        if attempt.verdict == VERIFIED:
            return attempt
    return report


def release_loops(b: Builder, program: A.Program, val: A.ValDecl) -> None:
    """For advanced composition: each recursive helper without a val that ``val``'s definition
    calls and that is a release loop (``invariants.steps_val``) gets the val the template
    states, used as a batch of steps (App-Steps) and proved by induction (S-M-Steps)."""
    from verifier.language.invariants import steps_val
    decl = program.find_let(val.name)
    vals = {v.name for v in program.vals()}
    called = {n.name for n in A.descendants(decl.body) if isinstance(n, A.Var)}
    for helper in program.lets():
        if helper is decl or not helper.recursive or helper.name in vals \
                or helper.name not in called:
            continue
        found = steps_val(helper, decl, val, b.type_of)
        if found is not None:
            b._vals[helper.name] = found[0]
            b.steps[helper.name] = found[1:]


def _approximate_dp(val: A.ValDecl) -> bool:
    """Whether ``val`` claims ``M[DP(eps), delta]`` with a delta written (the claims advanced
    composition may prove)."""
    rt = val.rtype
    while isinstance(rt, A.RArrow):
        rt = rt.cod
    return isinstance(rt, A.RMonad) and rt.div.kind == "DP" and rt.delta is not None


def judge(report: ClaimReport, builder: Builder, root: Derivation, val: A.ValDecl) -> None:
    """Discharge the obligations of the derivation ``root``: verified when all are, else
    unknown with the first failing obligation as the reason (``refute`` may then find the
    claim false)."""
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
    if not (refuted or unknown):
        report.verdict = VERIFIED
        return
    report.verdict = UNKNOWN
    first = (refuted or unknown)[0]
    result = report.results[first.id]
    report.failing = [ob.id for ob in refuted + unknown]
    report.failure = describe_failure(first, result)
    report.code = failure_code(first, result)
    for name, local in unvalued_in(builder.program, result.lacking):
        report.failure += (
            f"\n  ({name} is a recursive function without a val: the verifier knows of it only "
            "that equal arguments give equal results. A val stating how its result moves with "
            "its arguments (e.g. {s :: real | abs (s<1> - s<2>) <= 1.0} for adj lists) is what "
            "the proof needs" + ("; a local let rec cannot have one: define it at top level, "
                                 "with its val)" if local else ")"))
    lacking = lacking_hypothesis(first, builder.session, builder.rlimit)
    if lacking is not None:
        statement, lemmas, premise = lacking
        report.code = LEMMA_HYPOTHESIS
        report.failure += (f"\n  the proof needs the fact that {statement} ({lemmas}), whose "
                           f"hypothesis is not shown here: {premise}")
    span = first.provenance.span
    report.failure_span = (A.Span(span.file, span.line, span.col, span.end_line, span.end_col)
                           if span else val.span)


def unvalued_in(program: A.Program, lacking: Optional[str]) -> List[Tuple[str, bool]]:
    """The recursive functions without a val whose calls the missing fact ``lacking``
    (``Result.lacking``: ``"a fact about go db<1>, ..."``) is about: (source name, whether
    it is a local ``let rec``)."""
    if not lacking:
        return []
    vals = {v.name for v in program.vals()}
    found = {source_name(d.name): False for d in program.lets()
             if d.recursive and d.name not in vals}
    found.update({source_name(n.name): True for d in program.lets()
                  for n in A.descendants(d.body) if isinstance(n, A.LetRec)})
    about = lacking.split("a fact about ", 1)[-1]
    heads = {term.strip().split(" ", 1)[0] for term in about.split(",")}
    return sorted((name, local) for name, local in found.items() if name in heads)


def refute(report: ClaimReport, program: A.Program, typed, val: A.ValDecl) -> None:
    """Look for a witness that the claim is false; with one, the claim is refuted."""
    from verifier.refutation import confirm
    parameters = report.derivation.judgement.get("parameters", []) \
        if report.derivation is not None else []
    failing = [(ob, report.results[ob.id]) for ob in report.obligations
               if ob.id in report.failing]
    witness = confirm(program, typed, val, failing, parameters)
    if witness is None:
        return
    first = next(iter(failing), None)
    why = (f"\n  the obligation that failed: {describe_failure(*first, note=False)}"
           if first is not None else f"\n  the verifier's reason: {report.failure}"
           if report.failure else "")
    report.verdict, report.code, report.confirmation = REFUTED, FALSE_CLAIM, witness
    report.failure = f"the claim is false, {witness.text()}{why}"


def failure_code(ob: Obligation, result: Result) -> str:
    """The diagnostic code of a failing obligation (see the codes above; V004 is decided by
    ``judge``, which asks which lemma's hypothesis is missing)."""
    if result.verdict == Verdict.REFUTED:
        return FALSE_OBLIGATION
    return MISSING_FACT if result.lacking else UNDECIDED


def describe_failure(ob: Obligation, result: Result, note: bool = True) -> str:
    """``obligation description [rule]: why`` in one or two lines: a refuted obligation with
    its counterexample (which shows the obligation false, not the claim), an undecided one
    with the reason."""
    text = f"{ob.provenance.description} [{ob.provenance.rule}]: "
    if result.verdict == Verdict.REFUTED:
        text += "false"
        shown_bindings = [b for b in result.counterexample if "!val!" not in b.value]
        if shown_bindings:
            shown = ", ".join(f"{b.name} = {b.value}" for b in shown_bindings[:10])
            text += f" at {shown}"
        return text + ("\n  (no run of the program on these values was found to violate the "
                       "claim: the rule asks for more than the claim may need, or the verifier "
                       "lacks a fact about these values)" if note else "")
    text += "not proved"
    if result.lacking:
        text += f": the verifier lacks {result.lacking}"
    if result.reason:
        text += f"\n  ({result.reason})"
    return text


# ---- guarantees in words ----------------------------------------------------------------------

_ORDINALS = {1: "1st", 2: "2nd", 3: "3rd"}


def ordinal(n: int) -> str:
    return _ORDINALS.get(n, f"{n}th")


def guarantee_text(val: A.ValDecl) -> str:
    """What the claim means, in words, exactly (e.g. "main is (eps, 0)-differentially private
    with respect to adj on its 1st argument, for a >= 1.0").

    Each parameter contributes what its refinement says: nothing when it is equal in both
    runs (public) and says nothing else; the relation between its two runs' values
    ("adj on its 1st argument"), or "any change of" it when there is none; and conditions on
    one run ("for b = true in run 1"; "for a >= 1.0" when ``a`` is public, so the condition
    holds in both runs). The result says what is claimed of the outputs: a divergence bound
    between the output distributions (with the relation the outputs are lifted to when it is
    not equality), or the relation between two values."""
    public = _public_parameters(val.rtype)
    rt, position, relations, conditions = val.rtype, 0, [], []
    while isinstance(rt, A.RArrow):
        position += 1
        dom = rt.dom
        while isinstance(dom, A.RRefine):
            dom = dom.base
        if isinstance(dom, A.RArrow):  # HOARe²'s logical relation: any functions of the type
            relations.append(f"any two functions of its type as its {ordinal(position)} "
                             "argument (related inputs giving related outputs)")
            rt = rt.cod
            continue
        rel, cond = _describe_parameter(rt.dom, public)
        if rel == ["any change"]:
            relations.append(f"any change of its {ordinal(position)} argument")
        elif rel:
            relations.append(" /\\ ".join(rel) + f" on its {ordinal(position)} argument")
        conditions += cond
        rt = rt.cod
    dp = isinstance(rt, A.RMonad) and rt.div.kind == "DP"
    lifted = _result_relation(rt.body) if isinstance(rt, A.RMonad) else None
    if isinstance(rt, A.RMonad) and lifted:
        # a lifting of another relation than equality says nothing of the privacy of the
        # output by itself (a relation true of every pair lifts at cost 0): named as such
        delta = pretty_expr(rt.delta) if rt.delta is not None else "0"
        index = (f"({pretty_expr(rt.div.eps)}, {delta})" if dp
                 else f"{rt.div.kind} distance {delta}")
        what = (f"lifts the relation {lifted} to its output distributions at {index} (a "
                "relational lifting of that relation, not "
                + ("differential privacy of its output)" if dp
                   else "a distance between its output distributions)"))
        dp = False
    elif isinstance(rt, A.RMonad):
        delta = pretty_expr(rt.delta) if rt.delta is not None else "0"
        if dp:
            what = f"is ({pretty_expr(rt.div.eps)}, {delta})-differentially private"
        elif rt.delta is None:
            what = f"gives equal output distributions ({rt.div.kind} distance 0)"
        else:
            what = f"gives output distributions within {rt.div.kind} distance {delta}"
    else:
        what = _describe_result(rt)
    if relations:
        link = "with respect to" if dp else "for inputs related by"
        text = f"{val.name} {what} {link} " + " and ".join(relations)
    else:
        text = f"{val.name} {what} when its inputs are equal in both runs"
    if conditions:
        text += ", for " + " and ".join(conditions)
    return text


def _public_parameters(rt: A.RType) -> set:
    """The names of the parameters whose refinement says they are equal in both runs."""
    out = set()
    while isinstance(rt, A.RArrow):
        dom = rt.dom
        while isinstance(dom, A.RRefine):
            if any(_says_equal(dom.var, c) for c in _conjuncts(dom.assertion)):
                out.add(dom.var)
            dom = dom.base
        rt = rt.cod
    return out


def _says_equal(var: str, c: A.Expr) -> bool:
    return isinstance(c, A.SameRuns) or (
        isinstance(c, A.BinOp) and c.op == "=" and isinstance(c.left, A.RunVar)
        and isinstance(c.right, A.RunVar) and c.left.name == c.right.name == var
        and {c.left.run, c.right.run} == {1, 2})


def _describe_parameter(dom: A.RType, public: set) -> Tuple[List[str], List[str]]:
    """The relational and the one-run conditions a parameter's refinement states
    (equality in both runs is left out: it says the parameter is public). A parameter with
    no relation between its runs, not public, may take any two values: the claim covers
    every change of it (under its one-run conditions)."""
    if isinstance(dom, A.RMonad):  # a computation: M[F] {x :: T | =} is the same one in both runs
        if dom.delta is None and dom.div.kind != "DP":
            return [], []
        delta = pretty_expr(dom.delta) if dom.delta is not None else "0"
        what = (f"DP({pretty_expr(dom.div.eps)}, {delta})" if dom.div.kind == "DP"
                else f"{dom.div.kind} distance {delta}")
        return [f"computations within {what}"], []
    if not isinstance(dom, A.RRefine):
        return ["any change"], []
    relational, unary, var = [], [], dom.var
    while isinstance(dom, A.RRefine):
        for c in _conjuncts(dom.assertion):
            if _says_equal(dom.var, c) or isinstance(c, A.BoolLit) and c.value:
                continue  # `true` says nothing (`{x :: real | true}`: any two values)
            runs = {v.run for v in _run_vars(c)}
            if len(runs) == 1:
                (run,) = runs
                shared = all(v.name in public for v in _run_vars(c))
                unary.append(_show(_drop_run(c)) + ("" if shared else f" in run {run}"))
            elif not runs:
                unary.append(_show(c))
            elif _is_adj(c):
                relational.append("adj")
            else:
                relational.append(_show(c))
        dom = dom.base
    if not relational and var not in public:
        relational = ["any change"]
    return relational, unary


def _result_relation(rt: A.RType) -> Optional[str]:
    """The relation a refined output is lifted to, when it is not plain equality."""
    if not isinstance(rt, A.RRefine):
        return None
    parts = [c for c in _conjuncts(rt.assertion) if not _says_equal(rt.var, c)]
    return " /\\ ".join(_show(c) for c in parts) if parts else None


def _describe_result(rt: A.RType) -> str:
    """What a pure claim says of its two results."""
    if isinstance(rt, A.RRefine):
        return f"returns values of type {pretty_rtype(rt)}"
    return f"returns values of type {pretty_rtype(rt)} (nothing is claimed of the two runs)"


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
