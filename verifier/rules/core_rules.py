"""The HOARe² core rules under PrivInfer: abstraction (a definition against its ``val``),
application of a function with a ``val`` (App-Val), ``match`` (synchronous or split by the
unfoldings of ``adj`` / ``adjWithin`` / ``dist``), ``if``, and pure refinements.
"""
from __future__ import annotations

import re
from typing import List, Optional, Sequence, Tuple

from obligations import terms as T
from obligations.model import ObligationKind
from obligations.records import replace
from verifier.language import ast as A
from verifier.language.free_vars import free_vars
from verifier.language.invariants import local_loop_val, loop_measure
from verifier.language.pretty import pretty_rtype
from verifier.language.resolve import counted_parameter, matched_parameter, recursive_call_sites, written
from verifier.translation import logic as L
from verifier.rules import registry
from verifier.rules.builder import Builder
from verifier.rules.context import Claim, Cost, Ctx, Synth, zero_cost
from verifier.rules.derivation import Derivation, short
from verifier.rules.equality import equal_term, variable_goals
from verifier.rules.monadic_rules import fresh_output
from verifier.rules.refinements import (_instantiated_cost, _shared, fresh_value,
                                        monad_is_equality, refinement_parts, simple_of)
from verifier.rules.registry import judgement_rule, monadic_rule, synthesis_rule
from verifier.translation.symbolic import DistV, Env, FunParam, Monadic, Scalar, SymValue, loop_contexts
from verifier.translation.calls import element_value, from_terms, leaves
from verifier.translation.ranges import value_facts
from verifier.translation.translate import (NoRule, NotApplicable, bind_pattern, ite_value,
                                            missing_val)


# ---- definitions against their val ----------------------------------------------------------

@judgement_rule(registry.DEFINITION)
def check_definition(b: Builder, val: A.ValDecl, decl: A.LetDecl,
                     pointwise: bool = False, steps: bool = False) -> Derivation:
    """Abstraction: ``let f p1 … pn = body`` has the type ``val f :: D1 -> … -> R`` when the
    body has type R in the context of the parameters' refinements (with f's own val assumed
    for structurally smaller recursive calls). ``pointwise``: the body's derivation is the
    Pointwise rule's (``verifier.rules.couplings``)."""
    position = induction_position(decl) if decl.recursive else None
    ctx, val_env, parameters, body, rt = bind_parameters(b, val, decl, position)
    premises: List[Derivation] = []
    check_safety = registry.judgement(registry.SAFETY, decl.span)
    with b.name_scope():  # the two passes may reuse the same names for their own variables
        monadic = isinstance(rt, A.RMonad)
        safety = check_safety(b, ctx, body, monadic=monadic,
                              result=_result_type(rt.body if monadic else rt),
                              parameters=_parameter_patterns(decl), definition=decl)
        premises.append(safety)
    if decl.recursive:
        every_recursive_call_terminates(b, val, decl, safety)
    index = None
    if isinstance(rt, A.RMonad):
        claim = make_claim(b, val_env, rt, relation=True)
        index = claim.as_judgement()
        if steps:  # a release loop: every path is length l steps (S-M-Steps)
            position, eps = b.steps[decl.name]
            claim = replace(claim, steps=(b.index_term(val_env, eps), b.index_term(
                val_env, steps_count(decl, position))))
        if pointwise == "value":
            PointwiseValue = registry.judgement(registry.POINTWISE_VALUE, body.span)
            premises.append(PointwiseValue(b, replace(ctx, claim=claim), body, rt))
        elif pointwise:
            Pointwise = registry.judgement(registry.POINTWISE, body.span)
            premises.append(Pointwise(b, replace(ctx, claim=claim), body, rt))
        else:
            premises.append(b.check_monadic(replace(ctx, claim=claim), body))
    else:
        premises.append(check_pure(b, ctx, val_env, body, rt))
    return abstraction(b, val, decl, ctx, premises, index, parameters)


def steps_count(decl: A.LetDecl, position: int) -> A.Expr:
    """``length l`` for the list parameter at ``position`` of a release loop."""
    s = decl.span
    return A.App(A.Var("length", s), A.Var(decl.params[position].name, s), s)


def _parameter_patterns(decl: A.LetDecl) -> List[A.Pattern]:
    """The patterns of ``decl``'s parameters, those of a leading ``fun`` included (as
    ``bind_parameters`` binds them)."""
    params, body = list(decl.params), decl.body
    while isinstance(body, A.Fun):
        params, body = params + list(body.params), body.body
    return params


def _result_type(rt: A.RType) -> Optional[A.SimpleType]:
    """The simple type of what a val says a definition returns (None: nothing to show)."""
    try:
        return simple_of(rt)
    except NoRule:
        return None


