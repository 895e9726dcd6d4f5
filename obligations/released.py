"""What a shifted coupling of two Laplace releases says about the values ``run`` releases.

``lapMech (eps, v)`` releases ``g * round ((v + Z) / g)`` for an exact draw ``Z`` of
``Lap (1 / eps)``, on the grid ``g = 2 ^ (floor (log2 (1 / eps)) - 40)`` of its scale
(``noise.laplace_exact``, docs/noise.md). The general Lap rule couples the exact draws
``w<2> = w<1> + k`` (LapMech-Shift); the released values are then ``x<1> = round_g (w<1>)`` and
``x<2> = round_g (w<1> + k)``, which are ``k`` apart only when ``g`` divides ``k``: two centres
``2^-41`` apart coupled by the identity of the noise (``k = v<2> - v<1>``) release values on
disjoint sets, and at a scale of ``2^42`` (``g = 4``) even a shift by 1 does. What holds for
every draw, and all a derivation may assume, is the pair of facts the rounding gives: it is
monotone, and it commutes with adding an integer ``n`` when ``g`` divides 1, i.e. when the scale
is below ``2^40``. So, for each ``n`` of ``SHIFTS``:
``k <= n => x<2> <= x<1> + n`` and ``k >= n => x<2> >= x<1> + n`` (``n = 0``: monotonicity alone;
otherwise under ``1 / eps < 2^40``). An integer shift in ``SHIFTS`` at such a scale gives
``x<2> = x<1> + k`` exactly; the comparisons of the sparse vector technique and Report Noisy
Max (``x<2> <= x<1> + 1`` for centres within 1 under the identity of the noise) follow too.

Shared, like ``whilelogic.grid_axioms`` (the while-language's version of the same facts), by
the functional builder (``verifier.rules.mechanism_rules``) and kernel (``checker.mechanisms``),
which must assume the same of a release.
"""
from __future__ import annotations

from typing import List

from obligations import terms as T

#: the released values of a scale below this are on a grid that divides 1
GRID_UNIT_SCALE = 2 ** 40
#: the integer translations the facts are stated for
SHIFTS = (-2, -1, 0, 1, 2)


def shifted_release_facts(x1: T.Term, x2: T.Term, k: T.Term, eps: T.Term) -> List[T.Term]:
    """What run 2's release ``x2`` of ``lapMech (eps, v<2>)`` is known to be, given run 1's
    ``x1`` of ``lapMech (eps, v<1>)`` and the exact draws coupled by ``w<2> = w<1> + k``
    (module docstring): never ``x2 = x1 + k`` outright."""
    fine = T.lt(T.div(T.real(1), eps), T.real(GRID_UNIT_SCALE))
    out: List[T.Term] = []
    for n in SHIFTS:
        for rel in (T.le, T.ge):
            premise = rel(k, T.real(n)) if n == 0 else T.and_(fine, rel(k, T.real(n)))
            out.append(T.implies(premise, rel(x2, T.add(x1, T.real(n)))))
    return out
