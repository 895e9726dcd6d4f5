"""Mechanism theorems, taken from the literature (status ``literature``) or disputed.

Each statement is about the output distributions of a mechanism on the two runs, in the
vocabulary of ``lemmas.exprs``:

* ``lapMech(eps, e)``          is ``LaplaceDist(e, 1/eps)``;
* ``gaussMech(eps, delta, e)`` is ``NormalDist(e, sigma(eps, delta)**2)``,
  ``sigma(eps, delta) = sqrt(2 ln(1.25/delta)) / eps``;
* ``expMech(eps, score, x)``   is ``ExpMechDist(eps, s)`` with ``s = score(x, .)`` on the
  (public) candidate set: r is drawn with probability ∝ exp(eps s(r) / 2) (LANGUAGE.md).

(eps, delta)-DP of the pair is ``EpsD(eps, mu1, mu2) <= delta`` (paper Lemma 3.1); the
hypotheses are symmetric in the two runs, so instantiating with the runs swapped gives the
other direction.

Besides citing their source, the artifacts check what can be checked: the Laplace density
ratio, the exponential mechanism's ratio algebra, the pure smoothed-Hellinger mechanism's
exponent bound, and — with the exact privacy profile of the Gaussian mechanism (Balle and Wang
2018) — certified enclosures showing the classic calibration holding at sample points with
k eps < 1 and *failing* at eps = 7, delta = 1/100 (``mech.gaussian.large_eps``, proved): the
hypothesis k eps < 1 (NOTES.md §6) cannot simply be dropped.
"""
from __future__ import annotations

import sympy as sp

from lemmas import exprs, registry
from lemmas.core import ArtifactBuilder, Lemma, eq, params, symbols

EpsD, F = exprs.EpsD, exprs.function
HALF = sp.Rational(1, 2)


def _Phi(x: sp.Expr) -> sp.Expr:
    """The standard normal CDF, erfc(-x/sqrt 2) / 2."""
    return sp.erfc(-x / sp.sqrt(2)) / 2


def laplace() -> Lemma:
    P = params(("eps", "pos"), ("k", "nonneg"), ("x1", "real"), ("x2", "real"))
    S = symbols(P)
    eps, k, x1, x2 = S["eps"], S["k"], S["x1"], S["x2"]
    hyps = (sp.Le(x1 - x2, k), sp.Le(x2 - x1, k))
    lap = exprs.LaplaceDist
    concl = sp.Le(EpsD(k * eps, lap(x1, 1 / eps), lap(x2, 1 / eps)), 0)
    b = ArtifactBuilder("mech.laplace", "literature", P, hyps, concl)
    y = b.declare("y", "real")
    s = b.smt(sp.Le(eps * (sp.Abs(y - x2) - sp.Abs(y - x1)), k * eps), where=list(hyps),
              note="log of the density ratio at any output y is at most k eps")
    b.cite("Dwork, McSherry, Nissim and Smith (TCC 2006); Dwork and Roth (2014) Theorem 3.6; "
           "paper Definition 3.3", [s])
    return Lemma("mech.laplace", "the Laplace mechanism",
                 "If |x1 - x2| <= k (e is k-sensitive), lapMech(eps, e) is (k eps, 0)-DP: "
                 "EpsD(k eps, Lap(x1, 1/eps), Lap(x2, 1/eps)) <= 0.", P, hyps, concl,
                 "Dwork et al. 2006; Dwork and Roth 2014 Thm 3.6; paper Def. 3.3", "literature",
                 b.build())


