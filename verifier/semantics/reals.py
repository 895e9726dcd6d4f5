"""Exact real numbers: the numbers of ``privinfer run`` and ``privinfer audit`` that are not
rational (docs/reals.md).

A ``Real`` is an exact real number given by an expression: rationals combined by ``+ - * /``,
``exp``, ``log``, ``sqrt``, ``pi``, ``lgamma``, ``erf``, ``abs``, ``min``, ``max``, and
*enclosure nodes* (a number known only through a function that encloses it at any precision,
such as the total variation distance between two Beta laws). Rationals stay Python ``int`` and
``fractions.Fraction``: an operation whose operands are all rational gives a rational, and a
``Real`` appears only where a transcendental or irrational operation does.

Comparisons are decided, never guessed:

1. the expression is enclosed in Arb balls (python-flint's rigorous interval arithmetic) at
   the precisions of ``LADDER``; the first ball that excludes 0 gives the sign;
2. when the balls keep containing 0, the expression is simplified exactly with sympy: a result
   of 0 is a true zero (``sqrt 2.0 * sqrt 2.0 - 2.0``, ``exp (log 3.0) - 3.0``), a rational
   result gives its sign, and any other result is enclosed again;
3. if neither decides, ``Undecided`` is raised: the evaluator reports it as an error (R010),
   never as an answer.

There is no overflow: ``exp 1000.0`` is a number (Arb's exponents are unbounded), so
``exp (1000.0 * count db) > x`` is decided exactly.

Nodes are hash-consed (``_node``): two structurally equal expressions are one object, so
``x - x`` is 0 and ``sqrt a * sqrt a`` is ``a`` by identity, without enclosures. Every
``Real`` has the same hash, which is consistent with its exact ``==`` against other ``Real``\\ s;
a ``Real`` equal to a rational hashes differently from the rational, so code that uses values
as dictionary keys merges such keys with ``canonical`` (the finite laws of ``monad`` do).

Floats enter only through ``float(x)`` (printing, JSON, plots): ``format_real`` prints the
nearest float, or an Arb decimal beyond the float range.
"""
from __future__ import annotations

import itertools
import math
import weakref
from fractions import Fraction
from typing import Any, Callable, Dict, Iterator, List, Optional, Tuple, Union

from flint import arb, ctx, fmpq

from verifier.semantics import exact_forms as forms

Rational = Union[int, Fraction]
Number = Union[int, Fraction, "Real"]

#: Working precisions (bits) at which a sign is looked for before and after simplification.
LADDER_LOW = (64, 256)
LADDER_HIGH = (1024, 4096, 16384)
LADDER = LADDER_LOW + LADDER_HIGH
#: The precision (bits) up to which the enclosure of a number of the decidable fragment known
#: to be nonzero is refined (doubling from the end of ``LADDER``): a resource limit, reached
#: only by numbers within about 2^-2000000 of 0 relative to their parts.
MAX_PRECISION = 1 << 21
#: The largest expression (in distinct nodes) handed to sympy, and to ``sympy.simplify``
#: (in operations).
MAX_SYMBOLIC_NODES = 300
MAX_SIMPLIFY_OPS = 60
_REAL_HASH = hash("privinfer.semantics.reals.Real")


class Undecided(ArithmeticError):
    """A comparison that neither enclosures nor exact simplification decide (``what`` says
    which number)."""

    def __init__(self, what: str):
        super().__init__(f"cannot decide the sign of {what}: interval arithmetic up to "
                         f"{LADDER[-1]} bits and exact simplification both fail")
        self.what = what


def is_rational(x: Any) -> bool:
    return isinstance(x, (int, Fraction)) and not isinstance(x, bool)


def is_exact_number(x: Any) -> bool:
    """An ``int``, ``Fraction`` or ``Real`` (a ``bool`` is not a number)."""
    return isinstance(x, (int, Fraction, Real)) and not isinstance(x, bool)


class _Workprec:
    """python-flint's working precision is global: set it for a block, then restore it."""

    __slots__ = ("bits", "old")

    def __init__(self, bits: int):
        self.bits = bits

    def __enter__(self):
        self.old = ctx.prec
        ctx.prec = self.bits

    def __exit__(self, *exc):
        ctx.prec = self.old


