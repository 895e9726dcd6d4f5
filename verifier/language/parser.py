"""The parser of the PrivInfer surface language (shared/LANGUAGE.md).

A hand-written recursive-descent parser with precedence climbing. Public entry points:

* ``parse_program(text, filename)`` / ``parse_file(path)``: a whole file;
* ``parse_expr``, ``parse_assertion``, ``parse_simple_type``, ``parse_rtype``: one phrase
  filling the whole input.

Every failure is a ``PrivInferError`` whose ``source`` is the input text (P002-P004 from the
lexer, P005 unexpected token, P006 unexpected end of input, P007 nesting too deep, P008 invalid
type, P009 invalid pattern, P010 run-indexed variable outside an assertion, P011 invalid
relational type, P012 invalid annotation).

Expression precedence, loosest first (``EXPR_PRECEDENCE`` gives the binary levels):

====  ==========================================================  =============
 0    ``let``, ``let rec``, ``mlet``, ``fun``, ``if``, ``match``,   extend as far
      ``observe x => e in e``, ``forall``/``exists`` (assertions)   right as they can
 1    ``=>`` (assertions)                                           right
 2    ``\\/`` (assertions)                                          right
 3    ``/\\`` (assertions)                                          right
 4    prefix ``~``; ``Delta[F] (e1, e2) <= e`` (assertions)
 5    ``||``                                                        right
 6    ``&&``                                                        right
 7    ``= <> < <= > >=``                                            left
 8    ``::``                                                        right
 9    ``+ -``                                                       left
10    ``* /``                                                       left
11    prefix ``-``, ``not``, ``return``, ``infer``, ``ran``
12    application; ``observe ATOM ATOM``
13    atoms
====  ==========================================================  =============

A construct of level 0 may stand as the last operand of any operator or prefix operator
(``1 + if c then 2 else 3``, ``return let x = 1 in x``) but never as an application
argument. The assertion levels 1-4 exist only inside ``{x :: T | A}``, in ``DP(...)`` and
in the delta of ``M[F, delta]`` ("assertion mode"), which is also where run-indexed
variables ``x<1>`` / ``x<2>`` are legal; the bodies of level-0 constructs and bracketed
sub-expressions there are assertions too.

Nesting deeper than ``MAX_DEPTH`` (brackets, prefix operators, level-0 constructs, type
constructors) is refused with P007 at the offending token; long flat chains (lists,
applications, ``a + b + ...``, ``a :: b :: ...``) are parsed iteratively and cost no depth.
The parser raises the interpreter's recursion limit while it runs, so it never fails with
``RecursionError``.
"""
from __future__ import annotations

import os
import sys
from contextlib import contextmanager
from typing import Callable, Iterator, List, Optional, Tuple, TypeVar

from verifier.errors import PrivInferError, error
from verifier.language.ast import (
    Annotation, App, BinOp, BoolLit, Cons, Conj, Decl, Disj, DivBound, Divergence, Expr, Fun, If, Implies,
    Infer, IntLit, Let, LetDecl, LetRec, ListLit, Match, MLet, Neg, Observe, Pattern, PTuple,
    PUnit, PVar, PWild, Program, Quant, Ran, RArrow, RealLit, Return, RMonad, RRefine, RSimple,
    RType, RunVar, SameRuns, SimpleType, Span, TArrow, TBase, TDist, TFin, TList, TMonad,
    TSimplex, TTuple, TupleLit, UnitLit, UnOp, ValDecl, Var, pattern_names, replace_fields,
)
from verifier.language.lexer import KEYWORDS, Token, tokenize

#: the annotations an application may carry (``app [@name payload]``, docs/language.md)
ANNOTATIONS = frozenset({"shift"})
from verifier.language.source import read_source

#: Deepest accepted nesting of brackets and nested constructs.
MAX_DEPTH = 2000

#: Python frames the parser uses per nesting level, at most (with a margin).
_FRAMES_PER_LEVEL = 16

#: Binary operators: token -> (precedence, right associative). See the module docstring.
EXPR_PRECEDENCE = {
    "=>": (1, True), "\\/": (2, True), "/\\": (3, True),
    "||": (5, True), "&&": (6, True),
    "=": (7, False), "<>": (7, False), "<": (7, False), "<=": (7, False), ">": (7, False),
    ">=": (7, False),
    "::": (8, True),
    "+": (9, False), "-": (9, False),
    "*": (10, False), "/": (10, False),
}
#: Precedence levels named in the module docstring.
PREC_LOOSE, PREC_NEG, PREC_OR, PREC_PREFIX, PREC_APP, PREC_ATOM = 0, 4, 5, 11, 12, 13

#: Divergences allowed in ``M[F]`` and ``Delta[F]``.
DIVERGENCES = ("DP", "SD", "HD", "KL")

_PREFIX = ("-", "not", "return", "infer", "ran")
_LOOSE = ("let", "mlet", "fun", "if", "match")
_QUANTIFIERS = ("forall", "exists")
_ATOM_START = frozenset(("IDENT", "INT", "REAL", "RUNVAR", "true", "false", "(", "[", "observe"))
#: Tokens that make a whole expression when no operator or argument follows them.
_LONE_ATOM = frozenset(("INT", "REAL", "IDENT", "true", "false"))
_PATTERN_START = ("IDENT", "_", "(")
_SIMPLE_BASES = ("unit", "bool", "nat", "int")
_TYPE_HINTS = {
    "float": "use 'real'", "double": "use 'real'", "integer": "use 'int'",
    "string": "the language has no strings", "prob": "use '[0,1]'",
    "positive": "use 'real+'", "inf": "write 'real+inf' without spaces",
}

