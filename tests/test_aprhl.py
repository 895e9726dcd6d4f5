"""The while-language of the course notes (``.pwhile``) and its apRHL derivations
(docs/aprhl.md): syntax and diagnostics, verdicts of the course's programs and of their broken
twins, certificates re-derived by the kernel (and refused when a builder bug or a tampering
weakens them), and ``run``'s exact semantics."""
import functools
import json
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import pytest
from verify_helpers import privinfer

from benchmarks.runner import read_expectation
from checker import aprhl as kernel
from checker.aprhl_certify import certificate
from obligations import terms as T
from verifier.aprhl import derive
from verifier.aprhl import verify as aprhl_verify
from verifier.aprhl.commands import verify_file
from verifier.aprhl.run import Evaluator
from verifier.errors import PrivInferError
from verifier.language import whilelang as W
from verifier.semantics.noise import seeded_source
from verifier.shifts import PointShift

ROOT = Path(__file__).resolve().parents[1]
APRHL = ROOT / "benchmarks" / "programs" / "aprhl"
#: the peers' programs in their natural spellings (``peer_*``) are verified once each by
#: tests/test_aprhl_peers.py
GOOD = sorted(p for p in APRHL.glob("*.pwhile") if not p.name.startswith("peer_"))
BAD = sorted(p for p in (APRHL / "mistakes").glob("*.pwhile") if not p.name.startswith("peer_"))
PEERS = sorted(APRHL.glob("peer_*.pwhile")) + sorted((APRHL / "mistakes").glob("peer_*.pwhile"))
#: the programs proved by the Pointwise rule
POINTWISE = ["above_threshold.pwhile", "report_noisy_max.pwhile", "report_noisy_min.pwhile"]


@functools.lru_cache(maxsize=None)
def _verified(path):
    """``verify_file(path)`` by the unpatched builder, once per test process: the reports and
    whether all are verified (a twin's shift search and refutation search are the slow part)."""
    return verify_file(str(path))


@functools.lru_cache(maxsize=None)
def _certificate_text(path):
    prog = W.parse_while_file(str(path))
    return json.dumps(certificate(prog, _verified(path)[0], str(path)))


def _verified_certificate(path):
    """The certificate (a fresh copy: tests tamper with it) and the reports of ``path``,
    verified once per test process by the unpatched builder."""
    return json.loads(_certificate_text(path)), _verified(path)[0]


def verify_text(tmp_path, text, name="p.pwhile"):
    path = tmp_path / name
    path.write_text(text)
    reports, ok = verify_file(str(path))
    return reports, ok


# ---- syntax ---------------------------------------------------------------------------------

@pytest.mark.parametrize("path", GOOD + BAD + PEERS, ids=lambda p: p.name)
def test_the_printer_round_trips(path):
    prog = W.parse_while_file(str(path))
    again = W.parse_while(W.pretty_while_program(prog), "again")
    assert again.procs == prog.procs


@pytest.mark.parametrize("text, code, where", [
    ("proc F (x : real) : real\n  z := $ Lop (1, x);\n  return z\nend\n", "P005", ":2:10:"),
    ("proc F (x : real) : real\n  z := x +;\n  return z\nend\n", "P005", ":2:11:"),
    ("proc F (x : real) : real\n  z := x\n", "P006", ":3:1:"),
    ("(* open\nproc F (x : real) : real\n", "P003", ":1:1:"),
    ("proc F (x : real) : real\n  z := x<1>;\n  return z\nend\n", "P010", ":2:8:"),
    ("proc F (x : real) : real\n  z := x # 1;\n  return z\nend\n", "P002", ":2:10:"),
    ("proc F (x : real) : real\n  z := y;\n  return z\nend\n", "T001", ":2:8:"),
    ("proc F (x : real) : real\n  z := x && true;\n  return z\nend\n", "T002", ":2:8:"),
    ("proc F (d : real list) : bool\n  z := adj (d, d);\n  return z\nend\n", "T014", ":2:8:"),
    ("proc F (x : real) : real\n  x := 1;\n  return x\nend\n", "T002", ":2:3:"),
    ("proc F (x : real) : real\n  if x > 0 then return x else skip end;\n  return x\nend\n",
     "T002", ":2:17:"),
    ("proc F (x : real) : real\n  lapgrid := x;\n  return x\nend\n", "P005", ":2:3:"),
    ("proc F (at_real : real) : real\n  return at_real\nend\n", "P005", ":1:8:"),
])
def test_input_errors_are_located_diagnostics_exit_2(tmp_path, text, code, where):
    path = tmp_path / "bad.pwhile"
    path.write_text(text)
    result = privinfer("verify", path)
    assert result.returncode == 2, result.stdout + result.stderr
    assert "Traceback" not in result.stderr
    assert f"error[{code}]" in result.stderr and f"{path}{where}" in result.stderr, result.stderr


