"""The soundness oracle: a claim judged by the exact semantics on every pair of inputs it covers.

``privinfer audit`` enumerates private ``bool`` / ``[k]`` lists with the other arguments fixed.
A claim says more than that: every parameter has a relational refinement (``adj``,
``adjWithin``, ``dist``, ``=``, ``true``, one-sided ``b<1> = true``, ...), and the claim covers
every *pair* of argument tuples whose values satisfy them. So the oracle

1. gives every parameter a finite domain (``domain``): ``bool``; ``[k]``; ``nat`` / ``int`` /
   ``real`` / ``real+`` / ``[0,1]`` from small grids; lists of them up to a small length
   (``Limits``); tuples; and, for a parameter ``M[F, d] {x :: T | =}`` with a finite ``T``, a
   few distributions over ``T`` (point masses, uniform, skewed) — related when their exact
   ``F``-divergence is within the index, which is what such a parameter assumes;
2. enumerates the ordered pairs of argument tuples whose refinements hold, each refinement
   evaluated exactly on the two runs' values in the scope of the ``val``
   (``verifier.pairs.covered``, the enumeration ``privinfer audit`` uses too, with
   ``verifier.audit.AssertionEvaluator`` and ``claim_scope``): ``Oracle.pairs``;
3. computes both runs' outputs with the language's ``Evaluator`` under a step budget, and their
   output laws (``verifier.audit.output_law``: a release of ``lapMech`` / ``gaussMech`` as the
   exact law of the grid values the sampler releases, ``released.Noise``);
4. compares each pair with the claim (``Oracle.judge``): ``M[DP(eps)]`` by the largest log-ratio,
   ``M[DP(eps), delta]`` by the hockey-stick divergence at ``eps``, ``M[SD/HD/KL, delta]`` by total
   variation, ``1 - BC`` and KL (``divergence``), all directed from run 1 to run 2, with the
   index and delta evaluated on the pair; a pure result ``{r :: T | A}`` by evaluating ``A`` on
   the two outputs.

A pair whose divergence exceeds the claim by more than ``TOLERANCE`` (the lower end of the
enclosure, so rounding never makes a failure) is a **soundness** failure of a verified claim. A
run that stops with a run-time error (R001, R002, R006, R007, R008) or does not terminate within
the step budget (R010) on a covered input is a failure too (``runtime``, ``nontermination``),
and so is a Python exception escaping the evaluator (``crash``). Outputs the oracle cannot
compute exactly (continuous laws other than one noise component, R003; enumerations too large,
R009) leave the pair *unjudged*, and a claim none of whose pairs was judged is unjudged, with
the reason.
"""
from __future__ import annotations

import itertools
import math
from fractions import Fraction
from typing import Any, Dict, Iterator, List, Optional, Tuple

from obligations.records import record
from verifier.audit import AssertionEvaluator, claim_scope
from verifier.laws import TOLERANCE, Law, output_law
from verifier.errors import PrivInferError
from verifier.fuzz.divergence import AnyLaw, Enclosure, Noise, divergence
from verifier.language import ast
from verifier.language.typecheck import ordinal
from verifier.pairs import Shape, covered, read_claim, run_name
from verifier.semantics import monad, reals
from verifier.semantics.distributions import make_finite
from verifier.semantics.evaluator import Evaluator
from verifier.semantics.values import UNIT, ConsList, SymbolicEscape, Value, format_value, values_equal

#: Failure kinds of a judged run (besides ``soundness``).
RUNTIME, NONTERMINATION, CRASH, SOUNDNESS = "runtime", "nontermination", "crash", "soundness"
#: Error codes that are a verified program's fault; R003 / R009 (and R011, an exact real
#: comparison the evaluator cannot decide) are limits of the evaluation, not findings.
RUNTIME_CODES = ("R001", "R002", "R006", "R007", "R008")


