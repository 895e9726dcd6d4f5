"""Closed forms for Beta, Dirichlet and Normal distributions: certified evaluators and lemmas.

Evaluators (all return Arb balls certainly containing the exact value; never bare floats):

* ``g_arb(x)`` — g(x) = Gamma(x + 1/2) / (Gamma(x) sqrt x), the function behind Lemmas 6.1/6.3;
* ``bc(p, q)`` — Bhattacharyya coefficient; ``hd(p, q)`` = 1 - BC (Table 1's HD, *not* a
  metric); ``hellinger(p, q)`` = sqrt(1 - BC) (the Hellinger distance, a metric — NOTES.md §3);
* ``kl(p, q)`` — Kullback-Leibler divergence;
* ``tv(p, q)`` — total variation (statistical) distance, for two Betas or two Normals, by the
  crossing-point method described at ``tv_beta``.

Distributions are ``Beta(a, b)``, ``Dirichlet((a1, ..., ak))`` and ``Normal(mean, var)`` with
exact parameters (ints, Fractions, decimal strings, sympy Rationals; a float is taken at its
exact binary value). ``*_float`` functions are plain-float conveniences for experiments only:
they prove nothing.

Lemmas (registered by ``lemmas.library``): the g function's monotonicity and bounds, and the
closed forms of BC, the Hellinger distance and KL for the three families (see ``lemmas()``).
"""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import List, Sequence, Tuple, Union

import flint
import sympy as sp

from lemmas import exprs
from lemmas.arbeval import EnclosureError, precision, to_arb
from lemmas.core import ArtifactBuilder, Lemma, eq, params, symbols

arb = flint.arb

# --------------------------------------------------------------------------------------------
# distributions with exact parameters


def exact(x) -> Fraction:
    """An exact rational from an int, Fraction, decimal string, sympy Rational or float."""
    if isinstance(x, bool):
        raise TypeError("a boolean is not a parameter")
    if isinstance(x, (int, Fraction)):
        return Fraction(x)
    if isinstance(x, float):
        return Fraction(x)  # the float's exact binary value
    if isinstance(x, str):
        return Fraction(x)
    if isinstance(x, sp.Rational):
        return Fraction(int(x.p), int(x.q))
    raise TypeError(f"cannot read {x!r} as an exact number")


@dataclass(frozen=True)
class Beta:
    a: Fraction
    b: Fraction

    def __init__(self, a, b):
        object.__setattr__(self, "a", exact(a))
        object.__setattr__(self, "b", exact(b))
        if self.a <= 0 or self.b <= 0:
            raise ValueError(f"Beta parameters must be positive: {self.a}, {self.b}")


@dataclass(frozen=True)
class Dirichlet:
    alphas: Tuple[Fraction, ...]

    def __init__(self, alphas):
        al = tuple(exact(a) for a in alphas)
        if len(al) < 2 or any(a <= 0 for a in al):
            raise ValueError("Dirichlet needs at least 2 positive parameters")
        object.__setattr__(self, "alphas", al)


@dataclass(frozen=True)
class Normal:
    mean: Fraction
    var: Fraction

    def __init__(self, mean, var):
        object.__setattr__(self, "mean", exact(mean))
        object.__setattr__(self, "var", exact(var))
        if self.var <= 0:
            raise ValueError("the variance must be positive")


Dist = Union[Beta, Dirichlet, Normal]


def _a(x) -> "flint.arb":
    return to_arb(x)


def _lbeta(*xs) -> "flint.arb":
    """log of the multivariate Beta function sum lnGamma(x_i) - lnGamma(sum x_i)."""
    s = arb(0)
    tot = arb(0)
    for x in xs:
        ax = _a(x)
        s += ax.lgamma()
        tot += ax
    return s - tot.lgamma()


# --------------------------------------------------------------------------------------------
# certified evaluators

