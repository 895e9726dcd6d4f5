"""The uninterpreted vocabulary of the built-ins: sorts and function symbols.

The logic leaves the language's list statistics, relations between lists, distances between
distributions and the distribution constructors uninterpreted. This module names them once,
for everyone who builds or checks terms over them: the verifier's translator
(``verifier.translation.logic`` re-exports it), the axiom schemas (``obligations.schemas``) and the
certificate kernel (``checker``), which must rebuild the very same terms without importing
the verifier.

* ``List[key]`` is the uninterpreted sort of lists whose elements have key ``bool``, ``int``,
  ``real``, ``dist`` or ``finK`` (``[K]``, whose elements are Ints);
* ``Dist`` is the uninterpreted sort of distributions.

Every function is declared at the sorts of its arguments, so the same name at two list sorts
gives two symbols (``Vocabulary`` resolves the overloading).
"""
from __future__ import annotations

from typing import Dict, Optional, Tuple

from obligations import terms as T

DIST = T.uninterpreted_sort("Dist")

_LIST_SORTS: Dict[str, T.Sort] = {}


def list_sort(key: str) -> T.Sort:
    """The uninterpreted sort ``List[key]``."""
    if key not in _LIST_SORTS:
        _LIST_SORTS[key] = T.uninterpreted_sort(f"List[{key}]")
    return _LIST_SORTS[key]


def elem_sort(key: str) -> T.Sort:
    """The sort of the elements of ``List[key]`` (``fin3`` elements are Ints; the elements of
    a list of tuples, key ``tup<k1,k2,…>``, are of the uninterpreted sort ``Tup<k1,k2,…>``)."""
    if key.startswith("fin"):
        return T.INT
    if tuple_components(key) is not None:
        return T.uninterpreted_sort("Tup" + key[3:])
    return {"bool": T.BOOL, "int": T.INT, "real": T.REAL, "dist": DIST}[key]


def tuple_key(keys) -> str:
    """The element key of a list of tuples whose components have the element keys ``keys``."""
    return "tup<" + ",".join(keys) + ">"


def tuple_components(key: Optional[str]) -> Optional[list]:
    """The component keys of a tuple element key ``tup<k1,k2,…>`` (nested tuples kept
    whole), or None for another key."""
    if not key or not key.startswith("tup<") or not key.endswith(">"):
        return None
    parts, depth, start, inner = [], 0, 0, key[4:-1]
    for i, ch in enumerate(inner):
        if ch == "<":
            depth += 1
        elif ch == ">":
            depth -= 1
        elif ch == "," and depth == 0:
            parts.append(inner[start:i])
            start = i + 1
    parts.append(inner[start:])
    return parts


def tuple_make(key: str, items) -> T.Term:
    """The element of sort ``elem_sort(key)`` made of the component terms ``items`` (the
    constructor of the tuple sort, injective with its projections ``tuple_get``)."""
    items = tuple(items)
    return _fn(f"mk_{_ident(key)}", tuple(i.sort for i in items), elem_sort(key))(*items)


def _ident(key: str) -> str:
    """An identifier for a tuple element key (``tup<bool,real>`` is ``tup'lbool'creal'r``)."""
    return key.replace("<", "'l").replace(">", "'r").replace(",", "'c")


def tuple_get(key: str, index: int, element: T.Term) -> T.Term:
    """Component ``index`` (from 0) of a tuple element: the projection of the tuple sort,
    read off a constructor directly (``tuple_get(k, i, tuple_make(k, xs)) = xs[i]``, the
    definition of the projections, as in SMT-LIB's datatypes)."""
    if isinstance(element, T.Apply) and element.func.name == f"mk_{_ident(key)}":
        return element.args[index]
    comp = elem_sort(tuple_components(key)[index])
    return _fn(f"get{index + 1}_{_ident(key)}", (element.sort,), comp)(element)


