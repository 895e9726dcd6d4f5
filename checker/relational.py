"""The kernel's relational rules: PrivInfer's monadic rules and the HOARe² core rules under
them, each a function named after the rule, applied to the source in lockstep with the
certificate's derivation.

Every judgement relates an expression to itself in two runs, ``ctx ⊢ e ~ e``. A *check*
(``check``) proves a computation against the claim ``M[F, delta] {x :: T | =}``: every path
ends in a ``Budget`` whose obligations say that the costs spent fit the claim and the output
is equal in both runs. A *synthesis* (``synth``) gives the cost and output of a computation
in a bound position (``mlet x = HERE in``). A pure claim is checked by ``check_pure``.

The certificate's node at each step only names the rule (``node.rule``): where the rules
offer a choice — equal inputs or the construct's own rule, an ``if`` both runs take alike or
lifted into its arguments, a ``match`` on equal lists or split by the unfoldings of ``adj`` —
the certificate's choice is taken and the side condition that justifies it is demanded. The
terms, costs, contexts and obligations are the kernel's own, from the source.
"""
from __future__ import annotations

import itertools
from typing import List, Optional, Sequence, Tuple

from obligations import terms as T
from obligations.model import ObligationKind
from obligations.relevance import total
from verifier.language import ast as A
from verifier.language.builtins import BUILTINS
from verifier.language.free_vars import free_vars
from verifier.language.resolve import source_name
from verifier.translation import logic as L
from verifier.translation.symbolic import (Builtin, Closure, DistV, Env, FunParam, LocalRec,
                                           Monadic, NamedFun, Scalar, SymValue, TupleV, UnitV)
from verifier.translation.calls import element_value, leaves
from verifier.translation.ranges import coupled_draw_facts, value_facts
from verifier.translation.translate import NoRule, bind_pattern, flatten_app, ite_value
from verifier.translation.typing_bridge import monad_elem_sort
from checker import safety as S
from checker.judgement import (ZERO, Cost, Ctx, Node, Proof, Reject, Synth, arrows,
                               case_cost, add_costs, expect, instantiated_cost,
                               monad_is_equality, refinement_parts, says_equal, simple_of,
                               translated)
from checker.mechanisms import COUPLED, RULES

E, R, SC = (ObligationKind.ENTAILMENT, ObligationKind.RANGE, ObligationKind.SIDE_CONDITION)


# ---- equal in both runs: by proof ------------------------------------------------------------

def equal_goals(left: SymValue, right: SymValue, seen=None) -> Optional[List[T.Term]]:
    """The conditions under which ``left`` (a value as run 1 sees it) equals ``right`` (the
    same program value as run 2 sees it); None when it cannot be shown. Code (a closure, a
    stored computation) is equal only when it is one code and everything it captures is
    equal in both runs, transitively."""
    seen = {} if seen is None else seen
    if isinstance(left, (Scalar, DistV)) and isinstance(right, (Scalar, DistV)):
        if left.term == right.term:
            return []
        return [T.eq(left.term, right.term)] if left.term.sort == right.term.sort else None
    if isinstance(left, UnitV) and isinstance(right, UnitV):
        return []
    if isinstance(left, TupleV) and isinstance(right, TupleV):
        if len(left.items) != len(right.items):
            return None
        return _all(equal_goals(a, b, seen) for a, b in zip(left.items, right.items))
    if isinstance(left, Builtin) and isinstance(right, Builtin):
        if left.name != right.name or len(left.args) != len(right.args):
            return None
        return _all(equal_goals(a, b, seen) for a, b in zip(left.args, right.args))
    if isinstance(left, NamedFun) and isinstance(right, NamedFun):
        if left.name != right.name or len(left.args) != len(right.args):
            return None
        return _all(equal_goals(a[0], b[1], seen) for a, b in zip(left.args, right.args))
    if isinstance(left, Closure) and isinstance(right, Closure):
        if left.params != right.params or left.body != right.body:
            return None
        bound = {n for q in left.params for n in A.pattern_names(q)}
        return _captured(left.body, bound, left.env, right.env, seen, (left, right))
    if isinstance(left, LocalRec) and isinstance(right, LocalRec):
        if (left.name, left.params, left.body) != (right.name, right.params, right.body):
            return None
        bound = {n for q in left.params for n in A.pattern_names(q)} | {left.name}
        return _captured(left.body, bound, left.env, right.env, seen, (left, right))
    if isinstance(left, Monadic) and isinstance(right, Monadic):
        if left.expr is None or right.expr is None:
            return [] if left.equal_in_runs and right.equal_in_runs \
                and left.name == right.name else None
        if left.expr != right.expr:
            return None
        return _captured(left.expr, set(), left.env, right.env, seen, (left, right))
    return None


def _captured(code: A.Expr, bound: set, env1: Optional[Env], env2: Optional[Env], seen,
              key_values) -> Optional[List[T.Term]]:
    key = (id(key_values[0]), id(key_values[1]))
    if key in seen:
        return seen[key]
    seen[key] = None  # a cycle is not shown equal
    goals: List[T.Term] = []
    for name in sorted(free_vars(code) - bound):
        p1 = env1.lookup(name) if env1 is not None else None
        p2 = env2.lookup(name) if env2 is not None else None
        if p1 is None and p2 is None:
            continue  # a built-in
        if p1 is None or p2 is None:
            return None
        sub = equal_goals(p1[0], p2[1], seen)
        if sub is None:
            return None
        goals += sub
    seen[key] = goals
    return goals


def _all(parts) -> Optional[List[T.Term]]:
    out: List[T.Term] = []
    for part in parts:
        if part is None:
            return None
        out += part
    return out


def equal_term(a: SymValue, b: SymValue) -> Optional[T.Term]:
    """``a = b`` for first-order values (None otherwise)."""
    if isinstance(a, TupleV) and isinstance(b, TupleV) and len(a.items) == len(b.items):
        parts = [equal_term(x, y) for x, y in zip(a.items, b.items)]
        return None if any(x is None for x in parts) else T.and_(*parts)
    if isinstance(a, UnitV) and isinstance(b, UnitV):
        return T.TRUE
    if isinstance(a, (Scalar, DistV)) and isinstance(b, (Scalar, DistV)):
        if a.term == b.term:
            return T.TRUE
        return T.eq(a.term, b.term) if a.term.sort == b.term.sort else None
    return None


# ---- checking computations against the claim ------------------------------------------------

