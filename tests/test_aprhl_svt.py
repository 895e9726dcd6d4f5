"""The sparse vector technique with c answers in the while-language (docs/aprhl.md, "Lap-Case"):
variants of loops whose guard is a conjunction, the shift per branch of the ``if`` that follows
a draw (chosen by run 1's guard, the guards synchronised, the cost charged on the branch that
takes it), the cost bounded by the count of answers above; SparseVector, GapSVT and NumSVT
verified at their guarantee, their broken twins never verified, their certificates re-derived
by the kernel, which refuses a builder that drops the per-branch cost and tampered shifts."""
import functools
import json
from pathlib import Path

import pytest

from benchmarks.runner import read_expectation
from checker import aprhl as kernel
from checker.aprhl_certify import certificate
from obligations import terms as T
from verifier.aprhl import derive
from verifier.aprhl.commands import verify_file
from verifier.language import whilelang as W
from verifier.shifts import CaseShift

ROOT = Path(__file__).resolve().parents[1]
APRHL = ROOT / "benchmarks" / "programs" / "aprhl"
GOOD = [APRHL / n for n in ("sparse_vector.pwhile", "gap_svt.pwhile", "num_svt.pwhile")]
BAD = sorted((APRHL / "mistakes").glob("svtc_*.pwhile"))


def _certificate(path):
    prog = W.parse_while_file(str(path))
    reports, ok = verify_file(str(path))
    return json.loads(json.dumps(certificate(prog, reports, str(path)))), reports


_VERIFIED = {}


def _verified(path):
    """The certificate (a fresh copy: tests tamper with it) and the reports of a program of the
    suite, verified once per test run by the unpatched builder."""
    if path not in _VERIFIED:
        cert, reports = _certificate(path)
        _VERIFIED[path] = (json.dumps(cert), reports)
    text, reports = _VERIFIED[path]
    return json.loads(text), reports


@functools.lru_cache(maxsize=None)
def _verified_twin(path):
    """``verify_file(path)`` of a broken twin, once per test process (the refutation search
    is the slow part)."""
    return verify_file(str(path))


def _verify(tmp_path, text):
    path = tmp_path / "p.pwhile"
    path.write_text(text)
    return verify_file(str(path))


SVT = APRHL / "sparse_vector.pwhile"


# ---- variants of conjunctive guards ---------------------------------------------------------

def test_a_conjunctive_guard_has_an_inferred_variant(tmp_path):
    reports, ok = _verify(tmp_path, """proc Count (q : real list) (pub c : int) : int
  |- (0, 0) : allWithin (q<1>, q<2>, 1) /\\ c >= 1 ==> =
  i := 0;
  n := 0;
  while i < size q && n < c do
    n := n + 1;
    i := i + 1
  end;
  return n
end
""")
    assert ok, [r.failure for r in reports]
    (variant,) = [info["variant"] for info in reports[0].loops.values()]
    assert variant is not None


def test_a_conjunctive_guard_none_of_whose_conjuncts_decreases_has_no_variant(tmp_path):
    reports, ok = _verify(tmp_path, """proc Stuck (q : real list) (pub c : int) : int
  |- (0, 0) : allWithin (q<1>, q<2>, 1) /\\ c >= 1 ==> =
  i := 0;
  n := 0;
  while i < size q && n < c do
    n := n + 0
  end;
  return n
end
""")
    assert not ok and reports[0].code == "V003" and "variant" in reports[0].failure


# ---- the programs and their twins -------------------------------------------------------------