def list_part(lst: T.Term, index: int) -> T.Term:
    """The list of components ``index`` (from 0) of a list of tuples ``lst`` (``map (fun t ->
    t.index) lst``): read off a ``cons`` / ``[]`` directly (the map's defining equations), an
    uninterpreted ``partI_K`` of ``lst`` otherwise. The projection of an output of type
    ``(bool * real) list`` on its countable part (the Pointwise rule's ``D``)."""
    key = list_key_of(lst.sort)
    components = tuple_components(key)
    if components is None or not 0 <= index < len(components):
        raise ValueError(f"{lst.sort.name} is not a list of tuples with a component {index + 1}")
    out = list_sort(components[index])
    if isinstance(lst, T.Apply) and lst.func.name == "cons":
        return cons(tuple_get(key, index, lst.args[0]), list_part(lst.args[1], index))
    if isinstance(lst, T.Apply) and lst.func.name == nil_name(key):
        return nil(out)
    return _fn(f"part{index + 1}_{_ident(key)}", (lst.sort,), out)(lst)


def list_signs(lst: T.Term) -> T.Term:
    """The signs of the elements of a ``real list`` (``map (fun x -> x >= 0) lst``, a ``bool
    list``): read off a ``cons`` / ``[]`` directly (the map's defining equations), an
    uninterpreted ``signs_real`` of ``lst`` otherwise. The projection of a real list output
    on a countable part (the Pointwise rule's ``D``: GapSVT's gaps, ``>= 0``, against its
    marker ``-1.0`` for an answer below)."""
    if list_key_of(lst.sort) != "real":
        raise ValueError(f"{lst.sort.name} is not a list of reals")
    if isinstance(lst, T.Apply) and lst.func.name == "cons":
        return cons(T.ge(lst.args[0], T.real(0)), list_signs(lst.args[1]))
    if isinstance(lst, T.Apply) and lst.func.name == nil_name("real"):
        return nil(list_sort("bool"))
    return _fn("signs_real", (lst.sort,), list_sort("bool"))(lst)


def fin_size(key: Optional[str]) -> Optional[int]:
    """3 for ``fin3``; None for other element keys."""
    return int(key[3:]) if key and key.startswith("fin") else None


def list_key_of(sort: T.Sort) -> Optional[str]:
    """``bool`` for ``List[bool]``; None when ``sort`` is not a list sort."""
    name = sort.name
    if name.startswith("List[") and name.endswith("]"):
        return name[5:-1]
    return None


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
    return _fn(nil_name(list_key_of(sort) or "x"), (), sort)()


def nil_name(key: str) -> str:
    """The name of the empty list of ``List[key]`` (an identifier: a tuple key is mangled)."""
    return "nil_" + _ident(key)


def cons(head: T.Term, tail: T.Term) -> T.Term:
    return _fn("cons", (elem_sort(list_key_of(tail.sort)), tail.sort), tail.sort)(head, tail)


# ---- element ranges -----------------------------------------------------------------------------
#
# The ranges of list elements: ``allIn_<kind> (l)`` says that every element of ``l`` is in the
# range ``kind`` — ``nat`` (x >= 0), ``pos`` (x > 0: ``real+``), ``unit`` (0 <= x <= 1:
# ``[0,1]``) or ``finK`` (0 <= x < K: ``[K]``). The predicate is declared at the sort of the
# list it is applied to (``allIn_nat`` of a ``List[int]``, ``allIn_unit`` of a ``List[real]``),
# and means the same at every sort; its meaning on ``[]`` and ``x :: l`` is the schema pair
# ``allinnil`` / ``allincons`` (lemma ``lists.allin.definition``). A ``List[finK]`` needs no
# predicate: its elements are in 0..K-1 by its sort (every term of that sort is the
# translation of a ``[K] list``, which the translator keeps so: ``verifier.translation``).

#: The element ranges with a predicate, by kind (``finK`` for every K >= 2 besides).
ELEMENT_KINDS = ("nat", "pos", "unit")


