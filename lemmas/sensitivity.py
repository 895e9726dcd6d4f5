"""Sensitivity bounds, with the hypotheses they really need (NOTES.md §1, §5).

Posteriors of adjacent data (Lemmas 6.1-6.3, corrected)
    Adjacent bool lists of length n have true-counts c1, c2 with |c1 - c2| <= 1, and the
    posteriors are Beta(a + c, b + n - c). When the counts differ the two posteriors are
    Beta(A + 1, B) and Beta(A, B + 1) with A >= a, B >= b, and

        BC = B(A + 1/2, B + 1/2) / sqrt(B(A + 1, B) B(A, B + 1)) = g(A) g(B),
        g(x) = Gamma(x + 1/2) / (Gamma(x) sqrt x)  (increasing, 0 < g <= 1, g(1) = sqrt(pi)/2).

    Hence H <= sqrt(1 - g(a0) g(b0)) whenever a >= a0 > 0 and b >= b0 > 0, and
    H <= rho = sqrt(1 - pi/4) when a, b >= 1. The paper states the rho bound for any a, b > 0;
    that is false (``lemmas.refutations``). The statistical distance follows from Le Cam's
    inequality SD <= sqrt(1 - BC^2) <= sqrt(2) H (Lemma 6.2: zeta = sqrt(2 (1 - pi/4))).
    Dirichlet (Lemma 6.3): moving one observation from category i to j gives g(A_i) g(A_j).

Normal model (NOTES.md §5)
    The posterior mean (m/v + S/kv) / (1/v + n/kv) moves by c v / (kv + n v) when the sum S
    of the readings moves by c, which is at most the paper's c v / (kv + v) for n >= 1.

List statistics
    Count is 1-sensitive and Length 0-sensitive under ``adj``; ListSum is c-sensitive under
    ``adjWithin c``; the category counts of adjacent [k] lists differ by at most 2 in l1 norm.
"""
from __future__ import annotations

from typing import List

import sympy as sp

from lemmas import exprs, registry
from lemmas.core import ArtifactBuilder, Lemma, eq, params, symbols

H, BCf, BetaD, DirD = exprs.Hellinger, exprs.BC, exprs.BetaDist, exprs.DirichletDist
g = exprs.g
RHO = sp.sqrt(1 - sp.pi / 4)
ZETA = sp.sqrt(2 * (1 - sp.pi / 4))


# --------------------------------------------------------------------------------------------
# Beta

def beta_adjacent_setup(lower: str):
    """Parameters, posteriors and hypotheses shared by the Beta lemmas.

    ``lower``: "general" (a >= a0 > 0, b >= b0 > 0) or "one" (a, b >= 1).
    """
    specs = [("a", "pos"), ("b", "pos")]
    if lower == "general":
        specs += [("a0", "pos"), ("b0", "pos")]
    specs += [("n", "nat"), ("c1", "nat"), ("c2", "nat")]
    P = params(*specs)
    S = symbols(P)
    a, b, n, c1, c2 = S["a"], S["b"], S["n"], S["c1"], S["c2"]
    if lower == "general":
        lo = [sp.Ge(a, S["a0"]), sp.Ge(b, S["b0"])]
    else:
        lo = [sp.Ge(a, 1), sp.Ge(b, 1)]
    hyps = tuple(lo + [sp.Le(c1, n), sp.Le(c2, n), sp.Le(c1 - c2, 1), sp.Le(c2 - c1, 1)])
    p1 = BetaD(a + c1, b + n - c1)
    p2 = BetaD(a + c2, b + n - c2)
    return P, S, hyps, p1, p2


_ADJ_TEXT = ("the posteriors of Beta(a, b) after two adjacent bool lists of length n, with "
             "true-counts c1 and c2 (so |c1 - c2| <= 1)")


def beta_bc_adjacent_core() -> Lemma:
    """BC(Beta(A + 1, B), Beta(A, B + 1)) = g(A) g(B)."""
    P = params(("A", "pos"), ("B", "pos"))
    A, B = (p.symbol for p in P)
    concl = eq(BCf(BetaD(A + 1, B), BetaD(A, B + 1)), g(A) * g(B))
    bld = ArtifactBuilder("beta.bc.adjacent", "proved", P, (), concl)
    cf = bld.lemma(registry.get("beta.bc.closed_form"))
    s = bld.identity(concl, method="gammasimp",
                     rewrite=[bld.ref(cf, a1=A + 1, b1=B, a2=A, b2=B + 1)],
                     note="B(A+1/2, B+1/2)/sqrt(B(A+1, B) B(A, B+1)) = g(A) g(B)")
    bld.qed([s])
    return Lemma("beta.bc.adjacent", "BC of adjacent Beta posteriors",
                 "BC(Beta(A + 1, B), Beta(A, B + 1)) = g(A) g(B).", P, (), concl,
                 "NOTES.md §1", "proved", bld.build())