def gaussian_profile() -> Lemma:
    """Balle and Wang (2018), Theorem 8: the exact epsilon-D between two shifted Gaussians."""
    P = params(("eps", "nonneg"), ("v", "pos"), ("x1", "real"), ("x2", "real"))
    S = symbols(P)
    eps, v, x1, x2 = S["eps"], S["v"], S["x1"], S["x2"]
    hyps = (sp.Ne(x1, x2),)
    D, s = sp.Abs(x1 - x2), sp.sqrt(v)
    rhs = _Phi(D / (2 * s) - eps * s / D) - sp.exp(eps) * _Phi(-D / (2 * s) - eps * s / D)
    concl = eq(EpsD(eps, exprs.NormalDist(x1, v), exprs.NormalDist(x2, v)), rhs)
    b = ArtifactBuilder("mech.gaussian.profile", "literature", P, hyps, concl)
    b.cite("Balle and Wang, 'Improving the Gaussian mechanism for differential privacy', "
           "ICML 2018, Theorem 8 (the privacy profile of the Gaussian mechanism)")
    return Lemma("mech.gaussian.profile", "exact privacy profile of Gaussian noise",
                 "EpsD(eps, N(x1, v), N(x2, v)) = Phi(D/(2s) - eps s/D) - e^eps Phi(-D/(2s) - "
                 "eps s/D) with D = |x1 - x2| > 0, s = sqrt v.", P, hyps, concl,
                 "Balle and Wang 2018, Thm 8", "literature", b.build())


def _profile_at(eps, delta) -> sp.Expr:
    """The exact EpsD of gaussMech(eps, delta, .) on inputs at distance 1."""
    s = exprs.sigma(eps, delta)
    return _Phi(1 / (2 * s) - eps * s) - sp.exp(eps) * _Phi(-1 / (2 * s) - eps * s)


GAUSS_SAMPLES = ((sp.Rational(1, 2), sp.Rational(1, 10)),
                 (sp.Rational(9, 10), sp.Rational(1, 100000)),
                 (sp.Rational(99, 100), sp.Rational(1, 2)))


def gaussian() -> Lemma:
    P = params(("eps", "pos"), ("delta", "pos"), ("k", "nonneg"), ("x1", "real"), ("x2", "real"))
    S = symbols(P)
    eps, delta, k, x1, x2 = S["eps"], S["delta"], S["k"], S["x1"], S["x2"]
    hyps = (sp.Lt(k * eps, 1), sp.Lt(delta, 1), sp.Le(x1 - x2, k), sp.Le(x2 - x1, k))
    var = exprs.sigma(eps, delta) ** 2
    concl = sp.Le(EpsD(k * eps, exprs.NormalDist(x1, var), exprs.NormalDist(x2, var)), delta)
    b = ArtifactBuilder("mech.gaussian", "literature", P, hyps, concl)
    checks = [b.enclosure(sp.Le(_profile_at(e, d), d), prec=128,
                          note=f"exact profile (Balle-Wang) at eps = {e}, delta = {d}, k = 1")
              for e, d in GAUSS_SAMPLES]
    b.cite("Dwork and Roth (2014), Theorem A.1 (eps < 1); paper Definition 3.4; NOTES.md §6. "
           "The supporting steps evaluate the exact privacy profile (mech.gaussian.profile) at "
           "sample points; mech.gaussian.large_eps shows the calibration failing at eps = 7",
           checks)
    return Lemma("mech.gaussian", "the Gaussian mechanism (classic calibration)",
                 "If |x1 - x2| <= k, k eps < 1 and delta < 1, gaussMech(eps, delta, e) is "
                 "(k eps, delta)-DP: EpsD(k eps, N(x1, sigma^2), N(x2, sigma^2)) <= delta, "
                 "sigma = sqrt(2 ln(1.25/delta))/eps.", P, hyps, concl,
                 "Dwork and Roth 2014 Thm A.1; paper Def. 3.4; NOTES.md §6", "literature",
                 b.build())