def _arb_of(q: Rational) -> arb:
    if isinstance(q, int):
        return arb(q)
    return arb(fmpq(q.numerator, q.denominator))


# ---------------------------------------------------------------------------------------
# the expression nodes
# ---------------------------------------------------------------------------------------

#: op -> how a node's ball is computed from its arguments' balls (at the working precision)
_BALL: Dict[str, Callable[..., arb]] = {
    "add": lambda a, b: a + b,
    "mul": lambda a, b: a * b,
    "div": lambda a, b: a / b,
    "neg": lambda a: -a,
    "abs": lambda a: abs(a),
    "min": lambda a, b: a.min(b),
    "max": lambda a, b: a.max(b),
    "exp": lambda a: a.exp(),
    "expm1": lambda a: a.expm1(),
    "log": lambda a: a.log(),
    # the argument is known to be >= 0 (checked when the node was made), so the part of a
    # ball below 0 is not a value the argument can take
    "sqrt": lambda a: a.nonnegative_part().sqrt(),
    "lgamma": lambda a: a.lgamma(),
    "erf": lambda a: a.erf(),
    "erfc": lambda a: a.erfc(),
    "pi": lambda: arb.pi(),
}

_INTERNED: "weakref.WeakValueDictionary[tuple, Real]" = weakref.WeakValueDictionary()
#: the sympy symbols standing for enclosure nodes (``_to_sympy``), by name
_ENCLOSED: "weakref.WeakValueDictionary[str, Real]" = weakref.WeakValueDictionary()


def _token(x: Number) -> tuple:
    return ("r", id(x)) if isinstance(x, Real) else ("q", x)


