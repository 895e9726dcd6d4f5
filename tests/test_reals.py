"""Exact reals (verifier/semantics/reals.py) and the samplers that take them."""
from __future__ import annotations

import math
from fractions import Fraction as F

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from verifier.cli import main
from verifier.semantics import distributions as D
from verifier.semantics import noise, reals
from verifier.semantics.noise import seeded_source


def test_rationals_stay_rational_and_transcendentals_are_exact():
    assert reals.sqrt(F(9, 4)) == F(3, 2) and isinstance(reals.sqrt(F(9, 4)), F)
    assert reals.exp(0) == 1 and reals.log(1) == 0 and reals.lgamma(2) == 0
    s2 = reals.sqrt(2)
    assert s2 is reals.sqrt(F(2))                        # hash-consed
    assert s2 * s2 == 2 and isinstance(s2 * s2, F)       # by identity, no enclosure needed
    assert s2 - s2 == 0
    assert reals.exp(reals.log(3)) == 3
    assert reals.sqrt(2) * reals.sqrt(3) == reals.sqrt(6)  # by exact simplification
    assert reals.pi() > F(314159, 100000) and reals.pi() < F(314160, 100000)


def test_no_overflow_and_huge_comparisons():
    big = reals.exp(F(1000) * 10)
    assert big > F(10) ** 4000
    assert big - 1 < big                     # cancellation decided by simplification
    assert reals.exp(-big) > 0               # underflow-free
    assert reals.floor_log2(big) == 14426
    assert float(reals.exp(1000)) == math.inf and reals.decimal_text(reals.exp(1000)).startswith("1.970071114")


def test_an_undecidable_comparison_is_an_error_never_a_guess():
    # TV (Beta (2, 1), Beta (1, 1)) is exactly 1/4, but it is known only through enclosures
    tv = D.total_variation(D.Beta(F(2), F(1)), D.Beta(F(1), F(1)))
    assert abs(float(tv) - 0.25) < 1e-15
    with pytest.raises(reals.Undecided):
        tv == F(1, 4)
    assert tv < F(1, 3) and tv > F(1, 5)


def test_an_undecidable_comparison_in_a_program_is_R011(tmp_path, capsys):
    path = tmp_path / "p.pinf"
    path.write_text("let main = tv (beta (2.0, 1.0), beta (1.0, 1.0)) = 0.25\n")
    assert main(["run", str(path), "main"]) == 2
    err = capsys.readouterr().err
    assert "error[R011]" in err and "internal error" not in err


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 10 ** 6), st.integers(1, 10 ** 6), st.integers(-50, 50))
def test_floor_and_rational_above_depend_only_on_the_value(p, q, k):
    x = reals.sqrt(F(p, q)) * F(2) ** k                # an exact real (or a rational)
    fl = reals.floor(x)
    assert fl <= x < fl + 1
    up = reals.rational_above(x, 64)
    assert isinstance(up, F) and up >= x and (up - x) <= x * F(1, 2 ** 63)
    # the same value built another way gives the same rational (a function of the value)
    other = reals.sqrt(F(p * 4 ** 3, q)) / 8 * F(2) ** k
    assert reals.rational_above(other, 64) == up


def test_bernoulli_of_an_exact_real_probability_is_exact_in_law():
    source = seeded_source(5)
    p = reals.sqrt(F(1, 2))                              # 0.7071...
    n = 4000
    hits = sum(noise._bernoulli_real(source._bits, p) for _ in range(n))
    sd = math.sqrt(0.5 ** 0.5 * (1 - 0.5 ** 0.5) / n)
    assert abs(hits / n - 0.5 ** 0.5) < 5 * sd


def test_exponential_mechanism_with_exact_real_scores():
    source = seeded_source(9)
    scores = [reals.sqrt(2), reals.pi(), F(0), reals.log(5)]
    weights = [math.exp(float(s) / 2) for s in scores]
    law = [w / sum(weights) for w in weights]
    n = 3000
    counts = [0] * 4
    for _ in range(n):
        counts[source.exponential_mechanism(scores, 1)] += 1
    for c, p in zip(counts, law):
        assert abs(c / n - p) < 5 * math.sqrt(p * (1 - p) / n)
    # a spread far beyond 2^52: the top candidate wins, exactly, without a float key
    assert source.exponential_mechanism([reals.exp(1000), F(0)], 1) == 0


def test_laplace_and_gaussian_take_exact_real_parameters():
    source = seeded_source(3)
    value = source.laplace_exact(reals.sqrt(2), 1 / reals.log(3))
    assert isinstance(value, F)
    sigma = reals.sqrt(2 * reals.log(F(5, 4) / F(1, 2))) / F(1, 10 ** 400)
    huge = source.gaussian_exact(F(3), sigma)
    assert isinstance(huge, F) and abs(huge) < F(10) ** 420


def test_total_variation_with_irrational_parameters():
    """tv between Betas with exact-real parameters: enclosed by the crossing-point method on
    Arb balls; it agrees with the certified rational case at nearby parameters."""
    s2, s3 = reals.sqrt(2), reals.sqrt(3)
    tv = D.total_variation(D.Beta(s2, s3), D.Beta(s3, s2))
    near = D.total_variation(D.Beta(F(14142135623730951, 10 ** 16), F(17320508075688772, 10 ** 16)),
                             D.Beta(F(17320508075688772, 10 ** 16), F(14142135623730951, 10 ** 16)))
    assert abs(float(tv) - float(near)) < 1e-12 and tv > 0
    assert D.total_variation(D.Normal(s2, F(1)), D.Normal(F(0), s3)) > 0
    # the closed form of two normals with equal variances: erf (|m1 - m2| / (2 sqrt (2 v)))
    assert D.total_variation(D.Normal(F(0), F(2)), D.Normal(F(1), F(2))) == reals.erf(F(1) / (2 * reals.sqrt(4)))


