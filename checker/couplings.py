"""The kernel's coupling rules: Pointwise, Pointwise-Value and Case-Output (docs/verifier.md,
"Couplings").

Its own implementation of the rules the builder applies in ``verifier.rules.couplings`` (it
imports nothing of the builder):

* **Pointwise** (``coupling.pointwise``, LICS 2016 Prop. 8): a claim ``M[DP(eps)] {x :: T |
  =}`` with delta 0, whose outputs have a countable part ``D`` (the whole output when ``T`` is
  countable, else the countable components of a tuple), is checked with Case-Output allowed
  below: every path ends in equal outputs, or in a run-1 output whose ``D`` is not the value
  ``v`` the rule quantifies over;
* **Case-Output** (``coupling.cases``) at ``mlet x = m in if C then A else B``: two premises,
  each coupling ``m`` its own way (the case ``v`` is, or is not, a ``D`` of an output run 1
  reaches through ``A``): Case-Then demands ``C<1> ⇒ C<2>``, checks ``A`` where both runs
  take it, and an S-M for the paths where run 1 takes ``else`` (they end in outputs whose ``D``
  is not ``v``: the outputs through ``A`` and through ``B`` are disjoint, demanded at the
  node); Case-Else is the mirror image. A call of a counter loop in the enumeration of run 1's
  outputs has the fact ``invariants.counter_support`` states from the source (never from the
  certificate), whose induction on the helper's definition is demanded at the node too;
* **Pointwise-Value** (``coupling.pointwise`` with the output value ``v`` named): the body
  checked against the lifting of ``x<1> = v => x<2> = v`` for a fresh ``v``, each helper it
  uses through an invariant relative to ``v`` — stated here from the source
  (``verifier.language.invariants``), never read from the certificate — checked against it by
  induction in the same proof.
"""
from __future__ import annotations

from typing import List, Optional, Tuple

from obligations import terms as T
from obligations.model import ObligationKind
from obligations.records import replace
from obligations import vocabulary as V
from verifier.language import ast as A
from verifier.language.invariants import (POINT, argmax_val, support_helpers, support_term,
                                          val_domains)
from verifier.language.resolve import source_name
from verifier.translation import logic as L
from verifier.translation.symbolic import (Closure, Monadic, NamedFun, Scalar, SymValue,
                                           TupleV, UnitV)
from verifier.translation.symbolic import value_terms
from verifier.translation.translate import bind_pattern, flatten_app
from checker import safety as S
from checker.judgement import Ctx, Node, Proof, Reject, expect, translated

E = ObligationKind.ENTAILMENT
#: how deep the enumeration of run 1's outputs goes
DEPTH = 64


def countable(t: Optional[A.SimpleType]) -> bool:
    """The values of ``t`` are countable: bool, int, nat, unit, [k], lists and tuples of them."""
    if isinstance(t, A.TBase):
        return t.name in ("bool", "int", "nat", "unit")
    if isinstance(t, A.TFin):
        return True
    if isinstance(t, A.TList):
        return countable(t.elem)
    if isinstance(t, A.TTuple):
        return all(countable(i) for i in t.items)
    return False


#: ``D`` of a real or a list of reals: the sign of each number, ``x >= 0``
SIGNS = ("signs",)


def _real(t: Optional[A.SimpleType]) -> bool:
    return isinstance(t, A.TBase) and L.sort_of_type(t) == T.REAL


def countable_part(t: Optional[A.SimpleType]) -> Optional[Tuple]:
    """``D``: ``(None,)`` when ``t`` is countable, ``SIGNS`` for a real or a list of reals
    (D maps each number to ``x >= 0``: two values, so countably many cells), the countable
    components of a tuple type or of the tuples of a list type (D maps the list), or None
    (the pointwise rule does not apply)."""
    if countable(t):
        return (None,)
    if _real(t) or isinstance(t, A.TList) and _real(t.elem):
        return SIGNS
    if isinstance(t, A.TList):  # D maps each tuple of the list to its countable components
        t = t.elem
    if isinstance(t, A.TTuple):
        return tuple(i for i, item in enumerate(t.items) if countable(item)) or None
    return None


