"""ExactFinite: finite closed definitions decided by exact calculation.

When the relational rules fail on a definition whose parameters are ``bool`` or ``[k]`` and
whose body is closed and finite, the verifier computes the output distributions exactly and
discharges the claimed bound over every allowed pair of inputs (Warner's randomized response
with coins is ln 3-DP, not 1-DP); the certificate kernel recomputes the distributions with its
own evaluator (``checker/finite.py``) and rebuilds the obligations, so tampered distributions,
obligations or sources are refused.
"""
from __future__ import annotations

import copy
import json
import math
import subprocess
import sys
from fractions import Fraction
from pathlib import Path
from types import SimpleNamespace

import pytest

from checker import finite
from obligations import finite_laws as FL
from obligations import terms as T
from verifier.language import ast as A
from verifier.language.parser import parse_program
from verifier.language.typecheck import typecheck_program
from verifier.rules import exact_finite
from verifier.verification import REFUTED, UNKNOWN, VERIFIED, verify_program

from test_certificates import check, invalid  # noqa: E402  (the mutation suite's helpers)
from verify_helpers import claims_and_certificate  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
COINS = ROOT / "benchmarks/programs/classic/randomized_response_coins.pinf"
BIASED = ROOT / "benchmarks/programs/mistakes/randomized_response_biased_coin.pinf"

WARNER = """
val warner :: bool -> M[DP(EPS)] {r :: bool | =}
let warner truth =
  mlet heads = ran (bernoulli HEADS) in
  if heads then return truth else ran (bernoulli 0.5)
"""


def warner(eps: str = "log 3.0", heads: str = "0.5", claim: str = None) -> str:
    text = WARNER.replace("EPS", eps).replace("HEADS", heads)
    return text.replace("M[DP(" + eps + ")]", claim) if claim else text


verify = claims_and_certificate


def rules(claim) -> list:
    return [n.rule for n in claim.derivation.walk()] if claim.derivation else []


def exact_node(claim):
    return next(n for n in claim.derivation.walk() if n.rule == "ExactFinite")


def laws(claim) -> dict:
    """The recorded distributions: inputs -> {outcome: probability}."""
    return {tuple(d["inputs"]): {o: Fraction(p) for o, p in d["law"]}
            for d in exact_node(claim).judgement["distributions"]}


# ---- the verdicts --------------------------------------------------------------------------

def test_warner_is_verified_at_log_3_by_exact_calculation():
    claims, cert = verify(warner())
    w = claims["warner"]
    assert w.verdict == VERIFIED, w.failure
    assert w.guarantee == ("warner is (log 3.0, 0)-differentially private with respect to any "
                           "change of its 1st argument")
    assert rules(w) == ["Abs", "ExactFinite"]
    assert laws(w) == {("false",): {"false": Fraction(3, 4), "true": Fraction(1, 4)},
                       ("true",): {"false": Fraction(1, 4), "true": Fraction(3, 4)}}
    # one obligation per outcome, each discharged by z3 (the bound is tight: 3/4 = 3 * 1/4)
    assert len(w.obligations) == 2
    assert {w.results[ob.id].method for ob in w.obligations} == {"z3"}
    assert check(cert).valid


def test_the_benchmark_program_verifies_with_its_header_guarantee():
    from benchmarks import runner
    expectation = runner.read_expectation(COINS)
    program = parse_program(COINS.read_text(), str(COINS))
    (w,) = verify_program(program, typecheck_program(program)).claims
    assert expectation.verdict == w.verdict == VERIFIED
    assert " ".join(expectation.guarantees["warner"].split()) == w.guarantee


@pytest.mark.parametrize("eps", ["1.0", "log 2.9", "1.0986122886681096"])
def test_warner_below_log_3_is_refuted_naming_the_inputs_and_the_outcome(eps):
    # log 3 = 1.09861228866810969...: the last one is below it by less than 1e-16
    claims, cert = verify(warner(eps))
    w = claims["warner"]
    assert w.verdict == REFUTED
    assert "[ExactFinite]: false at" in w.failure and "confirmed by exact calculation" in w.failure
    assert "the output r = false" in w.failure
    assert "false at truth<1> = false, truth<2> = true" in w.failure
    assert check(cert).valid  # an honest rejection checks too


