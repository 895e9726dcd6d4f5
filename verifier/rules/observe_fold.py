"""Closed-form posteriors of observe-folds (the ObserveFold rule).

An *observe-fold* is a structurally recursive function over a data list whose nil case
returns the prior and whose cons case observes the head with a conjugate likelihood on the
recursive result::

    let rec f db prior = match db with
      | [] -> prior
      | d :: dbs -> observe (fun r -> mlet z = ran (bernoulli r) in return (d = z)) (f dbs prior)

(also ``mlet rec = f dbs prior in observe (...) rec``; other parameters are passed through
unchanged). For such an ``f``, ``infer (f l (ran P))`` is computed by induction on ``l`` with the
conjugacy lemmas — not by the data-processing argument of the paper, which is unsound for
conditioning (NOTES.md §2):

* beta–bernoulli: ``Beta(a, b)`` ↦ ``Beta(a + count l, b + length l − count l)``;
* dirichlet–categorical: ``Dir(a_1..a_k)`` ↦ ``Dir(a_j + countOf (l, j))``;
* normal–normal with known variance V: ``N(m, v)`` ↦ ``N(m_n, v_n)`` with
  ``v_n = 1 / (1/v + length l / V)`` and ``m_n = v_n (m/v + sum l / V)``.

The induction itself is a derivation (nil and cons cases) recorded once per function in
``Builder.folds``.
"""
from __future__ import annotations

from typing import Optional, Tuple

from obligations import terms as T
from obligations.model import ObligationKind
from obligations.records import record
from verifier.language import ast as A
from verifier.rules import logic as L
from verifier.rules.context import Ctx
from verifier.rules.symbolic import DistV, Env, NamedFun
from verifier.rules.translate import NoRule, bind_pattern, flatten_app

#: likelihood family -> (conjugate prior family, conjugacy lemma)
CONJUGATE = {
    "bernoulli": ("beta", "conj.beta_bernoulli.list"),
    "categorical": ("dirichlet", "conj.dirichlet_categorical.list/k"),
    "normal": ("normal", "conj.normal_normal.list"),
}


@record
class FoldSpec:
    name: str
    params: Tuple[str, ...]
    data: int            # index of the list parameter
    prior: int           # index of the prior parameter
    family: str          # likelihood family
    variance: Optional[A.Expr]  # the known variance (normal), over the parameters


def recognize(decl: A.LetDecl) -> Optional[FoldSpec]:
    """The fold structure of ``decl``, or None if it is not an observe-fold."""
    if not decl.recursive or not all(isinstance(p, A.PVar) for p in decl.params):
        return None
    params = tuple(p.name for p in decl.params)
    body = decl.body
    if not (isinstance(body, A.Match) and isinstance(body.scrutinee, A.Var)
            and body.scrutinee.name in params and isinstance(body.nil_body, A.Var)
            and body.nil_body.name in params):
        return None
    data, prior = params.index(body.scrutinee.name), params.index(body.nil_body.name)
    cons = body.cons_body
    if isinstance(cons, A.Observe):
        lik, rec = cons.likelihood, cons.prior
    elif isinstance(cons, A.MLet) and isinstance(cons.pattern, A.PVar) \
            and isinstance(cons.body, A.Observe) and cons.body.prior == A.Var(cons.pattern.name):
        lik, rec = cons.body.likelihood, cons.value
    else:
        return None
    expected = tuple(A.Var(body.tail) if i == data else A.Var(p) for i, p in enumerate(params))
    head, args = flatten_app(rec)
    if head != A.Var(decl.name) or tuple(args) != expected:
        return None
    shape = likelihood_shape(lik, body.head)
    if shape is None:
        return None
    family, variance = shape
    if variance is not None and ({body.head, body.tail, decl.name} & _names(variance)):
        return None
    return FoldSpec(decl.name, params, data, prior, family, variance)


def likelihood_shape(lik: A.Expr, datum: str) -> Optional[Tuple[str, Optional[A.Expr]]]:
    """``fun r -> mlet z = ran (F r ...) in return (datum = z)``: (F, known variance or None)."""
    if not (isinstance(lik, A.Fun) and len(lik.params) == 1 and isinstance(lik.params[0], A.PVar)):
        return None
    r = lik.params[0].name
    body = lik.body
    if not (isinstance(body, A.MLet) and isinstance(body.pattern, A.PVar)
            and isinstance(body.value, A.Ran) and isinstance(body.body, A.Return)):
        return None
    z = body.pattern.name
    ret = body.body.value
    if not (isinstance(ret, A.BinOp) and ret.op == "="
            and {ret.left, ret.right} == {A.Var(datum), A.Var(z)}):
        return None
    call = body.value.value
    if not (isinstance(call, A.App) and isinstance(call.fn, A.Var)):
        return None
    family = call.fn.name
    if family in ("bernoulli", "categorical") and call.arg == A.Var(r):
        return family, None
    if family == "normal" and isinstance(call.arg, A.TupleLit) and len(call.arg.items) == 2 \
            and call.arg.items[0] == A.Var(r) and r not in _names(call.arg.items[1]):
        return family, call.arg.items[1]
    return None


def _names(e: A.Expr) -> set:
    from verifier.rules.free_vars import free_vars
    return set(free_vars(e))


# ---- inference ---------------------------------------------------------------------------------

