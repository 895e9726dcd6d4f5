"""Axiom schemas: ground instances of lemmas about the uninterpreted built-ins.

The logic leaves ``length``, ``count``, ``sum``, ``adj``, ``hellinger``, the distribution
constructors… uninterpreted (``obligations.vocabulary``). What a proof needs to know about
them is added to each obligation as named axioms, every one a ground instance of a *schema*
below, and every schema an instance of lemmas of the library (``SCHEMAS[name].lemmas``).

A schema is a function from argument terms to one Bool term (``Schema.instance``); it fails
with ``SchemaError`` when the arguments do not fit. ``instantiate(terms)`` is the search that
decides which instances an obligation gets: driven by the terms present (a fixpoint over at
most ``_ROUNDS`` rounds), so obligations stay small and decidable. It returns ``Instance``
records — axiom name, term, schema and arguments — so that a certificate can say how every
axiom was made and the certificate kernel can rebuild it with ``Schema.instance`` alone,
without the search.

Adding an axiom can only make more obligations provable *if the axiom is true*; every schema
states a true fact about the language's built-ins, which is what makes this sound. Both the
verifier (``verifier.rules.axioms``) and the kernel (``checker``) import this module, which
imports nothing but ``obligations``.
"""
from __future__ import annotations

from fractions import Fraction
from functools import lru_cache
from typing import Callable, Dict, Iterable, List, Optional, Sequence, Tuple, Union

from obligations import terms as T
from obligations import vocabulary as V
from obligations.records import record

RHO = T.sqrt(T.sub(1, T.div(T.pi(), 4)))                       # sqrt(1 - pi/4)
ZETA = T.sqrt(T.mul(2, T.sub(1, T.div(T.pi(), 4))))            # sqrt(2 (1 - pi/4))
_FAMILIES = {"beta", "normal", "bernoulli", "categorical"} | {f"dirichlet{k}" for k in range(2, 10)}
_ROUNDS = 3


class SchemaError(ValueError):
    """A schema applied to arguments it does not fit."""


@record
class Schema:
    """An axiom schema. ``build(*args)`` returns the instance or None when the arguments do
    not fit; ``lemmas`` are the ids of the lemmas the instances follow from, where ``{k}``
    stands for the dimension ``dimension(*args)`` (the number of categories), or a function
    of the arguments giving those ids."""

    name: str
    lemmas: Union[Tuple[str, ...], Callable[..., Tuple[str, ...]]]
    statement: str
    build: Callable[..., Optional[T.Term]]
    dimension: Optional[Callable[..., int]] = None
    #: for an instance ``P ==> C`` whose P is a lemma's hypothesis: what P says, in words
    #: (``obligations.diagnosis`` names it when an obligation fails for want of it)
    hypothesis: Optional[str] = None

    def instance(self, *args: T.Term) -> T.Term:
        """The instance at ``args``; raises ``SchemaError`` when they do not fit."""
        try:
            term = self.build(*args)
        except (TypeError, KeyError, ValueError, AttributeError, IndexError) as exc:
            raise SchemaError(f"schema {self.name} does not apply to these arguments: {exc}") \
                from None
        if term is None:
            raise SchemaError(f"schema {self.name} does not apply to these arguments")
        return term

    def lemma_ids(self, *args: T.Term) -> Tuple[str, ...]:
        """The ids of the lemmas the instance at ``args`` follows from (dimension filled in)."""
        if callable(self.lemmas):
            return self.lemmas(*args)
        k = self.dimension(*args) if self.dimension else None
        return tuple(l.replace("{k}", str(k)) for l in self.lemmas)


@record
class Instance:
    """One axiom of an obligation: its name, term, schema and the schema's arguments."""

    name: str
    term: T.Term
    schema: str
    args: Tuple[T.Term, ...]


SCHEMAS: Dict[str, Schema] = {}


def _schema(name: str, lemmas, statement: str, dimension=None, hypothesis=None):
    lemmas = (lemmas,) if isinstance(lemmas, str) else lemmas

    def register(build: Callable[..., Optional[T.Term]]) -> Schema:
        SCHEMAS[name] = Schema(name, lemmas, statement, build, dimension, hypothesis)
        return SCHEMAS[name]
    return register


def _iff(a: T.Term, b: T.Term) -> T.Term:
    return T.and_(T.implies(a, b), T.implies(b, a))


def _key(l: T.Term) -> str:
    key = V.list_key_of(l.sort)
    if key is None:
        raise SchemaError(f"{T.pretty(l)} is not a list")
    return key


def _is_app(t: T.Term, name: str) -> bool:
    return isinstance(t, T.Apply) and t.func.name == name


def _list_k(l: T.Term, *_) -> int:
    return V.fin_size(_key(l)) or 0


def _dist_k(u: T.Term, *_) -> int:
    return len(u.args[0].args)


# ---- lists ------------------------------------------------------------------------------------

def _zero_stats(l: T.Term) -> List[T.Term]:
    key, parts = _key(l), []
    if key == "bool":
        parts.append(T.eq(V.count(l), 0))
    if key == "real":
        parts.append(T.eq(V.total(l), 0))
    parts += [T.eq(V.count_of(l, j), 0) for j in range(V.fin_size(key) or 0)]
    return parts or [T.boolean(True)]