class Real:
    """An exact real number (see the module docstring). Build with the functions of this
    module (``sqrt``, ``exp``, ``log``, ``pi``, ``lgamma``, ``erf``, ``enclosed``) and the
    arithmetic operators; never with the constructor."""

    __slots__ = ("op", "args", "label", "nonnegative", "_prec", "_ball", "_sign", "_sympy",
                 "_form", "__weakref__")

    def __init__(self, op: str, args: tuple, label: str = "", nonnegative: bool = False):
        self.op = op
        self.args = args
        self.label = label
        #: known to be >= 0 by construction (an enclosed distance, a square root, ...)
        self.nonnegative = nonnegative or op in ("sqrt", "exp", "abs", "pi")
        self._prec = 0
        self._ball: Optional[arb] = None
        self._sign: Optional[int] = None
        self._sympy: Any = None
        self._form: Any = None

    # ---- enclosures ----------------------------------------------------------------------

    def ball(self, prec: int) -> arb:
        """An Arb ball containing this number, computed at ``prec`` bits (or better)."""
        if self._prec >= prec:
            return self._ball  # type: ignore[return-value]
        stack: List[Tuple[Real, bool]] = [(self, False)]
        with _Workprec(prec):
            while stack:
                node, ready = stack.pop()
                if node._prec >= prec:
                    continue
                if not ready:
                    stack.append((node, True))
                    stack.extend((a, False) for a in node.args
                                 if isinstance(a, Real) and a._prec < prec)
                    continue
                node._ball = node._compute(prec)
                node._prec = prec
        return self._ball  # type: ignore[return-value]

    def _compute(self, prec: int) -> arb:
        if self.op == "enclosed":
            try:
                return self.args[0](prec)
            except ArithmeticError:  # no enclosure at this precision: try a higher one
                return arb.nan()
        balls = [a._ball if isinstance(a, Real) else _arb_of(a) for a in self.args]
        try:
            return _BALL[self.op](*balls)
        except (ValueError, ZeroDivisionError, ArithmeticError):
            return arb.nan()

    # ---- sign and comparisons --------------------------------------------------------------

    def sign(self) -> int:
        """-1, 0 or 1, decided exactly (``Undecided`` otherwise)."""
        if self._sign is None:
            self._sign = self._decide_sign()
        return self._sign

    def _decide_sign(self) -> int:
        for prec in LADDER_LOW:
            s = _ball_sign(self.ball(prec))
            if s is not None:
                return s
        form = _form_of(self)
        if form is not None:     # the decidable fragment: 0, or enclosures will show the sign
            return 0 if forms.q_is_zero(form) else _refined_sign(self)
        exact = _symbolic_sign(self, simplify=False)
        if exact is not None:
            return exact
        for prec in LADDER_HIGH:
            s = _ball_sign(self.ball(prec))
            if s is not None:
                return s
        exact = _symbolic_sign(self, simplify=True)
        if exact is not None:
            return exact
        raise Undecided(self.describe())

    def __eq__(self, other: object) -> bool:
        if self is other:
            return True
        if isinstance(other, float):
            if not math.isfinite(other):
                return False
            other = Fraction(other)
        if not is_exact_number(other):
            return NotImplemented
        return sign(self - other) == 0  # type: ignore[operator]

    def __ne__(self, other: object) -> bool:
        result = self.__eq__(other)
        return result if result is NotImplemented else not result

    def __hash__(self) -> int:
        return _REAL_HASH

    def _compare(self, other: Any) -> Optional[int]:
        if isinstance(other, float):
            if math.isinf(other):
                return -1 if other > 0 else 1
            other = Fraction(other)
        if not is_exact_number(other):
            return None
        return sign(self - other)

    def __lt__(self, other):
        c = self._compare(other)
        return NotImplemented if c is None else c < 0

    def __le__(self, other):
        c = self._compare(other)
        return NotImplemented if c is None else c <= 0

    def __gt__(self, other):
        c = self._compare(other)
        return NotImplemented if c is None else c > 0

    def __ge__(self, other):
        c = self._compare(other)
        return NotImplemented if c is None else c >= 0

    def __bool__(self) -> bool:
        return self.sign() != 0

    # ---- arithmetic (a finite float operand is read at its exact binary value) -------------

    def __add__(self, other):
        other = _operand(other)
        return NotImplemented if other is None else add(self, other)

    def __radd__(self, other):
        other = _operand(other)
        return NotImplemented if other is None else add(other, self)

    def __sub__(self, other):
        other = _operand(other)
        return NotImplemented if other is None else sub(self, other)

    def __rsub__(self, other):
        other = _operand(other)
        return NotImplemented if other is None else sub(other, self)

    def __mul__(self, other):
        other = _operand(other)
        return NotImplemented if other is None else mul(self, other)

    def __rmul__(self, other):
        other = _operand(other)
        return NotImplemented if other is None else mul(other, self)

    def __truediv__(self, other):
        other = _operand(other)
        return NotImplemented if other is None else div(self, other)

    def __rtruediv__(self, other):
        other = _operand(other)
        return NotImplemented if other is None else div(other, self)

    def __neg__(self):
        return neg(self)

    def __pos__(self):
        return self

    def __abs__(self):
        return absolute(self)

    # ---- conversions ------------------------------------------------------------------------

    def __float__(self) -> float:
        """The nearest float (approximately: for printing and plotting only); 0.0 for a true
        zero, ``inf`` beyond the float range."""
        b = self.ball(LADDER_LOW[0])
        for prec in LADDER:
            b = self.ball(prec)
            if b.is_finite() and not b.contains(0) and b.rel_accuracy_bits() >= 60:
                return float(b.mid())
        try:
            if self.sign() == 0:
                return 0.0
        except Undecided:
            pass
        return float(b.mid()) if b.is_finite() else math.nan

    def __floor__(self) -> int:
        return floor(self)

    def describe(self) -> str:
        """A readable form of the expression (abbreviated when large)."""
        return _describe(self, 0)

    def __repr__(self) -> str:
        return f"Real({self.describe()})"

    def __reduce__(self):
        raise TypeError("exact reals cannot be pickled")


def ball_of(x: Number, prec: int) -> arb:
    """An Arb ball of the exact number ``x`` at ``prec`` bits (in the working precision of the
    caller, e.g. inside an enclosure function)."""
    if isinstance(x, Real):
        return x.ball(prec)
    with _Workprec(prec):
        return _arb_of(Fraction(x))


