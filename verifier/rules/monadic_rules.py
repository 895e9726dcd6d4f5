"""PrivInfer's monadic rules: EqualInputs, UnitM, BindM, Ran/Infer/Observe and S-M.

``check`` rules (registered with ``monadic_rule``) check a monadic expression against the
claim of the context, closing every path with ``Builder.close_path``; the synthesis rules
(registered with ``synthesis_rule``) give the cost and output of a computation in a bound
position. EqualInputs is a judgement of its own (``registry.EQUAL_INPUTS``), which the builder
tries before the construct's rule.
"""
from __future__ import annotations

from typing import List, Optional

from obligations import terms as T
from obligations.model import ObligationKind
from verifier.language import ast as A
from verifier.translation import logic as L
from verifier.rules import registry
from verifier.language.resolve import written
from verifier.rules.builder import Builder
from verifier.rules.context import Cost, Ctx, Synth, zero_cost
from verifier.rules.derivation import bound_judgement, short
from verifier.rules.equality import equality_goals, variable_goals
from verifier.language.free_vars import free_vars
from verifier.rules.refinements import fresh_value
from verifier.rules.registry import judgement_rule, monadic_rule, synthesis_rule
from verifier.translation.symbolic import (Closure, FunParam, LocalRec, Monadic, NamedFun, Scalar,
                                           SymValue)
from verifier.translation.ranges import coupled_draw_facts
from verifier.translation.translate import NoRule, bind_pattern, flatten_app


# ---- EqualInputs --------------------------------------------------------------------------

@judgement_rule(registry.EQUAL_INPUTS)
def equal_inputs(b: Builder, ctx: Ctx, e: A.Expr) -> Optional[Synth]:
    """If every free variable of ``e`` is equal in both runs, ``e`` denotes the same
    distribution in both: divergence 0 for every f, and the identity coupling gives equal
    outputs. Returns None when that cannot be shown.

    Equal means proved equal (``equality.equality_goals``): a variable bound to a closure or
    a stored computation is equal only when everything it captures is."""
    goals, _ = variable_goals(ctx.env, free_vars(e))
    if goals is None:
        return None
    obligations = []
    if goals:
        goal = T.and_(*goals)
        ob = b.oblige(ctx, ObligationKind.ENTAILMENT, goal,
                      f"the inputs of {short(e)} are equal in both runs", e.span, "EqualInputs")
        if not b.proves(ob):
            return None
        obligations.append(ob)
    if isinstance(e, A.Return):  # its value, not a fresh one: the continuation may use it
        out_pair = b.translate_pair(ctx, e.value)[0]
    else:
        out = fresh_output(b, ctx, e)
        out_pair = (out, out)
    node = b.node("EqualInputs", ctx, e.span,
                  f"{short(e)} has equal inputs, hence equal distributions",
                  obligations=obligations)
    return Synth(node, zero_cost(f"{short(e, 30)} (equal inputs)", e.span), out_pair,
                 draw_facts(b, ctx, e, out_pair[0]))


def draw_facts(b: Builder, ctx: Ctx, e: A.Expr, out: SymValue) -> tuple:
    """The ranges of the output of ``e`` when it is ``ran d`` (``ranges.coupled_draw_facts``;
    the kernel states the same)."""
    if not isinstance(e, A.Ran):
        return ()
    try:
        dists = b.translate_pair(ctx, e.value)[0]
    except NoRule:
        return ()
    return tuple(coupled_draw_facts(ctx.hyps, dists, out))


def fresh_output(b: Builder, ctx: Ctx, e: A.Expr) -> SymValue:
    """A fresh value standing for the (equal) output of ``e`` in both runs: a tuple of fresh
    values for a tuple type, so that a tuple pattern can take it apart."""
    t = b.type_of(e)
    if isinstance(t, A.TMonad) and isinstance(t.elem, A.TTuple):
        return fresh_value(b, t.elem, ctx.binder or "out")[0]
    sort = _result_sort(b, e)
    if sort is None:
        return Monadic(None, None, equal_in_runs=True, name=f"out{b.node_id()}")
    return Scalar(b.fresh(ctx.binder or "out", sort))


