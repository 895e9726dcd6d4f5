"""Proof artifacts: their format and the re-checker.

An artifact is a JSON object (format ``privinfer-lemma-artifact/1``, documented in
``docs/lemmas.md``) holding a lemma's statement and a list of steps. ``recheck(artifact)``
re-runs every step from scratch and accepts the artifact only if

* it is well formed, every symbol is declared with a sort, every formula parses;
* every step re-checks (see the step kinds below);
* the steps form a single derivation: every step but the last is used by a later one, and the
  last is ``qed`` (status ``proved``: the conclusion follows from the hypotheses and earlier
  steps, checked by Z3) or ``cite`` (status ``literature`` or ``disputed``: the statement is
  taken from its source; any supporting steps are checked but prove only what they say).

Step kinds and how each is checked:

``identity``        ``Eq(lhs, rhs)`` for all values of its symbols (within their sorts):
                    sympy brings ``lhs - rhs`` to 0 with the named method. With ``rewrite``
                    (a list of premises that are equations ``u = w``, whose conditions Z3
                    discharges), every ``u`` is first replaced by ``w`` in the claim.
``integral_scale``  ``Eq(I1, K*I2)`` for two integrals over the same domain (the simplex or the
                    real line), ``K`` free of the integration variables: the integrands are
                    compared pointwise with sympy, the variables being positive (simplex) or
                    real (line). On the simplex the variables are treated as *independent*
                    positive numbers, which proves more than needed.
``positive``        ``e > 0`` or ``e >= 0``: sympy's assumption system decides it from the sorts.
``enclosure``       a closed inequality (or a conjunction): certified with Arb ball arithmetic.
``fact``            a standard fact from the table ``FACTS`` below; trusted, and listed in the
                    result's trust base. The artifact cannot change what a fact says.
``lemma``           another lemma of the library, with its statement; trusted here and listed in
                    ``CheckResult.cites`` (the library check verifies it against the registry).
``bayes``           ``Posterior(prior, likelihood) = posterior``: prior density × likelihood
                    is proportional to the posterior density (equal logarithmic derivatives in
                    every integration variable, all three positive), by Bayes' rule.
``monotone``        from ``Derivative(F(v), v) > 0`` for ``v > 0`` (an earlier step) to
                    ``Implies(u <= w, F(u) <= F(w))`` (or with ``<``) for a defined function ``F``
                    (mean value theorem; ``F``'s body is differentiable on (0, ∞)).
``smt``             the claim follows from the premises (earlier steps, possibly instantiated)
                    and its ``where`` conditions: Z3 refutes the negation (see ``lemmas.smt``).
``qed``             like ``smt`` with claim "hypotheses ⇒ conclusion" of the statement.
``cite``            the literature source of the statement (last step of unproved artifacts).

A premise is a step id or ``{"step": id, "at": {symbol: term}}``, which instantiates the step's
universally quantified symbols; the sort constraints of the substituted terms (and, for integer
sorts, ``IsInteger(term)`` unless sympy sees that the term is an integer) become hypotheses of
the instance.

This module imports nothing from ``verifier``: the independent certificate checker uses it.
"""
from __future__ import annotations

import json
import time
from dataclasses import dataclass
from typing import Any, Dict, List, Mapping, Optional, Tuple

import sympy as sp
from sympy.core.function import AppliedUndef

from lemmas import arbeval, exprs, smt

FORMAT = "privinfer-lemma-artifact/1"
STATUSES = ("proved", "literature", "disputed")
STEP_KINDS = ("identity", "integral_scale", "positive", "enclosure", "fact", "lemma", "bayes",
              "monotone", "smt", "qed", "cite")


# --------------------------------------------------------------------------------------------
# results

@dataclass(frozen=True)
class StepResult:
    """The outcome of re-checking one step."""

    id: str
    kind: str
    ok: bool
    reason: str = ""
    seconds: float = 0.0


@dataclass(frozen=True)
class CheckResult:
    """The outcome of ``recheck``.

    ``ok`` is True when every step re-checked and the derivation is complete. ``trusted``
    lists what the artifact relies on without proof: fact ids, rule ids, and — for literature
    or disputed lemmas — the lemma's own citation. ``cites`` lists the lemma ids it cites
    together with the statements it assumed for them.
    """

    ok: bool
    lemma: str
    status: str
    reason: str
    steps: Tuple[StepResult, ...] = ()
    trusted: Tuple[str, ...] = ()
    cites: Tuple[Tuple[str, str], ...] = ()
    seconds: float = 0.0

    def __bool__(self) -> bool:
        return self.ok

    def to_json(self) -> Dict[str, Any]:
        return {
            "ok": self.ok, "lemma": self.lemma, "status": self.status, "reason": self.reason,
            "trusted": list(self.trusted), "cites": [c for c, _ in self.cites],
            "seconds": round(self.seconds, 3),
            "steps": [{"id": s.id, "kind": s.kind, "ok": s.ok, "reason": s.reason,
                       "seconds": round(s.seconds, 3)} for s in self.steps],
        }


class ArtifactError(ValueError):
    """A malformed artifact or a step that does not re-check."""


# --------------------------------------------------------------------------------------------
# facts: the only statements an artifact may assume

@dataclass(frozen=True)
class Fact:
    """A standard mathematical fact, with its source. Its symbols are universally quantified."""

    id: str
    symbols: Tuple[Tuple[str, str], ...]
    claim: str
    source: str

    def table(self) -> Dict[str, sp.Symbol]:
        return exprs.symbols_of(self.symbols)

    def formula(self) -> sp.Basic:
        return exprs.parse(self.claim, self.table())


_PQ = (("p", "dist"), ("q", "dist"))