def every_recursive_call_terminates(b: Builder, val: A.ValDecl, decl: A.LetDecl,
                                    safety: Derivation) -> None:
    """Every recursive call of ``decl``, wherever it stands — used or not, pure or monadic —
    has the Safety obligation, in each run, that its list is shorter (termination: the
    language is call by value, so a call in an unused ``let`` still runs). A call the Safety
    walk never evaluated (in a function that is never applied), or a use of the function's
    name other than a call, is refused: no obligation could speak for it."""
    arity = sum(1 for _ in _arrows(val.rtype))
    calls, stray = recursive_call_sites(decl, arity)
    if stray:
        raise NoRule(f"{written(decl.name)} is used here other than in a call on its "
                     f"{arity} arguments: the verifier needs every recursive call to be a direct "
                     "application, to prove that it terminates", stray[0].span)
    checked = {(ob.provenance.span.line, ob.provenance.span.col, ob.provenance.span.end_line,
                ob.provenance.span.end_col) for ob in safety.obligations
               if ob.provenance.description.endswith("termination) (run 1)")
               and ob.provenance.span is not None}
    for call in calls:
        s = call.span
        if (s.line, s.col, s.end_line, s.end_col) not in checked:
            raise NoRule(f"the recursive call {short(call)} is in code the verifier never "
                         "evaluates (a function that is never applied), so its termination "
                         "is not shown", call.span)


def _arrows(rt: A.RType):
    while isinstance(rt, A.RArrow):
        yield rt.dom
        rt = rt.cod


def bind_parameters(b: Builder, val: A.ValDecl, decl: A.LetDecl,
                    position: Optional[int] = None) -> Tuple[Ctx, Env, List[dict], A.Expr, A.RType]:
    """The context of ``decl``'s body under ``val``: its parameters bound to fresh variables
    with the val's refinements assumed (and the induction measure at list parameter
    ``position``); also each parameter's refinement variable and terms (judgement data), the
    body after the parameters, and the val's result type."""
    params: List[A.Pattern] = list(decl.params)
    body = decl.body
    rt = val.rtype
    ctx = Ctx(env=b.env_at(decl), function=decl.name if decl.recursive else None)
    val_env = b.top_env
    parameters: List[dict] = []
    while isinstance(rt, A.RArrow):
        if not params:
            if isinstance(body, A.Fun):
                params, body = list(body.params), body.body
            else:
                raise NoRule(f"{decl.name} takes fewer parameters than its val says", decl.span)
        ctx, val_env, terms = bind_parameter(b, ctx, val_env, params.pop(0), rt.dom)
        if len(parameters) == position and terms and (L.list_key_of(terms[0].sort)
                                                       or terms[0].sort == T.INT):
            ctx = replace(ctx, induction=(position, *terms))
        parameters.append({"var": refinement_parts(rt.dom)[0], "left": terms and terms[0],
                           "right": terms and terms[1]})
        rt = rt.cod
    if params:
        raise NoRule(f"{decl.name} takes more parameters than its val says", decl.span)
    return replace(ctx, base=len(ctx.hyps)), val_env, parameters, body, rt


def abstraction(b: Builder, val: A.ValDecl, decl: A.LetDecl, ctx: Ctx,
                premises: List[Derivation], index: Optional[dict],
                parameters: List[dict]) -> Derivation:
    """The root of a claim's derivation: the definition has the val's type, by ``premises``
    in the context ``ctx`` of its parameters."""
    rule = "LetRec-Induction" if decl.recursive else "Abs"
    if decl.recursive and b.strengthened is not None and b.strengthened[0] == decl.name:
        rule = b.strengthened[1]  # verifier.language.strengthen
    return b.node(rule, None, decl.span, f"{decl.name} :: {pretty_rtype(val.rtype)}", premises,
                  claim=pretty_rtype(val.rtype), function=decl.name, index=index,
                  parameters=parameters, induction=ctx.induction and ctx.induction[0],
                  assumptions=[{"name": n, "term": t} for n, t in ctx.hyps])


def induction_position(decl: A.LetDecl) -> Optional[int]:
    """The parameter a recursive definition is proved by induction on: the first one its body
    matches on (any list parameter gives a sound measure; this one is likely to decrease)."""
    position = matched_parameter(decl.params, decl.body)
    return position if position is not None else counted_parameter(decl.params, decl.body,
                                                                     decl.name)


def hyp_name(name: str) -> str:
    return "h_" + re.sub(r"[^A-Za-z0-9_]", "_", name)


def bind_parameter(b: Builder, ctx: Ctx, val_env: Env, p: A.Pattern, dom: A.RType
                   ) -> Tuple[Ctx, Env, Optional[Tuple[T.Term, T.Term]]]:
    """Bind a parameter to fresh variables and assume its refinement and range; also return
    its terms in both runs (None for a computation)."""
    var, base, assertions = refinement_parts(dom)
    pname = p.name if isinstance(p, A.PVar) else (var or "arg")
    if isinstance(base, A.RMonad):
        # two computations within the index of the type: equal ones when it says so, else
        # running one costs the index (the relation of a monadic parameter is its index)
        equal = monad_is_equality(b, val_env, base)
        try:
            cost = _instantiated_cost(b, val_env, base, f"{written(pname)} (its type)", dom.span)
        except NoRule:
            cost = None  # not of the form M[F, delta] {x :: T | =}: it cannot be run
        value = Monadic(None, None, equal_in_runs=equal, rtype=base, name=pname, cost=cost)
        ctx = _bind_both(ctx, p, value, value)
        return ctx, val_env.bind(var, value, value) if var else val_env, None
    if isinstance(base, A.RArrow):
        # a function, related in the two runs by its type (HOARe²'s logical relation)
        bind_function_parameter = registry.judgement(registry.FUNCTION_PARAMETER, dom.span)
        return bind_function_parameter(b, ctx, val_env, p, dom, pname), val_env, None
    if not isinstance(base, A.RSimple):
        raise NoRule(f"parameters of type {pretty_rtype(base)} are not supported", dom.span)
    sorts = leaves(base.type)
    if sorts is None:
        raise NoRule(f"parameters of type {pretty_rtype(base)} are not supported", dom.span)
    shared = var is not None and _shared(var, assertions)
    # first-order data: a variable per component (a tuple's, a simplex point's), one shared
    # by both runs when the refinement says the value is equal in both
    names = [pname] if len(sorts) == 1 else [f"{pname}{i}" for i in range(1, len(sorts) + 1)]
    pairs = [b.fresh_pair(n, sort, shared) for n, sort in zip(names, sorts)]
    left = from_terms(base.type, [x for x, _ in pairs])
    right = from_terms(base.type, [y for _, y in pairs])
    ctx = ctx.with_env(bind_pattern(ctx.env, p, left, right, p.span))
    if var is not None:
        val_env = val_env.bind(var, left, right)
    facts = value_facts(base.type, left) + ([] if shared else value_facts(base.type, right))
    if facts:
        ctx = ctx.assume(hyp_name(pname + "_range"), T.and_(*facts))
    for a in assertions:
        if not isinstance(a, A.SameRuns):
            ctx = ctx.assume(hyp_name(pname), b.assertion(val_env, a, refined=var))
    return ctx, val_env, (pairs[0] if len(sorts) == 1 else None)


