"""Observe-folds written with an accumulator (fold left, tail-recursive learners).

``f (d :: dbs) P = f dbs (observe L P)`` has the closed form of the fold right
``f (d :: dbs) P = observe L (f dbs P)``; its induction is generalised over the prior. Verdicts
and guarantees for the three conjugate families, false claims rejected, shapes that are not
exactly an accumulator observe-fold refused with their reason, the ObserveFold node and its
certificate (accepted by the kernel, tampering refused), and the evaluator's agreement.
"""
from __future__ import annotations

import json
import subprocess
import sys
from fractions import Fraction as F
from pathlib import Path

import pytest

from checker import kernel
from checker.certify import certificate, dumps
from obligations import terms as T
from obligations.model import Obligation
from obligations.smtlib import to_smtlib
from verifier.language.parser import parse_program
from verifier.language.typecheck import typecheck_program
from verifier.rules.observe_fold import fold_shape
from verifier.semantics import distributions as D
from verifier.semantics import monad
from verifier.semantics.evaluator import Evaluator
from verifier.semantics.values import list_of
from verifier.verification import REFUTED, UNKNOWN, VERIFIED, verify_program

ROOT = Path(__file__).resolve().parent.parent
BENCH = ROOT / "benchmarks" / "programs" / "classic" / "beta_output_laplace_accumulator.pinf"

# the names differ from the examples' on purpose: nothing may key on them
BETA = """
val upd :: {xs :: bool list | =} -> M[SD] {t :: [0,1] | =} -> M[SD] {t :: [0,1] | =}
let rec upd xs acc = match xs with
  | [] -> acc
  | y :: ys -> upd ys (observe (fun q -> mlet w = ran (bernoulli q) in return (y = w)) acc)

val release :: {xs :: bool list | adj (xs<1>, xs<2>)} -> {k :: real+ | =}
             -> M[DP(CLAIM)] {out :: D[[0,1]] | =}
let release xs k =
  let post = infer (upd xs (ran (beta (1.0, 1.0)))) in
  let (u, v) = getParams post in
  mlet un = lapMech (k, u) in
  mlet vn = lapMech (k, v) in
  return (beta (max (un, 1.0), max (vn, 1.0)))
"""

# the known variance is a parameter passed through, before the prior, the data last
NORMAL = """
val avg :: {s :: real+ | =} -> M[SD] {m :: real | =} -> {xs :: real list | =}
         -> M[SD] {m :: real | =}
let rec avg s acc xs = match xs with
  | [] -> acc
  | y :: ys -> avg s (observe (fun q -> mlet w = ran (normal (q, s)) in return (y = w)) acc) ys

val release :: {xs :: real list | adjWithin (xs<1>, xs<2>, 1.0)} -> {m0 :: real | =}
             -> {v0 :: real+ | =} -> {s :: real+ | =} -> {k :: real+ | =}
             -> M[DP(k)] {out :: D[real] | =}
let release xs m0 v0 s k =
  let post = infer (avg s (ran (normal (m0, v0))) xs) in
  let sens = SENS in
  mlet c = lapMech (k / sens, mean post) in
  return (normal (c, variance post))
"""

# the prior first, and the updated prior bound by a let
DIRICHLET = """
let rho = sqrt (1.0 - pi / 4.0)

val cats :: M[SD] {p :: [0,1]^3 | =} -> {xs :: [3] list | =} -> M[SD] {p :: [0,1]^3 | =}
let rec cats acc xs = match xs with
  | [] -> acc
  | y :: ys -> let acc = observe (fun q -> mlet w = ran (categorical q) in return (w = y)) acc in
               cats acc ys

let quality (inp, cand) =
  let (xs, u1, u2, u3) = inp in
  0.0 - hellinger (infer (cats (ran (dirichlet (u1, u2, u3))) xs), cand)

val release :: {xs :: [3] list | adj (xs<1>, xs<2>)}
             -> {u1 :: real+ | u1<1> = u1<2> /\\ u1<1> >= LOWER}
             -> {u2 :: real+ | u2<1> = u2<2> /\\ u2<1> >= LOWER}
             -> {u3 :: real+ | u3<1> = u3<2> /\\ u3<1> >= LOWER}
             -> {k :: real+ | =} -> M[DP(rho * k)] {out :: D[[0,1]^3] | =}
let release xs u1 u2 u3 k =
  expMech (k, quality, (xs, u1, u2, u3), posteriors (dirichlet (u1, u2, u3), length xs))
"""