def check(p: Proof, ctx: Ctx, e: A.Expr, node: Node) -> None:
    """``ctx ⊢ e :: ctx.claim``: every path ends in a Budget."""
    if node.rule == "Budget":
        inner, subsumption = expect(node, ("Budget",), e, "the end of a path", premises=2)
        expect(subsumption, ("S-M", "S-M-Adv", "S-M-Steps"), e,
               "the subsumption of the path's index", premises=0)
        if (subsumption.rule == "S-M-Steps") != (ctx.claim.steps is not None):
            raise Reject(f"node {subsumption.id}: S-M-Steps closes the paths of a release "
                         "loop, and only it does", e.span)
        if inner.rule == "EqualInputs":
            result = equal_inputs(p, ctx, e, inner)
        elif isinstance(e, (A.Return, A.App, A.Var, A.Ran, A.Observe, A.Infer)):
            result = synth_construct(p, ctx, e, inner)
        else:
            raise Reject(f"node {node.id}: a Budget closes a path after a computation, not "
                         f"after a {type(e).__name__}", e.span)
        if result.facts:
            ctx = ctx.assume("h_candidate", T.and_(*result.facts))
        return budget(p, ctx, result, e, advanced=subsumption.rule == "S-M-Adv")
    if isinstance(e, A.MLet) and node.rule == "Case-Output":
        from checker.couplings import case_output
        return case_output(p, ctx, e, node, synth, check, spent)
    if isinstance(e, A.MLet):
        first_node, rest = expect(node, ("BindM",), e, "an mlet", premises=2)
        first = synth(p, ctx.binding(e.pattern), e.value, first_node)
        env = _bind_pattern(ctx.env, e.pattern, *first.output, e.span)
        ctx = ctx.with_env(env).spend(first.cost).produced(first.output)
        if first.facts:
            ctx = ctx.assume("h_candidate", T.and_(*first.facts))
        return check(p, ctx, e.body, rest)
    if isinstance(e, A.Let):
        (rest,) = expect(node, ("Let",), e, "a let", premises=1)
        left, right = translated(lambda: p.pair(ctx, e.value), e.span)
        return check(p, ctx.with_env(_bind_pattern(ctx.env, e.pattern, left, right, e.span)),
                     e.body, rest)
    if isinstance(e, A.LetRec):
        if node.rule == "LetRec-Local":
            from checker.local_loops import local_loop
            inner, rest = local_loop(p, ctx, e, node)
            return check(p, inner, e.body, rest)
        (rest,) = expect(node, ("LetRec",), e, "a local let rec", premises=1)
        return check(p, local_function(ctx, e), e.body, rest)
    if isinstance(e, A.If):
        if node.rule == "If-Lift":
            (inner,) = expect(node, ("If-Lift",), e, "an if", premises=1)
            return check(p, ctx, lift(p, e), inner)
        cases = expect(node, ("If",), e, "an if", premises=2)
        for (case_ctx, body), case in zip(split_if(p, ctx, e), cases):
            check(p, case_ctx, body, case)
        return None
    if isinstance(e, A.Match):
        split = node.rule == "Match-Split"
        cases = split_match(p, ctx, e, split)
        for (case_ctx, body), case in zip(cases, expect(
                node, ("Match", "Match-Split"), e, "a match", premises=len(cases))):
            check(p, case_ctx, body, case)
        return None
    raise Reject(f"node {node.id}: no rule checks a {type(e).__name__} against the claim",
                 e.span)


def budget(p: Proof, ctx: Ctx, result: Synth, e: A.Expr, advanced: bool = False) -> None:
    """The end of a path: the costs spent (and ``result``'s) fit the claimed index — S-M, the
    monadic subsumption of §5: ``M[f, sum] <= M[f', delta']`` (an SD cost d is (0, d) in DP),
    or with ``advanced`` S-M-Adv (``advanced_composition``) — and the output is equal in both
    runs (the claim's ``=``)."""
    claim = ctx.claim
    if claim.steps is not None:
        release_steps(p, ctx.spend(result.cost), e)
    elif advanced:
        advanced_composition(p, ctx.spend(result.cost), e)
    else:
        spent(p, ctx.spend(result.cost), e)
    if claim.relation:
        p.oblige(ctx, E, relation_goal(p, claim, result.output, e), "the output satisfies "
                 "the claim's relation in the two runs", e.span,
                 "UnitM" if isinstance(e, A.Return) else "Budget")
        return
    goals = equal_goals(*result.output)
    if goals is None:
        raise Reject("the output is not known to be equal in both runs (the claim's =)", e.span)
    if goals:
        p.oblige(ctx, E, T.and_(*goals), "the output is equal in both runs (the claim's =)",
                 e.span, "UnitM" if isinstance(e, A.Return) else "Budget")


def relation_goal(p: Proof, claim, output: Tuple[SymValue, SymValue], e: A.Expr) -> T.Term:
    """The claim's relation ``A`` (of ``{x :: T | A}``) at the two runs' outputs."""
    env = claim.env.bind(claim.var, *output)
    parts = []
    for a in claim.relation:
        if isinstance(a, A.SameRuns):
            goal = equal_term(*output)
            if goal is None:
                raise Reject("the outputs cannot be compared in the logic", e.span)
            parts.append(goal)
        else:
            parts.append(translated(lambda: p.assertion(env, a, refined=claim.var), a.span))
    return T.and_(*parts)


def release_steps(p: Proof, ctx: Ctx, e: A.Expr) -> None:
    """S-M-Steps, the end of a path of a release loop (its claim's ``steps``: a bound and a
    count): the path's steps — Laplace releases coupled equal, one each, and the batches of
    the loop's recursive calls — are ``count`` in all, each costing at most ``bound`` both
    ways, with no delta, their parameters fixed in advance (no cost and no hypothesis of the
    path mentions an output of the path)."""
    bound, count = ctx.claim.steps
    steps = [c for c in ctx.costs if c.family != "ZERO"]
    if not all(c.two_sided and c.family == "DP" and c.delta == T.real(0) for c in steps):
        raise Reject("a release loop composes Laplace releases coupled equal only", e.span)
    history = set(ctx.outputs)
    if any(history & set(T.free_vars(c.eps, c.delta)) for c in steps) or \
            any(history & set(T.free_vars(h)) for _, h in ctx.hyps):
        raise Reject("the steps of a release loop depend on an earlier output", e.span)
    made = [T.to_real(c.count) if c.count is not None else T.real(1) for c in steps]
    total = T.add(*made) if len(made) > 1 else (made[0] if made else T.real(0))
    p.lemmas.add("composition.advanced")
    p.oblige(ctx, E, T.eq(total, T.to_real(count)), "the path makes as many steps as the "
             "loop's list is long", e.span, "S-M-Steps")
    p.oblige(ctx, E, T.and_(*[T.le(c.step if c.count is not None else c.eps, bound)
                              for c in steps]),
             "each step costs at most the loop's bound", e.span, "S-M-Steps")


