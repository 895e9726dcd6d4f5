"""An exact audit compared with the verifier's verdict (``privinfer audit``, the benchmark runner).

The audit (``verifier.audit``) measures a program's privacy loss; the verifier
(``verifier.verification``) proves or refutes its claim, and its refutations run audits
(``verifier.refutation``). Comparing the two — a verified claim that the audit contradicts is a
soundness bug — belongs above both, here, so that neither imports the other in a circle.

* ``audit_program(path, entry, n, args=(), *, verify=True, **options) -> AuditResult``: parse,
  type-check, verify the entry's claim (unless ``verify`` is false), audit (``args`` are
  ``"NAME=VALUE"`` strings or a ``{name: value_text}`` mapping; ``options`` those of
  ``verifier.audit.audit``).
* ``claim_verdict(program, typed, entry, verify) -> ClaimVerdict | None``: the verifier's
  verdict on the entry's claim, as the audit compares with it.
"""
from __future__ import annotations

from typing import Any, List, Mapping, Optional, Sequence, Union

from verifier.audit import AuditResult, ClaimVerdict, audit
from verifier.errors import PrivInferError
from verifier.language import ast
from verifier.language.parser import parse_file
from verifier.language.typecheck import typecheck_program


def audit_program(path: str, entry: str, n: int, args: Union[Sequence[str], Mapping[str, Any], None] = (),
                  *, verify: bool = True, **options: Any) -> AuditResult:
    """Parse and type-check the program at ``path``, verify ``entry``'s claim (unless
    ``verify`` is false) and audit ``entry`` on private inputs of length ``1..n``. Raises
    ``PrivInferError`` on bad input (unparsable file, bad arguments, an output whose law is not
    computed, ...); bad arguments are reported before the verifier runs."""
    program = parse_file(path)
    typed = typecheck_program(program)
    try:
        return audit(program, typed, entry, n, _specs(args),
                     verdict=lambda: claim_verdict(program, typed, entry, verify), **options)
    except PrivInferError as exc:
        if exc.source is None and all(d.span is None or d.span.file == program.file for d in exc.diagnostics):
            exc.source = program.source
        raise


def claim_verdict(program: ast.Program, typed: Any, entry: str, verify: bool) -> Optional[ClaimVerdict]:
    """The verifier's verdict on ``entry``'s ``val`` (``skipped`` without ``verify``, ``error``
    when the verifier fails on the file); None when the entry has no ``val``."""
    from verifier import verification
    val = program.find_val(entry)
    if val is None:
        return None
    statement = verification.guarantee_text(val)
    if not verify:
        return ClaimVerdict("skipped", statement)
    try:
        report = verification.verify_program(program, typed, only=[entry])
    except PrivInferError as exc:   # the audit still compares with the claim
        return ClaimVerdict("error", statement, exc.first.message)
    if not report.claims:
        return ClaimVerdict("skipped", statement)
    claim = report.claims[0]
    return ClaimVerdict(claim.verdict, statement, claim.failure)


def _specs(args: Union[Sequence[str], Mapping[str, Any], None]) -> List[str]:
    if args is None:
        return []
    if isinstance(args, Mapping):
        return [f"{k}={v}" for k, v in args.items()]
    return list(args)


__all__ = ["audit_program", "claim_verdict"]
