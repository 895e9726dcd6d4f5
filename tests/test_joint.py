"""LetRec-Joint (``verifier/rules/joint.py``, ``checker/joint.py``): the joint change of several
calls of one additive recursive function on a pair of adjacent lists.

The suite's must-pass programs (``classic/joint_*``) get their verdicts and guarantees, their
certificates check and their exact audits stay within the claim; the must-fail ones
(``mistakes/joint_*``) are never verified. The rule recognises the additive shape by the AST's
structure, not by names, and the kernel does so on its own: a certificate that names
LetRec-Joint on a function of another shape is refused, and one that drops it does not check.
"""
from __future__ import annotations

import copy
import hashlib
import json
from pathlib import Path

import pytest

from benchmarks.runner import run_program
from checker import kernel
from checker.certify import certificate, dumps
from verifier.claim_audit import audit_program
from verifier.language.parser import parse_file, parse_program
from verifier.language.typecheck import typecheck_program
from verifier.rules import registry
from verifier.verification import VERIFIED, verify_program
from verify_helpers import joint_shapes, verdicts

ROOT = Path(__file__).resolve().parent.parent
PROGRAMS = ROOT / "benchmarks" / "programs"
CLASSIC = sorted((PROGRAMS / "classic").glob("joint_*.pinf"))
#: must pass; the rule's limits (true claims it does not prove: ``expect: unknown``); must fail
PASS = [p for p in CLASSIC if "expect: verified" in p.read_text()]
LIMITS = [p for p in CLASSIC if p not in PASS]
FAIL = sorted((PROGRAMS / "mistakes").glob("joint_*.pinf"))
THREE = PROGRAMS / "classic/joint_histogram_three.pinf"
MAX_STEP = PROGRAMS / "classic/joint_max_step.pinf"


def report_of(text: str, name: str = "joint.pinf"):
    program = parse_program(text, name)
    return verify_program(program, typecheck_program(program))


def cert_of_text(text: str, name: str = "joint.pinf") -> dict:
    program = parse_program(text, name)
    report = verify_program(program, typecheck_program(program))
    return json.loads(dumps(certificate(report, program.source, program.file)))


# ---- the suite's programs ---------------------------------------------------------------------

def test_the_suite_has_must_pass_and_must_fail_programs_of_the_rule():
    assert len(PASS) >= 5 and len(FAIL) >= 4 and len(LIMITS) >= 2


