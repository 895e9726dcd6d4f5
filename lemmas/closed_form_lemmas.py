"""The lemmas of the closed forms of ``lemmas.closed_forms``: the g function's monotonicity and
bounds, and the closed forms of BC, the Hellinger distance and KL for the Beta, Dirichlet and
Normal families (registered by ``lemmas.library``).
"""
from __future__ import annotations

from typing import Sequence

import sympy as sp

from lemmas import exprs
from lemmas.core import ArtifactBuilder, Lemma, eq, params, symbols

HALF = sp.Rational(1, 2)


def g_increasing() -> Lemma:
    """g is nondecreasing on (0, oo) (in fact strictly increasing).

    Proof: d/dv g(v) = g(v) (psi(v + 1/2) - psi(v) - 1/(2v)). By the recurrence
    psi(v + 1) = psi(v) + 1/v, the bracket is psi(v + 1/2) - (psi(v) + psi(v + 1))/2, which is
    positive because psi is strictly concave (midpoint of v and v + 1). With g > 0, g' > 0.
    """
    P = params(("x", "pos"), ("y", "pos"))
    x, y = (p.symbol for p in P)
    hyps = (sp.Le(x, y),)
    concl = sp.Le(exprs.g(x), exprs.g(y))
    b = ArtifactBuilder("gfun.increasing", "proved", P, hyps, concl)
    v = b.declare("v", "pos")
    psi = lambda t: sp.polygamma(0, t)
    d = b.identity(eq(sp.Derivative(exprs.g(v), v),
                         exprs.g(v) * (psi(v + HALF) - psi(v) - 1 / (2 * v))),
                   note="logarithmic derivative of g")
    r = b.identity(eq(psi(v + 1), psi(v) + 1 / v), method="gammasimp",
                   note="digamma recurrence (DLMF 5.5.2)")
    c = b.fact("digamma.concave")
    pos = b.positive(exprs.g(v) > 0)
    dpos = b.smt(sp.Derivative(exprs.g(v), v) > 0,
                 [d, r, b.ref(c, u=v, w=v + 1), pos],
                 note="the bracket is psi(v+1/2) - (psi(v) + psi(v+1))/2 > 0")
    mono = b.monotone("g", dpos, sp.Implies(sp.Le(x, y), sp.Le(exprs.g(x), exprs.g(y))))
    b.qed([mono])
    return Lemma("gfun.increasing", "g is increasing",
                 "For 0 < x <= y: g(x) <= g(y), where g(x) = Gamma(x + 1/2)/(Gamma(x) sqrt x).",
                 P, hyps, concl,
                 "NOTES.md §1; proof via the concavity of digamma (DLMF 5.15.1)", "proved",
                 b.build())


def g_bounds() -> Lemma:
    """0 < g(x) <= 1: Gamma(x + 1/2)^2 <= Gamma(x) Gamma(x + 1) = x Gamma(x)^2 (log-convexity)."""
    P = params(("x", "pos"))
    x = P[0].symbol
    concl = sp.And(exprs.g(x) > 0, exprs.g(x) <= 1)
    b = ArtifactBuilder("gfun.bounds", "proved", P, (), concl)
    pos = b.positive(exprs.g(x) > 0)
    sq = b.identity(eq(exprs.g(x) ** 2 * x * sp.gamma(x) ** 2, sp.gamma(x + HALF) ** 2))
    rec = b.identity(eq(sp.gamma(x + 1), x * sp.gamma(x)), method="gammasimp")
    lc = b.fact("gamma.logconvex")
    gp = b.positive(sp.Gt(sp.gamma(x), 0, evaluate=False))
    b.qed([pos, sq, rec, b.ref(lc, u=x, w=x + 1), gp])
    return Lemma("gfun.bounds", "0 < g <= 1",
                 "For x > 0: 0 < g(x) <= 1.", P, (), concl,
                 "log-convexity of Gamma (Bohr-Mollerup); Wendel (1948)", "proved", b.build())


def g_at_one() -> Lemma:
    concl = eq(exprs.g(sp.Integer(1)), sp.sqrt(sp.pi) / 2)
    b = ArtifactBuilder("gfun.at_one", "proved", (), (), concl)
    s = b.identity(concl, method="gammasimp", note="Gamma(3/2) = sqrt(pi)/2")
    b.qed([s])
    return Lemma("gfun.at_one", "g(1) = sqrt(pi)/2",
                 "g(1) = Gamma(3/2)/Gamma(1) = sqrt(pi)/2, so g(1)^2 = pi/4.", (), (), concl,
                 "NOTES.md §1", "proved", b.build())