def test_deep_nesting_is_P007_not_a_crash(tmp_path):
    path = tmp_path / "deep.pwhile"
    path.write_text("proc F (x : real) : real\n  z := " + "(" * 5000 + "x" + ")" * 5000 +
                    ";\n  return z\nend\n")
    result = privinfer("parse", path)
    assert result.returncode == 2 and "error[P007]" in result.stderr
    assert "Traceback" not in result.stderr


def test_parse_and_typecheck_dispatch_on_the_file_kind():
    path = APRHL / "mean.pwhile"
    result = privinfer("parse", path)
    assert result.returncode == 0, result.stderr
    assert W.parse_while(result.stdout, "x").procs == W.parse_while_file(str(path)).procs
    result = privinfer("typecheck", path)
    assert result.returncode == 0
    assert result.stdout.strip() == "Mean : real list -> real -> int -> real"


def test_types_join_int_and_real():
    prog = W.parse_while("proc F (pub n : int) : real\n  s := 0;\n  s := s + 0.5;\n"
                         "  r := [];\n  r := r ++ [s];\n  return s\nend\n", "t")
    types = W.check_program(prog)["F"].vars
    assert types["s"] == "real" and types["r"] == "list(real)" and types["n"] == "int"


# ---- verdicts -------------------------------------------------------------------------------

@pytest.mark.parametrize("path", GOOD, ids=lambda p: p.name)
def test_course_programs_verify_certify_and_keep_their_coupling(path):
    """Verified at the notes' guarantee, its certificate checked by the kernel, its coupling
    kept on concrete runs: one test per program, so that it is verified once even when
    pytest-xdist spreads the tests over several processes."""
    expected = read_expectation(path)
    assert expected.verdict == "verified" and expected.guarantees
    reports, ok = _verified(path)
    assert ok, [r.failure for r in reports]
    # the guarantee verified is the one the header states (guarantee: NAME : TEXT)
    assert {r.name: r.guarantee for r in reports} == expected.guarantees
    for r in reports:
        assert all(res.verdict.value == "verified" for res in r.results.values())
        rules = {n.rule for n in r.derivation.walk()}
        assert "Conseq" in rules and rules & {"Lap", "Lap-Shift"}

    cert, _ = _verified_certificate(path)
    outcome = kernel.check(cert)
    assert outcome.valid, outcome.reason
    assert {c["verdict"] for c in outcome.claims} == {"verified"}
    assert len(outcome.obligations) > 0

    # the pointwise rule's couplings depend on the output value: not replayed
    if not any(r.pointwise for r in reports):
        n, found = _replays(path)
        assert n >= 20 and found == []


#: the twins that fail for a reason of their own: (the rule whose obligation fails, words of
#: its failure, words of what the replay of the coupling finds on concrete runs)
TWIN_REASONS = {
    "branch_on_private.pwhile": ("Cond", "synchronised", "not synchronised"),
    "loop_on_private.pwhile": ("AWhile", "synchronised", "not synchronised"),
    "noise_too_small.pwhile": ("Conseq", "at most the claimed eps", "coupling costs"),
    "group_undercharged.pwhile": ("Conseq", "at most the claimed eps", "coupling costs"),
    "undercharged.pwhile": ("Conseq", "at most the claimed eps", "coupling costs"),
    "unnoised_sum.pwhile": ("Conseq", "outputs are equal", "outputs differ"),
    "out_of_bounds.pwhile": ("Assign", "in bounds", "a run fails"),
    "parallel_twice.pwhile": ("Conseq", "at most the claimed eps", "coupling costs"),
}


def test_the_twins_with_a_reason_are_in_the_suite():
    assert set(TWIN_REASONS) <= {p.name for p in BAD}


@pytest.mark.parametrize("path", BAD, ids=lambda p: p.name)
def test_broken_twins_are_not_verified(path):
    """Not verified; a twin of ``TWIN_REASONS`` fails for its reason, and the replay of its
    coupling finds what the derivation refused (the oracle is not vacuous): one test per
    twin, so that it is verified once even when pytest-xdist spreads the tests."""
    assert read_expectation(path).verdict == "rejected"
    reports, ok = _verified(path)
    assert not ok
    # refuted (a witness confirmed in the semantics: V008) or unknown with the reason
    assert all((r.verdict, r.code in ("V001", "V002", "V003")) == ("unknown", True) or
               (r.verdict, r.code, r.confirmation is not None) == ("refuted", "V008", True)
               for r in reports if r.failure)
    assert all(r.failure for r in reports)
    if path.name not in TWIN_REASONS:
        return
    rule, words, replay_words = TWIN_REASONS[path.name]
    [r] = reports
    # the derivation's failure, after the witness when the claim is refuted
    reason = r.failure.split("the verifier's reason: ")[-1]
    assert reason.startswith(rule + ":") and words in reason, r.failure
    n, found = _replays(path, pairs=60)
    assert any(replay_words in v for v in found), found[:3]


