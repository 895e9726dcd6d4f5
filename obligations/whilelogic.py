"""The logic of while-programs (``.pwhile``, docs/aprhl.md): sorts, list symbols, their axioms and
the names of the variables an apRHL derivation introduces.

Shared, like ``vocabulary.py``, by the verifier's derivation builder (``verifier/aprhl``) and the
certificate kernel (``checker/aprhl.py``), which must build the very same terms.

Lists are an uninterpreted sort ``Arr[k]`` (``k`` the element: ``int``, ``real``, ``bool``) with

* ``at_k (l, i)``: the element at ``i`` (any fixed value outside ``0 <= i < len_k l``: programs
  never read there, the derivation proves every index in bounds);
* ``len_k l``: the length;
* ``snoc_k (l, x)``: ``l ++ [x]``;  ``cons_k (x, l)``: ``[x] ++ l``;  ``upd_k (l, j, v)``: ``l`` with position ``j`` set to ``v``;
  ``near_real (l, w, c)``: ``l`` moved at every position in bounds by ``w``'s element clamped to
  ``[-c, c]`` (zero outside, like every list: so every list within ``c`` of ``l`` at every
  position is ``near (l, w, c)`` for some ``w``);
  ``nil_k``: the empty list.

``mod_int (a, b)`` is ``a mod b`` for ``b > 0`` (its definition is instantiated for each
application, ``ground_axioms``; ``div_int`` is the quotient it introduces); the derivation proves
every divisor of ``mod`` positive, so its value elsewhere is never used.

The axioms below hold in the model where a list is a pair (f : Int -> k, n) with f zero outside
[0, n): ``at`` is f, ``len`` is n, ``snoc (f, n) x = (f[n := x], n + 1)``, ``cons x (f, n) =
(g, n + 1)`` with ``g (0) = x`` and ``g (i) = f (i - 1)`` elsewhere, ``upd (f, n) j v =
(f[j := v], n)``. Two lists are equal as lists exactly when their pairs are equal (f is zero
outside [0, n)), so ``=`` on the sort is list equality; ``upd`` may leave a non-zero value outside
[0, n) (when j is out of range), which only adds models: a precondition stated with ``upd`` is
weaker than the relation it encodes, never stronger.

Variable names: a program variable ``x`` of run r is ``Var(x, sort, r)``, a ``pub`` parameter
``Var(x, sort, None)``; the value of ``x`` at the head of the loop at line L, column C is
``x'LhC``; the draw of the ``Lap`` at line L, column C is ``x'LdC``; the privacy cost spent so far
is ``cost'`` (initially 0) and at a loop head ``cost'LhC``; the adjacency witnesses of a list
parameter ``d`` are ``d'j`` (the position) and ``d'v`` (run 2's element there). Program names
cannot contain ``'``, so none of these collide with a program variable.
"""
from __future__ import annotations

from typing import List, Optional, Sequence, Tuple

from obligations import terms as T

ELEMENT_SORTS = {"int": T.INT, "real": T.REAL, "bool": T.BOOL}


def arr_sort(key: str) -> T.Sort:
    return T.uninterpreted_sort(f"Arr[{key}]")


def elem_key(sort: T.Sort) -> Optional[str]:
    name = sort.name
    if name.startswith("Arr[") and name.endswith("]"):
        return name[4:-1]
    return None


def sort_of(simple: str) -> T.Sort:
    """The sort of a simple type of the while-language (``int``, ``real``, ``bool``,
    ``list(int)``...); ``ValueError`` for nested lists."""
    if simple in ELEMENT_SORTS:
        return ELEMENT_SORTS[simple]
    if simple.startswith("list(") and simple[5:-1] in ELEMENT_SORTS:
        return arr_sort(simple[5:-1])
    raise ValueError(f"unsupported type {simple}")


def at(l: T.Term, i: T.TermLike) -> T.Term:
    k = elem_key(l.sort)
    return T.FuncDecl(f"at_{k}", (l.sort, T.INT), ELEMENT_SORTS[k])(l, i)


def length(l: T.Term) -> T.Term:
    k = elem_key(l.sort)
    return T.FuncDecl(f"len_{k}", (l.sort,), T.INT)(l)


def snoc(l: T.Term, x: T.TermLike) -> T.Term:
    k = elem_key(l.sort)
    return T.FuncDecl(f"snoc_{k}", (l.sort, ELEMENT_SORTS[k]), l.sort)(l, x)


def cons(x: T.TermLike, l: T.Term) -> T.Term:
    """``[x] ++ l``."""
    k = elem_key(l.sort)
    return T.FuncDecl(f"cons_{k}", (ELEMENT_SORTS[k], l.sort), l.sort)(x, l)