@record
class Limits:
    """The sizes of the finite domains and the evaluation budget."""

    bool_list_length: int = 3
    fin_list_length: int = 2
    real_list_length: int = 2
    max_inputs: int = 400          # argument tuples per claim
    max_pairs: int = 20_000        # covered pairs judged per claim
    step_budget: int = 5_000       # evaluation steps per run
    confirm_steps: int = 200_000   # the budget that confirms a run does not terminate


#: Grids of the numeric types (exact rationals).
GRIDS: Dict[str, Tuple[Value, ...]] = {
    "nat": (0, 1, 2),
    "int": (-1, 0, 1, 2),
    "real": (Fraction(-1), Fraction(0), Fraction(1, 2), Fraction(1)),
    "real+": (Fraction(1, 2), Fraction(1), Fraction(2)),
    "real+inf": (Fraction(1, 2), Fraction(1), Fraction(2)),
    "[0,1]": (Fraction(0), Fraction(1, 2), Fraction(1)),
}


def domain(t: ast.SimpleType, limits: Limits = Limits()) -> Optional[List[Value]]:
    """The finite domain the oracle gives a parameter of simple type ``t`` (``None``: not
    enumerable — functions and symbolic distributions)."""
    if isinstance(t, ast.TBase):
        if t.name == "bool":
            return [False, True]
        if t.name == "unit":
            return [UNIT]
        return list(GRIDS[t.name])
    if isinstance(t, ast.TFin):
        return list(range(t.k))
    if isinstance(t, ast.TSimplex):
        uniform = tuple(Fraction(1, t.k) for _ in range(t.k))
        skewed = (Fraction(1, 2),) + tuple(Fraction(1, 2 * (t.k - 1)) for _ in range(t.k - 1))
        return [uniform, skewed]
    if isinstance(t, ast.TList):
        elems = domain(t.elem, limits)
        if elems is None:
            return None
        length = {ast.TBase("bool"): limits.bool_list_length}.get(t.elem, limits.fin_list_length
                                                                   if isinstance(t.elem, ast.TFin)
                                                                   else limits.real_list_length)
        return [ConsList.from_sequence(list(items)) for m in range(length + 1)
                for items in itertools.product(elems, repeat=m)]
    if isinstance(t, ast.TTuple):
        parts = [domain(i, limits) for i in t.items]
        if any(p is None for p in parts):
            return None
        return [tuple(c) for c in itertools.product(*parts)]
    if isinstance(t, ast.TMonad):
        return monad_domain(t.elem, limits)
    return None


def monad_domain(t: ast.SimpleType, limits: Limits = Limits()) -> Optional[List[Value]]:
    """Distributions over a small finite type: every point mass, the uniform law and one
    skewed law (as M-values)."""
    values = domain(t, limits)
    if values is None or not 1 <= len(values) <= 4 or not all(_hashable(v) for v in values):
        return None
    laws: List[Value] = [monad.Return(v) for v in values]
    if len(values) > 1:
        n = len(values)
        laws.append(monad.Ran(make_finite({v: Fraction(1, n) for v in values})))
        skew = {v: Fraction(1, 2 * (n - 1)) for v in values[1:]}
        skew[values[0]] = Fraction(1, 2)
        laws.append(monad.Ran(make_finite(skew)))
    return laws


# ======================================================================================
# runs and their outcomes
# ======================================================================================


@record
class Outcome:
    """One run: its output (a law for a monadic claim, else the value), an error, or the
    reason the oracle cannot compute it."""

    status: str                       # "ok" | "error" | "unjudged"
    law: Optional[AnyLaw] = None
    value: Optional[Value] = None
    failure: str = ""                 # RUNTIME | NONTERMINATION | CRASH, for errors
    message: str = ""


@record
class PairRun:
    """A covered ordered pair of argument tuples with both runs' outcomes."""

    args1: Tuple[Value, ...]
    args2: Tuple[Value, ...]
    env: Dict[str, Value]
    out1: Outcome
    out2: Outcome
    key1: Tuple[int, ...] = ()
    key2: Tuple[int, ...] = ()


