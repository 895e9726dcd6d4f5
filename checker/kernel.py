"""The certificate kernel: checks a certificate without trusting the verifier that wrote it.

``check(data, solver="z3")`` returns an ``Outcome``: valid, or invalid with the first reason.
It imports nothing of the derivation builder (``verifier.rules``, ``verifier.verification``);
it relies on the language front end (``checker.source``), the term language and SMT back end
(``obligations``), the axiom schemas (``obligations.schemas``) and the lemma library with its
artifact re-checker (``lemmas``). docs/certificates.md lists what is checked and what trusted.

The checks, in order (the first failure is the reason): the JSON Schema; the source (hash,
parse, its vals are the claims); the derivation DAG (canonical ids, references, one parent,
reachability); for each *verified* claim its root, the parameters' assumptions and the index
re-derived from the source, every node against its rule's schema, the costs along every
monadic path and the Budget obligations rebuilt from them, the calls' arguments and call
facts, every obligation (content hash, axioms rebuilt from their schemas, SMT-LIB regenerated
and re-run, or trivially true), every lemma re-checked, the disputed flags; the trust base;
the labels of the other claims.
"""
from __future__ import annotations

import hashlib
import itertools
import json
import re
import time
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence, Set, Tuple, Union

from checker import finite
from checker import source as S
from checker.context import Context, index_spans
from checker.jsonschema_subset import Subset
from checker.reading import Reader
from obligations import terms as T
from obligations import finite_laws as FL
from obligations import vocabulary as V
from obligations.candidates import conjugate, literal_members
from obligations.model import Obligation, ObligationKind
from obligations.records import field, record
from obligations.schemas import SCHEMAS, SchemaError
from obligations.smtlib import SmtLibError, Z3Session, check_smtlib, to_smtlib
from obligations.z3_backend import _trivial
from obligations.z3_native import version_string
from verifier.language.builtins import BUILTINS, CONJUGATE
from verifier.language.resolve import referenced_vals
from checker.lemma_records import (LemmaFacts, LemmaRecord, artifact_sha256, facts_of,
                                   record_path)

FORMAT = "privinfer-certificate/1"
SCHEMA = json.loads((Path(__file__).with_name("certificate.schema.json")).read_text())
#: the schema, validated without the jsonschema package (see ``check_format``)
VALIDATOR = Subset(SCHEMA)
E, R, SC = ObligationKind.ENTAILMENT, ObligationKind.RANGE, ObligationKind.SIDE_CONDITION
ZERO = ("ZERO", T.real(0), T.real(0))
#: rule -> (number of premises, None for one or more; obligation kinds allowed)
RULES = {
    "Safety": (0, {R}), "Budget": (1, {E}), "BindM": (2, set()), "Let": (1, set()),
    "Unfold": (1, {E}), "Match": (None, set()), "Match-Split": (None, set()),
    "If": (None, set()), "If-Lift": (1, set()), "UnitM": (0, {E}), "EqualInputs": (0, {E}),
    "Var": (0, set()), "Ran": (0, set()), "LapMech": (0, {E}), "GaussMech": (0, {E, SC}),
    "ExpMech": (0, {E}), "HellingerMech": (0, {E}), "HellingerMechPure": (0, {E}),
    "App-Val": (0, {E, R}), "ObserveFold": (0, {E}), "Observe": (0, set()), "Sub": (0, {E}),
    "ExactFinite": (0, {E}),
}
#: the theorem each mechanism's rule rests on, from the catalogue of built-ins
THEOREM = {b.rule: b.theorem for b in BUILTINS.values() if b.rule}
#: the prefix of call facts, hypotheses that hold by the val of a verified pure function
CALL_FACT = "h__call_"
#: the hypotheses Safety's walk adds to the context of its obligations
SAFETY_HYPOTHESES = r"h_(draw|then|else|nil|cons|candidate)"
#: the prefix of the facts about the candidate an ``expMech`` drew (rebuilt by the kernel)
CANDIDATE = "h_candidate"
#: (lemma id, SHA-256 of its artifact) -> its facts when it re-checked, else the reason it did not
LEMMA_CHECKS: Dict[Tuple[str, str], Union[LemmaFacts, str]] = {}
#: lemma records read in this process, by place
RECORDS: Dict[str, LemmaRecord] = {}
#: likelihood family -> the conjugacy lemma its fold or observe cites (from the catalogue)
CONJUGACY = {c.likelihood: re.escape(c.lemma).replace("/k", "/k=[0-9]+")
             for c in CONJUGATE.values()}


#: how the reason of a document that does not match the JSON Schema starts
NOT_A_CERTIFICATE = "not a certificate"


class Invalid(Exception):
    """The certificate does not check: the message is the (first) reason."""


class Unreadable(Exception):
    """The input is not a readable JSON document."""


@record(frozen=False)
class Outcome:
    """What ``check`` concluded. ``claims``: name, verdict, statement (and disputed theorems)
    of each claim; ``notes``: remarks that do not affect validity (solver versions...)."""

    valid: bool
    reason: str = ""
    claims: List[Dict[str, Any]] = field(default_factory=list)
    trust_base: Dict[str, Any] = field(default_factory=dict)
    notes: List[str] = field(default_factory=list)
    seconds: Dict[str, float] = field(default_factory=dict)

    def to_json(self) -> Dict[str, Any]:
        return {"valid": self.valid, "reason": self.reason, "claims": self.claims,
                "trust_base": self.trust_base, "notes": self.notes,
                "seconds": {k: round(v, 4) for k, v in self.seconds.items()}}


def load(path: str) -> Any:
    """The JSON document at ``path``; ``Unreadable`` if it cannot be read or parsed."""
    try:
        return json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise Unreadable(f"{path}: {exc}") from None


def check(data: Any, solver: str = "z3", allow_unknown: bool = False,
          recheck_lemmas: bool = False) -> Outcome:
    """Check a certificate (parsed JSON). Never raises on bad input: fails closed. Lemmas
    recorded as re-checked on this machine are not re-checked again, unless
    ``recheck_lemmas`` (``checker.lemma_records``)."""
    kernel = _Kernel(data, solver, allow_unknown, Lemmas(record_for(recheck_lemmas)))
    try:
        kernel.run()
        return Outcome(True, "", kernel.summary, data.get("trust_base", {}), kernel.notes,
                       kernel.seconds)
    except Invalid as exc:
        return Outcome(False, str(exc), kernel.summary, {}, kernel.notes, kernel.seconds)
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


def cited_lemmas(n: Dict[str, Any]) -> Set[str]:
    """The lemmas node ``n`` cites: its rule's theorem, and for an ExpMech whose candidate is
    drawn from ``posteriors (P, n)`` the lemma giving the members' form."""
    j = n["judgement"]
    draw = j.get("draw") if n["rule"] == "ExpMech" else None
    extra = {draw["lemma"]} if isinstance(draw, dict) and draw.get("from") == "posteriors" \
        and isinstance(draw.get("lemma"), str) else set()
    return ({j["lemma"]} if j.get("lemma") else set()) | extra


def obligation_ids(n: Dict[str, Any]) -> List[str]:
    """The obligations node ``n`` rests on: its own, and the one that selected its rule (why
    both runs take the same branch of a match or if)."""
    branch = n["judgement"].get("branch") or {}
    return n["obligations"] + ([branch["obligation"]] if branch.get("obligation") else [])


# ---- the kernel ------------------------------------------------------------------------------

