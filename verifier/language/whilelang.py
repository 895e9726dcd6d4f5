"""The while-language of the course notes (``.pwhile`` files): syntax, printer, simple types.

A file is a sequence of procedures (docs/aprhl.md)::

    proc Mean (d : real list) (pub eps : real+) (pub n : nat) : real
      |- (eps, 0) : adjWithin (d<1>, d<2>, 1) /\\ size d<1> = n /\\ n >= 1 ==> =
      i := 0;
      s := 0;
      while i < size d do
        s := s + d[i];
        i := i + 1
      end;
      z := $ Lap (1 / (n * eps), s / n);
      return z
    end

The line ``|- (eps, delta) : P ==> Q`` is the apRHL judgement the body must satisfy against
itself: ``P`` relates the two runs' inputs (``x<1>``, ``x<2>``; a ``pub`` parameter is equal in
both runs and is written without a run index), ``(eps, delta)`` is the guarantee (public
expressions) and ``Q`` relates the outputs: ``=`` or an assertion over ``result<1>`` and
``result<2>``.

This module is the trusted front end shared by the verifier (``verifier/aprhl``) and the
certificate kernel (``checker/aprhl.py``), like ``parser.py`` for ``.pinf`` files; it imports only
the standard library, the diagnostics table and ``obligations.records``.

Arithmetic is rational: ``+ - * /`` on ``int`` and ``real``, literals are exact decimals, there is
no ``sqrt``/``exp``/``log`` (docs/reals.md: every comparison ``run`` makes is then decidable).
"""
from __future__ import annotations

import re
from fractions import Fraction
from typing import Dict, List, Optional, Sequence, Tuple, Union

from obligations.records import field, record, replace
from verifier.errors import PrivInferError, error
from verifier.language.ast import Span
from verifier.language.lexer import number_value

#: procedure nesting / expression nesting limit (P007)
MAX_DEPTH = 200

KEYWORDS = {"proc", "end", "if", "then", "else", "while", "do", "invariant", "variant",
            "return", "skip", "true", "false", "not", "size", "pub", "priv", "list", "Lap",
            "shift", "result", "mod"}
#: functions callable in code, with their arity
FUNCTIONS = {"abs": 1, "min": 2, "max": 2}
#: predicates callable only in assertions
PREDICATES = {"adj": 2, "adjWithin": 3, "allWithin": 3}
BASE_TYPES = ("int", "nat", "real", "real+", "bool")
#: the logic's own symbols (obligations/whilelogic.py): no variable may be named like them
_RESERVED = re.compile(r"(at|len|snoc|upd|nil)_(int|real|bool)\Z|lapgrid\Z|(mod|div)_int\Z")


def reserved(name: str) -> bool:
    return bool(_RESERVED.match(name))

# ---------------------------------------------------------------------------------------------
# syntax trees
# ---------------------------------------------------------------------------------------------


def _nospan():
    return field(default=None, compare=False, repr=False)


class WNode:
    span: Span


@record
class Num(WNode):
    value: Fraction
    is_int: bool
    span: Span = _nospan()


@record
class BoolLit(WNode):
    value: bool
    span: Span = _nospan()


@record
class Name(WNode):
    name: str
    run: Optional[int] = None   # 1 or 2 in assertions (x<1>, x<2>)
    span: Span = _nospan()


@record
class ListLit(WNode):
    items: Tuple["Expr", ...]
    span: Span = _nospan()


@record
class Index(WNode):
    array: "Expr"
    index: "Expr"
    span: Span = _nospan()


@record
class Size(WNode):
    arg: "Expr"
    span: Span = _nospan()


@record
class BinOp(WNode):
    op: str       # + - * / ++ = <> < <= > >= && || =>
    left: "Expr"
    right: "Expr"
    span: Span = _nospan()


@record
class UnOp(WNode):
    op: str       # - not
    arg: "Expr"
    span: Span = _nospan()


@record
class Call(WNode):
    fn: str       # abs min max adj adjWithin
    args: Tuple["Expr", ...]
    span: Span = _nospan()


Expr = Union[Num, BoolLit, Name, ListLit, Index, Size, BinOp, UnOp, Call]


@record
class Skip(WNode):
    span: Span = _nospan()


@record
class Assign(WNode):
    target: str
    value: Expr
    span: Span = _nospan()


@record
class Sample(WNode):
    """``x := $ Lap (b, e) [shift k]``: ``e`` plus Laplace noise of scale ``b``; ``shift k`` asks
    for the coupling in which run 2's noise is run 1's plus ``k``."""
    target: str
    scale: Expr
    center: Expr
    shift: Optional[Expr] = None
    span: Span = _nospan()


@record
class If(WNode):
    cond: Expr
    then: Tuple["Stmt", ...]
    else_: Tuple["Stmt", ...]
    span: Span = _nospan()


@record
class While(WNode):
    cond: Expr
    invariants: Tuple[Expr, ...]
    variant: Optional[Expr]
    body: Tuple["Stmt", ...]
    span: Span = _nospan()


@record
class Return(WNode):
    value: Expr
    span: Span = _nospan()


Stmt = Union[Skip, Assign, Sample, If, While, Return]


@record
class WType:
    base: str                    # int nat real real+ bool list
    elem: Optional["WType"] = None

    def __str__(self) -> str:
        return f"{self.elem} list" if self.base == "list" else self.base

    @property
    def simple(self) -> str:
        """The simple type: ranges erased (``nat`` is ``int``, ``real+`` is ``real``)."""
        return {"nat": "int", "real+": "real"}.get(self.base, self.base)


