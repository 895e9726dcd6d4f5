"""Lemmas about the definitions of the built-in lists and distribution constructors.

The verifier's axiom schemas (``obligations.schemas``) cite a lemma for every axiom they add
to an obligation. The facts about lists that follow directly from the definitions of
LANGUAGE.md (``length``, ``count``, ``sum``, ``countOf``, ``[]``, ``::``, ``adj``,
``adjWithin``, ``dist``) and the identifiability of the distribution families are stated
here, each proved (by Z3, ``qed``) from a definitional fact of ``lemmas.artifacts``'s fact
table; those facts are their trust base. One lemma per schema statement:

| lemma | what the schemas use |
|---|---|
| ``lists.length.nat`` | ``length l >= 0`` |
| ``lists.count.nat`` | ``0 <= count l <= length l`` |
| ``lists.catcount.total/k=K`` | category counts are non-negative and sum to the length |
| ``lists.definition`` | ``[]`` and ``x :: l`` unfold length, count, sum and the category counts; a list of length 0 has zero statistics; ``::`` is injective; ``[] <> x :: l`` |
| ``lists.adj.reflexive`` | ``l1 = l2`` implies ``adj (l1, l2)`` |
| ``lists.adjwithin.reflexive`` | ``l1 = l2`` and ``c >= 0`` imply ``adjWithin (l1, l2, c)`` |
| ``lists.dist.definition`` | ``dist (l1, l2) >= 0``, and 0 for equal lists |
| ``lists.dist.count`` | equal lengths: ``abs (count l1 - count l2) <= dist (l1, l2)`` |
| ``lists.dist.adjacent`` | ``adj (l1, l2)`` and ``adjWithin (l1, l2, c)`` each imply ``dist (l1, l2) <= 1`` |
| ``lists.dist.length`` | equal lengths: ``dist (l1, l2) <= length l1`` |
| ``lists.allin.definition`` | the element ranges of ``nat``, ``real+``, ``[0,1]`` and ``[k]`` lists on ``[]`` and ``x :: l`` |
| ``lists.allin.sum`` | the sum of a ``[0,1] list`` is in ``[0, length]``, of a ``real+ list`` non-negative |
| ``lists.cons.relations`` | ``adj``, ``adjWithin`` and ``dist`` of ``x :: l`` and ``y :: m`` unfold to the tails |
| ``lists.allwithin.definition`` | ``allWithin`` lists have one length, a list is within ``c >= 0`` of itself, and ``allWithin`` of ``x :: l`` and ``y :: m`` unfolds to the tails |
| ``distributions.injective``, ``distributions.injective.dirichlet/k=K`` | equal distributions of one family have equal parameters |

and one the ExpMech rule uses for a candidate drawn from ``posteriors (P, n)``
(``obligations.candidates``), proved from the definitions of an entry of a list
(``lists.member``) and of ``posteriors`` (``posteriors.beta.definition``,
``posteriors.dirichlet.definition/k=K``):

| lemma | statement |
|---|---|
| ``posteriors.members.beta`` | every entry of ``posteriors (beta (a, b), n)`` is ``beta (a + k, b + n - k)`` with k an integer, 0 <= k <= n |
| ``posteriors.members.dirichlet/k=K`` | every entry of ``posteriors (dirichlet (a1..aK), n)`` is ``dirichlet (a1 + c1, ..., aK + cK)`` with naturals c summing to n |
"""
from __future__ import annotations

import sympy as sp

from lemmas import exprs
from lemmas.core import ArtifactBuilder, Lemma, eq, params, symbols

F = exprs.function
SOURCE = "definitions of the built-ins (LANGUAGE.md)"


def _from_fact(lemma_id: str, title: str, prose: str, P, hyps, concl, fact_id: str,
               instances, k=None) -> Lemma:
    """A lemma proved by Z3 from instances (``{symbol: term}``) of one definitional fact."""
    bld = ArtifactBuilder(lemma_id, "proved", P, hyps, concl)
    f = bld.fact(fact_id)
    bld.qed([bld.ref(f, **at) for at in instances])
    return Lemma(lemma_id, title, prose, P, hyps, concl, SOURCE, "proved", bld.build(), k)


