"""Couplings other than the identity: shifted Laplace noise, the pointwise rules, and the
search that finds the shifts (docs/verifier.md, "Couplings").

The monadic rules couple the two runs' outputs of a mechanism by the identity: ``lapMech (eps,
v)`` outputs one fresh value in both runs, at cost ``eps · |v<1> - v<2>|``. Four rules here
prove what that cannot:

* **LapMech-Shift** (``mechanism_rules.lap_mech_shift``; the general Lap rule of Barthe,
  Gaboardi, Grégoire, Hsu and Strub, "Proving differential privacy via probabilistic
  couplings", LICS 2016, seed 003's Lap rule with a shift): the two runs' outputs are coupled
  by ``x<2> = x<1> + k`` at cost ``eps · |k + v<1> - v<2>|``. The shift ``k`` is
  ``offset + scale · (v<2> - v<1>)`` (a ``Shift``): with scale 1, run 2's *noise* is run 1's
  shifted by ``offset``, at cost ``eps · |offset|``.
* **Pointwise** (the pointwise equality rule of the same paper): a claim ``M[DP(eps)] {x :: T
  | =}`` with delta 0 holds when, for every value ``v`` of the output's discrete part, the
  outputs are coupled by ``D(x<1>) = v ⇒ x<1> = x<2>`` at cost eps. The proof below it may
  then choose couplings that depend on ``v``, which Case-Output does.
* **Case-Output**: at ``mlet x = m in if C then A else B`` under Pointwise, the proof splits
  on whether ``v`` is among the outputs run 1 can reach through ``A`` (a condition on the
  state before ``m`` samples, so the coupling of ``m`` may depend on it). Case *then*: run 1
  taking ``else`` ends in an output whose discrete part is not ``v`` (the outputs of the two
  branches are disjoint: an obligation), so only run 1 taking ``then`` needs a coupling, and
  it must keep run 2 on ``then`` (``C<1> ⇒ C<2>``); case *else* likewise. This is the apRHL
  case rule with the vacuous (product) coupling of the paths that cannot output ``v``. A
  call of a counter loop (``invariants.counter_support``) outputs its base values or at least
  its counter: a one-run fact of the enumeration, proved by induction as an obligation of the
  node (``support_inductions``).
* **Pointwise-Value**: the pointwise rule with the output value ``v`` named (a fresh
  variable, ``invariants.POINT``): the body is checked against the lifting of ``x<1> = v =>
  x<2> = v``; shifts may be guarded by ``v`` (``Shift.at``), and a recursive helper without
  a val is used through an invariant relative to ``v`` (the argmax template of
  ``verifier.language.invariants``), proved by induction as a premise of the node.

Shifts are found by ``prove_by_coupling``: the derivation is rebuilt with a shift per
``lapMech`` site (templates ``offset + scale · (v<2> - v<1>)`` over small offsets and the
constants of the claim), the failing obligations name the sites whose shift they mention
(each shift is a variable ``sh`` defined by its template), every failure is a nogood, and the
next assignment avoids them all — until every obligation holds, or the search gives up and
the first failure stands. A shift written in the program (``lapMech (eps, v) [@shift s]``,
docs/language.md) is used as written. Z3 unknown or a timeout is never a proof: an assignment
is taken only when every obligation of its derivation is verified.
"""
from __future__ import annotations

from fractions import Fraction
from typing import Dict, List, Optional, Sequence, Tuple

from obligations import terms as T
from obligations.model import ObligationKind
from obligations.records import field, record, replace
from obligations.vocabulary import list_key_of, list_part, list_signs, tuple_components
from verifier.language import ast as A
from verifier.language.invariants import (POINT, argmax_roles, argmax_val, loop_direction,
                                          support_helpers, support_term, val_domains)
from verifier.language.pretty import pretty_expr, pretty_rtype
from verifier.language.resolve import written
from verifier.rules.builder import Builder
from verifier.rules.context import Ctx
from verifier.rules.derivation import Derivation, short
from verifier.rules import monadic_rules  # noqa: F401  (BindM first: Case-Output goes before it)
from verifier.rules import registry
from verifier.rules.refinements import fresh_value
from verifier.rules.registry import judgement_rule, monadic_rule
from verifier.translation.symbolic import (Closure, Monadic, NamedFun, Scalar, SymValue,
                                           TupleV, UnitV)
from verifier.translation.translate import NoRule, NotApplicable, bind_pattern, flatten_app
from verifier.shifts import IDENTITY, OFFSETS, Shift, shift_templates  # noqa: F401

#: at most this many derivations are built by one search (one mode): a count, not a time, so
#: that a verdict does not depend on the machine's load (the suite's searches build at most 18)
MAX_ATTEMPTS = 40
#: at most this many partial assignments are tried when looking for the next one
MAX_STEPS = 200000
#: whether the search tries Pointwise-Value (the output value named, helpers through
#: invariants relative to it), after the other modes
POINTWISE_VALUE = True


# ---- shifts (the templates and the cost formula: verifier/shifts.py) -------------------

@record(frozen=False)
class Site:
    """A ``lapMech`` the search may shift: where, and the shifts to try, in order."""

    key: Tuple
    span: Optional[A.Span]
    candidates: Tuple[Shift, ...]


@record(frozen=False)
class Search:
    """The state of one coupling search, attached to the Builder that builds one derivation
    (``Builder.search``): the shift of each site (``assignment``; IDENTITY when absent), the
    sites met, and the shift variable of each site (an obligation depends on a site when it
    mentions its variable). ``pointwise``: the claim is proved by the Pointwise rule.
    ``final``: sites with the identity are plain LapMech (the last build)."""

    assignment: Dict[Tuple, Shift] = field(default_factory=dict)
    sites: Dict[Tuple, Site] = field(default_factory=dict)
    shift_vars: Dict[str, Tuple] = field(default_factory=dict)
    #: the value of the mechanism in the two runs, by shift variable
    values: Dict[str, Tuple[T.Term, T.Term]] = field(default_factory=dict)
    constants: Tuple[Fraction, ...] = ()
    pointwise: object = False
    final: bool = False
    #: under Pointwise-Value: the output value v, and the integer literals a shift may be
    #: guarded by (``Shift.at``)
    point: Optional[T.Term] = None
    literals: Tuple[int, ...] = ()
    #: under Pointwise-Value: 1 when the helpers keep the largest value (the winner's noise
    #: shifted up), -1 the smallest (shifted down; ``invariants.loop_direction``)
    direction: int = 1
    #: the guard terms of each site (``site_guards``)
    guards: Dict[Tuple, Dict[str, T.Term]] = field(default_factory=dict)