def gaussian_large_eps() -> Lemma:
    """A certified counterexample: sigma(7, 1/100) does not give (7, 1/100)-DP."""
    e, d = sp.Integer(7), sp.Rational(1, 100)
    var = exprs.sigma(e, d) ** 2
    concl = sp.Gt(EpsD(e, exprs.NormalDist(0, var), exprs.NormalDist(1, var)), d)
    b = ArtifactBuilder("mech.gaussian.large_eps", "proved", (), (), concl)
    prof = b.lemma(registry.get("mech.gaussian.profile"))
    inst = registry.get("mech.gaussian.profile").instantiate(
        {"eps": e, "v": var, "x1": 0, "x2": 1}).conclusion
    pos = b.enclosure(sp.Gt(exprs.sigma(e, d), 0), note="sigma(7, 1/100) > 0")
    big = b.enclosure(sp.Gt(inst.rhs, d), prec=128, note="the exact profile exceeds delta")
    b.qed([b.ref(prof, eps=e, v=var, x1=0, x2=1), pos, big])
    return Lemma("mech.gaussian.large_eps", "the classic Gaussian calibration fails for large eps",
                 "gaussMech(7, 1/100, .) on inputs at distance 1 is not (7, 1/100)-DP: the exact "
                 "EpsD exceeds 1/100. The hypothesis k eps < 1 of mech.gaussian is needed "
                 "(NOTES.md §6).", (), (), concl, "Balle and Wang 2018; NOTES.md §6", "proved",
                 b.build())


def exponential() -> Lemma:
    P = params(("eps", "pos"), ("k", "nonneg"), ("s1", "fun"), ("s2", "fun"))
    S = symbols(P)
    eps, k, s1, s2 = S["eps"], S["k"], S["s1"], S["s2"]
    hyps = (sp.Le(F("ScoreGap")(s1, s2), k),)
    concl = sp.Le(EpsD(k * eps, exprs.ExpMechDist(eps, s1), exprs.ExpMechDist(eps, s2)), 0)
    b = ArtifactBuilder("mech.exponential", "literature", P, hyps, concl)
    u, L = b.declare("u", "real"), b.declare("L", "real")
    s = b.smt(sp.Le(eps * u / 2 + L, k * eps),
              where=[sp.Le(sp.Abs(u), k), sp.Le(L, k * eps / 2)],
              note="log p1(r) - log p2(r) = eps (s1(r) - s2(r))/2 + ln(Z2/Z1), and "
                   "ln(Z2/Z1) <= k eps / 2 termwise")
    b.cite("McSherry and Talwar (FOCS 2007), Theorem 6; Dwork and Roth (2014) Theorem 3.10; "
           "paper Definition 3.5 (exponent eps * score / 2)", [s])
    return Lemma("mech.exponential", "the exponential mechanism",
                 "If the score is k-sensitive in the data for every candidate (ScoreGap <= k) and "
                 "the candidates are public, expMech(eps, score, x) is (k eps, 0)-DP.",
                 P, hyps, concl, "McSherry and Talwar 2007; Dwork and Roth 2014 Thm 3.10",
                 "literature", b.build())


def _hellinger_mech_params(with_delta: bool):
    specs = [("eps", "pos")]
    if with_delta:
        specs.append(("delta", "pos"))
    specs += [("prior", "dist"), ("l1", "list"), ("l2", "list")]
    P = params(*specs)
    return P, symbols(P)


_POSTER = ("Bun, Farina, Gaboardi and Liu, 'Tailoring differentially private Bayesian inference "
           "to distance between distributions' (poster, seed 004)")


def hellinger_poster() -> Lemma:
    P, S = _hellinger_mech_params(True)
    eps, delta, prior, l1, l2 = (S[k] for k in ("eps", "delta", "prior", "l1", "l2"))
    M = F("HellingerMechDist")
    hyps = (F("Adj")(l1, l2), sp.Lt(delta, 1))
    concl = sp.Le(EpsD(eps, M(eps, delta, prior, l1), M(eps, delta, prior, l2)), delta)
    b = ArtifactBuilder("mech.hellinger.poster", "disputed", P, hyps, concl)
    b.cite(_POSTER, dispute="NOTES.md §7: the (eps, delta) proof is disputed; the authors' later "
           "versions change the final delta to e^(eps/2) delta'/2 and, for Dirichlet priors, "
           "replace n + 1 by the number of candidates |R| in gamma. Do not rely on it without "
           "listing it in the trust base.")
    return Lemma("mech.hellinger.poster", "smoothed-Hellinger mechanism, (eps, delta) (poster)",
                 "The poster's claim: hellingerMech(eps, delta, prior, db) with gamma = "
                 "ln(1 - eps / (2 ln(delta / (2(n+1))))) is (eps, delta)-DP.", P, hyps, concl,
                 "seed poster; NOTES.md §7", "disputed", b.build())


