"""The data model of proof obligations and of their verdicts.

An ``Obligation`` is a closed question: do the ``hypotheses`` and ``axioms`` entail the
``goal``? Free variables are universally quantified. Hypotheses are the user-level
assumptions of the derivation (``h_adj``, ``h_eps_pos``); axioms are facts about the
uninterpreted symbols (``ax_length_nonneg``), kept apart so that a reader can tell what the
program assumed from what the vocabulary means. Both are named: the names appear in unsat
cores, in SMT-LIB files and in certificates, so they must be stable and meaningful.

A ``Result`` is the outcome of one attempt to discharge an obligation: ``verified``,
``refuted`` (with a confirmed counterexample) or ``unknown`` (with a reason). ``unknown``
never means "probably true".

Both are frozen and serialise to JSON exactly (``to_json`` / ``from_json``).
"""
from __future__ import annotations

import hashlib
import json
import re
from enum import Enum
from functools import cached_property
from typing import Any, Dict, Iterable, Mapping, Optional, Tuple, Union

from obligations.records import record
from obligations.terms import (BOOL, SortError, Term, Var, Vocabulary, digest, free_vars, pretty,
                               term_from_json, term_to_json, vocabulary_of)


class ObligationKind(Enum):
    """Why an obligation exists; the value is its JSON name."""

    ENTAILMENT = "entailment"              # arithmetic / logic between assertions
    RANGE = "range"                        # positive beta parameters, non-zero divisors, [0,1]...
    SIDE_CONDITION = "side_condition"      # a mechanism's condition, e.g. k * eps < 1 (gaussMech)
    COMPOSABILITY = "composability"        # indices add up under sequential composition
    DIVERGENCE_BOUND = "divergence_bound"  # a bound on a divergence, discharged by a lemma
    LEMMA_HYPOTHESIS = "lemma_hypothesis"  # a hypothesis of an applied lemma


_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]*\Z")
#: Hypothesis and axiom names: the prefix keeps them apart from every SMT theory symbol.
_HYPOTHESIS_NAME = re.compile(r"h_[A-Za-z0-9_]+\Z")
_AXIOM_NAME = re.compile(r"ax_[A-Za-z0-9_]+\Z")


@record
class Named:
    """A named Boolean term: a hypothesis (``h_...``) or an axiom (``ax_...``)."""

    name: str
    term: Term

    def __post_init__(self) -> None:
        if not isinstance(self.term, Term) or self.term.sort != BOOL:
            raise SortError(f"{self.name} must be a Bool term")

    def to_json(self, text: bool = True) -> Dict[str, Any]:
        data = {"name": self.name, "term": term_to_json(self.term)}
        return {"name": self.name, "text": pretty(self.term), **data} if text else data

    @staticmethod
    def from_json(data: Mapping[str, Any], vocabulary: Vocabulary) -> "Named":
        return Named(data["name"], term_from_json(data["term"], vocabulary))


NamedLike = Union[Named, Tuple[str, Term]]


def _named(items: Union[Mapping[str, Term], Iterable[NamedLike]]) -> Tuple[Named, ...]:
    if isinstance(items, Mapping):
        items = items.items()
    return tuple(i if isinstance(i, Named) else Named(*i) for i in items)


@record
class SourceSpan:
    """A source region, 1-based, end exclusive (the fields of ``verifier.language.ast.Span``)."""

    file: str
    line: int
    col: int
    end_line: int
    end_col: int

    @staticmethod
    def of(span: Any) -> "SourceSpan":
        """Copy any object with ``file``, ``line``, ``col``, ``end_line``, ``end_col`` fields."""
        return SourceSpan(span.file, span.line, span.col, span.end_line, span.end_col)

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.col}"

    def to_json(self) -> Dict[str, Any]:
        return {"file": self.file, "line": self.line, "col": self.col,
                "end_line": self.end_line, "end_col": self.end_col}

    @staticmethod
    def from_json(data: Mapping[str, Any]) -> "SourceSpan":
        return SourceSpan(data["file"], data["line"], data["col"], data["end_line"], data["end_col"])


