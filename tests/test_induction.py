"""Structural induction for recursive definitions with a ``val``.

A recursive call is an instance of the induction hypothesis when its list at the induction
position is shorter, in both runs, than the longer of the two lists the function was called
with (``vocabulary.shorter``): for monadic functions an App-Val obligation, for pure ones the
premise of the call fact the call gets in the function's own body. The certificate kernel
rebuilds both from the root's parameters and refuses them otherwise.
"""
from __future__ import annotations

import copy
import json

import pytest

from checker import kernel
from obligations import terms as T
from obligations import vocabulary as V
from verifier.verification import REFUTED, UNKNOWN, VERIFIED
from verify_helpers import claims_and_certificate


verify = claims_and_certificate


SUM = """
val mysum :: {l :: real list | adjWithin (l<1>, l<2>, 1.0)} -> {s :: real | abs (s<1> - s<2>) <= BOUND}
let rec mysum l = match l with
  | [] -> 0.0
  | x :: xs -> x + mysum xs
val main :: {l :: real list | adjWithin (l<1>, l<2>, 1.0)} -> {eps :: real+ | =}
         -> M[DP(CLAIM)] {r :: real | =}
let main db eps = lapMech (eps, mysum db)
"""


@pytest.mark.parametrize("bound, claim, verdicts", [
    ("1.0", "eps", (VERIFIED, VERIFIED)),
    ("2.0", "2.0 * eps", (VERIFIED, VERIFIED)),
    ("1.0", "eps / 2.0", (VERIFIED, REFUTED)),  # the sums of [1.0] and [0.0]: loss eps
    # main's proof uses mysum's false val (V009), but main is false on its own: refuted too
    ("0.5", "eps / 2.0", (REFUTED, REFUTED)),
])
def test_a_recursive_pure_sum_is_proved_by_induction(bound, claim, verdicts):
    claims, cert = verify(SUM.replace("BOUND", bound).replace("CLAIM", claim))
    assert (claims["mysum"].verdict, claims["main"].verdict) == verdicts
    assert kernel.check(cert).valid


def test_a_false_pure_recursive_val_is_refuted_whatever_the_recursive_call_returns():
    claims, _ = verify("""
val badSum :: {l :: real list | adj (l<1>, l<2>)} -> {s :: real | abs (s<1> - s<2>) <= 1.0}
let rec badSum l = match l with
  | [] -> 0.0
  | x :: xs -> x + badSum xs
""")
    bad = claims["badSum"]
    assert bad.verdict == REFUTED
    assert "confirmed by evaluation" in bad.failure


def test_a_count_with_a_private_branch_in_pure_code():
    # the runs may take different branches of the if: the pure body is translated with ite
    claims, cert = verify("""
val cnt :: {l :: bool list | adj (l<1>, l<2>)} -> {n :: int | abs (n<1> - n<2>) <= 1}
let rec cnt l = match l with
  | [] -> 0
  | x :: xs -> if x then 1 + cnt xs else cnt xs
val main :: {l :: bool list | adj (l<1>, l<2>)} -> {eps :: real+ | =} -> M[DP(eps)] {r :: real | =}
let main db eps = lapMech (eps, cnt db)
""")
    assert claims["cnt"].verdict == VERIFIED and claims["main"].verdict == VERIFIED
    assert kernel.check(cert).valid


def test_calls_that_are_not_smaller_are_refused_for_termination():
    # a pure recursive function must terminate (its calls are opaque values elsewhere):
    # a call that is not on a shorter list gets no induction hypothesis and is refuted
    claims, _ = verify("""
val f :: {l :: bool list | adj (l<1>, l<2>)} -> {k :: bool list | =} -> {r :: int | r<1> = r<2>}
let rec f l k = match k with
  | [] -> 0
  | x :: xs -> f k l
""")
    assert claims["f"].verdict == UNKNOWN and "termination" in claims["f"].failure
    # a tail's name rebound to the whole list is not smaller either
    claims, _ = verify("""
val g :: {l :: bool list | adj (l<1>, l<2>)} -> {r :: int | r<1> = r<2>}
let rec g l = match l with
  | [] -> 0
  | x :: xs -> let xs = l in g xs
""")
    assert claims["g"].verdict == UNKNOWN and "termination" in claims["g"].failure