@record
class Param:
    name: str
    pub: bool
    type: WType
    span: Span = _nospan()


@record
class Spec:
    eps: Expr
    delta: Expr
    pre: Expr
    post: Optional[Expr]          # None: the outputs are equal
    span: Span = _nospan()


@record
class Proc:
    name: str
    params: Tuple[Param, ...]
    ret: WType
    spec: Optional[Spec]
    body: Tuple[Stmt, ...]
    span: Span = _nospan()


@record
class WProgram:
    procs: Tuple[Proc, ...]
    file: str
    source: str

    def proc(self, name: str) -> Optional[Proc]:
        return next((p for p in self.procs if p.name == name), None)


# ---------------------------------------------------------------------------------------------
# lexer
# ---------------------------------------------------------------------------------------------

_TOKEN = re.compile(r"""
    (?P<ws>[ \t\n\f\v]+)
  | (?P<num>[0-9]+(\.[0-9]+)?([eE][+-]?[0-9]+)?)
  | (?P<ident>[A-Za-z_][A-Za-z0-9_]*(\+(?![A-Za-z0-9_(]))?)
  | (?P<sym>:=|==>|=>|\|-|<>|<=|>=|\+\+|&&|\|\||/\\|\\/|[-+*/()\[\],;:=<>$~])
""", re.VERBOSE)
_RUN = re.compile(r"<([12])>")


@record
class Tok:
    kind: str     # num ident sym run eof
    text: str
    span: Span


def tokenize(text: str, file: str) -> List[Tok]:
    toks: List[Tok] = []
    pos, line, col = 0, 1, 1

    def advance(s: str) -> None:
        nonlocal line, col
        nl = s.count("\n")
        if nl:
            line += nl
            col = len(s) - s.rfind("\n")
        else:
            col += len(s)

    while pos < len(text):
        if text.startswith("(*", pos):
            depth, start_line, start_col = 0, line, col
            j = pos
            while True:
                if text.startswith("(*", j):
                    depth += 1
                    j += 2
                elif text.startswith("*)", j):
                    depth -= 1
                    j += 2
                    if depth == 0:
                        break
                elif j >= len(text):
                    raise error("P003", "unterminated comment",
                                Span(file, start_line, start_col, start_line, start_col + 2),
                                "close it with *)")
                else:
                    j += 1
            advance(text[pos:j])
            pos = j
            continue
        if toks and toks[-1].kind == "ident" and toks[-1].span.end_col == col \
                and toks[-1].span.end_line == line:
            m = _RUN.match(text, pos)
            if m:
                span = Span(file, line, col, line, col + 3)
                toks.append(Tok("run", m.group(1), span))
                advance(m.group())
                pos = m.end()
                continue
        m = _TOKEN.match(text, pos)
        if m is None:
            ch = text[pos]
            raise error("P002", f"unexpected character {ch!r}", Span(file, line, col, line, col + 1))
        s = m.group()
        if m.lastgroup != "ws":
            end_col = col + len(s)
            span = Span(file, line, col, line, end_col)
            kind = m.lastgroup
            if kind == "ident" and s.endswith("+") and s != "real+":
                # ``x+1`` lexes as x + 1: only the type real+ keeps its plus
                s = s[:-1]
                span = Span(file, line, col, line, col + len(s))
                toks.append(Tok("ident", s, span))
                advance(s)
                pos += len(s)
                continue
            toks.append(Tok(kind, s, span))
        advance(s)
        pos = m.end()
    toks.append(Tok("eof", "", Span(file, line, col, line, col)))
    return toks


# ---------------------------------------------------------------------------------------------
# parser
# ---------------------------------------------------------------------------------------------

