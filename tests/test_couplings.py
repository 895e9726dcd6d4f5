"""Issue 23 ([couplings]), the type-system part: couplings other than the identity.

The shifted Laplace rule (LapMech-Shift), claims ``M[DP(e)] {x :: T | A}`` and vals returning
them, the pointwise rule with Case-Output, the coupling search, ``[@shift e]`` annotations and
``allWithin``. For each rule: programs that must verify (their certificates checked by the
kernel), twins that must not, and simulated builder bugs whose certificates the kernel refuses
on its own (docs/verifier.md, "Couplings")."""
from __future__ import annotations

from pathlib import Path

import pytest

from checker import certify, kernel
from obligations import terms as T
from verifier.errors import PrivInferError
from verifier.language.parser import parse_program
from verifier.language.pretty import pretty_program
from verifier.rules import couplings, mechanism_rules, registry
from verifier.verification import VERIFIED
from verify_helpers import claims_and_certificate, kernel_refuses

ROOT = Path(__file__).resolve().parents[1]
COUPLINGS = ROOT / "benchmarks" / "programs" / "couplings"
CLOSE = "{qs :: real list | allWithin (qs<1>, qs<2>, 1.0)}"
EPS = "{eps :: real+ | =}"


def verdicts(text: str):
    """The claims of ``text`` by name, after checking that the kernel accepts its
    certificate."""
    claims, cert = claims_and_certificate(text)
    outcome = kernel.check(cert)
    assert outcome.valid, outcome.reason
    return claims, cert, outcome


def verified(text: str, *names: str):
    claims, cert, outcome = verdicts(text)
    for name in names or claims:
        assert claims[name].verdict == VERIFIED, (name, claims[name].failure)
    return claims, cert, outcome


def not_verified(text: str, name: str):
    claims, _, _ = verdicts(text)
    assert claims[name].verdict != VERIFIED, name
    return claims[name]



def rules(cert: dict, claim: str):
    return [n["rule"] for n in cert["nodes"] if n["id"].startswith(claim + "/")]


# ---- claims beyond = : the shifted Laplace rule ------------------------------------------------

SHIFTED = """
val release :: {l :: bool list | count l<1> = count l<2> + 1} -> {eps :: real+ | =}
            -> M[DP(0.0)] {x :: real | x<1> = x<2> + 1.0}
let release db eps = lapMech (eps, count db)
"""


def test_a_laplace_release_of_counts_one_apart_is_coupled_by_their_difference():
    """The issue's claim: outputs x<1> = x<2> + 1 at no cost (run 2's noise is run 1's)."""
    claims, cert, _ = verified(SHIFTED)
    assert "LapMech-Shift" in rules(cert, "release")
    shifted = next(n for n in cert["nodes"] if n["rule"] == "LapMech-Shift")
    # run 2's noise equal to run 1's: x<2> = x<1> + (count l<2> - count l<1>) = x<1> - 1
    assert shifted["coupling"] in ({"offset": "0", "scale": 1}, {"offset": "-1", "scale": 0})


def test_a_shift_that_costs_more_than_the_claim_is_not_verified():
    not_verified(SHIFTED.replace("x<2> + 1.0", "x<2> + 2.0"), "release")
    not_verified(SHIFTED.replace("count l<2> + 1}", "count l<2> + 2}"), "release")


def test_a_written_shift_is_the_coupling_used():
    text = SHIFTED.replace("lapMech (eps, count db)", "lapMech (eps, count db) [@shift 0.0]")
    claims, cert, _ = verified(text)
    shifted = next(n for n in cert["nodes"] if n["rule"] == "LapMech-Shift")
    assert "coupling" not in shifted  # the kernel reads the source's annotation
    # a written shift that does not fit is not verified, and no other is tried
    not_verified(SHIFTED.replace("lapMech (eps, count db)",
                                 "lapMech (eps, count db) [@shift 1.0]"), "release")


