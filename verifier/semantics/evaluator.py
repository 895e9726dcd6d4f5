"""Call-by-value evaluation of PrivInfer programs (LANGUAGE.md; the paper's §4 semantics).

Public API
==========

* ``Evaluator(program=None, typed=None)``: evaluates ``program``'s top-level ``let``s in order
  (``.values``: name -> value of the last definition) and then any expression or call.
  ``typed`` (a ``TypedProgram``) supplies the finite range of ``expMech (eps, score, x)``.
* ``evaluate_program(program, typed=None) -> Dict[str, Value]``.
* ``run_entry(program, entry, args, typed=None) -> Value``: the value of the top-level
  declaration ``entry`` applied to ``args`` (in parameter order).
* ``evaluate_expr(expr, bindings=None, typed=None) -> Value``: a closed expression with the
  built-ins (and ``bindings``) in scope.
* ``finite_values(t)``: the elements of a finite simple type (``bool``, ``unit``, ``[k]``,
  tuples of them), in a fixed order.

Evaluation
==========

One method per AST node class, dispatched through ``_DISPATCH`` (an unknown node class is an
internal error). Values are those of ``verifier.semantics.values``; M-values are lazy trees
(``verifier.semantics.monad``): ``return``, ``mlet``, ``observe``, ``ran`` and the mechanisms
build them without drawing anything, ``infer`` computes the exact distribution, and
``monad.sample`` draws from them. Run-time errors are ``PrivInferError``\\ s at the span of the
offending node: range conditions R001 (``beta (0.0, 1.0)``, ``bernoulli 1.5``, ``eps <= 0``,
``delta`` outside (0, 1), ``log 0.0``, ``[k]`` values out of range, annotated ranges such as
``(x : real+)``), division by zero R002, inference R003/R009, an undecidable comparison of reals
R011, other failures R006,
pattern-match failures R008.

The paper's §6.3 listing writes ``mlet rec = learnBias dbs prior in observe f rec``: the observe
is applied to the *value* bound by ``mlet``. That is ill-typed in LANGUAGE.md (a prior is an
``M[T]``), and the only reading that matches the paper's intent is ``observe f (learnBias dbs
prior)``: the parser reads it so (``parser.observe_drawn``), when ``x`` does not occur in ``f``.
(The well-typed ``observe f (return x)`` keeps its Fig. 3 meaning: an observe renormalises
locally, so conditioning the point mass does not condition ``m``.)

Deep recursion: every public entry point (and ``monad.sample`` / ``monad.infer``) runs under
``values.deep_recursion`` (CPython 3.11 does not use the C stack for Python-to-Python calls),
so recursive programs over lists of 10^4-10^5 elements work. Lists are persistent cons lists
with O(1) ``::``, ``match`` and ``length``.

Non-termination: every expression evaluated is a *step*. A run (the top-level definitions, one
``call`` or ``evaluate``, and the sampling or inference of the M-value it returned, which runs
this evaluator's continuations) may take at most ``step_budget`` steps (``STEP_BUDGET`` unless
told otherwise); the next step raises R010 "did not terminate within N steps". A recursion that
nests deeper than the interpreter's limit before the budget is spent is reported the same way
(R010, with the steps taken), by the public entry points and by ``Evaluator.terminating()``,
which callers wrap around ``monad.sample`` / ``monad.infer`` of this evaluator's M-values.
An evaluator may also be given a ``total_budget``: the steps of all its runs together, checked
when a run begins (so a search over many inputs is bounded as a whole, at no cost per step).
"""
from __future__ import annotations

import itertools
import math
import sys
from contextlib import contextmanager
from fractions import Fraction
from typing import Any, Callable, Dict, Iterator, List, Mapping, Optional, Sequence, Tuple

from verifier.errors import error
from verifier.language import ast
from verifier.language.ast import Span
from verifier.language.pretty import pretty_type
from verifier.language.supports import family_support, fits, says_ranges
from verifier.semantics import distributions as dist
from verifier.semantics import monad
from verifier.semantics import meter, reals
from verifier.semantics.distributions import Beta, Dirichlet, Distribution, Uniform
from verifier.semantics.monad import MValue, SymDraw, SymParam
from verifier.semantics.values import (
    UNIT, Builtin, Closure, ConsList, Symbolic, SymbolicEscape, Value, deep_recursion,
    release_notice, releasing, format_value, a_kind, is_number, to_real, values_equal,
)

#: The most steps (expressions evaluated) one run may take (see the module docstring).
STEP_BUDGET = 10_000_000

# --------------------------------------------------------------------------------------
# environments
# --------------------------------------------------------------------------------------


class Env:
    """A chain of frames (lexical scoping; a frame is a small dict)."""

    __slots__ = ("vars", "parent")

    def __init__(self, vars: Dict[str, Value], parent: Optional["Env"] = None):
        self.vars = vars
        self.parent = parent

    def lookup(self, name: str, span: Optional[Span]) -> Value:
        env: Optional[Env] = self
        while env is not None:
            if name in env.vars:
                return env.vars[name]
            env = env.parent
        raise error("R006", f"unbound variable {name}", span)

    def extend(self, vars: Dict[str, Value]) -> "Env":
        return Env(vars, self)


def finite_values(t: Any) -> Optional[List[Value]]:
    """The elements of a finite type of ``verifier.language.types`` (``bool``: false, true;
    ``unit``; ``[k]``: 0..k-1; tuples: the product in lexicographic order), else ``None``."""
    from verifier.language import types as ty
    t = ty.prune(t)
    if t == ty.BOOL:
        return [False, True]
    if t == ty.UNIT:
        return [UNIT]
    if isinstance(t, ty.Fin) and t.k is not None:
        return list(range(t.k))
    if isinstance(t, ty.TupleType):
        parts = [finite_values(i) for i in t.items]
        if any(p is None for p in parts):
            return None
        return [tuple(c) for c in itertools.product(*parts)]  # type: ignore[arg-type]
    return None


# --------------------------------------------------------------------------------------
# the evaluator
# --------------------------------------------------------------------------------------