class _Parser:
    def __init__(self, toks: List[Tok], file: str):
        self.toks, self.i, self.file, self.depth = toks, 0, file, 0

    # -- helpers
    @property
    def tok(self) -> Tok:
        return self.toks[self.i]

    def peek(self, k: int = 1) -> Tok:
        return self.toks[min(self.i + k, len(self.toks) - 1)]

    def at(self, text: str) -> bool:
        t = self.tok
        return t.kind in ("sym", "ident") and t.text == text

    def next(self) -> Tok:
        t = self.tok
        if t.kind != "eof":
            self.i += 1
        return t

    def fail(self, what: str, tok: Optional[Tok] = None):
        t = tok or self.tok
        if t.kind == "eof":
            return error("P006", f"unexpected end of input: expected {what}", t.span)
        return error("P005", f"unexpected '{t.text}': expected {what}", t.span)

    def expect(self, text: str) -> Tok:
        if not self.at(text):
            raise self.fail(f"'{text}'")
        return self.next()

    def ident(self, what: str = "a name") -> Tok:
        t = self.tok
        if t.kind != "ident" or t.text in KEYWORDS or t.text in BASE_TYPES:
            raise self.fail(what)
        return self.next()

    def span_from(self, start: Span) -> Span:
        prev = self.toks[self.i - 1].span if self.i else start
        return Span(self.file, start.line, start.col, prev.end_line, prev.end_col)

    def deeper(self):
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise error("P007", f"nesting deeper than {MAX_DEPTH}", self.tok.span)

    # -- program
    def program(self) -> List[Proc]:
        procs = []
        while self.tok.kind != "eof":
            procs.append(self.proc())
        return procs

    def proc(self) -> Proc:
        start = self.expect("proc").span
        name = self.ident("the procedure's name").text
        params = []
        while self.at("("):
            p0 = self.next().span
            pub = False
            if self.at("pub") or self.at("priv"):
                pub = self.next().text == "pub"
            pname = self.ident("a parameter name").text
            self.expect(":")
            if self.at("pub") or self.at("priv"):
                pub = self.next().text == "pub"
            ptype = self.type_()
            self.expect(")")
            params.append(Param(pname, pub, ptype, self.span_from(p0)))
        self.expect(":")
        if self.at("pub") or self.at("priv"):
            self.next()
        ret = self.type_()
        spec = None
        if self.at("|-"):
            s0 = self.next().span
            self.expect("(")
            eps = self.expr(assertion=False)
            self.expect(",")
            delta = self.expr(assertion=False)
            self.expect(")")
            self.expect(":")
            pre = self.expr(assertion=True)
            self.expect("==>")
            if self.at("="):   # an assertion cannot start with '=': the outputs are equal
                self.next()
                post = None
            else:
                post = self.expr(assertion=True)
            spec = Spec(eps, delta, pre, post, self.span_from(s0))
        body = self.block(("end",))
        self.expect("end")
        return Proc(name, tuple(params), ret, spec, tuple(body), self.span_from(start))

    def type_(self) -> WType:
        t = self.tok
        if t.kind == "ident" and t.text in BASE_TYPES:
            self.next()
            ty = WType(t.text)
        elif self.at("("):
            self.next()
            ty = self.type_()
            self.expect(")")
        else:
            raise error("P008", f"invalid type '{t.text}': expected one of "
                        f"{', '.join(BASE_TYPES)} or T list", t.span)
        while self.at("list"):
            self.next()
            if ty.base in ("nat", "real+"):
                raise error("P008", f"{ty.base} list is not supported: write {ty.simple} list "
                            "and state the range in the specification", t.span)
            ty = WType("list", ty)
        return ty

    # -- statements
    def block(self, stops: Sequence[str]) -> List[Stmt]:
        out: List[Stmt] = []
        while True:
            while self.at(";"):
                self.next()
            if any(self.at(s) for s in stops) or self.tok.kind == "eof":
                if not out:
                    raise self.fail("a statement (write skip for none)")
                return out
            out.append(self.stmt())

    def stmt(self) -> Stmt:
        t = self.tok
        self.deeper()
        try:
            if self.at("skip"):
                self.next()
                return Skip(t.span)
            if self.at("return"):
                self.next()
                e = self.expr()
                return Return(e, self.span_from(t.span))
            if self.at("if"):
                self.next()
                cond = self.expr()
                self.expect("then")
                then = self.block(("else", "end"))
                else_: List[Stmt] = [Skip(self.tok.span)]
                if self.at("else"):
                    self.next()
                    else_ = self.block(("end",))
                self.expect("end")
                return If(cond, tuple(then), tuple(else_), self.span_from(t.span))
            if self.at("while"):
                self.next()
                cond = self.expr()
                invs, variant = [], None
                while self.at("invariant") or self.at("variant"):
                    if self.next().text == "invariant":
                        invs.append(self.expr(assertion=True))
                    else:
                        if variant is not None:
                            raise self.fail("'do' (one variant per loop)", self.toks[self.i - 1])
                        variant = self.expr()
                self.expect("do")
                body = self.block(("end",))
                self.expect("end")
                return While(cond, tuple(invs), variant, tuple(body), self.span_from(t.span))
            if t.kind == "ident" and t.text not in KEYWORDS:
                target = self.ident("a variable").text
                if not self.at(":="):
                    raise self.fail("':=' (statements are x := e, x := $ Lap (b, e), if, while, "
                                    "skip, return)")
                self.next()
                if self.at("$"):
                    self.next()
                    mech = self.tok
                    if not self.at("Lap"):
                        raise error("P005", f"unexpected '{mech.text}': expected Lap (the "
                                    "mechanism of the notes; x := $ Lap (b, e))", mech.span)
                    self.next()
                    self.expect("(")
                    scale = self.expr()
                    self.expect(",")
                    center = self.expr()
                    self.expect(")")
                    shift = None
                    if self.at("shift"):
                        self.next()
                        shift = self.expr()
                    return Sample(target, scale, center, shift, self.span_from(t.span))
                e = self.expr()
                return Assign(target, e, self.span_from(t.span))
            raise self.fail("a statement")
        finally:
            self.depth -= 1

    # -- expressions
    def expr(self, assertion: bool = False) -> Expr:
        self.deeper()
        try:
            return self.implication(assertion)
        finally:
            self.depth -= 1

    def implication(self, a: bool) -> Expr:
        left = self.disjunction(a)
        if a and self.at("=>"):
            self.next()
            right = self.implication(a)
            return BinOp("=>", left, right, _join(left.span, right.span))
        return left

    def disjunction(self, a: bool) -> Expr:
        left = self.conjunction(a)
        while self.at("||") or self.at("\\/"):
            self.next()
            right = self.conjunction(a)
            left = BinOp("||", left, right, _join(left.span, right.span))
        return left

    def conjunction(self, a: bool) -> Expr:
        left = self.negation(a)
        while self.at("&&") or self.at("/\\"):
            self.next()
            right = self.negation(a)
            left = BinOp("&&", left, right, _join(left.span, right.span))
        return left

    def negation(self, a: bool) -> Expr:
        if self.at("not") or self.at("~"):
            t = self.next()
            self.deeper()
            try:
                arg = self.negation(a)
            finally:
                self.depth -= 1
            return UnOp("not", arg, _join(t.span, arg.span))
        return self.comparison(a)

    def comparison(self, a: bool) -> Expr:
        left = self.append(a)
        for op in ("=", "<>", "<=", ">=", "<", ">"):
            if self.at(op):
                self.next()
                right = self.append(a)
                return BinOp(op, left, right, _join(left.span, right.span))
        return left

    def append(self, a: bool) -> Expr:
        left = self.additive(a)
        while self.at("++"):
            self.next()
            right = self.additive(a)
            left = BinOp("++", left, right, _join(left.span, right.span))
        return left

    def additive(self, a: bool) -> Expr:
        left = self.multiplicative(a)
        while self.at("+") or self.at("-"):
            op = self.next().text
            right = self.multiplicative(a)
            left = BinOp(op, left, right, _join(left.span, right.span))
        return left

    def multiplicative(self, a: bool) -> Expr:
        left = self.unary(a)
        while self.at("*") or self.at("/") or self.at("mod"):
            op = self.next().text
            right = self.unary(a)
            left = BinOp(op, left, right, _join(left.span, right.span))
        return left

    def unary(self, a: bool) -> Expr:
        if self.at("-"):
            t = self.next()
            self.deeper()
            try:
                arg = self.unary(a)
            finally:
                self.depth -= 1
            return UnOp("-", arg, _join(t.span, arg.span))
        if self.at("size"):
            t = self.next()
            arg = self.postfix(a)
            return Size(arg, _join(t.span, arg.span))
        return self.postfix(a)

    def postfix(self, a: bool) -> Expr:
        e = self.atom(a)
        while self.at("["):
            self.next()
            idx = self.expr()
            end = self.expect("]")
            e = Index(e, idx, _join(e.span, end.span))
        return e

    def atom(self, a: bool) -> Expr:
        t = self.tok
        if t.kind == "num":
            self.next()
            v = number_value(t.text, t.span)
            return Num(Fraction(v), isinstance(v, int), t.span)
        if self.at("true") or self.at("false"):
            self.next()
            return BoolLit(t.text == "true", t.span)
        if self.at("("):
            self.next()
            e = self.expr(a)
            end = self.expect(")")
            return _respan(e, _join(t.span, end.span))
        if self.at("["):
            self.next()
            items = []
            if not self.at("]"):
                items.append(self.expr(a))
                while self.at(",") or self.at(";"):
                    self.next()
                    items.append(self.expr(a))
            end = self.expect("]")
            return ListLit(tuple(items), _join(t.span, end.span))
        if t.kind == "ident" and (t.text in FUNCTIONS or t.text in PREDICATES) and \
                self.peek().text == "(":
            if t.text in PREDICATES and not a:
                raise error("T014", f"{t.text} is a relation between the two runs: it may be "
                            "used only in a specification or an invariant", t.span)
            self.next()
            self.expect("(")
            args = [self.expr(a)]
            while self.at(","):
                self.next()
                args.append(self.expr(a))
            end = self.expect(")")
            arity = FUNCTIONS.get(t.text, PREDICATES.get(t.text))
            if len(args) != arity:
                raise error("T003", f"{t.text} takes {arity} argument(s), given {len(args)}",
                            _join(t.span, end.span))
            return Call(t.text, tuple(args), _join(t.span, end.span))
        if t.kind == "ident" and (t.text not in KEYWORDS or t.text == "result"):
            if t.text == "result" and not a:
                raise self.fail("an expression ('result' names the output in a specification)")
            self.next()
            if self.tok.kind == "run":
                r = self.next()
                if not a:
                    raise error("P010", f"{t.text}<{r.text}> names one run's value: it may be used "
                                "only in a specification or an invariant", _join(t.span, r.span))
                return Name(t.text, int(r.text), _join(t.span, r.span))
            return Name(t.text, None, t.span)
        raise self.fail("an expression")