def part_terms(value: SymValue, part) -> Optional[List[T.Term]]:
    """The terms of ``D(value)``; None when they cannot be named."""
    if part == SIGNS:
        if not isinstance(value, Scalar):
            return None
        if value.term.sort == T.REAL:
            return [T.ge(value.term, T.real(0))]
        if V.list_key_of(value.term.sort) == "real":
            return [V.list_signs(value.term)]
        return None
    if part == (None,):
        items = [value]
    elif isinstance(value, TupleV):
        items = [value.items[i] for i in part if i < len(value.items)]
    elif isinstance(value, Scalar) and V.tuple_components(V.list_key_of(value.term.sort)):
        if max(part) >= len(V.tuple_components(V.list_key_of(value.term.sort))):
            return None
        return [V.list_part(value.term, i) for i in part]
    else:
        return None
    out: List[T.Term] = []
    for item in items:
        if isinstance(item, UnitV):
            continue
        terms = value_terms(item)
        if not terms:
            return None
        out += list(terms)
    return out


def pointwise(p: Proof, ctx: Ctx, body: A.Expr, rt: A.RMonad, node: Node, check) -> None:
    """Pointwise: the body checked with Case-Output allowed (``check`` is the relational
    check), for a DP claim of ``=`` with delta 0 over outputs with a countable part."""
    (inner,) = expect(node, ("Pointwise",), body, "the pointwise rule", premises=1)
    claim = ctx.claim
    t = rt.body
    while isinstance(t, A.RRefine):
        t = t.base
    part = countable_part(t.type if isinstance(t, A.RSimple) else None)
    if claim.family != "DP" or claim.relation or part is None:
        raise Reject("Pointwise proves a claim M[DP(eps)] {x :: T | =} whose outputs have a "
                     "countable part", body.span)
    if claim.delta != T.real(0):
        raise Reject("Pointwise needs delta 0", body.span)
    p.lemmas.add("coupling.pointwise")
    check(p, replace(ctx, claim=replace(claim, pointwise=part)), body, inner)


def assume_point(p: Proof, val: A.ValDecl, decl: A.LetDecl, node: Node) -> None:
    """Before a derivation by Pointwise-Value (``node``): the output value ``v``, a fresh
    variable bound to ``POINT`` at the top level, and the invariant of each helper whose
    derivation is a premise of ``node`` after the body — a recursive definition without a
    val, its invariant stated by the kernel from the source (``invariants.argmax_val``: the
    certificate only says which helpers), as its val in this proof. The helpers' derivations
    are checked by ``pointwise_value``; what the invariants state is proved there, for the
    same ``v``."""
    t = val.rtype
    while isinstance(t, A.RArrow):
        t = t.cod
    base = t.body if isinstance(t, A.RMonad) else None
    while isinstance(base, A.RRefine):
        base = base.base
    drawn = base.type if isinstance(base, A.RSimple) else None
    if countable_part(drawn) != (None,):
        raise Reject("Pointwise-Value proves a claim whose output is countable", decl.span)
    sort = translated(lambda: L.sort_of_type(drawn), decl.span)
    if sort is None:
        raise Reject("Pointwise-Value names the output value: its type needs one sort "
                     "(not a tuple)", decl.span)
    point = p.fresh("v", sort)
    p.point = point
    p.top_env = p.top_env.bind(POINT, Scalar(point), Scalar(point))
    for helper_node in node.premises[1:]:
        helper = [d for d in p.program.lets()
                  if helper_node.at == (d.span.line, d.span.col, d.span.end_line,
                                        d.span.end_col)]
        if len(helper) != 1 or not helper[0].recursive or helper[0].name in p.vals \
                or helper[0].name in p.proved_here or helper[0] is decl:
            raise Reject(f"node {helper_node.id}: a premise of Pointwise-Value after the body "
                         "is the derivation of a recursive helper without a val", decl.span)
        inv = argmax_val(helper[0], decl, val, p.type_of)
        if inv is None:
            raise Reject(f"node {helper_node.id}: no invariant template fits "
                         f"{source_name(helper[0].name)}", helper[0].span)
        p.vals[helper[0].name] = inv
        p.proved_here.add(helper[0].name)


