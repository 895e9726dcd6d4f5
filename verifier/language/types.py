"""The internal simple types used by type inference.

Types are immutable trees (frozen records) except for ``TypeVar``, a mutable union-find
cell: binding a variable links it to a type, and ``prune`` follows links. Two sorts of
variables exist and never mix: *type* variables stand for types, *size* variables stand for
the ``k`` of ``[k]`` and ``[0,1]^k`` (so that ``categorical : [0,1]^'k -> D[['k]]`` is an
ordinary type scheme). Sizes are ``Size(k)`` or a size variable.

``from_syntax`` erases the ranges of the surface syntax (``real+``, ``real+inf``, ``[0,1]`` are
``real``; ``nat`` is ``int``); ``erase_rtype`` gives the simple type of a relational type.

Besides exact unification (``unify``), two operations implement the numeric order
``fin k <= int <= real`` (lifted covariantly through lists, tuples, ``M`` and ``D``, and
contravariantly through argument types):

* ``flows(actual, expected)`` checks ``actual <= expected``;
* ``join(a, b)`` returns the least common supertype.

Neither builds a constraint: wherever a type variable meets a type, the variable is bound
(the order is only used between types that are known). They raise ``TypeClash`` or
``OccursCheck``; partial bindings made before the failure are not undone.

A type variable may be *numeric* (an undecided number, OCaml's ``'_weak`` number): it stands
for ``int`` or ``real``, not yet known which. It is never bound to anything else (``TypeClash``),
never to ``[k]`` either (arithmetic on it has its own type, which must not become a range), and
the order decides it only where it has to: flowing into ``int`` or ``[k]``, or joined with
``int`` or ``[k]``, it becomes ``int``; meeting a ``real`` it becomes ``real``; an ``int`` may flow
into it, and it into a ``real``, without deciding it. Whoever marks a variable numeric must
default it to ``real`` when inference has nothing more to say (``typecheck``: the end of each
top-level declaration), and ``generalize`` never quantifies it.

Let-polymorphism uses levels: every variable records the ``let`` depth at which it was
created, binding lowers the levels of the variables it captures, and ``generalize`` quantifies
the variables deeper than the current level.
"""
from __future__ import annotations

import itertools
from typing import Dict, List, Optional, Tuple

from obligations.records import record
from verifier.language import ast


class Type:
    """Base class of internal types. ``str(t)`` is ``pretty(t)``."""

    def __str__(self) -> str:
        return pretty(self)


_ids = itertools.count(1)


class TypeVar(Type):
    """A unification variable (a union-find cell).

    ``link`` is the type it has been bound to, or ``None``. ``level`` is the let depth at which
    it was created (lowered when it is captured by a binding of a shallower variable).
    ``is_size`` marks a size variable, which is only ever bound to a ``Size`` or another size
    variable. ``numeric`` marks an undecided number, only ever bound to ``int``, ``real`` or
    another variable (which becomes numeric in turn). Equality is identity.
    """

    __slots__ = ("id", "level", "link", "is_size", "numeric")

    def __init__(self, level: int, is_size: bool = False, numeric: bool = False):
        self.id = next(_ids)
        self.level = level
        self.link: Optional[Type] = None
        self.is_size = is_size
        self.numeric = numeric

    def __repr__(self) -> str:
        state = f" = {self.link!r}" if self.link is not None else ""
        return f"TypeVar({self.id}@{self.level}{state})"


@record
class Base(Type):
    """``unit``, ``bool``, ``int`` or ``real``."""

    name: str


@record
class Size(Type):
    """The number ``k`` of ``[k]`` or ``[0,1]^k`` (a type-level natural)."""

    k: int


@record
class Fin(Type):
    """``[k]`` = {0, ..., k-1}; ``size`` is a ``Size`` or a size variable."""

    size: Type

    @property
    def k(self) -> Optional[int]:
        """The number of elements, or ``None`` while the size is an unbound variable."""
        return _size_value(self.size)


@record
class Simplex(Type):
    """``[0,1]^k``: a probability vector with ``k`` components."""

    size: Type

    @property
    def k(self) -> Optional[int]:
        """The number of components, or ``None`` while the size is an unbound variable."""
        return _size_value(self.size)


@record
class ListType(Type):
    elem: Type


@record
class TupleType(Type):
    items: Tuple[Type, ...]  # at least two


@record
class Arrow(Type):
    dom: Type
    cod: Type


@record
class Monad(Type):
    """``M[T]``: actual distributions."""

    elem: Type


