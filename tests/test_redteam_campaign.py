"""The red-team campaign's most instructive attacks (the full list: the campaign's summary).

Each program is not differentially private (or its claim is false); the comment beside it
names the two adjacent inputs and the output event that break the claim. The verifier must
not say "verified" of any of them, and the kernel must refuse the forged certificates below.

Classes found and fixed by the campaign:

1. **A while-program's guarantee was "(eps, delta)-DP" whatever its output relation.** The
   apRHL judgement ``|- (eps, 0) : P ==> Q`` is differential privacy of the output only when
   ``Q`` is ``=``; with ``Q`` = ``true``, or a relation of another variable, it holds of a
   procedure that returns its private list, and both the verifier and the kernel printed and
   accepted the guarantee "(eps, 0)-DP". The guarantee now names the judgement
   (``whilelang.spec_guarantee``), and the kernel refuses a certificate that records DP.
"""
from __future__ import annotations

import json

import pytest

from checker import aprhl as aprhl_kernel
from checker.aprhl_certify import certificate as aprhl_certificate
from verifier.aprhl.commands import verify_file
from verifier.language import whilelang as W


def _while_reports(tmp_path, text):
    path = tmp_path / "attack.pwhile"
    path.write_text(text)
    reports, _ = verify_file(str(path))
    prog = W.parse_while_file(str(path))
    return reports, json.loads(json.dumps(aprhl_certificate(prog, reports, str(path))))


# ---- 1. output relations that are not equality ---------------------------------------------

NOT_EQUALITY = {
    # returns d itself; Q = true holds of every pair of runs: d<1> = [0.0] vs d<2> = [1.0]
    # are told apart by the output event {[0.0]} (probability 1 vs 0)
    "true": """proc P (d : real list) (pub eps : real+) : real list
  |- (eps, 0) : adj (d<1>, d<2>) ==> true
  return d
end
""",
    # Q speaks of the noisy z, the output is d: the same pair breaks DP of the output
    "other_variable": """proc P (d : real list) (pub eps : real+) : real list
  |- (eps, 0) : adj (d<1>, d<2>) ==> z<1> = z<2>
  z := $ Lap (1 / eps, 0);
  return d
end
""",
    # a shifted output relation: result<2> = result<1> + 1 at cost 0, the exact value of y
    # released: y<1> = 0, y<2> = 1 give disjoint outputs
    "shifted": """proc P (y : real) (pub eps : real+) : real
  |- (0, 0) : y<2> = y<1> + 1 ==> result<2> = result<1> + 1
  return y
end
""",
}


@pytest.mark.parametrize("name", sorted(NOT_EQUALITY))
def test_a_judgement_without_equal_outputs_is_no_privacy_guarantee(tmp_path, name):
    reports, cert = _while_reports(tmp_path, NOT_EQUALITY[name])
    [r] = reports
    assert "-DP" not in r.guarantee and "not differential privacy" in r.guarantee
    assert aprhl_kernel.check(cert).valid
    claim = cert["claims"][0]
    spec = W.parse_while(NOT_EQUALITY[name], "a.pwhile").procs[0].spec
    claim["guarantee"] = f"({W.pretty_expr(spec.eps)}, 0)-DP"  # the forged guarantee
    outcome = aprhl_kernel.check(cert)
    assert not outcome.valid and "guarantee" in outcome.reason
