"""Issue 23: advanced composition (Dwork, Rothblum and Vadhan 2010, Thm III.3) as the rule
S-M-Adv: the k Laplace releases of a path, each coupled equal (its cost bounds the step's loss
in both directions) and with parameters fixed in advance, are
``(sqrt(2k ln(1/delta)) e + k e (exp e - 1), delta)``-DP. Programs that must verify (their
certificates re-checked by the kernel), programs that must not, and simulated builder bugs whose
certificates the kernel refuses."""
from __future__ import annotations

import pytest

from checker import kernel
from obligations import terms as T
from obligations.records import replace
from verifier.rules import context, core_rules, refinements
from verifier.verification import VERIFIED
from verify_helpers import claims_and_certificate

K = 20


def chain(claim: str, releases: int = K, step: str = "lapMech (0.01, count db)",
          branch: bool = False) -> str:
    """A val releasing ``releases`` noisy counts in a row, claimed ``claim``; with ``branch``,
    the releases after the first are made under an if on the first's output."""
    head = (f"val many :: {{l :: bool list | adj (l<1>, l<2>)}} -> {claim} "
            f"{{r :: real list | =}}\nlet many db =\n  mlet x0 = lapMech (0.01, count db) in\n")
    rest = "".join(f"  mlet x{i} = {step} in\n" for i in range(1, releases))
    out = "  return [" + "; ".join(f"x{i}" for i in range(releases)) + "]\n"
    if branch:
        return head + "  if x0 > 0.0 then\n" + rest + out + "  else\n" + rest + out
    return head + rest + out


def check(text: str):
    claims, cert = claims_and_certificate(text)
    return claims["many"], cert, kernel.check(cert)


def test_twenty_releases_are_below_their_sum_by_advanced_composition():
    """20 releases at 0.01: the sum is 0.2; advanced composition gives 0.1682 at delta 0.001."""
    claim, cert, outcome = check(chain("M[DP(0.17), 0.001]"))
    assert claim.verdict == VERIFIED, claim.failure
    assert "S-M-Adv" in {n["rule"] for n in cert["nodes"]}
    assert outcome.valid, outcome.reason
    assert "literature:composition.advanced" in outcome.trust_base["theorems"]


def test_the_same_claim_without_delta_is_not_verified():
    claim, _, _ = check(chain("M[DP(0.17)]"))
    assert claim.verdict != VERIFIED


def test_below_the_advanced_bound_is_not_verified():
    claim, _, _ = check(chain("M[DP(0.16), 0.001]"))
    assert claim.verdict != VERIFIED


def test_the_bound_in_the_claim_verifies_for_any_eps_and_delta():
    text = """
val three :: {l :: bool list | adj (l<1>, l<2>)} -> {eps :: real+ | =}
          -> {d :: real+ | d<1> = d<2> /\\ d<1> < 1.0}
          -> M[DP(sqrt (2.0 * 3.0 * log (1.0 / d)) * eps + 3.0 * eps * (exp eps - 1.0)), d]
             {r :: real * real * real | =}
let three db eps d =
  mlet a = lapMech (eps, count db) in
  mlet b = lapMech (eps, count db) in
  mlet c = lapMech (eps, count db) in
  return (a, b, c)
"""
    claims, cert = claims_and_certificate(text)
    assert claims["three"].verdict == VERIFIED, claims["three"].failure
    assert kernel.check(cert).valid


def test_the_kernel_counts_the_steps_itself(monkeypatch):
    """A builder that counts one step fewer proves 0.165 (19 steps: 0.1639); the kernel counts
    the path's 20 releases (0.1682) and refuses the certificate."""
    from verifier.rules import builder as B
    text = chain("M[DP(0.165), 0.001]")
    real = B.Builder.advanced_subsumption

    def one_fewer(self, ctx, costs, e):
        steps = [c for c in costs if c.family != "ZERO"]
        return real(self, ctx, tuple(steps[1:]), e)

    with monkeypatch.context() as patch:
        patch.setattr(B.Builder, "advanced_subsumption", one_fewer)
        claims, cert = claims_and_certificate(text)
    assert claims["many"].verdict == VERIFIED, "the simulated bug no longer fools the builder"
    outcome = kernel.check(cert)
    assert not outcome.valid and "advanced composition" in outcome.reason, outcome.reason
    assert claims_and_certificate(text)[0]["many"].verdict != VERIFIED


def test_releases_chosen_after_an_earlier_output_are_not_composed_so():
    """Parameters must be fixed in advance: a branch on an earlier release makes the
    composition adaptive in its parameters (privacy filters, not advanced composition)."""
    claim, _, _ = check(chain("M[DP(0.17), 0.001]", branch=True))
    assert claim.verdict != VERIFIED


def test_a_cost_that_mentions_an_earlier_output_is_not_composed_so():
    claim, _, _ = check(chain("M[DP(0.17), 0.001]", step="lapMech (0.01, count db + x0)"))
    assert claim.verdict != VERIFIED


def test_the_kernel_refuses_advanced_composition_after_a_branch_on_an_output(monkeypatch):
    """A builder that forgets the path's history (no outputs tracked) composes the branched
    chain by S-M-Adv; the kernel, which tracks them itself, refuses the certificate."""
    text = chain("M[DP(0.17), 0.001]", branch=True)
    with monkeypatch.context() as patch:
        patch.setattr(context.Ctx, "produced", lambda self, values: self)
        claims, cert = claims_and_certificate(text)
    assert claims["many"].verdict == VERIFIED, "the simulated bug no longer fools the builder"
    outcome = kernel.check(cert)
    assert not outcome.valid and "earlier output" in outcome.reason, outcome.reason


