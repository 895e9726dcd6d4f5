"""The kernel's exact evaluator for the finite fragment (the rule ExactFinite).

``Evaluator(program).law(decl, args)`` is the output distribution of the top-level
definition ``decl`` applied to ``args``, as (value, ``Fraction``) pairs, computed exactly
from the language's semantics; ``Outside`` when the computation leaves the fragment. The
fragment:

* values: ``bool``, ``int``, rationals (``Fraction``; a real literal is exact), ``()``
  (represented by the empty tuple), tuples, functions, finite distributions;
* expressions: literals, variables, tuples, ``let`` (with tuple patterns), ``if``,
  ``fun``, application, ``+ - * /`` (``/`` is exact division), unary ``-``, ``not``,
  ``= <> < <= > >=``, ``&& ||`` (short-circuit), ``return``, ``mlet``, ``ran``;
* built-ins ``bernoulli p`` (``p`` checked to lie in [0, 1]), ``fst``, ``snd``, ``abs``,
  ``min``, ``max``;
* top-level definitions that are not recursive: a body sees the definitions before it, and a
  top-level definition shadows a built-in of the same name.

An M-value is its law (``Law``): ``return v`` is the point mass, ``mlet x = m in e`` the sum
over the support of ``m`` of ``P(m = v)`` times the law of ``e`` at ``v``, ``ran d`` the law
of the distribution ``d``. Every operation checks the kinds of its operands (the kernel does
not type-check the source), so a result is the program's true distribution whatever the
source; anything else — lists, ``match``, recursion, ``observe``, ``infer``, mechanisms,
``exp``/``log``/``sqrt``/``pi``, a division by zero, an annotation a value does not meet, more
than ``MAX_STEPS`` steps — is ``Outside``. Written for this check alone, it shares nothing
with the verifier's evaluator (``verifier/semantics``), so the two computations check each
other.
"""
from __future__ import annotations

from fractions import Fraction
from typing import Any, Dict, List, Sequence, Tuple

from verifier.language import ast as A

UNIT = ()
#: the most expressions one ``law`` may evaluate (an mlet evaluates its body once per outcome)
MAX_STEPS = 2_000_000


class Outside(Exception):
    """The computation leaves the finite fragment (the message says where)."""


class Law:
    """An M-value: its outcomes with their (positive) probabilities, keyed so that values of
    two kinds never merge (in Python ``True == 1``)."""

    def __init__(self, weighted: Sequence[Tuple[Any, Fraction]]):
        self.items: Dict[Any, Tuple[Any, Fraction]] = {}
        for v, p in weighted:
            k = _key(v)
            self.items[k] = (v, self.items.get(k, (v, Fraction(0)))[1] + p)
        self.items = {k: vp for k, vp in self.items.items() if vp[1] != 0}

    def weighted(self) -> List[Tuple[Any, Fraction]]:
        return list(self.items.values())


class Dist(Law):
    """A symbolic distribution ``D[T]`` with finite support (not an M-value)."""


def _key(v: Any) -> Any:
    if isinstance(v, bool):
        return ("bool", v)
    if isinstance(v, tuple):
        return ("tuple",) + tuple(_key(x) for x in v)
    return ("value", v)


class Closure:
    def __init__(self, params: Tuple[A.Pattern, ...], body: A.Expr, env: Dict[str, Any],
                 before: int):
        self.params, self.body, self.env, self.before = params, body, env, before


class Builtin:
    def __init__(self, name: str):
        self.name = name


def _monadic(v: Any) -> bool:
    return isinstance(v, Law) and not isinstance(v, Dist)


def _number(v: Any) -> bool:
    return isinstance(v, (int, Fraction)) and not isinstance(v, bool)


def _need(ok: bool, what: str, e: A.Node) -> None:
    if not ok:
        raise Outside(f"{what} (line {e.span.line})")


