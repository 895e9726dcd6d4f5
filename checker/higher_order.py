"""The kernel's higher-order rules (issue #26), re-derived from the source: a parameter of
function type returning a computation or a pure first-order value, bound to one ``FunParam``
per run (never equal in both runs: HOARe²'s logical relation relates the two runs'
functions, it does not identify them).

* A saturated call of a parameter returning a computation is App-Val against its declared
  type (``relational.app_val``); one returning a value is the run's symbol ``fn_m'x1(a)`` /
  ``fn_m'x2(b)`` (``verifier.translation.functions``), of which the obligations know the type's
  call fact only: ``P(a, b) ==> Q(m<1>(a), m<2>(b))``, for a run 1 call and a run 2 call
  (``parameter_facts``).
* A function passed where a val expects one is shown to have the type by S-Fun —
  contravariant domains, covariant codomain (a computation's cost, same divergence, eps and
  delta at most the expected ones, and output ranges; a value's ranges and refinement). Only
  a top-level function with a val (possibly applied to its first arguments, in its domain), a
  function parameter or a ``fun`` (checked in place, each run reading its own captured
  values) may be passed; the claim then depends on the passed function's claim
  (``referenced_vals``, checked by ``kernel``).
* A call ``f g a`` in pure code of a val that takes a function is a symbol of its run and of
  ``g``'s key; the call fact relating a run 1 call and a run 2 call of one key
  (``higher_order_facts``) rests on the two runs' functions having the type ``f`` expects:
  the kernel records the requirement (``Related``) and derives its S-Fun obligations itself,
  in the claim's parameter context under the fact's premises (``related``); the certificate
  must name an S-Fun root premise where each such function is written."""
from __future__ import annotations

from typing import Dict, List, Optional, Sequence, Tuple

from obligations import terms as T
from obligations import vocabulary as V
from obligations.model import ObligationKind
from obligations.records import record, replace
from verifier.language import ast as A
from verifier.language.free_vars import free_vars
from verifier.translation import functions as F
from verifier.translation.calls import first_order, from_terms, leaves, split_arguments
from verifier.translation.ranges import value_facts
from verifier.translation.symbolic import Closure, Env, FunParam, NamedFun, SymValue
from verifier.translation.translate import bind_pattern, flatten_app
from checker.judgement import (MAX_CALLS, Ctx, Node, Proof, Reject, arrows, expect,
                               induction_premise,
                               instantiated_cost, make_claim, refinement_parts, says_equal,
                               simple_of, translated)

E, R = ObligationKind.ENTAILMENT, ObligationKind.RANGE


def parameter_type(rt: A.RType, span) -> Tuple[List[A.RType], A.RType]:
    """The domains (first-order data) and codomain of a function-typed parameter's type: a
    computation (the ``RMonad``) or a first-order value (refined); Reject for any other."""
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
    if isinstance(cod, A.RMonad) and not more:
        return doms, cod
    if isinstance(cod, A.RSimple) and leaves(cod.type) is not None:
        return doms, base
    raise Reject("a parameter of function type that returns neither a computation nor "
                 "first-order data", span)


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
    from checker.relational import first_order_argument
    want_doms, want_cod = parameter_type(want, arg.span)
    head, partial = flatten_app(arg)
    pair = ctx.env.lookup(head.name) if isinstance(head, A.Var) else None
    where = f"argument {i} of {what}"
    named = pair is not None and isinstance(pair[0], NamedFun) and pair[0] == pair[1] \
        and not pair[0].args and p.val_of(pair[0].name) is not None
    passed_on = pair is not None and isinstance(pair[0], FunParam) \
        and isinstance(pair[1], FunParam) and not partial
    monadic = isinstance(want_cod, A.RMonad)
    expected = 0 if named or passed_on or not monadic else 1
    premises = expect(node, ("S-Fun",), arg, where, premises=expected)
    if not (named or passed_on):
        c1, c2 = translated(lambda: p.pair(ctx, arg), arg.span)
        return fun_argument(p, ctx, c1, c2, want_doms, want_cod, want_env, where, arg.span,
                            premises[0] if premises else None)
    if passed_on:
        have_doms, have_cod = parameter_type(pair[0].rtype, arg.span)
        have_env = pair[0].env
    else:
        doms, cod = arrows(p.val_of(pair[0].name).rtype)
        if len(partial) >= len(doms):
            raise Reject(f"{where} is not a function", arg.span)
        have_env = p.top_env
        for j, (a, d) in enumerate(zip(partial, doms), 1):
            have_env = first_order_argument(p, ctx, a, d, have_env,
                                            f"a first argument of the function passed as {where}",
                                            "S-Fun")
        have_doms, have_cod = parameter_type(_arrow(doms[len(partial):], cod), arg.span)
    subtype(p, ctx, have_doms, have_cod, have_env, want_doms, want_cod, want_env, where,
            arg.span)


