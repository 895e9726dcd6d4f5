"""Function types of parameters (HOARe²'s arrows, issue #26), below the builder: what a
parameter of function type may be (``function_type``), and what a call fact about calls that
pass functions rests on (``Related``, ``passed_at``). Shared by the call facts, which the
builder uses, and the higher-order rules (``verifier.rules.higher_order``), which stand above
it."""
from __future__ import annotations

from typing import List, Optional, Tuple

from obligations import terms as T
from obligations.records import record
from verifier.language import ast as A
from verifier.rules.refinements import refinement_parts
from verifier.translation.calls import leaves
from verifier.translation.symbolic import Closure, Env, FunParam, NamedFun, SymValue
from verifier.translation.translate import NoRule


def function_type(rt: A.RType, span) -> Tuple[List[A.RType], A.RType]:
    """The domains and the codomain of a function type a parameter may have, or NoRule:
    first-order domains, a codomain ``M[F, delta] {r :: U | A}`` (returned as the
    ``RMonad``) or a pure first-order value ``{r :: U | Q}`` (returned refined)."""
    var, base, assertions = refinement_parts(rt)
    if assertions:
        raise NoRule("a refinement of a parameter of function type is not supported", span)
    doms: List[A.RType] = []
    while isinstance(base, A.RArrow):
        doms.append(base.dom)
        base = base.cod
    for d in doms:
        _, b, _ = refinement_parts(d)
        if not isinstance(b, A.RSimple) or leaves(b.type) is None:
            raise NoRule("the parameters of a function passed as an argument must be "
                         "first-order data (no functions or computations)", d.span)
    _, cod, more = refinement_parts(base)
    if isinstance(cod, A.RMonad) and not more:
        return doms, cod
    if isinstance(cod, A.RSimple) and leaves(cod.type) is not None:
        return doms, base
    raise NoRule("parameters of function type are supported when the function returns a "
                 "computation (… -> M[F, delta] {r :: T | =}) or first-order data (… -> "
                 "{r :: T | Q})", span)


@record
class Related:
    """What a call fact relating a run 1 call and a run 2 call of the val ``callee`` that pass
    functions rests on: the functions passed as its argument ``position`` (from 1), run 1's
    ``left`` and run 2's ``right``, have its domain ``want`` there (read in ``env``, its
    earlier parameters bound to the calls' arguments), whenever ``premises`` (the fact's own
    premises) hold, in the context of the claim's parameters (``base``: its hypotheses, which
    hold wherever the fact is used). ``at`` is where the function passed is written (a
    ``fun``'s body, a val's definition, a parameter's type): the S-Fun node's place."""

    callee: str
    position: int
    left: SymValue
    right: SymValue
    want: A.RType
    env: Env
    premises: Tuple[T.Term, ...]
    base: Tuple[Tuple[str, T.Term], ...]
    at: Optional[A.Span]


def passed_at(b, value: SymValue) -> Optional[A.Span]:
    """Where the function ``value`` is written: a ``fun``'s (or helper's) body, the
    definition of a val's function, the type of a parameter."""
    if isinstance(value, Closure):
        return value.body.span
    if isinstance(value, NamedFun):
        decl = b.let_of(value.name)
        return decl.span if decl is not None else None
    if isinstance(value, FunParam):
        return value.rtype.span
    return None