_STATIC_FACTS = [
    Fact("def.hellinger", _PQ, "Eq(Hellinger(p, q), sqrt(1 - BC(p, q)))",
         "definition of the Hellinger distance (LANGUAGE.md `hellinger`; NOTES.md §3)"),
    Fact("def.hd", _PQ, "Eq(HD(p, q), 1 - BC(p, q))",
         "Table 1 (HD = (1/2) sum (sqrt p - sqrt q)^2) summed with sum p = sum q = 1; "
         "per-term identity: lemma fdiv.hd.one_minus_bc"),
    Fact("bc.range", _PQ, "(BC(p, q) >= 0) & (BC(p, q) <= 1)",
         "Cauchy-Schwarz: sum sqrt(p q) <= sqrt(sum p) sqrt(sum q) = 1"),
    Fact("bc.symmetric", _PQ, "Eq(BC(p, q), BC(q, p))", "definition of BC"),
    Fact("bc.self", (("p", "dist"),), "Eq(BC(p, p), 1)", "definition of BC; p is normalized"),
    Fact("sd.lecam", _PQ, "SD(p, q) <= sqrt(1 - BC(p, q)**2)",
         "Le Cam (1973); Tsybakov, Introduction to Nonparametric Estimation (2009), Lemma 2.3"),
    Fact("integral.gauss", (("m", "real"), ("v", "pos"), ("t", "real")),
         "Eq(Integral(exp(-(t - m)**2/(2*v)), (t, -oo, oo)), sqrt(2*pi*v))",
         "Gaussian integral, DLMF 7.4.1 (with erf(oo) = 1)"),
    Fact("digamma.concave", (("u", "pos"), ("w", "pos")),
         "Implies(u < w, polygamma(0, u/2 + w/2) > polygamma(0, u)/2 + polygamma(0, w)/2)",
         "DLMF 5.15.1: psi'(z) = sum_k 1/(z+k)^2, hence psi'' < 0 on (0, oo): psi is strictly "
         "concave"),
    Fact("digamma.minus.log.increasing", (("u", "pos"), ("w", "pos")),
         "Implies(u <= w, polygamma(0, u) - log(u) <= polygamma(0, w) - log(w))",
         "psi'(x) = sum_k 1/(x+k)^2 > integral_0^oo dt/(x+t)^2 = 1/x (DLMF 5.15.1), so "
         "psi(x) - ln x is increasing on (0, oo) (Alzer, Math. Comp. 66 (1997), Theorem 1)"),
    Fact("digamma.shift.minus.log.decreasing", (("u", "pos"), ("w", "pos")),
         "Implies(u <= w, polygamma(0, w + 1) - log(w) <= polygamma(0, u + 1) - log(u))",
         "psi'(x + 1) = sum_{k>=1} 1/(x+k)^2 < integral_0^oo dt/(x+t)^2 = 1/x (DLMF 5.15.1), so "
         "psi(x + 1) - ln x is decreasing on (0, oo)"),
    Fact("kl.gibbs", (("p", "dist"), ("q", "dist")), "(KL(p, q) >= 0) & Eq(KL(p, p), 0)",
         "Gibbs' inequality (Cover and Thomas 2006, Theorem 2.6.3)"),
    Fact("gamma.logconvex", (("u", "pos"), ("w", "pos")),
         "Implies(u < w, gamma(u/2 + w/2)**2 <= gamma(u)*gamma(w))",
         "Gamma is logarithmically convex on (0, oo) (Bohr-Mollerup; E. Artin, The Gamma "
         "Function, 1964, §2; DLMF 5.5 / 5.15.1: (ln Gamma)'' = psi' > 0)"),
    Fact("lists.count.nat", (("l", "list"),),
         "IsInteger(Count(l)) & IsInteger(Length(l)) & (Count(l) >= 0) & (Count(l) <= Length(l))",
         "Count and Length of a (bool) list are natural numbers, Count at most Length"),
    Fact("lists.count.adj", (("l1", "list"), ("l2", "list")),
         "Implies(Adj(l1, l2), Eq(Length(l1), Length(l2)) & Eq(Count(l1) - Count(l2), "
         "DiffAt1(l1, l2) - DiffAt2(l1, l2)) & (DiffAt1(l1, l2) >= 0) & (DiffAt1(l1, l2) <= 1) "
         "& (DiffAt2(l1, l2) >= 0) & (DiffAt2(l1, l2) <= 1))",
         "definitions: adjacent lists have the same length and agree outside one position; "
         "Count sums the 0/1 values of the entries of a bool list"),
    Fact("lists.sum.adjwithin", (("l1", "list"), ("l2", "list"), ("c", "real")),
         "Implies(AdjWithin(l1, l2, c), Eq(Length(l1), Length(l2)) & Eq(ListSum(l1) - "
         "ListSum(l2), DiffAt1(l1, l2) - DiffAt2(l1, l2)) & (Abs(DiffAt1(l1, l2) - "
         "DiffAt2(l1, l2)) <= Max(c, 0)))",
         "definitions: adjWithin lists have the same length and agree outside one position, "
         "where they differ by at most c (so a negative c admits only equal lists, whose "
         "DiffAt values are equal: docs/verifier.md); ListSum sums the entries"),
    Fact("lists.adjwithin.adj", (("l1", "list"), ("l2", "list"), ("c", "real")),
         "Implies(AdjWithin(l1, l2, c), Adj(l1, l2))", "definition of adjWithin"),
    Fact("lists.length.nat", (("l", "list"),),
         "IsInteger(Length(l)) & (Length(l) >= 0)",
         "definition of length (LANGUAGE.md): the number of entries of a list"),
    Fact("lists.definition", (("x", "real"), ("y", "real"), ("i", "real"), ("l", "list"),
                              ("m", "list")),
         "Implies(IsNil(l), Eq(Length(l), 0) & Eq(Count(l), 0) & Eq(ListSum(l), 0) & "
         "Eq(CountCat(l, i), 0)) & Implies(Eq(Length(l), 0), IsNil(l)) & "
         "Eq(Length(Cons(x, l)), Length(l) + 1) & "
         "Implies(Eq(x, 0) | Eq(x, 1), Eq(Count(Cons(x, l)), x + Count(l))) & "
         "Eq(ListSum(Cons(x, l)), x + ListSum(l)) & "
         "Eq(CountCat(Cons(x, l), i), CountCat(l, i) + Piecewise((1, Eq(x, i)), (0, True))) & "
         "Not(IsNil(Cons(x, l))) & Implies(Eq(Cons(x, l), Cons(y, m)), Eq(x, y) & Eq(l, m))",
         "definitions of the built-in lists (LANGUAGE.md): [] is the only list of length 0 "
         "and has length, count, sum and category counts 0; x :: l has one more entry, x; "
         "x :: l is never [] and determines x and l. Entries are numbers (bools as 0/1, "
         "categories as integers); Count counts the entries equal to 1"),
    Fact("lists.allin.definition", (("x", "real"), ("k", "real"), ("l", "list")),
         "Implies(IsNil(l), AllInNat(l) & AllInPos(l) & AllInUnit(l) & AllInFin(l, k)) & "
         "Implies(AllInNat(Cons(x, l)), (x >= 0) & AllInNat(l)) & "
         "Implies((x >= 0) & AllInNat(l), AllInNat(Cons(x, l))) & "
         "Implies(AllInPos(Cons(x, l)), (x > 0) & AllInPos(l)) & "
         "Implies((x > 0) & AllInPos(l), AllInPos(Cons(x, l))) & "
         "Implies(AllInUnit(Cons(x, l)), (x >= 0) & (x <= 1) & AllInUnit(l)) & "
         "Implies((x >= 0) & (x <= 1) & AllInUnit(l), AllInUnit(Cons(x, l))) & "
         "Implies(AllInFin(Cons(x, l), k), (x >= 0) & (x < k) & AllInFin(l, k)) & "
         "Implies((x >= 0) & (x < k) & AllInFin(l, k), AllInFin(Cons(x, l), k))",
         "definition of the element ranges of the list types (LANGUAGE.md: nat list, real+ "
         "list, [0,1] list, [k] list): every entry of a list is in the range; [] has no entry, "
         "the entries of x :: l are x and the entries of l"),
    Fact("lists.allin.sum", (("l", "list"),),
         "Implies(AllInUnit(l), (ListSum(l) >= 0) & (ListSum(l) <= Length(l))) & "
         "Implies(AllInPos(l), ListSum(l) >= 0)",
         "induction on l with the definitions of sum and length (lists.definition): each of "
         "the length-many entries adds between 0 and 1 to the sum (a [0,1] list), or a "
         "positive number (a real+ list)"),
    Fact("lists.adj.reflexive", (("l", "list"), ("c", "real")),
         "Adj(l, l) & Implies(c >= 0, AdjWithin(l, l, c))",
         "definitions of adj and adjWithin (LANGUAGE.md): a list differs from itself in no "
         "position"),
    Fact("lists.dist.definition", (("l", "list"), ("m", "list")),
         "IsInteger(HammingDist(l, m)) & (HammingDist(l, m) >= 0) & Eq(HammingDist(l, l), 0)",
         "definition of dist (LANGUAGE.md): the number of positions where two lists differ"),
    Fact("lists.dist.count", (("l", "list"), ("m", "list")),
         "Implies(Eq(Length(l), Length(m)), Abs(Count(l) - Count(m)) <= HammingDist(l, m))",
         "induction on two bool lists of one length: each position where they differ changes "
         "the count by at most 1, the others by 0 (definitions of count and dist)"),
    Fact("lists.adj.dist", (("l", "list"), ("m", "list")),
         "Implies(Adj(l, m), Eq(Length(l), Length(m)) & (HammingDist(l, m) <= 1)) & "
         "Implies(Eq(Length(l), Length(m)) & (HammingDist(l, m) <= 1), Adj(l, m))",
         "definitions of adj and dist (LANGUAGE.md): adjacent lists have one length and differ "
         "in at most one position; dist counts the positions where they differ"),
    Fact("lists.dist.length", (("l", "list"), ("m", "list")),
         "Implies(Eq(Length(l), Length(m)), HammingDist(l, m) <= Length(l))",
         "definition of dist (LANGUAGE.md): two lists of one length differ in at most each of "
         "their positions"),
    Fact("lists.cons.relations", (("x", "real"), ("y", "real"), ("c", "real"), ("l", "list"),
                                  ("m", "list")),
         "Implies(Adj(Cons(x, l), Cons(y, m)), (Eq(x, y) & Adj(l, m)) | Eq(l, m)) & "
         "Implies((Eq(x, y) & Adj(l, m)) | Eq(l, m), Adj(Cons(x, l), Cons(y, m))) & "
         "Implies(AdjWithin(Cons(x, l), Cons(y, m), c), (Eq(x, y) & AdjWithin(l, m, c)) | "
         "(Ne(x, y) & Eq(l, m) & (Abs(x - y) <= c))) & "
         "Implies((Eq(x, y) & AdjWithin(l, m, c)) | (Ne(x, y) & Eq(l, m) & (Abs(x - y) <= c)), "
         "AdjWithin(Cons(x, l), Cons(y, m), c)) & "
         "Implies(Eq(Length(l), Length(m)), Eq(HammingDist(Cons(x, l), Cons(y, m)), "
         "HammingDist(l, m) + Piecewise((0, Eq(x, y)), (1, True))))",
         "definitions of adj, adjWithin and dist on x :: l and y :: m (LANGUAGE.md: at "
         "x :: xs ~ y :: ys, adj unfolds to (x = y /\\ adj (xs, ys)) \\/ xs = ys): the heads are "
         "one position, the tails the others; adjWithin bounds the one difference by c, dist "
         "counts the differences"),
    Fact("lists.allwithin.definition", (("x", "real"), ("y", "real"), ("c", "real"),
                                        ("l", "list"), ("m", "list")),
         "Implies(AllWithin(l, m, c), Eq(Length(l), Length(m))) & "
         "Implies(c >= 0, AllWithin(l, l, c)) & "
         "Implies(AllWithin(Cons(x, l), Cons(y, m), c), (Abs(x - y) <= c) & AllWithin(l, m, c)) & "
         "Implies((Abs(x - y) <= c) & AllWithin(l, m, c), AllWithin(Cons(x, l), Cons(y, m), c))",
         "definition of allWithin (docs/language.md): two lists of one length whose entries at "
         "every position differ by at most c; [] has no position, the positions of x :: l are "
         "x's and l's"),
    Fact("distributions.injective", (("a1", "real"), ("b1", "real"), ("a2", "real"),
                                     ("b2", "real")),
         "Implies(Eq(BetaDist(a1, b1), BetaDist(a2, b2)), Eq(a1, a2) & Eq(b1, b2)) & "
         "Implies(Eq(NormalDist(a1, b1), NormalDist(a2, b2)), Eq(a1, a2) & Eq(b1, b2)) & "
         "Implies(Eq(BernoulliDist(a1), BernoulliDist(a2)), Eq(a1, a2))",
         "the Beta, Normal and Bernoulli families are identifiable (distinct parameters give "
         "distinct densities); outside their ranges the constructors are free symbols, never "
         "evaluated (the Safety judgement's range obligations exclude those parameters)"),
    Fact("lists.member", (("x", "dist"), ("l", "list")),
         "Implies(Member(x, l), IsInteger(IndexOf(x, l)) & (IndexOf(x, l) >= 0) & "
         "(IndexOf(x, l) + 1 <= Length(l)) & Eq(Nth(l, IndexOf(x, l)), x))",
         "definition of an entry of a list: x is an entry of l when it is the entry at some "
         "position 0 <= i < length l"),
    Fact("posteriors.beta.definition", (("a", "pos"), ("b", "pos"), ("n", "nat"), ("i", "int")),
         "Eq(Length(Posteriors(BetaDist(a, b), n)), n + 1) & Implies((i >= 0) & (i <= n), "
         "Eq(Nth(Posteriors(BetaDist(a, b), n), i), BetaDist(a + i, b + n - i)))",
         "definition of posteriors (LANGUAGE.md): posteriors (beta (a, b), n) lists "
         "beta (a + k, b + n - k) for k = 0..n (verifier/semantics/distributions.py and "
         "lemmas.conjugacy.posteriors list them in that order)"),
    Fact("normal.mean", (("m", "real"), ("v", "pos")),
         "Eq(Mean(NormalDist(m, v)), m) & Eq(Variance(NormalDist(m, v)), v)",
         "NormalDist(m, v) has mean m and variance v (LANGUAGE.md `normal`)"),
]