def test_warner_just_above_log_3_is_verified():
    claims, _ = verify(warner("1.0986122886681097"))
    assert claims["warner"].verdict == VERIFIED


def test_a_biased_coin_is_verified_at_its_exact_loss_log_7():
    # heads 3/4: P(true | true) = 3/4 + 1/8 = 7/8, P(true | false) = 1/8
    claims, cert = verify(warner("log 7.0", "0.75"))
    w = claims["warner"]
    assert w.verdict == VERIFIED
    law = laws(w)
    assert law[("true",)] == {"false": Fraction(1, 8), "true": Fraction(7, 8)}
    loss = max(math.log(law[a][o] / law[b][o]) for a in law for b in law for o in law[a])
    assert loss == pytest.approx(math.log(7))
    assert check(cert).valid
    claims, _ = verify(warner("log 6.99", "0.75"))
    assert claims["warner"].verdict == REFUTED


def test_the_biased_coin_mistake_is_rejected():
    program = parse_program(BIASED.read_text(), str(BIASED))
    (w,) = verify_program(program, typecheck_program(program)).claims
    assert w.verdict == REFUTED
    assert "exp (log 3.0) times as likely" in w.failure
    assert "truth<1> = false, truth<2> = true" in w.failure


@pytest.mark.parametrize("claim, verdict", [
    # the hockey-stick divergence of (7/8, 1/8) and (1/8, 7/8) at e^eps = 3 is 7/8 - 3/8 = 1/2
    ("M[DP(log 3.0), 0.5]", VERIFIED), ("M[DP(log 3.0), 0.49]", REFUTED),
    ("M[DP(log 7.0), 0.0]", VERIFIED), ("M[DP(0.0), 0.75]", VERIFIED),
    ("M[DP(0.0), 0.74]", REFUTED),
    # total variation 3/4
    ("M[SD, 0.75]", VERIFIED), ("M[SD, 0.7]", REFUTED),
])
def test_approximate_dp_and_statistical_distance_at_their_exact_values(claim, verdict):
    claims, cert = verify(warner("log 3.0", "0.75", claim))
    assert claims["warner"].verdict == verdict, claims["warner"].failure
    assert rules(claims["warner"]) == ["Abs", "ExactFinite"]
    assert check(cert).valid


@pytest.mark.parametrize("claim, verdict", [
    # fair coins: 1 - BC = 1 - 2 sqrt(3/16) = 0.1339..., KL = ln 3 / 2 = 0.5493...
    ("M[HD, 0.134]", VERIFIED), ("M[HD, 0.133]", REFUTED),
    ("M[KL, 0.5494]", VERIFIED), ("M[KL, 0.5493]", REFUTED),
])
def test_hellinger_and_kl_claims(claim, verdict):
    assert 1 - math.sqrt(3) / 2 == pytest.approx(0.13397, abs=1e-5)
    assert math.log(3) / 2 == pytest.approx(0.54931, abs=1e-5)
    claims, cert = verify(warner("log 3.0", "0.5", claim))
    assert claims["warner"].verdict == verdict, claims["warner"].failure
    assert check(cert).valid


def test_an_infinite_divergence_is_refuted():
    claims, _ = verify("""
val leak :: bool -> M[KL, 100.0] {r :: bool | =}
let leak b = if b then ran (bernoulli 0.5) else return true
val leakdp :: bool -> M[DP(100.0)] {r :: bool | =}
let leakdp b = if b then ran (bernoulli 0.5) else return true
""")
    assert claims["leak"].verdict == REFUTED
    assert claims["leakdp"].verdict == REFUTED
    assert "b<1> = true, b<2> = false" in claims["leakdp"].failure


