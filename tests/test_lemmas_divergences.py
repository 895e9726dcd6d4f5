"""Exact f-divergences of finite distributions; Table 1, Lemma 3.1 and Lemma 3.4 on examples."""
from __future__ import annotations

import itertools
import random
from fractions import Fraction as F

import flint
import pytest
import sympy as sp

from lemmas import divergences as D
from lemmas.arbeval import evaluate


@pytest.fixture(autouse=True)
def _working_precision():
    """Ball arithmetic in the tests themselves runs at 160 bits (restored afterwards)."""
    old = flint.ctx.prec
    flint.ctx.prec = 160
    yield
    flint.ctx.prec = old


def rand_dist(rng: random.Random, support, allow_zero=True):
    w = [rng.randint(0 if allow_zero else 1, 6) for _ in support]
    if sum(w) == 0:
        w[0] = 1
    s = sum(w)
    return {v: F(x, s) for v, x in zip(support, w)}


def ball(x):
    return evaluate(x, prec=160) if isinstance(x, sp.Basic) else flint.arb(flint.fmpq(x.numerator, x.denominator))


def not_above(lhs, rhs):
    """lhs <= rhs is not refuted by the enclosures and holds up to 1e-30."""
    return not (lhs > rhs) and bool(lhs <= rhs + flint.arb("1e-30"))


P = {0: F(1, 2), 1: F(1, 2)}
Q = {0: F(1, 4), 1: F(3, 4)}


def test_basic_values_are_exact():
    assert D.sd(P, Q) == F(1, 4)
    assert sp.simplify(D.bc(P, Q) - (sp.sqrt(2) + sp.sqrt(6)) / 4) == 0
    assert sp.simplify(D.hd(P, Q) - (1 - D.bc(P, Q))) == 0
    assert sp.simplify(D.hellinger(P, Q) ** 2 - D.hd(P, Q)) == 0
    assert sp.simplify(D.kl(P, Q) - (sp.log(2) / 2 + sp.log(sp.Rational(2, 3)) / 2)) == 0
    assert D.eps_d(0, P, Q) == sp.Rational(1, 4)
    assert D.kl({0: 1}, {1: 1}) == sp.oo
    assert D.max_log_ratio({0: 1}, {1: 1}) == sp.oo


def test_inputs_are_validated():
    with pytest.raises(TypeError):
        D.sd({0: 0.5, 1: 0.5}, Q)
    with pytest.raises(ValueError):
        D.sd({0: F(1, 2)}, Q)
    with pytest.raises(ValueError):
        D.sd({0: F(3, 2), 1: F(-1, 2)}, Q)


def test_table1_simplified_forms_equal_definition_3_6():
    rng = random.Random(7)
    for _ in range(25):
        sup = range(4)
        p, q = rand_dist(rng, sup), rand_dist(rng, sup)
        assert D.f_divergence("SD", p, q) == D.sd(p, q)
        assert abs(ball(D.f_divergence("HD", p, q)) - ball(D.hd(p, q))) < flint.arb("1e-40")
        for eps in (0, sp.Rational(1, 3), sp.log(2)):
            assert abs(ball(D.f_divergence("epsD", p, q, eps)) - ball(D.eps_d(eps, p, q))) < \
                flint.arb("1e-40")
        kl = D.kl(p, q)
        if kl == sp.oo:
            assert D.f_divergence("KL", p, q) == sp.oo
        else:
            assert abs(ball(D.f_divergence("KL", p, q)) - ball(kl)) < flint.arb("1e-40")


def test_eps_d_is_the_event_maximum_of_lemma_3_1():
    rng = random.Random(11)
    sup = list(range(4))
    for _ in range(20):
        p, q = rand_dist(rng, sup), rand_dist(rng, sup)
        eps = sp.Rational(rng.randint(0, 4), 3)
        best = max(ball(sum(p[a] for a in E)) - ball(sum(q[a] for a in E)) * ball(sp.exp(eps))
                   for r in range(len(sup) + 1) for E in itertools.combinations(sup, r))
        assert abs(best - D.eps_d_arb(eps, p, q, prec=160)) < flint.arb("1e-40")


def test_eps_d_handles_exact_ties():
    p = {0: F(2, 3), 1: F(1, 3)}
    q = {0: F(1, 3), 1: F(2, 3)}
    # p(0) - e^(ln 2) q(0) = 0 exactly: the tie contributes nothing
    assert D.eps_d(sp.log(2), p, q) == 0
    assert D.privacy_loss(p, q) == sp.log(2)
    assert D.is_dp_pair(sp.log(2), 0, p, q)
    assert not D.is_dp_pair(sp.log(2) - sp.Rational(1, 1000), 0, p, q)


