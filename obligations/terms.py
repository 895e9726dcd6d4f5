"""A small typed first-order term language for proof obligations, independent of any solver.

Terms are immutable, hashable frozen records. Every constructor checks sorts when the
node is built (``__post_init__``), so an ill-sorted term cannot exist: building one raises
``SortError`` at the faulty node. The node classes are strict (an ``Int`` where a ``Real`` is
expected is an error); the smart constructors below (``add``, ``lt``, ``ite``, a
``FuncDecl`` called like a function, the arithmetic operators on terms...) lift Python values
and insert the ``Int -> Real`` coercion (``to_real``) where the surface language's subtyping
``int <= real`` allows it, so the coercion is always explicit in the tree.

Sorts
    ``REAL``, ``INT``, ``BOOL`` and named uninterpreted sorts (``uninterpreted_sort("List[bool]")``).
Atoms
    ``Const`` (an ``int``, a ``fractions.Fraction`` or a ``bool``: never a float) and ``Var``
    (a program name, a sort and a run tag: ``run=1`` prints ``x<1>``, ``run=2`` prints
    ``x<2>``, ``run=None`` prints ``x`` and stands for a value equal in both runs or a plain
    logical variable).
Interpreted operations (``Op``)
    ``+ - * /`` (``/`` is real division), unary minus, ``abs``, ``min``, ``max``, ``to_real``;
    ``= <> < <= > >=``; ``and or not =>``; ``ite``; ``pi``, ``sqrt``, ``exp``, ``log``.
    Division by zero, ``sqrt`` of a negative number and ``log`` of a non-positive number are
    *unspecified* (as in SMT-LIB): some fixed value that an obligation may not rely on.
Uninterpreted functions (``Apply`` of a ``FuncDecl``)
    declared with a signature, e.g. ``length : List[bool] -> Int``; a ``Vocabulary`` holds the
    declarations and resolves names (overloading on argument sorts is allowed).
Quantifiers (``Quantifier``)
    ``forall`` / ``exists`` over typed variables.

``pretty`` prints a term in the program's own assertion syntax (``aPn<1> = -0.5``,
``length l<1> >= 1``, ``sqrt (1.0 - pi / 4.0) * eps``); ``term_to_json`` / ``term_from_json``
serialise it so that the round trip is exact (``term_from_json(term_to_json(t), v) == t``).
"""
from __future__ import annotations

import hashlib
import re
from functools import lru_cache
from enum import Enum
from fractions import Fraction
from typing import (Any, Callable, Dict, Iterable, Iterator, List, Mapping, Optional, Sequence,
                    Tuple, Union)

from obligations.records import field, record


class SortError(TypeError):
    """A term would be ill-sorted (or malformed); raised where it is built."""


# --------------------------------------------------------------------------------------
# Sorts and signatures
# --------------------------------------------------------------------------------------

_BUILTIN_SORTS = ("Real", "Int", "Bool")
_BAD_SORT_CHARS = re.compile(r"[|\\\s]")
#: Program names: OCaml-like identifiers. Anything else (e.g. ``!``) is kept for the encoding.
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_']*\Z")


@record
class Sort:
    """A sort: ``Real``, ``Int``, ``Bool`` or a named uninterpreted sort such as ``List[bool]``."""

    name: str

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not self.name or _BAD_SORT_CHARS.search(self.name):
            raise SortError(f"invalid sort name {self.name!r} (no blanks, '|' or '\\')")
        object.__setattr__(self, "_hash", hash(("Sort", self.name)))

    def __hash__(self) -> int:
        return self._hash  # type: ignore[attr-defined]

    def __reduce__(self):
        return (Sort, (self.name,))

    @property
    def is_builtin(self) -> bool:
        return self.name in _BUILTIN_SORTS

    @property
    def is_numeric(self) -> bool:
        return self.name in ("Real", "Int")

    def __str__(self) -> str:
        return self.name

    def __repr__(self) -> str:
        return self.name


REAL = Sort("Real")
INT = Sort("Int")
BOOL = Sort("Bool")


def uninterpreted_sort(name: str) -> Sort:
    """A named uninterpreted sort, e.g. ``List[bool]`` or ``Dist``; the built-in names are refused."""
    if name in _BUILTIN_SORTS:
        raise SortError(f"{name!r} is a built-in sort, not an uninterpreted one")
    return Sort(name)


def _check_name(name: Any, what: str) -> None:
    if not isinstance(name, str) or not _IDENT.match(name):
        raise SortError(f"invalid {what} name {name!r} (expected an identifier)")


@record
class FuncDecl:
    """The signature of an uninterpreted function ``name : domain -> range``.

    A nullary declaration is an uninterpreted constant. Calling a declaration applies it,
    with lifting and ``Int -> Real`` coercion of the arguments: ``length(l1)``.
    """

    name: str
    domain: Tuple[Sort, ...]
    range: Sort

    def __post_init__(self) -> None:
        self._check_name()
        object.__setattr__(self, "domain", tuple(self.domain))
        if not all(isinstance(s, Sort) for s in self.domain) or not isinstance(self.range, Sort):
            raise SortError(f"the signature of {self.name} must be made of sorts")
        object.__setattr__(self, "_hash", hash((self.name, self.domain, self.range)))

    def __hash__(self) -> int:
        return self._hash  # type: ignore[attr-defined]

    def __reduce__(self):
        return (type(self), (self.name, self.domain, self.range))

    def _check_name(self) -> None:
        _check_name(self.name, "function")
        if self.name in _INTERPRETED_NAMES:
            raise SortError(f"{self.name!r} is interpreted; it cannot be declared")

    def __call__(self, *args: "TermLike") -> "Apply":
        if len(args) != len(self.domain):
            raise SortError(f"{self.name} takes {len(self.domain)} argument(s), got {len(args)}")
        return Apply(self, tuple(_coerce(lift(a, s), s) for a, s in zip(args, self.domain)))

    def __str__(self) -> str:
        dom = " * ".join(str(s) for s in self.domain) or "()"
        return f"{self.name} : {dom} -> {self.range}"