@_schema("len", "lists.length.nat", "length l >= 0")
def LEN_NONNEG(l):
    _key(l)
    return T.ge(V.length(l), 0)


@_schema("count", "lists.count.nat", "0 <= count l <= length l")
def COUNT_BOUNDS(l):
    if _key(l) == "bool":
        return T.and_(T.le(0, V.count(l)), T.le(V.count(l), V.length(l)))
    return None


@_schema("countof", "lists.catcount.total/k={k}", "countOf (l, j) >= 0 and they sum to length l",
         _list_k)
def COUNTOF_BOUNDS(l):
    k = V.fin_size(_key(l))
    if not k:
        return None
    parts = [T.ge(V.count_of(l, j), 0) for j in range(k)]
    parts.append(T.eq(T.add(*[V.count_of(l, j) for j in range(k)]), V.length(l)))
    return T.and_(*parts)


@_schema("nil", "lists.definition", "length, count, sum and countOf of [] are 0")
def NIL(n):
    if not _is_app(n, V.nil_name(_key(n))):
        return None
    return T.and_(T.eq(V.length(n), 0), *_zero_stats(n))


@_schema("cons", "lists.definition", "length, count, sum and countOf of x :: xs unfold")
def CONS(c):
    key = _key(c)
    if not _is_app(c, "cons"):
        return None
    head, tail = c.args
    parts = [T.eq(V.length(c), T.add(1, V.length(tail)))]
    if key == "bool":
        parts.append(T.eq(V.count(c), T.add(T.ite(head, 1, 0), V.count(tail))))
    if key == "real":
        parts.append(T.eq(V.total(c), T.add(head, V.total(tail))))
    parts += [T.eq(V.count_of(c, j), T.add(T.ite(T.eq(head, j), 1, 0), V.count_of(tail, j)))
              for j in range(V.fin_size(key) or 0)]
    return T.and_(*parts)


@_schema("ground", "lists.definition",
         "a list written out (constants down to []) has the length, count, sum and countOf of "
         "its elements")
def GROUND(l):
    elements = ground_elements(l)
    if elements is None or not _is_app(l, "cons"):
        return None
    key = _key(l)
    parts = [T.eq(V.length(l), len(elements))]
    if key == "bool":
        parts.append(T.eq(V.count(l), sum(1 for e in elements if e.value)))
    if key == "real":
        parts.append(T.eq(V.total(l), sum((e.value for e in elements), Fraction(0))))
    parts += [T.eq(V.count_of(l, j), sum(1 for e in elements if e.value == j))
              for j in range(V.fin_size(key) or 0)]
    return T.and_(*parts)


def ground_elements(l: T.Term) -> Optional[List[T.Const]]:
    """The elements of ``l`` when it is written out: a spine of ``cons`` of constants down to
    ``[]``; None otherwise."""
    if not is_ground_list(l):
        return None
    out = []
    while _is_app(l, "cons"):
        out.append(l.args[0])
        l = l.args[1]
    return out


def is_ground_list(l: T.Term) -> bool:
    """Whether ``l`` is a list written out (once per distinct sub-term: ``T.dag_fold``)."""
    return T.dag_fold(l, _ground_step, _GROUND)


def _ground_step(u: T.Term, kids: List[bool]) -> bool:
    if isinstance(u, T.Apply) and u.func.name.startswith("nil_") and not u.args:
        return True
    return _is_app(u, "cons") and isinstance(u.args[0], T.Const) and kids[1]


_GROUND: Dict[T.Term, bool] = {}


@_schema("empty", "lists.definition", "a list of length 0 has count, sum and countOf 0")
def EMPTY(l):
    return T.implies(T.eq(V.length(l), 0), T.and_(*_zero_stats(l)))


@_schema("consinj", "lists.definition", "x :: xs = y :: ys implies x = y and xs = ys")
def CONS_INJ(c1, c2):
    if not (_is_app(c1, "cons") and _is_app(c2, "cons") and c1.sort == c2.sort):
        return None
    return T.implies(T.eq(c1, c2), T.and_(T.eq(c1.args[0], c2.args[0]),
                                          T.eq(c1.args[1], c2.args[1])))


@_schema("nilcons", "lists.definition", "[] <> x :: xs")
def NIL_CONS(n, c):
    if not (_is_app(n, V.nil_name(_key(n))) and _is_app(c, "cons") and n.sort == c.sort):
        return None
    return T.ne(n, c)


def _all_in_at(p: T.Term, l: T.Term) -> T.Term:
    """``allIn_<kind> (l)`` for the kind of the element-range predicate application ``p``,
    which must be at the sort of ``l``."""
    kind = V.all_in_kind(p)
    if kind is None or p.args[0].sort != l.sort:
        raise SchemaError(f"{T.pretty(p)} is not an element-range predicate of {T.pretty(l)}'s sort")
    return V.all_in(kind, l)


@_schema("allinnil", "lists.allin.definition",
         "every element of [] is in any range: allIn_K ([]) holds")
def ALLIN_NIL(p, n):
    if not _is_app(n, V.nil_name(_key(n))):
        return None
    return _all_in_at(p, n)


