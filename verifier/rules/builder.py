"""The derivation builder: proves one ``val`` claim by applying the rules.

``Builder(program, typed).prove_claim(val)`` returns the root ``Derivation`` of the claim.
Rules are the functions registered in ``verifier.rules.registry`` (see ``monadic_rules``,
``core_rules``, ``mechanism_rules``); this module provides what they share: fresh names, the
translator, obligations with their axioms, and discharge with a cache (a rule may need to
know whether an obligation holds to decide between two rules, e.g. whether a scrutinee is
equal in both runs).

The builder imports no rule module: it reaches the rules only through the registry (the
construct's rule, a judgement's rule by name), so the rules stand above it and import it;
``verifier.rules.catalogue`` loads them.
"""
from __future__ import annotations

import itertools
from contextlib import contextmanager
from typing import Dict, Iterable, List, Optional, Sequence, Tuple

from obligations import terms as T
from obligations.model import (Obligation, ObligationKind, Provenance, Result, SourceSpan,
                               Verdict)
from obligations.relevance import relevant, total  # noqa: F401  (total: re-exported for rules)
from obligations.smtlib import Z3Session
from obligations.z3_backend import discharge
from verifier.language import ast as A
from verifier.language.resolve import source_name
from verifier.rules import axioms as AX
from verifier.translation import logic as L
from verifier.rules import registry
from verifier.rules.call_facts import call_facts, pure_signature
from verifier.rules.context import Claim, Cost, Ctx, Synth
from verifier.rules.derivation import Derivation, output_judgement, short
from verifier.rules.equality import equal_term, equality_goals
from verifier.rules.refinements import simple_of
from verifier.translation.symbolic import (DistV, Env, Scalar, SymValue, top_level_value)
from verifier.translation.translate import (CallCheck, Decision, Narrowing, NoRule,
                                            RangeCheck, StoredComputation, Translator,
                                            missing_val)


