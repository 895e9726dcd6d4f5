"""Shrinking a failure: delta debugging on the syntax tree.

``shrink_failure(failure, config)`` replaces ``failure.shrunk`` with the smallest program it
finds that still type-checks and still fails *the same way* (``still_fails``: the same claim,
verified, and the oracle's failure of the same kind; for a metamorphic failure, the verdict
still changes in the variant; for a crash, the verifier still crashes with the same exception
type). Candidates, tried greedily in this order until none is accepted or ``config.shrink_checks``
candidates have been checked:

1. drop a top-level declaration (not the failing claim's ``val`` or its definition);
2. replace a subexpression, outermost first, by one of its own subexpressions (``if c then a
   else b`` by ``a``; ``let x = v in b`` by ``b``; ...), by ``let``'s body with the bound
   value inlined, or by a literal (``false``, ``0``, ``0.0``, ``[]``, ``()``) — the type checker
   rejects the replacements of the wrong type;
3. shorten a literal (``2.5`` to ``1.0``, ``2`` to ``1``).

A candidate need not mean the same as the program (only fail the same way), so no candidate is
rejected for changing the meaning.
"""
from __future__ import annotations

import math
import random
import time
from fractions import Fraction
from typing import Callable, Iterator, List, Optional

from obligations.records import replace
from verifier.report import render
from verifier.fuzz import metamorphic, scope
from verifier.fuzz.case import CRASH, METAMORPHIC, kernel_opinion, parse_and_type, verdicts_of, verify
from verifier.fuzz.oracle import Oracle
from verifier.language import ast
from verifier.language.pretty import pretty_program


def size(node: ast.Node) -> int:
    """The number of syntax nodes."""
    count, stack = 0, [node]
    while stack:
        n = stack.pop()
        count += 1
        stack.extend(ast.children(n))
    return count


def still_fails(failure, config) -> Callable[[ast.Program, object], bool]:
    """The predicate a type-checked candidate ``(program, typed)`` must meet to keep
    ``failure``'s kind (see the module docstring)."""

    # a candidate that runs 20,000 steps is taken as looping; the result is checked in full
    limits = replace(config.limits, confirm_steps=min(config.limits.confirm_steps, 20_000))

    def predicate(prog: ast.Program, typed) -> bool:
        if failure.kind == CRASH:
            outcome = verify(prog, typed)
            return isinstance(outcome, str) and outcome.split(":")[0] == failure.message.split(":")[0]
        if failure.kind == METAMORPHIC:
            return _metamorphic_still(prog, typed, failure)
        if prog.find_val(failure.claim) is None:
            return False
        report = verify(prog, typed)
        if isinstance(report, str):
            return False
        verdict = next((c.verdict for c in report.claims if c.name == failure.claim), None)
        if verdict != "verified":
            return False
        judgement = Oracle(prog, typed, limits).judge(prog.find_val(failure.claim))
        return judgement.failed and judgement.witness.kind == failure.kind

    return predicate


def _metamorphic_still(prog, typed, failure) -> bool:
    report = verify(prog, typed)
    if isinstance(report, str):
        return False
    before = {c.name: c.verdict for c in report.claims}
    if failure.claim and failure.claim not in before:
        return False
    variant = metamorphic.variant(prog, random.Random(failure.seed ^ 0xA11A5))
    after = verdicts_of(pretty_program(variant.program))
    if after is None:
        return not failure.claim
    if not failure.claim:
        return False
    return after.get(variant.names.get(failure.claim, failure.claim)) != before[failure.claim]


def protected(program: ast.Program, claim: str) -> set:
    """The declarations a shrink keeps: the claim's ``val`` and its (last) definition."""
    keep = set()
    for d in program.decls:
        if isinstance(d, ast.ValDecl) and d.name == claim:
            keep.add(id(d))
    last = program.find_let(claim) if claim else None
    if last is not None:
        keep.add(id(last))
    return keep


def candidates(program: ast.Program, claim: str) -> Iterator[ast.Program]:
    """One-step reductions of ``program``, biggest first (see the module docstring)."""
    keep = protected(program, claim)
    for i, d in enumerate(program.decls):
        if id(d) not in keep:
            yield ast.Program(program.decls[:i] + program.decls[i + 1:], program.file)
    for i, d in enumerate(program.decls):
        if not isinstance(d, ast.LetDecl):
            continue
        for target in _preorder(d.body):
            for replacement in _replacements(target, d):
                new_decl = ast.transform(d, lambda n, t=target, r=replacement: r if n is t else None)
                yield ast.Program(program.decls[:i] + (new_decl,) + program.decls[i + 1:], program.file)


