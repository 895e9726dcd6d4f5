"""Abstract syntax of the PrivInfer surface language (../shared/LANGUAGE.md).

Every node is a frozen record (``@_record``: ``obligations.records``, dataclass semantics). Every node
carries a ``span`` that is excluded from equality, so two trees compare equal when they have
the same structure whatever their positions: the pretty-printer round trip
(``parse(pretty(ast)) == ast``) relies on it.

Four sorts of syntax live here:

* expressions (``Expr``), including the run-indexed variables ``x<1>`` / ``x<2>`` that are
  only legal inside assertions and monad indices;
* patterns (``Pattern``) for ``fun``, ``let`` and ``mlet`` binders;
* simple types (``SimpleType``) as written in annotations;
* relational types (``RType``), divergences (``Divergence``) and assertions, as written in
  ``val`` declarations.

The module has no behaviour beyond construction and generic traversal (``children``).
"""
from __future__ import annotations

from fractions import Fraction
from typing import Any, Callable, Iterator, Optional, Tuple, Union

from obligations.records import field, record


#: Syntax classes: frozen records (``obligations.records``) whose hash is computed once per
#: node, since trees are deep and used as dictionary keys.
_record = record(cache_hash=True)


def record_fields(node: Any) -> Tuple[str, ...]:
    """The field names of a syntax record (class or instance), in order; a node class
    written as a dataclass (by an extension) works too."""
    found = getattr(node, "__record_fields__", None)
    if found is None:
        import dataclasses
        found = dataclasses.fields(node)
    return tuple(f.name for f in found)


def replace_fields(node: Any, **changes: Any) -> Any:
    """A copy of the syntax record ``node`` with some fields changed."""
    values = {n: getattr(node, n) for n in record_fields(node)}
    values.update(changes)
    return type(node)(**values)


@_record
class Span:
    """A source region: 1-based line and column of the first and one-past-last character."""

    file: str
    line: int
    col: int
    end_line: int
    end_col: int

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.col}"

    def to(self, other: "Span") -> "Span":
        """The span from the start of ``self`` to the end of ``other``."""
        return Span(self.file, self.line, self.col, other.end_line, other.end_col)


NOWHERE = Span("<builtin>", 0, 0, 0, 0)


def _span() -> Span:
    return field(default=NOWHERE, compare=False, repr=False)


class Node:
    """Base class of every syntax node."""

    span: Span


def descendants(node: Node) -> Iterator[Node]:
    """``node`` and every node below it (depth first; iterative, so deep trees are fine)."""
    stack = [node]
    while stack:
        n = stack.pop()
        yield n
        stack.extend(children(n))


def children(node: Node) -> Iterator[Node]:
    """The direct sub-nodes of ``node``, in field order (tuples are flattened)."""
    for name in record_fields(node):
        if name == "span":
            continue
        value = getattr(node, name)
        if isinstance(value, Node):
            yield value
        elif isinstance(value, tuple):
            for item in value:
                if isinstance(item, Node):
                    yield item


# --------------------------------------------------------------------------------------
# Simple types
# --------------------------------------------------------------------------------------

#: Base type names as written; ranges of ``real`` and ``int`` included.
BASE_TYPES = ("unit", "bool", "nat", "int", "real", "real+", "real+inf", "[0,1]")


class SimpleType(Node):
    pass


@_record
class TBase(SimpleType):
    """``unit``, ``bool``, ``nat``, ``int``, ``real``, ``real+``, ``real+inf`` or ``[0,1]``."""

    name: str
    span: Span = _span()


@_record
class TFin(SimpleType):
    """``[k]``: the finite type {0, ..., k-1}, k >= 2."""

    k: int
    span: Span = _span()


@_record
class TSimplex(SimpleType):
    """``[0,1]^k``: a point of the probability simplex with k >= 2 components."""

    k: int
    span: Span = _span()


@_record
class TList(SimpleType):
    elem: SimpleType
    span: Span = _span()


@_record
class TTuple(SimpleType):
    items: Tuple[SimpleType, ...]
    span: Span = _span()