def beta_hellinger_adjacent() -> Lemma:
    """(a) H(posteriors of adjacent data) <= sqrt(1 - g(a0) g(b0)) for a >= a0, b >= b0."""
    P, S, hyps, p1, p2 = beta_adjacent_setup("general")
    a, b, a0, b0, n, c1, c2 = (S[k] for k in ("a", "b", "a0", "b0", "n", "c1", "c2"))
    bound = sp.sqrt(1 - g(a0) * g(b0))
    concl = sp.Le(H(p1, p2), bound)
    bld = ArtifactBuilder("beta.hellinger.adjacent", "proved", P, hyps, concl)
    core = bld.lemma(registry.get("beta.bc.adjacent"))
    mono = bld.lemma(registry.get("gfun.increasing"))
    bnd = bld.lemma(registry.get("gfun.bounds"))
    hdef, rng, sym, self_ = (bld.fact(f) for f in
                             ("def.hellinger", "bc.range", "bc.symmetric", "bc.self"))
    bld.qed([
        bld.ref(core, A=a + c2, B=b + n - c1),   # case c1 = c2 + 1
        bld.ref(core, A=a + c1, B=b + n - c2),   # case c2 = c1 + 1
        bld.ref(mono, x=a0, y=a + c2), bld.ref(mono, x=b0, y=b + n - c1),
        bld.ref(mono, x=a0, y=a + c1), bld.ref(mono, x=b0, y=b + n - c2),
        bld.ref(bnd, x=a0), bld.ref(bnd, x=b0),
        bld.ref(hdef, p=p1, q=p2), bld.ref(rng, p=p1, q=p2), bld.ref(sym, p=p1, q=p2),
        bld.ref(self_, p=p1),
    ], note="cases c1 = c2 (H = 0), c1 = c2 + 1, c2 = c1 + 1; g increasing and positive")
    return Lemma("beta.hellinger.adjacent", "Hellinger sensitivity of Beta posteriors (Lemma 6.1 "
                 "corrected, general prior)",
                 f"For {_ADJ_TEXT}: if a >= a0 > 0 and b >= b0 > 0 then "
                 "H <= sqrt(1 - g(a0) g(b0)).", P, hyps, concl,
                 "paper Lemma 6.1, corrected per NOTES.md §1", "proved", bld.build())


def beta_hellinger_adjacent_rho() -> Lemma:
    """(b) a, b >= 1: H <= rho = sqrt(1 - pi/4)."""
    P, S, hyps, p1, p2 = beta_adjacent_setup("one")
    a, b, n, c1, c2 = (S[k] for k in ("a", "b", "n", "c1", "c2"))
    concl = sp.Le(H(p1, p2), RHO)
    bld = ArtifactBuilder("beta.hellinger.adjacent.rho", "proved", P, hyps, concl)
    gen = bld.lemma(registry.get("beta.hellinger.adjacent"))
    one = bld.lemma(registry.get("gfun.at_one"))
    val = bld.identity(eq(sp.sqrt(1 - g(sp.Integer(1)) ** 2), RHO), rewrite=[one],
                       note="g(1)^2 = pi/4")
    bld.qed([bld.ref(gen, a=a, b=b, a0=1, b0=1, n=n, c1=c1, c2=c2), val])
    return Lemma("beta.hellinger.adjacent.rho", "Lemma 6.1 (corrected): rho for priors >= 1",
                 f"For {_ADJ_TEXT}: if a, b >= 1 then H <= rho = sqrt(1 - pi/4).",
                 P, hyps, concl, "paper Lemma 6.1 with the hypothesis of NOTES.md §1", "proved",
                 bld.build())


def beta_tv_adjacent() -> Lemma:
    """(c) SD <= sqrt(2 (1 - g(a0) g(b0))) via Le Cam: SD <= sqrt(1 - BC^2) <= sqrt(2) H."""
    P, S, hyps, p1, p2 = beta_adjacent_setup("general")
    a, b, a0, b0, n, c1, c2 = (S[k] for k in ("a", "b", "a0", "b0", "n", "c1", "c2"))
    concl = sp.Le(exprs.SD(p1, p2), sp.sqrt(2 * (1 - g(a0) * g(b0))))
    bld = ArtifactBuilder("beta.tv.adjacent", "proved", P, hyps, concl)
    gen = bld.lemma(registry.get("beta.hellinger.adjacent"))
    hdef, rng, lecam = (bld.fact(f) for f in ("def.hellinger", "bc.range", "sd.lecam"))
    bnd = bld.lemma(registry.get("gfun.bounds"))
    bld.qed([bld.ref(gen, a=a, b=b, a0=a0, b0=b0, n=n, c1=c1, c2=c2),
             bld.ref(hdef, p=p1, q=p2), bld.ref(rng, p=p1, q=p2), bld.ref(lecam, p=p1, q=p2),
             bld.ref(bnd, x=a0), bld.ref(bnd, x=b0)],
            note="1 - BC^2 = (1 - BC)(1 + BC) <= 2 (1 - BC) = 2 H^2")
    return Lemma("beta.tv.adjacent", "statistical-distance sensitivity of Beta posteriors "
                 "(general prior)",
                 f"For {_ADJ_TEXT}: if a >= a0 > 0 and b >= b0 > 0 then "
                 "SD <= sqrt(2 (1 - g(a0) g(b0))).", P, hyps, concl,
                 "paper Lemma 6.2 corrected (NOTES.md §1); Le Cam's inequality", "proved",
                 bld.build())