class Evaluator:
    """Evaluates one program; see the module docstring."""

    def __init__(self, program: Optional[ast.Program] = None, typed: Any = None,
                 step_budget: Optional[int] = None, total_budget: Optional[int] = None):
        self.program = program
        self.typed = typed
        #: steps allowed per run (default ``STEP_BUDGET``), and steps taken since the run began
        self.step_budget = STEP_BUDGET if step_budget is None else step_budget
        self.steps = 0
        #: steps allowed to all runs together (None: no limit), and steps of the runs before
        self.total_budget, self.spent = total_budget, 0
        self.base = Env({**{name: Builtin(name, impl) for name, impl in BUILTINS.items()}, **CONSTANTS})
        self.globals = self.base
        #: name -> value of the last top-level definition of that name
        self.values: Dict[str, Value] = {}
        if program is not None:
            with deep_recursion(), self.terminating():
                for decl in program.decls:
                    if isinstance(decl, ast.LetDecl):
                        self._define(decl)

    # ---- top level -------------------------------------------------------------------

    def _define(self, decl: ast.LetDecl) -> None:
        if decl.params:
            frame = Env({}, self.globals)
            env = frame if decl.recursive else self.globals
            value: Value = Closure(decl.params, decl.body, env, decl.name)
        elif decl.recursive:
            frame = Env({}, self.globals)
            value = self.eval(decl.body, frame)
            if not isinstance(value, Closure):
                raise error("R006", f"let rec {decl.name} must define a function", decl.span)
        else:
            frame = Env({}, self.globals)
            value = self.eval(decl.body, self.globals)
        frame.vars[decl.name] = value
        self.globals = frame
        self.values[decl.name] = value

    def entry(self, name: str) -> ast.LetDecl:
        """The last top-level ``let`` of ``name`` (R004 if there is none)."""
        decl = self.program.find_let(name) if self.program is not None else None
        if decl is None:
            names = sorted({d.name for d in (self.program.lets() if self.program else ())})
            listing = ", ".join(names) if names else "none"
            raise error("R004", f"no declaration named {name!r} (declarations: {listing})")
        return decl

    def call(self, name: str, args: Sequence[Value]) -> Value:
        """The top-level ``name`` applied to ``args`` one by one."""
        decl = self.entry(name)
        self._begin_run()
        with deep_recursion(), self.terminating(decl.span):
            value = self.values[name]
            for arg in args:
                value = self.apply(value, arg, decl)
            return value

    def evaluate(self, expr: ast.Expr, bindings: Optional[Mapping[str, Value]] = None) -> Value:
        """``expr`` in the program's global scope (plus ``bindings``)."""
        env = self.globals.extend(dict(bindings)) if bindings else self.globals
        self._begin_run()
        with deep_recursion(), self.terminating():
            return self.eval(expr, env)

    def _begin_run(self) -> None:
        self.spent, self.steps = self.spent + self.steps, 0
        if self.total_budget is not None and self.spent > self.total_budget:
            raise error("R010", f"the evaluations took more than {self.total_budget} steps together",
                        hint="the search that ran them has a total budget")

    @contextmanager
    def terminating(self, span: Optional[Span] = None) -> Iterator[None]:
        """Run the body with a recursion deeper than the interpreter allows reported as
        non-termination (R010 at ``span``), like an exhausted step budget. Wrap it around
        ``monad.sample`` / ``monad.infer`` of an M-value this evaluator returned."""
        try:
            yield
        except RecursionError:
            raise error("R010", f"the evaluation did not terminate within {self.steps} steps: its "
                                f"recursion nests deeper than {sys.getrecursionlimit()} calls", span,
                        hint="a recursive call that is not on a shorter list can loop forever") from None

    # ---- expressions -------------------------------------------------------------------

    def eval(self, e: ast.Expr, env: Env) -> Value:
        self.steps += 1
        if self.steps > self.step_budget:
            if not releasing():
                raise error("R010", f"the evaluation did not terminate within {self.step_budget} "
                                    "steps", e.span,
                            hint="a recursive call that is not on a shorter list can loop forever")
            release_notice(self.step_budget)
        work = meter.CURRENT.meter   # a search's meter (meter.py): one unit per expression
        if work is not None:
            work.left -= 1
            if work.left < 0:
                raise meter.OutOfWork()
        try:
            handler = _DISPATCH[type(e)]
        except KeyError:
            raise TypeError(f"the evaluator has no case for {type(e).__name__}") from None
        return handler(self, e, env)

    def _var(self, e: ast.Var, env: Env) -> Value:
        return env.lookup(e.name, e.span)

    def _unit(self, e: ast.UnitLit, env: Env) -> Value:
        return UNIT

    def _bool(self, e: ast.BoolLit, env: Env) -> Value:
        return e.value

    def _int(self, e: ast.IntLit, env: Env) -> Value:
        return e.value

    def _real(self, e: ast.RealLit, env: Env) -> Value:
        return e.value

    def _list(self, e: ast.ListLit, env: Env) -> Value:
        return ConsList.from_sequence([self.eval(item, env) for item in e.items])

    def _tuple(self, e: ast.TupleLit, env: Env) -> Value:
        return tuple(self.eval(item, env) for item in e.items)

    def _app(self, e: ast.App, env: Env) -> Value:
        fn = self.eval(e.fn, env)
        return self.apply(fn, self.eval(e.arg, env), e)

    def _fun(self, e: ast.Fun, env: Env) -> Value:
        return Closure(e.params, e.body, env)

    def _let(self, e: ast.Let, env: Env) -> Value:
        value = self.eval(e.value, env)
        return self.eval(e.body, self.bind(e.pattern, value, env))

    def _let_rec(self, e: ast.LetRec, env: Env) -> Value:
        frame = Env({}, env)
        frame.vars[e.name] = Closure(e.params, e.value, frame, e.name)
        return self.eval(e.body, frame)

    def _if(self, e: ast.If, env: Env) -> Value:
        cond = self.eval(e.cond, env)
        if not isinstance(cond, bool):
            raise _not_a(cond, "bool", "the condition of if", e.cond.span)
        return self.eval(e.then if cond else e.else_, env)

    def _match(self, e: ast.Match, env: Env) -> Value:
        scrutinee = self.eval(e.scrutinee, env)
        if not isinstance(scrutinee, ConsList):
            raise _not_a(scrutinee, "list", "the scrutinee of match", e.scrutinee.span)
        if scrutinee.is_nil:
            return self.eval(e.nil_body, env)
        frame: Dict[str, Value] = {}
        if e.head != "_":
            frame[e.head] = scrutinee.head
        if e.tail != "_":
            frame[e.tail] = scrutinee.tail
        return self.eval(e.cons_body, env.extend(frame) if frame else env)

    def _cons(self, e: ast.Cons, env: Env) -> Value:
        head = self.eval(e.head, env)
        tail = self.eval(e.tail, env)
        if not isinstance(tail, ConsList):
            raise _not_a(tail, "list", "the right side of ::", e.tail.span)
        return tail.cons(head)

    def _binop(self, e: ast.BinOp, env: Env) -> Value:
        op = e.op
        if op in ("&&", "||"):
            left = self.eval(e.left, env)
            if not isinstance(left, bool):
                raise _not_a(left, "bool", f"the left side of {op}", e.left.span)
            if left is (op == "||"):
                return left
            right = self.eval(e.right, env)
            if not isinstance(right, bool):
                raise _not_a(right, "bool", f"the right side of {op}", e.right.span)
            return right
        left, right = self.eval(e.left, env), self.eval(e.right, env)
        if op == "=":
            if isinstance(left, SymDraw) or isinstance(right, SymDraw):
                return monad.observation(left, right)
            return self._equal(left, right, e)
        if op == "<>":
            return not self._equal(left, right, e)
        if op in ("<", "<=", ">", ">="):
            _number_operand(left, op, e.left.span)
            _number_operand(right, op, e.right.span)
            with decided(e.span):
                return _COMPARE[op](left, right)
        return arithmetic(op, left, right, e)

    def _equal(self, left: Value, right: Value, e: ast.BinOp) -> bool:
        try:
            with decided(e.span):
                return values_equal(left, right)
        except TypeError as exc:
            raise error("R006", f"cannot compare with {e.op}: {exc}", e.span) from None

    def _unop(self, e: ast.UnOp, env: Env) -> Value:
        value = self.eval(e.operand, env)
        if e.op == "not":
            if not isinstance(value, bool):
                raise _not_a(value, "bool", "the operand of not", e.operand.span)
            return not value
        _number_operand(value, "-", e.operand.span)
        return -value

    def _return(self, e: ast.Return, env: Env) -> Value:
        return monad.Return(self.eval(e.value, env))

    def _mlet(self, e: ast.MLet, env: Env) -> Value:
        m = self._m_value(self.eval(e.value, env), "the right side of mlet", e.value.span)
        body = e.body
        pattern = e.pattern

        def continuation(value: Value) -> MValue:
            result = self.eval(body, self.bind(pattern, value, env))
            return self._m_value(result, "the body of mlet", body.span)

        return monad.Bind(m, continuation, e.span)

    def _observe(self, e: ast.Observe, env: Env) -> Value:
        likelihood = self.eval(e.likelihood, env)
        prior = self.eval(e.prior, env)
        if not isinstance(prior, MValue):
            raise error("R006", f"the prior of observe must be a distribution of type M[T], got "
                                f"{a_kind(prior)}", e.prior.span,
                        hint="use `ran d` for a symbolic distribution d, or `return v` for a point mass")
        return monad.Observe(prior, self._likelihood(likelihood, e), e.span)

    def _likelihood(self, likelihood: Value, e: ast.Observe) -> Callable[[Value], MValue]:
        def weigh(value: Value) -> MValue:
            result = self.apply(likelihood, value, e.likelihood)
            return self._m_value(result, "the likelihood of observe (of type T -> M[bool])", e.likelihood.span)
        weigh.source = likelihood  # (its code: verifier.semantics.posterior.likelihood_shape)
        return weigh

    def _infer(self, e: ast.Infer, env: Env) -> Value:
        m = self._m_value(self.eval(e.value, env), "the argument of infer", e.value.span)
        return monad.infer(m, e.span)

    def _ran(self, e: ast.Ran, env: Env) -> Value:
        d = self.eval(e.value, env)
        if not isinstance(d, (Distribution, monad.SymFamily)):
            raise _not_a(d, "symbolic distribution (D[T])", "the argument of ran", e.value.span)
        return monad.Ran(d, e.span)

    def _assertion_only(self, e: ast.Expr, env: Env) -> Value:
        raise error("R006", f"{type(e).__name__} belongs to assertions and cannot be evaluated", e.span)

    # ---- application and patterns ------------------------------------------------------

    def apply(self, fn: Value, arg: Value, node: ast.Node) -> Value:
        """``fn arg``; ``node`` (the application) locates errors."""
        if isinstance(fn, Closure):
            env = self.bind(fn.params[0], arg, fn.env)
            if len(fn.params) > 1:
                return Closure(fn.params[1:], fn.body, env, fn.name)
            return self.eval(fn.body, env)
        if isinstance(fn, Builtin):
            with decided(node.span):
                return fn.impl(self, arg, node)
        if isinstance(fn, Symbolic):
            raise SymbolicEscape(f"the model applies {fn.describe()}")
        raise error("R006", f"{a_kind(fn)} is not a function", node.span)

    def bind(self, p: ast.Pattern, value: Value, env: Env) -> Env:
        frame: Dict[str, Value] = {}
        self._bind_into(p, value, frame)
        return env.extend(frame) if frame else env

    def _bind_into(self, p: ast.Pattern, value: Value, frame: Dict[str, Value]) -> None:
        if isinstance(p, ast.PVar):
            if p.annot is not None:
                value = check_annotation(value, p.annot, p.name, p.span)
            frame[p.name] = value
        elif isinstance(p, ast.PWild):
            if p.annot is not None:
                check_annotation(value, p.annot, "_", p.span)
        elif isinstance(p, ast.PUnit):
            if value is not UNIT:
                if isinstance(value, Symbolic):
                    raise SymbolicEscape(f"the model matches {value.describe()} against ()")
                raise error("R008", f"pattern () does not match {a_kind(value)}", p.span)
        elif isinstance(p, ast.PTuple):
            if isinstance(value, Symbolic):
                raise SymbolicEscape(f"the model destructures {value.describe()}")
            if not isinstance(value, tuple) or len(value) != len(p.items):
                raise error("R008", f"a tuple pattern of {len(p.items)} components does not match "
                                    f"{_describe(value)}", p.span)
            for item, v in zip(p.items, value):
                self._bind_into(item, v, frame)
        else:
            raise TypeError(f"the evaluator has no case for the pattern {type(p).__name__}")

    def _m_value(self, value: Value, what: str, span: Optional[Span]) -> MValue:
        if isinstance(value, MValue):
            return value
        if isinstance(value, Symbolic):
            raise SymbolicEscape(f"{what} is {value.describe()}")
        raise error("R006", f"{what} must be a distribution of type M[T], got {a_kind(value)}", span)


