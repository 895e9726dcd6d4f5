"""The kernel's LetRec-Joint: the joint facts of the calls of additive recursive functions on
adjacent lists (docs/verifier.md, "Parallel composition: joint sensitivity").

A LetRec-Joint root premise names, by where it stands, a recursive definition whose joint
facts the proof uses. The kernel recognises the additive shape from the source itself
(``shape``: ``match l with [] -> b | x :: xs -> h + f .. xs ..``, the recursive call on the
tail with every other parameter passed unchanged and ``=`` in the val, ``h`` naming neither
``f``, ``l`` nor ``xs``, ``b`` not ``f``, a number as result) and refuses a node on a
definition of another shape. For such an ``f``, ``f(a, l) = b(a) + Σ_{x ∈ l} h(x, a)``, so two
adjacent lists are equal or differ at one position, whose elements ``d1``, ``d2`` give
``f(a, l1) - f(a, l2) = h(d1, a) - h(d2, a)`` for every additive ``f`` and every ``a`` (the
lemma and its induction: docs/verifier.md). The kernel states that fact itself, in every
obligation with an ``adj (P, Q)`` and calls of those functions on ``P`` and ``Q``
(``joint_facts``); nothing of it comes from the certificate.
"""
from __future__ import annotations

from typing import Dict, List, Optional, Sequence, Tuple

from obligations import terms as T
from obligations import vocabulary as V
from verifier.language import ast as A
from verifier.language.resolve import source_name
from verifier.translation import logic as L
from verifier.translation.calls import call_value, leaves
from verifier.translation.ranges import value_facts
from verifier.translation.symbolic import Scalar
from verifier.translation.translate import NoRule
from checker.judgement import Node, Proof, Reject, arrows, refinement_parts, says_equal, simple_of

#: at most this many calls of one function on one list get a joint fact
MAX_CALLS = 6


def shape(p: Proof, decl: A.LetDecl) -> Optional[tuple]:
    """``(position, parameters, head, step, element type, result type)`` of the additive
    definition ``decl``, or None when it is not additive (module docstring)."""
    val = p.vals.get(decl.name)
    if val is None or not decl.recursive:
        return None
    params = [q.name if isinstance(q, A.PVar) else None for q in decl.params]
    doms, cod = arrows(val.rtype)
    m = decl.body
    if None in params or len(doms) != len(params) or not isinstance(m, A.Match) \
            or not isinstance(m.scrutinee, A.Var) or m.scrutinee.name not in params:
        return None
    at = params.index(m.scrutinee.name)
    try:
        lst, result = simple_of(doms[at]), simple_of(cod)
        if any(i != at and not says_equal(*_refined(d)) for i, d in enumerate(doms)):
            return None
        kinds = {d.name for d in map(simple_of, doms) if isinstance(d, A.TBase)}
        # one flat argument term per parameter (a unit is none, a pair two): else the i-th
        # term of a call is not its i-th parameter
        if any(leaves(t) is None or len(leaves(t)) != 1 for t in map(simple_of, doms)):
            return None
    except Reject:
        return None
    if not isinstance(lst, A.TList) or "real+inf" in kinds or lst.elem == A.TBase("real+inf") or \
            (isinstance(result, A.TBase) and result.name == "real+inf") or \
            L.sort_of_type(lst.elem) not in (T.BOOL, T.INT, T.REAL) or \
            L.sort_of_type(result) not in (T.INT, T.REAL):
        return None
    if decl.name in _vars(m.nil_body):
        return None
    s = m.cons_body
    if not (isinstance(s, A.BinOp) and s.op == "+"):
        return None
    expected = params[:at] + [m.tail] + params[at + 1:]
    for call, step in ((s.right, s.left), (s.left, s.right)):
        if _applied(call) == [decl.name] + expected and \
                not _vars(step) & {decl.name, params[at], m.tail}:
            return at, tuple(params), m.head, step, lst.elem, result
    return None


def _refined(d: A.RType):
    var, _, assertions = refinement_parts(d)
    return var, assertions


def _vars(e: A.Expr) -> set:
    return {n.name for n in A.descendants(e) if isinstance(n, A.Var)}


def _applied(e: A.Expr) -> List[Optional[str]]:
    """``[f, x1, .., xn]`` of ``f x1 .. xn`` with variables (None for another argument)."""
    out: List[Optional[str]] = []
    while isinstance(e, A.App):
        out.insert(0, e.arg.name if isinstance(e.arg, A.Var) else None)
        e = e.fn
    return [e.name if isinstance(e, A.Var) else None] + out


