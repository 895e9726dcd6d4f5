"""The exact semantics of while-procedures at work (docs/aprhl.md, "Refutations" and "Audit"):
a broken twin is refuted only with two inputs satisfying its precondition and a loss computed
exactly from its output laws (or a run-time error on every run); a true claim is never
refuted, whatever the verifier proves; a witness is re-checked here independently of the
search; ``privinfer audit`` measures the exact loss on every small input and agrees with the
verified claims."""
import json
from fractions import Fraction
from pathlib import Path

import pytest
from verify_helpers import privinfer

from checker import aprhl as kernel
from checker.aprhl_certify import certificate
from verifier import audit as A
from verifier.aprhl import verify as aprhl_verify
from verifier.aprhl.audit import audit_while
from verifier.aprhl.commands import verify_file
from verifier.aprhl.coupled import holds
from verifier.aprhl.law import procedure_law
from verifier.aprhl.refute import _output_shift, refute
from verifier.aprhl.run import _conform, read_argument
from verifier.language import whilelang as W
from verifier.laws import output_law, pair_stat
from verifier.semantics.released import Noise

ROOT = Path(__file__).resolve().parents[1]
APRHL = ROOT / "benchmarks" / "programs" / "aprhl"
#: the peers' spellings (``peer_*``): tests/test_aprhl_peers.py
GOOD = sorted(p for p in APRHL.glob("*.pwhile") if not p.name.startswith("peer_"))


def _procs(path_or_text):
    prog = (W.parse_while_file(str(path_or_text)) if isinstance(path_or_text, Path)
            else W.parse_while(path_or_text, "t.pwhile"))
    types = W.check_program(prog)
    return [(p, types[p.name]) for p in prog.procs if p.spec is not None]


def _witness_inputs(proc, types, confirmation):
    """The witness's inputs read back as ``--arg`` reads them (its literals round-trip)."""
    envs = ({}, {})
    for name, a, b in confirmation.inputs:
        param = next(p for p in proc.params if p.name == name)
        want = W.wtype_simple(param.type)
        for env, text in zip(envs, (a, b)):
            env[name] = _conform(read_argument(text, name, want), types.vars[name])
    return envs


#: the broken twins refuted, and how
REFUTED = [
    ("noise_too_small.pwhile", "exact loss"),
    ("group_undercharged.pwhile", "exact loss"),
    ("undercharged.pwhile", "exact loss"),          # a budget that does not sum the loop's costs
    ("unnoised_sum.pwhile", "exact loss"),          # a release without noise: infinite loss
    ("loop_on_private.pwhile", "exact loss"),       # a loop count that depends on private data
    ("parallel_twice.pwhile", "exact loss"),
    ("partial_sum_all_within.pwhile", "exact loss"),
    ("rnm_noise_too_small.pwhile", "exact loss"),   # finite outputs of compared noise
    ("svt_noise_too_small.pwhile", "exact loss"),
    ("out_of_bounds.pwhile", "run"),
    ("smart_sum_undercharged.pwhile", "exact loss"),
    ("smart_sum_block_unnoised.pwhile", "exact loss"),
    ("smart_sum_zero_block.pwhile", "run"),          # mod by 0
    ("branch_on_private.pwhile", "exact loss"),     # a point mass against a release
    ("shift_undercharged.pwhile", "exact loss"),    # run 2's release moved by the relation's -1
    # the second phase: lists of 4 to 6 answers moved in the telling patterns
    ("peer_badsvt1_no_threshold_noise.pwhile", "exact loss"),
    ("peer_badsvt1_stop_position.pwhile", "exact loss"),
    ("peer_badsvt2_noisy_answer_released.pwhile", "exact loss"),
    ("peer_badsvt2_noisy_answer_released_else.pwhile", "exact loss"),
    ("peer_badsvt3_done_flag_never_counts.pwhile", "exact loss"),
    ("peer_badsvt3_no_count_bound_else.pwhile", "exact loss"),
    ("peer_badsvt4_wrong_scale_count_down.pwhile", "exact loss"),   # th - (q + eta) > 0
]


