"""The Decidable condition of the Safety judgement: which decisions of the run-time semantics
are safe to make on values that may depend on private data (docs/reals.md, docs/verifier.md).

``privinfer run`` decides every comparison of reals exactly or stops with R011
(``verifier.semantics.reals``). A decision on an exact rational always succeeds (Python's
``Fraction`` arithmetic has no precision cap); any other exact real may fail — a difference
that is exactly 0 outside the decidable fragment, or a nonzero one too small for
``MAX_PRECISION`` — and a run-time error is an observable output. So a decision the run makes
(a comparison, a sign test, a range check: a ``Decision`` of the translator or of a Safety
walk) is accepted only when

* every operand is **rational-valued** (``rational_tags``): built from rational constants and
  rational leaves by ``+ - * /``, ``abs``, ``min``, ``max``, ``ite``, the list and tuple
  constructors, and the built-ins that return rationals on rationals (``count``, ``length``,
  ``sum``, ``countOf``, the distribution constructors, ``posteriors``); a term of a sort that
  holds no real (``Int``, ``Bool``, ``List[bool]`` …) is rational whatever it is built of (its
  value is an integer or a boolean); ``sqrt``, ``exp``, ``log``, ``pi``, ``hellinger``,
  ``tv``, the program's own functions of real sort (an opaque call) … are not — but for the
  function bound to a parameter of function type returning a pure value, which a caller may
  pass only if it returns rationals on rationals — (except
  ``sqrt`` of a constant perfect square, ``exp 0`` and ``log 1``, which the run computes as
  rationals); or
* every operand is **run-invariant** (``invariant``): it mentions only *public* variables
  (the walk says which: the shared variables of the parameters refined ``=``, and what is
  computed from them alone), so both runs compute the same exact real from the same inputs
  and take the same decision — R011 included — provided the decision is reached alike in both
  runs (``alike``: not under a condition on private data; the walk decides).

Which variables are rational is the walk's knowledge (``leaf``): a parameter (checked at run
time, or at every call), a draw of a family the run samples as a rational (``beta``,
``uniform``, ``dirichlet``), a mechanism's release (``lapMech`` / ``gaussMech`` release grid
rationals) … Each rational leaf carries *tags*: the parameters of the definition whose being
rational it relies on; ``rational_tags`` returns the union over the leaves a term uses (None
when the term is not rational), so that a definition's *contract* — the parameters its
accepted decisions need rational — can be demanded at its call sites.

This module is pure (terms in, verdicts out) and shared by the derivation builder
(``verifier.rules.decidable``) and the certificate kernel (``checker.decidable``), which walk
the program each with its own code.
"""
from __future__ import annotations

from fractions import Fraction
from math import isqrt
from typing import Callable, Dict, FrozenSet, Iterable, List, Optional, Sequence, Tuple

from obligations import terms as T
from obligations.records import record
from obligations.vocabulary import (DIST, elem_sort, higher_order_function_of, list_key_of,
                                    parameter_function_of, program_function_name,
                                    tuple_components)

Tags = FrozenSet[int]
NO_TAGS: Tags = frozenset()

#: operations whose result is rational when their (numeric) arguments are
_RATIONAL_OPS = frozenset({T.OpKind.ADD, T.OpKind.SUB, T.OpKind.MUL, T.OpKind.DIV,
                           T.OpKind.NEG, T.OpKind.ABS, T.OpKind.MIN, T.OpKind.MAX,
                           T.OpKind.TO_REAL})
#: uninterpreted built-ins whose value is rational (its reals are) when their arguments are:
#: list and tuple constructors and projections, the sum of a list, the distribution
#: constructors (a distribution "is rational" when its parameters are: the distances and
#: sampler decisions on it are then made on rationals), the candidates of ``posteriors``
_RATIONAL_FUNCTIONS = frozenset({"cons", "sum", "beta", "normal", "bernoulli", "categorical",
                                 "posteriors"})
_RATIONAL_PREFIXES = ("nil_", "mk_")


