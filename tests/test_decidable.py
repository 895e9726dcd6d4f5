"""The Decidable condition of Safety (docs/verifier.md, docs/reals.md): every decision
``privinfer run`` makes on reals that may depend on private data is made on rationals (which it
always decides) or on public values both runs share (which it decides alike, R011 included).

Before it, a program whose run stops with R011 ("a comparison of real numbers could not be
decided") on one database and releases on its neighbour was verified: a run-time error is an
observable output. The must-fail programs are ``benchmarks/programs/unsound/decidable_*.pinf``
(each written differently: sqrt, exp / log, tv, hellinger, a divisor, abs / max, a helper val, a
val's contract, a local function, a public comparison under a private branch, lists and tuples);
the must-pass ones below compare counts, releases, draws of beta, rational inputs and public
parameters. The kernel re-derives the condition on its own (``checker.decidable``) and refuses a
certificate of a violating program that a buggy builder verified.
"""
from __future__ import annotations

import ast as pyast
import re
from pathlib import Path

import pytest

from checker import kernel
from verifier.cli import main
from verifier.verification import VERIFIED
from verify_helpers import claims_and_certificate

ROOT = Path(__file__).resolve().parent.parent
UNSOUND = ROOT / "benchmarks" / "programs" / "unsound"
MUST_FAIL = sorted(UNSOUND.glob("decidable_*.pinf"))

ADJ = "{l :: bool list | adj (l<1>, l<2>)}"
EPS = "{eps :: real+ | =}"

#: (name, program): every claim verified, the kernel agrees, Decidable obligations shown
MUST_PASS = [
    ("counts", f"val main :: {ADJ} -> {EPS} -> M[DP(eps)] {{r :: real | =}}\n"
               "let main db eps = lapMech (eps, if count db >= 3 then 1.0 else 0.0)\n"),
    ("count-against-length",
     f"val main :: {ADJ} -> {EPS} -> M[DP(eps)] {{r :: real | =}}\n"
     "let main db eps = lapMech (eps, if 2 * count db > length db then count db else count db)\n"),
    ("release-compared", f"val main :: {ADJ} -> {EPS} -> M[DP(eps)] {{r :: bool | =}}\n"
     "let main db eps = mlet z = lapMech (eps, count db) in return (z > 10.0 && abs z < 100.0)\n"),
    ("release-against-beta-draw",
     f"val main :: {ADJ} -> {EPS} -> M[DP(eps)] {{r :: bool | =}}\n"
     "let main db eps =\n  mlet p = ran (beta (2.0, 2.0)) in\n"
     "  mlet z = lapMech (eps, count db) in return (z * p > max (p, 0.5))\n"),
    ("public-eps-irrational", f"val main :: {ADJ} -> {EPS} -> M[DP(eps)] {{r :: real | =}}\n"
     "let main db eps = lapMech (eps, if sqrt eps > 1.0 then count db else count db)\n"),
    ("rational-input", f"val main :: {ADJ} -> {{x :: real | =}} -> M[DP(1.0)] {{r :: real | =}}\n"
     "let main db x = lapMech (1.0, if x * count db > 2.0 then count db else count db)\n"),
    ("tuple-of-rationals", f"val main :: {ADJ} -> M[DP(1.0)] {{r :: real | =}}\n"
     "let main db = lapMech (1.0, if (count db / 2.0, 1.0) = (2.0, 1.0) then 0.0 else 0.0)\n"),
    ("helper-contract-met",
     "val ok :: {x :: real | true} -> {r :: real | r<1> = 0.0 /\\ r<2> = 0.0}\n"
     "let ok x = if x > 1.5 then 0.0 else 0.0\n\n"
     f"val main :: {ADJ} -> M[DP(1.0)] {{r :: real | =}}\n"
     "let main db = lapMech (1.0, count db + ok (count db / 3.0))\n"),
    ("helper-draws-rational-in-both-branches",
     f"val noisy :: {ADJ} -> {EPS} -> M[DP(eps)] {{c :: real | =}}\n"
     "let noisy db eps = mlet z = lapMech (eps, count db) in "
     "if z > 0.0 then return z else return 0.0\n\n"
     f"val main :: {ADJ} -> {EPS} -> M[DP(eps)] {{b :: bool | =}}\n"
     "let main db eps = mlet c = noisy db eps in return (c > 3.5)\n"),
    ("recursive-helper",
     "val clip :: {l :: real list | =} -> {r :: real list | =}\n"
     "let rec clip l = match l with\n  | [] -> []\n"
     "  | x :: xs -> (if x > 1.0 then 1.0 else if x < 0.0 then 0.0 else x) :: clip xs\n\n"
     f"val main :: {ADJ} -> {{q :: real list | =}} -> M[DP(1.0)] {{r :: real | =}}\n"
     "let main db q = lapMech (1.0, count db + 0.0 * sum (clip q))\n"),
]


