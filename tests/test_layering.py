"""The layering of ``verifier/rules`` and of the commands (docs/architecture.md, "The relational
rules"): every import, at the top of a file or inside a function, runs downward."""
from __future__ import annotations

import ast
import pathlib
from typing import Dict, Set

ROOT = pathlib.Path(__file__).resolve().parent.parent
RULES = ROOT / "verifier" / "rules"
#: below the builder: no rule, no builder
BOTTOM = {"registry", "context", "derivation", "equality", "axioms", "refinements", "function_types",
          "call_facts"}


def imported(path: pathlib.Path) -> Set[str]:
    """The dotted names of the modules ``path`` imports anywhere (``from P import m``: ``P.m``
    when that is a module of this tree)."""
    out: Set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            out.add(node.module)
            for a in node.names:
                candidate = f"{node.module}.{a.name}"
                if (ROOT / (candidate.replace(".", "/") + ".py")).exists():
                    out.add(candidate)
    return out


def rule_imports() -> Dict[str, Set[str]]:
    """Module of ``verifier/rules`` -> the modules of ``verifier/rules`` it imports."""
    prefix = "verifier.rules."
    return {p.stem: {m[len(prefix):] for m in imported(p) if m.startswith(prefix)}
            for p in sorted(RULES.glob("*.py"))}


def test_the_rules_import_each_other_in_no_circle():
    graph, done, path = rule_imports(), set(), []

    def visit(name):
        if name in done:
            return
        assert name not in path, f"a circle of imports: {' -> '.join(path[path.index(name):] + [name])}"
        path.append(name)
        for other in sorted(graph.get(name, ())):
            visit(other)
        path.pop()
        done.add(name)
    for name in graph:
        visit(name)


def test_the_builder_and_what_it_stands_on_import_no_rule():
    graph = rule_imports()
    assert graph["builder"] <= BOTTOM, sorted(graph["builder"] - BOTTOM)
    for name in BOTTOM:
        assert graph[name] <= BOTTOM, (name, sorted(graph[name] - BOTTOM))


def test_only_the_verification_loads_the_catalogue():
    graph = rule_imports()
    assert not [name for name, found in graph.items() if "catalogue" in found]
    assert "verifier.rules.catalogue" in imported(ROOT / "verifier" / "verification.py")


def test_only_commands_import_commands():
    """A module of ``verifier`` that is not a command (``verifier/commands/``, the CLI, the
    while-language's commands) imports no command."""
    commands = {ROOT / "verifier" / "cli.py", ROOT / "verifier" / "aprhl" / "commands.py"}
    offenders = []
    for path in sorted((ROOT / "verifier").rglob("*.py")):
        if path in commands or (ROOT / "verifier" / "commands") in path.parents:
            continue
        if any(m.startswith("verifier.commands") for m in imported(path)):
            offenders.append(str(path.relative_to(ROOT)))
    assert not offenders, offenders
