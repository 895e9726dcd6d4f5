"""The kernel's root rule: a definition against its val (Abs; LetRec-Induction for a recursive
one), with the Safety premise, the body's derivation and the inductions of the observe-folds
it uses — or ExactFinite alone.

``derive(proof, val, decl, root)`` binds the parameters to fresh variables under the val's
ranges and refinements (``bind_parameters``), runs Safety in each run (``checker.safety``),
checks the body against the claim (``checker.relational``) or decides it exactly
(``checker.exact``), and leaves every obligation in ``proof``.
"""
from __future__ import annotations

import re
from typing import List, Optional, Tuple

from obligations import terms as T
from obligations.model import Obligation, ObligationKind, Provenance
from obligations.records import replace
from obligations.schemas import instantiate
from verifier.language import ast as A
from verifier.language.resolve import counted_parameter, matched_parameter, recursive_call_sites, source_name
from verifier.translation import logic as L
from verifier.translation.calls import from_terms, leaves
from verifier.translation.ranges import value_facts
from verifier.translation.symbolic import Env, Monadic, SymValue
from verifier.translation.translate import bind_pattern
from checker import safety as S
from checker.exact import exact_finite
from checker.judgement import (Ctx, Node, Proof, Reject, arrows, expect, instantiated_cost,
                               make_claim, monad_is_equality, refinement_parts, says_equal,
                               simple_of, translated)
from checker.relational import check, check_pure


def _by_equality(val: A.ValDecl, decl: A.LetDecl):
    from verifier.language.strengthen import equality_strengthened
    return equality_strengthened(val), "by its equality case"


def _by_accumulator(val: A.ValDecl, decl: A.LetDecl):
    from verifier.language.strengthen import accumulator_strengthened
    return accumulator_strengthened(val, decl), "relative to an accumulator"


#: the roots that prove a recursive pure val strengthened: the stronger val, and how
_STRENGTHENED = {"LetRec-Induction-Eq": _by_equality, "LetRec-Induction-Acc": _by_accumulator}