def carries_reals(sort: T.Sort) -> bool:
    """Whether a value of ``sort`` may hold a real number (``Real``, ``Dist``, a list or tuple
    sort with such elements). A value of any other sort is an integer, a boolean or a list or
    tuple of them: the run compares it exactly."""
    if sort == T.REAL or sort == DIST:
        return True
    if sort in (T.INT, T.BOOL):
        return False
    key = list_key_of(sort)
    if key is not None:
        return carries_reals(elem_sort(key))
    if sort.name.startswith("Tup<"):
        parts = tuple_components("tup" + sort.name[3:])
        return parts is None or any(carries_reals(elem_sort(p)) for p in parts)
    return True  # an uninterpreted sort the classifier does not know: assume the worst


def _rational_function(name: str) -> bool:
    """The constructors and projections named above: ``nil_K``, ``mk_K`` (a tuple),
    ``getI_K`` (its projections), ``dirichletK``; and the function bound to a parameter of
    function type returning a pure value (``vocabulary.parameter_function``): a function is
    passed there only if it returns rationals on rational arguments (the Safety walks check
    it where it is passed: docs/verifier.md "Higher order"). No other program function
    (``fn_…``) is one."""
    if name in _RATIONAL_FUNCTIONS or name.startswith(_RATIONAL_PREFIXES):
        return True
    if parameter_function_of(name) is not None:
        return True
    if name.startswith("dirichlet"):
        return name[len("dirichlet"):].isdigit()
    if name.startswith("get"):
        index, _, rest = name[3:].partition("_")
        return index.isdigit() and bool(rest)
    return False


def _exact_constant(op: T.OpKind, arg: T.Term) -> bool:
    """``sqrt q`` of a perfect square, ``exp 0``, ``log 1``: rationals in the run
    (``reals.sqrt`` / ``exp`` / ``log`` return them as rationals)."""
    if not isinstance(arg, T.Const) or isinstance(arg.value, bool):
        return False
    q = Fraction(arg.value)
    if op == T.OpKind.SQRT:
        if q < 0:
            return False
        n, d = q.numerator, q.denominator
        return isqrt(n) ** 2 == n and isqrt(d) ** 2 == d
    if op == T.OpKind.EXP:
        return q == 0
    if op == T.OpKind.LOG:
        return q == 1
    return False


def rational_tags(term: T.Term, leaf: Callable[[T.Var], Optional[Tags]]) -> Optional[Tags]:
    """The tags of the rational leaves ``term`` is built from, when its value in the run is
    rational (module docstring); None when it may not be. ``leaf(v)`` says what is known of a
    variable of a sort that carries reals (its tags, or None)."""
    def step(u: T.Term, kids: List[Optional[Tags]]) -> Optional[Tags]:
        if not carries_reals(u.sort):
            return NO_TAGS
        if isinstance(u, T.Const):
            return NO_TAGS
        if isinstance(u, T.Var):
            return leaf(u)
        if isinstance(u, T.Op):
            if u.op == T.OpKind.ITE:
                kids = kids[1:]  # the condition is a boolean
            elif u.op not in _RATIONAL_OPS:
                return NO_TAGS if u.op in (T.OpKind.SQRT, T.OpKind.EXP, T.OpKind.LOG) \
                    and _exact_constant(u.op, u.args[0]) else None
            return _union(kids)
        if isinstance(u, T.Apply) and _rational_function(u.func.name):
            return _union(kids)
        if isinstance(u, T.Apply) and val_call_name(u.func.name) is not None:
            own = leaf(u)  # the call itself: rational on rational arguments, or not
            return None if own is None else _union(kids + [own])
        return None
    return T.dag_fold(term, step, {})


def val_call_name(symbol: str) -> Optional[str]:
    """The program function of a symbol of a first-order call (``fn_f(a)``, a component
    ``fn_f'p1(a)`` of a tuple result), which ``rational_tags`` asks its ``leaf`` about: a pure
    val whose definition returns rationals on rational arguments (its Decidable contract,
    computed alike by the builder and the kernel) is rational there. None for other symbols
    (a parameter of function type, a higher-order call, a built-in)."""
    if parameter_function_of(symbol) is not None or higher_order_function_of(symbol) is not None:
        return None
    return program_function_name(symbol)


def _union(parts: Sequence[Optional[Tags]]) -> Optional[Tags]:
    if any(p is None for p in parts):
        return None
    out: Tags = NO_TAGS
    for p in parts:
        out = out | p
    return out


