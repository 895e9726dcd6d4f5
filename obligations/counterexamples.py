"""Counterexamples: z3's model of a satisfiable problem, confirmed with the built-ins' meaning.

``model_check(problem, rlimit, ctx, used, opaque)`` is what the z3 back end
(``obligations.z3_backend``) does when z3 answers ``sat``. A model of the lowered problem is
only a *candidate*: z3 treats ``length``, ``adj``, ``dist``, ``hellinger``… as uninterpreted
symbols and ``exp``/``log`` through a few of their properties, so its model may give
``adj ([false], [true])`` the value ``false`` or a Hellinger distance no two Betas have. A
result is ``refuted`` only when the counterexample is confirmed **in the built-ins' own
semantics**:

1. **Concrete values.** The problem is solved again with every list a concrete list of at most
   ``bound`` elements (a length and that many elements), and the list built-ins (``length``,
   ``count``, ``countOf``, ``sum``, ``adj``, ``adjWithin``, ``dist``, ``::``, ``[]``, equality
   of lists) replaced by their definitions (``ConcreteEncoder``). A model of that gives
   concrete lists, numbers and Booleans for the obligation's variables. When z3 gives up on
   that question (its resource limit), it is asked again with every list's length fixed
   (``LENGTH_TRIES`` times at most, equal lengths first, then one apart; the lengths'
   arithmetic is then linear), so that a witness does not depend on z3's luck with one
   formulation.
2. **Exact evaluation.** The *original* obligation is evaluated at those values by
   ``obligations.evaluate`` with the built-ins interpreted (``obligations.builtins``: lists by
   their definitions, distributions by their families, ``hellinger`` and ``tv`` by certified
   closed forms in ball arithmetic, ``pi``, ``sqrt``, ``exp``, ``log`` exactly or as balls).
   Every hypothesis and axiom must be true and the goal false. An application the
   evaluation finds at odds with the model (z3 assumed a distance the distributions do not
   have) is added to the search as a true fact and the search is repeated
   (``REFINEMENTS`` times at most).
3. **Opaque values.** What has no definition here — a call of a program function known only
   through its ``val``, a distance to a distribution that is a variable — keeps the value
   z3 gave it, so the counterexample stands only if the goal is false *whatever* those
   applications are (with the variables fixed at their values, the goal together with the
   axioms is unsatisfiable), and no hypothesis other than a call fact mentions them.

Otherwise the result is ``unknown`` and the reason names the fact the verifier lacked: the
values z3's model needs that no concrete lists have ("``dist (db<1>, db<2>) = 2`` with
``length db<1> = 1``"), the application whose model value is not its true value, or the
opaque applications the goal depends on.

Kept apart from the back end so that verifying a program that refutes nothing never loads
python-flint or z3's Python API.
"""
from __future__ import annotations

import itertools
import os
from fractions import Fraction
from typing import Any, Dict, FrozenSet, List, Optional, Sequence, Tuple

import z3
from flint import arb, ctx as flint_ctx, fmpq

from obligations import vocabulary as V
from obligations.builtins import BuiltinInterpretation, DistValue, interpreted, show
from obligations.encoding import GOAL, AuxFunc, AuxVar, Problem
from obligations.evaluate import (PRECISION, Element, Evaluator, Interpretation, Value,
                                  equal_values)
from obligations.model import Binding, Verdict
from obligations.smtlib import SEED
from obligations.terms import (BOOL, INT, REAL, Apply, Const, FuncDecl, Op, OpKind, Quantifier,
                               Sort, Term, Var, free_vars, ground_applications, pretty,
                               subterms)

#: The names of call-fact hypotheses (``verifier.rules.call_facts``): they assume a val.
CALL_FACT = "h__call_"
#: The names of the joint facts among them (LetRec-Joint): true of the functions' definitions,
#: with a quantifier that a point cannot decide
JOINT_FACT = "h__call_joint_"
#: Decimal digits of the rational enclosures taken of algebraic numbers in models.
ALGEBRAIC_DIGITS = 40
#: The longest lists the concrete search tries, and the shortest bound it uses.
MAX_BOUND, MIN_BOUND = 8, 3
#: The list built-ins the concrete encoding defines (``nil_*`` and ``allIn_*`` too).
_DEFINED = frozenset({"length", "count", "countOf", "sum", "adj", "adjWithin", "allWithin", "dist",
                      "cons"})
#: How often a model at odds with the built-ins' values is corrected and solved again.
REFINEMENTS = 3
#: When the concrete search is inconclusive: how many searches with fixed list lengths are
#: tried, and the fraction of the resource limit each may use.
LENGTH_TRIES, LENGTH_TRY_SHARE = 8, 4

_NOT_POLYNOMIAL = {OpKind.DIV, OpKind.PI, OpKind.SQRT, OpKind.EXP, OpKind.LOG}

_Z3_OPS = {
    OpKind.ADD: lambda *a: z3.Sum(*a), OpKind.MUL: lambda *a: z3.Product(*a),
    OpKind.SUB: lambda a, b: a - b, OpKind.DIV: lambda a, b: a / b, OpKind.NEG: lambda a: -a,
    OpKind.TO_REAL: z3.ToReal, OpKind.EQ: lambda a, b: a == b, OpKind.NE: lambda a, b: a != b,
    OpKind.LT: lambda a, b: a < b, OpKind.LE: lambda a, b: a <= b,
    OpKind.GT: lambda a, b: a > b, OpKind.GE: lambda a, b: a >= b,
    OpKind.AND: z3.And, OpKind.OR: z3.Or, OpKind.NOT: z3.Not, OpKind.IMPLIES: z3.Implies,
    OpKind.ITE: z3.If,
}


class Unsupported(Exception):
    """A term the concrete encoding cannot render (a quantifier over lists, an operation
    the lowering should have removed)."""


