"""Theorems about approximate liftings (couplings) that the coupling rules rest on.

An (eps, delta)-lifting of a relation R between two distributions mu1, mu2 (Barthe, Köpf,
Olmedo and Zanella-Béguelin 2012; seed 003, "R-(eps, delta)-coupling") is a pair of
witnesses muL, muR on pairs, with first marginal of muL mu1, second marginal of muR mu2,
support in R, and EpsD(eps, muL, muR) <= delta. A lifting of equality is (eps, delta)-DP
(``Lifting(eps, delta, mu1, mu2, Eq)`` iff ``EpsD(eps, mu1, mu2) <= delta``); liftings compose
along the monadic bind, their epsilons and deltas adding (paper Lemma 3.4, the apRHL
sequence rule).

* ``mech.laplace.shift``: the general Lap rule (Barthe, Gaboardi, Grégoire, Hsu and Strub,
  "Proving differential privacy via probabilistic couplings", LICS 2016, rule Lap-Gen; seed
  003's Lap rule with the shift made explicit): Lap(x1, 1/eps) and Lap(x2, 1/eps) have an
  (eps |k + x1 - x2|, 0)-lifting of {(y1, y2) | y2 = y1 + k} (the translation y -> y + k,
  at every output y1 the density ratio is at most exp(eps |k + x1 - x2|): checked);
* ``coupling.pointwise``: the pointwise equality rule (same paper, Proposition 8): if for
  every value v of a countable projection D of the outputs there is an (eps, 0)-lifting of
  {(y1, y2) | D(y1) = v => y1 = y2}, the distributions are (eps, 0)-close; the sum over v is
  over a countable set, which is why D must be the discrete part of the output;
* ``coupling.cases``: the case rule of apRHL (a lifting chosen per pair of initial states
  satisfying a condition, and another where it fails) and the product (vacuous) lifting: two
  lossless distributions have a (0, 0)-lifting of any relation containing the product of
  their supports (Barthe et al. 2012; LICS 2016 §3);
* ``composition.advanced``: advanced composition (Dwork, Rothblum and Vadhan, FOCS 2010,
  Theorem III.3; Dwork and Roth 2014, Theorem 3.20), the k-fold adaptive composition of
  (eps, delta)-DP mechanisms is (sqrt(2k ln(1/delta')) eps + k eps (e^eps - 1),
  k delta + delta')-DP for every delta' > 0; HOARe² (Barthe et al., POPL 2015) has it as a
  typing rule.
"""
from __future__ import annotations

import sympy as sp

from lemmas import exprs
from lemmas.core import ArtifactBuilder, Lemma, params, symbols

F = exprs.function


def laplace_shift() -> Lemma:
    P = params(("eps", "pos"), ("k", "real"), ("x1", "real"), ("x2", "real"))
    S = symbols(P)
    eps, k, x1, x2 = S["eps"], S["k"], S["x1"], S["x2"]
    lap = exprs.LaplaceDist
    cost = eps * sp.Abs(k + x1 - x2)
    concl = F("ShiftLifting")(cost, lap(x1, 1 / eps), lap(x2, 1 / eps), k)
    b = ArtifactBuilder("mech.laplace.shift", "literature", P, (), concl)
    y = b.declare("y", "real")
    s = b.smt(sp.Le(eps * (sp.Abs(y + k - x2) - sp.Abs(y - x1)), cost),
              note="log Lap(x1)(y) - log Lap(x2)(y + k) is at most eps |k + x1 - x2| at every "
                   "output y of run 1 (the triangle inequality): the translation y -> y + k, "
                   "a bijection of the reals with Jacobian 1, is an (eps |k + x1 - x2|, 0)-"
                   "lifting of y2 = y1 + k")
    b.cite("Barthe, Gaboardi, Grégoire, Hsu and Strub, 'Proving differential privacy via "
           "probabilistic couplings' (LICS 2016), rule Lap-Gen; seed 003 (course notes on "
           "apRHL), the Lap rule and its correctness proof", [s])
    return Lemma("mech.laplace.shift", "the Laplace mechanism coupled by a shift",
                 "lapMech(eps, e) in two runs with values x1, x2 has an (eps |k + x1 - x2|, "
                 "0)-lifting of {(y1, y2) | y2 = y1 + k}, for every real k.", P, (), concl,
                 "Barthe et al. LICS 2016 (Lap-Gen); seed 003", "literature", b.build())


