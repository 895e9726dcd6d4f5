"""Run-time values of the PrivInfer language, their printing and their JSON form.

Representation
==============

=====================  ==========================================================
language               Python
=====================  ==========================================================
``unit``               the singleton ``UNIT``
``bool``               ``bool``
``int``, ``nat``,      ``int`` (never ``bool``)
``[k]``
``real`` and ranges    ``fractions.Fraction`` or ``reals.Real`` (see *Numeric policy*)
tuples, ``[0,1]^k``    ``tuple`` (at least two items)
``T list``             ``ConsList``: a persistent cons list (``NIL`` or a cell)
functions              ``Closure`` (user code) or ``Builtin``
``D[T]``               a ``verifier.semantics.distributions.Distribution``
``M[T]``               a ``verifier.semantics.monad.MValue``
=====================  ==========================================================

Numeric policy
==============

* Integer literals and integer arithmetic are exact Python ``int``.
* Real literals are exact: ``2.5`` is ``Fraction(5, 2)`` and ``1e-8`` is ``Fraction(1, 10**8)``.
  ``+ - * /`` on exact operands stay exact; ``/`` is real division, also on two integers
  (``1 / 2`` is ``Fraction(1, 2)``).
* ``sqrt``, ``exp``, ``log``, ``pi``, ``sigma``, ``hellinger``, ``tv`` and the densities give
  exact reals (``verifier.semantics.reals.Real``: an exact expression with rigorous
  enclosures) unless the result is rational (``sqrt 4.0`` is ``Fraction(2)``); arithmetic with
  a ``Real`` gives a ``Real``. Comparisons of reals are decided exactly or raise
  ``reals.Undecided`` (reported as R011), never guessed. There is no overflow.
* Noise samples (``lapMech``, ``gaussMech``) are exact rationals (grid points), and draws of
  model randomness (``ran (beta …)``) are the exact dyadic rationals of the sampled floats.
* No ``float`` is a value: floats appear only when printing, in JSON and in plots.
* Hence conjugate posteriors computed from exact inputs are exact (``beta(4, 4)`` is
  ``Beta(Fraction(4), Fraction(4))``) and every comparison is exact.
* Reals print as the shortest decimal that reads back as the nearest ``float``
  (``12.0``, ``0.1``, ``0.3333333333333333``; whole numbers up to 10^16 with ``.0``), or in
  scientific notation beyond the float range (``1.9700711140170470e+434``, ``1e-400`` is not
  printed as ``0.0``); JSON carries the same ``float`` (or that text).

Lists
=====

``ConsList`` cells are immutable: ``cons``, ``head``, ``tail`` and ``len`` are O(1) (the length
is cached in every cell), and every whole-list operation here (equality, hashing, iteration,
printing, JSON) is iterative, so lists of any length are safe for Python's recursion limit.

Symbolic values
===============

``Symbolic`` is the base of the placeholders that exact inference passes to a likelihood to
recognise its shape (``verifier.semantics.monad``). Any arithmetic, comparison, truth test or
conversion on one raises ``SymbolicEscape``, which inference turns into "this model is not of a
recognised form"; they never reach a user.
"""
from __future__ import annotations

import math
import sys
from contextlib import contextmanager
from decimal import Decimal
from fractions import Fraction
from typing import Any, Callable, Iterable, Iterator, List, Optional, Sequence, Tuple

from verifier.semantics import reals
from verifier.semantics.reals import Real, decimal_text

Value = Any  # see the table above

#: The recursion limit while evaluating, sampling or inferring (see ``deep_recursion``).
RECURSION_LIMIT = 1_000_000
#: The recursion limit while ``run`` evaluates a release (``release_evaluation``): as deep as
#: memory allows, never a limit the private data could reach on one input and not on another.
RELEASE_RECURSION_LIMIT = 1_000_000_000


class _Release:
    """Whether ``run`` is evaluating a release (``release_evaluation``)."""

    active = False
    noticed = False


def releasing() -> bool:
    """True while ``run`` evaluates a release: the evaluator's artificial limits (its step
    budget, the recursion cap, the exact enumeration's bounds) do not apply."""
    return _Release.active


