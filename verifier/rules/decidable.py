"""The Decidable condition of the Safety judgement (docs/verifier.md, docs/reals.md).

``privinfer run`` decides every comparison of reals exactly or stops with R011, and a run-time
error is an observable output: a decision the run can fail to make on one input and make on
its neighbour leaks. So the Safety walk (``verifier.rules.safety``) judges, in each run, every
decision the run makes — the ``Decision``s the translator reports (comparisons, the sign tests
of ``abs`` / ``min`` / ``max``, divisors, range checks, the parameters ``hellinger`` and
``tv`` compare), the ranges of mechanisms' parameters, and the arguments of calls of vals —
with the pure classifier ``obligations.decidable``: accepted when its operands are rational
(always decided: no precision cap) or run-invariant and reached alike in both runs. An
accepted decision is a trivial ``Decidable`` obligation of the Safety node (it shows in the
derivation); a rejected one leaves the claim unknown (``NoRule``, code V010) with the
decision's place and the reason.

What the walk knows of its variables (``Decidability``):

* **rational** variables, each with the *tags* of the parameters whose being rational it
  relies on: the parameters of the definition (tag = position; ``privinfer run`` checks that
  a real input is rational, and every call of a val must pass rational arguments where the
  val's decisions need them: its *contract*, ``contract``), the draws of a computation
  parameter (the same tag: the caller passes a computation with rational draws), the draws of
  ``beta``, ``uniform`` and ``dirichlet`` (the run samples them as rationals), the releases of
  ``lapMech`` and ``gaussMech`` (grid rationals), a candidate of ``expMech`` drawn from
  rational candidates, the head and tail of a rational list;
* **public** variables — in an *entry* definition only (one no other declaration calls, not
  recursive: its parameters come from ``privinfer run`` itself): the shared variables of the
  parameters refined ``=``, and the head and tail of a public list. A definition that other
  code calls may be called where the two runs differ (under a branch on private data, a
  different number of times), so it accepts rational decisions only;
* **density** draws: in a likelihood, ``z`` drawn from a continuous law is read by its
  density (``d = z`` is an observation, not a comparison: the decisions are those on ``d``,
  whose density the run computes and whose support it checks);
* whether the current code is reached **alike** in both runs: not inside a branch whose
  condition (or a ``match`` whose list) is not public, nor in a local recursive function's
  body, nor under a translator guard that is not public.
"""
from __future__ import annotations

from contextlib import contextmanager
from typing import Dict, FrozenSet, Iterable, List, Optional, Sequence, Set

from obligations import decidable as D
from obligations import terms as T
from obligations.model import ObligationKind
from obligations.records import record
from verifier.language import ast as A
from verifier.language.resolve import source_name
from verifier.translation.calls import flat_terms
from verifier.translation.symbolic import DistV, Monadic, Scalar, SymValue, TupleV
from verifier.translation.translate import Decision, NoRule

#: the diagnostic code of a decision the run cannot always make (verifier/errors.py)
CODE = "V010"


def is_entry(program: A.Program, decl: A.LetDecl) -> bool:
    """Whether ``decl`` is an entry definition: not recursive, and named by no other
    declaration's body (only ``privinfer run`` calls it, on inputs it checks rational)."""
    from verifier.language.free_vars import free_vars
    if decl.recursive:
        return False
    return not any(d is not decl and decl.name in free_vars(d.body) for d in program.lets())


