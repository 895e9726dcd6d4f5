"""The certificate kernel: checks a certificate without trusting the verifier that wrote it.

``check(data, solver="z3")`` returns an ``Outcome``: valid, or invalid with the first reason.

A certificate says *how* its claims were proved — which rule was applied where — never *what*
had to be proved. For each claim labelled verified, the kernel parses, types and resolves the
source itself (the trusted front end), and applies the rules (``checker.relational``,
``checker.safety``, ``checker.folds``, ``checker.exact``) to the definition in lockstep with the
certificate's derivation: each rule derives, from the source and the context it builds, the
obligations it demands — costs against the claim, couplings, Safety's range conditions for
every partial operation and every call, the ranges of the result, the inductions — and the
kernel discharges every one of them itself (z3 or cvc5, a fresh solver each), then re-checks
every lemma the proof rests on. The certificate's choices can only fail to prove a claim,
never make the kernel prove less.

It imports nothing of the derivation builder (``verifier.rules``, ``verifier.verification``):
only the language front end (``verifier.language``), the shared translation of pure code into
terms (``verifier.translation``), the term language, axiom schemas and SMT back end
(``obligations``) and the lemma library with its artifact re-checker (``lemmas``).
docs/certificates.md lists what is checked and what is trusted.
"""
from __future__ import annotations

import hashlib
import json
import time
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence, Set, Tuple, Union

from checker.judgement import Proof, Reject
from checker.jsonschema_subset import Subset
from checker.lemma_records import (LemmaFacts, LemmaRecord, artifact_sha256, facts_of,
                                   record_path)
from checker.definition import assumptions, derive
from checker.folds import infer_value
from checker.judgement import Node
from obligations import terms as T
from obligations.model import Obligation
from obligations.records import field, record
from obligations.smtlib import (DEFAULT_RLIMIT, SmtLibError, Z3Session, check_smtlib,
                                to_smtlib)
from obligations.z3_backend import _trivial
from obligations.z3_native import version_string
from verifier.errors import PrivInferError
from verifier.language import ast as A
from verifier.language.parser import parse_program
from verifier.language.pretty import pretty_rtype
from verifier.language.resolve import referenced_vals, resolve
from verifier.language.typecheck import typecheck_program
from verifier.translation.translate import NoRule

FORMAT = "privinfer-certificate/2"
SCHEMA = json.loads((Path(__file__).with_name("certificate.schema.json")).read_text())
#: the schema, validated without the jsonschema package (see ``check_format``)
VALIDATOR = Subset(SCHEMA)
#: the most resources a certificate may ask the kernel to spend on one obligation
MAX_RLIMIT = 50 * DEFAULT_RLIMIT
#: (lemma id, SHA-256 of its artifact) -> its facts when it re-checked, else the reason it did not
LEMMA_CHECKS: Dict[Tuple[str, str], Union[LemmaFacts, str]] = {}
#: lemma records read in this process, by place
RECORDS: Dict[str, LemmaRecord] = {}
#: how the reason of a document that does not match the JSON Schema starts
NOT_A_CERTIFICATE = "not a certificate"


class Invalid(Exception):
    """The certificate does not check: the message is the (first) reason."""


class Unreadable(Exception):
    """The input is not a readable JSON document."""


@record(frozen=False)
class Outcome:
    """What ``check`` concluded. ``claims``: name, verdict, statement (and disputed theorems)
    of each claim; ``trust_base``: what the verified claims rest on (computed by the kernel);
    ``obligations``: how many it derived and discharged; ``notes``: remarks that do not
    affect validity."""

    valid: bool
    reason: str = ""
    claims: List[Dict[str, Any]] = field(default_factory=list)
    trust_base: Dict[str, Any] = field(default_factory=dict)
    notes: List[str] = field(default_factory=list)
    seconds: Dict[str, float] = field(default_factory=dict)
    obligations: List[Obligation] = field(default_factory=list)

    def to_json(self) -> Dict[str, Any]:
        return {"valid": self.valid, "reason": self.reason, "claims": self.claims,
                "trust_base": self.trust_base, "notes": self.notes,
                "obligations": len(self.obligations),
                "seconds": {k: round(v, 4) for k, v in self.seconds.items()}}