def advanced_composition(p: Proof, ctx: Ctx, e: A.Expr) -> None:
    """S-M-Adv (``composition.advanced``: Dwork, Rothblum and Vadhan, FOCS 2010, Thm III.3):
    the path's k steps, each a Laplace release coupled equal (``Cost.two_sided``: its cost
    bounds the step's privacy loss both ways), are ``(sqrt(2k ln(1/delta)) e + k e (exp e -
    1), delta)``-DP with ``e`` the largest step cost, for ``0 < delta < 1``. The parameters
    must be fixed in advance: no step's cost and no hypothesis of the path may mention an
    output of the path (no branch on the history, no cost that depends on it), and the claim
    is ``=`` on the outputs, outside Pointwise."""
    claim = ctx.claim
    steps = [c for c in ctx.costs if c.family != "ZERO"]
    if claim.family != "DP" or claim.relation or claim.pointwise is not None:
        raise Reject("advanced composition proves a DP claim with = on the outputs", e.span)
    if not steps:
        raise Reject("advanced composition needs steps to compose", e.span)
    if not all(c.two_sided and c.family == "DP" for c in steps):
        raise Reject("advanced composition composes Laplace releases coupled equal only (each "
                     "step's cost must bound its privacy loss in both directions)", e.span)
    history = set(ctx.outputs)
    if any(history & set(T.free_vars(c.eps, c.delta)) for c in steps):
        raise Reject("a step's cost depends on an earlier output: advanced composition needs "
                     "parameters fixed in advance", e.span)
    if any(history & set(T.free_vars(h)) for _, h in ctx.hyps):
        raise Reject("the path depends on an earlier output: advanced composition needs "
                     "parameters fixed in advance", e.span)
    k = len(steps)
    top = _largest([c.step if c.count is not None else c.eps for c in steps])
    if all(c.count is None for c in steps):
        twice, many = T.real(2 * k), T.real(k)
    else:  # batches of release loops: count steps each
        counts = [T.to_real(c.count) if c.count is not None else T.real(1) for c in steps]
        many = T.add(*counts) if len(counts) > 1 else counts[0]
        twice = T.mul(T.real(2), many)
    bound = T.add(T.mul(T.sqrt(T.mul(twice, T.log(T.div(T.real(1), claim.delta)))), top),
                  T.mul(many, T.mul(top, T.sub(T.exp(top), T.real(1)))))
    p.lemmas.add("composition.advanced")
    p.oblige(ctx, E, T.and_(T.lt(T.real(0), claim.delta), T.lt(claim.delta, T.real(1))),
             "the claimed delta is in (0, 1) (advanced composition's delta')", e.span, "S-M-Adv")
    p.oblige(ctx, E, T.le(bound, claim.eps), "the privacy cost of the path's steps by advanced "
             "composition is at most the claimed eps", e.span, "S-M-Adv")


def spent(p: Proof, ctx: Ctx, e: A.Expr) -> None:
    """S-M for a path that ends with what it spent (the vacuous paths of Case-Output): the
    costs of the context fit the claimed index."""
    claim, costs = ctx.claim, ctx.costs
    families = {c.family for c in costs} - {"ZERO"}
    allowed = {"DP", "SD"} if claim.family == "DP" else {claim.family}
    if families - allowed:
        raise Reject(f"a {sorted(families - allowed)[0]} cost cannot pay for a {claim.family} "
                     "claim", e.span)
    if claim.family == "DP":
        p.oblige(ctx, E, T.le(total([c.eps for c in costs if c.family == "DP"]), claim.eps),
                 "the privacy cost of the path is at most the claimed eps", e.span, "Budget")
    p.oblige(ctx, E, T.le(total([c.delta for c in costs]), claim.delta),
             "the total delta of the path is at most the claimed delta", e.span, "Budget")


# ---- synthesis: computations in a bound position ----------------------------------------------

def synth(p: Proof, ctx: Ctx, e: A.Expr, node: Node) -> Synth:
    """The cost and output of computation ``e`` in a bound position."""
    if node.rule == "EqualInputs":
        return equal_inputs(p, ctx, e, node)
    return synth_construct(p, ctx, e, node)


def synth_construct(p: Proof, ctx: Ctx, e: A.Expr, node: Node) -> Synth:
    """The construct's own rule (not EqualInputs)."""
    if isinstance(e, A.Return):
        expect(node, ("UnitM",), e, "a return", premises=0)
        return Synth(ZERO, translated(lambda: p.pair(ctx, e.value), e.span))
    if isinstance(e, A.MLet):
        first_node, second_node = expect(node, ("BindM",), e, "an mlet", premises=2)
        first = synth(p, ctx.binding(e.pattern), e.value, first_node)
        inner = ctx.with_env(_bind_pattern(ctx.env, e.pattern, *first.output, e.span))
        if first.facts:
            inner = inner.assume("h_candidate", T.and_(*first.facts))
        second = synth(p, inner, e.body, second_node)
        return Synth(add_costs(first.cost, second.cost, e.span), second.output,
                     first.facts + second.facts)
    if isinstance(e, A.Let):
        (inner_node,) = expect(node, ("Let",), e, "a let", premises=1)
        left, right = translated(lambda: p.pair(ctx, e.value), e.span)
        inner = synth(p, ctx.with_env(_bind_pattern(ctx.env, e.pattern, left, right, e.span)),
                      e.body, inner_node)
        return Synth(inner.cost, inner.output, inner.facts)
    if isinstance(e, A.LetRec):
        if node.rule == "LetRec-Local":
            from checker.local_loops import local_loop
            inner, rest = local_loop(p, ctx, e, node)
            return synth(p, inner, e.body, rest)
        (inner_node,) = expect(node, ("LetRec",), e, "a local let rec", premises=1)
        return synth(p, local_function(ctx, e), e.body, inner_node)
    if isinstance(e, A.Var):
        return monadic_variable(p, ctx, e, node)
    if isinstance(e, A.App):
        return application(p, ctx, e, node)
    if isinstance(e, A.Ran):
        return ran(p, ctx, e, node)
    if isinstance(e, A.Observe):
        # a computation is a draw from its own distribution: observe L q is ran (infer
        # (observe L q)), charged as Ran on the two posteriors (their closed forms)
        (inner,) = expect(node, ("Observe",), e, "an observe whose inputs may differ",
                          premises=1)
        return ran(p, ctx, A.Ran(A.Infer(e, e.span), e.span), inner)
    if isinstance(e, A.If):
        if node.rule == "If-Lift":
            (inner,) = expect(node, ("If-Lift",), e, "an if", premises=1)
            return synth(p, ctx, lift(p, e), inner)
        nodes = expect(node, ("If",), e, "an if", premises=2)
        cases = split_if(p, ctx, e)
        return synth_cases(p, ctx, e, cases, nodes, _if_terms(p, ctx, e))
    if isinstance(e, A.Match):
        nodes = expect(node, ("Match",), e, "a match in a bound position", premises=2)
        cases = split_match(p, ctx, e, False)
        l1, l2 = _scrutinee_terms(p, ctx, e)
        return synth_cases(p, ctx, e, cases, nodes, (T.eq(l1, L.nil(l1.sort)),
                                                      T.eq(l2, L.nil(l2.sort))))
    raise Reject(f"node {node.id}: no rule gives the cost of a {type(e).__name__}", e.span)