class Vocabulary:
    """A set of uninterpreted sorts and function declarations, looked up by name.

    A name may be declared at several argument sorts (``length`` on ``List[bool]`` and on
    ``List[real]``); ``lookup`` picks the declaration whose domain matches the argument sorts
    exactly. Two declarations with the same name and domain are refused. Vocabularies are
    immutable: ``extend`` returns a new one.
    """

    def __init__(self, functions: Iterable[FuncDecl] = (), sorts: Iterable[Sort] = ()):
        self._functions: Tuple[FuncDecl, ...] = ()
        self._by_name: Dict[str, Tuple[FuncDecl, ...]] = {}
        sort_list: List[Sort] = []
        for s in sorts:
            if not isinstance(s, Sort) or s.is_builtin:
                raise SortError(f"not an uninterpreted sort: {s!r}")
            if s not in sort_list:
                sort_list.append(s)
        decls: List[FuncDecl] = []
        for f in functions:
            if not isinstance(f, FuncDecl):
                raise SortError(f"not a function declaration: {f!r}")
            same = [g for g in self._by_name.get(f.name, ()) if g.domain == f.domain]
            if same and same[0] != f:
                raise SortError(f"conflicting declarations: {same[0]} and {f}")
            if same:
                continue
            decls.append(f)
            self._by_name[f.name] = self._by_name.get(f.name, ()) + (f,)
            for s in f.domain + (f.range,):
                if not s.is_builtin and s not in sort_list:
                    sort_list.append(s)
        self._functions = tuple(decls)
        self._sorts: Tuple[Sort, ...] = tuple(sort_list)

    @property
    def functions(self) -> Tuple[FuncDecl, ...]:
        return self._functions

    @property
    def sorts(self) -> Tuple[Sort, ...]:
        """The uninterpreted sorts, declared or used by a declaration, in first-seen order."""
        return self._sorts

    def extend(self, functions: Iterable[FuncDecl] = (), sorts: Iterable[Sort] = ()) -> "Vocabulary":
        return Vocabulary(self._functions + tuple(functions), self._sorts + tuple(sorts))

    def __contains__(self, name: str) -> bool:
        return name in self._by_name

    def __getitem__(self, name: str) -> FuncDecl:
        """The only declaration called ``name``; ``KeyError`` if none, ``SortError`` if overloaded."""
        decls = self._by_name[name]
        if len(decls) > 1:
            raise SortError(f"{name} is overloaded; use lookup(name, arg_sorts)")
        return decls[0]

    def lookup(self, name: str, arg_sorts: Sequence[Sort]) -> FuncDecl:
        """The declaration of ``name`` whose domain is exactly ``arg_sorts``."""
        for f in self._by_name.get(name, ()):
            if f.domain == tuple(arg_sorts):
                return f
        shown = ", ".join(str(s) for s in arg_sorts)
        raise SortError(f"no declaration of {name} takes ({shown})")

    def apply(self, name: str, *args: "TermLike") -> "Apply":
        """Apply ``name`` to ``args``, resolving overloading; ``Int`` arguments may be coerced."""
        decls = self._by_name.get(name)
        if not decls:
            raise SortError(f"undeclared function {name}")
        terms = [a if isinstance(a, Term) else None for a in args]
        exact = [f for f in decls if len(f.domain) == len(args)
                 and all(t is None or t.sort == s for t, s in zip(terms, f.domain))]
        if len(exact) == 1:
            return exact[0](*args)
        loose = [f for f in decls if len(f.domain) == len(args)
                 and all(t is None or _coercible(t.sort, s) for t, s in zip(terms, f.domain))]
        if len(loose) == 1:
            return loose[0](*args)
        raise SortError(f"{'ambiguous' if loose or exact else 'ill-sorted'} application of {name}")

    def to_json(self) -> Dict[str, Any]:
        return {"sorts": [s.name for s in self._sorts],
                "functions": [{"name": f.name, "domain": [s.name for s in f.domain],
                               "range": f.range.name} for f in self._functions]}

    @staticmethod
    def from_json(data: Mapping[str, Any]) -> "Vocabulary":
        return Vocabulary(
            [FuncDecl(f["name"], tuple(Sort(s) for s in f["domain"]),
                      Sort(f["range"])) for f in data.get("functions", ())],
            [uninterpreted_sort(s) for s in data.get("sorts", ())])

    def __eq__(self, other: object) -> bool:
        return (isinstance(other, Vocabulary) and set(self._functions) == set(other._functions)
                and set(self._sorts) == set(other._sorts))

    def __hash__(self) -> int:
        return hash((frozenset(self._functions), frozenset(self._sorts)))

    def __repr__(self) -> str:
        return f"Vocabulary({list(self._functions)!r}, {list(self._sorts)!r})"


# --------------------------------------------------------------------------------------
# Terms
# --------------------------------------------------------------------------------------

class Term:
    """Base class of terms. Every term has a ``sort``; ``str(t)`` is ``pretty(t)``.

    The arithmetic operators build terms (``x + 1``, ``2 * eps``, ``-x``, ``a / b``);
    comparisons and connectives are functions (``lt``, ``and_``...) so that ``==`` keeps its
    structural meaning and terms stay usable as dictionary keys.
    """

    sort: Sort

    def __str__(self) -> str:
        return pretty(self)

    def __add__(self, other: "TermLike") -> "Term":
        return add(self, other)

    def __radd__(self, other: "TermLike") -> "Term":
        return add(other, self)

    def __sub__(self, other: "TermLike") -> "Term":
        return sub(self, other)

    def __rsub__(self, other: "TermLike") -> "Term":
        return sub(other, self)

    def __mul__(self, other: "TermLike") -> "Term":
        return mul(self, other)

    def __rmul__(self, other: "TermLike") -> "Term":
        return mul(other, self)

    def __truediv__(self, other: "TermLike") -> "Term":
        return div(self, other)

    def __rtruediv__(self, other: "TermLike") -> "Term":
        return div(other, self)

    def __neg__(self) -> "Term":
        return neg(self)