def _operand(x: Any) -> Optional[Number]:
    """An arithmetic operand as an exact number (None when it is not a number)."""
    if isinstance(x, float):
        return Fraction(x) if math.isfinite(x) else None
    return x if is_exact_number(x) else None


def _ball_sign(b: arb) -> Optional[int]:
    if b > 0:
        return 1
    if b < 0:
        return -1
    if b.is_zero():
        return 0
    return None


def _node(op: str, *args: Number, label: str = "") -> Real:
    args = tuple(a if isinstance(a, (Real, Fraction)) else Fraction(a) for a in args)
    key = (op,) + tuple(_token(a) for a in args)
    found = _INTERNED.get(key)
    if found is not None:
        return found
    node = Real(op, args, label)
    _INTERNED[key] = node
    return node


# ---------------------------------------------------------------------------------------
# constructors and operations (rational operands stay rational)
# ---------------------------------------------------------------------------------------


def sign(x: Number) -> int:
    """The sign of an exact number (``Undecided`` when it cannot be decided)."""
    if isinstance(x, Real):
        return x.sign()
    return (x > 0) - (x < 0)


def add(a: Number, b: Number) -> Number:
    if is_rational(a) and is_rational(b):
        return a + b
    if is_rational(a) and a == 0:
        return b
    if is_rational(b) and b == 0:
        return a
    if isinstance(b, Real) and b.op == "neg" and b.args[0] is a:
        return 0
    return _node("add", a, b)


def neg(a: Number) -> Number:
    if is_rational(a):
        return -a
    if a.op == "neg":  # type: ignore[union-attr]
        return a.args[0]  # type: ignore[union-attr]
    return _node("neg", a)


def sub(a: Number, b: Number) -> Number:
    if a is b:
        return 0
    if is_rational(a) and is_rational(b):
        return a - b
    return add(a, neg(b))


def mul(a: Number, b: Number) -> Number:
    if is_rational(a) and is_rational(b):
        return a * b
    for x, y in ((a, b), (b, a)):
        if is_rational(x):
            if x == 0:
                return 0
            if x == 1:
                return y
    if a is b and isinstance(a, Real) and a.op == "sqrt":
        return a.args[0]          # sqrt x * sqrt x = x, for x >= 0
    return _node("mul", a, b)


def div(a: Number, b: Number) -> Number:
    """``a / b``; the caller has established ``b != 0``."""
    if is_rational(a) and is_rational(b):
        return Fraction(a) / Fraction(b)
    if is_rational(b) and b == 1:
        return a
    if is_rational(a) and a == 0:
        return 0
    if a is b:
        return 1
    return _node("div", a, b)


def absolute(a: Number) -> Number:
    if is_rational(a):
        return abs(a)
    if a.nonnegative:  # type: ignore[union-attr]
        return a
    if a.op == "neg":  # type: ignore[union-attr]
        return absolute(a.args[0])  # type: ignore[union-attr]
    return _node("abs", a)


def minimum(a: Number, b: Number) -> Number:
    if is_rational(a) and is_rational(b):
        return b if b < a else a
    return a if a is b else _node("min", a, b)


def maximum(a: Number, b: Number) -> Number:
    if is_rational(a) and is_rational(b):
        return b if b > a else a
    return a if a is b else _node("max", a, b)


def sqrt(x: Number) -> Number:
    """``sqrt x`` for ``x >= 0`` (the caller checks the domain); exact on perfect squares."""
    if is_rational(x):
        q = Fraction(x)
        rn, rd = math.isqrt(q.numerator), math.isqrt(q.denominator)
        if rn * rn == q.numerator and rd * rd == q.denominator:
            return Fraction(rn, rd)
    return _node("sqrt", x)


def exp(x: Number) -> Number:
    if is_rational(x) and x == 0:
        return Fraction(1)
    if isinstance(x, Real) and x.op == "log":
        return x.args[0]
    return _node("exp", x)


def expm1(x: Number) -> Number:
    """``exp x - 1``, enclosed without cancellation near 0."""
    if is_rational(x) and x == 0:
        return Fraction(0)
    return _node("expm1", x)


def log(x: Number) -> Number:
    """``log x`` for ``x > 0`` (the caller checks the domain)."""
    if is_rational(x) and x == 1:
        return Fraction(0)
    if isinstance(x, Real) and x.op == "exp":
        return x.args[0]
    return _node("log", x)


