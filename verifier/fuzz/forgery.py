"""The certificate-mutation oracle: forgeries of certificates, judged against the verifier.

A certificate says which rule was applied where; the kernel (``checker.kernel``) derives from
the source what must be proved. So whatever a forger does to a certificate — edit its source
and recompute every hash and statement, relabel a rejected claim verified, change rules, drop,
duplicate or swap sub-derivations, graft another program's derivation, erase the positions the
kernel compares, change the solver's resource limit or the disputed flags — the kernel may
accept it only if its claims labelled verified are claims ``privinfer verify`` verifies on
that source. ``campaign`` mutates the certificates of the bundled programs and of random
programs of the fuzz generator, and reports, like the other oracles, the mutations tried, how
many the kernel accepted, and the failures:

* ``accepted``: the kernel accepted a claim labelled verified that the verifier does not
  verify on the certificate's source;
* ``crash``: the kernel's reason is an exception it did not foresee (``cannot check: ...``)
  rather than a named reason;
* ``incomplete``: the kernel refuses the *honest* certificate of a program (the verifier's
  proof is one the kernel's rules do not accept: not unsound, but the two disagree).

Every mutation is one step applied to an honest certificate, so a failure is minimal as found:
the report gives the mutation, the source and the certificate.
"""
from __future__ import annotations

import copy
import hashlib
import json
import random
import re
import time
from collections import Counter
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional, Tuple

from checker import kernel
from checker.certify import certificate, dumps
from obligations.records import field, record
from verifier.fuzz.case import on_a_large_stack, parse_and_type, program_seed, verify
from verifier.fuzz.generate import generate
from verifier.language.pretty import pretty_program, pretty_rtype

ROOT = Path(__file__).resolve().parent.parent.parent
BUNDLED = sorted((ROOT / "benchmarks" / "programs").glob("*/*.pinf")) + \
    sorted((ROOT / "tests" / "programs").glob("*.pinf"))
RULES = ("Abs", "LetRec-Induction", "LetRec-Induction-Eq", "LetRec-Induction-Acc", "Safety", "Budget", "BindM", "Let", "UnitM", "If", "If-Lift",
         "Match", "Match-Split", "EqualInputs", "Var", "Unfold", "App-Val", "Ran", "LapMech",
         "GaussMech", "ExpMech", "HellingerMech", "HellingerMechPure", "ObserveFold", "Observe",
         "ExactFinite", "Sub", "S-M", "Ran-DP", "LetRec")
MUTANTS_PER_PROGRAM = 10
KINDS = ("accepted", "crash", "incomplete")


@record
class Subject:
    """A program and its honest certificate."""

    name: str
    text: str
    cert: Dict[str, Any]


@record(frozen=False)
class ForgeryFailure:
    kind: str
    mutation: str
    subject: str
    text: str
    certificate: Dict[str, Any]
    message: str

    def to_json(self) -> Dict[str, Any]:
        return {"kind": self.kind, "mutation": self.mutation, "subject": self.subject,
                "message": self.message, "program": self.text}


