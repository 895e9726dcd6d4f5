"""apRHL derivations of while-programs against themselves (docs/aprhl.md).

``attempt(proc, types, session)`` derives the judgement of a procedure's specification line,
``|-(eps, delta) c ~ c : P ==> Q``, by the rules of the course notes, one function per rule
(``verifier.aprhl.verify.verify_proc`` chooses the couplings and searches a witness):

* ``rule_skip``      Skip:   |-(0,0) skip ~ skip : P ==> P
* ``rule_assign``    Assign: |-(0,0) x := e ~ x := e : Q[e<1>/x<1>, e<2>/x<2>] ==> Q
* ``rule_lap``       Lap (general): x := $ Lap (b, e) in both runs, coupled so that the draws are
                     equal (or shifted: ``shift k``, run 2's noise is run 1's plus k), at cost
                     |k + e<1> - e<2>| / b; with |e<1> - e<2>| <= k that is the notes' k * eps
                     (b = 1 / eps). Side conditions: b is public (b<1> = b<2>) and b > 0.
* ``rule_seq``       Seq:    the costs of c; c' add up.
* ``rule_cond``      Cond:   the guards are synchronised (P => e<1> = e<2>), then both branches.
* ``rule_while``     AWhile: an invariant (inferred from candidates, or written) that holds on
                     entry and is preserved by the body, synchronised guards, and a variant that
                     is positive while the guard holds and decreases; the per-iteration costs are
                     summed through the invariant's bound on the cost spent so far.
* ``rule_conseq``    Conseq: at return, the precondition and the derivation entail the output
                     relation, the cost spent is at most the claimed eps and 0 <= delta.

The derivation is a relational symbolic execution: every variable has a term per run, the
privacy cost spent so far is a term ``cost'`` (a function of the two runs' state, as in
the cost of a shifted coupling: the apRHL judgement holds for each pair of inputs with the
cost its own path spends, and the obligation bounds it by the claim's eps for every pair), and
every side condition (division by zero, index out of bounds, scale not positive or not
public, guards not synchronised) is an obligation for z3. Nothing is trusted that z3 did not
prove: an obligation that is not verified leaves the claim ``unknown``.
"""
from __future__ import annotations

import itertools
import time
from typing import Dict, List, Optional, Sequence, Tuple

from obligations import terms as T
from obligations import whilelogic as WL
from obligations.model import Obligation, ObligationKind, Provenance, SourceSpan, Verdict
from obligations.records import field, record, replace
from obligations.smtlib import Z3Session
from obligations.z3_backend import discharge
from verifier.language import whilelang as W
from verifier.shifts import IDENTITY, CaseShift, PointShift, lap_shift_cost

ENT, RANGE, SIDE, COMP = (ObligationKind.ENTAILMENT, ObligationKind.RANGE,
                          ObligationKind.SIDE_CONDITION, ObligationKind.COMPOSABILITY)
_AND = " /\\ "
#: the resource limit of the inference's probes: a candidate z3 cannot prove quickly is dropped
#: (dropping a candidate is always sound; it may only lose a proof)
PROBE_RLIMIT = 400_000
#: rounds of the invariant inference (each drops at least one candidate)
MAX_ROUNDS = 30


class NoRule(Exception):
    """No apRHL rule applies (an unsupported construct): the claim is unknown."""

    def __init__(self, message: str, span=None):
        super().__init__(message)
        self.span = span


@record(frozen=False)
class Node:
    """One rule application: the rule, what it did, its obligations and premises."""
    rule: str
    text: str
    span: object = None
    obligations: List[Obligation] = field(default_factory=list)
    children: List["Node"] = field(default_factory=list)
    data: Dict[str, object] = field(default_factory=dict)

    def size(self) -> int:
        return 1 + sum(c.size() for c in self.children)

    def walk(self):
        yield self
        for c in self.children:
            yield from c.walk()

    def render(self, results: Dict[str, object], indent: int = 0) -> str:
        pad = "  " * indent
        where = f" [line {self.span.line}]" if self.span is not None else ""
        lines = [f"{pad}{self.rule}{where}: {self.text}"]
        for ob in self.obligations:
            r = results.get(ob.id)
            verdict = r.verdict.value if r is not None else "unchecked"
            lines.append(f"{pad}  - {ob.kind.value}: {ob.provenance.description}: "
                         f"{T.pretty(ob.goal)}  [{verdict}]")
        for c in self.children:
            lines.append(c.render(results, indent + 1))
        return "\n".join(lines)


@record(frozen=False)
class State:
    vals: Dict[str, Tuple[T.Term, T.Term]]
    facts: List[T.Term]
    cost: T.Term


@record(frozen=False)
class Skolem:
    """The witnesses of ``adj (d<1>, d<2>)``: d<2> = upd (d<1>, j, v)."""
    list_name: str
    j: T.Term
    v: T.Term
    bound: Optional[T.Term]


def _span(s) -> Optional[SourceSpan]:
    return None if s is None else SourceSpan.of(s)


def conjuncts(t: T.Term) -> List[T.Term]:
    if isinstance(t, T.Op) and t.op == T.OpKind.AND:
        out: List[T.Term] = []
        for a in t.args:
            out += conjuncts(a)
        return out
    return [t]


def names_assigned(stmts) -> List[str]:
    out: List[str] = []
    for s in stmts:
        if isinstance(s, (W.Assign, W.Sample)) and s.target not in out:
            out.append(s.target)
        elif isinstance(s, W.If):
            out += [x for x in names_assigned(s.then) + names_assigned(s.else_) if x not in out]
        elif isinstance(s, W.While):
            out += [x for x in names_assigned(s.body) if x not in out]
    return out


def samples_in(stmts) -> List[W.Sample]:
    out: List[W.Sample] = []
    for s in stmts:
        if isinstance(s, W.Sample):
            out.append(s)
        elif isinstance(s, W.If):
            out += samples_in(s.then) + samples_in(s.else_)
        elif isinstance(s, W.While):
            out += samples_in(s.body)
    return out


