"""The built-in lemma library: registers every lemma, in dependency order.

Lemmas cite other lemmas through the registry, so a lemma is registered only after those it
cites. Dimension-dependent lemmas (Dirichlet, categorical counts) are registered as families.
"""
from __future__ import annotations

from lemmas import (closed_forms as cf, composition as co, conjugacy as cj, mechanisms as me,
                    refutations as rf, registry, sensitivity as se)
from lemmas.registry import LemmaFamily

#: plain lemmas, in dependency order
_BUILDERS = (
    # the g function
    cf.g_increasing, cf.g_bounds, cf.g_at_one,
    # f-divergences: Table 1, Hellinger, SD
    co.table1_sd, co.table1_hd, co.table1_kl, co.table1_epsd, co.hd_one_minus_bc_pointwise,
    co.hellinger_def, co.hellinger_metric, co.hellinger_score_sensitivity, co.sd_metric,
    co.sd_score_sensitivity, co.sd_le_hellinger,
    # composability, post-processing, sequential composition, group privacy
    co.compose_epsd, co.compose_sd, co.compose_hd, co.compose_kl, co.compose_hellinger,
    co.kernel_self,
    lambda: co.post_processing("epsd"), lambda: co.post_processing("sd"),
    lambda: co.post_processing("hd"), lambda: co.post_processing("kl"),
    co.sequential_composition, co.dp_triangle, co.group_privacy,
    # closed forms
    cf.beta_bc_closed_form, cf.normal_bc_closed_form, cf.beta_kl_closed_form,
    cf.normal_kl_closed_form,
    lambda: cf._hellinger_from_bc(registry.get("beta.bc.closed_form"),
                                  "beta.hellinger.closed_form", "Hellinger distance of two Betas"),
    lambda: cf._hellinger_from_bc(registry.get("normal.bc.closed_form"),
                                  "normal.hellinger.closed_form",
                                  "Hellinger distance of two Normals"),
    # conjugacy
    cj.beta_bernoulli_one, cj.beta_bernoulli_list, cj.normal_normal_one, cj.normal_normal_list,
    # sensitivity
    se.beta_bc_adjacent_core, se.beta_hellinger_adjacent, se.beta_hellinger_adjacent_rho,
    se.beta_tv_adjacent, se.beta_tv_adjacent_zeta,
    se.normal_mean_sensitivity, se.normal_mean_sensitivity_n1, se.normal_posterior_mean_adjwithin,
    se.count_adj, se.length_adj, se.sum_adjwithin, se.adjwithin_adj,
    # mechanisms
    me.laplace, me.gaussian_profile, me.gaussian, me.gaussian_large_eps, me.exponential,
    me.hellinger_poster, me.hellinger_poster_corrected, me.hellinger_pure,
    # refutation of Lemma 6.1 as stated
    rf.counterexample,
)

#: dimension-dependent lemmas (Dirichlet over k categories), in dependency order
_FAMILIES = (
    LemmaFamily("dirichlet.bc.closed_form", "BC of two Dirichlets", cf.dirichlet_bc_closed_form),
    LemmaFamily("dirichlet.hellinger.closed_form", "Hellinger distance of two Dirichlets",
                lambda k: cf._hellinger_from_bc(
                    registry.get("dirichlet.bc.closed_form", k=k),
                    f"dirichlet.hellinger.closed_form/k={k}",
                    f"Hellinger distance of two Dirichlets (k = {k})", k)),
    LemmaFamily("dirichlet.kl.closed_form", "KL of two Dirichlets", cf.dirichlet_kl_closed_form),
    LemmaFamily("conj.dirichlet_categorical.list", "dirichlet-categorical conjugacy",
                cj.dirichlet_categorical_list),
    LemmaFamily("dirichlet.bc.adjacent", "BC of adjacent Dirichlet posteriors",
                se.dirichlet_bc_adjacent),
    LemmaFamily("dirichlet.hellinger.adjacent", "Hellinger sensitivity of Dirichlet posteriors",
                se.dirichlet_hellinger_adjacent, listed=(2, 3, 4), max_dimension=8),
    LemmaFamily("dirichlet.hellinger.adjacent.rho", "Lemma 6.3 (corrected)",
                se.dirichlet_hellinger_adjacent_rho, listed=(2, 3, 4), max_dimension=8),
    LemmaFamily("sens.counts.adj", "category counts of adjacent lists", se.counts_adj),
)


def register_builtin() -> None:
    """Register the built-in library (called once, on import of ``lemmas``)."""
    for fam in _FAMILIES:
        registry.register(fam)
    for build in _BUILDERS:
        registry.register(build())