@record
class Provenance:
    """Where an obligation comes from: the typing rule, the derivation node, the source span
    and a one-line description (``"the 1st argument of beta is positive"``)."""

    rule: str
    node: str
    description: str
    span: Optional[SourceSpan] = None

    def to_json(self) -> Dict[str, Any]:
        return {"rule": self.rule, "node": self.node, "description": self.description,
                "span": None if self.span is None else self.span.to_json()}

    @staticmethod
    def from_json(data: Mapping[str, Any]) -> "Provenance":
        span = data.get("span")
        return Provenance(data["rule"], data["node"], data["description"],
                          None if span is None else SourceSpan.from_json(span))


@record
class LemmaUse:
    """An applied lemma: its id, the instantiation of its parameters (parameter name to
    term, in order) and the ids of the obligations that discharge its hypotheses."""

    lemma: str
    instantiation: Tuple[Tuple[str, Term], ...] = ()
    hypotheses: Tuple[str, ...] = ()

    def __post_init__(self) -> None:
        inst = self.instantiation
        if isinstance(inst, Mapping):
            inst = tuple(inst.items())
        object.__setattr__(self, "instantiation", tuple((str(k), v) for k, v in inst))
        object.__setattr__(self, "hypotheses", tuple(self.hypotheses))
        if not all(isinstance(v, Term) for _, v in self.instantiation):
            raise SortError(f"the instantiation of {self.lemma} must map names to terms")

    def to_json(self, text: bool = True) -> Dict[str, Any]:
        return {"lemma": self.lemma,
                "instantiation": [{"param": k, **({"text": pretty(v)} if text else {}),
                                   "term": term_to_json(v)} for k, v in self.instantiation],
                "hypotheses": list(self.hypotheses)}

    @staticmethod
    def from_json(data: Mapping[str, Any], vocabulary: Vocabulary) -> "LemmaUse":
        return LemmaUse(data["lemma"],
                        tuple((i["param"], term_from_json(i["term"], vocabulary))
                              for i in data["instantiation"]),
                        tuple(data["hypotheses"]))


