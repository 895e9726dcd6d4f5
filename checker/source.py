r"""Relating a certificate to its source text: the claims and their indices.

The kernel trusts the language front end (``verifier.language``: parser and printer) to read
the source, and re-derives from it what a claim states:

* ``statement(val)``: the claim as ``name :: relational type``, printed;
* ``index(program, monad, bindings)``: the index ``M[F, delta]`` as terms (family, eps,
  delta), by a small translator for index expressions (numbers, ``+ - * /``, unary ``-``,
  ``pi``, ``exp``, ``log``, ``sqrt``, ``abs``, ``min``, ``max``, ``length``, ``count``,
  ``sum``, ``dist``, the val's parameters, ``x<1>``/``x<2>``, top-level constants) that
  builds the same terms as the verifier's translator. Anything else is refused
  (``SourceError``): the kernel fails closed;
* ``assertion(program, a, bindings, refined)``: an assertion of a refinement as a Bool term
  (the same translator, plus ``= <> < <= > >=``, ``/\ \/ ~ =>``, ``adj``, ``adjWithin`` and
  ``=`` for the refined variable; quantifiers are refused);
* ``range_facts(type, x)``: what a simple type says of a value (``real+``: positive...);
* ``instantiated_cost(program, monad, bindings)``: the cost of a call to a function through
  its val (App-Val): zero when the val says the output distributions are equal, else its
  index.

``bindings`` maps the variables a val's refinements name to their terms in run 1 and run 2,
as the certificate records them (trusted: they are the translation of the arguments).
"""
from __future__ import annotations

from fractions import Fraction
from typing import Dict, Optional, Tuple

from obligations import terms as T
from obligations import vocabulary as V
from verifier.language import ast as A
from verifier.language.parser import parse_program, parse_simple_type
from verifier.language.pretty import pretty_rtype
from verifier.language.resolve import resolve  # noqa: F401  (the kernel reads the resolved core)

Bindings = Dict[str, Tuple[Optional[T.Term], Optional[T.Term]]]  # None: not a number
Index = Tuple[str, Optional[T.Term], T.Term]          # family, eps (DP only), delta
ZERO = T.real(0)
_ARITH = {"+": T.add, "-": T.sub, "*": T.mul, "/": T.div}
_UNARY = {"exp": T.exp, "log": T.log, "sqrt": T.sqrt, "abs": T.abs_, "length": V.length,
          "count": V.count, "sum": V.total}
_BINARY = {"min": T.min_, "max": T.max_, "dist": V.hamming, "adj": V.adj}
_COMPARE = {"<": T.lt, "<=": T.le, ">": T.gt, ">=": T.ge, "=": T.eq,
            "<>": lambda a, b: T.not_(T.eq(a, b)), "&&": T.and_, "||": T.or_}
_LOGIC = {A.Conj: T.and_, A.Disj: T.or_, A.Implies: T.implies}
_ASSERTION_ONLY = ("adj", "adjWithin", "dist")


class SourceError(ValueError):
    """The source does not support what the certificate says of it."""


def parse(text: str, name: str) -> A.Program:
    return parse_program(text, name)


def statement(val: A.ValDecl) -> str:
    return f"{val.name} :: {pretty_rtype(val.rtype)}"


def arrow(val: A.ValDecl) -> Tuple[list, A.RType]:
    """The parameter types and the result type of a val."""
    rt, doms = val.rtype, []
    while isinstance(rt, A.RArrow):
        doms.append(rt.dom)
        rt = rt.cod
    return doms, rt


def refined_var(rt: A.RType) -> Tuple[Optional[str], A.RType, list]:
    """``{x :: {x :: T | B} | A}`` as (x, T, [A, B])."""
    var, assertions = None, []
    while isinstance(rt, A.RRefine):
        if var not in (None, rt.var):
            raise SourceError("nested refinements must use one variable name")
        var = rt.var
        assertions.append(rt.assertion)
        rt = rt.base
    return var, rt, assertions


def equal_in_runs(var: Optional[str], assertions) -> bool:
    """Some conjunct says the refined value is equal in both runs (``=`` or x<1> = x<2>)."""
    todo = list(assertions)
    while todo:
        a = todo.pop()
        if isinstance(a, A.Conj):
            todo += [a.left, a.right]
        elif isinstance(a, A.SameRuns):
            return True
        elif (isinstance(a, A.BinOp) and a.op == "=" and all(isinstance(s, A.RunVar) for s in (
                a.left, a.right)) and {(s.name, s.run) for s in (a.left, a.right)} == {
                (var, 1), (var, 2)}):
            return True
    return False


