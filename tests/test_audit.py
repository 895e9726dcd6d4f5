"""``privinfer audit``: exact privacy losses, the claim comparison, input errors."""
from __future__ import annotations

import json
from fractions import Fraction
import math
from pathlib import Path

import pytest

from verifier import audit as audit_mod
from verifier.audit import (
    CONSISTENT, EXACT, FLOAT, HOLDS, NO_CLAIM, NOT_COMPARABLE, SCORES, SOUNDNESS_BUG, VIOLATED,
    bench_audits, hockey_stick,
)
from verifier.claim_audit import audit_program
from verifier.cli import main
from verifier.errors import PrivInferError
from verifier.language.parser import parse_program
from verifier.language.typecheck import typecheck_program

PROGRAMS = Path(__file__).resolve().parent.parent / "benchmarks" / "programs"
SMALL_PRIOR = str(PROGRAMS / "negative" / "beta_hellinger_small_prior.pinf")
HELLINGER = str(PROGRAMS / "paper" / "beta_output_hellinger.pinf")
PRIVATE_CANDIDATES = str(PROGRAMS / "negative" / "expmech_private_candidates.pinf")
DIRICHLET = str(PROGRAMS / "paper" / "dirichlet_output_hellinger.pinf")

PROGRAM = """
let score (obs, b) = if b = obs then 1.0 else 0.0

(* randomized response through expMech: each bit costs eps / 2 exactly (scores 0 or 1) *)
val rr :: {l :: bool list | adj (l<1>, l<2>)} -> {eps :: real+ | =} -> M[DP(eps)] {r :: bool list | =}
let rec rr db eps = match db with
  | [] -> return []
  | y :: ys -> mlet z = expMech (eps, score, y) in
               mlet zs = rr ys eps in
               return (z :: zs)

(* the same with the tight claim, which the verifier does not prove *)
val rrTight :: {l :: bool list | adj (l<1>, l<2>)} -> {eps :: real+ | =} -> M[DP(eps / 2.0)] {r :: bool list | =}
let rrTight db eps = rr db eps

(* randomized response with a rational coin: loss ln 3 exactly *)
val coin :: {l :: bool list | adj (l<1>, l<2>)} -> M[DP(log 3.0)] {r :: bool list | =}
let rec coin db = match db with
  | [] -> return []
  | y :: ys -> mlet keep = ran (bernoulli 0.75) in
               mlet zs = coin ys in
               return ((if keep then y else not y) :: zs)

(* pure functions *)
val size :: {l :: bool list | adj (l<1>, l<2>)} -> {n :: nat | =}
let size db = length db

val total :: {l :: bool list | adj (l<1>, l<2>)} -> {n :: nat | =}
let total db = count db

let firstIsZero (db : [3] list) = match db with | [] -> true | x :: xs -> x = 0

let noisy db eps = lapMech (eps, count db)

let postProcessed db eps = mlet x = lapMech (eps, count db) in return (x * x > 0.0)

let k = 2.0
let twice (flags : bool list) (xs : [3] list) (scale : real+) = (count flags, length xs, scale)
"""


@pytest.fixture(scope="module")
def program(tmp_path_factory) -> str:
    path = tmp_path_factory.mktemp("audit") / "prog.pinf"
    path.write_text(PROGRAM)
    return str(path)


# ---- the case from the issue --------------------------------------------------------------------


@pytest.fixture(scope="module")
def small_prior():
    return audit_program(SMALL_PRIOR, "main", 5, ["a=0.05", "b=0.05", "eps=1.0 / rho"])


