"""The term language of lemma statements and proof artifacts.

Statements and proof steps are sympy formulas. This module fixes everything needed to write
them down and read them back without ambiguity:

* **sorts** of symbols (``real``, ``pos``, ``nonneg``, ``int``, ``nat``, ``posint`` and the
  opaque sorts ``dist``, ``fun``, ``list``), and the sympy assumptions each one carries;
* the **vocabulary**: uninterpreted function symbols with a signature (``BetaDist``,
  ``Hellinger``, ``EpsD``, ``Count``, ...), predicates (``Adj``, ``AdjWithin``), and *defined*
  functions with a body (``g``, ``sigma``) — see ``VOCABULARY`` and ``DEFINITIONS``;
* the **densities** of the distribution families and the **likelihoods** of the observation
  models, used by the Bayes-rule proof step (``DENSITIES``, ``LIKELIHOODS``);
* a **safe parser** (``parse``) from the text that sympy prints (``show``) back to sympy, built
  on Python's ``ast`` with a whitelist: no ``eval``, decimal literals are read as exact
  rationals, and floating-point numbers are rejected everywhere.

The round trip ``parse(show(e), symbols) == e`` holds for every formula of the library (tested).

This module imports only sympy and the standard library: the independent certificate checker
uses it through ``lemmas.artifacts``.
"""
from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Dict, Iterable, Mapping, Sequence, Tuple

import sympy as sp
from sympy.core.function import AppliedUndef
from sympy.logic.boolalg import BooleanFunction

# --------------------------------------------------------------------------------------------
# sorts

#: sort name -> sympy assumptions of a symbol of that sort
SORT_ASSUMPTIONS: Dict[str, Dict[str, bool]] = {
    "real": {"real": True},
    "pos": {"positive": True},
    "nonneg": {"nonnegative": True},
    "int": {"integer": True},
    "nat": {"integer": True, "nonnegative": True},
    "posint": {"integer": True, "positive": True},
    "dist": {},
    "fun": {},
    "list": {},
}
SORTS: Tuple[str, ...] = tuple(SORT_ASSUMPTIONS)
NUMERIC_SORTS = frozenset({"real", "pos", "nonneg", "int", "nat", "posint"})
INTEGER_SORTS = frozenset({"int", "nat", "posint"})
OPAQUE_SORTS = frozenset({"dist", "fun", "list"})


class TermError(ValueError):
    """A formula that is not in the term language (unknown name, float, bad syntax...)."""


def symbol(name: str, sort: str) -> sp.Symbol:
    """The sympy symbol for ``name`` of the given sort (the same object for equal inputs)."""
    if sort not in SORT_ASSUMPTIONS:
        raise TermError(f"unknown sort {sort!r} (expected one of {', '.join(SORTS)})")
    if not name.isidentifier() or name in RESERVED:
        raise TermError(f"{name!r} cannot name a symbol")
    return sp.Symbol(name, **SORT_ASSUMPTIONS[sort])


def sort_of(sym: sp.Symbol) -> str:
    """The numeric sort of a symbol from its assumptions, or ``"opaque"`` if it has none."""
    if sym.is_integer:
        if sym.is_positive:
            return "posint"
        if sym.is_nonnegative:
            return "nat"
        return "int"
    if sym.is_positive:
        return "pos"
    if sym.is_nonnegative:
        return "nonneg"
    if sym.is_real:
        return "real"
    return "opaque"


def sort_constraint(term: sp.Expr, sort: str) -> Tuple[sp.Basic, ...]:
    """The relational constraints a term must meet to stand for a parameter of ``sort``.

    Integrality is not a relation; ``INTEGER_SORTS`` tells the caller to require it separately.
    """
    if sort == "pos" or sort == "posint":
        return (sp.Gt(term, 0),) if not (term.is_positive is True) else ()
    if sort == "nonneg" or sort == "nat":
        return (sp.Ge(term, 0),) if not (term.is_nonnegative is True) else ()
    return ()


# --------------------------------------------------------------------------------------------
# vocabulary

