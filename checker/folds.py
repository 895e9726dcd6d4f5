"""The kernel's closed forms of ``infer``: ran of a distribution, one conjugate observe, and
observe-folds, each justified by a conjugacy lemma of the library.

An *observe-fold* is a recursive function over a data list whose ``[]`` case returns the
prior parameter and whose ``::`` case observes the head with a conjugate likelihood, on the
recursive result (fold right: ``observe L (f dbs prior)``, also written ``mlet r = f dbs prior in
observe L r``) or on the prior before the recursive call (an accumulator: ``f dbs (observe L
prior)``, or ``let p = observe L prior in f dbs p``), every other parameter passed unchanged.
A fold right may instead build its prior in the ``[]`` case from the parameters other than the
data (all passed unchanged). A likelihood written through a named helper is read through its
definition (``verifier.language.unfold``, shared with the front end: a substitution on the
resolved core). Its posterior is the conjugate update by the whole list
(``obligations.conjugacy``), proved by induction: the kernel demands the nil and cons cases
itself (``induction``), once per function.
The shape is recognised here, from the resolved core, independently of the builder.
"""
from __future__ import annotations

from typing import Optional, Tuple

from obligations import terms as T
from obligations.conjugacy import posterior
from obligations.model import ObligationKind
from verifier.language import ast as A
from verifier.language.builtins import CONJUGATE
from verifier.language.free_vars import free_vars
from verifier.language.unfold import Lookup, unfold_function
from verifier.translation import logic as L
from verifier.translation.inferred import infer_symbol, model_call, run_infers
from verifier.translation.symbolic import DistV, Env, Monadic, NamedFun, Scalar
from verifier.translation.translate import NoRule, StoredComputation, bind_pattern, flatten_app
from checker.judgement import Ctx, Proof

Fold = Tuple[str, Tuple[str, ...], int, Optional[int], str, Optional[A.Expr], bool,
             Optional[A.Expr]]
# (function, parameters, data position, prior position (None: the [] case builds the prior),
#  likelihood family, known variance, accumulator, the prior the [] case builds)


def likelihood(lik: A.Expr) -> Optional[Tuple[str, Optional[A.Expr], A.Expr]]:
    """``fun r -> mlet z = ran (F r …) in return (D = z)`` with F a conjugate likelihood of the
    catalogue: (F, the known variance of a normal or None, the datum D). D mentions neither
    ``r`` nor ``z``, the variance not ``r``."""
    if not (isinstance(lik, A.Fun) and len(lik.params) == 1 and isinstance(lik.params[0], A.PVar)):
        return None
    r, body = lik.params[0].name, lik.body
    if not (isinstance(body, A.MLet) and isinstance(body.pattern, A.PVar)
            and isinstance(body.value, A.Ran) and isinstance(body.body, A.Return)):
        return None
    z, ret = body.pattern.name, body.body.value
    if z == r or not (isinstance(ret, A.BinOp) and ret.op == "=" and A.Var(z) in (ret.left, ret.right)):
        return None
    datum = ret.right if ret.left == A.Var(z) else ret.left
    draw = body.value.value
    if {r, z} & set(free_vars(datum)) or not (isinstance(draw, A.App) and isinstance(draw.fn, A.Var)):
        return None
    family = draw.fn.name
    if family in ("bernoulli", "categorical") and draw.arg == A.Var(r):
        return family, None, datum
    if family == "normal" and isinstance(draw.arg, A.TupleLit) and len(draw.arg.items) == 2 \
            and draw.arg.items[0] == A.Var(r) and r not in free_vars(draw.arg.items[1]):
        return family, draw.arg.items[1], datum
    return None


