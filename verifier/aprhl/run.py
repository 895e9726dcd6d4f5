"""The exact semantics of while-programs (``privinfer run FILE.pwhile PROC``).

Numbers are exact rationals (``Fraction``; ``int`` for ``int`` values), lists are Python lists
of them, ``x := $ Lap (b, e)`` releases ``noise.laplace_exact(e, b)``: the same exact grid
sampler as ``lapMech`` in the functional language (docs/noise.md), so what runs is a
post-processing of the exact continuous mechanism the derivation reasons about. Arithmetic is
``+ - * /`` on rationals and comparisons of rationals: every step is decided exactly.

Run-time errors (R002 division by zero, R006 an index out of bounds or an unassigned variable,
R001 a parameter outside its range, R010 the step budget) are diagnostics, never tracebacks.
The verifier proves that none of R001, R002, R006 can happen in a verified procedure on inputs
meeting its precondition (the range obligations), so that an error cannot reveal which run this
is. It does not bound the number of steps, which one-sided branches make depend on the private
data: a release (the secure source) therefore has no step budget (red-team round 6); a
reproducible run (``--seed``) keeps it.
"""
from __future__ import annotations

from fractions import Fraction
from typing import Any, Dict

from verifier.errors import error
from verifier.language import whilelang as W
from verifier.semantics.values import say_release_past

#: statements executed before run gives up (R010)
MAX_STEPS = 10_000_000


class Evaluator:
    def __init__(self, proc: W.Proc, types: W.ProcTypes, source, max_steps: int = MAX_STEPS):
        self.proc, self.types, self.source = proc, types, source
        self.steps, self.max_steps = 0, max_steps

    def run(self, args: Dict[str, Any]) -> Any:
        env = dict(args)
        for s in self.proc.body:
            if isinstance(s, W.Return):
                return self.value_of(s.value, env, self.types.vars.get("result") or
                                     W.wtype_simple(self.proc.ret))
            self.exec(s, env)
        raise error("R006", f"{self.proc.name} ended without return", self.proc.span)

    def value_of(self, e, env, want: str) -> Any:
        v = self.eval(e, env)
        return _conform(v, want)

    def tick(self, span) -> None:
        self.steps += 1
        if self.steps > self.max_steps:
            if not getattr(self.source, "releasable", False):
                raise error("R010", f"the evaluation did not terminate within {self.max_steps} "
                                    "steps", span)
            # a release is evaluated to its end (values.release_evaluation): a verified
            # procedure terminates, and a budget reached on one input and not on its neighbour
            # (one-sided branches of different lengths) would publish an error instead
            if self.steps == self.max_steps + 1:
                say_release_past(self.max_steps)

    def exec(self, s, env: Dict[str, Any]) -> None:
        self.tick(s.span)
        if isinstance(s, W.Skip):
            return
        if isinstance(s, W.Assign):
            env[s.target] = _conform(self.eval(s.value, env), self.types.vars[s.target])
            return
        if isinstance(s, W.Sample):
            b = self.eval(s.scale, env)
            c = self.eval(s.center, env)
            if not b > 0:
                raise error("R001", f"the scale of Lap must be positive, got {_show(b)}", s.scale.span)
            env[s.target] = Fraction(self.source.laplace_exact(Fraction(c), Fraction(b)))
            return
        if isinstance(s, W.If):
            branch = s.then if self.eval(s.cond, env) else s.else_
            for t in branch:
                self.exec(t, env)
            return
        if isinstance(s, W.While):
            while self.eval(s.cond, env):
                self.tick(s.span)
                for t in s.body:
                    self.exec(t, env)
            return
        raise error("R006", "return must be the last statement", s.span)

    def eval(self, e, env) -> Any:
        if isinstance(e, W.Num):
            return int(e.value) if e.is_int else e.value
        if isinstance(e, W.BoolLit):
            return e.value
        if isinstance(e, W.Name):
            if e.name not in env:
                raise error("R006", f"{e.name} is used before it is assigned", e.span)
            return env[e.name]
        if isinstance(e, W.ListLit):
            return [self.eval(x, env) for x in e.items]
        if isinstance(e, W.Index):
            a = self.eval(e.array, env)
            i = self.eval(e.index, env)
            if not 0 <= i < len(a):
                raise error("R006", f"index {i} out of bounds of a list of length {len(a)}", e.span)
            return a[i]
        if isinstance(e, W.Size):
            return len(self.eval(e.arg, env))
        if isinstance(e, W.UnOp):
            v = self.eval(e.arg, env)
            return (not v) if e.op == "not" else -v
        if isinstance(e, W.Call):
            args = [self.eval(a, env) for a in e.args]
            return {"abs": lambda: abs(args[0]), "min": lambda: min(args),
                    "max": lambda: max(args)}[e.fn]()
        if isinstance(e, W.BinOp):
            if e.op == "&&":
                return bool(self.eval(e.left, env)) and bool(self.eval(e.right, env))
            if e.op == "||":
                return bool(self.eval(e.left, env)) or bool(self.eval(e.right, env))
            a = self.eval(e.left, env)
            b = self.eval(e.right, env)
            if e.op == "/":
                if b == 0:
                    raise error("R002", "division by zero", e.span)
                return Fraction(a) / Fraction(b)
            if e.op == "mod":   # defined for a positive divisor only (docs/aprhl.md)
                if not b > 0:
                    raise error("R002", f"mod by {_show(b)}: the divisor must be positive", e.span)
                return a % b
            return {"+": lambda: a + b, "-": lambda: a - b, "*": lambda: a * b,
                    "++": lambda: list(a) + list(b), "=": lambda: a == b, "<>": lambda: a != b,
                    "<": lambda: a < b, "<=": lambda: a <= b, ">": lambda: a > b,
                    ">=": lambda: a >= b}[e.op]()
        raise error("R006", "unsupported expression", getattr(e, "span", None))