@record(frozen=False)
class Witness:
    """Where a claim fails: the two runs' arguments, the output, the measured and the claimed
    values (or the error)."""

    kind: str
    args1: Dict[str, str]
    args2: Dict[str, str]
    measured: str = ""
    claimed: str = ""
    excess: float = 0.0
    output: str = ""
    p1: Optional[float] = None
    p2: Optional[float] = None
    message: str = ""
    values: Tuple[Tuple[Value, ...], ...] = ()    # the argument tuples themselves

    def to_json(self) -> Dict[str, Any]:
        return {"kind": self.kind, "run1": self.args1, "run2": self.args2, "measured": self.measured,
                "claimed": self.claimed, "excess": _json_float(self.excess), "output": self.output,
                "p1": self.p1, "p2": self.p2, "message": self.message}

    def render(self) -> str:
        args = lambda a: ", ".join(f"{k} = {v}" for k, v in a.items()) or "()"  # noqa: E731
        if self.kind != SOUNDNESS:
            return f"input: {args(self.args1)}\n{self.kind}: {self.message}"
        lines = [f"run 1: {args(self.args1)}", f"run 2: {args(self.args2)}"]
        if self.kind == SOUNDNESS:
            lines.append(f"measured {self.measured} > claimed {self.claimed}")
            if self.output:
                lines.append(f"at output {self.output}: P1 = {self.p1:.10g}, P2 = {self.p2:.10g}")
        else:
            lines.append(f"{self.kind}: {self.message}")
        return "\n".join(lines)


@record(frozen=False)
class Judgement:
    """The oracle's verdict on one claim: ``holds``, ``fails`` (with a ``witness``) or
    ``unjudged`` (with the ``reason``); ``pairs`` judged and ``unjudged_pairs``."""

    name: str
    status: str
    reason: str = ""
    witness: Optional[Witness] = None
    pairs: int = 0
    unjudged_pairs: int = 0

    @property
    def failed(self) -> bool:
        return self.status == "fails"


def _json_float(x: Optional[float]) -> Any:
    if x is None:
        return None
    return "infinity" if x == math.inf else float(x)


def _hashable(v: Value) -> bool:
    try:
        hash(v)
        return True
    except TypeError:
        return False


