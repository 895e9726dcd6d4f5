"""Vacuous claims (docs/verifier.md and docs/aprhl.md, "Vacuous assumptions"; red-team round 5,
second finding): a claim whose assumptions z3 proves unsatisfiable — the refinements of a
val's parameters, or an apRHL precondition — holds of no pair of inputs and says nothing. It
is not verified (unknown, V011, at the claim), and the kernels refuse a certificate that says
it is. Satisfiable assumptions, however unusual (a one-directional shift, equalities only),
keep their verdict. A while-program's guarantee states its precondition, and says which
conditions constrain one run only."""
from __future__ import annotations

import json

import pytest

from checker import aprhl as aprhl_kernel
from checker import kernel
from checker.aprhl_certify import certificate as aprhl_certificate
from checker.certify import certificate, dumps
from verifier.aprhl.commands import verify_file as verify_while_file
from verifier.cli import main
from verifier.language import whilelang as W
from verifier.language.parser import parse_program
from verifier.language.typecheck import typecheck_program
from verifier.verification import UNKNOWN, VERIFIED, verify_program

MESSAGE = "the assumptions relate no two inputs"

# ---- the functional language ------------------------------------------------------------------

VACUOUS_PINF = {
    # by arithmetic: no n<1> is both positive and negative
    "arithmetic": """val f :: {n :: real | n<1> > 0.0 /\\ n<1> < 0.0} -> M[DP(1.0)] {r :: real | =}
let f n = return n
""",
    # by list lengths: adj keeps the length, the claim asks for lengths 2 and 3
    "lengths": """val f :: {l :: bool list | adj (l<1>, l<2>) /\\ length l<1> = 2
                           /\\ length l<2> = 3}
         -> M[DP(1.0)] {r :: real | =}
let f l = return (count l)
""",
    # one run's length both 2 and 3
    "lengths_one_run": """val f :: {l :: real list | length l<1> = 2 /\\ length l<1> = 3}
         -> M[DP(1.0)] {r :: real | =}
let f l = return (sum l)
""",
    # contradictory public equalities: k is equal in both runs, and 1 in run 1, 2 in run 2
    "pub_equalities": """val f :: {k :: real | k<1> = k<2> /\\ k<1> = 1.0 /\\ k<2> = 2.0}
         -> M[DP(1.0)] {r :: real | =}
let f k = return k
""",
    # two public parameters related contradictorily
    "two_pub": """val f :: {a :: int | =}
         -> {b :: int | b<1> = b<2> /\\ b<1> = a<1> + 1 /\\ b<2> = a<2>}
         -> M[DP(1.0)] {r :: int | =}
let f a b = return b
""",
}

SATISFIABLE_PINF = {
    # one-directional shift (the sparse vector helpers' thresholds)
    "shift": """val f :: {t :: real | t<2> = t<1> + 1.0} -> M[DP(1.0)] {r :: real | =}
let f t = lapMech (1.0, t)
""",
    # equalities only
    "equal": """val f :: {x :: real | x<1> = x<2>} -> M[DP(1.0)] {r :: real | =}
let f x = return x
""",
    # a one-run condition with adjacency: satisfiable (lists of length 1 whose run 1 starts at 0)
    "one_run": """val f :: {l :: bool list | adj (l<1>, l<2>) /\\ length l<1> >= 1}
         -> {eps :: real+ | =}
         -> M[DP(eps)] {r :: real | =}
let f l eps = lapMech (eps, count l)
""",
}


def _claims(text: str, name: str = "vacuity.pinf"):
    program = parse_program(text, name)
    return verify_program(program, typecheck_program(program))


@pytest.mark.parametrize("name", sorted(VACUOUS_PINF))
def test_a_vacuous_refinement_is_not_verified(name):
    [claim] = _claims(VACUOUS_PINF[name]).claims
    assert claim.verdict == UNKNOWN and claim.code == "V011", (claim.verdict, claim.failure)
    assert claim.failure.startswith(MESSAGE) and "is unsatisfiable" in claim.failure
    assert "privinfer does not report it verified" in claim.failure
    assert claim.failure_span is not None and claim.failure_span.line == 1


@pytest.mark.parametrize("name", sorted(SATISFIABLE_PINF))
def test_satisfiable_unusual_refinements_stay_verified(name):
    [claim] = _claims(SATISFIABLE_PINF[name]).claims
    assert claim.verdict == VERIFIED, (claim.code, claim.failure)


