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
import sys

from verifier.errors import PrivInferError
from verifier.output_paths import check_output_dir, check_output_file, source_name
from verifier.language.parser import parse_file, parse_program
from verifier.language.source import read_source
from verifier.language.typecheck import typecheck_program
from verifier.language.whilelang import is_while_file
from verifier.report import render, report_json, succeeded
from verifier.verification import verify_program


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


__all__ = ["add_arguments", "run", "render", "report_json", "sys"]