def release_notice(budget: int) -> None:
    """Say on standard error, once per release, that it has run past ``budget`` steps (the
    limit a run that is not a release stops at, R010): a release is evaluated to its end, so
    a program that does not terminate (one the verifier has not verified) runs until it is
    interrupted. The published output is unchanged."""
    if _Release.active and not _Release.noticed:
        _Release.noticed = True
        say_release_past(budget)


def say_release_past(budget: int) -> None:
    """The notice of ``release_notice`` (the while evaluator says it too, once per run)."""
    print(f"privinfer: note: the release has run more than {budget} steps; a release is "
          "evaluated to its end (docs/noise.md), so interrupt it (Ctrl-C) if the program "
          "may not terminate", file=sys.stderr, flush=True)


@contextmanager
def release_evaluation() -> Iterator[None]:
    """Evaluate the body as a release (``privinfer run`` drawing with the secure source): the
    limits that stop a runaway evaluation with an error (R010 the step budget and the recursion
    cap, R009 the exact enumeration's outcomes and work) are lifted. A verified program
    terminates (its recursion is structural: the verifier proves it), but the work it does may
    depend on the private data, so a limit reached on one input and not on its neighbour would
    publish an error instead of a release: an observable event the verified semantics does not
    have (red-team round 6, ``tests/redteam6_attacks/r04``, ``r08``). The running time (and the
    memory) of a release still depend on the data: a timing channel, outside what the verifier
    models (docs/noise.md)."""
    saved = _Release.active, _Release.noticed
    _Release.active, _Release.noticed = True, False
    try:
        yield
    finally:
        _Release.active, _Release.noticed = saved


@contextmanager
def deep_recursion(limit: Optional[int] = None) -> Iterator[None]:
    """Run the body with Python's recursion limit raised to at least ``limit`` (default
    ``RECURSION_LIMIT``, or ``RELEASE_RECURSION_LIMIT`` in a release; restored afterwards).
    Recursive programs over long lists recurse deeply in the evaluator; CPython 3.11+ does not
    use the C stack for Python-to-Python calls, so only the limit matters. Nested uses cost
    O(1)."""
    if limit is None:
        limit = RELEASE_RECURSION_LIMIT if _Release.active else RECURSION_LIMIT
    old = sys.getrecursionlimit()
    if old >= limit:
        yield
        return
    sys.setrecursionlimit(limit)
    try:
        yield
    finally:
        sys.setrecursionlimit(old)


# --------------------------------------------------------------------------------------
# unit
# --------------------------------------------------------------------------------------


class Unit:
    """The type of ``()``; use the singleton ``UNIT``."""

    _instance: Optional["Unit"] = None

    def __new__(cls) -> "Unit":
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "()"

    def __reduce__(self):
        return (Unit, ())


UNIT = Unit()


# --------------------------------------------------------------------------------------
# persistent lists
# --------------------------------------------------------------------------------------


_NIL_HASH = hash(("nil",))


class ConsList:
    """An immutable singly linked list; ``NIL`` is the empty list.

    Build with ``NIL``, ``cons(x, xs)`` / ``xs.cons(x)`` or ``ConsList.from_sequence(seq)``.
    Equality and hashing are structural (and iterative).
    """

    __slots__ = ("_head", "_tail", "_len", "_hash")

    def __init__(self, head: Value = None, tail: Optional["ConsList"] = None, _length: int = 0):
        self._head = head
        self._tail = tail
        self._len = _length
        self._hash: Optional[int] = None

    # construction -----------------------------------------------------------------
    def cons(self, head: Value) -> "ConsList":
        """A new list with ``head`` in front of ``self`` (O(1))."""
        return ConsList(head, self, self._len + 1)

    @staticmethod
    def from_sequence(items: Iterable[Value]) -> "ConsList":
        """The list of ``items`` in order; built from the end, O(n)."""
        seq = items if isinstance(items, (list, tuple)) else list(items)
        out = NIL
        for item in reversed(seq):
            out = ConsList(item, out, out._len + 1)
        return out

    # access -------------------------------------------------------------------------
    @property
    def is_nil(self) -> bool:
        return self._len == 0

    @property
    def head(self) -> Value:
        if self._len == 0:
            raise IndexError("head of the empty list")
        return self._head

    @property
    def tail(self) -> "ConsList":
        if self._len == 0:
            raise IndexError("tail of the empty list")
        return self._tail  # type: ignore[return-value]

    def __len__(self) -> int:
        return self._len

    def __bool__(self) -> bool:
        return self._len > 0

    def __iter__(self) -> Iterator[Value]:
        cell = self
        while cell._len:
            yield cell._head
            cell = cell._tail  # type: ignore[assignment]

    def to_list(self) -> List[Value]:
        return list(self)

    # structural equality -------------------------------------------------------------
    def __eq__(self, other: object) -> bool:
        if not isinstance(other, ConsList):
            return NotImplemented
        a, b = self, other
        if a._len != b._len:
            return False
        while a._len:
            if a is b:
                return True
            if not values_equal(a._head, b._head):
                return False
            a, b = a._tail, b._tail  # type: ignore[assignment]
        return True

    def __hash__(self) -> int:
        if self._len == 0:
            return _NIL_HASH
        if self._hash is None:
            # Hash the cells from the end so that every suffix caches its hash too.
            pending = []
            cell = self
            while cell._len and cell._hash is None:
                pending.append(cell)
                cell = cell._tail  # type: ignore[assignment]
            h = cell._hash if cell._len else _NIL_HASH
            for c in reversed(pending):
                h = hash((c._head, h))
                c._hash = h
        return self._hash  # type: ignore[return-value]

    def __repr__(self) -> str:
        return format_value(self)


