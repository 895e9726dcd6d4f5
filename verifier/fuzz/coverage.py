"""Which constructs a program uses, read off its syntax tree and names (``features``).

The fuzzer's report counts, for every feature, how many programs used it; ``REQUIRED`` lists
those a campaign must cover (issue 13, point 1). Features are computed from the checked program
itself (the resolved names and simple types), not from what the generator meant to do, except
for the claim calibrations, which only the generator knows (its tags are added as
``generator: ...``).
"""
from __future__ import annotations

from typing import Any, Set

from verifier.fuzz import scope
from verifier.language import ast
from verifier.language import types as ty
from verifier.language.builtins import BUILTINS

#: Constructs recognised by their node class alone.
_PLAIN = {ast.Match: "match", ast.If: "if", ast.TupleLit: "tuple", ast.LetRec: "local recursion",
          ast.Observe: "observe", ast.Infer: "infer", ast.Ran: "ran"}

MECHANISMS = ("expMech", "lapMech", "gaussMech", "hellingerMech", "hellingerMechPure")

#: Features a campaign of a few hundred programs must cover.
REQUIRED = (
    "let", "mlet", "fun", "match", "if", "tuple", "partial application", "alias",
    "local recursion", "top-level recursion", "non-structural recursion",
    "tuple parameter of a val", "list of tuples", "recursive call in an unused let", "recursive call in a tuple component",
    "recursive call in an ignored argument",
    "helper with val", "helper without val", "shadowed built-in (local)",
    "redefined built-in before a val", "redefined built-in after a val",
    "local shadows a val'd name", "local shadows the entry's name", "val after its definition",
    "computation bound by let, used 0 times", "computation bound by let, used 1 time",
    "computation bound by let, used 2 times", "closure over the private list",
    "expMech", "expMech with candidates", "lapMech", "gaussMech", "bernoulli", "observe", "infer", "ran",
    "post-processing",
    "claim DP", "claim DP with delta", "claim SD", "claim HD", "claim KL", "claim pure",
    "range-typed list parameter", "range annotation", "Hellinger mechanism",
    "generator: call into a narrower element range", "generator: call into a wider element range",
    "generator: mechanism over data of a wider type",
    "refinement adj", "refinement adjWithin", "adjWithin with a non-positive bound", "refinement dist",
    "refinement allWithin", "generator: sparse vector", "generator: sparse vector: gaps released",
    "generator: counter recursion",
    "generator: learner likelihood helper", "generator: learner prior in nil",
    "refinement =", "refinement true", "one-sided refinement", "public parameter refined with true",
    "generator: claim tight", "generator: claim loose", "generator: claim under",
    # the paper's constructs of issue 26 (verifier/fuzz/paper.py)
    "function-typed val parameter", "Delta[F] assertion", "generator: higher-order val",
    "generator: val'd wrapper passed for a function parameter",
    "generator: fun passed for a function parameter", "generator: function parameter passed on",
    "generator: infer without closed form (finite prior)",
    "generator: infer without closed form (beta prior)", "generator: infer of a val'd model",
    "generator: parallel composition",
)


def features(program: ast.Program, typed: Any = None) -> Set[str]:
    """The features of ``program`` (``typed``: its simple types, for computations bound by
    ``let``)."""
    res = scope.resolve(program)
    out: Set[str] = set()
    val_names = {v.name for v in program.vals()}
    _declarations(program, res, out, val_names)
    for decl in program.lets():
        _walk(decl.body, res, typed, out, val_names)
    for val in program.vals():
        _claim(val, out)
    return out