class Builder:
    """Builds the derivation of one procedure. ``probing``: the obligations made are only
    tried (the invariant inference), not recorded."""

    def __init__(self, proc: W.Proc, types: W.ProcTypes, session: Optional[Z3Session] = None,
                 rlimit: Optional[int] = None, probe_cache: Optional[Dict[Tuple, bool]] = None):
        self.proc, self.types = proc, types
        self.session = session or Z3Session()
        self.rlimit = rlimit
        self.obligations: List[Obligation] = []
        self.probing = 0
        self.skolems: List[Skolem] = []
        #: the lists related by allWithin
        self.near_lists = set()
        self.pub = {p.name for p in proc.params if p.pub}
        self.probes = 0
        #: the probes' answers, by (facts, goal, resource limit); shared by the derivations
        #: of one claim (``attempt``'s ``probe_cache``): the shift search rebuilds the same
        #: loops under other shifts, and most probes recur
        self.cache: Dict[Tuple, Verdict] = {} if probe_cache is None else probe_cache
        #: loop (line, col) -> (invariant terms, variant term) actually used
        self.loops: Dict[Tuple[int, int], dict] = {}
        #: the shift search (verifier.aprhl.search): the template chosen for each unannotated
        #: ``Lap`` (by line, column; none: the identity), whether each is named by a shift
        #: variable (``sh'LdC``, defined by a fact, so that a failing obligation names the
        #: sites it depends on) and the sites met with whether their centers are one term
        self.assignment: Dict[Tuple[int, int], object] = {}
        self.shift_vars = False
        self.sites: Dict[Tuple[int, int], bool] = {}
        #: the Pointwise rule: the output value v (``result'v``) the couplings may depend on
        self.pointwise: Optional[T.Var] = None
        #: the one-sided Cond rules (If-L, If-R) for every ``if`` without sampling or loops,
        #: also outside the Pointwise rule (a count or a sum updated under a guard that reads
        #: private data: each run takes its own branch, the Dirac coupling at cost 0)
        self.onesided = False
        #: the counters (run 1's head term) of the loops around the statement being derived
        self.counters: List[T.Term] = []
        #: the counter around each Lap (line, col), for the pointwise shift templates
        self.site_counters: Dict[Tuple[int, int], T.Term] = {}
        #: the Lap statements in loops (an obligation about a loop head depends on them)
        self.loop_sites = set()
        #: the Lap statements followed at once by an ``if`` on their value (a shift per branch,
        #: ``verifier.shifts.CaseShift``, may couple them: rule ``rule_lap_case``)
        self.case_sites = set()
        #: the draws whose noise is added to an expression later (``addends``)
        self.addends = addends(W.common_tails_hoisted(proc.body))
        #: the draws whose noise is added to an X that differs between the runs: their
        #: templates include ``verifier.shifts.added_templates``
        self.added_sites = set()
        #: those whose noise is added to an int (its moves are whole: on the draws' grid)
        self.int_added_sites = set()

    # ---- obligations ------------------------------------------------------------------------

    def make(self, st: State, kind, goal: T.Term, description: str, span, rule: str,
             ob_id: Optional[str] = None) -> Obligation:
        """The obligation ``st.facts => goal``; ``ob_id``: its id, when not the digest of
        its content (a probe's, which no report shows)."""
        hyps = [(f"h_{k}", f) for k, f in enumerate(_dedup(st.facts))]
        terms = [f for _, f in hyps] + [goal]
        axioms = WL.ground_axioms(terms)
        return Obligation(kind=kind, hypotheses=hyps, goal=goal, axioms=axioms,
                          provenance=Provenance(rule, rule, description, _span(span)), id=ob_id)

    def oblige(self, node: Node, st: State, kind, goal: T.Term, description: str, span,
               rule: Optional[str] = None) -> None:
        if self.probing:
            return
        ob = self.make(st, kind, goal, description, span, rule or node.rule)
        node.obligations.append(ob)
        self.obligations.append(ob)

    def holds(self, facts: Sequence[T.Term], goal: T.Term) -> bool:
        """z3 proves ``facts => goal`` (the inference: never a proof by itself)."""
        return self.probe(facts, goal) == Verdict.VERIFIED

    def probe(self, facts: Sequence[T.Term], goal: T.Term) -> Verdict:
        """What z3 says of ``facts => goal`` within the probes' resource limit: VERIFIED,
        or UNKNOWN when it ran out (a candidate worth a second look under fewer facts), or
        another verdict."""
        self.probes += 1
        limit = PROBE_RLIMIT if self.rlimit is None else min(self.rlimit, PROBE_RLIMIT)
        key = (tuple(_dedup(facts)), goal, limit)
        if key in self.cache:
            return self.cache[key]
        st = State({}, list(facts), T.real(0))
        # the id names no report: the digest of the content is not computed
        ob = self.make(st, ENT, goal, "probe", None, "probe", ob_id="probe")
        r = discharge(ob, confirm=False, session=self.session, rlimit=limit, recheck=False)
        self.cache[key] = r.verdict
        return r.verdict

    # ---- terms ------------------------------------------------------------------------------

    def sort(self, name: str) -> T.Sort:
        try:
            return WL.sort_of(self.types.vars[name])
        except ValueError:
            raise NoRule(f"{name} has type {W.show_type(self.types.vars[name])}: lists of lists "
                         "are not supported", None)

    def expr(self, e, st: State, run: int, side: List, want: Optional[T.Sort] = None) -> T.Term:
        """The term of code expression ``e`` in run ``run``; range conditions go to ``side``
        as (kind, goal, description, span)."""
        if isinstance(e, W.Num):
            return T.integer(int(e.value)) if e.is_int else T.real(e.value)
        if isinstance(e, W.BoolLit):
            return T.boolean(e.value)
        if isinstance(e, W.Name):
            if e.name not in st.vals:
                raise NoRule(f"{e.name} may be used before it is assigned", e.span)
            pair = st.vals[e.name]
            if e.run is not None:
                return pair[e.run - 1]
            return pair[run - 1]
        if isinstance(e, W.Index):
            a = self.expr(e.array, st, run, side)
            i = self.expr(e.index, st, run, side)
            side.append((RANGE, T.and_(T.le(0, i), T.lt(i, WL.length(a))),
                         f"the index of {W.pretty_expr(e)} is in bounds (run {run})", e.span))
            return WL.at(a, i)
        if isinstance(e, W.Size):
            return WL.length(self.expr(e.arg, st, run, side))
        if isinstance(e, W.ListLit):
            if want is None or WL.elem_key(want) is None:
                t = W.expr_type(e, self.types.vars)
                if "?" in t:
                    raise NoRule("the element type of [] is unknown here", e.span)
                want = WL.sort_of(t)
            acc = WL.nil(WL.elem_key(want))
            for it in e.items:
                acc = WL.snoc(acc, self._elem(self.expr(it, st, run, side), acc))
            return acc
        if isinstance(e, W.UnOp):
            a = self.expr(e.arg, st, run, side)
            return T.not_(a) if e.op == "not" else T.neg(a)
        if isinstance(e, W.Call):
            if e.fn in W.PREDICATES:
                raise NoRule(f"{e.fn} is supported only as a conjunct of the precondition", e.span)
            args = [self.expr(a, st, run, side) for a in e.args]
            return {"abs": lambda: T.abs_(args[0]), "min": lambda: T.min_(*args),
                    "max": lambda: T.max_(*args)}[e.fn]()
        if isinstance(e, W.BinOp):
            if e.op == "++":
                if isinstance(e.left, W.ListLit) and not isinstance(e.right, W.ListLit):
                    acc = self.expr(e.right, st, run, side, want)
                    for it in reversed(e.left.items):
                        acc = WL.cons(self._elem(self.expr(it, st, run, side), acc), acc)
                    return acc
                left = self.expr(e.left, st, run, side, want)
                if not isinstance(e.right, W.ListLit):
                    raise NoRule("l ++ m is supported when l or m is a list literal such as [x]",
                                 e.right.span)
                acc = left
                for it in e.right.items:
                    acc = WL.snoc(acc, self._elem(self.expr(it, st, run, side), acc))
                return acc
            a = self.expr(e.left, st, run, side)
            b = self.expr(e.right, st, run, side)
            if e.op == "/":
                side.append((RANGE, T.ne(b, 0), f"the divisor of {W.pretty_expr(e)} is not zero "
                             f"(run {run})", e.right.span))
            if e.op == "mod":
                side.append((RANGE, T.gt(b, 0), f"the divisor of {W.pretty_expr(e)} is positive "
                             f"(run {run})", e.right.span))
                return WL.mod(a, b)
            ops = {"+": T.add, "-": T.sub, "*": T.mul, "/": T.div, "=": T.eq, "<>": T.ne,
                   "<": T.lt, "<=": T.le, ">": T.gt, ">=": T.ge, "&&": T.and_, "||": T.or_,
                   "=>": T.implies}
            if e.op in ("=", "<>") and a.sort != b.sort and not (a.sort.is_numeric and b.sort.is_numeric):
                if isinstance(e.right, W.ListLit) or isinstance(e.left, W.ListLit):
                    if isinstance(e.right, W.ListLit):
                        b = self.expr(e.right, st, run, side, a.sort)
                    else:
                        a = self.expr(e.left, st, run, side, b.sort)
            return ops[e.op](a, b)
        raise NoRule("unsupported expression", getattr(e, "span", None))

    @staticmethod
    def _elem(x: T.Term, lst: T.Term) -> T.Term:
        want = WL.ELEMENT_SORTS[WL.elem_key(lst.sort)]
        return T.to_real(x) if want == T.REAL and x.sort == T.INT else x

    def assertion(self, e, st: State, side: List) -> T.Term:
        """An assertion (spec, invariant): ``x<1>``/``x<2>`` one run's value; a name without
        a run index must have the same term in both runs (a ``pub`` parameter)."""
        for n in W.names_of(e):
            if n.run is None and n.name in st.vals:
                a, b = st.vals[n.name]
                if a is not b:
                    raise NoRule(f"write {n.name}<1> or {n.name}<2>: {n.name} may differ between "
                                 "the runs", n.span)
        return self.expr(e, st, 1, side)

    def side(self, node: Node, st: State, side: List) -> None:
        for kind, goal, desc, span in side:
            self.oblige(node, st, kind, goal, desc, span)

    # ---- the judgement ----------------------------------------------------------------------

    def initial_state(self) -> State:
        vals: Dict[str, Tuple[T.Term, T.Term]] = {}
        facts: List[T.Term] = []
        for p in self.proc.params:
            s = self.sort(p.name)
            if p.pub:
                v = T.var(p.name, s)
                vals[p.name] = (v, v)
            else:
                vals[p.name] = (T.var(p.name, s, 1), T.var(p.name, s, 2))
            for t in set(vals[p.name]):
                if p.type.base == "nat":
                    facts.append(T.ge(t, 0))
                elif p.type.base == "real+":
                    facts.append(T.gt(t, 0))
        st = State(vals, facts, T.real(0))
        spec = self.proc.spec
        pre = _split_and(spec.pre)
        # the adjacency relations first: they give run 2's list as run 1's updated at one position
        for c in pre:
            if isinstance(c, W.Call) and c.fn in W.PREDICATES:
                facts.append(self.adjacency(c, st))
        for c in pre:
            if not (isinstance(c, W.Call) and c.fn in W.PREDICATES):
                facts.append(self.assertion(c, st, []))
        return st

    def adjacency(self, c: W.Call, st: State) -> T.Term:
        name = c.args[0].name
        d1, d2 = st.vals[name]
        if d1 is d2:
            return T.TRUE
        if c.fn == "allWithin":
            return self.all_within(c, st)
        if name in self.near_lists or any(s.list_name == name for s in self.skolems):
            raise NoRule(f"one adjacency relation per list ({name})", c.span)
        key = WL.elem_key(d1.sort)
        j = T.var(f"{name}'j", T.INT)
        v = T.var(f"{name}'v", WL.ELEMENT_SORTS[key])
        # run 2's list is run 1's with position j set to v (whilelogic: a representation of
        # every adjacent pair, and of more pairs: a weaker precondition)
        st.vals[name] = (d1, WL.upd(d1, j, v))
        fact = T.TRUE
        bound = None
        if c.fn == "adjWithin":
            bound = self.assertion(c.args[2], st, [])
            diff = T.sub(WL.at(d1, j), v)
            fact = T.or_(T.le(T.abs_(diff), bound), T.eq(WL.at(d1, j), v))
        self.skolems.append(Skolem(name, j, v, bound))
        return fact

    def all_within(self, c: W.Call, st: State) -> T.Term:
        """``allWithin (d<1>, d<2>, c)``: run 2's list is ``near (d<1>, d'w, c)``, run 1's moved
        at every position by at most c (whilelogic: a representation of every such pair: a
        weaker precondition, never a stronger one)."""
        name = c.args[0].name
        d1, _ = st.vals[name]
        if name in self.near_lists or any(s.list_name == name for s in self.skolems):
            raise NoRule(f"one adjacency relation per list ({name})", c.span)
        w = T.var(f"{name}'w", d1.sort)
        bound = _coerce(self.assertion(c.args[2], st, []), T.REAL)
        st.vals[name] = (d1, WL.near(d1, w, bound))
        self.near_lists.add(name)
        return T.TRUE

    def derive(self) -> Tuple[Node, State]:
        st = self.initial_state()
        body = list(W.common_tails_hoisted(self.proc.body))
        ret = body.pop()
        node, st = self.rule_seq(body, st) if body else (Node("Skip", "empty"), st)
        root = Node("Conseq", f"|-({W.pretty_expr(self.proc.spec.eps)}, "
                    f"{W.pretty_expr(self.proc.spec.delta)}) {self.proc.name} ~ {self.proc.name}",
                    self.proc.spec.span, children=[node])
        self.rule_conseq(root, ret, st)
        if self.pointwise is not None:
            return self.rule_pointwise(root), st
        return root, st

    def rule_pointwise(self, conseq: Node) -> Node:
        """The pointwise equality rule (theorem ``coupling.pointwise``; Barthe et al., LICS 2016,
        Prop. 8): a claim ``==> =`` with a discrete output type holds at (eps, 0) when, for
        every output value v, the body is coupled with postcondition ``result<1> = v =>
        result<2> = v`` at cost eps. v is the free variable ``result'v`` of every obligation
        (so they hold for every v), and the couplings below may depend on it."""
        if self.proc.spec.post is not None or not discrete_output(self.proc):
            raise NoRule("the pointwise rule proves claims ==> = whose output is discrete "
                         "(int, bool, or lists of them)", self.proc.spec.span)
        return Node("Pointwise", "for every output value v: result<1> = v => result<2> = v, "
                    f"v = {self.pointwise.name}", self.proc.spec.span, children=[conseq])

    def rule_conseq(self, root: Node, ret: W.Return, st: State) -> None:
        spec = self.proc.spec
        side: List = []
        r1 = self.expr(ret.value, st, 1, side, self.sort_ret())
        r2 = self.expr(ret.value, st, 2, side, self.sort_ret())
        self.side(root, st, side)
        if spec.post is None and self.pointwise is not None:
            v = self.pointwise
            post = T.implies(T.eq(r1, v), T.eq(r2, v))
            what = "pointwise: run 1's output is v => run 2's is v"
        elif spec.post is None:
            post = T.eq(r1, r2)
            what = "the outputs are equal"
        else:
            s2 = State(dict(st.vals), st.facts, st.cost)
            s2.vals["result"] = (r1, r2)
            post = self.assertion(spec.post, s2, [])
            what = "the output relation holds"
        self.oblige(root, st, ENT, post, what, ret.span)
        eps = self.assertion(spec.eps, st, [])
        delta = self.assertion(spec.delta, st, [])
        self.oblige(root, st, COMP, T.le(st.cost, eps),
                    "the costs spent add up to at most the claimed eps", spec.span)
        self.oblige(root, st, COMP, T.le(0, delta),
                    "the derivation's delta (0) is at most the claimed delta", spec.span)
        root.data["cost"] = st.cost

    def sort_ret(self) -> T.Sort:
        t = W.wtype_simple(self.proc.ret)
        try:
            return WL.sort_of(t)
        except ValueError:
            raise NoRule("lists of lists are not supported", self.proc.span)

    def rule_seq(self, stmts, st: State) -> Tuple[Node, State]:
        node = Node("Seq", f"{len(stmts)} statement(s); costs add up",
                    stmts[0].span if stmts else None)
        stmts = list(stmts)
        n = 0
        while n < len(stmts):
            s = stmts[n]
            m = case_group(stmts, n)
            if m is not None:
                self.case_sites.add((s.span.line, s.span.col))
                if isinstance(self.assignment.get((s.span.line, s.span.col)), CaseShift):
                    child, st = self.rule_lap_case(s, stmts[n + 1:m], stmts[m], st)
                    node.children.append(child)
                    n = m + 1
                    continue
            child, st = self.stmt(s, st)
            node.children.append(child)
            n += 1
        if len(node.children) == 1:
            return node.children[0], st
        return node, st

    def stmt(self, s, st: State) -> Tuple[Node, State]:
        if isinstance(s, W.Skip):
            return self.rule_skip(s, st)
        if isinstance(s, W.Assign):
            return self.rule_assign(s, st)
        if isinstance(s, W.Sample):
            return self.rule_lap(s, st)
        if isinstance(s, W.If):
            return self.rule_cond(s, st)
        if isinstance(s, W.While):
            return self.rule_while(s, st)
        raise NoRule("return must be the last statement", s.span)

    def rule_skip(self, s: W.Skip, st: State) -> Tuple[Node, State]:
        return Node("Skip", "skip ~ skip at cost (0, 0)", s.span), st

    def rule_assign(self, s: W.Assign, st: State) -> Tuple[Node, State]:
        node = Node("Assign", f"{s.target} := {W.pretty_expr(s.value)} at cost (0, 0)", s.span)
        side: List = []
        want = self.sort(s.target)
        v1 = _coerce(self.expr(s.value, st, 1, side, want), want)
        v2 = _coerce(self.expr(s.value, st, 2, side, want), want)
        self.side(node, st, side)
        vals = dict(st.vals)
        vals[s.target] = (v1, v2)
        return node, State(vals, st.facts, st.cost)

    def rule_lap(self, s: W.Sample, st: State, case_if: Optional[W.If] = None,
                 between: Sequence[W.Assign] = ()) -> Tuple[Node, State]:
        """The Lap rule (identity of the draws, a written shift, or the search's shift);
        ``case_if``: the ``if`` that follows the draw (after the assignments ``between``),
        whose run-1 guard picks a per-branch shift (``rule_lap_case``)."""
        side: List = []
        b1 = self.expr(s.scale, st, 1, side)
        b2 = self.expr(s.scale, st, 2, side)
        c1 = self.expr(s.center, st, 1, side)
        c2 = self.expr(s.center, st, 2, side)
        rule = "Lap" if s.shift is None else "Lap-Shift"
        node = Node(rule, "", s.span)
        self.side(node, st, side)
        self.oblige(node, st, SIDE, T.eq(b1, b2), "the scale of Lap is the same in both runs",
                    s.scale.span)
        self.oblige(node, st, RANGE, T.gt(b1, 0), "the scale of Lap is positive", s.scale.span)
        z = T.var(WL.draw_name(s.target, s.span.line, s.span.col), T.REAL)
        key = (s.span.line, s.span.col)
        searched = self.assignment.get(key) if s.shift is None else None
        # a template marked added is taken around e + X for noise later added to X
        # (``addends``): the draw's shift is then the template's plus X<1> - X<2>
        e1, e2, moved = self.effective_centres(s, st, c1, c2)
        if e1 is not c1:
            self.added_sites.add(key)

        def term(shift) -> T.Term:
            return moved(shift.term(e1, e2)) if shift.added else shift.term(c1, c2)
        if s.shift is None:
            self.sites.setdefault(key, c1 == c2)
            if self.counters:
                self.loop_sites.add(key)
            if self.counters and self.counters[-1] is not None:
                self.site_counters[key] = self.counters[-1]
        facts = st.facts
        if searched is not None and (self.shift_vars or searched != IDENTITY):
            # a shift found by the search: run 2's output is run 1's plus k
            if isinstance(searched, CaseShift):
                if case_if is None:
                    raise NoRule("a shift per branch needs the if on the draw right after it",
                                 s.span)
                # run 1's guard after the draw: its value does not depend on the shift
                probe = State(dict(st.vals), st.facts, st.cost)
                probe.vals[s.target] = (WL.released(b1, z), WL.released(b1, z))
                self.probing += 1
                try:   # run 1's state when its guard is read: after the assignments between
                    for a in between:
                        _, probe = self.stmt(a, probe)
                finally:
                    self.probing -= 1
                guard_side: List = []
                g1 = self.expr(case_if.cond, probe, 1, guard_side)
                # the per-branch shifts, for the certificate (the kernel re-derives C<1>)
                node.data["case"] = (term(searched.then), term(searched.else_))
                k = T.ite(g1, *node.data["case"])
            elif isinstance(searched, PointShift):
                if self.pointwise is None or key not in self.site_counters:
                    raise NoRule("a shift that depends on the output value needs the pointwise "
                                 "rule and a loop counter", s.span)
                k = T.ite(T.eq(self.site_counters[key], self.pointwise), term(searched.at),
                          term(searched.other))
            else:
                k = term(searched)
            if self.shift_vars:
                sh = T.var(f"sh'{key[0]}d{key[1]}", T.REAL)
                facts = st.facts + [T.eq(sh, k)]
                k = sh
            node.rule = "Lap-Shift"
            out = (WL.released(b1, z), WL.released(b1, T.add(z, k)))
            added = self.addends.get(key) if e1 is not c1 else None
            of = f" (X = {W.pretty_expr(added)})" if added is not None and "X + " in \
                searched.text() else ""
            node.text = (f"{s.target} := $ Lap ({W.pretty_expr(s.scale)}, {W.pretty_expr(s.center)}):"
                         f" coupled by {searched.text()}{of} (found by the shift search), cost "
                         "|k + y<1> - y<2>| / b")
            node.data["shift"] = k
        elif s.shift is None:
            k = T.real(0)
            out = (WL.released(b1, z), WL.released(b1, z))
            node.text = (f"{s.target} := $ Lap ({W.pretty_expr(s.scale)}, {W.pretty_expr(s.center)}):"
                         f" draws coupled equal, cost |y<1> - y<2>| / b (the general Lap rule)")
        else:
            sh = self.assertion(s.shift, st, [])
            # run 2's noise is run 1's plus sh: outputs apart by k = sh + c2 - c1
            k = T.add(sh, T.sub(c2, c1))
            out = (WL.released(b1, z), WL.released(b1, T.add(z, k)))
            node.text = (f"{s.target} := $ Lap (...) shift {W.pretty_expr(s.shift)}: noise<2> = "
                         "noise<1> + shift, cost |shift| / b")
        cost = lap_shift_cost(k, c1, c2, scale=b1)
        node.data["cost"] = cost
        vals = dict(st.vals)
        vals[s.target] = out
        return node, State(vals, facts, T.add(st.cost, cost))

    def effective_centres(self, s: W.Sample, st: State, c1: T.Term, c2: T.Term):
        """``(e<1>, e<2>, moved)``: the centre the shift templates of draw ``s`` are taken
        around, and the map from a template's shift of that value to the draw's. For noise
        later added to ``X`` (``addends``) whose two runs' terms differ, the centre is ``c +
        X`` and ``moved (k) = k + X<1> - X<2>`` (``X<2> + y<2> = X<1> + y<1> + k`` is ``y<2> =
        y<1> + k + X<1> - X<2>``); otherwise the draw's centre and the identity. ``X`` is read
        in the state before the draw: what the shift may depend on."""
        added = self.addends.get((s.span.line, s.span.col)) if s.shift is None else None
        if added is not None:
            try:
                raw = [self.expr(added, st, r, []) for r in (1, 2)]
            except NoRule:
                raw = None
            a1, a2 = (None, None) if raw is None else (_coerce(t, T.REAL) for t in raw)
            if a1 is not None and a1 != a2:
                if raw[0].sort == T.INT:
                    self.int_added_sites.add((s.span.line, s.span.col))
                return (T.add(c1, a1), T.add(c2, a2),
                        lambda k: T.add(k, T.sub(a1, a2)))
        return c1, c2, lambda k: k

    def rule_lap_case(self, s: W.Sample, between: Sequence[W.Assign], c: W.If, st: State
                      ) -> Tuple[Node, State]:
        """Lap-Case (the Case-Output rule of the functional language, ``verifier.rules
        .couplings``, for ``x := $ Lap (b, e); if C then A else B``; the randomness alignment
        of LightDP and ShadowDP): the draw is coupled by the *then* shift where run 1's guard
        ``C<1>`` holds after it, by the *else* shift elsewhere, and charged the Lap rule's
        cost of the shift of that branch. The ``if`` is derived by the synchronised Cond rule
        (never the one-sided ones, even under Pointwise): its obligation ``C<1> = C<2>`` —
        run 1 on a branch puts run 2 there — makes the alignment injective (the draws of
        each branch are translated into the part of run 2's draws that takes it). Assignments
        may stand between the draw and the ``if`` (``gap := x - th; if gap >= 0``): run 1's
        guard is read after them, still a function of the draw and the state before it."""
        ln, st = self.rule_lap(s, st, case_if=c, between=between)
        children = [ln]
        for a in between:
            an, st = self.stmt(a, st)
            children.append(an)
        cn, st = self.rule_cond(c, st, synchronised=True)
        node = Node("Lap-Case", f"{s.target} := $ Lap (...) coupled per branch of if "
                    f"{W.pretty_expr(c.cond)} (run 1's guard picks the shift; the guards "
                    "synchronised)", s.span, children=children + [cn])
        return node, st

    def rule_cond(self, s: W.If, st: State, synchronised: bool = False) -> Tuple[Node, State]:
        if (self.pointwise is not None or self.onesided) and deterministic([s]) \
                and not synchronised:
            return self.rule_cond_onesided(s, st)
        side: List = []
        g1 = self.expr(s.cond, st, 1, side)
        g2 = self.expr(s.cond, st, 2, side)
        node = Node("Cond", f"if {W.pretty_expr(s.cond)}: guards synchronised", s.span)
        self.side(node, st, side)
        self.oblige(node, st, SIDE, T.eq(g1, g2), "the guard of if is the same in both runs "
                    "(synchronised: no branch on private data)", s.cond.span)
        base = len(st.facts)
        tn, ts = self.rule_seq(list(s.then), State(dict(st.vals), st.facts + [g1, g2], st.cost))
        en, es = self.rule_seq(list(s.else_), State(dict(st.vals), st.facts + [T.not_(g1), T.not_(g2)],
                                                    st.cost))
        node.children = [tn, en]
        vals: Dict[str, Tuple[T.Term, T.Term]] = {}
        for x in ts.vals:
            if x in es.vals:
                a, b = ts.vals[x], es.vals[x]
                vals[x] = (a[0] if a[0] is b[0] else T.ite(g1, a[0], b[0]),
                           a[1] if a[1] is b[1] else T.ite(g2, a[1], b[1]))
        facts = list(st.facts)
        facts += [T.implies(g1, f) for f in ts.facts[base + 2:]]
        facts += [T.implies(T.not_(g1), f) for f in es.facts[base + 2:]]
        cost = ts.cost if ts.cost is es.cost else T.ite(g1, ts.cost, es.cost)
        return node, State(vals, facts, cost)

    def rule_cond_onesided(self, s: W.If, st: State) -> Tuple[Node, State]:
        """The one-sided Cond rules (If-L then If-R) for an ``if`` without sampling or loops:
        each run takes its own branch (deterministic commands are coupled by the Dirac
        coupling at cost (0, 0)), so the guards need not be synchronised. Each variable's term
        in run r is ``ite (e<r>, then, else)``; the range conditions of a branch are obligations
        under that run's guard. Used under the Pointwise rule, whose postcondition does not
        ask the runs to take the same branches."""
        node = Node("Cond-L/R", f"if {W.pretty_expr(s.cond)}: each run takes its own branch "
                    "(no sampling in the branches)", s.span)
        vals = dict(st.vals)
        for run in (1, 2):
            vals = self._one_side(node, s, State(vals, st.facts, st.cost), run)
        return node, State(vals, st.facts, st.cost)

    def _one_side(self, node: Node, s: W.If, st: State, run: int) -> Dict:
        side: List = []
        g = self.expr(s.cond, st, run, side)
        self.side(node, st, side)
        tv = self._one_seq(node, s.then, State(dict(st.vals), st.facts + [g], st.cost), run)
        ev = self._one_seq(node, s.else_, State(dict(st.vals), st.facts + [T.not_(g)], st.cost),
                           run)
        out = dict(st.vals)
        for x in tv:
            if x in ev:
                a, b = tv[x][run - 1], ev[x][run - 1]
                pair = list(st.vals.get(x, (None, None)))
                pair[run - 1] = a if a is b else T.ite(g, a, b)
                out[x] = tuple(pair)
            elif x not in st.vals:
                out.pop(x, None)
        return out

    def _one_seq(self, node: Node, stmts, st: State, run: int) -> Dict:
        vals = st.vals
        for c in stmts:
            if isinstance(c, W.Assign):
                side: List = []
                want = self.sort(c.target)
                v = _coerce(self.expr(c.value, State(vals, st.facts, st.cost), run, side, want), want)
                self.side(node, State(vals, st.facts, st.cost), side)
                pair = list(vals.get(c.target, (None, None)))
                pair[run - 1] = v
                vals = dict(vals)
                vals[c.target] = tuple(pair)
            elif isinstance(c, W.If):
                vals = self._one_side(node, c, State(vals, st.facts, st.cost), run)
            elif not isinstance(c, W.Skip):
                raise NoRule("a branch with sampling or a loop needs synchronised guards", c.span)
        return vals

    # ---- loops ------------------------------------------------------------------------------

    def rule_while(self, w: W.While, st: State) -> Tuple[Node, State]:
        line, col = w.span.line, w.span.col
        modified = [x for x in names_assigned(w.body)]
        carried = [x for x in modified if x in st.vals]
        has_cost = bool(samples_in(w.body))
        head_vals = dict(st.vals)
        for x in modified:
            head_vals.pop(x, None)
        for x in carried:
            s = self.sort(x)
            n = WL.head_name(x, line, col)
            head_vals[x] = (T.var(n, s, 1), T.var(n, s, 2))
        head_cost = T.var(f"cost''{line}h{col}", T.REAL) if has_cost else st.cost
        entry_map: Dict[T.Var, T.Term] = {}
        for x in carried:
            entry_map[head_vals[x][0]] = st.vals[x][0]
            entry_map[head_vals[x][1]] = st.vals[x][1]
        if has_cost:
            entry_map[head_cost] = st.cost
        head = State(head_vals, list(st.facts), head_cost)
        # the counter (up, or down: a scan from the last position) a pointwise shift reads
        counters = loop_counters(w, carried, head) or loop_counters(w, carried, head, down=True)
        self.counters.append(head.vals[counters[0]][0] if counters else None)
        try:
            return self._rule_while(w, st, head, head_cost, has_cost, carried, entry_map)
        finally:
            self.counters.pop()

    def _rule_while(self, w, st, head, head_cost, has_cost, carried, entry_map):
        line, col = w.span.line, w.span.col
        side: List = []
        g1 = self.expr(w.cond, head, 1, side)
        g2 = self.expr(w.cond, head, 2, side)
        user = [(f"invariant at line {inv.span.line}", self.assertion(inv, head, []))
                for inv in w.invariants]
        cands = self.candidates(w, st, head, carried, has_cost, entry_map)
        # Houdini: drop the candidates that do not hold on entry, then those not preserved
        cands = [(d, c) for d, c in cands if self.holds(st.facts, T.substitute(c, entry_map))]
        cands = self.houdini(w, head, user, cands, g1, g2, carried, has_cost)
        invariants = user + cands
        inv_terms = [c for _, c in invariants]
        variant = self.choose_variant(w, head, inv_terms, g1, carried, has_cost)
        node = Node("AWhile", f"while {W.pretty_expr(w.cond)}: invariant "
                    f"{_AND.join(T.pretty(c) for c in inv_terms) or 'true'}; variant "
                    f"{T.pretty(variant) if variant is not None else '(none)'}", w.span)
        node.data.update(invariants=[d for d, _ in invariants], variant=variant,
                         head_cost=head_cost if has_cost else None)
        self.loops[(line, col)] = {"invariants": inv_terms, "variant": variant}
        entry = State(st.vals, st.facts, st.cost)
        for d, c in invariants:
            self.oblige(node, entry, ENT, T.substitute(c, entry_map),
                        f"the loop invariant holds on entry ({d})", w.span)
        inside = State(dict(head.vals), head.facts + inv_terms, head.cost)
        self.side(node, inside, side)
        self.oblige(node, inside, SIDE, T.eq(g1, g2),
                    "the loop guards are synchronised (no loop on private data)", w.cond.span)
        body_state = State(dict(head.vals), head.facts + inv_terms + [g1, g2], head.cost)
        bn, end = self.rule_seq(list(w.body), body_state)
        node.children.append(bn)
        back = self.back_map(carried, head, end, has_cost)
        for d, c in invariants:
            self.oblige(node, end, ENT, T.substitute(c, back),
                        f"the loop body preserves the invariant ({d})", w.span)
        if variant is None:
            raise NoRule("no variant proves that this loop terminates: write one "
                         "(while e variant v do ...; v an int that decreases and is positive "
                         "while e holds)", w.span)
        self.oblige(node, body_state, SIDE, T.gt(variant, 0),
                    "the variant is positive while the guard holds", w.span)
        self.oblige(node, end, SIDE, T.lt(T.substitute(variant, back), variant),
                    "the body decreases the variant", w.span)
        after = State(dict(head.vals), head.facts + inv_terms + [T.not_(g1), T.not_(g2)],
                      head.cost)
        return node, after

    def houdini(self, w: W.While, head: State, user, cands, g1, g2, carried, has_cost):
        """The largest subset of ``cands`` the body preserves (with the ``user`` invariants),
        by dropping the candidates not proved preserved until none is. A candidate dropped
        because z3 ran out of resources (not refuted) gets one second chance once the fixpoint
        is reached: the false candidates gone, its proof may have become easy; a first
        fixpoint's candidate that fails then is dropped for good."""
        retry: List = []
        for second in (False, True):
            for _ in range(MAX_ROUNDS):
                inv_terms = [c for _, c in user + cands]
                self.probing += 1
                try:
                    body_state = State(dict(head.vals), head.facts + inv_terms + [g1, g2],
                                       head.cost)
                    _, end = self.rule_seq(list(w.body), body_state)
                finally:
                    self.probing -= 1
                back = self.back_map(carried, head, end, has_cost)
                kept = []
                for d, c in cands:
                    verdict = self.probe(end.facts, T.substitute(c, back))
                    if verdict == Verdict.VERIFIED:
                        kept.append((d, c))
                    elif verdict == Verdict.UNKNOWN and not second:
                        retry.append((d, c))
                if len(kept) == len(cands):
                    break
                cands = kept
            if second or not retry:
                break
            cands = cands + [dc for dc in retry if dc not in cands]
        return cands

    def back_map(self, carried, head: State, end: State, has_cost: bool) -> Dict[T.Var, T.Term]:
        back: Dict[T.Var, T.Term] = {}
        for x in carried:
            if x not in end.vals:
                raise NoRule(f"{x} may be unassigned at the end of the loop body", None)
            back[head.vals[x][0]] = end.vals[x][0]
            back[head.vals[x][1]] = end.vals[x][1]
        if has_cost:
            back[head.cost] = end.cost
        return back

    def choose_variant(self, w: W.While, head: State, inv, g1, carried, has_cost):
        side: List = []
        if w.variant is not None:
            return self.expr(w.variant, head, 1, side)
        cands = []
        # a conjunct's bound: the guard implies each of its conjuncts (i < size q && cnt < c:
        # size q - i and c - cnt are candidates)
        for c in _split_and(w.cond):
            if not (isinstance(c, W.BinOp) and c.op in ("<", "<=", ">", ">=")):
                continue
            lo, hi = (c.left, c.right) if c.op in ("<", "<=") else (c.right, c.left)
            try:
                a = self.expr(lo, head, 1, [])
                b = self.expr(hi, head, 1, [])
            except NoRule:
                continue
            if a.sort == T.INT and b.sort == T.INT:
                diff = T.sub(b, a)
                cands.append(T.add(diff, 1) if c.op in ("<=", ">=") else diff)
        for v in cands:
            self.probing += 1
            try:
                body_state = State(dict(head.vals), head.facts + inv + [g1], head.cost)
                g2 = self.expr(w.cond, head, 2, [])
                body_state.facts.append(g2)
                _, end = self.rule_seq(list(w.body), body_state)
            finally:
                self.probing -= 1
            back = self.back_map(carried, head, end, has_cost)
            if self.holds(body_state.facts, T.gt(v, 0)) and \
                    self.holds(end.facts, T.lt(T.substitute(v, back), v)):
                return v
        return None

    def pointwise_candidates(self, st: State, head: State, carried, counters, has_cost, w,
                             backwards=()):
        """Candidate invariants under the Pointwise rule (v the output value, i a counter, x0
        a variable's value on entry): ``x<1> = v => x<2> = v``; ``x`` unchanged in run 1
        while the counter has not passed v (or v is the entry value) keeps it unchanged in run
        2; ``x`` is its entry value or a value the counter passed; a flag or a number keeps
        its entry value until the first iteration only (``first := false``, ``best := -1``);
        two values compared within 1 before v, equal up to 1 after v when ``x<1>`` is v; and
        the cost spent once, at the iteration ``i = v``. ``counters`` count up,
        ``backwards`` down (a scan from the last position: "passed v" is then ``i < v``)."""
        v = self.pointwise
        out: List[Tuple[str, T.Term]] = []
        loops = [(i, False) for i in counters] + [(i, True) for i in backwards]
        if v.sort != T.INT:
            # the shapes comparing a counter with v are for an index output
            loops = []

        def before(hi: T.Term, back: bool) -> T.Term:   # the counter has not passed v
            return T.ge(hi, v) if back else T.le(hi, v)

        def after(hi: T.Term, back: bool) -> T.Term:    # it has
            return T.lt(hi, v) if back else T.lt(v, hi)

        for x in carried:
            h1, h2 = head.vals[x]
            e1, e2 = st.vals[x]
            for i, back in loops:
                if h1.sort == T.BOOL or (h1.sort == T.INT and h1.sort == v.sort):
                    # a flag (first := false) or a number (best := -1) set at the first
                    # iteration
                    for r in (0, 1):
                        out.append((f"{x} keeps its entry value until the first "
                                    "iteration only",
                                    T.eq(T.eq(head.vals[x][r], st.vals[x][r]),
                                         T.eq(head.vals[i][r], st.vals[i][r]))))
            if h1.sort == v.sort:
                out.append((f"{x}<1> = v => {x}<2> = v", T.implies(T.eq(h1, v), T.eq(h2, v))))
                for i, back in loops:
                    hi = head.vals[i][0]
                    out.append((f"{x} is set in run 2 only once run 1's counter passed v",
                                T.implies(T.and_(T.eq(h1, e1),
                                                 T.or_(before(hi, back), T.eq(v, e1))),
                                          T.eq(h2, e2))))
                    if h1.sort == T.INT:
                        passed = T.gt if back else T.lt
                        for r in (0, 1):
                            out.append((f"{x} is its entry value or one {i} passed",
                                        T.or_(T.eq(head.vals[x][r], st.vals[x][r]),
                                              passed(head.vals[x][r], head.vals[i][r]))))
                            # set at the first iteration (best := 0 with a flag first)
                            out.append((f"{x} is its entry value before the first iteration "
                                        f"only, then one {i} passed",
                                        T.or_(T.and_(T.eq(head.vals[x][r], st.vals[x][r]),
                                                     T.eq(head.vals[i][r], st.vals[i][r])),
                                              passed(head.vals[x][r], head.vals[i][r]))))
        for y in carried:
            y1, y2 = head.vals[y]
            if y1.sort != T.REAL:
                continue
            # an argmax keeps the largest value (run 2's within 1 above run 1's, then 1 above
            # once v is kept); an argmin the smallest: the mirror image, 1 below
            for sign, le, ge in ((1, T.le, T.ge), (-1, T.ge, T.le)):
                up = T.add(y1, sign)
                s = "+ 1" if sign > 0 else "- 1"
                for i, back in loops:
                    hi = head.vals[i][0]
                    out.append((f"{y}<2> {'<=' if sign > 0 else '>='} {y}<1> {s} until the "
                                "counter passes v", T.implies(before(hi, back), le(y2, up))))
                    for x in carried:
                        if head.vals[x][0].sort != v.sort or x == y:
                            continue
                        set_v = T.and_(after(hi, back), T.eq(head.vals[x][0], v))
                        out.append((f"{y}<2> = {y}<1> {s} after v when {x}<1> = v",
                                    T.implies(set_v, T.eq(y2, up))))
                        # the same, when the draw was shifted by more than the gap (noise
                        # centred on 0 and added to the answer: the answer moves by up to 1)
                        out.append((f"{y}<2> {'>=' if sign > 0 else '<='} {y}<1> {s} after v "
                                    f"when {x}<1> = v", T.implies(set_v, ge(y2, up))))
                        # the same when v may be x's entry value (best := -1): x<1> = v then
                        # says that x was set at the iteration v only when v is not that value
                        set_at_v = T.and_(after(hi, back), T.eq(head.vals[x][0], v),
                                          T.ne(v, st.vals[x][0]))
                        # or once an iteration ran (a scan down from the last position
                        # passes v = 0 on an empty list, where x keeps its entry value 0)
                        ran = T.and_(after(hi, back), T.eq(head.vals[x][0], v),
                                     T.ne(hi, st.vals[i][0]))
                        for rel in (T.eq, ge):
                            out.append((f"{y}<2> = {y}<1> {s} after v when {x}<1> = v is not "
                                        f"{x}'s entry value",
                                        T.implies(set_at_v, rel(y2, up))))
                            out.append((f"{y}<2> = {y}<1> {s} after v when {x}<1> = v, once "
                                        "an iteration ran", T.implies(ran, rel(y2, up))))
        if has_cost:
            unit = self.cost_unit(w, st)
            if unit is not None:
                for i, back in loops:
                    i0, hi = st.vals[i][0], head.vals[i][0]
                    inside = T.and_(T.lt(hi, v), T.le(v, i0)) if back else \
                        T.and_(T.le(i0, v), T.lt(v, hi))
                    for m in (1, 2):
                        out.append(("the cost is spent once, at the iteration v",
                                    T.le(head.cost, T.add(st.cost, T.ite(inside, T.mul(m, unit),
                                                                         T.real(0))))))
        return out

    def effect_sum_candidates(self, w: W.While, st: State, head: State, carried, counters,
                              backwards) -> List[Tuple[str, T.Term]]:
        """Running sums whose summand is not written as ``x := x + e`` (``if d[i] > 0 then
        c := c + 1 end``, a branch per bin): the summand of a carried number ``x`` is what one
        iteration adds to it, computed by deriving the body (probing) from the head with ``x``
        at 0 — kept only when it reads no other carried variable than the counter. The
        candidate is the running sum's (the runs differ by what the differing position added);
        like every candidate it is kept only when it holds on entry and the body preserves
        it (a summand that is not additive, ``x := 2 * x + 1``, is then dropped)."""
        out: List[Tuple[str, T.Term]] = []
        loops = counters + backwards
        for x in carried:
            h1, h2 = head.vals[x]
            if x in loops or not h1.sort.is_numeric:
                continue
            zero = T.real(0) if h1.sort == T.REAL else T.integer(0)
            probe = State(dict(head.vals), head.facts, head.cost)
            probe.vals[x] = (zero, zero)
            self.probing += 1
            try:
                _, end = self.rule_seq(list(w.body), probe)
            except (NoRule, T.SortError):
                continue
            finally:
                self.probing -= 1
            if x not in end.vals:
                continue
            d = end.vals[x]
            for i, back in [(i, False) for i in counters] + [(i, True) for i in backwards]:
                others = {head.vals[y][r] for y in carried if y != i for r in (0, 1)}
                if set(T.free_vars(d[0], d[1])) & others:
                    continue
                for sk in self.skolems:
                    for o, a in read_offsets(w, i, sk.list_name, back):
                        # the iteration whose counter is h at the head reads position h + o + a
                        at = _offset(sk.j, -(o + a))
                        sub = {head.vals[i][0]: at, head.vals[i][1]: at}
                        d1, d2 = T.substitute(d[0], sub), T.substitute(d[1], sub)
                        inside = self.passed(st, head, i, sk, o + a, back)
                        delta = T.ite(inside, T.sub(d1, d2), zero)
                        out.append((f"the running sum {x} (its summand derived from the body) "
                                    f"differs by the position {sk.list_name}'j",
                                    T.eq(T.sub(h1, h2),
                                         T.add(T.sub(st.vals[x][0], st.vals[x][1]), delta))))
        return out

    def cost_unit(self, w: W.While, st: State) -> Optional[T.Term]:
        """The sum of ``1 / b`` over the loop's Lap statements (None when a scale changes in
        the loop)."""
        modified = set(names_assigned(w.body))
        per: List[T.Term] = []
        for smp in samples_in(w.body):
            if {n.name for n in W.names_of(smp.scale)} & modified:
                return None
            try:
                per.append(T.div(1, self.expr(smp.scale, st, 1, [])))
            except NoRule:
                return None
        if not per:
            return None
        return per[0] if len(per) == 1 else T.add(*per)

    def candidates(self, w: W.While, st: State, head: State, carried, has_cost, entry_map):
        """Candidate invariants of the common shapes (docs/aprhl.md): equal in both runs,
        counters and their bounds, running sums over an adjacent list, lists built by ++, and
        the cost spent so far (per-iteration cost times the iterations, or once for the one
        position where adjacent lists differ)."""
        out: List[Tuple[str, T.Term]] = []
        top = {}
        for s in w.body:
            if isinstance(s, W.Assign):
                top.setdefault(s.target, []).append(s)
        counts: Dict[str, int] = {}
        for x in names_assigned(w.body):
            counts[x] = 0
        _count_assignments(w.body, counts)
        counters = loop_counters(w, carried, head)
        backwards = loop_counters(w, carried, head, down=True)
        for x in carried:
            h1, h2 = head.vals[x]
            out.append((f"{x}<1> = {x}<2>", T.eq(h1, h2)))
        modified = set(names_assigned(w.body))
        if self.pointwise is not None:
            out += self.pointwise_candidates(st, head, carried, counters, has_cost, w,
                                             backwards)
        steps = step_counters(w, carried, head)
        downs = step_counters(w, carried, head, down=True)
        ups = counters + [x for x in steps if x not in counters]
        for i, up in [(i, True) for i in ups] + [(i, False) for i in downs]:
            # the count moves one way; it stays within a bound the guard states (i < e, a
            # conjunct) or that it is compared with (if cnt = c then done := true), which the
            # loop does not change
            toward = T.ge if up else T.le
            for r in (0, 1):
                out.append((f"{i} does not {'decrease' if up else 'increase'}",
                            toward(head.vals[i][r], st.vals[i][r])))
            for bound in self.compared_bounds(w, i, head, modified, up=up):
                for r in (0, 1):
                    out.append((f"{i} stays within a bound it is compared with",
                                toward(bound[r], head.vals[i][r])))
        out += self.flag_candidates(w, head, carried)
        out += self.budget_candidates(w, st, head, carried, modified, has_cost)
        for x in carried:
            if counts.get(x) != 1 or len(top.get(x, [])) != 1 or x in counters + backwards:
                continue
            e = top[x][0].value
            h1, h2 = head.vals[x]
            summand = _summand(e, x)
            if summand is not None and h1.sort.is_numeric:
                # a running sum: the runs differ by what the differing position added
                rest = {n.name for n in W.names_of(summand)}
                for i, back in [(i, False) for i in counters] + [(i, True) for i in backwards]:
                    if (rest - {i}) & modified:
                        continue
                    for sk in self.skolems:
                        for o, a in read_offsets(w, i, sk.list_name, back):
                            # the summand reads position j when the counter is j - o there
                            try:
                                st_j = State(dict(st.vals), st.facts, st.cost)
                                at = _offset(sk.j, -o)
                                st_j.vals[i] = (at, at)
                                d1 = self.expr(summand, st_j, 1, [])
                                d2 = self.expr(summand, st_j, 2, [])
                            except NoRule:
                                continue
                            inside = self.passed(st, head, i, sk, o + a, back)
                            delta = T.ite(inside, T.sub(d1, d2),
                                          T.real(0) if h1.sort == T.REAL else T.integer(0))
                            out.append((f"the running sum {x} differs by the position "
                                        f"{sk.list_name}'j",
                                        T.eq(T.sub(h1, h2),
                                             T.add(T.sub(st.vals[x][0], st.vals[x][1]), delta))))
            if isinstance(e, W.BinOp) and e.op == "++" and isinstance(e.left, W.Name) and \
                    e.left.name == x and isinstance(e.right, W.ListLit) and WL.elem_key(h1.sort):
                for i in counters:
                    for r in (0, 1):
                        grow = T.mul(len(e.right.items), T.sub(head.vals[i][r], st.vals[i][r]))
                        out.append((f"{x} grows with {i}", T.eq(WL.length(head.vals[x][r]),
                                                             T.add(WL.length(st.vals[x][r]), grow))))
        if self.onesided:
            out += self.effect_sum_candidates(w, st, head, carried, counters, backwards)
        if has_cost:
            c0 = st.cost
            out.append(("no cost", T.le(head.cost, c0)))
            per: List[T.Term] = []
            ok = True
            for smp in samples_in(w.body):
                if {n.name for n in W.names_of(smp.scale)} & modified:
                    ok = False
                    break
                try:
                    per.append(T.div(1, self.expr(smp.scale, st, 1, [])))
                except NoRule:
                    ok = False
            if ok and per:
                unit = per[0] if len(per) == 1 else T.add(*per)
                scales = [T.integer(1), T.integer(2)] + [sk.bound for sk in self.skolems
                                                          if sk.bound is not None]
                for i in counters:
                    n_iter = T.sub(head.vals[i][0], st.vals[i][0])
                    for m in scales:
                        out.append((f"the cost grows by at most {T.pretty(T.mul(m, unit))} per iteration",
                                    T.le(head.cost, T.add(c0, T.mul(m, unit, n_iter)))))
                for i, back in [(i, False) for i in counters] + [(i, True) for i in backwards]:
                    for sk in self.skolems:
                        insides = [self.passed(st, head, i, sk, o + a, back)
                                   for o, a in read_offsets(w, i, sk.list_name, back)]
                        for inside in insides:
                            for m in scales:
                                out.append((f"the cost is spent once, at the position "
                                            f"{sk.list_name}'j",
                                            T.le(head.cost, T.add(c0, T.ite(inside, T.mul(m, unit),
                                                                            T.real(0))))))
                            out += self.potential_candidates(st, head, carried, c0, per, unit,
                                                             scales, inside, sk)
                        if len(insides) > 1:
                            # the position is read by several iterations (q[i - 1] + q[i]: a
                            # window): the cost is spent at each iteration that reads it
                            spent = [T.ite(inside, unit, T.real(0)) for inside in insides]
                            out.append((f"the cost is spent at each iteration that reads the "
                                        f"position {sk.list_name}'j",
                                        T.le(head.cost, T.add(c0, *spent))))
                for x in steps:
                    if x in counters:
                        continue
                    # the cost is charged only on the iterations that count x up (Lap-Case:
                    # the sparse vector technique pays for its "above" answers only)
                    n_up = T.sub(head.vals[x][0], st.vals[x][0])
                    for u in _weighted_units(per):
                        out.append((f"the cost grows by at most {T.pretty(u)} each time {x} "
                                    "counts up",
                                    T.le(head.cost, T.add(c0, T.mul(u, n_up)))))
                for x in downs:
                    # the same for a count down (left := left - 1 on each answer above)
                    n_down = T.sub(st.vals[x][0], head.vals[x][0])
                    for u in _weighted_units(per):
                        out.append((f"the cost grows by at most {T.pretty(u)} each time {x} "
                                    "counts down",
                                    T.le(head.cost, T.add(c0, T.mul(u, n_down)))))
                out += self.stop_candidates(w, head, c0, per, set(carried), set(top),
                                            set(counters + backwards + steps + downs), modified)
                if self.skolems and counters:
                    out.append(("the cost does not decrease", T.ge(head.cost, c0)))
        return out

    def stop_candidates(self, w: W.While, head: State, c0: T.Term, per: List[T.Term],
                        carried: set, top: set, counts: set, modified: set
                        ) -> List[Tuple[str, T.Term]]:
        """A conjunct ``g`` of the guard over variables the loop assigns only inside an
        ``if`` (no count): a stop flag, ``while i < size q && found < 0`` with ``found := i``
        on an answer above. The cost is spent once, on the iteration that makes ``g`` false
        (Lap-Case: AboveThreshold pays for its one answer above): while ``g`` holds at the head
        nothing was spent, and at most one unit ``u`` ever: ``cost <= cost0 + (if g then 0
        else u)``, ``g`` read in run 1 at the head."""
        out: List[Tuple[str, T.Term]] = []
        for conj in _split_and(w.cond):
            names = {n.name for n in W.names_of(conj)}
            stops = {x for x in names & carried & modified if x not in top and x not in counts}
            if not stops or (names - stops) & modified:
                continue
            try:
                holds = self.expr(conj, head, 1, [])
            except NoRule:
                continue
            if holds.sort != T.BOOL:
                continue
            for u in _weighted_units(per):
                out.append((f"the cost grows by at most {T.pretty(u)}, once, on the iteration "
                            f"that makes {W.pretty_expr(conj)} false",
                            T.le(head.cost, T.add(c0, T.ite(holds, T.real(0), u)))))
        return out

    @staticmethod
    def passed(st: State, head: State, i: str, sk: Skolem, delta: int, back: bool = False
               ) -> T.Term:
        """The iterations so far (run 1's counter ``i`` from its entry value to its value at
        the head) include the one that reads the differing position ``sk.j``: the iteration
        whose counter is ``h`` at the head reads position ``h + delta``. ``back``: the counter
        counts down."""
        at = _offset(sk.j, -delta)
        if back:
            return T.and_(T.lt(head.vals[i][0], at), T.le(at, st.vals[i][0]))
        return T.and_(T.le(st.vals[i][0], at), T.lt(at, head.vals[i][0]))

    def compared_bounds(self, w: W.While, x: str, head: State, modified, up: bool
                        ) -> List[Tuple[T.Term, T.Term]]:
        """The bounds (a term per run) a count ``x`` may keep to: for each comparison of ``x``
        with an expression ``e`` the loop does not assign, in its guard or the guards of its
        ``if`` statements, ``e`` (``x = e``, ``x < e``, ``x >= e``; for a count down ``x > e``,
        ``x <= e``) or ``e`` moved by one (the other comparisons)."""
        exact = ("=", "<", ">=") if up else ("=", ">", "<=")
        flip = {"<": ">", ">": "<", "<=": ">=", ">=": "<=", "=": "="}
        out: List[Tuple[T.Term, T.Term]] = []
        for c in _comparisons([w.cond] + _if_guards(w.body)):
            op, other = None, None
            if isinstance(c.left, W.Name) and c.left.name == x:
                op, other = c.op, c.right
            elif isinstance(c.right, W.Name) and c.right.name == x:
                op, other = flip.get(c.op), c.left
            if op not in flip or {n.name for n in W.names_of(other)} & modified:
                continue
            try:
                pair = tuple(self.expr(other, head, r, []) for r in (1, 2))
            except NoRule:
                continue
            if any(t.sort != T.INT for t in pair):
                continue
            if op not in exact:
                pair = tuple(T.add(t, 1) if up else T.sub(t, 1) for t in pair)
            if pair not in out:
                out.append(pair)
        return out

    def budget_candidates(self, w: W.While, st: State, head: State, carried, modified,
                          has_cost: bool) -> List[Tuple[str, T.Term]]:
        """A number ``x`` the loop only increases, by ``x := x + e`` (``e`` the same at every
        iteration; in branches or not): the program's own account of the budget spent
        (Adaptive SVT's ``spent``). The cost grows by at most what ``x`` grows (``cost -
        x<1>`` at most its entry value), and ``x`` stays below each bound ``B`` of the guard
        (``x <= B``, ``x < B``, a conjunct) plus one of its increments."""
        out: List[Tuple[str, T.Term]] = []
        for x in carried:
            h1 = head.vals[x][0]
            steps = _increments(w.body, x)
            if not steps or not h1.sort.is_numeric or \
                    any({n.name for n in W.names_of(e)} & modified for e in steps):
                continue
            if has_cost:
                out.append((f"the cost grows by at most what {x} grows",
                            T.le(T.sub(head.cost, h1), T.sub(st.cost, st.vals[x][0]))))
            for c in _split_and(w.cond):
                if not (isinstance(c, W.BinOp) and c.op in ("<", "<=") and
                        isinstance(c.left, W.Name) and c.left.name == x and
                        not ({n.name for n in W.names_of(c.right)} & modified)):
                    continue
                for e in steps:
                    try:
                        bound = [T.add(self.expr(c.right, head, r, []), self.expr(e, head, r, []))
                                 for r in (1, 2)]
                    except NoRule:
                        continue
                    for r in (0, 1):
                        out.append((f"{x} stays within the guard's bound plus one increment",
                                    T.le(head.vals[x][r], bound[r])))
        out += self.remaining_candidates(w, st, head, carried, modified, has_cost)
        return out

    def remaining_candidates(self, w: W.While, st: State, head: State, carried, modified,
                             has_cost: bool) -> List[Tuple[str, T.Term]]:
        """The mirror image of ``budget_candidates``: a number ``x`` the loop only decreases,
        by ``x := x - e``, the budget that *remains* (Adaptive SVT with ``remaining``). The
        cost grows by at most what ``x`` loses (``cost + x<1>`` at most its entry value), and
        ``x`` stays above each bound ``B`` of the guard (``x >= B``, ``x > B``, ``B <= x``,
        ``B < x``) minus one of its decrements."""
        out: List[Tuple[str, T.Term]] = []
        for x in carried:
            h1 = head.vals[x][0]
            steps = _increments(w.body, x, "-")
            if not steps or not h1.sort.is_numeric or \
                    any({n.name for n in W.names_of(e)} & modified for e in steps):
                continue
            if has_cost:
                out.append((f"the cost grows by at most what {x} loses",
                            T.le(T.add(head.cost, h1), T.add(st.cost, st.vals[x][0]))))
            for c in _split_and(w.cond):
                if not (isinstance(c, W.BinOp) and c.op in (">", ">=", "<", "<=")):
                    continue
                mine, other = (c.left, c.right) if c.op in (">", ">=") else (c.right, c.left)
                if not (isinstance(mine, W.Name) and mine.name == x and
                        not ({n.name for n in W.names_of(other)} & modified)):
                    continue
                for e in steps:
                    try:
                        bound = [T.sub(self.expr(other, head, r, []), self.expr(e, head, r, []))
                                 for r in (1, 2)]
                    except NoRule:
                        continue
                    for r in (0, 1):
                        out.append((f"{x} stays above the guard's bound minus one decrement",
                                    T.ge(head.vals[x][r], bound[r])))
        return out

    def flag_candidates(self, w: W.While, head: State, carried) -> List[Tuple[str, T.Term]]:
        """A boolean ``f`` the loop sets only by ``f := true`` under the guard ``g`` of an
        ``if`` (a "done" flag, ``if cnt = c then done := true``): while ``f`` is false, ``g``
        does not hold (``not f => not g``, in each run, ``g`` at the loop's head)."""
        out: List[Tuple[str, T.Term]] = []
        for f in carried:
            if head.vals[f][0].sort != T.BOOL:
                continue
            guards = _setting_guards(w.body, f)
            if guards is None:
                continue
            for g in guards:
                try:
                    terms = [T.implies(T.not_(head.vals[f][r - 1]),
                                       T.not_(self.expr(g, head, r, []))) for r in (1, 2)]
                except (NoRule, T.SortError):
                    continue
                out.append((f"{f} is set once {W.pretty_expr(g)} holds", T.and_(*terms)))
        return out

    def potential_candidates(self, st: State, head: State, carried, c0, per, unit, scales,
                             inside, sk) -> List[Tuple[str, T.Term]]:
        """The cost spent once at the differing position, part of it *owed* by a carried
        number ``x`` until a later ``Lap`` releases it (SmartSum's block sum): ``cost + k |x<1> -
        x<2>|`` (``k`` the ``1 / b`` of a ``Lap`` of the loop) bounded by its value on entry plus
        ``m`` times the loop's per-iteration unit once the position is passed."""
        out: List[Tuple[str, T.Term]] = []
        for x in carried:
            h1, h2 = head.vals[x]
            if h1.sort not in (T.REAL, T.INT):
                continue
            e1, e2 = st.vals[x]
            for k in dict.fromkeys(per):
                for m in scales:
                    owed = T.mul(k, T.abs_(T.sub(h1, h2)))
                    before = T.add(c0, T.mul(k, T.abs_(T.sub(e1, e2))))
                    out.append((f"the cost, with {x}'s difference owed, is spent once at the "
                                f"position {sk.list_name}'j",
                                T.le(T.add(head.cost, owed),
                                     T.add(before, T.ite(inside, T.mul(m, unit), T.real(0))))))
        return out


