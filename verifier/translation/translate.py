"""Translation of pure expressions into terms, one run at a time.

``Translator.expr(e, run, env)`` gives the symbolic value of the pure expression ``e`` in run
``run`` (1 or 2). ``Translator.assertion(a, env)`` gives the Bool term of an assertion of a
relational type, where ``x<1>`` / ``x<2>`` name a variable's value in one run.

Translation is the strongest-postcondition reading of the HOARe² rules for variables,
constants, operators, ``let``, ``if`` and the application of unfoldable helpers. Range
conditions met on the way (a positive ``beta`` parameter, a non-zero divisor...) are reported to
the ``RangeSink`` with the guard under which they are evaluated; the caller turns them into
``RANGE`` obligations. Anything the translator cannot express raises ``NoRule``.
"""
from __future__ import annotations

from fractions import Fraction
from typing import Callable, List, Optional, Sequence, Tuple

from obligations import terms as T
from obligations.records import record
from verifier.language import ast as A
from verifier.language.resolve import source_name
from verifier.translation import logic as L
from verifier.translation.calls import (call_value, element_key_of_sort, element_term,
                                        flat_terms)
from obligations import vocabulary as V
from verifier.translation.functions import NotAFunction, Registry, is_function, result_value
from verifier.translation.calls import leaves
from verifier.translation.symbolic import (Builtin, Closure, DistV, Env, FunParam, LocalRec,
                                           Monadic, NamedFun, Scalar, SymValue, TupleV, UnitV)


#: why a name the resolver bound is not bound where it is read: the one such place is the
#: annotation of the computation an mlet binds, which names what the mlet binds (docs/language.md)
_NOT_YET_BOUND = (" (a shift written on the computation an mlet binds may name the value it "
                  "binds only in the condition of [@shift if C then s1 else s2])")


class NoRule(Exception):
    """No rule applies: the construct is outside what the verifier can reason about."""

    def __init__(self, message: str, span: Optional[A.Span] = None, code: Optional[str] = None,
                 notes: Tuple[str, ...] = ()):
        super().__init__(message)
        self.message = message
        self.span = span
        self.code = code  # a diagnostic code of verifier.errors, when more precise than V003
        #: what rules tried before this failure could not prove (``NotApplicable.note``)
        self.notes = notes


def missing_val(name: str, span: Optional[A.Span]) -> NoRule:
    """The failure of verified code that uses the recursive function ``name``, which has no
    val (LANGUAGE.md: a recursive function used by verified code needs its own val)."""
    return NoRule(f"the recursive function {name} needs a val to be used by verified code",
                  span, code="V007")


class NotApplicable(NoRule):
    """A rule does not apply to ``node``: the next rule registered for the construct is tried
    (``registry``). Raised for ``node`` only: a failure further down is a ``NoRule``.
    ``note``, when set, says what the rule tried and could not prove: the dispatcher adds it
    to the failure of the rule tried next, whose message would otherwise hide it."""

    def __init__(self, message: str, span: Optional[A.Span], node: A.Expr,
                 note: Optional[str] = None):
        super().__init__(message, span)
        self.node = node
        self.note = note


@record
class Narrowing:
    """The value of an expression flows into a narrower type than its own (an ``int`` where
    a ``[k]`` is expected: ``TypedProgram.narrowings``): ``kind`` is ``value`` (the value
    itself, a list element or a tuple component is the int), ``computation`` (a draw of a
    computation) or ``function``; ``expected`` the narrower type (None when the type checker
    left it open), ``component`` the index of the tuple component that flows, if only one."""

    kind: str
    expected: Optional[A.SimpleType]
    component: Optional[int] = None


@record
class RangeCheck:
    """A range condition: ``condition`` must hold whenever ``guard`` does, in run ``run``."""

    condition: T.Term
    guard: T.Term
    description: str
    span: A.Span
    run: Optional[int]


@record
class Decision:
    """A decision ``privinfer run`` makes on the values of ``operands`` (their terms in run
    ``run``) when ``guard`` holds: a comparison of numbers (or of lists or tuples of them), the
    sign test of ``abs``, ``min`` or ``max``, a divisor's test against 0, the comparisons of a
    range check (``sqrt``'s argument, a ``beta`` parameter, an annotation…), the equality of
    two distributions' parameters that ``hellinger`` and ``tv`` test. Whoever translates
    code must show it safe with private data (the Decidable condition of Safety,
    ``obligations.decidable``). ``what`` says which decision, for messages."""

    operands: Tuple[T.Term, ...]
    guard: T.Term
    what: str
    span: A.Span
    run: Optional[int]


@record
class StoredComputation:
    """A computation that pure code makes by applying a mechanism or a function whose val
    returns a computation (``let m = lapMech (eps, x) in``), in run ``run``, when ``guard``
    holds. Call by value applies it at once, run later or not: the mechanism checks its
    parameters, the function's body runs up to the computation it returns (on an argument that
    must be in its val's domain). Whoever translates code must check it where it is made."""

    expr: A.Expr
    env: Env
    guard: T.Term
    run: Optional[int]


@record
class CallCheck:
    """A call of a program function through its val (an opaque value, which presumes that the
    call returns), evaluated when ``guard`` holds, in run ``run``: whoever translates code
    must account for it — the claim depends on the callee's, and a recursive call must be on
    a shorter list — wherever the call stands, used or not (the language is call by value)."""

    call: T.Term
    function: str
    guard: T.Term
    span: A.Span
    run: Optional[int]
    #: a call of a local recursive function (``LocalRec``): no val
    local: bool = False
    #: the arguments per parameter: their terms (None for one that is not a term: the measure
    #: of a recursion is a list), and their values (for the callee's domain)
    params: Tuple[Optional[T.Term], ...] = ()
    values: Tuple[SymValue, ...] = ()
    #: a call of a parameter of function type returning a pure value (``function``: its
    #: name): the domain is its declared type's, and it has no val of its own
    parameter: Optional[FunParam] = None


@record
class LocalFunction:
    """A call of a local recursive function ``fn`` (``let rec`` in an expression), in run
    ``run``, on arguments ``args`` (their values), with a result of sort ``result``, when
    ``guard`` holds. The call is a deterministic symbol (``Translator.local_call``), which
    presumes that it returns: whoever translates code must show that ``fn`` terminates
    without error on every argument of those sorts (the Safety walks check its body on fresh
    arguments, with its recursive calls on shorter lists)."""

    fn: "LocalRec"
    args: Tuple[SymValue, ...]
    result: T.Sort
    guard: T.Term
    run: Optional[int]
    span: A.Span


#: Built-ins handled by the translator, with their arities (None: any tuple).
PURE_BUILTINS = {
    "bernoulli": 1, "beta": 2, "normal": 2, "uniform": 1, "dirichlet": None, "categorical": 1,
    "getParams": 1, "mean": 1, "variance": 1, "hellinger": 2, "tv": 2, "sigma": 2,
    "posteriors": 2, "fst": 1, "snd": 1, "abs": 1, "min": 2, "max": 2, "exp": 1, "log": 1,
    "sqrt": 1, "length": 1, "count": 1, "sum": 1, "adj": 2, "adjWithin": 3, "allWithin": 3,
    "dist": 2,
}
#: Built-ins returning computations (extended by ``verifier.extend.add_mechanism``).
MONADIC_BUILTINS = {"lapMech", "gaussMech", "expMech", "hellingerMech", "hellingerMechPure"}
ASSERTION_ONLY = ("adj", "adjWithin", "allWithin", "dist")


