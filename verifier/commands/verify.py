"""``privinfer verify FILE... [--json] [--explain] [--dot OUT] [--certificate OUT.json]
[--smtlib DIR]``: prove the val claims of one or more files.

Several files are verified one after the other in one process (one report each; with
``--json`` a list of reports); ``--dot``, ``--certificate`` and ``--smtlib`` take one file.
A file with an input error is reported (exit 2 at the end) and the others are still verified.

``--certificate`` writes a certificate of every claim (``checker.certify``; check it with
``privinfer check``); ``--smtlib`` writes each obligation as a standalone ``<id>.smt2``. Both
name the source by the path given (relative to the working directory when it is absolute and
below it, else by its base name), so that they hold no absolute path.

Exit 0 when every claim is verified, 1 when any is refuted or unknown or when a file has no
claim at all (nothing was verified), 2 on input errors.
The JSON report follows ``verifier/report.schema.json`` (docs/json.md).
"""
from __future__ import annotations

import argparse
import json
import os
import sys
from collections import Counter
from typing import Any, Dict

from verifier.errors import PrivInferError
from verifier.output_paths import check_output_dir, check_output_file
from verifier.language.parser import parse_file, parse_program
from verifier.language.source import read_source
from verifier.language.typecheck import typecheck_program
from verifier.language.whilelang import is_while_file
from verifier.verification import VERIFIED, Report, verify_program


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("files", nargs="+", metavar="FILE", help="a .pinf program")
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    parser.add_argument("--explain", action="store_true",
                        help="print each derivation tree with its obligations")
    parser.add_argument("--dot", metavar="OUT", help="write the derivations as a Graphviz graph")
    parser.add_argument("--only", metavar="NAME", action="append",
                        help="verify only this claim (repeatable)")
    parser.add_argument("--certificate", metavar="OUT.json",
                        help="write a certificate of every claim (check it with privinfer check)")
    parser.add_argument("--smtlib", metavar="DIR",
                        help="write each obligation as a standalone SMT-LIB 2 file DIR/<id>.smt2")


def run(args: argparse.Namespace) -> int:
    if len(args.files) > 1:
        return _run_many(args)
    args.file = args.files[0]
    return _run_one(args)


def _run_many(args: argparse.Namespace) -> int:
    single = [f"--{name}" for name in ("dot", "certificate", "smtlib") if getattr(args, name)]
    if single:
        print(f"error: {', '.join(single)} takes one FILE", file=sys.stderr)
        return 2
    reports, status = [], 0
    for path in args.files:
        if is_while_file(path):
            from verifier.aprhl.commands import verify_file
            from verifier.aprhl.report import render as render_while, report_json as json_while
            try:
                w_reports, ok = verify_file(path, args.only)
            except PrivInferError as exc:
                print(exc.render(), file=sys.stderr)
                status = 2
                continue
            if args.json:
                reports.append(json_while(path, w_reports, ok))
            else:
                print(render_while(path, w_reports, explain=args.explain), flush=True)
            status = max(status, 0 if ok else 1)
            continue
        try:
            program = parse_file(path)
            report = verify_program(program, typecheck_program(program), only=args.only)
        except PrivInferError as exc:
            print(exc.render(), file=sys.stderr)
            status = 2
            continue
        if args.json:
            reports.append(report_json(report))
        else:
            print(render(report, explain=args.explain), flush=True)
        status = max(status, 0 if succeeded(report) else 1)
    if args.json:
        print(json.dumps(reports, indent=2))
    return status


