"""Pointwise-Value (verifier/rules/couplings.py, checker/couplings.py): Report Noisy Max with
Laplace noise written as an argmax loop (issue #23), its broken twins, and builder bugs the
kernel refuses."""
from pathlib import Path

import pytest

from checker import kernel
from obligations import terms as T
from verifier.language import invariants as I
from verifier.language.parser import parse_file, parse_program
from verifier.language.resolve import resolve
from verifier.rules import couplings as C
from verifier.rules import registry
from verifier.rules import mechanism_rules
from verifier.verification import VERIFIED

from verify_helpers import checked, claims_and_certificate, kernel_refuses

ROOT = Path(__file__).resolve().parent.parent / "benchmarks" / "programs"
NOISY_MAX = (ROOT / "couplings" / "noisy_max_laplace.pinf").read_text()
NAME = "reportNoisyMax"



def test_report_noisy_max_with_laplace_noise_is_verified():
    claims, cert = checked(NOISY_MAX)
    assert claims[NAME].verdict == VERIFIED, claims[NAME].failure
    rules = [n["rule"] for n in cert["nodes"]]
    assert "Pointwise-Value" in rules and "LetRec-Induction" in rules
    guards = {n["coupling"].get("at") for n in cert["nodes"] if "coupling" in n}
    assert {"0", "i"} <= guards  # the winner's noise shifted: the first answer's, the loop's


def test_ties_broken_towards_the_later_index_are_verified_too():
    """Ties have probability 0 under continuous noise: x >= bv is as private as x > bv."""
    claims, _ = checked(NOISY_MAX.replace("if x > bv", "if x >= bv"))
    assert claims[NAME].verdict == VERIFIED, claims[NAME].failure


def test_the_template_reads_the_roles_not_the_positions():
    """The best value before the best index: the invariant is stated on the later one."""
    text = (NOISY_MAX.replace("(bi : int) (bv : real)", "(bv : real) (bi : int)")
            .replace("loop rest (i + 1) i x eps", "loop rest (i + 1) x i eps")
            .replace("loop rest (i + 1) bi bv eps", "loop rest (i + 1) bv bi eps")
            .replace("loop rest 1 0 x eps", "loop rest 1 x 0 eps"))
    assert "loop rest 1 x 0 eps" in text and "(bv : real) (bi : int)" in text
    claims, _ = checked(text)
    assert claims[NAME].verdict == VERIFIED, claims[NAME].failure


@pytest.mark.parametrize("change", [
    ("lapMech (eps / 2.0, q)", "lapMech (eps, q)"),           # noise Lap(1/eps), claimed eps
    ("M[DP(eps)]", "M[DP(eps / 2.0)]"),                       # the claim eps/2
    ("allWithin (qs<1>, qs<2>, 1.0)", "allWithin (qs<1>, qs<2>, 2.0)"),  # 2-sensitive
])
def test_broken_twins_are_not_verified(change):
    claims, _ = checked(NOISY_MAX.replace(*change))
    assert claims[NAME].verdict != VERIFIED


@pytest.mark.parametrize("path", ["mistakes/noisy_max_noise_too_small.pinf",
                                  "mistakes/noisy_max_releases_value.pinf"])
def test_mistakes_are_not_verified(path):
    claims, _ = checked((ROOT / path).read_text())
    assert claims[NAME].verdict != VERIFIED


def test_a_wrong_invariant_is_not_proved(monkeypatch):
    """The invariant is a hint: stated with a smaller bound c, its obligations fail."""
    original = I.allwithin_bound
    monkeypatch.setattr(I, "allwithin_bound", lambda val: original(val) / 2)
    claims, _ = checked(NOISY_MAX)
    assert claims[NAME].verdict != VERIFIED


#: the loop's noise Lap(1/eps) (the first answer's Lap(2/eps)): the winner's shift costs 2 eps
LOOP_TOO_NOISY = NOISY_MAX.replace("lapMech (eps / 2.0, q)", "lapMech (eps, q)", 1)


def _stated_free(patch):
    """Simulated builder bug: the loop's invariant stated at cost 0."""
    real_val = C.argmax_val

    def free(helper, outer, val, simple_type):
        inv = real_val(helper, outer, val, simple_type)
        return None if inv is None else _free_invariant(inv)
    patch.setattr(C, "argmax_val", free)


def test_a_guarded_shift_charged_nothing_is_refused(monkeypatch):
    """Simulated builder bug: the winner's shifted noise is not paid for (and the loop's
    invariant is stated accordingly free). The kernel states the invariant itself."""
    def bug(patch):
        real = mechanism_rules.lap_mech_shift

        def free(b, ctx, e, eps_pair, obligations, v1, v2, k, coupling, text):
            if coupling.get("at") is not None:
                eps_pair = (T.real(0),) + tuple(eps_pair[1:])
            return real(b, ctx, e, eps_pair, obligations, v1, v2, k, coupling, text)
        patch.setattr(mechanism_rules, "lap_mech_shift", free)
        _stated_free(patch)
    kernel_refuses(monkeypatch, LOOP_TOO_NOISY, NAME, bug, "privacy cost")


