"""Red-team round 4: the while-language, run against verify, certificates and numbers
(tests/redteam4_attacks/README.md). Every attacked claim stays unverified; the two false
"verified" of the round stay fixed:

* **apRHL kernel, loop hints naming a later draw** (c01): a certificate's loop invariant may
  name any term; one naming the loop's own draw, ``c = 0 \\/ lapgrid (1 / eps, z'16d5) = x<1>``,
  holds on entry (its draw free: any value) and is "preserved" (``x := z``), but at the head of
  the next iteration it says the draw about to be made equals the last one, which made a
  branch releasing ``q`` dead in the logic. The kernel now refuses hints (invariants,
  variants) that mention anything but the state at the loop's head (``checker.aprhl``).
* **LapMech-Shift ignored the grid** (y08, and, while the grid grew with the scale, y10 and
  the shipped ``gap`` of GapSVT at a tiny ``e``): the general Lap rule made run 2's release
  run 1's plus the shift, but ``run`` releases the draw rounded to the grid of the scale,
  which a non-integer shift does not preserve (disjoint supports: infinite loss). Both builder
  and kernel now assume only what the rounding preserves (``obligations.released``), and the
  grid is capped at 1 (``noise.MAX_GRID_EXPONENT``) so that integer shifts are preserved at
  every scale: y10's claim is now true (and verified), y08's stays unverified.
"""
from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

from checker import aprhl as aprhl_kernel
from checker.aprhl_certify import certificate
from verifier.aprhl.commands import verify_file as verify_while_file
from verify_helpers import while_attack_not_verified
from verifier.language import whilelang as W
from verifier.language.parser import parse_program
from verifier.language.typecheck import typecheck_program
from verifier.verification import VERIFIED, verify_program

ATTACKS = Path(__file__).resolve().parent / "redteam4_attacks"
ROOT = Path(__file__).resolve().parent.parent

#: probes whose claims are true (or not shown false): not must-fail
PROBES = {"x02_mod_negative", "y02_bernoulli_half", "y04_normal_int", "c02_loop_draws_twin",
          "y09_integer_shift_twin", "y10_integer_shift_tiny_eps"}
#: probes of true claims the verifier leaves unknown (no assertion on the verdict)
OPEN = {"y01_infer_ran_equals", "y03_infer_equals_itself", "y05_bern_one"}
#: refused before verification (a type error, T001/T002/T013)
REFUSED = {"x03_assign_pub_param", "x04_budget_local", "x05_pre_local", "x07_uninit_return",
           "x08_adj_self", "x09_adj_other_list", "x13_int_return_real",
           "x14_bool_list_of_reals", "x15_duplicate_proc"}