@record
class Dist(Type):
    """``D[T]``: symbolic distributions."""

    elem: Type


UNIT = Base("unit")
BOOL = Base("bool")
INT = Base("int")
REAL = Base("real")


def fin(k: int) -> Fin:
    return Fin(Size(k))


def simplex(k: int) -> Simplex:
    return Simplex(Size(k))


def arrows(params: List[Type], result: Type) -> Type:
    """``p1 -> ... -> pn -> result`` (just ``result`` when there are no parameters)."""
    for p in reversed(params):
        result = Arrow(p, result)
    return result


@record
class Scheme:
    """A type scheme ``forall vars. body``; ``vars`` are unbound variables of ``body``."""

    vars: Tuple[TypeVar, ...]
    body: Type

    @staticmethod
    def mono(t: Type) -> "Scheme":
        """A scheme with nothing quantified."""
        return Scheme((), t)

    def __str__(self) -> str:
        return pretty(self.body)


class TypeClash(Exception):
    """Two types that should fit do not."""


class OccursCheck(Exception):
    """Binding ``var`` to ``type`` would build an infinite type."""

    def __init__(self, var: TypeVar, type: Type):
        super().__init__(f"{var!r} occurs in {type!r}")
        self.var = var
        self.type = type


# --------------------------------------------------------------------------------------
# Variables: pruning, resolution, free variables
# --------------------------------------------------------------------------------------


def prune(t: Type) -> Type:
    """``t`` with the bound variables at its head followed (with path compression)."""
    if not isinstance(t, TypeVar) or t.link is None:
        return t
    root = prune(t.link)
    t.link = root
    return root


def resolve(t: Type) -> Type:
    """``t`` with every bound variable replaced by its binding, at any depth."""
    t = prune(t)
    if isinstance(t, (TypeVar, Base, Size)):
        return t
    if isinstance(t, Fin):
        return Fin(resolve(t.size))
    if isinstance(t, Simplex):
        return Simplex(resolve(t.size))
    if isinstance(t, ListType):
        return ListType(resolve(t.elem))
    if isinstance(t, TupleType):
        return TupleType(tuple(resolve(i) for i in t.items))
    if isinstance(t, Arrow):
        return Arrow(resolve(t.dom), resolve(t.cod))
    if isinstance(t, Monad):
        return Monad(resolve(t.elem))
    if isinstance(t, Dist):
        return Dist(resolve(t.elem))
    raise TypeError(f"not a type: {t!r}")


def _parts(t: Type) -> Tuple[Type, ...]:
    """The direct sub-types of a pruned, non-variable type."""
    if isinstance(t, (Base, Size)):
        return ()
    if isinstance(t, (Fin, Simplex)):
        return (t.size,)
    if isinstance(t, (ListType, Monad, Dist)):
        return (t.elem,)
    if isinstance(t, TupleType):
        return t.items
    if isinstance(t, Arrow):
        return (t.dom, t.cod)
    raise TypeError(f"not a type: {t!r}")


def free_vars(t: Type) -> List[TypeVar]:
    """The unbound variables of ``t`` (type and size variables), left to right, repeats included."""
    found: List[TypeVar] = []
    stack = [t]
    while stack:  # iterative: types built from long inputs can be deep
        t = prune(stack.pop())
        if isinstance(t, TypeVar):
            found.append(t)
        else:
            stack.extend(reversed(_parts(t)))
    return found


def _size_value(size: Type) -> Optional[int]:
    size = prune(size)
    return size.k if isinstance(size, Size) else None


# --------------------------------------------------------------------------------------
# Schemes
# --------------------------------------------------------------------------------------


def generalize(t: Type, level: int) -> Scheme:
    """Quantify the unbound variables of ``t`` created deeper than ``level``, except the
    undecided numbers: they stay shared by every use (a later decision, or the default to
    ``real``, must hold for all of them) and are moved to ``level``, as if they belonged to
    the enclosing scope."""
    quantified: Dict[int, TypeVar] = {}
    for v in free_vars(t):
        if v.numeric:
            v.level = min(v.level, level)
        elif v.level > level:
            quantified.setdefault(v.id, v)
    return Scheme(tuple(quantified.values()), t)


def instantiate(scheme: Scheme, level: int) -> Type:
    """A copy of the scheme's body with fresh variables (at ``level``) for the quantified ones."""
    if not scheme.vars:
        return scheme.body
    fresh = {v.id: TypeVar(level, v.is_size) for v in scheme.vars}
    return _substitute(scheme.body, fresh)