def length_nat() -> Lemma:
    P = params(("l", "list"))
    l = symbols(P)["l"]
    return _from_fact("lists.length.nat", "length is a natural number",
                      "Every list has a length of at least 0.", P, (), sp.Ge(F("Length")(l), 0),
                      "lists.length.nat", [{"l": l}])


def count_nat() -> Lemma:
    P = params(("l", "list"))
    l = symbols(P)["l"]
    Count, Length = F("Count"), F("Length")
    concl = sp.And(sp.Ge(Count(l), 0), sp.Le(Count(l), Length(l)))
    return _from_fact("lists.count.nat", "count is between 0 and the length",
                      "A bool list has between 0 and length-many true entries.", P, (), concl,
                      "lists.count.nat", [{"l": l}])


def catcount_total(k: int) -> Lemma:
    P = params(("l", "list"))
    l = symbols(P)["l"]
    CC = F("CountCat")
    concl = sp.And(*[sp.Ge(CC(l, i), 0) for i in range(k)],
                   eq(sp.Add(*[CC(l, i) for i in range(k)]), F("Length")(l)))
    return _from_fact(f"lists.catcount.total/k={k}", f"category counts of a [{k}] list",
                      "The category counts of a [k] list are non-negative and sum to its length.",
                      P, (), concl, f"lists.catcount.total/k={k}", [{"l": l}], k)


def definition() -> Lemma:
    P = params(("x", "real"), ("y", "real"), ("i", "real"), ("l", "list"), ("m", "list"))
    S = symbols(P)
    x, y, i, l, m = S["x"], S["y"], S["i"], S["l"], S["m"]
    Length, Count, ListSum, CC, Cons, IsNil = (F(n) for n in (
        "Length", "Count", "ListSum", "CountCat", "Cons", "IsNil"))
    zero = sp.And(eq(Count(l), 0), eq(ListSum(l), 0), eq(CC(l, i), 0))
    c = Cons(x, l)
    concl = sp.And(
        sp.Implies(IsNil(l), sp.And(eq(Length(l), 0), zero)),
        sp.Implies(eq(Length(l), 0), zero),
        eq(Length(c), Length(l) + 1),
        sp.Implies(sp.Or(eq(x, 0), eq(x, 1)), eq(Count(c), x + Count(l))),
        eq(ListSum(c), x + ListSum(l)),
        eq(CC(c, i), CC(l, i) + sp.Piecewise((1, eq(x, i)), (0, True))),
        sp.Implies(eq(c, Cons(y, m)), sp.And(eq(x, y), eq(l, m))),
        sp.Implies(IsNil(m), sp.Not(eq(m, c))))
    return _from_fact("lists.definition", "the definitions of [] and ::",
                      "[] has length, count, sum and category counts 0, and so does every list "
                      "of length 0; x :: l unfolds them; :: is injective and never [].",
                      P, (), concl, "lists.definition",
                      [{"x": x, "y": y, "i": i, "l": l, "m": m}])


def adj_reflexive() -> Lemma:
    P = params(("l1", "list"), ("l2", "list"))
    S = symbols(P)
    l1, l2 = S["l1"], S["l2"]
    return _from_fact("lists.adj.reflexive", "adj is reflexive",
                      "Equal lists are adjacent.", P, (eq(l1, l2),), F("Adj")(l1, l2),
                      "lists.adj.reflexive", [{"l": l1, "c": 0}])


def adjwithin_reflexive() -> Lemma:
    P = params(("l1", "list"), ("l2", "list"), ("c", "real"))
    S = symbols(P)
    l1, l2, c = S["l1"], S["l2"], S["c"]
    return _from_fact("lists.adjwithin.reflexive", "adjWithin is reflexive",
                      "Equal lists are adjacent within any c >= 0.", P,
                      (eq(l1, l2), sp.Ge(c, 0)), F("AdjWithin")(l1, l2, c),
                      "lists.adj.reflexive", [{"l": l1, "c": c}])


def dist_definition() -> Lemma:
    P = params(("l1", "list"), ("l2", "list"))
    S = symbols(P)
    l1, l2 = S["l1"], S["l2"]
    d = F("HammingDist")(l1, l2)
    concl = sp.And(sp.Ge(d, 0), sp.Implies(eq(l1, l2), eq(d, 0)))
    return _from_fact("lists.dist.definition", "dist is non-negative and 0 on equal lists",
                      "The Hamming distance is at least 0, and 0 between equal lists.", P, (),
                      concl, "lists.dist.definition", [{"l": l1, "m": l2}])