def lgamma(x: Number) -> Number:
    """``ln Gamma(x)`` for ``x > 0``."""
    if is_rational(x) and x in (1, 2):
        return Fraction(0)
    return _node("lgamma", x)


def erf(x: Number) -> Number:
    if is_rational(x) and x == 0:
        return Fraction(0)
    return _node("erf", x)


def erfc(x: Number) -> Number:
    if is_rational(x) and x == 0:
        return Fraction(1)
    return _node("erfc", x)


_PI: Optional[Real] = None


def pi() -> Real:
    global _PI
    if _PI is None:
        _PI = _node("pi")
    return _PI


def enclosed(enclose: Callable[[int], arb], label: str, key: Optional[tuple] = None,
             nonnegative: bool = False) -> Real:
    """A number known through ``enclose(prec)``, a function returning an Arb ball that contains
    it, computed at working precision ``prec`` (balls must shrink as ``prec`` grows). It has
    no exact form: exact simplification treats it as an unknown real (``nonnegative`` when the
    caller knows it is >= 0), so an expression that simplifies to 0 for every value of it is
    0; two numbers made with the same hashable ``key`` are one object (equal by identity):
    callers give a key that determines the number (e.g. a canonical form of the parameters)."""
    if key is None:
        return Real("enclosed", (enclose,), label, nonnegative)
    full = ("enclosed",) + key
    found = _INTERNED.get(full)
    if found is None:
        found = _INTERNED[full] = Real("enclosed", (enclose,), label, nonnegative)
    return found


def power(x: Number, n: int) -> Number:
    """``x ** n`` for an integer ``n`` (``x != 0`` when ``n < 0``)."""
    if is_rational(x):
        return Fraction(x) ** n
    out: Number = Fraction(1)
    base, k = x, abs(n)
    while k:
        if k & 1:
            out = mul(out, base)
        k >>= 1
        if k:
            base = mul(base, base)
    return div(1, out) if n < 0 else out


def floor(x: Number) -> int:
    """The largest integer ``<= x``, exactly."""
    if is_rational(x):
        return math.floor(x)
    for prec in LADDER:
        b = x.ball(prec)  # type: ignore[union-attr]
        if b.is_finite():
            with _Workprec(prec):  # arb rounds every result to the working precision
                k = b.floor().unique_fmpz()
            if k is not None:
                return int(k)
    q = _as_rational(x)  # the balls straddle an integer: is x that integer?
    if q is not None:
        return math.floor(q)
    if _form_of(x) is not None:  # not a rational, so not an integer: more bits will tell
        for prec in _beyond_ladder():
            b = x.ball(prec)  # type: ignore[union-attr]
            with _Workprec(prec):
                k = b.floor().unique_fmpz() if b.is_finite() else None
            if k is not None:
                return int(k)
    raise Undecided(f"floor ({x.describe()})")  # type: ignore[union-attr]


def ceil(x: Number) -> int:
    return -floor(neg(x))


def floor_log2(x: Number) -> int:
    """``floor(log2 x)`` for ``x > 0``, exactly."""
    if is_rational(x):
        q = Fraction(x)
        p, d = q.numerator, q.denominator
        e = p.bit_length() - d.bit_length()
        if (p << max(0, -e)) < (d << max(0, e)):
            e -= 1
        return e
    guess = None
    for prec in LADDER:
        b = x.ball(prec)  # type: ignore[union-attr]
        if b.is_finite() and b > 0:
            guess = b.mid().man_exp()
            m, e = guess
            guess = int(e) + int(m).bit_length() - 1
            break
    if guess is None:
        raise Undecided(f"log2 ({x.describe()})")  # type: ignore[union-attr]
    for e in (guess - 1, guess, guess + 1):  # 2^e <= x < 2^(e+1)
        if sign(sub(x, _pow2(e))) >= 0 and sign(sub(x, _pow2(e + 1))) < 0:
            return e
    raise Undecided(f"log2 ({x.describe()})")  # type: ignore[union-attr]


