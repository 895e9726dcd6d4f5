"""The kernel's judgements: contexts, costs, and the obligations its rules demand.

A rule of the kernel (``checker.relational``, ``checker.safety``, ``checker.folds``) reads one
sub-expression of the source in a context ``Ctx`` — the values of the names in scope in run 1
and run 2 (symbolic values of the shared translator, ``verifier.translation``), the named
hypotheses that hold there, the costs spent on the path, the claim — and states what must
hold with ``Proof.oblige``: an ``Obligation`` whose hypotheses are the context's (those
connected to the goal, ``obligations.relevance``), plus the call facts of the vals whose calls
they mention, plus the ground axioms of ``obligations.schemas``. Nothing of an obligation
comes from the certificate: it only names which rule was applied where.
"""
from __future__ import annotations

import re
from contextlib import contextmanager
from typing import Callable, Dict, FrozenSet, Iterable, List, Optional, Sequence, Set, Tuple

from obligations import terms as T
from obligations import vocabulary as V
from obligations.model import Obligation, ObligationKind, Provenance, SourceSpan
from obligations.records import field, record, replace
from obligations.relevance import relevant
from obligations.schemas import SCHEMAS, instantiate
from verifier.language import ast as A
from verifier.language.resolve import source_name
from verifier.translation import logic as L
from verifier.translation.calls import call_value, first_order, flat_terms, split_arguments
from verifier.translation.inferred import val_model_name
from verifier.translation.ranges import value_facts
from verifier.translation.symbolic import Env, Scalar, SymValue, top_level_value
from verifier.translation.translate import (CallCheck, Decision, Narrowing, NoRule, RangeCheck,
                                            StoredComputation, Translator)
from verifier.translation.typing_bridge import sort_of as bridge_sort_of, to_syntax

#: the divergences for which 0 means equal distributions
EQUAL_FAMILIES = ("SD", "HD", "KL")
#: at most this many calls of one function per obligation get call facts
MAX_CALLS = 6
CALL_FACT = "h__call_"


class Reject(Exception):
    """The kernel cannot apply the rule the certificate names here, or the source has no
    rule: the certificate is invalid. ``span``: where in the source."""

    def __init__(self, message: str, span: Optional[A.Span] = None):
        super().__init__(message)
        self.message, self.span = message, span


@record
class Cost:
    """What a computation spends: ``(eps, delta)`` in divergence ``family`` (``DP``, ``SD``,
    ``HD``, ``KL``), or ``ZERO`` for equal distributions, which cost nothing in any family."""

    family: str
    eps: T.Term
    delta: T.Term
    #: one Laplace release coupled equal (the kernel's LapMech): its cost bounds the step's
    #: privacy loss in both directions, as advanced composition (S-M-Adv) needs
    two_sided: bool = False
    #: a call of a release loop (App-Steps): ``count`` steps each at most ``step``; ``eps`` is
    #: their sum, what every rule but S-M-Adv and S-M-Steps reads
    count: Optional[T.Term] = None
    step: Optional[T.Term] = None


ZERO = Cost("ZERO", T.real(0), T.real(0))


def add_costs(c1: Cost, c2: Cost, span) -> Cost:
    """Sequential composition (the paper's Lemma 3.4): epsilons and deltas add, one family."""
    if c1.family == "ZERO":
        return c2
    if c2.family == "ZERO":
        return c1
    if c1.family != c2.family and {c1.family, c2.family} != {"SD", "DP"}:
        raise Reject(f"a {c1.family} cost does not compose with a {c2.family} cost", span)
    # an SD cost d is (0, d) in the eps-distance (eps 0): SD and DP compose to DP
    family = c1.family if c1.family == c2.family else "DP"
    return Cost(family, T.add(c1.eps, c2.eps), T.add(c1.delta, c2.delta))


def case_cost(guard: T.Term, c1: Cost, c2: Cost, span) -> Cost:
    """The cost of ``c1`` where ``guard`` holds and of ``c2`` elsewhere."""
    families = {c1.family, c2.family} - {"ZERO"}
    if len(families) > 1:
        raise Reject(f"the cases have costs in different divergences {sorted(families)}", span)
    if not families:
        return ZERO
    return Cost(families.pop(), *(x if x == y else T.ite(guard, x, y)
                                  for x, y in ((c1.eps, c2.eps), (c1.delta, c2.delta))))


@record
class Synth:
    """A computation's cost, its output in run 1 and run 2, and the facts its fresh
    symbols range over (an ``expMech`` candidate)."""

    cost: Cost
    output: Tuple[SymValue, SymValue]
    facts: Tuple[T.Term, ...] = ()


def translated(fn, span):
    """``fn()``, with the translator's refusal made the kernel's."""
    try:
        return fn()
    except NoRule as exc:
        raise Reject(exc.message, exc.span or span) from None


