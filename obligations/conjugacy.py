"""The closed forms of the conjugacy lemmas: the posterior after a list of observations.

``posterior(family, prior, data, variance)`` gives the parameters of the conjugate posterior
of a prior with parameters ``prior`` after observing the list ``data`` with a ``family``
likelihood — the statements of the conjugacy lemmas of the library
(``conj.beta_bernoulli.list``, ``conj.dirichlet_categorical.list/k``, ``conj.normal_normal.list``:
the catalogue's ``CONJUGATE``), written over the list statistics of ``obligations.vocabulary``. Shared by the derivation
builder (``verifier.rules.observe_fold``) and the certificate kernel (``checker.folds``).
"""
from __future__ import annotations

from typing import Optional, Sequence, Tuple

from obligations import terms as T
from obligations import vocabulary as L


def posterior(family: str, params: Sequence[T.Term], data: T.Term,
              variance: Optional[T.Term]) -> Tuple[T.Term, ...]:
    """The parameters of the conjugate posterior of a prior with ``params`` after observing
    the list ``data`` with a ``family`` likelihood (the conjugacy lemmas of ``CONJUGATE``)."""
    if family == "bernoulli":
        a, b = params
        c, n = L.count(data), L.length(data)
        return T.add(a, c), T.sub(T.add(b, n), c)
    if family == "categorical":
        return tuple(T.add(a, L.count_of(data, j)) for j, a in enumerate(params))
    m, v = params
    vn = T.div(1, T.add(T.div(1, v), T.div(L.length(data), variance)))
    return T.mul(vn, T.add(T.div(m, v), T.div(L.total(data), variance))), vn