def _mvbeta_gamma(xs: Sequence[sp.Expr]) -> sp.Expr:
    return sp.Mul(*[sp.gamma(t) for t in xs]) / sp.gamma(sp.Add(*xs))


def _simplex_bc_lemma(family: str, k: int) -> Lemma:
    """BC of two Betas (k = 2) or two Dirichlets over k categories, in closed form."""
    from lemmas import artifacts as A

    if family == "BetaDist":
        lid, names = "beta.bc.closed_form", [("a1", "b1"), ("a2", "b2")]
        P = params(("a1", "pos"), ("b1", "pos"), ("a2", "pos"), ("b2", "pos"))
        S = symbols(P)
        al = [S["a1"], S["b1"]]
        be = [S["a2"], S["b2"]]
        fam = exprs.BetaDist
        fact_bc, fact_int = "bc.def/BetaDist", "integral.dirichlet/k=2"
        first = {"a_1": "a1", "b_1": "b1", "a_2": "a2", "b_2": "b2"}
        dim = None
    else:
        lid = f"dirichlet.bc.closed_form/k={k}"
        P = params(*[(f"a{i}", "pos") for i in range(1, k + 1)],
                   *[(f"b{i}", "pos") for i in range(1, k + 1)])
        S = symbols(P)
        al = [S[f"a{i}"] for i in range(1, k + 1)]
        be = [S[f"b{i}"] for i in range(1, k + 1)]
        fam = exprs.DirichletDist
        fact_bc, fact_int = f"bc.def/DirichletDist/k={k}", f"integral.dirichlet/k={k}"
        first = {}
        for i in range(1, k + 1):
            first[f"a{i}_1"] = f"a{i}"
            first[f"a{i}_2"] = f"b{i}"
        dim = k
    mid = [(u + w) / 2 for u, w in zip(al, be)]
    rhs = _mvbeta_gamma(mid) / sp.sqrt(_mvbeta_gamma(al) * _mvbeta_gamma(be))
    if family == "BetaDist":
        rhs = sp.beta(mid[0], mid[1]) / sp.sqrt(sp.beta(*al) * sp.beta(*be))
    concl = eq(exprs.BC(fam(*al), fam(*be)), rhs)
    b = ArtifactBuilder(lid, "proved", P, (), concl)
    fbc = b.fact(fact_bc)
    # the integral of the fact, instantiated at our parameters
    f = A.fact(fact_bc)
    ft = f.table()
    inst = exprs.substitute(f.formula(), {ft[n]: S[m] for n, m in first.items()})
    lhs_integral = inst.rhs
    lam = lhs_integral.args[0]
    vars_ = lam.variables
    for v in vars_:
        b.declare(v.name, "pos")
    norm = sp.sqrt(sp.Mul(*[1 / _mvbeta_gamma(t) for t in (al, be)]))
    mono = sp.Mul(*[v ** (m - 1) for v, m in zip(vars_, mid)])
    target = exprs.SimplexIntegral(sp.Lambda(vars_, mono))
    scale = b.integral_scale(eq(lhs_integral, norm * target), method="powsimp",
                             note="sqrt(p q) is a constant times a Dirichlet kernel")
    fint = b.fact(fact_int)
    pnames = [f"p{i}" for i in range(1, len(mid) + 1)]
    val = b.identity(concl, method="gammasimp",
                     rewrite=[b.ref(fbc, **_first_map(first, S)), scale,
                              b.ref(fint, **dict(zip(pnames, mid)))],
                     note="chain the three equations; the constants agree")
    b.qed([val])
    title = ("BC of two Betas" if family == "BetaDist" else f"BC of two Dirichlets (k = {k})")
    text = ("BC(Beta(a1, b1), Beta(a2, b2)) = B((a1+a2)/2, (b1+b2)/2) / sqrt(B(a1, b1) B(a2, b2))"
            if family == "BetaDist" else
            "BC(Dir(a), Dir(b)) = B((a+b)/2) / sqrt(B(a) B(b)), B the multivariate Beta function")
    return Lemma(lid, title, text, P, (), concl,
                 "Euler/Dirichlet integral (DLMF 5.12.1); standard", "proved", b.build(), dim)


def _first_map(first, S):
    return {n: S[m] for n, m in first.items()}


def beta_bc_closed_form() -> Lemma:
    return _simplex_bc_lemma("BetaDist", 2)


def dirichlet_bc_closed_form(k: int) -> Lemma:
    return _simplex_bc_lemma("DirichletDist", k)


