"""f-divergence lemmas: Table 1, the Hellinger metric, composability (Lemma 3.4), post-
processing (Theorem 3.1 / Lemma 3.2), sequential composition (Lemma 3.3), group privacy.

Table 1's "simplified forms" are per-point identities between mu2 f(mu1/mu2) and the summand of
the simplified form; they are proved with sympy (``fdiv.*.simplified``), as is the per-point
identity behind HD = 1 - BC.

Lemma 3.4 (Barthe and Olmedo): all four claims are true. (eps1-D, eps2-D) compose to
(eps1+eps2)-D with the deltas adding (adaptive composition); SD and KL compose additively; and —
checked here because the brief asked — HD = 1 - BC composes additively too:
BC(bind mu1 M1, bind mu2 M2) >= BC(mu1, mu2) inf_v BC(M1 v, M2 v) by Cauchy-Schwarz, and
1 - xy <= (1 - x) + (1 - y) for x, y in [0, 1]. The Hellinger *distance* H = sqrt(HD) then
satisfies H3 <= sqrt(H1^2 + H2^2) <= H1 + H2 (``compose.hellinger``, proved from ``compose.hd``).
The composability statements themselves are taken from the literature; their algebraic cores
are checked as supporting steps. Post-processing is *derived* from composability (a kernel is at
divergence 0 from itself).

Statements use the vocabulary of ``lemmas.exprs``: ``Bind(m, M)``, ``Prod(m, n)``, and the kernel
suprema ``KSD(M1, M2) = sup_v SD(M1 v, M2 v)`` (likewise ``KHD``, ``KKL``, ``KEpsD``).
"""
from __future__ import annotations

import sympy as sp

from lemmas import exprs, registry
from lemmas.core import ArtifactBuilder, Lemma, eq, params, symbols

SD, HD, KL, EpsD, Hel, BCf = (exprs.SD, exprs.HD, exprs.KL, exprs.EpsD, exprs.Hellinger,
                              exprs.BC)
Bind, Prod = exprs.Bind, exprs.Prod
F = exprs.function


# --------------------------------------------------------------------------------------------
# Table 1

def _pointwise(lid: str, title: str, text: str, specs, lhs, rhs, method: str) -> Lemma:
    P = params(*specs)
    S = symbols(P)
    concl = eq(lhs(S), rhs(S))
    b = ArtifactBuilder(lid, "proved", P, (), concl)
    s = b.identity(concl, method=method)
    b.qed([s])
    return Lemma(lid, title, text, P, (), concl, "paper §3.3, Table 1 (Csiszar and Shields)",
                 "proved", b.build())


def table1_sd() -> Lemma:
    return _pointwise("fdiv.sd.simplified", "Table 1: SD",
                      "mu2 f_SD(mu1/mu2) = |mu1 - mu2| / 2 pointwise, f_SD(x) = |x - 1| / 2.",
                      [("p", "nonneg"), ("q", "pos")],
                      lambda S: S["q"] * sp.Abs(S["p"] / S["q"] - 1) / 2,
                      lambda S: sp.Abs(S["p"] - S["q"]) / 2, "simplify")


def table1_hd() -> Lemma:
    return _pointwise("fdiv.hd.simplified", "Table 1: HD",
                      "mu2 f_HD(mu1/mu2) = (sqrt mu1 - sqrt mu2)^2 / 2 pointwise, "
                      "f_HD(x) = (sqrt x - 1)^2 / 2.",
                      [("p", "nonneg"), ("q", "pos")],
                      lambda S: S["q"] * (sp.sqrt(S["p"] / S["q"]) - 1) ** 2 / 2,
                      lambda S: (sp.sqrt(S["p"]) - sp.sqrt(S["q"])) ** 2 / 2, "expand")


def table1_kl() -> Lemma:
    return _pointwise("fdiv.kl.simplified", "Table 1: KL",
                      "mu2 f_KL(mu1/mu2) = mu1 ln(mu1/mu2) - mu1 + mu2 pointwise, "
                      "f_KL(x) = x ln x - x + 1; the last two terms sum to 0 over the support.",
                      [("p", "pos"), ("q", "pos")],
                      lambda S: S["q"] * (S["p"] / S["q"] * sp.log(S["p"] / S["q"])
                                          - S["p"] / S["q"] + 1),
                      lambda S: S["p"] * sp.log(S["p"] / S["q"]) - S["p"] + S["q"], "expand")


