"""What a simple type says of a symbolic value: the facts of "a value of this type".

``value_facts(t, v)`` extends ``logic.range_facts`` (scalars and the elements of lists) to the
values the translator builds: tuples component-wise, a point of the simplex ``[0,1]^k`` (k
non-negative components summing to 1), ``unit`` nothing. It is what a val's result makes its
callers assume and what a definition must show (the Safety walk's ``Result`` obligations),
what an argument of a val must satisfy (its domain), what the draws of a computation of type
``M[T]`` are known to satisfy (``refinements.fresh_value`` assumes the same facts of fresh values),
and, without the elements of lists (``elements=False``), what an annotated pattern ``(x : T)``
checks where it binds: ``privinfer run`` checks annotations there but does not traverse lists
(``evaluator.check_annotation``), so a list annotation on a local binding is neither a
run-time condition nor a fact the verifier assumes.
"""
from __future__ import annotations

from typing import List, Optional

from obligations import terms as T
from verifier.language import ast as A
from verifier.language.supports import family_support, fits, says_ranges
from verifier.translation import logic as L
from verifier.translation.symbolic import DistV, Monadic, Scalar, SymValue, TupleV, UnitV

#: A value the translator cannot name (a computation, a function).
OPAQUE_VALUE = Monadic(None, None, name="_")


def value_facts(t: Optional[A.SimpleType], value: SymValue,
                elements: bool = True) -> Optional[List[T.Term]]:
    """The facts a value of simple type ``t`` has, stated of ``value``; None when ``t`` says
    something of values that ``value`` does not name (an opaque value, or a tuple of another
    shape). With ``elements=False`` the ranges of list elements are left out."""
    if t is None:
        return []
    if isinstance(t, A.TTuple):
        if not (isinstance(value, TupleV) and len(value.items) == len(t.items)):
            return None if any(value_facts(i, OPAQUE_VALUE, elements) is None
                               for i in t.items) else []
        out: List[T.Term] = []
        for item_t, item_v in zip(t.items, value.items):
            facts = value_facts(item_t, item_v, elements)
            if facts is None:
                return None
            out += facts
        return out
    if isinstance(t, A.TSimplex):
        if not (isinstance(value, TupleV) and len(value.items) == t.k
                and all(isinstance(v, Scalar) for v in value.items)):
            return None
        parts = [v.term for v in value.items]
        return [T.ge(p, 0) for p in parts] + [T.eq(T.add(*parts), 1)]
    if isinstance(t, A.TList) and not elements:
        return []
    if isinstance(t, A.TDist) and says_ranges(t.elem):
        return _draws_within(t.elem, value)
    sort = L.sort_of_type(t)
    if sort is None:
        return []
    if isinstance(value, Scalar):
        if isinstance(t, A.TList) and L.list_key_of(value.term.sort) is None:
            return None
        return list(L.range_facts(t, value.term))
    return None if L.range_facts(t, T.Var("_", sort)) else []


def _draws_within(elem: A.SimpleType, value: SymValue) -> Optional[List[T.Term]]:
    """What ``D[elem]`` says of ``value``: its draws are values of ``elem``. Of a distribution
    of a known family, decided by its support; of the posterior of a model without a closed
    form, by what its draws are known to be (``inferred.draw_type``); otherwise the predicate
    ``within'elem`` (``logic.dist_within``), which only a ``D[elem]`` parameter or result
    gives."""
    from verifier.translation.inferred import draw_type
    if isinstance(value, DistV):
        return [T.boolean(fits(family_support(value.family, len(value.params)), elem))]
    if isinstance(value, Scalar) and value.term.sort == L.DIST:
        if fits(draw_type(value.term), elem):
            return []
        return [L.dist_within(elem, value.term)]
    return None


def draw_facts_within(t: Optional[A.SimpleType], d: T.Term, value: SymValue) -> List[T.Term]:
    """What a draw ``value`` (fresh, of ``t``'s sort without ranges: ``without_ranges``) of a
    distribution ``d`` of unknown family (a ``D[t]`` parameter, a result) has of ``t``'s
    ranges: all of them, under ``within't (d)`` — which holds where ``d`` comes from a
    ``D[t]`` whose callers showed it, and not where simple typing let a ``D[int]`` flow into a
    ``D[[3]]``."""
    if not says_ranges(t):
        return []
    wanted = value_facts(t, value)
    if not wanted:
        return []
    return [T.implies(L.dist_within(t, d), T.and_(*wanted))]


def unknown_family_draws(hyps, d: T.Term, t: Optional[A.SimpleType], make_of):
    """How to make a draw of a distribution ``d`` of unknown family simply typed ``D[t]``
    (the Safety walks' ``_draws_of``; ``make_of(type)`` makes fresh values of a type with its
    facts): of the posterior of a model without a closed form, what its draws are known to be
    (``inferred.draw_type``); otherwise values of the type the context says of ``d`` (a
    hypothesis ``within'T (d)``: a ``D[T]`` parameter, whose callers showed it, or the result
    of a val returning one), else of ``t``, without ranges, which they have under
    ``within't (d)`` (``draw_facts_within``)."""
    from verifier.translation.inferred import draw_type
    known = draw_type(d)
    if known is not None:
        return make_of(known)
    t = next(iter(L.within_types(hyps, d)), t)
    plain = make_of(without_ranges(t))

    def make(b, name):
        value, facts = plain(b, name)
        return value, facts + draw_facts_within(t, d, value)
    return make


