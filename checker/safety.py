"""The kernel's unary judgement, Safety: every range condition of a definition holds in each run.

The relational rules relate the two runs and may skip code altogether (EqualInputs), so the
conditions of each run — a ``beta`` parameter positive, a divisor non-zero, a mechanism's
epsilon positive, a call in its val's domain, a recursive call on a shorter list, the result
in the val's type — are demanded here, by one walk over the body per run. The conditions of
pure code are the ones the shared translator reports (``RangeCheck``: a partial operation,
an annotated parameter, ``posteriors`` of a non-conjugate prior, ...); the calls it evaluates
(``CallCheck``) and the computations pure code makes (``StoredComputation``) are checked
where they happen. Values a computation draws are fresh, with the facts of their type.
"""
from __future__ import annotations

from functools import lru_cache
from typing import Callable, List, Optional, Sequence, Tuple

from obligations import terms as T
from obligations.candidates import conjugate, literal_members
from obligations.model import ObligationKind
from obligations.records import record, replace
from verifier.language import ast as A
from verifier.language.builtins import BUILTINS
from verifier.language.parser import parse_simple_type
from verifier.language.pretty import pretty_type
from verifier.language.free_vars import free_vars
from verifier.language.resolve import call_sites, counted_parameter, matched_parameter, source_name
from verifier.language.shapes import nonempty_call
from verifier.translation import logic as L
from verifier.translation.calls import element_value
from verifier.language.supports import family_support
from verifier.translation.inferred import draws_refused
from verifier.translation.ranges import (fresh_like, rational_draws, unknown_family_draws,
                                         value_facts, value_sorts)
from verifier.translation.symbolic import (Closure, DistV, FunParam, LocalRec, Monadic,
                                           NamedFun, Scalar, SymValue, TupleV, UnitV)
from verifier.translation.translate import (CallCheck, Decision, LocalFunction, RangeCheck,
                                            StoredComputation, bind_pattern, flatten_app)
from checker.judgement import Ctx, Proof, Reject, arrows, refinement_parts, simple_of
from checker import decidable as DC

R = ObligationKind.RANGE


@record
class Elem:
    """What a computation draws: ``make(proof, name)`` gives a value and the facts known of
    it (fresh variables named after ``name``, the binder, when there is one)."""

    make: Callable[[Proof, Optional[str]], Tuple[SymValue, List[T.Term]]]
    #: the draws are rational relying on these parameters' being rational (the Decidable
    #: condition, ``checker.decidable``); None: not known to be rational
    rational: Optional[frozenset] = None
    #: a continuous draw of a likelihood, read by its density
    density: bool = False


def exact(value: SymValue) -> Elem:
    return Elem(lambda p, name: (value, []))


def of_type(t: Optional[A.SimpleType], default: str = "x") -> Elem:
    return Elem(lambda p, name: fresh_value(p, t, name or default))


OPAQUE = of_type(None)


def _draws_of(ctx, d: T.Term, t: Optional[A.SimpleType]) -> Elem:
    """The draws of a distribution ``d`` of unknown family simply typed ``D[t]``
    (``ranges.unknown_family_draws``)."""
    return Elem(unknown_family_draws(ctx.hyps, d, t, lambda u: of_type(u, "x").make))


def fresh_value(p: Proof, t: Optional[A.SimpleType], name: str
                ) -> Tuple[SymValue, List[T.Term]]:
    """A fresh value of simple type ``t`` and what its type says of it."""
    if isinstance(t, A.TTuple):
        items, facts = [], []
        for i, item in enumerate(t.items, 1):
            v, f = fresh_value(p, item, f"{name}{i}")
            items.append(v)
            facts += f
        return TupleV(tuple(items)), facts
    if isinstance(t, A.TSimplex):
        parts = [p.fresh(f"{name}{i}", T.REAL) for i in range(1, t.k + 1)]
        return (TupleV(tuple(Scalar(x) for x in parts)),
                [T.ge(x, 0) for x in parts] + [T.eq(T.add(*parts), 1)])
    if isinstance(t, A.TBase) and t.name == "unit":
        return UnitV(), []
    sort = L.sort_of_type(t) if t is not None else None
    if sort is None:
        return Monadic(None, None, name=p.fresh_name(name)), []
    v = p.fresh(name, sort)
    return Scalar(v), list(L.range_facts(t, v))


def type_facts(t: Optional[A.SimpleType], value: SymValue) -> Optional[List[T.Term]]:
    """What a value of type ``t`` satisfies, stated of ``value`` (scalar ranges, list
    elements, tuple components, simplex points: ``verifier.translation.ranges``); None when
    the type says something of values that ``value`` does not name."""
    return value_facts(t, value)


_DRAWS = {"beta": A.TBase("[0,1]"), "bernoulli": A.TBase("bool"), "normal": A.TBase("real")}
#: the monadic forms whose result is that of a sub-computation
_TAIL = (A.MLet, A.Let, A.If, A.Match, A.Var, A.App, A.LetRec)


def draw_of(d: DistV) -> Elem:
    """What ``ran d`` draws, with the facts of its family."""
    if d.family in _DRAWS:
        return of_type(_DRAWS[d.family], "theta")
    if d.family == "categorical":
        return of_type(A.TFin(len(d.params)), "c")
    if d.family == "dirichlet":
        return of_type(A.TSimplex(len(d.params)), "p")
    return OPAQUE


def elem_of_rtype(rt: A.RType) -> Elem:
    return of_type(simple_of(rt.body)) if isinstance(rt, A.RMonad) else OPAQUE


# ---- candidates of expMech (shared with the relational ExpMech rule) ----------------------

Drawn = Tuple[SymValue, List[T.Term]]


def posterior_member(p: Proof, candidates: T.Term) -> Optional[Drawn]:
    """A fresh member of ``posteriors (P, n)`` with P a beta or dirichlet given by its
    constructor: a fresh distribution, fresh parameters and counts (witnesses), and the
    member facts of the lemma ``posteriors.members.*`` (cited)."""
    conj = conjugate(candidates)
    if conj is None:
        return None
    names = ("k",) if conj.arity == 1 else tuple(f"c{i}" for i in range(1, conj.arity + 1))
    counts = tuple(p.fresh(n, T.INT) for n in names)
    r = p.fresh("r", L.DIST)
    params = tuple(p.fresh(f"{r.name}_p{i}", T.REAL) for i in range(1, len(conj.prior) + 1))
    p.witnesses.update(counts + params)
    p.lemmas.add(conj.lemma)
    return DistV(conj.family, params, r, origin="posteriors"), list(conj.facts(r, params, counts))