def loop_counters(w: W.While, carried, head: State, down: bool = False) -> List[str]:
    """The counters of a loop: int variables assigned once, at the top of the body, by
    ``x := x + 1`` (``down``: by ``x := x - 1``, a loop over the positions backwards)."""
    top: Dict[str, List] = {}
    for s in w.body:
        if isinstance(s, W.Assign):
            top.setdefault(s.target, []).append(s)
    counts: Dict[str, int] = {x: 0 for x in names_assigned(w.body)}
    _count_assignments(w.body, counts)
    out = []
    for x in carried:
        if counts.get(x) == 1 and len(top.get(x, [])) == 1:
            e = top[x][0].value
            if isinstance(e, W.BinOp) and e.op == ("-" if down else "+") and \
                    isinstance(e.left, W.Name) and e.left.name == x and \
                    isinstance(e.right, W.Num) and e.right.value == 1 and \
                    head.vals[x][0].sort == T.INT:
                out.append(x)
    return out


def step_counters(w: W.While, carried, head: State, down: bool = False) -> List[str]:
    """The int variables a loop body assigns once, by ``x := x + 1``, at the top or in a
    branch (so they count up by at most 1 per iteration: a loop's counter, or a count of the
    iterations that take a branch); ``down``: by ``x := x - 1`` (a count down)."""
    counts: Dict[str, int] = {x: 0 for x in names_assigned(w.body)}
    _count_assignments(w.body, counts)
    out = []
    for x in carried:
        if counts.get(x) != 1 or head.vals[x][0].sort != T.INT:
            continue
        e = _assignment_of(w.body, x)
        if isinstance(e, W.BinOp) and e.op == ("-" if down else "+") and \
                isinstance(e.left, W.Name) and e.left.name == x and isinstance(e.right, W.Num) \
                and e.right.value == 1:
            out.append(x)
    return out