def subtype(p: Proof, ctx: Ctx, have_doms: Sequence[A.RType], have_cod: A.RType,
            have_env: Env, want_doms: Sequence[A.RType], want_cod: A.RType, want_env: Env,
            where: str, span) -> None:
    """``have <: want`` at arrow types: for fresh values of the expected domains (ranges and
    refinements assumed), the argument's domains hold; its codomain implies the expected one
    (a computation's family, eps, delta and draws; a value's ranges and refinement)."""
    from checker.relational import refinement_goal
    if len(have_doms) != len(want_doms):
        raise Reject(f"{where} takes another number of arguments than expected", span)
    inner = ctx
    for k, (wd, hd) in enumerate(zip(want_doms, have_doms), 1):
        inner, want_env, wtype, left, right = _fresh_domain(p, inner, k, wd, want_env)
        hvar, hbase, hass = refinement_parts(hd)
        if leaves(wtype) != leaves(hbase.type):
            raise Reject(f"{where}: a parameter of another type than expected", span)
        goals = _facts(hbase.type, left) + _facts(hbase.type, right)
        if hvar is not None:
            have_env = have_env.bind(hvar, left, right)
        goals += [refinement_goal(p, have_env, a, hvar, left, right, span) for a in hass]
        if hvar is not None and says_equal(hvar, hass):
            have_env = have_env.bind(hvar, left, left)
        for g in goals:
            p.oblige(inner, E, g, f"{where}: its parameter {k} accepts the expected domain "
                     "(contravariance)", span, "S-Fun")
    if isinstance(want_cod, A.RMonad) != isinstance(have_cod, A.RMonad):
        raise Reject(f"{where} returns a computation where a value is expected, or the "
                     "converse", span)
    if not isinstance(want_cod, A.RMonad):
        _value_codomain(p, inner, have_cod, have_env, want_cod, want_env, where, span)
        return
    wanted = instantiated_cost(p, want_env, want_cod)
    have = instantiated_cost(p, have_env, have_cod)
    if have.family not in ("ZERO", wanted.family):
        raise Reject(f"{where} is within a {have.family} bound, where a {wanted.family} one is "
                     "expected", span)
    bounds = [T.le(have.eps, wanted.eps)] if wanted.family == "DP" else []
    for g in bounds + [T.le(have.delta, wanted.delta)]:
        p.oblige(inner, E, g, f"{where} costs at most the expected type's index (covariance)",
                 span, "S-Fun")
    _output_ranges(p, inner, have_cod, want_cod, where, span)


def _value_codomain(p: Proof, ctx: Ctx, have: A.RType, have_env: Env, want: A.RType,
                    want_env: Env, where: str, span) -> None:
    """Fresh results, one per run, with the argument's codomain assumed, are in the
    expected codomain (ranges in each run, refinement)."""
    from checker.relational import refinement_goal
    from checker.safety import fresh_value
    hvar, hbase, hass = refinement_parts(have)
    wvar, wbase, wass = refinement_parts(want)
    if leaves(hbase.type) is None or leaves(hbase.type) != leaves(wbase.type):
        raise Reject(f"{where} returns values of another type than expected", span)
    (o1, f1), (o2, f2) = fresh_value(p, hbase.type, "out"), fresh_value(p, hbase.type, "out")
    inner = ctx.assume("h_sfun_out", T.and_(*f1, *f2)) if f1 or f2 else ctx
    if hvar is not None:
        have_env = have_env.bind(hvar, o1, o2)
    for k, a in enumerate(hass):
        inner = inner.assume(f"h_sfun_cod{k}", refinement_goal(p, have_env, a, hvar, o1, o2,
                                                               span))
    _codomain(p, inner, wbase.type, wvar, wass, want_env, o1, o2, where, span)


def _codomain(p: Proof, ctx: Ctx, t: A.SimpleType, var: Optional[str],
              assertions: Sequence[A.Expr], env: Env, left: SymValue, right: SymValue,
              where: str, span) -> None:
    from checker.relational import refinement_goal
    for run, value in ((1, left), (2, right)):
        for g in _facts(t, value):
            p.oblige(ctx, R, g, f"{where} returns values of the expected type (covariance, run "
                     f"{run})", span, "S-Fun")
    if var is not None:
        env = env.bind(var, left, right)
    for a in assertions:
        p.oblige(ctx, E, refinement_goal(p, env, a, var, left, right, span), f"{where} returns "
                 "values related as the expected type says (covariance)", span, "S-Fun")


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


