"""Mirror images and scans downwards in the while-language (docs/aprhl.md, "The shift search"
and "The pointwise rule"): the shift search ranks a template and its mirror image alike, so
SVT counting the answers *below* its threshold (Algorithm 1 on the negated answers) is proved
by the threshold moved by -1 and the answer below by -1; the Pointwise candidates read a
counter counting down (Report Noisy Max scanned from the last position) and a `first` flag.
Each verified program's certificate is re-derived by the kernel; its broken twins are never
verified, and the kernel refuses its certificate moved onto them or built with a builder bug."""
import functools
import json
from fractions import Fraction
from pathlib import Path

import pytest

from checker import aprhl as kernel
from checker.aprhl_certify import certificate
from obligations.smtlib import Z3Session
from verifier.aprhl import derive
from verifier.aprhl.commands import verify_file
from verifier.aprhl.search import _assignments
from verifier.language import whilelang as W
from verifier.shifts import (IDENTITY, CaseShift, PointShift, Shift, case_templates, direction,
                             negated, shift_templates)

PEERS2 = Path(__file__).resolve().parent / "peers2"
SVT_BELOW = PEERS2 / "ok_w20_svt_stops_after_c_below.pwhile"
RNM_DOWN = PEERS2 / "ok_w08_rnm_first_flag_reverse.pwhile"

RNM_UP = """proc ArgMaxUp (q : real list) (pub eps : real+) : int
  |- (eps, 0) : allWithin (q<1>, q<2>, 1) ==> =
  first := true;
  best := 0;
  top := 0;
  i := 0;
  while i < size q do
    y := $ Lap (2 / eps, q[i]);
    if first || y > top then
      best := i;
      top := y;
      first := false
    end;
    i := i + 1
  end;
  return best
end
"""

RNM_DOWN_UNSET = """proc ArgMinDown (q : real list) (pub eps : real+) : int
  |- (eps, 0) : allWithin (q<1>, q<2>, 1) ==> =
  best := -1;
  low := 0;
  i := size q - 1;
  while i >= 0 do
    y := $ Lap (2 / eps, q[i]);
    if best = -1 || y < low then
      best := i;
      low := y
    end;
    i := i - 1
  end;
  return best
end
"""


@functools.lru_cache(maxsize=None)
def _verified(text: str):
    """The reports of a program (its text), verified once per test process."""
    from tempfile import TemporaryDirectory
    with TemporaryDirectory() as d:
        path = Path(d) / "p.pwhile"
        path.write_text(text)
        reports, _ = verify_file(str(path))
        prog = W.parse_while_file(str(path))
        return reports, json.dumps(certificate(prog, reports, str(path)))


def _edited(path: Path, old: str, new: str) -> str:
    text = path.read_text()
    assert old in text
    return text.replace(old, new)


# ---- the templates and their order ----------------------------------------------------------

def test_a_template_and_its_mirror_image():
    for t in shift_templates(False) + case_templates():
        assert negated(negated(t)) == t
        assert direction(negated(t)) == -direction(t)
    assert direction(IDENTITY) == 0 and direction(Shift(Fraction(0), 1)) == 0
    assert negated(CaseShift(Shift(Fraction(1), 0), Shift(Fraction(0), 1))) == \
        CaseShift(Shift(Fraction(-1), 0), Shift(Fraction(0), 1))
    assert negated(PointShift(Shift(Fraction(2), 0), IDENTITY)).at.offset == -2


def test_the_mirror_image_of_a_coupling_is_searched_right_after_it():
    # two sites as in SVT: the threshold (one value in both runs) and the answer's draw,
    # followed by its if
    th, x = (1, 1), (2, 1)
    options = {th: shift_templates(True), x: (IDENTITY,) + case_templates()}
    order = list(_assignments([th, x], options))
    noise = Shift(Fraction(0), 1)
    up = {th: Shift(Fraction(1), 0), x: CaseShift(Shift(Fraction(1), 0), noise)}
    down = {th: Shift(Fraction(-1), 0), x: CaseShift(noise, Shift(Fraction(-1), 0))}
    mixed = {th: Shift(Fraction(1), 0), x: CaseShift(noise, Shift(Fraction(-1), 0))}
    assert order[0] == {th: IDENTITY, x: IDENTITY}
    assert order.index(up) < 12 and order.index(down) < 24
    # all up, then all down, then the mixed ones
    assert order.index(up) < order.index(down) < order.index(mixed)
    # every assignment once
    assert len(order) == len({tuple(sorted((k, repr(v)) for k, v in a.items())) for a in order})
    assert len(order) == len(options[th]) * len(options[x])


