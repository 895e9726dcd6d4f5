"""Red-team round 3: attacks on tuples, higher order, Infer, Delta assertions, computation and
distribution parameters, shadowing, partial operations, LetRec-Joint parameter kinds and the
while-language (tests/redteam3_attacks/README.md). No false claim was verified: each stays so.
"""
from __future__ import annotations

from pathlib import Path

import pytest

from verifier.aprhl.commands import verify_file as verify_while_file
from verifier.errors import PrivInferError
from verifier.language.parser import parse_program
from verifier.language.typecheck import typecheck_program
from verifier.verification import VERIFIED, verify_program

ATTACKS = Path(__file__).resolve().parent / "redteam3_attacks"

#: the attacked (false) claims of each functional attack; None: refused before verification
ATTACKED = {
    "k01_helper_scope": ["main"], "k02_abs_shadow_assumption": ["main"],
    "k03_fst_shadow": ["main"], "k04_length_shadow": ["main"],
    "k05_dup_tuple_pattern_a": None, "k06_dup_tuple_pattern_b": None, "k07_dup_params": None,
    "k08_infer_mean": ["main"], "k09_infer_ran_twice": ["main"],
    "k10_delta_param_mean": ["main"], "k11_infer_bound_tv": ["release"],
    "k12_infer_bound_param_mean": ["use", "release"],
    "k13_expmech_score_captures": ["main"], "k14_expmech_score_scaled": ["main"],
    "k15_expmech_candidates_private": ["main"],
    "k17_negative_eps_claim": ["main"], "k18_negative_delta_claim": ["main"],
    "k19_negative_eps_literal": ["main"],
    "k21_comp_param_twice": ["use", "main"], "k22_comp_param_infer": ["use"],
    "k23_comp_param_infer_ran": ["use"], "k24_comp_param_in_fun": ["use"],
    "k25_infer_reads_fun_param": ["g"], "k26_infer_reads_dist_param": ["g"],
    "k27_infer_reads_fun_param_draw": ["g"], "k28_infer_stored_prior_private": ["main"],
    "k29_tuple_second_component": ["main"], "k30_tuple_list_snd": ["cnt"],
    "k31_tuple_swap_pattern": ["f"], "k32_joint_simplex_param": ["main"],
    "k33_joint_realinf_param": ["main"], "k34_fun_type_names_later_param": ["main"],
    "k35_fun_type_names_param_body": ["main"], "k36_fold_fun_sqrt_negative": ["main"],
    "k37_joint_step_divides": ["cnt", "main"], "k39_local_length_shadow": ["main"],
    "k40_local_lapmech_shadow_fun": ["main"],
}
#: probes whose claims are true (or not shown false): not must-fail
PROBES = {"k16_hellinger_jeffreys_param", "k20_shortcircuit", "k38_hellinger_small_prior"}


def test_every_functional_attack_is_listed():
    assert sorted(p.stem for p in ATTACKS.glob("*.pinf")) == sorted(set(ATTACKED) | PROBES)


@pytest.mark.parametrize("name", sorted(ATTACKED))
def test_no_functional_attack_is_verified(name):
    text = (ATTACKS / f"{name}.pinf").read_text()
    if ATTACKED[name] is None:
        with pytest.raises(PrivInferError):
            program = parse_program(text, f"{name}.pinf")
            typecheck_program(program)
        return
    program = parse_program(text, f"{name}.pinf")
    claims = {c.name: c.verdict for c in verify_program(program, typecheck_program(program)).claims}
    for claim in ATTACKED[name]:
        assert claims[claim] != VERIFIED, (name, claims)


@pytest.mark.parametrize("path", sorted(ATTACKS.glob("*.pwhile")), ids=lambda p: p.stem)
def test_no_while_attack_is_verified(path):
    reports, _ = verify_while_file(str(path))
    assert reports and all(r.verdict != VERIFIED for r in reports), path.name