def infer_closed_form(b, e: A.Expr, run: int, env: Env) -> DistV:
    """The symbolic distribution ``infer e`` in run ``run``."""
    tr = b.translator
    if isinstance(e, A.Ran):
        value = tr.expr(e.value, run, env)
        if not isinstance(value, DistV):
            raise NoRule("ran of a distribution whose family is not known", e.span)
        return value
    head, args = flatten_app(e)
    if isinstance(head, A.Var):
        pair = env.lookup(head.name)
        fn = pair[run - 1 if run else 0] if pair else None
        if isinstance(fn, NamedFun):
            decl = b.let_of(head.name)
            spec = recognize(decl) if decl is not None else None
            if spec is not None and len(args) == len(spec.params):
                return _fold_posterior(b, spec, decl, args, run, env, e)
    raise NoRule("infer needs a closed form: the verifier knows ran of a distribution and "
                 "observe-folds with a conjugate likelihood (beta-bernoulli, "
                 "dirichlet-categorical, normal-normal with known variance)", e.span)


def _fold_posterior(b, spec: FoldSpec, decl: A.LetDecl, args, run: int, env: Env,
                    e: A.Expr) -> DistV:
    tr = b.translator
    prior_arg = args[spec.prior]
    prior = infer_closed_form(b, prior_arg, run, env)
    data = tr.term(args[spec.data], run, env)
    expected, lemma = CONJUGATE[spec.family]
    if prior.family != expected:
        raise NoRule(f"{spec.name} observes a {spec.family} likelihood, which is conjugate to a "
                     f"{expected} prior, not to {prior.family}", prior_arg.span)
    _record_induction(b, spec, decl, lemma, data.sort)
    origin = f"observe-fold {spec.name}"
    if spec.family == "bernoulli":
        a, b_ = prior.params
        c, n = L.count(data), L.length(data)
        return _dist("beta", (T.add(a, c), T.sub(T.add(b_, n), c)), origin)
    if spec.family == "categorical":
        k = len(prior.params)
        if L.fin_size(L.list_key_of(data.sort)) != k:
            raise NoRule(f"the data of {spec.name} must be a [{k}] list for this prior", e.span)
        return _dist("dirichlet", tuple(T.add(a, L.count_of(data, j))
                                        for j, a in enumerate(prior.params)), origin)
    m, v = prior.params
    call_env = env
    for name, arg in zip(spec.params, args):
        if name != decl.params[spec.prior].name:
            call_env = bind_pattern(call_env, A.PVar(name), tr.expr(arg, run, env),
                                    tr.expr(arg, run, env), arg.span)
    variance = tr.term(spec.variance, run, call_env)
    tr._check(T.gt(variance, 0), f"the known variance of {spec.name} is positive",
              spec.variance.span, run)
    precision = T.add(T.div(1, v), T.div(L.length(data), variance))
    vn = T.div(1, precision)
    mn = T.mul(vn, T.add(T.div(m, v), T.div(L.total(data), variance)))
    return _dist("normal", (mn, vn), origin)


def _dist(family: str, params, origin: str) -> DistV:
    return DistV(family, tuple(params), L.dist_ctor(family, tuple(params)), origin)


def _record_induction(b, spec: FoldSpec, decl: A.LetDecl, lemma: str, lst: T.Sort) -> None:
    """The induction proving the closed form, once per fold function: the statistics the
    closed form uses (count, countOf, sum, length) are 0 on [] and unfold on d :: dbs, which
    with the one-step conjugacy lemma is the inductive step."""
    if spec.name in b.folds:
        return
    ctx = Ctx(env=b.top_env)
    key = L.list_key_of(lst)
    t = b.fresh("dbs", lst)
    h = b.fresh("d", L.elem_sort(key))
    cons, nil = L.cons(h, t), L.nil(lst)
    nil_parts = [T.eq(L.length(nil), 0)]
    step_parts = [T.eq(L.length(cons), T.add(L.length(t), 1))]
    if spec.family == "bernoulli":
        nil_parts.append(T.eq(L.count(nil), 0))
        step_parts.append(T.eq(L.count(cons), T.add(L.count(t), T.ite(h, 1, 0))))
    elif spec.family == "categorical":
        for j in range(L.fin_size(key) or 0):
            nil_parts.append(T.eq(L.count_of(nil, j), 0))
            step_parts.append(T.eq(L.count_of(cons, j),
                                   T.add(L.count_of(t, j), T.ite(T.eq(h, j), 1, 0))))
    else:
        nil_parts.append(T.eq(L.total(nil), 0))
        step_parts.append(T.eq(L.total(cons), T.add(L.total(t), h)))
    obligations = [
        b.oblige(ctx, ObligationKind.ENTAILMENT, T.and_(*nil_parts),
                 f"{spec.name} []: the posterior is the prior", decl.span, "ObserveFold"),
        b.oblige(ctx, ObligationKind.ENTAILMENT, T.and_(*step_parts),
                 f"{spec.name} (d :: dbs): one conjugate update of the posterior of dbs is "
                 "the posterior of d :: dbs", decl.span, "ObserveFold"),
    ]
    b.folds[spec.name] = b.node("ObserveFold", None, decl.span,
                                f"{spec.name} computes the {CONJUGATE[spec.family][0]} "
                                f"posterior in closed form (induction on the data)",
                                obligations=obligations, function=spec.name, family=spec.family,
                                lemma=lemma.replace("/k", f"/k={L.fin_size(key)}"))
