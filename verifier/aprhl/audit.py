"""Exact privacy audit of a while-procedure (``privinfer audit F.pwhile PROC --n N``;
docs/aprhl.md, "Audit").

The functional language's audit (``verifier.audit``, docs/audit.md) with the while-language's
semantics: the private input is a list parameter (``--private``, else the first list that is
not ``pub``) whose elements range over ``bool`` or the rationals of ``--values`` (default
``0,1``); every other parameter is given by ``--arg NAME=VALUE`` in the while-language's literal
syntax (as ``privinfer run`` reads it) and has that value in both runs. Every input of length
``1..N`` is run, its output law computed exactly (``verifier.aprhl.law``: the laws of
``verifier.laws``), and the ordered pairs of distinct inputs of one length that satisfy the
claim's precondition ``P`` (evaluated exactly) are compared (``verifier.audit.measure_pairs``,
``summarise``: the privacy loss, the worst pair, ``delta(eps)``, and the claim's ``(eps, delta)``
checked exactly on each pair). Without a claim that relates the outputs by ``=``, or when no
pair satisfies ``P``, the pairs of ``adj`` are measured. A verified claim that the audit
contradicts is a soundness bug (exit 1, ``SOUNDNESS BUG``).
"""
from __future__ import annotations

import itertools
import time
from fractions import Fraction
from typing import Any, Dict, List, Optional, Sequence

from verifier.aprhl.coupled import holds
from verifier.aprhl.law import procedure_law
from verifier.aprhl.refute import _in_type
from verifier.aprhl.run import _conform, check_ranges, literal, read_argument
from verifier.audit import (MAX_INPUTS, NO_CLAIM, NOT_COMPARABLE, AuditResult, ClaimCheck, Fixed,
                            ClaimTracker, collect_laws, measure_pairs, summarise)
from verifier.errors import Diagnostic, PrivInferError, error
from verifier.language import whilelang as W
from verifier.laws import output_law, to_float

DEFAULT_VALUES = (Fraction(0), Fraction(1))


def audit_while(path: str, entry: str, n: int, arg_specs: Sequence[str] = (), *,
                private: Optional[str] = None, eps_grid: Optional[Sequence[float]] = None,
                verify: bool = True, max_inputs: int = MAX_INPUTS,
                values: Optional[Sequence[Any]] = None) -> AuditResult:
    """Audit ``entry`` of the while-program at ``path`` (see the module docstring). Raises
    ``PrivInferError`` on bad input (U002, R004, R005, R009, R003, a run-time error)."""
    start = time.perf_counter()
    prog = W.parse_while_file(path)
    types = W.check_program(prog)
    try:
        return _audit(prog, types, entry, n, arg_specs, private, eps_grid, verify, max_inputs,
                      values, start)
    except PrivInferError as exc:
        if exc.source is None:
            exc.source = prog.source
        raise


def _audit(prog, types, entry, n, arg_specs, private, eps_grid, verify, max_inputs, values, start):
    proc = prog.proc(entry)
    if proc is None:
        raise error("R004", f"{prog.file} has no procedure {entry} (it has: "
                    f"{', '.join(p.name for p in prog.procs) or 'none'})")
    if not isinstance(n, int) or isinstance(n, bool) or n < 1:
        raise error("U002", f"--n must be a positive integer, got {n!r}")
    if not isinstance(max_inputs, int) or isinstance(max_inputs, bool) or max_inputs < 1:
        raise error("U002", f"--max-inputs must be a positive integer, got {max_inputs!r}")
    priv = _private(proc, private)
    elements = _elements(priv, values)
    total = 0
    for m in range(1, n + 1):
        total += len(elements) ** m
        if total > max_inputs:
            raise error("R009", f"the audit would evaluate more than {max_inputs} inputs "
                        f"({len(elements)}^m for m = 1..{n}), the limit",
                        hint="lower --n (or raise --max-inputs)")
    public = _arguments(proc, priv, arg_specs)
    ptypes = types[proc.name]
    inputs = [x for m in range(1, n + 1) for x in itertools.product(elements, repeat=m)]

    def env_of(x) -> Dict[str, Any]:
        env = dict(public)
        env[priv.name] = _conform(list(x), ptypes.vars[priv.name])
        return env

    def evaluate(x):
        try:
            return output_law(procedure_law(proc, ptypes, env_of(x)), proc.span)
        except PrivInferError as exc:
            note = f"while auditing {priv.name} = {literal(list(x))}"
            raise PrivInferError([Diagnostic(d.code, d.message, d.span, d.hint,
                                             tuple(d.notes) + (note,))
                                  for d in exc.diagnostics], exc.source) from None

    laws, law_of_input, precision = collect_laws(inputs, evaluate)
    elem = "bool" if priv.type.elem.base == "bool" else \
        f"{priv.type.elem} (elements from {', '.join(literal(v) for v in elements)})"
    result = AuditResult(prog.file, entry, priv.name, f"{elem} list", n,
                         {name: literal(v) for name, v in public.items()})
    result.inputs = len(inputs)
    check, fixed = _claim(proc, ptypes, public, verify)
    tracker = ClaimTracker(check, fixed) if fixed is not None else None
    measured = None
    if fixed is not None:
        measured = measure_pairs(result, inputs, laws, law_of_input, priv.name,
                                 _related(inputs, env_of, proc.spec.pre), tracker)
        result.relation = fixed.relation
    if fixed is None or check.covered_pairs == 0:
        result.pairs = 0
        measured = measure_pairs(result, inputs, laws, law_of_input, priv.name,
                                 _adjacent(inputs), None)
        result.relation = f"adj ({priv.name}<1>, {priv.name}<2>)"
    summarise(result, measured, laws, precision, check, tracker, eps_grid, entry)
    result.seconds = time.perf_counter() - start
    return result