def beta_tv_adjacent_zeta() -> Lemma:
    P, S, hyps, p1, p2 = beta_adjacent_setup("one")
    a, b, n, c1, c2 = (S[k] for k in ("a", "b", "n", "c1", "c2"))
    concl = sp.Le(exprs.SD(p1, p2), ZETA)
    bld = ArtifactBuilder("beta.tv.adjacent.zeta", "proved", P, hyps, concl)
    gen = bld.lemma(registry.get("beta.tv.adjacent"))
    one = bld.lemma(registry.get("gfun.at_one"))
    val = bld.identity(eq(sp.sqrt(2 * (1 - g(sp.Integer(1)) ** 2)), ZETA), rewrite=[one])
    bld.qed([bld.ref(gen, a=a, b=b, a0=1, b0=1, n=n, c1=c1, c2=c2), val])
    return Lemma("beta.tv.adjacent.zeta", "Lemma 6.2 (corrected): zeta for priors >= 1",
                 f"For {_ADJ_TEXT}: if a, b >= 1 then SD <= zeta = sqrt(2 (1 - pi/4)).",
                 P, hyps, concl, "paper Lemma 6.2 with the hypothesis of NOTES.md §1", "proved",
                 bld.build())


def beta_kl_adjacent() -> Lemma:
    """KL(Beta(A + 1, B) || Beta(A, B + 1)) and the reverse are at most 1 for A, B >= 1.

    By the closed form both are u(A) - v(B) (resp. u(B) - v(A)) with u(x) = psi(x + 1) - ln x,
    decreasing, and v(x) = psi(x) - ln x, increasing: at most u(1) - v(1) = psi(2) - psi(1)
    = 1, reached at A = B = 1 (the uniform prior, one observation)."""
    P = params(("A", "pos"), ("B", "pos"))
    A, B = (p.symbol for p in P)
    hyps = (sp.Ge(A, 1), sp.Ge(B, 1))
    up, down = BetaD(A + 1, B), BetaD(A, B + 1)
    psi = lambda t: sp.polygamma(0, t)
    forward = psi(A + 1) - sp.log(A) - (psi(B) - sp.log(B))
    backward = psi(B + 1) - sp.log(B) - (psi(A) - sp.log(A))
    concl = sp.And(sp.Le(exprs.KL(up, down), 1), sp.Le(exprs.KL(down, up), 1))
    bld = ArtifactBuilder("beta.kl.adjacent", "proved", P, hyps, concl)
    cf = bld.lemma(registry.get("beta.kl.closed_form"))
    s1 = bld.identity(eq(exprs.KL(up, down), forward), method="gammasimp",
                      rewrite=[bld.ref(cf, a1=A + 1, b1=B, a2=A, b2=B + 1)],
                      note="B(A, B + 1) / B(A + 1, B) = B / A")
    s2 = bld.identity(eq(exprs.KL(down, up), backward), method="gammasimp",
                      rewrite=[bld.ref(cf, a1=A, b1=B + 1, a2=A + 1, b2=B)])
    at_one = bld.identity(eq(psi(sp.Integer(2)) - sp.log(1) - (psi(sp.Integer(1)) - sp.log(1)), 1),
                          method="simplify", note="psi(2) = 1 - gamma, psi(1) = -gamma")
    inc, dec = (bld.fact(f) for f in ("digamma.minus.log.increasing",
                                      "digamma.shift.minus.log.decreasing"))
    bld.qed([s1, s2, at_one,
             bld.ref(inc, u=1, w=A), bld.ref(inc, u=1, w=B),
             bld.ref(dec, u=1, w=A), bld.ref(dec, u=1, w=B)],
            note="u(A) <= u(1), v(B) >= v(1), and symmetrically")
    return Lemma("beta.kl.adjacent", "KL sensitivity of Beta posteriors (priors >= 1)",
                 "KL(Beta(A + 1, B) || Beta(A, B + 1)) <= 1 and KL(Beta(A, B + 1) || "
                 "Beta(A + 1, B)) <= 1 for A, B >= 1: the posteriors of adjacent bool lists from "
                 "a prior whose parameters are at least 1 are within KL 1 (equal at the uniform "
                 "prior after one observation).", P, hyps, concl,
                 "closed form (Penny 2001) with the monotonicity of psi(x) - ln x and "
                 "psi(x + 1) - ln x", "proved", bld.build())