@pytest.mark.parametrize("path", GOOD, ids=lambda p: p.name)
def test_the_sparse_vector_programs_verify_at_their_guarantee_and_certify(path):
    """Verified at its guarantee with a shift per branch, its certificate re-derived by the
    kernel: one test per program, so that it is verified once even when pytest-xdist spreads
    the tests over several processes."""
    expected = read_expectation(path)
    assert expected.verdict == "verified"
    cert, reports = _verified(path)
    assert all(r.verdict == "verified" for r in reports), [r.failure for r in reports]
    for r in reports:
        assert r.guarantee == expected.guarantees[r.name]
        # the proof uses a shift per branch: the answer above moved by 1, the others not
        case = [s for s in r.shifts.values() if isinstance(s, CaseShift)]
        assert len(case) == 1 and case[0].then.offset == 1 and case[0].then.scale == 0

    assert any("case" in c for claim in cert["claims"] for c in claim["costs"])
    outcome = kernel.check(cert)
    assert outcome.valid, outcome.reason
    assert {c["verdict"] for c in outcome.claims} == {"verified"}


@pytest.mark.parametrize("path", BAD, ids=lambda p: p.name)
def test_the_sparse_vector_twins_are_not_verified(path):
    assert read_expectation(path).verdict == "rejected"
    reports, ok = _verified_twin(path)
    assert not ok and all(r.verdict in ("unknown", "refuted") for r in reports)


def test_the_twins_are_the_peers_broken_variants():
    names = {p.name for p in BAD}
    assert {"svtc_threshold_not_noised.pwhile", "svtc_noise_too_small.pwhile",
            "svtc_noisy_value_released.pwhile", "svtc_counter_not_incremented.pwhile",
            "svtc_unbounded_answers.pwhile", "svtc_threshold_noise_reused.pwhile"} <= names


def test_the_undersized_noise_is_refuted_with_a_witness():
    reports, _ = _verified_twin(APRHL / "mistakes" / "svtc_noise_too_small.pwhile")
    assert reports[0].verdict == "refuted" and reports[0].code == "V008"


INT_SVT = """proc SVTCounts (cnts : int list) (pub thr : int) (pub c : int) (pub eps : real+) : bool list
  |- (eps, 0) : allWithin (cnts<1>, cnts<2>, 1) /\\ c >= 1 ==> =
  th := $ Lap (2 / eps, thr);
  got := 0;
  ans := [];
  i := 0;
  while i < size cnts && got < c do
    x := $ Lap (SCALE, cnts[i]);
    if x < th then ans := ans ++ [false] else ans := ans ++ [true]; got := got + 1 end;
    i := i + 1
  end;
  return ans
end
"""


@pytest.mark.parametrize("scale, verdict", [("4 * c / eps", "verified"), ("c / eps", "refuted")])
def test_integer_answers_within_one_are_stated_by_all_within(tmp_path, scale, verdict):
    """``allWithin`` relates int lists too (counting queries): the sparse vector over integer
    answers verifies at its textbook noise, its certificate accepted (an int shift is a real
    one), and with the answers' noise 4x too small it is refuted."""
    path = tmp_path / "svt_counts.pwhile"
    path.write_text(INT_SVT.replace("SCALE", scale))
    prog = W.parse_while_file(str(path))
    reports, _ = verify_file(str(path))
    assert reports[0].verdict == verdict, reports[0].failure
    if verdict == "verified":
        cert = json.loads(json.dumps(certificate(prog, reports, str(path))))
        outcome = kernel.check(cert)
        assert outcome.valid, outcome.reason
        assert {c["verdict"] for c in outcome.claims} == {"verified"}


PEERS2 = ROOT / "tests" / "peers2"


@pytest.mark.parametrize("name, edit", [
    # real answers: q[i] + eta lies on the noise's grid moved by q[i], which leaks q[i] mod the
    # grid (docs/aprhl.md, "Noise added to a real answer after the draw"): never verified
    ("ok_w06_gapsvt_int_queries_noise_added.pwhile", ("(q : int list)", "(q : real list)")),
    ("ok_w10_partial_sum_int_noise_added.pwhile", ("(q : int list)", "(q : real list)")),
    # the answers' noise 4x too small; the claim halved
    ("ok_w06_gapsvt_int_queries_noise_added.pwhile", ("Lap (4 * c / eps, 0)", "Lap (c / eps, 0)")),
    ("ok_w10_partial_sum_int_noise_added.pwhile", ("|- (eps, 0)", "|- (eps / 2, 0)")),
])
def test_noise_added_later_is_not_verified_where_it_leaks(tmp_path, name, edit):
    """The templates around ``e + X`` for noise added to ``X`` (``derive.addends``) prove the
    peers' spelling over integer answers (tests/peers2); their twins stay unproved."""
    text = (PEERS2 / name).read_text()
    assert edit[0] in text
    path = tmp_path / name
    path.write_text(text.replace(edit[0], edit[1]))
    reports, _ = verify_file(str(path))
    assert reports[0].verdict != "verified"