def table1_epsd() -> Lemma:
    P = params(("p", "nonneg"), ("q", "pos"), ("eps", "real"))
    S = symbols(P)
    p, q, e = S["p"], S["q"], S["eps"]
    concl = eq(q * sp.Max(p / q - sp.exp(e), 0), sp.Max(p - sp.exp(e) * q, 0))
    b = ArtifactBuilder("fdiv.epsd.simplified", "proved", P, (), concl)
    b.qed([], note="q > 0 scales the maximum")
    return Lemma("fdiv.epsd.simplified", "Table 1: epsilon-D",
                 "mu2 f(mu1/mu2) = max(mu1 - e^eps mu2, 0) pointwise, f(x) = max(x - e^eps, 0).",
                 P, (), concl, "paper §3.3, Table 1 (Barthe and Olmedo)", "proved", b.build())


def hd_one_minus_bc_pointwise() -> Lemma:
    return _pointwise("fdiv.hd.one_minus_bc", "HD = 1 - BC (per point)",
                      "(sqrt p - sqrt q)^2 / 2 = (p + q)/2 - sqrt(p q); summed over a support "
                      "where p and q have mass 1, HD = 1 - BC = H^2 (NOTES.md §3).",
                      [("p", "nonneg"), ("q", "nonneg")],
                      lambda S: (sp.sqrt(S["p"]) - sp.sqrt(S["q"])) ** 2 / 2,
                      lambda S: (S["p"] + S["q"]) / 2 - sp.sqrt(S["p"] * S["q"]), "expand")


# --------------------------------------------------------------------------------------------
# Hellinger distance, statistical distance

def _pq(extra=()):
    P = params(("p", "dist"), ("q", "dist"), *extra)
    return P, symbols(P)


def hellinger_def() -> Lemma:
    P, S = _pq()
    p, q = S["p"], S["q"]
    concl = sp.And(eq(Hel(p, q), sp.sqrt(1 - BCf(p, q))), eq(Hel(p, q), sp.sqrt(HD(p, q))),
                   sp.Ge(HD(p, q), 0), sp.Le(HD(p, q), 1),
                   sp.Ge(Hel(p, q), 0), sp.Le(Hel(p, q), 1), eq(Hel(p, q), Hel(q, p)))
    b = ArtifactBuilder("hellinger.def", "proved", P, (), concl)
    hdef = b.fact("def.hellinger")
    fs = [b.ref(b.fact(f), p=p, q=q) for f in ("def.hd", "bc.range", "bc.symmetric")]
    b.qed(fs + [b.ref(hdef, p=p, q=q), b.ref(hdef, p=q, q=p)])
    return Lemma("hellinger.def", "the Hellinger distance and HD",
                 "H(p, q) = sqrt(1 - BC(p, q)) = sqrt(HD(p, q)); HD and H lie in [0, 1]; H is "
                 "symmetric.",
                 P, (), concl, "NOTES.md §3; Table 1", "proved", b.build())


def hellinger_metric() -> Lemma:
    P = params(("p", "dist"), ("q", "dist"), ("r", "dist"))
    S = symbols(P)
    p, q, r = S["p"], S["q"], S["r"]
    concl = sp.Le(Hel(p, r), Hel(p, q) + Hel(q, r))
    b = ArtifactBuilder("hellinger.triangle", "literature", P, (), concl)
    b.cite("H(p, q) = ||sqrt p - sqrt q||_2 / sqrt 2 is an L2 distance (Minkowski's inequality); "
           "e.g. Tsybakov, Introduction to Nonparametric Estimation (2009), §2.4")
    return Lemma("hellinger.triangle", "the Hellinger distance is a metric",
                 "H(p, r) <= H(p, q) + H(q, r).", P, (), concl,
                 "standard (Tsybakov 2009, §2.4); NOTES.md §3", "literature", b.build())