def index(program: A.Program, rt: A.RMonad, bindings: Bindings) -> Index:
    """The index of ``rt`` as terms, for a claim ``M[F, delta] {x :: T | =}`` (the only form
    the rules prove)."""
    var, _, assertions = refined_var(rt.body)
    if var is None or len(assertions) != 1 or not isinstance(assertions[0], A.SameRuns):
        raise SourceError("a monadic claim must have the form M[F, delta] {x :: T | =}")
    tr = _Translator(program, bindings)
    eps = tr.real(rt.div.eps) if rt.div.kind == "DP" else None
    delta = tr.real(rt.delta) if rt.delta is not None else ZERO
    return rt.div.kind, eps, delta


def assertion(program: A.Program, a: A.Expr, bindings: Bindings,
              refined: Optional[str] = None) -> T.Term:
    """The Bool term of assertion ``a`` of a refinement of variable ``refined``."""
    t = _Translator(program, bindings, refined).term(a, 0, len(program.lets()), bound=True)
    if t.sort != T.BOOL:
        raise SourceError("an assertion must be a boolean")
    return t


def range_facts(t: A.SimpleType, x: T.Term) -> Tuple[T.Term, ...]:
    """What the simple type ``t`` says of a value ``x`` (as the verifier's typing reads it):
    the shared notion of ``verifier.translation.logic.range_facts`` — scalar ranges and the
    ranges of list elements (``allIn_nat (l)``) — which the kernel trusts like the
    translation."""
    from verifier.translation.logic import range_facts as shared
    return shared(t, x)


def has_ranges(t: A.SimpleType) -> bool:
    """Whether the simple type ``t`` says anything of its values beyond their sort (a range,
    the range of list elements, a simplex, or a tuple with such a component): what a val's
    result type makes its callers assume, so the definition's Safety premise must show it.
    The shared notion: ``verifier.translation.ranges.has_ranges``."""
    from verifier.translation.ranges import has_ranges as shared
    return shared(t)


def finite_range_facts(text: str, values) -> Tuple[T.Term, ...]:
    """What the finite simple type printed as ``text`` (``bool``, ``unit``, ``[k]`` and
    tuples of them: the range of an ``expMech`` without a candidate list) says of a value
    whose components are ``values`` (one term per ``bool`` or ``[k]`` component, in order)."""
    try:
        t = parse_simple_type(text)
    except Exception as exc:
        raise SourceError(f"{text!r} is not a simple type: {exc}") from None
    todo, facts = list(values), []

    def walk(t: A.SimpleType) -> None:
        if isinstance(t, A.TTuple):
            for item in t.items:
                walk(item)
            return
        if isinstance(t, A.TBase) and t.name == "unit":
            return
        sort = T.INT if isinstance(t, A.TFin) else T.BOOL if (
            isinstance(t, A.TBase) and t.name == "bool") else None
        if sort is None:
            raise SourceError(f"{text} is not a finite range")
        if not todo or todo[0].sort != sort:
            raise SourceError(f"the values do not match the range {text}")
        facts.extend(range_facts(t, todo.pop(0)))

    walk(t)
    if todo:
        raise SourceError(f"more values than the range {text} has components")
    return tuple(facts)


def instantiated_cost(program: A.Program, rt: A.RType, bindings: Bindings) -> Index:
    """The cost (family, eps, delta) of using a function whose val returns ``rt``."""
    if not isinstance(rt, A.RMonad):
        raise SourceError("the val does not return a distribution")
    tr = _Translator(program, bindings)
    var, _, assertions = refined_var(rt.body)
    delta = tr.real(rt.delta) if rt.delta is not None else ZERO
    equal = delta == ZERO and equal_in_runs(var, assertions) and (
        rt.div.kind in ("SD", "HD", "KL") or (rt.div.kind == "DP" and tr.real(rt.div.eps) == ZERO))
    if equal:
        return "ZERO", ZERO, ZERO
    if var is None or not any(isinstance(a, A.SameRuns) for a in assertions):
        raise SourceError("the val's result must have the form M[F, delta] {x :: T | =}")
    return rt.div.kind, tr.real(rt.div.eps) if rt.div.kind == "DP" else ZERO, delta