@_schema("allincons", "lists.allin.definition",
         "every element of x :: l is in range K iff x is and every element of l is")
def ALLIN_CONS(p, c):
    if not _is_app(c, "cons"):
        return None
    head, tail = c.args
    kind = V.all_in_kind(p)
    return _iff(_all_in_at(p, c), T.and_(V.in_range(kind, head), _all_in_at(p, tail)))


@_schema("allinground", "lists.allin.definition",
         "a list written out has every element in range K exactly when each of its constants is")
def ALLIN_GROUND(p):
    """``allIn_K (l)``, or its negation, for a list ``l`` written out: its elements are
    constants, so whether each is in the range is decided here (instead of one unfolding per
    element)."""
    kind = V.all_in_kind(p)
    elements = ground_elements(p.args[0]) if kind is not None else None
    if elements is None:
        return None
    return p if all(_constant_in_range(kind, e.value) for e in elements) else T.not_(p)


def _constant_in_range(kind: str, v) -> bool:
    if isinstance(v, bool):
        return False
    if kind == "nat":
        return v >= 0
    if kind == "pos":
        return v > 0
    if kind == "unit":
        return 0 <= v <= 1
    return v == int(v) and 0 <= v < int(kind[3:])  # finK


@_schema("allinsum", "lists.allin.sum",
         "the sum of a list of [0,1] values is in [0, length]; of positive values, >= 0")
def ALLIN_SUM(p):
    kind, l = V.all_in_kind(p), p.args[0] if isinstance(p, T.Apply) else None
    if kind not in ("unit", "pos") or _key(l) != "real":
        return None
    if kind == "unit":
        return T.implies(p, T.and_(T.le(0, V.total(l)), T.le(V.total(l), V.length(l))))
    return T.implies(p, T.ge(V.total(l), 0))


@_schema("adjlen", "sens.length.adj", "adj (l1, l2) implies length l1 = length l2")
def ADJ_LEN(l1, l2):
    return T.implies(V.adj(l1, l2), T.eq(V.length(l1), V.length(l2)))


@_schema("adjcount", "sens.count.adj", "adj (l1, l2) implies |count l1 - count l2| <= 1",
         hypothesis="the lists are adjacent")
def ADJ_COUNT(l1, l2):
    if _key(l1) != "bool":
        return None
    return T.implies(V.adj(l1, l2), T.le(T.abs_(T.sub(V.count(l1), V.count(l2))), 1))


@_schema("adjcountof", ("sens.counts.adj/k={k}", "lists.catcount.total/k={k}"),
         "adjacent [k] lists have equal counts or counts moved by one", _list_k)
def ADJ_COUNTOF(l1, l2):
    k = V.fin_size(_key(l1))
    if not k:
        return None
    return T.implies(V.adj(l1, l2), _moved_by_one([V.count_of(l1, j) for j in range(k)],
                                                  [V.count_of(l2, j) for j in range(k)]))


@_schema("adjrefl", "lists.adj.reflexive", "l1 = l2 implies adj (l1, l2)")
def ADJ_REFL(l1, l2):
    return T.implies(T.eq(l1, l2), V.adj(l1, l2))


@_schema("adjwlen", "sens.sum.adjwithin", "adjWithin (l1, l2, c) implies length l1 = length l2")
def ADJW_LEN(l1, l2, c):
    return T.implies(V.adj_within(l1, l2, c), T.eq(V.length(l1), V.length(l2)))


@_schema("adjwsum", "sens.sum.adjwithin",
         "adjWithin (l1, l2, c) implies |sum l1 - sum l2| <= max (c, 0)",
         hypothesis="the lists are adjacent within c")
def ADJW_SUM(l1, l2, c):
    # a negative bound admits no differing position, i.e. only equal lists (docs/verifier.md):
    # |sum l1 - sum l2| <= c would be false there, and make the assumptions contradictory
    return T.implies(V.adj_within(l1, l2, c),
                     T.le(T.abs_(T.sub(V.total(l1), V.total(l2))), T.max_(c, 0)))


@_schema("adjwrefl", "lists.adjwithin.reflexive", "l1 = l2 and c >= 0 implies adjWithin")
def ADJW_REFL(l1, l2, c):
    return T.implies(T.and_(T.eq(l1, l2), T.ge(c, 0)), V.adj_within(l1, l2, c))


@_schema("allwlen", "lists.allwithin.definition",
         "allWithin (l1, l2, c) implies length l1 = length l2")
def ALLW_LEN(l1, l2, c):
    return T.implies(V.all_within(l1, l2, c), T.eq(V.length(l1), V.length(l2)))


@_schema("allwrefl", "lists.allwithin.definition", "l1 = l2 and c >= 0 implies allWithin")
def ALLW_REFL(l1, l2, c):
    return T.implies(T.and_(T.eq(l1, l2), T.ge(c, 0)), V.all_within(l1, l2, c))


@_schema("dist", "lists.dist.definition", "0 <= dist (l1, l2); dist (l, l) = 0")
def DIST_FACTS(l1, l2):
    app = V.hamming(l1, l2)
    return T.and_(T.ge(app, 0), T.implies(T.eq(l1, l2), T.eq(app, 0)))