class _Kernel:
    def __init__(self, data: Any, solver: str, allow_unknown: bool, lemmas: Lemmas):
        self.data, self.solver, self.allow_unknown = data, solver, allow_unknown
        self.lemmas = lemmas
        self._z3: Optional[Z3Session] = None
        self.summary: List[Dict[str, Any]] = []
        self.notes: List[str] = []
        self.seconds: Dict[str, float] = {}
        self.justified: Dict[str, Set[str]] = {}      # obligation id -> lemma ids of its axioms
        self.parsed: Dict[str, Obligation] = {}
        self.read = Reader()
        self.instances: Dict[Tuple, Set[str]] = {}     # (schema, args, axiom) -> its lemmas
        self.answers: Dict[Tuple, str] = {}            # (formula, solver, rlimit) -> answer

    @property
    def z3(self) -> Z3Session:
        """One z3 context for the certificate, made when first needed (each obligation still
        gets a fresh solver: see ``Z3Session``)."""
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
            self.written = S.parse(src["text"], src["name"])
        except Exception as exc:
            raise Invalid(f"source: does not parse: {exc}") from None
        # the derivations name the program's binders as its resolved core does
        self.program = S.resolve(self.written)
        self.spans = index_spans(self.program)
        self.vocabulary = self.read.vocabulary(d["vocabulary"])
        self.nodes = {n["id"]: n for n in d["nodes"]}
        self.obligations = {o["id"]: o for o in d["obligations"]}
        self.check_claims_match_source()
        self.check_dag()
        self.time("structure", t)
        lemma_ids: Set[str] = set()
        solvers: Set[Tuple[str, str]] = set()
        for claim in d["claims"]:
            if claim["verdict"] == "verified":
                lemma_ids |= self.check_verified(claim, solvers)
            else:
                self.check_unverified(claim)
            self.summary.append({"name": claim["name"], "verdict": claim["verdict"],
                                 "statement": claim["guarantee"]["statement"],
                                 "disputed": claim["disputed"]})
        t = time.perf_counter()
        expected = self.lemmas.trust_base(sorted(lemma_ids),
                                          [{"name": s, "version": v} for s, v in solvers])
        if d["trust_base"] != expected:
            key = next(k for k in expected if d["trust_base"].get(k) != expected[k])
            raise Invalid(f"trust base: {key} should be {json.dumps(expected[key])}")
        self.time("lemmas", t)
        if self.lemmas.recorded:
            self.notes.append(f"{len(self.lemmas.recorded)} lemma(s) re-checked earlier on this "
                              f"machine were not re-checked again (record "
                              f"{self.lemmas.record.path}; --recheck-lemmas re-checks them)")

    # ---- source and structure --------------------------------------------------------------

    def check_claims_match_source(self) -> None:
        vals = self.written.vals()
        names = [c["name"] for c in self.data["claims"]]
        if names != [v.name for v in vals]:
            raise Invalid(f"claims: {names} are not the vals of the source "
                          f"{[v.name for v in vals]}")
        for claim, val in zip(self.data["claims"], vals):
            if claim["guarantee"]["statement"] != S.statement(val):
                raise Invalid(f"claim {val.name}: the guarantee {claim['guarantee']['statement']!r}"
                              f" is not the source's val {S.statement(val)!r}")
            if claim["verdict"] == "verified" and claim["root"] is None:
                raise Invalid(f"claim {val.name}: a verified claim needs a derivation")

    def check_dag(self) -> None:
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
                canonical = f"{claim['name']}/n{k}"
                if nid != canonical:
                    raise Invalid(f"derivation of {claim['name']}: node {nid} should be "
                                  f"{canonical} (ids number the nodes in preorder)")
                order.append(nid)
                stack += reversed(self.nodes[nid]["premises"])
                for oid in obligation_ids(self.nodes[nid]):
                    if oid not in self.obligations:
                        raise Invalid(f"node {nid}: obligation {oid} does not exist")
        listed = [n["id"] for n in self.data["nodes"]]
        if listed != order:
            extra = [i for i in listed if i not in seen]
            raise Invalid(f"nodes: {extra[0]} is not reachable from a claim" if extra else
                          "nodes: not listed in canonical order (claims in order, preorder)")
        used = {o for n in self.data["nodes"] for o in obligation_ids(n)}
        ids = [o["id"] for o in self.data["obligations"]]
        if ids != sorted(set(ids)):
            raise Invalid("obligations: not sorted by id, or repeated")
        if set(ids) - used:
            raise Invalid(f"obligations: {sorted(set(ids) - used)[0]} is used by no node")

    def check_unverified(self, claim) -> None:
        """A claim that is not verified says why (a reason and its code); a refuted one also
        how it was shown false (the witness is the verifier's report: this kernel vouches
        for verified claims only), an unknown one was not shown false."""
        if not claim["failure"] or not claim["code"]:
            raise Invalid(f"claim {claim['name']}: a {claim['verdict']} claim must say why")
        if (claim["verdict"] == "refuted") != (claim["confirmation"] is not None):
            raise Invalid(f"claim {claim['name']}: a claim is refuted exactly when a witness "
                          "confirms it false")
        for oid in claim["failing"]:
            record = self.obligations.get(oid, {"discharge": {"verdict": None}})
            if record["discharge"]["verdict"] in (None, "verified"):
                raise Invalid(f"claim {claim['name']}: {oid} is not a failed obligation")

    # ---- verified claims ---------------------------------------------------------------------

    def tree(self, root: str) -> List[Dict[str, Any]]:
        out, stack = [], [root]
        while stack:
            n = self.nodes[stack.pop()]
            out.append(n)
            stack += reversed(n["premises"])
        return out

    def check_verified(self, claim, solvers: Set[Tuple[str, str]]) -> Set[str]:
        name = claim["name"]
        written = [d for d in self.written.lets() if d.name == name]
        if claim["failure"] or claim["failing"] or claim["code"] or claim["confirmation"]:
            raise Invalid(f"claim {name}: a verified claim has no failure")
        if len(written) != 1:
            raise Invalid(f"claim {name}: the val needs exactly one definition, not "
                          f"{len(written)}")
        # the claim's val in the resolved core, and the definition it names there
        val = self.program.vals()[[v.name for v in self.written.vals()].index(name)]
        decls = [d for d in self.program.lets() if d.name == val.name]
        root = self.nodes[claim["root"]]
        want = "LetRec-Induction" if decls[0].recursive else "Abs"
        j = root["judgement"]
        if root["rule"] != want or j.get("function") != val.name or root["obligations"]:
            raise Invalid(f"node {root['id']}: the root of {name} must be {want} for {name}")
        if j.get("claim") != S.statement(val).split(" :: ", 1)[1]:
            raise Invalid(f"node {root['id']}: the judgement is not the val's type")
        premises = [self.nodes[p] for p in root["premises"]]
        exact = [p["rule"] for p in premises] == ["ExactFinite"]
        if not exact and (len(premises) < 2 or premises[0]["rule"] != "Safety" or any(
                p["rule"] not in ("ObserveFold", "Observe") for p in premises[2:])):
            raise Invalid(f"node {root['id']}: premises must be Safety, the body, observe-folds"
                          " and observes (or ExactFinite alone)")
        self.claim_name, self.recursive = val.name, decls[0].recursive
        self.uses: Set[str] = set()
        doms, rt = S.arrow(val)
        self.induction = self.induction_measure(root)
        try:
            assumed = self.check_assumptions(root, doms)
            index = S.index(self.program, rt, self.bindings(j["parameters"], root)) \
                if isinstance(rt, S.A.RMonad) else None
        except S.SourceError as exc:
            raise Invalid(f"claim {name}: {exc}") from None
        recorded = self.index(j.get("index"))
        if recorded != index or self.index(claim["guarantee"]["index"]) != index:
            raise Invalid(f"claim {name}: the index recorded is not the val's "
                          f"{_show_index(index)}")
        lemma_ids: Set[str] = set()
        self.assumed, self.drawn, self.facts_drawn = assumed, {}, {}
        self.fresh_drawn: Dict[T.Term, str] = {}
        self.fresh_outputs: Dict[T.Term, str] = {}
        self.outputs: Dict[str, Optional[List[Tuple[T.Term, T.Term]]]] = {}
        self.var_costs: Dict[str, Tuple] = {}
        self.passed_costs: Dict[Tuple[str, Optional[str]], Tuple] = {}
        self.parameter_vars = set(T.free_vars(*[t for p in j["parameters"] if p["left"] is not None
                                                for t in self.pair([p["left"], p["right"]], root)]))
        self.check_contexts(root, set(assumed), False, frozenset())
        for n in self.tree(root["id"])[1:]:
            lemma_ids |= self.check_node(n)
        if not exact:
            self.check_result_ranges(premises[0], rt)
        # the relational context, rebuilt from the source: names, equalities, termination
        Context(self, Invalid, decls[0], val, root).check()
        if exact:
            self.check_exact(premises[0], root, decls[0], doms, rt, index)
        elif index is None:
            self.check_pure(premises[1])
        else:
            self.check_path(premises[1], [], index)
        t = time.perf_counter()
        vals = {v.name for v in self.program.vals()}
        for n in self.tree(root["id"]):
            for oid in obligation_ids(n):
                ob = self.obligation(oid)
                wrong = [h.name for h in ob.hypotheses
                         if h.name in assumed and h.term != assumed[h.name]]
                if wrong:
                    raise Invalid(f"obligation {oid}: {wrong[0]} is not the assumption the val "
                                  "makes")
                # an opaque call assumes that its function returns: it depends on its claim
                self.uses |= {name for f in ob.vocabulary.functions
                              for name in (V.program_function_name(f.name),) if name in vals}
                lemma_ids |= self.justify(oid, solvers)
        self.time("obligations", t)
        # a function with a val that the definition names may be called: it must terminate
        self.uses |= referenced_vals(self.program, decls[0], vals)
        claims = dict(zip((v.name for v in self.program.vals()), self.data["claims"]))
        for callee in sorted(self.uses - {val.name}):
            other = claims.get(callee)
            if other is None or other["verdict"] != "verified":
                raise Invalid(f"claim {name}: uses the val of {callee}, which is not verified")
        t = time.perf_counter()
        disputed = self.lemmas.disputed(sorted(lemma_ids))  # re-checks every lemma used
        if claim["disputed"] != disputed:
            raise Invalid(f"claim {name}: the disputed theorems it rests on are "
                          f"{disputed}, not {claim['disputed']}")
        self.time("lemmas", t)
        return lemma_ids

    def check_result_ranges(self, safety, rt) -> None:
        """Every use of a val assumes that what it returns (a pure result, or the values its
        computation draws) has the ranges of the result's simple type (``nat``, ``real+``,
        ``[0,1]``, ``[k]``, ``[0,1]^k``): when the type has any, the Safety premise must show
        them (obligations of rule ``Result``; the two runs' are one when their goals are).
        Their goals are the translation of the body's results, which the kernel trusts like
        Safety's other range conditions; a certificate without them claims more than it
        proves."""
        body = rt.body if isinstance(rt, S.A.RMonad) else rt
        _, base, _ = S.refined_var(body)
        if not isinstance(base, S.A.RSimple) or not S.has_ranges(base.type):
            return
        if not any(self.obligation(oid).provenance.rule == "Result"
                   and self.obligation(oid).kind == R for oid in obligation_ids(safety)):
            raise Invalid(f"node {safety['id']}: Safety does not show that the result has the "
                          "ranges of its type")

    def induction_measure(self, root) -> Optional[Tuple[int, T.Term, T.Term]]:
        """The list parameter (position, run-1 and run-2 terms) whose length measures the
        structural induction of a recursive definition; None when there is none. Any list
        parameter gives a well-founded measure, so the position is only checked to be one."""
        p = root["judgement"].get("induction")
        if p is None:
            return None
        params = root["judgement"]["parameters"]
        if not self.recursive or p >= len(params) or params[p]["left"] is None:
            raise Invalid(f"node {root['id']}: no list parameter {p} to do induction on")
        x1, x2 = self.pair([params[p]["left"], params[p]["right"]], root)
        if V.list_key_of(x1.sort) is None:
            raise Invalid(f"node {root['id']}: induction on parameter {p}, which is not a list")
        return p, x1, x2

    def shorter(self, args: Tuple[T.Term, T.Term]) -> T.Term:
        """The induction hypothesis applies to calls whose lists are shorter (the measure)."""
        return V.shorter(args, self.induction[1:])

    def check_assumptions(self, root, doms) -> Dict[str, T.Term]:
        """The root's context is what the val's parameters say: for each parameter its range
        (from its type) and its refinements, translated from the source; returns it by name."""
        params = root["judgement"]["parameters"]
        if len(params) != len(doms):
            raise Invalid(f"node {root['id']}: {len(params)} parameters for {len(doms)} in the val")
        bindings: S.Bindings = {}
        expected: List[T.Term] = []
        seen: Set[T.Term] = set()
        for p, dom in zip(params, doms):
            var, base, assertions = S.refined_var(dom)
            if p["var"] != var:
                raise Invalid(f"node {root['id']}: parameter {p['var']} should be {var}")
            if isinstance(base, S.A.RMonad):
                bindings[var] = (None, None)
                continue
            if not isinstance(base, S.A.RSimple) or p["left"] is None:
                raise Invalid(f"node {root['id']}: parameter {var} has no terms")
            left, right = self.pair([p["left"], p["right"]], root)
            shared = var is not None and S.equal_in_runs(var, assertions)
            if shared != (left == right):
                raise Invalid(f"node {root['id']}: parameter {var} is equal in both runs iff "
                              "its refinement says so")
            if not (isinstance(left, T.Var) and isinstance(right, T.Var)) \
                    or {left, right} & seen:  # a parameter is arbitrary: a variable of its own
                raise Invalid(f"node {root['id']}: parameter {var} must have variables of its "
                              "own")
            seen |= {left, right}
            facts = S.range_facts(base.type, left) + (
                () if shared else S.range_facts(base.type, right))
            expected += _conjuncts(T.and_(*facts)) if facts else []
            if var is not None:
                bindings[var] = (left, right)
            for a in assertions:
                if not isinstance(a, S.A.SameRuns):
                    expected += _conjuncts(S.assertion(self.program, a, dict(bindings), var))
        recorded = [(a["name"], self.terms([a["term"]])[0])
                    for a in root["judgement"]["assumptions"]]
        if [t for _, t in recorded] != expected:
            raise Invalid(f"node {root['id']}: the assumptions are not the val's "
                          f"{[T.pretty(t) for t in expected]}")
        return dict(recorded)

    def check_contexts(self, n, parent: Set[str], case: bool, drawn: frozenset) -> None:
        """Contexts grow only where rules add hypotheses: the cases of a match or an if
        (``case``), and the facts about the candidates ``expMech`` drew (``h_candidate``);
        below the root they start from the val's assumptions.

        ``drawn`` are the candidate facts the context may hold: those of the computations
        already done on the path — the first premise of a BindM for its second, the
        computation a Budget closes for the Budget — rebuilt from their ExpMech nodes
        (``draw_facts``). ``check_node`` checks each ``h_candidate`` hypothesis against it."""
        rule, premises = n["rule"], [self.nodes[p] for p in n["premises"]]
        outer = drawn
        if rule == "Budget":
            drawn = drawn | self.computation_facts(premises[0])
        self.drawn[n["id"]] = drawn
        names = set(n["judgement"].get("hypotheses", parent))
        new = sorted(h for h in names - parent
                     if not (case or (drawn and h.startswith(CANDIDATE))))
        if new:
            raise Invalid(f"node {n['id']}: {new[0]} enters the context without a rule")
        for i, p in enumerate(premises):
            inner = outer if rule == "Budget" else drawn
            if rule == "BindM" and i == 1:
                inner = drawn | self.computation_facts(premises[0])
            self.check_contexts(p, names, rule in ("Match", "Match-Split", "If"), inner)

    def computation_facts(self, n) -> frozenset:
        """The candidate facts a computation in a bound position yields: those of every
        ExpMech in its derivation (computations in bound positions have no branches, so each
        of those mechanisms has run when the computation has)."""
        out: Set[T.Term] = set()
        todo = [n]
        while todo:
            m = todo.pop()
            if m["rule"] == "ExpMech":
                out.update(self.draw_facts(m))
            todo += [self.nodes[p] for p in m["premises"]]
        return frozenset(out)

    def draw_facts(self, n) -> Tuple[T.Term, ...]:
        """The facts about the candidate ExpMech node ``n`` drew, rebuilt from how it says it
        drew it (``draw``) and the candidate list: for a member of ``posteriors (P, n)`` the
        member facts of ``obligations.candidates`` (the lemma ``posteriors.members.*``); for
        the finite range of the call the range facts of its type; for a list written out, that
        the candidate is one of its entries; none from another list.
        The candidate's variables must be fresh: shared by the runs, not the val's
        parameters, not in the candidate list, drawn by no other ExpMech of the claim."""
        if n["id"] in self.facts_drawn:
            return self.facts_drawn[n["id"]]
        j, where = n["judgement"], f"node {n['id']}"
        draw = j.get("draw") or {}
        kind = draw.get("from")
        cands = self.pair(j["candidates"], n)[0] if j.get("candidates") is not None else None
        try:
            if kind == "posteriors":
                conj = conjugate(cands) if cands is not None else None
                if conj is None:
                    raise Invalid(f"{where}: a candidate drawn from posteriors needs the "
                                  "candidate list posteriors (P, n) with P a beta or dirichlet")
                if draw.get("lemma") != conj.lemma:
                    raise Invalid(f"{where}: the members of the candidate list have their form "
                                  f"by {conj.lemma}, not {draw.get('lemma')}")
                (r,), params, counts = (self.terms([draw["candidate"]]),
                                        self.terms(draw["params"]), self.terms(draw["counts"]))
                fresh, facts = [r, *params, *counts], conj.facts(r, params, counts)
            elif kind == "range" and cands is None:
                fresh = self.terms(draw["values"])
                facts = S.finite_range_facts(draw["range"], fresh)
            elif kind == "list" and cands is not None:
                fresh = self.terms([draw["candidate"]])
                facts = literal_members(cands, fresh[0])
            else:
                raise Invalid(f"{where}: ExpMech must say how its candidate is drawn: from "
                              f"posteriors, another list or the finite range of the call")
        except (T.SortError, S.SourceError, KeyError, TypeError, ValueError) as exc:
            raise Invalid(f"{where}: the candidate drawn is malformed: {exc}") from None
        listed = set(T.free_vars(cands)) if cands is not None else set()
        for v in fresh:
            if not isinstance(v, T.Var) or v.run is not None or v in self.parameter_vars \
                    or v in listed or self.fresh_drawn.setdefault(v, n["id"]) != n["id"]:
                raise Invalid(f"{where}: the candidate's {T.pretty(v)} is not a fresh variable")
        if len(set(fresh)) != len(fresh):
            raise Invalid(f"{where}: the candidate's variables are not distinct")
        self.facts_drawn[n["id"]] = tuple(facts)
        return self.facts_drawn[n["id"]]

    # ---- one node against its rule -------------------------------------------------------------

    def check_node(self, n) -> Set[str]:
        """Premise arity, obligation kinds, hypotheses from the context, the lemma cited."""
        rule, j = n["rule"], n["judgement"]
        if rule not in RULES:
            raise Invalid(f"node {n['id']}: rule {rule} has no schema in this kernel")
        arity, kinds = RULES[rule]
        if len(n["premises"]) != arity if arity is not None else not n["premises"]:
            raise Invalid(f"node {n['id']}: {rule} takes {arity or 'one or more'} premises, "
                          f"not {len(n['premises'])}")
        context = set(j.get("hypotheses", ()))
        if rule in ("Match", "Match-Split", "If"):
            self.check_branch(n, rule, j)
            kinds = {E}  # the same-branch obligation
        for ob in [self.obligation(i) for i in obligation_ids(n)]:
            if ob.kind not in kinds:
                raise Invalid(f"node {n['id']}: {rule} cannot have a {ob.kind.value} obligation")
            extra = [h.name for h in ob.hypotheses if h.name not in context and not (
                rule == "Safety" and re.match(SAFETY_HYPOTHESES, h.name))
                and not self.call_fact(n, h)]
            if extra:
                raise Invalid(f"node {n['id']}: obligation {ob.id} assumes {extra[0]}, which is "
                              "not in the node's context")
            wrong = [h.name for h in ob.hypotheses if rule != "Safety" and h.name.startswith(
                CANDIDATE) and h.name not in self.assumed and h.term not in self.drawn[n["id"]]]
            if wrong:
                raise Invalid(f"node {n['id']}: obligation {ob.id} assumes {wrong[0]}, which is "
                              "not a fact about a candidate drawn on its path")
        lemma = j.get("lemma")
        expected = THEOREM.get(rule)
        if rule == "Ran":
            expected = {"SD": "sd.metric", "HD": "fdiv.hd.one_minus_bc"}.get(j["cost"]["family"])
        if rule == "ObserveFold":
            if not re.fullmatch(CONJUGACY.get(j.get("family"), "-"), str(lemma)) or (
                    j["family"] == "categorical"
                    and int(lemma.rsplit("=", 1)[1]) not in self.categories(j.get("function"))):
                raise Invalid(f"node {n['id']}: {lemma} is not the conjugacy lemma of "
                              f"{j.get('family')} for {j.get('function')}")
            expected = lemma
        if rule == "Observe":  # one conjugate update: the list lemma at a one-element list
            if not re.fullmatch(CONJUGACY.get(j.get("family"), "-"), str(lemma)):
                raise Invalid(f"node {n['id']}: {lemma} is not the conjugacy lemma of "
                              f"{j.get('family')}")
            expected = lemma
        if lemma != expected:
            raise Invalid(f"node {n['id']}: {rule} rests on {expected}, not {lemma}")
        if j.get("disputed") != (THEOREM[rule] if rule == "HellingerMech" else None):
            raise Invalid(f"node {n['id']}: the disputed flag of {rule} is wrong")
        if rule == "ExpMech":
            self.draw_facts(n)  # checks the draw and the lemma it cites
        return cited_lemmas(n)

    def categories(self, function) -> Set[int]:
        """The numbers of categories k of the ``[k] list`` parameters in the val of
        ``function`` (the data of a dirichlet-categorical fold is one of them)."""
        ks: Set[int] = set()
        for val in self.program.vals():
            if val.name == function:
                for dom in S.arrow(val)[0]:
                    base = S.refined_var(dom)[1]
                    t = base.type if isinstance(base, S.A.RSimple) else None
                    if isinstance(t, S.A.TList) and isinstance(t.elem, S.A.TFin):
                        ks.add(t.elem.k)
        return ks

    def check_branch(self, n, rule: str, j) -> None:
        """Both runs take the same branch: the scrutinees (conditions) are one term, or proved
        equal; or, for Match-Split, the lists are proved to have equal lengths."""
        branch = j.get("branch") or {}
        modes = {"If": ("if",), "Match": ("sync", "split"), "Match-Split": ("split",)}[rule]
        if branch.get("mode") not in modes:
            raise Invalid(f"node {n['id']}: {rule} needs why both runs take the same branch")
        x1, x2 = self.pair(branch["terms"], n)
        goal = T.eq(V.length(x1), V.length(x2)) if branch["mode"] == "split" else T.eq(x1, x2)
        oid = branch["obligation"]
        if oid is None and (x1 != x2 or branch["mode"] == "split"):
            raise Invalid(f"node {n['id']}: no obligation that both runs take the same branch")
        if oid is not None and self.obligation(oid).goal != goal:
            raise Invalid(f"node {n['id']}: the same-branch obligation must be {T.pretty(goal)}")

    def check_exact(self, n, root, decl, doms, rt, index) -> None:
        """ExactFinite: the output distribution of ``decl`` at every valuation of its
        parameters (``bool`` or ``[k]``), recomputed by the kernel's own exact evaluator
        (``checker.finite``), is the one recorded, and the node's obligations are the goals
        ``obligations.finite_laws`` builds from them and the claim's index."""
        where = f"node {n['id']}"
        if index is None:
            raise Invalid(f"{where}: ExactFinite proves monadic claims only")
        params = [self.pair([p["left"], p["right"]], root)
                  for p in root["judgement"]["parameters"]]
        domains = []
        for (left, right), dom in zip(params, doms):
            t = S.refined_var(dom)[1]
            t = t.type if isinstance(t, S.A.RSimple) else None
            if isinstance(t, S.A.TBase) and t.name == "bool":
                domains.append(([False, True], T.BOOL))
            elif isinstance(t, S.A.TFin):
                domains.append((list(range(t.k)), T.INT))
            else:
                raise Invalid(f"{where}: ExactFinite needs parameters of type bool or [k]")
            if left.sort != domains[-1][1]:  # distinct variables: check_assumptions
                raise Invalid(f"{where}: a parameter's term must be a variable of its sort")
        valuations = list(itertools.product(*(values for values, _ in domains)))
        out = S.refined_var(rt.body)[1] if isinstance(rt, S.A.RMonad) else None
        if not isinstance(out, S.A.RSimple):
            raise Invalid(f"{where}: ExactFinite needs a claim M[F] {{x :: T | =}} of a simple T")
        out_type = out.type
        recorded = n["judgement"].get("distributions")
        if not isinstance(recorded, list) or len(recorded) != len(valuations):
            raise Invalid(f"{where}: one distribution per parameter valuation "
                          f"({len(valuations)}) must be recorded")
        evaluator, laws = finite.Evaluator(self.program), []
        for a, rec in zip(valuations, recorded):
            inputs = [FL.outcome_text(v) for v in a]
            try:
                weighted = evaluator.law(decl, a)
                law = FL.canonical(weighted)
            except (finite.Outside, ValueError) as exc:
                raise Invalid(f"{where}: {decl.name} {' '.join(inputs)} cannot be computed "
                              f"exactly: {exc}") from None
            outside = [FL.outcome_text(v) for v, p in weighted if p
                       and not S.A.finite_value_of(v, out_type)]
            if outside:
                raise Invalid(f"{where}: {decl.name} {' '.join(inputs)} may return "
                              f"{outside[0]}, which is not a value of the claimed type")
            shown = [[o, f"{p.numerator}/{p.denominator}"] for o, p in law]
            if rec != {"inputs": inputs, "law": shown}:
                raise Invalid(f"{where}: the distribution recorded for {decl.name} "
                              f"{' '.join(inputs)} is not the program's {shown}")
            laws.append((a, dict(law)))
        try:
            goals = [g for _, g in FL.goals(*index, params, laws)]
        except (ValueError, T.SortError) as exc:
            raise Invalid(f"{where}: {exc}") from None
        if [(ob.kind, ob.goal) for ob in self.obs(n)] != [(E, g) for g in goals]:
            raise Invalid(f"{where}: the obligations are not the claimed bound on the exact "
                          f"distributions {[T.pretty(g) for g in goals]}")

    def check_pure(self, n) -> None:
        if n["rule"] in ("Match", "If"):
            for p in n["premises"]:
                self.check_pure(self.nodes[p])
        elif n["rule"] != "Sub":
            raise Invalid(f"node {n['id']}: {n['rule']} is not a rule of pure claims")

    def check_path(self, n, spent: List[Tuple], index) -> None:
        """A monadic path from the claim's root: the costs spent so far are ``spent``."""
        rule, prem = n["rule"], [self.nodes[p] for p in n["premises"]]
        if "cost" in n["judgement"] and rule != "Budget":
            raise Invalid(f"node {n['id']}: {rule} with a cost cannot be checked against the "
                          "claim (a Budget must close the path)")
        if rule == "BindM":
            self.check_path(prem[1], spent + [self.synth(prem[0])], index)
        elif rule in ("Let", "Match", "Match-Split", "If", "If-Lift"):
            for p in prem:
                self.check_path(p, spent, index)
        elif rule == "Budget":
            self.check_budget(n, spent + [self.synth(prem[0])], index, self.output(prem[0]))
        else:
            raise Invalid(f"node {n['id']}: {rule} cannot end a monadic path")

    def check_budget(self, n, costs: List[Tuple], index, output) -> None:
        j = n["judgement"]
        if [self.cost(c) for c in j["costs"]] != costs:
            raise Invalid(f"node {n['id']}: the costs recorded are not those of the path "
                          f"{[_show_cost(c) for c in costs]}")
        if self.index(j["index"]) != index:
            raise Invalid(f"node {n['id']}: the index is not the claim's")
        family, eps, delta = index
        used = {c[0] for c in costs} - {"ZERO"}
        bad = used - ({"DP", "SD"} if family == "DP" else {family})
        if bad:
            raise Invalid(f"node {n['id']}: a {sorted(bad)[0]} cost cannot pay for {family}")
        goals = [T.le(_total([c[1] for c in costs if c[0] == "DP"]), eps)] if family == "DP" else []
        goals.append(T.le(_total([c[2] for c in costs]), delta))
        # the claim's "=": the path's output is equal in both runs
        differ = [T.eq(a, b) for a, b in output or () if a != b]
        if differ:
            goals.append(T.and_(*differ))
        if [ob.goal for ob in self.obs(n)] != goals:
            raise Invalid(f"node {n['id']}: the budget obligations must be "
                          f"{[T.pretty(g) for g in goals]}")

    def synth(self, n) -> Tuple:
        """The cost of a computation, from its rule; it must be the cost it records."""
        rule, j, prem = n["rule"], n["judgement"], [self.nodes[p] for p in n["premises"]]
        if "cost" not in j:
            raise Invalid(f"node {n['id']}: {rule} is not a computation with a cost here")
        if rule == "BindM":
            cost = _add(self.synth(prem[0]), self.synth(prem[1]), n["id"])
        elif rule in ("Let", "Unfold", "If-Lift"):
            cost = self.synth(prem[0])
        elif rule in ("If", "Match"):
            cost = self.cases(n, rule, j, prem)
        else:
            cost = self.leaf_cost(n, rule, j)
        if self.cost(j["cost"]) != cost:
            raise Invalid(f"node {n['id']}: the cost recorded is not {rule}'s {_show_cost(cost)}")
        return cost

    def output(self, n) -> Optional[List[Tuple[T.Term, T.Term]]]:
        """The output of a computation in run 1 and run 2 (a tuple's components in order;
        None for a value that is not first-order, which only a rule whose output is equal in
        both runs may give), from its rule; it must be the output it records.

        The computations whose theorem couples the two runs' outputs as equal (mechanisms,
        App-Val, Ran, Var, EqualInputs but for a return) give fresh variables shared by the
        runs — fresh, so that nothing is known of them but their equality; a return gives its
        value (the translation of the program: trusted); a sequence its last computation's;
        an if or a synchronous match in a bound position the case taken's, ``ite`` of the
        cases' per run."""
        nid = n["id"]
        if nid in self.outputs:
            return self.outputs[nid]
        rule, j, prem = n["rule"], n["judgement"], [self.nodes[p] for p in n["premises"]]
        if "output" not in j:
            raise Invalid(f"node {nid}: {rule} records no output")
        recorded = None if j["output"] is None else [tuple(self.pair(p, n)) for p in j["output"]]
        if rule == "BindM":
            computed = self.output(prem[1])
        elif rule in ("Let", "Unfold", "If-Lift"):
            computed = self.output(prem[0])
        elif rule in ("If", "Match"):
            computed = self.case_output(n, j, prem, recorded)
        elif rule == "UnitM" or (rule == "EqualInputs" and recorded is not None
                                 and not self.fresh(recorded, n, check=False)):
            computed = recorded  # the value returned: the translation of the program
        else:
            if recorded is not None and not self.fresh(recorded, n):
                raise Invalid(f"node {nid}: the output of {rule} must be fresh variables shared "
                              "by the two runs")
            computed = recorded
        if computed != recorded:
            raise Invalid(f"node {nid}: the output recorded is not {rule}'s")
        self.outputs[nid] = computed
        return computed

    def fresh(self, output: List[Tuple[T.Term, T.Term]], n, check: bool = True) -> bool:
        """Whether ``output`` is made of fresh variables shared by the runs: not the val's
        parameters, not the output of another computation, not the candidate an ExpMech drew
        to state its cost (its own output included: the cost is the score's sensitivity at
        every candidate, and a continuation that reads the output must not see it as the
        candidate the cost was taken at — the loss at an output is not the score's change
        there). With ``check`` the variables are claimed for node ``n``."""
        if n["rule"] == "ExpMech":
            self.draw_facts(n)  # its candidate's variables, claimed before its output
        for a, b in output:
            if not (isinstance(a, T.Var) and a == b and a.run is None
                    and a not in self.parameter_vars and a not in self.fresh_drawn
                    and self.fresh_outputs.get(a, n["id"]) == n["id"]):
                return False
        if check:
            for a, _ in output:
                self.fresh_outputs[a] = n["id"]
        return len({a for a, _ in output}) == len(output)

    def case_output(self, n, j, prem, recorded) -> Optional[List[Tuple[T.Term, T.Term]]]:
        """The output of an if or a synchronous match in a bound position: per run, the case
        taken's (``ite`` of the cases' outputs on that run's condition), or fresh variables
        when the cases' outputs are equal in both runs but cannot be named."""
        first, second = self.output(prem[0]), self.output(prem[1])
        x1, x2 = self.pair(j["branch"]["terms"], n)
        g1, g2 = (x1, x2) if n["rule"] == "If" else (T.eq(x1, V.nil(x1.sort)),
                                                     T.eq(x2, V.nil(x2.sort)))
        if first is not None and second is not None and len(first) == len(second):
            return [(a1 if a1 == b1 else T.ite(g1, a1, b1), a2 if a2 == b2 else T.ite(g2, a2, b2))
                    for (a1, a2), (b1, b2) in zip(first, second)]
        equal = all(a == b for out in (first, second) if out is not None for a, b in out)
        if equal and (recorded is None or self.fresh(recorded, n)):
            return recorded
        raise Invalid(f"node {n['id']}: the output of the cases cannot be named, and is not "
                      "known to be equal in both runs")

    def cases(self, n, rule: str, j, prem) -> Tuple:
        """An if, or a Match-Sync, in a bound position: both runs take the same case
        (``check_branch``), so the cost is the one of the case taken — ``ite(guard, cost1,
        cost2)``, the guard being run 1's condition, or that its list is empty."""
        labels = {"If": ("then", "else"), "Match": ("[]", "::")}[rule]
        branch = j["branch"]
        if rule == "Match" and branch["mode"] != "sync":
            raise Invalid(f"node {n['id']}: a match in a bound position must be synchronous")
        if len(prem) != 2 or any(not p["judgement"].get("case", "").endswith(label)
                                 for p, label in zip(prem, labels)):
            raise Invalid(f"node {n['id']}: {rule} in a bound position has the cases "
                          f"{' and '.join(labels)}, in that order")
        x1 = self.pair(branch["terms"], n)[0]
        guard = x1 if rule == "If" else T.eq(x1, V.nil(x1.sort))
        return _case(guard, self.synth(prem[0]), self.synth(prem[1]), n["id"])

    def leaf_cost(self, n, rule: str, j) -> Tuple:
        obs = self.obs(n)
        if rule in ("EqualInputs", "UnitM", "Var"):
            if len(obs) > (rule != "Var") or not all(_equalities(ob.goal) for ob in obs):
                raise Invalid(f"node {n['id']}: {rule} has at most one equality obligation")
            if rule == "Var":  # set by the context check: a typed parameter costs its index
                if n["id"] not in self.var_costs:
                    raise Invalid(f"node {n['id']}: Var where no computation is bound")
                return self.var_costs[n["id"]]
            return ZERO
        if rule == "App-Val":
            return self.app_val(n, j)
        if rule == "Ran":
            d1, d2 = self.pair(j["dists"], n)
            family = j["cost"]["family"]
            if family not in ("SD", "HD"):
                raise Invalid(f"node {n['id']}: ran has a bound in SD and HD only")
            h = V.hellinger(d1, d2)
            return (family, T.real(0), V.tv(d1, d2) if family == "SD" else T.mul(h, h))
        if rule not in THEOREM:
            raise Invalid(f"node {n['id']}: {rule} is not a computation")
        e1 = self.public(n, j, "eps", obs)
        delta = self.public(n, j, "delta", obs) if "delta" in j else T.real(0)
        if rule == "LapMech":
            v1, v2 = self.pair(j["value"], n)
            return ("DP", T.mul(e1, T.abs_(T.sub(v1, v2))), T.real(0))
        if rule == "GaussMech":
            v1, v2 = self.pair(j["value"], n)
            k = T.abs_(T.sub(v1, v2))
            side = [ob for ob in obs if ob.kind == SC]
            if [ob.goal for ob in side] != [T.lt(T.mul(k, e1), 1)]:
                raise Invalid(f"node {n['id']}: the Gaussian mechanism needs the side "
                              f"condition {T.pretty(T.lt(T.mul(k, e1), 1))}")
            return ("DP", T.mul(k, e1), delta)
        if rule == "ExpMech":
            s1, s2 = self.pair(j["score"], n)
            if j.get("candidates") is not None:
                self.public(n, j, "candidates", obs)
            return ("DP", T.mul(e1, T.abs_(T.sub(s1, s2))), T.real(0))
        self.public(n, j, "prior", obs)
        l1, l2 = self.pair(j["data"], n)
        if not any(ob.goal == V.adj(l1, l2) for ob in obs):
            raise Invalid(f"node {n['id']}: {rule} needs the data adjacent")
        if rule == "HellingerMechPure":
            return ("DP", e1, T.real(0))
        return ("DP", e1, T.div(T.mul(T.exp(T.div(e1, 2)), delta), 2))

    def public(self, n, j, key: str, obs) -> T.Term:
        """Run 1's term of a parameter that must be public: one term, or proved equal."""
        t1, t2 = self.pair(j[key], n)
        if t1 != t2 and not any(ob.kind == E and ob.goal == T.eq(t1, t2) for ob in obs):
            raise Invalid(f"node {n['id']}: no obligation that the {key} is public")
        return t1

    def app_val(self, n, j) -> Tuple:
        """App-Val: the obligations that the arguments meet the callee's val, rebuilt from the
        source, and the cost its val states."""
        callee = j.get("uses")
        vals = [v for v in self.program.vals() if v.name == callee]
        if not vals or (callee == self.claim_name and not self.recursive):
            raise Invalid(f"node {n['id']}: no val of {callee} to apply")
        self.uses.add(callee)
        doms, rt = S.arrow(vals[0])
        if len(j["arguments"]) != len(doms):
            raise Invalid(f"node {n['id']}: {callee} takes {len(doms)} arguments")
        obs, bindings = self.obs(n), {}
        if callee == self.claim_name:  # the induction hypothesis: first, the call is smaller
            if self.induction is None:
                raise Invalid(f"node {n['id']}: a recursive call without an induction measure")
            arg = j["arguments"][self.induction[0]]
            goal = self.shorter(tuple(self.pair([arg["left"], arg["right"]], n)))
            if not obs or (obs[0].kind, obs[0].goal) != (E, goal):
                raise Invalid(f"node {n['id']}: the recursive call needs the obligation that "
                              f"its list is shorter, {T.pretty(goal)}")
            obs = obs[1:]
        try:
            for i, (arg, dom) in enumerate(zip(j["arguments"], doms), 1):
                chunk, obs = obs[:arg["obligations"]], obs[arg["obligations"]:]
                got = [(ob.kind, ob.goal) for ob in chunk]
                expected = self.argument(n, arg, dom, bindings)
                if got != expected and (expected is not None or not all(
                        k == E and _equalities(g) for k, g in got)):
                    raise Invalid(f"node {n['id']}: the obligations of argument {i} are not "
                                  f"what the val of {callee} requires")
            if obs:
                raise Invalid(f"node {n['id']}: obligations beyond the arguments' ones")
            return S.instantiated_cost(self.program, rt, bindings)
        except S.SourceError as exc:
            raise Invalid(f"node {n['id']}: {exc}") from None

    def argument(self, n, arg, dom, bindings: S.Bindings) -> Optional[List[Tuple]]:
        """The obligations (kind, goal) an argument must have: the range of its type in each
        run, then each refinement of ``dom`` (``bindings``: the callee's variables, extended
        here). None for a computation, which must be the same distribution in both runs: its
        obligations (EqualInputs') are equalities, taken as they are."""
        var, base, assertions = S.refined_var(dom)
        if arg["var"] != var:
            raise Invalid(f"node {n['id']}: argument {arg['var']} should be {var}")
        if isinstance(base, S.A.RMonad):
            wanted = S.instantiated_cost(self.program, base, bindings)
            bindings[var] = (None, None)
            if wanted[0] == "ZERO":
                return None
            # a computation within a bound, passed on: within at most the callee's, by the
            # type of the parameter it is (the context check found it: passed_costs)
            have = self.passed_costs.get((n["id"], arg["var"]))
            if have is None or have[0] not in ("ZERO", wanted[0]):
                raise Invalid(f"node {n['id']}: argument {arg['var']} must be a computation known "
                              f"within a {wanted[0]} bound")
            goals = [T.le(have[1], wanted[1])] if wanted[0] == "DP" else []
            return [(E, g) for g in goals + [T.le(have[2], wanted[2])]]
        expected: List[Tuple] = []
        if arg["left"] is not None:
            left, right = self.pair([arg["left"], arg["right"]], n)
            bindings[var] = (left, right)
            for t in (left, right):
                facts = S.range_facts(base.type, t)
                expected += [(R, T.and_(*facts))] if facts else []
        elif assertions:
            raise Invalid(f"node {n['id']}: cannot check the refinement of argument {var}")
        for a in assertions:
            if isinstance(a, S.A.SameRuns):
                expected.append((E, T.TRUE if left == right else T.eq(left, right)))
            else:
                expected.append((E, S.assertion(self.program, a, dict(bindings), var)))
        return expected

    def call_fact(self, n, h) -> bool:
        """Whether hypothesis ``h`` is a call fact: ``P(a, b) ==> Q(f(a), f(b))`` for two calls
        ``f(a)``, ``f(b)`` it mentions of a function ``f`` (not the claim's own) whose val has
        simple types, rebuilt from the val (domains' ranges and refinements, then the
        codomain's). The claim then depends on ``f``'s claim being verified."""
        if not h.name.startswith(CALL_FACT):
            return False
        pure = {v.name: v for v in self.program.vals()
                if v.name != self.claim_name or self.induction is not None}
        for name, calls in _ground_calls(h.term, set(pure)).items():
            doms, cod = S.arrow(pure[name])
            for a in calls:
                for b in calls:
                    guard = None
                    if name == self.claim_name:  # the induction hypothesis, for shorter lists
                        p = self.induction[0]
                        if p >= len(a.args) or not a.args[p].sort == b.args[p].sort \
                                == self.induction[1].sort:
                            continue
                        guard = self.shorter((a.args[p], b.args[p]))
                    try:
                        fact = _call_fact(self.program, doms, cod, a, b, guard)
                    except (S.SourceError, T.SortError):
                        fact = None
                    if fact is not None and fact == h.term:
                        self.uses.add(name)
                        return True
        raise Invalid(f"node {n['id']}: {h.name} is not what the val of a function says of "
                      "two of its calls")

    # ---- obligations ---------------------------------------------------------------------------

    def obs(self, n) -> List[Obligation]:
        return [self.obligation(oid) for oid in n["obligations"]]

    def obligation(self, oid: str) -> Obligation:
        """The obligation ``oid``, checked to be the normal form of its content and to have
        the id its content hashes to (so a changed formula shows)."""
        rec = self.obligations[oid]
        if oid not in self.parsed:
            try:
                ob = self.read.obligation(rec["obligation"])  # its id hashes its content
            except Exception as exc:
                raise Invalid(f"obligation {oid}: malformed: {exc}") from None
            if {**ob.to_json(), "id": oid} != rec["obligation"]:
                raise Invalid(f"obligation {oid}: its JSON is not the normal form of its terms")
            if ob.id != oid:
                raise Invalid(f"obligation {oid}: the id is not the hash of its content "
                              f"({ob.id}): the formula was changed")
            self.parsed[oid] = ob
        return self.parsed[oid]

    def justify(self, oid: str, solvers: Set[Tuple[str, str]]) -> Set[str]:
        """Check that obligation ``oid`` holds; return the lemmas its axioms cite."""
        if oid in self.justified:
            return self.justified[oid]
        ob, rec = self.obligation(oid), self.obligations[oid]
        lemma_ids = self.check_axioms(ob, rec["axioms"])
        text = to_smtlib(ob)
        if text != rec["smtlib"]:
            raise Invalid(f"obligation {oid}: the SMT-LIB text is not the obligation's")
        d = rec["discharge"]
        if d["verdict"] != "verified" or ob.lemma is not None:
            raise Invalid(f"obligation {oid}: {d['verdict']} (by {d['method']}), not verified")
        if d["method"] == "trivial":
            if _trivial(ob) is None:
                raise Invalid(f"obligation {oid}: recorded as trivial, but it is not")
        elif d["method"] in ("z3", "cvc5") and d["result"] == "unsat":
            solvers.add((d["solver"], d["version"] or ""))
            self.rerun(oid, ob, text, d)
        else:
            raise Invalid(f"obligation {oid}: discharged by {d['method']} with result "
                          f"{d['result']}: the kernel accepts unsat from a solver, or trivial")
        self.justified[oid] = lemma_ids
        return lemma_ids

    def solve(self, ob: Obligation, text: str, solver: str, rlimit: Optional[int]) -> str:
        """``solver``'s answer to the script ``text`` of ``ob``, run from a fresh solver, once
        per formula: two obligations with the same hypotheses, axioms and goal have the same
        commands (their scripts differ only in comments: id, provenance), hence the same
        answer under the same resource limit, as in the verifier."""
        key = (ob.hypotheses, ob.axioms, ob.goal, solver, rlimit)
        if key not in self.answers:
            self.answers[key] = check_smtlib(text, solver, rlimit,
                                             self.z3 if solver == "z3" else None)
        return self.answers[key]

    def rerun(self, oid: str, ob: Obligation, text: str, d) -> None:
        running = version_string()
        note = (f"obligations discharged by z3 {d['version']} are re-run with z3 {running}")
        if d["solver"] == "z3" and d["version"] != running \
                and note not in self.notes:
            self.notes.append(note)
        rlimit = d["rlimit"] if self.solver == d["solver"] else None
        try:
            answer = self.solve(ob, text, self.solver, rlimit)
            if answer == "unknown" and self.solver == "cvc5" and self.allow_unknown:
                self.notes.append(f"{oid}: not re-checkable by cvc5 (unknown); re-run by z3")
                answer = self.solve(ob, text, "z3", d["rlimit"] if d["solver"] == "z3" else None)
        except SmtLibError as exc:
            raise Invalid(f"obligation {oid}: {exc}") from None
        if answer == "unknown" and self.solver == "cvc5":
            raise Invalid(f"obligation {oid}: not re-checkable by cvc5 (unknown); "
                          "--allow-unknown re-runs such obligations with z3")
        if answer != "unsat":
            raise Invalid(f"obligation {oid}: {self.solver} answers {answer}, not unsat")

    def check_axioms(self, ob: Obligation, records) -> Set[str]:
        if [r["name"] for r in records] != [a.name for a in ob.axioms]:
            raise Invalid(f"obligation {ob.id}: the axioms recorded are not its axioms")
        lemma_ids: Set[str] = set()
        vocabulary = self.read.vocabulary(self.obligations[ob.id]["obligation"]["vocabulary"])
        for axiom, r in zip(ob.axioms, records):
            schema = SCHEMAS.get(r["schema"])
            if schema is None:
                raise Invalid(f"obligation {ob.id}: axiom {r['name']}: no schema {r['schema']}")
            number = r["name"][len(f"ax_{r['schema']}_"):]  # ax_<schema>_<k>
            if not (r["name"].startswith(f"ax_{r['schema']}_") and number.isascii()
                    and number.isdigit()):
                raise Invalid(f"obligation {ob.id}: axiom {r['name']} is not named after its "
                              f"schema {r['schema']}")
            try:
                args = tuple(self.read.term(a, vocabulary) for a in r["args"])
                key = (r["schema"], args, axiom.term)  # an instance recurs: checked once
                if key not in self.instances:
                    instance = schema.instance(*args)
                    if instance != axiom.term:
                        raise Invalid(f"obligation {ob.id}: axiom {r['name']} is not the instance"
                                      f" of {r['schema']} at its arguments ({T.pretty(instance)})")
                    self.instances[key] = set(schema.lemma_ids(*args))
            except (SchemaError, T.SortError, KeyError, ValueError) as exc:
                raise Invalid(f"obligation {ob.id}: axiom {r['name']}: {exc}") from None
            lemma_ids |= self.instances[key]
        return lemma_ids

    # ---- judgement data ------------------------------------------------------------------------

    def terms(self, data) -> List[T.Term]:
        try:
            return [self.read.term(t, self.vocabulary) for t in data]
        except Exception as exc:
            raise Invalid(f"a term of a judgement is malformed: {exc}") from None

    def pair(self, data, n) -> List[T.Term]:
        """A value's terms in run 1 and run 2 at node ``n``. Both runs execute the same code,
        so run 2's term is run 1's with the runs exchanged (run 1's translation is trusted)."""
        t1, t2 = self.terms(data)
        if _swap(t1) != t2:
            raise Invalid(f"node {n['id']}: {T.pretty(t2)} is not the run-2 form of "
                          f"{T.pretty(t1)}")
        return [t1, t2]

    def cost(self, c) -> Tuple:
        eps, delta = self.terms([c["eps"], c["delta"]])
        return (c["family"], eps, delta)

    def index(self, data) -> Optional[Tuple]:
        if data is None:
            return None
        eps = self.terms([data["eps"]])[0] if data["eps"] is not None else None
        return (data["family"], eps, self.terms([data["delta"]])[0])

    def bindings(self, data, n) -> S.Bindings:
        """The terms of the variables a val's refinements name at node ``n`` (``(None, None)``
        for values that are not first-order)."""
        return {b["var"]: tuple(self.pair([b["left"], b["right"]], n)) if b["left"] is not None
                else (None, None) for b in data}


