"""The lemma library of privinfer (see docs/lemmas.md).

Obligations that are not plain arithmetic — conjugacy, bounds on divergences between
posteriors, the guarantees of the mechanisms — are discharged by lemmas. Each lemma is a
statement over typed parameters with explicit hypotheses, a source, a status (``proved``,
``literature``, ``disputed``) and a proof artifact that ``lemmas.artifacts.recheck``
re-checks mechanically (sympy, Z3, Arb ball arithmetic; never floating point).

Importing ``lemmas`` registers the built-in library. Main entry points:

* ``lemmas.get(id)``, ``lemmas.all_lemmas()``, ``lemmas.register(lemma)`` (``lemmas.registry``);
* ``Lemma.instantiate(mapping)`` -> ``LemmaInstance`` (``lemmas.core``);
* ``lemmas.artifacts.recheck(artifact)`` and ``lemmas.checking.check_library()``;
* certified evaluators in ``lemmas.closed_forms`` and ``lemmas.divergences``;
* exact conjugate updates and ``posteriors`` in ``lemmas.conjugacy``;
* ``lemmas.extend.add_conjugate_pair`` to add a conjugate pair.
"""
from __future__ import annotations

from lemmas.core import ArtifactBuilder, Lemma, LemmaInstance, Parameter
from lemmas.registry import (DuplicateLemmaError, LemmaFamily, UnknownLemmaError, all_lemmas,
                             families, get, ids, register, register_lazy)

from lemmas import library as _library

_library.register_builtin()

__all__ = ["ArtifactBuilder", "Lemma", "LemmaInstance", "Parameter", "DuplicateLemmaError",
           "LemmaFamily", "UnknownLemmaError", "all_lemmas", "families", "get", "ids", "register",
           "register_lazy"]
