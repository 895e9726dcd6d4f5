"""Call facts: what the ``val`` of a pure function says about its calls in an obligation.

In pure code a call ``f a`` of a function with a ``val`` is an opaque symbol ``f(a)``
(``Translator._opaque_call``). Its val ``{x1 :: T1 | P1} -> ... -> {r :: R | Q}`` states, for
every two argument tuples ``a`` (run 1) and ``b`` (run 2),

    P(a, b) ==> Q(f(a), f(b))

where ``P`` collects the domain refinements and ranges (``x<1>``, ``x<2>`` read as ``a``,
``b``; later refinements may name earlier arguments) and ``Q`` the codomain's (``r<1>``,
``r<2>`` read as ``f(a)``, ``f(b)``). This is the application rule of HOARe² with dependent
types, stated once per pair of calls in the obligation (``a = b`` included: a relational
type holds of any two related inputs).

Such a fact is an obligation's hypothesis ``h__call_<k>``: it holds when ``f``'s claim is
verified. Three restrictions keep that true:

* in its own body, a recursive function's calls get the *induction hypothesis* instead:
  ``shorter(a, b) and P(a, b) ==> Q(f(a), f(b))``, where ``shorter`` says the lists at the
  induction position are shorter than the function's own (``vocabulary.shorter``, the measure
  of the structural induction on that parameter; ``Ctx.induction``); without an induction
  position its calls stay opaque;
* only functions whose val has simple (not monadic) domains and codomain, whose assertions
  the translator understands;
* the claim that uses a fact depends on ``f``'s claim (``verification.require_dependencies``
  downgrades it to unknown unless ``f`` is verified); the certificate kernel rebuilds every
  fact from the val and checks the dependency too.
"""
from __future__ import annotations

from typing import Dict, List, Optional, Sequence, Tuple

from obligations import terms as T
from verifier.language import ast as A
from verifier.language.resolve import source_name
from verifier.rules import registry
from verifier.rules.equality import equal_term
from verifier.rules.function_types import Related, function_type, passed_at
from verifier.rules.refinements import _instantiated_cost, _shared, refinement_parts, simple_of
from verifier.translation import logic as L
from verifier.translation.calls import call_value, first_order, split_arguments
from verifier.translation.ranges import value_facts
from verifier.translation.symbolic import FunParam, Scalar, SymValue
from verifier.translation.translate import NoRule

#: At most this many calls of one function per obligation get facts (pairs grow as its square).
MAX_CALLS = 6
PREFIX = "h__call_"  # context names never start with "h__" (Ctx.assume strips underscores)


def ground_calls(terms: Sequence[T.Term], names) -> Dict[str, List[Tuple[T.Term, ...]]]:
    """The argument tuples of the calls of the program functions ``names`` outside
    quantifiers (a call with a tuple result is one symbol per component: the same call), by
    function, each once, in order of first occurrence."""
    found: Dict[str, List[Tuple[T.Term, ...]]] = {}
    for app in T.ground_applications(*terms):
        name = L.program_function_name(app.func.name)
        if name in names and app.args:
            calls = found.setdefault(name, [])
            if app.args not in calls:
                calls.append(app.args)
    return found


def pure_signature(val: A.ValDecl) -> Optional[Tuple[List[A.RType], A.RType]]:
    """The domains and codomain of a val whose types are all simple (refined or not)."""
    rt, doms = val.rtype, []
    while isinstance(rt, A.RArrow):
        doms.append(rt.dom)
        rt = rt.cod
    if not doms:
        return None
    for part in doms + [rt]:
        try:
            _, base, _ = refinement_parts(part)
        except NoRule:
            return None
        if not isinstance(base, A.RSimple) or not first_order(base.type):
            return None
    return doms, rt


