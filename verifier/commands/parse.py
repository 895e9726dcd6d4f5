"""``privinfer parse FILE``: check the syntax of a file and print it back.

Prints the pretty-printed program (nothing for a file without declarations) and exits 0.
Syntax errors propagate as ``PrivInferError``; the command line reports them (exit 2).
"""
from __future__ import annotations

import argparse
import sys

from verifier.language.parser import parse_file
from verifier.language.pretty import pretty_program
from verifier.language.whilelang import is_while_file


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", metavar="FILE", help="a .pinf source file")


def run(args: argparse.Namespace) -> int:
    if is_while_file(args.file):
        from verifier.aprhl import commands
        return commands.parse(args)
    sys.stdout.write(pretty_program(parse_file(args.file)))
    return 0
