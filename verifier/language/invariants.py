"""Invariants that depend on the output value ``v`` of the Pointwise rule (docs/verifier.md,
"Couplings": Pointwise-Value).

Under the pointwise rule the claim ``M[DP(eps)] {r :: T | =}`` is proved, for every value
``v`` of the output, as the lifting of ``r<1> = v => r<2> = v``. A recursive helper without a
val that the body calls (a loop) then needs an induction hypothesis that depends on ``v``:
this module states it, as a ``val`` whose assertions mention ``v`` (the name ``POINT``, which
no program can write). Whoever uses the val proves it (the helper's definition against it, by
induction, in the same proof and for the same ``v``): what it states is a hint, not a trust.

One template is known, the *argmax loop* (Barthe, Gaboardi, Grégoire, Hsu and Strub, LICS
2016, §6, Report Noisy Max): a helper ``let rec f … l … i … bi … bv … = match l with [] ->
return bi | x :: rest -> …`` whose recursive calls pass ``rest``, ``i + 1`` at the counter
``i``, the other parameters unchanged or (``bi``: an integer, ``bv``: a real) updated; the
answers of ``l`` move by at most ``c`` (``allWithin``). With ``K`` the cost of shifting the
winner's noise, the invariant reads: the best indices are below the counter; before the
counter reaches ``v``, run 2's best value is at most run 1's plus ``c``; after it, run 1's best
index being ``v`` implies run 2's is, with run 2's best value at least run 1's plus ``c``; the
cost is ``K`` while ``v`` is ahead and 0 once it is passed. The *argmin loop* (Report Noisy
Min: the same loop keeping the smallest noisy answer) has the mirror image: run 2's best value
at least run 1's minus ``c`` before ``v``, at most run 1's minus ``c`` after it
(``loop_direction`` reads which from the comparison that updates the best value; a wrong
reading costs a proof, never soundness: the invariant is proved).
"""
from __future__ import annotations

from fractions import Fraction
from typing import Dict, List, Optional, Sequence, Tuple

from obligations.records import record
from verifier.language import ast as A

#: the name of the output value ``v`` in the assertions of an invariant (``#0`` is never the
#: suffix of a name resolution gives, nor anything the lexer reads)
POINT = "v#0"


@record
class ArgmaxRoles:
    """The parameters of an argmax loop, by position: the list walked, the counter, the best
    index, the best value and the parameters passed unchanged."""

    items: int
    counter: int
    index: int
    value: int
    same: tuple
    #: a boolean "started" parameter every recursive call passes ``true`` (the first answer
    #: is taken whatever it is, instead of being peeled off before the loop), or None
    flag: Optional[int] = None


def argmax_roles(decl: A.LetDecl) -> Optional[ArgmaxRoles]:
    """The roles of ``decl``'s parameters when it is an argmax loop (module docstring)."""
    params = decl.params
    if not decl.recursive or not all(isinstance(p, A.PVar) for p in params) \
            or not isinstance(decl.body, A.Match) or not isinstance(decl.body.scrutinee, A.Var):
        return None
    names = [p.name for p in params]
    m = decl.body
    if m.scrutinee.name not in names or not isinstance(m.nil_body, A.Return) \
            or not isinstance(m.nil_body.value, A.Var) or m.nil_body.value.name not in names:
        return None
    items, index = names.index(m.scrutinee.name), names.index(m.nil_body.value.name)
    calls = [args for args in _calls(m.cons_body, decl.name) if len(args) == len(names)]
    if not calls or len(calls) != sum(1 for _ in _calls(m.cons_body, decl.name)):
        return None
    counter, flag, same, updated = None, None, [], []
    for k, name in enumerate(names):
        at = [args[k] for args in calls]
        if k == items:
            if not all(isinstance(a, A.Var) and a.name == m.tail for a in at):
                return None
        elif all(isinstance(a, A.Var) and a.name == name for a in at):
            same.append(k)
        elif all(isinstance(a, A.BinOp) and a.op == "+" and isinstance(a.left, A.Var)
                 and a.left.name == name and isinstance(a.right, A.IntLit)
                 and a.right.value == 1 for a in at) and counter is None:
            counter = k
        elif all(isinstance(a, A.BoolLit) and a.value for a in at) and flag is None:
            flag = k
        else:
            updated.append(k)
    if counter is None or index not in updated or len(updated) != 2:
        return None
    value = updated[0] if updated[1] == index else updated[1]
    return ArgmaxRoles(items, counter, index, value, tuple(same), flag)