def call_facts(builder, ctx, terms: Sequence[T.Term]) -> Tuple[Tuple[str, T.Term], ...]:
    """The named call facts for the calls in ``terms`` (see the module docstring) in context
    ``ctx`` (in the body of ``ctx.function``, its calls get the induction hypothesis)."""
    own = ctx.function
    names = {n for n in builder.pure_vals() if n != own or ctx.induction is not None}
    facts: List[T.Term] = []
    found = ground_calls(terms, names) if names else {}
    for name, calls in found.items():
        calls = calls[:MAX_CALLS]
        for left in calls:
            for right in calls:
                induction = ctx.induction if name == own else None
                fact = _fact(builder, name, left, right, induction)
                if fact is not None and fact != T.boolean(True) and fact not in facts:
                    facts.append(fact)
    joint = registry.judgement(registry.LETREC_JOINT)(builder, ctx, terms, found) \
        if found else []  # additive functions on adjacent lists
    for fact in infer_facts(builder, own, terms):
        if fact not in facts:
            facts.append(fact)
    for fact in parameter_facts(builder, ctx, terms) + higher_order_facts(builder, ctx, terms):
        if fact not in facts and fact != T.boolean(True):
            facts.append(fact)
    return tuple((f"{PREFIX}{k}", fact) for k, fact in enumerate(facts, 1)) + \
        tuple((f"{PREFIX}joint_{k}", fact) for k, fact in enumerate(joint, 1))


# ---- higher order (issue #26, ``verifier.rules.higher_order``) -------------------------------

def symbol_calls(terms: Sequence[T.Term], parse
                 ) -> Dict[tuple, Dict[int, List[Tuple[T.Term, ...]]]]:
    """The calls in ``terms`` (outside quantifiers) of the per-run symbols ``parse`` reads
    (``vocabulary.parameter_function_of``: (name, run); ``higher_order_function_of``:
    (name, run, keys)), by what ``parse`` gives but the run, then by run: their argument
    tuples, each once, in order of first occurrence (a tuple result's components are one
    call)."""
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


def parameter_facts(builder, ctx, terms: Sequence[T.Term]) -> List[T.Term]:
    """For the calls in ``terms`` of a parameter ``m`` of function type returning a pure value
    (``fn_m'x1(a)``, ``fn_m'x2(b)``): what its declared type ``{x :: T | P} -> {r :: U | Q}``
    says — of every call, the ranges of ``U``; of every run 1 call and run 2 call,
    ``P(a, b) ==> Q(m<1>(a), m<2>(b))`` (HOARe²'s logical relation; never of two calls of
    one run: the two runs' functions are related, not equal)."""
    from verifier.translation import functions as F
    facts: List[T.Term] = []
    for (name,), runs in symbol_calls(terms, L.parameter_function_of).items():
        pair = ctx.env.lookup(name)
        if pair is None or not isinstance(pair[0], FunParam) or pair[0].name != name:
            continue
        parts = parameter_signature(pair[0].rtype)
        if parts is None:
            continue
        doms, cod, types, result = parts
        for run, calls in runs.items():
            for a in calls[:MAX_CALLS]:
                value = F.result_value(L.parameter_function(name, run), a, result)
                try:
                    facts += _ranges(result, value) if value is not None else []
                except NoRule:
                    pass
        for a in runs[1][:MAX_CALLS]:
            for b in runs[2][:MAX_CALLS]:
                fact = _typed_fact(builder, pair[0].env, doms, cod, types, result, a, b,
                                   L.parameter_function(name, 1), L.parameter_function(name, 2))
                if fact is not None:
                    facts.append(fact)
    return facts


def parameter_signature(rtype: A.RType):
    """The domains, the pure codomain, the domains' simple types and the result's simple
    type of a parameter's function type, or None when it returns a computation."""
    try:
        doms, cod = function_type(rtype, None)
        if isinstance(cod, A.RMonad):
            return None
        types = [simple_of(refinement_parts(d)[1]) for d in doms]
        return doms, cod, types, simple_of(refinement_parts(cod)[1])
    except NoRule:
        return None


def _typed_fact(builder, env, doms, cod, types, result, a, b, left_symbol, right_symbol
                ) -> Optional[T.Term]:
    """``P(a, b) ==> Q(f(a), g(b))`` for a function type ``doms -> cod`` read in ``env``, the
    run 1 call ``left_symbol(a)`` and the run 2 call ``right_symbol(b)``."""
    from verifier.translation import functions as F
    try:
        xs, ys = split_arguments(types, a), split_arguments(types, b)
        fa, fb = F.result_value(left_symbol, a, result), F.result_value(right_symbol, b, result)
        if xs is None or ys is None or fa is None or fb is None:
            return None
        env, pre = _domain_premises(builder, doms, types, xs, ys, env)
        var, _, assertions = refinement_parts(cod)
        if var is not None:
            env = env.bind(var, fa, fb)
        post = [_assertion(builder, env, x, var, fa, fb) for x in assertions]
    except (NoRule, T.SortError):
        return None
    post = [p for p in post if p != T.boolean(True)]
    if not post:
        return None
    pre = [p for p in pre if p != T.boolean(True)]
    return T.implies(T.and_(*pre), T.and_(*post)) if pre else T.and_(*post)


