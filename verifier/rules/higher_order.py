"""Higher order: parameters of function type (HOARe²'s abstraction and application at arrow
types, issue #26), for functions that return a computation or a pure value.

A val may take a function ``m :: {x1 :: T1 | P1} -> … -> C`` (first-order domains) whose
codomain ``C`` is a computation ``M[F, delta] {r :: U | =}`` or a pure first-order value
``{r :: U | Q}``. Its meaning is HOARe²'s logical relation: the two runs' functions ``m<1>``,
``m<2>`` need not be the same, but on arguments related by the ``P``s they give computations
within the index (``F``, ``delta`` instantiated at those arguments) whose outputs are coupled
equal — or values related by ``Q``. So:

* **in the body** (``bind_function_parameter``) the parameter is bound to two distinct
  ``FunParam`` values (never shown equal in both runs). A saturated call of it is App-Val
  against its type: for a computation (``core_rules.apply_val``) its arguments in the domain,
  its cost the index instantiated, an output equal in both runs; for a pure value, the call
  is a symbol of the run's function (``fn_m'x1(a)``, ``fn_m'x2(b)``:
  ``verifier.translation.functions``) about which the obligations assume only the type's
  call fact ``P(a, b) ==> Q(m<1>(a), m<2>(b))`` (``call_facts.parameter_fact``);
* **at a call site** (``function_argument``) of a val with such a parameter, the argument must
  have the type: it is a top-level function with a val (possibly applied to its first
  arguments, which are shown to be in its domain as App-Val shows them), or a function
  parameter of the caller, and the subtyping is shown by obligations (rule ``S-Fun``) —
  contravariant domains (for fresh values with the expected domain's ranges and refinements,
  the argument's domain holds), covariant codomain (for a computation: same divergence, its
  eps and delta at most the expected ones, its output ranges imply the expected ones; for a
  value: fresh outputs with the argument's codomain assumed satisfy the expected one); or a
  ``fun`` checked in place (its body against the expected codomain, each run reading its own
  captured values). A claim depends on the passed function's val being verified
  (``resolve.referenced_vals``: its body names it);
* **in pure code**, a call ``f g a`` of a val that takes a function is a symbol of its run and
  of the key of ``g`` (``functions.function_key``); the call fact relating a run 1 call to a
  run 2 call of one key rests on the two runs' functions having the type ``f`` expects: the
  requirement (``Related``) is recorded where the fact is stated, and the proof gets an S-Fun
  node for it (``related_functions``), shown in the claim's parameter context (what holds
  wherever the fact is used) under the fact's own premises.

Safety and Decidable treat a call of the parameter as a call of a verified function:
it terminates without error on arguments in its domain (the walk requires the domain at
``(a, a)``, as for a val), what it draws or returns has its type's ranges and is not known to
be rational, and its arguments must be rational (the passed function's contract is then met
whatever it is). This is the assumption the rule rests on: callers only pass verified
functions, which the call-site check and the dependency on the passed function's claim ensure.

Domains that are functions or computations, a refinement on the function itself, and passing
anything else (a partially applied parameter, a function computed by an ``if``) are not
supported (V003). The certificate kernel re-derives all of it on its own
(``checker/higher_order.py``).
"""
from __future__ import annotations

from typing import List, Optional, Sequence, Tuple

from obligations import terms as T
from obligations.model import ObligationKind
from verifier.language import ast as A
from verifier.language.pretty import pretty_rtype
from verifier.language.resolve import written
from verifier.rules import registry
from verifier.rules.builder import Builder
from verifier.rules.context import Ctx
from verifier.rules.derivation import Derivation
from verifier.rules.function_types import function_type
from verifier.rules.refinements import fresh_value, refinement_parts, simple_of
from verifier.rules.registry import judgement_rule
from verifier.translation.calls import from_terms, leaves
from verifier.translation.ranges import value_facts
from verifier.language.free_vars import free_vars
from verifier.translation.symbolic import Closure, Env, FunParam, NamedFun, SymValue
from verifier.translation.translate import NoRule, bind_pattern, flatten_app


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
    from verifier.rules.core_rules import first_order_argument
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
        doms, cod = _val_arrows(b, pair[0].name)
        if len(partial) >= len(doms):
            raise NoRule(f"{what} must be a function", arg.span)
        have_env = b.top_env
        for j, (a, d) in enumerate(zip(partial, doms), 1):
            have_env, obs, _ = first_order_argument(
                b, ctx, a, d, have_env, f"argument {j} of {written(pair[0].name)}", "S-Fun")
            obligations += obs
        have_doms, have_cod = function_type(_arrow(doms[len(partial):], cod), arg.span)
    else:
        (c1, c2), ranges = b.translate_pair(ctx, arg)
        return _closure_argument(b, ctx, c1, c2, want_doms, want_cod, want_env, what,
                                 arg.span, ranges)
    obligations += subtyping(b, ctx, have_doms, have_cod, have_env, want_doms, want_cod,
                             want_env, what, arg.span)
    return b.node("S-Fun", ctx, arg.span, f"{what} has the function type its val expects",
                  obligations=obligations)


