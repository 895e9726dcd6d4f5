"""The paper's Infer rule without a closed form (§5, Fig. 5): shared by the derivation builder
(``verifier.rules.infer_rule``) and the kernel (``checker.folds``).

``infer e`` is a deterministic function of what the model ``e`` reads: the first-order values
of its free variables, through the closures, stored computations and functions they are
bound to (the code itself is the same in both runs). So without knowing the posterior, the
verifier names it by an uninterpreted symbol ``infer'L<line>'C<col>`` applied to those values
in each run (``infer_symbol``): equal inputs give equal symbols, by congruence — the Infer
rule read at ``M[F, 0] {x | =}`` (a computation with equal inputs has divergence 0 for every
F, so the two inferred distributions are equal: ``{d :: D[T] | =}``, ``Delta[F] (d<1>, d<2>) <= 0``).
Inputs that differ leave two unrelated symbols: nothing is known of them.

``privinfer run`` must compute what was verified, so the model must be one it infers exactly
(``run_infers``): an ``observe`` chain (through calls of program functions, ``match`` and
stored computations) on ``ran`` of a finite distribution (exact sums) or of a ``beta`` /
``uniform`` prior observed through ``bernoulli`` likelihoods (the posterior kept as prior times
likelihood, ``verifier.semantics.posterior``, which ``run`` draws from exactly by rejection);
a draw is refused where the two runs' posteriors may differ (``draws_refused``).
"""
from __future__ import annotations

import hashlib
from typing import Callable, List, Optional, Set, Tuple

from obligations import terms as T
from verifier.language import ast as A
from verifier.language.free_vars import free_vars
from verifier.translation import logic as L
from verifier.translation.calls import flat_terms
from verifier.translation.symbolic import DistV, Env, Monadic, NamedFun, Scalar, SymValue
from verifier.translation.translate import NoRule, flatten_app, read_terms

PREFIX = "infer'"
#: the built-in mechanisms whose law ``run`` computes exactly (finite outputs)
FINITE_MECHANISMS = ("expMech", "hellingerMech", "hellingerMechPure")
#: the tag of the symbol of a call of a function with a val (``val_symbol_name``)
VAL_TAG = "v_"


def symbol_name(e: A.Expr, continuous: bool) -> str:
    """``infer'C<line>'<col>'<code>`` for a model of a continuous (beta) prior,
    ``infer'F…`` for a finite one; ``<code>`` is a digest
    of the model's code (its text in the resolved core), so that two models are one symbol
    only when their code is the same (the place alone could be shared by two codes)."""
    from verifier.language.pretty import pretty_expr
    code = hashlib.sha256(pretty_expr(e).encode()).hexdigest()[:12]
    return f"{PREFIX}{'C' if continuous else 'F'}{e.span.line}'{e.span.col}'{code}"


def draw_type(term: T.Term) -> Optional[A.SimpleType]:
    """What the draws of ``term`` are known to be when it is the symbol of a posterior of a
    continuous prior: ``[0,1]`` (run infers only ``beta`` and ``uniform`` priors without a
    closed form, and a posterior lies where its prior does); None otherwise."""
    if is_inferred(term) and term.func.name.startswith(PREFIX + "C"):
        return A.TBase("[0,1]")
    return None


def is_inferred(term: T.Term) -> bool:
    """``term`` is the symbol of an ``infer`` without closed form."""
    return isinstance(term, T.Apply) and term.func.name.startswith(PREFIX)


def draws_refused(term: T.Term) -> bool:
    """``term`` is the symbol of a posterior of a continuous prior whose model's val bounds
    its divergence (``val_symbol_name``): the two runs' posteriors may differ, and ``run``
    draws from such a posterior by rejection (``verifier.semantics.posterior``), whose rare
    failure (R012) has a probability that depends on the normaliser — on the data — which the
    bound on the posteriors does not cover. ``ran`` of it is refused. A posterior of equal
    inputs is the same in both runs, failure included: its draws are not refused."""
    return term.func.name.startswith(PREFIX + "C" + VAL_TAG) if is_inferred(term) else False


def val_symbol_name(name: str, continuous: bool) -> str:
    """The symbol of ``infer (f a1 … an)`` for a program function ``f`` with a val returning
    ``M[F, δ] {x :: T | =}``, applied to all its parameters, all first-order: a function of the
    arguments alone (``f``'s code is fixed), about which the val says ``Delta[F] <= δ`` (the
    Infer rule's bound: ``infer_fact`` in the builder's and the kernel's call facts)."""
    return (f"{PREFIX}{'C' if continuous else 'F'}{VAL_TAG}"
            + name.replace("'", "'q").replace("#", "'h"))