def finite_candidate(p: Proof, e: A.App) -> Drawn:
    """A fresh candidate of ``expMech`` without a candidate list: a value of its finite range."""
    r_type = p.expmech_range(e)
    if r_type is None or not _finite(r_type):
        raise Reject("expMech without a candidate list needs a finite range (bool, [k], unit "
                     "or tuples of them)", e.span)
    return fresh_value(p, r_type, "r")


def list_candidate(p: Proof, candidates: T.Term, span) -> Drawn:
    """A fresh candidate of another list: an entry of a list written out, else opaque."""
    key = L.list_key_of(candidates.sort)
    if key is None:
        raise Reject("the candidates of expMech must be a list", span)
    r = p.fresh("r", L.elem_sort(key))
    return Scalar(r), list(literal_members(candidates, r))


def _finite(t: A.SimpleType) -> bool:
    if isinstance(t, A.TBase):
        return t.name in ("bool", "unit")
    if isinstance(t, A.TTuple):
        return all(_finite(i) for i in t.items)
    return isinstance(t, A.TFin)


def literal_family(p: Proof, candidates: T.Term, r: Scalar) -> SymValue:
    """A candidate drawn from a list written out whose entries are all of one distribution
    family is of that family (fresh parameters, nothing assumed of them)."""
    family, arity, entry = None, None, candidates
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
    params = tuple(p.fresh(f"{r.term.name}_q{i}", T.REAL) for i in range(1, arity + 1))
    return DistV(family, params, r.term, origin="list")


# ---- the walk -------------------------------------------------------------------------------

