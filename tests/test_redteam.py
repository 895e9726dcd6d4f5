"""Red-team findings: programs the verifier used to verify although their claims are false.

Each class found has must-fail programs (the claim is false; the verifier must not verify it)
and must-pass twins (the same shape, true; a fix may not simply reject the shape), and a
simulation of the old rule (monkeypatched back) whose certificate the kernel must refuse on its
own. The must-fail programs of the benchmarks are under ``benchmarks/programs/unsound/``.

1. **The ranges of a val's result were assumed, never shown.** Simple typing erases ranges
   (``nat`` is ``int``, ``real+`` and ``[0,1]`` are ``real``, ``[k]`` flows into ``int``), and
   every use of a val assumes the ranges of its result: the call facts of a pure val (``f l >=
   0`` for a ``nat`` result), the draws of a computation's val in its callers' Safety walk (a
   draw of ``M[DP(eps)] {x :: [0,1] | =}`` is a probability). No rule showed them of the
   definition, so ``val pred :: ... -> nat`` with ``pred [] = -1`` was verified, and so was a
   caller whose privacy rested on it. The Safety premise now shows them at every tail
   position (obligations of rule ``Result``), and the kernel refuses a certificate whose Safety
   premise does not have them.
2. **ExactFinite certified outcomes outside the claimed type** (``return 2`` claimed
   ``M[[2]]``): the outcomes must now be values of the claim's finite type, in the verifier and
   in the kernel's own recomputation.
3. **A call of a val outside its domain.** A pure call is an opaque value whose val is used
   only when its arguments meet the domain (the call facts), but nothing required them to,
   while the callee is shown safe and terminating only there: ``zeros`` loops on lists with a
   ``true``, which its val excludes, and ``main`` called it on the private list — a noisy 0 on
   ``[false]``, no output at all on the adjacent ``[true]``. The Safety walk now requires, at
   every call of a val it evaluates, the val's domain at the call's arguments (ranges and
   refinements at the pair ``(a, a)``), and the kernel refuses a call written in the body
   without that obligation at its span.
4. **The exponential mechanism was charged at its output.** Its cost, the score's change
   ``eps |score<1> (r) - score<2> (r)|``, was stated at a fresh candidate ``r`` that was also
   its output; a Budget obligation "for every r, cost (r) + later costs (r) <= eps" then paid
   for a continuation that depends on the output with the change *at that output* (0 where
   the score does not move), whereas the loss there is up to ``eps / 2`` times the largest
   change (the normaliser moves). The output is now a fresh value of its own, so the cost
   enters every obligation as its sup over the candidates; the kernel refuses an ExpMech whose
   output is a candidate it drew.
5. **A stored computation's eager parts were not looked at.** ``let m = return e in ...``
   kept ``return e`` as code, to be checked where it runs — but the language evaluates ``e``
   (and the distribution of ``ran``, the first computation of ``mlet``, the likelihood and
   prior of ``observe``) where it is written, run or not. A division by zero or a call out of
   its domain there could stop or loop one run only. The translator now translates those
   parts where the computation is written.
"""
from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest

from checker import kernel
from test_binding import kernel_refuses_buggy_builder
from verifier.language import ast as A
from verifier.verification import REFUTED, VERIFIED
from verify_helpers import claims_and_certificate

ROOT = Path(__file__).resolve().parent.parent
UNSOUND = ROOT / "benchmarks" / "programs" / "unsound"

PRED_BAD = "let pred l = length l - 1"
PRED_GOOD = "let pred l = match l with\n  | [] -> 0\n  | x :: xs -> length xs"
PRED = """val pred :: {{l :: bool list | =}} -> {{n :: nat | =}}
{pred}

val main :: {{db :: bool list | adj (db<1>, db<2>)}} -> {{p :: bool list | =}} -> M[DP(1.0)] {{x :: real | =}}
let main db p = lapMech (1.0, (if pred p >= 0 then 1.0 else 100.0) * count db)
"""

RATE_BAD = "let noisyRate db = lapMech (1.0, count db)"
RATE_GOOD = """let noisyRate db =
  mlet z = lapMech (1.0, count db) in
  if z > 1.0 then return 1.0 else if z < 0.0 then return 0.0 else return z"""