def test_an_invariant_not_proved_by_induction_is_refused(monkeypatch):
    """Simulated builder bug: the loop's invariant is used without its derivation (and
    stated free, which its induction would not prove)."""
    def bug(patch):
        real = C.PointwiseValue

        def skip(b, ctx, body, rt):
            node = real(b, ctx, body, rt)
            del node.premises[1:]
            return node
        patch.setitem(registry._JUDGEMENTS, registry.POINTWISE_VALUE, skip)
        _stated_free(patch)
    kernel_refuses(monkeypatch, LOOP_TOO_NOISY, NAME, bug, "needs a val")


def test_a_loop_too_noisy_is_not_verified():
    claims, _ = checked(LOOP_TOO_NOISY)
    assert claims[NAME].verdict != VERIFIED


def _free_invariant(inv):
    """``inv`` with the index 0 (the loop stated free)."""
    from verifier.language import ast as A
    rt, doms = inv.rtype, []
    while isinstance(rt, A.RArrow):
        doms.append(rt.dom)
        rt = rt.cod
    rt = A.replace_fields(rt, div=A.replace_fields(rt.div, eps=A.RealLit(0, "0.0", rt.span)))
    for dom in reversed(doms):
        rt = A.RArrow(dom, rt, rt.span)
    return A.replace_fields(inv, rtype=rt)


def test_a_certificate_with_another_guard_is_refused():
    _, cert = checked(NOISY_MAX)
    for n in cert["nodes"]:
        if n.get("coupling", {}).get("at") == "i":
            n["coupling"]["at"] = "0"
    assert not kernel.check(cert).valid


def test_roles_of_the_argmax_loop():
    program = resolve(parse_file(str(ROOT / "couplings/noisy_max_laplace.pinf")))
    roles = I.argmax_roles(program.find_let("loop"))
    assert (roles.items, roles.counter, roles.index, roles.value, roles.same) == (0, 1, 2, 3, (4,))
    assert I.argmax_roles(program.find_let("reportNoisyMax")) is None


# ---- Report Noisy Min: the argmin loop (the mirror image) ---------------------------------

NOISY_MIN = (ROOT / "couplings" / "noisy_min_laplace.pinf").read_text()
MIN_NAME = "reportNoisyMin"


def parse_program_text(text: str):
    return parse_program(text, "noisy_min.pinf")


@pytest.mark.parametrize("condition", [
    "bestC > noisy",                       # as the benchmark writes it
    "noisy < bestC",
    "noisy <= bestC",                      # ties have probability 0
    "0.0 - noisy > 0.0 - bestC",           # the negated answers' argmax
    "2.0 * noisy < 2.0 * bestC",
])
def test_report_noisy_min_is_verified_in_its_spellings(condition):
    text = NOISY_MIN.replace("if bestC > noisy", f"if {condition}")
    assert f"if {condition}" in text
    claims, cert = checked(text)
    assert claims[MIN_NAME].verdict == VERIFIED, claims[MIN_NAME].failure
    assert "Pointwise-Value" in [n["rule"] for n in cert["nodes"]]
    shifts = {n["coupling"]["offset"] for n in cert["nodes"]
              if n.get("coupling", {}).get("at") is not None}
    assert shifts and all(o.startswith("-") for o in shifts)  # the winner's noise shifted down


@pytest.mark.parametrize("condition, direction", [
    ("bestC > noisy", -1), ("noisy < bestC", -1), ("noisy >= bestC", 1), ("bestC < noisy", 1),
    ("0.0 - noisy > 0.0 - bestC", -1), ("0.0 - noisy < 0.0 - bestC", 1),
    ("noisy * 3.0 > bestC * 3.0", 1), ("sqrt noisy > bestC", 1),   # not linear: the default
])
def test_the_direction_is_read_from_the_comparison(condition, direction):
    text = NOISY_MIN.replace("if bestC > noisy", f"if {condition}")
    decl = resolve(parse_program_text(text)).find_let("cheapest")
    assert I.loop_direction(decl, I.argmax_roles(decl)) == direction


def test_the_direction_follows_the_branch_that_takes_the_new_value():
    """The new value kept in the else branch: ``if noisy < bestC then <keep> else <take>``
    keeps the largest."""
    text = (NOISY_MIN.replace("then cheapest rest (i + 1) i noisy eps",
                              "then cheapest rest (i + 1) bestI bestC eps#")
            .replace("else cheapest rest (i + 1) bestI bestC eps",
                     "else cheapest rest (i + 1) i noisy eps")
            .replace("eps#", "eps"))
    decl = resolve(parse_program_text(text)).find_let("cheapest")
    assert I.loop_direction(decl, I.argmax_roles(decl)) == 1
    claims, _ = checked(text)
    assert claims[MIN_NAME].verdict == VERIFIED, claims[MIN_NAME].failure


