"""``privinfer audit FILE ENTRY --n N [--arg NAME=VALUE]... [--private NAME] [--eps-grid E,E,...]
[--no-verify] [--max-inputs M] [--json]``

Exact privacy audit of ENTRY on every pair of adjacent private inputs of length 1..N (the engine
and what is exact are described in ``verifier/audit.py`` and docs/audit.md).

Exit status: 0 when the exact loss is within the entry's claim (or there is nothing to compare
with); 1 when the program exceeds its claim on the audited inputs — ``SOUNDNESS BUG`` if the
verifier verified that claim, ``violated`` otherwise; 2 on bad input (including outputs that are
not finite, such as Laplace noise).
"""
from __future__ import annotations

import argparse
import json
from fractions import Fraction
from typing import List, Optional

from verifier.audit import MAX_INPUTS
from verifier.claim_audit import audit_program
from verifier.errors import error


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", help="a .pinf program, or a .pwhile program (docs/aprhl.md)")
    parser.add_argument("entry", help="the top-level declaration to audit")
    parser.add_argument("--n", type=int, required=True, metavar="N",
                        help="audit private inputs of every length 1..N")
    parser.add_argument("--arg", action="append", default=[], metavar="NAME=VALUE",
                        help="a public parameter's value, in the language's syntax; may mention the "
                             "program's top-level names, e.g. eps='1.0 / rho' (repeatable)")
    parser.add_argument("--private", metavar="NAME",
                        help="the private parameter (default: the first bool list or [k] list, else the "
                             "first list of numbers)")
    parser.add_argument("--values", metavar="V,V,...",
                        help="the values the elements of a private list of numbers range over, "
                             "rationals such as 0,1,2.5 (default 0,1)")
    parser.add_argument("--eps-grid", metavar="E,E,...",
                        help="the eps values of the delta(eps) curve (default: 11 points up to a little "
                             "above the loss and the claimed eps)")
    parser.add_argument("--no-verify", action="store_true",
                        help="do not run the verifier (the claim is still evaluated and compared)")
    parser.add_argument("--max-inputs", type=int, default=MAX_INPUTS, metavar="M",
                        help=f"refuse audits that would evaluate more inputs (default {MAX_INPUTS})")
    parser.add_argument("--json", action="store_true", help="print one JSON object")


def parse_grid(text: Optional[str]) -> Optional[List[float]]:
    """``"0,0.5,1"`` -> ``[0.0, 0.5, 1.0]`` (U002 on anything but non-negative finite numbers)."""
    if text is None:
        return None
    values = []
    for part in text.split(","):
        try:
            v = float(part)
        except ValueError:
            raise error("U002", f"--eps-grid: {part.strip()!r} is not a number") from None
        if not (v >= 0 and v != float("inf")):
            raise error("U002", f"--eps-grid: eps must be finite and >= 0, got {part.strip()}")
        values.append(v)
    return values


def parse_values(text: Optional[str]) -> Optional[List[Fraction]]:
    """``"0,1,2.5"`` -> exact rationals (U002 on anything else: an element of a private list is
    given exactly, as ``privinfer run`` takes it)."""
    if text is None:
        return None
    values = []
    for part in text.split(","):
        try:
            values.append(Fraction(part.strip()))
        except (ValueError, ZeroDivisionError):
            raise error("U002", f"--values: {part.strip()!r} is not a rational number",
                        hint="write decimals or fractions, e.g. --values 0,1,2.5,1/3") from None
    return values


def run(args: argparse.Namespace) -> int:
    if str(args.file).endswith(".pwhile"):
        from verifier.aprhl.audit import audit_while
        result = audit_while(args.file, args.entry, args.n, args.arg, private=args.private,
                             eps_grid=parse_grid(args.eps_grid), verify=not args.no_verify,
                             max_inputs=args.max_inputs, values=parse_values(args.values))
    else:
        result = audit_program(args.file, args.entry, args.n, args.arg, private=args.private,
                               eps_grid=parse_grid(args.eps_grid), verify=not args.no_verify,
                               max_inputs=args.max_inputs, values=parse_values(args.values))
    if args.json:
        print(json.dumps(result.to_json(), allow_nan=False))
    else:
        print(result.render())
    return 1 if result.exceeds_claim else 0
