"""The kernel's check of apRHL certificates of while-programs (``checker.aprhl_certify``).

It imports nothing of the verifier's derivation builder (``verifier.aprhl``): it reads the
source with the trusted front end (``verifier.language.whilelang``, as the functional kernel
reads ``.pinf`` files with the parser), then derives, by its own implementation of the apRHL
rules (docs/aprhl.md), every obligation of each claim the certificate says is verified — using
only the loop invariants and variants the certificate supplies as hints, which the obligations
themselves justify (they must hold on entry, be preserved, and the variant must decrease) — and

* refuses the certificate when a ``Lap`` is recorded with a cost other than the rule's
  ``|k + e<1> - e<2>| / b`` (``k`` the shift written in the source, or recorded by the
  certificate: a hint that may mention only the state before the draw; or, for a ``Lap``
  followed at once by an ``if``, a pair of such hints, one per branch (Lap-Case): ``k`` is
  ``ite (C<1>, k_then, k_else)`` with run 1's guard ``C<1>`` after the draw, derived here, and
  that ``if`` is always derived by the synchronised Cond rule, whose ``C<1> = C<2>`` makes
  the alignment injective), when one of its own obligations is missing from the certificate
  or weakened there (the certificate's version must have the same goal and no hypothesis the
  kernel's lacks), or when the statement or guarantee differs from the source's;
* discharges every obligation it derived with z3 itself: a verified claim stands only if every
  one is verified.
"""
from __future__ import annotations

import time
from typing import Any, Dict, List, Optional, Tuple

from obligations import terms as T
from obligations import whilelogic as WL
from obligations.model import Obligation, ObligationKind, Provenance, Verdict
from obligations.records import field, record
from obligations.smtlib import Z3Session
from obligations.z3_backend import discharge
from verifier.errors import PrivInferError
from verifier.language import whilelang as W

FORMAT = "privinfer-aprhl-certificate"


class Invalid(Exception):
    pass


@record
class Outcome:
    valid: bool
    reason: str = ""
    claims: List[Dict[str, Any]] = field(default_factory=list)
    obligations: List[Obligation] = field(default_factory=list)
    seconds: float = 0.0
    notes: List[str] = field(default_factory=list)

    def to_json(self) -> Dict[str, Any]:
        return {"valid": self.valid, "reason": self.reason, "claims": self.claims,
                "trust_base": {"solvers": [{"name": "z3"}], "theorems": ["apRHL rules (docs/aprhl.md)"],
                               "lemmas": []} if self.valid else None,
                "notes": self.notes, "seconds": {"total": round(self.seconds, 4)}}


def is_aprhl(data: Any) -> bool:
    return isinstance(data, dict) and data.get("format") == FORMAT


def check(data: Any) -> Outcome:
    """Check an apRHL certificate (parsed JSON); never raises on bad input: fails closed."""
    start = time.perf_counter()
    summary: List[Dict[str, Any]] = []
    discharged: List[Obligation] = []
    try:
        _check(data, summary, discharged)
        return Outcome(True, "", summary, discharged, time.perf_counter() - start)
    except Invalid as exc:
        return Outcome(False, str(exc), summary, [], time.perf_counter() - start)
    except PrivInferError as exc:
        return Outcome(False, f"the certificate's source does not read: {exc.first.message}",
                       summary, [], time.perf_counter() - start)
    except (KeyError, TypeError, ValueError, AttributeError, T.SortError, RecursionError) as exc:
        return Outcome(False, f"the certificate is malformed: {type(exc).__name__}: {exc}",
                       summary, [], time.perf_counter() - start)


