"""Pointwise-Value (verifier/rules/couplings.py): the builder side of Report Noisy Max with
Laplace noise written as an argmax loop (issue #23). The search tries it only with
``POINTWISE_VALUE`` set: the kernel does not check it yet, so the shipped verifier leaves the
claim unknown (no verdict rests on a rule the kernel cannot re-check)."""
from pathlib import Path

import pytest

from verifier.language.invariants import argmax_roles
from verifier.language.parser import parse_file
from verifier.language.resolve import resolve
from verifier.language.typecheck import typecheck_program
from verifier.rules import couplings as C

ROOT = Path(__file__).resolve().parent.parent / "benchmarks" / "programs"


def _search(path, monkeypatch):
    monkeypatch.setattr(C, "POINTWISE_VALUE", True)
    program = resolve(parse_file(str(ROOT / path)))
    val = program.vals()[-1]
    return program, C.prove_by_coupling(program, typecheck_program(program), val)


def _rules(node):
    yield node.rule
    for p in node.premises:
        yield from _rules(p)


def test_argmax_loop_is_proved_by_the_builder(monkeypatch):
    """Through the verifier's pipeline: a Pointwise-Value derivation whose every obligation
    is verified is built (the claim stays unknown while the kernel cannot check it)."""
    from verifier import api
    monkeypatch.setattr(C, "POINTWISE_VALUE", True)
    built, original = [], C._build

    def spy(*args, **kwargs):
        out = original(*args, **kwargs)
        if out is not None and args[3] == "value" and not out[2]:
            built.append(out)
        return out
    monkeypatch.setattr(C, "_build", spy)
    api.verify_file(str(ROOT / "couplings/noisy_max_laplace.pinf"))
    assert built
    b, root, _ = built[-1]
    assert "Pointwise-Value" in set(_rules(root))
    assert set(b.invariants) == {"loop"}


@pytest.mark.parametrize("path", ["mistakes/noisy_max_noise_too_small.pinf",
                                  "mistakes/noisy_max_releases_value.pinf"])
def test_broken_twins_are_not_proved(monkeypatch, path):
    _, found = _search(path, monkeypatch)
    assert found is None


def test_a_wrong_invariant_is_not_proved(monkeypatch):
    """The invariant is a hint: stated with a smaller bound c (answers 1/2 apart), its
    obligations fail and no derivation is taken."""
    from verifier.language import invariants as I
    original = I.allwithin_bound
    monkeypatch.setattr(I, "allwithin_bound", lambda val: original(val) / 2)
    monkeypatch.setattr(C, "POINTWISE_VALUE", True)
    _, found = _search("couplings/noisy_max_laplace.pinf", monkeypatch)
    assert found is None


def test_roles_of_the_argmax_loop():
    program = resolve(parse_file(str(ROOT / "couplings/noisy_max_laplace.pinf")))
    roles = argmax_roles(program.find_let("loop"))
    assert (roles.items, roles.counter, roles.index, roles.value, roles.same) == (0, 1, 2, 3, (4,))
    assert argmax_roles(program.find_let("reportNoisyMax")) is None
