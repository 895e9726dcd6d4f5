"""The Python API of privinfer for tool builders.

Parse, type, run and verify programs; walk derivations and obligations; extend the verifier
with a mechanism rule or the lemma library with a lemma::

    from verifier import api
    program = api.parse_file("prog.pinf")
    report = api.verify(program)
    for claim in report.claims:
        print(claim.name, claim.verdict, claim.guarantee)
        for node in claim.derivation.walk():            # the derivation tree
            for ob in node.obligations:                    # its proof obligations
                print(node.rule, ob.kind.value, claim.results[ob.id].verdict.value)

Everything here is a re-export; the modules named in each docstring are the reference.
"""
from __future__ import annotations

from typing import List, Optional

from verifier.language.ast import Program
from verifier.language.parser import parse_expr, parse_file, parse_program, parse_rtype
from verifier.language.pretty import pretty_expr, pretty_program, pretty_rtype
from verifier.language.typecheck import TypedProgram, typecheck_program
from verifier.rules.builder import Builder
from verifier.rules.context import Cost, Ctx, Synth
from verifier.rules.derivation import Derivation
from verifier.rules.registry import mechanisms, register_mechanism
from verifier.translation.translate import NoRule
from verifier.verification import ClaimReport, Report, verify_claim, verify_program


def verify(program: Program, typed: Optional[TypedProgram] = None, *,
           only: Optional[List[str]] = None) -> Report:
    """Verify the ``val`` claims of ``program`` (typing it first when ``typed`` is None)."""
    if typed is None:
        typed = typecheck_program(program)
    return verify_program(program, typed, only=only)


def verify_file(path: str) -> Report:
    """Parse, type and verify the program in ``path``."""
    return verify(parse_file(path))


__all__ = [
    "Builder", "ClaimReport", "Cost", "Ctx", "Derivation", "NoRule", "Program", "Report",
    "Synth", "TypedProgram", "mechanisms", "parse_expr", "parse_file", "parse_program",
    "parse_rtype", "pretty_expr", "pretty_program", "pretty_rtype", "register_mechanism",
    "typecheck_program", "verify", "verify_claim", "verify_file", "verify_program",
]
