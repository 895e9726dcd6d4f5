"""The pretty-printer: syntax trees back to surface syntax.

Contract: for every tree ``t`` the parser produces, parsing the printed text gives ``t``
again (``parse_program(pretty_program(t)) == t``, likewise for expressions, assertions,
simple and relational types; equality ignores spans). Parentheses are minimal for the
precedences of ``verifier.language.parser``, with one exception for readability: the operand
of a prefix operator (``- not return infer ran ~``) is parenthesised unless it is an atom
(``return (f x)``, ``-(-x)``, ``~(a = b)``, where ``return f x``, ``- -x`` and ``~a = b`` would
do). Comments and the original layout are not kept.

``pretty_program`` lays declarations out on several lines (``let``/``mlet`` chains one binding
per line, ``match`` branches on their own lines, long ``val`` types broken before ``->``);
the other functions print on one line. Long lists and long chains of one operator
(``a + b + ...``, ``a :: b :: ...``, ``f a b ...``) are printed without recursion per element.
"""
from __future__ import annotations

from fractions import Fraction
from typing import List, Optional, Tuple

from verifier.errors import PrivInferError
from verifier.language.ast import (
    App, BinOp, BoolLit, Cons, Conj, Decl, Disj, DivBound, Divergence, Expr, Fun, If, Implies,
    Infer, IntLit, Let, LetDecl, LetRec, ListLit, Match, MLet, Neg, Observe, Pattern, PTuple,
    PUnit, PVar, PWild, Program, Quant, Ran, RArrow, RealLit, Return, RMonad, RRefine, RSimple,
    RType, RunVar, SameRuns, SimpleType, TArrow, TBase, TDist, TFin, TList, TMonad, TSimplex,
    TTuple, TupleLit, UnitLit, UnOp, ValDecl, Var,
)
from verifier.language.parser import (
    EXPR_PRECEDENCE, PREC_APP, PREC_ATOM, PREC_LOOSE, PREC_NEG, PREC_OR, PREC_PREFIX,
    recursion_headroom,
)
from verifier.language.lexer import tokenize

#: Lines longer than this are broken where the layout allows it.
WIDTH = 90

#: Python frames allowed while printing (the printer recurses once or twice per nesting level).
_HEADROOM = 100_000

_RIGHT_CHAINS = {Cons: "::", Conj: "/\\", Disj: "\\/", Implies: "=>"}

#: The precedence level of every node but ``BinOp``, literals (negative ones are prefix
#: expressions) and ``Observe`` (whose two forms differ).
_LEVELS = {
    **{kind: PREC_LOOSE for kind in (Let, LetRec, MLet, Fun, If, Match, Quant)},
    **{kind: EXPR_PRECEDENCE[op][0] for kind, op in _RIGHT_CHAINS.items()},
    Neg: PREC_NEG, DivBound: PREC_NEG,
    **{kind: PREC_PREFIX for kind in (UnOp, Return, Infer, Ran)},
    App: PREC_APP,
    **{kind: PREC_ATOM for kind in (Var, RunVar, BoolLit, UnitLit, ListLit, TupleLit, SameRuns)},
}


# ------------------------------------------------------------------------------ public API


def pretty_program(program: Program) -> str:
    """The declarations of ``program``, one after another, ending with a newline.

    A blank line separates declarations, except a ``val`` and the ``let`` of the same name
    that follows it. An empty program prints as the empty string.
    """
    with recursion_headroom(_HEADROOM):
        lines: List[str] = []
        previous: Optional[Decl] = None
        for decl in program.decls:
            if lines and not (isinstance(previous, ValDecl) and isinstance(decl, LetDecl)
                              and previous.name == decl.name):
                lines.append("")
            lines.extend(_decl_lines(decl))
            previous = decl
        return "\n".join(lines) + "\n" if lines else ""


def pretty_expr(expr: Expr) -> str:
    """``expr`` on one line."""
    with recursion_headroom(_HEADROOM):
        return _expr(expr, PREC_LOOSE, True)


