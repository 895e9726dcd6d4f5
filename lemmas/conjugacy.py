"""Conjugate pairs: exact posterior updates, candidate sets, and their lemmas.

Exact functions (parameters are Fractions; no floating point):

* ``beta_bernoulli(prior, data)`` / ``beta_bernoulli_one(prior, d)``;
* ``dirichlet_categorical(prior, data)`` (categories ``0 .. k-1``);
* ``normal_normal(prior, kv, data)`` (prior N(m, v) on the mean, known variance ``kv``);
* ``posteriors(prior, n)``: every posterior a conjugate prior can reach after ``n``
  observations — Beta: n + 1 candidates ``Beta(a + j, b + n - j)``; Dirichlet over k
  categories: one per count vector summing to n, C(n + k - 1, k - 1) of them
  (``count_posteriors`` gives the number without enumerating; NOTES.md §7 corrects the
  poster's C(n + 1, k - 1)).

Lemmas (``Posterior(prior, likelihood) = posterior``, each proved by a Bayes-rule step that
checks prior density × likelihood ∝ posterior density): ``conj.beta_bernoulli.one``,
``conj.beta_bernoulli.list``, ``conj.dirichlet_categorical.list/k=K``,
``conj.normal_normal.one``, ``conj.normal_normal.list``.
"""
from __future__ import annotations

import math
from fractions import Fraction
from typing import Iterator, List, Sequence, Tuple, Union

import sympy as sp

from lemmas import exprs
from lemmas.closed_forms import Beta, Dirichlet, Normal, exact
from lemmas.core import ArtifactBuilder, Lemma, eq, params, symbols

# --------------------------------------------------------------------------------------------
# exact updates


def beta_bernoulli_one(prior: Beta, d: bool) -> Beta:
    """Posterior of Beta(a, b) after one Bernoulli observation d: Beta(a + d, b + 1 - d)."""
    d = _bool(d)
    return Beta(prior.a + d, prior.b + 1 - d)


def beta_bernoulli(prior: Beta, data: Sequence[bool]) -> Beta:
    """Posterior after a list of Bernoulli observations: Beta(a + #true, b + #false)."""
    c = sum(_bool(d) for d in data)
    return Beta(prior.a + c, prior.b + len(data) - c)


def dirichlet_categorical(prior: Dirichlet, data: Sequence[int]) -> Dirichlet:
    """Posterior of Dirichlet(a) after categorical observations in 0..k-1: a + counts."""
    k = len(prior.alphas)
    counts = [0] * k
    for x in data:
        if isinstance(x, bool) or not isinstance(x, int) or not 0 <= x < k:
            raise ValueError(f"observation {x!r} is not a category in 0..{k - 1}")
        counts[x] += 1
    return Dirichlet([a + c for a, c in zip(prior.alphas, counts)])


def normal_normal(prior: Normal, kv, data: Sequence) -> Normal:
    """Posterior of the mean: prior N(m, v), readings x_i ~ N(mean, kv) (kv known).

    mean' = (m/v + S/kv) / (1/v + n/kv), var' = 1 / (1/v + n/kv), S = sum x_i.
    """
    kv = exact(kv)
    if kv <= 0:
        raise ValueError("the known variance must be positive")
    n = len(data)
    s = sum((exact(x) for x in data), Fraction(0))
    prec = 1 / prior.var + n / kv
    return Normal((prior.mean / prior.var + s / kv) / prec, 1 / prec)


def posterior_mean_normal(m, v, kv, n: int, s) -> Fraction:
    """The posterior mean (m/v + s/kv) / (1/v + n/kv) of the normal model, exactly."""
    m, v, kv, s = exact(m), exact(v), exact(kv), exact(s)
    return (m / v + s / kv) / (1 / v + Fraction(n) / kv)


def _bool(d) -> int:
    if not isinstance(d, (bool, int)) or d not in (0, 1):
        raise ValueError(f"a Bernoulli observation is a bool, got {d!r}")
    return int(d)


# --------------------------------------------------------------------------------------------
# candidate sets

def compositions(n: int, k: int) -> Iterator[Tuple[int, ...]]:
    """All k-tuples of naturals summing to n, in lexicographic order."""
    if k == 1:
        yield (n,)
        return
    for first in range(n + 1):
        for rest in compositions(n - first, k - 1):
            yield (first,) + rest


