"""The replay oracle's campaign over while-programs (``privinfer fuzz --while``): mutants of
the suite's programs and new random ones, each verified; every verified procedure replayed on
random input pairs under its coupling (``verifier.aprhl.coupled``), where a violation is a
soundness bug of the derivation."""
from __future__ import annotations

import multiprocessing
import random
from concurrent.futures import ProcessPoolExecutor
from fractions import Fraction
from typing import Any, Dict, Iterator, List, NamedTuple, Tuple

from obligations.records import fields
from obligations.smtlib import Z3Session
from verifier.aprhl.coupled import coupled_run, random_inputs, violations
from verifier.aprhl.generate import random_program
from verifier.aprhl.verify import verify_proc
from verifier.errors import PrivInferError
from verifier.language import whilelang as W
from verifier.language.ast import Span
from verifier.semantics.noise import seeded_source


#: the pieces a mutation inserts (tokens of the while-language and names of the suite)
PIECES = [" ", ";", ":=", "$", "Lap", "(", ")", "[", "]", "while", "do", "end", "if", "then",
          "else", "d", "i", "s", "0", "1", "2", "1.5", "/", "*", "+", "-", "++", "[]", "size",
          "skip", "<", "<=", "=", "eps", "n"]


def fuzz(texts: List[str], count: int, seed: int, pairs: int = 20, generated: float = 0.25,
         workers: int = 1) -> Dict[str, Any]:
    """``count`` programs: with probability ``generated`` a new random program
    (``verifier.aprhl.generate``), otherwise a mutant of one of ``texts``; verify each; replay
    every verified procedure on ``pairs`` random input pairs under its coupling. A violation is
    a soundness bug of the derivation (module docstring). The programs are drawn first, from
    ``seed`` alone, and then checked by ``workers`` processes: the counts and the failures do
    not depend on ``workers``. Returns the counts and the failures."""
    programs = list(_programs(texts, count, seed, generated))
    stats = {"mutants": sum(1 for _, _, m in programs if m), "generated": 0, "well_typed": 0,
             "verified": 0, "replays": 0, "failures": []}
    stats["generated"] = len(programs) - stats["mutants"]
    if workers > 1 and len(programs) > 1:
        context = multiprocessing.get_context("fork")
        with ProcessPoolExecutor(workers, mp_context=context) as pool:
            checked = list(pool.map(check_program, [k for k, _, _ in programs],
                                    [t for _, t, _ in programs], [pairs] * len(programs),
                                    chunksize=1))
    else:
        checked = [check_program(k, text, pairs) for k, text, _ in programs]
    for one in checked:
        for key in ("well_typed", "verified", "replays"):
            stats[key] += one[key]
        stats["failures"] += one["failures"]
    return stats


def _programs(texts: List[str], count: int, seed: int, generated: float
              ) -> Iterator[Tuple[int, str, bool]]:
    """``(k, text, is_mutant)`` for the campaign's ``count`` programs."""
    rng = random.Random(seed)
    for k in range(count):
        if rng.random() < generated:
            yield k, random_program(rng), False
        else:
            yield k, _mutant(rng, rng.choice(texts), PIECES), True


def check_program(k: int, text: str, pairs: int) -> Dict[str, Any]:
    """Program ``k`` of a campaign: parsed, typed, each claim verified (without the search for
    a refutation), and each verified procedure replayed on ``pairs`` input pairs (drawn from
    ``k``) under its coupling. Returns its counts and failures (``fuzz``)."""
    out: Dict[str, Any] = {"well_typed": 0, "verified": 0, "replays": 0, "failures": []}
    try:
        prog = W.parse_while(text, f"mutant{k}.pwhile")
        types = W.check_program(prog)
    except PrivInferError:
        return out
    out["well_typed"] = 1
    for p in prog.procs:
        verdict = None if p.spec is None else verdict_once(p, types[p.name])
        if verdict is None or not verdict.verified:
            continue
        out["verified"] += 1
        prng = random.Random(k)
        for t in range(pairs):
            pair = random_inputs(p, prng, tries=50)
            if pair is None:
                break
            try:
                seen = coupled_run(p, types[p.name], *pair, seeded_source(t), verdict.shifts,
                                   onesided=verdict.onesided)
            except NotImplementedError:
                break
            out["replays"] += 1
            bad = violations(p, seen)
            if bad:
                out["failures"].append({"program": text, "proc": p.name, "violations": bad,
                                        "inputs": [str(x) for x in pair]})
                break
    return out