class Translator:
    """Translates pure expressions; ``infer`` is delegated to ``infer_hook``.

    ``infer_hook(expr, run, env) -> DistV`` computes the closed form of ``infer expr`` (the
    observe-fold rule lives in ``verifier.rules.observe_fold``); ``signature(name)`` gives the
    arity and result sort of a function used through its ``val``; ``fresh(name, sort, run)``
    makes a fresh logical variable.
    """

    def __init__(self, range_sink: Callable[[RangeCheck], None],
                 infer_hook: Callable[[A.Expr, int, Env], DistV],
                 fresh: Callable[[str, T.Sort, Optional[int]], T.Var],
                 signature: Callable[[str], Tuple[int, Optional[T.Sort]]],
                 list_key: Callable[[A.Expr], Optional[str]] = lambda e: None,
                 call_sink: Callable[[CallCheck], None] = lambda c: None,
                 returns_computation: Callable[[str], bool] = lambda name: False,
                 stored_sink: Callable[[StoredComputation], None] = lambda s: None,
                 narrowed: Callable[[A.Expr], Sequence[Narrowing]] = lambda e: (),
                 sort_of: Callable[[A.Expr], Optional[T.Sort]] = lambda e: None,
                 result_type: Callable[[str], Optional[A.SimpleType]] = lambda name: None,
                 decision_sink: Callable[[Decision], None] = lambda d: None):
        self._sink = range_sink
        self._decision_sink = decision_sink
        self._sort_of = sort_of
        self._result_type = result_type
        self._stored_sink = stored_sink
        self._call_sink = call_sink
        self._returns_computation = returns_computation
        self._infer = infer_hook
        self._fresh = fresh
        self._signature = signature
        self._list_key = list_key
        self._narrowed = narrowed
        self._guards: List[T.Term] = []
        #: the posteriors of the Infer rule without a closed form -> why there is none
        self.without_closed_form = {}
        #: the functions passed to vals in pure code (``verifier.translation.functions``)
        self.passed = Registry()
        self._dispatch = {
            A.Var: self._var, A.RunVar: self._runvar, A.UnitLit: self._unit,
            A.BoolLit: self._bool, A.IntLit: self._int, A.RealLit: self._real,
            A.TupleLit: self._tuple, A.ListLit: self._list, A.Cons: self._cons,
            A.BinOp: self._binop, A.UnOp: self._unop, A.If: self._if, A.Let: self._let,
            A.Fun: self._fun, A.App: self._app, A.Infer: self._infer_node,
            A.Return: self._monadic, A.MLet: self._monadic, A.Observe: self._monadic,
            A.Ran: self._monadic, A.SameRuns: self._same_runs, A.Conj: self._conj,
            A.Disj: self._disj, A.Neg: self._neg, A.Implies: self._implies,
            A.Quant: self._quant, A.Match: self._match, A.LetRec: self._letrec,
            A.DivBound: self._divbound,
        }
        # set per call to ``assertion``: the refined variable of ``=`` shorthand
        self._refined: Optional[str] = None

    # ---- entry points -----------------------------------------------------------------

    def expr(self, e: A.Expr, run: int, env: Env) -> SymValue:
        """The value of pure expression ``e`` in run ``run`` (1 or 2)."""
        return self._go(e, run, env)

    def term(self, e: A.Expr, run: int, env: Env) -> T.Term:
        """Like ``expr`` but the value must be a term (Real, Int, Bool, list or Dist)."""
        return self.as_term(self._go(e, run, env), e)

    def assertion(self, a: A.Expr, env: Env, refined: Optional[str] = None) -> T.Term:
        """The Bool term of assertion ``a``; ``refined`` names the variable of ``{x :: T | =}``."""
        saved, self._refined = self._refined, refined
        try:
            value = self._go(a, 0, env)
        finally:
            self._refined = saved
        t = self.as_term(value, a)
        if t.sort != T.BOOL:
            raise NoRule("an assertion must be a boolean", a.span)
        return t

    def apply(self, fn: SymValue, args: Sequence[SymValue], run: int, span: A.Span) -> SymValue:
        """Apply a function value to argument values (one at a time, curried)."""
        for arg in args:
            fn = self._apply1(fn, arg, run, span)
        return fn

    @staticmethod
    def as_term(v: SymValue, e: A.Node) -> T.Term:
        if isinstance(v, Scalar):
            return v.term
        if isinstance(v, DistV):
            return v.term
        raise NoRule(f"expected a number, boolean, list or distribution, found {_describe(v)}",
                     e.span)

    # ---- helpers --------------------------------------------------------------------------

    def _go(self, e: A.Expr, run: int, env: Env) -> SymValue:
        handler = self._dispatch.get(type(e))
        if handler is None:
            raise NoRule(f"no translation rule for {type(e).__name__}", e.span)
        try:
            value = handler(e, run, env)
        except T.SortError as exc:  # values the logic keeps apart (a [3] list and an int list)
            raise NoRule(f"the verifier's logic cannot relate these values here: {exc}",
                         e.span) from None
        if run:
            for narrowing in self._narrowed(e):
                self._narrowing(e, value, narrowing, run)
        return value

    def _narrowing(self, e: A.Expr, value: SymValue, n: "Narrowing", run: int) -> None:
        """The value of ``e`` flows where the simple types expect a narrower type (an ``int``
        where a ``[k]`` is expected: ``TypedProgram.narrowings``). Simple typing allows it and
        takes the narrower type for granted downstream (the sort of a fresh value, the type of
        a helper's parameter), so the value must have that type's ranges there — or, when
        they cannot be stated where it flows (a function, a computation in a pure position),
        the verifier refuses the code."""
        if n.kind != "value" or n.expected is None:
            what = {"function": "a function whose arguments or results", "computation":
                    "a computation whose draws"}.get(n.kind, "a value that")
            raise NoRule(f"{_short(e)} is {what} must have a narrower type here (an int or a "
                         "wider [j] where a [k] is expected), which the verifier cannot show "
                         "where it flows", e.span)
        if n.component is not None:
            if not (isinstance(value, TupleV) and n.component < len(value.items)):
                raise NoRule("a component of a tuple of unknown shape flows into a narrower "
                             "type", e.span)
            value = value.items[n.component]
        from verifier.translation.ranges import value_facts
        facts = value_facts(n.expected, value)
        what = (f"the value {_short(e)} has type {_type_text(n.expected)} where it flows "
                f"(an int or a wider [j] where a [k] is expected)")
        if facts is None:
            self._check(T.boolean(False), what + " (the verifier cannot name the value to "
                        "show it)", e.span, run)
        elif facts and not all(_closed_true(f) for f in facts):
            self._check(T.and_(*facts), what, e.span, run)

    def _check(self, condition: T.Term, description: str, span: A.Span, run: int) -> None:
        guard = T.and_(*self._guards) if self._guards else T.boolean(True)
        if condition == T.boolean(True):
            return
        self._sink(RangeCheck(condition, guard, description, span, run or None))
        from obligations.decidable import comparison_operands
        self._decide(comparison_operands(condition), f"the range check that {description}",
                     span, run)

    def _decide(self, operands: Sequence[T.Term], what: str, span: A.Span, run: int) -> None:
        """Report a decision the run makes on ``operands`` (``Decision``); nothing in a claim
        (``run`` 0: nothing runs) or when no operand may hold a real."""
        from obligations.decidable import carries_reals
        if not run or not any(carries_reals(t.sort) for t in operands):
            return
        guard = T.and_(*self._guards) if self._guards else T.boolean(True)
        self._decision_sink(Decision(tuple(operands), guard, what, span, run))

    def _lookup(self, name: str, run: int, env: Env, span: A.Span) -> SymValue:
        pair = env.lookup(name)
        if pair is None:
            if name in PURE_BUILTINS or name in MONADIC_BUILTINS:
                return Builtin(name)
            if name == "pi":
                return Scalar(T.pi())
            raise NoRule(f"{source_name(name)} is not bound here{_NOT_YET_BOUND}", span)
        if run == 0:  # assertion mode: a plain name must be equal in both runs
            if pair[0] != pair[1]:
                shown = source_name(name)
                raise NoRule(f"{shown} is not known to be equal in both runs; "
                             f"write {shown}<1> or {shown}<2>", span)
            return pair[0]
        return pair[run - 1]

    # ---- atoms ----------------------------------------------------------------------------

    def _var(self, e: A.Var, run: int, env: Env) -> SymValue:
        value = self._lookup(e.name, run, env, e.span)
        if isinstance(value, Closure) and not value.params:  # a top-level constant
            return self._go(value.body, run if run else 1, value.env)
        return value

    def _runvar(self, e: A.RunVar, run: int, env: Env) -> SymValue:
        if run != 0:
            raise NoRule(f"{e.name}<{e.run}> may only appear in assertions", e.span)
        pair = env.lookup(e.name)
        if pair is None:
            raise NoRule(f"{source_name(e.name)} is not bound here{_NOT_YET_BOUND}", e.span)
        return pair[e.run - 1]

    def _unit(self, e, run, env):
        return UnitV()

    def _bool(self, e: A.BoolLit, run, env):
        return Scalar(T.boolean(e.value))

    def _int(self, e: A.IntLit, run, env):
        return Scalar(T.integer(e.value))

    def _real(self, e: A.RealLit, run, env):
        return Scalar(T.real(Fraction(e.value)))

    def _tuple(self, e: A.TupleLit, run, env):
        return TupleV(tuple(self._go(i, run, env) for i in e.items))

    def _list(self, e: A.ListLit, run, env):
        values = [self._go(i, run, env) for i in e.items]
        key = self._list_key(e)
        if key is None and values:
            first = values[0]
            key = _key_of_sort(self.as_term(first, e.items[0]).sort, e.span) \
                if not isinstance(first, TupleV) else None
        if key is None:
            raise NoRule("the element type of [] is not known here", e.span)
        out = L.nil(L.list_sort(key))
        for value, node in reversed(list(zip(values, e.items))):
            out = L.cons(self._element(self._item(value, key, node), key, node.span, run), out)
        return Scalar(out)

    def _item(self, value: SymValue, key: str, node: A.Node) -> T.Term:
        """The term of ``value`` as an element of a ``List[key]`` (a tuple is made into an
        element of the list's tuple sort)."""
        term = element_term(value, key)
        if term is None:
            return self.as_term(value, node)
        return term

    def _cons(self, e: A.Cons, run, env):
        head = self._go(e.head, run, env)
        tail = self.as_term(self._go(e.tail, run, env), e.tail)
        key = L.list_key_of(tail.sort)
        if key is None:
            raise NoRule("the tail of :: is not a list", e.tail.span)
        return Scalar(L.cons(self._element(self._item(head, key, e.head), key, e.head.span, run),
                             tail))

    def _element(self, x: T.Term, key: str, span: A.Span, run: int) -> T.Term:
        """The term of an element ``x`` put into a list of sort ``List[key]``.

        A ``List[finK]`` is a ``[K] list``: the logic takes *every* term of that sort to have
        its elements in 0..K-1 (its category counts sum to its length,
        ``lists.catcount.total/k``, and adjacent ones move one count), so an element out of
        range would make those facts contradictory. The simple types do not guarantee it
        (an ``int`` flows where a ``[K]`` is inferred: ``(fun y -> y :: l) 7``), and a term
        of the logic outlives the path that evaluates it (``if c then return (y :: l) else
        return l`` binds the ``ite`` of both). So the element is kept in range in the term,
        ``ite (0 <= x < K, x, 0)`` — a ``[K] list`` on every path — and where the list is
        evaluated, that this is ``x`` is a condition the verifier needs (a ``RangeCheck``
        under the branch conditions on the way): ``privinfer run`` would build ``7 :: l``,
        which is no ``[K] list``. A constant in range is kept as it is. In a claim, where
        nothing is checked, an element not known to be in range is refused."""
        k = L.fin_size(key)
        if not k:
            return x
        if isinstance(x, T.Const) and not isinstance(x.value, bool) \
                and x.value == int(x.value) and 0 <= x.value < k:
            return x
        if not run:
            raise NoRule(f"an element of a [{k}] list that is not known to be in 0..{k - 1}",
                         span)
        inside = T.and_(*L.range_facts(A.TFin(k), x))
        self._check(inside, f"the element {T.pretty(x)} of a [{k}] list is in 0..{k - 1} (the "
                    f"verifier keeps the elements of a [{k}] list in range)", span, run)
        return T.ite(inside, x, 0)

    # ---- operators ------------------------------------------------------------------------

    def _binop(self, e: A.BinOp, run, env):
        if e.op in ("&&", "||"):
            left = self.term(e.left, run, env)
            if e.op == "&&":
                self._guards.append(left)
                try:
                    right = self.term(e.right, run, env)
                finally:
                    self._guards.pop()
                return Scalar(T.and_(left, right))
            self._guards.append(T.not_(left))
            try:
                right = self.term(e.right, run, env)
            finally:
                self._guards.pop()
            return Scalar(T.or_(left, right))
        lv = self._go(e.left, run, env)
        rv = self._go(e.right, run, env)
        if e.op in ("=", "<>"):
            eq = _equal(lv, rv, e)
            left_terms, right_terms = flat_terms(lv), flat_terms(rv)
            operands = left_terms + right_terms if left_terms is not None \
                and right_terms is not None else [self.as_term(lv, e.left),
                                                  self.as_term(rv, e.right)]
            if run and any(t in self.without_closed_form for t in operands):
                # two posteriors without a closed form are not compared by run: a range
                # condition that cannot hold, so the claim is rejected with the reason
                self._check(T.boolean(False), f"{_short(e)} compares a posterior without a "
                            "closed form, which privinfer run cannot decide", e.span, run)
            self._decide(operands, f"the comparison {_short(e)}", e.span, run)
            return Scalar(eq if e.op == "=" else T.not_(eq))
        left, right = self.as_term(lv, e.left), self.as_term(rv, e.right)
        if e.op == "+":
            return Scalar(T.add(left, right))
        if e.op == "-":
            return Scalar(T.sub(left, right))
        if e.op == "*":
            return Scalar(T.mul(left, right))
        if e.op == "/":
            self._check(T.ne(right, 0), "the divisor is not zero", e.right.span, run)
            return Scalar(T.div(left, right))
        comparisons = {"<": T.lt, "<=": T.le, ">": T.gt, ">=": T.ge}
        self._decide((left, right), f"the comparison {_short(e)}", e.span, run)
        return Scalar(comparisons[e.op](left, right))

    def _unop(self, e: A.UnOp, run, env):
        operand = self.term(e.operand, run, env)
        return Scalar(T.neg(operand) if e.op == "-" else T.not_(operand))

    def _if(self, e: A.If, run, env):
        cond = self.term(e.cond, run, env)
        self._guards.append(cond)
        try:
            then = self._go(e.then, run, env)
        finally:
            self._guards.pop()
        self._guards.append(T.not_(cond))
        try:
            other = self._go(e.else_, run, env)
        finally:
            self._guards.pop()
        return ite_value(cond, then, other, e)

    def _let(self, e: A.Let, run, env):
        value = self._go(e.value, run, env)
        self.check_pattern(e.pattern, value, run, e.span, "the value bound to")
        return self._go(e.body, run, bind_pattern(env, e.pattern, value, value, e.span))

    def _letrec(self, e: A.LetRec, run, env):
        if not run:
            raise NoRule("a local 'let rec' in a claim", e.span)
        fn = LocalRec(e.name, e.params, e.value, env)
        return self._go(e.body, run, env.bind(e.name, fn, fn))

    def local_call(self, fn: LocalRec, values: Sequence[SymValue], e: A.App, run: int
                   ) -> SymValue:
        """A call of a local recursive function on all its arguments: the deterministic
        symbol ``f(c1, …, ck, a1, …, an)`` of the first-order values it captures in this run
        (``captured``) and of its arguments — equal in both runs exactly when those are —
        reported as a ``CallCheck`` (for the termination of recursive calls) and as a
        ``LocalFunction`` (whose body the Safety walks check for every argument of these
        sorts). Its result must be a number, boolean, list or distribution."""
        if len(values) != len(fn.params):
            raise NoRule(f"the local recursive function {_written(fn.name)} is applied to "
                         f"{len(values)} arguments; it takes {len(fn.params)}", e.span)
        if not run:
            raise NoRule("a local recursive function called in a claim", e.span)
        sort = self._sort_of(e) or fn.result
        if sort is None:
            raise NoRule(f"the result of the local recursive function {_written(fn.name)} must "
                         "be a number, boolean, list or distribution", e.span)
        args: List[T.Term] = []
        for p, v in zip(fn.params, values):
            self.check_pattern(p, v, run, e.span)  # its annotations, where they bind
            flat = flat_terms(v)
            if flat is None:
                raise NoRule(f"a local recursive function applied to {_describe(v)}", e.span)
            args += flat
        call = L.opaque(fn.name, tuple(self.captured(fn, run, e.span)) + tuple(args), sort)
        guard = T.and_(*self._guards) if self._guards else T.boolean(True)
        params = tuple(v.term if isinstance(v, (Scalar, DistV)) else None for v in values)
        self._call_sink(CallCheck(call, fn.name, guard, e.span, run, local=True, params=params,
                                  values=tuple(values)))
        self._stored_sink(LocalFunction(fn, tuple(values), sort, guard, run, e.span))
        return Scalar(call)

    @staticmethod
    def captured(fn: LocalRec, run: int, span) -> List[T.Term]:
        """The first-order values a local recursive function captures in run ``run``, as
        terms, in a fixed order: those of the names its body uses, through the closures and
        functions they are bound to (whose code is the same in both runs). A computation it
        captures is refused: the symbol could not name it."""
        bound = {n for p in fn.params for n in A.pattern_names(p)} | {fn.name}
        return read_terms(fn.body, bound, fn.env, run, span, "a local recursive function",
                          seen=[fn])

    def _match(self, e: A.Match, run, env):
        raise NoRule("a 'match' inside an expression is not supported here; "
                     "match at the top of a function body", e.span)

    def _fun(self, e: A.Fun, run, env):
        return Closure(e.params, e.body, env)

    def _monadic(self, e: A.Expr, run, env):
        """A computation written in a pure position is kept as code, to be checked where it
        runs; but the language evaluates its eager parts now, run or not (the evaluator: the
        value of ``return v``, the distribution of ``ran d``, the first computation of an
        ``mlet``, the likelihood and prior of an ``observe``), so they are translated here
        for their range conditions and calls (a call there may fail or loop in one run)."""
        eager = {A.Return: lambda: (e.value,), A.Ran: lambda: (e.value,),
                 A.MLet: lambda: (e.value,), A.Observe: lambda: (e.likelihood, e.prior)}
        for part in eager.get(type(e), lambda: ())():
            self._go(part, run, env)
        return Monadic(e, env)

    def _made(self, e: A.App, run, env) -> Monadic:
        """The computation made by application ``e`` (of a mechanism, or of a function whose val
        returns a computation), its arguments already translated: kept as code, and reported to
        the stored-computation sink, since the application itself happens now."""
        guard = T.and_(*self._guards) if self._guards else T.boolean(True)
        self._stored_sink(StoredComputation(e, env, guard, run or None))
        return Monadic(e, env)

    def _infer_node(self, e: A.Infer, run, env):
        return self._infer(e.value, run, env)

    # ---- assertions -----------------------------------------------------------------------

    def _same_runs(self, e: A.SameRuns, run, env):
        if self._refined is None:
            raise NoRule("'=' is only meaningful as a refinement {x :: T | =}", e.span)
        pair = env.lookup(self._refined)
        return Scalar(_equal(pair[0], pair[1], e))

    def _conj(self, e: A.Conj, run, env):
        return Scalar(T.and_(self.term(e.left, run, env), self.term(e.right, run, env)))

    def _disj(self, e: A.Disj, run, env):
        return Scalar(T.or_(self.term(e.left, run, env), self.term(e.right, run, env)))

    def _neg(self, e: A.Neg, run, env):
        return Scalar(T.not_(self.term(e.operand, run, env)))

    def _implies(self, e: A.Implies, run, env):
        return Scalar(T.implies(self.term(e.left, run, env), self.term(e.right, run, env)))

    def _quant(self, e: A.Quant, run, env):
        sort = L.sort_of_type(e.type)
        if sort is None:
            raise NoRule(f"cannot quantify over {e.type}", e.span)
        v = self._fresh(e.var, sort, None)
        body_env = env.bind(e.var, Scalar(v), Scalar(v))
        body = self.term(e.body, run, body_env)
        facts = L.range_facts(e.type, v)
        if e.kind == "forall":
            return Scalar(T.forall(v, T.implies(T.and_(*facts), body) if facts else body))
        return Scalar(T.exists(v, T.and_(*facts, body)))

    def _divbound(self, e: A.DivBound, run, env):
        """``Delta[F] (e1, e2) <= e``: the f-divergence F of two symbolic distributions is at
        most ``e`` (the paper's §5 assertions; ``vocabulary.divergence``: SD is the total
        variation distance, HD the square of the Hellinger distance, DP(eps) the
        eps-distance)."""
        d1, d2 = (self.term(x, run, env) for x in (e.left, e.right))
        if d1.sort != L.DIST or d2.sort != L.DIST:
            raise NoRule("Delta[F] relates two symbolic distributions (values of type D[T])",
                         e.span)
        bound = self.term(e.bound, run, env)
        eps = self.term(e.div.eps, run, env) if e.div.kind == "DP" else None
        if eps is not None and eps.sort == T.INT:
            eps = T.to_real(eps)
        return Scalar(T.le(L.divergence(e.div.kind, d1, d2, eps), bound))

    # ---- application ----------------------------------------------------------------------

    def _app(self, e: A.App, run, env):
        head, args = flatten_app(e)
        fn = self._go(head, run, env)
        if e.annotation is not None and not (isinstance(fn, Builtin) and fn.name == "lapMech"):
            raise NoRule(f"[@{e.annotation.name} ...] gives the coupling of Laplace noise: it "
                         "applies to a call of lapMech only", e.annotation.span)
        values = [self._go(a, run, env) for a in args]
        if isinstance(fn, LocalRec):
            return self.local_call(fn, values, e, run)
        if isinstance(fn, FunParam) and not parameter_returns_computation(fn.rtype) \
                and function_arity(fn.rtype) == len(args):
            return self.parameter_call(fn, values, e, run)
        if self._makes_computation(fn, len(args)):
            # a computation made by a mechanism or a function with a val: its arguments are
            # evaluated now (their range conditions and calls count), the computation is
            # kept as code, to be checked where it is made and where it runs
            return self._made(e, run, env)
        return self.apply(fn, values, run, e.span)

    def _makes_computation(self, fn: SymValue, n: int) -> bool:
        """Whether applying ``fn`` to ``n`` arguments gives a computation the monadic rules
        check by name (a mechanism, or a function whose val returns one)."""
        if isinstance(fn, Builtin):
            return fn.name in MONADIC_BUILTINS and not fn.args and n == 1
        if isinstance(fn, NamedFun) and not fn.args:
            arity, sort = self._signature(fn.name)
            return sort is None and arity == n and self._returns_computation(fn.name)
        if isinstance(fn, FunParam):  # a saturated call of a function parameter (monadic)
            return function_arity(fn.rtype) == n and parameter_returns_computation(fn.rtype)
        return False

    def _apply1(self, fn: SymValue, arg: SymValue, run: int, span: A.Span) -> SymValue:
        if isinstance(fn, Closure):
            if not fn.params:
                raise NoRule("applying a value that is not a function", span)
            self._check_annotation(fn.params[0], arg, run, span)
            env = bind_pattern(fn.env, fn.params[0], arg, arg, span)
            if len(fn.params) > 1:
                return Closure(fn.params[1:], fn.body, env, fn.name)
            return self._go(fn.body, run, env)
        if isinstance(fn, Builtin):
            if fn.name in MONADIC_BUILTINS:
                return Monadic(None, None, name=fn.name)
            return self._builtin(fn.name, arg, run, span)
        if isinstance(fn, NamedFun):
            return self._opaque_call(fn, arg, run, span)
        if isinstance(fn, LocalRec):
            raise NoRule(f"the local recursive function {_written(fn.name)} is used here other "
                         "than in a call on all its arguments", span)
        if isinstance(fn, FunParam):
            raise NoRule(f"the function parameter {_written(fn.name)} is applied here other than "
                         "in a call on all its arguments (a call of a parameter of function "
                         "type is App-Val against its declared type)", span)
        raise NoRule(f"applying {_describe(fn)}", span)

    def _check_annotation(self, p: A.Pattern, arg: SymValue, run: int, span: A.Span) -> None:
        self.check_pattern(p, arg, run, span)

    def check_pattern(self, p: A.Pattern, value: SymValue, run: int, span: A.Span,
                      role: str = "the argument") -> None:
        """A pattern with written types (``(x : real+)``, ``(p : [3] * bool)``, in a ``fun``, a
        ``let``, an ``mlet``...) binding ``value``: each annotation is a range condition, as
        ``privinfer run`` checks it there (``evaluator.check_annotation``: scalars, tuples,
        simplex points; the elements of a list are not traversed, so a list annotation says
        nothing here, and nothing is assumed of it either)."""
        if isinstance(p, (A.PVar, A.PWild)) and p.annot is not None:
            from verifier.translation.ranges import value_facts
            facts = value_facts(p.annot, value, elements=False)
            name = p.name if isinstance(p, A.PVar) else "_"
            what = f"{role} {name} has type {_type_text(p.annot)}"
            if facts is None:
                self._check(T.boolean(False), what + " (the verifier cannot name the value to "
                            "show it)", span, run)
            elif facts:
                self._check(T.and_(*facts), what, span, run)
        elif isinstance(p, A.PTuple) and isinstance(value, TupleV) \
                and len(value.items) == len(p.items):
            for sub, item in zip(p.items, value.items):
                self.check_pattern(sub, item, run, span, role)

    def _opaque_call(self, fn: NamedFun, arg: SymValue, run: int, span: A.Span) -> SymValue:
        """A call to a function with a ``val`` in pure code: a deterministic symbol.

        Functions are the same in both runs, so equal arguments give equal results (congruence);
        nothing else is assumed of the result. A call that passes a function is a symbol of
        its run (``higher_order_call``).
        """
        args = fn.args + ((arg, arg),)
        arity, sort = self._signature(fn.name)
        if len(args) < arity:
            return NamedFun(fn.name, args)
        if any(is_function(left) for left, _ in args):
            return self.higher_order_call(fn.name, [left for left, _ in args], sort, run, span)
        terms: List[T.Term] = []
        for left, _ in args:
            flat = flat_terms(left)
            if flat is None:
                raise NoRule(f"{fn.name} is applied to {_describe(left)}", span)
            terms += flat
        result = self._result_type(fn.name)
        value = call_value(fn.name, terms, result) if result is not None else \
            Scalar(L.opaque(fn.name, tuple(terms), sort)) if sort is not None else None
        if value is None:
            raise NoRule(f"the result of {fn.name} is not a first-order value", span)
        guard = T.and_(*self._guards) if self._guards else T.boolean(True)
        values = tuple(left for left, _ in args)
        self._call_sink(CallCheck(
            (flat_terms(value) or [L.opaque(fn.name, tuple(terms), T.BOOL)])[0], fn.name, guard,
            span, run or None,
            params=tuple(v.term if isinstance(v, (Scalar, DistV)) else None for v in values),
            values=values))
        return value

    def parameter_call(self, fn: FunParam, values: Sequence[SymValue], e: A.App, run: int
                       ) -> SymValue:
        """A call ``m a1 … an``, on all its arguments, of a parameter of function type whose
        codomain is a pure value (App-Val against its declared type, HOARe²): the symbol of
        the run's function, ``fn_m'x1(a)`` or ``fn_m'x2(a)`` — the two runs' functions are
        never the same symbol; the call facts relate them by the type. Reported as a
        ``CallCheck`` (its arguments must be in the type's domain: Safety)."""
        if not run:
            raise NoRule(f"the function parameter {_written(fn.name)} is called in a claim",
                         e.span)
        result = parameter_result_type(fn.rtype)
        args: List[T.Term] = []
        for v in values:
            flat = flat_terms(v)
            if flat is None:
                raise NoRule(f"{_written(fn.name)} is applied to {_describe(v)}", e.span)
            args += flat
        value = result_value(V.parameter_function(fn.name, fn.run), args, result) \
            if result is not None else None
        if value is None:
            raise NoRule(f"the result of {_written(fn.name)} is not a first-order value",
                         e.span)
        guard = T.and_(*self._guards) if self._guards else T.boolean(True)
        self._call_sink(CallCheck(
            flat_terms(value)[0] if flat_terms(value) else T.boolean(True), fn.name, guard,
            e.span, run, params=tuple(v.term if isinstance(v, (Scalar, DistV)) else None
                                      for v in values),
            values=tuple(values), parameter=fn))
        return value

    def higher_order_call(self, name: str, values: Sequence[SymValue], sort, run: int,
                          span: A.Span) -> SymValue:
        """A call of the function ``name`` (through its val) that passes functions: the
        symbol of run ``run`` for the keys of the functions passed
        (``vocabulary.higher_order_function``), applied to the first-order values they read
        and to the other arguments. The functions passed are recorded (``passed``) for the
        call facts, which relate a run 1 call and a run 2 call of one key when the two runs'
        functions have the type the val expects (an S-Fun premise of the proof)."""
        if not run:
            raise NoRule(f"a call of {_written(name)} that passes a function, in a claim", span)
        keys: List[str] = []
        terms: List[T.Term] = []
        for v in values:
            if is_function(v):
                try:
                    passed = self.passed.add(v, run)
                except NotAFunction:
                    raise NoRule(f"a function passed to {_written(name)} that captures a "
                                 "computation or a local recursive function", span) from None
                keys.append(passed.key)
                terms += passed.terms
                continue
            flat = flat_terms(v)
            if flat is None:
                raise NoRule(f"{_written(name)} is applied to {_describe(v)}", span)
            terms += flat
        symbol = V.higher_order_function(name, run, tuple(keys))
        result = self._result_type(name)
        value = result_value(symbol, terms, result) if result is not None else \
            Scalar(V.symbol_call(symbol, tuple(terms), sort)) if sort is not None else None
        if value is None:
            raise NoRule(f"the result of {_written(name)} is not a first-order value", span)
        guard = T.and_(*self._guards) if self._guards else T.boolean(True)
        first = flat_terms(value)
        self._call_sink(CallCheck(
            first[0] if first else V.symbol_call(symbol, tuple(terms), T.BOOL), name, guard,
            span, run or None,
            params=tuple(v.term if isinstance(v, (Scalar, DistV)) else None for v in values),
            values=tuple(values)))
        return value

    # ---- built-ins ------------------------------------------------------------------------

    def _builtin(self, name: str, arg: SymValue, run: int, span: A.Span) -> SymValue:
        args = arg.items if isinstance(arg, TupleV) else (arg,)
        arity = PURE_BUILTINS.get(name)
        if name in ASSERTION_ONLY and run != 0:
            raise NoRule(f"{name} may only appear in assertions", span)
        if arity is not None and arity > 1 and len(args) != arity:
            raise NoRule(f"{name} takes {arity} arguments", span)
        method = getattr(self, "_b_" + name)
        return method(args if arity != 1 else (arg,), run, span)

    def _terms(self, args, span) -> List[T.Term]:
        out = []
        for a in args:
            if not isinstance(a, (Scalar, DistV)):
                raise NoRule(f"expected a first-order value, found {_describe(a)}", span)
            out.append(a.term)
        return out

    def _positive(self, t: T.Term, what: str, span, run) -> None:
        self._check(T.gt(t, 0), f"{what} is positive", span, run)

    def _unit_interval(self, t: T.Term, what: str, span, run) -> None:
        self._check(T.and_(T.ge(t, 0), T.le(t, 1)), f"{what} is in [0,1]", span, run)

    def _b_beta(self, args, run, span):
        a, b = self._terms(args, span)
        self._positive(a, "the 1st parameter of beta", span, run)
        self._positive(b, "the 2nd parameter of beta", span, run)
        return _dist("beta", (a, b))

    def _b_normal(self, args, run, span):
        m, v = self._terms(args, span)
        self._positive(v, "the variance of normal", span, run)
        return _dist("normal", (m, v))

    def _b_bernoulli(self, args, run, span):
        (p,) = self._terms(args, span)
        self._unit_interval(p, "the parameter of bernoulli", span, run)
        return _dist("bernoulli", (p,))

    def _b_uniform(self, args, run, span):
        return _dist("beta", (T.real(1), T.real(1)))

    def _b_dirichlet(self, args, run, span):
        if len(args) == 1 and isinstance(args[0], TupleV):
            args = args[0].items
        params = self._terms(args, span)
        if len(params) < 2:
            raise NoRule("dirichlet needs at least two parameters", span)
        for i, p in enumerate(params, 1):
            self._positive(p, f"parameter {i} of dirichlet", span, run)
        return _dist("dirichlet", tuple(params))

    def _b_categorical(self, args, run, span):
        (p,) = args
        ps = self._terms(p.items if isinstance(p, TupleV) else (p,), span)
        for i, q in enumerate(ps, 1):
            self._unit_interval(q, f"probability {i} of categorical", span, run)
        self._check(T.eq(T.add(*ps), 1), "the probabilities of categorical sum to 1", span, run)
        return _dist("categorical", tuple(ps))

    def _b_getParams(self, args, run, span):
        (d,) = args
        d = self._as_dist(d, span)
        if len(d.params) == 1:
            return Scalar(d.params[0])
        return TupleV(tuple(Scalar(p) for p in d.params))

    def _b_mean(self, args, run, span):
        d = self._as_dist(args[0], span)
        if d.family == "beta":
            a, b = d.params
            return Scalar(T.div(a, T.add(a, b)))
        if d.family == "normal":
            return Scalar(d.params[0])
        if d.family == "bernoulli":
            return Scalar(d.params[0])
        raise NoRule(f"mean of a {d.family} distribution is not supported", span)

    def _b_variance(self, args, run, span):
        d = self._as_dist(args[0], span)
        if d.family == "beta":
            a, b = d.params
            s = T.add(a, b)
            return Scalar(T.div(T.mul(a, b), T.mul(s, s, T.add(s, 1))))
        if d.family == "normal":
            return Scalar(d.params[1])
        if d.family == "bernoulli":
            p = d.params[0]
            return Scalar(T.mul(p, T.sub(1, p)))
        raise NoRule(f"variance of a {d.family} distribution is not supported", span)

    def _b_hellinger(self, args, run, span):
        _same_family(args, "hellinger", span)
        self._families_known(args, "hellinger", span, run)
        d1, d2 = self._terms(args, span)
        self._decide((d1, d2), "the comparisons of the two laws' parameters that hellinger "
                     "makes", span, run)
        return Scalar(L.hellinger(d1, d2))

    def _families_known(self, args, name: str, span, run) -> None:
        """``privinfer run`` computes a distance between two laws of one family only (beta or
        uniform, dirichlet, normal, finite): an argument whose family the verifier cannot see
        (a candidate drawn from a literal list, a distribution passed as a parameter) might
        be of another family, which would stop the run. A range condition that cannot hold,
        so the claim is rejected with the reason rather than verified."""
        unknown = [i for i, a in enumerate(args, 1) if not isinstance(a, DistV)]
        if unknown and run:  # (an assertion is about the mathematical distance: nothing runs)
            which = " and ".join(("1st", "2nd")[i - 1] for i in unknown)
            self._check(T.boolean(False), f"the {which} argument of {name} is of the same family as "
                        f"the other (its family is not known here: {name} is computed between two "
                        f"betas, two dirichlets, two normals or two finite laws)", span, run)

    def _b_tv(self, args, run, span):
        _same_family(args, "tv", span)
        self._families_known(args, "tv", span, run)
        if any(isinstance(a, DistV) and a.family == "dirichlet" and len(a.params) > 2
               for a in args):
            raise NoRule("tv between Dirichlet distributions over more than 2 categories is "
                         "not computed by privinfer run (it would stop there)", span)
        d1, d2 = self._terms(args, span)
        self._decide((d1, d2), "the comparisons of the two laws' parameters that tv makes",
                     span, run)
        return Scalar(L.tv(d1, d2))

    def _b_sigma(self, args, run, span):
        eps, delta = self._terms(args, span)
        self._positive(eps, "eps of sigma", span, run)
        self._check(T.and_(T.gt(delta, 0), T.lt(delta, Fraction(5, 4))),
                    "delta of sigma is in (0, 1.25)", span, run)
        return Scalar(T.div(T.sqrt(T.mul(2, T.log(T.div(Fraction(5, 4), delta)))), eps))

    def _b_posteriors(self, args, run, span):
        if run and not (isinstance(args[0], DistV) and args[0].family in ("beta", "dirichlet")):
            # run computes posteriors only for conjugate priors: a prior of another (or of an
            # unknown) family stops it
            self._check(T.boolean(False), "the prior of posteriors is a beta, uniform or dirichlet "
                        "distribution" + ("" if isinstance(args[0], DistV) else
                                          " (its family is not known here)"), span, run)
        prior, n = self._terms(args, span)
        self._check(T.ge(n, 0), "the number of observations is non-negative", span, run)
        return Scalar(L.posteriors_list(prior, n))

    def _b_fst(self, args, run, span):
        (p,) = args
        if not isinstance(p, TupleV) or len(p.items) != 2:
            raise NoRule("fst of a value that is not a pair", span)
        return p.items[0]

    def _b_snd(self, args, run, span):
        (p,) = args
        if not isinstance(p, TupleV) or len(p.items) != 2:
            raise NoRule("snd of a value that is not a pair", span)
        return p.items[1]

    def _b_abs(self, args, run, span):
        (x,) = self._terms(args, span)
        self._decide((x,), "the sign test of abs", span, run)
        return Scalar(T.abs_(x))

    def _b_min(self, args, run, span):
        a, b = self._terms(args, span)
        self._decide((a, b), "the comparison of min", span, run)
        return Scalar(T.min_(a, b))

    def _b_max(self, args, run, span):
        a, b = self._terms(args, span)
        self._decide((a, b), "the comparison of max", span, run)
        return Scalar(T.max_(a, b))

    def _b_exp(self, args, run, span):
        (x,) = self._terms(args, span)
        return Scalar(T.exp(x))

    def _b_log(self, args, run, span):
        (x,) = self._terms(args, span)
        self._positive(x, "the argument of log", span, run)
        return Scalar(T.log(x))

    def _b_sqrt(self, args, run, span):
        (x,) = self._terms(args, span)
        self._check(T.ge(x, 0), "the argument of sqrt is non-negative", span, run)
        return Scalar(T.sqrt(x))

    def _list_arg(self, args, span) -> T.Term:
        (lst,) = self._terms(args, span)
        if L.list_key_of(lst.sort) is None:
            raise NoRule("expected a list", span)
        return lst

    def _b_length(self, args, run, span):
        return Scalar(L.length(self._list_arg(args, span)))

    def _b_count(self, args, run, span):
        return Scalar(L.count(self._list_arg(args, span)))

    def _b_sum(self, args, run, span):
        return Scalar(L.total(self._list_arg(args, span)))

    def _b_adj(self, args, run, span):
        l1, l2 = self._terms(args, span)
        return Scalar(L.adj(l1, l2))

    def _b_adjWithin(self, args, run, span):
        l1, l2, c = self._terms(args, span)
        return Scalar(L.adj_within(l1, l2, c))

    def _b_allWithin(self, args, run, span):
        l1, l2, c = self._terms(args, span)
        return Scalar(L.all_within(l1, l2, c))

    def _b_dist(self, args, run, span):
        l1, l2 = self._terms(args, span)
        return Scalar(L.hamming(l1, l2))

    def _as_dist(self, v: SymValue, span) -> DistV:
        if not isinstance(v, DistV):
            why = self.without_closed_form.get(v.term) if isinstance(v, Scalar) else None
            raise NoRule("the distribution's family is not known here" +
                         (f" (infer has no closed form: {why})" if why else ""), span)
        return v


