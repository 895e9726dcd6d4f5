"""Exact privacy audit of a program with a finite output (``privinfer audit``).

For an entry whose private input is a list of ``bool`` or ``[k]`` values and whose output has
finite support (or is one release of ``lapMech`` / ``gaussMech``, whose law on the grid of
released values is exact: ``verifier.semantics.released``), :func:`audit` enumerates every
input of length ``1..N``, computes each output distribution exactly with the language's
semantics (``Evaluator`` + ``monad.enumerate_finite``), and, over every *ordered* pair of
distinct inputs the entry's claim covers (its refinements evaluated on the two runs, by
``verifier.pairs.covered``, the enumeration of the fuzzer's oracle; the pairs of ``adj`` when
there is no claim to compare with), reports

* the privacy loss ``max over pairs of max_o ln (P1(o) / P2(o))`` — the smallest ``eps``
  for which the program is ``(eps, 0)``-DP on these pairs (``inf`` when an output is possible
  for the first input and impossible for the second);
* the worst pair (the two inputs, the output, both probabilities), and the loss by length;
* the curve ``delta(eps) = max over pairs of sum_o max(P1(o) - e^eps P2(o), 0)``, the
  smallest ``delta`` for which the program is ``(eps, delta)``-DP on these pairs;
* a comparison with the claim (``val``) of the entry, its indices evaluated on each ordered
  pair, together with the verifier's verdict on that claim (:class:`ClaimCheck`).

Public API
==========

* ``audit(program, typed, entry, n, arg_specs, **options) -> AuditResult``: the audit of an
  entry of a parsed program; the verifier's verdict on its claim, when given
  (``ClaimVerdict``), is what the claim is compared with. ``verifier.claim_audit`` runs the
  verifier and then the audit (``audit_program``, what ``privinfer audit`` and the benchmark
  runner call): the audit never imports the verifier, whose refutations run audits.
* ``AuditResult``: ``.loss``, ``.worst``, ``.delta_curve``, ``.claim``, ``.soundness_bug``,
  ``.render()``, ``.to_json()``, ``.bench_cell()``.
* ``BENCH_AUDITS`` / ``bench_audits(path)``: the audits the benchmark suite runs, per program.

Arguments
=========

The private input is the entry's first parameter whose type is a list of ``bool`` or ``[k]``
(or the one named by ``private``). Every other parameter gets a value from ``--arg NAME=VALUE``
exactly as ``privinfer run`` parses it (``verifier.semantics.entry.bind_arguments``: the language's
literal syntax, checked against the parameter's type and ranges). One extension: a value that
mentions the program's top-level names (``--arg eps='1.0 / rho'``) is evaluated in the
program's scope, then checked the same way (``run.conform``).

Exactness
=========

The laws are computed with the exact semantics of ``run`` (docs/reals.md): every probability is
a rational or an exact real. ``AuditResult.precision`` is ``exact`` when every law is (all laws
of the built-ins), ``float`` when some law has float probabilities (only laws supplied by
extensions); the loss is a rigorous Arb enclosure (128 bits) for exact laws.

The comparison with the claim is decided exactly for exact laws: the claimed ``eps`` and
``delta`` are exact numbers, a pure claim is violated by a pair when ``P1(o) > e^eps P2(o)`` for
some output (decided by the loss enclosure when it is clear of ``eps``, else output by output
with exact reals), an approximate one when the hockey-stick sum exceeds ``delta`` (exactly).
Only float laws are compared within ``TOLERANCE`` (1e-9). The ``delta(eps)`` curve and the
printed numbers are float64.

Deduplication: every input is evaluated (the enumeration is complete); pairs are grouped by
their ordered pair of output distributions (identical laws share a class: laws are keyed by the
identity of their hash-consed expressions, ``_structural``), so the loss and the ``delta`` curve
are computed once per distinct ordered pair of laws.
"""
from __future__ import annotations

import itertools
import math
import time
from fractions import Fraction
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple, Union

from obligations.records import field, record, replace
from verifier.errors import Diagnostic, PrivInferError, error
from verifier.language import ast
from verifier.language import types as ty
from verifier.language.parser import parse_expr
from verifier.language.pretty import pretty_expr
from verifier.language.typecheck import TypedProgram
from verifier.pairs import Parameter, Shape, covered, equality_assertion, mentions_any, read_claim as _shape_of
from verifier.pairs import equality_refinement as _equality_refinement
from verifier.pairs import run_name as _run_name
from verifier.laws import (ENCLOSED, EXACT, FLOAT, RANK, SCORES, TOLERANCE, CoarseLaw, Law, PairStat,
                           breakpoints, hockey_stick, output_law, pair_stat, to_float)
from verifier.semantics import reals, released
from verifier.semantics.evaluator import BUILTINS, CONSTANTS, Evaluator
from verifier.semantics.values import ConsList, Value, format_value, to_json, values_equal

#: The most inputs (over all lengths) an audit evaluates unless told otherwise.
MAX_INPUTS = 100_000


# claim comparison statuses
CONSISTENT = "consistent"
SOUNDNESS_BUG = "SOUNDNESS BUG"
VIOLATED = "violated"              # claim not verified, and the audit shows it is false
HOLDS = "holds at these sizes"     # claim not verified, but it holds on the audited inputs
NOT_COMPARABLE = "not comparable"
NO_CLAIM = "no claim"


# ======================================================================================
# results
# ======================================================================================


@record
class WorstPair:
    """Two adjacent inputs and the output where their log-probabilities differ the most."""

    left: Value                 # the private input of run 1 (a ConsList)
    right: Value                # the private input of run 2
    output: Value
    p_left: float               # P1(output), float64 (0.0 when impossible)
    p_right: float
    loss: float

    def to_json(self) -> Dict[str, Any]:
        return {"left": to_json(self.left), "right": to_json(self.right),
                "left_printed": format_value(self.left), "right_printed": format_value(self.right),
                "output": to_json(self.output), "output_printed": format_value(self.output),
                "p_left": self.p_left, "p_right": self.p_right, "loss": _json_float(self.loss)}


@record(frozen=False)
class ClaimCheck:
    """How the audit compares with the entry's ``val`` claim.

    ``verifier`` is the verifier's verdict on the claim (``verified`` / ``refuted`` /
    ``unknown``), ``skipped`` when the verifier was not run, ``error`` when it failed on the
    file (the claim is still compared), ``none`` without a claim.
    ``eps`` / ``delta`` are the claimed parameters at the given arguments (the largest over the
    covered pairs when they depend on the pair). ``status`` is one of ``CONSISTENT``,
    ``SOUNDNESS_BUG``, ``VIOLATED``, ``HOLDS``, ``NOT_COMPARABLE``, ``NO_CLAIM``; ``message``
    says it in words. ``excess`` is the largest ``loss - eps_claimed`` (pure claims) or
    ``delta(eps_claimed) - delta_claimed`` (approximate claims) over the covered pairs, with the
    pair where it is reached in ``violation``.
    """

    verifier: str
    statement: str = ""
    status: str = NO_CLAIM
    message: str = ""
    eps: Optional[float] = None
    delta: Optional[float] = None
    delta_at_eps: Optional[float] = None
    excess: Optional[float] = None
    covered_pairs: int = 0
    uncovered_pairs: int = 0
    violation: Optional[Tuple[Value, Value]] = None
    failure: Optional[str] = None
    eps_text: str = ""             # the claimed eps printed from its exact value (beyond floats)

    def to_json(self) -> Dict[str, Any]:
        return {"verifier": self.verifier, "statement": self.statement, "status": self.status,
                "message": self.message, "eps": _json_float(self.eps), "delta": _json_float(self.delta),
                "delta_at_eps": _json_float(self.delta_at_eps), "excess": _json_float(self.excess),
                "covered_pairs": self.covered_pairs, "uncovered_pairs": self.uncovered_pairs,
                "violation": None if self.violation is None else [format_value(v) for v in self.violation],
                "verifier_failure": self.failure}