def test_hellinger_is_a_metric_and_hd_is_not():
    rng = random.Random(3)
    sup = range(3)
    violated_hd = False
    for _ in range(60):
        p, q, r = (rand_dist(rng, sup) for _ in range(3))
        h = {k: D.hellinger_arb(*pair, prec=160) for k, pair in
             {"pr": (p, r), "pq": (p, q), "qr": (q, r)}.items()}
        assert not_above(h["pr"], h["pq"] + h["qr"])
        d = {k: D.hd_arb(*pair, prec=160) for k, pair in
             {"pr": (p, r), "pq": (p, q), "qr": (q, r)}.items()}
        violated_hd |= bool(d["pr"] > d["pq"] + d["qr"])
    # HD = H^2 fails the triangle inequality on some triple (NOTES.md §3)
    assert violated_hd


def _kernel(rng, inputs, outputs):
    table = {v: rand_dist(rng, outputs, allow_zero=False) for v in inputs}
    return lambda v: table[v]


@pytest.mark.parametrize("seed", range(6))
def test_lemma_3_4_composability_holds_on_random_instances(seed):
    """Delta_f3(bind mu1 M1, bind mu2 M2) <= Delta_f1(mu1, mu2) + sup_v Delta_f2(M1 v, M2 v)."""
    rng = random.Random(seed)
    A, B = range(3), range(3)
    for _ in range(8):
        mu1, mu2 = rand_dist(rng, A, False), rand_dist(rng, A, False)
        M1, M2 = _kernel(rng, A, B), _kernel(rng, A, B)
        b1, b2 = D.bind(mu1, M1), D.bind(mu2, M2)
        # SD, exactly
        assert D.sd(b1, b2) <= D.sd(mu1, mu2) + max(D.sd(M1(v), M2(v)) for v in A)
        # HD = 1 - BC (checked: additive composition is true for it) and the distance H
        sup_hd = max(D.hd_arb(M1(v), M2(v), 160) for v in A)
        assert not_above(D.hd_arb(b1, b2, 160), D.hd_arb(mu1, mu2, 160) + sup_hd)
        h3, h1 = D.hellinger_arb(b1, b2, 160), D.hellinger_arb(mu1, mu2, 160)
        sup_h = max(D.hellinger_arb(M1(v), M2(v), 160) for v in A)
        assert not_above(h3 * h3, h1 * h1 + sup_h * sup_h)
        # KL
        sup_kl = max(D.kl_arb(M1(v), M2(v), 160) for v in A)
        assert not_above(D.kl_arb(b1, b2, 160), D.kl_arb(mu1, mu2, 160) + sup_kl)
        # eps-D: (eps1, eps2) compose to eps1 + eps2 with the deltas adding
        e1, e2 = sp.Rational(rng.randint(0, 3), 4), sp.Rational(rng.randint(0, 3), 4)
        sup_e = max(D.eps_d_arb(e2, M1(v), M2(v), 160) for v in A)
        assert not_above(D.eps_d_arb(e1 + e2, b1, b2, 160), D.eps_d_arb(e1, mu1, mu2, 160) + sup_e)


def test_post_processing_on_random_instances():
    rng = random.Random(42)
    A, B = range(3), range(2)
    for _ in range(30):
        mu1, mu2 = rand_dist(rng, A), rand_dist(rng, A)
        N = _kernel(rng, A, B)
        assert D.sd(D.bind(mu1, N), D.bind(mu2, N)) <= D.sd(mu1, mu2)
        assert not_above(D.hd_arb(D.bind(mu1, N), D.bind(mu2, N)), D.hd_arb(mu1, mu2))
        assert not_above(D.eps_d_arb(sp.Rational(1, 2), D.bind(mu1, N), D.bind(mu2, N)),
                         D.eps_d_arb(sp.Rational(1, 2), mu1, mu2))


def test_conditioning_is_not_data_processing():
    """NOTES.md §2: observing can increase the Hellinger distance."""
    t = F(1, 10)
    mu1 = {0: 1 - t, 1: t, 2: 0}
    mu2 = {0: 1 - t, 1: 0, 2: t}
    assert D.hd(mu1, mu2) == sp.Rational(1, 10)
    post1, post2 = {1: F(1)}, {2: F(1)}   # conditioned on "not the first point"
    assert D.hellinger(post1, post2) == 1


def test_max_log_ratio_enclosure():
    p = {0: F(3, 4), 1: F(1, 4)}
    q = {0: F(1, 4), 1: F(3, 4)}
    assert D.max_log_ratio(p, q) == sp.log(3)
    assert D.max_log_ratio_arb(p, q).contains(flint.arb(3).log())