def test_small_prior_loses_1_023_against_a_claimed_1(small_prior):
    r = small_prior
    assert r.loss == pytest.approx(1.0231455157128879, abs=1e-12)
    # exact probabilities (the scores are exact reals): a rigorous enclosure of the loss
    assert r.precision == EXACT
    assert r.loss_lower <= r.loss <= r.loss_upper and r.loss_upper - r.loss_lower < 1e-12
    assert r.loss_lower > 1.02
    # the worst pair: all false against one true, at length 5, output beta(0.05, 5.05)
    assert r.worst.left.to_list() == [False] * 5
    assert r.worst.right.to_list() == [True] + [False] * 4
    assert r.worst.output.format() == "beta(0.05, 5.05)"
    assert math.log(r.worst.p_left / r.worst.p_right) == pytest.approx(r.loss, abs=1e-12)
    assert [m for m, _ in r.loss_by_length] == [1, 2, 3, 4, 5]
    assert max(v for _, v in r.loss_by_length) == r.loss
    assert (r.inputs, r.pairs) == (62, 2 * 129)      # ordered pairs of adjacent inputs
    # the claim: (rho * eps, 0) = (1, 0); the verifier cannot decide it (its counterexample
    # needs priors this small, and the exact loss of float Hellinger scores is no witness);
    # the audit shows it false
    c = r.claim
    assert c.eps == pytest.approx(1.0, abs=1e-12) and c.delta == 0
    assert c.verifier == "unknown"
    assert c.status == VIOLATED and r.exceeds_claim and not r.soundness_bug
    assert c.excess == pytest.approx(0.0231455157, abs=1e-9)
    assert "NOT (1, 0)-DP" in c.message and "the audit shows it is false" in c.message
    # delta(eps) is decreasing, positive below the loss and 0 above it
    curve = dict(r.delta_curve)
    assert curve[0.0] > curve[1.0] > 0
    assert all(d == 0 for e, d in r.delta_curve if e > r.loss + 1e-9)
    assert c.delta_at_eps == pytest.approx(curve[1.0], rel=1e-6)


def test_small_prior_loss_matches_a_direct_computation(small_prior):
    """Recompute the worst pair's loss from scratch: the exponential mechanism over beta
    posteriors with H = sqrt(1 - BC) (mpmath, 50 digits)."""
    import mpmath as mp
    mp.mp.dps = 50
    a = b = mp.mpf(1) / 20
    rho = mp.sqrt(1 - mp.pi / 4)
    eps = 1 / rho
    n = 5

    def lbeta(x, y):
        return mp.loggamma(x) + mp.loggamma(y) - mp.loggamma(x + y)

    def hell(p, q):
        lbc = lbeta((p[0] + q[0]) / 2, (p[1] + q[1]) / 2) - (lbeta(*p) + lbeta(*q)) / 2
        return mp.sqrt(1 - mp.exp(lbc))

    def law(trues):
        post = (a + trues, b + n - trues)
        cands = [(a + j, b + n - j) for j in range(n + 1)]
        w = [mp.exp(-eps * hell(post, c) / 2) for c in cands]
        return [x / sum(w) for x in w]

    p0, p1 = law(0), law(1)
    loss = max(abs(mp.log(x / y)) for x, y in zip(p0, p1))
    assert float(loss) == pytest.approx(small_prior.loss, abs=1e-12)


def test_the_cli_reports_the_violation(capsys):
    code = main(["audit", SMALL_PRIOR, "main", "--n", "5", "--arg", "a=0.05", "--arg", "b=0.05",
                 "--arg", "eps=1.0 / rho", "--eps-grid", "0,1,1.1"])
    out = capsys.readouterr().out
    assert code == 1
    assert "privacy loss: 1.023145516" in out
    assert "verdict: violated" in out and "verifier: unknown" in out
    code = main(["audit", SMALL_PRIOR, "main", "--n", "3", "--arg", "a=0.05", "--arg", "b=0.05",
                 "--arg", "eps=1.0 / rho", "--json", "--no-verify"])
    result = json.loads(capsys.readouterr().out)
    assert code == 1
    assert result["claim"]["verifier"] == "skipped" and result["claim"]["status"] == VIOLATED
    assert result["loss"] == pytest.approx(1.0022076883, abs=1e-9)
    assert result["worst"]["output_printed"].startswith("beta(")
    assert len(result["loss_enclosure"]) == 2


