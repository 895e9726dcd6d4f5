"""Issue 26, a class met by natural programs: the statistical distance of two Bernoulli laws in
closed form, ``tv (bernoulli a, bernoulli b) = |a - b|`` (schema ``tvbernoulli``, lemma
``sd.bernoulli``, whose artifact the kernel re-checks): a coin whose bias depends on a private
bit, inferred or drawn. Programs that must verify (their certificates accepted), twins that
must not, and a builder that assumes a wrong closed form, which the kernel refuses."""
from __future__ import annotations

import pytest

from test_reach import not_verified, verified
from verify_helpers import kernel_refuses

COIN = "bernoulli (if b then 0.6 else 0.3)"


@pytest.mark.parametrize("text", [
    f"val main :: {{b :: bool | true}} -> {{d :: D[bool] | Delta[SD] (d<1>, d<2>) <= 0.3}}\n"
    f"let main b = infer (ran ({COIN}))\n",
    f"val main :: {{b :: bool | true}} -> M[SD, 0.3] {{x :: bool | =}}\nlet main b = ran ({COIN})\n",
    f"val main :: {{b :: bool | true}} -> M[DP(0.0), 0.3] {{x :: bool | =}}\n"
    f"let main b = ran ({COIN})\n",
    "val main :: {p :: real | 0.0 <= p<1> /\\ p<1> <= 0.5 /\\ 0.0 <= p<2> /\\ p<2> <= 0.5}\n"
    "         -> M[SD, 0.5] {x :: bool | =}\nlet main p = ran (bernoulli p)\n",
])
def test_bernoulli_laws_are_within_the_difference_of_their_biases(text):
    verified(text, "main")


@pytest.mark.parametrize("text", [
    f"val main :: {{b :: bool | true}} -> {{d :: D[bool] | Delta[SD] (d<1>, d<2>) <= 0.2}}\n"
    f"let main b = infer (ran ({COIN}))\n",
    "val main :: {b :: bool | true} -> M[SD, 0.3] {x :: bool | =}\n"
    "let main b = ran (bernoulli (if b then 0.9 else 0.3))\n",
    f"val main :: {{b :: bool | true}} -> M[DP(0.5)] {{x :: bool | =}}\nlet main b = ran ({COIN})\n",
    "val main :: {p :: real | 0.0 <= p<1> /\\ p<1> <= 1.0 /\\ 0.0 <= p<2> /\\ p<2> <= 1.0}\n"
    "         -> M[SD, 0.5] {x :: bool | =}\nlet main p = ran (bernoulli p)\n",
])
def test_bernoulli_laws_further_apart_are_not_within_the_bound(text):
    not_verified(text, "main")


def test_the_kernel_refuses_a_wrong_closed_form_of_the_distance(monkeypatch):
    from obligations import schemas
    from obligations import terms as T
    text = (f"val main :: {{b :: bool | true}} -> M[SD, 0.1] {{x :: bool | =}}\n"
            f"let main b = ran ({COIN})\n")
    real = schemas._instance_or_none

    def bug(patch):  # the builder's instance says Bernoulli laws are at distance 0
        def instance(schema, args):
            if schema == "tvbernoulli" and real(schema, args) is not None:
                return T.eq(args[0], T.real(0))
            return real(schema, args)
        patch.setattr(schemas, "_instance_or_none", instance)
        patch.setattr(schemas, "_INSTANTIATED", {})  # the builder's axioms, not the kernel's
    kernel_refuses(monkeypatch, text, "main", bug, "not proved")