def upd(l: T.Term, j: T.TermLike, v: T.TermLike) -> T.Term:
    k = elem_key(l.sort)
    return T.FuncDecl(f"upd_{k}", (l.sort, T.INT, ELEMENT_SORTS[k]), l.sort)(l, j, v)


def near(l: T.Term, w: T.Term, c: T.TermLike) -> T.Term:
    """``l`` with every element moved by the element of ``w`` at the same position, clamped to
    ``[-c, c]``: the lists whose every element is within ``c`` of ``l``'s (``allWithin``),
    all of them (take ``w`` the differences), and no other (for ``c >= 0``)."""
    k = elem_key(l.sort)
    return T.FuncDecl(f"near_{k}", (l.sort, l.sort, T.REAL), l.sort)(l, w, c)


def nil(key: str) -> T.Term:
    return T.FuncDecl(f"nil_{key}", (), arr_sort(key))()


def mod(a: T.TermLike, b: T.TermLike) -> T.Term:
    """``a mod b`` on integers, defined for ``b > 0`` only (the derivation proves every divisor
    positive): uninterpreted, with the ground instances of its definition
    (``ground_axioms``)."""
    return T.FuncDecl("mod_int", (T.INT, T.INT), T.INT)(a, b)


def _quotient(a: T.TermLike, b: T.TermLike) -> T.Term:
    return T.FuncDecl("div_int", (T.INT, T.INT), T.INT)(a, b)


def axioms_for(vocabulary_names: Sequence[str]) -> List[Tuple[str, T.Term]]:
    """The axioms about the list symbols among ``vocabulary_names`` (names of functions)."""
    out: List[Tuple[str, T.Term]] = []
    names = set(vocabulary_names)
    for key, es in ELEMENT_SORTS.items():
        s = arr_sort(key)
        l = T.var("l'", s)
        i = T.var("i'", T.INT)
        j = T.var("j'", T.INT)
        x = T.var("x'", es)
        used = {n for n in names if n.endswith(f"_{key}") and n.split("_")[0] in
                ("at", "len", "snoc", "cons", "upd", "nil")}
        if not used:
            continue
        if f"len_{key}" in used:
            out.append((f"ax_len_nonneg_{key}", T.forall([l], T.ge(length(l), 0))))
        if f"nil_{key}" in used:
            out.append((f"ax_len_nil_{key}", T.eq(length(nil(key)), 0)))
        if f"snoc_{key}" in used:
            out.append((f"ax_snoc_len_{key}",
                        T.forall([l, x], T.eq(length(snoc(l, x)), T.add(length(l), 1)))))
            out.append((f"ax_snoc_at_{key}",
                        T.forall([l, x, i], T.eq(at(snoc(l, x), i),
                                                 T.ite(T.eq(i, length(l)), x, at(l, i))))))
        if f"cons_{key}" in used:
            out.append((f"ax_cons_len_{key}",
                        T.forall([l, x], T.eq(length(cons(x, l)), T.add(length(l), 1)))))
            out.append((f"ax_cons_at_{key}",
                        T.forall([l, x, i], T.eq(at(cons(x, l), i),
                                                 T.ite(T.eq(i, 0), x, at(l, T.sub(i, 1)))))))
        if f"upd_{key}" in used:
            out.append((f"ax_upd_len_{key}",
                        T.forall([l, j, x], T.eq(length(upd(l, j, x)), length(l)))))
            out.append((f"ax_upd_at_{key}",
                        T.forall([l, j, x, i], T.eq(at(upd(l, j, x), i),
                                                    T.ite(T.eq(i, j), x, at(l, i))))))
    return out