@record(kw_only=True)
class Obligation:
    """A proof obligation: ``hypotheses`` and ``axioms`` entail ``goal`` for all values of the
    free variables.

    ``hypotheses`` and ``axioms`` may be given as tuples of ``Named``, of ``(name, term)``
    pairs, or as mappings; they are stored as tuples of ``Named``. When ``id`` is omitted it
    is derived from the content (``"<kind>-<16 hex digits of a SHA-256>"``), so the same
    obligation always gets the same id.

    Raises ``SortError`` (a ``TypeError``) or ``ValueError`` when: a term is not a Bool; a
    hypothesis name is not ``h_<letters, digits, _>`` or an axiom name not ``ax_...``; names
    repeat; a free variable occurs at two sorts; a function is declared twice differently;
    the id is not a file-name-safe string.
    """

    id: Optional[str] = None
    kind: ObligationKind
    hypotheses: Tuple[Named, ...] = ()
    goal: Term
    axioms: Tuple[Named, ...] = ()
    provenance: Provenance
    lemma: Optional[LemmaUse] = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "hypotheses", _named(self.hypotheses))
        object.__setattr__(self, "axioms", _named(self.axioms))
        if not isinstance(self.kind, ObligationKind):
            raise ValueError(f"not an obligation kind: {self.kind!r}")
        if not isinstance(self.goal, Term) or self.goal.sort != BOOL:
            raise SortError("the goal must be a Bool term")
        for h in self.hypotheses:
            if not _HYPOTHESIS_NAME.match(h.name):
                raise ValueError(f"hypothesis name {h.name!r} must look like h_eps_pos")
        for a in self.axioms:
            if not _AXIOM_NAME.match(a.name):
                raise ValueError(f"axiom name {a.name!r} must look like ax_length_nonneg")
        names = [n.name for n in self.hypotheses + self.axioms]
        if len(set(names)) != len(names):
            raise ValueError(f"repeated assumption names in {names}")
        seen: Dict[Tuple[str, Optional[int]], Var] = {}
        for v in self.free_vars:
            other = seen.setdefault((v.name, v.run), v)
            if other.sort != v.sort:
                raise SortError(f"{v.label} occurs at sorts {other.sort} and {v.sort}")
        self.vocabulary  # raises on conflicting declarations
        if self.id is None:
            content = json.dumps(self._identity(), sort_keys=True)
            digest = hashlib.sha256(content.encode()).hexdigest()
            object.__setattr__(self, "id", f"{self.kind.value}-{digest[:16]}")
        elif not isinstance(self.id, str) or not _ID.match(self.id):
            raise ValueError(f"obligation id {self.id!r} must be a file-name-safe string")

    @property
    def terms(self) -> Tuple[Term, ...]:
        """Every term of the obligation: hypotheses, axioms, goal, then lemma instantiation."""
        inst = tuple(t for _, t in self.lemma.instantiation) if self.lemma else ()
        return tuple(n.term for n in self.hypotheses + self.axioms) + (self.goal,) + inst

    @cached_property
    def free_vars(self) -> Tuple[Var, ...]:
        """The free variables of hypotheses, axioms and goal, in order of first occurrence."""
        return free_vars(*(n.term for n in self.hypotheses + self.axioms), self.goal)

    @cached_property
    def vocabulary(self) -> Vocabulary:
        """The uninterpreted sorts and functions the obligation uses."""
        return vocabulary_of(*self.terms)

    def _identity(self) -> Dict[str, Any]:
        """What the id hashes: the content, each term by its structural digest
        (``terms.digest``: linear in a term with shared sub-terms, where its JSON is not)."""
        return {
            "kind": self.kind.value,
            "provenance": self.provenance.to_json(),
            "vocabulary": self.vocabulary.to_json(),
            "hypotheses": [[h.name, digest(h.term)] for h in self.hypotheses],
            "axioms": [[a.name, digest(a.term)] for a in self.axioms],
            "goal": digest(self.goal),
            "lemma": None if self.lemma is None else self.lemma.to_json(False),
        }

    def _content(self, text: bool = True) -> Dict[str, Any]:
        """The JSON content (``text`` fields: the printed forms of the terms, for readers)."""
        goal = {"term": term_to_json(self.goal)}
        return {
            "kind": self.kind.value,
            "provenance": self.provenance.to_json(),
            "vocabulary": self.vocabulary.to_json(),
            "hypotheses": [h.to_json(text) for h in self.hypotheses],
            "axioms": [a.to_json(text) for a in self.axioms],
            "goal": {"text": pretty(self.goal), **goal} if text else goal,
            "lemma": None if self.lemma is None else self.lemma.to_json(text),
        }

    def to_json(self) -> Dict[str, Any]:
        """A JSON-ready dictionary; ``text`` fields are for readers and ignored on reading."""
        return {"id": self.id, **self._content()}

    @staticmethod
    def from_json(data: Mapping[str, Any]) -> "Obligation":
        vocabulary = Vocabulary.from_json(data["vocabulary"])
        lemma = data.get("lemma")
        return Obligation(
            id=data["id"],
            kind=ObligationKind(data["kind"]),
            hypotheses=tuple(Named.from_json(h, vocabulary) for h in data["hypotheses"]),
            goal=term_from_json(data["goal"]["term"], vocabulary),
            axioms=tuple(Named.from_json(a, vocabulary) for a in data.get("axioms", ())),
            provenance=Provenance.from_json(data["provenance"]),
            lemma=None if lemma is None else LemmaUse.from_json(lemma, vocabulary),
        )

    def __str__(self) -> str:
        lines = [f"{self.id} [{self.kind.value}] {self.provenance.description}"]
        lines += [f"  {n.name}: {pretty(n.term)}" for n in self.axioms + self.hypotheses]
        lines.append(f"  |- {pretty(self.goal)}")
        return "\n".join(lines)


class Verdict(Enum):
    VERIFIED = "verified"
    REFUTED = "refuted"
    UNKNOWN = "unknown"