_DISPATCH: Dict[type, Callable[[Evaluator, Any, Env], Value]] = {
    ast.Var: Evaluator._var,
    ast.UnitLit: Evaluator._unit,
    ast.BoolLit: Evaluator._bool,
    ast.IntLit: Evaluator._int,
    ast.RealLit: Evaluator._real,
    ast.ListLit: Evaluator._list,
    ast.TupleLit: Evaluator._tuple,
    ast.App: Evaluator._app,
    ast.Fun: Evaluator._fun,
    ast.Let: Evaluator._let,
    ast.LetRec: Evaluator._let_rec,
    ast.If: Evaluator._if,
    ast.Match: Evaluator._match,
    ast.Cons: Evaluator._cons,
    ast.BinOp: Evaluator._binop,
    ast.UnOp: Evaluator._unop,
    ast.Return: Evaluator._return,
    ast.MLet: Evaluator._mlet,
    ast.Observe: Evaluator._observe,
    ast.Infer: Evaluator._infer,
    ast.Ran: Evaluator._ran,
    # assertion syntax: legal only inside val declarations
    ast.RunVar: Evaluator._assertion_only,
    ast.SameRuns: Evaluator._assertion_only,
    ast.Conj: Evaluator._assertion_only,
    ast.Disj: Evaluator._assertion_only,
    ast.Neg: Evaluator._assertion_only,
    ast.Implies: Evaluator._assertion_only,
    ast.Quant: Evaluator._assertion_only,
    ast.DivBound: Evaluator._assertion_only,
}


