"""A concrete check of apRHL derivations: both runs executed in lockstep under the coupling the
derivation uses (docs/aprhl.md, "Testing the derivations against the semantics").

For a verified procedure, the derivation claims that for every pair of inputs satisfying the
precondition and every value of the draws, with each ``Lap``'s draws coupled equal:

* the two runs take the same branches and the same number of iterations (synchronised guards);
* neither run fails (no division by zero, no index out of bounds, no scale that is not positive);
* every ``Lap``'s scale is the same in both runs;
* the outputs satisfy the output relation;
* the cost spent, the sum of ``|e<1> - e<2>| / b`` over the draws, is at most the claimed eps.

``coupled_run`` executes a pair of inputs this way (run 2's draw is run 1's: the same exact draw
gives the same released value when the scales are equal) with the exact evaluator and noise of
``run``, and returns what it saw; ``violations`` lists the claims above that the execution
contradicts. ``random_inputs`` draws input pairs that satisfy a precondition. Any violation on a
verified procedure is a soundness bug of the derivation.
"""
from __future__ import annotations

import random
from fractions import Fraction
from typing import Any, Dict, List, Optional, Tuple

from verifier.aprhl.derive import addends, case_group, deterministic
from verifier.aprhl.run import Evaluator, _conform
from verifier.errors import PrivInferError
from verifier.semantics.noise import grid
from verifier.language import whilelang as W
from verifier.shifts import CaseShift


class Desync(Exception):
    pass