def hellinger_score_sensitivity() -> Lemma:
    """|H(p, r) - H(q, r)| <= H(p, q): the score -H(posterior, r) is H-sensitive."""
    P = params(("p", "dist"), ("q", "dist"), ("r", "dist"))
    S = symbols(P)
    p, q, r = S["p"], S["q"], S["r"]
    concl = sp.Le(sp.Abs(Hel(p, r) - Hel(q, r)), Hel(p, q))
    b = ArtifactBuilder("hellinger.score_sensitivity", "proved", P, (), concl)
    tri = b.lemma(registry.get("hellinger.triangle"))
    d = b.lemma(registry.get("hellinger.def"))
    b.qed([b.ref(tri, p=p, q=q, r=r), b.ref(tri, p=q, q=p, r=r), b.ref(d, p=p, q=q)])
    return Lemma("hellinger.score_sensitivity", "reverse triangle inequality for H",
                 "|H(p, r) - H(q, r)| <= H(p, q) (so a Hellinger score is as sensitive as the "
                 "posterior; NOTES.md §3).", P, (), concl, "metric property", "proved", b.build())


def sd_metric() -> Lemma:
    P = params(("p", "dist"), ("q", "dist"), ("r", "dist"))
    S = symbols(P)
    p, q, r = S["p"], S["q"], S["r"]
    concl = sp.And(sp.Le(SD(p, r), SD(p, q) + SD(q, r)), eq(SD(p, q), SD(q, p)),
                   sp.Ge(SD(p, q), 0), sp.Le(SD(p, q), 1))
    b = ArtifactBuilder("sd.metric", "literature", P, (), concl)
    b.cite("SD(p, q) = sup_E |p(E) - q(E)| = ||p - q||_1 / 2: a metric bounded by 1")
    return Lemma("sd.metric", "the statistical distance is a metric",
                 "SD satisfies the triangle inequality, is symmetric and lies in [0, 1].",
                 P, (), concl, "standard (Tsybakov 2009, §2.4)", "literature", b.build())


def sd_score_sensitivity() -> Lemma:
    P = params(("p", "dist"), ("q", "dist"), ("r", "dist"))
    S = symbols(P)
    p, q, r = S["p"], S["q"], S["r"]
    concl = sp.Le(sp.Abs(SD(p, r) - SD(q, r)), SD(p, q))
    b = ArtifactBuilder("sd.score_sensitivity", "proved", P, (), concl)
    m = b.lemma(registry.get("sd.metric"))
    b.qed([b.ref(m, p=p, q=q, r=r), b.ref(m, p=q, q=p, r=r), b.ref(m, p=q, q=r, r=p),
           b.ref(m, p=p, q=r, r=q)])
    return Lemma("sd.score_sensitivity", "reverse triangle inequality for SD",
                 "|SD(p, r) - SD(q, r)| <= SD(p, q).", P, (), concl, "metric property",
                 "proved", b.build())


def sd_le_hellinger() -> Lemma:
    P, S = _pq()
    p, q = S["p"], S["q"]
    concl = sp.Le(SD(p, q), sp.sqrt(2) * Hel(p, q))
    b = ArtifactBuilder("sd.hellinger", "proved", P, (), concl)
    fs = [b.ref(b.fact(f), p=p, q=q) for f in ("sd.lecam", "def.hellinger", "bc.range")]
    b.qed(fs, note="1 - BC^2 = (1 - BC)(1 + BC) <= 2 (1 - BC)")
    return Lemma("sd.hellinger", "SD <= sqrt(2) H",
                 "SD(p, q) <= sqrt(1 - BC^2) <= sqrt(2) H(p, q) (Le Cam).", P, (), concl,
                 "Le Cam (1973); Tsybakov (2009) Lemma 2.3", "proved", b.build())