def synth_cases(p: Proof, ctx: Ctx, e: A.Expr, cases, nodes, guards) -> Synth:
    """Two cases both runs take alike (the first where ``guards`` hold, per run): the cost
    and output of the case taken."""
    (ctx1, body1), (ctx2, body2) = cases
    first, second = synth(p, ctx1, body1, nodes[0]), synth(p, ctx2, body2, nodes[1])
    cost = case_cost(guards[0], first.cost, second.cost, e.span)
    try:
        output = tuple(x if x == y else ite_value(g, x, y, e)
                       for g, x, y in zip(guards, first.output, second.output))
    except NoRule:
        if any(out[0] != out[1] for out in (first.output, second.output)):
            raise Reject("the outputs of the cases cannot be named and may differ", e.span)
        out = fresh_output(p, ctx, e)
        output = (out, out)
    return Synth(cost, output, first.facts + second.facts)


def equal_inputs(p: Proof, ctx: Ctx, e: A.Expr, node: Node) -> Synth:
    """EqualInputs: when every name ``e`` uses is equal in both runs (proved: its equalities
    are the obligation), ``e`` is the same distribution in both: no cost, equal outputs."""
    expect(node, ("EqualInputs",), e, "a computation", premises=0)
    goals = variable_goals(ctx.env, free_vars(e), e)
    if goals:
        p.oblige(ctx, E, T.and_(*goals), "the inputs are equal in both runs", e.span,
                 "EqualInputs")
    if isinstance(e, A.Return):
        return Synth(ZERO, translated(lambda: p.pair(ctx, e.value), e.span))
    out = fresh_output(p, ctx, e)
    return Synth(ZERO, (out, out), draw_facts(p, ctx, e, out))


def draw_facts(p: Proof, ctx: Ctx, e: A.Expr, out: SymValue) -> Tuple[T.Term, ...]:
    """The ranges of the output of ``e`` when it is ``ran d``: where ``d`` draws in each run
    (``ranges.coupled_draw_facts``)."""
    if not isinstance(e, A.Ran):
        return ()
    try:
        dists = p.pair(ctx, e.value)
    except NoRule:
        return ()
    return tuple(coupled_draw_facts(ctx.hyps, dists, out))


def variable_goals(env: Env, names, e: A.Node) -> List[T.Term]:
    goals: List[T.Term] = []
    for name in sorted(names):
        pair = env.lookup(name)
        if pair is None:
            continue
        sub = equal_goals(pair[0], pair[1])
        if sub is None:
            raise Reject(f"{source_name(name)} is not known to be equal in both runs", e.span)
        goals += sub
    return goals


def fresh_output(p: Proof, ctx: Ctx, e: A.Expr) -> SymValue:
    """A fresh value for the output of ``e``, the same in both runs."""
    t = p.type_of(e)
    if isinstance(t, A.TMonad) and isinstance(t.elem, A.TTuple):
        return S.fresh_value(p, t.elem, ctx.binder or "out")[0]
    ty = p.simple_type(e)
    sort = monad_elem_sort(ty) if ty is not None else None
    if sort is None:
        return Monadic(None, None, equal_in_runs=True, name=f"out{next(_OPAQUE)}")
    return Scalar(p.fresh(ctx.binder or "out", sort))


_OPAQUE = itertools.count(1)


def local_function(ctx: Ctx, e: A.LetRec) -> Ctx:
    """LetRec: the local recursive function is bound to its code (its calls are symbols of
    their arguments and of what it captures; Safety shows it total)."""
    fn = LocalRec(e.name, e.params, e.value, ctx.env)
    return ctx.bind(e.name, fn, fn)


def _bind_pattern(env: Env, pattern: A.Pattern, left: SymValue, right: SymValue, span) -> Env:
    return translated(lambda: bind_pattern(env, pattern, left, right, span), span)


# ---- if and match -------------------------------------------------------------------------------

def _if_terms(p: Proof, ctx: Ctx, e: A.If) -> Tuple[T.Term, T.Term]:
    return translated(lambda: p.term_pair(ctx, e.cond), e.cond.span)


def split_if(p: Proof, ctx: Ctx, e: A.If) -> List[Tuple[Ctx, A.Expr]]:
    """If: both runs take the same branch — demanded: ``c<1> = c<2>`` — each branch under its
    path condition."""
    c1, c2 = _if_terms(p, ctx, e)
    if c1 != c2:
        p.oblige(ctx, E, T.eq(c1, c2), "both runs take the same branch of the if", e.cond.span,
                 "If")
    return [(ctx.assume("h_then", T.and_(c1, c2)), e.then),
            (ctx.assume("h_else", T.and_(T.not_(c1), T.not_(c2))), e.else_)]


def _scrutinee_terms(p: Proof, ctx: Ctx, e: A.Match) -> Tuple[T.Term, T.Term]:
    l1, l2 = translated(lambda: p.term_pair(ctx, e.scrutinee), e.scrutinee.span)
    if L.list_key_of(l1.sort) is None:
        raise Reject("match on a value that is not a list", e.scrutinee.span)
    return l1, l2