def dirichlet_kl_adjacent(k: int) -> Lemma:
    """KL(Dir(A + e_i) || Dir(A + e_j)) <= 1 for every i != j when A_i, A_j >= 1: by the
    closed form it is psi(A_i + 1) - ln A_i - (psi(A_j) - ln A_j), bounded as for Betas."""
    P = params(*[(f"A{i}", "pos") for i in range(1, k + 1)])
    As = [p.symbol for p in P]
    psi = lambda t: sp.polygamma(0, t)
    lid = f"dirichlet.kl.adjacent/k={k}"
    pairs = []
    for i in range(k):
        for j in range(k):
            if i != j:
                moved_i = DirD(*[x + d for x, d in zip(As, _delta(k, i))])
                moved_j = DirD(*[x + d for x, d in zip(As, _delta(k, j))])
                pairs.append((i, j, moved_i, moved_j, exprs.KL(moved_i, moved_j)))
    concl = sp.And(*[sp.Implies(sp.And(sp.Ge(As[i], 1), sp.Ge(As[j], 1)), sp.Le(kl, 1))
                     for i, j, _, _, kl in pairs])
    bld = ArtifactBuilder(lid, "proved", P, (), concl)
    cf = bld.lemma(registry.get("dirichlet.kl.closed_form", k=k))
    inc, dec = (bld.fact(f) for f in ("digamma.minus.log.increasing",
                                      "digamma.shift.minus.log.decreasing"))
    steps = [bld.identity(eq(psi(sp.Integer(2)) - psi(sp.Integer(1)), 1), method="simplify",
                          note="psi(2) = 1 - gamma, psi(1) = -gamma")]
    for i, j, moved_i, moved_j, kl in pairs:
        form = psi(As[i] + 1) - sp.log(As[i]) - (psi(As[j]) - sp.log(As[j]))
        at = {**{f"a{l + 1}": moved_i.args[l] for l in range(k)},
              **{f"b{l + 1}": moved_j.args[l] for l in range(k)}}
        steps.append(bld.identity(eq(kl, form), method="loggamma", rewrite=[bld.ref(cf, **at)]))
    for x in As:
        steps += [bld.ref(inc, u=1, w=x), bld.ref(dec, u=1, w=x)]
    bld.qed(steps, note="u(A_i) <= u(1) and v(A_j) >= v(1), with u(x) = psi(x + 1) - ln x and "
                        "v(x) = psi(x) - ln x")
    return Lemma(lid, f"KL sensitivity of Dirichlet posteriors (k = {k})",
                 "KL(Dir(A + e_i) || Dir(A + e_j)) <= 1 for i != j when A_i, A_j >= 1 (one "
                 "observation moved from category j to i, from a prior whose parameters are at "
                 "least 1).", P, (), concl, "closed form (Penny 2001) with the monotonicity of "
                 "psi(x) - ln x and psi(x + 1) - ln x", "proved", bld.build(), k)


def kl_gibbs() -> Lemma:
    P = params(("p", "dist"), ("q", "dist"))
    p, q = (x.symbol for x in P)
    concl = sp.And(sp.Ge(exprs.KL(p, q), 0), eq(exprs.KL(p, p), 0))
    bld = ArtifactBuilder("kl.gibbs", "literature", P, (), concl)
    gibbs = bld.fact("kl.gibbs")
    bld.cite("Gibbs' inequality: KL(p || q) >= 0, with equality when p = q (Cover and Thomas "
             "2006, Theorem 2.6.3)", [bld.ref(gibbs, p=p, q=q)])
    return Lemma("kl.gibbs", "Gibbs' inequality", "KL(p, q) >= 0 and KL(p, p) = 0.", P, (),
                 concl, "Cover and Thomas (2006), Theorem 2.6.3", "literature", bld.build())


# --------------------------------------------------------------------------------------------
# Dirichlet

def _delta(k: int, i: int) -> List[int]:
    return [1 if l == i else 0 for l in range(k)]


def dirichlet_bc_adjacent(k: int) -> Lemma:
    """BC(Dir(A + e_i), Dir(A + e_j)) = g(A_i) g(A_j) for every pair i < j (one conjunction)."""
    P = params(*[(f"A{i}", "pos") for i in range(1, k + 1)])
    As = [p.symbol for p in P]
    eqs = []
    for i in range(k):
        for j in range(i + 1, k):
            pi_ = DirD(*[x + d for x, d in zip(As, _delta(k, i))])
            pj = DirD(*[x + d for x, d in zip(As, _delta(k, j))])
            eqs.append(eq(BCf(pi_, pj), g(As[i]) * g(As[j])))
    concl = sp.And(*eqs)
    lid = f"dirichlet.bc.adjacent/k={k}"
    bld = ArtifactBuilder(lid, "proved", P, (), concl)
    cf = bld.lemma(registry.get("dirichlet.bc.closed_form", k=k))
    steps = []
    for e in eqs:
        pi_, pj = e.lhs.args
        at = {**{f"a{l + 1}": pi_.args[l] for l in range(k)},
              **{f"b{l + 1}": pj.args[l] for l in range(k)}}
        steps.append(bld.identity(e, method="gammasimp", rewrite=[bld.ref(cf, **at)]))
    bld.qed(steps)
    return Lemma(lid, f"BC of adjacent Dirichlet posteriors (k = {k})",
                 "For every pair of categories i < j: BC(Dir(A + e_i), Dir(A + e_j)) = "
                 "g(A_i) g(A_j).", P, (), concl, "NOTES.md §1 (Lemma 6.3)", "proved",
                 bld.build(), k)


def _dirichlet_setup(k: int, lower: str):
    specs = [(f"a{i}", "pos") for i in range(1, k + 1)]
    if lower == "general":
        specs.append(("a0", "pos"))
    specs += [(f"c{i}", "nat") for i in range(1, k + 1)]
    specs += [(f"e{i}", "nat") for i in range(1, k + 1)]
    specs.append(("n", "nat"))
    P = params(*specs)
    S = symbols(P)
    al = [S[f"a{i}"] for i in range(1, k + 1)]
    cs = [S[f"c{i}"] for i in range(1, k + 1)]
    es = [S[f"e{i}"] for i in range(1, k + 1)]
    low = S["a0"] if lower == "general" else sp.Integer(1)
    hyps = tuple([sp.Ge(x, low) for x in al]
                 + [eq(sp.Add(*cs), S["n"]), eq(sp.Add(*es), S["n"]),
                    sp.Le(sp.Add(*[sp.Abs(c - e) for c, e in zip(cs, es)]), 2)])
    p = DirD(*[x + c for x, c in zip(al, cs)])
    q = DirD(*[x + e for x, e in zip(al, es)])
    return P, S, al, cs, es, hyps, p, q