def hellinger_sq_le_sd() -> Lemma:
    P, S = _pq()
    p, q = S["p"], S["q"]
    concl = sp.Le(1 - BCf(p, q), SD(p, q))
    b = ArtifactBuilder("hellinger.sq.le.sd", "literature", P, (), concl)
    b.cite("H^2 / 2 <= V with H^2 = sum (sqrt p - sqrt q)^2 = 2 (1 - BC): Tsybakov (2009), "
           "Lemma 2.3")
    return Lemma("hellinger.sq.le.sd", "1 - BC <= SD",
                 "The square of the Hellinger distance, 1 - BC(p, q), is at most the "
                 "statistical distance (Le Cam).", P, (), concl,
                 "Le Cam (1973); Tsybakov (2009) Lemma 2.3", "literature", b.build())


def sd_pinsker() -> Lemma:
    P, S = _pq()
    p, q = S["p"], S["q"]
    concl = sp.Le(2 * SD(p, q) ** 2, KL(p, q))
    b = ArtifactBuilder("sd.pinsker", "literature", P, (), concl)
    b.cite("Pinsker's inequality V <= sqrt(KL / 2), KL in nats: Tsybakov (2009), Lemma 2.5")
    return Lemma("sd.pinsker", "Pinsker's inequality",
                 "2 SD(p, q)^2 <= KL(p, q) (natural logarithm).", P, (), concl,
                 "Pinsker (1964); Tsybakov (2009) Lemma 2.5", "literature", b.build())


def sd_bernoulli() -> Lemma:
    P = params(("a", "real"), ("b", "real"))
    S = symbols(P)
    a, b = S["a"], S["b"]
    hyps = (sp.Le(0, a), sp.Le(a, 1), sp.Le(0, b), sp.Le(b, 1))
    concl = eq(SD(F("BernoulliDist")(a), F("BernoulliDist")(b)), sp.Abs(a - b))
    bld = ArtifactBuilder("sd.bernoulli", "literature", P, hyps, concl)
    bld.cite("SD(p, q) = sum_x |p(x) - q(x)| / 2 (Tsybakov 2009, §2.4): on {true, false}, "
             "(|a - b| + |(1 - a) - (1 - b)|) / 2 = |a - b|")
    return Lemma("sd.bernoulli", "the statistical distance of two Bernoulli laws",
                 "SD(Bernoulli(a), Bernoulli(b)) = |a - b| for a, b in [0, 1].", P, hyps, concl,
                 "the definition of SD on a two-point space (Tsybakov 2009, §2.4)",
                 "literature", bld.build())


# --------------------------------------------------------------------------------------------
# composability (Lemma 3.4)

def _compose_setup(with_eps: bool):
    specs = []
    if with_eps:
        specs += [("e1", "nonneg"), ("e2", "nonneg")]
    specs += [("d1", "real"), ("d2", "real"), ("m1", "dist"), ("m2", "dist"), ("M1", "fun"),
              ("M2", "fun")]
    P = params(*specs)
    return P, symbols(P)


def compose_epsd() -> Lemma:
    P, S = _compose_setup(True)
    e1, e2, d1, d2, m1, m2, M1, M2 = (S[k] for k in ("e1", "e2", "d1", "d2", "m1", "m2", "M1",
                                                      "M2"))
    hyps = (sp.Le(EpsD(e1, m1, m2), d1), sp.Le(F("KEpsD")(e2, M1, M2), d2))
    concl = sp.Le(EpsD(e1 + e2, Bind(m1, M1), Bind(m2, M2)), d1 + d2)
    b = ArtifactBuilder("compose.epsd", "literature", P, hyps, concl)
    # supporting algebra: M1 v(E) <= min(1, e^e2 M2 v(E)) + d2 and the layer-cake argument
    x, y, E1, E2 = (b.declare(n, s) for n, s in (("x", "nonneg"), ("y", "nonneg"),
                                                   ("E1", "pos"), ("E2", "pos")))
    s = b.smt(sp.Le(x, sp.Min(1, E2 * y) + d2),
              where=[sp.Le(x, 1), sp.Le(x, E2 * y + d2), sp.Ge(d2, 0)],
              note="a [0,1]-valued bound: min(1, e^eps2 y + d2) <= min(1, e^eps2 y) + d2")
    b.cite("Barthe and Olmedo, ICALP 2013 (paper Lemma 3.4); adaptive composition, Dwork and "
           "Roth (2014) Theorem 3.16 / Dwork, Rothblum and Vadhan (2010)", [s])
    return Lemma("compose.epsd", "composability of epsilon-D (Lemma 3.4)",
                 "If EpsD(e1, m1, m2) <= d1 and EpsD(e2, M1 v, M2 v) <= d2 for every v, then "
                 "EpsD(e1 + e2, bind m1 M1, bind m2 M2) <= d1 + d2.", P, hyps, concl,
                 "paper Lemma 3.4 (Barthe and Olmedo 2013)", "literature", b.build())