#: rules (trusted inference patterns) that steps of some kinds rely on
RULES = {
    "rule.mvt": "mean value theorem: a function with a positive derivative on an interval is "
                "increasing there (used by `monotone` steps)",
    "rule.bayes": "Bayes' rule: the posterior density is prior density × likelihood, normalized; "
                  "two probability densities proportional on the domain are equal (used by "
                  "`bayes` steps)",
    "rule.integral_linearity": "the integral of K f is K times the integral of f; equal "
                               "integrands give equal integrals (used by `integral_scale`)",
    "tool.sympy": "sympy's simplification and assumption system (identity, integral_scale, "
                  "positive, bayes steps)",
    "tool.z3": "Z3's `unsat` answers (smt and qed steps)",
    "tool.arb": "Arb ball arithmetic (enclosure steps)",
}


def _dirichlet_integral_fact(k: int) -> Fact:
    vs = exprs.simplex_vars(k)
    ps = tuple(f"p{i}" for i in range(1, k + 1))
    integrand = "*".join(f"{v}**({p} - 1)" for v, p in zip(vs, ps))
    value = "*".join(f"gamma({p})" for p in ps) + f"/gamma({' + '.join(ps)})"
    return Fact(f"integral.dirichlet/k={k}",
                tuple((p, "pos") for p in ps) + tuple((v, "pos") for v in vs),
                f"Eq(SimplexIntegral(Lambda(({', '.join(vs)}), {integrand})), {value})",
                "Dirichlet's integral; for k = 2 Euler's Beta integral, DLMF 5.12.1")