@record
class Claim:
    """The claimed index ``M[F, delta]``: family, eps (DP only), delta; the relation the
    outputs are lifted to — ``relation`` the assertions of ``{var :: T | A}`` read in ``env``,
    empty for ``=`` — and, below a Pointwise node, the output's discrete part (``pointwise``:
    the positions of its countable components, ``(None,)`` for the whole output)."""

    family: str
    eps: Optional[T.Term]
    delta: T.Term
    var: Optional[str] = None
    relation: Tuple[A.Expr, ...] = ()
    env: Optional[Env] = field(default=None, compare=False)
    pointwise: Optional[Tuple[Optional[int], ...]] = None
    #: the claim of a release loop: every path is ``count`` steps each at most ``bound``
    #: (S-M-Steps): (bound, count)
    steps: Optional[Tuple[T.Term, T.Term]] = None


@record
class Ctx:
    """A relational context (see the module docstring). ``function``: the recursive
    definition being proved; ``induction``: its measure (list parameter position and its
    terms in run 1 and run 2); ``binder``: the name an ``mlet`` is binding (names the fresh
    output)."""

    env: Env
    hyps: Tuple[Tuple[str, T.Term], ...] = ()
    costs: Tuple[Cost, ...] = ()
    claim: Optional[Claim] = None
    function: Optional[str] = None
    induction: Optional[Tuple[int, T.Term, T.Term]] = None
    binder: Optional[str] = field(default=None, compare=False)
    #: in a premise of Case-Output: the branch it is about and the condition of its if
    out_case: Optional[Tuple[str, A.Expr]] = field(default=None, compare=False)
    #: the variables of the outputs bound on this path (its history)
    outputs: Tuple[T.Var, ...] = field(default=(), compare=False)
    #: how many of ``hyps`` are the claim's parameters' (which hold wherever in its
    #: derivation): what the requirement of a higher-order call fact may assume
    base: int = field(default=0, compare=False)

    def produced(self, values) -> "Ctx":
        """This context after a computation output ``values`` (its two runs' values)."""
        from verifier.translation.symbolic import value_terms
        found = [v for value in values for t in value_terms(value) for v in T.free_vars(t)]
        return replace(self, outputs=self.outputs + tuple(v for v in found if v not in self.outputs))

    def assume(self, name: str, term: T.Term) -> "Ctx":
        """Add hypothesis ``term`` named ``name``; each conjunct is a hypothesis of its own."""
        hyps, taken = list(self.hyps), {n for n, _ in self.hyps}
        name = "h_" + re.sub(r"[^A-Za-z0-9_]+", "_", name.removeprefix("h_")).strip("_")
        for i, part in enumerate(conjuncts(term)):
            if part == T.TRUE:
                continue
            base = name if i == 0 else f"{name}_{i}"
            candidate, k = base, 2
            while candidate in taken:
                candidate, k = f"{base}_{k}", k + 1
            taken.add(candidate)
            hyps.append((candidate, part))
        return replace(self, hyps=tuple(hyps))

    def bind(self, name: str, left: SymValue, right: SymValue) -> "Ctx":
        return replace(self, env=self.env.bind(name, left, right))

    def with_env(self, env: Env) -> "Ctx":
        return replace(self, env=env)

    def spend(self, cost: Cost) -> "Ctx":
        return replace(self, costs=self.costs + (cost,))

    def binding(self, p: A.Pattern) -> "Ctx":
        return replace(self, binder=getattr(p, "name", None))


@record
class Node:
    """A node of the certificate's derivation, as the kernel consumes it: the rule named,
    where (``at``: line, col, end line, end col, or None), the premises, its id, and the shift a
    LapMech-Shift node chose (``coupling``)."""

    id: str
    rule: str
    at: Optional[Tuple[int, int, int, int]]
    premises: Tuple["Node", ...]
    #: the certificate's shift of a LapMech-Shift node: (offset as text, scale, and under
    #: Pointwise-Value the integer the output value must equal for the offset to apply, or
    #: None)
    coupling: Optional[Tuple[str, int, Optional[str]]] = None


def expect(node: Node, rules: Sequence[str], e: Optional[A.Node], what: str,
           premises: Optional[int] = None) -> Tuple[Node, ...]:
    """``node`` applies one of ``rules`` to ``e`` (with ``premises`` premises, if given)."""
    if node.rule not in rules:
        raise Reject(f"node {node.id}: {node.rule} is not a rule for {what} "
                     f"({' or '.join(rules)})", getattr(e, "span", None))
    span = getattr(e, "span", None)
    if node.at is not None and span is not None and span.line \
            and node.at != (span.line, span.col, span.end_line, span.end_col):
        raise Reject(f"node {node.id}: {node.rule} is recorded at {_show_at(node.at)}, but "
                     f"{what} spans {_show_at((span.line, span.col, span.end_line, span.end_col))}"
                     " in the source (the derivation is of another text)", span)
    if premises is not None and len(node.premises) != premises:
        raise Reject(f"node {node.id}: {node.rule} takes {premises} premise(s), not "
                     f"{len(node.premises)}", span)
    return node.premises


