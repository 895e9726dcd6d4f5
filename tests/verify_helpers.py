"""Helpers shared by the verifier's tests (imported by name: pytest puts tests/ on the path)."""
from __future__ import annotations

import json
from typing import Dict, Tuple

from checker.certify import certificate, dumps
from verifier.language.parser import parse_program
from verifier.language.typecheck import typecheck_program
from verifier.verification import ClaimReport, verify_program


def claims_and_certificate(text: str) -> Tuple[Dict[str, ClaimReport], dict]:
    """Verify the program ``text``: its claims by name, and its certificate as JSON data."""
    program = parse_program(text, "test.pinf")
    report = verify_program(program, typecheck_program(program))
    cert = json.loads(dumps(certificate(report, program.source, program.file)))
    return {c.name: c for c in report.claims}, cert