def _declarations(program: ast.Program, res: scope.Resolution, out: Set[str], val_names: Set[str]) -> None:
    first_val = next((i for i, d in enumerate(program.decls) if isinstance(d, ast.ValDecl)), None)
    last_val = max((i for i, d in enumerate(program.decls) if isinstance(d, ast.ValDecl)), default=None)
    for i, d in enumerate(program.decls):
        if isinstance(d, ast.LetDecl):
            if any(_has_range(p) for p in d.params):
                out.add("range annotation")
            if d.name in BUILTINS:
                if first_val is not None and i < last_val:
                    out.add("redefined built-in before a val")
                if last_val is not None and i > first_val:
                    out.add("redefined built-in after a val")
            elif d.params and d.name not in val_names and _used(res, d):
                out.add("helper without val")
            elif d.params and d.name in val_names and _used(res, d):
                out.add("helper with val")
            if d.name in val_names and any(isinstance(p, ast.PTuple) for p in d.params):
                out.add("tuple parameter of a val")
            if d.recursive:
                out.add("top-level recursion")
                _recursive_calls(d.body, res.of(d), res, out)
        elif isinstance(d, ast.ValDecl):
            if _mentions_tuple_list(d.rtype):
                out.add("list of tuples")
            defs = [j for j, e in enumerate(program.decls) if isinstance(e, ast.LetDecl) and e.name == d.name]
            if defs and defs[-1] < i:
                out.add("val after its definition")


def _used(res: scope.Resolution, d: ast.LetDecl) -> bool:
    b = res.of(d)
    return b is not None and any(not isinstance(o, ast.ValDecl) for o in b.occurrences)


def _walk(node: ast.Node, res: scope.Resolution, typed: Any, out: Set[str], val_names: Set[str]) -> None:
    stack = [node]
    while stack:
        e = stack.pop()
        stack.extend(ast.children(e))
        kind = type(e)
        if kind in (ast.Let, ast.MLet) and _has_range(e.pattern) or \
                kind is ast.Fun and any(_has_range(p) for p in e.params):
            out.add("range annotation")
        if kind is ast.Let:
            out.add("let")
            _let(e, res, typed, out)
        elif kind is ast.MLet:
            out.add("mlet")
            if isinstance(e.body, ast.Return) and isinstance(e.pattern, ast.PVar) and _mentions(e.body, e.pattern.name):
                out.add("post-processing")
        elif kind is ast.Fun:
            out.add("fun")
            if _captures_private(e, res):
                out.add("closure over the private list")
        elif kind in _PLAIN:
            out.add(_PLAIN[kind])
            if kind is ast.LetRec:
                _recursive_calls(e.value, res.of(e), res, out)
        elif kind is ast.Var:
            b = res.of(e)
            if b is not None and b.kind == scope.BUILTIN and b.name in MECHANISMS + ("bernoulli",):
                out.add(b.name)
                if b.name.startswith("hellingerMech"):
                    out.add("Hellinger mechanism")
        elif kind is ast.App and isinstance(e.fn, ast.Var):
            b = res.of(e.fn)
            if b is not None and b.kind == scope.BUILTIN and b.name == "expMech" and \
                    isinstance(e.arg, ast.TupleLit) and len(e.arg.items) == 4:
                out.add("expMech with candidates")
        if kind in (ast.Let, ast.MLet, ast.Fun, ast.LetRec, ast.Match):
            _shadowing(e, res, out, val_names)


def _let(e: ast.Let, res: scope.Resolution, typed: Any, out: Set[str]) -> None:
    p = e.pattern
    if isinstance(p, ast.PVar):
        b = res.of(p)
        if isinstance(e.value, ast.Var) and res.of(e.value) is not None and res.of(e.value).kind == scope.TOP:
            out.add("alias")
        if isinstance(e.value, ast.App) and b is not None and _partial(e.value, typed):
            out.add("partial application")
        if typed is not None and b is not None:
            try:
                t = ty.prune(typed.type_of(p))
            except KeyError:
                t = None
            if isinstance(t, ty.Monad):
                uses = b.uses
                out.add(f"computation bound by let, used {min(uses, 2)} time{'' if uses == 1 else 's'}")


