"""The verdict of a while-procedure's claim (docs/aprhl.md): the derivation
(``verifier.aprhl.derive``), the search of shifted couplings when the identity coupling fails
(``verifier.aprhl.search``) and the search of a witness when no coupling proves the claim
(``verifier.aprhl.refute``). Above the three, so that none imports another to come back."""
from __future__ import annotations

import time
from typing import Optional

from obligations.smtlib import Z3Session
from verifier.aprhl.derive import ProcReport, attempt, deterministic, discrete_output
from verifier.aprhl.refute import refute as find_witness
from verifier.aprhl.search import index_output, search_shifts
from verifier.language import whilelang as W


def verify_proc(proc: W.Proc, types: W.ProcTypes, session: Optional[Z3Session] = None,
                rlimit: Optional[int] = None, refute: bool = True) -> ProcReport:
    """The verdict of a procedure's claim: the derivation with every unannotated ``Lap``
    coupled by the identity of the draws; when it fails, the shift search
    (``verifier.aprhl.search``) looks for shifts under which every obligation holds; when it
    finds none, the first derivation's failure stands, and (``refute``) a witness that the
    claim is false is searched (``verifier.aprhl.refute``): with one, the claim is refuted."""
    start = time.perf_counter()
    session = session or Z3Session()
    probes: dict = {}  # the invariant inference's answers, shared by every derivation here
    report, builder = attempt(proc, types, session, rlimit, probe_cache=probes)
    if report.verdict != "verified" and builder is not None and builder.sites:
        # a claim ==> = with a discrete output: the Pointwise rule (couplings that may depend
        # on the output value; every derivation of result<1> = result<2> is one of
        # result<1> = v => result<2> = v, and the one-sided Cond rules subsume the
        # synchronised one on branches without sampling); otherwise shifts alone
        pointwise = proc.spec.post is None and discrete_output(proc)
        found = search_shifts(proc, types, session, rlimit, builder, pointwise=pointwise,
                              probe_cache=probes)
        if found is None and pointwise and index_output(proc):
            # an index output puts the pointwise templates first, and their builds may use up
            # the search (a count returned as the output: the sparse vector's proof, no point
            # template); the shifts alone, searched again
            found = search_shifts(proc, types, session, rlimit, builder, probe_cache=probes)
        if found is not None:
            report = found
        elif report.failure is not None:
            report.failure += (" — and no shifted coupling the search tried proves the claim"
                               + (" (the pointwise rule included)" if pointwise else ""))
    if report.verdict != "verified" and _private_if(proc):
        # an if without sampling whose guards could not be synchronised (a count or a sum
        # updated under a guard that reads private data): the one-sided Cond rules, each run
        # its own branch (docs/aprhl.md); the first derivation's failure stands otherwise
        second, b2 = attempt(proc, types, session, rlimit, onesided=True, probe_cache=probes)
        if second.verdict != "verified" and b2 is not None and b2.sites:
            found = search_shifts(proc, types, session, rlimit, b2, onesided=True,
                                  probe_cache=probes)
            second = found if found is not None else second
        if second.verdict == "verified":
            report = second
        elif second.failure is not None and report.failure is not None:
            # what the one-sided derivation (past the private ifs) could not prove
            report.failure += (" — with the one-sided rules for the ifs without sampling: "
                               + second.failure)
    if report.verdict == "verified":
        _vacuous(report, proc, types, session, rlimit)
    if refute and report.verdict != "verified" and report.code != "V011":
        witness = find_witness(proc, types)
        if witness is not None:
            report.verdict, report.code, report.confirmation = "refuted", "V008", witness
            why = f"\n  the verifier's reason: {report.failure}" if report.failure else ""
            report.failure = f"the claim is false, {witness.text()}{why}"
    report.seconds = time.perf_counter() - start
    return report


def _vacuous(report: ProcReport, proc: W.Proc, types: W.ProcTypes, session: Z3Session,
             rlimit: Optional[int]) -> None:
    """A verified claim whose precondition z3 proves unsatisfiable (``verifier.vacuity``) is
    downgraded to unknown (V011): it holds of no pair of inputs and says nothing. (No witness
    is then searched: none can satisfy the precondition.)"""
    from verifier.vacuity import VACUOUS, while_vacuity
    found = while_vacuity(proc, types, rlimit=rlimit, session=session)
    if found is None:
        return
    text, notes = found
    report.verdict, report.code = "unknown", VACUOUS
    report.failure = "\n  ".join([text, *notes])
    report.failure_span = proc.spec.span


def _private_if(proc: W.Proc) -> bool:
    """Some ``if`` without sampling or loops in the procedure (the one-sided Cond rules apply
    to it)."""
    def walk(stmts) -> bool:
        for s in stmts:
            if isinstance(s, W.If) and (deterministic([s]) or walk(s.then) or walk(s.else_)):
                return True
            if isinstance(s, W.While) and walk(s.body):
                return True
        return False
    return walk(proc.body)