def test_a_verified_claim_that_the_loss_exceeds_is_a_soundness_bug(monkeypatch):
    """Pretend the verifier had verified the small-prior claim: the audit must flag it."""
    from verifier import verification

    real = verification.verify_program

    def lenient(program, typed=None, **kwargs):
        report = real(program, typed, **kwargs)
        for c in report.claims:
            c.verdict = verification.VERIFIED
        return report

    monkeypatch.setattr(verification, "verify_program", lenient)
    r = audit_program(SMALL_PRIOR, "main", 5, {"a": "0.05", "b": "0.05", "eps": "1.0 / rho"})
    assert r.claim.status == SOUNDNESS_BUG and r.soundness_bug
    assert "the verifier proved (1, 0)-DP" in r.claim.message
    assert r.bench_cell() == "loss 1.0231 > 1 (SOUNDNESS BUG)"


# ---- correct programs ---------------------------------------------------------------------------


def test_the_paper_mechanism_is_consistent_with_its_verified_claim():
    r = audit_program(HELLINGER, "main", 5, ["a=1.0", "b=1.0", "eps=1.0"])
    assert r.claim.verifier == "verified" and r.claim.status == CONSISTENT
    rho = math.sqrt(1 - math.pi / 4)
    assert r.claim.eps == pytest.approx(rho)
    assert 0.24 < r.loss < rho
    assert r.bench_cell() == "loss 0.24997 <= 0.46325 (consistent)"


def test_a_claim_whose_assumptions_fail_is_not_comparable():
    r = audit_program(HELLINGER, "main", 3, ["a=0.05", "b=0.05", "eps=1.0"], verify=False)
    assert r.claim.status == NOT_COMPARABLE
    assert "a<1> >= 1.0" in r.claim.message
    assert not r.exceeds_claim


@pytest.mark.parametrize("where, covered", [("after", True), ("before", False)])
def test_the_claim_is_read_in_the_scope_of_its_val(tmp_path, where, covered):
    """A user's adj defined after the val leaves the claim's adj the built-in one (every
    adjacent pair is covered and the exact release violates eps = 1); defined before, it is
    the claim's adj (here false everywhere: nothing is covered)."""
    val = "val main :: {l :: bool list | adj (l<1>, l<2>)} -> M[DP(1.0)] {r :: bool | =}\n"
    body = "let main db = return (count db > 0)\n"
    user_adj = "let adj (a, b) = length a < 0\n"
    path = tmp_path / "scope.pinf"
    path.write_text(val + body + user_adj if where == "after" else user_adj + val + body)
    r = audit_program(str(path), "main", 2, [], verify=False)
    if covered:
        assert r.claim.covered_pairs > 0 and r.claim.status == VIOLATED
    else:
        assert r.claim.covered_pairs == 0 and r.claim.status == NOT_COMPARABLE


def test_randomized_response_by_expmech_costs_half_its_eps_per_bit(program):
    r = audit_program(program, "rr", 3, ["eps=1.0"])
    assert r.precision == EXACT
    assert r.loss == pytest.approx(0.5, abs=1e-12)        # ln(e^{1/2}) : scores 0 and 1
    assert r.claim.verifier == "verified" and r.claim.status == CONSISTENT
    assert r.claim.eps == 1.0
    # the tight claim eps / 2 holds exactly, but the verifier's generic rule cannot prove it
    tight = audit_program(program, "rrTight", 3, ["eps=1.0"])
    assert tight.claim.verifier == "unknown"  # not refuted: it is true
    assert tight.claim.status == HOLDS and "tight" in tight.claim.message
    assert abs(tight.claim.excess) <= 1e-12


def test_a_rational_coin_gives_an_exact_enclosure_equal_to_the_claim(program):
    r = audit_program(program, "coin", 3, [])
    assert r.precision == EXACT
    assert r.loss_lower <= math.log(3) <= r.loss_upper
    assert r.loss_upper - r.loss_lower < 1e-15
    assert r.claim.eps == pytest.approx(math.log(3)) and r.claim.status == HOLDS
    # delta(eps) of randomized response at one position: 0.75 - e^eps 0.25 when positive
    curve = dict(r.delta_curve)
    assert curve[0.0] == pytest.approx(0.5)