@record(frozen=False)
class AuditResult:
    """Everything ``privinfer audit`` reports (see the module docstring)."""

    file: str
    entry: str
    private: str                       # the private parameter's name
    private_type: str                  # "bool list", "[k] list", "real in {0, 1} list", ...
    max_length: int
    arguments: Dict[str, str]          # the other parameters, printed
    inputs: int = 0                    # inputs evaluated
    pairs: int = 0                     # ordered pairs of distinct inputs related by ``relation``
    relation: str = ""                 # the relation on the private input the pairs satisfy
    distinct_laws: int = 0
    distinct_pairs: int = 0            # distinct pairs of different laws
    loss: float = 0.0
    loss_lower: Optional[float] = None  # rigorous enclosure of ``loss`` (EXACT / SCORES)
    loss_upper: Optional[float] = None
    loss_ball: Optional[str] = None
    precision: str = EXACT
    worst: Optional[WorstPair] = None
    loss_by_length: List[Tuple[int, float]] = field(default_factory=list)
    delta_curve: List[Tuple[float, float]] = field(default_factory=list)
    claim: ClaimCheck = field(default_factory=lambda: ClaimCheck("none"))
    seconds: float = 0.0
    loss_text: str = ""                # the loss printed from its enclosure (beyond floats)
    lower_bound: bool = False          # the loss is a lower bound (released values binned)

    @property
    def soundness_bug(self) -> bool:
        """A verified claim that the exact loss exceeds."""
        return self.claim.status == SOUNDNESS_BUG

    @property
    def exceeds_claim(self) -> bool:
        """The program does not meet its claim on the audited inputs (verified or not)."""
        return self.claim.status in (SOUNDNESS_BUG, VIOLATED)

    def bench_cell(self) -> str:
        """A short summary for a benchmark table column, e.g. ``1.0231 > 1 (violated)``."""
        loss = _short(self.loss)
        c = self.claim
        if c.status in (NO_CLAIM, NOT_COMPARABLE) or c.eps is None:
            return f"loss {loss} ({c.status})"
        bound = _short(c.eps)
        if c.delta:
            return f"delta({bound}) {_short(c.delta_at_eps)} vs {_short(c.delta)} ({c.status})"
        sign = ">" if c.status in (SOUNDNESS_BUG, VIOLATED) else "<="
        return f"loss {loss} {sign} {bound} ({c.status})"

    def to_json(self) -> Dict[str, Any]:
        return {
            "file": self.file, "entry": self.entry, "private": self.private,
            "private_type": self.private_type, "max_length": self.max_length,
            "arguments": self.arguments, "inputs": self.inputs, "pairs": self.pairs,
            "relation": self.relation,
            "distinct_laws": self.distinct_laws, "distinct_pairs": self.distinct_pairs,
            "loss": _json_float(self.loss),
            "loss_enclosure": (None if self.loss_lower is None
                               else [_json_float(self.loss_lower), _json_float(self.loss_upper)]),
            "loss_ball": self.loss_ball, "precision": self.precision,
            "worst": None if self.worst is None else self.worst.to_json(),
            "loss_by_length": [[m, _json_float(v)] for m, v in self.loss_by_length],
            "delta_curve": [[e, d] for e, d in self.delta_curve],
            "claim": self.claim.to_json(),
            "soundness_bug": self.soundness_bug, "exceeds_claim": self.exceeds_claim,
            "loss_is_lower_bound": self.lower_bound,
            "seconds": round(self.seconds, 3),
        }

    def render(self) -> str:
        """The human-readable report printed by ``privinfer audit``."""
        lines = [f"{self.file}  {self.entry}"]
        args = ", ".join(f"{k} = {v}" for k, v in self.arguments.items()) or "none"
        lines.append(f"  private input: {self.private} : {self.private_type}, length 1..{self.max_length}; "
                     f"ordered pairs related by {self.relation}: {self.inputs} inputs, {self.pairs} pairs, "
                     f"{self.distinct_laws} distinct output laws, {self.distinct_pairs} distinct pairs of laws")
        lines.append(f"  arguments: {args}")
        loss = self.loss_text or ("inf" if math.isinf(self.loss) else f"{self.loss:.10g}")
        line = f"  privacy loss: {loss}  (max over these pairs of max_o ln (P1(o) / P2(o)))"
        if self.lower_bound:
            line += ("\n    a lower bound: released noisy values that the program also compared are "
                     "binned (docs/audit.md)")
        lines.append(line)
        if self.loss_lower is not None and math.isfinite(self.loss):
            what = {EXACT: "exact probabilities",
                    ENCLOSED: "the sampler's probabilities, enclosed around the exact law of "
                              "continuous noise"}.get(self.precision, "the program's float64 scores taken as exact")
            lines.append(f"    enclosure [{self.loss_lower!r}, {self.loss_upper!r}] (Arb ball arithmetic, "
                         f"{what})")
        elif self.precision == FLOAT and math.isfinite(self.loss):
            lines.append("    computed in float64 from the evaluator's float probabilities")
        if self.worst is not None:
            w = self.worst
            lines.append(f"  worst pair: {format_value(w.left)}  vs  {format_value(w.right)}")
            lines.append(f"    at output {format_value(w.output)}: P1 = {w.p_left:.10g}, P2 = {w.p_right:.10g}")
        if self.loss_by_length:
            by = ", ".join(f"{m}: {_short(v)}" for m, v in self.loss_by_length)
            lines.append(f"  loss by length: {by}")
        if self.delta_curve:
            lines.append("  delta(eps) (float64):")
            for e, d in self.delta_curve:
                lines.append(f"    eps = {e:<10.6g} delta = {d:.6g}")
        c = self.claim
        if c.statement:
            lines.append(f"  claim: {c.statement}")
        if c.eps is not None:
            delta = "0" if not c.delta else f"{c.delta:.6g}"
            lines.append(f"    at these arguments: ({c.eps_text or f'{c.eps:.10g}'}, {delta}); verifier: {c.verifier}")
        elif c.verifier not in ("none",):
            lines.append(f"    verifier: {c.verifier}")
        if c.failure and c.verifier != "verified":
            lines.append(f"    verifier's reason: {c.failure.splitlines()[0]}")
        lines.append(f"  verdict: {c.status}: {c.message}")
        return "\n".join(lines)