class Decidability:
    """The Decidable condition of one Safety walk in one run (module docstring). ``entry``:
    the definition is an entry (public variables accepted where reached alike); ``collect``:
    compute a contract (record the tags of accepted decisions, never reject)."""

    def __init__(self, b, run: int, entry: bool, collect: bool = False):
        self.b, self.run, self.entry, self.collect = b, run, entry, collect
        self.rational: Dict[T.Var, D.Tags] = {}
        self.public: Set[T.Var] = set()
        self.density: Set[T.Var] = set()
        self.parameters: Dict[int, int] = {}  # id of a computation parameter's value -> tag
        self.relied: Set[int] = set()
        self._divergent = 0
        self._likelihood = 0

    # ---- what is known of variables ----------------------------------------------------------

    def leaf(self, v: T.Term) -> Optional[D.Tags]:
        """What is known of a variable; of a call of a pure val (``D.val_call_name``):
        rational on rational arguments when its contract says so."""
        if isinstance(v, T.Apply):
            name = D.val_call_name(v.func.name)
            return D.NO_TAGS if name is not None and self.b.val_of(name) is not None \
                and contract(self.b, name).rational_draws else None
        return self.rational.get(v)

    def is_public(self, v: T.Var) -> bool:
        return v in self.public

    def tags(self, value: SymValue) -> Optional[D.Tags]:
        """The tags of a first-order value whose reals are all rational, else None."""
        terms = flat_terms(value)
        if terms is None:
            return None
        out: D.Tags = D.NO_TAGS
        for t in terms:
            got = D.rational_tags(t, self.leaf)
            if got is None:
                return None
            out |= got
        return out

    def register(self, value: SymValue, tags: Optional[D.Tags], public: bool = False) -> None:
        """Record the fresh variables of ``value`` (a drawn or matched value) as rational with
        ``tags`` (nothing when None) and, when ``public``, as public."""
        for v in _variables(value):
            if tags is not None:
                self.rational[v] = tags
            if public and self.entry:
                self.public.add(v)

    def matched(self, lst: T.Term, head: T.Var, tail: T.Var) -> None:
        """The head and tail of the list ``lst`` (a ``match``): rational when it is (with its
        tags), public when it is."""
        tags = D.rational_tags(lst, self.leaf)
        for v in (head, tail):
            if tags is not None:
                self.rational[v] = tags
            if self.invariant(lst):
                self.public.add(v)

    def parameter_bindings(self, ctx, patterns: Sequence[A.Pattern]) -> None:
        """The definition's parameters (``patterns``, bound in ``ctx``): rational, tagged with
        their position; public when shared by both runs (refined ``=``); a computation
        parameter's draws are tagged with its position too (``computation_tags``)."""
        for i, p in enumerate(patterns):
            for name in A.pattern_names(p):
                pair = ctx.env.lookup(name)
                if pair is None:
                    continue
                value = pair[self.run - 1]
                if isinstance(value, Monadic):
                    self.parameters[id(value)] = i
                    continue
                shared = flat_terms(pair[0]) == flat_terms(pair[1])
                self.register(value, frozenset({i}), public=shared)

    def computation_tags(self, value: SymValue) -> Optional[D.Tags]:
        """The tags of the draws of a computation parameter (None for another computation)."""
        i = self.parameters.get(id(value))
        return None if i is None else frozenset({i})

    # ---- where the code is -------------------------------------------------------------------

    @contextmanager
    def branch(self, *conditions: T.Term):
        """Code reached under ``conditions`` (an ``if``'s, a ``match``'s list): reached alike
        in both runs only when they are public."""
        split = not all(self.invariant(c) for c in conditions)
        self._divergent += split
        try:
            yield
        finally:
            self._divergent -= split

    @contextmanager
    def apart(self):
        """Code whose execution the two runs need not share (a local recursive function's
        body, run on arguments of which nothing is known)."""
        self._divergent += 1
        try:
            yield
        finally:
            self._divergent -= 1

    @contextmanager
    def likelihood(self):
        """A likelihood's body: a continuous draw in it is read by its density."""
        self._likelihood += 1
        try:
            yield
        finally:
            self._likelihood -= 1

    @property
    def in_likelihood(self) -> bool:
        return self._likelihood > 0

    def invariant(self, term: T.Term) -> bool:
        return self.entry and D.invariant(term, self.is_public)

    def alike(self, guard: T.Term = T.TRUE) -> bool:
        return self.entry and not self._divergent and self.invariant(guard)

    # ---- the condition -----------------------------------------------------------------------

    def decide(self, safety, ctx, decisions: Iterable[Decision]) -> None:
        """Judge each decision the translator reported (``Decision``)."""
        for d in decisions:
            operands, what = d.operands, d.what
            if what.startswith("the comparison") and any(
                    isinstance(t, T.Var) and t in self.density for t in operands):
                # d = z on a draw read by its density: an observation, which reads the density
                # at d (and checks that d is in the law's support): a decision on d alone
                operands = tuple(t for t in operands
                                 if not (isinstance(t, T.Var) and t in self.density))
                what = f"the observation {what[len('the comparison '):]} (its density)"
            self.judge(safety, ctx, operands, what, d.span, d.guard)

    def judge(self, safety, ctx, operands: Sequence[T.Term], what: str, span,
              guard: T.Term = T.TRUE) -> None:
        """Accept the decision on ``operands`` (a trivial ``Decidable`` obligation) or reject
        it (``NoRule`` V010), by ``obligations.decidable.judge``."""
        if not any(D.carries_reals(t.sort) for t in operands):
            return
        verdict = D.judge(operands, self.leaf, self.is_public, self.alike(guard))
        if verdict.accepted:
            self.relied |= verdict.tags
            how = ("both sides are rational" if verdict.how == "rational" else
                   "both runs compute it alike from public inputs")
            safety.obligations.append(self.b.oblige(
                ctx, ObligationKind.RANGE, T.TRUE, f"the run decides {what} exactly: {how} "
                f"(run {self.run})", span, "Decidable"))
        elif not self.collect:
            raise NoRule(rejection(what, verdict.why), span, code=CODE)

    def require_rational(self, tags: Optional[D.Tags], what: str, span) -> None:
        """A value the callee's decisions need rational (its contract): ``tags`` of the value
        (None when it is not known to be rational)."""
        if tags is not None:
            self.relied |= tags
        elif not self.collect:
            raise NoRule(rejection(what, "the argument need not be a rational number (its "
                                         "contract needs it rational)"), span, code=CODE)

    def call(self, name: str, arguments: Sequence[Optional[D.Tags]], span) -> None:
        """A call of the val ``name`` whose arguments, per parameter, have the tags
        ``arguments`` (None: not known to be rational; for a computation, of its draws):
        every argument the callee's contract names must be rational."""
        for i in sorted(contract(self.b, name).needs):
            if i < len(arguments):
                self.require_rational(arguments[i], f"the comparisons {source_name(name)} makes "
                                      f"on argument {i + 1} of this call", span)