def load(path: str) -> Any:
    """The JSON document at ``path``; ``Unreadable`` if it cannot be read or parsed."""
    try:
        return json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise Unreadable(f"{path}: {exc}") from None


def check(data: Any, solver: str = "z3", allow_unknown: bool = False,
          recheck_lemmas: bool = False) -> Outcome:
    """Check a certificate (parsed JSON). Never raises on bad input: fails closed. Lemmas
    recorded as re-checked on this machine are not re-checked again, unless
    ``recheck_lemmas`` (``checker.lemma_records``)."""
    kernel = _Kernel(data, solver, allow_unknown, Lemmas(record_for(recheck_lemmas)))
    try:
        kernel.run()
        return Outcome(True, "", kernel.summary, kernel.trust_base, kernel.notes,
                       kernel.seconds, kernel.discharged)
    except Invalid as exc:
        return Outcome(False, str(exc), kernel.summary, {}, kernel.notes, kernel.seconds)
    except RecursionError:
        return Outcome(False, "cannot check: the certificate or its source is nested too "
                       "deeply", kernel.summary, {}, kernel.notes, kernel.seconds)
    except Exception as exc:  # a malformed certificate the checks above did not foresee
        return Outcome(False, f"cannot check: {type(exc).__name__}: {exc}", kernel.summary, {},
                       kernel.notes, kernel.seconds)


# ---- the lemma library: closure, trust base, re-check ----------------------------------------

class Lemmas:
    """The lemmas claims rest on, each re-checked before it is used: facts recorded as
    re-checked on this machine under the library's current fingerprint
    (``checker.lemma_records``), or else the library's lemma with its artifact re-checked
    here (once per process and artifact: ``LEMMA_CHECKS``) and then recorded."""

    def __init__(self, record: Optional[LemmaRecord], recheck: bool = True):
        self.record, self.recheck = record, recheck
        self.recorded: Set[str] = set()   # used as recorded, not re-checked in this run
        self.rechecked: Set[str] = set()  # re-checked in this run

    def facts(self, lid: str) -> LemmaFacts:
        recorded = self.record.get(lid) if self.record is not None else None
        if recorded is not None:
            if lid not in self.rechecked:
                self.recorded.add(lid)
            return recorded
        import lemmas
        from lemmas.checking import check_lemma
        try:
            lemma = lemmas.get(lid)
        except KeyError:
            raise Invalid(f"lemma {lid} is not in the library") from None
        if not self.recheck:
            return facts_of(lemma)
        key = (lid, artifact_sha256(lemma))
        self.rechecked.add(lid)
        if key not in LEMMA_CHECKS:
            result = check_lemma(lemma)
            LEMMA_CHECKS[key] = facts_of(lemma) if result.ok else result.reason
            if result.ok and self.record is not None:
                self.record.add([LEMMA_CHECKS[key]])
        if isinstance(LEMMA_CHECKS[key], str):
            raise Invalid(f"lemma {lid}: its artifact does not re-check: {LEMMA_CHECKS[key]}")
        return LEMMA_CHECKS[key]

    def closure(self, ids: Sequence[str]) -> Dict[str, LemmaFacts]:
        """The lemmas ``ids`` rest on, transitively through their artifacts' citations."""
        out: Dict[str, LemmaFacts] = {}
        todo = list(ids)
        while todo:
            lid = todo.pop()
            if lid not in out:
                out[lid] = self.facts(lid)
                todo += list(out[lid].cited)
        return out

    def trust_base(self, ids: Sequence[str], solvers: Sequence[Dict[str, str]]) -> Dict[str, Any]:
        """The trust base of claims citing the lemmas ``ids`` and discharged by ``solvers``:
        every lemma used (with its status), the theorems taken without proof (literature,
        disputed) and the facts, rules and tools of their artifacts."""
        closure = self.closure(ids)
        entries = sorted({e for l in closure.values() for e in l.trust})
        return {"solvers": sorted(solvers, key=lambda s: (s["name"], s["version"])),
                "lemmas": [{"id": i, "status": closure[i].status} for i in sorted(closure)],
                "theorems": [e for e in entries if e.split(":")[0] in ("literature", "disputed")],
                "assumed": [e for e in entries if e.split(":")[0] not in ("literature", "disputed")]}

    def disputed(self, ids: Sequence[str]) -> List[str]:
        return sorted(i for i, l in self.closure(ids).items() if l.status == "disputed")