@pytest.mark.parametrize("name, method", REFUTED)
def test_broken_twins_are_refuted_with_a_witness_checked_again(name, method):
    [r], ok = verify_file(str(APRHL / "mistakes" / name))
    assert not ok and r.verdict == "refuted" and r.code == "V008", r.failure
    c = r.confirmation
    assert c.method == method and "the verifier's reason:" in r.failure
    [(proc, types)] = _procs(APRHL / "mistakes" / name)
    env1, env2 = _witness_inputs(proc, types, c)
    assert holds(proc.spec.pre, env1, env2) is True       # inside the claim's precondition
    if method == "run":
        return
    # the loss again, from the laws of the two runs (exactly: arb balls and exact reals)
    eps = holds(proc.spec.eps, env1, env2)
    laws = [output_law(procedure_law(proc, types, env))[1]() for env in (env1, env2)]
    if proc.spec.post is not None:    # result<1> = result<2> + k: run 2's release moved by k
        k = holds(_output_shift(proc.spec.post), env1, env2)
        laws[1] = Noise(laws[1].family, laws[1].center + k, laws[1].scale)
    assert pair_stat(*laws, mixed=True).exceeds(Fraction(eps))


@pytest.mark.parametrize("path", GOOD, ids=lambda p: p.name)
def test_true_claims_are_never_refuted(path):
    # the search run on the verified programs directly (verify does not run it on them):
    # no pair of inputs it tries shows a loss above the claim
    for proc, types in _procs(path):
        assert refute(proc, types) is None


def test_a_count_under_a_branch_on_private_data_is_verified_by_the_one_sided_rules():
    # counting the positive entries releases a count moving by at most 1: eps-DP; the if does
    # not sample, so each run takes its own branch (If-L, If-R) and the count is a running sum
    # whose summand is derived from the body (formerly unknown: mistakes/branch_on_private)
    [r], _ = verify_file(str(APRHL / "count_positive_branch.pwhile"))
    assert r.verdict == "verified" and r.onesided and r.guarantee.startswith(
        "CountPositive is (eps, 0)-differentially private with respect to ")
    # the twin releases only under the private guard (an if that samples): never verified
    [r], _ = verify_file(str(APRHL / "mistakes" / "branch_on_private.pwhile"))
    assert r.verdict != "verified" and "synchronised" in r.failure


LAP = """proc F (q : real) (pub eps : real+) : real
  |- ({eps}, {delta}) : abs (q<1> - q<2>) <= 1 ==> =
  z := $ Lap (1 / (2 * eps), q);
  return z
end
"""


def test_an_approximate_claim_is_refuted_by_the_hockey_stick_divergence(tmp_path):
    # Lap of scale 1 / (2 eps) moved by 1: the loss is 2 eps; at eps the hockey-stick
    # divergence is 1 - exp(-eps / 2) <= eps / 2 (0.39 at eps = 1: above eps / 4)
    [(p, t)] = _procs(LAP.format(eps="eps", delta="eps / 4"))
    found = refute(p, t)
    assert found is not None and "hockey-stick divergence at eps" in found.detail
    [(p, t)] = _procs(LAP.format(eps="eps", delta="eps / 2"))
    assert refute(p, t) is None
    [(p, t)] = _procs(LAP.format(eps="2 * eps", delta="0"))
    assert refute(p, t) is None and aprhl_verify.verify_proc(p, t).verdict == "verified"


def test_an_error_on_some_paths_only_is_no_witness():
    # the index is read past the end only when the noisy value is positive: not on every run,
    # so no run witness (and the law has no path to compute there: unknown)
    text = """proc F (d : real list) (pub eps : real+) : real
  |- (eps, 0) : adjWithin (d<1>, d<2>, 1) ==> =
  z := $ Lap (1 / eps, 0);
  y := 0;
  if z > 0 then y := d[size d] end;
  return z
end
"""
    [(p, t)] = _procs(text)
    assert refute(p, t) is None
    # before any noise is compared, the same read stops every run: refuted by run
    [(p, t)] = _procs(text.replace("if z > 0 then y := d[size d] end", "y := d[size d]"))
    found = refute(p, t)
    assert found is not None and found.method == "run" and "out of bounds" in found.detail