def test_a_caller_depends_on_the_termination_of_the_functions_it_calls():
    # loop never returns on a list starting with true: a caller that uses loop's result,
    # even without anything its val says, must not be verified
    claims, cert = verify("""
val loop :: {l :: bool list | =} -> {r :: real | =}
let rec loop l = match l with
  | [] -> 0.0
  | x :: xs -> if x then loop l else 1.0
val main :: {l :: bool list | adj (l<1>, l<2>)} -> {eps :: real+ | =} -> M[DP(eps)] {r :: real | =}
let main db eps = mlet z = lapMech (eps, count db) in return (z + 0.0 * loop db)
""")
    assert claims["loop"].verdict == UNKNOWN  # divergence is not a witness the search finds
    assert claims["main"].verdict == UNKNOWN and "loop" in claims["main"].failure
    assert kernel.check(cert).valid
    main = next(c for c in cert["claims"] if c["name"] == "main")
    main.update(verdict="verified", failure=None, code=None)  # a certificate that pretends
    outcome = kernel.check(cert)
    assert not outcome.valid and "uses the val of loop" in outcome.reason, outcome.reason


def test_a_monadic_recursive_call_on_a_rebound_name_is_not_structural():
    claims, _ = verify("""
val loop :: {l :: bool list | adj (l<1>, l<2>)} -> {eps :: real+ | =} -> M[DP(eps)] {r :: bool list | =}
let rec loop l eps = match l with
  | [] -> return []
  | x :: xs -> let xs = x :: xs in loop xs eps
""")
    assert claims["loop"].verdict == UNKNOWN
    assert "structural recursion" in claims["loop"].failure


HISTOGRAM = """
val countCat :: {c :: int | =} -> {l :: [3] list | adj (l<1>, l<2>)}
             -> {n :: real | abs (n<1> - n<2>) <= 1.0}
let rec countCat c db = match db with
  | [] -> 0
  | x :: xs -> (if x = c then 1 else 0) + countCat c xs
val histogram :: {l :: [3] list | adj (l<1>, l<2>)} -> {eps :: real+ | =}
              -> M[DP(3.0 * eps)] {h :: real list | =}
let histogram db eps =
  mlet h0 = lapMech (eps, countCat 0 db) in
  mlet h1 = lapMech (eps, countCat 1 db) in
  mlet h2 = lapMech (eps, countCat 2 db) in
  return [h0; h1; h2]
"""


def test_the_induction_position_and_the_kernel():
    claims, cert = verify(HISTOGRAM)
    assert claims["countCat"].verdict == VERIFIED and claims["histogram"].verdict == VERIFIED
    outcome = kernel.check(cert)
    assert outcome.valid, outcome.reason
    # the kernel's own induction hypothesis: the call fact of countCat in its body has the
    # measure on the list parameter (position 1, not c) as its first premise
    facts = [T.pretty(h.term) for ob in outcome.obligations for h in ob.hypotheses
             if h.name.startswith("h__call_") and "countCat" in T.pretty(h.term)]
    assert facts and all(f.startswith("length ") for f in facts if "==>" in f), facts


NOISY = """
val noisy :: {l :: real list | adjWithin (l<1>, l<2>, 1.0)} -> {eps :: real+ | =}
          -> M[DP(eps)] {r :: real list | =}
let rec noisy db eps = match db with
  | [] -> return []
  | x :: xs -> mlet z = lapMech (eps, x) in mlet zs = noisy REST eps in return (z :: zs)
"""


def test_a_monadic_recursive_call_needs_its_measure():
    claims, cert = verify(NOISY.replace("REST", "xs"))
    assert claims["noisy"].verdict == VERIFIED and kernel.check(cert).valid
    claims, cert = verify(NOISY.replace("REST", "(x :: xs)"))
    assert claims["noisy"].verdict != VERIFIED
    forged = copy.deepcopy(cert)
    forged["claims"][0].update(verdict="verified", failure=None, code=None, confirmation=None)
    outcome = kernel.check(forged)
    assert not outcome.valid and "shorter" in outcome.reason, outcome.reason


def test_the_measure():
    lst = V.list_sort("bool")
    a1, a2, x1, x2 = (T.var(n, lst) for n in ("a1", "a2", "x1", "x2"))
    assert V.shorter((a1, a1), (x1, x1)) == T.lt(V.length(a1), V.length(x1))
    # the product order: each run's list is shorter than that run's parameter
    assert V.shorter((a1, a2), (x1, x2)) == T.and_(T.lt(V.length(a1), V.length(x1)),
                                                   T.lt(V.length(a2), V.length(x2)))