def test_noise_too_small_is_refuted_with_a_confirmed_counterexample():
    [r], _ = _verified(APRHL / "mistakes" / "noise_too_small.pwhile")
    # the obligation's counterexample (z3's, confirmed on the arithmetic), then the claim's
    # witness: two inputs and the exact loss of their output laws
    assert r.verdict == "refuted" and r.code == "V008" and "is refuted" in r.failure
    assert r.confirmation.method == "exact loss"


DUMMY = """proc D (d : real list) (pub eps : real+) : real list
  |- ({eps}, 0) : adjWithin (d<1>, d<2>, 1) /\\ size d<1> = 3 ==> =
  i := 0;
  s := 0;
  r := [];
  while i < size d do
    s := s + d[i];
    z := $ Lap (1 / eps, s);
    r := r ++ [z];
    i := i + 1
  end;
  return r
end
"""


def test_the_loop_costs_are_summed_exactly(tmp_path):
    # three releases of sums moving by at most 1: 3 eps holds, 2 eps does not
    assert verify_text(tmp_path, DUMMY.format(eps="3 * eps"))[1]
    assert not verify_text(tmp_path, DUMMY.format(eps="2 * eps"))[1]


def test_releasing_every_bin_twice_costs_twice_eps(tmp_path):
    text = (APRHL / "mistakes" / "parallel_twice.pwhile").read_text()
    assert verify_text(tmp_path, text.replace("|- (eps, 0)", "|- (2 * eps, 0)"))[1]


def test_a_scale_that_depends_on_private_data_is_not_verified(tmp_path):
    reports, ok = verify_text(tmp_path, """proc F (q : real) (pub eps : real+) : real
  |- (eps, 0) : abs (q<1> - q<2>) <= 1 /\\ q<1> > 0 /\\ q<2> > 0 ==> =
  z := $ Lap (q / eps, 0);
  return z
end
""")
    assert not ok and "same in both runs" in reports[0].failure


def test_division_by_a_possibly_zero_value_is_not_verified(tmp_path):
    reports, ok = verify_text(tmp_path, """proc F (q : real) (pub eps : real+) (pub n : int) : real
  |- (eps, 0) : abs (q<1> - q<2>) <= 1 ==> =
  z := $ Lap (1 / eps, q / n);
  return z
end
""")
    assert not ok and "divisor" in reports[0].failure


def test_a_written_invariant_and_variant_are_used(tmp_path):
    text = """proc F (d : real list) (pub eps : real+) : real
  |- (eps, 0) : adjWithin (d<1>, d<2>, 1) ==> =
  i := size d;
  s := 0;
  while i > 0
    invariant i<1> = i<2> /\\ i<1> <= size d<1> /\\ i<1> >= 0
    invariant s<1> - s<2> = (if 0 = 0 then 0 else 0)
    variant i
  do
    i := i - 1;
    s := s + 1
  end;
  z := $ Lap (1 / eps, s);
  return z
end
"""
    # 'if' is not an expression of the language: the invariant does not parse
    path = tmp_path / "p.pwhile"
    path.write_text(text)
    with pytest.raises(PrivInferError):
        W.parse_while_file(str(path))
    text = text.replace("    invariant s<1> - s<2> = (if 0 = 0 then 0 else 0)\n",
                        "    invariant s<1> = s<2>\n")
    reports, ok = verify_text(tmp_path, text)
    assert ok, reports[0].failure
    loop = reports[0].derivation.children[0].children[2]
    assert loop.rule == "AWhile" and "i'" in loop.text


def test_an_unprovable_written_invariant_leaves_the_claim_unknown(tmp_path):
    reports, ok = verify_text(tmp_path, """proc F (d : real list) (pub eps : real+) : real
  |- (eps, 0) : adjWithin (d<1>, d<2>, 1) ==> =
  i := 0;
  s := 0;
  while i < size d invariant s<1> = s<2> + 5 do
    s := s + d[i];
    i := i + 1
  end;
  z := $ Lap (1 / eps, s);
  return z
end
""")
    assert not ok and "invariant" in reports[0].failure


def test_a_shift_is_charged_and_relates_the_outputs(tmp_path):
    # run 2's noise is run 1's plus 1: cost |1| * eps = eps, whatever q is
    reports, ok = verify_text(tmp_path, """proc F (q : real) (pub eps : real+) : real
  |- (eps, 0) : q<1> = q<2> ==> =
  z := $ Lap (1 / eps, q) shift 1;
  return z
end
""")
    # the outputs are grid roundings of draws 1 apart: not provably equal
    assert not ok and "outputs are equal" in reports[0].failure
    assert reports[0].derivation.children[0].rule == "Lap-Shift"


# ---- certificates ---------------------------------------------------------------------------

def _certificate(path):
    prog = W.parse_while_file(str(path))
    reports, ok = verify_file(str(path))
    return json.loads(json.dumps(certificate(prog, reports, str(path)))), reports