def test_a_division_by_zero_on_every_run_refutes():
    [(p, t)] = _procs("""proc F (q : real) (pub eps : real+) (pub n : int) : real
  |- (eps, 0) : abs (q<1> - q<2>) <= 1 ==> =
  z := $ Lap (1 / eps, q / n);
  return z
end
""")
    found = refute(p, t)
    assert found is not None and found.method == "run" and "division by zero" in found.detail
    assert ("n", "0", "0") in found.inputs


def test_a_shifted_output_relation_compares_run_2_moved_and_no_other_is_searched():
    # result<2> = result<1> + 1 at eps / 2: a lifting of the graph bounds P1(S) by
    # e^(eps / 2) P2(S + 1); the releases one apart have the loss eps
    [r], _ = verify_file(str(APRHL / "mistakes" / "shift_undercharged.pwhile"))
    assert r.verdict == "refuted" and "run 2's output moved by -1.0" in r.failure
    assert "privacy loss between the two runs' outputs is 1.00000" in r.failure
    # the same relation at the price eps holds: not refuted
    text = (APRHL / "mistakes" / "shift_undercharged.pwhile").read_text()
    [(proc, types)] = _procs(text.replace("|- (eps / 2, 0)", "|- (eps, 0)"))
    assert refute(proc, types) is None
    # another output relation is not searched
    [(proc, types)] = _procs(text.replace("result<2> = result<1> + 1", "result<1> <= result<2>"))
    assert refute(proc, types) is None


def test_the_kernel_refuses_a_refuted_claim_without_its_witness_and_a_witness_of_another():
    path = APRHL / "mistakes" / "noise_too_small.pwhile"
    reports, _ = verify_file(str(path))
    cert = json.loads(json.dumps(certificate(W.parse_while_file(str(path)), reports, str(path))))
    assert kernel.check(cert).valid
    forged = json.loads(json.dumps(cert))
    forged["claims"][0]["confirmation"] = None
    assert not kernel.check(forged).valid
    forged = json.loads(json.dumps(cert))
    forged["claims"][0]["verdict"] = "unknown"       # unknown, yet with a witness
    assert not kernel.check(forged).valid
    forged = json.loads(json.dumps(cert))
    forged["claims"][0]["verdict"] = "verified"      # the claim, marked proved: re-derived
    forged["claims"][0]["confirmation"] = None
    assert not kernel.check(forged).valid


# ---- the audit ------------------------------------------------------------------------------

#: verified programs audited: (file, procedure, n, arguments, values of the private list)
CONSISTENT = [
    ("mean.pwhile", "Mean", 3, ["eps=1", "n=2"], None),
    ("dummy_sum.pwhile", "DummySum", 2, ["eps=1", "n=2"], None),
    ("partial_sum.pwhile", "PartialSum", 3, ["eps=0.5"], None),
    ("parallel_composition.pwhile", "Histogram", 2, ["eps=1"], None),
    ("above_threshold.pwhile", "AboveThreshold", 3, ["eps=1", "t=0"], [Fraction(-1, 2), Fraction(1, 2)]),
    ("report_noisy_max.pwhile", "ReportNoisyMax", 3, ["eps=1"], [Fraction(-1, 2), Fraction(1, 2)]),
    ("sparse_vector.pwhile", "SparseVector", 3, ["eps=1", "t=0", "c=2"],
     [Fraction(-1, 2), Fraction(1, 2)]),
    ("num_svt.pwhile", "NumSVT", 2, ["eps=1", "t=0", "c=1"], [Fraction(-1, 2), Fraction(1, 2)]),
]