def split_match(p: Proof, ctx: Ctx, e: A.Match, split: bool) -> List[Tuple[Ctx, A.Expr]]:
    """The cases of a match with their contexts. Match-Sync: the lists are equal in both runs
    (demanded), one head and tail for both. Match-Split: they have equal lengths (demanded),
    a head and tail per run, the unfoldings of ``dist`` and ``adj`` as equations, and a case
    split on the disjuncts of every ``adj`` / ``adjWithin`` hypothesis about the two lists."""
    l1, l2 = _scrutinee_terms(p, ctx, e)
    key = L.list_key_of(l1.sort)
    nil, esort = L.nil(l1.sort), L.elem_sort(key)
    nil_ctx = ctx.assume("h_nil", T.and_(T.eq(l1, nil), T.eq(l2, nil)))
    head = e.head if e.head != "_" else "hd"
    tail = e.tail if e.tail != "_" else "tl"
    if not split:
        if l1 != l2:
            p.oblige(ctx, E, T.eq(l1, l2), "both runs match the same list", e.scrutinee.span,
                     "Match")
        h, _ = p.fresh_pair(head, esort, True)
        t, _ = p.fresh_pair(tail, l1.sort, True)
        cons_ctx = _bind_cons(ctx.assume("h_cons", T.and_(T.eq(l1, L.cons(h, t)),
                                                          T.eq(l2, L.cons(h, t)))), e, (h, h), (t, t))
        return [(nil_ctx, e.nil_body), (cons_ctx, e.cons_body)]
    p.oblige(ctx, E, T.eq(L.length(l1), L.length(l2)), "both runs take the same case of the "
             "match (the lists have equal lengths)", e.scrutinee.span, "Match-Split")
    h1, h2 = p.fresh_pair(head, esort, False)
    t1, t2 = p.fresh_pair(tail, l1.sort, False)
    cons_ctx = ctx.assume("h_cons", T.and_(T.eq(l1, L.cons(h1, t1)), T.eq(l2, L.cons(h2, t2))))
    cons_ctx = _bind_cons(cons_ctx, e, (h1, h2), (t1, t2))
    cons_ctx = cons_ctx.assume("h_dist_unfold", T.eq(
        L.hamming(l1, l2), T.add(T.ite(T.eq(h1, h2), 0, 1), L.hamming(t1, t2))))
    cons_ctx = cons_ctx.assume("h_adj_unfold", T.eq(
        L.adj(l1, l2), T.or_(T.and_(T.eq(h1, h2), L.adj(t1, t2)), T.eq(t1, t2))))
    for hyp, atom in ctx.hyps:  # allWithin (l1, l2, c): the heads within c, the tails too
        if isinstance(atom, T.Apply) and atom.func.name == "allWithin" \
                and atom.args[:2] == (l1, l2):
            p.lemmas.add("lists.allwithin.definition")
            cons_ctx = cons_ctx.assume(f"{hyp}_unfold", T.and_(
                T.le(T.abs_(T.sub(h1, h2)), atom.args[2]), L.all_within(t1, t2, atom.args[2])))
    cases = [cons_ctx]
    for hyp, atom in ctx.hyps:
        if isinstance(atom, T.Apply) and atom.func.name in ("adj", "adjWithin") \
                and atom.args[:2] == (l1, l2):
            cases = [c.assume(f"{hyp}_{label}", d) for c in cases
                     for label, d in _unfold(atom, h1, h2, t1, t2)]
    return [(nil_ctx, e.nil_body)] + [(c, e.cons_body) for c in cases]


def _unfold(atom: T.Apply, h1, h2, t1, t2) -> List[Tuple[str, T.Term]]:
    """``adj`` / ``adjWithin`` at ``h1 :: t1 ~ h2 :: t2`` (docs/language.md), as cases."""
    if atom.func.name == "adj":
        return [("same head", T.and_(T.eq(h1, h2), L.adj(t1, t2))), ("same tail", T.eq(t1, t2))]
    c = atom.args[2]
    return [("same head", T.and_(T.eq(h1, h2), L.adj_within(t1, t2, c))),
            ("same tail", T.and_(T.le(T.abs_(T.sub(h1, h2)), c), T.eq(t1, t2)))]


def _bind_cons(ctx: Ctx, e: A.Match, heads, tails) -> Ctx:
    if e.head != "_":
        ctx = ctx.bind(e.head, element_value(heads[0]), element_value(heads[1]))
    if e.tail != "_":
        ctx = ctx.bind(e.tail, Scalar(tails[0]), Scalar(tails[1]))
    return ctx


def lift(p: Proof, e: A.If) -> A.Expr:
    """If-Lift: ``if c then h a1 … an else h b1 … bn`` is the application ``h (if c then a1
    else b1) … (if c then an else bn)`` when both branches apply one head (the same
    expression in the same scope, or both ``return``) to first-order data: pure code has no
    effect, so the two denote the same value in every run (docs/verifier.md)."""
    lifted = _lift(p, e.cond, e.then, e.else_, e)
    if lifted is None:
        raise Reject("the branches of this if do not apply one function to first-order "
                     "arguments, so it cannot be lifted into them", e.span)
    return lifted


def _lift(p: Proof, cond: A.Expr, x: A.Expr, y: A.Expr, at: A.If) -> Optional[A.Expr]:
    x = _lift(p, x.cond, x.then, x.else_, x) if isinstance(x, A.If) else x
    y = _lift(p, y.cond, y.then, y.else_, y) if isinstance(y, A.If) else y
    if x is None or y is None:
        return None
    if x == y:
        return x
    if isinstance(x, A.Return) and isinstance(y, A.Return):
        value = _lift_argument(p, cond, x.value, y.value, at)
        return None if value is None else p.twin(A.Return(value, at.span), x)
    head, xs = flatten_app(x)
    other, ys = flatten_app(y)
    if not xs or head != other or len(xs) != len(ys):
        return None
    spine, out = [], head
    app = x
    while isinstance(app, A.App):
        spine.append(app)
        app = app.fn
    for node, a1, a2 in zip(reversed(spine), xs, ys):
        arg = _lift_argument(p, cond, a1, a2, at)
        if arg is None:
            return None
        out = p.twin(A.App(out, arg, at.span), node)
    return out


