"""Why an obligation failed: the hypothesis of a lemma that the context does not give.

Many axioms of an obligation are instances of lemmas with hypotheses (``obligations.schemas``):
``near (Beta (a1, b1), Beta (a2, b2)) ==> hellinger (...) <= sqrt (1 - pi/4)`` holds only for
priors whose parameters are at least 1 (NOTES.md §1), ``adj (l1, l2) ==> |count l1 - count l2|
<= 1`` only for adjacent lists. When an obligation is not proved, ``lacking_hypothesis`` asks
whether one such axiom would prove it *without* its hypothesis: the obligation with that axiom
replaced by its conclusion alone. If that variant is valid, the failure is the hypothesis, and
the diagnosis names it and the lemma it belongs to.

The variant is a question, never a proof: its answer only chooses the words of a failure
(diagnostic V004), and no verdict depends on it.
"""
from __future__ import annotations

import re
from typing import Optional, Tuple

from obligations import terms as T
from obligations.model import Named, Obligation, Verdict
from obligations.records import replace
from obligations.schemas import SCHEMAS

_AXIOM = re.compile(r"ax_(?P<schema>[a-z]+)_[0-9]+\Z")


def lacking_hypothesis(ob: Obligation, session=None,
                       rlimit: Optional[int] = None) -> Optional[Tuple[str, str, str]]:
    """(schema statement, lemma ids, what the hypothesis says) of the first axiom ``P ==> C``
    of ``ob`` from a schema with a lemma hypothesis (``Schema.hypothesis``) such that ``ob``
    with ``C`` in place of that axiom is proved; None when there is none."""
    from obligations.z3_backend import discharge
    for i, axiom in enumerate(ob.axioms):
        match = _AXIOM.match(axiom.name)
        term = axiom.term
        schema = SCHEMAS.get(match.group("schema")) if match else None
        if schema is None or schema.hypothesis is None \
                or not (isinstance(term, T.Op) and term.op == T.OpKind.IMPLIES):
            continue
        premise, conclusion = term.args
        axioms = ob.axioms[:i] + (Named(axiom.name, conclusion),) + ob.axioms[i + 1:]
        variant = replace(ob, id=None, axioms=axioms)
        kwargs = {"rlimit": rlimit} if rlimit else {}
        if discharge(variant, confirm=False, session=session, **kwargs).verdict \
                == Verdict.VERIFIED:
            lemmas = schema.lemmas if isinstance(schema.lemmas, tuple) else ()
            return (schema.statement, ", ".join(l.replace("/k={k}", "") for l in lemmas),
                    schema.hypothesis)
    return None
