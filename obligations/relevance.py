"""Which hypotheses an obligation keeps, and how costs add up into a bound.

``relevant`` selects the hypotheses connected to a goal (its cone of influence); dropping
hypotheses can only make an obligation harder, never easier, so the selection is a matter of
*how* an obligation is posed, not of what it proves. ``total`` writes a sum of cost terms
the way Budget obligations state it. Shared by the derivation builder and the certificate
kernel, so that both pose the same obligations.
"""
from __future__ import annotations

from typing import Dict, Iterable, Sequence, Tuple

from obligations import terms as T


def relevant(hyps: Sequence[Tuple[str, T.Term]], goal: T.Term,
             witnesses: Iterable[T.Var] = ()) -> Tuple[Tuple[str, T.Term], ...]:
    """The hypotheses connected to the goal through shared symbols (cone of influence).

    A hypothesis that mentions ``witnesses`` (fresh variables that only say what a drawn
    value is, such as the counts of a member of ``posteriors``) is connected only through
    them: the facts ``0 <= k <= length l`` about a candidate's count k join an obligation
    that mentions k, not every obligation about ``l``.

    Dropping unrelated hypotheses can only make an obligation harder to prove, never easier,
    so this is sound; it keeps obligations small and counterexamples readable.
    """
    def symbols(t: T.Term) -> set:
        out = set()
        for sub in T.subterms(t):
            if isinstance(sub, T.Var):
                out.add(("v", sub.name, sub.run))
            elif isinstance(sub, T.Apply) and not sub.args:
                out.add(("c", sub.func.name))
        return out

    wanted = symbols(goal)
    anchors = {("v", w.name, w.run) for w in witnesses}
    pending = [(n, t, syms, syms & anchors or syms)
               for n, t in hyps for syms in (symbols(t),)]
    chosen: Dict[str, T.Term] = {}
    changed = True
    while changed:
        changed = False
        for n, t, syms, through in pending:
            if n not in chosen and (through & wanted or not syms):
                chosen[n] = t
                wanted |= syms
                changed = True
    return tuple((n, t) for n, t in hyps if n in chosen)


def total(terms: Sequence[T.Term]) -> T.Term:
    """The sum of ``terms``, leaving out constant zeros (0 for none)."""
    parts = [t for t in terms if not (isinstance(t, T.Const) and t.value == 0)]
    if not parts:
        return T.real(0)
    return parts[0] if len(parts) == 1 else T.add(*parts)
