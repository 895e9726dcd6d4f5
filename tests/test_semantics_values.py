"""Run-time values: persistent lists, the numeric policy, printing and JSON."""
from __future__ import annotations

import json
import math
import time
from fractions import Fraction

import pytest

from verifier.semantics.distributions import make_beta, make_finite, make_normal
from verifier.semantics.values import (
    NIL, UNIT, Closure, Symbolic, SymbolicEscape, format_real, format_value, list_of, to_json,
    values_equal,
)


# ---- persistent lists ------------------------------------------------------------------


def test_cons_list_basic_operations():
    xs = list_of([1, 2, 3])
    assert len(xs) == 3 and xs.head == 1 and xs.tail.head == 2
    assert list(xs) == [1, 2, 3]
    ys = xs.cons(0)
    assert list(ys) == [0, 1, 2, 3] and list(xs) == [1, 2, 3]  # persistence
    assert ys.tail is xs  # O(1) cons shares the tail
    assert NIL.is_nil and len(NIL) == 0 and not NIL
    with pytest.raises(IndexError):
        NIL.head


def test_cons_list_equality_and_hash_are_structural():
    assert list_of([1, 2, 3]) == list_of([1, 2, 3])
    assert list_of([1, 2]) != list_of([1, 2, 3])
    assert list_of([True]) != list_of([1])  # bool and int differ in the language
    assert hash(list_of([1, 2, 3])) == hash(NIL.cons(3).cons(2).cons(1))
    assert hash(NIL) == hash(list_of([]))
    assert {list_of([1, 2]): "a"}[list_of([1, 2])] == "a"


def test_long_lists_are_linear_and_iterative():
    n = 100_000
    start = time.perf_counter()
    xs = list_of(range(n))
    ys = list_of(range(n))
    assert len(xs) == n and xs == ys and hash(xs) == hash(ys)
    assert format_value(xs).count(";") == n - 1
    assert len(to_json(xs)) == n
    assert time.perf_counter() - start < 30.0  # generous (loaded machines); quadratic would take hours


# ---- numbers ----------------------------------------------------------------------------


def test_real_printing():
    assert format_real(Fraction(12)) == "12.0"
    assert format_real(Fraction(1, 10)) == "0.1"
    assert format_real(Fraction(-5, 2)) == "-2.5"
    assert format_real(Fraction(1, 3)) == "0.3333333333333333"
    assert format_real(1e-8) == "1e-08"
    assert format_real(3) == "3.0"
    assert format_real(math.inf) == "infinity"
    # beyond the float range, in scientific notation (exactly, from the rational)
    assert format_real(Fraction(10) ** 400) == "1.00000000000000000e+400"
    assert format_real(Fraction(1, 10 ** 400)) == "1.00000000000000000e-400"  # not 0.0
    assert format_real(Fraction(10 ** 20 + 1)) == "1e+20"       # the nearest float
    assert format_real(Fraction(10 ** 15)) == "1000000000000000.0"


def test_values_print_in_the_language_syntax():
    assert format_value(list_of([True, False])) == "[true; false]"
    assert format_value((Fraction(3, 2), Fraction(2))) == "(1.5, 2.0)"
    assert format_value(UNIT) == "()"
    assert format_value(3) == "3"
    assert format_value(NIL) == "[]"
    assert format_value(make_beta(12, 9)) == "beta(12.0, 9.0)"
    assert format_value(make_normal(Fraction(1, 2), 2)) == "normal(0.5, 2.0)"
    assert format_value(make_finite({1: Fraction(1, 4), 0: Fraction(3, 4)})) == "finite [(0, 0.75); (1, 0.25)]"
    assert format_value(list_of([list_of([1]), NIL])) == "[[1]; []]"


def test_json_conversion():
    value = (list_of([True, False]), Fraction(1, 4), 3, UNIT, make_beta(4, 4))
    assert json.loads(json.dumps(to_json(value))) == [
        [True, False], 0.25, 3, None, {"family": "beta", "params": [4.0, 4.0]}]
    assert to_json(math.inf) == "infinity"
    finite = to_json(make_finite({1: Fraction(1, 4), 0: Fraction(3, 4)}))
    assert finite == {"family": "finite", "support": [{"value": 0, "probability": 0.75},
                                                      {"value": 1, "probability": 0.25}]}


def test_equality_of_values():
    assert values_equal(1, Fraction(1))
    assert values_equal((1, list_of([True])), (1, list_of([True])))
    assert not values_equal(True, 1)
    with pytest.raises(TypeError):
        values_equal(Closure((), None, None), 1)


def test_symbolic_placeholders_refuse_every_operation():
    class Theta(Symbolic):
        pass

    theta = Theta()
    for operation in (lambda: theta + 1, lambda: 1 - theta, lambda: theta < 1, lambda: float(theta),
                      lambda: bool(theta), lambda: values_equal(theta, 1), lambda: hash(theta)):
        with pytest.raises(SymbolicEscape):
            operation()
