"""The ``privinfer`` command line.

Each sub-command lives in ``verifier/commands/<name>.py`` and exposes two functions:
``add_arguments(parser)`` and ``run(args) -> int``. This module only dispatches, and turns
every ``PrivInferError`` into printed diagnostics and exit status 2.

Exit statuses: 0 success; 1 a negative answer (a claim refuted or unknown, a certificate
invalid, a benchmark verdict differing from its expectation); 2 bad input; 3 an internal
error (a bug: please report it — set ``PRIVINFER_DEBUG=1`` for the traceback).
"""
from __future__ import annotations

import argparse
import importlib
import os
import sys
import threading
from typing import List, Optional

from verifier.errors import PrivInferError, error

#: sub-command name -> (module under verifier.commands, one-line help)
COMMANDS = {
    "parse": ("parse", "parse a file and print it back (checks the syntax)"),
    "typecheck": ("typecheck", "simply type a file and print each declaration's type"),
    "run": ("run", "evaluate a declaration on arguments and data"),
    "verify": ("verify", "prove the val claims of a file"),
    "check": ("check", "re-check a certificate with the independent kernel"),
    "lemmas": ("lemmas", "list the lemma library and re-check its proofs"),
    "bench": ("bench", "run the benchmark suite"),
    "audit": ("audit", "exact privacy audit of a finite program"),
    "fuzz": ("fuzz", "check the verifier against the exact semantics on random programs"),
    "experiment": ("experiment", "reproduce the poster's accuracy experiments"),
}

EXIT_OK, EXIT_NEGATIVE, EXIT_INPUT, EXIT_INTERNAL = 0, 1, 2, 3


def build_parser(selected: Optional[str] = None) -> argparse.ArgumentParser:
    """The argument parser; only the ``selected`` command's module is imported (start-up
    time matters: importing every command would load numpy, sympy and matplotlib)."""
    parser = argparse.ArgumentParser(
        prog="privinfer",
        description="Verify and run differentially private Bayesian programs (PrivInfer).",
    )
    parser.add_argument("--version", action=_Version, nargs=0, help="print the version and exit")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, (module_name, help_text) in COMMANDS.items():
        if name != selected:
            sub.add_parser(name, help=help_text, description=help_text)
            continue
        module = _load(module_name)
        if module is None:
            continue
        p = sub.add_parser(name, help=help_text, description=help_text)
        module.add_arguments(p)
        p.set_defaults(_module=module)
    return parser


def version() -> str:
    """The installed package's version (``pyproject.toml``), or ``unknown`` when privinfer runs
    from a source tree that was not installed."""
    from importlib import metadata
    try:
        return metadata.version("privinfer")
    except metadata.PackageNotFoundError:
        return "unknown"


class _Version(argparse.Action):
    """``--version``, reading the version only when asked (``importlib.metadata`` costs start-up
    time every command would pay)."""

    def __call__(self, parser, namespace, values, option_string=None):
        print(f"privinfer {version()}")
        parser.exit()


def _load(module_name: str):
    try:
        return importlib.import_module(f"verifier.commands.{module_name}")
    except ModuleNotFoundError as exc:
        if exc.name == f"verifier.commands.{module_name}":
            return None  # command not built yet
        raise


def _dispatch(argv: List[str]) -> int:
    try:
        for arg in argv:  # a shell cannot pass one; a caller of main can, and no path holds one
            if "\x00" in arg:
                raise error("U002", f"the argument {arg!r} contains a NUL character")
        selected = next((a for a in argv if not a.startswith("-")), None)
        parser = build_parser(selected if selected in COMMANDS else None)
        try:
            args = parser.parse_args(argv)
        except SystemExit as exc:  # argparse prints its own usage message
            code = exc.code if isinstance(exc.code, int) else EXIT_INPUT
            return EXIT_OK if code == 0 else EXIT_INPUT
        if not getattr(args, "command", None) or not hasattr(args, "_module"):
            parser.print_help()
            return EXIT_INPUT
        return int(args._module.run(args))
    except PrivInferError as exc:
        print(exc.render(), file=sys.stderr)
        return EXIT_INPUT
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except RecursionError:
        print("error: the input is nested too deeply for privinfer to process", file=sys.stderr)
        return EXIT_INPUT
    except BrokenPipeError:
        return EXIT_OK
    except OSError as exc:  # the file system refused a read or a write the checks did not foresee
        where = f"{exc.filename}: " if exc.filename else ""
        print(f"error[U003]: {where}cannot read or write: {exc.strerror or exc}", file=sys.stderr)
        return EXIT_INPUT
    except MemoryError:
        print("error: privinfer ran out of memory on this input (lower the sizes asked for)", file=sys.stderr)
        return EXIT_INPUT
    except Exception as exc:  # a bug in privinfer, not in the user's input
        if os.environ.get("PRIVINFER_DEBUG"):
            raise
        print(f"internal error: {type(exc).__name__}: {exc}\n"
              "This is a bug in privinfer; rerun with PRIVINFER_DEBUG=1 for details.",
              file=sys.stderr)
        return EXIT_INTERNAL


def main(argv: Optional[List[str]] = None) -> int:
    """Entry point of the ``privinfer`` console script.

    Runs the command on a thread with a large stack so that deeply nested (but legal)
    programs are processed by the recursive passes without exhausting the C stack.
    """
    if argv is None:
        argv = sys.argv[1:]
    sys.setrecursionlimit(60_000)
    threading.stack_size(512 * 1024 * 1024)
    result: List[int] = [EXIT_INTERNAL]

    def target() -> None:
        result[0] = _dispatch(argv)

    thread = threading.Thread(target=target, name="privinfer-main")
    thread.start()
    thread.join()
    sys.stdout.flush()
    return result[0]


def entry() -> None:
    """The console script: ``main`` then an immediate exit.

    Tearing down the interpreter (z3's contexts and the term stores of a verification) takes
    longer than some verifications, and a command-line process has nothing left to do once
    its output is flushed and its files are closed (every file is written under ``with``).
    ``main`` itself returns normally, for callers that embed it."""
    code = main()
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except BrokenPipeError:
        pass
    os._exit(code)


if __name__ == "__main__":
    entry()
