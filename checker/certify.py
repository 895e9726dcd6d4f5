"""Writing certificates: a verification report as a self-contained JSON document.

``certificate(report, source_text, source_name)`` turns the ``Report`` of
``verifier.verification`` (read through its attributes only: this module imports nothing from
the verifier) into the JSON structure that ``checker/certificate.schema.json`` describes and
``checker.kernel`` checks; ``dumps`` renders it deterministically (sorted keys, no timings
outside ``"timings"``, no absolute path unless the caller's source name is one). See
docs/certificates.md.

This module is *not* part of the kernel: it only packages what the verifier did.
"""
from __future__ import annotations

import hashlib
import json
from typing import Any, Dict, Iterable, List, Mapping, Tuple

from checker import kernel
from obligations import schemas
from obligations.smtlib import to_smtlib
from obligations.terms import Term, term_to_json, vocabulary_of

_RESULT_OF = {"verified": "unsat", "refuted": "sat", "unknown": "unknown"}


def certificate(report: Any, source_text: str, source_name: str) -> Dict[str, Any]:
    """The certificate of ``report``, the verification of ``source_text`` (a file named
    ``source_name``: the name its spans and obligations carry). Every claim of the report is
    included, whatever its verdict."""
    nodes: List[Dict[str, Any]] = []
    obligations: Dict[str, Any] = {}
    results: Dict[str, Any] = {}
    records: Dict[str, Tuple[schemas.Instance, ...]] = {}
    terms: List[Term] = []
    claims, timings = [], {"claims": {}, "obligations": {}}
    lemma_ids, used = set(), set()  # of the verified claims
    for claim in report.claims:
        root, index, cited, mine = None, None, [], {}
        if claim.derivation is not None:
            start = len(nodes)
            root = _add_tree(claim.name, claim.derivation, nodes, terms, mine)
            index = nodes[start]["judgement"].get("index")
            mine.update((ob.id, (ob, claim.results[ob.id])) for ob in claim.obligations)
            for oid, (ob, result) in mine.items():
                obligations[oid], results[oid] = ob, result
                records[oid] = _axiom_records(ob)
            cited = _cited_lemmas(nodes[start:], records)
        disputed = sorted(set(claim.disputed) | set(kernel.library().disputed(cited)))
        claims.append({
            "name": claim.name, "verdict": claim.verdict, "root": root,
            "guarantee": {"statement": f"{claim.name} :: {claim.claim}", "index": index},
            "disputed": disputed, "failure": claim.failure,
            "failing": list(getattr(claim, "failing", [])),
            "code": getattr(claim, "code", None),
            "confirmation": (claim.confirmation.to_json()
                             if getattr(claim, "confirmation", None) is not None else None),
        })
        if claim.verdict == "verified":
            lemma_ids |= set(cited)
            used |= set(mine)
        timings["claims"][claim.name] = round(claim.seconds, 4)
    return {
        "format": kernel.FORMAT,
        "source": {"name": source_name, "text": source_text,
                   "sha256": hashlib.sha256(source_text.encode("utf-8")).hexdigest()},
        "claims": claims,
        "vocabulary": vocabulary_of(*terms).to_json(),
        "nodes": nodes,
        "obligations": [_obligation(obligations[i], results[i], records[i], timings)
                        for i in sorted(obligations)],
        "trust_base": kernel.library().trust_base(sorted(lemma_ids), _solvers(results[i] for i in used)),
        "timings": timings,
    }


def dumps(cert: Mapping[str, Any]) -> str:
    """The certificate as text: the same certificate always gives the same bytes."""
    return json.dumps(cert, sort_keys=True, indent=1, ensure_ascii=False) + "\n"


# ---- derivations --------------------------------------------------------------------------------

