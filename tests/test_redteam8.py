"""Red-team round 8 (tests/redteam8_attacks/README.md): the attacked claims of the round's
programs stay unverified, the true probes keep their verdict (or, when the rules cannot prove
them, are never refuted), the kernel refuses every forged certificate of ``forge.py``, and the
observations of the round are fixed and pinned: ``run`` refuses a release on arguments outside
the conditions a claim states of one run (p15, w09: R013), and a false Laplace claim at a
non-dyadic scale is refuted (p32, p01, p09: the scales compared exactly). No claim was found
verified while false and no forgery was accepted, so there is no xfail."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from verify_helpers import functional_attack_not_verified, privinfer, while_attack_not_verified, load_module

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


FORGE = load_module(ATTACKS / "forge.py", "redteam8_forge")


@pytest.mark.parametrize("name", sorted(FORGE.FORGERIES))
def test_every_forged_certificate_is_refused(name):
    cert, why = FORGE.forge(name)
    valid, reason = FORGE.check(cert)
    assert not valid, (name, why)


def test_run_refuses_to_release_outside_the_refinement_it_was_verified_under():
    """p15 is verified for k in [0, 1] ("for k >= 0.0 and k <= 1.0"): a release at k = 10^6
    is refused (R013, at the conjunct), one at k = 1/2 is made, and a seeded run (not a
    release) is evaluated with a warning."""
    path = ATTACKS / "p15_refinement_range_not_checked_by_run.pinf"
    out = privinfer("run", path, "main", "--arg", "l=[true]", "--arg", "k=1000000", "--arg", "eps=1")
    assert out.returncode == 2 and "error[R013]" in out.stderr and "k<1> <= 1.0" in out.stderr
    assert "Traceback" not in out.stderr and out.stdout == ""
    out = privinfer("run", path, "main", "--arg", "l=[true]", "--arg", "k=0.5", "--arg", "eps=1", "--json")
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["releasable"] is True
    out = privinfer("run", path, "main", "--arg", "l=[true]", "--arg", "k=1000000", "--arg", "eps=1",
                    "--seed", "1")
    assert out.returncode == 0 and "outside the claim of main" in out.stderr


def test_run_refuses_data_outside_a_while_precondition():
    """w09 is verified for lists of size 2 whose first entry is 0 in each run: other data has
    no neighbour the guarantee speaks of, and its raw d[0] is not released."""
    path = ATTACKS / "w09_onesided_pins_raw_release.pwhile"
    for data, condition in (("[5, 0]", "d<1>[0] = 0"), ("[0, 7, 1]", "size d<1> = 2")):
        out = privinfer("run", path, "Pinned", "--arg", f"d={data}", "--arg", "eps=1")
        assert out.returncode == 2 and "error[R013]" in out.stderr and condition in out.stderr, out.stderr
    out = privinfer("run", path, "Pinned", "--arg", "d=[0, 7]", "--arg", "eps=1")
    assert out.returncode == 0 and out.stdout.strip() == "0.0", out.stdout


@pytest.mark.parametrize("stem", ["p32_nondyadic_scale_not_refuted", "p01_index_constant_rebound_before_def",
                                  "p09_pi_shadowed_in_index"])
def test_a_plainly_false_laplace_claim_at_a_non_dyadic_scale_is_refuted(stem):
    """Two Laplace releases at a scale such as 1/3 (no exact ball) were not compared: their
    scales are now compared exactly (``refutation._exact_order``)."""
    from verifier.language.parser import parse_program
    from verifier.language.typecheck import typecheck_program
    from verifier.verification import verify_program
    path = ATTACKS / f"{stem}.pinf"
    program = parse_program(path.read_text(), path.name)
    report = verify_program(program, typecheck_program(program))
    assert [c.verdict for c in report.claims][-1] == "refuted"