def _calls(e: A.Expr, name: str):
    """The argument lists of the applications of ``name`` in ``e``."""
    from verifier.translation.translate import flatten_app
    nodes = list(A.descendants(e))
    inner = {id(n.fn) for n in nodes if isinstance(n, A.App)}
    for node in nodes:
        if isinstance(node, A.App) and id(node) not in inner:
            head, args = flatten_app(node)
            if isinstance(head, A.Var) and head.name == name:
                yield list(args)


def argmax_invariant(decl: A.LetDecl, roles: ArgmaxRoles, bound: Fraction,
                     types: Sequence[A.SimpleType], cost: A.Expr, direction: int = 1
                     ) -> A.ValDecl:
    """The val the argmax template states for ``decl`` (module docstring): ``bound`` is ``c``,
    ``types`` the simple type of each parameter, ``cost`` the index ``K`` (an expression over
    the parameters); ``direction`` -1: the argmin loop's (the mirror image)."""
    names = [p.name for p in decl.params]
    span = decl.span
    c = A.RealLit(bound, str(float(bound)), span)
    # how far run 2's best value is from run 1's: above for an argmax, below for an argmin
    gap = c if direction > 0 else A.RealLit(-bound, str(float(-bound)), span)
    v = A.Var(POINT, span)
    i, bi, bv = (A.Var(names[k], span) for k in (roles.counter, roles.index, roles.value))

    def run(x: A.Var, k: int) -> A.RunVar:
        return A.RunVar(x.name, k, span)

    def op(o: str, x, y):
        return A.BinOp(o, x, y, span)

    ahead = op("<=", i, v)
    passed = op("<", v, i)
    kept = op("=", run(bi, 1), v)
    assertions: Dict[int, A.Expr] = {
        roles.items: A.App(A.Var("allWithin", span),
                           A.TupleLit((A.RunVar(names[roles.items], 1, span),
                                       A.RunVar(names[roles.items], 2, span), c), span), span),
        roles.index: A.Conj(A.Conj(op("<", run(bi, 1), i), op("<", run(bi, 2), i), span),
                            A.Implies(passed, A.Implies(kept, op("=", run(bi, 2), v), span),
                                      span), span),
        roles.value: A.Implies(ahead, op("<=" if direction > 0 else ">=", run(bv, 2),
                                         op("+", run(bv, 1), gap)), span),
    }
    # run 1 keeping v keeps run 2 ahead: on the later of the best index and the best value
    # (a refinement reads the parameters bound before it)
    later = max(roles.index, roles.value)
    assertions[later] = A.Conj(assertions[later], A.Implies(
        passed, A.Implies(kept, op(">=" if direction > 0 else "<=", run(bv, 2),
                                   op("+", run(bv, 1), gap)), span), span),
        span)
    if roles.flag is not None:
        # before the first answer (the flag false in both runs) the best index is equal in
        # the runs and nothing is known of the best value; after it, the invariant above
        later = max(later, roles.flag)
        f = A.Var(names[roles.flag], span)
        started = A.Conj(assertions[roles.index], assertions[roles.value], span)
        waiting = op("=", run(bi, 1), run(bi, 2))
        together = op("=", run(f, 1), run(f, 2))
        combined = A.Conj(together, A.Conj(
            A.Implies(run(f, 1), started, span),
            A.Implies(A.UnOp("not", run(f, 1), span), waiting, span), span), span)
        true = A.BoolLit(True, span)
        assertions[roles.index] = assertions[roles.value] = true
        assertions[later] = combined
    out = "r#0"
    body: A.RType = A.RRefine(out, A.RSimple(types[roles.index], span),
                              A.Implies(op("=", A.RunVar(out, 1, span), v),
                                        op("=", A.RunVar(out, 2, span), v), span), span)
    index = A.If(ahead, cost, A.RealLit(Fraction(0), "0.0", span), span)
    rt: A.RType = A.RMonad(A.Divergence("DP", index, span), None, body, span)
    for k in reversed(range(len(names))):
        assertion = A.SameRuns(span) if k in roles.same or k == roles.counter \
            else assertions.get(k, A.SameRuns(span))
        rt = A.RArrow(A.RRefine(names[k], A.RSimple(types[k], span), assertion, span), rt, span)
    return A.ValDecl(decl.name, rt, span)


