"""Closed-form posteriors of observe-folds (the ObserveFold rule).

An *observe-fold* is a structurally recursive function over a data list whose nil case
returns the prior and whose cons case observes the head with a conjugate likelihood, either
on the recursive result (fold right)::

    let rec f db prior = match db with
      | [] -> prior
      | d :: dbs -> observe (fun r -> mlet z = ran (bernoulli r) in return (d = z)) (f dbs prior)

(also ``mlet rec = f dbs prior in observe (...) rec``, which the parser reads so) or on the prior, which the recursive
call then carries as an accumulator (fold left, a tail-recursive learner)::

      | d :: dbs -> f dbs (observe (fun r -> mlet z = ran (bernoulli r) in return (d = z)) prior)

(also ``let p = observe (...) prior in f dbs p``). Other parameters are passed through
unchanged, in any order. For such an ``f``, ``infer (f l (ran P))`` is computed by induction on
``l`` with the conjugacy lemmas — not by the data-processing argument of the paper, which is
unsound for conditioning (NOTES.md §2). Both shapes have the same closed form (conjugate updates
commute: the posterior depends on the data only through its statistics):

* beta–bernoulli: ``Beta(a, b)`` ↦ ``Beta(a + count l, b + length l − count l)``;
* dirichlet–categorical: ``Dir(a_1..a_k)`` ↦ ``Dir(a_j + countOf (l, j))``;
* normal–normal with known variance V: ``N(m, v)`` ↦ ``N(m_n, v_n)`` with
  ``v_n = 1 / (1/v + length l / V)`` and ``m_n = v_n (m/v + sum l / V)``.

The induction itself is a derivation (nil and cons cases) recorded once per function in
``Builder.folds``; for an accumulator it is generalised over the prior (``_record_induction``).
A function that is not exactly of one of these shapes is refused with the reason
(``fold_shape``).
"""
from __future__ import annotations

from typing import List, Optional, Tuple, Union

from obligations import terms as T
from obligations.model import ObligationKind
from obligations.records import record
from verifier.language import ast as A
from verifier.language.builtins import CONJUGATE as CATALOGUE_CONJUGATE
from verifier.language.pretty import pretty_expr
from verifier.language.resolve import written
from verifier.language.unfold import Lookup, unfold_function
from verifier.translation import logic as L
from verifier.rules.context import Ctx
from verifier.translation.symbolic import DistV, Env, Monadic, NamedFun
from obligations.conjugacy import posterior
from verifier.translation.translate import NoRule, bind_pattern, flatten_app

#: likelihood family -> (conjugate prior family, conjugacy lemma)
#: likelihood family -> (conjugate prior family, conjugacy lemma): the catalogue's
CONJUGATE = {c.likelihood: (c.prior, c.lemma) for c in CATALOGUE_CONJUGATE.values()}


@record
class FoldSpec:
    name: str
    params: Tuple[str, ...]
    data: int            # index of the list parameter
    prior: Optional[int]  # index of the prior parameter (None: the [] case builds the prior)
    family: str          # likelihood family
    variance: Optional[A.Expr]  # the known variance (normal), over the parameters
    accumulator: bool = False   # the prior is updated before the recursive call (fold left)
    nil_prior: Optional[A.Expr] = None  # the prior the [] case builds, over the parameters


def _no_lets(name: str) -> Optional[A.LetDecl]:
    return None