def fold_of(decl: A.LetDecl, lets: Lookup) -> Optional[Fold]:
    """The observe-fold ``decl`` is, or None (see the module docstring); ``lets`` finds the
    top-level definitions a likelihood may be written through."""
    if not decl.recursive or not decl.params or not all(isinstance(p, A.PVar) for p in decl.params):
        return None
    params = tuple(p.name for p in decl.params)
    body = decl.body
    if not (isinstance(body, A.Match) and isinstance(body.scrutinee, A.Var)
            and body.scrutinee.name in params):
        return None
    data, nil = params.index(body.scrutinee.name), body.nil_body
    me, cons, built = A.Var(decl.name), body.cons_body, None
    if isinstance(nil, A.Var) and nil.name in params and nil != body.scrutinee:
        prior: Optional[int] = params.index(nil.name)
        acc: Optional[A.Expr] = A.Var(params[prior])
    elif not set(free_vars(nil)) & {decl.name, body.scrutinee.name, body.head, body.tail}:
        prior, acc, built = None, None, nil  # the [] case builds the prior
        if not isinstance(cons, A.Observe):
            return None
    else:
        return None
    if isinstance(cons, A.Observe):
        lik, call, passed, accumulator = cons.likelihood, cons.prior, acc, False
    elif isinstance(cons, A.Let) and isinstance(cons.pattern, A.PVar) \
            and isinstance(cons.value, A.Observe) and cons.value.prior == acc:
        lik, call, passed, accumulator = (cons.value.likelihood, cons.body,
                                          A.Var(cons.pattern.name), True)
    else:
        head, args = flatten_app(cons)
        updated = args[prior] if head == me and len(args) == len(params) else None
        if not isinstance(updated, A.Observe):
            return None
        lik, call, passed, accumulator = (updated.likelihood, cons,
                                          A.Observe(updated.likelihood, acc), True)
    head, args = flatten_app(call)
    if head != me or len(args) != len(params):
        return None
    for i, arg in enumerate(args):
        if arg != (A.Var(body.tail) if i == data else passed if i == prior else A.Var(params[i])):
            return None
    shape = likelihood(unfold_function(lik, lets))
    if shape is None or shape[2] != A.Var(body.head):
        return None
    family, variance, _ = shape
    moving = {body.head, body.tail, decl.name, params[data]} | (
        {params[prior]} if prior is not None else set())
    if variance is not None and moving & set(free_vars(variance)):
        return None
    return decl.name, params, data, prior, family, variance, accumulator, built


def infer_value(p: Proof, e: A.Expr, run: int, env: Env):
    """``infer e`` in run ``run`` (the translator's infer hook): its closed form, else the
    paper's Infer rule (``verifier.translation.inferred``: the symbol of the model's inputs,
    equal in both runs when they are), once ``run`` is known to infer the model. What the
    closed form recorded before it failed is dropped."""
    marks = (dict(p.folds), set(p.lemmas), len(p._checks), len(p._calls), len(p._stored),
             len(p._decisions))
    try:
        return infer_closed_form(p, e, run, env)
    except NoRule as exc:
        why = exc.message
        p.folds.clear()
        p.folds.update(marks[0])
        p.lemmas.clear()
        p.lemmas.update(marks[1])
        for sink, mark in ((p._checks, marks[2]), (p._calls, marks[3]), (p._stored, marks[4]),
                           (p._decisions, marks[5])):
            del sink[mark:]
    value = Infer(p, e, run, env)
    p.translator.without_closed_form[value.term] = why
    return value


def Infer(p: Proof, e: A.Expr, run: int, env: Env) -> Scalar:
    """The Infer rule without a closed form: the model's code is walked by Safety where
    ``infer`` is evaluated (a computation made there, ``infer e``)."""
    tr = p.translator
    continuous = run_infers(e, env, run, p.lets.get, lambda x, where: tr.expr(x, run, where))
    value = infer_symbol(e, run, env, continuous, model_call(tr, e, run, env, p.vals.get))
    guard = T.and_(*tr._guards) if tr._guards else T.boolean(True)
    tr._stored_sink(StoredComputation(A.Infer(e, e.span), env, guard, run or None))
    p.folds.setdefault(f"infer@{e.span.line}:{e.span.col}", ("Infer", _at(e.span)))
    return value