def _partial(value: ast.App, typed: Any) -> bool:
    """An application whose result is still a function."""
    if typed is None:
        return False
    try:
        return isinstance(ty.prune(typed.type_of(value)), ty.Arrow)
    except KeyError:
        return False


def _shadowing(e: ast.Node, res: scope.Resolution, out: Set[str], val_names: Set[str]) -> None:
    names = []
    if isinstance(e, (ast.Let, ast.MLet)):
        names = list(ast.pattern_names(e.pattern))
    elif isinstance(e, ast.Fun):
        names = [n for p in e.params for n in ast.pattern_names(p)]
    elif isinstance(e, ast.LetRec):
        names = [e.name]
    elif isinstance(e, ast.Match):
        names = [e.head, e.tail]
    for n in names:
        if n in BUILTINS:
            out.add("shadowed built-in (local)")
        if n in val_names:
            out.add("local shadows a val'd name")
        if n in val_names and _is_entry(n, res):
            out.add("local shadows the entry's name")


def _is_entry(name: str, res: scope.Resolution) -> bool:
    """A val'd top-level name that no other top-level definition calls."""
    return any(b.kind == scope.TOP and b.name == name and
               all(isinstance(o, ast.ValDecl) for o in b.occurrences) for b in res.binders)


def _recursive_calls(body: ast.Expr, binder: Any, res: scope.Resolution, out: Set[str]) -> None:
    """Classify the recursive calls of ``binder`` in ``body``: on a match tail (structural) or
    not, and where they stand."""
    tails = set()
    stack = [(body, "used")]
    while stack:
        e, where = stack.pop()
        if isinstance(e, ast.Match) and e.tail != "_":
            tails.add(id(res.of(e, "tail")))
        if isinstance(e, ast.App) and isinstance(e.fn, ast.Var) and res.of(e.fn) is binder:
            arg = e.arg
            structural = isinstance(arg, ast.Var) and id(res.of(arg)) in tails
            if not structural:
                out.add("non-structural recursion")
            if where != "used":
                out.add(f"recursive call in {where}")
        if isinstance(e, ast.Let) and isinstance(e.pattern, (ast.PVar, ast.PWild)):
            b = res.of(e.pattern) if isinstance(e.pattern, ast.PVar) else None
            unused = b is None or b.uses == 0
            stack.append((e.value, "an unused let" if unused else where))
            stack.append((e.body, where))
            continue
        if isinstance(e, ast.App) and isinstance(e.fn, ast.Var) and res.of(e.fn) is not None \
                and res.of(e.fn).name == "fst" and res.of(e.fn).kind == scope.BUILTIN \
                and isinstance(e.arg, ast.TupleLit):
            stack.append((e.arg.items[0], where))
            stack.extend((item, "a tuple component") for item in e.arg.items[1:])
            continue
        if isinstance(e, ast.App) and isinstance(e.fn, ast.Fun) and all(
                isinstance(p, ast.PWild) for p in e.fn.params):
            stack.append((e.fn.body, where))
            stack.append((e.arg, "an ignored argument"))
            continue
        stack.extend((c, where) for c in ast.children(e))


def _captures_private(fun: ast.Fun, res: scope.Resolution) -> bool:
    """A ``fun`` whose body mentions a list-typed name bound outside it (a parameter named
    like the entry's private list, or any outer list variable)."""
    inner = {id(res.of(p)) for p in _pvars(fun)}
    stack = [fun.body]
    while stack:
        e = stack.pop()
        if isinstance(e, ast.Var):
            b = res.of(e)
            if b is not None and b.kind == scope.LOCAL and id(b) not in inner and b.name == "db":
                return True
        stack.extend(ast.children(e))
    return False


def _pvars(fun: ast.Fun):
    out = []
    stack = list(fun.params)
    while stack:
        p = stack.pop()
        if isinstance(p, ast.PVar):
            out.append(p)
        elif isinstance(p, ast.PTuple):
            stack.extend(p.items)
    return out