def _lift_argument(p: Proof, cond: A.Expr, a1: A.Expr, a2: A.Expr, at: A.If
                   ) -> Optional[A.Expr]:
    if a1 == a2:
        return a1
    if isinstance(a1, A.TupleLit) and isinstance(a2, A.TupleLit) and len(a1.items) == len(a2.items):
        items = [_lift_argument(p, cond, x, y, at) for x, y in zip(a1.items, a2.items)]
        return None if any(i is None for i in items) else \
            p.twin(A.TupleLit(tuple(items), a1.span), a1)
    if not all(_first_order(p.type_of(a)) for a in (a1, a2)):
        return None
    return p.twin(A.If(cond, a1, a2, at.span), a1)


def _first_order(t: Optional[A.SimpleType]) -> bool:
    if isinstance(t, (A.TBase, A.TFin, A.TSimplex, A.TDist)):
        return True
    if isinstance(t, A.TList):
        return _first_order(t.elem)
    if isinstance(t, A.TTuple):
        return all(_first_order(i) for i in t.items)
    return False


# ---- names of computations, applications ---------------------------------------------------------

def monadic_variable(p: Proof, ctx: Ctx, e: A.Var, node: Node) -> Synth:
    """A computation named by a variable: one stored by ``let`` runs here (Unfold, its code
    in the environment it closes over); one known equal in both runs costs nothing (Var); a
    parameter known by its type ``M[F, delta] {x :: T | =}`` costs its index (Var)."""
    pair = ctx.env.lookup(e.name)
    if pair and isinstance(pair[0], Monadic) and pair[0] == pair[1] and pair[0].expr is not None:
        (inner,) = expect(node, ("Unfold",), e, "a stored computation", premises=1)
        stored = pair[0]
        result = synth(p, ctx.with_env(stored.env), stored.expr, inner)
        return result
    expect(node, ("Var",), e, "a computation parameter", premises=0)
    if pair and equal_goals(*pair) == []:
        out = fresh_output(p, ctx, e)
        return Synth(ZERO, (out, out))
    if pair and pair[0] is pair[1] and isinstance(pair[0], Monadic) and pair[0].cost is not None:
        out = fresh_output(p, ctx, e)
        return Synth(pair[0].cost, (out, out))
    raise Reject(f"{source_name(e.name)} is not known to be the same distribution in both runs",
                 e.span)


def application(p: Proof, ctx: Ctx, e: A.App, node: Node) -> Synth:
    """A computation made by applying a built-in mechanism (its rule), a function with a val
    (App-Val) or code without one (Unfold), the same function in both runs by proof."""
    head, args = flatten_app(e)
    if e.annotation is not None and not (isinstance(head, A.Var) and head.name == "lapMech"
                                         and ctx.env.lookup(head.name) is None):
        raise Reject("an annotation [@shift ...] applies to a call of lapMech only", e.span)
    if isinstance(head, A.Var) and ctx.env.lookup(head.name) is None:
        if head.name not in BUILTINS or BUILTINS[head.name].rule is None:
            raise Reject(f"no rule in the kernel for {head.name}", e.span)
        if len(args) != 1:
            raise Reject(f"{head.name} takes its arguments as one tuple", e.span)
        parts = args[0].items if isinstance(args[0], A.TupleLit) else (args[0],)
        entry = BUILTINS[head.name]
        coupled = (entry.coupling_rule,) if entry.coupling_rule else ()
        expect(node, (entry.rule,) + coupled, e, f"an application of {head.name}", premises=0)
        if node.rule == entry.coupling_rule:
            p.lemmas.add(entry.coupling_theorem)
            return COUPLED[head.name](p, ctx, e, tuple(parts), node)
        if node.coupling is not None:
            raise Reject(f"node {node.id}: a shift for {node.rule}, which couples by the "
                         "identity", e.span)
        p.lemmas.add(entry.theorem)
        return RULES[head.name](p, ctx, e, tuple(parts))
    bound = ctx.env.lookup(head.name) if isinstance(head, A.Var) else None
    if bound is not None and isinstance(bound[0], FunParam):
        # a parameter of function type: App-Val against its declared type (higher_order)
        premises = expect(node, ("App-Val",), e, f"a call of {source_name(head.name)}")
        return app_val(p, ctx, e, head.name, args, premises, param=bound[0])
    f1, f2 = translated(lambda: p.pair(ctx, head), head.span)
    if isinstance(f1, Closure) and f1 == f2:
        fn, same = f1, []
    else:
        same = equal_goals(f1, f2)
        if same is None:
            raise Reject("the function applied is not known to be the same in both runs",
                         head.span)
        fn = f1
    if isinstance(fn, NamedFun) and not fn.args and not same:
        if node.rule == "App-Steps":
            return app_steps(p, ctx, e, fn.name, args, node)
        premises = expect(node, ("App-Val",), e, f"a call of {source_name(fn.name)}")
        return app_val(p, ctx, e, fn.name, args, premises)
    if isinstance(fn, Closure):
        (inner,) = expect(node, ("Unfold",), e, "an application of code without a val",
                          premises=1)
        if same:
            p.oblige(ctx, E, T.and_(*same), "the function applied is the same in both runs",
                     head.span, "Unfold")
        if len(args) != len(fn.params):
            raise Reject("a function partially applied in a monadic position", e.span)
        env = fn.env
        for param, arg in zip(fn.params, args):
            left, right = translated(lambda: p.pair(ctx, arg), arg.span)
            env = _bind_pattern(env, param, left, right, arg.span)
        return synth(p, ctx.with_env(env), fn.body, inner)
    raise Reject("no rule for this monadic application", e.span)


def app_steps(p: Proof, ctx: Ctx, e: A.App, name: str, args: Sequence[A.Expr],
              node: Node) -> Synth:
    """App-Steps: a call of a release loop (``p.steps``: its val stated by the kernel from
    the source) outside itself, a batch of ``length l`` steps; the first call carries the
    loop's derivation, checked here (S-M-Steps on every path, by induction on the list)."""
    premises = list(node.premises)
    if name not in p.steps or name == ctx.function:
        raise Reject(f"node {node.id}: App-Steps calls a release loop from outside it", e.span)
    if name not in p.steps_derived:
        if not premises or premises[0].rule != "LetRec-Induction":
            raise Reject(f"node {node.id}: the first App-Steps of {source_name(name)} carries "
                         "its derivation", e.span)
        from checker.definition import derive
        p.steps_derived.add(name)
        derive(p, p.vals[name], p.lets[name], premises.pop(0), steps=True)
    return app_val(p, ctx, e, name, args, premises)


