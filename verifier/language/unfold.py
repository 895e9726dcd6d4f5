"""Unfolding calls of non-recursive top-level helpers, so that a construct is recognised by
what it means rather than how it is spelt (a likelihood written as a named helper,
``observe (fun r -> lik d r) prior`` or ``observe (lik d) prior``, is the likelihood its
definition states).

Works on the resolved core, where every binder has a name of its own in the whole program:
substituting a helper's parameters by the call's arguments can neither capture a name nor be
captured. Only arguments that are names or literals are substituted (a value is then neither
duplicated nor dropped: an argument that could fail is not moved past its evaluation), and a
helper is unfolded only when the call gives it exactly its parameters, all of them names.
The result is used to read a shape (a likelihood's family, datum and variance), never run.
"""
from __future__ import annotations

from typing import Callable, Dict, Optional

from verifier.language import ast as A

#: How many helper calls deep an unfolding goes (a helper may call another).
MAX_DEPTH = 4

Lookup = Callable[[str], Optional[A.LetDecl]]

_ATOMS = (A.Var, A.UnitLit, A.BoolLit, A.IntLit, A.RealLit)


def _spine(e: A.Expr):
    args = []
    while isinstance(e, A.App):
        args.append(e.arg)
        e = e.fn
    return e, list(reversed(args))


def _helper(head: A.Expr, lets: Lookup) -> Optional[A.LetDecl]:
    """The non-recursive top-level definition ``head`` names, whose parameters are names."""
    if not isinstance(head, A.Var):
        return None
    decl = lets(head.name)
    if decl is None or decl.recursive \
            or not all(isinstance(p, A.PVar) for p in decl.params):
        return None
    return decl


def _substituted(body: A.Expr, mapping: Dict[str, A.Expr]) -> A.Expr:
    return A.transform(body, lambda n: mapping.get(n.name)
                       if isinstance(n, A.Var) and n.name in mapping else None)


def unfold_call(e: A.Expr, lets: Lookup, depth: int = MAX_DEPTH) -> A.Expr:
    """``e`` with a saturated call ``h a1 … an`` of a helper replaced by its body with the
    arguments substituted (repeatedly, up to ``depth``); ``e`` itself when it is not one."""
    for _ in range(depth):
        head, args = _spine(e)
        decl = _helper(head, lets)
        if decl is None or len(args) != len(decl.params) or not args \
                or not all(isinstance(a, _ATOMS) for a in args):
            return e
        e = _substituted(decl.body, {p.name: a for p, a in zip(decl.params, args)})
    return e


def unfold_function(e: A.Expr, lets: Lookup) -> A.Expr:
    """``e`` as a one-parameter function ``fun x -> body`` with the calls of helpers in the
    body unfolded: ``fun x -> h a1 … x``, ``h a1 … ak`` (a helper given all but its last
    parameter) and a helper bound to a ``fun`` are read through their definitions; any other
    ``e`` is returned unchanged."""
    for _ in range(MAX_DEPTH):
        if isinstance(e, A.Fun):
            if len(e.params) != 1:
                return e
            body = unfold_call(e.body, lets)
            return e if body is e.body else A.replace_fields(e, body=body)
        head, args = _spine(e)
        decl = _helper(head, lets)
        if decl is None or not all(isinstance(a, _ATOMS) for a in args):
            return e
        if not decl.params and not args:
            e = decl.body  # let lik = fun r -> …
            continue
        if len(args) != len(decl.params) - 1:
            return e
        mapping = {p.name: a for p, a in zip(decl.params, args)}
        last = decl.params[-1]
        e = A.Fun(params=(last,), body=_substituted(decl.body, mapping), span=e.span)
    return e
