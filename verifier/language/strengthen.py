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

**The accumulator case** (``LetRec-Induction-Acc``). A fold with an accumulator,

    val f :: {acc :: real | =} -> {l :: real list | adj (l<1>, l<2>)} -> {s :: real | Q}
    let rec f acc l = match l with [] -> acc | x :: rest -> f (acc + g x) rest

is not inductive either: past the position where the lists differ, the recursive call gets
accumulators that differ between the runs, where the val (``acc`` equal) says nothing. When
``Q`` reads the result only through the difference ``s<1> - s<2>``, the claim relative to the
accumulator is stronger and inductive:

    {acc :: real | true} -> … -> {s :: real | Q[(s<1> - acc<1>) - (s<2> - acc<2>) / s<1> - s<2>]
                                   /\\ (l<1> = l<2> /\\ … => s<1> - acc<1> = s<2> - acc<2>)}

(the equality case relative to the accumulator: equal other arguments add equal amounts). It
implies the val: for ``acc<1> = acc<2>`` the two differences are the same term, and the
accumulator's domain only widens. The accumulator is the one parameter refined ``=``, of type
``real`` or ``int``, that a recursive call passes changed; with none or several, no
strengthening.
"""
from __future__ import annotations

from typing import List, Optional, Tuple

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


def accumulator_strengthened(val: A.ValDecl, decl: A.LetDecl) -> Optional[A.ValDecl]:
    """``val`` strengthened relative to the accumulator of ``decl`` (the module docstring's
    accumulator case), or None when it does not apply."""
    rt, doms = val.rtype, []
    while isinstance(rt, A.RArrow):
        doms.append(rt.dom)
        rt = rt.cod
    if not decl.recursive or len(doms) != len(decl.params) or not isinstance(rt, A.RRefine) \
            or isinstance(rt.assertion, A.SameRuns) or not _numeric(rt.base) \
            or not _through_difference(rt.assertion, rt.var):
        return None
    position = _accumulator(doms, decl)
    if position is None:
        return None
    acc, s = doms[position].var, rt.span
    others: List[str] = []
    for k, d in enumerate(doms):
        base = d
        while isinstance(base, A.RRefine):
            base = base.base
        if k == position or isinstance(base, A.RArrow):
            continue
        if not isinstance(base, A.RSimple) or not isinstance(d, A.RRefine):
            return None
        others.append(d.var)
    if not others:
        return None

    def run(name: str, i: int) -> A.Expr:
        return A.RunVar(name, i, s)

    def relative(i: int) -> A.Expr:
        return A.BinOp("-", run(rt.var, i), run(acc, i), s)
    moved = _difference_replaced(rt.assertion, rt.var, A.BinOp("-", relative(1), relative(2), s),
                                 A.BinOp("-", relative(2), relative(1), s))
    premise: A.Expr = A.BinOp("=", run(others[0], 1), run(others[0], 2), s)
    for n in others[1:]:
        premise = A.Conj(premise, A.BinOp("=", run(n, 1), run(n, 2), s), s)
    case = A.Implies(premise, A.BinOp("=", relative(1), relative(2), s), s)
    strong: A.RType = A.RRefine(rt.var, rt.base, A.Conj(moved, case, s), s)
    for k, d in reversed(list(enumerate(doms))):
        if k == position:
            d = A.RRefine(d.var, d.base, A.BoolLit(True, d.span), d.span)
        strong = A.RArrow(d, strong, s)
    return A.ValDecl(val.name, strong, val.span)


def _numeric(rt: A.RType) -> bool:
    while isinstance(rt, A.RRefine):
        rt = rt.base
    return isinstance(rt, A.RSimple) and isinstance(rt.type, A.TBase) \
        and rt.type.name in ("real", "int")


def _accumulator(doms: List[A.RType], decl: A.LetDecl) -> Optional[int]:
    """The position of the one parameter refined exactly ``=`` (a number) that a recursive
    call of ``decl`` passes changed, or None."""
    names = [p.name if isinstance(p, A.PVar) else None for p in decl.params]
    calls = _recursive_calls(decl.body, decl.name, len(names))
    if calls is None or not calls:
        return None
    found = [k for k, d in enumerate(doms)
             if isinstance(d, A.RRefine) and isinstance(d.assertion, A.SameRuns)
             and _numeric(d.base) and names[k] is not None
             and any(not (isinstance(args[k], A.Var) and args[k].name == names[k])
                     for args in calls)]
    return found[0] if len(found) == 1 else None


def _recursive_calls(e: A.Expr, name: str, arity: int) -> Optional[List[Tuple[A.Expr, ...]]]:
    """The argument tuples of the calls of ``name`` in ``e`` (None when ``name`` occurs other
    than applied to ``arity`` arguments)."""
    calls: List[Tuple[A.Expr, ...]] = []
    applied = set()
    for n in A.descendants(e):
        if isinstance(n, A.App):
            args: List[A.Expr] = []
            head: A.Expr = n
            while isinstance(head, A.App):
                args.insert(0, head.arg)
                head = head.fn
            if isinstance(head, A.Var) and head.name == name and id(n) not in applied:
                if len(args) != arity:
                    return None
                calls.append(tuple(args))
                inner = n
                while isinstance(inner, A.App):
                    applied.add(id(inner))
                    inner = inner.fn
    mentions = sum(1 for n in A.descendants(e) if isinstance(n, A.Var) and n.name == name)
    return calls if mentions == len(calls) else None


def _is_difference(e: A.Expr, var: str) -> bool:
    return isinstance(e, A.BinOp) and e.op == "-" \
        and isinstance(e.left, A.RunVar) and isinstance(e.right, A.RunVar) \
        and e.left.name == var == e.right.name and {e.left.run, e.right.run} == {1, 2}


def _through_difference(e: A.Expr, var: str) -> bool:
    """Whether ``var``'s two runs occur in ``e`` only as ``var<1> - var<2>`` (or ``var<2> -
    var<1>``), and at least once."""
    if _is_difference(e, var):
        return True
    if isinstance(e, (A.RunVar, A.Var)) and e.name == var:
        return False
    kids = [c for c in A.children(e) if isinstance(c, A.Expr)]
    return bool(kids) and all(_through_difference(c, var) or not _mentions(c, var) for c in kids) \
        and any(_mentions(c, var) for c in kids)


def _mentions(e: A.Expr, var: str) -> bool:
    return any(isinstance(n, (A.RunVar, A.Var)) and n.name == var
               for n in [e, *A.descendants(e)])


def _difference_replaced(e: A.Expr, var: str, by_12: A.Expr, by_21: A.Expr) -> A.Expr:
    """``e`` with ``var<1> - var<2>`` replaced by ``by_12`` and ``var<2> - var<1>`` by
    ``by_21``."""
    return A.transform(e, lambda n: (by_12 if n.left.run == 1 else by_21)
                     if _is_difference(n, var) else None)
