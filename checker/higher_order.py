"""The kernel's higher-order rules (issue #26), re-derived from the source: a parameter of
function type returning a computation, bound to one ``FunParam`` per run (never equal in both
runs: HOARe²'s logical relation relates the two runs' functions, it does not identify them);
a saturated call of it is App-Val against its declared type (``relational.app_val``); a
function passed where a val expects one is shown to have the type by S-Fun — contravariant
domains, covariant cost (same divergence, eps and delta at most the expected ones) and output
ranges. Only a top-level function with a val (possibly applied to its first arguments, in its
domain) or a function parameter may be passed; the claim then depends on the passed
function's claim (``referenced_vals``, checked by ``kernel``)."""
from __future__ import annotations

from typing import List, Sequence, Tuple

from obligations import terms as T
from obligations.model import ObligationKind
from verifier.language import ast as A
from verifier.translation.calls import from_terms, leaves
from verifier.translation.ranges import value_facts
from obligations.records import replace
from verifier.language.free_vars import free_vars
from verifier.translation.symbolic import Closure, Env, FunParam, NamedFun
from verifier.translation.translate import bind_pattern, flatten_app
from checker.judgement import (Ctx, Node, Proof, Reject, expect, instantiated_cost,
                               make_claim, refinement_parts, says_equal, simple_of, translated)

E, R = ObligationKind.ENTAILMENT, ObligationKind.RANGE


def parameter_type(rt: A.RType, span) -> Tuple[List[A.RType], A.RMonad]:
    """The domains (first-order data) and monadic codomain of a function-typed parameter's
    type; Reject for any other function type."""
    var, base, assertions = refinement_parts(rt)
    if assertions:
        raise Reject("a refined parameter of function type", span)
    doms: List[A.RType] = []
    while isinstance(base, A.RArrow):
        doms.append(base.dom)
        base = base.cod
    for d in doms:
        b = refinement_parts(d)[1]
        if not isinstance(b, A.RSimple) or leaves(b.type) is None:
            raise Reject("a function parameter whose parameters are not first-order data",
                         d.span)
    _, cod, more = refinement_parts(base)
    if more or not isinstance(cod, A.RMonad):
        raise Reject("a parameter of function type that does not return a computation", span)
    return doms, cod


def bind(p: Proof, ctx: Ctx, pattern: A.Pattern, dom: A.RType, val_env: Env, pname: str) -> Ctx:
    """A function-typed parameter: two distinct values, one per run, known by their type."""
    parameter_type(dom, dom.span)
    if not isinstance(pattern, (A.PVar, A.PWild)):
        raise Reject("a parameter of function type bound by a pattern", pattern.span)
    base = refinement_parts(dom)[1]
    left, right = FunParam(pname, base, val_env, 1), FunParam(pname, base, val_env, 2)
    return ctx.with_env(translated(lambda: bind_pattern(ctx.env, pattern, left, right,
                                                        pattern.span), pattern.span))


def passed_function(p: Proof, ctx: Ctx, arg: A.Expr, want: A.RType, want_env: Env, i: int,
                    what: str, node: Node) -> None:
    """S-Fun (``node``): the function ``arg`` has the type ``want`` of argument ``i`` of
    ``what``."""
    from checker.relational import first_order_argument, refinement_goal
    want_doms, want_cod = parameter_type(want, arg.span)
    head, partial = flatten_app(arg)
    pair = ctx.env.lookup(head.name) if isinstance(head, A.Var) else None
    where = f"argument {i} of {what}"
    named = pair is not None and isinstance(pair[0], NamedFun) and pair[0] == pair[1] \
        and not pair[0].args and p.val_of(pair[0].name) is not None
    passed_on = pair is not None and isinstance(pair[0], FunParam) \
        and isinstance(pair[1], FunParam) and not partial
    (premise,) = expect(node, ("S-Fun",), arg, where, premises=0 if named or passed_on else 1) \
        or (None,)
    if premise is not None:
        return fun_argument(p, ctx, arg, want_doms, want_cod, want_env, where, premise)
    if passed_on:
        have_doms, have_cod = parameter_type(pair[0].rtype, arg.span)
        have_env = pair[0].env
    else:
        doms, cod = [], p.val_of(pair[0].name).rtype
        while isinstance(cod, A.RArrow):
            doms.append(cod.dom)
            cod = cod.cod
        if len(partial) >= len(doms):
            raise Reject(f"{where} is not a function", arg.span)
        have_env = p.top_env
        for j, (a, d) in enumerate(zip(partial, doms), 1):
            have_env = first_order_argument(p, ctx, a, d, have_env,
                                            f"a first argument of the function passed as {where}",
                                            "S-Fun")
        rest = cod
        for d in reversed(doms[len(partial):]):
            rest = A.RArrow(d, rest, d.span)
        have_doms, have_cod = parameter_type(rest, arg.span)
    if len(have_doms) != len(want_doms):
        raise Reject(f"{where} takes another number of arguments than expected", arg.span)
    inner = ctx
    for k, (wd, hd) in enumerate(zip(want_doms, have_doms), 1):
        inner, want_env, wtype, left, right = _fresh_domain(p, inner, k, wd, want_env)
        hvar, hbase, hass = refinement_parts(hd)
        if leaves(wtype) != leaves(hbase.type):
            raise Reject(f"{where}: a parameter of another type than expected", arg.span)
        goals = _facts(hbase.type, left) + _facts(hbase.type, right)
        if hvar is not None:
            have_env = have_env.bind(hvar, left, right)
        goals += [refinement_goal(p, have_env, a, hvar, left, right, arg.span) for a in hass]
        if hvar is not None and says_equal(hvar, hass):
            have_env = have_env.bind(hvar, left, left)
        for g in goals:
            p.oblige(inner, E, g, f"{where}: its parameter {k} accepts the expected domain "
                     "(contravariance)", arg.span, "S-Fun")
    wanted = instantiated_cost(p, want_env, want_cod)
    have = instantiated_cost(p, have_env, have_cod)
    if have.family not in ("ZERO", wanted.family):
        raise Reject(f"{where} is within a {have.family} bound, where a {wanted.family} one is "
                     "expected", arg.span)
    bounds = [T.le(have.eps, wanted.eps)] if wanted.family == "DP" else []
    for g in bounds + [T.le(have.delta, wanted.delta)]:
        p.oblige(inner, E, g, f"{where} costs at most the expected type's index (covariance)",
                 arg.span, "S-Fun")
    _output_ranges(p, inner, have_cod, want_cod, where, arg.span)