NIL = ConsList()


def cons(head: Value, tail: ConsList) -> ConsList:
    return tail.cons(head)


# --------------------------------------------------------------------------------------
# functions
# --------------------------------------------------------------------------------------


class Closure:
    """A user function ``fun p1 ... pn -> body`` with its defining environment.

    Applying it to one argument binds ``params[0]``; with more parameters left the result is
    a closure over the rest (currying). ``name`` is set for named definitions (printing only).
    """

    __slots__ = ("params", "body", "env", "name")

    def __init__(self, params: Tuple[Any, ...], body: Any, env: Any, name: Optional[str] = None):
        self.params = params
        self.body = body
        self.env = env
        self.name = name

    def __repr__(self) -> str:
        return format_value(self)


class Builtin:
    """A built-in function of LANGUAGE.md. Every built-in takes exactly one argument (a tuple
    for ``beta (a, b)``); ``impl(evaluator, argument, app_node)`` computes the result."""

    __slots__ = ("name", "impl")

    def __init__(self, name: str, impl: Callable[..., Value]):
        self.name = name
        self.impl = impl

    def __repr__(self) -> str:
        return format_value(self)


# --------------------------------------------------------------------------------------
# symbolic placeholders (exact inference only)
# --------------------------------------------------------------------------------------


class SymbolicEscape(Exception):
    """A symbolic placeholder was used in a way inference cannot follow (internal)."""

    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason


class Symbolic:
    """Base of the inference placeholders; every operation on one raises ``SymbolicEscape``.
    A ``numeric`` placeholder (a noisy value of ``verifier.semantics.compared``) may be an
    operand of comparisons and arithmetic, which it decides itself."""

    __slots__ = ()
    numeric = False

    def describe(self) -> str:
        return "the inferred parameter"

    def _escape(self, *_: Any) -> Any:
        raise SymbolicEscape(f"the model computes with {self.describe()}")

    __add__ = __radd__ = __sub__ = __rsub__ = __mul__ = __rmul__ = _escape
    __truediv__ = __rtruediv__ = __neg__ = __abs__ = _escape
    __lt__ = __le__ = __gt__ = __ge__ = _escape
    __float__ = __int__ = __bool__ = __index__ = _escape

    def __hash__(self) -> int:
        raise SymbolicEscape(f"the model uses {self.describe()} as a value of a finite distribution")

    def __eq__(self, other: object) -> bool:
        raise SymbolicEscape(f"the model compares {self.describe()}")

    def __repr__(self) -> str:
        return f"<{self.describe()}>"


class Placeholder:
    """A part of an output law's outcome that stands for a continuous value (a released noisy
    value, or the bin it falls in: ``verifier.semantics.compared``): hashable, equal by its
    own ``==``, printed as ``printed``."""

    __slots__ = ()

    @property
    def printed(self) -> str:
        raise NotImplementedError


# --------------------------------------------------------------------------------------
# classification and equality
# --------------------------------------------------------------------------------------