@pytest.mark.parametrize("name, proc, n, args, values", CONSISTENT, ids=lambda x: str(x))
def test_the_audit_agrees_with_the_verified_claims(name, proc, n, args, values):
    r = audit_while(str(APRHL / name), proc, n, args, values=values)
    assert r.claim.verifier == "verified"
    assert r.claim.status == A.CONSISTENT and r.claim.covered_pairs > 0, r.claim.message
    assert not r.exceeds_claim and r.loss <= r.claim.eps + 1e-9


@pytest.mark.parametrize("name, proc, n, args, values", [
    ("undercharged.pwhile", "DummySumCheap", 2, ["eps=1"], None),
    ("parallel_twice.pwhile", "HistogramTwice", 2, ["eps=1"], None),
    ("unnoised_sum.pwhile", "LeakSum", 1, ["eps=1"], None),
    ("svt_noise_too_small.pwhile", "AboveThresholdSmallNoise", 3, ["eps=1", "t=0"],
     [Fraction(-1, 2), Fraction(1, 2)]),
], ids=lambda x: str(x))
def test_the_audit_shows_the_broken_twins_false(name, proc, n, args, values):
    r = audit_while(str(APRHL / "mistakes" / name), proc, n, args, values=values)
    assert r.claim.status == A.VIOLATED and r.exceeds_claim and not r.soundness_bug
    assert r.claim.verifier == "refuted" and "the audit agrees" in r.claim.message


def test_a_verified_claim_the_audit_contradicts_is_a_soundness_bug(monkeypatch):
    # a builder that verifies DummySumCheap (simulated): the audit says SOUNDNESS BUG
    real = aprhl_verify.verify_proc

    def fooled(proc, types, **kw):
        report = real(proc, types, refute=False)
        report.verdict, report.failure, report.code = "verified", None, None
        return report

    monkeypatch.setattr(aprhl_verify, "verify_proc", fooled)
    r = audit_while(str(APRHL / "mistakes" / "undercharged.pwhile"), "DummySumCheap", 2, ["eps=1"])
    assert r.soundness_bug and r.claim.status == A.SOUNDNESS_BUG


def test_audit_on_the_command_line(tmp_path):
    ok = privinfer("audit", APRHL / "mean.pwhile", "Mean", "--n", "2", "--arg", "eps=1",
                   "--arg", "n=2", "--json")
    assert ok.returncode == 0, ok.stderr
    data = json.loads(ok.stdout)
    assert data["claim"]["status"] == "consistent" and data["loss"] == 1.0
    bad = privinfer("audit", APRHL / "mistakes" / "undercharged.pwhile", "DummySumCheap",
                    "--n", "2", "--arg", "eps=1")
    assert bad.returncode == 1 and "violated" in bad.stdout
    for args, code in [(["mistakes/noise_too_small.pwhile", "LapMechSmall"], "U002"),
                       (["mean.pwhile", "Mean", "--arg", "eps=1"], "R005"),
                       (["mean.pwhile", "Nope"], "R004"),
                       (["mistakes/out_of_bounds.pwhile", "PastEnd", "--arg", "eps=1"], "R006")]:
        r = privinfer("audit", APRHL / args[0], *args[1:], "--n", "2")
        assert r.returncode == 2 and f"error[{code}]" in r.stderr and "Traceback" not in r.stderr
    r = privinfer("audit", APRHL / "mistakes" / "out_of_bounds.pwhile", "PastEnd", "--n", "2",
                  "--arg", "eps=1")
    assert "out_of_bounds.pwhile:8:14:" in r.stderr


