"""The unary part of the type system: every range condition of the code holds (Safety).

The relational rules reason about two runs at once and may skip code altogether (EqualInputs
needs no look inside). Range conditions — a positive ``beta`` parameter, a non-zero divisor,
a probability in [0,1], a positive epsilon — are properties of *each* run, so they are
checked here, by one walk over the body of every verified definition for each run, with the
refinement types' unary facts (a draw from ``ran (beta …)`` lies in [0,1], an argument of type
``real+`` is positive...). Every condition becomes a ``RANGE`` obligation.
"""
from __future__ import annotations

from typing import Callable, List, Optional, Sequence, Tuple

from obligations import terms as T
from obligations.candidates import literal_members
from obligations.model import Obligation, ObligationKind
from obligations.records import record
from verifier.language.free_vars import free_vars
from verifier.language import ast as A
from verifier.translation import logic as L
from verifier.rules import registry
from verifier.rules.builder import Builder
from verifier.rules.context import Ctx
from verifier.rules.derivation import short
from verifier.rules.refinements import fresh_value, simple_of
from verifier.rules.registry import judgement_rule
from verifier.translation.symbolic import (Closure, DistV, FunParam, LocalRec, Monadic,
                                           NamedFun, Scalar, SymValue, TupleV)
from verifier.language.resolve import call_sites, counted_parameter, matched_parameter, source_name
from verifier.language.shapes import nonempty_call
from verifier.translation.calls import element_value
from verifier.language.supports import family_support
from verifier.translation.inferred import draws_refused
from verifier.translation.ranges import (fresh_like, has_ranges, rational_draws,
                                         unknown_family_draws, value_facts, value_sorts)
from verifier.translation.translate import (CallCheck, Decision, LocalFunction, NoRule,
                                            RangeCheck, StoredComputation, bind_pattern,
                                            flatten_app, missing_val)
from verifier.rules.decidable import Decidability, is_entry


@record
class Elem:
    """What a monadic computation draws: an exact value, or a fresh value with the facts its
    type gives. ``make(b, name)`` returns the value and the facts; ``name`` (the program
    variable it will be bound to, when there is one) names the fresh variables."""

    make: Callable[[Builder, Optional[str]], Tuple[SymValue, List[T.Term]]]
    #: the draws are rational, relying on these parameters' being rational (the Decidable
    #: condition, ``verifier.rules.decidable``); None: not known to be rational
    rational: Optional[frozenset] = None
    #: the draws are read by their density (a continuous draw in a likelihood)
    density: bool = False


def exact(value: SymValue) -> Elem:
    return Elem(lambda b, name: (value, []))


def of_type(t: Optional[A.SimpleType], default: str = "x") -> Elem:
    """Fresh values of simple type ``t`` with its range facts (opaque when ``t`` has no sort)."""
    return Elem(lambda b, name: fresh_value(b, t, name or default))


OPAQUE = of_type(None)


def _draws_of(ctx, d: T.Term, t: Optional[A.SimpleType]) -> Elem:
    """The draws of a distribution ``d`` of unknown family simply typed ``D[t]``
    (``ranges.unknown_family_draws``)."""
    return Elem(unknown_family_draws(ctx.hyps, d, t, lambda u: of_type(u, "x").make))

#: the monadic forms whose result is that of a sub-computation (``Safety.monadic``'s ``want``)
_TAIL_POSITIONS = (A.MLet, A.Let, A.If, A.Match, A.Var, A.App, A.LetRec)


def type_facts(t: Optional[A.SimpleType], value: SymValue) -> Optional[List[T.Term]]:
    """The facts ``fresh_value`` assumes of a value of simple type ``t``, stated of ``value``
    (the ranges of scalars and of list elements, tuples component-wise, simplex points); None
    when ``t`` says something of values that ``value`` does not name (an opaque value). The
    shared notion: ``verifier.translation.ranges.value_facts``."""
    return value_facts(t, value)


