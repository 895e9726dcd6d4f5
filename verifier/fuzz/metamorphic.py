"""Meaning-preserving transformations: a verdict must not change under any of them.

``variant(program, rng)`` applies the three of them in turn (``Variant.steps`` says which took
effect):

* **rename**: every binder that is not a built-in gets a fresh name (``v1``, ``d2``, ...) at all its
  sites (``scope.rename``), including top-level definitions, those that redefine a built-in's
  name, the ``val``'d names and the claims' refinement variables. Fresh names cannot capture, so
  the program means the same. A top-level name defined more than once keeps its spelling (which
  definition its ``val`` is about is the verifier's question, not the renaming's).
* **reorder**: random swaps of adjacent top-level declarations, each kept only if every name
  still refers to the same binder afterwards (``scope.meaning``): a body sees only earlier
  definitions, and a claim is read in the scope of its ``val``.
* **pad**: an unused top-level definition of a fresh name (a closed, terminating value) inserted
  at a random place.

``Variant.names`` maps each claim's name in the original to its name in the variant.
"""
from __future__ import annotations

import random
from fractions import Fraction
from typing import Dict, List

from obligations.records import field, record
from verifier.fuzz import scope
from verifier.language import ast


@record(frozen=False)
class Variant:
    program: ast.Program
    names: Dict[str, str] = field(default_factory=dict)
    steps: List[str] = field(default_factory=list)


def variant(program: ast.Program, rng: random.Random) -> Variant:
    """The program renamed, reordered and padded (see the module docstring)."""
    out = Variant(program)
    renamed, names = rename_all(program)
    if renamed != program:
        out.steps.append("renamed")
    out.names = names
    reordered = reorder(renamed, rng)
    if reordered.decls != renamed.decls:
        out.steps.append("reordered")
    padded = pad(reordered, rng)
    out.steps.append("padded")
    out.program = padded
    return out


def rename_all(program: ast.Program):
    """``(program', names)``: every non-built-in binder renamed fresh (see the module docstring)."""
    res = scope.resolve(program)
    counts: Dict[str, int] = {}
    for d in program.lets():
        counts[d.name] = counts.get(d.name, 0) + 1
    taken = {b.name for b in res.binders}
    fresh: Dict[int, str] = {}
    prefix = {scope.TOP: "d", scope.LOCAL: "v", scope.REFINEMENT: "q"}

    def new_name(b: scope.Binder):
        if b.kind == scope.BUILTIN or (b.kind == scope.TOP and counts.get(b.name, 0) > 1):
            return None
        if b.uid not in fresh:
            n = len(fresh) + 1
            while f"{prefix[b.kind]}{n}" in taken:
                n += 1
            fresh[b.uid] = f"{prefix[b.kind]}{n}"
            taken.add(fresh[b.uid])
        return fresh[b.uid]

    renamed = scope.rename(program, res, new_name)
    names = {}
    for old, new in zip(program.decls, renamed.decls):
        if isinstance(old, ast.ValDecl):
            names[old.name] = new.name
    return ast.Program(renamed.decls, program.file, program.source), names


def reorder(program: ast.Program, rng: random.Random, swaps: int = 6) -> ast.Program:
    """Random adjacent swaps of top-level declarations that keep every name's meaning."""
    decls = list(program.decls)
    if len(decls) < 2:
        return program
    meaning = scope.meaning(scope.resolve(program))
    for _ in range(swaps):
        i = rng.randrange(len(decls) - 1)
        trial = decls[:i] + [decls[i + 1], decls[i]] + decls[i + 2:]
        candidate = ast.Program(tuple(trial), program.file, program.source)
        if scope.meaning(scope.resolve(candidate)) == meaning:
            decls = trial
    return ast.Program(tuple(decls), program.file, program.source)


def pad(program: ast.Program, rng: random.Random) -> ast.Program:
    """An unused definition of a fresh name inserted at a random place."""
    taken = {b.name for b in scope.resolve(program).binders}
    n = 1
    while f"unused{n}" in taken:
        n += 1
    name = f"unused{n}"
    choice = rng.randrange(3)
    if choice == 0:
        decl = ast.LetDecl(name, (), ast.RealLit(Fraction(1, 2)))
    elif choice == 1:
        decl = ast.LetDecl(name, (ast.PVar("x", ast.TBase("bool")),), ast.UnOp("not", ast.Var("x")))
    else:
        decl = ast.LetDecl(name, (ast.PVar("x", ast.TBase("real")),), ast.Return(ast.Var("x")))
    decls = list(program.decls)
    decls.insert(rng.randrange(len(decls) + 1), decl)
    return ast.Program(tuple(decls), program.file, program.source)


__all__ = ["Variant", "variant", "rename_all", "reorder", "pad"]
