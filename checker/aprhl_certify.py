"""Certificates of apRHL derivations of while-programs (``privinfer verify F.pwhile
--certificate OUT.json``), checked by ``checker.aprhl``.

A certificate holds the source text, and per specified procedure: the verdict, the claim, the
loop invariants and variants the derivation used (by the loop's line and column), the cost the
derivation charged at each ``Lap`` (by line and column) and every obligation with its result.
The kernel trusts none of it: it derives the obligations again from the source and these hints,
refuses a certificate whose recorded costs or obligations differ from what the rules give (a
dropped or weakened obligation, a ``Lap`` charged too little), and discharges every obligation
itself.
"""
from __future__ import annotations

from typing import Any, Dict, List

from obligations import terms as T
from obligations.z3_native import version_string

FORMAT = "privinfer-aprhl-certificate"
VERSION = 1


def _terms_json(terms: List[T.Term]) -> Dict[str, Any]:
    return {"vocabulary": T.vocabulary_of(*terms).to_json() if terms else
            T.Vocabulary().to_json(),
            "terms": [T.term_to_json(t) for t in terms],
            "text": [T.pretty(t) for t in terms]}


def certificate(prog, reports, source_name: str) -> Dict[str, Any]:
    claims = []
    for r in reports:
        loops = []
        for (line, col), info in sorted(r.loops.items()):
            inv = list(info["invariants"])
            variant = info["variant"]
            loops.append({"line": line, "col": col, "invariants": _terms_json(inv),
                          "variant": None if variant is None else _terms_json([variant])})
        costs = []
        if r.derivation is not None:
            for node in r.derivation.walk():
                if node.rule in ("Lap", "Lap-Shift") and "cost" in node.data:
                    entry = {"line": node.span.line, "col": node.span.col, "rule": node.rule,
                             "cost": _terms_json([node.data["cost"]])}
                    if "case" in node.data:
                        # a shift per branch of the if that follows (Lap-Case): the kernel
                        # picks one by run 1's guard, which it derives itself
                        entry["case"] = _terms_json(list(node.data["case"]))
                    elif "shift" in node.data:
                        # a shift found by the search: run 2's output is run 1's plus this term
                        entry["shift"] = _terms_json([node.data["shift"]])
                    costs.append(entry)
        claims.append({
            "name": r.name,
            "statement": r.claim,
            "verdict": r.verdict,
            "guarantee": r.guarantee,
            "pointwise": r.pointwise,
            "onesided": r.onesided,
            "loops": loops,
            "costs": costs,
            "obligations": [ob.to_json() for ob in r.obligations],
            "results": {k: v.to_json() for k, v in r.results.items()},
            # a refuted claim's witness (the verifier's report: the kernel vouches for
            # verified claims only)
            "confirmation": (r.confirmation.to_json() if r.confirmation is not None else None),
        })
    return {"format": FORMAT, "version": VERSION,
            "source": {"file": source_name, "text": prog.source},
            "solver": {"name": "z3", "version": version_string()},
            "claims": claims}