def site_key(e: A.Expr, ctx: Ctx) -> Tuple:
    """The site of a mechanism call: its place and the cases of the derivation above it (a
    call reached in two branches, or in the two premises of Case-Output, is two sites)."""
    s = e.span
    return (s.line, s.col, s.end_line, s.end_col, ctx.case)


def lap_coupling(b: Builder, ctx: Ctx, e: A.App, v1: T.Term, v2: T.Term
                 ) -> Optional[Tuple[T.Term, dict, str]]:
    """The shift of ``lapMech (eps, v)`` at ``e`` (``v<1>``, ``v<2>`` its value in the two
    runs): the term ``k`` (run 2's output is run 1's plus ``k``), the coupling as judgement
    data and how it reads; None for the identity coupling (the LapMech rule).

    A shift written in the program (``[@shift s]``, the noise shift) is used as written; one
    that reads ``[@shift if C then s1 else s2]`` gives ``s1`` in the *then* premise of the
    Case-Output whose ``if`` has the condition ``C`` and ``s2`` in its *else* premise. Without
    an annotation, the coupling search's assignment decides (the identity outside a search)."""
    note = e.annotation
    if note is not None and note.name == "shift":
        s = _annotated_shift(b, ctx, note)
        k = T.add(s, T.sub(v2, v1)) if v1 != v2 else s
        text = f"noise<2> = noise<1> + {written(pretty_expr(_chosen(ctx, note.value)))}"
        return k, {"annotation": True}, text
    search = b.search
    if search is None:
        return None
    key = site_key(e, ctx)
    guards = site_guards(search, ctx)
    if key not in search.sites:
        search.sites[key] = Site(key, e.span, candidates(search, v1, v2, tuple(guards)))
    shift = search.assignment.get(key, IDENTITY)
    if search.final and shift == IDENTITY:
        return None
    if shift.at is not None and shift.at not in guards:
        raise NoRule(f"the shift guarded by {written(shift.at)} = v has no such value here",
                     e.span)
    search.guards[key] = guards
    return shift.term(v1, v2, guards.get(shift.at)), shift.as_json(), shift.text()


def site_guards(search: Search, ctx: Ctx) -> Dict[str, T.Term]:
    """Under Pointwise-Value: the conditions ``t = v`` a shift at this site may be guarded
    by, for the integer literals of the program and the integer names in scope whose value
    is the same term in both runs (a counter), by the text of ``t``."""
    if search.point is None:
        return {}
    out = {str(n): T.eq(T.integer(n), search.point) for n in search.literals}
    for name, (left, right) in ctx.env.bindings:
        if isinstance(left, Scalar) and left == right and left.term.sort == T.INT \
                and name not in out and "#0" not in name:
            out[name] = T.eq(left.term, search.point)
    return out


def _chosen(ctx: Ctx, payload: A.Expr) -> A.Expr:
    """The shift an annotation gives in this context: its payload, or the branch of
    ``if C then s1 else s2`` the enclosing Case-Output premise is about."""
    if isinstance(payload, A.If):
        if ctx.out_case is None or ctx.out_case[1] != payload.cond:
            raise NoRule("a shift [@shift if C then s1 else s2] depends on the branch run 1 "
                         "takes at the if on C that follows this computation: it is used by the "
                         "Pointwise and Case-Output rules, and C must be that if's condition",
                         payload.span)
        return payload.then if ctx.out_case[0] == "then" else payload.else_
    return payload


def _annotated_shift(b: Builder, ctx: Ctx, note: A.Annotation) -> T.Term:
    """The Real term of the noise shift an annotation gives here (read like a monad index: a
    name stands for a value equal in both runs, ``x<1>``/``x<2>`` for one run's)."""
    return b.index_term(ctx.env, _chosen(ctx, note.value))


def candidates(search: Search, v1: T.Term, v2: T.Term, guards: Tuple[str, ...] = ()
               ) -> Tuple[Shift, ...]:
    """The shifts a site tries, in order (``verifier.shifts.shift_templates``): the identity,
    then small offsets of the noise and of the output, then the constants of the claim (when
    the value is the same term in both runs, noise and output shifts are one thing). Under
    Pointwise-Value, the noise's identity first, then offsets of the noise where v is one of
    ``guards`` (the winner's noise shifted: up for an argmax, down for an argmin), then the
    others."""
    out = list(shift_templates(v1 == v2, search.constants))
    if search.point is not None:
        noise = 0 if v1 == v2 else 1
        offsets = list(OFFSETS) + [c for c in search.constants if c not in OFFSETS]
        guarded = [Shift(o, noise, g) for g in guards for o in offsets
                   if o * search.direction > 0]
        out = [Shift(Fraction(0), noise)] + guarded + [s for s in out if s != Shift(0, noise)]
    return tuple(out)


def claim_constants(val: A.ValDecl) -> Tuple[Fraction, ...]:
    """The numeric literals of a val and their negations and doubles: offsets a shift may
    need to meet the claim's relations (``t<2> = t<1> + 3.0``)."""
    found: List[Fraction] = []

    def walk(node) -> None:
        if isinstance(node, (A.IntLit, A.RealLit)):
            q = Fraction(node.value)
            for c in (q, -q, 2 * q):
                if c not in found:
                    found.append(c)
        for name in A.record_fields(node):
            value = getattr(node, name)
            items = value if isinstance(value, tuple) else (value,)
            for item in items:
                if isinstance(item, A.Node):
                    walk(item)
    walk(val.rtype)
    return tuple(found[:12])