@_record
class TArrow(SimpleType):
    dom: SimpleType
    cod: SimpleType
    span: Span = _span()


@_record
class TMonad(SimpleType):
    """``M[T]``: actual distributions."""

    elem: SimpleType
    span: Span = _span()


@_record
class TDist(SimpleType):
    """``D[T]``: symbolic distributions (the result of ``infer``)."""

    elem: SimpleType
    span: Span = _span()


def finite_value_of(value: Any, t: SimpleType) -> bool:
    """Whether ``value`` (a ``bool``, an ``int``, ``()`` or a tuple of them: an outcome of a
    finite program) is a value of the finite simple type ``t`` (``bool``, ``unit``, ``[k]``,
    tuples of them). Simple typing erases ranges, so a program typed ``M[[2]]`` may return 2:
    ExactFinite must not certify outcomes its claim's type excludes."""
    if isinstance(t, TTuple):
        return (isinstance(value, tuple) and len(value) == len(t.items)
                and all(finite_value_of(v, i) for v, i in zip(value, t.items)))
    if isinstance(t, TFin):
        return isinstance(value, int) and not isinstance(value, bool) and 0 <= value < t.k
    if isinstance(t, TBase) and t.name == "bool":
        return isinstance(value, bool)
    if isinstance(t, TBase) and t.name == "unit":
        return value == ()
    return False


# --------------------------------------------------------------------------------------
# Patterns
# --------------------------------------------------------------------------------------


class Pattern(Node):
    pass


@_record
class PVar(Pattern):
    """A name, optionally annotated: ``x`` or ``(x : real)``."""

    name: str
    annot: Optional[SimpleType] = None
    span: Span = _span()


@_record
class PWild(Pattern):
    """``_``, optionally annotated."""

    annot: Optional[SimpleType] = None
    span: Span = _span()


@_record
class PUnit(Pattern):
    """``()``."""

    span: Span = _span()


@_record
class PTuple(Pattern):
    """``(p1, ..., pn)``, n >= 2."""

    items: Tuple[Pattern, ...]
    span: Span = _span()


# --------------------------------------------------------------------------------------
# Expressions
# --------------------------------------------------------------------------------------


class Expr(Node):
    pass


@_record
class Var(Expr):
    name: str
    span: Span = _span()


@_record
class RunVar(Expr):
    """``x<1>`` or ``x<2>`` (also written ``x◁`` / ``x▷``): the value of ``x`` in one run.

    Legal only inside assertions and monad indices of relational types.
    """

    name: str
    run: int  # 1 (left) or 2 (right)
    span: Span = _span()


@_record
class UnitLit(Expr):
    span: Span = _span()


@_record
class BoolLit(Expr):
    value: bool
    span: Span = _span()


@_record
class IntLit(Expr):
    value: int
    span: Span = _span()


@_record
class RealLit(Expr):
    """A literal with a decimal point or exponent. ``value`` is exact (``1e-8`` is 1/10^8)."""

    value: Fraction
    text: str = field(default="", compare=False)
    span: Span = _span()


@_record
class ListLit(Expr):
    items: Tuple[Expr, ...]
    span: Span = _span()


@_record
class TupleLit(Expr):
    items: Tuple[Expr, ...]  # at least two
    span: Span = _span()


@_record
class Annotation:
    """An attribute of an application, ``e [@name payload]`` (an extension of LANGUAGE.md):
    ``[@shift s]`` on a mechanism call gives the coupling of its two runs' noise (run 2's noise
    is run 1's plus ``s``; docs/language.md). It is not a ``Node``: generic walks (free
    variables, the evaluator) never see the payload, which is a proof hint, not code; the
    resolver and the rules read it explicitly."""

    name: str
    value: "Expr"
    span: Span = _span()


@_record
class App(Expr):
    fn: Expr
    arg: Expr
    span: Span = _span()
    #: ``[@name payload]`` written after the application (None: no annotation)
    annotation: Optional[Annotation] = None


@_record
class Fun(Expr):
    params: Tuple[Pattern, ...]  # at least one
    body: Expr
    span: Span = _span()