def _substitute(t: Type, fresh: Dict[int, TypeVar]) -> Type:
    t = prune(t)
    if isinstance(t, TypeVar):
        return fresh.get(t.id, t)
    if isinstance(t, (Base, Size)):
        return t
    if isinstance(t, Fin):
        return Fin(_substitute(t.size, fresh))
    if isinstance(t, Simplex):
        return Simplex(_substitute(t.size, fresh))
    if isinstance(t, ListType):
        return ListType(_substitute(t.elem, fresh))
    if isinstance(t, TupleType):
        return TupleType(tuple(_substitute(i, fresh) for i in t.items))
    if isinstance(t, Arrow):
        return Arrow(_substitute(t.dom, fresh), _substitute(t.cod, fresh))
    if isinstance(t, Monad):
        return Monad(_substitute(t.elem, fresh))
    if isinstance(t, Dist):
        return Dist(_substitute(t.elem, fresh))
    raise TypeError(f"not a type: {t!r}")


# --------------------------------------------------------------------------------------
# Unification and the numeric order
# --------------------------------------------------------------------------------------


def is_undecided(t: Type) -> bool:
    """Whether ``t`` (pruned) is an unbound numeric variable."""
    return isinstance(t, TypeVar) and t.numeric


def bind(var: TypeVar, t: Type) -> None:
    """Link the unbound ``var`` to ``t`` (occurs check, level adjustment); ``TypeClash`` if
    ``var`` is numeric and ``t`` is neither ``int``, ``real`` nor a variable (which then
    becomes numeric)."""
    t = prune(t)
    if t is var:
        return
    if var.is_size and not isinstance(t, (Size, TypeVar)):
        raise TypeError(f"size variable bound to a type: {t!r}")
    if var.numeric:
        if isinstance(t, TypeVar) and not t.is_size:
            t.numeric = True
        elif t != INT and t != REAL:
            raise TypeClash()
    for v in free_vars(t):
        if v is var:
            raise OccursCheck(var, t)
        v.level = min(v.level, var.level)
    var.link = t


def unify(a: Type, b: Type) -> None:
    """Make ``a`` and ``b`` equal, binding variables; raise ``TypeClash`` if they cannot be."""
    a, b = prune(a), prune(b)
    if a is b:
        return
    if isinstance(a, TypeVar):
        bind(a, b)
    elif isinstance(b, TypeVar):
        bind(b, a)
    elif type(a) is not type(b):
        raise TypeClash()
    elif isinstance(a, (Base, Size)):
        if a != b:
            raise TypeClash()
    elif isinstance(a, TupleType) and len(a.items) != len(b.items):  # type: ignore[attr-defined]
        raise TypeClash()
    else:
        for x, y in zip(_parts(a), _parts(b)):
            unify(x, y)


def _rank(t: Type) -> Optional[int]:
    """The place of a pruned type in ``fin k <= int <= real``, or ``None`` if it is not numeric."""
    if isinstance(t, Fin):
        return 0
    if t == INT:
        return 1
    if t == REAL:
        return 2
    return None


def is_numeric(t: Type) -> bool:
    """Whether ``t`` (pruned) is ``[k]``, ``int`` or ``real``."""
    return _rank(prune(t)) is not None


def flows(actual: Type, expected: Type) -> None:
    """Check ``actual <= expected`` in the numeric order, binding variables where they meet a type.

    An ``int`` (or a ``[j]``) may flow where a ``[k]`` is expected: LANGUAGE.md makes ``[k]`` a
    range of ``int``, so ``0 <= v < k`` is a range condition (checked by ``run`` and proved by
    the verifier), not a simple-typing matter."""
    a, e = prune(actual), prune(expected)
    if a is e:
        return
    if is_undecided(a) and not isinstance(e, TypeVar):
        if e == INT or isinstance(e, Fin):
            bind(a, INT)  # into a [k]: an int, the range an obligation (see above)
        elif e != REAL:
            raise TypeClash()
        return
    if is_undecided(e) and not isinstance(a, TypeVar):
        if a == REAL:
            bind(e, REAL)
        elif a != INT and not isinstance(a, Fin):
            raise TypeClash()
        return
    if isinstance(a, TypeVar) or isinstance(e, TypeVar):
        unify(a, e)
        return
    ra, re_ = _rank(a), _rank(e)
    if ra is not None and re_ is not None:
        if ra == 1 and re_ == 0:
            return  # int into [k]: simple typing treats [k] as int; the range is an obligation
        if ra > re_:
            raise TypeClash()
        if ra == re_ == 0:
            if a.k is not None and e.k is not None:  # type: ignore[attr-defined]
                # [k] into [m]: both ranges of int; a narrower range (m < k) is an
                # obligation, as an int into [m] (``narrowing``)
                return
            unify(a.size, e.size)  # type: ignore[attr-defined]
        return
    if isinstance(a, Arrow) and isinstance(e, Arrow):
        flows(e.dom, a.dom)
        flows(a.cod, e.cod)
    elif isinstance(a, TupleType) and isinstance(e, TupleType):
        if len(a.items) != len(e.items):
            raise TypeClash()
        for x, y in zip(a.items, e.items):
            flows(x, y)
    elif type(a) is type(e) and isinstance(a, (ListType, Monad, Dist)):
        flows(a.elem, e.elem)  # type: ignore[attr-defined]
    else:
        unify(a, e)