def normal_bc_closed_form() -> Lemma:
    from lemmas import artifacts as A

    P = params(("m1", "real"), ("v1", "pos"), ("m2", "real"), ("v2", "pos"))
    S = symbols(P)
    m1, v1, m2, v2 = S["m1"], S["v1"], S["m2"], S["v2"]
    rhs = sp.sqrt(2 * sp.sqrt(v1 * v2) / (v1 + v2)) * sp.exp(-(m1 - m2) ** 2 / (4 * (v1 + v2)))
    concl = eq(exprs.BC(exprs.NormalDist(m1, v1), exprs.NormalDist(m2, v2)), rhs)
    b = ArtifactBuilder("normal.bc.closed_form", "proved", P, (), concl)
    fbc = b.fact("bc.def/NormalDist")
    f = A.fact("bc.def/NormalDist")
    ft = f.table()
    first = {"m_1": m1, "v_1": v1, "m_2": m2, "v_2": v2}
    integral = exprs.substitute(f.formula(), {ft[n]: t for n, t in first.items()}).rhs
    t = b.declare("t", "real")
    M = (m1 * v2 + m2 * v1) / (v1 + v2)
    V = 2 * v1 * v2 / (v1 + v2)
    K = sp.exp(-(m1 - m2) ** 2 / (4 * (v1 + v2))) / sp.sqrt(2 * sp.pi * sp.sqrt(v1 * v2))
    kernel = sp.Integral(sp.exp(-(t - M) ** 2 / (2 * V)), (t, -sp.oo, sp.oo))
    scale = b.integral_scale(eq(integral, K * kernel), method="logratio",
                             note="completing the square")
    gauss = b.fact("integral.gauss")
    val = b.identity(concl, method="simplify",
                     rewrite=[b.ref(fbc, **first), scale, b.ref(gauss, m=M, v=V)],
                     note="chain the three equations; the constants agree")
    b.qed([val])
    return Lemma("normal.bc.closed_form", "BC of two Normals",
                 "BC(N(m1, v1), N(m2, v2)) = sqrt(2 sqrt(v1 v2)/(v1 + v2)) "
                 "exp(-(m1 - m2)^2 / (4 (v1 + v2)))  (v = variance)",
                 P, (), concl, "Gaussian integral; standard", "proved", b.build())


def hellinger_from_bc(bc_lemma: Lemma, lid: str, title: str, dim=None) -> Lemma:
    """Hellinger(p, q) = sqrt(1 - <closed form of BC>) from a BC closed-form lemma."""
    P = bc_lemma.parameters
    bc_eq = bc_lemma.conclusion
    pdist, qdist = bc_eq.lhs.args
    concl = eq(exprs.Hellinger(pdist, qdist), sp.sqrt(1 - bc_eq.rhs))
    b = ArtifactBuilder(lid, "proved", P, (), concl)
    c = b.lemma(bc_lemma)
    h = b.fact("def.hellinger")
    S = symbols(P)
    b.qed([b.ref(c, **{p.name: S[p.name] for p in P}), b.ref(h, p=pdist, q=qdist)])
    return Lemma(lid, title, f"Hellinger distance sqrt(1 - BC) with BC from {bc_lemma.id}",
                 P, (), concl, f"{bc_lemma.id}; definition of H (NOTES.md §3)", "proved",
                 b.build(), dim)


def _declare_dists(b: ArtifactBuilder, *names: str) -> None:
    for n in names:
        b.declare(n, "dist")