# ---- the pointwise rule -----------------------------------------------------------------------

def discrete(t: Optional[A.SimpleType]) -> bool:
    """Whether the values of ``t`` form a countable set (booleans, integers, categories,
    unit, and lists and tuples of them)."""
    if isinstance(t, A.TBase):
        return t.name in ("bool", "int", "nat", "unit")
    if isinstance(t, A.TFin):
        return True
    if isinstance(t, A.TList):
        return discrete(t.elem)
    if isinstance(t, A.TTuple):
        return all(discrete(i) for i in t.items)
    return False


#: the discrete part of a real or a real list: the sign of each number (``x >= 0``)
SIGNS = ("signs",)


def discrete_part(t: Optional[A.SimpleType]) -> Optional[Tuple]:
    """The discrete part ``D`` of the outputs of type ``t`` the Pointwise rule ranges over:
    ``(None,)`` for a countable type (D is the identity), the positions of the countable
    components of a tuple or of the tuples of a list (D maps each tuple of the list to those
    components; the others must then be equal in both runs wherever D is ``v``), ``SIGNS``
    for a real or a list of reals (D maps each number to ``x >= 0``; the outputs must be
    equal wherever D is ``v``), or None when there is no such part. Any D with countably many
    values gives the rule: the claim's outputs split into the cells ``D = v``, each coupled on
    its own."""
    if discrete(t):
        return (None,)
    if _real(t) or isinstance(t, A.TList) and _real(t.elem):
        return SIGNS
    if isinstance(t, A.TList):  # a list of tuples: the lists of their countable components
        t = t.elem
    if isinstance(t, A.TTuple):
        positions = tuple(i for i, item in enumerate(t.items) if discrete(item))
        return positions or None
    return None


def _real(t: Optional[A.SimpleType]) -> bool:
    from verifier.translation import logic as L
    return isinstance(t, A.TBase) and L.sort_of_type(t) == T.REAL


def project(value: SymValue, part: Tuple[Optional[int], ...]) -> Optional[List[T.Term]]:
    """The terms of ``D(value)`` (the discrete part of an output); None when the value is
    not first-order."""
    from verifier.translation.symbolic import value_terms
    if part == SIGNS:
        if not isinstance(value, Scalar):
            return None
        if value.term.sort == T.REAL:
            return [T.ge(value.term, T.real(0))]
        return [list_signs(value.term)] if list_key_of(value.term.sort) == "real" else None
    if part == (None,):
        items = [value]
    elif isinstance(value, TupleV):
        items = [value.items[i] for i in part]
    elif isinstance(value, Scalar) and tuple_components(list_key_of(value.term.sort)):
        return [list_part(value.term, i) for i in part]
    else:
        return None
    out: List[T.Term] = []
    for item in items:
        if isinstance(item, UnitV):
            continue
        terms = value_terms(item)
        if not terms:
            return None
        out += terms
    return out


@judgement_rule(registry.POINTWISE)
def Pointwise(b: Builder, ctx: Ctx, body: A.Expr, rt: A.RMonad) -> Derivation:
    """The pointwise equality rule (``coupling.pointwise``; LICS 2016, Prop. 8): the claim
    ``M[DP(eps)] {x :: T | =}`` with delta 0 holds when, for every value ``v`` of the
    output's discrete part ``D``, the outputs are coupled by ``D(x<1>) = v => x<1> = x<2>``
    at cost eps. The body is checked against the claim with Case-Output allowed; every path
    then ends in equal outputs or, by a Case-Output, in a run-1 output whose ``D`` is not
    ``v``."""
    claim = ctx.claim
    out_type = _drawn_type(rt)
    part = discrete_part(out_type)
    if claim is None or claim.family != "DP" or claim.relation or part is None:
        raise NoRule("the pointwise rule proves claims M[DP(eps)] {x :: T | =} whose outputs "
                     "have a countable part", body.span)
    if claim.delta != T.real(0):
        raise NoRule("the pointwise rule needs delta 0 (a delta per output value would add "
                     "up over the outputs)", body.span)
    inner = b.check_monadic(replace(ctx, claim=replace(claim, pointwise=part)), body)
    what = ("the output" if part == (None,) else
            "the signs (x >= 0) of the output" if part == SIGNS else
            "components " + ", ".join(str(i + 1) for i in part) + " of the output")
    return b.node("Pointwise", ctx, body.span,
                  f"for every value v of {what}: x<1> has it => x<1> = x<2>", [inner],
                  lemma="coupling.pointwise", part=list(part))


@judgement_rule(registry.POINTWISE_VALUE)
def PointwiseValue(b: Builder, ctx: Ctx, body: A.Expr, rt: A.RMonad) -> Derivation:
    """The pointwise rule with the output value named (``coupling.pointwise``, LICS 2016
    Prop. 8, as the paper states it): the claim ``M[DP(eps)] {x :: T | =}`` with delta 0 and a
    countable ``T`` holds when, for a value ``v`` nothing is known of (``invariants.POINT``,
    bound by the search), the outputs are coupled at cost eps by ``x<1> = v => x<2> = v``.
    The body is checked against that lifting; a recursive helper it calls without a val is
    used through the invariant the search states for it (``invariants.argmax_val``), whose
    derivation — the helper's definition against it, by induction, for the same ``v`` — is
    a premise of this node."""
    from verifier.rules.core_rules import check_definition
    claim = ctx.claim
    search = b.search
    if claim is None or claim.family != "DP" or claim.relation or claim.var is None \
            or discrete_part(_drawn_type(rt)) != (None,) or search is None \
            or search.point is None:
        raise NoRule("Pointwise-Value proves claims M[DP(eps)] {x :: T | =} with a countable T",
                     body.span)
    if claim.delta != T.real(0):
        raise NoRule("the pointwise rule needs delta 0 (a delta per output value would add "
                     "up over the outputs)", body.span)
    s = body.span
    relation = A.Implies(A.BinOp("=", A.RunVar(claim.var, 1, s), A.Var(POINT, s), s),
                         A.BinOp("=", A.RunVar(claim.var, 2, s), A.Var(POINT, s), s), s)
    inner = b.check_monadic(replace(ctx, claim=replace(claim, relation=(relation,))), body)
    helpers = []
    for name, inv in b.invariants.items():
        helpers.append(check_definition(b, inv, b.let_of(name)))
    return b.node("Pointwise-Value", ctx, body.span,
                  "for every value v of the output: x<1> = v => x<2> = v"
                  + (f", with the invariant of {', '.join(written(n) for n in b.invariants)} "
                     "relative to v" if b.invariants else ""),
                  [inner, *helpers], lemma="coupling.pointwise",
                  invariants=[{"function": n, "val": written(pretty_rtype(v.rtype))}
                              for n, v in b.invariants.items()])