class Oracle:
    """Judges the claims of one type-checked program (see the module docstring)."""

    def __init__(self, program: ast.Program, typed: Any, limits: Limits = Limits()):
        self.program, self.typed, self.limits = program, typed, limits
        self.definition_error: Optional[Outcome] = None
        self.evaluator: Optional[Evaluator] = None
        try:
            self.evaluator = Evaluator(program, typed, step_budget=limits.step_budget)
        except PrivInferError as exc:
            self.definition_error = _error_outcome(exc)
        except Exception as exc:  # noqa: BLE001 — a bug of the evaluator is a finding
            self.definition_error = Outcome("error", failure=CRASH, message=f"{type(exc).__name__}: {exc}")
        self._outcomes: Dict[Tuple[str, bool, Tuple[int, ...]], Outcome] = {}
        self._scopes: Dict[int, AssertionEvaluator] = {}
        self._related: Dict[Tuple[int, int], List[Tuple[int, int]]] = {}
        self._patient: Optional[Evaluator] = None

    def for_program(self, program: ast.Program, typed: Any) -> "Oracle":
        """The oracle of ``program``, which has this program's definitions and other claims
        (a calibrated draft): the runs and their cache are shared, the claims are ``program``'s."""
        other = Oracle.__new__(Oracle)
        other.program, other.typed, other.limits = program, typed, self.limits
        other.definition_error, other.evaluator = self.definition_error, self.evaluator
        other._outcomes, other._scopes, other._related = self._outcomes, {}, {}
        other._patient = self._patient
        return other

    # ---- pairs -------------------------------------------------------------------------

    def domains(self, shape: Shape) -> Tuple[Optional[List[List[Value]]], str]:
        """Each parameter's domain, or ``None`` with the reason the claim is not enumerable."""
        out = []
        for i, p in enumerate(shape.params):
            values = domain(p.type, self.limits) if p.type is not None else None
            if values is None:
                what = "a function or a symbolic distribution" if p.monad is None else "a computation over a large type"
                return None, f"its {ordinal(i + 1)} parameter is {what}, which the oracle cannot enumerate"
            out.append(values)
        size = math.prod(len(v) for v in out)
        if size > self.limits.max_inputs:
            return None, f"{size} argument tuples, more than the limit {self.limits.max_inputs}"
        return out, ""

    def scope(self, val: ast.ValDecl) -> AssertionEvaluator:
        """The claim's assertions, evaluated in the scope of ``val``."""
        key = id(val)
        if key not in self._scopes:
            self._scopes[key] = AssertionEvaluator(claim_scope(self.program, self.typed, val))
        return self._scopes[key]

    def pairs(self, shape: Shape) -> Iterator[PairRun]:
        """Every covered ordered pair with both runs' outcomes (the runs are cached)."""
        domains, _ = self.domains(shape)
        if domains is None:
            return
        scope = self.scope(shape.val)
        produced = 0
        for i1, i2, env in covered(shape, domains, scope, self._related, self._monad_related):
            produced += 1
            if produced > self.limits.max_pairs:
                return
            args1 = tuple(d[i] for d, i in zip(domains, i1))
            args2 = tuple(d[i] for d, i in zip(domains, i2))
            yield PairRun(args1, args2, env, self.outcome(shape, i1, args1), self.outcome(shape, i2, args2),
                          i1, i2)

    def _monad_related(self, rt: ast.RMonad, m1: Value, m2: Value, scope: AssertionEvaluator,
                       env: Dict[str, Value]) -> bool:
        """Two computations given for a parameter ``M[F, d] {x :: T | =}``: within the index."""
        try:
            law1, law2 = law_of(m1), law_of(m2)
            bound = _number(scope.value(rt.delta, env)) if rt.delta is not None else 0
            if rt.div.kind == "DP":
                eps = _number(scope.value(rt.div.eps, env))
                d = divergence("DP", law1, law2) if bound == 0 else divergence("hockey", law1, law2, eps)
                limit = eps if bound == 0 else bound
            else:
                d, limit = divergence(rt.div.kind, law1, law2), bound
        except (PrivInferError, TypeError, ValueError):
            return False
        return d is not None and d.upper <= float(limit)

    # ---- runs --------------------------------------------------------------------------

    def outcome(self, shape: Shape, key: Tuple[int, ...], args: Tuple[Value, ...]) -> Outcome:
        """The run of the claim's function on ``args`` (cached by argument indices)."""
        monadic = shape.kind in ("DP", "SD", "HD", "KL")
        cache_key = (shape.val.name, monadic, key)
        if cache_key not in self._outcomes:
            self._outcomes[cache_key] = self._run(shape.val.name, args, monadic)
        return self._outcomes[cache_key]

    def _run(self, name: str, args: Tuple[Value, ...], monadic: bool) -> Outcome:
        return self._run_with(self.evaluator, name, args, monadic)

    def confirm(self, shape: Shape, key: Tuple[int, ...], args: Tuple[Value, ...]) -> Outcome:
        """A run that did not terminate within the step budget, again with
        ``Limits.confirm_steps`` (the cached outcome is replaced): only a run that exhausts
        that budget too is reported as not terminating."""
        if self._patient is None:
            self._patient = Evaluator(self.program, self.typed, step_budget=self.limits.confirm_steps)
        monadic = shape.kind in ("DP", "SD", "HD", "KL")
        outcome = self._run_with(self._patient, shape.val.name, args, monadic)
        self._outcomes[(shape.val.name, monadic, key)] = outcome
        return outcome

    def _run_with(self, ev: Evaluator, name: str, args: Tuple[Value, ...], monadic: bool) -> Outcome:
        if self.definition_error is not None:
            return self.definition_error
        if self.program.find_let(name) is None:
            return Outcome("unjudged", message=f"{name} has no definition")
        try:
            value = ev.call(name, list(args))
            if not monadic:
                if isinstance(value, monad.MValue):
                    with ev.terminating():
                        law_of(value)  # run it: an error inside is an error of the run
                return Outcome("ok", value=value)
            if not isinstance(value, monad.MValue):
                return Outcome("unjudged", message="the result is not a computation")
            with ev.terminating():
                return Outcome("ok", law=law_of(value))
        except PrivInferError as exc:
            return _error_outcome(exc)
        except SymbolicEscape as exc:
            return Outcome("unjudged", message=f"cannot compute the output law: {exc.reason}")
        except Exception as exc:  # noqa: BLE001 — an internal error of the evaluator is a finding
            if _raised_by_the_fuzzer(exc):
                raise
            return Outcome("error", failure=CRASH, message=f"{type(exc).__name__}: {exc}")

    # ---- judging -----------------------------------------------------------------------

    def judge(self, val: ast.ValDecl) -> Judgement:
        """Judge ``val``'s claim on every covered pair (see the module docstring)."""
        shape = read_claim(val)
        judgement = Judgement(val.name, "unjudged")
        _, why = self.domains(shape)
        if why:
            judgement.reason = why
            return judgement
        worst: Optional[Tuple[float, Witness]] = None
        reasons = set()
        for run in self.pairs(shape):
            if NONTERMINATION in (run.out1.failure, run.out2.failure):
                run = self._confirmed(shape, run)
            for out, args in ((run.out1, run.args1), (run.out2, run.args2)):
                if out.status == "error":   # one covered input is enough
                    judgement.status = "fails"
                    judgement.witness = Witness(out.failure, self._named(shape, args), {}, message=out.message,
                                                values=(args,))
                    return judgement
                outside = _outside_type(shape.result, out)
                if outside is not None:     # callers of the val take its result type for granted
                    judgement.status = "fails"
                    judgement.witness = Witness(
                        SOUNDNESS, self._named(shape, args), {}, measured=f"output {outside}",
                        claimed=f"a value of {_type_text(shape.result)}", values=(args,),
                        message=f"the output {outside} is not a value of the claim's type "
                                f"{_type_text(shape.result)}")
                    return judgement
            if "unjudged" in (run.out1.status, run.out2.status):
                judgement.unjudged_pairs += 1
                reasons.add(run.out1.message if run.out1.status == "unjudged" else run.out2.message)
                continue
            try:
                verdict = self._compare(shape, run)
            except (PrivInferError, TypeError, ValueError, ZeroDivisionError) as exc:
                judgement.unjudged_pairs += 1
                reasons.add(f"the claim cannot be evaluated on this pair ({exc})")
                continue
            if verdict is None:
                judgement.unjudged_pairs += 1
                reasons.add("no closed form for this pair of continuous laws")
                continue
            judgement.pairs += 1
            if worst is None or verdict[0] > worst[0]:
                worst = verdict
                if worst[0] == math.inf:
                    break
        if judgement.pairs == 0:
            judgement.reason = "; ".join(sorted(reasons)) or "no pair of inputs satisfies the claim's assumptions"
            return judgement
        if worst is not None and worst[0] > TOLERANCE:
            judgement.status, judgement.witness = "fails", worst[1]
        else:
            judgement.status = "holds"
        return judgement

    def _confirmed(self, shape: Shape, run: PairRun) -> PairRun:
        """``run`` with its runs that did not terminate within the step budget run again with
        the larger one (``confirm``)."""
        out1, out2 = run.out1, run.out2
        if out1.failure == NONTERMINATION:
            out1 = self.confirm(shape, run.key1, run.args1)
        if out2.failure == NONTERMINATION:
            out2 = out1 if run.key2 == run.key1 else self.confirm(shape, run.key2, run.args2)
        return PairRun(run.args1, run.args2, run.env, out1, out2, run.key1, run.key2)

    def _compare(self, shape: Shape, run: PairRun) -> Optional[Tuple[float, Witness]]:
        """``(excess, witness)``: how far the pair exceeds the claim (negative: within it)."""
        scope = self.scope(shape.val)
        if shape.kind == "none":
            return (-math.inf, self._witness(shape, run, SOUNDNESS))
        if shape.kind == "pure":
            env = dict(run.env)
            env[run_name(shape.var, 1)], env[run_name(shape.var, 2)] = run.out1.value, run.out2.value
            if _safe_equal(run.out1.value, run.out2.value):
                env[shape.var] = run.out1.value
            holds = self._holds(scope, shape.assertion, shape.var, env)
            if holds is None:
                return None
            w = self._witness(shape, run, SOUNDNESS)
            w.measured = f"{format_value(run.out1.value)} vs {format_value(run.out2.value)}"
            w.claimed = _show(shape.assertion)
            return (-math.inf if holds else math.inf), w
        delta = _number(scope.value(shape.delta, run.env)) if shape.delta is not None else 0
        if shape.kind == "DP":
            eps = _number(scope.value(shape.eps, run.env))
            if delta == 0:
                d, bound, what = divergence("DP", run.out1.law, run.out2.law), eps, "privacy loss"
            else:
                d, bound, what = divergence("hockey", run.out1.law, run.out2.law, eps), delta, f"delta at eps = {_short(eps)}"
        else:
            d, bound, what = divergence(shape.kind, run.out1.law, run.out2.law), delta, _NAMES[shape.kind]
        if d is None:
            return None
        w = self._witness(shape, run, SOUNDNESS)
        w.measured = f"{what} {_interval(d)}"
        w.claimed = _short(bound)
        w.excess = d.lower - float(bound) if math.isfinite(d.lower) else math.inf
        worst = _worst_output(run.out1.law, run.out2.law)
        if worst is not None:
            w.output, w.p1, w.p2 = worst
        return w.excess, w

    def _holds(self, scope: AssertionEvaluator, a: ast.Expr, var: str, env: Dict[str, Value]) -> Optional[bool]:
        """The truth of a pure claim's assertion on a pair: ``scope.holds``, and ``Delta[F] (e1,
        e2) <= e`` between two finite distributions with exact probabilities (``delta_bound``),
        alone or in a conjunction."""
        if isinstance(a, ast.DivBound):
            return delta_bound(scope, a, env)
        if isinstance(a, ast.Conj):
            left, right = self._holds(scope, a.left, var, env), self._holds(scope, a.right, var, env)
            return False if False in (left, right) else (None if None in (left, right) else True)
        return scope.holds(a, var, env)

    def needed(self, val: ast.ValDecl) -> Optional[float]:
        """The smallest constant that makes the claim hold on the judged pairs, for
        calibrating a claim's last literal: for ``M[DP(c * e)]`` the largest loss / ``e``
        (the index evaluated on the pair with the literal 1); for ``M[DP(e), c]`` and
        ``M[SD/HD/KL, c]`` the largest divergence; for a pure ``abs (r<1> - r<2>) <= c`` the
        largest ``|r1 - r2|``. ``None`` when no pair is judged."""
        shape = read_claim(val)
        best: Optional[float] = None
        scope = self.scope(val)
        for run in self.pairs(shape):
            if run.out1.status != "ok" or run.out2.status != "ok":
                continue
            try:
                if shape.kind == "pure":
                    a, b = run.out1.value, run.out2.value
                    value = float(abs(a - b)) if _numeric(a) and _numeric(b) else None
                elif shape.kind == "DP" and shape.delta is None:
                    d = divergence("DP", run.out1.law, run.out2.law)
                    base = float(_number(scope.value(shape.eps, run.env)))
                    top = None if d is None else _estimate(d)
                    value = None if top is None else (top / base if base > 0 else
                                                      (0.0 if top <= TOLERANCE else math.inf))
                elif shape.kind == "DP":
                    eps = _number(scope.value(shape.eps, run.env))
                    d = divergence("hockey", run.out1.law, run.out2.law, eps)
                    value = None if d is None else d.upper
                elif shape.kind in ("SD", "HD", "KL"):
                    d = divergence(shape.kind, run.out1.law, run.out2.law)
                    value = None if d is None else d.upper
                else:
                    value = None
            except (PrivInferError, TypeError, ValueError, ZeroDivisionError):
                value = None
            if value is not None and (best is None or value > best):
                best = value
                if best == math.inf:
                    break
        return best

    # ---- witnesses ---------------------------------------------------------------------

    def _named(self, shape: Shape, args: Tuple[Value, ...]) -> Dict[str, str]:
        names = [p.vars[-1] if p.vars else f"#{i + 1}" for i, p in enumerate(shape.params)]
        return {n: _format(v) for n, v in zip(names, args)}

    def _witness(self, shape: Shape, run: PairRun, kind: str) -> Witness:
        return Witness(kind, self._named(shape, run.args1), self._named(shape, run.args2),
                       values=(run.args1, run.args2))