class Safety:
    """Checks the range conditions of one definition body in one run."""

    def __init__(self, b: Builder, run: int, decidability: Optional[Decidability] = None):
        self.b = b
        self.run = run
        self.obligations: List[Obligation] = []
        #: the Decidable condition of this walk (every decision the run makes is safe)
        self.dec = decidability or Decidability(b, run, entry=False)
        #: the local recursive functions checked (or being checked), with their argument sorts
        self._locals: List[Tuple[LocalRec, object]] = []
        #: the funs passed in pure code already walked (by key and captured terms)
        self._walked: set = set()
        #: the spans of the calls of local recursive functions met on the way
        self._local_calls: set = set()
        #: the candidate lists of expMech shown non-empty by their shape (NonEmpty-Induction:
        #: calls of local recursive functions that always return a non-empty list)
        self.nonempty: set = set()
        #: walking the model of an ``infer`` (its observes are inferred, not drawn from)
        self._inferring = False

    # ---- pure code ------------------------------------------------------------------------

    def value(self, ctx: Ctx, e: A.Expr) -> SymValue:
        """Translate pure ``e`` in this run, turning its range conditions into obligations
        (and, in a recursive function's body, the termination of its recursive calls)."""
        checks: List[RangeCheck] = []
        calls: List[CallCheck] = []
        stored: List[StoredComputation] = []
        decisions: List[Decision] = []
        with self.b.collecting(checks, calls, stored, decisions):
            value = self.b.translator.expr(e, self.run, ctx.env)
        self._emit(ctx, checks)
        self.dec.decide(self, ctx, decisions)
        self._terminates(ctx, calls)
        self._made(ctx, stored)
        return value

    def _in_domain(self, ctx: Ctx, name: str, args: Sequence[Optional[SymValue]], call: str,
                   span, guard: T.Term = T.boolean(True)) -> None:
        """The call ``call`` of ``name``'s val (evaluated when ``guard`` holds) has arguments
        in the val's domain, where its definition is shown to terminate without error
        (``call_facts.call_precondition``)."""
        from verifier.rules.call_facts import call_precondition
        pre = call_precondition(self.b, name, args, self.run)
        what = (f"the arguments of {call} are in the domain of {source_name(name)}'s val "
                "(where it is shown to terminate without error)")
        if pre is None:
            goal, what = T.boolean(False), what + ", which the logic cannot state"
        elif not pre:
            return
        else:
            goal = T.and_(*pre)
        self.require(ctx, goal if guard == T.boolean(True) else T.implies(guard, goal), what,
                     span)

    def _terminates(self, ctx: Ctx, calls: Sequence[CallCheck]) -> None:
        """Each recursive call the translation evaluated — wherever it stands in the code, its
        value used or not — is on a shorter list than this run's at the induction position,
        on the path that evaluates it (the branch conditions above it): the recursion
        terminates. And every call of a function through its val (recursive or not) has
        arguments in the val's domain: the callee is shown safe and terminating only there."""
        for c in calls:
            if c.local:  # a local recursive function: total (its check), no val
                self._local_calls.add((c.function, _at(c.span)))
                if c.function == ctx.function:
                    self._shorter(ctx, c.params, c.guard, T.pretty(c.call), c.span)
                continue
            if c.parameter is not None:  # a parameter of function type (a pure result)
                self._pure_parameter_call(ctx, c)
                continue
            if ctx.function is not None and c.function == ctx.function:
                self._shorter(ctx, c.params, c.guard, T.pretty(c.call), c.span)
            self._in_domain(ctx, c.function, c.values, T.pretty(c.call), c.span, c.guard)
            self.dec.call(c.function, [self.dec.tags(v) if v is not None else None
                                       for v in c.values], c.span)
            self._passed_functions(ctx, c)

    def _pure_parameter_call(self, ctx: Ctx, c: CallCheck) -> None:
        """A call of a parameter of function type returning a pure value (``higher_order``):
        a verified function (callers pass only those), safe and terminating on arguments in
        its type's domain, which the walk requires at ``(a, a)`` where the call is evaluated;
        its arguments must be rational (whatever contract the passed function has is then
        met); what it returns has its type's ranges (the call facts) and is not known to be
        rational."""
        from verifier.rules.call_facts import call_precondition
        fn = c.parameter
        for i, value in enumerate(c.values, 1):
            self.dec.require_rational(self.dec.tags(value), f"the comparisons the function "
                                      f"passed as {source_name(fn.name)} may make on argument "
                                      f"{i} of this call", c.span)
        pre = call_precondition(self.b, fn.name, c.values, self.run, rtype=fn.rtype, env=fn.env)
        what = (f"the arguments of {T.pretty(c.call)} are in the domain of the type of "
                f"{source_name(fn.name)} (where the function passed is shown to terminate "
                "without error)")
        if pre is None:
            goal, what = T.boolean(False), what + ", which the logic cannot state"
        elif not pre:
            return
        else:
            goal = T.and_(*pre)
        self.require(ctx, goal if c.guard == T.boolean(True) else T.implies(c.guard, goal), what,
                     c.span)

    def _passed_functions(self, ctx: Ctx, c: CallCheck) -> None:
        """The functions a call in pure code passes to a val (``higher_order``): each is run
        by the callee on arguments of its type's domain, as often as it likes — a function
        parameter passed on needs nothing, a val's function applied to first arguments needs
        them in its domain, a ``fun`` is walked on fresh arguments (``_walk_fun``)."""
        from verifier.translation.functions import is_function
        val = self.b.val_of(c.function)
        if val is None or not any(is_function(v) for v in c.values):
            return
        rt, doms = val.rtype, []
        while isinstance(rt, A.RArrow):
            doms.append(rt.dom)
            rt = rt.cod
        for value, dom in zip(c.values, doms):
            if isinstance(_strip(dom), A.RArrow):
                self._passed_value(ctx, value, dom, c.span)

    def _passed_value(self, ctx: Ctx, fn: SymValue, want: A.RType, span) -> None:
        from verifier.translation.functions import NotAFunction, function_key
        if isinstance(fn, FunParam):
            return
        if isinstance(fn, NamedFun) and self.b.val_of(fn.name) is not None:
            values = [a for a, _ in fn.args]
            self._in_domain(ctx, fn.name, values, source_name(fn.name), span)
            self.dec.call(fn.name, [self.dec.tags(v) for v in values], span)
            self._rational_results(fn.name, values, want, span)
            return
        try:
            key = function_key(fn, self.run)
        except NotAFunction:
            raise NoRule("a function passed that captures a computation", span) from None
        if (key[0], tuple(key[1])) in self._walked:
            return
        self._walked.add((key[0], tuple(key[1])))
        self._walk_fun(ctx, fn, want, span)

    def _shorter(self, ctx: Ctx, args: Sequence[T.Term], guard: T.Term, call: str,
                 span) -> None:
        """The recursive call with arguments ``args`` (evaluated when ``guard`` holds) is on a
        shorter list than this run's at the induction position."""
        if ctx.induction is None:
            raise NoRule(f"the recursive call {call} needs structural recursion: "
                         f"{source_name(ctx.function)} must match on a list parameter and recur "
                         "on its tail, or count an integer parameter down (f (k - 1))", span)
        position, *lists = ctx.induction
        if args[position] is None:
            raise NoRule(f"the list of the recursive call {call} must be a value", span)
        goal = L.below(args[position], lists[self.run - 1])
        self.require(ctx, goal if guard == T.boolean(True) else T.implies(guard, goal),
                     f"the recursive call {call} is on a shorter list or a smaller counter "
                     "(structural recursion: termination)", span)

    def apply(self, ctx: Ctx, fn: SymValue, args: Sequence[SymValue], span) -> SymValue:
        checks: List[RangeCheck] = []
        calls: List[CallCheck] = []
        stored: List[StoredComputation] = []
        decisions: List[Decision] = []
        with self.b.collecting(checks, calls, stored, decisions):
            value = self.b.translator.apply(fn, args, self.run, span)
        self._emit(ctx, checks)
        self.dec.decide(self, ctx, decisions)
        self._terminates(ctx, calls)
        self._made(ctx, stored)
        return value

    def _made(self, ctx: Ctx, stored: Sequence[StoredComputation]) -> None:
        """Each computation pure code made by an application (``StoredComputation``) is
        checked where it is made, as the application it is: a mechanism's parameters, a val's
        domain (its Safety walk, ``_m_App``)."""
        for made in stored:
            if isinstance(made, LocalFunction):
                self.local_function(ctx, made)
                continue
            inner = ctx.with_env(made.env)
            if made.guard != T.boolean(True):
                inner = inner.assume("h_made", made.guard)
            with self.dec.branch(made.guard):
                self.monadic(inner, made.expr)

    def local_function(self, ctx: Ctx, made: LocalFunction) -> None:
        """A call of a local recursive function (``let rec`` in an expression, which has no
        val) is a deterministic symbol that presumes the call returns: the function must
        terminate without error on *every* argument of the call's sorts (``local_body``)."""
        instance = LocalRec(made.fn.name, made.fn.params, made.fn.body, made.fn.env,
                            result=made.result)
        self.local_body(ctx, instance, made.args, made.result, made.guard, made.span)

    def local_body(self, ctx: Ctx, fn: LocalRec, args: Sequence[SymValue], result,
                   guard: T.Term, span, monadic: bool = False) -> None:
        """The body of the local recursive function ``fn`` (``result``: its result sort, or
        the type of its draws) is walked once per shape of arguments, on fresh ones (with the
        facts of their annotations, which every call site checks where they bind), in the
        context where it is called, with its recursive calls on shorter lists at the
        parameter it matches on (structural recursion), each of which the walk must
        evaluate. A local function that calls the enclosing recursive definition is refused
        (that call's termination would not be shown)."""
        # a parameter is rational in this walk when the call passes a rational: induction
        # over the calls, each of another pattern walked on its own (Decidable)
        tags = [self.dec.tags(a) for a in args]
        key = (tuple(value_sorts(a) for a in args), result, monadic,
               tuple(t is not None for t in tags))
        if any(f.env is fn.env and f.name == fn.name and k == key for f, k in self._locals):
            # checked, or being checked (a recursive call: the induction hypothesis); what
            # the rational arguments rest on flows into the parameters
            for t in tags:
                self.dec.relied |= t or frozenset()
            return
        self._locals.append((fn, key))
        name = source_name(fn.name)
        outer = ctx.function
        if outer is not None and outer != fn.name and outer in _free_names(fn):
            raise NoRule(f"the local recursive function {name} calls "
                         f"{source_name(outer)}, whose termination is shown only for its own "
                         "calls", span)
        inner = ctx.with_env(fn.env.bind(fn.name, fn, fn))
        if guard != T.boolean(True):
            inner = inner.assume("h_made", guard)
        values = []
        for i, (p, a) in enumerate(zip(fn.params, args), 1):
            v = fresh_like(a, self.b.fresh, p.name if isinstance(p, A.PVar) else f"{name}_{i}")
            if v is None:
                raise NoRule(f"the local recursive function {name} is applied to a value that "
                             "is not first-order", span)
            facts = value_facts(p.annot, v, elements=False) if isinstance(p, A.PVar) \
                and p.annot is not None else []
            if facts is None:
                raise NoRule(f"the annotation of a parameter of {name} cannot be stated", span)
            if facts:
                inner = inner.assume("h_param", T.and_(*facts))
            inner = inner.with_env(bind_pattern(inner.env, p, v, v, span))
            self.dec.register(v, tags[i - 1])
            values.append(v)
        position = matched_parameter(fn.params, fn.body)
        if position is None:
            position = counted_parameter(fn.params, fn.body, fn.name)
        induction = None
        if position is not None and isinstance(values[position], Scalar) \
                and (L.list_key_of(values[position].term.sort)
                     or values[position].term.sort == T.INT):
            x = values[position].term
            induction = (position, x, x)
        from obligations.records import replace
        inner = replace(inner, function=fn.name, induction=induction)
        with self.dec.apart():  # run on any arguments, as often as the callers say
            if monadic:
                self.monadic(inner, fn.body)
            else:
                _pure_cases(self, inner, fn.body, None)
        calls, stray = call_sites(fn.name, fn.body, len(fn.params))
        if stray:
            raise NoRule(f"{name} is used in its own body other than in a call on all its "
                         "arguments: its termination is not shown", stray[0].span)
        for call in calls:
            if (fn.name, _at(call.span)) not in self._local_calls:
                raise NoRule(f"the recursive call {short(call)} is in code the verifier never "
                             "evaluates, so its termination is not shown", call.span)

    def _local_call(self, ctx: Ctx, e: A.App, fn: LocalRec, args: List[A.Expr]) -> Elem:
        """A call of a local recursive function returning a computation: its arguments (and
        their annotations, where they bind), its body shown total for their sorts — or, in
        its own body, the call on a shorter list; it draws values of its type."""
        if len(args) != len(fn.params):
            raise NoRule(f"{source_name(fn.name)} is applied to {len(args)} arguments; it takes "
                         f"{len(fn.params)}", e.span)
        values = [self.value(ctx, a) for a in args]
        for p, v, a in zip(fn.params, values, args):
            self.annotations(ctx, p, v, a.span)
        self._local_calls.add((fn.name, _at(e.span)))
        t = self.b.type_of(e)
        draws = t.elem if isinstance(t, A.TMonad) else fn.draws
        if fn.name == ctx.function:  # a recursive call in its own body
            terms = [v.term if isinstance(v, (Scalar, DistV)) else None for v in values]
            self._shorter(ctx, terms, T.boolean(True), short(e), e.span)
        # in its own body: the induction hypothesis when it passes rationals where the walk
        # assumed them, else the body walked for the call's pattern too (``local_body``)
        instance = LocalRec(fn.name, fn.params, fn.body, fn.env, draws=draws)
        self.local_body(ctx, instance, values, draws, T.boolean(True), e.span, monadic=True)
        return of_type(draws)

    def _emit(self, ctx: Ctx, checks: List[RangeCheck]) -> None:
        for c in checks:
            self.obligations.append(self.b.range_obligation(ctx, c))

    def require(self, ctx: Ctx, condition: T.Term, description: str, span) -> None:
        self.obligations.append(self.b.oblige(ctx, ObligationKind.RANGE, condition,
                                              f"{description} (run {self.run})", span, "Range"))

    def bind(self, ctx: Ctx, p: A.Pattern, elem: Elem, span) -> Ctx:
        value, facts = self.drawn(elem, p.name if isinstance(p, A.PVar) else None)
        if facts:
            ctx = ctx.assume("h_draw", T.and_(*facts))
        self.annotations(ctx, p, value, span, "the value bound to")
        return ctx.with_env(bind_pattern(ctx.env, p, value, value, span))

    def drawn(self, elem: Elem, name: Optional[str]) -> Tuple[SymValue, List[T.Term]]:
        """A value ``elem`` draws, made fresh, with what the Decidable condition knows of it
        (rational, or read by its density)."""
        value, facts = elem.make(self.b, name)
        if elem.rational is not None:
            self.dec.register(value, elem.rational)
        if elem.density and isinstance(value, Scalar) and isinstance(value.term, T.Var):
            self.dec.density.add(value.term)
        return value, facts

    def draw_tags(self, elem: Elem) -> Optional[frozenset]:
        """The tags of the draws of a computation when they are rational (None otherwise)."""
        value, _ = self.drawn(elem, None)
        return elem.rational if elem.rational is not None else self.dec.tags(value)

    def annotations(self, ctx: Ctx, p: A.Pattern, value: SymValue, span,
                    role: str = "the argument") -> None:
        """The written types of pattern ``p`` (``mlet (x : real+) = …``, a helper's ``(x :
        [3])``) binding ``value`` in this run: range conditions where it binds, as ``run``
        checks them (``Translator.check_pattern``)."""
        checks: List[RangeCheck] = []
        decisions: List[Decision] = []
        with self.b.collecting(checks, decisions=decisions):
            self.b.translator.check_pattern(p, value, self.run, span, role)
        self._emit(ctx, checks)
        self.dec.decide(self, ctx, decisions)

    # ---- monadic code -----------------------------------------------------------------------

    def monadic(self, ctx: Ctx, e: A.Expr, want: Optional[A.SimpleType] = None) -> Elem:
        """Check ``e : M[T]`` and describe what it draws. With ``want`` (the simple type of
        the values the definition's val says it returns), also require, at every tail
        position, that the values drawn there have that type's ranges: callers assume them
        (``elem_of_rtype``), so the definition must prove them."""
        method = getattr(self, "_m_" + type(e).__name__, None)
        if method is None:
            raise NoRule(f"no safety rule for {type(e).__name__} in a monadic position", e.span)
        if want is None:
            elem = method(ctx, e)
        elif isinstance(e, _TAIL_POSITIONS):
            elem = method(ctx, e, want)
        else:
            elem = self.returns(ctx, method(ctx, e), want, e.span)
        for n in self.b.narrowings(e):
            self._narrowed(ctx, e, elem, n)
        return elem

    def _narrowed(self, ctx: Ctx, e: A.Expr, elem: Elem, n) -> None:
        """The computation ``e`` flows where the simple types expect one of a narrower type
        (``M[int]`` where ``M[[k]]`` is expected, ``TypedProgram.narrowings``): what it draws
        must have that type's ranges (the code after it takes them for granted)."""
        if n.kind != "computation" or not isinstance(n.expected, A.TMonad):
            raise NoRule(f"{short(e)} must have a narrower type here (an int where a [k] is "
                         "expected), which the verifier cannot show where it flows", e.span)
        value, facts = elem.make(self.b, None)
        inner = ctx.assume("h_draw", T.and_(*facts)) if facts else ctx
        self.has_type(inner, value, n.expected.elem, f"the values {short(e)} draws have type "
                      f"{_pretty_type(n.expected.elem)} where it flows (an int where a [k] is "
                      "expected)", e.span, "Range")

    def returns(self, ctx: Ctx, elem: Elem, want: A.SimpleType, span) -> Elem:
        """Require that the values ``elem`` draws have the ranges of ``want``."""
        value, facts = elem.make(self.b, None)
        inner = ctx.assume("h_draw", T.and_(*facts)) if facts else ctx
        self.has_type(inner, value, want, "the values this computation returns have the type "
                      "its val says", span)
        return elem

    def has_type(self, ctx: Ctx, value: SymValue, want: A.SimpleType, what: str, span,
                 rule: str = "Result") -> None:
        """Require the range facts of ``want`` of ``value`` — the facts ``fresh_value`` gives a
        value of that type wherever the val is used; a value the walk cannot name while the
        type says something of it is a condition that cannot be shown. ``rule``: the
        obligations' provenance (``Result`` for what a definition returns, which the kernel
        looks for)."""
        wanted = type_facts(want, value)
        if wanted is None:
            goal, what = T.boolean(False), f"{what} (the verifier cannot name the value to show it)"
        elif wanted:
            goal = T.and_(*wanted)
        elif rule == "Result" and has_ranges(want):
            goal = T.boolean(True)  # implied by the value's sort (a [3] list is a nat list)
        else:
            return
        self.obligations.append(self.b.oblige(ctx, ObligationKind.RANGE, goal,
                                              f"{what} (run {self.run})", span, rule))

    def _m_Return(self, ctx: Ctx, e: A.Return) -> Elem:
        value = self.value(ctx, e.value)
        return Elem(exact(value).make, rational=self.dec.tags(value))

    def _m_MLet(self, ctx: Ctx, e: A.MLet, want=None) -> Elem:
        first = self.monadic(ctx, e.value)
        return self.monadic(self.bind(ctx, e.pattern, first, e.span), e.body, want)

    def _m_Let(self, ctx: Ctx, e: A.Let, want=None) -> Elem:
        v = self.value(ctx, e.value)
        self.annotations(ctx, e.pattern, v, e.span, "the value bound to")
        return self.monadic(ctx.with_env(bind_pattern(ctx.env, e.pattern, v, v, e.span)), e.body,
                            want)

    def _m_If(self, ctx: Ctx, e: A.If, want=None) -> Elem:
        cond = self.b.translator.as_term(self.value(ctx, e.cond), e.cond)
        with self.dec.branch(cond):
            then = self.monadic(ctx.assume("h_then", cond), e.then, want)
            other = self.monadic(ctx.assume("h_else", T.not_(cond)), e.else_, want)
        return _either(then, other)

    def cons_context(self, ctx: Ctx, e: A.Match, lst: T.Term) -> Ctx:
        """The context of the ``::`` case of ``e`` on the list ``lst``: fresh head and tail
        (known to Decidable through the list), ``lst = head :: tail`` assumed, both bound."""
        h = self.b.fresh(e.head if e.head != "_" else "hd", L.elem_sort(L.list_key_of(lst.sort)))
        t = self.b.fresh(e.tail if e.tail != "_" else "tl", lst.sort)
        self.dec.matched(lst, h, t)
        inner = ctx.assume("h_cons", T.eq(lst, L.cons(h, t)))
        for name, v in ((e.head, h), (e.tail, t)):
            if name != "_":
                inner = inner.bind(name, element_value(v), element_value(v))
        return inner

    def _m_Match(self, ctx: Ctx, e: A.Match, want=None) -> Elem:
        lst = self.b.translator.as_term(self.value(ctx, e.scrutinee), e.scrutinee)
        key = L.list_key_of(lst.sort)
        if key is None:
            raise NoRule("match on a value that is not a list", e.scrutinee.span)
        with self.dec.branch(lst):
            nil_elem = self.monadic(ctx.assume("h_nil", T.eq(lst, L.nil(lst.sort))), e.nil_body,
                                    want)
            cons_elem = self.monadic(self.cons_context(ctx, e, lst), e.cons_body, want)
        return nil_elem if nil_elem is cons_elem else _either(nil_elem, cons_elem)

    def _m_Ran(self, ctx: Ctx, e: A.Ran) -> Elem:
        """``ran d`` draws values of its family (a ``beta``'s lie in [0,1]); from a
        distribution of unknown family (a parameter ``D[T]``), values of T without its
        ranges (``ranges.without_ranges``)."""
        d = self.value(ctx, e.value)
        if isinstance(d, DistV):
            return _decidable_draw(draw_of(d), d.family, self.dec.in_likelihood)
        t = self.b.type_of(e)
        if isinstance(d, Scalar) and draws_refused(d.term):
            raise NoRule("a draw from a posterior without a closed form whose model is known only "
                         "by a divergence bound (docs/noise.md: run's rejection sampler may fail "
                         "with a probability that depends on the data)", e.span)
        if isinstance(d, Scalar) and d.term.sort == L.DIST and isinstance(t, A.TMonad):
            elem = _decidable_draw(_draws_of(ctx, d.term, t.elem), None, self.dec.in_likelihood)
            if not elem.density and rational_draws(ctx.hyps, d.term):
                return Elem(elem.make, rational=frozenset())
            return elem
        raise NoRule("ran of a value that is not a symbolic distribution", e.span)

    def _m_Observe(self, ctx: Ctx, e: A.Observe) -> Elem:
        prior = self.monadic(ctx, e.prior)
        lik = self.value(ctx, e.likelihood)
        if isinstance(lik, Closure) and len(lik.params) == 1:
            inner = self.bind(ctx.with_env(lik.env), lik.params[0], prior, e.span)
            with self.dec.likelihood():
                self.monadic(inner.with_env(inner.env), lik.body)
            self._inferable(ctx, e)
            return prior
        raise NoRule("observe needs its likelihood as a one-parameter function", e.likelihood.span)

    def _inferable(self, ctx: Ctx, e: A.Observe) -> None:
        """``run`` draws from an observe by inferring its posterior exactly: for a prior of a
        continuous family (a ``ran`` of a beta, normal or dirichlet, possibly observed before)
        it recognises a conjugate likelihood, and stops (R003) on any other. So where the walk
        sees such a prior, the posterior must have its closed form (``infer``'s, the Observe
        rule's); a prior the walk cannot see (a computation passed as a parameter) is not
        checked here (docs/verifier.md)."""
        if self._inferring:
            return
        prior = e.prior
        while isinstance(prior, A.Observe):
            prior = prior.prior
        if not isinstance(prior, A.Ran):
            return
        d = self.value(ctx, prior.value)
        if isinstance(d, DistV) and d.family in ("beta", "normal", "dirichlet"):
            try:
                posterior = self.value(ctx, A.Infer(e, e.span))
            except NoRule as exc:
                raise NoRule(f"run draws from this observe by inferring its posterior exactly, "
                             f"which it cannot do here: {exc.message}", e.span) from None
            if not isinstance(posterior, DistV):
                raise NoRule("run draws from this observe by inferring its posterior exactly, "
                             "which has no closed form here", e.span)

    def _m_Var(self, ctx: Ctx, e: A.Var, want=None) -> Elem:
        pair = ctx.env.lookup(e.name)
        value = pair[self.run - 1] if pair else None
        if isinstance(value, Monadic) and value.rtype is not None:
            elem = elem_of_rtype(value.rtype)
            tags = self.dec.computation_tags(value)  # a parameter's: rational by contract
            if tags is not None:
                elem = Elem(elem.make, rational=tags)
            return elem if want is None else self.returns(ctx, elem, want, e.span)
        if isinstance(value, Monadic) and value.expr is not None:
            return self.monadic(ctx.with_env(value.env), value.expr, want)
        raise NoRule(f"{e.name} is not a known computation", e.span)

    def _m_LetRec(self, ctx: Ctx, e: A.LetRec, want=None) -> Elem:
        """``let rec f … = v in m``: f is checked where it is called (``local_function``)."""
        fn = LocalRec(e.name, e.params, e.value, ctx.env)
        return self.monadic(ctx.bind(e.name, fn, fn), e.body, want)

    def _m_Infer(self, ctx: Ctx, e: A.Infer) -> Elem:
        """The model of an ``infer`` without closed form (reported by the Infer rule as a
        computation made where ``infer`` is evaluated): its code must run without error in
        this run; its observes are inferred, not drawn from (``_inferable`` does not apply:
        the Infer rule checked that ``run`` infers the model)."""
        inferring, self._inferring = self._inferring, True
        try:
            return self.monadic(ctx, e.value)  # (what it draws: unused, nothing is drawn)
        finally:
            self._inferring = inferring

    def _m_App(self, ctx: Ctx, e: A.App, want=None) -> Elem:
        if want is not None:
            head, args = flatten_app(e)
            pair = ctx.env.lookup(head.name) if isinstance(head, A.Var) else None
            fn = pair[self.run - 1] if pair else None
            if not (isinstance(fn, Closure) and fn.params):  # not unfolded here: a leaf
                return self.returns(ctx, self._m_App(ctx, e), want, e.span)
        head, args = flatten_app(e)
        if not isinstance(head, A.Var):
            raise NoRule("application of a computed function in a monadic position", e.span)
        pair = ctx.env.lookup(head.name)
        if pair is None:
            parts = args[0].items if len(args) == 1 and isinstance(args[0], A.TupleLit) else args
            from verifier.rules.registry import safety_rule
            extension = safety_rule(head.name)
            if extension is not None:
                return extension(self, ctx, e, list(parts))
            rule = getattr(self, "_mech_" + head.name, None)
            if rule is None:
                raise NoRule(f"no safety rule for {head.name}", e.span)
            return rule(ctx, e, list(parts))
        fn = pair[self.run - 1]
        if isinstance(fn, Closure) and not fn.params:  # a constant whose value is a function
            fn = self.value(ctx, head)
        if isinstance(fn, NamedFun) and not fn.args:
            return self._val_call(ctx, e, fn.name, args)
        if isinstance(fn, FunParam):
            return self._parameter_call(ctx, e, fn, args)
        if isinstance(fn, LocalRec):
            return self._local_call(ctx, e, fn, args)
        if isinstance(fn, Closure):
            env = fn.env
            if len(args) != len(fn.params):
                raise NoRule(f"{head.name} is partially applied here", e.span)
            for p, a in zip(fn.params, args):
                v = self.value(ctx, a)
                self.annotations(ctx, p, v, a.span)
                env = bind_pattern(env, p, v, v, a.span)
            return self.monadic(ctx.with_env(env), fn.body, want)
        raise NoRule(f"{head.name} is not a function", e.span)

    # ---- mechanisms -------------------------------------------------------------------------

    def arguments(self, ctx: Ctx, name: str, args: Sequence[A.Expr],
                  sizes: Optional[Callable[[List[SymValue]], Optional[int]]] = None
                  ) -> List[SymValue]:
        """Translate the arguments of a call of the built-in ``name`` in this run and require
        every range the catalogue gives them (``builtins.Builtin.ranges``: ``real+``, ``(0,1)``,
        ``[k] list``...): the conditions ``privinfer run`` checks at the call. ``sizes(values)``
        gives the ``k`` of a range ``[k] list`` (the number of categories of a prior), or None
        when the range does not apply (a beta prior observes a bool list)."""
        from verifier.language.builtins import BUILTINS
        values = [self.value(ctx, a) for a in args]
        entry = BUILTINS.get(name)
        if entry is None:
            return values
        for i, (arg, value) in enumerate(zip(args, values)):
            text = entry.range_of(i)
            if text is None:
                continue
            what = f"the {entry.argument_name(i)} of {name}"
            if text == "(0,1)":
                t = self.b.translator.as_term(value, arg)
                self.require(ctx, T.and_(T.gt(t, 0), T.lt(t, 1)), f"{what} is in (0, 1)",
                             arg.span)
                continue
            k = None
            if "[k]" in text:
                k = sizes(values) if sizes is not None else None
                if k is None:
                    continue
            want = _range_type(text, k)
            self.has_type(ctx, value, want, f"{what} {_range_words(want)}", arg.span, "Range")
        self._decided_arguments(ctx, name, args, values)
        return values

    def _decided_arguments(self, ctx: Ctx, name: str, args: Sequence[A.Expr],
                           values: Sequence[SymValue]) -> None:
        """The range checks ``run`` makes on the real parameters of the mechanism ``name``
        (eps > 0, delta in range: ``evaluator._positive_eps``...) are decisions (Decidable)."""
        from verifier.language.builtins import BUILTINS
        entry = BUILTINS.get(name)
        for i, (arg, value) in enumerate(zip(args, values)):
            if entry is None or entry.range_of(i) is None or not isinstance(value, Scalar):
                continue
            self.dec.judge(self, ctx, (value.term,), f"the range check of the "
                           f"{entry.argument_name(i)} of {name}", arg.span)

    def _mech_lapMech(self, ctx: Ctx, e: A.App, args: List[A.Expr]) -> Elem:
        self._arity(e, args, 2, "lapMech")
        self.arguments(ctx, "lapMech", args)
        return _released(of_type(A.TBase("real"), "z"))

    def _mech_gaussMech(self, ctx: Ctx, e: A.App, args: List[A.Expr]) -> Elem:
        self._arity(e, args, 3, "gaussMech")
        self.arguments(ctx, "gaussMech", args)
        return _released(of_type(A.TBase("real"), "z"))

    def _mech_expMech(self, ctx: Ctx, e: A.App, args: List[A.Expr]) -> Elem:
        from verifier.rules.mechanism_rules import finite_candidate, posterior_member
        if len(args) not in (3, 4):
            raise NoRule("expMech takes (eps, score, x) or (eps, score, x, candidates)", e.span)
        values = self.arguments(ctx, "expMech", args)
        score, x = values[1], values[2]
        tags = None
        if len(args) == 4:
            candidates = self.b.translator.as_term(values[3], args[3])
            tags = self.dec.tags(values[3])  # a candidate of rational ones is rational
            if not (isinstance(candidates, T.Apply)
                    and candidates.func.name in ("cons", "posteriors")):
                # a cons is non-empty, and posteriors (p, n) has at least n + 1 >= 1 elements
                # (n >= 0 is its own range condition); a call of a local recursive function
                # whose every path ends in a non-empty list is non-empty (NonEmpty-Induction):
                # anything else must be shown non-empty
                if self._nonempty_call(ctx, args[3]):
                    self.nonempty.add(args[3].span)
                else:
                    self.require(ctx, T.ge(L.length(candidates), 1),
                                 "the candidate list of expMech is not empty", args[3].span)
            member = posterior_member(self.b, candidates)
            r, facts = member[:2] if member else fresh_value(self.b, _element_type(candidates),
                                                             "r")
            if member is None and isinstance(r, Scalar):
                facts = list(facts) + list(literal_members(candidates, r.term))
                r = _of_the_literal_family(self.b, candidates, r)
        else:
            r, facts, _ = finite_candidate(self.b, e)
        self.dec.register(r, tags)
        inner = ctx.assume("h_candidate", T.and_(*facts)) if facts else ctx
        self.apply(inner, score, [TupleV((x, r))], e.span)
        return Elem(lambda b, name: (r, list(facts)), rational=tags)

    def _nonempty_call(self, ctx: Ctx, e: A.Expr) -> bool:
        """``e`` is a full call of a local recursive function (no val) that always returns
        a non-empty list, by its shape (``verifier.language.shapes``)."""
        head = e
        while isinstance(head, A.App):
            head = head.fn
        if not isinstance(head, A.Var):
            return False
        pair = ctx.env.lookup(head.name)
        fn = pair[self.run - 1] if pair is not None else None
        return isinstance(fn, LocalRec) and fn.name == head.name and \
            nonempty_call(e, fn.name, fn.params, fn.body)

    def _mech_hellingerMech(self, ctx: Ctx, e: A.App, args: List[A.Expr]) -> Elem:
        self._arity(e, args, 4, "hellingerMech")
        return self._hellinger(ctx, e, "hellingerMech", args)

    def _mech_hellingerMechPure(self, ctx: Ctx, e: A.App, args: List[A.Expr]) -> Elem:
        self._arity(e, args, 3, "hellingerMechPure")
        return self._hellinger(ctx, e, "hellingerMechPure", args)

    def _hellinger(self, ctx: Ctx, e: A.App, name: str, args: List[A.Expr]) -> Elem:
        """The Hellinger mechanisms: the catalogue's ranges (epsilon, delta, and the data:
        categories of a dirichlet prior over k, a ``[k] list``), and a prior of a conjugate
        family the verifier sees (``run`` computes the candidates of a beta or a dirichlet)."""
        prior_e = args[-2]

        def categories(values: List[SymValue]) -> Optional[int]:
            prior = values[-2]
            return len(prior.params) if isinstance(prior, DistV) and \
                prior.family == "dirichlet" else None
        values = self.arguments(ctx, name, args, categories)
        prior = values[-2]
        if not (isinstance(prior, DistV) and prior.family in ("beta", "dirichlet")):
            raise NoRule("the prior of the Hellinger mechanism must be a beta or a dirichlet",
                         prior_e.span)
        # a posterior of the prior: a beta (draws in [0,1]) or a dirichlet (on the simplex)
        return of_type(A.TDist(family_support(prior.family, len(prior.params))), "post")

    @staticmethod
    def _arity(e: A.App, args: List[A.Expr], n: int, name: str) -> None:
        if len(args) != n:
            raise NoRule(f"{name} takes {n} arguments", e.span)

    # ---- functions with a val -------------------------------------------------------------------

    def _val_call(self, ctx: Ctx, e: A.App, name: str, args: List[A.Expr]) -> Elem:
        val = self.b.val_of(name)
        if val is None:
            raise missing_val(name, e.span)
        rt, doms = val.rtype, []
        while isinstance(rt, A.RArrow):
            doms.append(rt.dom)
            rt = rt.cod
        if len(doms) != len(args):
            raise NoRule(f"{name} is applied to {len(args)} arguments; its val has {len(doms)}",
                         e.span)
        terms: List[Optional[T.Term]] = []
        values: List[Optional[SymValue]] = []
        rational: List[Optional[frozenset]] = []  # per argument, for the callee's contract
        for i, (arg, dom) in enumerate(zip(args, doms), 1):
            base = _strip(dom)
            terms.append(None)
            values.append(None)
            if isinstance(base, A.RArrow):
                self._function_argument(ctx, arg, base)
                rational.append(None)
                continue
            if isinstance(base, A.RMonad):
                drawn = self.monadic(ctx, arg)
                value, facts = self.drawn(drawn, None)
                rational.append(drawn.rational if drawn.rational is not None
                                else self.dec.tags(value))
                inner = ctx.assume("h_draw", T.and_(*facts)) if facts else ctx
                self.has_type(inner, value, simple_of(base.body), f"the draws of argument {i} "
                              f"of {name} have the type its val says", arg.span, "Range")
                continue
            value = self.value(ctx, arg)
            values[-1] = value
            rational.append(self.dec.tags(value))
            if isinstance(value, (Scalar, DistV)):
                terms[-1] = value.term
            self.has_type(ctx, value, simple_of(base), f"argument {i} of {name} has the type "
                          "its val says", arg.span, "Range")
        self._in_domain(ctx, name, values, short(e), e.span)
        self.dec.call(name, rational, e.span)
        from verifier.rules.decidable import call_draws
        draws = call_draws(self.b, name, rational)
        if name == ctx.function:  # a recursive call in monadic code terminates too
            position = ctx.induction[0] if ctx.induction is not None else None
            if position is not None and terms[position] is None:
                raise NoRule("the list of a recursive call must be a value", e.span)
            self._shorter(ctx, terms, T.boolean(True), short(e), e.span)
        if not isinstance(rt, A.RMonad):
            raise NoRule(f"{name} does not return a computation", e.span)
        elem = elem_of_rtype(rt)
        return elem if draws is None else Elem(elem.make, rational=draws)


    def _function_argument(self, ctx: Ctx, arg: A.Expr, want: A.RType) -> None:
        """A function passed where a val expects one of type ``want`` (its type is shown
        relationally, S-Fun): the first arguments a function with a val is applied to here
        are evaluated now, in its val's domain and rational where its contract needs them; a
        function parameter passed on needs nothing; a ``fun`` is walked here (``_fun_body``)."""
        head, partial = flatten_app(arg)
        fn = self.value(ctx, head)
        if isinstance(fn, FunParam) and not partial:
            return
        if not (isinstance(fn, NamedFun) and not fn.args and self.b.val_of(fn.name) is not None):
            self._fun_body(ctx, arg, want)
            return
        values = [self.value(ctx, a) for a in partial]
        self._in_domain(ctx, fn.name, values, short(arg), arg.span)
        self.dec.call(fn.name, [self.dec.tags(v) for v in values], arg.span)
        self._rational_results(fn.name, values, want, arg.span)

    def _fun_body(self, ctx: Ctx, arg: A.Expr, want: A.RType) -> None:
        """A ``fun`` passed where a val expects a function: the callee runs it on arguments of
        its type's domain, as often as it likes, where it likes — so its body is walked here
        on fresh arguments with the domain's ranges (its annotations conditions on them),
        rational (the callee's calls pass rational arguments), not reached alike in both runs;
        what it returns has the ranges the type says."""
        self._walk_fun(ctx, self.value(ctx, arg), want, arg.span)

    def _rational_results(self, name: str, partial: Sequence[SymValue], want: A.RType,
                          span) -> None:
        """A val's function passed (applied to ``partial``) where a function returning a
        value is expected: its contract must give rational results on rational arguments
        (the callee's calls of it are rational: ``obligations.decidable``), and its first
        arguments must be rational."""
        from verifier.rules.decidable import contract
        from verifier.rules.function_types import function_type
        if isinstance(function_type(want, span)[1], A.RMonad):
            return
        tags = frozenset()
        for v in partial:
            got = self.dec.tags(v)
            tags = None if tags is None or got is None else tags | got
        self._returns_rational(tags if contract(self.b, name).rational_draws else None,
                               source_name(name), span)

    def _returns_rational(self, tags, who: str, span) -> None:
        """A function passed where a val expects one returning a value returns rationals on
        rational arguments (``tags``: of what it returns then, None when it may not): the
        Decidable condition reads every call of a function parameter so
        (``obligations.decidable``), and the callee may compare what it returns."""
        from verifier.rules.decidable import CODE
        if tags is not None:
            self.dec.relied |= tags
        elif not self.dec.collect:
            raise NoRule(f"{who} returns values that need not be rational on rational "
                         "arguments, where a val expects a function returning a value: the "
                         "callee may compare what it returns, and R011 (a comparison of real "
                         "numbers could not be decided) on one input and not on its neighbour "
                         "would leak; pass a function built from + - * / abs min max", span,
                         code=CODE)

    def _walk_fun(self, ctx: Ctx, fn: SymValue, want: A.RType, span) -> None:
        """Walk the ``fun`` ``fn`` (this run's closure) passed where a val expects a function
        of type ``want``: its body on fresh rational arguments with the domain's ranges, apart
        from the code reached alike in both runs; a computation's draws, or the value it
        returns, have the ranges the type says."""
        from verifier.rules.function_types import function_type
        from obligations.decidable import NO_TAGS
        doms, cod = function_type(want, span)
        if not isinstance(fn, Closure) or len(fn.params) != len(doms) \
                or isinstance(fn.body, A.Fun):
            raise NoRule("a function passed where a val expects one must be a top-level "
                         "function with a val (possibly applied to its first arguments), a "
                         "function parameter, or a fun of as many parameters", span)
        if ctx.function is not None and ctx.function in free_vars(fn.body):
            raise NoRule(f"the fun passed calls {source_name(ctx.function)}, whose termination "
                         "is shown only for its own calls", span)
        inner = ctx.with_env(fn.env)
        for p, d in zip(fn.params, doms):
            v, facts = fresh_value(self.b, simple_of(_strip(d)),
                                   p.name if isinstance(p, A.PVar) else "x")
            if facts:
                inner = inner.assume("h_param", T.and_(*facts))
            self.dec.register(v, NO_TAGS)
            self.annotations(inner, p, v, span)
            inner = inner.with_env(bind_pattern(inner.env, p, v, v, span))
        with self.dec.apart():
            if isinstance(cod, A.RMonad):
                self.monadic(inner, fn.body, simple_of(cod.body))
            else:
                value = self.value(inner, fn.body)
                self.has_type(inner, value, simple_of(cod), "the fun passed returns values of "
                              "the type its val expects", span, "Range")
                self._returns_rational(self.dec.tags(value), "the fun passed", span)

    def _parameter_call(self, ctx: Ctx, e: A.App, fn: FunParam, args: List[A.Expr]) -> Elem:
        """A call of a parameter of function type (``higher_order``): a verified function
        (callers pass only those), safe and terminating on arguments in its type's domain, which
        the walk requires at ``(a, a)``; what it draws has its type's ranges and is not known
        to be rational; its arguments must be rational (whatever contract the passed function
        has is then met)."""
        from verifier.rules.higher_order import parameter_call_arguments
        doms, cod = parameter_call_arguments(fn)
        if len(doms) != len(args):
            raise NoRule(f"{source_name(fn.name)} is applied to {len(args)} arguments; its type "
                         f"has {len(doms)}", e.span)
        values: List[Optional[SymValue]] = []
        for i, (arg, dom) in enumerate(zip(args, doms), 1):
            value = self.value(ctx, arg)
            values.append(value)
            self.has_type(ctx, value, simple_of(_strip(dom)), f"argument {i} of "
                          f"{source_name(fn.name)} has the type its type says", arg.span, "Range")
            self.dec.require_rational(self.dec.tags(value), f"the comparisons the function "
                                      f"passed as {source_name(fn.name)} may make on argument "
                                      f"{i} of this call", arg.span)
        from verifier.rules.call_facts import call_precondition
        pre = call_precondition(self.b, fn.name, values, self.run, rtype=fn.rtype, env=fn.env)
        what = (f"the arguments of {short(e)} are in the domain of the type of "
                f"{source_name(fn.name)} (where the function passed is shown to terminate "
                "without error)")
        if pre is None:
            self.require(ctx, T.boolean(False), what + ", which the logic cannot state", e.span)
        elif pre:
            self.require(ctx, T.and_(*pre), what, e.span)
        return elem_of_rtype(cod)


