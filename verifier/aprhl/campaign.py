"""The replay oracle's campaign over while-programs (``privinfer fuzz --while``): mutants of
the suite's programs and new random ones, each verified; every verified procedure replayed on
random input pairs under its coupling (``verifier.aprhl.coupled``), where a violation is a
soundness bug of the derivation."""
from __future__ import annotations

import multiprocessing
import random
from concurrent.futures import ProcessPoolExecutor
from typing import Any, Dict, Iterator, List, Tuple

from verifier.aprhl.coupled import coupled_run, random_inputs, violations
from verifier.aprhl.generate import random_program
from verifier.aprhl.verify import verify_proc
from verifier.errors import PrivInferError
from verifier.language import whilelang as W
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
                                    chunksize=4))
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
        rep = None if p.spec is None else verify_proc(p, types[p.name], refute=False)
        if rep is None or rep.verdict != "verified":
            continue
        out["verified"] += 1
        prng = random.Random(k)
        for t in range(pairs):
            pair = random_inputs(p, prng, tries=50)
            if pair is None:
                break
            try:
                seen = coupled_run(p, types[p.name], *pair, seeded_source(t), rep.shifts,
                                   onesided=rep.pointwise or rep.onesided)
            except NotImplementedError:
                break
            out["replays"] += 1
            bad = violations(p, seen)
            if bad:
                out["failures"].append({"program": text, "proc": p.name, "violations": bad,
                                        "inputs": [str(x) for x in pair]})
                break
    return out


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
