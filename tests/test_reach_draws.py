"""Issue 26, a class met by natural programs: the output of ``ran d`` coupled equal in both runs
(EqualInputs, Ran) lies where ``d`` draws — the paper's ``ran :: D[T] -> M[T]`` read with T's
ranges (``ranges.coupled_draw_facts``, stated by the builder and the kernel alike). Programs
that must verify (their certificates accepted), twins that must not, and a builder bug the
kernel refuses on its own."""
from __future__ import annotations

import pytest

from test_reach import not_verified, verified
from verify_helpers import kernel_refuses

ADJ = "{l :: bool list | adj (l<1>, l<2>)}"
EPS = "{eps :: real+ | =}"


def scaled(draw: str, weight: str = "w", claim: str = "DP(eps)", params: str = "") -> str:
    """A release of a count scaled by a weight drawn from ``draw``."""
    return f"""val main :: {params}{ADJ} -> {EPS} -> M[{claim}] {{r :: real * real | =}}
let main {"p " if params else ""}db eps =
  mlet w = ran ({draw}) in
  mlet x = lapMech (eps, {weight} * count db) in
  return (w, x)
"""


PRIOR = "{p :: D[[0,1]] | =} -> "


@pytest.mark.parametrize("text", [
    scaled("p", params=PRIOR),                                      # a D[[0,1]] parameter
    scaled("beta (2.0, 3.0)"),                                      # a family's support
    scaled("uniform ()", weight="(1.0 - w)"),
    scaled("categorical p", claim="DP(2.0 * eps)", params="{p :: [0,1]^3 | =} -> "),
])
def test_a_coupled_draw_has_the_range_of_its_distribution(text):
    verified(text, "main")


@pytest.mark.parametrize("text", [
    scaled("p", params="{p :: D[real] | =} -> "),                   # no range at all
    scaled("normal (0.5, 0.01)"),                                   # a normal draws any real
    scaled("p", weight="(1.0 + w)", params=PRIOR),                  # w up to 1: 2 eps
    scaled("categorical p", params="{p :: [0,1]^3 | =} -> "),        # c up to 2: 2 eps
    scaled("p", params="{p :: D[int] | =} -> "),
])
def test_a_draw_gives_no_range_its_distribution_does_not_have(text):
    not_verified(text, "main")


def test_the_kernel_refuses_a_draw_given_a_range_it_does_not_have(monkeypatch):
    from obligations import terms as T
    from verifier.rules import monadic_rules
    text = scaled("p", weight="(1.0 + w)", params=PRIOR)

    def bug(patch):  # the builder says every draw is 0
        def zero(b, ctx, e, out):
            return (T.eq(out.term, T.real(0)),) if hasattr(out, "term") else ()
        patch.setattr(monadic_rules, "draw_facts", zero)
    kernel_refuses(monkeypatch, text, "main", bug, "privacy cost")


def test_only_what_both_runs_draw_is_a_fact_of_the_coupled_draw():
    """Ran's diagonal coupling draws the shared value from either run's law: a range holds of
    it only when both laws give it (a beta's [0,1] and a normal's reals give nothing)."""
    from obligations import terms as T
    from verifier.translation import logic as L
    from verifier.translation.ranges import coupled_draw_facts
    from verifier.translation.symbolic import DistV, Scalar
    d = T.Var("d", L.DIST)
    beta = DistV("beta", (T.real(1), T.real(1)), d)
    normal = DistV("normal", (T.real(0), T.real(1)), d)
    w = Scalar(T.Var("w", T.REAL))
    assert coupled_draw_facts((), (beta, beta), w)
    assert coupled_draw_facts((), (beta, normal), w) == []
    assert coupled_draw_facts((), (normal, beta), w) == []