class Evaluator:
    """Exact evaluation of the definitions of one program (see the module docstring)."""

    def __init__(self, program: A.Program):
        self.lets = program.lets()
        self.globals: Dict[int, Any] = {}  # position of a top-level definition -> its value
        self.steps = 0

    def law(self, decl: A.LetDecl, args: Sequence[Any]) -> List[Tuple[Any, Fraction]]:
        position = next(i for i, d in enumerate(self.lets) if d is decl)
        self.steps = 0
        value = self.top(position, decl)
        for arg in args:
            value = self.apply(value, arg, decl)
        _need(_monadic(value), f"{decl.name} does not return a distribution", decl)
        return value.weighted()

    def top(self, i: int, e: A.Node) -> Any:
        """The value of the top-level definition at position ``i``."""
        d = self.lets[i]
        _need(not d.recursive, f"{d.name} is recursive", e)
        if i not in self.globals:
            self.globals[i] = (Closure(d.params, d.body, {}, i) if d.params
                               else self.eval(d.body, {}, i))
        return self.globals[i]

    def lookup(self, e: A.Var, env: Dict[str, Any], before: int) -> Any:
        if e.name in env:
            return env[e.name]
        for i in range(before - 1, -1, -1):
            if self.lets[i].name == e.name:
                return self.top(i, e)
        _need(e.name in BUILTINS, f"{e.name} is outside the finite fragment", e)
        return Builtin(e.name)

    def eval(self, e: A.Expr, env: Dict[str, Any], before: int) -> Any:
        self.steps += 1
        _need(self.steps <= MAX_STEPS, f"more than {MAX_STEPS} steps", e)
        if isinstance(e, (A.BoolLit, A.IntLit)):
            return e.value
        if isinstance(e, A.RealLit):
            return Fraction(e.value)
        if isinstance(e, A.UnitLit):
            return UNIT
        if isinstance(e, A.Var):
            return self.lookup(e, env, before)
        if isinstance(e, A.TupleLit):
            return tuple(self.eval(x, env, before) for x in e.items)
        if isinstance(e, A.Let):
            value = self.eval(e.value, env, before)
            return self.eval(e.body, bind(e.pattern, value, env), before)
        if isinstance(e, A.If):
            cond = self.eval(e.cond, env, before)
            _need(isinstance(cond, bool), "the condition of an if is not a bool", e)
            return self.eval(e.then if cond else e.else_, env, before)
        if isinstance(e, A.Fun):
            return Closure(e.params, e.body, env, before)
        if isinstance(e, A.App):
            return self.apply(self.eval(e.fn, env, before), self.eval(e.arg, env, before), e)
        if isinstance(e, A.BinOp):
            return self.binop(e, env, before)
        if isinstance(e, A.UnOp):
            v = self.eval(e.operand, env, before)
            if e.op == "not":
                _need(isinstance(v, bool), "not of something that is not a bool", e)
                return not v
            _need(e.op == "-" and _number(v), f"{e.op} of something that is not a number", e)
            return -v
        if isinstance(e, A.Return):
            return Law([(self.eval(e.value, env, before), Fraction(1))])
        if isinstance(e, A.Ran):
            d = self.eval(e.value, env, before)
            _need(isinstance(d, Dist), "ran of something that is not a finite distribution", e)
            return Law(d.weighted())
        if isinstance(e, A.MLet):
            m = self.eval(e.value, env, before)
            _need(_monadic(m), "mlet of something that is not a distribution", e)
            out: List[Tuple[Any, Fraction]] = []
            for v, p in m.weighted():
                k = self.eval(e.body, bind(e.pattern, v, env), before)
                _need(_monadic(k), "the body of an mlet is not a distribution", e)
                out += [(w, p * q) for w, q in k.weighted()]
            return Law(out)
        raise Outside(f"{type(e).__name__} is outside the finite fragment (line {e.span.line})")

    def binop(self, e: A.BinOp, env, before) -> Any:
        left = self.eval(e.left, env, before)
        if e.op in ("&&", "||"):
            _need(isinstance(left, bool), f"{e.op} of something that is not a bool", e)
            if left is (e.op == "||"):
                return left
            right = self.eval(e.right, env, before)
            _need(isinstance(right, bool), f"{e.op} of something that is not a bool", e)
            return right
        right = self.eval(e.right, env, before)
        if e.op in ("=", "<>"):
            return equal(left, right, e) is (e.op == "=")
        _need(_number(left) and _number(right), f"{e.op} of something that is not a number", e)
        if e.op in COMPARE:
            return COMPARE[e.op](left, right)
        if e.op == "/":
            _need(right != 0, "a division by zero", e)
            return Fraction(left) / Fraction(right)
        _need(e.op in ARITH, f"the operator {e.op} is outside the finite fragment", e)
        return ARITH[e.op](left, right)

    def apply(self, fn: Any, arg: Any, e: A.Node) -> Any:
        if isinstance(fn, Builtin):
            return BUILTINS[fn.name](arg, e)
        _need(isinstance(fn, Closure), "an application of something that is not a function", e)
        env = bind(fn.params[0], arg, fn.env)
        if len(fn.params) > 1:
            return Closure(fn.params[1:], fn.body, env, fn.before)
        return self.eval(fn.body, env, fn.before)