def derive(p: Proof, val: A.ValDecl, decl: A.LetDecl, root: Node, steps: bool = False
           ) -> None:
    """The derivation of ``val`` for ``decl``: Abs (LetRec-Induction for a recursive
    definition) with the Safety premise, the body's derivation and the inductions of the
    observe-folds it uses — or ExactFinite alone. Its obligations are left in ``p``."""
    rule = "LetRec-Induction" if decl.recursive else "Abs"
    if decl.recursive and root.rule in _STRENGTHENED and not steps and p.point is None \
            and not p.steps:
        # the val strengthened by its equality case or relative to its accumulator, stated
        # here from the source: the definition is proved against it, and it is the induction
        # hypothesis; it implies the val (verifier.language.strengthen)
        strong, what = _STRENGTHENED[root.rule](val, decl)
        if strong is None or p.vals.get(val.name) is not val:
            raise Reject(f"node {root.id}: {root.rule} strengthens a recursive pure val "
                         f"{what}, which this one has not", decl.span)
        p.vals[val.name] = val = strong
        rule = root.rule
    premises = expect(root, (rule,), decl, f"the definition of {source_name(decl.name)}")
    if [n.rule for n in premises] == ["ExactFinite"]:
        if decl.recursive:
            raise Reject("ExactFinite decides definitions that are not recursive", decl.span)
        return exact_finite(p, decl, premises[0], *bind_parameters(p, val, decl, None))
    if len(premises) < 2:
        raise Reject(f"node {root.id}: premises Safety, the body and the observe-folds, or "
                     "ExactFinite", decl.span)
    position = induction_position(decl) if decl.recursive else None
    outermost = not p.steps and not steps and p.point is None
    from checker.joint import read_joint  # before the obligations that state the facts
    read_joint(p, [n for n in premises[2:] if n.rule == "LetRec-Joint"])
    if outermost:  # the release loops the derivation calls (App-Steps), before Safety
        release_loops(p, val, decl, root)
    by_value = premises[1].rule == "Pointwise-Value"
    if by_value:  # v and the helpers' invariants, before the parameters and Safety read them
        from checker.couplings import assume_point
        if p.point is not None:
            raise Reject("Pointwise-Value is not nested", decl.span)
        assume_point(p, val, decl, premises[1])
    ctx, val_env, body, rt, _ = bind_parameters(p, val, decl, position)
    shapes = expect(premises[0], ("Safety",), body, "the Safety premise")
    monadic = isinstance(rt, A.RMonad)
    saved = p.nonempty_claimed, p.nonempty_used
    p.nonempty_claimed, p.nonempty_used = S.nonempty_premises(shapes), set()
    try:
        with p.name_scope():
            result = _result_type(rt.body if monadic else rt)
            S.check_safety(p, ctx, body, monadic, result, _parameter_patterns(decl),
                           definition=decl)
        unused = set(p.nonempty_claimed) - p.nonempty_used
        if unused:
            at = min(unused)
            raise Reject(f"node {p.nonempty_claimed[at]}: NonEmpty-Induction at "
                         f"{at[0]}:{at[1]} is not the candidate list of an expMech the Safety "
                         "walk meets", decl.span)
    finally:
        p.nonempty_claimed, p.nonempty_used = saved
    if decl.recursive:
        every_recursive_call_terminates(p, val, decl)
    if monadic:
        claim = make_claim(p, val_env, rt, relation=True)
        if steps:  # a release loop: every path is length l steps (S-M-Steps)
            at, eps = p.steps[decl.name]
            length = A.App(A.Var("length", decl.span), A.Var(decl.params[at].name, decl.span),
                           decl.span)
            claim = replace(claim, steps=(
                translated(lambda: p.index_term(val_env, eps), decl.span),
                translated(lambda: p.index_term(val_env, length), decl.span)))
        if by_value:
            from checker.couplings import pointwise_value
            pointwise_value(p, replace(ctx, claim=claim), body, rt, premises[1], check, derive)
        elif premises[1].rule == "Pointwise":
            from checker.couplings import pointwise
            pointwise(p, replace(ctx, claim=claim), body, rt, premises[1], check)
        else:
            check(p, replace(ctx, claim=claim), body, premises[1])
    else:
        check_pure(p, ctx, val_env, body, rt, premises[1])
    if outermost and set(p.steps) != p.steps_derived:
        raise Reject("a release loop is used without its derivation (the first App-Steps of "
                     "each carries it)", decl.span)
    related = [n for n in premises[2:] if n.rule == "S-Fun"]
    if outermost:  # the functions passed in pure code whose call facts the proof assumes
        from checker.higher_order import related_premises
        related_premises(p, root, related)
    folds = [n for n in premises[2:] if n.rule not in ("S-Fun", "LetRec-Joint")]
    recorded = sorted((n.rule, n.at or ()) for n in folds)
    if any(n.premises for n in premises[2:]) or recorded != sorted(p.folds.values()):
        raise Reject(f"node {root.id}: the observe-folds and observes the proof uses are "
                     f"{sorted(r for r, _ in p.folds.values())}, not "
                     f"{[r for r, _ in recorded]}", decl.span)


def release_loops(p: Proof, val: A.ValDecl, decl: A.LetDecl, root: Node) -> None:
    """The release loops of the derivation ``root``: each App-Steps node whose first premise
    is a LetRec-Induction names a recursive helper without a val (by where that derivation
    is); the kernel states its val itself from the source (``invariants.steps_val``) and uses
    it in this proof only, proved where App-Steps carries its derivation."""
    from verifier.language.invariants import steps_val
    todo = [root]
    while todo:
        n = todo.pop()
        todo.extend(n.premises)
        if n.rule != "App-Steps" or not n.premises or n.premises[0].rule != "LetRec-Induction":
            continue
        at = n.premises[0].at
        helper = [d for d in p.program.lets() if d.recursive and at == (
            d.span.line, d.span.col, d.span.end_line, d.span.end_col)]
        if len(helper) != 1 or helper[0].name in p.vals or helper[0] is decl:
            raise Reject(f"node {n.id}: App-Steps carries the derivation of a recursive "
                         "helper without a val", decl.span)
        found = steps_val(helper[0], decl, val, p.type_of)
        if found is None:
            raise Reject(f"node {n.id}: {source_name(helper[0].name)} is not a release loop",
                         helper[0].span)
        p.vals[helper[0].name] = found[0]
        p.steps[helper[0].name] = found[1:]
        p.proved_here.add(helper[0].name)