def _private(proc: W.Proc, name: Optional[str]) -> W.Param:
    lists = [p for p in proc.params if p.type.base == "list" and p.type.elem.base != "list"]
    if name is not None:
        found = next((p for p in lists if p.name == name), None)
        if found is None:
            raise error("U002", f"--private {name}: {proc.name} has no list parameter {name} "
                        f"(its lists: {', '.join(p.name for p in lists) or 'none'})")
        return found
    found = next((p for p in lists if not p.pub), None)
    if found is None:
        raise error("U002", f"{proc.name} has no private list parameter to audit (the audit "
                    "enumerates every list of small length)", hint="name one with --private")
    return found


def _elements(priv: W.Param, values: Optional[Sequence[Any]]) -> List[Any]:
    elem = priv.type.elem
    if elem.base == "bool":
        if values is not None:
            raise error("U002", f"--values: {priv.name} is a bool list (its elements are false "
                        "and true)")
        return [False, True]
    chosen = list(values) if values is not None else list(DEFAULT_VALUES)
    out: List[Any] = []
    for v in chosen:
        v = int(v) if elem.base in ("int", "nat") and Fraction(v).denominator == 1 else Fraction(v)
        if not _in_type(v, elem):
            raise error("U002", f"--values: {literal(v)} is not a value of {elem}")
        if v not in out:
            out.append(v)
    return out


def _arguments(proc: W.Proc, priv: W.Param, specs: Sequence[str]) -> Dict[str, Any]:
    expected = ", ".join(f"{p.name} : {p.type}" for p in proc.params if p is not priv)
    public: Dict[str, Any] = {}
    for spec in specs:
        name, sep, text = spec.partition("=")
        name = name.strip()
        param = next((p for p in proc.params if p.name == name), None)
        if not sep or param is None or param is priv:
            raise error("R005", f"--arg {spec!r}: expected NAME=VALUE for one of {expected or 'no parameter'}")
        if name in public:
            raise error("R005", f"--arg {name} given twice")
        public[name] = read_argument(text, name, W.wtype_simple(param.type))
    missing = [p.name for p in proc.params if p is not priv and p.name not in public]
    if missing:
        raise error("R005", f"missing value for {', '.join(missing)} (give --arg NAME=VALUE; "
                    f"parameters: {expected})")
    check_ranges(W.Proc(proc.name, tuple(p for p in proc.params if p is not priv), proc.ret,
                        proc.spec, proc.body, proc.span), public)
    return {p.name: public[p.name] for p in proc.params if p is not priv}


def _claim(proc: W.Proc, ptypes: W.ProcTypes, public: Dict[str, Any], verify: bool):
    """The claim check and the fixed parts of the claim (None when there is nothing to
    compare with)."""
    from verifier.aprhl.derive import claim_text
    from verifier.aprhl.verify import verify_proc
    spec = proc.spec
    if spec is None:
        check = ClaimCheck("none")
        check.message = f"{proc.name} has no specification line; the audit only measures the loss"
        return check, None
    statement = claim_text(proc)
    if verify:
        report = verify_proc(proc, ptypes)
        check = ClaimCheck(report.verdict, statement=statement, failure=report.failure)
    else:
        check = ClaimCheck("skipped", statement=statement)
    if spec.post is not None:
        check.status = NOT_COMPARABLE
        check.message = (f"the claim relates the outputs by {W.pretty_expr(spec.post)}, not by "
                         "equality: it is not a differential privacy claim")
        return check, None
    env = {k: _conform(v, ptypes.vars[k]) for k, v in public.items()}
    eps, delta = holds(spec.eps, env, env), holds(spec.delta, env, env)
    if not (eps >= 0 and delta >= 0):
        check.status = NOT_COMPARABLE
        check.message = f"the claimed ({literal(eps)}, {literal(delta)}) is negative at these arguments"
        return check, None
    check.eps, check.delta = to_float(eps), to_float(delta)
    check.status = NO_CLAIM
    return check, Fixed(None, None, W.pretty_expr(spec.pre), Fraction(eps), Fraction(delta))


def _related(inputs, env_of, pre):
    """The ordered pairs of distinct inputs of one length that satisfy ``pre``."""
    envs = [env_of(x) for x in inputs]
    for i, x in enumerate(inputs):
        for j, y in enumerate(inputs):
            if i == j or len(x) != len(y):
                continue
            try:
                ok = holds(pre, envs[i], envs[j]) is True
            except (ZeroDivisionError, TypeError, KeyError, IndexError):
                ok = False
            if ok:
                yield i, j, {}


def _adjacent(inputs):
    for i, x in enumerate(inputs):
        for j, y in enumerate(inputs):
            if i != j and len(x) == len(y) and sum(a != b for a, b in zip(x, y)) <= 1:
                yield i, j, {}