def _at(span) -> tuple:
    return (span.line, span.col, span.end_line, span.end_col) if span is not None else ()


def _free_names(fn: LocalRec) -> set:
    from verifier.language.free_vars import free_vars
    return set(free_vars(fn.body))


def _pretty_type(t: A.SimpleType) -> str:
    from verifier.language.pretty import pretty_type
    return pretty_type(t)


def _range_type(text: str, k: Optional[int]) -> A.SimpleType:
    """The simple type of a catalogue range (``[k]`` replaced by ``k``)."""
    from verifier.language.parser import parse_simple_type
    return parse_simple_type(text.replace("[k]", f"[{k}]") if k is not None else text,
                             "<catalogue>")


def _range_words(t: A.SimpleType) -> str:
    """A range in words, for the messages of its conditions (``is positive``)."""
    from verifier.language.pretty import pretty_type
    if isinstance(t, A.TBase):
        words = {"real+": "is positive", "nat": "is a natural number", "[0,1]": "is in [0,1]"}
        if t.name in words:
            return words[t.name]
    if isinstance(t, A.TList) and isinstance(t.elem, A.TFin):
        return f"are categories 0..{t.elem.k - 1}: a {pretty_type(t)}"
    if isinstance(t, A.TList):
        return f"are in the range of its elements: a {pretty_type(t)}"
    return f"has type {pretty_type(t)}"


