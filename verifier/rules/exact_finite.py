"""ExactFinite: the claim of a finite closed definition, decided by exact calculation.

The relational rules couple the two runs' outputs as equal, which cannot prove a program
such as Warner's randomized response (``mlet heads = ran (bernoulli 0.5) in if heads then
return truth else ran (bernoulli 0.5)``, ln 3-DP for any two inputs): that needs a coupling
that differs between the runs. But when every parameter has a finite type and the body is
closed and finite, the claim can be decided by calculation: the output distribution is
computed exactly (rational probabilities) for every value of the parameters, and the claimed
bound is checked for every pair of values the val's refinements allow.

``ExactFinite(b, val, decl)`` is tried when the relational rules fail on a claim
(``verifier.verification``); it returns None when it does not apply, and the previous
failure stands. It applies when

* ``decl`` is not recursive, and every parameter of the val is ``bool`` or ``[k]``
  (refined or not), at most ``MAX_VALUATIONS`` valuations in all;
* the claim is ``M[F, delta] {r :: T | =}`` with ``T`` finite (``bool``, ``unit``, ``[k]``
  and tuples of them) and ``F`` one of DP, SD, HD, KL;
* the body, and the top-level definitions it uses (unfolded, with or without a val; none
  recursive), are in the finite fragment (``_Fragment``): literals, variables, tuples,
  ``let``, ``if``, ``fun``, application, arithmetic and comparisons, ``return``, ``mlet``,
  ``ran`` of ``bernoulli`` (whatever probability the program computes), ``fst``, ``snd``,
  ``abs``, ``min``, ``max`` — the fragment of the kernel's evaluator (``checker/finite.py``).
  (``categorical`` is left out: its argument has type ``[0,1]^k``, which no literal or
  arithmetic has, so a finite closed program cannot call it);
* the language's evaluator (``verifier/semantics``, the one ``privinfer run`` and ``audit``
  use) computes every output distribution with exact rationals (no float anywhere).

The obligations (``obligations.finite_laws``) state the claimed bound for every allowed pair
of parameter values at once, with the parameters' variables free, so that a false claim is
refuted with a counterexample naming the two runs' values; for DP with delta 0 there is one
obligation per outcome, naming it. The comparison with the claimed eps is rigorous: ``exp
eps`` is a closed term, which the obligations machinery encloses (docs/obligations.md).
The root is the usual ``Abs`` node (the parameters' assumptions, the claim's index) with the
``ExactFinite`` node as its only premise; the Safety premise is not needed, since every
range condition (a probability in [0, 1], no division by zero) was checked exactly on every
input by the evaluation. The node records the distributions, which the certificate kernel
recomputes with its own evaluator.
"""
from __future__ import annotations

import itertools
from fractions import Fraction
from typing import List, Optional, Sequence, Set, Tuple

from obligations import finite_laws as FL
from obligations import terms as T
from obligations.model import ObligationKind
from verifier.language import ast as A
from verifier.language.pretty import pretty_expr
from verifier.rules.builder import Builder
from verifier.rules.core_rules import abstraction, bind_parameters, make_claim
from verifier.rules.derivation import Derivation
from verifier.rules.refinements import refinement_parts, simple_of
from verifier.translation.translate import NoRule

#: the most parameter valuations the rule enumerates
MAX_VALUATIONS = 32
BUILTINS = frozenset({"bernoulli", "fst", "snd", "abs", "min", "max"})
OPERATORS = frozenset({"+", "-", "*", "/", "=", "<>", "<", "<=", ">", ">=", "&&", "||"})
#: simple types a pattern may be annotated with (the kernel's evaluator checks them)
ANNOTATIONS = frozenset({"bool", "unit", "int", "nat", "real", "real+", "[0,1]"})