def _bind_both(ctx: Ctx, p: A.Pattern, left: SymValue, right: SymValue) -> Ctx:
    return ctx.with_env(bind_pattern(ctx.env, p, left, right, p.span))


def make_claim(b: Builder, env: Env, rt: A.RMonad, relation: bool = False) -> Claim:
    """The claim ``M[F, delta] {x :: T | A}`` of a definition: its index, and the relation its
    outputs are lifted to. ``A`` is ``=`` unless ``relation`` allows any assertion relating
    ``x<1>`` and ``x<2>`` under a DP index (an approximate lifting: the paper's monad with a
    refinement other than equality, docs/verifier.md "Couplings")."""
    var, base, assertions = refinement_parts(rt.body)
    equality = var is not None and len(assertions) == 1 and isinstance(assertions[0], A.SameRuns)
    if not equality and not (relation and var is not None and rt.div.kind == "DP"):
        raise NoRule("the verifier supports monadic claims of the form M[F, delta] {x :: T | =}"
                     " (and, for DP, M[DP(eps), delta] {x :: T | A} with A relating x<1> and "
                     "x<2>)", rt.body.span)
    from verifier.language.pretty import pretty_expr
    eps = b.index_term(env, rt.div.eps) if rt.div.kind == "DP" else None
    delta = b.index_term(env, rt.delta) if rt.delta is not None else T.real(0)
    text = f"DP({written(pretty_expr(rt.div.eps))})" if rt.div.kind == "DP" else rt.div.kind
    if rt.delta is not None:
        text += f", delta {written(pretty_expr(rt.delta))}"
    return Claim(rt.div.kind, eps, delta, text, rt.span, var,
                 () if equality else tuple(assertions), env)


# ---- a local loop against the val its shape states ----------------------------------------

@monadic_rule(A.LetRec, first=True)
def LetRecLocal(b: Builder, ctx: Ctx, e: A.LetRec) -> Derivation:
    """``let rec f … = v in m`` where ``f`` is a local loop over private data
    (``local_loop``): ``m`` with ``f`` known by its val."""
    inner, proof = local_loop(b, ctx, e)
    body = b.check_monadic(inner, e.body)
    return b.node("LetRec-Local", ctx, e.span, f"let rec {written(e.name)} …: a loop by its "
                  "val", [proof, body])


@synthesis_rule(A.LetRec, first=True)
def LetRecLocalBound(b: Builder, ctx: Ctx, e: A.LetRec) -> Synth:
    inner, proof = local_loop(b, ctx, e)
    rest = b.synth_monadic(inner, e.body)
    node = b.node("LetRec-Local", ctx, e.span, f"let rec {written(e.name)} …: a loop by its "
                  "val", [proof, rest.node])
    return Synth(node, rest.cost, rest.output, rest.facts)


def local_loop(b: Builder, ctx: Ctx, e: A.LetRec) -> Tuple[Ctx, Derivation]:
    """LetRec-Local: a local recursive function returning a computation, which captures a
    value not shown equal in both runs (else it is code equal in both, ``LetRec``), is proved
    against the val its shape states (``invariants.local_loop_val``: every parameter ``=``,
    the index the iteration's epsilon times the measure) by induction on the measure, in the
    context where it is defined (what it captures keeps its values and facts there), with no
    cost spent yet: its premise ``LetRec-Induction``. The continuation's context binds ``f``
    to that val (one ``FunParam`` per run: called by App-Val, never shown equal in both runs).
    Raises ``NotApplicable`` when the shape does not fit."""
    params = {n for q in e.params for n in A.pattern_names(q)}
    captured = free_vars(e.value) - params - {e.name}
    val = local_loop_val(e, b.type_of)
    if val is None:
        raise NotApplicable(f"{written(e.name)} is not a local loop (a list walked or a counter "
                            "counted down, releasing by lapMech)", e.span, e)
    goals, _ = variable_goals(ctx.env, captured)
    if goals == [] or (goals is not None and b.holds(ctx, T.and_(*goals))):
        raise NotApplicable("the local function captures values equal in both runs", e.span, e)
    if ctx.function is not None and ctx.function in free_vars(e.value):
        raise NoRule(f"the local loop {written(e.name)} calls the enclosing recursive "
                     "function", e.span)
    known, inner = loop_contexts(ctx, e.name, val.rtype)
    position = loop_measure(e)
    val_env, rt = ctx.env, val.rtype
    for k, p in enumerate(e.params):
        inner, val_env, terms = bind_parameter(b, inner, val_env, p, rt.dom)
        if k == position and terms:
            inner = replace(inner, induction=(position, *terms))
        rt = rt.cod
    claim = make_claim(b, val_env, rt)
    body = b.check_monadic(replace(inner, claim=claim), e.value)
    stated = written(pretty_rtype(val.rtype))
    proof = b.node("LetRec-Induction", inner, e.span, f"{written(e.name)} :: {stated} (the "
                   "val of a local loop)", [body], claim=stated,
                   function=e.name, index=claim.as_judgement(), induction=position)
    return known, proof