def _compose_additive(name: str, fun, kfun_name: str, source: str, support=None) -> Lemma:
    P, S = _compose_setup(False)
    d1, d2, m1, m2, M1, M2 = (S[k] for k in ("d1", "d2", "m1", "m2", "M1", "M2"))
    hyps = (sp.Le(fun(m1, m2), d1), sp.Le(F(kfun_name)(M1, M2), d2))
    concl = sp.Le(fun(Bind(m1, M1), Bind(m2, M2)), d1 + d2)
    lid = f"compose.{name}"
    b = ArtifactBuilder(lid, "literature", P, hyps, concl)
    prem = [support(b)] if support else []
    b.cite(source, prem)
    return Lemma(lid, f"composability of {name.upper()} (Lemma 3.4)",
                 f"If {name.upper()}(m1, m2) <= d1 and {name.upper()}(M1 v, M2 v) <= d2 for every v, "
                 f"then {name.upper()}(bind m1 M1, bind m2 M2) <= d1 + d2.", P, hyps, concl,
                 "paper Lemma 3.4 (Barthe and Olmedo 2013)", "literature", b.build())


def compose_sd() -> Lemma:
    return _compose_additive(
        "sd", SD, "KSD",
        "Barthe and Olmedo, ICALP 2013; triangle inequality through bind m2 M1 and the data "
        "processing inequality")


def compose_kl() -> Lemma:
    return _compose_additive(
        "kl", KL, "KKL",
        "Barthe and Olmedo, ICALP 2013; chain rule of KL (Cover and Thomas 2006, Thm 2.5.3) and "
        "data processing")


def compose_hd() -> Lemma:
    def support(b: ArtifactBuilder) -> str:
        x, y = b.declare("x", "nonneg"), b.declare("y", "nonneg")
        return b.smt(sp.Le(1 - x * y, (1 - x) + (1 - y)), where=[sp.Le(x, 1), sp.Le(y, 1)],
                     note="with BC(bind) >= BC(mu1, mu2) inf_v BC(M1 v, M2 v) (Cauchy-Schwarz): "
                          "1 - xy - (1 - x) - (1 - y) = -(1 - x)(1 - y) <= 0")
    return _compose_additive(
        "hd", HD, "KHD",
        "Barthe and Olmedo, ICALP 2013 (re-derived: Cauchy-Schwarz per output point gives "
        "BC(bind m1 M1, bind m2 M2) >= sum_v sqrt(m1(v) m2(v)) BC(M1 v, M2 v))", support)


