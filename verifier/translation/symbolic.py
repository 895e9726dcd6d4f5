"""Symbolic values: what a pure expression denotes in one run, as terms of the logic.

The translator (``verifier.translation.translate``) maps a pure expression and a run (1 or 2) to one
of these. Scalars, lists and distributions are terms; tuples are tuples of symbolic values;
functions are closures (unfolded on application) or named functions used through their
``val``; monadic values are kept as code to be checked by the monadic rules.
"""
from __future__ import annotations

from typing import Dict, Optional, Tuple, Union

from obligations import terms as T
from obligations.records import field, record
from verifier.language import ast as A


@record
class Scalar:
    """A value of a sort: Real, Int, Bool, a list sort or ``Dist``."""

    term: T.Term


@record
class TupleV:
    items: Tuple["SymValue", ...]


@record
class UnitV:
    pass


@record
class DistV:
    """A symbolic distribution of a known family with its parameters.

    ``family`` is one of ``beta``, ``normal``, ``dirichlet``, ``bernoulli``, ``categorical``,
    ``uniform``; ``params`` are terms; ``term`` is the ``Dist``-sorted term naming it.
    ``origin`` says how it was obtained (e.g. the observe-fold that computed a posterior).
    """

    family: str
    params: Tuple[T.Term, ...]
    term: T.Term
    origin: str = field(default="", compare=False)


@record
class Closure:
    """A function to unfold on application: a lambda or a helper without ``val``."""

    params: Tuple[A.Pattern, ...]
    body: A.Expr
    env: "Env"
    name: str = ""


@record
class NamedFun:
    """A top-level function used through its ``val`` (or as an opaque deterministic symbol)."""

    name: str
    args: Tuple[Tuple["SymValue", "SymValue"], ...] = ()


@record
class LocalRec:
    """A function defined by a local ``let rec f p1 … pn = body`` (which can have no val).

    A call of it is a deterministic symbol of its arguments and of the first-order values it
    captures (``Translator.local_call``; one returning a computation is run as code, where
    EqualInputs applies): its meaning in one run is fixed by its code, which
    is the same in both runs, and by what it captures there. Each call is shown to terminate
    without error for every argument of its sorts (the Safety walk's check of the
    ``LocalFunction`` the translator reports). ``env`` is what it closes over (without
    itself); ``result``, when known, the sort of its result at the instance being checked
    (recursive calls in its own body are at that instance)."""

    name: str
    params: Tuple[A.Pattern, ...]
    body: A.Expr
    env: "Env"
    result: Optional[T.Sort] = field(default=None, compare=False)
    #: for a function returning a computation, the simple type of what it draws (likewise)
    draws: Optional[A.SimpleType] = field(default=None, compare=False)


@record
class Builtin:
    name: str
    args: Tuple["SymValue", ...] = ()


@record
class Monadic:
    """A monadic value: code and the environment it closes over (checked by the monadic rules).

    ``equal_in_runs`` is set when the value is known to denote the same distribution in both
    runs (e.g. a parameter of type ``M[SD] {x :: T | =}``).
    """

    expr: Optional[A.Expr]
    env: Optional["Env"]
    equal_in_runs: bool = False
    rtype: Optional[A.RType] = None
    name: str = ""
    #: for a computation known by its type ``M[F, delta] {x :: T | =}`` (a parameter): the
    #: cost of running it, its index (a ``context.Cost``); None when its type does not say
    cost: Optional[object] = None


@record
class FunParam:
    """A parameter of function type, as one run sees it: a function known only by its
    declared type ``rtype`` (an arrow ``{x1 :: T1 | P1} -> ... -> M[F, delta] {r :: U | =}``
    or ``… -> {r :: U | Q}``, read in ``env``, which binds the earlier parameters of the val
    it is a parameter of).

    HOARe²'s logical relation: the two runs' functions need not be the same (the caller may
    pass a closure over private data), only related — related arguments give computations
    within the codomain's index, or values related by ``Q``. So run 1 and run 2 hold two
    distinct values (``run``), and ``equality_goals`` never shows them equal; a saturated call
    of it is App-Val against ``rtype`` (``core_rules.apply_val``), or for a value the symbol
    of the run's function (``Translator.parameter_call``)."""

    name: str
    rtype: A.RType
    env: "Env" = field(compare=False, repr=False)
    run: int = 1


SymValue = Union[Scalar, TupleV, UnitV, DistV, Closure, NamedFun, Builtin, Monadic, LocalRec,
                 FunParam]


@record
class Env:
    """A persistent map from program names to their symbolic values in run 1 and run 2."""

    bindings: Tuple[Tuple[str, Tuple[SymValue, SymValue]], ...] = ()
    _index: Dict[str, Tuple[SymValue, SymValue]] = field(default_factory=dict, compare=False,
                                                         repr=False)

    def __post_init__(self) -> None:
        if not self._index and self.bindings:
            self._index.update(self.bindings)

    def bind(self, name: str, left: SymValue, right: SymValue) -> "Env":
        index = dict(self._index)
        index[name] = (left, right)
        return Env(self.bindings + ((name, (left, right)),), index)

    def lookup(self, name: str) -> Optional[Tuple[SymValue, SymValue]]:
        return self._index.get(name)

    def __contains__(self, name: str) -> bool:
        return name in self._index


def value_terms(v: SymValue) -> Tuple[T.Term, ...]:
    """The terms a first-order value is made of (for equality obligations); () otherwise."""
    if isinstance(v, Scalar):
        return (v.term,)
    if isinstance(v, DistV):
        return (v.term,)
    if isinstance(v, TupleV):
        out: Tuple[T.Term, ...] = ()
        for item in v.items:
            out += value_terms(item)
        return out
    return ()


def top_level_value(decl, has_val: bool, env: "Env", type_of) -> "SymValue":
    """What the top-level definition ``decl`` is bound to (the builder's and the kernel's top
    environment): a function with a val is called through it (``NamedFun``); a recursive
    function without a val whose parameters and result are first-order data (by the type
    checker's ``type_of``) is read as a local ``let rec`` closed over ``env``, the definitions
    before it (``LocalRec``: total, equal on equal arguments); another recursive one keeps its
    name (an observe-fold, read through its definition by ``infer``);
    the others are closures, unfolded where they are called."""
    from verifier.translation.calls import first_order  # calls imports this module
    if has_val:
        return NamedFun(decl.name)
    if not (decl.recursive and decl.params):
        return Closure(decl.params, decl.body, env, decl.name)
    if all(first_order(type_of(p)) for p in decl.params) and first_order(type_of(decl.body)):
        return LocalRec(decl.name, tuple(decl.params), decl.body, env)
    return NamedFun(decl.name)


def loop_contexts(ctx, name: str, rtype: A.RType):
    """For a local loop ``name`` known by its val ``rtype`` (``invariants.local_loop_val``),
    from the relational context ``ctx`` where it is defined (the builder's or the kernel's
    ``Ctx``): the continuation's context, ``name`` bound to one ``FunParam`` per run (read in
    ``ctx``'s environment), and the context its body is proved in — the same, with no cost
    spent, no claim, no output yet, the loop as the function whose recursive calls are the
    induction hypothesis (its measure to be set)."""
    from obligations.records import replace
    env = ctx.env
    known = ctx.bind(name, FunParam(name, rtype, env, 1), FunParam(name, rtype, env, 2))
    return known, replace(known, costs=(), claim=None, function=name, induction=None,
                          outputs=())
