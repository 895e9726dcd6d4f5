"""Where the draws of a distribution lie, as a simple type with ranges, and whether they fit a
written ``D[T]``.

Simple typing erases ranges (``types.from_syntax``): a ``D[real]`` (a ``normal``) flows where a
``D[[0,1]]`` is written, a ``D[[5]]`` where a ``D[[3]]`` is. A val's parameter or result of type
``D[T]`` with ranges says more than its simple type: its draws are values of ``T``. That is a
range condition like any other (``verifier.translation.logic.range_facts``: the predicate
``within'T (d)``), shown of a distribution of a known family by its support (``fits``), and
checked by ``run`` of an entry's distribution argument (``evaluator.check_annotation``).
"""
from __future__ import annotations

from typing import Optional

from verifier.language import ast as A

#: the support of the families whose draws do not depend on the number of their parameters
_SUPPORT = {"beta": A.TBase("[0,1]"), "uniform": A.TBase("[0,1]"),
            "bernoulli": A.TBase("bool"), "normal": A.TBase("real")}


def family_support(family: str, k: int) -> Optional[A.SimpleType]:
    """The type of the draws of a distribution of ``family`` with ``k`` parameters (a
    categorical's probabilities, a dirichlet's concentrations); None for an unknown family."""
    if family in _SUPPORT:
        return _SUPPORT[family]
    if family == "categorical":
        return A.TFin(k)
    if family == "dirichlet":
        return A.TSimplex(k)
    return None


def says_ranges(t: Optional[A.SimpleType]) -> bool:
    """Whether ``t`` says more of a value than its erased simple type (a range of a scalar, of
    list elements, of tuple components, a simplex point, the draws of a ``D[T]``)."""
    if isinstance(t, (A.TFin, A.TSimplex)):
        return True
    if isinstance(t, A.TBase):
        return t.name in ("nat", "real+", "real+inf", "[0,1]")
    if isinstance(t, (A.TList, A.TDist)):
        return says_ranges(t.elem)
    if isinstance(t, A.TTuple):
        return any(says_ranges(i) for i in t.items)
    return False


_WIDER = {"nat": ("int", "real"), "int": ("real",), "[0,1]": ("real",), "real+": ("real", "real+inf"),
          "real+inf": ("real",), "bool": (), "real": (), "unit": ()}


def fits(support: Optional[A.SimpleType], want: A.SimpleType) -> bool:
    """Every value of ``support`` is a value of ``want`` (conservatively: False when unsure)."""
    if support is None:
        return False
    if isinstance(want, A.TBase) and isinstance(support, A.TBase):
        return want.name == support.name or want.name in _WIDER.get(support.name, ())
    if isinstance(support, A.TFin):
        if isinstance(want, A.TFin):
            return support.k <= want.k
        return isinstance(want, A.TBase) and want.name in ("nat", "int", "real")
    if isinstance(support, A.TSimplex):
        return isinstance(want, A.TSimplex) and want.k == support.k or \
            isinstance(want, A.TTuple) and len(want.items) == support.k and all(
                fits(A.TBase("[0,1]"), i) for i in want.items)
    if isinstance(support, A.TTuple) and isinstance(want, A.TTuple):
        return len(support.items) == len(want.items) and all(
            fits(s, w) for s, w in zip(support.items, want.items))
    if isinstance(support, A.TList) and isinstance(want, A.TList):
        return fits(support.elem, want.elem)
    if isinstance(support, A.TDist) and isinstance(want, A.TDist):
        return fits(support.elem, want.elem)
    return False