def element_kind_ok(kind: str) -> bool:
    """Whether ``kind`` names an element range (``nat``, ``pos``, ``unit``, ``finK``)."""
    return kind in ELEMENT_KINDS or (kind.startswith("fin") and kind[3:].isdigit()
                                     and int(kind[3:]) >= 2)


def in_range(kind: str, x: T.TermLike) -> T.Term:
    """The range condition ``kind`` of one element ``x``."""
    if kind == "nat":
        return T.ge(x, 0)
    if kind == "pos":
        return T.gt(x, 0)
    if kind == "unit":
        return T.and_(T.ge(x, 0), T.le(x, 1))
    if element_kind_ok(kind):
        return T.and_(T.ge(x, 0), T.lt(x, int(kind[3:])))
    raise ValueError(f"not an element range: {kind!r}")


def all_in(kind: str, lst: T.Term) -> T.Term:
    """``allIn_<kind> (lst)``: every element of the list ``lst`` is in the range ``kind``."""
    if not element_kind_ok(kind) or list_key_of(lst.sort) is None:
        raise T.SortError(f"allIn_{kind} of {lst.sort}")
    return _fn(ALL_IN + kind, (lst.sort,), T.BOOL)(lst)


#: The prefix of the element-range predicates.
ALL_IN = "allIn_"


def all_in_kind(app: T.Term) -> Optional[str]:
    """The kind of an application ``allIn_<kind> (l)``; None for any other term."""
    if isinstance(app, T.Apply) and app.func.name.startswith(ALL_IN) and len(app.args) == 1:
        kind = app.func.name[len(ALL_IN):]
        return kind if element_kind_ok(kind) else None
    return None


def implied_by_sort(kind: str, key: Optional[str]) -> bool:
    """Whether every element of a list of sort ``List[key]`` is in the range ``kind``: the
    elements of a ``[K] list`` are in 0..K-1, hence natural numbers, and in ``[0,1]`` when
    K = 2."""
    k = fin_size(key)
    if not k:
        return False
    if kind == "nat":
        return True
    if kind == "unit":
        return k <= 2
    return element_kind_ok(kind) and kind.startswith("fin") and k <= int(kind[3:])


def adj(l1: T.Term, l2: T.Term) -> T.Term:
    return _fn("adj", (l1.sort, l2.sort), T.BOOL)(l1, l2)


def adj_within(l1: T.Term, l2: T.Term, c: T.TermLike) -> T.Term:
    return _fn("adjWithin", (l1.sort, l2.sort, T.REAL), T.BOOL)(l1, l2, c)


def all_within(l1: T.Term, l2: T.Term, c: T.TermLike) -> T.Term:
    """``allWithin (l1, l2, c)``: one length, and the entries at every position differ by at
    most ``c``."""
    if isinstance(c, T.Term) and c.sort == T.INT:
        c = T.to_real(c)
    return _fn("allWithin", (l1.sort, l2.sort, T.REAL), T.BOOL)(l1, l2, c)


def hamming(l1: T.Term, l2: T.Term) -> T.Term:
    return _fn("dist", (l1.sort, l2.sort), T.INT)(l1, l2)


def hellinger(d1: T.Term, d2: T.Term) -> T.Term:
    return _fn("hellinger", (DIST, DIST), T.REAL)(d1, d2)


def tv(d1: T.Term, d2: T.Term) -> T.Term:
    return _fn("tv", (DIST, DIST), T.REAL)(d1, d2)


def kl(d1: T.Term, d2: T.Term) -> T.Term:
    """The Kullback-Leibler divergence of two symbolic distributions (the KL f-divergence)."""
    return _fn("kl", (DIST, DIST), T.REAL)(d1, d2)


def hockey_stick(eps: T.Term, d1: T.Term, d2: T.Term) -> T.Term:
    """The eps-distance of differential privacy between two symbolic distributions (the
    paper's ``Δ_ε``, the hockey-stick divergence ``sup_E d1(E) - e^eps d2(E)``)."""
    return _fn("hsdiv", (T.REAL, DIST, DIST), T.REAL)(eps, d1, d2)