def _element_type(candidates: T.Term) -> Optional[A.SimpleType]:
    """What the sort of a list term says of its elements: ``[K]`` for a ``List[finK]`` (the
    sort keeps them in range), else the element type of the sort without a range. Never the
    type checker's type of the expression, which a narrower annotation may give a list whose
    elements are not in its range (``(rs : [3] list)`` bound to ``[7]``)."""
    key = L.list_key_of(candidates.sort)
    k = L.fin_size(key)
    if k:
        return A.TFin(k)
    return {"bool": A.TBase("bool"), "int": A.TBase("int"), "real": A.TBase("real"),
            "dist": A.TDist(A.TBase("real"))}.get(key)


def _of_the_literal_family(b: Builder, candidates: T.Term, r: Scalar) -> SymValue:
    """A candidate drawn from a list written out whose entries are all distributions of one
    family (``[beta (…); beta (…)]``) is of that family: the same term, seen as a
    distribution of the family with fresh parameters of which nothing is assumed (what
    ``hellinger`` and ``tv`` need to know that ``run`` can compute them; ``getParams`` of it is
    then an unknown, which only costs proofs). Any other candidate is returned as it is."""
    family, arity = None, None
    entry = candidates
    while isinstance(entry, T.Apply) and entry.func.name == "cons":
        head, entry = entry.args
        if not isinstance(head, T.Apply) or head.sort != L.DIST:
            return r
        name = "dirichlet" if head.func.name.startswith("dirichlet") else head.func.name
        if family is None:
            family, arity = name, len(head.args)
        elif (family, arity) != (name, len(head.args)):
            return r
    if family not in ("beta", "normal", "dirichlet", "bernoulli", "categorical"):
        return r
    params = tuple(b.fresh(f"{r.term.name}_q{i}", T.REAL) for i in range(1, arity + 1))
    return DistV(family, params, r.term, origin="list")


