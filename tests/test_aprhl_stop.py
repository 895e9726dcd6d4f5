"""AboveThreshold stopped by a variable (docs/aprhl.md, "What is inferred": a guard conjunct
over a variable set only on an answer above bounds the cost, spent once on the iteration that
ends the loop). Each spelling of the stop verifies and its certificate is re-derived by the
kernel; answers noised too little for eps are refuted. (A stop that lets the loop go on after
an answer above is not necessarily a mistake: releasing the *last* answer above is
AboveThreshold read backwards, private, and verified by the pointwise rule.)"""
import json

import pytest

from checker import aprhl as kernel
from checker.aprhl_certify import certificate
from verifier.aprhl.commands import verify_file
from verifier.language import whilelang as W

TEMPLATE = """proc AT (q : real list) (pub t : real) (pub eps : real+) : int
  |- (eps, 0) : allWithin (q<1>, q<2>, 1) /\\ eps >= 1 / 1000 ==> =
  th := $ Lap (2 / eps, t);
  i := 0;
  done := false;
  r := 0 - 1;
  while i < size q && GUARD do
    x := $ Lap (SCALE / eps, q[i]);
    if x >= th then
      SET
    end;
    i := i + 1
  end;
  return r
end
"""

STOPS = {
    "negative": ("r < 0", "r := i"),
    "sentinel": ("r = 0 - 1", "r := i"),
    "done flag": ("not done", "done := true; r := i"),
}


def _verify(tmp_path, guard, set_, scale="4"):
    path = tmp_path / "at.pwhile"
    path.write_text(TEMPLATE.replace("GUARD", guard).replace("SET", set_).replace("SCALE", scale))
    reports, _ = verify_file(str(path))
    return path, reports


@pytest.mark.parametrize("stop", sorted(STOPS))
def test_each_spelling_of_the_stop_verifies_and_the_kernel_agrees(tmp_path, stop):
    guard, set_ = STOPS[stop]
    path, reports = _verify(tmp_path, guard, set_)
    assert [r.verdict for r in reports] == ["verified"], [r.failure for r in reports]
    cert = json.loads(json.dumps(certificate(W.parse_while_file(str(path)), reports, str(path))))
    outcome = kernel.check(cert)
    assert outcome.valid, outcome.reason


@pytest.mark.parametrize("guard, set_, scale", [
    ("r < 0", "r := i", "1"),
    ("not done", "done := true; r := i", "1"),
])
def test_answers_noised_too_little_are_refuted(tmp_path, guard, set_, scale):
    """Scale 1 / eps for the answers: the output 1 on [-0.5, 0.5] against [0.5, -0.5] has an
    exact loss above eps."""
    _, reports = _verify(tmp_path, guard, set_, scale)
    assert [r.verdict for r in reports] == ["refuted"], [r.failure for r in reports]