def pretty_expr_short(expr: Expr, limit: int = 60, depth: int = 8) -> str:
    """The beginning of ``expr`` on one line, at most ``limit`` characters (an ellipsis where
    it is cut): for descriptions. Sub-expressions deeper than ``depth`` are not printed (an
    ellipsis stands for them), so a large expression costs no more than a small one."""
    text = " ".join(_expr(_cut(expr, depth), PREC_LOOSE, True).split())  # shallow: no headroom
    return text if len(text) <= limit else text[:limit - 1] + "…"


def _cut(node, depth: int):
    """``node`` with its sub-expressions below ``depth`` replaced by an ellipsis."""
    from verifier.language.ast import Node, record_fields, replace_fields
    if depth <= 0 and isinstance(node, Expr):
        return Var("…", node.span)
    changes = {}
    for name in record_fields(node):
        value = getattr(node, name)
        if isinstance(value, Node):
            new = _cut(value, depth - 1)
            if new is not value:
                changes[name] = new
        elif isinstance(value, tuple) and any(isinstance(v, Node) for v in value):
            changes[name] = tuple(_cut(v, depth - 1) if isinstance(v, Node) else v
                                  for v in value)
    return replace_fields(node, **changes) if changes else node


def pretty_assertion(assertion: Expr) -> str:
    """An assertion (the ``A`` of ``{x :: T | A}``) on one line; ``SameRuns`` prints as ``=``."""
    if isinstance(assertion, SameRuns):
        return "="
    return pretty_expr(assertion)


def pretty_type(typ: SimpleType) -> str:
    """A simple type, e.g. ``(real -> real) list``."""
    with recursion_headroom(_HEADROOM):
        return _type(typ, 0)


def pretty_rtype(rtype: RType) -> str:
    """A relational type on one line."""
    with recursion_headroom(_HEADROOM):
        return _rtype(rtype, 0)


def pretty_pattern(pattern: Pattern) -> str:
    """A pattern as written after ``fun`` or ``let``: ``x``, ``(x : real)``, ``(a, _)``, ..."""
    with recursion_headroom(_HEADROOM):
        return _pattern(pattern)


def pretty_divergence(div: Divergence) -> str:
    """``DP(e)``, ``SD``, ``HD`` or ``KL``."""
    with recursion_headroom(_HEADROOM):
        return _divergence(div)


# ------------------------------------------------------------------------------ types
# Simple type levels: 0 arrow, 1 tuple, 2 postfix list, 3 atom.


def _type(t: SimpleType, prec: int) -> str:
    if isinstance(t, TArrow):
        parts = []
        while isinstance(t, TArrow):
            parts.append(_type(t.dom, 1))
            t = t.cod
        parts.append(_type(t, 1))
        return _wrap(" -> ".join(parts), 0 < prec)
    if isinstance(t, TTuple):
        return _wrap(" * ".join([_type(item, 2) for item in t.items]), 1 < prec)
    if isinstance(t, TList):
        depth = 0
        while isinstance(t, TList):
            depth += 1
            t = t.elem
        return _wrap(_type(t, 2) + " list" * depth, 2 < prec)
    if isinstance(t, TBase):
        return t.name
    if isinstance(t, TFin):
        return f"[{t.k}]"
    if isinstance(t, TSimplex):
        return f"[0,1]^{t.k}"
    if isinstance(t, TMonad):
        return f"M[{_type(t.elem, 0)}]"
    if isinstance(t, TDist):
        return f"D[{_type(t.elem, 0)}]"
    raise TypeError(f"not a simple type: {t!r}")