def _join(a: Span, b: Span) -> Span:
    return Span(a.file, a.line, a.col, b.end_line, b.end_col)


def _respan(e: Expr, span: Span) -> Expr:
    from obligations.records import replace
    return replace(e, span=span)


def parse_while(text: str, file: str = "<input>") -> WProgram:
    """Parse a ``.pwhile`` source text; raises ``PrivInferError`` (P002-P010, T003, T014)."""
    try:
        toks = tokenize(text, file)
        procs = _Parser(toks, file).program()
    except PrivInferError as exc:
        exc.source = text
        raise
    names = set()
    for p in procs:
        if p.name in names:
            raise PrivInferError(error("T013", f"a second procedure named {p.name}", p.span).first,
                                 text)
        names.add(p.name)
    prog = WProgram(tuple(procs), file, text)
    try:
        check_program(prog)
    except PrivInferError as exc:
        exc.source = text
        raise
    return prog


def parse_while_file(path: str) -> WProgram:
    from verifier.language.source import read_source
    return parse_while(read_source(path), path)


def is_while_file(path: str) -> bool:
    """Files ending in ``.pwhile`` are while-programs."""
    return str(path).endswith(".pwhile")


# ---------------------------------------------------------------------------------------------
# simple types
# ---------------------------------------------------------------------------------------------
# Types are strings: "int", "real", "bool", "list(T)", and "?" for the element of [] not yet
# known. int <= real; a variable's type is the join of everything assigned to it.