class _Translator:
    """The verifier's translation of pure expressions, restricted to indices and assertions:
    run 0 (both runs) for the index or assertion itself, run 1 inside the bodies of
    top-level constants."""

    def __init__(self, program: A.Program, bindings: Bindings, refined: Optional[str] = None):
        self.bindings = bindings
        self.refined = refined
        self.lets = program.lets()
        self.with_val = {v.name for v in program.vals()}

    def real(self, e: A.Expr) -> T.Term:
        t = self.term(e, 0, len(self.lets), bound=True)
        t = T.to_real(t) if t.sort == T.INT else t
        if t.sort != T.REAL:
            raise SourceError("a privacy parameter must be a number")
        return t

    def _constant(self, name: str, before: int) -> Optional[int]:
        """The position of the top-level definition ``name`` visible before ``before``."""
        for i in range(before - 1, -1, -1):
            if self.lets[i].name == name:
                return i
        return None

    def term(self, e: A.Expr, run: int, before: int, bound: bool) -> T.Term:
        if isinstance(e, A.BoolLit):
            return T.boolean(e.value)
        if isinstance(e, A.SameRuns) and self.refined in self.bindings and bound:
            return T.eq(*self._pair(self.refined))
        if type(e) in _LOGIC:
            return _LOGIC[type(e)](self.term(e.left, run, before, bound),
                                   self.term(e.right, run, before, bound))
        if isinstance(e, A.Neg) or (isinstance(e, A.UnOp) and e.op == "not"):
            return T.not_(self.term(e.operand, run, before, bound))
        if isinstance(e, A.BinOp) and e.op in _COMPARE:
            return _COMPARE[e.op](self.term(e.left, run, before, bound),
                                  self.term(e.right, run, before, bound))
        if isinstance(e, A.RealLit):
            return T.real(Fraction(e.value))
        if isinstance(e, A.IntLit):
            return T.integer(e.value)
        if isinstance(e, (A.Var, A.RunVar)):
            return self._name(e, run, before, bound)
        if isinstance(e, A.BinOp) and e.op in _ARITH:
            return _ARITH[e.op](self.term(e.left, run, before, bound),
                                self.term(e.right, run, before, bound))
        if isinstance(e, A.UnOp) and e.op == "-":
            return T.neg(self.term(e.operand, run, before, bound))
        if isinstance(e, A.App) and isinstance(e.fn, A.Var) and not self._shadowed(
                e.fn.name, before, bound):
            items = e.arg.items if isinstance(e.arg, A.TupleLit) else (e.arg,)
            args = [self.term(a, run, before, bound) for a in items]
            if e.fn.name in _UNARY and len(args) == 1:
                if e.fn.name in ("length", "count", "sum") and V.list_key_of(args[0].sort) is None:
                    raise SourceError(f"{e.fn.name} of something that is not a list")
                return _UNARY[e.fn.name](args[0])
            if e.fn.name in _ASSERTION_ONLY and run != 0:
                raise SourceError(f"{e.fn.name} may only appear in assertions")
            if e.fn.name in _BINARY and len(args) == 2:
                return _BINARY[e.fn.name](*args)
            if e.fn.name == "adjWithin" and len(args) == 3:
                return V.adj_within(*args)
        raise SourceError(f"the kernel does not translate this index expression "
                          f"({type(e).__name__} at {e.span})")

    def _pair(self, name: str) -> Tuple[T.Term, T.Term]:
        left, right = self.bindings[name]
        if left is None or right is None:
            raise SourceError(f"{name} is not a first-order value in both runs")
        return left, right

    def _shadowed(self, name: str, before: int, bound: bool) -> bool:
        return (bound and name in self.bindings) or self._constant(name, before) is not None

    def _name(self, e, run: int, before: int, bound: bool) -> T.Term:
        if bound and e.name in self.bindings:
            left, right = self._pair(e.name)
            if isinstance(e, A.RunVar):
                return (left, right)[e.run - 1]
            if run == 0 and left != right:
                raise SourceError(f"{e.name} is not known to be equal in both runs")
            return right if run == 2 else left
        i = self._constant(e.name, before)
        if isinstance(e, A.Var) and i is not None:
            decl = self.lets[i]
            if decl.params or decl.recursive or decl.name in self.with_val:
                raise SourceError(f"{e.name} is not a constant the kernel can unfold")
            # a top-level constant: its body, in run 1, sees the definitions before it
            return self.term(decl.body, 1, i, bound=False)
        if isinstance(e, A.Var) and i is None and e.name == "pi":
            return T.pi()
        raise SourceError(f"the kernel cannot translate the name {e.name} in an index")
