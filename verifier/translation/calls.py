"""First-order values of the program as terms, and calls of program functions in the logic.

A value of a first-order simple type (a number, boolean, list, distribution, ``unit``, a point
of the simplex, or a tuple of them) is, for the translator, a ``Scalar``/``DistV`` term or a
``TupleV`` of such values. A call ``f a`` of a function with a val is a deterministic symbol of
its arguments' terms, flattened in order (``flat_terms``): ``f(a1, …, ak)``; when the result is
a tuple, the call is the tuple of one symbol per component, ``f'p1(a…)``, ``f'p2(a…)``, …
(``call_value``, ``vocabulary.opaque_component``). The builder and the kernel both read calls
this way (the translator makes them; the call facts take them apart with ``split_arguments``).
"""
from __future__ import annotations

from typing import List, Optional, Sequence

from obligations import terms as T
from verifier.language import ast as A
from verifier.translation import logic as L
from verifier.translation.symbolic import DistV, Scalar, SymValue, TupleV, UnitV


def flat_terms(value: SymValue) -> Optional[List[T.Term]]:
    """The terms of a first-order value, a tuple's components in order; None for a
    function or a computation."""
    if isinstance(value, (Scalar, DistV)):
        return [value.term]
    if isinstance(value, UnitV):
        return []
    if isinstance(value, TupleV):
        out: List[T.Term] = []
        for item in value.items:
            part = flat_terms(item)
            if part is None:
                return None
            out += part
        return out
    return None


def leaves(t: A.SimpleType) -> Optional[List[T.Sort]]:
    """The sorts of the terms a value of first-order type ``t`` is made of, in order; None
    when ``t`` is not first-order (a function, a computation)."""
    if isinstance(t, A.TTuple):
        out: List[T.Sort] = []
        for item in t.items:
            part = leaves(item)
            if part is None:
                return None
            out += part
        return out
    if isinstance(t, A.TSimplex):
        return [T.REAL] * t.k
    if isinstance(t, A.TBase) and t.name == "unit":
        return []
    sort = L.sort_of_type(t)
    return None if sort is None else [sort]


def from_terms(t: A.SimpleType, terms: List[T.Term]) -> Optional[SymValue]:
    """The value of first-order type ``t`` made of the first terms of ``terms`` (which are
    consumed); None when ``t`` is not first-order or the terms run out."""
    if isinstance(t, A.TTuple):
        items = [from_terms(i, terms) for i in t.items]
        return None if any(i is None for i in items) else TupleV(tuple(items))
    if isinstance(t, A.TSimplex):
        parts = [from_terms(A.TBase("real"), terms) for _ in range(t.k)]
        return None if any(p is None for p in parts) else TupleV(tuple(parts))
    if isinstance(t, A.TBase) and t.name == "unit":
        return UnitV()
    if L.sort_of_type(t) is None or not terms:
        return None
    return Scalar(terms.pop(0))


def split_arguments(types: Sequence[A.SimpleType], args: Sequence[T.Term]
                    ) -> Optional[List[SymValue]]:
    """The arguments of a call, one value per parameter of the given types, from the flat
    argument terms of its symbol; None when they do not fit."""
    rest = list(args)
    out = []
    for t in types:
        v = from_terms(t, rest)
        if v is None:
            return None
        out.append(v)
    return None if rest else out


def call_value(name: str, args: Sequence[T.Term], result: A.SimpleType) -> Optional[SymValue]:
    """The value of the call of program function ``name`` on the flat argument terms
    ``args``, whose result has the first-order type ``result``: ``f(args)``, or for a tuple
    the tuple of its components ``f'p<i>(args)``. None when ``result`` is not first-order or
    is ``unit`` (nothing to name)."""
    sort = L.sort_of_type(result)
    if sort is not None:
        return Scalar(L.opaque(name, tuple(args), sort))
    sorts = leaves(result)
    if not sorts:
        return None
    terms = [L.opaque_component(name, i, tuple(args), s) for i, s in enumerate(sorts, 1)]
    return from_terms(result, terms)


def first_order(t: Optional[A.SimpleType]) -> bool:
    """Whether values of ``t`` are first-order data (``leaves`` knows them)."""
    return t is not None and leaves(t) is not None


def element_value(term: T.Term) -> SymValue:
    """The value of a list element ``term``: a tuple of its components' values when the list
    is a list of tuples (``vocabulary.tuple_get``), the term itself otherwise."""
    key = _tuple_key_of(term.sort)
    if key is None:
        return Scalar(term)
    n = len(L.tuple_components(key))
    return TupleV(tuple(element_value(L.tuple_get(key, i, term)) for i in range(n)))


def element_term(value: SymValue, key: str) -> Optional[T.Term]:
    """The term of a value put into a list of ``List[key]`` (a tuple made into an element of
    the tuple sort); None when the value does not fit."""
    parts = L.tuple_components(key)
    if parts is None:
        return value.term if isinstance(value, (Scalar, DistV)) else None
    if not (isinstance(value, TupleV) and len(value.items) == len(parts)):
        return None
    items = [element_term(v, k) for v, k in zip(value.items, parts)]
    if any(i is None for i in items):
        return None
    return L.tuple_make(key, items)


def _tuple_key_of(sort: T.Sort) -> Optional[str]:
    """The tuple element key whose sort is ``sort`` (``Tup<...>``), or None."""
    name = sort.name
    return "tup" + name[3:] if name.startswith("Tup<") else None


def element_key_of_sort(sort: T.Sort) -> Optional[str]:
    """The element key of the list elements of sort ``sort`` (``bool``, ``tup<int,real>``…)."""
    key = _tuple_key_of(sort)
    if key is not None:
        return key
    for k in ("bool", "int", "real", "dist"):
        if L.elem_sort(k) == sort:
            return k
    return None