class Safety:
    """The range conditions of one definition body in one run."""

    def __init__(self, p: Proof, run: int, dec: Optional[DC.Decisions] = None):
        self.p, self.run = p, run
        self.dec = dec if dec is not None else DC.Decisions(p, run, entry=False)
        self.locals: List[Tuple[LocalRec, object]] = []   # local functions checked
        self.local_calls: set = set()                      # (function, span) of their calls
        self.inferring = False                             # walking the model of an infer
        self.walked: set = set()                           # funs passed in pure code, walked

    def require(self, ctx: Ctx, goal: T.Term, what: str, span, rule: str = "Range",
                guard: T.Term = T.TRUE) -> None:
        goal = goal if guard == T.TRUE else T.implies(guard, goal)
        self.p.oblige(ctx, R, goal, f"{what} (run {self.run})", span, rule)

    # ---- pure code --------------------------------------------------------------------------

    def value(self, ctx: Ctx, e: A.Expr) -> SymValue:
        """``e`` in this run; every condition met on the way demanded."""
        return self._translated(ctx, lambda: self.p.translator.expr(e, self.run, ctx.env))

    def apply(self, ctx: Ctx, fn: SymValue, args: Sequence[SymValue], span) -> SymValue:
        return self._translated(ctx, lambda: self.p.translator.apply(fn, args, self.run, span))

    def term(self, ctx: Ctx, e: A.Expr) -> T.Term:
        return self.p.translator.as_term(self.value(ctx, e), e)

    def _translated(self, ctx: Ctx, translate) -> SymValue:
        checks: List[RangeCheck] = []
        calls: List[CallCheck] = []
        stored: List[StoredComputation] = []
        decisions: List[Decision] = []
        with self.p.collecting(checks, calls, stored, decisions):
            value = translate()
        for c in checks:
            self.require(ctx, c.condition, c.description, c.span, guard=c.guard)
        for d in decisions:
            operands = d.operands
            if d.what.startswith("the comparison"):  # d = z, z read by its density: on d
                operands = tuple(t for t in operands
                                 if not (isinstance(t, T.Var) and t in self.dec.observed))
            self.dec.judge(ctx, operands, d.what, d.span, d.guard)
        for c in calls:
            if c.local:  # a local recursive function: no val; shown total where it is called
                self.local_calls.add((c.function, _at(c.span)))
                if c.function == ctx.function:
                    self.shorter(ctx, c.params, T.pretty(c.call), c.span, c.guard)
                continue
            if c.parameter is not None:  # a parameter of function type returning a value
                self._value_parameter_call(ctx, c)
                continue
            if ctx.function is not None and c.function == ctx.function:
                self.shorter(ctx, c.params, T.pretty(c.call), c.span, c.guard)
            self.in_domain(ctx, c.function, c.values, T.pretty(c.call), c.span, c.guard)
            self.dec.arguments_of_call(c.function, [self.dec.of_value(v) for v in c.values],
                                       c.span)
            self._functions_passed(ctx, c)
        for made in stored:  # checked where it is made, run or not
            if isinstance(made, LocalFunction):
                self.local_function(ctx, made)
                continue
            inner = ctx.with_env(made.env)
            if made.guard != T.TRUE:
                inner = inner.assume("h_made", made.guard)
            split = self.dec.splits(made.guard)
            self.dec.depth += split
            try:
                self.monadic(inner, made.expr)
            finally:
                self.dec.depth -= split
        return value

    def _value_parameter_call(self, ctx: Ctx, c: CallCheck) -> None:
        """A call in pure code of a parameter of function type returning a value: the function
        passed terminates without error on arguments in its type's domain (demanded at ``(a,
        a)`` where the call is evaluated), its arguments are rational."""
        fn = c.parameter
        for i, value in enumerate(c.values, 1):
            self.dec.argument_of_parameter(self.dec.of_value(value), f"argument {i} of the call "
                                           f"of {source_name(fn.name)}", c.span)
        pre = self.p.domain(fn.name, c.values, self.run, rtype=fn.rtype, env=fn.env)
        what = (f"the arguments of {source_name(fn.name)} (…) are in the domain of its type "
                "(where the function passed terminates without error)")
        if pre != []:
            self.require(ctx, T.and_(*pre) if pre else T.FALSE,
                         what if pre else what + ", which the logic cannot state", c.span,
                         guard=c.guard)

    def _functions_passed(self, ctx: Ctx, c: CallCheck) -> None:
        """The functions a call in pure code passes to a val: run by the callee on arguments
        of the type's domain — a parameter passed on needs nothing, a val's function's first
        arguments are in its domain, a fun is walked on fresh arguments (once per function)."""
        from verifier.translation.functions import NotAFunction, function_key, is_function
        val = self.p.val_of(c.function)
        if val is None or not any(is_function(v) for v in c.values):
            return
        doms = arrows(val.rtype)[0]
        for fn, want in zip(c.values, doms):
            if not isinstance(refinement_parts(want)[1], A.RArrow):
                continue
            if isinstance(fn, FunParam):
                continue
            if isinstance(fn, NamedFun) and self.p.val_of(fn.name) is not None:
                values = [a for a, _ in fn.args]
                self.in_domain(ctx, fn.name, values, f"{source_name(fn.name)} (…)", c.span)
                self.dec.arguments_of_call(fn.name, [self.dec.of_value(v) for v in values],
                                           c.span)
                self._rational_results(fn.name, values, want, c.span)
                continue
            try:
                key, terms = function_key(fn, self.run)
            except NotAFunction:
                raise Reject("a function passed that captures a computation", c.span) from None
            if (key, tuple(terms)) not in self.walked:
                self.walked.add((key, tuple(terms)))
                self._walk_fun(ctx, fn, want, c.span)

    def _rational_results(self, name: str, partial: Sequence[SymValue], want: A.RType,
                          span) -> None:
        """A val's function passed where a function returning a value is expected returns
        rationals on rational arguments (its terms), its first arguments rational: what the
        Decidable condition reads of every parameter call (``obligations.decidable``)."""
        from checker.higher_order import parameter_type
        if isinstance(parameter_type(want, span)[1], A.RMonad):
            return
        for i, v in enumerate(partial, 1):
            self.dec.argument_of_parameter(self.dec.of_value(v), f"argument {i} of "
                                           f"{source_name(name)}, passed as a function", span)
        if not DC.terms_of(self.p, name)[1]:
            self.dec.argument_of_parameter(None, f"what {source_name(name)} returns, passed "
                                           "where a function returning a value is expected,",
                                           span)

    def local_function(self, ctx: Ctx, made: LocalFunction) -> None:
        """A local recursive function called (in pure code) on arguments of these sorts:
        total on every such argument (``local_total``)."""
        fn = made.fn
        me = LocalRec(fn.name, fn.params, fn.body, fn.env, result=made.result)
        self.local_total(ctx, me, made.args, made.result, made.guard, made.span, False)

    def local_total(self, ctx: Ctx, fn: LocalRec, args, shape_of_result, guard: T.Term, span,
                    monadic: bool) -> None:
        """The local recursive function ``fn`` terminates without error on every argument of
        the sorts of ``args``: its body on fresh arguments (with their annotations' facts,
        demanded at every call where they bind), its recursive calls on shorter lists at the
        parameter it matches on, each of them evaluated by this walk. It may not call the
        enclosing recursive definition."""
        # a parameter is rational in this walk when the call passes a rational: induction
        # over the calls, each of another pattern walked on its own (Decidable)
        tags = [self.dec.of_value(a) for a in args]
        shape = (tuple(value_sorts(a) for a in args), shape_of_result, monadic,
                 tuple(t is not None for t in tags))
        for seen, seen_shape in self.locals:
            if seen.env is fn.env and seen.name == fn.name and seen_shape == shape:
                for t in tags:  # the induction hypothesis: what the arguments rest on
                    self.dec.needs |= t or frozenset()
                return
        self.locals.append((fn, shape))
        name = source_name(fn.name)
        if ctx.function not in (None, fn.name) and ctx.function in free_vars(fn.body):
            raise Reject(f"the local recursive function {name} calls the enclosing recursive "
                         "definition", span)
        inner = ctx.with_env(fn.env.bind(fn.name, fn, fn))
        if guard != T.TRUE:
            inner = inner.assume("h_made", guard)
        fresh = []
        for k, (q, a) in enumerate(zip(fn.params, args), 1):
            v = fresh_like(a, self.p.fresh, q.name if isinstance(q, A.PVar) else f"{name}_{k}")
            if v is None:
                raise Reject(f"{name} is applied to a value that is not first-order", span)
            if isinstance(q, A.PVar) and q.annot is not None:
                facts = value_facts(q.annot, v, elements=False)
                if facts is None:
                    raise Reject(f"an annotation of {name} cannot be stated", span)
                if facts:
                    inner = inner.assume("h_param", T.and_(*facts))
            inner = inner.with_env(bind_pattern(inner.env, q, v, v, span))
            self.dec.fresh(v, tags[k - 1])
            fresh.append(v)
        position = matched_parameter(fn.params, fn.body)
        if position is None:
            position = counted_parameter(fn.params, fn.body, fn.name)
        measure = None
        if position is not None and isinstance(fresh[position], Scalar) \
                and (L.list_key_of(fresh[position].term.sort)
                     or fresh[position].term.sort == T.INT):
            measure = (position, fresh[position].term, fresh[position].term)
        inner = replace(inner, function=fn.name, induction=measure)
        self.dec.depth += 1  # run on any arguments, as often as its callers say
        try:
            if monadic:
                self.monadic(inner, fn.body)
            else:
                _pure_cases(self, inner, fn.body, None)
        finally:
            self.dec.depth -= 1
        calls, stray = call_sites(fn.name, fn.body, len(fn.params))
        if stray:
            raise Reject(f"{name} is used in its own body other than in a full call",
                         stray[0].span)
        if any((fn.name, _at(c.span)) not in self.local_calls for c in calls):
            raise Reject(f"a recursive call of {name} the walk never evaluates", span)

    def local_computation(self, ctx: Ctx, e: A.App, fn: LocalRec, args) -> Elem:
        """A call of a local recursive function that returns a computation."""
        if len(args) != len(fn.params):
            raise Reject(f"{source_name(fn.name)} is not applied to all its arguments", e.span)
        values = [self.value(ctx, a) for a in args]
        for q, v, a in zip(fn.params, values, args):
            self.annotations(ctx, q, v, a.span)
        self.local_calls.add((fn.name, _at(e.span)))
        t = self.p.type_of(e)
        draws = t.elem if isinstance(t, A.TMonad) else fn.draws
        if fn.name == ctx.function:
            self.shorter(ctx, [v.term if isinstance(v, (Scalar, DistV)) else None
                               for v in values], source_name(fn.name), e.span)
        # in its own body: the induction hypothesis when it passes rationals where the walk
        # assumed them, else the body walked for the call's pattern too
        me = LocalRec(fn.name, fn.params, fn.body, fn.env, draws=draws)
        self.local_total(ctx, me, values, draws, T.TRUE, e.span, True)
        return of_type(draws)

    def in_domain(self, ctx: Ctx, name: str, args: Sequence[Optional[SymValue]], call: str,
                  span, guard: T.Term = T.TRUE) -> None:
        """The call of ``name``'s val has arguments in its domain."""
        pre = self.p.domain(name, args, self.run)
        what = (f"the arguments of {call} are in the domain of {source_name(name)}'s val "
                "(where it is shown to terminate without error)")
        if pre == []:
            return
        goal = T.and_(*pre) if pre else T.FALSE
        self.require(ctx, goal, what if pre else what + ", which the logic cannot state", span,
                     guard=guard)

    def shorter(self, ctx: Ctx, args: Sequence[T.Term], call: str, span,
                guard: T.Term = T.TRUE) -> None:
        """A recursive call is on a shorter list than this run's (termination)."""
        if ctx.induction is None:
            raise Reject(f"the recursive call {call} needs structural recursion on a list "
                         "parameter", span)
        position, *lists = ctx.induction
        if args[position] is None:
            raise Reject(f"the list of the recursive call {call} is not a value", span)
        self.require(ctx, L.below(args[position], lists[self.run - 1]),
                     f"the recursive call {call} is on a shorter list or a smaller counter "
                     "(structural recursion: termination)", span, guard=guard)

    def drawn(self, elem: Elem, name: Optional[str]) -> Tuple[SymValue, List[T.Term]]:
        """A value ``elem`` draws, made fresh, recorded for the Decidable condition."""
        value, facts = elem.make(self.p, name)
        if elem.rational is not None:
            self.dec.fresh(value, elem.rational)
        if elem.density and isinstance(value, Scalar) and isinstance(value.term, T.Var):
            self.dec.observed.add(value.term)
        return value, facts

    def draw_tags(self, elem: Elem) -> Optional[frozenset]:
        """The tags of a computation's draws when they are rational (None: not known)."""
        value, _ = self.drawn(elem, None)
        return elem.rational if elem.rational is not None else self.dec.of_value(value)

    def bind(self, ctx: Ctx, pattern: A.Pattern, elem: Elem, span) -> Ctx:
        value, facts = self.drawn(elem, pattern.name if isinstance(pattern, A.PVar) else None)
        if facts:
            ctx = ctx.assume("h_draw", T.and_(*facts))
        self.annotations(ctx, pattern, value, span, "the value bound to")
        return ctx.with_env(bind_pattern(ctx.env, pattern, value, value, span))

    def annotations(self, ctx: Ctx, pattern: A.Pattern, value: SymValue, span,
                    role: str = "the argument") -> None:
        """The written types of ``pattern`` binding ``value`` in this run are range
        conditions where it binds, as ``run`` checks them (``Translator.check_pattern``)."""
        self._translated(ctx, lambda: self.p.translator.check_pattern(pattern, value, self.run,
                                                                       span, role))

    # ---- computations -----------------------------------------------------------------------

    def monadic(self, ctx: Ctx, e: A.Expr, want: Optional[A.SimpleType] = None) -> Elem:
        """Check computation ``e``, describe what it draws; with ``want`` (the type the val says
        the definition returns), demand at every tail position that the draws have it."""
        method = getattr(self, "_m_" + type(e).__name__, None)
        if method is None:
            raise Reject(f"no Safety rule for {type(e).__name__} in a monadic position", e.span)
        if want is None:
            elem = method(ctx, e)
        elif isinstance(e, _TAIL):
            elem = method(ctx, e, want)
        else:
            elem = self.returns(ctx, method(ctx, e), want, e.span)
        for n in self.p.narrowings(e):  # it flows where a narrower computation is expected
            if n.kind != "computation" or not isinstance(n.expected, A.TMonad):
                raise Reject("a computation flows where a narrower type is expected (an int "
                             "where a [k] is), which the kernel cannot show", e.span)
            value, facts = elem.make(self.p, None)
            inner = ctx.assume("h_draw", T.and_(*facts)) if facts else ctx
            self.has_type(inner, value, n.expected.elem, "the values drawn have the narrower "
                          "type where they flow", e.span, "Range")
        return elem

    def returns(self, ctx: Ctx, elem: Elem, want: A.SimpleType, span) -> Elem:
        value, facts = elem.make(self.p, None)
        inner = ctx.assume("h_draw", T.and_(*facts)) if facts else ctx
        self.has_type(inner, value, want, "the values this computation returns have the type "
                      "its val says", span)
        return elem

    def has_type(self, ctx: Ctx, value: SymValue, want: A.SimpleType, what: str, span,
                 rule: str = "Result") -> None:
        wanted = type_facts(want, value)
        if wanted == []:
            return
        if wanted is None:
            self.require(ctx, T.FALSE, f"{what} (the verifier cannot name the value to show it)",
                         span, rule)
        else:
            self.require(ctx, T.and_(*wanted), what, span, rule)

    def _m_Return(self, ctx, e):
        value = self.value(ctx, e.value)
        return Elem(exact(value).make, rational=self.dec.of_value(value))

    def _m_MLet(self, ctx, e, want=None):
        first = self.monadic(ctx, e.value)
        return self.monadic(self.bind(ctx, e.pattern, first, e.span), e.body, want)

    def _m_Let(self, ctx, e, want=None):
        v = self.value(ctx, e.value)
        self.annotations(ctx, e.pattern, v, e.span, "the value bound to")
        return self.monadic(ctx.with_env(bind_pattern(ctx.env, e.pattern, v, v, e.span)),
                            e.body, want)

    def _m_If(self, ctx, e, want=None):
        cond = self.term(ctx, e.cond)
        split = self.dec.splits(cond)
        self.dec.depth += split
        try:
            then = self.monadic(ctx.assume("h_then", cond), e.then, want)
            other = self.monadic(ctx.assume("h_else", T.not_(cond)), e.else_, want)
        finally:
            self.dec.depth -= split
        return _either(then, other)

    def _m_Match(self, ctx, e, want=None):
        lst = self.term(ctx, e.scrutinee)
        key = L.list_key_of(lst.sort)
        if key is None:
            raise Reject("match on a value that is not a list", e.scrutinee.span)
        split = self.dec.splits(lst)
        self.dec.depth += split
        try:
            nil = self.monadic(ctx.assume("h_nil", T.eq(lst, L.nil(lst.sort))), e.nil_body,
                               want)
            cons = self.monadic(self._cons_case(ctx, e, lst, key), e.cons_body, want)
        finally:
            self.dec.depth -= split
        return nil if nil is cons else _either(nil, cons)

    def _cons_case(self, ctx: Ctx, e: A.Match, lst: T.Term, key: str) -> Ctx:
        h = self.p.fresh(e.head if e.head != "_" else "hd", L.elem_sort(key))
        t = self.p.fresh(e.tail if e.tail != "_" else "tl", lst.sort)
        self.dec.list_parts(lst, (h, t))
        ctx = ctx.assume("h_cons", T.eq(lst, L.cons(h, t)))
        for name, v in ((e.head, h), (e.tail, t)):
            if name != "_":
                ctx = ctx.bind(name, element_value(v), element_value(v))
        return ctx

    def _m_Ran(self, ctx, e):
        d = self.value(ctx, e.value)
        if isinstance(d, DistV):
            return self._draw(draw_of(d), d.family)
        t = self.p.type_of(e)  # a distribution of unknown family: its type, ranges dropped
        if isinstance(d, Scalar) and draws_refused(d.term):
            raise Reject("a draw from a posterior without a closed form known only by a bound",
                         e.span)
        if isinstance(d, Scalar) and d.term.sort == L.DIST and isinstance(t, A.TMonad):
            elem = self._draw(_draws_of(ctx, d.term, t.elem), None)
            if not elem.density and rational_draws(ctx.hyps, d.term):
                return Elem(elem.make, rational=frozenset())
            return elem
        raise Reject("ran of a value that is not a symbolic distribution", e.span)

    def _draw(self, elem: Elem, family: Optional[str]) -> Elem:
        """What the Decidable condition knows of a draw of a law of ``family``: in a
        likelihood, a draw of a law that is not finite is read by its density; ``run``
        samples ``beta`` (``uniform``) and ``dirichlet`` as exact rationals."""
        if self.dec.in_likelihood and family not in ("bernoulli", "categorical"):
            return Elem(elem.make, density=True)
        if DC.rational_family(family):
            return Elem(elem.make, rational=frozenset())
        return elem

    def _m_Observe(self, ctx, e):
        prior = self.monadic(ctx, e.prior)
        lik = self.value(ctx, e.likelihood)
        if not (isinstance(lik, Closure) and len(lik.params) == 1):
            raise Reject("observe needs its likelihood as a one-parameter function",
                         e.likelihood.span)
        inner = self.bind(ctx.with_env(lik.env), lik.params[0], prior, e.span)
        self.dec.in_likelihood += 1
        try:
            self.monadic(inner, lik.body)
        finally:
            self.dec.in_likelihood -= 1
        # run samples an observe from its exact posterior: a prior seen to be of a continuous
        # family needs the closed form (run stops on a likelihood that is not conjugate)
        seen = e.prior
        while isinstance(seen, A.Observe):
            seen = seen.prior
        if isinstance(seen, A.Ran) and not self.inferring:  # (a model is inferred, not drawn)
            d = self.value(ctx, seen.value)
            if isinstance(d, DistV) and d.family in ("beta", "normal", "dirichlet") \
                    and not isinstance(self.value(ctx, A.Infer(e, e.span)), DistV):
                raise Reject("run draws from this observe by inferring its posterior exactly, "
                             "which has no closed form here", e.span)
        return prior

    def _m_Infer(self, ctx, e):
        """The model of an ``infer`` without closed form, made where ``infer`` is evaluated:
        its code runs, its observes are inferred (the Infer rule checked that run can)."""
        inferring, self.inferring = self.inferring, True
        try:
            return self.monadic(ctx, e.value)
        finally:
            self.inferring = inferring

    def _m_LetRec(self, ctx, e, want=None):
        fn = LocalRec(e.name, e.params, e.value, ctx.env)
        return self.monadic(ctx.bind(e.name, fn, fn), e.body, want)

    def _m_Var(self, ctx, e, want=None):
        pair = ctx.env.lookup(e.name)
        value = pair[self.run - 1] if pair else None
        if isinstance(value, Monadic) and value.rtype is not None:
            elem = elem_of_rtype(value.rtype)
            tags = self.dec.computations.get(id(value))  # a parameter's: rational by its terms
            if tags is not None:
                elem = Elem(elem.make, rational=frozenset({tags}))
            return elem if want is None else self.returns(ctx, elem, want, e.span)
        if isinstance(value, Monadic) and value.expr is not None:
            return self.monadic(ctx.with_env(value.env), value.expr, want)
        raise Reject(f"{source_name(e.name)} is not a known computation", e.span)

    def _m_App(self, ctx, e, want=None):
        head, args = flatten_app(e)
        if not isinstance(head, A.Var):
            raise Reject("application of a computed function in a monadic position", e.span)
        pair = ctx.env.lookup(head.name)
        fn = pair[self.run - 1] if pair else None
        if want is not None and not (isinstance(fn, Closure) and fn.params):
            return self.returns(ctx, self._m_App(ctx, e), want, e.span)  # a leaf
        if pair is None:  # in the resolved core only a built-in is unbound
            parts = args[0].items if len(args) == 1 and isinstance(args[0], A.TupleLit) else args
            rule = getattr(self, "_mech_" + head.name, None)
            if rule is None or head.name not in BUILTINS:
                raise Reject(f"no Safety rule in the kernel for {head.name}", e.span)
            return rule(ctx, e, list(parts))
        if isinstance(fn, Closure) and not fn.params:  # a constant whose value is a function
            fn = self.value(ctx, head)
        if isinstance(fn, NamedFun) and not fn.args:
            return self._val_call(ctx, e, fn.name, args)
        if isinstance(fn, FunParam):
            return self._parameter_call(ctx, e, fn, args)
        if isinstance(fn, LocalRec):
            return self.local_computation(ctx, e, fn, args)
        if isinstance(fn, Closure):
            if len(args) != len(fn.params):
                raise Reject(f"{source_name(head.name)} is partially applied here", e.span)
            env = fn.env
            for param, a in zip(fn.params, args):
                v = self.value(ctx, a)
                self.annotations(ctx, param, v, a.span)
                env = bind_pattern(env, param, v, v, a.span)
            return self.monadic(ctx.with_env(env), fn.body, want)
        raise Reject(f"{source_name(head.name)} is not a function", e.span)

    # ---- mechanisms -------------------------------------------------------------------------

    def arguments(self, ctx: Ctx, name: str, args: Sequence[A.Expr],
                  categories: Optional[int] = None) -> List[SymValue]:
        """The arguments of the built-in mechanism ``name`` in this run, each in the range
        the catalogue gives it (``real+``, ``(0,1)``, ``[k] list`` with ``categories`` for k:
        a range with ``[k]`` and no k does not apply), as ``run`` checks them."""
        values = [self.value(ctx, a) for a in args]
        entry = BUILTINS[name]
        for i, (arg, value) in enumerate(zip(args, values)):
            text = entry.range_of(i)
            if text is None or ("[k]" in text and categories is None):
                continue
            what = f"the {entry.argument_name(i)} of {name}"
            if text == "(0,1)":
                t = self.p.translator.as_term(value, arg)
                self.require(ctx, T.and_(T.gt(t, 0), T.lt(t, 1)), f"{what} is in (0, 1)",
                             arg.span)
                continue
            want, shown = _catalogue_type(text, categories)
            self.has_type(ctx, value, want, f"{what} has type {shown}", arg.span, "Range")
        for i, (arg, value) in enumerate(zip(args, values)):  # run checks these ranges
            if entry.range_of(i) is not None and isinstance(value, Scalar):
                self.dec.judge(ctx, (value.term,), f"the range check of the "
                               f"{entry.argument_name(i)} of {name}", arg.span)
        return values

    def _arity(self, e: A.App, args, n: int, name: str) -> None:
        if len(args) != n:
            raise Reject(f"{name} takes {n} arguments", e.span)

    def _mech_lapMech(self, ctx, e, args):
        self._arity(e, args, 2, "lapMech")
        self.arguments(ctx, "lapMech", args)
        return Elem(of_type(A.TBase("real"), "z").make, rational=frozenset())  # grid rationals

    def _mech_gaussMech(self, ctx, e, args):
        self._arity(e, args, 3, "gaussMech")
        self.arguments(ctx, "gaussMech", args)
        return Elem(of_type(A.TBase("real"), "z").make, rational=frozenset())  # grid rationals

    def _mech_expMech(self, ctx, e, args):
        if len(args) not in (3, 4):
            raise Reject("expMech takes (eps, score, x) or (eps, score, x, candidates)", e.span)
        values = self.arguments(ctx, "expMech", args)
        score, x = values[1], values[2]
        tags = None
        if len(args) == 4:
            tags = self.dec.of_value(values[3])  # one of rational candidates is rational
            cands = self.p.translator.as_term(values[3], args[3])
            if not (isinstance(cands, T.Apply) and cands.func.name in ("cons", "posteriors")):
                if not self._nonempty_by_shape(ctx, args[3]):
                    self.require(ctx, T.ge(L.length(cands), 1),
                                 "the candidate list of expMech is not empty", args[3].span)
            member = posterior_member(self.p, cands)
            if member is not None:
                r, facts = member
            else:
                r, facts = fresh_value(self.p, _element_type(cands), "r")
                if isinstance(r, Scalar):
                    facts = facts + list(literal_members(cands, r.term))
                    r = literal_family(self.p, cands, r)
        else:
            r, facts = finite_candidate(self.p, e)
        self.dec.fresh(r, tags)
        inner = ctx.assume("h_candidate", T.and_(*facts)) if facts else ctx
        self.apply(inner, score, [TupleV((x, r))], e.span)
        return Elem(lambda p, name: (r, list(facts)), rational=tags)

    def _nonempty_by_shape(self, ctx: Ctx, e: A.Expr) -> bool:
        """The certificate says (NonEmpty-Induction at ``e``) that the candidate list ``e``
        is a call of a local recursive function that always returns a non-empty list: the
        kernel reads that shape itself from the source (``verifier.language.shapes``) or
        rejects the certificate. False when the certificate says nothing here."""
        span = e.span
        at = (span.line, span.col, span.end_line, span.end_col)
        node = self.p.nonempty_claimed.get(at)
        if node is None:
            return False
        head = e
        while isinstance(head, A.App):
            head = head.fn
        pair = ctx.env.lookup(head.name) if isinstance(head, A.Var) else None
        fn = pair[self.run - 1] if pair is not None else None
        if not (isinstance(fn, LocalRec) and fn.name == head.name
                and nonempty_call(e, fn.name, fn.params, fn.body)):
            raise Reject(f"node {node}: NonEmpty-Induction, but the kernel cannot show from "
                         "the source that this candidate list of expMech is a call of a local "
                         "recursive function that always returns a non-empty list", span)
        self.p.nonempty_used.add(at)
        return True

    def _mech_hellingerMech(self, ctx, e, args):
        self._arity(e, args, 4, "hellingerMech")
        return self._hellinger(ctx, "hellingerMech", args)

    def _mech_hellingerMechPure(self, ctx, e, args):
        self._arity(e, args, 3, "hellingerMechPure")
        return self._hellinger(ctx, "hellingerMechPure", args)

    def _hellinger(self, ctx: Ctx, name: str, args) -> Elem:
        """The catalogue's ranges (the data of a dirichlet prior over k: a ``[k] list``) and
        a prior of a conjugate family the kernel sees."""
        prior = self.value(ctx, args[-2])
        k = len(prior.params) if isinstance(prior, DistV) and prior.family == "dirichlet" \
            else None
        self.arguments(ctx, name, args, k)
        if not (isinstance(prior, DistV) and prior.family in ("beta", "dirichlet")):
            raise Reject("the prior of the Hellinger mechanism must be a beta or a dirichlet",
                         args[-2].span)
        # a posterior of the prior: a beta (draws in [0,1]) or a dirichlet (on the simplex)
        return of_type(A.TDist(family_support(prior.family, len(prior.params))), "post")

    # ---- calls of vals ------------------------------------------------------------------------

    def _val_call(self, ctx: Ctx, e: A.App, name: str, args: List[A.Expr]) -> Elem:
        val = self.p.val_of(name)
        if val is None:
            raise Reject(f"the recursive function {source_name(name)} needs a val", e.span)
        doms, rt = arrows(val.rtype)
        if len(doms) != len(args):
            raise Reject(f"{source_name(name)} is applied to {len(args)} arguments; its val "
                         f"has {len(doms)}", e.span)
        terms: List[Optional[T.Term]] = []
        values: List[Optional[SymValue]] = []
        tags: List[Optional[frozenset]] = []  # per argument, for the callee's terms
        for i, (arg, dom) in enumerate(zip(args, doms), 1):
            base = refinement_parts(dom)[1]
            terms.append(None)
            values.append(None)
            if isinstance(base, A.RArrow):
                self._passed_function(ctx, arg, base)
                tags.append(None)
                continue
            if isinstance(base, A.RMonad):
                elem = self.monadic(ctx, arg)
                value, facts = self.drawn(elem, None)
                tags.append(elem.rational if elem.rational is not None
                            else self.dec.of_value(value))
                inner = ctx.assume("h_draw", T.and_(*facts)) if facts else ctx
                self.has_type(inner, value, simple_of(base.body), f"the draws of argument {i} "
                              f"of {source_name(name)} have the type its val says", arg.span,
                              "Range")
                continue
            value = self.value(ctx, arg)
            values[-1] = value
            tags.append(self.dec.of_value(value))
            if isinstance(value, (Scalar, DistV)):
                terms[-1] = value.term
            self.has_type(ctx, value, simple_of(base), f"argument {i} of {source_name(name)} "
                          "has the type its val says", arg.span, "Range")
        call = f"{source_name(name)} (…)"
        self.in_domain(ctx, name, values, call, e.span)
        self.dec.arguments_of_call(name, tags, e.span)
        draws = DC.draws_of_call(self.p, name, tags)
        if name == ctx.function:  # a recursive call in monadic code terminates too
            position = ctx.induction[0] if ctx.induction is not None else None
            if position is not None and terms[position] is None:
                raise Reject("the list of a recursive call must be a value", e.span)
            self.shorter(ctx, terms, call, e.span)
        if not isinstance(refinement_parts(rt)[1], A.RMonad):
            raise Reject(f"{source_name(name)} does not return a computation", e.span)
        elem = elem_of_rtype(refinement_parts(rt)[1])
        return elem if draws is None else Elem(elem.make, rational=draws)


    def _passed_function(self, ctx: Ctx, arg: A.Expr, want: A.RType) -> None:
        """A function passed to a val where it expects one of type ``want`` (its type is
        S-Fun's, relational): the first arguments a function with a val is applied to are
        evaluated here, in its val's domain, rational where its terms need; a function
        parameter passed on needs nothing here; a fun's body is walked here."""
        head, partial = flatten_app(arg)
        fn = self.value(ctx, head)
        if isinstance(fn, FunParam) and not partial:
            return
        if not (isinstance(fn, NamedFun) and not fn.args and self.p.val_of(fn.name) is not None):
            self._fun_body(ctx, arg, want)
            return
        values = [self.value(ctx, a) for a in partial]
        self.in_domain(ctx, fn.name, values, f"{source_name(fn.name)} (…)", arg.span)
        self.dec.arguments_of_call(fn.name, [self.dec.of_value(v) for v in values], arg.span)
        self._rational_results(fn.name, values, want, arg.span)

    def _fun_body(self, ctx: Ctx, arg: A.Expr, want: A.RType) -> None:
        self._walk_fun(ctx, self.value(ctx, arg), want, arg.span)

    def _walk_fun(self, ctx: Ctx, fn: SymValue, want: A.RType, span) -> None:
        """A fun passed to a val runs there on arguments of ``want``'s domain, any number of
        times: its body on fresh arguments with the domain's ranges (its annotations are
        conditions), rational (a parameter's calls pass rational arguments), not reached alike;
        what it draws or returns has the type's ranges (and a value it returns is rational)."""
        from checker.higher_order import parameter_type
        doms, cod = parameter_type(want, span)
        if not isinstance(fn, Closure) or len(fn.params) != len(doms) \
                or isinstance(fn.body, A.Fun):
            raise Reject("a function passed to a val must be a top-level function with a val, a "
                         "function parameter or a fun of as many parameters", span)
        if ctx.function is not None and ctx.function in free_vars(fn.body):
            raise Reject("a fun passed to a val calls the enclosing recursive definition",
                         span)
        inner = ctx.with_env(fn.env)
        for q, d in zip(fn.params, doms):
            v, facts = fresh_value(self.p, simple_of(refinement_parts(d)[1]),
                                   q.name if isinstance(q, A.PVar) else "x")
            if facts:
                inner = inner.assume("h_param", T.and_(*facts))
            self.dec.fresh(v, frozenset())
            self.annotations(inner, q, v, span)
            inner = inner.with_env(bind_pattern(inner.env, q, v, v, span))
        self.dec.depth += 1  # run where the callee likes, as often as it likes
        try:
            if isinstance(cod, A.RMonad):
                self.monadic(inner, fn.body, simple_of(cod.body))
            else:
                value = self.value(inner, fn.body)
                self.has_type(inner, value, simple_of(cod), "a fun passed returns values of the "
                              "type expected", span, "Range")
                self.dec.argument_of_parameter(self.dec.of_value(value), "the value a fun "
                                               "passed returns (on rational arguments)", span)
        finally:
            self.dec.depth -= 1

    def _parameter_call(self, ctx: Ctx, e: A.App, fn: FunParam, args: List[A.Expr]) -> Elem:
        """A call of a function parameter: the function passed is verified (its callers'
        S-Fun and the dependency on its claim), so it terminates without error on arguments in
        its type's domain (demanded at ``(a, a)``); its arguments are rational; it draws values
        of its type, not known to be rational."""
        from checker.higher_order import call_type
        doms, cod = call_type(fn)
        if len(doms) != len(args):
            raise Reject(f"{source_name(fn.name)} is applied to {len(args)} arguments; its type "
                         f"has {len(doms)}", e.span)
        values: List[Optional[SymValue]] = []
        for i, (arg, dom) in enumerate(zip(args, doms), 1):
            value = self.value(ctx, arg)
            values.append(value)
            self.has_type(ctx, value, simple_of(refinement_parts(dom)[1]), f"argument {i} of "
                          f"{source_name(fn.name)} has the type of the parameter", arg.span,
                          "Range")
            self.dec.argument_of_parameter(self.dec.of_value(value), f"argument {i} of the call "
                                           f"of {source_name(fn.name)}", arg.span)
        pre = self.p.domain(fn.name, values, self.run, rtype=fn.rtype, env=fn.env)
        what = (f"the arguments of {source_name(fn.name)} (…) are in the domain of its type "
                "(where the function passed terminates without error)")
        if pre != []:
            self.require(ctx, T.and_(*pre) if pre else T.FALSE,
                         what if pre else what + ", which the logic cannot state", e.span)
        return elem_of_rtype(cod)