# ---- pure refinements -----------------------------------------------------------------------

def check_pure(b: Builder, ctx: Ctx, val_env: Env, body: A.Expr, rt: A.RType) -> Derivation:
    """``ctx ⊢ body :: rt`` for a pure result type."""
    if isinstance(body, A.Match):
        cases, branch = split_match(b, ctx, body)
        premises = [check_pure(b, c, val_env, e, rt) for c, e in cases]
        return b.node("Match", ctx, body.span, f"match {short(body.scrutinee)}", premises,
                      branch=branch)
    if isinstance(body, A.If) and same_branch(b, ctx, body):
        cases, branch = split_if(b, ctx, body)
        premises = [check_pure(b, c, val_env, e, rt) for c, e in cases]
        return b.node("If", ctx, body.span, f"if {short(body.cond)}", premises, branch=branch)
    # otherwise (an if whose runs may take different branches included) the body is
    # translated: the logic's ite relates the two runs' branches
    var, base, assertions = refinement_parts(rt)
    (left, right), ranges = b.translate_pair(ctx, body)
    obligations = list(ranges)
    if var is not None:
        env = val_env.bind(var, left, right)
        for a in assertions:
            goal = refinement_goal(b, env, a, var, left, right, body.span)
            obligations.append(b.oblige(ctx, ObligationKind.ENTAILMENT, goal,
                                        f"the result satisfies {pretty_rtype(rt)}", body.span,
                                        "Sub"))
    return b.node("Sub", ctx, body.span, f"{short(body)} :: {pretty_rtype(rt)}",
                  obligations=obligations)


# ---- match and if -------------------------------------------------------------------------

def _branch(mode: str, terms: Tuple[T.Term, T.Term], proved, bound=()) -> dict:
    """Judgement data: why both runs take the same branch (``proved``: the obligation and its
    result, or None when the two terms are one), and what the :: case of a match binds."""
    ob, result = proved or (None, None)
    out = {"mode": mode, "terms": terms, "obligation": ob, "result": result}
    if mode != "if":
        out["bound"] = list(bound)
    return out


def split_match(b: Builder, ctx: Ctx, e: A.Match) -> Tuple[List[Tuple[Ctx, A.Expr]], dict]:
    """The cases of a match, each with its context (Match-Sync or Match-Split), and why the
    two runs take the same branch (the lists are equal, or have equal lengths)."""
    (left, right), _ = b.translate_pair(ctx, e.scrutinee)
    l1, l2 = Scalar_term(left, e), Scalar_term(right, e)
    key = L.list_key_of(l1.sort)
    if key is None:
        raise NoRule("match on a value that is not a list", e.scrutinee.span)
    nil = L.nil(l1.sort)
    esort = L.elem_sort(key)
    same = None if l1 == l2 else b.proved(ctx, T.eq(l1, l2))
    if l1 == l2 or same is not None:
        h, _ = b.fresh_pair(e.head if e.head != "_" else "hd", esort, True)
        t, _ = b.fresh_pair(e.tail if e.tail != "_" else "tl", l1.sort, True)
        nil_ctx = ctx.assume("h_nil", T.and_(T.eq(l1, nil), T.eq(l2, nil))).in_case("[]")
        cons_ctx = ctx.assume("h_cons", T.and_(T.eq(l1, L.cons(h, t)), T.eq(l2, L.cons(h, t))))
        cons_ctx = _bind_cons(cons_ctx, e, (h, h), (t, t))
        return ([(nil_ctx, e.nil_body), (cons_ctx.in_case("::"), e.cons_body)],
                _branch("sync", (l1, l2), same, _cons_bound(e, (h, h), (t, t))))
    lengths = b.proved(ctx, T.eq(L.length(l1), L.length(l2)))
    if lengths is None:
        raise NoRule("the two runs may take different branches of this match (the lists may "
                     "have different lengths)", e.scrutinee.span)
    h1, h2 = b.fresh_pair(e.head if e.head != "_" else "hd", esort, False)
    t1, t2 = b.fresh_pair(e.tail if e.tail != "_" else "tl", l1.sort, False)
    nil_ctx = ctx.assume("h_nil", T.and_(T.eq(l1, nil), T.eq(l2, nil))).in_case("[]")
    cons_ctx = ctx.assume("h_cons", T.and_(T.eq(l1, L.cons(h1, t1)), T.eq(l2, L.cons(h2, t2))))
    cons_ctx = _bind_cons(cons_ctx, e, (h1, h2), (t1, t2))
    # the unfoldings of LANGUAGE.md at h1 :: t1 ~ h2 :: t2: dist and adj as equations, and a
    # case split on the disjuncts of every adj / adjWithin hypothesis about the two lists
    cons_ctx = cons_ctx.assume("h_dist_unfold", T.eq(
        L.hamming(l1, l2), T.add(T.ite(T.eq(h1, h2), 0, 1), L.hamming(t1, t2))))
    cons_ctx = cons_ctx.assume("h_adj_unfold", T.eq(
        L.adj(l1, l2), T.or_(T.and_(T.eq(h1, h2), L.adj(t1, t2)), T.eq(t1, t2))))
    # allWithin unfolds to the heads and the tails (lemma lists.allwithin.definition): no case
    for hyp, atom in ctx.hyps:
        if isinstance(atom, T.Apply) and atom.func.name == "allWithin" \
                and atom.args[:2] == (l1, l2):
            c = atom.args[2]
            cons_ctx = cons_ctx.assume(f"{hyp}_unfold", T.and_(
                T.le(T.abs_(T.sub(h1, h2)), c), L.all_within(t1, t2, c)))
    cases = [(cons_ctx.in_case("::"), e.cons_body)]
    for hyp, atom in ctx.hyps:
        if not isinstance(atom, T.Apply) or atom.func.name not in ("adj", "adjWithin"):
            continue
        if atom.args[:2] != (l1, l2):
            continue
        cases = [(c.assume(f"{hyp}_{label}", d).in_case(label), body)
                 for c, body in cases for label, d in _unfold(atom, h1, h2, t1, t2)]
    return ([(nil_ctx, e.nil_body)] + cases,
            _branch("split", (l1, l2), lengths, _cons_bound(e, (h1, h2), (t1, t2))))


