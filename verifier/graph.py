"""Derivations as graphs: a networkx DAG and its Graphviz DOT text (``verify --dot``)."""
from __future__ import annotations

from typing import Dict

import networkx as nx

from verifier.verification import Report

_COLOURS = {"verified": "palegreen", "refuted": "salmon", "unknown": "khaki"}


def derivation_graph(report: Report) -> nx.DiGraph:
    """One DAG for the report: claim roots, rule nodes (edges to premises) and obligations."""
    g = nx.DiGraph()
    for c in report.claims:
        claim_id = f"claim:{c.name}"
        g.add_node(claim_id, kind="claim", label=f"{c.name}: {c.verdict}", verdict=c.verdict)
        if c.derivation is None:
            continue
        prefix = f"{c.name}/"
        g.add_edge(claim_id, prefix + c.derivation.id)
        for node in c.derivation.walk():
            g.add_node(prefix + node.id, kind="rule",
                       label=f"{node.rule}\n{node.judgement.get('summary', '')}")
            for premise in node.premises:
                g.add_edge(prefix + node.id, prefix + premise.id)
            for ob in node.obligations:
                verdict = c.results[ob.id].verdict.value
                g.add_node(ob.id, kind="obligation", label=ob.provenance.description,
                           verdict=verdict)
                g.add_edge(prefix + node.id, ob.id)
    return g


def to_dot(g: nx.DiGraph) -> str:
    """Graphviz text for a graph built by ``derivation_graph``."""
    ids: Dict[str, str] = {n: f"n{i}" for i, n in enumerate(g.nodes)}
    lines = ["digraph derivation {", "  rankdir=TB;", '  node [fontname="Helvetica", fontsize=10];']
    for n, data in g.nodes(data=True):
        label = _quote(data.get("label", n))
        if data.get("kind") == "obligation":
            colour = _COLOURS.get(data.get("verdict"), "white")
            lines.append(f'  {ids[n]} [shape=note, style=filled, fillcolor={colour}, label="{label}"];')
        elif data.get("kind") == "claim":
            colour = "palegreen" if data.get("verdict") == "verified" else "salmon"
            lines.append(f'  {ids[n]} [shape=doubleoctagon, style=filled, fillcolor={colour}, '
                         f'label="{label}"];')
        else:
            lines.append(f'  {ids[n]} [shape=box, label="{label}"];')
    for a, b in g.edges:
        lines.append(f"  {ids[a]} -> {ids[b]};")
    lines.append("}")
    return "\n".join(lines) + "\n"


def write_dot(report: Report, path: str) -> None:
    with open(path, "w", encoding="utf-8") as f:
        f.write(to_dot(derivation_graph(report)))


def _quote(text: str) -> str:
    text = text if len(text) <= 120 else text[:119] + "…"
    return text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