def test_refinements_choose_the_pairs():
    claims, cert = verify("""
val mono :: {b :: bool | b<1> => b<2>} -> M[DP(log 2.0)] {r :: bool | =}
let mono b = if b then ran (bernoulli 0.5) else return true
val any :: bool -> M[DP(log 2.0)] {r :: bool | =}
let any b = if b then ran (bernoulli 0.5) else return true
val pub :: {p :: bool | =} -> bool -> M[DP(log 3.0)] {r :: bool | =}
let pub p truth =
  mlet heads = ran (bernoulli 0.5) in
  if heads then return truth else ran (bernoulli (if p then 0.5 else 0.25))
val pubok :: {p :: bool | =} -> bool -> M[DP(log 5.0)] {r :: bool | =}
let pubok p truth =
  mlet heads = ran (bernoulli 0.5) in
  if heads then return truth else ran (bernoulli (if p then 0.5 else 0.25))
""")
    assert claims["mono"].verdict == VERIFIED  # the pair (true, false) is excluded
    assert claims["any"].verdict == REFUTED
    assert "b<1> = true, b<2> = false" in claims["any"].failure
    # a public parameter takes the same value in both runs; at p = false the loss is ln 5
    assert claims["pub"].verdict == REFUTED
    assert "p = false" in claims["pub"].failure
    assert claims["pubok"].verdict == VERIFIED
    assert len(laws(claims["pubok"])) == 4
    assert check(cert).valid


def test_finite_parameters_helpers_and_tuple_outputs():
    claims, cert = verify("""
let coin p = ran (bernoulli p)
val fair :: M[SD] {c :: bool | =}
let fair = coin 0.5
val pick :: {k :: [3] | k<1> <> k<2>} -> M[DP(log 6.0)] {r :: [3] | =}
let pick k =
  mlet keep = coin 0.5 in
  if keep then return k else
  mlet a = fair in mlet b = fair in
  if a then (if b then return 0 else return 1) else (if b then return 2 else return k)
val pickbad :: {k :: [3] | k<1> <> k<2>} -> M[DP(log 5.9)] {r :: [3] | =}
let pickbad k = pick k
val pair :: bool -> bool -> M[DP(log 3.0)] {r :: bool * unit | =}
let pair a b =
  mlet x = coin 0.5 in
  mlet y = coin 0.5 in
  let (u, v) = (if x then a else y, ()) in return (u, v)
""")
    # P(0 | k = 0) = 1/2 + 1/8 + 1/8 = 3/4 (kept, or both coins say 0, or both say k),
    # P(0 | k = 2) = 1/8: the loss is ln 6
    assert claims["pick"].verdict == VERIFIED, claims["pick"].failure
    assert laws(claims["pick"])[("0",)] == {"0": Fraction(3, 4), "1": Fraction(1, 8),
                                             "2": Fraction(1, 8)}
    assert claims["pickbad"].verdict == REFUTED
    assert "k<1> = 0" in claims["pickbad"].failure and "k<2> = 2" in claims["pickbad"].failure
    assert claims["pair"].verdict == VERIFIED, claims["pair"].failure
    assert set(laws(claims["pair"])[("true", "false")]) == {"(false, ())", "(true, ())"}
    assert claims["fair"].verdict == VERIFIED  # by the relational rules: equal inputs
    assert "ExactFinite" not in rules(claims["fair"])
    assert check(cert).valid


def test_a_top_level_constant_as_eps():
    claims, cert = verify("let e3 = log 3.0\n" + warner("e3"))
    assert claims["warner"].verdict == VERIFIED
    assert check(cert).valid


# ---- outside the fragment: the relational verdict stands ------------------------------------