_T = TypeVar("_T")


@contextmanager
def recursion_headroom(frames: int) -> Iterator[None]:
    """Run the body with room for at least ``frames`` more Python frames.

    Raises ``sys.getrecursionlimit()`` if needed and restores it afterwards. Safe on CPython
    3.11+, where Python-to-Python calls do not consume the C stack.
    """
    old = sys.getrecursionlimit()
    depth = _stack_depth(old)
    if depth + frames <= old:
        yield
        return
    sys.setrecursionlimit(depth + frames)
    try:
        yield
    finally:
        sys.setrecursionlimit(old)


def _stack_depth(bound: int) -> int:
    """The number of frames on the stack, at most ``bound`` (found by probing
    ``sys._getframe``, which walks the frames in C: a handful of probes, not a Python loop
    over every frame, which made deep derivations quadratic)."""
    def exists(k: int) -> bool:
        try:
            sys._getframe(k)
            return True
        except ValueError:
            return False

    lo, hi = 0, 64
    while hi < bound and exists(hi):
        lo, hi = hi, hi * 2
    hi = min(hi, bound)
    while lo < hi:  # the deepest k with a frame lies in [lo, hi)
        mid = (lo + hi + 1) // 2
        if exists(mid):
            lo = mid
        else:
            hi = mid - 1
    return lo + 1


def parse_program(text: str, filename: str = "<input>") -> Program:
    """Parse a whole file: a sequence of ``let`` and ``val`` declarations.

    An empty or comment-only text gives a ``Program`` with no declarations. The result's
    ``file`` and ``source`` are ``filename`` and ``text``.
    """
    return _run(text, filename, _Parser.program)


def parse_file(path: str | os.PathLike) -> Program:
    """Read (``read_source``) and parse the file at ``path``; spans name ``str(path)``."""
    name = os.fspath(path)
    return parse_program(read_source(name), name)


def parse_expr(text: str, filename: str = "<input>") -> Expr:
    """Parse one expression filling the whole input (run-indexed variables refused)."""
    return _run(text, filename, lambda p: p.whole(p.expr))


def parse_assertion(text: str, filename: str = "<input>") -> Expr:
    """Parse one assertion (the ``A`` of ``{x :: T | A}``) filling the whole input."""
    return _run(text, filename, lambda p: p.whole(p.assertion))


def parse_simple_type(text: str, filename: str = "<input>") -> SimpleType:
    """Parse one simple type filling the whole input."""
    return _run(text, filename, lambda p: p.whole(p.type))


def parse_rtype(text: str, filename: str = "<input>") -> RType:
    """Parse one relational type filling the whole input."""
    return _run(text, filename, lambda p: p.whole(p.rtype))


def _run(text: str, filename: str, entry: Callable[["_Parser"], _T]) -> _T:
    with recursion_headroom(MAX_DEPTH * _FRAMES_PER_LEVEL + 500):
        return entry(_Parser(text, filename))