def verify_text(text: str):
    program = parse_program(text, "acc.pinf")
    return verify_program(program, typecheck_program(program))


def claim(report, name):
    return next(c for c in report.claims if c.name == name)


def fold_node(report, name: str = "release"):
    return next(n for n in claim(report, name).derivation.walk() if n.rule == "ObserveFold")


# ---- verdicts and guarantees ----------------------------------------------------------------

def test_beta_accumulator_verifies_at_two_eps_with_its_guarantee():
    report = verify_text(BETA.replace("CLAIM", "2.0 * k"))
    assert claim(report, "upd").verdict == VERIFIED
    release = claim(report, "release")
    assert release.verdict == VERIFIED, release.failure
    assert release.guarantee == ("release is (2.0 * k, 0)-differentially private with respect "
                                 "to adj on its 1st argument")


@pytest.mark.parametrize("budget", ["1.5 * k", "k"])
def test_beta_accumulator_false_claim_is_refuted_at_the_budget(budget):
    release = claim(verify_text(BETA.replace("CLAIM", budget)), "release")
    # false (two Laplace releases, each at k), but its law is a continuous mixture the
    # witness search does not compute: the budget fails at concrete inputs, the claim is unknown
    assert release.verdict == UNKNOWN and release.code == "V001"
    assert "[Budget]: false at xs<1> = [" in release.failure


def test_a_warm_started_accumulator_counts_the_data_twice():
    """The prior the accumulator starts from already saw the data: the first parameter is
    1 + 2 count, 2-sensitive, so the two releases cost 3 k."""
    warm = BETA.replace("ran (beta (1.0, 1.0))", "ran (beta (1.0 + count xs, 1.0))")
    assert claim(verify_text(warm.replace("CLAIM", "2.0 * k")), "release").verdict == UNKNOWN
    assert claim(verify_text(warm.replace("CLAIM", "3.0 * k")), "release").verdict == VERIFIED


@pytest.mark.parametrize("sens, verdict", [
    ("v0 / (s + v0)", VERIFIED),   # NOTES.md §5: hV / (kv + n hV) <= hV / (kv + hV)
    # the n = 2 sensitivity, too small for n = 1: false, but the posterior mean is computed in
    # floating point by the evaluator, so no witness is exact
    ("v0 / (s + 2.0 * v0)", UNKNOWN),
])
def test_normal_accumulator_with_the_variance_passed_through(sens, verdict):
    report = verify_text(NORMAL.replace("SENS", sens))
    assert claim(report, "avg").verdict == VERIFIED
    release = claim(report, "release")
    assert release.verdict == verdict, release.failure
    if verdict == VERIFIED:
        assert release.guarantee == ("release is (k, 0)-differentially private with respect to "
                                     "adjWithin (xs<1>, xs<2>, 1.0) on its 1st argument")


@pytest.mark.parametrize("lower, verdict", [("1.0", VERIFIED), ("0.5", UNKNOWN)])
def test_dirichlet_accumulator_let_bound_with_the_prior_first(lower, verdict):
    """Lemma 6.3 needs prior parameters of at least 1 (NOTES.md §1), whatever the fold's shape."""
    report = verify_text(DIRICHLET.replace("LOWER", lower))
    assert claim(report, "cats").verdict == VERIFIED
    assert claim(report, "release").verdict == verdict


def test_accumulator_and_fold_right_have_the_same_posterior():
    """A pure claim relating the two shapes: their posteriors' parameters are equal (and a
    false relation is refuted)."""
    text = """
val right :: {xs :: bool list | =} -> M[SD] {t :: [0,1] | =} -> M[SD] {t :: [0,1] | =}
let rec right xs p = match xs with
  | [] -> p
  | y :: ys -> observe (fun q -> mlet w = ran (bernoulli q) in return (y = w)) (right ys p)

val left :: {xs :: bool list | =} -> M[SD] {t :: [0,1] | =} -> M[SD] {t :: [0,1] | =}
let rec left xs p = match xs with
  | [] -> p
  | y :: ys -> left ys (observe (fun q -> mlet w = ran (bernoulli q) in return (y = w)) p)

val same :: {xs :: bool list | =} -> {a :: real+ | =} -> {t :: real | t<1> = 0.0}
let same xs a =
  let (u1, v1) = getParams (infer (right xs (ran (beta (a, 2.0))))) in
  let (u2, v2) = getParams (infer (left xs (ran (beta (a, 2.0))))) in
  abs (u1 - u2) + abs (v1 - v2)

val wrong :: {xs :: bool list | =} -> {a :: real+ | =} -> {t :: real | t<1> = a<1>}
let wrong xs a = let (u, v) = getParams (infer (left xs (ran (beta (a, 2.0))))) in u
"""
    report = verify_text(text)
    assert claim(report, "same").verdict == VERIFIED, claim(report, "same").failure
    wrong = claim(report, "wrong")
    assert wrong.verdict == REFUTED and "confirmed by evaluation" in wrong.failure