@pytest.mark.parametrize("edit", [
    ("        remaining := remaining - eps / (2 * c)\n", "        remaining := remaining - eps / (4 * c)\n"),
    ("remaining >= eps / (2 * c) do", "remaining > 0 do"),
    (";\n        remaining := remaining - eps / (2 * c)\n", "\n"),
], ids=["middle_undercharged", "guard_lets_it_overspend", "middle_not_charged"])
def test_a_budget_that_remains_bounds_the_cost_only_when_charged_right(tmp_path, edit):
    """Adaptive SVT whose account counts down (tests/peers2/ok_w07: verified by the mirror
    image of the spent-budget invariant, ``Builder.remaining_candidates``): undercharged,
    uncharged or run below its last step, it is not verified."""
    text = (PEERS2 / "ok_w07_adaptive_svt_remaining.pwhile").read_text()
    assert edit[0] in text
    path = tmp_path / "remaining.pwhile"
    path.write_text(text.replace(*edit))
    reports, _ = verify_file(str(path))
    assert reports[0].verdict != "verified"


@pytest.mark.parametrize("name", ["ok_w05_gapsvt_gap_first.pwhile",
                                  "ok_w06_gapsvt_int_queries_noise_added.pwhile",
                                  "ok_w07_adaptive_svt_remaining.pwhile",
                                  "ok_w10_partial_sum_int_noise_added.pwhile"])
def test_the_new_couplings_replay_in_the_semantics(name):
    """The couplings found for noise added later (around ``e + X``), for a Lap-Case with
    assignments before its ``if`` and for a budget that remains, replayed by the exact
    semantics in lockstep (``coupled.coupled_run``): the runs stay synchronised, the outputs
    equal, the cost within the claim."""
    import random
    from verifier.aprhl.coupled import coupled_run, random_inputs, violations
    from verifier.semantics.noise import seeded_source
    path = PEERS2 / name
    prog = W.parse_while_file(str(path))
    types = W.check_program(prog)
    reports, _ = verify_file(str(path))
    proc, report = prog.procs[0], reports[0]
    assert report.verdict == "verified", report.failure
    rng, n, found = random.Random(5), 0, []
    for t in range(25):
        pair = random_inputs(proc, rng)
        if pair is None:
            continue
        try:
            seen = coupled_run(proc, types[proc.name], *pair, seeded_source(t), report.shifts,
                               onesided=report.pointwise)
        except NotImplementedError:
            continue
        n += 1
        found += violations(proc, seen)
    assert n >= 10 and found == [], (n, found[:3])


@pytest.mark.parametrize("edit", [("Lap (4 * c / eps, q[i])", "Lap (c / eps, q[i])"),
                                  ("gap := x - th;", "gap := x - t;")],
                         ids=["noise_too_small", "gap_to_the_public_threshold"])
def test_a_lap_case_with_assignments_before_its_if_is_refuted_when_false(tmp_path, edit):
    """GapSVT computing its gap before the ``if`` (tests/peers2/ok_w05: Lap-Case past the
    assignment) with the answers' noise 4x too small, or the gap taken to the public
    threshold (the released gap reveals the answer's noise): refuted."""
    text = (PEERS2 / "ok_w05_gapsvt_gap_first.pwhile").read_text()
    assert edit[0] in text
    path = tmp_path / "gap_first.pwhile"
    path.write_text(text.replace(*edit))
    reports, _ = verify_file(str(path))
    assert reports[0].verdict == "refuted", reports[0].failure