@_record
class Let(Expr):
    pattern: Pattern
    value: Expr
    body: Expr
    span: Span = _span()


@_record
class LetRec(Expr):
    """``let rec name p1 ... pn = value in body`` (n >= 1)."""

    name: str
    params: Tuple[Pattern, ...]
    value: Expr
    body: Expr
    span: Span = _span()


@_record
class If(Expr):
    cond: Expr
    then: Expr
    else_: Expr
    span: Span = _span()


@_record
class Match(Expr):
    """``match scrutinee with | [] -> nil_body | head :: tail -> cons_body``.

    ``head`` / ``tail`` are binder names; ``"_"`` binds nothing.
    """

    scrutinee: Expr
    nil_body: Expr
    head: str
    tail: str
    cons_body: Expr
    span: Span = _span()


@_record
class Cons(Expr):
    head: Expr
    tail: Expr
    span: Span = _span()


#: Binary operators, as written.
BINARY_OPS = ("+", "-", "*", "/", "=", "<>", "<", "<=", ">", ">=", "&&", "||")
ARITH_OPS = ("+", "-", "*", "/")
COMPARE_OPS = ("=", "<>", "<", "<=", ">", ">=")
LOGIC_OPS = ("&&", "||")


@_record
class BinOp(Expr):
    op: str
    left: Expr
    right: Expr
    span: Span = _span()


@_record
class UnOp(Expr):
    """``-e`` (op ``"-"``) or ``not e`` (op ``"not"``)."""

    op: str
    operand: Expr
    span: Span = _span()


@_record
class Return(Expr):
    value: Expr
    span: Span = _span()


@_record
class MLet(Expr):
    pattern: Pattern
    value: Expr
    body: Expr
    span: Span = _span()


@_record
class Observe(Expr):
    """``observe likelihood prior``: condition ``prior : M[T]`` on ``likelihood : T -> M[bool]``.

    Written ``observe (fun x -> e) prior``; the form ``observe x => e in prior`` is parsed to
    the same node with ``likelihood = Fun((PVar x,), e)`` and ``arrow_form`` set (which only
    tells the printer which form was written). ``mlet x = m in observe f x`` (``x`` not in
    ``f``) is parsed to ``observe f m`` with ``drawn = x`` (``parser.observe_drawn``).
    """

    likelihood: Expr
    prior: Expr
    arrow_form: bool = field(default=False, compare=False)
    span: Span = _span()
    drawn: Optional[str] = field(default=None, compare=False)


@_record
class Infer(Expr):
    value: Expr
    span: Span = _span()


@_record
class Ran(Expr):
    value: Expr
    span: Span = _span()


# --------------------------------------------------------------------------------------
# Assertions (only inside relational types)
# --------------------------------------------------------------------------------------
# An assertion is either an ``Expr`` of type bool (possibly using RunVar) or one of the
# connective nodes below.


@_record
class SameRuns(Expr):
    """The ``=`` shorthand of ``{x :: T | =}``: the refined value is equal in both runs."""

    span: Span = _span()


@_record
class Conj(Expr):
    """``A /\\ B``."""

    left: Expr
    right: Expr
    span: Span = _span()


@_record
class Disj(Expr):
    """``A \\/ B``."""

    left: Expr
    right: Expr
    span: Span = _span()


@_record
class Neg(Expr):
    """``~ A``."""

    operand: Expr
    span: Span = _span()


@_record
class Implies(Expr):
    """``A => B`` (right associative)."""

    left: Expr
    right: Expr
    span: Span = _span()


@_record
class Quant(Expr):
    """``forall x : T. A`` (kind ``"forall"``) or ``exists x : T. A`` (kind ``"exists"``)."""

    kind: str
    var: str
    type: SimpleType
    body: Expr
    span: Span = _span()


# --------------------------------------------------------------------------------------
# Relational types and divergences
# --------------------------------------------------------------------------------------