def rational_draws(hyps, d: T.Term) -> bool:
    """``run`` samples the draws of the distribution ``d`` (of unknown family) as exact
    rationals: the context knows them to lie in ``[0,1]`` or on the simplex (a hypothesis
    ``within'[0,1] (d)``: ``logic.within_types``; or ``d`` is the posterior of a beta prior
    without a closed form: ``inferred.draw_type``). What shows ``within'[0,1]`` of a run's
    distribution is a ``beta`` / ``uniform`` (``dirichlet`` for the simplex: ``value_facts``),
    such a posterior (drawn by rejection from its prior), or an entry's argument of those
    families with rational parameters (``evaluator.check_annotation``, ``entry``): each draws
    exact rationals (docs/noise.md)."""
    from verifier.translation.inferred import draw_type
    known = draw_type(d)
    for t in L.within_types(hyps, d) + ([known] if known is not None else []):
        if isinstance(t, A.TSimplex) or isinstance(t, A.TBase) and t.name == "[0,1]":
            return True
    return False


def has_ranges(t: A.SimpleType) -> bool:
    """Whether the simple type ``t`` says anything of its values beyond their sort (a range,
    the range of list elements, a simplex, or a tuple with such a component): what a val's
    result type makes its callers assume, so that the definition must show it (the kernel
    looks for the Safety walk's ``Result`` obligations exactly then)."""
    if isinstance(t, A.TTuple):
        return any(has_ranges(i) for i in t.items)
    if isinstance(t, A.TSimplex):
        return True
    return bool(L.range_facts(t, T.Var("_", L.sort_of_type(t) or T.REAL)))


def fresh_like(value: SymValue, fresh, name: str) -> Optional[SymValue]:
    """A fresh value of the shape and sorts of the first-order ``value`` (``fresh(name,
    sort)`` makes a variable): any argument a local recursive function could be called with
    at those sorts. A distribution becomes a ``Dist`` of unknown family. None when ``value``
    is not first-order."""
    if isinstance(value, TupleV):
        items = [fresh_like(v, fresh, f"{name}{i}") for i, v in enumerate(value.items, 1)]
        return None if any(i is None for i in items) else TupleV(tuple(items))
    if isinstance(value, UnitV):
        return value
    if isinstance(value, (Scalar, DistV)):
        return Scalar(fresh(name, value.term.sort))
    return None


def value_sorts(value: SymValue):
    """The sorts of a first-order value, as a hashable shape (for the local functions'
    checks: one per shape of arguments)."""
    if isinstance(value, TupleV):
        return tuple(value_sorts(v) for v in value.items)
    if isinstance(value, (Scalar, DistV)):
        return value.term.sort
    return type(value).__name__


def without_ranges(t: Optional[A.SimpleType]) -> Optional[A.SimpleType]:
    """``t`` with every range dropped (``[k]`` and ``nat`` as ``int``, ``[0,1]`` and ``real+``
    as ``real``, a simplex point as a tuple of reals): what is known of a value of type ``t``
    when nothing shows its ranges — the draws of a distribution of unknown family, whose
    element type simple typing does not check (a ``D[int]`` flows where a ``D[[3]]`` is
    expected)."""
    if isinstance(t, A.TFin):
        return A.TBase("int")
    if isinstance(t, A.TBase):
        return A.TBase({"nat": "int", "real+": "real", "real+inf": "real",
                        "[0,1]": "real"}.get(t.name, t.name))
    if isinstance(t, A.TSimplex):
        return A.TTuple(tuple(A.TBase("real") for _ in range(t.k)))
    if isinstance(t, A.TTuple):
        items = tuple(without_ranges(i) for i in t.items)
        return None if any(i is None for i in items) else A.TTuple(items)
    if isinstance(t, A.TList):
        elem = without_ranges(t.elem)
        return None if elem is None else A.TList(elem)
    return t


def coupled_draw_facts(hyps, dists, value: SymValue) -> List[T.Term]:
    """What the output ``value`` of ``ran d``, coupled equal in both runs (EqualInputs, Ran),
    has of where ``d`` draws — the paper's ``ran :: D[T] -> M[T]`` read with T's ranges, shared
    by the builder and the kernel. ``dists`` are the two runs' values of ``d``. The coupling's
    witnesses draw the shared value from run 1's law or from run 2's (the diagonal coupling of
    Ran), so only what holds of the draws of *both* is a fact: each run's draws lie in the
    support of its law — of a known family by its support (``supports.family_support``: a
    ``beta`` draws in ``[0,1]``), of a posterior without a closed form by
    ``inferred.draw_type``, of a distribution of unknown family by every type ``T`` the context
    knows ``within'T (d)`` of (``hyps``: a ``D[T]`` parameter or a val's result) — and the
    facts kept are those both runs give. Nothing for an output the logic does not name."""
    from verifier.translation.inferred import draw_type
    per_run: List[List[T.Term]] = []
    for d in dists:
        if isinstance(d, DistV):
            types = [family_support(d.family, len(d.params))]
        elif isinstance(d, Scalar) and d.term.sort == L.DIST:
            types = [draw_type(d.term)] + L.within_types(hyps, d.term)
        else:
            return []
        facts: List[T.Term] = []
        for t in types:
            for fact in (value_facts(t, value) or []) if t is not None else []:
                if fact != T.boolean(True) and fact not in facts:
                    facts.append(fact)
        per_run.append(facts)
    return [f for f in per_run[0] if all(f in other for other in per_run[1:])] if per_run else []