def _check(data: Any, summary, discharged) -> None:
    if not is_aprhl(data) or data.get("version") != 1:
        raise Invalid("not an apRHL certificate of version 1")
    source = data["source"]
    prog = W.parse_while(source["text"], source["file"])
    types = W.check_program(prog)
    session = Z3Session()
    seen = set()
    for claim in data["claims"]:
        name = claim["name"]
        if name in seen:
            raise Invalid(f"two claims for {name}")
        seen.add(name)
        proc = prog.proc(name)
        if proc is None or proc.spec is None:
            raise Invalid(f"the source has no specified procedure {name}")
        statement = _claim_text(proc)
        if claim["statement"] != statement:
            raise Invalid(f"the claim of {name} is recorded as {claim['statement']!r}; the source "
                          f"states {statement!r}")
        verdict = claim["verdict"]
        if verdict != "verified":
            if verdict not in ("unknown", "refuted"):
                raise Invalid(f"unknown verdict {verdict!r} for {name}")
            # a refuted claim carries its witness (the verifier's report: this kernel vouches
            # for verified claims only)
            if (verdict == "refuted") != (claim.get("confirmation") is not None):
                raise Invalid(f"claim {name}: a claim is refuted exactly when a witness "
                              "confirms it false")
            summary.append({"name": name, "verdict": verdict, "statement": statement,
                            "disputed": []})
            continue
        guarantee = W.spec_guarantee(proc)
        if claim.get("guarantee") != guarantee:
            raise Invalid(f"{name}: the guarantee is recorded as {claim.get('guarantee')!r}, the "
                          f"specification gives {guarantee!r}")
        hints = _hints(claim)
        d = _Derivation(proc, types[proc.name], hints)
        d.shifts = {(c["line"], c["col"]): _terms(c["shift"])[0]
                    for c in claim["costs"] if c.get("shift") is not None}
        d.cases = {(c["line"], c["col"]): tuple(_terms(c["case"]))
                   for c in claim["costs"] if c.get("case") is not None}
        if set(d.cases) & set(d.shifts) or any(len(v) != 2 for v in d.cases.values()):
            raise Invalid(f"{name}: a Lap is recorded with a shift and a shift per branch")
        if claim.get("pointwise"):
            # the pointwise rule (LICS 2016, Prop. 8): a claim ==> = whose outputs are
            # countable, proved for every output value v by couplings that may depend on v
            ret = proc.ret
            while ret.base == "list":
                ret = ret.elem
            if proc.spec.post is not None or ret.base not in ("int", "nat", "bool"):
                raise Invalid(f"{name}: the pointwise rule needs a claim ==> = with a discrete "
                              "output")
            d.pointwise = T.var("result'v", WL.sort_of(W.wtype_simple(proc.ret)))
        # the one-sided Cond rules (If-L, If-R) for the ifs without sampling or loops: each
        # run its own branch (deterministic commands: the Dirac coupling, cost 0)
        d.onesided = bool(claim.get("onesided"))
        try:
            d.derive()
            vacuous = _Derivation(proc, types[proc.name], {}).vacuous()
        except _NoRule as exc:
            raise Invalid(f"{name}: the kernel cannot derive the claim: {exc}") from None
        if vacuous:
            raise Invalid(f"{name}: the assumptions relate no two inputs: the precondition "
                          f"{W.pretty_expr(proc.spec.pre)} is unsatisfiable, so the claim holds "
                          "vacuously and must not be verified (V011)")
        recorded_costs = {(c["line"], c["col"]): _terms(c["cost"])[0] for c in claim["costs"]}
        for key, cost in d.costs.items():
            got = recorded_costs.get(key)
            if got != cost:
                shown = "nothing" if got is None else T.pretty(got)
                raise Invalid(f"{name}: the Lap at line {key[0]}, column {key[1]} is charged "
                              f"{shown}; the Lap rule charges {T.pretty(cost)}")
        extra = set(recorded_costs) - set(d.costs)
        if extra:
            raise Invalid(f"{name}: costs recorded for Lap statements the derivation does not "
                          f"reach: {sorted(extra)}")
        recorded = [Obligation.from_json(o) for o in claim["obligations"]]
        index: Dict[T.Term, List[frozenset]] = {}
        for ob in recorded:
            index.setdefault(ob.goal, []).append(frozenset(h.term for h in ob.hypotheses))
        for ob in d.obligations:
            hyps = frozenset(h.term for h in ob.hypotheses)
            if not any(h <= hyps for h in index.get(ob.goal, [])):
                raise Invalid(f"{name}: the certificate drops or weakens the obligation "
                              f"'{ob.provenance.description}': {T.pretty(ob.goal)}")
        done: Dict[str, Any] = {}
        for ob in d.obligations:
            if ob.id in done:
                continue
            r = discharge(ob, session=session)
            done[ob.id] = r
            if r.verdict != Verdict.VERIFIED:
                raise Invalid(f"{name}: the obligation '{ob.provenance.description}' "
                              f"({T.pretty(ob.goal)}) is {r.verdict.value}: {r.reason}")
            discharged.append(ob)
        summary.append({"name": name, "verdict": "verified", "statement": statement,
                        "disputed": []})