def dist_count() -> Lemma:
    P = params(("l1", "list"), ("l2", "list"))
    S = symbols(P)
    l1, l2 = S["l1"], S["l2"]
    Length, Count = F("Length"), F("Count")
    concl = sp.Le(sp.Abs(Count(l1) - Count(l2)), F("HammingDist")(l1, l2))
    return _from_fact("lists.dist.count", "count is 1-sensitive in the Hamming distance",
                      "Bool lists of one length have counts at most their Hamming distance "
                      "apart.", P, (eq(Length(l1), Length(l2)),), concl, "lists.dist.count",
                      [{"l": l1, "m": l2}])


def dist_adjacent() -> Lemma:
    P = params(("l1", "list"), ("l2", "list"), ("c", "real"))
    S = symbols(P)
    l1, l2, c = S["l1"], S["l2"], S["c"]
    d = F("HammingDist")(l1, l2)
    concl = sp.And(sp.Implies(F("Adj")(l1, l2), sp.Le(d, 1)),
                   sp.Implies(F("AdjWithin")(l1, l2, c), sp.Le(d, 1)))
    bld = ArtifactBuilder("lists.dist.adjacent", "proved", P, (), concl)
    relation, within = bld.fact("lists.adj.dist"), bld.fact("lists.adjwithin.adj")
    bld.qed([bld.ref(relation, l=l1, m=l2), bld.ref(within, l1=l1, l2=l2, c=c)])
    return Lemma("lists.dist.adjacent", "adjacent lists are at Hamming distance at most 1",
                 "adj (l1, l2) and adjWithin (l1, l2, c) each imply dist (l1, l2) <= 1.", P, (),
                 concl, SOURCE, "proved", bld.build())


def dist_length() -> Lemma:
    P = params(("l1", "list"), ("l2", "list"))
    S = symbols(P)
    l1, l2 = S["l1"], S["l2"]
    Length = F("Length")
    return _from_fact("lists.dist.length", "dist is at most the length",
                      "Two lists of one length differ in at most that many positions.", P,
                      (eq(Length(l1), Length(l2)),), sp.Le(F("HammingDist")(l1, l2), Length(l1)),
                      "lists.dist.length", [{"l": l1, "m": l2}])


def cons_relations() -> Lemma:
    P = params(("x", "real"), ("y", "real"), ("c", "real"), ("l", "list"), ("m", "list"))
    S = symbols(P)
    x, y, c, l, m = S["x"], S["y"], S["c"], S["l"], S["m"]
    Cons, Adj, AdjW, Dist, Length = (F(n) for n in ("Cons", "Adj", "AdjWithin", "HammingDist",
                                                    "Length"))
    cx, cy = Cons(x, l), Cons(y, m)
    adj = sp.Or(sp.And(eq(x, y), Adj(l, m)), eq(l, m))
    within = sp.Or(sp.And(eq(x, y), AdjW(l, m, c)),
                   sp.And(sp.Ne(x, y), eq(l, m), sp.Le(sp.Abs(x - y), c)))
    concl = sp.And(
        sp.Implies(Adj(cx, cy), adj), sp.Implies(adj, Adj(cx, cy)),
        sp.Implies(AdjW(cx, cy, c), within), sp.Implies(within, AdjW(cx, cy, c)),
        sp.Implies(eq(Length(l), Length(m)),
                   eq(Dist(cx, cy), Dist(l, m) + sp.Piecewise((0, eq(x, y)), (1, True)))))
    return _from_fact("lists.cons.relations", "adj, adjWithin and dist of x :: l and y :: m",
                      "adj (x :: l, y :: m) iff x = y and adj (l, m), or l = m; adjWithin the "
                      "same with the one difference at most c; dist adds 1 when x <> y "
                      "(l and m of one length).", P, (), concl, "lists.cons.relations",
                      [{"x": x, "y": y, "c": c, "l": l, "m": m}])