def related_functions(b: Builder, ctx: Ctx, left: SymValue, right: SymValue, want: A.RType,
                      want_env: Env, what: str, span) -> Derivation:
    """S-Fun for two function values, run 1's ``left`` and run 2's ``right`` (as pure code
    passed them to a val: ``Related``): they have the function type ``want`` (read in
    ``want_env``) — a parameter passed on (its declared type against ``want``), a val's
    function applied to first arguments in its domain, or a ``fun`` checked in place."""
    want_doms, want_cod = function_type(want, span)
    if isinstance(left, FunParam) and isinstance(right, FunParam) and left.name == right.name \
            and (left.run, right.run) == (1, 2):
        have_doms, have_cod = function_type(left.rtype, span)
        obligations = subtyping(b, ctx, have_doms, have_cod, left.env, want_doms, want_cod,
                                want_env, what, span)
    elif isinstance(left, NamedFun) and isinstance(right, NamedFun) and left.name == right.name \
            and len(left.args) == len(right.args) and b.val_of(left.name) is not None:
        doms, cod = _val_arrows(b, left.name)
        if len(left.args) >= len(doms):
            raise NoRule(f"{what} must be a function", span)
        have_env, obligations = b.top_env, []
        for j, ((a, _), (c, _), d) in enumerate(zip(left.args, right.args, doms), 1):
            have_env, obs = first_order_values(
                b, ctx, a, c, d, have_env, f"argument {j} of {written(left.name)}", span,
                "S-Fun")
            obligations += obs
        have_doms, have_cod = function_type(_arrow(doms[len(left.args):], cod), span)
        obligations += subtyping(b, ctx, have_doms, have_cod, have_env, want_doms, want_cod,
                                 want_env, what, span)
    elif isinstance(want_cod, A.RMonad):
        raise NoRule(f"{what}: a fun returning a computation passed in pure code is not "
                     "supported", span)
    else:
        return _closure_argument(b, ctx, left, right, want_doms, want_cod, want_env, what,
                                 span, [])
    return b.node("S-Fun", ctx, span, f"{what} has the function type its val expects",
                  obligations=obligations)


def subtyping(b: Builder, ctx: Ctx, have_doms: Sequence[A.RType], have_cod: A.RType,
              have_env: Env, want_doms: Sequence[A.RType], want_cod: A.RType, want_env: Env,
              what: str, span) -> List:
    """The obligations of ``have <: want`` at arrow types (S-Fun): for fresh values of the
    expected domains (their ranges and refinements assumed), the argument's domains hold
    (contravariance), and its codomain implies the expected one (covariance: a computation's
    divergence, eps, delta and output ranges; a value's ranges and refinement)."""
    from verifier.rules.core_rules import refinement_goal
    from verifier.rules.refinements import _shared
    if len(have_doms) != len(want_doms):
        raise NoRule(f"{what} takes {len(have_doms)} arguments; its val expects a function of "
                     f"{len(want_doms)}", span)
    obligations: List = []
    inner = ctx
    for k, (wd, hd) in enumerate(zip(want_doms, have_doms), 1):
        inner, want_env, wtype, left, right = _fresh_domain(b, inner, k, wd, want_env)
        hvar, hbase, hass = refinement_parts(hd)
        if leaves(wtype) != leaves(hbase.type):
            raise NoRule(f"{what}: its parameter {k} has another type than the expected one",
                         span)
        goals = value_facts(hbase.type, left) + value_facts(hbase.type, right)
        if hvar is not None:
            have_env = have_env.bind(hvar, left, right)
        goals += [refinement_goal(b, have_env, a, hvar, left, right, span) for a in hass]
        if hvar is not None and _shared(hvar, hass):
            have_env = have_env.bind(hvar, left, left)
        for g in goals:
            obligations.append(b.oblige(inner, ObligationKind.ENTAILMENT, g,
                                        f"{what}: its parameter {k} accepts what the expected "
                                        "type gives (contravariant domain)", span, "S-Fun"))
    if isinstance(want_cod, A.RMonad) != isinstance(have_cod, A.RMonad):
        kinds = ("a computation", "a value") if isinstance(have_cod, A.RMonad) else \
            ("a value", "a computation")
        raise NoRule(f"{what} returns {kinds[0]}, where {kinds[1]} is expected", span)
    if not isinstance(want_cod, A.RMonad):
        return obligations + _value_codomain(b, inner, have_cod, have_env, want_cod, want_env,
                                             what, span)
    from verifier.rules.refinements import _instantiated_cost
    wanted = _instantiated_cost(b, want_env, want_cod, what, span)
    have = _instantiated_cost(b, have_env, have_cod, what, span)
    if have.family not in ("ZERO", wanted.family):
        raise NoRule(f"{what} returns a computation within a {have.family} bound, where a "
                     f"{wanted.family} one is expected", span)
    goals = [T.le(have.eps, wanted.eps)] if wanted.family == "DP" else []
    goals.append(T.le(have.delta, wanted.delta))
    for g in goals:
        obligations.append(b.oblige(inner, ObligationKind.ENTAILMENT, g, f"{what} costs at most "
                                    "what the expected type allows (covariant codomain)",
                                    span, "S-Fun"))
    return obligations + _output_ranges(b, inner, have_cod, want_cod, what, span)