@_schema("distcount", "lists.dist.count",
         "equal lengths imply |count l1 - count l2| <= dist (l1, l2)")
def DIST_COUNT(l1, l2):
    if _key(l1) != "bool":
        return None
    return T.implies(T.eq(V.length(l1), V.length(l2)),
                     T.le(T.abs_(T.sub(V.count(l1), V.count(l2))), V.hamming(l1, l2)))


@_schema("distadj", "lists.dist.adjacent",
         "adj (l1, l2) and adjWithin (l1, l2, c) each imply dist (l1, l2) <= 1")
def DIST_ADJ(rel):
    if not (_is_app(rel, "adj") or _is_app(rel, "adjWithin")):
        return None
    l1, l2 = rel.args[:2]
    return T.implies(rel, T.le(V.hamming(l1, l2), 1))


@_schema("distlen", "lists.dist.length", "equal lengths imply dist (l1, l2) <= length l1")
def DIST_LEN(l1, l2):
    _key(l1)
    return T.implies(T.eq(V.length(l1), V.length(l2)), T.le(V.hamming(l1, l2), V.length(l1)))


def _spine(l1: T.Term, l2: T.Term) -> List[Tuple[T.Term, T.Term]]:
    """The pairs (x :: l, y :: m) met walking down two lists while both are conses."""
    out = []
    while _is_app(l1, "cons") and _is_app(l2, "cons") and l1.sort == l2.sort:
        out.append((l1, l2))
        l1, l2 = l1.args[1], l2.args[1]
    return out


def _unfolded(unfold) -> Callable[..., Optional[T.Term]]:
    """A schema stating one unfolding of ``lists.cons.relations`` at every level of the
    common spine of two cons-built lists (a conjunction of instances of the lemma), so that a
    literal list is unfolded down to its end at once."""
    def build(l1, l2, *rest):
        parts = [unfold(a, b, *rest) for a, b in _spine(l1, l2)]
        return T.and_(*parts) if parts else None
    return build


def _adj_cons(c1: T.Term, c2: T.Term) -> T.Term:
    (x, l), (y, m) = c1.args, c2.args
    return _iff(V.adj(c1, c2), T.or_(T.and_(T.eq(x, y), V.adj(l, m)), T.eq(l, m)))


def _adjw_cons(c1: T.Term, c2: T.Term, c: T.Term) -> T.Term:
    (x, l), (y, m) = c1.args, c2.args
    differ = T.and_(T.ne(x, y), T.eq(l, m), T.le(T.abs_(T.sub(x, y)), c))
    return _iff(V.adj_within(c1, c2, c), T.or_(T.and_(T.eq(x, y), V.adj_within(l, m, c)),
                                               differ))


def _dist_cons(c1: T.Term, c2: T.Term) -> T.Term:
    (x, l), (y, m) = c1.args, c2.args
    return T.implies(T.eq(V.length(l), V.length(m)),
                     T.eq(V.hamming(c1, c2), T.add(T.ite(T.eq(x, y), 0, 1), V.hamming(l, m))))


def _allw_cons(c1: T.Term, c2: T.Term, c: T.Term) -> T.Term:
    (x, l), (y, m) = c1.args, c2.args
    return _iff(V.all_within(c1, c2, c),
                T.and_(T.le(T.abs_(T.sub(x, y)), c), V.all_within(l, m, c)))


ALLW_CONS = _schema("allwcons", "lists.allwithin.definition",
                    "allWithin (x :: l, y :: m, c) iff |x - y| <= c and allWithin (l, m, c)")(
    _unfolded(_allw_cons))
ADJ_CONS = _schema("adjcons", "lists.cons.relations",
                   "adj (x :: l, y :: m) iff x = y and adj (l, m), or l = m")(_unfolded(_adj_cons))
ADJW_CONS = _schema("adjwcons", "lists.cons.relations",
                    "adjWithin (x :: l, y :: m, c) iff x = y and adjWithin (l, m, c), or "
                    "x <> y, l = m and |x - y| <= c")(_unfolded(_adjw_cons))
DIST_CONS = _schema("distcons", "lists.cons.relations",
                    "tails of one length: dist (x :: l, y :: m) = dist (l, m) + (x <> y ? 1 : 0)")(
    _unfolded(_dist_cons))


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

_POSTERIORS_AT_LEAST_ONE = ("the two distributions are equal, or the posteriors of adjacent data "
                            "from a prior whose parameters are at least 1 (NOTES.md §1: below 1 "
                            "the bound is false)")

_METRICS = {"hellinger": V.hellinger, "tv": V.tv}


def _metric_use(u: T.Term, metric: str) -> T.Apply:
    if not _is_app(u, metric):
        raise SchemaError(f"{T.pretty(u)} is not an application of {metric}")
    return u


def _range(metric: str):
    def build(u):
        p, q = _metric_use(u, metric).args
        return T.and_(T.le(0, u), T.le(u, 1), T.implies(T.eq(p, q), T.eq(u, 0)))
    return build