def infer_closed_form(p: Proof, e: A.Expr, run: int, env: Env) -> DistV:
    """The symbolic distribution ``infer e`` in run ``run``, in closed form."""
    tr = p.translator
    if isinstance(e, A.Ran):
        value = tr.expr(e.value, run, env)
        if not isinstance(value, DistV):
            raise NoRule("ran of a distribution whose family is not known", e.span)
        return value
    if isinstance(e, A.Observe):
        return _observe(p, e, run, env)
    if isinstance(e, A.Var):
        pair = env.lookup(e.name)
        stored = pair[run - 1 if run else 0] if pair else None
        if isinstance(stored, Monadic) and stored.expr is not None:
            return infer_closed_form(p, stored.expr, run, stored.env)
    head, args = flatten_app(e)
    pair = env.lookup(head.name) if isinstance(head, A.Var) else None
    fn = pair[run - 1 if run else 0] if pair else None
    decl = p.lets.get(head.name) if isinstance(fn, NamedFun) else None
    fold = fold_of(decl, p.lets.get) if decl is not None else None
    if fold is None or len(args) != len(fold[1]):
        raise NoRule("infer needs a closed form: ran of a distribution, a conjugate observe, "
                     "or an observe-fold", e.span)
    name, params, data, prior_at, family, variance_e, _, built = fold

    def call_env(skip: Optional[int]) -> Env:
        bound = env
        for i, (param, arg) in enumerate(zip(params, args)):
            if i != skip:
                v = tr.expr(arg, run, env)
                bound = bind_pattern(bound, A.PVar(param), v, v, arg.span)
        return bound

    prior_e = args[prior_at] if prior_at is not None else built
    prior = infer_closed_form(p, prior_e, run, env if prior_at is not None else call_env(data))
    lst = tr.term(args[data], run, env)
    conj = CONJUGATE[family]
    if prior.family != conj.prior:
        raise NoRule(f"a {family} likelihood is conjugate to a {conj.prior} prior, not to "
                     f"{prior.family}", prior_e.span)
    k = L.fin_size(L.list_key_of(lst.sort))
    if family == "categorical" and k != len(prior.params):
        raise NoRule(f"the data must be a [{len(prior.params)}] list for this prior", e.span)
    induction(p, fold, decl, lst.sort)
    variance = None
    if variance_e is not None:
        variance = tr.term(variance_e, run, call_env(prior_at))
        tr._check(T.gt(variance, 0), f"the known variance of {name} is positive",
                  variance_e.span, run)
    return _dist(conj.prior, posterior(family, prior.params, lst, variance))


def _observe(p: Proof, e: A.Observe, run: int, env: Env) -> DistV:
    """``observe L prior`` with a conjugate ``L`` of one datum: the posterior after ``[D]``."""
    tr = p.translator
    shape = likelihood(unfold_function(e.likelihood, p.lets.get))
    if shape is None:
        raise NoRule("infer of an observe needs a conjugate likelihood", e.likelihood.span)
    family, variance_e, datum = shape
    prior = infer_closed_form(p, e.prior, run, env)
    conj = CONJUGATE[family]
    if prior.family != conj.prior:
        raise NoRule(f"a {family} likelihood is conjugate to a {conj.prior} prior",
                     e.prior.span)
    d = tr.term(datum, run, env)
    lemma = conj.lemma
    if family == "categorical":
        k = len(prior.params)
        if d.sort != T.INT:
            raise NoRule(f"the observed value must be one of the {k} categories", datum.span)
        tr._check(T.and_(T.ge(d, 0), T.lt(d, k)), f"the observed value is one of the {k} "
                  "categories of the prior", datum.span, run)
        key, lemma = f"fin{k}", lemma.replace("/k", f"/k={k}")
    else:
        key = "bool" if family == "bernoulli" else "real"
    one = L.cons(T.to_real(d) if key == "real" and d.sort == T.INT else d,
                 L.nil(L.list_sort(key)))
    variance = None
    if variance_e is not None:
        variance = tr.term(variance_e, run, env)
        tr._check(T.gt(variance, 0), "the known variance of the likelihood is positive",
                  variance_e.span, run)
    p.folds.setdefault(f"observe@{e.span.line}:{e.span.col}", ("Observe", _at(e.span)))
    p.lemmas.add(lemma)
    return _dist(conj.prior, posterior(family, prior.params, one, variance))