def higher_order_signature(val: A.ValDecl):
    """The domains, codomain, the domains' simple types (None for a function) and the
    result's simple type of a val whose domains are first-order data or functions
    (``function_types.function_type``), with at least one function, and whose codomain is
    first-order data; else None."""
    rt, doms = val.rtype, []
    while isinstance(rt, A.RArrow):
        doms.append(rt.dom)
        rt = rt.cod
    types: List[Optional[A.SimpleType]] = []
    try:
        for d in doms:
            base = refinement_parts(d)[1]
            if isinstance(base, A.RArrow):
                function_type(d, None)
                types.append(None)
            elif isinstance(base, A.RSimple) and first_order(base.type):
                types.append(base.type)
            else:
                return None
        base = refinement_parts(rt)[1]
        if None not in types or not isinstance(base, A.RSimple) or not first_order(base.type):
            return None
        return doms, rt, types, simple_of(base)
    except NoRule:
        return None


def higher_order_facts(builder, ctx, terms: Sequence[T.Term]) -> List[T.Term]:
    """For every run 1 call and run 2 call in ``terms`` of a val ``f`` that takes functions,
    on functions of one key (``fn_f'r1'a<k>(c, a)``, ``fn_f'r2'a<k>(d, b)``: the same code,
    each run reading its own values ``c``, ``d``): ``P(a, b) ==> Q(f(..a), f(..b))`` from
    ``f``'s val, the first-order domains' ``P`` (in ``f``'s own body, with the induction
    measure: the induction hypothesis). The fact rests on the two runs' functions having the
    type ``f`` expects: a requirement recorded in ``builder.related`` (an S-Fun node of the
    proof, ``higher_order.related_nodes``), shown in the claim's parameter context under the
    fact's premises."""
    from verifier.translation import functions as F
    own = ctx.function
    facts: List[T.Term] = []
    for (name, keys), runs in symbol_calls(terms, L.higher_order_function_of).items():
        val = builder.val_of(name)
        if val is None or (name == own and ctx.induction is None):
            continue
        signature = higher_order_signature(val)
        if signature is None:
            continue
        doms, cod, types, result = signature
        registry = builder.translator.passed
        for a in runs[1][:MAX_CALLS]:
            for b in runs[2][:MAX_CALLS]:
                xs = F.split_call(registry, types, keys, a, 1)
                ys = F.split_call(registry, types, keys, b, 2)
                if xs is None or ys is None:
                    continue
                parts = _higher_order_fact(builder, ctx, name, doms, cod, types, result, keys,
                                           a, b, xs, ys, ctx.induction if name == own else None)
                if parts is None:
                    continue
                fact, requirements = parts
                for position, want, env, left, right, premises in requirements:
                    key = (name, position, left.key, left.terms, right.key, right.terms,
                           premises, ctx.hyps[:ctx.base])
                    if key not in builder.related:
                        builder.related[key] = Related(
                            name, position, left.value, right.value, want, env, premises,
                            ctx.hyps[:ctx.base], passed_at(builder, left.value))
                facts.append(fact)
    return facts