# ---- module helpers ---------------------------------------------------------------------

def parameter_codomain(rt: A.RType) -> A.RType:
    """The codomain of a function type after all its arrows (refinements of the arrows
    skipped; the codomain's own refinement kept)."""
    while True:
        while isinstance(rt, A.RRefine) and isinstance(_base(rt), A.RArrow):
            rt = rt.base
        if not isinstance(rt, A.RArrow):
            return rt
        rt = rt.cod


def _base(rt: A.RType) -> A.RType:
    while isinstance(rt, A.RRefine):
        rt = rt.base
    return rt


def parameter_returns_computation(rt: A.RType) -> bool:
    """Whether a function of type ``rt``, on all its arguments, returns a computation."""
    return isinstance(_base(parameter_codomain(rt)), A.RMonad)


def parameter_result_type(rt: A.RType) -> Optional[A.SimpleType]:
    """The simple type of what a function of type ``rt`` returns on all its arguments, when
    it is a pure first-order value."""
    base = _base(parameter_codomain(rt))
    return base.type if isinstance(base, A.RSimple) and leaves(base.type) is not None else None


def function_arity(rt: A.RType) -> int:
    """The number of arrows of a function type (refinements skipped)."""
    n = 0
    while True:
        while isinstance(rt, A.RRefine):
            rt = rt.base
        if not isinstance(rt, A.RArrow):
            return n
        n, rt = n + 1, rt.cod