def g_arb(x, prec: int = 128) -> "flint.arb":
    """g(x) = Gamma(x + 1/2) / (Gamma(x) sqrt(x)) for x > 0, as a ball."""
    with precision(prec):
        ax = _a(x)
        if not ax > 0:
            raise EnclosureError("g needs x > 0")
        return ((ax + arb(1) / 2).lgamma() - ax.lgamma()).exp() / ax.sqrt()


def bc(p: Dist, q: Dist, prec: int = 128) -> "flint.arb":
    """Bhattacharyya coefficient BC(p, q) = integral of sqrt(p q), as a ball."""
    _same_family(p, q)
    with precision(prec):
        if p == q:
            return arb(1)
        if isinstance(p, Beta):
            m = _lbeta((p.a + q.a) / 2, (p.b + q.b) / 2)
            return (m - (_lbeta(p.a, p.b) + _lbeta(q.a, q.b)) / 2).exp()
        if isinstance(p, Dirichlet):
            mid = [(x + y) / 2 for x, y in zip(p.alphas, q.alphas)]
            return (_lbeta(*mid) - (_lbeta(*p.alphas) + _lbeta(*q.alphas)) / 2).exp()
        v1, v2 = _a(p.var), _a(q.var)
        dm = _a(p.mean - q.mean)
        return (2 * (v1 * v2).sqrt() / (v1 + v2)).sqrt() * (-(dm * dm) / (4 * (v1 + v2))).exp()


def hd(p: Dist, q: Dist, prec: int = 128) -> "flint.arb":
    """Table 1's HD(p, q) = (1/2) integral (sqrt p - sqrt q)^2 = 1 - BC (the *square* of the
    Hellinger distance; not a metric), as a ball within [0, 1]."""
    with precision(prec):
        return (1 - bc(p, q, prec)).nonnegative_part()


def hellinger(p: Dist, q: Dist, prec: int = 128) -> "flint.arb":
    """The Hellinger distance H(p, q) = sqrt(1 - BC(p, q)) (a metric), as a ball."""
    with precision(prec):
        return hd(p, q, prec).sqrt()


def kl(p: Dist, q: Dist, prec: int = 128) -> "flint.arb":
    """KL(p || q), as a ball."""
    _same_family(p, q)
    with precision(prec):
        if p == q:
            return arb(0)
        if isinstance(p, Beta):
            a1, b1, a2, b2 = map(_a, (p.a, p.b, q.a, q.b))
            return (_lbeta(q.a, q.b) - _lbeta(p.a, p.b) + (a1 - a2) * a1.digamma()
                    + (b1 - b2) * b1.digamma() + (a2 - a1 + b2 - b1) * (a1 + b1).digamma())
        if isinstance(p, Dirichlet):
            al = [_a(x) for x in p.alphas]
            be = [_a(x) for x in q.alphas]
            a0 = sum(al, arb(0))
            out = _lbeta(*q.alphas) - _lbeta(*p.alphas)
            for x, y in zip(al, be):
                out += (x - y) * (x.digamma() - a0.digamma())
            return out
        v1, v2 = _a(p.var), _a(q.var)
        dm = _a(p.mean - q.mean)
        return (v1 / v2 + dm * dm / v2 - 1 + (v2 / v1).log()) / 2


def tv(p: Dist, q: Dist, prec: int = 128) -> "flint.arb":
    """Total variation distance sup_E |p(E) - q(E)| for two Betas or two Normals, as a ball."""
    _same_family(p, q)
    if isinstance(p, Beta):
        return tv_beta(p, q, prec)
    if isinstance(p, Normal):
        return tv_normal(p, q, prec)
    raise NotImplementedError("certified TV is implemented for Beta and Normal pairs")