def test_pure_functions(program):
    same = audit_program(program, "size", 4, [])
    assert same.loss == 0 and same.worst is None
    assert same.claim.verifier == "verified" and same.claim.status == CONSISTENT
    assert same.distinct_pairs == 0
    leaky = audit_program(program, "total", 3, [])
    assert leaky.loss == math.inf and (leaky.worst.p_left, leaky.worst.p_right) == (1.0, 0.0)
    assert leaky.claim.verifier == "refuted" and leaky.claim.status == VIOLATED
    assert dict(leaky.delta_curve)[0.0] == 1.0
    flags = audit_program(program, "firstIsZero", 2, [])
    assert flags.private_type == "[3] list" and flags.inputs == 3 + 9
    assert flags.pairs == 2 * (3 + 2 * 9)     # m * 3^m * 2 ordered pairs at length m
    assert flags.loss == math.inf and flags.claim.status == NO_CLAIM


def test_private_candidates_have_infinite_loss():
    r = audit_program(PRIVATE_CANDIDATES, "main", 2, ["a=1.0", "b=1.0", "eps=1.0"])
    assert r.loss == math.inf and r.claim.status == VIOLATED
    assert r.worst.p_right == 0.0


def test_dirichlet_lists():
    r = audit_program(DIRICHLET, "main", 2, ["a1=1.0", "a2=1.0", "a3=1.0", "eps=1.0"])
    assert r.private_type == "[3] list" and r.inputs == 12
    assert r.claim.status == CONSISTENT and r.loss < r.claim.eps


def test_the_private_parameter_and_arguments(program):
    r = audit_program(program, "twice", 2, ["xs=[0; 1]", "scale=k * 1.5"])
    assert r.private == "flags" and r.arguments == {"xs": "[0; 1]", "scale": "3.0"}
    r = audit_program(program, "twice", 1, ["flags=[true]", "scale=1.0"], private="xs")
    assert r.private == "xs" and r.inputs == 3


def test_delta_hockey_stick():
    import numpy as np
    a, b = np.array([0.75, 0.25]), np.array([0.25, 0.75])
    assert hockey_stick(a, b, 0.0) == pytest.approx(0.5)
    assert hockey_stick(a, b, math.log(2)) == pytest.approx(0.25)
    assert hockey_stick(a, b, math.log(3)) == pytest.approx(0.0, abs=1e-15)


# ---- input errors -------------------------------------------------------------------------------


def _error(capsys, *argv):
    code = main(["audit", *argv])
    err = capsys.readouterr().err
    return code, err


def test_input_errors(capsys, program):
    code, err = _error(capsys, program, "postProcessed", "--n", "2", "--arg", "eps=1.0")
    assert code == 2 and "R003" in err and "while auditing db = [false]" in err
    code, err = _error(capsys, program, "rr", "--n", "2", "--arg", "eps=1.0", "--arg", "db=[true]")
    assert code == 2 and "private input" in err
    code, err = _error(capsys, program, "rr", "--n", "2")
    assert code == 2 and "missing value for the parameter eps" in err and "--data" not in err
    code, err = _error(capsys, program, "rr", "--n", "0", "--arg", "eps=1.0")
    assert code == 2 and "--n must be a positive integer" in err
    code, err = _error(capsys, program, "rr", "--n", "2", "--arg", "eps=2.0 * nope")
    assert code == 2 and "nope" in err and "top level" in err
    code, err = _error(capsys, program, "rr", "--n", "2", "--arg", "eps=-1.0")
    assert code == 2 and "R005" in err
    code, err = _error(capsys, program, "rr", "--n", "2", "--arg", "eps=1.0", "--private", "eps")
    assert code == 2 and "list of bool, [k], int or real values" in err
    code, err = _error(capsys, program, "rr", "--n", "40", "--arg", "eps=1.0")
    assert code == 2 and "R009" in err
    code, err = _error(capsys, program, "rr", "--n", "2", "--arg", "eps=1.0", "--eps-grid", "0,x")
    assert code == 2 and "--eps-grid" in err
    code, err = _error(capsys, program, "nowhere", "--n", "2")
    assert code == 2 and "R004" in err
    code, err = _error(capsys, program, "rr", "--n", "2", "--arg", "eps=1.0", "--values", "0,1")
    assert code == 2 and "--values is for lists of numbers" in err
    mean = str(PROGRAMS / "course" / "laplace_mean.pinf")
    code, err = _error(capsys, mean, "noisyMean", "--n", "2", "--arg", "eps=1.0", "--values", "0,pi")
    assert code == 2 and "U002" in err and "'pi' is not a rational number" in err