def pointwise_value(p: Proof, ctx: Ctx, body: A.Expr, rt: A.RMonad, node: Node, check,
                    derive) -> None:
    """Pointwise-Value (``coupling.pointwise``, LICS 2016 Prop. 8): for the output value
    ``v`` (``assume_point``), the body is checked against the lifting of ``x<1> = v => x<2> =
    v`` at the claimed cost, and each helper against its invariant (``derive``: its
    LetRec-Induction, for the same ``v``)."""
    inner = node.premises[0] if node.premises else None
    if node.rule != "Pointwise-Value" or inner is None or p.point is None:
        raise Reject(f"node {node.id}: Pointwise-Value needs the body's derivation",
                     body.span)
    claim = ctx.claim
    if claim.family != "DP" or claim.relation or claim.var is None:
        raise Reject("Pointwise-Value proves a claim M[DP(eps)] {x :: T | =}", body.span)
    if claim.delta != T.real(0):
        raise Reject("Pointwise-Value needs delta 0", body.span)
    p.lemmas.add("coupling.pointwise")
    s = body.span
    relation = A.Implies(A.BinOp("=", A.RunVar(claim.var, 1, s), A.Var(POINT, s), s),
                         A.BinOp("=", A.RunVar(claim.var, 2, s), A.Var(POINT, s), s), s)
    check(p, replace(ctx, claim=replace(claim, relation=(relation,))), body, inner)
    helpers = {d.name: d for d in p.program.lets()}
    for helper_node in node.premises[1:]:
        (name,) = [n for n in p.proved_here if helper_node.at == (
            helpers[n].span.line, helpers[n].span.col, helpers[n].span.end_line,
            helpers[n].span.end_col)]
        derive(p, p.vals[name], helpers[name], helper_node)


def case_output(p: Proof, ctx: Ctx, e: A.MLet, node: Node, synth, check, spent) -> None:
    """Case-Output at ``mlet x = m in if C then A else B`` (``synth``, ``check``, ``spent``:
    the relational rules for the premises' parts)."""
    claim = ctx.claim
    if claim is None or claim.pointwise is None or not isinstance(e.body, A.If):
        raise Reject(f"node {node.id}: Case-Output applies below Pointwise to an mlet whose "
                     "body is an if", e.span)
    then_node, else_node = expect(node, ("Case-Output",), e, "an mlet followed by an if",
                                  premises=2)
    p.lemmas.add("coupling.cases")
    cond = e.body.cond
    goals = []
    support = _Support(support_helpers(p.program, p.vals))
    through_then = outputs(p, ctx.env, e, "then", 0, support)
    through_else = outputs(p, ctx.env, e, "else", 0, support)
    _inductions(p, replace(ctx, hyps=()), support)
    for facts_a, out_a in through_then:
        for facts_b, out_b in through_else:
            da, db = part_terms(out_a, claim.pointwise), part_terms(out_b, claim.pointwise)
            if da is None or db is None or len(da) != len(db) \
                    or any(x.sort != y.sort for x, y in zip(da, db)):
                raise Reject("the outputs of the branches cannot be compared", e.span)
            same = T.and_(*(T.eq(x, y) for x, y in zip(da, db)))
            goals.append(T.implies(T.and_(*facts_a, *facts_b), T.not_(same)))
    p.oblige(ctx, E, T.and_(*goals), "the outputs run 1 reaches through the two branches "
             "differ in their discrete part", e.span, "Case-Output")
    for label, case, branch in (("then", then_node, e.body.then),
                                ("else", else_node, e.body.else_)):
        first_node, rest_node, spent_node = expect(case, (f"Case-{label.title()}",), e,
                                                   f"the {label} case", premises=3)
        expect(spent_node, ("S-M",), e, "the paths that cannot output v", premises=0)
        inner = replace(ctx, out_case=(label, cond))
        first = synth(p, inner.binding(e.pattern), e.value, first_node)
        env = translated(lambda: bind_pattern(inner.env, e.pattern, *first.output, e.span),
                         e.span)
        after = inner.with_env(env).spend(first.cost)
        if first.facts:
            after = after.assume("h_candidate", T.and_(*first.facts))
        c1, c2 = translated(lambda: p.term_pair(after, cond), cond.span)
        if label == "then":
            follows, taken, vacuous = T.implies(c1, c2), T.and_(c1, c2), T.not_(c1)
        else:
            follows = T.implies(T.not_(c1), T.not_(c2))
            taken, vacuous = T.and_(T.not_(c1), T.not_(c2)), c1
        p.oblige(after, E, follows, f"run 1 taking the {label} branch takes run 2 there too",
                 cond.span, "Case-Output")
        check(p, after.assume(f"h_{label}", taken), branch, rest_node)
        spent(p, after.assume("h_vacuous", vacuous), e)