def lap_epsilons(e: A.Expr) -> List[A.Expr]:
    """The epsilons of the ``lapMech`` calls in ``e``."""
    from verifier.translation.translate import flatten_app
    out = []
    for node in A.descendants(e):
        if isinstance(node, A.App) and not isinstance(node.fn, A.App):
            head, args = flatten_app(node)
            if isinstance(head, A.Var) and head.name == "lapMech" and args \
                    and isinstance(args[0], A.TupleLit) and len(args[0].items) == 2:
                out.append(args[0].items[0])
    return out


def allwithin_bound(val: A.ValDecl) -> Optional[Fraction]:
    """The constant ``c`` of the first ``allWithin (l<1>, l<2>, c)`` of ``val``'s
    refinements (how far the answers of the runs may be apart)."""
    for node in A.descendants(val.rtype):
        if isinstance(node, A.App) and isinstance(node.fn, A.Var) \
                and node.fn.name == "allWithin" and isinstance(node.arg, A.TupleLit) \
                and len(node.arg.items) == 3 \
                and isinstance(node.arg.items[2], (A.IntLit, A.RealLit)):
            c = Fraction(node.arg.items[2].value)
            return c if c > 0 else None
    return None


def argmax_val(helper: A.LetDecl, outer: A.LetDecl, val: A.ValDecl, simple_type
               ) -> Optional[A.ValDecl]:
    """The argmax invariant of ``helper`` as called by ``outer`` (whose claim is ``val``), or
    None when the template does not apply: ``c`` is ``val``'s allWithin bound, ``K`` the
    helper's Laplace epsilon times ``2c`` (the winner's noise shifted by ``2c``), and each
    parameter's type its annotation, else the type of ``outer``'s parameter passed there, else
    ``simple_type`` of the argument of the call."""
    roles = argmax_roles(helper)
    bound = allwithin_bound(val)
    if roles is None or bound is None:
        return None
    epsilons = lap_epsilons(helper.body)
    calls = list(_calls(outer.body, helper.name))
    if len(epsilons) != 1 or not calls or len(calls[0]) != len(helper.params):
        return None
    types = []
    for param, arg in zip(helper.params, calls[0]):
        t = param.annot
        base = _outer_domain(outer, val, arg)
        if t is None and base is not None:
            while isinstance(base, A.RRefine):
                base = base.base
            t = base.type if isinstance(base, A.RSimple) else None
        t = t or simple_type(arg)
        if t is None:
            return None
        types.append(t)
    cost = A.BinOp("*", epsilons[0], A.RealLit(2 * bound, str(float(2 * bound)), helper.span),
                   helper.span)
    return argmax_invariant(helper, roles, bound, types, cost, loop_direction(helper, roles))


