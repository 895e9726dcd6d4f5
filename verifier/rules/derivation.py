"""Derivation trees: one node per rule application.

A node records the rule's name, its conclusion as structured data (the judgement: context
hypotheses by name, the expression, the relational type or cost), its premises, and the proof
obligations the rule generated. ``Derivation.walk()`` visits the tree depth first. The rules
describe what they judge with ``short`` (an expression on one line, for summaries and
descriptions), ``output_judgement`` and ``bound_judgement`` (values as judgement data).
"""
from __future__ import annotations

from typing import Any, Dict, Iterator, List, Optional, Tuple

from obligations.model import Obligation
from obligations.records import field, record
from verifier.language import ast as A
from verifier.language.ast import Span
from verifier.language.resolve import written
from verifier.translation.symbolic import DistV, Scalar, SymValue, TupleV, UnitV, value_terms


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


def output_judgement(output: Tuple[SymValue, SymValue]) -> Optional[list]:
    """The output of a computation as judgement data: its terms in run 1 and run 2 (a
    tuple's components in order), or None when it is not first-order."""
    left, right = (value_terms(v) for v in output)
    first_order = all(isinstance(v, (Scalar, DistV, TupleV, UnitV)) for v in output)
    if not first_order or len(left) != len(right):
        return None
    return [[a, b] for a, b in zip(left, right)]


def bound_judgement(p: A.Pattern, left: SymValue, right: SymValue) -> List[dict]:
    """What pattern ``p`` binds, as judgement data: each name with its value's terms in run 1
    and run 2 (``output_judgement``: None when the value is not first-order)."""
    if isinstance(p, A.PVar):
        return [{"name": p.name, "value": output_judgement((left, right))}]
    if isinstance(p, A.PTuple) and isinstance(left, TupleV) and isinstance(right, TupleV):
        return [entry for sub, l, r in zip(p.items, left.items, right.items)
                for entry in bound_judgement(sub, l, r)]
    return []


def short(e: A.Expr, limit: int = 60) -> str:
    """``e`` on one line, as the source writes it (renamed binders by their written name),
    cut at ``limit`` characters: for the descriptions of nodes and obligations."""
    from verifier.language.pretty import pretty_expr_short
    text = written(pretty_expr_short(e, limit + 40))
    return text if len(text) <= limit else text[:limit - 1] + "…"