def compose_hellinger() -> Lemma:
    """The Hellinger distance composes: H3 <= sqrt(H1^2 + H2^2) <= H1 + H2."""
    P = params(("d1", "nonneg"), ("d2", "nonneg"), ("m1", "dist"), ("m2", "dist"), ("M1", "fun"),
               ("M2", "fun"))
    S = symbols(P)
    d1, d2, m1, m2, M1, M2 = (S[k] for k in ("d1", "d2", "m1", "m2", "M1", "M2"))
    hyps = (sp.Le(Hel(m1, m2), d1), sp.Le(F("KHD")(M1, M2), d2 ** 2))
    b3 = Hel(Bind(m1, M1), Bind(m2, M2))
    concl = sp.And(sp.Le(b3, sp.sqrt(d1 ** 2 + d2 ** 2)), sp.Le(b3, d1 + d2))
    b = ArtifactBuilder("compose.hellinger", "proved", P, hyps, concl)
    hd = b.lemma(registry.get("compose.hd"))
    hdef = b.lemma(registry.get("hellinger.def"))
    b.qed([b.ref(hd, d1=HD(m1, m2), d2=d2 ** 2, m1=m1, m2=m2, M1=M1, M2=M2),
           b.ref(hdef, p=m1, q=m2), b.ref(hdef, p=Bind(m1, M1), q=Bind(m2, M2))],
          note="HD = H^2, so HD(bind) <= d1^2 + d2^2")
    return Lemma("compose.hellinger", "composability of the Hellinger distance",
                 "If H(m1, m2) <= d1 and H(M1 v, M2 v) <= d2 for every v (i.e. KHD <= d2^2), "
                 "then H(bind m1 M1, bind m2 M2) <= sqrt(d1^2 + d2^2) <= d1 + d2.", P, hyps, concl,
                 "from compose.hd (HD = H^2, NOTES.md §3)", "proved", b.build())


# --------------------------------------------------------------------------------------------
# post-processing (derived), sequential composition, group privacy

def post_processing(name: str) -> Lemma:
    """Delta(bind m1 N, bind m2 N) <= Delta(m1, m2): composability with M1 = M2 = N."""
    specs = [("m1", "dist"), ("m2", "dist"), ("N", "fun")]
    if name == "epsd":
        specs.insert(0, ("eps", "nonneg"))
    P = params(*specs)
    S = symbols(P)
    m1, m2, N = S["m1"], S["m2"], S["N"]
    if name == "epsd":
        e = S["eps"]
        lhs, rhs = EpsD(e, Bind(m1, N), Bind(m2, N)), EpsD(e, m1, m2)
    else:
        fun = {"sd": SD, "hd": HD, "kl": KL}[name]
        lhs, rhs = fun(Bind(m1, N), Bind(m2, N)), fun(m1, m2)
    concl = sp.Le(lhs, rhs)
    lid = f"post.{name}"
    b = ArtifactBuilder(lid, "proved", P, (), concl)
    comp = b.lemma(registry.get(f"compose.{name}"))
    zero = b.lemma(registry.get("kernel.self"))
    if name == "epsd":
        at = dict(e1=e, e2=0, d1=rhs, d2=0, m1=m1, m2=m2, M1=N, M2=N)
    else:
        at = dict(d1=rhs, d2=0, m1=m1, m2=m2, M1=N, M2=N)
    b.qed([b.ref(comp, **at), b.ref(zero, M=N)], note="a kernel is at divergence 0 from itself")
    return Lemma(lid, f"post-processing for {name.upper()} (Theorem 3.1, Lemma 3.2)",
                 "Running the same randomized program N on both sides cannot increase the "
                 "divergence.", P, (), concl,
                 "paper Theorem 3.1 / Lemma 3.2; derived from compose." + name, "proved", b.build())


def kernel_self() -> Lemma:
    P = params(("M", "fun"))
    M = P[0].symbol
    concl = sp.And(eq(F("KSD")(M, M), 0), eq(F("KHD")(M, M), 0), eq(F("KKL")(M, M), 0),
                   eq(F("KEpsD")(0, M, M), 0))
    b = ArtifactBuilder("kernel.self", "literature", P, (), concl)
    b.cite("definitions (Table 1): every f-divergence vanishes on equal distributions, "
           "f(1) = 0; and sum max(p - e^0 p, 0) = 0")
    return Lemma("kernel.self", "a kernel is at divergence 0 from itself",
                 "sup_v Delta(N v, N v) = 0 for SD, HD, KL and 0-D.", P, (), concl,
                 "Definition 3.6 (f(1) = 0)", "literature", b.build())


