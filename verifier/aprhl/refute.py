"""Refutations of while-procedures' claims, confirmed in the program's semantics (docs/aprhl.md,
"Refutations").

A failed obligation does not make a claim false (another derivation may exist), so a claim
``|- (eps, delta) : P ==> =`` that is not verified is **refuted** only by a *witness*: two inputs
satisfying ``P`` (evaluated exactly, ``coupled.holds``; their values of their declared types) on
which

* **exact loss**: run 1's output law is further from run 2's than the claim allows — the privacy
  loss ``max_o ln P1(o) / P2(o)`` above ``eps`` (``delta = 0``), or the hockey-stick divergence
  at ``eps`` above ``delta``. The laws are the exact laws of the procedure on the two inputs
  (``verifier.aprhl.law``: the functional language's ``verifier.laws``, exact or rigorously
  enclosed for the sampler ``run`` uses) and the comparison is the functional language's
  (``verifier.refutation.exceeded``: arb balls, never floats);
* **run**: a run stops with a run-time error (division by zero, an index out of bounds, a scale
  that is not positive) on a path of probability 1 (before any noise is compared): a verified
  procedure never does.

The inputs tried are small and at the extremes of ``P`` (``_pairs``): each ``pub`` parameter a
few values of its type; each other scalar moved by the constants ``P`` states and the values of
the ``pub`` parameters (``abs (q<1> - q<2>) <= gs``: ``gs``); each private list of length 1 to
3 moved position by position by such a constant (every pattern of signs), or, for lists of
``bool``, every pair of lists. Both orders of each pair are tried (a claim compares run 1 with
run 2). The search is bounded by counts (``MAX_INPUTS`` inputs whose law is computed, each law
at most ``LAW_PATHS`` paths of compared noise and ``MAX_PATHS`` in all; ``MAX_WORK`` integrations
of the screen), not by time, so its verdict does not depend on the
machine.

A second phase (``_long_pairs``, its own counts ``LONG_*``, the laws of the first kept) tries
longer lists (``LONG_LENGTHS``: 4 to 6) moved in the telling patterns only
(``refutation.telling_patterns``: every position one way, alternately, halves apart, the first
or the last alone), at a few settings of the ``pub`` parameters (``_long_settings``): losses
that add up over a list's positions (each answer of a sparse vector charged) exceed a claim
only there.

A claim ``==> result<2> = result<1> + k`` (or the converse, ``_output_shift``) is searched too,
run 2's release moved by ``k`` (``_Search.shifted``: a lifting of the graph of ``y -> y + k``
bounds ``P1(S)`` by ``e^eps P2(S - k) + delta``). A claim with another output relation than
``=`` is not searched.
"""
from __future__ import annotations

import itertools
from fractions import Fraction
from typing import Any, Dict, Iterator, List, Optional, Tuple

from verifier.aprhl.coupled import holds
from verifier.aprhl.law import Work, procedure_law
from verifier.aprhl.run import _conform, literal
from verifier.errors import PrivInferError
from verifier.language import whilelang as W
from verifier.refutation import (EXACT_LOSS, RUN, Confirmation, amount_text, exceeded, number_ball,
                                 relation_shift, telling_patterns, usable)

#: inputs whose output law is computed at most, pairs of inputs considered at most (the
#: precondition evaluated on each), the longest private list tried, and the integrations the
#: float estimates of the screen (``_may_exceed``) may do in all
MAX_INPUTS, MAX_PAIRS, MAX_LENGTH, MAX_WORK = 160, 4000, 3, 2000
#: settings of the ``pub`` parameters tried at most; the paths of compared noise one law may
#: have, and all the laws together
SETTINGS, LAW_PATHS, MAX_PATHS = 6, 256, 800
#: the second phase (``_long_pairs``): private lists of the lengths ``LONG_LENGTHS`` moved in
#: the telling patterns only (``_patterns``), at the first ``LONG_SETTINGS`` settings; its own
#: counts: new laws, paths of compared noise of one law, and of all its laws together, and the
#: integrations of the screen (a pair of laws of 5 answers costs about 230: 3000 reach the
#: alternate pattern of length 5 at the first settings)
LONG_LENGTHS, LONG_SETTINGS = (4, 5, 6), 4
LONG_INPUTS, LONG_LAW_PATHS, LONG_PATHS, LONG_WORK = 100, 256, 800, 3000
#: the third phase (``_far_settings``): the second's lists and telling patterns (group 0),
#: each ``pub`` real moved this far from its first value, with the second phase's counts
FAR = Fraction(6)
#: run-time errors that are the program's fault (not R010, the step budget, nor R003/R009:
#: what the exact law cannot compute)
PROGRAM_ERRORS = ("R001", "R002", "R006")