_DIR_TEXT = ("the posteriors Dir(a + c), Dir(a + e) of Dirichlet(a1, ..., ak) after two adjacent "
             "[k] lists of length n with category counts c and e (sum |c_i - e_i| <= 2)")


def dirichlet_hellinger_adjacent(k: int) -> Lemma:
    """(d) all a_i >= a0 > 0: H(Dir(a + c), Dir(a + e)) <= sqrt(1 - g(a0)^2)."""
    P, S, al, cs, es, hyps, p, q = _dirichlet_setup(k, "general")
    a0 = S["a0"]
    bound = sp.sqrt(1 - g(a0) ** 2)
    concl = sp.Le(H(p, q), bound)
    lid = f"dirichlet.hellinger.adjacent/k={k}"
    bld = ArtifactBuilder(lid, "proved", P, hyps, concl)
    core = bld.lemma(registry.get("dirichlet.bc.adjacent", k=k))
    mono = bld.lemma(registry.get("gfun.increasing"))
    bnd = bld.lemma(registry.get("gfun.bounds"))
    hdef, rng, sym, self_ = (bld.fact(f) for f in
                             ("def.hellinger", "bc.range", "bc.symmetric", "bc.self"))
    same = bld.smt(sp.Le(H(p, q), bound),
                   [bld.ref(hdef, p=p, q=q), bld.ref(self_, p=p), bld.ref(bnd, x=a0)],
                   where=[eq(c, e) for c, e in zip(cs, es)], note="equal counts: H = 0")
    cases = [same]
    for i in range(k):
        for j in range(k):
            if i == j:
                continue
            # c = e + e_i - e_j; with A = a + e - e_j: q = Dir(A + e_j), p = Dir(A + e_i)
            A = [x + e - d for x, e, d in zip(al, es, _delta(k, j))]
            where = [sp.Ge(x, a0) for x in al]
            for l in range(k):
                if l == i:
                    where.append(eq(cs[l], es[l] + 1))
                elif l == j:
                    where.append(eq(cs[l] + 1, es[l]))
                else:
                    where.append(eq(cs[l], es[l]))
            cases.append(bld.smt(
                sp.Le(H(p, q), bound),
                [bld.ref(core, **{f"A{l + 1}": A[l] for l in range(k)}),
                 bld.ref(mono, x=a0, y=A[i]), bld.ref(mono, x=a0, y=A[j]),
                 bld.ref(bnd, x=a0), bld.ref(hdef, p=p, q=q), bld.ref(rng, p=p, q=q),
                 bld.ref(sym, p=p, q=q)],
                where=where, note=f"one observation moved from category {j + 1} to {i + 1}"))
    bld.qed(cases, note="the hypotheses leave only these cases")
    return Lemma(lid, f"Hellinger sensitivity of Dirichlet posteriors (k = {k}, Lemma 6.3 "
                 "corrected, general prior)",
                 f"For {_DIR_TEXT}: if every a_i >= a0 > 0 then H <= sqrt(1 - g(a0)^2).",
                 P, hyps, concl, "paper Lemma 6.3, corrected per NOTES.md §1", "proved",
                 bld.build(), k)


def dirichlet_hellinger_adjacent_rho(k: int) -> Lemma:
    P, S, al, cs, es, hyps, p, q = _dirichlet_setup(k, "one")
    concl = sp.Le(H(p, q), RHO)
    lid = f"dirichlet.hellinger.adjacent.rho/k={k}"
    bld = ArtifactBuilder(lid, "proved", P, hyps, concl)
    gen = bld.lemma(registry.get("dirichlet.hellinger.adjacent", k=k))
    one = bld.lemma(registry.get("gfun.at_one"))
    val = bld.identity(eq(sp.sqrt(1 - g(sp.Integer(1)) ** 2), RHO), rewrite=[one])
    at = {name: S[name] for name in S}
    at["a0"] = sp.Integer(1)
    bld.qed([bld.ref(gen, **at), val])
    return Lemma(lid, f"Lemma 6.3 (corrected): rho for Dirichlet priors >= 1 (k = {k})",
                 f"For {_DIR_TEXT}: if every a_i >= 1 then H <= rho = sqrt(1 - pi/4).",
                 P, hyps, concl, "paper Lemma 6.3 with the hypothesis of NOTES.md §1", "proved",
                 bld.build(), k)


# --------------------------------------------------------------------------------------------
# Normal

def _normal_setup():
    P = params(("m", "real"), ("v", "pos"), ("kv", "pos"), ("n", "posint"), ("s1", "real"),
               ("s2", "real"), ("c", "nonneg"))
    S = symbols(P)
    hyps = (sp.Le(S["s1"] - S["s2"], S["c"]), sp.Le(S["s2"] - S["s1"], S["c"]))
    mean = lambda s: (S["m"] / S["v"] + s / S["kv"]) / (1 / S["v"] + S["n"] / S["kv"])
    return P, S, hyps, mean