def loop_direction(decl: A.LetDecl, roles: ArgmaxRoles) -> int:
    """1 when the loop keeps the largest value (argmax), -1 the smallest (argmin): read from
    the ``if`` whose branches' recursive calls differ in the best value, its condition ``l op
    r`` taken as ``l - r op 0`` with ``l - r`` linear in the new value (``+``, ``-``, products
    by literals). 1 when it cannot be read (the argmax, as before)."""
    names = [p.name for p in decl.params]
    best = names[roles.value]
    for node in A.descendants(decl.body):
        cond = _comparison(node.cond, names[roles.flag] if roles.flag is not None else None) \
            if isinstance(node, A.If) else None
        if cond is None:
            continue
        kept = [_value_kept(args[roles.value], best)
                for branch in (node.then, node.else_)
                for args in list(_calls(branch, decl.name))[:1]]
        if len(kept) != 2 or kept[0] == kept[1]:
            continue
        new = next((a for args in _calls(node.then if kept[1] else node.else_, decl.name)
                    for a in args[roles.value:roles.value + 1]), None)
        if not isinstance(new, A.Var):
            continue
        coeff = _coefficient(cond.left, new.name)
        other = _coefficient(cond.right, new.name)
        if coeff is None or other is None or coeff == other:
            continue
        grows = (coeff - other > 0) == (cond.op in (">", ">="))
        # the then branch takes the new value when kept[1] (the else keeps the best)
        return 1 if grows == kept[1] else -1
    return 1


def _comparison(cond: A.Expr, flag: Optional[str]) -> Optional[A.BinOp]:
    """The comparison ``l op r`` of an if's condition that decides the best value: the
    condition itself, or with a started flag ``f``, the comparison of ``not f || l op r``."""
    if flag is not None and isinstance(cond, A.BinOp) and cond.op == "||" \
            and isinstance(cond.left, A.UnOp) and cond.left.op == "not" \
            and isinstance(cond.left.operand, A.Var) and cond.left.operand.name == flag:
        cond = cond.right
    if isinstance(cond, A.BinOp) and cond.op in ("<", "<=", ">", ">="):
        return cond
    return None


def _value_kept(arg: A.Expr, best: str) -> bool:
    return isinstance(arg, A.Var) and arg.name == best


def _coefficient(e: A.Expr, name: str) -> Optional[Fraction]:
    """The coefficient of ``name`` in ``e`` when ``e`` is linear in it (sums, differences,
    negations and products by numeric literals), else None."""
    if isinstance(e, A.Var):
        return Fraction(1) if e.name == name else Fraction(0)
    if isinstance(e, (A.IntLit, A.RealLit)):
        return Fraction(0)
    if isinstance(e, A.BinOp) and e.op in ("+", "-"):
        a, b = _coefficient(e.left, name), _coefficient(e.right, name)
        if a is None or b is None:
            return None
        return a + b if e.op == "+" else a - b
    if isinstance(e, A.BinOp) and e.op == "*":
        for lit, other in ((e.left, e.right), (e.right, e.left)):
            if isinstance(lit, (A.IntLit, A.RealLit)):
                k = _coefficient(other, name)
                return None if k is None else Fraction(lit.value) * k
        return None
    if isinstance(e, A.UnOp) and e.op == "-":
        k = _coefficient(e.operand, name)
        return None if k is None else -k
    mentions = any(isinstance(n, A.Var) and n.name == name for n in A.descendants(e))
    return None if mentions else Fraction(0)


# ---- k-fold composition through a recursion (S-M-Adv over a helper) ----------------------------

