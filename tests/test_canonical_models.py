"""A verdict must not depend on how a program is spelt.

z3's models depend on the names and the order of its declarations, and on the terms its
context holds from earlier problems. The refutation search starts from those models, so before
``counterexamples.canonical_names`` (and a new z3 context per model) a renamed program could be
refuted where the original was unknown. The eight programs of ``metamorphic_cases/`` are the
shrunk failures of the 10,000-program campaign of 2026-11-27 (benchmarks/results/): each must
get the same verdicts as its variant (renamed, reordered, padded), built as the campaign built it.
"""
import random
import re
from pathlib import Path

import pytest

from obligations import (INT, REAL, FuncDecl, Obligation, ObligationKind, Provenance, Verdict,
                         and_, discharge, ge, le, uninterpreted_sort, var)
from obligations.counterexamples import canonical_names
from obligations.encoding import encode
from obligations.smtlib import Z3Session
from verifier.fuzz import metamorphic
from verifier.fuzz.case import verdicts_of, parse_and_type
from verifier.language.pretty import pretty_program

CASES = sorted((Path(__file__).parent / "metamorphic_cases").glob("*.pinf"))
#: the campaign's variant of a program of seed s is built with Random(s ^ VARIANT_SALT)
VARIANT_SALT = 0xA11A5


@pytest.mark.parametrize("path", CASES, ids=[p.stem for p in CASES])
def test_a_variant_gets_the_verdicts_of_its_program(path):
    seed = int(re.search(r"seed(\d+)", path.stem).group(1))
    text = path.read_text()
    program, _ = parse_and_type(text)
    before = verdicts_of(text)
    variant = metamorphic.variant(program, random.Random(seed ^ VARIANT_SALT))
    after = verdicts_of(pretty_program(variant.program))
    assert before and after
    assert {n: after.get(variant.names.get(n, n)) for n in before} == before


def test_the_cases_still_refute_what_they_can():
    """Invariance is not bought by giving up: claims refuted before the fix in one spelling
    are refuted in both now (a list summing to 2 bound to a [0,1] variable)."""
    refuted = {p.stem: verdicts_of(p.read_text()) for p in CASES if p.stem.startswith(("001", "007"))}
    assert refuted["001_h4_seed1827048742"]["h4"] == "refuted"
    assert refuted["007_main_seed1827056919"]["main"] == "refuted"


PROV = Provenance("test", "n0", "a test obligation")
LR = uninterpreted_sort("List[real]")
SUM = FuncDecl("sum", (LR,), REAL)
LENGTH = FuncDecl("length", (LR,), INT)


def _sum_in_unit(name: str) -> Obligation:
    """``0 <= sum l <= 1`` for a list named ``name``: false, with many counterexamples."""
    l = var(name, LR)
    return Obligation(kind=ObligationKind.RANGE, hypotheses={}, provenance=PROV,
                      axioms={"ax_len": ge(LENGTH(l), 0)},
                      goal=and_(ge(SUM(l), 0), le(SUM(l), 1)))


def _point(result) -> str:
    [binding] = result.counterexample
    return binding.value


def test_the_counterexample_does_not_depend_on_the_names():
    points = {name: _point(discharge(_sum_in_unit(name)))
              for name in ("l", "q92", "q52", "zz", "a_long_name", "x1")}
    assert len(set(points.values())) == 1, points


def test_the_counterexample_does_not_depend_on_what_z3_ran_before():
    alone = _point(discharge(_sum_in_unit("l")))
    session = Z3Session()
    for name in ("m", "n", "o"):
        assert discharge(_sum_in_unit(name), session=session).verdict == Verdict.REFUTED
    assert _point(discharge(_sum_in_unit("l"), session=session)) == alone


def test_canonical_names_number_by_first_occurrence():
    a, b = var("b", REAL), var("a", REAL)
    ob = Obligation(kind=ObligationKind.ENTAILMENT, hypotheses={"h_le": le(a, b)}, provenance=PROV,
                    goal=le(b, a))
    names = canonical_names(encode(ob))
    assert (names[a], names[b]) == ("v0", "v1")