def canonical_names(problem: Problem) -> Dict[Any, str]:
    """z3 names for ``problem``'s variables, functions and sorts that do not depend on the
    program's names: numbered by first occurrence in a left-to-right walk of the assertions
    (then of the declarations). The encoding's own symbols (``pi!``, ``exp!1``) keep theirs:
    they are numbered by occurrence already."""
    names: Dict[Any, str] = {}
    counts = {"s": itertools.count(), "v": itertools.count(), "f": itertools.count()}

    def sort(s: Sort) -> None:
        if s in problem.sorts and s not in names:
            names[s] = f"s{next(counts['s'])}"

    def see(x: Any) -> None:
        if x in names:
            return
        if isinstance(x, (AuxVar, AuxFunc)):
            names[x] = x.name
        elif isinstance(x, Var):
            sort(x.sort)
            names[x] = f"v{next(counts['v'])}"
        elif isinstance(x, FuncDecl):
            for s in x.domain + (x.range,):
                sort(s)
            names[x] = f"f{next(counts['f'])}"

    stack: List[Any] = [a.term for a in reversed(problem.assertions)]
    while stack:
        t = stack.pop()
        if isinstance(t, Var):
            see(t)
        elif isinstance(t, Apply):
            see(t.func)
            stack.extend(reversed(t.args))
        elif isinstance(t, Quantifier):
            for v in t.vars:
                see(v)
            stack.append(t.body)
        elif isinstance(t, Op):
            stack.extend(reversed(t.args))
    for x in (*problem.constants, *problem.functions, *problem.sorts):
        if isinstance(x, Sort):
            sort(x)
        else:
            see(x)
    return names


class Z3Encoder:
    """Renders the terms of a lowered ``Problem`` as z3 expressions in one context.

    The z3 symbols are *canonical*: ``v0, v1...`` for the variables, ``f0...`` for the
    functions and ``s0...`` for the sorts, numbered by first occurrence in the assertions
    (``canonical_names``). z3's models depend on the names and the order of its
    declarations, so without this a renamed program would get another counterexample, and
    the witness search that starts from it another verdict. Values are read back by
    ``Var``, never by name."""

    def __init__(self, problem: Problem, ctx: z3.Context):
        self.problem, self.ctx = problem, ctx
        self.names = canonical_names(problem)
        self.sorts: Dict[Sort, z3.SortRef] = {
            REAL: z3.RealSort(ctx), INT: z3.IntSort(ctx), BOOL: z3.BoolSort(ctx)}
        for s in problem.sorts:
            self.sorts[s] = z3.DeclareSort(self.names[s], ctx)
        self.functions: Dict[FuncDecl, z3.FuncDeclRef] = {
            f: z3.Function(self.names[f], *[self.sorts[s] for s in f.domain + (f.range,)])
            for f in problem.functions}
        self._fresh = 0

    def const(self, v: Var) -> z3.ExprRef:
        return z3.Const(self.names[v], self.sorts[v.sort])

    def fresh(self, sort: z3.SortRef, prefix: str) -> z3.ExprRef:
        """A new constant, named by this encoder's own count (z3's ``FreshConst`` counts
        per context, so its names would depend on what ran before)."""
        self._fresh += 1
        return z3.Const(f"{prefix}!{self._fresh}", sort)

    def expr(self, t: Term) -> z3.ExprRef:
        memo = self.__dict__.setdefault("_encoded", {})  # a term is a DAG: encode each node once
        found = memo.get(t)
        if found is None:
            found = memo[t] = self._encode(t)
        return found

    def _encode(self, t: Term) -> z3.ExprRef:
        if isinstance(t, Const):
            if t.sort == BOOL:
                return z3.BoolVal(t.value, self.ctx)
            if t.sort == INT:
                return z3.IntVal(t.value, self.ctx)
            return z3.RealVal(t.value, self.ctx)
        if isinstance(t, Var):
            return self.const(t)
        if isinstance(t, Apply):
            f = self.functions[t.func]
            return f(*[self.expr(a) for a in t.args]) if t.args else f()
        if isinstance(t, Quantifier):
            make = z3.ForAll if t.kind == "forall" else z3.Exists
            return make([self.const(v) for v in t.vars], self.expr(t.body))
        if not (isinstance(t, Op) and t.op in _Z3_OPS):
            raise Unsupported(f"not lowered: {pretty(t)}")
        return _Z3_OPS[t.op](*[self.expr(a) for a in t.args])

    def value(self, z: z3.ExprRef) -> Value:
        """A z3 model value as an evaluator value (ints, Fractions, arb balls, elements).

        An algebraic number becomes a ball around a rational approximation within
        ``10**-ALGEBRAIC_DIGITS`` of it (z3's documented bound for ``approx``)."""
        if z3.is_true(z) or z3.is_false(z):
            return z3.is_true(z)
        if z3.is_int_value(z):
            return z.as_long()
        if z3.is_rational_value(z):
            return Fraction(z.numerator_as_long(), z.denominator_as_long())
        if z3.is_algebraic_value(z):
            mid = z.approx(ALGEBRAIC_DIGITS)
            with flint_ctx.workprec(PRECISION):
                return arb(fmpq(mid.numerator_as_long(), mid.denominator_as_long()),
                           fmpq(1, 10 ** ALGEBRAIC_DIGITS))
        for s, zs in self.sorts.items():
            if not s.is_builtin and z.sort() == zs:
                try:
                    return Element(s, _element_index(z))
                except (ValueError, IndexError):
                    return None
        return None


def _element_index(z: z3.ExprRef) -> int:
    # z3 names the elements of a finite universe "<sort>!val!<i>"
    return int(str(z).rsplit("!val!", 1)[1])


# ---- lists as concrete lists -------------------------------------------------------------------

class ListRep:
    """A list of at most ``len(elems)`` elements: its length and its elements (those at
    positions from the length on mean nothing)."""

    def __init__(self, length: z3.ArithRef, elems: List[z3.ExprRef]):
        self.length, self.elems = length, elems