class _Lockstep:
    """``onesided``: the derivation is the Pointwise rule's, whose ``if`` statements without
    sampling or loops are derived by the one-sided rules (each run takes its own branch); the
    others, and the ``if`` of a Lap-Case, stay synchronised."""

    def __init__(self, proc: W.Proc, types: W.ProcTypes, source, shifts=None, onesided=False):
        self.proc, self.types, self.source = proc, types, source
        self.shifts = dict(shifts or {})
        self.onesided = onesided
        self.e1 = Evaluator(proc, types, source, max_steps=200_000)
        self.e2 = Evaluator(proc, types, source, max_steps=200_000)
        self.cost = Fraction(0)
        #: noise added to an expression later: the shift templates' centre (``derive.addends``)
        self.addends = addends(W.common_tails_hoisted(proc.body))

    def run(self, env1, env2):
        body = list(self.proc.body)
        ret = body.pop()
        if not isinstance(ret, W.Return):
            raise Desync("no return")
        self.seq(body, env1, env2)
        want = W.wtype_simple(self.proc.ret)
        return (_conform(self.e1.eval(ret.value, env1), want),
                _conform(self.e2.eval(ret.value, env2), want))

    def seq(self, stmts, env1, env2) -> None:
        """A sequence; a ``Lap`` coupled per branch (Lap-Case) is executed with the ``if``
        that follows it, whose guard in run 1 picks the shift."""
        stmts = list(stmts)
        n = 0
        while n < len(stmts):
            s = stmts[n]
            shift = self.shifts.get((s.span.line, s.span.col)) if isinstance(s, W.Sample) else None
            if isinstance(shift, CaseShift):
                m = case_group(stmts, n)
                if m is None:
                    raise Desync(f"the shift per branch at line {s.span.line} has no if on the "
                                 "draw after it")
                self.sample(s, env1, env2, case_if=stmts[m], between=stmts[n + 1:m])
                for a in stmts[n + 1:m]:
                    self.exec(a, env1, env2)
                self.cond(stmts[m], env1, env2, synchronised=True)
                n = m + 1
                continue
            self.exec(s, env1, env2)
            n += 1

    def sample(self, s: W.Sample, env1, env2, case_if: Optional[W.If] = None,
               between=()) -> None:
        """Run 1 draws ``v`` (released on the grid of its scale); run 2 takes ``v + k``, ``k``
        the shift of the derivation (for Lap-Case: of the branch run 1's guard takes after the
        draw), charged ``|k + e<1> - e<2>| / b``. Run 2's exact draw is run 1's plus ``k``, so
        its released value is ``v + k`` only when the grid divides ``k``: a shift it does not
        divide is not replayed (NotImplementedError)."""
        if s.shift is not None:
            raise NotImplementedError("shifted couplings are not replayed")
        b1, b2 = self.e1.eval(s.scale, env1), self.e2.eval(s.scale, env2)
        c1, c2 = self.e1.eval(s.center, env1), self.e2.eval(s.center, env2)
        if b1 != b2:
            raise Desync(f"the scale of Lap at line {s.span.line} differs: {b1} and {b2}")
        if not b1 > 0:
            raise Desync(f"the scale of Lap at line {s.span.line} is {b1}")
        c1, c2, b1 = Fraction(c1), Fraction(c2), Fraction(b1)
        v = Fraction(self.source.laplace_exact(c1, b1))
        shift = self.shifts.get((s.span.line, s.span.col))
        if isinstance(shift, CaseShift):
            probe = dict(env1)
            probe[s.target] = v
            for a in between:
                self.e1.exec(a, probe)
            shift = shift.then if self.e1.eval(case_if.cond, probe) else shift.else_
        if shift is not None and not hasattr(shift, "offset"):
            raise NotImplementedError("the couplings of the pointwise rule depend on the "
                                      "output value: not replayed")
        a1 = a2 = Fraction(0)
        if shift is not None and shift.added:
            # taken around e + X for noise added to X later (derive.effective_centres)
            added = self.addends.get((s.span.line, s.span.col))
            try:
                a1, a2 = Fraction(self.e1.eval(added, env1)), Fraction(self.e2.eval(added, env2))
            except (PrivInferError, TypeError, ValueError, IndexError, KeyError, AttributeError):
                raise NotImplementedError("the value the noise is added to is not defined "
                                          "before the draw: not replayed") from None
        k = Fraction(0) if shift is None else \
            shift.offset + shift.scale * ((c2 + a2) - (c1 + a1)) + (a1 - a2)
        if k and (k.denominator != 1 or grid(b1) > 1):
            # run 2's exact draw is run 1's plus k: its rounding is run 1's plus k only
            # when the grid divides k
            raise NotImplementedError("a shift the grid does not divide is not replayed")
        self.cost += abs(k + c1 - c2) / b1
        env1[s.target] = v
        env2[s.target] = v + k

    def cond(self, s: W.If, env1, env2, synchronised: bool = False) -> None:
        if self.onesided and not synchronised and deterministic([s]):
            self.e1.exec(s, env1)
            self.e2.exec(s, env2)
            return
        g1, g2 = self.e1.eval(s.cond, env1), self.e2.eval(s.cond, env2)
        if g1 != g2:
            raise Desync(f"the runs take different branches at line {s.span.line}")
        self.seq(s.then if g1 else s.else_, env1, env2)

    def exec(self, s, env1, env2) -> None:
        if isinstance(s, W.Skip):
            return
        if isinstance(s, W.Assign):
            self.e1.exec(s, env1)
            self.e2.exec(s, env2)
            return
        if isinstance(s, W.Sample):
            self.sample(s, env1, env2)
            return
        if isinstance(s, W.If):
            self.cond(s, env1, env2)
            return
        if isinstance(s, W.While):
            while True:
                g1, g2 = self.e1.eval(s.cond, env1), self.e2.eval(s.cond, env2)
                if g1 != g2:
                    raise Desync(f"the runs iterate differently at line {s.span.line}")
                if not g1:
                    return
                self.e1.tick(s.span)
                self.seq(s.body, env1, env2)
        raise Desync("return before the end")