def _show_at(at) -> str:
    return f"{at[0]}:{at[1]}-{at[2]}:{at[3]}"


def make_claim(p: Proof, env: Env, rt: A.RMonad, relation: bool = False) -> Claim:
    """The claim ``M[F, delta] {x :: T | A}``: ``A`` is ``=``, or (``relation``, a DP index)
    any assertion relating the two runs' outputs."""
    var, _, assertions = refinement_parts(rt.body)
    equality = var is not None and len(assertions) == 1 and isinstance(assertions[0], A.SameRuns)
    if not equality and not (relation and var is not None and rt.div.kind == "DP"):
        raise Reject("the kernel proves monadic claims of the form M[F, delta] {x :: T | =} "
                     "(and M[DP(eps), delta] {x :: T | A})", rt.body.span)
    eps = translated(lambda: p.index_term(env, rt.div.eps), rt.span) \
        if rt.div.kind == "DP" else None
    delta = translated(lambda: p.index_term(env, rt.delta), rt.span) \
        if rt.delta is not None else T.real(0)
    return Claim(rt.div.kind, eps, delta, var, () if equality else tuple(assertions), env)


def monad_is_equality(p: Proof, env: Env, rt: A.RMonad) -> bool:
    """``M[F, delta] {x :: T | =}`` says the two distributions are equal: delta 0 and a
    divergence for which 0 means equality (SD, HD, KL, or DP(0))."""
    if rt.delta is not None and translated(lambda: p.index_term(env, rt.delta), rt.span) \
            != T.real(0):
        return False
    var, _, assertions = refinement_parts(rt.body)
    if var is None or not says_equal(var, assertions):
        return False
    if rt.div.kind in EQUAL_FAMILIES:
        return True
    return rt.div.kind == "DP" and \
        translated(lambda: p.index_term(env, rt.div.eps), rt.span) == T.real(0)


def instantiated_cost(p: Proof, env: Env, rt: A.RMonad, related: bool = False) -> Cost:
    """What running a computation of type ``rt`` costs: nothing when it says the
    distributions are equal, else its index (``related``: a val's result under a DP index
    may lift any relation, which App-Val then assumes of the outputs)."""
    if monad_is_equality(p, env, rt):
        return ZERO
    var, _, assertions = refinement_parts(rt.body)
    if var is None or not (any(isinstance(a, A.SameRuns) for a in assertions)
                           or (related and rt.div.kind == "DP")):
        raise Reject("the kernel knows computations of the form M[F, delta] {x :: T | =}",
                     rt.span)
    delta = translated(lambda: p.index_term(env, rt.delta), rt.span) \
        if rt.delta is not None else T.real(0)
    if rt.div.kind == "DP":
        return Cost("DP", translated(lambda: p.index_term(env, rt.div.eps), rt.span), delta)
    return Cost(rt.div.kind, T.real(0), delta)


def conjuncts(t: T.Term) -> Tuple[T.Term, ...]:
    if isinstance(t, T.Op) and t.op == T.OpKind.AND:
        return tuple(c for a in t.args for c in conjuncts(a))
    return (t,)


def refinement_parts(rt: A.RType) -> Tuple[Optional[str], A.RType, List[A.Expr]]:
    """``{x :: {x :: T | B} | A}`` as (x, T, [A, B])."""
    var, assertions = None, []
    while isinstance(rt, A.RRefine):
        if var not in (None, rt.var):
            raise Reject("nested refinements must use one variable name", rt.span)
        var = rt.var
        assertions.append(rt.assertion)
        rt = rt.base
    return var, rt, assertions


def simple_of(rt: A.RType) -> A.SimpleType:
    while isinstance(rt, A.RRefine):
        rt = rt.base
    if isinstance(rt, A.RSimple):
        return rt.type
    if isinstance(rt, A.RMonad):
        return A.TMonad(simple_of(rt.body))
    if isinstance(rt, A.RArrow):
        return A.TArrow(simple_of(rt.dom), simple_of(rt.cod))
    raise Reject("unsupported relational type", rt.span)


def arrows(rt: A.RType) -> Tuple[List[A.RType], A.RType]:
    """The parameter types and the result type of a relational arrow type."""
    doms = []
    while isinstance(rt, A.RArrow):
        doms.append(rt.dom)
        rt = rt.cod
    return doms, rt


def says_equal(var: Optional[str], assertions: Sequence[A.Expr]) -> bool:
    """Some top-level conjunct says the refined value is equal in both runs."""
    todo = list(assertions)
    while todo:
        a = todo.pop()
        if isinstance(a, A.Conj):
            todo += [a.left, a.right]
        elif isinstance(a, A.SameRuns):
            return True
        elif isinstance(a, A.BinOp) and a.op == "=" and \
                {(x.name, x.run) for x in (a.left, a.right) if isinstance(x, A.RunVar)} \
                == {(var, 1), (var, 2)}:
            return True
    return False