def _fresh_domain(p: Proof, ctx: Ctx, k: int, dom: A.RType, env: Env):
    """Fresh values for the expected domain ``dom`` (one shared when it says ``=``), with its
    ranges and refinements assumed and its variable bound: (ctx, env, type, left, right)."""
    var, base, assertions = refinement_parts(dom)
    shared = var is not None and says_equal(var, assertions)
    made = [p.fresh_pair(f"{var or 'x'}{k}", s, shared) for s in leaves(base.type)]
    left = from_terms(base.type, [x for x, _ in made])
    right = from_terms(base.type, [y for _, y in made])
    facts = _facts(base.type, left) + ([] if shared else _facts(base.type, right))
    if facts:
        ctx = ctx.assume(f"h_sfun_range{k}", T.and_(*facts))
    if var is not None:
        env = env.bind(var, left, right)
    for a in assertions:
        if not isinstance(a, A.SameRuns):
            ctx = ctx.assume(f"h_sfun_dom{k}", translated(
                lambda: p.assertion(env, a, refined=var), a.span))
    return ctx, env, base.type, left, right


def fun_argument(p: Proof, ctx: Ctx, arg: A.Expr, want_doms: List[A.RType], want_cod: A.RMonad,
                 want_env: Env, where: str, premise: Node) -> None:
    """S-Fun for a ``fun`` (or a helper without a val, possibly applied): one code in both
    runs, each run's captured values its own; its body, with its parameters fresh values of
    the expected domains (ranges and refinements assumed), is checked (``premise``) against
    the expected codomain as a claim of its own."""
    from checker.relational import check
    c1, c2 = translated(lambda: p.pair(ctx, arg), arg.span)
    if not (isinstance(c1, Closure) and isinstance(c2, Closure) and c1.params == c2.params
            and c1.body == c2.body and len(c1.params) == len(want_doms)) \
            or isinstance(c1.body, A.Fun):
        raise Reject(f"{where}: not a function of the expected arity the kernel can check",
                     arg.span)
    if ctx.function is not None and ctx.function in free_vars(c1.body):
        raise Reject(f"{where}: a fun that calls the recursive definition being proved",
                     arg.span)
    env = c1.env
    bound = {n for q in c1.params for n in A.pattern_names(q)}
    for name in sorted(free_vars(c1.body) - bound):  # what each run's closure captures
        v1, v2 = c1.env.lookup(name), c2.env.lookup(name)
        if (v1 is None) != (v2 is None):
            raise Reject(f"{where}: a name captured in one run only", arg.span)
        if v1 is not None:
            env = env.bind(name, v1[0], v2[1])
    inner = ctx
    for k, (pattern, wd) in enumerate(zip(c1.params, want_doms), 1):
        inner, want_env, _, left, right = _fresh_domain(p, inner, k, wd, want_env)
        env = translated(lambda: bind_pattern(env, pattern, left, right, arg.span), arg.span)
    claim = make_claim(p, want_env, want_cod)
    check(p, replace(inner, env=env, claim=claim, costs=(), function=None, induction=None,
                     binder=None), c1.body, premise)


def _output_ranges(p: Proof, ctx: Ctx, have: A.RMonad, want: A.RMonad, where: str,
                   span) -> None:
    from checker.safety import fresh_value
    ht, wt = simple_of(have.body), simple_of(want.body)
    if leaves(ht) is None or leaves(ht) != leaves(wt):
        raise Reject(f"{where} draws values of another type than expected", span)
    out, facts = fresh_value(p, ht, "out")
    inner = ctx.assume("h_sfun_out", T.and_(*facts)) if facts else ctx
    for g in _facts(wt, out):
        p.oblige(inner, R, g, f"{where} draws values of the expected type (covariance)", span,
                 "S-Fun")


def _facts(t: A.SimpleType, value) -> List[T.Term]:
    facts = value_facts(t, value)
    if facts is None:
        raise Reject("a value whose type the kernel cannot state")
    return facts


def call_type(fn: FunParam) -> Tuple[List[A.RType], A.RMonad]:
    """The domains and codomain a call of the function parameter ``fn`` is checked against."""
    return parameter_type(fn.rtype, None)


__all__: Sequence[str] = ("parameter_type", "bind", "passed_function", "call_type")
