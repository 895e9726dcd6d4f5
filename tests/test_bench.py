"""``privinfer bench`` and ``benchmarks.runner``: the expectation headers, selection, the
comparison of outcomes with expectations, the output files and the exit status.

The runs use two or three small programs in a temporary folder, never the whole suite.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchmarks import runner
from benchmarks.runner import Expectation, HeaderError, parse_expectation
from verifier.cli import main

SUITE = runner.PROGRAMS

NOISY_SUM = """\
(* expect: verified: noisySum is (eps, 0)-DP.
   guarantee: noisySum : noisySum is (eps, 0)-differentially private with respect to
     adjWithin (l<1>, l<2>, 1.0) on its 1st argument

   Explanation. *)

val noisySum :: {l :: real list | adjWithin (l<1>, l<2>, 1.0)} -> {eps :: real+ | =}
             -> M[DP(eps)] {s :: real | =}
let noisySum db eps = lapMech (eps, sum db)
"""

HALF_COUNT = """\
(* expect: rejected: a count is 1-sensitive, so this release costs eps, not eps / 2. *)

val noisyCount :: {l :: bool list | adj (l<1>, l<2>)} -> {eps :: real+ | =}
               -> M[DP(eps / 2.0)] {c :: real | =}
let noisyCount db eps = lapMech (eps, count db)
"""

BODY_OF_NOISY_SUM = NOISY_SUM.split("*)", 1)[1]


def write_suite(root: Path, programs: dict) -> Path:
    for name, text in programs.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root


@pytest.fixture()
def suite(tmp_path: Path) -> Path:
    """A correct verified program, a correct rejected one, and one whose header is wrong."""
    return write_suite(tmp_path / "programs", {
        "good/noisy_sum.pinf": NOISY_SUM,
        "good/half_count.pinf": HALF_COUNT,
        "bad/wrong_verdict.pinf": "(* expect: rejected: wrongly *)\n" + BODY_OF_NOISY_SUM,
    })


def bench(capsys, *argv: str):
    code = main(["bench", *argv])
    out, err = capsys.readouterr()
    return code, out, err


# ---- the header format -------------------------------------------------------------------------


def test_header_with_guarantees_and_explanation():
    e = parse_expectation(NOISY_SUM)
    assert e == Expectation("verified", "noisySum is (eps, 0)-DP.", {
        "noisySum": "noisySum is (eps, 0)-differentially private with respect to "
                    "adjWithin (l<1>, l<2>, 1.0) on its 1st argument"})


def test_header_of_the_shared_examples_multiline_free_text():
    source = (SUITE / "negative" / "count_wrong_scale.pinf").read_text()
    e = parse_expectation(source)
    assert e.verdict == "rejected" and e.guarantees == {}
    assert e.summary.startswith("a count is 1-sensitive, so Laplace noise of scale 1/eps")
    source = (SUITE / "paper" / "beta_output_hellinger.pinf").read_text()
    e = parse_expectation(source)
    assert e.verdict == "verified" and e.guarantees == {}
    # the free text spans six lines of the comment and ends with its last sentence
    assert e.summary.startswith("main is (rho eps, 0)-DP with rho = sqrt(1 - pi/4).")
    assert e.summary.endswith("(see ../negative/beta_hellinger_small_prior.pinf).")


@pytest.mark.parametrize("folder", ["paper", "course", "negative", "classic", "mistakes"])
def test_every_program_of_the_suite_has_a_valid_header(folder):
    paths = sorted((SUITE / folder).glob("*.pinf"))
    assert paths
    for path in paths:
        e = runner.read_expectation(path)
        if folder in ("negative", "mistakes"):
            assert e.verdict == "rejected", path
        if folder in ("paper", "course"):
            assert e.verdict == "verified", path
        if folder == "classic" and e.verdict == "verified":
            assert e.guarantees, f"{path}: list the guarantees of a verified program"


def test_header_variants():
    assert parse_expectation("(* expect: verified *)") == Expectation("verified")
    assert parse_expectation("  \n(* expect: unknown: a known limitation *)\nlet x = 1") == \
        Expectation("unknown", "a known limitation")
    # comments nest; the explanation may mention guarantees in running text
    e = parse_expectation("(* expect: rejected: why (* nested *) more\n\n"
                          "   The guarantee: none. *)")
    assert e == Expectation("rejected", "why (* nested *) more")
    e = parse_expectation("(* expect: verified\n   guarantee: f : a\n   guarantee: g' : b : c *)")
    assert e.guarantees == {"f": "a", "g'": "b : c"}


@pytest.mark.parametrize("source, message", [
    ("let x = 1", "must start with an expectation comment"),
    ("(* expect: verified", "not closed"),
    ("(* a program *)", "must start with 'expect: VERDICT'"),
    ("(* expect: proven *)", "unknown expected verdict 'proven'"),
    ("(* expect: rejected\n   guarantee: f : f is (eps, 0)-DP *)", "only allowed with expect: verified"),
    ("(* expect: verified\n   guarantee: f is (eps, 0)-DP *)", "malformed guarantee line"),
    ("(* expect: verified\n   guarantee: f : x\n   guarantee: f : y *)", "two guarantee lines for the claim f"),
    ("(* expect: verified\n\n   guarantee: f : x *)", "in the header's first paragraph"),
])
def test_bad_headers(source, message):
    with pytest.raises(HeaderError, match=message.replace("(", r"\(").replace(")", r"\)")):
        parse_expectation(source)


# ---- selection ----------------------------------------------------------------------------------


def test_filters_are_substrings_or_globs(suite):
    def names(filters):
        return [p.relative_to(suite).as_posix() for p in runner.discover(suite, filters)]

    assert names(()) == ["bad/wrong_verdict.pinf", "good/half_count.pinf", "good/noisy_sum.pinf"]
    assert names(["sum"]) == ["good/noisy_sum.pinf"]
    assert names(["good/*"]) == ["good/half_count.pinf", "good/noisy_sum.pinf"]
    assert names(["*_count.pinf", "wrong"]) == ["bad/wrong_verdict.pinf", "good/half_count.pinf"]
    assert names(["nothing"]) == []
    with pytest.raises(runner.NoPrograms):
        runner.run_suite(suite, filters=["nothing"])


# ---- running and comparing ----------------------------------------------------------------------


def test_run_suite_compares_verdicts_and_guarantees(suite):
    result = runner.run_suite(suite, progress=False)
    by_name = {p.program: p for p in result.programs}
    ok = by_name["good/noisy_sum.pinf"]
    assert (ok.actual, ok.status, ok.problems) == ("verified", "ok", [])
    assert ok.claims[0].guarantee.startswith("noisySum is (eps, 0)-differentially private")
    assert ok.derivation_size > 0 and sum(ok.by_kind.values()) == sum(ok.by_method.values()) > 0
    assert len(ok.verify_runs) == 1 and ok.check_seconds is None
    refuted = by_name["good/half_count.pinf"]
    assert (refuted.actual, refuted.status) == ("refuted", "ok")
    assert refuted.claims[0].confirmation["method"] == "exact loss"
    assert refuted.claims[0].code == "V008"
    wrong = by_name["bad/wrong_verdict.pinf"]
    assert (wrong.actual, wrong.status) == ("verified", "mismatch")
    assert wrong.problems == ["expected rejected (not verified), got verified"]
    assert not result.ok
    totals = result.totals()
    assert (totals["programs"], totals["verified"], totals["refuted"], totals["unknown"],
            totals["mismatches"]) == (3, 2, 1, 0, 1)
    assert totals["obligations"] == sum(sum(p.by_kind.values()) for p in result.programs)


def test_a_wrong_guarantee_is_a_mismatch(tmp_path):
    root = write_suite(tmp_path, {"p.pinf": NOISY_SUM.replace("(eps, 0)-differentially",
                                                             "(eps / 2, 0)-differentially")})
    [p] = runner.run_suite(root, progress=False).programs
    assert p.actual == "verified" and p.status == "mismatch"
    assert p.problems[0].startswith("guarantee of noisySum: expected 'noisySum is (eps / 2, 0)")


def test_a_guarantee_for_a_missing_claim_is_a_mismatch(tmp_path):
    root = write_suite(tmp_path, {"p.pinf": NOISY_SUM.replace("guarantee: noisySum :",
                                                             "guarantee: noisyMean :")})
    [p] = runner.run_suite(root, progress=False).programs
    assert p.status == "mismatch" and "noisyMean, which is not a claim" in p.problems[0]


RR_HALF = """
let score (b, r) = if r = b then 1.0 else 0.0

