"""Relational contexts, privacy costs and claims; what a computation in a bound position gives
(``Synth``)."""
from __future__ import annotations

import re
from typing import Optional, Tuple

from obligations import terms as T
from obligations.records import field, record, replace
from verifier.language import ast as A
from verifier.rules.derivation import Derivation
from verifier.translation.symbolic import Env, SymValue


@record
class Cost:
    """What one monadic step spends: ``(eps, delta)`` in divergence ``family``.

    ``family`` is ``"DP"`` (eps-distance), ``"SD"``, ``"HD"``, ``"KL"`` (delta only), or
    ``"ZERO"`` for equal distributions, which cost nothing in any family.
    """

    family: str
    eps: T.Term
    delta: T.Term
    what: str
    span: Optional[A.Span] = None
    #: one Laplace release whose outputs are coupled equal: its cost bounds the privacy loss
    #: of the step in *both* directions (what advanced composition needs of each step)
    two_sided: bool = False
    #: a batch of ``count`` steps (a term), each costing at most ``step`` (a call of a release
    #: loop, S-M-Steps), whose ``eps`` is their sum ``count * step`` (what every rule but
    #: S-M-Adv and S-M-Steps reads); None: one step
    count: Optional[T.Term] = None
    step: Optional[T.Term] = None

    def as_judgement(self) -> dict:
        """The cost as structured judgement data (terms; ``what`` is for readers)."""
        return {"family": self.family, "eps": self.eps, "delta": self.delta, "what": self.what}


ZERO_REAL = T.real(0)


def zero_cost(what: str, span: Optional[A.Span] = None) -> Cost:
    return Cost("ZERO", ZERO_REAL, ZERO_REAL, what, span)


@record
class Claim:
    """The index of the claimed monad ``M[F, delta]``: family, epsilon (DP only) and delta;
    and the relation its outputs are lifted to.

    ``relation`` is empty for the claim's ``=`` (the outputs equal in both runs); otherwise
    it holds the assertions of ``{var :: T | A}`` (a DP claim only: an approximate lifting of
    ``A``, docs/verifier.md "Couplings"), read in ``env`` with ``var`` bound to the two
    outputs. ``pointwise`` is set below a Pointwise node (the claim ``=`` proved for every
    value of the output's discrete part, which allows Case-Output splits): that part, the
    positions of the output's countable components (``(None,)``: the whole output)."""

    family: str
    eps: Optional[T.Term]
    delta: T.Term
    text: str
    span: Optional[A.Span] = None
    var: Optional[str] = None
    relation: Tuple[A.Expr, ...] = ()
    env: Optional[Env] = field(default=None, compare=False)
    pointwise: Optional[Tuple[Optional[int], ...]] = None
    #: the claim of a release loop (S-M-Steps): every path is ``count`` steps, each a Laplace
    #: release coupled equal at cost at most ``bound``: (bound, count)
    steps: Optional[Tuple[T.Term, T.Term]] = None

    def as_judgement(self) -> dict:
        """The claimed index as structured judgement data (``eps`` is None unless DP)."""
        return {"family": self.family, "eps": self.eps, "delta": self.delta}


@record
class Ctx:
    """A relational context: bindings, named hypotheses, the costs spent on this path, the
    claim being checked, and what structural recursion allows.

    ``induction`` is set in the body of a recursive function: ``(position, x1, x2)``, the
    list parameter whose length (the longer of its two runs' lists) is the measure of the
    induction, and its terms in run 1 and run 2. A recursive call is an instance of the
    induction hypothesis when its list at ``position`` is shorter in both runs
    (``vocabulary.shorter``).
    """

    env: Env
    hyps: Tuple[Tuple[str, T.Term], ...] = ()
    costs: Tuple[Cost, ...] = ()
    claim: Optional[Claim] = None
    function: Optional[str] = None
    induction: Optional[Tuple[int, T.Term, T.Term]] = None
    case: str = field(default="", compare=False)
    binder: Optional[str] = field(default=None, compare=False)  # the mlet variable being bound
    #: inside a premise of Case-Output: which branch of the ``if`` that follows the computation
    #: being coupled the case is about (``then``/``else``), and that if's condition (a shift
    #: annotation ``if C then s1 else s2`` is read by it)
    out_case: Optional[Tuple[str, A.Expr]] = field(default=None, compare=False)
    #: the variables standing for outputs of the computations bound on this path (their
    #: values are the path's history: advanced composition wants costs independent of them)
    outputs: Tuple[T.Var, ...] = field(default=(), compare=False)
    #: how many of ``hyps`` are the claim's parameters' (its ranges and refinements), which
    #: hold wherever in its derivation: what a call fact resting on a function passed in pure
    #: code may assume of it (``higher_order.Related``)
    base: int = field(default=0, compare=False)

    def produced(self, values) -> "Ctx":
        """This context after a computation output ``values`` (a pair of symbolic values)."""
        from verifier.translation.symbolic import value_terms
        found = [v for value in values for t in value_terms(value) for v in T.free_vars(t)]
        return replace(self, outputs=self.outputs + tuple(v for v in found if v not in self.outputs))

    def assume(self, name: str, term: T.Term) -> "Ctx":
        """Add hypothesis ``term``; conjunctions are split into separately named hypotheses."""
        hyps = list(self.hyps)
        taken = {n for n, _ in hyps}
        name = "h_" + re.sub(r"[^A-Za-z0-9_]+", "_", name.removeprefix("h_")).strip("_")
        for i, part in enumerate(_conjuncts(term)):
            if part == T.boolean(True):
                continue
            base = name if i == 0 else f"{name}_{i}"
            candidate, k = base, 2
            while candidate in taken:
                candidate, k = f"{base}_{k}", k + 1
            taken.add(candidate)
            hyps.append((candidate, part))
        return replace(self, hyps=tuple(hyps))

    def bind(self, name: str, left: SymValue, right: SymValue) -> "Ctx":
        return replace(self, env=self.env.bind(name, left, right))

    def with_env(self, env: Env) -> "Ctx":
        return replace(self, env=env)

    def spend(self, cost: Cost) -> "Ctx":
        return replace(self, costs=self.costs + (cost,))

    def binding(self, p) -> "Ctx":
        """This context while computing the value an ``mlet`` binds to pattern ``p``."""
        return replace(self, binder=getattr(p, "name", None))

    def in_case(self, label: str) -> "Ctx":
        return replace(self, case=f"{self.case}, {label}" if self.case else label)


@record
class Synth:
    """What a monadic computation in a bound position gives: its derivation, its cost, and its
    output in each run (usually one fresh variable shared by both runs: the output is equal)."""

    node: Derivation
    cost: Cost
    output: Tuple[SymValue, SymValue]
    facts: Tuple[T.Term, ...] = ()  # what the cost's fresh symbols range over (e.g. a candidate)

    def continue_in(self, ctx: Ctx) -> Ctx:
        """``ctx`` after this computation: its cost spent and its facts assumed."""
        ctx = ctx.spend(self.cost).produced(self.output)
        return ctx.assume("h_candidate", T.and_(*self.facts)) if self.facts else ctx



def _conjuncts(t: T.Term) -> Tuple[T.Term, ...]:
    if isinstance(t, T.Op) and t.op == T.OpKind.AND:
        out: Tuple[T.Term, ...] = ()
        for a in t.args:
            out += _conjuncts(a)
        return out
    return (t,)
