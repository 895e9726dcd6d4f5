"""Re-checking the library: every artifact, the citations between lemmas, the trust base.

``recheck`` (``lemmas.artifacts``) checks one artifact in isolation, trusting the statements of
the lemmas it cites. ``check_library`` closes the loop: each cited lemma must exist in the
registry with exactly the cited statement, the citation graph must be acyclic (no circular
proofs), a ``proved`` lemma must not rest on a ``disputed`` one, and every cited lemma is
checked too. ``trust_base(lemma)`` lists, transitively, what a lemma rests on without proof:
facts, rules and tools, and literature (or disputed) lemmas.
"""
from __future__ import annotations

import json
import os
import time
from dataclasses import dataclass
from typing import Dict, Iterable, List, Mapping, Optional, Set, Tuple

from lemmas import registry
from lemmas.artifacts import CheckResult, recheck, statements_equal
from lemmas.core import Lemma


@dataclass(frozen=True)
class LemmaCheck:
    """The outcome of checking one lemma of the library."""

    lemma_id: str
    status: str
    ok: bool
    reason: str
    result: Optional[CheckResult]
    trust: Tuple[str, ...]
    seconds: float

    def line(self) -> str:
        if self.ok:
            return f"ok      {self.lemma_id}  ({self.status}, {self.seconds:.2f} s)"
        return f"FAILED  {self.lemma_id}: {self.reason}"

    def to_json(self) -> Dict:
        out = {"id": self.lemma_id, "status": self.status, "ok": self.ok, "reason": self.reason,
               "trust": list(self.trust), "seconds": round(self.seconds, 3)}
        if self.result is not None:
            out["steps"] = self.result.to_json()["steps"]
        return out


def artifact_of(lemma: Lemma, artifacts: Optional[Mapping[str, Mapping]] = None) -> Optional[Mapping]:
    if artifacts is None:
        return lemma.artifact
    return artifacts.get(lemma.id)


def _cited_ids(artifact: Mapping) -> List[str]:
    return [s["lemma"] for s in artifact.get("steps", [])
            if isinstance(s, dict) and s.get("kind") == "lemma" and isinstance(s.get("lemma"), str)]


def check_lemma(lemma: Lemma, artifacts: Optional[Mapping[str, Mapping]] = None) -> LemmaCheck:
    """Check one lemma's artifact (the built-in one, or ``artifacts[lemma.id]``)."""
    t0 = time.perf_counter()

    def fail(reason: str, result: Optional[CheckResult] = None) -> LemmaCheck:
        return LemmaCheck(lemma.id, lemma.status, False, reason, result, (),
                          time.perf_counter() - t0)

    art = artifact_of(lemma, artifacts)
    if art is None:
        return fail("no artifact")
    if not isinstance(art, Mapping):
        return fail("the artifact is not a JSON object")
    if art.get("lemma") != lemma.id:
        return fail(f"the artifact is for {art.get('lemma')!r}")
    if art.get("status") != lemma.status:
        return fail(f"the artifact claims status {art.get('status')!r}, the lemma {lemma.status!r}")
    if not isinstance(art.get("statement"), Mapping) or not statements_equal(
            art["statement"], lemma.statement_json()):
        return fail("the artifact's statement differs from the lemma's")
    cited: Dict[str, Mapping] = {}
    for cid in _cited_ids(art):
        try:
            other = registry.get(cid)
        except KeyError:
            return fail(f"cites unknown lemma {cid}")
        if lemma.status == "proved" and other.status == "disputed":
            return fail(f"a proved lemma cannot rest on the disputed lemma {cid}")
        cited[cid] = other.statement_json()
    cycle = _cycle_through(lemma.id, artifacts)
    if cycle:
        return fail("circular citations: " + " -> ".join(cycle))
    result = recheck(dict(art), cited=cited)
    if not result.ok:
        return fail(result.reason, result)
    return LemmaCheck(lemma.id, lemma.status, True, "", result,
                      trust_base(lemma, artifacts), time.perf_counter() - t0)