def _pow2(e: int) -> Fraction:
    return Fraction(1 << e) if e >= 0 else Fraction(1, 1 << -e)


def rational_above(x: Number, bits: int = 64) -> Fraction:
    """The least multiple of ``2 ** (floor(log2 x) - bits)`` that is ``>= x``, for ``x > 0``:
    a rational upper bound within a relative ``2 ** -bits`` of ``x`` that depends only on the
    value of ``x`` (not on how it was computed). Rationals are returned unchanged."""
    if is_rational(x):
        return Fraction(x)
    step = _pow2(floor_log2(x) - bits)
    return ceil(div(x, step)) * step


def canonical(x: Number) -> Number:
    """``x`` as a rational when exact simplification shows it is one, else ``x`` (a value
    equal to a rational must hash like it to be found in a dictionary)."""
    if not isinstance(x, Real):
        return x
    q = _as_rational(x)
    return x if q is None else q


def _as_rational(x: Real) -> Optional[Fraction]:
    form = _form_of(x)
    if form is not None:     # decided: a number of the fragment is rational or it is not
        return forms.as_rational(form)
    s = _to_sympy(x)
    if s is None:
        return None
    if s.is_Rational:
        return Fraction(int(s.p), int(s.q))
    import sympy as sp
    try:
        s = sp.simplify(s)
    except Exception:  # noqa: BLE001 - sympy may fail on any input; then not known rational
        return None
    return Fraction(int(s.p), int(s.q)) if s.is_Rational else None


# ---------------------------------------------------------------------------------------
# the decidable fragment (exact_forms)
# ---------------------------------------------------------------------------------------


def _beyond_ladder() -> Iterator[int]:
    prec = LADDER[-1] * 2
    while prec <= MAX_PRECISION:
        yield prec
        prec *= 2


def _refined_sign(x: Real) -> int:
    """The sign of a number of the decidable fragment known to be nonzero: its enclosures at
    increasing precision exclude 0 eventually (``Undecided`` beyond ``MAX_PRECISION``)."""
    for prec in LADDER_HIGH + tuple(_beyond_ladder()):
        s = _ball_sign(x.ball(prec))
        if s is not None:
            return s
    raise Undecided(f"{x.describe()} (nonzero, but its sign needs more than {MAX_PRECISION} bits)")


_FORM_OF = {
    "add": lambda a, b: forms.q_add(a, b),
    "mul": forms.q_mul,
    "div": forms.q_div,
    "neg": lambda a: forms.q_mul((forms.rational(-1), forms.ONE), a),
    "sqrt": forms.q_sqrt,
    "exp": forms.q_exp,
    "expm1": lambda a: forms.q_add(forms.q_exp(a), (forms.ONE, forms.ONE), -1),
    "log": forms.q_log,
    "lgamma": forms.q_lgamma,
    "pi": forms.q_pi,
}


def _form_of(x: Real) -> Optional["forms.Quotient"]:
    """``x`` as a quotient of canonical forms (``exact_forms``), or None when it is outside the
    decidable fragment (cached on every node)."""
    if x._form is not None:
        return x._form or None
    for n in _nodes(x):
        if n._form is not None:
            continue
        try:
            n._form = _node_form(n)
        except (forms.Outside, Undecided, ZeroDivisionError):
            n._form = False
        if n._form is False and n is not x:
            x._form = False
            return None
    return x._form or None


def _node_form(n: Real) -> "forms.Quotient":
    if n.op not in _FORM_OF and n.op not in ("abs", "min", "max"):
        raise forms.Outside()   # erf, erfc, numbers known only by enclosures
    args = []
    for a in n.args:
        if isinstance(a, Real):
            if a._form is False:
                raise forms.Outside()
            args.append(a._form)
        else:
            args.append((forms.rational(a), forms.ONE))
    if n.op in _FORM_OF:
        return _FORM_OF[n.op](*args)
    # abs, min, max: through the signs of their arguments
    if n.op == "abs":
        return args[0] if sign(n.args[0]) >= 0 else _FORM_OF["neg"](args[0])
    first_smaller = sign(sub(n.args[0], n.args[1])) <= 0
    return args[0] if first_smaller == (n.op == "min") else args[1]


