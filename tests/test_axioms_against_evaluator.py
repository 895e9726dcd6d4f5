"""Every axiom schema, and the definitional facts the verifier instantiates, is true of the
built-ins as ``privinfer run`` computes them (issue 15, item 3).

Each schema of ``obligations.schemas.SCHEMAS`` is instantiated at terms of concrete values
(random and edge cases: empty lists, equal lists, zero and negative bounds, adjacent
posteriors, priors below 1) and the instance is evaluated exactly with the evaluator's own
built-ins (``semantic_terms``); it must be true. The same is done for the unfoldings of
``adj`` / ``adjWithin`` / ``dist`` that Match-Split assumes, for the member facts of
``posteriors`` candidates, and for the translator's closed forms of ``mean``, ``variance``,
``sigma`` and ``getParams``. A schema added without a case here fails
``test_every_schema_is_covered``.
"""
from __future__ import annotations

from fractions import Fraction as F

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from obligations import schemas as S
from obligations import terms as T
from obligations import vocabulary as V
from obligations.candidates import conjugate
from semantic_terms import distribution, list_term, number, value

SETTINGS = settings(max_examples=60, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])


def holds(schema: S.Schema, *args: T.Term) -> bool:
    """The schema's instance at ``args`` evaluated with the run-time semantics (a schema that
    does not apply to these arguments holds vacuously)."""
    try:
        instance = schema.instance(*args)
    except S.SchemaError:
        return True
    return value(instance) is True


# ---- strategies ----------------------------------------------------------------------------

rationals = st.builds(F, st.integers(-40, 40), st.integers(1, 8))
positive = st.builds(F, st.integers(1, 40), st.integers(1, 8))
bools = st.lists(st.booleans(), max_size=6)
reals_ = st.lists(rationals, max_size=5)


@st.composite
def bool_pairs(draw):
    """Two bool lists: equal, adjacent (one position flipped), or unrelated."""
    l1 = draw(bools)
    how = draw(st.sampled_from(["equal", "adjacent", "other"]))
    if how == "equal":
        return l1, list(l1)
    if how == "adjacent" and l1:
        i = draw(st.integers(0, len(l1) - 1))
        return l1, l1[:i] + [not l1[i]] + l1[i + 1:]
    return l1, draw(bools)


@st.composite
def fin_pairs(draw, k=3):
    l1 = draw(st.lists(st.integers(0, k - 1), max_size=6))
    if l1 and draw(st.booleans()):
        i = draw(st.integers(0, len(l1) - 1))
        return l1, l1[:i] + [draw(st.integers(0, k - 1))] + l1[i + 1:]
    return l1, draw(st.lists(st.integers(0, k - 1), max_size=6))


@st.composite
def real_pairs(draw):
    """Two real lists (equal, differing at one position, or unrelated) and a bound c that
    may be negative, zero, exactly the difference, or anything."""
    l1 = draw(reals_)
    how = draw(st.sampled_from(["equal", "one", "other"]))
    if how == "equal" or not l1:
        l2 = list(l1) if how != "other" else draw(reals_)
    elif how == "one":
        i = draw(st.integers(0, len(l1) - 1))
        l2 = l1[:i] + [draw(rationals)] + l1[i + 1:]
    else:
        l2 = draw(reals_)
    diffs = [abs(x - y) for x, y in zip(l1, l2) if x != y]
    c = draw(st.sampled_from([F(0), F(-1), diffs[0] if diffs else F(0)]) | rationals)
    return l1, l2, c


# ---- lists ----------------------------------------------------------------------------------


@SETTINGS
@given(bool_pairs())
def test_bool_list_schemas(pair):
    l1, l2 = (list_term(x, "bool") for x in pair)
    for schema in (S.LEN_NONNEG, S.COUNT_BOUNDS, S.EMPTY, S.NIL, S.CONS, S.GROUND):
        assert holds(schema, l1) and holds(schema, l2)
    for schema in (S.CONS_INJ, S.NIL_CONS, S.ADJ_LEN, S.ADJ_COUNT, S.ADJ_REFL, S.DIST_COUNT):
        assert holds(schema, l1, l2), schema.name
    if len(pair[0]) == len(pair[1]):   # dist is defined on lists of one length
        assert holds(S.DIST_FACTS, l1, l2)