def flatten_app(e: A.Expr) -> Tuple[A.Expr, List[A.Expr]]:
    """``f a b c`` as ``(f, [a, b, c])``."""
    args: List[A.Expr] = []
    while isinstance(e, A.App):
        args.append(e.arg)
        e = e.fn
    args.reverse()
    return e, args


def bind_pattern(env: Env, p: A.Pattern, left: SymValue, right: SymValue, span) -> Env:
    """Bind pattern ``p`` to the values of the two runs."""
    if isinstance(p, A.PVar):
        return env.bind(p.name, left, right)
    if isinstance(p, (A.PWild, A.PUnit)):
        return env
    if isinstance(p, A.PTuple):
        if not (isinstance(left, TupleV) and isinstance(right, TupleV)
                and len(left.items) == len(right.items) == len(p.items)):
            raise NoRule("a tuple pattern matched against a value that is not a tuple "
                         "of the same size", span)
        for sub, lv, rv in zip(p.items, left.items, right.items):
            env = bind_pattern(env, sub, lv, rv, span)
        return env
    raise NoRule(f"unsupported pattern {type(p).__name__}", span)


def _written(name: str) -> str:
    from verifier.language.resolve import written
    return written(name)


def _same_family(args, name: str, span) -> None:
    """Distances are defined between distributions of one family (run stops otherwise)."""
    families = {a.family for a in args if isinstance(a, DistV)}
    if len(families) > 1:
        raise NoRule(f"{name} between a {' and a '.join(sorted(families))} distribution is not "
                     "defined", span)