def test_printing_and_json_never_fail(tmp_path, capsys):
    """A number with no finite enclosure, or an exact zero that cannot be shown to be zero,
    prints as its expression; beyond the float range, in scientific notation."""
    import json
    path = tmp_path / "p.pinf"
    path.write_text("let z = tv (beta (2.0, 1.0), beta (1.0, 1.0)) - 0.25\n"
                    "let w = exp (exp (exp 10.0))\nlet t = exp (0.0 - 1000.0)\n")
    for entry, shown in (("z", "tv (beta"), ("w", "exp (exp (exp (10)))"), ("t", "e-435")):
        assert main(["run", str(path), entry, "--json"]) == 0
        value = json.loads(capsys.readouterr().out)["value"]
        assert isinstance(value, str) and shown in value


# ---- the decidable fragment (verifier/semantics/exact_forms.py, docs/reals.md) -------------

S, E, L = reals.sqrt, reals.exp, reals.log


@pytest.mark.parametrize("zero", [
    lambda: S(F(8) * 10 ** 700) - 2 * S(F(2) * 10 ** 700),           # the example
    lambda: (S(F(8) * 10 ** 700) - 2 * S(F(2) * 10 ** 700)) * 3,
    lambda: S(F(1, 2)) - S(2) / 2,
    lambda: S(6) - S(2) * S(3),
    lambda: (S(2) + S(3)) * (S(2) - S(3)) + 1,
    lambda: E(1) * E(2) - E(3),
    lambda: E(F(1, 2)) * E(F(1, 2)) - E(1),
    lambda: E(1) / (1 + E(1)) - 1 / (1 + E(-1)),                        # an expMech probability
    lambda: L(F(8) * 10 ** 700) - 3 * L(2) - 700 * L(10),
    lambda: L(6) - L(2) - L(3),
    lambda: L(S(2)) - L(2) / 2,
    lambda: L(E(F(3, 7))) - F(3, 7),
    lambda: E(L(2) / 2) - S(2),
    lambda: reals.lgamma(5) - L(24),
    lambda: (reals.pi() + L(2)) * S(2) - S(2) * reals.pi() - S(2) * L(2),
    lambda: reals.absolute(S(2) - 2) - (2 - S(2)),
    lambda: reals.maximum(S(2), S(3)) - S(3),
    lambda: reals.expm1(L(3)) - 2,
])
def test_zero_is_decided_in_the_fragment(zero):
    x = zero()
    assert x == 0 and reals.sign(x) == 0


@pytest.mark.parametrize("value, expected", [
    # nonzero by the theorems, then signed by enclosures beyond the ladder
    (lambda: S(2) - F(int(math.isqrt(2 * 10 ** 8000)), 10 ** 4000), 1),   # within 1e-8000
    (lambda: F(int(math.isqrt(2 * 10 ** 8000)) + 1, 10 ** 4000) - S(2), 1),
    (lambda: S(3) + S(2) - S(5), 1),
    (lambda: E(1) - F(27182818284590452353602874713527, 10 ** 31), -1),   # e = 2.71828...135266
    (lambda: L(3) - L(2) - L(F(3, 2)) - F(1, 10 ** 300), -1),
    (lambda: reals.pi() - F(355, 113), -1),
])
def test_nonzero_is_decided_with_its_sign(value, expected):
    assert reals.sign(value()) == expected


def test_outside_the_fragment_is_left_to_simplification():
    # sqrt of an irrational and products of logarithms are outside; sympy still decides these
    assert S(3 + 2 * S(2)) - (1 + S(2)) == 0
    assert L(2) * L(3) - L(3) * L(2) == 0
    assert forms_of(S(S(2))) is None and forms_of(L(2) * L(3)) is None and forms_of(E(1) + L(2)) is None


def forms_of(x):
    return reals._form_of(x) if isinstance(x, reals.Real) else x


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(-5, 5), st.integers(1, 30), st.integers(1, 10 ** 6)), min_size=1, max_size=5),
       st.integers(0, 3))
def test_radical_identities_against_an_independent_rewriting(terms, perturb):
    """sum a_i sqrt (b_i c_i^2) - sum a_i c_i sqrt b_i is 0, whatever the c_i's size; adding
    a tiny multiple of sqrt 7 makes it nonzero with the sign of that multiple."""
    left = sum((a * S(F(b * c * c)) for a, b, c in terms), F(0))
    right = sum((a * c * S(F(b)) for a, b, c in terms), F(0))
    assert reals.sign(left - right) == 0
    if perturb:
        tiny = F((-1) ** perturb, 10 ** (40 * perturb)) * S(7)
        assert reals.sign(left - right + tiny) == (-1) ** perturb


def test_rational_values_of_the_fragment_are_recognised():
    assert reals.canonical((S(F(8) * 10 ** 700) - 2 * S(F(2) * 10 ** 700)) * 5 + F(1, 3)) == F(1, 3)
    assert reals.canonical(S(8) / S(2)) == 2
    assert reals.canonical(E(1) / (E(1) + E(2)) * (1 + E(1))) == 1
    assert reals.floor(S(8) / S(2)) == 2 and reals.floor(S(2) * 10 ** 30) == int(math.isqrt(2 * 10 ** 60))