def span_of(span: Optional[A.Span]) -> Optional[SourceSpan]:
    if span is None or span.line == 0:
        return None
    return SourceSpan(span.file, span.line, span.col, span.end_line, span.end_col)



def induction_premise(induction, xs, ys) -> Optional[T.Term]:
    """The induction hypothesis' premise of a call fact: the arguments at the induction
    position (``induction``: the position and the two runs' parameters) are smaller than the
    parameters; None when they are not comparable scalars."""
    position, x1, x2 = induction
    a, b = xs[position], ys[position]
    if not (isinstance(a, Scalar) and isinstance(b, Scalar)
            and a.term.sort == b.term.sort == x1.sort):
        return None
    return V.shorter((a.term, b.term), (x1, x2))


class Proof:
    """The derivation of one claim, as the kernel builds it from the source: fresh names,
    the translator (with the kernel's own sinks; ``infer(proof, e, run, env)`` gives the
    closed form of ``infer e``: ``checker.folds``), the obligations demanded, the lemmas the
    rules rest on and the functions whose vals the proof assumes."""

    def __init__(self, program: A.Program, typed, claim: str, infer: Callable):
        self.program, self.typed, self.claim = program, typed, claim
        self.vals = {v.name: v for v in program.vals()}
        self.lets = {d.name: d for d in program.lets()}
        self.obligations: List[Obligation] = []
        self.lemmas: Set[str] = set()
        self.called: Set[str] = set()      # functions whose val an obligation assumes
        #: under Pointwise-Value: the output value v, and the helpers whose invariant (their
        #: val in this proof) is proved in this proof
        self.point: Optional[T.Term] = None
        self.proved_here: Set[str] = set()
        #: release loops (App-Steps): name -> (position of the list, epsilon of a step), and
        #: those whose derivation (S-M-Steps) was checked
        self.steps: Dict[str, Tuple[int, A.Expr]] = {}
        self.steps_derived: Set[str] = set()
        #: where the certificate's Safety premise says an expMech candidate list is non-empty
        #: by its shape (NonEmpty-Induction nodes, by ``at``), and those the walk met
        self.nonempty_claimed: Dict[Tuple[int, int, int, int], str] = {}
        self.nonempty_used: Set[Tuple[int, int, int, int]] = set()
        self.witnesses: Set[T.Var] = set()
        #: the inductions of observe-folds and the observes the proof used: key -> (rule,
        #: where), the root's premises after the body
        self.folds: Dict[str, Tuple[str, Tuple[int, int, int, int]]] = {}
        self._names: Dict[str, int] = {}
        self._twins: Dict[int, Tuple[A.Expr, A.Expr]] = {}
        self._checks: List[RangeCheck] = []
        self._calls: List[CallCheck] = []
        self._stored: List[StoredComputation] = []
        self._decisions: List[Decision] = []
        self._narrowings = dict(getattr(typed, "narrowing_table", None) or {})
        self.infer_function = infer
        self.translator = Translator(
            self._checks.append, lambda e, run, env: infer(self, e, run, env),
            self.fresh, self.signature, self.list_key, self._on_call,
            self.returns_computation, self._stored.append, self.narrowings, self.sort_of,
            self.result_type, self._decisions.append)
        #: what the vals called need and give for the Decidable condition (checker.decidable)
        self.decidable_terms: Dict[str, Tuple[FrozenSet[int], bool]] = {}
        self._pure_vals = frozenset(n for n, v in self.vals.items() if pure_signature(v))
        self.top_env = self._top_env()
        #: what the call facts of higher-order calls in pure code rest on
        #: (``checker.higher_order.Related``), by key, in order
        self.related: Dict[tuple, object] = {}
        #: the functions LetRec-Joint premises name, by name: their additive shape
        #: (``checker.joint.shape``), and their joint facts by key
        self.joint: Dict[str, tuple] = {}
        self.joint_cache: Dict[tuple, Optional[T.Term]] = {}

    # ---- names ------------------------------------------------------------------------

    def fresh_name(self, name: str) -> str:
        base = source_name(name).rstrip("'") or "v"
        n = self._names.get(base, 0)
        self._names[base] = n + 1
        return base + "'" * n

    @contextmanager
    def name_scope(self):
        """Names made inside are free again afterwards (for the independent Safety walk)."""
        saved, witnesses = dict(self._names), set(self.witnesses)
        try:
            yield
        finally:
            self._names, self.witnesses = saved, witnesses

    def fresh(self, name: str, sort: T.Sort, run: Optional[int] = None) -> T.Var:
        return T.var(self.fresh_name(name), sort, run)

    def fresh_pair(self, name: str, sort: T.Sort, shared: bool) -> Tuple[T.Var, T.Var]:
        n = self.fresh_name(name)
        if shared:
            v = T.var(n, sort)
            return v, v
        return T.var(n, sort, 1), T.var(n, sort, 2)

    # ---- the program ------------------------------------------------------------------

    def _top_env(self) -> Env:
        env = Env()
        self._env_at: Dict[int, Env] = {}
        for decl in self.program.lets():
            value = top_level_value(decl, decl.name in self.vals, env, self.type_of)
            self._env_at[id(decl)] = env.bind(decl.name, value, value) if decl.recursive else env
            env = env.bind(decl.name, value, value)
        return env

    def env_at(self, decl: A.LetDecl) -> Env:
        """The names the body of ``decl`` sees: the definitions before it (and itself when
        recursive)."""
        return self._env_at[id(decl)]

    def val_of(self, name: str) -> Optional[A.ValDecl]:
        return self.vals.get(name)

    def signature(self, name: str) -> Tuple[int, Optional[T.Sort]]:
        """The arity and result sort of a function used through its val."""
        val = self.vals.get(name)
        if val is None:
            raise NoRule(f"the recursive function {source_name(name)} needs a val to be used "
                         "by verified code")
        doms, rt = arrows(val.rtype)
        return len(doms), L.sort_of_type(simple_of(rt))

    def result_type(self, name: str) -> Optional[A.SimpleType]:
        """What the val of ``name`` says it returns, fully applied (a simple type)."""
        if name not in self.vals:
            return None
        try:
            return simple_of(arrows(self.vals[name].rtype)[1])
        except Reject:
            return None

    def returns_computation(self, name: str) -> bool:
        _, rt = arrows(self.vals[name].rtype)
        while isinstance(rt, A.RRefine):
            rt = rt.base
        return isinstance(rt, A.RMonad)

    def pure_vals(self) -> frozenset:
        return self._pure_vals

    # ---- simple types -------------------------------------------------------------------

    def twin(self, new: A.Expr, original: A.Expr) -> A.Expr:
        """``new`` (built by a rule) has the simple type of the program's ``original``."""
        self._twins[id(new)] = (new, self._twins.get(id(original), (None, original))[1])
        return new

    def simple_type(self, e: A.Expr):
        try:
            return self.typed.type_of(self._twins.get(id(e), (None, e))[1])
        except (KeyError, LookupError, AttributeError):
            return None

    def type_of(self, e: A.Expr) -> Optional[A.SimpleType]:
        t = self.simple_type(e)
        return None if t is None else to_syntax(t)

    def sort_of(self, e: A.Expr) -> Optional[T.Sort]:
        t = self.simple_type(e)
        return None if t is None else bridge_sort_of(t)

    def expmech_range(self, app: A.App) -> Optional[A.SimpleType]:
        try:
            return to_syntax(self.typed.expmech_range(self._twins.get(id(app), (None, app))[1]))
        except KeyError:
            return None

    def narrowings(self, e: A.Node) -> Tuple[Narrowing, ...]:
        """Where the value of ``e`` flows into a narrower type than its own (an ``int`` where
        a ``[k]`` is expected: the type checker's narrowings); the translator and Safety
        demand the narrower type's ranges there."""
        twin = self._twins.get(id(e))
        found = self._narrowings.get(id(twin[1]) if twin else id(e))
        return tuple(Narrowing(kind, to_syntax(t), component)
                     for component, kind, t in found or ())

    def list_key(self, e: A.Expr) -> Optional[str]:
        t = self.type_of(e)
        return L.elem_key(t.elem) if isinstance(t, A.TList) else None

    # ---- translation --------------------------------------------------------------------

    @contextmanager
    def collecting(self, checks: Optional[List[RangeCheck]] = None,
                   calls: Optional[List[CallCheck]] = None,
                   stored: Optional[List[StoredComputation]] = None,
                   decisions: Optional[List[Decision]] = None):
        """Send the range conditions, calls, stored computations and decisions the translator
        meets to the given lists (or drop them) for the duration."""
        marks = (len(self._checks), len(self._calls), len(self._stored), len(self._decisions))
        try:
            yield
        finally:
            for sink, mark, out in ((self._checks, marks[0], checks),
                                    (self._calls, marks[1], calls),
                                    (self._stored, marks[2], stored),
                                    (self._decisions, marks[3], decisions)):
                if out is not None:
                    out.extend(_unique(sink[mark:]) if sink is self._checks else sink[mark:])
                del sink[mark:]

    def _on_call(self, call: CallCheck) -> None:
        # a local recursive function has no val (Safety shows it total), nor a parameter
        if not call.local and call.parameter is None:
            self.called.add(call.function)
        self._calls.append(call)

    def pair(self, ctx: Ctx, e: A.Expr) -> Tuple[SymValue, SymValue]:
        """The values of pure ``e`` in run 1 and run 2 (range conditions are Safety's)."""
        with self.collecting():
            return self.translator.expr(e, 1, ctx.env), self.translator.expr(e, 2, ctx.env)

    def term_pair(self, ctx: Ctx, e: A.Expr) -> Tuple[T.Term, T.Term]:
        left, right = self.pair(ctx, e)
        return self.translator.as_term(left, e), self.translator.as_term(right, e)

    def assertion(self, env: Env, a: A.Expr, refined: Optional[str] = None) -> T.Term:
        with self.collecting():
            return self.translator.assertion(a, env, refined)

    def index_term(self, env: Env, e: A.Expr) -> T.Term:
        with self.collecting():
            term = self.translator.as_term(self.translator.expr(e, 0, env), e)
        term = T.to_real(term) if term.sort == T.INT else term
        if term.sort != T.REAL:
            raise Reject("a privacy parameter must be a number", e.span)
        return term

    # ---- obligations ------------------------------------------------------------------

    def oblige(self, ctx: Ctx, kind: ObligationKind, goal: T.Term, description: str,
               span: Optional[A.Span], rule: str) -> Obligation:
        """Demand ``ctx ⊢ goal``: recorded, to be discharged by a solver."""
        hyps = relevant(ctx.hyps, goal, self.witnesses)
        facts = self.call_facts(ctx, [t for _, t in hyps] + [goal])
        hyps = tuple(hyps) + facts
        self.called |= self.functions_called(goal, *(t for _, t in hyps))
        instances = instantiate([t for _, t in hyps] + [goal])
        for i in instances:
            self.lemmas.update(SCHEMAS[i.schema].lemma_ids(*i.args))
        axioms = tuple((i.name, i.term) for i in instances)
        ob = Obligation(kind=kind, hypotheses=hyps, goal=goal, axioms=axioms,
                        provenance=Provenance(rule=rule, node="", description=description,
                                              span=span_of(span)))
        self.obligations.append(ob)
        return ob

    def functions_called(self, *terms: T.Term) -> Set[str]:
        return {name for f in T.functions(*terms)
                for name in (V.program_function_name(f.name),) if name in self.vals}

    def call_facts(self, ctx: Ctx, terms: Sequence[T.Term]) -> Tuple[Tuple[str, T.Term], ...]:
        """For every two calls ``f(a)``, ``f(b)`` in ``terms`` of a function whose val has
        simple types, what the val says of them: ``P(a, b) ==> Q(f(a), f(b))`` (in its own
        body, with the induction measure as a premise: the induction hypothesis)."""
        own = ctx.function
        names = {n for n in self._pure_vals if n != own or ctx.induction is not None}
        facts: List[T.Term] = []
        found = ground_calls(terms, names)
        for name, calls in found.items():
            calls = calls[:MAX_CALLS]
            for a in calls:
                for b in calls:
                    fact = self.call_fact(name, a, b, ctx.induction if name == own else None)
                    if fact is not None and fact != T.TRUE and fact not in facts:
                        facts.append(fact)
        for fact in self.infer_facts(own, terms):
            if fact not in facts:
                facts.append(fact)
        from checker.higher_order import higher_order_facts, parameter_facts
        for fact in parameter_facts(self, ctx, terms) + higher_order_facts(self, ctx, terms):
            if fact not in facts and fact != T.TRUE:
                facts.append(fact)
        joint: List[T.Term] = []
        if self.joint:  # LetRec-Joint premises: additive functions on adjacent lists
            from checker.joint import joint_facts
            joint = joint_facts(self, ctx, terms, found)
        return tuple((f"{CALL_FACT}{k}", fact) for k, fact in enumerate(facts, 1)) + \
            tuple((f"{CALL_FACT}joint_{k}", fact) for k, fact in enumerate(joint, 1))

    def infer_facts(self, own: Optional[str], terms: Sequence[T.Term]) -> List[T.Term]:
        """The Infer rule's bound (§5): for every two posteriors ``infer (f a)``, ``infer (f
        b)`` in ``terms`` of a call of a val ``... -> M[F, δ] {x :: T | =}`` (the symbol of
        ``verifier.translation.inferred.val_symbol_name``), ``P(a, b) ==> Delta[F] (…) <= δ(a)``
        (equal when the index says so); the claim depends on ``f``'s."""
        found: Dict[str, List[T.Term]] = {}
        for app in T.ground_applications(*terms):
            name = val_model_name(app.func.name)
            if name is not None and name != own and name in self.vals \
                    and app not in found.setdefault(name, []):
                found[name].append(app)
        facts: List[T.Term] = []
        for name, calls in found.items():
            for a in calls[:MAX_CALLS]:
                for b in calls[:MAX_CALLS]:
                    fact = self.infer_fact(name, a, b) if a != b else None
                    if fact is not None and fact not in facts:
                        facts.append(fact)
                        self.called.add(name)
        return facts

    def infer_fact(self, name: str, a: T.Term, b: T.Term) -> Optional[T.Term]:
        parts = self.infer_bound(name, a, b)
        if parts is None:
            return None
        pre, cost = parts
        if cost.family == "ZERO":
            post = T.eq(a, b)
        else:
            post = T.le(V.divergence(cost.family, a, b, cost.eps if cost.family == "DP" else None),
                        cost.delta)
        return T.implies(T.and_(*pre), post) if pre else post

    def infer_dp_eps(self, d1: T.Term, d2: T.Term) -> Optional[T.Term]:
        """The eps of the Infer rule's bound when ``d1``, ``d2`` are the posteriors of two
        calls of one val with a DP index."""
        names = {val_model_name(d.func.name) if isinstance(d, T.Apply) else None
                 for d in (d1, d2)}
        (name,) = names if len(names) == 1 else (None,)
        if name is None or name not in self.vals:
            return None
        parts = self.infer_bound(name, d1, d2)
        return parts[1].eps if parts is not None and parts[1].family == "DP" else None

    def domain_premises(self, env: Env, doms, types, xs, ys) -> Tuple[Env, List[T.Term]]:
        """``P(a, b)`` of a val's domains for the arguments ``xs``, ``ys`` of two calls (the
        ranges of their types and the refinements), and ``env`` with the parameters bound."""
        pre: List[T.Term] = []
        for dom, t, x, y in zip(doms, types, xs, ys):
            var, _, assertions = refinement_parts(dom)
            pre += _facts(t, x) + _facts(t, y)
            if var is not None:
                env = env.bind(var, x, y)
            pre += [self._refinement(env, e, var, x, y) for e in assertions]
        return env, pre

    def infer_bound(self, name: str, a: T.Term, b: T.Term):
        """The val's domain ``P(a, b)`` and the cost of its index, for two posteriors."""
        doms, rt = arrows(self.vals[name].rtype)
        env = self.top_env
        try:
            types = [simple_of(refinement_parts(d)[1]) for d in doms]
            xs, ys = split_arguments(types, a.args), split_arguments(types, b.args)
            if xs is None or ys is None or not isinstance(rt, A.RMonad):
                return None
            env, pre = self.domain_premises(env, doms, types, xs, ys)
            cost = instantiated_cost(self, env, rt)
        except (NoRule, Reject, T.SortError):
            return None
        return [c for c in pre if c != T.TRUE], cost

    def call_fact(self, name: str, a: Tuple[T.Term, ...], b: Tuple[T.Term, ...],
                  induction) -> Optional[T.Term]:
        """``P(a, b) ==> Q(f(a), f(b))`` for two calls of ``name`` given by the flat argument
        terms of their symbols (a tuple argument is its components; a tuple result one symbol
        per component: ``verifier.translation.calls``)."""
        doms, cod = pure_signature(self.vals[name])
        env = self.top_env
        try:
            types = [simple_of(refinement_parts(d)[1]) for d in doms]
            xs, ys = split_arguments(types, a), split_arguments(types, b)
            out = simple_of(refinement_parts(cod)[1])
            fa, fb = call_value(name, a, out), call_value(name, b, out)
            if None in (xs, ys, fa, fb):
                return None
            env, pre = self.domain_premises(env, doms, types, xs, ys)
            var, _, assertions = refinement_parts(cod)
            post = _facts(out, fa) + _facts(out, fb)
            if var is not None:
                env = env.bind(var, fa, fb)
            post += [self._refinement(env, e, var, fa, fb) for e in assertions]
        except (NoRule, Reject, T.SortError):
            return None
        if not post:
            return None
        if induction is not None:
            smaller = induction_premise(induction, xs, ys)
            if smaller is None:
                return None
            pre = [smaller] + pre
        return T.implies(T.and_(*pre), T.and_(*post)) if pre else T.and_(*post)

    def _refinement(self, env: Env, e: A.Expr, var, x: SymValue, y: SymValue) -> T.Term:
        if isinstance(e, A.SameRuns):
            xs, ys = flat_terms(x), flat_terms(y)
            if xs is None or ys is None or len(xs) != len(ys) \
                    or any(p.sort != q.sort for p, q in zip(xs, ys)):
                raise Reject("cannot compare these values in the logic", e.span)
            return T.and_(*(T.eq(p, q) for p, q in zip(xs, ys) if p != q))
        return self.assertion(env, e, refined=var)

    def domain(self, name: str, args: Sequence[Optional[SymValue]], run: int = 1,
               rtype: Optional[A.RType] = None, env: Optional[Env] = None
               ) -> Optional[List[T.Term]]:
        """What a call of ``name``'s val on ``args`` (one value per parameter) in run ``run``
        needs on its own (to be safe and to terminate): the val's domain at a pair whose run
        ``run`` half is ``a`` — its derivation assumed the domain of its parameters. The other
        half is ``a`` too, except for a number whose refinement reads both of its runs: an
        existential witness there. None when the logic cannot state it; a monadic domain is
        skipped (its draws are checked where passed), and so is a function (S-Fun). With
        ``rtype`` (read in ``env``): the type of the function parameter ``name``."""
        if rtype is None:
            val = self.vals.get(name)
            if val is None:
                return None
            doms, env = arrows(val.rtype)[0], self.top_env
        else:
            doms = arrows(refinement_parts(rtype)[1])[0]
        if len(doms) < len(args):
            return None
        same, pre, witnesses, inside, diagonal = env, [], [], [], []
        parts = [refinement_parts(dom) for dom in doms]
        try:
            for k, a in enumerate(args):
                var, base, assertions = parts[k]
                if isinstance(base, (A.RMonad, A.RArrow)):
                    continue
                if a is None or not isinstance(base, A.RSimple):
                    return None
                pre += _facts(base.type, a)
                b = a
                later = [e for _, _, es in parts[k + 1:] for e in es]
                if var is not None and isinstance(a, Scalar) and \
                        a.term.sort in (T.REAL, T.INT, T.BOOL) \
                        and _reads_both(var, assertions, later):
                    w = self.fresh(f"{source_name(var)}_w", a.term.sort)
                    witnesses.append(w)
                    b = Scalar(w)
                    inside += _facts(base.type, b)
                pair = (a, b) if run == 1 else (b, a)
                if var is not None:
                    env, same = env.bind(var, *pair), same.bind(var, a, a)
                inside += [self._refinement(env, e, var, *pair) for e in assertions]
                diagonal += [self._refinement(same, e, var, a, a) for e in assertions]
        except (NoRule, Reject, T.SortError):
            return None
        if witnesses:  # the domain at (a, a), or at (a, w) for some w
            pre.append(T.or_(T.and_(*diagonal), T.exists(witnesses, T.and_(*inside))))
        else:
            pre += diagonal
        return [c for c in pre if c != T.TRUE]


