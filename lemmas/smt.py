"""Discharging SMT proof steps with Z3.

A step of kind ``smt`` claims that a formula follows from premises. The check translates the
premises, the symbols' sort constraints and the *negation* of the claim into Z3 and demands
``unsat``. The translation is sound because it only ever forgets information:

* numbers are exact rationals; ``+ - * /`` and integer powers are Z3 real arithmetic
  (nonlinear real arithmetic is decidable, and Z3's answer ``unsat`` is trusted);
* every other function application — vocabulary symbols (``BetaDist``, ``Hellinger``...),
  defined functions (``g``, ``sigma``), special functions (``gamma``, ``polygamma``, ``log``...)
  — becomes an *uninterpreted* function of the same name, so the check holds for every
  interpretation, in particular the intended one; terms with bound variables (integrals,
  derivatives) become uninterpreted constants, one per syntactically distinct term;
* opaque objects (distributions, functions, lists) live in one uninterpreted sort;
* the only axioms added are true facts about the reals: ``t >= 0 ⇒ sqrt(t) >= 0 ∧ sqrt(t)² = t``
  for each ``sqrt(t)`` (also ``t**(1/2)``), ``exp(t) > 0`` for each ``exp(t)``,
  ``333/106 < pi < 355/113``, ``2718/1000 < E < 2719/1000`` and ``577/1000 < EulerGamma <
  578/1000`` (Euler's constant 0.5772..., which sympy writes for ``polygamma(0, 1)``);
* a symbol's sort becomes a constraint (``pos``: > 0; ``nat``: an integer >= 0; ...);
  the predicate ``IsInteger(t)`` is Z3's ``IsInt``.

Division by zero is total in Z3 (``t/0`` is an unspecified value), so a claim proved with a
possibly-zero divisor holds whatever value the quotient takes — again an over-approximation.

This module imports nothing from ``verifier``.
"""
from __future__ import annotations

from typing import Dict, List, Sequence, Tuple

import sympy as sp
import z3
from sympy.core.function import AppliedUndef
from sympy.logic.boolalg import BooleanFunction

from lemmas import exprs


class TranslationError(ValueError):
    """A formula outside the fragment the SMT translation handles."""