# --------------------------------------------------------------------------------------
# operators and checks
# --------------------------------------------------------------------------------------


def _describe(value: Value) -> str:
    return a_kind(value)


_COMPARE: Dict[str, Callable[[Value, Value], bool]] = {
    "<": lambda a, b: a < b, "<=": lambda a, b: a <= b, ">": lambda a, b: a > b, ">=": lambda a, b: a >= b}


class decided:
    """A context in which a comparison of exact reals that cannot be decided
    (``reals.Undecided``) becomes the run-time error R011 at ``span``."""

    __slots__ = ("span",)

    def __init__(self, span: Optional[Span]):
        self.span = span

    def __enter__(self) -> None:
        return None

    def __exit__(self, kind, exc, tb) -> bool:
        if kind is not None and issubclass(kind, reals.Undecided):
            raise undecided_error(exc, self.span) from None
        return False


def undecided_error(exc: "reals.Undecided", span: Optional[Span]) -> Exception:
    """The R011 error for a comparison of reals that could not be decided."""
    return error("R011", f"a comparison of real numbers could not be decided: {exc}", span,
                 hint="the two numbers agree to thousands of digits and exact simplification did "
                      "not show them equal; reformulate the computation (privinfer never guesses)")


def _not_a(value: Value, expected: str, what: str, span: Optional[Span]) -> Exception:
    if isinstance(value, Symbolic):
        return SymbolicEscape(f"{what} is {value.describe()}")
    return error("R006", f"{what} must be a {expected}, got {_describe(value)}", span)


def _number_operand(value: Value, op: str, span: Optional[Span]) -> None:
    if isinstance(value, Symbolic):
        if value.numeric:   # a noisy value: its comparisons and shifts are its own
            return
        raise SymbolicEscape(f"the model computes {op} with {value.describe()}")
    if not is_number(value):
        raise error("R006", f"the operand of {op} must be a number, got {_describe(value)}", span)


def arithmetic(op: str, left: Value, right: Value, node: ast.Node) -> Value:
    """``left op right`` for ``+ - * /`` under the numeric policy of ``values`` (``/`` is
    real division; dividing by zero is R002 at ``node``)."""
    left_span = getattr(node, "left", node).span
    right_span = getattr(node, "right", node).span
    _number_operand(left, op, left_span)
    _number_operand(right, op, right_span)
    if op == "+":
        return left + right
    if op == "-":
        return left - right
    if op == "*":
        return left * right
    if op == "/":
        with decided(node.span):
            zero = right == 0
        if zero:
            raise error("R002", f"division by zero: {format_value(left)} / {format_value(right)}", node.span)
        if isinstance(left, int) and isinstance(right, int):
            return Fraction(left, right)
        return left / right
    raise TypeError(f"unknown arithmetic operator {op!r}")


#: Range checks of annotated simple types: name -> (predicate, wording).
_RANGES: Dict[str, Tuple[Callable[[Value], bool], str]] = {
    "nat": (lambda v: isinstance(v, int) and v >= 0, "a natural number (>= 0)"),
    "real+": (lambda v: v > 0 and not (isinstance(v, float) and math.isinf(v)), "a positive real"),
    "real+inf": (lambda v: v > 0, "a positive real or infinity"),
    "[0,1]": (lambda v: 0 <= v <= 1, "a real in [0, 1]"),
}

_REAL_NAMES = ("real", "real+", "real+inf", "[0,1]")


def check_annotation(value: Value, t: ast.SimpleType, name: str, span: Optional[Span]) -> Value:
    """``value`` checked against the range of the written type ``t`` (R001 at ``span``) and, for
    a real type, an ``int`` made an exact real. Lists are not traversed (that would make
    recursive functions over annotated lists quadratic)."""
    if isinstance(value, Symbolic):
        if value.numeric and (isinstance(t, ast.TFin) or isinstance(t, ast.TBase) and t.name in _RANGES):
            raise SymbolicEscape(f"the program checks the range {t} of {value.describe()}")
        return value
    if isinstance(t, ast.TBase):
        if t.name in _RANGES and is_number(value):
            ok, wording = _RANGES[t.name]
            with decided(span):
                holds = ok(value)
            if not holds:
                raise error("R001", f"{name} : {t.name} needs {wording}, got {format_value(value)}", span)
        if t.name in _REAL_NAMES:
            return to_real(value)
        return value
    if isinstance(t, ast.TFin):
        if is_number(value) and not (value == int(value) and 0 <= value < t.k):
            raise error("R001", f"{name} : [{t.k}] needs an integer in 0..{t.k - 1}, got {format_value(value)}",
                        span)
        return value
    if isinstance(t, ast.TSimplex):
        if not isinstance(value, tuple) or len(value) != t.k:
            raise error("R001", f"{name} : [0,1]^{t.k} needs a tuple of {t.k} probabilities, got "
                                f"{format_value(value)}", span)
        return dist.check_probabilities(value, f"{name} : [0,1]^{t.k}", span)
    if isinstance(t, ast.TTuple) and isinstance(value, tuple) and len(value) == len(t.items):
        return tuple(check_annotation(v, i, name, span) for v, i in zip(value, t.items))
    if isinstance(t, ast.TDist) and isinstance(value, Distribution) and says_ranges(t.elem):
        _check_draws(value, t.elem, name, span)
    return value


def _check_draws(d: Distribution, elem: ast.SimpleType, name: str, span: Optional[Span]) -> None:
    """R001 unless every draw of ``d`` is a value of ``elem`` (``D[elem]``'s ranges: a
    ``normal`` is not a ``D[[0,1]]``, a categorical over 5 not a ``D[[3]]``;
    ``verifier.language.supports``). A law of finite support is checked point by point; a
    posterior without a closed form lies where its prior does."""
    if isinstance(d, dist.Finite):
        for v, _ in d.items:
            check_value(v, elem, f"a draw of {name}", span)
        return
    prior = getattr(d, "prior", None)
    if isinstance(prior, Distribution):  # a posterior without a closed form
        return _check_draws(prior, elem, name, span)
    support = family_support(d.family, len(d.params()))
    if not fits(support, elem):
        raise error("R001", f"{name} : D[{pretty_type(elem)}] needs a distribution whose draws are "
                            f"values of {pretty_type(elem)}, got {d.format()}", span)


