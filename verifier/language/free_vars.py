"""Free program variables of expressions."""
from __future__ import annotations

from typing import FrozenSet, Set

from verifier.language import ast as A


def free_vars(e: A.Expr) -> FrozenSet[str]:
    """The names occurring free in ``e`` (built-in names included; callers filter them)."""
    out: Set[str] = set()
    _collect(e, frozenset(), out)
    return frozenset(out)


def _collect(e: A.Node, bound: FrozenSet[str], out: Set[str]) -> None:
    # An explicit stack would be needed only for pathological depths; the parser bounds them.
    if isinstance(e, A.Var):
        if e.name not in bound:
            out.add(e.name)
    elif isinstance(e, A.RunVar):
        if e.name not in bound:
            out.add(e.name)
    elif isinstance(e, A.Fun):
        inner = bound | _names(e.params)
        _collect(e.body, inner, out)
    elif isinstance(e, (A.Let, A.MLet)):
        _collect(e.value, bound, out)
        _collect(e.body, bound | set(A.pattern_names(e.pattern)), out)
    elif isinstance(e, A.LetRec):
        inner = bound | {e.name}
        _collect(e.value, inner | _names(e.params), out)
        _collect(e.body, inner, out)
    elif isinstance(e, A.Match):
        _collect(e.scrutinee, bound, out)
        _collect(e.nil_body, bound, out)
        _collect(e.cons_body, bound | {e.head, e.tail} - {"_"}, out)
    elif isinstance(e, A.Quant):
        _collect(e.body, bound | {e.var}, out)
    else:
        for child in A.children(e):
            if isinstance(child, A.Expr):
                _collect(child, bound, out)


def _names(patterns) -> FrozenSet[str]:
    names: Set[str] = set()
    for p in patterns:
        names.update(A.pattern_names(p))
    return frozenset(names)