RATE = """val noisyRate :: {{l :: bool list | adj (l<1>, l<2>)}} -> M[DP(1.0)] {{x :: [0,1] | =}}
{rate}

val main :: {{l :: bool list | adj (l<1>, l<2>)}} -> M[DP(1.0)] {{b :: bool | =}}
let main db = mlet p = noisyRate db in ran (bernoulli p)
"""

#: Warner's randomized response with coins (only ExactFinite proves it), outcomes relabelled
COINS = """val f :: {{t :: bool | true}} -> M[DP(1.1)] {{r :: [2] | =}}
let f t = mlet heads = ran (bernoulli 0.5) in
  if heads then return (if t then {one} else 0)
  else mlet c = ran (bernoulli 0.5) in return (if c then {one} else 0)
"""

#: (name, must-fail program, must-pass twin, claims that must fail, words of the failure)
CASES = [
    ("a nat result that is -1", PRED.format(pred=PRED_BAD), PRED.format(pred=PRED_GOOD),
     ("pred", "main"), "the result has the type its val says"),
    ("a real+ constant that is 0",
     "val c :: real+\nlet c = 0.0\n", "val c :: real+\nlet c = 0.5\n",
     ("c",), "the result has the type its val says"),
    ("a tuple component outside its range",
     "val pair :: {a :: real | =} -> {p :: [0,1] * real+ | =}\nlet pair a = (0.5, abs a)\n",
     "val pair :: {a :: real | =} -> {p :: [0,1] * real+ | =}\nlet pair a = (0.5, 1.0 + abs a)\n",
     ("pair",), "the result has the type its val says"),
    ("an [k] result out of range in one branch",
     "val pick :: {b :: bool | =} -> {k :: [3] | =}\nlet pick b = if b then 2 else 3\n",
     "val pick :: {b :: bool | =} -> {k :: [3] | =}\nlet pick b = if b then 2 else 0\n",
     ("pick",), "the result has the type its val says"),
    ("draws of a [0,1] computation that are any real",
     RATE.format(rate=RATE_BAD), RATE.format(rate=RATE_GOOD), ("noisyRate", "main"),
     "the values this computation returns have the type its val says"),
    ("a finite outcome outside [2] (relational rules)",
     "val f :: {b :: bool | true} -> M[DP(10.0)] {r :: [2] | =}\n"
     "let f b = mlet c = ran (bernoulli 0.5) in return (if c then 1 else 2)\n",
     "val f :: {b :: bool | true} -> M[DP(10.0)] {r :: [2] | =}\n"
     "let f b = mlet c = ran (bernoulli 0.5) in return (if c then 1 else 0)\n",
     ("f",), "the values this computation returns have the type its val says"),
    ("a finite outcome outside [2] (ExactFinite)", COINS.format(one=2), COINS.format(one=1),
     ("f",), ""),
]


@pytest.mark.parametrize("name, bad, good, claims, words", CASES, ids=[c[0] for c in CASES])
def test_a_result_has_the_ranges_its_val_says(name, bad, good, claims, words):
    verdicts, _ = claims_and_certificate(bad)
    for claim in claims:
        assert verdicts[claim].verdict != VERIFIED, (claim, verdicts[claim].verdict)
    if words:
        assert words in (verdicts[claims[0]].failure or "")
    twins, cert = claims_and_certificate(good)
    assert all(c.verdict == VERIFIED for c in twins.values()), \
        {n: (c.verdict, c.failure) for n, c in twins.items()}
    assert kernel.check(cert).valid


def test_a_result_outside_its_range_is_refuted_by_evaluation():
    claims, _ = claims_and_certificate(PRED.format(pred=PRED_BAD))
    assert claims["pred"].verdict == REFUTED
    assert "pred returns -1 in run 1, which is not a value of nat" in claims["pred"].failure


