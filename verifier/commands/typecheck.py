"""``privinfer typecheck FILE``: simply type a file and print each top-level ``let``'s type.

Output: one ``name : type`` line per top-level ``let``, in declaration order, polymorphic
types with ``'a``, ``'b``, ... (``score : 'a * 'a -> real``). Errors are ``PrivInferError``s
(the command line prints them and exits 2).
"""
from __future__ import annotations

import argparse

from verifier.language.parser import parse_file
from verifier.language.typecheck import typecheck_program
from verifier.language.whilelang import is_while_file


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", help="a .pinf program")


def run(args: argparse.Namespace) -> int:
    if is_while_file(args.file):
        from verifier.aprhl import commands
        return commands.typecheck(args)
    program = parse_file(args.file)
    typed = typecheck_program(program)
    for decl in program.lets():
        print(f"{decl.name} : {typed.scheme_of(decl)}")
    return 0