def beta_kl_closed_form() -> Lemma:
    P = params(("a1", "pos"), ("b1", "pos"), ("a2", "pos"), ("b2", "pos"))
    S = symbols(P)
    a1, b1, a2, b2 = S["a1"], S["b1"], S["a2"], S["b2"]
    psi = lambda t: sp.polygamma(0, t)
    rhs = (sp.log(sp.beta(a2, b2)) - sp.log(sp.beta(a1, b1)) + (a1 - a2) * psi(a1)
           + (b1 - b2) * psi(b1) + (a2 - a1 + b2 - b1) * psi(a1 + b1))
    concl = eq(exprs.KL(exprs.BetaDist(a1, b1), exprs.BetaDist(a2, b2)), rhs)
    b = ArtifactBuilder("beta.kl.closed_form", "literature", P, (), concl)
    x, y = b.declare("x", "pos"), b.declare("y", "pos")
    dens = lambda a, bb: sp.gamma(a + bb) / (sp.gamma(a) * sp.gamma(bb)) * x ** (a - 1) * y ** (bb - 1)
    lB = lambda a, bb: sp.log(sp.gamma(a)) + sp.log(sp.gamma(bb)) - sp.log(sp.gamma(a + bb))
    s = b.identity(eq(sp.log(dens(a1, b1) / dens(a2, b2)),
                      lB(a2, b2) - lB(a1, b1) + (a1 - a2) * sp.log(x) + (b1 - b2) * sp.log(y)),
                   method="expand",
                   note="the log density ratio is affine in ln x and ln(1-x); with "
                        "E[ln X] = psi(a1) - psi(a1+b1), E[ln(1-X)] = psi(b1) - psi(a1+b1)")
    b.cite("standard; e.g. Penny, 'KL-divergences of Normal, Gamma, Dirichlet and Wishart "
           "densities' (2001); E ln X for X ~ Beta: Johnson, Kotz & Balakrishnan (1995)", [s])
    return Lemma("beta.kl.closed_form", "KL of two Betas",
                 "KL(Beta(a1,b1) || Beta(a2,b2)) = ln B(a2,b2) - ln B(a1,b1) + (a1-a2) psi(a1) "
                 "+ (b1-b2) psi(b1) + (a2-a1+b2-b1) psi(a1+b1)", P, (), concl,
                 "standard (Penny 2001)", "literature", b.build())


def dirichlet_kl_closed_form(k: int) -> Lemma:
    P = params(*[(f"a{i}", "pos") for i in range(1, k + 1)],
               *[(f"b{i}", "pos") for i in range(1, k + 1)])
    S = symbols(P)
    al = [S[f"a{i}"] for i in range(1, k + 1)]
    be = [S[f"b{i}"] for i in range(1, k + 1)]
    a0, b0 = sp.Add(*al), sp.Add(*be)
    psi = lambda t: sp.polygamma(0, t)
    rhs = (sp.loggamma(a0) - sp.Add(*[sp.loggamma(t) for t in al]) - sp.loggamma(b0)
           + sp.Add(*[sp.loggamma(t) for t in be])
           + sp.Add(*[(u - w) * (psi(u) - psi(a0)) for u, w in zip(al, be)]))
    concl = eq(exprs.KL(exprs.DirichletDist(*al), exprs.DirichletDist(*be)), rhs)
    lid = f"dirichlet.kl.closed_form/k={k}"
    b = ArtifactBuilder(lid, "literature", P, (), concl)
    b.cite("Penny, 'KL-divergences of Normal, Gamma, Dirichlet and Wishart densities' (2001)")
    return Lemma(lid, f"KL of two Dirichlets (k = {k})",
                 "KL(Dir(a) || Dir(b)) = lnG(a0) - sum lnG(a_i) - lnG(b0) + sum lnG(b_i) "
                 "+ sum (a_i - b_i)(psi(a_i) - psi(a0))", P, (), concl,
                 "Penny 2001", "literature", b.build(), k)


def normal_kl_closed_form() -> Lemma:
    P = params(("m1", "real"), ("v1", "pos"), ("m2", "real"), ("v2", "pos"))
    S = symbols(P)
    m1, v1, m2, v2 = S["m1"], S["v1"], S["m2"], S["v2"]
    rhs = (v1 / v2 + (m1 - m2) ** 2 / v2 - 1 + sp.log(v2 / v1)) / 2
    concl = eq(exprs.KL(exprs.NormalDist(m1, v1), exprs.NormalDist(m2, v2)), rhs)
    b = ArtifactBuilder("normal.kl.closed_form", "literature", P, (), concl)
    t = b.declare("t", "real")
    dens = lambda m, v: sp.exp(-(t - m) ** 2 / (2 * v)) / sp.sqrt(2 * sp.pi * v)
    s = b.identity(eq(sp.log(dens(m1, v1)) - sp.log(dens(m2, v2)),
                         sp.log(v2 / v1) / 2 - (t - m1) ** 2 / (2 * v1) + (t - m2) ** 2 / (2 * v2)),
                   method="simplify",
                   note="log density ratio; its mean under N(m1, v1) gives the closed form")
    b.cite("standard; e.g. Penny (2001), Cover & Thomas (2006)", [s])
    return Lemma("normal.kl.closed_form", "KL of two Normals",
                 "KL(N(m1, v1) || N(m2, v2)) = (v1/v2 + (m1-m2)^2/v2 - 1 + ln(v2/v1)) / 2",
                 P, (), concl, "standard (Penny 2001)", "literature", b.build())
