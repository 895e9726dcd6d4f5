"""Issue 23 ([couplings]): AboveThreshold written as users write it, returning the index of the
first query above the noisy threshold (benchmarks/programs/couplings/above_threshold_index*.pinf).

Case-Output needs the outputs of the branches of ``if x >= t then return i else first rest t
eps (i + 1)`` disjoint: the else branch outputs what the recursive call returns, the base
value or at least ``i + 1`` — a one-run fact of the helper's outputs relative to its counter
(``invariants.counter_support``), stated from the source by the builder and the kernel alike
and proved by induction on the helper's definition. Programs that must verify (the kernel
checks their certificates), twins that must not, and simulated builder bugs whose
certificates the kernel refuses on its own (docs/verifier.md, "Couplings")."""
from __future__ import annotations

from pathlib import Path

import pytest

from obligations import terms as T
from verifier.language import ast as A
from verifier.language.invariants import counter_support
from verifier.language.parser import parse_program
from verifier.rules import couplings
from verifier.verification import VERIFIED
from verify_helpers import checked, kernel_refuses

ROOT = Path(__file__).resolve().parents[1]
PROGRAMS = ROOT / "benchmarks" / "programs"
INDEX = (PROGRAMS / "couplings" / "above_threshold_index.pinf").read_text()


def test_the_index_of_the_first_query_above_the_threshold_verifies():
    claims, cert = checked(INDEX)
    assert claims["first"].verdict == VERIFIED, claims["first"].failure
    assert claims["aboveIndex"].verdict == VERIFIED, claims["aboveIndex"].failure
    rules = [n["rule"] for n in cert["nodes"] if n["id"].startswith("first/")]
    assert "Case-Output" in rules and "LapMech-Shift" in rules


def test_the_support_fact_is_an_obligation_of_case_output():
    """--explain shows the induction beside the disjointness of the branches."""
    from verifier.language.typecheck import typecheck_program
    from verifier.verification import verify_program
    program = parse_program(INDEX, "index.pinf")
    report = verify_program(program, typecheck_program(program))
    first = next(c for c in report.claims if c.name == "first")
    texts = [ob.provenance.description for ob in first.derivation.all_obligations()]
    assert any("every output of first is -1 or at least its counter i" in t for t in texts)


def test_the_counter_starting_at_one_verifies():
    claims, _ = checked((PROGRAMS / "couplings" / "above_threshold_index_from_one.pinf")
                        .read_text())
    assert all(c.verdict == VERIFIED for c in claims.values())


def test_answers_computed_from_the_data_verify():
    claims, _ = checked((PROGRAMS / "couplings" / "above_threshold_index_data.pinf")
                        .read_text())
    assert all(c.verdict == VERIFIED for c in claims.values())


def test_an_int_counter_is_not_proved():
    """At i = -1 both branches may output -1: Case-Output's split does not apply (the claim
    needs a counter that cannot be the base value: nat, or a refinement)."""
    claims, _ = checked(INDEX.replace("{i :: nat | =}", "{i :: int | =}"))
    assert claims["first"].verdict != VERIFIED


@pytest.mark.parametrize("name", ["above_index_query_noise_too_small",
                                  "above_index_threshold_not_noised",
                                  "above_index_releases_noisy_value",
                                  "above_index_claim_half",
                                  "above_index_counter_not_incremented",
                                  "above_index_answers_two_sensitive"])
def test_the_broken_twins_are_not_verified(name):
    claims, _ = checked((PROGRAMS / "mistakes" / f"{name}.pinf").read_text())
    top = "aboveIndexDb" if "aboveIndexDb" in claims else "aboveIndex"
    assert claims[top].verdict != VERIFIED
    if name not in ("above_index_claim_half", "above_index_threshold_not_noised",
                    "above_index_answers_two_sensitive"):
        assert claims["first"].verdict != VERIFIED


def _decl(text: str, name: str) -> A.LetDecl:
    return parse_program(text, "t.pinf").find_let(name)


def test_the_template_fits_counter_loops_only():
    assert counter_support(_decl(INDEX, "first")).constants == (-1,)
    assert counter_support(_decl(INDEX, "first")).counter == 3
    # a returned value that is neither the counter nor a closed integer: no template
    other = INDEX.replace("return (0 - 1)", "return (i - 1)")
    assert counter_support(_decl(other, "first")) is None
    # a counter decremented: no template
    down = INDEX.replace("first rest t eps (i + 1)", "first rest t eps (i - 1)")
    assert counter_support(_decl(down, "first")) is None


NOT_INCREMENTED = (PROGRAMS / "mistakes" / "above_index_counter_not_incremented.pinf").read_text()


def test_a_support_fact_stronger_than_the_source_is_refused(monkeypatch):
    """A builder that states the fact of an incremented counter where the source passes i
    unchanged (and skips its induction) verifies the twin; the kernel states the fact from the
    source, and the branches' outputs are not disjoint."""
    def bug(patch):
        real = couplings.support_term

        def stronger(s, out, counter):
            return real(s, out, T.add(counter, T.integer(1)))
        patch.setattr(couplings, "support_term", stronger)
        patch.setattr(couplings, "support_inductions", lambda b, ctx, support: [])
    kernel_refuses(monkeypatch, NOT_INCREMENTED, "first", bug, "differ in their discrete part")


LATE = """
let late (j : int) = return (j - 1)

val first :: {qs :: real list | allWithin (qs<1>, qs<2>, 1.0)} -> {t :: real | t<2> = t<1> + 1.0}
          -> {eps :: real+ | =} -> {i :: nat | =} -> M[DP(eps / 2.0)] {r :: int | =}
let rec first qs t eps i = match qs with
  | [] -> late i
  | q :: rest ->
    mlet x = lapMech (eps / 4.0, q) in
    if x >= t then return i else first rest t eps (i + 1)
"""


def test_a_support_fact_used_without_its_induction_is_refused(monkeypatch):
    """The template fits (every return is the counter), but the base case outputs i - 1 by a
    call: the fact is false. A builder that skips the induction verifies; the kernel proves
    the induction itself and refuses."""
    def bug(patch):
        patch.setattr(couplings, "support_inductions", lambda b, ctx, support: [])
    kernel_refuses(monkeypatch, LATE, "first", bug, "at least its counter (induction)")