def nonempty_premises(nodes: Sequence) -> dict:
    """The premises of a Safety node: NonEmpty-Induction leaves, each at a candidate list of
    expMech (``Safety._nonempty_by_shape``), by where they are."""
    out = {}
    for n in nodes:
        if n.rule != "NonEmpty-Induction" or n.premises or n.at is None or n.at in out:
            raise Reject(f"node {n.id}: the premises of Safety are NonEmpty-Induction leaves, "
                         "each at its own candidate list of expMech", None)
        out[n.at] = n.id
    return out


def check_safety(p: Proof, ctx: Ctx, body: A.Expr, monadic: bool,
                 result: Optional[A.SimpleType], parameters: Sequence[A.Pattern] = (),
                 definition: Optional[A.LetDecl] = None, needs: Optional[set] = None):
    """The Safety premise of a definition: its conditions in run 1 and run 2, that what it
    returns (``result``: the simple type of its val's result, or of what its computation
    draws) has that type's ranges, which every use of the val assumes, and that each of its
    ``parameters`` has the type the body uses it at when that is narrower than its val's.
    And the Decidable condition (``checker.decidable``): every decision the run makes is safe
    with private data — public decisions only in an entry ``definition``. With ``needs`` (a
    set), the definition's terms are computed instead: the positions its decisions need
    rational are added to it, nothing is rejected for the condition, and the result says
    whether its draws are rational."""
    entry = definition is not None and needs is None and \
        DC.entry_definition(p.program, definition)
    rational_draws = True
    for run in (1, 2):
        dec = DC.Decisions(p, run, entry=entry, summary=needs is not None)
        dec.parameters(ctx, parameters)
        s = Safety(p, run, dec)
        for q in parameters:
            pair = ctx.env.lookup(q.name) if isinstance(q, A.PVar) else None
            for n in p.narrowings(q):
                if pair is None or n.kind != "value":
                    raise Reject("a parameter is used at a narrower type than its val's, which "
                                 "the kernel cannot show", q.span)
                s.has_type(ctx, pair[run - 1], n.expected, f"the parameter "
                           f"{source_name(q.name)} has the type the definition uses it at",
                           q.span, "Range")
        if monadic:
            rational_draws &= s.draw_tags(s.monadic(ctx, body, result)) is not None
        else:
            rational_draws &= _pure_cases(s, ctx, body, result)
        if needs is not None:
            needs |= dec.needs
    return rational_draws