def _bc_definition_fact(family: str, k: int) -> Fact:
    """BC of two members of a family is the integral of sqrt(p q) of their densities."""
    if family == "BetaDist":
        dens = exprs.beta_density()
    elif family == "DirichletDist":
        dens = exprs.dirichlet_density(k)
    elif family == "NormalDist":
        dens = exprs.normal_density()
    else:
        raise ArtifactError(f"no BC definition for {family}")
    names = [p for p, _ in dens.params]
    first = {p: f"{p}_1" for p in names}
    second = {p: f"{p}_2" for p in names}
    base = exprs.symbols_of(list(dens.params) + [(v, "pos" if dens.domain == "simplex" else "real")
                                                  for v in dens.variables])
    sym1 = exprs.symbols_of([(first[p], s) for p, s in dens.params])
    sym2 = exprs.symbols_of([(second[p], s) for p, s in dens.params])
    body = exprs.parse(dens.body, base)
    d1 = exprs.substitute(body, {base[p]: sym1[first[p]] for p in names})
    d2 = exprs.substitute(body, {base[p]: sym2[second[p]] for p in names})
    integrand = sp.sqrt(d1 * d2)
    bound = tuple(base[v] for v in dens.variables)
    if dens.domain == "simplex":
        integral = exprs.SimplexIntegral(sp.Lambda(bound, integrand))
    else:
        integral = sp.Integral(integrand, (bound[0], -sp.oo, sp.oo))
    fam = exprs.function(family)
    lhs = exprs.BC(fam(*[sym1[first[p]] for p in names]), fam(*[sym2[second[p]] for p in names]))
    decls = ([(first[p], s) for p, s in dens.params] + [(second[p], s) for p, s in dens.params]
             + [(v, "pos" if dens.domain == "simplex" else "real") for v in dens.variables])
    suffix = f"/k={k}" if family == "DirichletDist" else ""
    return Fact(f"bc.def/{family}{suffix}", tuple(decls), exprs.show(sp.Eq(lhs, integral)),
                "definition of BC (integral of sqrt(p q)) and of the family's density")


def _catcount_adj_fact(k: int) -> Fact:
    """Adjacent [k] lists: the category counts differ only at the two differing entries."""
    d1, d2 = "DiffAt1(l1, l2)", "DiffAt2(l1, l2)"
    parts = ["Eq(Length(l1), Length(l2))",
             "(" + " | ".join(f"Eq({d1}, {i})" for i in range(k)) + ")",
             "(" + " | ".join(f"Eq({d2}, {i})" for i in range(k)) + ")"]
    for i in range(k):
        parts.append(f"Eq(CountCat(l1, {i}) - CountCat(l2, {i}), Piecewise((1, Eq({d1}, {i})), "
                     f"(0, True)) - Piecewise((1, Eq({d2}, {i})), (0, True)))")
    return Fact(f"lists.catcount.adj/k={k}", (("l1", "list"), ("l2", "list")),
                f"Implies(Adj(l1, l2), {' & '.join(parts)})",
                "definitions: adjacent [k] lists have the same length and agree outside one "
                "position, whose entries (categories 0..k-1) are DiffAt1 and DiffAt2; CountCat(l, i) "
                "counts the entries equal to i")


def _catcount_total_fact(k: int) -> Fact:
    total = " + ".join(f"CountCat(l, {i})" for i in range(k))
    nonneg = " & ".join(f"(CountCat(l, {i}) >= 0) & IsInteger(CountCat(l, {i}))" for i in range(k))
    return Fact(f"lists.catcount.total/k={k}", (("l", "list"),),
                f"Eq({total}, Length(l)) & IsInteger(Length(l)) & {nonneg}",
                "every entry of a [k] list is one of the categories 0..k-1")


def _injective_fact(k: int) -> Fact:
    """Dirichlet and categorical distributions over k categories determine their parameters."""
    a = [f"a{i}" for i in range(1, k + 1)]
    b = [f"b{i}" for i in range(1, k + 1)]
    same = " & ".join(f"Eq({x}, {y})" for x, y in zip(a, b))
    parts = [f"Implies(Eq({F}({', '.join(a)}), {F}({', '.join(b)})), {same})"
             for F in ("DirichletDist", "CategoricalDist")]
    return Fact(f"distributions.injective.dirichlet/k={k}", tuple((n, "real") for n in a + b),
                " & ".join(parts),
                "the Dirichlet and categorical families over k categories are identifiable; "
                "outside their ranges the constructors are free symbols, never evaluated")


def _posteriors_dirichlet_fact(k: int) -> Fact:
    """Every entry of posteriors (dirichlet (a1..ak), n) is Dir(a + c) for a count vector c."""
    a = [f"a{i}" for i in range(1, k + 1)]
    lst = f"Posteriors(DirichletDist({', '.join(a)}), n)"
    counts = [f"PosteriorCount({lst}, i, {j})" for j in range(1, k + 1)]
    parts = ([f"IsInteger({c}) & ({c} >= 0)" for c in counts]
             + [f"Eq({' + '.join(counts)}, n)",
                f"Eq(Nth({lst}, i), DirichletDist({', '.join(f'{x} + {c}' for x, c in zip(a, counts))}))"])
    return Fact(f"posteriors.dirichlet.definition/k={k}",
                tuple((n, "pos") for n in a) + (("n", "nat"), ("i", "int")),
                f"Implies((i >= 0) & (i < Length({lst})), {' & '.join(parts)})",
                "definition of posteriors (LANGUAGE.md): posteriors (dirichlet (a1, ..., ak), n) "
                "lists one dirichlet (a1 + c1, ..., ak + ck) per count vector c of naturals "
                "summing to n; PosteriorCount names the count vector of each entry")