def test_a_val_whose_outputs_are_related_composes():
    """App-Val of M[DP(e)] {x :: T | A}: the relation is assumed of the two outputs."""
    one = """
val one :: {c :: real | c<1> = c<2> + 1.0} -> {eps :: real+ | =}
        -> M[DP(0.0)] {x :: real | x<1> = x<2> + 1.0}
let one c eps = lapMech (eps, c)
"""
    verified(one + """
val twice :: {c :: real | c<1> = c<2> + 1.0} -> {eps :: real+ | =}
          -> M[DP(0.0)] {x :: real | x<1> = x<2> + 2.0}
let twice c eps = mlet x = one c eps in return (2.0 * x)
""", "one", "twice")
    not_verified(one + """
val wrong :: {c :: real | c<1> = c<2> + 1.0} -> {eps :: real+ | =}
          -> M[DP(0.0)] {x :: real | x<1> = x<2> + 1.0}
let wrong c eps = mlet x = one c eps in return (2.0 * x)
""", "wrong")


def test_a_shift_cannot_depend_on_the_sample_it_couples():
    """A coupling is chosen before the noise is drawn: the sample is not in scope."""
    text = SHIFTED.replace("lapMech (eps, count db)",
                           "mlet x = lapMech (eps, count db) [@shift x<1>] in return x")
    assert not_verified(text, "release").code == "V003"


def test_a_shift_annotation_belongs_to_a_laplace_call():
    text = """
val f :: {l :: bool list | adj (l<1>, l<2>)} -> {eps :: real+ | =} -> M[DP(eps)] {x :: real | =}
let f l eps = gaussMech (eps, 0.1, count l) [@shift 1.0]
"""
    assert "lapMech only" in not_verified(text, "f").failure
    with pytest.raises(PrivInferError):
        parse_program("let f x = x [@spin 1.0]", "t.pinf")
    with pytest.raises(PrivInferError):
        parse_program("let f x = 1.0 [@shift 1.0]", "t.pinf")


def test_annotations_print_and_parse_back():
    text = SHIFTED.replace("lapMech (eps, count db)",
                           "mlet x = lapMech (eps, count db) [@shift if x >= 1.0 then 2.0 "
                           "else q<1> - q<2>] in return x")
    program = parse_program(text, "t.pinf")
    assert parse_program(pretty_program(program), "t.pinf") == program


# ---- the pointwise rule: the sparse vector family ---------------------------------------------

ABOVE = f"""
val above :: {CLOSE} -> {{t :: real | t<2> = t<1> + 1.0}} -> {EPS}
          -> M[DP(eps / 2.0)] {{r :: bool list | =}}
let rec above qs t eps = match qs with
  | [] -> return []
  | q :: rest ->
    mlet x = lapMech (eps / 4.0, q) in
    if x >= t then return [true]
    else mlet r = above rest t eps in return (false :: r)
"""


@pytest.mark.parametrize("name", ["above_threshold", "sparse_vector", "num_svt", "gap_svt",
                                  "svt_resampled"])
def test_the_sparse_vector_family_verifies_and_checks(name):
    path = COUPLINGS / f"{name}.pinf"
    claims, cert, outcome = verified(path.read_text())
    used = {n["rule"] for n in cert["nodes"]}
    assert {"Pointwise", "Case-Output", "Case-Then", "Case-Else", "LapMech-Shift"} <= used
    assert "literature:coupling.pointwise" in outcome.trust_base["theorems"]
    assert "literature:mech.laplace.shift" in outcome.trust_base["theorems"]


def test_the_kernel_derives_the_obligations_the_verifier_proved():
    """As for the other rules: the kernel's obligations, its own, include every one the
    builder discharged (as formulas)."""
    claims, cert, outcome = verified((COUPLINGS / "gap_svt.pinf").read_text())
    key = lambda ob: (ob.kind, ob.hypotheses, ob.goal, ob.axioms)  # noqa: E731
    mine = {key(ob) for ob in outcome.obligations}
    theirs = {key(ob) for c in claims.values() for ob in c.obligations}
    assert theirs <= mine


