"""The conditions a claim states of one run, checked on the arguments of a release.

A verified guarantee speaks of inputs related by the claim's relation. A conjunct of that
relation that reads one run only (``k<1> <= 1.0``, ``c >= 1``, ``size d<1> = 2``) is a
condition on the inputs themselves: a public parameter that fails it is outside what was
verified (red-team round 8, p15: ``k * count l`` verified for ``k <= 1.0``, then released at
``k = 10^6`` with a loss of ``10^6 eps``), and data that fails it has no neighbour the
guarantee speaks of. ``privinfer run`` therefore refuses to *release* on such arguments (R013)
and warns when it only evaluates (``--seed``, ``--dist``, a value that is not a release).

Only conjuncts of one run are checked, each on the arguments given (both runs' names bound to
them): a relational conjunct (``adj (l<1>, l<2>)``, ``abs (x<1> - x<2>) <= 1``) constrains
pairs, not an input. A conjunct that cannot be evaluated (a quantifier, a divergence bound) is
not checked — the check is necessary for the guarantee to apply, not sufficient.
"""
from __future__ import annotations

import sys
from typing import Any, Dict, List, Optional, Sequence, Tuple

from verifier.errors import PrivInferError, error
from verifier.language import ast
from verifier.language import whilelang as W
from verifier.language.pretty import pretty_expr
from verifier.pairs import conjuncts

#: a condition found false: its text and its span
Violation = Tuple[str, Any]


def functional_violation(program: ast.Program, typed: Any, entry: str,
                         arguments: Sequence[Any]) -> Optional[Violation]:
    """The first conjunct of one run in ``entry``'s ``val`` that is false of ``arguments`` (the
    entry's parameters in order); None when every such conjunct holds or cannot be evaluated,
    or when the entry has no ``val``."""
    from verifier.audit import ClaimEvaluator, claim_scope, read_claim
    val = program.find_val(entry)
    if val is None:
        return None
    claim = read_claim(val, len(arguments))
    try:
        evaluator = ClaimEvaluator(claim_scope(program, typed, val), claim, 0)
    except PrivInferError:
        return None
    env = evaluator.bindings([(v, v) for v in arguments][:len(claim.binders)])
    for var, assertion in (b for binders in claim.binders for b in binders):
        for conjunct in conjuncts(assertion):
            runs = {n.run for n in ast.descendants(conjunct) if isinstance(n, ast.RunVar)}
            if len(runs) > 1 or isinstance(conjunct, ast.SameRuns):
                continue
            if evaluator.holds(conjunct, var, env) is False:
                return pretty_expr(conjunct), conjunct.span
    return None


def functional_check(program: ast.Program, typed: Any, entry: str):
    """The ``check`` that ``semantics.entry.run_program`` calls with the bound arguments:
    ``enforce`` of ``functional_violation``, a release being a secure sample of a computation
    the ``val`` claims (its result after the parameters is ``M[...]``)."""
    val = program.find_val(entry)

    def check(arguments: List[Any], sampling_securely: bool) -> None:
        if val is None:
            return
        rt = val.rtype
        for _ in arguments:
            while isinstance(rt, ast.RRefine):
                rt = rt.base
            rt = rt.cod if isinstance(rt, ast.RArrow) else rt
        enforce(functional_violation(program, typed, entry, arguments), entry,
                sampling_securely and isinstance(rt, ast.RMonad))
    return check


def while_violation(proc: W.Proc, arguments: Dict[str, Any]) -> Optional[Violation]:
    """The first conjunct of one run in ``proc``'s precondition that is false of
    ``arguments`` (by parameter name); None otherwise."""
    from verifier.aprhl.coupled import holds
    if proc.spec is None or proc.spec.pre is None:
        return None
    for conjunct in W.conjuncts(proc.spec.pre):
        if len({n.run for n in W.names_of(conjunct) if n.run is not None}) > 1:
            continue
        try:
            value = holds(conjunct, arguments, arguments)
        except (ZeroDivisionError, TypeError, KeyError, IndexError, ValueError):
            continue
        if value is False:
            return W.pretty_expr(conjunct), conjunct.span
    return None


def enforce(violation: Optional[Violation], entry: str, releasing: bool) -> None:
    """Refuse a release outside the claim (R013); warn on standard error when ``run`` only
    evaluates there (a seeded sample, ``--dist``, a value)."""
    if violation is None:
        return
    text, span = violation
    what = (f"the arguments are outside the claim of {entry}: its condition {text} is false "
            f"of them, so the verified guarantee does not cover this run")
    if releasing:
        raise error("R013", what, span,
                    hint="give values that satisfy the claim's conditions, or verify a claim "
                         "whose conditions cover these values")
    print(f"warning: {what} (not a release: evaluated anyway)", file=sys.stderr)