def _short(x: Optional[float]) -> str:
    if x is None:
        return "?"
    if math.isinf(x):
        return "inf"
    return f"{x:.5g}"


def _json_float(x: Optional[float]) -> Any:
    if x is None:
        return None
    if math.isinf(x):
        return "infinity" if x > 0 else "-infinity"
    return float(x)


# ======================================================================================
# the claim
# ======================================================================================


@record(frozen=False)
class _Claim:
    """The shape of a ``val`` as far as the audit needs it."""

    val: ast.ValDecl
    binders: List[List[Tuple[str, ast.Expr]]]   # per parameter: (refinement variable, assertion)
    kind: str                                    # "DP", "equal" or "other"
    eps: Optional[ast.Expr] = None
    delta: Optional[ast.Expr] = None
    reason: str = ""                             # why "other"


def _read_claim(val: ast.ValDecl, count: int) -> _Claim:
    rt = val.rtype
    binders: List[List[Tuple[str, ast.Expr]]] = []
    for _ in range(count):
        if not isinstance(rt, ast.RArrow):
            return _Claim(val, binders, "other", reason="the claim has fewer arrows than the entry has parameters")
        dom, here = rt.dom, []
        while isinstance(dom, ast.RRefine):
            here.append((dom.var, dom.assertion))
            dom = dom.base
        binders.append(here)
        rt = rt.cod
    if isinstance(rt, ast.RMonad):
        if rt.div.kind != "DP":
            return _Claim(val, binders, "other",
                          reason=f"the claim bounds the {rt.div.kind} divergence, not differential privacy")
        if not _equality_refinement(rt.body):
            return _Claim(val, binders, "other",
                          reason="the claim lifts a relation other than equality of the outputs")
        return _Claim(val, binders, "DP", rt.div.eps, rt.delta)
    if _equality_refinement(rt):
        return _Claim(val, binders, "equal")
    return _Claim(val, binders, "other", reason="the claim says nothing about the output distributions")


def _rename_runs(node: Any) -> Any:
    """``node`` with every ``x<i>`` replaced by a variable named ``x<i>`` (so that the evaluator
    can look it up in an environment)."""
    return ast.transform(node, lambda n: ast.Var(_run_name(n.name, n.run), n.span)
                         if isinstance(n, ast.RunVar) else None)


class AssertionEvaluator:
    """Evaluates the assertions and indices of a claim for given values of the two runs.

    ``evaluator`` is the scope the claim is read in: ``claim_scope`` gives the scope of a
    ``val`` (the definitions before it, so a built-in redefined after the ``val`` keeps its
    built-in meaning in the claim). An environment binds ``x<1>`` and ``x<2>`` (``run_name``) for
    every refinement variable ``x``, and ``x`` itself when both runs agree."""

    def __init__(self, evaluator: Evaluator):
        self.evaluator = evaluator
        self._renamed: Dict[int, Tuple[ast.Expr, ast.Expr]] = {}

    def value(self, expr: ast.Expr, env: Dict[str, Value]) -> Value:
        cached = self._renamed.get(id(expr))
        if cached is None or cached[0] is not expr:
            cached = self._renamed[id(expr)] = (expr, _rename_runs(expr))
        return self.evaluator.evaluate(cached[1], env)

    def number(self, expr: ast.Expr, env: Dict[str, Value]) -> Any:
        """The exact number a claimed privacy parameter evaluates to (TypeError otherwise)."""
        v = self.value(expr, env)
        if not reals.is_exact_number(v):
            raise TypeError(f"{pretty_expr(expr)} is not a number")
        return v

    def holds(self, assertion: ast.Expr, var: str, env: Dict[str, Value]) -> Optional[bool]:
        """The assertion's truth value, or ``None`` when it cannot be evaluated."""
        a = assertion
        if isinstance(a, ast.SameRuns):
            return _safe_equal(env[_run_name(var, 1)], env[_run_name(var, 2)])
        if isinstance(a, ast.Conj):
            left, right = self.holds(a.left, var, env), self.holds(a.right, var, env)
            return False if False in (left, right) else (None if None in (left, right) else True)
        if isinstance(a, ast.Disj):
            left, right = self.holds(a.left, var, env), self.holds(a.right, var, env)
            return True if True in (left, right) else (None if None in (left, right) else False)
        if isinstance(a, ast.Neg):
            inner = self.holds(a.operand, var, env)
            return None if inner is None else not inner
        if isinstance(a, ast.Implies):
            left = self.holds(a.left, var, env)
            if left is False:
                return True
            right = self.holds(a.right, var, env)
            return True if right is True else (None if None in (left, right) else False)
        if isinstance(a, (ast.Quant, ast.DivBound)):
            return None
        try:
            result = self.value(a, env)
        except PrivInferError:
            return None
        return result if isinstance(result, bool) else None


def claim_scope(program: ast.Program, typed: Optional[TypedProgram], val: ast.ValDecl) -> Evaluator:
    """An evaluator of the top-level definitions that stand before ``val``: the scope its claim
    is read in (a name defined later, or a built-in redefined later, does not change it).
    Raises ``PrivInferError`` when one of those definitions fails to evaluate."""
    index = next(i for i, d in enumerate(program.decls) if d is val)
    prefix = ast.Program(program.decls[:index], program.file, program.source)
    return Evaluator(prefix, typed)


class _ClaimEvaluator(AssertionEvaluator):
    """The audit's claim: bindings of its parameters, and which parts depend on the private pair."""

    def __init__(self, evaluator: Evaluator, claim: _Claim, private_position: int):
        super().__init__(evaluator)
        self.claim = claim
        self.private_position = private_position
        names = [var for var, _ in claim.binders[private_position]] if private_position < len(claim.binders) else []
        self.private_names = names

    def bindings(self, runs: Sequence[Tuple[Value, Value]]) -> Dict[str, Value]:
        """Environment for the values ``(run 1, run 2)`` of every parameter, by binder name."""
        env: Dict[str, Value] = {}
        for (v1, v2), binders in zip(runs, self.claim.binders):
            for var, _ in binders:
                env[_run_name(var, 1)], env[_run_name(var, 2)] = v1, v2
                if v1 is v2 or _safe_equal(v1, v2):
                    env[var] = v1
        return env

    def depends_on_pair(self, node: Optional[ast.Node]) -> bool:
        return node is not None and mentions_any(node, set(self.private_names))


#: The claim reader and evaluator, for the witnesses of refutations (``verifier.refutation``);
#: the law of a run and the environment names of ``x<i>``, for the fuzzer's oracle.
read_claim, ClaimEvaluator, equality_refinement = _read_claim, _ClaimEvaluator, _equality_refinement
run_name = _run_name