@dataclass(frozen=True)
class Signature:
    """The signature of a vocabulary symbol.

    ``args`` are ``"R"`` (a real number) or ``"O"`` (an object of an opaque sort); a final
    ``"R*"`` means any number (at least one) of real arguments. ``result`` is ``"R"``, ``"O"``
    or ``"B"`` (a predicate).
    """

    args: Tuple[str, ...]
    result: str
    doc: str

    def accepts(self, n: int) -> bool:
        if self.args and self.args[-1] == "R*":
            return n >= len(self.args)
        return n == len(self.args)

    def arg_kind(self, i: int) -> str:
        if self.args and self.args[-1] == "R*" and i >= len(self.args) - 1:
            return "R"
        return self.args[i]


_R, _O = "R", "O"

#: every uninterpreted symbol of the term language, with its meaning
VOCABULARY: Dict[str, Signature] = {
    # distributions (opaque objects)
    "BetaDist": Signature((_R, _R), _O, "Beta(a, b) on [0, 1]"),
    "DirichletDist": Signature(("R", "R*"), _O, "Dirichlet(a1, ..., ak) on the simplex"),
    "NormalDist": Signature((_R, _R), _O, "Normal(mean m, variance v)"),
    "BernoulliDist": Signature((_R,), _O, "Bernoulli(p) on {true, false}"),
    "CategoricalDist": Signature(("R", "R*"), _O, "Categorical(p1, ..., pk) on [k]"),
    "LaplaceDist": Signature((_R, _R), _O, "Laplace(centre x, scale b): density exp(-|y-x|/b)/(2b)"),
    "ExpMechDist": Signature((_R, _O), _O,
                             "output of expMech(eps, s): r with probability ∝ exp(eps s(r) / 2) "
                             "over a finite candidate set"),
    "HellingerMechDist": Signature((_R, _R, _O, _O), _O,
                                   "output of hellingerMech(eps, delta, prior, db) (seed poster)"),
    "HellingerMechPureDist": Signature((_R, _O, _O), _O,
                                       "output of hellingerMechPure(eps, prior, db)"),
    "Bind": Signature((_O, _O), _O, "bind m M: draw v from m, then from M(v)"),
    "Prod": Signature((_O, _O), _O, "product (independent pair) of two distributions"),
    "Apply": Signature((_O, _O), _O, "the output distribution of mechanism M on data l"),
    "Posterior": Signature((_O, _O), _O, "the posterior of a prior after a likelihood (Bayes' rule)"),
    # likelihoods (opaque objects)
    "BernoulliLik": Signature((_R,), _O, "one Bernoulli observation d in {0, 1}"),
    "BernoulliCounts": Signature((_R, _R), _O, "n Bernoulli observations, c of them true"),
    "CategoricalCounts": Signature(("R", "R*"), _O,
                                   "categorical observations with counts (c1, ..., ck)"),
    "NormalLik": Signature((_R, _R), _O, "one reading x of Normal(theta, kv), known variance kv"),
    "NormalLikSum": Signature((_R, _R, _R, _R), _O,
                              "n readings of Normal(theta, kv) with sum S and sum of squares Q"),
    # real-valued functionals of distributions
    "BC": Signature((_O, _O), _R, "Bhattacharyya coefficient: sum/integral of sqrt(p q)"),
    "HD": Signature((_O, _O), _R, "Table 1's HD: (1/2) sum (sqrt p - sqrt q)^2 = 1 - BC"),
    "Hellinger": Signature((_O, _O), _R, "Hellinger distance sqrt(1 - BC), a metric"),
    "SD": Signature((_O, _O), _R, "statistical (total variation) distance"),
    "KL": Signature((_O, _O), _R, "Kullback-Leibler divergence KL(p || q)"),
    "EpsD": Signature((_R, _O, _O), _R, "epsilon-distance: sum max(p - e^eps q, 0)"),
    "Mean": Signature((_O,), _R, "mean of a real distribution"),
    "Variance": Signature((_O,), _R, "variance of a real distribution"),
    # suprema over the argument of two kernels M1, M2 (for composition)
    "KSD": Signature((_O, _O), _R, "sup over v of SD(M1 v, M2 v)"),
    "KHD": Signature((_O, _O), _R, "sup over v of HD(M1 v, M2 v)"),
    "KKL": Signature((_O, _O), _R, "sup over v of KL(M1 v || M2 v)"),
    "KEpsD": Signature((_R, _O, _O), _R, "sup over v of EpsD(eps, M1 v, M2 v)"),
    "ScoreGap": Signature((_O, _O), _R,
                          "max over candidates r of |s1(r) - s2(r)| for two score vectors on the "
                          "same candidate set (+oo if the candidate sets differ)"),
    # lists
    "Length": Signature((_O,), _R, "length of a list"),
    "Count": Signature((_O,), _R, "number of true entries of a bool list"),
    "CountCat": Signature((_O, _R), _R, "number of entries equal to category i of a [k] list"),
    "ListSum": Signature((_O,), _R, "sum of a real list"),
    "Cons": Signature((_R, _O), _O, "x :: l (entries as numbers: bools as 0/1, categories as "
                      "integers)"),
    "HammingDist": Signature((_O, _O), _R, "number of positions where two lists differ"),
    "DiffAt1": Signature((_O, _O), _R,
                         "the entry of l1 at the position where l1, l2 differ "
                         "(bools as 0/1; any common position when they are equal)"),
    "DiffAt2": Signature((_O, _O), _R, "the entry of l2 at that same position"),
    "Nth": Signature((_O, _R), _O, "the entry at position i (from 0) of a list of objects"),
    "IndexOf": Signature((_O, _O), _R, "a position of x in the list l, when x is an entry of l"),
    "Posteriors": Signature((_O, _R), _O,
                            "the list posteriors (prior, n) of LANGUAGE.md: every posterior the "
                            "conjugate prior reaches after n observations"),
    "PosteriorCount": Signature((_O, _R, _R), _R,
                                "the count of category j (from 1) in the count vector of the "
                                "entry at position i of a list posteriors (dirichlet (...), n)"),
    # predicates
    "IsInteger": Signature((_R,), "B", "x is an integer (Z3: IsInt)"),
    "IsNil": Signature((_O,), "B", "l is the empty list []"),
    "AllInNat": Signature((_O,), "B", "every entry of the list l is >= 0 (a nat list)"),
    "AllInPos": Signature((_O,), "B", "every entry of the list l is > 0 (a real+ list)"),
    "AllInUnit": Signature((_O,), "B", "every entry of the list l is in [0, 1] (a [0,1] list)"),
    "AllInFin": Signature((_O, _R), "B", "every entry of the list l is in 0 <= x < k (a [k] list)"),
    "Member": Signature((_O, _O), "B", "x is an entry of the list l"),
    "Adj": Signature((_O, _O), "B", "same length, differ in at most one position"),
    "AdjWithin": Signature((_O, _O, _R), "B",
                           "same length, differ in at most one position, there by at most c"),
    "AllWithin": Signature((_O, _O, _R), "B",
                           "same length, and the entries at every position differ by at most c"),
    "ShiftLifting": Signature((_R, _O, _O, _R), "B",
                              "an (eps, 0)-lifting of {(y1, y2) | y2 = y1 + k} between mu1 and "
                              "mu2 (real distributions): ShiftLifting(eps, mu1, mu2, k)"),
    "PointwiseLiftings": Signature((_R, _O, _O, _O), "B",
                                   "for every value v of the countable projection D, an (eps, "
                                   "0)-lifting of {D(y1) = v => y1 = y2} between mu1 and mu2"),
    "CaseLiftings": Signature((_R, _R, _O, _O), "B",
                              "an (eps, delta)-lifting of R between mu1 and mu2 in each case of "
                              "a condition on the initial states (or the product lifting, where "
                              "every pair of the supports is in R)"),
    "CaseLifting": Signature((_R, _R, _O, _O), "B",
                             "an (eps, delta)-lifting of R between mu1 and mu2"),
    "DPAdjFold": Signature((_O, _R, _R, _R), "B",
                           "the k-fold adaptive composition of mechanism M is (eps, delta)-DP: "
                           "DPAdjFold(M, k, eps, delta)"),
    "DPAdj": Signature((_O, _R, _R), "B",
                       "mechanism M is (eps, delta)-DP: EpsD(eps, Apply(M,l1), Apply(M,l2)) "
                       "<= delta for all adjacent l1, l2"),
    # integrals with bound variables: SimplexIntegral(Lambda((x1, ..., xk), f)) is the
    # integral of f over the open simplex {x > 0, sum x = 1} (Lebesgue measure on the first
    # k - 1 coordinates); with k = 2 it is the integral over x in (0, 1) with y = 1 - x.
    "SimplexIntegral": Signature((_O,), _R, "integral over the probability simplex"),
}