def _dist(family: str, params: Tuple[T.Term, ...]) -> DistV:
    real_params = tuple(T.to_real(p) if p.sort == T.INT else p for p in params)
    return DistV(family, real_params, L.dist_ctor(family, real_params))


def _equal(a: SymValue, b: SymValue, e: A.Node) -> T.Term:
    if isinstance(a, TupleV) and isinstance(b, TupleV) and len(a.items) == len(b.items):
        return T.and_(*(_equal(x, y, e) for x, y in zip(a.items, b.items)))
    if isinstance(a, UnitV) and isinstance(b, UnitV):
        return T.boolean(True)
    ta, tb = Translator.as_term(a, e), Translator.as_term(b, e)
    return T.eq(ta, tb)


def ite_value(cond: T.Term, a: SymValue, b: SymValue, e: A.Node) -> SymValue:
    """The value that is ``a`` where ``cond`` holds and ``b`` elsewhere; ``NoRule`` for values
    the logic cannot name (functions, computations)."""
    if isinstance(a, TupleV) and isinstance(b, TupleV) and len(a.items) == len(b.items):
        return TupleV(tuple(ite_value(cond, x, y, e) for x, y in zip(a.items, b.items)))
    if isinstance(a, UnitV) and isinstance(b, UnitV):
        return a
    if isinstance(a, DistV) and isinstance(b, DistV) and a.family == b.family \
            and len(a.params) == len(b.params):
        params = tuple(T.ite(cond, x, y) for x, y in zip(a.params, b.params))
        return DistV(a.family, params, T.ite(cond, a.term, b.term))
    return Scalar(T.ite(cond, Translator.as_term(a, e), Translator.as_term(b, e)))