def _higher_order_fact(builder, ctx, name, doms, cod, types, result, keys, a, b, xs, ys,
                       induction):
    """The fact for the run 1 call ``a`` and the run 2 call ``b`` of the higher-order val
    ``name`` (their arguments split: ``xs``, ``ys``), and its requirements: per function
    argument, (position, expected type, its env, run 1's ``Passed``, run 2's, premises)."""
    from verifier.translation import functions as F
    try:
        fa = F.result_value(L.higher_order_function(name, 1, tuple(keys)), a, result)
        fb = F.result_value(L.higher_order_function(name, 2, tuple(keys)), b, result)
        if fa is None or fb is None:
            return None
        env, pre, functions = builder.top_env, [], []
        for position, (dom, t, x, y) in enumerate(zip(doms, types, xs, ys), 1):
            var, _, assertions = refinement_parts(dom)
            if t is None:
                functions.append((position, dom, env, x, y))
                continue
            pre += _ranges(t, x) + _ranges(t, y)
            if var is not None:
                env = env.bind(var, x, y)
            pre += [_assertion(builder, env, e, var, x, y) for e in assertions]
        if induction is not None:
            at, x1, x2 = induction
            p, q = xs[at], ys[at]
            if not (isinstance(p, Scalar) and isinstance(q, Scalar)
                    and p.term.sort == q.term.sort == x1.sort):
                return None
            pre = [L.shorter((p.term, q.term), (x1, x2))] + pre
        var, _, assertions = refinement_parts(cod)
        post = _ranges(result, fa) + _ranges(result, fb)
        if var is not None:
            env = env.bind(var, fa, fb)
        post += [_assertion(builder, env, e, var, fa, fb) for e in assertions]
    except (NoRule, T.SortError):
        return None
    pre = [p for p in pre if p != T.boolean(True)]
    post = [p for p in post if p != T.boolean(True)]
    if not post:
        return None
    fact = T.implies(T.and_(*pre), T.and_(*post)) if pre else T.and_(*post)
    return fact, [(position, dom, e, x, y, tuple(pre)) for position, dom, e, x, y in functions]


def infer_facts(builder, own: Optional[str], terms: Sequence[T.Term]) -> List[T.Term]:
    """The paper's Infer rule with its bound (§5, Fig. 5: ``G ⊢ e : M[F, δ] {x | =}`` gives
    ``Delta[F] (infer e<1>, infer e<2>) <= δ``), for models that are calls ``f a`` of a val
    ``... -> M[F, δ] {x :: T | =}`` (``verifier.translation.inferred.val_symbol_name``): for
    every two such posteriors in ``terms``, ``P(a, b) ==> Delta[F] (infer (f a), infer (f b))
    <= δ(a)`` (``infer (f a) = infer (f b)`` when the index says the laws are equal). The
    claim then depends on ``f``'s (``Builder.called``)."""
    from verifier.translation.inferred import val_model_name
    found: Dict[str, List[T.Term]] = {}
    for app in T.ground_applications(*terms):
        name = val_model_name(app.func.name)
        if name is not None and name != own and builder.val_of(name) is not None:
            calls = found.setdefault(name, [])
            if app not in calls:
                calls.append(app)
    facts: List[T.Term] = []
    for name, calls in found.items():
        for left in calls[:MAX_CALLS]:
            for right in calls[:MAX_CALLS]:
                fact = _infer_fact(builder, name, left, right) if left != right else None
                if fact is not None and fact not in facts:
                    facts.append(fact)
                    builder.called.add(name)
    return facts


def _infer_fact(builder, name: str, left: T.Term, right: T.Term) -> Optional[T.Term]:
    parts = infer_bound(builder, name, left, right)
    if parts is None:
        return None
    pre, cost = parts
    if cost.family == "ZERO":
        post = T.eq(left, right)
    else:
        post = T.le(L.divergence(cost.family, left, right,
                                 cost.eps if cost.family == "DP" else None), cost.delta)
    return T.implies(T.and_(*pre), post) if pre else post


def infer_dp_eps(builder, d1: T.Term, d2: T.Term) -> Optional[T.Term]:
    """The eps of the Infer rule's bound ``Delta[DP(eps)] (d1, d2) <= δ`` when ``d1``, ``d2``
    are the posteriors of two calls of one val with a DP index (``infer_facts`` states it)."""
    name = val_model_name_of(d1)
    if name is None or name != val_model_name_of(d2) or builder.val_of(name) is None:
        return None
    parts = infer_bound(builder, name, d1, d2)
    return parts[1].eps if parts is not None and parts[1].family == "DP" else None


def val_model_name_of(t: T.Term) -> Optional[str]:
    from verifier.translation.inferred import val_model_name
    return val_model_name(t.func.name) if isinstance(t, T.Apply) else None