def _triangle(metric: str):
    """``|d(p, r) - d(q, r)| <= d(p, q)`` for two uses ``u``, ``v`` sharing one argument."""
    def build(u, v):
        (u1, u2), (v1, v2) = _metric_use(u, metric).args, _metric_use(v, metric).args
        if u2 == v2 and u1 != v1:
            a, b = u1, v1
        elif u1 == v1 and u2 != v2:
            a, b = u2, v2
        else:
            return None
        return T.le(T.abs_(T.sub(u, v)), _METRICS[metric](a, b))
    return build


METRIC_RANGE = _schema("metric", "hellinger.triangle", "0 <= H (p, q) <= 1, H (p, p) = 0")(
    _range("hellinger"))
TRIANGLE = _schema("triangle", "hellinger.triangle", "|H (p, r) - H (q, r)| <= H (p, q)")(
    _triangle("hellinger"))
TV_RANGE = _schema("tvmetric", "sd.metric", "0 <= TV (p, q) <= 1, TV (p, p) = 0")(_range("tv"))
TV_TRIANGLE = _schema("tvtriangle", "sd.metric", "|TV (p, r) - TV (q, r)| <= TV (p, q)")(
    _triangle("tv"))


def _same_pair(u: T.Term, v: T.Term, first: str, second: str) -> Tuple[T.Apply, T.Apply]:
    """``u`` an application of ``first`` and ``v`` of ``second`` to the same two
    distributions (in either order: the statistical distance is symmetric)."""
    if not (_is_app(u, first) and _is_app(v, second)
            and (u.args == v.args or u.args == v.args[::-1])):
        raise SchemaError(f"{T.pretty(u)} and {T.pretty(v)} are not {first} and {second} of "
                          "one pair of distributions")
    return u, v


@_schema("pinsker", "sd.pinsker", "2 TV (p, q)^2 <= KL (p, q)")
def PINSKER(u, v):
    tv, kl = _same_pair(u, v, "tv", "kl")
    return T.le(T.mul(2, T.mul(tv, tv)), kl)


@_schema("tvbernoulli", "sd.bernoulli",
         "TV (bernoulli a, bernoulli b) = |a - b| for a, b in [0, 1]")
def TV_BERNOULLI(u):
    pq = _same_family(_metric_use(u, "tv"), "bernoulli")
    if not pq:
        return None
    (a,), (b,) = pq[0].args, pq[1].args
    return T.implies(T.and_(T.le(0, a), T.le(a, 1), T.le(0, b), T.le(b, 1)),
                     T.eq(u, T.abs_(T.sub(a, b))))


@_schema("tvhellinger", ("sd.hellinger", "hellinger.sq.le.sd", "hellinger.def"),
         "H (p, q)^2 <= TV (p, q) and TV (p, q)^2 <= 2 H (p, q)^2")
def TV_HELLINGER(u, v):
    tv, h = _same_pair(u, v, "tv", "hellinger")
    return T.and_(T.le(T.mul(h, h), tv), T.le(T.mul(tv, tv), T.mul(2, T.mul(h, h))))


def _same_family(u: T.Apply, family: str) -> Optional[Tuple[T.Apply, T.Apply]]:
    p, q = u.args
    if _is_app(p, family) and _is_app(q, family) and p.func == q.func:
        return p, q
    return None


@_schema("betarho", "beta.hellinger.adjacent.rho",
         "adjacent Beta posteriors with parameters >= 1 are within sqrt(1 - pi/4) in Hellinger distance",
         hypothesis=_POSTERIORS_AT_LEAST_ONE)
def BETA_RHO(u):
    pq = _same_family(_metric_use(u, "hellinger"), "beta")
    return pq and T.implies(_near_beta(*pq[0].args, *pq[1].args), T.le(u, RHO))


@_schema("betazeta", "beta.tv.adjacent.zeta",
         "adjacent Beta posteriors with parameters >= 1 are within sqrt(2 (1 - pi/4)) in total variation",
         hypothesis=_POSTERIORS_AT_LEAST_ONE)
def BETA_ZETA(u):
    pq = _same_family(_metric_use(u, "tv"), "beta")
    return pq and T.implies(_near_beta(*pq[0].args, *pq[1].args), T.le(u, ZETA))


@_schema("klgibbs", "kl.gibbs", "KL (p, q) >= 0, KL (p, p) = 0")
def KL_GIBBS(u):
    if not _is_app(u, "kl"):
        raise SchemaError(f"{T.pretty(u)} is not an application of kl")
    p, q = u.args
    return T.and_(T.le(0, u), T.implies(T.eq(p, q), T.eq(u, 0)))


@_schema("betakl", "beta.kl.adjacent",
         "adjacent Beta posteriors with parameters >= 1 are within KL 1",
         hypothesis=_POSTERIORS_AT_LEAST_ONE)
def BETA_KL(u):
    if not _is_app(u, "kl"):
        raise SchemaError(f"{T.pretty(u)} is not an application of kl")
    pq = _same_family(u, "beta")
    return pq and T.implies(_near_beta(*pq[0].args, *pq[1].args), T.le(u, 1))


@_schema("dirkl", ("dirichlet.kl.adjacent/k={k}", "kl.gibbs"),
         "adjacent Dirichlet posteriors with parameters >= 1 are within KL 1", _dist_k,
         hypothesis=_POSTERIORS_AT_LEAST_ONE)