def _run_one(args: argparse.Namespace) -> int:
    if is_while_file(args.file):
        for option, path in (("--certificate", args.certificate), ("--dot", args.dot)):
            if path:
                check_output_file(path, option)
        if args.smtlib:
            check_output_dir(args.smtlib, "--smtlib")
        from verifier.aprhl import commands
        return commands.verify(args)
    exported = args.certificate or args.smtlib
    if args.certificate and args.only:
        print("error: --certificate covers every claim of the file; drop --only",
              file=sys.stderr)
        return 2
    for option, path in (("--certificate", args.certificate), ("--dot", args.dot)):
        if path:
            check_output_file(path, option)
    if args.smtlib:
        check_output_dir(args.smtlib, "--smtlib")
    if exported:
        program = parse_program(read_source(args.file), source_name(args.file))
    else:
        program = parse_file(args.file)
    typed = typecheck_program(program)
    report = verify_program(program, typed, only=args.only)
    if args.certificate:
        from checker.certify import certificate, dumps
        with open(args.certificate, "w", encoding="utf-8") as out:
            out.write(dumps(certificate(report, program.source, program.file)))
    if args.smtlib:
        from obligations.smtlib import write_smtlib_dir
        unique = {ob.id: ob for c in report.claims for ob in c.obligations}
        write_smtlib_dir(unique.values(), args.smtlib)
    if args.json:
        print(json.dumps(report_json(report), indent=2))
    else:
        print(render(report, explain=args.explain))
    if args.dot:
        from verifier.graph import write_dot
        write_dot(report, args.dot)
    return 0 if succeeded(report) else 1


def succeeded(report: Report) -> bool:
    """Every claim of the file is verified, and it has one: a file without a ``val`` verifies
    nothing, which is not a success (exit 1, so that ``privinfer verify F && release`` does
    not pass when the claims were deleted or misnamed)."""
    return report.ok and bool(report.claims)


def source_name(path: str) -> str:
    """``path`` as certificates name it: as given, unless absolute (then relative to the working
    directory when below it, else its base name)."""
    if not os.path.isabs(path):
        return path
    relative = os.path.relpath(path)
    return os.path.basename(path) if relative.startswith("..") else relative


def render(report: Report, explain: bool = False) -> str:
    lines = [report.file]
    if not report.claims:
        lines.append("  nothing to verify: the file has no val claim (write one as val NAME :: TYPE, "
                     "docs/language.md)")
    width = max((len(c.name) for c in report.claims), default=0)
    totals_kind: Counter = Counter()
    totals_method: Counter = Counter()
    for c in report.claims:
        lines.append(f"  {c.name.ljust(width)}  {c.verdict:<8}  {c.guarantee if c.verdict == VERIFIED else c.claim}")
        if c.verdict == VERIFIED and c.disputed:
            lines.append(f"      relies on a theorem whose published proof is disputed: "
                         f"{', '.join(c.disputed)} (docs/corrections.md §7)")
        diagnostic = c.diagnostic()
        if diagnostic is not None:
            lines += ["      " + line for line in diagnostic.render().splitlines()]
        counts = c.counts()
        totals_kind.update(counts["by_kind"])
        totals_method.update(counts["by_method"])
        if explain and c.derivation is not None:
            lines.append(c.derivation.render(c.results, indent=3))
    n = sum(totals_kind.values())
    if n:
        kinds = ", ".join(f"{k} {v}" for k, v in sorted(totals_kind.items()))
        methods = ", ".join(f"{k} {v}" for k, v in sorted(totals_method.items()))
        lines.append(f"  obligations: {n} ({kinds}); discharged: {methods}")
    verified = sum(c.verdict == VERIFIED for c in report.claims)
    if report.claims:
        lines.append(f"  {verified} of {len(report.claims)} claims verified")
    return "\n".join(lines)


def report_json(report: Report) -> Dict[str, Any]:
    return {
        "file": report.file,
        "ok": succeeded(report),
        "claims": [{
            "name": c.name,
            "claim": c.claim,
            "verdict": c.verdict,
            "guarantee": c.guarantee,
            "disputed": c.disputed,
            "failure": c.failure,
            "failure_span": str(c.failure_span) if c.failure_span else None,
            "code": c.code,
            "confirmation": c.confirmation.to_json() if c.confirmation else None,
            "obligations": c.counts(),
            "derivation_size": c.derivation.size() if c.derivation else 0,
            "seconds": round(c.seconds, 4),
            "failing": [c.results[i].to_json() for i in c.failing],
        } for c in report.claims],
    }


__all__ = ["add_arguments", "run", "render", "report_json", "sys"]