def equal(a: Any, b: Any, e: A.Node) -> bool:
    """The language's ``=`` on values of one finite kind (numbers compare by value)."""
    if isinstance(a, bool) or isinstance(b, bool):
        _need(isinstance(a, bool) and isinstance(b, bool), "= of values of two kinds", e)
        return a is b
    if _number(a) or _number(b):
        _need(_number(a) and _number(b), "= of values of two kinds", e)
        return a == b
    _need(isinstance(a, tuple) and isinstance(b, tuple) and len(a) == len(b),
          "= of values that are not comparable", e)
    return all(equal(x, y, e) for x, y in zip(a, b))


def bind(p: A.Pattern, v: Any, env: Dict[str, Any]) -> Dict[str, Any]:
    if isinstance(p, (A.PVar, A.PWild)) and p.annot is not None:
        _need(conforms(v, p.annot), "a value does not have the type its pattern states", p)
    if isinstance(p, A.PVar):
        return {**env, p.name: v}
    if isinstance(p, A.PWild):
        return env
    if isinstance(p, A.PUnit):
        _need(v == UNIT and isinstance(v, tuple), "() does not match", p)
        return env
    _need(isinstance(p, A.PTuple) and isinstance(v, tuple) and len(v) == len(p.items),
          "a tuple pattern does not match", p)
    for item, x in zip(p.items, v):
        env = bind(item, x, env)
    return env


def conforms(v: Any, t: A.SimpleType) -> bool:
    """Whether ``v`` has the simple type ``t`` (with its range); False for types outside
    the fragment."""
    if isinstance(t, A.TFin):
        return _number(v) and v == int(v) and 0 <= v < t.k
    if isinstance(t, A.TTuple):
        return isinstance(v, tuple) and len(v) == len(t.items) and all(
            conforms(x, i) for x, i in zip(v, t.items))
    name = t.name if isinstance(t, A.TBase) else None
    checks = {"bool": lambda: isinstance(v, bool), "unit": lambda: v == UNIT,
              "int": lambda: isinstance(v, int) and not isinstance(v, bool),
              "nat": lambda: isinstance(v, int) and not isinstance(v, bool) and v >= 0,
              "real": lambda: _number(v), "real+": lambda: _number(v) and v > 0,
              "[0,1]": lambda: _number(v) and 0 <= v <= 1}
    return name in checks and checks[name]()


COMPARE = {"<": lambda a, b: a < b, "<=": lambda a, b: a <= b, ">": lambda a, b: a > b,
           ">=": lambda a, b: a >= b}
ARITH = {"+": lambda a, b: a + b, "-": lambda a, b: a - b, "*": lambda a, b: a * b}


def _pair(v: Any, e: A.Node) -> Tuple[Any, Any]:
    _need(isinstance(v, tuple) and len(v) == 2, "a pair was expected", e)
    return v


def _bernoulli(p: Any, e: A.Node) -> Dist:
    _need(_number(p) and 0 <= p <= 1, "a probability outside [0, 1]", e)
    return Dist([(True, Fraction(p)), (False, 1 - Fraction(p))])


def _numbers(v: Any, e: A.Node) -> Tuple[Any, Any]:
    a, b = _pair(v, e)
    _need(_number(a) and _number(b), "min or max of something that is not two numbers", e)
    return a, b


def _abs(v: Any, e: A.Node) -> Any:
    _need(_number(v), "abs of something that is not a number", e)
    return abs(v)


BUILTINS = {
    "bernoulli": _bernoulli,
    "fst": lambda v, e: _pair(v, e)[0], "snd": lambda v, e: _pair(v, e)[1],
    "abs": _abs,
    "min": lambda v, e: (lambda a, b: b if b < a else a)(*_numbers(v, e)),
    "max": lambda v, e: (lambda a, b: b if b > a else a)(*_numbers(v, e)),
}
