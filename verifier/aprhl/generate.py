"""Random while-programs for ``privinfer fuzz --while`` (docs/aprhl.md, "Testing the
derivations against the semantics"): new programs, not mutants of the suite's.

``random_program(rng)`` writes one procedure over a private list ``d`` (adjacency ``adj``,
``adjWithin`` or ``allWithin``), a public ``eps`` and a public threshold ``t``: loops over ``d``
that sum its values, draw ``Lap`` noise of scale ``k / eps`` around a value or a running sum,
collect noisy values in a list, count or select by comparing noisy values (branches on noise
and on counters), draws after the loops, and a claim ``(m * eps, 0)`` with ``==> =``. Many are
not private or not provable: the oracle only asks that whatever verifies keeps its coupling on
concrete runs (``coupled.violations``). ``random_svt`` writes the sparse vector technique's
shapes (a noisy comparison per query, coupled per branch by Lap-Case, its gap sometimes
computed before the ``if``; real or integer answers), three times in ten.
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
    body = [rng.choice(["s := s + d[i]", "s := s + 1", "skip"])]
    body.append(f"{z} := $ Lap ({scale} / eps, {rng.choice(['d[i]', 's', '0', 'd[i] + s'])})")
    for _ in range(rng.randint(1, 3)):
        body.append(rng.choice([
            f"r := r ++ [{z}]",
            f"if {z} >= t then c := c + 1 end",
            f"if {z} > t && best = -1 then best := i end",
            f"if i = 0 || {z} > bv then best := i; bv := {z} end",
            f"s := s + {z}",
            "if d[i] > t then c := c + 1 end",
        ]))
    return body


def random_svt(rng: random.Random) -> str:
    """A sparse-vector-like procedure (the Lap-Case shapes): a threshold noised or not (around
    ``t``, or around 0 and added), a noisy comparison per query in one of its spellings
    (``x >= th``, ``th <= x``, ``th - x <= 0``, the branches swapped, ``not``), the answers
    above counted up, down, by a done flag, by a stop variable (``found < 0`` in the guard, set
    on an answer above) or not at all, and released as booleans, 0/1, gaps
    or noisy values, at a claim ``(m * eps, 0)``. Scales and claims are drawn independently:
    many are not private."""
    lines = []
    kind = rng.randrange(3)
    if kind == 0:
        lines.append(f"th := $ Lap ({rng.choice(SCALES)} / eps, t)")
    elif kind == 1:
        lines += [f"n0 := $ Lap ({rng.choice(SCALES)} / eps, 0)", "th := t + n0"]
    else:
        lines.append("th := t")
    count = rng.choice(["up", "down", "flag", "none", "stop"])
    lines += ["i := 0", "out := []", "cnt := 0" if count != "down" else "cnt := 2",
              "done := false", "found := 0 - 1"]
    guard = {"up": "i < size d && cnt < 2", "down": "i < size d && cnt > 0",
             "flag": "i < size d && not done", "none": "i < size d",
             "stop": "i < size d && found < 0"}[count]
    step = "cnt := cnt - 1" if count == "down" else "cnt := cnt + 1"
    if count == "flag":
        step += "; if cnt = 2 then done := true end"
    if count == "stop":   # AboveThreshold's stop at the first answer above (or, wrongly, later)
        step = rng.choice(["found := i", "found := i - 1", "found := i; cnt := cnt + 1"])
    scale = f"{rng.choice(['2', '4', '8'])} / eps"
    if rng.random() < 0.5:
        draw, x = f"x := $ Lap ({scale}, d[i])", "x"
    else:
        draw, x = f"eta := $ Lap ({scale}, 0)", "d[i] + eta"
    out, rtype = rng.choice([("true", "bool list"), ("1", "int list"), (f"{x} - th", "real list"),
                             (x, "real list")])
    below = {"bool list": "false", "int list": "0"}.get(rtype, "0")
    above = [f"out := out ++ [{out}]", step]
    other = [f"out := out ++ [{below}]"]
    cond = rng.choice([f"{x} >= th", f"th <= {x}", f"th - ({x}) <= 0"])
    before = []
    if rng.random() < 0.2:   # the gap computed before the if (Lap-Case past an assignment)
        before, cond = [f"g := {x} - th"], "g >= 0"
    if rng.random() < 0.5:
        then, else_ = above, other
    else:
        cond = rng.choice([f"not ({cond})", f"{x} < th" if not before else "g < 0"])
        then, else_ = other, above
    body = [draw] + before + [f"if {cond} then\n      " + ";\n      ".join(then) +
                              "\n    else\n      " + ";\n      ".join(else_) + "\n    end",
                              "i := i + 1"]
    lines.append(f"while {guard} do\n    " + ";\n    ".join(body) + "\n  end")
    # integer answers (counting queries): noise added to them later moves by integers
    elem = rng.choice(["real", "real", "int"])
    return (f"proc S (d : {elem} list) (pub t : real) (pub eps : real+) : {rtype}\n"
            f"  |- ({rng.choice(CLAIMS)}, 0) : allWithin (d<1>, d<2>, 1) /\\ eps >= 1 / 1000 ==> =\n  "
            + ";\n  ".join(lines) + ";\n  return out\nend\n")


def random_program(rng: random.Random) -> str:
    if rng.random() < 0.3:
        return random_svt(rng)
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