#: defined functions: name -> (parameters as (name, sort), body text). Their bodies are part of
#: the trusted vocabulary: identity and enclosure steps expand them, SMT steps keep them opaque.
DEFINITIONS_TEXT: Dict[str, Tuple[Tuple[Tuple[str, str], ...], str]] = {
    "g": ((("x", "pos"),), "gamma(x + 1/2)/(gamma(x)*sqrt(x))"),
    "sigma": ((("eps", "pos"), ("delta", "pos")), "sqrt(2*log(5/(4*delta)))/eps"),
}

#: sympy functions and constructors the parser accepts by name
_BUILTINS = {
    "gamma": sp.gamma, "loggamma": sp.loggamma, "polygamma": sp.polygamma,
    "digamma": sp.digamma, "beta": sp.beta, "exp": sp.exp, "log": sp.log, "sqrt": sp.sqrt,
    "Abs": sp.Abs, "Max": sp.Max, "Min": sp.Min, "erf": sp.erf, "erfc": sp.erfc,
    "binomial": sp.binomial, "factorial": sp.factorial, "Piecewise": sp.Piecewise,
    "Integral": sp.Integral, "Derivative": sp.Derivative, "Lambda": sp.Lambda,
    "Tuple": sp.Tuple, "Eq": sp.Eq, "Ne": sp.Ne, "Lt": sp.Lt, "Le": sp.Le, "Gt": sp.Gt,
    "Ge": sp.Ge, "And": sp.And, "Or": sp.Or, "Not": sp.Not, "Implies": sp.Implies,
    "Rational": sp.Rational,
}
#: relations are read unevaluated, so that a claim like ``gamma(x) > 0`` keeps its form
_RELATIONS = frozenset({"Eq", "Ne", "Lt", "Le", "Gt", "Ge"})
_CONSTANTS = {"pi": sp.pi, "E": sp.E, "oo": sp.oo, "True": sp.true, "False": sp.false}