def test_the_kernel_reads_the_guard_of_a_lap_case_after_the_assignments_before_it(tmp_path):
    """A certificate of ok_w05 moved onto its twin whose gap is taken to the public threshold
    (same statements, same positions): the kernel derives the twin's guard from its source
    and refuses the certificate."""
    path = PEERS2 / "ok_w05_gapsvt_gap_first.pwhile"
    cert, _ = _certificate(path)
    assert kernel.check(json.loads(json.dumps(cert))).valid
    forged = json.loads(json.dumps(cert))
    assert "gap := x - th;" in forged["source"]["text"]
    forged["source"]["text"] = forged["source"]["text"].replace("gap := x - th;", "gap := x - t; ")
    outcome = kernel.check(forged)
    assert not outcome.valid or {c["verdict"] for c in outcome.claims} != {"verified"}


def test_the_addend_of_noise_added_later_is_read_from_the_statements_after_the_draw():
    prog = W.parse_while_file(str(PEERS2 / "ok_w06_gapsvt_int_queries_noise_added.pwhile"))
    found = {k: W.pretty_expr(e) for k, e in derive.addends(prog.procs[0].body).items()}
    assert sorted(found.values()) == ["q[i]", "t"]


def test_the_per_branch_cost_is_bounded_by_the_count_of_answers_above():
    _, reports = _verified(SVT)
    (info,) = reports[0].loops.values()
    text = " ".join(T.pretty(c) for c in info["invariants"])
    assert "cnt'" in text and "<= c" in text
    assert any("cost''" in T.pretty(c) and "cnt'" in T.pretty(c) for c in info["invariants"])


# ---- the kernel -----------------------------------------------------------------------------

def test_a_builder_that_drops_the_per_branch_cost_is_caught_by_the_kernel(monkeypatch):
    path = APRHL / "mistakes" / "svtc_noise_too_small.pwhile"
    real_rule = derive.Builder.rule_lap

    def buggy(self, s, st, case_if=None, between=()):   # the branch's shift is charged nothing
        node, after = real_rule(self, s, st, case_if=case_if, between=between)
        if case_if is not None:
            node.data["cost"] = T.real(0)
            after = derive.State(after.vals, after.facts, st.cost)
        return node, after

    monkeypatch.setattr(derive.Builder, "rule_lap", buggy)
    cert, reports = _certificate(path)
    assert reports[0].verdict == "verified"   # the bug...
    outcome = kernel.check(cert)
    assert not outcome.valid and "Lap rule charges" in outcome.reason    # ...refused


def _case_entry(cert):
    (entry,) = [c for c in cert["claims"][0]["costs"] if "case" in c]
    return entry


def test_a_per_branch_shift_that_reads_the_draw_is_refused():
    cert, _ = _verified(SVT)
    entry = _case_entry(cert)
    draw = T.var(f"x'{entry['line']}d{entry['col']}", T.REAL)
    terms = [T.term_to_json(t) for t in (draw, draw)]
    entry["case"] = {"vocabulary": T.vocabulary_of(draw).to_json(), "terms": terms,
                     "text": ["x", "x"]}
    outcome = kernel.check(cert)
    assert not outcome.valid and "mentions" in outcome.reason


def test_swapped_per_branch_shifts_are_refused():
    cert, _ = _verified(SVT)
    entry = _case_entry(cert)
    entry["case"]["terms"].reverse()
    entry["case"]["text"].reverse()
    outcome = kernel.check(cert)
    assert not outcome.valid


def test_a_per_branch_shift_recorded_for_a_lap_without_its_if_is_refused():
    cert, _ = _verified(SVT)
    entry = _case_entry(cert)
    th = [c for c in cert["claims"][0]["costs"] if "case" not in c][0]
    th["case"] = entry["case"]
    th.pop("shift", None)
    outcome = kernel.check(cert)
    assert not outcome.valid and "followed by an if" in outcome.reason