def _rtype(rt: RType, prec: int) -> str:
    """Relational type levels: 0 arrow, 1 operand (refinement, monad, simple type)."""
    if isinstance(rt, RArrow):
        parts = []
        while isinstance(rt, RArrow):
            parts.append(_rtype(rt.dom, 1))
            rt = rt.cod
        parts.append(_rtype(rt, 1))
        return _wrap(" -> ".join(parts), 0 < prec)
    if isinstance(rt, RSimple):
        return _wrap(_type(rt.type, 0), isinstance(rt.type, TArrow) and prec > 0)
    if isinstance(rt, RRefine):
        if isinstance(rt.assertion, SameRuns) and isinstance(rt.base, RSimple):
            base = _type(rt.base.type, 0)
        else:
            base = _rtype(rt.base, 0)
        return f"{{{rt.var} :: {base} | {pretty_assertion(rt.assertion)}}}"
    if isinstance(rt, RMonad):
        index = _divergence(rt.div)
        if rt.delta is not None:
            index += ", " + _expr(rt.delta, PREC_LOOSE, True)
        return f"M[{index}] {_rtype(rt.body, 1)}"
    raise TypeError(f"not a relational type: {rt!r}")


def _divergence(div: Divergence) -> str:
    if div.kind == "DP" and div.eps is not None:
        return f"DP({_expr(div.eps, PREC_LOOSE, True)})"
    return div.kind


# ------------------------------------------------------------------------------ patterns


def _pattern(p: Pattern) -> str:
    """A pattern that stands alone (as a parameter or a binder)."""
    if isinstance(p, (PVar, PWild)) and p.annot is not None:
        return f"({_pattern_item(p)})"
    return _pattern_item(p)


def _pattern_item(p: Pattern) -> str:
    """A pattern inside parentheses, where an annotation needs no parentheses of its own."""
    if isinstance(p, PVar):
        return p.name if p.annot is None else f"{p.name} : {_type(p.annot, 0)}"
    if isinstance(p, PWild):
        return "_" if p.annot is None else f"_ : {_type(p.annot, 0)}"
    if isinstance(p, PUnit):
        return "()"
    if isinstance(p, PTuple):
        return "(" + ", ".join([_pattern_item(item) for item in p.items]) + ")"
    raise TypeError(f"not a pattern: {p!r}")


def _params(params: Tuple[Pattern, ...]) -> str:
    return " ".join([_pattern(p) for p in params])


# ------------------------------------------------------------------------------ expressions
# ``_expr(e, prec, tail)`` prints ``e`` where an expression of precedence ``prec`` or tighter
# is needed (levels as in the parser). ``tail`` says that nothing follows ``e`` up to a closing
# token (``)``, ``in``, ``then``, ``|``, end of declaration ...): only there may a construct of
# level 0, which extends as far right as it can, go without parentheses.


def _level(e: Expr) -> int:
    kind = type(e)
    level = _LEVELS.get(kind)
    if level is not None:
        return level
    if kind is BinOp:
        return EXPR_PRECEDENCE[e.op][0]
    if kind is IntLit or kind is RealLit:
        return PREC_PREFIX if e.value < 0 else PREC_ATOM
    if kind is Observe:
        return PREC_LOOSE if _arrow_observe(e) else PREC_APP
    raise TypeError(f"not an expression: {e!r}")


def _arrow_observe(e: Observe) -> bool:
    """Whether ``e`` prints in the form ``observe x => body in prior``."""
    lik = e.likelihood
    return (e.arrow_form and isinstance(lik, Fun) and len(lik.params) == 1
            and isinstance(lik.params[0], PVar))


def _expr(e: Expr, prec: int, tail: bool) -> str:
    level = _level(e)
    if (not tail) if level == PREC_LOOSE else level < prec:
        return "(" + _bare(e, True) + ")"
    return _bare(e, tail)


def _wrap(text: str, parens: bool) -> str:
    return f"({text})" if parens else text