@record(frozen=False)
class ForgeryReport:
    seed: int
    subjects: int = 0
    mutants: int = 0
    tried: Counter = field(default_factory=Counter)      # mutation -> mutants made
    accepted: Counter = field(default_factory=Counter)   # mutation -> accepted by the kernel
    judged: int = 0         # accepted mutants whose claims the verifier was asked about
    honest: int = 0         # honest certificates checked (all must be accepted)
    failures: List[ForgeryFailure] = field(default_factory=list)
    seconds: float = 0.0

    def to_json(self) -> Dict[str, Any]:
        return {"seed": self.seed, "subjects": self.subjects, "honest": self.honest,
                "mutants": self.mutants,
                "accepted": sum(self.accepted.values()), "judged": self.judged,
                "by_mutation": {m: {"tried": n, "accepted": self.accepted[m]}
                                for m, n in sorted(self.tried.items())},
                "failures": [f.to_json() for f in self.failures],
                "seconds": round(self.seconds, 2)}

    def render(self) -> str:
        lines = [f"privinfer fuzz --certificates: seed {self.seed}, {self.mutants} forged "
                 f"certificates of {self.subjects} programs in {self.seconds:.1f} s",
                 f"  honest certificates checked {self.honest} (each must be accepted)",
                 f"  accepted by the kernel {sum(self.accepted.values())}, each judged against "
                 f"privinfer verify on its source"]
        for m, n in sorted(self.tried.items()):
            lines.append(f"    {m:<34} {n:>6} tried, {self.accepted[m]:>5} accepted")
        if not self.failures:
            lines.append("  no failure")
        for f in self.failures:
            lines.append(f"  {f.kind} failure ({f.mutation}, {f.subject}): {f.message}")
        return "\n".join(lines)

    def write(self, out: str) -> None:
        folder = Path(out)
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "forgery.json").write_text(json.dumps(self.to_json(), indent=2) + "\n")
        for i, f in enumerate(self.failures, 1):
            sub = folder / f"forgery-{i:02d}-{f.kind}"
            sub.mkdir(exist_ok=True)
            (sub / "program.pinf").write_text(f.text)
            (sub / "certificate.json").write_text(dumps(f.certificate))
            (sub / "reason.txt").write_text(f"{f.mutation}: {f.message}\n")


# ---- subjects ----------------------------------------------------------------------------------

def subject_of(name: str, text: str) -> Optional[Subject]:
    """The program and its certificate, or None when it does not type or verify."""
    parsed = parse_and_type(text, name)
    if isinstance(parsed, str):
        return None
    report = verify(*parsed)
    if isinstance(report, str):
        return None
    return Subject(name, text, json.loads(dumps(certificate(report, text, name))))


def subjects(seed: int, rng: random.Random):
    """The bundled programs in a shuffled order, then generated programs, forever."""
    bundled = list(BUNDLED)
    rng.shuffle(bundled)
    for path in bundled:
        s = subject_of(str(path.relative_to(ROOT)), path.read_text())
        if s is not None:
            yield s
    index = 0
    while True:
        text = pretty_program(generate(program_seed(seed, index)).program())
        s = subject_of(f"generated-{index}.pinf", text)
        index += 1
        if s is not None:
            yield s


# ---- the mutations -------------------------------------------------------------------------------

def trees(cert) -> Dict[str, Optional[dict]]:
    """Each claim's derivation as a nested tree ``{rule, at, premises}``."""
    nodes = {n["id"]: n for n in cert["nodes"]}

    def build(nid):
        n = nodes[nid]
        return {"rule": n["rule"], "at": n["at"], "premises": [build(p) for p in n["premises"]]}
    return {c["name"]: build(c["root"]) if c["root"] else None for c in cert["claims"]}


def with_trees(cert, forest: Dict[str, Optional[dict]]) -> dict:
    """``cert`` with its derivations replaced by ``forest``, ids renumbered canonically (what a
    forger recomputes)."""
    cert = copy.deepcopy(cert)
    nodes: List[dict] = []
    for claim in cert["claims"]:
        tree = forest.get(claim["name"])
        if tree is None:
            claim["root"] = None
            continue
        counter = iter(range(1, 1 << 30))

        def add(t) -> str:
            nid = f"{claim['name']}/n{next(counter)}"
            entry = {"id": nid, "rule": t["rule"], "at": t["at"], "premises": []}
            nodes.append(entry)
            entry["premises"] = [add(p) for p in t["premises"]]
            return nid
        claim["root"] = add(tree)
    cert["nodes"] = nodes
    return cert


def all_nodes(tree) -> List[dict]:
    out, stack = [], [tree]
    while stack:
        t = stack.pop()
        out.append(t)
        stack += t["premises"]
    return out