def _diagnostics(text: str):
    return re.findall(r"^\s*(\S+):(\d+):(\d+): error\[(V\d+)\]", text, re.M)


@pytest.mark.parametrize("path", MUST_FAIL, ids=lambda p: p.stem)
def test_a_decision_the_run_may_not_make_is_not_verified(path, capsys):
    """Each must-fail program: its entry is not verified, with V010 at the decision (file,
    line, column) — or V009 where it relies on a helper val that V010 leaves unknown."""
    assert main(["verify", str(path)]) != 0
    out = capsys.readouterr().out
    found = _diagnostics(out)
    assert any(code == "V010" for _, _, _, code in found), out
    assert re.search(r"^\s+main\s+(unknown|refuted)", out, re.M), out
    assert "Traceback" not in out


def test_the_class_is_real_run_stops_on_one_database_only(tmp_path, capsys):
    """Why the condition: the tv program (verified before) stops with R011 on [true] and
    releases on [false]; a stop is an output."""
    path = UNSOUND / "decidable_tv_equal_branches.pinf"
    assert main(["run", str(path), "main", "--arg", "db=[false]", "--seed", "1"]) == 0
    capsys.readouterr()
    assert main(["run", str(path), "main", "--arg", "db=[true]", "--seed", "1"]) == 2
    assert "R011" in capsys.readouterr().err


@pytest.mark.parametrize("name, text", MUST_PASS, ids=[m[0] for m in MUST_PASS])
def test_rational_and_public_decisions_are_verified(name, text):
    claims, cert = claims_and_certificate(text)
    for claim in claims.values():
        assert claim.verdict == VERIFIED, (claim.name, claim.failure)
    outcome = kernel.check(cert)
    assert outcome.valid, outcome.reason
    rules = {ob.provenance.rule for ob in outcome.obligations}
    assert "Decidable" in rules, rules


def test_the_decidable_obligations_are_shown_in_the_derivation():
    claims, _ = claims_and_certificate(dict(MUST_PASS)["release-compared"])
    described = [ob.provenance.description for ob in claims["main"].obligations
                 if ob.provenance.rule == "Decidable"]
    assert any("the comparison z > 10.0" in d and "rational" in d for d in described), \
        described
    assert any("the sign test of abs" in d for d in described), described
    assert any("the range check of the epsilon of lapMech" in d for d in described), described
    # integers need no decision of reals: count db >= 3 is not among them
    claims, _ = claims_and_certificate(dict(MUST_PASS)["counts"])
    assert not any("count db >= 3" in ob.provenance.description
                   for ob in claims["main"].obligations if ob.provenance.rule == "Decidable")


# ---- the kernel on its own --------------------------------------------------------------------

def _accept_everything(patch) -> None:
    """A builder bug: its Decidable condition accepts every decision and every call."""
    from verifier.rules import decidable as builder_side

    def judge(self, safety, ctx, operands, what, span, guard=None):
        return None

    patch.setattr(builder_side.Decidability, "judge", judge)
    patch.setattr(builder_side.Decidability, "require_rational",
                  lambda self, tags, what, span: None)