TermLike = Union[Term, int, Fraction, bool, str]


@record
class Const(Term):
    """A literal: an ``int`` (sort ``Int``), a ``Fraction`` (``Real``) or a ``bool``.

    A ``Real`` constant given as an ``int`` is stored as a ``Fraction``; floats are refused
    because they are not exact.
    """

    value: Union[int, Fraction, bool]
    sort: Sort

    def __post_init__(self) -> None:
        v, s = self.value, self.sort
        if s == BOOL and isinstance(v, bool):
            return
        if isinstance(v, bool) or not isinstance(v, (int, Fraction)):
            raise SortError(f"a constant of sort {s} cannot hold {v!r}"
                            + (" (floats are inexact: use a Fraction or a decimal string)"
                               if isinstance(v, float) else ""))
        if s == INT and isinstance(v, int):
            return
        if s == REAL:
            object.__setattr__(self, "value", Fraction(v))
            return
        raise SortError(f"a constant of sort {s} cannot hold {v!r}")


@record
class Var(Term):
    """A variable: a program name, a sort and a run tag (1, 2 or ``None``)."""

    name: str
    sort: Sort
    run: Optional[int] = None

    def __post_init__(self) -> None:
        self._check_name()
        if not isinstance(self.sort, Sort):
            raise SortError(f"the sort of {self.name} must be a Sort, got {self.sort!r}")
        if self.run not in (None, 1, 2) or isinstance(self.run, bool):
            raise SortError(f"the run of {self.name} must be 1, 2 or None, got {self.run!r}")
        object.__setattr__(self, "_hash", hash((self.name, self.sort, self.run)))

    def __hash__(self) -> int:
        return self._hash  # type: ignore[attr-defined]

    def __reduce__(self):
        return (type(self), (self.name, self.sort, self.run))

    def _check_name(self) -> None:
        _check_name(self.name, "variable")

    @property
    def label(self) -> str:
        """The printed form: ``x<1>``, ``x<2>`` or ``x``."""
        return self.name if self.run is None else f"{self.name}<{self.run}>"


class OpKind(Enum):
    """The interpreted operations; the value is the name used in JSON."""

    ADD = "+"
    SUB = "-"
    MUL = "*"
    DIV = "/"
    NEG = "neg"
    ABS = "abs"
    MIN = "min"
    MAX = "max"
    TO_REAL = "to_real"
    EQ = "="
    NE = "<>"
    LT = "<"
    LE = "<="
    GT = ">"
    GE = ">="
    AND = "and"
    OR = "or"
    NOT = "not"
    IMPLIES = "=>"
    ITE = "ite"
    PI = "pi"
    SQRT = "sqrt"
    EXP = "exp"
    LOG = "log"


_INTERPRETED_NAMES = frozenset({"pi", "sqrt", "exp", "log", "abs", "min", "max", "to_real",
                                "not", "and", "or", "ite", "true", "false"})
_NARY = {OpKind.ADD, OpKind.MUL, OpKind.AND, OpKind.OR}
_COMPARISONS = {OpKind.LT, OpKind.LE, OpKind.GT, OpKind.GE}
TRANSCENDENTAL = frozenset({OpKind.PI, OpKind.SQRT, OpKind.EXP, OpKind.LOG})


def _op_sort(op: OpKind, args: Tuple[Term, ...]) -> Sort:
    """The sort of ``op`` applied to ``args``, or ``SortError``."""
    sorts = [a.sort for a in args]
    n = len(args)

    def need(ok: bool, what: str) -> None:
        if not ok:
            shown = ", ".join(str(s) for s in sorts)
            raise SortError(f"{op.value} expects {what}, got ({shown})")

    if op in _NARY:
        need(n >= 2, "at least two arguments")
        if op in (OpKind.AND, OpKind.OR):
            need(all(s == BOOL for s in sorts), "Bool arguments")
            return BOOL
        need(sorts[0].is_numeric and all(s == sorts[0] for s in sorts), "numbers of one sort")
        return sorts[0]
    if op in (OpKind.SUB, OpKind.MIN, OpKind.MAX):
        need(n == 2 and sorts[0].is_numeric and sorts[0] == sorts[1], "two numbers of one sort")
        return sorts[0]
    if op in (OpKind.NEG, OpKind.ABS):
        need(n == 1 and sorts[0].is_numeric, "one number")
        return sorts[0]
    if op == OpKind.DIV:
        need(n == 2 and sorts == [REAL, REAL], "two reals")
        return REAL
    if op == OpKind.TO_REAL:
        need(n == 1 and sorts[0] == INT, "one integer")
        return REAL
    if op in (OpKind.EQ, OpKind.NE):
        need(n == 2 and sorts[0] == sorts[1], "two arguments of one sort")
        return BOOL
    if op in _COMPARISONS:
        need(n == 2 and sorts[0].is_numeric and sorts[0] == sorts[1], "two numbers of one sort")
        return BOOL
    if op == OpKind.NOT:
        need(n == 1 and sorts[0] == BOOL, "one Bool")
        return BOOL
    if op == OpKind.IMPLIES:
        need(n == 2 and sorts == [BOOL, BOOL], "two Bools")
        return BOOL
    if op == OpKind.ITE:
        need(n == 3 and sorts[0] == BOOL and sorts[1] == sorts[2],
             "a Bool and two branches of one sort")
        return sorts[1]
    if op == OpKind.PI:
        need(n == 0, "no argument")
        return REAL
    need(n == 1 and sorts[0] == REAL, "one real")  # sqrt, exp, log
    return REAL


