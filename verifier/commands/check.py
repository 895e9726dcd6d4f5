"""``privinfer check CERT.json [--solver z3|cvc5] [--allow-unknown] [--json]``: re-check a
certificate with the independent kernel (``checker``; it imports nothing of the verifier's
derivation builder), which derives every obligation from the certificate's source and
discharges it itself.

Exit 0 when the certificate is valid (its verified claims are justified and its other claims
labelled as such), 1 when it is invalid (the first reason is printed, with code C002 when the
document does not match the certificate's JSON Schema and C003 otherwise), 2 when the input
cannot be read as JSON (C001; with ``--json`` this too is printed as a JSON outcome).
"""
from __future__ import annotations

import argparse
import json
import sys
from typing import Optional

from checker import kernel
from verifier.errors import Diagnostic


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("certificate", help="a certificate written by privinfer verify --certificate")
    parser.add_argument("--solver", choices=("z3", "cvc5"), default="z3",
                        help="the solver that re-runs the SMT obligations (default z3)")
    parser.add_argument("--allow-unknown", action="store_true",
                        help="with --solver cvc5: re-run with z3 what cvc5 answers unknown on")
    parser.add_argument("--recheck-lemmas", action="store_true",
                        help="re-check every lemma's artifact, even those recorded as "
                             "re-checked on this machine")
    parser.add_argument("--json", action="store_true", help="print the outcome as JSON")


def run(args: argparse.Namespace) -> int:
    try:
        data = kernel.load(args.certificate)
    except kernel.Unreadable as exc:
        diagnostic = Diagnostic("C001", f"cannot read the certificate: {exc}",
                                hint="give the JSON file privinfer verify --certificate wrote")
        if args.json:   # the same keys as a checked certificate's outcome
            print(json.dumps({"valid": False, "reason": diagnostic.message, "claims": [], "trust_base": None,
                              "notes": [], "seconds": {}, "code": "C001"}, indent=2))
        else:
            print(diagnostic.render(), file=sys.stderr)
        return 2
    from checker import aprhl
    if aprhl.is_aprhl(data):
        outcome = aprhl.check(data)
        if args.json:
            print(json.dumps({**outcome.to_json(), "code": None if outcome.valid else "C003"}, indent=2))
        elif not outcome.valid:
            print(f"{args.certificate}: INVALID: error[C003]: {outcome.reason}")
        else:
            lines = [f"{args.certificate}: valid ({len(outcome.obligations)} obligations derived "
                     f"from the source by the kernel's apRHL rules, each discharged by z3 or trivially)"]
            lines += [f"  {c['verdict']:<8}  {c['statement']}" for c in outcome.claims]
            print("\n".join(lines))
        return 0 if outcome.valid else 1
    outcome = kernel.check(data, solver=args.solver, allow_unknown=args.allow_unknown,
                           recheck_lemmas=args.recheck_lemmas)
    if args.json:
        print(json.dumps({**outcome.to_json(), "code": invalid_code(outcome)}, indent=2))
    else:
        print(render(args.certificate, outcome, args.solver))
    return 0 if outcome.valid else 1


def invalid_code(outcome: kernel.Outcome) -> Optional[str]:
    """C002 when the certificate does not match its JSON Schema, C003 when it is invalid
    otherwise, None when it is valid."""
    if outcome.valid:
        return None
    return "C002" if outcome.reason.startswith(kernel.NOT_A_CERTIFICATE) else "C003"


def render(path: str, outcome: kernel.Outcome, solver: str = "z3") -> str:
    """The outcome in words: the first reason (with its code), or each claim and the trust
    base."""
    if not outcome.valid:
        return f"{path}: INVALID: error[{invalid_code(outcome)}]: {outcome.reason}"
    lines = [f"{path}: valid ({len(outcome.obligations)} obligations derived from the source by "
             f"the kernel, each discharged by {solver} or trivially)"]
    for c in outcome.claims:
        lines.append(f"  {c['verdict']:<8}  {c['statement']}")
        if c["disputed"]:
            lines.append(f"            rests on disputed theorems: {', '.join(c['disputed'])}")
    base = outcome.trust_base
    if base:
        solvers = ", ".join(f"{s['name']} {s['version']}" for s in base["solvers"]) or "none"
        lines.append(f"  trust base: solvers {solvers}; theorems "
                     f"{', '.join(base['theorems']) or 'none'}; "
                     f"{len(base['lemmas'])} lemmas, their artifacts re-checked")
    lines += [f"  note: {n}" for n in outcome.notes]
    return "\n".join(lines)