class _Budget(Exception):
    """More than ``MAX_INPUTS`` laws."""


def refute(proc: W.Proc, types: W.ProcTypes) -> Optional[Confirmation]:
    """A witness that ``proc``'s claim is false, or None (see the module docstring). Never
    raises: an input whose law cannot be computed is no witness."""
    if proc.spec is None:
        return None
    shift = None
    if proc.spec.post is not None:
        shift = _output_shift(proc.spec.post)
        if shift is None:
            return None
    search = _Search(proc, types, shift)
    phases = (_pairs(proc), _long_pairs(proc), _long_pairs(proc, far=True))
    for phase, pairs in enumerate(phases):
        if phase:
            search.next_phase(LONG_INPUTS, LONG_LAW_PATHS, LONG_PATHS, LONG_WORK)
        try:
            for env1, env2 in pairs:
                found = search.pair(env1, env2)
                if found is not None:
                    return found
        except _Budget:
            continue
    return None


class _Search:
    def __init__(self, proc: W.Proc, types: W.ProcTypes, shift: Optional[W.Expr] = None):
        self.proc, self.types, self.shift = proc, types, shift
        self.laws: Dict[str, Any] = {}
        self.work = [0]
        self.paths = 0
        self.budget = Work()    # shared by every law of the phase: a bounded search
        self.computed, self.max_inputs = 0, MAX_INPUTS
        self.law_paths, self.max_paths, self.max_work = LAW_PATHS, MAX_PATHS, MAX_WORK

    def next_phase(self, inputs: int, law_paths: int, paths: int, work: int) -> None:
        """Fresh counts for the next phase of the search (the laws computed are kept): at
        most ``inputs`` new laws, each of at most ``law_paths`` paths, ``paths`` in all, and
        ``work`` integrations of the screen."""
        self.work, self.paths, self.budget, self.computed = [0], 0, Work(), 0
        self.max_inputs, self.law_paths, self.max_paths = inputs, law_paths, paths
        self.max_work = work

    def pair(self, env1: Dict[str, Any], env2: Dict[str, Any]) -> Optional[Confirmation]:
        spec = self.proc.spec
        try:
            if holds(spec.pre, env1, env2) is not True:
                return None
            eps, delta = holds(spec.eps, env1, env2), holds(spec.delta, env1, env2)
        except (ZeroDivisionError, TypeError, KeyError, IndexError):
            return None
        if isinstance(eps, bool) or isinstance(delta, bool) or not delta >= 0 or not eps >= 0:
            return None
        runs = []
        for env in (env1, env2):
            m, law, stop = self.law(env)
            if stop is not None:
                return Confirmation(RUN, self.shown(env1, env2),
                                    f"run {1 if env is env1 else 2} stops: {stop.message}"
                                    f"{_at(stop.span)}")
            if law is None:
                return None
            runs.append((m, law))
        moved = ""
        if self.shift is not None:
            shifted = self.shifted(runs[1][1], env1, env2)
            if shifted is None:
                return None
            runs[1], moved = (runs[1][0], shifted[0]), shifted[1]
        approximate = delta != 0
        if self.work[0] > self.max_work:
            raise _Budget()
        if not approximate and not _may_exceed(runs[0][1], runs[1][1], float(eps), self.work):
            return None
        try:  # a pair of laws the exact comparison cannot bin (R003) is no witness
            if approximate:
                return self.hockey(env1, env2, runs[0][1], runs[1][1], eps, delta)
            found = exceeded([m for m, _ in runs], [law for _, law in runs], "DP",
                             number_ball(eps), number_ball(delta), approximate, mixed=True)
        except PrivInferError:
            return None
        if found is None:
            return None
        measured, bound = found
        return Confirmation(EXACT_LOSS, self.shown(env1, env2),
                            f"{measured}{moved}, above the claimed {W.pretty_expr(spec.eps)} = "
                            f"{amount_text(bound)}")

    def shifted(self, law: Any, env1, env2) -> Optional[Tuple[Any, str]]:
        """For a claim ``result<1> = result<2> + k`` (``_output_shift``): run 2's law moved by
        ``k`` — a lifting of the graph of ``y -> y + k`` at ``(eps, delta)`` gives ``P1(S) <=
        e^eps P2(S - k) + delta`` (its witness's support lies on the graph), so run 1's law is
        compared with that of run 2's output plus ``k``. Only a release of noise moved by a
        multiple of its grid (another release on the same grid); else None (no witness)."""
        from verifier.semantics import released
        try:
            k = holds(self.shift, env1, env2)
        except (ZeroDivisionError, TypeError, KeyError, IndexError):
            return None
        if not isinstance(law, released.Noise) or not _number(k) \
                or (Fraction(k) / law.grid).denominator != 1:
            return None
        moved = released.Noise(law.family, law.center + Fraction(k), law.scale)
        return moved, (f" (run 2's output moved by {literal(Fraction(k))}, as the claim's "
                       f"{W.pretty_expr(self.proc.spec.post)} relates them)")

    def hockey(self, env1, env2, a: Any, b: Any, eps: Any, delta: Any) -> Optional[Confirmation]:
        """The hockey-stick divergence at ``eps`` of the two laws against ``delta``, decided
        exactly (``PairStat.hockey_exceeds``: exact laws, the sampler's enclosures, or a lower
        bound of the divergence — the finite parts of a product law, a binned law)."""
        from verifier.laws import pair_stat
        stat = pair_stat(a, b, mixed=True)
        if stat is None or not stat.hockey_exceeds(Fraction(eps), Fraction(delta)):
            return None
        return Confirmation(EXACT_LOSS, self.shown(env1, env2),
                            f"the hockey-stick divergence at eps = {literal(eps)} between the two "
                            f"runs' outputs is above the claimed {W.pretty_expr(self.proc.spec.delta)}"
                            f" = {literal(delta)} (about {stat.hockey(float(eps)):.6g})")

    def law(self, env: Dict[str, Any]):
        """``(M-value, usable law or None, run-time error or None)`` of the run on ``env``."""
        key = "|".join(literal(env[p.name]) for p in self.proc.params)
        if key not in self.laws:
            if self.computed >= self.max_inputs or self.paths > self.max_paths:
                raise _Budget()
            self.computed += 1
            self.laws[key] = self._law(env)
        return self.laws[key]

    def _law(self, env: Dict[str, Any]):
        from verifier.laws import output_law
        try:
            m = procedure_law(self.proc, self.types, env, work=self.budget)
        except PrivInferError as exc:     # before the first Lap: the run always stops
            certain = exc.first.code in PROGRAM_ERRORS and getattr(exc, "certain", False)
            return None, None, exc.first if certain else None
        except Exception:  # noqa: BLE001  (no witness; SymbolicEscape and the like)
            return None, None, None
        try:
            law = output_law(m, max_paths=self.law_paths)[1]()
        except PrivInferError as exc:
            if exc.first.code == "R009":     # the paths explored count
                self.paths += self.law_paths
            certain = exc.first.code in PROGRAM_ERRORS and getattr(exc, "certain", False)
            return m, None, exc.first if certain else None
        except Exception:  # noqa: BLE001
            return m, None, None
        source = getattr(law, "source", None)
        self.paths += source.paths if source is not None else 1
        return m, usable(law), None

    def shown(self, env1, env2) -> Tuple[Tuple[str, str, str], ...]:
        return tuple((p.name, literal(env1[p.name]), literal(env2[p.name]))
                     for p in self.proc.params)


