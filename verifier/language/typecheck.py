"""Simple type inference: Hindley–Milner with let-polymorphism and the numeric order.

The checker infers a type for every expression (``verifier.language.types``), with
let-polymorphism (levels-based generalisation) for top-level and inner ``let``s, and uses the
order ``[k] <= int <= real`` where values flow:

* an application argument must be ``<=`` the parameter type;
* ``if`` and ``match`` branches, list elements and the operands of ``=`` / ``<>`` are joined;
* ``+ - *`` need numbers and give the join of the operands (``int`` for two ``[k]``),
  ``/`` always gives ``real``, ``< <= > >=`` need numbers;
* an annotated pattern ``(x : T)`` accepts a value of any type ``<= T`` and gives ``x`` type ``T``.

Where a type variable meets a type it is bound to it. One exception: an operand of arithmetic,
of a comparison or of ``min``/``max``/``abs`` whose type is still unknown becomes an *undecided
number* (a numeric ``TypeVar``, see ``types``): ``int`` or ``real``, to be decided by a later use
(flowing into an ``int``, joined with an ``int`` as in ``if i <= 0 then [0] else i :: ...``, or
meeting a ``real``); an ``int`` may flow into it without deciding it, so that ``fun eps -> eps *
n`` with ``n : int`` still accepts any number. The sum of an undecided number and an ``int`` is
the undecided number; with a ``real`` (``x + 0.5``) it is decided ``real``, and so are the
operands of ``/`` (real division) and those compared with a ``real``. An undecided number is
never generalised by ``let`` (the uses of ``let g x = x + 1`` all share one ``x``), and whatever
is still undecided at the end of a top-level declaration is ``real``.

Built-ins (``verifier.language.builtins``) are looked up after every binding, so a program may
shadow them. Applications of a built-in to a tuple check the arity (T003) and report the
argument at fault ("in the 1st argument of beta"); overloaded built-ins are typed per use.

Top-level declarations are checked in order: a ``let`` sees the ``let``s before it (a
``let rec`` also itself). The last definition of a name that has a ``val`` must fit the
``val``'s erased type (T009); the fit is checked before generalisation, so the ``val`` fixes
what inference left open (``[k]`` sizes, the range of an ``expMech``). Each ``val``'s
assertions and monad indices are then checked against all top-level ``let``s. Errors in
different declarations are all reported, in source order; within one declaration inference
stops at the first error.

The range of every ``expMech`` without candidates must be finite and known by the end of its
top-level declaration (T011), and so must every type compared with ``=``/``<>`` have an
equality (T010). Equality inside a polymorphic definition (``fun x y -> x = y``) is not
checked again where that definition is used at a function type.
"""
from __future__ import annotations

import difflib
from typing import Callable, Dict, List, Mapping, Optional, Tuple, Union

from verifier.errors import Diagnostic, PrivInferError, error
from verifier.language.ast import (
    App, BinOp, BoolLit, Cons, Conj, Disj, DivBound, Divergence, Expr, Fun, If, Implies, Infer,
    IntLit, Let, LetDecl, LetRec, ListLit, Match, MLet, Neg, Node, Observe, Pattern, Program,
    PTuple, PUnit, PVar, PWild, Quant, Ran, RArrow, RealLit, Return, RMonad, RRefine, RSimple,
    RType, RunVar, SameRuns, Span, TupleLit, UnitLit, UnOp, ValDecl, Var, children,
)
from verifier.language.builtins import ASSERTION, BUILTINS, CONSTANT, OVERLOADED, Builtin
from verifier.language.parser import recursion_headroom
from verifier.language.types import (
    BOOL, INT, REAL, UNIT, Arrow, Dist, Fin, ListType, Monad, Namer, OccursCheck, Scheme, Simplex,
    TupleType, Type, TypeClash, TypeVar, arrows, bind, erase_rtype, flows, free_vars, from_syntax,
    generalize, instantiate, is_numeric, is_undecided, join, narrowing, pretty, prune, resolve,
    simplex, unify,
)

#: Names in scope, innermost first; built-ins are not in it (they are looked up last).
class Env(dict):
    """Name -> ``Scheme``: a flat map, copied for an inner scope (``new_child``), so that a
    lookup takes constant time however deep the nesting (a chain of n ``mlet`` binders
    costs n copies, done in C, rather than n lookups through n scopes each)."""

    def new_child(self, names: Optional[Mapping[str, Scheme]] = None) -> "Env":
        return Env({**self, **names}) if names else Env(self)


#: What a value is, for messages ("the 1st argument of f"); a callable is only called on error.
Context = Union[str, Callable[[], str]]

__all__ = ["TypedProgram", "typecheck_program", "typecheck_expr"]


