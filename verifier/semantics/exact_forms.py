"""Canonical forms of the exact reals whose zero test is decidable (docs/reals.md, "The
decidable fragment").

``reals.Real`` decides a sign by enclosures first; an enclosure can only show that a number is
*not* 0. This module decides whether a number *is* 0 for every number of the fragment ``F``
built from rationals by

* ``+ - * /``, ``abs``, ``min``, ``max`` (the last three through the signs of their arguments),
* ``sqrt q`` and ``log q`` for a positive rational ``q`` (and ``log`` of a product of a rational,
  square roots of rationals and ``exp`` of a rational),
* ``exp r`` for a rational ``r`` (and ``exp`` of ``r + sum_j c_j log q_j`` with half-integer
  ``c_j``: a product of ``e^r`` and square roots), ``pi``, and ``lgamma n`` for an integer
  ``1 <= n <= MAX_LGAMMA`` (``log ((n - 1)!)``),

with one restriction: a number may combine ``exp r`` (``r != 0``) with square roots, but not with
``log`` or ``pi``, and ``log`` / ``pi`` enter linearly (a product of two of them is outside ``F``).

Every number of ``F`` is a quotient ``N / D`` of two *forms*:

* an **exponential polynomial** ``sum_r b_r e^r`` (distinct rationals ``r``) whose coefficients
  ``b_r`` are **radicals** ``sum_m q_m sqrt m`` (positive integers ``m`` no two of which have a
  product that is a perfect square, so that no ``sqrt m`` is a rational multiple of another);
* or a **logarithmic form** ``a + b pi + sum_q c_q log q`` with radical coefficients.

The zero tests are theorems, not heuristics:

* a radical is 0 iff all its coefficients are (square roots of rationals whose quotients are
  irrational are linearly independent over Q: Besicovitch 1940);
* an exponential polynomial is 0 iff all its coefficients are (``e^r`` for distinct algebraic
  ``r`` are linearly independent over the algebraic numbers: Lindemann-Weierstrass);
* a logarithmic form is 0 iff ``a``, ``b`` and the coefficient of every element of a coprime
  basis of the ``q``'s are (Baker 1966: if ``log a_1 .. log a_n`` of algebraic ``a_i`` are
  linearly independent over Q, then ``1, log a_1 .. log a_n`` are linearly independent over the
  algebraic numbers; logarithms of pairwise coprime integers > 1 are, and so is ``i pi = log (-1)``
  with them).

``form_of(node)`` returns the quotient of a ``Real`` node, or ``None`` when the node is outside
``F``; ``is_zero`` and ``as_rational`` decide. Nothing here guesses: a number outside ``F`` is
left to the caller (enclosures, sympy, or ``Undecided``).
"""
from __future__ import annotations

import math
from fractions import Fraction
from typing import Dict, List, Optional, Tuple

#: The largest integer n of which lgamma n = log ((n - 1)!) is put in the fragment.
MAX_LGAMMA = 2000
#: The largest |integer power| of a rational computed for exp (c log q) with half-integer c.
MAX_POWER = 4096
#: The most terms a form may have (a product of sums grows as the product of their sizes).
MAX_TERMS = 4096


class Outside(Exception):
    """The number is not in the decidable fragment."""


def _is_square(n: int) -> Optional[int]:
    """The integer square root of ``n >= 0`` when ``n`` is a perfect square, else None."""
    r = math.isqrt(n)
    return r if r * r == n else None


# ---------------------------------------------------------------------------------------
# radicals: sum_m q_m sqrt m
# ---------------------------------------------------------------------------------------

Radical = Dict[int, Fraction]      # radicand m >= 1 -> rational coefficient (never 0)


def _radical_add_term(out: Radical, m: int, q: Fraction) -> None:
    """``out += q sqrt m``, keeping the radicands pairwise non-proportional."""
    if q == 0:
        return
    for m2 in out:
        s = _is_square(m * m2)
        if s is not None:      # sqrt m = sqrt (m m2) / sqrt m2 = (s / m2) sqrt m2
            c = out[m2] + q * Fraction(s, m2)
            if c == 0:
                del out[m2]
            else:
                out[m2] = c
            return
    out[m] = q


