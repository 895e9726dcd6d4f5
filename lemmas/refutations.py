"""False statements of the seed paper, and why they cannot be proved.

Lemma 6.1 as the paper states it — for *any* a, b > 0, adjacent data move a Beta(a, b) posterior
by at most rho = sqrt(1 - pi/4) in Hellinger distance — is false (NOTES.md §1):

* ``attempt_lemma_6_1_as_stated()`` builds the natural proof artifact (the corrected general
  bound H <= sqrt(1 - g(a) g(b)) and g(1)^2 = pi/4) with status ``proved``; re-checking it fails,
  because nothing gives g(a) g(b) >= pi/4 for small a, b — Z3 returns a countermodel;
* ``refute_lemma_6_1(a, b)`` evaluates, with certified enclosures, the Hellinger distance of the
  two posteriors after one observation from Beta(a, b) and compares it with rho;
* the registered lemma ``beta.hellinger.adjacent.counterexample`` *proves* (artifact re-checked
  like any other) that at a = b = 1/20 the distance exceeds rho.
"""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Dict

import flint
import sympy as sp

from lemmas import closed_forms, exprs, registry
from lemmas.artifacts import CheckResult, recheck
from lemmas.core import ArtifactBuilder, Lemma, eq, symbols
from lemmas.sensitivity import RHO, beta_adjacent_setup

H, g = exprs.Hellinger, exprs.g


def lemma_6_1_as_stated():
    """(parameters, hypotheses, conclusion) of Lemma 6.1 as printed: any a, b > 0."""
    P, S, hyps, p1, p2 = beta_adjacent_setup("one")
    hyps = hyps[2:]  # drop a >= 1, b >= 1: the paper only asks a, b > 0 (the sort of a, b)
    return P, hyps, sp.Le(H(p1, p2), RHO)


def attempt_lemma_6_1_as_stated() -> Dict[str, Any]:
    """The artifact one would write for Lemma 6.1 as stated. It does not re-check."""
    P, hyps, concl = lemma_6_1_as_stated()
    S = symbols(P)
    b = ArtifactBuilder("paper.lemma_6_1.as_stated", "proved", P, hyps, concl)
    gen = b.lemma(registry.get("beta.hellinger.adjacent"))
    one = b.lemma(registry.get("gfun.at_one"))
    mono = b.lemma(registry.get("gfun.increasing"))
    bnd = b.lemma(registry.get("gfun.bounds"))
    val = b.identity(eq(sp.sqrt(1 - g(sp.Integer(1)) ** 2), RHO), rewrite=[one])
    hdef, self_ = b.fact("def.hellinger"), b.fact("bc.self")
    p1, p2 = concl.lhs.args
    b.qed([b.ref(gen, a=S["a"], b=S["b"], a0=S["a"], b0=S["b"], n=S["n"], c1=S["c1"],
                 c2=S["c2"]), b.ref(hdef, p=p1, q=p2), b.ref(self_, p=p1),
           b.ref(mono, x=S["a"], y=1), b.ref(mono, x=S["b"], y=1), b.ref(mono, x=1, y=S["a"]),
           b.ref(mono, x=1, y=S["b"]), b.ref(bnd, x=S["a"]), b.ref(bnd, x=S["b"]), val],
          note="needs g(a) g(b) >= pi/4, which holds only when a, b are large enough")
    return b.build()


def check_lemma_6_1_as_stated() -> CheckResult:
    """Re-check the attempted artifact (expected: not ok)."""
    return recheck(attempt_lemma_6_1_as_stated())


@dataclass(frozen=True)
class Refutation:
    """A certified comparison of H(Beta(a+1, b), Beta(a, b+1)) with rho."""

    a: Fraction
    b: Fraction
    hellinger: "flint.arb"
    rho: "flint.arb"

    @property
    def refuted(self) -> bool:
        """True when the enclosures prove H > rho."""
        return bool(self.hellinger > self.rho)


def refute_lemma_6_1(a=Fraction(1, 20), b=Fraction(1, 20), prec: int = 128) -> Refutation:
    """Certified H between the posteriors after one observation (true vs false) from Beta(a, b)."""
    a, b = closed_forms.exact(a), closed_forms.exact(b)
    h = closed_forms.hellinger(closed_forms.Beta(a + 1, b), closed_forms.Beta(a, b + 1), prec)
    with closed_forms.precision(prec):
        rho = (1 - flint.arb.pi() / 4).sqrt()
    return Refutation(a, b, h, rho)


def counterexample() -> Lemma:
    """H(Beta(21/20, 1/20), Beta(1/20, 21/20)) > rho: Lemma 6.1 as stated is false."""
    A = sp.Rational(1, 20)
    p, q = exprs.BetaDist(A + 1, A), exprs.BetaDist(A, A + 1)
    concl = sp.Gt(H(p, q), RHO)
    b = ArtifactBuilder("beta.hellinger.adjacent.counterexample", "proved", (), (), concl)
    core = b.lemma(registry.get("beta.bc.adjacent"))
    hdef = b.fact("def.hellinger")
    enc = b.enclosure(sp.Lt(g(A) ** 2, sp.pi / 4), prec=128,
                      note="g(1/20)^2 = 0.137... < pi/4 = 0.785...")
    b.qed([b.ref(core, A=A, B=A), b.ref(hdef, p=p, q=q), enc])
    return Lemma("beta.hellinger.adjacent.counterexample",
                 "Lemma 6.1 as stated is false (prior Beta(1/20, 1/20))",
                 "With prior Beta(1/20, 1/20) and one observation, the posteriors Beta(21/20, 1/20) "
                 "and Beta(1/20, 21/20) are at Hellinger distance sqrt(1 - g(1/20)^2) = 0.928... "
                 "> rho = 0.463...", (), (), concl, "NOTES.md §1", "proved", b.build())
