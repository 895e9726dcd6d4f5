"""What runs is what was verified (issue 15): the issue's examples, end to end.

Each example is either rejected, or verified with ``privinfer audit`` confirming the claim
under the exact semantics, and a verified program's ``run`` never stops with an error.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from checker.kernel import check
from obligations import schemas as S
from obligations import terms as T
from obligations import vocabulary as V
from verifier.audit import HOLDS
from verifier.claim_audit import audit_program
from verifier.cli import main
from verify_helpers import claims_and_certificate

SQRT = """
val main :: {l :: bool list | adj (l<1>, l<2>)} -> M[DP(0.1)] {r :: bool | =}
let main db = return (count db * (sqrt 2.0 * sqrt 2.0 - 2.0) > 0.0)
"""
EXP_LOG = """
val main :: {l :: bool list | adj (l<1>, l<2>)} -> M[DP(0.1)] {r :: bool | =}
let main db = return (count db * (exp (log 3.0) - 3.0) > 0.0)
"""
# exp (1000 count db) overflowed a float for some inputs and not for their neighbours
EXP_BIG = """
val main :: {l :: bool list | adj (l<1>, l<2>)} -> M[DP(0.1)] {r :: bool | =}
let main db = return (exp (1000.0 * count db) > 0.0)
"""
GAUSS_TINY_EPS = """
val main :: {l :: real list | adjWithin (l<1>, l<2>, 1.0)} -> M[DP(1e-400), 0.5] {r :: real | =}
let main db = gaussMech (1e-400, 0.5, sum db)
"""
ADJWITHIN_NEGATIVE = """
val release :: {l :: real list | adjWithin (l<1>, l<2>, 0.0 - 1.0)} -> {w :: real | true}
            -> {eps :: real+ | =} -> M[DP(eps)] {r :: real | =}
let release db w eps = lapMech (eps, sum db + w)
"""
ROOT = Path(__file__).resolve().parent.parent
SUM_LAPLACE = """
val release :: {l :: real list | adjWithin (l<1>, l<2>, 2.0)} -> {eps :: real+ | =}
            -> M[DP(2.0 * eps)] {r :: real | =}
let release db eps = lapMech (eps, sum db)
"""


def write(tmp_path: Path, text: str) -> str:
    path = tmp_path / "example.pinf"
    path.write_text(text)
    return str(path)


def cli(capsys, *argv: str):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("text", [SQRT, EXP_LOG, EXP_BIG], ids=["sqrt", "exp-log", "exp-1000"])
def test_decisions_on_exact_reals_are_decided_exactly_but_not_verified(tmp_path, capsys, text):
    """The exact semantics decides these comparisons (the audit finds no loss), but each is a
    comparison of an irrational number with private data, which the Decidable condition
    rejects (V010: docs/reals.md, tests/test_decidable.py): the verifier does not rely on
    ``run`` deciding a comparison it cannot always decide."""
    path = write(tmp_path, text)
    assert cli(capsys, "verify", path)[1].count("error[V010]") == 1
    result = audit_program(path, "main", 3)
    assert result.claim.verifier == "unknown" and result.claim.status == HOLDS
    assert result.loss == 0.0
    assert result.precision == "exact"


def test_the_sqrt_example_releases_false_for_every_input(tmp_path, capsys):
    path = write(tmp_path, SQRT)
    for db in ("[]", "[true]", "[true; false; true]"):
        assert cli(capsys, "run", path, "main", "--arg", f"db={db}", "--dist") == \
            (0, "bernoulli(0.0)\n", "")


def test_a_verified_gauss_mech_with_a_tiny_eps_runs(tmp_path, capsys):
    path = write(tmp_path, GAUSS_TINY_EPS)
    assert cli(capsys, "verify", path)[0] == 0
    code, out, err = cli(capsys, "run", path, "main", "--arg", "db=[1.0; 2.0]", "--seed", "1",
                         "--json")
    assert code == 0, err
    value = json.loads(out)["value"]
    # the noise has a standard deviation of about 1.35e400: a finite number beyond floats,
    # given as text in JSON
    assert isinstance(value, str) and "e+" in value and 350 < abs(int(value.split("e+")[1])) < 450


def test_sigma_with_a_tiny_eps_is_a_finite_real(tmp_path, capsys):
    path = write(tmp_path, "let s = sigma (1e-400, 0.5)\nlet big = exp 1000.0\n")
    assert cli(capsys, "run", path, "s") == (0, "1.3537287260556711e+400\n", "")
    assert cli(capsys, "run", path, "big") == (0, "1.9700711140170470e+434\n", "")


def test_a_negative_adjwithin_bound_no_longer_proves_anything(tmp_path):
    claims, _ = claims_and_certificate(ADJWITHIN_NEGATIVE)
    assert claims["release"].verdict != "verified"
    claims, cert = claims_and_certificate(SUM_LAPLACE)
    assert claims["release"].verdict == "verified"
    assert check(cert).valid


def test_the_kernel_states_the_corrected_adjwithin_axiom(monkeypatch):
    """A verifier with the old, false axiom ``|sum l1 - sum l2| <= c`` verifies the false
    claim of ``adjwithin_negative_bound``; its certificate is refused: the kernel states its
    own obligations, with the corrected schema."""
    fixed = S.SCHEMAS["adjwsum"]

    def old(l1, l2, c):
        return T.implies(V.adj_within(l1, l2, c), T.le(T.abs_(T.sub(V.total(l1), V.total(l2))), c))

    text = (ROOT / "benchmarks/programs/unsound/adjwithin_negative_bound.pinf").read_text()
    monkeypatch.setitem(S.SCHEMAS, "adjwsum", S.Schema(fixed.name, fixed.lemmas, fixed.statement, old))
    monkeypatch.setattr(S, "ADJW_SUM", S.SCHEMAS["adjwsum"])
    S._instance_or_none.cache_clear()
    S._INSTANTIATED.clear()  # the axioms memoised per tuple of terms, made with the fixed schema
    import verifier.verification as verification
    assert claims_and_certificate(text)[0]["release"].code == "V011"  # the belt: vacuous
    monkeypatch.setattr(verification, "vacuous", lambda *a, **k: None)  # and without it
    claims, cert = claims_and_certificate(text)
    monkeypatch.undo()
    S._instance_or_none.cache_clear()
    S._INSTANTIATED.clear()
    assert claims["release"].verdict == "verified", "the old axiom no longer fools the builder"
    verdict = check(cert)
    assert not verdict.valid and "not proved" in verdict.reason, verdict.reason


def test_exact_reals_in_json_and_printing(tmp_path, capsys):
    path = write(tmp_path, "let z = sqrt 2.0 * sqrt 2.0 - 2.0\nlet r = sqrt 2.0\n")
    assert cli(capsys, "run", path, "z") == (0, "0.0\n", "")
    code, out, _ = cli(capsys, "run", path, "r", "--json")
    assert json.loads(out)["value"] == 2 ** 0.5
