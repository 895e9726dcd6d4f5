"""Name resolution: every occurrence of a name points to one binder, and no binder shadows.

``resolve(program)`` returns the *resolved core* of a program: the same program in which every
binder has a name of its own (unique in the whole program) and no binder has the name of a
built-in. Occurrences are renamed with their binder, so that afterwards

* a name that is a built-in's (``normal``, ``lapMech``, ``adj``, ``count``, ``pi``, ...) always
  denotes that built-in: a program's own ``let lapMech (e, x) = return x`` is renamed
  ``lapMech#1``, and so are the uses it reaches;
* equal spellings denote the same binder: an environment keyed by name never confuses a local
  ``main`` with the top-level ``main``, or one ``x`` with another.

The relational rules, the Safety judgement and the observe-fold recognition work on the
resolved core only (``Builder`` refuses anything else), which is how no rule ever keys on a
spelling that the program could have rebound. Renamed binders get a suffix ``#k`` that the
lexer cannot produce, so a renamed name never collides with a source name.

Scopes are those of the language (OCaml's): a top-level ``let`` sees the definitions before it,
a ``let rec`` also itself; ``fun``, ``let``, ``mlet``, ``match`` and local ``let rec`` bind in
their bodies; in a ``val``, a refinement ``{x :: T | A}`` binds ``x`` (and ``x<1>``, ``x<2>``) in
``A`` and, on the left of an arrow, in the rest of the type; ``forall``/``exists`` bind in their
body. **A claim is read in the scope of its val**: the top-level definitions before the ``val``
and the built-ins — a definition after the ``val`` does not change what the claim says. The
``val`` itself names the (last) top-level definition of its name, wherever it stands.

The resolved core is an ordinary ``Program`` (``resolved=True``): it prints, types and runs
like the source, with the same spans.
"""
from __future__ import annotations

import re
from typing import Dict, List, Optional, Set, Tuple

from verifier.errors import error
from verifier.language import ast as A
from verifier.language.builtins import BUILTINS

#: The separator of renamed binders (never produced by the lexer).
SUFFIX = "#"
_RENAMED = re.compile(r"#[0-9]+")


def source_name(name: str) -> str:
    """The name as written in the source (``x#2`` was written ``x``)."""
    return name.split(SUFFIX, 1)[0]


def written(text: str) -> str:
    """``text`` (printed from the resolved core) with every renamed binder as written."""
    return _RENAMED.sub("", text)


class _Scope:
    """Source name -> resolved name, the innermost binding of each name (a flat map, copied
    for an inner scope: a lookup is constant-time however deep the nesting, and a chain of n
    binders costs n copies of at most n names, done in C)."""

    __slots__ = ("names",)

    def __init__(self, names: Dict[str, str]):
        self.names = names

    def lookup(self, name: str) -> Optional[str]:
        return self.names.get(name)

    def child(self, names: Dict[str, str]) -> "_Scope":
        return _Scope({**self.names, **names}) if names else self


