"""Extending the library: adding a conjugate pair.

A tool builder who wants the verifier to handle a new model declares the prior family (its
density), the likelihood of the observations, and the posterior's parameters;
``add_conjugate_pair`` builds the conjugacy lemma — ``Posterior(Prior(params),
Likelihood(data)) = Prior(posterior params)`` — with a Bayes-rule proof artifact, checks it,
and registers it. Example (Gamma-Poisson)::

    add_conjugate_pair(
        "conj.gamma_poisson.list",
        prior="GammaDist", prior_params=[("al", "pos"), ("be", "pos")],
        variables=["t"], domain="halfline",
        density="be**al*t**(al - 1)*exp(-be*t)/gamma(al)",
        likelihood="PoissonCounts", likelihood_params=[("n", "nat"), ("s", "nat")],
        likelihood_body="t**s*exp(-n*t)",          # up to factors free of t
        posterior=["al + s", "be + n"])

The density and likelihood bodies become part of the trusted vocabulary and are recorded in
the artifact, so an independent checker re-installs exactly them.
"""
from __future__ import annotations

from typing import Sequence, Tuple

from lemmas import exprs, registry
from lemmas.artifacts import ArtifactError, recheck
from lemmas.core import ArtifactBuilder, Lemma, eq, params, symbols


def add_conjugate_pair(lemma_id: str, *, prior: str, prior_params: Sequence[Tuple[str, str]],
                       variables: Sequence[str], domain: str, density: str, likelihood: str,
                       likelihood_params: Sequence[Tuple[str, str]], likelihood_body: str,
                       posterior: Sequence[str], hypotheses: Sequence[str] = (),
                       title: str = "", statement: str = "", source: str = "",
                       method: str = "cancel", register: bool = True) -> Lemma:
    """Declare a prior family and a likelihood, prove their conjugacy, register the lemma.

    ``density`` and ``likelihood_body`` are formulas over the parameters and the model's
    ``variables`` (positive on the ``simplex`` and the ``halfline``, real on the ``line``);
    the likelihood may omit factors that do not depend on the variables. ``posterior`` gives
    the posterior family's parameters as formulas over the prior's and the likelihood's
    parameters; ``hypotheses`` (formulas over the same) are the lemma's hypotheses. Raises
    ``ArtifactError`` if the Bayes-rule step does not re-check (the pair is not conjugate as
    stated), and ``DuplicateLemmaError`` if the id is taken.
    """
    pp = tuple((n, s) for n, s in prior_params)
    lp = tuple((n, s) for n, s in likelihood_params)
    fam = exprs.register_family(prior, exprs.Density(pp, tuple(variables), domain, density),
                                f"conjugate prior family {prior}")
    lik = exprs.register_likelihood(likelihood, exprs.LikelihoodDef(lp, tuple(variables),
                                                                    likelihood_body),
                                    f"likelihood {likelihood}")
    P = params(*pp, *lp)
    S = symbols(P)
    post = [exprs.parse(t, S) for t in posterior]
    if len(post) != len(pp):
        raise ValueError(f"{prior} takes {len(pp)} parameters; got {len(post)} posterior terms")
    hyps = tuple(exprs.parse(h, S) for h in hypotheses)
    prior_term = fam(*[S[n] for n, _ in pp])
    lik_term = lik(*[S[n] for n, _ in lp])
    concl = eq(exprs.Posterior(prior_term, lik_term), fam(*post))
    b = ArtifactBuilder(lemma_id, "proved", P, hyps, concl)
    b.declare_vocabulary(prior)
    b.declare_vocabulary(likelihood)
    s = b.bayes(prior_term, lik_term, fam(*post), method=method)
    b.qed([s])
    art = b.build()
    result = recheck(art)
    if not result.ok:
        raise ArtifactError(f"{lemma_id} does not re-check: {result.reason}")
    lemma = Lemma(lemma_id, title or f"{prior}-{likelihood} conjugacy",
                  statement or f"Posterior({prior}, {likelihood}) = {prior}({', '.join(posterior)})",
                  P, hyps, concl, source or "Bayes' rule (added with lemmas.extend)", "proved",
                  art)
    if register:
        registry.register(lemma)
    return lemma