#: The kinds of narrowing ``narrowing`` reports, from the mildest.
VALUE, COMPUTATION, FUNCTION = "value", "computation", "function"


def narrowing(actual: Type, expected: Type) -> Optional[str]:
    """Where ``actual <= expected`` holds only by the exception of ``flows`` — an ``int``
    (or a wider ``[j]``, j > k) where a ``[k]`` is expected, which simple typing allows and
    leaves the range ``0 <= v < k`` to be shown: ``VALUE`` when the ``int`` is carried by the
    value itself (the value, an element of a list, a component of a tuple: checkable where the
    value flows), ``COMPUTATION`` under ``M`` or ``D`` (checkable on the draws where the
    computation runs), ``FUNCTION`` under an arrow (the narrowing happens at every call of the function: not checkable where
    it flows); the strongest found, or None when there is none. Both types resolved."""
    found = set()

    def walk(a: Type, e: Type, under: Optional[str]) -> None:
        a, e = prune(a), prune(e)
        if isinstance(a, TypeVar) or isinstance(e, TypeVar):
            return
        if isinstance(e, Fin) and (a == INT or isinstance(a, Fin) and a.k is not None
                                   and e.k is not None and a.k > e.k):
            found.add(under or VALUE)
        elif isinstance(a, Arrow) and isinstance(e, Arrow):
            walk(e.dom, a.dom, FUNCTION)
            walk(a.cod, e.cod, FUNCTION)
        elif isinstance(a, TupleType) and isinstance(e, TupleType) and len(a.items) == len(e.items):
            for x, y in zip(a.items, e.items):
                walk(x, y, under)
        elif isinstance(a, ListType) and isinstance(e, ListType):
            walk(a.elem, e.elem, under)
        elif type(a) is type(e) and isinstance(a, (Monad, Dist)):
            walk(a.elem, e.elem, FUNCTION if under == FUNCTION else COMPUTATION)

    walk(actual, expected, None)
    for kind in (FUNCTION, COMPUTATION, VALUE):
        if kind in found:
            return kind
    return None


def join(a: Type, b: Type) -> Type:
    """The least common supertype of ``a`` and ``b``; a variable meeting a type is bound to it.

    Distinct finite types join to ``int``, and so do an undecided number and ``int`` or
    ``[k]``; arrows must have equal domains.
    """
    a, b = prune(a), prune(b)
    if a is b:
        return a
    for x, y in ((a, b), (b, a)):
        if is_undecided(x) and not isinstance(y, TypeVar):
            if y != REAL and _rank(y) is not None:
                y = INT
            bind(x, y)
            return y
    if isinstance(a, TypeVar) or isinstance(b, TypeVar):
        unify(a, b)
        return prune(a)
    ra, rb = _rank(a), _rank(b)
    if ra is not None and rb is not None:
        if ra == rb == 0:
            sa, sb = prune(a.size), prune(b.size)  # type: ignore[attr-defined]
            if isinstance(sa, Size) and isinstance(sb, Size) and sa != sb:
                return INT
            unify(sa, sb)
            return a
        return a if ra >= rb else b
    if isinstance(a, Arrow) and isinstance(b, Arrow):
        unify(a.dom, b.dom)
        return Arrow(a.dom, join(a.cod, b.cod))
    if isinstance(a, TupleType) and isinstance(b, TupleType):
        if len(a.items) != len(b.items):
            raise TypeClash()
        return TupleType(tuple(join(x, y) for x, y in zip(a.items, b.items)))
    if type(a) is type(b) and isinstance(a, (ListType, Monad, Dist)):
        return type(a)(join(a.elem, b.elem))  # type: ignore[attr-defined]
    unify(a, b)
    return a


