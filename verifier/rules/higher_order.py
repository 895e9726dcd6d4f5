"""Higher order: parameters of function type (HOARe²'s abstraction and application at arrow
types, issue #26), for functions that return a computation.

A val may take a function ``m :: {x1 :: T1 | P1} -> … -> M[F, delta] {r :: U | =}`` (first-order
domains, a monadic codomain whose outputs are coupled by ``=``). Its meaning is HOARe²'s
logical relation: the two runs' functions ``m<1>``, ``m<2>`` need not be the same, but on
arguments related by the ``P``s they give computations within the index (``F``, ``delta``
instantiated at those arguments), whose outputs are coupled equal. So:

* **in the body** (``bind_function_parameter``) the parameter is bound to two distinct
  ``FunParam`` values (never shown equal in both runs); a saturated call of it is App-Val
  against its type (``core_rules.apply_val``): its arguments in the domain, its cost the
  index instantiated, an output equal in both runs;
* **at a call site** (``function_argument``) of a val with such a parameter, the argument must
  have the type: it is a top-level function with a val (possibly applied to its first
  arguments, which are shown to be in its domain as App-Val shows them), or a function
  parameter of the caller, and the subtyping is shown by obligations (rule ``S-Fun``) —
  contravariant domains (for fresh values with the expected domain's ranges and refinements,
  the argument's domain holds), covariant codomain (same divergence, its eps and delta at
  most the expected ones, its output ranges imply the expected ones). A claim depends on the
  passed function's val being verified (``resolve.referenced_vals``: its body names it).

Safety and Decidable treat a call of the parameter as a call of a verified function:
it terminates without error on arguments in its domain (the walk requires the domain at
``(a, a)``, as for a val), what it draws has its type's ranges and is not known to be rational,
and its arguments must be rational (the passed function's contract is then met whatever it
is). This is the assumption the rule rests on: callers only pass verified functions, which
the call-site check and the dependency on the passed function's claim ensure.

A ``fun`` passed as an argument, a helper without a val, and parameters of function type
returning a pure value are not supported (V003). The certificate kernel re-derives all of it
on its own (``checker/higher_order.py``).
"""
from __future__ import annotations

from typing import List, Sequence, Tuple

from obligations import terms as T
from obligations.model import ObligationKind
from verifier.language import ast as A
from verifier.language.resolve import written
from verifier.rules import registry
from verifier.rules.builder import Builder
from verifier.rules.context import Ctx
from verifier.rules.derivation import Derivation
from verifier.rules.refinements import fresh_value, refinement_parts, simple_of
from verifier.rules.registry import judgement_rule
from verifier.translation.calls import from_terms, leaves
from verifier.translation.ranges import value_facts
from verifier.language.free_vars import free_vars
from verifier.translation.symbolic import Closure, Env, FunParam, NamedFun
from verifier.translation.translate import NoRule, bind_pattern, flatten_app


def function_type(rt: A.RType, span) -> Tuple[List[A.RType], A.RMonad]:
    """The domains and the (monadic) codomain of a function type a parameter may have, or
    NoRule: first-order domains, a codomain ``M[F, delta] {r :: U | A}``."""
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
    if more or not isinstance(cod, A.RMonad):
        raise NoRule("parameters of function type are supported when the function returns a "
                     "computation (… -> M[F, delta] {r :: T | =}); a pure result is not "
                     "supported by the verifier", span)
    return doms, cod


@judgement_rule(registry.FUNCTION_PARAMETER)
def bind_function_parameter(b: Builder, ctx: Ctx, val_env: Env, p: A.Pattern, dom: A.RType,
                            pname: str) -> Ctx:
    """Bind a parameter of function type: one ``FunParam`` per run (distinct: the runs'
    functions are related by the type, not equal), read in ``val_env``."""
    function_type(dom, dom.span)
    if not isinstance(p, (A.PVar, A.PWild)):
        raise NoRule("a parameter of function type must be a name", p.span)
    _, base, _ = refinement_parts(dom)
    left, right = FunParam(pname, base, val_env, 1), FunParam(pname, base, val_env, 2)
    return ctx.with_env(bind_pattern(ctx.env, p, left, right, p.span))