_NAMES = {"SD": "total variation", "HD": "1 - BC", "KL": "KL divergence"}


def law_of(value: Value, span: Optional[ast.Span] = None) -> AnyLaw:
    """The output law of an M-value (``verifier.audit.output_law``): the exact law of a release
    of ``lapMech`` / ``gaussMech`` (``Noise``) or a finite law. Raises ``PrivInferError`` (R003
    for other continuous laws, R011 for a comparison of exact reals it cannot decide, e.g.
    whether the probabilities of a Hellinger mechanism's candidates sum to less than 1)."""
    from verifier.semantics.evaluator import decided
    with decided(span):  # a probability compared exactly and undecided: R011, not a crash
        _, build = output_law(value, span)
        return build()


def delta_bound(scope: AssertionEvaluator, a: ast.DivBound, env: Dict[str, Value]) -> Optional[bool]:
    """``Delta[F] (e1, e2) <= e`` on a pair: ``F``'s divergence of the two distributions (``DP(eps)``
    the hockey-stick divergence at ``eps``, the paper's eps-distance; ``SD`` total variation;
    ``HD`` ``1 - BC``; ``KL``), directed from ``e1`` to ``e2``, enclosed in Arb from exact
    probabilities. False only when the lower end exceeds ``e`` by more than ``TOLERANCE``; None
    (unjudged) for a distribution that is not finite with exact probabilities (a posterior
    without a closed form, a float law, a continuous family) or an enclosure that does not
    decide."""
    from verifier.laws import _distribution_law
    from verifier.semantics.distributions import Distribution
    from verifier.semantics.posterior import holds_posterior
    try:
        d1, d2 = scope.value(a.left, env), scope.value(a.right, env)
        bound = float(_number(scope.value(a.bound, env)))
        laws = []
        for d in (d1, d2):
            if not isinstance(d, Distribution) or not d.is_finite() or holds_posterior(d):
                return None
            law = _distribution_law(d.pmf())
            if law.exact is None:      # float probabilities: never judged
                return None
            laws.append(law)
        if a.div.kind == "DP":
            eps = _number(scope.value(a.div.eps, env))
            found = divergence("hockey", laws[0], laws[1], eps)
        else:
            found = divergence(a.div.kind, laws[0], laws[1])
    except (PrivInferError, TypeError, ValueError, ZeroDivisionError, SymbolicEscape):
        return None
    if found is None:
        return None
    if found.lower > bound + TOLERANCE:
        return False
    return True if found.upper <= bound + TOLERANCE else None