def _radical(q: Fraction, m: int = 1) -> Radical:
    out: Radical = {}
    _radical_add_term(out, m, Fraction(q))
    return out


def _radical_add(a: Radical, b: Radical, sign: int = 1) -> Radical:
    out = dict(a)
    for m, q in b.items():
        _radical_add_term(out, m, sign * q)
    return out


def _radical_mul(a: Radical, b: Radical) -> Radical:
    out: Radical = {}
    for m1, q1 in a.items():
        for m2, q2 in b.items():
            _radical_add_term(out, m1 * m2, q1 * q2)
    _check_size(len(out))
    return out


def _radical_scale(a: Radical, q: Fraction) -> Radical:
    return {m: c * q for m, c in a.items()} if q != 0 else {}


def _radical_rational(a: Radical) -> Optional[Fraction]:
    """The rational value of ``a`` when it has no irrational term."""
    if not a:
        return Fraction(0)
    if len(a) == 1 and 1 in a:
        return a[1]
    return None


def _sqrt_rational(q: Fraction) -> Radical:
    """``sqrt q`` for a rational ``q >= 0``: ``sqrt (n / d) = sqrt (n d) / d``."""
    if q < 0:
        raise Outside()
    if q == 0:
        return {}
    return _radical(Fraction(1, q.denominator), q.numerator * q.denominator)


def _check_size(n: int) -> None:
    if n > MAX_TERMS:
        raise Outside()


# ---------------------------------------------------------------------------------------
# forms
# ---------------------------------------------------------------------------------------


class Form:
    """An exponential polynomial (``exps``: exponent -> radical) or a logarithmic form
    (``exps`` holds only the constant term at exponent 0, ``pi`` and ``logs``: positive
    rational != 1 -> radical coefficient). A form with only a constant term is both."""

    __slots__ = ("exps", "pi", "logs")

    def __init__(self, exps: Optional[Dict[Fraction, Radical]] = None, pi: Optional[Radical] = None,
                 logs: Optional[Dict[Fraction, Radical]] = None):
        self.exps = {r: c for r, c in (exps or {}).items() if c}
        self.pi = pi or {}
        self.logs = {q: c for q, c in (logs or {}).items() if c}
        if self.is_logarithmic() and any(r != 0 for r in self.exps):
            raise Outside()     # exp r (r != 0) together with log or pi
        _check_size(sum(len(c) for c in self.exps.values()) + len(self.logs))

    def is_logarithmic(self) -> bool:
        return bool(self.pi or self.logs)

    def constant(self) -> Radical:
        return self.exps.get(Fraction(0), {})

    def rational(self) -> Optional[Fraction]:
        """The rational value of a form with only a rational constant term (syntactically)."""
        if self.is_logarithmic() or any(r != 0 for r in self.exps):
            return None
        return _radical_rational(self.constant())


def rational(q) -> Form:
    return Form({Fraction(0): _radical(Fraction(q))})


def _combine(a: Dict, b: Dict, sign: int) -> Dict:
    out = dict(a)
    for k, c in b.items():
        out[k] = _radical_add(out.get(k, {}), c, sign)
    return out


def add(a: Form, b: Form, sign: int = 1) -> Form:
    return Form(_combine(a.exps, b.exps, sign), _radical_add(a.pi, b.pi, sign),
                _combine(a.logs, b.logs, sign))


def _scale_log(a: Form, c: Radical) -> Form:
    """``a * c`` for a logarithmic ``a`` and a radical ``c``."""
    return Form({Fraction(0): _radical_mul(a.constant(), c)}, _radical_mul(a.pi, c),
                {q: _radical_mul(v, c) for q, v in a.logs.items()})


def mul(a: Form, b: Form) -> Form:
    if a.is_logarithmic() and b.is_logarithmic():
        raise Outside()
    if a.is_logarithmic() or b.is_logarithmic():
        log_form, other = (a, b) if a.is_logarithmic() else (b, a)
        if any(r != 0 for r in other.exps):
            raise Outside()
        return _scale_log(log_form, other.constant())
    out: Dict[Fraction, Radical] = {}
    for r1, c1 in a.exps.items():
        for r2, c2 in b.exps.items():
            out[r1 + r2] = _radical_add(out.get(r1 + r2, {}), _radical_mul(c1, c2))
    return Form(out)