def holds(e, env1: Dict[str, Any], env2: Dict[str, Any]) -> Any:
    """The value of an assertion on a pair of states (``x<1>`` from ``env1``, ``x<2>`` from
    ``env2``, a name without index from ``env1``)."""
    if isinstance(e, W.Name):
        return (env2 if e.run == 2 else env1)[e.name]
    if isinstance(e, W.Call) and e.fn in ("adj", "adjWithin"):
        a, b = holds(e.args[0], env1, env2), holds(e.args[1], env1, env2)
        if len(a) != len(b):
            return False
        diff = [k for k in range(len(a)) if a[k] != b[k]]
        if len(diff) > 1:
            return False
        if e.fn == "adjWithin" and diff:
            return abs(a[diff[0]] - b[diff[0]]) <= holds(e.args[2], env1, env2)
        return True
    if isinstance(e, W.Call) and e.fn == "allWithin":
        a, b = holds(e.args[0], env1, env2), holds(e.args[1], env1, env2)
        c = holds(e.args[2], env1, env2)
        return len(a) == len(b) and all(abs(x - y) <= c for x, y in zip(a, b))
    if isinstance(e, W.BinOp) and e.op == "=>":
        return (not holds(e.left, env1, env2)) or holds(e.right, env1, env2)
    if isinstance(e, W.Num):
        return int(e.value) if e.is_int else e.value
    if isinstance(e, W.BoolLit):
        return e.value
    if isinstance(e, W.BinOp):
        a, b = holds(e.left, env1, env2), holds(e.right, env1, env2)
        return _binop(e.op, a, b)
    if isinstance(e, W.UnOp):
        v = holds(e.arg, env1, env2)
        return (not v) if e.op == "not" else -v
    if isinstance(e, W.Call):
        args = [holds(a, env1, env2) for a in e.args]
        return {"abs": lambda: abs(args[0]), "min": lambda: min(args), "max": lambda: max(args)}[e.fn]()
    if isinstance(e, W.Size):
        return len(holds(e.arg, env1, env2))
    if isinstance(e, W.Index):
        a, i = holds(e.array, env1, env2), holds(e.index, env1, env2)
        if not 0 <= i < len(a):
            raise ZeroDivisionError("index out of bounds in an assertion")
        return a[i]
    if isinstance(e, W.ListLit):
        return [holds(x, env1, env2) for x in e.items]
    raise TypeError(e)


def _binop(op: str, a, b):
    if op == "/":
        return Fraction(a) / Fraction(b)
    if op == "mod":
        if not b > 0:
            raise ZeroDivisionError("mod by a divisor that is not positive in an assertion")
        return a % b
    return {"+": lambda: a + b, "-": lambda: a - b, "*": lambda: a * b, "++": lambda: a + b,
            "=": lambda: a == b, "<>": lambda: a != b, "<": lambda: a < b, "<=": lambda: a <= b,
            ">": lambda: a > b, ">=": lambda: a >= b, "&&": lambda: bool(a) and bool(b),
            "||": lambda: bool(a) or bool(b)}[op]()


_VALUES = [Fraction(v) for v in (0, 1, -1, 2, 3)] + [Fraction(1, 2), Fraction(-3, 2)]
#: integers: a shift of the noise by the centers' difference is then a multiple of the grid
#: (of the scales below 2^40), which the replay can follow
_MOVES = [Fraction(v) for v in (-1, 0, 1)]


def _value(t: W.WType, rng: random.Random, length: Optional[int] = None) -> Any:
    if t.base == "bool":
        return rng.random() < 0.5
    if t.base in ("int", "nat"):
        v = rng.choice([0, 1, 2, 3, -1, 5])
        return abs(v) if t.base == "nat" else v
    if t.base in ("real", "real+"):
        v = rng.choice(_VALUES)
        return abs(v) + Fraction(1, 4) if t.base == "real+" else v
    n = rng.randint(0, 4) if length is None else length
    return [_value(t.elem, rng) for _ in range(n)]