def infer_bound(builder, name: str, left: T.Term, right: T.Term):
    """The premises ``P(a, b)`` (the val's domain) and the cost its index gives (``ZERO`` when
    it says the laws are equal) for the posteriors ``left``, ``right`` of two calls of ``name``."""
    doms, rt = [], builder.val_of(name).rtype
    while isinstance(rt, A.RArrow):
        doms.append(rt.dom)
        rt = rt.cod
    try:
        types = [simple_of(refinement_parts(d)[1]) for d in doms]
        xs, ys = split_arguments(types, left.args), split_arguments(types, right.args)
        if xs is None or ys is None:
            return None
        env, pre = _domain_premises(builder, doms, types, xs, ys)
        cost = _instantiated_cost(builder, env, rt, f"infer ({source_name(name)} ...)", None)
    except (NoRule, T.SortError):
        return None
    return [c for c in pre if c != T.boolean(True)], cost


def _fact(builder, name: str, left: Tuple[T.Term, ...], right: Tuple[T.Term, ...],
          induction) -> Optional[T.Term]:
    key = (name, left, right, induction)
    if key not in builder.call_fact_cache:
        parts = _fact_parts(builder, name, left, right)
        fact = None
        if parts is not None:
            pre, post, args = parts
            if induction is not None:
                position, x1, x2 = induction
                a, b = (v[position] for v in args)
                a, b = (v.term if isinstance(v, Scalar) else None for v in (a, b))
                pre = [L.shorter((a, b), (x1, x2))] + pre \
                    if a is not None and b is not None and a.sort == b.sort == x1.sort else None
            if pre is not None:
                fact = T.implies(T.and_(*pre), T.and_(*post)) if pre else T.and_(*post)
        builder.call_fact_cache[key] = fact
    return builder.call_fact_cache[key]


def _fact_parts(builder, name: str, left: Tuple[T.Term, ...], right: Tuple[T.Term, ...]):
    """The premises ``P(a, b)`` and conclusions ``Q(f(a), f(b))`` of the fact, as lists, and
    the arguments of the two calls, one value per parameter (a tuple's components are
    arguments of their own in the symbol: ``calls.split_arguments``)."""
    signature = pure_signature(builder.val_of(name))
    if signature is None:
        return None
    doms, cod = signature
    try:
        types = [simple_of(refinement_parts(d)[1]) for d in doms]
        a_args, b_args = split_arguments(types, left), split_arguments(types, right)
        result = simple_of(refinement_parts(cod)[1])
        fa, fb = call_value(name, left, result), call_value(name, right, result)
        if a_args is None or b_args is None or fa is None or fb is None:
            return None
        env, pre = _domain_premises(builder, doms, types, a_args, b_args)
        var, _, assertions = refinement_parts(cod)
        post = _ranges(result, fa) + _ranges(result, fb)
        if var is not None:
            env = env.bind(var, fa, fb)
        post += [_assertion(builder, env, x, var, fa, fb) for x in assertions]
    except (NoRule, T.SortError):
        return None
    if not post:
        return None
    return pre, post, (a_args, b_args)