def fold_shape(decl: A.LetDecl, lets: Lookup = _no_lets) -> Union[FoldSpec, str]:
    """The fold structure of ``decl``, or why it is not an observe-fold. ``lets`` finds the
    program's top-level definitions: a likelihood written through a helper is read through
    its definition (``verifier.language.unfold``)."""
    if not decl.recursive or not decl.params \
            or not all(isinstance(p, A.PVar) for p in decl.params):
        return "it is not a recursive function whose parameters are names"
    params = tuple(p.name for p in decl.params)
    body = decl.body
    if not (isinstance(body, A.Match) and isinstance(body.scrutinee, A.Var)
            and body.scrutinee.name in params):
        return "its body is not a match on a parameter (the data)"
    data = params.index(body.scrutinee.name)
    nil_prior: Optional[A.Expr] = None
    if isinstance(body.nil_body, A.Var) and body.nil_body.name in params:
        if body.nil_body == body.scrutinee:
            return "its [] case returns the data, not a prior"
        prior: Optional[int] = params.index(body.nil_body.name)
    elif _names(body.nil_body) & {decl.name, body.scrutinee.name, body.head, body.tail}:
        return ("its [] case neither returns a parameter (the prior) nor builds a prior from "
                "the parameters other than the data")
    else:
        prior, nil_prior = None, body.nil_body
    # decl is of the resolved core: no binder hides another, and names compare as binders
    case = _cons_case(decl, params, data, prior, body.head, body.tail, body.cons_body)
    if isinstance(case, str):
        return case
    lik, accumulator = case
    shape = likelihood_shape(unfold_function(lik, lets), body.head)
    if shape is None:
        return (f"its likelihood is not fun r -> mlet z = ran (F r) in return "
                f"({written(body.head)} = z) with F bernoulli or categorical, or ran (normal "
                "(r, V)) with V a known variance")
    family, variance = shape
    moving = {body.head, body.tail, decl.name, params[data]} | (
        {params[prior]} if prior is not None else set())
    if variance is not None and moving & _names(variance):
        return ("the known variance of its likelihood depends on the data or the prior, which "
                "change along the recursion")
    return FoldSpec(decl.name, params, data, prior, family, variance, accumulator, nil_prior)


def _cons_case(decl: A.LetDecl, params: Tuple[str, ...], data: int, prior: Optional[int],
               head_name: str, tail: str, cons: A.Expr) -> Union[Tuple[A.Expr, bool], str]:
    """The likelihood observed by the :: case and whether it is an accumulator, or why the
    case is neither ``observe L (f dbs prior)`` (also ``mlet r = f dbs prior in observe L r``, which the parser reads so)
    nor ``f dbs (observe L prior)`` (also ``let p = observe L prior in f dbs p``), with the
    other parameters passed through unchanged. Without a prior parameter (the ``[]`` case
    builds the prior) only the first form is a fold."""
    me = A.Var(decl.name)
    acc = A.Var(params[prior]) if prior is not None else None
    if isinstance(cons, A.Observe):
        lik, call, passed, accumulator = cons.likelihood, cons.prior, acc, False
    elif prior is None:
        return (f"its :: case is not observe L ({written(decl.name)} ... {written(tail)} ...), "
                "and it has no prior parameter to update")
    elif isinstance(cons, A.Let) and isinstance(cons.pattern, A.PVar) \
            and isinstance(cons.value, A.Observe) and cons.value.prior == acc:
        bound = cons.pattern.name
        lik, call, passed, accumulator = cons.value.likelihood, cons.body, A.Var(bound), True
    else:
        head, args = flatten_app(cons)
        updated = args[prior] if head == me and len(args) == len(params) else None
        if not isinstance(updated, A.Observe):
            f, t, p = written(decl.name), written(tail), written(params[prior])
            return (f"its :: case is neither observe L ({f} ... {t} ...) nor "
                    f"{f} ... {t} ... (observe L {p})")
        lik, call, passed, accumulator = updated.likelihood, cons, A.Observe(
            updated.likelihood, acc), True
    head, args = flatten_app(call)
    if head != me or len(args) != len(params):
        return (f"its :: case does not call {written(decl.name)} on all its {len(params)} "
                "arguments")
    for i, arg in enumerate(args):
        want = A.Var(tail) if i == data else passed if i == prior else A.Var(params[i])
        if arg != want:
            what = ("the tail" if i == data else "the updated prior" if i == prior and accumulator
                    else "the prior" if i == prior else "unchanged")
            other = " (another binder of that name)" if _show(arg) == _show(want) else ""
            return (f"its recursive call passes {_show(arg)}{other} as {written(params[i])}, "
                    f"not {_show(want)} ({what})")
    return lik, accumulator


def likelihood_shape(lik: A.Expr, datum: str) -> Optional[Tuple[str, Optional[A.Expr]]]:
    """``fun r -> mlet z = ran (F r ...) in return (datum = z)``: (F, known variance or None).
    Neither binder may hide ``datum`` (``return (d = d)`` would observe nothing)."""
    parts = likelihood_parts(lik)
    if parts is None or parts[2] != A.Var(datum):
        return None
    return parts[0], parts[1]