val rr :: bool -> {eps :: real+ | =} -> M[DP(eps / 2.0)] {r :: bool | =}
let rr b eps = expMech (eps, score, b)
"""


def test_expected_unknown_is_a_strict_expected_failure(tmp_path):
    # randomized response by expMech with scores 0 and 1 costs exactly eps / 2 (docs/audit.md),
    # but the generic rule charges eps: true, unproved
    root = write_suite(tmp_path, {
        "limitation.pinf": "(* expect: unknown: true but unproved *)\n" + RR_HALF,
        "lifted.pinf": "(* expect: unknown: no longer a limitation *)\n" + BODY_OF_NOISY_SUM,
        "false.pinf": "(* expect: unknown: said to be true *)\n" + HALF_COUNT.split("*)", 1)[1],
    })
    by_name = {p.program: p for p in runner.run_suite(root, progress=False).programs}
    assert by_name["limitation.pinf"].status == "limitation"
    assert by_name["lifted.pinf"].status == "mismatch"
    assert "update the header to expect: verified" in by_name["lifted.pinf"].problems[0]
    # a header that calls a false claim true is caught: the claim is refuted
    assert by_name["false.pinf"].status == "mismatch"
    assert "a claim is refuted" in by_name["false.pinf"].problems[0]


def test_expected_refuted_needs_a_confirmed_refutation(tmp_path):
    root = write_suite(tmp_path, {
        "half.pinf": HALF_COUNT.replace("expect: rejected", "expect: refuted"),
        "rr.pinf": "(* expect: refuted: not so *)\n" + RR_HALF,
    })
    by_name = {p.program: p for p in runner.run_suite(root, progress=False).programs}
    assert (by_name["half.pinf"].actual, by_name["half.pinf"].status) == ("refuted", "ok")
    assert (by_name["rr.pinf"].actual, by_name["rr.pinf"].status) == ("unknown", "mismatch")


def test_errors_are_recorded_and_never_match(tmp_path):
    root = write_suite(tmp_path, {
        "syntax.pinf": "(* expect: rejected: it does not even parse *)\nlet x = = 1\n",
        "noheader.pinf": BODY_OF_NOISY_SUM,
        "noclaims.pinf": "(* expect: verified *)\nlet x = 1\n",
    })
    by_name = {p.program: p for p in runner.run_suite(root, progress=False).programs}
    for name in by_name:
        assert by_name[name].actual == "error" and by_name[name].status == "mismatch", name
    assert "error[P005]" in by_name["syntax.pinf"].error
    assert by_name["noheader.pinf"].error.startswith("bad expectation header")
    assert by_name["noclaims.pinf"].error == "the program has no val claims"


def test_crashes_and_unstable_verdicts_are_errors(tmp_path, monkeypatch):
    from verifier.verification import ClaimReport, Report

    root = write_suite(tmp_path, {"a.pinf": NOISY_SUM, "b.pinf": HALF_COUNT})
    monkeypatch.delenv("PRIVINFER_DEBUG", raising=False)
    calls = []

    def fake_verify(program, typed):
        calls.append(program.file)
        if program.file.endswith("a.pinf"):
            raise RuntimeError("boom")
        verdict = "verified" if len(calls) % 2 else "rejected"
        return Report(program.file, [ClaimReport("noisyCount", "...", verdict, "...", None)])

    monkeypatch.setattr(runner, "verify_program", fake_verify)
    a, b = runner.run_suite(root, repeat=2, progress=False).programs
    assert (a.actual, a.error) == ("error", "internal error: RuntimeError: boom")
    assert b.actual == "error" and b.status == "mismatch"
    assert b.error == ("the verdicts differ between repeats: noisyCount rejected; "
                       "noisyCount verified")


def test_repeats_and_the_certificate_check_hook(tmp_path):
    root = write_suite(tmp_path, {"p.pinf": NOISY_SUM})
    seen = []

    def certifier(path, report):
        seen.append((path.name, [c.verdict for c in report.claims]))
        return 0.25 * len(seen)

    result = runner.run_suite(root, repeat=3, certifier=certifier, progress=False)
    [p] = result.programs
    assert len(p.verify_runs) == 3 and p.verify_seconds == sorted(p.verify_runs)[1]
    assert seen == [("p.pinf", ["verified"])] * 3
    assert p.check_seconds == 0.5 and result.totals()["check_seconds"] == 0.5
    assert "| 0.50 |" in runner.to_markdown(result, tmp_path)


# ---- the command --------------------------------------------------------------------------------


def test_command_exits_1_on_a_mismatch_and_writes_both_files(capsys, suite, tmp_path):
    out = tmp_path / "results"
    code, stdout, _ = bench(capsys, "--programs", str(suite), "--out", str(out))
    assert code == 1
    assert "MISMATCH bad/wrong_verdict.pinf (expected rejected, got verified)" in stdout
    assert "3 programs: 2 verified, 1 refuted, 0 unknown, 0 errors; 1 mismatches" in stdout
    data = json.loads((out / "results.json").read_text())
    assert data["totals"]["mismatches"] == 1 and data["repeat"] == 1
    assert [p["program"] for p in data["programs"]] == [
        "bad/wrong_verdict.pinf", "good/half_count.pinf", "good/noisy_sum.pinf"]
    first = data["programs"][2]
    assert first["status"] == "ok" and first["check_seconds"] >= 0  # the certificate checked
    assert first["obligations"]["total"] == sum(first["obligations"]["by_kind"].values())
    md = (out / "results.md").read_text()
    assert "| [good/noisy_sum.pinf](../programs/good/noisy_sum.pinf) | verified | verified | ok |" in md
    assert "**MISMATCH**" in md and "## Mismatches" in md
    assert "`noisySum is (eps, 0)-differentially private" in md


def test_command_filter_repeat_and_json(capsys, suite, tmp_path):
    out = tmp_path / "results"
    code, stdout, _ = bench(capsys, "--programs", str(suite), "--out", str(out),
                            "--filter", "good/", "--repeat", "2", "--json")
    assert code == 0
    data = json.loads(stdout)
    assert data["filters"] == ["good/"] and data["repeat"] == 2
    assert data["totals"]["programs"] == 2 and data["totals"]["mismatches"] == 0
    assert all(len(p["verify_runs"]) == 2 for p in data["programs"])
    assert json.loads((out / "results.json").read_text())["totals"] == data["totals"]
    assert "`privinfer bench --filter good/ --repeat 2`" in (out / "results.md").read_text()


def test_command_usage_errors(capsys, suite, tmp_path):
    code, _, err = bench(capsys, "--programs", str(suite), "--out", str(tmp_path / "r"),
                         "--filter", "nothing")
    assert code == 2 and "error[U002]: no benchmark program matches nothing" in err
    assert bench(capsys, "--programs", str(suite), "--repeat", "0")[0] == 2
    code, _, err = bench(capsys, "--programs", str(tmp_path / "missing"))
    assert code == 2 and "error[U001]" in err


def test_an_audit_above_a_verified_guarantee_is_a_soundness_bug(tmp_path):
    root = write_suite(tmp_path, {"a.pinf": NOISY_SUM})
    path = root / "a.pinf"
    fine = runner.run_program(path, root, auditor=lambda p: [("loss 0.5 <= 1 (consistent)", False)])
    assert fine.status == runner.OK and fine.audits == ["loss 0.5 <= 1 (consistent)"]
    bug = runner.run_program(path, root, auditor=lambda p: [("loss 2 > 1", True)])
    assert bug.status == runner.MISMATCH
    assert any("SOUNDNESS BUG" in problem for problem in bug.problems)


def test_the_exact_audits_of_a_suite_program():
    path = Path(runner.PROGRAMS) / "negative" / "beta_hellinger_small_prior.pinf"
    cells = runner.exact_audits(path)
    assert cells and all(not bug for _, bug in cells)
    assert any("1.023" in text for text, _ in cells)


def test_a_filtered_run_writes_results_only_with_out(capsys, suite, monkeypatch, tmp_path):
    default = tmp_path / "default-results"
    monkeypatch.setattr(runner, "RESULTS", default)
    code, stdout, _ = bench(capsys, "--programs", str(suite), "--filter", "good/", "--no-check",
                            "--no-audit")
    assert code == 0 and not default.exists() and "wrote" not in stdout
    out = tmp_path / "chosen"
    code, stdout, _ = bench(capsys, "--programs", str(suite), "--filter", "good/", "--no-check",
                            "--no-audit", "--out", str(out))
    assert (out / "results.json").exists() and "wrote" in stdout
