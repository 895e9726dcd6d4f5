"""``privinfer run FILE ENTRY [--arg NAME=VALUE]... [--data NAME=FILE.csv:COLUMN]... [--seed N] [--json] [--dist]``

Evaluates the top-level declaration ENTRY of FILE applied to its parameters.

Parameters
==========

Each parameter of ENTRY gets exactly one value, by name (the name in ENTRY's ``let``; a
parameter written as a pattern such as ``(x, y)`` is named ``#i``, its 1-based position, and
every parameter also answers to ``#i``):

* ``--arg NAME=VALUE``: VALUE is an expression in the language's own syntax, evaluated as a
  closed expression with only the built-ins in scope: ``true``, ``-2.5``, ``[true; false]``,
  ``(1.0, 2.0)``, ``beta (1.0, 1.0)``, ``ran (beta (2.0, 3.0))``. An ``int`` given for a
  ``real`` becomes an exact real.
* ``--data NAME=FILE.csv:COLUMN``: a column of a CSV file, by header name or by 0-based index,
  read into a list whose element type is that of the parameter: ``bool`` cells are
  ``true``/``false``/``1``/``0`` (any case), ``[k]`` and ``int`` cells integers (in range),
  ``real`` cells decimals (read exactly: ``0.1`` is 1/10). With a column *name* the first row is
  the header; with an *index* the first row is a header exactly when its cell there is not a
  valid element. Empty lines are skipped; a bad cell is an error at ``file:line:col``.

Values are checked against the parameter's type: the simple type inferred by the type checker,
and the ranges written in ENTRY's ``val`` declaration or in the parameter's annotation
(``real+``, ``nat``, ``[0,1]``, ``[k]``; list elements included). Unknown, duplicate, missing or
ill-typed arguments are R005 errors that list the expected parameters.

Output
======

If the value is an M-value (a distribution ``M[T]``), **one** sample is drawn: that is a release.
``--dist`` prints its exact distribution instead (``infer``; R003 when it has no exact form, e.g.
after Laplace noise). Any other value is printed as it is. Without ``--seed`` the secure noise
source is used; ``--seed N`` uses the reproducible seeded source and warns on stderr that the
output must not be released.

The value is printed in the language's syntax (``beta(12.0, 9.0)``, ``[true; false]``). With
``--json`` one JSON object is printed::

    {"entry": ..., "value": <json>, "printed": "...", "kind": "value" | "distribution" | "sample",
     "releasable": bool, "source": "<noise source description>"}

``releasable`` is true only for a ``sample`` drawn with the secure source: it says the noise was
drawn by the release-grade samplers, not that releasing is private (that is ``verify``'s job).
"""
from __future__ import annotations

import argparse
import json
import sys

from verifier.errors import PrivInferError
from verifier.language.parser import parse_file
from verifier.language.whilelang import is_while_file
from verifier.language.typecheck import typecheck_program
from verifier.run_conditions import functional_check
from verifier.semantics import reals
from verifier.semantics.entry import _noise_source, _with_source, run_program
from verifier.semantics.evaluator import undecided_error


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", help="a .pinf program")
    parser.add_argument("entry", help="the top-level declaration to evaluate")
    parser.add_argument("--arg", action="append", default=[], metavar="NAME=VALUE",
                        help="a parameter's value, in the language's syntax (repeatable)")
    parser.add_argument("--data", action="append", default=[], metavar="NAME=FILE.csv:COLUMN",
                        help="a list parameter read from a CSV column, by header name or 0-based index")
    parser.add_argument("--seed", type=int, default=None,
                        help="reproducible noise for tests: the output must NOT be released")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--dist", action="store_true",
                        help="print the exact distribution of an M-value instead of sampling it")


def run(args: argparse.Namespace) -> int:
    if is_while_file(args.file):
        from verifier.aprhl import commands
        return commands.run(args)
    program = parse_file(args.file)
    typed = typecheck_program(program)
    source = _noise_source(args.seed)
    if args.seed is not None:
        print(f"warning: --seed {args.seed} makes the noise reproducible: this output must not be released",
              file=sys.stderr)
    try:
        result = run_program(program, typed, args.entry, args.arg, args.data, source, args.dist,
                             check=functional_check(program, typed, args.entry))
    except PrivInferError as exc:
        raise _with_source(exc, program) from None
    except reals.Undecided as exc:  # a comparison outside any located context
        raise _with_source(undecided_error(exc, None), program) from None
    if args.json:
        print(json.dumps(result.to_json(), allow_nan=False))
    else:
        print(result.printed)
    return 0