def _dist(family: str, params) -> DistV:
    params = tuple(params)
    return DistV(family, params, L.dist_ctor(family, params))


def induction(p: Proof, fold: Fold, decl: A.LetDecl, lst: T.Sort) -> None:
    """Demand, once per fold function, the induction proving its closed form: fold right —
    the statistics the closed form uses are 0 on ``[]`` and unfold on ``d :: dbs`` (with the
    one-step conjugacy lemma, the inductive step); accumulator — generalised over the prior:
    ``post(P, []) = P``, and ``P' = post(P, [d])`` is again a prior of the family with
    ``post(P', dbs) = post(P, d :: dbs)``, for fresh parameters that make P one."""
    name, _, _, _, family, _, accumulator, _ = fold
    if name in p.folds:
        return
    key = L.list_key_of(lst)
    k = L.fin_size(key)
    t, h, nil = p.fresh("dbs", lst), p.fresh("d", L.elem_sort(key)), L.nil(lst)
    cons = L.cons(h, t)
    if accumulator:
        names = {"bernoulli": ("a", "b"), "categorical": tuple(f"a{j + 1}" for j in range(k or 0)),
                 "normal": ("m", "v")}[family]
        prior = tuple(p.fresh(n, T.REAL) for n in names)
        variance = p.fresh("kv", T.REAL) if family == "normal" else None
        first = 1 if family == "normal" else 0  # a normal's mean is any real
        valid = T.and_(*[T.gt(x, 0) for x in prior[first:]],
                       *([T.gt(variance, 0)] if variance is not None else []))
        step = posterior(family, prior, L.cons(h, nil), variance)
        nil_goal = T.implies(valid, T.and_(*[T.eq(x, y) for x, y in zip(
            posterior(family, prior, nil, variance), prior)]))
        step_goal = T.implies(valid, T.and_(*[T.gt(x, 0) for x in step[first:]], *[
            T.eq(x, y) for x, y in zip(posterior(family, step, t, variance),
                                       posterior(family, prior, cons, variance))]))
    else:
        nil_parts, step_parts = [T.eq(L.length(nil), 0)], [T.eq(L.length(cons),
                                                                  T.add(L.length(t), 1))]
        if family == "bernoulli":
            nil_parts.append(T.eq(L.count(nil), 0))
            step_parts.append(T.eq(L.count(cons), T.add(L.count(t), T.ite(h, 1, 0))))
        elif family == "categorical":
            for j in range(k or 0):
                nil_parts.append(T.eq(L.count_of(nil, j), 0))
                step_parts.append(T.eq(L.count_of(cons, j),
                                       T.add(L.count_of(t, j), T.ite(T.eq(h, j), 1, 0))))
        else:
            nil_parts.append(T.eq(L.total(nil), 0))
            step_parts.append(T.eq(L.total(cons), T.add(L.total(t), h)))
        nil_goal, step_goal = T.and_(*nil_parts), T.and_(*step_parts)
    ctx = Ctx(env=p.top_env)
    p.oblige(ctx, ObligationKind.ENTAILMENT, nil_goal, f"{name} []: the posterior is the prior",
             decl.span, "ObserveFold")
    p.oblige(ctx, ObligationKind.ENTAILMENT, step_goal, f"{name} (d :: dbs): the posterior of "
             "d :: dbs is one conjugate update of that of dbs", decl.span, "ObserveFold")
    lemma = CONJUGATE[family].lemma
    p.lemmas.add(lemma.replace("/k", f"/k={k}") if family == "categorical" else lemma)
    p.folds[name] = ("ObserveFold", _at(decl.span))


def _at(span: A.Span) -> Tuple[int, int, int, int]:
    return span.line, span.col, span.end_line, span.end_col
