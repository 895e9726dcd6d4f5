"""Red-team round 8: forged certificates. Each forgery starts from an honest certificate
written by the verifier and edits its JSON so that it claims something false (or, for a
probe, something the kernel must still judge on substance); ``FORGERIES`` names them,
``forge(name)`` returns (the forged certificate, why its claim is false), and ``python
forge.py`` prints the kernel's answer for each (every one must be refused).

apRHL kernel (``checker/aprhl.py``):

* ``onesided_wording_upgraded``: w09 (verified: ``d<1>[0] = 0`` in run 1 only, ``d<2>[0] = 0``
  in run 2 only, d[0] returned raw) with its guarantee reworded as plain DP w.r.t. adj.
* ``grow_pointwise_onesided``: w02 (a loop whose guard reads a list grown in a private branch;
  the loop count leaks: infinite loss) relabelled verified with ``pointwise`` and ``onesided``.
* ``procs_swapped``: a file with a true procedure (``Good``) and a false one (``Bad``, d[0]
  raw); the two claims' records swapped so that Bad carries Good's verified record.
* ``scale_tenfold_hints_rederived``: laplace_mechanism's source edited to ``Lap (gs / (10 *
  eps), z)`` (loss 10 eps), costs and obligations re-derived from the kernel's own rules.
* ``pub_dropped``: laplace_mechanism's ``pub eps`` made private (eps may differ between the
  runs: the scale is not public), everything else kept.
* ``nested_loop_hints_copied``: w01 (nested loops: every entry released twice, loss 2 eps)
  relabelled verified, the outer loop given parallel_composition's histogram hints renamed to
  its head.

Functional kernel (``checker/kernel.py``):

* ``equal_inputs_on_release``: noisy_sum's LapMech node replaced by EqualInputs (the release
  of an adjacent list's sum taken as the same distribution in both runs).
* ``exact_finite_real_param``: noisy_sum's root replaced by a single ExactFinite premise.
* ``val_moved_below_rebinding``: p02 (true: the val, after ``let c = 10.0`` and main, reads
  c = 10) with the source edited so the val stands after ``let c = 0.1`` at the end (false:
  claim 0.1, loss 10), re-signed, derivation kept.
* ``duplicate_verdict_key``: a refuted claim whose JSON text carries ``"verdict"`` twice
  (``"refuted"`` first, ``"verified"`` last) with the honest twin's derivation grafted, read
  as ``privinfer check`` reads it (``json.loads``: the last key wins).
* ``homoglyph_val``: a source whose val names ``mаin`` (Cyrillic a) over an honest Laplace
  count, while the Latin ``main`` returns the count raw; the certificate's claim renamed to
  the Latin ``main``.
"""
from __future__ import annotations

import copy
import hashlib
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
CLASSIC = ROOT / "benchmarks" / "programs" / "classic"


def _rename(obj, pairs):
    text = json.dumps(obj)
    for old, new in pairs:
        text = text.replace(old, new)
    return json.loads(text)


# ---- apRHL ---------------------------------------------------------------------------------

def onesided_wording_upgraded():
    cert = R5._honest_while(HERE / "w09_onesided_pins_raw_release.pwhile")
    claim = cert["claims"][0]
    assert claim["verdict"] == "verified"
    claim["guarantee"] = ("Pinned is (eps, 0)-differentially private with respect to "
                          "adj (d<1>, d<2>), for size d = 2")
    return cert, "d[0] released raw: DP w.r.t. adj alone is false ([5, 0] vs [0, 0])"


def grow_pointwise_onesided():
    cert = R5._honest_while(HERE / "w02_guard_reads_list_grown_privately.pwhile")
    claim = cert["claims"][0]
    R5._verified(claim, R5._wording(cert, claim))
    claim["pointwise"] = True
    claim["onesided"] = True
    return R5._rederive(cert, claim), "the loop count leaks d[0] > 0: infinite loss"


TWO = """proc Good (d : real list) (pub eps : real+) : real
  |- (eps, 0) : adjWithin (d<1>, d<2>, 1) /\\ size d<1> = 1 ==> =
  z := $ Lap (1 / eps, d[0]);
  return z
end

proc Bad (d : real list) (pub eps : real+) : real
  |- (eps, 0) : adjWithin (d<1>, d<2>, 1) /\\ size d<1> = 1 ==> =
  return d[0]
end
"""


def procs_swapped():
    cert = R5._honest_while(HERE / "two.pwhile", TWO)
    good, bad = cert["claims"]
    assert good["verdict"] == "verified" and bad["verdict"] != "verified"
    forged_bad = dict(good, name="Bad",
                      statement=good["statement"].replace("Good", "Bad"),
                      guarantee=good["guarantee"].replace("Good", "Bad"))
    forged_good = dict(bad, name="Good", statement=bad["statement"].replace("Bad", "Good"))
    cert["claims"] = [forged_good, forged_bad]
    return cert, "Bad returns d[0] raw: [0] vs [1] are told apart (infinite loss)"


def scale_tenfold_hints_rederived():
    cert = R5._honest_while(APRHL / "laplace_mechanism.pwhile")
    text = cert["source"]["text"].replace("Lap (gs / eps, z)", "Lap (gs / (10 * eps), z)")
    assert text != cert["source"]["text"]
    cert["source"]["text"] = text
    return R5._rederive(cert, cert["claims"][0]), "scale gs / (10 eps): loss 10 eps"


