"""Type-directed generation of random programs, biased toward what breaks verifiers.

``generate(seed) -> Draft`` builds one program as a syntax tree (``verifier.language.ast``):
an entry point with a ``val`` claim, the helpers its body calls (created on demand, with or
without a ``val``, recursive or not), and redefinitions of built-ins before or after the claim.
The same seed always gives the same program. Printing it (``pretty_program``) and parsing it back
gives the same tree; the caller type-checks it and discards the few that do not type.

Expressions are generated for a *goal type* in a *context* of typed variables (``_Gen.expr``):
each type has productions (literals, variables, operators, built-ins, mechanisms, ``return``,
``mlet``, ``observe`` / ``infer`` / ``ran``) and every type has the binder productions (``let``,
``if``, ``match``, ``fun`` applied, helper calls, aliases, partial application, local recursion,
shadowing). Productions are weighted toward the constructs a verifier must treat with care
(LANGUAGE.md's scoping and call-by-value): computations bound by ``let`` and run zero, one or
two times; helpers without a ``val`` returning private data; local names shadowing a ``val``'d
name, the entry's own name, or a built-in; built-ins redefined at the top level before or after
the claim; recursion that is not structural (the call on the same list, in an unused ``let``, a
tuple component or an ignored argument); closures capturing the private list; claims with
``adj``, ``adjWithin`` (also with a zero or negative bound), ``allWithin``, ``dist``, ``=``, ``true``
and one-sided refinements, and public parameters refined with ``true``; and, for queries refined
by ``allWithin``, the Sparse Vector family with its broken variants (``r_sparse_vector``: noisy
thresholds, noisy comparisons, helpers claimed under shifted thresholds), which only proofs by
coupling verify.

Claims are drafts: each ``val`` has a constant to calibrate (``ClaimPlan``): the index of
``M[DP(c * base)]``, the delta of ``M[DP(e), c]`` or ``M[SD/HD/KL, c]``, the bound of a pure
``abs (r<1> - r<2>) <= c``. The fuzzer computes the smallest true constant with the oracle, then
``calibrate`` sets it tight, loose or undercharged (``ClaimPlan.mode``).

Nothing here knows any example program: the shapes come from the grammar and the weights.
"""
from __future__ import annotations

import random
from fractions import Fraction
from typing import Callable, Dict, List, Optional, Sequence, Tuple

from obligations.records import field, record
from verifier.fuzz.paper import PaperRules
from verifier.language import ast

# ---- generator types (hashable tuples) ----------------------------------------------------

BOOL, INT, REAL, UNIT_T = ("bool",), ("int",), ("real",), ("unit",)
#: Ranges (LANGUAGE.md): written in claims and annotations; expressions are generated at
#: their erased type (``erase``), so a value of the wider type may flow where one of the
#: range is expected — which the verifier must show, or refuse.
NAT, POS, UNIT01 = ("nat",), ("real+",), ("[0,1]",)
_ERASED = {"nat": INT, "real+": REAL, "[0,1]": REAL}


def erase(t: tuple) -> tuple:
    """The generator type with its ranges erased (``nat`` is ``int``, ``[0,1]`` is ``real``)."""
    tag = t[0]
    if tag in _ERASED:
        return _ERASED[tag]
    if tag in ("list", "M", "D"):
        return (tag, erase(t[1]))
    if tag == "tuple":
        return ("tuple", tuple(erase(i) for i in t[1]))
    if tag == "fun":
        return ("fun", erase(t[1]), erase(t[2]))
    return t


def FIN(k: int) -> tuple:
    return ("fin", k)


def LIST(t: tuple) -> tuple:
    return ("list", t)


def TUP(*ts: tuple) -> tuple:
    return ("tuple", ts)


def M(t: tuple) -> tuple:
    return ("M", t)


def D(t: tuple) -> tuple:
    return ("D", t)


def FUN(a: tuple, b: tuple) -> tuple:
    return ("fun", a, b)


def syntax(t: tuple) -> ast.SimpleType:
    """The simple type written for a generator type."""
    tag = t[0]
    if tag in ("bool", "int", "real", "unit", "nat", "real+", "[0,1]"):
        return ast.TBase(tag)
    if tag == "fin":
        return ast.TFin(t[1])
    if tag == "list":
        return ast.TList(syntax(t[1]))
    if tag == "tuple":
        return ast.TTuple(tuple(syntax(i) for i in t[1]))
    if tag == "M":
        return ast.TMonad(syntax(t[1]))
    if tag == "D":
        return ast.TDist(syntax(t[1]))
    return ast.TArrow(syntax(t[1]), syntax(t[2]))


def finite(t: tuple) -> bool:
    """Types an ``expMech`` range or a finite output may have."""
    return t[0] in ("bool", "fin", "unit") or (t[0] == "tuple" and all(finite(i) for i in t[1]))


#: Built-ins the generator calls, with the generator type of their use.
BUILTIN_TYPES: Dict[str, tuple] = {
    "count": FUN(LIST(BOOL), INT),
    "length": FUN(LIST(BOOL), INT),
    "sum": FUN(LIST(REAL), REAL),
    "abs": FUN(REAL, REAL),
    "max": FUN(TUP(REAL, REAL), REAL),
    "min": FUN(TUP(REAL, REAL), REAL),
    "lapMech": FUN(TUP(REAL, REAL), M(REAL)),
    "gaussMech": FUN(TUP(REAL, REAL, REAL), M(REAL)),
    "bernoulli": FUN(REAL, D(BOOL)),
    "normal": FUN(TUP(REAL, REAL), D(REAL)),
}

#: Tags of the paper's constructs whose entries get a DP claim more often (``_Gen.claim``).
PAPER_DP_TAGS = frozenset(("higher-order val", "parallel composition", "infer of a val'd model"))

#: Names used in claims (assertion predicates and the numeric helpers of pure claims).
CLAIM_NAMES = ("adj", "adjWithin", "dist", "abs")

#: Literals: reals the programs use, exact.
REALS = (Fraction(0), Fraction(1, 2), Fraction(1), Fraction(2), Fraction(3, 2))
PROBABILITIES = (Fraction(1, 4), Fraction(1, 2), Fraction(3, 4), Fraction(9, 10))


# ---- plans ----------------------------------------------------------------------------------


@record(frozen=False)
class ClaimPlan:
    """A ``val`` to calibrate: ``slot`` is what the constant is (``index`` of DP,
    ``delta``, ``bound`` of a pure claim, or ``none``), ``mode`` how to set it (``tight``,
    ``loose``, ``under``)."""

    name: str
    slot: str
    mode: str
    build: Callable[[Fraction], ast.RType]
    constant: Fraction = Fraction(1)
    #: the constant the verifier's rules need (a mechanism's nominal index, the runs of a
    #: function parameter): calibration takes it when the oracle gives none (a parameter of
    #: function type) or less (the exponential mechanism's loss on the oracle's small lists is
    #: below its index, which longer lists approach: a claim set to that loss is false)
    known: Optional[Fraction] = None


@record(frozen=False)
class Draft:
    """A generated program before calibration: declarations (with the vals built at constant
    1), the claims to calibrate, the entry's name and the generator's tags (what it did on
    purpose, for coverage)."""

    decls: List[ast.Decl]
    claims: List[ClaimPlan]
    entry: str
    tags: set = field(default_factory=set)

    def program(self) -> ast.Program:
        """The program with each val built at its current constant."""
        by_name = {c.name: c for c in self.claims}
        out = []
        for d in self.decls:
            if isinstance(d, ast.ValDecl) and d.name in by_name:
                plan = by_name[d.name]
                d = ast.ValDecl(d.name, plan.build(plan.constant))
            out.append(d)
        return ast.Program(tuple(out), "<fuzz>")


def calibrate(plan: ClaimPlan, needed: Optional[float], rng: random.Random) -> None:
    """Set ``plan.constant`` from the smallest true constant ``needed`` (``None``: unknown),
    ``tight`` (rounded up to 4 significant digits), ``loose`` (twice, or 1 above 0) or
    ``under`` (half, or a little below)."""
    import math
    if needed is None or math.isnan(needed):
        plan.constant = rng.choice((Fraction(1, 2), Fraction(1), Fraction(2)))
        return
    if math.isinf(needed):
        plan.constant = rng.choice((Fraction(1), Fraction(2), Fraction(10)))
        plan.mode = "under"
        return
    if needed < 1e-12:      # equal laws whose enclosure is not a point
        needed = 0.0
    tight = _round_up(needed)
    if plan.mode == "loose":
        plan.constant = tight * 2 if tight > 0 else Fraction(1)
    elif plan.mode == "under" and tight > 0:
        plan.constant = _round_up(needed / 2) if rng.random() < 0.7 else _round_down(needed * 0.99)
    else:
        plan.constant = tight
        if plan.mode == "under":
            plan.mode = "tight"   # nothing is below 0


def _round_up(x: float) -> Fraction:
    return _round(x, "ROUND_CEILING")


def _round_down(x: float) -> Fraction:
    return _round(x, "ROUND_FLOOR")


def _round(x: float, rounding: str) -> Fraction:
    """``x`` rounded to 4 significant digits in the direction ``rounding``, exactly."""
    from decimal import Decimal
    if x <= 0:
        return Fraction(0)
    d = Decimal(repr(x))
    return Fraction(str(d.quantize(Decimal(1).scaleb(d.adjusted() - 3), rounding=rounding)))


# ---- syntax helpers ---------------------------------------------------------------------------


def var(name: str) -> ast.Var:
    return ast.Var(name)


def app(fn: ast.Expr, *args: ast.Expr) -> ast.Expr:
    for a in args:
        fn = ast.App(fn, a)
    return fn


def call(name: str, *args: ast.Expr) -> ast.Expr:
    """A built-in style call on a tuple: ``name (a, b)`` (one argument: ``name a``)."""
    arg = args[0] if len(args) == 1 else ast.TupleLit(tuple(args))
    return ast.App(var(name), arg)


def real(x: Fraction) -> ast.RealLit:
    return ast.RealLit(Fraction(x))


def intlit(n: int) -> ast.Expr:
    return ast.IntLit(n) if n >= 0 else ast.UnOp("-", ast.IntLit(-n))


def pvar(name: str, t: Optional[tuple] = None) -> ast.PVar:
    return ast.PVar(name, syntax(t) if t is not None else None)


def binop(op: str, a: ast.Expr, b: ast.Expr) -> ast.BinOp:
    return ast.BinOp(op, a, b)


def runs(name: str) -> Tuple[ast.RunVar, ast.RunVar]:
    return ast.RunVar(name, 1), ast.RunVar(name, 2)


# ---- context ----------------------------------------------------------------------------------


@record
class Binding:
    """A variable in scope: its type, and whether its value depends on the private input."""

    name: str
    type: tuple
    private: bool = False


@record(frozen=False)
class TopDef:
    """A top-level definition the generated code may call."""

    name: str
    type: tuple                 # the function's type (curried FUN chain) or a value type
    arity: int
    has_val: bool = False
    builtin: bool = False       # a redefinition of a built-in name