class TypedProgram:
    """A program with its simple types.

    Node types are keyed by ``id(node)``: the nodes are the very objects of ``program`` (the
    ``TypedProgram`` keeps ``program`` alive, so the ids stay valid). Every expression node has
    a type, including those inside ``val`` assertions and indices, and so has every pattern
    node. Types are returned fully resolved (on demand: a type can be exponentially larger
    than the program); the variables left in them are those a polymorphic definition
    quantifies (they print as ``'a``, ``'b``, ...). Treat them as read-only: to relate such a
    type to another, instantiate it first (``instantiate(generalize(t, 0), 1)``).
    """

    def __init__(self, program: Program, schemes: Dict[str, Scheme], val_types: Dict[str, Type],
                 node_types: Dict[int, Type], expmech_ranges: Dict[int, Type],
                 decl_schemes: Dict[int, Scheme],
                 narrowings: Optional[Dict[int, List[Tuple[Optional[int], str, Type]]]] = None):
        self.program = program
        #: name -> scheme of its last top-level ``let``
        self.schemes = schemes
        #: name -> erased type of its ``val``
        self.val_types = val_types
        self._node_types = node_types
        self._resolved: Dict[int, Type] = {}
        self._expmech_ranges = expmech_ranges
        self._decl_schemes = decl_schemes
        self._narrowings = narrowings or {}

    def type_of(self, node: Node) -> Type:
        """The type of an expression or pattern node of ``program``."""
        key = id(node)
        if key not in self._resolved:
            if key not in self._node_types:
                raise KeyError(f"no type for this {type(node).__name__}: not an expression or "
                               "pattern of the type-checked program")
            self._resolved[key] = resolve(self._node_types[key])
        return self._resolved[key]

    def scheme_of(self, decl: LetDecl) -> Scheme:
        """The scheme of one top-level ``let`` of ``program`` (shadowed ones included)."""
        return self._decl_schemes[id(decl)]

    def narrowings(self, node: Node) -> List[Tuple[Optional[int], str, Type]]:
        """Where the value of expression ``node`` flows into a narrower type (an ``int`` where
        a ``[k]`` is expected, ``types.narrowing``): ``(component, kind, expected)`` for each
        flow, ``component`` the index of the tuple component that flows (a built-in's
        arguments given as one tuple), or None for the whole value. The verifier must show
        the expected type's ranges there, or refuse the code: the simple types downstream
        take the narrower type for granted."""
        return self._narrowings.get(id(node), [])

    @property
    def narrowing_table(self) -> Dict[int, List[Tuple[Optional[int], str, Type]]]:
        """Every node's narrowings (``narrowings``), by node id."""
        return self._narrowings

    def expmech_range(self, app: App) -> Type:
        """The range ``R`` of an ``expMech`` call: ``app`` is the ``App`` whose function is ``expMech``."""
        try:
            return self._expmech_ranges[id(app)]
        except KeyError:
            raise KeyError("not an application of expMech in the type-checked program") from None


def typecheck_program(program: Program) -> TypedProgram:
    """Infer the simple types of ``program``; raise ``PrivInferError`` listing every error found."""
    with recursion_headroom(_FRAMES_PER_NODE * _size(program)):
        return _Checker().check_program(program)


def typecheck_expr(expr: Expr, env: Optional[Mapping[str, Union[Type, Scheme]]] = None) -> Type:
    """The resolved type of a closed expression (free names may be given types in ``env``).

    Built-ins are in scope; assertion-only predicates are not. Raises ``PrivInferError``.
    """
    checker = _Checker()
    scope = {name: t if isinstance(t, Scheme) else Scheme.mono(t) for name, t in (env or {}).items()}
    checker.level = 1
    with recursion_headroom(_FRAMES_PER_NODE * _size(expr)):
        t = checker.infer(expr, Env(scope))
        checker.flush()
        return resolve(t)


#: Python frames the checker may use per syntax node, at most (inference is recursive, and
#: the parser accepts arbitrarily long chains such as ``a + b + ...``), with a margin.
_FRAMES_PER_NODE = 8


def _size(root: Node) -> int:
    """The number of syntax nodes under ``root``."""
    count, stack = 0, [root]
    while stack:
        count += 1
        stack.extend(children(stack.pop()))
    return count


# --------------------------------------------------------------------------------------
# Messages
# --------------------------------------------------------------------------------------