def resign(cert, text: str) -> dict:
    """``cert`` with source ``text``, hash and statements recomputed."""
    cert = copy.deepcopy(cert)
    cert["source"]["text"] = text
    cert["source"]["sha256"] = hashlib.sha256(text.encode("utf-8")).hexdigest()
    parsed = parse_and_type(text)
    if not isinstance(parsed, str):
        for claim, val in zip(cert["claims"], parsed[0].vals()):
            claim["statement"] = f"{val.name} :: {pretty_rtype(val.rtype)}"
    return cert


def erase_positions(cert) -> dict:
    cert = copy.deepcopy(cert)
    for n in cert["nodes"]:
        n["at"] = None
    return cert


def upgrade(cert) -> dict:
    cert = copy.deepcopy(cert)
    for claim in cert["claims"]:
        if claim["root"] is not None:
            claim.update(verdict="verified", failure=None, code=None, confirmation=None)
    return cert


_NUMBER = re.compile(r"(?<![\w.])\d+(\.\d+)?(?![\w.])")
_OPERATOR = re.compile(r"(?<= )(\+|-|\*|/|<=|>=|<|>|&&|\|\|)(?= )")
_SWAP = {"+": "-", "-": "+", "*": "/", "/": "*", "<": ">", ">": "<", "<=": ">=", ">=": "<=",
         "&&": "||", "||": "&&"}
_NAME = re.compile(r"(?<![\w'])[a-z][A-Za-z0-9_']*")


def _body_start(text: str) -> int:
    """Where the code after the leading comments starts (edits there mean something)."""
    m = re.search(r"^(let|val) ", text, re.M)
    return m.start() if m else 0


def edit_number(text: str, rng) -> Optional[str]:
    start = _body_start(text)
    spots = [m for m in _NUMBER.finditer(text, start)]
    if not spots:
        return None
    m = rng.choice(spots)
    value = float(m.group(0))
    new = rng.choice([value * 10, value / 2, value + 1, 0.0, -value, value * 0.999])
    literal = repr(float(new)) if "." in m.group(0) else str(int(new))
    return text[:m.start()] + literal + text[m.end():]


def edit_operator(text: str, rng) -> Optional[str]:
    spots = list(_OPERATOR.finditer(text, _body_start(text)))
    if not spots:
        return None
    m = rng.choice(spots)
    return text[:m.start()] + _SWAP[m.group(0)] + text[m.end():]


def edit_name(text: str, rng) -> Optional[str]:
    start = _body_start(text)
    spots = [m for m in _NAME.finditer(text, start)
             if m.group(0) not in ("let", "in", "val", "rec", "match", "with", "if", "then",
                                   "else", "fun", "mlet", "return", "true", "false", "observe",
                                   "infer", "ran")]
    if len(spots) < 2:
        return None
    m = rng.choice(spots)
    other = rng.choice([s.group(0) for s in spots if s.group(0) != m.group(0)] or [m.group(0)])
    return text[:m.start()] + other + text[m.end():]


def edit_line(text: str, rng) -> Optional[str]:
    lines = text.split("\n")
    code = [i for i, l in enumerate(lines) if l.strip() and not l.lstrip().startswith("(*")
            and i >= text[:_body_start(text)].count("\n")]
    if len(code) < 2:
        return None
    i = rng.choice(code)
    if rng.random() < 0.5:
        del lines[i]
    else:
        lines.insert(i, lines[i])
    return "\n".join(lines)


def source_mutation(edit: Callable) -> Callable:
    def mutate(s: Subject, rng, pool) -> Optional[Tuple[dict, str]]:
        text = edit(s.text, rng)
        if text is None or text == s.text:
            return None
        cert = resign(s.cert, text)
        if rng.random() < 0.5:
            cert = erase_positions(cert)
        return upgrade(cert) if rng.random() < 0.5 else cert, text
    return mutate


def carried_over(s: Subject, rng, pool) -> Optional[Tuple[dict, str]]:
    """The certificate of ``s`` with the source of another program with the same claims."""
    names = [c["name"] for c in s.cert["claims"]]
    donors = [d for d in pool if d.text != s.text and [c["name"] for c in d.cert["claims"]] == names]
    if not donors:
        return None
    donor = rng.choice(donors)
    return upgrade(erase_positions(resign(s.cert, donor.text))), donor.text