def app_val(p: Proof, ctx: Ctx, e: A.App, name: str, args: Sequence[A.Expr],
            premises: Sequence[Node] = (), param: Optional[FunParam] = None) -> Synth:
    """App-Val: the arguments satisfy the domain of ``name``'s val (ranges, refinements,
    computations within the bound it expects: an S-M premise each, functions of the type it
    expects: an S-Fun premise each); the call costs the val's index, instantiated at the
    arguments; a recursive call is on a shorter list (the induction hypothesis). With
    ``param``, ``name`` is a parameter of function type, called against its declared type."""
    subsumptions = list(premises)
    if param is None:
        val = p.val_of(name)
        if val is None:
            raise Reject(f"the recursive function {source_name(name)} needs a val", e.span)
        doms, rt = arrows(val.rtype)
        env = p.top_env
        p.called.add(name)
    else:
        from checker.higher_order import call_type
        doms, rt = call_type(param)
        env = param.env
    if len(args) != len(doms):
        raise Reject(f"{source_name(name)} is applied to {len(args)} arguments; its val has "
                     f"{len(doms)}", e.span)
    what = source_name(name)
    if name == ctx.function:
        if ctx.induction is None:
            raise Reject("a recursive call needs structural recursion on a list parameter",
                         e.span)
        position, x1, x2 = ctx.induction
        a1, a2 = translated(lambda: p.term_pair(ctx, args[position]), e.span)
        p.oblige(ctx, E, L.shorter((a1, a2), (x1, x2)), "the recursive call is on a shorter "
                 "list (structural recursion: induction on its length)", e.span, "App-Val")
    for i, (arg, dom) in enumerate(zip(args, doms), 1):
        var, base, assertions = refinement_parts(dom)
        if isinstance(base, A.RArrow):
            if not subsumptions:
                raise Reject(f"argument {i} of {what} is a function: an S-Fun premise of "
                             "App-Val", arg.span)
            from checker.higher_order import passed_function
            passed_function(p, ctx, arg, dom, env, i, what, subsumptions.pop(0))
            continue
        if isinstance(base, A.RMonad):
            if not monad_is_equality(p, env, base):
                if not subsumptions:
                    raise Reject(f"argument {i} of {what} is passed within a bound: an S-M "
                                 "premise of App-Val", arg.span)
                expect(subsumptions.pop(0), ("S-M",), arg, f"argument {i} of {what}",
                       premises=0)
                passed_within(p, ctx, arg, base, env, i, what)
                value = Monadic(None, None, name=f"arg{i}")
            else:
                equal_inputs(p, ctx, arg, Node(f"{i}", "EqualInputs", None, ()))
                value = Monadic(None, None, equal_in_runs=True, name=f"arg{i}")
            env = env.bind(var, value, value) if var else env
            continue
        env = first_order_argument(p, ctx, arg, dom, env, f"argument {i} of {what}", "App-Val")
    if subsumptions:
        raise Reject(f"App-Val of {what} has premises for no argument passed within a bound",
                     e.span)
    if not isinstance(rt, A.RMonad):
        raise Reject(f"{what} does not return a distribution", e.span)
    cost = instantiated_cost(p, env, rt, related=True)
    if name in p.steps:  # a release loop: a batch of length l steps
        position, eps = p.steps[name]
        step = translated(lambda: p.index_term(env, eps), e.span)
        count = translated(lambda: p.index_term(env, _length(p.lets[name], position)), e.span)
        cost = Cost("DP", T.mul(T.to_real(count), step), T.real(0), two_sided=True,
                    count=count, step=step)
    var, base, lifted = refinement_parts(rt.body)
    only_equal = var is not None and len(lifted) == 1 and isinstance(lifted[0], A.SameRuns)
    if not monad_is_equality(p, env, rt) and not only_equal:
        # the val lifts another relation than =: a fresh output per run, the relation assumed
        if rt.div.kind != "DP" or var is None or not isinstance(base, A.RSimple) \
                or leaves(base.type) is None:
            raise Reject(f"the outputs of {what} are related by its val other than by =, for "
                         "first-order outputs under a DP index only", e.span)
        name = ctx.binder or "out"
        o1 = S.fresh_value(p, base.type, name)[0]
        o2 = S.fresh_value(p, base.type, name)[0]
        related = env.bind(var, o1, o2)
        facts = [refinement_goal(p, related, a, var, o1, o2, e.span) for a in lifted]
        return Synth(cost, (o1, o2), tuple(facts))
    if isinstance(base, A.RSimple) and leaves(base.type) is not None:
        output: SymValue = S.fresh_value(p, base.type, ctx.binder or "out")[0]
    else:
        output = Monadic(None, None, equal_in_runs=True, name=f"out{next(_OPAQUE)}")
    return Synth(cost, (output, output))


def refinement_goal(p: Proof, env: Env, a: A.Expr, var: Optional[str], left: SymValue,
                    right: SymValue, span) -> T.Term:
    """The assertion ``a`` of a refinement of ``var`` (bound in ``env`` to ``left``,
    ``right``): ``=`` is the equality of the two runs' values."""
    if isinstance(a, A.SameRuns):
        goal = equal_term(left, right)
        if goal is None:
            raise Reject("cannot compare these values in the logic", span)
        return goal
    return translated(lambda: p.assertion(env, a, refined=var), a.span)


def first_order_argument(p: Proof, ctx: Ctx, arg: A.Expr, dom: A.RType, env: Env, what: str,
                         rule: str) -> Env:
    """A first-order argument of a val's domain ``dom`` (read in ``env``): its ranges in each
    run and its refinements demanded; ``env`` with the domain's variable bound to it (one
    value when the refinement says ``=``)."""
    var, base, assertions = refinement_parts(dom)
    left, right = translated(lambda: p.pair(ctx, arg), arg.span)
    if var is not None:
        env = env.bind(var, left, right)
    for run, value in ((1, left), (2, right)):
        if isinstance(value, Scalar):
            facts = L.range_facts(simple_of(base), value.term)
            if facts:
                p.oblige(ctx, R, T.and_(*facts), f"{what} has the type of its val (run {run})",
                         arg.span, rule)
    for a in assertions:
        p.oblige(ctx, E, refinement_goal(p, env, a, var, left, right, arg.span),
                 f"{what} satisfies its refinement", arg.span, rule)
    if var is not None and says_equal(var, assertions):
        env = env.bind(var, left, left)  # demanded equal above: one value, as in its val
    return env