def _join_types(a: Optional[str], b: Optional[str], span: Span) -> str:
    if a is None or a == b:
        return b
    if b is None:
        return a
    if {a, b} == {"int", "real"}:
        return "real"
    if a.startswith("list(") and b.startswith("list("):
        return f"list({_join_types(_elem(a), _elem(b), span)})"
    if a == "?":
        return b
    if b == "?":
        return a
    raise error("T002", f"type mismatch: {show_type(a)} and {show_type(b)}", span)


def _elem(t: str) -> str:
    return t[5:-1]


def show_type(t: str) -> str:
    if t.startswith("list("):
        return f"{show_type(_elem(t))} list"
    return "'a" if t == "?" else t


def wtype_simple(t: WType) -> str:
    if t.base == "list":
        return f"list({wtype_simple(t.elem)})"
    return t.simple


@record(frozen=False)
class ProcTypes:
    """The simple type of every variable of a procedure (parameters and locals)."""
    vars: Dict[str, str]
    params: Tuple[str, ...]


def check_program(prog: WProgram) -> Dict[str, ProcTypes]:
    return {p.name: typecheck_proc(p) for p in prog.procs}


def typecheck_proc(proc: Proc) -> ProcTypes:
    env: Dict[str, str] = {}
    for p in proc.params:
        if p.name in env:
            raise error("T007", f"a second parameter named {p.name}", p.span)
        if p.name in KEYWORDS or p.name in FUNCTIONS or p.name in PREDICATES or reserved(p.name):
            raise error("P005", f"{p.name} cannot name a parameter", p.span)
        env[p.name] = wtype_simple(p.type)
    params = tuple(env)
    assigned: List[Tuple[str, Expr, Span, bool]] = []
    _collect(proc.body, assigned)
    for name, _, span, _ in assigned:
        if name in params:
            raise error("T002", f"the parameter {name} is assigned: parameters are read-only "
                        "(copy it to a local variable)", span)
        if name in FUNCTIONS or name in PREDICATES or reserved(name):
            raise error("P005", f"{name} cannot name a variable", span)
    # the join of every assignment, to a fixpoint
    for _ in range(50):
        changed = False
        for name, e, span, sampled in assigned:
            t = "real" if sampled else expr_type(e, env, span_ok=True)
            new = _join_types(env.get(name), t, span)
            if new != env.get(name):
                env[name] = new
                changed = True
        if not changed:
            break
    # now check every expression with the final types
    ret_seen = _check_stmts(proc.body, env, proc, top=True)
    if not ret_seen:
        raise error("T002", f"{proc.name} must end with return e", proc.span)
    if proc.spec is not None:
        spec_env = dict(env)
        spec_env["result"] = wtype_simple(proc.ret)
        for e, what in ((proc.spec.eps, "eps"), (proc.spec.delta, "delta")):
            t = expr_type(e, {k: v for k, v in env.items() if k in params}, assertion=False)
            if t not in ("int", "real"):
                raise error("T002", f"the guarantee's {what} must be a number, not {show_type(t)}",
                            e.span)
            _only_public(e, proc, what)
        _check_assertion(proc.spec.pre, {k: v for k, v in env.items() if k in params}, "pre")
        if proc.spec.post is not None:
            _check_assertion(proc.spec.post, spec_env, "post")
    return ProcTypes(env, params)


def _only_public(e: Expr, proc: Proc, what: str) -> None:
    pub = {p.name for p in proc.params if p.pub}
    for n in names_of(e):
        if n.name not in pub:
            raise error("T002", f"the guarantee's {what} may use only pub parameters, not {n.name}",
                        n.span)


def common_tails_hoisted(stmts: Sequence[Stmt]) -> Tuple[Stmt, ...]:
    """``stmts`` with every ``if g then A; s else B; s end`` (``s`` an assignment written the same
    at the end of both branches) rewritten ``if g then A else B end; s``, in loops and branches
    too: the same program (``s`` runs after either branch). The apRHL derivation builder and
    kernel both derive the rewritten statements, so that a counter stepped at the end of each
    branch is a loop counter."""
    out: List[Stmt] = []
    for s in stmts:
        if isinstance(s, While):
            out.append(replace(s, body=common_tails_hoisted(s.body)))
        elif isinstance(s, If):
            then, else_ = list(common_tails_hoisted(s.then)), list(common_tails_hoisted(s.else_))
            tail: List[Stmt] = []
            while then and else_ and _same_assignment(then[-1], else_[-1]):
                tail.insert(0, then.pop())
                else_.pop()
            out.append(replace(s, then=tuple(then) or (Skip(s.span),), else_=tuple(else_)))
            out += tail
        else:
            out.append(s)
    return tuple(out)


def _same_assignment(a: Stmt, b: Stmt) -> bool:
    return (isinstance(a, Assign) and isinstance(b, Assign) and a.target == b.target
            and pretty_expr(a.value) == pretty_expr(b.value))


def conjuncts(e) -> List:
    """The conjuncts of a condition (its ``&&`` flattened)."""
    if isinstance(e, BinOp) and e.op == "&&":
        return conjuncts(e.left) + conjuncts(e.right)
    return [e]


def names_of(e) -> List[Name]:
    out: List[Name] = []

    def walk(x) -> None:
        if isinstance(x, Name):
            out.append(x)
        for f in ("left", "right", "arg", "array", "index"):
            if hasattr(x, f):
                walk(getattr(x, f))
        for f in ("items", "args"):
            if hasattr(x, f):
                for y in getattr(x, f):
                    walk(y)
    walk(e)
    return out