def _key_of_sort(sort: T.Sort, span) -> str:
    key = element_key_of_sort(sort)
    if key is None:
        raise NoRule(f"lists of {sort} are not supported", span)
    return key


def _closed_true(t: T.Term) -> bool:
    """Whether ``t`` is a comparison (or a conjunction of comparisons) of constants that
    holds: a condition not worth an obligation (``2 >= 0``)."""
    if isinstance(t, T.Op) and t.op == T.OpKind.AND:
        return all(_closed_true(a) for a in t.args)
    if not (isinstance(t, T.Op) and len(t.args) == 2
            and all(isinstance(a, T.Const) and not isinstance(a.value, bool) for a in t.args)):
        return False
    x, y = (a.value for a in t.args)
    table = {T.OpKind.LT: x < y, T.OpKind.LE: x <= y, T.OpKind.GT: x > y, T.OpKind.GE: x >= y,
             T.OpKind.EQ: x == y, T.OpKind.NE: x != y}
    return table.get(t.op, False)


def _short(e: A.Expr, limit: int = 40) -> str:
    from verifier.language.pretty import pretty_expr
    from verifier.language.resolve import written
    text = written(" ".join(pretty_expr(e).split()))
    return text if len(text) <= limit else text[:limit - 1] + "…"


def _type_text(t: A.SimpleType) -> str:
    from verifier.language.pretty import pretty_type
    return pretty_type(t)