def test_generated_programs_verified_are_not_refuted_and_refutations_check_again():
    # the two verdicts of the builder and of the search never contradict each other on
    # generated programs, and every witness found is re-checked in the semantics
    import random
    from verifier.aprhl.generate import random_program
    from verifier.errors import PrivInferError
    rng = random.Random(8)   # a sample whose six programs hold a verified and a refuted one
    seen = {"verified": 0, "refuted": 0}
    for _ in range(6):
        text = random_program(rng)
        try:
            procs = _procs(text)
        except PrivInferError:
            continue
        for p, t in procs:
            verdict = aprhl_verify.verify_proc(p, t, refute=False).verdict
            found = refute(p, t)
            if verdict == "verified":
                assert found is None, (text, found)
                seen["verified"] += 1
            elif found is not None and found.method == "exact loss":
                seen["refuted"] += 1
                env1, env2 = _witness_inputs(p, t, found)
                assert holds(p.spec.pre, env1, env2) is True
                laws = [output_law(procedure_law(p, t, env))[1]() for env in (env1, env2)]
                eps = holds(p.spec.eps, env1, env2)
                assert pair_stat(*laws, mixed=True).exceeds(Fraction(eps)), text
    assert seen["verified"] >= 1 and seen["refuted"] >= 1


RELEASES_BELOW = """proc SVT (q : real list) (pub t : real) (pub c : int) (pub eps : real+) : real list
  |- (eps, 0) : allWithin (q<1>, q<2>, 1) /\\ c >= 1 /\\ c <= 1000 /\\ eps >= 1 / 1000 ==> =
  th := $ Lap (2 / eps, t);
  cnt := 0;
  i := 0;
  out := [];
  while i < size q && cnt < c do
    x := $ Lap (4 * c / eps, q[i]);
    if x < th then
      out := out ++ [x]
    else
      out := out ++ [1];
      cnt := cnt + 1
    end;
    i := i + 1
  end;
  return out
end
"""


def test_a_pair_whose_laws_cannot_be_binned_is_no_witness_not_an_error(tmp_path):
    # the noisy answers below the threshold are released: the exact comparison of the two
    # runs' laws stops (R003, more than 2 noisy values); the refutation went on to raise it,
    # and verify exited 2 on a well-formed program
    path = tmp_path / "svt_releases_below.pwhile"
    path.write_text(RELEASES_BELOW)
    [r], ok = verify_file(str(path))
    assert not ok and r.verdict in ("unknown", "refuted")


def test_a_release_against_a_finite_law_is_compared_exactly():
    # a point mass at a point of the release's grid: the loss -ln P(release = 0), exactly;
    # off the grid, or the release against the point mass: infinite
    import math
    from verifier.laws import _distribution_law
    release = Noise("laplace", Fraction(1), Fraction(1))
    at_zero = _distribution_law({Fraction(0): Fraction(1)})
    assert pair_stat(at_zero, release) is None       # asked for by the while-language only
    stat = pair_stat(at_zero, release, mixed=True)
    assert stat.ball is not None and stat.exceeds(Fraction(29)) and not stat.exceeds(Fraction(30))
    off = _distribution_law({Fraction(1, 3): Fraction(1)})
    assert pair_stat(off, release, mixed=True).loss == math.inf
    back = pair_stat(release, at_zero, mixed=True)
    assert back.loss == math.inf and back.output != 0 and back.exceeds(Fraction(1000))
    assert back.hockey_exceeds(Fraction(1), Fraction(99, 100))


def test_the_third_phase_moves_each_public_real_far_from_its_first_value():
    """SVT with the threshold's noise drawn afresh per query is false only in the tails: its
    loss passes eps with the threshold far below the answers (peers2/bad_w16)."""
    from verifier.aprhl.refute import FAR, _far_settings
    (proc, types), = _procs(ROOT / "tests" / "peers2"
                            / "bad_w16_svt_threshold_resampled_each_query.pwhile")
    settings = _far_settings(proc)
    assert {s["t"] for s in settings} == {-FAR, FAR}
    assert all(s["c"] == 1 and s["eps"] == 1 for s in settings)
    found = refute(proc, types)
    assert found is not None
    assert dict((name, a) for name, a, _ in found.inputs)["t"] in ("-6", "-6.0")