class _Resolver:
    def __init__(self, program: A.Program):
        self.program = program
        self.taken: Set[str] = set()

    # ---- binders ------------------------------------------------------------------------

    def fresh(self, name: str) -> str:
        """A resolved name for a binder written ``name``: itself when that is free (not a
        built-in, not used by another binder), else ``name#k``."""
        if name == "_":
            return name
        candidate, k = name, 0
        while candidate in self.taken or candidate in BUILTINS:
            k += 1
            candidate = f"{name}{SUFFIX}{k}"
        self.taken.add(candidate)
        return candidate

    def pattern(self, p: A.Pattern, names: Dict[str, str]) -> A.Pattern:
        """``p`` with its binders renamed; ``names`` receives source -> resolved."""
        if isinstance(p, A.PVar):
            new = self.fresh(p.name)
            names[p.name] = new
            return p if new == p.name else A.replace_fields(p, name=new)
        if isinstance(p, A.PTuple):
            items = tuple(self.pattern(item, names) for item in p.items)
            return A.replace_fields(p, items=items)
        return p

    def patterns(self, ps, names: Dict[str, str]) -> Tuple[A.Pattern, ...]:
        return tuple(self.pattern(p, names) for p in ps)

    # ---- expressions ----------------------------------------------------------------------

    def expr(self, e: A.Expr, scope: _Scope) -> A.Expr:
        if isinstance(e, A.Var):
            return self.occurrence(e, scope)
        if isinstance(e, A.RunVar):
            return self.occurrence(e, scope)
        if isinstance(e, A.Fun):
            names: Dict[str, str] = {}
            params = self.patterns(e.params, names)
            return A.replace_fields(e, params=params, body=self.expr(e.body, scope.child(names)))
        if isinstance(e, (A.Let, A.MLet)):
            value = self.expr(e.value, scope)
            names = {}
            pattern = self.pattern(e.pattern, names)
            if isinstance(e, A.MLet) and isinstance(e.value, A.App) \
                    and e.value.annotation is not None:
                # the annotation of the computation an mlet binds may name what it binds (a
                # shift that depends on the branch the sample takes: docs/language.md)
                value = A.replace_fields(value, annotation=self.annotation(
                    e.value.annotation, scope.child(names)))
            return A.replace_fields(e, pattern=pattern, value=value,
                                    body=self.expr(e.body, scope.child(names)))
        if isinstance(e, A.App) and e.annotation is not None:
            resolved = self.generic(e, scope)
            return A.replace_fields(resolved, annotation=self.annotation(e.annotation, scope))
        if isinstance(e, A.LetRec):
            name = self.fresh(e.name)
            inner = scope.child({e.name: name})
            names = {}
            params = self.patterns(e.params, names)
            return A.replace_fields(e, name=name, params=params,
                                    value=self.expr(e.value, inner.child(names)),
                                    body=self.expr(e.body, inner))
        if isinstance(e, A.Match):
            names = {}
            head = self.fresh(e.head) if e.head != "_" else "_"
            tail = self.fresh(e.tail) if e.tail != "_" else "_"
            for written, new in ((e.head, head), (e.tail, tail)):
                if written != "_":
                    names[written] = new
            return A.replace_fields(e, scrutinee=self.expr(e.scrutinee, scope),
                                    nil_body=self.expr(e.nil_body, scope), head=head, tail=tail,
                                    cons_body=self.expr(e.cons_body, scope.child(names)))
        if isinstance(e, A.Quant):
            var = self.fresh(e.var)
            return A.replace_fields(e, var=var, body=self.expr(e.body, scope.child({e.var: var})))
        return self.generic(e, scope)

    def annotation(self, note: A.Annotation, scope: _Scope) -> A.Annotation:
        """An annotation's payload resolved in ``scope`` (like an assertion)."""
        return A.replace_fields(note, value=self.expr(note.value, scope))

    def generic(self, node: A.Node, scope: _Scope) -> A.Node:
        """``node`` with its sub-expressions resolved (a construct that binds nothing)."""
        changes = {}
        for field_name in A.record_fields(node):
            value = getattr(node, field_name)
            if isinstance(value, A.Expr):
                changes[field_name] = self.expr(value, scope)
            elif isinstance(value, A.Divergence):
                changes[field_name] = self.generic(value, scope)
            elif isinstance(value, tuple) and any(isinstance(v, A.Expr) for v in value):
                changes[field_name] = tuple(self.expr(v, scope) if isinstance(v, A.Expr) else v
                                            for v in value)
        return A.replace_fields(node, **changes) if changes else node

    def occurrence(self, e, scope: _Scope):
        """A use of a name: renamed with its binder; a built-in or an unbound name stays
        (the type checker reports unbound names)."""
        new = scope.lookup(e.name)
        if new is None or new == e.name:
            return e
        return A.replace_fields(e, name=new)

    # ---- relational types ------------------------------------------------------------------

    def rtype(self, rt: A.RType, scope: _Scope,
              own_var: Optional[str] = None) -> Tuple[A.RType, _Scope]:
        """``rt`` resolved, and the scope after it (an arrow's domain binds in its codomain).
        ``own_var`` is the variable of the refinement ``rt`` is the base of."""
        if isinstance(rt, A.RRefine):
            # nested refinements of one value share its variable: {x :: {x :: T | B} | A}
            var = scope.names.get(rt.var) if own_var == rt.var else None
            var = var or self.fresh(rt.var)
            inner = scope.child({rt.var: var}) if scope.names.get(rt.var) != var else scope
            base, _ = self.rtype(rt.base, inner, own_var=rt.var)
            return (A.replace_fields(rt, var=var, base=base,
                                     assertion=self.expr(rt.assertion, inner)), inner)
        if isinstance(rt, A.RArrow):
            dom, after = self.rtype(rt.dom, scope)
            cod, _ = self.rtype(rt.cod, after)
            return A.replace_fields(rt, dom=dom, cod=cod), scope
        if isinstance(rt, A.RMonad):
            div = self.generic(rt.div, scope)
            delta = self.expr(rt.delta, scope) if rt.delta is not None else None
            body, _ = self.rtype(rt.body, scope)
            return A.replace_fields(rt, div=div, delta=delta, body=body), scope
        return rt, scope

    # ---- the program -------------------------------------------------------------------------

    def run(self) -> A.Program:
        lets = self.program.lets()
        # top-level names first, in order, so that locals never take a top-level spelling
        top_names = [self.fresh(d.name) for d in lets]
        defined: Dict[str, str] = {}
        for d, new in zip(lets, top_names):
            defined[d.name] = new  # the last definition of a name is the one its val names
        scope = _Scope({})
        later = {d.name for d in lets}
        decls: List[A.Decl] = []
        resolved_lets = iter(top_names)
        for d in self.program.decls:
            if isinstance(d, A.LetDecl):
                new = next(resolved_lets)
                own = scope.child({d.name: new}) if d.recursive else scope
                names: Dict[str, str] = {}
                params = self.patterns(d.params, names)
                body = self.expr(d.body, own.child(names))
                decls.append(A.replace_fields(d, name=new, params=params, body=body))
                scope = scope.child({d.name: new})
            elif isinstance(d, A.ValDecl):
                self.check_claim_scope(d, scope, later)
                rtype, _ = self.rtype(d.rtype, scope)
                decls.append(A.replace_fields(d, name=defined.get(d.name, d.name), rtype=rtype))
            else:
                decls.append(d)
        return A.replace_fields(self.program, decls=tuple(decls), resolved=True)

    def check_claim_scope(self, val: A.ValDecl, scope: _Scope, top: Set[str]) -> None:
        """A name of the claim that only a definition after the val binds is an error (the
        claim is read where its val stands)."""
        nodes: List[A.Node] = []
        stack: List[A.Node] = [val.rtype]
        while stack:
            nodes.append(stack.pop())
            stack += list(A.children(nodes[-1]))
        bound = {n.var for n in nodes if isinstance(n, (A.RRefine, A.Quant))}
        for node in nodes:
            if isinstance(node, A.Var) and node.name not in bound \
                    and scope.lookup(node.name) is None and node.name not in BUILTINS \
                    and node.name in top:
                exc = error("T001", f"unbound variable {node.name} in the claim of "
                                    f"{val.name}", node.span,
                            hint=f"{node.name} is defined after this val; a claim is read where "
                                 "its val stands: move the val below that definition")
                exc.source = self.program.source
                raise exc