def _conform(v: Any, want: str) -> Any:
    if want == "real" and isinstance(v, int) and not isinstance(v, bool):
        return Fraction(v)
    if want.startswith("list(") and isinstance(v, list):
        return [_conform(x, want[5:-1]) for x in v]
    return v


def _show(v: Any) -> str:
    return format_value(v)


def literal(v: Any) -> str:
    """``v`` as a literal of the while-language (what ``--arg`` reads back)."""
    if isinstance(v, list):
        return "[" + ", ".join(literal(x) for x in v) + "]"
    return format_value(v)


def format_value(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, Fraction):
        if v.denominator == 1:
            return f"{v.numerator}.0"
        return W._decimal(v) if _terminating(v) else f"{v.numerator}/{v.denominator}"
    if isinstance(v, list):
        return "[" + "; ".join(format_value(x) for x in v) + "]"
    return str(v)


def _terminating(v: Fraction) -> bool:
    d = v.denominator
    for p in (2, 5):
        while d % p == 0:
            d //= p
    return d == 1


def to_json(v: Any) -> Any:
    if isinstance(v, bool) or isinstance(v, int):
        return v
    if isinstance(v, Fraction):
        return float(v)
    if isinstance(v, list):
        return [to_json(x) for x in v]
    return v


def read_argument(text: str, name: str, want: str) -> Any:
    """A ``--arg`` value: a literal of the while-language (``3``, ``-2.5``, ``true``,
    ``[1, 0, 1]``), checked against the parameter's simple type."""
    try:
        toks = W.tokenize(text, f"--arg {name}")
        p = W._Parser(toks, f"--arg {name}")
        e = p.expr()
        if p.tok.kind != "eof":
            raise p.fail("the end of the value")
    except Exception as exc:  # PrivInferError
        msg = getattr(exc, "first", None)
        raise error("R005", f"--arg {name}: {msg.message if msg else exc}") from None
    v = _literal(e, name)
    return _check_type(v, want, name)


def _literal(e, name: str) -> Any:
    if isinstance(e, W.Num):
        return int(e.value) if e.is_int else e.value
    if isinstance(e, W.BoolLit):
        return e.value
    if isinstance(e, W.UnOp) and e.op == "-" and isinstance(e.arg, W.Num):
        v = _literal(e.arg, name)
        return -v
    if isinstance(e, W.ListLit):
        return [_literal(x, name) for x in e.items]
    raise error("R005", f"--arg {name}: a value must be a literal (a number, true, false or a list)")


def _check_type(v: Any, want: str, name: str) -> Any:
    if want == "bool" and isinstance(v, bool):
        return v
    if want == "int" and isinstance(v, int) and not isinstance(v, bool):
        return v
    if want == "real" and isinstance(v, (int, Fraction)) and not isinstance(v, bool):
        return Fraction(v)
    if want.startswith("list(") and isinstance(v, list):
        return [_check_type(x, want[5:-1], name) for x in v]
    raise error("R005", f"--arg {name}: {format_value(v)} is not a {W.show_type(want)}")


def check_ranges(proc: W.Proc, args: Dict[str, Any]) -> None:
    for p in proc.params:
        v = args[p.name]
        if p.type.base == "nat" and v < 0:
            raise error("R001", f"{p.name} must be a nat, got {format_value(v)}", p.span)
        if p.type.base == "real+" and not v > 0:
            raise error("R001", f"{p.name} must be positive (real+), got {format_value(v)}", p.span)