def ordinal(n: int) -> str:
    """``1st``, ``2nd``, ``3rd``, ``4th``, ..., ``11th``, ..., ``21st``."""
    if 10 <= n % 100 <= 20:
        suffix = "th"
    else:
        suffix = {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def _text(context: Context) -> str:
    return context if isinstance(context, str) else context()


def _spine(app: App) -> Tuple[Expr, int]:
    """The head of an application spine ``f a1 ... an`` and the position ``n`` of ``app.arg``."""
    fn, n = app.fn, 1
    while isinstance(fn, App):
        fn, n = fn.fn, n + 1
    return fn, n


def _argument_context(app: App) -> str:
    head, n = _spine(app)
    owner = head.name if isinstance(head, Var) else "this function"
    return f"the {ordinal(n)} argument of {owner}"


def _builtin_argument_context(name: str, index: int, count: int) -> str:
    return f"the argument of {name}" if count == 1 else f"the {ordinal(index + 1)} argument of {name}"


def _binding_context(keyword: str, pattern: Pattern) -> str:
    if isinstance(pattern, PVar):
        return f"the value bound to {pattern.name} by {keyword}"
    return f"the value of {keyword}"


def _equality_blocker(t: Type) -> Optional[str]:
    """What in ``t`` has no equality (``"functions"``, ``"M[...] distributions"``), or ``None``."""
    t = prune(t)
    if isinstance(t, Arrow):
        return "functions"
    if isinstance(t, Monad):
        return "M[...] distributions"
    if isinstance(t, (ListType, Dist)):
        return _equality_blocker(t.elem)
    if isinstance(t, TupleType):
        for item in t.items:
            found = _equality_blocker(item)
            if found:
                return found
    return None


class _Component:
    """Component ``index`` of the tuple that expression ``node`` denotes: a built-in's
    arguments given as one tuple (``beta p``), each flowing into its parameter."""

    __slots__ = ("node", "index", "span")

    def __init__(self, node: Node, index: int):
        self.node, self.index, self.span = node, index, node.span


def _is_finite(t: Type) -> bool:
    """``bool``, ``unit``, ``[k]`` and tuples of them."""
    t = prune(t)
    if isinstance(t, TupleType):
        return all(_is_finite(i) for i in t.items)
    return t in (BOOL, UNIT) or isinstance(t, Fin)


# --------------------------------------------------------------------------------------
# The checker
# --------------------------------------------------------------------------------------


class _Checker:
    """One type-checking run. ``infer`` dispatches on the node class through ``rules``."""

    def __init__(self) -> None:
        self.level = 0
        self.in_assertion = False
        self.types: Dict[int, Type] = {}
        self.expmech_ranges: Dict[int, Type] = {}
        #: every flow ``actual <= expected`` of a value: (node id, tuple component, types)
        self.flows: List[Tuple[int, Optional[int], Type, Type]] = []
        #: checks that wait for the end of the current declaration (types still unknown)
        self.pending: List[Callable[[], None]] = []
        #: the variables made undecided numbers in the current declaration (some since bound)
        self.undecided: List[TypeVar] = []
        self.rules: Dict[type, Callable[[Expr, Env], Type]] = {
            Var: self.var, RunVar: self.run_var,
            UnitLit: lambda e, env: UNIT, BoolLit: lambda e, env: BOOL,
            IntLit: lambda e, env: INT, RealLit: lambda e, env: REAL,
            ListLit: self.list_lit, TupleLit: self.tuple_lit, Cons: self.cons,
            App: self.app, Fun: self.fun, Let: self.let, LetRec: self.let_rec,
            If: self.if_, Match: self.match, BinOp: self.binop, UnOp: self.unop,
            Return: self.return_, MLet: self.mlet, Observe: self.observe,
            Infer: self.infer_, Ran: self.ran,
            SameRuns: lambda e, env: BOOL, Conj: self.connective, Disj: self.connective,
            Implies: self.connective, Neg: self.neg, Quant: self.quant, DivBound: self.div_bound,
        }
        self.binops: Dict[str, Callable[[BinOp, Env], Type]] = {
            "+": self.arith, "-": self.arith, "*": self.arith, "/": self.arith,
            "<": self.order, "<=": self.order, ">": self.order, ">=": self.order,
            "=": self.equality, "<>": self.equality, "&&": self.logic, "||": self.logic,
        }
        self.overloads: Dict[str, Callable[[App, List[Tuple[Expr, Type]]], Type]] = {
            "expMech": self.exp_mech, "dirichlet": self.dirichlet, "getParams": self.get_params,
            "min": self.min_max, "max": self.min_max, "abs": self.abs_,
            "hellingerMech": self.hellinger_mech, "hellingerMechPure": self.hellinger_mech,
            "posteriors": self.posteriors,
        }
        self.rtype_rules: Dict[type, Callable[[RType, Env], Type]] = {
            RSimple: self.r_simple, RRefine: self.r_refine, RArrow: self.r_arrow, RMonad: self.r_monad,
        }

    # ---- programs ----------------------------------------------------------------------

    def check_program(self, program: Program) -> TypedProgram:
        diagnostics: List[Diagnostic] = []
        vals: Dict[str, ValDecl] = {}
        for val in program.vals():
            if val.name in vals:
                diagnostics.append(Diagnostic(
                    "T013", f"a second val for {val.name}", val.span,
                    notes=(f"the first is at {vals[val.name].span}",)))
            else:
                vals[val.name] = val
        last_let = {d.name: d for d in program.lets()}

        top: Dict[str, Scheme] = {}
        decl_schemes: Dict[int, Scheme] = {}
        for decl in program.lets():
            val = vals.get(decl.name) if last_let[decl.name] is decl else None
            try:
                scheme = self.let_decl(decl, Env(top), val)
            except PrivInferError as exc:
                diagnostics.extend(exc.diagnostics)
                anything = TypeVar(1)  # keeps later uses of the name from failing in turn
                scheme = Scheme((anything,), anything)
            top[decl.name] = scheme
            decl_schemes[id(decl)] = scheme

        val_types: Dict[str, Type] = {}
        for name, val in vals.items():
            if name not in last_let:
                close = difflib.get_close_matches(name, list(last_let), n=1)
                diagnostics.append(Diagnostic(
                    "T008", f"val {name} has no definition: add a let {name} ...", val.span,
                    hint=f"did you mean {close[0]}?" if close else None))
            try:
                self.val_decl(val, Env(top))
            except PrivInferError as exc:
                diagnostics.extend(exc.diagnostics)
            val_types[name] = erase_rtype(val.rtype)

        if diagnostics:
            diagnostics.sort(key=lambda d: (d.span.line, d.span.col) if d.span else (0, 0))
            raise PrivInferError(diagnostics, source=program.source)
        resolved = {key: Scheme(s.vars, resolve(s.body)) for key, s in decl_schemes.items()}
        return TypedProgram(
            program=program,
            schemes={d.name: resolved[id(d)] for d in program.lets()},
            val_types=val_types,
            node_types=self.types,
            expmech_ranges={key: resolve(t) for key, t in self.expmech_ranges.items()},
            decl_schemes=resolved,
            narrowings=self.narrowings(),
        )

    def narrowings(self) -> Dict[int, List[Tuple[Optional[int], str, Type]]]:
        """The flows into a narrower type (``TypedProgram.narrowings``), by node, from the
        flows recorded while checking (decided now that every type is resolved)."""
        out: Dict[int, List[Tuple[Optional[int], str, Type]]] = {}
        for key, component, actual, expected in self.flows:
            kind = narrowing(actual, expected)
            if kind is not None:
                entry = (component, kind, resolve(expected))
                if entry not in out.setdefault(key, []):
                    out[key].append(entry)
        return out

    def start_declaration(self, in_assertion: bool) -> None:
        self.level = 1
        self.in_assertion = in_assertion
        self.pending = []
        self.undecided = []

    def flush(self) -> None:
        """Default the numbers still undecided to ``real``, then run the checks that waited
        for the end of the declaration."""
        undecided, self.undecided = self.undecided, []
        for v in undecided:
            v = prune(v)
            if isinstance(v, TypeVar):
                bind(v, REAL)
        pending, self.pending = self.pending, []
        for check in pending:
            check()

    def let_decl(self, decl: LetDecl, env: Env, val: Optional[ValDecl]) -> Scheme:
        self.start_declaration(in_assertion=False)
        if val is not None:
            # the val is the type of the parameters (and of the recursive calls) as an
            # annotation would be
            t = self.function(decl.name, decl.params, decl.body, env, decl.recursive,
                              declared=(decl, val))
        else:
            t = self.function(decl.name, decl.params, decl.body, env, decl.recursive)
        if val is not None:
            self.fit_val(decl, t, val)
        self.flush()
        self.level = 0
        return generalize(t, 0)

    def seed_parameters(self, param_types: List[Type], val: ValDecl) -> None:
        """Give the parameters whose type is still unknown the types their val declares,
        before the body is inferred: ``let q x = x + 1`` under ``val q :: int -> int`` adds
        integers (inference alone takes an unknown operand of arithmetic to be real, and the
        definition would then not fit its val). The result is left to inference, and
        ``fit_val`` checks the whole type afterwards."""
        want = erase_rtype(val.rtype)
        for t in param_types:
            want = prune(want)
            if not isinstance(want, Arrow):
                return
            if isinstance(prune(t), TypeVar):
                bind(prune(t), want.dom)
            want = want.cod

    def fit_val(self, decl: LetDecl, t: Type, val: ValDecl) -> None:
        declared = erase_rtype(val.rtype)
        namer = Namer()
        found, wanted = pretty(t, namer), pretty(declared, namer)
        try:
            flows(t, declared)
        except TypeClash:
            raise error("T009", f"the definition of {decl.name} does not fit its val: it has type "
                                f"{found}, but the val declares {wanted}", decl.span,
                        notes=(f"the val is declared at {val.span}",)) from None
        # the val's parameters flow into the definition's: recorded at the parameters'
        # patterns (``narrowings``: a definition that uses an int parameter as a [k])
        params, body = list(decl.params), decl.body
        have, want = prune(t), prune(declared)
        while isinstance(have, Arrow) and isinstance(want, Arrow):
            if not params and isinstance(body, Fun):
                params, body = list(body.params), body.body
            if not params:
                break
            self.flows.append((id(params.pop(0)), None, want.dom, have.dom))
            have, want = prune(have.cod), prune(want.cod)

    def val_decl(self, val: ValDecl, env: Env) -> None:
        self.start_declaration(in_assertion=True)
        self.rtype(val.rtype, env)
        self.flush()
        self.level = 0

    # ---- relational types ----------------------------------------------------------------

    def rtype(self, rt: RType, env: Env) -> Type:
        """Check the assertions and indices of ``rt``; return its erased type."""
        rule = self.rtype_rules.get(type(rt))
        if rule is None:
            raise TypeError(f"typecheck: no rule for relational type {type(rt).__name__}")
        return rule(rt, env)

    def r_simple(self, rt: RSimple, env: Env) -> Type:
        return from_syntax(rt.type)

    def r_refine(self, rt: RRefine, env: Env) -> Type:
        t = self.rtype(rt.base, env)
        runs = {f"{rt.var}<1>": Scheme.mono(t), f"{rt.var}<2>": Scheme.mono(t)}
        self.expect(rt.assertion, BOOL, env.new_child(runs), "the assertion")
        return t

    def r_arrow(self, rt: RArrow, env: Env) -> Type:
        dom = self.rtype(rt.dom, env)
        if isinstance(rt.dom, RRefine):
            x = rt.dom.var
            env = env.new_child({x: Scheme.mono(dom), f"{x}<1>": Scheme.mono(dom),
                                 f"{x}<2>": Scheme.mono(dom)})
        return Arrow(dom, self.rtype(rt.cod, env))

    def r_monad(self, rt: RMonad, env: Env) -> Type:
        self.divergence(rt.div, env)
        if rt.delta is not None:
            self.expect(rt.delta, REAL, env, "the delta of M[...]")
        return Monad(self.rtype(rt.body, env))

    def divergence(self, div: Divergence, env: Env) -> None:
        if div.eps is not None:
            self.expect(div.eps, REAL, env, f"the epsilon of {div.kind}")

    # ---- expressions: dispatch and the relations of types -------------------------------

    def infer(self, e: Expr, env: Env) -> Type:
        """The type of ``e`` (recorded for ``TypedProgram.type_of``)."""
        rule = self.rules.get(type(e))
        if rule is None:
            raise TypeError(f"typecheck: no rule for {type(e).__name__}")
        t = rule(e, env)
        self.types[id(e)] = t
        return t

    def expect(self, e: Expr, expected: Type, env: Env, context: Context) -> Type:
        """Infer ``e`` and check that it flows into ``expected``."""
        t = self.infer(e, env)
        self.flow(t, expected, e, context)
        return t

    def fresh(self) -> TypeVar:
        return TypeVar(self.level)

    def flow(self, actual: Type, expected: Type, node: Node, context: Context) -> None:
        """``actual <= expected`` or T002 / T005 at ``node`` (recorded: ``narrowings``)."""
        self.relate(flows, actual, expected, node, context)
        if isinstance(node, _Component):
            self.flows.append((id(node.node), node.index, actual, expected))
        else:
            self.flows.append((id(node), None, actual, expected))

    def unify(self, actual: Type, expected: Type, node: Node, context: str) -> None:
        """``actual = expected`` or T002 / T005 at ``node``."""
        self.relate(unify, actual, expected, node, context)

    def join(self, first: Type, second: Type, node: Node, context: str) -> Type:
        """The join of two types, or T002 / T005 at ``node`` (which has type ``second``)."""
        return self.relate(join, second, first, node, context)

    def relate(self, relation: Callable[[Type, Type], Optional[Type]], actual: Type,
               expected: Type, node: Node, context: Context) -> Type:
        """Apply ``relation`` (``flows``, ``unify`` or ``join``); its failure becomes T002 / T005.

        The message shows the types as far as the failed attempt bound them.
        """
        try:
            result = relation(actual, expected)
        except TypeClash:
            namer = Namer()
            raise error("T002", f"expected {pretty(expected, namer)}, found {pretty(actual, namer)} "
                                f"in {_text(context)}", node.span) from None
        except OccursCheck as exc:
            namer = Namer()
            raise error("T005", f"recursive type in {_text(context)}: {pretty(exc.var, namer)} would "
                                f"have to equal {pretty(exc.type, namer)}", node.span) from None
        return prune(result) if result is not None else prune(actual)

    def numeric(self, t: Type, node: Node, context: str) -> Type:
        """Check that ``t`` is a number; a still unknown type becomes an undecided number
        (defaulted to ``real`` by ``flush``)."""
        t = prune(t)
        if isinstance(t, TypeVar):
            if not t.numeric:
                t.numeric = True
                self.undecided.append(t)
        elif not is_numeric(t):
            raise error("T002", f"expected a number, found {pretty(t)} in {context}", node.span)
        return prune(t)

    def check_equality(self, t: Type, node: BinOp) -> None:
        """T010 unless ``t`` has an equality; checked again at the end if ``t`` has unknowns."""
        self.refuse_no_equality(t, node)
        if free_vars(t):
            self.pending.append(lambda: self.refuse_no_equality(t, node))

    def refuse_no_equality(self, t: Type, node: BinOp) -> None:
        blocker = _equality_blocker(t)
        if blocker is not None:
            raise error("T010", f"cannot compare values of type {pretty(t)} with {node.op}: "
                                f"there is no equality on {blocker}", node.span)

    # ---- variables --------------------------------------------------------------------

    def var(self, e: Var, env: Env) -> Type:
        if e.name in env:
            return instantiate(env[e.name], self.level)
        builtin = self.builtin(e.name, env, e)
        if builtin is None:
            raise error("T001", f"unbound variable {e.name}", e.span, hint=self.unbound_hint(e.name, env))
        if builtin.kind == OVERLOADED:
            raise error("T012", f"the built-in {e.name} must be applied to its arguments here: "
                                "its type depends on them", e.span, hint=f"{e.name} : {builtin.signature}")
        assert builtin.scheme is not None
        return instantiate(builtin.scheme, self.level)

    def unbound_hint(self, name: str, env: Env) -> Optional[str]:
        if f"{name}<1>" in env:
            return f"in its own refinement, {name} is written {name}<1> or {name}<2>"
        candidates = [n for n in env if "<" not in n]
        candidates += [n for n, b in BUILTINS.items() if b.kind != ASSERTION or self.in_assertion]
        close = difflib.get_close_matches(name, candidates, n=1)
        return f"did you mean {close[0]}?" if close else None

    def run_var(self, e: RunVar, env: Env) -> Type:
        key = f"{e.name}<{e.run}>"
        if key in env:
            return instantiate(env[key], self.level)
        hint = None
        if e.name in env or e.name in BUILTINS:
            hint = (f"only a variable bound by a refinement {{{e.name} :: T | ...}} has values "
                    f"{e.name}<1> and {e.name}<2>; write {e.name}")
        raise error("T001", f"unbound variable {key}", e.span, hint=hint)

    def builtin(self, name: str, env: Env, node: Node) -> Optional[Builtin]:
        """The built-in ``name`` unless a binding shadows it; T014 for a predicate outside assertions."""
        if name in env:
            return None
        builtin = BUILTINS.get(name)
        if builtin is not None and builtin.kind == ASSERTION and not self.in_assertion:
            raise error("T014", f"{name} is a relation between two runs, usable only in the "
                                "assertions of val declarations", node.span)
        return builtin

    # ---- data ---------------------------------------------------------------------------

    def list_lit(self, e: ListLit, env: Env) -> Type:
        elem: Type = self.fresh()
        for i, item in enumerate(e.items):
            elem = self.join(elem, self.infer(item, env), item, f"the {ordinal(i + 1)} element of the list")
        return ListType(elem)

    def tuple_lit(self, e: TupleLit, env: Env) -> Type:
        return TupleType(tuple(self.infer(item, env) for item in e.items))

    def cons(self, e: Cons, env: Env) -> Type:
        head = self.infer(e.head, env)
        elem = self.fresh()
        self.expect(e.tail, ListType(elem), env, "the tail of ::")
        return ListType(self.join(elem, head, e.head, "the head of ::"))

    # ---- functions and bindings ------------------------------------------------------------

    def pattern(self, p: Pattern, seen: Dict[str, Span]) -> Tuple[Type, List[Tuple[str, Type]]]:
        """The type a pattern accepts and the names it binds; ``seen`` catches repeated names."""
        binds: List[Tuple[str, Type]] = []
        if isinstance(p, PVar):
            if p.name in seen:
                raise error("T007", f"{p.name} is bound twice", p.span,
                            notes=(f"first bound at {seen[p.name]}",))
            seen[p.name] = p.span
            t = from_syntax(p.annot) if p.annot is not None else self.fresh()
            binds.append((p.name, t))
        elif isinstance(p, PWild):
            t = from_syntax(p.annot) if p.annot is not None else self.fresh()
        elif isinstance(p, PUnit):
            t = UNIT
        elif isinstance(p, PTuple):
            items = []
            for item in p.items:
                item_t, item_binds = self.pattern(item, seen)
                items.append(item_t)
                binds.extend(item_binds)
            t = TupleType(tuple(items))
        else:
            raise TypeError(f"typecheck: no rule for pattern {type(p).__name__}")
        self.types[id(p)] = t
        return t, binds

    def function(self, name: Optional[str], params: Tuple[Pattern, ...], body: Expr, env: Env,
                 recursive: bool, declared: Optional[Tuple[LetDecl, ValDecl]] = None) -> Type:
        """The type of ``fun params -> body``; when ``recursive``, ``name`` is bound in ``body``
        (at the type of its val, when ``declared`` gives the declaration and its val)."""
        seen: Dict[str, Span] = {}
        scope: Dict[str, Scheme] = {}
        param_types = []
        for p in params:
            t, binds = self.pattern(p, seen)
            param_types.append(t)
            scope.update((n, Scheme.mono(bt)) for n, bt in binds)
        if not recursive:
            if declared is not None:
                self.seed_parameters(param_types, declared[1])
            return arrows(param_types, self.infer(body, env.new_child(scope)))
        assert name is not None
        result = self.fresh()
        self_type = arrows(param_types, result)
        if declared is not None:
            self.fit_val(declared[0], self_type, declared[1])
        inner = env.new_child({name: Scheme.mono(self_type)}).new_child(scope)
        self.expect(body, result, inner, f"the result of {name}")
        return self_type

    def fun(self, e: Fun, env: Env) -> Type:
        return self.function(None, e.params, e.body, env, recursive=False)

    def let(self, e: Let, env: Env) -> Type:
        self.level += 1
        pattern_t, binds = self.pattern(e.pattern, {})
        self.expect(e.value, pattern_t, env, _binding_context("let", e.pattern))
        self.level -= 1
        scope = {n: generalize(t, self.level) for n, t in binds}
        return self.infer(e.body, env.new_child(scope))

    def let_rec(self, e: LetRec, env: Env) -> Type:
        self.level += 1
        t = self.function(e.name, e.params, e.value, env, recursive=True)
        self.level -= 1
        return self.infer(e.body, env.new_child({e.name: generalize(t, self.level)}))

    def app(self, e: App, env: Env) -> Type:
        builtin = self.builtin(e.fn.name, env, e.fn) if isinstance(e.fn, Var) else None
        if builtin is not None and builtin.kind == OVERLOADED:
            args = self.builtin_arguments(builtin, e.arg, env)
            result = self.overloads[builtin.name](e, args)
            self.types[id(e.fn)] = Arrow(self.types[id(e.arg)], result)
            return result
        if builtin is not None and builtin.kind != CONSTANT:
            return self.builtin_call(builtin, e, env)
        fn = prune(self.infer(e.fn, env))
        if is_undecided(fn):
            raise self.not_a_function(e, fn)
        if isinstance(fn, TypeVar):
            arrow = Arrow(self.fresh(), self.fresh())
            bind(fn, arrow)
            fn = arrow
        elif not isinstance(fn, Arrow):
            raise self.not_a_function(e, fn)
        self.expect(e.arg, fn.dom, env, lambda: _argument_context(e))
        return fn.cod

    def not_a_function(self, e: App, fn: Type) -> PrivInferError:
        head, n = _spine(e)
        if isinstance(head, Var) and n > 1:
            message = (f"{head.name} is applied to too many arguments: applied to {n - 1} it has "
                       f"type {pretty(fn)}, which is not a function")
        elif isinstance(head, Var):
            message = f"{head.name} is not a function: it has type {pretty(fn)}"
        else:
            message = f"this expression is not a function: it has type {pretty(fn)}"
        return error("T004", message, e.fn.span)

    def builtin_arguments(self, builtin: Builtin, arg: Expr, env: Env) -> List[Tuple[Expr, Type]]:
        """The arguments of a built-in call with their types, their number checked (T003).

        A tuple literal gives one argument per component, ``()`` none; any other expression
        gives one argument if the built-in takes one, else one per component of its tuple type.
        """
        if isinstance(arg, TupleLit) and self._takes_simplex(builtin) \
                and not builtin.accepts(len(arg.items)):
            # ``categorical (0.2, 0.3, 0.5)``: a tuple literal of reals as one point of the
            # simplex (the verifier and ``run`` check its range where the built-in is applied)
            for item in arg.items:
                self.flow(self.infer(item, env), REAL, item, f"a probability of {builtin.name}")
            t = simplex(len(arg.items))
            self.types[id(arg)] = t
            args = [(arg, t)]
        elif isinstance(arg, TupleLit):
            args = [(item, self.infer(item, env)) for item in arg.items]
            self.types[id(arg)] = TupleType(tuple(t for _, t in args))
        elif isinstance(arg, UnitLit):
            self.infer(arg, env)
            args = []
        else:
            t = prune(self.infer(arg, env))
            n = builtin.min_args
            if builtin.accepts(1):
                args = [(arg, t)]
            elif isinstance(t, TupleType):
                args = [(_Component(arg, i), item) for i, item in enumerate(t.items)]
            elif t == UNIT:
                args = []
            elif isinstance(t, TypeVar) and not t.numeric and builtin.max_args == n:
                parts = [self.fresh() for _ in range(n)]
                bind(t, TupleType(tuple(parts)) if n else UNIT)
                args = [(_Component(arg, i), part) for i, part in enumerate(parts)]
            else:
                args = [(arg, t)]
        if not builtin.accepts(len(args)):
            raise error("T003", f"{builtin.name} takes {builtin.arity_text}, found {len(args)}", arg.span,
                        hint=f"{builtin.name} : {builtin.signature}")
        return args

    def _takes_simplex(self, builtin: Builtin) -> bool:
        """``builtin`` takes one point of the simplex ``[0,1]^k`` (``categorical``)."""
        if builtin.scheme is None or builtin.min_args != 1:
            return False
        fn = prune(instantiate(builtin.scheme, self.level))
        return isinstance(fn, Arrow) and isinstance(prune(fn.dom), Simplex)

    def builtin_call(self, builtin: Builtin, e: App, env: Env) -> Type:
        assert builtin.scheme is not None
        fn = instantiate(builtin.scheme, self.level)
        assert isinstance(fn, Arrow)
        self.types[id(e.fn)] = fn
        args = self.builtin_arguments(builtin, e.arg, env)
        if builtin.min_args == 0:
            params: List[Type] = []
        elif builtin.min_args == 1:
            params = [fn.dom]
        else:
            params = list(prune(fn.dom).items)  # type: ignore[attr-defined]
        for i, ((node, t), param) in enumerate(zip(args, params)):
            self.flow(t, param, node, _builtin_argument_context(builtin.name, i, len(params)))
        return fn.cod

    # ---- control ------------------------------------------------------------------------

    def if_(self, e: If, env: Env) -> Type:
        self.expect(e.cond, BOOL, env, "the condition of if")
        then = self.infer(e.then, env)
        return self.join(then, self.infer(e.else_, env), e.else_, "the else branch of if")

    def match(self, e: Match, env: Env) -> Type:
        if e.head == e.tail != "_":
            raise error("T007", f"{e.head} is bound twice in the pattern {e.head} :: {e.tail}", e.span)
        elem = self.fresh()
        self.expect(e.scrutinee, ListType(elem), env, "the scrutinee of match")
        nil = self.infer(e.nil_body, env)
        scope = {}
        if e.head != "_":
            scope[e.head] = Scheme.mono(elem)
        if e.tail != "_":
            scope[e.tail] = Scheme.mono(ListType(elem))
        cons = self.infer(e.cons_body, env.new_child(scope))
        return self.join(nil, cons, e.cons_body, "the :: branch of match")

    # ---- operators ----------------------------------------------------------------------

    def binop(self, e: BinOp, env: Env) -> Type:
        rule = self.binops.get(e.op)
        if rule is None:
            raise TypeError(f"typecheck: no rule for operator {e.op!r}")
        return rule(e, env)

    def arith(self, e: BinOp, env: Env) -> Type:
        left = self.numeric(self.infer(e.left, env), e.left, f"the left operand of {e.op}")
        right = self.numeric(self.infer(e.right, env), e.right, f"the right operand of {e.op}")
        if e.op == "/":
            for t in (left, right):
                if is_undecided(t):
                    bind(t, REAL)  # / is real division: an unknown operand is a real
            return REAL
        result = self.numeric_join(left, right)
        return INT if isinstance(prune(result), Fin) else result

    def numeric_join(self, a: Type, b: Type) -> Type:
        """The least number type above the numbers ``a`` and ``b`` (pruned, as ``numeric``
        gives them). An undecided number with an ``int`` or a ``[k]`` gives the undecided
        number (whichever it becomes is above both), with a ``real`` it is decided ``real``;
        two undecided numbers become one."""
        for x, y in ((a, b), (b, a)):
            if is_undecided(x):
                if is_undecided(y):
                    unify(x, y)
                elif y == REAL:
                    bind(x, REAL)
                return prune(x)
        return join(a, b)

    def order(self, e: BinOp, env: Env) -> Type:
        left = self.numeric(self.infer(e.left, env), e.left, f"the left operand of {e.op}")
        right = self.numeric(self.infer(e.right, env), e.right, f"the right operand of {e.op}")
        for x, y in ((left, right), (right, left)):
            if is_undecided(x) and y == REAL:
                bind(x, REAL)
        return BOOL

    def equality(self, e: BinOp, env: Env) -> Type:
        left = self.infer(e.left, env)
        t = self.join(left, self.infer(e.right, env), e.right, f"the right operand of {e.op}")
        self.check_equality(t, e)
        return BOOL

    def logic(self, e: BinOp, env: Env) -> Type:
        self.expect(e.left, BOOL, env, f"the left operand of {e.op}")
        self.expect(e.right, BOOL, env, f"the right operand of {e.op}")
        return BOOL

    def unop(self, e: UnOp, env: Env) -> Type:
        if e.op == "not":
            self.expect(e.operand, BOOL, env, "the operand of not")
            return BOOL
        if e.op == "-":
            t = self.numeric(self.infer(e.operand, env), e.operand, "the operand of -")
            return INT if isinstance(t, Fin) else t
        raise TypeError(f"typecheck: no rule for operator {e.op!r}")

    # ---- the probability monad and symbolic distributions ---------------------------------

    def return_(self, e: Return, env: Env) -> Type:
        return Monad(self.infer(e.value, env))

    def mlet(self, e: MLet, env: Env) -> Type:
        pattern_t, binds = self.pattern(e.pattern, {})
        self.expect(e.value, Monad(pattern_t), env, _binding_context("mlet", e.pattern))
        scope = {n: Scheme.mono(t) for n, t in binds}
        body = self.expect(e.body, Monad(self.fresh()), env.new_child(scope), "the body of mlet")
        return prune(body)

    def observe(self, e: Observe, env: Env) -> Type:
        elem = self.fresh()
        likelihood = self.infer(e.likelihood, env)
        self.expect(e.prior, Monad(elem), env, "the prior of observe")
        self.flow(likelihood, Arrow(elem, Monad(BOOL)), e.likelihood, "the likelihood of observe")
        return Monad(elem)

    def infer_(self, e: Infer, env: Env) -> Type:
        elem = self.fresh()
        self.expect(e.value, Monad(elem), env, "the argument of infer")
        return Dist(elem)

    def ran(self, e: Ran, env: Env) -> Type:
        elem = self.fresh()
        self.expect(e.value, Dist(elem), env, "the argument of ran")
        return Monad(elem)

    # ---- overloaded built-ins ------------------------------------------------------------

    def exp_mech(self, e: App, args: List[Tuple[Expr, Type]]) -> Type:
        x, r = self.fresh(), self.fresh()
        expected = [REAL, Arrow(TupleType((x, r)), REAL), x, ListType(r)]
        candidates = prune(args[3][1]) if len(args) == 4 else None
        if isinstance(candidates, ListType) and prune(candidates.elem) == INT:
            # int candidates given to a score whose candidate parameter is a real: the score
            # accepts them (int <= real) and the mechanism returns one of them, an int
            for i, ((node, t), param) in enumerate(zip(args[:3], expected)):
                self.flow(t, param, node, _builtin_argument_context("expMech", i, len(args)))
            if prune(r) == REAL:
                r = INT
            self.flow(args[3][1], ListType(r), args[3][0],
                      _builtin_argument_context("expMech", 3, len(args)))
            self.expmech_ranges[id(e)] = r
            return Monad(r)
        for i, ((node, t), param) in enumerate(zip(args, expected)):
            self.flow(t, param, node, _builtin_argument_context("expMech", i, len(args)))
        self.expmech_ranges[id(e)] = r
        if len(args) == 3:
            self.pending.append(lambda: self.check_finite_range(r, e))
        return Monad(r)

    def check_finite_range(self, r: Type, e: App) -> None:
        if _is_finite(r):
            return
        what = "is not determined here" if isinstance(prune(r), TypeVar) else "is infinite"
        raise error("T011", f"the exponential mechanism needs a finite range (bool, unit, [k] or "
                            f"tuples of them), but its range {pretty(r)} {what}", e.span,
                    hint="give the candidates as a 4th argument: expMech (eps, score, x, candidates), or "
                         "annotate the score's candidate with a finite type: fun (x, (r : [3])) -> ...")

    def dirichlet(self, e: App, args: List[Tuple[Expr, Type]]) -> Type:
        for i, (node, t) in enumerate(args):
            self.flow(t, REAL, node, _builtin_argument_context("dirichlet", i, len(args)))
        return Dist(simplex(len(args)))

    def get_params(self, e: App, args: List[Tuple[Expr, Type]]) -> Type:
        ((node, t),) = args
        elem = self.fresh()
        self.flow(t, Dist(elem), node, "the argument of getParams")
        family = self.decide_real(elem)
        if family == REAL:  # beta or normal: two parameters
            return TupleType((REAL, REAL))
        if family == BOOL:
            return REAL
        if isinstance(family, Fin):
            return Simplex(family.size)
        if isinstance(family, Simplex) and family.k is not None:
            return TupleType((REAL,) * family.k)
        raise error("T006", f"getParams cannot determine the distribution family of its argument, "
                            f"of type {pretty(Dist(family))}", node.span,
                    hint="getParams applies to D[[0,1]] (beta), D[real] (normal), D[[0,1]^k] "
                         "(dirichlet, k known), D[bool] (bernoulli) and D[[k]] (categorical)")

    def decide_real(self, t: Type) -> Type:
        """``t`` pruned, ``real`` if it was an undecided number (the family of a distribution
        is needed at once: the number takes its default now)."""
        t = prune(t)
        if is_undecided(t):
            bind(t, REAL)
            return REAL
        return t

    def min_max(self, e: App, args: List[Tuple[Expr, Type]]) -> Type:
        name = e.fn.name  # type: ignore[attr-defined]
        (a_node, a), (b_node, b) = args
        a = self.numeric(a, a_node, f"the 1st argument of {name}")
        b = self.numeric(b, b_node, f"the 2nd argument of {name}")
        return self.numeric_join(a, b)

    def abs_(self, e: App, args: List[Tuple[Expr, Type]]) -> Type:
        ((node, t),) = args
        return self.numeric(t, node, "the argument of abs")

    def conjugate_data(self, name: str, prior: Tuple[Expr, Type]) -> Tuple[Type, Type]:
        """The type of a conjugate prior (``D[[0,1]]`` or ``D[[0,1]^k]``) and of its observations."""
        node, t = prior
        elem = self.fresh()
        self.flow(t, Dist(elem), node, f"the prior of {name}")
        family = self.decide_real(elem)
        if family == REAL:  # beta, observed through bool data
            return Dist(family), BOOL
        if isinstance(family, Simplex):  # dirichlet, observed through categories
            return Dist(family), Fin(family.size)
        raise error("T006", f"{name} needs a beta or dirichlet prior, of type D[[0,1]] or "
                            f"D[[0,1]^k], found {pretty(t)}", node.span)

    def hellinger_mech(self, e: App, args: List[Tuple[Expr, Type]]) -> Type:
        name = e.fn.name  # type: ignore[attr-defined]
        *reals, prior, db = args
        for i, (node, t) in enumerate(reals):
            self.flow(t, REAL, node, _builtin_argument_context(name, i, len(args)))
        dist, observation = self.conjugate_data(name, prior)
        self.flow(db[1], ListType(observation), db[0], f"the {ordinal(len(args))} argument of {name}")
        return Monad(dist)

    def posteriors(self, e: App, args: List[Tuple[Expr, Type]]) -> Type:
        prior, (n_node, n) = args
        dist, _ = self.conjugate_data("posteriors", prior)
        self.flow(n, INT, n_node, "the 2nd argument of posteriors")
        return ListType(dist)

    # ---- assertions ---------------------------------------------------------------------

    def connective(self, e: Union[Conj, Disj, Implies], env: Env) -> Type:
        symbol = {Conj: "/\\", Disj: "\\/", Implies: "=>"}[type(e)]
        self.expect(e.left, BOOL, env, f"the left side of {symbol}")
        self.expect(e.right, BOOL, env, f"the right side of {symbol}")
        return BOOL

    def neg(self, e: Neg, env: Env) -> Type:
        self.expect(e.operand, BOOL, env, "the operand of ~")
        return BOOL

    def quant(self, e: Quant, env: Env) -> Type:
        scope = {e.var: Scheme.mono(from_syntax(e.type))}
        self.expect(e.body, BOOL, env.new_child(scope), f"the body of {e.kind}")
        return BOOL

    def div_bound(self, e: DivBound, env: Env) -> Type:
        self.divergence(e.div, env)
        what = f"Delta[{e.div.kind}]"
        left = self.expect(e.left, Dist(self.fresh()), env, f"the 1st distribution of {what}")
        self.unify(self.infer(e.right, env), left, e.right, f"the 2nd distribution of {what}")
        self.expect(e.bound, REAL, env, f"the bound of {what}")
        return BOOL
