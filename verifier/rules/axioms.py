"""Ground instances of lemmas about the uninterpreted symbols of an obligation.

The logic leaves ``length``, ``count``, ``sum``, ``adj``, ``hellinger``, the distribution
constructors… uninterpreted. What a proof needs to know about them is added to each
obligation as named axioms, every one a ground instance of a *schema* below, and every schema
an instance of a lemma of the library (``SCHEMAS[name].lemma``) or of the definitions of
LANGUAGE.md. Instantiation is driven by the terms present in the obligation (a fixpoint over
at most ``_ROUNDS`` rounds), so obligations stay small and decidable.

Adding an axiom can only make more obligations provable *if the axiom is true*; every schema
is a true statement about the language's built-ins, which is what makes this sound.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Dict, Iterable, List, Sequence, Tuple

from obligations import terms as T
from verifier.rules import logic as L

RHO = T.sqrt(T.sub(1, T.div(T.pi(), 4)))                       # sqrt(1 - pi/4)
ZETA = T.sqrt(T.mul(2, T.sub(1, T.div(T.pi(), 4))))            # sqrt(2 (1 - pi/4))


@dataclass(frozen=True)
class Schema:
    name: str
    lemma: str
    statement: str


SCHEMAS: Dict[str, Schema] = {}


def _schema(name: str, lemma: str, statement: str) -> str:
    SCHEMAS[name] = Schema(name, lemma, statement)
    return name


LEN_NONNEG = _schema("len", "lists.length.nat", "length l >= 0")
COUNT_BOUNDS = _schema("count", "lists.count.nat", "0 <= count l <= length l")
COUNTOF_BOUNDS = _schema("countof", "lists.catcount.total/k", "countOf (l, j) >= 0 and they sum to length l")
NIL = _schema("nil", "lists.definition", "length, count, sum and countOf of [] are 0")
CONS = _schema("cons", "lists.definition", "length, count, sum and countOf of x :: xs unfold")
EMPTY = _schema("empty", "lists.definition", "a list of length 0 has count, sum and countOf 0")
CONS_INJ = _schema("consinj", "lists.definition", "x :: xs = y :: ys implies x = y and xs = ys")
NIL_CONS = _schema("nilcons", "lists.definition", "[] <> x :: xs")
ADJ_LEN = _schema("adjlen", "sens.length.adj", "adj (l1, l2) implies length l1 = length l2")
ADJ_COUNT = _schema("adjcount", "sens.count.adj", "adj (l1, l2) implies |count l1 - count l2| <= 1")
ADJ_COUNTOF = _schema("adjcountof", "sens.counts.adj/k",
                      "adjacent [k] lists have equal counts or counts moved by one")
ADJ_REFL = _schema("adjrefl", "lists.adj.reflexive", "l1 = l2 implies adj (l1, l2)")
ADJW_LEN = _schema("adjwlen", "sens.adjwithin.adj",
                   "adjWithin (l1, l2, c) implies length l1 = length l2")
ADJW_SUM = _schema("adjwsum", "sens.sum.adjwithin",
                   "adjWithin (l1, l2, c) implies |sum l1 - sum l2| <= c")
ADJW_REFL = _schema("adjwrefl", "lists.adjwithin.reflexive", "l1 = l2 and c >= 0 implies adjWithin")
DIST_FACTS = _schema("dist", "lists.dist.definition", "0 <= dist (l1, l2); dist (l, l) = 0")
DIST_COUNT = _schema("distcount", "lists.dist.count",
                     "equal lengths imply |count l1 - count l2| <= dist (l1, l2)")
METRIC_RANGE = _schema("metric", "hellinger.triangle", "0 <= H (p, q) <= 1, H (p, p) = 0")
TRIANGLE = _schema("triangle", "hellinger.triangle",
                   "|H (p, r) - H (q, r)| <= H (p, q)")
TV_RANGE = _schema("tvmetric", "sd.metric", "0 <= TV (p, q) <= 1, TV (p, p) = 0")
TV_TRIANGLE = _schema("tvtriangle", "sd.metric", "|TV (p, r) - TV (q, r)| <= TV (p, q)")
BETA_RHO = _schema("betarho", "beta.hellinger.adjacent.rho",
                   "adjacent Beta posteriors with parameters >= 1 are within sqrt(1 - pi/4) in Hellinger distance")
BETA_ZETA = _schema("betazeta", "beta.tv.adjacent.zeta",
                    "adjacent Beta posteriors with parameters >= 1 are within sqrt(2 (1 - pi/4)) in total variation")
DIR_RHO = _schema("dirrho", "dirichlet.hellinger.adjacent.rho/k",
                  "adjacent Dirichlet posteriors with parameters >= 1 are within sqrt(1 - pi/4) in Hellinger distance")
CTOR_INJ = _schema("ctorinj", "distributions.injective",
                   "distributions of one family are equal only with equal parameters")

_ROUNDS = 3


def instantiate(terms: Sequence[T.Term]) -> Tuple[Tuple[str, T.Term], ...]:
    """Named ground axioms about the uninterpreted symbols occurring in ``terms``."""
    out: List[Tuple[str, T.Term]] = []
    seen: set = set()
    counter: Dict[str, int] = {}
    pool = list(terms)
    for _ in range(_ROUNDS):
        new: List[Tuple[str, T.Term]] = []
        for schema, axiom in _instances(pool):
            if axiom in seen or axiom == T.boolean(True):
                continue
            seen.add(axiom)
            k = counter.get(schema, 0) + 1
            counter[schema] = k
            new.append((f"ax_{schema}_{k}", axiom))
        if not new:
            break
        out.extend(new)
        pool = pool + [a for _, a in new]
    return tuple(out)


def _instances(pool: Sequence[T.Term]) -> Iterable[Tuple[str, T.Term]]:
    apps: List[T.Apply] = []
    lists: List[T.Term] = []
    seen_apps: set = set()
    for t in pool:
        for sub in T.subterms(t):
            if sub.sort.name.startswith("List[") and sub not in seen_apps:
                seen_apps.add(sub)
                lists.append(sub)
            if isinstance(sub, T.Apply) and ("app", sub) not in seen_apps:
                seen_apps.add(("app", sub))
                apps.append(sub)
    yield from _list_axioms(lists)
    for app in apps:
        yield from _relation_axioms(app)
    yield from _metric_axioms(apps)
    yield from _ctor_axioms(apps)


# ---- lists ----------------------------------------------------------------------------------

def _list_axioms(lists: Sequence[T.Term]) -> Iterable[Tuple[str, T.Term]]:
    conses = [l for l in lists if isinstance(l, T.Apply) and l.func.name == "cons"]
    nils = [l for l in lists if isinstance(l, T.Apply) and l.func.name.startswith("nil_")]
    for l in lists:
        key = L.list_key_of(l.sort)
        yield LEN_NONNEG, T.ge(L.length(l), 0)
        if key == "bool":
            yield COUNT_BOUNDS, T.and_(T.le(0, L.count(l)), T.le(L.count(l), L.length(l)))
        k = L.fin_size(key)
        if k:
            parts = [T.ge(L.count_of(l, j), 0) for j in range(k)]
            parts.append(T.eq(T.add(*[L.count_of(l, j) for j in range(k)]), L.length(l)))
            yield COUNTOF_BOUNDS, T.and_(*parts)
        yield EMPTY, T.implies(T.eq(L.length(l), 0), T.and_(*_zero_stats(l, key)))
    for n in nils:
        yield NIL, T.and_(T.eq(L.length(n), 0), *_zero_stats(n, L.list_key_of(n.sort)))
    for c in conses:
        head, tail = c.args
        key = L.list_key_of(c.sort)
        parts = [T.eq(L.length(c), T.add(1, L.length(tail)))]
        if key == "bool":
            parts.append(T.eq(L.count(c), T.add(T.ite(head, 1, 0), L.count(tail))))
        if key == "real":
            parts.append(T.eq(L.total(c), T.add(head, L.total(tail))))
        k = L.fin_size(key)
        if k:
            parts += [T.eq(L.count_of(c, j), T.add(T.ite(T.eq(head, j), 1, 0), L.count_of(tail, j)))
                      for j in range(k)]
        yield CONS, T.and_(*parts)
        for n in nils:
            if n.sort == c.sort:
                yield NIL_CONS, T.ne(n, c)
    for i, c1 in enumerate(conses):
        for c2 in conses[i + 1:]:
            if c1.sort == c2.sort:
                yield CONS_INJ, T.implies(T.eq(c1, c2), T.and_(T.eq(c1.args[0], c2.args[0]),
                                                               T.eq(c1.args[1], c2.args[1])))


def _zero_stats(l: T.Term, key: str) -> List[T.Term]:
    parts = []
    if key == "bool":
        parts.append(T.eq(L.count(l), 0))
    if key == "real":
        parts.append(T.eq(L.total(l), 0))
    k = L.fin_size(key)
    if k:
        parts += [T.eq(L.count_of(l, j), 0) for j in range(k)]
    return parts or [T.boolean(True)]


def _relation_axioms(app: T.Apply) -> Iterable[Tuple[str, T.Term]]:
    name = app.func.name
    if name == "adj":
        l1, l2 = app.args
        key = L.list_key_of(l1.sort)
        yield ADJ_LEN, T.implies(app, T.eq(L.length(l1), L.length(l2)))
        yield ADJ_REFL, T.implies(T.eq(l1, l2), app)
        if key == "bool":
            yield ADJ_COUNT, T.implies(app, T.le(T.abs_(T.sub(L.count(l1), L.count(l2))), 1))
        k = L.fin_size(key)
        if k:
            yield ADJ_COUNTOF, T.implies(app, _moved_by_one(
                [L.count_of(l1, j) for j in range(k)], [L.count_of(l2, j) for j in range(k)]))
    elif name == "adjWithin":
        l1, l2, c = app.args
        yield ADJW_LEN, T.implies(app, T.eq(L.length(l1), L.length(l2)))
        yield ADJW_SUM, T.implies(app, T.le(T.abs_(T.sub(L.total(l1), L.total(l2))), c))
        yield ADJW_REFL, T.implies(T.and_(T.eq(l1, l2), T.ge(c, 0)), app)
    elif name == "dist":
        l1, l2 = app.args
        yield DIST_FACTS, T.and_(T.ge(app, 0), T.implies(T.eq(l1, l2), T.eq(app, 0)))
        if L.list_key_of(l1.sort) == "bool":
            yield DIST_COUNT, T.implies(T.eq(L.length(l1), L.length(l2)),
                                        T.le(T.abs_(T.sub(L.count(l1), L.count(l2))), app))


def _moved_by_one(c1: List[T.Term], c2: List[T.Term]) -> T.Term:
    """The count vectors are equal, or one count moved from one category to another."""
    k = len(c1)
    options = [T.and_(*(T.eq(a, b) for a, b in zip(c1, c2)))]
    for i in range(k):
        for j in range(k):
            if i != j:
                parts = [T.eq(c1[i], T.add(c2[i], 1)), T.eq(c2[j], T.add(c1[j], 1))]
                parts += [T.eq(c1[m], c2[m]) for m in range(k) if m not in (i, j)]
                options.append(T.and_(*parts))
    return T.or_(*options)


# ---- distances between distributions ---------------------------------------------------------

_METRICS: Dict[str, Tuple[Callable[[T.Term, T.Term], T.Term], str, str]] = {
    "hellinger": (L.hellinger, METRIC_RANGE, TRIANGLE),
    "tv": (L.tv, TV_RANGE, TV_TRIANGLE),
}


def _metric_axioms(apps: Sequence[T.Apply]) -> Iterable[Tuple[str, T.Term]]:
    for name, (fn, range_schema, triangle_schema) in _METRICS.items():
        uses = [a for a in apps if a.func.name == name]
        for u in uses:
            p, q = u.args
            yield range_schema, T.and_(T.le(0, u), T.le(u, 1), T.implies(T.eq(p, q), T.eq(u, 0)))
            yield from _bound_lemmas(name, u)
        for i, u in enumerate(uses):
            for v in uses[i + 1:]:
                for a, b, r in _shared(u, v):
                    yield triangle_schema, T.le(T.abs_(T.sub(u, v)), fn(a, b))


def _shared(u: T.Apply, v: T.Apply):
    """Pairs of uses sharing one argument: ``(other_u, other_v, shared)``."""
    (u1, u2), (v1, v2) = u.args, v.args
    if u2 == v2 and u1 != v1:
        yield u1, v1, u2
    elif u1 == v1 and u2 != v2:
        yield u2, v2, u1


def _bound_lemmas(metric: str, use: T.Apply) -> Iterable[Tuple[str, T.Term]]:
    p, q = use.args
    if not (isinstance(p, T.Apply) and isinstance(q, T.Apply) and p.func == q.func):
        return
    family = p.func.name
    if family == "beta":
        near = _near_beta(*p.args, *q.args)
        if metric == "hellinger":
            yield BETA_RHO, T.implies(near, T.le(use, RHO))
        else:
            yield BETA_ZETA, T.implies(near, T.le(use, ZETA))
    elif family.startswith("dirichlet") and metric == "hellinger":
        yield DIR_RHO, T.implies(_near_dirichlet(list(p.args), list(q.args)), T.le(use, RHO))


def _near_beta(a1, b1, a2, b2) -> T.Term:
    """Beta(a1, b1) and Beta(a2, b2) are posteriors of adjacent data from a prior >= (1, 1)."""
    return T.or_(
        T.and_(T.eq(a1, a2), T.eq(b1, b2)),
        T.and_(T.eq(a1, T.add(a2, 1)), T.eq(b2, T.add(b1, 1)), T.ge(a2, 1), T.ge(b1, 1)),
        T.and_(T.eq(a2, T.add(a1, 1)), T.eq(b1, T.add(b2, 1)), T.ge(a1, 1), T.ge(b2, 1)))


def _near_dirichlet(p: List[T.Term], q: List[T.Term]) -> T.Term:
    """Dir(p), Dir(q): equal, or one observation moved from category j to i, with the base
    parameters of i and j at least 1 (then BC = g(base_i) g(base_j) >= pi/4)."""
    k = len(p)
    options = [T.and_(*(T.eq(a, b) for a, b in zip(p, q)))]
    for i in range(k):
        for j in range(k):
            if i != j:
                parts = [T.eq(p[i], T.add(q[i], 1)), T.eq(q[j], T.add(p[j], 1)),
                         T.ge(q[i], 1), T.ge(p[j], 1)]
                parts += [T.eq(p[m], q[m]) for m in range(k) if m not in (i, j)]
                options.append(T.and_(*parts))
    return T.or_(*options)


def _ctor_axioms(apps: Sequence[T.Apply]) -> Iterable[Tuple[str, T.Term]]:
    ctors = [a for a in apps if a.sort == L.DIST and a.args and a.func.name in _FAMILIES]
    for i, c1 in enumerate(ctors):
        for c2 in ctors[i + 1:]:
            if c1.func == c2.func:
                yield CTOR_INJ, T.implies(T.eq(c1, c2), T.and_(*(T.eq(x, y) for x, y in
                                                                  zip(c1.args, c2.args))))


_FAMILIES = {"beta", "normal", "bernoulli", "categorical"} | {f"dirichlet{k}" for k in range(2, 10)}