def tv_beta(p: Beta, q: Beta, prec: int = 128) -> "flint.arb":
    """Certified TV(Beta(a1, b1), Beta(a2, b2)) by the crossing-point method.

    The log density ratio h(x) = K + (a1 - a2) ln x + (b1 - b2) ln(1 - x) has derivative
    (a1 - a2)/x - (b1 - b2)/(1 - x), which vanishes at most once, at x_m = α/(α+β) when
    α = a1 - a2 and β = b1 - b2 have the same sign. So (0, 1) splits into at most two
    intervals on which h is strictly monotone, and h has at most one zero in each. The sign of
    h at the ends (limits at 0 and 1, the value at x_m) is certified with Arb; where it changes,
    bisection on exact rationals with certified signs of h at the midpoints encloses the
    crossing c in an interval of width 2^-(prec/2). Between consecutive crossings p - q has
    constant sign, so with D(x) = I_x(a1, b1) - I_x(a2, b2) (regularized incomplete Beta
    functions, evaluated by Arb at the interval's centre m, plus |D'| = |p - q| bounded on the
    interval times its radius — a second-order term, as D' vanishes at c) and c_0 = 0,
    c_{m+1} = 1:

        TV = (1/2) sum_i |D(c_{i+1}) - D(c_i)|.

    Every quantity is a ball containing the true value, so the result encloses the exact TV.
    """
    if p == q:
        return arb(0)
    al, be = p.a - q.a, p.b - q.b
    with precision(prec):
        K = _lbeta(q.a, q.b) - _lbeta(p.a, p.b)

        def h(x: Fraction) -> "flint.arb":
            ax = _a(x)
            return K + _a(al) * ax.log() + _a(be) * (1 - ax).log()

        def sign_at(x: Fraction, side: str) -> int:
            if x == 0:
                return -_sgn(al) if al != 0 else _certified_sign(lambda: K, prec)
            if x == 1:
                return -_sgn(be) if be != 0 else _certified_sign(lambda: K, prec)
            return _certified_sign(lambda: h(x), prec)

        points = [Fraction(0), Fraction(1)]
        if al * be > 0:
            points.insert(1, al / (al + be))
        crossings: List["flint.arb"] = []
        for lo, hi in zip(points, points[1:]):
            s_lo, s_hi = sign_at(lo, "right"), sign_at(hi, "left")
            if s_lo == s_hi:
                continue
            width = Fraction(1, 2 ** (prec // 2))
            while hi - lo > width:
                mid = (lo + hi) / 2
                hm = h(mid)
                if hm > 0 or hm < 0:
                    if (1 if hm > 0 else -1) == s_lo:
                        lo = mid
                    else:
                        hi = mid
                    continue
                # h(mid) is (nearly) 0: the crossing is at or next to mid. Certify the signs
                # just left and right of it (h is strictly monotone on [lo, hi]).
                left, right = max(lo, mid - width / 4), min(hi, mid + width / 4)
                s_left = s_lo if left == lo else _certified_sign(lambda: h(left), prec)
                s_right = s_hi if right == hi else _certified_sign(lambda: h(right), prec)
                if s_left == s_lo and s_right == s_hi:
                    lo, hi = left, right
                    break
                raise EnclosureError("cannot isolate a crossing point (raise the precision)")
            crossings.append(((lo + hi) / 2, (hi - lo) / 2))
        if not crossings:
            raise EnclosureError("no crossing found between two different Betas")

        def D_exact(x: Fraction) -> "flint.arb":
            ax = _a(x)
            return ax.beta_lower(_a(p.a), _a(p.b), 1) - ax.beta_lower(_a(q.a), _a(q.b), 1)

        def density(d: Beta, x: "flint.arb") -> "flint.arb":
            return ((_a(d.a) - 1) * x.log() + (_a(d.b) - 1) * (1 - x).log()
                    - _lbeta(d.a, d.b)).exp()

        def D(centre: Fraction, radius: Fraction) -> "flint.arb":
            # mean value theorem: D(c) = D(centre) + D'(xi)(c - centre), D' = p - q, and
            # |p - q| is tiny on the ball around the crossing: the error is second order
            ball = arb(_a(centre).mid(), _a(radius).upper())
            slope = abs(density(p, ball) - density(q, ball)).upper()
            return D_exact(centre) + arb(0, (slope * _a(radius)).upper())

        values = [arb(0)] + [D(c, r) for c, r in crossings] + [arb(0)]
        total = arb(0)
        for u, v in zip(values, values[1:]):
            total += abs(v - u)
        out = total / 2
        if not out.is_finite():
            raise EnclosureError("TV enclosure is not finite (raise the precision)")
        return out


def tv_normal(p: Normal, q: Normal, prec: int = 128) -> "flint.arb":
    """Certified TV between two Normals by the crossing points of the densities.

    ln p - ln q is the quadratic A x^2 + B x + C with A = 1/(2 v2) - 1/(2 v1),
    B = m1/v1 - m2/v2, C = m2^2/(2 v2) - m1^2/(2 v1) + ln(v2/v1)/2: one root if v1 = v2, two
    otherwise (then the discriminant is positive, as both densities have mass 1). With
    D = Phi_p - Phi_q evaluated on the root balls, TV = (1/2) sum |D(c_{i+1}) - D(c_i)|.
    """
    if p == q:
        return arb(0)
    with precision(prec):
        m1, m2, v1, v2 = map(_a, (p.mean, q.mean, p.var, q.var))

        def cdf(x, m, v):
            return (-(x - m) / (2 * v).sqrt()).erfc() / 2

        def D(x):
            return cdf(x, m1, v1) - cdf(x, m2, v2)

        if p.var == q.var:
            roots = [(m1 + m2) / 2]
        else:
            A = 1 / (2 * v2) - 1 / (2 * v1)
            B = m1 / v1 - m2 / v2
            C = m2 * m2 / (2 * v2) - m1 * m1 / (2 * v1) + (v2 / v1).log() / 2
            disc = B * B - 4 * A * C
            if not disc > 0:
                raise EnclosureError("cannot certify two crossings (raise the precision)")
            r1 = (-B - disc.sqrt()) / (2 * A)
            r2 = (-B + disc.sqrt()) / (2 * A)
            roots = sorted([r1, r2], key=lambda r: float(r.mid()))
            if not roots[0] < roots[1]:
                raise EnclosureError("crossing points not separated (raise the precision)")
        values = [arb(0)] + [D(r) for r in roots] + [arb(0)]
        total = arb(0)
        for u, v in zip(values, values[1:]):
            total += abs(v - u)
        return total / 2


def _sgn(x: Fraction) -> int:
    return 1 if x > 0 else -1


def _certified_sign(f, prec: int) -> int:
    p = prec
    while p <= 8 * prec:
        with precision(p):
            v = f()
            if v > 0:
                return 1
            if v < 0:
                return -1
        p *= 2
    raise EnclosureError("cannot decide a sign (the two distributions are too close)")


def _same_family(p, q) -> None:
    if type(p) is not type(q):
        raise TypeError(f"{type(p).__name__} and {type(q).__name__} are different families")
    if isinstance(p, Dirichlet) and len(p.alphas) != len(q.alphas):
        raise ValueError("Dirichlet distributions of different dimensions")
    if not isinstance(p, (Beta, Dirichlet, Normal)):
        raise TypeError(f"unsupported distribution {p!r}")


# plain-float conveniences (experiments only; they prove nothing)

def hellinger_float(p: Dist, q: Dist) -> float:
    return float(hellinger(p, q, 64).mid())


def bc_float(p: Dist, q: Dist) -> float:
    return float(bc(p, q, 64).mid())


def kl_float(p: Dist, q: Dist) -> float:
    return float(kl(p, q, 64).mid())


def tv_float(p: Dist, q: Dist) -> float:
    return float(tv(p, q, 64).mid())


def g_float(x) -> float:
    return float(g_arb(x, 64).mid())


# --------------------------------------------------------------------------------------------
# lemmas

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
