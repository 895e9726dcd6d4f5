"""Reports of apRHL verifications: text (``--explain`` prints the derivation as apRHL rules),
JSON (the shape of ``verifier/report.schema.json``'s claims) and Graphviz (``--dot``)."""
from __future__ import annotations

from collections import Counter
from typing import Any, Dict, List

from verifier.aprhl.derive import ProcReport


def render(file: str, reports: List[ProcReport], explain: bool = False) -> str:
    lines = [file]
    if not reports:
        lines.append("  nothing to verify: no procedure has a specification line "
                     "(|- (eps, delta) : P ==> Q, docs/aprhl.md)")
    width = max((len(r.name) for r in reports), default=0)
    kinds: Counter = Counter()
    methods: Counter = Counter()
    for r in reports:
        shown = r.guarantee if r.verdict == "verified" else r.claim
        lines.append(f"  {r.name.ljust(width)}  {r.verdict:<8}  {shown}")
        if r.failure:
            where = f"{r.failure_span}: " if r.failure_span is not None else ""
            first, *rest = r.failure.splitlines()
            lines.append(f"      {where}error[{r.code}]: {first}")
            lines += ["      " + line for line in rest]
        for ob in r.obligations:
            kinds[ob.kind.value] += 1
            res = r.results.get(ob.id)
            if res is not None and res.verdict.value == "verified":
                methods[res.method] += 1
        if explain and r.derivation is not None:
            lines.append(r.derivation.render(r.results, indent=3))
    n = sum(kinds.values())
    if n:
        lines.append(f"  obligations: {n} ({', '.join(f'{k} {v}' for k, v in sorted(kinds.items()))}); "
                     f"discharged: {', '.join(f'{k} {v}' for k, v in sorted(methods.items())) or 'none'}")
    if reports:
        ok = sum(r.verdict == "verified" for r in reports)
        lines.append(f"  {ok} of {len(reports)} claims verified")
    return "\n".join(lines)


def report_json(file: str, reports: List[ProcReport], ok: bool) -> Dict[str, Any]:
    return {
        "file": file,
        "ok": ok,
        "claims": [{
            "name": r.name,
            "claim": r.claim,
            "verdict": r.verdict,
            "guarantee": r.guarantee,
            "disputed": [],
            "failure": r.failure,
            "failure_span": str(r.failure_span) if r.failure_span else None,
            "code": r.code,
            "confirmation": r.confirmation.to_json() if r.confirmation is not None else None,
            "obligations": _counts(r),
            "derivation_size": r.derivation.size() if r.derivation else 0,
            "seconds": round(r.seconds, 4),
            "failing": [r.results[ob.id].to_json() for ob in r.obligations
                        if ob.id in r.results and r.results[ob.id].verdict.value != "verified"],
        } for r in reports],
    }


def _counts(r: ProcReport) -> Dict[str, Any]:
    by_kind: Counter = Counter(ob.kind.value for ob in r.obligations)
    by_method: Counter = Counter(r.results[ob.id].method for ob in r.obligations if ob.id in r.results)
    return {"by_kind": dict(by_kind), "by_method": dict(by_method)}


def write_dot(reports: List[ProcReport], path: str) -> None:
    lines = ["digraph aprhl {", "  node [shape=box, fontname=monospace];"]
    counter = [0]

    def esc(s: str) -> str:
        return s.replace("\\", "\\\\").replace('"', '\\"')

    def add(node, parent, results) -> None:
        counter[0] += 1
        me = f"n{counter[0]}"
        bad = any(results.get(ob.id) is None or results[ob.id].verdict.value != "verified"
                  for ob in node.obligations)
        color = "red" if bad else "black"
        label = f"{node.rule}\\n{esc(node.text[:80])}\\n{len(node.obligations)} obligation(s)"
        lines.append(f'  {me} [label="{label}", color={color}];')
        if parent:
            lines.append(f"  {parent} -> {me};")
        for c in node.children:
            add(c, me, results)

    for r in reports:
        counter[0] += 1
        top = f"n{counter[0]}"
        lines.append(f'  {top} [label="{esc(r.name)}: {r.verdict}", shape=ellipse];')
        if r.derivation is not None:
            add(r.derivation, top, r.results)
    lines.append("}")
    with open(path, "w", encoding="utf-8") as out:
        out.write("\n".join(lines) + "\n")
