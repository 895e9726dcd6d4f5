"""Issue 26, a class met by natural programs: a decision on the result of a call of a pure val
(a clipped maximum compared with the next element, a helper's value compared with a
threshold). The Decidable condition reads such a call as rational when the val's contract
says its definition returns rationals on rational arguments (by induction over its recursive
calls) and its arguments are rational (``obligations.decidable.val_call_name``, asked of the
builder's and the kernel's contracts alike). Programs that must verify (their certificates
accepted), twins that must not, and a builder bug the kernel refuses on its own."""
from __future__ import annotations

import pytest

from test_reach import not_verified, verified
from verify_helpers import kernel_refuses

TOP = """val top :: {l :: real list | adj (l<1>, l<2>)} -> {m :: real | abs (m<1> - m<2>) <= 1.0}
let rec top l = match l with
  | [] -> 0.0
  | x :: xs -> max (CLIPPED, top xs)

val main :: {l :: real list | adj (l<1>, l<2>)} -> {eps :: real+ | =} -> M[DP(eps)] {r :: real | =}
let main l eps = lapMech (eps, top l)
"""

HELPER = """val h :: {x :: real | true} -> {y :: real | true}
let h x = BODY

val main :: {x :: real | abs (x<1> - x<2>) <= 1.0} -> {eps :: real+ | =} -> M[DP(eps)] {b :: bool | =}
let main x eps = mlet n = lapMech (eps, x) in return (h n > 1.0)
"""


@pytest.mark.parametrize("text", [
    TOP.replace("CLIPPED", "min (max (x, 0.0), 1.0)"),
    TOP.replace("CLIPPED", "(if x < 0.0 then 0.0 else if x > 1.0 then 1.0 else x)"),
    HELPER.replace("BODY", "x / 2.0"),
    HELPER.replace("BODY", "abs (x - 3.0) + min (x, 1.0)"),
])
def test_a_decision_on_a_rational_pure_call_is_decidable(text):
    verified(text)


@pytest.mark.parametrize("text, name", [
    (HELPER.replace("BODY", "x * sqrt 2.0"), "main"),       # irrational: R011 may stop one run
    (HELPER.replace("BODY", "exp x"), "main"),
    (TOP.replace("CLIPPED", "min (max (x * sqrt 2.0, 0.0), 1.0)"), "top"),
    (TOP.replace("CLIPPED", "max (x, 0.0)"), "top"),           # not clipped: false
])
def test_a_decision_on_a_call_that_need_not_be_rational_is_refused(text, name):
    not_verified(text, name)


def test_the_kernel_refuses_a_call_taken_as_rational(monkeypatch):
    from obligations import decidable as D
    from obligations import terms as T
    from verifier.rules import decidable
    text = HELPER.replace("BODY", "x * sqrt 2.0")
    real = decidable.Decidability.leaf

    def bug(patch):  # the builder reads every call of a val as rational
        def leaf(self, v):
            return D.NO_TAGS if isinstance(v, T.Apply) else real(self, v)
        patch.setattr(decidable.Decidability, "leaf", leaf)
    kernel_refuses(monkeypatch, text, "main", bug, "cannot always decide")