def fun_argument(p: Proof, ctx: Ctx, c1, c2, want_doms: List[A.RType], want_cod: A.RType,
                 want_env: Env, where: str, span, premise: Optional[Node]) -> None:
    """S-Fun for a ``fun`` (or a helper without a val, possibly applied): one code in both
    runs, each run's captured values its own; its body, with its parameters fresh values of
    the expected domains (ranges and refinements assumed), is checked against the expected
    codomain — a computation as a claim of its own (``premise``), a value by its two runs'
    values."""
    from checker.relational import check
    if not (isinstance(c1, Closure) and isinstance(c2, Closure) and c1.params == c2.params
            and c1.body == c2.body and len(c1.params) == len(want_doms)) \
            or isinstance(c1.body, A.Fun):
        raise Reject(f"{where}: not a function of the expected arity the kernel can check",
                     span)
    if ctx.function is not None and ctx.function in free_vars(c1.body):
        raise Reject(f"{where}: a fun that calls the recursive definition being proved", span)
    env = c1.env
    bound = {n for q in c1.params for n in A.pattern_names(q)}
    for name in sorted(free_vars(c1.body) - bound):  # what each run's closure captures
        v1, v2 = c1.env.lookup(name), c2.env.lookup(name)
        if (v1 is None) != (v2 is None):
            raise Reject(f"{where}: a name captured in one run only", span)
        if v1 is not None:
            env = env.bind(name, v1[0], v2[1])
    inner = ctx
    for k, (pattern, wd) in enumerate(zip(c1.params, want_doms), 1):
        inner, want_env, _, left, right = _fresh_domain(p, inner, k, wd, want_env)
        env = translated(lambda: bind_pattern(env, pattern, left, right, span), span)
    if not isinstance(want_cod, A.RMonad):
        if premise is not None:
            raise Reject(f"{where}: a fun returning a value is checked without premises", span)
        body = replace(inner, env=env, function=None, induction=None, binder=None)
        v1, v2 = translated(lambda: p.pair(body, c1.body), span)
        var, base, assertions = refinement_parts(want_cod)
        _codomain(p, body, base.type, var, assertions, want_env, v1, v2, where, span)
        return
    if premise is None:
        raise Reject(f"{where}: a fun returning a computation is checked by a premise", span)
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


def _arrow(doms: Sequence[A.RType], cod: A.RType) -> A.RType:
    for d in reversed(doms):
        cod = A.RArrow(d, cod, d.span)
    return cod


def call_type(fn: FunParam) -> Tuple[List[A.RType], A.RType]:
    """The domains and codomain a call of the function parameter ``fn`` is checked against."""
    return parameter_type(fn.rtype, None)


# ---- calls in pure code ----------------------------------------------------------------------

@record
class Related:
    """A call fact of a higher-order call rests on this: run 1's ``left`` and run 2's
    ``right``, passed as argument ``position`` of ``callee``, have its domain ``want`` there
    (read in ``env``) whenever ``premises`` hold, in the context ``base`` of the claim's
    parameters. ``at``: where the function passed is written."""

    callee: str
    position: int
    left: SymValue
    right: SymValue
    want: A.RType
    env: Env
    premises: Tuple[T.Term, ...]
    base: Tuple[Tuple[str, T.Term], ...]
    at: Optional[Tuple[int, int, int, int]]


def _calls(terms: Sequence[T.Term], parse) -> Dict[tuple, Dict[int, List[Tuple[T.Term, ...]]]]:
    found: Dict[tuple, Dict[int, List[Tuple[T.Term, ...]]]] = {}
    for app in T.ground_applications(*terms):
        parsed = parse(app.func.name)
        if parsed is None:
            continue
        name, run, *rest = parsed
        calls = found.setdefault((name, *rest), {1: [], 2: []})[run]
        if app.args not in calls:
            calls.append(app.args)
    return found