def fact(fact_id: str) -> Fact:
    """The fact with this id (``integral.dirichlet/k=N`` and ``bc.def/...`` are families)."""
    for f in _STATIC_FACTS:
        if f.id == fact_id:
            return f
    try:
        if fact_id.startswith("integral.dirichlet/k="):
            return _dirichlet_integral_fact(_dimension(fact_id))
        if fact_id == "bc.def/BetaDist":
            return _bc_definition_fact("BetaDist", 2)
        if fact_id == "bc.def/NormalDist":
            return _bc_definition_fact("NormalDist", 1)
        if fact_id.startswith("lists.catcount.adj/k="):
            return _catcount_adj_fact(_dimension(fact_id))
        if fact_id.startswith("lists.catcount.total/k="):
            return _catcount_total_fact(_dimension(fact_id))
        if fact_id.startswith("distributions.injective.dirichlet/k="):
            return _injective_fact(_dimension(fact_id))
        if fact_id.startswith("posteriors.dirichlet.definition/k="):
            return _posteriors_dirichlet_fact(_dimension(fact_id))
        if fact_id.startswith("bc.def/DirichletDist/k="):
            return _bc_definition_fact("DirichletDist", _dimension(fact_id))
    except ValueError:
        pass
    raise ArtifactError(f"unknown fact {fact_id!r}")


def _dimension(fact_id: str) -> int:
    k = int(fact_id.rsplit("=", 1)[1])
    if not 2 <= k <= 64:
        raise ValueError("dimension out of range")
    return k


def static_facts() -> Tuple[Fact, ...]:
    return tuple(_STATIC_FACTS)


# --------------------------------------------------------------------------------------------
# the checker

@dataclass
class _Established:
    """What a checked step establishes: ∀ symbols. where ⇒ claim."""

    claim: sp.Basic
    where: Tuple[sp.Basic, ...]
    table: Dict[str, sp.Symbol]      # the symbols it is quantified over (by name)
    sorts: Dict[str, str]
    local: bool                      # True: shares the artifact's symbol table


def recheck(artifact: Any, cited: Optional[Mapping[str, Mapping[str, Any]]] = None,
            timeout_ms: int = 30000) -> CheckResult:
    """Re-check a proof artifact (a dict or its JSON text) from scratch.

    ``cited``, if given, maps lemma ids to the statements (``{"parameters", "hypotheses",
    "conclusion"}``) the caller vouches for; a ``lemma`` step citing a lemma not in ``cited``,
    or with another statement, then fails. Without ``cited`` the citations are only recorded.
    Never raises on a bad artifact: the failure is in the result.
    """
    t0 = time.perf_counter()
    lemma_id = "?"
    status = "?"
    try:
        if isinstance(artifact, (str, bytes)):
            artifact = json.loads(artifact)
        if not isinstance(artifact, dict):
            raise ArtifactError("an artifact is a JSON object")
        lemma_id = str(artifact.get("lemma", "?"))
        status = str(artifact.get("status", "?"))
        checker = _Checker(artifact, cited, timeout_ms)
        ok, reason = checker.run()
        return CheckResult(ok, lemma_id, status, reason, tuple(checker.results),
                           tuple(sorted(checker.trusted)), tuple(sorted(checker.cites.items())),
                           time.perf_counter() - t0)
    except (ArtifactError, exprs.TermError, json.JSONDecodeError, KeyError, TypeError,
            AttributeError, ValueError) as exc:
        return CheckResult(False, lemma_id, status, f"malformed artifact: {exc}",
                           seconds=time.perf_counter() - t0)
    except Exception as exc:  # never raise on a bad artifact: fail closed
        return CheckResult(False, lemma_id, status, f"cannot check: {type(exc).__name__}: {exc}",
                           seconds=time.perf_counter() - t0)