def _strip(rt: A.RType) -> A.RType:
    while isinstance(rt, A.RRefine):
        rt = rt.base
    return rt


def elem_of_rtype(rt: A.RType) -> Elem:
    """What a computation of relational type ``M[F, δ] {x :: T | …}`` draws: values of T."""
    if isinstance(rt, A.RMonad):
        return of_type(simple_of(rt.body))
    return OPAQUE


_DRAWS = {"beta": A.TBase("[0,1]"), "bernoulli": A.TBase("bool"), "normal": A.TBase("real")}


def draw_of(d: DistV) -> Elem:
    """The values ``ran d`` draws, with the facts of its family."""
    if d.family in _DRAWS:
        return of_type(_DRAWS[d.family], "theta")
    if d.family == "categorical":
        return of_type(A.TFin(len(d.params)), "c")
    if d.family == "dirichlet":
        return of_type(A.TSimplex(len(d.params)), "p")
    return OPAQUE


@judgement_rule(registry.SAFETY)
def check_safety(b: Builder, ctx: Ctx, body: A.Expr, monadic: bool,
                 result: Optional[A.SimpleType] = None,
                 parameters: Sequence[A.Pattern] = (), definition: Optional[A.LetDecl] = None,
                 relied: Optional[set] = None):
    """The Safety premise of a definition: its range conditions, in run 1 and run 2, and that
    what it returns (``result``: the simple type of the val's result, or of the values its
    computation draws) has that type's ranges (``nat``, ``real+``, ``[0,1]``, ``[k]``,
    ``[0,1]^k``, list elements) — which every use of the val assumes. And that each of its
    ``parameters`` (patterns bound in ``ctx``) has the type the definition uses it at, when
    that is narrower than its val's (an ``int list`` parameter the body types as a ``[3]
    list``: ``TypedProgram.narrowings``). And the Decidable condition: every decision the run
    makes is safe with private data (``verifier.rules.decidable``) — accepting public ones
    only in an entry ``definition``; with ``relied`` (a set), the definition's contract is
    computed instead (the parameters its decisions need rational are added to it, and no
    decision is rejected)."""
    obligations: List[Obligation] = []
    nonempty: set = set()
    entry = definition is not None and relied is None and is_entry(b.program, definition)
    rational_draws = True
    for run in (1, 2):
        dec = Decidability(b, run, entry=entry, collect=relied is not None)
        dec.parameter_bindings(ctx, parameters)
        s = Safety(b, run, dec)
        for p in parameters:
            pair = ctx.env.lookup(p.name) if isinstance(p, A.PVar) else None
            for n in b.narrowings(p):
                if pair is None or n.kind != "value":
                    raise NoRule("a parameter is used at a narrower type than its val's (an int "
                                 "where a [k] is expected), which the verifier cannot show", p.span)
                s.has_type(ctx, pair[run - 1], n.expected, f"the parameter {source_name(p.name)} "
                           f"has type {_pretty_type(n.expected)}, as the definition uses it "
                           "(its val gives it a wider type)", p.span, "Range")
        if monadic:
            rational_draws &= s.draw_tags(s.monadic(ctx, body, result)) is not None
        else:
            rational_draws &= _pure_cases(s, ctx, body, result)
        obligations += s.obligations
        nonempty |= s.nonempty
        if relied is not None:
            relied |= dec.relied
    if relied is not None:  # the contract's computation: whether what it returns is rational
        return rational_draws
    seen, unique = set(), []
    for ob in obligations:
        if ob.id not in seen:
            seen.add(ob.id)
            unique.append(ob)
    # the candidate lists of expMech shown non-empty by their shape: the kernel re-reads each
    # shape from the source (checker.safety)
    shapes = [b.node("NonEmpty-Induction", None, span, "every value this call of a local "
                     "recursive function returns is a non-empty list (by its shape)")
              for span in sorted(nonempty, key=lambda s: (s.line, s.col, s.end_line, s.end_col))]
    return b.node("Safety", ctx, body.span, "every range condition holds in each run",
                  premises=shapes, obligations=unique)


