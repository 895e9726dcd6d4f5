"""Scans downwards in the while-language (docs/aprhl.md, "The pointwise rule"): the Pointwise
candidates read a counter counting down (Report Noisy Max scanned from the last position) and
a `first` flag. Each verified program's certificate is re-derived by the kernel; its broken
twins are never verified, and the kernel refuses a certificate built with a builder bug."""
import json
from fractions import Fraction
from pathlib import Path

import pytest

from checker import aprhl as kernel
from checker.aprhl_certify import certificate
from obligations.smtlib import Z3Session
from verifier.aprhl import derive
from verifier.language import whilelang as W
from verifier.shifts import PointShift, Shift
from verify_helpers import while_reports

PEERS2 = Path(__file__).resolve().parent / "peers2"
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


_verified = while_reports


def _edited(path: Path, old: str, new: str) -> str:
    text = path.read_text()
    assert old in text
    return text.replace(old, new)


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
    reports, _ = _verified(_edited(RNM_DOWN, old, new), refute=False)
    assert reports[0].verdict != "verified"


def test_the_downward_scan_with_small_noise_is_refuted():
    reports, _ = _verified(_edited(RNM_DOWN, "Lap (2 / eps, q[i])", "Lap (1 / eps, q[i])"))
    assert reports[0].verdict == "refuted", reports[0].failure


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