def check_value(value: Value, t: ast.SimpleType, name: str, span: Optional[Span] = None) -> Value:
    """``value`` checked to be a value of the written type ``t``: ``check_annotation`` with
    the elements of lists traversed (and the components of tuples) — the ranges of scalars,
    of list elements (a ``nat list`` holds naturals, a ``[3] list`` categories 0..2), of
    simplex points. R001 at ``span`` when it is not (R011 when a comparison cannot be
    decided exactly). What ``run`` requires of an argument, and what a refutation's witness
    must be of the claim's types."""
    if isinstance(t, ast.TList) and isinstance(value, ConsList):
        return ConsList.from_sequence([check_value(v, t.elem, f"{name} element", span)
                                       for v in value])
    if isinstance(t, ast.TTuple) and isinstance(value, tuple) and len(value) == len(t.items):
        return tuple(check_value(v, i, name, span) for v, i in zip(value, t.items))
    return check_annotation(value, t, name, span)


# --------------------------------------------------------------------------------------
# built-in functions
# --------------------------------------------------------------------------------------

BuiltinImpl = Callable[[Evaluator, Value, ast.Node], Value]
BUILTINS: Dict[str, BuiltinImpl] = {}


def _builtin(name: str):
    def register(fn: BuiltinImpl) -> BuiltinImpl:
        BUILTINS[name] = fn
        return fn
    return register


#: Built-in constants (not functions).
CONSTANTS: Dict[str, Value] = {"pi": reals.pi()}


def _args(name: str, arg: Value, count: int, node: ast.Node, names: str) -> Tuple[Value, ...]:
    """The ``count`` components of a built-in's argument (``()`` for 0, the value for 1)."""
    if count == 0:
        if arg is not UNIT:
            raise error("R006", f"{name} expects (), got {_describe(arg)}", node.span)
        return ()
    if count == 1:
        return (arg,)
    if not isinstance(arg, tuple) or len(arg) != count:
        if isinstance(arg, Symbolic):
            raise SymbolicEscape(f"the model applies {name} to {arg.describe()}")
        raise error("R006", f"{name} expects {count} arguments {names}, got {_describe(arg)}", node.span)
    return arg


def _concrete(name: str, args: Sequence[Value]) -> None:
    for a in args:
        if isinstance(a, Symbolic):
            raise SymbolicEscape(f"the model applies {name} to {a.describe()}")


def _num(name: str, what: str, v: Value, node: ast.Node) -> Value:
    if isinstance(v, Symbolic):
        raise SymbolicEscape(f"the model applies {name} to {v.describe()}")
    if not is_number(v):
        raise error("R006", f"the {what} of {name} must be a number, got {_describe(v)}", node.span)
    if isinstance(v, float) and math.isnan(v):
        raise error("R001", f"the {what} of {name} is not a number (nan)", node.span)
    return v


def _list_arg(name: str, v: Value, node: ast.Node) -> ConsList:
    if isinstance(v, Symbolic):
        raise SymbolicEscape(f"the model applies {name} to {v.describe()}")
    if not isinstance(v, ConsList):
        raise error("R006", f"{name} expects a list, got {_describe(v)}", node.span)
    return v


def _distribution(name: str, v: Value, node: ast.Node) -> Distribution:
    if isinstance(v, Symbolic):
        raise SymbolicEscape(f"the model applies {name} to {v.describe()}")
    if not isinstance(v, Distribution):
        raise error("R006", f"{name} expects a symbolic distribution (D[T]), got {_describe(v)}", node.span)
    return v


def _positive_eps(name: str, eps: Value, node: ast.Node) -> Value:
    eps = _num(name, "eps", eps, node)
    if not eps > 0 or (isinstance(eps, float) and math.isinf(eps)):
        raise error("R001", f"{name} needs eps > 0, got eps = {format_value(eps)}", node.span)
    return eps


def _delta(name: str, delta: Value, node: ast.Node) -> Value:
    delta = _num(name, "delta", delta, node)
    if not 0 < delta < 1:
        raise error("R001", f"{name} needs 0 < delta < 1, got delta = {format_value(delta)}", node.span)
    return delta


# ---- symbolic distributions ----


@_builtin("bernoulli")
def _bernoulli(ev: Evaluator, arg: Value, node: ast.Node) -> Value:
    if isinstance(arg, SymParam):
        return monad.symbolic_family("bernoulli", arg)
    return dist.make_bernoulli(_num("bernoulli", "probability", arg, node), node.span)


@_builtin("beta")
def _beta(ev: Evaluator, arg: Value, node: ast.Node) -> Value:
    a, b = _args("beta", arg, 2, node, "(a, b)")
    return dist.make_beta(_num("beta", "1st parameter", a, node), _num("beta", "2nd parameter", b, node),
                          node.span)


@_builtin("normal")
def _normal(ev: Evaluator, arg: Value, node: ast.Node) -> Value:
    m, v = _args("normal", arg, 2, node, "(mean, variance)")
    v = _num("normal", "variance", v, node)
    if isinstance(m, SymParam):
        dist.make_normal(0, v, node.span)  # the range check of the variance
        return monad.symbolic_family("normal", m, to_real(v))
    return dist.make_normal(_num("normal", "mean", m, node), v, node.span)


@_builtin("uniform")
def _uniform(ev: Evaluator, arg: Value, node: ast.Node) -> Value:
    _args("uniform", arg, 0, node, "")
    return dist.make_uniform()


@_builtin("dirichlet")
def _dirichlet(ev: Evaluator, arg: Value, node: ast.Node) -> Value:
    if not isinstance(arg, tuple):
        _concrete("dirichlet", [arg])
        raise error("R006", f"dirichlet expects a tuple of at least 2 parameters, got {_describe(arg)}",
                    node.span)
    return dist.make_dirichlet([_num("dirichlet", f"parameter {i + 1}", a, node) for i, a in enumerate(arg)],
                               node.span)


@_builtin("categorical")
def _categorical(ev: Evaluator, arg: Value, node: ast.Node) -> Value:
    if isinstance(arg, SymParam):
        return monad.symbolic_family("categorical", arg)
    if isinstance(arg, ConsList):
        arg = tuple(arg)
    if not isinstance(arg, tuple):
        _concrete("categorical", [arg])
        raise error("R006", f"categorical expects a point of the simplex (a tuple of probabilities), "
                            f"got {_describe(arg)}", node.span)
    _concrete("categorical", arg)
    return dist.make_categorical(arg, node.span)


# ---- mechanisms ----