class Builder:
    """Builds derivations for the claims of one program."""

    def __init__(self, program: A.Program, typed=None, *, rlimit: Optional[int] = None,
                 session: Optional[Z3Session] = None):
        if not program.resolved:
            raise ValueError("the Builder works on the resolved core of a program "
                             "(verifier.language.resolve.resolve), in which no name is shadowed")
        self.program = program
        self.typed = typed
        self.rlimit = rlimit
        #: close the paths of a DP claim with a delta by advanced composition (S-M-Adv)
        self.advanced = False
        self._ids = itertools.count(1)
        self._names: Dict[str, int] = {}
        self._cache: Dict[str, Result] = {}
        self._decided: Dict[str, Result] = {}  # rule-selection answers that were not verified
        self._unproved: set = set()  # their formulas (hypotheses, axioms, goal)
        self._session = session or Z3Session()  # one z3 context for the program: see Z3Session
        self._vals = {v.name: v for v in program.vals()}
        self._lets = {d.name: d for d in program.lets()}
        self._range_checks: List[RangeCheck] = []
        self._calls: List[CallCheck] = []
        self._stored: List[StoredComputation] = []
        self._decisions: List[Decision] = []
        self._narrowings = _narrowings_of(typed)
        self.translator = Translator(self._range_checks.append, self._infer, self.fresh,
                                     self.signature, self.list_key, self._on_call,
                                     self._returns_computation, self._stored.append,
                                     self.narrowings, self.sort_of, self.result_type,
                                     self._decisions.append)
        #: the contracts of the vals called (``verifier.rules.decidable.contract``)
        self.decidable_contracts: Dict[str, frozenset] = {}
        self.folds: Dict[str, Derivation] = {}
        #: functions whose val's call facts some obligation assumes (the claim depends on them)
        self.called: set = set()
        self.call_fact_cache: Dict[tuple, Optional[T.Term]] = {}
        #: what the call facts of higher-order calls in pure code rest on: the functions
        #: passed having the type the callee expects (``higher_order.Related``), by key
        self.related: Dict[tuple, object] = {}
        #: LetRec-Joint (``verifier.rules.joint``): the additive shape of each function asked
        #: about (None: another shape), its joint facts by key, and the LetRec-Joint root
        #: premise of each function whose joint facts some obligation assumes
        self.additive: Dict[str, object] = {}
        self.joint_cache: Dict[tuple, tuple] = {}
        self.joint: Dict[str, Derivation] = {}
        self._pure_vals: Optional[frozenset] = None
        #: id of a node a rule built (not in the program) -> (that node, the program's node
        #: whose simple type it has); the node is kept so that its id is not reused
        self._twins: Dict[int, Tuple[A.Expr, A.Expr]] = {}
        self.top_env = self._top_env()  # after _twins: it reads the definitions' types
        #: fresh variables that only witness facts about a drawn value (the counts of a member
        #: of ``posteriors``): their facts are relevant only to obligations that mention them
        self.witnesses: set = set()
        #: the coupling search in progress (``verifier.rules.couplings.Search``), or None: the
        #: rules couple mechanisms' outputs by the identity (``Shift`` choices only there)
        self.search = None
        #: under Pointwise-Value: the invariants stated for helpers without a val, by name
        self.invariants: Dict[str, A.ValDecl] = {}
        #: release loops used as batches of steps (S-M-Adv over a recursion): name -> (the
        #: position of the list, the epsilon of a step), and those whose derivation is built
        self.steps: Dict[str, Tuple[int, A.Expr]] = {}
        self.steps_proved: set = set()
        #: the recursive definition proved against its val strengthened
        #: (``verifier.language.strengthen``) and the root rule that says how —
        #: LetRec-Induction-Eq (the equality case) or LetRec-Induction-Acc (relative to the
        #: accumulator) — or None
        self.strengthened: Optional[Tuple[str, str]] = None

    # ---- names ----------------------------------------------------------------------------

    def fresh_name(self, name: str) -> str:
        """A logical name for program name ``name``, distinct from earlier ones (``x``, ``x'``…);
        a binder renamed by resolution (``x#2``) is named as written."""
        base = source_name(name).rstrip("'") or "v"
        n = self._names.get(base, 0)
        self._names[base] = n + 1
        return base + "'" * n

    @contextmanager
    def name_scope(self):
        """Fresh names made inside are free again afterwards (for independent passes)."""
        saved, witnesses = dict(self._names), set(self.witnesses)
        try:
            yield
        finally:
            self._names, self.witnesses = saved, witnesses

    def fresh(self, name: str, sort: T.Sort, run: Optional[int] = None) -> T.Var:
        """A fresh logical variable (one run, or shared by both when ``run`` is None)."""
        return T.var(self.fresh_name(name), sort, run)

    def fresh_pair(self, name: str, sort: T.Sort, shared: bool) -> Tuple[T.Var, T.Var]:
        """Variables for ``name`` in run 1 and run 2: one shared variable, or ``x<1>``, ``x<2>``."""
        n = self.fresh_name(name)
        if shared:
            v = T.var(n, sort)
            return v, v
        return T.var(n, sort, 1), T.var(n, sort, 2)

    def node_id(self) -> str:
        return f"n{next(self._ids)}"

    # ---- the top-level environment ---------------------------------------------------------

    def _top_env(self) -> Env:
        """The environment after the last declaration; ``env_at`` gives each declaration's."""
        env = Env()
        self._env_at: Dict[int, Env] = {}
        for decl in self.program.lets():
            value = top_level_value(decl, decl.name in self._vals, env, self.type_of)
            inner = env.bind(decl.name, value, value) if decl.recursive else env
            self._env_at[id(decl)] = inner
            env = env.bind(decl.name, value, value)
        return env

    def env_at(self, decl: A.LetDecl) -> Env:
        """The top-level names the body of ``decl`` sees (OCaml scoping: earlier ones only,
        and itself when recursive)."""
        return self._env_at[id(decl)]

    def signature(self, name: str) -> Tuple[int, Optional[T.Sort]]:
        """Arity and result sort of a function used through its ``val``."""
        val = self._vals.get(name)
        if val is None:
            decl = self._lets.get(name)
            raise missing_val(name, decl.span if decl else None)
        arity, rt = 0, val.rtype
        while isinstance(rt, A.RArrow):
            arity, rt = arity + 1, rt.cod
        return arity, L.sort_of_type(simple_of(rt))

    def result_type(self, name: str) -> Optional[A.SimpleType]:
        """The simple type of what the function ``name`` returns, fully applied, by its val."""
        val = self._vals.get(name)
        if val is None:
            return None
        rt = val.rtype
        while isinstance(rt, A.RArrow):
            rt = rt.cod
        try:
            return simple_of(rt)
        except NoRule:
            return None

    def _returns_computation(self, name: str) -> bool:
        """Whether the val of ``name`` says that, fully applied, it returns a computation."""
        rt = self._vals[name].rtype
        while isinstance(rt, A.RArrow):
            rt = rt.cod
        while isinstance(rt, A.RRefine):
            rt = rt.base
        return isinstance(rt, A.RMonad)

    def twin(self, new: A.Expr, original: A.Expr) -> A.Expr:
        """Record that ``new``, an expression a rule built, has the simple type of the program's
        ``original`` (and, for an ``expMech`` call, its range); return ``new``."""
        self._twins[id(new)] = (new, self._twins.get(id(original), (None, original))[1])
        return new

    def simple_type(self, e: A.Expr):
        """The simple type of ``e`` (the type checker's), or None when it is not known."""
        if self.typed is None:
            return None
        try:
            return self.typed.type_of(self._twins.get(id(e), (None, e))[1])
        except (KeyError, LookupError, AttributeError):
            return None

    def sort_of(self, e: A.Expr) -> Optional[T.Sort]:
        """The sort of the values of ``e`` (by its simple type), when the logic has one."""
        from verifier.translation.typing_bridge import sort_of
        t = self.simple_type(e)
        return None if t is None else sort_of(t)

    def expmech_range(self, app: A.App):
        """The range of the candidates of the ``expMech`` call ``app`` (the type checker's)."""
        return self.typed.expmech_range(self._twins.get(id(app), (None, app))[1])

    def type_of(self, e: A.Expr):
        """The simple type of ``e`` as surface syntax, when the type checker knows it."""
        from verifier.translation.typing_bridge import to_syntax
        t = self.simple_type(e)
        return None if t is None else to_syntax(t)

    def list_key(self, e: A.Expr) -> Optional[str]:
        """The element key of the list sort of list-typed ``e`` (e.g. ``bool``, ``fin3``)."""
        t = self.type_of(e)
        return L.elem_key(t.elem) if isinstance(t, A.TList) else None

    def narrowings(self, e: A.Expr) -> Sequence[Narrowing]:
        """Where the value of ``e`` flows into a narrower type than its own (the type
        checker's ``TypedProgram.narrowings``, as surface types): the translator and the
        Safety walk show the narrower type's ranges there."""
        if not self._narrowings:
            return ()
        twin = self._twins.get(id(e))
        found = self._narrowings.get(id(twin[1]) if twin else id(e))
        if not found:
            return ()
        from verifier.translation.typing_bridge import to_syntax
        return tuple(Narrowing(kind, to_syntax(t), component) for component, kind, t in found)

    def candidate_type(self, app: A.App) -> Optional[A.SimpleType]:
        """The type of the candidates of ``expMech (eps, score, x, rs)``."""
        arg = app.arg
        if isinstance(arg, A.TupleLit) and len(arg.items) == 4:
            t = self.type_of(arg.items[3])
            if isinstance(t, A.TList):
                return t.elem
        return None

    def functions_called(self, *terms: T.Term) -> set:
        """The functions with a val whose calls (opaque symbols) occur in ``terms``."""
        return {name for f in T.functions(*terms)
                for name in (L.program_function_name(f.name),) if name in self._vals}

    def val_of(self, name: str) -> Optional[A.ValDecl]:
        return self._vals.get(name)

    def pure_vals(self) -> frozenset:
        """The functions whose val is a pure arrow of simple types (their calls get facts)."""
        if self._pure_vals is None:
            self._pure_vals = frozenset(n for n, v in self._vals.items()
                                        if pure_signature(v) is not None)
        return self._pure_vals

    def let_of(self, name: str) -> Optional[A.LetDecl]:
        return self._lets.get(name)

    # ---- derivation nodes ---------------------------------------------------------------------

    def node(self, rule: str, ctx: Optional[Ctx], span: Optional[A.Span], summary: str,
             premises: Iterable[Derivation] = (), obligations: Iterable[Obligation] = (),
             **data) -> Derivation:
        judgement = {"summary": summary, **data}
        if ctx is not None:
            judgement["hypotheses"] = [n for n, _ in ctx.hyps]
            if ctx.case:
                judgement["case"] = ctx.case
        return Derivation(self.node_id(), rule, judgement, span, list(premises), list(obligations))

    # ---- obligations -----------------------------------------------------------------------

    def oblige(self, ctx: Ctx, kind: ObligationKind, goal: T.Term, description: str,
               span: Optional[A.Span], rule: str) -> Obligation:
        """An obligation ``ctx.hyps ⊢ goal`` with the axioms its symbols need."""
        hyps = relevant(ctx.hyps, goal, self.witnesses)
        facts = call_facts(self, ctx, [t for _, t in hyps] + [goal])
        if facts:
            hyps = tuple(hyps) + facts
        # an opaque call assumes its function returns (terminates) and, through the call
        # facts, its val: the claim depends on that function's claim
        self.called.update(self.functions_called(goal, *(t for _, t in hyps)))
        axioms = AX.instantiate([t for _, t in hyps] + [goal])
        return Obligation(kind=kind, hypotheses=hyps, goal=goal, axioms=axioms,
                          provenance=Provenance(rule=rule, node="", description=description,
                                                span=_source_span(span)))

    def prove(self, ob: Obligation) -> Result:
        """Discharge ``ob`` (cached by content). A counterexample stands only if it does not
        depend on the values of calls of functions with a ``val``: such calls are opaque
        symbols constrained at most by their val's postcondition (``call_facts``), so z3 may
        give them values the function never returns (``counterexamples.model_check``)."""
        cached = self._cache.get(ob.id)
        if cached is None:
            cached = self._cache[ob.id] = self._discharge(ob, confirm=True)
        return cached

    def proves(self, ob: Obligation) -> bool:
        """Whether ``ob`` is verified — for choosing between rules: a counterexample would not
        be shown, so none is confirmed (verified results are shared with ``prove``)."""
        cached = self._cache.get(ob.id) or self._decided.get(ob.id)
        if cached is None:
            formula = (ob.hypotheses, ob.axioms, ob.goal)
            if formula in self._unproved:  # the same question, asked at another place
                return False
            cached = self._discharge(ob, confirm=False)
            (self._cache if cached.verdict == Verdict.VERIFIED else self._decided)[ob.id] = cached
            if cached.verdict != Verdict.VERIFIED:
                self._unproved.add(formula)
        return cached.verdict == Verdict.VERIFIED

    def _discharge(self, ob: Obligation, confirm: bool) -> Result:
        if ob.goal == T.boolean(True):
            return Result(obligation=ob.id, verdict=Verdict.VERIFIED, method="trivial",
                          reason="the goal is true")
        kwargs = {"rlimit": self.rlimit} if self.rlimit else {}
        opaque = frozenset(L.program_function(f) for f in
                           self.functions_called(ob.goal, *(h.term for h in ob.hypotheses)))
        return discharge(ob, confirm=confirm, session=self._session, opaque=opaque, **kwargs)

    def holds(self, ctx: Ctx, goal: T.Term) -> bool:
        """Whether ``goal`` is proved under ``ctx`` (used to choose between rules)."""
        return goal == T.boolean(True) or self.proved(ctx, goal) is not None

    def proved(self, ctx: Ctx, goal: T.Term) -> Optional[Tuple[Obligation, Result]]:
        """The obligation ``ctx ⊢ goal`` and its result, when it is proved: a side condition
        that selects a rule (the rule records both in its judgement, for certificates)."""
        ob = self.oblige(ctx, ObligationKind.ENTAILMENT, goal, "rule selection", None, "select")
        return (ob, self._cache[ob.id]) if self.proves(ob) else None

    @property
    def session(self) -> Z3Session:
        """The program's z3 context (for questions about an obligation, such as a diagnosis)."""
        return self._session

    def results(self) -> Dict[str, Result]:
        return dict(self._cache)

    # ---- translation with range checks -------------------------------------------------------

    def translate_pair(self, ctx: Ctx, e: A.Expr) -> Tuple[Tuple[SymValue, SymValue], List[Obligation]]:
        """The values of pure ``e`` in both runs.

        Range conditions met on the way are not the relational rules' business (the Safety
        judgement checks them in each run), so none are returned: the list is always empty
        and kept so that rules read uniformly."""
        checks: List[RangeCheck] = []
        with self.collecting(checks):
            left = self.translator.expr(e, 1, ctx.env)
            right = self.translator.expr(e, 2, ctx.env)
        return (left, right), []

    def term_pair(self, ctx: Ctx, e: A.Expr) -> Tuple[T.Term, T.Term]:
        """The terms of pure ``e`` in run 1 and run 2 (``NoRule`` if it is not first-order)."""
        (left, right), _ = self.translate_pair(ctx, e)
        return self.translator.as_term(left, e), self.translator.as_term(right, e)

    @contextmanager
    def collecting(self, checks: List[RangeCheck], calls: Optional[List[CallCheck]] = None,
                   stored: Optional[List[StoredComputation]] = None,
                   decisions: Optional[List[Decision]] = None):
        """Send the range conditions met by the translator to ``checks`` (the calls it
        evaluates to ``calls``, the computations it makes to ``stored``, the decisions the run
        makes to ``decisions``) for the duration."""
        start, first_call, first_stored = len(self._range_checks), len(self._calls), len(self._stored)
        first_decision = len(self._decisions)
        try:
            yield
        finally:
            if decisions is not None:
                decisions.extend(self._decisions[first_decision:])
            del self._decisions[first_decision:]
            checks.extend(_dedupe(self._range_checks[start:]))
            del self._range_checks[start:]
            if calls is not None:
                calls.extend(self._calls[first_call:])
            del self._calls[first_call:]
            if stored is not None:
                stored.extend(self._stored[first_stored:])
            del self._stored[first_stored:]

    def _on_call(self, call: CallCheck) -> None:
        """The translator evaluated a call of a function with a val: the claim depends on that
        function's claim (verified, hence terminating), used or not. (A local recursive
        function has no val: the Safety walk shows it total.)"""
        if not call.local and call.parameter is None:
            self.called.add(call.function)
        self._calls.append(call)

    def range_obligation(self, ctx: Ctx, check: RangeCheck) -> Obligation:
        goal = check.condition if check.guard == T.boolean(True) else T.implies(check.guard,
                                                                               check.condition)
        where = f" (run {check.run})" if check.run else ""
        return self.oblige(ctx, ObligationKind.RANGE, goal, check.description + where,
                           check.span, "Range")

    def assertion(self, env: Env, a: A.Expr, refined: Optional[str] = None) -> T.Term:
        """The Bool term of an assertion of a relational type."""
        start, first_decision = len(self._range_checks), len(self._decisions)
        try:
            return self.translator.assertion(a, env, refined)
        finally:
            del self._range_checks[start:]  # claims are not code: nothing of them runs
            del self._decisions[first_decision:]

    def index_term(self, env: Env, e: A.Expr) -> T.Term:
        """The Real term of a monad index (``eps`` of ``DP(eps)``, or a delta)."""
        start, first_decision = len(self._range_checks), len(self._decisions)
        try:
            value = self.translator.expr(e, 0, env)
        finally:
            del self._range_checks[start:]
            del self._decisions[first_decision:]
        term = self.translator.as_term(value, e)
        if term.sort == T.INT:
            term = T.to_real(term)
        if term.sort != T.REAL:
            raise NoRule("a privacy parameter must be a number", e.span)
        return term

    # ---- inference (observe-folds) -------------------------------------------------------------

    def _infer(self, e: A.Expr, run: int, env: Env) -> DistV:
        """``infer e`` in run ``run``: the first infer rule of the registry that applies (the
        closed forms, then the paper's Infer rule: ``verifier.rules.infer_rule``); what a rule
        that does not apply recorded on the way is dropped."""
        reasons = []
        for rule in registry.infer_rules():
            marks = (dict(self.folds), len(self._range_checks), len(self._calls),
                     len(self._stored), len(self._decisions))
            try:
                value = rule(self, e, run, env)
                if reasons and isinstance(value, Scalar):
                    self.translator.without_closed_form[value.term] = reasons[0].message
                return value
            except NoRule as exc:
                self.folds.clear()
                self.folds.update(marks[0])
                del self._range_checks[marks[1]:]
                del self._calls[marks[2]:]
                del self._stored[marks[3]:]
                del self._decisions[marks[4]:]
                reasons.append(exc)
        raise NoRule("; ".join(r.message for r in reasons), reasons[0].span)

    # ---- checking ----------------------------------------------------------------------------

    def check_monadic(self, ctx: Ctx, e: A.Expr) -> Derivation:
        """``ctx ⊢ e :: ctx.claim``: every path ends in obligations on the total cost."""
        equal_inputs = registry.judgement(registry.EQUAL_INPUTS, e.span)
        shortcut = None if self.coupled(ctx, e) else equal_inputs(self, ctx, e)
        if shortcut is not None:
            return self.close_path(ctx, shortcut.node, shortcut.cost, e, shortcut.output)
        return registry.monadic(e)(self, ctx, e)

    def coupled(self, ctx: Ctx, e: A.Expr) -> bool:
        """Whether ``e`` is a ``lapMech`` call whose coupling is chosen (a written shift, or
        the coupling search): then its own rule applies even to equal inputs (a threshold
        equal in both runs may need its noise shifted), not EqualInputs."""
        if not isinstance(e, A.App) or (self.search is None and e.annotation is None):
            return False
        head = e
        while isinstance(head, A.App):
            head = head.fn
        return isinstance(head, A.Var) and head.name == "lapMech" \
            and ctx.env.lookup(head.name) is None

    def close_synth(self, ctx: Ctx, result: Synth, e: A.Expr) -> Derivation:
        """``close_path`` for a computation whose cost and facts come from synthesis."""
        if result.facts:
            ctx = ctx.assume("h_candidate", T.and_(*result.facts))
        return self.close_path(ctx, result.node, result.cost, e, result.output)

    def synth_monadic(self, ctx: Ctx, e: A.Expr) -> Synth:
        """The cost and output of a monadic computation in a bound (``mlet``) position."""
        equal_inputs = registry.judgement(registry.EQUAL_INPUTS, e.span)
        result = (None if self.coupled(ctx, e) else equal_inputs(self, ctx, e)) \
            or registry.synthesis(e)(self, ctx, e)
        result.node.judgement["cost"] = result.cost.as_judgement()
        result.node.judgement["output"] = output_judgement(result.output)
        return result

    def close_path(self, ctx: Ctx, premise: Derivation, cost: Cost, e: A.Expr,
                   output: Tuple[SymValue, SymValue]) -> Derivation:
        """The end of a monadic path: the costs spent, plus ``cost``, fit the claim, and the
        output of the path's last computation is equal in both runs (the claim's ``=``).

        ``premise`` (the path's last computation) records ``cost`` and ``output``; the Budget
        node records every cost of the path and the claimed index, from which its obligations
        are built, and proves the output equal."""
        claim = ctx.claim
        premise.judgement["cost"] = cost.as_judgement()
        premise.judgement["output"] = output_judgement(output)
        costs = ctx.costs + (cost,)
        obligations = []
        spent = " + ".join(c.what for c in costs if c.family != "ZERO") or "nothing"
        subsumption = self.subsumption(ctx, costs, e)
        returned = isinstance(e, A.Return)
        what = (f"the returned value {short(e.value)}" if returned
                else f"the output of {short(e, 50)}")
        if claim.relation:
            goal = self.relation_goal(claim, output, e)
            obligations.append(self.oblige(
                ctx, ObligationKind.ENTAILMENT, goal,
                f"{what} satisfies the claim's relation in the two runs", e.span,
                "UnitM" if returned else "Budget"))
        else:
            goals = equality_goals(*output)
            if goals is None:
                raise NoRule(f"the output of {short(e, 50)} is not known to be equal in both "
                             "runs (the claim's =)", e.span)
            if goals:
                obligations.append(self.oblige(
                    ctx, ObligationKind.ENTAILMENT, T.and_(*goals),
                    f"{what} is equal in both runs (the claim's =)", e.span,
                    "UnitM" if returned else "Budget"))
        return self.node("Budget", ctx, e.span, f"{spent} fits {claim.text}",
                         [premise, subsumption], obligations,
                         costs=[c.as_judgement() for c in costs], index=claim.as_judgement())

    def subsumption(self, ctx: Ctx, costs: Tuple[Cost, ...], e: A.Expr) -> Derivation:
        """S-M (the paper's monadic subsumption, §5): the path's computation, of type
        ``M[f, sum of its costs] {x | R}``, has the claimed type ``M[f', delta'] {x | R}``
        when its index is below the claim's (an SD cost d is (0, d) in DP): the node, with
        the obligations that the costs fit."""
        claim = ctx.claim
        if claim.steps is not None:
            return self.steps_subsumption(ctx, costs, e)
        if self.advanced:
            adv = self.advanced_subsumption(ctx, costs, e)
            if adv is not None:
                return adv
        families = {c.family for c in costs} - {"ZERO"}
        if claim.family == "DP":
            bad = families - {"DP", "SD"}
            if bad:
                raise NoRule(f"a {sorted(bad)[0]} bound cannot be used for a DP claim", e.span)
            eps_total = total([c.eps for c in costs if c.family == "DP"])
        else:
            bad = families - {claim.family}
            if bad:
                raise NoRule(f"a {sorted(bad)[0]} cost cannot be used for a {claim.family} claim",
                             e.span)
            eps_total = None
        delta_total = total([c.delta for c in costs])
        spent = " + ".join(c.what for c in costs if c.family != "ZERO") or "nothing"
        index = []
        if eps_total is not None:
            index.append(self.oblige(
                ctx, ObligationKind.ENTAILMENT, T.le(eps_total, claim.eps),
                f"the privacy cost ({spent}) is at most the claimed eps {claim.text}",
                e.span, "Budget"))
        index.append(self.oblige(
            ctx, ObligationKind.ENTAILMENT, T.le(delta_total, claim.delta),
            f"the total delta ({spent}) is at most the claimed delta", e.span, "Budget"))
        return self.node("S-M", ctx, e.span, f"M[{spent}] is below M[{claim.text}]",
                         obligations=index)

    def steps_subsumption(self, ctx: Ctx, costs: Tuple[Cost, ...], e: A.Expr) -> Derivation:
        """S-M-Steps, the end of a path of a release loop (``composition.advanced`` needs it
        of each step): the path is ``count`` steps — its Laplace releases coupled equal, one
        step each, and the batches of the loop's recursive calls — each costing at most
        ``bound`` in both directions, with no delta, their parameters fixed in advance (no
        cost and no hypothesis of the path mentions an output of the path)."""
        bound, count = ctx.claim.steps
        steps = [c for c in costs if c.family != "ZERO"]
        if not all(c.two_sided and c.family == "DP" and c.delta == T.real(0) for c in steps):
            raise NoRule("a release loop composes Laplace releases coupled equal only (each "
                         "step's cost must bound its privacy loss in both directions)", e.span)
        history = set(ctx.outputs)
        if any(history & set(T.free_vars(c.eps, c.delta)) for c in steps) or \
                any(history & set(T.free_vars(h)) for _, h in ctx.hyps):
            raise NoRule("the steps of a release loop must be fixed in advance: a cost or a "
                         "branch of the path depends on an earlier output", e.span)
        made = [T.to_real(c.count) if c.count is not None else T.real(1) for c in steps]
        spent = " + ".join(c.what for c in steps) or "nothing"
        obligations = [
            self.oblige(ctx, ObligationKind.ENTAILMENT,
                        T.eq(T.add(*made) if len(made) > 1 else
                             (made[0] if made else T.real(0)), T.to_real(count)),
                        f"the path makes as many steps as the loop's list is long ({spent})",
                        e.span, "S-M-Steps"),
            self.oblige(ctx, ObligationKind.ENTAILMENT,
                        T.and_(*[T.le(c.step if c.count is not None else c.eps, bound)
                                 for c in steps]),
                        "each step costs at most the loop's bound", e.span,
                        "S-M-Steps"),
        ]
        return self.node("S-M-Steps", ctx, e.span, f"{spent}: steps of a release loop",
                         obligations=obligations, lemma="composition.advanced")

    def advanced_subsumption(self, ctx: Ctx, costs: Tuple[Cost, ...], e: A.Expr
                             ) -> Optional[Derivation]:
        """S-M-Adv, advanced composition (``composition.advanced``: Dwork, Rothblum and
        Vadhan 2010, Thm III.3; Dwork and Roth 2014, Thm 3.20): the path's ``k`` steps, each
        (eps_j, 0)-DP in both directions, are (sqrt(2k ln(1/delta)) e + k e (exp e - 1),
        delta)-DP for ``e = max_j eps_j`` and every ``0 < delta < 1``. Only when every step is
        a Laplace release coupled equal (``Cost.two_sided``: its cost bounds the loss both
        ways) and the steps' parameters are fixed in advance: no cost and no hypothesis of the
        path mentions an output of the path (no branch on one, no cost that depends on one);
        None otherwise (the path's S-M is then the sum)."""
        claim = ctx.claim
        steps = [c for c in costs if c.family != "ZERO"]
        if claim.family != "DP" or claim.relation or claim.pointwise is not None or not steps:
            return None
        if not all(c.two_sided and c.family == "DP" for c in steps):
            return None
        history = set(ctx.outputs)
        if any(history & set(T.free_vars(c.eps, c.delta)) for c in steps) or \
                any(history & set(T.free_vars(h)) for _, h in ctx.hyps):
            return None
        k = len(steps)
        top = _largest([c.step if c.count is not None else c.eps for c in steps])
        if all(c.count is None for c in steps):
            twice, many = T.real(2 * k), T.real(k)
        else:  # batches of a release loop: k steps in all, a term
            ones = sum(1 for c in steps if c.count is None)
            counts = ([T.integer(ones)] if ones else []) + \
                [c.count for c in steps if c.count is not None]
            counts = [T.to_real(c) for c in counts]
            many = T.add(*counts) if len(counts) > 1 else counts[0]
            twice, k = T.mul(T.real(2), many), T.pretty(many)
        bound = T.add(T.mul(T.sqrt(T.mul(twice, T.log(T.div(T.real(1), claim.delta)))), top),
                      T.mul(many, T.mul(top, T.sub(T.exp(top), T.real(1)))))
        spent = " + ".join(c.what for c in steps)
        index = [
            self.oblige(ctx, ObligationKind.ENTAILMENT,
                        T.and_(T.lt(T.real(0), claim.delta), T.lt(claim.delta, T.real(1))),
                        "the claimed delta is in (0, 1) (advanced composition's delta')",
                        e.span, "S-M-Adv"),
            self.oblige(ctx, ObligationKind.ENTAILMENT, T.le(bound, claim.eps),
                        f"the privacy cost of {k} steps ({spent}) by advanced composition, "
                        f"sqrt(2k ln(1/delta)) e + k e (exp e - 1) with e the largest, is at "
                        f"most the claimed eps {claim.text}", e.span, "S-M-Adv"),
        ]
        return self.node("S-M-Adv", ctx, e.span,
                         f"{k} steps of M[{spent}] are below M[{claim.text}] by advanced "
                         "composition", obligations=index, lemma="composition.advanced",
                         steps=k)

    def relation_goal(self, claim: "Claim", output: Tuple[SymValue, SymValue],
                      e: A.Expr) -> T.Term:
        """The claim's relation ``A`` of its refinement ``{x :: T | A}`` at the two runs'
        outputs (``x<1>``, ``x<2>`` read as ``output``)."""
        env = claim.env.bind(claim.var, *output)
        parts = []
        for a in claim.relation:
            if isinstance(a, A.SameRuns):
                goal = equal_term(*output)
                if goal is None:
                    raise NoRule(f"the output of {short(e, 50)} cannot be compared in the "
                                 "logic", e.span)
                parts.append(goal)
            else:
                parts.append(self.assertion(env, a, refined=claim.var))
        return T.and_(*parts)

    # ---- claims ---------------------------------------------------------------------------------

    def root_premises(self) -> List[Derivation]:
        """The premises of the claim's root after its body: the inductions of the
        observe-folds and the observes it uses, an S-Fun node for each function passed in
        pure code whose call facts the obligations assume (``higher_order.related_nodes``),
        and a LetRec-Joint node for each function whose joint facts they assume."""
        return list(self.folds.values()) + registry.judgement(registry.S_FUN_ROOTS)(self) + \
            list(self.joint.values())

    def prove_claim(self, val: A.ValDecl, pointwise: bool = False) -> Derivation:
        """The derivation of ``val``, proving its definition has the claimed relational type
        (``pointwise``: by the Pointwise rule, ``verifier.rules.couplings``)."""
        decl = self._lets.get(val.name)
        if decl is None:
            raise NoRule(f"val {val.name} has no definition", val.span)
        return registry.judgement(registry.DEFINITION, val.span)(self, val, decl, pointwise)


# ---- helpers --------------------------------------------------------------------------------

def _dedupe(checks: List[RangeCheck]) -> List[RangeCheck]:
    seen, out = set(), []
    for c in checks:
        key = (c.condition, c.guard, c.description, c.run)
        if key not in seen:
            seen.add(key)
            out.append(c)
    return out


def _narrowings_of(typed) -> Dict[int, list]:
    """The type checker's narrowings by node id (empty without a typed program)."""
    found = getattr(typed, "narrowing_table", None)
    return dict(found) if found else {}


def _source_span(span: Optional[A.Span]) -> Optional[SourceSpan]:
    if span is None or span.line == 0:
        return None
    return SourceSpan(span.file, span.line, span.col, span.end_line, span.end_col)


def _largest(terms):
    """``max`` of the terms as a balanced tree (a chain of k maxima would become 2^k terms
    where ``max`` is lowered to ``ite``)."""
    if len(terms) == 1:
        return terms[0]
    half = len(terms) // 2
    return T.max_(_largest(terms[:half]), _largest(terms[half:]))