@record
class Op(Term):
    """An interpreted operation applied to arguments; the sort is computed and checked."""

    op: OpKind
    args: Tuple[Term, ...]
    sort: Sort = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if not isinstance(self.op, OpKind):
            raise SortError(f"unknown operation {self.op!r}")
        object.__setattr__(self, "args", tuple(self.args))
        if not all(isinstance(a, Term) for a in self.args):
            raise SortError(f"the arguments of {self.op.value} must be terms")
        object.__setattr__(self, "sort", _op_sort(self.op, self.args))
        object.__setattr__(self, "_hash", hash((self.op, self.args)))

    def __hash__(self) -> int:  # cached: terms are deep and used as dictionary keys
        return self._hash  # type: ignore[attr-defined]

    def __reduce__(self):  # a string's hash differs between processes: recompute it
        return (Op, (self.op, self.args))


@record
class Apply(Term):
    """An uninterpreted function applied to arguments of exactly its domain sorts."""

    func: FuncDecl
    args: Tuple[Term, ...] = ()
    sort: Sort = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "args", tuple(self.args))
        if not isinstance(self.func, FuncDecl):
            raise SortError(f"not a function declaration: {self.func!r}")
        got = tuple(a.sort if isinstance(a, Term) else None for a in self.args)
        if got != self.func.domain:
            shown = ", ".join(str(s) for s in got)
            raise SortError(f"{self.func} applied to ({shown})")
        object.__setattr__(self, "sort", self.func.range)
        object.__setattr__(self, "_hash", hash((self.func, self.args)))

    def __hash__(self) -> int:
        return self._hash  # type: ignore[attr-defined]

    def __reduce__(self):
        return (Apply, (self.func, self.args))


@record
class Quantifier(Term):
    """``forall`` or ``exists`` over distinct variables; the body is a Bool."""

    kind: str
    vars: Tuple[Var, ...]
    body: Term
    sort: Sort = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "vars", tuple(self.vars))
        if self.kind not in ("forall", "exists"):
            raise SortError(f"unknown quantifier {self.kind!r}")
        if not self.vars or not all(isinstance(v, Var) for v in self.vars):
            raise SortError(f"{self.kind} needs at least one variable")
        if len(set((v.name, v.run) for v in self.vars)) != len(self.vars):
            raise SortError(f"{self.kind} binds a variable twice")
        if not isinstance(self.body, Term) or self.body.sort != BOOL:
            raise SortError(f"the body of {self.kind} must be a Bool")
        bound = {(v.name, v.run): v.sort for v in self.vars}
        for v in free_vars(self.body):  # a same-named variable of another sort would be
            if bound.get((v.name, v.run), v.sort) != v.sort:  # captured in SMT-LIB, not in z3
                raise SortError(f"{v.label} is bound at sort {bound[(v.name, v.run)]} "
                                f"but used at sort {v.sort}")
        object.__setattr__(self, "sort", BOOL)


# --------------------------------------------------------------------------------------
# Hash-consing: equal terms are one object
# --------------------------------------------------------------------------------------
#
# Terms are DAGs (a list's tail is in its cons and in every axiom about it) and are used as
# dictionary keys everywhere. Two equal terms built separately (a list literal translated in
# run 1 and in run 2) would be compared field by field, to the bottom, at every lookup: a
# constant list of n elements then costs n^2. So constants, variables, operations and
# applications are interned when they are made: an equal term made later is the first one,
# equality is identity in the common case, and every walk over a DAG is linear. The table
# keeps its terms alive (a key names children by identity, which is only sound while they
# live) and is emptied whole when it grows past ``_INTERN_SIZE`` (terms made before then
# still compare by value).

_INTERN: Dict[Tuple, Term] = {}
_INTERN_SIZE = 1 << 20


def _interned(key_of: Callable[..., Optional[Tuple]]):
    """A ``__new__`` that returns the interned term for the arguments, if there is one."""
    def __new__(cls, *args, **kwargs):
        key = key_of(cls, *args, **kwargs)
        if key is not None:
            found = _INTERN.get(key)
            if found is not None:
                return found
        return object.__new__(cls)
    return __new__


def _init_once(init: Callable, key_of: Callable[..., Optional[Tuple]]):
    """An ``__init__`` that leaves an interned term as it is, and interns a new one."""
    def __init__(self, *args, **kwargs):
        if "_interned" in self.__dict__:
            return
        init(self, *args, **kwargs)
        key = key_of(type(self), *args, **kwargs)
        self.__dict__["_interned"] = True
        if key is not None:
            if len(_INTERN) > _INTERN_SIZE:
                _INTERN.clear()
            _INTERN[key] = self
    return __init__


def _const_key(cls, value=None, sort=None, **kwargs):
    return None if kwargs or sort is None else (cls, type(value), value, sort)


def _var_key(cls, name=None, sort=None, run=None, **kwargs):
    return None if kwargs or sort is None else (cls, name, sort, run)


def _node_key(cls, head=None, args=(), **kwargs):
    if kwargs or head is None:
        return None
    return (cls, head, tuple(id(a) for a in args))


for _cls, _key in ((Const, _const_key), (Var, _var_key), (Op, _node_key), (Apply, _node_key)):
    _cls.__new__ = _interned(_key)
    _cls.__init__ = _init_once(_cls.__init__, _key)


TRUE = Const(True, BOOL)
FALSE = Const(False, BOOL)


# --------------------------------------------------------------------------------------
# Smart constructors
# --------------------------------------------------------------------------------------

def integer(n: int) -> Const:
    """An ``Int`` constant."""
    return Const(n, INT)


def real(q: Union[int, Fraction, str]) -> Const:
    """A ``Real`` constant from an ``int``, a ``Fraction`` or an exact decimal string (``"0.46"``)."""
    if isinstance(q, str):
        try:
            q = Fraction(q)
        except ValueError:
            raise SortError(f"not a decimal or fraction: {q!r}") from None
    return Const(q, REAL)


def boolean(b: bool) -> Const:
    return Const(b, BOOL)


def var(name: str, sort: Sort, run: Optional[int] = None) -> Var:
    return Var(name, sort, run)