@SETTINGS
@given(fin_pairs())
def test_category_list_schemas(pair):
    l1, l2 = (list_term(x, "fin3") for x in pair)
    for schema in (S.COUNTOF_BOUNDS, S.EMPTY, S.NIL, S.CONS, S.LEN_NONNEG, S.GROUND):
        assert holds(schema, l1) and holds(schema, l2)
    assert holds(S.ADJ_COUNTOF, l1, l2) and holds(S.ADJ_LEN, l1, l2)


@SETTINGS
@given(real_pairs())
def test_adjwithin_schemas_hold_for_every_bound(case):
    l1, l2, c = case
    t1, t2, tc = list_term(l1, "real"), list_term(l2, "real"), T.real(c)
    for schema in (S.ADJW_LEN, S.ADJW_SUM, S.ADJW_REFL):
        assert holds(schema, t1, t2, tc), (schema.name, l1, l2, c)
    for schema in (S.NIL, S.CONS, S.EMPTY, S.LEN_NONNEG, S.GROUND):
        assert holds(schema, t1)


def test_adjwithin_with_a_negative_bound_means_equal_lists():
    """The decision of docs/verifier.md: a negative bound admits no differing position."""
    same, other = list_term([F(1), F(2)], "real"), list_term([F(1), F(3)], "real")
    assert value(V.adj_within(same, same, T.real(-1))) is True
    assert value(V.adj_within(same, other, T.real(-1))) is False
    # the axiom that used to be false here (|sum l1 - sum l2| <= c with c < 0)
    assert holds(S.ADJW_SUM, same, same, T.real(-1))
    old = T.implies(V.adj_within(same, same, T.real(-1)),
                    T.le(T.abs_(T.sub(V.total(same), V.total(same))), T.real(-1)))
    assert value(old) is False


@SETTINGS
@given(st.sampled_from(["nat", "pos", "unit", "fin3"]),
       st.lists(st.sampled_from([F(-1), F(0), F(1, 2), F(1), F(2), F(3), F(7, 2)]), max_size=5))
def test_element_range_schemas(kind, items):
    """allIn_K on [] and x :: l, and the bounds on the sum of a [0,1] or real+ list, hold of
    lists with elements in and out of the range (integers for int lists)."""
    key = "real" if kind in ("pos", "unit") else "int"
    if key == "int":
        items = [int(x) for x in items if x.denominator == 1]
    lst = list_term(items, key)
    p = V.all_in(kind, lst)
    for c in [lst] + ([lst.args[1]] if items else []):
        assert holds(S.ALLIN_CONS, p, c) and holds(S.ALLIN_NIL, p, c)
    assert holds(S.ALLIN_SUM, p) and holds(S.ALLIN_GROUND, p)
    inside = all(value(V.in_range(kind, number(x, T.INT if key == "int" else T.REAL)))
                 for x in items)
    assert value(p) is inside


# ---- the unfoldings Match-Split assumes at x :: xs ~ y :: ys (LANGUAGE.md) --------------------


@SETTINGS
@given(bool_pairs())
def test_adj_and_dist_unfoldings(pair):
    from verifier.rules.core_rules import _unfold
    assume(pair[0] and pair[1])
    l1, l2 = list_term(pair[0], "bool"), list_term(pair[1], "bool")
    h1, t1 = l1.args
    h2, t2 = l2.args
    adj = V.adj(l1, l2)
    cases = _unfold(adj, h1, h2, t1, t2)
    assert value(T.implies(adj, T.or_(*(d for _, d in cases)))) is True
    unfolded = T.or_(T.and_(T.eq(h1, h2), V.adj(t1, t2)), T.eq(t1, t2))
    assert value(T.eq(adj, unfolded)) is True
    if len(pair[0]) == len(pair[1]):
        step = T.add(T.ite(T.eq(h1, h2), 0, 1), V.hamming(t1, t2))
        assert value(T.eq(V.hamming(l1, l2), step)) is True


@SETTINGS
@given(real_pairs())
def test_adjwithin_unfolding(case):
    from verifier.rules.core_rules import _unfold
    l1, l2, c = case
    assume(l1 and l2)
    t1, t2 = list_term(l1, "real"), list_term(l2, "real")
    atom = V.adj_within(t1, t2, T.real(c))
    cases = _unfold(atom, t1.args[0], t2.args[0], t1.args[1], t2.args[1])
    assert value(T.implies(atom, T.or_(*(d for _, d in cases)))) is True