def allwithin_definition() -> Lemma:
    P = params(("x", "real"), ("y", "real"), ("c", "real"), ("l", "list"), ("m", "list"))
    S = symbols(P)
    x, y, c, l, m = S["x"], S["y"], S["c"], S["l"], S["m"]
    Cons, AllW, Length = F("Cons"), F("AllWithin"), F("Length")
    unfolded = sp.And(sp.Le(sp.Abs(x - y), c), AllW(l, m, c))
    concl = sp.And(sp.Implies(AllW(l, m, c), eq(Length(l), Length(m))),
                   sp.Implies(sp.Ge(c, 0), AllW(l, l, c)),
                   sp.Implies(AllW(Cons(x, l), Cons(y, m), c), unfolded),
                   sp.Implies(unfolded, AllW(Cons(x, l), Cons(y, m), c)))
    return _from_fact("lists.allwithin.definition", "the definition of allWithin",
                      "allWithin (l, m, c) lists have one length; a list is within any c >= 0 "
                      "of itself; allWithin (x :: l, y :: m, c) iff |x - y| <= c and "
                      "allWithin (l, m, c).", P, (), concl, "lists.allwithin.definition",
                      [{"x": x, "y": y, "c": c, "l": l, "m": m}])


def allin_definition() -> Lemma:
    P = params(("x", "real"), ("k", "real"), ("l", "list"))
    S = symbols(P)
    x, k, l = S["x"], S["k"], S["l"]
    Cons, IsNil = F("Cons"), F("IsNil")
    c = Cons(x, l)
    preds = [(F("AllInNat"), (), sp.Ge(x, 0)), (F("AllInPos"), (), sp.Gt(x, 0)),
             (F("AllInUnit"), (), sp.And(sp.Ge(x, 0), sp.Le(x, 1))),
             (F("AllInFin"), (k,), sp.And(sp.Ge(x, 0), sp.Lt(x, k)))]
    parts = [sp.Implies(IsNil(l), sp.And(*[p(l, *extra) for p, extra, _ in preds]))]
    for p, extra, cond in preds:
        parts += [sp.Implies(p(c, *extra), sp.And(cond, p(l, *extra))),
                  sp.Implies(sp.And(cond, p(l, *extra)), p(c, *extra))]
    return _from_fact("lists.allin.definition", "the element ranges of lists",
                      "Every entry of [] is in any range; every entry of x :: l is in a range "
                      "exactly when x is and every entry of l is (nat: x >= 0; real+: x > 0; "
                      "[0,1]: 0 <= x <= 1; [k]: 0 <= x < k).", P, (), sp.And(*parts),
                      "lists.allin.definition", [{"x": x, "k": k, "l": l}])


def allin_sum() -> Lemma:
    P = params(("l", "list"))
    l = symbols(P)["l"]
    total, length = F("ListSum")(l), F("Length")(l)
    concl = sp.And(sp.Implies(F("AllInUnit")(l), sp.And(sp.Ge(total, 0), sp.Le(total, length))),
                   sp.Implies(F("AllInPos")(l), sp.Ge(total, 0)))
    return _from_fact("lists.allin.sum", "the sum of a list of [0,1] or positive values",
                      "The sum of a [0,1] list is between 0 and its length; the sum of a real+ "
                      "list is at least 0.", P, (), concl, "lists.allin.sum", [{"l": l}])


def _injective(family: str, a, b):
    Fam = F(family)
    return sp.Implies(eq(Fam(*a), Fam(*b)), sp.And(*[eq(x, y) for x, y in zip(a, b)]))


def injective() -> Lemma:
    P = params(("a1", "real"), ("b1", "real"), ("a2", "real"), ("b2", "real"))
    S = symbols(P)
    a1, b1, a2, b2 = S["a1"], S["b1"], S["a2"], S["b2"]
    concl = sp.And(_injective("BetaDist", (a1, b1), (a2, b2)),
                   _injective("NormalDist", (a1, b1), (a2, b2)),
                   _injective("BernoulliDist", (a1,), (a2,)))
    return _from_fact("distributions.injective", "distribution constructors are injective",
                      "Two Beta, Normal or Bernoulli distributions are equal only with equal "
                      "parameters.", P, (), concl, "distributions.injective",
                      [{n: S[n] for n in ("a1", "b1", "a2", "b2")}])