def grafted(s: Subject, rng, pool) -> Optional[Tuple[dict, str]]:
    """A claim's derivation replaced by another program's (positions erased)."""
    forest = trees(s.cert)
    names = [n for n, t in forest.items() if t is not None] or list(forest)
    others = [t for d in pool for t in trees(d.cert).values() if t is not None]
    if not names or not others:
        return None
    forest[rng.choice(names)] = copy.deepcopy(rng.choice(others))
    return upgrade(erase_positions(with_trees(s.cert, forest))), s.text


def tree_mutation(change: Callable) -> Callable:
    def mutate(s: Subject, rng, pool) -> Optional[Tuple[dict, str]]:
        forest = trees(s.cert)
        names = [n for n, t in forest.items() if t is not None]
        if not names:
            return None
        tree = forest[rng.choice(names)]
        if not change(tree, rng):
            return None
        cert = with_trees(s.cert, forest)
        return (upgrade(cert) if rng.random() < 0.5 else cert), s.text
    return mutate


def _rule(tree, rng) -> bool:
    node = rng.choice(all_nodes(tree))
    node["rule"] = rng.choice([r for r in RULES if r != node["rule"]])
    return True


def _drop(tree, rng) -> bool:
    parents = [n for n in all_nodes(tree) if n["premises"]]
    if not parents:
        return False
    node = rng.choice(parents)
    node["premises"].pop(rng.randrange(len(node["premises"])))
    return True


def _duplicate(tree, rng) -> bool:
    parents = [n for n in all_nodes(tree) if n["premises"]]
    if not parents:
        return False
    node = rng.choice(parents)
    node["premises"].insert(0, copy.deepcopy(rng.choice(node["premises"])))
    return True


def _swap(tree, rng) -> bool:
    nodes = all_nodes(tree)[1:]
    if len(nodes) < 2:
        return False
    a, b = rng.sample(nodes, 2)
    a_copy = copy.deepcopy(a)
    a.clear()
    a.update(copy.deepcopy(b))
    b.clear()
    b.update(a_copy)
    return True


def _premises_reversed(tree, rng) -> bool:
    parents = [n for n in all_nodes(tree) if len(n["premises"]) > 1]
    if not parents:
        return False
    rng.choice(parents)["premises"].reverse()
    return True


def relabelled(s: Subject, rng, pool) -> Optional[Tuple[dict, str]]:
    if all(c["verdict"] == "verified" or c["root"] is None for c in s.cert["claims"]):
        return None
    return upgrade(s.cert), s.text


def claim_fields(s: Subject, rng, pool) -> Optional[Tuple[dict, str]]:
    cert = copy.deepcopy(s.cert)
    claim = rng.choice(cert["claims"])
    what = rng.choice(["disputed", "rlimit", "positions", "statement"])
    if what == "disputed":
        claim["disputed"] = [] if claim["disputed"] else ["mech.hellinger.poster_corrected"]
    elif what == "rlimit":
        cert["solver"]["rlimit"] = rng.choice([1, 10, 10 ** 12])
    elif what == "positions":
        cert = erase_positions(cert)
    else:
        claim["statement"] = claim["statement"].replace("|", "| true /\\", 1)
    return cert, s.text


def unsigned(s: Subject, rng, pool) -> Optional[Tuple[dict, str]]:
    """A source edit whose hash is not recomputed."""
    text = edit_number(s.text, rng)
    if text is None or text == s.text:
        return None
    cert = copy.deepcopy(s.cert)
    cert["source"]["text"] = text
    return cert, text