@_record
class Divergence(Node):
    """The index F of ``M[F, e]``: ``DP(eps)``, ``SD``, ``HD`` or ``KL``."""

    kind: str  # "DP" | "SD" | "HD" | "KL"
    eps: Optional[Expr] = None  # only for DP
    span: Span = _span()


@_record
class DivBound(Expr):
    """The assertion ``Delta[F] (e1, e2) <= bound``."""

    div: Divergence
    left: Expr
    right: Expr
    bound: Expr
    span: Span = _span()


class RType(Node):
    pass


@_record
class RSimple(RType):
    """A simple type used as a relational type: nothing is assumed of the two runs."""

    type: SimpleType
    span: Span = _span()


@_record
class RRefine(RType):
    """``{var :: base | assertion}``; ``{x :: T | =}`` has assertion ``SameRuns()``."""

    var: str
    base: RType
    assertion: Expr
    span: Span = _span()


@_record
class RArrow(RType):
    """``dom -> cod``; when ``dom`` is a refinement its variable is bound in ``cod``."""

    dom: RType
    cod: RType
    span: Span = _span()


@_record
class RMonad(RType):
    """``M[F, delta] body``; ``delta`` is ``None`` when written ``M[F] body`` (delta = 0)."""

    div: Divergence
    delta: Optional[Expr]
    body: RType
    span: Span = _span()


# --------------------------------------------------------------------------------------
# Declarations and programs
# --------------------------------------------------------------------------------------


class Decl(Node):
    name: str


@_record
class LetDecl(Decl):
    """``let [rec] name p1 ... pn = body`` (n may be 0 for a value)."""

    name: str
    params: Tuple[Pattern, ...]
    body: Expr
    recursive: bool = False
    span: Span = _span()


@_record
class ValDecl(Decl):
    """``val name :: rtype``: a verification goal."""

    name: str
    rtype: RType
    span: Span = _span()


@_record
class Program(Node):
    decls: Tuple[Decl, ...]
    file: str = field(default="<input>", compare=False)
    source: str = field(default="", compare=False, repr=False)
    span: Span = _span()
    #: set on the resolved core (``verifier.language.resolve``): unique binders, no shadowing
    resolved: bool = field(default=False, compare=False, repr=False)

    def lets(self) -> Tuple[LetDecl, ...]:
        return tuple(d for d in self.decls if isinstance(d, LetDecl))

    def vals(self) -> Tuple[ValDecl, ...]:
        return tuple(d for d in self.decls if isinstance(d, ValDecl))

    def find_let(self, name: str) -> Optional[LetDecl]:
        """The last ``let`` of ``name`` (later definitions shadow earlier ones)."""
        found = None
        for d in self.decls:
            if isinstance(d, LetDecl) and d.name == name:
                found = d
        return found

    def find_val(self, name: str) -> Optional[ValDecl]:
        for d in self.decls:
            if isinstance(d, ValDecl) and d.name == name:
                return d
        return None


AnyNode = Union[Expr, Pattern, SimpleType, RType, Divergence, Decl, Program]


def pattern_names(p: Pattern) -> Tuple[str, ...]:
    """Names bound by a pattern, left to right."""
    if isinstance(p, PVar):
        return (p.name,)
    if isinstance(p, PTuple):
        out: Tuple[str, ...] = ()
        for item in p.items:
            out += pattern_names(item)
        return out
    return ()


def transform(node: Node, fn: Callable[[Node], Optional[Node]]) -> Node:
    """``node`` rebuilt with every sub-node ``n`` for which ``fn(n)`` is not None replaced by
    ``fn(n)`` (outermost first: a replaced node is not visited further)."""
    replacement = fn(node)
    if replacement is not None:
        return replacement
    changes = {}
    for name in record_fields(node):
        value = getattr(node, name)
        if isinstance(value, Node):
            new = transform(value, fn)
            if new is not value:
                changes[name] = new
        elif isinstance(value, tuple) and any(isinstance(v, Node) for v in value):
            new_items = tuple(transform(v, fn) if isinstance(v, Node) else v for v in value)
            if any(a is not b for a, b in zip(new_items, value)):
                changes[name] = new_items
    return replace_fields(node, **changes) if changes else node