class Translator:
    """Translate sympy formulas into one Z3 context, sharing symbols and function symbols."""

    def __init__(self) -> None:
        self.obj = z3.DeclareSort("Obj")
        self.vars: Dict[str, Tuple[object, str]] = {}  # name -> (z3 const, sort)
        self.funcs: Dict[Tuple[str, int], z3.FuncDeclRef] = {}
        self.atoms: Dict[str, z3.ArithRef] = {}
        self.axioms: List[z3.BoolRef] = []
        self._axiom_keys: set = set()
        self.pi = None
        self.e = None
        self.gamma = None

    # ---- symbols ----------------------------------------------------------------------------
    def _symbol(self, s: sp.Symbol):
        sort = exprs.sort_of(s)
        name = s.name
        if name in self.vars:
            const, old = self.vars[name]
            if old != sort:
                raise TranslationError(f"symbol {name} used with sorts {old} and {sort}")
            return const
        if sort == "opaque":
            const = z3.Const(name, self.obj)
        elif sort in exprs.INTEGER_SORTS:
            const = z3.Int(name)
            if sort == "nat":
                self.axioms.append(const >= 0)
            elif sort == "posint":
                self.axioms.append(const >= 1)
        else:
            const = z3.Real(name)
            if sort == "pos":
                self.axioms.append(const > 0)
            elif sort == "nonneg":
                self.axioms.append(const >= 0)
        self.vars[name] = (const, sort)
        return const

    def _num(self, v):
        """Coerce an integer-sorted Z3 term to the reals."""
        if isinstance(v, z3.ArithRef) and v.is_int():
            return z3.ToReal(v)
        return v

    def _func(self, name: str, kinds: Sequence[str], result: str) -> z3.FuncDeclRef:
        key = (name, len(kinds))
        if key not in self.funcs:
            dom = [self.obj if k == "O" else z3.RealSort() for k in kinds]
            rng = {"O": self.obj, "R": z3.RealSort(), "B": z3.BoolSort()}[result]
            self.funcs[key] = z3.Function(f"{name}_{len(kinds)}", *dom, rng)
        return self.funcs[key]

    def _axiom(self, key: str, ax: z3.BoolRef) -> None:
        if key not in self._axiom_keys:
            self._axiom_keys.add(key)
            self.axioms.append(ax)

    # ---- terms ----------------------------------------------------------------------------
    def term(self, e: sp.Basic):
        if isinstance(e, sp.Symbol):
            return self._num(self._symbol(e))
        if isinstance(e, sp.Integer):
            return z3.RealVal(int(e))
        if isinstance(e, sp.Rational):
            return z3.Q(int(e.p), int(e.q))
        if isinstance(e, sp.Float):
            raise TranslationError("floating-point number")
        if e is sp.pi:
            if self.pi is None:
                self.pi = z3.Real("pi")
                self.axioms += [self.pi > z3.Q(333, 106), self.pi < z3.Q(355, 113)]
            return self.pi
        if e is sp.EulerGamma:
            if self.gamma is None:
                self.gamma = z3.Real("EulerGamma")
                self.axioms += [self.gamma > z3.Q(577, 1000), self.gamma < z3.Q(578, 1000)]
            return self.gamma
        if e is sp.E:
            if self.e is None:
                self.e = z3.Real("E")
                self.axioms += [self.e > z3.Q(2718, 1000), self.e < z3.Q(2719, 1000)]
            return self.e
        if isinstance(e, sp.Add):
            return z3.Sum([self.term(a) for a in e.args])
        if isinstance(e, sp.Mul):
            return z3.Product([self.term(a) for a in e.args])
        if isinstance(e, sp.Pow):
            return self._pow(e)
        if isinstance(e, sp.Abs):
            t = self.term(e.args[0])
            return z3.If(t >= 0, t, -t)
        if isinstance(e, (sp.Max, sp.Min)):
            ts = [self.term(a) for a in e.args]
            acc = ts[0]
            for t in ts[1:]:
                acc = z3.If(t > acc, t, acc) if isinstance(e, sp.Max) else z3.If(t < acc, t, acc)
            return acc
        if isinstance(e, sp.Piecewise):
            return self._piecewise(e)
        if isinstance(e, sp.exp):
            t = self.term(e.args[0])
            r = self._func("exp", ["R"], "R")(t)
            self._axiom("exp:" + sp.srepr(e), r > 0)
            return r
        if isinstance(e, (sp.Integral, sp.Derivative)) or any(
                isinstance(a, sp.Lambda) for a in e.args):
            key = sp.srepr(e)
            if key not in self.atoms:
                self.atoms[key] = z3.Real(f"atom_{len(self.atoms)}")
            return self.atoms[key]
        if isinstance(e, AppliedUndef):
            name = e.func.__name__
            if name in exprs.VOCABULARY:
                sig = exprs.VOCABULARY[name]
                kinds = [sig.arg_kind(i) for i in range(len(e.args))]
                if sig.result == "B":
                    raise TranslationError(f"predicate {name} used as a term")
                f = self._func(name, kinds, sig.result)
                return f(*[self._arg(a, k) for a, k in zip(e.args, kinds)])
            if name in exprs.DEFINITIONS:
                f = self._func(name, ["R"] * len(e.args), "R")
                return f(*[self.term(a) for a in e.args])
            raise TranslationError(f"unknown function {name}")
        if isinstance(e, sp.Function) and e.args:
            # special functions (gamma, polygamma, log, beta, erf, ...): uninterpreted
            name = type(e).__name__
            f = self._func(name, ["R"] * len(e.args), "R")
            return f(*[self.term(a) for a in e.args])
        raise TranslationError(f"cannot translate {e} ({type(e).__name__})")

    def _arg(self, a: sp.Basic, kind: str):
        if kind == "O":
            if isinstance(a, sp.Symbol) and exprs.sort_of(a) == "opaque":
                return self._symbol(a)
            if isinstance(a, AppliedUndef) and exprs.VOCABULARY.get(
                    a.func.__name__, exprs.Signature((), "R", "")).result == "O":
                return self.term(a)
            if isinstance(a, sp.Lambda):
                key = sp.srepr(a)
                if key not in self.atoms:
                    self.atoms[key] = z3.Const(f"lam_{len(self.atoms)}", self.obj)
                return self.atoms[key]
            raise TranslationError(f"{a} is not an object term")
        return self.term(a)

    def _pow(self, e: sp.Pow):
        base, ex = e.args
        if isinstance(ex, sp.Integer):
            n = int(ex)
            b = self.term(base)
            if n == 0:
                return z3.RealVal(1)
            p = b
            for _ in range(abs(n) - 1):
                p = p * b
            return p if n > 0 else 1 / p
        if ex == sp.Rational(1, 2) or ex == sp.Rational(-1, 2):
            t = self.term(base)
            s = self._func("sqrt", ["R"], "R")(t)
            self._axiom("sqrt:" + sp.srepr(base), z3.Implies(t >= 0, z3.And(s >= 0, s * s == t)))
            return s if ex > 0 else 1 / s
        f = self._func("pow", ["R", "R"], "R")
        return f(self.term(base), self.term(ex))

    def _piecewise(self, e: sp.Piecewise):
        pieces = list(e.args)
        expr, cond = pieces[-1]
        if cond is not sp.true:
            raise TranslationError("Piecewise without a final True branch")
        acc = self.term(expr)
        for expr, cond in reversed(pieces[:-1]):
            acc = z3.If(self.formula(cond), self.term(expr), acc)
        return acc

    # ---- formulas -------------------------------------------------------------------------
    def formula(self, f: sp.Basic) -> z3.BoolRef:
        if f is sp.true or f is True:
            return z3.BoolVal(True)
        if f is sp.false or f is False:
            return z3.BoolVal(False)
        if isinstance(f, sp.And):
            return z3.And([self.formula(a) for a in f.args])
        if isinstance(f, sp.Or):
            return z3.Or([self.formula(a) for a in f.args])
        if isinstance(f, sp.Not):
            return z3.Not(self.formula(f.args[0]))
        if isinstance(f, sp.Implies):
            return z3.Implies(self.formula(f.args[0]), self.formula(f.args[1]))
        if isinstance(f, sp.Equivalent):
            return self.formula(f.args[0]) == self.formula(f.args[1])
        if isinstance(f, (sp.Eq, sp.Ne)):
            a, b = f.args
            if self._is_object(a) or self._is_object(b):
                za, zb = self._arg(a, "O"), self._arg(b, "O")
            else:
                za, zb = self.term(a), self.term(b)
            return za == zb if isinstance(f, sp.Eq) else za != zb
        if isinstance(f, sp.Lt):
            return self.term(f.args[0]) < self.term(f.args[1])
        if isinstance(f, sp.Le):
            return self.term(f.args[0]) <= self.term(f.args[1])
        if isinstance(f, sp.Gt):
            return self.term(f.args[0]) > self.term(f.args[1])
        if isinstance(f, sp.Ge):
            return self.term(f.args[0]) >= self.term(f.args[1])
        if isinstance(f, BooleanFunction) and type(f).__name__ == "IsInteger":
            return z3.IsInt(self.term(f.args[0]))
        if isinstance(f, BooleanFunction) and type(f).__name__ in exprs.VOCABULARY:
            name = type(f).__name__
            sig = exprs.VOCABULARY[name]
            kinds = [sig.arg_kind(i) for i in range(len(f.args))]
            pred = self._func(name, kinds, "B")
            return pred(*[self._arg(a, k) for a, k in zip(f.args, kinds)])
        raise TranslationError(f"cannot translate formula {f} ({type(f).__name__})")

    def _is_object(self, e: sp.Basic) -> bool:
        if isinstance(e, sp.Symbol):
            return exprs.sort_of(e) == "opaque"
        if isinstance(e, AppliedUndef) and e.func.__name__ in exprs.VOCABULARY:
            return exprs.VOCABULARY[e.func.__name__].result == "O"
        return isinstance(e, sp.Lambda)