def _conjuncts(t: T.Term) -> List[T.Term]:
    """``t`` split at its conjunctions, without ``true`` (how contexts store assumptions)."""
    if isinstance(t, T.Op) and t.op == T.OpKind.AND:
        return [c for a in t.args for c in _conjuncts(a)]
    return [] if t == T.TRUE else [t]


def _total(terms: List[T.Term]) -> T.Term:
    """The sum of ``terms``, leaving out constant zeros (0 for none), as Budget writes it."""
    parts = [t for t in terms if not (isinstance(t, T.Const) and t.value == 0)]
    return T.real(0) if not parts else parts[0] if len(parts) == 1 else T.add(*parts)


def _add(c1: Tuple, c2: Tuple, where: str) -> Tuple:
    """Sequential composition of two costs (Lemma 3.4): one family, epsilons and deltas add."""
    if c1[0] == "ZERO":
        return c2
    if c2[0] == "ZERO":
        return c1
    if c1[0] != c2[0]:
        raise Invalid(f"node {where}: cannot compose a {c1[0]} cost with a {c2[0]} cost")
    return (c1[0], T.add(c1[1], c2[1]), T.add(c1[2], c2[2]))


def _case(guard: T.Term, c1: Tuple, c2: Tuple, where: str) -> Tuple:
    """The cost that is ``c1`` where ``guard`` holds and ``c2`` elsewhere: one family (``ZERO``
    is zero in any), the ``ite`` of the epsilons and of the deltas (one term when they agree)."""
    families = {c1[0], c2[0]} - {"ZERO"}
    if len(families) > 1:
        raise Invalid(f"node {where}: the cases have costs in different families "
                      f"{sorted(families)}")
    if not families:
        return ZERO
    return (families.pop(),) + tuple(x if x == y else T.ite(guard, x, y)
                                     for x, y in zip(c1[1:], c2[1:]))