def read_offsets(w: W.While, i: str, name: str, back: bool = False) -> List[Tuple[int, int]]:
    """How the body of a loop with counter ``i`` reads the list ``name``: a pair ``(o, a)``
    for each way, ``name[i + o]`` (``o`` an integer literal, ``name[i]``: 0) read after the
    counter's increment (``a`` = 1: a top-level ``i := i + 1`` comes first) or before it (0);
    the iteration whose counter is ``h`` at the head reads position ``h + o + a`` (``back``:
    a counter counting down, ``a`` = -1). ``[(0, 0)]`` when the body reads the list otherwise
    or not at all."""
    out: List[Tuple[int, int]] = []
    a = 0
    for s in w.body:
        for e in _indexes(s):
            if not (isinstance(e.array, W.Name) and e.array.name == name):
                continue
            k = e.index
            o = None
            if isinstance(k, W.Name) and k.name == i:
                o = 0
            elif isinstance(k, W.BinOp) and k.op in ("+", "-") and isinstance(k.left, W.Name) \
                    and k.left.name == i and isinstance(k.right, W.Num) and k.right.is_int:
                o = int(k.right.value) * (1 if k.op == "+" else -1)
            if o is not None and (o, a) not in out:
                out.append((o, a))
        if isinstance(s, W.Assign) and s.target == i:
            a = -1 if back else 1
    return out or [(0, 0)]


