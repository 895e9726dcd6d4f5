"""The kernel's LetRec-Local: a local recursive function over private data, proved against
the val its shape states and then known by it (docs/verifier.md, "Local recursive
functions").

The val is stated here from the source (``invariants.local_loop_val``: every parameter
``=``, the index the iteration's epsilon times the measure), never read from the
certificate. The function's body is checked against it by induction on the measure
(``LetRec-Induction``: a recursive call is App-Val on a shorter list or a smaller natural
counter), in the context where the function is defined, with no cost spent; the continuation
binds the function to two values known by that val, one per run (a ``FunParam``: App-Val
against it, never equal in both runs).
"""
from __future__ import annotations

from typing import Tuple

from obligations.records import replace
from verifier.language import ast as A
from verifier.language.free_vars import free_vars
from verifier.language.invariants import local_loop_val, loop_measure
from verifier.language.resolve import source_name
from verifier.translation.symbolic import loop_contexts
from checker.judgement import Ctx, Node, Proof, Reject, expect, make_claim


def captures_unequal(ctx: Ctx, e: A.LetRec) -> bool:
    """Whether the local function ``e`` captures a value not known equal in both runs (the
    condition under which the builder proves it as a loop rather than binding its code)."""
    from checker.relational import equal_goals
    params = {n for q in e.params for n in A.pattern_names(q)}
    for name in sorted(free_vars(e.value) - params - {e.name}):
        pair = ctx.env.lookup(name)
        if pair is not None and equal_goals(*pair) != []:
            return True
    return False


def local_loop(p: Proof, ctx: Ctx, e: A.LetRec, node: Node) -> Tuple[Ctx, Node]:
    """LetRec-Local at ``node`` (premises: the loop's LetRec-Induction, the continuation's
    derivation): the loop's body checked against its val; the continuation's context and
    node."""
    from checker.definition import bind_first_order
    from checker.relational import check
    proof, rest = expect(node, ("LetRec-Local",), e, "a local loop", premises=2)
    val = local_loop_val(e, p.type_of)
    if val is None:
        raise Reject(f"node {node.id}: {source_name(e.name)} is not a local loop (a list "
                     "walked or a counter counted down, releasing by lapMech)", e.span)
    if not captures_unequal(ctx, e):
        raise Reject(f"node {node.id}: {source_name(e.name)} captures only values equal in "
                     "both runs: it is bound to its code (LetRec)", e.span)
    if ctx.function is not None and ctx.function in free_vars(e.value):
        raise Reject(f"the local loop {source_name(e.name)} calls the enclosing recursive "
                     "function", e.span)
    (body_node,) = expect(proof, ("LetRec-Induction",), e,
                          f"the induction of {source_name(e.name)}", premises=1)
    known, inner = loop_contexts(ctx, e.name, val.rtype)
    position = loop_measure(e)
    val_env, rt = ctx.env, val.rtype
    for k, pattern in enumerate(e.params):
        inner, val_env, terms = bind_first_order(p, inner, val_env, pattern, rt.dom)
        if k == position and terms is not None:
            inner = replace(inner, induction=(position, *terms))
        rt = rt.cod
    if inner.induction is None:
        raise Reject(f"{source_name(e.name)} has no measure to be proved by induction on",
                     e.span)
    check(p, replace(inner, claim=make_claim(p, val_env, rt)), e.value, body_node)
    return known, rest
