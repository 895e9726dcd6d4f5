"""The kernel's Decidable condition: every decision ``privinfer run`` makes in a verified
definition is safe with private data (docs/certificates.md, docs/reals.md).

The kernel's Safety walk (``checker.safety``) hands every decision it meets to a
``Decisions`` object of its run: the ``Decision``s the shared translator reports
(comparisons, sign tests of ``abs`` / ``min`` / ``max``, divisors, range checks, the laws
``hellinger`` and ``tv`` compare), the ranges of mechanisms' parameters, and the arguments of
calls of vals (which must be rational where the callee's own walk needs them: its
``Terms``, computed here by walking the callee). A decision is accepted when
``obligations.decidable.judge`` accepts it — every operand rational, or every operand public
and the decision reached alike in both runs (only in an entry definition: not recursive,
called by no other declaration) — and is then a trivial ``Decidable`` obligation; otherwise
the certificate is invalid (``Reject``), whatever the builder said.

This is the kernel's own walk of the condition: it shares only the pure classifier of
``obligations.decidable`` with the builder (``verifier.rules.decidable``).
"""
from __future__ import annotations

from typing import Dict, FrozenSet, List, Optional, Sequence, Set, Tuple

from obligations import decidable as D
from obligations import terms as T
from obligations.model import ObligationKind
from verifier.language import ast as A
from verifier.language.free_vars import free_vars
from verifier.language.resolve import source_name
from verifier.translation.calls import flat_terms
from verifier.translation.symbolic import DistV, Monadic, Scalar, SymValue, TupleV
from checker.judgement import Reject


def entry_definition(program: A.Program, decl: A.LetDecl) -> bool:
    """An entry: not recursive, and no other declaration's body names it."""
    return not decl.recursive and all(
        other is decl or decl.name not in free_vars(other.body) for other in program.lets())


class Decisions:
    """What one run's Safety walk knows for the Decidable condition, and its verdicts.
    ``entry``: public values are accepted where reached alike; ``summary``: computing a
    callee's terms (nothing is rejected, the tags relied on are gathered)."""

    def __init__(self, p, run: int, entry: bool, summary: bool = False):
        self.p, self.run, self.entry, self.summary = p, run, entry, summary
        self.known: Dict[T.Var, D.Tags] = {}      # rational variables and their tags
        self.shared: Set[T.Var] = set()           # public variables
        self.observed: Set[T.Var] = set()         # draws read by their density
        self.computations: Dict[int, int] = {}    # computation parameters: id -> position
        self.needs: Set[int] = set()
        self.depth = 0          # branches on conditions that are not public, local bodies
        self.in_likelihood = 0

    def rational(self, v: T.Term) -> Optional[D.Tags]:
        """What is known of a variable; of a call of a pure val (``D.val_call_name``):
        rational on rational arguments when its terms say so (``terms_of``)."""
        if isinstance(v, T.Apply):
            name = D.val_call_name(v.func.name)
            return D.NO_TAGS if name is not None and self.p.val_of(name) is not None \
                and terms_of(self.p, name)[1] else None
        return self.known.get(v)

    def public(self, v: T.Var) -> bool:
        return v in self.shared

    def of_value(self, value: Optional[SymValue]) -> Optional[D.Tags]:
        """The tags of a first-order value all of whose reals are rational (None: not)."""
        terms = flat_terms(value) if value is not None else None
        if terms is None:
            return None
        tags: D.Tags = D.NO_TAGS
        for t in terms:
            found = D.rational_tags(t, self.rational)
            if found is None:
                return None
            tags = tags | found
        return tags

    def fresh(self, value: SymValue, tags: Optional[D.Tags], public: bool = False) -> None:
        """Variables of a value just made (drawn, matched): rational with ``tags`` when not
        None, public when ``public`` (in an entry)."""
        stack = [value]
        while stack:
            v = stack.pop()
            if isinstance(v, TupleV):
                stack.extend(v.items)
                continue
            terms = (v.term,) + tuple(v.params) if isinstance(v, DistV) else \
                (v.term,) if isinstance(v, Scalar) else ()
            for t in terms:
                if isinstance(t, T.Var):
                    if tags is not None:
                        self.known[t] = tags
                    if public and self.entry:
                        self.shared.add(t)

    def parameters(self, ctx, patterns: Sequence[A.Pattern]) -> None:
        """The definition's parameters: rational (tag: position), public when both runs share
        their variables; a computation parameter's draws are tagged by its position."""
        for position, pattern in enumerate(patterns):
            for name in A.pattern_names(pattern):
                pair = ctx.env.lookup(name)
                if pair is None:
                    continue
                mine = pair[self.run - 1]
                if isinstance(mine, Monadic):
                    self.computations[id(mine)] = position
                else:
                    self.fresh(mine, frozenset({position}),
                               public=flat_terms(pair[0]) == flat_terms(pair[1]))

    def list_parts(self, lst: T.Term, parts: Sequence[T.Var]) -> None:
        """The head and tail of a matched list are what the list is."""
        tags = D.rational_tags(lst, self.rational)
        public = self.entry and D.invariant(lst, self.public)
        for v in parts:
            if tags is not None:
                self.known[v] = tags
            if public:
                self.shared.add(v)

    # ---- where the walk is ---------------------------------------------------------------------

    def splits(self, *conditions: T.Term) -> bool:
        """Whether code under ``conditions`` may be reached in one run and not the other."""
        return not (self.entry and all(D.invariant(c, self.public) for c in conditions))

    def reached_alike(self, guard: T.Term) -> bool:
        return self.depth == 0 and not self.splits(guard)

    # ---- verdicts --------------------------------------------------------------------------------

    def judge(self, ctx, operands: Sequence[T.Term], what: str, span,
              guard: T.Term = T.TRUE) -> None:
        """The decision on ``operands``: a trivial Decidable obligation, or the certificate is
        invalid."""
        operands = tuple(operands)
        if not any(D.carries_reals(t.sort) for t in operands):
            return
        verdict = D.judge(operands, self.rational, self.public, self.reached_alike(guard))
        if verdict.accepted:
            self.needs |= verdict.tags
            self.p.oblige(ctx, ObligationKind.RANGE, T.TRUE,
                          f"the run decides {what} exactly (run {self.run})", span,
                          "Decidable")
        elif not self.summary:
            raise Reject(f"the run cannot always decide {what} with private data ({verdict.why}):"
                         " R011 on one input and not on its neighbour would leak (Decidable)",
                         span)

    def arguments_of_call(self, name: str, tags: Sequence[Optional[D.Tags]], span) -> None:
        """A call of the val ``name``: each argument its terms need rational is."""
        for position in sorted(terms_of(self.p, name)[0]):
            if position >= len(tags):
                continue
            if tags[position] is not None:
                self.needs |= tags[position]
            elif not self.summary:
                raise Reject(f"argument {position + 1} of the call of {source_name(name)} need "
                             "not be rational, and the callee's decisions compare it: R011 on "
                             "one input and not on its neighbour would leak (Decidable)", span)


    def argument_of_parameter(self, tags: Optional[D.Tags], what: str, span) -> None:
        """An argument of a call of a function parameter: rational, whatever the function
        passed compares (its callers pass a verified function, whose terms are then met)."""
        if tags is not None:
            self.needs |= tags
        elif not self.summary:
            raise Reject(f"{what} need not be rational, and the function passed may compare it:"
                         " R011 on one input and not on its neighbour would leak (Decidable)",
                         span)


