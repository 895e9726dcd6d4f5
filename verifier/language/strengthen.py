"""The equality case of an induction (issue #26: folds and maps with function parameters),
shared by the derivation builder and the certificate kernel.

A recursive pure val ``f :: {x1 :: T1 | P1} -> … -> {r :: R | Q}`` is proved by induction on
a list parameter: at a cons, the unfolding of ``adj (x :: xs, y :: ys)`` leaves either equal
heads and adjacent tails (the induction hypothesis applies) or different heads and *equal*
tails — where ``Q`` alone (a sensitivity bound, say) says too little of the two runs' recursive
calls: the proof needs them equal. The claim is not inductive; a stronger one is:

    {r :: R | Q /\\ (x1<1> = x1<2> /\\ … /\\ xn<1> = xn<2> => r<1> = r<2>)}

over the first-order parameters (a parameter of function type is left out: the two runs'
functions are related by its type, not equal, and whether they give equal results on equal
arguments is what the proof of the stronger claim must show from that type). The stronger
claim implies the written one (it is a conjunction with it), so proving the definition against
it, by the same induction, proves the val; callers still read the val as written.
``LetRec-Induction-Eq`` (docs/verifier.md) is that root rule: the kernel states the stronger
claim itself, from the source, with this function.
"""
from __future__ import annotations

from typing import List, Optional

from verifier.language import ast as A


def equality_strengthened(val: A.ValDecl) -> Optional[A.ValDecl]:
    """``val`` with its pure result's refinement strengthened by the equality case (module
    docstring), or None when it does not apply: a codomain that is not a refined first-order
    value, one already refined ``=``, or a first-order parameter without a name (it could not
    be written in the assertion) or none at all."""
    rt, doms = val.rtype, []
    while isinstance(rt, A.RArrow):
        doms.append(rt.dom)
        rt = rt.cod
    if not isinstance(rt, A.RRefine) or isinstance(rt.assertion, A.SameRuns):
        return None
    inner = rt.base
    while isinstance(inner, A.RRefine):
        inner = inner.base
    if not isinstance(inner, A.RSimple):
        return None
    names: List[str] = []
    for d in doms:
        base = d
        while isinstance(base, A.RRefine):
            base = base.base
        if isinstance(base, A.RArrow):
            continue  # a function: related, not equal
        if not isinstance(base, A.RSimple) or not isinstance(d, A.RRefine):
            return None
        names.append(d.var)
    if not names:
        return None
    s = rt.span

    def same(name: str) -> A.Expr:
        return A.BinOp("=", A.RunVar(name, 1, s), A.RunVar(name, 2, s), s)
    premise = same(names[0])
    for n in names[1:]:
        premise = A.Conj(premise, same(n), s)
    case = A.Implies(premise, same(rt.var), s)
    strong: A.RType = A.RRefine(rt.var, rt.base, A.Conj(rt.assertion, case, s), s)
    for d in reversed(doms):
        strong = A.RArrow(d, strong, s)
    return A.ValDecl(val.name, strong, val.span)