def _load_forger():
    spec = importlib.util.spec_from_file_location("c01_forge", ATTACKS / "c01_forge.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _certificate(path: Path) -> dict:
    prog = W.parse_while_file(str(path))
    reports, _ = verify_while_file(str(path))
    return json.loads(json.dumps(certificate(prog, reports, str(path))))


@pytest.mark.parametrize("path", sorted(ATTACKS.glob("*.pwhile")), ids=lambda p: p.stem)
def test_no_while_attack_is_verified(path):
    while_attack_not_verified(path, REFUSED, PROBES)


@pytest.mark.parametrize("path", sorted(ATTACKS.glob("*.pinf")), ids=lambda p: p.stem)
def test_no_functional_attack_is_verified(path):
    program = parse_program(path.read_text(), path.name)
    claims = {c.name: c.verdict for c in verify_program(program, typecheck_program(program)).claims}
    if path.stem in OPEN:
        return
    if path.stem in PROBES:
        assert claims and all(v == VERIFIED for v in claims.values()), (path.name, claims)
    else:
        assert claims and all(v != VERIFIED for v in claims.values()), (path.name, claims)


# ---- the apRHL kernel: loop hints speak of the head's state only --------------------------------

def test_a_loop_invariant_naming_the_next_draw_is_refused():
    honest = _certificate(ATTACKS / "c01_invariant_names_next_draw.pwhile")
    assert honest["claims"][0]["verdict"] != VERIFIED
    forged = _load_forger().forge(honest)
    outcome = aprhl_kernel.check(forged)
    assert not outcome.valid
    assert "z'16d5" in outcome.reason and "head" in outcome.reason


def test_a_variant_naming_the_next_draw_is_refused():
    forged = _load_forger().forge(_certificate(ATTACKS / "c01_invariant_names_next_draw.pwhile"))
    loop = forged["claims"][0]["loops"][0]
    inv = aprhl_kernel._terms(loop["invariants"])[:-1]     # without the invariant on the draw
    loop["invariants"]["terms"] = loop["invariants"]["terms"][:len(inv)]
    from obligations import terms as T
    variant = aprhl_kernel._terms(loop["variant"])[0]
    z = T.var("z'16d5", T.REAL)
    bad = T.add(variant, T.sub(T.ite(T.eq(z, 0), T.integer(0), T.integer(0)), T.integer(0)))
    loop["variant"] = {"vocabulary": T.vocabulary_of(bad).to_json(),
                       "terms": [T.term_to_json(bad)], "text": [T.pretty(bad)]}
    outcome = aprhl_kernel.check(forged)
    assert not outcome.valid and "z'16d5" in outcome.reason


def test_the_twin_without_the_leak_is_verified_and_its_certificate_valid():
    cert = _certificate(ATTACKS / "c02_loop_draws_twin.pwhile")
    assert cert["claims"][0]["verdict"] == VERIFIED
    assert aprhl_kernel.check(cert).valid


# ---- LapMech-Shift: the releases are rounded to the grid of their scale ---------------------------

def _old_release_model(patch):
    """The builder before the fix: run 2's release is run 1's plus the shift, outright."""
    from obligations import terms as T
    from verifier.rules import mechanism_rules
    patch.setattr(mechanism_rules, "shifted_release_facts",
                  lambda x1, x2, k: [T.eq(x2, T.add(x1, k))])


@pytest.mark.parametrize("name", ["y08_noise_identity_written"])
def test_the_kernel_refuses_the_shift_that_ignores_the_grid(monkeypatch, name):
    from verify_helpers import kernel_refuses
    kernel_refuses(monkeypatch, (ATTACKS / f"{name}.pinf").read_text(), "main",
                   _old_release_model, "equal in both runs")


def test_what_a_shifted_release_is_known_to_be():
    from obligations import terms as T
    from obligations.released import shifted_release_facts
    x1, x2, k = (T.var(n, T.REAL) for n in ("x1", "x2", "k"))
    facts = shifted_release_facts(x1, x2, k)
    assert T.eq(x2, T.add(x1, k)) not in facts
    # monotone, and an integer translation (the grid divides 1)
    assert T.implies(T.le(k, T.real(0)), T.le(x2, T.add(x1, T.real(0)))) in facts
    assert T.implies(T.ge(k, T.real(1)), T.ge(x2, T.add(x1, T.real(1)))) in facts


def test_the_grid_is_what_the_facts_assume():
    from fractions import Fraction
    from verifier.semantics.noise import grid
    for scale in (Fraction(2 ** 40) - 1, Fraction(2 ** 42), Fraction(10) ** 50):
        assert Fraction(1) % grid(scale) == 0
    assert grid(Fraction(2 ** 42)) == 1


def test_y10_releases_the_same_value_on_both_inputs_at_a_tiny_eps():
    """y10 at e = 2^-42: with the grid capped at 1, z - count db is the draw rounded, whatever
    count db is (the same seed gives the same draw: the coupling of the claim). With the grid
    of 4 the scale had before, the outputs were 0 mod 4 against 3 mod 4."""
    from fractions import Fraction
    from verify_helpers import privinfer

    def out(db: str) -> Fraction:
        r = privinfer("run", ATTACKS / "y10_integer_shift_tiny_eps.pinf", "main", "--arg",
                      f"db={db}", "--arg", "e=1.0 / 4398046511104.0", "--seed", "1")
        assert r.returncode == 0, r.stderr
        return Fraction(r.stdout.strip().splitlines()[-1])

    assert out("[false]") == out("[true]")
    assert out("[false]").denominator == 1


def test_the_audit_does_not_call_a_release_off_its_grid_a_release():
    """``z - sum db`` of y08 releases the rounded draw minus a centre: on ``[1e-13]`` off the
    grid, a law ``Noise`` cannot describe (the audit said "holds, loss 0" of two disjoint
    supports; now R003, not judged). Minus a whole number of grid steps it is still judged."""
    from verify_helpers import privinfer

    def audit(values: str):
        return privinfer("audit", ATTACKS / "y08_noise_identity_written.pinf", "main", "--n", "1",
                         "--values", values, "--no-verify")

    off = audit("0,0.0000000000001")
    assert off.returncode == 2 and "R003" in off.stderr and "holds" not in off.stdout
    whole = audit("0,1")
    assert whole.returncode in (0, 1) and "privacy loss" in whole.stdout, whole.stderr