# ---- the ObserveFold node: what the induction proved -----------------------------------------

def test_the_node_records_the_induction_generalised_over_the_prior():
    report = verify_text(BETA.replace("CLAIM", "2.0 * k"))
    node = fold_node(report)
    assert node.judgement["function"] == "upd" and node.judgement["family"] == "bernoulli"
    assert node.judgement["lemma"] == "conj.beta_bernoulli.list"
    assert "generalised over the prior" in node.judgement["summary"]
    nil, step = node.obligations
    assert nil.provenance.description == "upd []: the posterior is the prior"
    assert "one conjugate update of the prior" in step.provenance.description
    # the cons case: for a prior Beta(a, b) with a, b > 0, the update by [d] is again a beta
    # prior and its posterior after dbs is the posterior of d :: dbs
    text = T.pretty(step.goal)
    assert text.startswith("a > 0.0 /\\ b > 0.0 => ")
    assert "count (cons (d, nil_bool))" in text and "count (cons (d, dbs))" in text
    assert "a + count (cons (d, nil_bool)) > 0.0" in text
    assert T.pretty(nil.goal) == ("a > 0.0 /\\ b > 0.0 => a + count nil_bool = a /\\ "
                                  "b + length nil_bool - count nil_bool = b")
    assert all(claim(report, "release").results[o.id].verdict.value == "verified"
               for o in node.obligations)


def test_the_normal_induction_assumes_a_positive_variance_and_proves_the_update_positive():
    node = fold_node(verify_text(NORMAL.replace("SENS", "v0 / (s + v0)")))
    nil, step = node.obligations
    assert "normal posterior in closed form (induction on the data, generalised over the " \
           "prior)" in node.judgement["summary"]
    hyp, goal = T.pretty(step.goal).split(" => ", 1)
    assert hyp == "v > 0.0 /\\ kv > 0.0"  # the mean of a normal prior is any real
    assert goal.startswith("1.0 / (1.0 / v + length (cons (d, nil_real)) / kv) > 0.0 /\\ ")


def test_fold_right_keeps_its_obligations():
    node = fold_node(verify_text(BETA.replace("CLAIM", "2.0 * k").replace(
        "upd ys (observe (fun q -> mlet w = ran (bernoulli q) in return (y = w)) acc)",
        "observe (fun q -> mlet w = ran (bernoulli q) in return (y = w)) (upd ys acc)")))
    assert "generalised" not in node.judgement["summary"]
    assert T.pretty(node.obligations[0].goal) == "length nil_bool = 0 /\\ count nil_bool = 0"


def test_the_recogniser_reports_the_shape():
    program = parse_program(DIRICHLET.replace("LOWER", "1.0"), "acc.pinf")
    spec = fold_shape(next(d for d in program.lets() if d.name == "cats"))
    assert spec.accumulator and spec.family == "categorical"
    assert (spec.data, spec.prior) == (1, 0)


# ---- shapes that are not accumulator observe-folds ----------------------------------------------

LIK = "(fun q -> mlet w = ran (bernoulli q) in return (y = w))"
SHAPE = """
val upd :: {xs :: bool list | =} -> M[SD] {t :: [0,1] | =} -> M[SD] {t :: [0,1] | =}
let rec upd xs acc = match xs with
  | [] -> acc
  | y :: ys -> CONS

val first :: {xs :: bool list | count xs<1> >= 1} -> {t :: real | t<1> >= 2.0}
let first xs = let (u, v) = getParams (infer (upd xs (ran (beta (1.0, 1.0))))) in u
"""