def steps_val(helper: A.LetDecl, outer: A.LetDecl, val: A.ValDecl, type_of
              ) -> Optional[Tuple[A.ValDecl, int, A.Expr]]:
    """The val of a *release loop*: a recursive helper without a val that matches on a list
    parameter, recurs on its tail with every other parameter passed unchanged, and applies
    ``lapMech`` once (docs/verifier.md, "Advanced composition"). Its val states the domain
    ``outer`` gives it (each parameter's refinement copied from ``outer``'s val where an
    argument of the call is ``outer``'s parameter, ``=`` elsewhere: the list is public) and
    the index ``E * length l`` (basic composition, true of one release per element), ``E``
    the epsilon of its ``lapMech``; with the position of the list and ``E``. A derivation that uses it as a
    batch of ``length l`` steps each at most ``E`` proves the helper so (S-M-Steps). None
    when the helper is not such a loop."""
    params = helper.params
    if not helper.recursive or not all(isinstance(p, A.PVar) for p in params) \
            or not isinstance(helper.body, A.Match) \
            or not isinstance(helper.body.scrutinee, A.Var):
        return None
    names = [p.name for p in params]
    m = helper.body
    if m.scrutinee.name not in names:
        return None
    position = names.index(m.scrutinee.name)
    calls = list(_calls(m.cons_body, helper.name)) + list(_calls(m.nil_body, helper.name))
    if not calls or any(len(args) != len(names) for args in calls):
        return None
    for args in calls:
        for k, (arg, name) in enumerate(zip(args, names)):
            wanted = m.tail if k == position else name
            if not (isinstance(arg, A.Var) and arg.name == wanted):
                return None
    from verifier.language.pretty import pretty_expr
    epsilons = lap_epsilons(helper.body)
    outer_calls = list(_calls(outer.body, helper.name))
    if not epsilons or len({pretty_expr(x) for x in epsilons}) != 1 \
            or len(outer_calls) != 1 or len(outer_calls[0]) != len(names):
        return None
    span = helper.span
    parts = []
    for k, (name, arg) in enumerate(zip(names, outer_calls[0])):
        refinement: Optional[A.RType] = None
        dom = _outer_domain(outer, val, arg) if k != position else None
        if dom is not None:
            if isinstance(dom, A.RRefine) and isinstance(dom.base, A.RSimple):
                refinement = A.RRefine(name, dom.base, _renamed(dom.assertion, dom.var, name),
                                       span)
        if refinement is None:
            t = params[k].annot or type_of(arg)
            if t is None:
                return None
            refinement = A.RRefine(name, A.RSimple(t, span), A.SameRuns(span), span)
        parts.append(refinement)
    out_type = _result_type(val)
    if out_type is None:
        return None
    count = A.App(A.Var("length", span), A.Var(names[position], span), span)
    index = A.BinOp("*", epsilons[0], count, span)
    result: A.RType = A.RMonad(A.Divergence("DP", index, span), None,
                               A.RRefine("r#0", A.RSimple(out_type, span), A.SameRuns(span),
                                         span), span)
    for part in reversed(parts):
        result = A.RArrow(part, result, span)
    return A.ValDecl(helper.name, result, span), position, epsilons[0]


def _outer_domain(outer: A.LetDecl, val: A.ValDecl, arg: A.Expr) -> Optional[A.RType]:
    """The domain ``val`` (``outer``'s claim) gives the parameter of ``outer`` that ``arg``
    names, or None (``arg`` is not a parameter)."""
    names = [p.name if isinstance(p, A.PVar) else None for p in outer.params]
    doms = []
    rt = val.rtype
    while isinstance(rt, A.RArrow):
        doms.append(rt.dom)
        rt = rt.cod
    if isinstance(arg, A.Var) and arg.name in names and names.index(arg.name) < len(doms):
        return doms[names.index(arg.name)]
    return None


def _result_type(val: A.ValDecl) -> Optional[A.SimpleType]:
    rt = val.rtype
    while isinstance(rt, A.RArrow):
        rt = rt.cod
    if not isinstance(rt, A.RMonad):
        return None
    body = rt.body
    while isinstance(body, A.RRefine):
        body = body.base
    return body.type if isinstance(body, A.RSimple) else None


def _renamed(e: A.Expr, old: str, new: str) -> A.Expr:
    """``e`` with the variable ``old`` (plain or of one run) renamed ``new``."""
    return A.transform(e, lambda n: A.replace_fields(n, name=new)
                     if isinstance(n, (A.Var, A.RunVar)) and n.name == old else None)


# ---- the support of a counter loop's outputs (Case-Output's disjointness) ---------------------

@record
class CounterSupport:
    """A one-run fact about a recursive helper's outputs, relative to its counter: every value
    it outputs is one of ``constants`` or at least the argument at position ``counter``
    (docs/verifier.md, "Couplings": the index of the first query above a threshold). Stated
    from the source's shape, proved by induction wherever it is used (fixpoint induction: a
    fact of the outputs, partial correctness, true of a helper that does not terminate)."""

    counter: int
    constants: tuple