def likelihood_parts(lik: A.Expr) -> Optional[Tuple[str, Optional[A.Expr], A.Expr]]:
    """``fun r -> mlet z = ran (F r ...) in return (D = z)`` (or ``z = D``) with a conjugate
    ``F``: (F, the known variance or None, the observed datum D). D mentions neither ``r``
    nor ``z``, and the variance does not mention ``r``."""
    if not (isinstance(lik, A.Fun) and len(lik.params) == 1 and isinstance(lik.params[0], A.PVar)):
        return None
    r = lik.params[0].name
    body = lik.body
    if not (isinstance(body, A.MLet) and isinstance(body.pattern, A.PVar)
            and isinstance(body.value, A.Ran) and isinstance(body.body, A.Return)):
        return None
    z = body.pattern.name
    ret = body.body.value
    if not (isinstance(ret, A.BinOp) and ret.op == "=" and A.Var(z) in (ret.left, ret.right)):
        return None
    datum = ret.right if ret.left == A.Var(z) else ret.left
    if {r, z} & _names(datum) or z == r:
        return None
    call = body.value.value
    if not (isinstance(call, A.App) and isinstance(call.fn, A.Var)):
        return None
    family = call.fn.name
    if family in ("bernoulli", "categorical") and call.arg == A.Var(r):
        return family, None, datum
    if family == "normal" and isinstance(call.arg, A.TupleLit) and len(call.arg.items) == 2 \
            and call.arg.items[0] == A.Var(r) and r not in _names(call.arg.items[1]):
        return family, call.arg.items[1], datum
    return None


def _show(e: A.Expr, limit: int = 40) -> str:
    """``e`` printed on one line for a message (an observe without its likelihood)."""
    if isinstance(e, A.Observe):
        return f"observe L ({_show(e.prior, limit)})"
    text = written(" ".join(pretty_expr(e).split()))
    return text if len(text) <= limit else text[:limit - 1] + "…"


def _names(e: A.Expr) -> set:
    from verifier.language.free_vars import free_vars
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
    if isinstance(e, A.Observe):
        return _observe_posterior(b, e, run, env)
    if isinstance(e, A.Var):  # a computation stored by let: infer what it is bound to
        pair = env.lookup(e.name)
        stored = pair[run - 1 if run else 0] if pair else None
        if isinstance(stored, Monadic) and stored.expr is not None:
            return infer_closed_form(b, stored.expr, run, stored.env)
    head, args = flatten_app(e)
    why = ""
    if isinstance(head, A.Var):
        pair = env.lookup(head.name)
        fn = pair[run - 1 if run else 0] if pair else None
        if isinstance(fn, NamedFun):
            decl = b.let_of(head.name)
            spec = fold_shape(decl, b.let_of) if decl is not None else "it has no definition"
            if isinstance(spec, FoldSpec) and len(args) != len(spec.params):
                spec = f"it takes {len(spec.params)} arguments, not {len(args)}"
            if isinstance(spec, FoldSpec):
                return _fold_posterior(b, spec, decl, args, run, env, e)
            why = f"; {written(head.name)} is not an observe-fold: {spec}"
    raise NoRule("infer needs a closed form: the verifier knows ran of a distribution and "
                 "observe-folds with a conjugate likelihood (beta-bernoulli, "
                 "dirichlet-categorical, normal-normal with known variance)" + why, e.span)