def _raised_by_the_fuzzer(exc: BaseException) -> bool:
    """Whether the innermost frame of ``exc`` is the fuzzer's own code (a bug of the oracle is
    not a finding about the evaluator: it propagates)."""
    tb = exc.__traceback__
    while tb is not None and tb.tb_next is not None:
        tb = tb.tb_next
    return tb is not None and "/verifier/fuzz/" in tb.tb_frame.f_code.co_filename.replace("\\", "/")


def _error_outcome(exc: PrivInferError) -> Outcome:
    code = exc.first.code
    message = f"error[{code}]: {exc.first.message}"
    if exc.first.span is not None:
        message = f"{exc.first.span}: {message}"
    if code == "R010":
        return Outcome("error", failure=NONTERMINATION, message=message)
    if code in RUNTIME_CODES:
        return Outcome("error", failure=RUNTIME, message=message)
    return Outcome("unjudged", message=message)


def _outside_type(t: Optional[ast.SimpleType], out: Outcome) -> Optional[str]:
    """An output of ``out`` (its value, or a value its finite law gives a positive
    probability) that is certainly not a value of the written type ``t`` (a scalar out of its
    range, a list with an element out of range: ``evaluator.check_value``), printed; None when
    every output is one, or it cannot be decided (a continuous law, an undecided comparison)."""
    if t is None or out.status != "ok":
        return None
    from verifier.semantics.evaluator import check_value
    if out.law is None:
        values = [out.value]
    elif isinstance(out.law, Noise):
        return None
    else:
        values = [v for v, p in out.law.probs.items() if p > 0]
    for v in values:
        if isinstance(v, monad.MValue):
            continue
        try:
            check_value(v, t, "the output")
        except PrivInferError as exc:
            if exc.first.code == "R001":
                return format_value(v)
    return None


