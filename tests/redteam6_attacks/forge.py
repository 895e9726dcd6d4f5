"""Red-team round 6: forged certificates for the newest rules (the accumulator strengthening,
shifted couplings, release loops, vacuity). Each forgery starts from an honest certificate
(written by the verifier) and edits its JSON so that it claims something false; ``FORGERIES``
names them, ``forge(name)`` returns (the forged certificate, why its claim is false), and
``python forge.py`` prints the kernel's answer for each (every one must be refused).

* ``acc_bound_halved``: the accumulator fold (LetRec-Induction-Acc, clipped steps up to 2,
  bound 2) with its source's bound edited to 1 (false: [2] vs [0] give 2 vs 0), re-signed, the
  derivation kept.
* ``acc_step_doubled``: the same fold's step edited to ``2.0 * acc + ...`` (false: a difference
  doubles at every later step), derivation kept.
* ``acc_rule_renamed``: the honest Acc derivation with its root relabelled
  ``LetRec-Induction-Eq`` (the equality case alone is not inductive for this fold).
* ``acc_rule_plain``: the root relabelled ``LetRec-Induction`` (the written val is not
  inductive).
* ``acc_relabelled_refuted``: a02 (the ``[]`` case doubles the accumulator: refuted)
  relabelled verified with the honest fold's derivation (same shape).
* ``shift_noise_halved``: above_threshold_index.pinf with the answers' noise at eps / 2 instead
  of eps / 4 (false: mistakes/above_index_query_noise_too_small.pinf), shifts kept.
* ``shift_offset_changed``: the honest above_threshold_index with the then case's shift
  offset 1 replaced by 3 and the else case's identity replaced by an output shift of 0.
* ``steps_source_doubled``: advanced_composition_recursive.pinf with the loop releasing
  ``2 * count db`` (false: each step costs 2 eps, claimed as k steps of eps), derivation kept.
* ``claims_swapped``, ``premise_dropped``, ``case_output_to_then_only``:
  above_threshold_index's two claims' roots swapped; Case-Output's else premise dropped; the
  Case-Output node replaced by its then case.
* ``vacuous_relabelled``: round 5's v01 (vacuous refinement, V011) relabelled verified, the
  derivation that V011 downgraded kept.
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

COUPLINGS = ROOT / "benchmarks" / "programs" / "couplings"
CLASSIC = ROOT / "benchmarks" / "programs" / "classic"

ACC = """val sumAcc :: {acc :: real | =} -> {l :: real list | adj (l<1>, l<2>)}
            -> {s :: real | abs (s<1> - s<2>) <= 2.0}
let rec sumAcc acc l = match l with
  | [] -> acc
  | x :: rest -> sumAcc (acc + max (0.0, min (x, 2.0))) rest