def DIR_KL(u):
    if not _is_app(u, "kl"):
        raise SchemaError(f"{T.pretty(u)} is not an application of kl")
    p, q = u.args
    if not (isinstance(p, T.Apply) and p.func == getattr(q, "func", None)
            and p.func.name.startswith("dirichlet")):
        return None
    return T.implies(_near_dirichlet(list(p.args), list(q.args)), T.le(u, 1))


@_schema("dirrho", "dirichlet.hellinger.adjacent.rho/k={k}",
         "adjacent Dirichlet posteriors with parameters >= 1 are within sqrt(1 - pi/4) in Hellinger distance",
         _dist_k, hypothesis=_POSTERIORS_AT_LEAST_ONE)
def DIR_RHO(u):
    p, q = _metric_use(u, "hellinger").args
    if not (isinstance(p, T.Apply) and p.func == getattr(q, "func", None)
            and p.func.name.startswith("dirichlet")):
        return None
    return T.implies(_near_dirichlet(list(p.args), list(q.args)), T.le(u, RHO))


#: Decimal places of the rational upper bounds of sqrt(1 - g(a0) g(b0)) (rounded up).
BOUND_DIGITS = 20


def _g_bound(a0: T.Term, b0: T.Term, scale: int = 1) -> T.Term:
    """A rational at least ``sqrt(scale (1 - g(a0) g(b0)))`` for positive rational constants
    ``a0``, ``b0`` (Arb ball arithmetic, rounded up on a grid of ``10**-BOUND_DIGITS``), with
    g(x) = Gamma(x + 1/2) / (Gamma(x) sqrt x): the bound of Lemmas 6.1-6.3 for priors at least
    a0, b0 (NOTES.md §1)."""
    if not all(isinstance(v, T.Const) and v.sort == T.REAL and v.value > 0 for v in (a0, b0)):
        raise SchemaError("the lower bounds must be positive real constants")
    import math
    from flint import arb, ctx, fmpq

    with ctx.workprec(256):
        def g(q):
            x = arb(fmpq(q.numerator, q.denominator))
            return ((x + arb(1) / 2).lgamma() - x.lgamma()).exp() / x.sqrt()

        inside = scale * (1 - g(a0.value) * g(b0.value))
        if not inside > 0:
            raise SchemaError("no enclosure of the bound")
        top = inside.sqrt().upper()
        man, exp = (int(v) for v in top.man_exp())
    value = Fraction(man) * Fraction(2) ** exp
    grid = 10 ** BOUND_DIGITS
    return T.real(Fraction(math.ceil(value * grid), grid))


def _near_beta_from(a1, b1, a2, b2, a0, b0) -> T.Term:
    """Beta(a1, b1), Beta(a2, b2) are equal, or the posteriors of two adjacent data from a prior
    whose parameters are at least a0 and b0 (one observation moved between the counts)."""
    return T.or_(
        T.and_(T.eq(a1, a2), T.eq(b1, b2)),
        T.and_(T.eq(a1, T.add(a2, 1)), T.eq(b2, T.add(b1, 1)), T.ge(a2, a0), T.ge(b1, b0)),
        T.and_(T.eq(a2, T.add(a1, 1)), T.eq(b1, T.add(b2, 1)), T.ge(a1, a0), T.ge(b2, b0)))


def _beta_bound(metric: str, scale: int):
    def build(u, a0, b0):
        pq = _same_family(_metric_use(u, metric), "beta")
        if not pq:
            return None
        bound = _g_bound(a0, b0, scale)
        return T.implies(_near_beta_from(*pq[0].args, *pq[1].args, a0, b0), T.le(u, bound))
    return build


BETA_G = _schema("betag", ("beta.hellinger.adjacent", "hellinger.def"),
                 "adjacent Beta posteriors from a prior >= (a0, b0) are within "
                 "sqrt(1 - g(a0) g(b0)) in Hellinger distance")(_beta_bound("hellinger", 1))
BETA_TV_G = _schema("betatvg", ("beta.tv.adjacent", "sd.metric"),
                    "adjacent Beta posteriors from a prior >= (a0, b0) are within "
                    "sqrt(2 (1 - g(a0) g(b0))) in total variation")(_beta_bound("tv", 2))


@_schema("dirg", ("dirichlet.hellinger.adjacent/k={k}", "hellinger.def"),
         "adjacent Dirichlet posteriors from a prior >= a0 are within sqrt(1 - g(a0)^2) in "
         "Hellinger distance", _dist_k)
def DIR_G(u, a0):
    p, q = _metric_use(u, "hellinger").args
    if not (isinstance(p, T.Apply) and p.func == getattr(q, "func", None)
            and p.func.name.startswith("dirichlet")):
        return None
    bound = _g_bound(a0, a0)
    return T.implies(_near_dirichlet(list(p.args), list(q.args), a0, every=True),
                     T.le(u, bound))


def _near_beta(a1, b1, a2, b2) -> T.Term:
    """Beta(a1, b1) and Beta(a2, b2) are posteriors of adjacent data from a prior >= (1, 1)."""
    return T.or_(
        T.and_(T.eq(a1, a2), T.eq(b1, b2)),
        T.and_(T.eq(a1, T.add(a2, 1)), T.eq(b2, T.add(b1, 1)), T.ge(a2, 1), T.ge(b1, 1)),
        T.and_(T.eq(a2, T.add(a1, 1)), T.eq(b1, T.add(b2, 1)), T.ge(a1, 1), T.ge(b2, 1)))