ZEROS = """val zeros :: {{l :: bool list | l<1> = l<2> /\\ count l<1> = 0}} -> {{r :: real | =}}
let rec zeros l = match l with
  | [] -> 0.0
  | x :: xs -> if x then zeros l else zeros xs

val main :: {{db :: bool list | adj (db<1>, db<2>)}} -> {{p :: bool list | =}} -> M[DP(1.0)] {{x :: real | =}}
let main db p = lapMech (1.0, {use})
"""
INV = """val inv :: {{n :: nat | n<1> = n<2> /\\ n<1> >= 3}} -> {{r :: real | =}}
let inv n = 1.0 / (n - 2)

val main :: {{db :: bool list | adj (db<1>, db<2>)}} -> M[DP(1.0)] {{x :: real | =}}
let main db = if inv {n} > 0.0 then lapMech (1.0, count db) else lapMech (1.0, count db)
"""
NOISE = """val noise :: {{eps :: real+ | =}} -> {{k :: int | k<1> = k<2> /\\ k<1> >= 3}}
           -> M[DP(0.0)] {{x :: real | =}}
let noise eps k = lapMech (eps / (k - 2), 0.0)

val main :: {{db :: bool list | adj (db<1>, db<2>)}} -> M[DP(1.0)] {{x :: real | =}}
let main db = mlet z = noise 1.0 {k} in lapMech (1.0, count db)
"""

#: (name, must-fail program, must-pass twin): calls of vals, in and out of their domains
DOMAIN_CASES = [
    ("a pure call on private data outside the domain (it loops)",
     ZEROS.format(use="0.0 * zeros db"),
     ZEROS.format(use="count db + (if count p = 0 then zeros p else 1.0)")),
    ("a pure call whose argument breaks a refinement (division by zero)",
     INV.format(n="2"), INV.format(n="5")),
    ("a monadic call with equal arguments outside its refinement (EqualInputs skipped App-Val)",
     NOISE.format(k="2"), NOISE.format(k="3")),
]


@pytest.mark.parametrize("name, bad, good", DOMAIN_CASES, ids=[c[0] for c in DOMAIN_CASES])
def test_a_val_is_called_in_its_domain(name, bad, good):
    verdicts, _ = claims_and_certificate(bad)
    assert verdicts["main"].verdict != VERIFIED
    twins, cert = claims_and_certificate(good)
    assert all(c.verdict == VERIFIED for c in twins.values()), \
        {n: (c.verdict, c.failure) for n, c in twins.items()}
    assert kernel.check(cert).valid


def _calls_anywhere(monkeypatch):
    """The old Safety walk: a call of a val needs nothing of its arguments."""
    from verifier.rules import safety
    monkeypatch.setattr(safety.Safety, "_in_domain", lambda self, *args, **kwargs: None)


def test_the_kernel_refuses_a_call_outside_the_domain(monkeypatch):
    kernel_refuses_buggy_builder(monkeypatch, UNSOUND / "val_call_outside_domain.pinf", "main",
                                 _calls_anywhere, "are in the domain of zeros's val")


EXPMECH = """val main :: {{l :: bool list | adj (l<1>, l<2>)}} -> M[DP(1.0)] {{y :: bool * bool | =}}
let main db =
  mlet r = expMech ({eps}, fun (x, c) -> if c then count x else 0.0, db) in
  if r then return (true, false)
  else mlet b = expMech ({eps}, fun (x, c) -> if c then count x else 0.0 - count x, db) in
       return (false, b)
"""


def test_the_exponential_mechanism_costs_its_sup_whatever_its_output():
    claims, _ = claims_and_certificate(EXPMECH.format(eps="1.0"))
    assert claims["main"].verdict == REFUTED  # exact loss 1.15 at (false, false)
    twins, cert = claims_and_certificate(EXPMECH.format(eps="0.5"))
    assert twins["main"].verdict == VERIFIED
    assert kernel.check(cert).valid


def _output_is_the_candidate(monkeypatch):
    """The old ExpMech: its output is the candidate its cost is stated at."""
    from verifier.rules import mechanism_rules
    monkeypatch.setattr(mechanism_rules, "_fresh_like", lambda b, ctx, v: v)


def test_the_kernel_refuses_an_expmech_whose_output_is_its_candidate(monkeypatch):
    kernel_refuses_buggy_builder(monkeypatch, UNSOUND / "expmech_cost_at_output.pinf", "main",
                                 _output_is_the_candidate, "privacy cost")


