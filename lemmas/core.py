"""Lemmas as reviewable objects, their instances, and a builder for proof artifacts.

A ``Lemma`` is a statement over typed parameters — hypotheses and a conclusion, both sympy
formulas — with its source, a status and a proof artifact (``lemmas.artifacts``):

* ``proved``: the artifact derives the conclusion from the hypotheses; it is re-checked by
  ``lemmas.artifacts.recheck`` and relies only on the facts and tools it lists;
* ``literature``: a published result; the artifact cites it (and may check supporting
  calculations); certificates must list it in their trust base;
* ``disputed``: a published claim whose proof is in doubt (NOTES.md); never to be used
  without saying so.

Hypotheses are kept simple enough for an SMT solver: polynomial (in)equalities over the
parameters, possibly with uninterpreted atoms such as ``Adj(l1, l2)`` or ``SD(p, q) <= d``.
Anything transcendental lives in the conclusion or in the artifact.

``lemma.instantiate({name: term})`` substitutes terms for the parameters: every hypothesis,
and every sort condition of a parameter (``a > 0`` for ``a : pos``), becomes an obligation of
the caller; terms standing for integer parameters are returned in ``integer_terms``.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Dict, Iterable, List, Mapping, Optional, Sequence, Tuple, Union

import sympy as sp

from lemmas import artifacts, exprs

STATUSES = artifacts.STATUSES


@dataclass(frozen=True)
class Parameter:
    """A parameter of a lemma: a name and a sort (see ``lemmas.exprs.SORTS``)."""

    name: str
    sort: str

    def __post_init__(self):
        exprs.symbol(self.name, self.sort)  # validates both

    @property
    def symbol(self) -> sp.Symbol:
        return exprs.symbol(self.name, self.sort)


@dataclass(frozen=True)
class LemmaInstance:
    """A lemma with terms substituted for its parameters.

    ``hypotheses``: the obligations the caller must discharge — the sort conditions of the
    substituted terms (``t > 0`` for a ``pos`` parameter, ``t >= 0`` for ``nat``, and
    ``IsInteger(t)`` for integer sorts unless sympy sees that ``t`` is an integer) followed by
    the lemma's hypotheses; trivially true ones are dropped. ``integer_terms``: the terms of
    those ``IsInteger`` obligations (for callers that know integrality from typing).
    ``conclusion``: what the lemma then guarantees.
    """

    lemma_id: str
    status: str
    bindings: Tuple[Tuple[str, sp.Basic], ...]
    hypotheses: Tuple[sp.Basic, ...]
    integer_terms: Tuple[sp.Basic, ...]
    conclusion: sp.Basic

    @property
    def obligations(self) -> Tuple[sp.Basic, ...]:
        return self.hypotheses


@dataclass(frozen=True, eq=False)
class Lemma:
    """A lemma of the library (see the module docstring). Immutable; equality is identity."""

    id: str
    title: str
    statement: str
    parameters: Tuple[Parameter, ...]
    hypotheses: Tuple[sp.Basic, ...]
    conclusion: sp.Basic
    source: str
    status: str
    artifact: Mapping[str, Any] = field(repr=False)
    dimension: Optional[int] = None

    def __post_init__(self):
        if self.status not in STATUSES:
            raise ValueError(f"lemma {self.id}: status must be one of {STATUSES}")
        if not self.id or any(c.isspace() for c in self.id):
            raise ValueError(f"bad lemma id {self.id!r}")
        names = [p.name for p in self.parameters]
        if len(set(names)) != len(names):
            raise ValueError(f"lemma {self.id}: duplicate parameter names")
        allowed = {p.symbol for p in self.parameters}
        for f in (*self.hypotheses, self.conclusion):
            stray = f.free_symbols - allowed
            if stray:
                raise ValueError(f"lemma {self.id}: undeclared symbols {sorted(map(str, stray))}")
        if self.artifact.get("lemma") != self.id or self.artifact.get("status") != self.status:
            raise ValueError(f"lemma {self.id}: the artifact is for another lemma or status")
        # the artifact must state exactly this lemma
        if not artifacts.statements_equal(self.artifact["statement"], self.statement_json()):
            raise ValueError(f"lemma {self.id}: the artifact states something else")

    # ---- views ---------------------------------------------------------------------------
    def statement_json(self) -> Dict[str, Any]:
        return artifacts.statement_json([(p.name, p.sort) for p in self.parameters],
                                        self.hypotheses, self.conclusion)

    @property
    def cited(self) -> Tuple[str, ...]:
        """Ids of the lemmas the artifact cites."""
        return tuple(s["lemma"] for s in self.artifact["steps"] if s.get("kind") == "lemma")

    def to_json(self) -> Dict[str, Any]:
        return {"id": self.id, "title": self.title, "statement": self.statement,
                "status": self.status, "source": self.source,
                "formal": self.statement_json(), "dimension": self.dimension}

    def artifact_text(self) -> str:
        return json.dumps(self.artifact, indent=1, sort_keys=False)

    # ---- use -----------------------------------------------------------------------------
    def instantiate(self, mapping: Mapping[Union[str, sp.Symbol], Any]) -> LemmaInstance:
        """Substitute terms for all parameters (keys: names or parameter symbols).

        Values may be sympy expressions, ints, Fractions or decimal strings (read exactly);
        floats are refused. Every parameter must be bound, and nothing else.
        """
        by_name = {p.name: p for p in self.parameters}
        binding: Dict[str, sp.Basic] = {}
        for key, value in mapping.items():
            name = key.name if isinstance(key, sp.Symbol) else str(key)
            if name not in by_name:
                raise KeyError(f"lemma {self.id} has no parameter {name!r}")
            binding[name] = _term(value)
        missing = [p.name for p in self.parameters if p.name not in binding]
        if missing:
            raise KeyError(f"lemma {self.id}: unbound parameters {missing}")
        subst = {by_name[n].symbol: t for n, t in binding.items()}
        side: List[sp.Basic] = []
        integer_terms: List[sp.Basic] = []
        for p in self.parameters:
            t = binding[p.name]
            side.extend(exprs.sort_constraint(t, p.sort))
            if p.sort in exprs.INTEGER_SORTS and t.is_integer is not True:
                integer_terms.append(t)
                side.append(exprs.function("IsInteger")(t))
        hyps = [exprs.substitute(h, subst) for h in self.hypotheses]
        hyps = [h for h in side + hyps if h is not sp.true]
        return LemmaInstance(self.id, self.status,
                             tuple((p.name, binding[p.name]) for p in self.parameters),
                             tuple(hyps), tuple(integer_terms),
                             exprs.substitute(self.conclusion, subst))


def _term(value: Any) -> sp.Basic:
    if isinstance(value, float):
        raise TypeError("floats are not exact: pass a Fraction, an int or a sympy Rational")
    if isinstance(value, Fraction):
        return sp.Rational(value.numerator, value.denominator)
    if isinstance(value, str):
        return sp.Rational(Fraction(value))
    if isinstance(value, bool):
        raise TypeError("a boolean is not a term")
    out = sp.sympify(value, strict=True)
    if any(isinstance(a, sp.Float) for a in sp.preorder_traversal(out)):
        raise TypeError("floats are not exact: pass a Fraction, an int or a sympy Rational")
    return out


# --------------------------------------------------------------------------------------------
# building artifacts

class ArtifactBuilder:
    """Write a proof artifact step by step from sympy formulas.

    Every method adds one step and returns its id. Symbols are collected from the formulas;
    those of opaque sorts (``dist``, ``fun``, ``list``) must be declared first with
    ``declare``. Vocabulary symbols added at run time (``exprs.declare``, new conjugate
    families) are recorded in the artifact automatically. ``build()`` returns the
    JSON-serialisable artifact.
    """

    def __init__(self, lemma_id: str, status: str, parameters: Sequence[Parameter],
                 hypotheses: Sequence[sp.Basic], conclusion: sp.Basic):
        self.lemma_id = lemma_id
        self.status = status
        self.parameters = tuple(parameters)
        self.hypotheses = tuple(hypotheses)
        self.conclusion = conclusion
        self.steps: List[Dict[str, Any]] = []
        self.sorts: Dict[str, str] = {}
        self.vocabulary: Dict[str, Dict[str, Any]] = {}
        for p in self.parameters:
            self.sorts[p.name] = p.sort
        for f in (*self.hypotheses, conclusion):
            self._collect(f)

    def declare(self, name: str, sort: str) -> sp.Symbol:
        if self.sorts.get(name, sort) != sort:
            raise ValueError(f"{name} already declared as {self.sorts[name]}")
        self.sorts[name] = sort
        return exprs.symbol(name, sort)

    def declare_vocabulary(self, name: str) -> None:
        """Record a non-core vocabulary symbol (added with ``exprs.declare``) in the artifact."""
        sig = exprs.VOCABULARY[name]
        entry: Dict[str, Any] = {"args": list(sig.args), "result": sig.result, "doc": sig.doc}
        if name in exprs.EXTRA_DENSITIES:
            d = exprs.EXTRA_DENSITIES[name]
            entry["density"] = {"params": [list(p) for p in d.params],
                                "variables": list(d.variables), "domain": d.domain,
                                "body": d.body}
        elif name in exprs.EXTRA_LIKELIHOODS:
            d = exprs.EXTRA_LIKELIHOODS[name]
            entry["likelihood"] = {"params": [list(p) for p in d.params],
                                   "variables": list(d.variables), "body": d.body}
        self.vocabulary[name] = entry

    def _collect(self, f: sp.Basic) -> None:
        for name in exprs.vocabulary_names(f) - exprs.CORE_NAMES - set(exprs.DEFINITIONS):
            if name not in self.vocabulary:
                self.declare_vocabulary(name)
        for s in f.atoms(sp.Symbol):
            sort = exprs.sort_of(s)
            if sort == "opaque":
                if s.name not in self.sorts:
                    raise ValueError(f"declare the sort of object symbol {s.name}")
                continue
            if self.sorts.get(s.name, sort) != sort:
                raise ValueError(f"symbol {s.name} used with sorts {self.sorts[s.name]} and {sort}")
            self.sorts[s.name] = sort

    def _add(self, kind: str, sid: Optional[str], note: str, **fields) -> str:
        sid = sid or f"s{len(self.steps) + 1}"
        step = {"id": sid, "kind": kind}
        step.update(fields)
        if note:
            step["note"] = note
        self.steps.append(step)
        return sid

    def _show(self, f: sp.Basic) -> str:
        if f is sp.true or f is sp.false:
            raise ValueError("a claim evaluated to a constant when it was built; build it "
                             "unevaluated (lemmas.core.eq / evaluate=False)")
        self._collect(f)
        return exprs.show(f)

    def ref(self, step: str, **at: Any) -> Dict[str, Any]:
        """A premise reference to ``step`` instantiated at ``name=term``."""
        out = {}
        for name, term in at.items():
            t = _term(term)
            self._collect(t)
            out[name] = exprs.show(t)
        return {"step": step, "at": out}

    def _refs(self, premises: Iterable[Any]) -> List[Any]:
        out = list(premises)
        for p in out:
            if not isinstance(p, (str, dict)):
                raise TypeError(f"a premise is a step id or a reference, not {p!r}")
        return out

    # one method per step kind
    def identity(self, claim: sp.Basic, method: str = "simplify", note: str = "",
                 sid: str = None, rewrite: Sequence[Any] = ()) -> str:
        fields: Dict[str, Any] = {"claim": self._show(claim), "method": method}
        if rewrite:
            fields["rewrite"] = list(rewrite)
        return self._add("identity", sid, note, **fields)

    def integral_scale(self, claim: sp.Basic, method: str = "simplify", note: str = "",
                       sid: str = None) -> str:
        return self._add("integral_scale", sid, note, claim=self._show(claim), method=method)

    def positive(self, claim: sp.Basic, note: str = "", sid: str = None) -> str:
        return self._add("positive", sid, note, claim=self._show(claim))

    def enclosure(self, claim: sp.Basic, prec: int = 128, note: str = "", sid: str = None) -> str:
        return self._add("enclosure", sid, note, claim=self._show(claim), prec=prec)

    def fact(self, fact_id: str, note: str = "", sid: str = None) -> str:
        f = artifacts.fact(fact_id)
        return self._add("fact", sid, note, fact=fact_id, claim=f.claim)

    def lemma(self, lemma: "Lemma", note: str = "", sid: str = None) -> str:
        return self._add("lemma", sid, note, lemma=lemma.id, statement=lemma.statement_json())

    def bayes(self, prior: sp.Basic, likelihood: sp.Basic, posterior: sp.Basic,
              method: str = "simplify", note: str = "", sid: str = None) -> str:
        claim = sp.Eq(exprs.Posterior(prior, likelihood), posterior)
        return self._add("bayes", sid, note, prior=self._show(prior),
                         likelihood=self._show(likelihood), posterior=self._show(posterior),
                         claim=self._show(claim), method=method)

    def monotone(self, function: str, premise: str, claim: sp.Basic, note: str = "",
                 sid: str = None) -> str:
        return self._add("monotone", sid, note, function=function, premise=premise,
                         claim=self._show(claim))

    def smt(self, claim: sp.Basic, premises: Sequence[Any] = (), where: Sequence[sp.Basic] = (),
            note: str = "", sid: str = None, timeout_ms: int = None) -> str:
        fields = {"claim": self._show(claim), "premises": self._refs(premises)}
        if where:
            fields["where"] = [self._show(w) for w in where]
        if timeout_ms:
            fields["timeout_ms"] = timeout_ms
        return self._add("smt", sid, note, **fields)

    def qed(self, premises: Sequence[Any], note: str = "", timeout_ms: int = None) -> str:
        fields = {"premises": self._refs(premises)}
        if timeout_ms:
            fields["timeout_ms"] = timeout_ms
        return self._add("qed", "qed", note, **fields)

    def cite(self, source: str, premises: Sequence[Any] = (), dispute: str = "",
             note: str = "") -> str:
        fields: Dict[str, Any] = {"source": source, "premises": self._refs(premises)}
        if dispute:
            fields["dispute"] = dispute
        return self._add("cite", "cite", note, **fields)

    def build(self) -> Dict[str, Any]:
        art: Dict[str, Any] = {
            "format": artifacts.FORMAT,
            "lemma": self.lemma_id,
            "status": self.status,
            "symbols": [[n, s] for n, s in sorted(self.sorts.items())],
            "statement": artifacts.statement_json([(p.name, p.sort) for p in self.parameters],
                                                  self.hypotheses, self.conclusion),
            "steps": self.steps,
        }
        if self.vocabulary:
            art["vocabulary"] = self.vocabulary
        return art


def eq(lhs: sp.Basic, rhs: sp.Basic) -> sp.Eq:
    """An unevaluated equation (``sp.Eq`` would turn a trivially true one into ``True``)."""
    return sp.Eq(lhs, rhs, evaluate=False)


def params(*specs: Tuple[str, str]) -> Tuple[Parameter, ...]:
    """``params(("a", "pos"), ("n", "nat"))`` -> parameters."""
    return tuple(Parameter(n, s) for n, s in specs)


def symbols(ps: Sequence[Parameter]) -> Dict[str, sp.Symbol]:
    return {p.name: p.symbol for p in ps}