def lift(x: TermLike, expected: Optional[Sort] = None) -> Term:
    """``x`` as a term: terms unchanged, ``bool``/``int``/``Fraction``/decimal strings as constants.

    A Python ``int`` becomes a ``Real`` constant when ``expected`` is ``REAL``.
    """
    if isinstance(x, Term):
        return x
    if isinstance(x, bool):
        return boolean(x)
    if isinstance(x, int):
        return real(x) if expected == REAL else integer(x)
    if isinstance(x, (Fraction, str)):
        return real(x)
    if isinstance(x, float):
        raise SortError(f"float {x!r} is inexact: use a Fraction or a decimal string")
    raise SortError(f"cannot make a term of {x!r}")


def _coercible(have: Sort, want: Sort) -> bool:
    return have == want or (have == INT and want == REAL)


def _coerce(t: Term, want: Sort) -> Term:
    """``t`` at sort ``want``: an ``Int`` term is coerced to ``Real`` (constants are converted)."""
    if t.sort == want:
        return t
    if t.sort == INT and want == REAL:
        if isinstance(t, Const):
            return Const(Fraction(t.value), REAL)
        return Op(OpKind.TO_REAL, (t,))
    raise SortError(f"expected {want}, got {t.sort}: {pretty(t)}")


def _numeric(op: OpKind, args: Sequence[TermLike], force_real: bool = False) -> Tuple[Term, ...]:
    """Lift and unify the numeric arguments of ``op``: ``Real`` if any is (or if forced)."""
    terms = [a for a in args if isinstance(a, Term)]
    for t in terms:
        if not t.sort.is_numeric:
            raise SortError(f"{op.value} expects numbers, got {t.sort}: {pretty(t)}")
    want = REAL if force_real or any(t.sort == REAL for t in terms) or any(
        isinstance(a, (Fraction, str)) for a in args) else INT
    return tuple(_coerce(lift(a, want), want) for a in args)


def add(*args: TermLike) -> Term:
    return Op(OpKind.ADD, _numeric(OpKind.ADD, args))


def sub(a: TermLike, b: TermLike) -> Term:
    return Op(OpKind.SUB, _numeric(OpKind.SUB, (a, b)))


def mul(*args: TermLike) -> Term:
    return Op(OpKind.MUL, _numeric(OpKind.MUL, args))


def div(a: TermLike, b: TermLike) -> Term:
    """Real division (also on integers, which are coerced)."""
    return Op(OpKind.DIV, _numeric(OpKind.DIV, (a, b), force_real=True))


def neg(a: TermLike) -> Term:
    return Op(OpKind.NEG, _numeric(OpKind.NEG, (a,)))


def abs_(a: TermLike) -> Term:
    return Op(OpKind.ABS, _numeric(OpKind.ABS, (a,)))


def min_(a: TermLike, b: TermLike) -> Term:
    return Op(OpKind.MIN, _numeric(OpKind.MIN, (a, b)))


def max_(a: TermLike, b: TermLike) -> Term:
    return Op(OpKind.MAX, _numeric(OpKind.MAX, (a, b)))


def to_real(a: TermLike) -> Term:
    """The explicit ``Int -> Real`` coercion (the identity on ``Real`` terms)."""
    return _coerce(lift(a), REAL)


def pi() -> Term:
    return Op(OpKind.PI, ())


def sqrt(a: TermLike) -> Term:
    return Op(OpKind.SQRT, (to_real(a),))


def exp(a: TermLike) -> Term:
    return Op(OpKind.EXP, (to_real(a),))


def log(a: TermLike) -> Term:
    """The natural logarithm."""
    return Op(OpKind.LOG, (to_real(a),))


def _compare(op: OpKind, a: TermLike, b: TermLike) -> Term:
    ta, tb = lift(a), lift(b)
    if ta.sort.is_numeric and tb.sort.is_numeric:
        return Op(op, _numeric(op, (a, b)))
    return Op(op, (ta, tb))  # Bool or uninterpreted: the sorts must agree exactly


def eq(a: TermLike, b: TermLike) -> Term:
    return _compare(OpKind.EQ, a, b)


def ne(a: TermLike, b: TermLike) -> Term:
    return _compare(OpKind.NE, a, b)


def lt(a: TermLike, b: TermLike) -> Term:
    return Op(OpKind.LT, _numeric(OpKind.LT, (a, b)))


def le(a: TermLike, b: TermLike) -> Term:
    return Op(OpKind.LE, _numeric(OpKind.LE, (a, b)))


def gt(a: TermLike, b: TermLike) -> Term:
    return Op(OpKind.GT, _numeric(OpKind.GT, (a, b)))


def ge(a: TermLike, b: TermLike) -> Term:
    return Op(OpKind.GE, _numeric(OpKind.GE, (a, b)))


def _junction(op: OpKind, unit: Const, args: Sequence[TermLike]) -> Term:
    terms = tuple(lift(a) for a in args)
    if not terms:
        return unit
    if len(terms) == 1:
        if terms[0].sort != BOOL:
            raise SortError(f"{op.value} expects Bool arguments, got {terms[0].sort}")
        return terms[0]
    return Op(op, terms)


def and_(*args: TermLike) -> Term:
    """Conjunction; ``and_()`` is ``TRUE`` and ``and_(a)`` is ``a``."""
    return _junction(OpKind.AND, TRUE, args)


def or_(*args: TermLike) -> Term:
    """Disjunction; ``or_()`` is ``FALSE`` and ``or_(a)`` is ``a``."""
    return _junction(OpKind.OR, FALSE, args)


def not_(a: TermLike) -> Term:
    return Op(OpKind.NOT, (lift(a),))


def implies(a: TermLike, b: TermLike) -> Term:
    return Op(OpKind.IMPLIES, (lift(a), lift(b)))


def ite(c: TermLike, a: TermLike, b: TermLike) -> Term:
    """``if c then a else b``; numeric branches are unified (``Int`` coerced to ``Real``)."""
    ta, tb = lift(a), lift(b)
    if ta.sort.is_numeric and tb.sort.is_numeric:
        ta, tb = _numeric(OpKind.ITE, (a, b))
    return Op(OpKind.ITE, (lift(c), ta, tb))


