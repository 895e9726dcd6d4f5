"""The lemma library of privinfer (see docs/lemmas.md).

Obligations that are not plain arithmetic — conjugacy, bounds on divergences between
posteriors, the guarantees of the mechanisms — are discharged by lemmas. Each lemma is a
statement over typed parameters with explicit hypotheses, a source, a status (``proved``,
``literature``, ``disputed``) and a proof artifact that ``lemmas.artifacts.recheck``
re-checks mechanically (sympy, Z3, Arb ball arithmetic; never floating point).

Importing ``lemmas`` costs nothing; the registry registers the built-in library when it is first
used. Main entry points:

* ``lemmas.get(id)``, ``lemmas.all_lemmas()``, ``lemmas.register(lemma)`` (``lemmas.registry``);
* ``Lemma.instantiate(mapping)`` -> ``LemmaInstance`` (``lemmas.core``);
* ``lemmas.artifacts.recheck(artifact)`` and ``lemmas.checking.check_library()``;
* certified evaluators in ``lemmas.closed_forms`` (without sympy) and ``lemmas.divergences``;
* exact conjugate updates and ``posteriors`` in ``lemmas.conjugacy``;
* ``lemmas.extend.add_conjugate_pair`` to add a conjugate pair.
"""
from __future__ import annotations

import importlib
from typing import Any

#: The package's API and the module each name is read from. Nothing is imported until a name is
#: used (PEP 562): ``lemmas.closed_forms`` and ``lemmas.balls`` work without sympy, and the
#: registry registers the built-in library when it is first used.
_API = {
    "ArtifactBuilder": "lemmas.core", "Lemma": "lemmas.core", "LemmaInstance": "lemmas.core",
    "Parameter": "lemmas.core",
    **{name: "lemmas.registry" for name in (
        "DuplicateLemmaError", "LemmaFamily", "UnknownLemmaError", "all_lemmas", "families",
        "get", "ids", "register", "register_lazy")},
}

__all__ = sorted(_API)


def __getattr__(name: str) -> Any:
    if name in _API:
        value = getattr(importlib.import_module(_API[name]), name)
    elif not name.startswith("__"):
        try:  # a submodule: ``import lemmas; lemmas.checking.check_library()``
            value = importlib.import_module(f"{__name__}.{name}")
        except ModuleNotFoundError as exc:
            if exc.name != f"{__name__}.{name}":
                raise
            raise AttributeError(f"module {__name__!r} has no attribute {name!r}") from None
    else:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(_API))