def _value_codomain(b: Builder, ctx: Ctx, have: A.RType, have_env: Env, want: A.RType,
                    want_env: Env, what: str, span) -> List:
    """Covariance of a pure codomain: fresh results, one per run, with the ranges and the
    refinement of the argument's codomain assumed (read with its domain's variables bound to
    the fresh arguments) satisfy the expected codomain's ranges and refinement."""
    from verifier.rules.core_rules import refinement_goal
    from verifier.rules.refinements import fresh_value
    hvar, hbase, hass = refinement_parts(have)
    wvar, wbase, wass = refinement_parts(want)
    if leaves(hbase.type) != leaves(wbase.type) or leaves(hbase.type) is None:
        raise NoRule(f"{what} returns values of another type than the expected one", span)
    (o1, f1), (o2, f2) = fresh_value(b, hbase.type, "out"), fresh_value(b, hbase.type, "out")
    inner = ctx.assume("h_sfun_out", T.and_(*f1, *f2)) if f1 or f2 else ctx
    if hvar is not None:
        have_env = have_env.bind(hvar, o1, o2)
    for k, a in enumerate(hass):
        inner = inner.assume(f"h_sfun_cod{k}", refinement_goal(b, have_env, a, hvar, o1, o2,
                                                               span))
    return _codomain_goals(b, inner, wbase.type, wvar, wass, want_env, o1, o2, what, span)


def _codomain_goals(b: Builder, ctx: Ctx, t: A.SimpleType, var: Optional[str],
                    assertions: Sequence[A.Expr], env: Env, left: SymValue, right: SymValue,
                    what: str, span) -> List:
    """The obligations that ``left``, ``right`` (run 1's and run 2's results) have the
    ranges of ``t`` and satisfy the expected codomain's refinement."""
    from verifier.rules.core_rules import refinement_goal
    out = [b.oblige(ctx, ObligationKind.RANGE, g, f"{what} returns values of the type the "
                    f"expected type says (covariant codomain, run {run})", span, "S-Fun")
           for run, value in ((1, left), (2, right)) for g in value_facts(t, value)]
    if var is not None:
        env = env.bind(var, left, right)
    out += [b.oblige(ctx, ObligationKind.ENTAILMENT, refinement_goal(b, env, a, var, left, right,
                                                                     span),
                     f"{what} returns values related as the expected type says (covariant "
                     "codomain)", span, "S-Fun") for a in assertions]
    return out


def first_order_values(b: Builder, ctx: Ctx, left: SymValue, right: SymValue, dom: A.RType,
                       env: Env, what: str, span, rule: str) -> Tuple[Env, List]:
    """The obligations that the values ``left``, ``right`` (run 1's and run 2's) have the
    domain ``dom`` (read in ``env``): its ranges in each run and its refinements; and
    ``env`` with the domain's variable bound to them."""
    from verifier.rules.core_rules import refinement_goal
    from verifier.rules.refinements import _shared
    var, base, assertions = refinement_parts(dom)
    if not isinstance(base, A.RSimple):
        raise NoRule(f"{what} must be first-order data", span)
    if var is not None:
        env = env.bind(var, left, right)
    obligations = [b.oblige(ctx, ObligationKind.RANGE, T.and_(*facts),
                            f"{what} has type {pretty_rtype(base)} (run {run})", span, rule)
                   for run, value in ((1, left), (2, right))
                   for facts in (value_facts(base.type, value) or [],) if facts]
    obligations += [b.oblige(ctx, ObligationKind.ENTAILMENT,
                             refinement_goal(b, env, a, var, left, right, span),
                             f"{what} satisfies its refinement", span, rule) for a in assertions]
    if var is not None and _shared(var, assertions):
        env = env.bind(var, left, left)
    return env, obligations


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


