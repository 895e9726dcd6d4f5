"""Red-team round 7: forged apRHL certificates (loop hints copied to another loop, a loop's
hints recorded twice, the one-sided flag on a branch that samples, the source edited under
its hints). Each starts from an honest certificate written by the verifier and edits its JSON
so that it claims something false; ``FORGERIES`` names them, ``forge(name)`` returns (the
forged certificate, why its claim is false), and ``python forge.py`` prints the kernel's
answer for each (every one must be refused).

* ``second_loop_hints_copied``: w15 (two histogram loops over one list, refuted: loss 2 eps)
  relabelled verified, the second loop given the first loop's hints renamed to its head.
* ``duplicate_loop_hint``: parallel_composition's Histogram with a second hint for its loop
  (invariant ``true``, the honest variant) after the honest one.
* ``onesided_sampling_branch``: w03 (a release on one side of a private if: infinite loss)
  relabelled verified with the one-sided flag.
* ``source_doubled_hints_kept``: Histogram's source edited to release ``2 * h[i]`` (loss 2 eps
  at eps), its hints kept, its costs re-derived by the kernel's own rules.
"""
from __future__ import annotations

import copy
import importlib.util
import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

_spec = importlib.util.spec_from_file_location(
    "redteam5_forge", ROOT / "tests" / "redteam5_attacks" / "forge.py")
R5 = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(R5)

APRHL = ROOT / "benchmarks" / "programs" / "aprhl"


def _rename(obj, pairs):
    text = json.dumps(obj)
    for old, new in pairs:
        text = text.replace(old, new)
    return json.loads(text)


def second_loop_hints_copied():
    path = HERE / "w15_two_loops_same_position.pwhile"
    cert = R5._honest_while(path)
    claim = cert["claims"][0]
    R5._verified(claim, R5._wording(cert, claim))
    honest = R5._honest_while(APRHL / "parallel_composition.pwhile")["claims"][0]["loops"][0]
    first = _rename(honest, [("'14h3", "'7h3")])
    first.update(line=7, col=3)
    second = _rename(honest, [("\"i'14h3\"", "\"j'13h3\""), ("'14h3", "'13h3")])
    second.update(line=13, col=3)
    claim["loops"] = [first, second]
    return R5._rederive(cert, claim), "w15: the differing entry is released twice (loss 2 eps)"


def duplicate_loop_hint():
    cert = R5._honest_while(APRHL / "parallel_composition.pwhile")
    claim = cert["claims"][0]
    extra = copy.deepcopy(claim["loops"][0])
    extra["invariants"] = R5._terms_json([R5.T.boolean(True)])
    claim["loops"].append(extra)
    return cert, "(a true claim; the loop's second hint proves nothing of the cost)"


def onesided_sampling_branch():
    cert = R5._honest_while(HERE / "w03_release_one_branch.pwhile")
    claim = cert["claims"][0]
    R5._verified(claim, R5._wording(cert, claim))
    claim["onesided"] = True
    return R5._rederive(cert, claim), "w03: 5 in one run only (infinite loss)"


def source_doubled_hints_kept():
    cert = R5._honest_while(APRHL / "parallel_composition.pwhile")
    text = cert["source"]["text"].replace("Lap (1 / eps, h[i])", "Lap (1 / eps, 2 * h[i])")
    assert text != cert["source"]["text"]
    cert["source"]["text"] = text
    claim = cert["claims"][0]
    return R5._rederive(cert, claim), "2 h[i] moves by 2 at scale 1 / eps: loss 2 eps"


FORGERIES = {f.__name__: f for f in (
    second_loop_hints_copied, duplicate_loop_hint, onesided_sampling_branch,
    source_doubled_hints_kept)}


def forge(name: str):
    return FORGERIES[name]()


def check(cert: dict):
    return R5.check(cert)


if __name__ == "__main__":
    for name, make in FORGERIES.items():
        cert, why = make()
        valid, reason = check(cert)
        print(f"{name}: {'VALID (forgery accepted!)' if valid else 'refused'}: {reason}")