def _result_sort(b: Builder, e: A.Expr) -> Optional[T.Sort]:
    """The sort of the values drawn from monadic ``e`` (from the simple types), if any."""
    ty = b.simple_type(e)
    if ty is None:
        return None
    from verifier.translation.typing_bridge import monad_elem_sort
    return monad_elem_sort(ty)


# ---- check rules ----------------------------------------------------------------------------

@monadic_rule(A.MLet)
def BindM(b: Builder, ctx: Ctx, e: A.MLet):
    """``mlet x = e1 in e2``: the cost of ``e1``, then ``e2`` with ``x`` equal in both runs.

    The composability of Lemma 3.4 is what lets the costs add: (eps1-D, eps2-D) compose to
    (eps1+eps2)-D with deltas adding, and SD, HD, KL each compose with themselves."""
    first = b.synth_monadic(ctx.binding(e.pattern), e.value)
    left, right = first.output
    env = bind_pattern(ctx.env, e.pattern, left, right, e.span)
    rest = b.check_monadic(first.continue_in(ctx.with_env(env)), e.body)
    return b.node("BindM", ctx, e.span, f"mlet {_pattern_text(e.pattern)} = {short(e.value, 40)}",
                  [first.node, rest], bound=bound_judgement(e.pattern, left, right))


@monadic_rule(A.Return)
def UnitM(b: Builder, ctx: Ctx, e: A.Return):
    """``return v``: the output is the same in both runs when ``v<1> = v<2>`` (the Budget
    that closes the path proves it)."""
    (left, right), ranges = b.translate_pair(ctx, e.value)
    node = b.node("UnitM", ctx, e.span, f"return {short(e.value)}", obligations=ranges)
    return b.close_path(ctx, node, zero_cost("return", e.span), e, (left, right))


@monadic_rule(A.Let)
def LetM(b: Builder, ctx: Ctx, e: A.Let):
    """``let p = v in m`` with pure ``v``."""
    (left, right), ranges = b.translate_pair(ctx, e.value)
    env = bind_pattern(ctx.env, e.pattern, left, right, e.span)
    body = b.check_monadic(ctx.with_env(env), e.body)
    return b.node("Let", ctx, e.span, f"let {_pattern_text(e.pattern)} = {short(e.value, 40)}",
                  [body], ranges, bound=bound_judgement(e.pattern, left, right))


@monadic_rule(A.LetRec)
def LetRecM(b: Builder, ctx: Ctx, e: A.LetRec):
    """``let rec f … = v in m``: f is bound to its code (a local recursive function, called
    as a deterministic symbol of its arguments and of what it captures, which the Safety
    premise shows total)."""
    body = b.check_monadic(_bind_local(ctx, e), e.body)
    return b.node("LetRec", ctx, e.span, f"let rec {written(e.name)} …", [body])


def _bind_local(ctx: Ctx, e: A.LetRec) -> Ctx:
    fn = LocalRec(e.name, e.params, e.value, ctx.env)
    return ctx.bind(e.name, fn, fn)


def _leaf(b: Builder, ctx: Ctx, e: A.Expr):
    """A computation that ends a path: its cost and output synthesised, then the Budget."""
    return b.close_synth(ctx, registry.synthesis(e)(b, ctx, e), e)


for _node_type in (A.App, A.Var, A.Ran, A.Observe, A.Infer):
    registry.monadic_rule(_node_type)(_leaf)


# ---- synthesis ------------------------------------------------------------------------------

# Cost and output of a monadic computation in a bound position (``Builder.synth_monadic``):
# one synthesis rule per construct (``if`` and ``match``: ``core_rules``, ``lifting``).

@synthesis_rule(A.Return)
def UnitBound(b: Builder, ctx: Ctx, e: A.Return) -> Synth:
    (left, right), ranges = b.translate_pair(ctx, e.value)
    node = b.node("UnitM", ctx, e.span, f"return {short(e.value)}", obligations=ranges)
    return Synth(node, zero_cost("return", e.span), (left, right))


