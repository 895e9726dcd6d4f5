"""Red-team round 7 (tests/redteam7_attacks/README.md): the attacked claims of the round's
programs stay unverified, the true probes keep their verdict (judgements with an output
relation other than equality, worded "a relational lifting of that relation, not differential
privacy of its output"), and the kernel refuses every forged certificate of ``forge.py``. No claim was found verified while false this round, so
there is no xfail."""
from __future__ import annotations

from pathlib import Path

import pytest

from verify_helpers import functional_attack_not_verified, while_attack_not_verified, load_module

ATTACKS = Path(__file__).resolve().parent / "redteam7_attacks"

#: true judgements, verified: the output relation is not equality, and the wording says so
PROBES = {"p17_output_relation_or_inputs_differ", "p18_output_relation_tautology",
          "p19_output_relation_implied_by_eq"}
#: a true claim the rules leave unknown: never refuted
OPEN = {"p16_expmech_finite_score_index"}
#: refused before verification (a type or binding error)
REFUSED = {"p01_match_dup_binder", "p12_triple_vs_nested", "p15_bool_order",
           "w01_real_index_from_data", "w09_mod_of_private_real"}


@pytest.mark.parametrize("path", sorted(ATTACKS.glob("*.pinf")), ids=lambda p: p.stem)
def test_no_functional_attack_is_verified(path):
    functional_attack_not_verified(path, {}, REFUSED, PROBES, OPEN)


@pytest.mark.parametrize("path", sorted(ATTACKS.glob("*.pwhile")), ids=lambda p: p.stem)
def test_no_while_attack_is_verified(path):
    while_attack_not_verified(path, REFUSED, set())


def test_the_probes_are_worded_as_relations_not_as_dp():
    """The probes' judgements are true but are not differential privacy of the output: the
    guarantee must say that its relation is not equality."""
    from verifier.language.parser import parse_program
    from verifier.language.typecheck import typecheck_program
    from verifier.verification import verify_program
    for stem in sorted(PROBES):
        path = ATTACKS / f"{stem}.pinf"
        program = parse_program(path.read_text(), path.name)
        report = verify_program(program, typecheck_program(program))
        for claim in report.claims:
            assert claim.verdict == "verified", (stem, claim.verdict)
            assert claim.guarantee.startswith("main lifts the relation") and \
                "not differential privacy of its output" in claim.guarantee, claim.guarantee


FORGE = load_module(ATTACKS / "forge.py", "redteam7_forge")


@pytest.mark.parametrize("name", sorted(FORGE.FORGERIES))
def test_every_forged_certificate_is_refused(name):
    cert, why = FORGE.forge(name)
    valid, reason = FORGE.check(cert)
    assert not valid, (name, why)