@_builtin("lapMech")
def _lap_mech(ev: Evaluator, arg: Value, node: ast.Node) -> Value:
    eps, e = _args("lapMech", arg, 2, node, "(eps, e)")
    eps = _positive_eps("lapMech", eps, node)
    e = _num("lapMech", "query value", e, node)
    return monad.Laplace(e, 1 / to_real(eps), node.span)


def _sigma(name: str, eps: Value, delta: Value, node: ast.Node) -> Value:
    """sigma(eps, delta) = sqrt(2 ln(1.25 / delta)) / eps, defined for 0 < delta < 1.25 (an
    exact real: ``sigma (1e-400, 0.5)`` is a huge finite number)."""
    eps = _positive_eps(name, eps, node)
    delta = _num(name, "delta", delta, node)
    if not 0 < delta < Fraction(5, 4):
        raise error("R001", f"{name} needs 0 < delta < 1.25, got delta = {format_value(delta)}",
                    node.span)
    return reals.sqrt(2 * reals.log(Fraction(5, 4) / to_real(delta))) / to_real(eps)


@_builtin("gaussMech")
def _gauss_mech(ev: Evaluator, arg: Value, node: ast.Node) -> Value:
    """Gaussian noise of standard deviation sigma(eps, min(delta, 1)).

    For delta >= 1 every mechanism is (0, delta)-DP, so capping delta at 1 keeps the
    mechanism total on real+ (as LANGUAGE.md types it) without weakening its guarantee."""
    eps, delta, e = _args("gaussMech", arg, 3, node, "(eps, delta, e)")
    delta = _num("gaussMech", "delta", delta, node)
    if not delta > 0:
        raise error("R001", f"gaussMech needs delta > 0, got delta = {format_value(delta)}",
                    node.span)
    sigma = _sigma("gaussMech", eps, 1 if delta > 1 else delta, node)
    return monad.Gaussian(_num("gaussMech", "query value", e, node), sigma, node.span)


@_builtin("sigma")
def _sigma_builtin(ev: Evaluator, arg: Value, node: ast.Node) -> Value:
    eps, delta = _args("sigma", arg, 2, node, "(eps, delta)")
    return _sigma("sigma", eps, delta, node)


@_builtin("expMech")
def _exp_mech(ev: Evaluator, arg: Value, node: ast.Node) -> Value:
    if not isinstance(arg, tuple) or len(arg) not in (3, 4):
        _concrete("expMech", [arg])
        raise error("R006", f"expMech expects (eps, score, x) or (eps, score, x, candidates), got "
                            f"{_describe(arg)}", node.span)
    eps = _positive_eps("expMech", arg[0], node)
    score, x = arg[1], arg[2]
    if len(arg) == 4:
        candidates = list(_list_arg("expMech", arg[3], node))
        if not candidates:
            raise error("R001", "expMech needs at least one candidate, got the empty list", node.span)
    else:
        candidates = _expmech_range(ev, node)
    scores = []
    for r in candidates:
        s = ev.apply(score, (x, r), node)
        if isinstance(s, Symbolic):
            raise SymbolicEscape(f"the score of expMech is {s.describe()}")
        if not is_number(s) or (isinstance(s, float) and not math.isfinite(s)):
            raise error("R001", f"the score of expMech must be a finite real, got {format_value(s)} for "
                                f"the candidate {format_value(r)}", node.span)
        scores.append(s)
    return monad.Exponential(candidates, scores, eps, node.span)


def _expmech_range(ev: Evaluator, node: ast.Node) -> List[Value]:
    r = None
    if ev.typed is not None and isinstance(node, ast.App):
        try:
            r = ev.typed.expmech_range(node)
        except KeyError:
            r = None
    if r is None:
        raise error("R006", "expMech (eps, score, x) needs its range from the type checker here",
                    node.span, hint="give the candidates explicitly: expMech (eps, score, x, candidates)")
    values = finite_values(r)
    if values is None:
        raise error("R006", f"the range of expMech is not finite: {r}", node.span)
    return values


def _conjugate_data(name: str, prior: Distribution, db: ConsList, node: ast.Node) -> Tuple[Tuple[Value, ...], Tuple[int, ...]]:
    """The prior's parameters and the data's histogram for the Hellinger mechanisms."""
    if isinstance(prior, (Beta, Uniform)):
        beta = prior.as_beta()
        true = 0
        for d in db:
            if not isinstance(d, bool):
                raise error("R006", f"{name} with a beta prior needs a bool list, found {_describe(d)}", node.span)
            true += d
        return (beta.a, beta.b), (true, len(db) - true)
    if isinstance(prior, Dirichlet):
        k = len(prior.alphas)
        counts = [0] * k
        for d in db:
            if not (is_number(d) and d == int(d) and 0 <= d < k):
                raise error("R001", f"{name}: the observation {format_value(d)} is not in [{k}]", node.span)
            counts[int(d)] += 1
        return tuple(prior.alphas), tuple(counts)
    raise error("R006", f"{name} needs a beta or dirichlet prior, got {prior.format()}", node.span)


