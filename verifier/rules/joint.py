"""LetRec-Joint: the joint change of several calls of one additive recursive function on a
pair of adjacent lists (parallel composition, issue #26; docs/verifier.md, "Parallel
composition: joint sensitivity").

A top-level recursive pure function ``f`` with a val is *additive* in its list parameter
``l`` when its body is ``match l with [] -> b | x :: xs -> h + f p1 .. xs .. pn`` (or
``f .. xs .. + h``): the recursive call passes the tail at ``l``'s position and every other
parameter unchanged, ``h`` names neither ``f`` nor ``l`` nor ``xs`` (a function of the head
and the other parameters only), ``b`` does not name ``f``, the other parameters are ``=`` in
the val and the result is a number. Then ``f(a, l) = b(a) + Σ_{x ∈ l} h(x, a)``, and

    **Lemma.** If ``adj (l1, l2)``, either ``l1 = l2`` or there are elements ``d1`` of ``l1``
    and ``d2`` of ``l2`` such that for every additive ``f`` and every ``a``,
    ``f(a, l1) - f(a, l2) = h_f(d1, a) - h_f(d2, a)``.

    *Proof*, by induction on ``l1`` with the unfolding of ``adj``. ``[] ~ ys``: ``ys = []``, the
    lists are equal. ``x :: xs ~ y :: ys``: either ``xs = ys``, and then ``f(a, x :: xs) -
    f(a, y :: xs) = h(x, a) - h(y, a)`` (``b`` and the tails cancel): ``d1 = x``, ``d2 = y``;
    or ``x = y`` and ``adj (xs, ys)``, and the heads' ``h`` cancel: by induction the tails are
    equal (so are the lists) or have witnesses ``d1``, ``d2``, which serve for the lists. The
    witnesses are chosen before ``f`` and ``a``: they are shared by every call. ∎

So for every pair of lists ``(P, Q)`` of an ``adj (P, Q)`` in an obligation, the calls of
additive functions on ``P`` and on ``Q`` get one fact

    adj (P, Q) /\\ ranges (P) /\\ ranges (Q) ==> P = Q \\/ exists d1 d2. ranges (d1) /\\ ranges (d2)
        /\\ AND_{f(a, P), f(c, Q)} (a = c ==> f(a, P) - f(c, Q) = h_f(d1, a) - h_f(d2, c))

(``ranges``: the val's element type; the elements of a list have it when the list does).
The fact rests on ``f``'s definition, not on its val; the claim still depends on ``f``'s
claim (which shows it terminates), as for every call. The derivation gets one LetRec-Joint
root premise per function whose joint facts some obligation assumes, at its definition; the
certificate kernel recognises the shape itself (``checker/joint.py``) and refuses the node
of a function that is not additive. A function of another shape gets only its val's facts.
"""
from __future__ import annotations

from typing import Dict, List, Optional, Sequence, Tuple

from obligations import terms as T
from obligations.records import record
from verifier.language import ast as A
from verifier.language.resolve import written
from verifier.rules import registry
from verifier.rules.refinements import _shared, refinement_parts, simple_of
from verifier.translation import logic as L
from verifier.translation.calls import call_value, leaves
from verifier.translation.ranges import value_facts
from verifier.translation.symbolic import Scalar
from verifier.translation.translate import NoRule

#: at most this many calls of one function on one list get a joint fact
MAX_CALLS = 6


@record
class Additive:
    """The additive shape of ``name``: the list parameter's position, the parameters, the
    head's name, the step ``h`` and the element and result types of the val."""

    name: str
    position: int
    params: Tuple[str, ...]
    head: str
    step: A.Expr
    elem: A.SimpleType
    result: A.SimpleType


def additive_shape(val: Optional[A.ValDecl], decl: Optional[A.LetDecl]) -> Optional[Additive]:
    """The additive shape of the recursive definition ``decl`` with the val ``val`` (module
    docstring), or None when it has another shape."""
    if val is None or decl is None or not decl.recursive or \
            not all(isinstance(p, A.PVar) for p in decl.params):
        return None
    doms, rt = [], val.rtype
    while isinstance(rt, A.RArrow):
        doms.append(rt.dom)
        rt = rt.cod
    body, params = decl.body, tuple(p.name for p in decl.params)
    if len(doms) != len(params) or not isinstance(body, A.Match) or \
            not isinstance(body.scrutinee, A.Var) or body.scrutinee.name not in params:
        return None
    at = params.index(body.scrutinee.name)
    try:
        types = [simple_of(refinement_parts(d)[1]) for d in doms]
        result = simple_of(refinement_parts(rt)[1])
        for i, dom in enumerate(doms):
            var, _, assertions = refinement_parts(dom)
            if i != at and not (var is not None and _shared(var, assertions)):
                return None
    except NoRule:
        return None
    # a call's symbol has its arguments flattened (calls.flat_terms: a unit is no term, a pair
    # two): the rule reads the i-th flat argument as the i-th parameter, so each parameter must
    # be exactly one term (a unit and a pair would shift the ones between them)
    if any(leaves(t) is None or len(leaves(t)) != 1 for t in types):
        return None
    elem = types[at].elem if isinstance(types[at], A.TList) else None
    if elem is None or L.sort_of_type(elem) not in (T.INT, T.REAL, T.BOOL) or \
            L.sort_of_type(result) not in (T.INT, T.REAL) or \
            any(isinstance(t, A.TBase) and t.name == "real+inf" for t in (result, elem, *types)):
        return None
    cons = body.cons_body
    if _names(body.nil_body) & {decl.name} or not (isinstance(cons, A.BinOp) and cons.op == "+"):
        return None
    for call, step in ((cons.left, cons.right), (cons.right, cons.left)):
        if _recursive_call(call, decl.name, params, at, body.tail) and \
                not _names(step) & {decl.name, params[at], body.tail}:
            return Additive(decl.name, at, params, body.head, step, elem, result)
    return None