def is_number(v: Value) -> bool:
    """``int``, ``Fraction``, ``Real`` or ``float`` (a ``bool`` is not a number here)."""
    return isinstance(v, (int, Fraction, Real, float)) and not isinstance(v, bool)


def to_real(v: Value) -> Value:
    """An ``int`` as an exact real (``Fraction``); reals unchanged."""
    if isinstance(v, int) and not isinstance(v, bool):
        return Fraction(v)
    return v


def values_equal(a: Value, b: Value) -> bool:
    """The language's ``=``: structural equality of bools, numbers, tuples and lists
    (iterative on lists). Numbers compare by value (``1 = 1.0``). Raises ``SymbolicEscape``
    on a symbolic placeholder and ``TypeError`` on functions and M-values."""
    if isinstance(a, Symbolic) or isinstance(b, Symbolic):
        culprit = a if isinstance(a, Symbolic) else b
        raise SymbolicEscape(f"the model compares {culprit.describe()}")
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a is b
    if is_number(a) and is_number(b):
        return a == b
    if isinstance(a, tuple) and isinstance(b, tuple):
        return len(a) == len(b) and all(values_equal(x, y) for x, y in zip(a, b))
    if isinstance(a, ConsList) and isinstance(b, ConsList):
        return a == b
    if isinstance(a, (Closure, Builtin)) or isinstance(b, (Closure, Builtin)):
        raise TypeError("functions cannot be compared")
    if a is UNIT or b is UNIT:
        return a is b
    if isinstance(a, Placeholder) or isinstance(b, Placeholder):
        return a == b
    from verifier.semantics.distributions import Distribution
    if isinstance(a, Distribution) and isinstance(b, Distribution):
        if a is not b and "posterior" in (a.family, b.family):
            raise TypeError("a posterior without a closed form is not compared (docs/reals.md)")
        return a == b
    if type(a) is not type(b):
        return False
    raise TypeError(f"values of kind {kind_of(a)} cannot be compared")


def kind_of(v: Value) -> str:
    """A short description of a value's kind, for error messages."""
    from verifier.semantics.distributions import Distribution
    from verifier.semantics.monad import MValue
    if v is UNIT:
        return "unit"
    if isinstance(v, bool):
        return "bool"
    if isinstance(v, int):
        return "int"
    if isinstance(v, (Fraction, float, Real)):
        return "real"
    if isinstance(v, tuple):
        return f"{len(v)}-tuple"
    if isinstance(v, ConsList):
        return "list"
    if isinstance(v, (Closure, Builtin)):
        return "function"
    if isinstance(v, Distribution):
        return "symbolic distribution (D[T])"
    if isinstance(v, MValue):
        return "distribution (M[T])"
    if isinstance(v, Symbolic):
        return "symbolic placeholder"
    return type(v).__name__


def a_kind(v: Value) -> str:
    """``kind_of(v)`` with its indefinite article: "an int", "a bool"."""
    kind = kind_of(v)
    return ("an " if kind[0] in "aeiou" else "a ") + kind


# --------------------------------------------------------------------------------------
# printing
# --------------------------------------------------------------------------------------


def format_real(x: Value) -> str:
    """A real in the language's literal syntax: ``12.0``, ``0.1``, ``-2.5``, ``1e-08``."""
    if isinstance(x, int) and not isinstance(x, bool):
        return format_real(Fraction(x))
    if isinstance(x, Real):
        return _format_exact_real(x)
    if isinstance(x, Fraction):
        if x.denominator == 1 and abs(x.numerator) < 10 ** 16:
            return f"{x.numerator}.0"
        try:
            f = float(x)
        except OverflowError:
            f = math.inf
        if f != 0.0 and not math.isinf(f) or x == 0:
            return format_real(f)
        d = Decimal(x.numerator) / Decimal(x.denominator)  # beyond the float range: e-notation
        return f"{d:.17e}"
    if math.isnan(x):
        return "nan"
    if math.isinf(x):
        return "infinity" if x > 0 else "-infinity"
    return repr(float(x))


def _format_exact_real(x: Real) -> str:
    """The nearest float's shortest decimal; scientific notation from the enclosure beyond
    the float range; the expression itself when no finite enclosure is found (a number such as
    ``exp (exp (exp 10.0))``: printing never fails)."""
    try:
        f = float(x)
        if math.isnan(f):
            return x.describe()
        if f != 0.0 and not math.isinf(f):
            return repr(f)
        return "0.0" if x.sign() == 0 else decimal_text(x)
    except reals.Undecided:
        return x.describe()


