"""The members of ``posteriors (prior, n)``: what a candidate drawn from that list is.

LANGUAGE.md defines ``posteriors (beta (a, b), n)`` as the list of ``beta (a + k, b + n - k)``
for k = 0..n, and ``posteriors (dirichlet (a1, ..., am), n)`` as the list of
``dirichlet (a1 + c1, ..., am + cm)`` for every count vector ``c`` of naturals summing to n
(lemmas ``posteriors.members.beta`` and ``posteriors.members.dirichlet/k=M``). A member drawn
from the list is named by a fresh ``Dist`` variable ``r``, fresh real parameters ``p`` and
fresh integer counts, and the *member facts* say what it is: ``0 <= k``, ``k <= n`` (Dirichlet:
``c_i >= 0``, ``c1 + ... + cm = n``), ``p1 = a + k``, ``p2 = b + n - k`` (``p_i = a_i + c_i``)
and ``r = beta (p1, p2)``.

The ExpMech rule (``verifier.rules.mechanism_rules``) and the Safety walk draw candidates
from such a list with these facts; the certificate kernel (``checker.kernel``) rebuilds them
from the candidate list's term and the variables recorded at the ExpMech node, so both sides
build them here. This module imports nothing but ``obligations``.
"""
from __future__ import annotations

from typing import Optional, Sequence, Tuple

from obligations import terms as T
from obligations import vocabulary as V
from obligations.records import record


#: the largest Dirichlet whose members' lemma the library builds
#: (``posteriors.members.dirichlet/k=2..64``); a larger prior's candidates stay opaque
MAX_CATEGORIES = 64


@record
class Conjugate:
    """A candidate list ``posteriors (prior, n)`` whose prior is of a known family:
    ``family`` (``beta`` or ``dirichlet``), the prior's parameters and ``n``."""

    family: str
    prior: Tuple[T.Term, ...]
    n: T.Term

    @property
    def arity(self) -> int:
        """How many counts a member has: 1 for a Beta, m for a Dirichlet over m categories."""
        return 1 if self.family == "beta" else len(self.prior)

    @property
    def lemma(self) -> str:
        """The library lemma that every member of the list has the form ``facts`` states."""
        if self.family == "beta":
            return "posteriors.members.beta"
        return f"posteriors.members.dirichlet/k={len(self.prior)}"

    def params(self, counts: Sequence[T.Term]) -> Tuple[T.Term, ...]:
        """The parameters of the member with ``counts``: ``(a + k, b + n - k)`` for a Beta,
        ``(a1 + c1, ..., am + cm)`` for a Dirichlet (Reals)."""
        self._check(counts)
        if self.family == "beta":
            (k,), (a, b) = counts, self.prior
            return T.add(a, k), T.sub(T.add(b, self.n), k)
        return tuple(T.add(a, c) for a, c in zip(self.prior, counts))

    def facts(self, member: T.Term, params: Sequence[T.Term],
              counts: Sequence[T.Term]) -> Tuple[T.Term, ...]:
        """What is known of a member ``member`` of the list, named with fresh ``params`` (its
        parameters) and fresh ``counts``: the counts are those of a member (``0 <= k``,
        ``k <= n`` for a Beta; ``c_i >= 0`` and ``c1 + ... + cm = n`` for a Dirichlet), each
        parameter is the prior's plus its count (``p1 = a + k``, ``p2 = b + n - k``), and
        ``member`` is the distribution of the family with those parameters."""
        values = self.params(counts)
        if len(params) != len(values) or any(p.sort != T.REAL for p in params) \
                or member.sort != V.DIST:
            raise T.SortError(f"a member of posteriors over a {self.family} prior is a Dist "
                              f"with {len(values)} real parameters")
        if self.family == "beta":
            (k,) = counts
            ranges: Tuple[T.Term, ...] = (T.ge(k, 0), T.le(k, self.n))
        else:
            ranges = tuple(T.ge(c, 0) for c in counts) + (T.eq(T.add(*counts), self.n),)
        return ranges + tuple(T.eq(p, v) for p, v in zip(params, values)) + (
            T.eq(member, V.dist_ctor(self.family, tuple(params))),)

    def _check(self, counts: Sequence[T.Term]) -> None:
        if len(counts) != self.arity or any(c.sort != T.INT for c in counts):
            raise T.SortError(f"a member of posteriors over a {self.family} prior has "
                              f"{self.arity} integer count(s)")


def conjugate(candidates: T.Term) -> Optional[Conjugate]:
    """``candidates`` as ``posteriors (prior, n)`` with a Beta or Dirichlet prior given by its
    constructor (``beta (a, b)``, ``uniform ()`` = ``beta (1, 1)``, ``dirichlet (a1, ...)``);
    None for any other list (whose members stay opaque)."""
    if not (isinstance(candidates, T.Apply) and len(candidates.args) == 2):
        return None
    prior, n = candidates.args
    if prior.sort != V.DIST or n.sort != T.INT or candidates != V.posteriors_list(prior, n):
        return None
    if not isinstance(prior, T.Apply) or len(prior.args) < 2:
        return None
    for family in ("beta", "dirichlet"):
        if all(p.sort == T.REAL for p in prior.args) and len(prior.args) <= MAX_CATEGORIES \
                and prior == V.dist_ctor(family, prior.args):
            return Conjugate(family, prior.args, n)
    return None


def literal_members(candidates: T.Term, r: T.Term) -> Tuple[T.Term, ...]:
    """The fact about a candidate ``r`` drawn from a list written out, ``[e1; ...; en]``
    (``cons`` down to ``[]``): ``r`` is one of its entries, ``r = e1 \\/ ... \\/ r = en``
    (what ``expMech`` draws is an entry of its candidate list, LANGUAGE.md). No fact for
    any other list."""
    entries = []
    while isinstance(candidates, T.Apply) and candidates.func.name == "cons":
        entries.append(candidates.args[0])
        candidates = candidates.args[1]
    if not (isinstance(candidates, T.Apply) and candidates.func.name.startswith("nil_")) \
            or not entries or any(e.sort != r.sort for e in entries):
        return ()
    return (T.or_(*[T.eq(r, e) for e in entries]),)
