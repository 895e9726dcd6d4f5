"""Functions passed as values, in the logic (issue #26, docs/verifier.md "Higher order").

HOARe²'s logical relation relates the two runs' functions of an arrow type without making
them equal: a caller may pass, in each run, a closure over that run's data. So whatever a
function passed as an argument computes is a symbol *per run*:

* a call ``m a`` of a parameter ``m`` of function type returning a pure value is
  ``fn_m'x1(a)`` in run 1 and ``fn_m'x2(a)`` in run 2 (``vocabulary.parameter_function``);
  the call facts relate the two by ``m``'s declared type only;
* a call ``f g a`` of a function ``f`` whose val takes a function is
  ``fn_f'r1'a<key>(c, a)`` in run 1 (``vocabulary.higher_order_function``): ``<key>``
  names the code of the function ``g`` passed (``function_key``: which val, which ``fun``,
  which parameter, through what it captures) and ``c`` are the first-order values that code
  reads in that run. Two calls with one key and equal ``c`` are calls of the same function
  (congruence); a run 1 and a run 2 call with one key are related by ``f``'s val when the
  two runs' functions have the type ``f`` expects — the S-Fun premise the proof records
  for them (``Related``).

The builder and the kernel both read these symbols through this module.
"""
from __future__ import annotations

import hashlib
from typing import Dict, List, Optional, Sequence, Tuple

from obligations import terms as T
from obligations import vocabulary as V
from obligations.records import record
from verifier.language import ast as A
from verifier.translation.calls import from_terms, leaves
from verifier.translation.symbolic import (Builtin, Closure, DistV, FunParam, LocalRec,
                                           NamedFun, Scalar, SymValue, TupleV, UnitV)


class NotAFunction(Exception):
    """The value passed is not a function the logic can name (``function_key``)."""


def is_function(v: SymValue) -> bool:
    """Whether ``v`` is a function value (what a parameter of function type receives)."""
    return isinstance(v, (Closure, NamedFun, FunParam, Builtin, LocalRec)) and not (
        isinstance(v, Closure) and not v.params)


def function_key(v: SymValue, run: int) -> Tuple[str, List[T.Term]]:
    """The key of the function ``v`` (as run ``run`` sees it) and the first-order values its code
    reads, as terms in a fixed order: two functions with one key and equal terms compute the
    same function. The key is a digest of the code's structure: which parameter of function
    type (by name), which top-level function (by name, with the functions among its first
    arguments), which ``fun`` or helper (by the place of its body, with the functions and
    code its free names are bound to). Raises ``NotAFunction`` for a value that captures a
    computation or a local recursive function."""
    terms: List[T.Term] = []
    seen: List[SymValue] = []
    side = run - 1 if run else 0

    def walk(x: SymValue) -> str:
        if isinstance(x, (Scalar, DistV)):
            terms.append(x.term)
            return "_"
        if isinstance(x, UnitV):
            return "u"
        if isinstance(x, TupleV):
            return "(" + ",".join(walk(i) for i in x.items) + ")"
        if isinstance(x, FunParam):
            return f"P{x.name}"
        if isinstance(x, NamedFun):
            return f"V{x.name}(" + ",".join(walk(a) for a, _ in x.args) + ")"
        if isinstance(x, Builtin):
            return f"B{x.name}(" + ",".join(walk(a) for a in x.args) + ")"
        if isinstance(x, Closure):
            if any(x is y for y in seen):
                return "@"
            seen.append(x)
            from verifier.language.free_vars import free_vars
            bound = {n for p in x.params for n in A.pattern_names(p)}
            s = x.body.span
            parts = [f"C{len(x.params)}:{x.name}:{s.line}:{s.col}:{s.end_line}:{s.end_col}["]
            for name in sorted(free_vars(x.body) - bound):
                pair = x.env.lookup(name)
                if pair is not None:
                    parts.append(f"{name}={walk(pair[side])};")
            return "".join(parts) + "]"
        raise NotAFunction(type(x).__name__)

    text = walk(v)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:12], terms


def result_value(symbol: str, args: Sequence[T.Term], result: A.SimpleType
                 ) -> Optional[SymValue]:
    """The value of the call ``symbol(args)`` whose result has the first-order type
    ``result``: the symbol itself, or for a tuple the tuple of its components."""
    from verifier.translation import logic as L
    sort = L.sort_of_type(result)
    if sort is not None:
        return Scalar(V.symbol_call(symbol, tuple(args), sort))
    sorts = leaves(result)
    if not sorts:
        return None
    parts = [V.symbol_call(symbol, tuple(args), s, i) for i, s in enumerate(sorts, 1)]
    return from_terms(result, parts)


@record
class Passed:
    """A function passed to a val in pure code, as the translator met it in run ``run``: its
    key (``function_key``), the terms it reads and the value itself (any two with one key
    and equal terms compute the same function)."""

    key: str
    terms: Tuple[T.Term, ...]
    value: SymValue
    run: int


class Registry:
    """The functions the translator met as arguments of higher-order calls in pure code, by
    key, terms and run (the builder's and the kernel's translators each keep one)."""

    def __init__(self) -> None:
        self._by: Dict[Tuple[str, Tuple[T.Term, ...], int], Passed] = {}
        self.sizes: Dict[str, int] = {}

    def add(self, v: SymValue, run: int) -> Passed:
        key, terms = function_key(v, run)
        found = self._by.get((key, tuple(terms), run))
        if found is None:
            found = self._by[(key, tuple(terms), run)] = Passed(key, tuple(terms), v, run)
            self.sizes[key] = len(terms)
        return found

    def get(self, key: str, terms: Sequence[T.Term], run: int) -> Optional[Passed]:
        return self._by.get((key, tuple(terms), run))


def split_call(registry: Registry, types: Sequence[Optional[A.SimpleType]],
               keys: Sequence[str], args: Sequence[T.Term], run: int):
    """The arguments of a higher-order call, per parameter, from the flat terms of its
    symbol: a first-order value for a parameter of simple type (``types[i]``), the
    ``Passed`` function for a parameter of function type (``types[i]`` None; ``keys`` in
    order). None when they do not fit or a function is not in ``registry``."""
    rest, out, keys = list(args), [], list(keys)
    for t in types:
        if t is None:
            if not keys:
                return None
            key = keys.pop(0)
            size = registry.sizes.get(key)
            if size is None or size > len(rest):
                return None
            found = registry.get(key, rest[:size], run)
            if found is None:
                return None
            out.append(found)
            del rest[:size]
            continue
        v = from_terms(t, rest)
        if v is None:
            return None
        out.append(v)
    return None if rest or keys else out


__all__ = ("NotAFunction", "is_function", "function_key", "result_value", "Passed",
           "Registry", "split_call")