def first_order_value(p: Proof, ctx: Ctx, left: SymValue, right: SymValue, dom: A.RType,
                      env: Env, what: str, rule: str) -> Env:
    """``first_order_argument`` for values already made (run 1's ``left``, run 2's
    ``right``): the first arguments of a val's function passed in pure code."""
    var, base, assertions = refinement_parts(dom)
    if not isinstance(base, A.RSimple):
        raise Reject(f"{what} must be first-order data")
    if var is not None:
        env = env.bind(var, left, right)
    for run, value in ((1, left), (2, right)):
        facts = value_facts(base.type, value)
        if facts is None:
            raise Reject(f"{what}: a value whose type the kernel cannot state")
        if facts:
            p.oblige(ctx, R, T.and_(*facts), f"{what} has the type of its val (run {run})",
                     None, rule)
    for a in assertions:
        p.oblige(ctx, E, refinement_goal(p, env, a, var, left, right, None),
                 f"{what} satisfies its refinement", None, rule)
    if var is not None and says_equal(var, assertions):
        env = env.bind(var, left, left)
    return env


def passed_within(p: Proof, ctx: Ctx, arg: A.Expr, dom: A.RMonad, env: Env, i: int,
                  what: str) -> None:
    """A computation passed where the val expects one within a bound: a parameter known by
    its type, within at most that bound, in the same divergence."""
    pair = ctx.env.lookup(arg.name) if isinstance(arg, A.Var) else None
    known = pair[0] if pair and pair[0] is pair[1] and isinstance(pair[0], Monadic) else None
    if known is None or known.cost is None:
        raise Reject(f"argument {i} of {what} must be a computation known by its type",
                     arg.span)
    wanted, have = instantiated_cost(p, env, dom), known.cost
    if have.family not in ("ZERO", wanted.family):
        raise Reject(f"argument {i} of {what} is within a {have.family} bound, where a "
                     f"{wanted.family} one is expected", arg.span)
    goals = [T.le(have.eps, wanted.eps)] if wanted.family == "DP" else []
    for g in goals + [T.le(have.delta, wanted.delta)]:
        p.oblige(ctx, E, g, f"argument {i} of {what} is within the bound its val expects",
                 arg.span, "S-M")


def ran(p: Proof, ctx: Ctx, e: A.Ran, node: Node) -> Synth:
    """Ran with distributions that may differ: the diagonal coupling has the divergence of
    the distributions themselves — SD their total variation, HD ``1 - BC = H^2``, KL theirs.
    Under a DP claim, Ran charges their statistical distance (``(0, delta)``-DP), and Ran-DP
    their eps-distance for the eps of a context hypothesis ``Delta_eps (d<1>, d<2>) <= B``
    (``eps >= 0`` demanded)."""
    expect(node, ("Ran", "Ran-DP"), e, "a ran", premises=0)
    family = ctx.claim.family if ctx.claim is not None else None
    d1, d2 = translated(lambda: p.term_pair(ctx, e.value), e.span)
    if d1.sort != L.DIST or d2.sort != L.DIST:
        raise Reject("ran of a value that is not a symbolic distribution", e.span)
    if node.rule == "Ran-DP":
        if family != "DP":
            raise Reject("Ran-DP proves a DP claim", e.span)
        eps = next((h.args[0].args[0] for _, h in ctx.hyps
                    if isinstance(h, T.Op) and h.op == T.OpKind.LE
                    and isinstance(h.args[0], T.Apply) and h.args[0].func.name == "hsdiv"
                    and h.args[0].args[1:] == (d1, d2)), None)
        if eps is None:  # the Infer rule's bound on two posteriors (a call fact)
            eps = p.infer_dp_eps(d1, d2)
        if eps is None:
            raise Reject("no hypothesis bounds the eps-distance of these distributions", e.span)
        p.oblige(ctx, SC, T.ge(eps, 0), "the eps of the eps-distance is not negative", e.span,
                 "Ran-DP")
        p.lemmas.add("fdiv.epsd.simplified")
        cost = Cost("DP", eps, L.hockey_stick(eps, d1, d2))
    elif family in ("SD", "HD", "KL"):
        p.lemmas.add({"SD": "sd.metric", "HD": "fdiv.hd.one_minus_bc",
                      "KL": "fdiv.kl.simplified"}[family])
        cost = Cost(family, T.real(0), L.divergence(family, d1, d2))
    elif family == "DP":
        p.lemmas.add("sd.metric")
        cost = Cost("SD", T.real(0), L.tv(d1, d2))
    else:
        raise Reject("ran of distributions that may differ needs a claim", e.span)
    out = fresh_output(p, ctx, e)
    return Synth(cost, (out, out), draw_facts(p, ctx, e, out))


# ---- pure claims ----------------------------------------------------------------------------------

def check_pure(p: Proof, ctx: Ctx, val_env: Env, body: A.Expr, rt: A.RType, node: Node) -> None:
    """``ctx ⊢ body :: rt`` for a pure result: split on a match or an if both runs take alike
    (Match, If), else translate (Sub: the refinement of the two results is demanded)."""
    if isinstance(body, A.Match) and node.rule in ("Match", "Match-Split"):
        cases = split_match(p, ctx, body, node.rule == "Match-Split")
        for (c, e), n in zip(cases, expect(node, (node.rule,), body, "a match",
                                           premises=len(cases))):
            check_pure(p, c, val_env, e, rt, n)
        return
    if isinstance(body, A.If) and node.rule == "If":
        for (c, e), n in zip(split_if(p, ctx, body), expect(node, ("If",), body, "an if",
                                                             premises=2)):
            check_pure(p, c, val_env, e, rt, n)
        return
    expect(node, ("Sub",), body, "a pure result", premises=0)
    var, _, assertions = refinement_parts(rt)
    left, right = translated(lambda: p.pair(ctx, body), body.span)
    if var is None:
        return
    env = val_env.bind(var, left, right)
    for a in assertions:
        p.oblige(ctx, E, refinement_goal(p, env, a, var, left, right, body.span),
                 "the result satisfies the claim's refinement", body.span, "Sub")


def _largest(terms):
    """``max`` of the terms as a balanced tree (a chain of k maxima would become 2^k terms
    where ``max`` is lowered to ``ite``)."""
    if len(terms) == 1:
        return terms[0]
    half = len(terms) // 2
    return T.max_(_largest(terms[:half]), _largest(terms[half:]))


def _length(decl: A.LetDecl, position: int) -> A.Expr:
    """``length l`` for the list parameter at ``position`` of a release loop."""
    s = decl.span
    return A.App(A.Var("length", s), A.Var(decl.params[position].name, s), s)