def _fold_posterior(b, spec: FoldSpec, decl: A.LetDecl, args, run: int, env: Env,
                    e: A.Expr) -> DistV:
    tr = b.translator

    def call_env(skip: Optional[int]) -> Env:
        """The environment of the call's body: its parameters (but ``skip``) bound."""
        bound = env
        for i, (name, arg) in enumerate(zip(spec.params, args)):
            if i != skip:
                value = tr.expr(arg, run, env)
                bound = bind_pattern(bound, A.PVar(name), value, value, arg.span)
        return bound

    if spec.prior is not None:
        prior_arg = args[spec.prior]
        prior = infer_closed_form(b, prior_arg, run, env)
    else:  # the [] case builds the prior from the parameters passed along unchanged
        prior_arg = spec.nil_prior
        prior = infer_closed_form(b, prior_arg, run, call_env(spec.data))
    data = tr.term(args[spec.data], run, env)
    expected, lemma = CONJUGATE[spec.family]
    if prior.family != expected:
        raise NoRule(f"{spec.name} observes a {spec.family} likelihood, which is conjugate to a "
                     f"{expected} prior, not to {prior.family}", prior_arg.span)
    if spec.family == "categorical" and L.fin_size(L.list_key_of(data.sort)) != len(prior.params):
        raise NoRule(f"the data of {spec.name} must be a [{len(prior.params)}] list for this "
                     "prior", e.span)
    _record_induction(b, spec, decl, lemma, data.sort)
    variance = None
    if spec.variance is not None:
        variance = tr.term(spec.variance, run, call_env(spec.prior))
        tr._check(T.gt(variance, 0), f"the known variance of {spec.name} is positive",
                  spec.variance.span, run)
    return _dist(expected, posterior(spec.family, prior.params, data, variance),
                 f"observe-fold {spec.name}")


def _observe_posterior(b, e: A.Observe, run: int, env: Env) -> DistV:
    """``observe L prior`` with a conjugate likelihood ``L`` of one datum ``D`` and a prior
    whose closed form is known: the posterior after the one-element list ``[D]``, by the
    conjugacy lemma (the Observe rule discharged by calculation, not by data processing:
    NOTES.md §2)."""
    tr = b.translator
    parts = likelihood_parts(unfold_function(e.likelihood, b.let_of))
    if parts is None:
        raise NoRule("infer of an observe needs a conjugate likelihood fun r -> mlet z = ran "
                     "(bernoulli r | categorical r | normal (r, v)) in return (d = z), with d "
                     "and v not depending on r or z", e.likelihood.span)
    family, variance_expr, datum = parts
    prior = infer_closed_form(b, e.prior, run, env)
    expected, lemma = CONJUGATE[family]
    if prior.family != expected:
        raise NoRule(f"a {family} likelihood is conjugate to a {expected} prior, not to "
                     f"{prior.family}", e.prior.span)
    d = tr.term(datum, run, env)
    if family == "categorical":
        k = len(prior.params)
        if d.sort != T.INT:
            raise NoRule(f"the observed value must be one of the {k} categories", datum.span)
        # another value would be observed with probability 0: no posterior
        tr._check(T.and_(T.ge(d, 0), T.lt(d, k)), f"the observed value is one of the {k} "
                  "categories of the prior", datum.span, run)
        key = f"fin{k}"
    else:
        key = "bool" if family == "bernoulli" else "real"
    one = L.cons(T.to_real(d) if key == "real" and d.sort == T.INT else d,
                 L.nil(L.list_sort(key)))
    variance = None
    if variance_expr is not None:
        variance = tr.term(variance_expr, run, env)
        tr._check(T.gt(variance, 0), "the known variance of the likelihood is positive",
                  variance_expr.span, run)
    if family == "categorical":
        lemma = lemma.replace("/k", f"/k={len(prior.params)}")
    where = f"observe@{e.span.line}:{e.span.col}"
    if where not in b.folds:
        b.folds[where] = b.node("Observe", None, e.span, f"observe at line {e.span.line}: one "
                                f"conjugate update of the {expected} prior", family=family,
                                lemma=lemma)
    return _dist(expected, posterior(family, prior.params, one, variance),
                 f"observe at line {e.span.line}")


def _dist(family: str, params, origin: str) -> DistV:
    return DistV(family, tuple(params), L.dist_ctor(family, tuple(params)), origin)