RESERVED = frozenset(_BUILTINS) | frozenset(_CONSTANTS) | frozenset(VOCABULARY) | frozenset(
    DEFINITIONS_TEXT) | {"I", "zoo", "nan"}

_FUNCTIONS: Dict[str, object] = {}


def _make_function(name: str, sig: Signature):
    if sig.result == "B":
        cls = type(name, (BooleanFunction,), {"eval": classmethod(lambda cls, *args: None)})
        return cls
    return sp.Function(name)


def function(name: str):
    """The sympy function object of a vocabulary or defined symbol."""
    try:
        return _FUNCTIONS[name]
    except KeyError:
        raise TermError(f"unknown function {name!r}") from None


def declare(name: str, args: Sequence[str], result: str, doc: str) -> object:
    """Add an uninterpreted symbol to the vocabulary (for new conjugate pairs, new mechanisms).

    Declaring an existing name with the same signature is a no-op; with a different one it fails.
    Returns the sympy function object.
    """
    sig = Signature(tuple(args), result, doc)
    if result not in ("R", "O", "B") or any(a not in ("R", "O", "R*") for a in sig.args):
        raise TermError(f"bad signature for {name!r}: {args} -> {result}")
    if name in VOCABULARY:
        old = VOCABULARY[name]
        if (old.args, old.result) != (sig.args, sig.result):
            raise TermError(f"{name!r} is already declared with another signature")
        return _FUNCTIONS[name]
    if not name.isidentifier() or name in _BUILTINS or name in _CONSTANTS or name in DEFINITIONS_TEXT:
        raise TermError(f"{name!r} cannot be declared")
    VOCABULARY[name] = sig
    _FUNCTIONS[name] = _make_function(name, sig)
    global RESERVED
    RESERVED = RESERVED | {name}
    return _FUNCTIONS[name]