@st.composite
def close_pairs(draw):
    """Two real lists of one length whose entries move by at most a drawn amount (the queries
    of the sparse vector technique), or unrelated lists; and a bound c that may be negative,
    zero, the largest move, or anything."""
    l1 = draw(reals_)
    if draw(st.booleans()):
        l2 = [x + draw(st.builds(F, st.integers(-4, 4), st.integers(1, 4))) for x in l1]
    else:
        l2 = draw(reals_)
    moves = [abs(x - y) for x, y in zip(l1, l2)]
    c = draw(st.sampled_from([F(0), F(-1), max(moves) if moves else F(0), F(1)]) | rationals)
    return l1, l2, c


@SETTINGS
@given(close_pairs())
def test_allwithin_schemas_hold_for_every_bound(case):
    l1, l2, c = case
    t1, t2, tc = list_term(l1, "real"), list_term(l2, "real"), T.real(c)
    for schema in (S.ALLW_LEN, S.ALLW_REFL, S.ALLW_CONS):
        assert holds(schema, t1, t2, tc), (schema.name, l1, l2, c)
    assert holds(S.ALLW_REFL, t1, t1, tc)


@SETTINGS
@given(close_pairs())
def test_allwithin_unfolding(case):
    """What Match-Split assumes of allWithin at h1 :: t1 ~ h2 :: t2 (the builder's and the
    kernel's rules state it each)."""
    l1, l2, c = case
    assume(l1 and l2 and len(l1) == len(l2))
    t1, t2, tc = list_term(l1, "real"), list_term(l2, "real"), T.real(c)
    (h1, r1), (h2, r2) = t1.args, t2.args
    unfolded = T.and_(T.le(T.abs_(T.sub(h1, h2)), tc), V.all_within(r1, r2, tc))
    assert value(T.implies(V.all_within(t1, t2, tc), unfolded)) is True


# ---- distances -----------------------------------------------------------------------------

small = st.builds(F, st.integers(1, 12), st.integers(1, 4))     # 1/4 .. 12


@st.composite
def beta_pairs(draw):
    """Two Betas: posteriors of adjacent data from a prior (>= 1 or not), or unrelated."""
    a, b = draw(small), draw(small)
    if draw(st.booleans()):
        n = draw(st.integers(1, 4))
        k = draw(st.integers(0, n - 1))
        return (a + k + 1, b + n - k - 1), (a + k, b + n - k)
    return (a, b), (draw(small), draw(small))


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(beta_pairs(), st.tuples(small, small))
def test_metric_schemas_on_betas(pair, third):
    p, q, r = (distribution("beta", x) for x in (*pair, third))
    for metric in (V.hellinger, V.tv):
        u, v, w = metric(p, q), metric(p, r), metric(q, r)
        range_schema, triangle = ((S.METRIC_RANGE, S.TRIANGLE) if metric is V.hellinger
                                  else (S.TV_RANGE, S.TV_TRIANGLE))
        assert holds(range_schema, u) and holds(range_schema, metric(p, p))
        assert holds(triangle, v, w)          # |d(p, r) - d(q, r)| <= d(p, q)
    assert holds(S.BETA_RHO, V.hellinger(p, q)) and holds(S.BETA_ZETA, V.tv(p, q))
    assert holds(S.CTOR_INJ, p, q) and holds(S.CTOR_INJ, p, p)


def test_rho_is_reached_exactly_at_the_uniform_prior():
    """NOTES.md §1: with the prior beta (1, 1), H (beta (2, 1), beta (1, 2)) = rho exactly,
    which the instance decides by exact simplification (not within a tolerance)."""
    p, q = distribution("beta", (2, 1)), distribution("beta", (1, 2))
    assert value(T.eq(V.hellinger(p, q), S.RHO)) is True
    assert holds(S.BETA_RHO, V.hellinger(p, q))
    # a prior below 1 escapes the hypothesis: the bound would be false, the instance is vacuous
    p, q = distribution("beta", (F(3, 2), F(1, 2))), distribution("beta", (F(1, 2), F(3, 2)))
    assert value(T.le(V.hellinger(p, q), S.RHO)) is False
    assert holds(S.BETA_RHO, V.hellinger(p, q))


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.tuples(small, small, small), st.integers(0, 2), st.integers(0, 2))
def test_dirichlet_rho(alphas, i, j):
    base = list(alphas)
    moved = list(base)
    if i != j:
        moved[i] += 1
        base[j] += 1
    p, q = distribution("dirichlet", moved), distribution("dirichlet", base)
    assert holds(S.DIR_RHO, V.hellinger(p, q)) and holds(S.METRIC_RANGE, V.hellinger(p, q))
    assert holds(S.CTOR_INJ, p, q)


