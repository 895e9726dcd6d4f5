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


TRUE_GAPS = ROOT / "tests" / "released_gaps" / "true_gap_releases.pinf"


@pytest.mark.parametrize("entry", ["negRelease", "gapRelease", "twoGaps", "gapAbove", "gapAndT",
                                   "gapAndX", "negTwice"])
def test_the_binned_law_of_a_true_gap_release_stays_within_its_claim(entry):
    """Binning is a post-processing: its loss is a lower bound, never above a true claim —
    even where the claim is tight (a negated release at exactly eps)."""
    from verifier.audit import HOLDS, audit
    program = parse_program(TRUE_GAPS.read_text(), str(TRUE_GAPS))
    specs = ["eps=1.0"] + (["thr=0.0"] if entry == "gapRelease" else [])
    result = audit(program, typecheck_program(program), entry, 2, specs, verdict=None)
    assert result.claim.status == HOLDS, result.claim.message


def test_a_negated_release_is_pinned_to_whole_grid_cells_at_the_bins_edges():
    """``-R(Y) + o`` in ``[lo, hi)`` is ``R(Y)`` in ``(o - hi, o - lo]``: with both ends on the
    grid, the cell of ``o - lo`` is in and that of ``o - hi`` is out (cells ``[g(k - 1/2),
    g(k + 1/2))``, the sampler's rounding: ``noise.grid``, ``compared._cell_edge``)."""
    from verifier.semantics import noise
    from verifier.semantics.compared import Leaf, Noisy, Slot, _binned
    g = noise.grid(Fraction(1))
    o = Fraction(3)
    leaf = Leaf(Fraction(1), (("laplace", Fraction(0), Fraction(1)),), (), Slot(0),
                (Noisy(1, o, "the draw", -1),))
    lo, hi = o - 5 * g, o + 7 * g        # R(Y) in (-7g, 5g]: the cells k = -6 .. 5
    pins = {finite: pinned for finite, pinned, _ in _binned(leaf, (lo, hi))}
    assert pins[Bin(lo, hi)] == {1: (g * Fraction(-13, 2), g * Fraction(11, 2))}
    assert pins[Bin(None, lo)] == {1: (g * Fraction(11, 2), None)}
    assert pins[Bin(hi, None)] == {1: (None, g * Fraction(-13, 2))}


def test_a_released_gap_in_its_bin_is_two_difference_constraints():
    """``lo <= (Y_1 + 2) - Y_2 < hi`` is ``Y_1 - Y_2 < hi - 2`` and ``Y_2 - Y_1 <= 2 - lo``;
    a bin that the path's own comparison of the same two draws excludes is skipped (exactly
    empty in the sampler too: the same rounded difference), not an R003."""
    from verifier.semantics.compared import Leaf, Noisy, NoisyDifference, Slot, _binned
    two = (("laplace", Fraction(0), Fraction(1)),) * 2
    gap = NoisyDifference(Noisy(1, Fraction(2), "x"), Noisy(2, Fraction(0), "t"))
    cuts = (Fraction(0), Fraction(1))

    def ways(constraints):
        leaf = Leaf(Fraction(1), two, constraints, Slot(0), (gap,))
        return {finite: binned.constraints for finite, _, binned in _binned(leaf, cuts)}

    assert ways(())[Bin(0, 1)] == ((1, 2, -1, True), (2, 1, 2, False))
    # the path compared Y_2 <= Y_1, so the gap is at least 2: only the last bin remains
    assert ways(((2, 1, Fraction(0), False),)) == {Bin(1, None): ((2, 1, 0, False), (2, 1, 1, False))}