def _terms(data) -> List[T.Term]:
    voc = T.Vocabulary.from_json(data["vocabulary"])
    return [T.term_from_json(t, voc) for t in data["terms"]]


def _hints(claim) -> Dict[Tuple[int, int], Tuple[List[T.Term], Optional[T.Term]]]:
    out = {}
    for loop in claim["loops"]:
        inv = _terms(loop["invariants"])
        variant = _terms(loop["variant"])[0] if loop["variant"] is not None else None
        out[(loop["line"], loop["col"])] = (inv, variant)
    return out


def _claim_text(proc: W.Proc) -> str:
    s = proc.spec
    post = "=" if s.post is None else W.pretty_expr(s.post)
    return (f"|-({W.pretty_expr(s.eps)}, {W.pretty_expr(s.delta)}) {proc.name} ~ {proc.name} : "
            f"{W.pretty_expr(s.pre)} ==> {post}")


# ---- the kernel's own derivation ------------------------------------------------------------

class _NoRule(Exception):
    pass


_ENT, _RANGE, _SIDE, _COMP = (ObligationKind.ENTAILMENT, ObligationKind.RANGE,
                              ObligationKind.SIDE_CONDITION, ObligationKind.COMPOSABILITY)


class _Derivation:
    """The obligations of a procedure's judgement, rule by rule (a state is the pair of terms
    of every variable, the facts known, and the cost spent so far)."""

    def __init__(self, proc: W.Proc, types: W.ProcTypes, hints):
        self.proc, self.types, self.hints = proc, types, hints
        self.obligations: List[Obligation] = []
        self.costs: Dict[Tuple[int, int], T.Term] = {}
        #: the shifts recorded by the certificate for Lap statements written without one
        self.shifts: Dict[Tuple[int, int], T.Term] = {}
        #: the pointwise rule: the output value v every obligation holds for
        self.pointwise: Optional[T.Var] = None
        #: the one-sided Cond rules for every if without sampling or loops
        self.onesided = False
        #: the shifts per branch (then, else) recorded for a Lap followed by an if (Lap-Case)
        self.cases: Dict[Tuple[int, int], Tuple[T.Term, T.Term]] = {}

    def ob(self, facts, kind, goal, what: str, span) -> None:
        hyps, seen = [], set()
        for f in facts:
            if f == T.TRUE or f in seen:
                continue
            seen.add(f)
            hyps.append(f)
        named = [(f"h_{k}", f) for k, f in enumerate(hyps)]
        axioms = WL.ground_axioms(hyps + [goal])
        self.obligations.append(Obligation(
            kind=kind, hypotheses=named, goal=goal, axioms=axioms,
            provenance=Provenance("kernel", "kernel", what, None)))

    def sort(self, name: str) -> T.Sort:
        try:
            return WL.sort_of(self.types.vars[name])
        except ValueError:
            raise _NoRule(f"unsupported type of {name}")

    # terms
    def term(self, e, vals, run: int, conds: List, want=None) -> T.Term:
        if isinstance(e, W.Num):
            return T.integer(int(e.value)) if e.is_int else T.real(e.value)
        if isinstance(e, W.BoolLit):
            return T.boolean(e.value)
        if isinstance(e, W.Name):
            if e.name not in vals:
                raise _NoRule(f"{e.name} is read before it is assigned")
            return vals[e.name][(e.run or run) - 1]
        if isinstance(e, W.Index):
            a = self.term(e.array, vals, run, conds)
            i = self.term(e.index, vals, run, conds)
            conds.append((_RANGE, T.and_(T.le(0, i), T.lt(i, WL.length(a))), "index in bounds"))
            return WL.at(a, i)
        if isinstance(e, W.Size):
            return WL.length(self.term(e.arg, vals, run, conds))
        if isinstance(e, W.ListLit):
            if want is None or WL.elem_key(want) is None:
                t = W.expr_type(e, self.types.vars)
                if "?" in t:
                    raise _NoRule("[] of unknown element type")
                want = WL.sort_of(t)
            return self._snocs(WL.nil(WL.elem_key(want)), e.items, vals, run, conds)
        if isinstance(e, W.UnOp):
            a = self.term(e.arg, vals, run, conds)
            return T.not_(a) if e.op == "not" else T.neg(a)
        if isinstance(e, W.Call):
            if e.fn not in W.FUNCTIONS:
                raise _NoRule(f"{e.fn} outside the precondition")
            a = [self.term(x, vals, run, conds) for x in e.args]
            return T.abs_(a[0]) if e.fn == "abs" else (T.min_(*a) if e.fn == "min" else T.max_(*a))
        if isinstance(e, W.BinOp):
            if e.op == "++":
                if isinstance(e.left, W.ListLit) and not isinstance(e.right, W.ListLit):
                    acc = self.term(e.right, vals, run, conds, want)
                    elem = WL.ELEMENT_SORTS[WL.elem_key(acc.sort)]
                    for it in reversed(e.left.items):
                        x = self.term(it, vals, run, conds)
                        acc = WL.cons(T.to_real(x) if elem == T.REAL and x.sort == T.INT else x, acc)
                    return acc
                left = self.term(e.left, vals, run, conds, want)
                if not isinstance(e.right, W.ListLit):
                    raise _NoRule("++ of a non-literal")
                return self._snocs(left, e.right.items, vals, run, conds)
            a = self.term(e.left, vals, run, conds)
            b = self.term(e.right, vals, run, conds)
            if e.op == "/":
                conds.append((_RANGE, T.ne(b, 0), "divisor not zero"))
            if e.op == "mod":
                conds.append((_RANGE, T.gt(b, 0), "divisor of mod positive"))
                return WL.mod(a, b)
            if e.op in ("=", "<>") and a.sort != b.sort and not (a.sort.is_numeric and b.sort.is_numeric):
                if isinstance(e.right, W.ListLit):
                    b = self.term(e.right, vals, run, conds, a.sort)
                elif isinstance(e.left, W.ListLit):
                    a = self.term(e.left, vals, run, conds, b.sort)
            return {"+": T.add, "-": T.sub, "*": T.mul, "/": T.div, "=": T.eq, "<>": T.ne,
                    "<": T.lt, "<=": T.le, ">": T.gt, ">=": T.ge, "&&": T.and_, "||": T.or_,
                    "=>": T.implies}[e.op](a, b)
        raise _NoRule("unsupported expression")

    def _snocs(self, acc, items, vals, run, conds):
        elem = WL.ELEMENT_SORTS[WL.elem_key(acc.sort)]
        for it in items:
            x = self.term(it, vals, run, conds)
            acc = WL.snoc(acc, T.to_real(x) if elem == T.REAL and x.sort == T.INT else x)
        return acc

    def relational(self, e, vals) -> T.Term:
        for n in W.names_of(e):
            if n.run is None and n.name in vals and vals[n.name][0] is not vals[n.name][1]:
                raise _NoRule(f"{n.name} without a run index in an assertion")
        return self.term(e, vals, 1, [])

    def conds(self, facts, conds) -> None:
        for kind, goal, what in conds:
            self.ob(facts, kind, goal, what, None)

    # the judgement
    def initial(self) -> Tuple[Dict[str, Tuple[T.Term, T.Term]], List[T.Term]]:
        """The state before the body: each parameter's pair of terms (one term when public),
        their ranges and the precondition as facts (an adjacency relation gives run 2's list
        as run 1's updated, or moved by allWithin)."""
        vals: Dict[str, Tuple[T.Term, T.Term]] = {}
        facts: List[T.Term] = []
        for p in self.proc.params:
            s = self.sort(p.name)
            pair = (T.var(p.name, s), T.var(p.name, s)) if p.pub else \
                (T.var(p.name, s, 1), T.var(p.name, s, 2))
            vals[p.name] = pair
            for t in {pair[0], pair[1]}:
                if p.type.base == "nat":
                    facts.append(T.ge(t, 0))
                elif p.type.base == "real+":
                    facts.append(T.gt(t, 0))
        listed = set()
        pre = _conjuncts(self.proc.spec.pre)
        relations = ("adj", "adjWithin", "allWithin")
        adjacency = [c for c in pre if isinstance(c, W.Call) and c.fn in relations]
        for c in adjacency + [c for c in pre if c not in adjacency]:
            if isinstance(c, W.Call) and c.fn in relations:
                name = c.args[0].name
                d1, d2 = vals[name]
                if d1 is d2:
                    continue
                if name in listed:
                    raise _NoRule("two adjacency relations for one list")
                listed.add(name)
                if c.fn == "allWithin":
                    # every position within the bound: run 1's list moved by a clamped list
                    bound = self._coerce(self.relational(c.args[2], vals), T.REAL)
                    vals[name] = (d1, WL.near(d1, T.var(f"{name}'w", d1.sort), bound))
                    continue
                j = T.var(f"{name}'j", T.INT)
                v = T.var(f"{name}'v", WL.ELEMENT_SORTS[WL.elem_key(d1.sort)])
                vals[name] = (d1, WL.upd(d1, j, v))
                if c.fn == "adjWithin":
                    bound = self.relational(c.args[2], vals)
                    facts.append(T.or_(T.le(T.abs_(T.sub(WL.at(d1, j), v)), bound),
                                       T.eq(WL.at(d1, j), v)))
            else:
                facts.append(self.relational(c, vals))
        return vals, facts

    def vacuous(self) -> bool:
        """z3 proves the precondition unsatisfiable (with the parameters' ranges and the
        axioms of its terms): the judgement holds of no pair of inputs and says nothing, so
        a certificate may not call it verified (docs/aprhl.md, "Vacuous assumptions")."""
        facts = [f for f in dict.fromkeys(self.initial()[1]) if f != T.TRUE]
        if not facts:
            return False
        ob = Obligation(kind=_ENT, hypotheses=[(f"h_{k}", f) for k, f in enumerate(facts)],
                        goal=T.FALSE, axioms=WL.ground_axioms(facts + [T.FALSE]),
                        provenance=Provenance("kernel", "kernel", "vacuity", None))
        return discharge(ob, confirm=False).verdict == Verdict.VERIFIED

    def derive(self) -> None:
        vals, facts = self.initial()
        body = list(W.common_tails_hoisted(self.proc.body))
        ret = body.pop()
        cost: T.Term = T.real(0)
        vals, facts, cost = self.seq(body, vals, facts, cost)
        want = WL.sort_of(W.wtype_simple(self.proc.ret))
        conds: List = []
        r1 = self.term(ret.value, vals, 1, conds, want)
        r2 = self.term(ret.value, vals, 2, conds, want)
        self.conds(facts, conds)
        spec = self.proc.spec
        if self.pointwise is not None:
            # the pointwise rule: for every output value v (free in every obligation)
            post = T.implies(T.eq(r1, self.pointwise), T.eq(r2, self.pointwise))
        elif spec.post is None:
            post = T.eq(r1, r2)
        else:
            v2 = dict(vals)
            v2["result"] = (r1, r2)
            post = self.relational(spec.post, v2)
        self.ob(facts, _ENT, post, "output relation", None)
        self.ob(facts, _COMP, T.le(cost, self.relational(spec.eps, vals)), "cost within eps", None)
        self.ob(facts, _COMP, T.le(0, self.relational(spec.delta, vals)), "delta", None)

    def seq(self, stmts, vals, facts, cost):
        """A sequence: the costs add up. A Lap recorded with a shift per branch must be
        followed at once by an if, derived with it (Lap-Case)."""
        stmts = list(stmts)
        n = 0
        while n < len(stmts):
            s = stmts[n]
            if isinstance(s, W.Sample) and (s.span.line, s.span.col) in self.cases:
                m = n + 1   # assignments may stand between the draw and the if
                while m < len(stmts) and isinstance(stmts[m], W.Assign):
                    m += 1
                nxt = stmts[m] if m < len(stmts) else None
                if not isinstance(nxt, W.If) or s.shift is not None:
                    raise _NoRule(f"the shift per branch recorded at line {s.span.line} needs "
                                  "a Lap without a written shift followed by an if")
                between = stmts[n + 1:m]
                vals, facts, cost = self.stmt(s, vals, facts, cost, case_if=nxt, between=between)
                for a in between:
                    vals, facts, cost = self.stmt(a, vals, facts, cost)
                # the if of Lap-Case is always synchronised: C<1> = C<2> makes the alignment
                # injective (each branch's draws land where run 2 takes that branch)
                vals, facts, cost = self.stmt(nxt, vals, facts, cost, synchronised=True)
                n = m + 1
                continue
            vals, facts, cost = self.stmt(s, vals, facts, cost)
            n += 1
        return vals, facts, cost

    def _state_terms(self, vals, z):
        """The variables of the state's terms (not of the facts: an invariant, a hint, could
        name a later draw), the output value v of the pointwise rule, never the draw z."""
        known = set(T.free_vars(*[t for pair in vals.values() for t in pair if t is not None]))
        if self.pointwise is not None:
            known.add(self.pointwise)
        known.discard(z)
        return known

    def stmt(self, s, vals, facts, cost, case_if=None, synchronised=False, between=()):
        if isinstance(s, W.Skip):
            return vals, facts, cost
        if isinstance(s, W.Assign):
            want = self.sort(s.target)
            conds: List = []
            pair = tuple(self._coerce(self.term(s.value, vals, r, conds, want), want) for r in (1, 2))
            self.conds(facts, conds)
            vals = dict(vals)
            vals[s.target] = pair
            return vals, facts, cost
        if isinstance(s, W.Sample):
            conds = []
            b1 = self.term(s.scale, vals, 1, conds)
            b2 = self.term(s.scale, vals, 2, conds)
            c1 = self.term(s.center, vals, 1, conds)
            c2 = self.term(s.center, vals, 2, conds)
            self.conds(facts, conds)
            self.ob(facts, _SIDE, T.eq(b1, b2), "public scale", None)
            self.ob(facts, _RANGE, T.gt(b1, 0), "positive scale", None)
            z = T.var(WL.draw_name(s.target, s.span.line, s.span.col), T.REAL)
            key = (s.span.line, s.span.col)
            if s.shift is None and key in self.shifts:
                # a shift the builder's search chose (a hint): any function of the state
                # before the draw couples the draws at the rule's cost, so it may mention
                # only the terms of that state, never this draw or a later one
                k = self._coerce(self.shifts[key], T.REAL)   # an int shift is a real one
                if k.sort != T.REAL:
                    raise _NoRule(f"the shift recorded at line {key[0]} is not a real")
                known = self._state_terms(vals, z)
                stray = [v.name for v in T.free_vars(k) if v not in known]
                if stray:
                    raise _NoRule(f"the shift recorded at line {key[0]} mentions "
                                  f"{', '.join(sorted(stray))}, which the state before the draw "
                                  "does not")
                out = (WL.released(b1, z), WL.released(b1, T.add(z, k)))
            elif case_if is not None:
                # Lap-Case: the shift of the branch run 1's guard takes after the draw; each
                # branch's shift a function of the state before the draw
                kt, ke = (self._coerce(part, T.REAL) for part in self.cases[key])
                known = self._state_terms(vals, z)
                for part in (kt, ke):
                    if part.sort != T.REAL:
                        raise _NoRule(f"a shift recorded at line {key[0]} is not a real")
                    stray = [v.name for v in T.free_vars(part) if v not in known]
                    if stray:
                        raise _NoRule(f"the shift recorded at line {key[0]} mentions "
                                      f"{', '.join(sorted(stray))}, which the state before the "
                                      "draw does not")
                after = dict(vals)
                after[s.target] = (WL.released(b1, z), WL.released(b1, z))
                guard_conds: List = []
                for a in between:   # run 1's guard is read after the assignments between
                    want = self.sort(a.target)
                    t1 = self._coerce(self.term(a.value, after, 1, guard_conds, want), want)
                    after[a.target] = (t1, t1)
                g1 = self.term(case_if.cond, after, 1, guard_conds)
                k = T.ite(g1, kt, ke)
                out = (WL.released(b1, z), WL.released(b1, T.add(z, k)))
            elif s.shift is None:
                k: T.Term = T.real(0)
                out = (WL.released(b1, z), WL.released(b1, z))
            else:
                k = T.add(self.relational(s.shift, vals), T.sub(c2, c1))
                out = (WL.released(b1, z), WL.released(b1, T.add(z, k)))
            charge = T.div(T.abs_(T.add(k, T.sub(c1, c2))), b1)
            self.costs[(s.span.line, s.span.col)] = charge
            vals = dict(vals)
            vals[s.target] = out
            return vals, facts, T.add(cost, charge)
        if isinstance(s, W.If) and (self.pointwise is not None or self.onesided) \
                and _deterministic([s]) \
                and not synchronised:
            # one-sided (If-L, If-R): each run its own branch, nothing sampled in them
            for run in (1, 2):
                vals = self._side_if(s, vals, facts, run)
            return vals, facts, cost
        if isinstance(s, W.If):
            conds = []
            g1 = self.term(s.cond, vals, 1, conds)
            g2 = self.term(s.cond, vals, 2, conds)
            self.conds(facts, conds)
            self.ob(facts, _SIDE, T.eq(g1, g2), "synchronised guards", None)
            tv, tf, tc = self.seq(s.then, dict(vals), facts + [g1, g2], cost)
            ev, ef, ec = self.seq(s.else_, dict(vals), facts + [T.not_(g1), T.not_(g2)], cost)
            merged = {}
            for x in tv:
                if x in ev:
                    a, b = tv[x], ev[x]
                    merged[x] = (a[0] if a[0] is b[0] else T.ite(g1, a[0], b[0]),
                                 a[1] if a[1] is b[1] else T.ite(g2, a[1], b[1]))
            n = len(facts)
            out_facts = list(facts) + [T.implies(g1, f) for f in tf[n + 2:]] + \
                [T.implies(T.not_(g1), f) for f in ef[n + 2:]]
            return merged, out_facts, (tc if tc is ec else T.ite(g1, tc, ec))
        if isinstance(s, W.While):
            return self.loop(s, vals, facts, cost)
        raise _NoRule("return before the end")

    def _side_if(self, s: W.If, vals, facts, run: int):
        conds: List = []
        g = self.term(s.cond, vals, run, conds)
        self.conds(facts, conds)
        then = self._side_seq(s.then, dict(vals), facts + [g], run)
        other = self._side_seq(s.else_, dict(vals), facts + [T.not_(g)], run)
        out = dict(vals)
        for x in then:
            if x in other:
                a, b = then[x][run - 1], other[x][run - 1]
                pair = list(vals.get(x, (None, None)))
                pair[run - 1] = a if a is b else T.ite(g, a, b)
                out[x] = tuple(pair)
        return out

    def _side_seq(self, stmts, vals, facts, run: int):
        for c in stmts:
            if isinstance(c, W.Assign):
                conds: List = []
                want = self.sort(c.target)
                t = self._coerce(self.term(c.value, vals, run, conds, want), want)
                self.conds(facts, conds)
                pair = list(vals.get(c.target, (None, None)))
                pair[run - 1] = t
                vals = dict(vals)
                vals[c.target] = tuple(pair)
            elif isinstance(c, W.If):
                vals = self._side_if(c, vals, facts, run)
            elif not isinstance(c, W.Skip):
                raise _NoRule("sampling or a loop in a one-sided branch")
        return vals

    @staticmethod
    def _coerce(t, want):
        return T.to_real(t) if want == T.REAL and t.sort == T.INT else t

    def loop(self, w: W.While, vals, facts, cost):
        key = (w.span.line, w.span.col)
        if key not in self.hints:
            raise _NoRule(f"no invariant recorded for the loop at line {key[0]}")
        inv, variant = self.hints[key]
        assigned = _assigned(w.body)
        carried = [x for x in assigned if x in vals]
        costly = _has_sample(w.body)
        head = {x: p for x, p in vals.items() if x not in assigned}
        entry: Dict[T.Var, T.Term] = {}
        for x in carried:
            n = WL.head_name(x, *key)
            s = self.sort(x)
            head[x] = (T.var(n, s, 1), T.var(n, s, 2))
            entry[head[x][0]], entry[head[x][1]] = vals[x]
        hcost = T.var(f"cost''{key[0]}h{key[1]}", T.REAL) if costly else cost
        if costly:
            entry[hcost] = cost
        # the hints may speak of the state at the head only: the values before the loop and
        # the head's own variables. A name the derivation binds later (a draw of a Lap in the
        # body or after the loop, the head of an inner or later loop) is free in the
        # obligation "on entry" (so any value does there) but is that very draw in the body:
        # an invariant naming the next draw would assume what it has not proved of it
        known = set(T.free_vars(*[t for pair in list(vals.values()) + list(head.values())
                                  for t in pair if t is not None], cost, hcost))
        if self.pointwise is not None:
            known.add(self.pointwise)
        for c in list(inv) + ([variant] if variant is not None else []):
            stray = [v.name for v in T.free_vars(c) if v not in known]
            if stray:
                raise _NoRule(f"a hint of the loop at line {key[0]} mentions "
                              f"{', '.join(sorted(set(stray)))}, which the state at its head "
                              "does not")
        for c in inv:
            if c.sort != T.BOOL:
                raise _NoRule("an invariant is not a formula")
            self.ob(facts, _ENT, T.substitute(c, entry), "invariant on entry", None)
        conds: List = []
        g1 = self.term(w.cond, head, 1, conds)
        g2 = self.term(w.cond, head, 2, conds)
        inside = list(facts) + list(inv)
        self.conds(inside, conds)
        self.ob(inside, _SIDE, T.eq(g1, g2), "synchronised loop guards", None)
        bv, bf, bc = dict(head), inside + [g1, g2], hcost
        start = list(bf)
        bv, bf, bc = self.seq(w.body, bv, bf, bc)
        back: Dict[T.Var, T.Term] = {}
        for x in carried:
            if x not in bv:
                raise _NoRule(f"{x} unassigned at the end of the body")
            back[head[x][0]], back[head[x][1]] = bv[x]
        if costly:
            back[hcost] = bc
        for c in inv:
            self.ob(bf, _ENT, T.substitute(c, back), "invariant preserved", None)
        if variant is None or variant.sort != T.INT:
            raise _NoRule(f"no integer variant for the loop at line {key[0]}")
        self.ob(start, _SIDE, T.gt(variant, 0), "variant positive", None)
        self.ob(bf, _SIDE, T.lt(T.substitute(variant, back), variant), "variant decreases", None)
        return head, inside + [T.not_(g1), T.not_(g2)], hcost


def _deterministic(stmts) -> bool:
    """Only assignments, skip and ifs of them (the kernel's own test)."""
    return all(isinstance(s, (W.Assign, W.Skip)) or
               (isinstance(s, W.If) and _deterministic(s.then) and _deterministic(s.else_))
               for s in stmts)


def _conjuncts(e) -> List:
    if isinstance(e, W.BinOp) and e.op == "&&":
        return _conjuncts(e.left) + _conjuncts(e.right)
    return [e]


def _assigned(stmts) -> List[str]:
    out: List[str] = []
    for s in stmts:
        names = [s.target] if isinstance(s, (W.Assign, W.Sample)) else \
            _assigned(s.then) + _assigned(s.else_) if isinstance(s, W.If) else \
            _assigned(s.body) if isinstance(s, W.While) else []
        out += [n for n in names if n not in out]
    return out


def _has_sample(stmts) -> bool:
    for s in stmts:
        if isinstance(s, W.Sample):
            return True
        if isinstance(s, W.If) and (_has_sample(s.then) or _has_sample(s.else_)):
            return True
        if isinstance(s, W.While) and _has_sample(s.body):
            return True
    return False