def _safe_equal(a: Value, b: Value) -> Optional[bool]:
    """The language's ``=``; ``None`` (not known) for posteriors without a closed form, which
    are equal only when made of the same closures (docs/reals.md)."""
    from verifier.semantics.posterior import holds_posterior
    if a is not b and (holds_posterior(a) or holds_posterior(b)):
        return None
    try:
        return values_equal(a, b)
    except TypeError:
        return a is b


# ======================================================================================
# arguments
# ======================================================================================


def _private_parameter(params: List[Any], entry: str, name: Optional[str]) -> Tuple[Any, Any]:
    """The private parameter and the kind of its elements: ``None`` for ``bool``, the size ``k``
    of ``[k]``, or ``ty.INT`` / ``ty.REAL`` for numbers (enumerated from ``--values``)."""
    def element(p) -> Optional[ty.Type]:
        t = ty.prune(p.type) if p.type is not None else None
        if isinstance(t, ty.ListType):
            e = ty.prune(t.elem)
            if e in (ty.BOOL, ty.INT, ty.REAL) or isinstance(e, ty.Fin):
                return e
        return None

    if name is not None:
        chosen = [p for p in params if name in (p.name, f"#{p.position}")]
        if not chosen:
            names = ", ".join(p.name for p in params) or "none"
            raise error("U002", f"--private {name}: {entry} has no parameter {name!r} (parameters: {names})")
        p = chosen[0]
        if element(p) is None:
            shown = ty.pretty(p.type) if p.type is not None else "unknown"
            raise error("U002", f"--private {name}: the private input must be a list of bool, [k], int or "
                                f"real values, but {p.label} has type {shown}")
    else:
        candidates = [p for p in params if element(p) is not None]
        if not candidates:
            listing = ", ".join(f"{p.name} : {ty.pretty(p.type) if p.type is not None else '?'}" for p in params)
            raise error("U002", f"{entry} has no list parameter to audit (parameters: {listing or 'none'})",
                        hint="the audit enumerates a private list of bool, [k], int or real values")
        finite = [p for p in candidates if element(p) == ty.BOOL or isinstance(element(p), ty.Fin)]
        p = (finite or candidates)[0]
    e = element(p)
    if isinstance(e, ty.Fin):
        if e.k is None:
            raise error("U002", f"the number of categories of {p.label}'s elements is not known",
                        hint="write the parameter's type, e.g. in its val: {l :: [3] list | adj (l<1>, l<2>)}")
        return p, e.k
    return p, (None if e == ty.BOOL else e)


#: the element values of a private list of numbers when ``--values`` is not given
DEFAULT_VALUES = (0, 1)


def _elements(priv: Any, kind: Any, values: Optional[Sequence[Any]]) -> List[Value]:
    """The values the private list's elements range over: ``false, true``; ``0 .. k-1``; or,
    for numbers, ``values`` (rationals; default ``DEFAULT_VALUES``), each checked against the
    parameter's written type (``nat list`` refuses -1, R005)."""
    from verifier.semantics import entry as running
    if kind is None or isinstance(kind, int):
        if values is not None:
            raise error("U002", f"--values: {priv.label} is a list of "
                                f"{'bool' if kind is None else f'[{kind}]'} values, which the audit "
                                "enumerates all of; --values is for lists of numbers")
        return [False, True] if kind is None else list(range(kind))
    chosen: List[Value] = []
    for v in (DEFAULT_VALUES if values is None else values):
        q = Fraction(v)
        if kind == ty.INT:
            if q.denominator != 1:
                raise error("U002", f"--values: {q} is not an integer, and {priv.label} is a list of ints")
            x: Value = int(q)
        else:
            x = q
        running.conform(ConsList.from_sequence([x]), priv, "--values")
        if all(not values_equal(x, y) for y in chosen):
            chosen.append(x)
    if not chosen:
        raise error("U002", "--values: give at least one value")
    return chosen


def bind_public_arguments(evaluator: Evaluator, params: List[Any], private: Any, entry: str,
                          arg_specs: Sequence[str]) -> Dict[str, Value]:
    """Values of every parameter but the private one, from ``NAME=VALUE`` specifications.

    A value in the language's literal syntax goes through ``run.bind_arguments`` (the checks of
    ``privinfer run``); a value mentioning top-level names of the program is evaluated in the
    program's scope and checked with ``run.conform``."""
    from verifier.semantics import entry as running
    by_name = {}
    for p in params:
        by_name[p.name] = p
        by_name[f"#{p.position}"] = p
    scoped: Dict[str, Value] = {}
    plain: List[str] = []
    seen = set()
    for spec in arg_specs:
        name, sep, text = spec.partition("=")
        name = name.strip()
        param = by_name.get(name)
        if param is private:
            raise error("R005", f"--arg {name}: {private.label} is the private input, which the audit "
                                f"enumerates; do not give it")
        if param is not None and sep:
            if param.name in seen:
                raise error("R005", f"--arg {name}: the parameter {param.label} is given twice")
            seen.add(param.name)
            where = f"--arg {param.name}"
            try:
                expr = parse_expr(text, f"<{where}>")
                free = running._free_names(expr) - set(BUILTINS) - set(CONSTANTS)
                unknown = free - set(evaluator.values)
                if unknown:
                    raise error("R005", f"{where}: the value mentions {', '.join(sorted(unknown))}, which "
                                        f"{'is' if len(unknown) == 1 else 'are'} neither built-in nor defined "
                                        f"at the top level of the program", expr.span)
                if free:
                    scoped[param.name] = running.conform(evaluator.evaluate(expr), param, where)
                    continue
            except PrivInferError as exc:
                if exc.source is None:
                    exc.source = text
                raise
        plain.append(spec)
    rest = [p for p in params if p is not private and p.name not in scoped]
    try:
        values = running.bind_arguments(rest, entry, plain, [])
    except PrivInferError as exc:  # `run`'s hint mentions --data, which audit does not take
        raise PrivInferError([Diagnostic(d.code, d.message, d.span,
                                         "give each public parameter with --arg NAME=VALUE" if d.hint and
                                         "--data" in d.hint else d.hint, d.notes)
                              for d in exc.diagnostics], exc.source) from None
    values.update(scoped)
    return values


# ======================================================================================
# the audit
# ======================================================================================


