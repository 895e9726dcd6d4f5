"""An ``if`` (and a synchronous ``match``) in the bound position of an ``mlet`` (IfBound,
MatchBound), and an ``if`` whose branches apply one head, lifted into its arguments (LiftIf).

True programs are verified with their exact guarantee and their certificates check; false
ones — a budget too small, different heads, a private condition choosing different costs — are
rejected, and a certificate with a tampered cost or without its same-branch obligation is
refused (more mutations in test_certificates.py).
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from checker import kernel
from checker.certify import certificate, dumps
from obligations import terms as T
from verifier.language import ast as A
from verifier.language.parser import parse_file, parse_program
from verifier.language.typecheck import typecheck_program
from verifier.rules import registry
from verifier.rules.context import Cost, zero_cost
from verifier.rules.core_rules import case_cost
from verifier.translation.translate import NoRule
from verifier.verification import REFUTED, UNKNOWN, VERIFIED, verify_program

ROOT = Path(__file__).resolve().parent.parent
BOUND_IF = ROOT / "benchmarks/programs/classic/adaptive_composition_bound_if.pinf"
CLIPPED = ROOT / "benchmarks/programs/classic/clipped_count.pinf"
GAP = ROOT / "benchmarks/programs/mistakes/threshold_gap.pinf"
BRANCH_ON_PRIVATE = ROOT / "benchmarks/programs/mistakes/branch_on_private.pinf"
IF_RULES = ROOT / "tests/programs/if_rules.pinf"

ADJ = "{l :: bool list | adj (l<1>, l<2>)}"
EPS = "{eps :: real+ | =}"


def verify(program: A.Program):
    return verify_program(program, typecheck_program(program))


def verify_text(text: str):
    return verify(parse_program(text, "test.pinf"))


def verify_path(path: Path):
    return verify(parse_file(str(path.relative_to(ROOT))))


def claim(report, name: str):
    return next(c for c in report.claims if c.name == name)


def dp(name: str, eps: str, text: str, result: str = "r :: real") -> str:
    return f"val {name} :: {ADJ} -> {EPS} -> M[DP({eps})] {{{result} | =}}\n{text}\n"


def verdict(text: str, name: str):
    c = claim(verify_text(text), name)
    return c.verdict, c.failure or "", c


def rules(c) -> list:
    return [n.rule for n in c.derivation.walk()]


def certificate_of(program: A.Program) -> dict:
    report = verify(program)
    return json.loads(dumps(certificate(report, program.source, program.file)))


# ---- Task 1: if and match in a bound position ----------------------------------------------

def test_the_if_in_a_bound_position_is_verified_with_its_guarantee():
    c = claim(verify_path(BOUND_IF), "adaptive")
    assert c.verdict == VERIFIED, c.failure
    assert c.guarantee == ("adaptive is (e1 + e2, 0)-differentially private with respect to adj "
                           "on its 1st argument")
    node = next(n for n in c.derivation.walk() if n.rule == "If")
    assert [p.rule for p in node.premises] == ["LapMech", "LapMech"]
    eps = node.judgement["cost"]["eps"]   # the cost of the branch taken
    assert isinstance(eps, T.Op) and eps.op == T.OpKind.ITE
    assert eps.args[1:] == tuple(p.judgement["cost"]["eps"] for p in node.premises)


def test_a_bound_if_whose_branches_cost_more_than_the_claim_is_rejected():
    text = dp("f", "e1", """let f db eps =
  mlet c = lapMech (eps, count db) in
  mlet d = (if c > 0.0 then lapMech (eps, count db) else return 0.0) in
  return (c, d)""", "r :: real * real").replace("e1", "eps")
    v, failure, _ = verdict(text, "f")
    # false (the second release doubles the loss where c > 0), but a witness would need the
    # law of a continuous mixture: the failed budget leaves the claim unknown
    assert v == UNKNOWN and "privacy cost" in failure and "false at" in failure
    # the same program with the claim it deserves
    v, failure, c = verdict(text.replace("M[DP(eps)]", "M[DP(2.0 * eps)]"), "f")
    assert v == VERIFIED, failure
    assert "If" in rules(c)


def test_a_bound_if_on_a_private_condition_with_different_costs_is_rejected():
    text = dp("f", "eps", """let f db eps =
  mlet x = (if count db > 3 then lapMech (eps, count db) else return 0.0) in
  return x""")
    v, failure, _ = verdict(text, "f")
    assert v == UNKNOWN
    assert "different branches" in failure and "same function" in failure


def test_a_condition_proved_equal_records_its_same_branch_obligation():
    report = verify_path(IF_RULES)
    c = claim(report, "sameCount")
    assert c.verdict == VERIFIED, c.failure
    ifs = [n for n in c.derivation.walk() if n.rule == "If"]
    assert len(ifs) == 2
    for node in ifs:
        left, right = node.judgement["branch"]["terms"]
        assert left != right and node.judgement["branch"]["obligation"] is not None
    # a branch that costs nothing (ZERO) and one that costs nothing either: no cost at all
    assert ifs[1].judgement["cost"]["family"] == "ZERO"


def test_a_synchronous_match_in_a_bound_position():
    c = claim(verify_path(IF_RULES), "byShape")
    assert c.verdict == VERIFIED, c.failure
    node = next(n for n in c.derivation.walk() if n.rule == "Match")
    assert node.judgement["branch"]["mode"] == "sync"
    assert node.judgement["cost"]["eps"].op == T.OpKind.ITE


def test_a_match_split_in_a_bound_position_has_no_rule():
    text = dp("f", "eps", """let f db eps =
  mlet x = (match db with
            | [] -> return 0.0
            | h :: t -> lapMech (eps, count t)) in
  return x""")
    v, failure, _ = verdict(text, "f")
    assert v == UNKNOWN and "no rule applies" in failure and "Match-Split" in failure


def test_cases_whose_outputs_the_logic_cannot_name_give_a_fresh_equal_output():
    text = f"""