def forall(variables: Union[Var, Sequence[Var]], body: Term) -> Quantifier:
    return Quantifier("forall", (variables,) if isinstance(variables, Var) else tuple(variables), body)


def exists(variables: Union[Var, Sequence[Var]], body: Term) -> Quantifier:
    return Quantifier("exists", (variables,) if isinstance(variables, Var) else tuple(variables), body)


# --------------------------------------------------------------------------------------
# Traversal
# --------------------------------------------------------------------------------------

def children(t: Term) -> Tuple[Term, ...]:
    """The direct sub-terms (a quantifier's bound variables are not sub-terms)."""
    if isinstance(t, (Op, Apply)):
        return t.args
    if isinstance(t, Quantifier):
        return (t.body,)
    return ()


def subterms(*terms: Term) -> Iterator[Term]:
    """Every distinct sub-term object of ``terms``, the first term first, in left-to-right
    pre-order (a sub-term shared by several parents — terms are DAGs: a list's tail is in its
    cons and in the axioms about it — is visited once, with its own sub-terms)."""
    return _walk(terms)


def dag_fold(t: Term, fn: Callable[[Term, List[Any]], Any], cache: Dict[Term, Any]) -> Any:
    """``fn(u, results of u's children)`` for ``t``, computed once per distinct sub-term and
    kept in ``cache`` (shared by every call with the same ``fn``): linear in the size of the
    DAG, however often sub-terms are shared, and without recursion (deep lists)."""
    if t in cache:
        return cache[t]
    if len(cache) > _FOLD_CACHE_SIZE:
        cache.clear()
    stack: List[Tuple[Term, bool]] = [(t, False)]
    while stack:
        u, ready = stack.pop()
        if u in cache:
            continue
        kids = children(u)
        if ready:
            cache[u] = fn(u, [cache[c] for c in kids])
        else:
            stack.append((u, True))
            stack.extend((c, False) for c in kids if c not in cache)
    return cache[t]


_FOLD_CACHE_SIZE = 1 << 18


def tree_size(t: Term) -> int:
    """The number of nodes of ``t`` as a tree (shared sub-terms counted at each occurrence)."""
    return dag_fold(t, _size_step, _SIZES)


def _size_step(u: Term, kids: List[int]) -> int:
    return 1 + sum(kids)


_SIZES: Dict[Term, int] = {}


def _merge(parts: Sequence[Tuple[Any, ...]]) -> Tuple[Any, ...]:
    """The concatenation of ``parts`` without repeats, in order of first occurrence."""
    if len(parts) == 1:
        return parts[0]
    seen: Dict[Any, None] = {}
    for part in parts:
        seen.update(dict.fromkeys(part))
    return tuple(seen)


def ground_applications(*terms: Term) -> Tuple["Apply", ...]:
    """The applications of uninterpreted functions outside quantifiers, each once, in
    left-to-right pre-order over ``terms`` (one walk over their DAG)."""
    seen: Dict[Apply, None] = {}
    for u in _walk(terms, into_quantifiers=False):
        if isinstance(u, Apply):
            seen.setdefault(u, None)
    return tuple(seen)


def _walk(terms: Sequence[Term], into_quantifiers: bool = True) -> Iterator[Term]:
    """Every distinct sub-term object of ``terms``, in left-to-right pre-order (a shared one
    once)."""
    stack, seen = list(reversed(terms)), set()
    while stack:
        u = stack.pop()
        if id(u) in seen:
            continue
        seen.add(id(u))
        yield u
        if into_quantifiers or not isinstance(u, Quantifier):
            stack.extend(reversed(children(u)))


def free_vars(*terms: Term) -> Tuple[Var, ...]:
    """The free variables of ``terms``, in order of first occurrence."""
    if len(terms) == 1:
        return _free_vars_of(terms[0])
    seen: Dict[Var, None] = {}
    for term in terms:
        seen.update(dict.fromkeys(_free_vars_of(term)))
    return tuple(seen)


def _free_step(u: Term, kids: List[Tuple[Var, ...]]) -> Tuple[Var, ...]:
    if isinstance(u, Var):
        return (u,)
    if isinstance(u, Quantifier):
        bound = {(v.name, v.run) for v in u.vars}
        return tuple(v for v in kids[0] if (v.name, v.run) not in bound)
    return _merge(kids) if kids else ()


_FREE: Dict[Term, Tuple[Var, ...]] = {}


def _free_vars_of(term: Term) -> Tuple[Var, ...]:
    return dag_fold(term, _free_step, _FREE)


def functions(*terms: Term) -> Tuple[FuncDecl, ...]:
    """The uninterpreted functions applied in ``terms``, in order of first occurrence."""
    seen: Dict[FuncDecl, None] = {}
    for term in terms:
        seen.update(dict.fromkeys(_functions_of(term)))
    return tuple(seen)


def _functions_step(u: Term, kids: List[Tuple[FuncDecl, ...]]) -> Tuple[FuncDecl, ...]:
    return _merge(([(u.func,)] if isinstance(u, Apply) else []) + kids) if kids or \
        isinstance(u, Apply) else ()


_FUNCTIONS: Dict[Term, Tuple[FuncDecl, ...]] = {}


def _functions_of(term: Term) -> Tuple[FuncDecl, ...]:
    return dag_fold(term, _functions_step, _FUNCTIONS)


def sorts(*terms: Term) -> Tuple[Sort, ...]:
    """The uninterpreted sorts occurring in ``terms`` (also through binders and signatures)."""
    seen: Dict[Sort, None] = {}
    for term in terms:
        seen.update(dict.fromkeys(_sorts_of(term)))
    return tuple(seen)