def _bare(e: Expr, tail: bool) -> str:
    """``e`` without parentheses around it."""
    if isinstance(e, Var):
        return e.name
    if isinstance(e, (IntLit, BoolLit, RealLit, UnitLit, RunVar, SameRuns)):
        return _literal(e)
    if isinstance(e, App):
        note = e.annotation
        args = []
        while isinstance(e, App):
            args.append(_expr(e.arg, PREC_ATOM, False))
            e = e.fn
        args.append(_expr(e, PREC_APP, False))
        text = " ".join(reversed(args))
        if note is not None:  # [@name payload]: the payload reads as an assertion
            text += f" [@{note.name} {_expr(note.value, PREC_LOOSE, True)}]"
        return text
    if isinstance(e, BinOp) and not EXPR_PRECEDENCE[e.op][1]:
        return _left_chain(e, tail)
    if isinstance(e, BinOp) or type(e) in _RIGHT_CHAINS:
        return _right_chain(e, tail)
    if isinstance(e, ListLit):
        return "[" + "; ".join([_expr(item, PREC_LOOSE, True) for item in e.items]) + "]"
    if isinstance(e, TupleLit):
        return "(" + ", ".join([_expr(item, PREC_LOOSE, True) for item in e.items]) + ")"
    if isinstance(e, UnOp):
        operand = _expr(e.operand, PREC_ATOM, False)
        return "-" + operand if e.op == "-" else f"{e.op} {operand}"
    if isinstance(e, (Return, Infer, Ran)):
        keyword = {Return: "return", Infer: "infer", Ran: "ran"}[type(e)]
        return f"{keyword} {_expr(e.value, PREC_ATOM, False)}"
    if isinstance(e, Neg):
        return "~" + _expr(e.operand, PREC_ATOM, False)
    if isinstance(e, DivBound):
        return (f"Delta[{_divergence(e.div)}] ({_expr(e.left, PREC_LOOSE, True)}, "
                f"{_expr(e.right, PREC_LOOSE, True)}) <= {_expr(e.bound, PREC_OR, tail)}")
    if isinstance(e, Observe):
        if _arrow_observe(e):
            return f"{_observe_head(e)} {_expr(e.prior, PREC_LOOSE, True)}"
        return (f"observe {_expr(e.likelihood, PREC_ATOM, False)} "
                f"{_expr(e.prior, PREC_ATOM, False)}")
    if isinstance(e, (Let, LetRec, MLet)):
        return f"{_binding_head(e)} {_expr(e.body, PREC_LOOSE, True)}"
    if isinstance(e, Fun):
        return f"fun {_params(e.params)} -> {_expr(e.body, PREC_LOOSE, True)}"
    if isinstance(e, If):
        return (f"if {_expr(e.cond, PREC_LOOSE, True)} then {_expr(e.then, PREC_LOOSE, True)} "
                f"else {_expr(e.else_, PREC_LOOSE, True)}")
    if isinstance(e, Match):
        pattern, body = _cons_branch(e)
        return (f"match {_expr(e.scrutinee, PREC_LOOSE, True)} with "
                f"| [] -> {_expr(e.nil_body, PREC_LOOSE, True)} "
                f"| {pattern} -> {_expr(body, PREC_LOOSE, True)}")
    if isinstance(e, Quant):
        return f"{e.kind} {e.var} : {_type(e.type, 0)}. {_expr(e.body, PREC_LOOSE, True)}"
    raise TypeError(f"not an expression: {e!r}")


def _cons_branch(e: Match) -> Tuple[str, Expr]:
    """The cons branch's pattern and body as written: the parser reads ``(a, b) :: xs -> e`` as
    ``h :: xs -> let (a, b) = h in e`` with ``h`` a name no program can write (it has a ``#``)."""
    body = e.cons_body
    if "#" in e.head and isinstance(body, Let) and isinstance(body.pattern, PTuple) and \
            isinstance(body.value, Var) and body.value.name == e.head:
        return f"{_pattern(body.pattern)} :: {e.tail}", body.body
    return f"{e.head} :: {e.tail}", body


def _left_chain(e: BinOp, tail: bool) -> str:
    """``a op b op c ...`` for left-associative operators of one level."""
    level = EXPR_PRECEDENCE[e.op][0]
    rights: List[Tuple[str, Expr]] = []
    node: Expr = e
    while isinstance(node, BinOp) and EXPR_PRECEDENCE[node.op][0] == level:
        rights.append((node.op, node.right))
        node = node.left
    parts = [_expr(node, level, False)]
    last = len(rights) - 1
    for index, (op, right) in enumerate(reversed(rights)):
        parts.append(f"{op} {_expr(right, level + 1, tail and index == last)}")
    return " ".join(parts)