def prove(premises: Sequence[sp.Basic], claim: sp.Basic, timeout_ms: int = 20000,
          ) -> Tuple[bool, str]:
    """Is ``claim`` a consequence of ``premises`` (and sort constraints)? Returns (ok, reason).

    ``ok`` is True only when Z3 answers ``unsat`` for premises ∧ ¬claim; a countermodel or
    ``unknown`` gives False with an explanation.
    """
    tr = Translator()
    try:
        zp = [tr.formula(p) for p in premises]
        zc = tr.formula(claim)
    except (TranslationError, exprs.TermError) as exc:
        return False, f"cannot translate to SMT: {exc}"
    solver = z3.Solver()
    solver.set("timeout", int(timeout_ms))
    solver.add(*tr.axioms)
    solver.add(*zp)
    solver.add(z3.Not(zc))
    answer = solver.check()
    if answer == z3.unsat:
        return True, "unsat"
    if answer == z3.sat:
        model = solver.model()
        shown = []
        for name, (const, _) in sorted(tr.vars.items()):
            v = model.eval(const, model_completion=False)
            if not z3.is_const(v) or z3.is_rational_value(v) or z3.is_int_value(v) or z3.is_algebraic_value(v):
                shown.append(f"{name} = {v}")
        return False, "not valid; countermodel: " + (", ".join(shown[:12]) or "(none shown)")
    return False, f"Z3 answered unknown ({solver.reason_unknown()})"
