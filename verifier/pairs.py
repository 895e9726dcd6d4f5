"""The pairs of inputs a claim covers: one enumeration for ``privinfer audit`` and for the fuzzer's
oracle (``verifier.fuzz.oracle``).

A ``val`` gives every parameter a relational refinement (``adj``, ``adjWithin``, ``dist (l<1>,
l<2>) <= 2``, ``=``, ``true``, one-sided ``count l<1> <= count l<2>``, ...). The claim covers an
*ordered* pair of argument tuples ``(run 1, run 2)`` when every refinement holds on the two runs'
values — evaluated exactly, in the scope of the ``val`` (``verifier.audit.claim_scope``), with
later parameters' refinements seeing the earlier ones' values. ``covered`` enumerates those pairs
over finite domains of the parameters; the audit gives the private list every value up to a
length and the others their ``--arg`` value, the oracle small grids for every parameter.

* ``read_claim(val) -> Shape``: what the claim says (``DP``, ``SD``, ``HD``, ``KL``, ``pure``
  or ``none``) and each parameter's refinements (``Parameter``).
* ``covered(shape, domains, scope, ...)``: the covered ordered pairs of index tuples, with the
  environment binding ``x<1>``, ``x<2>`` (and ``x`` when both runs agree).
* ``run_name(x, i)``: the environment name of ``x<i>``.

Pairs are ordered because a claim is directed: ``M[DP(eps)]`` bounds ``P1(S)`` by
``e^eps P2(S) + delta``, and a one-sided premise or an index that reads one run
(``M[DP(eps * count l<2>)]``) covers, or charges, the two orders differently.
"""
from __future__ import annotations

import itertools
from typing import Any, Callable, Dict, Iterator, List, Optional, Tuple

from obligations.records import record
from verifier.language import ast
from verifier.semantics.values import ConsList, Value


def run_name(name: str, run: int) -> str:
    """The environment name of ``name<run>`` (assertions are evaluated with ``x<i>`` renamed
    to a variable of this name)."""
    return f"{name}<{run}>"


def equality_refinement(rt: ast.RType) -> bool:
    """Whether ``rt`` is ``{x :: T | =}`` or ``{x :: T | x<1> = x<2>}``."""
    return isinstance(rt, ast.RRefine) and equality_assertion(rt.assertion, rt.var)


def equality_assertion(a: Optional[ast.Expr], var: str) -> bool:
    """Whether ``a`` is ``=`` or ``var<1> = var<2>`` (either order)."""
    return isinstance(a, ast.SameRuns) or (
        isinstance(a, ast.BinOp) and a.op == "=" and isinstance(a.left, ast.RunVar)
        and isinstance(a.right, ast.RunVar) and a.left.name == a.right.name == var
        and {a.left.run, a.right.run} == {1, 2})


# ======================================================================================
# the shape of a claim
# ======================================================================================


@record
class Parameter:
    """One parameter of a claim: its refinement variables and assertions (innermost first),
    its simple type, or the monadic type it is given."""

    vars: Tuple[str, ...]
    assertions: Tuple[Tuple[str, ast.Expr], ...]
    type: Optional[ast.SimpleType]
    monad: Optional[ast.RMonad] = None


@record
class Shape:
    """What a ``val`` claims.

    ``kind``: ``DP``, ``SD``, ``HD``, ``KL`` (a monadic result lifting equality), ``pure`` (a
    refined non-monadic result: ``var`` and ``assertion``), ``none`` (the result says nothing
    but that the program runs)."""

    val: ast.ValDecl
    params: Tuple[Parameter, ...]
    kind: str
    eps: Optional[ast.Expr] = None
    delta: Optional[ast.Expr] = None
    var: str = ""
    assertion: Optional[ast.Expr] = None
    unjudged: str = ""                 # why the claim cannot be judged at all
    #: the written type of the result (of the values a computation returns): every output of
    #: a verified claim must be a value of it, ranges and list elements included
    result: Optional[ast.SimpleType] = None