# ---------------------------------------------------------------------------------------
# exact simplification (sympy)
# ---------------------------------------------------------------------------------------


def _nodes(x: Real) -> Iterator[Real]:
    """The distinct nodes of ``x``, every node after its arguments (post-order)."""
    expanded: set = set()
    done: set = set()
    stack: List[Tuple[Real, bool]] = [(x, False)]
    while stack:
        n, ready = stack.pop()
        if ready:
            if id(n) not in done:
                done.add(id(n))
                yield n
            continue
        if id(n) in expanded:
            continue
        expanded.add(id(n))
        stack.append((n, True))
        stack.extend((a, False) for a in n.args if isinstance(a, Real) and id(a) not in expanded)


def _to_sympy(x: Real) -> Any:
    """The sympy form of ``x`` (cached), or None when it has an enclosure node or is too
    large."""
    if x._sympy is not None:
        return x._sympy if x._sympy is not False else None
    nodes = list(itertools.islice(_nodes(x), MAX_SYMBOLIC_NODES + 1))
    if len(nodes) > MAX_SYMBOLIC_NODES:
        x._sympy = False
        return None
    import sympy as sp
    build = {
        "add": lambda a, b: a + b, "mul": lambda a, b: a * b, "div": lambda a, b: a / b,
        "neg": lambda a: -a, "abs": sp.Abs, "min": sp.Min, "max": sp.Max, "exp": sp.exp,
        "log": sp.log, "sqrt": sp.sqrt, "expm1": lambda a: sp.exp(a) - 1, "lgamma": sp.loggamma,
        "erf": sp.erf, "erfc": sp.erfc, "pi": lambda: sp.pi,
    }
    for n in nodes:
        if n._sympy is not None:
            continue
        if n.op == "enclosed" or _costly_for_sympy(n):
            # an unknown real: what is true for all of them is true for it (sympy would
            # compute lgamma of a large integer as a factorial, and keep huge rationals exact)
            name = f"opaque_{id(n)}"
            _ENCLOSED[name] = n
            n._sympy = sp.Symbol(name, real=True, nonnegative=True if n.nonnegative else None)
            continue
        args = [a._sympy if isinstance(a, Real) else sp.Rational(a.numerator, a.denominator)
                if isinstance(a, Fraction) else sp.Integer(a) for a in n.args]
        n._sympy = build[n.op](*args)
    return x._sympy


#: sympy works on rationals of at most this many bits and on lgamma of arguments at most this big
_SYMPY_MAX_BITS = 2048
_SYMPY_MAX_LGAMMA = 1000


def _costly_for_sympy(n: Real) -> bool:
    """Whether sympy would spend unbounded effort on this node's own form: ``abs``, ``min`` and
    ``max`` (sympy decides them by numerical evaluation as it builds them), a rational argument
    beyond ``_SYMPY_MAX_BITS`` bits, or ``lgamma`` of a rational beyond ``_SYMPY_MAX_LGAMMA``
    (evaluated as a factorial). Such a node enters sympy as an unknown real."""
    if n.op in ("abs", "min", "max"):  # sympy compares their arguments numerically (evalf)
        return True
    for a in n.args:
        if isinstance(a, Fraction) and max(a.numerator.bit_length(),
                                           a.denominator.bit_length()) > _SYMPY_MAX_BITS:
            return True
    if n.op == "lgamma" and isinstance(n.args[0], Fraction) and abs(n.args[0]) > _SYMPY_MAX_LGAMMA:
        return True
    return False


def _symbolic_sign(x: Real, simplify: bool) -> Optional[int]:
    """The sign of ``x`` from its sympy form (``simplify``: after ``sympy.simplify``), or
    None when that does not decide it."""
    s = _to_sympy(x)
    if s is None:
        return None
    import sympy as sp
    if simplify:
        if s.count_ops() > MAX_SIMPLIFY_OPS:
            return None
        try:
            s = sp.simplify(s)
        except Exception:  # noqa: BLE001 - sympy may fail on any input; then undecided
            return None
    if s == 0:
        return 0
    if s.is_Rational:
        return 1 if s > 0 else -1
    if not simplify:
        return None
    back = _from_sympy(s)
    if back is None:
        return None
    for prec in LADDER:
        found = _ball_sign(back.ball(prec)) if isinstance(back, Real) else sign(back)
        if found is not None:
            return found
    return None