def library(recheck: bool = False) -> Lemmas:
    """The library as certificates are written from it (by default without re-checking
    artifacts: the verifier trusts the library, the kernel re-checks it)."""
    return Lemmas(record_for(False), recheck)


def record_for(recheck_lemmas: bool) -> Optional[LemmaRecord]:
    """The machine's lemma record (one object per place and process), unless re-checking all."""
    path = None if recheck_lemmas else record_path()
    if path is None:
        return None
    return RECORDS.setdefault(str(path), LemmaRecord(path))


def check_format(data: Any) -> None:
    """``data`` satisfies the JSON Schema. ``jsonschema_subset`` accepts only documents the
    schema accepts; when it refuses one, the ``jsonschema`` package (slow to import) decides
    and names what is wrong."""
    if VALIDATOR.valid(data):
        return
    import jsonschema
    error = jsonschema.exceptions.best_match(
        jsonschema.Draft202012Validator(SCHEMA).iter_errors(data))
    if error is not None:
        where = "/".join(str(p) for p in error.absolute_path) or "the document"
        raise Invalid(f"{NOT_A_CERTIFICATE} (JSON Schema, at {where}): {error.message}")



# ---- the kernel ------------------------------------------------------------------------------

class _Kernel:
    def __init__(self, data: Any, solver: str, allow_unknown: bool, lemmas: Lemmas):
        self.data, self.solver, self.allow_unknown = data, solver, allow_unknown
        self.lemmas = lemmas
        self._z3: Optional[Z3Session] = None
        self.summary: List[Dict[str, Any]] = []
        self.notes: List[str] = []
        self.seconds: Dict[str, float] = {}
        self.trust_base: Dict[str, Any] = {}
        self.discharged: List[Obligation] = []
        self.answers: Dict[Tuple, str] = {}   # (formula, solver, rlimit) -> answer

    @property
    def z3(self) -> Z3Session:
        if self._z3 is None:
            self._z3 = Z3Session()
        return self._z3

    def time(self, what: str, start: float) -> None:
        self.seconds[what] = self.seconds.get(what, 0.0) + time.perf_counter() - start

    def run(self) -> None:
        t = time.perf_counter()
        check_format(self.data)
        d = self.data
        src = d["source"]
        if hashlib.sha256(src["text"].encode("utf-8")).hexdigest() != src["sha256"]:
            raise Invalid("source: the text does not have the recorded SHA-256")
        try:
            self.written = parse_program(src["text"], src["name"])
            self.program = resolve(self.written)
            self.typed = typecheck_program(self.program)
        except PrivInferError as exc:
            raise Invalid(f"source: {exc}") from None
        self.rlimit = min(d["solver"]["rlimit"], MAX_RLIMIT)
        self.nodes = {n["id"]: n for n in d["nodes"]}
        self.check_claims_match_source()
        self.check_dag()
        self.time("structure", t)
        lemma_ids: Set[str] = set()
        solvers: Set[Tuple[str, str]] = set()
        verified = {c["name"] for c in d["claims"] if c["verdict"] == "verified"}
        for claim, val in zip(d["claims"], self.program.vals()):
            if claim["verdict"] == "verified":
                lemma_ids |= self.check_verified(claim, val, verified, solvers)
            else:
                self.check_unverified(claim)
            self.summary.append({"name": claim["name"], "verdict": claim["verdict"],
                                 "statement": claim["statement"],
                                 "disputed": claim["disputed"]})
        t = time.perf_counter()
        self.trust_base = self.lemmas.trust_base(
            sorted(lemma_ids), [{"name": s, "version": v} for s, v in sorted(solvers)])
        self.time("lemmas", t)
        if self.lemmas.recorded:
            self.notes.append(f"{len(self.lemmas.recorded)} lemma(s) re-checked earlier on this "
                              f"machine were not re-checked again (record "
                              f"{self.lemmas.record.path}; --recheck-lemmas re-checks them)")

    # ---- source and structure ----------------------------------------------------------------

    def check_claims_match_source(self) -> None:
        vals = self.written.vals()
        names = [c["name"] for c in self.data["claims"]]
        if names != [v.name for v in vals]:
            raise Invalid(f"claims: {names} are not the vals of the source "
                          f"{[v.name for v in vals]}")
        for claim, val in zip(self.data["claims"], vals):
            statement = f"{val.name} :: {pretty_rtype(val.rtype)}"
            if claim["statement"] != statement:
                raise Invalid(f"claim {val.name}: the statement {claim['statement']!r} is not "
                              f"the source's val {statement!r}")

    def check_dag(self) -> None:
        """Walking each claim's tree from its root in preorder gives the ids ``<claim>/n1,
        n2, ...`` and, over all claims, exactly the list of nodes."""
        order: List[str] = []
        seen: Set[str] = set()
        for claim in self.data["claims"]:
            if claim["root"] is None:
                continue
            stack, k = [claim["root"]], 0
            while stack:
                nid = stack.pop()
                if nid not in self.nodes:
                    raise Invalid(f"derivation of {claim['name']}: node {nid} does not exist")
                if nid in seen:
                    raise Invalid(f"derivation of {claim['name']}: node {nid} has two parents "
                                  "(or is on a cycle)")
                seen.add(nid)
                k += 1
                if nid != f"{claim['name']}/n{k}":
                    raise Invalid(f"derivation of {claim['name']}: node {nid} should be "
                                  f"{claim['name']}/n{k} (ids number the nodes in preorder)")
                order.append(nid)
                stack += reversed(self.nodes[nid]["premises"])
        if [n["id"] for n in self.data["nodes"]] != order:
            extra = [n["id"] for n in self.data["nodes"] if n["id"] not in seen]
            raise Invalid(f"nodes: {extra[0]} is not reachable from a claim" if extra else
                          "nodes: not listed in canonical order (claims in order, preorder)")

    def tree(self, nid: str) -> Node:
        n = self.nodes[nid]
        return Node(nid, n["rule"], tuple(n["at"]) if n["at"] is not None else None,
                    tuple(self.tree(p) for p in n["premises"]),
                    (n["coupling"]["offset"], n["coupling"]["scale"], n["coupling"].get("at"))
                    if "coupling" in n else None)

    def check_unverified(self, claim) -> None:
        """A claim that is not verified says why (a reason and its code); a refuted one also
        how it was shown false (the witness is the verifier's report: this kernel vouches
        for verified claims only); it claims no disputed theorem."""
        if not claim["failure"] or not claim["code"]:
            raise Invalid(f"claim {claim['name']}: a {claim['verdict']} claim must say why")
        if (claim["verdict"] == "refuted") != (claim["confirmation"] is not None):
            raise Invalid(f"claim {claim['name']}: a claim is refuted exactly when a witness "
                          "confirms it false")

    # ---- verified claims ---------------------------------------------------------------------

    def check_verified(self, claim, val: A.ValDecl, verified: Set[str],
                       solvers: Set[Tuple[str, str]]) -> Set[str]:
        name = claim["name"]
        if claim["failure"] or claim["code"] or claim["confirmation"]:
            raise Invalid(f"claim {name}: a verified claim has no failure")
        if claim["root"] is None:
            raise Invalid(f"claim {name}: a verified claim needs a derivation")
        decls = [d for d in self.program.lets() if d.name == val.name]
        if len([d for d in self.written.lets() if d.name == name]) != 1 or len(decls) != 1:
            raise Invalid(f"claim {name}: the val needs exactly one definition")
        t = time.perf_counter()
        proof = Proof(self.program, self.typed, val.name, infer_value)
        try:
            derive(proof, val, decls[0], self.tree(claim["root"]))
        except (Reject, NoRule) as exc:  # the translator's refusal is the kernel's too
            where = f"{exc.span.line}:{exc.span.col}: " if exc.span is not None and \
                exc.span.line else ""
            raise Invalid(f"claim {name}: {where}no rule applies: {exc.message}") from None
        except T.SortError as exc:  # a rule applied where its terms do not fit
            raise Invalid(f"claim {name}: no rule applies: the terms do not fit the rule "
                          f"the certificate names ({exc})") from None
        self.time("derivation", t)
        t = time.perf_counter()
        unique = {}
        for ob in proof.obligations:
            unique.setdefault(ob.id, ob)
        for ob in unique.values():
            self.discharge(name, ob, solvers)
        self.discharged += list(unique.values())
        self.not_vacuous(name, val, decls[0])
        self.time("obligations", t)
        # what the proof assumes of other vals (calls, App-Val) and what the definition may
        # call: those functions must terminate and meet their claims
        vals = {v.name for v in self.program.vals()}
        uses = (proof.called | referenced_vals(self.program, decls[0], vals)) - proof.proved_here
        by_core = dict(zip((v.name for v in self.program.vals()),
                           (c["name"] for c in self.data["claims"])))
        for callee in sorted(uses - {val.name}):
            if by_core.get(callee) not in verified:
                raise Invalid(f"claim {name}: uses the val of {by_core.get(callee, callee)}, "
                              "which is not verified")
        t = time.perf_counter()
        disputed = self.lemmas.disputed(sorted(proof.lemmas))  # re-checks every lemma used
        self.time("lemmas", t)
        if claim["disputed"] != disputed:
            raise Invalid(f"claim {name}: the disputed theorems it rests on are "
                          f"{disputed}, not {claim['disputed']}")
        return proof.lemmas

    def not_vacuous(self, name: str, val: A.ValDecl, decl: A.LetDecl) -> None:
        """A verified claim's assumptions relate some pair of inputs: the kernel states them
        from the source (``definition.assumptions``) and refuses the claim when z3 proves them
        unsatisfiable (it would hold of no pair and say nothing). Only ``unsat`` refuses."""
        try:
            ob = assumptions(Proof(self.program, self.typed, val.name, infer_value), val, decl)
        except (Reject, NoRule, T.SortError):
            return  # not stated here: the derivation above bound the same parameters
        if ob is None:
            return
        try:
            answer = self.solve((ob.hypotheses, ob.axioms, ob.goal), to_smtlib(ob), "z3")
        except SmtLibError:
            return
        if answer == "unsat":
            written = next(v for v in self.written.vals() if v.name == name)
            where = f"{written.span.line}:{written.span.col}: " if written.span else ""
            raise Invalid(f"claim {name}: {where}the assumptions relate no two inputs: the "
                          "refinements of its parameters are unsatisfiable, so the claim holds "
                          "vacuously and must not be verified (V011)")

    def discharge(self, claim: str, ob: Obligation, solvers: Set[Tuple[str, str]]) -> None:
        """``ob`` holds: trivially, or a solver answers unsat in a fresh solver."""
        if _trivial(ob) is not None:
            return
        text = to_smtlib(ob)
        key = (ob.hypotheses, ob.axioms, ob.goal)
        used = self.solver
        try:
            answer = self.solve(key, text, used)
            if answer == "unknown" and used == "cvc5" and self.allow_unknown:
                self.notes.append(f"{ob.id}: not re-checkable by cvc5 (unknown); re-run by z3")
                used = "z3"
                answer = self.solve(key, text, used)
        except SmtLibError as exc:
            raise Invalid(f"claim {claim}: {_where(ob)}{ob.provenance.description}: {exc}") \
                from None
        if answer != "unsat":
            hint = ("; --allow-unknown re-runs such obligations with z3"
                    if answer == "unknown" and used == "cvc5" else "")
            raise Invalid(f"claim {claim}: {_where(ob)}{ob.provenance.description} "
                          f"[{ob.provenance.rule}] is not proved ({used} answers "
                          f"{answer}){hint}")
        solvers.add((used, solver_version(used)))

    def solve(self, key: Tuple, text: str, solver: str) -> str:
        """``solver``'s answer to ``text``, once per formula."""
        key = key + (solver,)
        if key not in self.answers:
            rlimit = self.rlimit if solver == "z3" else None
            self.answers[key] = check_smtlib(text, solver, rlimit,
                                             self.z3 if solver == "z3" else None)
        return self.answers[key]


def _where(ob: Obligation) -> str:
    span = ob.provenance.span
    return f"{span.line}:{span.col}: " if span is not None else ""


def solver_version(solver: str) -> str:
    if solver == "z3":
        return version_string()
    try:
        import cvc5
        return str(getattr(cvc5, "__version__", ""))
    except ImportError:
        return ""