def assume_point(b: Builder, program: A.Program, val: A.ValDecl) -> None:
    """Prepare ``b`` for Pointwise-Value on ``val``: the output value ``v`` (a fresh variable
    of the output's sort, bound to ``POINT`` at the top level) and, for each recursive helper
    without a val that the definition reaches, the invariant the argmax template states (as
    its val in this derivation only)."""
    from verifier.translation import logic as L
    rt = val.rtype
    while isinstance(rt, A.RArrow):
        rt = rt.cod
    sort = L.sort_of_type(_drawn_type(rt))
    point = b.fresh("v", sort)
    b.top_env = b.top_env.bind(POINT, Scalar(point), Scalar(point))
    b.search.point = point
    decl = program.find_let(val.name)
    b.search.literals = tuple(sorted({n.value for d in _reached(program, decl)
                                      for n in A.descendants(d.body)
                                      if isinstance(n, A.IntLit)}))[:4]
    b.invariants = {}
    vals = {v.name for v in program.vals()}
    for helper in _reached(program, decl):
        if helper is decl or not helper.recursive or helper.name in vals:
            continue
        inv = argmax_val(helper, decl, val, b.type_of)
        if inv is not None:
            b.invariants[helper.name] = inv
            b._vals[helper.name] = inv
            b.search.direction = loop_direction(helper, argmax_roles(helper))


def _drawn_type(rt: A.RMonad) -> Optional[A.SimpleType]:
    base = rt.body
    while isinstance(base, A.RRefine):
        base = base.base
    return base.type if isinstance(base, A.RSimple) else None


# ---- Case-Output --------------------------------------------------------------------------------

@monadic_rule(A.MLet, first=True)
def CaseOutput(b: Builder, ctx: Ctx, e: A.MLet) -> Derivation:
    """``mlet x = m in if C then A else B`` under Pointwise: split on whether the output value
    ``v`` is one run 1 can reach through ``A`` (``coupling.cases``). Premise Case-Then couples
    ``m`` so that run 1 taking ``then`` takes run 2 there too (``C<1> ⇒ C<2>``) and checks
    ``A``; run 1 taking ``else`` reaches an output whose discrete part is not ``v`` — the
    branches' outputs are disjoint (the obligation of this node) — so that path only pays
    what it spent (an S-M). Premise Case-Else is the mirror image. Each premise couples
    ``m`` its own way: the shift may depend on ``v``."""
    claim = ctx.claim
    if claim is None or not claim.pointwise or not isinstance(e.body, A.If):
        raise NotApplicable("Case-Output applies under the pointwise rule to an mlet whose body "
                            "is an if", e.span, e)
    part = claim.pointwise
    disjoint = disjointness(b, ctx, e, part)
    if disjoint is None or not b.proves(disjoint[0]):
        why = "the outputs of the two branches of the if may have the same discrete part"
        note = None
        if disjoint is not None:
            note = (f"Case-Output (at {e.span.line}:{e.span.col}) was tried first and does "
                    f"not apply: not proved that {disjoint[0].provenance.description}")
        raise NotApplicable(why, e.span, e, note=note)
    cond = e.body.cond
    premises = []
    for label, branch in (("then", e.body.then), ("else", e.body.else_)):
        inner = replace(ctx.in_case(f"output {label}"), out_case=(label, cond))
        first = b.synth_monadic(inner.binding(e.pattern), e.value)
        env = bind_pattern(inner.env, e.pattern, *first.output, e.span)
        after = first.continue_in(inner.with_env(env))
        (left, right), _ = b.translate_pair(after, cond)
        c1, c2 = b.translator.as_term(left, cond), b.translator.as_term(right, cond)
        follows, taken, vacuous = branch_conditions(label, c1, c2)
        ob = b.oblige(after, ObligationKind.ENTAILMENT, follows,
                      f"run 1 taking the {label} branch of if {short(cond, 40)} takes run 2 "
                      "there too (the coupling keeps the runs together)", cond.span,
                      "Case-Output")
        rest = b.check_monadic(after.assume(f"h_{label}", taken).in_case(label), branch)
        other = "else" if label == "then" else "then"
        spent = b.subsumption(after.assume("h_vacuous", vacuous), after.costs, e)
        spent.judgement["summary"] = (f"run 1 taking {other} cannot output v: "
                                      + spent.judgement["summary"])
        premises.append(b.node(f"Case-{label.title()}", ctx, e.span,
                               f"v is an output of the {label} branch: couple "
                               f"{short(e.value, 40)} so that both runs take it",
                               [first.node, rest, spent], [ob]))
    return b.node("Case-Output", ctx, e.span,
                  f"split on the branch of if {short(cond, 40)} whose outputs include v",
                  premises, disjoint, lemma="coupling.cases")