@record
class Binding:
    """One line of a counterexample: a printed program variable (or ground application such
    as ``length l<1>``), its exact printed value (``"-1/2"``) and a decimal rendering
    (``"-0.5"``; ``None`` for values that are not numbers)."""

    name: str
    value: str
    approx: Optional[str] = None

    def to_json(self) -> Dict[str, Any]:
        return {"name": self.name, "value": self.value, "approx": self.approx}

    @staticmethod
    def from_json(data: Mapping[str, Any]) -> "Binding":
        return Binding(data["name"], data["value"], data.get("approx"))


@record(kw_only=True)
class Result:
    """The outcome of discharging one obligation.

    ``method`` says how (``z3``, ``cvc5``, ``lemma``, ``trivial``); ``solver`` and
    ``solver_version`` name the tool when there is one. ``reason`` explains the verdict in a
    sentence. A ``refuted`` result carries a *confirmed* counterexample (possibly empty, when
    the goal has no free variables); a ``verified`` result may carry the names of the
    hypotheses and axioms in its re-checked unsat core. ``rlimit`` is the resource limit
    given to the solver, ``resources`` what it spent (solver units), ``elapsed`` the wall
    time in seconds (informative only: verdicts never depend on it).
    """

    obligation: str
    verdict: Verdict
    method: str
    reason: str
    solver: Optional[str] = None
    solver_version: Optional[str] = None
    counterexample: Tuple[Binding, ...] = ()
    core: Tuple[str, ...] = ()
    rlimit: Optional[int] = None
    resources: Optional[int] = None
    elapsed: float = 0.0
    #: for an ``unknown`` result whose candidate counterexample was not confirmed: the fact
    #: the verifier lacked (``"a fact about adj"``), when the confirmation could name it
    lacking: Optional[str] = None
    #: for an ``unknown`` result: the concrete values of z3's last candidate counterexample
    #: that evaluation could not confirm (a value the verifier does not compute decides the
    #: goal). A hint for the search of a witness by running the program, never evidence:
    #: not written to JSON
    candidate: Tuple[Binding, ...] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "counterexample", tuple(self.counterexample))
        object.__setattr__(self, "core", tuple(self.core))
        object.__setattr__(self, "candidate", tuple(self.candidate))
        if not isinstance(self.verdict, Verdict):
            raise ValueError(f"not a verdict: {self.verdict!r}")
        if self.counterexample and self.verdict != Verdict.REFUTED:
            raise ValueError("only a refuted result carries a counterexample")
        if self.candidate and self.verdict != Verdict.UNKNOWN:
            raise ValueError("only an unknown result carries an unconfirmed candidate")
        if self.core and self.verdict != Verdict.VERIFIED:
            raise ValueError("only a verified result carries an unsat core")

    @property
    def verified(self) -> bool:
        return self.verdict == Verdict.VERIFIED

    @property
    def refuted(self) -> bool:
        return self.verdict == Verdict.REFUTED

    def counterexample_dict(self) -> Dict[str, str]:
        """The counterexample as an ordered mapping from printed name to exact value."""
        return {b.name: b.value for b in self.counterexample}

    def to_json(self) -> Dict[str, Any]:
        return {"obligation": self.obligation, "verdict": self.verdict.value,
                "method": self.method, "reason": self.reason, "solver": self.solver,
                "solver_version": self.solver_version,
                "counterexample": [b.to_json() for b in self.counterexample],
                "core": list(self.core), "rlimit": self.rlimit, "resources": self.resources,
                "elapsed": self.elapsed, "lacking": self.lacking}

    @staticmethod
    def from_json(data: Mapping[str, Any]) -> "Result":
        return Result(obligation=data["obligation"], verdict=Verdict(data["verdict"]),
                      method=data["method"], reason=data["reason"], solver=data.get("solver"),
                      solver_version=data.get("solver_version"),
                      counterexample=tuple(Binding.from_json(b) for b in data.get("counterexample", ())),
                      core=tuple(data.get("core", ())), rlimit=data.get("rlimit"),
                      resources=data.get("resources"), elapsed=data.get("elapsed", 0.0),
                      lacking=data.get("lacking"))