def parameter_facts(p: Proof, ctx: Ctx, terms: Sequence[T.Term]) -> List[T.Term]:
    """For the calls in ``terms`` of a parameter ``m`` returning a value: the ranges of its
    result type, of each; ``P(a, b) ==> Q(m<1>(a), m<2>(b))`` of each run 1 call and run 2
    call (never of two calls of one run)."""
    facts: List[T.Term] = []
    for (name,), runs in _calls(terms, V.parameter_function_of).items():
        pair = ctx.env.lookup(name)
        if pair is None or not isinstance(pair[0], FunParam) or pair[0].name != name:
            continue
        try:
            doms, cod = parameter_type(pair[0].rtype, None)
        except Reject:
            continue
        if isinstance(cod, A.RMonad):
            continue
        types = [simple_of(refinement_parts(d)[1]) for d in doms]
        out = simple_of(refinement_parts(cod)[1])
        for run, calls in runs.items():
            for a in calls[:MAX_CALLS]:
                value = F.result_value(V.parameter_function(name, run), a, out)
                facts += value_facts(out, value) or [] if value is not None else []
        for a in runs[1][:MAX_CALLS]:
            for b in runs[2][:MAX_CALLS]:
                xs, ys = split_arguments(types, a), split_arguments(types, b)
                fa = F.result_value(V.parameter_function(name, 1), a, out)
                fb = F.result_value(V.parameter_function(name, 2), b, out)
                if None in (xs, ys, fa, fb):
                    continue
                fact = _fact(p, pair[0].env, doms, types, xs, ys, cod, fa, fb, None)
                if fact is not None:
                    facts.append(fact[0])
    return facts


def _fact(p: Proof, env: Env, doms, types, xs, ys, cod, fa, fb, induction):
    """``P(xs, ys) ==> Q(fa, fb)`` (the first-order domains' ``P``, ``types[i]`` None for a
    function), and per function argument (position, type, env, run 1's, run 2's)."""
    try:
        pre, functions = [], []
        for position, (dom, t, x, y) in enumerate(zip(doms, types, xs, ys), 1):
            var, _, assertions = refinement_parts(dom)
            if t is None:
                functions.append((position, dom, env, x, y))
                continue
            pre += _facts(t, x) + _facts(t, y)
            if var is not None:
                env = env.bind(var, x, y)
            pre += [p._refinement(env, e, var, x, y) for e in assertions]
        if induction is not None:
            smaller = induction_premise(induction, xs, ys)
            if smaller is None:
                return None
            pre = [smaller] + pre
        var, base, assertions = refinement_parts(cod)
        post = _facts(base.type, fa) + _facts(base.type, fb)
        if var is not None:
            env = env.bind(var, fa, fb)
        post += [p._refinement(env, e, var, fa, fb) for e in assertions]
    except (Reject, T.SortError):
        return None
    except Exception as exc:  # noqa: BLE001 - the translator's refusal
        from verifier.translation.translate import NoRule
        if isinstance(exc, NoRule):
            return None
        raise
    pre = [c for c in pre if c != T.TRUE]
    post = [c for c in post if c != T.TRUE]
    if not post:
        return None
    fact = T.implies(T.and_(*pre), T.and_(*post)) if pre else T.and_(*post)
    return fact, [(position, dom, e, x, y, tuple(pre)) for position, dom, e, x, y in functions]


def signature(val: A.ValDecl):
    """The domains, codomain, domain types (None for a function) and result type of a val
    that takes a function (first-order or function domains, a first-order codomain)."""
    doms, cod = arrows(val.rtype)
    types: List[Optional[A.SimpleType]] = []
    try:
        for d in doms:
            base = refinement_parts(d)[1]
            if isinstance(base, A.RArrow):
                parameter_type(d, None)
                types.append(None)
            elif isinstance(base, A.RSimple) and first_order(base.type):
                types.append(base.type)
            else:
                return None
        base = refinement_parts(cod)[1]
    except Reject:
        return None
    if None not in types or not isinstance(base, A.RSimple) or not first_order(base.type):
        return None
    return doms, cod, types, base.type