def branch_conditions(label: str, c1: T.Term, c2: T.Term) -> Tuple[T.Term, T.Term, T.Term]:
    """For the premise of Case-Output about branch ``label`` of an if on ``c`` (``c1``,
    ``c2`` in the two runs): what the coupling must give (run 1 on that branch puts run 2
    there), where both runs take it, and where run 1 takes the other (the vacuous paths)."""
    if label == "then":
        return T.implies(c1, c2), T.and_(c1, c2), T.not_(c1)
    return T.implies(T.not_(c1), T.not_(c2)), T.and_(T.not_(c1), T.not_(c2)), c1


def disjointness(b: Builder, ctx: Ctx, e: A.MLet, part) -> Optional[list]:
    """The obligation that no output run 1 reaches through the then branch of ``mlet x = m in
    if C then A else B`` has the discrete part of one it reaches through the else branch —
    each branch walked from the state before ``m`` with a sample of its own (the case split
    is decided before ``m`` samples) — followed by the induction steps of the counter-support
    facts the walk used (``support_inductions``)."""
    support = Support(support_helpers(b.program, b._vals))
    try:
        through_then = run1_outputs(b, ctx.env, e, branch="then", support=support)
        through_else = run1_outputs(b, ctx.env, e, branch="else", support=support)
        inductions = support_inductions(b, ctx, support)
    except NoRule:
        return None
    if inductions is None:
        return None
    goals = []
    for facts_a, out_a in through_then:
        for facts_b, out_b in through_else:
            da, db = project(out_a, part), project(out_b, part)
            if da is None or db is None or len(da) != len(db) \
                    or any(x.sort != y.sort for x, y in zip(da, db)):
                return None
            same = T.and_(*(T.eq(x, y) for x, y in zip(da, db)))
            goals.append(T.implies(T.and_(*facts_a, *facts_b), T.not_(same)))
    return [b.oblige(ctx, ObligationKind.ENTAILMENT, T.and_(*goals),
                     f"the outputs run 1 reaches through the two branches of if "
                     f"{short(e.body.cond, 40)} differ (in their discrete part)", e.span,
                     "Case-Output")] + inductions


@record(frozen=False)
class Support:
    """The counter-support facts Case-Output's enumeration of run 1's outputs may use
    (``invariants.counter_support``): the helpers they fit, and those used (each then proved
    by induction: ``support_inductions``)."""

    helpers: Dict[str, tuple]
    used: List[str] = field(default_factory=list)


def support_inductions(b: Builder, ctx: Ctx, support: Support) -> Optional[list]:
    """For each helper whose counter-support fact was used (and each one its own proof uses):
    the induction step, an obligation — its body's outputs in run 1, from parameters of which
    only their types are known and with the fact assumed of its recursive calls (fixpoint
    induction), satisfy the fact. None when one does not hold."""
    from verifier.rules.refinements import fresh_value
    out, done = [], 0
    base = replace(ctx, hyps=())
    while done < len(support.used):
        name = support.used[done]
        done += 1
        decl, s = support.helpers[name]
        env, facts, counter = b.env_at(decl), [], None
        for k, (param, t) in enumerate(zip(decl.params, val_domains(b._vals[name]))):
            value, known = fresh_value(b, t, param.name)
            facts += known
            env = bind_pattern(env, param, value, value, decl.span)
            if k == s.counter:
                counter = value
        if not isinstance(counter, Scalar) \
                or len(decl.params) != len(val_domains(b._vals[name])):
            return None
        goals = []
        for path, value in run1_outputs(b, env, decl.body, support=support):
            fact = support_term(s, value.term, counter.term) if isinstance(value, Scalar) \
                else None
            if fact is None:
                return None
            goals.append(T.implies(T.and_(*facts, *path), fact))
        ob = b.oblige(base, ObligationKind.ENTAILMENT, T.and_(*goals),
                      f"every output of {written(name)} is "
                      + " or ".join([str(c) for c in s.constants]
                                    + [f"at least its counter {written(decl.params[s.counter].name)}"])
                      + " (induction on its definition)", decl.span, "Case-Output")
        if not b.proves(ob):
            return None
        out.append(ob)
    return out


# ---- run 1's outputs ---------------------------------------------------------------------------

Outputs = List[Tuple[List[T.Term], SymValue]]