def test_a_builder_that_charges_a_lap_nothing_is_caught_by_the_kernel(monkeypatch):
    path = APRHL / "mistakes" / "noise_too_small.pwhile"
    real_rule = derive.Builder.rule_lap

    def buggy(self, s, st):
        node, after = real_rule(self, s, st)
        node.data["cost"] = T.real(0)
        return node, derive.State(after.vals, after.facts, st.cost)   # charged nothing

    monkeypatch.setattr(derive.Builder, "rule_lap", buggy)
    cert, reports = _certificate(path)
    assert reports[0].verdict == "verified"          # the bug makes the builder unsound...
    outcome = kernel.check(cert)
    assert not outcome.valid                         # ...and the kernel refuses its certificate
    assert "charged 0" in outcome.reason and "Lap rule charges" in outcome.reason


def test_a_certificate_that_drops_an_obligation_is_refused():
    cert, _ = _verified_certificate(APRHL / "mean.pwhile")
    obs = cert["claims"][0]["obligations"]
    cert["claims"][0]["obligations"] = [o for o in obs if "synchronised" not in o["provenance"]["description"]]
    assert len(cert["claims"][0]["obligations"]) < len(obs)
    outcome = kernel.check(cert)
    assert not outcome.valid and "drops or weakens" in outcome.reason


def test_a_certificate_with_a_weakened_obligation_is_refused():
    cert, _ = _verified_certificate(APRHL / "laplace_mechanism.pwhile")
    for o in cert["claims"][0]["obligations"]:
        if "claimed eps" in o["provenance"]["description"]:
            o["hypotheses"].append({"name": "h_extra", "term": T.term_to_json(T.boolean(False))})
    outcome = kernel.check(cert)
    assert not outcome.valid and "drops or weakens" in outcome.reason


def test_a_certificate_claiming_a_better_guarantee_is_refused():
    cert, _ = _verified_certificate(APRHL / "dummy_sum.pwhile")
    claim = cert["claims"][0]
    assert "(eps * n, 0)-differentially private" in claim["guarantee"]
    claim["guarantee"] = claim["guarantee"].replace("(eps * n, 0)", "(eps, 0)")
    assert not kernel.check(cert).valid
    cert, _ = _verified_certificate(APRHL / "dummy_sum.pwhile")
    cert["source"]["text"] = cert["source"]["text"].replace("(eps * n, 0)", "(eps, 0)")
    assert not kernel.check(cert).valid


def test_a_certificate_with_a_false_invariant_is_refused():
    cert, _ = _verified_certificate(APRHL / "partial_sums.pwhile")
    loop = cert["claims"][0]["loops"][0]
    loop["invariants"]["terms"] = [T.term_to_json(T.boolean(False))]
    outcome = kernel.check(cert)
    assert not outcome.valid


def test_a_certificate_of_a_broken_program_marked_verified_is_refused():
    cert, _ = _verified_certificate(APRHL / "mistakes" / "group_undercharged.pwhile")
    claim = cert["claims"][0]
    claim["verdict"] = "verified"
    prog = W.parse_while(cert["source"]["text"], cert["source"]["file"])
    claim["guarantee"] = W.spec_guarantee(prog.proc(claim["name"]))  # the source's wording
    outcome = kernel.check(cert)
    assert not outcome.valid


def test_check_and_verify_certificate_on_the_command_line(tmp_path):
    out = tmp_path / "c.json"
    result = privinfer("verify", APRHL / "partial_sums.pwhile", "--certificate", out, "--explain")
    assert result.returncode == 0, result.stderr
    assert "AWhile" in result.stdout and "Lap" in result.stdout
    result = privinfer("check", out)
    assert result.returncode == 0 and "valid" in result.stdout
    data = json.loads(out.read_text())
    data["claims"][0]["costs"][0]["cost"]["terms"] = [T.term_to_json(T.real(0))]
    out.write_text(json.dumps(data))
    result = privinfer("check", out)
    assert result.returncode == 1 and "INVALID" in result.stdout


def test_the_kernel_does_not_import_the_builder():
    code = ("import sys, checker.aprhl; "
            "print([m for m in sys.modules if m.startswith(('verifier.aprhl', 'verifier.rules'))])")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert out.stdout.strip() == "[]", out.stdout + out.stderr


# ---- run ------------------------------------------------------------------------------------

def _run(path, name, args, seed):
    prog = W.parse_while_file(str(path))
    types = W.check_program(prog)
    return Evaluator(prog.proc(name), types[name], seeded_source(seed)).run(args)


def test_run_releases_the_exact_laplace_draw_of_the_verified_program():
    d = [Fraction(1), Fraction(5, 2), Fraction(3)]
    eps = Fraction(1, 2)
    got = _run(APRHL / "mean.pwhile", "Mean", {"d": d, "eps": eps, "n": 3}, seed=7)
    # the same noise source, drawn directly: centre s / i, scale (1 / n) / eps
    want = seeded_source(7).laplace_exact(sum(d) / 3, Fraction(1, 3) / eps)
    assert got == want and isinstance(got, Fraction)