def test_the_threshold_of_the_helper_must_be_shifted_by_one():
    text = ABOVE + f"""
val at :: {CLOSE} -> {{thr :: real | =}} -> {EPS} -> M[DP(eps)] {{r :: bool list | =}}
let at qs thr eps = above qs thr eps
"""
    claims = not_verified(text, "at")
    assert claims.failure and "t<2> = t<1> + 1.0" in claims.failure


@pytest.mark.parametrize("variant, why", [
    ("mlet x = lapMech (eps / 2.0, q) in", "the comparisons' noise too small for the claim"),
    ("mlet x = return q in", "no noise on the comparisons (Lyu et al., Algorithm 5)"),
])
def test_broken_above_threshold_variants_are_not_verified(variant, why):
    text = ABOVE.replace("mlet x = lapMech (eps / 4.0, q) in", variant)
    not_verified(text, "above")


def test_releasing_the_noisy_answer_is_not_verified():
    """Roth's variant (Lyu et al., Algorithm 3): the output includes the noisy answer, whose
    noise the coupling shifted."""
    leak = f"""
val above :: {CLOSE} -> {{t :: real | t<2> = t<1> + 1.0}} -> {EPS}
          -> M[DP(eps / 2.0)] {{r :: bool list * real list | =}}
let rec above qs t eps = match qs with
  | [] -> return ([], [])
  | q :: rest ->
    mlet x = lapMech (eps / 4.0, q) in
    if x >= t then return ([true], [x])
    else mlet (bs, xs) = above rest t eps in return (false :: bs, xs)
"""
    not_verified(leak, "above")


def test_the_pointwise_rule_needs_a_countable_output_and_delta_zero():
    real_out = ABOVE.replace("{r :: bool list | =}", "{r :: real | =}") \
        .replace("return [true]", "return 1.0").replace("return []", "return 0.0") \
        .replace("return (false :: r)", "return r")
    not_verified(real_out, "above")
    with_delta = ABOVE.replace("M[DP(eps / 2.0)]", "M[DP(eps / 2.0), 0.01]")
    assert "Pointwise" not in rules(claims_and_certificate(with_delta)[1], "above")


# ---- kernel refusals: simulated builder bugs ----------------------------------------------------

def _no_follows(patch):
    """The coupling need not keep run 2 on run 1's branch."""
    patch.setattr(couplings, "branch_conditions",
                  lambda label, c1, c2: (T.TRUE,) + _conditions(label, c1, c2)[1:])


_conditions = couplings.branch_conditions


def test_case_output_without_its_branch_condition_is_refused(monkeypatch):
    unshifted = ABOVE.replace("{t :: real | t<2> = t<1> + 1.0}", "{t :: real | =}") \
        .replace("M[DP(eps / 2.0)]", "M[DP(0.0)]")
    kernel_refuses(monkeypatch, unshifted, "above", _no_follows, "takes run 2 there too")


OVERLAP = f"""
val pick :: {CLOSE} -> {{t :: real | t<2> = t<1> + 1.0}} -> {EPS}
         -> M[DP(eps)] {{r :: bool | =}}
let pick qs t eps = match qs with
  | [] -> return false
  | q :: rest ->
    mlet x = lapMech (eps / 2.0, q) in
    if x >= t then return true
    else mlet y = lapMech (eps / 2.0, q) in return (y >= t)
"""


def _wishful_disjointness(patch):
    """Simulated builder bug: the disjointness of Case-Output's branches stated as true."""
    real = couplings.disjointness

    def wishful(b, ctx, e, part):
        obs = real(b, ctx, e, part)
        return None if obs is None else [b.oblige(ctx, obs[0].kind, T.TRUE, "wishful",
                                                  e.span, "Case-Output")] + obs[1:]
    patch.setattr(couplings, "disjointness", wishful)