def _right_chain(e: Expr, tail: bool) -> str:
    """``a op b op c ...`` for the right-associative ``&& || :: /\\ \\/ =>``."""
    op = _chain_op(e)
    level = EXPR_PRECEDENCE[op][0]
    parts = []
    node: Expr = e
    while _chain_op(node) == op:
        left, node = (node.head, node.tail) if isinstance(node, Cons) else (node.left, node.right)
        parts.append(_expr(left, level + 1, False))
    parts.append(_expr(node, level + 1, tail))
    return f" {op} ".join(parts)


def _chain_op(e: Expr) -> Optional[str]:
    """The operator of a binary node as written (``None`` for other nodes)."""
    if isinstance(e, BinOp):
        return e.op
    return _RIGHT_CHAINS.get(type(e))


def _literal(e: Expr) -> str:
    if isinstance(e, IntLit):
        return str(e.value)
    if isinstance(e, BoolLit):
        return "true" if e.value else "false"
    if isinstance(e, RealLit):
        return _real_text(e)
    if isinstance(e, UnitLit):
        return "()"
    if isinstance(e, RunVar):
        return f"{e.name}<{e.run}>"
    return "="  # SameRuns


def _real_text(e: RealLit) -> str:
    """The literal's own text when it reads back as the same value, else a decimal for it."""
    if e.text:
        try:
            tokens = tokenize(e.text)
        except PrivInferError:
            tokens = []
        if len(tokens) == 2 and tokens[0].kind == "REAL" and tokens[0].value == e.value:
            return e.text
    return _decimal(Fraction(e.value))


def _decimal(value: Fraction) -> str:
    """A real literal for ``value``; ``(n.0 / d.0)`` when no decimal is exact (the parser
    never makes such a ``RealLit``, but other passes may)."""
    sign = "-" if value < 0 else ""
    value = abs(value)
    den = value.denominator
    twos = fives = 0
    while den % 2 == 0:
        den //= 2
        twos += 1
    while den % 5 == 0:
        den //= 5
        fives += 1
    if den != 1:
        return f"{sign}({value.numerator}.0 / {value.denominator}.0)"
    scale = max(twos, fives)  # value = digits / 10^scale
    digits = value.numerator * 10 ** scale // value.denominator
    while scale > 0 and digits % 10 == 0:
        digits //= 10
        scale -= 1
    if scale == 0:
        return f"{sign}{digits}.0"
    if scale > 20:
        return f"{sign}{digits}e-{scale}"
    text = str(digits).rjust(scale + 1, "0")
    return f"{sign}{text[:-scale]}.{text[-scale:]}"


def _binding_head(e: Expr) -> str:
    """``let p = v in`` / ``let f x = v in`` / ``let rec f x = v in`` / ``mlet p = v in``."""
    return f"{_binding_lhs(e)} = {_expr(_binding_value(e), PREC_LOOSE, True)} in"


def _binding_lhs(e: Expr) -> str:
    if isinstance(e, LetRec):
        return f"let rec {e.name} {_params(e.params)}"
    if isinstance(e, MLet):
        return f"mlet {_pattern(e.pattern)}"
    assert isinstance(e, Let)
    if _function_sugar(e):
        assert isinstance(e.value, Fun) and isinstance(e.pattern, PVar)
        return f"let {e.pattern.name} {_params(e.value.params)}"
    return f"let {_pattern(e.pattern)}"


def _binding_value(e: Expr) -> Expr:
    if isinstance(e, Let) and _function_sugar(e):
        assert isinstance(e.value, Fun)
        return e.value.body
    return e.value  # type: ignore[attr-defined]