def run1_outputs(b: Builder, env, e: A.Expr, branch: Optional[str] = None,
                 depth: int = 0, support: Optional[Support] = None) -> Outputs:
    """The values computation ``e`` may output in run 1, each with the conditions of its path:
    an over-approximation (what ``e`` draws from a mechanism, a call of a val or a
    distribution is a fresh value, of which nothing is assumed). ``branch``: for ``mlet x = m
    in if C then A else B``, only the paths through that branch."""
    if depth > 64:
        raise NoRule("the outputs of this computation are nested too deeply to enumerate",
                     e.span)
    if isinstance(e, A.Return):
        return [([], _run1(b, e.value, env))]
    if isinstance(e, A.Let):
        v = _run1(b, e.value, env)
        return run1_outputs(b, bind_pattern(env, e.pattern, v, v, e.span), e.body, None,
                            depth + 1, support)
    if isinstance(e, A.MLet):
        out: Outputs = []
        for facts, v in run1_outputs(b, env, e.value, None, depth + 1, support):
            inner = bind_pattern(env, e.pattern, v, v, e.span)
            body = e.body
            if branch is not None:
                if not isinstance(body, A.If):
                    raise NoRule("not an if", e.span)
                c = b.translator.as_term(_run1(b, body.cond, inner), body.cond)
                facts = facts + [c if branch == "then" else T.not_(c)]
                body = body.then if branch == "then" else body.else_
            out += [(facts + f, o)
                    for f, o in run1_outputs(b, inner, body, None, depth + 1, support)]
        return out
    if isinstance(e, A.If):
        c = b.translator.as_term(_run1(b, e.cond, env), e.cond)
        return ([([c] + f, o)
                 for f, o in run1_outputs(b, env, e.then, None, depth + 1, support)] +
                [([T.not_(c)] + f, o)
                 for f, o in run1_outputs(b, env, e.else_, None, depth + 1, support)])
    if isinstance(e, A.App):
        head, args = flatten_app(e)
        fn = _run1(b, head, env) if not (isinstance(head, A.Var) and env.lookup(head.name)
                                         is None) else None
        if support is not None and isinstance(fn, NamedFun) and fn.name == head.name \
                and head.name in support.helpers \
                and len(args) == len(support.helpers[head.name][0].params):
            # a helper's counter-support fact (proved by induction: support_inductions)
            out = _fresh_output(b, e)
            s = support.helpers[head.name][1]
            counter = _run1(b, args[s.counter], env)
            fact = support_term(s, out.term, counter.term) \
                if isinstance(out, Scalar) and isinstance(counter, Scalar) else None
            if fact is not None:
                if head.name not in support.used:
                    support.used.append(head.name)
                return [([fact], out)]
        if isinstance(fn, Closure) and len(args) == len(fn.params):
            inner = fn.env
            for param, arg in zip(fn.params, args):
                v = _run1(b, arg, env)
                inner = bind_pattern(inner, param, v, v, arg.span)
            return run1_outputs(b, inner, fn.body, None, depth + 1, support)
        return [([], _fresh_output(b, e))]
    if isinstance(e, A.Var):
        pair = env.lookup(e.name)
        if pair and isinstance(pair[0], Monadic) and pair[0].expr is not None:
            return run1_outputs(b, pair[0].env, pair[0].expr, None, depth + 1, support)
        return [([], _fresh_output(b, e))]
    if isinstance(e, A.Match):
        # either case, the head and tail of the list nothing is known of (an over-approximation)
        from verifier.rules.refinements import fresh_value
        t = b.type_of(e.scrutinee)
        if not isinstance(t, A.TList):
            raise NoRule(f"the outputs of {short(e, 40)} are not enumerated", e.span)
        inner = env
        for name, part in ((e.head, t.elem), (e.tail, t)):
            if name != "_":
                value = fresh_value(b, part, "w")[0]
                inner = inner.bind(name, value, value)
        return (run1_outputs(b, env, e.nil_body, None, depth + 1, support)
                + run1_outputs(b, inner, e.cons_body, None, depth + 1, support))
    if isinstance(e, (A.Ran, A.Observe, A.Infer)):
        return [([], _fresh_output(b, e))]
    raise NoRule(f"the outputs of {short(e, 40)} are not enumerated", e.span)


def _run1(b: Builder, e: A.Expr, env) -> SymValue:
    with b.collecting([]):
        return b.translator.expr(e, 1, env)


def _fresh_output(b: Builder, e: A.Expr) -> SymValue:
    """Any value a computation ``e`` may draw: a fresh value of its type (nothing assumed)."""
    t = b.type_of(e)
    if not isinstance(t, A.TMonad):
        raise NoRule(f"the type of {short(e, 40)} is not known", e.span)
    return fresh_value(b, t.elem, "w")[0]


# ---- the search --------------------------------------------------------------------------------

def prove_by_coupling(program: A.Program, typed, val: A.ValDecl, *, rlimit=None,
                      session=None, failed=None, why_not: Optional[List[str]] = None
                      ) -> Optional[Tuple[Builder, Derivation]]:
    """A derivation of ``val`` whose every obligation is verified, with the ``lapMech`` calls
    coupled by shifts (and, when the claim allows it, by the Pointwise rule), or None.

    Tried after the identity couplings fail, for a DP claim whose definition applies
    ``lapMech``: first shifts alone, then (claims ``M[DP(eps)] {x :: T | =}`` with a
    countable part) the Pointwise rule. Each mode rebuilds the derivation with an assignment
    of shifts to sites, learns a nogood from every failing obligation (the sites whose shift
    variables it mentions, with their shifts), and tries the first assignment no nogood
    rules out; an obligation that mentions no shift ends the mode (no coupling changes it).
    At most ``MAX_ATTEMPTS`` derivations per mode.

    A mode is tried only where it may help (``failed``: the obligations that failed with the
    identity couplings, when there is a derivation): shifts alone when the claim lifts a
    relation other than ``=``, when an argument of a call failed a refinement of its val
    (a threshold the callee wants shifted), or when a Laplace output is the argument of another
    mechanism; the pointwise rule when the definition has the shape Case-Output splits, ``mlet
    x = m in if C then A else B``. When none is found and ``why_not`` is a list, the notes of
    the failures where no rule applied (what a rule tried first could not prove,
    ``NoRule.notes``) are appended to it."""
    decl = program.find_let(val.name)
    rt = val.rtype
    while isinstance(rt, A.RArrow):
        rt = rt.cod
    if decl is None or not isinstance(rt, A.RMonad) or rt.div.kind != "DP" \
            or not _uses_laplace(program, decl):
        return None
    modes = []
    if _shifts_may_help(program, decl, rt, failed):
        modes.append(False)
    if _pointwise_applies(rt) and _splits(program, decl):
        modes.append(True)
    if POINTWISE_VALUE and _pointwise_applies(rt) and _point_sort(rt) is not None \
            and _helper_loops(program, decl, val):
        modes.append("value")
    constants = claim_constants(val)
    for pointwise in modes:
        stopped: List[str] = []
        found = _search(program, typed, val, pointwise, constants, rlimit, session, stopped)
        if found is not None:
            return found
        if why_not is not None:
            why_not.extend(note for note in stopped if note not in why_not)
    return None


def _helper_loops(program: A.Program, decl: A.LetDecl, val: A.ValDecl) -> bool:
    """The definition reaches a recursive helper without a val that the argmax template
    fits (Pointwise-Value may then prove it)."""
    from verifier.language.invariants import allwithin_bound
    vals = {v.name for v in program.vals()}
    return allwithin_bound(val) is not None and any(
        d is not decl and d.recursive and d.name not in vals and argmax_roles(d) is not None
        for d in _reached(program, decl))