def pointwise() -> Lemma:
    P = params(("eps", "nonneg"), ("mu1", "dist"), ("mu2", "dist"), ("D", "fun"))
    S = symbols(P)
    eps, mu1, mu2, proj = S["eps"], S["mu1"], S["mu2"], S["D"]
    hyps = (F("PointwiseLiftings")(eps, mu1, mu2, proj),)
    concl = sp.Le(exprs.EpsD(eps, mu1, mu2), 0)
    b = ArtifactBuilder("coupling.pointwise", "literature", P, hyps, concl)
    b.cite("Barthe, Gaboardi, Grégoire, Hsu and Strub, 'Proving differential privacy via "
           "probabilistic couplings' (LICS 2016), Proposition 8 (pointwise equality). For an "
           "event S and each v, mu1(S ∩ D^-1 v) <= e^eps mu2(S ∩ D^-1 v) by the lifting for "
           "v (its relation maps S ∩ D^-1 v into itself); summing over the countably many v "
           "gives mu1(S) <= e^eps mu2(S): D must range over a countable set")
    return Lemma("coupling.pointwise", "the pointwise equality rule",
                 "If for every value v of a countable projection D of the outputs there is an "
                 "(eps, 0)-lifting of {(y1, y2) | D(y1) = v => y1 = y2} between mu1 and mu2, "
                 "then EpsD(eps, mu1, mu2) <= 0.", P, hyps, concl,
                 "Barthe et al. LICS 2016, Prop. 8", "literature", b.build())


def cases() -> Lemma:
    P = params(("eps", "nonneg"), ("delta", "nonneg"), ("mu1", "dist"), ("mu2", "dist"))
    S = symbols(P)
    eps, delta, mu1, mu2 = S["eps"], S["delta"], S["mu1"], S["mu2"]
    hyps = (F("CaseLiftings")(eps, delta, mu1, mu2),)
    concl = F("CaseLifting")(eps, delta, mu1, mu2)
    b = ArtifactBuilder("coupling.cases", "literature", P, hyps, concl)
    b.cite("the case rule of apRHL (Barthe, Köpf, Olmedo and Zanella-Béguelin, 'Probabilistic "
           "relational reasoning for differential privacy', POPL 2012) and the product "
           "lifting of two lossless distributions, which is a (0, 0)-lifting of any relation "
           "containing the product of their supports (LICS 2016, §3)")
    return Lemma("coupling.cases", "liftings chosen by case, and the product lifting",
                 "A lifting chosen per case of a condition on the two initial states is a "
                 "lifting of the same relation at the largest of the cases' indices; the "
                 "product of two lossless distributions lifts any relation containing the "
                 "product of their supports at (0, 0).", P, hyps, concl,
                 "Barthe et al. POPL 2012; LICS 2016", "literature", b.build())


def advanced() -> Lemma:
    P = params(("eps", "nonneg"), ("delta", "nonneg"), ("dp", "pos"), ("k", "nat"),
               ("M", "fun"))
    S = symbols(P)
    eps, delta, dp, k, M = (S[x] for x in ("eps", "delta", "dp", "k", "M"))
    hyps = (F("DPAdj")(M, eps, delta), sp.Lt(dp, 1))
    bound = sp.sqrt(2 * k * sp.log(1 / dp)) * eps + k * eps * (sp.exp(eps) - 1)
    concl = F("DPAdjFold")(M, k, bound, k * delta + dp)
    b = ArtifactBuilder("composition.advanced", "literature", P, hyps, concl)
    b.cite("Dwork, Rothblum and Vadhan, 'Boosting and differential privacy' (FOCS 2010), "
           "Theorem III.3; Dwork and Roth (2014), Theorem 3.20 (the k-fold adaptive "
           "composition of (eps, delta)-DP mechanisms is (sqrt(2k ln(1/delta')) eps + "
           "k eps (e^eps - 1), k delta + delta')-DP for every delta' > 0); HOARe², Barthe et "
           "al. POPL 2015, §5")
    return Lemma("composition.advanced", "advanced composition",
                 "The k-fold adaptive composition of (eps, delta)-DP mechanisms is "
                 "(sqrt(2k ln(1/delta')) eps + k eps (e^eps - 1), k delta + delta')-DP for "
                 "0 < delta' < 1.", P, hyps, concl, "Dwork, Rothblum and Vadhan 2010, "
                 "Thm III.3", "literature", b.build())