def injective_k(k: int) -> Lemma:
    names = [f"a{i}" for i in range(1, k + 1)] + [f"b{i}" for i in range(1, k + 1)]
    P = params(*[(n, "real") for n in names])
    S = symbols(P)
    a, b = [S[n] for n in names[:k]], [S[n] for n in names[k:]]
    concl = sp.And(_injective("DirichletDist", a, b), _injective("CategoricalDist", a, b))
    return _from_fact(f"distributions.injective.dirichlet/k={k}",
                      f"Dirichlet and categorical constructors are injective (k = {k})",
                      "Two Dirichlet or two categorical distributions over k categories are "
                      "equal only with equal parameters.", P, (), concl,
                      f"distributions.injective.dirichlet/k={k}", [{n: S[n] for n in names}], k)


def posteriors_beta() -> Lemma:
    """Every entry of posteriors (beta (a, b), n) is beta (a + k, b + n - k), 0 <= k <= n."""
    P = params(("a", "pos"), ("b", "pos"), ("n", "nat"), ("r", "dist"))
    S = symbols(P)
    a, b, n, r = S["a"], S["b"], S["n"], S["r"]
    lst = F("Posteriors")(exprs.BetaDist(a, b), n)
    k = F("IndexOf")(r, lst)
    hyps = (F("Member")(r, lst),)
    concl = sp.And(F("IsInteger")(k), sp.Ge(k, 0), sp.Le(k, n),
                   eq(r, exprs.BetaDist(a + k, b + n - k)))
    bld = ArtifactBuilder("posteriors.members.beta", "proved", P, hyps, concl)
    member = bld.fact("lists.member")
    definition = bld.fact("posteriors.beta.definition")
    bld.qed([bld.ref(member, x=r, l=lst), bld.ref(definition, a=a, b=b, n=n, i=k)],
            note="r is the entry at its position k, 0 <= k < length = n + 1, which is "
                 "beta (a + k, b + n - k)")
    return Lemma("posteriors.members.beta", "the members of posteriors (beta (a, b), n)",
                 "Every entry r of posteriors (beta (a, b), n) is beta (a + k, b + n - k) for "
                 "an integer k with 0 <= k <= n (its position in the list).", P, hyps, concl,
                 SOURCE, "proved", bld.build())


def posteriors_dirichlet(k: int) -> Lemma:
    """Every entry of posteriors (dirichlet (a1..ak), n) is dirichlet (a1 + c1, ..., ak + ck)
    for naturals c1..ck summing to n."""
    names = [f"a{i}" for i in range(1, k + 1)]
    P = params(*[(x, "pos") for x in names], ("n", "nat"), ("r", "dist"))
    S = symbols(P)
    a, n, r = [S[x] for x in names], S["n"], S["r"]
    lst = F("Posteriors")(exprs.DirichletDist(*a), n)
    i = F("IndexOf")(r, lst)
    cs = [F("PosteriorCount")(lst, i, j) for j in range(1, k + 1)]
    hyps = (F("Member")(r, lst),)
    concl = sp.And(*[sp.And(F("IsInteger")(c), sp.Ge(c, 0)) for c in cs], eq(sp.Add(*cs), n),
                   eq(r, exprs.DirichletDist(*[x + c for x, c in zip(a, cs)])))
    lid = f"posteriors.members.dirichlet/k={k}"
    bld = ArtifactBuilder(lid, "proved", P, hyps, concl)
    member = bld.fact("lists.member")
    definition = bld.fact(f"posteriors.dirichlet.definition/k={k}")
    bld.qed([bld.ref(member, x=r, l=lst),
             bld.ref(definition, **{x: y for x, y in zip(names, a)}, n=n, i=i)],
            note="r is the entry at its position i, which is dirichlet (a + c) for the count "
                 "vector c of that entry")
    return Lemma(lid, f"the members of posteriors (dirichlet (a1..a{k}), n)",
                 "Every entry r of posteriors (dirichlet (a1, ..., ak), n) is "
                 "dirichlet (a1 + c1, ..., ak + ck) for naturals c1, ..., ck summing to n.",
                 P, hyps, concl, SOURCE, "proved", bld.build(), k)
