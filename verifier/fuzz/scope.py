"""Name resolution for the fuzzer: which binder every occurrence of a name refers to.

The rules are the language's (LANGUAGE.md, OCaml scoping): a top-level ``let`` sees the
definitions before it (a ``let rec`` also itself), a later definition of a name shadows an
earlier one for what follows; ``let``, ``mlet``, ``fun``, ``match`` and ``let rec`` bind their
patterns in their bodies; a name bound nowhere is a built-in. A ``val``'s claim is read in the
scope of the ``val`` (the definitions before it); its refinement variables bind in their
assertion and to the right of their arrow, and a ``val`` names the last top-level ``let`` of
its name.

``resolve(program)`` gives every *site* — a pair ``(node, field)`` naming something, both
occurrences (``Var.name``, ``RunVar.name``, ``ValDecl.name``) and binding places (``PVar.name``,
``LetRec.name``, ``Match.head`` / ``tail``, ``LetDecl.name``, ``RRefine.var``, ``Quant.var``) —
its ``Binder``. ``rename(program, resolution, new_name)`` rebuilds the program with every site
of a binder renamed, which keeps the meaning when the new names are fresh.
"""
from __future__ import annotations

import itertools
from typing import Callable, Dict, List, Optional, Tuple

from obligations.records import field, record
from verifier.language import ast

TOP, LOCAL, REFINEMENT, BUILTIN = "top", "local", "refinement", "builtin"


@record(frozen=False)
class Binder:
    """One binding: ``kind`` is ``top`` (a top-level ``let``), ``local``, ``refinement`` (a
    claim's variable) or ``builtin``; ``site`` is the node that binds it (``None`` for
    built-ins); ``uses`` counts the occurrences that refer to it."""

    uid: int
    name: str
    kind: str
    site: Optional[ast.Node] = None
    uses: int = 0
    recursive: bool = False
    occurrences: List[ast.Node] = field(default_factory=list)


Site = Tuple[int, str]   # (id(node), field name)


class Resolution:
    """Every site's binder (see the module docstring)."""

    def __init__(self) -> None:
        self.sites: Dict[Site, Binder] = {}
        self.binders: List[Binder] = []
        self._builtins: Dict[str, Binder] = {}
        self._uids = itertools.count()

    def new(self, name: str, kind: str, site: Optional[ast.Node] = None) -> Binder:
        b = Binder(next(self._uids), name, kind, site)
        self.binders.append(b)
        return b

    def builtin(self, name: str) -> Binder:
        if name not in self._builtins:
            self._builtins[name] = self.new(name, BUILTIN)
        return self._builtins[name]

    def bind(self, node: ast.Node, fieldname: str, binder: Binder) -> None:
        self.sites[(id(node), fieldname)] = binder

    def use(self, node: ast.Node, fieldname: str, binder: Binder) -> None:
        self.sites[(id(node), fieldname)] = binder
        binder.uses += 1
        binder.occurrences.append(node)

    def of(self, node: ast.Node, fieldname: str = "name") -> Optional[Binder]:
        return self.sites.get((id(node), fieldname))


Env = Dict[str, Binder]


def resolve(program: ast.Program) -> Resolution:
    """Resolve every name of ``program`` (see the module docstring)."""
    res = Resolution()
    top: Env = {}
    subjects: Dict[str, Binder] = {}
    for decl in program.decls:
        if isinstance(decl, ast.LetDecl):
            binder = res.new(decl.name, TOP, decl)
            binder.recursive = decl.recursive
            res.bind(decl, "name", binder)
            env = dict(top)
            if decl.recursive:
                env[decl.name] = binder
            for p in decl.params:
                env = _pattern(res, p, env)
            _expr(res, decl.body, env)
            top[decl.name] = binder
            subjects[decl.name] = binder
    top = {}
    for decl in program.decls:
        if isinstance(decl, ast.LetDecl):
            top[decl.name] = res.of(decl)
        elif isinstance(decl, ast.ValDecl):
            subject = subjects.get(decl.name)
            if subject is not None:
                res.use(decl, "name", subject)
            _rtype(res, decl.rtype, dict(top), {})
    return res


def _lookup(res: Resolution, env: Env, name: str) -> Binder:
    return env.get(name) or res.builtin(name)


def _pattern(res: Resolution, p: ast.Pattern, env: Env) -> Env:
    if isinstance(p, ast.PVar):
        b = res.new(p.name, LOCAL, p)
        res.bind(p, "name", b)
        return {**env, p.name: b}
    if isinstance(p, ast.PTuple):
        for item in p.items:
            env = _pattern(res, item, env)
    return env


