"""Induction on an integer counter (issue 26, natural programs): a recursive function that
matches on no list but counts a parameter down (``f … (k - 1)``) is proved by induction on the
counter's value as a natural number (``vocabulary.below``: each recursive call on ``0 <= a <
k``, in each run). The builder and the kernel each choose the counter (the shared
``resolve.counted_parameter``) and demand the decrease; a builder that forgets it is caught."""
from __future__ import annotations

import pytest

from obligations import terms as T
from obligations.model import ObligationKind
from verifier.rules import core_rules, safety
from verifier.verification import VERIFIED
from verify_helpers import claims_and_certificate, kernel_refuses
from checker import kernel

COUNTS = """
val counts :: {db :: bool list | adj (db<1>, db<2>)} -> {eps :: real+ | =} -> {k :: K | =}
           -> M[DP(CLAIM)] {r :: real list | =}
let rec counts db eps k = if GUARD then return [] else
  mlet c = lapMech (eps, count db) in
  mlet rest = counts db eps (k - STEP) in
  return (c :: rest)
"""


def program(k="nat", claim="eps * k", guard="k <= 0", step="1"):
    return (COUNTS.replace("K", k).replace("CLAIM", claim).replace("GUARD", guard)
            .replace("STEP", step))


@pytest.mark.parametrize("k, claim, guard, step", [
    ("nat", "eps * k", "k <= 0", "1"), ("int", "eps * max (k, 0)", "k <= 0", "1"),
    ("nat", "eps * k / 2.0", "k < 2", "2"), ("nat", "eps * k", "k = 0", "1")])
def test_counted_down_releases_cost_eps_per_step(k, claim, guard, step):
    claims, cert = claims_and_certificate(program(k, claim, guard, step))
    assert claims["counts"].verdict == VERIFIED, claims["counts"].failure
    assert kernel.check(cert).valid


@pytest.mark.parametrize("k, claim, guard, why", [
    ("nat", "eps * (k - 1)", "k <= 0", "Budget"),      # undercharged
    ("int", "eps * k", "k = 0", "smaller counter"),    # k < 0 never reaches 0
    ("nat", "eps * k", "k <= 0", None),                 # with the step 0 below: no decrease
])
def test_false_or_nonterminating_counters_are_not_verified(k, claim, guard, why):
    text = program(k, claim, guard)
    if why is None:
        text = text.replace("(k - 1)", "(k - 0)")
    claims, _ = claims_and_certificate(text)
    assert claims["counts"].verdict != VERIFIED
    if why:
        assert why in claims["counts"].failure


def test_the_kernel_refuses_a_builder_that_forgets_the_decrease(monkeypatch):
    """The builder, patched to skip the termination obligation of recursive calls, verifies
    the loop that never ends on a negative counter; the kernel demands it and refuses."""
    text = program("int", "eps * k", "k = 0")

    def bug(patch):
        patch.setattr(safety.Safety, "_shorter", lambda self, *args, **kw: None)
        patch.setattr(core_rules, "every_recursive_call_terminates", lambda *args: None)
        patch.setattr(core_rules, "_decreasing", lambda b, ctx, e, args: b.oblige(
            ctx, ObligationKind.ENTAILMENT, T.boolean(True), "skipped", e.span, "App-Val"))

    kernel_refuses(monkeypatch, text, "counts", bug, "smaller counter")


LOCAL = """
val histo :: {db :: [4] list | adj (db<1>, db<2>)} -> {eps :: real+ | =} -> M[DP(eps)] {r :: real list | =}
let histo db eps =
  let rec go k = if GUARD then return [] else
    mlet c = lapMech (eps / 8.0, 0.0) in
    mlet rest = go (k - 1) in return (c :: rest) in
  go 4
"""


def test_a_local_recursive_function_may_count_down_too():
    """A local ``let rec`` is shown total on every argument of its sorts: counted down to
    ``k <= 0`` it is; stopping at ``k = 0`` only, it loops on a negative counter."""
    claims, cert = claims_and_certificate(LOCAL.replace("GUARD", "k <= 0"))
    assert claims["histo"].verdict == VERIFIED, claims["histo"].failure
    assert kernel.check(cert).valid
    claims, _ = claims_and_certificate(LOCAL.replace("GUARD", "k = 0"))
    assert claims["histo"].verdict != VERIFIED
    assert "smaller counter" in claims["histo"].failure