class _Parser:
    """The state of one parse: the tokens, the position, the nesting depth and the mode."""

    def __init__(self, text: str, filename: str):
        self.text = text
        self.file = filename
        self.toks = tokenize(text, filename)
        self.i = 0
        self.tok: Token = self.toks[0]
        self.prev: Token = self.tok  # the last consumed token
        self.depth = 0
        self.in_assertion = False

    # ---------------------------------------------------------------- token plumbing

    def advance(self) -> Token:
        tok = self.tok
        self.prev = tok
        if tok.kind != "EOF":
            self.i += 1
            self.tok = self.toks[self.i]
        return tok

    def peek(self, k: int) -> Token:
        return self.toks[min(self.i + k, len(self.toks) - 1)]

    def span_from(self, start: Token) -> Span:
        """From the start of ``start`` to the end of the last consumed token."""
        p = self.prev
        return Span(self.file, start.line, start.col, p.line, p.col + (p.end - p.start))

    def enter(self) -> None:
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise self.fail("P007", f"nesting too deep: more than {MAX_DEPTH} levels of "
                            "brackets and nested constructs", self.tok.span,
                            "name intermediate results with 'let' to flatten the program")

    def leave(self) -> None:
        self.depth -= 1

    def whole(self, parse: Callable[[], _T]) -> _T:
        result = parse()
        if self.tok.kind != "EOF":
            raise self.unexpected("end of input")
        return result

    # ---------------------------------------------------------------- errors

    def fail(self, code: str, message: str, span: Span, hint: Optional[str] = None,
             notes: Tuple[str, ...] = ()) -> PrivInferError:
        exc = error(code, message, span, hint, notes)
        exc.source = self.text
        return exc

    def unexpected(self, expected: str, hint: Optional[str] = None) -> PrivInferError:
        """P005 (P006 at the end of input): ``expected <expected>, found <token>``."""
        tok = self.tok
        if tok.kind == "RUNVAR" and not self.in_assertion:
            return self.runvar_error(tok)
        hint = hint or self.hint_for(tok)
        if tok.kind == "EOF":
            return self.fail("P006", f"unexpected end of input: expected {expected}", tok.span,
                             hint)
        return self.fail("P005", f"expected {expected}, found {tok.describe()}", tok.span, hint)

    def hint_for(self, tok: Token) -> Optional[str]:
        """A hint for a token found where it cannot stand, if a common mistake explains it."""
        kind = tok.kind
        if kind == "==":
            return "'==' is not an operator: equality and definitions are written with '='"
        if kind == "*)":
            return "'*)' closes a comment, but no comment is open here"
        if kind in ("/\\", "\\/", "=>", "~") and not self.in_assertion:
            return ("'/\\', '\\/', '=>' and '~' are connectives of assertions "
                    "({x :: T | A}); in expressions use '&&', '||' and 'not'")
        if kind == "->" and self.in_assertion:
            return "implication is written '=>'"
        if kind in _QUANTIFIERS and not self.in_assertion:
            return "quantifiers may appear only in assertions ({x :: T | A})"
        if kind == "+" and self.prev.kind == "IDENT" and self.prev.text == "real":
            return "write 'real+' (and 'real+inf') without spaces"
        if kind in (")", "]", "}"):
            return f"this '{kind}' has no matching opening bracket"
        return None

    def runvar_error(self, tok: Token) -> PrivInferError:
        name, run = tok.value
        hint = (f"{name}<1> and {name}<2> are the values of {name} in the left and right runs; "
                "they may appear only in the assertions {x :: T | A} and the indices M[DP(e), d] "
                "of a val type")
        if "<" in tok.text:
            hint += f"; for a comparison put spaces around '<', as in '{name} < {run}'"
        return self.fail("P010", f"run-indexed variable {tok.text} outside an assertion",
                         tok.span, hint)

    def expect(self, kind: str, expected: Optional[str] = None,
               hint: Optional[str] = None) -> Token:
        if self.tok.kind == kind:
            return self.advance()
        raise self.unexpected(expected or f"'{kind}'", hint)

    def close(self, kind: str, opener: Token, hint: Optional[str] = None) -> Token:
        """Consume the bracket ``kind`` that closes ``opener``."""
        if self.tok.kind == kind:
            return self.advance()
        raise self.unexpected(f"'{kind}' to close the '{opener.text}' at {_at(opener)}", hint)

    def expect_arrow(self, what: str) -> Token:
        hint = f"{what} is written with '->'" if self.tok.kind in ("=>", "=") else None
        return self.expect("->", hint=hint)

    def expect_in(self, start: Token) -> Token:
        if self.tok.kind == "in":
            return self.advance()
        hint = None
        if self.tok.kind in ("let", "mlet", "val", "EOF"):
            hint = f"did you forget 'in'? A local binding is '{start.text} x = e in body'"
        raise self.unexpected(f"'in' to end the '{start.text}' at {_at(start)}", hint)

    def name(self, expected: str) -> Token:
        hint = f"'{self.tok.kind}' is a keyword" if self.tok.kind in KEYWORDS else None
        return self.expect("IDENT", expected, hint)

    # ---------------------------------------------------------------- declarations

    def program(self) -> Program:
        decls: List[Decl] = []
        first = self.tok
        while self.tok.kind != "EOF":
            decls.append(self.decl())
        span = self.span_from(first) if decls else Span(self.file, 1, 1, 1, 1)
        return Program(tuple(decls), file=self.file, source=self.text, span=span)

    def decl(self) -> Decl:
        kind = self.tok.kind
        if kind == "let":
            return self.let_decl()
        if kind == "val":
            return self.val_decl()
        hint = "a top-level 'let' has no 'in'" if kind == "in" else None
        raise self.unexpected("a declaration ('let' or 'val')", hint)

    def let_decl(self) -> LetDecl:
        start = self.advance()
        recursive = self.tok.kind == "rec"
        if recursive:
            self.advance()
        if self.tok.kind in ("(", "_"):
            raise self.fail("P009", "a top-level 'let' must bind a name", self.tok.span,
                            "destructure inside the definition: let x = ... let (a, b) = x in ...")
        name = self.name("the name of the definition")
        params = self.params()
        if recursive and not params:
            raise self.fail("P009", "'let rec' defines a function: it needs a parameter",
                            self.tok.span, "write 'let rec f x = ...'")
        self.expect_definition_eq(params)
        body = self.expr()
        return LetDecl(name.text, tuple(params), body, recursive, self.span_from(start))

    def expect_definition_eq(self, params: List[Pattern]) -> Token:
        hint = None
        if self.tok.kind == ":":
            hint = "annotate parameters in parentheses, as in 'let f (x : real) = ...'"
        return self.expect("=", "'=' or a parameter" if not params else "'=' or another parameter",
                           hint)

    def val_decl(self) -> ValDecl:
        start = self.advance()
        name = self.name("the name of the declaration after 'val'")
        hint = "a relational signature is written 'val f :: T'" if self.tok.kind == ":" else None
        self.expect("::", hint=hint)
        rtype = self.rtype()
        return ValDecl(name.text, rtype, self.span_from(start))

    # ---------------------------------------------------------------- expressions

    def expr(self) -> Expr:
        """A full expression in the current mode (an assertion in assertion mode)."""
        if self.tok.kind in _LONE_ATOM:
            follow = self.toks[self.i + 1].kind
            if follow not in EXPR_PRECEDENCE and follow not in _ATOM_START:
                return self.atom()  # fast path (list and tuple data): nothing can follow
        self.enter()
        result = self.binary(1 if self.in_assertion else PREC_OR)
        self.leave()
        return result

    def assertion(self) -> Expr:
        """A full expression in assertion mode."""
        saved, self.in_assertion = self.in_assertion, True
        result = self.expr()
        self.in_assertion = saved
        return result

    def binary(self, min_prec: int) -> Expr:
        left = self.neg_level() if min_prec <= PREC_NEG else self.unary()
        while True:
            info = EXPR_PRECEDENCE.get(self.tok.kind)
            if info is None:
                return left
            prec, right_assoc = info
            if prec < min_prec or (prec < PREC_NEG and not self.in_assertion):
                return left
            op = self.advance().kind
            if not right_assoc:
                right = self.binary(prec + 1)
                left = BinOp(op, left, right, left.span.to(right.span))
                continue
            operands = [left, self.binary(prec + 1)]
            while self.tok.kind == op:
                self.advance()
                operands.append(self.binary(prec + 1))
            left = operands.pop()
            while operands:
                lhs = operands.pop()
                left = _binary_node(op, lhs, left)

    def neg_level(self) -> Expr:
        tok = self.tok
        if tok.kind == "~":
            self.enter()
            self.advance()
            operand = self.neg_level()
            self.leave()
            return Neg(operand, self.span_from(tok))
        if (tok.kind == "IDENT" and tok.text == "Delta" and self.peek(1).kind == "["
                and self.peek(2).kind == "IDENT" and self.peek(2).text in DIVERGENCES):
            return self.div_bound()
        return self.binary(PREC_OR)

    def div_bound(self) -> DivBound:
        start = self.advance()
        opener = self.advance()
        div = self.divergence()
        self.close("]", opener)
        paren = self.expect("(", "'(' before the two distributions of Delta[...]")
        left = self.expr()
        self.expect(",", "',' between the two distributions of Delta[...]")
        right = self.expr()
        self.close(")", paren)
        self.expect("<=", hint="a divergence bound is written 'Delta[F] (e1, e2) <= e'")
        bound = self.binary(PREC_OR)
        return DivBound(div, left, right, bound, self.span_from(start))

    def unary(self) -> Expr:
        tok = self.tok
        kind = tok.kind
        if kind in _PREFIX:
            self.enter()
            self.advance()
            operand = self.unary()
            self.leave()
            span = self.span_from(tok)
            if kind == "-" or kind == "not":
                return UnOp(kind, operand, span)
            if kind == "return":
                return Return(operand, span)
            if kind == "infer":
                return Infer(operand, span)
            return Ran(operand, span)
        if kind in _LOOSE:  # let_expr, mlet_expr, fun_expr, if_expr, match_expr
            return getattr(self, kind + "_expr")()
        if kind == "observe" and self.at_observe_arrow():
            return self.observe_arrow()
        if kind in _QUANTIFIERS:
            if not self.in_assertion:
                raise self.unexpected("an expression")
            return self.quantifier()
        return self.application()

    def application(self) -> Expr:
        fn = self.atom()
        while self.tok.kind in _ATOM_START and not (self.tok.kind == "observe"
                                                    and self.at_observe_arrow()):
            arg = self.atom()
            fn = App(fn, arg, fn.span.to(arg.span))
        if self.tok.kind == "[@":
            fn = self.annotated(fn)
        return fn

    def annotated(self, fn: Expr) -> Expr:
        """``app [@shift e]``: an annotation of an application (docs/language.md), read in
        assertion mode (``x<1>``, ``x<2>`` allowed). The application keeps its own span."""
        opener = self.advance()
        if not isinstance(fn, App):
            raise self.fail("P012", "an annotation [@...] follows an application, such as "
                            "lapMech (eps, q) [@shift 1.0]", opener.span)
        name = self.name("an annotation name (shift)")
        if name.text not in ANNOTATIONS:
            raise self.fail("P012", f"unknown annotation [@{name.text} ...]; the annotations are "
                            f"{', '.join('[@' + a + ' ...]' for a in sorted(ANNOTATIONS))}",
                            name.span, hint="[@shift e] gives the shift of a mechanism's noise "
                            "between the two runs")
        value = self.assertion()
        self.close("]", opener)
        return replace_fields(fn, annotation=Annotation(name.text, value,
                                                        self.span_from(opener)))

    def atom(self) -> Expr:
        tok = self.tok
        kind = tok.kind
        if kind == "IDENT":
            self.advance()
            return Var(tok.text, tok.span)
        if kind == "INT":
            self.advance()
            return IntLit(tok.value, tok.span)
        if kind == "REAL":
            self.advance()
            return RealLit(tok.value, tok.text, tok.span)
        if kind == "true" or kind == "false":
            self.advance()
            return BoolLit(kind == "true", tok.span)
        if kind == "(":
            return self.paren()
        if kind == "[":
            return self.list_literal()
        if kind == "RUNVAR":
            if not self.in_assertion:
                raise self.runvar_error(tok)
            self.advance()
            name, run = tok.value
            return RunVar(name, run, tok.span)
        if kind == "observe":
            return self.observe_atoms()
        raise self.unexpected("an expression")

    def paren(self) -> Expr:
        opener = self.advance()
        if self.tok.kind == ")":
            self.advance()
            return UnitLit(self.span_from(opener))
        first = self.expr()
        if self.tok.kind != ",":
            self.close(")", opener, self.paren_hint())
            return first
        items = [first]
        while self.tok.kind == ",":
            self.advance()
            items.append(self.expr())
        self.close(")", opener, self.paren_hint())
        return TupleLit(tuple(items), self.span_from(opener))

    def paren_hint(self) -> Optional[str]:
        if self.tok.kind == ":":
            return ("type annotations are allowed only on binders, as in "
                    "'fun (x : real) -> ...' or 'let (x : real) = ...'")
        if self.tok.kind == ";":
            return "tuple components are separated by ','; there is no sequencing ';'"
        return None

    def list_literal(self) -> ListLit:
        opener = self.advance()
        items: List[Expr] = []
        if self.tok.kind != "]":
            items.append(self.expr())
            while self.tok.kind == ";":
                self.advance()
                if self.tok.kind == "]":
                    break
                items.append(self.expr())
        hint = None
        if self.tok.kind == ",":
            hint = "list elements are separated by ';', as in [1; 2; 3]"
        self.close("]", opener, hint)
        return ListLit(tuple(items), self.span_from(opener))

    def observe_atoms(self) -> Observe:
        start = self.advance()
        self.enter()
        likelihood = self.observe_argument("the likelihood")
        prior = self.observe_argument("the prior")
        self.leave()
        return Observe(likelihood, prior, False, self.span_from(start))

    def observe_argument(self, what: str) -> Expr:
        if self.tok.kind not in _ATOM_START:
            raise self.unexpected(f"{what} of 'observe' (parenthesise it unless it is a name)",
                                  "observe is written 'observe (fun x -> e) prior' or "
                                  "'observe x => e in prior'")
        return self.atom()

    def at_observe_arrow(self) -> bool:
        """Whether the ``observe`` at hand starts ``observe x =>`` or ``observe (x : T) =>``."""
        t1, t2 = self.peek(1), self.peek(2)
        if t1.kind == "IDENT":
            return t2.kind in ("=>", "->")
        return t1.kind == "(" and t2.kind == "IDENT" and self.peek(3).kind == ":"

    def observe_arrow(self) -> Observe:
        start = self.advance()
        if self.tok.kind == "(":
            opener = self.advance()
            name = self.advance()
            self.advance()
            annot = self.type()
            self.close(")", opener)
            param = PVar(name.text, annot, self.span_from(opener))
        else:
            name = self.advance()
            param = PVar(name.text, None, name.span)
        hint = None
        if self.tok.kind == "->":
            hint = "the arrow form of observe is 'observe x => e in prior'"
        self.expect("=>", hint=hint)
        body = self.expr()
        likelihood = Fun((param,), body, param.span.to(body.span))
        self.expect_in(start)
        prior = self.expr()
        return Observe(likelihood, prior, True, self.span_from(start))

    def let_expr(self) -> Expr:
        start = self.advance()
        if self.tok.kind == "rec":
            self.advance()
            name = self.name("the name of the function after 'let rec'")
            params = self.params()
            if not params:
                raise self.fail("P009", "'let rec' defines a function: it needs a parameter",
                                self.tok.span, "write 'let rec f x = ... in ...'")
            self.expect_definition_eq(params)
            value = self.expr()
            self.expect_in(start)
            body = self.expr()
            return LetRec(name.text, tuple(params), value, body, self.span_from(start))
        if self.tok.kind == "IDENT" and self.peek(1).kind != "=":
            name = self.advance()
            params = self.params()
            self.expect_definition_eq(params)
            value = self.expr()
            if params:
                value = Fun(tuple(params), value, params[0].span.to(value.span))
            pattern: Pattern = PVar(name.text, None, name.span)
        else:
            pattern = self.binder("a name or a pattern after 'let'")
            self.expect("=")
            value = self.expr()
        self.expect_in(start)
        body = self.expr()
        return Let(pattern, value, body, self.span_from(start))

    def mlet_expr(self) -> Expr:
        start = self.advance()
        pattern = self.binder("a name or a pattern after 'mlet'")
        self.expect("=")
        value = self.expr()
        self.expect_in(start)
        body = self.expr()
        return observe_drawn(pattern, value, body, self.span_from(start)) or \
            MLet(pattern, value, body, self.span_from(start))

    def fun_expr(self) -> Fun:
        start = self.advance()
        params = self.params()
        if not params:
            raise self.unexpected("a parameter after 'fun'")
        self.expect_arrow("a function 'fun x -> e'")
        body = self.expr()
        return Fun(tuple(params), body, self.span_from(start))

    def if_expr(self) -> If:
        start = self.advance()
        cond = self.expr()
        self.expect("then", f"'then' after the condition of the 'if' at {_at(start)}")
        then = self.expr()
        self.expect("else", f"'else' for the 'if' at {_at(start)}",
                    "every 'if' needs an 'else' branch")
        else_ = self.expr()
        return If(cond, then, else_, self.span_from(start))

    def match_expr(self) -> Match:
        start = self.advance()
        scrutinee = self.expr()
        self.expect("with", f"'with' after the scrutinee of the 'match' at {_at(start)}")
        if self.tok.kind == "|":
            self.advance()
        nil_body: Optional[Expr] = None
        cons: Optional[Tuple[str, str, Expr]] = None
        for branch in range(2):
            if branch == 1:
                self.expect("|", f"'|' and the second branch of the 'match' at {_at(start)}",
                            "a match has two branches: '| [] -> e1 | x :: xs -> e2'")
            tok = self.tok
            if tok.kind == "[":
                opener = self.advance()
                self.close("]", opener, "the empty-list branch is written '[] -> e'")
                if nil_body is not None:
                    raise self.duplicate_branch(tok, "[]")
                self.expect_arrow("a match branch '| [] -> e'")
                nil_body = self.expr()
            elif tok.kind in ("IDENT", "_", "("):
                if cons is not None:
                    raise self.duplicate_branch(tok, "x :: xs")
                cons = self.cons_branch(tok)
            else:
                raise self.unexpected("a branch pattern '[]' or 'x :: xs'")
        assert nil_body is not None and cons is not None
        head, tail, cons_body = cons
        return Match(scrutinee, nil_body, head, tail, cons_body, self.span_from(start))

    def cons_branch(self, tok: Token) -> Tuple[str, str, Expr]:
        """``x :: xs -> e`` (head, tail, body); ``(a, b) :: xs -> e`` is ``h :: xs -> let
        (a, b) = h in e``, ``h`` a name no program can write (its ``#``), made of the pattern's names."""
        pattern = self.binder("a tuple pattern") if tok.kind == "(" else None
        head = None if pattern is not None else self.advance()
        self.expect("::", "'::' in the branch pattern 'x :: xs'")
        tail = self.expect("IDENT", "the name of the tail in 'x :: xs'") \
            if self.tok.kind != "_" else self.advance()
        self.expect_arrow("a match branch '| x :: xs -> e'")
        body = self.expr()
        if pattern is None:
            return head.text, tail.text, body
        # named by its pattern (not its position: the printed program must parse to the same)
        name = "hd#" + ",".join(pattern_names(pattern))
        return name, tail.text, Let(pattern, Var(name, pattern.span), body, body.span)

    def duplicate_branch(self, tok: Token, pattern: str) -> PrivInferError:
        return self.fail("P005", f"this match already has a '{pattern}' branch", tok.span,
                         "a match has one '[] ->' branch and one 'x :: xs ->' branch")

    def quantifier(self) -> Quant:
        start = self.advance()
        var = self.name(f"the bound variable after '{start.text}'")
        self.expect(":", hint=f"a quantifier is written '{start.text} x : T. A'")
        typ = self.type()
        self.expect(".", f"'.' after the type of '{start.text} {var.text} : ...'")
        body = self.expr()
        return Quant(start.text, var.text, typ, body, self.span_from(start))

    # ---------------------------------------------------------------- patterns

    def params(self) -> List[Pattern]:
        params: List[Pattern] = []
        while self.tok.kind in _PATTERN_START:
            params.append(self.binder("a parameter"))
        return params

    def binder(self, expected: str) -> Pattern:
        """A name, ``_``, ``()`` or a parenthesised (annotated or tuple) pattern."""
        tok = self.tok
        if tok.kind == "IDENT":
            self.advance()
            return PVar(tok.text, None, tok.span)
        if tok.kind == "_":
            self.advance()
            return PWild(None, tok.span)
        if tok.kind != "(":
            raise self.unexpected(expected)
        opener = self.advance()
        if self.tok.kind == ")":
            self.advance()
            return PUnit(self.span_from(opener))
        self.enter()
        items = [self.pattern_item()]
        while self.tok.kind == ",":
            self.advance()
            items.append(self.pattern_item())
        self.close(")", opener)
        self.leave()
        if len(items) == 1:
            return items[0]
        return PTuple(tuple(items), self.span_from(opener))

    def pattern_item(self) -> Pattern:
        """A binder, optionally annotated with ``: T`` (inside parentheses)."""
        start = self.tok
        pattern = self.binder("a pattern")
        if self.tok.kind != ":":
            return pattern
        if not isinstance(pattern, (PVar, PWild)) or pattern.annot is not None:
            raise self.fail("P009", "only a name or '_' can carry a type annotation",
                            self.tok.span, "annotate the components: ((x : real), (y : real))")
        self.advance()
        annot = self.type()
        if isinstance(pattern, PVar):
            return PVar(pattern.name, annot, self.span_from(start))
        return PWild(annot, self.span_from(start))

    # ---------------------------------------------------------------- simple types

    def type(self) -> SimpleType:
        """A simple type; ``->`` is right associative and loosest."""
        self.enter()
        items = [self.type_tuple()]
        while self.tok.kind == "->":
            self.advance()
            items.append(self.type_tuple())
        self.leave()
        result = items.pop()
        while items:
            dom = items.pop()
            result = TArrow(dom, result, dom.span.to(result.span))
        return result

    def type_tuple(self, first: Optional[SimpleType] = None) -> SimpleType:
        """``T * T * ...`` of postfix types; ``first`` is an already parsed first atom."""
        head = self.type_postfix(first)
        if self.tok.kind != "*":
            return head
        items = [head]
        while self.tok.kind == "*":
            self.advance()
            items.append(self.type_postfix())
        return TTuple(tuple(items), head.span.to(items[-1].span))

    def type_postfix(self, first: Optional[SimpleType] = None) -> SimpleType:
        result = first if first is not None else self.type_atom()
        while self.tok.kind == "IDENT" and self.tok.text == "list":
            self.advance()
            result = TList(result, result.span.to(self.prev.span))
        return result

    def type_atom(self) -> SimpleType:
        tok = self.tok
        if tok.kind == "(":
            opener = self.advance()
            result = self.type()
            self.close(")", opener)
            return result
        if tok.kind == "[":
            return self.bracket_type()
        if tok.kind != "IDENT":
            raise self.unexpected("a type")
        name = tok.text
        if name in _SIMPLE_BASES:
            self.advance()
            return TBase(name, tok.span)
        if name == "real":
            self.advance()
            if self.tok.kind == "+" and self.tok.start == self.prev.end:
                self.advance()
                name = "real+"
                if (self.tok.kind == "IDENT" and self.tok.text == "inf"
                        and self.tok.start == self.prev.end):
                    self.advance()
                    name = "real+inf"
            return TBase(name, self.span_from(tok))
        if name in ("M", "D") and self.peek(1).kind == "[":
            self.advance()
            opener = self.advance()
            if name == "M" and self.tok.kind == "IDENT" and self.tok.text in DIVERGENCES:
                raise self.fail("P008", f"M[{self.tok.text} ...] is a relational type, "
                                "not a simple type", self.tok.span,
                                "the relational monad M[F] {x :: T | A} may appear only in a "
                                "val declaration; the simple monad is M[T]")
            elem = self.type()
            self.close("]", opener)
            node = TMonad if name == "M" else TDist
            return node(elem, self.span_from(tok))
        hint = _TYPE_HINTS.get(name, "the simple types are unit, bool, nat, int, real, real+, "
                               "real+inf, [0,1], [k], [0,1]^k, T list, T * T, T -> T, M[T], D[T]")
        raise self.fail("P008", f"unknown type '{name}'", tok.span, hint)

    def bracket_type(self) -> SimpleType:
        """``[k]``, ``[0,1]`` or ``[0,1]^k``."""
        opener = self.advance()
        first = self.tok
        if first.kind != "INT":
            raise self.invalid_bracket_type(opener)
        self.advance()
        if self.tok.kind != ",":
            self.close("]", opener)
            if first.value < 2:
                raise self.fail("P008", f"invalid type [{first.value}]: [k] needs k >= 2",
                                self.span_from(opener),
                                "[k] is the finite type {0, ..., k-1}; use unit for one value")
            return TFin(first.value, self.span_from(opener))
        self.advance()
        one = self.tok
        if first.value != 0 or one.kind != "INT" or one.value != 1:
            raise self.invalid_bracket_type(opener)
        self.advance()
        self.close("]", opener)
        if self.tok.kind != "^":
            return TBase("[0,1]", self.span_from(opener))
        self.advance()
        k = self.simplex_dimension()
        if k < 2:
            raise self.fail("P008", f"invalid type [0,1]^{k}: the simplex needs k >= 2 components",
                            self.span_from(opener), "a probability in [0,1] is written [0,1]")
        return TSimplex(k, self.span_from(opener))

    def invalid_bracket_type(self, opener: Token) -> PrivInferError:
        return self.fail("P008", f"invalid type starting at {_at(opener)}: expected "
                         f"[k], [0,1] or [0,1]^k, found {self.tok.describe()}", self.tok.span)

    def simplex_dimension(self) -> int:
        """The ``k`` of ``[0,1]^k``.

        In ``forall x : [0,1]^3. A`` the lexer reads ``3.`` as a real literal; it is split
        here into the integer and the ``.`` of the quantifier.
        """
        tok = self.tok
        if tok.kind == "INT":
            self.advance()
            return tok.value
        if tok.kind == "REAL" and tok.text[:-1].isdigit() and tok.text.endswith("."):
            dot = Token(".", ".", None, tok.end - 1, tok.end, tok.line,
                        tok.col + len(tok.text) - 1, tok.file)
            self.toks[self.i] = Token("INT", tok.text[:-1], int(tok.text[:-1]), tok.start,
                                      tok.end - 1, tok.line, tok.col, tok.file)
            self.toks.insert(self.i + 1, dot)
            self.tok = self.toks[self.i]
            return self.simplex_dimension()
        raise self.fail("P008", f"expected the number of components of [0,1]^k, found "
                        f"{tok.describe()}", tok.span)

    # ---------------------------------------------------------------- relational types

    def rtype(self) -> RType:
        """A relational type; ``->`` is right associative and loosest."""
        self.enter()
        items = [self.rtype_operand()]
        while self.tok.kind == "->":
            self.advance()
            items.append(self.rtype_operand())
        self.leave()
        result = items.pop()
        while items:
            dom = items.pop()
            result = RArrow(dom, result, dom.span.to(result.span))
        return result

    def rtype_operand(self) -> RType:
        tok = self.tok
        if tok.kind == "{":
            return self.refinement()
        if (tok.kind == "IDENT" and tok.text == "M" and self.peek(1).kind == "["
                and self.peek(2).kind == "IDENT" and self.peek(2).text in DIVERGENCES):
            return self.relational_monad()
        if tok.kind == "(":
            opener = self.advance()
            inner = self.rtype()
            self.close(")", opener)
            if self.tok.kind == "*" or (self.tok.kind == "IDENT" and self.tok.text == "list"):
                simple = self.to_simple(inner, "a list or tuple type")
                return RSimple(self.type_tuple(simple), self.span_from(opener))
            return inner
        simple = self.type_tuple()
        return RSimple(simple, simple.span)

    def refinement(self) -> RRefine:
        opener = self.advance()
        hint = "a refinement is written {x :: T | A}"
        var = self.expect("IDENT", "the name of the refined value, as in {x :: T | A}", hint)
        self.expect("::", hint=hint)
        base = self.rtype()
        if self.tok.kind != "|":
            raise self.unexpected(f"'|' and an assertion in the refinement at {_at(opener)}",
                                  "a refinement is written {x :: T | A}, or {x :: T | =} for "
                                  "a value equal in both runs")
        self.advance()
        if self.tok.kind == "=" and self.peek(1).kind == "}":
            same = self.advance()
            base = RSimple(self.to_simple(base, "the shorthand {x :: T | =}"), base.span)
            assertion: Expr = SameRuns(same.span)
        else:
            assertion = self.assertion()
        hint = "implication is written '=>'" if self.tok.kind == "->" else None
        self.close("}", opener, hint)
        return RRefine(var.text, base, assertion, self.span_from(opener))

    def relational_monad(self) -> RMonad:
        start = self.advance()
        opener = self.advance()
        self.enter()
        div = self.divergence()
        delta = None
        if self.tok.kind == ",":
            self.advance()
            delta = self.assertion()
        self.close("]", opener)
        body = self.rtype_operand()
        self.leave()
        return RMonad(div, delta, body, self.span_from(start))

    def divergence(self) -> Divergence:
        tok = self.expect("IDENT", "a divergence DP(e), SD, HD or KL")
        if tok.text not in DIVERGENCES:
            raise self.fail("P011", f"unknown divergence '{tok.text}'", tok.span,
                            "the divergences are DP(e), SD, HD and KL")
        if tok.text != "DP":
            return Divergence(tok.text, None, tok.span)
        opener = self.expect("(", "'(' after DP", "the privacy divergence is written DP(eps)")
        eps = self.assertion()
        self.close(")", opener)
        return Divergence("DP", eps, self.span_from(tok))

    def to_simple(self, rtype: RType, context: str) -> SimpleType:
        """The simple type that ``rtype`` spells (``RArrow`` of ``RSimple``s), or P011."""
        parts: List[RType] = []
        while isinstance(rtype, RArrow):
            parts.append(rtype.dom)
            rtype = rtype.cod
        parts.append(rtype)
        simple: List[SimpleType] = []
        for part in parts:
            if isinstance(part, RSimple):
                simple.append(part.type)
            elif isinstance(part, RArrow):
                simple.append(self.to_simple(part, context))
            else:
                raise self.fail("P011", f"{context} needs a simple type, but this is a "
                                "relational type", part.span,
                                "refinements {x :: T | A} and M[F] ... cannot be nested in "
                                "simple types")
        result = simple.pop()
        while simple:
            dom = simple.pop()
            result = TArrow(dom, result, dom.span.to(result.span))
        return result