def pub_dropped():
    cert = R5._honest_while(APRHL / "laplace_mechanism.pwhile")
    text = cert["source"]["text"].replace("(pub eps : real+)", "(eps : real+)")
    assert text != cert["source"]["text"]
    cert["source"]["text"] = text
    return cert, "eps may differ between the runs: the scales differ (infinite loss)"


def nested_loop_hints_copied():
    path = HERE / "w01_nested_loop_releases_twice.pwhile"
    cert = R5._honest_while(path)
    claim = cert["claims"][0]
    R5._verified(claim, R5._wording(cert, claim))
    honest = R5._honest_while(APRHL / "parallel_composition.pwhile")["claims"][0]["loops"][0]
    head = f"'{honest['line']}h{honest['col']}"
    line = 1 + next(i for i, l in enumerate(path.read_text().splitlines())
                    if l.startswith("  while i < size d do"))
    # Histogram's names (r, h, z) to Nested's (out, d, z), its loop head to Nested's outer loop
    outer = _rename(honest, [(head, f"'{line}h3"), ('"r\'', '"out\''),
                             ('"h<', '"d<'), ('"name": "r"', '"name": "out"'),
                             ('"name": "h"', '"name": "d"'), ("h'j", "d'j"), ("h'v", "d'v"),
                             ("Arr[int]", "Arr[real]"), ("_int", "_real")])
    outer.update(line=line, col=3)
    claim["loops"] = [outer]
    return R5._rederive(cert, claim), "every entry released twice: loss 2 eps"


# ---- functional ----------------------------------------------------------------------------

def _noisy_sum():
    text = (CLASSIC / "noisy_sum.pinf").read_text()
    return R5._honest_fun(text)


def equal_inputs_on_release():
    cert = _noisy_sum()
    for n in cert["nodes"]:
        if n["rule"] == "LapMech":
            n["rule"] = "EqualInputs"
    return cert, "(a true claim) the sums of adjWithin lists differ: EqualInputs does not apply"


def exact_finite_real_param():
    cert = _noisy_sum()
    root = cert["nodes"][0]
    cert["nodes"] = [dict(root, premises=["noisySum/n2"]),
                     {"at": cert["nodes"][2]["at"], "id": "noisySum/n2", "premises": [],
                      "rule": "ExactFinite"}]
    cert["claims"][0]["root"] = "noisySum/n1"
    return cert, "(a true claim) ExactFinite enumerates bool / [k] parameters only"


def val_moved_below_rebinding():
    text = (HERE / "p02_index_constant_rebound_after_val.pinf").read_text()
    cert = R5._honest_fun(text)
    assert cert["claims"][0]["verdict"] == "verified"
    val = [l for l in text.splitlines() if l.startswith("val main")][0]
    bad = text.replace(val + "\n", "") + val + "\n"
    assert bad != text
    R5._resign(cert, bad)
    return cert, "the val now reads c = 0.1; main releases at 10: loss 10"


def duplicate_verdict_key():
    text = (ROOT / "tests" / "redteam5_attacks" / "t01_tuple_snd_released.pinf").read_text()
    cert = R5._honest_fun(text)
    good = R5._honest_fun(text.replace("<= 10.0}", "<= 1.0}"))
    claim = cert["claims"][0]
    assert claim["verdict"] == "refuted"
    grafted = {k: v for k, v in good["claims"][0].items() if k not in ("statement", "name")}
    cert["nodes"] = good["nodes"]
    # the JSON text: every key of the refuted record first, then the grafted ones again
    parts = [json.dumps(k) + ": " + json.dumps(v) for k, v in claim.items()]
    parts += [json.dumps(k) + ": " + json.dumps(v) for k, v in grafted.items()]
    record = "{" + ", ".join(parts) + "}"
    rest = dict(cert, claims=["@@"])
    raw = json.dumps(rest).replace('"@@"', record)
    return json.loads(raw), "t01: snd moves by 10 at eps (loss 10)"


HOMOGLYPH = """val m\u0430in :: {l :: bool list | adj (l<1>, l<2>)} -> {eps :: real+ | =} -> M[DP(eps)] {r :: real | =}
let m\u0430in l eps = lapMech (eps, count l)
let main l eps = return (count l)
"""


def homoglyph_val():
    cert = R5._honest_fun(HOMOGLYPH)
    claim = cert["claims"][0]
    claim["name"] = "main"
    claim["statement"] = claim["statement"].replace("m\u0430in", "main")
    cert["nodes"] = _rename(cert["nodes"], [("m\u0430in/", "main/")])
    claim["root"] = claim["root"].replace("m\u0430in/", "main/")
    return cert, "the Latin main returns count l raw (infinite loss)"


FORGERIES = {f.__name__: f for f in (
    onesided_wording_upgraded, grow_pointwise_onesided, procs_swapped,
    scale_tenfold_hints_rederived, pub_dropped, nested_loop_hints_copied,
    equal_inputs_on_release, exact_finite_real_param, val_moved_below_rebinding,
    duplicate_verdict_key, homoglyph_val)}


def forge(name: str):
    return FORGERIES[name]()


def check(cert: dict):
    return R5.check(cert)


if __name__ == "__main__":
    for name, make in FORGERIES.items():
        try:
            cert, why = make()
        except Exception as exc:  # noqa: BLE001
            print(f"{name}: could not forge: {exc!r}")
            continue
        valid, reason = check(cert)
        print(f"{name}: {'VALID (forgery accepted!)' if valid else 'refused'}: {reason}")