def divergence(kind: str, d1: T.Term, d2: T.Term, eps: Optional[T.Term] = None) -> T.Term:
    """``Δ_F (d1, d2)`` for the divergence ``F`` of an index or an assertion ``Delta[F]``:
    SD the total variation distance, HD ``1 - BC = H^2`` (the square of the Hellinger
    distance: NOTES.md §3), KL, and ``DP(eps)`` the eps-distance (``hockey_stick``)."""
    if kind == "SD":
        return tv(d1, d2)
    if kind == "HD":
        h = hellinger(d1, d2)
        return T.mul(h, h)
    if kind == "KL":
        return kl(d1, d2)
    if kind == "DP" and eps is not None:
        return hockey_stick(eps, d1, d2)
    raise ValueError(f"no divergence {kind}")


def dist_ctor(family: str, params: Tuple[T.Term, ...]) -> T.Term:
    """The ``Dist`` term of a symbolic distribution, e.g. ``beta(a, b)``."""
    name = family if family != "dirichlet" else f"dirichlet{len(params)}"
    domain = tuple(p.sort if p.sort != T.INT else T.REAL for p in params)
    return _fn(name, domain, DIST)(*params)


def posteriors_list(prior: T.Term, n: T.Term) -> T.Term:
    return _fn("posteriors", (DIST, T.INT), list_sort("dist"))(prior, n)


#: The prefix of the logic's symbols for the program's own functions: no symbol of the
#: built-ins' vocabulary has it, so a program function never takes a built-in's axioms (a
#: function of the program called ``total`` or ``dirichlet3`` is not the logic's).
PROGRAM_FUNCTION = "fn_"


def program_function(name: str) -> str:
    """The logic's symbol for the program function ``name`` (a name of the resolved core).
    The encoding is injective: ``'`` is written ``'q`` and the ``#`` of a renamed binder
    ``'h`` (a source name may contain ``'``, never ``#``)."""
    return PROGRAM_FUNCTION + name.replace("'", "'q").replace("#", "'h")


def program_function_name(symbol: str) -> Optional[str]:
    """The program function a logic symbol stands for (inverse of ``program_function``, and
    of ``program_component`` and ``higher_order_function``), or None for a symbol of the
    built-ins' vocabulary or of a function parameter (``parameter_function``)."""
    if not symbol.startswith(PROGRAM_FUNCTION):
        return None
    name = symbol[len(PROGRAM_FUNCTION):]
    if PARAMETER_MARK in name:
        return None
    cut = name.find(RUN_MARK)
    if cut >= 0:
        name = name[:cut]
    else:
        cut = name.rfind("'p")
        if cut >= 0 and name[cut + 2:].isdigit():
            name = name[:cut]
    return name.replace("'h", "#").replace("'q", "'")


#: Markers of the symbols of higher-order code (issue #26). A source name never contains
#: them (``program_function`` writes its ``'`` as ``'q``).
PARAMETER_MARK, RUN_MARK, KEY_MARK = "'x", "'r", "'a"


def parameter_function(name: str, run: int) -> str:
    """The logic's symbol for run ``run``'s function bound to the parameter of function type
    ``name`` (``fn_m'x1``, ``fn_m'x2``): two symbols, since the two runs' functions need not
    be the same (HOARe²'s logical relation relates them by the parameter's type)."""
    return program_function(name) + f"{PARAMETER_MARK}{run}"


def parameter_function_of(symbol: str) -> Optional[Tuple[str, int]]:
    """The parameter and run of a symbol made by ``parameter_function`` (a component of a
    tuple result included), else None."""
    if not symbol.startswith(PROGRAM_FUNCTION):
        return None
    name = symbol[len(PROGRAM_FUNCTION):]
    cut = name.find(PARAMETER_MARK)
    if cut < 0:
        return None
    rest = name[cut + len(PARAMETER_MARK):].split("'p")[0]
    if rest not in ("1", "2"):
        return None
    return name[:cut].replace("'h", "#").replace("'q", "'"), int(rest)