@pytest.mark.parametrize("cons, reason", [
    # the recursive call on the whole list, not the tail
    (f"upd xs (observe {LIK} acc)", "passes xs as xs, not ys (the tail)"),
    # the observe is on a fresh prior, not on the prior parameter
    (f"upd ys (observe {LIK} (ran (beta (1.0, 1.0))))",
     "passes observe L (ran (beta (1.0, 1.0))) as acc, not observe L (acc) (the updated prior)"),
    # the observe is on a recursive result: each datum would be observed many times
    (f"upd ys (observe {LIK} (upd ys acc))", "passes observe L (upd ys acc) as acc"),
    # observed both on the way down and on the way up
    (f"observe {LIK} (upd ys (observe {LIK} acc))", "passes observe L (acc) as acc, not acc"),
    # a sample of the updated prior as a point mass: the rest of the data conditions a Dirac,
    # so this is one observation, not a fold (an mlet-bound accumulator has no sound reading)
    (f"mlet p = observe {LIK} acc in upd ys (return p)", "is neither observe L"),
    # the likelihood does not observe the head
    ("upd ys (observe (fun q -> mlet w = ran (bernoulli q) in return (true = w)) acc)",
     "its likelihood is not fun r -> mlet z = ran (F r) in return (y = z)"),
    # a binder of the likelihood hides the datum: return (y = y) observes nothing (after name
    # resolution the inner y is another binder, which the likelihood compares with itself)
    ("upd ys (observe (fun q -> mlet y = ran (bernoulli q) in return (y = y)) acc)",
     "its likelihood is not fun r -> mlet z = ran (F r) in return (y = z)"),
    # the same, on the fold right shape (this used to verify the false claim first)
    ("observe (fun q -> mlet y = ran (bernoulli q) in return (y = y)) (upd ys acc)",
     "its likelihood is not fun r -> mlet z = ran (F r) in return (y = z)"),
])
def test_not_an_accumulator_observe_fold_is_refused_with_the_reason(cons, reason):
    report = verify_text(SHAPE.replace("CONS", cons))
    first = claim(report, "first")
    assert first.verdict != VERIFIED and first.code in ("V003", "V008"), first.failure
    assert (first.verdict == REFUTED) == ("confirmed by evaluation" in first.failure)
    assert "upd is not an observe-fold: " in first.failure and reason in first.failure, \
        first.failure


NORMAL_SHAPE = """
val avg :: {xs :: real list | =} -> {s :: real+ | =} -> M[SD] {m :: real | =}
         -> M[SD] {m :: real | =}
let rec avg xs s acc = match xs with
  | [] -> acc
  | y :: ys -> CONS

val post :: {xs :: real list | length xs<1> = 2} -> {t :: real | t<1> = 3.0 / 5.0}
let post xs = variance (infer (avg xs 2.0 (ran (normal (0.0, 1.0)))))
"""


@pytest.mark.parametrize("cons, reason", [
    # a parameter changed between calls
    ("avg ys (s + 1.0) (observe (fun q -> mlet w = ran (normal (q, s)) in return (y = w)) acc)",
     "passes s + 1.0 as s, not s (unchanged)"),
    # the head hides a parameter that is passed on
    ("avg ys s (observe (fun q -> mlet w = ran (normal (q, 1.0)) in return (y = w)) acc)"
     .replace("y :: ys", "s :: ys"), None),
    # the "known" variance depends on the data, which change along the recursion: the false
    # claim post (variance 3/5 with V = 3 at both steps; it is 6/11) used to verify
    ("observe (fun q -> mlet w = ran (normal (q, 1.0 + length xs)) in return (y = w)) "
     "(avg ys s acc)", "the known variance of its likelihood depends on the data"),
    ("avg ys s (observe (fun q -> mlet w = ran (normal (q, 1.0 + length xs)) in "
     "return (y = w)) acc)", "the known variance of its likelihood depends on the data"),
    # the likelihood's parameter hides the datum: the density at the mean observes nothing
    ("avg ys s (observe (fun y -> mlet w = ran (normal (y, s)) in return (y = w)) acc)",
     "its likelihood is not fun r -> mlet z = ran (F r) in return (y = z)"),
])
def test_not_a_normal_accumulator_is_refused_with_the_reason(cons, reason):
    text = NORMAL_SHAPE.replace("CONS", cons)
    if reason is None:  # the head renamed to shadow the parameter s
        text = text.replace("| y :: ys -> ", "| s :: ys -> ").replace("return (y = w)",
                                                                       "return (s = w)")
        reason = "passes s (another binder of that name) as s, not s (unchanged)"
    post = claim(verify_text(text), "post")
    assert post.verdict != VERIFIED and post.code in ("V003", "V008"), post.failure
    assert (post.verdict == REFUTED) == ("confirmed by evaluation" in post.failure)
    assert "avg is not an observe-fold: " in post.failure and reason in post.failure, post.failure