for _name, _sig in VOCABULARY.items():
    _FUNCTIONS[_name] = _make_function(_name, _sig)
#: the built-in vocabulary; anything else was added by ``declare`` (and must travel with artifacts)
CORE_NAMES = frozenset(VOCABULARY)
for _name in DEFINITIONS_TEXT:
    _FUNCTIONS[_name] = sp.Function(_name)

# convenient handles
BetaDist = _FUNCTIONS["BetaDist"]
DirichletDist = _FUNCTIONS["DirichletDist"]
NormalDist = _FUNCTIONS["NormalDist"]
LaplaceDist = _FUNCTIONS["LaplaceDist"]
ExpMechDist = _FUNCTIONS["ExpMechDist"]
Bind = _FUNCTIONS["Bind"]
Prod = _FUNCTIONS["Prod"]
Apply = _FUNCTIONS["Apply"]
Posterior = _FUNCTIONS["Posterior"]
BC = _FUNCTIONS["BC"]
HD = _FUNCTIONS["HD"]
Hellinger = _FUNCTIONS["Hellinger"]
SD = _FUNCTIONS["SD"]
KL = _FUNCTIONS["KL"]
EpsD = _FUNCTIONS["EpsD"]
SimplexIntegral = _FUNCTIONS["SimplexIntegral"]
g = _FUNCTIONS["g"]
sigma = _FUNCTIONS["sigma"]


# --------------------------------------------------------------------------------------------
# parsing and printing

def show(expr: sp.Basic) -> str:
    """The canonical text of a formula (sympy's ``sstr``); ``parse`` reads it back."""
    if any(isinstance(a, sp.Float) for a in sp.preorder_traversal(expr)):
        raise TermError(f"floating-point number in {expr}: use exact rationals")
    return sp.sstr(expr)


def parse(text: str, symbols: Mapping[str, sp.Symbol]) -> sp.Basic:
    """Parse ``text`` (as printed by ``show``) with the given symbols.

    Accepted: integer and decimal literals (decimals are exact rationals: ``0.05`` is 1/20),
    ``+ - * / **``, comparisons (one operator each), ``& | ~`` for and/or/not, calls of the
    whitelisted sympy functions, of vocabulary and defined symbols, and tuples. Anything else
    (attributes, keywords, strings, unknown names) raises ``TermError``.
    """
    if not isinstance(text, str):
        raise TermError(f"expected formula text, got {type(text).__name__}")
    try:
        tree = ast.parse(text.strip(), mode="eval")
    except SyntaxError as exc:
        raise TermError(f"syntax error in {text!r}: {exc.msg}") from None
    return _Reader(text, symbols).read(tree.body)


