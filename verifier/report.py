"""A verification report for its readers: as text (``render``; with ``explain``, every
derivation with its obligations) and as JSON (``report_json``, the shape of
``verifier/report.schema.json``, docs/json.md). ``privinfer verify`` prints them; the
while-language's reports have their own (``verifier.aprhl.report``), the derivations as a
graph are ``verifier.graph``'s.
"""
from __future__ import annotations

from collections import Counter
from typing import Any, Dict

from verifier.verification import VERIFIED, Report


def succeeded(report: Report) -> bool:
    """Every claim of the file is verified, and it has one: a file without a ``val`` verifies
    nothing, which is not a success (exit 1, so that ``privinfer verify F && release`` does
    not pass when the claims were deleted or misnamed)."""
    return report.ok and bool(report.claims)


def render(report: Report, explain: bool = False) -> str:
    lines = [report.file]
    if not report.claims:
        lines.append("  nothing to verify: the file has no val claim (write one as val NAME :: TYPE, "
                     "docs/language.md)")
    width = max((len(c.name) for c in report.claims), default=0)
    totals_kind: Counter = Counter()
    totals_method: Counter = Counter()
    for c in report.claims:
        lines.append(f"  {c.name.ljust(width)}  {c.verdict:<8}  {c.guarantee if c.verdict == VERIFIED else c.claim}")
        if c.verdict == VERIFIED and c.disputed:
            lines.append(f"      relies on a theorem whose published proof is disputed: "
                         f"{', '.join(c.disputed)} (docs/corrections.md §7)")
        diagnostic = c.diagnostic()
        if diagnostic is not None:
            lines += ["      " + line for line in diagnostic.render().splitlines()]
        counts = c.counts()
        totals_kind.update(counts["by_kind"])
        totals_method.update(counts["by_method"])
        if explain and c.derivation is not None:
            lines.append(c.derivation.render(c.results, indent=3))
    n = sum(totals_kind.values())
    if n:
        kinds = ", ".join(f"{k} {v}" for k, v in sorted(totals_kind.items()))
        methods = ", ".join(f"{k} {v}" for k, v in sorted(totals_method.items()))
        lines.append(f"  obligations: {n} ({kinds}); discharged: {methods}")
    verified = sum(c.verdict == VERIFIED for c in report.claims)
    if report.claims:
        lines.append(f"  {verified} of {len(report.claims)} claims verified")
    return "\n".join(lines)


def report_json(report: Report) -> Dict[str, Any]:
    return {
        "file": report.file,
        "ok": succeeded(report),
        "claims": [{
            "name": c.name,
            "claim": c.claim,
            "verdict": c.verdict,
            "guarantee": c.guarantee,
            "disputed": c.disputed,
            "failure": c.failure,
            "failure_span": str(c.failure_span) if c.failure_span else None,
            "code": c.code,
            "confirmation": c.confirmation.to_json() if c.confirmation else None,
            "obligations": c.counts(),
            "derivation_size": c.derivation.size() if c.derivation else 0,
            "seconds": round(c.seconds, 4),
            "failing": [c.results[i].to_json() for i in c.failing],
        } for c in report.claims],
    }