@synthesis_rule(A.MLet)
def BindBound(b: Builder, ctx: Ctx, e: A.MLet) -> Synth:
    first = b.synth_monadic(ctx.binding(e.pattern), e.value)
    env = bind_pattern(ctx.env, e.pattern, *first.output, e.span)
    second = b.synth_monadic(ctx.with_env(env).assume("h_candidate", T.and_(*first.facts))
                             if first.facts else ctx.with_env(env), e.body)
    cost = _add_costs(first.cost, second.cost, e)
    node = b.node("BindM", ctx, e.span, f"mlet {_pattern_text(e.pattern)} = …",
                  [first.node, second.node], bound=bound_judgement(e.pattern, *first.output))
    return Synth(node, cost, second.output, first.facts + second.facts)


@synthesis_rule(A.Let)
def LetBound(b: Builder, ctx: Ctx, e: A.Let) -> Synth:
    (left, right), ranges = b.translate_pair(ctx, e.value)
    env = bind_pattern(ctx.env, e.pattern, left, right, e.span)
    inner = b.synth_monadic(ctx.with_env(env), e.body)
    node = b.node("Let", ctx, e.span, f"let {_pattern_text(e.pattern)} = …", [inner.node],
                  ranges, bound=bound_judgement(e.pattern, left, right))
    return Synth(node, inner.cost, inner.output, inner.facts)


@synthesis_rule(A.LetRec)
def LetRecBound(b: Builder, ctx: Ctx, e: A.LetRec) -> Synth:
    inner = b.synth_monadic(_bind_local(ctx, e), e.body)
    node = b.node("LetRec", ctx, e.span, f"let rec {written(e.name)} …", [inner.node])
    return Synth(node, inner.cost, inner.output, inner.facts)


@synthesis_rule(A.Observe)
def Observe(b: Builder, ctx: Ctx, e: A.Expr) -> Synth:
    """``observe L p`` with inputs that may differ between the runs (the paper's Observe, §5,
    read through closed forms): a computation is a draw from its own distribution, so
    ``observe L p`` is ``ran (infer (observe L p))``, and when both runs' posteriors have a
    closed form (a conjugate likelihood on a prior of known family, an observe-fold:
    ``observe_fold.infer_closed_form``) its cost is Ran's on the two posteriors — bounded by
    the lemmas about them (adjacent Beta posteriors: Lemma 6.1), not by data processing, which
    is unsound for conditioning (NOTES.md §2)."""
    drawn = A.Ran(A.Infer(e, e.span), e.span)
    try:
        b.term_pair(ctx, drawn.value)
    except NoRule as exc:
        raise NoRule("observe with inputs that differ between the runs: the Observe rule "
                     "charges the divergence of the two posteriors, which needs their closed "
                     f"forms ({exc.message})", e.span) from None
    inner = Ran(b, ctx, drawn)
    node = b.node("Observe", ctx, e.span, f"observe {short(e.likelihood)} …: a draw from its "
                  "posterior", [inner.node])
    return Synth(node, inner.cost, inner.output, inner.facts)