def normal_mean_sensitivity() -> Lemma:
    """(e) |mean(S1) - mean(S2)| <= c v / (kv + n v) when |S1 - S2| <= c."""
    P, S, hyps, mean = _normal_setup()
    m, v, kv, n, s1, s2, c = (S[k] for k in ("m", "v", "kv", "n", "s1", "s2", "c"))
    concl = sp.Le(sp.Abs(mean(s1) - mean(s2)), c * v / (kv + n * v))
    bld = ArtifactBuilder("normal.mean.sensitivity", "proved", P, hyps, concl)
    d = bld.identity(eq(mean(s1) - mean(s2), (s1 - s2) * v / (kv + n * v)), method="cancel")
    bld.qed([d])
    return Lemma("normal.mean.sensitivity", "sensitivity of the normal posterior mean",
                 "Prior N(m, v), known variance kv, n >= 1 readings: if the sums of the readings "
                 "differ by at most c, the posterior means (m/v + s/kv)/(1/v + n/kv) differ by at "
                 "most c v / (kv + n v).", P, hyps, concl, "NOTES.md §5", "proved", bld.build())


def normal_mean_sensitivity_n1() -> Lemma:
    """The paper's s = v / (kv + v) bounds the sensitivity for every n >= 1."""
    P, S, hyps, mean = _normal_setup()
    m, v, kv, n, s1, s2, c = (S[k] for k in ("m", "v", "kv", "n", "s1", "s2", "c"))
    concl = sp.Le(sp.Abs(mean(s1) - mean(s2)), c * v / (kv + v))
    bld = ArtifactBuilder("normal.mean.sensitivity.n1", "proved", P, hyps, concl)
    gen = bld.lemma(registry.get("normal.mean.sensitivity"))
    bld.qed([bld.ref(gen, **S)], note="kv + n v >= kv + v for n >= 1")
    return Lemma("normal.mean.sensitivity.n1", "the paper's bound s = hV/(kv + hV)",
                 "The same, with the n-free bound c v / (kv + v) (paper §6.2's s, the n = 1 case).",
                 P, hyps, concl, "paper §6.2; NOTES.md §5", "proved", bld.build())


def normal_posterior_mean_adjwithin() -> Lemma:
    """Mean of the conjugate posterior, for data lists whose sums differ by at most c."""
    P = params(("m", "real"), ("v", "pos"), ("kv", "pos"), ("n", "posint"), ("s1", "real"),
               ("s2", "real"), ("q1", "real"), ("q2", "real"), ("c", "nonneg"))
    S = symbols(P)
    m, v, kv, n, s1, s2, q1, q2, c = (S[k] for k in ("m", "v", "kv", "n", "s1", "s2", "q1",
                                                      "q2", "c"))
    lik = exprs.function("NormalLikSum")
    post = lambda s, q: exprs.Posterior(exprs.NormalDist(m, v), lik(kv, n, s, q))
    mean = exprs.function("Mean")
    hyps = (sp.Le(s1 - s2, c), sp.Le(s2 - s1, c))
    concl = sp.Le(sp.Abs(mean(post(s1, q1)) - mean(post(s2, q2))), c * v / (kv + n * v))
    bld = ArtifactBuilder("normal.posterior_mean.sensitivity", "proved", P, hyps, concl)
    conj = bld.lemma(registry.get("conj.normal_normal.list"))
    sens = bld.lemma(registry.get("normal.mean.sensitivity"))
    mfact = bld.fact("normal.mean")
    prec = 1 / v + n / kv
    refs = [bld.ref(sens, m=m, v=v, kv=kv, n=n, s1=s1, s2=s2, c=c)]
    for s, q in ((s1, q1), (s2, q2)):
        refs.append(bld.ref(conj, m=m, v=v, kv=kv, n=n, s=s, q=q))
        refs.append(bld.ref(mfact, m=(m / v + s / kv) / prec, v=1 / prec))
    bld.qed(refs)
    return Lemma("normal.posterior_mean.sensitivity",
                 "sensitivity of Mean(posterior) in the normal model",
                 "Mean(Posterior(N(m, v), n readings with sum s_i)) for i = 1, 2 differ by at "
                 "most c v / (kv + n v) when |s1 - s2| <= c.", P, hyps, concl,
                 "NOTES.md §5; conj.normal_normal.list", "proved", bld.build())


# --------------------------------------------------------------------------------------------
# list statistics

def _lists(extra=()):
    P = params(("l1", "list"), ("l2", "list"), *extra)
    return P, symbols(P)


def count_adj() -> Lemma:
    P, S = _lists()
    l1, l2 = S["l1"], S["l2"]
    Count = exprs.function("Count")
    hyps = (exprs.function("Adj")(l1, l2),)
    concl = sp.Le(sp.Abs(Count(l1) - Count(l2)), 1)
    bld = ArtifactBuilder("sens.count.adj", "proved", P, hyps, concl)
    f = bld.fact("lists.count.adj")
    bld.qed([bld.ref(f, l1=l1, l2=l2)])
    return Lemma("sens.count.adj", "count is 1-sensitive under adj",
                 "Adjacent bool lists have counts of true entries within 1.", P, hyps, concl,
                 "definition of adj (paper §3.2)", "proved", bld.build())