def test_run_partial_sums_adds_the_noisy_values_exactly():
    d = [Fraction(1), Fraction(0), Fraction(2)]
    got = _run(APRHL / "partial_sums.pwhile", "PartialSums", {"d": d, "eps": Fraction(1)}, seed=3)
    src = seeded_source(3)
    noisy = [src.laplace_exact(x, Fraction(1)) for x in d]
    assert got == [sum(noisy[:k + 1]) for k in range(3)]


def test_run_on_the_command_line(tmp_path):
    csv = tmp_path / "d.csv"
    csv.write_text("x\n1\n0\n1\n")
    r = privinfer("run", APRHL / "composition.pwhile", "TwoCounts", "--data", f"d={csv}:x",
                  "--arg", "e1=1", "--arg", "e2=0.5", "--seed", "1", "--json")
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert out["kind"] == "sample" and out["releasable"] is False and len(out["value"]) == 2
    r = privinfer("run", APRHL / "mean.pwhile", "Mean", "--arg", "d=[1, 2]", "--arg", "eps=0",
                  "--arg", "n=2")
    assert r.returncode == 2 and "error[R001]" in r.stderr, r.stderr
    r = privinfer("run", APRHL / "mistakes" / "out_of_bounds.pwhile", "PastEnd",
                  "--arg", "d=[1.0, 2.0]", "--arg", "eps=1", "--seed", "1")
    assert r.returncode == 2 and "error[R006]" in r.stderr and "out of bounds" in r.stderr
    assert "Traceback" not in r.stderr


def test_bench_runs_the_while_programs(tmp_path):
    # the bench's own work on while-programs (expectations, certificates, kernel) on a sample;
    # every program's verdict is checked above (GOOD, BAD) and by ``privinfer bench``
    from benchmarks import runner
    sample = ["mean.pwhile", "mistakes/undercharged.pwhile", "sparse_vector.pwhile"]
    result = runner.run_suite(APRHL, filters=sample, progress=False)
    assert result.ok, [(p.program, p.problems) for p in result.programs if p.problems]
    assert {p.program for p in result.programs} == set(sample)


# ---- robustness -----------------------------------------------------------------------------

def _mutants(count, seed):
    import random
    rng = random.Random(seed)
    texts = [p.read_text() for p in GOOD + BAD]
    pieces = [" ", ";", ":=", "$", "Lap", "(", ")", "[", "]", "while", "do", "end", "if", "then",
              "x<1>", "d", "i", "0", "1.5", "/", "++", "[]", "size", "return", "skip", "-", "<"]
    from verifier.aprhl.campaign import _mutant
    for _ in range(count):
        yield _mutant(rng, rng.choice(texts), pieces)


def test_mutated_programs_give_diagnostics_or_verdicts_never_crashes():
    verified_or_unknown = 0
    for k, text in enumerate(_mutants(300, 2026)):
        try:
            prog = W.parse_while(text, f"m{k}.pwhile")
            types = W.check_program(prog)
        except PrivInferError as exc:
            assert exc.first.span is None or exc.first.span.line >= 1
            continue
        if verified_or_unknown >= 12:
            continue
        reports = [aprhl_verify.verify_proc(p, types[p.name]) for p in prog.procs if p.spec is not None]
        for r in reports:
            assert r.verdict in ("verified", "unknown", "refuted")
            assert (r.verdict == "refuted") == (r.confirmation is not None)
            assert r.verdict != "verified" or r.failure is None
            verified_or_unknown += 1
        # the kernel's own derivation agrees with the builder's on every mutant it verified
        if any(r.verdict == "verified" for r in reports):
            cert = json.loads(json.dumps(certificate(prog, reports, f"m{k}.pwhile")))
            outcome = kernel.check(cert)
            assert outcome.valid, (text, outcome.reason)
    assert verified_or_unknown >= 5


def test_the_json_report_of_while_programs_follows_the_report_schema():
    import jsonschema
    schema = json.loads((ROOT / "verifier" / "report.schema.json").read_text())
    r = privinfer("verify", "--json", APRHL / "laplace_mechanism.pwhile",
                  APRHL / "mistakes" / "noise_too_small.pwhile")
    assert r.returncode == 1
    reports = json.loads(r.stdout)
    jsonschema.validate(reports, schema)
    assert [c["verdict"] for rep in reports for c in rep["claims"]] == ["verified", "refuted"]
    assert reports[1]["claims"][0]["code"] == "V008"
    r = privinfer("verify", "--json", APRHL / "laplace_mechanism.pwhile")
    assert r.returncode == 0
    jsonschema.validate(json.loads(r.stdout), schema)


# ---- the derivations against the semantics: both runs replayed under the coupling ----------