def _unfold(atom: T.Apply, h1, h2, t1, t2) -> List[Tuple[str, T.Term]]:
    """The unfolding of ``adj`` / ``adjWithin`` at ``h1 :: t1 ~ h2 :: t2`` (LANGUAGE.md), as cases."""
    if atom.func.name == "adj":
        return [("same head", T.and_(T.eq(h1, h2), L.adj(t1, t2))), ("same tail", T.eq(t1, t2))]
    c = atom.args[2]
    return [("same head", T.and_(T.eq(h1, h2), L.adj_within(t1, t2, c))),
            ("same tail", T.and_(T.le(T.abs_(T.sub(h1, h2)), c), T.eq(t1, t2)))]


def _cons_bound(e: A.Match, heads, tails) -> List[dict]:
    """What the :: case binds, as judgement data (the head's and the tail's terms)."""
    return [{"name": name, "value": [list(terms)]}
            for name, terms in ((e.head, heads), (e.tail, tails)) if name != "_"]


def _bind_cons(ctx: Ctx, e: A.Match, heads, tails) -> Ctx:
    if e.head != "_":
        ctx = ctx.bind(e.head, element_value(heads[0]), element_value(heads[1]))
    if e.tail != "_":
        ctx = ctx.bind(e.tail, Scalar(tails[0]), Scalar(tails[1]))
    return ctx


def Scalar_term(v: SymValue, e: A.Node) -> T.Term:
    if not isinstance(v, Scalar):
        raise NoRule("expected a list", e.span)
    return v.term


def same_branch(b: Builder, ctx: Ctx, e: A.If) -> bool:
    """Whether both runs take the same branch of ``e`` (its condition is equal in both)."""
    c1, c2 = b.term_pair(ctx, e.cond)
    return c1 == c2 or b.holds(ctx, T.eq(c1, c2))


def split_if(b: Builder, ctx: Ctx, e: A.If) -> Tuple[List[Tuple[Ctx, A.Expr]], dict]:
    """The two branches with their contexts, and why both runs take the same one."""
    (left, right), _ = b.translate_pair(ctx, e.cond)
    c1, c2 = Scalar_term(left, e.cond), Scalar_term(right, e.cond)
    same = None if c1 == c2 else b.proved(ctx, T.eq(c1, c2))
    if not (c1 == c2 or same is not None):
        raise NotApplicable("the two runs may take different branches of this if", e.cond.span, e)
    return ([(ctx.assume("h_then", T.and_(c1, c2)).in_case("then"), e.then),
             (ctx.assume("h_else", T.and_(T.not_(c1), T.not_(c2))).in_case("else"), e.else_)],
            _branch("if", (c1, c2), same))


@monadic_rule(A.Match)
def Match(b: Builder, ctx: Ctx, e: A.Match):
    """Match-Sync when the scrutinee is equal in both runs, Match-Split otherwise."""
    cases, branch = split_match(b, ctx, e)
    premises = [b.check_monadic(c, body) for c, body in cases]
    rule = "Match-Split" if len(cases) > 2 or any("same" in c.case for c, _ in cases) else "Match"
    return b.node(rule, ctx, e.span, f"match {short(e.scrutinee)}", premises, branch=branch)


@monadic_rule(A.If)
def If(b: Builder, ctx: Ctx, e: A.If):
    """Both runs take the same branch (the condition is equal in both)."""
    cases, branch = split_if(b, ctx, e)
    premises = [b.check_monadic(c, body) for c, body in cases]
    return b.node("If", ctx, e.span, f"if {short(e.cond)}", premises, branch=branch)