def ground_axioms(terms: Sequence[T.Term]) -> List[Tuple[str, T.Term]]:
    """The instances of the axioms above that the list terms among ``terms`` need, ground
    (no quantifier: the problems stay in a decidable fragment and fail fast): ``len l >= 0`` for
    every ``len l``, and the equations of ``len`` and ``at`` on ``snoc``, ``cons``, ``upd`` and ``nil``
    for every such application, again for the terms these equations introduce. Each instance
    is an instance of a true axiom, so adding it is sound; fewer instances can only lose a
    proof."""
    out: List[Tuple[str, T.Term]] = []
    seen = set()
    work = [t for t in T.subterms(*terms) if isinstance(t, T.Apply)]
    while work:
        t = work.pop()
        if t in seen:
            continue
        seen.add(t)
        name = t.func.name
        head = name.split("_")[0]
        new: List[T.Term] = []
        if head == "len" and elem_key(t.args[0].sort):
            l = t.args[0]
            new.append(T.ge(t, 0))
            if isinstance(l, T.Apply):
                inner = l.func.name.split("_")[0]
                if inner == "snoc":
                    new.append(T.eq(t, T.add(length(l.args[0]), 1)))
                elif inner == "cons":
                    new.append(T.eq(t, T.add(length(l.args[1]), 1)))
                elif inner in ("upd", "near"):
                    new.append(T.eq(t, length(l.args[0])))
                elif inner == "nil":
                    new.append(T.eq(t, 0))
        elif name == "mod_int":
            # for b > 0, a mod b is the r with 0 <= r < b and a = b q + r for an integer q
            a, b = t.args
            new.append(T.implies(T.gt(b, 0), T.and_(T.le(0, t), T.lt(t, b),
                                                    T.eq(a, T.add(T.mul(b, _quotient(a, b)), t)))))
        elif head == "at" and elem_key(t.args[0].sort):
            l, i = t.args
            if isinstance(l, T.Apply):
                inner = l.func.name.split("_")[0]
                if inner == "snoc":
                    new.append(T.eq(t, T.ite(T.eq(i, length(l.args[0])), l.args[1],
                                             at(l.args[0], i))))
                elif inner == "cons":
                    new.append(T.eq(t, T.ite(T.eq(i, 0), l.args[0], at(l.args[1], T.sub(i, 1)))))
                elif inner == "upd":
                    new.append(T.eq(t, T.ite(T.eq(i, l.args[1]), l.args[2], at(l.args[0], i))))
                elif inner == "near":
                    base, w, c = l.args
                    # within the bounds only: outside, near is zero like every list (the
                    # model of the module docstring), so near (d, d2 - d, c) is d2 exactly
                    new.append(T.implies(T.and_(T.le(0, i), T.lt(i, length(base))),
                                         T.eq(t, T.add(at(base, i),
                                                       T.max_(T.neg(c), T.min_(c, at(w, i)))))))
        for f in new:
            out.append((f"ax_list_{len(out)}", f))
            work += [s for s in T.subterms(f) if isinstance(s, T.Apply) and s not in seen]
    out += grid_axioms(terms)
    return out


#: the integer translations the grid axioms are instantiated with
GRID_SHIFTS = (-2, -1, 0, 1, 2)


def grid_axioms(terms: Sequence[T.Term]) -> List[Tuple[str, T.Term]]:
    """Ground instances of two facts about ``lapgrid (b, w)``, the draw ``w`` rounded to the
    nearest point of the grid ``g`` of the scale ``b`` (``noise.laplace_exact``): it is monotone
    in ``w``, and it commutes with adding an integer ``n`` (``lapgrid (b, w + n) = lapgrid (b, w)
    + n``: ``g`` divides every integer, ``noise.MAX_GRID_EXPONENT``). Together, for two draws
    ``w``, ``w'`` rounded at one scale ``b`` and an integer ``n``:
    ``w' <= w + n => lapgrid (b, w') <= lapgrid (b, w) + n``, and the same with ``>=``."""
    apps = [t for t in T.subterms(*terms) if isinstance(t, T.Apply) and t.func.name == "lapgrid"]
    apps = sorted(set(apps), key=T.pretty)
    out: List[Tuple[str, T.Term]] = []
    for a in range(len(apps)):
        for c in range(a + 1, len(apps)):
            (b, w), (b2, w2) = apps[a].args, apps[c].args
            if b != b2:
                continue
            x, x2 = apps[a], apps[c]
            for n in GRID_SHIFTS:
                for rel in (T.le, T.ge):
                    f = T.implies(rel(w2, T.add(w, n)), rel(x2, T.add(x, n)))
                    out.append((f"ax_grid_{len(out)}", f))
    return out


def function_names(terms: Sequence[T.Term]) -> List[str]:
    return sorted({f.name for f in T.vocabulary_of(*terms).functions})


def released(scale: T.TermLike, draw: T.TermLike) -> T.Term:
    """What ``x := $ Lap (b, e)`` stores: ``lapgrid (b, w)``, the exact draw ``w`` of ``e +
    Lap (b)`` rounded to the grid of the scale ``b`` (``noise.laplace_exact``; docs/noise.md). The
    function is left uninterpreted: the derivation couples the exact draws (equal, or shifted),
    and the stored values are related only as far as that gives (equal draws and equal scales:
    equal values; a shifted draw: nothing more), so the rounding ``run`` performs is covered."""
    return T.FuncDecl("lapgrid", (T.REAL, T.REAL), T.REAL)(scale, draw)


def head_name(name: str, line: int, col: int) -> str:
    return f"{name}'{line}h{col}"


def draw_name(name: str, line: int, col: int) -> str:
    return f"{name}'{line}d{col}"


COST = "cost'"