def count_posteriors(prior: Union[Beta, Dirichlet], n: int) -> int:
    """|posteriors(prior, n)|: n + 1 for a Beta, C(n + k - 1, k - 1) for a Dirichlet."""
    if n < 0:
        raise ValueError("n must be a natural number")
    if isinstance(prior, Beta):
        return n + 1
    if isinstance(prior, Dirichlet):
        k = len(prior.alphas)
        return math.comb(n + k - 1, k - 1)
    raise TypeError("posteriors is defined for beta and dirichlet priors")


def posteriors(prior: Union[Beta, Dirichlet], n: int) -> List[Union[Beta, Dirichlet]]:
    """Every posterior reachable from ``prior`` after ``n`` observations (LANGUAGE.md).

    Beta: ``[Beta(a + j, b + n - j) for j = 0..n]``; Dirichlet: one per count vector, in
    lexicographic order of the counts. The list depends only on the prior and n (public).
    """
    if isinstance(n, bool) or not isinstance(n, int) or n < 0:
        raise ValueError("n must be a natural number")
    if isinstance(prior, Beta):
        return [Beta(prior.a + j, prior.b + n - j) for j in range(n + 1)]
    if isinstance(prior, Dirichlet):
        return [Dirichlet([a + c for a, c in zip(prior.alphas, cs)])
                for cs in compositions(n, len(prior.alphas))]
    raise TypeError("posteriors is defined for beta and dirichlet priors")


# --------------------------------------------------------------------------------------------
# lemmas

def beta_bernoulli_list_lemma() -> Lemma:
    """Posterior(Beta(a, b), n observations with c true) = Beta(a + c, b + n - c)."""
    P = params(("a", "pos"), ("b", "pos"), ("n", "nat"), ("c", "nat"))
    S = symbols(P)
    a, b, n, c = S["a"], S["b"], S["n"], S["c"]
    hyps = (sp.Le(c, n),)
    lik = exprs.function("BernoulliCounts")
    concl = eq(exprs.Posterior(exprs.BetaDist(a, b), lik(n, c)), exprs.BetaDist(a + c, b + n - c))
    bld = ArtifactBuilder("conj.beta_bernoulli.list", "proved", P, hyps, concl)
    f = bld.declare("f", "nat")  # the number of false observations
    s = bld.bayes(exprs.BetaDist(a, b), lik(c + f, c), exprs.BetaDist(a + c, b + f),
                  method="cancel",
                  note="x^(a-1) y^(b-1) x^c y^f is proportional to the Beta(a+c, b+f) density")
    bld.qed([bld.ref(s, a=a, b=b, c=c, f=n - c)], note="f = n - c >= 0")
    return Lemma("conj.beta_bernoulli.list", "beta-bernoulli conjugacy (a data list)",
                 "The posterior of Beta(a, b) after n Bernoulli observations, c of them true, "
                 "is Beta(a + c, b + n - c).", P, hyps, concl,
                 "Bayes' rule; paper §6 (learnBias); seed poster", "proved", bld.build())


def beta_bernoulli_one_lemma() -> Lemma:
    """Posterior(Beta(a, b), one observation d in {0, 1}) = Beta(a + d, b + 1 - d)."""
    P = params(("a", "pos"), ("b", "pos"), ("d", "nat"))
    S = symbols(P)
    a, b, d = S["a"], S["b"], S["d"]
    hyps = (sp.Le(d, 1),)
    lik = exprs.function("BernoulliLik")
    concl = eq(exprs.Posterior(exprs.BetaDist(a, b), lik(d)), exprs.BetaDist(a + d, b + 1 - d))
    bld = ArtifactBuilder("conj.beta_bernoulli.one", "proved", P, hyps, concl)
    t = bld.bayes(exprs.BetaDist(a, b), lik(sp.Integer(1)), exprs.BetaDist(a + 1, b),
                  method="cancel", note="observing true")
    f = bld.bayes(exprs.BetaDist(a, b), lik(sp.Integer(0)), exprs.BetaDist(a, b + 1),
                  method="cancel", note="observing false")
    bld.qed([t, f], note="d is 0 or 1")
    return Lemma("conj.beta_bernoulli.one", "beta-bernoulli conjugacy (one observation)",
                 "Observing d (1 = true, 0 = false) turns Beta(a, b) into Beta(a + d, b + 1 - d).",
                 P, hyps, concl, "Bayes' rule; paper §6", "proved", bld.build())