def _check_assertion(e: Expr, env: Dict[str, str], where: str) -> None:
    t = expr_type(e, env, assertion=True)
    if t != "bool":
        raise error("T002", f"a specification's relation must be a bool, not {show_type(t)}", e.span)


def _collect(stmts, out) -> None:
    for s in stmts:
        if isinstance(s, Assign):
            out.append((s.target, s.value, s.span, False))
        elif isinstance(s, Sample):
            out.append((s.target, s.center, s.span, True))
        elif isinstance(s, If):
            _collect(s.then, out)
            _collect(s.else_, out)
        elif isinstance(s, While):
            _collect(s.body, out)


def _check_stmts(stmts, env, proc: Proc, top: bool) -> bool:
    for k, s in enumerate(stmts):
        last = k == len(stmts) - 1
        if isinstance(s, Return):
            if not (top and last):
                raise error("T002", "return must be the last statement of the procedure", s.span)
            t = expr_type(s.value, env)
            want = wtype_simple(proc.ret)
            if _join_types(want, t, s.value.span) != want:
                raise error("T002", f"{proc.name} returns {show_type(want)}, not {show_type(t)}",
                            s.value.span)
            return True
        if isinstance(s, Assign):
            expr_type(s.value, env)
        elif isinstance(s, Sample):
            for e in (s.scale, s.center) + ((s.shift,) if s.shift is not None else ()):
                t = expr_type(e, env)
                if t not in ("int", "real"):
                    raise error("T002", f"Lap takes numbers, not {show_type(t)}", e.span)
        elif isinstance(s, If):
            if expr_type(s.cond, env) != "bool":
                raise error("T002", "the condition of if must be a bool", s.cond.span)
            _check_stmts(s.then, env, proc, False)
            _check_stmts(s.else_, env, proc, False)
        elif isinstance(s, While):
            if expr_type(s.cond, env) != "bool":
                raise error("T002", "the condition of while must be a bool", s.cond.span)
            for inv in s.invariants:
                _check_assertion(inv, env, "invariant")
            if s.variant is not None and expr_type(s.variant, env) != "int":
                raise error("T002", "a variant must be an int", s.variant.span)
            _check_stmts(s.body, env, proc, False)
    if top:
        return False
    return False


def expr_type(e: Expr, env: Dict[str, str], assertion: bool = False, span_ok: bool = False) -> str:
    """The simple type of ``e``; raises T001/T002."""
    if isinstance(e, Num):
        return "int" if e.is_int else "real"
    if isinstance(e, BoolLit):
        return "bool"
    if isinstance(e, Name):
        if e.name not in env:
            if span_ok:
                return "?"
            raise error("T001", f"unbound variable {e.name}", e.span,
                        "assign it before use; parameters are declared in the proc line")
        return env[e.name]
    if isinstance(e, ListLit):
        t = None
        for it in e.items:
            t = _join_types(t, expr_type(it, env, assertion, span_ok), it.span)
        return f"list({t or '?'})"
    if isinstance(e, Index):
        a = expr_type(e.array, env, assertion, span_ok)
        i = expr_type(e.index, env, assertion, span_ok)
        if a == "?":
            return "?"
        if not a.startswith("list("):
            raise error("T002", f"only a list can be indexed, not {show_type(a)}", e.array.span)
        if i not in ("int", "?"):
            raise error("T002", f"an index must be an int, not {show_type(i)}", e.index.span)
        return _elem(a)
    if isinstance(e, Size):
        a = expr_type(e.arg, env, assertion, span_ok)
        if a != "?" and not a.startswith("list("):
            raise error("T002", f"size takes a list, not {show_type(a)}", e.arg.span)
        return "int"
    if isinstance(e, UnOp):
        t = expr_type(e.arg, env, assertion, span_ok)
        if e.op == "not":
            if t not in ("bool", "?"):
                raise error("T002", f"not takes a bool, not {show_type(t)}", e.arg.span)
            return "bool"
        if t not in ("int", "real", "?"):
            raise error("T002", f"- takes a number, not {show_type(t)}", e.arg.span)
        return t
    if isinstance(e, Call):
        ts = [expr_type(a, env, assertion, span_ok) for a in e.args]
        if e.fn in PREDICATES:
            for a, t in zip(e.args[:2], ts[:2]):
                if not isinstance(a, Name) or a.run is None:
                    raise error("T002", f"{e.fn} relates a list parameter in the two runs: "
                                f"write {e.fn} (d<1>, d<2>{', c' if e.fn != 'adj' else ''})",
                                a.span)
                if not t.startswith("list("):
                    raise error("T002", f"{e.fn} takes lists, not {show_type(t)}", a.span)
            if e.args[0].name != e.args[1].name or {e.args[0].run, e.args[1].run} != {1, 2}:
                raise error("T002", f"{e.fn} relates one list in the two runs: {e.fn} (d<1>, d<2>)",
                            e.span)
            if e.fn == "adjWithin" and ts[2] not in ("int", "real"):
                raise error("T002", "adjWithin's bound must be a number", e.args[2].span)
            if e.fn == "adjWithin" and ts[0] != "list(real)" and ts[0] != "list(int)":
                raise error("T002", "adjWithin relates lists of numbers", e.args[0].span)
            if e.fn == "allWithin" and (ts[2] not in ("int", "real")
                                        or ts[0] not in ("list(real)", "list(int)")):
                raise error("T002", "allWithin relates lists of numbers by a numeric bound",
                            e.args[0].span)
            return "bool"
        for a, t in zip(e.args, ts):
            if t not in ("int", "real", "?"):
                raise error("T002", f"{e.fn} takes numbers, not {show_type(t)}", a.span)
        return "real" if "real" in ts else ("int" if "int" in ts else "?")
    if isinstance(e, BinOp):
        lt = expr_type(e.left, env, assertion, span_ok)
        rt = expr_type(e.right, env, assertion, span_ok)
        op = e.op
        if op in ("&&", "||", "=>"):
            for side, t in ((e.left, lt), (e.right, rt)):
                if t not in ("bool", "?"):
                    raise error("T002", f"{op} takes bools, not {show_type(t)}", side.span)
            return "bool"
        if op == "++":
            if "?" in (lt, rt):
                return lt if rt == "?" else rt
            for side, t in ((e.left, lt), (e.right, rt)):
                if not t.startswith("list("):
                    raise error("T002", f"++ joins lists, not {show_type(t)}", side.span)
            return _join_types(lt, rt, e.span)
        if op in ("=", "<>"):
            if "?" not in (lt, rt):
                _join_types(lt, rt, e.span)
            return "bool"
        for side, t in ((e.left, lt), (e.right, rt)):
            if t not in ("int", "real", "?"):
                raise error("T002", f"{op} takes numbers, not {show_type(t)}", side.span)
        if op in ("<", "<=", ">", ">="):
            return "bool"
        if op == "/":
            return "real"
        if op == "mod":
            for side, t in ((e.left, lt), (e.right, rt)):
                if t == "real":
                    raise error("T002", "mod takes integers, not real numbers", side.span)
            return "int"
        return "real" if "real" in (lt, rt) else ("?" if "?" in (lt, rt) else "int")
    raise error("T002", "unknown expression", getattr(e, "span", None))


