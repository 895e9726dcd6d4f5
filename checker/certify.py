"""Writing certificates: a verification report as a self-contained JSON document.

``certificate(report, source_text, source_name)`` turns the ``Report`` of
``verifier.verification`` (read through its attributes only: this module imports nothing from
the verifier) into the JSON structure that ``checker/certificate.schema.json`` describes and
``checker.kernel`` checks: the source, every claim with its verdict, and for each claim with a
derivation which rule was applied where — never terms or obligations, which the kernel
derives itself. ``dumps`` renders it deterministically (sorted keys, no timings outside
``"timings"``, no absolute path unless the caller's source name is one). See
docs/certificates.md.

This module is *not* part of the kernel: it only packages what the verifier did.
"""
from __future__ import annotations

import hashlib
import json
from typing import Any, Dict, List, Mapping, Set

from checker import kernel
from obligations import schemas
from obligations.smtlib import DEFAULT_RLIMIT
from obligations.z3_native import version_string


def certificate(report: Any, source_text: str, source_name: str) -> Dict[str, Any]:
    """The certificate of ``report``, the verification of ``source_text`` (a file named
    ``source_name``). Every claim of the report is included, whatever its verdict."""
    nodes: List[Dict[str, Any]] = []
    claims, timings = [], {"claims": {}}
    rlimit = DEFAULT_RLIMIT
    for claim in report.claims:
        root = None
        if claim.derivation is not None:
            root = _add_tree(claim.name, claim.derivation, nodes)
        for result in claim.results.values():
            if result.rlimit:
                rlimit = max(rlimit, result.rlimit)
        claims.append({
            "name": claim.name, "statement": f"{claim.name} :: {claim.claim}",
            "verdict": claim.verdict, "root": root,
            "disputed": _disputed(claim) if claim.verdict == "verified" else [],
            "failure": claim.failure, "code": getattr(claim, "code", None),
            "confirmation": (claim.confirmation.to_json()
                             if getattr(claim, "confirmation", None) is not None else None),
        })
        timings["claims"][claim.name] = round(claim.seconds, 4)
    return {
        "format": kernel.FORMAT,
        "source": {"name": source_name, "text": source_text,
                   "sha256": hashlib.sha256(source_text.encode("utf-8")).hexdigest()},
        "claims": claims,
        "nodes": nodes,
        "solver": {"name": "z3", "version": version_string(), "rlimit": rlimit},
        "timings": timings,
    }


def dumps(cert: Mapping[str, Any]) -> str:
    """The certificate as text: the same certificate always gives the same bytes."""
    return json.dumps(cert, sort_keys=True, indent=1, ensure_ascii=False) + "\n"


def _add_tree(claim: str, root: Any, nodes: List[Dict[str, Any]]) -> str:
    """Append the nodes of ``root``'s tree in preorder, with canonical ids ``claim/nK``: the
    rule each applies and where (and, for a LapMech-Shift the source does not annotate, the
    shift chosen)."""
    order = list(root.walk())
    ids = {id(n): f"{claim}/n{k}" for k, n in enumerate(order, 1)}
    if len(ids) != len(order):
        raise ValueError(f"the derivation of {claim} shares nodes: it must be a tree")
    for n in order:
        entry = {
            "id": ids[id(n)], "rule": _rule(n),
            "at": None if n.span is None else [n.span.line, n.span.col, n.span.end_line,
                                               n.span.end_col],
            "premises": [ids[id(p)] for p in n.premises],
        }
        coupling = n.judgement.get("coupling")
        if isinstance(coupling, dict) and "offset" in coupling:
            # a shift the verifier chose (one written in the source, the kernel reads there)
            entry["coupling"] = {"offset": coupling["offset"], "scale": coupling["scale"]}
            if coupling.get("at") is not None:
                entry["coupling"]["at"] = coupling["at"]
        nodes.append(entry)
    return ids[id(order[0])]


def _rule(n: Any) -> str:
    """The rule as the kernel names it: a match split by the unfoldings of ``adj`` is
    Match-Split whatever number of cases it has (the builder names a split without ``adj``
    hypotheses Match)."""
    branch = n.judgement.get("branch") or {}
    if n.rule == "Match" and branch.get("mode") == "split":
        return "Match-Split"
    return n.rule


def _disputed(claim: Any) -> List[str]:
    """The disputed theorems a verified claim rests on: at its nodes and, through the lemma
    library, those its lemmas (at the nodes and behind the axioms) rest on."""
    cited: Set[str] = set()
    for n in claim.derivation.walk():
        j = n.judgement
        cited |= {j["lemma"]} if j.get("lemma") else set()
        draw = j.get("draw")
        if isinstance(draw, dict) and draw.get("lemma"):
            cited.add(draw["lemma"])
    for ob in claim.obligations:
        for inst in schemas.instantiate([h.term for h in ob.hypotheses] + [ob.goal]):
            cited.update(schemas.SCHEMAS[inst.schema].lemma_ids(*inst.args))
    return sorted(set(claim.disputed) | set(kernel.library().disputed(sorted(cited))))
