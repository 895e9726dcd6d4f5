"""Red-team round 5: forged certificates. Each forgery starts from an honest certificate
(written by the verifier) and edits its JSON so that it claims something false; ``FORGERIES``
names them, ``forge(name)`` returns (the forged certificate, why its claim is false), and
``python forge.py`` prints the kernel's answer for each (every one must be refused).

apRHL kernel (``checker/aprhl.py``):

* ``onesided_streak``: w03_onesided_reset.pwhile (false: a reset makes c move by 2) relabelled
  verified, ``onesided`` set, and the effect-sum invariant of count_positive_branch written for
  its loop (it holds on entry; the reset does not preserve it), the obligations the kernel
  derives from those hints recorded.
* ``onesided_flag_dropped``: count_positive_branch (true) with ``onesided`` cleared: the
  synchronised derivation must then fail (a guard on private data), not pass on the recorded
  invariants.
* ``source_halved``: count_positive_branch's source edited to claim (eps / 2, 0): false (the
  count moves by 1 at scale 1 / eps: loss eps at [1] vs [0]); hints and obligations kept.
* ``case_shift_without_if``: noise_too_small-like source (Lap (1 / eps) around 2 * sum) with a
  Lap-Case shift pair (then: 0, else: 0) recorded for a Lap that no if follows.
* ``pointwise_real_output``: the same source with ``pointwise`` set (its output is real).
* ``shift_names_output_value``: a shift hint naming ``result'v`` without the pointwise rule.
* ``variant_constant``: count_positive_branch's variant replaced by the constant 1 (positive,
  never decreasing).

Functional kernel (``checker/kernel.py``):

* ``fun_source_swapped``: higher_order_lipschitz's certificate with ``half`` changed to
  ``x * 2.0`` (false: half is no longer 1-Lipschitz; mainHalf releases 2 count l at eps), the
  SHA-256 recomputed, the derivation kept.
* ``fun_refuted_relabelled``: a refuted claim (j01) relabelled verified with the derivation of
  a true claim grafted at its root.
"""
from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from checker import aprhl as K  # noqa: E402
from checker.aprhl_certify import certificate as aprhl_certificate  # noqa: E402
from obligations import terms as T  # noqa: E402
from obligations import whilelogic as WL  # noqa: E402
from verifier.aprhl.commands import verify_file as verify_while_file  # noqa: E402
from verifier.language import whilelang as W  # noqa: E402

APRHL = ROOT / "benchmarks" / "programs" / "aprhl"


def _honest_while(path: Path, text: str = None) -> dict:
    if text is not None:
        tmp = HERE / f".{path.stem}.tmp.pwhile"
        tmp.write_text(text)
        path = tmp
    try:
        prog = W.parse_while_file(str(path))
        reports, _ = verify_while_file(str(path))
        return json.loads(json.dumps(aprhl_certificate(prog, reports, str(path))))
    finally:
        if text is not None:
            path.unlink()


def _terms_json(terms):
    return {"vocabulary": T.vocabulary_of(*terms).to_json(),
            "terms": [T.term_to_json(t) for t in terms], "text": [T.pretty(t) for t in terms]}


def _rederive(cert: dict, claim: dict) -> dict:
    """Record the obligations and costs the kernel itself derives from the (forged) hints, so
    that none is 'dropped or weakened'; a kernel that refuses the hints keeps the old ones."""
    prog = W.parse_while(cert["source"]["text"], cert["source"]["file"])
    types = W.check_program(prog)
    proc = prog.proc(claim["name"])
    d = K._Derivation(proc, types[proc.name], K._hints(claim))
    d.onesided = bool(claim.get("onesided"))
    d.shifts = {(c["line"], c["col"]): K._terms(c["shift"])[0]
                for c in claim["costs"] if c.get("shift") is not None}
    d.cases = {(c["line"], c["col"]): tuple(K._terms(c["case"]))
               for c in claim["costs"] if c.get("case") is not None}
    if claim.get("pointwise"):
        d.pointwise = T.var("result'v", WL.sort_of(W.wtype_simple(proc.ret)))
    try:
        d.derive()
    except Exception:  # noqa: BLE001 - the kernel will refuse it anyway
        return cert
    claim["obligations"] = [ob.to_json() for ob in d.obligations]
    old = {(c["line"], c["col"]): c for c in claim["costs"]}
    claim["costs"] = []
    for (l, c), t in d.costs.items():
        entry = dict(old.get((l, c), {"line": l, "col": c, "rule": "Lap"}))
        entry["cost"] = _terms_json([t])
        claim["costs"].append(entry)
    return cert


def _verified(claim: dict, guarantee: str) -> None:
    claim["verdict"], claim["guarantee"], claim["confirmation"] = "verified", guarantee, None


def _wording(cert: dict, claim: dict) -> str:
    """The guarantee the source's specification states (``whilelang.spec_guarantee``): what a
    forger records so that the kernel's check of the wording passes."""
    prog = W.parse_while(cert["source"]["text"], cert["source"]["file"])
    return W.spec_guarantee(prog.proc(claim["name"]))