def _swap(t: T.Term) -> T.Term:
    """``t`` with ``x<1>`` and ``x<2>`` exchanged."""
    return T.substitute(t, {v: T.var(v.name, v.sort, 3 - v.run) for v in T.free_vars(t) if v.run})


def _equalities(t: T.Term) -> bool:
    """``t`` says that values are equal in both runs: true, ``x = x'`` where ``x'`` is ``x`` with
    the runs exchanged, or a conjunction of those."""
    return t == T.TRUE or isinstance(t, T.Op) and (
        (t.op == T.OpKind.EQ and t.args[1] == _swap(t.args[0])) or (
            t.op == T.OpKind.AND and all(_equalities(a) for a in t.args)))


def _show_cost(c: Tuple) -> str:
    return f"{c[0]}({T.pretty(c[1])}, {T.pretty(c[2])})"


def _show_index(index) -> str:
    if index is None:
        return "(none: a pure claim)"
    return f"{index[0]}, eps {T.pretty(index[1]) if index[1] is not None else '-'}, " \
           f"delta {T.pretty(index[2])}"


def _ground_calls(t: T.Term, names) -> Dict[str, List[T.Apply]]:
    """The applications of functions ``names`` in ``t`` outside quantifiers, in order."""
    found: Dict[str, List[T.Apply]] = {}
    for app in T.ground_applications(t):
        name = V.program_function_name(app.func.name)
        if name in names and app.args:
            found.setdefault(name, []).append(app)
    return found