# ---- match and if in a bound position ---------------------------------------------------------

@synthesis_rule(A.If)
def IfBound(b: Builder, ctx: Ctx, e: A.If) -> Synth:
    """``mlet x = (if c then m1 else m2) in …`` with ``c`` equal in both runs: both runs take
    the same branch, so the cost is the taken branch's and so is the output."""
    cases, branch = split_if(b, ctx, e)
    c1, c2 = branch["terms"]
    return synth_cases(b, ctx, e, "If", cases, (c1, c2), branch)


@synthesis_rule(A.Match)
def MatchBound(b: Builder, ctx: Ctx, e: A.Match) -> Synth:
    """Match-Sync in a bound position: the scrutinee is equal in both runs, so both take the
    same case; the cost is the taken case's, and so is the output."""
    cases, branch = split_match(b, ctx, e)
    if branch["mode"] != "sync":
        raise NoRule("a match that the two runs may take on different lists (Match-Split) has "
                     "no rule in the bound position of an mlet: move the mlet's continuation "
                     "into the cases", e.scrutinee.span)
    l1, l2 = branch["terms"]
    nil = L.nil(l1.sort)
    return synth_cases(b, ctx, e, "Match", cases, (T.eq(l1, nil), T.eq(l2, nil)), branch)


def synth_cases(b: Builder, ctx: Ctx, e: A.Expr, rule: str, cases, guards: Tuple[T.Term, T.Term],
                branch: dict) -> Synth:
    """Two cases that both runs take alike (the first where ``guards`` hold, in run 1 and run
    2), each synthesised in its context: the cost is the taken case's, ``ite(guard1, cost1,
    cost2)``, and so is the output in each run."""
    (ctx1, body1), (ctx2, body2) = cases
    first, second = b.synth_monadic(ctx1, body1), b.synth_monadic(ctx2, body2)
    cost = case_cost(guards[0], first.cost, second.cost, e)
    try:
        output = tuple(x if x == y else ite_value(g, x, y, e)
                       for g, x, y in zip(guards, first.output, second.output))
    except NoRule:  # outputs the logic cannot name (e.g. distributions of distributions) ...
        if any(out[0] != out[1] for out in (first.output, second.output)):
            raise
        out = fresh_output(b, ctx, e)  # ... but equal in both runs in each case
        output = (out, out)
    node = b.node(rule, ctx, e.span, f"{short(e, 40)}: the cost of the case taken",
                  [first.node, second.node], branch=branch)
    return Synth(node, cost, output, first.facts + second.facts)


def case_cost(guard: T.Term, c1: Cost, c2: Cost, e: A.Expr) -> Cost:
    """The cost of a computation that is ``c1``'s where ``guard`` holds, and ``c2``'s elsewhere:
    one family (``ZERO`` is zero in any family), ``ite`` of the epsilons and of the deltas."""
    families = {c1.family, c2.family} - {"ZERO"}
    if len(families) > 1:
        raise NoRule(f"the cases of this {'if' if isinstance(e, A.If) else 'match'} have costs "
                     f"in different divergences ({' and '.join(sorted(families))})", e.span)
    if not families:
        return zero_cost(f"({c1.what} or {c2.what})", e.span)

    def pick(x: T.Term, y: T.Term) -> T.Term:
        return x if x == y else T.ite(guard, x, y)
    return Cost(families.pop(), pick(c1.eps, c2.eps), pick(c1.delta, c2.delta),
                f"({c1.what} or {c2.what})", e.span)


# ---- application of a function with a val --------------------------------------------------