def rejection(what: str, why: str) -> str:
    return (f"the run cannot always decide {what} with private data: {why}; R011 (a comparison "
            "of real numbers could not be decided) on one input and not on its neighbour would "
            "leak. Compare rational numbers (built from the inputs, counts and sums, and "
            "mechanisms' releases by + - * / abs min max), or only public inputs")


def _variables(value: SymValue) -> List[T.Var]:
    """The variables a fresh value is made of (a distribution's term and parameters)."""
    if isinstance(value, Scalar):
        return [value.term] if isinstance(value.term, T.Var) else []
    if isinstance(value, DistV):
        return [x for x in (value.term,) + tuple(value.params) if isinstance(x, T.Var)]
    if isinstance(value, TupleV):
        return [v for item in value.items for v in _variables(item)]
    return []


# ---- contracts ----------------------------------------------------------------------------------

@record
class Contract:
    """What the Decidable condition of a val's definition needs of its callers, and gives
    them: ``needs``, the positions of the parameters whose arguments must be rational (its
    accepted decisions rely on them, or ``run`` checks their written annotation where they
    bind); ``rational_draws``, whether what it returns (its draws, for a computation; its
    value, for a pure val, read only where the function is passed as an argument) is
    rational whenever every argument is (by induction over its recursive calls)."""

    needs: FrozenSet[int]
    rational_draws: bool = False


def contract(b, name: str) -> Contract:
    """The contract of the val ``name``, from its own Safety walks (on a builder of its own,
    computing it: ``check_safety``'s ``relied``). Its recursive calls are given the contract
    being computed — first nothing needed and rational draws, then what the walk found, until
    it does not change (a fixpoint: by induction over the recursion, which Safety shows
    terminates, the contract then holds). Every position and nothing given when the
    definition cannot be walked (its claim is then not verified, nor its callers')."""
    cache = b.decidable_contracts
    if name in cache:
        return cache[name]
    val, decl = b.val_of(name), b.let_of(name)
    everything = Contract(frozenset(range(_arity(val))) if val is not None else frozenset())
    if val is None or decl is None:
        return everything
    assumed = Contract(frozenset(), True)
    for _ in range(len(everything.needs) + 3):
        cache[name] = assumed
        found = _walked_contract(b, val, decl)
        if found is None:
            break
        if found == assumed:
            return found
        assumed = Contract(assumed.needs | found.needs,
                           assumed.rational_draws and found.rational_draws)
    cache[name] = everything
    return everything


def _walked_contract(b, val: A.ValDecl, decl: A.LetDecl) -> Optional[Contract]:
    """The contract ``decl``'s Safety walks find (recursive calls read the cache)."""
    from verifier.rules.builder import Builder
    from verifier.rules.core_rules import _parameter_patterns, bind_parameters, induction_position
    from verifier.rules import registry
    inner = Builder(b.program, b.typed, rlimit=b.rlimit, session=b.session)
    inner.decidable_contracts = b.decidable_contracts
    relied: Set[int] = set()
    try:
        position = induction_position(decl) if decl.recursive else None
        ctx, _, _, body, rt = bind_parameters(inner, val, decl, position)
        monadic = isinstance(rt, A.RMonad)
        draws = registry.judgement(registry.SAFETY, decl.span)(inner, ctx, body, monadic=monadic,
                             parameters=_parameter_patterns(decl), definition=decl,
                             relied=relied)
    except NoRule:
        return None
    for i, p in enumerate(_parameter_patterns(decl)):
        if _annotated(p):
            relied.add(i)
    return Contract(frozenset(relied), draws)


def call_draws(b, name: str, arguments: Sequence[Optional[D.Tags]]) -> Optional[D.Tags]:
    """The tags of the draws of a call of the val ``name`` (a computation) whose arguments
    have the tags ``arguments``: rational when its contract gives rational draws and every
    argument is rational (None otherwise)."""
    if not contract(b, name).rational_draws or any(a is None for a in arguments):
        return None
    out: D.Tags = D.NO_TAGS
    for a in arguments:
        out |= a
    return out


def _arity(val: A.ValDecl) -> int:
    n, rt = 0, val.rtype
    while isinstance(rt, A.RRefine):
        rt = rt.base
    while isinstance(rt, A.RArrow):
        n += 1
        rt = rt.cod
        while isinstance(rt, A.RRefine):
            rt = rt.base
    return n


def _annotated(p: A.Pattern) -> bool:
    """Whether a parameter pattern writes a type anywhere (``run`` checks it where it binds)."""
    if isinstance(p, (A.PVar, A.PWild)):
        return p.annot is not None
    if isinstance(p, A.PTuple):
        return any(_annotated(q) for q in p.items)
    return False