@pytest.mark.parametrize("name", ["tv_equal_branches", "public_under_private_branch",
                                  "helper_val_rational_contract", "max_sign_test",
                                  "recursive_val_contract", "tuple_of_draws"])
def test_the_kernel_refuses_what_a_builder_without_the_condition_verifies(monkeypatch, name):
    text = (UNSOUND / f"decidable_{name}.pinf").read_text()
    with monkeypatch.context() as patch:
        _accept_everything(patch)
        claims, cert = claims_and_certificate(text)
    assert claims["main"].verdict == VERIFIED, "the simulated bug no longer fools the builder"
    outcome = kernel.check(cert)
    assert not outcome.valid, "the kernel accepted a program whose run may stop on one input"
    assert "Decidable" in outcome.reason or "rational" in outcome.reason, outcome.reason
    claims, _ = claims_and_certificate(text)  # the builder, fixed, refuses
    assert claims["main"].verdict != VERIFIED


def test_the_kernel_shares_no_code_of_the_builders_condition():
    """checker/ imports nothing of verifier.rules (the kernel's condition is its own walk);
    the pure classifier it shares lives in obligations/."""
    for path in (ROOT / "checker").glob("*.py"):
        tree = pyast.parse(path.read_text())
        for node in pyast.walk(tree):
            names = []
            if isinstance(node, pyast.ImportFrom) and node.module:
                names = [node.module]
            elif isinstance(node, pyast.Import):
                names = [a.name for a in node.names]
            for name in names:
                assert not name.startswith(("verifier.rules", "verifier.verification",
                                            "verifier.semantics")), (path.name, name)
    source = (ROOT / "obligations" / "decidable.py").read_text()
    assert "import verifier" not in source and "from verifier" not in source


# ---- run checks the inputs the condition relies on ------------------------------------------

PASS_REAL_INPUT = dict(MUST_PASS)["rational-input"]


@pytest.mark.parametrize("value", ["sqrt 2.0", "pi", "exp 1.0", "log 3.0"])
def test_run_refuses_an_irrational_real_input(tmp_path, capsys, value):
    path = tmp_path / "p.pinf"
    path.write_text(PASS_REAL_INPUT)
    code = main(["run", str(path), "main", "--arg", "db=[true]", "--arg", f"x={value}",
                 "--seed", "1"])
    err = capsys.readouterr().err
    assert code == 2, err
    assert "error[U002]" in err and "not a rational number" in err and "hint:" in err, err
    assert "Traceback" not in err


@pytest.mark.parametrize("value, arg", [
    ("ran (normal (0.0, 1.0))", "prior"), ("ran (beta (sqrt 2.0, 1.0))", "prior"),
    ("[0.5; sqrt 2.0]", "q")])
def test_run_refuses_irrational_parts_of_inputs(tmp_path, capsys, value, arg):
    path = tmp_path / "p.pinf"
    path.write_text("let main (prior : M[real]) (q : real list) = "
                    "mlet x = prior in return (x + sum q)\n")
    code = main(["run", str(path), "main", "--arg",
                 f"prior={value if arg == 'prior' else 'ran (beta (2.0, 3.0))'}",
                 "--arg", f"q={value if arg == 'q' else '[0.5]'}", "--seed", "1"])
    err = capsys.readouterr().err
    assert code == 2 and "error[U002]" in err, err


@pytest.mark.parametrize("value", ["1.5", "1.0 / 3.0", "2", "1e-300"])
def test_run_takes_rational_real_inputs(tmp_path, capsys, value):
    path = tmp_path / "p.pinf"
    path.write_text(PASS_REAL_INPUT)
    code = main(["run", str(path), "main", "--arg", "db=[true]", "--arg", f"x={value}",
                 "--seed", "1"])
    assert code == 0, capsys.readouterr().err