STORED = """val zeros :: {{l :: bool list | l<1> = l<2> /\\ count l<1> = 0}} -> {{r :: real | =}}
let rec zeros l = match l with
  | [] -> 0.0
  | x :: xs -> if x then zeros l else zeros xs

val main :: {{db :: bool list | adj (db<1>, db<2>)}} -> M[DP(1.0)] {{x :: real | =}}
let main db = let m = {stored} in lapMech (1.0, count db)
"""

#: (name, must-fail stored computation, must-pass twin)
STORED_CASES = [
    ("return of a division by zero", "return (1.0 / (count db - 1))",
     "return (1.0 / (count db + 1))"),
    ("return of a call out of its domain", "return (zeros db)", "return (zeros [])"),
    ("ran of a distribution with a zero parameter", "ran (beta (count db, 1.0))",
     "ran (beta (count db + 1, 1.0))"),
    ("mlet whose first computation loops", "mlet x = return (zeros db) in return x",
     "mlet x = return (zeros [false]) in return x"),
]


@pytest.mark.parametrize("name, bad, good", STORED_CASES, ids=[c[0] for c in STORED_CASES])
def test_the_eager_parts_of_a_stored_computation_are_checked(name, bad, good):
    verdicts, _ = claims_and_certificate(STORED.format(stored=bad))
    assert verdicts["main"].verdict != VERIFIED
    twins, cert = claims_and_certificate(STORED.format(stored=good))
    assert twins["main"].verdict == VERIFIED, (twins["main"].verdict, twins["main"].failure)
    assert kernel.check(cert).valid


def _no_result_ranges(monkeypatch):
    """The old Safety premise: nothing shown of what the definition returns."""
    from verifier.rules import safety
    monkeypatch.setattr(safety.Safety, "has_type", lambda self, *args: None)


def _any_finite_outcome(monkeypatch):
    """The old ExactFinite: any outcome of the evaluator, whatever the claimed type."""
    from verifier.rules import exact_finite
    lax = SimpleNamespace(**{**vars(A), "finite_value_of": lambda value, t: True})
    monkeypatch.setattr(exact_finite, "A", lax)


OLD_RULES = [
    ("pure_result_range_assumed.pinf", "main"),
    ("monadic_result_range_assumed.pinf", "main"),
    ("finite_output_outside_type.pinf", "f"),
]


@pytest.mark.parametrize("file, claim", OLD_RULES, ids=[b[0] for b in OLD_RULES])
def test_the_kernel_refuses_what_the_old_rules_verified(monkeypatch, file, claim):
    kernel_refuses_buggy_builder(monkeypatch, UNSOUND / file, claim, _no_result_ranges,
                                 "[Result] is not proved")


def test_the_kernel_refuses_exact_outcomes_outside_the_claimed_type(monkeypatch):
    """Only ExactFinite proves randomized response with coins; with the relational rules'
    Result obligations gone too (the old builder), the certificate rests on ExactFinite, and
    the kernel's own recomputation finds the outcome 2 that [2] excludes."""
    with monkeypatch.context() as patch:
        _no_result_ranges(patch)
        _any_finite_outcome(patch)
        claims, cert = claims_and_certificate(COINS.format(one=2))
    assert claims["f"].verdict == VERIFIED
    assert [n["rule"] for n in cert["nodes"] if n["id"].startswith("f/")][:2] == \
        ["Abs", "ExactFinite"]
    outcome = kernel.check(cert)
    assert not outcome.valid and "not a value of the claimed type" in outcome.reason, \
        outcome.reason


@pytest.mark.parametrize("value, t, member", [
    (True, A.TBase("bool"), True), (1, A.TBase("bool"), False),
    (1, A.TFin(2), True), (2, A.TFin(2), False), (-1, A.TFin(2), False), (True, A.TFin(2), False),
    ((), A.TBase("unit"), True), ((True, 1), A.TTuple((A.TBase("bool"), A.TFin(2))), True),
    ((True, 2), A.TTuple((A.TBase("bool"), A.TFin(2))), False),
    ((True,), A.TTuple((A.TBase("bool"), A.TFin(2))), False),
])
def test_finite_value_of(value, t, member):
    assert A.finite_value_of(value, t) is member