OUTSIDE = """
val witheps :: bool -> {eps :: real+ | =} -> M[DP(eps)] {r :: bool | =}
let witheps truth eps =
  mlet heads = ran (bernoulli 0.5) in
  if heads then return truth else ran (bernoulli 0.5)
val floaty :: bool -> M[DP(2.0)] {r :: bool | =}
let floaty truth =
  mlet heads = ran (bernoulli (exp (0.0 - 1.0))) in
  if heads then return truth else ran (bernoulli 0.5)
val listy :: {l :: bool list | adj (l<1>, l<2>)} -> M[DP(2.0)] {r :: bool | =}
let listy l = match l with
  | [] -> return true
  | x :: xs -> mlet heads = ran (bernoulli 0.5) in if heads then return x else return true
val realout :: bool -> M[DP(2.0)] {r :: real | =}
let realout b = mlet heads = ran (bernoulli 0.5) in return (if heads && b then 1.0 else 0.0)
let rec loop b = if b then loop b else ran (bernoulli 0.5)
val recursive :: bool -> M[DP(2.0)] {r :: bool | =}
let recursive b = mlet h = ran (bernoulli 0.5) in if h then return b else loop false
"""


def test_programs_outside_the_fragment_keep_the_relational_failure():
    claims, cert = verify(OUTSIDE)
    for name in ("witheps", "floaty", "realout"):
        c = claims[name]
        assert "ExactFinite" not in rules(c), name
        assert "[UnitM]: false at" in c.failure, (name, c.failure)
    # witheps is false at eps = 1 (its loss is ln 3) and realout releases b: both are refuted
    # by the exact loss of a pair; floaty's loss is ln 2.16 < 2, a true claim the rules cannot
    # prove, so its false UnitM obligation does not refute it
    assert claims["witheps"].verdict == claims["realout"].verdict == REFUTED
    assert claims["floaty"].verdict == UNKNOWN and claims["floaty"].confirmation is None
    assert claims["listy"].verdict in (REFUTED, UNKNOWN)
    assert "ExactFinite" not in rules(claims["listy"])
    assert claims["recursive"].verdict != VERIFIED
    assert "ExactFinite" not in rules(claims["recursive"])
    assert check(cert).valid


def test_claims_the_relational_rules_prove_are_unchanged():
    path = ROOT / "benchmarks/programs/classic/randomized_response.pinf"
    program = parse_program(path.read_text(), str(path))
    report = verify_program(program, typecheck_program(program))
    assert all(c.verdict == VERIFIED for c in report.claims)
    assert all("ExactFinite" not in rules(c) for c in report.claims)
    claims, _ = verify("""
val same :: {b :: bool | =} -> M[DP(0.0)] {r :: bool | =}
let same b = ran (bernoulli (if b then 0.25 else 0.5))
""")
    assert claims["same"].verdict == VERIFIED and "ExactFinite" not in rules(claims["same"])


def test_the_fragment_check():
    def used(text):
        program = parse_program(text, "t.pinf")
        return exact_finite._Fragment(program).definition(program.lets()[-1])
    assert used("let c = 0.5\nlet h p = ran (bernoulli p)\nlet f b = h c") == {0, 1}
    # a local name shadows a top-level one; an unused top-level definition is not looked at
    assert used("let x = 1\nlet y = lapMech (1.0, 0.0)\nlet f b = let x = b in return x") \
        == set()
    for body in ("lapMech (1.0, 0.0)", "return [b]", "infer (return b)",
                 "ran (beta (1.0, 1.0))", "return (exp 1.0)", "let rec g x = x in return b",
                 "match [b] with | [] -> return b | x :: _ -> return x"):
        assert used(f"let f b = {body}") is None, body
    assert used("let rec g b = return b\nlet f b = g b") is None


# ---- the kernel's evaluator -----------------------------------------------------------------

def kernel_law(text: str, *args):
    program = parse_program(text, "t.pinf")
    return FL.canonical(finite.Evaluator(program).law(program.lets()[-1], args))