class Verdict(NamedTuple):
    """What the campaign reads of a claim's report (``verify_proc``): whether it is verified,
    the shifts found by the search and whether the replay runs the deterministic ifs
    one-sided (the Pointwise rule or the one-sided Cond rules)."""
    verified: bool
    shifts: Dict
    onesided: bool


#: ``verdict_once``'s answers, by the procedure's content; bounded (a campaign of many
#: programs must not grow without end): emptied when full
_VERDICTS: Dict[Tuple, Verdict] = {}
MAX_VERDICTS = 4_000


def verdict_once(proc: W.Proc, types: W.ProcTypes) -> Verdict:
    """The verdict of ``verify_proc(proc, types, refute=False)``, computed once per process
    for each procedure content. Most well-typed mutants of the suite's programs are mutated
    in a comment and leave the procedure as the suite has it: a campaign meets the same
    procedure many times. The key is everything the verdict depends on: the whole syntax
    tree with the position of every node (the derivation names its shift and loop-head
    variables by line and column, so a procedure moved by a line is another key), and the
    types. The file name alone is left out: it enters only messages. ``verify_proc`` runs in
    a fresh z3 session and reads nothing else, so the answer is what it would compute again.
    The session remembers the re-checks of unsat cores (``Z3Session.remember_rechecks``):
    the campaign reports no core."""
    key = (content_key(proc), tuple(types.vars.items()), types.params)
    if key not in _VERDICTS:
        if len(_VERDICTS) >= MAX_VERDICTS:
            _VERDICTS.clear()
        rep = verify_proc(proc, types, Z3Session(remember_rechecks=True), refute=False)
        _VERDICTS[key] = Verdict(rep.verdict == "verified", dict(rep.shifts),
                                 rep.pointwise or rep.onesided)
    return _VERDICTS[key]


def content_key(node: Any) -> Any:
    """A hashable value equal for two syntax trees exactly when they have the same class,
    fields and values at every node, positions (every field of a ``Span`` but its file)
    included, unlike the trees' own equality, which ignores positions."""
    if isinstance(node, Span):
        return ("Span", node.line, node.col, node.end_line, node.end_col)
    if hasattr(node, "__record_fields__"):
        return (type(node).__name__,) + tuple(content_key(getattr(node, f.name))
                                              for f in fields(node))
    if isinstance(node, (tuple, list)):
        return (type(node).__name__,) + tuple(content_key(x) for x in node)
    if node is None or isinstance(node, (str, int, float, Fraction)):
        return (type(node).__name__, node)
    raise TypeError(f"no content key for {type(node).__name__}")


def _mutant(rng: random.Random, text: str, pieces: List[str]) -> str:
    for _ in range(rng.randint(1, 3)):
        at = rng.randrange(len(text))
        op = rng.randrange(3)
        if op == 0:
            text = text[:at] + text[at + rng.randint(1, 6):]
        elif op == 1:
            text = text[:at] + " " + rng.choice(pieces) + " " + text[at:]
        else:
            j = rng.randrange(len(text))
            text = text[:at] + text[j:j + rng.randint(1, 12)] + text[at:]
    return text


if __name__ == "__main__":  # python -m verifier.aprhl.campaign COUNT SEED
    import json
    import sys
    from pathlib import Path
    root = Path(__file__).resolve().parents[2] / "benchmarks" / "programs" / "aprhl"
    texts = [p.read_text() for p in sorted(root.rglob("*.pwhile"))]
    result = fuzz(texts, int(sys.argv[1]), int(sys.argv[2]))
    print(json.dumps({k: (v if k != "failures" else v[:5]) for k, v in result.items()}, indent=1))
    print(f"{len(result['failures'])} failures")