def _indexes(node) -> List:
    """The ``d[e]`` sub-expressions of a statement or expression (not in nested loops)."""
    out: List = []
    if isinstance(node, W.Index):
        out.append(node)
    if isinstance(node, W.While):
        return out
    for f in ("left", "right", "arg", "array", "index", "value", "scale", "center", "cond"):
        sub = getattr(node, f, None)
        if sub is not None and not isinstance(sub, (str, int, bool)):
            out += _indexes(sub)
    for f in ("items", "args", "then", "else_"):
        for sub in getattr(node, f, ()) or ():
            out += _indexes(sub)
    return out


def _offset(t: T.Term, k: int) -> T.Term:
    return t if k == 0 else T.add(t, T.integer(k))


def _increments(stmts, x: str, op: str = "+") -> Optional[List]:
    """The ``e`` of every assignment ``x := x + e`` in ``stmts`` (outside nested loops; in
    branches or not); None when ``x`` is assigned otherwise, or in a nested loop, or never.
    With ``op = "-"``: of every ``x := x - e`` (an account the loop only decreases)."""
    out: List = []
    for s in stmts:
        if isinstance(s, W.Sample) and s.target == x:
            return None
        if isinstance(s, W.While) and x in names_assigned(s.body):
            return None
        if isinstance(s, W.Assign) and s.target == x:
            e = s.value
            if not (isinstance(e, W.BinOp) and e.op == op and isinstance(e.left, W.Name) and
                    e.left.name == x):
                return None
            out.append(e.right)
        if isinstance(s, W.If):
            for side in (s.then, s.else_):
                if x in names_assigned(side):
                    more = _increments(side, x, op)
                    if more is None:
                        return None
                    out += more
    return out or None