def _at(tok: Token) -> str:
    return f"{tok.line}:{tok.col}"


def _binary_node(op: str, left: Expr, right: Expr) -> Expr:
    span = left.span.to(right.span)
    if op == "::":
        return Cons(left, right, span)
    if op == "/\\":
        return Conj(left, right, span)
    if op == "\\/":
        return Disj(left, right, span)
    if op == "=>":
        return Implies(left, right, span)
    return BinOp(op, left, right, span)


def observe_drawn(pattern: Pattern, value: Expr, body: Expr, span: Span) -> Optional[Observe]:
    """The paper's listings write ``mlet x = m in observe f x``: an observe of the value just
    drawn, which simple typing refuses (a prior is a computation). docs/language.md gives it
    its only sensible meaning, ``observe f m``; the parser reads it so (the ``Observe`` node
    with ``drawn`` set, spanning the ``mlet``) when ``x`` is a plain name that ``f`` does not
    mention. Everything downstream — types, rules, the kernel, ``run`` — sees one construct."""
    if not (isinstance(pattern, PVar) and pattern.annot is None and isinstance(body, Observe)
            and body.prior == Var(pattern.name)):
        return None
    from verifier.language.free_vars import free_vars
    if pattern.name in free_vars(body.likelihood):
        return None
    return Observe(body.likelihood, value, body.arrow_form, span, drawn=pattern.name)
