"""Red-team round 2: soundness bugs found in the newest rules, each with its regression test.

LetRec-Joint read the i-th *flat* argument term of a call as the call's i-th parameter. A call's
symbol flattens its arguments (``calls.flat_terms``: a ``unit`` is no term, a pair two terms), so a
``unit`` parameter before an ``int`` and a pair after it keep the counts equal while shifting the
``int`` onto the pair's first component: the step ``h`` was evaluated at the wrong public
argument, and ``cnt () 0 (0, 0) db - cnt () 1 (0, 0) db`` (the count of 0s minus the count of 1s,
unnoised) was verified ``=`` on adjacent lists — false at ``[0]`` vs ``[1]`` (1 vs -1). Builder
and kernel alike; the fix: the additive shape needs each parameter to be exactly one term.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from checker import kernel
from checker.certify import certificate, dumps
from verifier.aprhl.commands import verify_file as verify_while_file
from verifier.errors import PrivInferError
from verifier.language.parser import parse_program
from verifier.language.typecheck import typecheck_program
from verifier.rules import joint as builder_joint
from verifier.verification import VERIFIED, verify_program
from verify_helpers import joint_shapes, verdicts

ATTACKS = Path(__file__).resolve().parent / "redteam2_attacks"

#: the minimal false program (tests/redteam2_attacks/j01_unit_tuple_misalign.pinf)
MISALIGNED = """
val cnt :: {u :: unit | =} -> {k :: int | =} -> {p :: int * int | =}
        -> {l :: [3] list | adj (l<1>, l<2>)} -> {n :: int | abs (n<1> - n<2>) <= 1}
let rec cnt u k p db = match db with
  | [] -> 0
  | x :: xs -> (if x = k then 1 else 0) + cnt u k p xs

val g :: {l :: [3] list | adj (l<1>, l<2>)} -> {r :: int | =}
let g db = cnt () 0 (0, 0) db - cnt () 1 (0, 0) db
"""


def _report(text: str):
    program = parse_program(text, "rt2.pinf")
    return program, verify_program(program, typecheck_program(program))


def test_the_attack_file_is_the_minimal_program():
    assert MISALIGNED.strip() in (ATTACKS / "j01_unit_tuple_misalign.pinf").read_text()


def test_flattened_arguments_shifted_by_a_unit_and_a_pair_are_not_verified():
    _, report = _report(MISALIGNED)
    assert verdicts(report)["g"] != VERIFIED


def test_parameters_of_more_or_fewer_than_one_term_give_no_shape_in_builder_and_kernel():
    assert joint_shapes(MISALIGNED) == (None, None)
    for typ, arg in (("unit", "()"), ("int * int", "(0, 0)")):
        one = MISALIGNED.replace("{u :: unit | =} -> {k :: int | =} -> {p :: int * int | =}",
                                 f"{{k :: int | =}} -> {{p :: {typ} | =}}")
        one = one.replace("cnt u k p", "cnt k p").replace("cnt () 0 (0, 0)", f"cnt 0 {arg}")
        one = one.replace("cnt () 1 (0, 0)", f"cnt 1 {arg}")
        assert joint_shapes(one) == (None, None), typ
    # a function of scalar parameters keeps its shape (and the true histogram its proof)
    scalar = MISALIGNED.replace("{u :: unit | =} -> ", "").replace("{p :: int * int | =}",
                                                                   "{p :: int | =}")
    scalar = scalar.replace("cnt u k p", "cnt k p").replace("cnt () 0 (0, 0)", "cnt 0 0")
    scalar = scalar.replace("cnt () 1 (0, 0)", "cnt 1 0")
    mine, kernels = joint_shapes(scalar)
    assert mine is not None and kernels is not None and mine.position == 2


def test_the_kernel_refuses_the_certificate_of_a_builder_without_the_fix(monkeypatch):
    """A builder that still reads flat arguments as parameters (its one-term test disabled)
    verifies g; the kernel refuses the LetRec-Joint premise on cnt."""
    monkeypatch.setattr(builder_joint, "leaves", lambda t: [t], raising=False)
    program, report = _report(MISALIGNED)
    assert verdicts(report)["g"] == VERIFIED  # the old, unsound verdict
    cert = json.loads(dumps(certificate(report, program.source, program.file)))
    assert any(n["rule"] == "LetRec-Joint" for n in cert["nodes"])
    outcome = kernel.check(cert)
    assert not outcome.valid and "not additive" in outcome.reason, outcome.reason


# ---- every attack of the round stays unverified ----------------------------------------------

#: the attacked claim of each functional attack (the helpers' own vals may be true)
ATTACKED = {"j01_unit_tuple_misalign": "g", "j02_same_category_twice": "histogram",
            "j03_weight_unbounded": "histogram", "j04_false_val": "g",
            "j05_private_category": "histogram", "j06_tail_list": "histogram",
            "j07_two_funcs_one_list": "histogram", "j08_step_reads_length": "bad",
            "j09_adj_redefined": "histogram", "j10_adj_redefined_between": "histogram",
            "j11_alias_helper": "histogram", "j12_seven_bins": "histogram",
            "j13_redefined_function": "histogram", "j14_dist_param": "g",
            "j15_weight_out_of_range": "histogram"}


def test_every_functional_attack_names_its_attacked_claim():
    assert sorted(p.stem for p in ATTACKS.glob("*.pinf")) == sorted(ATTACKED)


@pytest.mark.parametrize("name", sorted(ATTACKED))
def test_no_attack_on_the_joint_rule_is_verified(name):
    program = parse_program((ATTACKS / f"{name}.pinf").read_text(), f"{name}.pinf")
    claims = {c.name: c.verdict for c in verify_program(program, typecheck_program(program)).claims}
    assert claims[ATTACKED[name]] != VERIFIED, (name, claims)


@pytest.mark.parametrize("path", sorted(ATTACKS.glob("*.pwhile")), ids=lambda p: p.stem)
def test_no_attack_on_the_while_language_is_verified(path):
    try:
        reports, _ = verify_while_file(str(path))
    except PrivInferError:  # refused before verification: the guarantee names a private parameter
        assert path.stem == "a08_private_budget"
        return
    assert reports and all(r.verdict != VERIFIED for r in reports), path.name