def _if_guards(stmts) -> List:
    """The guards of the ``if`` statements in ``stmts`` (not in nested loops)."""
    out: List = []
    for s in stmts:
        if isinstance(s, W.If):
            out += [s.cond] + _if_guards(s.then) + _if_guards(s.else_)
    return out


def _comparisons(exprs) -> List:
    """The comparisons (``=``, ``<``, ``<=``, ``>``, ``>=``) in boolean expressions, through
    ``&&``, ``||`` and ``not``."""
    out: List = []
    for e in exprs:
        if isinstance(e, W.BinOp) and e.op in ("&&", "||"):
            out += _comparisons([e.left, e.right])
        elif isinstance(e, W.UnOp) and e.op == "not":
            out += _comparisons([e.arg])
        elif isinstance(e, W.BinOp) and e.op in ("=", "<", "<=", ">", ">="):
            out.append(e)
    return out


def _setting_guards(stmts, f: str) -> Optional[List]:
    """The guards of the ``if`` statements under which ``stmts`` set ``f := true`` (their
    *then* side; an *else* side's set is under ``not g``); None when ``f`` is assigned
    anything else, or outside an ``if``, or in a nested loop."""
    out: List = []
    for s in stmts:
        if isinstance(s, (W.Assign, W.Sample)) and s.target == f:
            return None
        if isinstance(s, W.While) and f in names_assigned(s.body):
            return None
        if isinstance(s, W.If):
            for side, g in ((s.then, s.cond), (s.else_, W.UnOp("not", s.cond, s.cond.span))):
                direct = [t for t in side if isinstance(t, W.Assign) and t.target == f]
                if any(not (isinstance(t.value, W.BoolLit) and t.value.value) for t in direct):
                    return None
                rest = _setting_guards([t for t in side if t not in direct], f)
                if rest is None:
                    return None
                out += ([g] if direct else []) + rest
    return out