def _replays(path, pairs=40):
    import random
    from verifier.aprhl.coupled import coupled_run, random_inputs, violations
    prog = W.parse_while_file(str(path))
    types = W.check_program(prog)
    found, n = [], 0
    reports, _ = _verified(path)
    for p, report in zip([p for p in prog.procs if p.spec is not None], reports, strict=True):
        rng = random.Random(1)
        shifts = report.shifts   # the ones the search found (Lap-Case: a shift per branch)
        if any(isinstance(s, PointShift) for s in shifts.values()):
            continue   # couplings that depend on the output value v: not replayed
        for t in range(pairs):
            pair = random_inputs(p, rng)
            if pair is None:
                continue
            try:
                seen = coupled_run(p, types[p.name], *pair, seeded_source(t), shifts,
                                   onesided=report.pointwise or report.onesided)
            except NotImplementedError:
                continue   # a shift of the noise by a fraction of the grid: not replayed
            n += 1
            found += violations(p, seen)
    return n, found


def test_verified_mutants_keep_their_coupling_on_concrete_runs():
    from verifier.aprhl.campaign import fuzz
    texts = [p.read_text() for p in GOOD + BAD]
    stats = fuzz(texts, 120, 2027, pairs=10, generated=0)
    assert stats["verified"] >= 10 and stats["replays"] >= 50
    assert stats["failures"] == [], stats["failures"][:2]


def test_the_while_campaign_in_processes_finds_what_it_finds_alone():
    from verifier.aprhl.campaign import fuzz
    texts = [p.read_text() for p in GOOD]
    alone = fuzz(texts, 10, 2031, pairs=3)
    assert alone["verified"] >= 1 and alone["replays"] >= 3
    assert fuzz(texts, 10, 2031, pairs=3, workers=2) == alone


def test_the_campaign_verifies_a_procedure_once_per_content():
    """``campaign.verdict_once`` keys its verdicts by the whole syntax tree with positions: a
    mutant changed only in a comment is the suite's procedure again (one verification); a
    procedure moved by a line, or changed anywhere, is verified afresh, with what
    ``verify_proc`` says of it."""
    from verifier.aprhl import campaign
    text = (APRHL / "shifted_release.pwhile").read_text()

    def first_proc(source, name):
        prog = W.parse_while(source, name)
        return prog.procs[0], W.check_program(prog)[prog.procs[0].name]

    p, types = first_proc(text, "a.pwhile")
    same, same_types = first_proc(text.replace("(*", "(* a comment changed:", 1), "b.pwhile")
    moved, moved_types = first_proc("\n" + text, "c.pwhile")
    assert campaign.content_key(same) == campaign.content_key(p)
    assert campaign.content_key(moved) != campaign.content_key(p)
    assert moved == p   # the trees' own equality ignores positions: not a key
    campaign._VERDICTS.clear()
    calls = []
    real = campaign.verify_proc
    campaign.verify_proc = lambda *a, **k: calls.append(a[0]) or real(*a, **k)
    try:
        verdict = campaign.verdict_once(p, types)
        assert campaign.verdict_once(same, same_types) == verdict
        assert len(calls) == 1
        assert campaign.verdict_once(moved, moved_types).verified == verdict.verified
        assert len(calls) == 2
    finally:
        campaign.verify_proc = real
    fresh = aprhl_verify.verify_proc(p, types, refute=False)
    assert verdict.verified == (fresh.verdict == "verified") and verdict.shifts == fresh.shifts
    assert verdict.shifts   # the shift search found the coupling


def test_a_recheck_of_an_unsat_core_is_remembered_by_its_session():
    """``z3_backend.recheck_core`` asks z3 once per script and limit in a session that
    remembers re-checks (the while campaign's), as ``_check`` does for whole problems; the
    answer is the one z3 gives the script. Other sessions ask every time."""
    from obligations.encoding import encode
    from obligations.model import Obligation, ObligationKind, Provenance
    from obligations.smtlib import Z3Session
    from obligations.z3_backend import recheck_core
    x = T.var("x", T.REAL)
    ob = Obligation(kind=ObligationKind.ENTAILMENT, hypotheses=[("h_0", T.gt(x, 1))],
                    goal=T.gt(x, 0), provenance=Provenance("r", "r", "test", None))
    problem = encode(ob)
    names = [a.name for a in problem.assertions]
    for remember, runs_of_two in ((True, 1), (False, 2)):
        session = Z3Session(remember_rechecks=remember)
        runs = []
        run = session.run
        session.run = lambda text, rlimit: runs.append(text) or run(text, rlimit)
        assert recheck_core(problem, names, 100_000, session) == "unsat"
        assert recheck_core(problem, names, 100_000, session) == "unsat"
        assert len(runs) == runs_of_two
        assert recheck_core(problem, [n for n in names if n != "h_0"], 100_000,
                            session) == "sat"
        assert len(runs) == runs_of_two + 1