@judgement_rule(registry.S_FUN)
def function_argument(b: Builder, ctx: Ctx, arg: A.Expr, want: A.RType, want_env: Env,
                      i: int, name: str) -> Derivation:
    """S-Fun: ``arg`` has the function type ``want`` (read in ``want_env``), the type of
    argument ``i`` of ``name``'s val: its obligations, contravariant in the domains and
    covariant in the codomain."""
    from verifier.rules.core_rules import first_order_argument, refinement_goal
    from verifier.rules.refinements import _shared
    want_doms, want_cod = function_type(want, arg.span)
    head, partial = flatten_app(arg)
    pair = ctx.env.lookup(head.name) if isinstance(head, A.Var) else None
    obligations: List = []
    what = f"argument {i} of {name}"
    if pair is not None and isinstance(pair[0], FunParam) and isinstance(pair[1], FunParam) \
            and not partial:
        have_doms, have_cod = function_type(pair[0].rtype, arg.span)
        have_env = pair[0].env
    elif pair is not None and isinstance(pair[0], NamedFun) and pair[0] == pair[1] \
            and not pair[0].args and b.val_of(pair[0].name) is not None:
        val = b.val_of(pair[0].name)
        doms, cod = [], val.rtype
        while isinstance(cod, A.RArrow):
            doms.append(cod.dom)
            cod = cod.cod
        if len(partial) >= len(doms):
            raise NoRule(f"{what} must be a function", arg.span)
        have_env = b.top_env
        for j, (a, d) in enumerate(zip(partial, doms), 1):
            have_env, obs, _ = first_order_argument(
                b, ctx, a, d, have_env, f"argument {j} of {written(pair[0].name)}", "S-Fun")
            obligations += obs
        have_doms, have_cod = function_type(_arrow(doms[len(partial):], cod), arg.span)
    else:
        return _closure_argument(b, ctx, arg, want_doms, want_cod, want_env, what)
    if len(have_doms) != len(want_doms):
        raise NoRule(f"{what} takes {len(have_doms)} arguments; its val expects a function of "
                     f"{len(want_doms)}", arg.span)
    inner = ctx
    for k, (wd, hd) in enumerate(zip(want_doms, have_doms), 1):
        inner, want_env, wtype, left, right = _fresh_domain(b, inner, k, wd, want_env)
        hvar, hbase, hass = refinement_parts(hd)
        if leaves(wtype) != leaves(hbase.type):
            raise NoRule(f"{what}: its parameter {k} has another type than the expected one",
                         arg.span)
        goals = value_facts(hbase.type, left) + value_facts(hbase.type, right)
        if hvar is not None:
            have_env = have_env.bind(hvar, left, right)
        goals += [refinement_goal(b, have_env, a, hvar, left, right, arg.span) for a in hass]
        if hvar is not None and _shared(hvar, hass):
            have_env = have_env.bind(hvar, left, left)
        for g in goals:
            obligations.append(b.oblige(inner, ObligationKind.ENTAILMENT, g,
                                        f"{what}: its parameter {k} accepts what the expected "
                                        "type gives (contravariant domain)", arg.span, "S-Fun"))
    from verifier.rules.refinements import _instantiated_cost
    wanted = _instantiated_cost(b, want_env, want_cod, what, arg.span)
    have = _instantiated_cost(b, have_env, have_cod, what, arg.span)
    if have.family not in ("ZERO", wanted.family):
        raise NoRule(f"{what} returns a computation within a {have.family} bound, where a "
                     f"{wanted.family} one is expected", arg.span)
    goals = [T.le(have.eps, wanted.eps)] if wanted.family == "DP" else []
    goals.append(T.le(have.delta, wanted.delta))
    for g in goals:
        obligations.append(b.oblige(inner, ObligationKind.ENTAILMENT, g, f"{what} costs at most "
                                    "what the expected type allows (covariant codomain)",
                                    arg.span, "S-Fun"))
    obligations += _output_ranges(b, inner, have_cod, want_cod, what, arg.span)
    return b.node("S-Fun", ctx, arg.span, f"{what} has the function type its val expects",
                  obligations=obligations)


def _fresh_domain(b: Builder, ctx: Ctx, k: int, dom: A.RType, env: Env):
    """Fresh values, one per run (one shared when the refinement says ``=``), for the
    expected domain ``dom`` (its ``k``-th): its ranges and refinements assumed in ``ctx``, its
    variable bound in ``env``. Returns the context, the env, the simple type and the values."""
    from verifier.rules.refinements import _shared
    var, base, assertions = refinement_parts(dom)
    shared = var is not None and _shared(var, assertions)
    pairs = [b.fresh_pair(f"{var or 'x'}{k}", s, shared) for s in leaves(base.type)]
    left = from_terms(base.type, [x for x, _ in pairs])
    right = from_terms(base.type, [y for _, y in pairs])
    facts = value_facts(base.type, left) + ([] if shared else value_facts(base.type, right))
    if facts:
        ctx = ctx.assume(f"h_sfun_range{k}", T.and_(*facts))
    if var is not None:
        env = env.bind(var, left, right)
    for a in assertions:
        if not isinstance(a, A.SameRuns):
            ctx = ctx.assume(f"h_sfun_dom{k}", b.assertion(env, a, refined=var))
    return ctx, env, base.type, left, right