def _hellinger_release(ev: Evaluator, name: str, eps: Value, delta: Optional[Value], prior: Value, db: Value,
                       node: ast.Node) -> Value:
    """The Hellinger mechanism's M-value: candidate ``r`` with probability
    ``∝ exp(-beta H(BI(db), r))``, ``beta = eps / (2 S)`` (``eps / (4 S)`` for the pure form).
    The smooth sensitivity ``S`` is computed in float64 (``hellinger_mech``) and then read as
    the exact rational it is; everything after is exact: the Hellinger distances are exact
    reals, the law (``infer``, ``audit``) has exact-real probabilities, and a release draws
    from that law exactly (the float64 scores only shape the proposal of the exact sampler,
    ``NoiseSource.choice_exact``; docs/noise.md)."""
    eps = _positive_eps(name, eps, node)
    if delta is not None:
        delta = _delta(name, delta, node)
    prior = _distribution(name, prior, node)
    db = _list_arg(name, db, node)
    alphas, counts = _conjugate_data(name, prior, db, node)
    from verifier.semantics.hellinger_mech import HellingerMechanism, candidates_count
    meter.mark_inexact()   # the smooth sensitivity is a float64 (see above)
    gamma = None
    if delta is not None:  # ln (1 - eps / (2 ln (delta / (2 |R|)))), exactly, then as a float
        size = candidates_count(sum(counts), len(counts))
        exact = reals.log(1 - eps / (2 * reals.log(delta / (2 * size))))
        gamma = _float_below(exact)
    try:
        mech = HellingerMechanism([float(a) for a in alphas], counts, _float_within(eps),
                                  None if delta is None else _float_within(delta, 1 - 2.0 ** -53),
                                  pure=delta is None, gamma=gamma)
    except ValueError as exc:
        raise error("R001", f"{name}: {exc}", node.span) from None

    def posterior(m: Sequence[int]) -> Distribution:
        params = tuple(a + int(c) for a, c in zip(alphas, m))
        return Beta(*params) if len(params) == 2 and isinstance(prior, (Beta, Uniform)) else Dirichlet(params)

    data_posterior = posterior(counts)

    def exponent(m: Sequence[int]) -> Value:
        """``beta * H(BI(db), Dir(alpha + m))``, exactly (for the float64 ``S``)."""
        meter.mark_inexact()
        smooth = Fraction(mech.smooth_sensitivity())
        beta = eps / ((4 if delta is None else 2) * smooth)
        return beta * dist.hellinger(data_posterior, posterior(m))

    def law() -> Dict[Value, Any]:
        if mech.candidates_count > monad.MAX_SUPPORT:
            raise error("R009", f"{name} has {mech.candidates_count} candidates, more than "
                                f"{monad.MAX_SUPPORT} to enumerate", node.span)
        if mech.n == 0:
            return {data_posterior: Fraction(1)}
        weights: Dict[Value, Any] = {}
        for i in range(mech.candidates_count):
            m = mech.candidate(i)
            weights[posterior(m)] = reals.exp(-exponent(m))
        return dist.normalise(weights)

    def release(source: Any) -> Value:
        """One exact draw: the near candidates of the mechanism's sampler plan are listed with
        their float64 exponents, every other candidate is drawn uniformly (stars and bars, with
        the source's exact integers) under the plan's bound; each proposal is accepted on its
        exact exponent (``NoiseSource.choice_exact_near_far``). Nothing of size
        ``C(n + k - 1, k - 1)`` is built."""
        if mech.n == 0:
            return data_posterior
        plan = mech.sampler_plan()
        near = [tuple(int(c) for c in row) for row in plan.near_counts]
        listed = set(near)
        far_count = mech.candidates_count - len(near)
        slots = mech.n + mech.k - 1

        def far_draw(src: Any) -> Optional[Tuple[Tuple[int, ...], Value]]:
            while True:  # k - 1 distinct bars among the slots, uniformly: redrawn on a repeat
                bars = sorted(src.randbelow(slots) for _ in range(mech.k - 1))
                if all(a < b for a, b in zip(bars, bars[1:])):
                    break
            edges = [-1, *bars, slots]
            m = tuple(b - a - 1 for a, b in zip(edges, edges[1:]))
            return None if m in listed else (m, exponent(m))

        is_near, chosen = source.choice_exact_near_far(
            -plan.near_lw, lambda i: exponent(near[i]), HELLINGER_SLACK, far_count,
            -plan.lw0 if far_count else 0.0, far_draw)
        return posterior(near[chosen] if is_near else chosen)

    return monad.Release(name, release, law, node.span)


def _float_within(x: Value, top: float = 1e300) -> float:
    """A positive ``x`` as a float in ``[1e-300, top]`` (only the float64 proposal of the
    Hellinger mechanisms uses it; their exact exponents use ``x`` itself)."""
    if x >= Fraction(top):
        return top
    if x <= Fraction(1e-300):
        return 1e-300
    return min(max(float(x), 1e-300), top)


def _float_below(x: Value) -> float:
    """A float ``<= x`` for ``x >= 0`` (rounded down from an enclosure; 0.0 on underflow)."""
    if reals.is_rational(x):
        return max(0.0, math.nextafter(float(x), 0.0))
    ball = x.ball(128)
    lower = float(ball.lower().mid())
    return max(0.0, math.nextafter(lower, 0.0))


#: How far (absolutely) the float64 exponents of the Hellinger mechanisms may be from the exact
#: ones: a bound with a wide margin over their error (about 1e-6 at n = 10^4, docs/noise.md).
HELLINGER_SLACK = 2.0 ** -10


@_builtin("hellingerMech")
def _hellinger_mech(ev: Evaluator, arg: Value, node: ast.Node) -> Value:
    eps, delta, prior, db = _args("hellingerMech", arg, 4, node, "(eps, delta, prior, db)")
    return _hellinger_release(ev, "hellingerMech", eps, delta, prior, db, node)


@_builtin("hellingerMechPure")
def _hellinger_mech_pure(ev: Evaluator, arg: Value, node: ast.Node) -> Value:
    eps, prior, db = _args("hellingerMechPure", arg, 3, node, "(eps, prior, db)")
    return _hellinger_release(ev, "hellingerMechPure", eps, None, prior, db, node)


# ---- operations on symbolic distributions ----


@_builtin("getParams")
def _get_params(ev: Evaluator, arg: Value, node: ast.Node) -> Value:
    d = _distribution("getParams", arg, node)
    if isinstance(d, dist.Finite):
        raise error("R006", "getParams: a finite distribution has no parameters", node.span)
    if getattr(d, "family", None) == "posterior":
        raise error("R006", "getParams: a posterior without a closed form has no parameters "
                    "(its likelihood is not conjugate to its prior)", node.span,
                    hint="use mean, variance or a draw of it; or a conjugate likelihood")
    params = d.params()
    if isinstance(d, dist.Bernoulli):
        return params[0]
    return tuple(params)


def _moment(name: str, arg: Value, node: ast.Node) -> Value:
    d = _distribution(name, arg, node)
    try:
        return d.mean() if name == "mean" else d.variance()
    except TypeError as exc:
        raise error("R006", f"{name}: {exc}", node.span) from None


@_builtin("mean")
def _mean(ev: Evaluator, arg: Value, node: ast.Node) -> Value:
    return _moment("mean", arg, node)


@_builtin("variance")
def _variance(ev: Evaluator, arg: Value, node: ast.Node) -> Value:
    return _moment("variance", arg, node)


def _distance(name: str, fn: Callable[[Distribution, Distribution], Value], arg: Value, node: ast.Node) -> Value:
    d1, d2 = _args(name, arg, 2, node, "(d1, d2)")
    d1, d2 = _distribution(name, d1, node), _distribution(name, d2, node)
    try:
        return fn(d1, d2)
    except dist.UnsupportedPair as exc:
        raise error("R006", f"{name} is not available between {exc}", node.span) from None


@_builtin("hellinger")
def _hellinger(ev: Evaluator, arg: Value, node: ast.Node) -> Value:
    return _distance("hellinger", dist.hellinger, arg, node)


@_builtin("tv")
def _tv(ev: Evaluator, arg: Value, node: ast.Node) -> Value:
    return _distance("tv", dist.total_variation, arg, node)