def test_a_likelihood_not_conjugate_to_the_prior_is_refused():
    text = NORMAL_SHAPE.replace(
        "CONS", "avg ys s (observe (fun q -> mlet w = ran (normal (q, s)) in return (y = w)) acc)"
    ).replace("ran (normal (0.0, 1.0))", "ran (beta (1.0, 1.0))")
    post = claim(verify_text(text), "post")
    assert post.verdict == UNKNOWN and post.code == "V003"
    assert "avg observes a normal likelihood, which is conjugate to a normal prior, not to " \
           "beta" in post.failure


def test_the_sound_variants_of_the_negative_shapes_verify():
    """Guard for the negative tests above: the same programs with an exact accumulator."""
    ok = SHAPE.replace("CONS", f"upd ys (observe {LIK} acc)").replace(
        "t<1> >= 2.0", "t<1> >= 2.0 /\\ t<1> = 1.0 + count xs<1>")
    assert claim(verify_text(ok), "first").verdict == VERIFIED
    ok = NORMAL_SHAPE.replace(
        "CONS", "avg ys s (observe (fun q -> mlet w = ran (normal (q, s)) in return (y = w)) acc)")
    assert claim(verify_text(ok.replace("3.0 / 5.0", "1.0 / 2.0")), "post").verdict == VERIFIED
    assert claim(verify_text(ok), "post").verdict == REFUTED


# ---- certificates --------------------------------------------------------------------------------

_CERTS: dict = {}


def cert_of(text: str) -> dict:
    if text not in _CERTS:
        program = parse_program(text, "acc.pinf")
        report = verify_program(program, typecheck_program(program))
        assert all(c.verdict == VERIFIED for c in report.claims)
        _CERTS[text] = json.loads(dumps(certificate(report, program.source, program.file)))
    return json.loads(json.dumps(_CERTS[text]))


CERTIFIED = [BETA.replace("CLAIM", "2.0 * k"), NORMAL.replace("SENS", "v0 / (s + v0)"),
             DIRICHLET.replace("LOWER", "1.0")]


@pytest.mark.parametrize("text", CERTIFIED, ids=["beta", "normal", "dirichlet"])
def test_certificates_of_accumulators_check(text):
    cert = cert_of(text)
    outcome = kernel.check(cert)
    assert outcome.valid, outcome.reason
    assert [c["verdict"] for c in outcome.claims] == ["verified", "verified"]
    folds = [n for n in cert["nodes"] if n["rule"] == "ObserveFold"]
    assert len(folds) == 1
    steps = [ob for ob in outcome.obligations if ob.provenance.rule == "ObserveFold"]
    assert len(steps) == 2, "the nil and cons cases of the kernel's own induction"


