"""The candidate list of expMech built by a local recursive helper without a val: a call whose
every path ends in a non-empty list needs no V005 obligation (NonEmpty-Induction, the shape
analysis of ``verifier/language/shapes.py``, re-read by the kernel from the source)."""
from __future__ import annotations

import copy

import pytest

from checker import kernel
from verifier.language import ast as A
from verifier.language.parser import parse_program
from verifier.language.shapes import always_nonempty, nonempty_call
from verify_helpers import checked, claims_and_certificate, kernel_refuses

V005 = "the candidate list of expMech is not empty"


def program(helper: str, call: str, extra: str = "") -> str:
    return ("val nearCount :: {db :: bool list | adj (db<1>, db<2>)} -> {k :: nat | =}\n"
            f"              -> {{eps :: real+ | =}}{extra} -> M[DP(eps)] {{c :: int | =}}\n"
            f"let nearCount db k eps{' ks' if extra else ''} =\n"
            f"  {helper} in\n"
            "  let closeness (d, c) = 0.0 - abs (count d - c) in\n"
            f"  expMech (eps, closeness, db, {call})\n")


KS = " -> {ks :: int list | =}"

UPTO = "let rec upto (i : int) = if i <= 0 then [0] else i :: upto (i - 1)"

VERIFIED = {
    "upto": (UPTO, "upto k", ""),
    "two_element_base": ("let rec upto (i : int) = if i <= 0 then [0; 1] else i :: upto (i - 1)",
                         "upto k", ""),
    "match_nil_is_a_literal": ("let rec pick (l : int list) = match l with [] -> [0] "
                               "| x :: rest -> x :: pick rest", "pick ks", KS),
    "match_cons_returns_the_scrutinee": ("let rec pick (l : int list) = match l with [] -> [0] "
                                         "| x :: rest -> if x > 0 then l else pick rest",
                                         "pick ks", KS),
    "let_bound_recursive_call": ("let rec upto (i : int) = if i <= 0 then [0] else "
                                 "let rest = upto (i - 1) in if i > 5 then rest else i :: rest",
                                 "upto k", ""),
}

NOT_VERIFIED = {
    "empty_base": ("let rec upto (i : int) = if i <= 0 then [] else i :: upto (i - 1)",
                   "upto k", ""),
    "one_branch_empty": ("let rec upto (i : int) = if i <= 0 then [0] else if i > 10 then [] "
                         "else i :: upto (i - 1)", "upto k", ""),
    "shadowed": (UPTO + " in\n  let upto (j : int) = if j <= 0 then [] else [j]", "upto k",
                 ""),
    "a_parameter_returned": ("let rec pad (l : int list) (i : int) = if i <= 0 then l "
                             "else i :: pad l (i - 1)", "pad ks k", KS),
}


@pytest.mark.parametrize("case", sorted(VERIFIED))
def test_a_helper_whose_every_path_is_non_empty_gives_candidates(case):
    helper, call, extra = VERIFIED[case]
    claims, cert = checked(program(helper, call, extra))  # the kernel accepts the certificate
    assert claims["nearCount"].verdict == "verified", claims["nearCount"].failure
    rules = [n["rule"] for n in cert["nodes"]]
    assert rules.count("NonEmpty-Induction") == 1


@pytest.mark.parametrize("case", sorted(NOT_VERIFIED))
def test_a_helper_that_may_return_the_empty_list_is_not_trusted(case):
    helper, call, extra = NOT_VERIFIED[case]
    claims, cert = claims_and_certificate(program(helper, call, extra))
    report = claims["nearCount"]
    assert V005 in (report.failure or ""), report.failure
    # unknown, or refuted when a run on k = 0 (or ks = []) finds the empty candidate list
    assert (report.verdict, report.code) in (("unknown", "V005"), ("refuted", "V008"))
    assert "NonEmpty-Induction" not in [n["rule"] for n in cert["nodes"]]
    outcome = kernel.check(cert)
    assert outcome.valid, outcome.reason  # an honest record of the failure


def test_the_kernel_refuses_non_emptiness_the_source_does_not_show(monkeypatch):
    # the builder, wrong, says the helper with an empty base case is always non-empty
    text = program(*NOT_VERIFIED["empty_base"])
    kernel_refuses(monkeypatch, text, "nearCount",
                   lambda patch: patch.setattr("verifier.rules.safety.nonempty_call",
                                               lambda *a: True),
                   "NonEmpty-Induction")


