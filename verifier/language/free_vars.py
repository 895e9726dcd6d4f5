"""Free program variables of expressions."""
from __future__ import annotations

from typing import Dict, FrozenSet, List, Set, Tuple

from verifier.language import ast as A

#: id of an expression -> (the expression, its free names): each node's set is computed once
#: from its children's, so asking for every sub-expression of a long program (a chain of
#: binds, each asking for the rest of the program) is linear, not quadratic
_CACHE: Dict[int, Tuple[A.Node, FrozenSet[str]]] = {}
_CACHE_SIZE = 1 << 17


def free_vars(e: A.Expr) -> FrozenSet[str]:
    """The names occurring free in ``e`` (built-in names included; callers filter them)."""
    hit = _CACHE.get(id(e))
    if hit is not None and hit[0] is e:
        return hit[1]
    if len(_CACHE) > _CACHE_SIZE:
        _CACHE.clear()
    stack: List[Tuple[A.Node, bool]] = [(e, False)]
    while stack:  # children first, without recursion
        node, ready = stack.pop()
        hit = _CACHE.get(id(node))
        if hit is not None and hit[0] is node:
            continue
        kids = [c for c in A.children(node) if isinstance(c, A.Expr)]
        if ready:
            _CACHE[id(node)] = (node, _step(node))
        else:
            stack.append((node, True))
            stack.extend((c, False) for c in kids)
    return _CACHE[id(e)][1]


def _fv(e: A.Node) -> FrozenSet[str]:
    return _CACHE[id(e)][1]


def _step(e: A.Node) -> FrozenSet[str]:
    if isinstance(e, (A.Var, A.RunVar)):
        return frozenset((e.name,))
    if isinstance(e, A.Fun):
        return _fv(e.body) - _names(e.params)
    if isinstance(e, (A.Let, A.MLet)):
        return _fv(e.value) | (_fv(e.body) - set(A.pattern_names(e.pattern)))
    if isinstance(e, A.LetRec):
        return (_fv(e.value) - _names(e.params) - {e.name}) | (_fv(e.body) - {e.name})
    if isinstance(e, A.Match):
        return _fv(e.scrutinee) | _fv(e.nil_body) | (_fv(e.cons_body) - {e.head, e.tail})
    if isinstance(e, A.Quant):
        return _fv(e.body) - {e.var}
    out: Set[str] = set()
    for child in A.children(e):
        if isinstance(child, A.Expr):
            out |= _fv(child)
    return frozenset(out)


def _names(patterns) -> FrozenSet[str]:
    names: Set[str] = set()
    for p in patterns:
        names.update(A.pattern_names(p))
    return frozenset(names)