def sequential_composition() -> Lemma:
    P = params(("e1", "nonneg"), ("e2", "nonneg"), ("d1", "real"), ("d2", "real"),
               ("m1", "dist"), ("m2", "dist"), ("n1", "dist"), ("n2", "dist"))
    S = symbols(P)
    e1, e2, d1, d2, m1, m2, n1, n2 = (S[k] for k in ("e1", "e2", "d1", "d2", "m1", "m2", "n1",
                                                      "n2"))
    hyps = (sp.Le(EpsD(e1, m1, m2), d1), sp.Le(EpsD(e2, n1, n2), d2))
    concl = sp.Le(EpsD(e1 + e2, Prod(m1, n1), Prod(m2, n2)), d1 + d2)
    b = ArtifactBuilder("dp.sequential", "literature", P, hyps, concl)
    b.cite("Dwork and Roth (2014), Theorem 3.16; paper Lemma 3.3")
    return Lemma("dp.sequential", "sequential composition (Lemma 3.3)",
                 "(e1, d1)- and (e2, d2)-close pairs give an (e1 + e2, d1 + d2)-close product.",
                 P, hyps, concl, "paper Lemma 3.3; Dwork and Roth (2014) Thm 3.16",
                 "literature", b.build())


def dp_triangle() -> Lemma:
    P = params(("e1", "nonneg"), ("e2", "nonneg"), ("d1", "nonneg"), ("d2", "nonneg"),
               ("m1", "dist"), ("m2", "dist"), ("m3", "dist"))
    S = symbols(P)
    e1, e2, d1, d2, m1, m2, m3 = (S[k] for k in ("e1", "e2", "d1", "d2", "m1", "m2", "m3"))
    hyps = (sp.Le(EpsD(e1, m1, m2), d1), sp.Le(EpsD(e2, m2, m3), d2))
    concl = sp.Le(EpsD(e1 + e2, m1, m3), d1 + sp.exp(e1) * d2)
    b = ArtifactBuilder("dp.triangle", "literature", P, hyps, concl)
    P1, P2, P3, E1, E2 = (b.declare(n, "nonneg") for n in ("P1", "P2", "P3", "E1", "E2"))
    s = b.smt(sp.Le(P1, E1 * E2 * P3 + d1 + E1 * d2),
              where=[sp.Le(P1, E1 * P2 + d1), sp.Le(P2, E2 * P3 + d2)],
              note="per event E, with Pi = mi(E), E1 = e^e1, E2 = e^e2")
    b.cite("the event characterization of epsilon-D (paper Lemma 3.1; Barthe et al. 2012); "
           "Dwork and Roth (2014), proof of Theorem 2.2", [s])
    return Lemma("dp.triangle", "weak triangle inequality for epsilon-D",
                 "EpsD(e1, m1, m2) <= d1 and EpsD(e2, m2, m3) <= d2 give "
                 "EpsD(e1 + e2, m1, m3) <= d1 + e^e1 d2.", P, hyps, concl,
                 "Dwork and Roth (2014) §2.3", "literature", b.build())


def group_privacy() -> Lemma:
    P = params(("eps", "nonneg"), ("delta", "nonneg"), ("k", "nat"), ("M", "fun"),
               ("l1", "list"), ("l2", "list"))
    S = symbols(P)
    eps, delta, k, M, l1, l2 = (S[x] for x in ("eps", "delta", "k", "M", "l1", "l2"))
    hyps = (F("DPAdj")(M, eps, delta), sp.Le(F("HammingDist")(l1, l2), k),
            eq(F("Length")(l1), F("Length")(l2)))
    concl = sp.Le(EpsD(k * eps, exprs.Apply(M, l1), exprs.Apply(M, l2)),
                  k * sp.exp((k - 1) * eps) * delta)
    b = ArtifactBuilder("dp.group", "literature", P, hyps, concl)
    b.cite("Dwork and Roth (2014), Theorem 2.2 (delta = 0); for delta > 0 iterate dp.triangle: "
           "delta_k = delta sum_{i<k} e^(i eps) <= k e^((k-1) eps) delta (Vadhan 2017, Lemma 2.2)")
    return Lemma("dp.group", "group privacy",
                 "An (eps, delta)-DP mechanism is (k eps, k e^((k-1) eps) delta)-close on lists at "
                 "Hamming distance at most k.", P, hyps, concl,
                 "Dwork and Roth (2014) Thm 2.2; Vadhan (2017) Lemma 2.2", "literature",
                 b.build())