def is_zero(f: Form) -> bool:
    """Whether the form is 0 (the theorems of the module docstring)."""
    if any(f.exps.values()) or f.pi:
        return False
    return all(not c for c in _log_coefficients(f.logs).values())


def _log_coefficients(logs: Dict[Fraction, Radical]) -> Dict[int, Radical]:
    """The coefficients of ``sum_q c_q log q`` on a coprime basis of the numerators and
    denominators of the ``q``'s: ``log q = sum_b e_qb log b``."""
    numbers = set()
    for q in logs:
        numbers.update(n for n in (q.numerator, q.denominator) if n > 1)
    basis = _coprime_basis(numbers)
    out: Dict[int, Radical] = {}
    for q, c in logs.items():
        for n, sign in ((q.numerator, 1), (q.denominator, -1)):
            for b, e in _exponents(n, basis):
                out[b] = _radical_add(out.get(b, {}), _radical_scale(c, Fraction(sign * e)))
    return out


def _coprime_basis(numbers) -> List[int]:
    """Pairwise coprime integers > 1 of which every one of ``numbers`` is a product of powers
    (gcd-free basis, by splitting any two elements with a common factor)."""
    basis = sorted(numbers)
    changed = True
    while changed:
        changed = False
        for i in range(len(basis)):
            for j in range(i + 1, len(basis)):
                a, b = basis[i], basis[j]
                g = math.gcd(a, b)
                if g > 1:
                    parts = {a // g, b // g, g} - {1}
                    basis = sorted(set(basis[:i] + basis[i + 1:j] + basis[j + 1:]) | parts)
                    changed = True
                    break
            if changed:
                break
        if len(basis) > MAX_TERMS:
            raise Outside()
    return basis


def _exponents(n: int, basis: List[int]) -> List[Tuple[int, int]]:
    out = []
    for b in basis:
        e = 0
        while n % b == 0:
            n //= b
            e += 1
        if e:
            out.append((b, e))
    if n != 1:
        raise AssertionError("the coprime basis does not cover its numbers")
    return out


# ---------------------------------------------------------------------------------------
# quotients N / D (D != 0)
# ---------------------------------------------------------------------------------------

Quotient = Tuple[Form, Form]
ONE = rational(1)


def q_add(a: Quotient, b: Quotient, sign: int = 1) -> Quotient:
    (n1, d1), (n2, d2) = a, b
    if d1.rational() == 1 and d2.rational() == 1:
        return add(n1, n2, sign), ONE
    return add(mul(n1, d2), mul(n2, d1), sign), mul(d1, d2)


def q_mul(a: Quotient, b: Quotient) -> Quotient:
    return mul(a[0], b[0]), mul(a[1], b[1])


def q_div(a: Quotient, b: Quotient) -> Quotient:
    """``a / b``; the caller knows ``b != 0``."""
    return mul(a[0], b[1]), mul(a[1], b[0])


def q_is_zero(a: Quotient) -> bool:
    return is_zero(a[0])


def as_rational(a: Quotient) -> Optional[Fraction]:
    """The value of ``a`` when it is a rational number, else None (decided: ``N / D = q`` iff
    ``N - q D = 0``, with ``q`` read off one coefficient of ``D``)."""
    n, d = a
    qn, qd = n.rational(), d.rational()
    if qn is not None and qd is not None:
        return qn / qd
    if is_zero(n):
        return Fraction(0)
    q = _ratio(n, d)
    if q is None or q == 0:
        return None
    return q if is_zero(add(n, mul(rational(q), d), -1)) else None


def _ratio(n: Form, d: Form) -> Optional[Fraction]:
    """The coefficient of ``n`` over that of ``d`` at the first term of ``d`` (``q sqrt m`` at
    some exponent, logarithm or pi): the only possible rational value of ``n / d``."""
    terms = [(n.exps.get(k, {}), c) for k, c in d.exps.items()]
    terms += [(n.logs.get(k, {}), c) for k, c in d.logs.items()] + [(n.pi, d.pi)]
    for cn, cd in terms:
        for m, qd in cd.items():
            return _coefficient_at(cn, m) / qd
    return None


def _coefficient_at(c: Radical, m: int) -> Fraction:
    """The rational ``x`` such that the term of ``c`` proportional to ``sqrt m`` is ``x sqrt m``."""
    for m2, q2 in c.items():
        s = _is_square(m * m2)
        if s is not None:          # sqrt m2 = (s / m) sqrt m
            return q2 * Fraction(s, m)
    return Fraction(0)


def q_rational(a: Quotient) -> Optional[Fraction]:
    """The rational value of ``a`` when both forms are syntactically rational."""
    qn, qd = a[0].rational(), a[1].rational()
    return None if qn is None or qd is None else qn / qd


# ---------------------------------------------------------------------------------------
# transcendental operations on quotients
# ---------------------------------------------------------------------------------------


def q_sqrt(a: Quotient) -> Quotient:
    q = q_rational(a)
    if q is None:
        raise Outside()
    return Form({Fraction(0): _sqrt_rational(q)}), ONE


def q_exp(a: Quotient) -> Quotient:
    """``exp a`` for a rational ``a``, or for ``r + sum c_q log q`` with half-integer ``c_q``."""
    q = q_rational(a)
    if q is not None:
        return Form({q: _radical(Fraction(1))}), ONE
    n, d = a
    scale = d.rational()
    if scale is None or n.pi or not n.is_logarithmic():
        raise Outside()
    r = _radical_rational(n.constant())
    if r is None:
        raise Outside()
    value = _radical(Fraction(1))
    for base, c in n.logs.items():
        power = _radical_rational(c)
        if power is None:
            raise Outside()
        power = power / scale
        if (2 * power).denominator != 1 or abs(power) > MAX_POWER:
            raise Outside()
        whole = math.floor(power)
        factor = _radical(base ** whole)
        if power != whole:
            factor = _radical_mul(factor, _sqrt_rational(base))
        value = _radical_mul(value, factor)
    return Form({r / scale: value}), ONE


def q_log(a: Quotient) -> Quotient:
    """``log a`` for ``a > 0`` a product ``c e^r`` of a radical monomial ``c = q sqrt m`` and an
    exponential of a rational."""
    n, d = a
    num_r, num_c = _monomial(n)
    den_r, den_c = _monomial(d)
    logs: Dict[Fraction, Radical] = {}
    constant = _radical(num_r - den_r)
    for (q, m), sign in ((num_c, 1), (den_c, -1)):
        for base, weight in ((abs(q), Fraction(1)), (Fraction(m), Fraction(1, 2))):
            if base != 1:
                logs[base] = _radical_add(logs.get(base, {}), _radical(sign * weight))
    return Form({Fraction(0): constant}, None, logs), ONE


def _monomial(f: Form) -> Tuple[Fraction, Tuple[Fraction, int]]:
    """``(r, (q, m))`` when ``f`` is ``q sqrt m e^r``."""
    if f.is_logarithmic() or len(f.exps) != 1:
        raise Outside()
    (r, c), = f.exps.items()
    if len(c) != 1:
        raise Outside()
    (m, q), = c.items()
    return r, (q, m)


def q_pi() -> Quotient:
    return Form(pi=_radical(Fraction(1))), ONE


def q_lgamma(a: Quotient) -> Quotient:
    """``lgamma n = log ((n - 1)!)`` for an integer ``1 <= n <= MAX_LGAMMA``."""
    q = q_rational(a)
    if q is None or q.denominator != 1 or not 1 <= q <= MAX_LGAMMA:
        raise Outside()
    return q_log((rational(math.factorial(int(q) - 1)), ONE))


__all__ = ["Form", "Outside", "Quotient", "ONE", "rational", "q_add", "q_mul", "q_div", "q_is_zero",
           "as_rational", "q_rational", "q_sqrt", "q_exp", "q_log", "q_pi", "q_lgamma", "is_zero",
           "MAX_LGAMMA"]