def read_claim(val: ast.ValDecl) -> Shape:
    """The ``Shape`` of ``val``'s relational type."""
    rt, params = val.rtype, []
    while True:
        while isinstance(rt, ast.RRefine) and isinstance(rt.base, ast.RArrow):
            rt = rt.base      # a refinement of a function value says nothing judged here
        if not isinstance(rt, ast.RArrow):
            break
        params.append(_parameter(rt.dom))
        rt = rt.cod
    params_t = tuple(params)
    if isinstance(rt, ast.RMonad):
        base = _base(rt.body)
        result = base.type if isinstance(base, ast.RSimple) else None
        if not lifts_equality(rt.body):
            return Shape(val, params_t, "none", result=result)
        return Shape(val, params_t, rt.div.kind, rt.div.eps, rt.delta, result=result)
    if isinstance(_base(rt), ast.RSimple) and not isinstance(rt, ast.RRefine):
        return Shape(val, params_t, "none", result=_base(rt).type)
    if isinstance(rt, ast.RRefine) and isinstance(_base(rt), ast.RSimple):
        var, assertions = rt.var, []
        inner: ast.RType = rt
        while isinstance(inner, ast.RRefine):
            assertions.append(inner.assertion)
            inner = inner.base
        assertion = assertions[0]
        for more in assertions[1:]:
            assertion = ast.Conj(more, assertion)
        return Shape(val, params_t, "pure", var=var, assertion=assertion, result=_base(rt).type)
    return Shape(val, params_t, "none")


def _base(rt: ast.RType) -> ast.RType:
    while isinstance(rt, ast.RRefine):
        rt = rt.base
    return rt


def _parameter(dom: ast.RType) -> Parameter:
    names, assertions = [], []
    while isinstance(dom, ast.RRefine):
        names.append(dom.var)
        assertions.append((dom.var, dom.assertion))
        dom = dom.base
    if isinstance(dom, ast.RSimple):
        return Parameter(tuple(names), tuple(reversed(assertions)), dom.type)
    if isinstance(dom, ast.RMonad) and lifts_equality(dom.body):
        return Parameter(tuple(names), tuple(reversed(assertions)), ast.TMonad(_base(dom.body).type), dom)
    return Parameter(tuple(names), tuple(reversed(assertions)), None)


def lifts_equality(body: ast.RType) -> bool:
    """Whether a monadic result ``M[...] body`` couples the outputs by equality."""
    return equality_refinement(body) and isinstance(body.base, ast.RSimple)


def mentions_any(node: ast.Node, names: set) -> bool:
    """Whether ``node`` mentions one of ``names`` (as ``x`` or ``x<i>``)."""
    if not names:
        return False
    stack = [node]
    while stack:
        n = stack.pop()
        if isinstance(n, (ast.Var, ast.RunVar)) and n.name in names:
            return True
        stack.extend(ast.children(n))
    return False


# ======================================================================================
# the covered pairs
# ======================================================================================

#: ``(monadic type, value of run 1, value of run 2, scope, environment) -> related?`` for a
#: parameter ``M[F, d] {x :: T | =}`` (the oracle's: within the index).
MonadRelation = Callable[[ast.RMonad, Value, Value, Any, Dict[str, Value]], bool]


def covered(shape: Shape, domains: List[List[Value]], scope: Any,
            cache: Optional[Dict[Any, List[Tuple[int, int]]]] = None,
            monad_related: Optional[MonadRelation] = None,
            ) -> Iterator[Tuple[Tuple[int, ...], Tuple[int, ...], Dict[str, Value]]]:
    """Every ordered pair ``(i1, i2, env)`` of index tuples into ``domains`` (one list of values
    per parameter of ``shape``) whose refinements all hold (``scope.holds`` is ``True``), with
    the environment of the pair. ``cache`` keeps, per parameter whose refinements do not mention
    earlier parameters, the related index pairs found the first time (reuse it across calls on
    the same ``shape`` and ``domains``). A parameter with a monadic type is related by
    ``monad_related`` (never, without one)."""
    return _covered(shape, domains, scope, {} if cache is None else cache, monad_related,
                    0, (), (), {})