def test_input_errors_are_privinfer_errors(program):
    with pytest.raises(PrivInferError):
        audit_program(program, "postProcessed", 1, ["eps=1.0"])


# ---- the benchmark table --------------------------------------------------------------------------


def test_bench_audits_table_lists_existing_programs():
    for rel, specs in audit_mod.BENCH_AUDITS.items():
        assert (PROGRAMS / rel).is_file(), rel
        assert specs and all(s.n >= 1 for s in specs)
    assert bench_audits(str(PROGRAMS / "negative" / "beta_hellinger_small_prior.pinf"))[0].n == 5
    assert bench_audits("benchmarks/programs/course/laplace_mean.pinf") == ()


@pytest.mark.slow
def test_every_bench_audit_runs_and_no_soundness_bug():
    for rel, specs in audit_mod.BENCH_AUDITS.items():
        for spec in specs:
            r = audit_program(str(PROGRAMS / rel), spec.entry, spec.n, spec.args)
            assert not r.soundness_bug, (rel, spec, r.claim.message)
            expect_violation = rel.startswith(("negative/", "mistakes/"))
            assert r.exceeds_claim == expect_violation, (rel, spec, r.claim.message)


# ---- pairs by the claim's own refinements, ordered (issue 25) --------------------------------------

RELATIONS = """
let agree (truth : bool, answer : bool) = if answer = truth then 1.0 else 0.0

(* randomized response by expMech at eps = e: each bit kept with probability e^(e/2) / (1 + e^(e/2)) *)
let rec rr db e = match db with
  | [] -> return []
  | x :: xs -> mlet y = expMech (e, agree, x) in
               mlet ys = rr xs e in
               return (y :: ys)

val twoApart :: {l :: bool list | length l<1> = length l<2> /\\ dist (l<1>, l<2>) <= 2} -> M[DP(0.5)] {r :: bool list | =}
let twoApart db = rr db 1.0

val readsRun2 :: {l :: bool list | adj (l<1>, l<2>)} -> M[DP(0.25 * count l<2>)] {r :: bool list | =}
let readsRun2 db = rr db 1.0

val oneSided :: {l :: bool list | adj (l<1>, l<2>) /\\ count l<1> <= count l<2>} -> M[DP(log 1.5)] {r :: bool | =}
let oneSided db = ran (bernoulli (if count db > 0 then 0.5 else 0.75))

val tie :: {l :: bool list | adj (l<1>, l<2>)} -> M[DP(0.0), (exp 0.5 - 1.0) / (exp 0.5 + 1.0)] {r :: bool list | =}
let tie db = rr db (if length db > 1 then 1.1 else 1.0)

val noisy :: {l :: bool list | adj (l<1>, l<2>)} -> {eps :: real+ | =} -> M[DP(eps)] {r :: real | =}
let noisy db eps = lapMech (eps, count db)

val belowTheGrid :: {l :: bool list | adj (l<1>, l<2>)} -> M[DP(1e-30)] {r :: real | =}
let belowTheGrid db = lapMech (1.0, 0.00000000000045474735088646411895751953125 - 5e-31 + 1e-30 * count db)
"""


@pytest.fixture(scope="module")
def relations(tmp_path_factory) -> str:
    path = tmp_path_factory.mktemp("relations") / "relations.pinf"
    path.write_text(RELATIONS)
    return str(path)


def _keep(e):
    """mpmath: the probability rr keeps a bit at eps = e (an independent computation)."""
    import mpmath
    w = mpmath.exp(mpmath.mpf(e) / 2)
    return w / (1 + w)