def _pure_cases(s: Safety, ctx: Ctx, e: A.Expr, result: Optional[A.SimpleType] = None) -> bool:
    """Walk a pure body case by case; whether every value it returns is rational (when the
    parameters are: the contract's ``rational_draws`` of a pure val)."""
    if isinstance(e, A.Match):
        lst = s.b.translator.as_term(s.value(ctx, e.scrutinee), e.scrutinee)
        with s.dec.branch(lst):
            nil = _pure_cases(s, ctx.assume("h_nil", T.eq(lst, L.nil(lst.sort))), e.nil_body,
                              result)
            return _pure_cases(s, s.cons_context(ctx, e, lst), e.cons_body, result) and nil
    elif isinstance(e, A.If):
        cond = s.b.translator.as_term(s.value(ctx, e.cond), e.cond)
        with s.dec.branch(cond):
            then = _pure_cases(s, ctx.assume("h_then", cond), e.then, result)
            return _pure_cases(s, ctx.assume("h_else", T.not_(cond)), e.else_, result) and then
    value = s.value(ctx, e)
    if result is not None:
        s.has_type(ctx, value, result, "the result has the type its val says", e.span)
    return s.dec.tags(value) is not None


def _decidable_draw(elem: Elem, family: Optional[str], likelihood: bool) -> Elem:
    """What the Decidable condition knows of a draw of ``ran`` of a law of ``family`` (None:
    unknown): ``run`` samples ``beta`` (``uniform``) and ``dirichlet`` as rationals; in a
    likelihood, a draw of a continuous law is read by its density (``d = z`` observes)."""
    if likelihood and family not in ("bernoulli", "categorical"):
        return Elem(elem.make, density=True)
    if family in ("beta", "dirichlet"):
        return Elem(elem.make, rational=frozenset())
    return elem


def _released(elem: Elem) -> Elem:
    """The release of ``lapMech`` / ``gaussMech``: a grid rational (docs/noise.md)."""
    return Elem(elem.make, rational=frozenset())


def _either(a: Elem, b: Elem) -> Elem:
    """What a computation draws when it is ``a``'s or ``b``'s (the branches of an ``if`` or a
    ``match``): opaque, rational when both are."""
    if a.rational is None or b.rational is None:
        return OPAQUE
    return Elem(OPAQUE.make, rational=a.rational | b.rational)