def _may_exceed(a: Any, b: Any, eps: float, work: List[int]) -> bool:
    """Whether the privacy loss of law ``a`` against ``b``, *estimated* in floating point, may
    exceed ``eps`` (True when it is not estimated here). A screen before the exact comparison,
    which alone decides: a pair screened out is only a witness not looked for. ``work[0]``
    counts the integrations of the estimates."""
    import math
    from verifier.laws import CoarseLaw, Law
    from verifier.semantics import compared, released
    if isinstance(a, released.Noise) and isinstance(b, released.Noise):
        if not released.comparable(a, b):
            return True
        p = {None: 1.0}
        loss = abs(float(a.center) - float(b.center)) / float(a.scale)
    elif isinstance(a, Law) and isinstance(b, Law):
        p, q = a.probs, b.probs
    elif isinstance(a, CoarseLaw) or isinstance(b, CoarseLaw):
        sources = [getattr(x, "source", None) for x in (a, b)]
        if None in sources:
            return True
        cuts = sorted(set(sources[0].breakpoints()) | set(sources[1].breakpoints()))
        try:
            p, q = (compared.estimated_law(x.leaves, cuts, work) for x in sources)
        except Exception:  # noqa: BLE001  (no estimate: the exact comparison decides)
            return True
    else:
        return True
    if p.get(None) != 1.0:
        loss = 0.0
        for o, x in p.items():
            y = q.get(o, 0.0)
            if x > 1e-300 and y <= 0:
                return True
            if x > 0:
                loss = max(loss, math.log(x / y))
    return loss > eps * (1 - 1e-6) - 1e-9