def test_the_kernel_evaluator_agrees_with_the_language_evaluator():
    text = """
let coin p = ran (bernoulli p)
let f (k : [3]) b =
  mlet x = coin (1.0 / 3.0) in
  mlet (y, z) = return (x && b, k) in
  let w = if y then min (z, 1) else max (z, 1) - 1 in
  if not (w = 0) || fst (b, 0) then return (w = 1, ())
  else mlet c = coin (abs (0.0 - 0.25)) in return (c, ())
"""
    program = parse_program(text, "t.pinf")
    typecheck_program(program)
    decl = program.lets()[-1]
    valuations = [(k, b) for k in range(3) for b in (False, True)]
    out = A.TTuple((A.TBase("bool"), A.TBase("unit")))
    theirs = exact_finite.exact_laws(program, decl, {0}, valuations, out)
    ours = [FL.canonical(finite.Evaluator(program).law(decl, a)) for a in valuations]
    assert ours == theirs
    assert all(sum(p for _, p in law) == 1 for law in ours)
    # k = 0: w = 0, so b decides: the last coin, or (false, ())
    assert dict(ours[0]) == {"(false, ())": Fraction(3, 4), "(true, ())": Fraction(1, 4)}
    assert dict(ours[1]) == {"(false, ())": Fraction(1)}
    # k = 2, b = true: w = 1 when x (1/3), else w = 1 too
    assert dict(ours[5]) == {"(true, ())": Fraction(1)}


@pytest.mark.parametrize("text, reason", [
    ("let f b = return (1 / 0)", "division by zero"),
    ("let f b = ran (bernoulli 1.5)", "outside \\[0, 1\\]"),
    ("let rec g b = return b\nlet f b = g b", "recursive"),
    ("let f b = lapMech (1.0, 0.0)", "lapMech"),
    ("let f b = match [b] with | [] -> return b | x :: _ -> return x", "Match"),
    ("let f b = let (x : [2]) = 5 in return x", "type its pattern states"),
    ("let f b = return (b = 1)", "two kinds"),  # the kernel does not type-check: it refuses
])
def test_the_kernel_evaluator_refuses_what_is_outside_the_fragment(text, reason):
    with pytest.raises(finite.Outside, match=reason):
        kernel_law(text, True)


def test_the_kernel_evaluator_never_merges_values_of_two_kinds():
    # in Python True == 1; an untyped source may return both
    assert kernel_law("let f b = mlet c = ran (bernoulli 0.5) in if c then return true "
                      "else return 1", True) == (("1", Fraction(1, 2)), ("true", Fraction(1, 2)))


def test_goals_cover_every_pair_and_keep_the_parameters_free():
    x1, x2 = T.var("x", T.BOOL, 1), T.var("x", T.BOOL, 2)
    laws = [((False,), {"a": Fraction(1)}), ((True,), {"a": Fraction(1, 2), "b": Fraction(1, 2)})]
    goals = FL.goals("DP", T.real(1), T.real(0), [(x1, x2)], laws)
    assert [o for o, _ in goals] == ["a", "b"]
    assert set(T.free_vars(goals[1][1])) == {x1, x2}
    # outcome b: only the valuation true gives it a probability, at the pairs (true, *)
    assert T.pretty(goals[1][1]) == ("(x<1> = true /\\ x<2> = false => 0.5 <= exp 1.0 * 0.0) "
                                     "/\\ (x<1> = true /\\ x<2> = true => 0.5 <= exp 1.0 * 0.5)")
    shared = T.var("p", T.BOOL)
    assert FL.pairs([(shared, shared), (x1, x2)], [(a, b) for a in (0, 1) for b in (0, 1)]) \
        == [(i, j) for i in range(4) for j in range(4) if i // 2 == j // 2]


# ---- certificates ---------------------------------------------------------------------------

def run_cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "verifier.cli", *args], cwd=ROOT,
                          capture_output=True, text=True)


@pytest.mark.parametrize("path", [COINS, BIASED], ids=lambda p: p.name)
def test_verify_then_check_on_the_command_line(tmp_path, path):
    out = tmp_path / "c.json"
    done = run_cli("verify", str(path.relative_to(ROOT)), "--certificate", str(out))
    assert done.returncode == (0 if path == COINS else 1), done.stdout + done.stderr
    checked = run_cli("check", str(out))
    assert checked.returncode == 0, checked.stdout
    assert ("verified  warner" if path == COINS else "refuted   warner") in checked.stdout