MUTATIONS: Dict[str, Callable] = {
    "source: a number changed": source_mutation(edit_number),
    "source: an operator changed": source_mutation(edit_operator),
    "source: a name changed": source_mutation(edit_name),
    "source: a line deleted or doubled": source_mutation(edit_line),
    "source: another program's": carried_over,
    "source: edited, hash not recomputed": unsigned,
    "derivation: a rule changed": tree_mutation(_rule),
    "derivation: a premise dropped": tree_mutation(_drop),
    "derivation: a premise doubled": tree_mutation(_duplicate),
    "derivation: two sub-derivations swapped": tree_mutation(_swap),
    "derivation: premises reversed": tree_mutation(_premises_reversed),
    "derivation: another program's grafted": grafted,
    "claims: rejected relabelled verified": relabelled,
    "claims: flags, limits, positions": claim_fields,
}


# ---- the campaign --------------------------------------------------------------------------------

def campaign(seed: int = 0, count: Optional[int] = 200, seconds: Optional[float] = None,
             progress: Optional[Callable[[ForgeryReport], None]] = None) -> ForgeryReport:
    """Forge ``count`` certificates (or for ``seconds``), ``MUTANTS_PER_PROGRAM`` per program,
    and judge every one the kernel accepts."""
    return on_a_large_stack(lambda: _campaign(seed, count, seconds, progress))


def _campaign(seed, count, seconds, progress) -> ForgeryReport:
    rng = random.Random(seed ^ 0xF0E6)
    report = ForgeryReport(seed)
    start = time.perf_counter()
    pool: List[Subject] = []
    verdicts: Dict[str, Optional[Dict[str, str]]] = {}

    def more() -> bool:
        return (count is None or report.mutants < count) and \
            (seconds is None or time.perf_counter() - start < seconds)

    for s in subjects(seed, rng):
        if not more():
            break
        pool.append(s)
        report.subjects += 1
        verdicts[s.text] = {c["name"]: c["verdict"] for c in s.cert["claims"]}
        honest = kernel.check(s.cert)
        report.honest += 1
        if not honest.valid:
            report.failures.append(ForgeryFailure("incomplete", "none (honest)", s.name, s.text,
                                                  s.cert, honest.reason))
        for _ in range(MUTANTS_PER_PROGRAM):
            if not more():
                break
            name = rng.choice(sorted(MUTATIONS))
            made = MUTATIONS[name](s, rng, pool)
            if made is None:
                continue
            forged, text = made
            report.mutants += 1
            report.tried[name] += 1
            judge(report, name, s, forged, text, verdicts)
        if progress is not None:
            progress(report)
    report.seconds = time.perf_counter() - start
    return report


def judge(report: ForgeryReport, mutation: str, s: Subject, forged: dict, text: str,
          verdicts: Dict[str, Optional[Dict[str, str]]]) -> None:
    """Check ``forged``; if the kernel accepts it, every claim it labels verified must be one
    the verifier verifies on ``text``."""
    outcome = kernel.check(forged)
    if not outcome.valid:
        if outcome.reason.startswith("cannot check:"):
            report.failures.append(ForgeryFailure("crash", mutation, s.name, text, forged,
                                                  outcome.reason))
        return
    report.accepted[mutation] += 1
    claimed = [c["name"] for c in outcome.claims if c["verdict"] == "verified"]
    if not claimed:
        return
    if text not in verdicts:
        parsed = parse_and_type(text)
        report_ = None if isinstance(parsed, str) else verify(*parsed)
        verdicts[text] = None if report_ is None or isinstance(report_, str) else \
            {c.name: c.verdict for c in report_.claims}
    report.judged += 1
    honest = verdicts[text] or {}
    wrong = [n for n in claimed if honest.get(n) != "verified"]
    if wrong:
        report.failures.append(ForgeryFailure(
            "accepted", mutation, s.name, text, forged,
            f"the kernel accepts {', '.join(wrong)} as verified; privinfer verify says "
            f"{', '.join(str(honest.get(n, 'no such claim')) for n in wrong)}"))


__all__ = ["campaign", "ForgeryReport", "ForgeryFailure", "MUTATIONS"]