def _output_shift(post: Any) -> Optional[Any]:
    """For an output relation ``result<1> = result<2> + k`` (or ``result<2> = result<1> + k``,
    ``k + ...``, ``... - k``) with ``k`` free of ``result``: the expression of ``k`` in
    ``result<1> = result<2> + k`` (``refutation.relation_shift``); else None."""
    def run_of(e: Any) -> Optional[int]:
        return e.run if isinstance(e, W.Name) and e.name == "result" else None

    def mentions(e: Any) -> bool:
        if isinstance(e, W.Name) and e.name == "result":
            return True
        return any(mentions(getattr(e, f)) for f in ("left", "right", "arg", "array", "index")
                   if hasattr(e, f)) or \
            any(mentions(x) for f in ("args", "items") for x in (getattr(e, f, ()) or ()))

    return relation_shift(post, run_of, mentions, lambda k: W.UnOp("-", k, k.span))


def _at(span: Any) -> str:
    return f" (at line {span.line}, column {span.col})" if span is not None else ""


# ---- the inputs -----------------------------------------------------------------------------

def _pairs(proc: W.Proc) -> Iterator[Tuple[Dict[str, Any], Dict[str, Any]]]:
    """Pairs of inputs (both orders), at most ``MAX_PAIRS``: shorter lists first, then lists
    moved at every position, then the ``pub`` parameters' first values."""
    types = {p.name: W.wtype_simple(p.type) for p in proc.params}
    constants = _constants(proc.spec.pre)
    pubs = [p for p in proc.params if p.pub]
    settings = list(itertools.product(*(range(len(_values(p.type))) for p in pubs)))
    settings.sort(key=lambda c: (sum(c), c))
    ranked = []
    for rank, indices in enumerate(settings[:SETTINGS]):
        public = {p.name: _values(p.type)[i] for p, i in zip(pubs, indices)}
        moves = sorted(set(constants) | {abs(Fraction(v)) for v in public.values()
                                         if _number(v) and v != 0})
        options = [[((0, 0), (public[p.name], public[p.name]))] if p.pub else
                   _moved(p.type, moves) for p in proc.params]
        sizes = [len(o) for o in options]
        while sizes and max(sizes) > 1 and _product(sizes) > MAX_PAIRS:
            widest = max(range(len(sizes)), key=lambda i: sizes[i])
            sizes[widest] -= 1
        for combo in itertools.product(*(o[:n] for o, n in zip(options, sizes))):
            key = (max(k[0] for k, _ in combo) + rank, sum(k[1] for k, _ in combo), rank)
            ranked.append((key, [pair for _, pair in combo]))
    ranked.sort(key=lambda kc: kc[0])
    count = 0
    for _, combo in ranked:
        for order in (combo, [(b, a) for a, b in combo]):
            if order is not combo and all(a == b for a, b in combo):
                continue
            count += 1
            if count > MAX_PAIRS:
                return
            yield ({p.name: _conform(a, types[p.name]) for p, (a, _) in zip(proc.params, order)},
                   {p.name: _conform(b, types[p.name]) for p, (_, b) in zip(proc.params, order)})