class ConcreteEncoder(Z3Encoder):
    """Terms as z3 expressions in which every list is a ``ListRep`` of at most ``bound``
    elements and the list built-ins are their definitions (LANGUAGE.md). Other symbols stay
    uninterpreted; an application of one to a list (or giving a list) is a fresh constant
    per syntactic application (``opaque``). ``side`` collects the constraints on lengths and
    element ranges."""

    def __init__(self, problem: Problem, ctx: z3.Context, bound: int):
        super().__init__(problem, ctx)
        self.bound = bound
        self.side: List[z3.BoolRef] = []
        self.reps: Dict[Term, ListRep] = {}
        self.opaque: Dict[Apply, z3.ExprRef] = {}

    def _encode(self, t: Term) -> Any:
        if _is_list(t.sort):
            return self.list_of(t)
        if isinstance(t, Quantifier) and any(_is_list(v.sort) for v in t.vars):
            raise Unsupported(f"a quantifier over lists: {pretty(t)}")
        if isinstance(t, Apply):
            return self.apply(t)
        if isinstance(t, Op) and t.op in (OpKind.EQ, OpKind.NE) and _is_list(t.args[0].sort):
            same = self.same(self.list_of(t.args[0]), self.list_of(t.args[1]))
            return same if t.op == OpKind.EQ else z3.Not(same)
        return super()._encode(t)

    def apply(self, t: Apply) -> z3.ExprRef:
        name, args = t.func.name, t.args
        if name == "length":
            return self.list_of(args[0]).length
        if name == "count":
            l = self.list_of(args[0])
            return self._tally([z3.And(self._inside(l, i), e) for i, e in enumerate(l.elems)])
        if name == "countOf":
            l, j = self.list_of(args[0]), self.expr(args[1])
            return self._tally([z3.And(self._inside(l, i), e == j) for i, e in enumerate(l.elems)])
        if name == "sum":
            l = self.list_of(args[0])
            zero = z3.RealVal(0, self.ctx)
            return z3.Sum([z3.If(self._inside(l, i), e, zero) for i, e in enumerate(l.elems)])
        if name == "dist":
            return self._differences(self.list_of(args[0]), self.list_of(args[1]))
        if name in ("adj", "adjWithin"):
            l1, l2 = self.list_of(args[0]), self.list_of(args[1])
            parts = [l1.length == l2.length, self._differences(l1, l2) <= 1]
            if name == "adjWithin":
                c = self.expr(args[2])
                for i, (x, y) in enumerate(zip(l1.elems, l2.elems)):
                    gap = z3.If(x >= y, x - y, y - x)
                    parts.append(z3.Implies(z3.And(self._inside(l1, i), x != y), gap <= c))
            return z3.And(*parts)
        if name == "allWithin":
            l1, l2, c = self.list_of(args[0]), self.list_of(args[1]), self.expr(args[2])
            parts = [l1.length == l2.length]
            for i, (x, y) in enumerate(zip(l1.elems, l2.elems)):
                gap = z3.If(x >= y, x - y, y - x)
                parts.append(z3.Implies(self._inside(l1, i), gap <= c))
            return z3.And(*parts)
        kind = V.all_in_kind(t)
        if kind is not None:
            l = self.list_of(args[0])
            return z3.And(*[z3.Implies(self._inside(l, i), self._in_range(kind, e))
                            for i, e in enumerate(l.elems)])
        if any(_is_list(a.sort) for a in args):
            if t not in self.opaque:
                self.opaque[t] = self.fresh(self.sorts[t.sort], "opaque")
            return self.opaque[t]
        return super()._encode(t)

    def list_of(self, t: Term) -> ListRep:
        if t in self.reps:
            return self.reps[t]
        if isinstance(t, Apply) and t.func.name.startswith("nil_"):
            rep = ListRep(z3.IntVal(0, self.ctx), self._fresh_elems(t.sort, "nil"))
        elif isinstance(t, Apply) and t.func.name == "cons":
            tail = self.list_of(t.args[1])
            self.side.append(tail.length <= self.bound - 1)
            rep = ListRep(tail.length + 1, [self.expr(t.args[0])] + tail.elems[:self.bound - 1])
        elif isinstance(t, Op) and t.op == OpKind.ITE:
            c, a, b = self.expr(t.args[0]), self.list_of(t.args[1]), self.list_of(t.args[2])
            rep = ListRep(z3.If(c, a.length, b.length),
                          [z3.If(c, x, y) for x, y in zip(a.elems, b.elems)])
        elif isinstance(t, (Var, Apply)):
            name = self.names[t] if isinstance(t, Var) else "opaque"
            length = self.fresh(self.sorts[INT], f"{name}!len") \
                if isinstance(t, Apply) else z3.Const(f"{name}!len", self.sorts[INT])
            self.side += [length >= 0, length <= self.bound]
            rep = ListRep(length, self._fresh_elems(t.sort, name, fixed=isinstance(t, Var)))
        else:
            raise Unsupported(f"a list the concrete encoding cannot render: {pretty(t)}")
        self.reps[t] = rep
        return rep

    def _fresh_elems(self, sort: Sort, name: str, fixed: bool = False) -> List[z3.ExprRef]:
        key = V.list_key_of(sort)
        elem = V.elem_sort(key)
        if elem not in self.sorts:
            raise Unsupported(f"lists of {elem}")
        zs = self.sorts[elem]
        elems = [z3.Const(f"{name}!{i}", zs) if fixed else self.fresh(zs, name)
                 for i in range(self.bound)]
        k = V.fin_size(key)
        if k:
            self.side += [z3.And(e >= 0, e < k) for e in elems]
        return elems

    @staticmethod
    def _in_range(kind: str, e: z3.ExprRef) -> z3.BoolRef:
        """The element range ``kind`` (``vocabulary.in_range``) of the z3 element ``e``."""
        if kind == "nat":
            return e >= 0
        if kind == "pos":
            return e > 0
        if kind == "unit":
            return z3.And(e >= 0, e <= 1)
        return z3.And(e >= 0, e < int(kind[3:]))

    def _inside(self, l: ListRep, i: int) -> z3.BoolRef:
        return z3.IntVal(i, self.ctx) < l.length

    def _tally(self, conditions: Sequence[z3.BoolRef]) -> z3.ArithRef:
        one, zero = z3.IntVal(1, self.ctx), z3.IntVal(0, self.ctx)
        return z3.Sum([z3.If(c, one, zero) for c in conditions]) if conditions else zero

    def _differences(self, l1: ListRep, l2: ListRep) -> z3.ArithRef:
        return self._tally([z3.And(self._inside(l1, i), x != y)
                            for i, (x, y) in enumerate(zip(l1.elems, l2.elems))])

    def same(self, l1: ListRep, l2: ListRep) -> z3.BoolRef:
        return z3.And(l1.length == l2.length,
                      *[z3.Implies(self._inside(l1, i), x == y)
                        for i, (x, y) in enumerate(zip(l1.elems, l2.elems))])

    def congruence(self) -> List[z3.BoolRef]:
        """Equal arguments give equal results, for the applications made constants."""
        out = []
        apps = list(self.opaque)
        for i, a in enumerate(apps):
            for b in apps[i + 1:]:
                if a.func != b.func:
                    continue
                same = [self.same(self.list_of(x), self.list_of(y)) if _is_list(x.sort)
                        else self.expr(x) == self.expr(y) for x, y in zip(a.args, b.args)]
                out.append(z3.Implies(z3.And(*same), self.opaque[a] == self.opaque[b]))
        return out

    def concrete(self, model: z3.ModelRef, v: Var) -> Value:
        """The value of variable ``v`` in ``model``: a tuple for a list."""
        if _is_list(v.sort):
            rep = self.list_of(v)
            n = model.eval(rep.length, model_completion=True).as_long()
            return tuple(self.value(model.eval(e, model_completion=True)) for e in rep.elems[:n])
        return self.value(model.eval(self.const(v), model_completion=True))


