"""From the simple types of the type checker to sorts of the logic."""
from __future__ import annotations

from typing import Optional

from obligations import terms as T
from verifier.language import ast as A
from verifier.language import types as ty
from verifier.translation import logic as L


def elem_key(t: ty.Type) -> Optional[str]:
    """The key of ``List[key]`` for list elements of type ``t``."""
    t = ty.resolve(t)
    if t == ty.BOOL:
        return "bool"
    if t == ty.INT:
        return "int"
    if t == ty.REAL:
        return "real"
    if isinstance(t, ty.Fin) and t.k is not None:
        return f"fin{t.k}"
    if isinstance(t, ty.Dist):
        return "dist"
    if isinstance(t, ty.TupleType):
        keys = [elem_key(i) for i in t.items]
        return None if any(k is None for k in keys) else L.tuple_key(keys)
    return None


def sort_of(t: ty.Type) -> Optional[T.Sort]:
    """The sort of values of simple type ``t``; None for tuples, functions, unit and monads."""
    t = ty.resolve(t)
    if t == ty.BOOL:
        return T.BOOL
    if t in (ty.INT,) or isinstance(t, ty.Fin):
        return T.INT
    if t == ty.REAL:
        return T.REAL
    if isinstance(t, ty.ListType):
        key = elem_key(t.elem)
        return L.list_sort(key) if key else None
    if isinstance(t, ty.Dist):
        return L.DIST
    return None


def monad_elem_sort(t: ty.Type) -> Optional[T.Sort]:
    """The sort of the values drawn from a computation of type ``M[t']``."""
    t = ty.resolve(t)
    if isinstance(t, ty.Monad):
        return sort_of(t.elem)
    return None


def to_syntax(t: ty.Type) -> Optional[A.SimpleType]:
    """The surface form of a resolved simple type (None while it has unknowns)."""
    t = ty.resolve(t)
    if isinstance(t, ty.Base):
        return A.TBase(t.name)
    if isinstance(t, ty.Fin):
        return A.TFin(t.k) if t.k is not None else None
    if isinstance(t, ty.Simplex):
        return A.TSimplex(t.k) if t.k is not None else None
    parts = {ty.ListType: A.TList, ty.Monad: A.TMonad, ty.Dist: A.TDist}
    for cls, make in parts.items():
        if isinstance(t, cls):
            inner = to_syntax(t.elem)
            return make(inner) if inner is not None else None
    if isinstance(t, ty.TupleType):
        items = [to_syntax(i) for i in t.items]
        return None if any(i is None for i in items) else A.TTuple(tuple(items))
    if isinstance(t, ty.Arrow):
        dom, cod = to_syntax(t.dom), to_syntax(t.cod)
        return None if dom is None or cod is None else A.TArrow(dom, cod)
    return None