def _reads_both(var: str, assertions: Sequence[A.Expr], later: Sequence[A.Expr] = ()) -> bool:
    """A conjunct of ``var``'s refinement or of a later parameter's (``later``; or the
    conclusion of an implication) relates an expression of ``var<1>`` to one of ``var<2>`` by
    = or an inequality (not ``var<1> = var<2>``, and no conjunct of ``var``'s own refinement
    says the runs are equal): the diagonal ``(a, a)`` may not satisfy it."""
    if says_equal(var, assertions):
        return False
    todo = list(assertions) + list(later)
    while todo:
        a = todo.pop()
        if isinstance(a, A.Conj):
            todo += [a.left, a.right]
            continue
        if isinstance(a, A.Implies):  # a relation of the runs under a condition
            todo.append(a.right)
            continue
        if not (isinstance(a, A.BinOp) and a.op in ("=", "<=", ">=", "<", ">")):
            continue
        runs = []
        for side in (a.left, a.right):
            found, stack = set(), [side]
            while stack:
                n = stack.pop()
                if isinstance(n, A.RunVar) and n.name == var:
                    found.add(n.run)
                stack.extend(A.children(n))
            runs.append(found)
        if sorted(map(sorted, runs)) == [[1], [2]]:
            return True
    return False


def _facts(t: A.SimpleType, value: SymValue) -> List[T.Term]:
    """What a value of type ``t`` satisfies (``ranges.value_facts``), or Reject."""
    facts = value_facts(t, value)
    if facts is None:
        raise Reject("a value the logic cannot name")
    return facts