def test_normal_and_bernoulli_constructors():
    p, q = distribution("normal", (0, 1)), distribution("normal", (0, 2))
    assert holds(S.CTOR_INJ, p, q) and holds(S.CTOR_INJ, p, p)
    assert holds(S.TV_RANGE, V.tv(p, q)) and holds(S.METRIC_RANGE, V.hellinger(p, q))
    b1, b2 = distribution("bernoulli", (F(1, 3),)), distribution("bernoulli", (F(1, 2),))
    assert holds(S.CTOR_INJ, b1, b2) and holds(S.TV_TRIANGLE, V.tv(b1, b2), V.tv(b1, b1))


@SETTINGS
@given(bool_pairs())
def test_list_relation_schemas_unfold_and_bound_dist(pair):
    l1, l2 = (list_term(x, "bool") for x in pair)
    assert holds(S.ADJ_CONS, l1, l2) and holds(S.DIST_CONS, l1, l2)
    assert holds(S.DIST_ADJ, V.adj(l1, l2))
    if len(pair[0]) == len(pair[1]):   # dist is defined on lists of one length
        assert holds(S.DIST_LEN, l1, l2)


@SETTINGS
@given(real_pairs())
def test_adjwithin_unfolding_and_dist_schemas_for_every_bound(case):
    l1, l2, c = case
    t1, t2 = list_term(l1, "real"), list_term(l2, "real")
    assert holds(S.ADJW_CONS, t1, t2, T.real(c))
    if len(l1) == len(l2):
        assert holds(S.DIST_ADJ, V.adj_within(t1, t2, T.real(c)))


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(beta_pairs(), st.sampled_from([F(1, 2), F(1), F(2)]), st.sampled_from([F(1, 4), F(1), F(3)]))
def test_g_bounds_of_adjacent_posteriors(pair, a0, b0):
    """Lemmas 6.1-6.3 with the prior's lower bounds (a0, b0): instances at the pair's values."""
    p, q = (distribution("beta", x) for x in pair)
    assert holds(S.BETA_G, V.hellinger(p, q), T.real(a0), T.real(b0))
    assert holds(S.BETA_TV_G, V.tv(p, q), T.real(a0), T.real(b0))
    d1, d2 = (distribution("dirichlet", (x[0], x[1], F(2))) for x in pair)
    assert holds(S.DIR_G, V.hellinger(d1, d2), T.real(a0))


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(beta_pairs())
def test_tv_and_hellinger_compared_on_betas(pair):
    """Le Cam: H^2 <= TV and TV^2 <= 2 H^2, on the evaluator's exact distances of Betas and
    Bernoullis; the instance is built only for one pair of distributions."""
    p, q = (distribution("beta", x) for x in pair)
    assert holds(S.TV_HELLINGER, V.tv(p, q), V.hellinger(q, p))
    assert value(S.TV_HELLINGER.instance(V.tv(p, q), V.hellinger(p, q))) is True
    b1, b2 = (distribution("bernoulli", (F(x[0], x[0] + x[1]),)) for x in pair)
    assert value(S.TV_HELLINGER.instance(V.tv(b1, b2), V.hellinger(b1, b2))) is True
    with pytest.raises(S.SchemaError):
        S.TV_HELLINGER.instance(V.tv(p, q), V.hellinger(p, b1))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.integers(0, 9), min_size=2, max_size=4),
       st.lists(st.integers(1, 9), min_size=2, max_size=4))
def test_pinsker_on_finite_distributions(p_weights, q_weights):
    """The evaluator has no KL: Pinsker's 2 TV^2 <= KL is checked on finite distributions with
    the lemma library's exact divergences, and the schema's instance has that shape."""
    from lemmas import divergences as D
    k = min(len(p_weights), len(q_weights))
    assume(sum(p_weights[:k]) > 0)
    p = {i: F(w, sum(p_weights[:k])) for i, w in enumerate(p_weights[:k])}
    q = {i: F(w, sum(q_weights[:k])) for i, w in enumerate(q_weights[:k])}
    assert 2 * D.sd(p, q) ** 2 <= D.kl(p, q).evalf(50) + F(1, 10 ** 40)
    d1, d2 = distribution("bernoulli", (F(1, 3),)), distribution("bernoulli", (F(1, 2),))
    instance = S.PINSKER.instance(V.tv(d1, d2), V.kl(d2, d1))
    assert instance == T.le(T.mul(2, T.mul(V.tv(d1, d2), V.tv(d1, d2))), V.kl(d2, d1))
    with pytest.raises(S.SchemaError):
        S.PINSKER.instance(V.tv(d1, d2), V.kl(d1, d1))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 12), st.integers(0, 12), st.integers(1, 12))
