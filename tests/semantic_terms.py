"""Closed terms of the obligation language evaluated with the run-time semantics (a test helper).

``value(term)`` computes a closed term exactly: the interpreted operations (``+ - * /``,
comparisons, ``exp``, ``log``, ``sqrt``, ``pi``, ...) with the exact reals of
``verifier.semantics.reals``, and every uninterpreted built-in (``length``, ``count``, ``sum``,
``adj``, ``adjWithin``, ``dist``, ``hellinger``, ``tv``, the distribution constructors,
``posteriors``, lists built with ``cons`` / ``nil_*``) by the evaluator's own implementation
(``verifier.semantics.evaluator.BUILTINS``) — so that an axiom instance evaluated here says
what the axiom means *for the programs privinfer runs*. ``countOf (l, j)`` (a logic-only
function) is the number of entries of ``l`` equal to ``j``.

``lists(values, key)`` and ``numbers`` build the terms of concrete lists and numbers.
"""
from __future__ import annotations

from fractions import Fraction
from typing import Any, Sequence

from obligations import terms as T
from obligations import vocabulary as V
from verifier.language.ast import Span
from verifier.semantics import reals
from verifier.semantics.evaluator import BUILTINS, Evaluator
from verifier.semantics.values import NIL, ConsList, values_equal

_NODE = type("Node", (), {"span": Span("axioms", 1, 1, 1, 1)})()
_EVALUATOR = Evaluator()

_CONSTRUCTORS = {"beta": "beta", "normal": "normal", "bernoulli": "bernoulli",
                 "categorical": "categorical"}


def builtin(name: str, *args: Any) -> Any:
    """The evaluator's built-in ``name`` applied to ``args`` (a tuple when there are several)."""
    arg = args[0] if len(args) == 1 else tuple(args)
    return BUILTINS[name](_EVALUATOR, arg, _NODE)


def value(t: T.Term) -> Any:
    """The value of the closed term ``t`` under the run-time semantics (see the module)."""
    if isinstance(t, T.Const):
        return Fraction(t.value) if t.sort == T.REAL else t.value
    if isinstance(t, T.Op):
        return _op(t)
    if isinstance(t, T.Apply):
        return _apply(t)
    raise TypeError(f"not a closed term: {T.pretty(t)}")


def _op(t: T.Op) -> Any:
    op, args = t.op, t.args
    K = T.OpKind
    if op == K.IMPLIES:
        return (not value(args[0])) or bool(value(args[1]))
    if op == K.AND:
        return all(value(a) for a in args)
    if op == K.OR:
        return any(value(a) for a in args)
    if op == K.NOT:
        return not value(args[0])
    if op == K.ITE:
        return value(args[1]) if value(args[0]) else value(args[2])
    if op == K.PI:
        return reals.pi()
    xs = [value(a) for a in args]
    if op == K.EQ:
        return values_equal(xs[0], xs[1])
    if op == K.NE:
        return not values_equal(xs[0], xs[1])
    table = {
        K.ADD: lambda *v: sum(v[1:], v[0]), K.SUB: lambda a, b: a - b,
        K.MUL: lambda *v: _product(v), K.DIV: lambda a, b: Fraction(a) / b if reals.is_rational(a)
        and reals.is_rational(b) else a / b, K.NEG: lambda a: -a, K.ABS: reals.absolute,
        K.MIN: reals.minimum, K.MAX: reals.maximum, K.TO_REAL: Fraction,
        K.LT: lambda a, b: a < b, K.LE: lambda a, b: a <= b, K.GT: lambda a, b: a > b,
        K.GE: lambda a, b: a >= b, K.SQRT: reals.sqrt, K.EXP: reals.exp, K.LOG: reals.log,
    }
    return table[op](*xs)


def _product(xs: Sequence[Any]) -> Any:
    out = xs[0]
    for x in xs[1:]:
        out = out * x
    return out


def _apply(t: T.Apply) -> Any:
    name = t.func.name
    xs = [value(a) for a in t.args]
    if name == "cons":
        return xs[1].cons(xs[0])
    if name.startswith("nil_"):
        return NIL
    if name == "countOf":
        lst, j = xs
        return sum(1 for x in lst if values_equal(x, j))
    if V.all_in_kind(t) is not None:
        return _is_value_of(xs[0], V.all_in_kind(t))
    if name in _CONSTRUCTORS:
        return builtin(_CONSTRUCTORS[name], *xs)
    if name.startswith("dirichlet"):
        return builtin("dirichlet", *xs)
    if name in BUILTINS:
        return builtin(name, *xs)
    raise KeyError(f"no run-time meaning for the logic function {name}")


def _is_value_of(lst: Any, kind: str) -> bool:
    """``allIn_<kind> (lst)``: whether ``lst`` is a value of the list type whose elements have
    the range ``kind``, as ``privinfer run`` checks its arguments (``check_value``)."""
    from verifier.errors import PrivInferError
    from verifier.language import ast as A
    from verifier.semantics.evaluator import check_value
    elem = {"nat": A.TBase("nat"), "pos": A.TBase("real+"), "unit": A.TBase("[0,1]")}.get(kind)
    elem = elem or A.TFin(int(kind[3:]))
    try:
        check_value(lst, A.TList(elem), "l")
    except PrivInferError:
        return False
    return True


# ---- building terms ------------------------------------------------------------------------


def number(x: Any, sort: T.Sort = T.REAL) -> T.Term:
    return T.integer(int(x)) if sort == T.INT else T.real(Fraction(x))


def element(x: Any, key: str) -> T.Term:
    if key == "bool":
        return T.boolean(bool(x))
    if key == "real":
        return T.real(Fraction(x))
    return T.integer(int(x))


def list_term(items: Sequence[Any], key: str) -> T.Term:
    """The term ``x1 :: ... :: []`` of a concrete list whose elements have key ``key``
    (``bool``, ``real``, ``int`` or a finite ``fin3``...)."""
    out = V.nil(V.list_sort(key))
    for x in reversed(list(items)):
        out = V.cons(element(x, key), out)
    return out


def distribution(family: str, params: Sequence[Any]) -> T.Term:
    return V.dist_ctor(family, tuple(T.real(Fraction(p)) for p in params))


def as_list(items: Sequence[Any]) -> ConsList:
    return ConsList.from_sequence(list(items))


__all__ = ["value", "builtin", "number", "element", "list_term", "distribution", "as_list"]