def _ranged(t: ast.SimpleType) -> bool:
    """Whether a written type has a range: ``nat``, ``real+``, ``[0,1]``, ``[k]``, or a list,
    tuple or computation of one."""
    if isinstance(t, ast.TBase):
        return t.name in ("nat", "real+", "[0,1]")
    if isinstance(t, (ast.TFin, ast.TSimplex)):
        return True
    if isinstance(t, (ast.TList, ast.TMonad, ast.TDist)):
        return _ranged(t.elem)
    if isinstance(t, ast.TTuple):
        return any(_ranged(i) for i in t.items)
    return False


def _has_range(p: ast.Pattern) -> bool:
    """Whether pattern ``p`` writes a type with a range."""
    if isinstance(p, (ast.PVar, ast.PWild)):
        return p.annot is not None and _ranged(p.annot)
    if isinstance(p, ast.PTuple):
        return any(_has_range(i) for i in p.items)
    return False


def _mentions(e: ast.Node, name: str) -> bool:
    stack = [e]
    while stack:
        n = stack.pop()
        if isinstance(n, ast.Var) and n.name == name:
            return True
        stack.extend(ast.children(n))
    return False


def _claim(val: ast.ValDecl, out: Set[str]) -> None:
    rt = val.rtype
    params = []
    while isinstance(rt, ast.RArrow):
        params.append(rt.dom)
        rt = rt.cod
    if isinstance(rt, ast.RMonad):
        out.add("claim DP with delta" if rt.div.kind == "DP" and rt.delta is not None else f"claim {rt.div.kind}")
    elif isinstance(rt, ast.RRefine):
        out.add("claim pure")
    if any(isinstance(n, ast.DivBound) for n in ast.descendants(val.rtype)):
        out.add("Delta[F] assertion")
    for dom in params:
        if isinstance(dom, ast.RArrow):
            out.add("function-typed val parameter")
        if isinstance(dom, ast.RMonad) or (isinstance(dom, ast.RRefine) and isinstance(dom.base, ast.RMonad)):
            out.add("monadic parameter")
        base = dom
        while isinstance(base, ast.RRefine):
            base = base.base
        if isinstance(base, ast.RSimple) and isinstance(base.type, ast.TList) \
                and _ranged(base.type.elem):
            out.add("range-typed list parameter")
        while isinstance(dom, ast.RRefine):
            _refinement(dom, out)
            dom = dom.base


def _refinement(r: ast.RRefine, out: Set[str]) -> None:
    a = r.assertion
    if isinstance(a, ast.SameRuns):
        out.add("refinement =")
        return
    if isinstance(a, ast.BoolLit) and a.value:
        out.add("refinement true")
        if not isinstance(r.base, ast.RSimple) or not isinstance(r.base.type, ast.TList):
            out.add("public parameter refined with true")
        return
    runs = set()
    stack = [a]
    while stack:
        n = stack.pop()
        if isinstance(n, ast.RunVar) and n.name == r.var:
            runs.add(n.run)
        if isinstance(n, ast.App) and isinstance(n.fn, ast.Var):
            if n.fn.name in ("adj", "adjWithin", "allWithin", "dist"):
                out.add(f"refinement {n.fn.name}")
            if n.fn.name == "adjWithin" and isinstance(n.arg, ast.TupleLit) and len(n.arg.items) == 3:
                bound = n.arg.items[2]
                if not (isinstance(bound, ast.RealLit) and bound.value > 0):
                    out.add("adjWithin with a non-positive bound")
        stack.extend(ast.children(n))
    if len(runs) == 1:
        out.add("one-sided refinement")


__all__ = ["features", "REQUIRED", "MECHANISMS"]


def _mentions_tuple_list(rt: ast.Node) -> bool:
    """Whether a relational type mentions a list of tuples."""
    stack = [rt]
    while stack:
        node = stack.pop()
        if isinstance(node, ast.TList) and isinstance(node.elem, ast.TTuple):
            return True
        stack.extend(ast.children(node))
    return False