def _add_tree(claim: str, root: Any, nodes: List[Dict[str, Any]], terms: List[Term],
              selections: Dict[str, Any]) -> str:
    """Append the nodes of ``root``'s tree in preorder, with canonical ids ``claim/nK``; the
    obligations that selected a node's rule (and their results) go to ``selections``."""
    start = len(nodes)
    order = list(root.walk())
    ids = {id(n): f"{claim}/n{k}" for k, n in enumerate(order, 1)}
    if len(ids) != len(order):
        raise ValueError(f"the derivation of {claim} shares nodes: it must be a tree")
    for n in order:
        judgement = dict(n.judgement)
        if judgement.get("branch"):
            branch = dict(judgement["branch"])
            ob, result = branch.pop("obligation"), branch.pop("result")
            branch["obligation"] = ob.id if ob is not None else None
            if ob is not None:
                selections[ob.id] = (ob, result)
            judgement["branch"] = branch
        nodes.append({
            "id": ids[id(n)], "rule": n.rule, "judgement": _judgement(judgement, terms),
            "premises": [ids[id(p)] for p in n.premises],
            "obligations": [ob.id for ob in n.obligations],
            "span": None if n.span is None else {"line": n.span.line, "col": n.span.col,
                                                 "end_line": n.span.end_line,
                                                 "end_col": n.span.end_col},
        })
    return nodes[start]["id"]


def _judgement(value: Any, terms: List[Term]) -> Any:
    """Judgement data as JSON: terms as term JSON (collected for the vocabulary)."""
    if isinstance(value, Term):
        terms.append(value)
        return term_to_json(value)
    if isinstance(value, Mapping):
        return {str(k): _judgement(v, terms) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_judgement(v, terms) for v in value]
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    return str(value)


def _cited_lemmas(nodes: List[Dict[str, Any]], records) -> List[str]:
    """The lemmas a claim's ``nodes`` cite: at the nodes and through their axioms."""
    out = {lemma for n in nodes for lemma in kernel.cited_lemmas(n)}
    for n in nodes:
        for oid in kernel.obligation_ids(n):
            for inst in records[oid]:
                out.update(schemas.SCHEMAS[inst.schema].lemma_ids(*inst.args))
    return sorted(out)


# ---- obligations --------------------------------------------------------------------------------

def _axiom_records(ob) -> Tuple[schemas.Instance, ...]:
    """How each axiom of ``ob`` was made: the schema search rerun on its hypotheses and goal
    (which is how the verifier made them) must give back exactly its axioms."""
    found = schemas.instantiate([h.term for h in ob.hypotheses] + [ob.goal])
    if [(i.name, i.term) for i in found] != [(a.name, a.term) for a in ob.axioms]:
        raise ValueError(f"obligation {ob.id}: its axioms are not the schema instances of its "
                         "terms")
    return found


def _obligation(ob, result, records, timings) -> Dict[str, Any]:
    verdict = result.verdict.value
    solved = result.method in ("z3", "cvc5")
    timings["obligations"][ob.id] = {"elapsed": round(result.elapsed, 4),
                                     "resources": result.resources}
    return {
        "id": ob.id,
        "obligation": ob.to_json(),
        "axioms": [{"name": i.name, "schema": i.schema, "args": [term_to_json(a) for a in i.args]}
                   for i in records],
        "smtlib": to_smtlib(ob),
        "discharge": {"method": result.method, "verdict": verdict, "reason": result.reason,
                      "solver": result.solver, "version": result.solver_version,
                      "result": _RESULT_OF[verdict] if solved else None,
                      "core": list(result.core), "rlimit": result.rlimit,
                      "counterexample": [b.to_json() for b in result.counterexample]},
    }


def _solvers(results: Iterable[Any]) -> List[Dict[str, str]]:
    """The solvers (name, version) that discharged the verified claims' obligations."""
    used = {(r.solver, r.solver_version or "") for r in results
            if r.method in ("z3", "cvc5") and r.verdict.value == "verified"}
    return [{"name": s, "version": v} for s, v in sorted(used)]