class Ctx:
    """Variables in scope, innermost last (a later binding shadows an earlier one).

    With ``hidden``, the variables that depend on the private input are not offered to the
    ordinary productions (``usable``, ``of_type``, ``lists``): the program is honest except
    where a production ``exposed`` them — a mechanism's query or score, and the constructs a
    verifier must see through (computations bound by ``let``, helpers, closures, shadowing,
    recursion). That makes most programs private but for one hole, which is what a verifier
    that is sound elsewhere can be caught on."""

    def __init__(self, bindings: Tuple[Binding, ...] = (), hidden: bool = False, eager: bool = False):
        self.bindings = bindings
        self.hidden = hidden
        self.eager = eager

    def add(self, name: str, t: tuple, private: bool = False) -> "Ctx":
        return Ctx(self.bindings + (Binding(name, t, private),), self.hidden, self.eager)

    def exposed(self) -> "Ctx":
        """The private variables offered, and preferred where they fit (a hole should leak)."""
        return Ctx(self.bindings, False, True)

    def visible(self) -> Dict[str, Binding]:
        """Every binding in scope, private or not."""
        out: Dict[str, Binding] = {}
        for b in self.bindings:
            out[b.name] = b
        return out

    def usable(self) -> List[Binding]:
        return [b for b in self.visible().values() if not (self.hidden and b.private)]

    def of_type(self, t: tuple) -> List[Binding]:
        found = [b for b in self.usable() if b.type == t]
        private = [b for b in found if b.private]
        return private if self.eager and private else found

    def lists(self) -> List[Binding]:
        return [b for b in self.usable() if b.type[0] == "list"]

    def private(self) -> bool:
        return any(b.private for b in self.visible().values())


# ---- the generator ------------------------------------------------------------------------------


