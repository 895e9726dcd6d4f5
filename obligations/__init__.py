"""Proof obligations: a typed term language, the obligation data model, and their discharge.

* ``obligations.terms``: sorts, terms, smart constructors, printing, JSON;
* ``obligations.model``: ``Obligation``, ``Result`` and their parts;
* ``obligations.z3_backend``: ``discharge`` with z3 (fresh solver, rlimit, re-checked cores,
  confirmed counterexamples);
* ``obligations.smtlib``: standalone SMT-LIB 2 scripts and ``check_smtlib`` (z3 or cvc5);
* ``obligations.encoding`` / ``obligations.evaluate``: the shared lowering (with the facts
  about pi, sqrt, exp and log) and the rigorous evaluator used to confirm counterexamples.

See docs/obligations.md.
"""
from obligations.encoding import PI_LOWER, PI_UPPER, Problem, encode, parse_symbol
from obligations.model import (Binding, LemmaUse, Named, Obligation, ObligationKind, Provenance,
                               Result, SourceSpan, Verdict)
from obligations.smtlib import (DEFAULT_CVC5_RLIMIT, SmtLibError, check_smtlib, to_smtlib,
                                write_smtlib_dir)
from obligations.terms import (BOOL, FALSE, INT, REAL, TRUE, Apply, Const, FuncDecl, Op, OpKind,
                               Quantifier, Sort, SortError, Term, Var, Vocabulary, abs_, add,
                               and_, boolean, div, eq, exists, exp, forall, free_vars, ge, gt,
                               implies, integer, ite, le, lift, log, lt, max_, min_, mul, ne, neg,
                               not_, or_, pi, pretty, real, sqrt, sub, substitute,
                               term_from_json, term_to_json, to_real, uninterpreted_sort, var,
                               vocabulary_of)
from obligations.z3_backend import DEFAULT_RLIMIT, discharge

__all__ = [
    # terms
    "Sort", "REAL", "INT", "BOOL", "uninterpreted_sort", "FuncDecl", "Vocabulary", "SortError",
    "Term", "Const", "Var", "Op", "OpKind", "Apply", "Quantifier", "TRUE", "FALSE",
    "integer", "real", "boolean", "var", "lift", "add", "sub", "mul", "div", "neg", "abs_",
    "min_", "max_", "to_real", "pi", "sqrt", "exp", "log", "eq", "ne", "lt", "le", "gt", "ge",
    "and_", "or_", "not_", "implies", "ite", "forall", "exists", "free_vars", "substitute",
    "vocabulary_of", "pretty", "term_to_json", "term_from_json",
    # model
    "ObligationKind", "Named", "SourceSpan", "Provenance", "LemmaUse", "Obligation",
    "Verdict", "Binding", "Result",
    # discharge and export
    "discharge", "DEFAULT_RLIMIT", "to_smtlib", "check_smtlib", "write_smtlib_dir",
    "SmtLibError", "DEFAULT_CVC5_RLIMIT", "encode", "Problem", "parse_symbol",
    "PI_LOWER", "PI_UPPER",
]