def audit(program: ast.Program, typed: Optional[TypedProgram], entry: str, n: int, arg_specs: Sequence[str],
          *, private: Optional[str] = None, eps_grid: Optional[Sequence[float]] = None,
          verdict: Union["ClaimVerdict", Callable[[], Optional["ClaimVerdict"]], None] = None,
          max_inputs: int = MAX_INPUTS,
          step_budget: Optional[int] = None, total_steps: Optional[int] = None,
          values: Optional[Sequence[Any]] = None) -> AuditResult:
    """Audit ``entry`` of ``program`` (see the module docstring).

    ``private`` names the private parameter (default: the first ``bool``/``[k]`` list, else the
    first list of numbers); ``values`` the rationals the elements of a list of numbers range over
    (default ``DEFAULT_VALUES``);
    ``eps_grid`` the points of the ``delta(eps)`` curve (default: 11 points from 0 to a little
    above the loss and the claimed eps); ``verdict`` is what the verifier concluded of the
    entry's claim, or a function computing it, called only once the arguments are known to be
    good (``verifier.claim_audit`` passes the verifier's run so that bad input is reported
    before the verifier runs); without one the claim is still evaluated and compared, as "not
    verified"; ``step_budget`` and ``total_steps`` bound the evaluator's
    steps per input and over all inputs (``Evaluator``; R010 when exceeded). Raises
    ``PrivInferError`` (U002, R005, R003, R009, R010, R011, ...) on bad input.
    """
    try:
        return _audit(program, typed, entry, n, arg_specs, private, eps_grid, verdict, max_inputs,
                      Evaluator(program, typed, step_budget, total_steps), values)
    except reals.Undecided as exc:
        from verifier.semantics.evaluator import undecided_error
        raise undecided_error(exc, None) from None


def _audit(program: ast.Program, typed: Optional[TypedProgram], entry: str, n: int, arg_specs: Sequence[str],
           private: Optional[str], eps_grid: Optional[Sequence[float]], verdict,
           max_inputs: int, evaluator: Evaluator, values: Optional[Sequence[Any]] = None) -> AuditResult:
    from verifier.semantics import entry as running
    start = time.perf_counter()
    if not isinstance(n, int) or isinstance(n, bool) or n < 1:
        raise error("U002", f"--n must be a positive integer, got {n!r}")
    decl = evaluator.entry(entry)
    params = running.entry_parameters(program, typed, decl)
    priv, k = _private_parameter(params, entry, private)
    elements = _elements(priv, k, values)
    if not isinstance(max_inputs, int) or isinstance(max_inputs, bool) or max_inputs < 1:
        raise error("U002", f"--max-inputs must be a positive integer, got {max_inputs!r}")
    total_inputs = 0
    for m in range(1, n + 1):           # stops at the limit: --n 1000000000 is refused at once
        total_inputs += len(elements) ** m
        if total_inputs > max_inputs:
            raise error("R009", f"the audit would evaluate more than {max_inputs} inputs ({len(elements)}^m "
                                f"for m = 1..{n}), the limit", hint="lower --n (or raise --max-inputs)")
    public = bind_public_arguments(evaluator, params, priv, entry, arg_specs)
    private_type = ("bool list" if k is None else f"[{k}] list" if isinstance(k, int) else
                    f"{ty.pretty(k)} list (elements from {', '.join(format_value(v) for v in elements)})")
    result = AuditResult(program.file, entry, priv.name, private_type, n,
                         {p.name: format_value(public[p.name]) for p in params if p is not priv})

    if callable(verdict):
        verdict = verdict()
    shape, claim_check = _prepare_claim(program, entry, verdict)
    scope = AssertionEvaluator(claim_scope(program, typed, shape.val)) if shape is not None else None
    fixed = _fixed_claim_parts(shape, scope, params, priv, public, claim_check)

    # every input, evaluated once; laws are shared by inputs with the same output law
    inputs: List[Tuple[Value, ...]] = [x for m in range(1, n + 1) for x in itertools.product(elements, repeat=m)]
    laws, law_of_input, precision = collect_laws(
        inputs, lambda x: _evaluate_input(evaluator, entry, decl, params, priv, public, x))
    result.inputs = len(inputs)
    domains = [[ConsList.from_sequence(list(x)) for x in inputs] if p is priv else [public[p.name]]
               for p in params]
    position = params.index(priv)

    tracker = _ClaimTracker(claim_check, fixed) if fixed is not None else None
    measured = None
    if fixed is not None:
        measured = measure_pairs(result, inputs, laws, law_of_input, priv.name,
                                 ((i1[position], i2[position], env) for i1, i2, env
                                  in covered(fixed.shape, domains, scope)), tracker)
        result.relation = fixed.relation
    if fixed is None or claim_check.covered_pairs == 0:   # the loss over adjacent inputs
        adjacency, adjacent_scope = _adjacency(program, typed, params, priv)
        result.pairs = 0
        measured = measure_pairs(result, inputs, laws, law_of_input, priv.name,
                                 ((i1[position], i2[position], env) for i1, i2, env
                                  in covered(adjacency, domains, adjacent_scope)), None)
        result.relation = f"adj ({priv.name}<1>, {priv.name}<2>)"
    summarise(result, measured, laws, precision, claim_check, tracker, eps_grid, entry)
    result.seconds = time.perf_counter() - start
    return result


def collect_laws(inputs: Sequence[Tuple[Value, ...]], evaluate) -> Tuple[List[Any], List[int], str]:
    """The distinct output laws of ``inputs`` (``evaluate(x)`` gives ``output_law``'s
    ``(key, build)``; each law built once), the index of each input's law, and the precision
    of the laws together."""
    keys: Dict[Any, int] = {}
    laws: List[Any] = []
    law_of_input: List[int] = []
    precision = EXACT
    for x in inputs:
        key, law_builder = evaluate(x)
        if key not in keys:
            keys[key] = len(laws)
            laws.append(law_builder())
            precision = max(precision, _law_precision(laws[-1]), key=RANK.__getitem__)
        law_of_input.append(keys[key])
    return laws, law_of_input, precision


@record(frozen=False)
class Measured:
    """What ``measure_pairs`` found: the comparison of each ordered pair of distinct laws
    (by their indices), the worst pair ``(loss, x, y, stat)`` and the largest loss per length."""

    stats: Dict[Tuple[int, int], PairStat] = field(default_factory=dict)
    best: Optional[Tuple[float, Tuple[Value, ...], Tuple[Value, ...], PairStat]] = None
    by_length: Dict[int, float] = field(default_factory=dict)


def measure_pairs(result: AuditResult, inputs: Sequence[Tuple[Value, ...]], laws: Sequence[Any],
                  law_of_input: Sequence[int], private: str, pairs, track: Optional["_ClaimTracker"]
                  ) -> Measured:
    """Compare the laws of the ordered pairs ``pairs`` (``(index of x, index of y, env)`` in
    ``inputs``; equal inputs skipped), counting them in ``result.pairs``, each pair checked
    against the claim by ``track`` (shared with the audit of while-programs,
    ``verifier.aprhl.audit``)."""
    cuts = breakpoints(laws) if any(isinstance(law, CoarseLaw) for law in laws) else None
    m = Measured()
    for ix, iy, env in pairs:
        if ix == iy:
            continue
        x, y = inputs[ix], inputs[iy]
        cx, cy = law_of_input[ix], law_of_input[iy]
        result.pairs += 1
        stat = None
        if cx != cy:
            stat = m.stats.get((cx, cy))
            if stat is None:
                stat = m.stats[(cx, cy)] = _checked_pair_stat(laws[cx], laws[cy], x, y, private, cuts)
            if m.best is None or stat.loss > m.best[0]:
                m.best = (stat.loss, x, y, stat)
        m.by_length[len(x)] = max(m.by_length.get(len(x), 0.0), 0.0 if stat is None else stat.loss)
        if track is not None:
            track.add(x, y, stat, env)
    return m