def _names(e: A.Expr) -> set:
    return {n.name for n in A.descendants(e) if isinstance(n, A.Var)}


def _recursive_call(e: A.Expr, name: str, params: Tuple[str, ...], at: int, tail: str) -> bool:
    """Whether ``e`` is ``name`` applied to the parameters, the tail at position ``at``."""
    args: List[A.Expr] = []
    while isinstance(e, A.App):
        args.insert(0, e.arg)
        e = e.fn
    want = [tail if i == at else p for i, p in enumerate(params)]
    return isinstance(e, A.Var) and e.name == name and \
        [a.name if isinstance(a, A.Var) else None for a in args] == want


@registry.judgement_rule(registry.LETREC_JOINT)
def letrec_joint(b, ctx, terms: Sequence[T.Term], calls: Dict[str, List[tuple]]
                 ) -> List[T.Term]:
    """LetRec-Joint: the joint facts (module docstring) of the calls ``calls`` (by function:
    their flat argument tuples) of additive functions other than ``ctx.function``, for every
    ``adj (P, Q)`` met in ``terms``; records the functions used in ``b.joint`` (a root
    premise each)."""
    shapes = {}
    for name in calls:
        if name not in b.additive:
            b.additive[name] = additive_shape(b.val_of(name), b.let_of(name))
        if b.additive[name] is not None and name != ctx.function:
            shapes[name] = b.additive[name]
    if not shapes:
        return []
    facts: List[T.Term] = []
    for app in T.ground_applications(*terms):
        if app.func.name != "adj" or app.args[0] == app.args[1]:
            continue
        key = (app.args, tuple((n, tuple(calls[n])) for n in shapes))
        if key not in b.joint_cache:
            b.joint_cache[key] = _joint_fact(b, shapes, calls, *app.args)
        fact, used = b.joint_cache[key]
        if fact is not None and fact not in facts:
            facts.append(fact)
            for name in used:
                if name not in b.joint:
                    decl = b.let_of(name)
                    b.joint[name] = b.node(
                        "LetRec-Joint", None, decl.span,
                        f"{written(name)} is additive in its list: the changes of its calls on "
                        "adjacent lists are the changes of its step at one shared pair of "
                        "elements")
    return facts


def _joint_fact(b, shapes: Dict[str, Additive], calls, p: T.Term, q: T.Term):
    """The joint fact of the calls on the lists ``p`` (run 1) and ``q`` (run 2), and the
    functions it is about; (None, ()) when there is none."""
    if p.sort != q.sort or L.list_key_of(p.sort) is None:
        return None, ()
    sort = L.elem_sort(L.list_key_of(p.sort))
    d1, d2 = b.fresh("joint_d", sort), b.fresh("joint_d", sort)
    premises, witnesses, conclusion, used = [L.adj(p, q)], [], [], []
    for name, shape in shapes.items():
        if L.sort_of_type(shape.elem) != sort:
            continue
        on = [[a for a in calls[name] if len(a) == len(shape.params) and a[shape.position] is lst]
              [:MAX_CALLS] for lst in (p, q)]
        steps = []
        try:
            for a in on[0]:
                for c in on[1]:
                    same = [T.eq(x, y) for i, (x, y) in enumerate(zip(a, c)) if i != shape.position]
                    change = T.sub(_call(name, a, shape), _call(name, c, shape))
                    step = T.sub(_step(b, shape, d1, a), _step(b, shape, d2, c))
                    steps.append(T.implies(T.and_(*same), T.eq(change, step)))
            lists = [value_facts(A.TList(shape.elem), Scalar(x)) for x in (p, q)]
            elements = [value_facts(shape.elem, Scalar(d)) for d in (d1, d2)]
        except (NoRule, T.SortError):
            continue
        if not steps or None in lists or None in elements:
            continue
        conclusion += steps
        used.append(name)
        premises += [f for part in lists for f in part if f not in premises]
        witnesses += [f for part in elements for f in part if f not in witnesses]
    taken = {v.name for v in T.free_vars(p, q, *(x for n in used for a in calls[n] for x in a))}
    if not conclusion or {d1.name, d2.name} & taken:  # a bound name must capture nothing
        return None, ()
    fact = T.implies(T.and_(*premises),
                     T.or_(T.eq(p, q), T.exists([d1, d2], T.and_(*witnesses, *conclusion))))
    return fact, tuple(used)


def _call(name: str, args: tuple, shape: Additive) -> T.Term:
    value = call_value(name, args, shape.result)
    if not isinstance(value, Scalar):
        raise NoRule("a call without a number")
    return value.term


def _step(b, shape: Additive, d: T.Var, args: tuple) -> T.Term:
    """``h(d, args)``: the step translated with the head bound to ``d`` and the other
    parameters to the call's arguments (range conditions are the Safety of ``f``'s body)."""
    env = b.env_at(b.let_of(shape.name)).bind(shape.head, Scalar(d), Scalar(d))
    for i, (param, arg) in enumerate(zip(shape.params, args)):
        if i != shape.position:
            env = env.bind(param, Scalar(arg), Scalar(arg))
    with b.collecting([]):
        term = b.translator.as_term(b.translator.expr(shape.step, 1, env), shape.step)
    want = L.sort_of_type(shape.result)
    if term.sort == T.INT and want == T.REAL:
        term = T.to_real(term)
    if term.sort != want:
        raise NoRule("a step of another sort")
    return term