def _pointwise_applies(rt: A.RMonad) -> bool:
    var = None
    body, assertions = rt.body, []
    while isinstance(body, A.RRefine):
        var = body.var
        assertions.append(body.assertion)
        body = body.base
    delta_zero = rt.delta is None or (isinstance(rt.delta, (A.IntLit, A.RealLit))
                                      and rt.delta.value == 0)
    return (var is not None and len(assertions) == 1 and isinstance(assertions[0], A.SameRuns)
            and delta_zero and isinstance(body, A.RSimple)
            and discrete_part(body.type) is not None)


def _shifts_may_help(program: A.Program, decl: A.LetDecl, rt: A.RMonad, failed) -> bool:
    """Where shifts alone (no pointwise rule) can turn a failed derivation into a proof: the
    claim lifts another relation than ``=``; a call's argument failed a refinement of the
    callee's val; or a Laplace output feeds another mechanism (the first noise coupled away,
    paid by the second). Otherwise an output shifted in one run stays unequal to the other's
    and every shift fails the claim's ``=``."""
    body = rt.body
    while isinstance(body, A.RRefine):
        if not isinstance(body.assertion, A.SameRuns):
            return True
        body = body.base
    if failed is None or any(ob.provenance.rule == "App-Val" for ob in failed):
        return True
    return _noise_feeds_mechanism(program, decl)


def _noise_feeds_mechanism(program: A.Program, decl: A.LetDecl) -> bool:
    """Some ``mlet x = lapMech (...)`` of the definition (or a helper it unfolds) binds an
    ``x`` that occurs in the argument of a mechanism call."""
    for d in _reached(program, decl):
        for node in A.descendants(d.body):
            if isinstance(node, A.MLet) and _is_laplace(node.value) \
                    and isinstance(node.pattern, A.PVar):
                x = node.pattern.name
                for inner in A.descendants(node.body):
                    if _is_mechanism(inner) and any(isinstance(n, A.Var) and n.name == x
                                                    for n in A.descendants(inner.arg)):
                        return True
    return False


def _splits(program: A.Program, decl: A.LetDecl) -> bool:
    """The definition (or a helper it unfolds) has the shape of Case-Output: an ``mlet``
    whose body is an ``if``."""
    return any(isinstance(node, A.MLet) and isinstance(node.body, A.If)
               for d in _reached(program, decl) for node in A.descendants(d.body))


def _reached(program: A.Program, decl: A.LetDecl) -> List[A.LetDecl]:
    """``decl`` and the top-level definitions without a val it names (which it unfolds)."""
    lets = {d.name: d for d in program.lets()}
    vals = {v.name for v in program.vals()}
    out, seen, todo = [], set(), [decl]
    while todo:
        d = todo.pop()
        if d.name in seen:
            continue
        seen.add(d.name)
        out.append(d)
        for node in A.descendants(d.body):
            if isinstance(node, A.Var) and node.name in lets and node.name not in vals:
                todo.append(lets[node.name])
    return out


def _is_laplace(e: A.Expr) -> bool:
    head = e
    while isinstance(head, A.App):
        head = head.fn
    return isinstance(e, A.App) and isinstance(head, A.Var) and head.name == "lapMech"


def _is_mechanism(e: A.Expr) -> bool:
    from verifier.language.builtins import BUILTINS
    head = e
    while isinstance(head, A.App):
        head = head.fn
    return isinstance(e, A.App) and isinstance(head, A.Var) and head.name in BUILTINS \
        and BUILTINS[head.name].rule is not None


def _uses_laplace(program: A.Program, decl: A.LetDecl) -> bool:
    """Whether ``decl`` or a top-level definition it names applies ``lapMech`` (the one
    mechanism with shifted couplings)."""
    lets = {d.name: d for d in program.lets()}
    seen, todo = set(), [decl]
    while todo:
        d = todo.pop()
        if d.name in seen:
            continue
        seen.add(d.name)
        for node in A.descendants(d.body):
            if isinstance(node, A.Var):
                if node.name == "lapMech":
                    return True
                if node.name in lets:
                    todo.append(lets[node.name])
    return False



def _search(program, typed, val, pointwise: bool, constants, rlimit, session,
            stopped: List[str]) -> Optional[Tuple[Builder, Derivation]]:
    """The shift assignments of one mode, learning nogoods (``prove_by_coupling``); where a
    derivation stops because no rule applies, its notes are appended to ``stopped``."""
    cache: dict = {}
    assignment: Dict[Tuple, Shift] = {}
    order: List[Tuple] = []
    options: Dict[Tuple, Tuple[Shift, ...]] = {}
    nogoods: List[frozenset] = []
    for _ in range(MAX_ATTEMPTS):
        built = _build(program, typed, val, pointwise, constants, assignment, cache, rlimit,
                       session, stopped=stopped)
        if built is None:
            return None
        b, root, failing = built
        if failing and pointwise == "value" and b.invariants:
            _note_invariants(b, failing[0], stopped)
        for key, site in b.search.sites.items():
            if key not in options:
                order.append(key)
                options[key] = site.candidates
        if not failing:
            final = _build(program, typed, val, pointwise, constants, assignment, cache,
                           rlimit, session, final=True)
            if final is not None and not final[2]:
                return final[0], final[1]
            return b, root
        learned = _learn(b, failing, assignment, options)
        if learned is None:
            return None  # an obligation no shift enters: no coupling changes it
        nogoods += learned
        assignment = _next_assignment(order, options, nogoods)
        if assignment is None:
            return None
    return None


def _note_invariants(b: Builder, ob, stopped: List[str]) -> None:
    """Under Pointwise-Value, what a search that fails tried: the invariant stated for the
    helpers without a val (whose absence the first derivation's failure names) and the first
    obligation that failed under the latest coupling (one note, the latest)."""
    kind = "argmax" if b.search.direction > 0 else "argmin"
    helpers = ", ".join(written(n) for n in b.invariants)
    prefix = f"Pointwise-Value stated the {kind} loop's invariant for {helpers}"
    stopped[:] = [line for line in stopped if not line.startswith(prefix)]
    stopped.append(f"{prefix} (LICS 2016, section 6); no coupling the search tried proves the "
                   f"claim with it: {ob.provenance.rule}: {ob.provenance.description}")