def counter_support(decl: A.LetDecl) -> Optional[CounterSupport]:
    """The template of ``CounterSupport`` for ``decl``: a recursive definition whose every
    recursive call passes, at one parameter ``i``, ``i`` or ``i + n`` (``n`` a non-negative
    integer literal), some ``return i`` and whose other ``return``s are closed integer
    expressions (``return (0 - 1)``). None when the shape does not fit (nothing is assumed)."""
    params = decl.params
    if not decl.recursive or not params or not all(isinstance(p, A.PVar) for p in params):
        return None
    names = [p.name for p in params]
    calls = list(_calls(decl.body, decl.name))
    if not calls or any(len(args) != len(names) for args in calls):
        return None
    returns = [n.value for n in A.descendants(decl.body) if isinstance(n, A.Return)]
    for k, name in enumerate(names):
        if not all(_steps(args[k], name) for args in calls) \
                or not any(isinstance(r, A.Var) and r.name == name for r in returns):
            continue
        constants = set()
        for r in returns:
            if isinstance(r, A.Var) and r.name == name:
                continue
            c = closed_int(r)
            if c is None:
                return None
            constants.add(c)
        return CounterSupport(k, tuple(sorted(constants)))
    return None


def _steps(arg: A.Expr, name: str) -> bool:
    """``arg`` is ``name`` or ``name + n`` for an integer literal ``n >= 0``."""
    if isinstance(arg, A.Var):
        return arg.name == name
    return isinstance(arg, A.BinOp) and arg.op == "+" and isinstance(arg.left, A.Var) \
        and arg.left.name == name and isinstance(arg.right, A.IntLit) and arg.right.value >= 0


def closed_int(e: A.Expr) -> Optional[int]:
    """The value of a closed integer expression of literals, ``+``, ``-``, ``*`` and negation."""
    if isinstance(e, A.IntLit):
        return int(e.value)
    if isinstance(e, A.UnOp) and e.op == "-":
        inner = closed_int(e.operand)
        return None if inner is None else -inner
    if isinstance(e, A.BinOp) and e.op in ("+", "-", "*"):
        a, b = closed_int(e.left), closed_int(e.right)
        if a is None or b is None:
            return None
        return a + b if e.op == "+" else a - b if e.op == "-" else a * b
    return None


def support_helpers(program: A.Program, vals) -> Dict[str, Tuple[A.LetDecl, CounterSupport]]:
    """The top-level recursive definitions with a val (in ``vals``, by name) that the
    counter-support template fits."""
    out = {}
    for decl in program.lets():
        if decl.name in vals:
            s = counter_support(decl)
            if s is not None:
                out[decl.name] = (decl, s)
    return out


def val_domains(val: A.ValDecl) -> List[Optional[A.SimpleType]]:
    """The simple type of each parameter of ``val``."""
    out = []
    rt = val.rtype
    while isinstance(rt, A.RArrow):
        d = rt.dom
        while isinstance(d, A.RRefine):
            d = d.base
        out.append(d.type if isinstance(d, A.RSimple) else None)
        rt = rt.cod
    return out


def support_term(s: CounterSupport, out, counter):
    """``CounterSupport``'s fact of an output term ``out`` of a call whose counter argument is
    the term ``counter``: ``out = c_1 \\/ ... \\/ out >= counter``; None when the terms are not
    integers."""
    from obligations import terms as T
    if out.sort != T.INT or counter.sort != T.INT:
        return None
    return T.or_(*(T.eq(out, T.integer(c)) for c in s.constants), T.ge(out, counter))


# ---- a local loop: a local ``let rec`` that releases on private data ---------------------------