def test_case_output_without_disjoint_branches_is_refused(monkeypatch):
    """Run 1's other branch is vacuous only if it cannot reach the same output."""
    kernel_refuses(monkeypatch, OVERLAP, "pick", _wishful_disjointness,
                   "differ in their discrete part")


def test_a_shift_charged_without_the_change_of_the_value_is_refused(monkeypatch):
    """LapMech-Shift costs eps |k + v<1> - v<2>|, not eps |k|."""
    text = SHIFTED.replace("x<2> + 1.0", "x<2> + 0.0")

    def bug(patch):
        real = mechanism_rules.lap_mech_shift

        def cheap(b, ctx, e, eps_pair, obligations, v1, v2, k, coupling, text):
            return real(b, ctx, e, eps_pair, obligations, v1, v1, k, coupling, text)
        patch.setattr(mechanism_rules, "lap_mech_shift", cheap)
    kernel_refuses(monkeypatch, text, "release", bug, "privacy cost")


def test_a_certificate_with_another_shift_is_refused():
    _, cert, _ = verified((COUPLINGS / "above_threshold.pinf").read_text())
    for n in cert["nodes"]:
        if n.get("coupling") == {"offset": "1", "scale": 0}:
            n["coupling"] = {"offset": "0", "scale": 0}
    assert not kernel.check(cert).valid


def test_a_coupling_on_an_identity_node_is_refused():
    _, cert, _ = verified(ABOVE + f"""
val f :: {{l :: bool list | adj (l<1>, l<2>)}} -> {EPS} -> M[DP(eps)] {{x :: real | =}}
let f l eps = lapMech (eps, count l)
""")
    node = next(n for n in cert["nodes"] if n["id"].startswith("f/") and n["rule"] == "LapMech")
    node["coupling"] = {"offset": "5", "scale": 0}
    outcome = kernel.check(cert)
    assert not outcome.valid and "identity" in outcome.reason


def test_case_output_outside_pointwise_is_refused(monkeypatch):
    """Without the pointwise rule, a run-1 path is never vacuous: a derivation that uses
    Case-Output without the Pointwise node above it is refused."""
    real = couplings.Pointwise

    def without_the_node(b, ctx, body, rt):
        return real(b, ctx, body, rt).premises[0]  # the Pointwise node dropped
    monkeypatch.setitem(registry._JUDGEMENTS, registry.POINTWISE, without_the_node)
    claims, cert = claims_and_certificate(ABOVE)
    assert claims["above"].verdict == VERIFIED and "Pointwise" not in rules(cert, "above")
    outcome = kernel.check(cert)
    assert not outcome.valid and "below Pointwise" in outcome.reason, outcome.reason


def test_pointwise_over_real_outputs_is_refused(monkeypatch):
    """The pointwise rule sums over the values of a countable part of the output: of a real
    list, the kernel takes the signs of its numbers (``x >= 0``), which 1.0 and 0.0 share; a
    builder that took the reals themselves as countable is refused."""
    text = ABOVE.replace("{r :: bool list | =}", "{r :: real list | =}") \
        .replace("return [true]", "return [1.0]").replace("return (false :: r)",
                                                          "return (0.0 :: r)")

    def bug(patch):
        patch.setattr(couplings, "discrete", lambda t: True)
        patch.setattr(couplings, "discrete_part", lambda t: (None,))
    kernel_refuses(monkeypatch, text, "above", bug, "differ in their discrete part")


def test_the_certificate_format_refuses_a_malformed_shift():
    _, cert, _ = verified(SHIFTED)
    node = next(n for n in cert["nodes"] if n["rule"] == "LapMech-Shift")
    node["coupling"] = {"offset": "1.5", "scale": 1}
    assert "not a certificate" in kernel.check(cert).reason
    node["coupling"] = {"offset": "1", "scale": 2}
    assert not kernel.check(cert).valid