def test_tv_of_bernoullis_is_the_difference_of_their_biases(i, j, n):
    """tv (bernoulli a, bernoulli b) = |a - b| on the evaluator's exact distance; the
    instance is built only for two Bernoullis."""
    assume(i <= n and j <= n)
    b1, b2 = distribution("bernoulli", (F(i, n),)), distribution("bernoulli", (F(j, n),))
    assert value(S.TV_BERNOULLI.instance(V.tv(b1, b2))) is True
    p = distribution("beta", (F(1), F(2)))
    assert S.TV_BERNOULLI.build(V.tv(b1, p)) is None


#: the closed forms are evaluated at 50 digits: the bound 1 is reached exactly at priors 1
TOLERANCE = __import__("mpmath").mpf(10) ** -40


def _beta_kl(a1, b1, a2, b2):
    """KL(Beta(a1, b1) || Beta(a2, b2)) by its closed form, with mpmath at 50 digits."""
    import mpmath as mp
    with mp.workdps(50):
        a1, b1, a2, b2 = (mp.mpf(x.numerator) / x.denominator for x in (a1, b1, a2, b2))
        return (mp.log(mp.beta(a2, b2)) - mp.log(mp.beta(a1, b1)) + (a1 - a2) * mp.digamma(a1)
                + (b1 - b2) * mp.digamma(b1) + (a2 - a1 + b2 - b1) * mp.digamma(a1 + b1))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.builds(F, st.integers(4, 60), st.integers(4, 4)),
       st.builds(F, st.integers(4, 60), st.integers(4, 4)))
def test_kl_of_adjacent_beta_posteriors_is_at_most_one(A, B):
    """The evaluator has no KL: the instance of betakl is checked against the closed form
    (lemma beta.kl.adjacent) for parameters >= 1, where the bound is reached at A = B = 1;
    below 1 it is false (the schema's hypothesis excludes it)."""
    assert _beta_kl(A + 1, B, A, B + 1) - 1 <= TOLERANCE
    assert _beta_kl(A, B + 1, A + 1, B) - 1 <= TOLERANCE
    p, q = distribution("beta", (A + 1, B)), distribution("beta", (A, B + 1))
    instance = S.BETA_KL.instance(V.kl(p, q))
    assert instance.args[-1] == T.le(V.kl(p, q), 1)


def test_the_kl_bound_is_tight_and_needs_priors_at_least_one():
    one = F(1)
    assert abs(_beta_kl(2 * one, one, one, 2 * one) - 1) < TOLERANCE
    assert _beta_kl(F(3, 2), F(1, 2), F(1, 2), F(3, 2)) > 1      # prior (1/2, 1/2): KL = 2
    d1, d2 = distribution("bernoulli", (F(1, 3),)), distribution("bernoulli", (F(1, 2),))
    assert S.KL_GIBBS.instance(V.kl(d1, d2)) == T.and_(
        T.le(0, V.kl(d1, d2)), T.implies(T.eq(d1, d2), T.eq(V.kl(d1, d2), 0)))
    with pytest.raises(S.SchemaError):
        S.BETA_KL.instance(V.tv(d1, d2))


def _dirichlet_kl(a, b):
    import mpmath as mp
    with mp.workdps(50):
        a = [mp.mpf(x.numerator) / x.denominator for x in a]
        b = [mp.mpf(x.numerator) / x.denominator for x in b]
        a0, b0 = sum(a), sum(b)
        return (mp.loggamma(a0) - sum(mp.loggamma(x) for x in a) - mp.loggamma(b0)
                + sum(mp.loggamma(x) for x in b)
                + sum((x - y) * (mp.digamma(x) - mp.digamma(a0)) for x, y in zip(a, b)))


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.tuples(*[st.builds(F, st.integers(4, 40), st.integers(4, 4))] * 3),
       st.integers(0, 2), st.integers(0, 2))
