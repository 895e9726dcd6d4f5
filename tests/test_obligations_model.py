"""The obligation and result data model: validation, ids, JSON."""
import json
from dataclasses import dataclass

import pytest

from obligations import (BOOL, INT, REAL, Binding, FuncDecl, LemmaUse, Named, Obligation,
                         ObligationKind, Provenance, Result, SortError, SourceSpan, Verdict, add,
                         div, forall, ge, gt, integer, lt, mul, pi, sqrt, sub,
                         uninterpreted_sort, var)

LB = uninterpreted_sort("List[bool]")
LENGTH = FuncDecl("length", (LB,), INT)
ADJ = FuncDecl("adj", (LB, LB), BOOL)
eps, a = var("eps", REAL), var("aPn", REAL, 1)
l1, l2 = var("l", LB, 1), var("l", LB, 2)
SPAN = SourceSpan("paper/beta_output_laplace.pinf", 17, 10, 17, 32)
PROV = Provenance("beta", "main/n42", "the 1st argument of beta is positive", SPAN)


def obligation(**changes):
    fields = dict(
        kind=ObligationKind.RANGE,
        hypotheses={"h_adj": ADJ(l1, l2), "h_eps_pos": gt(eps, 0)},
        axioms={"ax_length_nonneg": forall(var("l", LB), ge(LENGTH(var("l", LB)), 0))},
        goal=gt(add(a, LENGTH(l1)), 0),
        provenance=PROV,
    )
    fields.update(changes)
    return Obligation(**fields)


def test_obligation_normalises_and_derives_a_deterministic_id():
    ob = obligation()
    assert ob.hypotheses == (Named("h_adj", ADJ(l1, l2)), Named("h_eps_pos", gt(eps, 0)))
    assert ob.id == obligation().id and ob.id.startswith("range-")
    assert obligation(goal=gt(a, 1)).id != ob.id
    assert obligation(id="main.beta.1").id == "main.beta.1"
    assert ob.free_vars == (l1, l2, eps, a)
    assert ob.vocabulary.functions == (ADJ, LENGTH)
    assert hash(ob) == hash(obligation())


@pytest.mark.parametrize("changes, error", [
    (dict(goal=add(eps, 1)), SortError),
    (dict(hypotheses={"adj": gt(eps, 0)}), ValueError),           # hypotheses are h_...
    (dict(axioms={"h_x": gt(eps, 0)}), ValueError),               # axioms are ax_...
    (dict(hypotheses=[("h_a", gt(eps, 0)), ("h_a", gt(eps, 1))]), ValueError),
    (dict(goal=gt(var("eps", INT), 0)), SortError),                # eps at two sorts
    (dict(id="has space"), ValueError),
    (dict(kind="range"), ValueError),
])
def test_obligation_validation(changes, error):
    with pytest.raises(error):
        obligation(**changes)


def test_obligation_json_round_trip():
    lemma = LemmaUse("hellinger_beta_adjacent", {"a": var("a", REAL), "rho": sqrt(sub(1, div(pi(), 4)))},
                     ("range-0123456789abcdef",))
    for ob in (obligation(), obligation(kind=ObligationKind.DIVERGENCE_BOUND, lemma=lemma,
                                        provenance=Provenance("expMech", "n1", "score bound"))):
        data = json.loads(json.dumps(ob.to_json()))
        assert data["hypotheses"][0]["text"] == "adj (l<1>, l<2>)"
        back = Obligation.from_json(data)
        assert back == ob and back.id == ob.id
        assert back.to_json() == ob.to_json()


def test_source_span_copies_any_span_like_object():
    @dataclass
    class Span:
        file: str = "f.pinf"
        line: int = 1
        col: int = 2
        end_line: int = 1
        end_col: int = 9

    assert SourceSpan.of(Span()) == SourceSpan("f.pinf", 1, 2, 1, 9)
    assert str(SPAN) == "paper/beta_output_laplace.pinf:17:10"


def test_result_json_and_invariants():
    r = Result(obligation="range-1", verdict=Verdict.REFUTED, method="z3", solver="z3",
               solver_version="4.x", reason="confirmed",
               counterexample=(Binding("aPn<1>", "-1/2", "-0.5"),), rlimit=10, resources=5,
               elapsed=0.25)
    assert r.counterexample_dict() == {"aPn<1>": "-1/2"}
    assert Result.from_json(json.loads(json.dumps(r.to_json()))) == r
    with pytest.raises(ValueError):
        Result(obligation="x", verdict=Verdict.VERIFIED, method="z3", reason="",
               counterexample=(Binding("x", "0"),))
    with pytest.raises(ValueError):
        Result(obligation="x", verdict=Verdict.UNKNOWN, method="z3", reason="", core=("h_a",))


def test_str_shows_the_obligation_in_program_syntax():
    text = str(obligation(goal=lt(mul(2, eps), integer(1))))
    assert "h_eps_pos: eps > 0.0" in text and "|- 2.0 * eps < 1.0" in text
    assert "ax_length_nonneg: forall l : List[bool]. length l >= 0" in text