def format_value(v: Value) -> str:
    """``v`` in the language's syntax: ``true``, ``3``, ``2.5``, ``(1.5, 2.0)``, ``[true; false]``,
    ``beta(12.0, 9.0)``. Functions print as ``<fun>``, M-values as ``<M-value>``."""
    from verifier.semantics.distributions import Distribution
    if v is UNIT:
        return "()"
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, (Fraction, float, Real)):
        return format_real(v)
    if isinstance(v, tuple):
        return "(" + ", ".join(format_value(x) for x in v) + ")"
    if isinstance(v, ConsList):
        return "[" + "; ".join(format_value(x) for x in v) + "]"
    if isinstance(v, Distribution):
        return v.format()
    if isinstance(v, Closure):
        return f"<fun {v.name}>" if v.name else "<fun>"
    if isinstance(v, Builtin):
        return f"<builtin {v.name}>"
    if isinstance(v, Symbolic):
        return repr(v)
    if isinstance(v, Placeholder):
        return v.printed
    return "<M-value>"


def to_json(v: Value) -> Any:
    """A JSON-serialisable form of ``v``: unit is ``null``, reals are floats (``"infinity"`` /
    ``"-infinity"`` / ``"nan"`` strings outside the float range), tuples and lists are arrays,
    distributions are ``{"family": ..., "params": [...]}`` (see ``Distribution.to_json``),
    functions and M-values are the strings ``"<fun>"`` / ``"<M-value>"``."""
    from verifier.semantics.distributions import Distribution
    if v is UNIT:
        return None
    if isinstance(v, bool):
        return v
    if isinstance(v, int):
        return v
    if isinstance(v, Real):  # the printed decimal read back; text beyond the float range
        shown = _format_exact_real(v)
        try:
            f = float(shown)
        except ValueError:  # the expression itself (no finite enclosure)
            return shown
        return f if math.isfinite(f) and (f != 0.0 or shown == "0.0") else shown
    if isinstance(v, (Fraction, float)):
        try:
            f = float(v)
        except OverflowError:
            return format_real(v)
        if math.isnan(f) or math.isinf(f) or (f == 0.0 and v != 0):
            return format_real(v)
        return f
    if isinstance(v, tuple):
        return [to_json(x) for x in v]
    if isinstance(v, ConsList):
        return [to_json(x) for x in v]
    if isinstance(v, Distribution):
        return v.to_json()
    return format_value(v)


def canonical(v: Value) -> Value:
    """``v`` with every exact real that is shown to be rational replaced by that rational, so
    that values equal in the language hash alike (``reals.canonical``); other values are
    returned as they are."""
    if isinstance(v, Real):
        return reals.canonical(v)
    if isinstance(v, tuple) and any(isinstance(x, (Real, tuple, ConsList)) for x in v):
        return tuple(canonical(x) for x in v)
    if isinstance(v, ConsList) and any(isinstance(x, (Real, tuple, ConsList)) for x in v):
        return ConsList.from_sequence([canonical(x) for x in v])
    return v


def value_sort_key(v: Value) -> Any:
    """A total order on values of one type, used to print finite distributions canonically."""
    from verifier.semantics.distributions import Distribution
    if v is UNIT:
        return (0,)
    if isinstance(v, bool):
        return (1, int(v))
    if isinstance(v, Real):
        return (2, float(v))
    if is_number(v):
        return (2, v)
    if isinstance(v, tuple):
        return (3, tuple(value_sort_key(x) for x in v))
    if isinstance(v, ConsList):
        return (4, len(v), tuple(value_sort_key(x) for x in v))
    if isinstance(v, Distribution):
        return (5, v.format())
    return (6, format_value(v))


def sorted_values(values: Iterable[Value]) -> List[Value]:
    """``values`` in the canonical order of ``value_sort_key`` (insertion order if mixed)."""
    vs = list(values)
    try:
        return sorted(vs, key=value_sort_key)
    except TypeError:
        return vs


def list_of(items: Sequence[Value]) -> ConsList:
    """Shorthand for ``ConsList.from_sequence``."""
    return ConsList.from_sequence(items)