class _Checker:
    def __init__(self, art: Dict[str, Any], cited, timeout_ms: int):
        self.art = art
        self.cited = cited
        self.timeout_ms = timeout_ms
        self.results: List[StepResult] = []
        self.trusted: set = set()
        self.cites: Dict[str, str] = {}
        self.done: Dict[str, _Established] = {}
        self.used: set = set()

    # ---- reading ------------------------------------------------------------------------
    def run(self) -> Tuple[bool, str]:
        art = self.art
        if art.get("format") != FORMAT:
            raise ArtifactError(f"format must be {FORMAT!r}")
        if art.get("status") not in STATUSES:
            raise ArtifactError(f"status must be one of {STATUSES}")
        for name, spec in (art.get("vocabulary") or {}).items():
            _install_vocabulary(name, spec)
        decls = [tuple(d) for d in art["symbols"]]
        self.sorts = {n: s for n, s in decls}
        self.table = exprs.symbols_of(decls)
        st = art["statement"]
        params = [tuple(p) for p in st["parameters"]]
        for name, sort in params:
            if self.sorts.get(name) != sort:
                raise ArtifactError(f"parameter {name} must be declared with sort {sort}")
        self.params = params
        self.hyps = [self.parse(h) for h in st["hypotheses"]]
        self.conclusion = self.parse(st["conclusion"])
        steps = art["steps"]
        if not isinstance(steps, list) or not steps:
            raise ArtifactError("no steps")
        ids = [s.get("id") for s in steps]
        if len(set(ids)) != len(ids) or not all(isinstance(i, str) and i for i in ids):
            raise ArtifactError("step ids must be distinct non-empty strings")
        last = steps[-1]["kind"]
        if art["status"] == "proved" and last != "qed":
            raise ArtifactError("a proved lemma's last step must be `qed`")
        if art["status"] != "proved" and last != "cite":
            raise ArtifactError(f"a {art['status']} lemma's last step must be `cite`")
        failure = ""
        for i, step in enumerate(steps):
            kind = step.get("kind")
            if kind not in STEP_KINDS:
                raise ArtifactError(f"step {step['id']}: unknown kind {kind!r}")
            if kind in ("qed", "cite") and i != len(steps) - 1:
                raise ArtifactError(f"step {step['id']}: `{kind}` must be the last step")
            t = time.perf_counter()
            try:
                est = getattr(self, "k_" + kind)(step)
                self.done[step["id"]] = est
                self.results.append(StepResult(step["id"], kind, True, "",
                                               time.perf_counter() - t))
            except (ArtifactError, exprs.TermError, arbeval.EnclosureError) as exc:
                self.results.append(StepResult(step["id"], kind, False, str(exc),
                                               time.perf_counter() - t))
            except Exception as exc:  # any other failure of a tool fails the step, closed
                exc = ArtifactError(f"{type(exc).__name__}: {exc}")
                self.results.append(StepResult(step["id"], kind, False, str(exc),
                                               time.perf_counter() - t))
            if not self.results[-1].ok and not failure:
                failure = f"step {step['id']} ({kind}): {self.results[-1].reason}"
        unused = [s["id"] for s in steps[:-1] if s["id"] not in self.used]
        if not failure and unused:
            failure = f"steps not used by the derivation: {', '.join(unused)}"
        self.trusted.update(self._tools_used())
        return (not failure), failure

    def _tools_used(self) -> set:
        kinds = {r.kind for r in self.results}
        out = set()
        if kinds & {"identity", "integral_scale", "positive", "bayes"}:
            out.add("tool.sympy")
        if kinds & {"smt", "qed"}:
            out.add("tool.z3")
        if "enclosure" in kinds:
            out.add("tool.arb")
        return out

    def parse(self, text: str) -> sp.Basic:
        return exprs.parse(text, self.table)

    def _local(self, claim, where=()) -> _Established:
        return _Established(claim, tuple(where), self.table, self.sorts, True)

    def _claim(self, step) -> sp.Basic:
        if "claim" not in step:
            raise ArtifactError("missing claim")
        return self.parse(step["claim"])

    def _no_where(self, step):
        if step.get("where"):
            raise ArtifactError("`where` is only allowed in smt steps")

    # ---- step kinds ----------------------------------------------------------------------
    def k_identity(self, step) -> _Established:
        self._no_where(step)
        claim = self._claim(step)
        if not isinstance(claim, sp.Eq):
            raise ArtifactError("an identity claim must be Eq(lhs, rhs)")
        lhs, rhs = claim.lhs, claim.rhs
        for ref in step.get("rewrite", []):
            old, new = self._equation(ref)
            if not (lhs.has(old) or rhs.has(old)):
                raise ArtifactError(f"rewrite {_short(old, 60)} does not occur in the claim")
            lhs, rhs = lhs.xreplace({old: new}), rhs.xreplace({old: new})
        _require_identity(lhs, rhs, step.get("method", "simplify"))
        return self._local(claim)

    def _equation(self, ref) -> Tuple[sp.Basic, sp.Basic]:
        """An equation ``old = new`` established by a premise, its conditions discharged."""
        f = self._premise(ref)
        conds = []
        if isinstance(f, sp.Implies):
            conds, f = [f.args[0]], f.args[1]
        if not isinstance(f, sp.Eq):
            raise ArtifactError(f"rewrite premise {ref!r} is not an equation")
        if conds and conds[0] is not sp.true:
            ok, why = smt.prove([], conds[0], self.timeout_ms)
            if not ok:
                raise ArtifactError(f"cannot discharge the conditions of rewrite {ref!r}: {why}")
        return f.lhs, f.rhs

    def k_integral_scale(self, step) -> _Established:
        self._no_where(step)
        claim = self._claim(step)
        if not isinstance(claim, sp.Eq):
            raise ArtifactError("an integral_scale claim must be Eq(I1, K*I2)")
        i1, rhs = claim.lhs, claim.rhs
        ints = [f for f in sp.Mul.make_args(rhs) if _integral_parts(f) is not None]
        if _integral_parts(i1) is None or len(ints) != 1:
            raise ArtifactError("both sides must be (a multiple of) one integral")
        i2 = ints[0]
        k = sp.Mul(*[f for f in sp.Mul.make_args(rhs) if f is not i2])
        (dom1, vars1, f1), (dom2, vars2, f2) = _integral_parts(i1), _integral_parts(i2)
        if dom1 != dom2 or vars1 != vars2:
            raise ArtifactError("the integrals are over different domains or variables")
        if set(vars1) & k.free_symbols:
            raise ArtifactError("the factor depends on the integration variables")
        for v in vars1:
            want = "pos" if dom1[0] == "simplex" else "real"
            if exprs.sort_of(v) != want:
                raise ArtifactError(f"integration variable {v} must have sort {want}")
        _require_identity(f1, k * f2, step.get("method", "simplify"))
        self.trusted.add("rule.integral_linearity")
        return self._local(claim)

    def k_positive(self, step) -> _Established:
        self._no_where(step)
        claim = self._claim(step)
        if not isinstance(claim, (sp.Gt, sp.Ge)) or claim.rhs != 0:
            raise ArtifactError("a positive claim must be `e > 0` or `e >= 0`")
        e = exprs.expand_definitions(claim.lhs)
        verdict = e.is_positive if isinstance(claim, sp.Gt) else e.is_nonnegative
        if verdict is not True:
            raise ArtifactError(f"sympy cannot establish {claim}")
        return self._local(claim)

    def k_enclosure(self, step) -> _Established:
        self._no_where(step)
        claim = self._claim(step)
        if claim.free_symbols:
            raise ArtifactError("an enclosure claim must be closed (no free symbols)")
        prec = int(step.get("prec", 128))
        if not 53 <= prec <= 8192:
            raise ArtifactError("prec out of range")
        if not arbeval.certainly(claim, prec=prec, max_prec=max(prec, 1024)):
            raise ArtifactError(f"Arb does not certify {claim}")
        return self._local(claim)

    def k_fact(self, step) -> _Established:
        self._no_where(step)
        f = fact(step.get("fact", ""))
        if "claim" in step:
            if exprs.parse(step["claim"], f.table()) != f.formula():
                raise ArtifactError(f"the claim differs from fact {f.id}")
        self.trusted.add(f.id)
        return _Established(f.formula(), (), f.table(), dict(f.symbols), False)

    def k_lemma(self, step) -> _Established:
        self._no_where(step)
        lid = step.get("lemma")
        st = step.get("statement")
        if not isinstance(lid, str) or not isinstance(st, dict):
            raise ArtifactError("a lemma step needs `lemma` and `statement`")
        if self.cited is not None:
            theirs = self.cited.get(lid)
            if theirs is None:
                raise ArtifactError(f"cited lemma {lid} is not available")
            if not statements_equal(theirs, st):
                raise ArtifactError(f"cited lemma {lid} has another statement")
        decls = [tuple(p) for p in st["parameters"]]
        table = exprs.symbols_of(decls)
        hyps = [exprs.parse(h, table) for h in st["hypotheses"]]
        concl = exprs.parse(st["conclusion"], table)
        self.cites[lid] = json.dumps(st, sort_keys=True)
        return _Established(concl, tuple(hyps), table, dict(decls), False)

    def k_bayes(self, step) -> _Established:
        self._no_where(step)
        prior = self.parse(step["prior"])
        lik = self.parse(step["likelihood"])
        post = self.parse(step["posterior"])
        dens, pargs = exprs.density_of(prior)
        dens2, qargs = exprs.density_of(post)
        if dens.domain != dens2.domain or dens.variables != dens2.variables:
            raise ArtifactError("prior and posterior live on different domains")
        vsort = "real" if dens.domain == "line" else "pos"  # simplex, halfline: positive
        bound = exprs.symbols_of([(v, vsort) for v in dens.variables])
        # fresh names for the density parameters cannot clash with artifact symbols
        def density(d: exprs.Density, args) -> sp.Expr:
            ptab = {p: sp.Dummy(p, **exprs.SORT_ASSUMPTIONS[s]) for p, s in d.params}
            body = exprs.parse(d.body, {**bound, **ptab})
            return exprs.substitute(body, {ptab[p]: a for (p, _), a in zip(d.params, args)})
        text, binding = exprs.likelihood_of(lik, dens.variables)
        ptab = {name: sp.Dummy(name, real=True) for name in binding}
        like = exprs.substitute(exprs.parse(text, {**bound, **ptab}),
                                {ptab[n]: a for n, a in binding.items()})
        f = density(dens, pargs) * like
        gden = density(dens2, qargs)
        if f.is_positive is not True or gden.is_positive is not True:
            raise ArtifactError("sympy cannot establish that the densities and the likelihood "
                                "are positive on the domain")
        method = step.get("method", "simplify")
        for v in bound.values():
            lhs = sp.diff(f, v) / f
            rhs = sp.diff(gden, v) / gden
            try:
                _require_identity(lhs, rhs, method)
            except ArtifactError:
                raise ArtifactError(f"prior × likelihood is not proportional to the posterior "
                                    f"density (variable {v})") from None
        claim = sp.Eq(exprs.Posterior(prior, lik), post)
        if "claim" in step and self.parse(step["claim"]) != claim:
            raise ArtifactError("the claim does not match prior, likelihood and posterior")
        self.trusted.add("rule.bayes")
        return self._local(claim)

    def k_monotone(self, step) -> _Established:
        self._no_where(step)
        fname = step.get("function")
        if fname not in exprs.DEFINITIONS or len(exprs.DEFINITIONS[fname][0]) != 1:
            raise ArtifactError("`function` must be a defined function of one argument")
        prem_id = step.get("premise")
        prem = self._get(prem_id)
        self.used.add(prem_id)
        if not prem.local or prem.where:
            raise ArtifactError("the premise must be an unconditional step of this artifact")
        c = prem.claim
        F = exprs.function(fname)
        if not (isinstance(c, sp.Gt) and c.rhs == 0 and isinstance(c.lhs, sp.Derivative)):
            raise ArtifactError("the premise must be `Derivative(F(v), v) > 0`")
        d = c.lhs
        if len(d.variable_count) != 1 or d.variable_count[0][1] != 1:
            raise ArtifactError("the premise must be a first derivative")
        v = d.variable_count[0][0]
        if d.expr != F(v) or exprs.sort_of(v) != "pos":
            raise ArtifactError(f"the premise must be about {fname}(v) with v of sort pos")
        body = exprs.expand_definitions(F(v))
        if sp.diff(body, v).has(sp.Derivative, sp.Subs):
            raise ArtifactError(f"sympy cannot differentiate {fname}")
        claim = self._claim(step)
        if not isinstance(claim, sp.Implies):
            raise ArtifactError("the claim must be Implies(u <= w, F(u) <= F(w))")
        ante, cons = claim.args
        ok = False
        for rel in (sp.Le, sp.Lt):
            if isinstance(ante, rel) and isinstance(cons, rel):
                u, w = ante.args
                if (isinstance(u, sp.Symbol) and isinstance(w, sp.Symbol) and u != w
                        and exprs.sort_of(u) == "pos" and exprs.sort_of(w) == "pos"
                        and cons.args == (F(u), F(w))):
                    ok = True
        if not ok:
            raise ArtifactError("the claim must be Implies(u <= w, F(u) <= F(w)) (or with <) "
                                "for distinct symbols u, w of sort pos")
        self.trusted.add("rule.mvt")
        return self._local(claim)

    def k_smt(self, step) -> _Established:
        claim = self._claim(step)
        where = [self.parse(w) for w in step.get("where", [])]
        premises = self._premises(step)
        ok, why = smt.prove(premises + where, claim, int(step.get("timeout_ms", self.timeout_ms)))
        if not ok:
            raise ArtifactError(why)
        return self._local(claim, where)

    def k_qed(self, step) -> _Established:
        if "claim" in step or step.get("where"):
            raise ArtifactError("qed proves the statement; it takes no claim or where")
        premises = self._premises(step)
        goal = sp.Implies(sp.And(*self.hyps), self.conclusion)
        ok, why = smt.prove(premises, goal, int(step.get("timeout_ms", self.timeout_ms)))
        if not ok:
            raise ArtifactError("the conclusion does not follow: " + why)
        return self._local(goal)

    def k_cite(self, step) -> _Established:
        source = step.get("source")
        if not isinstance(source, str) or not source.strip():
            raise ArtifactError("a cite step needs a source")
        if self.art["status"] == "disputed" and not str(step.get("dispute", "")).strip():
            raise ArtifactError("a disputed lemma must say what is disputed")
        for ref in step.get("premises", []):
            self._premise(ref)
        self.trusted.add(f"{self.art['status']}:{self.art.get('lemma')}")
        return self._local(sp.Implies(sp.And(*self.hyps), self.conclusion))

    # ---- premises ---------------------------------------------------------------------------
    def _get(self, sid) -> _Established:
        if not isinstance(sid, str) or sid not in self.done:
            raise ArtifactError(f"premise {sid!r} is not an earlier step that checked")
        return self.done[sid]

    def _premises(self, step) -> List[sp.Basic]:
        refs = step.get("premises", [])
        if not isinstance(refs, list):
            raise ArtifactError("premises must be a list")
        return [self._premise(r) for r in refs]

    def _premise(self, ref) -> sp.Basic:
        if isinstance(ref, str):
            est = self._get(ref)
            self.used.add(ref)
            if not est.local and (est.claim.free_symbols or any(w.free_symbols for w in est.where)):
                raise ArtifactError(f"premise {ref} (a fact or lemma) must be instantiated with `at`")
            return sp.Implies(sp.And(*est.where), est.claim)
        if not isinstance(ref, dict) or set(ref) - {"step", "at"}:
            raise ArtifactError(f"bad premise reference {ref!r}")
        est = self._get(ref.get("step"))
        self.used.add(ref["step"])
        at = ref.get("at", {})
        if not isinstance(at, dict):
            raise ArtifactError("`at` must map symbol names to terms")
        free = {s.name for s in est.claim.free_symbols}
        for w in est.where:
            free |= {s.name for s in w.free_symbols}
        if not est.local and set(at) != free:
            missing = sorted(free - set(at))
            extra = sorted(set(at) - free)
            raise ArtifactError(f"instance of {ref['step']} must bind exactly its symbols "
                                f"(missing {missing}, unknown {extra})")
        subst, side = {}, []
        for name, text in at.items():
            if name not in est.table:
                raise ArtifactError(f"{ref['step']} has no symbol {name!r}")
            term = self.parse(text)
            sort = est.sorts[name]
            if sort in exprs.INTEGER_SORTS and term.is_integer is not True:
                side.append(exprs.function("IsInteger")(term))
            if sort in exprs.OPAQUE_SORTS:
                if _is_numeric(term):
                    raise ArtifactError(f"{name} := {text}: a number for an object of sort {sort}")
            elif not _is_numeric(term):
                raise ArtifactError(f"{name} := {text}: an object for a number of sort {sort}")
            subst[est.table[name]] = term
            side.extend(_sort_constraints(term, sort))
        claim = exprs.substitute(est.claim, subst)
        where = [exprs.substitute(w, subst) for w in est.where]
        return sp.Implies(sp.And(*side, *where), claim)