val tick :: {EPS} -> {{x :: real | x<1> - x<2> <= 1.0 /\\ x<2> - x<1> <= 1.0}}
         -> M[DP(eps)] {{u :: unit | =}}
let tick eps x = mlet y = lapMech (eps, x) in return ()

val twice :: {ADJ} -> {EPS} -> {{t :: real | =}} -> M[DP(eps)] {{u :: unit | =}}
let twice db eps t =
  mlet u = (if t > 0.0 then tick eps (count db) else tick eps (length db - count db)) in
  return u
"""
    report = verify_text(text)
    c = claim(report, "twice")
    assert c.verdict == VERIFIED, c.failure
    assert "If" in rules(c)
    # a budget that pays for one tick only if the condition holds is too small for the rules,
    # but the claim is true (the output is always ()): not proved, and not refuted
    v, failure, _ = verdict(text.replace("M[DP(eps)] {u :: unit | =}\nlet twice",
                                         "M[DP(eps / 2.0)] {u :: unit | =}\nlet twice"), "twice")
    assert v == UNKNOWN and "privacy cost" in failure


def test_cases_with_costs_in_different_families_are_refused():
    c = A.If(A.BoolLit(True), A.Var("a"), A.Var("b"))
    dp_cost = Cost("DP", T.real(1), T.real(0), "lap")
    sd_cost = Cost("SD", T.real(0), T.real("1/10"), "ran")
    with pytest.raises(NoRule, match="different divergences"):
        case_cost(T.TRUE, dp_cost, sd_cost, c)
    zero = zero_cost("return")
    g = T.var("g", T.BOOL)
    mixed = case_cost(g, dp_cost, zero, c)
    assert (mixed.family, mixed.eps, mixed.delta) == ("DP", T.ite(g, T.real(1), T.real(0)),
                                                      T.real(0))
    assert case_cost(g, zero, zero, c).family == "ZERO"


# ---- Task 2: an if lifted into the arguments of its branches' head --------------------------

def test_the_pure_translator_turns_an_if_into_ite():
    v, failure, c = verdict(dp("f", "eps", "let f db eps = lapMech (eps, if count db > 3 then "
                                          "1.0 else 0.0)"), "f")
    assert v == VERIFIED, failure
    assert "If-Lift" not in rules(c)
    lap = next(n for n in c.derivation.walk() if n.rule == "LapMech")
    assert all(isinstance(t, T.Op) and t.op == T.OpKind.ITE for t in lap.judgement["value"])


LIFT = "let f db eps = if count db > 3 then lapMech (eps, 1.0) else lapMech (eps, 0.0)"


def test_branches_applying_one_mechanism_are_lifted():
    v, failure, c = verdict(dp("f", "eps", LIFT), "f")
    assert v == VERIFIED, failure
    assert c.guarantee == ("f is (eps, 0)-differentially private with respect to adj on its 1st "
                           "argument")
    lifted = next(n for n in c.derivation.walk() if n.rule == "If-Lift")
    lap = next(n for n in lifted.walk() if n.rule == "LapMech")
    v1, v2 = lap.judgement["value"]
    assert v1.op == T.OpKind.ITE and v2.op == T.OpKind.ITE and v1 != v2
    # the public epsilon stays one term (equal components are not lifted)
    assert lap.judgement["eps"][0] == lap.judgement["eps"][1]


def test_a_lifted_release_claimed_too_cheaply_is_rejected():
    v, failure, _ = verdict(dp("f", "eps / 2.0", LIFT), "f")
    assert v == REFUTED and "privacy cost" in failure and "confirmed by exact loss" in failure
    v, failure, _ = verdict(dp("f", "eps", LIFT.replace("1.0", "10.0")), "f")
    assert v == REFUTED and "privacy loss between the two runs' outputs is 5.0" in failure


def test_different_heads_are_not_lifted():
    c = claim(verify_path(BRANCH_ON_PRIVATE), "countIfLarge")
    assert c.verdict == UNKNOWN and c.code == "V003"
    assert "different branches" in c.failure and "same function" in c.failure
    # two mechanisms, each eps-DP on its own: which one runs depends on the data
    v, failure, _ = verdict(dp("f", "eps", LIFT.replace("lapMech (eps, 0.0)",
                                                        "gaussMech (eps, 0.5, 0.0)")), "f")
    assert v == UNKNOWN and "same function" in failure


def test_a_private_condition_choosing_the_epsilon_is_rejected():
    text = dp("f", "2.0 * eps", "let f db eps = if count db > 3 then lapMech (eps, count db) "
                                "else lapMech (2.0 * eps, count db)")
    v, failure, _ = verdict(text, "f")
    assert v == REFUTED and "epsilon of lapMech is public" in failure


def test_return_branches_are_lifted():
    bound = dp("f", "eps", """let f db eps =
  mlet x = (if count db > 3 then return 1.0 else return 0.0) in
  lapMech (eps, x)""")
    v, failure, c = verdict(bound, "f")
    assert v == VERIFIED, failure
    assert "If-Lift" in rules(c)
    # returned as it is, the thresholded bit is not private
    v, failure, _ = verdict(dp("f", "eps", "let f db eps = if count db > 3 then return 1.0 "
                                           "else return 0.0"), "f")
    assert v == REFUTED and "returned value" in failure


def test_nested_ifs_and_tuples_are_lifted():
    nested = dp("f", "eps", """let f db eps =
  if count db > 3 then lapMech (eps, 1.0)
  else if count db > 1 then lapMech (eps, 0.5) else lapMech (eps, 0.0)""")
    v, failure, _ = verdict(nested, "f")
    assert v == VERIFIED, failure
    v, failure, _ = verdict(nested.replace("lapMech (eps, 0.0)", "lapMech (eps, -1.0)"), "f")
    assert v == REFUTED and "confirmed by exact loss" in failure   # 0.5 and -1.0 are 1.5 apart
    gauss = (f"val f :: {ADJ} -> {{d :: real+ | =}} -> M[DP(0.5), d] {{r :: real | =}}\n"
             "let f db d = if count db > 3 then gaussMech (0.5, d, 1.0) "
             "else gaussMech (0.5, d, 0.0)\n")
    v, failure, c = verdict(gauss, "f")
    assert v == VERIFIED, failure
    g = next(n for n in c.derivation.walk() if n.rule == "GaussMech")
    assert g.judgement["delta"][0] == g.judgement["delta"][1]


def test_lifting_into_functions_with_and_without_a_val_and_the_exponential_mechanism():
    text = f"""
