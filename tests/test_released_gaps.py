"""The exact law of a program that releases the *gap* between two noisy values (GapSVT's
``x - t``) or a noisy value subtracted from a constant (``q - t``): binned, each bin's probability
exact for continuous noise and enclosed for the rounding sampler (``semantics.compared``); and the
broken variants of GapSVT that need it are refuted with an exact loss, the correct one never."""
import math
from fractions import Fraction
from pathlib import Path

import pytest

from verifier.errors import PrivInferError
from verifier.language.parser import parse_program
from verifier.language.typecheck import typecheck_program
from verifier.semantics import compared, reals
from verifier.semantics.compared import Bin
from verifier.semantics.evaluator import Evaluator
from verifier.semantics.values import ConsList
from verifier.verification import verify_program

ROOT = Path(__file__).resolve().parents[1]
E = math.e

PROGRAM = """
let gap (u : unit) = mlet x = lapMech (1.0, 0.0) in mlet t = lapMech (1.0, 0.0) in return (x - t)
let flipped (u : unit) = mlet x = lapMech (1.0, 0.0) in return (1.0 - x)
let negated (u : unit) = mlet x = lapMech (1.0, 0.0) in return (0.0 - x + 1.0)
let above (u : unit) =
  mlet x = lapMech (1.0, 0.0) in mlet t = lapMech (1.0, 0.0) in
  if x >= t then return (x - t) else return (0.0 - 1.0)
let twice (u : unit) =
  mlet t = lapMech (1.0, 0.0) in return (1.0 - t, 2.0 - t)
let summed (u : unit) = mlet x = lapMech (1.0, 0.0) in mlet t = lapMech (1.0, 0.0) in return (x + t)
let mixed (u : unit) =
  mlet x = lapMech (1.0, 0.0) in mlet t = lapMech (1.0, 0.0) in
  if 0.0 - x < t then return true else return false
"""


def law(name: str):
    program = parse_program(PROGRAM, "gaps.pinf")
    return compared.compared_law(Evaluator(program, typecheck_program(program)).call(name, [()]))


def binned(name: str, cuts):
    return {k: v for k, v in law(name).coarsened([Fraction(c) for c in cuts]).items()}


def close(x, want: float) -> bool:
    return abs(float(reals.ball_of(x, 64).mid()) - want) < 1e-12


def test_the_gap_of_two_laplace_draws_has_the_law_of_their_difference():
    """The difference of two unit Laplace draws has density (1 + |z|) e^-|z| / 4."""
    out = binned("gap", [0, 1])
    assert set(out) == {Bin(None, 0), Bin(0, 1), Bin(1, None)}
    assert close(out[Bin(None, 0)].p, 0.5)
    assert close(out[Bin(0, 1)].p, 0.5 - 3 / (4 * E))
    assert close(out[Bin(1, None)].p, 3 / (4 * E))
    for o in out.values():   # the rounding sampler's probability is enclosed around the exact one
        assert reals.sign(reals.sub(o.lower, o.p)) <= 0 <= reals.sign(reals.sub(o.upper, o.p))
        assert float(reals.ball_of(reals.sub(o.upper, o.lower), 64).mid()) < 1e-6


@pytest.mark.parametrize("name", ["flipped", "negated"])
def test_a_draw_subtracted_from_a_constant_is_exact_on_the_grid(name):
    out = binned(name, [0, 1])
    assert close(out[Bin(0, 1)].p, (1 - 1 / E) / 2)       # 1 - x in [0, 1): x in (0, 1]
    assert close(out[Bin(1, None)].p, 0.5)                  # x <= 0
    assert close(out[Bin(None, 0)].p, 1 / (2 * E))          # x > 1


def test_a_bin_that_contradicts_the_comparison_has_no_probability():
    out = binned("above", [0, 1])
    assert Bin(None, 0) not in out          # x >= t: the gap is never negative, not "unknown"
    assert close(out[Bin(0, 1)].p, 0.5 - 3 / (4 * E))
    assert close(out[-1].p, 0.5)


def test_one_draw_released_twice_lies_in_both_bins():
    out = binned("twice", [0, 1])
    # 1 - t and 2 - t both in [0, 1): t in (1, 1] is empty; 1 - t < 0 and 2 - t in [0, 1): t in (1, 2]
    assert (Bin(0, 1), Bin(0, 1)) not in out
    assert close(out[(Bin(None, 0), Bin(0, 1))].p, (math.exp(-1) - math.exp(-2)) / 2)


@pytest.mark.parametrize("name, words", [("summed", "and another noisy value"),
                                         ("mixed", "negation of another")])
def test_a_sum_of_draws_is_refused_not_guessed(name, words):
    with pytest.raises(PrivInferError) as info:
        law(name)
    assert info.value.first.code == "R003" and words in info.value.first.message


MISTAKES = ROOT / "benchmarks" / "programs" / "mistakes"
GAP_BROKEN = [("gap_svt_noise_too_small", "gapSvt"), ("gap_svt_gap_without_query_noise", "gapSvt"),
              ("gap_svt_no_cutoff", "gapSvt")]


@pytest.mark.parametrize("name, claim", GAP_BROKEN)
def test_a_broken_gap_svt_is_refuted_by_an_exact_loss(name, claim):
    path = MISTAKES / f"{name}.pinf"
    program = parse_program(path.read_text(), str(path))
    report = verify_program(program, typecheck_program(program))
    c = next(c for c in report.claims if c.name == claim)
    assert c.verdict == "refuted" and c.confirmation.method == "exact loss", c.failure
    assert "above the claimed e1 + e2" in c.confirmation.detail


def test_the_correct_gap_svt_stays_verified():
    path = ROOT / "benchmarks" / "programs" / "couplings" / "gap_svt.pinf"
    program = parse_program(path.read_text(), str(path))
    report = verify_program(program, typecheck_program(program))
    assert {c.name: c.verdict for c in report.claims} == {"gap": "verified", "gapSvt": "verified"}