def _record_induction(b, spec: FoldSpec, decl: A.LetDecl, lemma: str, lst: T.Sort) -> None:
    """The induction proving the closed form, once per fold function, as a node whose
    obligations are its nil and cons cases.

    Fold right (``observe L (f dbs P)``): the statistics the closed form uses (count, countOf,
    sum, length) are 0 on [] and unfold on d :: dbs, which with the one-step conjugacy lemma
    is the inductive step.

    Accumulator (``f dbs (observe L P)``): the prior changes along the recursion, so the
    statement proved is generalised over it — for every prior P of the family,
    ``infer (f l (ran P))`` is ``post(P, l)``. Nil: ``post(P, []) = P``. Cons: the one-step
    update ``P' = post(P, [d])`` (the list lemma at one datum) is again a prior of the family,
    and the induction hypothesis at P' closes the case: ``post(P', dbs) = post(P, d :: dbs)``.
    Both are stated over fresh prior parameters (and a fresh known variance), under the
    conditions that make P a prior of the family."""
    if spec.name in b.folds:
        return
    key = L.list_key_of(lst)
    t = b.fresh("dbs", lst)
    h = b.fresh("d", L.elem_sort(key))
    nil = L.nil(lst)
    if spec.accumulator:
        nil_goal, step_goal = _accumulator_cases(b, spec.family, L.fin_size(key), h, t, nil)
        shape = "induction on the data, generalised over the prior"
        step_text = ("one conjugate update of the prior, then the posterior of dbs, is the "
                     "posterior of d :: dbs")
    else:
        nil_goal, step_goal = _statistics_cases(spec.family, L.fin_size(key), h, t, nil)
        shape = "induction on the data"
        step_text = "one conjugate update of the posterior of dbs is the posterior of d :: dbs"
    ctx = Ctx(env=b.top_env)
    obligations = [
        b.oblige(ctx, ObligationKind.ENTAILMENT, nil_goal,
                 f"{spec.name} []: the posterior is the prior", decl.span,
                 "ObserveFold"),
        b.oblige(ctx, ObligationKind.ENTAILMENT, step_goal,
                 f"{spec.name} (d :: dbs): {step_text}", decl.span, "ObserveFold"),
    ]
    b.folds[spec.name] = b.node("ObserveFold", None, decl.span,
                                f"{spec.name} computes the {CONJUGATE[spec.family][0]} "
                                f"posterior in closed form ({shape})",
                                obligations=obligations, function=spec.name, family=spec.family,
                                lemma=lemma.replace("/k", f"/k={L.fin_size(key)}"))


def _statistics_cases(family: str, k: Optional[int], h: T.Term, t: T.Term,
                      nil: T.Term) -> Tuple[T.Term, T.Term]:
    """Fold right: the statistics are 0 on [] and unfold on ``h :: t``."""
    cons = L.cons(h, t)
    nil_parts = [T.eq(L.length(nil), 0)]
    step_parts = [T.eq(L.length(cons), T.add(L.length(t), 1))]
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
    return T.and_(*nil_parts), T.and_(*step_parts)


def _accumulator_cases(b, family: str, k: Optional[int], h: T.Term, t: T.Term,
                       nil: T.Term) -> Tuple[T.Term, T.Term]:
    """Accumulator: ``post(P, []) = P`` and ``P' = post(P, [h])`` is a prior of the family with
    ``post(P', t) = post(P, h :: t)``, for fresh parameters of P (and known variance) that
    make P a prior of the family."""
    names = {"bernoulli": ("a", "b"), "categorical": tuple(f"a{j + 1}" for j in range(k or 0)),
             "normal": ("m", "v")}[family]
    prior = tuple(b.fresh(n, T.REAL) for n in names)
    variance = b.fresh("kv", T.REAL) if family == "normal" else None
    first = 1 if family == "normal" else 0  # a normal's mean is any real, its variance > 0
    valid = [T.gt(x, 0) for x in prior[first:]]
    if variance is not None:
        valid.append(T.gt(variance, 0))

    def same(xs, ys) -> List[T.Term]:
        return [T.eq(x, y) for x, y in zip(xs, ys)]

    step = posterior(family, prior, L.cons(h, nil), variance)
    nil_goal = T.and_(*same(posterior(family, prior, nil, variance), prior))
    step_goal = T.and_(*[T.gt(x, 0) for x in step[first:]],
                       *same(posterior(family, step, t, variance),
                             posterior(family, prior, L.cons(h, t), variance)))
    return T.implies(T.and_(*valid), nil_goal), T.implies(T.and_(*valid), step_goal)