# ---- what a val's definition needs of its callers -------------------------------------------------

Terms = Tuple[FrozenSet[int], bool]


def terms_of(p, name: str) -> Terms:
    """What the val ``name`` needs and gives: the positions of the parameters whose arguments
    must be rational (its decisions rely on them, or its definition writes their type, which
    ``run`` checks), and whether its draws (for a pure val: its value, read only where it is
    passed as a function) are rational when its arguments are. Computed by
    walking its definition on a proof of its own, its recursive calls given the terms being
    computed (from nothing needed and rational draws, until they do not change: a fixpoint,
    sound by induction over the terminating recursion). Everything needed and nothing given
    when the definition cannot be walked."""
    cache = p.decidable_terms
    if name in cache:
        return cache[name]
    val, decl = p.val_of(name), p.lets.get(name)
    worst: Terms = (frozenset(range(_arrow_count(val.rtype))) if val else frozenset(), False)
    if val is None or decl is None:
        return worst
    guess: Terms = (frozenset(), True)
    for _ in range(len(worst[0]) + 3):
        cache[name] = guess
        found = _walk(p, val, decl)
        if found is None:
            break
        if found == guess:
            return found
        guess = (guess[0] | found[0], guess[1] and found[1])
    cache[name] = worst
    return worst


def _walk(p, val: A.ValDecl, decl: A.LetDecl) -> Optional[Terms]:
    from checker.definition import _parameter_patterns, bind_parameters, induction_position
    from checker.judgement import Proof
    from checker.safety import check_safety
    own = Proof(p.program, p.typed, val.name, p.infer_function)
    own.decidable_terms = p.decidable_terms
    needs: Set[int] = set()
    try:
        ctx, _, body, rt, _ = bind_parameters(
            own, val, decl, induction_position(decl) if decl.recursive else None)
        monadic = isinstance(_stripped(rt), A.RMonad)
        draws = check_safety(own, ctx, body, monadic, None, _parameter_patterns(decl),
                             definition=decl, needs=needs)
    except Exception as exc:  # noqa: BLE001 - a definition the kernel cannot walk
        from verifier.translation.translate import NoRule
        if isinstance(exc, (Reject, NoRule, T.SortError)):
            return None
        raise
    patterns = _parameter_patterns(decl)
    needs |= {i for i, q in enumerate(patterns) if _writes_a_type(q)}
    return frozenset(needs), bool(draws)


def _stripped(rt: A.RType) -> A.RType:
    while isinstance(rt, A.RRefine):
        rt = rt.base
    return rt


def _arrow_count(rt: A.RType) -> int:
    n, rt = 0, _stripped(rt)
    while isinstance(rt, A.RArrow):
        n, rt = n + 1, _stripped(rt.cod)
    return n


def _writes_a_type(q: A.Pattern) -> bool:
    if isinstance(q, A.PTuple):
        return any(_writes_a_type(x) for x in q.items)
    return isinstance(q, (A.PVar, A.PWild)) and q.annot is not None


def draws_of_call(p, name: str, tags: Sequence[Optional[D.Tags]]) -> Optional[D.Tags]:
    """The tags of the draws of a call of ``name`` with arguments of tags ``tags``."""
    if not terms_of(p, name)[1] or any(t is None for t in tags):
        return None
    out: D.Tags = D.NO_TAGS
    for t in tags:
        out = out | t
    return out


def joined(a: Optional[D.Tags], b: Optional[D.Tags]) -> Optional[D.Tags]:
    return None if a is None or b is None else a | b


def continuous_draw(family: Optional[str]) -> bool:
    """A draw the run samples from a continuous law (read by its density in a likelihood)."""
    return family in ("beta", "normal", "dirichlet")


def rational_family(family: Optional[str]) -> bool:
    """A law ``run`` samples as exact rationals (``beta``, ``uniform``, ``dirichlet``)."""
    return family in ("beta", "dirichlet")


__all__: List[str] = ["Decisions", "entry_definition", "terms_of", "draws_of_call", "joined",
                      "continuous_draw", "rational_family"]