def test_kl_of_adjacent_dirichlet_posteriors_is_at_most_one(base, i, j):
    assume(i != j)
    p = [x + (1 if m == i else 0) for m, x in enumerate(base)]
    q = [x + (1 if m == j else 0) for m, x in enumerate(base)]
    assert _dirichlet_kl(p, q) - 1 <= TOLERANCE
    d1, d2 = distribution("dirichlet", p), distribution("dirichlet", q)
    instance = S.DIR_KL.instance(V.kl(d1, d2))
    assert instance.args[-1] == T.le(V.kl(d1, d2), 1)
    half = [F(1, 2)] * 3
    moved = [x + (1 if m == i else 0) for m, x in enumerate(half)]
    other = [x + (1 if m == j else 0) for m, x in enumerate(half)]
    assert _dirichlet_kl(moved, other) > 1  # below 1 the bound is false


#: The schemas the tests above instantiate (a new schema must be added here, with a test).
TESTED = {"len", "count", "countof", "nil", "cons", "empty", "consinj", "nilcons", "adjlen",
          "adjcount", "adjcountof", "adjrefl", "adjwlen", "adjwsum", "adjwrefl", "dist",
          "distcount", "metric", "triangle", "tvmetric", "tvtriangle", "betarho", "betazeta",
          "dirrho", "ctorinj", "adjcons", "adjwcons", "distcons", "distadj", "distlen", "betag",
          "betatvg", "dirg", "ground", "allinnil", "allincons", "allinsum",
          "allinground", "allwlen", "allwrefl", "allwcons", "pinsker", "tvhellinger",
          "klgibbs", "betakl", "dirkl", "tvbernoulli"}


def test_every_schema_is_covered():
    assert set(S.SCHEMAS) == TESTED, f"schemas without a test against the evaluator: " \
        f"{sorted(set(S.SCHEMAS) - TESTED)}"


# ---- the member facts of posteriors candidates ----------------------------------------------


@settings(max_examples=30, deadline=None)
@given(st.sampled_from(["beta", "dirichlet"]), st.tuples(small, small, small), st.integers(0, 3))
def test_members_of_posteriors_have_the_stated_form(family, params, n):
    prior = distribution(family, params[:2] if family == "beta" else params)
    lst = V.posteriors_list(prior, T.integer(n))
    conj = conjugate(lst)
    members = list(value(lst))
    arity = 1 if family == "beta" else 3
    assert len(members) == (n + 1 if family == "beta" else (n + 1) * (n + 2) // 2)
    for member in members:
        term = distribution(family, member.params())
        found = False
        for counts in _count_vectors(n, arity, family):
            facts = conj.facts(term, [T.real(p) for p in member.params()],
                               [T.integer(c) for c in counts])
            if value(T.and_(*facts)) is True:
                found = True
        assert found, member.format()


def _count_vectors(n, arity, family):
    if family == "beta":
        return [(k,) for k in range(n + 1)]
    return [(a, b, n - a - b) for a in range(n + 1) for b in range(n + 1 - a)]


# ---- the translator's closed forms --------------------------------------------------------------


def _lit(q: F) -> str:
    """A rational in the language's syntax (``(3.0 / 4.0)``)."""
    return f"({q.numerator}.0 / {q.denominator}.0)"


@SETTINGS
@given(positive, positive, positive)
def test_translated_closed_forms_equal_the_evaluator(a, b, c):
    """What the translator makes of a built-in (a term of the logic) is what the evaluator
    computes: mean, variance, sigma, getParams, abs, min, max, exp, log, sqrt."""
    from verifier.language.parser import parse_expr
    from verifier.translation.symbolic import Env
    from verifier.translation.translate import Translator
    from verifier.semantics.evaluator import evaluate_expr

    checks = []
    tr = Translator(checks.append, lambda *args: None,
                    lambda name, sort, run: T.var(name, sort), lambda name: (0, None))
    x, y, delta = _lit(a), _lit(b), _lit(min(c / 8, F(1, 2)))
    for text in (f"mean (beta ({x}, {y}))", f"variance (beta ({x}, {y}))",
                 f"mean (normal ({x}, {y}))", f"variance (normal ({x}, {y}))",
                 f"sigma ({x}, {delta})", f"getParams (bernoulli (min ({x}, 1.0)))",
                 f"abs ({x} - {y})", f"min ({x}, {y})", f"max ({x}, {y})",
                 f"exp (log {x})", f"sqrt ({x} * {x})", f"pi * {x}"):
        expr = parse_expr(text)
        assert value(tr.term(expr, 1, Env())) == evaluate_expr(expr), text
    # the range conditions the translator reported hold at these values
    assert all(value(chk.condition) is True for chk in checks)