def pure_signature(val: A.ValDecl) -> Optional[Tuple[List[A.RType], A.RType]]:
    """The domains and codomain of a val whose types are all simple (refined or not)."""
    doms, rt = arrows(val.rtype)
    if not doms:
        return None
    for part in doms + [rt]:
        try:
            base = refinement_parts(part)[1]
        except Reject:
            return None
        if not isinstance(base, A.RSimple) or not first_order(base.type):
            return None
    return doms, rt


def ground_calls(terms: Sequence[T.Term], names: Iterable[str]
                 ) -> Dict[str, List[Tuple[T.Term, ...]]]:
    """The distinct argument tuples of the calls of the program functions ``names`` in
    ``terms`` outside quantifiers (the components of a tuple result are one call), by
    function, in order of first occurrence."""
    names = set(names)
    found: Dict[str, List[Tuple[T.Term, ...]]] = {}
    for app in T.ground_applications(*terms):
        name = V.program_function_name(app.func.name)
        if name in names and app.args and app.args not in found.setdefault(name, []):
            found[name].append(app.args)
    return found


def _unique(checks: List[RangeCheck]) -> List[RangeCheck]:
    seen, out = set(), []
    for c in checks:
        key = (c.condition, c.guard, c.description, c.run)
        if key not in seen:
            seen.add(key)
            out.append(c)
    return out