val noisy :: {EPS} -> {{v :: real | v<1> - v<2> <= 1.0 /\\ v<2> - v<1> <= 1.0}}
          -> M[DP(eps)] {{r :: real | =}}
let noisy eps v = lapMech (eps, v)

let helper eps v = lapMech (eps, v)

let score (x, r) = if r then x else 0.0 - x

val viaVal :: {ADJ} -> {EPS} -> M[DP(eps)] {{r :: real | =}}
let viaVal db eps = if count db > 3 then noisy eps 1.0 else noisy eps 0.0

val viaHelper :: {ADJ} -> {EPS} -> M[DP(eps)] {{r :: real | =}}
let viaHelper db eps = if count db > 3 then helper eps 1.0 else helper eps 0.0

val viaExp :: {ADJ} -> {EPS} -> M[DP(eps)] {{r :: bool | =}}
let viaExp db eps = if count db > 3 then expMech (eps, score, 1.0) else expMech (eps, score, 0.0)

val tooFar :: {ADJ} -> {EPS} -> M[DP(eps)] {{r :: real | =}}
let tooFar db eps = if count db > 3 then noisy eps 2.0 else noisy eps 0.0
"""
    report = verify_text(text)
    for name, rule in (("viaVal", "App-Val"), ("viaHelper", "Unfold"), ("viaExp", "ExpMech")):
        c = claim(report, name)
        assert c.verdict == VERIFIED, (name, c.failure)
        assert "If-Lift" in rules(c) and rule in rules(c)
    c = claim(report, "tooFar")   # the argument moves by 2: noisy's val does not apply
    assert c.verdict == REFUTED and "argument 2 of noisy" in c.failure


def test_computations_and_functions_as_arguments_are_not_lifted():
    text = dp("f", "eps", """let up (x, r) = if r then x else 0.0