def val_model_name(symbol: str) -> Optional[str]:
    """The function ``f`` of the symbol ``val_symbol_name(f, _)``, else None."""
    head = PREFIX + "C" + VAL_TAG, PREFIX + "F" + VAL_TAG
    if not symbol.startswith(head):
        return None
    return symbol[len(head[0]):].replace("'h", "#").replace("'q", "'")


def is_val_model(term: T.Term) -> bool:
    """``term`` is the posterior of a call of a val (``val_symbol_name``)."""
    return isinstance(term, T.Apply) and val_model_name(term.func.name) is not None


def val_call(e: A.Expr, env: Env, run: int, val_of: Callable[[str], Optional[A.ValDecl]]
             ) -> Optional[Tuple[str, List[A.Expr]]]:
    """``e`` is ``f a1 … an``, ``f`` a top-level function (not shadowed) whose val takes ``n``
    parameters and returns ``M[F, δ] {x :: T | =}``: ``(f, [a1, …, an])``."""
    head, args = flatten_app(e)
    if not isinstance(head, A.Var) or head is e:
        return None
    pair = env.lookup(head.name)
    fn = pair[run - 1 if run else 0] if pair else None
    val = val_of(head.name)
    if not isinstance(fn, NamedFun) or fn.args or val is None:
        return None
    rt, n = val.rtype, 0
    while isinstance(rt, A.RArrow):
        rt, n = rt.cod, n + 1
    if n != len(args) or not isinstance(rt, A.RMonad) or not says_equal_only(rt.body):
        return None
    return head.name, list(args)


def says_equal_only(rt: A.RType) -> bool:
    """``rt`` is ``{x :: T | =}`` (the relation of the Infer rule's premise)."""
    return isinstance(rt, A.RRefine) and isinstance(rt.assertion, A.SameRuns)



def model_inputs(e: A.Expr, run: int, env: Env) -> List[T.Term]:
    """The first-order values model ``e`` reads in run ``run`` (``run`` 0: the one-run walk
    of Safety), as terms in a fixed order, through closures, functions and stored
    computations; ``NoRule`` for a computation known only by its type (a parameter
    ``M[...]``), which the symbol could not name."""
    return read_terms(e, set(), env, run, e.span, "infer without a closed form of a model",
                      computations=True)


def model_call(tr, e: A.Expr, run: int, env: Env, val_of) -> Optional[Tuple[str, List[SymValue]]]:
    """``val_call`` with the values of the arguments in run ``run`` (translator ``tr``)."""
    call = val_call(e, env, run, val_of)
    return None if call is None else (call[0], [tr.expr(a, run, env) for a in call[1]])


def infer_symbol(e: A.Expr, run: int, env: Env, continuous: bool,
                 call: Optional[Tuple[str, List[SymValue]]] = None) -> Scalar:
    """``infer e`` as the symbol of the Infer rule in run ``run`` (``continuous``: what
    ``run_infers`` says of the model): of the model's inputs, or, for ``call`` (``f`` and the
    values of its arguments, when ``val_call`` says so and they are first-order), of the
    arguments (``val_symbol_name``)."""
    flat = [flat_terms(v) for v in call[1]] if call is not None else [None]
    if call is not None and None not in flat:
        args = tuple(t for part in flat for t in part)
        name = val_symbol_name(call[0], continuous)
    else:
        args, name = tuple(model_inputs(e, run, env)), symbol_name(e, continuous)
    return Scalar(T.FuncDecl(name, tuple(a.sort for a in args), L.DIST)(*args))