def ExactFinite(b: Builder, val: A.ValDecl, decl: A.LetDecl) -> Optional[Derivation]:
    """The derivation of ``val`` by exact calculation, or None when the rule does not apply."""
    doms, rt = _arrow(val.rtype)
    domains = [_values(dom) for dom in doms]
    if decl.recursive or any(d is None for d in domains) or not isinstance(rt, A.RMonad) \
            or not _finite(refinement_parts(rt.body)[1]):
        return None
    valuations = list(itertools.product(*domains))
    used = _Fragment(b.program).definition(decl)
    if len(valuations) > MAX_VALUATIONS or used is None:
        return None
    try:
        ctx, val_env, parameters, body, rt = bind_parameters(b, val, decl)
        claim = make_claim(b, val_env, rt)
    except NoRule:
        return None
    out_type = simple_of(refinement_parts(rt.body)[1])
    laws = exact_laws(b.program, decl, used, valuations, out_type)
    if laws is None:
        return None
    params = [(p["left"], p["right"]) for p in parameters]
    try:
        goals = FL.goals(claim.family, claim.eps, claim.delta, params,
                         [(a, dict(law)) for a, law in zip(valuations, laws)])
    except (ValueError, T.SortError):  # too many pairs; an index the goals cannot state
        return None
    what = _description(rt, refinement_parts(rt.body)[0])
    obligations = [b.oblige(ctx, ObligationKind.ENTAILMENT, goal, what(outcome), body.span,
                            "ExactFinite") for outcome, goal in goals]
    node = b.node("ExactFinite", ctx, body.span,
                  f"the output distributions of {decl.name}, computed exactly for its "
                  f"{len(valuations)} parameter value(s)", obligations=obligations,
                  distributions=[{"inputs": [FL.outcome_text(v) for v in a],
                                  "law": [[o, f"{p.numerator}/{p.denominator}"] for o, p in law]}
                                 for a, law in zip(valuations, laws)])
    return abstraction(b, val, decl, ctx, [node], claim.as_judgement(), parameters)


def exact_laws(program: A.Program, decl: A.LetDecl, used: Set[int],
               valuations: Sequence[tuple], out_type: A.SimpleType
               ) -> Optional[List[Tuple[Tuple[str, Fraction], ...]]]:
    """The output distribution of ``decl`` at each valuation (``FL.canonical``), by the
    language's evaluator on the definitions it uses; None unless every probability is an
    exact rational and every outcome a finite value of ``out_type`` (the claim's)."""
    from verifier.errors import PrivInferError
    from verifier.semantics import monad
    from verifier.semantics.evaluator import Evaluator
    from verifier.semantics.values import UNIT, SymbolicEscape
    lets = program.lets()
    sub = A.Program(tuple(lets[i] for i in sorted(used)) + (decl,), program.file)

    def plain(v):
        if v is UNIT:
            return ()
        return tuple(plain(x) for x in v) if isinstance(v, tuple) else v

    laws = []
    try:
        evaluator = Evaluator(sub)
        for a in valuations:
            m = evaluator.call(decl.name, list(a))
            if not isinstance(m, monad.MValue):
                return None
            pmf = monad.enumerate_finite(m, decl.span).pmf()
            if not all(isinstance(p, (int, Fraction)) and not isinstance(p, bool)
                       for p in pmf.values()):
                return None  # a float: not exact
            if not all(A.finite_value_of(plain(v), out_type) for v, p in pmf.items() if p):
                return None  # an outcome outside the claimed type
            laws.append(FL.canonical((plain(v), Fraction(p)) for v, p in pmf.items()))
    except (PrivInferError, SymbolicEscape, ValueError, TypeError):
        return None
    return laws


def _arrow(rt: A.RType) -> Tuple[List[A.RType], A.RType]:
    doms = []
    while isinstance(rt, A.RArrow):
        doms.append(rt.dom)
        rt = rt.cod
    return doms, rt


def _values(dom: A.RType) -> Optional[list]:
    """The values of a parameter of type ``bool`` or ``[k]`` (refined or not), else None."""
    _, base, _ = refinement_parts(dom)
    t = base.type if isinstance(base, A.RSimple) else None
    if isinstance(t, A.TBase) and t.name == "bool":
        return [False, True]
    return list(range(t.k)) if isinstance(t, A.TFin) else None