def _parameter_patterns(decl: A.LetDecl) -> List[A.Pattern]:
    """The patterns of ``decl``'s parameters, those of a leading ``fun`` included."""
    params, body = list(decl.params), decl.body
    while isinstance(body, A.Fun):
        params, body = params + list(body.params), body.body
    return params


def _result_type(rt: A.RType) -> Optional[A.SimpleType]:
    try:
        return simple_of(rt)
    except Reject:
        return None


def induction_position(decl: A.LetDecl) -> Optional[int]:
    """The parameter a recursive definition is proved by induction on: the first one its body
    matches on (any list parameter gives a sound measure; this one is likely to decrease)."""
    position = matched_parameter(decl.params, decl.body)
    return position if position is not None else counted_parameter(decl.params, decl.body,
                                                                     decl.name)


def every_recursive_call_terminates(p: Proof, val: A.ValDecl, decl: A.LetDecl) -> None:
    """Every recursive call of ``decl`` (used or not: call by value) was evaluated by the
    Safety walk, which demanded that its list is shorter; a use of the name other than a
    call, or a call in code never evaluated, has no such obligation and is refused."""
    calls, stray = recursive_call_sites(decl, len(arrows(val.rtype)[0]))
    if stray:
        raise Reject(f"{source_name(decl.name)} is used other than in a call on all its "
                     "arguments: its termination is not shown", stray[0].span)
    shown = {(s.line, s.col, s.end_line, s.end_col) for ob in p.obligations
             if "(structural recursion: termination)" in ob.provenance.description
             for s in (ob.provenance.span,) if s is not None}
    for call in calls:
        s = call.span
        if (s.line, s.col, s.end_line, s.end_col) not in shown:
            raise Reject("a recursive call in code that is never evaluated: its termination "
                         "is not shown", call.span)


def bind_parameters(p: Proof, val: A.ValDecl, decl: A.LetDecl, position: Optional[int]
                    ) -> Tuple[Ctx, Env, A.Expr, A.RType, List[Optional[Tuple[T.Term, T.Term]]]]:
    """The context of ``decl``'s body under ``val``: each parameter bound to fresh variables
    (one shared variable when its refinement says it is equal in both runs) with its type's
    range and its refinements assumed; a computation parameter known by its type. Also the
    body after the parameters, the val's result type, and each parameter's terms in run 1
    and run 2 (None for a computation)."""
    params, body, rt = list(decl.params), decl.body, val.rtype
    ctx = Ctx(env=p.env_at(decl), function=decl.name if decl.recursive else None)
    val_env, k, terms = p.top_env, 0, []
    while isinstance(rt, A.RArrow):
        if not params:
            if not isinstance(body, A.Fun):
                raise Reject(f"{source_name(decl.name)} takes fewer parameters than its val",
                             decl.span)
            params, body = list(body.params), body.body
        pattern, dom = params.pop(0), rt.dom
        var, base, assertions = refinement_parts(dom)
        pname = pattern.name if isinstance(pattern, A.PVar) else (var or "arg")
        if isinstance(base, A.RMonad):
            equal = monad_is_equality(p, val_env, base)
            try:
                cost = instantiated_cost(p, val_env, base)
            except Reject:
                cost = None  # not M[F, delta] {x :: T | =}: it cannot be run
            value = Monadic(None, None, equal_in_runs=equal, rtype=base, name=pname, cost=cost)
            ctx = _bind(ctx, pattern, value, value)
            val_env = val_env.bind(var, value, value) if var else val_env
            terms.append(None)
        elif isinstance(base, A.RArrow):  # a function, related in the two runs by its type
            from checker.higher_order import bind as bind_function
            ctx = bind_function(p, ctx, pattern, dom, val_env, pname)
            terms.append(None)
        else:
            ctx, val_env, made = bind_first_order(p, ctx, val_env, pattern, dom)
            if made is not None and k == position and (L.list_key_of(made[0].sort)
                                                       or made[0].sort == T.INT):
                ctx = replace(ctx, induction=(position, *made))
            terms.append(made)
        k += 1
        rt = rt.cod
    if params:
        raise Reject(f"{source_name(decl.name)} takes more parameters than its val", decl.span)
    return replace(ctx, base=len(ctx.hyps)), val_env, body, rt, terms