"""


def _acc_cert() -> dict:
    cert = R5._honest_fun(ACC)
    roots = [n for n in cert["nodes"] if n["id"] == cert["claims"][0]["root"]]
    assert roots and roots[0]["rule"] == "LetRec-Induction-Acc", roots
    return cert


def _edited(cert: dict, old: str, new: str) -> dict:
    """The certificate of the source with ``old`` (within one line) replaced by ``new``,
    re-signed; the recorded places of the nodes that start or end on that line erased (a node
    without ``at`` is not compared with the source's spans), the others still right, so that
    the kernel must refuse it on what the edited source proves."""
    text = cert["source"]["text"]
    assert old in text and "\n" not in old.strip("\n") and "\n" not in new.strip("\n"), old
    line = text[:text.index(old)].count("\n") + 1 + (1 if old.startswith("\n") else 0)
    R5._resign(cert, text.replace(old, new))
    for n in cert["nodes"]:
        if n.get("at") and line in (n["at"][0], n["at"][2]):
            n["at"] = None
    return cert


def _unplaced(cert: dict) -> dict:
    for n in cert["nodes"]:
        n["at"] = None
    return cert


def _root(cert: dict, k: int = 0) -> dict:
    root = cert["claims"][k]["root"]
    return next(n for n in cert["nodes"] if n["id"] == root)


def acc_bound_halved():
    cert = _edited(_acc_cert(), "<= 2.0}", "<= 1.0}")
    cert["claims"][0]["statement"] = cert["claims"][0]["statement"].replace("2.0", "1.0")
    return cert, "[2.0] vs [0.0] give 2 vs 0: the bound 1 is false"


def acc_step_doubled():
    cert = _edited(_acc_cert(), "sumAcc (acc + max", "sumAcc (2.0 * acc + max")
    return cert, "[2.0; 0.0; 0.0] vs [0.0; 0.0; 0.0]: 8 vs 0"


def acc_rule_renamed():
    cert = _acc_cert()
    _root(cert)["rule"] = "LetRec-Induction-Eq"
    return cert, "(a true claim; the equality case is not what was proved)"


def acc_rule_plain():
    cert = _acc_cert()
    _root(cert)["rule"] = "LetRec-Induction"
    return cert, "(a true claim; the written val is not inductive)"


def acc_relabelled_refuted():
    text = (HERE / "a02_acc_nil_doubles.pinf").read_text()
    cert = R5._honest_fun(text)
    good = R5._honest_fun(text.replace("| [] -> 2.0 * acc", "| [] -> acc"))
    claim = cert["claims"][0]
    claim.update({k: v for k, v in good["claims"][0].items() if k not in ("statement", "name")})
    cert["nodes"] = good["nodes"]
    return _unplaced(cert), "a02: [2.0] vs [0.0] give 4 vs 0 (bound 2)"


def _ati():
    return R5._honest_fun((COUPLINGS / "above_threshold_index.pinf").read_text())


def shift_noise_halved():
    cert = _edited(_ati(), "lapMech (eps / 4.0, q)", "lapMech (eps / 2.0, q)")
    return cert, "the answers' noise too small: mistakes/above_index_query_noise_too_small"


def shift_offset_changed():
    cert = _ati()
    for n in cert["nodes"]:
        if n["rule"] == "LapMech-Shift" and n["id"].startswith("first/"):
            n["coupling"] = {"offset": "3", "scale": 0} if n["coupling"]["scale"] == 0 \
                else {"offset": "0", "scale": 0}
    return cert, "(a true claim; the recorded shifts cost more than eps / 2 or break the case)"


def steps_source_doubled():
    cert = R5._honest_fun((CLASSIC / "advanced_composition_recursive.pinf").read_text())
    cert = _edited(cert, "mlet x = lapMech (eps, count db) in",
                   "mlet x = lapMech (eps, 2 * count db) in")
    return cert, "each release of 2 count db costs 2 eps: k steps of 2 eps claimed as eps"


def vacuous_relabelled():
    text = (ROOT / "tests" / "redteam5_attacks" / "v01_vacuous_refinement.pinf").read_text()
    cert = R5._honest_fun(text)
    claim = cert["claims"][0]
    assert claim["verdict"] != "verified" and claim["code"] == "V011"
    assert claim["root"] is not None  # the derivation V011 downgraded is recorded
    claim["verdict"], claim["code"], claim["failure"] = "verified", None, None
    return cert, "v01: the assumptions relate no two inputs (V011), count l released raw"


def _renumbered(cert: dict) -> dict:
    """The nodes reachable from the claims' roots, renamed ``<claim>/n<k>`` in preorder (the
    kernel's numbering), the others dropped: a forger's tidying, so that the kernel must
    refuse the edit on substance."""
    nodes = {n["id"]: n for n in cert["nodes"]}
    out, names = [], {}

    def visit(nid, claim):
        names[nid] = f"{claim}/n{len([k for k in names if names[k].startswith(claim + '/')]) + 1}"
        node = dict(nodes[nid])
        out.append(node)
        for q in node["premises"]:
            visit(q, claim)
    for c in cert["claims"]:
        if c.get("root"):
            visit(c["root"], c["name"])
    for node in out:
        node["id"] = names[node["id"]]
        node["premises"] = [names[q] for q in node["premises"]]
    for c in cert["claims"]:
        if c.get("root"):
            c["root"] = names[c["root"]]
    cert["nodes"] = out
    return cert


def claims_swapped():
    cert = _ati()
    a, b = cert["claims"]
    a["root"], b["root"] = b["root"], a["root"]
    return _renumbered(cert), "(true claims; each root is the derivation of the other claim)"


def premise_dropped():
    cert = _ati()
    for n in cert["nodes"]:
        if n["rule"] == "Case-Output":
            n["premises"] = n["premises"][:1]   # the else case dropped
    return _renumbered(cert), "(a true claim; Case-Output without its else case proves nothing of those v)"


def case_output_to_then_only():
    """The node Case-Output replaced by its then case alone: the else case's outputs (the
    recursive call) would never be charged."""
    cert = _ati()
    nodes = {n["id"]: n for n in cert["nodes"]}
    for n in cert["nodes"]:
        n["premises"] = [nodes[q]["premises"][0] if nodes[q]["rule"] == "Case-Output" else q
                         for q in n["premises"]]
    return _renumbered(cert), "(a true claim; the if's else branch is never derived)"


FORGERIES = {f.__name__: f for f in (
    claims_swapped, premise_dropped, case_output_to_then_only,
    acc_bound_halved, acc_step_doubled, acc_rule_renamed, acc_rule_plain,
    acc_relabelled_refuted, shift_noise_halved, shift_offset_changed, steps_source_doubled,
    vacuous_relabelled)}

check = R5.check


if __name__ == "__main__":
    for name, make in FORGERIES.items():
        cert, why = make()
        valid, reason = check(cert)
        print(f"{name}: {'ACCEPTED (false claim!)' if valid else 'refused'}: {reason[:200]}"
              f"\n    ({why})")