def higher_order_facts(p: Proof, ctx: Ctx, terms: Sequence[T.Term]) -> List[T.Term]:
    """For every run 1 call and run 2 call in ``terms`` of a val that takes functions, on
    functions of one key: the val's ``P(a, b) ==> Q`` (in its own body with the induction
    measure); each rests on the functions passed having the expected type, a requirement
    recorded in ``p.related`` (derived by ``related``)."""
    own = ctx.function
    facts: List[T.Term] = []
    for (name, keys), runs in _calls(terms, V.higher_order_function_of).items():
        val = p.val_of(name)
        if val is None or (name == own and ctx.induction is None):
            continue
        sig = signature(val)
        if sig is None:
            continue
        doms, cod, types, out = sig
        for a in runs[1][:MAX_CALLS]:
            for b in runs[2][:MAX_CALLS]:
                xs = F.split_call(p.translator.passed, types, keys, a, 1)
                ys = F.split_call(p.translator.passed, types, keys, b, 2)
                fa = F.result_value(V.higher_order_function(name, 1, keys), a, out)
                fb = F.result_value(V.higher_order_function(name, 2, keys), b, out)
                if None in (xs, ys, fa, fb):
                    continue
                found = _fact(p, p.top_env, doms, types,
                              [x.value if isinstance(x, F.Passed) else x for x in xs],
                              [y.value if isinstance(y, F.Passed) else y for y in ys], cod, fa,
                              fb, ctx.induction if name == own else None)
                if found is None:
                    continue
                fact, functions = found
                for position, want, env, left, right, premises in functions:
                    x, y = xs[position - 1], ys[position - 1]
                    key = (name, position, x.key, x.terms, y.key, y.terms, premises,
                           ctx.hyps[:ctx.base])
                    if key not in p.related:
                        p.related[key] = Related(name, position, left, right, want, env,
                                                 premises, ctx.hyps[:ctx.base],
                                                 _written_at(p, left))
                facts.append(fact)
    return facts


def _written_at(p: Proof, value: SymValue) -> Optional[Tuple[int, int, int, int]]:
    span = value.body.span if isinstance(value, Closure) else \
        p.lets[value.name].span if isinstance(value, NamedFun) and value.name in p.lets else \
        value.rtype.span if isinstance(value, FunParam) else None
    return None if span is None else (span.line, span.col, span.end_line, span.end_col)


def related(p: Proof, r: Related) -> None:
    """S-Fun for a requirement of a call fact: ``r.left`` and ``r.right`` have the type
    ``r.want`` — a parameter passed on, a val's function applied to first arguments in its
    domain, or a fun checked in place — in the claim's parameter context, under the fact's
    premises."""
    from checker.relational import first_order_value
    ctx = Ctx(env=p.top_env, hyps=r.base, base=len(r.base))
    if r.premises:
        ctx = ctx.assume("h_sfun_call", T.and_(*r.premises))
    where = f"argument {r.position} of {r.callee}"
    want_doms, want_cod = parameter_type(r.want, None)
    left, right = r.left, r.right
    if isinstance(left, FunParam) and isinstance(right, FunParam) and left.name == right.name \
            and (left.run, right.run) == (1, 2):
        have_doms, have_cod = parameter_type(left.rtype, None)
        subtype(p, ctx, have_doms, have_cod, left.env, want_doms, want_cod, r.env, where, None)
    elif isinstance(left, NamedFun) and isinstance(right, NamedFun) and left.name == right.name \
            and len(left.args) == len(right.args) and p.val_of(left.name) is not None:
        doms, cod = arrows(p.val_of(left.name).rtype)
        if len(left.args) >= len(doms):
            raise Reject(f"{where} is not a function")
        have_env = p.top_env
        for j, ((a, _), (c, _), d) in enumerate(zip(left.args, right.args, doms), 1):
            have_env = first_order_value(p, ctx, a, c, d, have_env,
                                         f"a first argument of the function passed as {where}",
                                         "S-Fun")
        have_doms, have_cod = parameter_type(_arrow(doms[len(left.args):], cod), None)
        subtype(p, ctx, have_doms, have_cod, have_env, want_doms, want_cod, r.env, where, None)
    else:
        fun_argument(p, ctx, left, right, want_doms, want_cod, r.env, where, None,
                     _in_place(p, r))


def _in_place(p: Proof, r: Related) -> Optional[Node]:
    """A fun returning a computation passed in pure code: not supported (a stored computation
    made by pure code is checked where it runs); a value: no premise."""
    if isinstance(parameter_type(r.want, None)[1], A.RMonad):
        raise Reject(f"a fun returning a computation passed to {r.callee} in pure code")
    return None


def related_premises(p: Proof, root: Node, recorded: Sequence[Node]) -> None:
    """Derive the S-Fun obligations of every requirement the call facts recorded (those
    their own obligations record included), and check that the certificate's root has an
    S-Fun premise (``recorded``) where each function passed is written."""
    done = 0
    places = {n.at for n in recorded}
    while done < len(p.related):
        r = list(p.related.values())[done]
        done += 1
        if r.at not in places:
            raise Reject(f"node {root.id}: the proof assumes that the function passed as "
                         f"argument {r.position} of {r.callee} has the type it expects, with no "
                         "S-Fun premise for it")
        related(p, r)


__all__: Sequence[str] = ("parameter_type", "bind", "passed_function", "call_type",
                          "parameter_facts", "higher_order_facts", "related_premises")