def _weighted_units(per: List[T.Term]) -> List[T.Term]:
    """The sums ``m_1 / b_1 + ... + m_k / b_k`` over a loop's Lap statements, each ``m_j`` 1
    or 2 (a shift by at most 1 or 2 of each draw; all 2^k sums for up to 3 draws, else the
    uniform ones)."""
    if len(per) > 3:
        weights = [(m,) * len(per) for m in (1, 2)]
    else:
        weights = list(itertools.product((1, 2), repeat=len(per)))
    out = []
    for ws in weights:
        parts = [T.mul(m, u) for m, u in zip(ws, per)]
        out.append(parts[0] if len(parts) == 1 else T.add(*parts))
    return out


def _assignment_of(stmts, x: str):
    """The value of the (only) assignment to ``x`` in ``stmts`` outside nested loops."""
    for s in stmts:
        if isinstance(s, W.Assign) and s.target == x:
            return s.value
        if isinstance(s, W.If):
            e = _assignment_of(s.then, x) or _assignment_of(s.else_, x)
            if e is not None:
                return e
    return None


def _summand(e, x: str) -> Optional[W.Expr]:
    """``d`` of a running sum's step ``x + d`` or ``d + x`` (``d`` not reading ``x``), else None."""
    if not (isinstance(e, W.BinOp) and e.op == "+"):
        return None
    for mine, other in ((e.left, e.right), (e.right, e.left)):
        if isinstance(mine, W.Name) and mine.name == x and mine.run is None and \
                x not in {n.name for n in W.names_of(other)}:
            return other
    return None


