"""``privinfer bench [--filter PATTERN] [--repeat N] [--out DIR] [--programs DIR] [--json]``:
run the benchmark suite.

Verifies every selected program of the suite (``benchmarks/programs/`` by default), compares
each outcome with the expectation in the program's header, writes ``DIR/results.json`` and
``DIR/results.md`` (``benchmarks/results/`` by default) and prints a summary with the totals
(or, with ``--json``, the results document). A progress bar is shown on standard error when it
is a terminal. The work is done by ``benchmarks.runner``.

Exit 0 when every outcome matches its expectation, 1 when some verdict or listed guarantee
differs (or a program cannot be verified at all), 2 on bad arguments (no program selected).
"""
from __future__ import annotations

import argparse
import json
from pathlib import Path

from benchmarks import runner
from verifier.errors import Diagnostic, PrivInferError
from verifier.output_paths import check_output_dir


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {value}")
    return value


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--filter", metavar="PATTERN", action="append", default=[],
                        help="run only the programs whose path under the suite (e.g. "
                             "classic/noisy_sum.pinf) contains PATTERN, or matches it as a "
                             "glob when it has * ? or [ (repeatable: any pattern selects)")
    parser.add_argument("--repeat", metavar="N", type=_positive_int, default=1,
                        help="verify each program N times and report the median time "
                             "(default 1)")
    parser.add_argument("--out", metavar="DIR", type=Path, default=None,
                        help="where to write results.json and results.md (default "
                             "benchmarks/results/ for a run of the whole suite; a run with "
                             "--filter writes them only when --out is given)")
    parser.add_argument("--programs", metavar="DIR", type=Path, default=runner.PROGRAMS,
                        help="the suite's root folder (default benchmarks/programs/)")
    parser.add_argument("--json", action="store_true",
                        help="print the results document instead of the summary")
    parser.add_argument("--no-check", action="store_true",
                        help="do not write and check certificates (no check-time column)")
    parser.add_argument("--no-audit", action="store_true",
                        help="skip the exact privacy audits (privinfer audit) of the programs "
                             "they apply to")


def run(args: argparse.Namespace) -> int:
    if not args.programs.is_dir():
        raise PrivInferError(Diagnostic("U001", f"{args.programs} is not a folder of "
                                                "benchmark programs"))
    out = args.out if args.out is not None or args.filter else runner.RESULTS
    if out is not None:
        check_output_dir(out, "--out")
    try:
        result = runner.run_suite(
            args.programs, filters=args.filter, repeat=args.repeat,
            certifier=None if args.no_check else runner.certify_and_check,
            auditor=None if args.no_audit else runner.exact_audits)
    except runner.NoPrograms as exc:
        raise PrivInferError(Diagnostic("U002", str(exc))) from None
    written = runner.write_results(result, out) if out is not None else ()
    if args.json:
        print(json.dumps(result.to_json(), indent=2, ensure_ascii=False))
    else:
        print(runner.summary_text(result, written))
    return 0 if result.ok else 1


__all__ = ["add_arguments", "run"]