@pytest.fixture(scope="module")
def coins_cert():
    claims, cert = verify(warner())
    assert claims["warner"].verdict == VERIFIED
    return cert


def test_the_certificate_records_no_distribution_the_kernel_computes_them(coins_cert):
    assert all(set(n) == {"id", "rule", "at", "premises"} for n in coins_cert["nodes"])
    outcome = check(copy.deepcopy(coins_cert))
    assert outcome.valid, outcome.reason
    assert [ob.provenance.rule for ob in outcome.obligations] == ["ExactFinite"] * 2


def test_an_edited_source_under_an_exact_derivation_is_recomputed(coins_cert):
    """The coin biased to 3/4: the same certificate, re-signed, is judged on the new source:
    its exact distributions give a loss of ln 7 > ln 3."""
    import hashlib
    cert = copy.deepcopy(coins_cert)
    text = cert["source"]["text"].replace("bernoulli 0.5) in", "bernoulli 0.75) in")
    cert["source"] = {**cert["source"], "text": text,
                      "sha256": hashlib.sha256(text.encode()).hexdigest()}
    invalid(cert, "claim warner", "exact output distributions", "not proved")


def test_an_exact_derivation_needs_its_premise(coins_cert):
    cert = copy.deepcopy(coins_cert)
    root = cert["nodes"][0]
    root["premises"], cert["nodes"] = [], [root]
    invalid(cert, "warner/n1", "premises")
    cert = copy.deepcopy(coins_cert)
    cert["nodes"][1]["rule"] = "Safety"
    invalid(cert, "claim warner")


def test_a_verifier_computing_wrong_distributions_is_caught(monkeypatch):
    # the biased coin claimed at ln 3 is false; a verifier whose evaluator saw fair coins would
    # verify it, with a self-consistent certificate: the kernel recomputes and refuses it
    fair = exact_finite.exact_laws
    monkeypatch.setattr(exact_finite, "exact_laws", lambda program, decl, used, vals, out: fair(
        parse_program(warner(), "t.pinf"), parse_program(warner(), "t.pinf").lets()[0],
        set(), vals, out))
    claims, cert = verify(warner("log 3.0", "0.75"))
    assert claims["warner"].verdict == VERIFIED  # wrongly, by the patched evaluator
    invalid(cert, "claim warner", "exact output distributions", "not proved")


def test_a_verifier_stating_weaker_obligations_is_caught(monkeypatch):
    # a verifier that dropped the pairs with different inputs would verify a false claim,
    # with obligations whose ids, texts and solver results are all consistent
    def weaker(family, eps, delta, params, laws):
        return [(o, T.TRUE) for o, _ in FL.goals(family, eps, delta, params, laws)]
    monkeypatch.setattr(exact_finite, "FL", SimpleNamespace(
        goals=weaker, outcome_text=FL.outcome_text, canonical=FL.canonical))
    claims, cert = verify(warner("1.0"))
    assert claims["warner"].verdict == VERIFIED  # wrongly
    invalid(cert, "claim warner", "exact output distributions", "not proved")


def test_the_kernel_still_imports_nothing_of_the_verifier_semantics(tmp_path):
    out = tmp_path / "c.json"
    assert run_cli("verify", str(COINS.relative_to(ROOT)), "--certificate",
                   str(out)).returncode == 0
    code = ("import sys, json\nfrom checker import kernel\n"
            f"assert kernel.check(json.load(open({str(out)!r}))).valid\n"
            "print(sorted(m for m in sys.modules if m.startswith('verifier')))\n")
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert not [m for m in json.loads(done.stdout.replace("'", '"'))
                if m.startswith(("verifier.rules", "verifier.verification", "verifier.semantics"))]