def test_the_message_names_the_claim_file_line_and_column(tmp_path, capsys):
    path = tmp_path / "v.pinf"
    path.write_text("\n" + VACUOUS_PINF["arithmetic"])
    assert main(["verify", str(path)]) != 0
    out = capsys.readouterr().out
    assert f"{path}:2:1: error[V011]: {MESSAGE}: n<1> > 0.0 /\\ n<1> < 0.0 is unsatisfiable" in out


def test_a_caller_of_a_vacuous_helper_is_not_verified():
    text = VACUOUS_PINF["arithmetic"] + """
val g :: {n :: real | =} -> M[DP(1.0)] {r :: real | =}
let g n = f n
"""
    claims = {c.name: c for c in _claims(text).claims}
    assert claims["f"].code == "V011"
    assert claims["g"].verdict != VERIFIED


def _forged_functional(text: str) -> dict:
    """The honest certificate of ``text`` (its vacuous claim unknown, V011, with the
    derivation that proves it), relabelled verified."""
    program = parse_program(text, "forged.pinf")
    report = verify_program(program, typecheck_program(program))
    cert = json.loads(dumps(certificate(report, program.source, program.file)))
    [claim] = cert["claims"]
    assert claim["verdict"] == "unknown" and claim["code"] == "V011" and claim["root"]
    claim.update(verdict="verified", failure=None, code=None, confirmation=None, disputed=[])
    return cert


@pytest.mark.parametrize("name", ["arithmetic", "pub_equalities"])
def test_the_functional_kernel_refuses_a_vacuous_claim_labelled_verified(name):
    cert = _forged_functional(VACUOUS_PINF[name])
    outcome = kernel.check(cert)
    assert not outcome.valid and MESSAGE in outcome.reason, outcome.reason


def test_the_functional_kernel_refuses_v01_labelled_verified():
    from pathlib import Path
    path = Path(__file__).resolve().parent / "redteam5_attacks" / "v01_vacuous_refinement.pinf"
    outcome = kernel.check(_forged_functional(path.read_text()))
    assert not outcome.valid and MESSAGE in outcome.reason, outcome.reason


def test_the_functional_kernel_accepts_a_satisfiable_one_directional_shift():
    program = parse_program(SATISFIABLE_PINF["shift"], "shift.pinf")
    report = verify_program(program, typecheck_program(program))
    outcome = kernel.check(json.loads(dumps(certificate(report, program.source, program.file))))
    assert outcome.valid, outcome.reason


# ---- the while language -----------------------------------------------------------------------

VACUOUS_PWHILE = {
    "arithmetic": """proc P (n : int) (pub eps : real+) : int
  |- (eps, 0) : n<1> > 0 /\\ n<1> < 0 ==> =
  return n
end
""",
    "sizes": """proc P (d : real list) (pub eps : real+) : real
  |- (eps, 0) : adj (d<1>, d<2>) /\\ size d<1> = 3 /\\ size d<2> = 4 ==> =
  x := d[0];
  return x
end
""",
    "pub_equalities": """proc P (x : real) (pub n : int) (pub eps : real+) : real
  |- (eps, 0) : n = 1 /\\ n = 2 ==> =
  return x
end
""",
}

SATISFIABLE_PWHILE = {
    "shift": """proc P (y : real) (pub eps : real+) : real
  |- (eps, 0) : y<2> = y<1> + 1 ==> =
  z := $ Lap (1 / eps, y);
  return z
end
""",
    "equal": """proc P (q : real) (pub eps : real+) : real
  |- (eps, 0) : q<1> = q<2> ==> =
  return q
end
""",
}


def _while(tmp_path, text: str, name: str = "p.pwhile"):
    path = tmp_path / name
    path.write_text(text)
    reports, _ = verify_while_file(str(path))
    return reports, path


@pytest.mark.parametrize("name", sorted(VACUOUS_PWHILE))
def test_a_vacuous_precondition_is_not_verified(tmp_path, name):
    [r], _ = _while(tmp_path, VACUOUS_PWHILE[name])
    assert r.verdict == "unknown" and r.code == "V011", (r.verdict, r.failure)
    assert r.failure.startswith(MESSAGE) and "is unsatisfiable" in r.failure
    assert r.failure_span is not None and r.failure_span.line == 2


@pytest.mark.parametrize("name", sorted(SATISFIABLE_PWHILE))
def test_satisfiable_unusual_preconditions_stay_verified(tmp_path, name):
    [r], _ = _while(tmp_path, SATISFIABLE_PWHILE[name])
    assert r.verdict == "verified", r.failure


