"""Discharging obligations with z3.

``discharge(obligation, rlimit=DEFAULT_RLIMIT)`` returns a ``Result``:

1. *Trivial* obligations (the goal is ``true``, is one of the hypotheses, or is a reflexive
   comparison ``t = t``, ``t <= t``, ``t >= t``) are verified without a solver.
2. Otherwise the obligation is lowered (``obligations.encoding``), printed as an SMT-LIB
   script (``obligations.smtlib``, the very text a certificate records, comments aside) and
   run by z3's SMT-LIB interpreter in a **fresh solver** (``(reset)`` in a ``Z3Session``:
   the caller's, so that one program's obligations share a z3 context, or a new one) with a
   **deterministic resource limit** (``rlimit``, never wall time) and a fixed random seed.
   Every assertion (the encoding's facts, hypotheses, axioms and the negated goal) is
   ``:named``.
3. ``unsat``: the unsat core is re-checked by another fresh solver given only the core
   assertions (unless the core is every assertion: that script was just run). ``verified``
   only if that is ``unsat`` as well; the core's hypothesis and
   axiom names are reported. A core without the goal means the assumptions contradict
   each other, which the reason says.
4. ``sat``: the problem is built again through z3's Python API, in a new context and with
   canonical names (``counterexamples.canonical_names``), so that the model depends on the
   obligation alone, not on its names nor on what z3 ran before; the model's values of the
   program variables (and of the uninterpreted functions) are read back and the *original*
   obligation is evaluated there with exact rational and rigorous ball arithmetic
   (``obligations.evaluate``), with the true ``pi``, ``sqrt``, ``exp`` and ``log``.
   ``refuted`` only if every hypothesis and axiom is true and the goal false; otherwise
   ``unknown`` with the reason (typically: the model relied on the encoding's incomplete
   knowledge of ``exp``/``log``).
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
from typing import Any, Dict, FrozenSet, List, Optional, Sequence, Tuple

from obligations.encoding import GOAL, Problem, encode
from obligations.model import Obligation, Result, Verdict
from obligations.smtlib import DEFAULT_RLIMIT, SmtLibError, Z3Session, problem_to_smtlib
from obligations.terms import TRUE, Op, OpKind
from obligations.z3_native import Z3Error, version_string



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
              confirm: bool = True, session: Optional[Z3Session] = None,
              opaque: FrozenSet[str] = frozenset(), recheck: bool = True) -> Result:
    """Decide ``obligation`` with z3 (see the module docstring). Never raises on solver
    trouble: a z3 exception becomes an ``unknown`` result.

    With ``confirm=False`` a satisfiable negation is reported ``unknown`` without evaluating
    the model (for callers that only need to know whether the obligation is *verified*, such
    as a verifier choosing between rules); ``verified`` means the same in both modes.
    ``session`` is the z3 context to run in (a new one when omitted). ``opaque`` names the
    functions whose calls are known only through their val: a counterexample must not depend
    on the values z3 gives their calls (``counterexamples.model_check``).

    ``recheck=False`` takes z3's ``unsat`` without re-checking its core: for an inference's
    probes only (a candidate invariant kept, a variant chosen), whose answers are never a
    proof — what the inference keeps becomes an obligation of its own, discharged with the
    re-check. Such answers are remembered apart: an obligation never reuses one."""
    start = time.perf_counter()
    trivial = _trivial(obligation)
    if trivial is not None:
        return Result(obligation=obligation.id, verdict=Verdict.VERIFIED, method="trivial",
                      reason=trivial[0], core=trivial[1], elapsed=time.perf_counter() - start)
    common: Dict[str, Any] = dict(obligation=obligation.id, rlimit=rlimit, method="z3",
                                  solver="z3", solver_version=version_string())
    problem = encode(obligation)
    try:
        verdict, reason, extra = _check(problem, rlimit, confirm, session or Z3Session(),
                                        opaque, recheck)
    except (Z3Error, SmtLibError) as e:
        verdict, reason, extra = Verdict.UNKNOWN, f"z3 failed: {e}", {}
    return Result(verdict=verdict, reason=reason, elapsed=time.perf_counter() - start,
                  **common, **extra)


def _check(problem: Problem, rlimit: int, confirm: bool, session: Z3Session,
           opaque: FrozenSet[str] = frozenset(), recheck: bool = True
           ) -> Tuple[Verdict, str, Dict[str, Any]]:
    """The verdict of ``problem``, remembered by the session for its script: two obligations
    that differ only in provenance are the same SMT problem and get the same answer. An
    answer given without the core's re-check (``recheck=False``) is kept under a key of its
    own, which only such calls read."""
    script = problem_to_smtlib(problem, comments=False)
    keys = [(script, rlimit, confirm, opaque), (script, rlimit, True, opaque)]
    if not recheck:
        keys += [k + ("unchecked",) for k in keys]
    for key in keys:
        if key in session.memo:
            return session.memo[key]
    mine = (script, rlimit, confirm, opaque) + (() if recheck else ("unchecked",))
    session.memo[mine] = found = _solve(problem, script, rlimit, confirm, session, opaque,
                                        recheck)
    return found


def _solve(problem: Problem, script: str, rlimit: int, confirm: bool, session: Z3Session,
           opaque: FrozenSet[str] = frozenset(), recheck: bool = True
           ) -> Tuple[Verdict, str, Dict[str, Any]]:
    answer, spent = session.run(script, rlimit)
    used = {"resources": spent}
    if answer == "unsat" and not recheck:
        return Verdict.VERIFIED, "z3: unsat (an inference's probe: core not re-checked)", used
    if answer == "unsat":
        return _verified(problem, session.unsat_core(), rlimit, used, session)
    if answer == "sat" and not confirm:
        return Verdict.UNKNOWN, "z3: sat (the model was not evaluated)", used
    if answer == "sat":
        import z3  # rarely needed, like flint: z3's Python API only builds models

        from obligations.counterexamples import model_check
        try:
            return model_check(problem, rlimit, z3.Context(), used, opaque)
        except z3.Z3Exception as e:
            return Verdict.UNKNOWN, f"z3 failed while building a model: {e}", used
    undecided = (Verdict.UNKNOWN,
                 f"z3 returned unknown: {session.reason_unknown()} (rlimit {rlimit})", used)
    if confirm:
        import z3

        from obligations.counterexamples import search_undecided
        found = search_undecided(problem, rlimit, z3.Context(), used, opaque)
        if found is not None:
            return found
    return undecided


def recheck_core(problem: Problem, core: Sequence[str], rlimit: int,
                 session: Optional[Z3Session] = None) -> str:
    """Check the assertions named in ``core`` alone, with a fresh solver: ``"unsat"``,
    ``"sat"`` or ``"unknown"``. An unsat core is trusted only if this says ``"unsat"``.
    A session that ``remember_rechecks`` keeps the answer for the script and limit, as
    ``_check`` keeps verdicts: many probes of one claim's invariant inference have the same
    core, and z3 is then asked each distinct re-check once."""
    script = problem_to_smtlib(problem, only=set(core), comments=False)
    session = session or Z3Session()
    if not session.remember_rechecks:
        return session.run(script, rlimit)[0]
    key = ("recheck", script, rlimit)
    if key not in session.memo:
        session.memo[key] = session.run(script, rlimit)[0]
    return session.memo[key]


def _verified(problem: Problem, core: List[str], rlimit: int, used: Dict[str, Any],
              session: Z3Session) -> Tuple[Verdict, str, Dict[str, Any]]:
    whole = set(core) == {a.name for a in problem.assertions}
    again = "unsat" if whole else recheck_core(problem, core, rlimit, session)
    if again != "unsat":  # a core of every assertion is the script just run: no re-run
        return (Verdict.UNKNOWN,
                f"z3 answered unsat but its unsat core re-checked as {again}", used)
    user = tuple(a.name for a in problem.assertions
                 if a.name in core and a.role in ("hypothesis", "axiom"))
    if GOAL not in core and not user:  # the encoding's facts are true, so jointly satisfiable
        return (Verdict.UNKNOWN, "internal error: the encoding's facts alone were found "
                f"contradictory ({', '.join(core)})", used)
    uses = f" (uses {', '.join(user)})" if user else ""
    checked = "the unsat core is every assertion" if whole else "unsat core re-checked"
    if GOAL not in core:
        reason = f"the assumptions are contradictory{uses}; {checked}"
    else:
        reason = f"z3: unsat; {checked}{uses}"
    return Verdict.VERIFIED, reason, {**used, "core": user}