def higher_order_function(name: str, run: int, keys: Tuple[str, ...]) -> str:
    """The logic's symbol for the calls, in run ``run``, of the program function ``name``
    whose val takes functions, on the functions whose keys are ``keys`` (one per parameter of
    function type, in order: ``verifier.translation.functions.function_key``): the symbol
    of ``f g a`` is a function of the first-order values ``g`` reads and of ``a``, per run
    (the functions passed in the two runs need not be the same)."""
    return program_function(name) + f"{RUN_MARK}{run}" + "".join(KEY_MARK + k for k in keys)


def higher_order_function_of(symbol: str) -> Optional[Tuple[str, int, Tuple[str, ...]]]:
    """The function, run and keys of a symbol made by ``higher_order_function`` (a component
    of a tuple result included), else None."""
    if not symbol.startswith(PROGRAM_FUNCTION):
        return None
    name = symbol[len(PROGRAM_FUNCTION):]
    cut = name.find(RUN_MARK)
    if cut < 0 or PARAMETER_MARK in name:
        return None
    rest = name[cut + len(RUN_MARK):].split("'p")[0]
    run, *keys = rest.split(KEY_MARK)
    if run not in ("1", "2"):
        return None
    return name[:cut].replace("'h", "#").replace("'q", "'"), int(run), tuple(keys)


def symbol_call(symbol: str, args: Tuple[T.Term, ...], rng: T.Sort,
                component: Optional[int] = None) -> T.Term:
    """An application of the symbol ``symbol`` (a ``parameter_function`` or a
    ``higher_order_function``), or of its component ``component`` (from 1) for a tuple
    result."""
    name = symbol if component is None else f"{symbol}'p{component}"
    return _fn(name, tuple(a.sort for a in args), rng)(*args)


def program_component(name: str, index: int) -> str:
    """The logic's symbol for component ``index`` (of the flattened components, from 1) of
    the result of program function ``name`` when that result is a tuple: the call ``f(a)``
    is the tuple of ``f'p1(a)``, ``f'p2(a)``, … (a source name never contains ``'p``:
    ``program_function`` writes its ``'`` as ``'q``)."""
    return f"{program_function(name)}'p{index}"


def opaque_component(name: str, index: int, args: Tuple[T.Term, ...], rng: T.Sort) -> T.Term:
    """Component ``index`` of the tuple result of the program function ``name`` at ``args``."""
    return _fn(program_component(name, index), tuple(a.sort for a in args), rng)(*args)


def opaque(name: str, args: Tuple[T.Term, ...], rng: T.Sort) -> T.Term:
    """An application of the program function ``name`` treated as an uninterpreted
    (deterministic) symbol."""
    return _fn(program_function(name), tuple(a.sort for a in args), rng)(*args)


def below(a: T.Term, x: T.Term) -> T.Term:
    """``a`` is below ``x`` in the measure of an induction: a shorter list (``length a <
    length x``), or for an integer counter a natural number below it (``0 <= a < x``, a
    well-founded order on the integers whatever ``x`` is)."""
    if a.sort == T.INT:
        return T.and_(T.le(0, a), T.lt(a, x))
    return T.lt(length(a), length(x))


def shorter(args: Tuple[T.Term, T.Term], params: Tuple[T.Term, T.Term]) -> T.Term:
    """``below(a1, x1) /\\ below(a2, x2)``: a recursive call on ``args`` (run 1, run 2) is
    below the call on ``params`` in the measure of the induction (on a list parameter's
    length, or on an integer counter): the product order on the two runs' measures, which is
    well-founded, and in which each run's call is below its own (so each run terminates)."""
    (a1, a2), (x1, x2) = args, params
    first = below(a1, x1)
    return first if (a1, x1) == (a2, x2) else T.and_(first, below(a2, x2))