def _covered(shape: Shape, domains: List[List[Value]], scope: Any, cache: Dict, monad_related,
             i: int, i1: Tuple[int, ...], i2: Tuple[int, ...], env: Dict[str, Value]):
    if i == len(shape.params):
        yield i1, i2, env
        return
    p, values = shape.params[i], domains[i]
    earlier = {n for q in shape.params[:i] for n in q.vars}
    local = not any(mentions_any(a, earlier) for _, a in p.assertions) and \
        not (p.monad is not None and mentions_any(p.monad, earlier))
    key = (id(shape.val), i)
    cached = cache.get(key) if local else None
    pairs = cached if cached is not None else _candidates(p, values, scope)
    found = []
    for a, b in pairs:
        here = dict(env)
        v1, v2 = values[a], values[b]
        for var in p.vars:
            here[run_name(var, 1)], here[run_name(var, 2)] = v1, v2
            if a == b:
                here[var] = v1
        if cached is None:
            if p.monad is not None and not (monad_related and monad_related(p.monad, v1, v2, scope, here)):
                continue
            if not all(scope.holds(assertion, var, here) is True for var, assertion in p.assertions):
                continue
            found.append((a, b))
        yield from _covered(shape, domains, scope, cache, monad_related, i + 1, i1 + (a,), i2 + (b,), here)
    if local and cached is None:
        cache[key] = found


def _candidates(p: Parameter, values: List[Value], scope: Any) -> Iterator[Tuple[int, int]]:
    """The index pairs whose refinements are worth evaluating: every pair, or, when one of the
    conjuncts is the built-in ``adj (x<1>, x<2>)`` on lists, the pairs of lists of one length
    that differ in at most one position (the refinements are still evaluated on each)."""
    if not any(_is_builtin_adj(c, var, scope) for var, a in p.assertions for c in conjuncts(a)):
        return itertools.product(range(len(values)), repeat=2)
    if not all(isinstance(v, ConsList) for v in values):
        return itertools.product(range(len(values)), repeat=2)
    return _adjacent_indices(values)


def _adjacent_indices(values: List[Value]) -> Iterator[Tuple[int, int]]:
    by_key: Dict[Tuple[int, int, Any], List[int]] = {}
    items = [tuple(v) for v in values]
    try:
        for index, t in enumerate(items):
            for pos in range(len(t)):            # the list with a hole at pos
                by_key.setdefault((len(t), pos, t[:pos] + t[pos + 1:]), []).append(index)
    except TypeError:                            # unhashable elements: every pair
        yield from itertools.product(range(len(values)), repeat=2)
        return
    seen = set()
    for index, t in enumerate(items):
        yield index, index
        for pos in range(len(t)):
            for other in by_key[(len(t), pos, t[:pos] + t[pos + 1:])]:
                if other != index and (index, other) not in seen:
                    seen.add((index, other))
                    yield index, other


def conjuncts(a: ast.Expr) -> Iterator[ast.Expr]:
    """The conjuncts of an assertion (its ``/\\`` flattened)."""
    if isinstance(a, ast.Conj):
        yield from conjuncts(a.left)
        yield from conjuncts(a.right)
    else:
        yield a


def _is_builtin_adj(a: ast.Expr, var: str, scope: Any) -> bool:
    if not (isinstance(a, ast.App) and isinstance(a.fn, ast.Var) and a.fn.name == "adj"
            and isinstance(a.arg, ast.TupleLit) and len(a.arg.items) == 2):
        return False
    if "adj" in getattr(getattr(scope, "evaluator", None), "values", {"adj": None}):
        return False          # a user's adj in the claim's scope
    runs = [(x.name, x.run) for x in a.arg.items if isinstance(x, ast.RunVar)]
    return sorted(runs) == [(var, 1), (var, 2)]


__all__ = ["Parameter", "Shape", "read_claim", "covered", "run_name", "equality_refinement", "equality_assertion",
           "lifts_equality", "mentions_any", "MonadRelation"]
