"""Equal in both runs — by proof, never by looking.

A symbolic value of the translator is a *pair*: what a program value is in run 1 and in run
2. For first-order values (numbers, booleans, lists, distributions, tuples of them) the pair
is two terms, and the values are equal when the terms are provably equal. A function or a
computation is code with the environment it closes over, and the environment holds *both*
runs' values of every captured variable: a closure ``fun () -> count db`` is the same Python
object in run 1 and run 2 while reading ``db<1>`` in one and ``db<2>`` in the other. So two
such values are equal in both runs only when they are the same code and every variable they
capture — transitively, through the closures and computations it is bound to — is equal in
both runs (``equality_goals``).

This is the binding discipline of the verifier (docs/verifier.md, "The binding discipline"):
a rule may treat a value as the same in both runs only through ``equality_goals`` (or a term
that is literally one term), and the goals it returns are obligations to prove.
``equal_term`` states the equality of two first-order values as one term (a goal).
"""
from __future__ import annotations

from typing import Dict, List, Optional, Tuple

from obligations import terms as T
from verifier.language import ast as A
from verifier.language.free_vars import free_vars
from verifier.translation.symbolic import (Builtin, Closure, DistV, Env, LocalRec, Monadic,
                                           NamedFun, Scalar, SymValue, TupleV, UnitV,
                                           value_terms)

#: The goals of a pair, or None when the logic cannot show the values equal.
Goals = Optional[List[T.Term]]


def equality_goals(left: SymValue, right: SymValue,
                   _seen: Optional[Dict[Tuple[int, int], Goals]] = None) -> Goals:
    """The conditions (Bool terms) under which ``left`` — a value as run 1 sees it — equals
    ``right`` — the same program value as run 2 sees it. ``[]`` when they are equal outright;
    None when it cannot be shown (different code, or an opaque computation not known equal)."""
    seen = {} if _seen is None else _seen
    if isinstance(left, (Scalar, DistV)) and isinstance(right, (Scalar, DistV)):
        if left.term == right.term:
            return []
        if left.term.sort != right.term.sort:
            return None
        return [T.eq(left.term, right.term)]
    if isinstance(left, UnitV) and isinstance(right, UnitV):
        return []
    if isinstance(left, TupleV) and isinstance(right, TupleV):
        if len(left.items) != len(right.items):
            return None
        return _all(equality_goals(a, b, seen) for a, b in zip(left.items, right.items))
    if isinstance(left, Builtin) and isinstance(right, Builtin):
        if left.name != right.name or len(left.args) != len(right.args):
            return None
        return _all(equality_goals(a, b, seen) for a, b in zip(left.args, right.args))
    if isinstance(left, NamedFun) and isinstance(right, NamedFun):
        # a top-level function is the same in both runs; its arguments so far must be equal
        if left.name != right.name or len(left.args) != len(right.args):
            return None
        return _all(equality_goals(a[0], b[1], seen) for a, b in zip(left.args, right.args))
    if isinstance(left, Closure) and isinstance(right, Closure):
        if left.params != right.params or left.body != right.body:
            return None
        bound = {n for p in left.params for n in A.pattern_names(p)}
        return _captured(left.body, bound, left.env, right.env, seen, (left, right))
    if isinstance(left, LocalRec) and isinstance(right, LocalRec):
        # a local recursive function: one code, and what it captures equal in both runs
        if (left.name, left.params, left.body) != (right.name, right.params, right.body):
            return None
        bound = {n for p in left.params for n in A.pattern_names(p)} | {left.name}
        return _captured(left.body, bound, left.env, right.env, seen, (left, right))
    if isinstance(left, Monadic) and isinstance(right, Monadic):
        if left.expr is None or right.expr is None:
            # a computation the rules know only by its type: equal when its type says so
            same = left.equal_in_runs and right.equal_in_runs and left.name == right.name
            return [] if same else None
        if left.expr != right.expr:
            return None
        return _captured(left.expr, set(), left.env, right.env, seen, (left, right))
    return None


def _captured(code: A.Expr, bound: set, env1: Optional[Env], env2: Optional[Env],
              seen: Dict[Tuple[int, int], Goals], key_values) -> Goals:
    """The goals for every variable ``code`` captures: run 1's value of it in ``env1`` equals
    run 2's value of it in ``env2``."""
    key = (id(key_values[0]), id(key_values[1]))
    if key in seen:  # compared before (shared), or being compared (a cycle: not shown)
        return seen[key]
    seen[key] = None
    goals: List[T.Term] = []
    for name in sorted(free_vars(code) - bound):
        p1 = env1.lookup(name) if env1 is not None else None
        p2 = env2.lookup(name) if env2 is not None else None
        if p1 is None and p2 is None:
            continue  # a built-in (in the resolved core, no binder has a built-in's name)
        if p1 is None or p2 is None:
            return None
        sub = equality_goals(p1[0], p2[1], seen)
        if sub is None:
            return None
        goals += sub
    seen[key] = goals
    return goals


def _all(parts) -> Goals:
    goals: List[T.Term] = []
    for p in parts:
        if p is None:
            return None
        goals += p
    return goals


def variable_goals(env: Env, names) -> Tuple[Goals, List[str]]:
    """The goals that the variables ``names`` of ``env`` are equal in both runs, and the names
    that needed a goal (built-ins need none)."""
    goals: List[T.Term] = []
    needed: List[str] = []
    for name in sorted(names):
        pair = env.lookup(name)
        if pair is None:
            continue
        sub = equality_goals(pair[0], pair[1])
        if sub is None:
            return None, [name]
        if sub:
            needed.append(name)
            goals += sub
    return goals, needed


def equal_term(a: SymValue, b: SymValue) -> Optional[T.Term]:
    """The Bool term ``a = b`` for first-order values; None when they are not first-order."""
    if isinstance(a, TupleV) and isinstance(b, TupleV) and len(a.items) == len(b.items):
        parts = [equal_term(x, y) for x, y in zip(a.items, b.items)]
        if any(p is None for p in parts):
            return None
        return T.and_(*parts)
    if isinstance(a, UnitV) and isinstance(b, UnitV):
        return T.boolean(True)
    ta, tb = value_terms(a), value_terms(b)
    if len(ta) == 1 and len(tb) == 1 and isinstance(a, (Scalar, DistV)) and isinstance(b, (Scalar, DistV)):
        if ta[0] == tb[0]:
            return T.boolean(True)
        try:
            return T.eq(ta[0], tb[0])
        except T.SortError:  # values of sorts the logic keeps apart (a [3] list, an int list)
            return None
    return None