@pytest.mark.parametrize("change", [
    ("lapMech (eps / 2.0, c)", "lapMech (2.0 * eps, c)"),      # noise four times too small
    ("M[DP(eps)]", "M[DP(eps / 2.0)]"),                         # the claim eps/2
    ("allWithin (costs<1>, costs<2>, 1.0)", "allWithin (costs<1>, costs<2>, 2.0)"),
    ("lapMech (eps / 2.0, c)", "return c"),                     # no noise: the exact argmin
])
def test_broken_twins_of_noisy_min_are_not_verified(change):
    text = NOISY_MIN.replace(*change)
    assert text != NOISY_MIN
    claims, _ = claims_and_certificate(text)
    assert claims[MIN_NAME].verdict != VERIFIED


def test_the_wrong_direction_is_not_proved(monkeypatch):
    """The direction is a hint read from the source by the builder and by the kernel alike:
    stated the wrong way (the argmax invariant for the argmin loop, and conversely), the
    invariant's induction fails and nothing is verified."""
    monkeypatch.setattr(I, "loop_direction", lambda decl, roles: 1)
    monkeypatch.setattr(C, "loop_direction", lambda decl, roles: 1)
    assert claims_and_certificate(NOISY_MIN)[0][MIN_NAME].verdict != VERIFIED
    monkeypatch.setattr(I, "loop_direction", lambda decl, roles: -1)
    monkeypatch.setattr(C, "loop_direction", lambda decl, roles: -1)
    assert claims_and_certificate(NOISY_MAX)[0][NAME].verdict != VERIFIED


def test_the_kernel_states_the_direction_from_the_source(monkeypatch):
    """A certificate of Report Noisy Min checked by a kernel reading the argmax direction:
    the induction of the invariant the kernel states fails, the certificate is refused (the
    certificate cannot choose the invariant)."""
    _, cert = checked(NOISY_MIN)
    monkeypatch.setattr(I, "loop_direction", lambda decl, roles: 1)
    assert not kernel.check(cert).valid


# ---- one loop from index 0 with a `started` flag -------------------------------------------

STARTED = """
let rec best scores (i : int) (bi : int) (bv : real) (started : bool) eps = match scores with
  | [] -> return bi
  | s :: more ->
    mlet y = lapMech (eps / 2.0, s) in
    if (not started) || y > bv then best more (i + 1) i y true eps
    else best more (i + 1) bi bv true eps

val noisyMax :: {scores :: real list | allWithin (scores<1>, scores<2>, 1.0)} -> {eps :: real+ | =}
             -> M[DP(eps)] {r :: int | =}
let noisyMax scores eps = best scores 0 0 0.0 false eps
"""


def test_roles_of_a_loop_with_a_started_flag():
    program = resolve(parse_program(STARTED, "started.pinf"))
    roles = I.argmax_roles(program.find_let("best"))
    assert (roles.items, roles.counter, roles.index, roles.value, roles.flag) == (0, 1, 2, 3, 4)
    assert roles.same == (5,)


@pytest.mark.parametrize("condition", ["y > bv", "bv < y", "y >= bv"])
def test_noisy_max_with_a_started_flag_is_verified(condition):
    claims, cert = checked(STARTED.replace("y > bv", condition))
    assert claims["noisyMax"].verdict == VERIFIED, claims["noisyMax"].failure
    assert "Pointwise-Value" in [n["rule"] for n in cert["nodes"]]


def test_noisy_min_with_a_started_flag_is_verified():
    claims, _ = checked(STARTED.replace("y > bv", "y < bv"))
    assert claims["noisyMax"].verdict == VERIFIED, claims["noisyMax"].failure


@pytest.mark.parametrize("change", [
    ("lapMech (eps / 2.0, s)", "lapMech (eps, s)"),                          # noise too small
    ("(not started) || y > bv", "(not started) || s > bv"),                  # the exact score
    ("best more (i + 1) i y true eps", "best more (i + 1) i s true eps"),    # kept exactly
    ("M[DP(eps)]", "M[DP(eps / 2.0)]"),                                      # undercharged
])
def test_broken_twins_of_the_started_flag_loop_are_not_verified(change):
    text = STARTED.replace(*change)
    assert text != STARTED
    claims, _ = checked(text)
    assert claims["noisyMax"].verdict != VERIFIED


def test_an_argmax_loop_under_a_tuple_output_is_unknown_not_a_crash():
    """Found by `privinfer fuzz` (noisy max programs): Pointwise-Value names the output value,
    which a tuple output has no one sort for; the claim is left unknown."""
    text = """
let rec best (qs : real list) (i : int) (bi : int) (bv : real) (eps : real) = match qs with
  | [] -> return bi
  | s :: more ->
    mlet y = lapMech (0.5 * eps, s) in
    if y > bv then best more (i + 1) i y eps else best more (i + 1) bi bv eps

val main :: {l :: real list | allWithin (l<1>, l<2>, 1.0)} -> {eps :: real+ | =}
         -> M[DP(eps)] {r :: bool * bool | =}
let main db eps =
  mlet w = match db with
    | [] -> return 0
    | q :: qs -> mlet y = lapMech (0.5 * eps, q) in best qs 1 0 y eps
  in return (true, false)
"""
    claims, _ = checked(text)
    assert claims["main"].verdict != VERIFIED