def _long_settings(proc: W.Proc) -> List[Dict[str, Any]]:
    """At most ``LONG_SETTINGS`` settings of the ``pub`` parameters: each at its first value
    (``_values``), then one at a time at its second — integers first (a count bound of 2 where
    1 is right), then the others."""
    pubs = [p for p in proc.params if p.pub]
    base = {p.name: _values(p.type)[0] for p in pubs}
    out = [base]
    for p in sorted(pubs, key=lambda p: p.type.base not in ("int", "nat")):
        if len(_values(p.type)) > 1 and len(out) < LONG_SETTINGS:
            out.append({**base, p.name: _values(p.type)[1]})
    return out


def _far_settings(proc: W.Proc) -> List[Dict[str, Any]]:
    """The settings of the third phase: each ``pub`` real (a threshold, a centre) in turn
    ``FAR`` below and above its first value, the others at theirs. The loss of a noisy
    comparison grows towards its bound in the tails of the noise, where the answers are far
    from the value compared with (a threshold far below answers near 0: every answer below it
    is then charged almost its whole bound)."""
    pubs = [p for p in proc.params if p.pub]
    base = {p.name: _values(p.type)[0] for p in pubs}
    return [{**base, p.name: base[p.name] + sign * FAR} for p in pubs
            if p.type.base == "real" for sign in (-1, 1)]


def _long_pairs(proc: W.Proc, far: bool = False
                ) -> Iterator[Tuple[Dict[str, Any], Dict[str, Any]]]:
    """The second phase's pairs (both orders): the first private list of numbers, of each
    length of ``LONG_LENGTHS``, moved in the patterns of ``_patterns`` by the largest constant
    that keeps the pair in ``P`` (the other private parameters the same in both runs), at the
    settings of ``_long_settings``. Order: the patterns of group 0 at every setting (each at
    every length), then those of group 1. Losses that add up over the
    positions of a list (each answer of the sparse vector charged, a count with no bound)
    exceed a claim only on such lists."""
    types = {p.name: W.wtype_simple(p.type) for p in proc.params}
    private = [p for p in proc.params if not p.pub]
    moved = next((p for p in private if p.type.base == "list"
                  and p.type.elem.base in ("int", "nat", "real", "real+")), None)
    if moved is None:
        return
    constants = _constants(proc.spec.pre)
    elem = moved.type.elem
    origin = Fraction(0) if _in_type(0, elem) else Fraction(1)
    settings = _far_settings(proc) if far else _long_settings(proc)
    for group, public in itertools.product((0,) if far else (0, 1), settings):
        moves = sorted(set(constants) | {abs(Fraction(v)) for v in public.values()
                                         if _number(v) and v != 0}, reverse=True)
        fixed = {}
        for p in private:
            if p is moved:
                continue
            same = [a for _, (a, b) in _moved(p.type, moves) if a == b]
            if not same:
                return
            fixed[p.name] = same[0]
        for signs in [p for k in LONG_LENGTHS for p in _patterns(k, group)]:
            n = len(signs)
            for m in moves:
                if elem.base == "real":    # symmetric about 0
                    a, b = [-s * m / 2 for s in signs], [s * m / 2 for s in signs]
                else:
                    a, b = [origin] * n, [origin + s * m for s in signs]
                if not (_in_type(a, moved.type) and _in_type(b, moved.type)):
                    continue
                a, b = _typed(a, moved.type), _typed(b, moved.type)
                envs = []
                for x, y in ((a, b), (b, a)):
                    env1, env2 = dict(public), dict(public)
                    env1.update(fixed), env2.update(fixed)
                    env1[moved.name], env2[moved.name] = x, y
                    envs.append(tuple({p.name: _conform(e[p.name], types[p.name])
                                       for p in proc.params} for e in (env1, env2)))
                try:
                    inside = holds(proc.spec.pre, *envs[0]) is True
                except (ZeroDivisionError, TypeError, KeyError, IndexError):
                    inside = False
                if inside:       # the largest move inside P only
                    yield from envs
                    break


