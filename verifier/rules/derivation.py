"""Derivation trees: one node per rule application.

A node records the rule's name, its conclusion as structured data (the judgement: context
hypotheses by name, the expression, the relational type or cost), its premises, and the proof
obligations the rule generated. ``Derivation.walk()`` visits the tree depth first.
"""
from __future__ import annotations

from typing import Any, Dict, Iterator, List, Optional

from obligations.model import Obligation
from obligations.records import field, record
from verifier.language.ast import Span


@record(frozen=False)
class Derivation:
    """A rule application ``premises / conclusion`` with the obligations it generated."""

    id: str
    rule: str
    judgement: Dict[str, Any]
    span: Optional[Span]
    premises: List["Derivation"] = field(default_factory=list)
    obligations: List[Obligation] = field(default_factory=list)

    def walk(self) -> Iterator["Derivation"]:
        """This node and every node below it, depth first, premises in order."""
        stack = [self]
        while stack:
            node = stack.pop()
            yield node
            stack.extend(reversed(node.premises))

    def all_obligations(self) -> List[Obligation]:
        """Every obligation of the tree, each once, in tree order."""
        seen, out = set(), []
        for node in self.walk():
            for ob in node.obligations:
                if ob.id not in seen:
                    seen.add(ob.id)
                    out.append(ob)
        return out

    def size(self) -> int:
        return sum(1 for _ in self.walk())

    def render(self, results: Optional[Dict[str, Any]] = None, indent: int = 0) -> str:
        """The tree as indented text, one line per node and per obligation."""
        lines: List[str] = []
        self._render(lines, results or {}, indent)
        return "\n".join(lines)

    def _render(self, lines: List[str], results: Dict[str, Any], indent: int) -> None:
        pad = "  " * indent
        where = f"  [{self.span.line}:{self.span.col}]" if self.span else ""
        summary = self.judgement.get("summary", "")
        lines.append(f"{pad}{self.rule}: {summary}{where}")
        for ob in self.obligations:
            verdict = results.get(ob.id)
            mark = f" -- {verdict.verdict.value} ({verdict.method})" if verdict else ""
            lines.append(f"{pad}  ⊢ {ob.provenance.description}{mark}")
        for p in self.premises:
            p._render(lines, results, indent + 1)