# --------------------------------------------------------------------------------------
# From the surface syntax
# --------------------------------------------------------------------------------------

_ERASED_BASE = {
    "unit": UNIT,
    "bool": BOOL,
    "nat": INT,
    "int": INT,
    "real": REAL,
    "real+": REAL,
    "real+inf": REAL,
    "[0,1]": REAL,
}


def from_syntax(t: ast.SimpleType) -> Type:
    """The internal type of a written simple type, ranges erased."""
    if isinstance(t, ast.TBase):
        return _ERASED_BASE[t.name]
    if isinstance(t, ast.TFin):
        return fin(t.k)
    if isinstance(t, ast.TSimplex):
        return simplex(t.k)
    if isinstance(t, ast.TList):
        return ListType(from_syntax(t.elem))
    if isinstance(t, ast.TTuple):
        return TupleType(tuple(from_syntax(i) for i in t.items))
    if isinstance(t, ast.TArrow):
        return Arrow(from_syntax(t.dom), from_syntax(t.cod))
    if isinstance(t, ast.TMonad):
        return Monad(from_syntax(t.elem))
    if isinstance(t, ast.TDist):
        return Dist(from_syntax(t.elem))
    raise TypeError(f"not a simple type: {t!r}")


def erase_rtype(rt: ast.RType) -> Type:
    """The simple type of a relational type: refinements and indices dropped, ranges erased."""
    if isinstance(rt, ast.RSimple):
        return from_syntax(rt.type)
    if isinstance(rt, ast.RRefine):
        return erase_rtype(rt.base)
    if isinstance(rt, ast.RArrow):
        return Arrow(erase_rtype(rt.dom), erase_rtype(rt.cod))
    if isinstance(rt, ast.RMonad):
        return Monad(erase_rtype(rt.body))
    raise TypeError(f"not a relational type: {rt!r}")


# --------------------------------------------------------------------------------------
# Printing
# --------------------------------------------------------------------------------------


class Namer:
    """Names unbound variables ``'a``, ``'b``, ... in order of first use.

    Share one ``Namer`` between types printed together so that a variable has one name.
    """

    def __init__(self) -> None:
        self._names: Dict[int, str] = {}

    def name(self, v: TypeVar) -> str:
        if v.id not in self._names:
            n = len(self._names)
            letter = chr(ord("a") + n % 26)
            self._names[v.id] = f"'{letter}{n // 26 if n >= 26 else ''}"
        return self._names[v.id]


def pretty(t: Type, namer: Optional[Namer] = None) -> str:
    """``t`` in the surface syntax: ``'a * 'a -> real``, ``bool list -> M[real]``, ``[3]``,
    ``[0,1]^3``; an undecided number is ``number`` (met only in error messages)."""
    return _pretty(t, namer or Namer(), 0)


# The context ``ctx``: 0 anywhere, 1 an arrow's domain (an arrow needs parentheses),
# 2 a tuple component or a list element (an arrow or a tuple needs them).
def _pretty(t: Type, namer: Namer, ctx: int) -> str:
    t = prune(t)
    if isinstance(t, TypeVar):
        return "number" if t.numeric else namer.name(t)
    if isinstance(t, Base):
        return t.name
    if isinstance(t, Size):
        return str(t.k)
    if isinstance(t, Fin):
        return f"[{_pretty(t.size, namer, 0)}]"
    if isinstance(t, Simplex):
        return f"[0,1]^{_pretty(t.size, namer, 0)}"
    if isinstance(t, ListType):
        return f"{_pretty(t.elem, namer, 2)} list"
    if isinstance(t, Monad):
        return f"M[{_pretty(t.elem, namer, 0)}]"
    if isinstance(t, Dist):
        return f"D[{_pretty(t.elem, namer, 0)}]"
    if isinstance(t, TupleType):
        text = " * ".join(_pretty(i, namer, 2) for i in t.items)
        return f"({text})" if ctx >= 2 else text
    if isinstance(t, Arrow):
        text = f"{_pretty(t.dom, namer, 1)} -> {_pretty(t.cod, namer, 0)}"
        return f"({text})" if ctx >= 1 else text
    raise TypeError(f"not a type: {t!r}")
