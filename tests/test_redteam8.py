"""Red-team round 8 (tests/redteam8_attacks/README.md): the attacked claims of the round's
programs stay unverified, the true probes keep their verdict (or, when the rules cannot prove
them, are never refuted), the kernel refuses every forged certificate of ``forge.py``, and the
observations of the round are pinned: ``run`` does not check a val's refinements (p15, w09),
and a false Laplace claim at a non-dyadic scale is left unknown rather than refuted (p32). No
claim was found verified while false and no forgery was accepted, so there is no xfail for a
soundness finding; the two ``xfail`` tests below state the observations as the behaviour one
would want (non-strict: they pass once the behaviour changes)."""
from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

from verify_helpers import functional_attack_not_verified, privinfer, while_attack_not_verified

ATTACKS = Path(__file__).resolve().parent / "redteam8_attacks"

#: true claims, verified
PROBES = {"p02_index_constant_rebound_after_val", "p07_tuple_cross_run_swap_sum",
          "p10_sqrt_shadowed_in_index", "p15_refinement_range_not_checked_by_run",
          "p18_subnormal_literal_scale", "p21_expmech_duplicate_candidates",
          "p23_gauss_delta_near_one", "p26_bernoulli_third_vs_decimal",
          "p27_finite_unit_output"}
WHILE_PROBES = {"w09_onesided_pins_raw_release", "w10_division_by_private_bounded"}
#: true claims the rules leave unknown: never refuted
OPEN = {"p13_rebound_constant_true_unprovable", "p22_gauss_delta_above_one",
        "p30_shift_zero_local", "p31_shift_zero_literal"}
#: refused before verification (a type or binding error)
REFUSED = {"w03_return_inside_branch", "w08_read_before_assign"}
#: files where only some claims are attacked (the others are true helpers)
ATTACKED = {"p11_delta_param_caller_cannot_honour": {"main"},
            "p20_score_val_other_adjacency": {"main"},
            "p29_local_fun_shadows_val": {"main"}}


@pytest.mark.parametrize("path", sorted(ATTACKS.glob("*.pinf")), ids=lambda p: p.stem)
def test_no_functional_attack_is_verified(path):
    functional_attack_not_verified(path, ATTACKED, REFUSED, PROBES, OPEN)


@pytest.mark.parametrize("path", sorted(ATTACKS.glob("*.pwhile")), ids=lambda p: p.stem)
def test_no_while_attack_is_verified(path):
    while_attack_not_verified(path, REFUSED, WHILE_PROBES)


def _forge():
    spec = importlib.util.spec_from_file_location("redteam8_forge", ATTACKS / "forge.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


FORGE = _forge()


@pytest.mark.parametrize("name", sorted(FORGE.FORGERIES))
def test_every_forged_certificate_is_refused(name):
    cert, why = FORGE.forge(name)
    valid, reason = FORGE.check(cert)
    assert not valid, (name, why)


def test_run_releases_outside_the_refinement_it_was_verified_under():
    """Observation (not a false verdict): p15 is verified for k in [0, 1] (the guarantee says
    "for k >= 0.0 and k <= 1.0"), yet ``run`` releases at k = 10^6 as ``releasable``."""
    out = privinfer("run", ATTACKS / "p15_refinement_range_not_checked_by_run.pinf", "main",
                    "--arg", "l=[true]", "--arg", "k=1000000", "--arg", "eps=1", "--json")
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["releasable"] is True


@pytest.mark.xfail(reason="run does not check a val's refinements (p15): a release with "
                          "k = 10^6 outside k <= 1 is neither refused nor flagged", strict=False)
def test_run_should_refuse_arguments_outside_the_verified_refinement():
    out = privinfer("run", ATTACKS / "p15_refinement_range_not_checked_by_run.pinf", "main",
                    "--arg", "l=[true]", "--arg", "k=1000000", "--arg", "eps=1")
    assert out.returncode != 0 or "outside" in out.stderr


@pytest.mark.xfail(reason="refuter: two Laplace releases at a non-dyadic scale (1/3) are "
                          "not compared (arb `b1 <= b2` of equal inexact balls is false), so "
                          "lapMech (3.0, count l) claimed DP(1.0) stays unknown", strict=False)
def test_a_plainly_false_laplace_claim_at_a_non_dyadic_scale_is_refuted():
    from verifier.language.parser import parse_program
    from verifier.language.typecheck import typecheck_program
    from verifier.verification import verify_program
    path = ATTACKS / "p32_nondyadic_scale_not_refuted.pinf"
    program = parse_program(path.read_text(), path.name)
    report = verify_program(program, typecheck_program(program))
    assert [c.verdict for c in report.claims] == ["refuted"]