def _point_sort(rt: A.RMonad):
    """The sort of the output value ``v`` Pointwise-Value names: None for an output the logic
    has no one sort for (a tuple)."""
    from verifier.translation import logic as L
    return L.sort_of_type(_drawn_type(rt))


def _build(program, typed, val, pointwise, constants, assignment, cache, rlimit, session,
           final: bool = False, stopped: Optional[List[str]] = None):
    """One derivation under ``assignment``: the builder, the root and the obligations that
    are not verified (None when no rule applies; then the notes of that failure are appended
    to ``stopped``)."""
    b = Builder(program, typed, rlimit=rlimit, session=session)
    b._cache = cache  # verified results are shared by content (obligation ids are digests)
    b.search = Search(assignment=dict(assignment), constants=constants, pointwise=pointwise,
                      final=final)
    try:
        if pointwise == "value":
            assume_point(b, program, val)
        root = b.prove_claim(val, pointwise=pointwise)
        root.premises.extend(b.root_premises())
    except NoRule as exc:
        if stopped is not None:
            stopped.extend(exc.notes)
        return None
    failing = [ob for ob in root.all_obligations() if not b.proves(ob)]
    return b, root, failing


def _learn(b: Builder, failing, assignment: Dict[Tuple, Shift], options
           ) -> Optional[List[frozenset]]:
    """Nogoods from the obligations that failed under ``assignment``: each failing conjunct
    of a goal rules out the shifts of the sites it mentions (a conjunct is judged alone, with
    the hypotheses connected to it); a conjunct that mentions one site only is tried, on the
    spot, with that site's other candidates (its shift variable redefined), each that fails
    it being a nogood of its own. None when a failing conjunct mentions no shift."""
    search = b.search
    nogoods: List[frozenset] = []
    for ob in failing:
        pieces = _failing_conjuncts(b, ob)
        for piece in pieces:
            deps = _sites_of(piece, search)
            if not deps:
                return None
            nogoods.append(frozenset((k, assignment.get(k, IDENTITY)) for k in deps))
            if len(deps) == 1 and search.point is None:
                # (under Pointwise-Value a conjunct judged alone may miss the facts of the
                # guard's v that the other sites' hypotheses carry: no elimination on the spot)
                (site,) = deps
                current = assignment.get(site, IDENTITY)
                for shift in options.get(site, ()):
                    if shift != current and not _holds_with(b, piece, site, shift):
                        nogoods.append(frozenset({(site, shift)}))
    return nogoods


def _failing_conjuncts(b: Builder, ob) -> list:
    """The conjuncts of ``ob``'s goal that fail on their own (each an obligation with the
    hypotheses connected to it), or ``[ob]``."""
    from obligations.model import Obligation
    from obligations.relevance import relevant
    from verifier.rules import axioms as AX
    parts = _conjuncts(ob.goal)
    if len(parts) < 2:
        return [ob]
    named = tuple((h.name, h.term) for h in ob.hypotheses)
    out = []
    for part in parts:
        hyps = tuple(relevant(named, part, b.witnesses))
        sub = Obligation(kind=ob.kind, hypotheses=hyps, goal=part,
                         axioms=AX.instantiate([t for _, t in hyps] + [part]),
                         provenance=ob.provenance)
        if not b.proves(sub):
            out.append(sub)
    return out or [ob]


def _conjuncts(t: T.Term) -> list:
    if isinstance(t, T.Op) and t.op == T.OpKind.AND:
        return [c for a in t.args for c in _conjuncts(a)]
    return [t]


def _holds_with(b: Builder, ob, site: Tuple, shift: Shift) -> bool:
    """Whether ``ob`` holds with the shift variables of ``site`` defined by ``shift``
    instead (a quick test that rules candidates out; never the proof of one)."""
    from obligations.model import Obligation
    from verifier.rules import axioms as AX
    search = b.search
    hyps = []
    for h in ob.hypotheses:
        term = h.term
        if isinstance(term, T.Op) and term.op == T.OpKind.EQ and isinstance(term.args[0], T.Var) \
                and search.shift_vars.get(term.args[0].name) == site \
                and term.args[0].name in search.values:
            v1, v2 = search.values[term.args[0].name]
            guards = search.guards.get(site, {})
            if shift.at is not None and shift.at not in guards:
                return False
            term = T.eq(term.args[0], shift.term(v1, v2, guards.get(shift.at)))
        hyps.append((h.name, term))
    sub = Obligation(kind=ob.kind, hypotheses=tuple(hyps), goal=ob.goal,
                     axioms=AX.instantiate([t for _, t in hyps] + [ob.goal]),
                     provenance=ob.provenance)
    return b.proves(sub)


def _sites_of(ob, search: Search) -> set:
    """The sites whose shift variable obligation ``ob`` mentions."""
    names = {v.name for v in T.free_vars(ob.goal, *(h.term for h in ob.hypotheses))}
    return {search.shift_vars[n] for n in names if n in search.shift_vars}


def _next_assignment(order: Sequence[Tuple], options, nogoods: Sequence[frozenset]
                     ) -> Optional[Dict[Tuple, Shift]]:
    """The first assignment of a shift to every site (in the order the sites were met, each
    site's candidates in their order) that contains no nogood; None when there is none."""
    chosen: Dict[Tuple, Shift] = {}
    steps = [0]

    def blocked() -> bool:
        return any(all(chosen.get(k) == s for k, s in ng) for ng in nogoods)

    def dfs(i: int) -> bool:
        if i == len(order):
            return True
        key = order[i]
        for shift in options[key]:
            steps[0] += 1
            if steps[0] > MAX_STEPS:
                return False
            chosen[key] = shift
            if not blocked() and dfs(i + 1):
                return True
            del chosen[key]
        return False
    return dict(chosen) if dfs(0) else None