def _cycle_through(start: str, artifacts) -> Optional[List[str]]:
    """A citation cycle through ``start``, if any (following the artifacts in use)."""
    path: List[str] = []
    seen: Set[str] = set()

    def visit(lid: str) -> Optional[List[str]]:
        if lid in path:
            return path[path.index(lid):] + [lid]
        if lid in seen:
            return None
        seen.add(lid)
        try:
            art = artifact_of(registry.get(lid), artifacts)
        except KeyError:
            return None
        if art is None:
            return None
        path.append(lid)
        for c in _cited_ids(art):
            found = visit(c)
            if found:
                return found
        path.pop()
        return None

    found = visit(start)
    return found if found and start in found else None


def trust_base(lemma: Lemma, artifacts: Optional[Mapping[str, Mapping]] = None) -> Tuple[str, ...]:
    """Everything ``lemma`` rests on without proof, transitively through cited lemmas.

    Entries: fact ids (``bc.range``...), rules and tools (``rule.bayes``, ``tool.z3``...), and
    ``literature:<id>`` / ``disputed:<id>`` for lemmas taken from the literature or disputed.
    Computed from the artifacts' steps (``check_lemma`` verifies that they re-check).
    """
    out: Set[str] = set()
    seen: Set[str] = set()

    def visit(l: Lemma) -> None:
        if l.id in seen:
            return
        seen.add(l.id)
        art = artifact_of(l, artifacts) or {}
        if l.status != "proved":
            out.add(f"{l.status}:{l.id}")
        kinds = set()
        for s in art.get("steps", []):
            kind = s.get("kind")
            kinds.add(kind)
            if kind == "fact":
                out.add(str(s.get("fact")))
            elif kind == "bayes":
                out.add("rule.bayes")
            elif kind == "monotone":
                out.add("rule.mvt")
            elif kind == "integral_scale":
                out.add("rule.integral_linearity")
            elif kind == "lemma":
                try:
                    visit(registry.get(s["lemma"]))
                except KeyError:
                    out.add(f"missing:{s['lemma']}")
        if kinds & {"identity", "integral_scale", "positive", "bayes", "monotone"}:
            out.add("tool.sympy")
        if kinds & {"smt", "qed"} or any(s.get("rewrite") for s in art.get("steps", [])):
            out.add("tool.z3")
        if "enclosure" in kinds:
            out.add("tool.arb")

    visit(lemma)
    return tuple(sorted(out))


def check_library(lemmas: Optional[Iterable[Lemma]] = None,
                  artifacts: Optional[Mapping[str, Mapping]] = None) -> List[LemmaCheck]:
    """Check the given lemmas (default: ``registry.all_lemmas()``)."""
    todo = list(lemmas) if lemmas is not None else registry.all_lemmas()
    return [check_lemma(l, artifacts) for l in todo]


# --------------------------------------------------------------------------------------------
# artifacts on disk

def artifact_filename(lemma_id: str) -> str:
    """``dirichlet.hellinger.adjacent/k=3`` -> ``dirichlet.hellinger.adjacent@k=3.json``."""
    return lemma_id.replace("/", "@") + ".json"


def export_artifacts(directory: str, lemmas: Optional[Iterable[Lemma]] = None) -> List[str]:
    """Write each lemma's artifact to ``directory`` (one JSON file per lemma)."""
    os.makedirs(directory, exist_ok=True)
    paths = []
    for l in (lemmas if lemmas is not None else registry.all_lemmas()):
        path = os.path.join(directory, artifact_filename(l.id))
        with open(path, "w", encoding="utf-8") as fh:
            json.dump(l.artifact, fh, indent=1)
            fh.write("\n")
        paths.append(path)
    return paths


def load_artifacts(directory: str) -> Dict[str, Mapping]:
    """Read every ``*.json`` artifact of ``directory``, keyed by the lemma id inside it.

    A file that is not valid JSON, or whose name does not match its lemma id, is kept under
    the id its name implies, as the string ``"<unreadable: ...>"`` (the check then fails).
    """
    out: Dict[str, Mapping] = {}
    for name in sorted(os.listdir(directory)):
        if not name.endswith(".json"):
            continue
        implied = name[:-5].replace("@", "/")
        try:
            with open(os.path.join(directory, name), encoding="utf-8") as fh:
                art = json.load(fh)
        except (OSError, ValueError) as exc:
            out[implied] = f"<unreadable: {exc}>"  # type: ignore[assignment]
            continue
        out[implied] = art
    return out