def _install_vocabulary(name: str, spec: Mapping[str, Any]) -> None:
    """Declare a non-core symbol recorded in an artifact (and its density or likelihood).

    A name the vocabulary already knows must be recorded with the same signature and
    definition; otherwise the artifact is rejected.
    """
    if name in exprs.VOCABULARY and name not in exprs.EXTRA_DENSITIES and \
            name not in exprs.EXTRA_LIKELIHOODS and ("density" in spec or "likelihood" in spec):
        raise ArtifactError(f"{name} is a core symbol and cannot be redefined")
    if "density" in spec:
        d = spec["density"]
        exprs.register_family(name, exprs.Density(
            tuple(tuple(p) for p in d["params"]), tuple(d["variables"]), d["domain"], d["body"]),
            spec.get("doc", ""))
    elif "likelihood" in spec:
        d = spec["likelihood"]
        exprs.register_likelihood(name, exprs.LikelihoodDef(
            tuple(tuple(p) for p in d["params"]), tuple(d["variables"]), d["body"]),
            spec.get("doc", ""))
    exprs.declare(name, spec["args"], spec["result"], spec.get("doc", ""))


def _is_numeric(term: sp.Basic) -> bool:
    if isinstance(term, sp.Symbol):
        return exprs.sort_of(term) != "opaque"
    if isinstance(term, AppliedUndef) and term.func.__name__ in exprs.VOCABULARY:
        return exprs.VOCABULARY[term.func.__name__].result == "R"
    return True