def test_pairs_at_hamming_distance_two_are_audited(relations):
    import itertools
    import mpmath
    r = audit_program(relations, "twoApart", 3, [], verify=False)
    lists = [x for m in range(1, 4) for x in itertools.product([False, True], repeat=m)]
    expected_pairs = sum(1 for x in lists for y in lists
                         if x != y and len(x) == len(y) and sum(a != b for a, b in zip(x, y)) <= 2)
    assert r.pairs == expected_pairs == 62
    p = _keep(1)
    assert r.loss == pytest.approx(float(2 * mpmath.log(p / (1 - p))), abs=1e-12)   # = 1
    assert r.claim.status == VIOLATED and r.exceeds_claim
    assert sum(a != b for a, b in zip(r.worst.left.to_list(), r.worst.right.to_list())) == 2


def test_an_index_that_reads_one_run_is_read_on_each_ordered_pair(relations):
    import mpmath
    r = audit_program(relations, "readsRun2", 3, [], verify=False)
    assert r.claim.status == VIOLATED
    left, right = (v.to_list() for v in r.claim.violation)
    assert sum(right) == 0 and sum(left) == 1            # claimed 0.25 * count l<2> = 0 there
    p = _keep(1)
    assert r.claim.excess == pytest.approx(float(mpmath.log(p / (1 - p))), abs=1e-12)   # 0.5 - 0
    assert "claimed 0" in r.claim.message


def test_a_one_sided_premise_is_checked_in_its_direction_only(relations):
    import mpmath
    r = audit_program(relations, "oneSided", 3, [], verify=False)
    assert r.claim.status == HOLDS and "tight" in r.claim.message
    # covered: count l<1> <= count l<2>; from count 0 to count 1 the worst ratio is 0.75 / 0.5
    assert r.loss_lower <= float(mpmath.log(1.5)) <= r.loss_upper
    assert sum(r.worst.left.to_list()) <= sum(r.worst.right.to_list())


def test_a_hockey_stick_sum_equal_to_delta_is_decided(relations):
    import mpmath
    # length 1 only: the sum is exactly delta = tanh(1/4), a tie, decided (no R011)
    one = audit_program(relations, "tie", 1, [], verify=False)
    assert one.claim.status == HOLDS
    # length 2: the bits are kept at eps = 1.1, delta(0) = tanh(0.275) > tanh(0.25)
    r = audit_program(relations, "tie", 3, [], verify=False)
    assert r.claim.status == VIOLATED
    assert r.claim.delta_at_eps == pytest.approx(float(mpmath.tanh(mpmath.mpf("0.275"))), abs=1e-12)
    assert r.claim.delta == pytest.approx(float(mpmath.tanh(mpmath.mpf("0.25"))), abs=1e-12)
    assert len(r.claim.violation[0].to_list()) >= 2


@pytest.mark.parametrize("eps, loss_text", [("800.0", None), ("1e400", "5.000000000e+399")])
def test_an_eps_beyond_the_float_range_is_audited(capsys, eps, loss_text):
    rr = str(PROGRAMS / "classic" / "randomized_response.pinf")
    assert main(["audit", rr, "survey", "--n", "2", "--arg", f"eps={eps}", "--no-verify"]) == 0
    out = capsys.readouterr().out
    assert "holds at these sizes" in out
    r = audit_program(rr, "survey", 2, [f"eps={eps}"], verify=False)
    if loss_text is None:
        assert r.loss == pytest.approx(400.0, abs=1e-9)          # eps / 2 exactly
    else:
        assert r.loss_text == loss_text and r.claim.eps_text.startswith("1.0000")


def test_the_audit_models_the_sampler_that_runs(relations):
    """lapMech's release is a rounding of the exact Laplace draw: its exact loss is eps at
    every pair (the tails of the two laws), tight, also for centres below the grid."""
    r = audit_program(relations, "noisy", 2, ["eps=0.5"])
    assert r.claim.verifier == "verified" and r.claim.status == CONSISTENT and "tight" in r.claim.message
    assert r.loss_lower <= 0.5 <= r.loss_upper and r.loss_upper - r.loss_lower < 1e-12
    grid = audit_program(relations, "belowTheGrid", 1, [], verify=False)
    assert grid.claim.status == HOLDS and "tight" in grid.claim.message
    assert grid.loss_lower <= 1e-30 <= grid.loss_upper and grid.loss_upper < 1.0000001e-30