# ---- SVT counting the answers below: the mirror image of Algorithm 1 --------------------------

def test_svt_counting_below_verifies_by_the_mirror_image_of_the_textbook_coupling():
    reports, cert = _verified(SVT_BELOW.read_text())
    (r,) = reports
    assert r.verdict == "verified", r.failure
    shifts = list(r.shifts.values())
    assert Shift(Fraction(-1), 0) in shifts     # the threshold moved down
    (case,) = [s for s in shifts if isinstance(s, CaseShift)]
    assert direction(case) == -1 and case.else_.offset == -1   # the answer below moved down
    outcome = kernel.check(json.loads(cert))
    assert outcome.valid, outcome.reason


@pytest.mark.parametrize("old, new", [
    ("Lap (4 * c / eps, q[i])", "Lap (c / eps, q[i])"),
    ("th := $ Lap (2 / eps, t);", "th := t;"),
    ("out := out ++ [false];\n      cnt := cnt + 1", "out := out ++ [false]"),
    ("|- (eps, 0)", "|- (eps / 2, 0)"),
], ids=["noise_too_small", "threshold_public", "count_never_incremented", "claim_halved"])
def test_the_twins_of_svt_counting_below_are_not_verified(old, new):
    reports, _ = _verified(_edited(SVT_BELOW, old, new))
    assert reports[0].verdict != "verified"


def test_its_certificate_moved_onto_its_twin_with_small_noise_is_refused():
    _, cert = _verified(SVT_BELOW.read_text())
    cert = json.loads(cert)
    cert["source"] = _edited(SVT_BELOW, "Lap (4 * c / eps, q[i])", "Lap (c / eps, q[i])")
    outcome = kernel.check(cert)
    assert not outcome.valid


# ---- Report Noisy Max scanned downwards, with a flag ----------------------------------------

@pytest.mark.parametrize("text", [RNM_DOWN.read_text(), RNM_UP, RNM_DOWN_UNSET],
                         ids=["down_flag", "up_flag", "down_unset_argmin"])
def test_report_noisy_max_verifies_in_both_directions_with_or_without_a_flag(text):
    reports, cert = _verified(text)
    (r,) = reports
    assert r.verdict == "verified", r.failure
    assert r.pointwise
    outcome = kernel.check(json.loads(cert))
    assert outcome.valid, outcome.reason


@pytest.mark.parametrize("old, new", [
    ("Lap (2 / eps, q[i])", "Lap (1 / eps, q[i])"),
    ("if first || y > top then", "if first || q[i] > top then"),
    ("|- (eps, 0)", "|- (eps / 2, 0)"),
    ("i := size q - 1;", "i := size q;"),
], ids=["noise_too_small", "exact_answer_compared", "claim_halved", "starts_past_the_end"])
def test_the_twins_of_the_downward_scan_are_not_verified(old, new):
    reports, _ = _verified(_edited(RNM_DOWN, old, new))
    assert reports[0].verdict != "verified"


def test_a_builder_that_charges_the_iteration_v_nothing_is_caught_by_the_kernel(monkeypatch):
    """A builder that charges a pointwise shift ``ite (i = v, 1, e<2> - e<1>)`` as if it were
    its other branch (the identity of the noise, free) "verifies" the downward scan with noise
    too small; the kernel charges the Lap rule itself."""
    from obligations import terms as T
    text = _edited(RNM_DOWN, "Lap (2 / eps, q[i])", "Lap (1 / eps, q[i])")
    real_cost = derive.lap_shift_cost

    def buggy(k, v1, v2, **kw):
        if isinstance(k, T.Op) and k.op == T.OpKind.ITE:
            k = k.args[2]
        return real_cost(k, v1, v2, **kw)

    monkeypatch.setattr(derive, "lap_shift_cost", buggy)
    prog = W.parse_while(text, "twin.pwhile")
    types = W.check_program(prog)
    (proc,) = prog.procs
    (site,) = [(s.span.line, s.span.col) for s in derive.samples_in(proc.body)]
    assignment = {site: PointShift(Shift(Fraction(1), 0), Shift(Fraction(0), 1))}
    report, _ = derive.attempt(proc, types[proc.name], Z3Session(), None, assignment,
                               pointwise=True)
    assert report.verdict == "verified"                        # the bug...
    cert = json.loads(json.dumps(certificate(prog, [report], "twin.pwhile")))
    outcome = kernel.check(cert)
    assert not outcome.valid and "Lap rule charges" in outcome.reason   # ...refused