@judgement_rule(registry.APP_VAL)
def apply_val(b: Builder, ctx: Ctx, e: A.App, name: str, args: Sequence[A.Expr],
              param: Optional[FunParam] = None) -> Synth:
    """App-Val: the arguments satisfy the domain refinements of ``name``'s val; the result has
    the val's monadic type, instantiated with the arguments. With ``param``, ``name`` is a
    parameter of function type, applied against its declared type (``higher_order``)."""
    if param is None:
        val = b.val_of(name)
        if val is None:
            raise missing_val(name, e.span)
        rt, env = val.rtype, b.top_env
    else:
        rt, env = param.rtype, param.env
    doms = []
    while isinstance(rt, A.RArrow):
        doms.append(rt.dom)
        rt = rt.cod
    if len(args) != len(doms):
        raise NoRule(f"{name} is applied to {len(args)} arguments; its val has {len(doms)}",
                     e.span)
    obligations = [] if name != ctx.function else [_decreasing(b, ctx, e, args)]
    subsumptions: List[Derivation] = []  # S-M, for each computation passed within a bound
    arguments: List[dict] = []  # judgement: each argument's terms and how many obligations
    for i, (arg, dom) in enumerate(zip(args, doms), 1):
        var, base, assertions = refinement_parts(dom)
        start = len(obligations)
        arguments.append({"var": var, "left": None, "right": None, "obligations": 0})
        if isinstance(base, A.RMonad):
            if not monad_is_equality(b, env, base):
                # a computation within an index, passed on: it must be known within at most
                # the callee's (its own type says how far apart the two runs' are): S-M
                subsumptions.append(b.node(
                    "S-M", ctx, arg.span, f"argument {i} of {name} is within the bound its "
                    "val expects", obligations=_passed_within(b, ctx, arg, base, env, i, name)))
                value = Monadic(None, None, name=f"arg{i}")
                env = env.bind(var, value, value) if var else env
                continue
            equal_inputs = registry.judgement(registry.EQUAL_INPUTS, arg.span)
            same = equal_inputs(b, ctx, arg)
            if same is None:
                raise NoRule(f"argument {i} of {name} must be the same distribution in both runs",
                             arg.span)
            obligations += same.node.obligations
            arguments[-1]["obligations"] = len(obligations) - start
            value = Monadic(None, None, equal_in_runs=True, name=f"arg{i}")
            env = env.bind(var, value, value) if var else env
            continue
        if isinstance(base, A.RArrow):
            # a function passed where the val expects one: S-Fun (``higher_order``)
            function_argument = registry.judgement(registry.S_FUN, arg.span)
            subsumptions.append(function_argument(b, ctx, arg, dom, env, i, name))
            continue
        env, obs, (left, right) = first_order_argument(b, ctx, arg, dom, env,
                                                       f"argument {i} of {name}", "App-Val")
        if isinstance(left, (Scalar, DistV)) and isinstance(right, (Scalar, DistV)):
            arguments[-1].update(left=left.term, right=right.term)
        obligations += obs
        arguments[-1]["obligations"] = len(obligations) - start
    if not isinstance(rt, A.RMonad):
        raise NoRule(f"{name} does not return a distribution", e.span)
    cost = _instantiated_cost(b, env, rt, f"{name} ({'val' if param is None else 'its type'})",
                              e.span, related=True)
    if param is None:
        rule = "App-Val"
        if name in b.steps:  # a release loop: a batch of length l steps (S-M-Steps)
            cost, rule = app_steps(b, ctx, e, name, args, val, env, subsumptions)
        node = b.node(rule, ctx, e.span, f"{short(e)} by the val of {name}", subsumptions,
                      obligations=obligations, uses=name, arguments=arguments)
        if rule == "App-Steps":  # the helper's val is proved in this derivation
            node.judgement["invariants"] = [{"function": name, "val": pretty_rtype(val.rtype)}]
    else:
        node = b.node("App-Val", ctx, e.span, f"{short(e)} by the type of the parameter "
                      f"{written(name)}", subsumptions, obligations=obligations,
                      parameter=name, arguments=arguments)
    drawn = _out_type(rt)
    var, _, lifted = refinement_parts(rt.body)
    if not monad_is_equality(b, env, rt) and not _says_equal_only(var, lifted):
        if rt.div.kind != "DP":
            raise NoRule(f"{name} returns a computation whose outputs are related other than by "
                         "=: the verifier knows such couplings for DP indices only", e.span)
        # M[DP(eps), delta] {x :: T | A}: the two runs' outputs are coupled by A (an
        # approximate lifting of A), not equal: one fresh value per run, A assumed of them
        return _related_outputs(b, ctx, e, node, cost, drawn, var, lifted, env)
    if drawn is not None and leaves(drawn) is not None:
        # first-order data, a tuple included
        output: SymValue = fresh_value(b, drawn, ctx.binder or "out")[0]
    else:
        output = Monadic(None, None, equal_in_runs=True, name=f"out{node.id}")
    return Synth(node, cost, (output, output))


def refinement_goal(b: Builder, env: Env, a: A.Expr, var: Optional[str], left: SymValue,
                    right: SymValue, span) -> T.Term:
    """The assertion ``a`` of a refinement of ``var`` (bound in ``env`` to ``left``,
    ``right``) as a formula: ``=`` is the equality of the two runs' values."""
    if isinstance(a, A.SameRuns):
        goal = equal_term(left, right)
        if goal is None:
            raise NoRule("cannot compare these values in the logic", span)
        return goal
    return b.assertion(env, a, refined=var)


def first_order_argument(b: Builder, ctx: Ctx, arg: A.Expr, dom: A.RType, env: Env, what: str,
                         rule: str) -> Tuple[Env, List, Tuple[SymValue, SymValue]]:
    """A first-order argument ``arg`` of a val's domain ``dom`` (read in ``env``): the
    obligations that it has the domain's ranges (each run) and refinements, and ``env`` with
    the domain's variable bound to it (one value when the refinement says ``=``)."""
    var, base, assertions = refinement_parts(dom)
    (left, right), ranges = b.translate_pair(ctx, arg)
    obligations = list(ranges)
    if var is not None:
        env = env.bind(var, left, right)
    simple = simple_of(base)
    for run, value in ((1, left), (2, right)):
        if isinstance(value, Scalar):
            facts = L.range_facts(simple, value.term)
            if facts:
                obligations.append(b.oblige(
                    ctx, ObligationKind.RANGE, T.and_(*facts),
                    f"{what} has type {pretty_rtype(base)} (run {run})", arg.span, rule))
    for a in assertions:
        obligations.append(b.oblige(ctx, ObligationKind.ENTAILMENT,
                                    refinement_goal(b, env, a, var, left, right, arg.span),
                                    f"{what} satisfies its refinement {pretty_rtype(dom)}",
                                    arg.span, rule))
    if var is not None and _shared(var, assertions):
        # proved equal in both runs (above): the val's later types read it as one value, as
        # its own derivation did (one shared variable): ``M[DP(eps)]`` with ``eps`` given as
        # ``1.0 / length db`` on adjacent lists
        env = env.bind(var, left, left)
    return env, obligations, (left, right)