def test_an_audit_with_a_step_budget_stops_instead_of_evaluating_every_input():
    """The refutation search audits with a budget over all inputs (``total_steps``): a program
    whose work grows with the input is cut off with R010, not evaluated to the end."""
    program = parse_program(
        "let rec len l = match l with | [] -> 0 | _ :: xs -> 1 + len xs\n"
        "val main :: {l :: bool list | adj (l<1>, l<2>)} -> M[DP(1.0)] {n :: real | =}\n"
        "let main db = return (len db)\n")
    typed = typecheck_program(program)
    assert audit_mod.audit(program, typed, "main", 4, []) is not None
    with pytest.raises(PrivInferError) as info:
        audit_mod.audit(program, typed, "main", 4, [], total_steps=200)
    assert info.value.first.code == "R010"


# ---- private lists of numbers (the Sparse Vector family, Report Noisy Max) ------------------------


def test_a_list_of_reals_is_enumerated_from_the_given_values():
    """The pairs are the claim's own (allWithin at distance 1): with values 0, 1 every pair of
    one length is related; the Laplace-mean's claim is met exactly, tight."""
    r = audit_program(str(PROGRAMS / "course" / "laplace_mean.pinf"), "noisyMean", 2, ["eps=1.0"])
    assert r.private_type == "real list (elements from 0.0, 1.0)" and r.inputs == 6
    assert r.claim.status == "consistent" and r.loss == pytest.approx(1.0, abs=1e-9)
    r = audit_program(str(PROGRAMS / "course" / "laplace_mean.pinf"), "noisyMean", 1, ["eps=1.0"],
                      values=[0, Fraction(1, 2), 3])
    assert r.inputs == 3 and r.relation.startswith("adjWithin")


def test_above_threshold_is_audited_exactly_and_within_its_claim():
    r = audit_program(str(PROGRAMS / "couplings" / "above_threshold.pinf"), "aboveThreshold", 2,
                      ["thr=0.5", "eps=1.0"])
    assert r.claim.status == "consistent" and r.claim.verifier == "verified"
    assert 0.1 < r.loss < 1.0 and r.pairs == 14 and not r.exceeds_claim


def test_broken_sparse_vector_variants_exceed_their_claims():
    """Queries compared without noise of their own: infinite loss; Lee and Clifton's query noise
    that does not grow with the answers: an exact loss above the claim at length 3."""
    r = audit_program(str(PROGRAMS / "mistakes" / "svt_no_query_noise.pinf"), "svt", 2,
                      ["thr=0.5", "e1=1.0"])
    assert r.exceeds_claim and math.isinf(r.loss) and not r.soundness_bug
    r = audit_program(str(PROGRAMS / "mistakes" / "svt_noise_too_small.pinf"), "svt", 3,
                      ["thr=0.5", "e1=1.0", "e2=1.0", "c=1"])
    assert r.exceeds_claim and r.loss > 2.0 and r.loss_lower > 2.0


def test_values_are_checked_against_the_element_type(tmp_path):
    path = tmp_path / "nat.pinf"
    path.write_text("""
val noisySum :: {l :: nat list | adjWithin (l<1>, l<2>, 1.0)} -> M[DP(1.0)] {r :: real | =}
let noisySum l = lapMech (1.0, sum l)
""")
    with pytest.raises(PrivInferError) as info:
        audit_program(str(path), "noisySum", 1, [], values=[-1, 0])
    assert info.value.first.code == "R005"
    with pytest.raises(PrivInferError) as info:
        audit_program(str(path), "noisySum", 1, [], values=[Fraction(1, 2)])
    assert info.value.first.code == "U002" and "not an integer" in info.value.first.message
    r = audit_program(str(path), "noisySum", 2, [], values=[0, 1, 2])
    assert r.claim.status == "consistent" and r.loss == pytest.approx(1.0, abs=1e-9)