# ---------------------------------------------------------------------------------------------
# printer
# ---------------------------------------------------------------------------------------------

_PREC = {"=>": 1, "||": 2, "&&": 3, "=": 5, "<>": 5, "<": 5, "<=": 5, ">": 5, ">=": 5,
         "++": 6, "+": 7, "-": 7, "*": 8, "/": 8, "mod": 8}


def spec_guarantee(proc: Proc) -> str:
    """What a verified specification guarantees, in words.

    With the output relation ``=`` the apRHL judgement is differential privacy with respect to
    the precondition, stated as such: "P is (eps, 0)-differentially private with respect to
    adjWithin (d<1>, d<2>, 1), for size d >= 1". The relation is every conjunct that relates
    the two runs (and "any change of x" for a private parameter no such conjunct names); the
    conditions are the other conjuncts: on public parameters (they hold in both runs), on
    the size of a list an adjacency relation of the precondition relates (equal in both runs:
    written without a run), or on one run only, which the wording says ("for d<1>[0] = 0 in
    run 1 only": the judgement says nothing of the pairs whose other run fails it, so it is
    not differential privacy with respect to the relation alone).

    Another output relation (``true``, a relation of other variables, ``result<2> = result<1> +
    1``) is an apRHL judgement that says nothing of the privacy of the output, and is named so.
    """
    spec = proc.spec
    bound = f"({pretty_expr(spec.eps)}, {pretty_expr(spec.delta)})"
    if spec.post is not None:
        return (f"the apRHL judgement at {bound} with output relation {pretty_expr(spec.post)} "
                "(not differential privacy of the output)")
    private = [p.name for p in proc.params if not p.pub]
    conjuncts = _and_parts(spec.pre)
    # lists an adjacency relation relates position by position: their sizes are equal
    related = {c.args[0].name for c in conjuncts if isinstance(c, Call) and c.fn in PREDICATES
               and all(isinstance(a, Name) for a in c.args[:2])
               and c.args[0].name == c.args[1].name and {c.args[0].run, c.args[1].run} == {1, 2}}
    relations: List[str] = []
    conditions: List[str] = []
    mentioned = set()
    for c in conjuncts:
        if isinstance(c, BoolLit) and c.value:
            continue
        names = [n for n in names_of(c) if n.name in private]
        runs = {n.run for n in names}
        if isinstance(c, Call) and c.fn in PREDICATES or len(runs) > 1:
            relations.append(pretty_expr(c))
            mentioned |= {n.name for n in names}
            continue
        text = pretty_expr(c)
        sized = {n.name for n in names if n.name in related}
        if runs and sized == {n.name for n in names} and _reads_only_size(c, sized):
            for name in sorted(sized):
                text = re.sub(rf"\b{re.escape(name)}<[12]>", name, text)
        elif runs:
            text += f" in run {runs.pop()} only"
        conditions.append(text)
    relations += [f"any change of {name}" for name in private if name not in mentioned]
    what = f"{proc.name} is {bound}-differentially private"
    if relations:
        what += " with respect to " + " and ".join(relations)
    else:
        what += " when its inputs are equal in both runs"
    if conditions:
        what += ", for " + " and ".join(conditions)
    return what


def _and_parts(e: Expr) -> List[Expr]:
    if isinstance(e, BinOp) and e.op == "&&":
        return _and_parts(e.left) + _and_parts(e.right)
    return [e]


