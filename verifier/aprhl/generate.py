"""Random while-programs for ``privinfer fuzz --while`` (docs/aprhl.md, "Testing the
derivations against the semantics"): new programs, not mutants of the suite's.

``random_program(rng)`` writes one procedure over a private list ``d`` (adjacency ``adj``,
``adjWithin`` or ``allWithin``), a public ``eps`` and a public threshold ``t``: loops over ``d``
that sum its values, draw ``Lap`` noise of scale ``k / eps`` around a value or a running sum,
collect noisy values in a list, count or select by comparing noisy values (branches on noise
and on counters), draws after the loops, and a claim ``(m * eps, 0)`` with ``==> =``. Many are
not private or not provable: the oracle only asks that whatever verifies keeps its coupling on
concrete runs (``coupled.violations``).
"""
from __future__ import annotations

import random
from typing import List

PRE = ["adjWithin (d<1>, d<2>, 1)", "allWithin (d<1>, d<2>, 1)", "adj (d<1>, d<2>)"]
SCALES = ["1", "2", "4", "1 / 2"]
CLAIMS = ["eps", "2 * eps", "eps / 2", "3 * eps", "0"]


def _loop_body(rng: random.Random, depth: int) -> List[str]:
    z = f"z{depth}"
    scale = rng.choice(SCALES)
    body = [rng.choice([f"s := s + d[i]", f"s := s + 1", "skip"])]
    body.append(f"{z} := $ Lap ({scale} / eps, {rng.choice(['d[i]', 's', '0', 'd[i] + s'])})")
    for _ in range(rng.randint(1, 3)):
        body.append(rng.choice([
            f"r := r ++ [{z}]",
            f"if {z} >= t then c := c + 1 end",
            f"if {z} > t && best = -1 then best := i end",
            f"if i = 0 || {z} > bv then best := i; bv := {z} end",
            f"s := s + {z}",
            f"if d[i] > t then c := c + 1 end",
        ]))
    return body


def random_program(rng: random.Random) -> str:
    pre = rng.choice(PRE) + (" /\\ eps >= 1 / 1000" if rng.random() < 0.7 else "")
    lines = ["i := 0", "s := 0", "c := 0", "best := -1", "bv := 0", "r := []"]
    if rng.random() < 0.5:
        lines.append(f"t2 := $ Lap ({rng.choice(SCALES)} / eps, t)")
    for depth in range(rng.randint(1, 2)):
        lines.append("i := 0")
        body = _loop_body(rng, depth)
        lines.append("while i < size d do\n    " + ";\n    ".join(body + ["i := i + 1"]) +
                     "\n  end")
    if rng.random() < 0.4:
        lines.append(f"w := $ Lap ({rng.choice(SCALES)} / eps, {rng.choice(['s', 'c', 't'])})")
        lines.append(rng.choice(["if w > t then c := c + 1 end", "s := s + w"]))
    result, rtype = rng.choice([("best", "int"), ("c", "int"), ("s", "real"), ("r", "real list"),
                                ("bv", "real")])
    text = (f"proc G (d : real list) (pub t : real) (pub eps : real+) : {rtype}\n"
            f"  |- ({rng.choice(CLAIMS)}, 0) : {pre} ==> =\n  " + ";\n  ".join(lines) +
            f";\n  return {result}\nend\n")
    if "t2" in text and rng.random() < 0.7:
        text = text.replace(">= t then", ">= t2 then").replace("> t &&", "> t2 &&")
    return text