def _sort_constraints(term: sp.Basic, sort: str) -> List[sp.Basic]:
    if sort in ("pos", "posint"):
        return [sp.Gt(term, 0)]
    if sort in ("nonneg", "nat"):
        return [sp.Ge(term, 0)]
    return []


def _integral_parts(e):
    """(domain, variables, integrand) of an integral term, or None."""
    if isinstance(e, AppliedUndef) and e.func.__name__ == "SimplexIntegral":
        lam = e.args[0]
        if isinstance(lam, sp.Lambda):
            return ("simplex",), tuple(lam.variables), lam.expr
    if isinstance(e, sp.Integral) and len(e.limits) == 1 and len(e.limits[0]) == 3:
        v, lo, hi = e.limits[0]
        if lo == -sp.oo and hi == sp.oo:
            return ("line",), (v,), e.function
    return None


#: each method is a sequence of equivalence-preserving rewritings, tried in order until the
#: difference is 0 (cheap ones first; the result does not depend on where it stops)
_METHODS = {
    "simplify": (sp.expand, lambda d: sp.cancel(sp.together(d)), sp.simplify),
    "gammasimp": (lambda d: sp.gammasimp(sp.expand_func(d)), sp.simplify),
    "expand": (sp.expand,),
    "cancel": (lambda d: sp.cancel(sp.together(d)),),
    "powsimp": (lambda d: sp.powsimp(sp.powdenest(d)), sp.simplify),
}


def _require_identity(lhs: sp.Basic, rhs: sp.Basic, method: str) -> None:
    """Fail unless sympy proves lhs = rhs (for all values of the symbols within their sorts)."""
    lhs = _evaluate_derivatives(exprs.expand_definitions(lhs))
    rhs = _evaluate_derivatives(exprs.expand_definitions(rhs))
    if method == "logratio":
        if lhs.is_positive is not True or rhs.is_positive is not True:
            raise ArtifactError("logratio needs both sides provably positive")
        d = sp.expand_log(sp.log(lhs)) - sp.expand_log(sp.log(rhs))
        stages = (sp.expand, sp.simplify)
    elif method == "loggamma":
        # ln Gamma(t) = ln(Gamma(t)) and ln(x y) = ln x + ln y hold for positive t, x, y: the
        # rewriting is used only when every argument of loggamma and log is provably positive
        d = lhs - rhs
        args = [t.args[0] for t in d.atoms(sp.loggamma, sp.log)]
        if any(t.is_positive is not True for t in args):
            raise ArtifactError("loggamma needs every argument of loggamma and log provably "
                                "positive")
        d = d.replace(sp.loggamma, lambda t: sp.log(sp.gamma(t)))
        stages = (lambda x: sp.expand_log(sp.expand_func(x), force=True), sp.simplify)
    elif method in _METHODS:
        d, stages = lhs - rhs, _METHODS[method]
    else:
        raise ArtifactError(f"unknown method {method!r}")
    for stage in stages:
        if d == 0:
            break
        d = stage(d)
    if d != 0:
        raise ArtifactError(f"sympy ({method}) leaves {_short(d)} instead of 0")


def _evaluate_derivatives(e: sp.Basic) -> sp.Basic:
    return e.replace(lambda x: isinstance(x, sp.Derivative), lambda x: x.doit())


def _short(e, n: int = 160) -> str:
    s = str(e)
    return s if len(s) <= n else s[:n] + "…"


# --------------------------------------------------------------------------------------------
# statements

def statement_json(parameters, hypotheses, conclusion) -> Dict[str, Any]:
    """The JSON form of a statement from (name, sort) pairs and sympy formulas."""
    return {"parameters": [list(p) for p in parameters],
            "hypotheses": [exprs.show(h) for h in hypotheses],
            "conclusion": exprs.show(conclusion)}


def statements_equal(a: Mapping[str, Any], b: Mapping[str, Any]) -> bool:
    """Do two JSON statements say the same thing (same parameters, same parsed formulas)?"""
    try:
        pa = [tuple(p) for p in a["parameters"]]
        pb = [tuple(p) for p in b["parameters"]]
        if pa != pb:
            return False
        table = exprs.symbols_of(pa)
        ha = [exprs.parse(h, table) for h in a["hypotheses"]]
        hb = [exprs.parse(h, table) for h in b["hypotheses"]]
        return ha == hb and exprs.parse(a["conclusion"], table) == exprs.parse(
            b["conclusion"], table)
    except (exprs.TermError, KeyError, TypeError):
        return False