def test_cli_certificate_of_the_benchmark_program_checks(tmp_path):
    out = tmp_path / "c.json"
    run = [sys.executable, "-m", "verifier.cli"]
    done = subprocess.run(run + ["verify", str(BENCH), "--certificate", str(out)], cwd=ROOT,
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
    done = subprocess.run(run + ["check", str(out)], cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0 and "valid" in done.stdout, done.stdout


def _fold(cert: dict) -> dict:
    return next(n for n in cert["nodes"] if n["rule"] == "ObserveFold")


def test_an_induction_left_out_of_the_root_is_refused():
    cert = cert_of(CERTIFIED[0])
    fold = _fold(cert)
    root = next(n for n in cert["nodes"] if fold["id"] in n["premises"])
    root["premises"].remove(fold["id"])
    cert["nodes"].remove(fold)
    outcome = kernel.check(cert)
    assert not outcome.valid and "observe-folds" in outcome.reason, outcome.reason


def test_a_source_edited_into_another_update_is_recognised_by_the_kernel_itself():
    """The accumulator's recursive call made on the whole list: not a fold (and not
    terminating); the certificate of the fold, re-signed with that source, is refused."""
    import hashlib
    cert = cert_of(CERTIFIED[0])
    text = cert["source"]["text"]
    call = next(line for line in text.splitlines() if "(observe" in line and "| " in line)
    head = call.split("->", 1)[1].split()[0]          # the fold's name
    edited = text.replace(call, call.replace(f"{head} ys", f"{head} (x :: ys)")
                          .replace(f"{head} xs", f"{head} (x :: xs)"), 1)
    assert edited != text
    cert["source"].update(text=edited, sha256=hashlib.sha256(edited.encode()).hexdigest())
    assert not kernel.check(cert).valid


# ---- the evaluator -------------------------------------------------------------------------------

MODELS = """
let rec biasR xs p = match xs with
  | [] -> p
  | y :: ys -> observe (fun q -> mlet w = ran (bernoulli q) in return (y = w)) (biasR ys p)
let rec biasL xs p = match xs with
  | [] -> p
  | y :: ys -> biasL ys (observe (fun q -> mlet w = ran (bernoulli q) in return (y = w)) p)
let rec catR xs p = match xs with
  | [] -> p
  | y :: ys -> observe (fun q -> mlet w = ran (categorical q) in return (w = y)) (catR ys p)
let rec catL p xs = match xs with
  | [] -> p
  | y :: ys -> let p2 = observe (fun q -> mlet w = ran (categorical q) in return (w = y)) p in
               catL p2 ys
let rec meanR xs s p = match xs with
  | [] -> p
  | y :: ys -> observe (fun q -> mlet w = ran (normal (q, s)) in return (y = w)) (meanR ys s p)
let rec meanL s p xs = match xs with
  | [] -> p
  | y :: ys -> meanL s (observe (fun q -> mlet w = ran (normal (q, s)) in return (y = w)) p) ys
"""


@pytest.fixture(scope="module")
def models() -> Evaluator:
    program = parse_program(MODELS, "models.pinf")
    return Evaluator(program, typecheck_program(program))


def test_evaluator_beta_posteriors_agree(models):
    data = list_of([True, False, True, True, False, True])
    prior = monad.Ran(D.make_beta(F(1), F(2)))
    right = monad.infer(models.call("biasR", [data, prior]))
    left = monad.infer(models.call("biasL", [data, prior]))
    assert (left.a, left.b) == (right.a, right.b) == (F(5), F(4))


def test_evaluator_accumulator_agrees_with_enumeration_on_a_grid_prior(models):
    data = [True, False, True, True]
    grid = [F(i, 10) for i in range(1, 10)]
    prior = monad.Ran(D.make_finite({t: F(1, len(grid)) for t in grid}))
    left = monad.infer(models.call("biasL", [list_of(data), prior])).pmf()
    weights = {t: t ** 3 * (1 - t) for t in grid}
    total = sum(weights.values())
    assert left == {t: w / total for t, w in weights.items()}


def test_evaluator_dirichlet_posteriors_agree(models):
    data = list_of([0, 2, 2, 1, 2])
    prior = monad.Ran(D.make_dirichlet((F(1), F(2), F(3))))
    right = monad.infer(models.call("catR", [data, prior]))
    left = monad.infer(models.call("catL", [prior, data]))
    assert tuple(left.alphas) == tuple(right.alphas) == (F(2), F(3), F(6))


def test_evaluator_normal_posteriors_agree(models):
    data = list_of([F(3, 2), F(-1, 4), F(3)])
    prior = monad.Ran(D.make_normal(F(1, 2), F(3)))
    right = monad.infer(models.call("meanR", [data, F(2), prior]))
    left = monad.infer(models.call("meanL", [F(2), prior, data]))
    assert (left.mu, left.var) == (right.mu, right.var)
    var = 1 / (F(1, 3) + F(3, 2))
    assert (left.mu, left.var) == (var * (F(1, 6) + F(17, 4) / 2), var)


def test_privinfer_run_gives_the_posterior_of_the_fold_right(tmp_path):
    source = tmp_path / "run.pinf"
    source.write_text(MODELS + """
let postR xs = infer (biasR xs (ran (beta (1.0, 1.0))))
let postL xs = infer (biasL xs (ran (beta (1.0, 1.0))))
""")
    printed = []
    for entry in ("postR", "postL"):
        done = subprocess.run([sys.executable, "-m", "verifier.cli", "run", str(source), entry,
                               "--arg", "xs=[true; false; true; true; true]", "--json"],
                              cwd=ROOT, capture_output=True, text=True)
        assert done.returncode == 0, done.stderr
        printed.append(json.loads(done.stdout)["value"])
    assert printed[0] == printed[1] == {"family": "beta", "params": [5.0, 2.0]}