def _closure_argument(b: Builder, ctx: Ctx, c1, c2, want_doms: List[A.RType],
                      want_cod: A.RType, want_env: Env, what: str, span,
                      ranges: List) -> Derivation:
    """S-Fun for a ``fun`` (HOARe²'s abstraction, checked in place): its body, with its
    parameters bound to fresh values of the expected domains (their ranges and refinements
    assumed), has the expected codomain — a computation within its index (a claim of its
    own: the costs of the caller's path are not counted) with outputs equal in both runs, or
    values related as the expected codomain says (each run's body read with that run's
    captured values)."""
    from obligations.records import replace
    from verifier.rules.core_rules import make_claim
    fn, env = closure_pair(c1, c2, what, span)
    if len(fn.params) != len(want_doms) or isinstance(fn.body, A.Fun):
        raise NoRule(f"{what} takes another number of arguments than its val expects "
                     f"({len(want_doms)})", span)
    if ctx.function is not None and ctx.function in free_vars(fn.body):
        raise NoRule(f"{what} calls {written(ctx.function)}, whose termination is shown only "
                     "for its own calls", span)
    inner = ctx
    for k, (p, wd) in enumerate(zip(fn.params, want_doms), 1):
        inner, want_env, _, left, right = _fresh_domain(b, inner, k, wd, want_env)
        env = bind_pattern(env, p, left, right, span)
    if not isinstance(want_cod, A.RMonad):
        body = replace(inner, env=env, function=None, induction=None, binder=None)
        (v1, v2), _ = b.translate_pair(body, fn.body)
        wvar, wbase, wass = refinement_parts(want_cod)
        obligations = list(ranges) + _codomain_goals(b, body, wbase.type, wvar, wass, want_env,
                                                     v1, v2, what, span)
        return b.node("S-Fun", ctx, span, f"{what}: the fun has the function type its val "
                      "expects (its body's values in the expected codomain)",
                      obligations=obligations)
    claim = make_claim(b, want_env, want_cod)
    body = replace(inner, env=env, claim=claim, costs=(), function=None, induction=None,
                   binder=None)
    premise = b.check_monadic(body, fn.body)
    return b.node("S-Fun", ctx, span, f"{what}: the fun has the function type its val "
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


def _val_arrows(b: Builder, name: str) -> Tuple[List[A.RType], A.RType]:
    doms, cod = [], b.val_of(name).rtype
    while isinstance(cod, A.RArrow):
        doms.append(cod.dom)
        cod = cod.cod
    return doms, cod


def _arrow(doms: Sequence[A.RType], cod: A.RType) -> A.RType:
    for d in reversed(doms):
        cod = A.RArrow(d, cod, d.span)
    return cod


def parameter_call_arguments(fn: FunParam) -> Tuple[List[A.RType], A.RType]:
    """The domains and codomain of a function parameter's type (App-Val against it)."""
    return function_type(fn.rtype, None)


# ---- function arguments of calls in pure code -----------------------------------------------

@judgement_rule(registry.S_FUN_ROOTS)
def related_nodes(b: Builder) -> List[Derivation]:
    """The S-Fun nodes of the requirements the call facts recorded (``b.related``), each
    shown in the claim's parameter context under its fact's premises; requirements their
    obligations record in turn are shown too."""
    nodes: List[Derivation] = []
    done = 0
    while done < len(b.related):
        r = list(b.related.values())[done]
        done += 1
        ctx = Ctx(env=b.top_env, hyps=r.base, base=len(r.base))
        if r.premises:
            ctx = ctx.assume("h_sfun_call", T.and_(*r.premises))
        what = f"argument {r.position} of {written(r.callee)}"
        node = related_functions(b, ctx, r.left, r.right, r.want, r.env, what, r.at)
        node.judgement["summary"] += (" (passed in pure code: the call facts of "
                                      f"{written(r.callee)}'s calls rest on it)")
        node.judgement["related"] = {"callee": r.callee, "position": r.position}
        nodes.append(node)
    return nodes