def length_adj() -> Lemma:
    P, S = _lists()
    l1, l2 = S["l1"], S["l2"]
    Length = exprs.function("Length")
    hyps = (exprs.function("Adj")(l1, l2),)
    concl = eq(Length(l1), Length(l2))
    bld = ArtifactBuilder("sens.length.adj", "proved", P, hyps, concl)
    f = bld.fact("lists.count.adj")
    bld.qed([bld.ref(f, l1=l1, l2=l2)])
    return Lemma("sens.length.adj", "length is 0-sensitive under adj",
                 "Adjacent lists have the same length.", P, hyps, concl,
                 "definition of adj (LANGUAGE.md)", "proved", bld.build())


def sum_adjwithin() -> Lemma:
    P, S = _lists([("c", "real")])
    l1, l2, c = S["l1"], S["l2"], S["c"]
    ListSum, Length = exprs.function("ListSum"), exprs.function("Length")
    hyps = (exprs.function("AdjWithin")(l1, l2, c),)
    concl = sp.And(sp.Le(sp.Abs(ListSum(l1) - ListSum(l2)), sp.Max(c, 0)),
                   eq(Length(l1), Length(l2)))
    bld = ArtifactBuilder("sens.sum.adjwithin", "proved", P, hyps, concl)
    f = bld.fact("lists.sum.adjwithin")
    bld.qed([bld.ref(f, l1=l1, l2=l2, c=c)])
    return Lemma("sens.sum.adjwithin", "sum is max (c, 0)-sensitive under adjWithin c",
                 "Lists adjacent within c have sums within max (c, 0) (a negative c admits "
                 "only equal lists) and equal lengths.", P, hyps, concl,
                 "definition of adjWithin (LANGUAGE.md)", "proved", bld.build())


def adjwithin_adj() -> Lemma:
    P, S = _lists([("c", "real")])
    l1, l2, c = S["l1"], S["l2"], S["c"]
    hyps = (exprs.function("AdjWithin")(l1, l2, c),)
    concl = exprs.function("Adj")(l1, l2)
    bld = ArtifactBuilder("sens.adjwithin.adj", "proved", P, hyps, concl)
    f = bld.fact("lists.adjwithin.adj")
    bld.qed([bld.ref(f, l1=l1, l2=l2, c=c)])
    return Lemma("sens.adjwithin.adj", "adjWithin implies adj",
                 "Lists adjacent within c are adjacent (so count and length bounds apply).",
                 P, hyps, concl, "definition of adjWithin", "proved", bld.build())


def counts_adj(k: int) -> Lemma:
    """Adjacent [k] lists: sum_i |CountCat(l1, i) - CountCat(l2, i)| <= 2, totals = length."""
    P, S = _lists()
    l1, l2 = S["l1"], S["l2"]
    CC, Length = exprs.function("CountCat"), exprs.function("Length")
    hyps = (exprs.function("Adj")(l1, l2),)
    concl = sp.And(
        sp.Le(sp.Add(*[sp.Abs(CC(l1, i) - CC(l2, i)) for i in range(k)]), 2),
        eq(sp.Add(*[CC(l1, i) for i in range(k)]), Length(l1)),
        eq(sp.Add(*[CC(l2, i) for i in range(k)]), Length(l2)),
        *[sp.Ge(CC(l, i), 0) for l in (l1, l2) for i in range(k)])
    lid = f"sens.counts.adj/k={k}"
    bld = ArtifactBuilder(lid, "proved", P, hyps, concl)
    adj = bld.fact(f"lists.catcount.adj/k={k}")
    tot = bld.fact(f"lists.catcount.total/k={k}")
    bld.qed([bld.ref(adj, l1=l1, l2=l2), bld.ref(tot, l=l1), bld.ref(tot, l=l2)])
    return Lemma(lid, f"category counts of adjacent [{k}] lists",
                 "Adjacent [k] lists have category counts (categories 0..k-1) at l1 distance at "
                 "most 2, each summing to the length.", P, hyps, concl,
                 "definition of adj", "proved", bld.build(), k)


# --------------------------------------------------------------------------------------------
# list level: the posteriors of learnBias / learnP on adjacent data

def _beta_list_posterior(a, b, l):
    F = exprs.function
    return exprs.Posterior(BetaD(a, b), F("BernoulliCounts")(F("Length")(l), F("Count")(l)))


