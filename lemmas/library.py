"""The built-in lemma library: registers every lemma, in dependency order.

Lemmas are registered lazily (built on first use); a lemma's builder fetches the lemmas it
cites from the registry. Dimension-dependent lemmas (Dirichlet, categorical counts) are
registered as families.
"""
from __future__ import annotations

from lemmas import (closed_form_lemmas as cf, composition as co, conjugacy as cj,
                    couplings as cp, definitions as df, mechanisms as me, refutations as rf,
                    registry, sensitivity as se)
from lemmas.registry import LemmaFamily

#: plain lemmas: (id, builder). Builders fetch the lemmas they cite from the registry, which
#: builds those on demand; the order here is only for reading.
_BUILDERS = (
    # the g function
    ("gfun.increasing", cf.g_increasing), ("gfun.bounds", cf.g_bounds),
    ("gfun.at_one", cf.g_at_one),
    # f-divergences: Table 1, Hellinger, SD
    ("fdiv.sd.simplified", co.table1_sd), ("fdiv.hd.simplified", co.table1_hd),
    ("fdiv.kl.simplified", co.table1_kl), ("fdiv.epsd.simplified", co.table1_epsd),
    ("fdiv.hd.one_minus_bc", co.hd_one_minus_bc_pointwise),
    ("hellinger.def", co.hellinger_def), ("hellinger.triangle", co.hellinger_metric),
    ("hellinger.score_sensitivity", co.hellinger_score_sensitivity),
    ("sd.metric", co.sd_metric), ("sd.score_sensitivity", co.sd_score_sensitivity),
    ("sd.hellinger", co.sd_le_hellinger),
    ("hellinger.sq.le.sd", co.hellinger_sq_le_sd), ("sd.pinsker", co.sd_pinsker),
    ("sd.bernoulli", co.sd_bernoulli),
    # composability, post-processing, sequential composition, group privacy
    ("compose.epsd", co.compose_epsd), ("compose.sd", co.compose_sd),
    ("compose.hd", co.compose_hd), ("compose.kl", co.compose_kl),
    ("compose.hellinger", co.compose_hellinger), ("kernel.self", co.kernel_self),
    ("post.epsd", lambda: co.post_processing("epsd")),
    ("post.sd", lambda: co.post_processing("sd")),
    ("post.hd", lambda: co.post_processing("hd")),
    ("post.kl", lambda: co.post_processing("kl")),
    ("dp.sequential", co.sequential_composition), ("dp.triangle", co.dp_triangle),
    ("dp.group", co.group_privacy),
    # closed forms
    ("beta.bc.closed_form", cf.beta_bc_closed_form),
    ("normal.bc.closed_form", cf.normal_bc_closed_form),
    ("beta.kl.closed_form", cf.beta_kl_closed_form),
    ("normal.kl.closed_form", cf.normal_kl_closed_form),
    ("beta.hellinger.closed_form",
     lambda: cf.hellinger_from_bc(registry.get("beta.bc.closed_form"),
                                   "beta.hellinger.closed_form",
                                   "Hellinger distance of two Betas")),
    ("normal.hellinger.closed_form",
     lambda: cf.hellinger_from_bc(registry.get("normal.bc.closed_form"),
                                   "normal.hellinger.closed_form",
                                   "Hellinger distance of two Normals")),
    # conjugacy
    ("conj.beta_bernoulli.one", cj.beta_bernoulli_one_lemma),
    ("conj.beta_bernoulli.list", cj.beta_bernoulli_list_lemma),
    ("conj.normal_normal.one", cj.normal_normal_one_lemma),
    ("conj.normal_normal.list", cj.normal_normal_list_lemma),
    # sensitivity
    ("beta.bc.adjacent", se.beta_bc_adjacent_core),
    ("beta.hellinger.adjacent", se.beta_hellinger_adjacent),
    ("beta.hellinger.adjacent.rho", se.beta_hellinger_adjacent_rho),
    ("beta.tv.adjacent", se.beta_tv_adjacent),
    ("beta.tv.adjacent.zeta", se.beta_tv_adjacent_zeta),
    ("beta.kl.adjacent", se.beta_kl_adjacent), ("kl.gibbs", se.kl_gibbs),
    ("normal.mean.sensitivity", se.normal_mean_sensitivity),
    ("normal.mean.sensitivity.n1", se.normal_mean_sensitivity_n1),
    ("normal.posterior_mean.sensitivity", se.normal_posterior_mean_adjwithin),
    ("beta.hellinger.adj_lists", lambda: se.beta_adj_lists("hellinger.general")),
    ("beta.hellinger.adj_lists.rho", lambda: se.beta_adj_lists("hellinger")),
    ("beta.tv.adj_lists.zeta", lambda: se.beta_adj_lists("tv")),
    ("sens.count.adj", se.count_adj), ("sens.length.adj", se.length_adj),
    ("sens.sum.adjwithin", se.sum_adjwithin), ("sens.adjwithin.adj", se.adjwithin_adj),
    # definitions of the built-in lists and distributions (cited by the axiom schemas)
    ("lists.length.nat", df.length_nat), ("lists.count.nat", df.count_nat),
    ("lists.definition", df.definition), ("lists.adj.reflexive", df.adj_reflexive),
    ("lists.adjwithin.reflexive", df.adjwithin_reflexive),
    ("lists.dist.definition", df.dist_definition), ("lists.dist.count", df.dist_count),
    ("lists.dist.adjacent", df.dist_adjacent), ("lists.dist.length", df.dist_length),
    ("lists.cons.relations", df.cons_relations),
    ("lists.allin.definition", df.allin_definition), ("lists.allin.sum", df.allin_sum),
    ("lists.allwithin.definition", df.allwithin_definition),
    ("distributions.injective", df.injective),
    ("posteriors.members.beta", df.posteriors_beta),
    # mechanisms
    ("mech.laplace", me.laplace), ("mech.gaussian.profile", me.gaussian_profile),
    ("mech.gaussian", me.gaussian), ("mech.gaussian.large_eps", me.gaussian_large_eps),
    ("mech.exponential", me.exponential), ("mech.hellinger.poster", me.hellinger_poster),
    ("mech.hellinger.poster_corrected", me.hellinger_poster_corrected),
    ("mech.hellinger.pure", me.hellinger_pure),
    # couplings: the shifted Laplace rule, the pointwise and case rules, advanced composition
    ("mech.laplace.shift", cp.laplace_shift), ("coupling.pointwise", cp.pointwise),
    ("coupling.cases", cp.cases), ("composition.advanced", cp.advanced),
    # refutation of Lemma 6.1 as stated
    ("beta.hellinger.adjacent.counterexample", rf.counterexample),
)

