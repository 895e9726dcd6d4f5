"""Ground instances of lemmas about the uninterpreted symbols of an obligation.

The schemas and the search that instantiates them live in ``obligations.schemas``, shared
with the certificate kernel (which rebuilds every axiom from its schema and arguments). The
verifier only needs the named terms.
"""
from __future__ import annotations

from typing import Sequence, Tuple

from obligations import terms as T
from obligations.schemas import RHO, SCHEMAS, ZETA, Schema  # noqa: F401  (re-exported)
from obligations.schemas import instantiate as instances


def instantiate(terms: Sequence[T.Term]) -> Tuple[Tuple[str, T.Term], ...]:
    """Named ground axioms about the uninterpreted symbols occurring in ``terms``."""
    return tuple((i.name, i.term) for i in instances(terms))