def _patterns(n: int, group: int) -> List[Tuple[int, ...]]:
    """``refutation.telling_patterns`` of length ``n``: group 0 every position moved one way,
    or alternately; group 1 the others (halves, the first only, the last only)."""
    patterns = telling_patterns(n)
    return patterns[:2] if group == 0 else patterns[2:]


def _product(sizes: List[int]) -> int:
    out = 1
    for n in sizes:
        out *= n
    return out


def _number(v: Any) -> bool:
    return isinstance(v, (int, Fraction)) and not isinstance(v, bool)


def _constants(e: Any) -> List[Fraction]:
    """The positive constants an assertion states (1 when it states none)."""
    found: List[Fraction] = []

    def walk(x: Any) -> None:
        if isinstance(x, W.Num) and x.value != 0 and abs(Fraction(x.value)) not in found:
            found.append(abs(Fraction(x.value)))
        for f in ("left", "right", "arg", "array", "index"):
            if hasattr(x, f):
                walk(getattr(x, f))
        for f in ("args", "items"):
            for y in getattr(x, f, ()) or ():
                walk(y)

    walk(e)
    return found or [Fraction(1)]


def _values(t: W.WType) -> List[Any]:
    """A few values of a ``pub`` parameter's type, the most telling first."""
    if t.base == "list":
        elems = _values(t.elem)[:2]
        return [[]] + [[v] for v in elems] + [list(c) for c in itertools.product(elems, repeat=2)]
    return {"int": [1, 2, 0, 3], "nat": [1, 2, 0, 3], "bool": [False, True],
            "real": [Fraction(0), Fraction(1), Fraction(-1)],
            "real+": [Fraction(1), Fraction(1, 2), Fraction(2), Fraction(1, 10)]}[t.base]


def _in_type(v: Any, t: W.WType) -> bool:
    if t.base == "list":
        return isinstance(v, list) and all(_in_type(x, t.elem) for x in v)
    if t.base == "bool":
        return isinstance(v, bool)
    if not _number(v) or (t.base in ("int", "nat") and Fraction(v).denominator != 1):
        return False
    return not ((t.base == "nat" and v < 0) or (t.base == "real+" and not v > 0))


def _moved(t: W.WType, moves: List[Fraction]) -> List[Tuple[Tuple[int, int], Tuple[Any, Any]]]:
    """Pairs of values of a private parameter (see the module docstring), each with its rank
    ``(length, positions not moved)``."""
    if t.base == "bool":
        return [((0, 0), (a, b)) for a in (False, True) for b in (False, True)]
    if t.base != "list":
        base = [v for v in (Fraction(0), Fraction(1)) if _in_type(v, t)] or [Fraction(1)]
        pairs = [((0, 0), (v, v + s * m)) for v in base for m in moves for s in (1, -1)] + \
                [((0, 1), (v, v)) for v in base]
    else:
        elem = t.elem
        pairs = []
        for n in range(1, MAX_LENGTH + 1):
            if elem.base == "bool":
                lists = [list(c) for c in itertools.product((False, True), repeat=n)]
                pairs += [((n, sum(x == y for x, y in zip(a, b))), (a, b))
                          for a in lists for b in lists]
                continue
            if elem.base == "list":
                continue
            origin = Fraction(0) if _in_type(0, elem) else Fraction(1)
            for m in moves:
                for signs in itertools.product((1, -1, 0), repeat=n):
                    rank = (n, signs.count(0))
                    if rank[1] == n:
                        continue
                    if elem.base == "real":   # symmetric about 0: every position may move
                        pairs.append((rank, ([-s * m / 2 for s in signs], [s * m / 2 for s in signs])))
                    pairs.append((rank, ([origin] * n, [origin + s * m for s in signs])))
    pairs.sort(key=lambda rp: rp[0])
    return [(rank, (_typed(a, t), _typed(b, t))) for rank, (a, b) in pairs
            if _in_type(a, t) and _in_type(b, t)]


def _typed(v: Any, t: W.WType) -> Any:
    if t.base == "list":
        return [_typed(x, t.elem) for x in v]
    if t.base in ("int", "nat") and _number(v):
        return int(v)
    return v
