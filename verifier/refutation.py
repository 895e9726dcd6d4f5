"""Refutations confirmed in the program's semantics.

A failed obligation does not make a claim false. The rules prove *sufficient* conditions: a
cost bound by composition, a side condition of a mechanism, the refinement of an argument
passed to a function with a val. Such an obligation can be false at concrete inputs while the
program is private (the sparse vector technique spends less than composition charges; the
average of two noisy counts is as private as one). So a claim is **refuted** only when a
*witness* shows, with the language's evaluator (``verifier.semantics``), that the claim itself
is false: concrete inputs for both runs that satisfy the claim's assumptions (each parameter's
refinement evaluated on them), on which

* **evaluation**: a pure definition returns values that violate its result refinement;
* **exact loss**: the two output distributions are further apart than the claim allows —
  point masses at different values, two Laplace or two Gaussian releases (closed forms of
  their privacy loss and privacy profile), or two finite laws with exact probabilities
  (``verifier.audit``'s laws of the pair, in ball arithmetic);
* **run**: the program stops with a run-time error (a range condition, a division by zero,
  an observation of probability zero, a failed match): a verified program never does (for a
  monadic program, in one of ``SAMPLES`` seeded draws);
* **exact calculation**: the claim was decided by ``ExactFinite``, whose refuted obligation
  *is* the claim's definition at two valuations, computed exactly by the evaluator.

The inputs tried are those of the failing obligations' counterexamples, or of the candidates
z3 proposed that evaluation could not confirm (read back from their printed values, which are
program syntax), with the parameters they do not mention given a few small values of their
type; each comparison is rigorous (exact rationals, arb balls; a
float from the evaluator is widened by ``FLOAT_SLACK`` before it may decide). When no witness
is found the claim is **unknown**, and the failure names the obligation, its span and what the
verifier lacked. ``confirm`` never raises: a witness that cannot be evaluated is no witness.
"""
from __future__ import annotations

import itertools
import math
import os
from fractions import Fraction
from typing import Any, Dict, Iterable, List, Optional, Sequence, Tuple

from obligations.model import Obligation, ObligationKind, Result
from obligations.records import record, replace
from verifier.errors import PrivInferError
from verifier.language import ast as A
from verifier.language.pretty import pretty_expr
from verifier.semantics.meter import Meter, OutOfWork, metered

#: How the claim was shown false (``Confirmation.method``).
EXACT_CALCULATION, EVALUATION, EXACT_LOSS, EXACT_AUDIT, RUN = (
    "exact calculation", "evaluation", "exact loss", "exact audit", "run")
METHODS = (EXACT_CALCULATION, EVALUATION, EXACT_LOSS, EXACT_AUDIT, RUN)
#: The exact audit: the most inputs it evaluates (all lists up to the longest length that
#: keeps within), the settings of the public arguments it tries, the work budget of its
#: exactness probe (meter.py), and the evaluator steps one audit may take per input and over all its inputs.
AUDIT_INPUTS, AUDIT_TRIES, AUDIT_BUDGET = 120, 3, 1_100_000
#: ... and the settings of the public arguments it chooses those it tries from
AUDIT_SETTINGS = 24
AUDIT_STEPS, AUDIT_STEPS_TOTAL = 50_000, 500_000
#: Seeded draws of a monadic program searched for a run-time error.
SAMPLES = 32
#: Relative widening of a float the evaluator computed (e.g. a claim's ``rho``).
FLOAT_SLACK = 1e-9
#: Input pairs tried at most (from counterexamples; from small values), and the lengths of
#: the small lists.
MAX_PAIRS, MAX_SMALL_PAIRS, DEFAULT_LENGTHS = 64, 96, (0, 1, 2)
#: the small pairs: a step of a public parameter weighs as much as this many steps of a
#: private one (``_small_pairs``); combinations of options ordered at most (``_index_combinations``)
PUBLIC_STEP, COMBINATIONS = 8, 4096
#: The work one witness may take (expressions evaluated and exact inference's steps, meter.py)
#: before the search gives up: a program that does not terminate on the inputs is no witness,
#: and no reason to wait (counted, not timed, so that verdicts do not depend on the machine).
WORK_BUDGET = 50_000
#: pairs that may run out of work before one phase of the search gives up (``_phase``)
DIVERGING_PAIRS = 8
#: Run-time errors that are the program's fault: a range condition, a division by zero, an
#: observation of probability zero, a failed match. Not R003/R009 (what exact inference or
#: enumeration cannot do) nor R006, which also reports what the evaluator does not support.
PROGRAM_ERRORS = ("R001", "R002", "R007", "R008")
#: The search among pairs related as the claim states (``_RelatedSearch``): the settings of
#: the other parameters probed, how many of them are searched further, the list lengths of the
#: probe and of the deeper search, the paths it may explore and integrate in all (counted, not
#: timed; an integration per path and bin of its released values), and the exact
#: confirmations it may attempt.
RELATED_SETTINGS, RELATED_DEEPEN = 24, 3
RELATED_PROBE, RELATED_DEEP = (1, 2), (3, 4)
#: ... and the lengths of the longest lists, moved in the telling patterns only
#: (``telling_patterns``) at the settings searched deeper
RELATED_LONG = (5, 6)
RELATED_PATHS, RELATED_CONFIRMS = 6000, 4
#: ... the evaluator steps one exploration (a run and its re-runs) and all of them may take,
#: and how many pairs in a row may fail to be estimated before the search stops (a program
#: outside the estimates)
RELATED_STEPS, RELATED_STEPS_TOTAL, RELATED_UNESTIMATED = 100_000, 1_000_000, 8
#: pairs of a pure claim evaluated by the related search at most
RELATED_PURE_TRIES = 120


def telling_patterns(n: int) -> List[Tuple[int, ...]]:
    """Sign patterns of length ``n`` where losses that add up over a list's positions are
    largest (the other direction of each is the pair's other order): every position moved one
    way, alternately, the first half one way and the rest the other, only the first, only the
    last (0: not moved). Shared with the while-language's search (``verifier.aprhl.refute``)."""
    half = (n + 1) // 2
    out: List[Tuple[int, ...]] = []
    for p in ((1,) * n, tuple((-1) ** i for i in range(n)), (1,) * half + (-1,) * (n - half),
              (1,) + (0,) * (n - 1), (0,) * (n - 1) + (1,)):
        if p not in out:
            out.append(p)
    return out


@record
class Confirmation:
    """Why a claim is refuted: the method, the inputs of both runs (parameter, run 1, run 2,
    printed in the program's syntax) and what was observed."""

    method: str
    inputs: Tuple[Tuple[str, str, str], ...]
    detail: str

    def to_json(self) -> Dict[str, Any]:
        return {"method": self.method, "detail": self.detail,
                "inputs": [{"parameter": p, "run1": a, "run2": b} for p, a, b in self.inputs]}

    def text(self) -> str:
        parts = [f"{p} = {a}" if a == b else f"{p}<1> = {a}, {p}<2> = {b}"
                 for p, a, b in self.inputs]
        inputs = f" (inputs: {', '.join(parts)})" if parts else ""
        return f"confirmed by {self.method}: {self.detail}{inputs}"