def _call_fact(program, doms, cod, a: T.Apply, b: T.Apply,
               guard: Optional[T.Term] = None) -> Optional[T.Term]:
    """``P(a, b) ==> Q(f(a), f(b))`` from the val's domains ``doms`` and codomain ``cod``
    (with ``guard`` the first premise, for the induction hypothesis)."""
    if len(doms) != len(a.args) or len(doms) != len(b.args):
        return None
    bindings: S.Bindings = {}
    pre: List[T.Term] = [guard] if guard is not None else []
    for dom, x, y in zip(doms, a.args, b.args):
        var, base, assertions = S.refined_var(dom)
        if not isinstance(base, S.A.RSimple):
            return None
        pre += [*S.range_facts(base.type, x), *S.range_facts(base.type, y)]
        if var is not None:
            bindings[var] = (x, y)
        pre += [_refinement(program, e, bindings, var, x, y) for e in assertions]
    var, base, assertions = S.refined_var(cod)
    if not isinstance(base, S.A.RSimple):
        return None
    post = [*S.range_facts(base.type, a), *S.range_facts(base.type, b)]
    if var is not None:
        bindings[var] = (a, b)
    post += [_refinement(program, e, bindings, var, a, b) for e in assertions]
    if not post:
        return None
    return T.implies(T.and_(*pre), T.and_(*post)) if pre else T.and_(*post)


def _refinement(program, e, bindings, var, x: T.Term, y: T.Term) -> T.Term:
    if isinstance(e, S.A.SameRuns):
        return T.eq(x, y)
    return S.assertion(program, e, dict(bindings), var)