def _forged_while(tmp_path, text: str) -> dict:
    reports, path = _while(tmp_path, text)
    prog = W.parse_while_file(str(path))
    cert = json.loads(json.dumps(aprhl_certificate(prog, reports, str(path))))
    [claim] = cert["claims"]
    assert claim["verdict"] == "unknown"
    claim["verdict"], claim["confirmation"] = "verified", None
    claim["guarantee"] = W.spec_guarantee(prog.proc(claim["name"]))
    return cert


@pytest.mark.parametrize("name", ["arithmetic", "sizes"])
def test_the_while_kernel_refuses_a_vacuous_precondition_labelled_verified(tmp_path, name):
    cert = _forged_while(tmp_path, VACUOUS_PWHILE[name])
    outcome = aprhl_kernel.check(cert)
    assert not outcome.valid and MESSAGE in outcome.reason, outcome.reason


def test_the_while_kernel_refuses_w07_labelled_verified(tmp_path):
    from pathlib import Path
    path = Path(__file__).resolve().parent / "redteam5_attacks" / "w07_vacuous_precondition.pwhile"
    cert = _forged_while(tmp_path, path.read_text())
    outcome = aprhl_kernel.check(cert)
    assert not outcome.valid and MESSAGE in outcome.reason, outcome.reason


# ---- the while language's wording ---------------------------------------------------------------

@pytest.mark.parametrize("pre, params, text", [
    ("adjWithin (d<1>, d<2>, 1)", "(d : real list) (pub eps : real+)",
     "P is (eps, 0)-differentially private with respect to adjWithin (d<1>, d<2>, 1)"),
    ("adjWithin (d<1>, d<2>, 1) /\\ size d<1> = n /\\ n >= 1",
     "(d : real list) (pub n : int) (pub eps : real+)",
     "P is (eps, 0)-differentially private with respect to adjWithin (d<1>, d<2>, 1), for "
     "size d = n and n >= 1"),
    ("adjWithin (d<1>, d<2>, 1) /\\ d<1>[0] = 0", "(d : real list) (pub eps : real+)",
     "P is (eps, 0)-differentially private with respect to adjWithin (d<1>, d<2>, 1), for "
     "d<1>[0] = 0 in run 1 only"),
    ("abs (q<1> - q<2>) <= 1 /\\ q<2> >= 0", "(q : real) (pub eps : real+)",
     "P is (eps, 0)-differentially private with respect to abs (q<1> - q<2>) <= 1, for "
     "q<2> >= 0 in run 2 only"),
    ("adjWithin (d<1>, d<2>, 1)", "(d : real list) (k : real) (pub eps : real+)",
     "P is (eps, 0)-differentially private with respect to adjWithin (d<1>, d<2>, 1) and any "
     "change of k"),
    ("eps >= 1 / 1000", "(pub x : real) (pub eps : real+)",
     "P is (eps, 0)-differentially private when its inputs are equal in both runs, for "
     "eps >= 1 / 1000"),
])
def test_the_while_guarantee_states_the_precondition(pre, params, text):
    proc = W.parse_while(f"proc P {params} : real\n  |- (eps, 0) : {pre} ==> =\n"
                         "  return eps\nend\n", "g.pwhile").procs[0]
    assert W.spec_guarantee(proc) == text


def test_w06_is_verified_with_its_one_run_condition_named():
    from pathlib import Path
    path = Path(__file__).resolve().parent / "redteam5_attacks" / \
        "w06_asymmetric_precondition.pwhile"
    [r], _ = verify_while_file(str(path))
    assert r.verdict == "verified"
    assert r.guarantee == ("Big is (eps, 0)-differentially private with respect to adjWithin "
                           "(d<1>, d<2>, 1), for size d = 1 and d<1>[0] = 0 in run 1 only")


def test_the_while_kernel_checks_the_new_wording(tmp_path):
    reports, path = _while(tmp_path, SATISFIABLE_PWHILE["shift"])
    prog = W.parse_while_file(str(path))
    cert = json.loads(json.dumps(aprhl_certificate(prog, reports, str(path))))
    assert aprhl_kernel.check(cert).valid
    cert["claims"][0]["guarantee"] = "(eps, 0)-DP"  # the old wording, which hid the relation
    outcome = aprhl_kernel.check(cert)
    assert not outcome.valid and "guarantee" in outcome.reason
