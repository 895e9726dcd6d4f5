"""A position read by several iterations (docs/aprhl.md, "Loop invariants"): the release of
sums over a sliding window ``q[i - 1] + q[i]`` of adjacent lists spends the cost at each
iteration whose reads include the differing position — twice for a window of two, three
times for a window of three (``Builder.candidates``: one ``ite`` per read offset). Verified
at that cost, with the kernel re-deriving the certificate; the twins charged less, with every
answer moving, with a larger bound or reading before the list: never verified."""
import json
from pathlib import Path

import pytest

from checker import aprhl as kernel
from obligations import terms as T
from verify_helpers import while_reports

WINDOWS = Path(__file__).resolve().parent / "peers2" / "ok_w17_window_sums_two_eps.pwhile"
THREE = [("i := 1;", "i := 2;"), ("q[i - 1] + q[i]", "q[i - 2] + q[i - 1] + q[i]")]


def _text(*edits) -> str:
    text = WINDOWS.read_text()
    for old, new in edits:
        assert old in text
        text = text.replace(old, new)
    return text


_verified = while_reports


@pytest.mark.parametrize("edits, width", [
    ((), 2), (tuple(THREE) + (("|- (2 * eps, 0)", "|- (3 * eps, 0)"),), 3)],
    ids=["two_at_2eps", "three_at_3eps"])
def test_window_sums_verify_at_the_cost_of_the_windows_a_position_enters(edits, width):
    reports, cert = _verified(_text(*edits))
    (r,) = reports
    assert r.verdict == "verified", r.failure
    (info,) = r.loops.values()
    # the cost invariant: one "if the iteration reading the position ran" per read
    assert any("cost''" in T.pretty(c) and T.pretty(c).count("if ") == width
               for c in info["invariants"])
    outcome = kernel.check(json.loads(cert))
    assert outcome.valid, outcome.reason


@pytest.mark.parametrize("edits", [
    (("|- (2 * eps, 0)", "|- (eps, 0)"),),
    tuple(THREE),
    (("adjWithin (q<1>, q<2>, 1)", "allWithin (q<1>, q<2>, 1)"),),
    (("adjWithin (q<1>, q<2>, 1)", "adjWithin (q<1>, q<2>, 2)"),),
    (("i := 1;", "i := 0;"),),
], ids=["charged_once", "three_at_2eps", "every_answer_moves", "bound_two", "reads_before_the_list"])
def test_the_twins_of_window_sums_are_not_verified(edits):
    reports, _ = _verified(_text(*edits), refute=False)
    assert reports[0].verdict != "verified"


def test_window_sums_charged_once_are_refuted():
    reports, _ = _verified(_text(("|- (2 * eps, 0)", "|- (eps, 0)")))
    assert reports[0].verdict == "refuted", reports[0].failure


def test_the_certificate_moved_onto_three_windows_at_the_same_cost_is_refused():
    _, cert = _verified(_text())
    cert = json.loads(cert)
    cert["source"] = _text(*THREE)     # the same lines: only the window's reads differ
    outcome = kernel.check(cert)
    assert not outcome.valid