def summarise(result: AuditResult, measured: Measured, laws: Sequence[Any], precision: str,
              claim_check: ClaimCheck, tracker: Optional["_ClaimTracker"],
              eps_grid: Optional[Sequence[float]], entry: str) -> None:
    """Fill in ``result``'s loss, worst pair, loss by length, ``delta(eps)`` curve and claim
    comparison from what ``measure_pairs`` found."""
    stats, best = measured.stats, measured.best
    result.loss_by_length = sorted(measured.by_length.items())
    result.lower_bound = any(s.lower_only for s in stats.values())
    result.distinct_laws = len(laws)
    result.distinct_pairs = len(stats)
    result.precision = precision
    if best is not None:
        loss, x, y, stat = best
        result.loss = loss
        result.worst = WorstPair(ConsList.from_sequence(x), ConsList.from_sequence(y), stat.output, stat.p_a,
                                 stat.p_b, loss)
        if math.isinf(loss) and stat.ball is not None and stat.ball.is_finite():
            result.loss_text = stat.ball.str(10, radius=False)
        if all(s.lower is not None for s in stats.values()) and math.isfinite(loss):
            result.loss_lower = max(s.lower for s in stats.values())
            result.loss_upper = max(s.upper for s in stats.values())
            result.loss_ball = str(stat.ball) if stat.ball is not None else None
    if tracker is not None:
        tracker.finish(result)
    elif claim_check.status == NO_CLAIM and not claim_check.message:
        claim_check.message = f"{entry} has no val claim; the audit only measures the loss"
    grid = list(eps_grid) if eps_grid is not None else _default_grid(result.loss, claim_check.eps)
    result.delta_curve = [(float(e), max((s.hockey(float(e)) for s in stats.values()), default=0.0))
                          for e in grid]
    result.claim = claim_check


def _law_precision(law: Any) -> str:
    return EXACT if isinstance(law, released.Noise) else law.precision


def _checked_pair_stat(law_a: Any, law_b: Any, x: Tuple[Value, ...], y: Tuple[Value, ...], priv: str,
                       cuts: Optional[List[Any]]) -> PairStat:
    stat = pair_stat(law_a, law_b, cuts)
    if stat is None:
        raise error("R003", f"the audit compares a release of lapMech or gaussMech only with another release of "
                            f"the same mechanism and scale, but {priv} = {format_value(ConsList.from_sequence(list(x)))} "
                            f"and {priv} = {format_value(ConsList.from_sequence(list(y)))} give laws of "
                            f"different kinds",
                    hint="a program whose kind of output depends on the private input is not DP for any finite eps")
    return stat


def _adjacency(program: ast.Program, typed: Optional[TypedProgram], params: List[Any],
               priv: Any) -> Tuple[Shape, "AssertionEvaluator"]:
    """The relation the loss is measured on without a comparable claim: the built-in
    ``adj (x<1>, x<2>)`` on the private input, the given values for the others."""
    adj = ast.App(ast.Var("adj"), ast.TupleLit((ast.RunVar(priv.name, 1), ast.RunVar(priv.name, 2))))
    shape = Shape(None, tuple(Parameter((p.name,), ((p.name, adj),) if p is priv else (), None)
                              for p in params), "none")
    return shape, AssertionEvaluator(Evaluator(ast.Program((), program.file, program.source), typed))


def _evaluate_input(evaluator: Evaluator, entry: str, decl: ast.LetDecl, params: List[Any], priv: Any,
                    public: Dict[str, Value], x: Tuple[Value, ...]):
    """``(key, law_builder)`` for the private input ``x``; errors name the input."""
    data = ConsList.from_sequence(list(x))
    args = [data if p is priv else public[p.name] for p in params]
    try:
        value = evaluator.call(entry, args)
        with evaluator.terminating(decl.span):
            return output_law(value, decl.span)
    except PrivInferError as exc:
        note = f"while auditing {priv.name} = {format_value(data)}"
        raise PrivInferError([Diagnostic(d.code, d.message, d.span, d.hint, tuple(d.notes) + (note,))
                              for d in exc.diagnostics], exc.source) from None


def _default_grid(loss: float, claimed: Optional[float]) -> List[float]:
    top = max([v for v in (loss, claimed) if v is not None and math.isfinite(v)] + [0.0])
    top = 1.25 * top if top > 0 else 1.0
    grid = {round(top * i / 10, 12) for i in range(11)}
    if claimed is not None and math.isfinite(claimed):
        grid.add(claimed)
    return sorted(grid)


# ---- claim bookkeeping ----------------------------------------------------------------


@record
class ClaimVerdict:
    """What the verifier concluded of the audited entry's claim, for the audit to compare
    with: ``verifier`` is ``verified`` / ``refuted`` / ``unknown``, ``error`` when it failed on
    the file (with its ``failure``), or ``skipped``; ``statement`` is the claim in words."""

    verifier: str
    statement: str = ""
    failure: Optional[str] = None


def _prepare_claim(program: ast.Program, entry: str,
                   verdict: Optional[ClaimVerdict]) -> Tuple[Optional[Shape], ClaimCheck]:
    val = program.find_val(entry)
    if val is None:
        return None, ClaimCheck("none")
    verdict = verdict or ClaimVerdict("skipped")
    return _shape_of(val), ClaimCheck(verdict.verifier, statement=verdict.statement, failure=verdict.failure)


@record(frozen=False)
class _Fixed:
    """A claim the audit compares with: its shape (one parameter per parameter of the entry),
    the relation it puts on the private input (printed), and its indices when they do not
    depend on the pair."""

    shape: Shape
    scope: "AssertionEvaluator"
    relation: str
    eps: Optional[Any]              # exact numbers; None when they depend on the pair
    delta: Optional[Any]


def _comparability(shape: Shape, count: int) -> str:
    """Why the audit cannot compare with this claim ('' when it can: DP, or ``=`` on a plain
    result)."""
    if len(shape.params) < count:
        return "the claim has fewer arrows than the entry has parameters"
    if shape.kind == "DP":
        return ""
    if shape.kind in ("SD", "HD", "KL"):
        return f"the claim bounds the {shape.kind} divergence, not differential privacy"
    if shape.kind == "pure" and equality_assertion(shape.assertion, shape.var):
        return ""
    if shape.kind == "none" and isinstance(_result_type(shape.val), ast.RMonad):
        return "the claim lifts a relation other than equality of the outputs"
    return "the claim says nothing about the output distributions"


def _result_type(val: ast.ValDecl) -> ast.RType:
    rt = val.rtype
    while isinstance(rt, (ast.RArrow, ast.RRefine)) and not isinstance(rt, ast.RMonad):
        if isinstance(rt, ast.RRefine):
            if not isinstance(rt.base, ast.RArrow):
                return rt
            rt = rt.base
        else:
            rt = rt.cod
    return rt