class _Reader:
    def __init__(self, text: str, symbols: Mapping[str, sp.Symbol]):
        self.text = text
        self.symbols = symbols

    def fail(self, node, what: str):
        raise TermError(f"{what} in {self.text!r}")

    def read(self, node):
        method = getattr(self, "r_" + type(node).__name__, None)
        if method is None:
            self.fail(node, f"unsupported syntax {type(node).__name__}")
        return method(node)

    def r_Constant(self, node):
        v = node.value
        if v is True or v is False:
            return sp.true if v else sp.false
        if v is None or isinstance(v, (str, bytes, complex)):
            self.fail(node, f"unsupported literal {v!r}")
        if isinstance(v, int):
            return sp.Integer(v)
        if isinstance(v, float):
            literal = ast.get_source_segment(self.text.strip(), node)
            if literal is None or any(c in literal for c in "xXjJ_"):
                self.fail(node, "unreadable number")
            return sp.Rational(literal)  # exact: "0.05" -> 1/20
        self.fail(node, f"unsupported literal {v!r}")

    def r_Name(self, node):
        name = node.id
        if name in self.symbols:
            return self.symbols[name]
        if name in _CONSTANTS:
            return _CONSTANTS[name]
        self.fail(node, f"unknown name {name!r}")

    def r_Tuple(self, node):
        return sp.Tuple(*[self.read(e) for e in node.elts])

    def r_UnaryOp(self, node):
        v = self.read(node.operand)
        if isinstance(node.op, ast.USub):
            return -v
        if isinstance(node.op, ast.UAdd):
            return v
        if isinstance(node.op, (ast.Invert, ast.Not)):
            return sp.Not(v)
        self.fail(node, "unsupported unary operator")

    def r_BinOp(self, node):
        a, b = self.read(node.left), self.read(node.right)
        op = node.op
        if isinstance(op, ast.Add):
            return a + b
        if isinstance(op, ast.Sub):
            return a - b
        if isinstance(op, ast.Mult):
            return a * b
        if isinstance(op, ast.Div):
            return a / b
        if isinstance(op, ast.Pow):
            if isinstance(b, sp.Integer) and abs(int(b)) > 10000:
                self.fail(node, "exponent too large")
            return a ** b
        if isinstance(op, ast.BitAnd):
            return sp.And(a, b)
        if isinstance(op, ast.BitOr):
            return sp.Or(a, b)
        self.fail(node, "unsupported operator")

    def r_BoolOp(self, node):
        vals = [self.read(v) for v in node.values]
        return sp.And(*vals) if isinstance(node.op, ast.And) else sp.Or(*vals)

    def r_Compare(self, node):
        if len(node.ops) != 1:
            self.fail(node, "chained comparison")
        a, b = self.read(node.left), self.read(node.comparators[0])
        ops = {ast.Lt: sp.Lt, ast.LtE: sp.Le, ast.Gt: sp.Gt, ast.GtE: sp.Ge, ast.Eq: sp.Eq,
               ast.NotEq: sp.Ne}
        for k, f in ops.items():
            if isinstance(node.ops[0], k):
                return f(a, b, evaluate=False)
        self.fail(node, "unsupported comparison")

    def r_Call(self, node):
        if not isinstance(node.func, ast.Name) or node.keywords:
            self.fail(node, "unsupported call")
        name = node.func.id
        args = [self.read(a) for a in node.args]
        if name in _BUILTINS:
            if name == "Rational":
                if len(args) != 2 or not all(isinstance(a, sp.Integer) for a in args):
                    self.fail(node, "Rational takes two integers")
            try:
                if name in _RELATIONS:
                    if len(args) != 2:
                        self.fail(node, f"{name} takes two arguments")
                    return _BUILTINS[name](*args, evaluate=False)
                return _BUILTINS[name](*args)
            except (TypeError, ValueError) as exc:
                self.fail(node, f"bad arguments to {name}: {exc}")
        if name in VOCABULARY:
            if not VOCABULARY[name].accepts(len(args)):
                self.fail(node, f"{name} does not take {len(args)} arguments")
            return _FUNCTIONS[name](*args)
        if name in DEFINITIONS_TEXT:
            if len(args) != len(DEFINITIONS_TEXT[name][0]):
                self.fail(node, f"{name} takes {len(DEFINITIONS_TEXT[name][0])} arguments")
            return _FUNCTIONS[name](*args)
        self.fail(node, f"unknown function {name!r}")


def bound_symbols(expr: sp.Basic) -> set:
    """Symbols bound somewhere in ``expr`` (by Lambda, Integral, Derivative, Sum)."""
    out = set()
    for e in sp.preorder_traversal(expr):
        if isinstance(e, sp.Lambda):
            out |= set(e.variables)
        elif isinstance(e, (sp.Integral, sp.Sum)):
            out |= {lim[0] for lim in e.limits}
        elif isinstance(e, sp.Derivative):
            out |= set(e.variables)
    return out


def substitute(expr: sp.Basic, mapping) -> sp.Basic:
    """Simultaneous substitution of terms for symbols, respecting bound variables.

    Uses the fast structural ``xreplace`` unless a symbol to replace is bound inside ``expr``.
    """
    if not mapping:
        return expr
    if set(mapping) & bound_symbols(expr):
        return expr.subs(mapping, simultaneous=True)
    return expr.xreplace(dict(mapping))


def symbols_of(decls: Iterable[Tuple[str, str]]) -> Dict[str, sp.Symbol]:
    """Symbol table from ``(name, sort)`` pairs; a name declared twice must keep its sort."""
    table: Dict[str, sp.Symbol] = {}
    sorts: Dict[str, str] = {}
    for name, sort in decls:
        if name in sorts and sorts[name] != sort:
            raise TermError(f"symbol {name!r} declared as {sorts[name]} and as {sort}")
        sorts[name] = sort
        table[name] = symbol(name, sort)
    return table