def _sorts_step(u: Term, kids: List[Tuple[Sort, ...]]) -> Tuple[Sort, ...]:
    found = [u.sort]
    if isinstance(u, Quantifier):
        found += [v.sort for v in u.vars]
    if isinstance(u, Apply):
        found += list(u.func.domain)
    mine = tuple(dict.fromkeys(s for s in found if not s.is_builtin))
    return _merge([mine] + kids) if kids else mine


_SORTS: Dict[Term, Tuple[Sort, ...]] = {}


def _sorts_of(term: Term) -> Tuple[Sort, ...]:
    return dag_fold(term, _sorts_step, _SORTS)


def vocabulary_of(*terms: Term) -> Vocabulary:
    """The declarations and uninterpreted sorts that ``terms`` use."""
    return Vocabulary(functions(*terms), sorts(*terms))


def substitute(t: Term, mapping: Mapping[Var, TermLike]) -> Term:
    """``t`` with the free occurrences of the mapped variables replaced.

    A replacement must have the variable's sort (an ``Int`` term for a ``Real`` variable is
    coerced). Raises ``SortError`` if a replacement would be captured by a quantifier of ``t``.
    """
    repl = {v: _coerce(lift(r, v.sort), v.sort) for v, r in mapping.items()}

    def go(u: Term, active: Dict[Var, Term]) -> Term:
        if not active:
            return u
        if isinstance(u, Var):
            return active.get(u, u)
        if isinstance(u, Op):
            return Op(u.op, tuple(go(a, active) for a in u.args))
        if isinstance(u, Apply):
            return Apply(u.func, tuple(go(a, active) for a in u.args))
        if isinstance(u, Quantifier):
            bound = {(v.name, v.run) for v in u.vars}
            inner = {v: r for v, r in active.items() if (v.name, v.run) not in bound}
            for v, r in inner.items():
                if v in free_vars(u.body) and any((w.name, w.run) in bound for w in free_vars(r)):
                    raise SortError(f"substituting {pretty(r)} for {v.label} would be captured")
            return Quantifier(u.kind, u.vars, go(u.body, inner))
        return u

    return go(t, repl)


# --------------------------------------------------------------------------------------
# Printing in the program's own syntax
# --------------------------------------------------------------------------------------

_BINDER, _IMPLIES, _OR, _AND, _CMP, _ADD, _MUL, _UNARY, _APP, _ATOM = range(10)
_INFIX = {
    OpKind.IMPLIES: ("=>", _IMPLIES), OpKind.OR: ("\\/", _OR), OpKind.AND: ("/\\", _AND),
    OpKind.EQ: ("=", _CMP), OpKind.NE: ("<>", _CMP), OpKind.LT: ("<", _CMP),
    OpKind.LE: ("<=", _CMP), OpKind.GT: (">", _CMP), OpKind.GE: (">=", _CMP),
    OpKind.ADD: ("+", _ADD), OpKind.SUB: ("-", _ADD), OpKind.MUL: ("*", _MUL),
    OpKind.DIV: ("/", _MUL),
}


def sort_text(s: Sort) -> str:
    """A sort as written in a binder: ``real``, ``int``, ``bool`` or the uninterpreted name."""
    return {"Real": "real", "Int": "int", "Bool": "bool"}.get(s.name, s.name)