class _Gen(PaperRules):
    """One program's generation (see the module docstring)."""

    def __init__(self, rng: random.Random):
        self.rng = rng
        self.before: List[ast.Decl] = []      # helpers and redefinitions, before the entry
        self.after: List[ast.Decl] = []       # declarations after the entry
        self.tops: List[TopDef] = []
        self.claims: List[ClaimPlan] = []
        self.tags: set = set()
        self.counter = 0
        self.entry = "main"
        self.val_names: List[str] = []
        self.helper_depth = 0
        self.private_type = LIST(BOOL)
        self.focus = False                    # the entry's top is one of the hole productions
        self.entry_type: tuple = M(BOOL)
        self.entry_params: List[Tuple[str, tuple]] = []

    # ---- names ----

    def fresh(self, stem: str) -> str:
        self.counter += 1
        return f"{stem}{self.counter}"

    def chance(self, p: float) -> bool:
        return self.rng.random() < p

    def top(self, name: str) -> Optional[TopDef]:
        found = None
        for t in self.tops:
            if t.name == name:
                found = t
        return found

    def builtin_usable(self, name: str, ctx: Ctx) -> bool:
        """``name`` refers to something of the built-in's type here (the built-in itself, or a
        redefinition of the same type)."""
        b = ctx.visible().get(name)
        if b is not None:
            return b.type == BUILTIN_TYPES[name]
        t = self.top(name)
        return t is None or t.type == BUILTIN_TYPES[name]

    # ---- entry point ----

    def program(self) -> Draft:
        rng = self.rng
        if self.chance(0.12):
            self.entry = rng.choice(("release", "query", "f"))
        params, plan_params, ctx = self.entry_parameters()
        if self.chance(0.7):
            ctx = Ctx(ctx.bindings, hidden=True)
            self.tags.add("honest but for holes")
        self.focus = self.chance(0.45)
        result = self.entry_result(ctx)
        self.entry_type = result
        for _, t in reversed(params):
            self.entry_type = FUN(t, self.entry_type)
        self.entry_params = params
        body = self.expr(result, ctx, rng.choice((2, 3, 3, 4)), tail=True)
        val = self.entry_claim(plan_params, result)
        if self.chance(0.35):
            self.redefine_builtin(before=True, used=_names_in([body, val]), in_helpers=_names_in(self.before))
        annotate = self.chance(0.8)
        written = {name: w for name, _, _, w in plan_params}
        entry_let = ast.LetDecl(self.entry, tuple(
            (ast.PVar(p, written[p]) if written.get(p) is not None and self.chance(0.3) else pvar(p, t))
            if annotate else pvar(p) for p, t in params), body)
        decls: List[ast.Decl] = list(self.before)
        placement = rng.random()
        if placement < 0.1 and self.before:     # the val first, its definition after the helpers
            decls.insert(0, val)
            decls.append(entry_let)
            self.tags.add("val before helpers")
        elif placement < 0.2:
            decls += [entry_let, val]
            self.tags.add("val after its definition")
        else:
            decls += [val, entry_let]
        if self.chance(0.25):
            self.redefine_builtin(before=False)
        decls += self.after
        return Draft(decls, self.claims, self.entry, self.tags)

    def entry_parameters(self):
        """The entry's parameters: one private list, and up to three public parameters."""
        rng = self.rng
        kind = rng.choices(("bool", "fin", "real", "nat", "int", "unit", "pos", "pair"),
                           (6, 2, 2, 0.9, 0.6, 0.6, 0.3, 0.6))[0]
        elem = {"bool": BOOL, "fin": FIN(rng.choice((2, 3))), "real": REAL, "nat": INT,
                "int": INT, "unit": REAL, "pos": REAL, "pair": TUP(BOOL, FIN(2))}[kind]
        if kind == "pair":
            self.tags.add("list of tuples")
        private = ("db", LIST(elem), self.private_refinement(kind))
        self.private_type = LIST(elem)
        if kind in ("nat", "unit", "pos"):
            self.tags.add("range-typed private list")
        public = []
        if self.chance(0.75):
            public.append(("eps", REAL, (ast.SameRuns(), ast.TBase("real+")) if self.chance(0.8)
                           else self.public_refinement("real+")))
        # a bound that makes adjWithin's axiom contradictory goes with a parameter the runs may
        # disagree on: if the verifier proves anything from the contradiction, that one leaks
        contradictory = "adjWithin with a non-positive bound" in self.tags and self.chance(0.6)
        for name, t, base in (("b", BOOL, "bool"), ("w", REAL, "real"), ("k", FIN(3), "[3]")):
            if contradictory and name == "w":
                public.append((name, t, (ast.BoolLit(True), ast.TBase("real"))))
                self.tags.add("public parameter refined with true")
            elif self.chance(0.2):
                public.append((name, t, self.public_refinement(base)))
        order = [private] + public
        if len(order) > 1 and self.chance(0.2):
            rng.shuffle(order)
            self.tags.add("private parameter not first")
        ctx = Ctx()
        names, plans = [], []
        for name, t, (assertion, written) in order:
            # a parameter the two runs may disagree on is as sensitive as the private list
            ctx = ctx.add(name, t, private=name == "db" or not isinstance(assertion, ast.SameRuns))
            names.append((name, t))
            plans.append((name, t, assertion, written))
        return names, plans, ctx

    def private_refinement(self, kind: str):
        """The refinement of the private list: ``adj``, ``adjWithin`` (bounds 1, 0.5, 0, -1),
        ``dist``, ``=`` or ``true``."""
        rng = self.rng
        l1, l2 = runs("l")
        written = {"bool": ast.TList(ast.TBase("bool")), "real": ast.TList(ast.TBase("real")),
                   "nat": ast.TList(ast.TBase("nat")), "int": ast.TList(ast.TBase("int")),
                   "unit": ast.TList(ast.TBase("[0,1]")),
                   "pos": ast.TList(ast.TBase("real+"))}.get(kind)
        if kind in ("real", "unit", "pos"):
            choice = rng.choices(("adjWithin", "allWithin", "adj", "eq"), (7, 4 if kind == "real" else 0, 2, 1))[0]
            if choice == "allWithin":   # the queries of the Sparse Vector family
                self.tags.add("refinement allWithin")
                bound = rng.choice((Fraction(1), Fraction(1), Fraction(1, 2)))
                return ast.App(var("allWithin"), ast.TupleLit((l1, l2, real(bound)))), written
            if choice == "adjWithin":
                bound = rng.choice((Fraction(1), Fraction(1, 2), Fraction(0), Fraction(-1)))
                c = real(bound) if bound >= 0 else binop("-", real(Fraction(0)), real(-bound))
                if bound <= 0:
                    self.tags.add("adjWithin with a non-positive bound")
                return ast.App(var("adjWithin"), ast.TupleLit((l1, l2, c))), written
        else:
            choice = rng.choices(("adj", "dist", "eq", "true"), (8, 2, 1, 1))[0]
        if choice == "adj":
            return ast.App(var("adj"), ast.TupleLit((l1, l2))), written
        if choice == "dist":
            bound = rng.choice((1, 2))
            same = binop("=", app(var("length"), l1), app(var("length"), l2))
            return ast.Conj(same, binop("<=", ast.App(var("dist"), ast.TupleLit((l1, l2))), intlit(bound))), written
        if choice == "eq":
            return ast.SameRuns(), written
        return ast.BoolLit(True), written

    def public_refinement(self, base: str):
        """``=`` mostly; sometimes ``true`` (the runs may differ) or one-sided."""
        rng = self.rng
        written = {"real+": ast.TBase("real+"), "real": ast.TBase("real"), "bool": ast.TBase("bool"),
                   "[3]": ast.TFin(3)}[base]
        r = rng.random()
        if r < 0.7:
            return ast.SameRuns(), written
        if r < 0.9:
            self.tags.add("public parameter refined with true")
            return ast.BoolLit(True), written
        self.tags.add("one-sided refinement")
        return None, written    # filled in by entry_claim: x<1> = a literal

    def entry_result(self, ctx: Ctx) -> tuple:
        rng = self.rng
        if "refinement allWithin" in self.tags and self.chance(0.7):   # the Sparse Vector family
            return rng.choice((M(LIST(BOOL)), M(LIST(BOOL)), M(BOOL), M(LIST(REAL)), M(INT)))
        r = rng.random()
        if r < 0.45:
            return M(BOOL)
        if r < 0.55:
            return M(FIN(3))
        if r < 0.59:
            return M(TUP(BOOL, BOOL))
        if r < 0.62:
            return M(TUP(REAL, REAL))
        if r < 0.76:
            return M(REAL)
        if r < 0.78:
            return M(LIST(REAL))
        if r < 0.84:
            return M(LIST(BOOL))
        if r < 0.865:
            self.tags.add("range-typed result")
            return rng.choice((M(NAT), M(UNIT01), NAT, M(LIST(NAT)), TUP(NAT, BOOL)))
        if r < 0.91:    # a distribution released whole: infer (issue 26)
            return rng.choice((M(D(BOOL)), M(D(UNIT01))))
        return rng.choice((BOOL, INT))

    # ---- claims ----

    def entry_claim(self, params, result: tuple) -> ast.ValDecl:
        binders = []
        for name, t, assertion, written in params:
            var_name = "l" if name == "db" else name
            if assertion is None:   # one-sided: x<1> = literal
                literal = {"bool": ast.BoolLit(True), "real": real(Fraction(1)),
                           "real+": real(Fraction(1)), "[3]": intlit(0)}
                key = written.name if isinstance(written, ast.TBase) else "[3]"
                assertion = binop("=", ast.RunVar(var_name, 1), literal[key])
            binders.append((var_name, written if written is not None else syntax(t), assertion))
        eps_public = any(n == "eps" and isinstance(a, ast.SameRuns) for n, _, a in binders)
        has_eps = any(n == "eps" for n, _, _ in binders)
        private_list = next((n for n, _, _ in binders if n == "l"), None)
        return self.claim(self.entry, binders, result, has_eps, eps_public, private_list)

    def claim(self, name: str, binders, result: tuple, has_eps: bool, eps_public: bool,
              private_list: Optional[str]) -> ast.ValDecl:
        """A val for ``name`` with its constant to calibrate (registered in ``self.claims``)."""
        rng = self.rng
        mode = rng.choices(("tight", "loose", "under"), (4, 2, 3))[0]
        self.tags.add(f"claim {mode}")
        self.val_names.append(name)

        def arrows(cod: ast.RType) -> ast.RType:
            for var_name, t, assertion in reversed(binders):
                dom = ast.RRefine(var_name, ast.RSimple(t), assertion) if assertion is not None else ast.RSimple(t)
                cod = ast.RArrow(dom, cod)
            return cod

        if result[0] == "M":
            elem = result[1]
            body = ast.RRefine("r", ast.RSimple(syntax(elem)),
                               ast.SameRuns() if self.chance(0.95) else binop("=", *runs("r")))
            family = rng.choices(("DP", "DPdelta", "SD", "HD", "KL"), (10, 2, 1, 1, 1))[0]
            if name == self.entry and self.tags & PAPER_DP_TAGS and self.chance(0.7):
                family = "DP"   # the paper's constructs charge DP costs: give them a DP claim
            self.tags.add(f"claim {family}")
            if family in ("DP", "DPdelta"):
                base: Optional[ast.Expr] = var("eps") if has_eps and self.chance(0.85) else None
                if base is not None and private_list is not None and self.chance(0.1):
                    base = binop("*", base, ast.App(var("dist"), ast.TupleLit(runs(private_list))))
                    self.tags.add("index with dist")
                if family == "DP":
                    def build(c: Fraction) -> ast.RType:
                        index = real(c) if base is None else (base if c == 1 else binop("*", real(c), base))
                        return arrows(ast.RMonad(ast.Divergence("DP", index), None, body))
                    slot = "index"
                else:
                    eps_c = rng.choice((Fraction(1, 2), Fraction(1)))
                    index = real(eps_c) if base is None else binop("*", real(eps_c), base)

                    def build(c: Fraction) -> ast.RType:
                        return arrows(ast.RMonad(ast.Divergence("DP", index), real(c), body))
                    slot = "delta"
            else:
                zero_as_default = self.chance(0.3)    # M[SD] for M[SD, 0.0]

                def build(c: Fraction) -> ast.RType:
                    delta = None if c == 0 and zero_as_default else real(c)
                    return arrows(ast.RMonad(ast.Divergence(family), delta, body))
                slot = "delta"
        else:
            if result in (INT, REAL):
                def build(c: Fraction) -> ast.RType:
                    r1, r2 = runs("r")
                    bound = binop("<=", ast.App(var("abs"), binop("-", r1, r2)), real(c))
                    return arrows(ast.RRefine("r", ast.RSimple(syntax(result)), bound))
                slot = "bound"
            else:
                def build(c: Fraction) -> ast.RType:
                    return arrows(ast.RRefine("r", ast.RSimple(syntax(result)), ast.SameRuns()))
                slot = "none"
            self.tags.add("claim pure")
        plan = ClaimPlan(name, slot, mode, build)
        self.claims.append(plan)
        return ast.ValDecl(name, build(Fraction(1)))

    # ---- built-in redefinitions ----

    def redefine_builtin(self, before: bool, used: Optional[set] = None, in_helpers: set = frozenset()) -> None:
        """A top-level definition of a built-in's name: same type, often another meaning;
        ``before``: among the definitions before the entry, of a name the entry (``used``) or,
        three times as likely, a helper (``in_helpers``) uses; else after the entry."""
        rng = self.rng
        e, x, l, p, a, b, m, v = (var(n) for n in ("e", "x", "l", "p", "a", "b", "m", "v"))
        options = {
            "lapMech": (("e", "x"), [ast.Return(x), call("lapMech", binop("*", e, real(Fraction(1000))), x),
                                     call("lapMech", e, binop("+", x, real(Fraction(1)))),
                                     call("lapMech", e, x)]),
            "gaussMech": (("e", "d", "x"), [ast.Return(x), call("gaussMech", binop("*", e, real(Fraction(100))),
                                                                var("d"), x)]),
            "count": (("l",), [app(var("length"), l), intlit(0), app(var("count"), l)]),
            "length": (("l",), [intlit(0), app(var("length"), l)]),
            "sum": (("l",), [real(Fraction(0)), app(var("sum"), l)]),
            "bernoulli": (("p",), [app(var("bernoulli"), real(Fraction(1, 2))),
                                   app(var("bernoulli"), binop("-", real(Fraction(1)), p)),
                                   app(var("bernoulli"), p)]),
            "normal": (("m", "v"), [call("normal", m, binop("/", v, real(Fraction(10000)))),
                                    call("normal", m, v)]),
            "abs": (("x",), [real(Fraction(0)), x]),
            "max": (("a", "b"), [a, b]),
            # before its val a claim's predicate is redefined to cover more pairs; after, to
            # cover none (a claim read by spelling would then be vacuous)
            "adj": (("a", "b"), [ast.BoolLit(True), binop("=", app(var("length"), a), app(var("length"), b))]
                    if before else [binop("<", app(var("length"), a), intlit(0)), ast.BoolLit(False)]),
            "dist": (("a", "b"), [intlit(0)] if before else [app(var("length"), a), intlit(100)]),
            "adjWithin": (("a", "b", "c"), [ast.BoolLit(True)] if before else [ast.BoolLit(False)]),
        }
        if used is None:
            usable = [n for n in options if n in CLAIM_NAMES or self.chance(0.5)]
            weights = [1] * len(usable)
        else:
            usable = [n for n in options if n in used or n in in_helpers]
            weights = [3 if n in in_helpers else 1 for n in usable]
        if not usable:
            return
        name = rng.choices(usable, weights)[0]
        params, bodies = options[name]
        body = rng.choice(bodies)
        pattern = pvar(params[0]) if len(params) == 1 else ast.PTuple(tuple(pvar(q) for q in params))
        if name in ("adj", "dist"):   # give the list type: these are polymorphic otherwise
            pattern = ast.PTuple((pvar("a", self.private_type), pvar("b", self.private_type)))
        if name == "adjWithin":
            pattern = ast.PTuple((pvar("a", LIST(REAL)), pvar("b", LIST(REAL)), pvar("c", REAL)))
        decl = ast.LetDecl(name, (pattern,), body)
        self.tags.add("redefined built-in " + ("before the val" if before else "after the val"))
        if before:
            self.before.insert(rng.randrange(len(self.before) + 1), decl)
        else:
            self.after.append(decl)

    # ---- expressions ----

    def expr(self, t: tuple, ctx: Ctx, depth: int, tail: bool = False) -> ast.Expr:
        """An expression of type ``t`` in ``ctx``; ``depth`` bounds the nesting. A range is
        generated at its erased type (an ``int`` for a ``nat``: possibly out of range)."""
        t = erase(t)
        if depth <= 0:
            return self.leaf(t, ctx)
        rules = self.rules(t, tail)
        if self.focus and tail and self.helper_depth == 0:
            self.focus = False
            rules = self.hole_rules(t)
        total = sum(w for w, _ in rules)
        for _ in range(6):
            pick = self.rng.uniform(0, total)
            for w, rule in rules:
                pick -= w
                if pick <= 0:
                    break
            out = rule(t, ctx, depth - 1)
            if out is not None:
                return out
        return self.leaf(t, ctx)

    def hole_rules(self, t: tuple) -> List[Tuple[float, Callable]]:
        """The productions a verifier must see through, for the top of a focused entry: the
        rest of the program is generated as usual."""
        holes = [(2.0, self.r_let_computation if t[0] == "M" else self.r_let), (2.0, self.r_helper),
                 (1.0, self.r_shadow), (0.7, self.r_alias), (0.7, self.r_partial), (0.25, self.r_fun_app)]
        if t[0] == "M":
            holes += [(1.0, self.r_return_of_hole), (0.8, self.r_mechanism), (0.4, self.r_hellinger)]
            if self.queries(t):
                holes.append((3.0, self.r_sparse_vector))
            if t == M(INT) and "refinement allWithin" in self.tags:
                holes.append((3.0, self.r_noisy_max))
            holes += [(1.2, self.r_higher_order), (0.8, self.r_posterior), (2.0, self.r_parallel)]
        else:
            holes += [(1.5, self.r_rec_helper), (0.8, self.r_range_call)]
            if t == REAL:
                holes.append((0.6, self.r_accumulator_fold))
        return holes

    def r_return_of_hole(self, t, ctx, depth):
        """``return e`` where ``e`` calls a recursive helper or a learner on private data."""
        if t[1] not in (BOOL, REAL, INT):
            return None
        inner = ctx.exposed()
        call_ = self.r_rec_helper(INT if t[1] == BOOL else t[1], inner, depth) if self.chance(0.8) \
            else self.r_learner(REAL, inner, depth)
        if call_ is None:
            return None
        if t[1] == BOOL:
            return ast.Return(binop(">", call_, intlit(self.rng.choice((0, 1)))))
        return ast.Return(call_)

    def rules(self, t: tuple, tail: bool = False) -> List[Tuple[float, Callable]]:
        """The weighted productions for type ``t``; ``tail``: at the top of a function body
        (where the verifier takes a ``match`` in pure code)."""
        tag = t[0]
        match_weight = 1.0 if tag == "M" else (1.5 if tail else 0.05)
        helper_weight = 2.5 if tail and self.helper_depth == 0 else 1.0
        generic = [(1.0, self.r_let), (0.8, self.r_if), (match_weight, self.r_match), (helper_weight, self.r_helper),
                   (0.1 if tag == "M" else 0.25, self.r_fun_app), (0.35, self.r_alias), (0.25, self.r_partial),
                   (0.4, self.r_shadow)]
        ranges = [(1.2, self.r_range_call), (0.2, self.r_range_let)]
        if tag == "M":
            couplings = [(4.0, self.r_sparse_vector)] if self.queries(t) else []
            if t == M(INT) and "refinement allWithin" in self.tags and self.helper_depth == 0:
                couplings.append((3.0, self.r_noisy_max))
            return generic + couplings + [(2.0, self.r_return), (1.6, self.r_mlet), (2.4, self.r_mechanism),
                              (1.8, self.r_let_computation), (0.4, self.r_observe), (0.3, self.r_ran_infer),
                              (0.12, self.r_local_rec_m), (0.5, self.r_var), (0.35, self.r_hellinger),
                              (0.8, self.r_higher_order), (6.0 if t[1][0] == "D" else 0.9, self.r_posterior),
                              (4.0, self.r_parallel)]
        if tag == "bool":
            return generic + ranges + [(1.0, self.r_var), (0.6, self.r_not), (0.5, self.r_logic),
                                       (1.6, self.r_compare), (0.3, self.r_fin_eq), (0.3, self.r_fst)]
        if tag == "int":
            return generic + ranges + [(1.0, self.r_var), (1.6, self.r_count), (0.5, self.r_length),
                                       (0.6, self.r_arith), (0.12, self.r_local_rec), (0.8, self.r_rec_helper),
                                       (0.3, self.r_counter_helper)]
        if tag == "real":
            return generic + ranges + [(1.0, self.r_var), (0.8, self.r_real_of_int), (0.6, self.r_arith),
                                       (0.5, self.r_sum), (0.3, self.r_abs_max), (0.2, self.r_mean),
                                       (0.5, self.r_rec_helper), (0.5, self.r_learner),
                                       (0.2, self.r_counter_helper), (0.3, self.r_accumulator_fold)]
        if tag == "fin":
            return generic + [(2.0, self.r_var)]
        if tag == "list":
            return generic + [(2.0, self.r_var), (0.6, self.r_cons), (0.3, self.r_list_lit)]
        if tag == "tuple":
            return [(3.0, self.r_tuple)] + generic
        if tag == "D":
            return [(2.0, self.r_infer), (1.0, self.r_var)] + generic
        if tag == "fun":
            return [(2.0, self.r_lambda), (1.0, self.r_var)]
        return generic

    # ---- leaves ----

    def leaf(self, t: tuple, ctx: Ctx) -> ast.Expr:
        """A small expression of type ``t`` (always succeeds)."""
        rng = self.rng
        found = ctx.of_type(t)
        if found and self.chance(0.7):
            return var(rng.choice(found).name)
        tag = t[0]
        if tag == "bool":
            lists = ctx.of_type(LIST(BOOL))
            if lists and self.chance(0.85 if ctx.eager else 0.5) and self.builtin_usable("count", ctx):
                return binop(rng.choice((">", "=", "<")), app(var("count"), var(rng.choice(lists).name)),
                             intlit(rng.choice((0, 1))))
            return ast.BoolLit(rng.random() < 0.5)
        if tag == "int":
            lists = ctx.of_type(LIST(BOOL))
            if lists and self.chance(0.85 if ctx.eager else 0.6) and self.builtin_usable("count", ctx):
                return app(var("count"), var(rng.choice(lists).name))
            return intlit(rng.choice((0, 1, 2)))
        if tag == "real":
            sums = ctx.of_type(LIST(REAL))
            if sums and ctx.eager and self.chance(0.7) and self.builtin_usable("sum", ctx):
                return app(var("sum"), var(rng.choice(sums).name))
            reals = ctx.of_type(REAL)
            if reals and self.chance(0.5):
                return var(rng.choice(reals).name)
            if ctx.eager and self.chance(0.6):
                return self.leaf(INT, ctx)
            return real(rng.choice(REALS))
        if tag == "unit":
            return ast.UnitLit()
        if tag == "fin":
            name = self.fresh("c")
            return ast.Let(pvar(name, t), intlit(rng.randrange(t[1])), var(name))
        if tag == "list":
            return ast.ListLit(())
        if tag == "tuple":
            return ast.TupleLit(tuple(self.leaf(i, ctx) for i in t[1]))
        if tag == "M":
            return ast.Return(self.leaf(t[1], ctx))
        if tag == "D":
            if t[1] == BOOL:
                return app(var("bernoulli"), real(rng.choice(PROBABILITIES))) if self.builtin_usable("bernoulli", ctx) \
                    else ast.Infer(ast.Return(ast.BoolLit(True)))
            return ast.Infer(ast.Return(self.leaf(t[1], ctx)))
        name = self.fresh("x")
        return ast.Fun((pvar(name, t[1]),), self.leaf(t[2], ctx.add(name, t[1])))

    # ---- generic productions ----

    def pick_type(self, ctx: Ctx) -> tuple:
        rng = self.rng
        options = [BOOL, INT, REAL, M(BOOL), M(REAL), FIN(3), LIST(BOOL)]
        weights = [4, 3, 2, 0.8, 0.3, 0.5, 0.7]
        return rng.choices(options, weights)[0]

    def r_let(self, t, ctx, depth):
        u = self.pick_type(ctx)
        name = self.fresh("x")
        value = self.expr(u, ctx, depth)
        body = self.expr(t, ctx.add(name, u, ctx.private()), depth)
        return ast.Let(pvar(name), value, body)

    def r_if(self, t, ctx, depth):
        return ast.If(self.expr(BOOL, ctx, depth - 1), self.expr(t, ctx, depth), self.expr(t, ctx, depth))

    def r_match(self, t, ctx, depth):
        lists = ctx.exposed().lists()
        if not lists:
            return None
        scrutinee = self.rng.choice(lists)
        h, tl = self.fresh("h"), self.fresh("t")
        inner = ctx.add(h, scrutinee.type[1], scrutinee.private).add(tl, scrutinee.type, scrutinee.private)
        return ast.Match(var(scrutinee.name), self.expr(t, ctx, depth), h, tl, self.expr(t, inner, depth))

    def r_fun_app(self, t, ctx, depth):
        u = self.pick_type(ctx)
        name = self.fresh("y")
        inner = ctx.exposed() if self.chance(0.5) else ctx
        fn = ast.Fun((pvar(name, u),), self.expr(t, inner.add(name, u, ctx.private()), depth))
        self.tags.add("closure")
        return ast.App(fn, self.expr(u, ctx, depth - 1))

    def r_var(self, t, ctx, depth):
        found = ctx.of_type(t)
        return var(self.rng.choice(found).name) if found else None

    def helper_arguments(self, ctx: Ctx) -> List[Binding]:
        """Arguments of a new helper: the private ones mostly (a helper is a hole)."""
        visible = [b for b in ctx.visible().values() if b.type[0] != "fun"]
        if not visible:
            return []
        rng = self.rng
        chosen = [b for b in visible if b.private and self.chance(0.8)]
        chosen += [b for b in visible if not b.private and self.chance(0.35)]
        if not chosen:
            chosen = [rng.choice(visible)]
        rng.shuffle(chosen)
        return chosen[:3]

    def r_helper(self, t, ctx, depth):
        """A call of a top-level helper returning ``t``: an existing one, or a new one."""
        existing = [d for d in self.tops if not d.builtin and _result(d.type, d.arity) == t]
        if existing and self.chance(0.3):
            d = self.rng.choice(existing)
            args = [self.expr(a, ctx.exposed(), depth - 1) for a in _params(d.type, d.arity)]
            return app(var(d.name), *args)
        if self.helper_depth >= 2:
            return None
        args = self.helper_arguments(ctx)
        if not args:
            return None
        packed = len(args) >= 2 and all(a.type[0] != "M" for a in args[:2]) and self.chance(0.4)
        name = self.new_helper(t, args, depth, packed=packed)
        actual = [var(a.name) for a in args]
        if packed:  # the first two arguments as one tuple, taken apart by the helper's pattern
            actual = [ast.TupleLit(tuple(actual[:2]))] + actual[2:]
        return app(var(name), *actual)

    def new_helper(self, t: tuple, args: Sequence[Binding], depth: int, with_val: Optional[bool] = None,
                   equal_inputs: bool = False, packed: bool = False) -> str:
        """Define a helper taking ``args``' types and returning ``t``; with a ``val`` or not
        (``equal_inputs``: a val that assumes every argument equal in both runs; ``packed``:
        the first two arguments as one tuple parameter, taken apart by a tuple pattern)."""
        name = self.fresh("h")
        self.helper_depth += 1
        params, ctx = [], Ctx(hidden=self.chance(0.3))
        for a in args:
            pname = a.name if self.chance(0.5) else self.fresh("p")
            params.append((pname, a.type, a.private))
            ctx = ctx.add(pname, a.type, a.private)
        if with_val is None:
            with_val = self.chance(0.8 if packed else 0.4)
        # a pure helper without a val is unfolded where it is called, so no match on top
        body = self.expr(t, ctx, max(1, min(depth, 2)), tail=with_val or t[0] == "M")
        self.helper_depth -= 1
        patterns = [pvar(p, pt) for p, pt, _ in params]
        if packed:
            self.tags.add("tuple parameter")
            (n1, t1, p1), (n2, t2, p2) = params[:2]
            patterns = [ast.PTuple((pvar(n1), pvar(n2)))] + patterns[2:]
            params = [(self.fresh("q"), TUP(t1, t2), p1 or p2)] + params[2:]
        fn_type = t
        for _, pt, _ in reversed(params):
            fn_type = FUN(pt, fn_type)
        decl = ast.LetDecl(name, tuple(patterns), body)
        if with_val:
            self.tags.add("helper with val")
            val = self.helper_claim(name, params, t, equal_inputs)
            self.before += [val, decl]
        else:
            self.tags.add("helper without val")
            if t[0] == "M" and any(p for _, _, p in params):
                self.tags.add("helper without val over private data")
            self.before.append(decl)
        self.tops.append(TopDef(name, fn_type, len(params), has_val=with_val))
        return name

    def helper_claim(self, name: str, params, t: tuple, equal_inputs: bool = False) -> ast.ValDecl:
        binders = []
        for pname, pt, private in params:
            if pt[0] == "fun" or pt[0] == "D":
                binders.append((pname, syntax(pt), None))
                continue
            if private and pt[0] == "list" and not equal_inputs and self.chance(0.7):
                l1, l2 = runs(pname)
                if pt[1] == REAL:
                    assertion = ast.App(var("adjWithin"), ast.TupleLit((l1, l2, real(Fraction(1)))))
                else:
                    assertion = ast.App(var("adj"), ast.TupleLit((l1, l2)))
            elif private and pt[0] == "tuple" and len(pt[1]) == 2 and pt[1][0][0] == "list" \
                    and not equal_inputs and self.chance(0.7):
                # a tuple parameter: its list component adjacent, the other equal
                q1, q2 = runs(pname)
                first = [app(var("fst"), q1), app(var("fst"), q2)]
                if pt[1][0][1] == REAL:
                    adj = ast.App(var("adjWithin"), ast.TupleLit((*first, real(Fraction(1)))))
                else:
                    adj = ast.App(var("adj"), ast.TupleLit(tuple(first)))
                assertion = ast.Conj(adj, binop("=", app(var("snd"), q1), app(var("snd"), q2)))
            else:
                assertion = ast.SameRuns() if equal_inputs or self.chance(0.85) else ast.BoolLit(True)
            binders.append((pname, syntax(pt), assertion))
        has_eps = any(p == "eps" and pt == REAL for p, pt, _ in params)
        return self.claim(name, binders, t, has_eps, has_eps, None)

    @staticmethod
    def recursive_scope(name: str, params, t: tuple) -> Tuple[tuple, "Ctx"]:
        """The type of a new recursive helper ``name`` with ``params`` (name, type, private)
        returning ``t``, and the context of its body (its parameters and itself)."""
        fn_type = t
        for _, pt, _ in reversed(params):
            fn_type = FUN(pt, fn_type)
        ctx_in = Ctx()
        for p, pt, private in params:
            ctx_in = ctx_in.add(p, pt, private)
        return fn_type, ctx_in.add(name, fn_type)

    def r_rec_helper(self, t, ctx, depth):
        """A call of a new top-level recursive helper with a ``val``: ``match l with [] -> e |
        x :: xs -> ... h xs ...`` (or a non-structural call: on ``l`` itself or ``x :: xs``,
        possibly where its value is not used)."""
        rng = self.rng
        lists = [b for b in ctx.visible().values() if b.type[0] == "list"]
        if not lists or self.helper_depth >= 2:
            return None
        source = rng.choice(lists)
        others = [b for b in ctx.usable() if b.type[0] not in ("fun", "list") and self.chance(0.3)][:1]
        name = self.fresh("h")
        lname = source.name if self.chance(0.5) else self.fresh("l")
        params = [(lname, source.type, source.private)] + [(b.name, b.type, b.private) for b in others]
        fn_type, ctx_in = self.recursive_scope(name, params, t)
        self.helper_depth += 1
        h, tl, r = self.fresh("x"), self.fresh("xs"), self.fresh("r")
        cons_ctx = ctx_in.add(h, source.type[1], source.private).add(tl, source.type, source.private)
        arg, structural = self.recursive_argument(lname, tl, h, source.type)
        rec_call = app(var(name), arg, *(var(b.name) for b in others))
        base = self.expr(t, ctx_in, 1)
        body = ast.Match(var(lname), base, h, tl, self.place_call(rec_call, t, cons_ctx, r, 2))
        self.helper_depth -= 1
        decl = ast.LetDecl(name, tuple(pvar(p, pt) for p, pt, _ in params), body, recursive=True)
        self.tags.add("top-level recursion")
        if not structural:
            self.tags.add("non-structural recursion")
        with_val = self.chance(0.95)
        if with_val:
            self.before += [self.helper_claim(name, params, t), decl]
        else:
            self.before.append(decl)
        self.tops.append(TopDef(name, fn_type, len(params), has_val=with_val))
        return app(var(name), var(source.name), *(var(b.name) for b in others))

    def r_counter_helper(self, t, ctx, depth):
        """A call of a new top-level recursive helper with a ``val`` that counts a ``nat``
        parameter down (``if k <= 0 then e else … h (k - s) …``; the guard ``k = 0`` or the
        step 2 with ``k <= 0``/``k < 2`` too): induction on the counter. Its other parameters
        (a list, a value) are passed unchanged."""
        rng = self.rng
        if self.helper_depth >= 2:
            return None
        others = [b for b in ctx.usable() if b.type[0] not in ("fun", "M") and self.chance(0.4)][:2]
        name, k = self.fresh("c"), self.fresh("k")
        params = [(k, NAT, False)] + [(b.name, b.type, b.private) for b in others]
        fn_type, ctx_in = self.recursive_scope(name, params, t)
        self.helper_depth += 1
        step = rng.choice((1, 1, 2))
        guard = rng.choice((binop("<=", var(k), intlit(0)), binop("=", var(k), intlit(0)))) \
            if step == 1 else binop("<", var(k), intlit(2))
        rec_call = app(var(name), binop("-", var(k), intlit(step)), *(var(b.name) for b in others))
        base = self.expr(t, ctx_in, 1)
        body = ast.If(guard, base, self.place_call(rec_call, t, ctx_in, self.fresh("r"), 2))
        self.helper_depth -= 1
        decl = ast.LetDecl(name, tuple(pvar(p, pt) for p, pt, _ in params), body, recursive=True)
        self.tags.add("counter recursion")
        self.before += [self.helper_claim(name, params, t), decl]
        self.tops.append(TopDef(name, fn_type, len(params), has_val=True))
        return app(var(name), intlit(rng.choice((0, 1, 2, 3))), *(var(b.name) for b in others))

    # ---- proofs by coupling: the Sparse Vector family ----

    def queries(self, t: tuple) -> bool:
        """Whether the Sparse Vector productions apply: a ``bool list``, ``real list`` (the gaps
        of GapSVT) or ``bool`` computation of an entry whose private list is a list of reals
        refined by ``allWithin``."""
        return t in (M(LIST(BOOL)), M(LIST(REAL)), M(BOOL)) and "refinement allWithin" in self.tags \
            and self.helper_depth == 0

    def r_sparse_vector(self, t, ctx, depth):
        """A noisy threshold and noisy queries compared with it (Dwork and Roth's
        AboveThreshold and its broken variants, LICS 2016's coupling proofs): ``mlet t =
        lapMech (e0, thr) in above qs t eps``, where the new recursive helper ``above``
        compares each query's Laplace release with ``t`` and answers ``true`` (stopping there or
        not) or ``false``; for a ``bool`` computation, one query compared once; for a ``real
        list`` computation, GapSVT: an answer above releases the gap ``x - t`` (or, broken, the
        noisy answer ``x`` or the exact gap ``q - t``) and one below releases nothing. The
        scales, the comparison, the cutoff, the threshold's noise and the helper's precondition
        vary (correct and broken variants alike); the helper's claim is calibrated as any
        other."""
        rng = self.rng
        lists = [b for b in ctx.visible().values() if b.type == LIST(REAL) and b.private]
        if not lists or not self.builtin_usable("lapMech", ctx):
            return None
        source = rng.choice(lists)
        self.tags.add("sparse vector")
        scales = (Fraction(1, 4), Fraction(1, 2), Fraction(1), Fraction(2))

        def eps_times(c: Fraction) -> ast.Expr:
            e = self.eps_expr(ctx)
            return e if c == 1 else binop("*", real(c), e)

        thr = real(rng.choice(REALS)) if self.chance(0.7) or not ctx.of_type(REAL) \
            else var(rng.choice(ctx.of_type(REAL)).name)
        tn = self.fresh("t")
        noised_threshold = self.chance(0.85)
        threshold = call("lapMech", eps_times(rng.choice(scales)), thr) if noised_threshold \
            else ast.Return(thr)
        if not noised_threshold:
            self.tags.add("sparse vector: threshold not noised")
        comparison = rng.choices((">=", ">", "<", "<="), (5, 3, 1, 1))[0]
        if t == M(BOOL):                         # one query, compared once
            q, rest, x = self.fresh("q"), self.fresh("qs"), self.fresh("x")
            step = ast.MLet(pvar(x), call("lapMech", eps_times(rng.choice(scales)), var(q)),
                            ast.Return(binop(comparison, var(x), var(tn))))
            body = ast.Match(var(source.name), ast.Return(ast.BoolLit(False)), q, rest, step)
            return ast.MLet(pvar(tn), threshold, body)
        name = self.fresh("above")
        qs, th, q, rest, x, r = (self.fresh(n) for n in ("qs", "t", "q", "rest", "x", "r"))
        e = "eps"   # the helper's own scope: its claim's index is c * eps
        rec_call = app(var(name), var(rest), var(th), var(e))
        scale = rng.choice(scales)
        noise = call("lapMech", var(e) if scale == 1 else binop("*", real(scale), var(e)), var(q))
        released: ast.Expr = ast.BoolLit(True)
        if t == M(LIST(REAL)):
            self.tags.add("sparse vector: gaps released")
            released = rng.choices((binop("-", var(x), var(th)), var(x), binop("-", var(q), var(th))),
                                   (8, 1, 1))[0]
        if self.chance(0.8):
            answer_true: ast.Expr = ast.Return(ast.ListLit((released,)))
        else:
            self.tags.add("sparse vector: no cutoff")
            answer_true = ast.MLet(pvar(r), rec_call, ast.Return(ast.Cons(released, var(r))))
        answer_false = rec_call if t == M(LIST(REAL)) else \
            ast.MLet(pvar(r), rec_call, ast.Return(ast.Cons(ast.BoolLit(False), var(r))))
        body = ast.Match(var(qs), ast.Return(ast.ListLit(())), q, rest,
                         ast.MLet(pvar(x), noise, ast.If(binop(comparison, var(x), var(th)),
                                                         answer_true, answer_false)))
        params = [(qs, LIST(REAL)), (th, REAL), (e, REAL)]
        decl = ast.LetDecl(name, tuple(pvar(p, pt) for p, pt in params), body, recursive=True)
        fn_type = FUN(LIST(REAL), FUN(REAL, FUN(REAL, t)))
        if self.chance(0.9):
            q1, q2 = runs(qs)
            t1, t2 = runs(th)
            precondition = binop("=", t2, binop("+", t1, real(Fraction(1)))) if self.chance(0.8) \
                else ast.SameRuns()
            binders = [(qs, ast.TList(ast.TBase("real")),
                        ast.App(var("allWithin"), ast.TupleLit((q1, q2, real(Fraction(1)))))),
                       (th, ast.TBase("real"), precondition),
                       (e, ast.TBase("real+"), ast.SameRuns())]
            self.before += [self.claim(name, binders, t, True, True, None), decl]
            self.tops.append(TopDef(name, fn_type, 3, has_val=True))
        else:
            self.before.append(decl)
            self.tops.append(TopDef(name, fn_type, 3, has_val=False))
        eps_arg = self.eps_expr(ctx)
        return ast.MLet(pvar(tn), threshold, app(var(name), var(source.name), var(tn), eps_arg))

    def r_noisy_max(self, t, ctx, depth):
        """Report Noisy Max over a private list of reals refined by ``allWithin`` (LICS 2016
        §6): a new recursive helper without a val keeps the index of the largest (or smallest)
        Laplace release, either started from index 0 with a ``started`` flag (``not started ||
        y > bv``) or called after the first answer is peeled off. The noise scale (``eps / 2``
        correct, ``eps`` broken), the comparison and what is kept as the best value (the noisy
        answer, or, broken, the exact one) vary."""
        rng = self.rng
        lists = [b for b in ctx.visible().values() if b.type == LIST(REAL) and b.private]
        if t != M(INT) or not lists or "refinement allWithin" not in self.tags \
                or not self.builtin_usable("lapMech", ctx) or self.helper_depth != 0:
            return None
        source = rng.choice(lists)
        self.tags.add("noisy max")
        name = self.fresh("best")
        qs, i, bi, bv, flag, e, s_, more, y = (self.fresh(n) for n in (
            "qs", "i", "bi", "bv", "started", "eps", "s", "more", "y"))
        scale = rng.choices((Fraction(1, 2), Fraction(1)), (5, 1))[0]
        if scale != Fraction(1, 2):
            self.tags.add("noisy max: noise too small")
        noise = call("lapMech", var(e) if scale == 1 else binop("*", real(scale), var(e)), var(s_))
        comparison = rng.choices((">", ">=", "<", "<="), (4, 2, 2, 1))[0]
        kept = var(y)
        if self.chance(0.1):
            self.tags.add("noisy max: exact value kept")
            kept = var(s_)
        started = self.chance(0.5)
        test: ast.Expr = binop(comparison, var(y), var(bv))
        if started:
            self.tags.add("noisy max: started flag")
            test = binop("||", ast.UnOp("not", var(flag)), test)
        tail_flag = (ast.BoolLit(True),) if started else ()

        def again(best_i, best_v):
            return app(var(name), var(more), binop("+", var(i), intlit(1)), best_i, best_v,
                       *tail_flag, var(e))
        body = ast.Match(var(qs), ast.Return(var(bi)), s_, more,
                         ast.MLet(pvar(y), noise,
                                  ast.If(test, again(var(i), kept), again(var(bi), var(bv)))))
        params = [(qs, LIST(REAL)), (i, INT), (bi, INT), (bv, REAL)] \
            + ([(flag, BOOL)] if started else []) + [(e, REAL)]
        self.before.append(ast.LetDecl(name, tuple(pvar(p, pt) for p, pt in params), body,
                                       recursive=True))
        fn_type = t
        for _, pt in reversed(params):
            fn_type = FUN(pt, fn_type)
        self.tops.append(TopDef(name, fn_type, len(params), has_val=False))
        eps_arg = self.eps_expr(ctx)
        if started:
            return app(var(name), var(source.name), intlit(0), intlit(0), real(Fraction(0)),
                       ast.BoolLit(False), eps_arg)
        first, rest, y0 = self.fresh("q"), self.fresh("qs"), self.fresh("y")
        e0 = binop("*", real(scale), eps_arg)
        peeled = ast.MLet(pvar(y0), call("lapMech", e0, var(first)),
                          app(var(name), var(rest), intlit(1), intlit(0), var(y0), eps_arg))
        return ast.Match(var(source.name), ast.Return(intlit(0)), first, rest, peeled)

    def r_learner(self, t, ctx, depth):
        """The posterior mean after an observe-fold over a list: a new top-level recursive
        learner with a ``val`` (beta-bernoulli over a bool list, normal-normal over a real list),
        ``mean (infer (learn l prior))``."""
        rng = self.rng
        lists = [b for b in ctx.visible().values() if b.type in (LIST(BOOL), LIST(REAL))]
        if not lists or "mean" in ctx.visible() or self.top("mean"):
            return None
        source = rng.choice(lists)
        family = "bernoulli" if source.type == LIST(BOOL) else "normal"
        name, l, prior, d, ds, r, z = (self.fresh(x) for x in ("learn", "l", "prior", "d", "ds", "r", "z"))
        elem = REAL
        if family == "bernoulli":
            draw = app(var("bernoulli"), var(r))
            prior_expr = ast.Ran(call("beta", real(rng.choice((Fraction(1), Fraction(2)))),
                                      real(rng.choice((Fraction(1), Fraction(3))))))
        else:
            draw = call("normal", var(r), real(rng.choice((Fraction(1), Fraction(1, 2)))))
            prior_expr = ast.Ran(call("normal", real(Fraction(0)), real(Fraction(1))))
        likelihood = ast.Fun((pvar(r),), ast.MLet(pvar(z), ast.Ran(draw), ast.Return(binop("=", var(d), var(z)))))
        if self.chance(0.35):
            # the likelihood written through a named helper, read through its definition
            helper, hd, hr = self.fresh("lik"), self.fresh("d"), self.fresh("r")
            renamed = {d: hd, r: hr}
            hbody = ast.transform(likelihood.body, lambda n: var(renamed[n.name])
                                  if isinstance(n, ast.Var) and n.name in renamed else None)
            self.before.append(ast.LetDecl(helper, (pvar(hd), pvar(hr)), hbody, recursive=False))
            likelihood = ast.Fun((pvar(r),), app(var(helper), var(d), var(r))) \
                if self.chance(0.5) else app(var(helper), var(d))
            self.tags.add("learner likelihood helper")
        written = ast.TBase("[0,1]") if family == "bernoulli" else ast.TBase("real")
        mon = ast.RMonad(ast.Divergence("SD"), None, ast.RRefine("x", ast.RSimple(written), ast.SameRuns()))
        data = ast.RRefine("l", ast.RSimple(syntax(source.type)), ast.SameRuns())
        self.tags.add("observe-fold learner")
        if self.chance(0.3):
            # no prior parameter: the [] case builds the prior
            body = ast.Match(var(l), prior_expr, d, ds, ast.Observe(likelihood, app(var(name), var(ds))))
            decl = ast.LetDecl(name, (pvar(l, source.type),), body, recursive=True)
            self.before += [ast.ValDecl(name, ast.RArrow(data, mon)), decl]
            self.tops.append(TopDef(name, FUN(source.type, M(elem)), 1, has_val=True))
            self.tags.add("learner prior in nil")
            return app(var("mean"), ast.Infer(app(var(name), var(source.name))))
        body = ast.Match(var(l), var(prior), d, ds, ast.Observe(likelihood, app(var(name), var(ds), var(prior))))
        decl = ast.LetDecl(name, (pvar(l, source.type), pvar(prior, M(elem))), body, recursive=True)
        self.before += [ast.ValDecl(name, ast.RArrow(data, ast.RArrow(mon, mon))), decl]
        self.tops.append(TopDef(name, FUN(source.type, FUN(M(elem), M(elem))), 2, has_val=True))
        return app(var("mean"), ast.Infer(app(var(name), var(source.name), prior_expr)))

    def r_alias(self, t, ctx, depth):
        """``let f = helper in f args`` (or a lambda): the alias is called, not the name."""
        candidates = [d for d in self.tops if not d.builtin and _result(d.type, d.arity) == t and d.arity >= 1]
        if not candidates:
            return None
        d = self.rng.choice(candidates)
        alias = self.fresh("f")
        args = [self.expr(a, ctx.exposed(), depth - 1) for a in _params(d.type, d.arity)]
        self.tags.add("alias")
        return ast.Let(pvar(alias), var(d.name), app(var(alias), *args))

    def r_partial(self, t, ctx, depth):
        """``let g = helper a1 in g a2 ...``: a partial application capturing the first argument."""
        candidates = [d for d in self.tops if not d.builtin and _result(d.type, d.arity) == t and d.arity >= 2]
        if not candidates:
            args = [b for b in ctx.visible().values() if b.type[0] != "fun"]
            if len(args) < 2 or self.helper_depth >= 2:
                return None
            self.rng.shuffle(args)
            self.new_helper(t, args[:2], depth)
            candidates = [self.tops[-1]]
        d = self.rng.choice(candidates)
        types = _params(d.type, d.arity)
        g = self.fresh("g")
        first = self.expr(types[0], ctx.exposed(), depth - 1)
        rest = [self.expr(a, ctx, depth - 1) for a in types[1:]]
        self.tags.add("partial application")
        return ast.Let(pvar(g), app(var(d.name), first), app(var(g), *rest))

    def r_shadow(self, t, ctx, depth):
        """A local binding named like a val'd function, the entry, a built-in or a variable."""
        rng = self.rng
        choice = rng.random()
        if choice < 0.45:
            # the entry's name, or a val'd helper's, bound to another function of its type
            named = [(d.name, d.type, d.arity) for d in self.tops if d.has_val and d.arity >= 1
                     and _result(d.type, d.arity) == t]
            if t == _result(self.entry_type, len(self.entry_params)) and self.helper_depth == 0:
                named.append((self.entry, self.entry_type, len(self.entry_params)))
            if not named or self.helper_depth >= 2:
                return None
            target, fn_type, arity = rng.choice(named)
            types = _params(fn_type, arity)
            others = [o for o in self.tops if o.type == fn_type and o.name != target]
            if others and self.chance(0.5):
                other = rng.choice(others).name
            else:
                bindings = [Binding(self.fresh("p"), pt, pt[0] == "list") for pt in types]
                other = self.new_helper(t, bindings, depth, with_val=self.chance(0.7), equal_inputs=True)
            args = [self.expr(a, ctx.exposed(), depth - 1) for a in types]
            self.tags.add("local shadows the entry's name" if target == self.entry else "local shadows a val'd name")
            return ast.Let(pvar(target), var(other), app(var(target), *args))
        if choice < 0.8:
            name = rng.choice([n for n in BUILTIN_TYPES if n not in ("gaussMech",)])
            bt = BUILTIN_TYPES[name]
            if not self.builtin_usable(name, ctx):
                return None
            replacement = self.replacement(name, bt, ctx.exposed())
            self.tags.add("local shadows a built-in")
            return ast.Let(pvar(name), replacement, self.expr(t, ctx.add(name, bt, ctx.private()), depth))
        visible = ctx.usable()
        if not visible:
            return None
        b = rng.choice(visible)
        self.tags.add("local shadows a variable")
        value = self.expr(b.type, ctx, depth - 1)
        return ast.Let(pvar(b.name), value, self.expr(t, ctx.add(b.name, b.type, ctx.private()), depth))

    def replacement(self, name: str, bt: tuple, ctx: Ctx) -> ast.Expr:
        """A function of the built-in's type to bind to its name."""
        dom, cod = bt[1], bt[2]
        if dom[0] == "tuple":
            names = [self.fresh("q") for _ in dom[1]]
            pattern = ast.PTuple(tuple(pvar(n, it) for n, it in zip(names, dom[1])))
            inner = ctx
            for n, it in zip(names, dom[1]):
                inner = inner.add(n, it)
            if name in ("lapMech",) and self.chance(0.6):
                return ast.Fun((pattern,), ast.Return(var(names[1])))
            return ast.Fun((pattern,), self.expr(cod, inner, 1))
        q = self.fresh("q")
        return ast.Fun((pvar(q, dom),), self.expr(cod, ctx.add(q, dom), 1))

    # ---- ranges: values of range types, calls across element ranges ----

    def r_range_let(self, t, ctx, depth):
        """``let (x : R) = e in body`` with a written range ``R`` (``nat``, ``real+``,
        ``[0,1]``, ``[3]``, or a tuple of them) and ``e`` of the erased type, maybe outside the
        range: ``run`` checks the annotation there, so the verifier must show it."""
        rng = self.rng
        written = rng.choice((NAT, POS, UNIT01, FIN(3), TUP(NAT, UNIT01), TUP(FIN(3), BOOL)))
        erased = erase(written)
        name = self.fresh("x")
        value = self.expr(erased, ctx.exposed() if self.chance(0.5) else ctx, depth - 1)
        self.tags.add("range annotation")
        body = self.expr(t, ctx.add(name, erased, ctx.private()), depth)
        return ast.Let(pvar(name, written), value, body)

    def r_range_call(self, t, ctx, depth):
        """A call of a new helper whose list parameter has an element range of its own, wider
        or narrower than the argument's (an ``int list`` given where a ``nat list`` or a ``[3]
        list`` is expected, a ``[3] list`` where an ``int list`` is), and whose body uses the
        elements where their range matters (a clip, a square root, a division, an annotated
        binding): with a val (its domain is proved at the call, assumed in its body, by
        induction when it recurs) or without (unfolded: the narrower annotation is a flow)."""
        rng = self.rng
        if t not in (INT, REAL, BOOL) or self.helper_depth >= 2:
            return None
        lists = [b for b in ctx.exposed().lists() if b.type[1] in (INT, REAL) or b.type[1][0] == "fin"]
        if not lists:
            return None
        source = rng.choice(lists)
        elem = source.type[1]
        if elem == REAL:
            written = rng.choice((UNIT01, POS, REAL))
        elif elem == INT:
            written = rng.choice((NAT, NAT, FIN(3), INT))
        else:
            written = rng.choice((NAT, INT, elem))
        if written != elem:
            wider = elem[0] == "fin"   # a [k] list into a nat or int list; else a range is added
            self.tags.add("call into a wider element range" if wider else
                          "call into a narrower element range")
        name, l, x, xs = self.fresh("h"), self.fresh("l"), self.fresh("x"), self.fresh("xs")
        xe = var(x)
        uses = {
            "nat": [call("min", xe, real(Fraction(1))), app(var("sqrt"), xe),
                    ast.Let(pvar("y", NAT), xe, binop("*", var("y"), real(Fraction(1, 2))))],
            "real+": [binop("/", real(Fraction(1)), xe), app(var("log"), xe), call("min", xe, real(Fraction(1)))],
            "[0,1]": [xe, app(var("sqrt"), xe), call("max", xe, real(Fraction(0)))],
            "fin": [ast.App(ast.Fun((pvar("y", FIN(3)),), ast.If(binop("=", var("y"), intlit(0)),
                                                                  real(Fraction(1)), real(Fraction(0)))), xe),
                    ast.If(binop("=", xe, intlit(0)), real(Fraction(1)), real(Fraction(0)))],
            "int": [call("min", xe, real(Fraction(1))), binop("*", xe, real(Fraction(1, 2)))],
            "real": [call("min", xe, real(Fraction(1))), app(var("abs"), xe)],
        }[written[0]]
        use = rng.choice(uses)
        recursive = self.chance(0.6)
        lt = LIST(written)
        if recursive:
            step = binop("+", use, app(var(name), var(xs)))
            body = ast.Match(var(l), real(Fraction(0)), x, xs, step)
        else:
            body = ast.Match(var(l), real(Fraction(0)), x, xs, use)
        with_val = recursive or self.chance(0.6)
        annotation = lt if self.chance(0.7) or not with_val else LIST(erase(written))
        decl = ast.LetDecl(name, (pvar(l, annotation),), body, recursive=recursive)
        if with_val:
            self.tags.add("helper with val")
            val = self.helper_claim(name, [(l, lt, source.private)], REAL)
            self.before += [val, decl]
        else:
            self.tags.add("helper without val")
            self.before.append(decl)
        self.tops.append(TopDef(name, FUN(erase(lt), REAL), 1, has_val=with_val))
        result = app(var(name), var(source.name))
        if t == REAL:
            return result
        if t == INT:
            return None
        return binop(rng.choice((">", "<")), result, real(Fraction(1, 2)))

    def r_accumulator_fold(self, t, ctx, depth):
        """``h 0.0 l``: a new ``val``'d fold with an accumulator, ``let rec h acc l = match l
        with [] -> acc | x :: xs -> h (step) xs``, whose claim refines ``acc`` ``=`` (most
        often) and bounds the result's difference — true but not inductive as written
        (``LetRec-Induction-Acc`` proves it relative to the accumulator, docs/verifier.md) —
        with a step that adds a clipped or an unclipped element, or doubles the accumulator."""
        rng = self.rng
        if t != REAL or self.helper_depth >= 2:
            return None
        lists = [b for b in ctx.exposed().lists() if b.type[1] in (REAL, BOOL)]
        if not lists:
            return None
        source = rng.choice(lists)
        elem = source.type[1]
        name, acc, l, x, xs = (self.fresh(n) for n in ("h", "acc", "l", "x", "xs"))
        xe = var(x)
        if elem == BOOL:
            summand = ast.If(xe, real(Fraction(1)), real(Fraction(0)))
        else:
            summand = rng.choice((call("max", real(Fraction(0)), call("min", xe, real(Fraction(1)))),
                                  call("min", xe, real(Fraction(2))), xe,
                                  ast.If(binop(">", xe, real(Fraction(1, 2))), real(Fraction(1)), real(Fraction(0)))))
        kind = rng.choices(("acc + step", "step + acc", "doubled accumulator"), (5, 2, 1))[0]
        step = {"acc + step": binop("+", var(acc), summand), "step + acc": binop("+", summand, var(acc)),
                "doubled accumulator": binop("+", binop("*", real(Fraction(2)), var(acc)), summand)}[kind]
        self.tags.add("accumulator fold")
        if kind == "doubled accumulator":
            self.tags.add("accumulator fold doubling")
        body = ast.Match(var(l), var(acc), x, xs, app(var(name), step, var(xs)))
        decl = ast.LetDecl(name, (pvar(acc, REAL), pvar(l, LIST(elem))), body, recursive=True)
        val = self.helper_claim(name, [(acc, REAL, False), (l, LIST(elem), source.private)], REAL)
        self.before += [val, decl]
        self.tops.append(TopDef(name, FUN(REAL, FUN(LIST(elem), REAL)), 2, has_val=True))
        return app(var(name), real(Fraction(0)), var(source.name))

    def r_hellinger(self, t, ctx, depth):
        """``mlet d = hellingerMech[Pure] (eps, prior, l) in ...``: the smoothed-Hellinger
        mechanisms over a list in scope — a bool list with a beta prior, or a list of ints or
        categories with a dirichlet prior over k (the data must be categories 0..k-1: an int
        list may hold others, a [2] list with a prior over 3 does not type)."""
        rng = self.rng
        lists = [b for b in ctx.exposed().lists() if b.type[1] in (BOOL, INT) or b.type[1][0] == "fin"]
        if not lists:
            return None
        source = rng.choice(lists)
        elem = source.type[1]
        eps = self.eps_expr(ctx)
        if elem == BOOL:
            prior = call("beta", real(rng.choice((Fraction(1), Fraction(2)))), real(Fraction(1)))
        else:
            k = elem[1] if elem[0] == "fin" else rng.choice((2, 3))
            prior = call("dirichlet", *(real(Fraction(1)) for _ in range(k)))
            if elem == INT:
                self.tags.add("mechanism over data of a wider type")
        if self.chance(0.5):
            mech = call("hellingerMechPure", eps, prior, var(source.name))
        else:
            mech = call("hellingerMech", eps, real(rng.choice((Fraction(1, 100), Fraction(1, 10)))),
                        prior, var(source.name))
        self.tags.add("Hellinger mechanism")
        return ast.MLet(pvar(self.fresh("d")), mech, self.expr(t, ctx, depth - 1))

    # ---- monadic productions ----

    def r_return(self, t, ctx, depth):
        return ast.Return(self.expr(t[1], ctx, depth))

    def r_mlet(self, t, ctx, depth):
        u = self.rng.choice((BOOL, BOOL, INT, REAL, t[1]))
        name = self.fresh("v")
        first = self.expr(M(u), ctx, depth)
        if self.chance(0.3) and u == t[1]:
            self.tags.add("post-processing")
        return ast.MLet(pvar(name), first, self.expr(t, ctx.add(name, u, False), depth))

    def eps_expr(self, ctx: Ctx) -> ast.Expr:
        """A positive real for a mechanism's epsilon: the public eps mostly."""
        rng = self.rng
        eps = [b for b in ctx.of_type(REAL) if b.name == "eps"]
        r = rng.random()
        if eps and r < 0.75:
            e = var("eps")
            return rng.choice((e, e, binop("/", e, real(Fraction(2))), binop("*", real(Fraction(2)), e)))
        if r < 0.92 or not ctx.of_type(LIST(BOOL)):
            return real(rng.choice((Fraction(1, 2), Fraction(1), Fraction(2))))
        self.tags.add("private noise scale")
        return binop("+", app(var("count"), var(rng.choice(ctx.of_type(LIST(BOOL))).name)), real(Fraction(1)))

    def r_mechanism(self, t, ctx, depth):
        rng = self.rng
        elem = t[1]
        if elem == REAL:
            if not self.builtin_usable("lapMech", ctx):
                return None
            if self.chance(0.8):
                self.tags.add("lapMech")
                query = self.r_learner(REAL, ctx, depth) if self.chance(0.3) else None
                return call("lapMech", self.eps_expr(ctx), query or self.expr(REAL, ctx.exposed(), depth))
            if not self.builtin_usable("gaussMech", ctx):
                return None
            self.tags.add("gaussMech")
            return call("gaussMech", rng.choice((real(Fraction(1, 2)), real(Fraction(9, 10)))),
                        real(rng.choice((Fraction(1, 10), Fraction(1, 100)))), self.expr(REAL, ctx.exposed(), depth))
        if elem == BOOL and self.chance(0.3):
            if not self.builtin_usable("bernoulli", ctx):
                return None
            self.tags.add("bernoulli draw")
            p = real(rng.choice(PROBABILITIES))
            if self.chance(0.3):
                p = ast.If(self.expr(BOOL, ctx, depth - 1), p, real(rng.choice(PROBABILITIES)))
            return ast.Ran(app(var("bernoulli"), p))
        if elem == LIST(BOOL):
            return self.r_local_rec_m(t, ctx, depth)
        if not finite(elem) and elem != INT:
            return None
        return self.exp_mech(elem, ctx, depth)

    def exp_mech(self, elem: tuple, ctx: Ctx, depth: int) -> ast.Expr:
        """``expMech (eps, score, x)`` with an annotated candidate (finite range), or with
        explicit candidates."""
        rng = self.rng
        self.tags.add("expMech")
        visible = [b for b in ctx.visible().values() if b.type[0] != "fun"]
        private = [b for b in visible if b.private]
        source = rng.choice(private) if private and self.chance(0.85) else (rng.choice(visible) if visible else None)
        x_type = source.type if source is not None else BOOL
        x_expr = var(source.name) if source is not None else ast.BoolLit(True)
        xn, rn = self.fresh("x"), self.fresh("r")
        inner = Ctx().add(xn, x_type, True).add(rn, elem)
        for b in ctx.usable():
            if not b.private and b.type[0] != "fun" and self.chance(0.3):
                inner = inner.add(b.name, b.type)
        score_body = self.score(inner, xn, rn, x_type, elem, depth)
        score = ast.Fun((ast.PTuple((pvar(xn), pvar(rn, elem))),), score_body)
        if elem == INT or (self.chance(0.2) and elem == BOOL):
            self.tags.add("expMech with candidates")
            items = ((ast.BoolLit(False), ast.BoolLit(True)) if elem == BOOL
                     else tuple(intlit(i) for i in range(3)))
            return call("expMech", self.eps_expr(ctx), score, x_expr, ast.ListLit(items))
        return call("expMech", self.eps_expr(ctx), score, x_expr)

    def score(self, ctx: Ctx, xn: str, rn: str, x_type: tuple, elem: tuple, depth: int) -> ast.Expr:
        """A real-valued score: often an honest counting score, sometimes anything."""
        if x_type == LIST(BOOL) and self.chance(0.6):
            agree = app(var("count"), var(xn))
            disagree = binop("-", app(var("length"), var(xn)), app(var("count"), var(xn)))
            if elem == BOOL:
                return ast.If(var(rn), agree, disagree)
            if elem[0] == "fin" or elem == INT:
                return ast.If(binop("=", var(rn), intlit(0)), agree, disagree if self.chance(0.5) else intlit(0))
        if x_type == BOOL and self.chance(0.6) and elem == BOOL:
            return ast.If(binop("=", var(rn), var(xn)), real(Fraction(1)), real(Fraction(0)))
        return self.expr(REAL, ctx, min(depth, 2))

    def r_let_computation(self, t, ctx, depth):
        """``let m = computation in body`` with ``m`` run zero, one or two times."""
        rng = self.rng
        name = self.fresh("m")
        value = self.expr(t, ctx.exposed(), depth)
        uses = rng.choices((0, 1, 2), (1, 3, 2))[0]
        self.tags.add(f"let-bound computation used {uses} times")
        inner = ctx.add(name, t, ctx.private())
        if uses == 0:
            body = self.expr(t, ctx, depth)
        elif uses == 1:
            body = var(name)
            if self.chance(0.4):
                v = self.fresh("v")
                rest = ast.Return(var(v)) if self.chance(0.5) else self.expr(t, ctx.add(v, t[1]), depth - 1)
                body = ast.MLet(pvar(v), var(name), rest)
        else:
            a, b = self.fresh("v"), self.fresh("v")
            inner2 = ctx.add(a, t[1]).add(b, t[1])
            body = ast.MLet(pvar(a), var(name), ast.MLet(pvar(b), var(name), self.expr(t, inner2, depth - 1)))
        del inner
        return ast.Let(pvar(name), value, body)

    def r_observe(self, t, ctx, depth):
        elem = t[1]
        if not finite(elem):
            return None
        th = self.fresh("th")
        inner = ctx.exposed() if self.chance(0.5) else ctx
        likelihood = ast.Fun((pvar(th, elem),), self.expr(M(BOOL), inner.add(th, elem, False), min(depth, 2)))
        prior = self.expr(t, ctx, depth - 1)
        self.tags.add("observe")
        return ast.Observe(likelihood, prior)

    def r_ran_infer(self, t, ctx, depth):
        if not finite(t[1]):
            return None
        self.tags.add("infer")
        return ast.Ran(ast.Infer(self.expr(t, ctx, depth)))

    def r_infer(self, t, ctx, depth):
        self.tags.add("infer")
        return ast.Infer(self.expr(M(t[1]), ctx, depth))

    def r_local_rec_m(self, t, ctx, depth):
        """``let rec go l = match l with [] -> m | x :: xs -> mlet r = go xs in m' in go db``."""
        return self.local_rec(t, ctx, depth, monadic=True)

    def r_local_rec(self, t, ctx, depth):
        return self.local_rec(t, ctx, depth, monadic=False)

    def local_rec(self, t, ctx, depth, monadic: bool):
        rng = self.rng
        lists = ctx.exposed().lists()
        if not lists:
            return None
        ctx = ctx.exposed()
        source = rng.choice(lists)
        go, l, h, tl, r = self.fresh("go"), self.fresh("l"), self.fresh("x"), self.fresh("xs"), self.fresh("r")
        lt = source.type
        fn_type = FUN(lt, t)
        inner = ctx.add(go, fn_type).add(l, lt, source.private)
        cons_ctx = inner.add(h, lt[1], source.private).add(tl, lt, source.private)
        call_arg, structural = self.recursive_argument(l, tl, h, lt)
        rec_call = app(var(go), call_arg)
        base = self.expr(t, inner, min(depth, 2))
        if t == M(LIST(BOOL)) and lt == LIST(BOOL):
            # randomized response over the list: each element through a fresh coin
            coin = self.fresh("c")
            step = ast.MLet(pvar(coin), ast.Ran(app(var("bernoulli"), real(rng.choice(PROBABILITIES)))),
                            ast.MLet(pvar(r), rec_call,
                                     ast.Return(ast.Cons(ast.If(var(coin), var(h), ast.UnOp("not", var(h))), var(r)))))
            base = ast.Return(ast.ListLit(()))
            cons_body: ast.Expr = step
        elif monadic:
            cons_body = ast.MLet(pvar(r), rec_call, self.expr(t, cons_ctx.add(r, t[1]), min(depth, 2)))
        else:
            cons_body = self.place_call(rec_call, t, cons_ctx, r, depth)
        self.tags.add("local recursion")
        if not structural:
            self.tags.add("non-structural recursion")
        body = ast.Match(var(l), base, h, tl, cons_body)
        return ast.LetRec(go, (pvar(l),), body, app(var(go), var(source.name)))

    def recursive_argument(self, l: str, tl: str, h: str, lt: tuple) -> Tuple[ast.Expr, bool]:
        """The list a recursive call gets: the tail (structural) mostly; else the same list or
        one of the same length."""
        r = self.rng.random()
        if r < 0.7:
            return var(tl), True
        if r < 0.85:
            return var(l), False
        return ast.Cons(var(h), var(tl)), False

    def place_call(self, rec_call: ast.Expr, t: tuple, ctx: Ctx, r: str, depth: int) -> ast.Expr:
        """Where a pure recursive call stands: used, in an unused let, a tuple component, an
        ignored argument, or a guarded branch."""
        rng = self.rng
        choice = rng.choices(("used", "unused let", "tuple", "ignored", "guarded"), (5, 2, 1.5, 1.5, 2))[0]
        rest = self.expr(t, ctx.add(r, t), min(depth, 2))
        if choice == "used":
            return ast.Let(pvar(r, t), rec_call, rest)
        if choice == "unused let":
            self.tags.add("recursive call in an unused let")
            return ast.Let(pvar(self.fresh("u")), rec_call, self.expr(t, ctx, min(depth, 2)))
        if choice == "tuple":
            self.tags.add("recursive call in a tuple component")
            return app(var("fst"), ast.TupleLit((self.expr(t, ctx, 1), rec_call)))
        if choice == "ignored":
            self.tags.add("recursive call in an ignored argument")
            return ast.App(ast.Fun((ast.PWild(),), self.expr(t, ctx, 1)), rec_call)
        guard = self.expr(BOOL, ctx, 1)
        return ast.If(guard, ast.Let(pvar(r, t), rec_call, rest), self.expr(t, ctx, 1))

    # ---- pure productions ----

    def r_not(self, t, ctx, depth):
        return ast.UnOp("not", self.expr(BOOL, ctx, depth))

    def r_logic(self, t, ctx, depth):
        return binop(self.rng.choice(("&&", "||")), self.expr(BOOL, ctx, depth), self.expr(BOOL, ctx, depth))

    def r_compare(self, t, ctx, depth):
        rng = self.rng
        u = rng.choice((INT, INT, REAL))
        op = rng.choice(("<", "<=", ">", ">=", "=", "<>"))
        right = intlit(rng.choice((0, 1, 2))) if u == INT and self.chance(0.7) else self.expr(u, ctx, depth - 1)
        return binop(op, self.expr(u, ctx, depth), right)

    def r_fin_eq(self, t, ctx, depth):
        fins = [b for b in ctx.usable() if b.type[0] == "fin"]
        if not fins:
            return None
        b = self.rng.choice(fins)
        return binop("=", var(b.name), intlit(self.rng.randrange(b.type[1])))

    def r_fst(self, t, ctx, depth):
        other = self.pick_type(ctx)
        return app(var("fst"), ast.TupleLit((self.expr(t, ctx, depth), self.expr(other, ctx, depth - 1))))

    def r_count(self, t, ctx, depth):
        return self.builtin_of_a_list("count", LIST(BOOL), ctx)

    def r_length(self, t, ctx, depth):
        lists = ctx.lists()
        if not lists or not (self.builtin_usable("length", ctx) or lists[0].type != LIST(BOOL)):
            return None
        b = self.rng.choice(lists)
        if b.type != LIST(BOOL) and (ctx.visible().get("length") or self.top("length")):
            return None
        return app(var("length"), var(b.name))

    def r_arith(self, t, ctx, depth):
        rng = self.rng
        op = rng.choice(("+", "-", "*") if t == INT else ("+", "-", "*", "/"))
        if op == "/":
            return binop("/", self.expr(REAL, ctx, depth), real(rng.choice((Fraction(2), Fraction(4)))))
        if op == "*" and self.chance(0.6):
            return binop("*", intlit(2) if t == INT else real(Fraction(2)), self.expr(t, ctx, depth))
        return binop(op, self.expr(t, ctx, depth), self.expr(t, ctx, depth))

    def r_real_of_int(self, t, ctx, depth):
        return self.expr(INT, ctx, depth)

    def r_sum(self, t, ctx, depth):
        return self.builtin_of_a_list("sum", LIST(REAL), ctx)

    def builtin_of_a_list(self, name, list_type, ctx):
        """``name l`` for a list ``l`` in scope of type ``list_type`` (None when there is none,
        or the built-in is shadowed)."""
        lists = ctx.of_type(list_type)
        if not lists or not self.builtin_usable(name, ctx):
            return None
        return app(var(name), var(self.rng.choice(lists).name))

    def r_abs_max(self, t, ctx, depth):
        name = self.rng.choice(("abs", "max", "min"))
        if not self.builtin_usable(name, ctx):
            return None
        if name == "abs":
            return app(var("abs"), self.expr(REAL, ctx, depth))
        return call(name, self.expr(REAL, ctx, depth), self.expr(REAL, ctx, depth))

    def r_mean(self, t, ctx, depth):
        return app(var("mean"), self.expr(D(BOOL), ctx, depth))

    def r_cons(self, t, ctx, depth):
        return ast.Cons(self.expr(t[1], ctx, depth), self.expr(t, ctx, depth))

    def r_list_lit(self, t, ctx, depth):
        n = self.rng.choice((1, 2))
        return ast.ListLit(tuple(self.expr(t[1], ctx, depth - 1) for _ in range(n)))

    def r_tuple(self, t, ctx, depth):
        return ast.TupleLit(tuple(self.expr(i, ctx, depth) for i in t[1]))

    def r_lambda(self, t, ctx, depth):
        name = self.fresh("z")
        return ast.Fun((pvar(name, t[1]),), self.expr(t[2], ctx.add(name, t[1]), depth))


def _names_in(nodes) -> set:
    """Every name mentioned in ``nodes`` (syntax trees)."""
    out, stack = set(), list(nodes)
    while stack:
        n = stack.pop()
        if isinstance(n, (ast.Var, ast.RunVar)):
            out.add(n.name)
        if isinstance(n, ast.ValDecl):
            stack.append(n.rtype)
        stack.extend(ast.children(n))
    return out


def _params(fn_type: tuple, arity: int) -> List[tuple]:
    out = []
    for _ in range(arity):
        out.append(fn_type[1])
        fn_type = fn_type[2]
    return out


def _result(fn_type: tuple, arity: int) -> tuple:
    for _ in range(arity):
        if fn_type[0] != "fun":
            return ("?",)
        fn_type = fn_type[2]
    return fn_type


def generate(seed: int) -> Draft:
    """The program of ``seed`` (deterministic)."""
    return _Gen(random.Random(seed)).program()


__all__ = ["generate", "calibrate", "Draft", "ClaimPlan", "syntax"]
