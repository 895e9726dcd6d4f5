"""What a shifted coupling of two Laplace releases says about the values ``run`` releases.

``lapMech (eps, v)`` releases ``g * round ((v + Z) / g)`` for an exact draw ``Z`` of
``Lap (1 / eps)``, on the grid ``g = 2 ^ min (floor (log2 (1 / eps)) - 40, 0)`` of its scale
(``noise.laplace_exact``, ``noise.grid``, docs/noise.md). The general Lap rule couples the exact
draws ``w<2> = w<1> + k`` (LapMech-Shift); the released values are then
``x<1> = round_g (w<1>)`` and ``x<2> = round_g (w<1> + k)``, which are ``k`` apart only when
``g`` divides ``k``: two centres ``2^-41`` apart coupled by the identity of the noise
(``k = v<2> - v<1>``) release values on disjoint sets. What holds for every draw, and all a
derivation may assume, is the pair of facts the rounding gives: it is monotone, and it commutes
with adding an integer ``n`` (the grid is at most 1, so it divides every integer). So, for each
``n`` of ``SHIFTS``: ``k <= n => x<2> <= x<1> + n`` and ``k >= n => x<2> >= x<1> + n``. An
integer shift in ``SHIFTS`` gives ``x<2> = x<1> + k`` exactly; the comparisons of the sparse
vector technique and Report Noisy Max (``x<2> <= x<1> + 1`` for centres within 1 under the
identity of the noise) follow too.

Shared, like ``whilelogic.grid_axioms`` (the while-language's version of the same facts), by
the functional builder (``verifier.rules.mechanism_rules``) and kernel (``checker.mechanisms``),
which must assume the same of a release.
"""
from __future__ import annotations

from typing import List

from obligations import terms as T

#: the integer translations the facts are stated for
SHIFTS = (-2, -1, 0, 1, 2)


def shifted_release_facts(x1: T.Term, x2: T.Term, k: T.Term) -> List[T.Term]:
    """What run 2's release ``x2`` of ``lapMech (eps, v<2>)`` is known to be, given run 1's
    ``x1`` of ``lapMech (eps, v<1>)`` and the exact draws coupled by ``w<2> = w<1> + k``
    (module docstring): never ``x2 = x1 + k`` outright."""
    out: List[T.Term] = []
    for n in SHIFTS:
        for rel in (T.le, T.ge):
            out.append(T.implies(rel(k, T.real(n)), rel(x2, T.add(x1, T.real(n)))))
    return out