def _near_dirichlet(p: List[T.Term], q: List[T.Term], low: T.TermLike = 1,
                    every: bool = False) -> T.Term:
    """Dir(p), Dir(q): equal, or one observation moved from category j to i, with the base
    parameters of i and j at least ``low`` (at 1: BC = g(base_i) g(base_j) >= pi/4), and with
    ``every``, the base parameters of the other categories too (the hypotheses of
    ``dirichlet.hellinger.adjacent/k`` as stated)."""
    k = len(p)
    options = [T.and_(*(T.eq(a, b) for a, b in zip(p, q)))]
    for i in range(k):
        for j in range(k):
            if i != j:
                parts = [T.eq(p[i], T.add(q[i], 1)), T.eq(q[j], T.add(p[j], 1)),
                         T.ge(q[i], low), T.ge(p[j], low)]
                parts += [T.eq(p[m], q[m]) for m in range(k) if m not in (i, j)]
                if every:
                    parts += [T.ge(p[m], low) for m in range(k) if m not in (i, j)]
                options.append(T.and_(*parts))
    return T.or_(*options)


def _ctor_lemmas(c1: T.Term, *_) -> Tuple[str, ...]:
    if c1.func.name in ("beta", "normal", "bernoulli"):
        return ("distributions.injective",)
    return (f"distributions.injective.dirichlet/k={len(c1.args)}",)


@_schema("ctorinj", _ctor_lemmas,
         "distributions of one family are equal only with equal parameters")
def CTOR_INJ(c1, c2):
    if not (isinstance(c1, T.Apply) and c1.func.name in _FAMILIES and c1.sort == V.DIST
            and c1.args and c1.func == getattr(c2, "func", None)):
        return None
    return T.implies(T.eq(c1, c2), T.and_(*(T.eq(x, y) for x, y in zip(c1.args, c2.args))))


# ---- the search ---------------------------------------------------------------------------------

def instantiate(terms: Sequence[T.Term]) -> Tuple[Instance, ...]:
    """The axioms an obligation over ``terms`` gets (``_instantiate``), once per tuple of
    terms: the obligations of one program repeat their hypotheses and goals (a condition met
    at every step of a chain)."""
    key = tuple(terms)
    found = _INSTANTIATED.get(key)
    if found is None:
        if len(_INSTANTIATED) > 1 << 14:
            _INSTANTIATED.clear()
        found = _INSTANTIATED[key] = _instantiate(key)
    return found


_INSTANTIATED: Dict[Tuple[T.Term, ...], Tuple[Instance, ...]] = {}


def _instantiate(terms: Sequence[T.Term]) -> Tuple[Instance, ...]:
    """The axioms an obligation over ``terms`` gets: named ground instances (``ax_<schema>_<k>``,
    numbered per schema) about the uninterpreted symbols occurring in ``terms``, closed under
    the symbols the axioms themselves introduce (at most ``_ROUNDS`` rounds)."""
    out: List[Instance] = []
    seen: set = set()
    counter: Dict[str, int] = {}
    pool = list(terms)
    for _ in range(_ROUNDS):
        new: List[Instance] = []
        for schema, args in _candidates(pool):
            axiom = _instance_or_none(schema.name, args)
            if axiom is None or axiom in seen or axiom == T.boolean(True):
                continue
            seen.add(axiom)
            k = counter.get(schema.name, 0) + 1
            counter[schema.name] = k
            new.append(Instance(f"ax_{schema.name}_{k}", axiom, schema.name, tuple(args)))
        if not new:
            break
        out.extend(new)
        pool = pool + [a.term for a in new]
    return tuple(out)


@lru_cache(maxsize=1 << 16)
def _instance_or_none(schema: str, args: Tuple[T.Term, ...]) -> Optional[T.Term]:
    """``SCHEMAS[schema].instance(*args)``, or None when it does not apply (memoised: the
    obligations of one program share most of their terms)."""
    try:
        return SCHEMAS[schema].instance(*args)
    except SchemaError:
        return None


#: At most this many constants are tried as lower bounds of prior parameters.
MAX_LOWER_BOUNDS = 3


def _lower_bounds(pool: Sequence[T.Term]) -> List[T.Term]:
    """The positive real constants other than 1 that bound a term from below in ``pool``
    (``x >= c``, ``x > c``, ``c <= x``, ``c < x``): the candidate lower bounds a0, b0 of
    prior parameters for the general Beta and Dirichlet bounds (at 1 the bounds rho and zeta
    apply). In order of appearance, at most ``MAX_LOWER_BOUNDS``."""
    found: Dict[T.Term, None] = {}
    for sub in T.subterms(*pool):
        if not isinstance(sub, T.Op) or sub.op not in (T.OpKind.GE, T.OpKind.GT,
                                                       T.OpKind.LE, T.OpKind.LT):
            continue
        c = sub.args[1] if sub.op in (T.OpKind.GE, T.OpKind.GT) else sub.args[0]
        if isinstance(c, T.Const) and c.sort == T.REAL and c.value > 0 and c.value != 1:
            found.setdefault(c, None)
    return list(found)[:MAX_LOWER_BOUNDS]