def assumptions(p: Proof, val: A.ValDecl, decl: A.LetDecl) -> Optional[Obligation]:
    """The claim's assumptions as one obligation ``assumptions ⊢ false``: the parameters bound
    as the derivation binds them (``bind_parameters``: their types' ranges and refinements,
    as hypotheses) with the ground axioms their terms need. It holds exactly when no pair of
    inputs satisfies them (a vacuous claim, which must not be verified: docs/verifier.md,
    "Vacuous assumptions"). None when no parameter is refined by more than equality."""
    informative = False
    for dom in arrows(val.rtype)[0]:
        assertions = []
        while isinstance(dom, A.RRefine):
            assertions.append(dom.assertion)
            dom = dom.base
        informative |= any(not (isinstance(a, A.SameRuns) or isinstance(a, A.BoolLit) and a.value)
                           for a in assertions)
    if not informative:
        return None
    with p.name_scope():
        ctx = bind_parameters(p, val, decl, None)[0]
    hyps = tuple(ctx.hyps)
    axioms = tuple((i.name, i.term) for i in instantiate([t for _, t in hyps]))
    return Obligation(kind=ObligationKind.ENTAILMENT, hypotheses=hyps, goal=T.boolean(False),
                      axioms=axioms, provenance=Provenance(
                          rule="Vacuity", node="", description="the claim's assumptions "
                          "relate no two inputs", span=None))


def bind_first_order(p: Proof, ctx: Ctx, val_env: Env, pattern: A.Pattern, dom: A.RType
                     ) -> Tuple[Ctx, Env, Optional[Tuple[T.Term, T.Term]]]:
    """A first-order parameter ``pattern`` of domain ``dom`` bound to fresh variables (one per
    component, shared when its refinement says it is equal in both runs), its type's range
    and its refinements assumed; also its terms in run 1 and run 2 (None for a tuple)."""
    var, base, assertions = refinement_parts(dom)
    pname = pattern.name if isinstance(pattern, A.PVar) else (var or "arg")
    sorts = leaves(base.type) if isinstance(base, A.RSimple) else None
    if sorts is None:
        raise Reject("a parameter of this type is not supported by the kernel", dom.span)
    shared = var is not None and says_equal(var, assertions)
    made = [p.fresh_pair(pname if len(sorts) == 1 else f"{pname}{i}", sort, shared)
            for i, sort in enumerate(sorts, 1)]
    left = from_terms(base.type, [x for x, _ in made])
    right = from_terms(base.type, [y for _, y in made])
    ctx = _bind(ctx, pattern, left, right)
    if var is not None:
        val_env = val_env.bind(var, left, right)
    facts = _value_facts(base.type, left) + ([] if shared else _value_facts(base.type, right))
    if facts:
        ctx = ctx.assume(_hyp(pname + "_range"), T.and_(*facts))
    for a in assertions:
        if not isinstance(a, A.SameRuns):
            ctx = ctx.assume(_hyp(pname), translated(
                lambda: p.assertion(val_env, a, refined=var), a.span))
    return ctx, val_env, (made[0] if len(sorts) == 1 else None)


def _hyp(name: str) -> str:
    return "h_" + re.sub(r"[^A-Za-z0-9_]", "_", name)


def _bind(ctx: Ctx, pattern: A.Pattern, left: SymValue, right: SymValue) -> Ctx:
    """Bind a parameter's pattern (a name, ``_``, ``()``, or a tuple of them)."""
    return ctx.with_env(translated(lambda: bind_pattern(ctx.env, pattern, left, right,
                                                        pattern.span), pattern.span))


def _value_facts(t: A.SimpleType, value: SymValue) -> List[T.Term]:
    facts = value_facts(t, value)
    if facts is None:
        raise Reject("a parameter whose type the kernel cannot state")
    return facts