# --------------------------------------------------------------------------------------------
# defined functions

def _definitions() -> Dict[str, Tuple[Tuple[sp.Symbol, ...], sp.Expr]]:
    out = {}
    for name, (params, body) in DEFINITIONS_TEXT.items():
        table = symbols_of(params)
        out[name] = (tuple(table[p] for p, _ in params), parse(body, table))
    return out


DEFINITIONS = _definitions()


def expand_definitions(expr: sp.Basic) -> sp.Basic:
    """Replace every application of a defined function by its body."""
    def is_defined(e):
        return isinstance(e, AppliedUndef) and e.func.__name__ in DEFINITIONS

    def unfold(e):
        params, body = DEFINITIONS[e.func.__name__]
        return substitute(body, dict(zip(params, e.args)))

    prev = None
    while prev != expr:
        prev = expr
        expr = expr.replace(is_defined, unfold)
    return expr


def vocabulary_names(expr: sp.Basic) -> set:
    """Names of the vocabulary and defined symbols occurring in ``expr``."""
    names = set()
    for e in sp.preorder_traversal(expr):
        if isinstance(e, (AppliedUndef, BooleanFunction)):
            n = e.func.__name__ if isinstance(e, AppliedUndef) else type(e).__name__
            if n in VOCABULARY or n in DEFINITIONS_TEXT:
                names.add(n)
    return names


# --------------------------------------------------------------------------------------------
# densities and likelihoods (trusted tables used by the Bayes-rule step)

@dataclass(frozen=True)
class Density:
    """The density of a family on its domain, in bound variables ``variables``.

    ``domain`` is ``"simplex"`` (variables positive, summing to 1; Lebesgue measure on all
    but the last) or ``"line"`` (one real variable). The body is written with gamma functions
    (not ``beta``) so that sympy can see that it is positive.
    """

    params: Tuple[Tuple[str, str], ...]
    variables: Tuple[str, ...]
    domain: str
    body: str


def simplex_vars(k: int) -> Tuple[str, ...]:
    return ("x", "y") if k == 2 else tuple(f"x{i}" for i in range(1, k + 1))


def beta_density() -> Density:
    return Density((("a", "pos"), ("b", "pos")), ("x", "y"), "simplex",
                   "gamma(a + b)/(gamma(a)*gamma(b))*x**(a - 1)*y**(b - 1)")


def dirichlet_density(k: int) -> Density:
    xs = simplex_vars(k)
    ps = tuple((f"a{i}", "pos") for i in range(1, k + 1))
    norm = f"gamma({' + '.join(p for p, _ in ps)})/({'*'.join(f'gamma({p})' for p, _ in ps)})"
    body = norm + "*" + "*".join(f"{x}**({p} - 1)" for x, (p, _) in zip(xs, ps))
    return Density(ps, xs, "simplex", body)


def normal_density() -> Density:
    return Density((("m", "real"), ("v", "pos")), ("t",), "line",
                   "exp(-(t - m)**2/(2*v))/sqrt(2*pi*v)")


def density_of(dist: sp.Basic) -> Tuple[Density, Tuple[sp.Basic, ...]]:
    """The density entry and the arguments of a distribution term such as ``BetaDist(a, b)``."""
    if not isinstance(dist, AppliedUndef):
        raise TermError(f"{dist} is not a distribution term")
    name = dist.func.__name__
    if name == "BetaDist":
        return beta_density(), dist.args
    if name == "DirichletDist":
        return dirichlet_density(len(dist.args)), dist.args
    if name == "NormalDist":
        return normal_density(), dist.args
    if name in EXTRA_DENSITIES:
        dens = EXTRA_DENSITIES[name]
        if len(dens.params) != len(dist.args):
            raise TermError(f"{name} takes {len(dens.params)} parameters")
        return dens, dist.args
    raise TermError(f"no density known for {name}")