def test_dumps_is_deterministic_with_couplings():
    text = (COUPLINGS / "above_threshold.pinf").read_text()
    a = claims_and_certificate(text)[1]
    b = claims_and_certificate(text)[1]
    a.pop("timings"), b.pop("timings")
    assert certify.dumps(a) == certify.dumps(b)


# ---- the pointwise rule over a list of tuples ---------------------------------------------------

NUM_SVT = f"""
val num :: {CLOSE} -> {{th :: real | th<2> = th<1> + 1.0}} -> {{n :: nat | =}} -> {{e :: real+ | =}}
        -> M[DP(3.0 * e * n)] {{r :: (bool * real) list | =}}
let rec num qs th n e = match qs with
  | [] -> return []
  | q :: rest ->
    if n = 0 then return []
    else
      mlet x = lapMech (e, q) in
      if x >= th then
        mlet y = lapMech (e, q) in
        mlet r = num rest th (n - 1) e in
        return ((true, y) :: r)
      else
        mlet r = num rest th n e in
        return ((false, 0.0) :: r)
"""

GAP_SVT = f"""
val gap :: {CLOSE} -> {{th :: real | th<2> = th<1> + 1.0}} -> {{n :: nat | =}} -> {{e :: real+ | =}}
        -> M[DP(2.0 * e * n)] {{r :: (bool * real) list | =}}
let rec gap qs th n e = match qs with
  | [] -> return []
  | q :: rest ->
    if n = 0 then return []
    else
      mlet x = lapMech (e, q) in
      if x >= th then
        mlet r = gap rest th (n - 1) e in
        return ((true, x - th) :: r)
      else
        mlet r = gap rest th n e in
        return ((false, 0.0) :: r)

val gapSvt :: {CLOSE} -> {{thr :: real | =}} -> {{c :: nat | =}} -> {EPS}
           -> M[DP(eps)] {{r :: (bool * real) list | =}}
let gapSvt qs thr c eps =
  if c = 0 then return []
  else
    mlet th = lapMech (eps / 2.0, thr) in
    gap qs th c (eps / (4.0 * c))
"""


def test_list_part_unfolds_on_constructors_only():
    from obligations import vocabulary as V
    key = V.tuple_key(["bool", "real"])
    a, b = T.var("a", T.BOOL), T.var("b", T.REAL)
    rest = T.var("rest", V.list_sort(key))
    lst = V.cons(V.tuple_make(key, [a, b]), rest)
    assert V.list_part(lst, 0) == V.cons(a, V.list_part(rest, 0))
    assert V.list_part(V.nil(V.list_sort(key)), 1) == V.nil(V.list_sort("real"))
    assert V.list_part(rest, 0).sort == V.list_sort("bool")
    with pytest.raises(ValueError):
        V.list_part(T.var("l", V.list_sort("bool")), 0)


def test_outputs_that_are_lists_of_pairs_split_on_their_countable_components():
    """NumSVT and GapSVT returning one (bool * real) list: D maps each pair to its flag."""
    claims, cert, _ = verified(NUM_SVT)
    assert "Case-Output" in rules(cert, "num")
    assert "Pointwise" in rules(cert, "num")
    verified(GAP_SVT)


@pytest.mark.parametrize("edit", [
    ("return ((true, y) :: r)", "return ((true, x) :: r)"),           # the noisy answer released
    ("return ((false, 0.0) :: r)", "return ((false, x) :: r)"),       # ... in the other branch
    ("M[DP(3.0 * e * n)]", "M[DP(2.0 * e * n)]"),                     # the budget undercharged
    ("return ((false, 0.0) :: r)", "return ((true, 0.0) :: r)"),      # the flags no longer differ
])
def test_broken_twins_of_the_pairs_are_not_verified(edit):
    text = NUM_SVT.replace(*edit)
    assert text != NUM_SVT
    not_verified(text, "num")


def test_gap_svt_pairs_releasing_the_noisy_answer_are_not_verified():
    text = GAP_SVT.replace("(true, x - th)", "(true, x)")
    assert text != GAP_SVT
    not_verified(text, "gap")


