"""The catalogue of built-ins (``verifier.language.builtins``): every entry has every part.

A built-in is one entry of the catalogue — its type, and for a mechanism its derivation rule
and theorem — and code registered under its name in each layer: its semantics
(``verifier.semantics.evaluator.BUILTINS``), its relational rule (the translator's
``_b_<name>`` for a pure one, a registered mechanism rule for one that returns a computation),
its unary Safety rule, and the kernel's rules (relational and Safety). A built-in missing any part fails
here, naming the part, rather than in somebody's proof.
"""
from __future__ import annotations

import pytest

import lemmas
import verifier.verification  # noqa: F401  (registers the rules)
from checker import mechanisms
from checker import safety as kernel_safety
from verifier.language.builtins import ASSERTION, BUILTINS, CONJUGATE, CONSTANT, mechanism_of_rule
from verifier.language.types import Arrow, Monad
from verifier.rules import registry
from verifier.rules.safety import Safety
from verifier.translation.translate import MONADIC_BUILTINS, Translator
from verifier.semantics import evaluator


def _returns_computation(entry) -> bool:
    if entry.rule is not None:
        return True
    if entry.scheme is None:
        return False
    result = entry.scheme.body
    while isinstance(result, Arrow):
        result = result.cod
    return isinstance(result, Monad)


@pytest.mark.parametrize("name", sorted(BUILTINS))
def test_every_built_in_has_every_part(name):
    entry = BUILTINS[name]
    if entry.kind == CONSTANT:
        assert name in evaluator.CONSTANTS, "no value in the evaluator"
        return
    assert name in evaluator.BUILTINS, "no semantics in the evaluator"
    if _returns_computation(entry):
        assert name in MONADIC_BUILTINS and name in registry.mechanisms(), "no relational rule"
        assert hasattr(Safety, f"_mech_{name}") or registry.safety_rule(name), "no Safety rule"
        assert name in mechanisms.RULES, "no rule in the kernel"
        assert hasattr(kernel_safety.Safety, f"_mech_{name}"), "no Safety rule in the kernel"
        assert entry.rule is not None
        assert mechanism_of_rule(entry.rule) is entry
        assert lemmas.get(entry.theorem).id == entry.theorem, "its theorem is not in the library"
    else:
        assert entry.rule is None and entry.theorem is None
        assert hasattr(Translator, f"_b_{name}"), "no translation into the logic"
    if entry.kind == ASSERTION:
        assert entry.scheme is not None


@pytest.mark.parametrize("family", sorted(CONJUGATE))
def test_every_conjugate_family_has_its_lemma(family):
    c = CONJUGATE[family]
    assert c.likelihood in BUILTINS and c.prior in BUILTINS
    lemma = c.lemma.replace("/k", "/k=3")
    assert lemmas.get(lemma).id == lemma


def test_the_kernel_knows_exactly_the_catalogue_mechanisms():
    assert set(mechanisms.RULES) == {b.name for b in BUILTINS.values() if b.rule}
