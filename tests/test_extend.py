"""Adding a mechanism through the extension API (the README's worked example)."""
from __future__ import annotations

import pytest

from obligations import terms as T
from obligations.model import ObligationKind
from verifier import api
from verifier.extend import add_mechanism, remove_mechanism
from verifier.rules.context import Cost, Synth
from verifier.translation.symbolic import Scalar
from verifier.semantics import monad
from verifier.semantics.evaluator import run_entry
from verifier.semantics.noise import seeded_source
from verifier.semantics.values import list_of


def rr_evaluate(evaluator, arg, node):
    """Randomized response: keep the bit with probability e^eps / (1 + e^eps)."""
    eps, bit = arg
    return monad.Exponential([True, False], [int(bit), int(not bit)], 2 * eps, node.span)


def rr_rule(b, ctx, app, args):
    """Cost eps when the two runs' bits differ, 0 when they agree."""
    eps1, eps2 = b.term_pair(ctx, args[0])
    bit1, bit2 = b.term_pair(ctx, args[1])
    public = b.oblige(ctx, ObligationKind.ENTAILMENT, T.eq(eps1, eps2),
                      "the epsilon of rrMech is public", args[0].span, "RRMech")
    cost = Cost("DP", T.mul(eps1, T.ite(T.eq(bit1, bit2), 0, 1)), T.real(0), "rrMech", app.span)
    node = b.node("RRMech", ctx, app.span, "randomized response", obligations=[public])
    out = Scalar(b.fresh(ctx.binder or "flip", T.BOOL))
    return Synth(node, cost, (out, out))


@pytest.fixture(scope="module", autouse=True)
def rr_mechanism():
    add_mechanism("rrMech", "real+ * bool -> M[bool]", rr_evaluate, rr_rule,
                  meaning="randomized response")
    yield
    remove_mechanism("rrMech")


PROGRAM = """
val flipAll :: {l :: bool list | adj (l<1>, l<2>)} -> {eps :: real+ | =} -> M[DP(CLAIM)] {r :: bool list | =}
let rec flipAll l eps = match l with
  | [] -> return []
  | x :: xs -> mlet y = rrMech (eps, x) in
               mlet ys = flipAll xs eps in
               return (y :: ys)
"""


def test_the_new_mechanism_is_verified_at_its_cost():
    program = api.parse_program(PROGRAM.replace("CLAIM", "eps"))
    assert api.verify(program).ok


def test_an_undercharged_claim_is_rejected():
    program = api.parse_program(PROGRAM.replace("CLAIM", "eps / 2.0"))
    report = api.verify(program)
    assert not report.ok
    assert "privacy cost" in report.claims[0].failure


def test_the_new_mechanism_runs():
    program = api.parse_program(PROGRAM.replace("CLAIM", "eps"))
    result = run_entry(program, "flipAll", [list_of([True, False]), 1.0],
                       api.typecheck_program(program))
    drawn = monad.sample(result, seeded_source(7))
    assert len(drawn.to_list()) == 2 and all(isinstance(x, bool) for x in drawn.to_list())


def test_a_name_cannot_be_added_twice():
    with pytest.raises(ValueError):
        add_mechanism("rrMech", "real+ * bool -> M[bool]", rr_evaluate, rr_rule)