def hellinger_poster_corrected() -> Lemma:
    P, S = _hellinger_mech_params(True)
    eps, delta, prior, l1, l2 = (S[k] for k in ("eps", "delta", "prior", "l1", "l2"))
    M = F("HellingerMechDist")
    hyps = (F("Adj")(l1, l2), sp.Lt(delta, 1))
    concl = sp.Le(EpsD(eps, M(eps, delta, prior, l1), M(eps, delta, prior, l2)),
                  sp.exp(eps / 2) * delta / 2)
    b = ArtifactBuilder("mech.hellinger.poster_corrected", "disputed", P, hyps, concl)
    b.cite(_POSTER + "; later versions by the authors",
           dispute="NOTES.md §7: the corrected (eps, e^(eps/2) delta/2) statement still rests on "
           "the disputed (eps, delta) smooth-sensitivity argument (Dirichlet: gamma uses |R| "
           "instead of n + 1)")
    return Lemma("mech.hellinger.poster_corrected",
                 "smoothed-Hellinger mechanism, (eps, e^(eps/2) delta/2) (authors' correction)",
                 "hellingerMech(eps, delta, prior, db) is (eps, e^(eps/2) delta / 2)-DP, delta "
                 "being the one inside gamma.", P, hyps, concl, "authors' later versions; "
                 "NOTES.md §7", "disputed", b.build())


def hellinger_pure() -> Lemma:
    P, S = _hellinger_mech_params(False)
    eps, prior, l1, l2 = (S[k] for k in ("eps", "prior", "l1", "l2"))
    M = F("HellingerMechPureDist")
    hyps = (F("Adj")(l1, l2),)
    concl = sp.Le(EpsD(eps, M(eps, prior, l1), M(eps, prior, l2)), 0)
    b = ArtifactBuilder("mech.hellinger.pure", "literature", P, hyps, concl)
    h1, h2, ls, s1, s2 = (b.declare(n, s) for n, s in (("H1", "nonneg"), ("H2", "nonneg"),
                                                         ("LS", "nonneg"), ("S1", "pos"),
                                                         ("S2", "pos")))
    s = b.smt(sp.Le(sp.Abs(h1 / s1 - h2 / s2), 2),
              where=[sp.Le(h1, 1), sp.Le(h2, 1), sp.Le(sp.Abs(h1 - h2), ls), sp.Le(ls, s1),
                     sp.Le(sp.Abs(1 / s1 - 1 / s2), 1)],
              note="H/S moves by at most LS/S + H |1/S1 - 1/S2| <= 1 + gamma = 2 between "
                   "neighbours (S >= LS; 1/S is gamma-Lipschitz, gamma = 1; H <= 1); the "
                   "exponent eps H/(4S) and the normalizer each move by at most eps/2")
    b.cite(_POSTER + "; pure-eps variant in the authors' later versions (NOTES.md §7): "
           "S(x) = max_x' 1/(1/LS(x') + d(x, x')), exponent eps * score / (4 S)", [s])
    return Lemma("mech.hellinger.pure", "smoothed-Hellinger mechanism, pure eps",
                 "hellingerMechPure(eps, prior, db) is (eps, 0)-DP.", P, hyps, concl,
                 "authors' later versions; NOTES.md §7", "literature", b.build())
