"""The logical vocabulary of the verifier: sorts of program values and the uninterpreted
symbols for the built-ins the logic does not interpret.

Program values of base type become terms (``obligations.terms``): ``bool`` → Bool, ``int``,
``nat`` and ``[k]`` → Int, the ranges of ``real`` → Real, ``T list`` → the uninterpreted sort
``List[T]``, ``D[T]`` → the uninterpreted sort ``Dist``. Tuples have no sort: they are kept as
tuples of terms by the translator. What the proofs need to know about the uninterpreted
symbols is added to each obligation as ground instances of lemmas (``verifier.rules.axioms``).
"""
from __future__ import annotations

from typing import Dict, Optional, Tuple

from obligations import terms as T
from verifier.language import ast as A

DIST = T.uninterpreted_sort("Dist")

_LIST_SORTS: Dict[str, T.Sort] = {}


def elem_key(t: A.SimpleType) -> Optional[str]:
    """The element name used in a list sort (``bool``, ``int``, ``fin3``, ``real``, ``dist``), or None."""
    if isinstance(t, A.TBase):
        if t.name == "bool":
            return "bool"
        if t.name in ("int", "nat"):
            return "int"
        if t.name in ("real", "real+", "real+inf", "[0,1]"):
            return "real"
        return None
    if isinstance(t, A.TFin):
        return f"fin{t.k}"
    if isinstance(t, A.TDist):
        return "dist"
    return None


def list_sort(key: str) -> T.Sort:
    """The uninterpreted sort ``List[key]``."""
    if key not in _LIST_SORTS:
        _LIST_SORTS[key] = T.uninterpreted_sort(f"List[{key}]")
    return _LIST_SORTS[key]


def elem_sort(key: str) -> T.Sort:
    """The sort of the elements of ``List[key]`` (``fin3`` elements are Ints)."""
    if key.startswith("fin"):
        return T.INT
    return {"bool": T.BOOL, "int": T.INT, "real": T.REAL, "dist": DIST}[key]


def fin_size(key: str) -> Optional[int]:
    """3 for ``fin3``; None for other element keys."""
    return int(key[3:]) if key.startswith("fin") else None


def list_key_of(sort: T.Sort) -> Optional[str]:
    """``bool`` for ``List[bool]``; None when ``sort`` is not a list sort."""
    name = sort.name
    if name.startswith("List[") and name.endswith("]"):
        return name[5:-1]
    return None


def sort_of_type(t: A.SimpleType) -> Optional[T.Sort]:
    """The sort of values of simple type ``t``; None for tuples, functions, monads and unit."""
    if isinstance(t, A.TBase):
        if t.name == "bool":
            return T.BOOL
        if t.name in ("int", "nat"):
            return T.INT
        if t.name in ("real", "real+", "real+inf", "[0,1]"):
            return T.REAL
        return None
    if isinstance(t, A.TFin):
        return T.INT
    if isinstance(t, A.TList):
        key = elem_key(t.elem)
        return list_sort(key) if key else None
    if isinstance(t, A.TDist):
        return DIST
    return None


def range_facts(t: A.SimpleType, x: T.Term) -> Tuple[T.Term, ...]:
    """What the simple type ``t`` says of a value ``x`` of its sort (``real+`` is positive...)."""
    if isinstance(t, A.TBase):
        if t.name == "nat":
            return (T.ge(x, 0),)
        if t.name == "real+":
            return (T.gt(x, 0),)
        if t.name == "[0,1]":
            return (T.ge(x, 0), T.le(x, 1))
        # real+inf has no finite term for infinity: we assume nothing beyond real.
        return ()
    if isinstance(t, A.TFin):
        return (T.ge(x, 0), T.lt(x, t.k))
    return ()


# ---- uninterpreted symbols ------------------------------------------------------------

def _fn(name: str, domain: Tuple[T.Sort, ...], rng: T.Sort) -> T.FuncDecl:
    return T.FuncDecl(name, domain, rng)


def length(lst: T.Term) -> T.Term:
    return _fn("length", (lst.sort,), T.INT)(lst)


def count(lst: T.Term) -> T.Term:
    """Number of ``true`` in a ``bool list``."""
    return _fn("count", (lst.sort,), T.INT)(lst)


def count_of(lst: T.Term, j: T.TermLike) -> T.Term:
    """Number of occurrences of ``j`` in a ``[k] list``."""
    return _fn("countOf", (lst.sort, T.INT), T.INT)(lst, j)


def total(lst: T.Term) -> T.Term:
    """``sum`` of a ``real list``."""
    return _fn("sum", (lst.sort,), T.REAL)(lst)


def nil(sort: T.Sort) -> T.Term:
    return _fn("nil_" + _suffix(sort), (), sort)()


def cons(head: T.Term, tail: T.Term) -> T.Term:
    return _fn("cons", (elem_sort(list_key_of(tail.sort)), tail.sort), tail.sort)(head, tail)


def _suffix(sort: T.Sort) -> str:
    return list_key_of(sort) or "x"


def adj(l1: T.Term, l2: T.Term) -> T.Term:
    return _fn("adj", (l1.sort, l2.sort), T.BOOL)(l1, l2)


def adj_within(l1: T.Term, l2: T.Term, c: T.TermLike) -> T.Term:
    return _fn("adjWithin", (l1.sort, l2.sort, T.REAL), T.BOOL)(l1, l2, c)


def hamming(l1: T.Term, l2: T.Term) -> T.Term:
    return _fn("dist", (l1.sort, l2.sort), T.INT)(l1, l2)


def hellinger(d1: T.Term, d2: T.Term) -> T.Term:
    return _fn("hellinger", (DIST, DIST), T.REAL)(d1, d2)


def tv(d1: T.Term, d2: T.Term) -> T.Term:
    return _fn("tv", (DIST, DIST), T.REAL)(d1, d2)


def dist_ctor(family: str, params: Tuple[T.Term, ...]) -> T.Term:
    """The ``Dist`` term of a symbolic distribution, e.g. ``beta(a, b)``."""
    name = family if family != "dirichlet" else f"dirichlet{len(params)}"
    domain = tuple(p.sort if p.sort != T.INT else T.REAL for p in params)
    return _fn(name, domain, DIST)(*params)


def posteriors_list(prior: T.Term, n: T.Term) -> T.Term:
    return _fn("posteriors", (DIST, T.INT), list_sort("dist"))(prior, n)


def opaque(name: str, args: Tuple[T.Term, ...], rng: T.Sort) -> T.Term:
    """An application of a program function treated as an uninterpreted (deterministic) symbol."""
    return _fn(name, tuple(a.sort for a in args), rng)(*args)
