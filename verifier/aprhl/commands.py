"""The ``privinfer`` sub-commands on ``.pwhile`` files (the command modules dispatch here on
the file's kind: ``whilelang.is_while_file``)."""
from __future__ import annotations

import json
import sys
from typing import Any, Dict, List

from verifier.errors import PrivInferError, error
from verifier.language import whilelang as W


def parse(args) -> int:
    sys.stdout.write(W.pretty_while_program(W.parse_while_file(args.file)))
    return 0


def typecheck(args) -> int:
    prog = W.parse_while_file(args.file)
    W.check_program(prog)  # a type error raises
    for p in prog.procs:
        params = " -> ".join(W.show_type(W.wtype_simple(q.type)) for q in p.params) or "unit"
        print(f"{p.name} : {params} -> {W.show_type(W.wtype_simple(p.ret))}")
    return 0


def run(args) -> int:
    from verifier.aprhl.run import Evaluator, check_ranges, format_value, read_argument, to_json
    from verifier.semantics.entry import _noise_source
    prog = W.parse_while_file(args.file)
    types = W.check_program(prog)
    proc = prog.proc(args.entry)
    if proc is None:
        raise error("R004", f"{args.file} has no procedure {args.entry} (it has: "
                    f"{', '.join(p.name for p in prog.procs) or 'none'})")
    if getattr(args, "dist", False):
        raise error("R003", "run --dist: a while-program's Laplace output has no exact finite "
                    "distribution to print; sample it instead")
    values: Dict[str, Any] = {}
    expected = ", ".join(f"{p.name} : {p.type}" for p in proc.params)
    for spec in args.arg:
        name, sep, text = spec.partition("=")
        name = name.strip()
        if not sep:
            raise error("R005", f"--arg {spec!r} is not NAME=VALUE (parameters: {expected})")
        param = next((p for p in proc.params if p.name == name), None)
        if param is None:
            raise error("R005", f"{proc.name} has no parameter {name} (parameters: {expected})")
        if name in values:
            raise error("R005", f"--arg {name} given twice")
        values[name] = read_argument(text, name, W.wtype_simple(param.type))
    for spec in args.data:
        name, sep, rest = spec.partition("=")
        param = next((p for p in proc.params if p.name == name.strip()), None)
        if not sep or param is None or param.type.base != "list":
            raise error("R005", f"--data {spec!r}: expected LIST_PARAMETER=FILE.csv:COLUMN "
                        f"(parameters: {expected})")
        if param.name in values:
            raise error("R005", f"--data {param.name}: given twice")
        values[param.name] = _column(param, rest)
    missing = [p.name for p in proc.params if p.name not in values]
    if missing:
        raise error("R005", f"missing value for {', '.join(missing)} (parameters: {expected})")
    check_ranges(proc, values)
    source = _noise_source(args.seed)
    from verifier.run_conditions import enforce, while_violation
    try:
        enforce(while_violation(proc, values), proc.name, bool(source.releasable))
    except PrivInferError as exc:
        exc.source = prog.source
        raise
    if args.seed is not None:
        print(f"warning: --seed {args.seed} makes the noise reproducible: this output must not be released",
              file=sys.stderr)
    try:
        value = Evaluator(proc, types[proc.name], source).run(values)
    except PrivInferError as exc:
        if exc.source is None:
            exc.source = prog.source
        raise
    if args.json:
        print(json.dumps({"entry": proc.name, "value": to_json(value), "printed": format_value(value),
                          "kind": "sample", "releasable": bool(source.releasable),
                          "source": source.description}))
    else:
        print(format_value(value))
    return 0


def _column(param: W.Param, spec: str) -> List[Any]:
    from fractions import Fraction
    from verifier.semantics import entry as R
    from verifier.language import types as ty
    from verifier.language.ast import Span
    path, sep, column = spec.rpartition(":")
    if not sep or not path or not column:
        raise error("R005", f"--data {param.name}: {spec!r} is not of the form FILE.csv:COLUMN")
    elem = {"int": ty.INT, "real": ty.REAL, "bool": ty.BOOL}.get(param.type.elem.simple)
    if elem is None:
        raise error("R005", f"--data {param.name}: lists of lists cannot be read from CSV")
    try:
        with open(path, newline="", encoding="utf-8-sig") as handle:
            text = handle.read()
    except (OSError, UnicodeDecodeError) as exc:
        raise error("U001", f"--data {param.name}: cannot read {path}: "
                    f"{getattr(exc, 'strerror', None) or exc}") from None
    where = f"--data {param.name}"
    out = []
    for line, col, cell in R._column_cells(text, path, column.strip(), elem, where):
        v = R._parse_cell(cell, elem, Span(path, line, col, line, col + max(1, len(cell))), where)
        out.append(Fraction(v) if elem == ty.REAL else v)
    return out


def verify_file(path: str, only=None):
    """The reports of every specified procedure of the file, and whether all are verified."""
    from verifier.aprhl.verify import verify_proc
    from obligations.smtlib import Z3Session
    prog = W.parse_while_file(path)
    types = W.check_program(prog)
    if only:
        unknown = [n for n in only if prog.proc(n) is None]
        if unknown:
            raise error("V006", f"no procedure {', '.join(unknown)} in {path}")
    session = Z3Session()
    reports = [verify_proc(p, types[p.name], session=session) for p in prog.procs
               if p.spec is not None and (not only or p.name in only)]
    return reports, bool(reports) and all(r.verdict == "verified" for r in reports)


def verify(args) -> int:
    from verifier.aprhl.verify import verify_proc
    from verifier.aprhl.report import render, report_json, write_dot
    prog = W.parse_while_file(args.file)
    types = W.check_program(prog)
    only = getattr(args, "only", None)
    reports = []
    from obligations.smtlib import Z3Session
    session = Z3Session()
    for p in prog.procs:
        if p.spec is None or (only and p.name not in only):
            continue
        reports.append(verify_proc(p, types[p.name], session=session))
    if only:
        unknown = [n for n in only if prog.proc(n) is None]
        if unknown:
            raise error("V006", f"no procedure {', '.join(unknown)} in {args.file}")
    ok = bool(reports) and all(r.verdict == "verified" for r in reports)
    if getattr(args, "certificate", None):
        from checker.aprhl_certify import certificate
        from verifier.output_paths import source_name
        with open(args.certificate, "w", encoding="utf-8") as out:
            json.dump(certificate(prog, reports, source_name(args.file)), out, indent=1)
    if getattr(args, "smtlib", None):
        from obligations.smtlib import write_smtlib_dir
        unique = {ob.id: ob for r in reports for ob in r.obligations}
        write_smtlib_dir(unique.values(), args.smtlib)
    if args.json:
        print(json.dumps(report_json(args.file, reports, ok), indent=2))
    else:
        print(render(args.file, reports, explain=args.explain))
    if getattr(args, "dot", None):
        write_dot(reports, args.dot)
    return 0 if ok else 1