@pytest.mark.parametrize("path", PASS + LIMITS + FAIL, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_the_programs_meet_their_headers_and_their_certificates_agree(path):
    """The verdict and guarantees of the header; the kernel accepts the certificate and
    never says verified where the verifier does not."""
    seen = []

    def certifier(p, report):
        program = parse_file(str(p))
        outcome = kernel.check(json.loads(dumps(certificate(report, program.source,
                                                            program.file))))
        assert outcome.valid, outcome.reason
        seen.append({c["name"]: c["verdict"] for c in outcome.claims})
        return 0.0

    result = run_program(path, certifier=certifier)
    assert not result.problems, result.problems
    mine = {c.name: c.verdict for c in result.claims}
    assert seen and all(v == mine[n] for n, v in seen[0].items())


AUDITS = [(THREE, "histogram", 2, {"eps": "1.0"}),
          (PROGRAMS / "classic/joint_histogram_four.pinf", "histogram", 2, {"eps": "1.0"}),
          (PROGRAMS / "classic/joint_weighted_count.pinf", "histogram", 2, {"w": "0.5", "eps": "1.0"})]


@pytest.mark.parametrize("path, entry, n, args", AUDITS, ids=lambda x: getattr(x, "stem", None))
def test_the_exact_loss_of_a_verified_histogram_is_within_its_claim(path, entry, n, args):
    result = audit_program(str(path), entry, n, args)
    assert not result.soundness_bug


def test_the_joint_fact_is_what_verifies_the_histogram(monkeypatch):
    """Without LetRec-Joint's facts the three releases at eps/2 cost 3 eps/2: unknown."""
    assert verdicts(report_of(THREE.read_text()))["histogram"] == VERIFIED
    monkeypatch.setitem(registry._JUDGEMENTS, registry.LETREC_JOINT, lambda *a: [])
    assert verdicts(report_of(THREE.read_text()))["histogram"] != VERIFIED


# ---- the shape, by structure -------------------------------------------------------------------

HEADER = "val f :: {c :: int | =} -> {l :: [3] list | adj (l<1>, l<2>)} -> {n :: real | true}\n"
SHAPES = [
    ("let rec f c db = match db with | [] -> 0 | x :: xs -> (if x = c then 1 else 0) + f c xs", True),
    ("let rec f k u = match u with | [] -> 7.0 | y :: ys -> f k ys + (if y = k then 2.0 else 0.0)", True),
    ("let rec f c db = match db with | [] -> 0 | x :: xs -> max (x, f c xs)", False),
    ("let rec f c db = match db with | [] -> 0 | x :: xs -> x * f c xs", False),
    ("let rec f c db = match db with | [] -> 0 | x :: xs -> length xs + f c xs", False),
    ("let rec f c db = match db with | [] -> 0 | x :: xs -> length db + f c xs", False),
    ("let rec f c db = match db with | [] -> 0 | x :: xs -> x + f (c + 1) xs", False),
    ("let rec f c db = match db with | [] -> 0 | x :: xs -> x + f c db", False),
    ("let rec f c db = match db with | [] -> 0 | x :: xs -> x + f c (x :: xs)", False),
    ("let rec f c db = match db with | [] -> f c [] | x :: xs -> x + f c xs", False),
    ("let rec f c db = match db with | [] -> 0 | x :: xs -> f c xs + f c xs", False),
    ("let rec f c db = match db with | [] -> 0 | x :: xs -> let t = xs in length t + f c xs", False),
    ("let rec f c db = if c = 0 then 0 else match db with | [] -> 0 | x :: xs -> x + f c xs", False),
]


@pytest.mark.parametrize("body, additive", SHAPES, ids=[str(i) for i in range(len(SHAPES))])
def test_the_additive_shape_is_recognised_by_structure_alike_in_verifier_and_kernel(body, additive):
    mine, kernels = joint_shapes(HEADER + body)
    assert (mine is not None) == additive == (kernels is not None)


def test_infinite_values_give_no_shape():
    body = "let rec f c db = match db with | [] -> 0.0 | x :: xs -> x + f c xs"
    for old, new in (("[3] list", "real+inf list"), ("{n :: real", "{n :: real+inf")):
        assert joint_shapes(HEADER.replace(old, new) + body) == (None, None)
    assert None not in joint_shapes(HEADER.replace("[3] list", "real list") + body)


def test_a_public_parameter_not_equal_in_both_runs_gives_no_shape():
    text = HEADER.replace("{c :: int | =}", "{c :: int | true}") + SHAPES[0][0]
    assert joint_shapes(text) == (None, None)
    assert joint_shapes(HEADER + SHAPES[0][0])[0].position == 1


# ---- variants --------------------------------------------------------------------------------

HIST = """
val countCat :: {c :: int | =} -> {l :: [3] list | adj (l<1>, l<2>)} -> {n :: real | abs (n<1> - n<2>) <= 1.0}
let rec countCat c db = match db with | [] -> 0 | x :: xs -> (if x = c then 1 else 0) + countCat c xs
val histogram :: {l :: [3] list | adj (l<1>, l<2>)} -> {eps :: real+ | =} -> M[DP(CLAIM)] {h :: real list | =}
let histogram db eps =
  mlet h0 = lapMech (eps / 2.0, countCat 0 db) in
  mlet h1 = lapMech (eps / 2.0, countCat 1 db) in
  mlet h2 = lapMech (eps / 2.0, countCat 2 db) in
  return [h0; h1; h2]
"""


@pytest.mark.parametrize("claim, ok", [("eps", True), ("2.0 * eps", True), ("0.9 * eps", False),
                                       ("eps / 2.0", False)])
def test_the_joint_bound_is_two_changes_no_fewer(claim, ok):
    assert (verdicts(report_of(HIST.replace("CLAIM", claim)))["histogram"] == VERIFIED) == ok


def test_the_same_category_twice_costs_its_change_twice():
    text = HIST.replace("CLAIM", "eps").replace("countCat 2 db", "countCat 0 db")
    assert verdicts(report_of(text))["histogram"] != VERIFIED  # 0, 0, 1: up to 3 eps/2


def test_a_tail_and_the_list_are_not_a_pair_of_adjacent_lists():
    """Calls on db and on its tail: no adj relates them, no joint fact."""
    text = HIST.replace("CLAIM", "eps").replace(
        "countCat 2 db) in", "countCat 2 (match db with | [] -> [] | y :: ys -> ys)) in")
    assert verdicts(report_of(text))["histogram"] != VERIFIED


# ---- the kernel ------------------------------------------------------------------------------

def test_a_certificate_without_the_joint_premise_does_not_check():
    cert = cert_of_text(THREE.read_text())
    assert kernel.check(cert).valid
    joint = next(n for n in cert["nodes"] if n["rule"] == "LetRec-Joint")
    root = next(n for n in cert["nodes"] if joint["id"] in n["premises"])
    root["premises"].remove(joint["id"])
    cert["nodes"].remove(joint)
    outcome = kernel.check(cert)
    assert not outcome.valid and "Budget" in outcome.reason, outcome.reason


def test_a_joint_premise_on_a_function_that_is_not_additive_is_refused():
    """The forgery: the max-step histogram labelled verified, with a LetRec-Joint premise at
    hasCat's definition."""
    text = MAX_STEP.read_text()
    cert = cert_of_text(text, "max.pinf")
    assert kernel.check(cert).valid  # honest: histogram unknown
    decl = next(d for d in parse_program(text, "max.pinf").lets() if d.name == "hasCat")
    claim = next(c for c in cert["claims"] if c["name"] == "histogram")
    claim.update(verdict="verified", failure=None, code=None, confirmation=None)
    forged = copy.deepcopy(cert)
    node_id = f"histogram/n{sum(n['id'].startswith('histogram/') for n in cert['nodes']) + 1}"
    forged["nodes"].append({"id": node_id, "rule": "LetRec-Joint", "premises": [],
                            "at": [decl.span.line, decl.span.col, decl.span.end_line,
                                   decl.span.end_col]})
    next(n for n in forged["nodes"] if n["id"] == claim["root"])["premises"].append(node_id)
    outcome = kernel.check(forged)
    assert not outcome.valid
    assert "not additive" in outcome.reason, outcome.reason


def test_an_additive_function_edited_into_another_shape_is_refused():
    """The verified certificate of joint_histogram_three with the step's + made a * (same
    positions), the hash recomputed and countCat's claim honestly not verified: the kernel
    recognises the shape from the source, not from the certificate."""
    text = THREE.read_text()
    old = "(if x = c then 1 else 0) + countCat c xs"
    edited = text.replace(old, old.replace(" + ", " * "))
    cert = cert_of_text(text, "three.pinf")
    cert["source"].update(text=edited, sha256=hashlib.sha256(edited.encode()).hexdigest())
    next(c for c in cert["claims"] if c["name"] == "countCat").update(
        verdict="unknown", failure="not checked", code="V002", confirmation=None)
    outcome = kernel.check(cert)
    assert not outcome.valid and "not additive" in outcome.reason, outcome.reason
    assert verdicts(report_of(edited))["histogram"] != VERIFIED


def test_a_joint_premise_away_from_a_recursive_definition_is_refused():
    cert = cert_of_text(THREE.read_text())
    joint = next(n for n in cert["nodes"] if n["rule"] == "LetRec-Joint")
    joint["at"] = [1, 1, 1, 5]
    outcome = kernel.check(cert)
    assert not outcome.valid and "LetRec-Joint" in outcome.reason, outcome.reason