def _reads_only_size(e, lists: set) -> bool:
    """Every occurrence of the ``lists`` in ``e`` is under ``size``."""
    if isinstance(e, Size) and isinstance(e.arg, Name) and e.arg.name in lists:
        return True
    if isinstance(e, Name):
        return e.name not in lists
    for f in ("left", "right", "arg", "array", "index"):
        if hasattr(e, f) and not _reads_only_size(getattr(e, f), lists):
            return False
    for f in ("items", "args"):
        if hasattr(e, f) and not all(_reads_only_size(x, lists) for x in getattr(e, f)):
            return False
    return True


def pretty_expr(e: Expr, prec: int = 0) -> str:
    if isinstance(e, Num):
        v = e.value
        if e.is_int:
            s = str(v.numerator)
        elif v.denominator == 1:
            s = f"{v.numerator}.0"
        else:
            s = _decimal(v)
        return s
    if isinstance(e, BoolLit):
        return "true" if e.value else "false"
    if isinstance(e, Name):
        return e.name + (f"<{e.run}>" if e.run else "")
    if isinstance(e, ListLit):
        return "[" + ", ".join(pretty_expr(x) for x in e.items) + "]"
    if isinstance(e, Index):
        return f"{pretty_expr(e.array, 10)}[{pretty_expr(e.index)}]"
    if isinstance(e, Size):
        return _paren(f"size {pretty_expr(e.arg, 10)}", prec > 9)
    if isinstance(e, Call):
        return f"{e.fn} (" + ", ".join(pretty_expr(a) for a in e.args) + ")"
    if isinstance(e, UnOp):
        if e.op == "not":
            return _paren(f"not {pretty_expr(e.arg, 4)}", prec > 4)
        return _paren(f"-{pretty_expr(e.arg, 9)}", prec > 9)
    if isinstance(e, BinOp):
        p = _PREC[e.op]
        if e.op == "=>":
            s = f"{pretty_expr(e.left, p + 1)} => {pretty_expr(e.right, p)}"
        elif p == 5:
            s = f"{pretty_expr(e.left, p + 1)} {e.op} {pretty_expr(e.right, p + 1)}"
        else:
            s = f"{pretty_expr(e.left, p)} {e.op} {pretty_expr(e.right, p + 1)}"
        return _paren(s, prec > p)
    raise TypeError(e)


def _decimal(v: Fraction) -> str:
    d = v.denominator
    k = 0
    while d % 2 == 0:
        d //= 2
        k += 1
    m = 0
    while d % 5 == 0:
        d //= 5
        m += 1
    if d != 1:
        return f"({v.numerator} / {v.denominator})" if v >= 0 else f"(-{-v.numerator} / {v.denominator})"
    digits = max(k, m)
    n = v * 10 ** digits
    sign = "-" if n < 0 else ""
    n = abs(int(n))
    s = str(n).rjust(digits + 1, "0")
    return f"{sign}{s[:-digits]}.{s[-digits:]}"


def _paren(s: str, yes: bool) -> str:
    return f"({s})" if yes else s


def pretty_stmts(stmts, indent: int) -> List[str]:
    pad = "  " * indent
    out: List[str] = []
    for k, s in enumerate(stmts):
        sep = ";" if k < len(stmts) - 1 else ""
        if isinstance(s, Skip):
            out.append(f"{pad}skip{sep}")
        elif isinstance(s, Assign):
            out.append(f"{pad}{s.target} := {pretty_expr(s.value)}{sep}")
        elif isinstance(s, Sample):
            sh = f" shift {pretty_expr(s.shift)}" if s.shift is not None else ""
            out.append(f"{pad}{s.target} := $ Lap ({pretty_expr(s.scale)}, {pretty_expr(s.center)}){sh}{sep}")
        elif isinstance(s, Return):
            out.append(f"{pad}return {pretty_expr(s.value)}{sep}")
        elif isinstance(s, If):
            out.append(f"{pad}if {pretty_expr(s.cond)} then")
            out += pretty_stmts(s.then, indent + 1)
            out.append(f"{pad}else")
            out += pretty_stmts(s.else_, indent + 1)
            out.append(f"{pad}end{sep}")
        elif isinstance(s, While):
            if not s.invariants and s.variant is None:
                out.append(f"{pad}while {pretty_expr(s.cond)} do")
            else:
                out.append(f"{pad}while {pretty_expr(s.cond)}")
                for inv in s.invariants:
                    out.append(f"{pad}  invariant {pretty_expr(inv)}")
                if s.variant is not None:
                    out.append(f"{pad}  variant {pretty_expr(s.variant)}")
                out.append(f"{pad}do")
            out += pretty_stmts(s.body, indent + 1)
            out.append(f"{pad}end{sep}")
    return out


def pretty_type(t: WType) -> str:
    return f"({pretty_type(t.elem)}) list" if t.base == "list" and t.elem.base == "list" else str(t)


def pretty_proc(p: Proc) -> str:
    params = " ".join(f"({'pub ' if q.pub else ''}{q.name} : {pretty_type(q.type)})" for q in p.params)
    lines = [f"proc {p.name} {params} : {pretty_type(p.ret)}".replace("  ", " ")]
    if p.spec is not None:
        post = "=" if p.spec.post is None else pretty_expr(p.spec.post)
        lines.append(f"  |- ({pretty_expr(p.spec.eps)}, {pretty_expr(p.spec.delta)}) : "
                     f"{pretty_expr(p.spec.pre)} ==> {post}")
    lines += pretty_stmts(p.body, 1)
    lines.append("end")
    return "\n".join(lines)


def pretty_while_program(prog: WProgram) -> str:
    return "".join(pretty_proc(p) + "\n\n" for p in prog.procs)