def confirm(program: A.Program, typed: Any, val: A.ValDecl,
            failing: Sequence[Tuple[Obligation, Result]],
            parameters: Sequence[Dict[str, Any]]) -> Optional[Confirmation]:
    """A witness that ``val`` is false (see the module docstring), or ``None``.

    ``failing`` are the refuted and unknown obligations of the claim with their results;
    ``parameters`` the root judgement's parameters (each with the terms ``left``/``right``
    naming it in run 1 and run 2), which say how the counterexamples name the inputs."""
    try:
        return _Witnesses(program, typed, val, parameters).search(failing)
    except (PrivInferError, RecursionError, ArithmeticError, ValueError, TypeError,
            AttributeError, KeyError, IndexError, OutOfWork):
        return None
    except Exception:  # noqa: BLE001  (no verdict path ends in an internal error)
        if os.environ.get("PRIVINFER_DEBUG"):
            raise
        return None


def _run_key(args: Sequence[Any]) -> str:
    """A key of a run's arguments (printed: values need not be hashable)."""
    from verifier.semantics.values import format_value
    return " ".join(format_value(a) for a in args)


def _extremes_first(settings: List[Any], claimed_eps) -> List[Any]:
    """``settings`` in the order the audit tries them: the first (the first counterexample's),
    then, one per distinct ``claimed_eps``, the smallest and the largest alternately. The claim
    allows least where its eps is smallest, but a mechanism whose noise shrinks as a parameter
    grows loses most where that parameter is largest: both ends before the middle."""
    if not settings:
        return []
    by_eps: Dict[float, Any] = {}
    for runs in sorted(settings[1:], key=claimed_eps):
        by_eps.setdefault(claimed_eps(runs), runs)
    rest = list(by_eps.values())
    ends = [rest[i // 2] if i % 2 == 0 else rest[-1 - i // 2] for i in range(len(rest))]
    return settings[:1] + ends


def _watched(units: int = WORK_BUDGET):
    """Run the body under a meter of ``units`` (``verifier/semantics/meter.py``):
    ``OutOfWork`` once the evaluator and exact inference have done that much work, and
    ``inexact`` set when a float value of the semantics is computed. The evaluator computes with
    exact reals (docs/reals.md): its only float values are the Hellinger mechanisms' smooth
    sensitivity; a witness that went through one is not a fact about the program's real-number
    semantics, so it is not accepted."""
    return metered(units)


class _Witnesses:
    """The search for a witness of one claim."""

    def __init__(self, program: A.Program, typed: Any, val: A.ValDecl,
                 parameters: Sequence[Dict[str, Any]]):
        from verifier.semantics.evaluator import Evaluator
        self.program, self.typed, self.val = program, typed, val
        self.decl = program.find_let(val.name)
        self.parameters = list(parameters)
        self.sample = False
        self.diverging = 0
        #: the arguments (``_run_key``) of runs that ran out of work on their own (``_witness``)
        self.diverging_runs: set = set()
        self.pool: List[Any] = []
        self.evaluator = Evaluator(program, typed)
        self.domains: List[Tuple[str, List[Tuple[str, A.Expr]], A.RType]] = []
        rt = val.rtype
        while isinstance(rt, A.RArrow):
            dom, binders = rt.dom, []
            while isinstance(dom, A.RRefine):
                binders.append((dom.var, dom.assertion))
                dom = dom.base
            name = binders[0][0] if binders else f"arg{len(self.domains) + 1}"
            self.domains.append((name, binders, dom))
            rt = rt.cod
        self.result = rt

    # ---- the inputs to try -------------------------------------------------------------------

    def search(self, failing: Sequence[Tuple[Obligation, Result]]) -> Optional[Confirmation]:
        if self.decl is None:
            return None
        self.sample = any(ob.kind == ObligationKind.RANGE for ob, _ in failing)
        self.pool = self._numbers_in(failing)
        for ob, result in failing:
            if result.refuted and ob.provenance.rule == "ExactFinite":
                runs = self._runs_of(result)
                if runs is not None and all(r is not None for r in runs):
                    return Confirmation(EXACT_CALCULATION, self._shown(runs),
                                        f"it is false that {ob.provenance.description}")
        seen: List[List[Tuple[Any, Any]]] = []
        pure = not isinstance(self.result, A.RMonad)
        # a monadic claim's related pairs come before the small ones (a loss is largest at
        # the relation's extreme points); a pure claim's after them (longer lists)
        phases = [lambda: self._first_witness(self._counterexample_pairs(failing, seen))]
        if not pure:
            phases.append(lambda: _RelatedSearch(self).run())
        phases.append(lambda: self._first_witness(r for r in self._small_pairs() if r not in seen))
        phases.append((lambda: _RelatedSearch(self).run()) if pure
                      else (lambda: self._audited(failing)))
        for phase in phases:
            found = self._phase(phase)
            if found is not None:
                return found
        return None

    def _phase(self, search) -> Optional[Confirmation]:
        """One phase of the search, which gives up (``None``) when ``DIVERGING_PAIRS`` of its
        pairs run out of work; the next phase has the same allowance (the counterexamples'
        pairs may all be where the program diverges, the smallest inputs not)."""
        self.diverging = 0
        try:
            return search()
        except OutOfWork:
            return None

    def _first_witness(self, pairs: Iterable[List[Tuple[Any, Any]]]) -> Optional[Confirmation]:
        for runs in pairs:
            found = self._bounded_witness(runs)
            if found is not None:
                return found
        return None

    def _audited(self, failing) -> Optional[Confirmation]:
        """For a monadic claim on a ``bool`` or ``[k]`` list: the exact audit
        (``verifier.audit``) of every input up to ``AUDIT_LENGTH`` at ``AUDIT_TRIES`` settings
        of the public arguments (the first counterexample's, then those of the counterexamples
        and small values where the claimed eps is smallest) finds the pair where the claim
        fails most; that pair is then confirmed like any other (``_witness``: exactly, both
        orders)."""
        private = next((i for i, (_, _, base) in enumerate(self.domains)
                        if isinstance(base, A.RSimple) and isinstance(base.type, A.TList)
                        and (base.type.elem == A.TBase("bool") or
                             isinstance(base.type.elem, A.TFin))), None)
        if not isinstance(self.result, A.RMonad) or private is None:
            return None
        elem = self.domains[private][2].type.elem
        k = 2 if elem == A.TBase("bool") else elem.k
        length = max((n for n in range(1, 8) if sum(k ** m for m in range(1, n + 1))
                      <= AUDIT_INPUTS), default=1)
        from verifier.audit import VIOLATED, audit
        from verifier.semantics.values import format_value
        settings: List[List[Tuple[Any, Any]]] = []
        publics: List[List[Any]] = []
        for runs in self._candidates(failing):
            public = [a for i, (a, b) in enumerate(runs) if i != private]
            if any(a != b for i, (a, b) in enumerate(runs) if i != private) or public in publics:
                continue
            publics.append(public)
            settings.append(runs)
            if len(settings) >= AUDIT_SETTINGS:
                break
        for runs in _extremes_first(settings, self._claimed_eps)[:AUDIT_TRIES]:
            specs = [f"#{i + 1}={format_value(a)}" for i, (a, _) in enumerate(runs) if i != private]
            if not self._exact_law(runs, private):
                return None  # the audit would measure float laws, which decide nothing here
            try:  # bounded by the evaluator's own step counts, cheaper than a watch per call
                result = audit(self.program, self.typed, self.val.name, length, specs,
                               step_budget=AUDIT_STEPS, total_steps=AUDIT_STEPS_TOTAL)
            except PrivInferError:
                return None
            if result.claim.status != VIOLATED or result.claim.violation is None:
                continue
            x, y = result.claim.violation
            for pair in ((x, y), (y, x)):
                full = [pair if i == private else r for i, r in enumerate(runs)]
                found = self._bounded_witness(full)
                if found is not None:
                    return replace(found, method=EXACT_AUDIT, detail=(
                        f"{found.detail}; the pair was found by the exact audit of every input "
                        f"of length at most {length}"))
        return None

    def _claimed_eps(self, runs: List[Tuple[Any, Any]]) -> float:
        """The eps a ``DP`` claim allows at ``runs`` (a float: it only orders the settings
        the audit tries), infinite where it cannot be evaluated."""
        from verifier.audit import ClaimEvaluator, read_claim
        if self.result.div.kind != "DP":
            return 0.0
        try:
            ce = ClaimEvaluator(self.evaluator, read_claim(self.val, len(self.domains)), 0)
            return float(ce.value(self.result.div.eps, ce.bindings(runs)))
        except (PrivInferError, TypeError, ValueError, ArithmeticError, AttributeError):
            return math.inf

    def _candidates(self, failing) -> Iterable[List[Tuple[Any, Any]]]:
        """Input pairs: each counterexample's values, completed with small defaults, and the
        same with the runs exchanged (a claim compares run 1 with run 2, so a pair may
        violate it in one order only; the assumptions are checked for each order)."""
        seen: List[List[Tuple[Any, Any]]] = []
        yield from self._counterexample_pairs(failing, seen)
        for runs in self._small_pairs():
            if runs not in seen:
                yield runs

    def _counterexample_pairs(self, failing, seen) -> Iterable[List[Tuple[Any, Any]]]:
        """The counterexamples' pairs of ``_candidates`` (each added to ``seen``)."""
        for _, result in failing:
            if not _shown_points(result) or len(seen) >= MAX_PAIRS:
                continue
            partial = self._runs_of(result)
            if partial is None:
                continue
            for runs in self._complete(partial):
                for order in (runs, [(b, a) for a, b in runs]):
                    if order not in seen:
                        seen.append(order)
                        yield order

    def _small_pairs(self) -> Iterable[List[Tuple[Any, Any]]]:
        """Pairs of small inputs when no counterexample names them (a pure function's false
        postcondition is often refuted only here: the obligation that failed was the induction
        step): each parameter refined by ``=`` gets one value in both runs, any other one two
        values of its type, pairs of equal size first.

        The combinations come by increasing weighted sum of their indices, a step of a parameter
        refined by ``=`` weighing ``PUBLIC_STEP`` steps of another: the pairs of the private
        inputs vary fastest whatever the order of the parameters (with the plain product, the
        first parameter varied slowest, and a private list written first got five pairs)."""
        options, public = [], []
        for name, binders, base in self.domains:
            values = self._defaults(base)
            public.append(any(_says_equal(var, a) for var, a in binders))
            if public[-1]:
                options.append([(v, v) for v in values])
            else:
                pairs = [(a, b) for a in values for b in values]
                pairs.sort(key=lambda ab: (_size(ab[0]) != _size(ab[1]),
                                           _size(ab[0]) + _size(ab[1])))
                options.append(pairs)
        combos = _index_combinations(
            [len(o) for o in options], public,
            key=lambda c: (sum(j * (PUBLIC_STEP if pub else 1) for j, pub in zip(c, public)), c))
        return ([o[j] for o, j in zip(options, c)] for c in combos[:MAX_SMALL_PAIRS])

    def _runs_of(self, result: Result) -> Optional[List[Optional[Tuple[Any, Any]]]]:
        """The values of the parameters in ``result``'s counterexample (None where absent)."""
        shown = {b.name: b.value for b in _shown_points(result)}
        runs: List[Optional[Tuple[Any, Any]]] = []
        for p in self.parameters:
            left, right = p.get("left"), p.get("right")
            if left is None:
                runs.append(None)
                continue
            a, b = shown.get(left.label), shown.get(right.label)
            if a is None or b is None:
                runs.append(None)
                continue
            va, vb = self._read(a), self._read(b)
            runs.append(None if va is None or vb is None else (va, vb))
        return runs

    def _exact_law(self, runs, private: int) -> bool:
        """Whether the output law at the shortest private input (one default entry) is exact
        (or rigorously enclosed), which it is for every input when it is for one (the same code
        computes them). The run has the audit's step budget: where it runs out, so would the
        audit's."""
        from verifier.laws import FLOAT, output_law
        from verifier.semantics.evaluator import Evaluator
        from verifier.semantics.values import ConsList
        base = self.domains[private][2].type.elem
        entry = self._defaults(A.RSimple(base, self.val.span))[:1]
        args = [ConsList.from_sequence(entry) if i == private else a
                for i, (a, _) in enumerate(runs)]
        bounded = Evaluator(self.program, self.typed, AUDIT_STEPS, AUDIT_STEPS)  # as the audit's
        try:
            with _watched(AUDIT_BUDGET):
                law = output_law(bounded.call(self.val.name, args))[1]()
        except (PrivInferError, OutOfWork, TypeError, ValueError):
            return False
        return getattr(law, "precision", None) != FLOAT

    def _numbers_in(self, failing) -> List[Any]:
        """The numbers the counterexamples show (for the elements of small lists)."""
        pool: List[Any] = []
        for _, result in failing:
            for b in _shown_points(result):
                v = self._read(b.value) if "!val!" not in b.value else None
                # a list's elements too: a counterexample's [0; 0; -1] suggests -1
                for x in (list(v) if hasattr(v, "is_nil") else [v]):
                    if isinstance(x, (int, Fraction)) and not isinstance(x, bool) and x not in pool:
                        pool.append(x)
        return pool[:4]

    def _read(self, text: str) -> Any:
        """A counterexample value (program syntax) as an evaluator value, or None."""
        from verifier.language.parser import parse_expr
        try:
            return self.evaluator.evaluate(parse_expr(text))
        except (PrivInferError, RecursionError):
            return None

    def _complete(self, partial) -> Iterable[List[Tuple[Any, Any]]]:
        options = []
        for (name, _, base), known in zip(self.domains, partial):
            options.append([known] if known is not None else
                           [(v, v) for v in self._defaults(base)])
        for combo in itertools.islice(itertools.product(*options), MAX_PAIRS):
            yield list(combo)

    def _defaults(self, rt: A.RType) -> List[Any]:
        """A few values of a parameter's simple type (the same in both runs)."""
        from verifier.semantics.values import ConsList
        t = rt.type if isinstance(rt, A.RSimple) else None
        if isinstance(t, A.TBase) and t.name in ("real", "int"):
            seen = [Fraction(v) for v in (0, 1, 2, -1, Fraction(1, 2))] if t.name == "real" \
                else [0, 1, 2, -1]
            # two numbers of the counterexamples first, then the usual ones: the elements of a
            # small list are the first three, which must not all come from one counterexample
            pool = [v for v in self.pool if t.name == "real" or isinstance(v, int)][:2]
            return [v for i, v in enumerate(pool + seen) if v not in (pool + seen)[:i]]
        if isinstance(t, A.TBase):
            seen = {"bool": [False, True], "unit": [()], "nat": [0, 1, 2],
                    "real+": [Fraction(1), Fraction(1, 10), Fraction(2), Fraction(1, 2)],
                    "real+inf": [Fraction(1), Fraction(2)],
                    "[0,1]": [Fraction(1, 2), Fraction(0), Fraction(1)]}.get(t.name, [])
            # nat as int: the counterexamples' numbers first (they are the elements of lists).
            # Not for the positive reals, parameters such as eps whose usual values (a small
            # one among them) find more than a counterexample's number does.
            pool = [v for v in self.pool if t.name == "nat" and isinstance(v, int) and v >= 0][:2]
            return [v for i, v in enumerate(pool + seen) if v not in (pool + seen)[:i]]
        if isinstance(t, A.TFin):
            return list(range(min(t.k, 3)))
        if isinstance(t, A.TList):
            elems = self._defaults(A.RSimple(t.elem, rt.span))[:3]
            return [ConsList.from_sequence(list(c)) for n in DEFAULT_LENGTHS
                    for c in itertools.product(elems, repeat=n)]
        if isinstance(t, A.TTuple):
            parts = [self._defaults(A.RSimple(i, rt.span))[:2] for i in t.items]
            return [tuple(c) for c in itertools.product(*parts)]
        return []

    # ---- one pair -------------------------------------------------------------------------

    def _bounded_witness(self, runs: List[Tuple[Any, Any]]) -> Optional[Confirmation]:
        """``_witness`` within ``WORK_BUDGET`` units of work. A pair on which the program runs
        out of work (or of Python's stack) is no witness — it may not terminate there — and the
        search goes on with the next pair; after ``DIVERGING_PAIRS`` such pairs the phase gives
        up (``OutOfWork``), since the program likely diverges on all of its pairs."""
        try:
            with _watched() as watch:
                return self._witness(runs, watch)
        except (OutOfWork, RecursionError):
            self.diverging += 1
            if self.diverging >= DIVERGING_PAIRS:
                raise OutOfWork() from None
            return None

    def _witness(self, runs: List[Tuple[Any, Any]], watch: Meter) -> Optional[Confirmation]:
        from verifier.audit import ClaimEvaluator, read_claim
        claim = read_claim(self.val, len(self.domains))
        ce = ClaimEvaluator(self.evaluator, claim, 0)
        env = ce.bindings(runs)
        for (name, binders, base), (v1, v2) in zip(self.domains, runs):
            if isinstance(base, A.RSimple) and not (_of_type(v1, base.type)
                                                    and _of_type(v2, base.type)):
                return None  # not an input of the claim: outside its types' ranges
            for var, assertion in binders:
                if ce.holds(assertion, var, env) is not True:
                    return None  # outside the claim (or undecided): no witness
        if watch.inexact:
            return None  # an assumption decided in floating point: the pair may be outside
        outputs = []
        for run in (0, 1):
            args = [r[run] for r in runs]
            key = _run_key(args)
            if key in self.diverging_runs and watch.left <= WORK_BUDGET:
                raise OutOfWork()   # it ran out of as much work before
            left = watch.left
            try:
                outputs.append(self.evaluator.call(self.val.name, args))
            except (OutOfWork, RecursionError):
                # a run that took at least half the budget on its own is not run again on the
                # same arguments: the pairs repeat their runs (run 1 at [] against each run 2)
                if left >= WORK_BUDGET // 2:
                    self.diverging_runs.add(key)
                raise
            except PrivInferError as exc:
                if exc.first.code in PROGRAM_ERRORS and not watch.inexact:
                    return Confirmation(RUN, self._shown(runs),
                                        f"run {run + 1} stops: {exc.first.message}"
                                        f"{_at(exc.first.span)}")
                return None
        if not isinstance(self.result, A.RMonad):
            found = self._pure(runs, outputs, ce, env)
            return None if watch.inexact else found
        if self.sample and not watch.inexact:  # a range condition failed: find the draw
            error = self._sampled_error(runs, outputs)
            if error is not None:
                return error
        return self._monadic(runs, outputs, ce, env, watch)

    def _pure(self, runs, outputs, ce, env) -> Optional[Confirmation]:
        rt, binders = self.result, []
        while isinstance(rt, A.RRefine):
            binders.append((rt.var, rt.assertion))
            rt = rt.base
        if isinstance(rt, A.RSimple):
            for run, value in enumerate(outputs, 1):
                if _outside(value, rt.type):
                    from verifier.language.pretty import pretty_type
                    from verifier.semantics.values import format_value
                    return Confirmation(EVALUATION, self._shown(runs),
                                        f"{self.val.name} returns {format_value(value)} in run "
                                        f"{run}, which is not a value of {pretty_type(rt.type)}")
        for var, assertion in binders:
            here = {**env, f"{var}<1>": outputs[0], f"{var}<2>": outputs[1]}
            if ce.holds(assertion, var, here) is False:
                from verifier.semantics.values import format_value
                return Confirmation(EVALUATION, self._shown(runs),
                                    f"{self.val.name} returns {format_value(outputs[0])} in run 1 "
                                    f"and {format_value(outputs[1])} in run 2, which violates "
                                    f"{_written(pretty_expr(assertion))}")
        return None

    def _monadic(self, runs, outputs, ce, env, watch: Meter) -> Optional[Confirmation]:
        """The exact loss of the pair against the claimed index. A float computed on the way
        (in the program, the index or a law) leaves only the witnesses that do not depend on
        numbers: an output possible in one run only."""
        rt: A.RMonad = self.result  # type: ignore[assignment]
        from verifier.audit import equality_refinement
        if rt.div.kind not in ("DP", "SD"):
            return None
        relation = ""
        if not equality_refinement(rt.body):
            # x<1> = x<2> + k: a lifting of the graph of y -> y + k at (eps, delta) gives
            # P1(S) <= e^eps P2(S - k) + delta (its witnesses' supports lie on the graph), so
            # run 1's law is compared with run 2's shifted by k
            shift = _output_shift(rt.body)
            if shift is None or not all(isinstance(m, monad_laplace()) for m in outputs):
                return None
            k = ce.value(shift, env)
            if _ball(k) is None or isinstance(k, float):
                return None
            from verifier.semantics import reals
            m2 = outputs[1]
            outputs = [outputs[0], monad_laplace()(reals.add(m2.center, k), m2.scale, m2.span)]
            relation = f" (run 2's output moved by {_text(_ball(k))}, as the claim's " \
                       f"{_written(pretty_expr(rt.body.assertion))} relates them)"
        eps = _ball(ce.value(rt.div.eps, env)) if rt.div.kind == "DP" else None
        delta = _ball(ce.value(rt.delta, env)) if rt.delta is not None else _ball(0)
        if (rt.div.kind == "DP" and eps is None) or delta is None:
            return None
        approximate = rt.div.kind == "SD" or not _zero(rt.delta)
        both = all(isinstance(m, monad_laplace()) for m in outputs)   # closed forms
        laws = [None if both else _law(m) for m in outputs]
        found = exceeded(outputs, laws, rt.div.kind, eps, delta, approximate,
                         finite_only=watch.inexact)
        if found is None:
            return None
        measured, bound = found
        from verifier.language.resolve import written
        claimed = written(pretty_expr(rt.delta) if approximate and rt.delta is not None else
                          pretty_expr(rt.div.eps) if rt.div.kind == "DP" else "0")
        return Confirmation(EXACT_LOSS, self._shown(runs),
                            f"{measured}{relation}, above the claimed {claimed} = {_text(bound)}")

    def _sampled_error(self, runs, outputs) -> Optional[Confirmation]:
        """A run-time error in one of ``SAMPLES`` seeded draws of a run. The draws are
        samples of the program's noise (floats from exact samplers): an error they reach is
        one the program reaches with positive probability, up to the rounding of a sample
        exactly on a boundary."""
        from verifier.semantics import monad
        from verifier.semantics.noise import seeded_source
        for run, m in enumerate(outputs):
            if not isinstance(m, monad.MValue):
                return None
            for seed in range(SAMPLES):
                try:
                    monad.sample(m, seeded_source(seed))
                except PrivInferError as exc:
                    if exc.first.code in PROGRAM_ERRORS:
                        return Confirmation(RUN, self._shown(runs),
                                            f"run {run + 1} stops in the draw with seed {seed}: "
                                            f"{exc.first.message}{_at(exc.first.span)}")
                    break
        return None

    def _shown(self, runs) -> Tuple[Tuple[str, str, str], ...]:
        """The inputs, named as the source names the claim's parameters."""
        from verifier.language.resolve import source_name
        from verifier.semantics.values import format_value
        return tuple((source_name(name), format_value(a), format_value(b))
                     for (name, _, _), (a, b) in zip(self.domains, runs) if (a, b) != (None, None))


class _RelatedSearch:
    """Pairs of inputs related as the claim states, searched for a monadic ``DP(eps)`` claim
    whose private inputs are numbers or lists of numbers (the sparse vector technique's
    queries related by ``allWithin``, its threshold by ``t<2> = t<1> + 1.0``), and for a pure
    claim (a sensitivity bound: the extreme points of the relation are where a sum of
    ``sqrt`` of the entries moves most, on lists longer than the small pairs').

    *The pairs.* A parameter refined by ``=`` takes one value in both runs (its small values,
    ``_Witnesses._defaults``). Any other numeric parameter is *moved*: run 2's value is run 1's
    plus or minus a constant ``c`` its refinement states (``allWithin (qs<1>, qs<2>, 1.0)``:
    1.0; 1 when it states none), a list element by element (a *pattern* of signs ``s_i``:
    entries ``-s_i c / 2`` in run 1 and ``s_i c / 2`` in run 2 for a ``real list``, else equal
    entries in run 1), a scalar by one move or none; every pair kept satisfies the parameter's
    refinement (evaluated; both orders of the runs are tried, each checked) — the extreme
    points of the relation, where a privacy loss is largest. Other parameters take the pairs
    of ``_small_pairs``.

    *The order.* The settings of the parameters other than the lists (their options taken
    diagonally: small indices first) are probed with every pattern of lengths
    ``RELATED_PROBE``; the ``RELATED_DEEPEN`` settings whose loss came closest to the claimed
    ``eps`` (as a ratio) are then searched with the patterns of lengths ``RELATED_DEEP``,
    and then with the telling patterns (``telling_patterns``: every position moved one way,
    alternately, ...) of lengths ``RELATED_LONG``, where losses that add up over the positions
    (each answer of a sparse vector with a public threshold charged) exceed a claim.

    *Pure claims.* There is no loss to estimate: each pair is confirmed (or not) by
    ``_Witnesses._witness`` at once, at most ``RELATED_PURE_TRIES`` pairs, every setting
    ranked alike; a pair on which the program runs out of work ends its setting (the other
    orders and patterns there run the same code on as many entries), so that a program that
    diverges costs one work budget per setting, not one per pair.

    *The estimates.* A pair is ranked by its privacy loss *estimated* in floating point
    (``compared.estimated_law``: the paths of each run explored once and cached per input, the
    same integration with float coefficients). An estimate decides nothing: a pair whose
    estimated loss exceeds the claimed ``eps`` is confirmed by ``_Witnesses._witness`` —
    the claim's assumptions evaluated, the exact laws of both runs, the rigorous comparison —
    at most ``RELATED_CONFIRMS`` times. The search is bounded by the paths it explores
    (``RELATED_PATHS``) and the evaluator steps of its runs (``RELATED_STEPS_TOTAL``), not by time, so
    its verdicts do not depend on the machine; it stops when ``RELATED_UNESTIMATED`` pairs in a
    row cannot be estimated (noise the estimates do not cover)."""

    def __init__(self, witnesses: "_Witnesses"):
        from verifier.semantics.evaluator import Evaluator
        self.w = witnesses
        self.paths = 0
        self.unestimated = 0
        self.exhausted = False
        #: the runs of the estimates are bounded by the evaluator's own step counts (cheaper
        #: than a watch per Python call); a confirmation runs under ``_watched`` as any witness
        self.evaluator = Evaluator(witnesses.program, witnesses.typed, RELATED_STEPS,
                                   RELATED_STEPS_TOTAL)
        self.confirms = 0
        self.pure_tries = 0
        self.diverged = False
        self.leaves: Dict[str, Any] = {}
        self.estimates: Dict[Tuple[str, Tuple[Any, ...]], Dict[Any, float]] = {}

    # ---- the plan ------------------------------------------------------------------------

    def run(self) -> Optional[Confirmation]:
        w = self.w
        rt = w.result
        self.pure = not isinstance(rt, A.RMonad)
        if not self.pure and (rt.div.kind != "DP" or not _zero(rt.delta)):
            return None
        from verifier.audit import ClaimEvaluator, equality_refinement, read_claim
        if not self.pure and not equality_refinement(rt.body):
            return None
        self.ce = ClaimEvaluator(w.evaluator, read_claim(w.val, len(w.domains)), 0)
        lists, options = [], []
        for i, (name, binders, base) in enumerate(w.domains):
            t = base.type if isinstance(base, A.RSimple) else None
            equal = any(_says_equal(var, a) for var, a in binders)
            if t is None:
                return None
            if not equal and isinstance(t, A.TList) and _numeric(t.elem):
                lists.append(i)
                options.append(None)
                continue
            if equal:
                options.append([(v, v) for v in w._defaults(base)])
            elif _numeric(t):
                moves = _moves(binders)
                pairs = [(v, v + d) for v in w._defaults(base)[:3] for d in moves + [0]]
                options.append([p for p in pairs if self._own(i, p)])
            else:
                values = w._defaults(base)
                pairs = [(a, b) for a in values for b in values]
                pairs.sort(key=lambda ab: (_size(ab[0]) != _size(ab[1]), _size(ab[0]) + _size(ab[1])))
                options.append([p for p in pairs if self._own(i, p)][:6])
            if not options[-1]:
                return None
        moved = lists or [i for i, o in enumerate(options)
                          if o is not None and any(a != b for a, b in o)]
        if not moved:
            return None
        settings = self._settings(options)
        if not lists:
            for setting in settings:
                found, _ = self._try([setting[i] if setting[i] is not None else None
                                      for i in range(len(options))])
                if found is not None or self._spent():
                    return found
            return None
        ranked = []
        for k, setting in enumerate(settings):
            found, best = self._patterns(setting, lists, RELATED_PROBE)
            if found is not None or self._spent():
                return found
            ranked.append((-best, k))
        ranked.sort()
        for _, k in ranked[:RELATED_DEEPEN]:
            found, _ = self._patterns(settings[k], lists, RELATED_DEEP)
            if found is not None or self._spent():
                return found
        for _, k in ranked[:RELATED_DEEPEN]:
            found, _ = self._patterns(settings[k], lists, RELATED_LONG, telling=True)
            if found is not None or self._spent():
                return found
        return None

    def _diverged_here(self) -> bool:
        """Whether the last pair tried ran out of work (the flag is reset): the other sign
        patterns at its setting run the same code on as many entries, so the setting is left."""
        diverged, self.diverged = self.diverged, False
        return diverged

    def _spent(self) -> bool:
        return (self.paths > RELATED_PATHS or self.exhausted
                or self.confirms >= RELATED_CONFIRMS or self.unestimated >= RELATED_UNESTIMATED
                or self.pure_tries >= RELATED_PURE_TRIES)

    def _settings(self, options) -> List[List[Any]]:
        """Up to ``RELATED_SETTINGS`` combinations of the options of the parameters other than
        the moved lists (None there), by increasing sum of indices."""
        sizes = [len(o) if o is not None else 1 for o in options]
        combos = _index_combinations(sizes, [False] * len(sizes),
                                     key=lambda c: (sum(c), max(c, default=0), c))
        combos = combos[:RELATED_SETTINGS]
        return [[None if o is None else o[j] for o, j in zip(options, c)] for c in combos]

    def _own(self, i: int, pair: Tuple[Any, Any]) -> bool:
        """Whether ``pair`` may be parameter ``i``'s: of its type, and not violating those
        conjuncts of its refinement that can be evaluated on it alone."""
        from verifier.audit import run_name
        name, binders, base = self.w.domains[i]
        if not all(_of_type(v, base.type) for v in pair):
            return False
        env: Dict[str, Any] = {}
        for var, _ in binders:
            env[run_name(var, 1)], env[run_name(var, 2)] = pair
            if pair[0] == pair[1]:
                env[var] = pair[0]
        return all(self.ce.holds(a, var, env) is not False for var, a in binders)

    # ---- lists ---------------------------------------------------------------------------

    def _patterns(self, setting, lists: List[int], lengths,
                  telling: bool = False) -> Tuple[Optional[Confirmation], float]:
        """Every sign pattern of the given lengths (``telling``: those of
        ``telling_patterns`` only) on the moved lists (the first list moved, the others with
        the first move that keeps them in their relation), at ``setting``; the best ratio of
        estimated loss to claimed eps."""
        from verifier.semantics.values import ConsList
        best = 0.0
        for n in lengths:
            for signs in (telling_patterns(n) if telling else itertools.product((1, -1), repeat=n)):
                runs = list(setting)
                for j, i in enumerate(lists):
                    _, binders, base = self.w.domains[i]
                    c = _moves(binders)[0]
                    if j == 0 and _is_real(base.type.elem):   # symmetric about 0
                        first = [-s * c / 2 for s in signs]
                        second = [s * c / 2 for s in signs]
                    else:
                        origin = self._origin(base.type.elem, c)
                        first = [origin] * n
                        second = [origin + s * c for s in signs] if j == 0 else list(first)
                    if _integral(base.type.elem):  # entries of an int list are ints
                        if any(Fraction(x).denominator != 1 for x in first + second):
                            continue
                        first, second = [int(x) for x in first], [int(x) for x in second]
                    runs[i] = (ConsList.from_sequence(first), ConsList.from_sequence(second))
                if not all(self._own(i, runs[i]) for i in lists):
                    continue
                found, ratio = self._try(runs)
                best = max(best, ratio)
                if found is not None or self._spent() or self._diverged_here():
                    return found, best
        return None, best

    @staticmethod
    def _origin(elem: A.SimpleType, c: Any) -> Any:
        """Run 1's entries: 0, or ``c`` for a type without negative numbers."""
        return Fraction(0) if isinstance(elem, A.TBase) and elem.name in ("real", "int") else c

    # ---- one pair, both orders -------------------------------------------------------------

    def _try(self, runs) -> Tuple[Optional[Confirmation], float]:
        """The pair ``runs`` in both orders: each order inside the claim's assumptions has its
        loss estimated (ratio to its claimed eps); one above the claim is confirmed exactly."""
        best = 0.0
        for order in (runs, [(b, a) for a, b in runs]):
            env = self.ce.bindings(order)
            if not all(self.ce.holds(a, var, env) is True
                       for _, binders, _ in self.w.domains for var, a in binders):
                continue
            if self.pure:
                self.pure_tries += 1
                try:
                    with _watched() as watch:
                        found = self.w._witness(order, watch)
                except (OutOfWork, RecursionError):
                    self.diverged = True   # no witness, and likely none at this setting
                    return None, best
                if found is not None or self._spent():
                    return found, best
                continue
            try:
                bound = float(self.ce.value(self.w.result.div.eps, env))
            except (PrivInferError, TypeError, ValueError, ArithmeticError, AttributeError):
                continue
            loss = self._loss(order)
            if loss is None:
                self.unestimated += 1
                continue
            self.unestimated = 0
            ratio = math.inf if bound <= 0 and loss > 0 else 0.0 if bound <= 0 else loss / bound
            best = max(best, ratio)
            if loss > bound * (1 + 1e-6) + 1e-9 and self.confirms < RELATED_CONFIRMS:
                self.confirms += 1
                try:
                    with _watched(AUDIT_BUDGET) as watch:
                        found = self.w._witness(order, watch)
                except (OutOfWork, RecursionError):
                    found = None
                if found is not None:
                    return found, best
        return None, best

    def _loss(self, runs) -> Optional[float]:
        """The estimated privacy loss of run 1 against run 2 (``inf`` when run 1 has an output
        run 2 has not), or None when it cannot be estimated."""
        from verifier.semantics import compared
        leaves = [self._paths([r[k] for r in runs]) for k in (0, 1)]
        if None in leaves:
            return None
        cuts = None
        if any(leaf.slots for ls in leaves for leaf in ls):
            cuts = tuple(sorted(set(compared.leaf_breakpoints(leaves[0]))
                                | set(compared.leaf_breakpoints(leaves[1]))))
        laws = []
        for k in (0, 1):
            key = (self._key([r[k] for r in runs]), cuts)
            law = self.estimates.get(key)
            if law is None:
                work = [0]
                try:
                    law = compared.estimated_law(leaves[k], cuts, work)
                except Exception:  # noqa: BLE001  (an estimate that fails ranks nothing)
                    return None
                finally:
                    self.paths += work[0]
                self.estimates[key] = law
            laws.append(law)
        p, q = laws
        loss = 0.0
        for o, x in p.items():
            y = q.get(o, 0.0)
            if y <= 0:
                if x > 1e-12:
                    return math.inf
                continue
            loss = max(loss, math.log(x / y))
        return loss

    def _paths(self, args) -> Optional[Tuple[Any, ...]]:
        """The paths of the run on ``args`` (cached), or None."""
        key = self._key(args)
        if key not in self.leaves:
            from verifier.semantics import compared, monad
            try:
                m = self.evaluator.call(self.w.val.name, list(args))
                with self.evaluator.terminating():
                    leaves = compared.explore(m) if isinstance(m, monad.MValue) else None
            except PrivInferError as exc:
                leaves = None
                self.exhausted = self.exhausted or "together" in exc.first.message
            except (RecursionError, ArithmeticError, ValueError, TypeError, AttributeError,
                    KeyError, IndexError):
                leaves = None
            self.leaves[key] = leaves
            self.paths += len(leaves) if leaves else 1
        return self.leaves[key]

    @staticmethod
    def _key(args) -> str:
        from verifier.semantics.values import format_value
        return "|".join(format_value(a) for a in args)


def _index_combinations(sizes: List[int], cut_first: List[bool], key) -> List[Tuple[int, ...]]:
    """The combinations of one index per option list (of ``sizes``), ordered by ``key``: with
    many parameters, fewer options each (the widest cut, those marked ``cut_first`` before the
    others) so that at most ``COMBINATIONS`` are sorted."""
    sizes = list(sizes)
    while math.prod(sizes) > COMBINATIONS:
        widest = max(range(len(sizes)), key=lambda i: (cut_first[i], sizes[i]))
        sizes[widest] -= 1
    return sorted(itertools.product(*(range(n) for n in sizes)), key=key)


def _shown_points(result: Result) -> Tuple[Any, ...]:
    """The values a failing obligation's result names: its confirmed counterexample, else the
    candidate evaluation could not confirm (``Result.candidate``; the program's runs decide)."""
    return result.counterexample or result.candidate


def _zero(delta: Optional[A.Expr]) -> bool:
    """Whether a claim's delta is absent or written as the number 0: a pure DP claim."""
    return delta is None or (isinstance(delta, (A.IntLit, A.RealLit)) and delta.value == 0)


def _numeric(t: A.SimpleType) -> bool:
    """A number type (``real``, ``int``, ``nat``, ``real+``...)."""
    return isinstance(t, A.TBase) and t.name in ("real", "int", "nat", "real+", "real+inf")


def _integral(t: A.SimpleType) -> bool:
    """An integer type (``int``, ``nat``), whose values the evaluator holds as ints."""
    return isinstance(t, A.TBase) and t.name in ("int", "nat")


def _is_real(t: A.SimpleType) -> bool:
    return isinstance(t, A.TBase) and t.name == "real"


def _moves(binders) -> List[Any]:
    """The moves of a related parameter: plus and minus each positive constant its refinement
    states (1 when it states none)."""
    constants: List[Fraction] = []
    for _, assertion in binders:
        stack = [assertion]
        while stack:
            node = stack.pop()
            if isinstance(node, (A.IntLit, A.RealLit)) and not isinstance(node.value, bool):
                c = abs(Fraction(node.value))
                if c > 0 and c not in constants:
                    constants.append(c)
            stack.extend(A.children(node))
    constants = constants or [Fraction(1)]
    return [m for c in constants for m in (c, -c)]


def _at(span: Any) -> str:
    """`` (at line L, column C)`` for a span of the program, or nothing."""
    return f" (at line {span.line}, column {span.col})" if span is not None else ""


def _of_type(value: Any, t: A.SimpleType) -> bool:
    """Whether ``value`` is certainly a value of the written type ``t``, ranges of scalars and
    of list elements included (``evaluator.check_value``: ``[-1]`` is no ``nat list``); False
    when it is not, or when that cannot be decided exactly. A witness is made only of inputs
    of the claim's types."""
    from verifier.semantics.evaluator import check_value
    try:
        check_value(value, t, "the input")
    except PrivInferError:
        return False
    return True


def _outside(value: Any, t: A.SimpleType) -> bool:
    """Whether ``value`` is certainly outside the written type ``t`` (a scalar out of its
    range, a list with an element out of range: ``evaluator.check_value`` stops with R001);
    False when it is inside or not decided exactly here."""
    from verifier.semantics.evaluator import check_value
    try:
        check_value(value, t, "the result")
    except PrivInferError as exc:
        return exc.first.code == "R001"
    return False


def _has_float(v: Any) -> bool:
    """Whether a value holds a float anywhere (in a list, a tuple, a distribution's
    parameters): such a value was computed inexactly, so equality with it decides nothing."""
    if isinstance(v, float):
        return True
    if isinstance(v, (tuple, list)) or hasattr(v, "__iter__") and hasattr(v, "is_nil"):
        return any(_has_float(x) for x in v)
    if hasattr(v, "__dict__") or hasattr(v, "__dataclass_fields__"):
        return any(_has_float(x) for x in vars(v).values()) if hasattr(v, "__dict__") else False
    return False


def _says_equal(var: str, assertion: A.Expr) -> bool:
    """Whether a refinement says its variable is equal in both runs (a conjunct ``=`` or
    ``x<1> = x<2>``)."""
    if isinstance(assertion, A.Conj):
        return _says_equal(var, assertion.left) or _says_equal(var, assertion.right)
    if isinstance(assertion, A.SameRuns):
        return True
    return (isinstance(assertion, A.BinOp) and assertion.op == "="
            and all(isinstance(x, A.RunVar) and x.name == var
                    for x in (assertion.left, assertion.right))
            and {assertion.left.run, assertion.right.run} == {1, 2})


def _size(v: Any) -> int:
    """The length of a list or tuple value (0 for a scalar)."""
    return len(v) if hasattr(v, "__len__") else 0


# ---- distances between the two runs' outputs ------------------------------------------------------
#
# An amount is an arb ball or ``INFINITE``; ``approximate`` asks for the hockey-stick divergence
# ``sup_E P1(E) - e^eps P2(E)`` (or, for SD, the statistical distance) instead of the privacy loss
# ``sup_o ln P1(o) / P2(o)``. Both compare run 1 with run 2, as the claim does.

INFINITE = math.inf


def exceeded(outputs: Sequence[Any], laws: Sequence[Any], kind: str, eps, delta,
             approximate: bool, finite_only: bool = False,
             mixed: bool = False) -> Optional[Tuple[str, Any]]:
    """Whether run 1's output is certainly further from run 2's than a claim allows (the
    comparison of ``_monadic``, shared with the refutations of while-programs,
    ``verifier.aprhl.refute``): ``outputs`` the two runs' M-values, ``laws`` their output laws
    (``verifier.laws.output_law``; None where there is none: a bare ``lapMech`` is compared by
    its closed form), ``kind`` ``"DP"`` or ``"SD"``, ``eps`` and ``delta`` arb balls,
    ``approximate`` for the hockey-stick divergence (or SD) against ``delta`` instead of the
    privacy loss against ``eps``; ``finite_only``: only an infinite loss counts (a float was
    computed on the way); ``mixed``: a release against a finite law compared too
    (``laws.pair_stat``). Returns ``(what was measured, the bound it exceeds)``, or None."""
    gap = _distance(outputs[0], outputs[1], kind, eps, approximate, laws, mixed)
    if gap is None:
        return None
    amount, where = gap
    if finite_only and amount is not INFINITE:
        return None
    bound = delta if approximate else eps
    if not _certainly_above(amount, bound):
        return None
    what = ("statistical distance" if kind == "SD" else
            f"hockey-stick divergence at eps = {_text(eps)}" if approximate else
            "privacy loss")
    return f"the {what} between the two runs' outputs is {_text(amount)}{where}", bound


def _distance(m1: Any, m2: Any, kind: str, eps, approximate: bool,
              laws: Sequence[Any], mixed: bool = False) -> Optional[Tuple[Any, str]]:
    """(amount, where) for the two runs' outputs (their laws ``laws``); None when they are not
    of a form computed here (a mixture with a continuous part, floats)."""
    from verifier.semantics import monad
    from verifier.semantics.values import format_value
    if isinstance(m1, monad.Laplace) and isinstance(m2, monad.Laplace):
        return _laplace(m1, m2, kind, eps, approximate)
    if None in laws:
        return None
    from verifier.laws import Law, pair_stat
    if not all(isinstance(law, Law) for law in laws):    # releases of noise: the DP loss only
        if kind != "DP" or approximate:
            return None
        stat = pair_stat(*laws, mixed=mixed)
        if stat is None:
            return None
        where = f" (at the output {format_value(stat.output)})"
        return (INFINITE, where) if stat.ball is None else (stat.ball, where)
    (p, exact1), (q, exact2) = (_balls(law) for law in laws)
    only = [o for o in p if o not in q and not _has_float(o)]
    if only and not approximate and kind == "DP":
        return INFINITE, f" (the output {format_value(only[0])} is possible in run 1 only)"
    if not (exact1 and exact2):
        return None
    return _finite(p, q, kind, eps, approximate)


def _law(m: Any) -> Any:
    """The output law of a run (``verifier.laws.output_law``), or None when it is not
    computed or has float probabilities."""
    from verifier.laws import output_law
    try:
        _, build = output_law(m)
        law = build()
    except (PrivInferError, TypeError, ValueError):
        return None
    return usable(law)


def usable(law: Any) -> Any:
    """``law`` when it may decide a witness, None when its probabilities are floats."""
    from verifier.laws import FLOAT
    if getattr(law, "precision", None) == FLOAT or getattr(law, "logs", ()) is None:
        return None
    return law


def _balls(law: Any) -> Tuple[Dict[Any, Any], bool]:
    """A finite law as ({outcome: ball of its probability}, rigorous). Not rigorous means the
    probabilities come from float scores (``expMech`` with Hellinger scores): their support
    is still exact (every candidate has a positive weight), their values are not. An enclosed
    law's balls contain the probabilities of the sampler that runs."""
    from verifier.laws import ENCLOSED, EXACT
    return {o: lg.exp() for o, lg in law.logs.items()}, law.precision in (EXACT, ENCLOSED)


def _finite(p: Dict[Any, Any], q: Dict[Any, Any], kind: str, eps,
            approximate: bool) -> Tuple[Any, str]:
    from flint import arb
    from verifier.semantics.values import format_value
    zero = arb(0)
    if kind == "SD":
        outcomes = list(p) + [o for o in q if o not in p]
        return sum((abs(p.get(o, zero) - q.get(o, zero)) for o in outcomes), zero) / 2, ""
    if approximate:
        factor = eps.exp()
        total = zero
        for o, x in p.items():
            total += (x - factor * q.get(o, zero)).max(zero)
        return total, ""
    worst, at = zero, None
    for o, x in p.items():
        ratio = (x / q[o]).log()
        if at is None or float(ratio.mid()) > float(worst.mid()):
            worst, at = ratio, o
    return worst, "" if at is None else f" (at the output {format_value(at)})"


def _laplace(m1, m2, kind: str, eps, approximate: bool) -> Optional[Tuple[Any, str]]:
    """Two Laplace releases ``c + Lap(b)``. Privacy loss: ``sup_y ln p1(y) / p2(y)``, infinite
    when run 1's scale is the larger, else reached at ``y = c1`` or ``y = c2``. For one scale
    ``b`` and shift ``s = |c1 - c2| / b``: the statistical distance ``1 - exp(-s / 2)`` and the
    hockey-stick divergence ``1 - exp((eps - s) / 2)`` for ``eps < s`` (0 above)."""
    from flint import arb
    c1, c2, b1, b2 = (_ball(x) for x in (m1.center, m2.center, m1.scale, m2.scale))
    if None in (c1, c2, b1, b2):
        return None
    # exact scales are compared exactly: two enclosures of 1/3 are not known to be equal
    order = _exact_order(m1.scale, m2.scale)
    if order == 0:
        b2 = b1
    same = order == 0 or (b1 - b2).is_zero()
    if kind == "SD" or approximate:
        if not same:
            return None
        shift = abs(c1 - c2) / b1
        if kind == "SD":
            return 1 - (-shift / 2).exp(), ""
        if not eps < shift:
            return arb(0), ""
        return 1 - ((eps - shift) / 2).exp(), ""
    if order == 1 or (order is None and b1 > b2):
        return INFINITE, " (run 1's noise has the larger scale)"
    if not (same or order == -1 or b1 <= b2):
        return None
    log_ratio = arb(0) if same else (b2 / b1).log()
    candidates = [-abs(y - c1) / b1 + abs(y - c2) / b2 + log_ratio for y in (c1, c2)]
    return max(candidates, key=lambda v: float(v.mid())), ""


# ---- rigorous numbers -------------------------------------------------------------------------------

def _exact_order(a: Any, b: Any) -> Optional[int]:
    """The sign of ``a - b`` when both are exact numbers of the evaluator (``int``,
    ``Fraction``, ``Real``: never a float, which is only known up to ``FLOAT_SLACK``), decided
    exactly; None otherwise or when undecided."""
    from verifier.semantics import reals
    if not (reals.is_exact_number(a) and reals.is_exact_number(b)):
        return None
    try:
        return reals.sign(reals.sub(a, b))
    except reals.Undecided:
        return None


def _ball(x: Any):
    """An arb ball containing the evaluator's number ``x`` (a float widened by
    ``FLOAT_SLACK``); None for what is not a number."""
    from flint import arb, fmpq
    if isinstance(x, bool):
        return None
    if isinstance(x, int):
        return arb(x)
    if isinstance(x, Fraction):
        return arb(fmpq(x.numerator, x.denominator))
    if isinstance(x, float):
        if not math.isfinite(x):
            return arb("inf") if x > 0 else None
        q = Fraction(x)
        return arb(fmpq(q.numerator, q.denominator), abs(x) * FLOAT_SLACK + 1e-300)
    if isinstance(x, arb):
        return x
    from verifier.semantics.reals import Real
    if isinstance(x, Real):  # an exact real: its rigorous enclosure
        return x.ball(128)
    return None


def _certainly_above(amount, bound) -> bool:
    """``amount > bound`` for certain (``amount`` may be ``INFINITE``)."""
    if bound is None:
        return False
    if amount is INFINITE:
        return bool(bound.is_finite())
    return bool(amount > bound)


def _text(x) -> str:
    if x is INFINITE:
        return "infinite"
    return x.str(6, radius=False)


def _written(text: str) -> str:
    """``text`` printed from the resolved core, with its names as the source writes them."""
    from verifier.language.resolve import written
    return written(text)


def monad_laplace():
    from verifier.semantics import monad
    return monad.Laplace


def _output_shift(rt: A.RType) -> Optional[A.Expr]:
    """For a result ``{x :: real | x<1> = x<2> + k}`` (or ``x<2> = x<1> + k``, ``k + ...``,
    ``... - k``), the expression of ``k`` in ``x<1> = x<2> + k``, when it does not mention
    ``x``; else None."""
    if not isinstance(rt, A.RRefine) or not isinstance(rt.assertion, A.BinOp):
        return None
    var = rt.var

    def run_of(e: A.Expr) -> Optional[int]:
        return e.run if isinstance(e, A.RunVar) and e.name == var else None

    def mentions(e: A.Expr) -> bool:
        return run_of(e) is not None or any(mentions(c) for c in A.children(e)
                                            if isinstance(c, A.Expr))

    return relation_shift(rt.assertion, run_of, mentions, lambda k: A.UnOp("-", k, k.span))


def relation_shift(assertion: Any, run_of, mentions, negate) -> Optional[Any]:
    """For an assertion ``x<1> = x<2> + k`` (or ``x<2> = x<1> + k``, ``k + ...``, ``... - k``)
    with ``k`` free of ``x``, the expression of ``k`` in ``x<1> = x<2> + k``; else None. Over
    either language's syntax (binary operators with ``op``, ``left``, ``right``): ``run_of(e)``
    is 1 or 2 when ``e`` is ``x<1>`` or ``x<2>``, ``mentions(e)`` whether ``e`` mentions ``x``,
    ``negate(k)`` the expression ``-k`` (also for ``verifier.aprhl.refute``)."""
    def binary(e: Any) -> bool:
        return hasattr(e, "left") and hasattr(e, "right") and hasattr(e, "op")

    if not binary(assertion) or assertion.op != "=":
        return None
    for lone, other in ((assertion.left, assertion.right), (assertion.right, assertion.left)):
        run = run_of(lone)
        if run is None or not binary(other) or other.op not in ("+", "-"):
            continue
        a, b = other.left, other.right
        if run_of(a) == 3 - run and not mentions(b):
            k = b if other.op == "+" else negate(b)
        elif other.op == "+" and run_of(b) == 3 - run and not mentions(a):
            k = a
        else:
            continue
        # x<run> = x<other> + k; x<1> = x<2> + k when run is 1, else x<1> = x<2> - k
        return k if run == 1 else negate(k)
    return None


#: the rigorous enclosure of an evaluator's number, and the printed form of an amount (for the
#: refutations of while-programs, ``verifier.aprhl.refute``)
number_ball, amount_text = _ball, _text