def read_joint(p: Proof, nodes: Sequence[Node]) -> None:
    """The LetRec-Joint premises ``nodes``: each stands at a recursive definition with a val
    of the additive shape, which the kernel recognises (else the certificate is refused);
    their joint facts are stated in this proof's obligations from now on."""
    for n in nodes:
        found = [d for d in p.program.lets() if d.recursive and n.at == (
            d.span.line, d.span.col, d.span.end_line, d.span.end_col)]
        if n.premises or len(found) != 1:
            raise Reject(f"node {n.id}: LetRec-Joint stands at a recursive definition and has "
                         "no premise")
        decl = found[0]
        s = shape(p, decl)
        if s is None:
            raise Reject(f"node {n.id}: {source_name(decl.name)} is not additive in a list "
                         "(match on it, [] -> a value, x :: xs -> a step of x and the other "
                         "parameters, all = in its val, + the call on xs): it has no joint "
                         "facts", decl.span)
        p.joint[decl.name] = s


def joint_facts(p: Proof, ctx, terms: Sequence[T.Term],
                calls: Dict[str, List[Tuple[T.Term, ...]]]) -> List[T.Term]:
    """For every ``adj (P, Q)`` in ``terms`` (P, Q distinct), the joint fact of the calls in
    ``calls`` of the functions LetRec-Joint names (not the one being defined) on ``P`` and
    ``Q``: ``adj (P, Q) /\\ ranges ==> P = Q \\/ exists d1 d2 (elements). AND (a = c ==> f(a, P)
    - f(c, Q) = h(d1, a) - h(d2, c))``."""
    names = [n for n in calls if n in p.joint and n != ctx.function]
    if not names:
        return []
    out: List[T.Term] = []
    for app in T.ground_applications(*terms):
        if app.func.name == "adj" and app.args[0] != app.args[1]:
            key = (app.args, tuple((n, tuple(calls[n])) for n in names))
            if key not in p.joint_cache:
                p.joint_cache[key] = _fact(p, names, calls, *app.args)
            fact = p.joint_cache[key]
            if fact is not None and fact not in out:
                out.append(fact)
    return out


def _fact(p: Proof, names, calls, left: T.Term, right: T.Term) -> Optional[T.Term]:
    key = V.list_key_of(left.sort)
    if key is None or left.sort != right.sort:
        return None
    sort = V.elem_sort(key)
    d1, d2 = p.fresh("joint_d", sort), p.fresh("joint_d", sort)
    hyps, has, body = [V.adj(left, right)], [], []
    for name in names:
        at, params, head, step, elem, result = p.joint[name]
        if L.sort_of_type(elem) != sort:
            continue
        mine = [c for c in calls[name] if len(c) == len(params) and c[at] is left][:MAX_CALLS]
        theirs = [c for c in calls[name] if len(c) == len(params) and c[at] is right][:MAX_CALLS]
        try:
            parts = []
            for a in mine:
                for c in theirs:
                    equal = T.and_(*(T.eq(a[i], c[i]) for i in range(len(params)) if i != at))
                    delta = T.sub(_value(name, a, result), _value(name, c, result))
                    parts.append(T.implies(equal, T.eq(delta, T.sub(
                        _h(p, name, params, at, head, step, result, d1, a),
                        _h(p, name, params, at, head, step, result, d2, c)))))
            lists = value_facts(A.TList(elem), Scalar(left)), value_facts(A.TList(elem), Scalar(right))
            elements = value_facts(elem, Scalar(d1)), value_facts(elem, Scalar(d2))
        except (NoRule, Reject, T.SortError):
            continue
        if not parts or None in lists or None in elements:
            continue
        body += parts
        hyps += [f for fs in lists for f in fs if f not in hyps]
        has += [f for fs in elements for f in fs if f not in has]
    seen = {v.name for v in T.free_vars(left, right, *(x for n in names for c in calls[n] for x in c))}
    if not body or d1.name in seen or d2.name in seen:
        return None
    return T.implies(T.and_(*hyps), T.or_(T.eq(left, right),
                                          T.exists([d1, d2], T.and_(*has, *body))))


def _value(name: str, args, result: A.SimpleType) -> T.Term:
    v = call_value(name, args, result)
    if not isinstance(v, Scalar):
        raise Reject("a call whose value is not a number")
    return v.term


def _h(p: Proof, name, params, at, head, step, result, d: T.Var, args) -> T.Term:
    env = p.env_at(p.lets[name]).bind(head, Scalar(d), Scalar(d))
    for i, q in enumerate(params):
        if i != at:
            env = env.bind(q, Scalar(args[i]), Scalar(args[i]))
    with p.collecting():
        t = p.translator.as_term(p.translator.expr(step, 1, env), step)
    want = L.sort_of_type(result)
    t = T.to_real(t) if (t.sort, want) == (T.INT, T.REAL) else t
    if t.sort != want:
        raise Reject("a step of another sort than the result")
    return t