@synthesis_rule(A.Ran)
def Ran(b: Builder, ctx: Ctx, e: A.Ran) -> Synth:
    """``ran d`` with ``d`` differing between the runs (the paper's Ran, §5): the diagonal
    coupling of the two distributions has the divergence of the distributions themselves, so
    ``ran d`` has type ``M[f, Δ_f(d<1>, d<2>)] {x | =}`` for the claim's f — SD the total
    variation distance, HD ``1 − BC = H²`` (NOTES.md §3), KL the KL divergence
    (``vocabulary.divergence``). Under a DP claim: ``Ran-DP``, when the context bounds the
    eps-distance of the two distributions (a ``Delta[DP(e)]`` assertion: cost ``(e,
    Δ_e(d<1>, d<2>))``, with ``e >= 0``), else the statistical distance, which a DP claim
    reads as ``(0, δ)``-DP (Barthe and Olmedo: SD is the 0-distance). The bound itself comes
    from the context or the lemmas about the closed forms (posteriors of an observe-fold)."""
    family = ctx.claim.family if ctx.claim is not None else None
    d1, d2 = b.term_pair(ctx, e.value)
    rule, obligations = "Ran", []
    if family in ("SD", "HD", "KL"):
        cost = Cost(family, T.real(0), L.divergence(family, d1, d2), f"ran at line {e.span.line}",
                    e.span)
        lemma = {"SD": "sd.metric", "HD": "fdiv.hd.one_minus_bc", "KL": "fdiv.kl.simplified"}[family]
    elif family == "DP":
        eps = dp_bound(ctx.hyps, d1, d2)
        if eps is None:  # the Infer rule's bound on two posteriors (a call fact)
            from verifier.rules.call_facts import infer_dp_eps
            eps = infer_dp_eps(b, d1, d2)
        if eps is not None:
            rule, lemma = "Ran-DP", "fdiv.epsd.simplified"
            cost = Cost("DP", eps, L.hockey_stick(eps, d1, d2), f"ran at line {e.span.line}",
                        e.span)
            obligations.append(b.oblige(ctx, ObligationKind.SIDE_CONDITION, T.ge(eps, 0),
                                        "the eps of the distributions' eps-distance is not "
                                        "negative", e.span, "Ran-DP"))
        else:
            cost = Cost("SD", T.real(0), L.tv(d1, d2), f"ran at line {e.span.line}", e.span)
            lemma = "sd.metric"
    else:
        raise NoRule("ran of distributions that differ between the runs needs a claim",
                     e.span)
    node = b.node(rule, ctx, e.span, f"ran {short(e.value)}: {cost.family} divergence of the "
                  "two distributions", obligations=obligations, lemma=lemma, dists=(d1, d2))
    out = fresh_output(b, ctx, e)
    return Synth(node, cost, (out, out), draw_facts(b, ctx, e, out))


def dp_bound(hyps, d1: T.Term, d2: T.Term) -> Optional[T.Term]:
    """The eps of the first hypothesis ``Δ_eps (d1, d2) <= B`` (a ``Delta[DP(eps)]`` assertion
    about these two distributions), if any."""
    for _, h in hyps:
        if isinstance(h, T.Op) and h.op == T.OpKind.LE and isinstance(h.args[0], T.Apply) \
                and h.args[0].func.name == "hsdiv" and h.args[0].args[1:] == (d1, d2):
            return h.args[0].args[0]
    return None


def _add_costs(c1: Cost, c2: Cost, e: A.Expr) -> Cost:
    if c1.family == "ZERO":
        return c2
    if c2.family == "ZERO":
        return c1
    family = c1.family
    if c1.family != c2.family:
        # a statistical distance d is (0, d) in the eps-distance: it composes with DP (and
        # only a DP claim accepts the result)
        if {c1.family, c2.family} != {"SD", "DP"}:
            raise NoRule(f"cannot compose a {c1.family} cost with a {c2.family} cost", e.span)
        family = "DP"
    return Cost(family, T.add(c1.eps, c2.eps), T.add(c1.delta, c2.delta),
                f"{c1.what} + {c2.what}", e.span)


@synthesis_rule(A.Var)
def _monadic_variable(b: Builder, ctx: Ctx, e: A.Var) -> Synth:
    """A computation named by a variable: one the rules know only by its type (a parameter,
    the output of a call) must be the same in both runs; a computation stored by ``let`` is
    run here, so its code is checked here, in the environment it closes over (inlining: run
    twice, it is charged twice)."""
    pair = ctx.env.lookup(e.name)
    if pair and isinstance(pair[0], Monadic) and pair[0] == pair[1] \
            and pair[0].expr is not None:
        stored = pair[0]
        inner = b.synth_monadic(ctx.with_env(stored.env), stored.expr)
        node = b.node("Unfold", ctx, e.span, f"run the computation {e.name} is bound to",
                      [inner.node])
        return Synth(node, inner.cost, inner.output, inner.facts)
    if pair and equality_goals(*pair) == []:
        node = b.node("Var", ctx, e.span,
                      f"{written(e.name)} is the same distribution in both runs")
        out = fresh_output(b, ctx, e)
        return Synth(node, zero_cost(written(e.name), e.span), (out, out))
    if pair and pair[0] is pair[1] and isinstance(pair[0], Monadic) and pair[0].cost is not None:
        # a computation known by its type M[F, delta] {x :: T | =}: running it costs the index,
        # and the coupling of the type gives equal outputs
        node = b.node("Var", ctx, e.span, f"{written(e.name)} is within its type's "
                      f"{pair[0].cost.family} bound in the two runs")
        out = fresh_output(b, ctx, e)
        return Synth(node, pair[0].cost, (out, out))
    raise NoRule(f"{written(e.name)} is not known to be the same distribution in both runs",
                 e.span)