def invariant(term: T.Term, public: Callable[[T.Var], bool]) -> bool:
    """Whether ``term`` mentions only public variables (``public(v)``): the same computation
    on the same inputs in both runs."""
    return all(public(v) for v in T.free_vars(term))


def irrational_part(term: T.Term, leaf: Callable[[T.Var], Optional[Tags]]) -> str:
    """The first sub-term (in pre-order) that makes ``term`` not rational, in words: for the
    reason of a rejected decision (``sqrt (...)``, ``tv (...)``, ``the draw z``)."""
    for u in T.subterms(term):
        if not carries_reals(u.sort) or isinstance(u, T.Const):
            continue
        if isinstance(u, T.Var):
            if leaf(u) is None:
                return f"{_clipped(u.label)}, a value that need not be rational"
            continue
        if isinstance(u, T.Op) and u.op not in _RATIONAL_OPS and u.op != T.OpKind.ITE \
                and not _exact_constant(u.op, u.args[0] if u.args else u):
            return f"{_clipped(T.pretty(u))}, an irrational number in general"
        if isinstance(u, T.Apply) and val_call_name(u.func.name) is not None \
                and leaf(u) is not None:
            continue
        if isinstance(u, T.Apply) and not _rational_function(u.func.name):
            return f"{_clipped(T.pretty(u))}, which need not be rational"
    return _clipped(T.pretty(term))


#: the most characters of a term a message quotes
_CLIP = 80


def _clipped(text: str) -> str:
    """``text`` cut to ``_CLIP`` characters (a constant of 700 digits is not read)."""
    return text if len(text) <= _CLIP else text[:_CLIP - 1] + "…"


@record
class Verdict:
    """How a decision was judged: ``accepted`` by ``how`` (``rational`` or ``public``), with
    the ``tags`` of the parameters it needs rational; or rejected, ``why`` in words."""

    accepted: bool
    how: str = ""
    tags: Tags = NO_TAGS
    why: str = ""


def judge(operands: Iterable[T.Term], leaf: Callable[[T.Var], Optional[Tags]],
          public: Callable[[T.Var], bool], alike: bool) -> Verdict:
    """The verdict on a decision the run makes on the values of ``operands``: accepted when
    every operand is rational, or (``alike``: reached alike in both runs) when every operand is
    run-invariant; else rejected, with the reason (module docstring)."""
    operands = tuple(operands)
    tags: Optional[Tags] = NO_TAGS
    for op in operands:
        t = rational_tags(op, leaf)
        if t is None:
            tags = None
            break
        tags = tags | t
    if tags is not None:
        return Verdict(True, "rational", tags)
    odd = next(op for op in operands if rational_tags(op, leaf) is None)
    what = irrational_part(odd, leaf)
    if all(invariant(op, public) for op in operands):
        if alike:
            return Verdict(True, "public")
        return Verdict(False, why=f"it compares {what}, and is reached under a condition that "
                       "may differ between the two runs (private data, a draw)")
    private = sorted({v.label for op in operands for v in T.free_vars(op) if not public(v)})
    return Verdict(False, why=f"it compares {what}, with a value that depends on "
                   f"{', '.join(private[:3])} (private data, a draw or a mechanism's output)")


def comparison_operands(condition: T.Term) -> Tuple[T.Term, ...]:
    """The operands of the comparisons in a range condition (``0 <= p /\\ p <= 1`` gives
    ``0, p, p, 1``): the values the run's range check compares."""
    out: List[T.Term] = []
    seen: Dict[T.Term, None] = {}
    stack = [condition]
    while stack:
        t = stack.pop()
        if t in seen:
            continue
        seen[t] = None
        if isinstance(t, T.Op) and t.op in (T.OpKind.AND, T.OpKind.OR, T.OpKind.NOT,
                                           T.OpKind.IMPLIES):
            stack.extend(reversed(t.args))
        elif isinstance(t, T.Op) and t.op in (T.OpKind.LT, T.OpKind.LE, T.OpKind.GT,
                                             T.OpKind.GE, T.OpKind.EQ, T.OpKind.NE):
            out.extend(a for a in t.args if carries_reals(a.sort))
        elif isinstance(t, T.Apply):  # a predicate (the elements of a list in a range...)
            out.extend(a for a in t.args if carries_reals(a.sort))
    return tuple(out)