def _type_text(t: ast.SimpleType) -> str:
    from verifier.language.pretty import pretty_type
    return pretty_type(t)


def _estimate(d: Enclosure) -> float:
    """The upper end of ``d``, or its lower end when only that is known (a loss measured on
    binned releases: ``divergence._compared_divergence``) — for calibrating claims only."""
    return d.lower if math.isinf(d.upper) and math.isfinite(d.lower) else d.upper


def _worst_output(law1: AnyLaw, law2: AnyLaw) -> Optional[Tuple[str, float, float]]:
    """The output with the largest ratio P1 / P2 (finite laws only)."""
    if not isinstance(law1, Law) or not isinstance(law2, Law):
        return None
    best = None
    for v, p in law1.probs.items():
        q = law2.probs.get(v, 0.0)
        ratio = math.inf if q == 0 else p / q
        if best is None or ratio > best[0]:
            best = (ratio, v, p, q)
    return None if best is None else (format_value(best[1]), best[2], best[3])


def _number(v: Value) -> Any:
    if not _numeric(v):
        raise TypeError(f"not a number: {format_value(v)}")
    return v


def _numeric(v: Value) -> bool:
    return reals.is_exact_number(v) or (isinstance(v, float) and not isinstance(v, bool))


def _safe_equal(a: Value, b: Value) -> bool:
    try:
        return values_equal(a, b)
    except TypeError:
        return False


def _format(v: Value) -> str:
    if isinstance(v, monad.Return):
        return f"return {format_value(v.value)}"
    if isinstance(v, monad.Ran):
        return f"ran ({v.dist.format()})"
    return format_value(v)


def _short(x: Any) -> str:
    x = float(x)
    return "inf" if math.isinf(x) else f"{x:.6g}"


def _interval(d: Enclosure) -> str:
    if d.lower == d.upper or math.isinf(d.lower):
        return _short(d.lower)
    return f"{_short(d.mid)} (in [{d.lower!r}, {d.upper!r}])"


def _show(e: ast.Expr) -> str:
    from verifier.language.pretty import pretty_assertion
    return pretty_assertion(e)


__all__ = ["Oracle", "Limits", "Judgement", "Witness", "Shape", "read_claim", "domain", "law_of",
           "SOUNDNESS", "RUNTIME", "NONTERMINATION", "CRASH"]