def local_loop_val(fn: A.LetRec, type_of) -> Optional[A.ValDecl]:
    """The val of a *local loop* (docs/verifier.md, "Local recursive functions"): a local
    ``let rec f p1 … pn = body`` returning a computation, which recurs on the tail of a list
    parameter it matches on (the measure ``length l``) or counts an integer parameter down
    (``f (k - c)``, the measure ``k``, stated ``nat``). Every parameter is refined ``=`` (the
    iteration count is public; what the loop captures is read in the context where it is
    defined), and the index is ``E * measure``, ``E`` the sum of the epsilons of the
    ``lapMech`` calls of its body (what one iteration spends, each release once). The val is a
    hint: whoever uses it proves the body against it by induction on the measure
    (``LetRec-Local``). ``type_of`` gives an expression's simple type as syntax (the
    parameters' types are read off the function's, at a use of its name). None when the
    shape does not fit."""
    params = fn.params
    if not params or not all(isinstance(p, A.PVar) for p in params):
        return None
    arrow = next((t for t in (type_of(n) for n in A.descendants(fn)
                              if isinstance(n, A.Var) and n.name == fn.name)
                  if isinstance(t, A.TArrow)), None)
    domains = []
    while isinstance(arrow, A.TArrow) and len(domains) < len(params):
        domains.append(arrow.dom)
        arrow = arrow.cod
    drawn = arrow
    if len(domains) != len(params) or not isinstance(drawn, A.TMonad):
        return None
    position = loop_measure(fn)
    epsilons = lap_epsilons(fn.value)
    if position is None or not epsilons:
        return None
    span = fn.span
    types = [p.annot or t for p, t in zip(params, domains)]
    measured = A.Var(params[position].name, span)
    if isinstance(types[position], A.TList):
        measure: A.Expr = A.App(A.Var("length", span), measured, span)
    elif isinstance(types[position], A.TBase) and types[position].name in ("int", "real") \
            and _integral_counter(fn, position, type_of):
        types[position] = A.TBase("nat", span)
        measure = measured
    else:
        return None
    step = epsilons[0]
    for eps in epsilons[1:]:
        step = A.BinOp("+", step, eps, span)
    index = A.BinOp("*", step, measure, span)
    rt: A.RType = A.RMonad(A.Divergence("DP", index, span), None,
                           A.RRefine("r#0", A.RSimple(drawn.elem, span), A.SameRuns(span),
                                     span), span)
    for p, t in reversed(list(zip(params, types))):
        rt = A.RArrow(A.RRefine(p.name, A.RSimple(t, span), A.SameRuns(span), span), rt, span)
    return A.ValDecl(fn.name, rt, span)


def loop_measure(fn: A.LetRec) -> Optional[int]:
    """The parameter a local loop is proved by induction on: the first one its body matches on,
    else the first one a recursive call counts down (``resolve.matched_parameter``,
    ``counted_parameter``)."""
    from verifier.language.resolve import counted_parameter, matched_parameter
    position = matched_parameter(fn.params, fn.value)
    return position if position is not None else counted_parameter(fn.params, fn.value,
                                                                    fn.name)


def _integral_counter(fn: A.LetRec, position: int, type_of) -> bool:
    """Every call of the local function ``fn`` (in its body and in the code it is defined
    for) is a direct call on all its arguments, passing at ``position`` an integer (simple
    typing may read a counter as ``real``: ``if k <= 0``): by induction over the calls, the
    counter is an integer in every call, as the ``nat`` of its val says."""
    from verifier.language.resolve import call_sites
    counter = fn.params[position].name

    def integral(e: A.Expr) -> bool:
        if isinstance(e, A.IntLit) or (isinstance(e, A.Var) and e.name == counter):
            return True
        if isinstance(e, A.BinOp) and e.op in ("+", "-", "*"):
            return integral(e.left) and integral(e.right)
        t = type_of(e)
        return isinstance(t, A.TBase) and t.name in ("int", "nat")

    for code in (fn.value, fn.body):
        calls, stray = call_sites(fn.name, code, len(fn.params))
        if stray:
            return False
        for call in calls:
            args = []
            head = call
            while isinstance(head, A.App):
                args.append(head.arg)
                head = head.fn
            if not integral(list(reversed(args))[position]):
                return False
    return True