def _either(a: Elem, b: Elem) -> Elem:
    """What a computation draws when it is ``a``'s or ``b``'s: opaque, rational when both
    are."""
    if a.rational is None or b.rational is None:
        return OPAQUE
    return Elem(OPAQUE.make, rational=a.rational | b.rational)


def _pure_cases(s: Safety, ctx: Ctx, e: A.Expr, result: Optional[A.SimpleType]) -> bool:
    """Walk a pure body case by case; whether every value it returns is rational (when the
    parameters are)."""
    if isinstance(e, A.Match):
        lst = s.term(ctx, e.scrutinee)
        key = L.list_key_of(lst.sort)
        if key is None:
            raise Reject("match on a value that is not a list", e.scrutinee.span)
        split = s.dec.splits(lst)
        s.dec.depth += split
        try:
            nil = _pure_cases(s, ctx.assume("h_nil", T.eq(lst, L.nil(lst.sort))), e.nil_body,
                              result)
            return _pure_cases(s, s._cons_case(ctx, e, lst, key), e.cons_body, result) and nil
        finally:
            s.dec.depth -= split
    elif isinstance(e, A.If):
        cond = s.term(ctx, e.cond)
        split = s.dec.splits(cond)
        s.dec.depth += split
        try:
            then = _pure_cases(s, ctx.assume("h_then", cond), e.then, result)
            return _pure_cases(s, ctx.assume("h_else", T.not_(cond)), e.else_, result) and then
        finally:
            s.dec.depth -= split
    value = s.value(ctx, e)
    if result is not None:
        s.has_type(ctx, value, result, "the result has the type its val says", e.span)
    return s.dec.of_value(value) is not None


def _at(span) -> tuple:
    return (span.line, span.col, span.end_line, span.end_col) if span is not None else ()


@lru_cache(maxsize=256)
def _catalogue_type(text: str, categories: Optional[int]) -> Tuple[A.SimpleType, str]:
    """A range of the catalogue (``[k]`` read as ``[categories]``) as a simple type, and as
    text."""
    t = parse_simple_type(text.replace("[k]", f"[{categories}]"), "<catalogue>")
    return t, pretty_type(t)


def _element_type(candidates: T.Term) -> Optional[A.SimpleType]:
    """What the sort of a list term says of its elements (``[K]`` for a ``List[finK]``, else
    the element type without a range): never the type an annotation gives the expression,
    which need not hold of the list's elements."""
    key = L.list_key_of(candidates.sort)
    k = L.fin_size(key)
    if k:
        return A.TFin(k)
    return {"bool": A.TBase("bool"), "int": A.TBase("int"), "real": A.TBase("real"),
            "dist": A.TDist(A.TBase("real"))}.get(key)