#: dimension-dependent lemmas (Dirichlet over k categories), in dependency order
_FAMILIES = (
    LemmaFamily("dirichlet.bc.closed_form", "BC of two Dirichlets", cf.dirichlet_bc_closed_form),
    LemmaFamily("dirichlet.hellinger.closed_form", "Hellinger distance of two Dirichlets",
                lambda k: cf.hellinger_from_bc(
                    registry.get("dirichlet.bc.closed_form", k=k),
                    f"dirichlet.hellinger.closed_form/k={k}",
                    f"Hellinger distance of two Dirichlets (k = {k})", k)),
    LemmaFamily("dirichlet.kl.closed_form", "KL of two Dirichlets", cf.dirichlet_kl_closed_form),
    LemmaFamily("dirichlet.kl.adjacent", "KL sensitivity of Dirichlet posteriors",
                se.dirichlet_kl_adjacent),
    LemmaFamily("conj.dirichlet_categorical.list", "dirichlet-categorical conjugacy",
                cj.dirichlet_categorical_list_lemma),
    LemmaFamily("dirichlet.bc.adjacent", "BC of adjacent Dirichlet posteriors",
                se.dirichlet_bc_adjacent),
    LemmaFamily("dirichlet.hellinger.adjacent", "Hellinger sensitivity of Dirichlet posteriors",
                se.dirichlet_hellinger_adjacent, listed=(2, 3, 4), max_dimension=8),
    LemmaFamily("dirichlet.hellinger.adjacent.rho", "Lemma 6.3 (corrected)",
                se.dirichlet_hellinger_adjacent_rho, listed=(2, 3, 4), max_dimension=8),
    LemmaFamily("sens.counts.adj", "category counts of adjacent lists", se.counts_adj),
    LemmaFamily("lists.catcount.total", "category counts of a [k] list", df.catcount_total),
    LemmaFamily("distributions.injective.dirichlet",
                "Dirichlet and categorical constructors are injective", df.injective_k),
    LemmaFamily("posteriors.members.dirichlet", "the members of posteriors (dirichlet, n)",
                df.posteriors_dirichlet, max_dimension=64),
    LemmaFamily("dirichlet.hellinger.adj_lists.rho", "learnP on adjacent lists: H <= rho",
                se.dirichlet_adj_lists_rho, listed=(2, 3, 4), max_dimension=8),
)


def register_builtin() -> None:
    """Register the built-in library (the registry calls this once, on its first use)."""
    for fam in _FAMILIES:
        registry.register(fam)
    for lemma_id, build in _BUILDERS:
        registry.register_lazy(lemma_id, build)
