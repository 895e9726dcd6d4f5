"""Syntactic shapes of pure code: a call of a local recursive function that always returns a
non-empty list.

``expMech (eps, score, x, rs)`` demands that the candidate list ``rs`` is not empty (V005).
When ``rs`` is a call ``f a1 … an`` of a local ``let rec f p1 … pn = body`` (which has no val,
so nothing is known of its result in the logic), ``always_nonempty(body, f, params)`` reads
the shape of ``body``: every value ``f`` returns is a non-empty list when every path of
``body`` ends in

* a list literal with at least one element, or a cons ``x :: rest``;
* an ``if`` or a ``match`` whose every branch is non-empty, or a ``let`` (``let rec``) whose
  body is;
* a name known to be a non-empty list: bound by a ``let`` to a non-empty expression, or the
  scrutinee ``l`` of a ``match l with ... | x :: rest -> ...`` in its cons branch;
* a recursive call ``f b1 … bn`` of ``f`` itself, fully applied.

The last case is fixpoint induction: every value ``f`` returns is returned by some finite
unfolding of its body, and by induction on that depth the calls it makes to itself returned
non-empty lists. A call that does not return (it diverges or fails) returns no value, so the
property constrains nothing there (partial correctness is what "every value returned is
non-empty" asks; that each call terminates without error is the Safety walk's own check).

Anything else — another function's call, ``f`` partially applied or passed as a value, a
name rebound (a parameter, a ``let``, a ``match`` binder or an inner ``let rec`` named like
``f`` or like a name known non-empty), a parameter itself — is *not known*: ``False``. The
analysis is purely syntactic and conservative; it does not rely on the resolver's renaming
(though on the resolved core no binder shadows another).

Shared by the builder (``verifier.rules.safety``) and the certificate kernel
(``checker.safety``), which re-derives it from the source it parsed: it is part of the
trusted front end, like the resolver.
"""
from __future__ import annotations

from typing import FrozenSet, Optional, Sequence

from verifier.language import ast as A

__all__ = ["always_nonempty", "nonempty_call"]


def _pattern_names(p: A.Pattern) -> FrozenSet[str]:
    if isinstance(p, A.PVar):
        return frozenset((p.name,))
    if isinstance(p, A.PTuple):
        out: FrozenSet[str] = frozenset()
        for item in p.items:
            out |= _pattern_names(item)
        return out
    return frozenset()


def _spine(e: A.Expr):
    args = []
    while isinstance(e, A.App):
        args.append(e.arg)
        e = e.fn
    return e, args[::-1]


def always_nonempty(body: A.Expr, name: str, params: Sequence[A.Pattern]) -> bool:
    """Whether every value of a call of ``let rec name params = body`` is a non-empty list
    (see the module docstring); False when not known."""
    arity = len(params)
    if arity == 0:
        return False
    bound = set()
    for p in params:
        bound |= _pattern_names(p)
    if name in bound:  # a parameter named like the function hides it in the body
        return False
    return _ends_nonempty(body, name, arity, frozenset())


def _ends_nonempty(e: A.Expr, f: Optional[str], arity: int, known: FrozenSet[str]) -> bool:
    """Every path of ``e`` ends in a non-empty list, with ``f`` (when not None) the function
    being defined (its full calls assumed non-empty) and ``known`` the names bound to
    non-empty lists."""
    if isinstance(e, A.ListLit):
        return len(e.items) >= 1
    if isinstance(e, A.Cons):
        return True
    if isinstance(e, A.Var):
        return e.name in known
    if isinstance(e, A.If):
        return _ends_nonempty(e.then, f, arity, known) and \
            _ends_nonempty(e.else_, f, arity, known)
    if isinstance(e, A.Match):
        if not _ends_nonempty(e.nil_body, f, arity, known):
            return False
        binders = frozenset(n for n in (e.head, e.tail) if n != "_")
        inner_f = None if f in binders else f
        inner_known = known - binders
        if isinstance(e.scrutinee, A.Var) and e.scrutinee.name not in binders:
            inner_known |= {e.scrutinee.name}  # the scrutinee is a cons in this branch
        return _ends_nonempty(e.cons_body, inner_f, arity, inner_known)
    if isinstance(e, A.Let):
        names = _pattern_names(e.pattern)
        inner_known = known - names
        if isinstance(e.pattern, A.PVar) and _ends_nonempty(e.value, f, arity, known):
            inner_known |= names
        return _ends_nonempty(e.body, None if f in names else f, arity, inner_known)
    if isinstance(e, A.LetRec):
        return _ends_nonempty(e.body, None if f == e.name else f, arity, known - {e.name})
    if isinstance(e, A.App) and f is not None:
        head, args = _spine(e)
        return isinstance(head, A.Var) and head.name == f and len(args) == arity
    return False


def nonempty_call(e: A.Expr, name: str, params: Sequence[A.Pattern], body: A.Expr) -> bool:
    """``e`` is a call of ``let rec name params = body`` applied to exactly its arguments, and
    that function always returns a non-empty list."""
    head, args = _spine(e)
    return isinstance(head, A.Var) and head.name == name and len(args) == len(params) \
        and always_nonempty(body, name, params)