def _fixed_claim_parts(shape: Optional[Shape], scope: Optional["AssertionEvaluator"], params: List[Any],
                       priv: Any, public: Dict[str, Value], check: ClaimCheck) -> Optional[_Fixed]:
    """Evaluate the claim's premises on the public arguments alone and its indices when they do
    not depend on the pair; ``None`` (with ``check`` filled in) when there is nothing to
    compare."""
    if shape is None:
        return None
    reason = _comparability(shape, len(params))
    if reason:
        check.status, check.message = NOT_COMPARABLE, reason
        return None
    shape = replace(shape, params=shape.params[:len(params)])
    position = params.index(priv)
    private_vars = set(shape.params[position].vars)
    env: Dict[str, Value] = {}
    for p, claimed in zip(params, shape.params):
        if p is priv:
            continue
        for var in claimed.vars:
            env[_run_name(var, 1)] = env[_run_name(var, 2)] = env[var] = public[p.name]
    for i, claimed in enumerate(shape.params):
        for var, assertion in claimed.assertions:
            if i == position or mentions_any(assertion, private_vars):
                continue           # evaluated on each pair by the enumeration
            holds = scope.holds(assertion, var, env)
            if holds is None:
                check.status = NOT_COMPARABLE
                check.message = f"the claim's assumption {pretty_expr(assertion)} cannot be evaluated"
                return None
            if not holds:
                check.status = NOT_COMPARABLE
                check.message = (f"the claim assumes {pretty_expr(assertion)}, which is false for these "
                                 f"arguments: it does not cover this audit")
                return None
    relation = " /\\ ".join(pretty_expr(a) for _, a in shape.params[position].assertions) or "true"
    fixed = _Fixed(shape, scope, relation, None, None)
    if shape.kind == "pure":
        fixed.eps, fixed.delta = Fraction(0), Fraction(0)
    else:
        try:
            if not mentions_any(shape.eps, private_vars):
                fixed.eps = _claimed_number(scope, shape.eps, env)
            if shape.delta is None:
                fixed.delta = Fraction(0)
            elif not mentions_any(shape.delta, private_vars):
                fixed.delta = _claimed_number(scope, shape.delta, env)
        except (PrivInferError, TypeError, ValueError) as exc:
            check.status = NOT_COMPARABLE
            check.message = f"the claimed privacy parameters cannot be evaluated at these arguments ({exc})"
            return None
    check.eps = None if fixed.eps is None else to_float(fixed.eps)
    check.delta = None if fixed.delta is None else to_float(fixed.delta)
    if check.eps is not None and math.isinf(check.eps):
        check.eps_text = format_value(fixed.eps)
    return fixed


def _claimed_number(scope: "AssertionEvaluator", expr: ast.Expr, env: Dict[str, Value]) -> Any:
    """A claimed eps or delta, evaluated exactly on ``env``: a number ``>= 0``."""
    value = scope.number(expr, env)
    if reals.sign(value) < 0:
        raise ValueError(f"{pretty_expr(expr)} = {format_value(value)} is negative")
    return value


class _ClaimTracker:
    """Compares every covered ordered pair with the claim, keeping the worst excess.

    Whether a pair violates the claim is decided exactly for exact laws (``PairStat.exceeds``,
    ``hockey_exceeds``: the claimed bound and the probabilities are exact numbers) and with
    ``TOLERANCE`` for float laws; ``excess`` (float) only measures by how much."""

    def __init__(self, check: ClaimCheck, fixed: _Fixed):
        self.check, self.fixed = check, fixed
        self.eps_max: Optional[float] = check.eps
        self.delta_max: Optional[float] = check.delta
        self.undetermined = 0
        self.delta_cache: Dict[Tuple[int, float], float] = {}
        self.violated_cache: Dict[Tuple[int, Any], bool] = {}
        self.delta_at_eps = 0.0
        self.violated = False
        self.exact = True
        self.worst: Optional[Tuple[PairStat, Any, Any]] = None   # the pair of largest excess
        self.worst_values: Tuple[float, float, float, float] = (0.0, 0.0, 0.0, 0.0)  # its loss, eps, delta, delta(eps)

    def add(self, x: Tuple[Value, ...], y: Tuple[Value, ...], stat: Optional[PairStat],
            env: Dict[str, Value]) -> None:
        """Check one covered ordered pair (``stat`` is ``None`` when both runs have the same law)."""
        f, check = self.fixed, self.check
        try:
            eps_x = f.eps if f.eps is not None else _claimed_number(f.scope, f.shape.eps, env)
            delta_x = f.delta if f.delta is not None else _claimed_number(f.scope, f.shape.delta, env)
        except (PrivInferError, TypeError, ValueError):
            self.undetermined += 1
            check.uncovered_pairs += 1
            return
        eps, delta = to_float(eps_x), to_float(delta_x)
        pure = delta_x == 0
        check.covered_pairs += 1
        self.eps_max = eps if self.eps_max is None else max(self.eps_max, eps)
        self.delta_max = delta if self.delta_max is None else max(self.delta_max, delta)
        if stat is None:       # identical laws: loss 0, delta 0
            excess, d_at, violated = (-eps, 0.0, False) if pure else (-delta, 0.0, False)
        else:
            d_at = self.delta_cache.get((id(stat), eps))
            if d_at is None:
                d_at = self.delta_cache[(id(stat), eps)] = stat.hockey(eps)
            excess = stat.loss - eps if pure else d_at - delta
            if stat.precision != EXACT:
                self.exact = False
            violated = self._violated(stat, eps_x, delta_x, pure)
        self.delta_at_eps = max(self.delta_at_eps, d_at)
        if violated and not self.violated:  # the first violation replaces any non-violation
            self.violated, check.excess = True, None
        if violated == self.violated and (check.excess is None or excess > check.excess):
            check.excess = excess
            check.violation = (ConsList.from_sequence(list(x)), ConsList.from_sequence(list(y)))
            self.worst = (stat, eps_x, delta_x) if stat is not None else None
            self.worst_values = (0.0 if stat is None else stat.loss, eps, delta, d_at)

    def _violated(self, stat: PairStat, eps_x: Any, delta_x: Any, pure: bool) -> bool:
        """Whether ``stat``'s pair violates ``(eps_x, delta_x)``, decided exactly once per law
        pair and bound (many input pairs share both: the cache is keyed by rational bounds, or
        by the claim's fixed ones, never by a ``Real``, whose equality is a computation)."""
        fixed = self.fixed.eps is not None and self.fixed.delta is not None
        key = (id(stat), () if fixed else (eps_x, delta_x))
        if not fixed and not all(isinstance(b, (Fraction, int)) for b in key[1]):
            key = None
        if key is None or key not in self.violated_cache:
            verdict = stat.exceeds(eps_x) if pure else stat.hockey_exceeds(eps_x, delta_x)
            if key is None:
                return verdict
            self.violated_cache[key] = verdict
        return self.violated_cache[key]

    def finish(self, result: AuditResult) -> None:
        check = self.check
        check.eps, check.delta = self.eps_max, self.delta_max
        check.delta_at_eps = self.delta_at_eps if check.covered_pairs else None
        if check.covered_pairs == 0:
            check.status = NOT_COMPARABLE
            check.message = ("no audited pair satisfies the claim's assumptions"
                             + (f" ({self.undetermined} could not be evaluated)" if self.undetermined else ""))
            check.violation = None
            return
        pure = not check.delta
        violated = self.violated
        eps_s, loss_s = check.eps_text or _short(check.eps), result.loss_text or _short(result.loss)
        delta_s, d_at = f"{check.delta:.6g}" if check.delta else "0", check.delta_at_eps
        what = f"({eps_s}, {delta_s})-DP"
        if self.fixed.eps is None or self.fixed.delta is None:   # the claim depends on the pair
            what = f"{what} (the largest bound it claims for a pair)"
            if violated:    # the numbers of the violating pair
                loss, eps, delta, d_at = self.worst_values
                eps_s, loss_s, delta_s = _short(eps), _short(loss), f"{delta:.6g}"
                pure = delta == 0
                what = f"({eps_s}, {delta_s})-DP at that pair, as claimed"
        sizes = f"on inputs of length <= {result.max_length}"
        if pure:
            measured = f"loss at least {loss_s}" if result.lower_bound else f"exact loss {loss_s}"
            if violated:
                measured += f" > claimed {eps_s}"
            elif self._tight():
                measured += f" = claimed {eps_s} (tight)"
            elif not self.exact and abs(check.excess) <= TOLERANCE:
                measured += f" = claimed {eps_s} (tight, within {TOLERANCE:g})"
            else:
                measured += f" <= claimed {eps_s}"
        else:
            measured = f"delta({eps_s}) = {d_at:.6g}"
            measured += f" > claimed delta {delta_s}" if violated else f" <= claimed delta {delta_s}"
        if check.verifier == "verified":
            if violated:
                check.status = SOUNDNESS_BUG
                check.message = (f"the verifier proved {what}, but the {measured} "
                                 f"({_pair_text(check.violation)})")
            else:
                check.status = CONSISTENT
                check.message = f"{measured} {sizes}"
        else:
            proof = {"refuted": "the verifier refuted the claim",
                     "unknown": "the verifier could not decide the claim",
                     "error": "the verifier failed on this file",
                     }.get(check.verifier, "the claim was not verified (--no-verify)")
            if violated:
                check.status = VIOLATED
                tail = {"refuted": "; the audit agrees",
                        "unknown": "; the audit shows it is false"}.get(check.verifier, "")
                check.message = (f"{measured}: the program is NOT {what} {sizes} "
                                 f"({_pair_text(check.violation)}); {proof}{tail}")
            else:
                check.status = HOLDS
                check.message = (f"{measured}: the program meets its claim {sizes}, although {proof} "
                                 f"(the proof may be incomplete, or a violation may need longer inputs)")
        if check.uncovered_pairs:
            check.message += (f"; on {check.uncovered_pairs} covered pairs the claimed privacy parameters "
                              f"cannot be evaluated")


    def _tight(self) -> bool:
        """Whether the worst covered pair's loss equals the claimed eps exactly (exact laws;
        screened by the float excess, so that exact comparisons run at most once)."""
        if not self.exact or self.worst is None or abs(self.check.excess) > TOLERANCE:
            return False
        stat, eps, _ = self.worst
        try:
            return stat.tight(eps)
        except reals.Undecided:
            return False