Outputs = List[Tuple[List[T.Term], SymValue]]


class _Support:
    """The helpers the counter-support template fits (``invariants.counter_support``, stated
    from the source) and those whose fact an enumeration used (each proved by induction)."""

    def __init__(self, helpers) -> None:
        self.helpers = helpers
        self.used: List[str] = []


def _inductions(p: Proof, ctx: Ctx, support: _Support) -> None:
    """The induction step of each counter-support fact used (and of those its proof uses):
    the body's run-1 outputs, from parameters of which only their types are known, the fact
    assumed of its recursive calls (fixpoint induction), satisfy it."""
    done = 0
    while done < len(support.used):
        name = support.used[done]
        done += 1
        decl, s = support.helpers[name]
        types = val_domains(p.vals[name])
        if len(types) != len(decl.params):
            raise Reject(f"the parameters of {source_name(name)} are not those of its val",
                         decl.span)
        env, facts, counter = p.env_at(decl), [], None
        for k, (param, t) in enumerate(zip(decl.params, types)):
            value, known = S.fresh_value(p, t, param.name)
            facts += known
            env = translated(lambda: bind_pattern(env, param, value, value, decl.span),
                             decl.span)
            if k == s.counter:
                counter = value
        goals = []
        for path, value in outputs(p, env, decl.body, None, 0, support):
            fact = support_term(s, value.term, counter.term) \
                if isinstance(value, Scalar) and isinstance(counter, Scalar) else None
            if fact is None:
                raise Reject(f"an output of {source_name(name)} is not an integer", decl.span)
            goals.append(T.implies(T.and_(*facts, *path), fact))
        p.oblige(ctx, E, T.and_(*goals), f"every output of {source_name(name)} is a value it "
                 "returns or at least its counter (induction)", decl.span, "Case-Output")