def _expr(res: Resolution, e: ast.Expr, env: Env) -> None:
    if isinstance(e, ast.Var):
        res.use(e, "name", _lookup(res, env, e.name))
    elif isinstance(e, (ast.Let, ast.MLet)):
        _expr(res, e.value, env)
        _expr(res, e.body, _pattern(res, e.pattern, env))
    elif isinstance(e, ast.LetRec):
        b = res.new(e.name, LOCAL, e)
        b.recursive = True
        res.bind(e, "name", b)
        inner = {**env, e.name: b}
        params = inner
        for p in e.params:
            params = _pattern(res, p, params)
        _expr(res, e.value, params)
        _expr(res, e.body, inner)
    elif isinstance(e, ast.Fun):
        inner = env
        for p in e.params:
            inner = _pattern(res, p, inner)
        _expr(res, e.body, inner)
    elif isinstance(e, ast.Match):
        _expr(res, e.scrutinee, env)
        _expr(res, e.nil_body, env)
        inner = dict(env)
        for fieldname in ("head", "tail"):
            name = getattr(e, fieldname)
            if name != "_":
                b = res.new(name, LOCAL, e)
                res.bind(e, fieldname, b)
                inner[name] = b
        _expr(res, e.cons_body, inner)
    else:
        for child in ast.children(e):
            if isinstance(child, ast.Expr):
                _expr(res, child, env)


def _rtype(res: Resolution, rt: ast.RType, top: Env, refs: Env) -> Env:
    """Resolve a relational type; returns the refinement variables bound for what follows."""
    if isinstance(rt, ast.RRefine):
        refs = _rtype(res, rt.base, top, refs)
        b = res.new(rt.var, REFINEMENT, rt)
        res.bind(rt, "var", b)
        refs = {**refs, rt.var: b}
        _assertion(res, rt.assertion, top, refs)
        return refs
    if isinstance(rt, ast.RArrow):
        after = _rtype(res, rt.dom, top, refs)
        _rtype(res, rt.cod, top, after)
        return refs
    if isinstance(rt, ast.RMonad):
        if rt.div.eps is not None:
            _assertion(res, rt.div.eps, top, refs)
        if rt.delta is not None:
            _assertion(res, rt.delta, top, refs)
        _rtype(res, rt.body, top, refs)
    return refs


def _assertion(res: Resolution, a: ast.Expr, top: Env, refs: Env) -> None:
    if isinstance(a, ast.RunVar):
        if a.name in refs:
            res.use(a, "name", refs[a.name])
    elif isinstance(a, ast.Var):
        res.use(a, "name", refs.get(a.name) or top.get(a.name) or res.builtin(a.name))
    elif isinstance(a, ast.Quant):
        b = res.new(a.var, REFINEMENT, a)
        res.bind(a, "var", b)
        _assertion(res, a.body, top, {**refs, a.var: b})
    elif isinstance(a, ast.DivBound):
        for child in (a.div.eps, a.left, a.right, a.bound):
            if child is not None:
                _assertion(res, child, top, refs)
    else:
        for child in ast.children(a):
            if isinstance(child, ast.Expr):
                _assertion(res, child, top, refs)


#: The fields that hold a name, per node class.
_NAME_FIELDS = {ast.Var: ("name",), ast.RunVar: ("name",), ast.PVar: ("name",), ast.LetRec: ("name",),
                ast.Match: ("head", "tail"), ast.LetDecl: ("name",), ast.ValDecl: ("name",),
                ast.RRefine: ("var",), ast.Quant: ("var",)}


def rename(node: ast.Node, res: Resolution, new_name: Callable[[Binder], Optional[str]]) -> ast.Node:
    """``node`` rebuilt with the sites of every binder ``b`` for which ``new_name(b)`` is a
    name renamed to it (spans are kept)."""
    changes = {}
    for fieldname in _NAME_FIELDS.get(type(node), ()):
        binder = res.of(node, fieldname)
        if binder is not None:
            name = new_name(binder)
            if name is not None and name != getattr(node, fieldname):
                changes[fieldname] = name
    for fieldname in ast.record_fields(node):
        value = getattr(node, fieldname)
        if isinstance(value, ast.Node):
            new = rename(value, res, new_name)
            if new is not value:
                changes[fieldname] = new
        elif isinstance(value, tuple) and any(isinstance(v, ast.Node) for v in value):
            items = tuple(rename(v, res, new_name) if isinstance(v, ast.Node) else v for v in value)
            if any(a is not b for a, b in zip(items, value)):
                changes[fieldname] = items
    return ast.replace_fields(node, **changes) if changes else node


def meaning(res: Resolution) -> Dict[Site, Tuple[object, str]]:
    """For every site, what it refers to (the binding node's ``id`` and the name, or the
    built-in's name): equal for two orders of the same declaration objects exactly when every
    name still means the same thing."""
    return {site: ("builtin" if b.site is None else id(b.site), b.name) for site, b in res.sites.items()}


__all__ = ["Binder", "Resolution", "resolve", "rename", "meaning", "TOP", "LOCAL", "REFINEMENT", "BUILTIN"]
