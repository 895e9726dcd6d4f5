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
from obligations.vocabulary import (DIST, adj, adj_within, all_in, all_within, below, cons,  # noqa: F401
                                    count,
                                    count_of, dist_ctor, divergence, hockey_stick, kl, elem_sort, fin_size, hamming, hellinger,
                                    implied_by_sort, in_range, length, list_key_of, list_sort, nil,
                                    opaque, opaque_component, posteriors_list, program_function,
                                    program_function_name, shorter, total, tuple_components,
                                    parameter_function, parameter_function_of,
                                    higher_order_function, higher_order_function_of,
                                    tuple_get, tuple_key, tuple_make, tv)
from verifier.language import ast as A
from verifier.language.supports import says_ranges


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
    if isinstance(t, A.TTuple):
        keys = [elem_key(i) for i in t.items]
        return None if any(k is None for k in keys) else tuple_key(keys)
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


def element_kind(t: A.SimpleType) -> Optional[str]:
    """The element range (``obligations.vocabulary``: ``nat``, ``pos``, ``unit``, ``finK``) of
    values of the scalar simple type ``t``; None when ``t`` says nothing beyond its sort."""
    if isinstance(t, A.TBase):
        return {"nat": "nat", "real+": "pos", "[0,1]": "unit"}.get(t.name)
    if isinstance(t, A.TFin):
        return f"fin{t.k}"
    return None


def range_facts(t: A.SimpleType, x: T.Term) -> Tuple[T.Term, ...]:
    """What the simple type ``t`` says of a value ``x`` of its sort: the range of a scalar
    (``real+`` is positive, ``[k]`` is in 0..k-1...) and the range of every element of a list
    (``nat list``: ``allIn_nat (x)``). A list of sort ``List[finK]`` is a ``[K] list``, whose
    elements the sort already keeps in 0..K-1: nothing is said of it that the sort implies
    (``vocabulary.implied_by_sort``). This is the one notion of "a value of type ``t``" of the
    logic: a val's parameters assume it, its callers prove it of their arguments, a
    definition proves it of its result, a computation's draws have it (``verifier.translation.
    values.value_facts`` extends it to tuples and simplex points)."""
    if isinstance(t, A.TDist):
        return (dist_within(t.elem, x),) if says_ranges(t.elem) else ()
    if isinstance(t, A.TList):
        kind = element_kind(t.elem)
        key = list_key_of(x.sort)
        if kind is None or key is None or implied_by_sort(kind, key):
            return ()
        return (all_in(kind, x),)
    kind = element_kind(t)
    if kind is None:
        # real+inf has no finite term for infinity: we assume nothing beyond real.
        return ()
    return tuple(_conjuncts(in_range(kind, x)))


def dist_within(t: A.SimpleType, d: T.Term) -> T.Term:
    """``within'T (d)``: the draws of the distribution ``d`` are values of ``t``, ranges
    included (``verifier.language.supports``). Uninterpreted: a val's ``D[T]`` parameter
    assumes it, its callers show it (of a known family, by its support: ``ranges.value_facts``),
    and a draw from ``d`` has the ranges of ``t`` under it."""
    import hashlib
    from verifier.language.pretty import pretty_type
    text = pretty_type(t)
    key = "".join(c if c.isalnum() else "_" for c in text)
    digest = hashlib.sha256(text.encode()).hexdigest()[:6]
    name = f"within'{key}'{digest}"
    _WITHIN_TYPES[name] = t
    return T.FuncDecl(name, (DIST,), T.BOOL)(d)


#: the type of each ``within'`` symbol made (its name is a digest of the type)
_WITHIN_TYPES: dict = {}


def within_types(hyps, d: T.Term) -> list:
    """The types ``t`` of the hypotheses ``within't (d)`` among ``hyps`` (name, term pairs;
    conjunctions looked into): what the context knows of the draws of ``d``."""
    out, stack = [], [h for _, h in hyps]
    while stack:
        h = stack.pop()
        if isinstance(h, T.Op) and h.op == T.OpKind.AND:
            stack.extend(h.args)
        elif isinstance(h, T.Apply) and h.func.name in _WITHIN_TYPES and h.args == (d,):
            out.append(_WITHIN_TYPES[h.func.name])
    return out


def _conjuncts(t: T.Term) -> Tuple[T.Term, ...]:
    if isinstance(t, T.Op) and t.op == T.OpKind.AND:
        return tuple(t.args)
    return (t,)