def onesided_streak():
    cert = _honest_while(HERE / "w03_onesided_reset.pwhile")
    claim = cert["claims"][0]
    _verified(claim, _wording(cert, claim))
    claim["onesided"] = True
    good = _honest_while(APRHL / "count_positive_branch.pwhile")
    src = (HERE / "w03_onesided_reset.pwhile").read_text()
    # the honest loop hints of count_positive_branch, renamed to w03's loop position
    loop = good["claims"][0]["loops"][0]
    text = json.dumps(loop).replace(f"'{loop['line']}h{loop['col']}", "'9h3")
    claim["loops"] = [dict(json.loads(text), line=9, col=3)]
    assert "while i < size d do" in src.splitlines()[8]
    return _rederive(cert, claim), "w03: a reset makes the streak move by 2 (loss 2 eps)"


def onesided_flag_dropped():
    cert = _honest_while(APRHL / "count_positive_branch.pwhile")
    claim = cert["claims"][0]
    claim["onesided"] = False
    return cert, "(a true claim; the derivation without the one-sided rules must not pass)"


def source_halved():
    cert = _honest_while(APRHL / "count_positive_branch.pwhile")
    text = cert["source"]["text"].replace("|- (eps, 0)", "|- (eps / 2, 0)")
    assert text != cert["source"]["text"]
    cert["source"]["text"] = text
    claim = cert["claims"][0]
    claim["statement"] = claim["statement"].replace("(eps, 0)", "(eps / 2, 0)")
    claim["guarantee"] = _wording(cert, claim)
    return cert, "the count moves by 1 at scale 1 / eps: loss eps > eps / 2"


HALF = """proc Half (d : real list) (pub eps : real+) : real
  |- (eps, 0) : adjWithin (d<1>, d<2>, 1) /\\ size d<1> = 1 ==> =
  z := $ Lap (1 / eps, 2 * d[0]);
  return z
end
"""


def _half_claim():
    cert = _honest_while(HERE / "half.pwhile", HALF)
    claim = cert["claims"][0]
    _verified(claim, _wording(cert, claim))
    return cert, claim


def case_shift_without_if():
    cert, claim = _half_claim()
    zero = T.real(0)
    for c in claim["costs"]:
        c["case"] = _terms_json([zero, zero])
    return _rederive(cert, claim), "2 d[0] moves by 2 at scale 1 / eps: loss 2 eps"


def pointwise_real_output():
    cert, claim = _half_claim()
    claim["pointwise"] = True
    return _rederive(cert, claim), "2 d[0] moves by 2 at scale 1 / eps: loss 2 eps"


def shift_names_output_value():
    cert, claim = _half_claim()
    v = T.var("result'v", T.REAL)
    for c in claim["costs"]:
        c["shift"] = _terms_json([T.sub(v, v)])
    return _rederive(cert, claim), "2 d[0] moves by 2 at scale 1 / eps: loss 2 eps"


def variant_constant():
    cert = _honest_while(APRHL / "count_positive_branch.pwhile")
    claim = cert["claims"][0]
    claim["loops"][0]["variant"] = _terms_json([T.integer(1)])
    return _rederive(cert, claim), "(a true claim; a variant that never decreases)"


# ---- the functional kernel ---------------------------------------------------------------

def _honest_fun(text: str) -> dict:
    from verify_helpers import claims_and_certificate
    return claims_and_certificate(text)[1]


def _resign(cert: dict, text: str) -> None:
    cert["source"]["text"] = text
    cert["source"]["sha256"] = hashlib.sha256(text.encode("utf-8")).hexdigest()


def fun_source_swapped():
    path = ROOT / "benchmarks" / "programs" / "classic" / "higher_order_lipschitz.pinf"
    text = path.read_text()
    cert = _honest_fun(text)
    bad = text.replace("let half x = x / 2.0", "let half x = x * 2.0")
    assert bad != text
    _resign(cert, bad)
    return cert, "half doubles: mainHalf releases 2 count l at eps (loss 2 eps)"


def fun_refuted_relabelled():
    text = (HERE / "t01_tuple_snd_released.pinf").read_text()
    cert = _honest_fun(text)
    twin = text.replace("<= 10.0}", "<= 1.0}")
    good = _honest_fun(twin)
    claim = cert["claims"][0]
    claim.update({k: v for k, v in good["claims"][0].items()
                  if k not in ("statement", "name")})
    cert["nodes"] = good["nodes"]
    return cert, "t01: snd moves by 10 at eps (loss 10)"


FORGERIES = {f.__name__: f for f in (
    onesided_streak, onesided_flag_dropped, source_halved, case_shift_without_if,
    pointwise_real_output, shift_names_output_value, variant_constant,
    fun_source_swapped, fun_refuted_relabelled)}


def check(cert: dict):
    """The kernel's outcome (valid, reason) for either kind of certificate."""
    if K.is_aprhl(cert):
        out = K.check(cert)
    else:
        from checker import kernel
        out = kernel.check(cert)
    return out.valid, out.reason


if __name__ == "__main__":
    for name, make in FORGERIES.items():
        cert, why = make()
        valid, reason = check(cert)
        print(f"{name}: {'ACCEPTED (false claim!)' if valid else 'refused'}: {reason[:200]}"
              f"\n    ({why})")