def resolve(program: A.Program) -> A.Program:
    """The resolved core of ``program`` (see the module docstring); resolving twice is the
    identity."""
    if program.resolved:
        return program
    return _Resolver(program).run()


def recursive_call_sites(decl: A.LetDecl, arity: int) -> Tuple[List[A.App], List[A.Var]]:
    """The applications of the recursive function ``decl`` (of the resolved core) to
    ``arity`` arguments in its own body — its recursive calls — and the other occurrences of
    its name (as a value, or applied to fewer or more arguments), which hide calls that no
    one can point at. Nested applications are found inside the arguments too."""
    return call_sites(decl.name, decl.body, arity)


def matched_parameter(params, body: A.Expr) -> Optional[int]:
    """The position of the first parameter (a name) that ``body`` matches on, in preorder:
    the list a recursive function is proved terminating by induction on (the length of any
    list parameter would be a sound measure; this is the one likely to decrease)."""
    names = [p.name if isinstance(p, A.PVar) else None for p in params]
    stack: List[A.Node] = [body]
    while stack:
        node = stack.pop()
        if isinstance(node, A.Match) and isinstance(node.scrutinee, A.Var) \
                and node.scrutinee.name in names:
            return names.index(node.scrutinee.name)
        stack += reversed(list(A.children(node)))
    return None


def counted_parameter(params, body: A.Expr, name: str) -> Optional[int]:
    """The position of the first parameter (a name) that a recursive call of ``name`` in
    ``body`` counts down, passing ``k - c`` for a positive integer literal ``c`` in its place:
    the counter a recursive function that matches on no list is proved terminating by
    induction on (the measure is its value as a natural number: ``vocabulary.below``; that
    every recursive call decreases it is an obligation, not read off this shape)."""
    names = [p.name if isinstance(p, A.PVar) else None for p in params]
    calls, _ = call_sites(name, body, len(names))
    for call in calls:
        args, head = [], call
        while isinstance(head, A.App):
            args.append(head.arg)
            head = head.fn
        for i, arg in enumerate(reversed(args)):
            if names[i] is not None and isinstance(arg, A.BinOp) and arg.op == "-" \
                    and arg.left == A.Var(names[i]) and isinstance(arg.right, A.IntLit) \
                    and arg.right.value >= 1:
                return i
    return None


def call_sites(name: str, body: A.Expr, arity: int) -> Tuple[List[A.App], List[A.Var]]:
    """The applications of the function ``name`` (a binder of the resolved core) to ``arity``
    arguments in ``body``, and the other occurrences of the name there."""
    calls: List[A.App] = []
    stray: List[A.Var] = []

    def walk(node: A.Node) -> None:
        if isinstance(node, A.App):
            head, args = node, []
            while isinstance(head, A.App):
                args.append(head.arg)
                head = head.fn
            if isinstance(head, A.Var) and head.name == name:
                (calls if len(args) == arity else stray).append(
                    node if len(args) == arity else head)
                for arg in args:
                    walk(arg)
                return
        if isinstance(node, A.Var) and node.name == name:
            stray.append(node)
            return
        for child in A.children(node):
            walk(child)

    walk(body)
    return calls, stray



def referenced_vals(program: A.Program, decl: A.LetDecl, vals) -> Set[str]:
    """The functions with a val (names in ``vals``) that the definition ``decl`` of the
    resolved core may call: those its body names, and those named by the definitions without
    a val that it names, transitively. A claim depends on each (on its termination and its
    val), whether or not a call reaches the result."""
    from verifier.language.free_vars import free_vars
    top = {d.name: d for d in program.lets()}
    found: Set[str] = set()
    seen: Set[str] = {decl.name}
    todo = [decl.body]
    while todo:
        for name in free_vars(todo.pop()):
            if name in seen or name not in top:
                continue
            seen.add(name)
            if name in vals:
                found.add(name)
            else:
                todo.append(top[name].body)
    return found