def call_precondition(builder, name: str, args: Sequence[Optional[SymValue]], run: int = 1,
                      rtype: Optional[A.RType] = None, env=None) -> Optional[List[T.Term]]:
    """What a call ``f(a)`` of a val, run on its own in run ``run``, needs to be safe and to
    terminate: its domain's ranges and refinements at a pair of which ``a`` is run ``run``'s
    half (``args``: the argument values, one per parameter). The val's derivation shows
    ``f``'s body safe and terminating in each run only under ``P(x<1>, x<2>)`` (its Safety
    walks and its recursive calls' measure assume the refinements), so a run 1 of ``f(a)`` is
    covered when ``P(a, b)`` holds for some ``b`` (a run 2 when ``P(b, a)`` does). ``b = a``
    is the witness stated for most parameters (a refinement such as ``=``, ``adj``,
    ``dist (l<1>, l<2>) <= k`` holds of equal arguments); a number whose refinement relates
    its two runs (``t<2> = t<1> + 1.0``: a coupled threshold) gets an existential witness
    instead, which the refinement need not hold of ``(a, a)``. A monadic domain is skipped
    (``None`` argument: its draws are checked where it is passed). None when the domain
    cannot be stated in the logic. With ``rtype`` (read in ``env``), the call is of a
    parameter of function type ``name`` (``higher_order``): its type's domain. A domain of
    function type is skipped (the function passed is shown to have it relationally, S-Fun)."""
    if rtype is None:
        val = builder.val_of(name)
        rt = val.rtype if val is not None else None
        env = builder.top_env
    else:
        rt = refinement_parts(rtype)[1]
    doms = []
    while isinstance(rt, A.RArrow):
        doms.append(rt.dom)
        rt = rt.cod
    if (rtype is None and val is None) or len(doms) < len(args):
        return None
    same_env = env
    pre: List[T.Term] = []
    witnesses: List[T.Var] = []
    related: List[T.Term] = []   # P(a, w), with w existential
    reflexive: List[T.Term] = []  # P(a, a)
    parts = [refinement_parts(dom) for dom in doms]
    try:
        for k, a in enumerate(args):
            var, base, assertions = parts[k]
            if isinstance(base, (A.RMonad, A.RArrow)):
                continue
            if a is None or not isinstance(base, A.RSimple):
                return None
            pre += _ranges(simple_of(base), a)
            other = a
            later = [x for _, _, xs in parts[k + 1:] for x in xs]
            if var is not None and isinstance(a, Scalar) and \
                    a.term.sort in (T.REAL, T.INT, T.BOOL) \
                    and _relates_runs(var, assertions, later):
                w = builder.fresh(f"{source_name(var)}_w", a.term.sort)
                witnesses.append(w)
                other = Scalar(w)
                related += _ranges(simple_of(base), other)
            pair = (a, other) if run == 1 else (other, a)
            if var is not None:
                env, same_env = env.bind(var, *pair), same_env.bind(var, a, a)
            related += [_assertion(builder, env, x, var, *pair) for x in assertions]
            reflexive += [_assertion(builder, same_env, x, var, a, a) for x in assertions]
    except (NoRule, T.SortError):
        return None
    if witnesses:  # P(a, a), or else some w with P(a, w)
        pre.append(T.or_(T.and_(*reflexive), T.exists(witnesses, T.and_(*related))))
    else:
        pre += reflexive
    return [c for c in pre if c != T.boolean(True)]


def _relates_runs(var: str, assertions: Sequence[A.Expr], later: Sequence[A.Expr] = ()
                  ) -> bool:
    """Some conjunct of the refinement of ``var`` or of a later parameter's (``later``; or
    the conclusion of an implication, or a branch of a conjunction) is an equation or an
    inequality between an expression of ``var<1>`` and one of ``var<2>`` other than
    ``var<1> = var<2>`` (``t<2> = t<1> + 1.0``: a coupled threshold; a best value that a
    later flag's refinement relates), which the diagonal ``(a, a)`` does not satisfy: the
    other run's value is then an existential witness (and none when a conjunct of ``var``'s
    own refinement says the runs are equal)."""
    if _shared(var, assertions):
        return False
    todo = list(assertions) + list(later)
    while todo:
        a = todo.pop()
        if isinstance(a, A.Conj):
            todo += [a.left, a.right]
        elif isinstance(a, A.Implies):  # a relation of the runs under a condition
            todo.append(a.right)
        elif isinstance(a, A.BinOp) and a.op in ("=", "<=", ">=", "<", ">"):
            sides = [{n.run for n in A.descendants(side)
                      if isinstance(n, A.RunVar) and n.name == var} for side in (a.left, a.right)]
            if {frozenset(x) for x in sides} == {frozenset({1}), frozenset({2})}:
                return True
    return False



def _ranges(simple: A.SimpleType, value: SymValue) -> List[T.Term]:
    facts = value_facts(simple, value)
    if facts is None:
        raise NoRule("a value the logic cannot name")
    return facts


def _assertion(builder, env, a: A.Expr, var: Optional[str], left: SymValue,
               right: SymValue) -> T.Term:
    if isinstance(a, A.SameRuns):
        goal = equal_term(left, right)
        if goal is None:
            raise NoRule("cannot compare these values in the logic", a.span)
        return goal
    return builder.assertion(env, a, refined=var)


def _domain_premises(builder, doms, types, xs, ys, env=None):
    """``P(a, b)`` of a val's domains for the arguments ``xs``, ``ys`` of two calls (the ranges
    of their types and the refinements), and the top environment (or ``env``) with the
    parameters bound."""
    env, pre = builder.top_env if env is None else env, []
    for dom, t, x, y in zip(doms, types, xs, ys):
        var, _, assertions = refinement_parts(dom)
        pre += _ranges(t, x) + _ranges(t, y)
        if var is not None:
            env = env.bind(var, x, y)
        pre += [_assertion(builder, env, a, var, x, y) for a in assertions]
    return env, pre