def app_steps(b: Builder, ctx: Ctx, e: A.App, name: str, args: Sequence[A.Expr],
              val: A.ValDecl, env: Env, premises: List[Derivation]) -> Tuple[Cost, str]:
    """App-Steps: a call of the release loop ``name`` (its val stated by
    ``invariants.steps_val``, ``b.steps``) is a batch of ``length l`` steps, each at most the
    loop's epsilon, whose ``eps`` is their sum (what every rule but S-M-Adv and S-M-Steps
    reads); ``env``: the val's parameters bound to the arguments. Outside the loop, the first
    call carries the loop's derivation (appended to ``premises``: by induction on the list,
    every path closed by S-M-Steps); inside, the call is the induction hypothesis (App-Val).
    The cost, and the rule of the node."""
    position, eps = b.steps[name]
    step = b.index_term(env, eps)
    count = b.index_term(env, steps_count(b.let_of(name), position))
    cost = Cost("DP", T.mul(T.to_real(count), step), T.real(0),
                f"{name}: length {short(args[position])} steps", e.span, two_sided=True,
                count=count, step=step)
    if name == ctx.function:
        return cost, "App-Val"
    if name not in b.steps_proved:  # its derivation, once
        b.steps_proved.add(name)
        premises.append(check_definition(b, val, b.let_of(name), steps=True))
    return cost, "App-Steps"


def _says_equal_only(var: Optional[str], assertions: Sequence[A.Expr]) -> bool:
    """The refinement of a monadic result is the claim's ``=`` (and nothing else)."""
    return var is not None and len(assertions) == 1 and isinstance(assertions[0], A.SameRuns)


def _related_outputs(b: Builder, ctx: Ctx, e: A.App, node: Derivation, cost: Cost,
                     drawn: Optional[A.SimpleType], var: Optional[str],
                     assertions: Sequence[A.Expr], env: Env) -> Synth:
    """App-Val of a val ``... -> M[DP(eps), delta] {x :: T | A}``: a fresh first-order value
    in each run, and ``A`` of the pair assumed for the continuation (the facts of the Synth).
    The val's derivation proved an approximate lifting of ``A`` with that index; binding its
    output composes the liftings (the paper's monadic bind)."""
    if var is None or drawn is None or leaves(drawn) is None:
        raise NoRule(f"the outputs of {short(e)} are related by its val, but they are not "
                     "first-order values the logic can name", e.span)
    base = ctx.binder or "out"
    o1, o2 = fresh_value(b, drawn, base)[0], fresh_value(b, drawn, base)[0]
    related = env.bind(var, o1, o2)
    facts = [refinement_goal(b, related, a, var, o1, o2, e.span) for a in assertions]
    node.judgement["related"] = True
    return Synth(node, cost, (o1, o2), tuple(facts))


def _passed_within(b: Builder, ctx: Ctx, arg: A.Expr, dom: A.RMonad, env: Env, i: int,
                   name: str) -> List:
    """A computation passed where the callee's val expects ``M[F, delta] {x :: T | =}`` with a
    bound that is not equality: the argument must be a computation known by its own type (a
    parameter), within at most that bound — its eps and delta at most the domain's, in the
    same divergence. Passing it on costs nothing; the callee's val says what running it costs."""
    pair = ctx.env.lookup(arg.name) if isinstance(arg, A.Var) else None
    known = pair[0] if pair and pair[0] is pair[1] and isinstance(pair[0], Monadic) else None
    if known is None or known.cost is None:
        raise NoRule(f"argument {i} of {name} must be a computation known by its type (a "
                     "parameter M[F, delta] {x :: T | =}) to be passed where one within a bound "
                     "is expected", arg.span)
    wanted = _instantiated_cost(b, env, dom, f"argument {i} of {name}", arg.span)
    have = known.cost
    if have.family not in ("ZERO", wanted.family):
        raise NoRule(f"argument {i} of {name} is within a {have.family} bound, where a "
                     f"{wanted.family} one is expected", arg.span)
    goals = [T.le(have.eps, wanted.eps)] if wanted.family == "DP" else []
    goals.append(T.le(have.delta, wanted.delta))
    return [b.oblige(ctx, ObligationKind.ENTAILMENT, g, f"argument {i} of {name} is within "
                     f"the bound its val expects", arg.span, "S-M") for g in goals]


def _out_type(rt: A.RMonad) -> Optional[A.SimpleType]:
    """The simple type of what a computation of type ``rt`` draws."""
    _, base, _ = refinement_parts(rt.body)
    return base.type if isinstance(base, A.RSimple) else None


def _decreasing(b: Builder, ctx: Ctx, e: A.App, args: Sequence[A.Expr]):
    """A recursive call is an instance of the induction hypothesis: its list at the induction
    position is shorter, in both runs, than the longer of the two lists the function was
    called with (the obligation ``vocabulary.shorter``)."""
    if ctx.induction is None:
        raise NoRule(f"the recursive call {short(e)} needs structural recursion: the function "
                     "must match on a list parameter and recur on its tail", e.span)
    position, x1, x2 = ctx.induction
    a1, a2 = b.term_pair(ctx, args[position])
    return b.oblige(ctx, ObligationKind.ENTAILMENT, L.shorter((a1, a2), (x1, x2)),
                    f"the recursive call {short(e)} is on a shorter list or a smaller counter "
                    "(structural recursion: induction on its measure)", e.span, "App-Val")