def addends(stmts) -> Dict[Tuple[int, int], W.Expr]:
    """For each draw ``x := $ Lap (b, e)`` without a written shift: the expression ``X`` of the
    first ``X + x`` (or ``x + X``, ``X`` not reading ``x``) that the statements after it in its
    block read, nested blocks included, before ``x`` is assigned again — noise drawn around
    ``e`` and *added* to ``X``, as CheckDP and ShadowDP write their benchmarks (``eta := $ Lap
    (b, 0); if q[i] + eta >= th``). The shift templates of such a draw are taken around the
    effective centre ``e + X`` (``Builder.rule_lap``). A heuristic of the search only: any
    shift that is a function of the state before the draw is a coupling the kernel re-derives
    and charges, so a wrong ``X`` can only cost a proof."""
    out: Dict[Tuple[int, int], W.Expr] = {}

    def block(ss) -> None:
        ss = list(ss)
        for j, s in enumerate(ss):
            if isinstance(s, W.Sample) and s.shift is None:
                found = _first_addend(ss[j + 1:], s.target)
                if found is not None:
                    out[(s.span.line, s.span.col)] = found
            if isinstance(s, W.If):
                block(s.then)
                block(s.else_)
            elif isinstance(s, W.While):
                block(s.body)
    block(stmts)
    return out


def _first_addend(stmts, name: str) -> Optional[W.Expr]:
    for s in stmts:
        exprs = {W.Assign: lambda: [s.value], W.Sample: lambda: [s.scale, s.center],
                 W.Return: lambda: [s.value], W.If: lambda: [s.cond],
                 W.While: lambda: [s.cond]}.get(type(s), lambda: [])()
        for e in exprs:
            found = _addend_in(e, name)
            if found is not None:
                return found
        if isinstance(s, (W.Assign, W.Sample)) and s.target == name:
            return None
        for sub in ((s.then, s.else_) if isinstance(s, W.If) else
                    (s.body,) if isinstance(s, W.While) else ()):
            found = _first_addend(sub, name)
            if found is not None:
                return found
        if isinstance(s, (W.If, W.While)) and name in _assigned_in(s):
            return None
    return None


def _addend_in(e, name: str) -> Optional[W.Expr]:
    if isinstance(e, W.BinOp) and e.op == "+":
        for mine, other in ((e.left, e.right), (e.right, e.left)):
            if isinstance(mine, W.Name) and mine.name == name and mine.run is None and \
                    name not in {n.name for n in W.names_of(other)}:
                return other
    for child in (getattr(e, f, None) for f in ("left", "right", "arg", "array", "index")):
        if child is not None:
            found = _addend_in(child, name)
            if found is not None:
                return found
    for f in ("items", "args"):
        for child in getattr(e, f, ()) or ():
            found = _addend_in(child, name)
            if found is not None:
                return found
    return None


def _assigned_in(s) -> set:
    out = set()
    for x in ((s.then + s.else_) if isinstance(s, W.If) else s.body if isinstance(s, W.While) else ()):
        if isinstance(x, (W.Assign, W.Sample)):
            out.add(x.target)
        elif isinstance(x, (W.If, W.While)):
            out |= _assigned_in(x)
    return out


def case_group(stmts, n: int) -> Optional[int]:
    """The position ``m`` of the ``if`` that Lap-Case (``Builder.rule_lap_case``) may couple
    with the ``Lap`` without a written shift at ``n``: the draw, then assignments only (not to
    the draw's variable), then an ``if`` whose guard reads the draw or a variable those
    assignments set (``gap := x - th; if gap >= 0``); None when there is no such ``if``."""
    s = stmts[n]
    if not (isinstance(s, W.Sample) and s.shift is None):
        return None
    m = n + 1
    while m < len(stmts) and isinstance(stmts[m], W.Assign):
        m += 1
    if m >= len(stmts) or not isinstance(stmts[m], W.If):
        return None
    set_between = {a.target for a in stmts[n + 1:m]}
    if s.target in set_between:
        return None
    reads = {x.name for x in W.names_of(stmts[m].cond)}
    return m if reads & ({s.target} | set_between) else None


def deterministic(stmts) -> bool:
    """No sampling and no loop in ``stmts`` (assignments, skip and ifs only)."""
    for s in stmts:
        if isinstance(s, (W.Sample, W.While, W.Return)):
            return False
        if isinstance(s, W.If) and not (deterministic(s.then) and deterministic(s.else_)):
            return False
    return True


def discrete_output(proc: W.Proc) -> bool:
    """The output type is countable: int, nat, bool, or lists of them (the Pointwise rule
    sums over the output values)."""
    t = proc.ret
    while t.base == "list":
        t = t.elem
    return t.base in ("int", "nat", "bool")


def _count_assignments(stmts, counts: Dict[str, int]) -> None:
    for s in stmts:
        if isinstance(s, (W.Assign, W.Sample)):
            counts[s.target] = counts.get(s.target, 0) + 1
        elif isinstance(s, W.If):
            _count_assignments(s.then, counts)
            _count_assignments(s.else_, counts)
        elif isinstance(s, W.While):
            _count_assignments(s.body, counts)
            _count_assignments(s.body, counts)  # a nested loop's assignment is never "once"


_split_and = W.conjuncts


def _dedup(facts: Sequence[T.Term]) -> List[T.Term]:
    seen, out = set(), []
    for f in facts:
        if f == T.TRUE or f in seen:
            continue
        seen.add(f)
        out.append(f)
    return out


def _coerce(t: T.Term, want: T.Sort) -> T.Term:
    if want == T.REAL and t.sort == T.INT:
        return T.to_real(t)
    return t


# ---- verdicts -------------------------------------------------------------------------------

@record(frozen=False)
class ProcReport:
    name: str
    claim: str
    verdict: str               # verified | unknown
    guarantee: Optional[str] = None
    failure: Optional[str] = None
    failure_span: object = None
    code: Optional[str] = None
    derivation: Optional[Node] = None
    obligations: List[Obligation] = field(default_factory=list)
    results: Dict[str, object] = field(default_factory=dict)
    loops: Dict = field(default_factory=dict)
    seconds: float = 0.0
    #: the first obligation that is not verified (the shift search learns from it)
    data_failing: Optional[Obligation] = None
    #: the shift the search chose at each unannotated Lap (line, col) -> verifier.shifts.Shift
    shifts: Dict = field(default_factory=dict)
    #: proved by the Pointwise rule (for every output value v)
    pointwise: bool = False
    #: the one-sided Cond rules were used for the ifs without sampling (Builder.onesided)
    onesided: bool = False
    #: how a refuted claim was shown false (``verifier.refutation.Confirmation``)
    confirmation: object = None


def claim_text(proc: W.Proc) -> str:
    s = proc.spec
    post = "=" if s.post is None else W.pretty_expr(s.post)
    return (f"|-({W.pretty_expr(s.eps)}, {W.pretty_expr(s.delta)}) {proc.name} ~ {proc.name} : "
            f"{W.pretty_expr(s.pre)} ==> {post}")


def attempt(proc: W.Proc, types: W.ProcTypes, session: Z3Session, rlimit: Optional[int] = None,
            assignment: Optional[Dict] = None, shift_vars: bool = False, first_failure: bool = False,
            pointwise: bool = False, onesided: bool = False,
            probe_cache: Optional[Dict[Tuple, bool]] = None
            ) -> Tuple[ProcReport, Optional[Builder]]:
    """One derivation, its obligations discharged: the unannotated ``Lap`` statements coupled
    by ``assignment``'s shifts (the identity elsewhere); ``shift_vars``: each named by a shift
    variable (the search's builds); ``first_failure``: stop at the first obligation that is not
    verified; ``probe_cache``: the inference's answers, shared with the other derivations of
    the claim (``Builder.cache``)."""
    start = time.perf_counter()
    s = proc.spec
    # what the claim means in words (the guarantee it states; verified or not)
    report = ProcReport(proc.name, claim_text(proc), "unknown",
                        guarantee=W.spec_guarantee(proc))
    b = Builder(proc, types, session, rlimit, probe_cache)
    b.assignment = dict(assignment or {})
    b.shift_vars = shift_vars
    b.onesided = onesided
    if pointwise:
        try:
            b.pointwise = T.var("result'v", b.sort_ret())
        except NoRule:
            pointwise = False
    try:
        root, _ = b.derive()
    except (NoRule, T.SortError) as exc:
        report.failure = f"no apRHL rule applies: {exc}"
        report.failure_span = getattr(exc, "span", None)
        report.code = "V003"
        report.seconds = time.perf_counter() - start
        return report, None
    report.derivation = root
    report.loops = b.loops
    report.pointwise = b.pointwise is not None
    report.onesided = b.onesided
    report.shifts = {k: v for k, v in b.assignment.items() if v != IDENTITY}
    report.obligations = b.obligations
    kw = {} if rlimit is None else {"rlimit": rlimit}
    failing = None
    for ob in b.obligations:
        if ob.id in report.results:
            continue
        # a counterexample is confirmed by evaluating the obligation (obligations.counterexamples)
        # only when it is pure arithmetic: the list functions and the grid rounding are
        # uninterpreted, and a model's values for them confirm nothing
        opaque = any(f.name in ("lapgrid", "mod_int", "div_int") or WL.elem_key(f.range) or
                     any(WL.elem_key(s) for s in f.domain) for f in ob.vocabulary.functions)
        r = discharge(ob, session=b.session, confirm=not opaque and not first_failure, **kw)
        if opaque and r.verdict == Verdict.UNKNOWN and r.reason.startswith("z3: sat"):
            r = replace(r, reason="z3 found a candidate counterexample; it is not confirmed (the "
                        "list functions are uninterpreted), so the obligation is not verified")
        report.results[ob.id] = r
        if r.verdict != Verdict.VERIFIED and failing is None:
            failing = (ob, r)
            if first_failure:
                break
    if failing is None:
        report.verdict = "verified"
    else:
        ob, r = failing
        report.failure = f"{ob.provenance.rule}: {ob.provenance.description}: " \
                         f"{T.pretty(ob.goal)} is {r.verdict.value} ({r.reason})"
        report.failure_span = ob.provenance.span
        report.code = "V001" if r.verdict == Verdict.REFUTED else "V002"
        report.data_failing = ob
    report.seconds = time.perf_counter() - start
    return report, b