def _is_list(sort: Sort) -> bool:
    return V.list_key_of(sort) is not None


# ---- interpretations of the remaining symbols ----------------------------------------------------

class _ModelInterpretation(Interpretation):
    """Uninterpreted functions and sorts as z3's model interprets them."""

    def __init__(self, encoder: Z3Encoder, model: z3.ModelRef):
        self.encoder, self.model = encoder, model
        self.elements: Dict[Element, z3.ExprRef] = {}
        for s in encoder.problem.sorts:
            for z in model.get_universe(encoder.sorts[s]) or ():
                self.elements[Element(s, _element_index(z))] = z

    def universe(self, sort: Sort) -> Optional[Sequence[Element]]:
        found = [e for e in self.elements if e.sort == sort]
        return sorted(found, key=lambda e: e.index) if found else None

    def apply(self, func: FuncDecl, args: Tuple[Value, ...]) -> Value:
        if func not in self.encoder.functions:
            return None
        zargs = [self._z3(a, s) for a, s in zip(args, func.domain)]
        if any(a is None for a in zargs):
            return None
        f = self.encoder.functions[func]
        return self.encoder.value(self.model.eval(f(*zargs) if zargs else f(), model_completion=True))

    def _z3(self, v: Value, s: Sort) -> Optional[z3.ExprRef]:
        ctx = self.encoder.ctx
        if isinstance(v, Element):
            return self.elements.get(v)
        if isinstance(v, bool):
            return z3.BoolVal(v, ctx)
        if s == INT and isinstance(v, int):
            return z3.IntVal(v, ctx)
        return z3.RealVal(Fraction(v), ctx) if isinstance(v, (int, Fraction)) else None


class _OpaqueTable(Interpretation):
    """The model's values of the applications the concrete encoding made constants (opaque
    applications to lists), looked up by their arguments' values; anything else by
    ``fallback``."""

    def __init__(self, entries: List[Tuple[FuncDecl, Tuple[Value, ...], Value]],
                 fallback: Interpretation):
        self.entries, self.fallback = entries, fallback

    def universe(self, sort: Sort):
        return self.fallback.universe(sort)

    def apply(self, func: FuncDecl, args: Tuple[Value, ...]) -> Value:
        for f, values, result in self.entries:
            if f == func and all(equal_values(a, b) is True for a, b in zip(args, values)):
                return result
        return self.fallback.apply(func, args)


def _solver(ctx: z3.Context, rlimit: int) -> z3.Solver:
    s = z3.Solver(ctx=ctx)
    s.set("rlimit", rlimit)
    s.set("random_seed", SEED)
    return s


# ---- the procedure ---------------------------------------------------------------------------------

def model_check(problem: Problem, rlimit: int, ctx: z3.Context, used: Dict[str, Any],
                opaque: FrozenSet[str] = frozenset()) -> Tuple[Verdict, str, Dict[str, Any]]:
    """Confirm z3's ``sat`` in the built-ins' semantics (see the module docstring).
    ``opaque`` names the functions known only through their val (their calls are kept
    free); every other symbol without a definition here is treated the same way."""
    try:
        return _Confirmation(problem, rlimit, ctx, opaque).run(used)
    except (Unsupported, z3.Z3Exception, ArithmeticError, ValueError, TypeError) as exc:
        return (Verdict.UNKNOWN, "z3 found a candidate counterexample, but it could not be "
                f"confirmed in the built-ins' semantics ({exc})", used)
    except Exception as exc:  # noqa: BLE001  (a verdict is never an internal error)
        if os.environ.get("PRIVINFER_DEBUG"):
            raise
        return (Verdict.UNKNOWN, "z3 found a candidate counterexample, but confirming it failed "
                f"({type(exc).__name__}: {exc}); please report this", used)


def search_undecided(problem: Problem, rlimit: int, ctx: z3.Context, used: Dict[str, Any],
                     opaque: FrozenSet[str] = frozenset()
                     ) -> Optional[Tuple[Verdict, str, Dict[str, Any]]]:
    """For an obligation z3 could not decide (``unknown``): a counterexample found by the
    concrete search alone (lists of at most ``MAX_BOUND`` elements, the built-ins by their
    definitions), confirmed by evaluation like any other. ``None`` when none is found: the
    caller keeps z3's ``unknown``. A search is easier than the abstract problem (no axioms,
    bounded lists), so a goal z3 gives up on may still have a concrete counterexample."""
    try:
        return _Confirmation(problem, rlimit, ctx, opaque).search_only(used)
    except Exception:  # noqa: BLE001  (z3's unknown stays the verdict)
        if os.environ.get("PRIVINFER_DEBUG"):
            raise
        return None