def _function_sugar(e: Let) -> bool:
    """Whether ``let f = fun x -> v in b`` prints as ``let f x = v in b``."""
    return isinstance(e.value, Fun) and isinstance(e.pattern, PVar) and e.pattern.annot is None


def _observe_head(e: Observe) -> str:
    assert isinstance(e.likelihood, Fun)
    param = e.likelihood.params[0]
    return f"observe {_pattern(param)} => {_expr(e.likelihood.body, PREC_LOOSE, True)} in"


# ------------------------------------------------------------------------------ layout


def _decl_lines(decl: Decl) -> List[str]:
    if isinstance(decl, ValDecl):
        return _val_lines(decl)
    assert isinstance(decl, LetDecl)
    head = "let rec " if decl.recursive else "let "
    head += decl.name + "".join([" " + _pattern(p) for p in decl.params])
    body = _block(decl.body)
    if len(body) == 1 and len(head) + 3 + len(body[0]) <= WIDTH:
        return [f"{head} = {body[0]}"]
    return [head + " ="] + _indent(body, 2)


def _val_lines(decl: ValDecl) -> List[str]:
    head = f"val {decl.name} :: "
    rt = decl.rtype
    parts = []
    while isinstance(rt, RArrow):
        parts.append(_rtype(rt.dom, 1))
        rt = rt.cod
    parts.append(_rtype(rt, 1))
    one_line = head + " -> ".join(parts)
    if len(one_line) <= WIDTH or len(parts) == 1:
        return [one_line]
    pad = " " * (len(head) - 3)
    return [head + parts[0]] + [f"{pad}-> {part}" for part in parts[1:]]


def _indent(lines: List[str], by: int) -> List[str]:
    pad = " " * by
    return [pad + line for line in lines]


def _block(e: Expr) -> List[str]:
    """``e`` in a position where nothing follows it, laid out on one or more lines."""
    lines: List[str] = []
    while True:
        if isinstance(e, (Let, LetRec, MLet)):
            lhs = _binding_lhs(e)
            value = _block(_binding_value(e))
            if len(value) == 1 and len(lhs) + len(value[0]) + 6 <= WIDTH:
                lines.append(f"{lhs} = {value[0]} in")
            else:
                lines.append(lhs + " =")
                lines.extend(_indent(value, 2))
                lines.append("in")
            e = e.body
        elif isinstance(e, Observe) and _arrow_observe(e):
            lines.append(_observe_head(e))
            e = e.prior
        else:
            break
    if isinstance(e, Match):
        lines.append(f"match {_expr(e.scrutinee, PREC_LOOSE, True)} with")
        for pattern, body in (("[]", e.nil_body), _cons_branch(e)):
            body_lines = _block(body)
            if len(body_lines) == 1 and len(pattern) + len(body_lines[0]) + 6 <= WIDTH:
                lines.append(f"| {pattern} -> {body_lines[0]}")
            else:
                lines.append(f"| {pattern} ->")
                lines.extend(_indent(body_lines, 4))
    elif isinstance(e, If):
        one_line = _expr(e, PREC_LOOSE, True)
        if len(one_line) <= WIDTH and not _is_block(e.then) and not _is_block(e.else_):
            lines.append(one_line)
        else:
            lines.append(f"if {_expr(e.cond, PREC_LOOSE, True)} then")
            lines.extend(_indent(_block(e.then), 2))
            lines.append("else")
            lines.extend(_indent(_block(e.else_), 2))
    elif isinstance(e, Fun):
        body = _block(e.body)
        head = f"fun {_params(e.params)} ->"
        if len(body) == 1 and len(head) + 1 + len(body[0]) <= WIDTH:
            lines.append(f"{head} {body[0]}")
        else:
            lines.append(head)
            lines.extend(_indent(body, 2))
    else:
        lines.append(_expr(e, PREC_LOOSE, True))
    return lines


def _is_block(e: Expr) -> bool:
    """Whether ``e`` reads better on lines of its own."""
    return isinstance(e, (Let, LetRec, MLet, Match)) or (isinstance(e, Observe)
                                                         and _arrow_observe(e))
