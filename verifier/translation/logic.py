"""The logical vocabulary of the verifier: sorts of program values and the uninterpreted
symbols for the built-ins the logic does not interpret.

Program values of base type become terms (``obligations.terms``): ``bool`` → Bool, ``int``,
``nat`` and ``[k]`` → Int, the ranges of ``real`` → Real, ``T list`` → the uninterpreted sort
``List[T]``, ``D[T]`` → the uninterpreted sort ``Dist``. Tuples have no sort: they are kept as
tuples of terms by the translator. What the proofs need to know about the uninterpreted
symbols is added to each obligation as ground instances of lemmas (``obligations.schemas``).
The sorts and symbols themselves live in ``obligations.vocabulary`` (re-exported here), which
the certificate kernel shares; this module adds what depends on the language's types.
"""
from __future__ import annotations

from typing import Optional, Tuple

from obligations import terms as T
from obligations.vocabulary import (DIST, adj, adj_within, cons, count, count_of,  # noqa: F401
                                    dist_ctor, elem_sort, fin_size, hamming, hellinger, length,
                                    list_key_of, list_sort, nil, opaque, posteriors_list,
                                    program_function, program_function_name, shorter, total, tv)
from verifier.language import ast as A


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