def likelihood_of(lik: sp.Basic, variables: Tuple[str, ...]) -> Tuple[str, Dict[str, sp.Basic]]:
    """The likelihood body (text in ``variables`` and ``P0, P1, ...``) of a likelihood term.

    Bernoulli observations see the bias x (y = 1 - x); categorical ones the simplex point;
    normal readings the mean t. Returns the body text and the binding of ``P0, P1, ...`` to
    the term's arguments.
    """
    if not isinstance(lik, AppliedUndef):
        raise TermError(f"{lik} is not a likelihood term")
    name, args = lik.func.__name__, lik.args
    binding = {f"P{i}": a for i, a in enumerate(args)}
    if name == "BernoulliLik" and variables == ("x", "y"):
        return "x**P0*y**(1 - P0)", binding
    if name == "BernoulliCounts" and variables == ("x", "y"):
        return "x**P1*y**(P0 - P1)", binding
    if name == "CategoricalCounts" and len(variables) == len(args):
        return "*".join(f"{v}**P{i}" for i, v in enumerate(variables)), binding
    if name == "NormalLik" and variables == ("t",):
        return "exp(-(P1 - t)**2/(2*P0))/sqrt(2*pi*P0)", binding
    if name == "NormalLikSum" and variables == ("t",):
        # n readings x_i, S = sum x_i, Q = sum x_i^2:
        # prod exp(-(x_i - t)^2/(2 kv)) / sqrt(2 pi kv) = exp(-(Q - 2 t S + n t^2)/(2 kv)) / (2 pi kv)^(n/2)
        return "exp(-(P3 - 2*t*P2 + P1*t**2)/(2*P0))/(2*pi*P0)**(P1/2)", binding
    if name in EXTRA_LIKELIHOODS:
        lik_def = EXTRA_LIKELIHOODS[name]
        if lik_def.variables != tuple(variables) or len(lik_def.params) != len(args):
            raise TermError(f"likelihood {name} does not fit variables {variables}")
        return lik_def.body, {p: a for (p, _), a in zip(lik_def.params, args)}
    raise TermError(f"no likelihood known for {name} over {variables}")


@dataclass(frozen=True)
class LikelihoodDef:
    """A likelihood of observations, as a function of the model's variables."""

    params: Tuple[Tuple[str, str], ...]
    variables: Tuple[str, ...]
    body: str


#: extension points for new conjugate pairs (see ``lemmas.extend.add_conjugate_pair``)
EXTRA_DENSITIES: Dict[str, Density] = {}
EXTRA_LIKELIHOODS: Dict[str, LikelihoodDef] = {}
_DOMAINS = ("simplex", "line", "halfline")


def register_family(name: str, density: Density, doc: str) -> object:
    """Declare a new distribution family ``name(params...)`` with its density (trusted).

    Registering the same definition again is a no-op; a different one fails.
    """
    if density.domain not in _DOMAINS:
        raise TermError(f"domain must be one of {_DOMAINS}")
    if set(p for p, _ in density.params) & set(density.variables):
        raise TermError("parameter and variable names must differ")
    _check_body(density.body, density.params, density.variables, density.domain)
    if name in EXTRA_DENSITIES and EXTRA_DENSITIES[name] != density:
        raise TermError(f"family {name} is already defined with another density")
    fn = declare(name, ["R"] * len(density.params), "O", doc)
    EXTRA_DENSITIES[name] = density
    return fn


def register_likelihood(name: str, lik: LikelihoodDef, doc: str) -> object:
    """Declare a new likelihood term ``name(params...)`` with its body (trusted)."""
    if set(p for p, _ in lik.params) & set(lik.variables):
        raise TermError("parameter and variable names must differ")
    _check_body(lik.body, lik.params, lik.variables, "line")
    if name in EXTRA_LIKELIHOODS and EXTRA_LIKELIHOODS[name] != lik:
        raise TermError(f"likelihood {name} is already defined with another body")
    fn = declare(name, ["R"] * len(lik.params), "O", doc)
    EXTRA_LIKELIHOODS[name] = lik
    return fn


def _check_body(body: str, params, variables, domain: str) -> None:
    vs = "real" if domain == "line" else "pos"
    parse(body, symbols_of(list(params) + [(v, vs) for v in variables]))