@synthesis_rule(A.App)
def _application(b: Builder, ctx: Ctx, e: A.App) -> Synth:
    """A computation made by applying a function: a built-in mechanism (its rule), a function
    with a val (App-Val, by the val of the function the head *denotes*: an alias is not the
    val of its own spelling), or code without a val (unfolded) — the same function in both
    runs, by proof."""
    head, args = flatten_app(e)
    if e.annotation is not None and not (isinstance(head, A.Var) and head.name == "lapMech"
                                         and ctx.env.lookup(head.name) is None):
        raise NoRule(f"[@{e.annotation.name} ...] gives the coupling of Laplace noise: it "
                     "applies to a call of lapMech only", e.annotation.span)
    if isinstance(head, A.Var) and ctx.env.lookup(head.name) is None:
        # in the resolved core only a built-in is unbound
        if len(args) != 1:
            raise NoRule(f"{head.name} takes its arguments as one tuple", e.span)
        parts = args[0].items if isinstance(args[0], A.TupleLit) else (args[0],)
        return registry.mechanism(head.name, e)(b, ctx, e, tuple(parts))
    pair = ctx.env.lookup(head.name) if isinstance(head, A.Var) else None
    if pair is not None and isinstance(pair[0], FunParam):
        # a parameter of function type: App-Val against its type (``higher_order``)
        apply_val = registry.judgement(registry.APP_VAL, e.span)
        return apply_val(b, ctx, e, head.name, args, param=pair[0])
    fn, same = _same_function(b, ctx, head)
    if isinstance(fn, NamedFun) and not fn.args and not same:
        apply_val = registry.judgement(registry.APP_VAL, e.span)
        return apply_val(b, ctx, e, fn.name, args)
    if isinstance(fn, Closure):
        return _unfold(b, ctx, e, fn, args, same)
    raise NoRule(f"no rule for the monadic application {short(e)}", e.span)


def _same_function(b: Builder, ctx: Ctx, head: A.Expr):
    """The function ``head`` denotes (as run 1 sees it) and the obligations that it is the
    same function in both runs (none when it is outright)."""
    (f1, f2), _ = b.translate_pair(ctx, head)
    if isinstance(f1, Closure) and f1 == f2:
        # one closure of the relational environment (same code, same captured pairs): its
        # body, unfolded here, reads each run's own values of what it captures
        return f1, []
    goals = equality_goals(f1, f2)
    if goals is None:
        raise NoRule(f"{short(head)} is not known to be the same function in both runs",
                     head.span)
    if not goals:
        return f1, []
    return f1, [b.oblige(ctx, ObligationKind.ENTAILMENT, T.and_(*goals),
                         f"{short(head)} is the same function in both runs (what it captures "
                         "is equal)", head.span, "Unfold")]


def _unfold(b: Builder, ctx: Ctx, e: A.App, fn: Closure, args: List[A.Expr],
            same: List = ()) -> Synth:
    """Code without a ``val`` applied in monadic position: unfold its definition, with its
    parameters bound to the arguments (``same``: the obligations that it is the same function
    in both runs)."""
    if len(args) != len(fn.params):
        raise NoRule(f"{written(fn.name) or 'the function'} is partially applied here", e.span)
    env = fn.env
    ranges, bound = [], []
    for param, arg in zip(fn.params, args):
        (left, right), rs = b.translate_pair(ctx, arg)
        ranges += rs
        env = bind_pattern(env, param, left, right, arg.span)
        bound += bound_judgement(param, left, right)
    inner = b.synth_monadic(ctx.with_env(env), fn.body)
    node = b.node("Unfold", ctx, e.span, f"unfold {written(fn.name) or 'lambda'}", [inner.node],
                  ranges + list(same), bound=bound)
    return Synth(node, inner.cost, inner.output, inner.facts)


def _pattern_text(p: A.Pattern) -> str:
    from verifier.language.pretty import pretty_pattern
    return pretty_pattern(p)