def _describe(v: SymValue) -> str:
    return {Scalar: "a value", TupleV: "a tuple", UnitV: "()", DistV: "a distribution",
            Closure: "a function", NamedFun: "a function", Builtin: "a built-in",
            LocalRec: "a local recursive function",
            Monadic: "a monadic computation"}.get(type(v), type(v).__name__)


def read_terms(body: A.Expr, bound, env: Optional[Env], run: int, span, who: str,
               seen: Optional[List[SymValue]] = None, computations: bool = False
               ) -> List[T.Term]:
    """The first-order values code ``body`` reads in run ``run`` (``run`` 0: run 1's), as
    terms, in a fixed order: those of its free names (but ``bound``), through the closures,
    functions and — with ``computations`` — stored computations they are bound to (whose code
    is the same in both runs). Anything else (a computation known only by its type) is
    refused (``who`` says whose symbol could not name it)."""
    from verifier.language.free_vars import free_vars
    out: List[T.Term] = []
    seen = list(seen or ())
    side = run - 1 if run else 0

    def code(part: A.Expr, names, where: Optional[Env]) -> None:
        for name in sorted(free_vars(part) - names):
            pair = where.lookup(name) if where is not None else None
            if pair is not None:
                value(pair[side])

    def value(v: SymValue) -> None:
        if isinstance(v, (Scalar, DistV)):
            out.append(v.term)
        elif isinstance(v, TupleV):
            for item in v.items:
                value(item)
        elif isinstance(v, Builtin):
            for item in v.args:
                value(item)
        elif isinstance(v, NamedFun):
            for item, _ in v.args:
                value(item)
        elif isinstance(v, (Closure, LocalRec)) or (computations and isinstance(v, Monadic)
                                                     and v.expr is not None):
            if any(v is x for x in seen):
                return
            seen.append(v)
            if isinstance(v, Monadic):
                code(v.expr, set(), v.env)
                return
            names = {n for p in v.params for n in A.pattern_names(p)}
            code(v.body, names | ({v.name} if isinstance(v, LocalRec) else set()), v.env)
        elif not isinstance(v, UnitV):
            raise NoRule(f"{who} that reads a computation known only by its type" if
                         computations else f"{who} that captures a computation", span)

    code(body, set(bound), env)
    return out