def beta_adj_lists(kind: str) -> Lemma:
    """Posteriors of Beta(a, b) after adjacent bool lists l1, l2, stated on the lists.

    ``kind``: "hellinger" (a, b >= 1: H <= rho), "hellinger.general" (a >= a0, b >= b0:
    H <= sqrt(1 - g(a0) g(b0))) or "tv" (a, b >= 1: SD <= zeta).
    """
    F = exprs.function
    specs = [("a", "pos"), ("b", "pos")]
    if kind == "hellinger.general":
        specs += [("a0", "pos"), ("b0", "pos")]
    specs += [("l1", "list"), ("l2", "list")]
    P = params(*specs)
    S = symbols(P)
    a, b, l1, l2 = S["a"], S["b"], S["l1"], S["l2"]
    if kind == "hellinger.general":
        lows = [sp.Ge(a, S["a0"]), sp.Ge(b, S["b0"])]
    else:
        lows = [sp.Ge(a, 1), sp.Ge(b, 1)]
    hyps = tuple(lows + [F("Adj")(l1, l2)])
    p1, p2 = _beta_list_posterior(a, b, l1), _beta_list_posterior(a, b, l2)
    if kind == "hellinger":
        lid, core_id, concl = "beta.hellinger.adj_lists.rho", "beta.hellinger.adjacent.rho", \
            sp.Le(H(p1, p2), RHO)
    elif kind == "hellinger.general":
        lid, core_id = "beta.hellinger.adj_lists", "beta.hellinger.adjacent"
        concl = sp.Le(H(p1, p2), sp.sqrt(1 - g(S["a0"]) * g(S["b0"])))
    else:
        lid, core_id, concl = "beta.tv.adj_lists.zeta", "beta.tv.adjacent.zeta", \
            sp.Le(exprs.SD(p1, p2), ZETA)
    bld = ArtifactBuilder(lid, "proved", P, hyps, concl)
    core = bld.lemma(registry.get(core_id))
    conj = bld.lemma(registry.get("conj.beta_bernoulli.list"))
    cnt = bld.lemma(registry.get("sens.count.adj"))
    ln = bld.lemma(registry.get("sens.length.adj"))
    nat = bld.fact("lists.count.nat")
    n1, c1, c2 = F("Length")(l1), F("Count")(l1), F("Count")(l2)
    at = dict(a=a, b=b, n=n1, c1=c1, c2=c2)
    if kind == "hellinger.general":
        at.update(a0=S["a0"], b0=S["b0"])
    bld.qed([bld.ref(core, **at),
             bld.ref(conj, a=a, b=b, n=n1, c=c1),
             bld.ref(conj, a=a, b=b, n=F("Length")(l2), c=c2),
             bld.ref(cnt, l1=l1, l2=l2), bld.ref(ln, l1=l1, l2=l2),
             bld.ref(nat, l=l1), bld.ref(nat, l=l2)],
            note="the posteriors are Beta(a + Count(l), b + Length(l) - Count(l)); adjacent lists "
                 "have equal lengths and counts within 1")
    what = {"hellinger": "H <= rho (a, b >= 1)",
            "hellinger.general": "H <= sqrt(1 - g(a0) g(b0)) (a >= a0, b >= b0)",
            "tv": "SD <= zeta (a, b >= 1)"}[kind]
    return Lemma(lid, f"learnBias on adjacent lists: {what}",
                 "For adjacent bool lists l1, l2 the posteriors Posterior(Beta(a, b), "
                 f"BernoulliCounts(Length(l), Count(l))) satisfy {what}.", P, hyps, concl,
                 f"{core_id} with conj.beta_bernoulli.list and sens.count.adj", "proved",
                 bld.build())


def dirichlet_adj_lists_rho(k: int) -> Lemma:
    """Posteriors of Dirichlet(a1..ak) (all a_i >= 1) after adjacent [k] lists: H <= rho."""
    F = exprs.function
    P = params(*[(f"a{i}", "pos") for i in range(1, k + 1)], ("l1", "list"), ("l2", "list"))
    S = symbols(P)
    al = [S[f"a{i}"] for i in range(1, k + 1)]
    l1, l2 = S["l1"], S["l2"]
    CC, Length = F("CountCat"), F("Length")
    hyps = tuple([sp.Ge(x, 1) for x in al] + [F("Adj")(l1, l2)])

    def post(l):
        return exprs.Posterior(DirD(*al), F("CategoricalCounts")(*[CC(l, i) for i in range(k)]))

    concl = sp.Le(H(post(l1), post(l2)), RHO)
    lid = f"dirichlet.hellinger.adj_lists.rho/k={k}"
    bld = ArtifactBuilder(lid, "proved", P, hyps, concl)
    core = bld.lemma(registry.get("dirichlet.hellinger.adjacent.rho", k=k))
    conj = bld.lemma(registry.get("conj.dirichlet_categorical.list", k=k))
    cnt = bld.lemma(registry.get("sens.counts.adj", k=k))
    ln = bld.lemma(registry.get("sens.length.adj"))
    tot = bld.fact(f"lists.catcount.total/k={k}")
    at = {f"a{i}": al[i - 1] for i in range(1, k + 1)}
    core_at = dict(at)
    core_at.update({f"c{i}": CC(l1, i - 1) for i in range(1, k + 1)})
    core_at.update({f"e{i}": CC(l2, i - 1) for i in range(1, k + 1)})
    core_at["n"] = Length(l1)
    refs = [bld.ref(core, **core_at), bld.ref(cnt, l1=l1, l2=l2), bld.ref(ln, l1=l1, l2=l2),
            bld.ref(tot, l=l1), bld.ref(tot, l=l2)]
    for l in (l1, l2):
        refs.append(bld.ref(conj, **at, **{f"c{i}": CC(l, i - 1) for i in range(1, k + 1)}))
    bld.qed(refs)
    return Lemma(lid, f"learnP on adjacent lists (k = {k}): H <= rho",
                 "For adjacent [k] lists l1, l2 and a Dirichlet prior with every a_i >= 1, the "
                 "posteriors Posterior(Dir(a), CategoricalCounts(CountCat(l, 0..k-1))) are at "
                 "Hellinger distance at most rho.", P, hyps, concl,
                 "dirichlet.hellinger.adjacent.rho with conj.dirichlet_categorical.list and "
                 "sens.counts.adj", "proved", bld.build(), k)
