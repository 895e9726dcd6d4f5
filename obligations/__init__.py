"""Proof obligations: a typed term language, the obligation data model, and their discharge.

* ``obligations.terms``: sorts, terms, smart constructors, printing, JSON;
* ``obligations.model``: ``Obligation``, ``Result`` and their parts;
* ``obligations.z3_backend``: ``discharge`` with z3 (fresh solver, rlimit, re-checked cores,
  confirmed counterexamples);
* ``obligations.smtlib``: standalone SMT-LIB 2 scripts and ``check_smtlib`` (z3 or cvc5);
* ``obligations.encoding`` / ``obligations.evaluate``: the shared lowering (with the facts
  about pi, sqrt, exp and log) and the rigorous evaluator used to confirm counterexamples.

See docs/obligations.md. The names of ``__all__`` are imported on first use.
"""
_EXPORTS = {
    "obligations.encoding": (
        "PI_LOWER", "PI_UPPER", "Problem", "encode", "parse_symbol",
    ),
    "obligations.model": (
        "Binding", "LemmaUse", "Named", "Obligation", "ObligationKind", "Provenance", "Result",
        "SourceSpan", "Verdict",
    ),
    "obligations.smtlib": (
        "DEFAULT_CVC5_RLIMIT", "SmtLibError", "check_smtlib", "to_smtlib", "write_smtlib_dir",
    ),
    "obligations.terms": (
        "BOOL", "FALSE", "INT", "REAL", "TRUE", "Apply", "Const", "FuncDecl", "Op", "OpKind",
        "Quantifier", "Sort", "SortError", "Term", "Var", "Vocabulary", "abs_", "add", "and_",
        "boolean", "div", "eq", "exists", "exp", "forall", "free_vars", "ge", "gt", "implies",
        "integer", "ite", "le", "lift", "log", "lt", "max_", "min_", "mul", "ne", "neg", "not_",
        "or_", "pi", "pretty", "real", "sqrt", "sub", "substitute", "term_from_json",
        "term_to_json", "to_real", "uninterpreted_sort", "var", "vocabulary_of",
    ),
    "obligations.z3_backend": (
        "DEFAULT_RLIMIT", "discharge",
    ),
}
_HOME = {name: module for module, names in _EXPORTS.items() for name in names}


def __getattr__(name: str):
    """The names above, imported on first use (PEP 562): ``import obligations.terms``
    does not load the solver back end."""
    module = _HOME.get(name)
    if module is None:
        raise AttributeError(f"module 'obligations' has no attribute {name!r}")
    import importlib
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(_HOME))


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