def closure_pair(c1, c2, what: str, span) -> Tuple[Closure, Env]:
    """A ``fun`` (or a helper without a val, possibly applied to its first arguments) as the
    two runs see it: one code, and the relational environment of what it captures — run 1's
    value of each captured name as run 1's closure sees it, run 2's as run 2's does."""
    if not (isinstance(c1, Closure) and isinstance(c2, Closure) and c1.params == c2.params
            and c1.body == c2.body and c1.params):
        raise NoRule(f"{what} must be a top-level function with a val (possibly applied to its "
                     "first arguments), a function parameter, or a fun", span)
    env = c1.env
    bound = {n for q in c1.params for n in A.pattern_names(q)}
    for name in sorted(free_vars(c1.body) - bound):
        p1, p2 = c1.env.lookup(name), c2.env.lookup(name)
        if p1 is not None and p2 is not None:
            env = env.bind(name, p1[0], p2[1])
        elif p1 is not None or p2 is not None:
            raise NoRule(f"{what}: the function captures a name bound in one run only", span)
    return c1, env


def _closure_argument(b: Builder, ctx: Ctx, arg: A.Expr, want_doms: List[A.RType],
                      want_cod: A.RMonad, want_env: Env, what: str) -> Derivation:
    """S-Fun for a ``fun`` (HOARe²'s abstraction, checked in place): its body, with its
    parameters bound to fresh values of the expected domains (their ranges and refinements
    assumed), has the expected codomain — within its index (a claim of its own: the costs of
    the caller's path are not counted), with outputs equal in both runs."""
    from obligations.records import replace
    from verifier.rules.core_rules import make_claim
    (c1, c2), ranges = b.translate_pair(ctx, arg)
    fn, env = closure_pair(c1, c2, what, arg.span)
    if len(fn.params) != len(want_doms) or isinstance(fn.body, A.Fun):
        raise NoRule(f"{what} takes another number of arguments than its val expects "
                     f"({len(want_doms)})", arg.span)
    if ctx.function is not None and ctx.function in free_vars(fn.body):
        raise NoRule(f"{what} calls {written(ctx.function)}, whose termination is shown only "
                     "for its own calls", arg.span)
    inner = ctx
    for k, (p, wd) in enumerate(zip(fn.params, want_doms), 1):
        inner, want_env, _, left, right = _fresh_domain(b, inner, k, wd, want_env)
        env = bind_pattern(env, p, left, right, arg.span)
    claim = make_claim(b, want_env, want_cod)
    body = replace(inner, env=env, claim=claim, costs=(), function=None, induction=None,
                   binder=None)
    premise = b.check_monadic(body, fn.body)
    return b.node("S-Fun", ctx, arg.span, f"{what}: the fun has the function type its val "
                  f"expects (its body within {claim.text})", [premise], obligations=ranges)


def _output_ranges(b: Builder, ctx: Ctx, have: A.RMonad, want: A.RMonad, what: str,
                   span) -> List:
    """What a computation of type ``have`` draws has the ranges ``want`` says."""
    ht, wt = simple_of(have.body), simple_of(want.body)
    if leaves(ht) != leaves(wt) or leaves(ht) is None:
        raise NoRule(f"{what} draws values of another type than the expected one", span)
    out, facts = fresh_value(b, ht, "out")
    goals = value_facts(wt, out) or []
    inner = ctx.assume("h_sfun_out", T.and_(*facts)) if facts else ctx
    return [b.oblige(inner, ObligationKind.RANGE, g, f"{what} draws values of the type the "
                     "expected type says (covariant codomain)", span, "S-Fun") for g in goals]


def _arrow(doms: Sequence[A.RType], cod: A.RType) -> A.RType:
    for d in reversed(doms):
        cod = A.RArrow(d, cod, d.span)
    return cod


def parameter_call_arguments(fn: FunParam) -> Tuple[List[A.RType], A.RMonad]:
    """The domains and codomain of a function parameter's type (App-Val against it)."""
    return function_type(fn.rtype, None)