def _candidates(pool: Sequence[T.Term]) -> Iterable[Tuple[Schema, Tuple[T.Term, ...]]]:
    """Schemas and arguments to try, in a fixed order (the order names the axioms)."""
    found_lists: Dict[T.Term, None] = {}
    found_apps: Dict[T.Apply, None] = {}
    mentioned: set = set()  # lists an operation or a function other than cons applies to
    for sub in T.subterms(*pool):  # one walk over the pool's DAG: linear in its size
        if sub.sort.name.startswith("List["):
            found_lists.setdefault(sub, None)
        if isinstance(sub, T.Apply):
            found_apps.setdefault(sub, None)
        if (isinstance(sub, T.Op) or isinstance(sub, T.Apply) and sub.func.name != "cons") \
                and sub.args:
            mentioned.update(id(a) for a in sub.args)
    # a list written out is a value: one axiom gives its statistics (GROUND), and neither it
    # nor its tails are unfolded cons by cons; a tail nobody mentions gets nothing (a constant
    # list of n elements brings a few axioms, not some per element)
    lists = [l for l in found_lists if id(l) in mentioned or not is_ground_list(l)]
    apps = list(found_apps)
    conses = [l for l in lists if _is_app(l, "cons")]
    nils = [l for l in lists if isinstance(l, T.Apply) and l.func.name.startswith("nil_")]
    for l in lists:
        for s in (LEN_NONNEG, COUNT_BOUNDS, COUNTOF_BOUNDS, EMPTY):
            yield s, (l,)
    for n in nils:
        yield NIL, (n,)
    for c in conses:
        yield (GROUND if is_ground_list(c) else CONS), (c,)
        for n in nils:
            yield NIL_CONS, (n, c)
    # injectivity between lists built separately: a list and its own tails (a list written
    # out is a tower of conses, each the tail of the next) are never compared, which keeps a
    # long constant list linear in the axioms it brings
    tails = {id(c.args[1]) for c in conses}
    roots = [c for c in conses if id(c) not in tails]
    for i, c1 in enumerate(roots):
        for c2 in roots[i + 1:]:
            yield CONS_INJ, (c1, c2)
    for p in apps:
        if V.all_in_kind(p) is None:
            continue
        yield ALLIN_SUM, (p,)
        yield ALLIN_GROUND, (p,)
        for n in nils:
            yield ALLIN_NIL, (p, n)
        for c in conses:
            yield ALLIN_CONS, (p, c)
    dists = {app.args for app in apps if app.func.name == "dist"}
    for app in apps:
        if app.func.name == "adj":
            for s in (ADJ_LEN, ADJ_REFL, ADJ_COUNT, ADJ_COUNTOF, ADJ_CONS):
                yield s, app.args
        elif app.func.name == "adjWithin":
            for s in (ADJW_LEN, ADJW_SUM, ADJW_REFL, ADJW_CONS):
                yield s, app.args
        elif app.func.name == "allWithin":
            for s in (ALLW_LEN, ALLW_REFL, ALLW_CONS):
                yield s, app.args
        elif app.func.name == "dist":
            for s in (DIST_FACTS, DIST_COUNT, DIST_LEN, DIST_CONS):
                yield s, app.args
        if app.func.name in ("adj", "adjWithin") and app.args[:2] in dists:
            yield DIST_ADJ, (app,)
    lows = _lower_bounds(pool)
    for name, range_schema, triangle_schema, bounds, general in (
            ("hellinger", METRIC_RANGE, TRIANGLE, (BETA_RHO, DIR_RHO), (BETA_G,)),
            ("tv", TV_RANGE, TV_TRIANGLE, (BETA_ZETA, TV_BERNOULLI), (BETA_TV_G,))):
        uses = [a for a in apps if a.func.name == name]
        for u in uses:
            yield range_schema, (u,)
            for s in bounds:
                yield s, (u,)
            for a0 in lows:
                for b0 in lows:
                    for s in general:
                        yield s, (u, a0, b0)
                if name == "hellinger":
                    yield DIR_G, (u, a0)
        for i, u in enumerate(uses):
            for v in uses[i + 1:]:
                yield triangle_schema, (u, v)
    for u in apps:
        if u.func.name == "kl":
            yield KL_GIBBS, (u,)
            yield BETA_KL, (u,)
            yield DIR_KL, (u,)
    # the divergences compared (Pinsker, Le Cam), for the pairs of distributions both name
    tvs = [a for a in apps if a.func.name == "tv"]
    for v in apps:
        if v.func.name in ("kl", "hellinger"):
            for u in tvs:
                if u.args == v.args or u.args == v.args[::-1]:
                    yield (PINSKER if v.func.name == "kl" else TV_HELLINGER), (u, v)
    ctors = [a for a in apps if a.sort == V.DIST and a.args and a.func.name in _FAMILIES]
    for i, c1 in enumerate(ctors):
        for c2 in ctors[i + 1:]:
            yield CTOR_INJ, (c1, c2)