def _from_sympy(s: Any) -> Optional[Number]:
    """A ``Real`` for a sympy expression of the supported functions, else None."""
    import sympy as sp
    if s.is_Rational:
        return Fraction(int(s.p), int(s.q))
    if s is sp.pi:
        return pi()
    if s is sp.E:
        return exp(1)
    if isinstance(s, sp.Symbol):
        return _ENCLOSED.get(s.name)
    args = [_from_sympy(a) for a in s.args]
    if any(a is None for a in args):
        return None
    if isinstance(s, sp.Add):
        out: Number = args[0]
        for a in args[1:]:
            out = add(out, a)
        return out
    if isinstance(s, sp.Mul):
        out = args[0]
        for a in args[1:]:
            out = mul(out, a)
        return out
    if isinstance(s, sp.Pow):
        base, ex = args
        if is_rational(ex) and Fraction(ex).denominator == 1:
            return power(base, int(ex)) if (int(ex) >= 0 or sign(base) != 0) else None
        if ex == Fraction(1, 2):
            return sqrt(base)
        if ex == Fraction(-1, 2):
            return div(1, sqrt(base))
        return exp(mul(ex, log(base))) if sign(base) > 0 else None
    unary = {sp.exp: exp, sp.log: log, sp.loggamma: lgamma, sp.erf: erf, sp.erfc: erfc,
             sp.Abs: absolute}
    for kind, fn in unary.items():
        if isinstance(s, kind) and len(args) == 1:
            return fn(args[0])
    if isinstance(s, (sp.Min, sp.Max)):
        out = args[0]
        for a in args[1:]:
            out = minimum(out, a) if isinstance(s, sp.Min) else maximum(out, a)
        return out
    return None


# ---------------------------------------------------------------------------------------
# printing
# ---------------------------------------------------------------------------------------

_SYMBOL = {"add": "+", "mul": "*", "div": "/"}


def _describe(x: Number, depth: int) -> str:
    if not isinstance(x, Real):
        q = Fraction(x)
        return _integer_text(q.numerator) if q.denominator == 1 else \
            f"{_integer_text(q.numerator)}/{_integer_text(q.denominator)}"
    if depth > 6:
        return "…"
    if x.op == "pi":
        return "pi"
    if x.op == "enclosed":
        return x.label
    parts = [_describe(a, depth + 1) for a in x.args]
    if x.op in _SYMBOL:
        return f"({parts[0]} {_SYMBOL[x.op]} {parts[1]})"
    if x.op == "neg":
        return f"-{parts[0]}"
    return f"{x.op} ({', '.join(parts)})"


#: the most bits an integer of a description is printed with (Python refuses to convert
#: integers of more than 4300 digits to text; a description is for people)
_DESCRIBED_BITS = 256


def _integer_text(n: int) -> str:
    """``n`` in decimal, or, beyond ``_DESCRIBED_BITS`` bits, its size (``2^-3000000`` was an
    internal error when an R011 message described it)."""
    if n.bit_length() <= _DESCRIBED_BITS:
        return str(n)
    return f"<{'-' if n < 0 else ''}an integer of {n.bit_length()} bits>"


def decimal_text(x: Real, digits: int = 17) -> str:
    """``x`` in decimal scientific notation from its enclosure (for numbers beyond the float
    range), e.g. ``1.9700711140170469939e+434``."""
    for prec in LADDER:
        b = x.ball(max(prec, digits * 4))
        if b.is_finite() and b.rel_accuracy_bits() >= digits * 4:
            return b.str(digits, radius=False)
    return x.describe()


__all__ = [
    "Real", "Undecided", "is_rational", "is_exact_number", "sign", "add", "sub", "mul", "div",
    "neg", "absolute", "minimum", "maximum", "sqrt", "exp", "expm1", "log", "lgamma", "erf", "erfc",
    "pi", "enclosed", "ball_of", "power", "floor", "ceil", "floor_log2", "rational_above", "canonical",
    "decimal_text", "LADDER",
]