@_builtin("posteriors")
def _posteriors(ev: Evaluator, arg: Value, node: ast.Node) -> Value:
    prior, n = _args("posteriors", arg, 2, node, "(prior, n)")
    prior = _distribution("posteriors", prior, node)
    n = _num("posteriors", "number of observations", n, node)
    if not (isinstance(n, int) and n >= 0):
        raise error("R001", f"posteriors needs a natural number of observations, got {format_value(n)}",
                    node.span)
    return ConsList.from_sequence(dist.posteriors(prior, n, monad.MAX_SUPPORT, node.span))


# ---- numbers, tuples, lists ----


@_builtin("fst")
def _fst(ev: Evaluator, arg: Value, node: ast.Node) -> Value:
    return _args("fst", arg, 2, node, "(a pair)")[0]


@_builtin("snd")
def _snd(ev: Evaluator, arg: Value, node: ast.Node) -> Value:
    return _args("snd", arg, 2, node, "(a pair)")[1]


@_builtin("abs")
def _abs(ev: Evaluator, arg: Value, node: ast.Node) -> Value:
    return reals.absolute(_num("abs", "argument", arg, node))


@_builtin("min")
def _min(ev: Evaluator, arg: Value, node: ast.Node) -> Value:
    a, b = _args("min", arg, 2, node, "(a, b)")
    if _noisy(a, b):
        return a if a <= b else b
    return reals.minimum(_num("min", "1st argument", a, node), _num("min", "2nd argument", b, node))


@_builtin("max")
def _max(ev: Evaluator, arg: Value, node: ast.Node) -> Value:
    a, b = _args("max", arg, 2, node, "(a, b)")
    if _noisy(a, b):
        return a if a >= b else b
    return reals.maximum(_num("max", "1st argument", a, node), _num("max", "2nd argument", b, node))


def _noisy(a: Value, b: Value) -> bool:
    """Whether ``min`` / ``max`` compare a noisy value (``verifier.semantics.compared``) with a
    number or another noisy value: decided by the comparison itself."""
    if not any(isinstance(x, Symbolic) and x.numeric for x in (a, b)):
        return False
    for x in (a, b):
        if not (isinstance(x, Symbolic) and x.numeric or is_number(x)):
            raise SymbolicEscape(f"min or max of a noisy value and {a_kind(x)}")
    return True


@_builtin("exp")
def _exp(ev: Evaluator, arg: Value, node: ast.Node) -> Value:
    return reals.exp(_num("exp", "argument", arg, node))


@_builtin("log")
def _log(ev: Evaluator, arg: Value, node: ast.Node) -> Value:
    x = _num("log", "argument", arg, node)
    if not x > 0:
        raise error("R001", f"log needs a positive argument, got log {format_value(x)}", node.span)
    return reals.log(x)


@_builtin("sqrt")
def _sqrt(ev: Evaluator, arg: Value, node: ast.Node) -> Value:
    x = _num("sqrt", "argument", arg, node)
    if x < 0:
        raise error("R001", f"sqrt needs a non-negative argument, got sqrt {format_value(x)}", node.span)
    return reals.sqrt(x)


@_builtin("length")
def _length(ev: Evaluator, arg: Value, node: ast.Node) -> Value:
    return len(_list_arg("length", arg, node))


@_builtin("count")
def _count(ev: Evaluator, arg: Value, node: ast.Node) -> Value:
    total = 0
    for item in _list_arg("count", arg, node):
        if not isinstance(item, bool):
            _concrete("count", [item])
            raise error("R006", f"count expects a bool list, found {_describe(item)}", node.span)
        total += item
    return total


@_builtin("sum")
def _sum(ev: Evaluator, arg: Value, node: ast.Node) -> Value:
    total: Value = Fraction(0)
    for item in _list_arg("sum", arg, node):
        total = total + _num("sum", "element", item, node)
    return total


# ---- list relations (LANGUAGE.md lists them for assertions; evaluable on concrete lists) ----


def _two_lists(name: str, l1: Value, l2: Value, node: ast.Node) -> Tuple[ConsList, ConsList]:
    return _list_arg(name, l1, node), _list_arg(name, l2, node)


def _differences(l1: ConsList, l2: ConsList) -> List[Tuple[Value, Value]]:
    return [(x, y) for x, y in zip(l1, l2) if not values_equal(x, y)]


@_builtin("adj")
def _adj(ev: Evaluator, arg: Value, node: ast.Node) -> Value:
    l1, l2 = _two_lists("adj", *_args("adj", arg, 2, node, "(l1, l2)"), node)
    return len(l1) == len(l2) and len(_differences(l1, l2)) <= 1


@_builtin("adjWithin")
def _adj_within(ev: Evaluator, arg: Value, node: ast.Node) -> Value:
    a, b, c = _args("adjWithin", arg, 3, node, "(l1, l2, c)")
    l1, l2 = _two_lists("adjWithin", a, b, node)
    c = _num("adjWithin", "bound", c, node)
    diffs = _differences(l1, l2)
    return len(l1) == len(l2) and len(diffs) <= 1 and all(abs(x - y) <= c for x, y in diffs)


@_builtin("allWithin")
def _all_within(ev: Evaluator, arg: Value, node: ast.Node) -> Value:
    a, b, c = _args("allWithin", arg, 3, node, "(l1, l2, c)")
    l1, l2 = _two_lists("allWithin", a, b, node)
    c = _num("allWithin", "bound", c, node)
    return len(l1) == len(l2) and all(abs(x - y) <= c for x, y in zip(l1, l2))


@_builtin("dist")
def _dist(ev: Evaluator, arg: Value, node: ast.Node) -> Value:
    l1, l2 = _two_lists("dist", *_args("dist", arg, 2, node, "(l1, l2)"), node)
    if len(l1) != len(l2):
        raise error("R006", f"dist needs lists of the same length, got {len(l1)} and {len(l2)}", node.span)
    return len(_differences(l1, l2))


# --------------------------------------------------------------------------------------
# module-level entry points
# --------------------------------------------------------------------------------------


def evaluate_program(program: ast.Program, typed: Any = None) -> Dict[str, Value]:
    """The values of ``program``'s top-level ``let``s (the last definition of each name)."""
    return dict(Evaluator(program, typed).values)


def run_entry(program: ast.Program, entry: str, args: Sequence[Value], typed: Any = None) -> Value:
    """The top-level ``entry`` of ``program`` applied to ``args`` in parameter order."""
    return Evaluator(program, typed).call(entry, args)


def evaluate_expr(expr: ast.Expr, bindings: Optional[Mapping[str, Value]] = None, typed: Any = None) -> Value:
    """A closed expression, with the built-ins and ``bindings`` in scope."""
    return Evaluator(None, typed).evaluate(expr, bindings)


__all__ = [
    "Evaluator", "Env", "evaluate_program", "run_entry", "evaluate_expr", "finite_values",
    "check_annotation", "check_value", "arithmetic", "BUILTINS", "CONSTANTS", "STEP_BUDGET",
]