class _Confirmation:
    """One confirmation: the search for concrete values, their evaluation, the verdict."""

    def __init__(self, problem: Problem, rlimit: int, ctx: z3.Context, opaque: FrozenSet[str]):
        self.problem, self.rlimit, self.ctx, self.opaque = problem, rlimit, ctx, opaque
        self.ob = problem.obligation
        self.learned: List[Tuple[Apply, Tuple[Value, ...], Value]] = []
        self.defined: set = set()  # Dist variables a hypothesis defines (``_evaluate``)
        #: the concrete values of the last point evaluated and not confirmed (``Result.candidate``)
        self.candidate: Tuple[Binding, ...] = ()

    def run(self, used: Dict[str, Any]) -> Tuple[Verdict, str, Dict[str, Any]]:
        first = self._first_model()
        if first is None:
            return (Verdict.UNKNOWN, "z3 answered sat, but not when asked again for a model",
                    used)
        bound = self._bound(*first)
        doubt: Tuple[str, Optional[str]] = ("no concrete values were found", None)
        for _ in range(REFINEMENTS + 1):
            found, settled = self._search(bound)
            if found is None and not settled:
                doubt = (f"z3 found a candidate counterexample, but gave up searching for "
                         f"concrete values (lists of at most {bound} elements) within its "
                         f"resource limit", None)
                break
            if found is None:
                doubt = (f"{doubt[0]}; with the values learned, no counterexample remains",
                         doubt[1]) if self.learned else self._unrealisable(first, bound)
                break
            refuted, doubt, again = self._evaluate_and_learn(found, used)
            if refuted is not None:
                return refuted
            if not again:
                break
        reason, lacking = doubt
        found = {**used, "candidate": self.candidate} if self.candidate else used
        return Verdict.UNKNOWN, reason, {**found, "lacking": lacking} if lacking else found

    def search_only(self, used: Dict[str, Any]) -> Optional[Tuple[Verdict, str, Dict[str, Any]]]:
        """``run`` without z3's abstract model (which z3 did not find): a refuted verdict, or
        ``None``."""
        for _ in range(REFINEMENTS + 1):
            found, _settled = self._search(MAX_BOUND)
            if found is None:
                return None
            refuted, _, again = self._evaluate_and_learn(found, used)
            if refuted is not None or not again:
                return refuted
        return None

    def _evaluate_and_learn(self, found, used: Dict[str, Any]):
        """Evaluate the concrete model ``found``: (the refuted verdict or None, the doubt — a
        reason and what is lacking — and whether to search again, having learned the value of
        an application z3 gave wrongly)."""
        encoder, model = found
        verdict, reason, bindings, correction = self._evaluate(encoder, model)
        if verdict == Verdict.REFUTED:
            return (verdict, reason[0], {**used, "counterexample": bindings}), reason, False
        if correction is None:
            return None, reason, False
        app, _, at, value = correction
        self.learned.append((app, at, value))
        return None, reason, True

    # ---- the first, abstract model ---------------------------------------------------------

    def _first_model(self) -> Optional[Tuple[Z3Encoder, z3.ModelRef]]:
        enc = Z3Encoder(self.problem, self.ctx)
        s = _solver(self.ctx, self.rlimit)
        for a in self.problem.assertions:
            s.add(enc.expr(a.term))
        return (enc, s.model()) if s.check() == z3.sat else None

    def _bound(self, enc: Z3Encoder, model: z3.ModelRef) -> int:
        """How long the concrete lists may be: at least the longest list of the first model
        (up to ``MAX_BOUND``)."""
        longest = 0
        for app in ground_applications(*(a.term for a in self.problem.assertions)):
            if app.func.name == "length":
                try:
                    value = model.eval(enc.expr(app), model_completion=True)
                    longest = max(longest, value.as_long())
                except (Unsupported, z3.Z3Exception, AttributeError):
                    continue
        return max(MIN_BOUND, min(MAX_BOUND, longest))

    # ---- the concrete search ---------------------------------------------------------------

    def _search(self, bound: int) -> Tuple[Optional[Tuple[ConcreteEncoder, z3.ModelRef]], bool]:
        """A model with concrete lists of the encoding's facts, the hypotheses and the negated
        goal (the axioms are left out: they are facts about the built-ins, which are
        definitions here), plus the values learned from earlier rounds; and whether the search
        was settled (a model, or z3's ``unsat``) rather than given up. A search z3 gives up is
        repeated with the lists' lengths fixed (``_length_ladder``)."""
        found, settled = self._solve(bound, (), self.rlimit)
        if found is not None or settled:
            return found, settled
        lists = [v for v in self.ob.free_vars if _is_list(v.sort)]
        for lengths in _length_ladder(len(lists), bound):
            found, _ = self._solve(bound, tuple(zip(lists, lengths)),
                                   self.rlimit // LENGTH_TRY_SHARE)
            if found is not None:
                return found, True
        return None, False

    def _solve(self, bound: int, lengths: Tuple[Tuple[Var, int], ...], rlimit: int
               ) -> Tuple[Optional[Tuple[ConcreteEncoder, z3.ModelRef]], bool]:
        enc = ConcreteEncoder(self.problem, self.ctx, bound)
        s = _solver(self.ctx, rlimit)
        for a in self.problem.assertions:
            if a.role != "axiom":
                s.add(enc.expr(a.term))
        for app, at, value in self.learned:
            s.add(self._pinned(enc, app, at, value))
        for v, n in lengths:
            s.add(enc.list_of(v).length == n)
        s.add(*enc.side, *enc.congruence())
        answer = s.check()
        return ((enc, s.model()) if answer == z3.sat else None), answer != z3.unknown

    def _pinned(self, enc: ConcreteEncoder, app: Apply, at: Dict[Var, Value],
                value: Value) -> z3.BoolRef:
        """``the variables of app are at ==> app = value`` (or within value's ball): a true
        fact, learned from the evaluation."""
        same = []
        for v, x in at.items():
            if _is_list(v.sort):
                rep = enc.list_of(v)
                elem = V.elem_sort(V.list_key_of(v.sort))
                same.append(rep.length == len(x))
                same += [e == _z3_value(enc, y, elem) for e, y in zip(rep.elems, x)]
            else:
                same.append(enc.const(v) == _z3_value(enc, x, v.sort))
        z = enc.expr(app)
        if isinstance(value, arb):
            lo, hi = (_dyadic(value.lower()), _dyadic(value.upper()))
            fact = z3.And(z >= z3.RealVal(lo, self.ctx), z <= z3.RealVal(hi, self.ctx))
        else:
            fact = z == _z3_value(enc, value, app.sort)
        return z3.Implies(z3.And(*same), fact) if same else fact

    # ---- evaluation of the original obligation ------------------------------------------------

    def _evaluate(self, enc: ConcreteEncoder, model: z3.ModelRef):
        """(verdict, reason, bindings, correction): the obligation evaluated at the concrete
        model; ``correction`` is a value to learn when an application disagrees with it."""
        env = {v: enc.concrete(model, v) for v in self.ob.free_vars}
        self.candidate = tuple(_binding(v.label, env[v], _model_value(enc, model, v))
                               for v in self.ob.free_vars)
        ev = Evaluator(BuiltinInterpretation(self._opaque_table(enc, model, env)))
        self.defined = self._defined_distributions(ev, env)

        def notes() -> str:
            return f" ({'; '.join(ev.notes)})" if ev.notes else ""

        for n in self.ob.hypotheses + self.ob.axioms:
            holds = self._truth(ev, enc, model, n.name, n.term, env)
            if holds is True or (holds is None and n.name.startswith(("ax_", JOINT_FACT))):
                # an axiom is a true fact: undecided here is no doubt about the point; a joint
                # fact only constrains the calls, which the goal must not depend on
                # (_depends_on_opaque, without the call facts)
                continue
            correction = self._disagreement(enc, model, n.term, env)
            if correction is not None:
                app, args, _, value = correction
                return Verdict.UNKNOWN, self._lacks(app, args, value, enc, model), (), correction
            opaque = self._opaque_in(n.term) if holds is False else []
            if opaque and n.name.startswith("ax_"):
                # the concrete query leaves the axioms out: its model may give a value the
                # verifier does not compute one that the axiom excludes
                return Verdict.UNKNOWN, self._doubt_about(opaque), (), None
            if holds is False and n.name.startswith("ax_"):
                return (Verdict.UNKNOWN, (f"the axiom {n.name} is false at a concrete point "
                        f"({_shown(env)}): a schema states something untrue, please report it",
                        None), (), None)
            what = "false" if holds is False else "undecided"
            return (Verdict.UNKNOWN, (f"z3 found a candidate counterexample, but {n.name} is "
                    f"{what} there once the built-ins take their values{notes()}", None), (), None)
        goal = self._truth(ev, enc, model, GOAL, self.ob.goal, env)
        opaque = self._opaque_applications()
        doubt = self._depends_on_opaque(enc, env, opaque) if opaque and goal is not True else None
        if opaque and goal is not True:
            goal = False if doubt is None else None  # false whatever they are, or not shown
        if goal is not False:
            correction = self._disagreement(enc, model, self.ob.goal, env)
            if correction is not None:
                app, args, _, value = correction
                return Verdict.UNKNOWN, self._lacks(app, args, value, enc, model), (), correction
            what = "holds" if goal is True else "cannot be decided"
            return (Verdict.UNKNOWN, doubt or (f"z3 found a candidate counterexample, but the goal "
                    f"{what} there once the built-ins take their values{notes()}", None), (), None)
        reason = "counterexample found by z3 and confirmed by evaluating the obligation with " \
                 "the built-ins' definitions"
        if opaque:
            reason += "; it holds whatever " + ", ".join(sorted({pretty(a) for a in opaque})[:4]) \
                + " " + ("is" if len(opaque) == 1 else "are")
        return (Verdict.REFUTED, (reason, None),
                tuple(_binding(v.label, env[v], _model_value(enc, model, v))
                      for v in self.ob.free_vars), None)

    def _defined_distributions(self, ev: Evaluator, env: Dict[Var, Value]) -> set:
        """The variables of sort ``Dist`` that a hypothesis defines as a distribution of a
        known family (``r = beta (r_p1, r_p2)``, a candidate's member fact): ``env`` gets
        their value (so the goal is evaluated at a real distribution, not at z3's element)."""
        defined = set()
        for h in self.ob.hypotheses:
            for part in _conjuncts(h.term):
                if not (isinstance(part, Op) and part.op == OpKind.EQ):
                    continue
                for v, t in (part.args, part.args[::-1]):
                    if isinstance(v, Var) and v.sort == V.DIST and v not in defined \
                            and v not in set(free_vars(t)):
                        value = ev.value(t, env)
                        if isinstance(value, DistValue):
                            env[v] = value
                            defined.add(v)
        return defined

    def _opaque_table(self, enc: ConcreteEncoder, model: z3.ModelRef,
                      env: Dict[Var, Value]) -> Interpretation:
        """The model's values of the opaque applications to lists, by argument values (the
        encoding's constants ``pi!``, ``exp!k``… evaluated from their definitions)."""
        plain = _ModelInterpretation(enc, model)
        ev = Evaluator(BuiltinInterpretation(plain))
        lowered_env = dict(env)
        for aux, definition in self.problem.definitions:
            lowered_env[aux] = ev.value(definition, lowered_env)
        entries = [(app.func, tuple(ev.value(a, lowered_env) for a in app.args),
                    enc.value(model.eval(z, model_completion=True)))
                   for app, z in enc.opaque.items()]
        return _OpaqueTable(entries, plain)

    def _truth(self, ev: Evaluator, enc: ConcreteEncoder, model: z3.ModelRef, name: str,
               term: Term, env: Dict[Var, Value]) -> Value:
        """The truth of ``term`` at ``env``; a polynomial formula over interpreted symbols
        that balls cannot decide is evaluated exactly by z3 (its algebraic numbers are
        exact)."""
        value = ev.value(term, env)
        if value is None and _polynomial(term) and not self._has_free_symbols(term):
            lowered = self.problem.assertion(name).term
            if name == GOAL:
                lowered = lowered.args[0]  # type: ignore[attr-defined]  # the goal, not its negation
            try:
                z = model.eval(enc.expr(lowered), model_completion=True)
            except Unsupported:  # a quantifier over lists
                return None
            value = True if z3.is_true(z) else False if z3.is_false(z) else None
        return value

    @staticmethod
    def _has_free_symbols(term: Term) -> bool:
        """Whether ``term`` applies a symbol the concrete encoding leaves uninterpreted (then
        z3's value of it is not evidence)."""
        return any(isinstance(t, Apply) and t.func.name not in _DEFINED
                   and not t.func.name.startswith("nil_") for t in subterms(term))

    def _disagreement(self, enc: ConcreteEncoder, model: z3.ModelRef, term: Term,
                      env: Dict[Var, Value]):
        """An interpreted application in ``term`` whose model value is not its value at
        ``env``: (application, argument values, the values of its variables, its true value);
        None when there is none (or it depends on a distribution that is a variable)."""
        ev = Evaluator(BuiltinInterpretation(_ModelInterpretation(enc, model)))
        for app in ground_applications(term):
            if not interpreted(app.func) or _is_list(app.sort) or app.sort == V.DIST:
                continue
            args = tuple(ev.value(a, env) for a in app.args)
            if any(a is None or isinstance(a, Element) for a in args):
                continue
            true = ev.value(app, env)
            if true is None:
                continue
            try:
                claimed = enc.value(model.eval(enc.expr(app), model_completion=True))
            except Unsupported:
                continue
            at = {v: env[v] for v in free_vars(app)}
            if equal_values(claimed, true) is False and \
                    all(v.sort.is_builtin or _is_list(v.sort) for v in at):
                return app, args, at, true
        return None

    def _lacks(self, app: Apply, args: Tuple[Value, ...], true: Value, enc,
               model) -> Tuple[str, str]:
        claimed = enc.value(model.eval(enc.expr(app), model_completion=True))
        lacking = f"the value of {_application(app, args)}"
        return (f"z3's candidate counterexample needs {_application(app, args)} = "
                f"{show(claimed)}, but its value is {show(true)}: the verifier lacks a fact "
                f"about {app.func.name}", lacking)

    # ---- opaque applications ---------------------------------------------------------------

    def _opaque_applications(self) -> List[Term]:
        """What the goal and the non-call hypotheses mention whose value is not computed here
        (``_opaque_in``)."""
        terms = [self.ob.goal] + [h.term for h in self.ob.hypotheses
                                  if not h.name.startswith(CALL_FACT)]
        out: List[Term] = []
        for t in terms:
            out += [u for u in self._opaque_in(t) if u not in out]
        return out

    def _opaque_in(self, term: Term) -> List[Term]:
        """The values ``term`` mentions that are not computed here: calls of functions known
        through their val, variables of an uninterpreted sort (a distribution drawn as a
        candidate) and the applications to them."""
        everything = list(subterms(term))
        variables = {u for u in everything if isinstance(u, Var) and not u.sort.is_builtin
                     and not _is_list(u.sort) and u not in self.defined}
        out: List[Term] = []
        for u in everything:
            if u in out:
                continue
            if u in variables or isinstance(u, Apply) and (
                    u.func.name in self.opaque or not interpreted(u.func)
                    or any(a in variables for a in u.args)):
                out.append(u)
        return out

    @staticmethod
    def _doubt_about(apps: List[Term]) -> Tuple[str, str]:
        """(reason, what is lacking) when z3's candidate rests on values of ``apps``."""
        shown = ", ".join(sorted({pretty(a) for a in apps})[:4])
        return (f"z3 found a candidate counterexample, but it gives values to {shown}, which "
                "the verifier does not compute (a call known only through its val, or a "
                "distribution it knows only as a variable), and the goal is not false for every "
                "value they could take: the verifier lacks a fact about them",
                f"a fact about {shown}")

    def _depends_on_opaque(self, enc: ConcreteEncoder, env: Dict[Var, Value],
                           apps: List[Term]) -> Optional[Tuple[str, str]]:
        """None when the goal is false at ``env`` whatever the ``apps`` are; otherwise why
        that is not shown. With every variable of a built-in sort or a list fixed at its
        concrete value, the goal with the axioms (true facts) and the encoding's facts must
        be unsatisfiable; a hypothesis other than a call fact that mentions one of them makes
        the question undecided (the path may not be taken)."""
        text, lacking = doubt = self._doubt_about(apps)
        mentioned = set(apps)
        for h in self.ob.hypotheses:
            if not h.name.startswith(CALL_FACT) and \
                    any(u in mentioned for u in subterms(h.term)):
                return text + " (a hypothesis of the path mentions one)", lacking
        s = _solver(self.ctx, self.rlimit)
        for a in self.problem.assertions:
            if a.name.startswith(CALL_FACT) or a.role == "hypothesis":
                continue
            try:
                s.add(enc.expr(a.term.args[0] if a.role == "goal" else a.term))  # type: ignore
            except Unsupported:
                if a.role != "axiom":
                    return doubt
        for v, value in env.items():
            if v.sort.is_builtin:
                z = _z3_value(enc, value, v.sort)
                if z is None:
                    return doubt
                s.add(enc.const(v) == z)
            elif _is_list(v.sort):
                rep = enc.list_of(v)
                s.add(rep.length == len(value))
                for e, x in zip(rep.elems, value):
                    z = _z3_value(enc, x, V.elem_sort(V.list_key_of(v.sort)))
                    if z is None:
                        return doubt
                    s.add(e == z)
        s.add(*enc.side, *enc.congruence())
        return None if s.check() == z3.unsat else doubt

    # ---- explaining a failed search ----------------------------------------------------------

    def _unrealisable(self, first: Tuple[Z3Encoder, z3.ModelRef],
                      bound: int) -> Tuple[str, Optional[str]]:
        """Why no concrete counterexample exists: the list statistics of z3's first model that
        no lists have together (an unsat core), when that is the reason."""
        enc, model = first
        claims = []
        for app in ground_applications(*(a.term for a in self.problem.assertions
                                          if a.role != "axiom")):
            if app.func.name in ("length", "count", "countOf", "sum", "adj", "adjWithin",
                                 "allWithin", "dist") and all(_is_list(a.sort) or a.sort.is_builtin
                                                 for a in app.args):
                try:
                    claims.append((app, model.eval(enc.expr(app), model_completion=True)))
                except (Unsupported, z3.Z3Exception):
                    continue
        general = (f"z3 found a candidate counterexample, but none exists with lists of at most "
                   f"{bound} elements once the built-ins take their definitions")
        if not claims:
            return general, None
        concrete = ConcreteEncoder(self.problem, self.ctx, MAX_BOUND)
        s = _solver(self.ctx, self.rlimit)
        marks = {}
        for i, (app, value) in enumerate(claims):
            try:
                fact = concrete.expr(app) == value
            except (Unsupported, z3.Z3Exception):
                continue
            mark = z3.Bool(f"claim!{i}", self.ctx)
            marks[str(mark)] = (app, value)
            s.assert_and_track(fact, mark)
        s.add(*concrete.side)
        if s.check() != z3.unsat:
            return general, None
        core = [marks[str(m)] for m in s.unsat_core() if str(m) in marks]
        needs = ", ".join(f"{pretty(app)} = {_z3_text(v)}" for app, v in core)
        facts = f"a fact about {' and '.join(sorted({app.func.name for app, _ in core}))}"
        return (f"z3's candidate counterexample needs {needs}, which no lists have: the "
                f"verifier lacks {facts}", facts)


def _length_ladder(lists: int, bound: int) -> List[Tuple[int, ...]]:
    """The lengths tried for ``lists`` lists when the concrete search is inconclusive: all
    equal, longest first, then one of them one shorter (adjacency by addition or removal);
    ``LENGTH_TRIES`` at most."""
    if not lists:
        return []
    ladder: List[Tuple[int, ...]] = [(n,) * lists for n in range(bound, -1, -1)]
    for n in range(bound, 0, -1):
        for i in range(lists):
            ladder.append(tuple(n - 1 if j == i else n for j in range(lists)))
    seen: List[Tuple[int, ...]] = []
    for lengths in ladder:
        if lengths not in seen:
            seen.append(lengths)
    # alternate equal and unequal lengths so that both kinds are tried within the budget
    equal = [t for t in seen if len(set(t)) == 1]
    apart = [t for t in seen if len(set(t)) > 1]
    mixed = [t for pair in itertools.zip_longest(equal, apart) for t in pair if t is not None]
    return mixed[:LENGTH_TRIES]


# ---- printing ----------------------------------------------------------------------------------

def _z3_value(enc: Z3Encoder, value: Value, sort: Sort) -> Optional[z3.ExprRef]:
    if isinstance(value, bool):
        return z3.BoolVal(value, enc.ctx)
    if isinstance(value, int) and sort == INT:
        return z3.IntVal(value, enc.ctx)
    if isinstance(value, (int, Fraction)):
        return z3.RealVal(Fraction(value), enc.ctx)
    return None


def _dyadic(x: Any) -> Fraction:
    man, exp = (int(v) for v in x.man_exp())
    return Fraction(man) * Fraction(2) ** exp


def _z3_text(z: z3.ExprRef) -> str:
    if z3.is_true(z) or z3.is_false(z):
        return "true" if z3.is_true(z) else "false"
    if z3.is_rational_value(z):
        return str(Fraction(z.numerator_as_long(), z.denominator_as_long()))
    return str(z)


def _application(app: Apply, args: Tuple[Value, ...]) -> str:
    return f"{app.func.name} ({', '.join(show(a) for a in args)})"


def _shown(env: Dict[Var, Value]) -> str:
    return ", ".join(f"{v.label} = {show(x)}" for v, x in env.items())


def _conjuncts(t: Term) -> List[Term]:
    if isinstance(t, Op) and t.op == OpKind.AND:
        return [c for a in t.args for c in _conjuncts(a)]
    return [t]


def _polynomial(term: Term) -> bool:
    """No division and no transcendental: z3 evaluates such a formula exactly at a model
    (its algebraic numbers are exact), with no unspecified value involved."""
    return not any(isinstance(t, Op) and t.op in _NOT_POLYNOMIAL for t in subterms(term))


def _model_value(enc: ConcreteEncoder, model: z3.ModelRef, v: Var) -> Optional[z3.ExprRef]:
    """z3's value of a scalar variable (an exact algebraic number stays exact in print)."""
    if not v.sort.is_builtin:
        return None
    return model.eval(enc.const(v), model_completion=True)


def _binding(name: str, value: Value, z: Optional[z3.ExprRef] = None) -> Binding:
    """A concrete value as a counterexample line: exact text (in the program's syntax, or
    z3's ``root-obj`` of an algebraic number) and a decimal rendering."""
    if isinstance(value, (bool, tuple, DistValue, Element)) or value is None:
        return Binding(name, "?" if value is None else show(value))
    if isinstance(value, int):
        return Binding(name, str(value), str(value))
    if isinstance(value, Fraction):
        return Binding(name, str(value), repr(float(value)))
    if z is not None and z3.is_algebraic_value(z):
        return Binding(name, z.sexpr(), z.as_decimal(17).rstrip("?"))
    return Binding(name, show(value), value.str(17, radius=False))