def _preorder(e: ast.Node) -> Iterator[ast.Expr]:
    stack = [e]
    while stack:
        n = stack.pop()
        if isinstance(n, ast.Expr):
            yield n
        stack.extend(reversed([c for c in ast.children(n) if isinstance(c, ast.Expr)]))


_LITERALS = (ast.BoolLit(False), ast.IntLit(0), ast.RealLit(Fraction(0)), ast.ListLit(()), ast.UnitLit())


def _replacements(e: ast.Expr, decl: ast.LetDecl) -> List[ast.Expr]:
    out: List[ast.Expr] = []
    if isinstance(e, ast.Let) and isinstance(e.pattern, ast.PVar):
        out.append(_inline(e, decl))
    out += [c for c in ast.children(e) if isinstance(c, ast.Expr)]
    if isinstance(e, ast.RealLit) and e.value not in (0, 1):
        out.append(ast.RealLit(Fraction(1)))
    elif isinstance(e, ast.IntLit) and e.value > 1:
        out.append(ast.IntLit(1))
    elif not isinstance(e, (ast.Var, ast.BoolLit, ast.IntLit, ast.RealLit, ast.UnitLit)) and \
            not (isinstance(e, ast.ListLit) and not e.items):
        out += list(_LITERALS)
    return [r for r in out if r is not None]


def _inline(e: ast.Let, decl: ast.LetDecl) -> Optional[ast.Expr]:
    """``let x = v in b`` as ``b`` with ``v`` for each ``x`` that refers to this binding."""
    res = scope.resolve(ast.Program((decl,)))
    binder = res.of(e.pattern)
    if binder is None:
        return None
    occurrences = {id(o) for o in binder.occurrences}
    return ast.transform(e.body, lambda n: e.value if id(n) in occurrences else None)


#: Candidates tried per shrink at most, well-typed or not (type checking is cheap).
MAX_CANDIDATES = 5_000


def shrink(program: ast.Program, claim: str, predicate: Callable[[ast.Program, object], bool],
           budget: int, seconds: float = math.inf) -> ast.Program:
    """The smallest program found whose well-typed reading satisfies ``predicate`` (greedy; at
    most ``budget`` predicate checks, ``MAX_CANDIDATES`` candidates and about ``seconds``)."""
    current, checks, tried = program, 0, 0
    deadline = time.perf_counter() + seconds
    improved = True

    def exhausted() -> bool:
        return checks >= budget or tried >= MAX_CANDIDATES or time.perf_counter() > deadline

    while improved and not exhausted():
        improved = False
        current_size = size(current)
        for candidate in candidates(current, claim):
            if size(candidate) >= current_size:
                continue
            tried += 1
            parsed = parse_and_type(pretty_program(candidate))
            if not isinstance(parsed, str):
                checks += 1
                if predicate(*parsed):
                    current, improved = parsed[0], True
                    break
            if exhausted():
                break
    return current


def shrink_failure(failure, config) -> None:
    """Shrink ``failure`` in place: ``shrunk``, ``shrunk_output`` and, for oracle failures,
    the witness on the shrunk program."""
    parsed = parse_and_type(failure.program)
    if isinstance(parsed, str):
        return
    program = parsed[0]
    best = shrink(program, failure.claim, still_fails(failure, config), config.shrink_checks,
                  config.shrink_seconds)
    text = pretty_program(best)
    prog, typed = parse_and_type(text)
    if failure.kind not in (CRASH, METAMORPHIC) and best is not program and \
            not _fails_in_full(prog, typed, failure, config):
        text = pretty_program(program)        # shrunk with the smaller budget only: keep the original
        prog, typed = parse_and_type(text)
    failure.shrunk = text
    report = verify(prog, typed)
    failure.shrunk_output = report if isinstance(report, str) else render(report)
    if failure.kernel is not None and failure.claim:
        failure.shrunk_kernel = kernel_opinion(text, failure.claim)
    if failure.witness is not None and prog.find_val(failure.claim) is not None:
        judgement = Oracle(prog, typed, config.limits).judge(prog.find_val(failure.claim))
        if judgement.witness is not None:
            failure.witness = judgement.witness


def _fails_in_full(prog: ast.Program, typed, failure, config) -> bool:
    """The oracle, with the campaign's own limits, fails the claim the same way."""
    val = prog.find_val(failure.claim)
    judgement = Oracle(prog, typed, config.limits).judge(val) if val is not None else None
    return judgement is not None and judgement.failed and judgement.witness.kind == failure.kind


__all__ = ["shrink", "shrink_failure", "still_fails", "candidates", "size"]