def outputs(p: Proof, env, e: A.Expr, branch: Optional[str], depth: int,
            support: Optional[_Support] = None) -> Outputs:
    """What computation ``e`` may output in run 1, with the conditions of each path (an
    over-approximation: a draw from a mechanism, a val or a distribution is a fresh value);
    ``branch``: for ``mlet x = m in if C then A else B``, the paths through that branch
    only, each from a sample of its own."""
    if depth > DEPTH:
        raise Reject("the outputs of this computation are nested too deeply", e.span)
    if isinstance(e, A.Return):
        return [([], _one(p, e.value, env))]
    if isinstance(e, A.Let):
        v = _one(p, e.value, env)
        inner = translated(lambda: bind_pattern(env, e.pattern, v, v, e.span), e.span)
        return outputs(p, inner, e.body, None, depth + 1, support)
    if isinstance(e, A.MLet):
        found: Outputs = []
        for facts, v in outputs(p, env, e.value, None, depth + 1, support):
            inner = translated(lambda: bind_pattern(env, e.pattern, v, v, e.span), e.span)
            body = e.body
            if branch is not None:
                if not isinstance(body, A.If):
                    raise Reject("Case-Output needs an if after the mlet", e.span)
                c = translated(lambda: p.translator.as_term(_one(p, body.cond, inner),
                                                            body.cond), body.cond.span)
                facts = facts + [c if branch == "then" else T.not_(c)]
                body = body.then if branch == "then" else body.else_
            found += [(facts + f, o) for f, o in outputs(p, inner, body, None, depth + 1, support)]
        return found
    if isinstance(e, A.If):
        c = translated(lambda: p.translator.as_term(_one(p, e.cond, env), e.cond), e.cond.span)
        return ([([c] + f, o) for f, o in outputs(p, env, e.then, None, depth + 1, support)] +
                [([T.not_(c)] + f, o) for f, o in outputs(p, env, e.else_, None, depth + 1, support)])
    if isinstance(e, A.App):
        head, args = flatten_app(e)
        bound = not (isinstance(head, A.Var) and env.lookup(head.name) is None)
        fn = _one(p, head, env) if bound else None
        if support is not None and isinstance(fn, NamedFun) and fn.name == head.name \
                and head.name in support.helpers \
                and len(args) == len(support.helpers[head.name][0].params):
            out = _any(p, e)
            s = support.helpers[head.name][1]
            counter = _one(p, args[s.counter], env)
            fact = support_term(s, out.term, counter.term) \
                if isinstance(out, Scalar) and isinstance(counter, Scalar) else None
            if fact is not None:
                if head.name not in support.used:
                    support.used.append(head.name)
                return [([fact], out)]
        if isinstance(fn, Closure) and len(args) == len(fn.params):
            inner = fn.env
            for param, arg in zip(fn.params, args):
                v = _one(p, arg, env)
                inner = translated(lambda: bind_pattern(inner, param, v, v, arg.span),
                                   arg.span)
            return outputs(p, inner, fn.body, None, depth + 1, support)
        return [([], _any(p, e))]
    if isinstance(e, A.Var):
        pair = env.lookup(e.name)
        if pair and isinstance(pair[0], Monadic) and pair[0].expr is not None:
            return outputs(p, pair[0].env, pair[0].expr, None, depth + 1, support)
        return [([], _any(p, e))]
    if isinstance(e, A.Match):
        t = p.type_of(e.scrutinee)
        if not isinstance(t, A.TList):
            raise Reject("the outputs of this match are not enumerated", e.span)
        inner = env
        for name, part in ((e.head, t.elem), (e.tail, t)):
            if name != "_":
                value = S.fresh_value(p, part, "w")[0]
                inner = inner.bind(name, value, value)
        return (outputs(p, env, e.nil_body, None, depth + 1, support)
                + outputs(p, inner, e.cons_body, None, depth + 1, support))
    if isinstance(e, (A.Ran, A.Observe, A.Infer)):
        return [([], _any(p, e))]
    raise Reject("the outputs of this computation are not enumerated", e.span)


def _one(p: Proof, e: A.Expr, env) -> SymValue:
    """``e`` in run 1 (range conditions are Safety's)."""
    with p.collecting():
        return translated(lambda: p.translator.expr(e, 1, env), e.span)


def _any(p: Proof, e: A.Expr) -> SymValue:
    t = p.type_of(e)
    if not isinstance(t, A.TMonad):
        raise Reject("the type of this computation is not known", e.span)
    return S.fresh_value(p, t.elem, "w")[0]


__all__ = ["pointwise", "pointwise_value", "assume_point", "case_output", "outputs", "countable_part", "part_terms"]