let down (x, r) = if r then 0.0 else x

let f db eps = if count db > 3 then expMech (eps, up, 0.5) else expMech (eps, down, 0.5)""",
              "r :: bool")
    v, failure, _ = verdict(text, "f")
    assert v == UNKNOWN and "first-order arguments" in failure


def test_the_lifting_keys_on_structure_not_names():
    # another mechanism name, other variable names, the branches' order exchanged
    text = (f"val g :: {{xs :: bool list | adj (xs<1>, xs<2>)}} -> {{k :: real+ | =}} "
            "-> M[DP(k)] {z :: real | =}\n"
            "let g xs k = if length xs - count xs < 7 then lapMech (k, 0.25) "
            "else lapMech (k, 1.25)\n")
    v, failure, _ = verdict(text, "g")
    assert v == VERIFIED, failure


# ---- benchmarks and certificates ------------------------------------------------------------

def test_the_benchmark_programs():
    c = claim(verify_path(CLIPPED), "clippedCount")
    assert c.verdict == VERIFIED, c.failure
    assert c.guarantee == ("clippedCount is (eps, 0)-differentially private with respect to adj "
                           "on its 1st argument")
    c = claim(verify_path(GAP), "bigBit")
    assert c.verdict == REFUTED and "privacy cost" in c.failure


@pytest.mark.parametrize("path", [BOUND_IF, CLIPPED, IF_RULES, GAP],
                         ids=lambda p: p.name)
def test_the_certificates_check(path):
    cert = certificate_of(parse_file(str(path.relative_to(ROOT))))
    outcome = kernel.check(cert)
    assert outcome.valid, outcome.reason
    rules_used = {n["rule"] for n in cert["nodes"]}
    assert rules_used & {"If", "If-Lift", "Match"}


def test_a_lifted_release_cannot_be_recorded_as_a_synchronous_if():
    """The runs of the clipped count may take different branches: the kernel lifts the if
    itself (If-Lift), and refuses the certificate that claims they take the same one."""
    cert = certificate_of(parse_file(str(CLIPPED.relative_to(ROOT))))
    assert kernel.check(cert).valid
    lift = next(n for n in cert["nodes"] if n["rule"] == "If-Lift")
    inner = next(n for n in cert["nodes"] if n["id"] == lift["premises"][0])
    lift["rule"], lift["premises"] = "If", [inner["id"], inner["id"]]
    outcome = kernel.check(cert)
    assert not outcome.valid
    # (more forgeries of certificates: tests/test_certificates.py)


def test_registering_a_rule_twice_or_a_fallback_first_fails():
    class Fresh(A.Expr):
        pass
    with pytest.raises(ValueError, match="fallback"):
        registry.monadic_rule(Fresh, fallback=True)(lambda b, ctx, e: None)
    registry.synthesis_rule(Fresh)(lambda b, ctx, e: None)
    with pytest.raises(ValueError, match="two synthesis rules"):
        registry.synthesis_rule(Fresh)(lambda b, ctx, e: None)