def _pair_text(pair: Optional[Tuple[Value, Value]]) -> str:
    if pair is None:
        return "no pair"
    return f"at {format_value(pair[0])} vs {format_value(pair[1])}"


# ======================================================================================
# the benchmark suite's audits
# ======================================================================================


@record
class AuditSpec:
    """One audit of a benchmark program: ``audit_program(path, entry, n, args)``."""

    entry: str
    n: int
    args: Tuple[str, ...]


#: Program path relative to ``benchmarks/programs`` -> the audits the suite runs on it. Only
#: programs whose private input is a bool / [k] list and whose output is finite are listed.
BENCH_AUDITS: Dict[str, Tuple[AuditSpec, ...]] = {
    "negative/beta_hellinger_small_prior.pinf": (
        AuditSpec("main", 5, ("a=0.05", "b=0.05", "eps=1.0 / rho")),),
    "negative/expmech_private_candidates.pinf": (
        AuditSpec("main", 3, ("a=1.0", "b=1.0", "eps=1.0")),),
    "paper/beta_output_hellinger.pinf": (
        AuditSpec("main", 5, ("a=1.0", "b=1.0", "eps=1.0")),),
    "paper/beta_output_sd.pinf": (
        AuditSpec("main", 4, ("a=1.0", "b=1.0", "eps=1.0")),),
    "paper/dirichlet_output_hellinger.pinf": (
        AuditSpec("main", 3, ("a1=1.0", "a2=1.0", "a3=1.0", "eps=1.0")),),
    "paper/beta_input_expmech.pinf": (
        AuditSpec("addNoise", 4, ("eps=1.0",)),
        AuditSpec("main", 4, ("a=1.0", "b=1.0", "eps=1.0"))),
    "course/group_privacy.pinf": (
        AuditSpec("rr", 4, ("eps=1.0",)),
        AuditSpec("group", 4, ("eps=1.0",))),
    "classic/private_majority.pinf": (
        AuditSpec("majority", 5, ("eps=1.0",)),),
    "classic/randomized_response.pinf": (
        AuditSpec("survey", 4, ("eps=1.0",)),),
    "classic/beta_output_l1.pinf": (
        AuditSpec("main", 5, ("a=1.0", "b=1.0", "eps=1.0")),),
    "mistakes/candidates_from_data.pinf": (
        AuditSpec("majority", 4, ("eps=1.0",)),),
    "mistakes/released_posterior.pinf": (
        AuditSpec("main", 3, ("a=1.0", "b=1.0", "eps=1.0")),),
}


def bench_audits(path: str) -> Tuple[AuditSpec, ...]:
    """The audits listed in ``BENCH_AUDITS`` for a program path (matched on its last two path
    components, e.g. ``paper/beta_output_hellinger.pinf``); empty when none applies."""
    parts = str(path).replace("\\", "/").split("/")
    return BENCH_AUDITS.get("/".join(parts[-2:]), ())


__all__ = [
    "audit", "ClaimVerdict", "AuditResult", "ClaimCheck", "WorstPair", "AuditSpec", "BENCH_AUDITS",
    "bench_audits", "bind_public_arguments", "output_law", "hockey_stick", "TOLERANCE", "MAX_INPUTS",
    "CONSISTENT", "SOUNDNESS_BUG", "VIOLATED", "HOLDS", "NOT_COMPARABLE", "NO_CLAIM",
    "EXACT", "ENCLOSED", "SCORES", "FLOAT", "Law", "AssertionEvaluator", "claim_scope", "run_name", "equality_refinement",
    "read_claim", "ClaimEvaluator",
]


#: the claim's comparison, shared with the audit of while-programs (``verifier.aprhl.audit``)
ClaimTracker, Fixed = _ClaimTracker, _Fixed