def random_inputs(proc: W.Proc, rng: random.Random, tries: int = 200
                  ) -> Optional[Tuple[Dict[str, Any], Dict[str, Any]]]:
    """A pair of inputs satisfying ``proc``'s precondition (``None`` when none was found)."""
    for _ in range(tries):
        env1: Dict[str, Any] = {}
        env2: Dict[str, Any] = {}
        for p in proc.params:
            v = _value(p.type, rng)
            env1[p.name] = v
            if p.pub:
                env2[p.name] = v
            elif p.type.base == "list":
                w = list(v)
                if w and p.type.elem.base in ("real", "real+") and rng.random() < 0.4:
                    # every position moved a little (allWithin: the answers of 1-sensitive
                    # queries on adjacent databases)
                    w = [x + rng.choice(_MOVES) for x in w]
                elif w and rng.random() < 0.8:
                    k = rng.randrange(len(w))
                    w[k] = _value(p.type.elem, rng)
                env2[p.name] = w
            else:
                env2[p.name] = v if rng.random() < 0.2 else _value(p.type, rng)
        # public values of the pre's free pub parameters sometimes need to match sizes
        try:
            if holds(proc.spec.pre, env1, env2):
                return env1, env2
        except (ZeroDivisionError, TypeError, KeyError):
            continue
    return None


def coupled_run(proc: W.Proc, types: W.ProcTypes, env1, env2, source, shifts=None,
                onesided: bool = False) -> Dict[str, Any]:
    """Execute both runs in lockstep; what was seen (``desync``, ``error``, outputs, cost).
    ``shifts``: the shift the derivation chose at each ``Lap`` (``ProcReport.shifts``; a
    ``CaseShift``: per branch of the ``if`` after the draw). ``onesided``: the derivation is
    the Pointwise rule's (``ProcReport.pointwise``), whose deterministic ``if`` statements
    need not be synchronised; its couplings must not depend on the output value (a
    ``PointShift``: NotImplementedError)."""
    runner = _Lockstep(proc, types, source, shifts, onesided)
    out: Dict[str, Any] = {"desync": None, "error": None, "outputs": None, "cost": None}
    a1 = {k: _conform(v, types.vars[k]) for k, v in env1.items()}
    a2 = {k: _conform(v, types.vars[k]) for k, v in env2.items()}
    try:
        r1, r2 = runner.run(dict(a1), dict(a2))
        out["outputs"] = (r1, r2)
    except Desync as exc:
        out["desync"] = str(exc)
    except PrivInferError as exc:
        out["error"] = exc.first.code + " " + exc.first.message
    out["cost"] = runner.cost
    out["inputs"] = (a1, a2)
    return out


def violations(proc: W.Proc, seen: Dict[str, Any]) -> List[str]:
    """The derivation's claims (module docstring) that a coupled execution contradicts."""
    bad: List[str] = []
    if seen["error"] and seen["error"].startswith("R010"):
        return bad   # the step budget: not a claim of the derivation
    if seen["desync"]:
        bad.append(f"the runs are not synchronised: {seen['desync']}")
    if seen["error"]:
        bad.append(f"a run fails: {seen['error']}")
    if seen["outputs"] is not None:
        r1, r2 = seen["outputs"]
        a1, a2 = seen["inputs"]
        spec = proc.spec
        if spec.post is None:
            if r1 != r2:
                bad.append(f"the outputs differ: {r1} and {r2}")
        else:
            e1, e2 = dict(a1), dict(a2)
            e1["result"], e2["result"] = r1, r2
            try:
                ok = holds(spec.post, e1, e2)
            except (KeyError, ZeroDivisionError):
                ok = True   # a relation on the final locals: not replayed here
            if not ok:
                bad.append("the output relation does not hold")
        eps = holds(spec.eps, a1, a2)
        if seen["cost"] > eps:
            bad.append(f"the coupling costs {seen['cost']} > eps = {eps}")
        if holds(spec.delta, a1, a2) < 0:
            bad.append("delta is negative")
    return bad