def _finite(rt: A.RType) -> bool:
    """Whether ``rt`` is a finite simple type: ``bool``, ``unit``, ``[k]``, tuples of them."""
    def finite(t: A.SimpleType) -> bool:
        if isinstance(t, A.TTuple):
            return all(finite(i) for i in t.items)
        return isinstance(t, A.TFin) or (isinstance(t, A.TBase) and t.name in ("bool", "unit"))
    return isinstance(rt, A.RSimple) and finite(rt.type)


def _description(rt: A.RMonad, out: Optional[str]):
    """The description of the obligation of an outcome (DP, delta 0) or of the only one."""
    delta = pretty_expr(rt.delta) if rt.delta is not None else "0"
    pair = "for every two values of the parameters (exact output distributions)"
    if rt.div.kind == "DP" and rt.delta is None:
        eps = pretty_expr(rt.div.eps)
        return lambda o: (f"the output {out or 'r'} = {o} is at most exp ({eps}) times as likely "
                          f"in run 1 as in run 2, {pair}")
    what = {"DP": f"the hockey-stick divergence at eps = {pretty_expr(rt.div.eps)}"
                  if rt.div.eps is not None else "", "SD": "the total variation distance",
            "HD": "the Hellinger divergence (1 - Bhattacharyya coefficient)",
            "KL": "the Kullback-Leibler divergence"}[rt.div.kind]
    return lambda o: f"{what} of the output distributions is at most {delta}, {pair}"


class _Fragment:
    """Whether a definition is in the finite fragment (module docstring); ``definition``
    returns the positions of the top-level definitions it uses, or None."""

    class Outside(Exception):
        pass

    def __init__(self, program: A.Program):
        self.lets = program.lets()
        self.used: Set[int] = set()

    def definition(self, decl: A.LetDecl) -> Optional[Set[int]]:
        position = next(i for i, d in enumerate(self.lets) if d is decl)
        try:
            self.function(decl.params, decl.body, frozenset(), position)
        except self.Outside:
            return None
        return self.used

    def function(self, params, body: A.Expr, bound: frozenset, before: int) -> None:
        names = set(bound)
        for p in params:
            names |= self.pattern(p)
        self.expr(body, frozenset(names), before)

    def pattern(self, p: A.Pattern) -> Set[str]:
        if isinstance(p, (A.PVar, A.PWild)) and p.annot is not None \
                and not self.annotation(p.annot):
            raise self.Outside()
        if isinstance(p, A.PTuple):
            return set().union(*(self.pattern(i) for i in p.items))
        return {p.name} if isinstance(p, A.PVar) else set()

    def annotation(self, t: A.SimpleType) -> bool:
        if isinstance(t, A.TTuple):
            return all(self.annotation(i) for i in t.items)
        return isinstance(t, A.TFin) or (isinstance(t, A.TBase) and t.name in ANNOTATIONS)

    def var(self, name: str, bound: frozenset, before: int) -> None:
        if name in bound:
            return
        position = next((i for i in range(before - 1, -1, -1) if self.lets[i].name == name),
                        None)
        if position is None:
            if name not in BUILTINS:
                raise self.Outside()
            return
        if position not in self.used:
            decl = self.lets[position]
            if decl.recursive:
                raise self.Outside()
            self.used.add(position)
            self.function(decl.params, decl.body, frozenset(), position)

    def expr(self, e: A.Expr, bound: frozenset, before: int) -> None:
        if isinstance(e, (A.BoolLit, A.IntLit, A.RealLit, A.UnitLit)):
            return
        if isinstance(e, A.Var):
            return self.var(e.name, bound, before)
        if isinstance(e, (A.Let, A.MLet)):
            self.expr(e.value, bound, before)
            return self.function([e.pattern], e.body, bound, before)
        if isinstance(e, A.Fun):
            return self.function(e.params, e.body, bound, before)
        if (isinstance(e, A.BinOp) and e.op not in OPERATORS) or (
                isinstance(e, A.UnOp) and e.op not in ("-", "not")):
            raise self.Outside()
        if isinstance(e, (A.TupleLit, A.If, A.App, A.BinOp, A.UnOp, A.Return, A.Ran)):
            for child in A.children(e):
                self.expr(child, bound, before)
            return
        raise self.Outside()