HELPER = """
val rel :: {l :: bool list | adj (l<1>, l<2>)} -> M[DP(0.01)] {r :: real | =}
let rel db = lapMech (0.01, count db)

val many :: {l :: bool list | adj (l<1>, l<2>)} -> M[DP(0.17), 0.001] {r :: real list | =}
let many db =
""" + "".join(f"  mlet x{i} = rel db in\n" for i in range(K)) + \
    "  return [" + "; ".join(f"x{i}" for i in range(K)) + "]\n"


def test_the_kernel_refuses_advanced_composition_of_val_calls(monkeypatch):
    """A call's cost is its val's index, a bound in one direction only; a builder that takes
    it for a two-sided step composes the calls by S-M-Adv, and the kernel refuses."""
    real = core_rules.Cost
    with monkeypatch.context() as patch:
        for module in (core_rules, refinements):  # a val's index as a cost: _instantiated_cost
            patch.setattr(module, "Cost", lambda *a, **k: real(*a, **{**k, "two_sided": True}))
        claims, cert = claims_and_certificate(HELPER)
    assert claims["many"].verdict == VERIFIED, "the simulated bug no longer fools the builder"
    outcome = kernel.check(cert)
    assert not outcome.valid and "Laplace releases coupled equal" in outcome.reason, \
        outcome.reason
    assert claims_and_certificate(HELPER)[0]["many"].verdict != VERIFIED


# ---- k-fold composition through a recursion (App-Steps, S-M-Steps) -----------------------------

LOOP = """
let rec releases db (qs : int list) eps = match qs with
  | [] -> return []
  | q :: rest ->
    mlet x = lapMech (eps, count db) in
    mlet r = releases db rest eps in
    return (x :: r)

val many :: {l :: bool list | adj (l<1>, l<2>)} -> {qs :: int list | =} -> {eps :: real+ | =}
         -> M[DP(sqrt (2.0 * K * log 1000.0) * eps + K * eps * (exp eps - 1.0)), 0.001]
            {r :: real list | =}
let many db qs eps = releases db qs eps
"""


def loop(k: str = "length qs", body: str = None) -> str:
    text = LOOP.replace("K", k)
    return text if body is None else text.replace(
        "    mlet x = lapMech (eps, count db) in\n", body)


def test_a_release_loop_is_composed_by_advanced_composition():
    claim, cert, outcome = check(loop())
    assert claim.verdict == VERIFIED, claim.failure
    assert outcome.valid, outcome.reason
    rules = {n["rule"] for n in cert["nodes"]}
    assert {"App-Steps", "S-M-Steps", "S-M-Adv", "LetRec-Induction"} <= rules


@pytest.mark.parametrize("text", [
    loop("(length qs - 1)"),                                  # one step fewer than it makes
    loop(body="    mlet x = lapMech (eps, count db) in\n"     # two releases per element
              "    mlet y = lapMech (eps, count db) in\n"),
    loop().replace("releases db rest eps", "releases db rest (if x > 0.0 then 2.0 * eps "
                   "else eps)"),                              # parameters adapted to outputs
    loop().replace("releases db rest eps", "releases db rest (2.0 * eps)"),
    loop().replace("{qs :: int list | =}", "{qs :: int list | length qs<1> = length qs<2>}"),
])
def test_release_loops_that_are_not_composed_so(text):
    claim, _, outcome = check(text)
    assert outcome.valid, outcome.reason
    assert claim.verdict != VERIFIED


def test_the_kernel_counts_the_steps_of_a_loop_itself(monkeypatch):
    """Simulated builder bug: S-M-Steps without its count; two releases per element pass."""
    from verify_helpers import kernel_refuses
    from verifier.rules.builder import Builder
    text = loop(body="    mlet x = lapMech (eps, count db) in\n"
                     "    mlet y = lapMech (eps, count db) in\n")

    def bug(patch):
        real = Builder.steps_subsumption

        def uncounted(self, ctx, costs, e):  # one release per element, whatever it makes
            ones = sum(1 for c in costs if c.family != "ZERO" and c.count is None)
            bound, count = ctx.claim.steps
            steps = (bound, T.add(T.to_real(count), T.real(ones - 1)) if ones > 1 else count)
            return real(self, replace(ctx, claim=replace(ctx.claim, steps=steps)), costs, e)
        patch.setattr(Builder, "steps_subsumption", uncounted)
    kernel_refuses(monkeypatch, text, "many", bug, "as many steps")


def test_a_release_loop_without_its_derivation_is_refused():
    _, cert, outcome = check(loop())
    assert outcome.valid
    for n in cert["nodes"]:
        if n["rule"] == "App-Steps":
            n["premises"] = n["premises"][1:]
    assert not kernel.check(cert).valid


def test_a_release_loop_charged_as_one_step_is_refused(monkeypatch):
    """Simulated builder bug: the batch's count dropped (one step of eps)."""
    from verify_helpers import kernel_refuses
    text = loop("1.0")

    def bug(patch):
        from verifier.rules.builder import Builder
        real = Builder.advanced_subsumption

        def one_step(self, ctx, costs, e):
            costs = tuple(replace(c, count=None, eps=c.step) if c.count is not None else c
                          for c in costs)
            return real(self, ctx, costs, e)
        patch.setattr(Builder, "advanced_subsumption", one_step)
    kernel_refuses(monkeypatch, text, "many", bug, "advanced composition")
