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

from typing import Any, Dict, Iterator, List, Optional, Sequence, Set, Tuple

from verifier.errors import PrivInferError
from verifier.language import ast
from verifier.language.pretty import pretty_expr


def functional_violation(program: ast.Program, typed: Any, entry: str,
                         arguments: Sequence[Any]) -> Optional[Tuple[str, Any]]:
    """The first conjunct of one run in ``entry``'s ``val`` that is false of ``arguments`` (the
    entry's parameters in order), as its text and span; None when every such conjunct holds or cannot be
    evaluated, or when the entry has no ``val``."""
    from verifier.audit import ClaimEvaluator, claim_scope, read_claim
    val = program.find_val(entry)
    if val is None:
        return None
    claim = read_claim(val, len(arguments))
    try:
        evaluator = ClaimEvaluator(claim_scope(program, typed, val), claim, 0)
    except PrivInferError:
        return None
    pairs = [(v, v) for v in arguments][:len(claim.binders)]
    env = evaluator.bindings(pairs)
    for var, assertion in (b for binders in claim.binders for b in binders):
        for conjunct in _functional_conjuncts(assertion):
            if len(_functional_runs(conjunct)) > 1 or isinstance(conjunct, ast.SameRuns):
                continue
            if evaluator.holds(conjunct, var, env) is False:
                return pretty_expr(conjunct), conjunct.span
    return None


def functional_check(program: ast.Program, typed: Any, entry: str):
    """The ``check`` that ``semantics.entry.run_program`` calls with the bound arguments:
    ``enforce`` of ``functional_violation``, a release being a sample of a computation the
    ``val`` claims (its result after the parameters is ``M[...]``)."""
    def check(arguments: List[Any], sampling_securely: bool) -> None:
        val = program.find_val(entry)
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


def while_violation(proc: Any, arguments: Dict[str, Any]) -> Optional[Tuple[str, Any]]:
    """The first conjunct of one run in ``proc``'s precondition that is false of
    ``arguments`` (by parameter name), as its text and span; None otherwise (see the module docstring)."""
    from verifier.aprhl.coupled import holds
    from verifier.language import whilelang as W
    spec = getattr(proc, "spec", None)
    if spec is None or spec.pre is None:
        return None
    for conjunct in _while_conjuncts(spec.pre, W):
        if len(_while_runs(conjunct, W)) > 1:
            continue
        try:
            value = holds(conjunct, arguments, arguments)
        except (ZeroDivisionError, TypeError, KeyError, IndexError, ValueError):
            continue
        if value is False:
            return W.pretty_expr(conjunct), conjunct.span
    return None


def _functional_conjuncts(a: ast.Expr) -> Iterator[ast.Expr]:
    if isinstance(a, ast.Conj):
        yield from _functional_conjuncts(a.left)
        yield from _functional_conjuncts(a.right)
    else:
        yield a


def _functional_runs(a: ast.Expr) -> Set[int]:
    return {n.run for n in ast.descendants(a) if isinstance(n, ast.RunVar)}


def _while_conjuncts(e: Any, W: Any) -> Iterator[Any]:
    if isinstance(e, W.BinOp) and e.op == "&&":
        yield from _while_conjuncts(e.left, W)
        yield from _while_conjuncts(e.right, W)
    else:
        yield e


def _while_runs(e: Any, W: Any) -> Set[int]:
    runs: Set[int] = set()
    stack: List[Any] = [e]
    while stack:
        x = stack.pop()
        if isinstance(x, W.Name) and x.run is not None:
            runs.add(x.run)
        if isinstance(x, (list, tuple)):
            stack.extend(x)
        elif isinstance(x, W.WNode):
            stack.extend(v for k, v in vars(x).items() if k != "span")
    return runs


def enforce(violation: Optional[Tuple[str, Any]], entry: str, releasing: bool) -> None:
    """Refuse a release outside the claim (R013); warn on standard error when ``run`` only
    evaluates there (a seeded sample, ``--dist``, a value)."""
    if violation is None:
        return
    text, span = violation
    what = (f"the arguments are outside the claim of {entry}: its condition {text} is false "
            f"of them, so the verified guarantee does not cover this run")
    if releasing:
        from verifier.errors import error
        raise error("R013", what, span,
                    hint="give values that satisfy the claim's conditions, or verify a claim "
                         "whose conditions cover these values")
    import sys
    print(f"warning: {what} (not a release: evaluated anyway)", file=sys.stderr)