def test_privinfer_fuzz_while(tmp_path):
    r = privinfer("fuzz", "--while", "--count", "40", "--seed", "5", "--out", tmp_path, "--json",
                  "--workers", "2")
    assert r.returncode == 0, r.stdout + r.stderr
    stats = json.loads(r.stdout)
    assert stats["mutants"] + stats["generated"] == 40 and stats["failures"] == []
    assert stats["generated"] > 0
    saved = json.loads((tmp_path / "while_fuzz.json").read_text())
    assert saved["mutants"] + saved["generated"] == 40


# ---- the shift search ------------------------------------------------------------------------

def test_the_shift_search_finds_the_shifts_and_charges_them():
    reports, ok = _verified(APRHL / "shifted_release.pwhile")
    assert ok
    by = {r.name: r for r in reports}
    [(_, follow)] = by["FollowTheShift"].shifts.items()
    [(_, one)] = by["ShiftByOne"].shifts.items()
    assert (follow.offset, follow.scale) == (0, 1)      # the identity of the noise: cost 0
    assert (one.offset, one.scale) == (1, 0)            # the output shifted by 1: cost eps
    # at half the price no shift works: the search gives up and the first failure stands
    [bad], ok = _verified(APRHL / "mistakes" / "shift_undercharged.pwhile")
    assert not ok and bad.shifts == {} and "output relation" in bad.failure


def test_a_builder_whose_shifts_cost_nothing_is_caught_by_the_kernel(monkeypatch):
    path = APRHL / "mistakes" / "shift_undercharged.pwhile"
    monkeypatch.setattr(derive, "lap_shift_cost", lambda k, v1, v2, scale: T.real(0))
    cert, reports = _certificate(path)
    assert reports[0].verdict == "verified" and reports[0].shifts   # the bug: a free shift
    outcome = kernel.check(cert)
    assert not outcome.valid and "Lap rule charges" in outcome.reason


def test_a_recorded_shift_that_reads_the_draw_is_refused():
    cert, _ = _verified_certificate(APRHL / "shifted_release.pwhile")
    claim = next(c for c in cert["claims"] if c["name"] == "ShiftByOne")
    [entry] = claim["costs"]
    z = T.var("z'18d3", T.REAL)
    k = T.mul(2, z)        # a "shift" that depends on the draw itself: not a coupling
    entry["shift"] = {"vocabulary": T.vocabulary_of(k).to_json(), "terms": [T.term_to_json(k)],
                      "text": [T.pretty(k)]}
    outcome = kernel.check(cert)
    assert not outcome.valid and "z'18d3" in outcome.reason


@pytest.mark.parametrize("scale", [Fraction(1, 3), Fraction(2 ** 40) - Fraction(1, 10 ** 9),
                                   Fraction(2 ** 40), Fraction(2 ** 42), Fraction(10) ** 400])
def test_the_grid_divides_1_at_every_scale(scale):
    """What the grid axioms assume (``lapgrid (b, w + n) = lapgrid (b, w) + n`` for an integer
    ``n``, at any scale ``b``)."""
    from verifier.semantics.noise import grid
    g = grid(scale)
    assert g <= 1 and (1 / g).denominator == 1


# ---- the pointwise rule ------------------------------------------------------------------------


@pytest.mark.parametrize("name", POINTWISE)
def test_svt_and_report_noisy_max_are_proved_by_the_pointwise_rule(name):
    [r], ok = _verified(APRHL / name)
    assert ok and r.pointwise and r.derivation.rule == "Pointwise"
    rules = [n.rule for n in r.derivation.walk()]
    assert "Cond-L/R" in rules          # the runs may branch apart (one-sided rules)
    # the LICS 2016 proof: the query at the output index shifted by 1 (down by 1 for the
    # argmin), the others by the identity of their noise (and AboveThreshold's threshold
    # shifted by 1)
    from verifier.shifts import PointShift
    point = [s for s in r.shifts.values() if isinstance(s, PointShift)]
    offset = -1 if name == "report_noisy_min.pwhile" else 1
    assert len(point) == 1 and point[0].at.offset == offset and point[0].other.scale == 1


def test_a_builder_whose_pointwise_shifts_cost_nothing_is_caught_by_the_kernel(monkeypatch):
    path = APRHL / "mistakes" / "svt_noise_too_small.pwhile"
    from verifier.shifts import IDENTITY
    real_rule = derive.Builder.rule_lap

    def buggy(self, s, st, case_if=None):   # a shift the search chose is charged nothing
        node, after = real_rule(self, s, st, case_if=case_if)
        if self.assignment.get((s.span.line, s.span.col), IDENTITY) != IDENTITY:
            node.data["cost"] = T.real(0)
            after = derive.State(after.vals, after.facts, st.cost)
        return node, after

    monkeypatch.setattr(derive.Builder, "rule_lap", buggy)
    cert, reports = _certificate(path)
    assert reports[0].verdict == "verified" and reports[0].pointwise   # the bug...
    outcome = kernel.check(cert)
    assert not outcome.valid and "Lap rule charges" in outcome.reason    # ...refused