def run_infers(e: A.Expr, env: Env, run: int, lets: Callable[[str], Optional[A.LetDecl]],
               dist_of: Callable[[A.Expr, Env], object]) -> bool:
    """``NoRule`` unless ``privinfer run`` infers model ``e`` exactly (module docstring);
    whether its prior is continuous (a beta: its posterior is enclosed, not summed).
    ``lets(name)``: a program function's definition; ``dist_of(expr, env)``: the value of pure
    ``expr`` (a ``DistV`` when its family is known)."""
    side = run - 1 if run else 0
    visiting: Set[str] = set()

    def refuse(why: str, at: A.Expr):
        raise NoRule("infer without a closed form needs a model privinfer run infers exactly "
                     "(observe with bernoulli likelihoods on a beta or uniform prior, or on a "
                     f"finite prior): {why}", at.span)

    def model(m: A.Expr, where: Env, continuous: Optional[bool]) -> bool:
        """Checks ``m``; returns whether its law is continuous (a beta prior)."""
        if isinstance(m, A.Ran):
            d = dist_of(m.value, where)
            if not isinstance(d, DistV):
                refuse("a prior whose family is not known", m)
            if d.family in ("bernoulli", "categorical"):
                return False
            if d.family == "beta":
                return True
            refuse(f"a {d.family} prior", m)
        if isinstance(m, A.Observe):
            cont = model(m.prior, where, continuous)
            if cont and not _bernoulli_likelihood(m.likelihood):
                refuse("on a beta prior, the likelihood must be fun r -> mlet z = ran "
                       "(bernoulli P) in return (D = z) (or z = D)", m.likelihood)
            return cont
        if isinstance(m, A.Match):
            kinds = {model(body, where, continuous) for body in (m.nil_body, m.cons_body)}
            return True in kinds
        if isinstance(m, A.Var):
            pair = where.lookup(m.name)
            v = pair[side] if pair else None
            if isinstance(v, Monadic) and v.expr is not None:
                return model(v.expr, v.env, continuous)
            if v is not None and continuous is not None:  # a parameter of a function: the
                return continuous                         # prior the caller passes
            refuse(f"{m.name} is not a computation the verifier sees", m)
        if isinstance(m, (A.Return, A.MLet, A.Let, A.If)):
            # finite parts only: run enumerates them (a continuous law bound by mlet has no
            # exact law in general)
            parts = {A.Return: (), A.MLet: (m.value, m.body) if isinstance(m, A.MLet) else (),
                     A.Let: (m.body,) if isinstance(m, A.Let) else (),
                     A.If: (m.then, m.else_) if isinstance(m, A.If) else ()}[type(m)]
            if any(model(part, where, continuous) for part in parts):
                refuse("a continuous law inside mlet, let or if", m)
            return False
        head, args = flatten_app(m)
        if isinstance(head, A.Var) and m is not head and where.lookup(head.name) is None \
                and head.name in FINITE_MECHANISMS:  # a built-in mechanism of finite law
            return False
        if isinstance(head, A.Var) and m is not head:
            decl = lets(head.name)
            if decl is None or len(decl.params) != len(args):
                refuse("a call of a function that is not a program function applied to all "
                       "its parameters", m)
            priors = [a for a in args if _is_computation(a, where, side)]
            if len(priors) > 1:
                refuse("a call that passes several priors", m)
            cont = model(priors[0], where, continuous) if priors else None
            if head.name in visiting:
                return bool(cont)
            visiting.add(head.name)
            inner = Env()
            for p, a in zip(decl.params, args):
                if isinstance(p, A.PVar):
                    marker = Monadic(None, None) if priors and a is priors[0] \
                        else Scalar(T.boolean(True))
                    inner = inner.bind(p.name, marker, marker)
            result = model(decl.body, inner, cont)
            visiting.discard(head.name)
            return result
        refuse(f"{type(m).__name__.lower()} in the model", m)

    return model(e, env, None)


def _is_computation(a: A.Expr, env: Env, side: int) -> bool:
    if isinstance(a, (A.Ran, A.Observe, A.MLet, A.Return)):
        return True
    if isinstance(a, A.Var):
        pair = env.lookup(a.name)
        return bool(pair) and isinstance(pair[side], Monadic)
    return False


def _bernoulli_likelihood(lik: A.Expr) -> bool:
    """``fun r -> mlet z = ran (bernoulli P) in return (D = z)`` (or ``z = D``), D not reading
    ``z``: the likelihood of ``r`` is a probability (in [0, 1])."""
    if not (isinstance(lik, A.Fun) and len(lik.params) == 1):
        return False
    body = lik.body
    if not (isinstance(body, A.MLet) and isinstance(body.pattern, A.PVar)
            and isinstance(body.value, A.Ran) and isinstance(body.body, A.Return)):
        return False
    draw = body.value.value
    if not (isinstance(draw, A.App) and isinstance(draw.fn, A.Var) and draw.fn.name == "bernoulli"):
        return False
    z, ret = body.pattern.name, body.body.value
    if ret == A.Var(z):
        return True
    if not (isinstance(ret, A.BinOp) and ret.op == "=" and A.Var(z) in (ret.left, ret.right)):
        return False
    datum = ret.right if ret.left == A.Var(z) else ret.left
    return z not in free_vars(datum)