def test_case_output_over_pairs_whose_flags_overlap_is_refused(monkeypatch):
    """The kernel recomputes the pairs' countable part: flags equal in both branches are caught."""
    overlap = NUM_SVT.replace("return ((false, 0.0) :: r)", "return ((true, 0.0) :: r)")
    kernel_refuses(monkeypatch, overlap, "num", _wishful_disjointness,
                   "differ in their discrete part")


# ---- a real list split on the signs of its numbers ---------------------------------------------

GAP_MARKER = f"""
val gaps :: {CLOSE} -> {{th :: real | th<2> = th<1> + 1.0}} -> {{left :: nat | =}} -> {{e :: real+ | =}}
         -> M[DP(2.0 * e * left)] {{r :: real list | =}}
let rec gaps qs th left e = match qs with
  | [] -> return []
  | q :: rest ->
    if left = 0 then return []
    else
      mlet x = lapMech (e, q) in
      if x - th >= 0.0 then
        mlet r = gaps rest th (left - 1) e in
        return ((x - th) :: r)
      else
        mlet r = gaps rest th left e in
        return ((0.0 - 1.0) :: r)

val gapSparse :: {CLOSE} -> {{thr :: real | =}} -> {{c :: nat | =}} -> {EPS}
              -> M[DP(eps)] {{r :: real list | =}}
let gapSparse qs thr c eps =
  if c = 0 then return []
  else
    mlet th = lapMech (eps / 2.0, thr) in
    gaps qs th c (eps / (4.0 * c))
"""


def test_list_signs_unfold_on_constructors_only():
    from obligations import vocabulary as V
    x, rest = T.var("x", T.REAL), T.var("rest", V.list_sort("real"))
    assert V.list_signs(V.cons(x, rest)) == V.cons(T.ge(x, T.real(0)), V.list_signs(rest))
    assert V.list_signs(V.nil(V.list_sort("real"))) == V.nil(V.list_sort("bool"))
    assert V.list_signs(rest).sort == V.list_sort("bool")
    with pytest.raises(ValueError):
        V.list_signs(T.var("l", V.list_sort("int")))


def test_a_real_list_with_a_negative_marker_splits_on_the_signs_of_its_numbers():
    """GapSVT releasing its gaps (>= 0) and -1.0 for an answer below, in one real list: D maps
    each number to ``x >= 0``, which the two branches' outputs differ in."""
    claims, cert, _ = verified(GAP_MARKER)
    assert "Case-Output" in rules(cert, "gaps") and "Pointwise" in rules(cert, "gaps")


@pytest.mark.parametrize("edit", [
    ("return ((x - th) :: r)", "return ((q - th) :: r)"),               # the exact answer
    ("return ((x - th) :: r)", "return (x :: r)"),                      # the noisy answer
    ("return ((0.0 - 1.0) :: r)", "return ((th - x) :: r)"),            # the gap below, > 0
    ("return ((0.0 - 1.0) :: r)", "return (x :: r)"),                   # the noisy answer below
    ("gaps rest th (left - 1) e", "gaps rest th left e"),               # never counts down
    ("mlet th = lapMech (eps / 2.0, thr) in", "let th = thr in"),       # a public threshold
    ("gaps qs th c (eps / (4.0 * c))", "gaps qs th c (eps / (2.0 * c))"),   # noise too small
])
def test_the_twins_of_the_marker_list_are_not_verified(edit):
    text = GAP_MARKER.replace(*edit)
    assert text != GAP_MARKER
    not_verified(text, "gapSparse")


def test_case_output_over_signs_that_overlap_is_refused(monkeypatch):
    """The kernel recomputes the signs: a marker 0.0, which a gap may equal, is caught."""
    overlap = GAP_MARKER.replace("return ((0.0 - 1.0) :: r)", "return (0.0 :: r)")
    kernel_refuses(monkeypatch, overlap, "gaps", _wishful_disjointness,
                   "differ in their discrete part")