def _honest():
    claims, cert = checked(program(*VERIFIED["upto"]))
    return cert


def _safety(cert):
    return next(n for n in cert["nodes"] if n["rule"] == "Safety")


def _renumbered(cert):
    """The certificate's nodes renumbered in preorder (a forger's tidy tree)."""
    by_id = {n["id"]: n for n in cert["nodes"]}
    nodes = []
    for claim in cert["claims"]:
        if claim["root"] is None:
            continue
        order, todo = [], [claim["root"]]
        while todo:
            n = by_id[todo.pop()]
            order.append(n)
            todo.extend(reversed(n["premises"]))
        ids = {n["id"]: f"{claim['name']}/n{k}" for k, n in enumerate(order, 1)}
        for n in order:
            n["id"], n["premises"] = ids[n["id"]], [ids[q] for q in n["premises"]]
        claim["root"] = ids[claim["root"]]
        nodes += order
    cert["nodes"] = nodes
    return cert


def test_the_kernel_demands_the_obligation_without_the_premise():
    cert = copy.deepcopy(_honest())
    safety = _safety(cert)
    assert len(safety["premises"]) == 1
    safety["premises"] = []
    cert = _renumbered(cert)
    outcome = kernel.check(cert)
    assert not outcome.valid and V005 in outcome.reason, outcome.reason


def test_the_kernel_refuses_a_premise_at_another_expression():
    cert = copy.deepcopy(_honest())
    leaf = next(n for n in cert["nodes"] if n["rule"] == "NonEmpty-Induction")
    leaf["at"] = [leaf["at"][0], leaf["at"][1] - 3, leaf["at"][2], leaf["at"][3]]
    outcome = kernel.check(cert)
    assert not outcome.valid and "NonEmpty-Induction" in outcome.reason, outcome.reason


def test_the_candidates_of_g14_verify_by_their_shape():
    from pathlib import Path
    text = (Path(__file__).parent / "natural5" / "g14_local_candidates.pinf").read_text()
    claims, _ = checked(text.replace("let rec upto i =", "let rec upto (i : int) ="))
    assert claims["nearCount"].verdict == "verified"


# ---- the analysis itself, on the source as written (no renaming) ---------------------------

def _helper(text: str) -> A.LetDecl:
    decl = next(d for d in parse_program(text, "shape.pinf").lets() if d.name == "f")
    return decl


@pytest.mark.parametrize("text, expected", [
    ("let rec f (i : int) = if i <= 0 then [0] else i :: f (i - 1)", True),
    ("let rec f (i : int) = f (i - 1)", True),  # returns nothing: every returned value...
    ("let rec f (i : int) = if i <= 0 then [] else [i]", False),
    ("let rec f (i : int) (j : int) = if i <= 0 then [0] else f (i - 1)", False),  # partial
    ("let rec f (f : int) = if f <= 0 then [0] else f :: []", False),  # a parameter named f
    ("let rec f (i : int) = let f = (fun (j : int) -> []) in if i <= 0 then [0] else f i", False),
    ("let rec f (i : int) = let rec f (j : int) = [] in if i <= 0 then [0] else f i", False),
    ("let rec f (l : int list) = match l with [] -> [0] | f :: rest -> f rest", False),
    ("let rec f (l : int list) = match l with [] -> [0] | x :: l -> l", False),  # tail is l
    ("let rec f (l : int list) = match l with [] -> [0] | x :: rest -> l", True),
    ("let rec f (l : int list) = let r = l in match l with [] -> [0] | x :: rest -> r", False),
    ("let rec f (i : int) = let r = [i] in let r = [] in r", False),
    ("let rec f (i : int) = let r = [i] in r", True),
    ("let rec f (i : int) = let g = f in g i", False),  # f passed as a value
])
def test_the_shape_analysis(text, expected):
    decl = _helper(text)
    assert always_nonempty(decl.body, decl.name, decl.params) is expected


def test_a_call_must_apply_every_parameter():
    decl = _helper("let rec f (i : int) (j : int) = [i]")
    one = A.App(A.Var("f"), A.IntLit(1))
    assert not nonempty_call(one, "f", decl.params, decl.body)
    assert nonempty_call(A.App(one, A.IntLit(2)), "f", decl.params, decl.body)
    assert not nonempty_call(A.App(A.Var("g"), A.IntLit(1)), "f", decl.params, decl.body)