def dirichlet_categorical_list_lemma(k: int) -> Lemma:
    """Posterior(Dir(a1..ak), counts c1..ck) = Dir(a1 + c1, ..., ak + ck)."""
    P = params(*[(f"a{i}", "pos") for i in range(1, k + 1)],
               *[(f"c{i}", "nat") for i in range(1, k + 1)])
    S = symbols(P)
    al = [S[f"a{i}"] for i in range(1, k + 1)]
    cs = [S[f"c{i}"] for i in range(1, k + 1)]
    lik = exprs.function("CategoricalCounts")
    concl = eq(exprs.Posterior(exprs.DirichletDist(*al), lik(*cs)),
               exprs.DirichletDist(*[x + y for x, y in zip(al, cs)]))
    lid = f"conj.dirichlet_categorical.list/k={k}"
    bld = ArtifactBuilder(lid, "proved", P, (), concl)
    s = bld.bayes(exprs.DirichletDist(*al), lik(*cs),
                  exprs.DirichletDist(*[x + y for x, y in zip(al, cs)]), method="cancel")
    bld.qed([s])
    return Lemma(lid, f"dirichlet-categorical conjugacy (k = {k})",
                 "The posterior of Dirichlet(a) after categorical observations with counts c is "
                 "Dirichlet(a + c) (one observation of category j: c = e_j).", P, (), concl,
                 "Bayes' rule; paper §6 (learnP)", "proved", bld.build(), k)


def normal_normal_one_lemma() -> Lemma:
    P = params(("m", "real"), ("v", "pos"), ("kv", "pos"), ("x", "real"))
    S = symbols(P)
    m, v, kv, x = S["m"], S["v"], S["kv"], S["x"]
    lik = exprs.function("NormalLik")
    prec = 1 / v + 1 / kv
    post = exprs.NormalDist((m / v + x / kv) / prec, 1 / prec)
    concl = eq(exprs.Posterior(exprs.NormalDist(m, v), lik(kv, x)), post)
    bld = ArtifactBuilder("conj.normal_normal.one", "proved", P, (), concl)
    s = bld.bayes(exprs.NormalDist(m, v), lik(kv, x), post, method="cancel",
                  note="completing the square")
    bld.qed([s])
    return Lemma("conj.normal_normal.one", "normal-normal conjugacy (one reading)",
                 "Prior N(m, v) on the mean, one reading x ~ N(mean, kv): the posterior is "
                 "N((m/v + x/kv) / (1/v + 1/kv), 1 / (1/v + 1/kv)).", P, (), concl,
                 "Bayes' rule; paper §6.1-6.2 (learnMean)", "proved", bld.build())


def normal_normal_list_lemma() -> Lemma:
    P = params(("m", "real"), ("v", "pos"), ("kv", "pos"), ("n", "nat"), ("s", "real"),
               ("q", "real"))
    T = symbols(P)
    m, v, kv, n, s, q = T["m"], T["v"], T["kv"], T["n"], T["s"], T["q"]
    lik = exprs.function("NormalLikSum")
    prec = 1 / v + n / kv
    post = exprs.NormalDist((m / v + s / kv) / prec, 1 / prec)
    concl = eq(exprs.Posterior(exprs.NormalDist(m, v), lik(kv, n, s, q)), post)
    bld = ArtifactBuilder("conj.normal_normal.list", "proved", P, (), concl)
    st = bld.bayes(exprs.NormalDist(m, v), lik(kv, n, s, q), post, method="cancel",
                   note="the likelihood of n readings depends on the mean only through S")
    bld.qed([st])
    return Lemma("conj.normal_normal.list", "normal-normal conjugacy (a data list)",
                 "Prior N(m, v), n readings with sum s (and sum of squares q), known variance "
                 "kv: the posterior is N((m/v + s/kv) / (1/v + n/kv), 1 / (1/v + n/kv)); it does "
                 "not depend on q.", P, (), concl,
                 "Bayes' rule; NOTES.md §5", "proved", bld.build())