def test_a_certificate_claiming_the_pointwise_rule_for_a_real_output_is_refused():
    cert, _ = _verified_certificate(APRHL / "laplace_mechanism.pwhile")
    cert["claims"][0]["pointwise"] = True
    outcome = kernel.check(cert)
    assert not outcome.valid and "discrete" in outcome.reason


def test_all_within_relates_lists_of_reals(tmp_path):
    path = tmp_path / "bad.pwhile"
    path.write_text("proc F (d : bool list) : int\n  |- (1, 0) : allWithin (d<1>, d<2>, 1) ==> =\n"
                    "  return 0\nend\n")
    result = privinfer("verify", path)
    assert result.returncode == 2 and "error[T002]" in result.stderr


def test_all_within_bounds_every_position(tmp_path):
    # every answer may move by 1: the sum of two moves by 2, so eps does not pay for it
    text = """proc F (q : real list) (pub eps : real+) : real
  |- (EPS, 0) : allWithin (q<1>, q<2>, 1) /\\ size q<1> = 2 ==> =
  z := $ Lap (1 / eps, q[0] + q[1]);
  return z
end
"""
    [r], ok = verify_text(tmp_path, text.replace("EPS", "2 * eps"))
    assert ok
    [r], ok = verify_text(tmp_path, text.replace("EPS", "eps"), "q.pwhile")
    assert not ok and "claimed eps" in r.failure


def test_generated_programs_are_new_well_typed_and_replayed():
    import random
    from verifier.aprhl.campaign import fuzz
    from verifier.aprhl.generate import random_program
    texts = [random_program(random.Random(k)) for k in range(30)]
    assert len(set(texts)) == 30
    suite = {p.read_text() for p in GOOD + BAD}
    assert not set(texts) & suite
    typed = 0
    for t in texts:
        try:
            W.check_program(W.parse_while(t, "g.pwhile"))
            typed += 1
        except PrivInferError:
            pass
    assert typed >= 25
    stats = fuzz([], 8, 11, pairs=5, generated=1.0)
    assert stats["generated"] == 8 and stats["mutants"] == 0 and stats["well_typed"] >= 6
    assert stats["failures"] == [], stats["failures"][:2]


# ---- mod and SmartSum ----------------------------------------------------------------------

MOD = """proc F (a : int) (b : int) : int
  r := a mod b;
  return r
end
"""


def test_mod_is_the_remainder_by_a_positive_divisor_and_an_error_otherwise():
    prog = W.parse_while(MOD, "m.pwhile")
    types = W.check_program(prog)
    run = Evaluator(prog.procs[0], types["F"], seeded_source(0)).run
    assert [run({"a": a, "b": b}) for a, b in ((7, 3), (-3, 2), (0, 5), (4, 1))] == [1, 1, 0, 0]
    for b in (0, -2):
        with pytest.raises(PrivInferError) as exc:
            run({"a": 3, "b": b})
        assert exc.value.first.code == "R002" and exc.value.first.span.line == 2


@pytest.mark.parametrize("text, code", [
    (MOD.replace("a mod b", "a mod 1.5"), "T002"),
    (MOD.replace("r := a mod b", "mod := a"), "P005"),
    (MOD.replace("r := a mod b;\n  return r", "mod_int := a;\n  return a"), "P005"),
])
def test_mod_takes_integers_and_names_nothing(text, code):
    with pytest.raises(PrivInferError) as exc:
        W.check_program(W.parse_while(text, "m.pwhile"))
    assert exc.value.first.code == code


def test_smart_sum_is_proved_with_the_owed_cost_invariant():
    [r], ok = _verified(APRHL / "smart_sum.pwhile")
    assert ok and r.guarantee == ("SmartSum is (2 * eps, 0)-differentially private with "
                                  "respect to adjWithin (q<1>, q<2>, 1), for m >= 1")
    [loop] = [n for n in r.derivation.walk() if n.rule == "AWhile"]
    assert any("owed" in d for d in loop.data["invariants"])
    # the divisor of mod is a range obligation of both runs
    assert sum("is positive" in ob.provenance.description for ob in r.obligations) >= 2


def test_a_builder_that_forgets_the_divisor_of_mod_is_caught_by_the_kernel(monkeypatch):
    path = APRHL / "mistakes" / "smart_sum_zero_block.pwhile"
    real_expr = derive.Builder.expr

    def buggy(self, e, st, run, side, want=None):
        out = real_expr(self, e, st, run, side, want)
        if isinstance(e, W.BinOp) and e.op == "mod":
            side.pop()                                   # the range obligation m > 0 dropped
        return out

    monkeypatch.setattr(derive.Builder, "expr", buggy)
    cert, reports = _certificate(path)
    assert reports[0].verdict == "verified"          # the bug makes the builder unsound...
    outcome = kernel.check(cert)
    assert not outcome.valid and "drops or weakens" in outcome.reason   # ...the kernel is not