@lru_cache(maxsize=1 << 16)
def decimal_text(q: Fraction) -> Optional[str]:
    """``q`` as an exact decimal with a point (``-0.5``, ``3.0``), or ``None`` if it has none."""
    d, twos, fives = q.denominator, 0, 0
    while d % 2 == 0:
        d, twos = d // 2, twos + 1
    while d % 5 == 0:
        d, fives = d // 5, fives + 1
    if d != 1:
        return None
    k = max(twos, fives, 1)
    digits = str(abs(q.numerator) * 10 ** k // q.denominator).rjust(k + 1, "0")
    whole, frac = digits[:-k], digits[-k:].rstrip("0") or "0"
    return ("-" if q < 0 else "") + whole + "." + frac


def _const_text(c: Const) -> Tuple[str, int]:
    if c.sort == BOOL:
        return ("true" if c.value else "false"), _ATOM
    if c.sort == INT:
        return str(c.value), (_UNARY if c.value < 0 else _ATOM)
    q = c.value
    text = decimal_text(q)
    if text is not None:
        return text, (_UNARY if q < 0 else _ATOM)
    sign = "-" if q < 0 else ""
    return f"{sign}{abs(q.numerator)}.0 / {q.denominator}.0", _MUL


def _pp(t: Term) -> Tuple[str, int]:
    """The text of ``t`` and the precedence of its outermost construct (once per distinct
    sub-term: ``_PP``)."""
    return dag_fold(t, _pp_children_done, _PP)


def _pp_children_done(t: Term, _kids) -> Tuple[str, int]:
    return _pp_step(t)  # its children's texts are in _PP: dag_fold computed them first


_PP: Dict[Term, Tuple[str, int]] = {}


def _pp_step(t: Term) -> Tuple[str, int]:

    def at(u: Term, prec: int) -> str:
        text, p = _pp(u)
        return text if p >= prec else f"({text})"

    if isinstance(t, Const):
        return _const_text(t)
    if isinstance(t, Var):
        return t.label, _ATOM
    if isinstance(t, Quantifier):
        head = " ".join(f"{t.kind} {v.label} : {sort_text(v.sort)}." for v in t.vars)
        return f"{head} {at(t.body, _BINDER)}", _BINDER
    if isinstance(t, Apply):
        return _application(_display_name(t.func.name), t.args)
    op, args = t.op, t.args
    if op in _INFIX:
        symbol, prec = _INFIX[op]
        if op == OpKind.IMPLIES:
            return f"{at(args[0], prec + 1)} => {at(args[1], prec)}", prec
        if op in (OpKind.EQ, OpKind.NE) or op in _COMPARISONS:
            return f"{at(args[0], prec + 1)} {symbol} {at(args[1], prec + 1)}", prec
        rest = " ".join(f"{symbol} {at(a, prec + 1)}" for a in args[1:])
        return f"{at(args[0], prec)} {rest}", prec
    if op == OpKind.NEG:
        return f"-{at(args[0], _APP)}", _UNARY
    if op == OpKind.NOT:
        return f"~ {at(args[0], _UNARY)}", _UNARY
    if op == OpKind.TO_REAL:  # int <= real in the surface language: the coercion is silent
        return _pp(args[0])
    if op == OpKind.ITE:
        return (f"if {at(args[0], _BINDER)} then {at(args[1], _BINDER)} "
                f"else {at(args[2], _BINDER)}"), _BINDER
    if op == OpKind.PI:
        return "pi", _ATOM
    return _application(op.value, args)  # abs, min, max, sqrt, exp, log


def _display_name(symbol: str) -> str:
    """A function symbol as the program writes it: a program function
    (``obligations.vocabulary.program_function``) by its source name."""
    if symbol.startswith(("get", "mk_tup")) and "_tup'l" in symbol:
        return symbol.split("_", 1)[0].replace("mk", "tuple")  # a tuple sort's (vocabulary)
    if not symbol.startswith("fn_"):
        return symbol
    name, component, run = symbol[3:], "", ""
    cut = name.rfind("'p")
    if cut >= 0 and name[cut + 2:].isdigit():  # a component of a tuple result
        name, component = name[:cut], "." + name[cut + 2:]
    for mark in ("'x", "'r"):  # one run's function parameter, or call passing functions
        cut = name.find(mark)
        if cut >= 0 and name[cut + 2:cut + 3] in ("1", "2"):
            name, run = name[:cut], f"<{name[cut + 2]}>"
            break
    name = name.replace("'h", "#").replace("'q", "'")
    return name.split("#", 1)[0] + run + component


def _application(name: str, args: Tuple[Term, ...]) -> Tuple[str, int]:
    if not args:
        return name, _ATOM
    if len(args) == 1:
        text, p = _pp(args[0])
        return f"{name} {text if p >= _ATOM else f'({text})'}", _APP
    return f"{name} ({', '.join(_pp(a)[0] for a in args)})", _APP


@lru_cache(maxsize=1 << 16)
def pretty(t: Term) -> str:
    """``t`` in the program's assertion syntax: ``/\\ \\/ ~ =>``, ``x<1>``, ``f (a, b)``, ``0.5``."""
    return _pp(t)[0]


# --------------------------------------------------------------------------------------
# JSON
# --------------------------------------------------------------------------------------

def term_to_json(t: Term) -> Dict[str, Any]:
    """A JSON-ready structure for ``t``: exact (rationals as ``"n/d"`` strings)."""
    if isinstance(t, Const):
        if t.sort == REAL:
            value: Any = str(t.value)
        else:
            value = t.value
        return {"t": "const", "sort": t.sort.name, "value": value}
    if isinstance(t, Var):
        return {"t": "var", "name": t.name, "sort": t.sort.name, "run": t.run}
    if isinstance(t, Op):
        return {"t": "op", "op": t.op.value, "args": [term_to_json(a) for a in t.args]}
    if isinstance(t, Apply):
        return {"t": "apply", "fn": t.func.name, "args": [term_to_json(a) for a in t.args]}
    if isinstance(t, Quantifier):
        return {"t": t.kind, "vars": [term_to_json(v) for v in t.vars], "body": term_to_json(t.body)}
    raise SortError(f"not a term: {t!r}")


def digest(t: Term) -> str:
    """A SHA-256 of ``t``'s structure (its tags, names, sorts and values, and its children's
    digests): equal terms have equal digests, computed once per distinct sub-term, so a term
    with shared sub-terms (a long list) is hashed in linear time, unlike its JSON."""
    return dag_fold(t, _digest_step, _DIGESTS)


def _digest_step(u: Term, kids: List[str]) -> str:
    if isinstance(u, Const):
        head = f"c:{u.sort.name}:{u.value!r}"
    elif isinstance(u, Var):
        head = f"v:{u.name}:{u.sort.name}:{u.run}"
    elif isinstance(u, Op):
        head = f"o:{u.op.value}"
    elif isinstance(u, Apply):
        head = f"a:{u.func.name}:{','.join(s.name for s in u.func.domain)}:{u.func.range.name}"
    else:
        head = f"q:{u.kind}:" + ",".join(digest(v) for v in u.vars)  # type: ignore[union-attr]
    return hashlib.sha256("\0".join([head] + kids).encode()).hexdigest()


_DIGESTS: Dict[Term, str] = {}


def term_from_json(data: Mapping[str, Any], vocabulary: Optional[Vocabulary] = None) -> Term:
    """The term that ``term_to_json`` produced; applications are resolved in ``vocabulary``.

    Every node is rebuilt through its sort-checking constructor, so malformed or ill-sorted
    input raises ``SortError`` (or ``KeyError``/``ValueError`` for missing fields).
    """
    vocabulary = vocabulary or Vocabulary()
    tag = data["t"]
    if tag == "const":
        s = Sort(data["sort"])
        v = data["value"]
        if s == REAL:
            if not isinstance(v, str):
                raise SortError(f"a Real constant is stored as a string, got {v!r}")
            return Const(Fraction(v), REAL)
        return Const(v, s)
    if tag == "var":
        return Var(data["name"], Sort(data["sort"]), data.get("run"))
    if tag == "op":
        return Op(OpKind(data["op"]), tuple(term_from_json(a, vocabulary) for a in data["args"]))
    if tag == "apply":
        args = tuple(term_from_json(a, vocabulary) for a in data["args"])
        return Apply(vocabulary.lookup(data["fn"], [a.sort for a in args]), args)
    if tag in ("forall", "exists"):
        variables = tuple(term_from_json(v, vocabulary) for v in data["vars"])
        if not all(isinstance(v, Var) for v in variables):
            raise SortError("a quantifier binds variables only")
        return Quantifier(tag, variables, term_from_json(data["body"], vocabulary))  # type: ignore[arg-type]
    raise SortError(f"unknown term tag {tag!r}")
