"""LiftIf: an ``if`` whose branches apply the same function, moved into the arguments.

``if c then h a1 … an else h b1 … bn`` (``h`` one function, mechanism or computation, or
both branches ``return``) is the application ``h (if c then a1 else b1) … (if c then an else
bn)``, with tuple arguments lifted component by component and equal arguments left as they
are. The rule applies when the two runs may take different branches (the If rule does not):
the lifted application then gets the usual rule of its head, whose arguments carry the
condition as ``ite`` terms — e.g. ``lapMech (eps, if c then a else b)`` costs
``eps · |ite(c<1>, a<1>, b<1>) − ite(c<2>, a<2>, b<2>)|``. docs/verifier.md argues why the
two expressions are one.
"""
from __future__ import annotations

from typing import List, Optional

from verifier.language import ast as A
from verifier.rules import core_rules  # noqa: F401  (the If rules, which LiftIf falls back from)
from verifier.rules.builder import Builder
from verifier.rules.context import Ctx, Synth
from verifier.rules.derivation import short
from verifier.rules.registry import monadic_rule, synthesis_rule
from verifier.translation.translate import NotApplicable, flatten_app


@monadic_rule(A.If, fallback=True)
def LiftIf(b: Builder, ctx: Ctx, e: A.If):
    """An if the two runs may take differently, checked as the application it equals."""
    lifted = lift_branches(b, e)
    premise = b.check_monadic(ctx, lifted)
    return b.node("If-Lift", ctx, e.span, f"{short(e, 40)} = {short(lifted, 40)}", [premise])


@synthesis_rule(A.If, fallback=True)
def LiftIfBound(b: Builder, ctx: Ctx, e: A.If) -> Synth:
    """LiftIf in the bound position of an mlet: the cost and output of the application."""
    lifted = lift_branches(b, e)
    inner = b.synth_monadic(ctx, lifted)
    node = b.node("If-Lift", ctx, e.span, f"{short(e, 40)} = {short(lifted, 40)}", [inner.node])
    return Synth(node, inner.cost, inner.output, inner.facts)


def lift_branches(b: Builder, e: A.If) -> A.Expr:
    """The application ``e`` equals, or ``NotApplicable`` when its branches do not apply one
    head to first-order arguments."""
    lifted = _lift(b, e.cond, e.then, e.else_, e)
    if lifted is None:
        raise NotApplicable("its branches do not apply the same function (or both return) to "
                            "first-order arguments, so the if cannot be moved into them",
                            e.span, e)
    return lifted


def _lift(b: Builder, cond: A.Expr, x: A.Expr, y: A.Expr, at: A.If) -> Optional[A.Expr]:
    """``if cond then x else y`` as one application, or None. Nested ifs in the branches are
    lifted first (``if c then h a else if d then h b else h d'``)."""
    x, y = _branch(b, x), _branch(b, y)
    if x is None or y is None:
        return None
    if x == y:  # the same expression in the same scope: the same value
        return x
    if isinstance(x, A.Return) and isinstance(y, A.Return):
        value = _argument(b, cond, x.value, y.value, at)
        return None if value is None else b.twin(A.Return(value, at.span), x)
    head, xs = flatten_app(x)
    other, ys = flatten_app(y)
    if not xs or head != other or len(xs) != len(ys):
        return None
    out, spine = head, _spine(x)
    for app, a1, a2 in zip(spine, xs, ys):
        arg = _argument(b, cond, a1, a2, at)
        if arg is None:
            return None
        out = b.twin(A.App(out, arg, at.span), app)
    return out


def _branch(b: Builder, x: A.Expr) -> Optional[A.Expr]:
    return _lift(b, x.cond, x.then, x.else_, x) if isinstance(x, A.If) else x


def _argument(b: Builder, cond: A.Expr, a1: A.Expr, a2: A.Expr, at: A.If) -> Optional[A.Expr]:
    """``if cond then a1 else a2`` as an argument: ``a1`` when they are one expression, a tuple
    of lifted components for two tuples, else the if itself — for first-order values only (an
    argument that is a computation or a function is not lifted)."""
    if a1 == a2:
        return a1
    if isinstance(a1, A.TupleLit) and isinstance(a2, A.TupleLit) \
            and len(a1.items) == len(a2.items):
        items = [_argument(b, cond, p, q, at) for p, q in zip(a1.items, a2.items)]
        if any(i is None for i in items):
            return None
        return b.twin(A.TupleLit(tuple(items), a1.span), a1)
    if not all(_first_order(b.type_of(a)) for a in (a1, a2)):
        return None
    return b.twin(A.If(cond, a1, a2, at.span), a1)


def _first_order(t: Optional[A.SimpleType]) -> bool:
    """A value of type ``t`` is data: no computation, function or unknown part."""
    if isinstance(t, (A.TBase, A.TFin, A.TSimplex, A.TDist)):
        return True
    if isinstance(t, A.TList):
        return _first_order(t.elem)
    if isinstance(t, A.TTuple):
        return all(_first_order(i) for i in t.items)
    return False


def _spine(x: A.Expr) -> List[A.App]:
    """The applications of ``h a1 … an``, innermost (``h a1``) first."""
    spine = []
    while isinstance(x, A.App):
        spine.append(x)
        x = x.fn
    return spine[::-1]
